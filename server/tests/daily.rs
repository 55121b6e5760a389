//! The daily desert end to end: the real `sandglass daily` (its built-in bot playing)
//! streaming a run over HTTP to the real server on a PostgreSQL database of the test's
//! own; viewers reading the run live from another server process; the server killed
//! and the network cut while the run goes on; every refusal a run can meet; and the
//! window's own way in, from the start screen.

#[path = "../../tests/binary/browser.rs"]
mod browser;
mod common;
// The display's size is for the window's own tests.
#[allow(dead_code)]
#[path = "../../tests/binary/common/xvfb.rs"]
mod xvfb;

use std::io::{BufRead, BufReader, Read, Write};
use std::net::{Shutdown, TcpListener, TcpStream};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{mpsc, Arc, Mutex};
use std::time::{Duration, Instant};

use base64::Engine;
use common::{Site, BIN};
use sandglass_claim::{
    command_content, content_hash, daily_commitment_line, daily_deal_content, daily_start_content,
    hex, stretch_content, Claim, Identity, KEY_HEADER, PLAYER_HEADER, SIGNATURE_HEADER,
};
use sandglass_sim::drive::{fold_on, Verifier};
use sandglass_sim::geometry::Direction;
use sandglass_sim::{
    bot::Bot, Command as Order, Event, Header, LiveTape, Need, Recording, Rules, RulesVersion,
    Ruleset, Slot, State,
};

/// How long anything the test waits for may take.
const PATIENCE: Duration = Duration::from_secs(120);

/// The client's binary, built beside the server's by `cargo test --workspace`.
fn client() -> Option<PathBuf> {
    let client = Path::new(BIN).with_file_name("sandglass");
    if client.is_file() {
        return Some(client);
    }
    assert!(
        std::env::var("CI").as_deref() != Ok("true"),
        "the sandglass binary is not built"
    );
    eprintln!("SKIPPED: build the client first (cargo build --release -p sandglass)");
    None
}

fn today() -> String {
    jiff::Timestamp::now().strftime("%Y-%m-%d").to_string()
}

/// A player: a config folder (their key and settings) and a data folder (their games).
struct Player {
    config: tempfile::TempDir,
    data: tempfile::TempDir,
}

impl Player {
    fn new() -> Player {
        Player {
            config: tempfile::tempdir().unwrap(),
            data: tempfile::tempdir().unwrap(),
        }
    }

    /// `sandglass daily --bot` against `server`, as `name`, its stdout read line by line.
    /// At the end the client waits as long as the test would for the server to hold
    /// every step (`--wait-s`): its own default, a minute, was the one patience in these
    /// tests shorter than theirs, and a loaded machine storing a run streamed a step a
    /// millisecond is what it bounds.
    fn daily(&self, client: &Path, server: &str, name: &str, extra: &[&str]) -> Daily {
        let mut child = Command::new(client)
            .arg("--config-dir")
            .arg(self.config.path())
            .arg("--data-dir")
            .arg(self.data.path())
            .args(["daily", "--server", server, "--name", name])
            .args(["--wait-s", &PATIENCE.as_secs().to_string()])
            .args(extra)
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        Daily {
            lines: lines_of(&mut child),
            child,
        }
    }
}

/// The lines `child` writes on stdout, as they come.
fn lines_of(child: &mut Child) -> mpsc::Receiver<String> {
    let (send, lines) = mpsc::channel();
    let stdout = BufReader::new(child.stdout.take().unwrap());
    std::thread::spawn(move || {
        for line in stdout.lines().map_while(Result::ok) {
            let _ = send.send(line);
        }
    });
    lines
}

struct Daily {
    child: Child,
    lines: mpsc::Receiver<String>,
}

impl Daily {
    fn line(&self, prefix: &str) -> String {
        loop {
            let line = self
                .lines
                .recv_timeout(PATIENCE)
                .unwrap_or_else(|_| panic!("no line starting {prefix:?}"));
            if line.starts_with(prefix) {
                return line;
            }
        }
    }

    /// The run's number, from the first line (`run R game G`).
    fn run(&self) -> i64 {
        let line = self.line("run ");
        line.split(' ').nth(1).unwrap().parse().unwrap()
    }

    /// The played line: the game's events and its final hash.
    fn played(&self) -> (u64, String) {
        let line = self.line("played ");
        let events = line.split(": ").nth(1).unwrap().split(' ').next().unwrap();
        let hash = line.rsplit(' ').next().unwrap().to_owned();
        (events.parse().unwrap(), hash)
    }

    /// Waits for the command to end: its stderr if it failed.
    fn end(mut self) -> Result<String, String> {
        let status = self.child.wait().unwrap();
        let mut stderr = String::new();
        self.child
            .stderr
            .take()
            .unwrap()
            .read_to_string(&mut stderr)
            .unwrap();
        // The last lines may still be on their way from the reading thread, which ends
        // once the pipe is closed: read to that end, not only what has come so far.
        let mut rest = vec![];
        while let Ok(line) = self.lines.recv_timeout(PATIENCE) {
            rest.push(line);
        }
        match status.success() {
            true => Ok(rest.join("\n")),
            false => Err(stderr),
        }
    }
}

/// What a viewer of `/runs/RUN/live` received: the header's JSON, every event in
/// order (checked contiguous, each once), and how the run ended.
struct Watched {
    header: serde_json::Value,
    events: Vec<Event>,
    end: String,
    /// How many stretches it came in.
    stretches: usize,
}

/// Reads `url` (a run's live stream) to its `end`.
fn watch(url: &str) -> Watched {
    let agent: ureq::Agent = ureq::Agent::config_builder()
        .timeout_global(Some(PATIENCE))
        .build()
        .into();
    let response = agent.get(url).call().unwrap();
    assert_eq!(
        response.headers()["content-type"].to_str().unwrap(),
        "text/event-stream"
    );
    let mut reader = BufReader::new(response.into_body().into_reader());
    let (mut kind, mut header, mut events) = (String::new(), None, vec![]);
    let mut stretches = 0;
    loop {
        let mut line = String::new();
        assert!(
            reader.read_line(&mut line).unwrap() > 0,
            "the stream ended without `end`"
        );
        let line = line.trim_end();
        if let Some(k) = line.strip_prefix("event: ") {
            kind = k.to_owned();
        } else if let Some(data) = line.strip_prefix("data: ") {
            match kind.as_str() {
                "header" => header = Some(serde_json::from_str(data).unwrap()),
                "events" => {
                    let (first, bytes) = data.split_once(' ').unwrap();
                    assert_eq!(
                        first.parse::<usize>().unwrap(),
                        events.len(),
                        "in order, once"
                    );
                    let bytes = base64::engine::general_purpose::STANDARD
                        .decode(bytes)
                        .unwrap();
                    events.extend(sandglass_replay::events_from_bytes(&bytes).unwrap());
                    stretches += 1;
                }
                "end" => {
                    let end: serde_json::Value = serde_json::from_str(data).unwrap();
                    return Watched {
                        header: header.expect("the header first"),
                        events,
                        end: end["outcome"].as_str().unwrap().to_owned(),
                        stretches,
                    };
                }
                other => panic!("an event of kind {other:?}"),
            }
        }
    }
}

/// The hash a tape folds to under `rules`, every draw checked against `seed`'s
/// generator.
fn verified_hash(rules: Rules, seed: u64, events: Vec<Event>) -> String {
    let mut verifier = Verifier::new(rules, seed, &mut ());
    let mut events = events.into_iter().peekable();
    while verifier
        .feed_pulling(&mut events, u64::MAX, &mut ())
        .unwrap()
    {}
    format!("0x{:016x}", verifier.state().hash())
}

/// The run's client ended saying it sent every event; the server holds each once, and
/// a verifier folded the finished run to the client's hash. The run's game.
fn all_sent_and_verified(site: &Site, daily: Daily, run: i64, events: u64, hash: &str) -> String {
    let said = daily.end().unwrap_or_else(|stderr| {
        panic!("the client did not see every event held by the server: {stderr}")
    });
    assert!(
        said.contains(&format!("sent {events} of {events} events")),
        "{said}"
    );
    assert_every_event_once(site, run, events);
    let game = site
        .pg
        .sql(&format!("SELECT game FROM runs WHERE id = {run}"));
    let verdict = format!("SELECT final_hash FROM verdicts WHERE game = '{game}'");
    wait_for(site, &verdict, hash);
    game
}

/// Moves the day's desert and its games a day back, as if the day were over: the
/// day's JSON as it then is.
fn end_the_day(site: &Site) -> serde_json::Value {
    site.pg.sql("UPDATE days SET day = day - 1");
    site.pg
        .sql("UPDATE games SET hidden_until = hidden_until - 1");
    let yesterday = site
        .pg
        .sql("SELECT to_char(day, 'YYYY-MM-DD') FROM days LIMIT 1");
    let (_, after) = site.get(&format!("/daily/{yesterday}/nethack.json"));
    serde_json::from_str(&after).unwrap()
}

/// Waits until `sql` gives `want`; fails saying what it gave last.
fn wait_for(site: &Site, sql: &str, want: &str) {
    let start = Instant::now();
    loop {
        let gave = site.pg.sql(sql);
        if gave == want {
            return;
        }
        assert!(
            start.elapsed() < PATIENCE,
            "waited {PATIENCE:?} for {sql} to give {want}: it gave {gave:?}"
        );
        std::thread::sleep(Duration::from_millis(50));
    }
}

/// The run's stretches are contiguous from 0, none twice, and hold `events` events.
fn assert_every_event_once(site: &Site, run: i64, events: u64) {
    let held = site.pg.sql(&format!(
        "SELECT sum(count), count(*) FILTER (WHERE first > 0 AND NOT EXISTS (
             SELECT 1 FROM run_events b WHERE b.run = a.run AND b.first + b.count = a.first))
         FROM run_events a WHERE run = {run}"
    ));
    assert_eq!(
        held,
        format!("{events}|0"),
        "events held | stretches after a gap"
    );
    assert_eq!(
        site.pg
            .sql(&format!("SELECT events FROM runs WHERE id = {run}")),
        events.to_string()
    );
}

#[test]
fn a_daily_run_is_streamed_watched_from_another_server_verified_and_ranked_and_its_seed_was_fixed_before(
) {
    let Some(client) = client() else { return };
    let Some(mut site) = Site::start(&[]) else {
        return;
    };
    site.worker();
    let day = today();
    let (status, before) = site.get(&format!("/daily/{day}/nethack.json"));
    assert_eq!(status, 200, "{before}");
    let before: serde_json::Value = serde_json::from_str(&before).unwrap();
    assert_eq!(before["over"], false);
    assert!(
        before["seed"].is_null() && before["salt"].is_null(),
        "{before}"
    );
    let commitment = before["commitment"].as_str().unwrap().to_owned();

    // A second server process serves the viewer: it hears of each stretch through the
    // database.
    let other = site.another_server(&[]);
    let player = Player::new();
    let daily = player.daily(
        &client,
        &site.url,
        "camel",
        &["--bot", "100000", "--pace-ms", "1"],
    );
    let run = daily.run();
    // Watched once the server holds the run's first stretch, from which it serves it.
    wait_for(
        &site,
        &format!("SELECT events > 0 FROM runs WHERE id = {run}"),
        "t",
    );
    let live = format!("{}/runs/{run}/live", other.url);
    let viewer = std::thread::spawn(move || watch(&live));
    let (events, hash) = daily.played();
    // The verifier folded the finished run again.
    let game = all_sent_and_verified(&site, daily, run, events, &hash);

    let watched = viewer.join().unwrap();
    assert_eq!(watched.header["player"], "camel");
    assert_eq!(watched.header["day"], day.as_str());
    assert!(
        watched.header["seed"].is_null(),
        "no seed while the day lasts"
    );
    assert_eq!(watched.events.len() as u64, events);
    assert!(watched.stretches > 1, "streamed as it was played");
    assert!(
        ["won", "died"].contains(&watched.end.as_str()),
        "{}",
        watched.end
    );
    let rules = Rules::newest(Ruleset::NETHACK);
    let folded = sandglass_sim::fold(rules, watched.events.clone(), &mut ()).unwrap();
    assert_eq!(
        format!("0x{:016x}", folded.hash()),
        hash,
        "the viewer's fold"
    );

    // Ranked on the day's board, hidden elsewhere until the day is over.
    let (_, board) = site.get("/daily");
    assert!(
        board.contains("<tr><td>1</td><td><a href=\"/players/camel\">camel</a>"),
        "{board}"
    );
    assert_eq!(site.get(&format!("/games/{game}")).0, 404);
    assert_eq!(site.get(&format!("/replays/{game}.sgr")).0, 404);
    assert!(
        !site.get("/").1.contains(&game[..12]),
        "not on the all-time board yet"
    );

    // One try a day: the same key from a fresh data folder is refused.
    let again = Player {
        config: player.config,
        data: tempfile::tempdir().unwrap(),
    };
    let refused = again
        .daily(&client, &site.url, "camel", &["--bot", "10"])
        .end();
    assert!(
        refused.as_ref().unwrap_err().contains("one try a day"),
        "{refused:?}"
    );

    // The day ends: its seed and salt are shown, and they are the commitment's.
    let after = end_the_day(&site);
    assert_eq!(after["over"], true);
    assert_eq!(after["commitment"], commitment.as_str());
    let seed = after["seed"].as_str().unwrap();
    // The line names the day the desert was made for.
    let line = daily_commitment_line(&day, "nethack", seed, after["salt"].as_str().unwrap());
    let seed: u64 = seed.parse().unwrap();
    assert_eq!(hex(&content_hash(line.as_bytes())), commitment);
    // The revealed seed is the run's: every draw the viewer received is its generator's.
    let played = watched.events.clone();
    assert_eq!(verified_hash(rules, seed, watched.events), hash);
    // Once the day is over, a game played from its seed may be sent as any other; but
    // the run's own moves stay camel's: its first five commands, sent by another, are
    // the beginning of camel's game.
    let header = Header::of(rules, seed, 0);
    let jerboa = Identity::generate().unwrap();
    let commands_at: Vec<usize> = (0..played.len())
        .filter(|&i| matches!(played[i], Event::Command(_)))
        .collect();
    let copy = played[..commands_at[5]].to_vec();
    let copied = Recording::record(header.clone(), copy).unwrap();
    let (status, said) = site.submit(&sandglass_replay::to_bytes(&copied), &jerboa, "jerboa");
    assert_eq!(status, 409, "{said}");
    assert!(said.contains("the beginning of camel's game"), "{said}");
    // Jerboa's own game parts from the run at its first command.
    let runs_first = match played[commands_at[0]] {
        Event::Command(command) => Some(command),
        Event::Draw(_) => None,
    };
    let first = match runs_first {
        Some(sandglass_sim::Command::Rest) => sandglass_sim::Command::Dash,
        _ => sandglass_sim::Command::Rest,
    };
    let mut own = LiveTape::new(rules, seed);
    own.command(first, &mut ()).unwrap();
    Bot::new(seed).play(&mut own, 4).unwrap();
    let from_the_seed = Recording::record(header, own.into_tape().events).unwrap();
    let bytes = sandglass_replay::to_bytes(&from_the_seed);
    let (status, said) = site.submit(&bytes, &jerboa, "jerboa");
    assert_eq!(status, 202, "{said}");
    let (status, page) = site.get(&format!("/games/{game}"));
    assert_eq!(status, 200);
    assert!(page.contains(&hash), "{page}");
    let yesterday = after["day"].as_str().unwrap();
    let (_, day_page) = site.get(&format!("/daily/{yesterday}"));
    assert!(
        day_page.contains(&format!("Seed <code>{seed}</code>")),
        "{day_page}"
    );
}

#[test]
fn a_daily_run_plays_on_while_its_server_is_killed_and_every_step_arrives_once_after() {
    let Some(client) = client() else { return };
    let Some(mut site) = Site::start(&[]) else {
        return;
    };
    an_undealt_day(&site);
    site.worker();
    let player = Player::new();
    let daily = player.daily(
        &client,
        &site.url,
        "camel",
        &["--bot", "100000", "--pace-ms", "2"],
    );
    let run = daily.run();
    // Killed once the run is under way...
    wait_for(
        &site,
        &format!("SELECT events > 0 FROM runs WHERE id = {run}"),
        "t",
    );
    site.kill_server();
    let held_when_killed: u64 = site
        .pg
        .sql(&format!("SELECT events FROM runs WHERE id = {run}"))
        .parse()
        .unwrap();
    // ...the game is played to its end with no server to send to: play never waits.
    let (events, hash) = daily.played();
    assert!(
        events > held_when_killed,
        "the game went on while the server was down"
    );
    assert_eq!(
        site.pg
            .sql(&format!("SELECT events FROM runs WHERE id = {run}")),
        held_when_killed.to_string()
    );
    site.start_again(&[]);
    all_sent_and_verified(&site, daily, run, events, &hash);
}

/// A TCP proxy on loopback that can be cut (its listener closed and every connection
/// through it shut) and mended at the same address.
struct Proxy {
    url: String,
    cut: Arc<AtomicBool>,
    open: Arc<Mutex<Vec<TcpStream>>>,
}

impl Proxy {
    fn start(to: &str) -> Proxy {
        let to = to.strip_prefix("http://").unwrap().to_owned();
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let address = listener.local_addr().unwrap();
        let (cut, open) = (
            Arc::new(AtomicBool::new(false)),
            Arc::new(Mutex::new(vec![])),
        );
        let (cutting, opened) = (cut.clone(), open.clone());
        std::thread::spawn(move || {
            let mut listener = Some(listener);
            loop {
                if cutting.load(Ordering::SeqCst) {
                    listener = None;
                    // Looking every 20 ms for `mend`.
                    std::thread::sleep(Duration::from_millis(20));
                    continue;
                }
                let listening = listener.get_or_insert_with(|| TcpListener::bind(address).unwrap());
                listening.set_nonblocking(true).unwrap();
                match listening.accept() {
                    Ok((inside, _)) => {
                        inside.set_nonblocking(false).unwrap();
                        let Ok(outside) = TcpStream::connect(&to) else {
                            continue;
                        };
                        let mut open = opened.lock().unwrap();
                        open.push(inside.try_clone().unwrap());
                        open.push(outside.try_clone().unwrap());
                        pump(inside.try_clone().unwrap(), outside.try_clone().unwrap());
                        pump(outside, inside);
                    }
                    // Nothing to take (the listener does not block, so that a cut
                    // is seen): looked at again 5 ms on.
                    Err(_) => std::thread::sleep(Duration::from_millis(5)),
                }
            }
        });
        Proxy {
            url: format!("http://{address}"),
            cut,
            open,
        }
    }

    /// Cuts every connection through the proxy, and takes none until `mend`.
    fn cut(&self) {
        self.cut.store(true, Ordering::SeqCst);
        for stream in self.open.lock().unwrap().drain(..) {
            let _ = stream.shutdown(Shutdown::Both);
        }
    }

    fn mend(&self) {
        self.cut.store(false, Ordering::SeqCst);
    }
}

fn pump(mut from: TcpStream, mut to: TcpStream) {
    std::thread::spawn(move || {
        let mut buffer = [0; 16 << 10];
        while let Ok(read) = from.read(&mut buffer) {
            if read == 0 || to.write_all(&buffer[..read]).is_err() {
                break;
            }
        }
        let _ = to.shutdown(Shutdown::Both);
    });
}

#[test]
fn a_dealt_run_waits_through_thirty_seconds_without_a_network_and_goes_on_by_itself() {
    let Some(client) = client() else { return };
    // The server is reached through the proxy, and its signatures name that address.
    let Some(mut site) = Site::start(&[]) else {
        return;
    };
    let proxy = Proxy::start(&site.url);
    site.kill_server();
    site.start_again(&["--public-url", &proxy.url]);
    site.worker();
    let player = Player::new();
    let daily = player.daily(
        &client,
        &proxy.url,
        "camel",
        &["--bot", "100000", "--pace-ms", "3", "--report-steps"],
    );
    let run = daily.run();
    wait_for(
        &site,
        &format!("SELECT events > 0 FROM runs WHERE id = {run}"),
        "t",
    );
    proxy.cut();
    let cut_at = Instant::now();
    let held_when_cut = site
        .pg
        .sql(&format!("SELECT events FROM runs WHERE id = {run}"));
    // The thirty seconds without a network the test is about: a span, not a wait.
    std::thread::sleep(Duration::from_secs(30));
    assert_eq!(
        site.pg
            .sql(&format!("SELECT events FROM runs WHERE id = {run}")),
        held_when_cut,
        "nothing arrives while the network is cut"
    );
    // A dealt run takes no step its server has not dealt: the client is where the
    // server was when the network was cut, or one command behind it.
    let mut steps = vec![];
    while let Ok(line) = daily.lines.try_recv() {
        if let Some(step) = line.strip_prefix("durable ") {
            steps.push(step.split(' ').next().unwrap().parse::<u64>().unwrap());
        }
    }
    let held: u64 = held_when_cut.parse().unwrap();
    assert!(
        steps.last().is_none_or(|&last| last <= held),
        "the client played {steps:?} past the {held} events the server held"
    );
    proxy.mend();
    assert!(cut_at.elapsed() >= Duration::from_secs(30));
    let (events, hash) = daily.played();
    all_sent_and_verified(&site, daily, run, events, &hash);
}

/// A dealt run's client killed (SIGKILL) mid-run and run again goes on where both
/// stand: a command it had sent and not heard back about is sent again and answered as
/// it was, and every step is on the server once, folding to the client's hash.
#[test]
fn a_dealt_runs_client_killed_mid_run_goes_on_with_every_step_once() {
    let Some(client) = client() else { return };
    let Some(mut site) = Site::start(&[]) else {
        return;
    };
    site.worker();
    let player = Player::new();
    let bot = ["--bot", "100000", "--pace-ms", "5"];
    let mut killed = player.daily(&client, &site.url, "camel", &bot);
    let run = killed.run();
    wait_for(
        &site,
        &format!("SELECT events > 50 FROM runs WHERE id = {run}"),
        "t",
    );
    killed.child.kill().unwrap();
    killed.child.wait().unwrap();
    let again = player.daily(&client, &site.url, "camel", &bot);
    assert_eq!(again.run(), run, "the same run goes on");
    let (events, hash) = again.played();
    all_sent_and_verified(&site, again, run, events, &hash);
}

/// Starts today's nethack run as `name` under `who`: the run and its seed.
fn start(site: &Site, who: &Identity, name: &str, day: &str) -> (u16, serde_json::Value) {
    let content = daily_start_content(day, "nethack");
    let path = format!("/daily/{day}/nethack/start");
    signed_post(site, &path, &[], content, who, name)
}

/// `body` posted to `path`, signed by `who` as `name` over `content`: the answer, as
/// JSON or words.
fn signed_post(
    site: &Site,
    path: &str,
    body: &[u8],
    content: [u8; 32],
    who: &Identity,
    name: &str,
) -> (u16, serde_json::Value) {
    let claim = Claim {
        server: &site.url,
        player: name,
        content,
    };
    let (status, words) = site.post_to(
        path,
        body,
        &[
            (PLAYER_HEADER, name),
            (KEY_HEADER, &who.public_hex()),
            (SIGNATURE_HEADER, &who.sign(&claim)),
        ],
    );
    let json = serde_json::from_str(&words).unwrap_or(serde_json::Value::String(words));
    (status, json)
}

/// Today's run started for `name` by `who`: its number and seed.
fn started(site: &Site, who: &Identity, name: &str) -> (i64, u64) {
    let (status, started) = start(site, who, name, &today());
    assert_eq!(status, 200, "{started}");
    let run = started["run"].as_i64().unwrap();
    (run, started["seed"].as_str().unwrap().parse().unwrap())
}

/// Sends `events` as run `run`'s from `first`, as `name` signed by `who`.
fn send(
    site: &Site,
    run: i64,
    first: u64,
    events: &[Event],
    who: &Identity,
    name: &str,
) -> (u16, String) {
    send_bytes(
        site,
        run,
        first,
        &sandglass_replay::events_to_bytes(events),
        who,
        name,
    )
}

fn send_bytes(
    site: &Site,
    run: i64,
    first: u64,
    bytes: &[u8],
    who: &Identity,
    name: &str,
) -> (u16, String) {
    let claim = Claim {
        server: &site.url,
        player: name,
        content: stretch_content(run, first, bytes),
    };
    site.post_to(
        &format!("/runs/{run}/events?from={first}"),
        bytes,
        &[
            (PLAYER_HEADER, name),
            (KEY_HEADER, &who.public_hex()),
            (SIGNATURE_HEADER, &who.sign(&claim)),
        ],
    )
}

/// The rules of a day that cannot be dealt: the newest whose draws follow from one
/// another (PCG32).
fn undealt_rules() -> Rules {
    Rules::new(RulesVersion::kept(UNDEALT).unwrap(), Ruleset::NETHACK)
}

/// Rules version 14, the last whose draws cannot be dealt.
const UNDEALT: u16 = 14;

/// Today's nethack desert made as a server of rules 14 made it: a day whose draws
/// cannot be dealt, so its runs are started, their seed handed over, and streamed.
fn an_undealt_day(site: &Site) {
    site.get(&format!("/daily/{}/nethack.json", today()));
    site.pg.sql(&format!(
        "UPDATE days SET rules_version = {UNDEALT} WHERE day = utc_today() AND ruleset = 'nethack'"
    ));
}

/// A bot's game of `commands` commands from `seed`.
fn bot_events(seed: u64, commands: u64) -> Vec<Event> {
    let mut game = LiveTape::new(undealt_rules(), seed);
    Bot::new(seed).play(&mut game, commands).unwrap();
    game.into_tape().events
}

/// A bot's game of `commands` commands from `seed`, then quit if it goes on.
fn bot_run_quit(seed: u64, commands: u64) -> Vec<Event> {
    let mut game = LiveTape::new(undealt_rules(), seed);
    Bot::new(seed).play(&mut game, commands).unwrap();
    if game.state().outcome().is_none() {
        game.command(Order::Quit, &mut ()).unwrap();
    }
    game.into_tape().events
}

/// Regression: a daily run that played another player's run over (watched live, its
/// moves sent again a little after) ranked beside it, and above it once it played on
/// better past where the first fell. The first run to have kept those first moves owns
/// them; the copy is never ranked, on the day's board or after, and says whose they were.
#[test]
fn a_daily_run_that_copies_anothers_first_moves_is_never_ranked() {
    let Some(mut site) = Site::start(&[]) else {
        return;
    };
    an_undealt_day(&site);
    site.worker();
    let (alice, bob) = (Identity::generate().unwrap(), Identity::generate().unwrap());
    let (alices, seed) = started(&site, &alice, "alice");
    let (bobs, _) = started(&site, &bob, "bob");
    let events = bot_run_quit(seed, 80);
    let (status, said) = send(&site, alices, 0, &events, &alice, "alice");
    assert_eq!(status, 200, "{said}");
    let (status, said) = send(&site, bobs, 0, &events, &bob, "bob");
    assert_eq!(status, 200, "{said}");
    assert_eq!(
        site.pg
            .sql(&format!("SELECT copied_from FROM runs WHERE id = {bobs}")),
        alices.to_string()
    );
    // Both ended; only alice's is a game (bob's would be hers to the byte, begun in the
    // same second).
    wait_for(
        &site,
        "SELECT count(*) FROM runs WHERE outcome IS NOT NULL",
        "2",
    );
    wait_for(&site, "SELECT count(*) FROM verdicts WHERE ok", "1");
    let (_, board) = site.get(&format!("/daily/{}", today()));
    let alice_row = board
        .lines()
        .find(|l| l.contains("/players/alice"))
        .unwrap();
    let bob_row = board.lines().find(|l| l.contains("/players/bob")).unwrap();
    assert!(alice_row.starts_with("<tr><td>1</td>"), "{alice_row}");
    assert!(bob_row.starts_with("<tr><td></td>"), "{bob_row}");
    assert!(
        bob_row.contains("not ranked: its first 50 commands are alice's run's"),
        "{bob_row}"
    );
    // Once the day is over the run is a game on the boards: alice's; bob's is none.
    end_the_day(&site);
    let (_, all_time) = site.get("/");
    let game = |run: i64| {
        site.pg
            .sql(&format!("SELECT game FROM runs WHERE id = {run}"))
    };
    assert!(all_time.contains(&game(alices)), "{all_time}");
    assert!(all_time.contains("/players/alice"), "{all_time}");
    assert!(!all_time.contains("/players/bob"), "{all_time}");
    assert_eq!(game(bobs), "");
}

#[test]
fn forged_seeds_gaps_changed_events_second_tries_and_strangers_are_refused_in_words() {
    let Some(site) = Site::start(&[]) else { return };
    an_undealt_day(&site);
    let day = today();
    let (camel, hyena) = (Identity::generate().unwrap(), Identity::generate().unwrap());

    // Only today can be started, signed for it.
    let (status, said) = start(&site, &camel, "camel", "2000-01-01");
    assert_eq!(status, 409, "{said}");
    assert!(
        said.as_str().unwrap().contains("cannot be started"),
        "{said}"
    );
    let (status, run) = start(&site, &camel, "camel", &day);
    assert_eq!(status, 200, "{run}");
    let (id, seed) = (run["run"].as_i64().unwrap(), run["seed"].as_str().unwrap());
    let seed: u64 = seed.parse().unwrap();
    // A start whose answer was lost is given again, with no events sent yet.
    let (status, again) = start(&site, &camel, "camel", &day);
    assert_eq!((status, &again["run"]), (200, &run["run"]));

    let events = bot_events(seed, 40);
    let half = &events[..events.len() / 2];
    // A gap: the server holds none, this starts further on.
    let (status, said) = send(&site, id, 5, &events[5..], &camel, "camel");
    assert_eq!(status, 409, "{said}");
    assert!(said.contains("a gap: the server holds 0 events"), "{said}");
    // A stranger's key, and a forged signature.
    let (status, said) = send(&site, id, 0, half, &hyena, "camel");
    assert_eq!(status, 403, "{said}");
    let bytes = sandglass_replay::events_to_bytes(half);
    let wrong = Claim {
        server: &site.url,
        player: "camel",
        content: stretch_content(id, 1, &bytes),
    };
    let (status, said) = site.post_to(
        &format!("/runs/{id}/events?from=0"),
        &bytes,
        &[
            (PLAYER_HEADER, "camel"),
            (KEY_HEADER, &camel.public_hex()),
            (SIGNATURE_HEADER, &camel.sign(&wrong)),
        ],
    );
    assert_eq!(status, 401, "{said}");
    // Damaged bytes.
    let (status, said) = send_bytes(&site, id, 0, b"\x05\x01", &camel, "camel");
    assert_eq!(status, 422, "{said}");
    assert_eq!(
        site.pg
            .sql(&format!("SELECT events FROM runs WHERE id = {id}")),
        "0"
    );

    // The first half, then the same again (a repeat whose answer was lost), then the rest
    // overlapping it: each event held once.
    assert_eq!(send(&site, id, 0, half, &camel, "camel").0, 200);
    assert_eq!(send(&site, id, 0, half, &camel, "camel").0, 200);
    let (status, said) = send(&site, id, 1, &events[1..], &camel, "camel");
    assert_eq!(status, 200, "{said}");
    assert_every_event_once(&site, id, events.len() as u64);
    // A repeat that differs from what is held.
    let mut changed = events[..3].to_vec();
    changed[1] = Event::Draw(12345);
    let (status, said) = send(&site, id, 0, &changed, &camel, "camel");
    assert_eq!(status, 409, "{said}");
    assert!(said.contains("event 1 differs"), "{said}");
    // One try a day, once the run has events.
    let (status, said) = start(&site, &camel, "camel", &day);
    assert_eq!(status, 409, "{said}");
    assert!(said.as_str().unwrap().contains("one try a day"), "{said}");
    // A game played from the day's seed is not published while the day lasts: sent to
    // the boards, it is refused, and nothing of it is kept.
    let header = Header::of(undealt_rules(), seed, 0);
    let game = Recording::record(header, events.clone()).unwrap();
    let kept = site.objects_kept();
    let (status, said) = site.submit(&sandglass_replay::to_bytes(&game), &camel, "camel");
    assert_eq!(status, 403, "{said}");
    assert!(
        said.contains(&format!("the daily desert of {day}, kept secret")),
        "{said}"
    );
    assert_eq!(site.objects_kept(), kept);
    assert_eq!(site.pg.sql("SELECT count(*) FROM games"), "0");

    // A run played from another seed than the day's: refused at its first draw, and
    // stopped there.
    let (status, run) = start(&site, &hyena, "hyena", &day);
    assert_eq!(status, 200, "{run}");
    let id = run["run"].as_i64().unwrap();
    let forged = bot_events(seed.wrapping_add(1), 10);
    let (status, said) = send(&site, id, 0, &forged, &hyena, "hyena");
    assert_eq!(status, 422, "{said}");
    assert!(
        said.contains("does not fold") && said.contains("differs from the generator"),
        "{said}"
    );
    let (status, said) = send(&site, id, 0, &events, &hyena, "hyena");
    assert_eq!(status, 409, "{said}");
    assert!(said.contains("was stopped"), "{said}");
    let (_, board) = site.get("/daily");
    assert!(board.contains("stopped: event 0 does not fold"), "{board}");
}

/// Live viewers held by one server process on one core: 100 runs streamed at once, each
/// a stretch (a step) every half second, sent to one server process, and 10 viewers of
/// each (1,000 in all), then 40 (4,000), on a second process pinned to one core (`taskset`), which hears
/// of each stretch through the database. Measured: from the moment a stretch is sent
/// (a step the client has made durable) to the moment each viewer has read it, p50 and
/// p99. BENCHMARKS.md quotes it.
#[test]
#[ignore = "a benchmark: cargo test --release -p sandglass-server --test daily -- --ignored --nocapture"]
fn bench_live_viewers_on_one_core() {
    for viewers_each in [10, 40] {
        live_viewers_on_one_core(viewers_each);
    }
}

fn live_viewers_on_one_core(viewers_each: usize) {
    const RUNS: usize = 100;
    const STEPS: usize = 40;
    const EVERY: Duration = Duration::from_millis(500);
    let Some(site) = Site::start(&["--burst", "100000"]) else {
        return;
    };
    an_undealt_day(&site);
    let viewers_server = site.another_server(&[]);
    let pinned = Command::new("taskset")
        .args(["-a", "-cp", "0", &viewers_server.pid().to_string()])
        .output()
        .unwrap();
    assert!(pinned.status.success(), "taskset: {pinned:?}");
    let day = today();
    // Each run's steps, played ahead by the bot, and the run started on the server.
    let runs: Vec<(i64, Identity, String, Vec<Vec<Event>>)> = (0..RUNS)
        .map(|i| {
            let who = Identity::generate().unwrap();
            let name = format!("rider-{i}");
            let (status, run) = start(&site, &who, &name, &day);
            assert_eq!(status, 200, "{run}");
            let seed: u64 = run["seed"].as_str().unwrap().parse().unwrap();
            let mut game = LiveTape::new(undealt_rules(), seed);
            let mut steps = vec![];
            let mut bot = Bot::new(i as u64);
            let mut before = 0;
            while steps.len() < STEPS && game.state().outcome().is_none() {
                if bot.play(&mut game, 1).unwrap() == 0 {
                    break;
                }
                let events = &game.tape().events;
                steps.push(events[before..].to_vec());
                before = events.len();
            }
            // The genesis draws go first, with the first command's step.
            let genesis = game.tape().events.len() - steps.iter().map(Vec::len).sum::<usize>();
            steps[0].splice(0..0, game.tape().events[..genesis].to_vec());
            (run["run"].as_i64().unwrap(), who, name, steps)
        })
        .collect();
    let sent_at: Arc<Mutex<std::collections::HashMap<(i64, u64), Instant>>> = Arc::default();
    // When the streaming began, and the viewers' server's processor time then.
    let busy = Mutex::new((Instant::now(), Duration::ZERO));
    let latencies: Arc<Mutex<Vec<Duration>>> = Arc::default();
    std::thread::scope(|scope| {
        for (run, ..) in &runs {
            for _ in 0..viewers_each {
                let (sent_at, latencies) = (sent_at.clone(), latencies.clone());
                let url = format!("{}/runs/{run}/live", viewers_server.url);
                let run = *run;
                scope.spawn(move || {
                    let agent: ureq::Agent = ureq::Agent::config_builder()
                        .timeout_global(Some(PATIENCE))
                        .build()
                        .into();
                    let response = agent.get(&url).call().unwrap();
                    let mut reader = BufReader::new(response.into_body().into_reader());
                    let mut stretches = 0;
                    let mut line = String::new();
                    while stretches < STEPS {
                        line.clear();
                        if reader.read_line(&mut line).unwrap() == 0 {
                            break;
                        }
                        let Some(data) = line.trim_end().strip_prefix("data: ") else {
                            continue;
                        };
                        let Some((first, _)) = data.split_once(' ') else {
                            continue;
                        };
                        let Ok(first) = first.parse::<u64>() else {
                            continue;
                        };
                        let now = Instant::now();
                        stretches += 1;
                        if let Some(&sent) = sent_at.lock().unwrap().get(&(run, first)) {
                            latencies.lock().unwrap().push(now - sent);
                        }
                    }
                });
            }
        }
        // Every viewer connected (as the viewers' server counts them), then every run
        // streamed at once, spread over the half second.
        let viewers = RUNS * viewers_each;
        wait_until(&format!("{viewers} viewers to connect"), || {
            live_viewers(&viewers_server.url) == viewers
        });
        *busy.lock().unwrap() = (Instant::now(), viewers_server.cpu());
        for (i, (run, who, name, steps)) in runs.iter().enumerate() {
            let (site, sent_at) = (&site, sent_at.clone());
            scope.spawn(move || {
                std::thread::sleep(EVERY * i as u32 / RUNS as u32);
                let mut first = 0;
                for step in steps {
                    let next = Instant::now() + EVERY;
                    sent_at
                        .lock()
                        .unwrap()
                        .insert((*run, first), Instant::now());
                    let (status, said) = send(site, *run, first, step, who, name);
                    assert_eq!(status, 200, "{said}");
                    first += step.len() as u64;
                    // A step every half second, the pace the benchmark plays at.
                    std::thread::sleep(next.saturating_duration_since(Instant::now()));
                }
            });
        }
    });
    let (began, cpu) = *busy.lock().unwrap();
    let core_share = (viewers_server.cpu() - cpu).as_secs_f64() / began.elapsed().as_secs_f64();
    let mut latencies = latencies.lock().unwrap().clone();
    latencies.sort();
    let at = |share: f64| latencies[((latencies.len() - 1) as f64 * share) as usize];
    println!(
        "{RUNS} runs, {} viewers on one core: {} stretches read; from sent to read: median \
         {:.1?}, p99 {:.1?}, longest {:.1?}; the viewers' server used {:.0}% of its core",
        RUNS * viewers_each,
        latencies.len(),
        at(0.5),
        at(0.99),
        at(1.0),
        core_share * 100.0
    );
}

/// The live viewers the server at `url` streams to, as its `/metrics` counts them.
fn live_viewers(url: &str) -> usize {
    let said = ureq::get(format!("{url}/metrics"))
        .call()
        .unwrap()
        .into_body()
        .read_to_string()
        .unwrap();
    said.lines()
        .find_map(|line| line.strip_prefix("sandglass_live_viewers "))
        .and_then(|count| count.parse().ok())
        .unwrap_or_else(|| panic!("no count of live viewers in {said}"))
}

#[test]
fn a_delayed_live_view_holds_every_viewer_that_many_turns_behind_the_game() {
    const DELAY: u64 = 20;
    let Some(site) = Site::start(&[]) else { return };
    an_undealt_day(&site);
    let delayed = site.another_server(&["--live-delay-turns", &DELAY.to_string()]);
    let (who, day) = (Identity::generate().unwrap(), today());
    let (status, run) = start(&site, &who, "camel", &day);
    assert_eq!(status, 200, "{run}");
    let (id, seed) = (
        run["run"].as_i64().unwrap(),
        run["seed"].as_str().unwrap().parse::<u64>().unwrap(),
    );
    // The game's turn after each step, as the test plays it.
    let mut game = LiveTape::new(undealt_rules(), seed);
    let mut bot = Bot::new(seed);
    let mut sent = 0;
    let mut ends = vec![];
    while game.state().tick().0 < 3 * DELAY && game.state().outcome().is_none() {
        bot.play(&mut game, 1).unwrap();
        let events = &game.tape().events;
        assert_eq!(
            send(&site, id, sent, &events[sent as usize..], &who, "camel").0,
            200
        );
        sent = events.len() as u64;
        ends.push((sent, game.state().tick().0));
    }
    let newest = game.state().tick().0;
    // Every stretch the game is DELAY turns past, and none it is not.
    let due = ends
        .iter()
        .filter(|(_, turn)| turn + DELAY <= newest)
        .map(|(end, _)| *end)
        .max()
        .unwrap();
    // Every stretch due comes, however long a loaded machine takes to send it; then a
    // moment more shows none past it follows (a wait that, cut short, could only miss a
    // stretch sent too early, never fail a right one).
    let ids = stream_ids(&format!("{}/runs/{id}/live", delayed.url));
    let mut held = 0;
    while held < due {
        held = ids.recv_timeout(PATIENCE).unwrap_or_else(|_| {
            panic!("waited {PATIENCE:?} for the stretches up to event {due}, given {held}")
        });
    }
    while let Ok(more) = ids.recv_timeout(Duration::from_secs(2)) {
        held = more;
    }
    assert_eq!(
        held, due,
        "exactly the stretches the game is {DELAY} turns past"
    );
    assert!(held < sent, "the newest turns are held back");
}

/// The `id:` of each stretch the live stream at `url` sends (the events held after it),
/// as they come, read on a thread of its own until the stream ends.
fn stream_ids(url: &str) -> mpsc::Receiver<u64> {
    let agent: ureq::Agent = ureq::Agent::config_builder()
        .timeout_global(Some(PATIENCE))
        .build()
        .into();
    let response = agent.get(url).call().unwrap();
    let (send, ids) = mpsc::channel();
    std::thread::spawn(move || {
        let reader = BufReader::new(response.into_body().into_reader());
        for line in reader.lines().map_while(Result::ok) {
            if let Some(id) = line.strip_prefix("id: ") {
                if send.send(id.parse().unwrap()).is_err() {
                    return;
                }
            }
        }
    });
    ids
}

#[cfg_attr(
    lacks_chromium,
    ignore = "skipped: Chromium is not installed (.ci/run installs it)"
)]
#[test]
fn the_days_board_and_a_run_watched_live_in_a_browser_reach_the_runs_hash() {
    let Some(client) = client() else { return };
    if !browser::chromium_installed() {
        return;
    }
    let web = Path::new(env!("CARGO_MANIFEST_DIR")).join("../web/dist");
    if !web.join("sandglass.wasm").is_file() {
        let message = "the web viewer is not built (cargo xtask web; .ci/run sees to it)";
        assert!(std::env::var_os("CI").is_none(), "{message}");
        eprintln!("SKIPPED: {message}");
        return;
    }
    let Some(mut site) = Site::start(&["--web", web.to_str().unwrap()]) else {
        return;
    };
    site.worker();
    let shots = Path::new(env!("CARGO_MANIFEST_DIR")).join("../target/tmp/daily");
    std::fs::create_dir_all(&shots).unwrap();
    let player = Player::new();
    // Slow enough to be watched as it goes.
    let daily = player.daily(
        &client,
        &site.url,
        "camel",
        &["--bot", "100000", "--pace-ms", "15"],
    );
    let run = daily.run();
    wait_for(
        &site,
        &format!("SELECT events > 0 FROM runs WHERE id = {run}"),
        "t",
    );
    let mut browser = browser::Devtools::open();
    browser.go_to(&format!("{}/daily", site.url));
    browser.wait_for(
        "document.body.innerText.includes('watch live')",
        "the day's board",
    );
    std::fs::write(shots.join("1-board-while-played.png"), browser.screenshot()).unwrap();
    let watch = browser
        .evaluate("Array.from(document.links).find(a => a.textContent == 'watch live').href");
    assert!(watch.contains("live="), "{watch}");
    browser.go_to(&watch);
    browser.wait_for(
        "document.getElementById('status').textContent.toLowerCase().includes('live')",
        "the viewer to follow the run live",
    );
    // A moment of the run watched live, for the picture: nothing is judged from it.
    std::thread::sleep(Duration::from_secs(2));
    std::fs::write(shots.join("2-watched-live.png"), browser.screenshot()).unwrap();
    let (events, hash) = daily.played();
    all_sent_and_verified(&site, daily, run, events, &hash);
    let reached = format!("document.getElementById('verdict').textContent.includes('{hash}')");
    browser.wait_for(&reached, "the viewer to reach the run's final hash");
    let verdict = browser.evaluate("document.getElementById('verdict').textContent");
    assert!(
        verdict.starts_with(&format!("ok camel's run of {} (run {run})", today())),
        "the verdict names the player and the day: {verdict}"
    );
    std::fs::write(shots.join("3-watched-to-the-end.png"), browser.screenshot()).unwrap();
    browser.go_to(&format!("{}/daily", site.url));
    browser.wait_for(
        "document.body.innerText.includes('camel')",
        "the day's board",
    );
    std::fs::write(shots.join("4-board-ranked.png"), browser.screenshot()).unwrap();
}

/// The window's way in: Daily desert on the start screen asks a player who has named
/// no server for one and for a name, starts the day's run there, and streams it as it is
/// played; the run, quit, is held whole by the server and verified to the hash the window
/// reported; the server and name are remembered once the server has taken them.
#[cfg_attr(
    lacks_xvfb,
    ignore = "skipped: Xvfb, xdotool or ImageMagick is not installed (.ci/run installs them)"
)]
#[test]
fn the_daily_desert_from_the_start_screen_names_the_server_and_is_dealt_step_by_step() {
    let Some(client) = client() else { return };
    let Some(shots) = xvfb::screenshots_or_skip("daily-window") else {
        return;
    };
    let Some(mut site) = Site::start(&[]) else {
        return;
    };
    site.worker();
    let player = Player::new();
    let display = xvfb::Xvfb::start();
    let mut child = Command::new(&client)
        .arg("--config-dir")
        .arg(player.config.path())
        .arg("--data-dir")
        .arg(player.data.path())
        .env("DISPLAY", &display.name)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let window = Daily {
        lines: lines_of(&mut child),
        child,
    };
    let id = display.find_window();
    // Keys paced as a player's: what each leads to is waited for by the lines and the
    // database below, not by this.
    let xdotool = |args: &[&str]| {
        xvfb::xdotool(&display.name, args);
        std::thread::sleep(Duration::from_millis(200));
    };
    let key = |key: &str| xdotool(&["key", "--window", &id, key]);
    let typed = |text: &str| xdotool(&["type", "--window", &id, "--delay", "30", text]);
    // A few frames for the last key to show, for the pictures: nothing is judged
    // from them.
    let shot = |name: &str| {
        std::thread::sleep(Duration::from_millis(400));
        xvfb::screenshot(&display.name, &shots.join(format!("{name}.png")));
    };
    key("d");
    typed(&site.url);
    key("Return");
    typed("dune");
    shot("1-naming-the-server");
    key("Return");
    window.line("game ");
    // Six turns waited out: commands the camel can always take, each dealt by the
    // server before the window says it was played.
    for _ in 0..6 {
        key("period");
        window.line("ack ");
    }
    // A run is bound to its player by its first command.
    let run = wait_for_run(&site, "dune");
    shot("2-the-days-run-dealt");
    key("Q");
    key("y");
    // Past the last --more--: the game is left for the end screen, its hash said.
    let leaving = Instant::now();
    let hash = 'left: loop {
        assert!(leaving.elapsed() < PATIENCE, "the game was not left");
        key("space");
        while let Ok(line) = window.lines.recv_timeout(Duration::from_secs(2)) {
            if let Some(hash) = line.strip_prefix("hash ") {
                break 'left hash.to_owned();
            }
        }
    };
    shot("3-quit-and-sent");
    wait_for(
        &site,
        &format!("SELECT outcome FROM runs WHERE id = {run}"),
        "quit",
    );
    let events: u64 = site
        .pg
        .sql(&format!("SELECT events FROM runs WHERE id = {run}"))
        .parse()
        .unwrap();
    let turns = site
        .pg
        .sql(&format!("SELECT turns FROM runs WHERE id = {run}"));
    assert!(turns.parse::<u64>().unwrap() >= 6, "{turns} turns");
    assert_every_event_once(&site, run, events);
    let game = site
        .pg
        .sql(&format!("SELECT game FROM runs WHERE id = {run}"));
    let verdict = format!("SELECT final_hash FROM verdicts WHERE game = '{game}'");
    wait_for(&site, &verdict, &hash);
    let settings = std::fs::read_to_string(player.config.path().join("settings.json")).unwrap();
    assert!(
        settings.contains(&format!("\"server\": \"{}\"", site.url))
            && settings.contains("\"player\": \"dune\""),
        "{settings}"
    );
    key("q");
    assert!(window.end().is_ok());
}

/// The run `player` started today, once the server has made it.
fn wait_for_run(site: &Site, player: &str) -> i64 {
    let sql = format!(
        "SELECT r.id FROM runs r JOIN players p ON p.id = r.player_id WHERE p.name = '{player}'"
    );
    let mut run = None;
    wait_until(&format!("a run of {player}'s"), || {
        run = site.pg.sql(&sql).parse().ok();
        run.is_some()
    });
    run.expect("waited for")
}

/// From a step durable on the player's disk to a viewer's read of it: 20 real
/// `sandglass daily --bot` clients, each a step every half second, each step's durable
/// moment printed by the client (`--report-steps`, the wall clock both read), and 10
/// viewers of each run on a second server process. Every step a viewer reads after it
/// connected counts, each against its own durable moment. BENCHMARKS.md quotes it.
#[test]
#[ignore = "a benchmark: cargo test --release -p sandglass-server --test daily -- --ignored --nocapture"]
fn bench_from_a_durable_step_to_a_viewer() {
    use std::time::{SystemTime, UNIX_EPOCH};
    const CLIENTS: usize = 20;
    const VIEWERS_EACH: usize = 10;
    let Some(client) = client() else { return };
    let Some(site) = Site::start(&["--burst", "100000"]) else {
        return;
    };
    let viewers_server = site.another_server(&[]);
    let micros = || {
        SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .unwrap()
            .as_micros()
    };
    let players: Vec<Player> = (0..CLIENTS).map(|_| Player::new()).collect();
    let latencies: Mutex<Vec<u128>> = Mutex::default();
    std::thread::scope(|scope| {
        for (i, player) in players.iter().enumerate() {
            let daily = player.daily(
                &client,
                &site.url,
                &format!("rider-{i}"),
                &["--bot", "60", "--pace-ms", "500", "--report-steps"],
            );
            let run = daily.run();
            // Each viewer's reads: (first, end, read at), and when it connected.
            let reads: Vec<_> = (0..VIEWERS_EACH)
                .map(|_| {
                    let url = format!("{}/runs/{run}/live", viewers_server.url);
                    scope.spawn(move || {
                        // The runs do not end (60 commands): each viewer reads for the
                        // 30 s they are played, and a while more.
                        let agent: ureq::Agent = ureq::Agent::config_builder()
                            .timeout_global(Some(Duration::from_secs(45)))
                            .build()
                            .into();
                        let response = agent.get(&url).call().unwrap();
                        let connected = micros();
                        let mut reader = BufReader::new(response.into_body().into_reader());
                        let (mut read, mut line) = (vec![], String::new());
                        while reader.read_line(&mut line).unwrap_or(0) > 0 {
                            let data = line.trim_end().strip_prefix("data: ");
                            if let Some((first, bytes)) = data.and_then(|d| d.split_once(' ')) {
                                if let Ok(first) = first.parse::<u64>() {
                                    let bytes = base64::engine::general_purpose::STANDARD
                                        .decode(bytes)
                                        .unwrap();
                                    let count =
                                        sandglass_replay::events_from_bytes(&bytes).unwrap().len()
                                            as u64;
                                    read.push((first, first + count, micros()));
                                }
                            }
                            line.clear();
                        }
                        (connected, read)
                    })
                })
                .collect();
            let latencies = &latencies;
            scope.spawn(move || {
                let durable: Vec<(u64, u128)> = daily
                    .lines
                    .iter()
                    .filter_map(|l| {
                        let mut parts = l.strip_prefix("durable ")?.split(' ');
                        Some((parts.next()?.parse().ok()?, parts.next()?.parse().ok()?))
                    })
                    .collect();
                let mut daily = daily;
                assert!(daily.child.wait().unwrap().success());
                for viewer in reads {
                    let (connected, read) = viewer.join().unwrap();
                    for (first, end, at) in read {
                        for &(events, when) in &durable {
                            if first < events && events <= end && when > connected {
                                latencies.lock().unwrap().push(at.saturating_sub(when));
                            }
                        }
                    }
                }
            });
        }
    });
    let mut latencies = latencies.into_inner().unwrap();
    latencies.sort();
    let at = |share: f64| latencies[((latencies.len() - 1) as f64 * share) as usize] as f64 / 1e3;
    println!(
        "{CLIENTS} clients, {} viewers: {} steps read; from durable to read: median {:.1} ms, \
         p99 {:.1} ms, longest {:.1} ms",
        CLIENTS * VIEWERS_EACH,
        latencies.len(),
        at(0.5),
        at(0.99),
        at(1.0)
    );
}

/// The event names a live stream sends until it ends, read from a viewer's connection.
fn stream_until_closed(url: &str) -> Vec<String> {
    let agent: ureq::Agent = ureq::Agent::config_builder()
        .timeout_global(Some(PATIENCE))
        .build()
        .into();
    let response = agent.get(url).call().unwrap();
    let reader = BufReader::new(response.into_body().into_reader());
    reader
        .lines()
        .map_while(Result::ok)
        .filter_map(|line| line.strip_prefix("event: ").map(str::to_owned))
        .collect()
}

/// SIGTERM with viewers watching a run that has not ended: each is told the server is
/// stopping and its stream closed, so the server stops at once rather than waiting for
/// viewers who would never leave; a viewer that connects again to the server started
/// anew goes on from the events it held.
#[test]
fn a_server_stopping_tells_its_live_viewers_and_they_go_on_from_the_next() {
    let Some(mut site) = Site::start(&[]) else {
        return;
    };
    an_undealt_day(&site);
    let camel = Identity::generate().unwrap();
    let (run, seed) = started(&site, &camel, "camel");
    let events = bot_events(seed, 6);
    let half = events.len() / 2;
    let (status, words) = send(&site, run, 0, &events[..half], &camel, "camel");
    assert_eq!(status, 200, "{words}");
    let live = format!("{}/runs/{run}/live", site.url);
    let viewers: Vec<_> = (0..3)
        .map(|_| {
            let live = live.clone();
            std::thread::spawn(move || stream_until_closed(&live))
        })
        .collect();
    wait_until("the server to count its three live viewers", || {
        site.get("/metrics").1.contains("sandglass_live_viewers 3")
    });
    let asked = Instant::now();
    assert!(site.terminate_server().success());
    let stopped_in = asked.elapsed();
    assert!(
        stopped_in < sandglass_server::edge::STOP_PATIENCE,
        "the server waited {stopped_in:?} for its viewers to leave"
    );
    for viewer in viewers {
        let said = viewer.join().unwrap();
        assert_eq!(said.first().map(String::as_str), Some("header"), "{said:?}");
        assert_eq!(
            said.last().map(String::as_str),
            Some("stopping"),
            "{said:?}"
        );
    }
    // Started again at the same address: a viewer goes on from what it held, and the
    // rest of the run reaches it.
    site.start_again(&[]);
    let (status, words) = send(&site, run, half as u64, &events[half..], &camel, "camel");
    assert_eq!(status, 200, "{words}");
    let agent: ureq::Agent = ureq::Agent::config_builder()
        .timeout_global(Some(PATIENCE))
        .build()
        .into();
    let response = agent.get(format!("{live}?from={half}")).call().unwrap();
    let mut reader = BufReader::new(response.into_body().into_reader());
    let mut line = String::new();
    let mut first = None;
    while first.is_none() && reader.read_line(&mut line).unwrap() > 0 {
        first = line
            .strip_prefix("data: ")
            .and_then(|data| data.split_once(' '))
            .and_then(|(first, _)| first.parse::<usize>().ok());
        line.clear();
    }
    assert_eq!(first, Some(half), "the stream went on from the events held");
}

/// Waits for `done`, up to the tests' patience, and names what it waited for if it
/// never came.
fn wait_until(what: &str, mut done: impl FnMut() -> bool) {
    let start = Instant::now();
    while !done() {
        assert!(start.elapsed() < PATIENCE, "gave up waiting for {what}");
        std::thread::sleep(Duration::from_millis(20));
    }
}

/// A daily start binds nothing: no name taken, no row among those playing, until the
/// run's first stretch lands; a start that never streams is forgotten after an hour, and
/// the same player starting again meanwhile is given the same run.
#[test]
fn a_daily_start_binds_nothing_until_its_first_stretch() {
    let Some(site) = Site::start(&[]) else { return };
    an_undealt_day(&site);
    let day = today();
    let camel = Identity::generate().unwrap();
    let (status, first) = start(&site, &camel, "camel", &day);
    assert_eq!(status, 200, "{first}");
    let (status, again) = start(&site, &camel, "camel", &day);
    assert_eq!(status, 200, "{again}");
    assert_eq!(first["run"], again["run"], "a lost answer is given again");
    assert_eq!(site.get("/players/camel").0, 404);
    let (_, board) = site.get("/daily");
    assert!(!board.contains("camel"), "{board}");
    assert_eq!(site.pg.sql("SELECT count(*) FROM players"), "0");

    // Its first stretch binds the name, and the run is on the day's board.
    let run = first["run"].as_i64().unwrap();
    let seed: u64 = first["seed"].as_str().unwrap().parse().unwrap();
    let events = bot_events(seed, 2);
    let (status, words) = send(&site, run, 0, &events, &camel, "camel");
    assert_eq!(status, 200, "{words}");
    assert_eq!(site.get("/players/camel").0, 200);
    let (_, board) = site.get("/daily");
    assert!(board.contains("camel"), "{board}");

    // Starts that never stream, from many keys, are forgotten once an hour old.
    for i in 0..5 {
        let who = Identity::generate().unwrap();
        assert_eq!(start(&site, &who, &format!("lurker{i}"), &day).0, 200);
    }
    let pending = "SELECT count(*) FROM runs WHERE player_id IS NULL";
    assert_eq!(site.pg.sql(pending), "5");
    site.pg.sql(
        "UPDATE runs SET started_at = started_at - interval '2 hours' WHERE player_id IS NULL",
    );
    assert_eq!(
        start(&site, &Identity::generate().unwrap(), "late", &day).0,
        200
    );
    assert_eq!(site.pg.sql(pending), "1");
    assert_eq!(site.pg.sql("SELECT count(*) FROM players"), "1");
}

/// A flood of junk stretches at a run: refused before its row is locked or a byte of
/// them folded, each said in words; past the allowance of the address (and of the key
/// it claims there), 429 with Retry-After. Its player, at another address behind the
/// proxy the server trusts, streams on as ever.
#[test]
fn a_flood_of_stretches_is_answered_429_and_holds_up_the_runs_player_not_at_all() {
    let Some(site) = Site::start(&["--trust-proxy", "127.0.0.1"]) else {
        return;
    };
    an_undealt_day(&site);
    let camel = Identity::generate().unwrap();
    let (run, seed) = started(&site, &camel, "camel");
    let events = bot_events(seed, 3);
    let agent: ureq::Agent = ureq::Agent::config_builder()
        .http_status_as_error(false)
        .build()
        .into();
    let post = |address: &str, signature: &str, bytes: &[u8]| {
        let mut answer = agent
            .post(format!("{}/runs/{run}/events?from=0", site.url))
            .header("x-forwarded-for", address)
            .header(PLAYER_HEADER, "camel")
            .header(KEY_HEADER, camel.public_hex())
            .header(SIGNATURE_HEADER, signature)
            .send(bytes)
            .unwrap();
        let retry_after = answer.headers().get("retry-after").is_some();
        let words = answer.body_mut().read_to_string().unwrap();
        (answer.status().as_u16(), words, retry_after)
    };
    // Mallory floods in camel's name: forged stretches, read and refused, until the
    // address's allowance of the name runs out.
    let forged = "ab".repeat(64);
    let mut statuses = std::collections::BTreeMap::<u16, u32>::new();
    let flooding = Instant::now();
    let allowance = sandglass_server::limits::STRETCHES;
    let refilled = || flooding.elapsed().as_secs_f64() * f64::from(allowance.per_minute) / 60.0;
    // Until the first 429: the burst, and what the bucket filled with meanwhile (the
    // more, the slower the machine), is read and refused in words.
    loop {
        let (status, words, retry_after) = post("10.0.0.66", &forged, b"junk");
        *statuses.entry(status).or_default() += 1;
        match status {
            401 => assert!(words.contains("does not match"), "{words}"),
            429 => {
                assert!(retry_after && words.contains("stretches"), "{words}");
                break;
            }
            _ => panic!("{status}: {words}"),
        }
        let sent: u32 = statuses.values().sum();
        let due = f64::from(allowance.burst) + refilled() + 50.0;
        assert!(
            f64::from(sent) <= due && sent <= 3 * allowance.burst,
            "no 429 after {sent} stretches in {:?}",
            flooding.elapsed()
        );
    }
    let refilled = refilled();
    let read = f64::from(statuses[&401]);
    assert!(
        read >= f64::from(allowance.burst) && read <= f64::from(allowance.burst) + refilled + 1.0,
        "{statuses:?} in {:?}",
        flooding.elapsed()
    );
    // Nothing of it reached the run: no event held, no player bound by it.
    assert_eq!(
        site.pg
            .sql(&format!("SELECT events FROM runs WHERE id = {run}")),
        "0"
    );
    // Camel, from home, streams as ever.
    let bytes = sandglass_replay::events_to_bytes(&events);
    let claim = Claim {
        server: &site.url,
        player: "camel",
        content: stretch_content(run, 0, &bytes),
    };
    let (status, words, _) = post("10.0.0.7", &camel.sign(&claim), &bytes);
    assert_eq!(status, 200, "{words}");
}

/// Begins today's dealt nethack run as `name` under `who`: the answer, as JSON or words.
fn deal(site: &Site, who: &Identity, name: &str, day: &str) -> (u16, serde_json::Value) {
    let content = daily_deal_content(day, "nethack");
    let path = format!("/daily/{day}/nethack/deal");
    signed_post(site, &path, &[], content, who, name)
}

/// Sends `command` as run `run`'s event `at`, as `name` signed by `who`.
fn send_command(
    site: &Site,
    run: i64,
    at: u64,
    command: Order,
    who: &Identity,
    name: &str,
) -> (u16, serde_json::Value) {
    let bytes = sandglass_replay::events_to_bytes(&[Event::Command(command)]);
    let path = format!("/runs/{run}/commands?at={at}");
    signed_post(
        site,
        &path,
        &bytes,
        command_content(run, at, &bytes),
        who,
        name,
    )
}

/// A dealt run's client: the game as the server deals it, folded here, and what every
/// answer was checked to hold back.
struct Dealt {
    run: i64,
    state: State,
    events: Vec<Event>,
    /// The day's seed in every spelling an answer must never hold it in.
    secret: Vec<String>,
}

impl Dealt {
    /// The run `dealing` begins, its opening folded.
    fn new(dealing: &serde_json::Value, seed: u64) -> Dealt {
        let rules = Rules::newest(Ruleset::NETHACK);
        assert_eq!(dealing["rules"], rules.version().number());
        let mut dealt = Dealt {
            run: dealing["run"].as_i64().unwrap(),
            state: State::new(rules, &mut ()),
            events: vec![],
            secret: vec![
                seed.to_string(),
                format!("{seed:x}"),
                format!("{seed:016x}"),
            ],
        };
        dealt.take(&dealing["opening"], None);
        dealt
    }

    /// Folds what the server dealt after `command` (if any); checks that it holds no
    /// spelling of the seed, that its hash is the fold's, and that it holds exactly the
    /// draws the game needed: none past the camel's next command.
    fn take(&mut self, answer: &serde_json::Value, command: Option<Order>) {
        let text = answer.to_string();
        for secret in &self.secret {
            assert!(!text.contains(secret.as_str()), "the seed in {text}");
        }
        assert_eq!(
            answer["first"],
            self.events.len() as u64 + u64::from(command.is_some())
        );
        let draws = answer["draws"].as_array().unwrap();
        let mut new: Vec<Event> = command.map(Event::Command).into_iter().collect();
        new.extend(
            draws
                .iter()
                .map(|d| Event::Draw(d.as_u64().unwrap() as u32)),
        );
        fold_on(&mut self.state, new.iter().copied(), &mut ()).unwrap();
        self.events.extend(new);
        assert_eq!(answer["hash"], format!("{:016x}", self.state.hash()));
        assert_eq!(answer["events"], self.events.len() as u64);
        let over = self.state.outcome().is_some();
        assert!(over || self.state.need() == Need::Command, "a draw short");
        assert_eq!(answer["outcome"].is_null(), !over);
    }

    /// Plays `command` through the server: the status, and the answer once folded. A
    /// bot outruns the commands a key may send in a minute on a fast machine; a 429 keeps
    /// nothing, so the same step is sent again once the key's bucket refills, as the
    /// client does.
    fn play(&mut self, site: &Site, who: &Identity, command: Order) -> u16 {
        let at = self.events.len() as u64;
        loop {
            let (status, answer) = send_command(site, self.run, at, command, who, "camel");
            if status == 429 {
                assert!(answer.to_string().contains("try again later"), "{answer}");
                std::thread::sleep(Duration::from_secs(1));
                continue;
            }
            assert_eq!(status, 200, "{command:?} at {at}: {answer}");
            self.take(&answer, Some(command));
            return status;
        }
    }
}

/// The day's seed as the server keeps it: the test's own look behind its back.
fn kept_seed(site: &Site) -> u64 {
    site.pg
        .sql("SELECT seed FROM days WHERE ruleset = 'nethack'")
        .parse()
        .unwrap()
}

#[test]
fn a_dealt_bot_run_never_holds_its_seed_and_verifies_against_it_once_the_day_is_over() {
    let Some(mut site) = Site::start(&[]) else {
        return;
    };
    site.worker();
    let day = today();
    let camel = Identity::generate().unwrap();
    let (status, dealing) = deal(&site, &camel, "camel", &day);
    assert_eq!(status, 200, "{dealing}");
    let seed = kept_seed(&site);
    let mut run = Dealt::new(&dealing, seed);
    // A dealing whose answer was lost is given again: the same opening.
    let (status, again) = deal(&site, &camel, "camel", &day);
    assert_eq!((status, &again), (200, &dealing));

    let mut bot = Bot::new(7);
    let mut commands = 0;
    while run.state.outcome().is_none() {
        let command = bot
            .choose(&run.state)
            .expect("the bot plays while the game goes on");
        run.play(&site, &camel, command);
        commands += 1;
        // Halfway through the first level the server is killed: it holds every step
        // kept, and the next command is dealt by its successor, which folds the run again.
        if commands == 60 {
            site.kill_server();
            site.start_again(&[]);
        }
    }
    let events = run.events.len() as u64;
    assert_every_event_once(&site, run.run, events);
    // The finished run is a game, its seed still kept: the day is not over.
    let (_, today_json) = site.get(&format!("/daily/{day}/nethack.json"));
    assert!(today_json.contains(r#""seed":null"#), "{today_json}");

    // The day ends: its seed is shown, and the run's tape verifies against it.
    let after = end_the_day(&site);
    let shown: u64 = after["seed"].as_str().unwrap().parse().unwrap();
    let header = Header::of(
        Rules::newest(Ruleset::NETHACK),
        shown,
        dealing["started"].as_u64().unwrap(),
    );
    let tape = Recording::record(header, run.events.clone()).expect("the tape verifies");
    assert_eq!(tape.final_hash, run.state.hash());
    let game = site
        .pg
        .sql(&format!("SELECT game FROM runs WHERE id = {}", run.run));
    let (_, bytes) = (0, site.get_bytes(&format!("/replays/{game}.sgr")));
    assert_eq!(
        bytes,
        sandglass_replay::to_bytes(&tape),
        "the server's game is the client's"
    );
    let verdict = format!("SELECT final_hash FROM verdicts WHERE game = '{game}'");
    wait_for(&site, &verdict, &format!("0x{:016x}", run.state.hash()));
}

#[test]
fn a_dealt_runs_strangers_gaps_illegal_and_changed_commands_are_refused_in_words() {
    let Some(site) = Site::start(&[]) else { return };
    let day = today();
    let (camel, hyena) = (Identity::generate().unwrap(), Identity::generate().unwrap());
    let (status, dealing) = deal(&site, &camel, "camel", &day);
    assert_eq!(status, 200, "{dealing}");
    let mut run = Dealt::new(&dealing, kept_seed(&site));
    let id = run.run;
    let at = run.events.len() as u64;
    let held = || {
        site.pg
            .sql(&format!("SELECT events FROM runs WHERE id = {id}"))
    };

    // Another's key; a command out of turn; an illegal command: each refused, nothing kept.
    let (status, said) = send_command(&site, id, at, Order::Rest, &hyena, "camel");
    assert_eq!(status, 403, "{said}");
    let (status, said) = send_command(&site, id, at + 3, Order::Rest, &camel, "camel");
    assert_eq!(status, 409, "{said}");
    assert!(
        said.as_str().unwrap().contains(&format!("send from {at}")),
        "{said}"
    );
    let (status, said) = send_command(&site, id, at, Order::Eat(Slot(25)), &camel, "camel");
    assert_eq!(status, 422, "{said}");
    assert!(
        said.as_str()
            .unwrap()
            .contains("not a command the camel can make"),
        "{said}"
    );
    assert_eq!(held(), "0");
    // Draws sent as if the client dealt them: refused.
    let bytes = sandglass_replay::events_to_bytes(&[Event::Draw(1)]);
    let path = format!("/runs/{id}/commands?at={at}");
    let content = command_content(id, at, &bytes);
    let (status, said) = signed_post(&site, &path, &bytes, content, &camel, "camel");
    assert_eq!(status, 422, "{said}");

    // The run goes on after every refusal.
    run.play(&site, &camel, Order::Rest);
    let first = run.events.clone();
    // The same command sent again (its answer lost): the same draws, nothing doubled.
    let (status, again) = send_command(&site, id, at, Order::Rest, &camel, "camel");
    assert_eq!(status, 200, "{again}");
    assert_eq!(again["events"], first.len() as u64);
    let dealt: Vec<u64> = first[at as usize + 1..]
        .iter()
        .map(|e| match e {
            Event::Draw(d) => u64::from(*d),
            Event::Command(_) => panic!("a command among the draws"),
        })
        .collect();
    let again_draws: Vec<u64> = again["draws"]
        .as_array()
        .unwrap()
        .iter()
        .map(|d| d.as_u64().unwrap())
        .collect();
    assert_eq!(again_draws, dealt);
    assert_every_event_once(&site, id, first.len() as u64);
    // Another command where one was dealt: refused, the run as it was.
    let (status, said) = send_command(&site, id, at, Order::Move(Direction::N), &camel, "camel");
    assert_eq!(status, 409, "{said}");
    assert!(
        said.as_str().unwrap().contains("never change once sent"),
        "{said}"
    );
    assert_every_event_once(&site, id, first.len() as u64);

    // A dealt run is sent no stretches, and is one try a day, begun one way.
    let (status, said) = send(
        &site,
        id,
        first.len() as u64,
        &[Event::Draw(1)],
        &camel,
        "camel",
    );
    assert_eq!(status, 409, "{said}");
    assert!(said.contains("is dealt"), "{said}");
    let (status, said) = deal(&site, &camel, "camel", &day);
    assert_eq!(status, 409, "{said}");
    assert!(said.as_str().unwrap().contains("one try a day"), "{said}");
    // A dealt day is never started: a start would hand its seed over.
    let (status, said) = start(&site, &hyena, "hyena", &day);
    assert_eq!(status, 409, "{said}");
    assert!(said.as_str().unwrap().contains("is dealt"), "{said}");
    assert!(!said
        .as_str()
        .unwrap()
        .contains(&kept_seed(&site).to_string()));
    let (status, said) = deal(&site, &hyena, "hyena", &day);
    assert_eq!(status, 200, "{said}");
}

/// From a dealt run's command sent to its draws received, on loopback with PostgreSQL on
/// the same machine: a bot's whole run, one command at a time, p50 and p99.
/// BENCHMARKS.md quotes it.
#[test]
#[ignore = "a benchmark: cargo test --release -p sandglass-server --test daily bench_dealt -- --ignored --nocapture"]
fn bench_dealt_commands_on_loopback() {
    let Some(site) = Site::start(&[]) else { return };
    let camel = Identity::generate().unwrap();
    let (status, dealing) = deal(&site, &camel, "camel", &today());
    assert_eq!(status, 200, "{dealing}");
    let mut run = Dealt::new(&dealing, kept_seed(&site));
    let mut bot = Bot::new(11);
    let mut took = vec![];
    while run.state.outcome().is_none() {
        let command = bot.choose(&run.state).unwrap();
        let start = Instant::now();
        run.play(&site, &camel, command);
        took.push(start.elapsed());
    }
    took.sort();
    let at = |q: usize| took[(took.len() - 1) * q / 100];
    println!(
        "{} commands dealt: p50 {:?}, p99 {:?}, most {:?}",
        took.len(),
        at(50),
        at(99),
        took[took.len() - 1]
    );
}
