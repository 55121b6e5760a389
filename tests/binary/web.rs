//! The web replay viewer in a real browser: the page in `web/dist/` (`cargo xtask web`,
//! which `.ci/run` runs before the tests) served on 127.0.0.1 and opened in headless
//! Chromium on a golden must give, on the page, the line `sandglass verify --json` gives
//! of it (the final hash with it), and draw the map; a damaged file must be refused there
//! in verify's words; the million-event golden, played at 64x, reports its frame rate;
//! and the window's glyph-size keys size the map on the page. A game watched live
//! (`?live=URL`, from `common::live`'s server, through a dropped connection) reaches the
//! golden's final hash on the page, and a stretch that is no base64 is refused there.
//!
//! The tests drive Chromium through the DevTools protocol (`Devtools`): open the page,
//! wait (in real time, up to a deadline) for what it shows, read its DOM, drop a file,
//! press a key, take a screenshot. The frame rate is read from what the page logs on the
//! console once a second (`sandglass ...`, web/sandglass.js), on Chromium's stderr.
//! Without Chromium or the page, the tests say so and pass, except in CI (`CI` set),
//! where a missing one is a failure.

mod browser;
mod common;

use std::collections::BTreeMap;
use std::io::{BufRead, BufReader, Write};
use std::net::{SocketAddr, TcpListener, TcpStream};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::{mpsc, Arc};
use std::time::{Duration, Instant};

use browser::{chromium, Devtools, CHROMIUM, DEADLINE};
use common::live::{Damage, LiveServer, Plan};
use common::{stdout, BIN};
use sandglass_sim::rules;
use serde_json::json;

fn workspace() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

/// The goldens of the newest rules version this build keeps.
fn newest_goldens() -> PathBuf {
    let newest = rules::KEPT[rules::KEPT.len() - 1];
    workspace().join(format!("replays/v{newest}"))
}

/// Whether the browser and the page are there; if not, says why (a failure in CI).
fn ready() -> bool {
    let missing = if Command::new(CHROMIUM).arg("--version").output().is_err() {
        "Chromium is not installed (Debian's chromium)"
    } else if !workspace().join("web/dist/sandglass.wasm").is_file() {
        "the page is not built (cargo xtask web)"
    } else {
        return true;
    };
    let message = format!("{missing}; .ci/run sees to it. The web viewer was not tested.");
    assert!(std::env::var_os("CI").is_none(), "{message}");
    eprintln!("SKIPPED: {message}");
    false
}

/// A file the test server answers with.
struct Served {
    body: Vec<u8>,
    kind: &'static str,
}

/// Serves the page, and `replays` under `/replays/`, on 127.0.0.1 at a free port until
/// the test process ends.
fn serve(replays: &[(&str, Vec<u8>)]) -> SocketAddr {
    let mut files = BTreeMap::new();
    for (name, kind) in [
        ("index.html", "text/html"),
        ("mq_js_bundle.js", "text/javascript"),
        ("sandglass.js", "text/javascript"),
        ("sandglass.wasm", "application/wasm"),
    ] {
        let body = std::fs::read(workspace().join("web/dist").join(name)).unwrap();
        files.insert(format!("/{name}"), Served { body, kind });
    }
    for (name, body) in replays {
        let served = Served {
            body: body.clone(),
            kind: "application/octet-stream",
        };
        files.insert(format!("/replays/{name}"), served);
    }
    let files = Arc::new(files);
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let address = listener.local_addr().unwrap();
    std::thread::spawn(move || {
        for stream in listener.incoming().flatten() {
            let files = Arc::clone(&files);
            std::thread::spawn(move || answer(stream, &files));
        }
    });
    address
}

/// One request, one answer, then the connection closes.
fn answer(mut stream: TcpStream, files: &BTreeMap<String, Served>) {
    let _ = stream.set_read_timeout(Some(Duration::from_secs(30)));
    let mut reader = BufReader::new(&stream);
    let mut request = String::new();
    if reader.read_line(&mut request).is_err() {
        return;
    }
    // The headers say nothing this server needs.
    let mut header = String::new();
    while reader.read_line(&mut header).is_ok_and(|n| n > 2) {
        header.clear();
    }
    let path = request.split_whitespace().nth(1).unwrap_or("/");
    let path = path.split('?').next().unwrap_or(path);
    let path = if path == "/" { "/index.html" } else { path };
    let (status, kind, body) = match files.get(path) {
        Some(file) => ("200 OK", file.kind, file.body.as_slice()),
        None => ("404 Not Found", "text/plain", &b"not found"[..]),
    };
    let head = format!(
        "HTTP/1.1 {status}\r\nContent-Type: {kind}\r\nContent-Length: {}\r\nConnection: close\r\n\r\n",
        body.len()
    );
    let _ = stream.write_all(head.as_bytes());
    let _ = stream.write_all(body);
}

/// Opens `url` in headless Chromium and returns the page's console lines (`sandglass
/// ...`) once they hold what `enough` waits for; the browser is killed then, or at the
/// deadline, which fails the test.
fn console(url: &str, enough: impl Fn(&[String]) -> bool) -> Vec<String> {
    let profile = tempfile::tempdir().unwrap();
    let mut child = chromium(profile.path())
        .args(["--enable-logging=stderr", "--v=0"])
        .arg(url)
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .expect("chromium starts");
    let (lines, console) = mpsc::channel();
    let stderr = child.stderr.take().unwrap();
    std::thread::spawn(move || {
        for line in BufReader::new(stderr).lines().map_while(Result::ok) {
            if let Some(said) = console_text(&line) {
                if lines.send(said.to_owned()).is_err() {
                    break;
                }
            }
        }
    });
    let start = Instant::now();
    let mut said = vec![];
    while !enough(&said) {
        if start.elapsed() > DEADLINE || child.try_wait().unwrap().is_some() {
            let _ = child.kill();
            let _ = child.wait();
            panic!("the page said only this in {DEADLINE:?}: {said:#?}");
        }
        if let Ok(line) = console.recv_timeout(Duration::from_millis(200)) {
            said.push(line);
        }
    }
    let _ = child.kill();
    let _ = child.wait();
    said
}

/// The page's own message in one of Chromium's console lines on stderr:
/// `[...:INFO:CONSOLE:38] "sandglass verdict: ...", source: http://... (38)`.
fn console_text(line: &str) -> Option<&str> {
    let start = line.find("\"sandglass ")? + 1;
    let end = line.rfind("\", source: ")?;
    line.get(start..end)
}

/// `sandglass verify --json NAME`, run where the file is.
fn native_json(dir: &Path, name: &str) -> String {
    let output = Command::new(BIN)
        .current_dir(dir)
        .args(["verify", "--json", name])
        .output()
        .unwrap();
    stdout(&output).trim_end().to_owned()
}

/// The window's background and the camel's tile, gold or, while it is hurt, red, as
/// `client/src/window/draw_map.rs` paints them (`BACKGROUND`, and the tiles in `Painter`).
const BACKGROUND: [u8; 3] = [0x15, 0x11, 0x0d];
const CAMEL_TILES: [[u8; 3]; 2] = [[0x7a, 0x5c, 0x1c], [0xb0, 0x1c, 0x1c]];

/// Of a screenshot: the share of its pixels that are the background, and how many are the
/// camel's tile. The page's menu is four fifths background and has no camel.
fn background_and_camel(png: &[u8]) -> (f64, usize) {
    let decoder = png::Decoder::new(std::io::Cursor::new(png));
    let mut reader = decoder.read_info().unwrap();
    let mut pixels = vec![0; reader.output_buffer_size()];
    let frame = reader.next_frame(&mut pixels).unwrap();
    let channels = frame.color_type.samples();
    let pixels = pixels[..frame.buffer_size()].chunks_exact(channels);
    let all = pixels.len();
    let (mut background, mut camel) = (0, 0);
    for pixel in pixels {
        background += usize::from(pixel[..3] == BACKGROUND);
        camel += usize::from(CAMEL_TILES.iter().any(|tile| pixel[..3] == *tile));
    }
    (background as f64 / all as f64, camel)
}

#[cfg_attr(
    lacks_chromium,
    ignore = "skipped: Chromium is not installed (.ci/run installs it)"
)]
#[test]
fn the_page_verifies_a_golden_to_the_native_hash_and_draws_its_map() {
    if !ready() {
        return;
    }
    let (name, address) = serve_the_million_golden();
    let mut browser = Devtools::open();
    browser.go_to(&format!("http://{address}/?replay=/replays/{name}"));
    browser.wait_for(
        &status_is(&format!("watching {name}")),
        "the replay to open",
    );
    let json = browser.evaluate("document.getElementById('verdict').dataset.json");
    assert_eq!(
        json,
        native_json(&newest_goldens(), name),
        "page and native verify differ"
    );
    assert!(json.contains(r#""ok":true"#), "{json}");
    let line = browser.evaluate("document.title");
    assert!(
        line.starts_with(&format!("Sandglass: ok {name} ")),
        "{line}"
    );
    // A million events take long enough for the page's clock to time.
    let took: f64 = line
        .split(" time=")
        .nth(1)
        .and_then(|t| t.strip_suffix("ms"))
        .and_then(|t| t.parse().ok())
        .unwrap_or_else(|| panic!("no time in {line}"));
    assert!(took >= 1.0, "{line}");
    // The frames after the one that opened it: the map, playing.
    browser.wait_for("document.getElementById('fps').dataset.fps > 0", "a frame");
    // Drawn in software on a loaded machine, the map may take a while to reach a
    // screenshot: looked for every half second, up to the deadline.
    let start = Instant::now();
    let (background, camel, shot) = loop {
        std::thread::sleep(Duration::from_millis(500));
        let shot = browser.screenshot();
        let (background, camel) = background_and_camel(&shot);
        if (background < 0.7 && camel >= 20) || start.elapsed() > DEADLINE {
            break (background, camel, shot);
        }
    };
    if background >= 0.7 || camel < 20 {
        // What the page showed instead, kept to be looked at: a page that never drew its
        // map is not told apart from one drawn in other colours by two numbers.
        let kept = std::env::temp_dir().join("sandglass-web-no-map.png");
        std::fs::write(&kept, &shot).unwrap();
        let status = browser.evaluate("document.getElementById('status').textContent");
        panic!(
            "no map: {background:.2} of the page is background, {camel} pixels the camel's \
             tile; the page says {status:?}; its screenshot is {}",
            kept.display()
        );
    }
}

#[cfg_attr(
    lacks_chromium,
    ignore = "skipped: Chromium is not installed (.ci/run installs it)"
)]
#[test]
fn a_damaged_foreign_or_missing_file_is_refused_on_the_page_in_the_words_of_verify() {
    if !ready() {
        return;
    }
    let golden = std::fs::read(newest_goldens().join("classic-short-2.sgr")).unwrap();
    let mut flipped = golden.clone();
    flipped[golden.len() / 2] ^= 0x10;
    let damaged = [
        ("flipped.sgr", flipped),
        ("foreign.sgr", b"not a replay at all".to_vec()),
    ];
    let dir = tempfile::tempdir().unwrap();
    for (name, bytes) in &damaged {
        std::fs::write(dir.path().join(name), bytes).unwrap();
    }
    let address = serve(&damaged);
    let mut browser = Devtools::open();
    let mut refused = |name: &str| {
        browser.go_to(&format!("http://{address}/?replay=/replays/{name}"));
        let failed = "document.getElementById('verdict').className == 'fail'";
        browser.wait_for(failed, "the verdict");
        // The words, in the page itself.
        let line = browser.evaluate("document.getElementById('verdict').textContent");
        assert!(line.starts_with(&format!("FAIL {name}: ")), "{line}");
        (
            line,
            browser.evaluate("document.getElementById('verdict').dataset.json"),
        )
    };
    for (name, _) in &damaged {
        let (_, json) = refused(name);
        assert_eq!(json, native_json(dir.path(), name), "{name}");
        assert!(json.contains(r#""ok":false"#), "{json}");
    }
    // A file the server does not have.
    let (line, _) = refused("gone.sgr");
    assert_eq!(
        line,
        "FAIL gone.sgr: cannot fetch it: the server sent no file from that address"
    );
}

/// The newest version's million-event golden, served as `/replays/NAME`: its name, and
/// the server's address.
fn serve_the_million_golden() -> (&'static str, SocketAddr) {
    let name = "classic-million-4.sgr";
    let golden = std::fs::read(newest_goldens().join(name)).unwrap();
    (name, serve(&[(name, golden)]))
}

/// A JavaScript test of the page's status line.
fn status_is(status: &str) -> String {
    format!("document.getElementById('status').textContent == '{status}'")
}

#[cfg_attr(
    lacks_chromium,
    ignore = "skipped: Chromium is not installed (.ci/run installs it)"
)]
#[test]
fn the_million_event_golden_plays_at_64x_and_reports_its_frame_rate() {
    if !ready() {
        return;
    }
    let (name, address) = serve_the_million_golden();
    let url = format!("http://{address}/?replay=/replays/{name}&speed=64");
    // In real time: five whole seconds of the replay playing, each reported.
    let watching = format!("status: watching {name}");
    let said = console(&url, |said| {
        let from = said.iter().position(|l| l.ends_with(&watching));
        from.is_some_and(|at| {
            let rates = said[at..]
                .iter()
                .filter(|l| l.contains("frames per second"));
            rates.count() > 5
        })
    });
    let verdict = said
        .iter()
        .find_map(|l| l.strip_prefix("sandglass verdict: "))
        .unwrap();
    assert!(verdict.starts_with(&format!("ok {name} ")), "{verdict}");
    let at = said.iter().position(|l| l.ends_with(&watching)).unwrap();
    // `sandglass frames per second: 20.4, work 3.1 ms a frame`
    let rates: Vec<&str> = said[at..]
        .iter()
        .filter_map(|l| l.strip_prefix("sandglass frames per second: "))
        .collect();
    // The first second after opening holds the opening; the rest is playing.
    let playing = &rates[1..];
    for rate in playing {
        let fps: f64 = rate.split(',').next().unwrap().parse().unwrap();
        assert!(fps > 0.0, "{rates:?}");
    }
    eprintln!("the page: {verdict}");
    eprintln!("frames per second at 64x, one a second: {playing:#?}");
}

/// `&turn=N`, as a game's page on the server links to a moment of the game: the replay
/// opens with its cursor where the camel first acts on that turn.
#[cfg_attr(
    lacks_chromium,
    ignore = "skipped: Chromium is not installed (.ci/run installs it)"
)]
#[test]
fn a_replay_opens_at_the_turn_its_link_names() {
    if !ready() {
        return;
    }
    let name = "classic-whole-1.sgr";
    let golden = std::fs::read(newest_goldens().join(name)).unwrap();
    let address = serve(&[(name, golden)]);
    let mut browser = Devtools::open();
    browser.go_to(&format!("http://{address}/?replay=/replays/{name}&turn=50"));
    let opened = format!(
        "document.getElementById('status').textContent.startsWith('watching {name} at turn ')"
    );
    browser.wait_for(&opened, "the replay to open at its turn");
    let status = browser.evaluate("document.getElementById('status').textContent");
    let turn: u64 = status.rsplit(' ').next().unwrap().parse().unwrap();
    // The first turn from 50 on where the camel acts (it may wait out a slow turn).
    assert!((50..60).contains(&turn), "{status}");
}

#[cfg_attr(
    lacks_chromium,
    ignore = "skipped: Chromium is not installed (.ci/run installs it)"
)]
#[test]
fn a_file_dropped_on_the_page_is_verified_and_shown_and_escape_leaves_it() {
    if !ready() {
        return;
    }
    let folder = newest_goldens();
    let name = "nethack-short-1.sgr";
    let address = serve(&[]);
    let mut browser = Devtools::open();
    browser.call(
        "Page.navigate",
        json!({ "url": format!("http://{address}/") }),
    );
    // The frame rate is said once the viewer's loop runs, a second after it starts.
    browser.wait_for(
        "document.getElementById('fps').textContent != ''",
        "the viewer to run",
    );
    let path = folder.join(name).canonicalize().unwrap();
    let data = json!({ "items": [], "files": [path], "dragOperationsMask": 1 });
    for kind in ["dragEnter", "dragOver", "drop"] {
        let event = json!({ "type": kind, "x": 640, "y": 400, "data": data });
        browser.call("Input.dispatchDragEvent", event);
    }
    let watching = status_is(&format!("watching {name}"));
    browser.wait_for(&watching, "the dropped file to be shown");
    let json = browser.evaluate("document.getElementById('verdict').dataset.json");
    assert_eq!(json, native_json(&folder, name));
    // A short file checks faster than the page's clock can tell: its line gives no time
    // rather than a 0.0 ms it did not measure.
    let line = browser.evaluate("document.getElementById('verdict').textContent");
    assert!(!line.contains("time=0.0ms"), "{line}");
    // Escape leaves the replay, as in the window: here, for the page's menu.
    for kind in ["keyDown", "keyUp"] {
        let key =
            json!({ "type": kind, "key": "Escape", "code": "Escape", "windowsVirtualKeyCode": 27 });
        browser.call("Input.dispatchKeyEvent", key);
    }
    browser.wait_for(
        &status_is("waiting for a file"),
        "Escape to leave the replay",
    );
}

/// The window's glyph-size keys size the map on the page too: Control and Plus makes
/// the camel's cell bigger, PageDown smaller again, and the page itself is not zoomed.
#[cfg_attr(
    lacks_chromium,
    ignore = "skipped: Chromium is not installed (.ci/run installs it)"
)]
#[test]
fn the_size_keys_make_the_map_bigger_and_smaller() {
    if !ready() {
        return;
    }
    let name = "nethack-short-1.sgr";
    let golden = std::fs::read(newest_goldens().join(name)).unwrap();
    let address = serve(&[(name, golden)]);
    let mut browser = Devtools::open();
    browser.go_to(&format!("http://{address}/?replay=/replays/{name}"));
    browser.wait_for(
        &status_is(&format!("watching {name}")),
        "the replay to open",
    );
    browser.wait_for("document.getElementById('fps').dataset.fps > 0", "a frame");
    // The camel's pixels once two screenshots half a second apart agree: the frames
    // after the keys are drawn (in software, on a loaded machine, maybe slowly).
    let camel = |browser: &mut Devtools| {
        let start = Instant::now();
        let mut last = None;
        loop {
            std::thread::sleep(Duration::from_millis(500));
            let now = background_and_camel(&browser.screenshot()).1;
            if (now > 0 && last == Some(now)) || start.elapsed() > DEADLINE {
                return now;
            }
            last = Some(now);
        }
    };
    let press = |browser: &mut Devtools, key: &str, code: &str, modifiers: u8, vk: u16| {
        for kind in ["keyDown", "keyUp"] {
            let event = json!({ "type": kind, "key": key, "code": code,
                "modifiers": modifiers, "windowsVirtualKeyCode": vk });
            browser.call("Input.dispatchKeyEvent", event);
        }
    };
    let fitted = camel(&mut browser);
    assert!(fitted > 0, "no camel on the page");
    for _ in 0..3 {
        // Control (modifier 2) and the `=` key, which is `+` with Shift.
        press(&mut browser, "=", "Equal", 2, 187);
    }
    let bigger = camel(&mut browser);
    assert!(
        bigger > fitted,
        "Ctrl and Plus: {fitted} then {bigger} pixels of camel"
    );
    for _ in 0..5 {
        press(&mut browser, "PageDown", "PageDown", 0, 34);
    }
    let smaller = camel(&mut browser);
    assert!(
        smaller < bigger,
        "PageDown: {bigger} then {smaller} pixels of camel"
    );
    let zoom = browser.evaluate("String(window.visualViewport.scale)");
    assert_eq!(zoom, "1", "the page itself is not zoomed");
}

/// `?live=URL`: a golden streamed as it is played, through one dropped connection, is
/// followed to its end on the page (live, reconnecting, ended), whose verdict line gives
/// the golden's final hash as for the file.
#[cfg_attr(
    lacks_chromium,
    ignore = "skipped: Chromium is not installed (.ci/run installs it)"
)]
#[test]
fn a_live_game_is_watched_to_its_final_hash() {
    if !ready() {
        return;
    }
    let live = watched(|len| Plan {
        stretch: 300,
        pause: Duration::from_millis(150),
        drop_at: Some(len / 2),
        silent: false,
        overlap: 40,
        damage: Damage::None,
        hide_seed: false,
    });
    let statuses: Vec<&str> = live
        .said
        .iter()
        .filter_map(|l| l.strip_prefix("sandglass status: "))
        .collect();
    let run = GOLDEN_RUN;
    for status in [
        format!("live: {run}"),
        format!("reconnecting to {run}"),
        format!("{run} ended: died"),
    ] {
        assert!(
            statuses.contains(&status.as_str()),
            "{status}: {statuses:?}"
        );
    }
    assert_eq!(live.verdict, live.reached_the_end());
    // The second connection asked for what the first had not sent.
    live.reconnected_from_what_it_held();
}

/// A connection that falls silent without closing (a server stopped dead, a network
/// that lost its packets) is made again after `SILENT_FOR` without news, from the events
/// held, and the game is followed to its end.
#[cfg_attr(
    lacks_chromium,
    ignore = "skipped: Chromium is not installed (.ci/run installs it)"
)]
#[test]
fn a_silent_connection_is_made_again_and_the_game_followed_to_its_hash() {
    if !ready() {
        return;
    }
    let live = watched(|len| Plan {
        stretch: 300,
        pause: Duration::from_millis(50),
        drop_at: Some(len / 2),
        silent: true,
        overlap: 0,
        damage: Damage::None,
        hide_seed: false,
    });
    let reconnecting = format!("sandglass status: reconnecting to {GOLDEN_RUN}");
    assert!(live.said.contains(&reconnecting), "{:?}", live.said);
    assert_eq!(live.verdict, live.reached_the_end());
    live.reconnected_from_what_it_held();
}

/// A stretch that is no base64 stops the stream with words on the page.
#[cfg_attr(
    lacks_chromium,
    ignore = "skipped: Chromium is not installed (.ci/run installs it)"
)]
#[test]
fn a_live_stretch_that_is_no_base64_is_refused_on_the_page() {
    if !ready() {
        return;
    }
    let live = watched(|_| Plan {
        stretch: 300,
        pause: Duration::from_millis(50),
        drop_at: None,
        silent: false,
        overlap: 0,
        damage: Damage::Base64(1_000),
        hide_seed: false,
    });
    let refused = format!("sandglass status: refused: {GOLDEN_RUN}");
    assert!(live.said.contains(&refused), "{:?}", live.said);
    assert_eq!(
        live.verdict,
        format!("FAIL {GOLDEN_RUN}: a stretch of events is no base64")
    );
}

/// A golden watched live on the page, to its verdict.
struct Watched {
    file: sandglass_sim::Recording,
    server: LiveServer,
    /// What the page said on its console.
    said: Vec<String>,
    /// The page's verdict line.
    verdict: String,
}

/// The newest whole golden streamed by `common::live`'s server as the plan made for its
/// length says, watched on the page until the page gives its verdict.
fn watched(plan: impl FnOnce(u64) -> Plan) -> Watched {
    let file = sandglass_store::sgr::read(&newest_goldens().join("nethack-whole-3.sgr")).unwrap();
    let server = LiveServer::start(file.clone(), plan(file.events.len() as u64));
    let address = serve(&[]);
    let url = format!("http://{address}/?live={}", server.run_url());
    let said = console(&url, |said| {
        said.iter().any(|l| l.starts_with("sandglass verdict: "))
    });
    let verdict = said
        .iter()
        .find_map(|l| l.strip_prefix("sandglass verdict: "))
        .unwrap()
        .to_owned();
    Watched {
        file,
        server,
        said,
        verdict,
    }
}

impl Watched {
    /// The verdict line of the whole golden, folded to its final hash.
    fn reached_the_end(&self) -> String {
        let (events, hash) = (self.file.events.len(), self.file.final_hash);
        format!("ok {GOLDEN_RUN} events={events} hash=0x{hash:016x}")
    }

    /// Two connections, the second asking for what the first had not sent.
    fn reconnected_from_what_it_held(&self) {
        let requests = self.server.requests();
        assert_eq!(requests.len(), 2, "{requests:?}");
        assert!(requests[1].contains("/live?from="), "{requests:?}");
    }
}

/// The run `common::live`'s server streams, as the page names it.
const GOLDEN_RUN: &str = "camel's run of 2026-11-26 (run golden)";
