//! Where durability is decided: nothing is acknowledged until the operating system has
//! said that it is on the disk.
//!
//! sled's `flush` writes its log and ends, on Linux, in `sync_file_range`, which persists
//! neither the file's metadata (the log grows, and its length is metadata) nor the drive's
//! volatile cache: a power cut may lose what it "flushed". So after every flush the store
//! calls `fdatasync` on sled's log file, and `fsync` on the data directory, whose entries
//! sled changes when it creates its files and renames a snapshot of its page table into
//! place. Only then is the write counted in the seal and the command acknowledged
//! (`Store::commit`).
//!
//! A failed sync is final for the process, as SQLite and PostgreSQL (since the fsync
//! failures of 2018) treat it: the kernel may have dropped the pages it could not write
//! and marked them clean, so a later sync that succeeds proves nothing about them. The
//! store then takes no more writes; the next process to open the directory checks the
//! database against its seal and log before anything is played on.

use std::fs::File;
use std::io;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Mutex;
use std::time::{Duration, SystemTime};

use crate::error::StoreError;

/// sled's log, in its directory: every value it stores is written there.
const SLED_LOG: &str = "db";

/// How long before a sync the directory must have last changed for its modification
/// time to vouch that it has not changed since: the clock that stamps it ticks coarsely
/// (a jiffy, up to 10 ms), so a change in the same tick as the last one keeps the stamp.
const SETTLED: Duration = Duration::from_millis(100);

/// The files whose syncing makes a flushed write durable, open for the life of the store.
#[derive(Debug)]
pub(crate) struct Durability {
    dir: PathBuf,
    log: File,
    dir_handle: File,
    /// When the directory's entries last changed, as of its last sync, once that moment
    /// was `SETTLED` in the past: a directory whose entries have not changed since needs
    /// no sync (one costs a tenth of a step).
    dir_synced: Mutex<Option<SystemTime>>,
    failed: AtomicBool,
}

impl Durability {
    /// Opens sled's log and the data directory, and syncs the directory (opening may have
    /// created the database's files) and, if the directory was `made` just now, the one
    /// holding it.
    pub(crate) fn open(dir: &Path, made: bool) -> io::Result<Durability> {
        if made {
            let parent = dir.parent().filter(|p| !p.as_os_str().is_empty());
            File::open(parent.unwrap_or(Path::new(".")))?.sync_all()?;
        }
        let durability = Durability {
            dir: dir.to_owned(),
            log: File::open(dir.join(SLED_LOG))?,
            dir_handle: File::open(dir)?,
            dir_synced: Mutex::new(None),
            failed: AtomicBool::new(false),
        };
        durability.sync_dir()?;
        Ok(durability)
    }

    /// Makes what sled has flushed durable: `fdatasync` of its log, then `fsync` of the
    /// directory if its entries changed. The first failure is final: `check` fails from
    /// then on.
    pub(crate) fn sync(&self) -> Result<(), StoreError> {
        let synced = self
            .log
            .sync_data()
            .map_err(|e| (self.dir.join(SLED_LOG), e))
            .and_then(|()| self.sync_dir().map_err(|e| (self.dir.clone(), e)));
        synced.map_err(|(file, cause)| {
            self.failed.store(true, Ordering::SeqCst);
            StoreError::SyncFailed { file, cause }
        })
    }

    /// `fsync` of the directory, unless its entries are as they were when it was last
    /// synced: its modification time, which every creation, rename and removal of an
    /// entry moves on, is the one recorded then, and was already `SETTLED` in the past.
    fn sync_dir(&self) -> io::Result<()> {
        let changed = self.dir_handle.metadata()?.modified()?;
        let mut synced = self.dir_synced.lock().unwrap_or_else(|e| e.into_inner());
        if *synced != Some(changed) {
            self.dir_handle.sync_all()?;
            let settled = changed
                .checked_add(SETTLED)
                .is_some_and(|t| t < crate::file_clock());
            *synced = settled.then_some(changed);
        }
        Ok(())
    }

    /// Fails once a sync has failed: the store takes no more writes in this process.
    pub(crate) fn check(&self) -> Result<(), StoreError> {
        match self.failed.load(Ordering::SeqCst) {
            true => Err(StoreError::Stopped {
                dir: self.dir.clone(),
            }),
            false => Ok(()),
        }
    }
}
