//! The layout of the database as this build writes it: its trees, the keys in them, and
//! how a game's record is encoded. `db` reads and writes through these names, and
//! `migrate` writes them when it moves an older layout here; an older layout's own names
//! are `migrate`'s alone.
//!
//! Layout 3 has a fixed set of trees, whatever the number of games:
//!
//! | tree | key | value |
//! | --- | --- | --- |
//! | `games` | game id | the game's record (`GameMeta`, see `encode_record`) |
//! | `steps` | game id, event index | one step of the game's log (`log`) |
//! | `snapshots` | game id, event index | the state after that event (`snapshot`) |
//! | `verdicts` | game id | what the game's log was proved to fold to (`verdict`) |
//! | `names` | a game's name (UTF-8) | its game id: which game holds a name, without reading every record |
//! | `branches` | game id | where a game taken over from a replay, or saved as another, came from (`branch`) |
//! | `streams` | game id | the server and run a game is streamed to as it is played (`stream`) |
//! | `dealt` | game id | a dealt run's mark, and the command it sent to be dealt and has not been answered (`deal`) |
//! | sled's default | `layout`, `last_game_id`, `writes`, `unfinished`, `freed` | the layout, the last game number, the count of writes (`seal`), the count of writes begun that may leave steps without a record (`UNFINISHED`), the bytes removed since the database was last written whole (`FREED`) |
//!
//! Every number in a key is a big-endian `u64`, so that key order is game order and then
//! tape order: a game's log is one contiguous range of `steps`, read in one scan. A tree
//! per game (layouts 1 and 2) made sled rewrite its whole list of trees with each game
//! made or dropped, and keep the old copies in its log: a directory that grew with the
//! square of its games.

use std::ops::Range;

use super::error::StoreError;
use super::{GameId, GameMeta};

/// The layout of the database this build reads and writes: its trees, their keys, and
/// how records are encoded (events and snapshots carry their own versions, in each game's
/// header). Change it with the layout, so that an older build refuses a newer database
/// instead of misreading it, and migrate the older ones (`migrate`).
///
/// 1: a key per event, trees per game (`game/{id}/events`). 2: a value per step, trees
/// per game (`game/{id}/steps`). 3: the trees above, shared by every game.
pub const LAYOUT_VERSION: u16 = 3;

/// The tree of records.
pub(crate) const GAMES: &str = "games";
/// The tree of every game's log.
pub(crate) const STEPS: &str = "steps";
/// The tree of every game's snapshots.
pub(crate) const SNAPSHOTS: &str = "snapshots";
/// The tree of verdicts.
pub(crate) const VERDICTS: &str = "verdicts";
/// The tree of names, each to the game that holds it. Written before the record that
/// holds the name (sled recovers a prefix of its writes, so every record's name is in
/// it), left behind when a game is deleted or a crash stops a write: an entry is believed
/// only when the record it leads to holds the name.
pub(crate) const NAMES: &str = "names";

/// The tree of branches (`branch`): games taken over from a replay, or saved as another,
/// each to where it came from. Written before the record, left behind only by a crash
/// before the record (tidied with the steps such a crash leaves).
pub(crate) const BRANCHES: &str = "branches";

/// The tree of streamed games (`stream`): a daily run, to its server and run. Written
/// before the game's first record, left behind only by a crash before it (tidied with
/// the steps such a crash leaves). Like `branches`, an addition to layout 3 that an
/// older build of the same layout never opens.
pub(crate) const STREAMS: &str = "streams";

/// The tree of dealt runs (`deal`): a game whose draws its server deals, to the command
/// it waits on. Written and tidied as `streams` is, an addition to layout 3 too: an
/// older build would play such a game with draws of its own, which its server refuses.
pub(crate) const DEALT: &str = "dealt";

/// The key, in sled's default tree, of the last game number handed out.
pub(crate) const LAST_ID: &[u8] = b"last_game_id";
/// The key, in sled's default tree, of the count of new games and deletes begun and not
/// yet seen through: each may leave steps and snapshots that no record holds, if it is
/// stopped part-way. Counted up before the first of its writes and down after the last,
/// so that (sled recovering a prefix of its writes) a count of 0 means there are none,
/// and opening need not look for them through every game. Absent is 0.
pub(crate) const UNFINISHED: &[u8] = b"unfinished";
/// The key, in sled's default tree, of the bytes of keys and values removed since the
/// database was last written whole (`compact`). Absent is 0.
pub(crate) const FREED: &[u8] = b"freed";
/// The key, in sled's default tree, of the layout the database was written in.
pub(crate) const LAYOUT: &[u8] = b"layout";

/// A count kept in sled's default tree (`LAST_ID`, `UNFINISHED`, `FREED`, the seal's
/// `WRITES`): a big-endian `u64`, absent (none counted yet) being 0.
pub(crate) fn count_in(value: Option<&[u8]>) -> u64 {
    value
        .and_then(|v| v.try_into().ok())
        .map_or(0, u64::from_be_bytes)
}

/// The key of a game's entry at event `index` in `steps` or `snapshots`.
pub(crate) fn key(game: GameId, index: u64) -> [u8; 16] {
    let mut key = [0; 16];
    key[..8].copy_from_slice(&game.key());
    key[8..].copy_from_slice(&index.to_be_bytes());
    key
}

/// The game and event index a key of `steps` or `snapshots` names, if it is one.
pub(crate) fn split_key(key: &[u8]) -> Option<(GameId, u64)> {
    let key: &[u8; 16] = key.try_into().ok()?;
    let (game, index) = key.split_at(8);
    Some((
        GameId(u64::from_be_bytes(game.try_into().ok()?)),
        u64::from_be_bytes(index.try_into().ok()?),
    ))
}

/// The keys of a game's entries at events `from..to`.
pub(crate) fn keys(game: GameId, from: u64, to: u64) -> Range<[u8; 16]> {
    key(game, from)..key(game, to)
}

/// Every key of a game's entries, whatever its events.
pub(crate) fn all_keys(game: GameId) -> std::ops::RangeInclusive<[u8; 16]> {
    key(game, 0)..=key(game, u64::MAX)
}

/// A game's record as stored.
pub(crate) fn encode_record(meta: &GameMeta) -> Vec<u8> {
    bincode::serde::encode_to_vec(meta, bincode::config::standard())
        .expect("a metadata record always encodes")
}

/// bincode's standard encoding, with a bound on what a damaged length may ask a reader
/// to allocate: a record is a name of at most 64 characters, a header and a few numbers,
/// and the spans of a fork, about ten bytes for each generation of forks.
fn record_config() -> impl bincode::config::Config {
    bincode::config::standard().with_limit::<{ 1 << 20 }>()
}

/// A game record as stored under `key`, checked: it must decode exactly, within a size
/// limit, and hold itself together (its own key, spans within its log). Layouts 2 and 3
/// encode records alike.
pub fn decode_record(key: &[u8], value: &[u8]) -> Result<GameMeta, StoreError> {
    let id = key
        .try_into()
        .map(|k: [u8; 8]| u64::from_be_bytes(k).to_string())
        .unwrap_or_else(|_| "?".into());
    let damaged = || StoreError::Damaged {
        name: format!("number {id}"),
        what: "its metadata record does not decode".into(),
    };
    let (meta, read): (GameMeta, usize) =
        bincode::serde::decode_from_slice(value, record_config()).map_err(|_| damaged())?;
    let sound = meta.id.key() == key && meta.hashed <= meta.events && meta.spans_are_sound();
    if read != value.len() || !sound {
        return Err(damaged());
    }
    Ok(meta)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_games_keys_sort_together_in_tape_order() {
        let mut keys = [
            key(GameId(2), 0),
            key(GameId(1), 300),
            key(GameId(1), 2),
            key(GameId(256), 1),
            key(GameId(1), u64::MAX),
        ];
        keys.sort();
        let split: Vec<(u64, u64)> = keys
            .iter()
            .map(|k| split_key(k).map(|(g, i)| (g.0, i)).unwrap())
            .collect();
        assert_eq!(split, [(1, 2), (1, 300), (1, u64::MAX), (2, 0), (256, 1)]);
        assert!(all_keys(GameId(1)).contains(&key(GameId(1), 7)));
        assert!(!all_keys(GameId(1)).contains(&key(GameId(2), 0)));
        assert_eq!(split_key(&[0; 8]), None);
    }
}
