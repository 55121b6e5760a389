//! Moving a data directory written in an older layout of the database to this build's
//! (`layout`), on open. The older layouts are read here through names this module owns;
//! the new one is written through `layout`'s.
//!
//! Layouts 1 and 2 kept two trees per game (`game/{id}/events`, a key per event, in
//! layout 1; `game/{id}/steps` and `game/{id}/snapshots` in layout 2), and sled rewrote its
//! list of trees each time one was made or dropped. Dropping them one by one would write
//! that list again for each of them, so the migration does not work in place: it builds
//! the new database beside the old one, in `migrating/`, game by game, and checks each
//! game there against the old one (its events read back equal, and its log folds to the
//! same final hash) before anything old is touched. Only once the new database is whole,
//! checked, closed and synced is it put in the old one's place (`replace`). A migration
//! stopped at any point, by a kill or a failing disk, so leaves one of: the old database
//! untouched (and a partial `migrating/`, cleared on the next open, which starts again),
//! or a ready new database that the next open puts in place. Either way every game is
//! whole.
//!
//! Steps and snapshots are copied byte for byte (a layout-1 log, a key per event, is
//! packed into steps; its snapshots are stored again in the checksummed encoding, or
//! dropped if they do not hold the state they claim: they are a cache). Records, verdicts
//! and the counters are copied as they are (layout 1's records are encoded anew). Games
//! whose record or log does not read are copied as they are too, damaged in either
//! layout; a layout-1 log that cannot be packed into steps is the one thing layout 3
//! cannot hold, and then the old database is kept beside the new one, in
//! `before-layout-3/`, for repair, rather than removed.

use std::collections::BTreeSet;
use std::path::Path;

use sandglass_sim::{fold, Event, Header, Rules, State};
use serde::Deserialize;
use sled::{Db, Tree};

use super::error::StoreError;
use super::layout::{self, LAYOUT_VERSION};
use super::seal::WRITES;
use super::{log, replace, snapshot};
use super::{GameId, GameMeta, Stage, Status};

/// Layouts 1 and 2: the tree of records (as layout 3 names it too).
const OLD_GAMES: &str = "games";
/// Layout 2: the tree of verdicts.
const OLD_VERDICTS: &str = "verdicts";
/// Layouts 1 and 2: in sled's default tree, the last game number.
const OLD_LAST_ID: &[u8] = b"last_game_id";

/// What the trees of one game were called in layouts 1 and 2.
fn old_tree(id: GameId, what: &str) -> String {
    format!("game/{id}/{what}")
}

/// Layout 1's tree of a game's events, a key per event.
const OLD_EVENTS: &str = "events";
/// Layout 2's trees of a game's steps and snapshots (layout 1 had the snapshots too).
const OLD_STEPS: &str = "steps";
const OLD_SNAPSHOTS: &str = "snapshots";

/// The game a tree of layouts 1 and 2 belongs to.
fn game_of_tree(name: &[u8]) -> Option<GameId> {
    let name = std::str::from_utf8(name).ok()?;
    let (id, _) = name.strip_prefix("game/")?.split_once('/')?;
    id.parse().ok().map(GameId)
}

/// Layouts 1 and 2 keyed an entry of a game's tree by its event index alone.
fn old_index(key: &[u8]) -> Option<u64> {
    key.try_into().ok().map(u64::from_be_bytes)
}

fn old_key(index: u64) -> [u8; 8] {
    index.to_be_bytes()
}

/// The layout of a database that records none: layout 1 if it holds games, none at all
/// (a new database) if not.
pub(super) fn unrecorded_layout(db: &Db) -> Option<u16> {
    let old = db
        .tree_names()
        .iter()
        .any(|name| game_of_tree(name).is_some());
    old.then_some(1)
}

/// Moves the database `old`, of layout `found`, in `dir`, to this build's layout: built
/// and checked beside it, then put in its place. `progress` is told the games moved.
pub(super) fn to_current(
    old: Db,
    dir: &Path,
    found: u16,
    progress: &mut dyn FnMut(Stage, u64),
) -> Result<(), StoreError> {
    let whole = replace::build_beside(dir, replace::Flushes::Background, |new| {
        build(&old, found, new, progress)
    })?;
    replace::put_in_place(old, dir, !whole)
}

/// The new database's trees.
struct New {
    db: Db,
    games: Tree,
    steps: Tree,
    snapshots: Tree,
    verdicts: Tree,
    names: Tree,
}

/// Fills the new database `db` from `old`, checking every game. Returns whether every old
/// log was moved whole (else the old database is to be kept).
fn build(
    old: &Db,
    found: u16,
    db: &Db,
    progress: &mut dyn FnMut(Stage, u64),
) -> Result<bool, StoreError> {
    let new = New {
        games: db.open_tree(layout::GAMES)?,
        steps: db.open_tree(layout::STEPS)?,
        snapshots: db.open_tree(layout::SNAPSHOTS)?,
        verdicts: db.open_tree(layout::VERDICTS)?,
        names: db.open_tree(layout::NAMES)?,
        db: db.clone(),
    };
    let names: BTreeSet<Vec<u8>> = old.tree_names().iter().map(|n| n.to_vec()).collect();
    // Only trees that are there are opened: opening one makes it, and nothing is written
    // to the old database.
    let tree = |name: &str| -> Result<Option<Tree>, StoreError> {
        match names.contains(name.as_bytes()) {
            true => Ok(Some(old.open_tree(name)?)),
            false => Ok(None),
        }
    };
    let records = tree(OLD_GAMES)?;
    let mut ids: BTreeSet<GameId> = names.iter().filter_map(|n| game_of_tree(n)).collect();
    if let Some(records) = &records {
        for entry in records.iter() {
            if let Some(id) = GameId::from_key(&entry?.0) {
                ids.insert(id);
            }
        }
    }
    let games = ids.len() as u64;
    progress(Stage::Migrating { games }, 0);
    let mut whole = true;
    for (done, &id) in (1..).zip(&ids) {
        let record = match &records {
            Some(records) => records.get(id.key())?,
            None => None,
        };
        let game = Game {
            id,
            record: record.as_deref(),
            found,
            events: tree(&old_tree(id, OLD_EVENTS))?,
            steps: tree(&old_tree(id, OLD_STEPS))?,
            snapshots: tree(&old_tree(id, OLD_SNAPSHOTS))?,
        };
        whole &= game.copy(&new)?;
        if let Some(meta) = game.meta() {
            check(
                &meta,
                &new,
                |owner| tree(&old_tree(owner, OLD_STEPS)),
                &game,
            )?;
        }
        progress(Stage::Migrating { games }, done);
    }
    if let Some(verdicts) = tree(OLD_VERDICTS)? {
        for entry in verdicts.iter() {
            let (k, v) = entry?;
            new.verdicts.insert(k, v)?;
        }
    }
    for key in [OLD_LAST_ID, WRITES] {
        if let Some(value) = old.get(key)? {
            new.db.insert(key, value)?;
        }
    }
    // Trees of games without a record were moved too: the first open tidies them.
    new.db.insert(layout::UNFINISHED, &1u64.to_be_bytes())?;
    new.db
        .insert(layout::LAYOUT, &LAYOUT_VERSION.to_be_bytes())?;
    Ok(whole)
}

/// One game of the old database, as found.
struct Game<'a> {
    id: GameId,
    /// Its record's bytes, if it has a record.
    record: Option<&'a [u8]>,
    found: u16,
    events: Option<Tree>,
    steps: Option<Tree>,
    snapshots: Option<Tree>,
}

impl Game<'_> {
    /// The game's record, if it decodes: in layout 2's encoding (layout 3's too), or in
    /// layout 1's in a database of layout 1.
    fn meta(&self) -> Option<GameMeta> {
        let record = self.record?;
        match layout::decode_record(&self.id.key(), record) {
            Ok(meta) => Some(meta),
            Err(_) if self.found == 1 => decode_record_1(&self.id.key(), record),
            Err(_) => None,
        }
    }

    /// The game's events as layout 1 kept them, if its tree holds a whole log.
    fn layout_1_log(&self) -> Option<Vec<Event>> {
        let events = self.events.as_ref()?;
        let count = match self.meta() {
            Some(meta) => meta.events,
            None => events.len() as u64,
        };
        read_old(events, count)
    }

    /// Copies the game into the new database; returns whether its old log was moved
    /// whole.
    fn copy(&self, new: &New) -> Result<bool, StoreError> {
        let mut whole = true;
        let layout_1 = self.layout_1_log();
        if let Some(events) = &layout_1 {
            for (index, step) in log::steps(events) {
                new.steps
                    .insert(layout::key(self.id, index), log::encode(step))?;
            }
        } else if let Some(steps) = &self.steps {
            // A layout-2 log, or a layout-1 one that a migration to layout 2 had moved.
            for entry in steps.iter() {
                let (k, v) = entry?;
                match old_index(&k) {
                    Some(index) => new.steps.insert(layout::key(self.id, index), v)?,
                    None => {
                        whole = false;
                        continue;
                    }
                };
            }
        }
        // A log of layout 1 that is not whole has no form in layout 3.
        if self.events.as_ref().is_some_and(|e| !e.is_empty()) && layout_1.is_none() {
            whole = false;
        }
        if let Some(snapshots) = &self.snapshots {
            let rules = self.meta().and_then(|meta| meta.rules().ok());
            for entry in snapshots.iter() {
                let (k, v) = entry?;
                let Some(index) = old_index(&k) else {
                    continue;
                };
                let value = match (self.found, rules) {
                    (1, Some(rules)) => snapshot_1(index, &v, rules),
                    _ => Some(v.to_vec()),
                };
                if let Some(value) = value {
                    new.snapshots.insert(layout::key(self.id, index), value)?;
                }
            }
        }
        if let Some(record) = self.record {
            let meta = self.meta();
            if let Some(meta) = &meta {
                new.names.insert(meta.name.as_str(), &self.id.key())?;
            }
            let value = match (self.found, meta) {
                (1, Some(meta)) => layout::encode_record(&meta),
                _ => record.to_vec(),
            };
            new.games.insert(self.id.key(), value)?;
        }
        Ok(whole)
    }

    /// The game's log as the old database holds it, or why it cannot be read.
    fn old_log(
        &self,
        meta: &GameMeta,
        steps_of: impl Fn(GameId) -> Result<Option<Tree>, StoreError>,
    ) -> Result<Vec<Event>, StoreError> {
        if let Some(events) = self.layout_1_log() {
            return Ok(events);
        }
        let missing = |at| StoreError::Damaged {
            name: meta.name.clone(),
            what: format!("the step at event {at} is missing"),
        };
        let mut events = vec![];
        for part in meta.parts() {
            let Some(steps) = steps_of(part.owner)? else {
                return Err(missing(part.start));
            };
            let mut next = part.start;
            for entry in steps.range(old_key(part.start)..old_key(part.end)) {
                let (k, v) = entry?;
                if old_index(&k) != Some(next) {
                    return Err(missing(next));
                }
                let step = log::decode(next, &v).map_err(|why| StoreError::Damaged {
                    name: meta.name.clone(),
                    what: format!("the step at event {next}: {why}"),
                })?;
                next += step.len() as u64;
                events.extend(step);
            }
            if next != part.end {
                return Err(missing(next));
            }
        }
        Ok(events)
    }
}

/// Checks a game moved into `new` against the old database: its log reads back event for
/// event as it was, and (under this build's rules, with its hash taken) folds to the
/// final hash it folded to before. A game whose old log does not read was damaged before
/// the move, and is copied byte for byte as it was.
fn check(
    meta: &GameMeta,
    new: &New,
    steps_of: impl Fn(GameId) -> Result<Option<Tree>, StoreError>,
    game: &Game,
) -> Result<(), StoreError> {
    let Ok(before) = game.old_log(meta, steps_of) else {
        return Ok(());
    };
    let failed = |what: &str| StoreError::Migration {
        name: meta.name.clone(),
        what: what.into(),
    };
    let mut after = vec![];
    for part in meta.parts() {
        let read = log::read(
            &new.steps,
            part.owner,
            part.start,
            part.end,
            &meta.name,
            &mut |_| (),
        );
        after.extend(read.map_err(|_| failed("its log does not read back"))?);
    }
    if after != before {
        return Err(failed("its log reads back other than it was"));
    }
    let (Ok(rules), Some(saved)) = (meta.rules(), meta.final_hash()) else {
        // Another build's rules, or a game whose play stopped before its hash was taken:
        // its events are all there is to compare.
        return Ok(());
    };
    let hash = |events: Vec<Event>| fold(rules, events, &mut ()).map(|state| state.hash());
    let folded = hash(after);
    // A log that folds to its saved hash is the game; one that does not was as damaged
    // before, and must fold (or fail) the same way.
    if folded != Ok(saved) && folded != hash(before) {
        return Err(failed("its log folds to another hash than it did"));
    }
    Ok(())
}

/// Layout 1 stored a snapshot as the state's hash and its encoding, unchecked and
/// uncompressed; it is stored again as layout 3 stores one (`snapshot`), or dropped if it
/// does not hold the state it claims: a snapshot is a cache of the log. One already in
/// the new encoding (moved by a migration to layout 2 that stopped) is kept as it is.
fn snapshot_1(index: u64, value: &[u8], rules: Rules) -> Option<Vec<u8>> {
    if snapshot::decode(index, value, rules).is_ok() {
        return Some(value.to_vec());
    }
    let (hash, body) = value.split_first_chunk::<8>()?;
    let hash = u64::from_le_bytes(*hash);
    let state = State::decode(body, rules.version()).ok()?;
    (state.hash() == hash && state.events_folded() == index).then(|| snapshot::encode(&state, hash))
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
        if old_index(&k) != Some(expected) {
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
