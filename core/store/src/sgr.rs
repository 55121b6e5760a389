//! Replay files (`.sgr`) on disk: opening one and refusing what no replay can be (not a
//! regular file, too large) before its bytes are read, and writing one whole or not at
//! all. The bytes themselves are written and checked by `sandglass_replay`, which builds
//! without a file system (for the browser and WASI); its items are re-exported here.

use std::fs;
use std::io::{Read, Write};
use std::os::unix::fs::OpenOptionsExt;
use std::path::Path;

use sandglass_replay::{check_preamble, check_size, PREAMBLE};
use sandglass_sim::Recording;

pub use sandglass_replay::{to_bytes, MAGIC, MOST_FILE_BYTES, VERSION};

use super::error::ReplayFileError;

/// Reads and parses the replay file at `path`, checking what can be checked before the
/// bulk is read: that it is a regular file (a pipe or a device could block or never end),
/// its size against `MOST_FILE_BYTES`, then its magic, version and length. Nothing is
/// folded: check the recording (`Recording::check`) before trusting it.
pub fn read(path: &Path) -> Result<Recording, ReplayFileError> {
    // Looked at before it is opened, since opening a pipe waits for its writer; and again
    // once open, as the file then open is the one read.
    let regular = |meta: fs::Metadata| {
        if meta.is_file() {
            Ok(meta.len())
        } else {
            Err(ReplayFileError::NotAFile)
        }
    };
    let meta = fs::metadata(path).map_err(|error| match error.kind() {
        std::io::ErrorKind::NotFound => ReplayFileError::NoFile,
        _ => ReplayFileError::Read(error),
    })?;
    regular(meta)?;
    let mut file = fs::OpenOptions::new()
        .read(true)
        .custom_flags(libc::O_NONBLOCK)
        .open(path)
        .map_err(ReplayFileError::Read)?;
    let size = regular(file.metadata().map_err(ReplayFileError::Read)?)?;
    check_size(size)?;
    let mut preamble = Vec::with_capacity(PREAMBLE);
    (&mut file)
        .take(PREAMBLE as u64)
        .read_to_end(&mut preamble)
        .map_err(ReplayFileError::Read)?;
    check_preamble(&preamble, size)?;
    let mut bytes = preamble;
    bytes.reserve_exact(size as usize - PREAMBLE);
    // One byte more than the size, to notice a file that grew while it was read.
    file.take(size + 1 - PREAMBLE as u64)
        .read_to_end(&mut bytes)
        .map_err(ReplayFileError::Read)?;
    Ok(sandglass_replay::from_bytes(&bytes)?)
}

/// Writes the file whole or not at all: to a temporary file beside it, synced, then
/// renamed over `path`.
pub fn write(recording: &Recording, path: &Path) -> Result<(), ReplayFileError> {
    let file_name = path.file_name().ok_or_else(|| {
        ReplayFileError::Write(std::io::Error::new(
            std::io::ErrorKind::InvalidInput,
            "the path names no file",
        ))
    })?;
    let mut temp_name = std::ffi::OsString::from(".");
    temp_name.push(file_name);
    temp_name.push(format!(".{}.tmp", std::process::id()));
    let temp = path.with_file_name(temp_name);
    let bytes = to_bytes(recording);
    let written = (|| {
        let mut file = fs::File::create(&temp)?;
        file.write_all(&bytes)?;
        file.sync_all()?;
        fs::rename(&temp, path)
    })();
    if written.is_err() {
        // Best effort: the temporary file may not even exist.
        let _ = fs::remove_file(&temp);
    }
    written.map_err(ReplayFileError::Write)
}

/// Parses a replay file's bytes (`sandglass_replay::from_bytes`), with the error a file
/// gets.
pub fn from_bytes(bytes: &[u8]) -> Result<Recording, ReplayFileError> {
    Ok(sandglass_replay::from_bytes(bytes)?)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::bot_recording;
    use sandglass_replay::ReplayError;

    fn small() -> Recording {
        bot_recording(3, 20)
    }

    #[test]
    fn written_files_are_read_back_and_leave_no_temporary_behind() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("game.sgr");
        let file = small();
        write(&file, &path).unwrap();
        assert_eq!(read(&path).unwrap(), file);
        let names: Vec<_> = fs::read_dir(dir.path()).unwrap().collect();
        assert_eq!(names.len(), 1);
    }

    #[test]
    fn only_regular_files_are_read_and_only_up_to_a_size() {
        let dir = tempfile::tempdir().unwrap();
        assert!(matches!(read(dir.path()), Err(ReplayFileError::NotAFile)));
        assert!(matches!(
            read(&dir.path().join("gone.sgr")),
            Err(ReplayFileError::NoFile)
        ));
        assert!(matches!(
            read(Path::new("/dev/zero")),
            Err(ReplayFileError::NotAFile)
        ));
        // A pipe with no writer: refused at once, not waited on.
        let fifo = dir.path().join("pipe.sgr");
        let made = std::process::Command::new("mkfifo").arg(&fifo).status();
        assert!(made.unwrap().success());
        assert!(matches!(read(&fifo), Err(ReplayFileError::NotAFile)));
        // Huge and sparse: refused by its size before a byte is read.
        let huge = dir.path().join("huge.sgr");
        fs::File::create(&huge).unwrap().set_len(3 << 30).unwrap();
        assert!(matches!(
            read(&huge),
            Err(ReplayFileError::Bytes(ReplayError::TooLarge { size, .. })) if size == 3 << 30
        ));
        // Under the limit, but not a replay: its magic is read, nothing more.
        let big = dir.path().join("big.sgr");
        let mut file = fs::File::create(&big).unwrap();
        file.write_all(b"not a replay").unwrap();
        file.set_len(MOST_FILE_BYTES).unwrap();
        assert!(matches!(
            read(&big),
            Err(ReplayFileError::Bytes(ReplayError::Foreign))
        ));
    }
}
