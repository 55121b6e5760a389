//! A dealt run's answers (`docs/live.md`, "Dealt runs"): the server keeps the run's seed
//! and deals the draws the game needs, a step at a time, so that the desert cannot be
//! walked ahead in a second game. A state hash travels as hexadecimal and a seed as a
//! decimal string: JavaScript's numbers cannot hold every `u64`.

use serde::{Deserialize, Serialize};

use crate::Outcome;

/// The largest command a client sends in one request: a command is a few bytes, and a
/// dealt run takes one at a time.
pub const MOST_COMMAND_BYTES: usize = 64;

/// `POST /daily/DAY/RULESET/deal`: the player's dealt run of the day's desert, with its
/// opening dealt; never its seed.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Dealing {
    pub run: i64,
    pub day: String,
    pub ruleset: String,
    pub rules: u16,
    /// When the run started, in seconds since 1970 (UTC): its replay's `created_at`.
    pub started: u64,
    /// The draws of the first level, before the camel's first command.
    pub opening: Dealt,
}

/// `POST /runs/RUN/commands?at=N`, and a dealing's opening: the draws a command brought,
/// up to the camel's next command or the game's end, kept by the server before they
/// were dealt.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Dealt {
    pub run: i64,
    /// The index of the first draw dealt: the command's index plus one (0 for the
    /// opening).
    pub first: u64,
    pub draws: Vec<u32>,
    /// The state's hash once they are folded, in hexadecimal: the client's fold agrees,
    /// or it is not playing the server's game.
    pub hash: String,
    /// How many of the run's events the server holds: where the next command goes.
    pub events: u64,
    /// How the game ended, if these draws end it.
    pub outcome: Option<Outcome>,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_dealing_is_written_as_docs_live_shows_it() {
        let dealing = Dealing {
            run: 3,
            day: "2026-11-28".into(),
            ruleset: "nethack".into(),
            rules: 15,
            started: 1_795_000_000,
            opening: Dealt {
                run: 3,
                first: 0,
                draws: vec![7, 4_000_000_000],
                hash: "00ff00ff00ff00ff".into(),
                events: 0,
                outcome: None,
            },
        };
        let json = r#"{"run":3,"day":"2026-11-28","ruleset":"nethack","rules":15,"started":1795000000,"opening":{"run":3,"first":0,"draws":[7,4000000000],"hash":"00ff00ff00ff00ff","events":0,"outcome":null}}"#;
        assert_eq!(serde_json::to_string(&dealing).unwrap(), json);
        assert_eq!(serde_json::from_str::<Dealing>(json).unwrap(), dealing);
    }
}
