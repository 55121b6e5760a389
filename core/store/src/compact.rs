//! Giving the room of deleted games back to the file system.
//!
//! sled cleans the pages of deleted games out of its log's segments and reuses those
//! segments for later writes, but it gives a segment back to the file system only when it
//! is the last of its file, and after many deletes few are: a store that held 10,000
//! games and deleted 9,000 of them stays the size of the 10,000. So every removal counts
//! the bytes it frees (`layout::FREED`), and an open that finds the deletes have freed at
//! least as much as the store still holds (and at least `FREED_FLOOR`) rewrites the
//! database whole, compactly, beside the old one, and puts the copy in its place as a
//! migration does (`replace`): a stop at any point leaves one whole database. The copy is
//! byte for byte, every tree but the count of freed bytes, and is read back against the
//! old database before it takes its place.
//!
//! A rewrite costs a read and a write of what the store holds, and at most halves the
//! database each time it runs, so its cost is bounded by the deletes that called for it.
//! It is an economy, never a reason not to open: a disk without room for the copy, or a
//! copy that fails, leaves the store as it was, to be tried at a later open.

use std::path::Path;

use sled::{Db, Tree};

use super::error::StoreError;
use super::layout;
use super::{replace, reserve, Stage};

/// How many keys the copy writes in one sled batch.
const COPY_BATCH: usize = 64;

/// The fewest freed bytes worth a rewrite: below it, what the rewrite would give back is
/// less than the room sled keeps for its own log segments.
const FREED_FLOOR: u64 = 1 << 20;

/// The bytes of keys and values the database holds, every tree.
fn held(db: &Db) -> Result<u64, StoreError> {
    let mut bytes = 0;
    for tree in trees(db)? {
        for entry in tree.iter() {
            let (k, v) = entry?;
            bytes += (k.len() + v.len()) as u64;
        }
    }
    Ok(bytes)
}

/// Every tree of the database, sled's default among them.
fn trees(db: &Db) -> Result<Vec<Tree>, StoreError> {
    let mut trees = vec![];
    for name in db.tree_names() {
        trees.push(db.open_tree(name)?);
    }
    Ok(trees)
}

/// Whether the database in `dir` is worth rewriting: its deletes have freed at least as
/// much as it holds, and the disk has room for a copy of it beside the room kept for
/// tidying up. Reads every key only once enough is freed to be worth it.
pub(super) fn worthwhile(db: &Db, dir: &Path) -> Result<Option<u64>, StoreError> {
    let freed = layout::count_in(db.get(layout::FREED)?.as_deref());
    if freed < FREED_FLOOR {
        return Ok(None);
    }
    let held = held(db)?;
    let room = db.size_on_disk()?.saturating_add(reserve::TIDY_ROOM);
    Ok((freed >= held && reserve::has_room(dir, room)).then_some(held))
}

/// Rewrites the database `old` in `dir` whole, compactly, and puts the copy in its place;
/// `progress` is told the bytes copied of `held`. A copy that cannot be made leaves the old
/// database as it was, and is not an error: only a failure to put a whole copy in place
/// is, and the next open finishes that (`replace::finish`).
pub(super) fn rewrite(
    old: Db,
    dir: &Path,
    held: u64,
    progress: &mut dyn FnMut(Stage, u64),
) -> Result<(), StoreError> {
    let stage = Stage::Compacting { bytes: held };
    progress(stage, 0);
    if replace::build_beside(dir, |new| {
        copy(&old, new, &mut |done| progress(stage, done))
    })
    .is_err()
    {
        return Ok(());
    }
    replace::put_in_place(old, dir, false)
}

/// Copies every tree of `old` into `new` but the count of freed bytes, then reads the copy
/// back against the old, entry by entry.
fn copy(old: &Db, new: &Db, progress: &mut dyn FnMut(u64)) -> Result<(), StoreError> {
    let copied = |key: &[u8], tree: &Tree| tree.name() != old.name() || key != layout::FREED;
    let mut done = 0;
    for from in trees(old)? {
        let to = new.open_tree(from.name())?;
        // In batches, as an import writes a game's steps: sled lays a log written so in
        // less room than one written a key at a time.
        let mut batch = sled::Batch::default();
        let mut batched = 0;
        for entry in from.iter() {
            let (k, v) = entry?;
            if copied(&k, &from) {
                done += (k.len() + v.len()) as u64;
                batch.insert(k, v);
                batched += 1;
            }
            if batched == COPY_BATCH {
                to.apply_batch(std::mem::take(&mut batch))?;
                batched = 0;
                progress(done);
            }
        }
        to.apply_batch(batch)?;
        progress(done);
    }
    for from in trees(old)? {
        let to = new.open_tree(from.name())?;
        let mut read = to.iter();
        for entry in from.iter() {
            let (k, v) = entry?;
            if !copied(&k, &from) {
                continue;
            }
            if read.next().transpose()? != Some((k, v)) {
                return Err(StoreError::Db(
                    "the copy reads back other than it was".into(),
                ));
            }
        }
        if read.next().is_some() {
            return Err(StoreError::Db("the copy holds more than it was".into()));
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use std::os::unix::fs::MetadataExt;

    use super::*;
    use crate::{disk_bytes, GameMeta, Store};

    /// Stores the bot's games of seeds `seeds`, `commands` commands each.
    fn store_games(store: &Store, seeds: std::ops::Range<u64>, commands: u64) {
        for seed in seeds {
            let file = crate::bot_recording(seed, commands);
            let name = format!("g{seed}");
            store
                .create_from_tape(&name, &file.header, &file.events, &mut |_, _| ())
                .unwrap();
        }
    }

    /// Every game of `store`: its record and its log.
    fn games_in(store: &Store) -> Vec<(GameMeta, Vec<sandglass_sim::Event>)> {
        let games = store.games().unwrap();
        games
            .into_iter()
            .map(|meta| {
                let events = store.events(meta.id).unwrap();
                (meta, events)
            })
            .collect()
    }

    #[test]
    fn a_store_that_deleted_most_of_its_games_takes_what_one_that_only_held_the_rest_does() {
        let (held, kept) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
        let games = {
            let store = Store::open(held.path()).unwrap();
            store_games(&store, 0..1000, 60);
            for meta in store.games().unwrap().into_iter().take(900) {
                store.delete(meta.id).unwrap();
            }
            let freed = layout::count_in(store.db.get(layout::FREED).unwrap().as_deref());
            assert!(freed >= FREED_FLOOR, "only {freed} bytes freed");
            store_games(&Store::open(kept.path()).unwrap(), 900..1000, 60);
            games_in(&store)
        };
        let before = disk_bytes(held.path());
        // The open rewrites it; its games are as they were, records and logs.
        let store = Store::open(held.path()).unwrap();
        assert_eq!(games_in(&store), games);
        assert_eq!(games.len(), 100);
        assert_eq!(store.db.get(layout::FREED).unwrap(), None);
        drop(store);
        assert!(!held.path().join("migrating").exists());
        let after = disk_bytes(held.path());
        let only_kept = disk_bytes(kept.path());
        // The copy, written in batches, takes about what the kept games took when they
        // were stored: at this size a few of sled's 512 KiB log segments, and where its
        // background flush falls in the copy (later on a loaded machine) moves the end of
        // its log by a segment or two. BENCHMARKS.md has the figure at 10,000 games.
        assert!(
            after * 2 <= only_kept * 3 && after * 3 <= before,
            "{after} bytes after deleting 900 of 1,000 games (before the open {before}), \
             {only_kept} for the 100 alone"
        );
    }

    #[test]
    fn a_few_deletes_leave_the_database_as_it_is() {
        let dir = tempfile::tempdir().unwrap();
        {
            let store = Store::open(dir.path()).unwrap();
            store_games(&store, 0..20, 60);
            for meta in store.games().unwrap().into_iter().take(10) {
                store.delete(meta.id).unwrap();
            }
        }
        let file = || std::fs::metadata(dir.path().join("db")).unwrap().ino();
        let before = file();
        drop(Store::open(dir.path()).unwrap());
        assert_eq!(file(), before, "the database was rewritten");
    }
}
