//! Writes the seed corpora of the fuzz targets, from real data: the golden replays and
//! bot games under every ruleset. Deterministic: the same build writes the same files.
//!
//!     cargo run --release --example seed            (from fuzz/; writes fuzz/corpus/)
//!
//! * `sgr`: the golden replays of every kept version (`replays/v*/*.sgr`, but those over a
//!   megabyte), and short bot games written as replay files;
//! * `state`: the encoded state along bot games of every ruleset: before the first level,
//!   mid-step, between commands, on deeper levels, and after the camel died or quit;
//! * `snapshot`: those states between commands as a store keeps them (event index,
//!   ruleset byte, then the value: `sandglass_fuzz::snapshot_input`);
//! * `log`: the steps of bot games, each as the log stores it (its index, then the value);
//! * `record`: the metadata records of a store's games (their key, then the value): games
//!   alive, dead and quit, a fork and an import.

use std::fs;
use std::path::{Path, PathBuf};

use sandglass_fuzz::{snapshot_input, RULESETS};
use sandglass_sim::bot::Bot;
use sandglass_sim::{
    Command, Header, LiveTape, Need, Recording, Rules, RulesVersion, Ruleset, State,
};
use sandglass_store::{log, sgr, GameMeta, Store};

/// Goldens longer than this are left out: libFuzzer takes its longest seed as the longest
/// input it tries, and a four-megabyte one would slow every run.
const LONGEST_GOLDEN: u64 = 1 << 20;

fn main() {
    let fuzz = Path::new(env!("CARGO_MANIFEST_DIR"));
    let corpus = fuzz.join("corpus");
    seed_replays(&fuzz.join("../replays"), &corpus.join("sgr"));
    seed_states(&corpus.join("state"), &corpus.join("snapshot"));
    seed_log(&corpus.join("log"));
    seed_records(&corpus.join("record"));
    check(&corpus);
}

/// Writes `bytes` as `dir/name`, making `dir` if need be.
fn write(dir: &Path, name: &str, bytes: &[u8]) {
    fs::create_dir_all(dir).unwrap();
    fs::write(dir.join(name), bytes).unwrap();
}

fn seed_replays(goldens: &Path, out: &Path) {
    // One folder of goldens per kept rules version (`replays/v2`, ...).
    let mut files: Vec<PathBuf> = fs::read_dir(goldens)
        .unwrap()
        .map(|entry| entry.unwrap().path())
        .filter(|path| path.is_dir())
        .flat_map(|folder| fs::read_dir(folder).unwrap().map(|e| e.unwrap().path()))
        .filter(|path| path.extension().is_some_and(|e| e == "sgr"))
        .collect();
    files.sort();
    for path in files {
        if fs::metadata(&path).unwrap().len() <= LONGEST_GOLDEN {
            let folder = path.parent().and_then(Path::file_name).unwrap();
            let name = path.file_name().unwrap();
            let name = format!("{}-{}", folder.to_str().unwrap(), name.to_str().unwrap());
            write(out, &name, &fs::read(&path).unwrap());
        }
    }
    for (i, &ruleset) in RULESETS.iter().enumerate() {
        let tape = Bot::new(i as u64).record(Rules::newest(ruleset), i as u64, 30);
        let recording = Recording::record(tape.header, tape.events).unwrap();
        write(out, &format!("bot-{i}.sgr"), &sgr::to_bytes(&recording));
    }
}

/// States of bot games of every ruleset, fed one event at a time from the genesis: the
/// genesis, the state every thousand events or so (mid-step as often as not) and the last;
/// as snapshots, the state at the first command after each of those, and the last.
fn seed_states(states: &Path, snapshots: &Path) {
    // Ruleset, game seed, bot seed, commands: whole games too, which end in death.
    let games = [
        (RULESETS[0], 3, 30, u64::MAX),
        (RULESETS[1], 1, 1, 300),
        (RULESETS[2], 2, 2, 300),
        (RULESETS[3], 7, 7, 300),
    ];
    for (game, (ruleset, seed, bot, commands)) in games.into_iter().enumerate() {
        let rules = Rules::newest(ruleset);
        let tape = Bot::new(bot).record(rules, seed, commands);
        let mut state = State::new(rules, &mut ());
        let mut snapshot_due = false;
        for (i, &event) in tape.events.iter().enumerate() {
            if i % 997 == 0 {
                write(states, &name(game, &state), &state.encode());
                snapshot_due = true;
            }
            if snapshot_due && state.need() == Need::Command {
                keep_snapshot(snapshots, game, &state);
                snapshot_due = false;
            }
            state.feed(event, &mut ()).unwrap();
        }
        write(states, &name(game, &state), &state.encode());
        keep_snapshot(snapshots, game, &state);
    }
    // A game the camel quits.
    let mut game = LiveTape::new(Rules::newest(Ruleset::NETHACK), 4);
    Bot::new(4).play(&mut game, 40).unwrap();
    game.command(Command::Quit, &mut ()).unwrap();
    write(states, &name(9, game.state()), &game.state().encode());
    keep_snapshot(snapshots, 9, game.state());
}

fn name(game: usize, state: &State) -> String {
    format!("game-{game}-event-{}", state.events_folded())
}

fn keep_snapshot(snapshots: &Path, game: usize, state: &State) {
    let value = snapshot_value(state);
    let input = snapshot_input(state.events_folded(), state.ruleset(), &value);
    write(snapshots, &name(game, state), &input);
}

/// A snapshot's value as `sandglass_store::snapshot` lays it out: a checksum of the rest,
/// the state's hash, the length of its encoding, then the encoding deflated.
fn snapshot_value(state: &State) -> Vec<u8> {
    let encoded = state.encode();
    let mut body = state.hash().to_le_bytes().to_vec();
    body.extend((encoded.len() as u32).to_le_bytes());
    body.extend(miniz_oxide::deflate::compress_to_vec(&encoded, 1));
    let mut value = xxhash_rust::xxh3::xxh3_64(&body).to_le_bytes().to_vec();
    value.extend(body);
    value
}

/// The steps of a short bot game of each ruleset.
fn seed_log(out: &Path) {
    for (i, &ruleset) in RULESETS.iter().enumerate() {
        let tape = Bot::new(i as u64).record(Rules::newest(ruleset), i as u64, 12);
        for (index, step) in log::steps(&tape.events) {
            let mut input = index.to_le_bytes().to_vec();
            input.extend(log::encode(step));
            write(out, &format!("game-{i}-step-{index}"), &input);
        }
    }
}

/// The records of a store holding games in every state a record can describe.
fn seed_records(out: &Path) {
    let dir = tempfile::tempdir().unwrap();
    let store = Store::open(dir.path()).unwrap();
    for (i, &ruleset) in RULESETS.iter().enumerate() {
        let mut session = store
            .create(
                &format!("game {i}"),
                Header::new(i as u64, ruleset, 0),
                &mut (),
            )
            .unwrap();
        Bot::new(i as u64).play(&mut session, 20).unwrap();
        if i == 1 {
            session.command(Command::Quit, &mut ()).unwrap();
        }
    }
    let first = store.games().unwrap()[0].id;
    let at = store.meta(first).unwrap().events;
    store.fork(first, "a fork", at).unwrap();
    let whole = Bot::new(30).record(Rules::newest(Ruleset::NETHACK), 3, u64::MAX);
    let died = Recording::record(whole.header, whole.events).unwrap();
    store.import(&died, "died", &mut |_, _| ()).unwrap();
    for meta in store.games().unwrap() {
        write(out, &format!("game-{}", meta.id), &record_input(&meta));
    }
}

/// A record as the store keeps it: the key, its game's number (big-endian), then the
/// record in bincode's standard encoding.
fn record_input(meta: &GameMeta) -> Vec<u8> {
    let mut input = meta.id.0.to_be_bytes().to_vec();
    input.extend(bincode::serde::encode_to_vec(meta, bincode::config::standard()).unwrap());
    input
}

/// Every seed is accepted by the decoder its target starts with: a seed refused at the
/// door would fuzz only that door.
fn check(corpus: &Path) {
    for (target, accepts) in [
        ("sgr", (|b| sgr::from_bytes(b).is_ok()) as fn(&[u8]) -> bool),
        ("state", |b| State::decode(b, RulesVersion::NEWEST).is_ok()),
        ("snapshot", |b| {
            let (index, rest) = b.split_first_chunk::<8>().unwrap();
            let ruleset = RULESETS[usize::from(rest[0]) % RULESETS.len()];
            let index = u64::from_le_bytes(*index);
            sandglass_store::snapshot::decode(index, &rest[1..], Rules::newest(ruleset)).is_ok()
        }),
        ("log", |b| {
            let (index, value) = b.split_first_chunk::<8>().unwrap();
            log::decode(u64::from_le_bytes(*index), value).is_ok()
        }),
        ("record", |b| {
            sandglass_store::decode_record(&b[..8], &b[8..]).is_ok()
        }),
    ] {
        let mut count = 0;
        for entry in fs::read_dir(corpus.join(target)).unwrap() {
            let path = entry.unwrap().path();
            assert!(accepts(&fs::read(&path).unwrap()), "{}", path.display());
            count += 1;
        }
        println!("{target}: {count} seeds");
    }
}
