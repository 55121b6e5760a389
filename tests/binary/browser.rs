//! Headless Chromium for the tests that open pages: how it is started (`chromium`), and
//! a driver over the DevTools protocol (`Devtools`): open a page, wait (in real time, up
//! to a deadline) for what it shows, read its DOM, press a key, take a screenshot. Shared
//! by the web viewer's tests and the server's (which include this file by its path).

#![allow(dead_code)] // each test file uses its own share of these

use std::io::{BufRead, BufReader, Write};
use std::path::Path;
use std::process::{Command, Stdio};
use std::sync::{mpsc, Mutex, MutexGuard};
use std::time::{Duration, Instant};

use serde_json::json;

/// The Chromium Debian installs.
pub const CHROMIUM: &str = "chromium";

/// Long enough for the million-event golden to be fetched, verified and laid out on a
/// loaded two-core machine (it takes a few seconds on a quiet one).
pub const DEADLINE: Duration = Duration::from_secs(300);

/// Whether Chromium is installed; if not, says so (a failure in CI, whose `.ci/run`
/// installs it).
pub fn chromium_installed() -> bool {
    if Command::new(CHROMIUM).arg("--version").output().is_ok() {
        return true;
    }
    let message = "Chromium is not installed (Debian's chromium); .ci/run sees to it";
    assert!(std::env::var_os("CI").is_none(), "{message}");
    eprintln!("SKIPPED: {message}");
    false
}

/// Headless Chromium, its window 1280 by 800, with its profile in `profile`.
pub fn chromium(profile: &Path) -> Command {
    let mut command = Command::new(CHROMIUM);
    command
        .args(["--headless=new", "--no-sandbox", "--no-first-run"])
        // A container's /dev/shm is often too small for Chromium's shared memory.
        .arg("--disable-dev-shm-usage")
        // WebGL without a GPU: SwiftShader, Chromium's own software renderer.
        .args(["--use-gl=swiftshader", "--enable-unsafe-swiftshader"])
        .arg("--window-size=1280,800")
        .arg(format!("--user-data-dir={}", profile.display()));
    command
}

/// Chromium driven through the DevTools protocol over a pair of pipes
/// (`--remote-debugging-pipe`: JSON messages ended by a NUL byte, the browser reading fd 3
/// and writing fd 4), attached to its one page.
pub struct Devtools {
    browser: std::process::Child,
    to: std::fs::File,
    from: mpsc::Receiver<serde_json::Value>,
    sent: u64,
    session: String,
    _profile: tempfile::TempDir,
    /// One browser at a time in this process: two software renderers at once on a
    /// loaded two-core machine starved one page of its turn for five minutes (dropped
    /// after the browser, which `Drop` kills first).
    _turn: MutexGuard<'static, ()>,
}

/// Taken by each `Devtools` for as long as its browser runs.
static ONE_BROWSER: Mutex<()> = Mutex::new(());

impl Devtools {
    pub fn open() -> Devtools {
        use std::os::fd::{FromRawFd, IntoRawFd, OwnedFd};
        // A test that failed with the browser open leaves the lock poisoned, not taken.
        let turn = ONE_BROWSER.lock().unwrap_or_else(|e| e.into_inner());
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
        let mut command = chromium(profile.path());
        command
            .arg("--remote-debugging-pipe")
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
            _turn: turn,
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
    pub fn call(&mut self, method: &str, params: serde_json::Value) -> serde_json::Value {
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

    pub fn go_to(&mut self, url: &str) {
        self.call("Page.navigate", json!({ "url": url }));
    }

    /// The page as it is on screen, a PNG.
    pub fn screenshot(&mut self) -> Vec<u8> {
        let shot = self.call("Page.captureScreenshot", json!({ "format": "png" }));
        base64(shot["data"].as_str().unwrap())
    }

    /// What a JavaScript expression comes to on the page, as text.
    pub fn evaluate(&mut self, expression: &str) -> String {
        let params = json!({ "expression": expression, "returnByValue": true });
        let result = self.call("Runtime.evaluate", params);
        match &result["result"]["value"] {
            serde_json::Value::String(text) => text.clone(),
            other => other.to_string(),
        }
    }

    /// Waits until `expression` is true on the page; fails the test at the deadline.
    pub fn wait_for(&mut self, expression: &str, what: &str) {
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

/// Standard base64, as the DevTools protocol sends binary data.
fn base64(text: &str) -> Vec<u8> {
    let value = |c: u8| match c {
        b'A'..=b'Z' => c - b'A',
        b'a'..=b'z' => c - b'a' + 26,
        b'0'..=b'9' => c - b'0' + 52,
        b'+' => 62,
        b'/' => 63,
        _ => panic!("not base64: {c}"),
    };
    let digits: Vec<u8> = text.bytes().filter(|&c| c != b'=').map(value).collect();
    let mut out = Vec::with_capacity(digits.len() * 3 / 4);
    for chunk in digits.chunks(4) {
        let bits = chunk
            .iter()
            .enumerate()
            .fold(0u32, |bits, (i, &d)| bits | u32::from(d) << (18 - 6 * i));
        out.extend(&bits.to_be_bytes()[1..chunk.len()]);
    }
    out
}
