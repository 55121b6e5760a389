//! Helpers shared by the integration tests: one per boundary.

#![allow(dead_code)] // each test file uses its own share of these

use std::path::{Path, PathBuf};

use sandglass_core::bot::Bot;
use sandglass_core::store::ReplayFile;
use sandglass_core::{Event, Header, Live, Ruleset, State};

/// The command that re-records the golden replays (replays/README.md quotes it).
pub const RECORD_COMMAND: &str = "cargo run --release -- record-goldens replays/";

pub fn replays_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../replays")
}

/// A bot game as a replay file: at most `commands` commands, or the whole game.
pub fn bot_file(ruleset: Ruleset, seed: u64, commands: Option<u64>) -> ReplayFile {
    let header = Header::new(seed, ruleset, 0);
    let mut events = vec![];
    let mut live = Live::new(&header, &mut (), &mut events);
    let mut bot = Bot::new(seed);
    for _ in 0..commands.unwrap_or(u64::MAX) {
        let Some(command) = bot.choose(live.state()) else {
            break;
        };
        live.command(command, &mut (), &mut events)
            .expect("the bot's commands are legal");
    }
    ReplayFile::record(header, events).expect("a bot game records")
}

/// The state after `events`, fed one by one from the genesis: the reference every faster
/// way to a position is compared with. The tape may stop mid-step.
pub fn play(header: &Header, events: &[Event]) -> State {
    let mut state = State::new(header, &mut ());
    for &event in events {
        state.feed(event, &mut ()).expect("the tape folds");
    }
    state
}

/// Writes `file` and reads it back: what a reader of the bytes gets, checksum and all.
pub fn through_bytes(file: &ReplayFile) -> ReplayFile {
    ReplayFile::from_bytes(&file.to_bytes()).expect("a written file reads back")
}
