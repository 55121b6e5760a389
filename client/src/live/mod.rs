//! Watching a game while it is played: what a server's live stream says, in the words of
//! the simulation. `GET {server}/runs/{run}/live` answers server-sent events: a `header`
//! (the run, its rules, seed and player), then `events` stretches (`first` and the
//! stretch's bytes, `sandglass_replay::events_to_bytes`, in base64), then `end` with
//! the outcome. A stretch may begin or end mid-step; a viewer that reconnects says how
//! many events it holds (`?from=N`), and a stretch that repeats some is trimmed here.
//!
//! Nothing here touches the network: `stream` reads the events on a thread in the native
//! client, the page's `EventSource` in a browser (`window::web`), and both hand what they
//! read to the same functions.

#[cfg(not(target_arch = "wasm32"))]
pub mod stream;

use std::fmt;

use sandglass_protocol::live::End;
use sandglass_replay::events_from_bytes;
use sandglass_replay::verdict::Verdict;
use sandglass_sim::timeline::Timeline;
use sandglass_sim::{Event, Header, Need, Rules, RulesVersion, Ruleset};

pub use sandglass_protocol::Ending;

/// A line of the stream longer than this is refused: no stretch a server sends is
/// anywhere near it, and a viewer does not hold an endless line in memory.
pub const MOST_LINE_BYTES: usize = 1 << 20;

/// How long a connection may say nothing before it is taken as lost and another is
/// made. The server says something at least every 15 seconds (`alive` when there is no
/// news, docs/live.md): a server that stopped without closing the connection, or a
/// network that drops its packets, is noticed after two such silences and a margin.
pub const SILENT_FOR: std::time::Duration = std::time::Duration::from_secs(40);

/// The run being watched, as its `header` message names it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Run {
    pub run: String,
    pub player: String,
    pub day: String,
    /// The tape's header: the rules, ruleset and seed the game is played under.
    pub header: Header,
    /// Whether the header's seed is the game's: a server may keep a day's seed until the
    /// day is over (it checks the draws itself), and the header's is then 0.
    pub seed_known: bool,
}

impl Run {
    /// The run in words, as the page's status and verdict name it.
    pub fn name(&self) -> String {
        format!("{}'s run of {} (run {})", self.player, self.day, self.run)
    }
}

/// Why a stream is not followed further, in words for the player.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Refusal(pub String);

impl fmt::Display for Refusal {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

fn refuse(what: impl fmt::Display) -> Refusal {
    Refusal(what.to_string())
}

/// The run's address from the URL a player gave: without `/live`, a query or a last `/`.
pub fn run_url(url: &str) -> String {
    let url = url.split(['?', '#']).next().unwrap_or(url);
    let url = url.trim_end_matches('/');
    url.strip_suffix("/live").unwrap_or(url).to_owned()
}

/// Where the stream of the run at `run` is read from, for a viewer holding `held` events.
pub fn live_url(run: &str, held: u64) -> String {
    match held {
        0 => format!("{run}/live"),
        held => format!("{run}/live?from={held}"),
    }
}

/// Reads a `header` message's data.
pub fn header(data: &str) -> Result<Run, Refusal> {
    let wire: sandglass_protocol::live::Header = serde_json::from_str(data)
        .map_err(|e| refuse(format_args!("the server's header is not one: {e}")))?;
    let seed = match &wire.seed {
        Some(seed) => Some(
            seed.parse()
                .map_err(|_| refuse(format_args!("the header's seed `{seed}` is no number")))?,
        ),
        None => None,
    };
    let version =
        RulesVersion::kept(wire.rules).map_err(|e| refuse(format_args!("the game is {e}")))?;
    let ruleset = Ruleset::by_name(&wire.ruleset).ok_or_else(|| {
        refuse(format_args!(
            "the header names no ruleset this build knows: `{}`",
            wire.ruleset
        ))
    })?;
    Ok(Run {
        run: wire.run,
        player: wire.player,
        day: wire.day,
        header: Header::of(Rules::new(version, ruleset), seed.unwrap_or(0), 0),
        seed_known: seed.is_some(),
    })
}

/// Reads an `end` message's data.
pub fn ending(data: &str) -> Result<Ending, Refusal> {
    let end: End = serde_json::from_str(data)
        .map_err(|e| refuse(format_args!("the server's end is not one: {e}")))?;
    Ok(end.outcome)
}

/// The `first` of an `events` message's data and the rest, still in base64.
pub fn stretch_parts(data: &str) -> Result<(u64, &str), Refusal> {
    let (first, rest) = data
        .split_once(' ')
        .ok_or_else(|| refuse("a stretch of events has no index before its bytes"))?;
    let first = first.parse().map_err(|_| {
        refuse(format_args!(
            "a stretch of events begins at `{first}`, no index"
        ))
    })?;
    Ok((first, rest.trim_end()))
}

/// A stretch's events, from its bytes.
pub fn events(bytes: &[u8]) -> Result<Vec<Event>, Refusal> {
    events_from_bytes(bytes)
        .map_err(|e| refuse(format_args!("a stretch of events is damaged: {e}")))
}

/// What the stream says, in order, as the window takes it.
#[derive(Debug)]
pub enum Feed {
    /// The run's header: the first thing said, once.
    Run(Run),
    /// Events after those said before, in order, none repeated.
    Events(Vec<Event>),
    /// The game is over: nothing more comes.
    End(Ending),
    /// The connection dropped (or missed events): connecting again, from the events held.
    Reconnecting(String),
    /// The stream cannot be followed further, and why.
    Stopped(Refusal),
}

/// How many events a viewer holds, and what a stretch adds to them.
#[derive(Debug, Default)]
pub struct Follower {
    held: u64,
}

/// What a stretch brings.
#[derive(Debug, PartialEq, Eq)]
pub enum Taken {
    /// Events after those held (a stretch that repeats some is trimmed to the new ones).
    New(Vec<Event>),
    /// Nothing new: every event of it is held already.
    Repeat,
    /// It begins after the events held: some were missed, so reconnect from `held`.
    Gap { first: u64, held: u64 },
}

impl Follower {
    /// The events held: where a reconnection starts (`?from=`).
    pub fn held(&self) -> u64 {
        self.held
    }

    /// Takes the stretch of `events` whose first is event `first` of the game.
    pub fn take(&mut self, first: u64, mut events: Vec<Event>) -> Taken {
        if first > self.held {
            return Taken::Gap {
                first,
                held: self.held,
            };
        }
        let repeated = (self.held - first).min(events.len() as u64);
        events.drain(..repeated as usize);
        if events.is_empty() {
            return Taken::Repeat;
        }
        self.held += events.len() as u64;
        Taken::New(events)
    }
}

/// What a watched game comes to once it has ended, in `sandglass verify`'s words: its
/// events checked as they came, and the hash of the state they fold to. A game that
/// stopped mid-step (abandoned while a step was sent) is no whole game.
pub fn verdict(timeline: &Timeline) -> Verdict {
    if let Some(refused) = timeline.refused() {
        return Verdict::Fail {
            at: Some(refused.index.0),
            what: refused.kind.to_string(),
        };
    }
    let Some(end) = timeline.end_state() else {
        return Verdict::refused("no game was watched");
    };
    if end.need() == Need::Draw {
        return Verdict::Fail {
            at: Some(timeline.end()),
            what: sandglass_sim::FoldErrorKind::EndsEarly.to_string(),
        };
    }
    Verdict::Ok {
        events: timeline.end(),
        commands: timeline.commands().len() as u64,
        hash: end.hash(),
        rules_version: timeline.header().rules_version,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use sandglass_sim::bot::Bot;

    fn header_json(seed: &str, rules: u16, ruleset: &str) -> String {
        format!(
            r#"{{"run":"r1","rules":{rules},"ruleset":"{ruleset}","seed":"{seed}","player":"camel","day":"2026-11-26"}}"#
        )
    }

    #[test]
    fn a_header_gives_the_tape_header_with_its_whole_seed() {
        let run = header(&header_json("18446744073709551615", 10, "nethack")).unwrap();
        assert_eq!(run.player, "camel");
        assert_eq!(run.run, "r1");
        assert_eq!(
            run.header,
            Header::of(
                Rules::new(RulesVersion::kept(10).unwrap(), Ruleset::NETHACK),
                u64::MAX,
                0
            )
        );
    }

    #[test]
    fn a_run_is_named_by_its_address_with_or_without_live() {
        for url in [
            "http://127.0.0.1:8080/runs/abc",
            "http://127.0.0.1:8080/runs/abc/",
            "http://127.0.0.1:8080/runs/abc/live",
            "http://127.0.0.1:8080/runs/abc/live?from=12",
        ] {
            assert_eq!(run_url(url), "http://127.0.0.1:8080/runs/abc");
        }
        let run = "http://127.0.0.1:8080/runs/abc";
        assert_eq!(live_url(run, 0), format!("{run}/live"));
        assert_eq!(live_url(run, 12), format!("{run}/live?from=12"));
    }

    #[test]
    fn a_seed_kept_by_the_server_is_not_known() {
        let json = header_json("1", 10, "nethack").replace(r#""seed":"1""#, r#""seed":null"#);
        let run = header(&json).unwrap();
        assert!(!run.seed_known);
        assert_eq!(run.header.seed, 0);
        assert!(header(&header_json("1", 10, "nethack")).unwrap().seed_known);
    }

    #[test]
    fn a_bad_header_is_refused_in_words() {
        for (json, words) in [
            (header_json("12x", 10, "nethack"), "no number"),
            (header_json("1", 99, "nethack"), "newer than this build"),
            (header_json("1", 10, "angband"), "no ruleset"),
            ("{".to_owned(), "not one"),
        ] {
            let error = header(&json).unwrap_err();
            assert!(error.0.contains(words), "{error}");
        }
    }

    #[test]
    fn endings_are_read_by_name() {
        assert_eq!(
            ending(r#"{"outcome":"died"}"#),
            Ok(Ending::Outcome(sandglass_protocol::Outcome::Died))
        );
        assert_eq!(ending(r#"{"outcome":"abandoned"}"#), Ok(Ending::Abandoned));
        assert_eq!(ending(r#"{"outcome":"refused"}"#), Ok(Ending::Refused));
        let unknown = ending(r#"{"outcome":"exploded"}"#).unwrap_err();
        assert!(unknown.0.contains("`exploded` is an outcome"), "{unknown}");
    }

    #[test]
    fn a_stretch_names_its_first_event() {
        assert_eq!(stretch_parts("120 AAAA\r"), Ok((120, "AAAA")));
        assert!(stretch_parts("AAAA").is_err());
        assert!(stretch_parts("-1 AAAA").is_err());
        assert!(events(b"not events").is_err());
    }

    #[test]
    fn repeats_are_trimmed_and_gaps_are_found() {
        let tape = Bot::new(5).record(Rules::newest(Ruleset::NETHACK), 5, 10);
        let e = &tape.events;
        let mut follower = Follower::default();
        assert_eq!(
            follower.take(0, e[..5].to_vec()),
            Taken::New(e[..5].to_vec())
        );
        assert_eq!(follower.take(2, e[2..4].to_vec()), Taken::Repeat);
        assert_eq!(
            follower.take(3, e[3..9].to_vec()),
            Taken::New(e[5..9].to_vec())
        );
        assert_eq!(
            follower.take(12, e[12..14].to_vec()),
            Taken::Gap { first: 12, held: 9 }
        );
        assert_eq!(follower.held(), 9);
        assert_eq!(follower.take(9, vec![]), Taken::Repeat);
    }

    #[test]
    fn the_verdict_of_a_watched_game_is_the_files() {
        let tape = Bot::new(6).record(Rules::newest(Ruleset::NETHACK), 6, 30);
        let file =
            sandglass_sim::Recording::record(tape.header.clone(), tape.events.clone()).unwrap();
        let mut timeline = Timeline::open(tape.header.clone()).unwrap();
        let cut = tape
            .events
            .iter()
            .rposition(|e| matches!(e, Event::Draw(_)))
            .unwrap();
        timeline.extend(&tape.events[..cut]).unwrap();
        assert!(verdict(&timeline).failed(), "a step cut short");
        timeline.extend(&tape.events[cut..]).unwrap();
        assert_eq!(
            verdict(&timeline),
            sandglass_replay::verdict::check(&file, "", |_| ())
        );
    }
}
