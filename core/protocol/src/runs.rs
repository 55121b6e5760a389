//! A daily run sent as it is played (`docs/live.md`, "Sending"): what the server says it
//! holds, and the refusal a client answers by asking where to send from.

use serde::{Deserialize, Serialize};

use crate::Outcome;

/// The largest stretch of events a server takes in one request: a client sends what it
/// has in stretches under this, and a run is never held up by one large request.
pub const MOST_STRETCH_BYTES: usize = 1 << 20;

/// `GET /runs/RUN`, and the answer to each stretch sent: what the server holds of a run.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Held {
    pub run: i64,
    pub player: String,
    pub day: String,
    pub ruleset: String,
    /// Where a client resumes sending.
    pub events: u64,
    /// How the game ended, once its events reach the end.
    pub outcome: Option<Outcome>,
    /// Why the server stopped the run, if it did.
    pub refused: Option<String>,
}

/// How a refusal of a stretch that starts past what the server holds begins (a 409):
/// the client asks where the server stands and sends from there, where every other 409
/// ends the sending.
const GAP: &str = "a gap";

/// The words refusing a stretch of `run` from `from` when the server holds `held` events.
pub fn gap(run: i64, held: u64, from: u64) -> String {
    format!(
        "{GAP}: the server holds {held} events of run {run}, and this stretch starts at \
         {from}; send from {held}"
    )
}

/// Whether a refusal's words are a gap's.
pub fn is_gap(words: &str) -> bool {
    words.starts_with(GAP)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn what_is_held_is_written_as_it_always_was() {
        let playing = Held {
            run: 7,
            player: "camel".into(),
            day: "2026-11-26".into(),
            ruleset: "nethack".into(),
            events: 120,
            outcome: None,
            refused: None,
        };
        assert_eq!(
            serde_json::to_string(&playing).unwrap(),
            r#"{"run":7,"player":"camel","day":"2026-11-26","ruleset":"nethack","events":120,"outcome":null,"refused":null}"#
        );
        let ended = Held {
            outcome: Some(Outcome::Died),
            ..playing
        };
        let json = serde_json::to_string(&ended).unwrap();
        assert!(json.contains(r#""outcome":"died""#), "{json}");
        assert_eq!(serde_json::from_str::<Held>(&json).unwrap(), ended);
        let unknown = json.replace("died", "exploded");
        assert!(serde_json::from_str::<Held>(&unknown).is_err());
    }

    #[test]
    fn a_gap_is_known_by_its_words() {
        let words = gap(7, 100, 140);
        assert_eq!(
            words,
            "a gap: the server holds 100 events of run 7, and this stretch starts at 140; \
             send from 100"
        );
        assert!(is_gap(&words));
        assert!(!is_gap(
            "event 3 differs from the one the server holds there"
        ));
    }
}
