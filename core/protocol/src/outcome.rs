//! How a game ends, spelled one way: the verdicts and runs tables, every JSON answer and
//! the live stream's `end` all write these words, and reading any other is an error,
//! never a guess.

use std::fmt;
use std::str::FromStr;

use serde::{Deserialize, Serialize};

/// How a game that ended ended, as folding its log shows.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(into = "&'static str", try_from = "String")]
pub enum Outcome {
    /// The camel reached the oasis.
    Won,
    Died,
    /// The player gave the game up.
    Quit,
}

impl Outcome {
    pub const ALL: [Outcome; 3] = [Outcome::Won, Outcome::Died, Outcome::Quit];

    pub fn as_str(self) -> &'static str {
        match self {
            Outcome::Won => "won",
            Outcome::Died => "died",
            Outcome::Quit => "quit",
        }
    }
}

/// How a watched run came to an end, as the live stream's `end` says: its game's
/// outcome, or a run that will not go on.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(into = "&'static str", try_from = "String")]
pub enum Ending {
    Outcome(Outcome),
    /// The player stopped sending, and the day is over: the game is left where it stood.
    Abandoned,
    /// The server stopped the run on an event that does not follow.
    Refused,
}

impl Ending {
    pub const ALL: [Ending; 5] = [
        Ending::Outcome(Outcome::Won),
        Ending::Outcome(Outcome::Died),
        Ending::Outcome(Outcome::Quit),
        Ending::Abandoned,
        Ending::Refused,
    ];

    pub fn as_str(self) -> &'static str {
        match self {
            Ending::Outcome(outcome) => outcome.as_str(),
            Ending::Abandoned => "abandoned",
            Ending::Refused => "refused",
        }
    }
}

/// A word that names no outcome this build knows: a newer peer's, or a damaged one.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct UnknownOutcome(pub String);

impl fmt::Display for UnknownOutcome {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "`{}` is an outcome this build does not know", self.0)
    }
}

impl std::error::Error for UnknownOutcome {}

/// The one of `all` spelled `word`.
fn by_word<T: Copy>(all: &[T], as_str: fn(T) -> &'static str, word: &str) -> Option<T> {
    all.iter().copied().find(|&one| as_str(one) == word)
}

impl FromStr for Outcome {
    type Err = UnknownOutcome;

    fn from_str(word: &str) -> Result<Outcome, UnknownOutcome> {
        by_word(&Outcome::ALL, Outcome::as_str, word).ok_or_else(|| UnknownOutcome(word.into()))
    }
}

impl FromStr for Ending {
    type Err = UnknownOutcome;

    fn from_str(word: &str) -> Result<Ending, UnknownOutcome> {
        by_word(&Ending::ALL, Ending::as_str, word).ok_or_else(|| UnknownOutcome(word.into()))
    }
}

impl fmt::Display for Outcome {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl fmt::Display for Ending {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl From<Outcome> for &'static str {
    fn from(outcome: Outcome) -> &'static str {
        outcome.as_str()
    }
}

impl From<Ending> for &'static str {
    fn from(ending: Ending) -> &'static str {
        ending.as_str()
    }
}

impl TryFrom<String> for Outcome {
    type Error = UnknownOutcome;

    fn try_from(word: String) -> Result<Outcome, UnknownOutcome> {
        word.parse()
    }
}

impl TryFrom<String> for Ending {
    type Error = UnknownOutcome;

    fn try_from(word: String) -> Result<Ending, UnknownOutcome> {
        word.parse()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_outcome_is_spelled_as_the_tables_check_it() {
        // server/migrations: `outcome IN ('won', 'died', 'quit')`.
        let words: Vec<&str> = Outcome::ALL.iter().map(|o| o.as_str()).collect();
        assert_eq!(words, ["won", "died", "quit"]);
        for outcome in Outcome::ALL {
            assert_eq!(outcome.as_str().parse(), Ok(outcome));
            let json = serde_json::to_string(&outcome).unwrap();
            assert_eq!(json, format!("\"{outcome}\""));
            assert_eq!(serde_json::from_str::<Outcome>(&json).unwrap(), outcome);
        }
    }

    #[test]
    fn an_ending_is_an_outcome_or_a_run_that_stopped() {
        let words: Vec<&str> = Ending::ALL.iter().map(|e| e.as_str()).collect();
        assert_eq!(words, ["won", "died", "quit", "abandoned", "refused"]);
        for ending in Ending::ALL {
            let json = serde_json::to_string(&ending).unwrap();
            assert_eq!(serde_json::from_str::<Ending>(&json).unwrap(), ending);
        }
    }

    /// An outcome a build does not know is an error, not the nearest one it does.
    #[test]
    fn an_unknown_outcome_is_refused() {
        assert_eq!(
            "exploded".parse::<Outcome>(),
            Err(UnknownOutcome("exploded".into()))
        );
        for word in ["abandoned", "refused", "Won", ""] {
            assert!(word.parse::<Outcome>().is_err(), "{word}");
        }
        assert!("quitted".parse::<Ending>().is_err());
        let error = serde_json::from_str::<Ending>("\"exploded\"").unwrap_err();
        assert!(
            error.to_string().contains("`exploded` is an outcome"),
            "{error}"
        );
    }
}
