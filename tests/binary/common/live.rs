//! A small live server for the viewers' tests: it serves a recorded game as a server
//! streams a game being played (`GET /runs/{run}/live`, server-sent events: `header`,
//! `events` stretches, `end`), a stretch at a time, with a pause between, and drops the
//! first connection part-way so that the viewer must reconnect from what it holds.

use std::io::{BufRead, BufReader, Write};
use std::net::{SocketAddr, TcpListener, TcpStream};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use base64::Engine as _;
use sandglass_protocol::{live, Ending};
use sandglass_sim::{Event, Outcome, Recording, Rules};

/// How the server serves the game.
#[derive(Clone, Debug)]
pub struct Plan {
    /// Events a stretch.
    pub stretch: usize,
    /// The pause after each stretch.
    pub pause: Duration,
    /// The first connection is dropped once it has sent this many events (without `end`).
    pub drop_at: Option<u64>,
    /// There, rather than closing, it falls silent and stays open: a server that stopped
    /// without closing, or a network that lost its packets.
    pub silent: bool,
    /// A reconnection is served from this many events before the one asked for: a
    /// repeat the viewer must skip.
    pub overlap: u64,
    /// What is wrong with the stream, if anything.
    pub damage: Damage,
    /// The header's seed is null, as a server that keeps a day's seed until it is over
    /// sends it.
    pub hide_seed: bool,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Damage {
    None,
    /// The stretch holding this event is sent as text that is no base64.
    Base64(u64),
    /// This event, a draw, is sent changed: a desync.
    Desync(u64),
}

/// The server, on a port of its own on 127.0.0.1, until dropped.
pub struct LiveServer {
    pub addr: SocketAddr,
    log: Arc<Log>,
}

/// What the server's connections did.
#[derive(Default)]
struct Log {
    /// The request line and `Last-Event-ID` of every connection, in order.
    requests: Mutex<Vec<String>>,
    /// When each stretch was written, by the count of events it brought the viewer to.
    sent: Mutex<Vec<(u64, Instant)>>,
}

impl LiveServer {
    pub fn start(file: Recording, plan: Plan) -> LiveServer {
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let addr = listener.local_addr().unwrap();
        let log = Arc::new(Log::default());
        let kept = Arc::clone(&log);
        let file = Arc::new(file);
        std::thread::spawn(move || {
            for (n, stream) in listener.incoming().enumerate() {
                let Ok(stream) = stream else { continue };
                let (file, plan, log) = (Arc::clone(&file), plan.clone(), Arc::clone(&kept));
                std::thread::spawn(move || {
                    // A viewer that goes away mid-stream is no failure of the server.
                    let _ = serve(stream, &file, &plan, n == 0, &log);
                });
            }
        });
        LiveServer { addr, log }
    }

    /// The run's address, as a viewer is given it.
    pub fn run_url(&self) -> String {
        format!("http://{}/runs/golden", self.addr)
    }

    pub fn requests(&self) -> Vec<String> {
        self.log.requests.lock().unwrap().clone()
    }

    /// When each stretch was written, by the count of events it brought the viewer to.
    pub fn sent(&self) -> Vec<(u64, Instant)> {
        self.log.sent.lock().unwrap().clone()
    }
}

fn serve(
    stream: TcpStream,
    file: &Recording,
    plan: &Plan,
    first_connection: bool,
    log: &Log,
) -> std::io::Result<()> {
    let mut reader = BufReader::new(stream.try_clone()?);
    let mut request = String::new();
    reader.read_line(&mut request)?;
    let mut last_event_id = None;
    loop {
        let mut line = String::new();
        if reader.read_line(&mut line)? == 0 || line.trim().is_empty() {
            break;
        }
        if let Some((name, value)) = line.split_once(':') {
            if name.eq_ignore_ascii_case("last-event-id") {
                last_event_id = value.trim().parse::<u64>().ok();
            }
        }
    }
    let request = request.trim().to_owned();
    log.requests
        .lock()
        .unwrap()
        .push(format!("{request} last-event-id={last_event_id:?}"));
    let mut out = stream;
    let path = request.split(' ').nth(1).unwrap_or("");
    if !path.starts_with("/runs/golden/live") {
        out.write_all(b"HTTP/1.1 404 Not Found\r\nContent-Length: 0\r\nConnection: close\r\n\r\n")?;
        return Ok(());
    }
    let from = path
        .split_once("?from=")
        .and_then(|(_, n)| n.parse().ok())
        .or(last_event_id)
        .unwrap_or(0u64);
    out.write_all(
        b"HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nCache-Control: no-cache\r\n\
          Access-Control-Allow-Origin: *\r\nConnection: close\r\n\r\n",
    )?;
    let header = &file.header;
    let rules = Rules::of(header).unwrap();
    let said = live::Header {
        day: "2026-11-26".into(),
        player: "camel".into(),
        rules: header.rules_version,
        ruleset: rules.ruleset().name().into(),
        run: "golden".into(),
        seed: (!plan.hide_seed).then(|| header.seed.to_string()),
    };
    let said = format!(
        "event: {}\ndata: {}\n\n",
        live::HEADER,
        serde_json::to_string(&said).unwrap()
    );
    out.write_all(said.as_bytes())?;
    out.flush()?;
    let len = file.events.len() as u64;
    let mut first = from.saturating_sub(plan.overlap).min(len);
    while first < len {
        let last = (first + plan.stretch as u64).min(len);
        let mut events: Vec<Event> = file.events[first as usize..last as usize].to_vec();
        let mut text = None;
        match plan.damage {
            Damage::Base64(at) if (first..last).contains(&at) => text = Some("***".to_owned()),
            Damage::Desync(at) if (first..last).contains(&at) => {
                if let Event::Draw(value) = &mut events[(at - first) as usize] {
                    *value ^= 1;
                }
            }
            _ => {}
        }
        let text = text.unwrap_or_else(|| {
            let bytes = sandglass_replay::events_to_bytes(&events);
            base64::engine::general_purpose::STANDARD.encode(bytes)
        });
        let message = format!(
            "event: {}\nid: {last}\ndata: {first} {text}\n\n",
            live::EVENTS
        );
        out.write_all(message.as_bytes())?;
        out.flush()?;
        log.sent.lock().unwrap().push((last, Instant::now()));
        first = last;
        // The pace the plan streams at, as a game played live would.
        std::thread::sleep(plan.pause);
        if first_connection && plan.drop_at.is_some_and(|at| first >= at) && first < len {
            if plan.silent {
                // A connection that says nothing more, for longer than any test waits.
                std::thread::sleep(Duration::from_secs(600));
            }
            return Ok(());
        }
    }
    let state =
        sandglass_sim::verify(rules, header.seed, file.events.iter().copied(), &mut ()).unwrap();
    let outcome = match state.outcome() {
        Some(Outcome::Won) => Ending::Outcome(sandglass_protocol::Outcome::Won),
        Some(Outcome::Died) => Ending::Outcome(sandglass_protocol::Outcome::Died),
        Some(Outcome::Quit) => Ending::Outcome(sandglass_protocol::Outcome::Quit),
        None => Ending::Abandoned,
    };
    let end = serde_json::to_string(&live::End { outcome }).unwrap();
    out.write_all(format!("event: {}\ndata: {end}\n\n", live::END).as_bytes())?;
    out.flush()?;
    Ok(())
}
