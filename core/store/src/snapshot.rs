//! Snapshots: the state at a command boundary, stored so that loading a long game folds
//! only the events after the newest one. They are a cache (docs/design.md,
//! "Determinism"): a game loaded from any snapshot and one folded from the genesis reach the same hash, and a
//! damaged snapshot is skipped, never trusted.
//!
//! A snapshot value is, little-endian:
//!
//! | field | size | contents |
//! | --- | --- | --- |
//! | checksum | 8 | xxh3-64 of every byte after it |
//! | hash | 8 | `State::hash()` of the state |
//! | length | 4 | the length of `State::encode()` |
//! | state | varies | `State::encode()`, deflated (raw DEFLATE, RFC 1951) |
//!
//! Its key is the event index it was taken at (big-endian `u64`). A state deflates to
//! about a sixth of its size (its map is mostly sand and rock), which keeps snapshots a
//! small share of a long game's bytes. Reading checks, in order: the checksum, before
//! anything is decoded; the length, against `MOST_STATE_BYTES`; the inflated length; the
//! state's own decoding and consistency; its hash; its event index; its ruleset, against
//! the game's.

use std::fmt;

use sandglass_sim::{DecodeError, Rules, State};
use thiserror::Error;

/// The most bytes a state's encoding may take, far above any game's (a crowded level's
/// state is under a megabyte): a damaged length may not make a reader allocate more.
pub const MOST_STATE_BYTES: usize = 16 << 20;

/// Bytes before the deflated state.
const PREAMBLE: usize = 8 + 8 + 4;

/// Fast deflate: snapshots are written while the player waits, and level 1 is within a
/// few per cent of the best ratio on these states.
const DEFLATE_LEVEL: u8 = 1;

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

/// The snapshot of `state`, whose hash is `hash`.
pub(crate) fn encode(state: &State, hash: u64) -> Vec<u8> {
    let encoded = state.encode();
    let length = u32::try_from(encoded.len()).expect("a state encodes in under 4 GB");
    let mut body = hash.to_le_bytes().to_vec();
    body.extend(length.to_le_bytes());
    body.extend(miniz_oxide::deflate::compress_to_vec(
        &encoded,
        DEFLATE_LEVEL,
    ));
    let mut value = xxhash_rust::xxh3::xxh3_64(&body).to_le_bytes().to_vec();
    value.extend(body);
    value
}

/// The hash a snapshot value holds (0 if it is too short to hold one).
pub(crate) fn stored_hash(bytes: &[u8]) -> u64 {
    bytes
        .get(8..16)
        .and_then(|hash| hash.try_into().ok())
        .map_or(0, u64::from_le_bytes)
}

/// Why a stored snapshot cannot be used.
#[derive(Clone, Debug, PartialEq, Eq, Error)]
pub enum SnapshotError {
    #[error("it is too short")]
    TooShort,
    #[error("its checksum does not match")]
    Checksum,
    #[error("it claims a state of {0} bytes, more than any game's")]
    TooLarge(u64),
    #[error("its state does not inflate to the length it claims")]
    Inflate,
    #[error("it does not decode: {0}")]
    Decode(#[from] DecodeError),
    #[error("it is a state of the {found} rules, in a game of the {expected} rules")]
    Ruleset {
        found: &'static str,
        expected: &'static str,
    },
    #[error("its hash disagrees with its contents")]
    Hash,
    #[error("it holds the state after event {0}")]
    Elsewhere(u64),
    #[error("its key is not an event index")]
    Key,
    #[error("the game's log does not lead to it")]
    Disagrees,
}

/// The state stored at event `index` of a game played under `rules`, or why it cannot
/// be used.
pub fn decode(index: u64, bytes: &[u8], rules: Rules) -> Result<State, SnapshotError> {
    if bytes.len() < PREAMBLE {
        return Err(SnapshotError::TooShort);
    }
    let (sum, body) = bytes.split_at(8);
    if xxhash_rust::xxh3::xxh3_64(body) != u64::from_le_bytes(sum.try_into().unwrap()) {
        return Err(SnapshotError::Checksum);
    }
    let hash = u64::from_le_bytes(body[..8].try_into().unwrap());
    let length = u32::from_le_bytes(body[8..12].try_into().unwrap()) as usize;
    if length > MOST_STATE_BYTES {
        return Err(SnapshotError::TooLarge(length as u64));
    }
    let encoded = miniz_oxide::inflate::decompress_to_vec_with_limit(&body[12..], length)
        .map_err(|_| SnapshotError::Inflate)?;
    if encoded.len() != length {
        return Err(SnapshotError::Inflate);
    }
    let state = State::decode(&encoded, rules.version())?;
    if state.hash() != hash {
        return Err(SnapshotError::Hash);
    }
    if state.events_folded() != index {
        return Err(SnapshotError::Elsewhere(state.events_folded()));
    }
    let found = state.world().ruleset();
    if found != rules.ruleset() {
        return Err(SnapshotError::Ruleset {
            found: found.name(),
            expected: rules.ruleset().name(),
        });
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

#[cfg(test)]
mod tests {
    use super::*;
    use sandglass_sim::{Live, Ruleset};

    fn first_level(ruleset: Ruleset) -> State {
        Live::new(Rules::newest(ruleset), 3, &mut (), &mut vec![])
            .state()
            .clone()
    }

    #[test]
    fn a_snapshot_reads_back_and_is_a_fraction_of_its_state() {
        let state = first_level(Ruleset::NETHACK);
        let value = encode(&state, state.hash());
        let index = state.events_folded();
        assert_eq!(
            decode(index, &value, Rules::newest(Ruleset::NETHACK)).unwrap(),
            state
        );
        assert_eq!(stored_hash(&value), state.hash());
        assert!(
            value.len() * 3 < state.encode().len(),
            "{} bytes",
            value.len()
        );
    }

    #[test]
    fn a_snapshot_of_other_rules_or_another_point_is_refused() {
        let state = first_level(Ruleset::CLASSIC);
        let value = encode(&state, state.hash());
        let index = state.events_folded();
        assert_eq!(
            decode(index, &value, Rules::newest(Ruleset::NETHACK)),
            Err(SnapshotError::Ruleset {
                found: "classic",
                expected: "nethack"
            })
        );
        assert_eq!(
            decode(index + 1, &value, Rules::newest(Ruleset::CLASSIC)),
            Err(SnapshotError::Elsewhere(index))
        );
        assert_eq!(
            decode(index, &value[..19], Rules::newest(Ruleset::CLASSIC)),
            Err(SnapshotError::TooShort)
        );
    }
}
