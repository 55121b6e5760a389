//! The daily desert's answers (`docs/live.md`, "Starting the day's run"). A seed travels
//! as a decimal string: JavaScript's numbers cannot hold every `u64`.

use serde::{Deserialize, Serialize};

/// `GET /daily/DAY/RULESET.json`: a day's desert, its seed and salt only once the day is
/// over; the commitment, fixed before, is the SHA-256 of
/// `sandglass_claim::daily_commitment_line`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Day {
    /// `YYYY-MM-DD`, in UTC.
    pub day: String,
    pub ruleset: String,
    /// The rules version its runs are played under.
    pub rules: u16,
    /// Hexadecimal.
    pub commitment: String,
    pub over: bool,
    pub seed: Option<String>,
    pub salt: Option<String>,
}

/// `POST /daily/DAY/RULESET/start`: what a player who starts the day's run is given.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Started {
    pub run: i64,
    pub day: String,
    pub ruleset: String,
    pub rules: u16,
    pub seed: String,
    /// How many of the run's events the server holds already: none, since a start is
    /// given again only to a run whose answer was lost before it was sent anything.
    pub events: u64,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_day_is_written_as_it_always_was() {
        let today = Day {
            day: "2026-11-26".into(),
            ruleset: "nethack".into(),
            rules: 10,
            commitment: "ab12".into(),
            over: false,
            seed: None,
            salt: None,
        };
        assert_eq!(
            serde_json::to_string(&today).unwrap(),
            r#"{"day":"2026-11-26","ruleset":"nethack","rules":10,"commitment":"ab12","over":false,"seed":null,"salt":null}"#
        );
        let over = Day {
            over: true,
            seed: Some("18446744073709551615".into()),
            salt: Some("00ff".into()),
            ..today
        };
        let json = serde_json::to_string(&over).unwrap();
        assert!(
            json.ends_with(r#""over":true,"seed":"18446744073709551615","salt":"00ff"}"#),
            "{json}"
        );
        assert_eq!(serde_json::from_str::<Day>(&json).unwrap(), over);
    }

    #[test]
    fn a_start_is_written_as_docs_live_shows_it() {
        let started = Started {
            run: 12,
            day: "2026-11-26".into(),
            ruleset: "nethack".into(),
            rules: 10,
            seed: "1234567890123".into(),
            events: 0,
        };
        let json = r#"{"run":12,"day":"2026-11-26","ruleset":"nethack","rules":10,"seed":"1234567890123","events":0}"#;
        assert_eq!(serde_json::to_string(&started).unwrap(), json);
        assert_eq!(serde_json::from_str::<Started>(json).unwrap(), started);
    }
}
