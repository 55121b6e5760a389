//! Games the bot plays in a fresh store, and a game's own entries read back: what the
//! tests of playing (`session`), loading (`load`), moving games in and out (`transfer`)
//! and deleting them (`db`) start from, kept in a module of their own so that no
//! module's tests import another's.

use sandglass_sim::bot::Bot;
use sandglass_sim::{fold, Event, Header, Ruleset};
use sled::{IVec, Tree};

use crate::layout::split_key;
use crate::{GameId, Session, Store, SNAPSHOT_EVERY};

/// A game's own entries in `tree` (`steps` or `snapshots`), as (event index, value).
pub(crate) fn entries(tree: &Tree, id: GameId) -> Vec<(u64, IVec)> {
    tree.range(crate::layout::all_keys(id))
        .map(|entry| {
            let (k, v) = entry.unwrap();
            (split_key(&k).unwrap().1, v)
        })
        .collect()
}

/// A store in a fresh directory holding one bot game of up to `commands` commands.
pub(crate) fn played(commands: u64) -> (tempfile::TempDir, Store, GameId) {
    let dir = tempfile::tempdir().unwrap();
    let store = Store::open(dir.path()).unwrap();
    let header = Header::new(1, Ruleset::NETHACK, 0);
    let mut session = store.create("camel", header, &mut ()).unwrap();
    play(&mut session, commands);
    let id = session.meta().id;
    (dir, store, id)
}

pub(crate) fn play(session: &mut Session, commands: u64) {
    Bot::new(session.meta().events)
        .play(session, commands)
        .unwrap();
}

/// A store holding one bot game long enough for a few snapshots.
pub(crate) fn played_long() -> (tempfile::TempDir, Store, GameId) {
    let dir = tempfile::tempdir().unwrap();
    let store = Store::open(dir.path()).unwrap();
    let header = Header::new(1, Ruleset::NETHACK, 0);
    let mut session = store.create("camel", header, &mut ()).unwrap();
    Bot::lingering(1, 10_000)
        .play_until(&mut session, |s| s.events_folded() > 3 * SNAPSHOT_EVERY)
        .unwrap();
    let id = session.meta().id;
    (dir, store, id)
}

pub(crate) fn genesis_hash(store: &Store, id: GameId) -> u64 {
    let meta = store.meta(id).unwrap();
    fold(meta.rules().unwrap(), store.events(id).unwrap(), &mut ())
        .unwrap()
        .hash()
}

/// Where each command of a tape is.
pub(crate) fn commands_at(events: &[Event]) -> Vec<u64> {
    (0..)
        .zip(events)
        .filter(|(_, e)| matches!(e, Event::Command(_)))
        .map(|(i, _)| i)
        .collect()
}

/// The keys of a game's own log.
pub(crate) fn own_steps(store: &Store, id: GameId) -> Vec<u64> {
    entries(&store.steps, id)
        .into_iter()
        .map(|(at, _)| at)
        .collect()
}
