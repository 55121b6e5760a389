//! The only code that changes the game state: applying one `Change` at a time.
//!
//! Everything else decides *what* changes (`act`, `behaviour`, `machine`); this module is
//! where it happens, so that every observer sees every change in order.

use crate::energy::Energy;
use crate::geometry::{Direction, Pos};
use crate::ids::{ActorId, Tick};
use crate::item::{Effect, Item, Look};
use crate::level::Level;
use crate::message::{Message, Msg};
use crate::species::{Behaviour, Species};
use crate::state::{Actor, Outcome, Phase, State};

/// One change to the state.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Change {
    /// A new tick: every present actor keeps what it may carry from the last tick, then
    /// gains (phase one); dashes end; comers and goers since the last tick join or leave
    /// the initiative order.
    StartTick,
    Initiative {
        actor: ActorId,
        value: u32,
    },
    /// Every weighted order key of this tick is drawn: sort the order by them.
    Reorder,
    /// The next actor's turn.
    NextTurn,
    /// The idle actors among the turn order's slots `from..to` pay for every wait their
    /// energy covers, each with as many turns: what a crowd of idle actors costs when
    /// nobody watches each wait (see `State::next_to_decide`).
    Settle {
        from: u32,
        to: u32,
    },
    /// Actions are paid for, and counted as the actor's turns: conditions and knock-outs
    /// run down by as many. One action is one turn, but a dash is none.
    Spend {
        actor: ActorId,
        cost: u16,
        turns: u16,
    },
    Dash {
        actor: ActorId,
    },
    Move {
        actor: ActorId,
        to: Pos,
    },
    Hurt {
        actor: ActorId,
        amount: i16,
    },
    Heal {
        actor: ActorId,
        amount: i16,
    },
    Condition {
        actor: ActorId,
        effect: Effect,
        turns: u16,
    },
    Die {
        actor: ActorId,
    },
    /// Leaves without dying: a hatched egg, creatures of a level left behind.
    Vanish {
        actor: ActorId,
    },
    Spawn {
        species: Species,
        behaviour: Behaviour,
        at: Pos,
    },
    Charge {
        actor: ActorId,
        dir: Option<Direction>,
    },
    KnockOut {
        actor: ActorId,
        turns: u16,
    },
    PickUp {
        floor_index: usize,
    },
    Drop {
        slot: usize,
    },
    Consume {
        slot: usize,
    },
    /// An item leaves the bags and lands on the map.
    Land {
        slot: usize,
        at: Pos,
    },
    Door {
        at: Pos,
        open: bool,
    },
    Identify(Look),
    /// The camel takes the stairs: a level is to be made.
    Leave {
        depth: u8,
    },
    NewLevel(Box<Level>),
    Say(Msg),
    End(Outcome),
}

impl State {
    #[inline(always)]
    pub(crate) fn apply(&mut self, change: &Change) {
        match *change {
            Change::StartTick => {
                self.tick = Tick(self.tick.0 + 1);
                if self.order_stale && self.ruleset.order == crate::tape::TurnOrder::Initiative {
                    self.refresh_order();
                }
                let time = self.ruleset.time;
                // Gone actors' clocks are stopped: they neither gain nor lose.
                for clock in self.clocks.all_mut() {
                    time.start_tick(clock);
                }
            }
            Change::Initiative { actor, value } => {
                self.actors[actor.index()].initiative = value;
                // Initiatives are rolled in the order the actors appeared.
                self.unrolled.pop_front();
                self.order_stale = true;
            }
            Change::Reorder => {
                // Heaviest key first; equal keys by actor id.
                self.order_keys
                    .sort_unstable_by_key(|&(key, id)| (std::cmp::Reverse(key), id));
                self.order.clear();
                self.order.extend(self.order_keys.iter().map(|&(_, id)| id));
                self.clocks.arrange(&self.order);
            }
            Change::NextTurn => {
                if let Phase::Act { slot } = self.phase {
                    self.phase = Phase::Act { slot: slot + 1 };
                }
            }
            Change::Settle { from, to } => {
                for clock in self.clocks.in_turn_mut(from..to) {
                    // No branch on whether it can act or is idle: none is paid for then.
                    let turns = u16::from(clock.idle) * clock.waits();
                    clock.energy = Energy(clock.energy.0 - turns * clock.cost);
                    clock.turns += u32::from(turns);
                }
            }
            Change::Spend { actor, cost, turns } => {
                let clock = &mut self.clocks[actor];
                clock.energy = Energy(clock.energy.0.saturating_sub(cost));
                clock.turns += u32::from(turns);
                // An idle clock has nothing counting down.
                if !clock.idle && turns > 0 {
                    self.count_down(actor, turns);
                }
            }
            Change::Dash { actor } => self.clocks[actor].dashing = true,
            Change::Move { actor, to } => {
                let from = self.actors[actor.index()].pos;
                self.world.map.set_occupant(from, None);
                self.world.map.set_occupant(to, Some(actor));
                self.actors[actor.index()].pos = to;
            }
            Change::Hurt { actor, amount } => self.actors[actor.index()].hp -= amount,
            Change::Heal { actor, amount } => {
                let a = &mut self.actors[actor.index()];
                a.hp = (a.hp + amount).min(a.max_hp);
            }
            Change::Condition {
                actor,
                effect,
                turns,
            } => {
                let c = &mut self.actors[actor.index()].conditions;
                match effect {
                    Effect::Haste => c.haste = turns,
                    Effect::Slow => c.slow = turns,
                    Effect::Confusion => c.confused = turns,
                    Effect::Poison => c.poisoned = turns,
                    Effect::Heal => {}
                }
                self.recheck_idle(actor);
            }
            Change::Die { actor } | Change::Vanish { actor } => self.remove(actor),
            Change::Spawn {
                species,
                behaviour,
                at,
            } => {
                self.add_actor(Actor::new(species, behaviour, at, species.stats()));
            }
            Change::Charge { actor, dir } => self.actors[actor.index()].charging = dir,
            Change::KnockOut { actor, turns } => {
                self.actors[actor.index()].knocked_out = turns;
                self.recheck_idle(actor);
            }
            Change::PickUp { floor_index } => {
                let (_, item) = self.world.floor.remove(floor_index);
                self.world.inventory.push(item);
            }
            Change::Drop { slot } => {
                let item = self.world.inventory.remove(slot);
                let at = self.player().map_or(Pos::new(0, 0), |p| p.pos);
                self.world.floor.push((at, item));
            }
            Change::Consume { slot } => {
                self.world.inventory.remove(slot);
            }
            Change::Land { slot, at } => {
                let item = self.world.inventory.remove(slot);
                self.world.floor.push((at, item));
            }
            Change::Door { at, open } => {
                let terrain = if open {
                    crate::map::Terrain::DoorOpen
                } else {
                    crate::map::Terrain::DoorClosed
                };
                self.world.map.set_terrain(at, terrain);
            }
            Change::Identify(look) => self.world.mycology.identify(look),
            Change::Leave { depth } => self.phase = Phase::Generate { depth },
            Change::NewLevel(ref level) => self.enter_level(level),
            Change::Say(msg) => self.messages.push(Message {
                tick: self.tick,
                msg,
            }),
            Change::End(outcome) => self.phase = Phase::Over(outcome),
        }
    }

    /// Adds an actor; it waits for its initiative draw before the game goes on.
    pub(crate) fn add_actor(&mut self, actor: Actor) -> ActorId {
        let id = ActorId(self.actors.len() as u32);
        self.world.map.set_occupant(actor.pos, Some(id));
        self.clocks.push(self.ruleset.time.clock(&actor.stats));
        self.actors.push(actor);
        self.recheck_idle(id);
        if self.ruleset.order == crate::tape::TurnOrder::Initiative {
            self.unrolled.push_back(id);
        }
        self.order_stale = true;
        id
    }

    /// Turns taken: conditions and knock-outs run down by as many.
    fn count_down(&mut self, id: ActorId, turns: u16) {
        let a = &mut self.actors[id.index()];
        if a.knocked_out == 0 && a.conditions.is_none() {
            return;
        }
        a.knocked_out = a.knocked_out.saturating_sub(turns);
        let c = &mut a.conditions;
        c.haste = c.haste.saturating_sub(turns);
        c.slow = c.slow.saturating_sub(turns);
        c.confused = c.confused.saturating_sub(turns);
        c.poisoned = c.poisoned.saturating_sub(turns);
        self.recheck_idle(id);
    }

    /// Keeps `Clock::idle` true exactly for idle actors, present, with nothing counting
    /// down.
    pub(crate) fn recheck_idle(&mut self, id: ActorId) {
        let a = &self.actors[id.index()];
        self.clocks[id].idle = a.behaviour == Behaviour::Idle
            && a.present
            && a.knocked_out == 0
            && a.conditions.is_none();
    }

    fn remove(&mut self, id: ActorId) {
        let actor = &mut self.actors[id.index()];
        actor.present = false;
        let clock = &mut self.clocks[id];
        *clock = clock.stopped();
        let pos = actor.pos;
        if self.world.map.occupant(pos) == Some(id) {
            self.world.map.set_occupant(pos, None);
        }
        self.unrolled.retain(|&a| a != id);
        self.order_stale = true;
    }

    /// The turn order: present actors, highest initiative first, ties by id. Called at the
    /// start of a tick, when every initiative has been rolled; newcomers join then.
    pub(crate) fn refresh_order(&mut self) {
        let actors = &self.actors;
        self.order.clear();
        self.order.extend(
            actors
                .iter()
                .enumerate()
                .filter(|(_, a)| a.present)
                .map(|(i, _)| ActorId(i as u32)),
        );
        self.order
            .sort_by_key(|id| (std::cmp::Reverse(actors[id.index()].initiative), *id));
        self.clocks.arrange(&self.order);
        self.order_stale = false;
    }

    fn enter_level(&mut self, level: &Level) {
        let player = self.world.player;
        for i in 0..self.actors.len() {
            let id = ActorId(i as u32);
            if Some(id) != player && self.actors[i].present {
                self.remove(id);
            }
        }
        self.world.map = level.map.clone();
        self.world.depth = level.depth;
        self.world.floor = level.items.clone();
        if let Some(mycology) = &level.mycology {
            self.world.mycology = mycology.clone();
        }
        match player {
            Some(id) => {
                let camel = &mut self.actors[id.index()];
                camel.pos = level.start;
                camel.charging = None;
                self.world.map.set_occupant(level.start, Some(id));
            }
            None => {
                let camel = Actor::new(
                    Species::Camel,
                    Behaviour::Player,
                    level.start,
                    Species::Camel.stats(),
                );
                let id = self.add_actor(camel);
                self.world.player = Some(id);
                self.world.inventory = starting_kit();
            }
        }
        for &(species, at) in &level.creatures {
            self.add_actor(Actor::new(species, Behaviour::Natural, at, species.stats()));
        }
        self.phase = Phase::StartTick;
    }
}

/// Items the camel starts with.
pub(crate) fn starting_kit() -> Vec<Item> {
    vec![
        Item::Date,
        Item::Date,
        Item::Stone,
        Item::Stone,
        Item::Spear,
    ]
}
