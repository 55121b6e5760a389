//! Migrating a data directory written in an older layout of the database, on first open.
//!
//! Layout 1 kept a key per event (`game/{id}/events`, each value one bincode `Event`);
//! layout 2 keeps a value per step (`log`). Every game's log is rewritten as steps, read
//! back and checked against what it was (event for event, and for a game of this build's
//! rules, folded to the hash its record was saved with) before the old log is dropped.
//! The layout is recorded as 2 only after every game is through: a migration cut short
//! by a crash starts again on the next open.

use sandglass_sim::drive::check_header;
use sandglass_sim::{fold, Event};
use sled::{Db, Tree};

use super::db::{decode_meta, tree_name, STEPS};
use super::error::StoreError;
use super::log::{self, key};
use super::GameMeta;

/// Layout 1's tree of a game's events.
pub(super) const OLD_EVENTS: &str = "events";

pub(super) fn from_layout_1(db: &Db) -> Result<(), StoreError> {
    let games = db.open_tree("games")?;
    let mut migrated = vec![];
    for entry in games.iter() {
        let (k, v) = entry?;
        // A record that does not decode stays as it was: its game is damaged in either
        // layout, and hides no other.
        let Ok(meta) = decode_meta(&k, &v) else {
            continue;
        };
        let old = db.open_tree(tree_name(meta.id, OLD_EVENTS))?;
        let Some(events) = read_old(&old, meta.events) else {
            continue;
        };
        let steps = db.open_tree(tree_name(meta.id, STEPS))?;
        steps.clear()?;
        for (index, step) in log::steps(&events) {
            steps.insert(key(index), log::encode(step))?;
        }
        migrated.push((meta, events));
    }
    db.flush()?;
    for (meta, events) in &migrated {
        // A game whose log did not fold to its hash before the move is as damaged after
        // it; its old log is kept, as it was.
        if check(db, meta, events)? {
            db.drop_tree(tree_name(meta.id, OLD_EVENTS))?;
        }
    }
    db.flush()?;
    Ok(())
}

/// Layout 1's log of `count` events, if every one is there and decodes.
fn read_old(tree: &Tree, count: u64) -> Option<Vec<Event>> {
    let mut events = Vec::with_capacity(count.min(1 << 20) as usize);
    for (expected, entry) in (0..count).zip(tree.iter()) {
        let (k, v) = entry.ok()?;
        if log::index_of(&k) != Some(expected) {
            return None;
        }
        let (event, read) =
            bincode::serde::decode_from_slice(&v, bincode::config::standard()).ok()?;
        if read != v.len() {
            return None;
        }
        events.push(event);
    }
    (events.len() as u64 == count).then_some(events)
}

/// Whether the migrated log holds the game: it must read back event for event as the old
/// one (or the migration stops, and the directory stays in layout 1); under this build's
/// rules it must also fold to the hash the game was saved with.
fn check(db: &Db, meta: &GameMeta, events: &[Event]) -> Result<bool, StoreError> {
    let steps = db.open_tree(tree_name(meta.id, STEPS))?;
    let back = log::read(&steps, 0, meta.events, &meta.name)?;
    if back != events {
        return Err(StoreError::Migration {
            name: meta.name.clone(),
            what: "its log reads back other than it was".into(),
        });
    }
    if check_header(&meta.header).is_err() {
        // Another build's rules: the log is kept as it was written, unfolded.
        return Ok(true);
    }
    let folded = fold(&meta.header, back, &mut ()).map(|state| state.hash());
    Ok(folded == Ok(meta.last_hash))
}
