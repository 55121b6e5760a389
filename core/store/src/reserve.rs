//! Room kept for a full disk. sled cannot open a database without writing to it (its
//! recovery may start a new segment of its log and write a snapshot of its page table),
//! so on a full disk even listing the games would fail. Each data directory keeps a
//! reserve file of `RESERVE_BYTES`; an open that finds the disk full gives it up and tries
//! again, so that the games stored can still be listed, loaded and exported. A store that
//! had to give up its reserve to open takes no new writes (no new game, no step, no fork,
//! no import): the room it freed is for reading, not to be played away. Each open makes
//! the reserve whole again, or as nearly as the disk allows.
//!
//! Tidying up (removing the steps of a game no record holds any more) is a write too, and
//! one that takes room before it gives any back: it goes on only while the disk has
//! `TIDY_ROOM` free beside the reserve (`room_to_tidy`).

use std::ffi::CString;
use std::fs;
use std::io::Write;
use std::mem::MaybeUninit;
use std::os::unix::ffi::OsStrExt;
use std::path::Path;

/// The reserve's file name in the data directory.
pub const RESERVE_FILE: &str = "sandglass.reserve";

/// Two of sled's 512 KiB log segments: what its recovery may need, with room to spare.
const RESERVE_BYTES: usize = 1 << 20;

/// The room the disk must have free for the store to go on tidying up. A removal from
/// sled is written to its log like an insert, so the removal of a large game takes room
/// first; and once a write of sled's own fails for want of room, sled fails every later
/// call of the process, reads too: a store that tidied a full disk could then list and
/// export nothing. Checked before each batch of removals (`db::TIDY_BATCH`), it leaves
/// room for a new 512 KiB segment of sled's log and the batch, with room to spare.
pub(crate) const TIDY_ROOM: u64 = 1 << 20;

/// Whether the disk holding `dir` has room to go on tidying up (`TIDY_ROOM`); not if
/// that cannot be told.
pub(crate) fn room_to_tidy(dir: &Path) -> bool {
    has_room(dir, TIDY_ROOM)
}

/// Whether the disk holding `dir` has `bytes` free; not if that cannot be told.
pub(crate) fn has_room(dir: &Path, bytes: u64) -> bool {
    free_bytes(dir).is_some_and(|free| free >= bytes)
}

/// The bytes this process may still write on the file system holding `dir`.
fn free_bytes(dir: &Path) -> Option<u64> {
    let path = CString::new(dir.as_os_str().as_bytes()).ok()?;
    let mut stat = MaybeUninit::<libc::statvfs>::zeroed();
    // SAFETY: `path` is a NUL-terminated string and `stat` a buffer of the right type,
    // both alive for the call; `statvfs` writes only into `stat`.
    if unsafe { libc::statvfs(path.as_ptr(), stat.as_mut_ptr()) } != 0 {
        return None;
    }
    // SAFETY: `statvfs` returned 0, so it filled `stat` in.
    let stat = unsafe { stat.assume_init() };
    // Both are `u64` on 64-bit Linux, narrower on some other targets.
    #[allow(clippy::useless_conversion)]
    let (blocks, block_size) = (u64::from(stat.f_bavail), u64::from(stat.f_frsize));
    blocks.checked_mul(block_size)
}

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
