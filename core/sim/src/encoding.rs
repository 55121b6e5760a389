//! The canonical encoding of a state: what `State::hash` digests and snapshots store.
//!
//! bincode 2 with fixed-width little-endian integers, field by field in the order below;
//! every collection in the state is ordered. It is written out here rather than derived so
//! that it does not follow the layout in memory: the state is a world and the machine's
//! books, whose fields are encoded interleaved as they always were; energy lives in
//! clocks kept apart from the actors, in turn order (see `clocks`), but is encoded inside
//! each actor's record, as are its turns and dash; a clock's other figures are worked out
//! again when decoding, and the clocks arranged in the decoded turn order. The game's
//! outcome is encoded inside the machine's phase.

use std::collections::{BTreeMap, VecDeque};

use serde::{Deserialize, Serialize};
use thiserror::Error;

use crate::action::Action;
use crate::bags::Bags;
use crate::clocks::Clocks;
use crate::command::Command;
use crate::energy::{Clock, Energy, Stats};
use crate::geometry::{Direction, Pos};
use crate::ids::{ActorId, Tick};
use crate::item::{Item, Mycology};
use crate::map::Map;
use crate::message::MessageLog;
use crate::sight::CellSet;
use crate::species::{Behaviour, Species};
use crate::state::{Books, BooksParts, Need, Phase, State};
use crate::tape::Ruleset;
use crate::world::{Actor, ActorParts, Conditions, Outcome, World, WorldParts};

/// Why bytes are not the encoding of a state.
#[derive(Clone, Debug, PartialEq, Eq, Error)]
pub enum DecodeError {
    #[error("it does not parse as a state ({0})")]
    Parse(String),
    #[error("it goes on past the end of the state")]
    TrailingBytes,
    #[error("the turn order names an actor twice, or one that does not exist")]
    TurnOrder,
}

impl State {
    /// The state's digest: xxh3-64 over its canonical encoding (bincode 2, fixed-width
    /// little-endian integers; every collection in the state is ordered).
    pub fn hash(&self) -> u64 {
        xxhash_rust::xxh3::xxh3_64(&self.encode())
    }

    /// The canonical encoding, used for hashing and snapshots.
    pub fn encode(&self) -> Vec<u8> {
        bincode::serde::encode_to_vec(Encoded::of(self), canonical())
            .expect("a state always encodes")
    }

    /// The state `bytes` encode, all of them.
    pub fn decode(bytes: &[u8]) -> Result<State, DecodeError> {
        let (decoded, read): (Decoded, usize) =
            bincode::serde::decode_from_slice(bytes, canonical())
                .map_err(|e| DecodeError::Parse(e.to_string()))?;
        if read != bytes.len() {
            return Err(DecodeError::TrailingBytes);
        }
        decoded.into_state()
    }
}

fn canonical() -> impl bincode::config::Config {
    bincode::config::standard()
        .with_little_endian()
        .with_fixed_int_encoding()
}

/// The machine's phase as encoded, with the outcome of a game that is over.
#[derive(Clone, Copy, Serialize, Deserialize)]
enum EncodedPhase {
    Generate { depth: u8 },
    StartTick,
    Ordering,
    Act { slot: u32 },
    Over(Outcome),
}

impl EncodedPhase {
    fn of(phase: Phase, outcome: Option<Outcome>) -> EncodedPhase {
        match (phase, outcome) {
            (Phase::Generate { depth }, _) => EncodedPhase::Generate { depth },
            (Phase::StartTick, _) => EncodedPhase::StartTick,
            (Phase::Ordering, _) => EncodedPhase::Ordering,
            (Phase::Act { slot }, _) => EncodedPhase::Act { slot },
            // The machine is over exactly when the world has an outcome.
            (Phase::Over, outcome) => EncodedPhase::Over(outcome.unwrap_or(Outcome::Quit)),
        }
    }

    fn split(self) -> (Phase, Option<Outcome>) {
        match self {
            EncodedPhase::Generate { depth } => (Phase::Generate { depth }, None),
            EncodedPhase::StartTick => (Phase::StartTick, None),
            EncodedPhase::Ordering => (Phase::Ordering, None),
            EncodedPhase::Act { slot } => (Phase::Act { slot }, None),
            EncodedPhase::Over(outcome) => (Phase::Over, Some(outcome)),
        }
    }
}

#[derive(Serialize)]
struct Encoded<'a> {
    ruleset: Ruleset,
    tick: Tick,
    phase: EncodedPhase,
    need: Need,
    actors: Records<'a>,
    names: &'a BTreeMap<ActorId, String>,
    order: &'a [ActorId],
    order_stale: bool,
    order_keys: &'a [(u64, ActorId)],
    unrolled: &'a VecDeque<ActorId>,
    draws: &'a [u32],
    pending: Option<Command>,
    map: &'a Map,
    depth: u8,
    floor: &'a [(Pos, Item)],
    bags: &'a Bags,
    mycology: &'a Mycology,
    player: Option<ActorId>,
    messages: &'a MessageLog,
    explored: &'a CellSet,
    kills: u32,
    events: u64,
    draws_folded: u64,
}

impl Encoded<'_> {
    fn of(state: &State) -> Encoded<'_> {
        let (world, books) = (state.world(), state.books());
        Encoded {
            ruleset: world.ruleset(),
            tick: world.tick(),
            phase: EncodedPhase::of(books.phase(), world.outcome()),
            need: state.need(),
            actors: Records(world),
            names: world.names(),
            order: world.turn_order(),
            order_stale: world.order_stale(),
            order_keys: books.order_keys(),
            unrolled: world.unrolled(),
            draws: books.draws(),
            pending: books.pending(),
            map: world.map(),
            depth: world.depth(),
            floor: world.floor(),
            bags: world.bags(),
            mycology: world.mycology(),
            player: world.player_id(),
            messages: world.messages(),
            explored: world.explored(),
            kills: world.kills(),
            events: state.events_folded(),
            draws_folded: state.draws_folded(),
        }
    }
}

#[derive(Deserialize)]
struct Decoded {
    ruleset: Ruleset,
    tick: Tick,
    phase: EncodedPhase,
    need: Need,
    actors: Vec<Record>,
    names: BTreeMap<ActorId, String>,
    order: Vec<ActorId>,
    order_stale: bool,
    order_keys: Vec<(u64, ActorId)>,
    unrolled: VecDeque<ActorId>,
    draws: Vec<u32>,
    pending: Option<Command>,
    map: Map,
    depth: u8,
    floor: Vec<(Pos, Item)>,
    bags: Bags,
    mycology: Mycology,
    player: Option<ActorId>,
    messages: MessageLog,
    explored: CellSet,
    kills: u32,
    events: u64,
    draws_folded: u64,
}

impl Decoded {
    fn into_state(self) -> Result<State, DecodeError> {
        let time = self.ruleset.time;
        let (actors, clocks) = self
            .actors
            .into_iter()
            .map(|record| record.into_parts(time))
            .unzip();
        let (phase, outcome) = self.phase.split();
        let world = World::from_parts(WorldParts {
            ruleset: self.ruleset,
            tick: self.tick,
            actors,
            clocks,
            names: self.names,
            order: self.order,
            order_stale: self.order_stale,
            unrolled: self.unrolled,
            map: self.map,
            depth: self.depth,
            floor: self.floor,
            bags: self.bags,
            mycology: self.mycology,
            player: self.player,
            messages: self.messages,
            outcome,
            explored: self.explored,
            kills: self.kills,
        })
        .ok_or(DecodeError::TurnOrder)?;
        let books = Books::from_parts(BooksParts {
            phase,
            need: self.need,
            order_keys: self.order_keys,
            draws: self.draws,
            pending: self.pending,
            events: self.events,
            draws_folded: self.draws_folded,
        });
        Ok(State::from_parts(world, books))
    }
}

/// The actors with their clocks, encoded as one sequence of records without building it.
struct Records<'a>(&'a World);

impl Serialize for Records<'_> {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let world = self.0;
        let clocks: &Clocks = world.clocks();
        let records = (0..world.actor_count()).map(|i| {
            let id = ActorId(i as u32);
            Record::of(world.actor_at(id), &clocks[id])
        });
        serializer.collect_seq(records)
    }
}

/// One actor as encoded: its fields, with its energy after its stats.
#[derive(Clone, Copy, Serialize, Deserialize)]
struct Record {
    species: Species,
    behaviour: Behaviour,
    pos: Pos,
    stats: Stats,
    energy: Energy,
    hp: i16,
    max_hp: i16,
    initiative: u32,
    present: bool,
    dashing: bool,
    turns: u32,
    knocked_out: u16,
    charging: Option<Direction>,
    conditions: Conditions,
    waiting: Option<Action>,
    last_seen: Option<Pos>,
}

impl Record {
    fn of(a: &Actor, clock: &Clock) -> Record {
        Record {
            species: a.species(),
            behaviour: a.behaviour(),
            pos: a.pos(),
            stats: a.stats(),
            energy: clock.energy,
            hp: a.hp(),
            max_hp: a.max_hp(),
            initiative: a.initiative(),
            present: a.is_present(),
            dashing: clock.dashing,
            turns: clock.turns,
            knocked_out: a.knocked_out(),
            charging: a.charging(),
            conditions: a.conditions(),
            waiting: a.waiting(),
            last_seen: a.last_seen(),
        }
    }

    /// The actor, and its clock: worked out from its stats, stopped if it is gone.
    fn into_parts(self, time: crate::tape::TimeModel) -> (ActorParts, Clock) {
        let mut clock = time.clock(&self.stats);
        clock.energy = self.energy;
        clock.turns = self.turns;
        clock.dashing = self.dashing;
        let clock = if self.present { clock } else { clock.stopped() };
        let actor = ActorParts {
            species: self.species,
            behaviour: self.behaviour,
            pos: self.pos,
            stats: self.stats,
            hp: self.hp,
            max_hp: self.max_hp,
            initiative: self.initiative,
            present: self.present,
            knocked_out: self.knocked_out,
            charging: self.charging,
            conditions: self.conditions,
            waiting: self.waiting,
            last_seen: self.last_seen,
        };
        (actor, clock)
    }
}

#[cfg(test)]
mod tests {
    use super::DecodeError;
    use crate::bot::Bot;
    use crate::tape::{Header, Ruleset};
    use crate::{Live, LiveTape, State};

    /// Decoding gives back the very state, clocks included: those of the creatures that
    /// died along the way are stopped again.
    #[test]
    fn a_decoded_state_is_the_state() {
        for ruleset in [Ruleset::NETHACK, Ruleset::CLASSIC] {
            let mut game = LiveTape::new(Header::new(11, ruleset, 0));
            let mut checked = 0;
            Bot::new(3)
                .play_until(&mut game, |state| {
                    let world = state.world();
                    if world.actor_count() > world.actors().count() {
                        assert_eq!(&State::decode(&state.encode()).unwrap(), state);
                        checked += 1;
                    }
                    checked == 20
                })
                .unwrap();
            assert_eq!(checked, 20, "the game has gone creatures to decode");
        }
    }

    /// A state whose turn order names an actor it does not hold (a damaged snapshot that
    /// still parses) is an error, not a panic; so is a state with bytes after it.
    #[test]
    fn a_turn_order_naming_a_missing_actor_does_not_decode() {
        let header = Header::new(11, Ruleset::NETHACK, 0);
        let live = Live::new(&header, &mut (), &mut vec![]);
        let bytes = live.state().encode();
        let mut longer = bytes.clone();
        longer.push(0);
        assert_eq!(State::decode(&longer), Err(DecodeError::TrailingBytes));
        // The order is a u64 length and u32 ids, just before `order_stale`: find it by
        // its contents, and name an actor that does not exist in its first slot.
        let order = live.state().world().turn_order();
        let mut encoded = (order.len() as u64).to_le_bytes().to_vec();
        encoded.extend(order.iter().flat_map(|id| id.0.to_le_bytes()));
        let at = 8 + bytes
            .windows(encoded.len())
            .position(|w| w == encoded)
            .expect("the order is in the encoding");
        for bad in [999u32, order[1].0] {
            let mut damaged = bytes.clone();
            damaged[at..at + 4].copy_from_slice(&bad.to_le_bytes());
            assert_eq!(State::decode(&damaged), Err(DecodeError::TurnOrder));
        }
    }
}
