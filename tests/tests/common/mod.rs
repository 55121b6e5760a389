//! Helpers shared by the integration tests: one per boundary.

#![allow(dead_code)] // each test file uses its own share of these

use std::path::{Path, PathBuf};

use sandglass_sim::bot::Bot;
use sandglass_sim::Recording;
use sandglass_sim::{Event, Header, Rules, Ruleset, State};
use sandglass_store::sgr;

/// The command that re-records the golden replays (replays/README.md quotes it).
pub const RECORD_COMMAND: &str = "cargo xtask record-goldens replays/";

pub fn replays_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../replays")
}

/// A bot game as a replay file: at most `commands` commands, or the whole game.
pub fn bot_file(ruleset: Ruleset, seed: u64, commands: Option<u64>) -> Recording {
    let rules = Rules::newest(ruleset);
    let tape = Bot::new(seed).record(rules, seed, commands.unwrap_or(u64::MAX));
    Recording::record(tape.header, tape.events).expect("a bot game records")
}

/// The state after `events`, fed one by one from the genesis: the reference every faster
/// way to a position is compared with. The tape may stop mid-step.
pub fn play(header: &Header, events: &[Event]) -> State {
    let rules = Rules::of(header).expect("a header this build plays");
    let mut state = State::new(rules, &mut ());
    for &event in events {
        state.feed(event, &mut ()).expect("the tape folds");
    }
    state
}

/// Writes `file` and reads it back: what a reader of the bytes gets, checksum and all.
pub fn through_bytes(file: &Recording) -> Recording {
    sgr::from_bytes(&sgr::to_bytes(file)).expect("a written file reads back")
}
