//! Snapshots: the state at a command boundary, stored so that loading a long game folds
//! only the events after the newest one. They are a cache (DESIGN.md section 2): a game
//! loaded from any snapshot and one folded from the genesis reach the same hash, and a
//! damaged snapshot is skipped, never trusted.
//!
//! A snapshot value is the state's hash (`u64`, little-endian) followed by
//! `State::encode()`; its key is the event index it was taken at (big-endian `u64`).

use std::fmt;

use sandglass_sim::{DecodeError, State};
use thiserror::Error;

/// A snapshot is taken at the first command boundary at or after every multiple of this
/// many events.
///
/// Chosen from `cargo bench -p sandglass-store --bench store` (BENCHMARKS.md, "Storage"): a
/// snapshot is about 28 KB and encodes in about 30 µs; loading decodes it in about 65 µs
/// and then reads and folds the events after it at about 0.4 µs each. At 10,000 the
/// worst-case load of a million-event game is about 4 ms, far inside the "few tens of
/// milliseconds" budget; snapshots add under 3 bytes per event to a log of about 94; and
/// only one command in about 180 pays for writing one, which keeps them out of the 99th
/// percentile of the save latency. At 1,000 they would be a third of the log and one step
/// in 18; at 100,000 the worst-case load would reach about 40 ms.
pub const SNAPSHOT_EVERY: u64 = 10_000;

/// Whether a batch that took the tape from `before` to `after` events (both command
/// boundaries) crossed a multiple of `SNAPSHOT_EVERY`.
pub(crate) fn due(before: u64, after: u64) -> bool {
    after / SNAPSHOT_EVERY > before / SNAPSHOT_EVERY
}

pub(crate) fn encode(state: &State, hash: u64) -> Vec<u8> {
    let mut bytes = hash.to_le_bytes().to_vec();
    bytes.extend(state.encode());
    bytes
}

/// The hash a snapshot value starts with (0 if it is too short to hold one).
pub(crate) fn stored_hash(bytes: &[u8]) -> u64 {
    bytes
        .first_chunk::<8>()
        .map_or(0, |hash| u64::from_le_bytes(*hash))
}

/// Why a stored snapshot cannot be used.
#[derive(Clone, Debug, PartialEq, Eq, Error)]
pub enum SnapshotError {
    #[error("it is too short")]
    TooShort,
    #[error("it does not decode: {0}")]
    Decode(#[from] DecodeError),
    #[error("its hash disagrees with its contents")]
    Hash,
    #[error("it holds the state after event {0}")]
    Elsewhere(u64),
    #[error("its key is not an event index")]
    Key,
}

/// The state stored at event `index`, or why it cannot be used.
pub(crate) fn decode(index: u64, bytes: &[u8]) -> Result<State, SnapshotError> {
    let (hash, body) = bytes
        .split_first_chunk::<8>()
        .ok_or(SnapshotError::TooShort)?;
    let state = State::decode(body)?;
    if state.hash() != u64::from_le_bytes(*hash) {
        return Err(SnapshotError::Hash);
    }
    if state.events_folded() != index {
        return Err(SnapshotError::Elsewhere(state.events_folded()));
    }
    Ok(state)
}

/// A snapshot that was skipped while loading; the game was folded from an older point.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SnapshotWarning {
    pub game: String,
    pub index: u64,
    pub reason: SnapshotError,
    /// Written again from the game's events, once they were folded and checked.
    pub rebuilt: bool,
}

impl fmt::Display for SnapshotWarning {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "the snapshot of game `{}` at event {} was skipped ({}); the game was folded from an older point instead",
            self.game, self.index, self.reason
        )?;
        if self.rebuilt {
            write!(f, ", and the snapshot rebuilt from its events")?;
        }
        Ok(())
    }
}
