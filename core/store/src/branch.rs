//! Where a branch came from. A game taken over from a replay (of a stored game or of a
//! replay file), or saved as another, did not start where the games played from their
//! start did: taking over at the last safe turn of a lost game is a second try, and such
//! a game is never ranked with them. A fork of a stored game shares its history
//! (`GameMeta::shared`), which says that much by itself; a take-over from a replay file
//! shares nothing, so every branch made by this build is also written down in
//! `layout::BRANCHES`, with the game and turn it came from, before its record (so that no
//! record is without it). Forks made before it was kept are still known by their shared
//! history, from the game they share it with.

use std::fmt;

use serde::{Deserialize, Serialize};

use super::db::Store;
use super::error::StoreError;
use super::{GameId, GameMeta};

/// Where a branch came from.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Branch {
    /// The name of the game, or of the replay file, it was taken over from.
    pub from: String,
    /// The turn it was taken over at; not known for forks made before it was kept.
    pub turn: Option<u64>,
}

impl fmt::Display for Branch {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.turn {
            Some(turn) => write!(f, "from turn {turn} of {}", self.from),
            None => write!(f, "from {}", self.from),
        }
    }
}

/// bincode's standard encoding, bounded as a record's is: a name of at most 64 characters
/// (a file's name may be longer, and is cut to fit) and a number.
fn config() -> impl bincode::config::Config {
    bincode::config::standard().with_limit::<4096>()
}

/// The longest origin kept, in characters: a replay file's name can be as long as its
/// file system allows.
const FROM_CHARS: usize = 200;

impl Store {
    /// Writes down that game `id`, about to be recorded, is a branch.
    pub(super) fn mark_branch(&self, id: GameId, branch: &Branch) -> Result<(), StoreError> {
        let branch = Branch {
            from: branch.from.chars().take(FROM_CHARS).collect(),
            turn: branch.turn,
        };
        let value = bincode::serde::encode_to_vec(&branch, config())
            .expect("a branch of a bounded name always encodes");
        self.branches.insert(id.key(), value)?;
        Ok(())
    }

    /// Where the game came from, if it is a branch: as written down, or, for a fork made
    /// before that was, the game it shares its history with. A mark that does not decode
    /// still says the game is a branch.
    pub fn branch_of(&self, meta: &GameMeta) -> Result<Option<Branch>, StoreError> {
        if let Some(value) = self.branches.get(meta.id.key())? {
            let decoded = bincode::serde::decode_from_slice(&value, config());
            return Ok(Some(match decoded {
                Ok((branch, read)) if read == value.len() => branch,
                _ => Branch {
                    from: "a game whose name cannot be read".into(),
                    turn: None,
                },
            }));
        }
        let Some(span) = meta.shared.iter().find(|span| span.to > 0) else {
            return Ok(None);
        };
        let from = match self.meta(span.game) {
            Ok(source) => source.name,
            Err(_) => "a deleted game".into(),
        };
        Ok(Some(Branch { from, turn: None }))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_branch_says_where_it_came_from() {
        let branch = Branch {
            from: "dunes".into(),
            turn: Some(120),
        };
        assert_eq!(branch.to_string(), "from turn 120 of dunes");
        let older = Branch {
            from: "dunes".into(),
            turn: None,
        };
        assert_eq!(older.to_string(), "from dunes");
    }
}
