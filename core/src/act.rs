//! Actions: what an actor does once every random outcome is settled, and performing them.
//!
//! Deciding (`behaviour`, or the player's command) and rolling may need draws and are
//! re-run until they have them; performing needs none and runs once.

use crate::apply::Change;
use crate::command::{Command, Slot};
use crate::energy::Cost;
use crate::geometry::{Direction, Pos};
use crate::ids::{ActorId, Tick};
use crate::item::{Effect, Item};
use crate::machine::Observer;
use crate::map::Terrain;
use crate::message::Msg;
use crate::rng::{Draws, NeedDraw};
use crate::species::Species;
use crate::state::{Outcome, Phase, State};

/// An elephant that hits a cactus is out for this many of its turns.
pub const KNOCKOUT_TURNS: u16 = 20;
/// A spider egg hatches on this turn of its own.
pub const HATCH_TURN: u32 = 10;

/// A decided action, its dice already rolled.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Action {
    /// Spends one action doing nothing in particular (an idle actor, a waiting egg).
    Wait,
    /// Ends the turn and keeps the energy.
    Rest,
    Dash,
    Step {
        to: Pos,
    },
    Attack {
        target: ActorId,
        damage: i16,
    },
    /// Walked into something that does not give way; the action is spent.
    Bump,
    PickUp,
    Drop(Slot),
    Eat(Slot),
    Throw {
        slot: Slot,
        lands: Pos,
        hit: Option<(ActorId, i16)>,
    },
    Open(Pos),
    Close(Pos),
    Descend,
    Quit,
    /// One cell of an elephant's charge.
    Charge {
        dir: Direction,
        to: Pos,
    },
    /// A charge that ends against a creature.
    Ram {
        target: ActorId,
        damage: i16,
    },
    /// A charge that ends against terrain; a cactus knocks the elephant out.
    Crash {
        cactus: bool,
    },
    /// A knocked-out turn.
    Stunned,
    LayEgg {
        at: Pos,
    },
    Hatch,
}

impl Action {
    pub fn name(&self) -> &'static str {
        match self {
            Action::Wait => "idle",
            Action::Rest => "rest",
            Action::Dash => "dash",
            Action::Step { .. } => "move",
            Action::Attack { .. } => "attack",
            Action::Bump => "bump",
            Action::PickUp => "pick up",
            Action::Drop(_) => "drop",
            Action::Eat(_) => "eat",
            Action::Throw { .. } => "throw",
            Action::Open(_) => "open",
            Action::Close(_) => "close",
            Action::Descend => "descend",
            Action::Quit => "quit",
            Action::Charge { .. } => "charge",
            Action::Ram { .. } => "ram",
            Action::Crash { .. } => "crash",
            Action::Stunned => "stunned",
            Action::LayEgg { .. } => "lay egg",
            Action::Hatch => "hatch",
        }
    }

    /// Ends the actor's turn whatever energy is left.
    fn ends_turn(&self) -> bool {
        matches!(self, Action::Rest | Action::Descend | Action::Quit)
    }
}

/// One action taken, as the trace and the client see it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ActionRecord {
    pub tick: Tick,
    pub actor: ActorId,
    pub action: Action,
    pub energy_before: u16,
    pub energy_after: u16,
}

/// A roll of damage for `species`.
pub(crate) fn roll_damage(species: Species, draws: &mut Draws) -> Result<i16, NeedDraw> {
    let (low, high) = species.damage();
    Ok(draws.between(low, high)? as i16)
}

/// Resolves a validated player command into an action, rolling what it needs.
pub(crate) fn resolve_command(
    state: &State,
    id: ActorId,
    command: Command,
    draws: &mut Draws,
) -> Result<Action, NeedDraw> {
    let me = &state.actors[id.index()];
    Ok(match command {
        Command::Move(dir) => {
            let dir = if me.conditions.confused > 0 {
                Direction::ALL[draws.below(8)? as usize]
            } else {
                dir
            };
            step_or_attack(state, id, dir, |_| true, draws)?
        }
        Command::Rest => Action::Rest,
        Command::PickUp => Action::PickUp,
        Command::Drop(slot) => Action::Drop(slot),
        Command::Eat(slot) => Action::Eat(slot),
        Command::Throw(slot, dir) => throw(state, id, slot, dir, draws)?,
        Command::Open(dir) => Action::Open(me.pos.step(dir)),
        Command::Close(dir) => Action::Close(me.pos.step(dir)),
        Command::Descend => Action::Descend,
        Command::Dash => Action::Dash,
        Command::Quit => Action::Quit,
    })
}

/// A step in `dir`: an attack if someone `may_attack` stands there, a bump if the way is
/// blocked, else a move.
pub(crate) fn step_or_attack(
    state: &State,
    id: ActorId,
    dir: Direction,
    may_attack: impl Fn(ActorId) -> bool,
    draws: &mut Draws,
) -> Result<Action, NeedDraw> {
    let me = &state.actors[id.index()];
    let to = me.pos.step(dir);
    Ok(match state.world.map.occupant(to) {
        Some(target) if may_attack(target) => Action::Attack {
            target,
            damage: roll_damage(me.species, draws)?,
        },
        Some(_) => Action::Bump,
        None if state.world.map.terrain(to).is_passable() => Action::Step { to },
        None => Action::Bump,
    })
}

/// A thrown item flies until it hits a creature or a wall, and lands there.
fn throw(
    state: &State,
    id: ActorId,
    slot: Slot,
    dir: Direction,
    draws: &mut Draws,
) -> Result<Action, NeedDraw> {
    let map = &state.world.map;
    let item = state.world.inventory[usize::from(slot.0)];
    let mut at = state.actors[id.index()].pos;
    let mut lands = at;
    loop {
        let next = at.step(dir);
        if let Some(target) = map.occupant(next) {
            let (low, high) = item.thrown_damage();
            let damage = draws.between(low, high)? as i16;
            return Ok(Action::Throw {
                slot,
                lands: next,
                hit: Some((target, damage)),
            });
        }
        if map.terrain(next).blocks() || !map.contains(next) {
            return Ok(Action::Throw {
                slot,
                lands,
                hit: None,
            });
        }
        at = next;
        if map.terrain(at).is_passable() {
            lands = at;
        }
    }
}

impl State {
    /// Changes the state and tells the observer.
    #[inline(always)]
    pub(crate) fn change(&mut self, change: Change, obs: &mut impl Observer) {
        self.apply(&change);
        obs.changed(self, &change);
    }

    pub(crate) fn say(&mut self, msg: Msg, obs: &mut impl Observer) {
        self.change(Change::Say(msg), obs);
    }

    /// What `action` costs `id` now.
    #[inline]
    pub(crate) fn cost_of(&self, id: ActorId, action: &Action) -> u16 {
        let actor = &self.actors[id.index()];
        let cost = match *action {
            Action::Rest | Action::Dash | Action::Quit => Cost::Free,
            Action::Step { to } | Action::Charge { to, .. } => {
                Cost::Step(self.world.map.terrain(to))
            }
            _ => Cost::Action,
        };
        self.ruleset.time.cost(&actor.stats, cost, self.pace(id))
    }

    /// Carries out a decided action: pays its `cost`, then makes its changes.
    pub(crate) fn perform(
        &mut self,
        id: ActorId,
        action: Action,
        cost: u16,
        obs: &mut impl Observer,
    ) {
        let before = self.clocks[id].energy.0;
        let turn = !matches!(action, Action::Dash);
        let poisoned = turn && self.actors[id.index()].conditions.poisoned > 0;
        if turn {
            self.turn_ends_conditions(id, obs);
        }
        self.change(
            Change::Spend {
                actor: id,
                cost,
                turns: u16::from(turn),
            },
            obs,
        );
        if poisoned {
            // Poison hurts with every turn it lasts, its last included.
            self.hurt(id, 1, None, obs);
        }
        if self.actors[id.index()].present {
            self.carry_out(id, action, obs);
        }
        let record = ActionRecord {
            tick: self.tick,
            actor: id,
            action,
            energy_before: before,
            energy_after: self.clocks[id].energy.0,
        };
        obs.acted(self, &record);
        let still_acting = || {
            matches!(self.phase, Phase::Act { .. })
                && self.current_actor() == Some(id)
                && self.actors[id.index()].present
        };
        if action.ends_turn() && still_acting() {
            self.change(Change::NextTurn, obs);
        }
    }

    /// Tells the camel which of its conditions end with the turn it is taking.
    fn turn_ends_conditions(&mut self, id: ActorId, obs: &mut impl Observer) {
        let c = self.actors[id.index()].conditions;
        if c.is_none() || !self.is_player(id) {
            return;
        }
        for (left, effect) in [
            (c.haste, Effect::Haste),
            (c.slow, Effect::Slow),
            (c.confused, Effect::Confusion),
            (c.poisoned, Effect::Poison),
        ] {
            if left == 1 {
                self.say(Msg::ConditionEnds(effect), obs);
            }
        }
    }

    fn carry_out(&mut self, id: ActorId, action: Action, obs: &mut impl Observer) {
        let species = self.actors[id.index()].species;
        match action {
            Action::Wait | Action::Rest | Action::Bump | Action::Stunned => {
                if action == Action::Bump && self.is_player(id) {
                    self.say(Msg::Stumble, obs);
                }
            }
            Action::Dash => self.change(Change::Dash { actor: id }, obs),
            Action::Step { to } => self.step(id, to, obs),
            Action::Attack { target, damage } => self.hurt(target, damage, Some(species), obs),
            Action::PickUp => {
                let at = self.actors[id.index()].pos;
                if let Some(floor_index) = self.world.floor.iter().position(|(p, _)| *p == at) {
                    let item = self.world.floor[floor_index].1;
                    self.change(Change::PickUp { floor_index }, obs);
                    self.say(Msg::PickedUp(item), obs);
                }
            }
            Action::Drop(slot) => {
                let item = self.world.inventory[usize::from(slot.0)];
                self.change(
                    Change::Drop {
                        slot: usize::from(slot.0),
                    },
                    obs,
                );
                self.say(Msg::Dropped(item), obs);
            }
            Action::Eat(slot) => self.eat(id, slot, obs),
            Action::Throw { slot, lands, hit } => {
                let item = self.world.inventory[usize::from(slot.0)];
                self.change(
                    Change::Land {
                        slot: usize::from(slot.0),
                        at: lands,
                    },
                    obs,
                );
                let hit_species = hit.map(|(t, _)| self.actors[t.index()].species);
                self.say(
                    Msg::Thrown {
                        item,
                        hit: hit_species,
                    },
                    obs,
                );
                if let Some((target, damage)) = hit {
                    self.hurt(target, damage, Some(species), obs);
                }
            }
            Action::Open(at) => {
                self.change(Change::Door { at, open: true }, obs);
                self.say(Msg::Opened, obs);
            }
            Action::Close(at) => {
                self.change(Change::Door { at, open: false }, obs);
                self.say(Msg::Closed, obs);
            }
            Action::Descend => {
                let depth = self.world.depth + 1;
                self.change(Change::Leave { depth }, obs);
            }
            Action::Quit => {
                self.say(Msg::Quit, obs);
                self.change(Change::End(Outcome::Quit), obs);
            }
            Action::Charge { dir, to } => {
                if self.actors[id.index()].charging.is_none() {
                    self.change(
                        Change::Charge {
                            actor: id,
                            dir: Some(dir),
                        },
                        obs,
                    );
                    self.say(Msg::Charges, obs);
                }
                self.step(id, to, obs);
            }
            Action::Ram { target, damage } => {
                self.change(
                    Change::Charge {
                        actor: id,
                        dir: None,
                    },
                    obs,
                );
                self.hurt(target, damage, Some(species), obs);
            }
            Action::Crash { cactus } => {
                self.change(
                    Change::Charge {
                        actor: id,
                        dir: None,
                    },
                    obs,
                );
                if cactus {
                    self.change(
                        Change::KnockOut {
                            actor: id,
                            turns: KNOCKOUT_TURNS,
                        },
                        obs,
                    );
                    self.say(Msg::Stunned, obs);
                }
            }
            Action::LayEgg { at } => {
                self.change(
                    Change::Spawn {
                        species: Species::SpiderEgg,
                        behaviour: crate::species::Behaviour::Natural,
                        at,
                    },
                    obs,
                );
                self.say(Msg::EggLaid, obs);
            }
            Action::Hatch => self.hatch(id, obs),
        }
    }

    fn step(&mut self, id: ActorId, to: Pos, obs: &mut impl Observer) {
        self.change(Change::Move { actor: id, to }, obs);
        if self.is_player(id) && self.world.map.terrain(to) == Terrain::Oasis {
            self.say(Msg::Won, obs);
            self.change(Change::End(Outcome::Won), obs);
        }
    }

    fn eat(&mut self, id: ActorId, slot: Slot, obs: &mut impl Observer) {
        let item = self.world.inventory[usize::from(slot.0)];
        self.change(
            Change::Consume {
                slot: usize::from(slot.0),
            },
            obs,
        );
        self.say(Msg::Ate(item), obs);
        match item {
            Item::Mushroom(look) => {
                let effect = self.world.mycology.effect(look);
                if !self.world.mycology.is_known(look) {
                    self.change(Change::Identify(look), obs);
                    self.say(Msg::Identified { look, effect }, obs);
                }
                match effect {
                    Effect::Heal => self.change(
                        Change::Heal {
                            actor: id,
                            amount: 10,
                        },
                        obs,
                    ),
                    Effect::Poison => self.condition(id, effect, 8, obs),
                    Effect::Haste | Effect::Slow => self.condition(id, effect, 20, obs),
                    Effect::Confusion => self.condition(id, effect, 10, obs),
                }
            }
            food => self.change(
                Change::Heal {
                    actor: id,
                    amount: food.nourishment(),
                },
                obs,
            ),
        }
    }

    fn condition(&mut self, actor: ActorId, effect: Effect, turns: u16, obs: &mut impl Observer) {
        self.change(
            Change::Condition {
                actor,
                effect,
                turns,
            },
            obs,
        );
    }

    /// Damage, and death when hit points run out.
    pub(crate) fn hurt(
        &mut self,
        target: ActorId,
        amount: i16,
        by: Option<Species>,
        obs: &mut impl Observer,
    ) {
        let victim = self.actors[target.index()].species;
        self.change(
            Change::Hurt {
                actor: target,
                amount,
            },
            obs,
        );
        if let Some(attacker) = by {
            self.say(
                Msg::Hit {
                    attacker,
                    target: victim,
                    damage: amount,
                },
                obs,
            );
        }
        if self.actors[target.index()].hp > 0 {
            return;
        }
        self.change(Change::Die { actor: target }, obs);
        if self.is_player(target) {
            self.say(Msg::Died { by }, obs);
            self.change(Change::End(Outcome::Died), obs);
        } else if let Some(attacker) = by {
            self.say(
                Msg::Killed {
                    attacker,
                    target: victim,
                },
                obs,
            );
        }
    }

    /// The egg opens: a spider on every empty neighbouring cell.
    fn hatch(&mut self, id: ActorId, obs: &mut impl Observer) {
        let at = self.actors[id.index()].pos;
        self.change(Change::Vanish { actor: id }, obs);
        let mut spiders = 0;
        for dir in Direction::ALL {
            let cell = at.step(dir);
            if self.world.map.is_free(cell) {
                self.change(
                    Change::Spawn {
                        species: Species::Spider,
                        behaviour: crate::species::Behaviour::Natural,
                        at: cell,
                    },
                    obs,
                );
                spiders += 1;
            }
        }
        self.say(Msg::Hatched { spiders }, obs);
    }
}
