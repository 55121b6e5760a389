//! The entry points of the fuzz targets, one per kind of bytes Sandglass reads back from
//! disk: each reads the bytes as the game does and, when they are accepted, uses what they
//! hold as the game would (a replay is verified, a decoded state is played on). None may
//! panic, hang or allocate without bound, whatever the bytes.
//!
//! A fuzz target (`fuzz_targets/`) is one call to one of these; the regression test
//! `tests/tests/fuzz.rs` of the game's workspace feeds every input kept under
//! `tests/fixtures/fuzz/<target>/` through the same call, so this file depends on nothing
//! but the game's own crates.

use std::hint::black_box;

use sandglass_sim::bot::Bot;
use sandglass_sim::ids::{ActorId, Tick};
use sandglass_sim::score::Score;
use sandglass_sim::tape::{TimeModel, TurnOrder};
use sandglass_sim::{Live, Need, Rules, RulesVersion, Ruleset, State};

/// Commands played on from a decoded state: enough for every creature to act many times,
/// few enough for thousands of inputs a second.
pub const COMMANDS: u64 = 24;

/// A replay file, read from its bytes, then checked in one fold as `sandglass verify`
/// checks it: every draw regenerated from the seed, every checkpoint and the final hash.
/// Then the same bytes as a crafted file would hold them, their length and checksum made
/// to match: almost no mutation passes the checksum, and what lies behind it must hold
/// against a file made by hand as well.
pub fn sgr(bytes: &[u8]) {
    verify(bytes);
    verify(&framed(bytes));
}

fn verify(bytes: &[u8]) {
    if let Ok(recording) = sandglass_store::sgr::from_bytes(bytes) {
        let _ = recording.check(&mut (), u64::MAX, |_| ());
    }
}

/// `bytes` with the length field (after the magic and the version) and the trailing
/// checksum set as `docs/replay-format.md` lays them out.
fn framed(bytes: &[u8]) -> Vec<u8> {
    const LENGTH_AT: usize = 10;
    let mut framed = bytes.to_vec();
    if framed.len() < LENGTH_AT + 16 {
        return framed;
    }
    let len = framed.len();
    framed[LENGTH_AT..LENGTH_AT + 8].copy_from_slice(&(len as u64).to_le_bytes());
    let checksum = xxhash_rust::xxh3::xxh3_64(&framed[..len - 8]);
    framed[len - 8..].copy_from_slice(&checksum.to_le_bytes());
    framed
}

/// A snapshot as stored for the event index and the ruleset the input starts with
/// (see `snapshot_input`), played on when it decodes.
pub fn snapshot(bytes: &[u8]) {
    let Some((index, ruleset, value)) = split_snapshot(bytes) else {
        return;
    };
    if let Ok(state) = sandglass_store::snapshot::decode(index, value, Rules::newest(ruleset)) {
        play_on(state);
    }
}

/// A state's canonical encoding, played on when it decodes.
pub fn state(bytes: &[u8]) {
    if let Ok(state) = State::decode(bytes, RulesVersion::NEWEST) {
        play_on(state);
    }
}

/// A game's metadata record: an 8-byte key, then the value.
pub fn record(bytes: &[u8]) {
    let (key, value) = bytes.split_at(bytes.len().min(8));
    let _ = sandglass_store::decode_record(key, value);
}

/// One step of a game's log: the index of its first event (8 bytes, little-endian), then
/// the value.
pub fn log(bytes: &[u8]) {
    let Some((index, value)) = bytes.split_first_chunk::<8>() else {
        return;
    };
    let _ = sandglass_store::log::decode(u64::from_le_bytes(*index), value);
}

/// The rulesets the snapshot target's ruleset byte chooses from, by its value modulo 4.
pub const RULESETS: [Ruleset; 4] = [
    Ruleset::NETHACK,
    Ruleset::CLASSIC,
    Ruleset {
        time: TimeModel::Nethack,
        order: TurnOrder::WeightedEachTick,
    },
    Ruleset {
        time: Ruleset::CLASSIC.time,
        order: TurnOrder::WeightedEachTick,
    },
];

/// The snapshot target's input for a snapshot `value` stored at event `index` of a game of
/// `ruleset` (one of `RULESETS`): what the seeds are made of.
pub fn snapshot_input(index: u64, ruleset: Ruleset, value: &[u8]) -> Vec<u8> {
    let choice = RULESETS.iter().position(|&r| r == ruleset).unwrap_or(0);
    let mut input = index.to_le_bytes().to_vec();
    input.push(choice as u8);
    input.extend(value);
    input
}

fn split_snapshot(bytes: &[u8]) -> Option<(u64, Ruleset, &[u8])> {
    let (index, rest) = bytes.split_first_chunk::<8>()?;
    let (&choice, value) = rest.split_first()?;
    let ruleset = RULESETS[usize::from(choice) % RULESETS.len()];
    Some((u64::from_le_bytes(*index), ruleset, value))
}

/// Goes on from a decoded state as a game loaded from it would: whatever the state waits
/// for is answered (a state stopped mid-step gets its draws from the generator), then the
/// bot plays up to `COMMANDS` commands, each answered as live play answers it. What the
/// client and the store read of a state is read too, after each command.
pub fn play_on(state: State) {
    let seed = state.hash();
    let mut live = Live::resume(seed, state);
    let mut events = vec![];
    live.run_ticks(Tick(u64::MAX), &mut (), &mut events);
    let mut bot = Bot::new(seed);
    for _ in 0..COMMANDS {
        look_at(live.state());
        let Some(command) = bot.choose(live.state()) else {
            break;
        };
        events.clear();
        if live.command(command, &mut (), &mut events).is_err() {
            break;
        }
    }
    look_at(live.state());
}

/// What is read of a state without changing it: its hash and score, the time panel's
/// figures for every actor, the messages and names as text.
fn look_at(state: &State) {
    let world = state.world();
    black_box((
        state.hash(),
        Score::of(state),
        state.need() == Need::Command,
    ));
    for id in (0..world.actor_count() as u32).map(ActorId) {
        black_box((state.next_ready_tick(id), world.name_of(id)));
    }
    for message in world.messages().since(0) {
        black_box(message.msg.to_string());
    }
}
