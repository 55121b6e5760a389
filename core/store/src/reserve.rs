//! Room kept for a full disk. sled cannot open a database without writing to it (its
//! recovery may start a new segment of its log and write a snapshot of its page table),
//! so on a full disk even listing the games would fail. Each data directory keeps a
//! reserve file of `RESERVE_BYTES`; an open that finds the disk full gives it up and tries
//! again, so that the games stored can still be listed, loaded and exported. A store that
//! had to give up its reserve to open takes no new writes (no new game, no step, no fork,
//! no import): the room it freed is for reading, not to be played away. Each open makes
//! the reserve whole again, or as nearly as the disk allows.

use std::fs;
use std::io::Write;
use std::path::Path;

/// The reserve's file name in the data directory.
pub const RESERVE_FILE: &str = "sandglass.reserve";

/// Two of sled's 512 KiB log segments: what its recovery may need, with room to spare.
const RESERVE_BYTES: usize = 1 << 20;

/// Makes the reserve whole, or as nearly whole as the disk allows (a part of it still
/// lets a later open through).
pub(crate) fn keep(dir: &Path) {
    let path = dir.join(RESERVE_FILE);
    let Ok(mut file) = fs::OpenOptions::new().create(true).append(true).open(&path) else {
        return;
    };
    let Ok(held) = file.metadata().map(|m| m.len() as usize) else {
        return;
    };
    // Written out a block at a time, not `set_len`: a sparse file holds no room at all.
    // Not synced: the file system takes the room when the bytes are written.
    let block = [0; 4096];
    let mut size = held;
    while size < RESERVE_BYTES && file.write_all(&block).is_ok() {
        size += block.len();
    }
}

/// Gives up the reserve, if there is one to give up.
pub(crate) fn release(dir: &Path) -> bool {
    fs::remove_file(dir.join(RESERVE_FILE)).is_ok()
}
