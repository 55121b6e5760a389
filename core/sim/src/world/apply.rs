//! The only code that changes the world: applying one `Change` at a time.
//!
//! Everything else decides *what* changes (`decide`, `perform`, the machine); this module
//! is where it happens, so that every observer sees every change in order. A change
//! carries what its observers need to know (the new actor's id, where a thrown item flew
//! from), so that no reader has to work it out from the world's layout.
//!
//! `Bookkeeping` is the machine's share: the turn order and the idle crowd's waits. It
//! changes the world too, but nothing a player or an observer sees happen.

use super::{Actor, Condition, Outcome, World};
use crate::action::Action;
use crate::bags::Bags;
use crate::command::Slot;
use crate::desert::WATERSKIN;
use crate::energy::{Energy, Stats};
use crate::geometry::{Direction, Pos};
use crate::ids::{ActorId, Tick};
use crate::item::{Glass, Item, Look, Stone};
use crate::level::Level;
use crate::lore::{Boon, FURY_COST_HP, HARDIER_HP, SINEW_HP};
use crate::map::Terrain;
use crate::message::{Message, Msg};
use crate::sight::{field_of_view, CellSet};
use crate::species::{Behaviour, Species};
use crate::tape::TurnOrder;

/// One thing that happens in the world.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Change {
    /// A new tick: every present actor keeps what it may carry from the last tick, then
    /// gains (phase one); dashes end; the turn order takes in comers and goers (under
    /// `Initiative`) or lists every present actor by id, to be drawn for (`WeightedEachTick`).
    StartTick,
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
        from: Pos,
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
    /// `actor` has `condition` for `turns` of its turns from now.
    Condition {
        actor: ActorId,
        condition: Condition,
        turns: u16,
    },
    /// Dies, killed by a creature of species `by`, if by one.
    Die {
        actor: ActorId,
        by: Option<Species>,
    },
    /// Leaves without dying: a hatched egg.
    Vanish {
        actor: ActorId,
    },
    /// A newcomer, `actor` being the id it takes (the next one).
    Spawn {
        actor: ActorId,
        species: Species,
        behaviour: Behaviour,
        stats: Stats,
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
    /// `actor` cannot afford what it decided on yet, and gathers strength for it (`Some`),
    /// or no longer does (`None`: carried out, or given up).
    Gather {
        actor: ActorId,
        action: Option<Action>,
    },
    /// The item at `floor_index` goes into the bags.
    PickUp {
        floor_index: usize,
    },
    /// One item from `slot` goes onto the floor at the camel's feet.
    Drop {
        slot: Slot,
    },
    /// One item from `slot` is eaten.
    Consume {
        slot: Slot,
    },
    /// One `item` leaves the bags from `slot`, flies from `from` and lands at `at`.
    Land {
        slot: Slot,
        item: Item,
        from: Pos,
        at: Pos,
    },
    /// One `item` leaves the bags from `slot`, flies from `from` to the creature at `at`
    /// and snaps there: it lands nowhere (`Rules::spears_break`).
    Snap {
        slot: Slot,
        item: Item,
        from: Pos,
        at: Pos,
    },
    Door {
        at: Pos,
        open: bool,
    },
    Identify(Look),
    /// The camel takes a sip from its waterskin.
    Sip,
    /// `sips` go into the camel's waterskin, as many as it has room for.
    Fill {
        sips: u16,
    },
    /// A sleeper wakes, and does as its species does from now on.
    Wake {
        actor: ActorId,
    },
    /// A hunter learns where the camel is without seeing it: a packmate howled.
    Alert {
        actor: ActorId,
        at: Pos,
    },
    /// The camel puts on the item in `slot`, taken from the bags.
    Wear {
        slot: Slot,
    },
    /// The cactus at `at` is trampled flat: sand from now on.
    Trample {
        at: Pos,
    },
    /// `actor` is the camel's ally from now on, forgetting what it was about.
    Tame {
        actor: ActorId,
    },
    /// `actor` and `with` change places.
    Swap {
        actor: ActorId,
        with: ActorId,
    },
    /// The camel learns what a flask or a scarab of this look does.
    Learn(Item),
    /// The camel sees the whole level in its mind: every cell is explored.
    Reveal,
    /// The camel's waterskin is spoilt: emptied.
    Spill,
    /// `actor` falls into a charmed sleep (`Behaviour::Slumber`), forgetting what it was
    /// about.
    Sleep {
        actor: ActorId,
    },
    /// The camel grows, for good.
    Grow(Boon),
    /// The camel takes off `item`, into its bags.
    TakeOff(Item),
    /// The thief `thief` snatches one `item` from `slot` of the camel's bags, and carries
    /// it (rules version 16 on).
    Steal {
        thief: ActorId,
        slot: Slot,
        item: Item,
    },
    /// What the thief `thief` carries, `item`, falls to the ground at `at`.
    LetFall {
        thief: ActorId,
        item: Item,
        at: Pos,
    },
    /// The camel arrives on a new level (the first, or the next one down); the actors of
    /// the level left behind are gone.
    NewLevel(Box<Level>),
    Say(Msg),
    End(Outcome),
}

/// The machine's changes to the world: nothing happens that a player would see.
#[derive(Debug)]
pub(crate) enum Bookkeeping<'a> {
    /// The oldest newcomer's initiative, drawn.
    Initiative { actor: ActorId, value: u32 },
    /// This tick's weighted order: the actors, best key first.
    Reorder(&'a [(u64, ActorId)]),
    /// The idle actors among the turn order's slots `from..to` pay for every wait their
    /// energy covers, each with as many turns: what a crowd of idle actors costs when
    /// nobody watches each wait.
    Settle { from: u32, to: u32 },
}

impl World {
    #[inline(always)]
    pub(crate) fn apply(&mut self, change: &Change) {
        match *change {
            Change::StartTick => self.apply_start_tick(),
            Change::Spend { actor, cost, turns } => self.apply_spend(actor, cost, turns),
            Change::Dash { actor } => self.clocks[actor].dashing = true,
            Change::Move { actor, from, to } => self.apply_move(actor, from, to),
            Change::Hurt { actor, amount } => self.actors[actor.index()].hp -= amount,
            Change::Heal { actor, amount } => self.apply_heal(actor, amount),
            Change::Condition {
                actor,
                condition,
                turns,
            } => self.apply_condition(actor, condition, turns),
            Change::Die { actor, by } => self.apply_die(actor, by),
            Change::Vanish { actor } => self.remove(actor),
            Change::Spawn {
                actor,
                species,
                behaviour,
                stats,
                at,
            } => self.apply_spawn(actor, Actor::new(species, behaviour, at, stats)),
            Change::Charge { actor, dir } => self.actors[actor.index()].charging = dir,
            Change::KnockOut { actor, turns } => self.apply_knock_out(actor, turns),
            Change::Gather { actor, action } => self.actors[actor.index()].waiting = action,
            Change::PickUp { floor_index } => self.apply_pick_up(floor_index),
            Change::Drop { slot } => self.apply_drop(slot),
            Change::Consume { slot } | Change::Snap { slot, .. } => {
                self.bags.take(slot);
            }
            Change::Land { slot, at, .. } => self.apply_land(slot, at),
            Change::Door { at, open } => self.apply_door(at, open),
            Change::Identify(look) => self.mycology.identify(look),
            Change::Sip => self.water -= 1,
            Change::Fill { sips } => {
                self.water = (self.water + sips).min(self.growth.waterskin());
            }
            Change::Wake { actor } => self.actors[actor.index()].behaviour = Behaviour::Natural,
            Change::Alert { actor, at } => self.actors[actor.index()].last_seen = Some(at),
            Change::Trample { at } => self.apply_trample(at),
            Change::Wear { slot } => self.apply_wear(slot),
            Change::Tame { actor } => self.apply_tame(actor),
            Change::Swap { actor, with } => self.apply_swap(actor, with),
            Change::Learn(item) => self.apply_learn(item),
            Change::Reveal => {
                for at in self.map.cells() {
                    self.explored.insert(at);
                }
            }
            Change::Spill => self.water = 0,
            Change::Sleep { actor } => self.apply_sleep(actor),
            Change::Grow(boon) => self.apply_grow(boon),
            Change::TakeOff(item) => {
                self.gear.take_off(item);
                self.bags.add(item);
            }
            Change::Steal { thief, slot, item } => {
                self.bags.take(slot);
                self.loot.insert(thief, item);
            }
            Change::LetFall { thief, item, at } => {
                self.loot.remove(&thief);
                self.floor.push((at, item));
            }
            Change::NewLevel(ref level) => self.apply_new_level(level),
            Change::Say(msg) => self.messages.push(Message {
                tick: self.tick,
                msg,
            }),
            Change::End(outcome) => self.outcome = Some(outcome),
        }
    }

    #[inline(always)]
    pub(crate) fn keep_books(&mut self, books: Bookkeeping) {
        match books {
            Bookkeeping::Initiative { actor, value } => self.keep_initiative(actor, value),
            Bookkeeping::Reorder(keys) => self.keep_reorder(keys),
            Bookkeeping::Settle { from, to } => self.keep_settle(from, to),
        }
    }

    #[inline]
    fn apply_start_tick(&mut self) {
        self.tick = Tick(self.tick.0 + 1);
        match self.rules.ruleset().order {
            TurnOrder::Initiative if self.order_stale => self.refresh_order(),
            TurnOrder::Initiative => {}
            TurnOrder::WeightedEachTick => {
                let present = self.actors.iter().enumerate().filter(|(_, a)| a.present);
                self.order.clear();
                self.order.extend(present.map(|(i, _)| ActorId(i as u32)));
            }
        }
        let time = self.rules.ruleset().time;
        // Gone actors' clocks are stopped: they neither gain nor lose.
        for clock in self.clocks.all_mut() {
            time.start_tick(clock);
        }
    }

    #[inline]
    fn apply_spend(&mut self, actor: ActorId, cost: u16, turns: u16) {
        let clock = &mut self.clocks[actor];
        clock.energy = Energy(clock.energy.0.saturating_sub(cost));
        clock.turns += u32::from(turns);
        // An idle clock has nothing counting down.
        if !clock.idle && turns > 0 {
            self.count_down(actor, turns);
        }
    }

    #[inline]
    fn apply_move(&mut self, actor: ActorId, from: Pos, to: Pos) {
        self.map.set_occupant(from, None);
        self.map.set_occupant(to, Some(actor));
        self.actors[actor.index()].pos = to;
        if self.is_player(actor) {
            self.look_around();
        } else if self.actors[actor.index()].species.hunts() {
            self.notice(actor);
        }
    }

    fn apply_die(&mut self, actor: ActorId, by: Option<Species>) {
        if by == Some(Species::Camel) && !self.is_player(actor) {
            self.kills += 1;
        }
        self.remove(actor);
    }

    fn apply_heal(&mut self, actor: ActorId, amount: i16) {
        let a = &mut self.actors[actor.index()];
        a.hp = (a.hp + amount).min(a.max_hp);
    }

    fn apply_condition(&mut self, actor: ActorId, condition: Condition, turns: u16) {
        self.actors[actor.index()].conditions.set(condition, turns);
        self.recheck_idle(actor);
    }

    fn apply_spawn(&mut self, actor: ActorId, newcomer: Actor) {
        debug_assert_eq!(
            actor.index(),
            self.actors.len(),
            "a newcomer takes the next id"
        );
        self.add_actor(newcomer);
    }

    fn apply_knock_out(&mut self, actor: ActorId, turns: u16) {
        self.actors[actor.index()].knocked_out = turns;
        self.recheck_idle(actor);
    }

    fn apply_pick_up(&mut self, floor_index: usize) {
        let (_, item) = self.floor.remove(floor_index);
        self.bags.add(item);
    }

    fn apply_drop(&mut self, slot: Slot) {
        let at = self.player().map_or(Pos::new(0, 0), |p| p.pos);
        if let Some(item) = self.bags.take(slot) {
            self.floor.push((at, item));
        }
    }

    fn apply_land(&mut self, slot: Slot, at: Pos) {
        if let Some(item) = self.bags.take(slot) {
            self.floor.push((at, item));
        }
    }

    fn apply_door(&mut self, at: Pos, open: bool) {
        let terrain = if open {
            Terrain::DoorOpen
        } else {
            Terrain::DoorClosed
        };
        self.map.set_terrain(at, terrain);
        self.look_around();
    }

    fn apply_wear(&mut self, slot: Slot) {
        if let Some(item) = self.bags.take(slot) {
            self.gear.put_on(item);
        }
    }

    fn apply_tame(&mut self, id: ActorId) {
        let actor = &mut self.actors[id.index()];
        actor.behaviour = Behaviour::Ally;
        actor.waiting = None;
        actor.last_seen = None;
        self.recheck_idle(id);
    }

    fn apply_learn(&mut self, item: Item) {
        match item {
            Item::Flask(glass) => self.lore.learn_glass(glass),
            Item::Scarab(stone) => self.lore.learn_stone(stone),
            _ => {}
        }
    }

    fn apply_sleep(&mut self, id: ActorId) {
        let actor = &mut self.actors[id.index()];
        actor.behaviour = Behaviour::Slumber;
        actor.charging = None;
        actor.waiting = None;
        actor.last_seen = None;
        self.recheck_idle(id);
    }

    fn apply_grow(&mut self, boon: Boon) {
        self.growth.grow(boon);
        let Some(id) = self.player else {
            return;
        };
        let camel = &mut self.actors[id.index()];
        match boon {
            Boon::Hardier => {
                (camel.max_hp, camel.hp) = (camel.max_hp + HARDIER_HP, camel.hp + HARDIER_HP)
            }
            Boon::Sinew => {
                (camel.max_hp, camel.hp) = (camel.max_hp + SINEW_HP, camel.hp + SINEW_HP)
            }
            Boon::Fury => {
                camel.max_hp = (camel.max_hp - FURY_COST_HP).max(1);
                camel.hp = camel.hp.min(camel.max_hp);
            }
            Boon::Sage => {
                Glass::ALL
                    .into_iter()
                    .for_each(|g| self.lore.learn_glass(g));
                Stone::ALL
                    .into_iter()
                    .for_each(|s| self.lore.learn_stone(s));
            }
            _ => {}
        }
        // A waterskin grown smaller spills what it no longer holds.
        self.water = self.water.min(self.growth.waterskin());
    }

    fn apply_swap(&mut self, actor: ActorId, with: ActorId) {
        let (a, b) = (
            self.actors[actor.index()].pos,
            self.actors[with.index()].pos,
        );
        self.map.set_occupant(a, Some(with));
        self.map.set_occupant(b, Some(actor));
        self.actors[actor.index()].pos = b;
        self.actors[with.index()].pos = a;
        if self.is_player(actor) {
            self.look_around();
        }
    }

    /// The camel may see further once a cactus is gone.
    fn apply_trample(&mut self, at: Pos) {
        self.map.set_terrain(at, Terrain::Sand);
        self.look_around();
    }

    fn apply_new_level(&mut self, level: &Level) {
        let player = self.player;
        let followers = self.followers();
        for i in 0..self.actors.len() {
            let id = ActorId(i as u32);
            if Some(id) != player && self.actors[i].present && !followers.contains(&id) {
                self.remove(id);
            }
        }
        self.map = level.map.clone();
        self.depth = level.depth;
        self.ground = level.ground;
        self.floor = level.items.clone();
        self.sight = CellSet::empty(&self.map);
        self.explored = CellSet::empty(&self.map);
        if let Some(mycology) = &level.mycology {
            self.mycology = mycology.clone();
        }
        if let Some(lore) = level.lore {
            self.lore = lore;
        }
        if let Some(offers) = level.offers {
            self.growth.offered(offers);
        }
        match player {
            Some(id) => {
                let camel = &mut self.actors[id.index()];
                camel.pos = level.start;
                camel.charging = None;
                self.map.set_occupant(level.start, Some(id));
            }
            None => {
                let camel = Species::Camel;
                let id = self.add_actor(Actor::new(
                    camel,
                    Behaviour::Player,
                    level.start,
                    camel.stats(),
                ));
                self.player = Some(id);
                self.bags = match self.rules.letters_kept() {
                    true => Bags::keeping_letters(&STARTING_KIT),
                    false => Bags::of(&STARTING_KIT),
                };
                if self.rules.desert_clock() {
                    self.water = WATERSKIN;
                }
            }
        }
        for &(species, at, behaviour) in &level.creatures {
            self.add_actor(Actor::new(species, behaviour, at, species.stats()));
        }
        for id in followers {
            self.arrive_beside_the_camel(id, level.start);
        }
        self.look_around();
    }

    /// The allies who go down the stairs with the camel (`World::follows_down`).
    fn followers(&self) -> Vec<ActorId> {
        let ids = (0..self.actors.len()).map(|i| ActorId(i as u32));
        ids.filter(|&id| self.follows_down(id)).collect()
    }

    /// A follower comes onto the new level on the free cell nearest the camel's, having
    /// left behind whatever it was doing; with no cell free, it stays behind.
    fn arrive_beside_the_camel(&mut self, id: ActorId, start: Pos) {
        let Some(at) = self.map.nearest_free(start) else {
            return self.remove(id);
        };
        self.map.set_occupant(at, Some(id));
        let actor = &mut self.actors[id.index()];
        actor.pos = at;
        actor.charging = None;
        actor.waiting = None;
        actor.last_seen = None;
    }

    fn keep_initiative(&mut self, actor: ActorId, value: u32) {
        self.actors[actor.index()].initiative = value;
        // Initiatives are rolled in the order the actors appeared.
        self.unrolled.pop_front();
        self.order_stale = true;
    }

    fn keep_reorder(&mut self, keys: &[(u64, ActorId)]) {
        self.order.clear();
        self.order.extend(keys.iter().map(|&(_, id)| id));
        self.clocks.arrange(&self.order);
    }

    #[inline]
    fn keep_settle(&mut self, from: u32, to: u32) {
        for clock in self.clocks.in_turn_mut(from..to) {
            // No branch on whether it can act or is idle: none is paid for then.
            let turns = u16::from(clock.idle) * clock.waits();
            clock.energy = Energy(clock.energy.0 - turns * clock.cost);
            clock.turns += u32::from(turns);
        }
    }

    /// Adds an actor; it waits for its initiative draw before the game goes on.
    fn add_actor(&mut self, actor: Actor) -> ActorId {
        let id = ActorId(self.actors.len() as u32);
        self.map.set_occupant(actor.pos, Some(id));
        self.clocks
            .push(self.rules.ruleset().time.clock(&actor.stats));
        self.actors.push(actor);
        self.recheck_idle(id);
        if self.rules.ruleset().order == TurnOrder::Initiative {
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
        a.conditions.run_down(turns);
        self.recheck_idle(id);
    }

    /// Keeps `Clock::idle` true exactly for idle actors, present, with nothing counting
    /// down.
    pub(super) fn recheck_idle(&mut self, id: ActorId) {
        let a = &self.actors[id.index()];
        self.clocks[id].idle = a.behaviour == Behaviour::Idle
            && a.present
            && a.knocked_out == 0
            && a.conditions.is_none();
    }

    /// The camel looks about it: what it sees now, and remembers from now on; every hunter
    /// in sight sees it too, and knows where it is.
    fn look_around(&mut self) {
        self.compute_sight();
        self.explored.extend(&self.sight);
        for id in 0..self.actors.len() {
            let actor = &self.actors[id];
            if actor.present && actor.species.hunts() {
                self.notice(ActorId(id as u32));
            }
        }
    }

    /// The cells the camel sees from where it stands; none without a camel.
    pub(super) fn compute_sight(&mut self) {
        self.sight.clear();
        if let Some(camel) = self.player().filter(|c| c.present) {
            let at = camel.pos;
            field_of_view(&self.map, at, &mut self.sight);
        }
    }

    /// A hunter that sees the camel knows where it is; one that reaches the place it last
    /// saw the camel without seeing it there loses the trail.
    fn notice(&mut self, id: ActorId) {
        let camel = self.player().filter(|c| c.present).map(|c| c.pos);
        let hunter = &self.actors[id.index()];
        let seen = camel.filter(|_| self.sight.contains(hunter.pos));
        let last_seen = match seen {
            Some(at) => Some(at),
            None if hunter.last_seen == Some(hunter.pos) => None,
            None => hunter.last_seen,
        };
        self.actors[id.index()].last_seen = last_seen;
    }

    fn remove(&mut self, id: ActorId) {
        let actor = &mut self.actors[id.index()];
        actor.present = false;
        let clock = &mut self.clocks[id];
        *clock = clock.stopped();
        let pos = actor.pos;
        if self.map.occupant(pos) == Some(id) {
            self.map.set_occupant(pos, None);
        }
        self.unrolled.retain(|&a| a != id);
        self.order_stale = true;
        // What a thief carries goes with it when it goes without letting it fall.
        self.loot.remove(&id);
    }

    /// The turn order: present actors, highest initiative first, ties by id. Called at the
    /// start of a tick, when every initiative has been rolled; newcomers join then.
    fn refresh_order(&mut self) {
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
}

/// Items the camel starts with.
const STARTING_KIT: [Item; 5] = [
    Item::Date,
    Item::Date,
    Item::Stone,
    Item::Stone,
    Item::Spear,
];
