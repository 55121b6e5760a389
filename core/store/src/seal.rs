//! The seal: how many times the database has been written and flushed, kept beside it in
//! a file of its own, so that a database that lost writes it had made (its file cut short,
//! or an older copy put in its place) is noticed when it is opened, instead of being read
//! as a shorter history. sled cannot tell: it takes a file cut short for a crash in the
//! middle of a write, and recovers what is left without a word.
//!
//! The count lives in the database too (`WRITES`), bumped with every flush. The seal is
//! written after the flush, so it is never ahead of a database that kept its writes; it
//! is not synced, so a crash of the machine may leave it behind, which proves nothing and
//! is never reported.

use std::fs::{File, OpenOptions};
use std::io::{self, Read};
use std::os::unix::fs::FileExt;
use std::path::{Path, PathBuf};

/// The seal's file name in the data directory.
pub const SEAL_FILE: &str = "sandglass.seal";

/// The key, in sled's default tree, of the count of writes.
pub(crate) const WRITES: &[u8] = b"writes";

/// The seal's file, open for the life of the store.
#[derive(Debug)]
pub(crate) struct Seal {
    file: File,
    path: PathBuf,
}

impl Seal {
    /// Opens (creating if needed) the seal in `dir`, and returns the count it holds, if it
    /// holds one (a new seal, or one not written whole, holds none).
    pub(crate) fn open(dir: &Path) -> io::Result<(Seal, Option<u64>)> {
        let path = dir.join(SEAL_FILE);
        let mut file = OpenOptions::new()
            .read(true)
            .write(true)
            .create(true)
            .truncate(false)
            .open(&path)?;
        let mut bytes = vec![];
        (&mut file).take(64).read_to_end(&mut bytes)?;
        Ok((Seal { file, path }, decode(&bytes)))
    }

    pub(crate) fn path(&self) -> &Path {
        &self.path
    }

    /// Records `writes`. A seal that cannot be written only stops guarding: the database
    /// holds the games, and the next write tries again.
    pub(crate) fn record(&self, writes: u64) {
        let _ = self.file.write_all_at(&encode(writes), 0);
    }
}

/// The count and its checksum (xxh3-64), both little-endian: one write of 16 bytes.
fn encode(writes: u64) -> [u8; 16] {
    let count = writes.to_le_bytes();
    let mut bytes = [0; 16];
    bytes[..8].copy_from_slice(&count);
    bytes[8..].copy_from_slice(&xxhash_rust::xxh3::xxh3_64(&count).to_le_bytes());
    bytes
}

fn decode(bytes: &[u8]) -> Option<u64> {
    let bytes: [u8; 16] = bytes.try_into().ok()?;
    let writes = u64::from_le_bytes(bytes[..8].try_into().ok()?);
    (encode(writes) == bytes).then_some(writes)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_seal_holds_its_count_and_nothing_else_passes_for_one() {
        let dir = tempfile::tempdir().unwrap();
        let (seal, found) = Seal::open(dir.path()).unwrap();
        assert_eq!(found, None);
        seal.record(41);
        seal.record(42);
        drop(seal);
        assert_eq!(Seal::open(dir.path()).unwrap().1, Some(42));
        let mut torn = encode(42);
        torn[3] ^= 1;
        assert_eq!(decode(&torn), None);
        assert_eq!(decode(&encode(7)[..15]), None);
    }
}
