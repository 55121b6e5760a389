//! A daily run sent to its server as it is played, on a thread of its own: the game
//! never waits for the network.
//!
//! The store is the source: each step is sent only once the store has made it durable,
//! read back from it (`Store::events_from`). The server is the judge of what arrived:
//! the thread asks it how many events it holds and sends from there, so a step whose
//! answer was lost is neither lost nor doubled (the server takes a repeat of what it
//! holds as the same events). While the server cannot be reached, the thread waits, a
//! little longer each time, and sends everything missed, in order, when it can.

use std::path::PathBuf;
use std::sync::mpsc::{self, Receiver, RecvTimeoutError, Sender};
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use sandglass_claim::stretch_content;
use sandglass_protocol::runs::{is_gap, Held};
use sandglass_store::{GameId, Store, Stream};

use crate::online::Server;

/// How long one request to the server may take.
const TIMEOUT: Duration = Duration::from_secs(10);
/// The events sent in one request at most: about 400 KB, under the server's
/// `MOST_STRETCH_BYTES` (1 MiB).
const MOST_EVENTS: usize = 100_000;
/// The longest wait between two tries while the server cannot be reached.
const MOST_BACKOFF: Duration = Duration::from_secs(5);

/// Where the sending stands, for the screen.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Sending {
    /// Everything the store holds is on the server, or on its way.
    Live { sent: u64 },
    /// The server cannot be reached (or would not answer); play goes on and the events
    /// wait in the store.
    Waiting { sent: u64, why: String },
    /// The server refused the run: it is no longer sent.
    Refused(String),
}

impl Sending {
    /// Where the sending stands in a few words, for a game of `events` events.
    pub fn line(&self, events: u64) -> String {
        match self {
            Sending::Live { sent } if *sent >= events => "Daily run: sent, live".to_owned(),
            Sending::Live { sent } => format!("Daily run: sending, {} to go", events - sent),
            Sending::Waiting { sent, .. } => format!(
                "Daily run: server out of reach; {} events kept here, sent when it is back",
                events.saturating_sub(*sent)
            ),
            Sending::Refused(why) => format!("Daily run refused by the server: {why}"),
        }
    }
}

pub struct Streamer {
    wake: Sender<()>,
    sending: Arc<Mutex<Sending>>,
    thread: JoinHandle<()>,
}

impl Streamer {
    /// Starts sending game `id` to where `stream` says, under the key kept in `config`.
    pub fn start(store: Store, id: GameId, stream: Stream, config: PathBuf) -> Streamer {
        let (wake, woken) = mpsc::channel();
        let sending = Arc::new(Mutex::new(Sending::Live { sent: 0 }));
        let told = sending.clone();
        let thread = std::thread::spawn(move || {
            let mut sender = Courier {
                store,
                id,
                stream,
                config,
                sending: told,
                woken,
            };
            sender.run();
        });
        Streamer {
            wake,
            sending,
            thread,
        }
    }

    /// Says a step was made durable: there is something to send.
    pub fn wake(&self) {
        let _ = self.wake.send(());
    }

    pub fn sending(&self) -> Sending {
        self.sending
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .clone()
    }

    /// Stops sending once everything the store holds is on the server, or `patience`
    /// has passed, whichever comes first; says where it stood. What was not sent is sent
    /// the next time the run is opened.
    pub fn finish(self, patience: Duration) -> Sending {
        let deadline = Instant::now() + patience;
        drop(self.wake);
        let (sending, thread) = (self.sending, self.thread);
        while !thread.is_finished() && Instant::now() < deadline {
            std::thread::sleep(Duration::from_millis(20));
        }
        let last = sending.lock().unwrap_or_else(|e| e.into_inner()).clone();
        last
    }
}

/// The thread's side.
struct Courier {
    store: Store,
    id: GameId,
    stream: Stream,
    config: PathBuf,
    sending: Arc<Mutex<Sending>>,
    woken: Receiver<()>,
}

impl Courier {
    fn tell(&self, sending: Sending) {
        *self.sending.lock().unwrap_or_else(|e| e.into_inner()) = sending;
    }

    fn run(&mut self) {
        let server = match Server::new(
            &self.stream.server,
            &self.stream.player,
            &self.config,
            TIMEOUT,
        ) {
            Ok(server) => server,
            Err(error) => return self.tell(Sending::Refused(format!("{error:#}"))),
        };
        let mut backoff = Duration::from_millis(250);
        // How many events the server holds, once it has said.
        let mut held: Option<u64> = None;
        let mut closing = false;
        loop {
            let result = match held {
                None => self.ask(&server).map(Some),
                Some(from) => self.send(&server, from),
            };
            match result {
                Ok(Some(now)) => {
                    backoff = Duration::from_millis(250);
                    held = Some(now);
                    self.tell(Sending::Live { sent: now });
                    continue;
                }
                // Everything the store holds is on the server: wait for the next step.
                Ok(None) => {
                    if closing {
                        return;
                    }
                    match self.woken.recv_timeout(Duration::from_secs(1)) {
                        Ok(()) => while self.woken.try_recv().is_ok() {},
                        Err(RecvTimeoutError::Timeout) => {}
                        Err(RecvTimeoutError::Disconnected) => closing = true,
                    }
                }
                Err(Trouble::Refused(words)) => return self.tell(Sending::Refused(words)),
                Err(Trouble::Again(why, asked)) => {
                    let sent = held.unwrap_or(0);
                    self.tell(Sending::Waiting { sent, why });
                    // The server is asked again where it stands before anything is sent.
                    held = None;
                    // A server that said how long to leave it is left that long.
                    std::thread::sleep(asked.map_or(backoff, |asked| asked.max(backoff)));
                    backoff = (backoff * 2).min(MOST_BACKOFF);
                    if matches!(self.woken.try_recv(), Err(mpsc::TryRecvError::Disconnected)) {
                        closing = true;
                    }
                }
            }
        }
    }

    /// How many events the server holds of the run.
    fn ask(&self, server: &Server) -> Result<u64, Trouble> {
        let answer = server
            .get(&format!("/runs/{}", self.stream.run))
            .map_err(|e| Trouble::Again(e.to_string(), None))?;
        match answer.status {
            200 => serde_json::from_str::<Held>(&answer.words)
                .map(|held| held.events)
                .map_err(|_| Trouble::Again("the server's answer does not read".into(), None)),
            404 => Err(Trouble::Refused(format!(
                "{} has no run {}",
                server.base, self.stream.run
            ))),
            _ => Err(Trouble::Again(answer.words, answer.retry_after)),
        }
    }

    /// Sends what the store holds past `from`; `None` when there is nothing to send,
    /// else how many events the server holds after it.
    fn send(&self, server: &Server, from: u64) -> Result<Option<u64>, Trouble> {
        let events = self
            .store
            .events_from(self.id, from)
            .map_err(|e| Trouble::Refused(format!("the game cannot be read: {e}")))?;
        if events.is_empty() {
            return Ok(None);
        }
        let events = &events[..events.len().min(MOST_EVENTS)];
        let bytes = sandglass_replay::events_to_bytes(events);
        let run = self.stream.run;
        let answer = server
            .post_signed(
                &format!("/runs/{run}/events?from={from}"),
                stretch_content(run, from, &bytes),
                &bytes,
            )
            .map_err(|e| Trouble::Again(e.to_string(), None))?;
        match answer.status {
            200 => serde_json::from_str::<Held>(&answer.words)
                .map(|held| Some(held.events))
                .map_err(|_| Trouble::Again("the server's answer does not read".into(), None)),
            // A gap or a repeat that differs: where the server stands is asked again.
            409 if is_gap(&answer.words) => Err(Trouble::Again(answer.words, None)),
            500..=599 | 429 => Err(Trouble::Again(answer.words, answer.retry_after)),
            _ => Err(Trouble::Refused(answer.words)),
        }
    }
}

enum Trouble {
    /// Worth trying again later; as soon as the server said, if it did.
    Again(String, Option<Duration>),
    /// The server will not take the run.
    Refused(String),
}
