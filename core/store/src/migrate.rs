//! Migrating a data directory written in an older layout of the database, on first open.
//!
//! Layout 1 kept a key per event (`game/{id}/events`, each value one bincode `Event`),
//! and records without the spans a fork shares; layout 2 keeps a value per step (`log`),
//! and every record says what it shares (nothing, for a game of layout 1: its forks were
//! copies). Every game's log is rewritten as steps, and its record in the new encoding;
//! the log is read back and checked against what it was (event for event, and for a game
//! of this build's rules, folded to the hash its record was saved with) before the old
//! log is dropped. The layout is recorded as 2 only after every game is through: a
//! migration cut short by a crash goes on where it stopped on the next open.

use sandglass_sim::{fold, Event, Header, Rules, State};
use serde::Deserialize;
use sled::{Db, Tree};

use super::db::{decode_record, encode_meta, tree_name, SNAPSHOTS, STEPS};
use super::error::StoreError;
use super::log::{self, key};
use super::snapshot;
use super::{GameId, GameMeta, Status};

/// Layout 1's tree of a game's events.
pub(super) const OLD_EVENTS: &str = "events";

pub(super) fn from_layout_1(db: &Db) -> Result<(), StoreError> {
    let games = db.open_tree("games")?;
    let mut migrated = vec![];
    for entry in games.iter() {
        let (k, v) = entry?;
        // A record already in the new encoding had its log written before it, by a
        // migration that a crash cut short.
        let (meta, written) = match (decode_record(&k, &v), decode_record_1(&k, &v)) {
            (Ok(meta), _) => (meta, true),
            (_, Some(meta)) => (meta, false),
            // A record that does not decode stays as it was: its game is damaged in
            // either layout, and hides no other.
            (Err(_), None) => continue,
        };
        let old = db.open_tree(tree_name(meta.id, OLD_EVENTS))?;
        let events = read_old(&old, meta.events);
        if let (Some(events), false) = (&events, written) {
            let steps = db.open_tree(tree_name(meta.id, STEPS))?;
            steps.clear()?;
            for (index, step) in log::steps(events) {
                steps.insert(key(index), log::encode(step))?;
            }
            db.flush()?;
        }
        // Another build's rules: its snapshots cannot be checked here, and stay as they are.
        if let Ok(rules) = meta.rules() {
            migrate_snapshots(&db.open_tree(tree_name(meta.id, SNAPSHOTS))?, rules)?;
        }
        games.insert(&k, encode_meta(&meta))?;
        if let Some(events) = events {
            migrated.push((meta, events));
        }
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

/// Layout 1 stored a snapshot as the state's hash and its encoding, unchecked and
/// uncompressed; each is stored again as layout 2 stores one (`snapshot`), or dropped if
/// it does not hold the state it claims: a snapshot is a cache of the log.
fn migrate_snapshots(tree: &Tree, rules: Rules) -> Result<(), StoreError> {
    for entry in tree.iter() {
        let (k, v) = entry?;
        let Some(index) = log::index_of(&k) else {
            continue;
        };
        if snapshot::decode(index, &v, rules).is_ok() {
            continue;
        }
        let old = v
            .split_first_chunk::<8>()
            .and_then(|(hash, body)| {
                Some((
                    u64::from_le_bytes(*hash),
                    State::decode(body, rules.version()).ok()?,
                ))
            })
            .filter(|(hash, state)| state.hash() == *hash && state.events_folded() == index);
        match old {
            Some((hash, state)) => tree.insert(k, snapshot::encode(&state, hash))?,
            None => tree.remove(k)?,
        };
    }
    Ok(())
}

/// A game record as layout 1 encoded it: `GameMeta` without its spans.
#[derive(Deserialize)]
struct Record1 {
    id: GameId,
    name: String,
    header: Header,
    created: u64,
    last_played: u64,
    status: Status,
    depth: u8,
    turns: u64,
    commands: u64,
    events: u64,
    last_hash: u64,
}

fn decode_record_1(key: &[u8], value: &[u8]) -> Option<GameMeta> {
    let config = bincode::config::standard().with_limit::<4096>();
    let (r, read): (Record1, usize) = bincode::serde::decode_from_slice(value, config).ok()?;
    (read == value.len() && r.id.key() == key).then(|| GameMeta {
        id: r.id,
        name: r.name,
        header: r.header,
        created: r.created,
        last_played: r.last_played,
        status: r.status,
        depth: r.depth,
        turns: r.turns,
        commands: r.commands,
        events: r.events,
        last_hash: r.last_hash,
        hashed: r.events,
        shared: vec![],
    })
}

/// Layout 1's log of `count` events, if every one is there and decodes.
fn read_old(tree: &Tree, count: u64) -> Option<Vec<Event>> {
    let mut events = Vec::with_capacity(count.min(1 << 20) as usize);
    for (expected, entry) in (0..count).zip(tree.iter()) {
        let (k, v) = entry.ok()?;
        if log::index_of(&k) != Some(expected) {
            return None;
        }
        let config = bincode::config::standard().with_limit::<64>();
        let (event, read) = bincode::serde::decode_from_slice(&v, config).ok()?;
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
    let back = log::read(&steps, 0, meta.events, &meta.name, &mut |_| ())?;
    if back != events {
        return Err(StoreError::Migration {
            name: meta.name.clone(),
            what: "its log reads back other than it was".into(),
        });
    }
    let Ok(rules) = meta.rules() else {
        // Another build's rules: the log is kept as it was written, unfolded.
        return Ok(true);
    };
    let folded = fold(rules, back, &mut ()).map(|state| state.hash());
    Ok(folded == Ok(meta.last_hash))
}
