//! What can go wrong with saved games and replay files, in words a player can act on.
//!
//! Each message is whole: causes are part of the text, not `source()`, so that printing
//! an error with its chain never says the same thing twice.

use std::io;
use std::path::PathBuf;

use thiserror::Error;

use sandglass_replay::ReplayError;
use sandglass_sim::HeaderError;
use sandglass_sim::{CheckError, Rejection};

/// A failure of the game database in a data directory.
#[derive(Debug, Error)]
pub enum StoreError {
    #[error("the data directory {} is in use by another sandglass process; close that one first", .dir.display())]
    InUse { dir: PathBuf },
    #[error("cannot write to the data directory {} ({cause}); fix its permissions or choose another with --data-dir", .dir.display())]
    ReadOnly { dir: PathBuf, cause: io::Error },
    #[error("cannot open the data directory {} ({cause}); nothing in it was changed. If its disk is failing, check the disk and start again; otherwise choose another directory with --data-dir", .dir.display())]
    Open { dir: PathBuf, cause: io::Error },
    #[error("the data directory {} holds a game database in layout {found}, and this build reads layout {supported}; use the Sandglass that wrote it, or choose another directory with --data-dir", .dir.display())]
    Layout {
        dir: PathBuf,
        found: u16,
        supported: u16,
    },
    #[error("no game is named or numbered `{0}`; `sandglass saves` lists the games")]
    NoSuchGame(String),
    #[error("a game named `{0}` already exists; choose another name")]
    NameTaken(String),
    #[error("`{name}` cannot be a game name: {reason}")]
    BadName { name: String, reason: &'static str },
    #[error("cannot keep where the game is streamed: {0}")]
    BadStream(&'static str),
    #[error("game `{name}` cannot be opened by this build: {cause}")]
    Version { name: String, cause: HeaderError },
    #[error("game `{name}` is damaged: {what}")]
    Damaged { name: String, what: String },
    #[error("game `{name}` cannot be forked at event {at}: that is not between two commands")]
    NotAStop { name: String, at: u64 },
    #[error("the game database could not be moved to this build's layout: game `{name}`: {what}; it is left as it was, for the Sandglass that wrote it")]
    Migration { name: String, what: String },
    #[error("game `{name}` stopped saving after an earlier write failed; reopen it to go on")]
    Broken { name: String },
    #[error("game `{name}` is a dealt run: its draws come only from its server, for the command sent there")]
    Dealt { name: String },
    #[error("game `{name}` is not a dealt run: its draws come from its own seed")]
    NotDealt { name: String },
    #[error("game `{name}` waits on the server's draws for the command it sent; nothing else can be sent until they come")]
    Waiting { name: String },
    #[error("the server's draws for game `{name}` do not fit its step ({cause}); nothing was kept: it is not playing the game its server holds")]
    Misdealt {
        name: String,
        cause: sandglass_sim::DealtError,
    },
    #[error(transparent)]
    Replay(#[from] ReplayFileError),
    #[error("the game database in {} holds {writes} writes, but it had made {sealed} when it was last used: its file was cut short, or replaced by an older copy. Restore the directory from a backup; to open what is left of it anyway, delete {}", .dir.display(), .seal.display())]
    Lost {
        dir: PathBuf,
        writes: u64,
        sealed: u64,
        seal: PathBuf,
    },
    #[error("the disk holding the game database is full; free some space and try again (everything saved before is intact)")]
    DiskFull,
    #[error("the disk failed to save the game ({}: {cause}); everything acknowledged before is safe on it, this last step may not be. Sandglass saves nothing more until it is started again: check the disk, then start Sandglass to go on from the last saved step", .file.display())]
    SyncFailed { file: PathBuf, cause: io::Error },
    #[error("nothing more is saved in {} since the disk failed to save a step; check the disk, then start Sandglass again to go on from the last saved step", .dir.display())]
    Stopped { dir: PathBuf },
    #[error("the game database is damaged: part of its file cannot be read; restore the data directory from a backup, or move it aside to start afresh")]
    Corrupt,
    #[error("the game database failed ({0}); try again, and if it goes on failing, restore the data directory from a backup")]
    Db(String),
}

// Written out rather than `#[from]`, which would also make the sled error the `source`:
// the message already says it, and `{:#}` would say it twice. sled's own messages are
// written for its developers; these say what happened and what to do.
impl From<sled::Error> for StoreError {
    fn from(error: sled::Error) -> Self {
        match error {
            sled::Error::Io(e) if is_full(&e) => StoreError::DiskFull,
            sled::Error::Io(e) => StoreError::Db(e.to_string()),
            sled::Error::Corruption { .. } => StoreError::Corrupt,
            other => StoreError::Db(other.to_string()),
        }
    }
}

/// Whether a write failed for want of room. sled passes on copies of its errors that keep
/// the kind but not the OS error number.
pub(crate) fn is_full(error: &io::Error) -> bool {
    matches!(
        error.kind(),
        io::ErrorKind::StorageFull | io::ErrorKind::QuotaExceeded
    )
}

/// A replay file (`.sgr`) that cannot be read, written or trusted. The caller names the
/// file; these messages say what is wrong with it.
#[derive(Debug, Error)]
pub enum ReplayFileError {
    #[error("cannot read it: {0}")]
    Read(io::Error),
    #[error("cannot write it: {0}")]
    Write(io::Error),
    #[error("there is no file at that path")]
    NoFile,
    #[error("it is not a regular file (a directory, a device or a pipe)")]
    NotAFile,
    /// Its bytes are not a replay this build reads (`sandglass_replay`).
    #[error(transparent)]
    Bytes(#[from] ReplayError),
    #[error(transparent)]
    Check(#[from] CheckError),
}

/// Why a command in a saved game did not go through.
#[derive(Debug, Error)]
pub enum PlayError {
    /// The command is not legal now; nothing was played or written.
    #[error(transparent)]
    Rejected(#[from] Rejection),
    /// The command was played but could not be saved; the session takes no more commands.
    #[error(transparent)]
    Store(#[from] StoreError),
}
