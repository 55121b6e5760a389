//! The native client's reader of a live stream: a thread that connects, reads the
//! server-sent events a line at a time (each at most `MOST_LINE_BYTES`), and hands the
//! window what they say through a channel, so that the window never waits on the
//! network, and rings the window awake for each (`news`). When the connection drops
//! before `end`, goes silent, or a stretch comes after a gap, it connects again a moment
//! later from the events it has handed on (`?from=N`); it stops at `end`, at what it
//! refuses, and once the window stops listening.

use std::io::{BufRead, BufReader, Read};
use std::sync::mpsc::{self, Receiver, Sender};
use std::time::Duration;

use anyhow::bail;
use base64::Engine as _;
use sandglass_protocol::live::{END, EVENTS, HEADER, STOPPING};

use super::{ending, events, header, live_url, run_url, stretch_parts};
use super::{refuse, MOST_LINE_BYTES};
use super::{Feed, Follower, Refusal, Run, Taken};

/// How long after a dropped connection the next is tried.
const RECONNECT_AFTER: Duration = Duration::from_secs(1);

/// How long connecting, and then the server's first answer, may take.
const TIMEOUT: Duration = Duration::from_secs(10);

/// A live game being read, its header already come.
pub struct Watched {
    pub run: Run,
    /// The run's address, `{server}/runs/{run}`.
    pub url: String,
    /// What the stream says next, as it comes.
    pub feed: Receiver<Feed>,
}

/// Connects to the live game at `url` (`{server}/runs/{run}`, or its `/live` form) and
/// waits for its header; the rest comes through `Watched::feed`, and `news` is called
/// after each thing said (the window's `ring`). A connection silent for `silent_for` is
/// taken as lost (`SILENT_FOR`).
pub fn watch(url: &str, news: fn(), silent_for: Duration) -> anyhow::Result<Watched> {
    let url = run_url(url);
    let (send, feed) = mpsc::channel();
    let base = url.clone();
    let feed_out = FeedOut { send, news };
    std::thread::Builder::new()
        .name("live stream".to_owned())
        .spawn(move || follow(&base, &feed_out, silent_for))?;
    // Connecting and the server's answer are bounded by `TIMEOUT`; a stream that opens
    // and then says nothing, by this.
    match feed.recv_timeout(3 * TIMEOUT) {
        Ok(Feed::Run(run)) => Ok(Watched { run, url, feed }),
        Ok(Feed::Stopped(refusal)) => bail!("cannot watch {url}: {refusal}"),
        _ => bail!("cannot watch {url}: the server sent no header"),
    }
}

/// Why one connection ended.
enum Stop {
    /// The game ended, or the window stopped listening: no more connections.
    Done,
    /// The connection was lost or gave up (a gap): try again from the events held.
    Lost(String),
    /// What the server sent cannot be followed.
    Refused(Refusal),
}

impl From<Refusal> for Stop {
    fn from(refusal: Refusal) -> Stop {
        Stop::Refused(refusal)
    }
}

/// The window's end of the stream: the channel, and its bell.
struct FeedOut {
    send: Sender<Feed>,
    news: fn(),
}

impl FeedOut {
    /// Hands `said` on and wakes the window for it; an error once the window has
    /// stopped listening.
    fn send(&self, said: Feed) -> Result<(), mpsc::SendError<Feed>> {
        self.send.send(said)?;
        (self.news)();
        Ok(())
    }
}

/// Reads the run at `base` until it ends, connecting again as often as it drops.
fn follow(base: &str, feed: &FeedOut, silent_for: Duration) {
    let agent: ureq::Agent = ureq::Agent::config_builder()
        .http_status_as_error(false)
        .timeout_connect(Some(TIMEOUT))
        .timeout_recv_response(Some(TIMEOUT))
        .timeout_per_read(Some(silent_for))
        .build()
        .into();
    let mut follower = Follower::default();
    let mut run = None;
    loop {
        let lost = match connection(&agent, base, &mut follower, &mut run, feed) {
            Stop::Done => return,
            Stop::Lost(why) => why,
            Stop::Refused(refusal) => {
                let _ = feed.send(Feed::Stopped(refusal));
                return;
            }
        };
        // A server that never answered is said so at once, not tried for ever.
        if run.is_none() {
            let _ = feed.send(Feed::Stopped(Refusal(lost)));
            return;
        }
        if feed.send(Feed::Reconnecting(lost)).is_err() {
            return;
        }
        std::thread::sleep(RECONNECT_AFTER);
    }
}

/// One connection: from the events held to the end, a drop or a refusal.
fn connection(
    agent: &ureq::Agent,
    base: &str,
    follower: &mut Follower,
    run: &mut Option<Run>,
    feed: &FeedOut,
) -> Stop {
    let url = live_url(base, follower.held());
    let response = match agent.get(&url).header("Accept", "text/event-stream").call() {
        Ok(response) => response,
        Err(error) => return Stop::Lost(format!("cannot connect: {error}")),
    };
    let status = response.status();
    if !status.is_success() {
        return Stop::Lost(format!("the server answered {status}"));
    }
    let mut reader = BufReader::new(response.into_body().into_reader());
    loop {
        let message = match next_message(&mut reader) {
            Ok(Some(message)) => message,
            Ok(None) => return Stop::Lost("the server closed the connection".to_owned()),
            Err(stop) => return stop,
        };
        let sent = match (message.event.as_str(), &run) {
            (HEADER, _) => match header(&message.data) {
                Ok(said) if run.is_none() => {
                    *run = Some(said.clone());
                    feed.send(Feed::Run(said))
                }
                Ok(said) if run.as_ref() == Some(&said) => Ok(()),
                Ok(_) => return refuse("the server's header changed on reconnecting").into(),
                Err(refusal) => return refusal.into(),
            },
            (EVENTS, None) => return refuse("events came before the header").into(),
            (EVENTS, Some(_)) => match stretch(&message.data) {
                Ok((first, events)) => match follower.take(first, events) {
                    Taken::New(events) => feed.send(Feed::Events(events)),
                    Taken::Repeat => Ok(()),
                    Taken::Gap { first, held } => {
                        return Stop::Lost(format!("events {held} to {} were missed", first - 1))
                    }
                },
                Err(refusal) => return refusal.into(),
            },
            (END, _) => {
                return match ending(&message.data) {
                    Ok(ending) => {
                        let _ = feed.send(Feed::End(ending));
                        Stop::Done
                    }
                    Err(refusal) => refusal.into(),
                }
            }
            // The server is going away: connect again (to the next server behind the same
            // address, or this one restarted) from the events held.
            (STOPPING, _) => return Stop::Lost(message.data),
            // `alive` only says the connection holds (each read restarts the silence),
            // and messages of other names are not the viewer's, as a browser's
            // EventSource leaves them.
            _ => Ok(()),
        };
        if sent.is_err() {
            return Stop::Done;
        }
    }
}

/// An `events` message's first index and events.
fn stretch(data: &str) -> Result<(u64, Vec<sandglass_sim::Event>), Refusal> {
    let (first, text) = stretch_parts(data)?;
    let bytes = base64::engine::general_purpose::STANDARD
        .decode(text)
        .map_err(|e| refuse(format_args!("a stretch of events is no base64: {e}")))?;
    Ok((first, events(&bytes)?))
}

/// One message of an event stream: its `event:` name and its `data:` lines.
#[derive(Debug, Default, PartialEq, Eq)]
struct Message {
    event: String,
    data: String,
}

/// The next message, or `None` where the stream ends (the connection closed).
fn next_message(reader: &mut impl BufRead) -> Result<Option<Message>, Stop> {
    let mut message = Message::default();
    let mut has_data = false;
    let mut line = vec![];
    loop {
        if !read_line(reader, &mut line)? {
            return Ok(None);
        }
        let line = std::str::from_utf8(&line)
            .map_err(|_| refuse("the stream holds a line that is not UTF-8"))?;
        if line.is_empty() {
            if has_data {
                return Ok(Some(message));
            }
            message = Message::default();
            continue;
        }
        // A line without a colon is a field with an empty value; one starting with a colon
        // is a comment.
        let (field, value) = line.split_once(':').unwrap_or((line, ""));
        let value = value.strip_prefix(' ').unwrap_or(value);
        match field {
            "event" => message.event = value.to_owned(),
            "data" => {
                if has_data {
                    message.data.push('\n');
                }
                message.data.push_str(value);
                has_data = true;
            }
            // `id` is the count of events sent, which the follower counts itself; `retry`
            // is for browsers.
            _ => {}
        }
    }
}

/// Reads a line into `line`, without its end (`\n` or `\r\n`); false at the end of the
/// stream. A line longer than `MOST_LINE_BYTES` is refused unread past the limit.
fn read_line(reader: &mut impl BufRead, line: &mut Vec<u8>) -> Result<bool, Stop> {
    line.clear();
    let most = MOST_LINE_BYTES as u64 + 2;
    let read = reader
        .by_ref()
        .take(most)
        .read_until(b'\n', line)
        .map_err(|e| {
            // ureq hands its own errors on inside an `io::Error`.
            let inner = e.get_ref().and_then(|e| e.downcast_ref::<ureq::Error>());
            match inner {
                Some(ureq::Error::Timeout(_)) => {
                    Stop::Lost("the server has said nothing for too long".to_owned())
                }
                _ => Stop::Lost(format!("the connection failed: {e}")),
            }
        })?;
    if read == 0 {
        return Ok(false);
    }
    if line.last() != Some(&b'\n') {
        if read as u64 == most {
            return Err(refuse(format_args!(
                "the server sent a line longer than {MOST_LINE_BYTES} bytes"
            ))
            .into());
        }
        return Err(Stop::Lost("the connection ended mid-line".to_owned()));
    }
    line.pop();
    if line.last() == Some(&b'\r') {
        line.pop();
    }
    if line.len() > MOST_LINE_BYTES {
        return Err(refuse(format_args!(
            "the server sent a line longer than {MOST_LINE_BYTES} bytes"
        ))
        .into());
    }
    Ok(true)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn messages(text: &[u8]) -> Vec<Result<Message, String>> {
        let mut reader = text;
        let mut out = vec![];
        loop {
            match next_message(&mut reader) {
                Ok(Some(message)) => out.push(Ok(message)),
                Ok(None) => return out,
                Err(Stop::Lost(why)) | Err(Stop::Refused(Refusal(why))) => {
                    out.push(Err(why));
                    return out;
                }
                Err(Stop::Done) => unreachable!(),
            }
        }
    }

    fn message(event: &str, data: &str) -> Result<Message, String> {
        Ok(Message {
            event: event.to_owned(),
            data: data.to_owned(),
        })
    }

    #[test]
    fn messages_are_read_with_their_names_and_data() {
        let text = b": hello\n\nevent: header\ndata: {}\n\nevent: events\r\nid: 3\r\ndata:0 AAAA\r\n\r\ndata: a\ndata: b\n\n";
        assert_eq!(
            messages(text),
            [
                message("header", "{}"),
                message("events", "0 AAAA"),
                message("", "a\nb"),
            ]
        );
    }

    #[test]
    fn a_line_cut_short_is_a_lost_connection_and_a_long_one_is_refused() {
        let cut = messages(b"event: end\ndata: {\"outc");
        assert!(
            matches!(&cut[..], [Err(why)] if why.contains("mid-line")),
            "{cut:?}"
        );
        let mut long = b"data: ".to_vec();
        long.resize(MOST_LINE_BYTES + 10, b'A');
        long.extend_from_slice(b"\n\n");
        let long = messages(&long);
        assert!(
            matches!(&long[..], [Err(why)] if why.contains("longer than")),
            "{long:?}"
        );
        // A line of exactly the limit is taken.
        let mut most = b"data: ".to_vec();
        most.resize(MOST_LINE_BYTES, b'A');
        most.extend_from_slice(b"\r\n\n");
        assert!(matches!(&messages(&most)[..], [Ok(_)]));
    }

    /// A server whose first connection gives the header and then says nothing, holding
    /// the connection open, and whose second gives the header and the end.
    fn a_server_that_falls_silent_once() -> (String, std::thread::JoinHandle<Vec<String>>) {
        use std::io::Write;
        let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        let url = format!("http://{}/runs/7", listener.local_addr().unwrap());
        let header = r#"{"run":"7","player":"camel","day":"2026-11-26","ruleset":"nethack","rules":10,"seed":null}"#;
        let server = std::thread::spawn(move || {
            let mut asked = vec![];
            let mut held = vec![];
            for ending in ["", "event: end\ndata: {\"outcome\":\"died\"}\n\n"] {
                let (mut connection, _) = listener.accept().unwrap();
                let mut request = String::new();
                let mut reader = BufReader::new(connection.try_clone().unwrap());
                reader.read_line(&mut request).unwrap();
                asked.push(request.trim_end().to_owned());
                write!(
                    connection,
                    "HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\n\
                     connection: close\r\n\r\nevent: header\ndata: {header}\n\n{ending}"
                )
                .unwrap();
                held.push(connection);
            }
            asked
        });
        (url, server)
    }

    static RINGS: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);

    fn ring() {
        RINGS.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    }

    #[test]
    fn a_connection_silent_for_too_long_is_made_again_and_each_news_rings() {
        let (url, server) = a_server_that_falls_silent_once();
        // Long enough for a loaded machine to answer, short for a test.
        let watched = watch(&url, ring, Duration::from_secs(2)).unwrap();
        assert_eq!(watched.run.player, "camel");
        let next = || watched.feed.recv_timeout(Duration::from_secs(20)).unwrap();
        let lost = next();
        assert!(
            matches!(&lost, Feed::Reconnecting(why) if why.contains("said nothing")),
            "the silent connection is taken as lost: {lost:?}"
        );
        assert!(matches!(next(), Feed::End(_)));
        let asked = server.join().unwrap();
        assert_eq!(asked, ["GET /runs/7/live HTTP/1.1"; 2]);
        // The header, the reconnecting and the end: each rung once it is in the channel,
        // so the end's ring may come just after the test has read it.
        let rings = || RINGS.load(std::sync::atomic::Ordering::Relaxed);
        let start = std::time::Instant::now();
        while rings() < 3 && start.elapsed() < Duration::from_secs(10) {
            std::thread::sleep(Duration::from_millis(10));
        }
        assert_eq!(rings(), 3);
    }

    #[test]
    fn a_stretch_that_is_no_base64_is_refused() {
        let error = stretch("0 ***").unwrap_err();
        assert!(error.0.contains("no base64"), "{error}");
        let bytes = sandglass_replay::events_to_bytes(&[sandglass_sim::Event::Draw(7)]);
        let text = base64::engine::general_purpose::STANDARD.encode(bytes);
        assert_eq!(
            stretch(&format!("4 {text}")),
            Ok((4, vec![sandglass_sim::Event::Draw(7)]))
        );
    }
}
