//! A run watched live (`docs/live.md`, "Watching"): the server-sent events' names and
//! the JSON of those that carry it. The native client and the web viewer read them
//! through the same code; `web/sandglass.js` listens by the same names.

use serde::{Deserialize, Serialize};

use crate::Ending;

/// The first message: the run, as `Header` says it.
pub const HEADER: &str = "header";
/// A stretch of events: `id: END`, `data: FIRST BASE64`.
pub const EVENTS: &str = "events";
/// The last message: how the run ended, as `End` says it.
pub const END: &str = "end";
/// Nothing new: the connection holds (so that no proxy closes an idle one).
pub const ALIVE: &str = "alive";
/// The server is going away; its data says so in words. A viewer connects again.
pub const STOPPING: &str = "stopping";

/// The `header` message's data: the run, its player, day and rules, and its seed once the
/// day is over (the server checks every draw itself until then). Its fields are in the
/// order the server always wrote them, by name.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Header {
    pub day: String,
    pub player: String,
    pub rules: u16,
    pub ruleset: String,
    /// The run's number, here as a string: a viewer only names the run by it.
    pub run: String,
    /// A decimal string, as JavaScript's numbers cannot hold every `u64`; null while the
    /// server keeps it.
    pub seed: Option<String>,
}

/// The `end` message's data.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct End {
    pub outcome: Ending,
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Outcome;

    #[test]
    fn a_header_is_written_as_it_always_was() {
        let header = Header {
            day: "2026-11-26".into(),
            player: "camel".into(),
            rules: 10,
            ruleset: "nethack".into(),
            run: "12".into(),
            seed: None,
        };
        let json = r#"{"day":"2026-11-26","player":"camel","rules":10,"ruleset":"nethack","run":"12","seed":null}"#;
        assert_eq!(serde_json::to_string(&header).unwrap(), json);
        assert_eq!(serde_json::from_str::<Header>(json).unwrap(), header);
        // As docs/live.md shows it, in another order: read by name.
        let documented = r#"{"run":"12","player":"camel","day":"2026-11-26","ruleset":"nethack","rules":10,"seed":"42"}"#;
        let read: Header = serde_json::from_str(documented).unwrap();
        assert_eq!(read.seed.as_deref(), Some("42"));
    }

    #[test]
    fn an_end_is_written_as_it_always_was() {
        let end = End {
            outcome: Ending::Outcome(Outcome::Died),
        };
        assert_eq!(
            serde_json::to_string(&end).unwrap(),
            r#"{"outcome":"died"}"#
        );
        let abandoned = r#"{"outcome":"abandoned"}"#;
        assert_eq!(
            serde_json::from_str::<End>(abandoned).unwrap().outcome,
            Ending::Abandoned
        );
        assert!(serde_json::from_str::<End>(r#"{"outcome":"exploded"}"#).is_err());
    }
}
