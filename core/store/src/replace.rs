//! Replacing the database of a data directory by one built beside it: how a migration
//! (`migrate`) and a compaction (`compact`) rewrite it, so that a stop at any point, by a
//! kill or a failing disk, leaves one whole database.
//!
//! The new database is built in `migrating/`, closed and synced (`build_beside`), and only
//! then marked ready. From that mark on, every open carries the swap through (`finish`):
//! the old database's files are moved aside, the new one's into their place, and the old
//! ones removed (or kept, in `before-layout-3/`, when the new one could not hold all of
//! them). Before the mark, a stop leaves the old database untouched and a partial
//! `migrating/` that the next open clears.

use std::fs::{self, File};
use std::io::{self, Write};
use std::os::unix::io::AsRawFd;
use std::path::Path;
use std::time::{Duration, Instant};

use sled::Db;

use super::error::StoreError;

/// Who makes what a build writes stable as it goes (its end is flushed either way).
pub(super) enum Flushes {
    /// sled's background flusher too, every 500 ms, as in any database of the store.
    Background,
    /// The fill alone, with `Db::flush` at points of its own choosing. How large sled's log
    /// grows depends on how far the writes made stable lag behind the writer: a segment
    /// is reused only once a later segment's header says it is stable. A flusher that
    /// runs on a clock puts that lag where the scheduler lets it; a fill that flushes
    /// after every few kilobytes keeps it small and the same in every run, so the file it
    /// leaves depends on what it wrote alone (`compact`).
    ByTheFill,
}

/// Builds a new database in the staging folder of `dir` with `fill`, then closes and syncs
/// it; nothing of the old database is touched. What `fill` returns is handed back (a
/// migration says whether the old database may be removed). Should it fail, what was built
/// is cleared (or, if that fails too, the next open clears it: it is not marked ready).
pub(super) fn build_beside<T>(
    dir: &Path,
    flushes: Flushes,
    fill: impl FnOnce(&Db) -> Result<T, StoreError>,
) -> Result<T, StoreError> {
    let staged = dir.join(STAGED);
    let built = (|| {
        let io = |e| io_error(&staged, e);
        if staged.exists() {
            fs::remove_dir_all(&staged).map_err(io)?;
        }
        fs::create_dir(&staged).map_err(io)?;
        let config = sled::Config::new().path(&staged);
        let config = match flushes {
            Flushes::Background => config,
            Flushes::ByTheFill => config.flush_every_ms(None),
        };
        let db = config.open()?;
        let filled = fill(&db)?;
        db.flush()?;
        drop(db);
        wait_released(&staged.join("db")).map_err(io)?;
        sync_all(&staged).map_err(io)?;
        Ok(filled)
    })();
    if built.is_err() {
        let _ = fs::remove_dir_all(&staged);
    }
    built
}

/// Puts the database `build_beside` made in the place of `old`, in `dir`, removing the
/// old one unless `keep_old`.
pub(super) fn put_in_place(old: Db, dir: &Path, keep_old: bool) -> Result<(), StoreError> {
    let io = |e| io_error(dir, e);
    mark(&dir.join(STAGED), READY, !keep_old).map_err(io)?;
    // The old database is closed, and its last background write done, before its files
    // are moved: sled writes beside its log as it closes.
    drop(old);
    wait_released(&dir.join("db")).map_err(io)?;
    finish(dir).map_err(io)
}

/// Where the new database is built, in the data directory (named when migrations were
/// the only rewrite: older builds clear it too, as unfinished, if they find it unmarked).
const STAGED: &str = "migrating";
/// The file in `STAGED` that says the database in it is whole, checked and synced: from
/// the moment it exists, every open carries the migration through.
const READY: &str = "ready";
/// The same mark, once every file of the old database is moved aside.
const SWAPPING: &str = "swapping";
/// Where the old database's files are moved aside: removed once the new ones are in
/// place, or kept if the new one could not hold all of it (`put_in_place`).
pub const SET_ASIDE: &str = "before-layout-3";
/// What a mark holds: whether the old database is to be kept.
const KEEP: &[u8] = b"keep the old database";
const DROP: &[u8] = b"remove the old database";

/// The files sled keeps in its directory: its log, its configuration, its large values
/// and the snapshots of its page table (and one it never finished).
fn is_sleds(name: &str) -> bool {
    matches!(name, "db" | "conf" | "blobs") || name.starts_with("snap.")
}

/// Carries through a rewrite that was ready to take the database's place, or clears
/// one that was not: after it, `dir` holds one database. Idempotent, so that a stop at
/// any point is carried on by the next open.
pub(crate) fn finish(dir: &Path) -> io::Result<()> {
    let staged = dir.join(STAGED);
    let aside = dir.join(SET_ASIDE);
    let keep = match (read_mark(&staged, READY)?, read_mark(&staged, SWAPPING)?) {
        (_, Some(keep)) => keep,
        (Some(keep), None) => {
            fs::create_dir_all(&aside)?;
            for name in names(dir)?.iter().filter(|n| is_sleds(n)) {
                fs::rename(dir.join(name), aside.join(name))?;
            }
            // The old files are out of the way, durably, before the mark says so: after a
            // power cut, a new file must never land beside an old one.
            sync_dir(&aside)?;
            sync_dir(dir)?;
            fs::rename(staged.join(READY), staged.join(SWAPPING))?;
            sync_dir(&staged)?;
            keep
        }
        (None, None) => {
            if staged.exists() {
                fs::remove_dir_all(&staged)?;
            }
            return Ok(());
        }
    };
    for name in names(&staged)?.iter().filter(|n| is_sleds(n)) {
        fs::rename(staged.join(name), dir.join(name))?;
    }
    sync_dir(dir)?;
    if !keep {
        match fs::remove_dir_all(&aside) {
            Err(e) if e.kind() != io::ErrorKind::NotFound => return Err(e),
            _ => {}
        }
    }
    fs::remove_dir_all(&staged)?;
    sync_dir(dir)
}

/// The names in a directory.
fn names(dir: &Path) -> io::Result<Vec<String>> {
    let mut names = vec![];
    for entry in fs::read_dir(dir)? {
        if let Ok(name) = entry?.file_name().into_string() {
            names.push(name);
        }
    }
    Ok(names)
}

fn sync_dir(dir: &Path) -> io::Result<()> {
    File::open(dir)?.sync_all()
}

/// Writes the mark `name` in `staged`, durably.
fn mark(staged: &Path, name: &str, whole: bool) -> io::Result<()> {
    let mut file = File::create(staged.join(name))?;
    file.write_all(if whole { DROP } else { KEEP })?;
    file.sync_all()?;
    sync_dir(staged)
}

/// Whether the mark `name` is in `staged`, and if so whether it says to keep the old
/// database. A mark that says neither (it was being written when the process stopped)
/// is not there: it is written whole before it counts.
fn read_mark(staged: &Path, name: &str) -> io::Result<Option<bool>> {
    match fs::read(staged.join(name)) {
        Ok(said) if said == KEEP => Ok(Some(true)),
        Ok(said) if said == DROP => Ok(Some(false)),
        Ok(_) => Ok(None),
        Err(e)
            if matches!(
                e.kind(),
                io::ErrorKind::NotFound | io::ErrorKind::NotADirectory
            ) =>
        {
            Ok(None)
        }
        Err(e) => Err(e),
    }
}

/// How long a database just closed may hold its lock: as long as an open waits for it
/// (`LOCK_WAIT`), for the same reason (sled lets go once its last background write is done).
const RELEASE_WAIT: Duration = Duration::from_secs(3);

/// Waits until no one holds sled's lock on `log` (its last background write is done
/// once it lets go).
fn wait_released(log: &Path) -> io::Result<()> {
    let file = File::open(log)?;
    let deadline = Instant::now() + RELEASE_WAIT;
    loop {
        // SAFETY: flock on a descriptor this function owns, then let go of at once.
        let locked = unsafe { libc::flock(file.as_raw_fd(), libc::LOCK_EX | libc::LOCK_NB) };
        if locked == 0 {
            // SAFETY: as above.
            unsafe { libc::flock(file.as_raw_fd(), libc::LOCK_UN) };
            return Ok(());
        }
        if Instant::now() >= deadline {
            return Err(io::Error::other(
                "the database stayed locked after it was closed",
            ));
        }
        std::thread::sleep(Duration::from_millis(5));
    }
}

/// Syncs every file under `dir`, and the directories themselves.
fn sync_all(dir: &Path) -> io::Result<()> {
    for entry in fs::read_dir(dir)? {
        let path = entry?.path();
        if path.is_dir() {
            sync_all(&path)?;
        } else {
            File::open(&path)?.sync_all()?;
        }
    }
    sync_dir(dir)
}

fn io_error(dir: &Path, cause: io::Error) -> StoreError {
    if super::error::is_full(&cause) {
        return StoreError::DiskFull;
    }
    StoreError::Open {
        dir: dir.to_owned(),
        cause,
    }
}
