//! The game state: what the fold builds. Fields are private; reading is free, changing it
//! goes through `apply` alone.

use std::collections::{BTreeMap, VecDeque};

use serde::{Deserialize, Serialize};

use crate::clocks::Clocks;
use crate::energy::{Clock, Energy, Pace, Stats};
use crate::geometry::{Direction, Pos};
use crate::ids::{ActorId, Tick};
use crate::item::{Item, Mycology};
use crate::map::Map;
use crate::message::MessageLog;
use crate::species::{Behaviour, Species};
use crate::tape::{Ruleset, TimeModel};

/// Turns left of a temporary condition; 0 means none.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Conditions {
    pub haste: u16,
    pub slow: u16,
    pub confused: u16,
    pub poisoned: u16,
}

impl Conditions {
    pub fn is_none(&self) -> bool {
        *self == Conditions::default()
    }
}

/// An actor; its energy, turns and dash are kept apart, in its `Clock` (see
/// `State::clocks`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Actor {
    pub(crate) species: Species,
    pub(crate) behaviour: Behaviour,
    pub(crate) pos: Pos,
    pub(crate) stats: Stats,
    pub(crate) hp: i16,
    pub(crate) max_hp: i16,
    pub(crate) initiative: u32,
    /// False once dead or gone (hatched, left behind on an upper level).
    pub(crate) present: bool,
    pub(crate) knocked_out: u16,
    pub(crate) charging: Option<Direction>,
    pub(crate) conditions: Conditions,
}

impl Actor {
    pub(crate) fn new(species: Species, behaviour: Behaviour, pos: Pos, stats: Stats) -> Self {
        Actor {
            species,
            behaviour,
            pos,
            stats,
            hp: species.max_hp(),
            max_hp: species.max_hp(),
            initiative: 0,
            present: true,
            knocked_out: 0,
            charging: None,
            conditions: Conditions::default(),
        }
    }

    pub fn species(&self) -> Species {
        self.species
    }
    pub fn behaviour(&self) -> Behaviour {
        self.behaviour
    }
    pub fn pos(&self) -> Pos {
        self.pos
    }
    pub fn stats(&self) -> Stats {
        self.stats
    }
    pub fn hp(&self) -> i16 {
        self.hp
    }
    pub fn max_hp(&self) -> i16 {
        self.max_hp
    }
    pub fn initiative(&self) -> u32 {
        self.initiative
    }
    pub fn is_present(&self) -> bool {
        self.present
    }
    pub fn knocked_out(&self) -> u16 {
        self.knocked_out
    }
    pub fn charging(&self) -> Option<Direction> {
        self.charging
    }
    pub fn conditions(&self) -> Conditions {
        self.conditions
    }
}

/// Where the machine stands between two events.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub(crate) enum Phase {
    /// A level is to be made (the game's start, or after descending).
    Generate { depth: u8 },
    /// Phase one of the next tick is due.
    StartTick,
    /// Drawing this tick's weighted order: one draw per actor in `order`.
    Ordering,
    /// Phase two: `order[slot]` is the actor whose turn it is.
    Act { slot: u32 },
    /// The game is over; the tape ends here.
    Over(Outcome),
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum Outcome {
    Died,
    Won,
    Quit,
}

/// What the machine needs to go on.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum Need {
    /// The player is ready to act.
    Command,
    /// A raw draw from the game's generator.
    Draw,
    /// The tick limit given to `run_ticks` was reached (scenarios have no player to wait on).
    Pause,
    /// The game is over.
    Nothing,
}

/// The world the camel walks in.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub(crate) struct World {
    pub(crate) map: Map,
    pub(crate) depth: u8,
    /// Items on the ground, in the order they came to lie there.
    pub(crate) floor: Vec<(Pos, Item)>,
    pub(crate) inventory: Vec<Item>,
    pub(crate) mycology: Mycology,
    pub(crate) player: Option<ActorId>,
}

/// Encoded (for hashes and snapshots) by `encoding`, not by deriving: the encoding stays
/// the same whatever the layout in memory.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct State {
    pub(crate) ruleset: Ruleset,
    pub(crate) tick: Tick,
    pub(crate) phase: Phase,
    pub(crate) need: Need,
    /// Every actor that has been in the game; an `ActorId` is an index.
    pub(crate) actors: Vec<Actor>,
    /// Each actor's clock, found by the same index, laid out in turn order.
    pub(crate) clocks: Clocks,
    /// Names given by a scenario file; game actors go by their species.
    pub(crate) names: BTreeMap<ActorId, String>,
    /// This tick's turn order. Under `Initiative` it changes only when actors come or go.
    pub(crate) order: Vec<ActorId>,
    pub(crate) order_stale: bool,
    /// Weighted order keys drawn so far this tick, one per actor of `order`.
    pub(crate) order_keys: Vec<(u64, ActorId)>,
    /// Actors that appeared and still need their initiative draw, oldest first.
    pub(crate) unrolled: VecDeque<ActorId>,
    /// Draws fed to the step being resolved.
    pub(crate) draws: Vec<u32>,
    /// The accepted command being resolved.
    pub(crate) pending: Option<crate::command::Command>,
    pub(crate) world: World,
    pub(crate) messages: MessageLog,
    /// Events folded so far.
    pub(crate) events: u64,
    /// Of those, draws: a live generator resumes after this many outputs.
    pub(crate) draws_folded: u64,
}

impl State {
    pub fn ruleset(&self) -> Ruleset {
        self.ruleset
    }
    pub fn time(&self) -> TimeModel {
        self.ruleset.time
    }
    pub fn tick(&self) -> Tick {
        self.tick
    }
    pub fn need(&self) -> Need {
        self.need
    }
    pub fn outcome(&self) -> Option<Outcome> {
        match self.phase {
            Phase::Over(outcome) => Some(outcome),
            _ => None,
        }
    }
    pub fn map(&self) -> &Map {
        &self.world.map
    }
    pub fn depth(&self) -> u8 {
        self.world.depth
    }
    pub fn floor(&self) -> &[(Pos, Item)] {
        &self.world.floor
    }
    pub fn items_at(&self, pos: Pos) -> impl Iterator<Item = Item> + '_ {
        self.world
            .floor
            .iter()
            .filter(move |(p, _)| *p == pos)
            .map(|&(_, item)| item)
    }
    pub fn inventory(&self) -> &[Item] {
        &self.world.inventory
    }
    pub fn mycology(&self) -> &Mycology {
        &self.world.mycology
    }
    pub fn messages(&self) -> &MessageLog {
        &self.messages
    }
    pub fn events_folded(&self) -> u64 {
        self.events
    }
    pub fn draws_folded(&self) -> u64 {
        self.draws_folded
    }
    pub fn player_id(&self) -> Option<ActorId> {
        self.world.player
    }
    pub fn player(&self) -> Option<&Actor> {
        self.world.player.map(|id| &self.actors[id.index()])
    }
    pub fn actor(&self, id: ActorId) -> Option<&Actor> {
        self.actors.get(id.index())
    }

    /// Every actor still in the game, by id.
    pub fn actors(&self) -> impl Iterator<Item = (ActorId, &Actor)> {
        self.actors
            .iter()
            .enumerate()
            .filter(|(_, a)| a.present)
            .map(|(i, a)| (ActorId(i as u32), a))
    }

    /// The actor's scenario name, or its species.
    pub fn name_of(&self, id: ActorId) -> &str {
        match self.names.get(&id) {
            Some(name) => name,
            None => self
                .actors
                .get(id.index())
                .map_or("?", |a| a.species.name()),
        }
    }

    /// The turn order of the current tick.
    pub fn turn_order(&self) -> &[ActorId] {
        &self.order
    }

    /// Whose turn it is, during phase two.
    pub fn current_actor(&self) -> Option<ActorId> {
        match self.phase {
            Phase::Act { slot } => self.order.get(slot as usize).copied(),
            _ => None,
        }
    }

    pub fn energy(&self, id: ActorId) -> Energy {
        self.clocks.get(id).map_or(Energy(0), |c| c.energy)
    }

    /// Whether `id` has the energy to act.
    pub fn is_ready(&self, id: ActorId) -> bool {
        self.clocks.get(id).is_some_and(Clock::is_ready)
    }

    /// Whether `id` dashed this tick.
    pub fn is_dashing(&self, id: ActorId) -> bool {
        self.clocks.get(id).is_some_and(|c| c.dashing)
    }

    /// How fast `id` goes just now.
    #[inline]
    pub fn pace(&self, id: ActorId) -> Pace {
        let conditions = self.actors.get(id.index()).map(|a| a.conditions);
        let conditions = conditions.unwrap_or_default();
        Pace {
            dashing: self.is_dashing(id),
            hasted: conditions.haste > 0,
            slowed: conditions.slow > 0,
        }
    }

    /// Actions `id` has taken so far.
    pub fn turns(&self, id: ActorId) -> u32 {
        self.clocks.get(id).map_or(0, |c| c.turns)
    }

    /// The first tick at which `id` will be able to act again, assuming it takes no action
    /// before then. Shown by the energy panel.
    pub fn next_ready_tick(&self, id: ActorId) -> Option<Tick> {
        let mut clock = *self.clocks.get(id)?;
        if clock.is_ready() && self.current_actor() == Some(id) {
            return Some(self.tick);
        }
        for ahead in 1..=64 {
            self.time().start_tick(&mut clock);
            if clock.is_ready() {
                return Some(Tick(self.tick.0 + ahead));
            }
        }
        None
    }

    /// The state's digest: xxh3-64 over its canonical encoding (bincode 2, fixed-width
    /// little-endian integers; every collection in the state is ordered).
    pub fn hash(&self) -> u64 {
        xxhash_rust::xxh3::xxh3_64(&self.encode())
    }

    /// The canonical encoding, used for hashing and snapshots.
    pub fn encode(&self) -> Vec<u8> {
        crate::encoding::encode(self)
    }

    pub fn decode(bytes: &[u8]) -> Result<State, bincode::error::DecodeError> {
        crate::encoding::decode(bytes)
    }

    pub(crate) fn is_player(&self, id: ActorId) -> bool {
        self.world.player == Some(id)
    }
}
