//! A game watched while it is played (`sandglass watch`, or the web page's `?live=`), as
//! the replay screen holds it: where its stream stands (open, reconnecting, ended,
//! refused), whether the cursor follows the end ("LIVE"), and the words the screen says
//! of them.
//!
//! It is a timeline that grows: each stretch the stream brings is checked onto its end,
//! and while the cursor follows the end it moves along with them, at once, as they come.
//! A server sends each step as the player makes it, so their coming is the game's own
//! pace (the tape holds no clock to pace them by); a step or a few are animated as
//! played, and a long stretch (a late viewer's first, the game so far) is jumped over to
//! now.

use anyhow::Context as _;
use sandglass_sim::timeline::Timeline;

use super::{Replay, ReplayScreen};
use crate::live::{Ending, Feed, Run};
use sandglass_protocol::Outcome;
#[cfg(target_arch = "wasm32")]
use sandglass_replay::verdict::Verdict;

/// A live stretch of at most this many commands is animated as the cursor follows it; a
/// longer one (a late viewer's first, the game so far) is jumped over to now.
const LIVE_ANIMATED_UP_TO: usize = 4;

/// Where the stream says its next things from: the native reader's channel, or the page's
/// `EventSource` in a browser.
pub trait Source {
    /// What the stream said since it was last asked, one thing at a time.
    fn next(&mut self) -> Option<Feed>;
}

#[cfg(not(target_arch = "wasm32"))]
impl Source for std::sync::mpsc::Receiver<Feed> {
    fn next(&mut self) -> Option<Feed> {
        self.try_recv().ok()
    }
}

/// A live game on the replay screen.
pub struct Live {
    pub run: Run,
    /// Gone once the stream has ended or been refused: dropping it stops the reading.
    source: Option<Box<dyn Source>>,
    pub stream: Stream,
    /// Whether new events move the cursor along ("live"); scrubbing away stops it, End
    /// (or playing up to the end) starts it again.
    pub following: bool,
    /// When the stream last said something, on the window's clock.
    pub news_at: f64,
    /// The run's address, which a game taken over from it names as its origin.
    #[cfg(not(target_arch = "wasm32"))]
    pub url: String,
    /// Whether the page has been given the verdict on the ended game.
    #[cfg(target_arch = "wasm32")]
    pub told: bool,
}

/// Where the stream stands.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Stream {
    Open,
    /// The connection dropped; connecting again (why it dropped).
    Reconnecting(String),
    Ended(Ending),
    /// Nothing more is taken from it (why).
    Refused(String),
}

impl Live {
    pub fn new(run: Run, source: Box<dyn Source>) -> Live {
        Live {
            run,
            source: Some(source),
            stream: Stream::Open,
            following: true,
            news_at: 0.0,
            #[cfg(not(target_arch = "wasm32"))]
            url: String::new(),
            #[cfg(target_arch = "wasm32")]
            told: false,
        }
    }

    /// The next thing the stream said, while it is followed.
    pub fn next(&mut self) -> Option<Feed> {
        self.source.as_mut()?.next()
    }

    /// Follows the stream no further: it ended, or said what cannot be followed.
    pub fn stop(&mut self, stream: Stream) {
        self.stream = stream;
        self.source = None;
    }

    /// Where the live game stands, for the side bar: "LIVE", how far behind it the cursor
    /// is (`playing` says whether it plays), how it ended, or why there is no more.
    pub fn status(&self, timeline: &Timeline, playing: &str) -> String {
        let behind = timeline.last_tick().0 - timeline.tick_at(timeline.position()).0;
        let turns = match behind {
            1 => "1 turn".to_owned(),
            n => format!("{n} turns"),
        };
        let stream = match &self.stream {
            Stream::Open if self.following => return "LIVE".to_owned(),
            Stream::Open if behind == 0 => return format!("{playing} at live (End: live)"),
            Stream::Open => return format!("{playing}, behind live by {turns} (End: live)"),
            Stream::Reconnecting(_) => "reconnecting...".to_owned(),
            Stream::Ended(ending) => format!("ended: {}", said(*ending)),
            Stream::Refused(_) => "stopped: the stream was refused".to_owned(),
        };
        match (self.following, behind) {
            (true, _) | (false, 0) => stream,
            (false, _) if matches!(self.stream, Stream::Reconnecting(_)) => {
                format!("{stream}; {playing}, behind live by {turns}")
            }
            (false, _) => format!("{stream}; {playing}, {turns} before the end"),
        }
    }

    /// Words for the message log: why the stream dropped or was refused.
    pub fn note(&self) -> Option<String> {
        match &self.stream {
            Stream::Reconnecting(why) => Some(format!("Reconnecting: {why}.")),
            Stream::Refused(why) => Some(format!("The live stream is refused: {why}.")),
            Stream::Open | Stream::Ended(_) => None,
        }
    }
}

/// How the game ended, as the screen says it.
fn said(ending: Ending) -> &'static str {
    match ending {
        Ending::Outcome(Outcome::Won) => "the camel reached the oasis",
        Ending::Outcome(Outcome::Died) => "the camel died",
        Ending::Outcome(Outcome::Quit) => "the player quit",
        Ending::Abandoned => "the player left the game",
        Ending::Refused => "the server stopped the run on a bad event",
    }
}

impl Replay {
    /// A game watched while it is played, from its header on: the events come from
    /// `source` as the screen asks. `url` is the run's address.
    pub fn live(run: Run, source: Box<dyn Source>, url: &str) -> anyhow::Result<Replay> {
        // A seed the server keeps for now cannot check the draws: they come checked by it.
        let timeline = match run.seed_known {
            true => Timeline::open(run.header.clone()),
            false => Timeline::open_trusting(run.header.clone()),
        };
        let timeline = timeline.with_context(|| format!("cannot watch {}'s game", run.player))?;
        let title = format!("{}'s run", run.player);
        #[cfg_attr(target_arch = "wasm32", allow(unused_mut))]
        let mut live = Live::new(run, source);
        #[cfg(not(target_arch = "wasm32"))]
        {
            live.url = url.to_owned();
        }
        #[cfg(target_arch = "wasm32")]
        let _ = url;
        Ok(Replay {
            timeline,
            title,
            #[cfg(not(target_arch = "wasm32"))]
            tape: None,
            live: Some(live),
        })
    }
}

impl ReplayScreen {
    /// Whether a live game's new events move the cursor along.
    pub(super) fn follow(&mut self, on: bool) {
        if let Some(live) = &mut self.replay.live {
            live.following = on;
        }
    }

    pub(super) fn following(&self) -> bool {
        self.replay.live.as_ref().is_some_and(|live| live.following)
    }

    /// Whether a live stream said something in the last second.
    #[cfg(not(target_arch = "wasm32"))]
    pub(super) fn live_news(&self, time: f64) -> bool {
        self.replay
            .live
            .as_ref()
            .is_some_and(|live| time - live.news_at < 1.0)
    }

    /// Takes what a live stream said since the last frame: new events go onto the
    /// timeline (and the cursor with them while it follows); the rest changes what the
    /// screen says. Reports `live N events` as they come and `live end OUTCOME 0xHASH`.
    pub(super) fn take_live(&mut self, time: f64) {
        let Some(live) = &mut self.replay.live else {
            return;
        };
        let timeline = &mut self.replay.timeline;
        let before = timeline.end();
        while let Some(feed) = live.next() {
            live.news_at = time;
            match feed {
                // Said once, before the screen opened.
                Feed::Run(_) => {}
                Feed::Events(events) => {
                    match timeline.extend(&events) {
                        Ok(()) => live.stream = Stream::Open,
                        Err(error) => {
                            crate::report::line(&format!("live refused {error}"));
                            live.stop(Stream::Refused(error.to_string()));
                        }
                    }
                    crate::report::line(&format!("live {} events", timeline.end()));
                }
                Feed::End(ending) => {
                    let hash = timeline.end_state().map_or(0, |state| state.hash());
                    crate::report::line(&format!("live end {} 0x{hash:016x}", ending.as_str()));
                    live.stop(Stream::Ended(ending));
                }
                Feed::Reconnecting(why) => {
                    crate::report::line(&format!("live reconnecting: {why}"));
                    live.stream = Stream::Reconnecting(why);
                }
                Feed::Stopped(refusal) => {
                    crate::report::line(&format!("live refused {refusal}"));
                    live.stop(Stream::Refused(refusal.0));
                }
            }
        }
        let end = timeline.end();
        if end == before || !live.following {
            return;
        }
        let commands = timeline.commands();
        let steps = commands.len() - commands.partition_point(|&c| c < before);
        if steps <= LIVE_ANIMATED_UP_TO && self.position() == before {
            self.play_to(end, time);
        } else {
            self.jump(end);
        }
    }

    /// The verdict on a live game once its stream has stopped (ended, or refused), for
    /// the web page to say as it says a file's, with the run's name; `None` before, and
    /// once said.
    #[cfg(target_arch = "wasm32")]
    pub(in crate::window) fn live_verdict(&mut self) -> Option<(Verdict, String)> {
        let live = self.replay.live.as_mut()?;
        match live.stream {
            Stream::Ended(_) | Stream::Refused(_) if !live.told => {
                live.told = true;
                let timeline = &self.replay.timeline;
                let verdict = match (&live.stream, timeline.refused()) {
                    // The stream itself, not an event on it, was refused.
                    (Stream::Refused(why), None) => Verdict::refused(why),
                    _ => crate::live::verdict(timeline),
                };
                // A run whose seed is not shown yet was folded on its server's word for
                // its draws, and the line says so.
                let name = match timeline.checks_draws() {
                    true => live.run.name(),
                    false => format!("{}, seed not yet shown", live.run.name()),
                };
                Some((verdict, name))
            }
            _ => None,
        }
    }

    /// Where a live game's stream stands, for the page's status line.
    #[cfg(target_arch = "wasm32")]
    pub(in crate::window) fn live_status(&self) -> Option<String> {
        let live = self.replay.live.as_ref()?;
        let run = live.run.name();
        Some(match &live.stream {
            Stream::Open => format!("live: {run}"),
            Stream::Reconnecting(_) => format!("reconnecting to {run}"),
            Stream::Ended(ending) => format!("{run} ended: {}", ending.as_str()),
            Stream::Refused(_) => format!("refused: {run}"),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use sandglass_sim::bot::Bot;
    use sandglass_sim::ids::Tick;
    use sandglass_sim::{Rules, Ruleset};

    struct Silent;

    impl Source for Silent {
        fn next(&mut self) -> Option<Feed> {
            None
        }
    }

    #[test]
    fn the_status_says_live_how_far_behind_and_how_it_ended() {
        let tape = Bot::new(7).record(Rules::newest(Ruleset::NETHACK), 7, 40);
        let mut timeline = Timeline::open(tape.header.clone()).unwrap();
        timeline.extend(&tape.events).unwrap();
        // The cursor stays where it was, at the genesis, until moved.
        assert_eq!(timeline.position(), 0);
        timeline.seek(timeline.end());
        let run = Run {
            run: "r".to_owned(),
            player: "camel".to_owned(),
            day: "2026-11-26".to_owned(),
            header: tape.header,
            seed_known: true,
        };
        let mut live = Live::new(run, Box::new(Silent));
        let paused = "paused (1x)";
        assert_eq!(live.status(&timeline, paused), "LIVE");
        live.following = false;
        assert_eq!(
            live.status(&timeline, paused),
            "paused (1x) at live (End: live)"
        );
        let three_back = Tick(timeline.last_tick().0 - 3);
        timeline.seek(timeline.position_of_tick(three_back));
        assert_eq!(
            live.status(&timeline, paused),
            "paused (1x), behind live by 3 turns (End: live)"
        );
        live.stream = Stream::Reconnecting("the connection dropped".to_owned());
        assert_eq!(
            live.status(&timeline, paused),
            "reconnecting...; paused (1x), behind live by 3 turns"
        );
        assert_eq!(
            live.note().as_deref(),
            Some("Reconnecting: the connection dropped.")
        );
        live.stop(Stream::Ended(Ending::Outcome(Outcome::Died)));
        assert_eq!(
            live.status(&timeline, paused),
            "ended: the camel died; paused (1x), 3 turns before the end"
        );
        assert!(live.next().is_none() && live.note().is_none());
    }
}
