//! The web replay viewer in a real browser: the page in `web/dist/` (`cargo xtask web`,
//! which `.ci/run` runs before the tests) served on 127.0.0.1 and opened in headless
//! Chromium on a golden must give, on the page, the line `sandglass verify --json` gives
//! of it (the final hash with it), and draw the map; a damaged file must be refused there
//! in verify's words; and the million-event golden, played at 64x, reports its frame rate.
//!
//! Most tests read what the page logs on the console (`sandglass ...`, web/sandglass.js)
//! from Chromium's stderr, and kill the browser once it has what it waits for, or at a
//! deadline; the one that drops a file on the page and presses a key drives Chromium
//! through the DevTools protocol (`Devtools`). Without Chromium or the page, the tests say so and pass, except in CI (`CI`
//! set), where a missing one is a failure.

mod common;

use std::collections::BTreeMap;
use std::io::{BufRead, BufReader, Write};
use std::net::{SocketAddr, TcpListener, TcpStream};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::{mpsc, Arc};
use std::time::{Duration, Instant};

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

/// The Chromium Debian installs.
const CHROMIUM: &str = "chromium";

/// Long enough for the million-event golden to be fetched, verified and laid out on a
/// loaded two-core machine (it takes a few seconds on a quiet one).
const DEADLINE: Duration = Duration::from_secs(300);

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

/// What one run of the browser left: the page's console lines (`sandglass ...`) and its
/// standard output (the DOM, with `--dump-dom`).
struct Run {
    console: Vec<String>,
    stdout: String,
}

impl Run {
    /// The text of the first console line that starts with `prefix`, after it.
    fn said(&self, prefix: &str) -> Option<&str> {
        self.console
            .iter()
            .find_map(|line| line.strip_prefix(prefix))
    }
}

/// Opens `url` in headless Chromium with `flags` until it exits by itself (`--screenshot`
/// and `--dump-dom` do once the page's virtual time is spent) or its console shows what
/// `enough` waits for; killed then, or at the deadline, which fails the test.
fn browse(url: &str, flags: &[&str], enough: impl Fn(&[String]) -> bool) -> Run {
    let profile = tempfile::tempdir().unwrap();
    let mut child = Command::new(CHROMIUM)
        .args(["--headless=new", "--no-sandbox", "--no-first-run"])
        // WebGL without a GPU: SwiftShader, Chromium's own software renderer.
        .args(["--use-gl=swiftshader", "--enable-unsafe-swiftshader"])
        .args(["--enable-logging=stderr", "--v=0", "--window-size=1280,800"])
        .arg(format!("--user-data-dir={}", profile.path().display()))
        .args(flags)
        .arg(url)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
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
    let mut out = child.stdout.take().unwrap();
    let dom = std::thread::spawn(move || {
        let mut text = String::new();
        let _ = std::io::Read::read_to_string(&mut out, &mut text);
        text
    });
    let start = Instant::now();
    let mut said = vec![];
    let exited = loop {
        if let Ok(line) = console.recv_timeout(Duration::from_millis(200)) {
            said.push(line);
        }
        if enough(&said) {
            break false;
        }
        if child.try_wait().unwrap().is_some() {
            break true;
        }
        if start.elapsed() > DEADLINE {
            let _ = child.kill();
            let _ = child.wait();
            panic!("the page said only this in {DEADLINE:?}: {said:#?}");
        }
    };
    if !exited {
        let _ = child.kill();
    }
    let _ = child.wait();
    // What was logged before the browser went.
    said.extend(console.try_iter());
    Run {
        console: said,
        stdout: dom.join().unwrap_or_default(),
    }
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

/// Pixels of the screenshot's map area (the canvas left of the side bar, above the
/// messages) that are not the area's most common colour, the background, and how many
/// colours it holds.
fn map_area(png: &Path) -> (usize, usize) {
    let decoder = png::Decoder::new(std::fs::File::open(png).unwrap());
    let mut reader = decoder.read_info().unwrap();
    let mut pixels = vec![0; reader.output_buffer_size()];
    let frame = reader.next_frame(&mut pixels).unwrap();
    let channels = frame.color_type.samples();
    let (width, height) = (frame.width as usize, frame.height as usize);
    let mut colours: BTreeMap<&[u8], usize> = BTreeMap::new();
    for y in height / 10..height * 7 / 10 {
        for x in 0..width * 3 / 4 {
            let at = (y * width + x) * channels;
            *colours.entry(&pixels[at..at + 3]).or_default() += 1;
        }
    }
    let all: usize = colours.values().sum();
    let background = colours.values().copied().max().unwrap_or(0);
    (all - background, colours.len())
}

#[test]
fn the_page_verifies_a_golden_to_the_native_hash_and_draws_its_map() {
    if !ready() {
        return;
    }
    let folder = newest_goldens();
    let name = "classic-million-4.sgr";
    let address = serve(&[(name, std::fs::read(folder.join(name)).unwrap())]);
    let shots = tempfile::tempdir().unwrap();
    let shot = shots.path().join("page.png");
    let url = format!("http://{address}/?replay=/replays/{name}");
    // Ten seconds of the page's virtual time after it has loaded: a few seconds of the
    // replay playing at 1x.
    let run = browse(
        &url,
        &[
            &format!("--screenshot={}", shot.display()),
            "--virtual-time-budget=10000",
        ],
        |_| false,
    );
    let json = run.said("sandglass json: ").unwrap_or_else(|| {
        panic!("no verdict on the page: {:#?}", run.console);
    });
    assert_eq!(
        json,
        native_json(&folder, name),
        "page and native verify differ"
    );
    assert!(json.contains(r#""ok":true"#), "{json}");
    let watching = format!("watching {name}");
    assert!(
        run.console.iter().any(|l| l.ends_with(&watching)),
        "the replay never opened: {:#?}",
        run.console
    );
    let (drawn, colours) = map_area(&shot);
    assert!(
        drawn > 20_000 && colours > 20,
        "the map was not drawn: {drawn} pixels off the background, {colours} colours"
    );
}

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
    for (name, _) in &damaged {
        let url = format!("http://{address}/?replay=/replays/{name}");
        let run = browse(&url, &["--dump-dom", "--virtual-time-budget=5000"], |_| {
            false
        });
        let json = run.said("sandglass json: ").unwrap_or_else(|| {
            panic!("{name}: no verdict on the page: {:#?}", run.console);
        });
        assert_eq!(json, native_json(dir.path(), name), "{name}");
        assert!(json.contains(r#""ok":false"#), "{json}");
        // The words, in the page itself, marked as a failure.
        let line = run.said("sandglass verdict: ").unwrap();
        assert!(line.starts_with(&format!("FAIL {name}: ")), "{line}");
        assert!(run.stdout.contains(r#"class="fail""#), "{}", run.stdout);
        assert!(run.stdout.contains(line), "{}", run.stdout);
    }
    // A file the server does not have.
    let url = format!("http://{address}/?replay=/replays/gone.sgr");
    let run = browse(&url, &["--dump-dom", "--virtual-time-budget=5000"], |_| {
        false
    });
    let line = run.said("sandglass verdict: ");
    assert_eq!(
        line,
        Some("FAIL gone.sgr: cannot fetch it: the server sent no file from that address")
    );
    assert!(run.stdout.contains(r#"class="fail""#), "{}", run.stdout);
}

#[test]
fn the_million_event_golden_plays_at_64x_and_reports_its_frame_rate() {
    if !ready() {
        return;
    }
    let folder = newest_goldens();
    let name = "classic-million-4.sgr";
    let address = serve(&[(name, std::fs::read(folder.join(name)).unwrap())]);
    let url = format!("http://{address}/?replay=/replays/{name}&speed=64");
    // In real time: five whole seconds of the replay playing, each reported.
    let watching = format!("status: watching {name}");
    let run = browse(&url, &[], |said| {
        let from = said.iter().position(|l| l.ends_with(&watching));
        from.is_some_and(|at| {
            let rates = said[at..]
                .iter()
                .filter(|l| l.contains("frames per second"));
            rates.count() > 5
        })
    });
    let verdict = run.said("sandglass verdict: ").unwrap();
    assert!(verdict.starts_with(&format!("ok {name} ")), "{verdict}");
    let at = run
        .console
        .iter()
        .position(|l| l.ends_with(&watching))
        .unwrap();
    // `sandglass frames per second: 20.4, work 3.1 ms a frame`
    let rates: Vec<&str> = run.console[at..]
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
    let watching = format!("document.getElementById('status').textContent == 'watching {name}'");
    browser.wait_for(&watching, "the dropped file to be shown");
    let json = browser.evaluate("document.getElementById('verdict').dataset.json");
    assert_eq!(json, native_json(&folder, name));
    // Escape leaves the replay, as in the window: here, for the page's menu.
    for kind in ["keyDown", "keyUp"] {
        let key =
            json!({ "type": kind, "key": "Escape", "code": "Escape", "windowsVirtualKeyCode": 27 });
        browser.call("Input.dispatchKeyEvent", key);
    }
    let waiting = "document.getElementById('status').textContent == 'waiting for a file'";
    browser.wait_for(waiting, "Escape to leave the replay");
}

/// Chromium driven through the DevTools protocol over a pair of pipes
/// (`--remote-debugging-pipe`: JSON messages ended by a NUL byte, the browser reading fd 3
/// and writing fd 4), attached to its one page.
struct Devtools {
    browser: std::process::Child,
    to: std::fs::File,
    from: mpsc::Receiver<serde_json::Value>,
    sent: u64,
    session: String,
    _profile: tempfile::TempDir,
}

impl Devtools {
    fn open() -> Devtools {
        use std::os::fd::{FromRawFd, IntoRawFd, OwnedFd};
        use std::os::unix::process::CommandExt;
        let pipe = || {
            let mut fds = [0; 2];
            // SAFETY: `fds` has room for the two descriptors pipe2 writes.
            assert_eq!(unsafe { libc::pipe2(fds.as_mut_ptr(), libc::O_CLOEXEC) }, 0);
            // SAFETY: both are new descriptors, owned by nothing else.
            unsafe { (OwnedFd::from_raw_fd(fds[0]), OwnedFd::from_raw_fd(fds[1])) }
        };
        let (browser_reads, we_write) = pipe();
        let (we_read, browser_writes) = pipe();
        let profile = tempfile::tempdir().unwrap();
        let mut command = Command::new(CHROMIUM);
        command
            .args(["--headless=new", "--no-sandbox", "--no-first-run"])
            .args(["--use-gl=swiftshader", "--enable-unsafe-swiftshader"])
            .args(["--remote-debugging-pipe", "--window-size=1280,800"])
            .arg(format!("--user-data-dir={}", profile.path().display()))
            .arg("about:blank")
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::null());
        let (reads, writes) = (browser_reads.into_raw_fd(), browser_writes.into_raw_fd());
        // SAFETY: only async-signal-safe calls between fork and exec. Both ends are moved
        // above 4 first, so that neither is overwritten by the other's dup2.
        unsafe {
            command.pre_exec(move || {
                let reads = libc::fcntl(reads, libc::F_DUPFD, 10);
                let writes = libc::fcntl(writes, libc::F_DUPFD, 10);
                if reads < 0 || writes < 0 || libc::dup2(reads, 3) < 0 || libc::dup2(writes, 4) < 0
                {
                    return Err(std::io::Error::last_os_error());
                }
                Ok(())
            });
        }
        let browser = command.spawn().expect("chromium starts");
        // SAFETY: the browser's ends, ours to close now that it holds its copies.
        drop(unsafe { (OwnedFd::from_raw_fd(reads), OwnedFd::from_raw_fd(writes)) });
        let (messages, from) = mpsc::channel();
        let we_read = std::fs::File::from(we_read);
        std::thread::spawn(move || {
            let mut reader = BufReader::new(we_read);
            let mut message = vec![];
            while reader.read_until(0, &mut message).is_ok_and(|n| n > 0) {
                message.pop();
                if let Ok(value) = serde_json::from_slice(&message) {
                    if messages.send(value).is_err() {
                        break;
                    }
                }
                message.clear();
            }
        });
        let mut devtools = Devtools {
            browser,
            to: std::fs::File::from(we_write),
            from,
            sent: 0,
            session: String::new(),
            _profile: profile,
        };
        let targets = devtools.call("Target.getTargets", json!({}));
        let page = targets["targetInfos"]
            .as_array()
            .unwrap()
            .iter()
            .find(|target| target["type"] == "page")
            .expect("a page")["targetId"]
            .clone();
        let attach = json!({ "targetId": page, "flatten": true });
        let attached = devtools.call("Target.attachToTarget", attach);
        devtools.session = attached["sessionId"].as_str().unwrap().to_owned();
        devtools
    }

    /// Sends a command (to the page, once attached) and waits for its answer.
    fn call(&mut self, method: &str, params: serde_json::Value) -> serde_json::Value {
        self.sent += 1;
        let mut message = json!({ "id": self.sent, "method": method, "params": params });
        if !self.session.is_empty() {
            message["sessionId"] = json!(self.session);
        }
        let mut bytes = serde_json::to_vec(&message).unwrap();
        bytes.push(0);
        self.to.write_all(&bytes).unwrap();
        let start = Instant::now();
        loop {
            let left = DEADLINE.saturating_sub(start.elapsed());
            let answer = self.from.recv_timeout(left).unwrap_or_else(|_| {
                panic!("no answer to {method} in {DEADLINE:?}");
            });
            if answer["id"] == self.sent {
                assert!(answer.get("error").is_none(), "{method}: {answer}");
                return answer["result"].clone();
            }
        }
    }

    /// What a JavaScript expression comes to on the page, as text.
    fn evaluate(&mut self, expression: &str) -> String {
        let params = json!({ "expression": expression, "returnByValue": true });
        let result = self.call("Runtime.evaluate", params);
        match &result["result"]["value"] {
            serde_json::Value::String(text) => text.clone(),
            other => other.to_string(),
        }
    }

    /// Waits until `expression` is true on the page; fails the test at the deadline.
    fn wait_for(&mut self, expression: &str, what: &str) {
        let start = Instant::now();
        while self.evaluate(expression) != "true" {
            assert!(start.elapsed() < DEADLINE, "waited {DEADLINE:?} for {what}");
            std::thread::sleep(Duration::from_millis(200));
        }
    }
}

impl Drop for Devtools {
    fn drop(&mut self) {
        let _ = self.browser.kill();
        let _ = self.browser.wait();
    }
}
