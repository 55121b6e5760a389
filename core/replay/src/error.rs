//! What can be wrong with a replay file's bytes, in words a player can act on. The
//! caller names the file; these messages say what is wrong with it.

use thiserror::Error;

use sandglass_sim::HeaderError;

/// Bytes that are not a replay this build can read.
#[derive(Debug, Error)]
pub enum ReplayError {
    #[error("the file is empty")]
    Empty,
    #[error("the file is {size} bytes, more than any replay (at most {most})")]
    TooLarge { size: u64, most: u64 },
    #[error("this is not a Sandglass replay file")]
    Foreign,
    #[error("it was written by a newer Sandglass (replay format {found}; this build reads format {supported}); update Sandglass to open it")]
    Newer { found: u16, supported: u16 },
    #[error("the file is truncated: it holds {found} bytes and needs at least {expected}")]
    Truncated { found: u64, expected: u64 },
    #[error("the file is damaged: its checksum does not match its contents")]
    Checksum,
    #[error("the file is damaged: {0}")]
    Malformed(&'static str),
    #[error(transparent)]
    Header(#[from] HeaderError),
}
