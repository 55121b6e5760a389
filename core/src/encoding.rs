//! The canonical encoding of a state: what `State::hash` digests and snapshots store.
//!
//! bincode 2 with fixed-width little-endian integers, field by field in the order below;
//! every collection in the state is ordered. It is written out here rather than derived so
//! that it does not follow the layout in memory: energy lives in clocks kept apart from
//! the actors, in turn order (see `clocks`), but is encoded inside each actor's record, as
//! are its turns and dash; a clock's other figures are worked out again when decoding, and
//! the clocks arranged in the decoded turn order.

use std::collections::{BTreeMap, VecDeque};

use serde::{Deserialize, Serialize};

use crate::clocks::Clocks;
use crate::command::Command;
use crate::energy::{Clock, Energy, Stats};
use crate::geometry::{Direction, Pos};
use crate::ids::{ActorId, Tick};
use crate::message::MessageLog;
use crate::species::{Behaviour, Species};
use crate::state::{Actor, Conditions, Need, Phase, State, World};
use crate::tape::Ruleset;

fn canonical() -> impl bincode::config::Config {
    bincode::config::standard()
        .with_little_endian()
        .with_fixed_int_encoding()
}

pub(crate) fn encode(state: &State) -> Vec<u8> {
    let encoded = Encoded {
        ruleset: &state.ruleset,
        tick: state.tick,
        phase: &state.phase,
        need: state.need,
        actors: Records(&state.actors, &state.clocks),
        names: &state.names,
        order: &state.order,
        order_stale: state.order_stale,
        order_keys: &state.order_keys,
        unrolled: &state.unrolled,
        draws: &state.draws,
        pending: state.pending,
        world: &state.world,
        messages: &state.messages,
        events: state.events,
        draws_folded: state.draws_folded,
    };
    bincode::serde::encode_to_vec(&encoded, canonical()).expect("a state always encodes")
}

pub(crate) fn decode(bytes: &[u8]) -> Result<State, bincode::error::DecodeError> {
    let (d, _): (Decoded, usize) = bincode::serde::decode_from_slice(bytes, canonical())?;
    let time = d.ruleset.time;
    let (actors, clocks): (_, Vec<Clock>) = d
        .actors
        .into_iter()
        .map(|record| {
            let mut clock = time.clock(&record.stats);
            clock.energy = record.energy;
            clock.turns = record.turns;
            clock.dashing = record.dashing;
            let actor = record.into_actor();
            let clock = if actor.present {
                clock
            } else {
                clock.stopped()
            };
            (actor, clock)
        })
        .unzip();
    let clocks = Clocks::new(clocks, &d.order).ok_or(bincode::error::DecodeError::Other(
        "the turn order names an actor twice, or one that does not exist",
    ))?;
    let mut state = State {
        ruleset: d.ruleset,
        tick: d.tick,
        phase: d.phase,
        need: d.need,
        actors,
        clocks,
        names: d.names,
        order: d.order,
        order_stale: d.order_stale,
        order_keys: d.order_keys,
        unrolled: d.unrolled,
        draws: d.draws,
        pending: d.pending,
        world: d.world,
        messages: d.messages,
        events: d.events,
        draws_folded: d.draws_folded,
    };
    for i in 0..state.actors.len() {
        state.recheck_idle(ActorId(i as u32));
    }
    Ok(state)
}

#[derive(Serialize)]
struct Encoded<'a> {
    ruleset: &'a Ruleset,
    tick: Tick,
    phase: &'a Phase,
    need: Need,
    actors: Records<'a>,
    names: &'a BTreeMap<ActorId, String>,
    order: &'a [ActorId],
    order_stale: bool,
    order_keys: &'a [(u64, ActorId)],
    unrolled: &'a VecDeque<ActorId>,
    draws: &'a [u32],
    pending: Option<Command>,
    world: &'a World,
    messages: &'a MessageLog,
    events: u64,
    draws_folded: u64,
}

#[derive(Deserialize)]
struct Decoded {
    ruleset: Ruleset,
    tick: Tick,
    phase: Phase,
    need: Need,
    actors: Vec<Record>,
    names: BTreeMap<ActorId, String>,
    order: Vec<ActorId>,
    order_stale: bool,
    order_keys: Vec<(u64, ActorId)>,
    unrolled: VecDeque<ActorId>,
    draws: Vec<u32>,
    pending: Option<Command>,
    world: World,
    messages: MessageLog,
    events: u64,
    draws_folded: u64,
}

/// The actors with their clocks, encoded as one sequence of records without building it.
struct Records<'a>(&'a [Actor], &'a Clocks);

impl Serialize for Records<'_> {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let records =
            (self.0.iter().enumerate()).map(|(i, a)| Record::of(a, &self.1[ActorId(i as u32)]));
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
}

impl Record {
    fn of(a: &Actor, clock: &Clock) -> Record {
        Record {
            species: a.species,
            behaviour: a.behaviour,
            pos: a.pos,
            stats: a.stats,
            energy: clock.energy,
            hp: a.hp,
            max_hp: a.max_hp,
            initiative: a.initiative,
            present: a.present,
            dashing: clock.dashing,
            turns: clock.turns,
            knocked_out: a.knocked_out,
            charging: a.charging,
            conditions: a.conditions,
        }
    }

    fn into_actor(self) -> Actor {
        Actor {
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
        }
    }
}

#[cfg(test)]
mod tests {
    use crate::bot::Bot;
    use crate::tape::{Header, Ruleset};
    use crate::{Live, State};

    /// Decoding gives back the very state, clocks included: those of the creatures that
    /// died along the way are stopped again.
    #[test]
    fn a_decoded_state_is_the_state() {
        for ruleset in [Ruleset::NETHACK, Ruleset::CLASSIC] {
            let header = Header::new(11, ruleset, 0);
            let mut live = Live::new(&header, &mut (), &mut vec![]);
            let mut bot = Bot::new(3);
            let mut checked = 0;
            for _ in 0..3_000 {
                let Some(command) = bot.choose(live.state()) else {
                    break;
                };
                live.command(command, &mut (), &mut vec![]).unwrap();
                let state = live.state();
                if state.actors.iter().any(|a| !a.present) && checked < 20 {
                    assert_eq!(&State::decode(&state.encode()).unwrap(), state);
                    checked += 1;
                }
            }
            assert_eq!(checked, 20, "the game has gone creatures to decode");
        }
    }

    /// A state whose turn order names an actor it does not hold (a damaged snapshot that
    /// still parses) is an error, not a panic.
    #[test]
    fn a_turn_order_naming_a_missing_actor_does_not_decode() {
        let header = Header::new(11, Ruleset::NETHACK, 0);
        let live = Live::new(&header, &mut (), &mut vec![]);
        for bad in [crate::ids::ActorId(999), live.state().order[0]] {
            let mut state = live.state().clone();
            state.order.push(bad);
            let error = State::decode(&state.encode()).unwrap_err();
            assert!(error.to_string().contains("turn order"), "{error}");
        }
    }
}
