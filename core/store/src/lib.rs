//! Saved games: the sled event log, its snapshots, and the portable replay file.
//!
//! One sled database per data directory holds a fixed set of trees, whatever the number of
//! games (see `layout` for the keys):
//!
//! * `games`: one [`GameMeta`] record per game, keyed by its id (big-endian `u64`);
//! * `names`: each game's name, to its id, so that a name is found without reading
//!   every record;
//! * `steps`: every game's log, one value per step (a command and the draws it caused),
//!   keyed by the game and the index of the step's first event, so that a game's log is
//!   one range of keys in tape order (see [`log`]). A fork's log begins in the steps of
//!   the games it was forked from (see `history`);
//! * `snapshots`: the state at some command boundaries, keyed likewise (see [`snapshot`]);
//! * `verdicts`: what each game's log was proved to fold to, its score with it, keyed by
//!   its id: a cache for the high-score table, trusted only while it still describes the
//!   game (see `verdict`).
//!
//! Every accepted command and the draws it caused go to disk as one value (the step), then
//! the snapshot when one is due and the updated metadata record, and are flushed before the
//! next command is taken: a crash keeps either the whole step or none of it, and never
//! loses a step the player saw (`Session::save_step`). The simulation knows nothing of this crate; it reads
//! the clock only for the metadata's "created" and "last played" (`now`).

mod branch;
mod compact;
mod db;
mod deal;
mod durable;
mod error;
#[cfg(test)]
mod fixtures;
mod history;
mod layout;
mod load;
pub mod log;
mod migrate;
mod replace;
mod reserve;
mod seal;
mod session;
pub mod sgr;
pub mod snapshot;
mod stream;
mod transfer;
mod verdict;

use std::fmt;

use sandglass_sim::{Header, Outcome, Rules, State};
use serde::{Deserialize, Serialize};

pub use branch::Branch;
pub use db::{Store, LOCK_WAIT};
pub use error::{PlayError, ReplayFileError, StoreError};
pub use history::Span;
pub use layout::{decode_record, LAYOUT_VERSION};
pub use load::Loaded;
pub use reserve::RESERVE_FILE;
pub use seal::SEAL_FILE;
pub use session::Session;
pub use snapshot::{SnapshotError, SnapshotWarning, SNAPSHOT_EVERY};
pub use stream::Stream;
pub use verdict::{ProofError, Verdict};

/// A game's number in its data directory. Never reused, even after a delete.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
pub struct GameId(pub u64);

impl GameId {
    fn key(self) -> [u8; 8] {
        self.0.to_be_bytes()
    }

    /// The game a key of `games` or `verdicts` names, if it names one.
    fn from_key(key: &[u8]) -> Option<GameId> {
        key.try_into().ok().map(u64::from_be_bytes).map(GameId)
    }
}

impl fmt::Display for GameId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.0)
    }
}

/// Where a game stands.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum Status {
    Alive,
    Dead,
    Won,
    /// The player gave up (the `quit` command): over, but neither died nor won.
    Quit,
}

impl Status {
    pub fn of(state: &State) -> Status {
        match state.outcome() {
            None => Status::Alive,
            Some(Outcome::Died) => Status::Dead,
            Some(Outcome::Won) => Status::Won,
            Some(Outcome::Quit) => Status::Quit,
        }
    }

    pub fn name(self) -> &'static str {
        match self {
            Status::Alive => "alive",
            Status::Dead => "dead",
            Status::Won => "won",
            Status::Quit => "quit",
        }
    }
}

/// What a job that goes over a whole game is doing, as it tells its progress callback,
/// with the count of events it has got through in that stage. Each stage goes over the
/// events once, so a caller that knows how many there are can draw a bar.
///
/// Opening a data directory of an older layout migrates it (`Store::open_telling`), which
/// goes over games rather than events: `Migrating` carries how many there are, and the
/// count told with it is the games moved so far. Opening one whose deletes freed much of
/// it rewrites it compactly (`Compacting`), over bytes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Stage {
    /// Reading the game's log out of the database.
    Reading,
    /// Folding the events: every draw regenerated from the seed, every hash compared.
    Checking,
    /// Writing the events into a new game's log.
    Writing,
    /// Moving the games of a data directory in an older layout to this build's, each
    /// checked (`games` in all).
    Migrating { games: u64 },
    /// Rewriting the database compactly once deletes have freed much of it (`bytes` of
    /// keys and values in all, the count told with it those copied so far).
    Compacting { bytes: u64 },
}

impl Stage {
    pub fn name(self) -> &'static str {
        match self {
            Stage::Reading => "reading",
            Stage::Checking => "checking",
            Stage::Writing => "writing",
            Stage::Migrating { .. } => "moving",
            Stage::Compacting { .. } => "compacting",
        }
    }
}

/// The metadata record of one game: enough to list it without folding its tape.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct GameMeta {
    pub id: GameId,
    pub name: String,
    /// The tape's header: seed, ruleset, versions and when the tape was first recorded.
    pub header: Header,
    /// When this record was made (a fork or an import is made anew), seconds since the epoch.
    pub created: u64,
    pub last_played: u64,
    pub status: Status,
    pub depth: u8,
    /// Game ticks so far.
    pub turns: u64,
    pub commands: u64,
    pub events: u64,
    /// `State::hash` after the first `hashed` events.
    pub last_hash: u64,
    /// Where `last_hash` was taken: after the last event, except in a game being played.
    /// Hashing the whole state costs as much as the rest of a step, so play takes the hash
    /// only with each snapshot and when it stops (and an open after a crash in play, when
    /// the store is opened next).
    pub hashed: u64,
    /// The stretches of its log that a fork shares with the games it came from, oldest
    /// first; the rest lies under its own id.
    pub shared: Vec<Span>,
}

impl GameMeta {
    pub(crate) fn new(
        id: GameId,
        name: &str,
        header: Header,
        state: &State,
        hash: u64,
    ) -> GameMeta {
        let now = now();
        let mut meta = GameMeta {
            id,
            name: name.to_owned(),
            header,
            created: now,
            last_played: now,
            status: Status::Alive,
            depth: 0,
            turns: 0,
            commands: 0,
            events: 0,
            last_hash: 0,
            hashed: 0,
            shared: vec![],
        };
        meta.record(state, Some(hash));
        meta
    }

    /// Brings the record up to `state`, and its hash too if the caller has computed it.
    fn record(&mut self, state: &State, hash: Option<u64>) {
        self.last_played = now();
        self.status = Status::of(state);
        self.depth = state.world().depth();
        self.turns = state.tick().0;
        self.commands = state.events_folded() - state.draws_folded();
        self.events = state.events_folded();
        if let Some(hash) = hash {
            self.last_hash = hash;
            self.hashed = self.events;
        }
    }

    /// The rules the game is played under, or why this build cannot play it (a rules
    /// version it no longer keeps, or one newer than itself).
    pub fn rules(&self) -> Result<Rules, StoreError> {
        Rules::of(&self.header).map_err(|cause| StoreError::Version {
            name: self.name.clone(),
            cause,
        })
    }

    /// The hash after the last event, if the record holds it (see `hashed`).
    pub fn final_hash(&self) -> Option<u64> {
        (self.hashed == self.events).then_some(self.last_hash)
    }
}

/// The current time as the file system stamps files, to compare with their stamps
/// (`durable`). With `now`, the one place the current time is read.
pub(crate) fn file_clock() -> std::time::SystemTime {
    std::time::SystemTime::now()
}

/// Seconds since the Unix epoch, now; a clock set before 1970 reads as 0. With
/// `file_clock`, the one place the current time is read.
pub fn now() -> u64 {
    u64::try_from(jiff::Timestamp::now().as_second()).unwrap_or(0)
}

/// A bot game's recording, up to `commands` commands (fewer if the game ends): for the
/// tests of this crate.
/// The disk the files under `dir` take, as the file system counts it (blocks held, not
/// lengths: a file with holes holds less than its length).
#[cfg(test)]
fn disk_bytes(dir: &std::path::Path) -> u64 {
    use std::os::unix::fs::MetadataExt;
    std::fs::read_dir(dir)
        .unwrap()
        .map(|entry| {
            let entry = entry.unwrap();
            match entry.file_type().unwrap().is_dir() {
                true => disk_bytes(&entry.path()),
                false => entry.metadata().unwrap().blocks() * 512,
            }
        })
        .sum()
}

#[cfg(test)]
fn bot_recording(seed: u64, commands: u64) -> sandglass_sim::Recording {
    let rules = Rules::newest(sandglass_sim::Ruleset::NETHACK);
    let tape = sandglass_sim::bot::Bot::new(seed).record(rules, seed, commands);
    sandglass_sim::Recording::record(tape.header, tape.events).unwrap()
}
