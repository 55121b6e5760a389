//! A live game in the page: the page's `EventSource` reads the stream (web/sandglass.js)
//! and the viewer takes what it said each frame, through the same functions the native
//! reader uses (`crate::live`). Unlike a browser's own reconnecting, which would start
//! again from the last `id:`, a dropped connection or a gap is followed, as natively, by
//! a new connection a second later from the events held (`?from=N`).

use macroquad::time::get_time;

use super::page::{self, Message, Said};
use crate::live::SILENT_FOR;
use crate::live::{ending, events, header, live_url, Feed, Follower, Refusal, Run, Taken};
use crate::window::screen_replay::Source;

/// How long after a dropped connection the next is opened, in seconds.
const RECONNECT_AFTER: f64 = 1.0;

/// The page's stream of one run.
pub struct PageStream {
    /// The run's address.
    url: String,
    follower: Follower,
    run: Option<Run>,
    /// When to connect again, after a drop.
    reconnect_at: Option<f64>,
}

impl PageStream {
    /// Opens the stream of the run at `url`.
    pub fn open(url: &str) -> PageStream {
        let url = crate::live::run_url(url);
        page::live_open(Some(&live_url(&url, 0)));
        PageStream {
            url,
            follower: Follower::default(),
            run: None,
            reconnect_at: None,
        }
    }

    pub fn url(&self) -> &str {
        &self.url
    }

    /// Closes the connection and opens another in a second, from the events held.
    fn reconnect(&mut self, why: String) -> Feed {
        page::live_open(None);
        self.reconnect_at = Some(get_time() + RECONNECT_AFTER);
        Feed::Reconnecting(why)
    }

    /// What the page's message means, if anything new.
    fn take(&mut self, said: Said) -> Result<Option<Feed>, Refusal> {
        Ok(match said {
            Said::Text(Message::Header, text) => {
                let said = header(&text)?;
                match &self.run {
                    None => {
                        self.run = Some(said.clone());
                        Some(Feed::Run(said))
                    }
                    Some(run) if *run == said => None,
                    Some(_) => {
                        return Err(Refusal(
                            "the server's header changed on reconnecting".into(),
                        ))
                    }
                }
            }
            Said::Events(_, _) if self.run.is_none() => {
                return Err(Refusal("events came before the header".into()))
            }
            Said::Events(first, bytes) => match self.follower.take(first, events(&bytes)?) {
                Taken::New(events) => Some(Feed::Events(events)),
                Taken::Repeat => None,
                Taken::Gap { first, held } => {
                    Some(self.reconnect(format!("events {held} to {} were missed", first - 1)))
                }
            },
            Said::Text(Message::End, text) => Some(Feed::End(ending(&text)?)),
            Said::Text(Message::Dropped, text) if self.run.is_none() => return Err(Refusal(text)),
            Said::Text(Message::Dropped, text) => Some(self.reconnect(text)),
            Said::Text(Message::Refused, text) => return Err(Refusal(text)),
        })
    }
}

impl Source for PageStream {
    fn next(&mut self) -> Option<Feed> {
        if self.reconnect_at.is_some_and(|at| get_time() >= at) {
            self.reconnect_at = None;
            page::live_open(Some(&live_url(&self.url, self.follower.held())));
        }
        let silent_ms = page::now_ms() - page::live_heard_ms();
        if self.reconnect_at.is_none() && silent_ms > SILENT_FOR.as_millis() as f64 {
            return Some(self.reconnect("the server has said nothing for too long".into()));
        }
        while let Some(said) = page::live_next() {
            match self.take(said) {
                Ok(Some(feed)) => return Some(feed),
                Ok(None) => {}
                Err(refusal) => {
                    page::live_open(None);
                    return Some(Feed::Stopped(refusal));
                }
            }
        }
        None
    }
}

impl Drop for PageStream {
    /// A stream no longer watched is closed: the browser would otherwise reconnect to it.
    fn drop(&mut self) {
        page::live_open(None);
    }
}
