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
use super::replace::{self, Flushes};
use super::{reserve, Stage};

/// How many keys the copy writes in one sled batch, each batch flushed before the next
/// (`Flushes::ByTheFill`). Measured over one store of 1,000 games kept of 10,000 (1.0 MB
/// of keys and values, 373 batches), rewritten from copies of the same directory: flushed
/// every 64 keys, the log took 11 of sled's segments in every rewrite, on a quiet machine
/// and beside three busy loops alike (BENCHMARKS.md, "Space after deletes"); left to
/// sled's flusher on its clock, 11 to 15 by the run, and without a flusher or flushes of
/// its own, 10 to 12. Flushed every 16 keys the log took 13 segments (each flush and each
/// batch writes a little of its own); every 256, 10 or 11 by the run, the writes then
/// a large part of a segment ahead of what is stable.
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
    if replace::build_beside(dir, Flushes::ByTheFill, |new| {
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
        // less room than one written a key at a time. Each is flushed before the next, so
        // that sled reuses its segments at the same points of the copy in every run, not
        // where the scheduler let its writes land (`Flushes::ByTheFill`).
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
                new.flush()?;
                batched = 0;
                progress(done);
            }
        }
        to.apply_batch(batch)?;
        new.flush()?;
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

    /// sled's log segment, its default size: the unit in which its file grows.
    const SEGMENT: u64 = 512 << 10;

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
        // The copy takes what the kept games took when they were stored, give or take a
        // segment of sled's log on either side: sled applies a batch's keys in the order
        // of a `HashMap`, new in every batch, so where its pages split, and how much it
        // writes, varies by the run. Neither side depends on the machine's load: the copy
        // flushes after every batch rather than on the clock (`Flushes::ByTheFill`), and
        // the kept store syncs every game as it stores it. BENCHMARKS.md has the figure at
        // 10,000 games. What the held store took before the open depends on the load
        // (how often sled's flusher rewrote its pages as the games went in and out: 5.3
        // to 12 MB here), so it is told, not checked; that there was room to give back is
        // the count of freed bytes above, and that the open rewrote it, the count gone.
        assert!(
            after <= only_kept + 2 * SEGMENT,
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

/// The figures of BENCHMARKS.md ("Space after deletes"): what a rewrite leaves of a store
/// of 10,000 games of 20 commands whose oldest 9,000 were deleted, over five rewrites of
/// copies of one directory. Kept in `SANDGLASS_COMPACT_TEMPLATE` if set, so that runs
/// beside a busy machine and a quiet one rewrite the same directory.
#[cfg(test)]
mod measure {
    use std::path::Path;
    use std::process::Command;

    use crate::{disk_bytes, Store};

    const GAMES: u64 = 10_000;

    fn copy_of(template: &Path, to: &Path) {
        if to.exists() {
            std::fs::remove_dir_all(to).unwrap();
        }
        let copied = Command::new("cp").arg("-a").arg(template).arg(to).status();
        assert!(copied.unwrap().success());
    }

    #[test]
    #[ignore = "a measurement for BENCHMARKS.md, of a minute or two"]
    fn the_room_a_rewrite_of_a_thousand_games_kept_leaves() {
        let scratch = tempfile::tempdir().unwrap();
        let template = std::env::var_os("SANDGLASS_COMPACT_TEMPLATE")
            .map_or_else(|| scratch.path().join("template"), Into::into);
        if !template.exists() {
            let store = Store::open(&template).unwrap();
            for seed in 0..GAMES {
                let file = crate::bot_recording(seed, 20);
                let name = format!("g{seed}");
                store
                    .create_from_tape(&name, &file.header, &file.events, &mut |_, _| ())
                    .unwrap();
            }
            for meta in store.games().unwrap().into_iter().take(9_000) {
                store.delete(meta.id).unwrap();
            }
        }
        let dir = scratch.path().join("data");
        for run in 1..=5 {
            copy_of(&template, &dir);
            let before = disk_bytes(&dir);
            let started = std::time::Instant::now();
            drop(Store::open(&dir).unwrap());
            let took = started.elapsed();
            let log = std::fs::metadata(dir.join("db")).unwrap().len();
            println!(
                "rewrite {run}: {before} bytes before, {} after (sled's log {log}), {took:.2?}",
                disk_bytes(&dir)
            );
        }
    }
}
