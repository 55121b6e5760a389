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
//!
//! Decoding takes nothing on trust: a state that parses is also checked to be one a game
//! can be in (`Inconsistency`), so that folding on from a damaged snapshot is an error
//! here rather than a panic or a hang later.

use std::collections::{BTreeMap, VecDeque};

use bincode::config::{Configuration, Fixint, LittleEndian};
use serde::{Deserialize, Serialize};
use thiserror::Error;

use crate::action::Action;
use crate::bags::{Bags, Letters};
use crate::clocks::Clocks;
use crate::command::Command;
use crate::consistency::{Inconsistency, MOST_STATE_BYTES};
use crate::energy::{Clock, Energy, Stats};
use crate::gear::Gear;
use crate::geometry::{Direction, Pos};
use crate::ids::{ActorId, Tick};
use crate::item::{Item, Mycology};
use crate::level::grounds::Ground;
use crate::lore::{Boon, Growth, Lore, Offers};
use crate::map::Map;
use crate::message::MessageLog;
use crate::rules::{Rules, RulesVersion};
use crate::sight::CellSet;
use crate::species::{Behaviour, Species};
use crate::state::{Books, BooksParts, Need, Phase, State};
use crate::tape::Ruleset;
use crate::world::{Actor, ActorParts, Conditions, Outcome, World, WorldParts};

/// Why bytes are not the encoding of a state.
#[derive(Clone, Debug, PartialEq, Eq, Error)]
pub enum DecodeError {
    #[error("it is {0} bytes long, more than any state's encoding (at most {MOST_STATE_BYTES})")]
    TooLarge(usize),
    #[error("it does not parse as a state ({0})")]
    Parse(String),
    #[error("it goes on past the end of the state")]
    TrailingBytes,
    #[error("it is not a state a game can be in: {0}")]
    Inconsistent(#[from] Inconsistency),
}

impl State {
    /// The state's digest: xxh3-64 over its canonical encoding (bincode 2, fixed-width
    /// little-endian integers; every collection in the state is ordered).
    pub fn hash(&self) -> u64 {
        xxhash_rust::xxh3::xxh3_64(&self.encode())
    }

    /// The canonical encoding, used for hashing and snapshots: the parts every kept
    /// version has, then those later versions added, so that the encoding of an older
    /// version's state (and every hash it recorded) stays as it was.
    pub fn encode(&self) -> Vec<u8> {
        let mut bytes = bincode::serde::encode_to_vec(Encoded::of(self), canonical())
            .expect("a state always encodes");
        let world = self.world();
        let rules = world.rules();
        if rules.desert_clock() {
            append(
                &mut bytes,
                &Desert {
                    water: world.water(),
                },
            );
        }
        if rules.gear() {
            append(&mut bytes, &world.gear());
        }
        if rules.finds() {
            let [hardier, stronger, deeper, ..] = world.growth().counts();
            append(
                &mut bytes,
                &Finds {
                    barding: world.gear().has_barding(),
                    lore: *world.lore(),
                    growth: FirstThree {
                        hardier,
                        stronger,
                        deeper,
                    },
                },
            );
        }
        if rules.grounds() {
            append(&mut bytes, &world.ground());
        }
        if rules.forking_growth() {
            let [_, _, _, rest @ ..] = world.growth().counts();
            append(
                &mut bytes,
                &Forks {
                    rest,
                    offers: world.growth().offers(),
                },
            );
        }
        if rules.letters_kept() {
            append(
                &mut bytes,
                &world.bags().letters().copied().unwrap_or_default(),
            );
        }
        if rules.thieves() {
            append(&mut bytes, world.loot());
        }
        bytes
    }

    /// The state `bytes` encode, all of them, of a game played under rules `version`
    /// (the game's header says which: the encoding names the ruleset but not the version,
    /// for it is what the hashes of every kept version digest). Bytes that parse but
    /// describe a state no game can be in (a damaged or crafted snapshot) are refused,
    /// naming the rule they break (`Inconsistency`): whatever `decode` returns can be
    /// folded on.
    pub fn decode(bytes: &[u8], version: RulesVersion) -> Result<State, DecodeError> {
        if bytes.len() > MOST_STATE_BYTES {
            return Err(DecodeError::TooLarge(bytes.len()));
        }
        let (decoded, later) = parse(bytes, version)?;
        Ok(decoded.into_state(version, later)?)
    }
}

/// The parts `bytes` encode, all of them, as a state of rules `version` has them.
fn parse(bytes: &[u8], version: RulesVersion) -> Result<(Decoded<'_>, Later), DecodeError> {
    let limited = canonical().with_limit::<MOST_STATE_BYTES>();
    let (decoded, mut read): (Decoded, usize) =
        bincode::serde::borrow_decode_from_slice(bytes, limited).map_err(unparsed)?;
    let rules = Rules::new(version, decoded.ruleset);
    let mut later = Later::default();
    if rules.desert_clock() {
        later.desert = part(bytes, &mut read)?;
    }
    if rules.gear() {
        later.gear = part(bytes, &mut read)?;
    }
    if rules.finds() {
        later.finds = part(bytes, &mut read)?;
    }
    if rules.grounds() {
        later.ground = part(bytes, &mut read)?;
    }
    if rules.forking_growth() {
        later.forks = part(bytes, &mut read)?;
    }
    if rules.letters_kept() {
        later.letters = Some(part(bytes, &mut read)?);
    }
    if rules.thieves() {
        later.loot = part(bytes, &mut read)?;
    }
    if read != bytes.len() {
        return Err(DecodeError::TrailingBytes);
    }
    Ok((decoded, later))
}

/// The part of a state encoded from `read` on in `bytes`; `read` moves past it.
fn part<T: serde::de::DeserializeOwned>(bytes: &[u8], read: &mut usize) -> Result<T, DecodeError> {
    let limited = canonical().with_limit::<MOST_STATE_BYTES>();
    let (parsed, more) =
        bincode::serde::decode_from_slice(&bytes[*read..], limited).map_err(unparsed)?;
    *read += more;
    Ok(parsed)
}

fn unparsed(e: bincode::error::DecodeError) -> DecodeError {
    DecodeError::Parse(e.to_string())
}

/// Appends a later part of the state to its encoding.
fn append(bytes: &mut Vec<u8>, part: &impl Serialize) {
    bincode::serde::encode_into_std_write(part, bytes, canonical())
        .expect("a state always encodes");
}

pub(crate) fn canonical() -> Configuration<LittleEndian, Fixint> {
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

/// A state as parsed, before it is checked. Scenario names are read in place from the
/// input: a damaged length cannot make the parser allocate before it finds the bytes
/// missing.
#[derive(Deserialize)]
struct Decoded<'a> {
    ruleset: Ruleset,
    tick: Tick,
    phase: EncodedPhase,
    need: Need,
    actors: Vec<Record>,
    #[serde(borrow)]
    names: BTreeMap<ActorId, &'a str>,
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

/// What the desert's clock added to the state (rules version 6 on), encoded after the rest.
#[derive(Clone, Copy, Default, Serialize, Deserialize)]
struct Desert {
    water: u16,
}

/// What the finds added to the state (rules version 9 on), encoded after the gear: the
/// barding worn (the gear of versions 7 and 8 encodes without it), the lore and the
/// camel's growth.
#[derive(Clone, Copy, Default, Serialize, Deserialize)]
struct Finds {
    barding: bool,
    lore: Lore,
    growth: FirstThree,
}

/// How often the camel grew each way the roses of versions 9 to 11 offered.
#[derive(Clone, Copy, Default, Serialize, Deserialize)]
struct FirstThree {
    hardier: u8,
    stronger: u8,
    deeper: u8,
}

/// What forking growth added to the state (rules version 12 on), encoded after the
/// ground: how often the camel took each later boon, and what the roses offer.
#[derive(Clone, Copy, Default, Serialize, Deserialize)]
struct Forks {
    rest: [u8; Boon::ALL.len() - 3],
    offers: Offers,
}

/// What later rules versions added to the state, each encoded after the rest in the order
/// the versions came: the desert's water (6), the camel's gear (7), the finds (9), the
/// level's ground (10), then the growth's later boons and offers and the bags' kept
/// letters (12), then what thieves carry (16).
#[derive(Clone, Default)]
struct Later {
    desert: Desert,
    gear: Gear,
    finds: Finds,
    ground: Ground,
    forks: Forks,
    letters: Option<Letters>,
    loot: BTreeMap<ActorId, Item>,
}

impl Later {
    /// The camel's growth: the first three boons' counts, the later ones', the offers.
    fn growth(&self) -> Growth {
        let FirstThree {
            hardier,
            stronger,
            deeper,
        } = self.finds.growth;
        let mut taken = [0; Boon::ALL.len()];
        taken[..3].copy_from_slice(&[hardier, stronger, deeper]);
        taken[3..].copy_from_slice(&self.forks.rest);
        Growth::new(taken, self.forks.offers)
    }
}

impl Decoded<'_> {
    /// The world and the books, each checked by its own module as it is built: the world
    /// first, for the books are checked against it.
    fn into_state(self, version: RulesVersion, later: Later) -> Result<State, Inconsistency> {
        let (world, books) = self.into_parts(version, later);
        from_parts(world, books)
    }

    fn into_parts(self, version: RulesVersion, later: Later) -> (WorldParts, BooksParts) {
        let (phase, outcome) = self.phase.split();
        let world = WorldParts {
            rules: Rules::new(version, self.ruleset),
            tick: self.tick,
            actors: self.actors.into_iter().map(Record::into_parts).collect(),
            names: self
                .names
                .into_iter()
                .map(|(id, name)| (id, name.to_owned()))
                .collect(),
            order: self.order,
            order_stale: self.order_stale,
            unrolled: self.unrolled,
            map: self.map,
            depth: self.depth,
            floor: self.floor,
            bags: match later.letters {
                Some(letters) => self.bags.with_letters(letters),
                None => self.bags,
            },
            mycology: self.mycology,
            player: self.player,
            messages: self.messages,
            outcome,
            explored: self.explored,
            kills: self.kills,
            water: later.desert.water,
            gear: later.gear.with_barding(later.finds.barding),
            lore: later.finds.lore,
            growth: later.growth(),
            ground: later.ground,
            loot: later.loot,
        };
        let books = BooksParts {
            phase,
            need: self.need,
            order_keys: self.order_keys,
            draws: self.draws,
            pending: self.pending,
            events: self.events,
            draws_folded: self.draws_folded,
        };
        (world, books)
    }
}

/// The state the parts make, the world checked first: the books are checked against it.
fn from_parts(world: WorldParts, books: BooksParts) -> Result<State, Inconsistency> {
    let world = World::from_parts(world)?;
    let books = Books::from_parts(books, &world)?;
    Ok(State::from_parts(world, books))
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

    /// The actor as the world takes it back; its clock is worked out there, once its
    /// stats are known to be ones the rules can count with.
    fn into_parts(self) -> ActorParts {
        ActorParts {
            species: self.species,
            behaviour: self.behaviour,
            pos: self.pos,
            stats: self.stats,
            energy: self.energy,
            turns: self.turns,
            dashing: self.dashing,
            hp: self.hp,
            max_hp: self.max_hp,
            initiative: self.initiative,
            present: self.present,
            knocked_out: self.knocked_out,
            charging: self.charging,
            conditions: self.conditions,
            waiting: self.waiting,
            last_seen: self.last_seen,
        }
    }
}

/// The test helper for the rules a decoded state must keep, which the tests of each rule
/// share: sound states to damage, and decoding one with a part damaged.
#[cfg(test)]
pub(crate) mod testing {
    use super::*;
    use crate::bot::Bot;
    use crate::LiveTape;

    /// The state of a bot game of `ruleset` after `commands` commands (fewer if it ends),
    /// the camel to act.
    pub(crate) fn played(ruleset: Ruleset, commands: u64) -> State {
        let mut game = LiveTape::new(Rules::newest(ruleset), 11);
        Bot::new(3).play(&mut game, commands).unwrap();
        game.state().clone()
    }

    /// A nethack game some way in, on its first level, the camel to act: the camel
    /// (actor 0) and creatures about it.
    pub(crate) fn game() -> State {
        played(Ruleset::NETHACK, 60)
    }

    /// `state` decoded with its parts damaged by `damage`: the state, or the rule it breaks.
    pub(crate) fn damaged(
        state: &State,
        damage: impl FnOnce(&mut WorldParts, &mut BooksParts),
    ) -> Result<State, Inconsistency> {
        let bytes = state.encode();
        let version = state.world().rules().version();
        let (decoded, desert) = parse(&bytes, version).unwrap();
        let (mut world, mut books) = decoded.into_parts(version, desert);
        damage(&mut world, &mut books);
        from_parts(world, books)
    }

    /// The rule `state` breaks once `damage` is done to it (it kept them all before).
    pub(crate) fn refusal(
        state: &State,
        damage: impl FnOnce(&mut WorldParts, &mut BooksParts),
    ) -> Inconsistency {
        assert_eq!(
            damaged(state, |_, _| ()).as_ref(),
            Ok(state),
            "a sound state"
        );
        damaged(state, damage).expect_err("the damage is caught")
    }
}

#[cfg(test)]
mod tests {
    use super::{DecodeError, Inconsistency, MOST_STATE_BYTES};
    use crate::bot::Bot;
    use crate::rules::{Rules, RulesVersion};
    use crate::scenario::{ActorSpec, Scenario};
    use crate::tape::{Ruleset, TimeModel, TurnOrder};
    use crate::{Live, LiveTape, State};

    /// Every state a game passes through decodes to itself, under every ruleset and
    /// order: the genesis, mid-step, mid-tick, between commands, on every level, and
    /// after the camel died. The rules a decoded state is held to are ones the fold keeps.
    #[test]
    fn every_state_of_a_game_decodes_to_itself() {
        let weighted = |time| Ruleset {
            time,
            order: TurnOrder::WeightedEachTick,
        };
        // Game seed, bot seed, commands: the first game is a whole one, played to its end.
        let games = [
            (Ruleset::NETHACK, 6, 6, u64::MAX),
            (Ruleset::CLASSIC, 1, 1, 200),
            (weighted(TimeModel::Nethack), 2, 2, 200),
            (weighted(Ruleset::CLASSIC.time), 7, 7, 200),
        ];
        for (ruleset, seed, bot, commands) in games {
            let rules = Rules::newest(ruleset);
            let tape = Bot::new(bot).record(rules, seed, commands);
            let mut state = State::new(rules, &mut ());
            for (i, event) in tape.events.into_iter().enumerate() {
                assert!(decodes_to_itself(&state), "{ruleset:?}, event {i}");
                state.feed(event, &mut ()).unwrap();
            }
            assert!(decodes_to_itself(&state), "{ruleset:?}, the end");
            if commands == u64::MAX {
                assert!(state.outcome().is_some());
            }
        }
    }

    /// Whether `state` decodes to itself; once the camel has died, to a state that
    /// encodes the same (what a dead camel last saw is not worked out again).
    fn decodes_to_itself(state: &State) -> bool {
        let bytes = state.encode();
        match State::decode(&bytes, RulesVersion::NEWEST) {
            Ok(decoded) if state.outcome().is_some() => decoded.encode() == bytes,
            Ok(decoded) => decoded == *state,
            Err(_) => false,
        }
    }

    /// Decoding gives back the very state, clocks included: those of the creatures that
    /// died along the way are stopped again.
    #[test]
    fn a_decoded_state_is_the_state() {
        for ruleset in [Ruleset::NETHACK, Ruleset::CLASSIC] {
            let mut game = LiveTape::new(Rules::newest(ruleset), 11);
            let mut checked = 0;
            Bot::new(3)
                .play_until(&mut game, |state| {
                    let world = state.world();
                    if world.actor_count() > world.actors().count() {
                        assert_eq!(
                            &State::decode(&state.encode(), RulesVersion::NEWEST).unwrap(),
                            state
                        );
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
        let rules = Rules::newest(Ruleset::NETHACK);
        let live = Live::new(rules, 11, &mut (), &mut vec![]);
        let bytes = live.state().encode();
        let mut longer = bytes.clone();
        longer.push(0);
        assert_eq!(
            State::decode(&longer, RulesVersion::NEWEST),
            Err(DecodeError::TrailingBytes)
        );
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
            let refused = Err(DecodeError::Inconsistent(Inconsistency::TurnOrder));
            assert_eq!(State::decode(&damaged, RulesVersion::NEWEST), refused);
        }
    }

    /// Input longer than any state is refused before it is parsed.
    #[test]
    fn input_longer_than_any_state_is_refused_unread() {
        let bytes = vec![0; MOST_STATE_BYTES + 1];
        assert_eq!(
            State::decode(&bytes, RulesVersion::NEWEST),
            Err(DecodeError::TooLarge(MOST_STATE_BYTES + 1))
        );
    }

    /// A name whose length says a terabyte follows is refused without the terabyte being
    /// allocated: names are read in place, once their bytes are known to be there.
    #[test]
    fn a_name_longer_than_its_input_allocates_nothing() {
        let scenario = Scenario {
            ruleset: "nethack".into(),
            gain: None,
            threshold: None,
            order: None,
            seed: 0,
            map: "...".into(),
            actors: vec![ActorSpec {
                name: "Zanzibar".into(),
                at: [1, 0],
                species: None,
                behaviour: None,
                speed: None,
                max_energy: None,
                move_cost: None,
            }],
        };
        let bytes = scenario.build().unwrap().encode();
        // No camel in a scenario: parsed whole, refused for that.
        let refused = Err(DecodeError::Inconsistent(Inconsistency::Player));
        assert_eq!(State::decode(&bytes, RulesVersion::NEWEST), refused);
        let at = bytes.windows(8).position(|w| w == b"Zanzibar").unwrap() - 8;
        assert_eq!(bytes[at..at + 8], 8u64.to_le_bytes());
        let mut damaged = bytes.clone();
        damaged[at..at + 8].copy_from_slice(&(1u64 << 40).to_le_bytes());
        assert!(matches!(
            State::decode(&damaged, RulesVersion::NEWEST),
            Err(DecodeError::Parse(_))
        ));
    }
}
