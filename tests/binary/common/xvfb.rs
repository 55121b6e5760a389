//! A virtual X display (`Xvfb`) for the tests that open the binary's window: the display
//! itself, the window found on it, keys sent with `xdotool`, screenshots taken with
//! ImageMagick's `import`. Only the standard library, so that the server's tests (which
//! play the daily desert in the window) include it too (`#[path]`).

use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::mpsc;
use std::time::{Duration, Instant};

/// How long the display, or a window on it, may take to appear.
const APPEAR: Duration = Duration::from_secs(10);

/// Where the test `name` keeps its screenshots (`target/tmp/NAME/`), if the tools it
/// needs are here; without them it fails when `CI` is set (`.ci/run` installs them) and
/// is skipped, saying why, otherwise.
pub fn screenshots_or_skip(name: &str) -> Option<PathBuf> {
    if let Err(missing) = tools() {
        if std::env::var_os("CI").is_some() {
            panic!("{missing}: the {name} test needs Xvfb, xdotool and ImageMagick (.ci/run installs them)");
        }
        eprintln!("SKIPPED: {missing} (install xvfb, xdotool and imagemagick to run it)");
        return None;
    }
    let shots = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join(name);
    std::fs::create_dir_all(&shots).unwrap();
    Some(shots)
}

/// `Err` names the first tool missing.
fn tools() -> Result<(), String> {
    for tool in ["Xvfb", "xdotool", "import"] {
        let found = std::env::var_os("PATH")
            .map(|path| std::env::split_paths(&path).any(|dir| dir.join(tool).is_file()))
            .unwrap_or(false);
        if !found {
            return Err(format!("`{tool}` is not installed"));
        }
    }
    Ok(())
}

/// A virtual X display of its own, so the test never touches a real one.
pub struct Xvfb {
    pub process: Child,
    pub name: String,
}

impl Xvfb {
    pub fn start() -> Xvfb {
        // The window opens on most of the display: 1280 x 720 of this screen
        // (`display::first_window`), the size the screenshots are read at.
        Xvfb::with_screen("1506x848x24")
    }

    /// The size of the display's screen.
    pub fn size(&self) -> (u32, u32) {
        let said = xdotool(&self.name, &["getdisplaygeometry"]);
        let mut sides = said.split_whitespace().map(|n| n.parse().unwrap());
        (sides.next().unwrap(), sides.next().unwrap())
    }

    /// A display whose one screen is `screen` (`WIDTHxHEIGHTxDEPTH`), on a number Xvfb
    /// picks itself (`-displayfd`): it skips the numbers in use and clears the locks a
    /// killed server left, where a number chosen here would have to guess at both.
    pub fn with_screen(screen: &str) -> Xvfb {
        let mut process = Command::new("Xvfb")
            // -displayfd 1: the number, once it can be connected to, is written to the
            // standard output. -noreset: by default Xvfb resets when its last client
            // leaves, and a window opening during the reset fails to connect.
            .args([
                "-displayfd",
                "1",
                "-screen",
                "0",
                screen,
                "-nolisten",
                "tcp",
                "-noreset",
            ])
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .expect("Xvfb starts");
        let mut said = BufReader::new(process.stdout.take().unwrap());
        let (tell, told) = mpsc::channel();
        std::thread::spawn(move || {
            let mut line = String::new();
            let _ = said.read_line(&mut line);
            let _ = tell.send(line);
        });
        let number = told.recv_timeout(APPEAR).unwrap_or_default();
        let number = number.trim();
        if number.is_empty() || !number.bytes().all(|b| b.is_ascii_digit()) {
            let _ = process.kill();
            let _ = process.wait();
            panic!("Xvfb did not say which display it opened (it said {number:?})");
        }
        Xvfb {
            process,
            name: format!(":{number}"),
        }
    }
}

impl Xvfb {
    /// The binary's window once it has appeared on the display, focused, and its first
    /// frames drawn: its X id.
    pub fn find_window(&self) -> String {
        let deadline = Instant::now() + APPEAR;
        let window = loop {
            let found = xdotool(&self.name, &["search", "--name", "^Sandglass$"]);
            if let Some(id) = found.lines().next() {
                break id.to_owned();
            }
            assert!(Instant::now() < deadline, "no window appeared");
            std::thread::sleep(Duration::from_millis(100));
        };
        xdotool(&self.name, &["windowfocus", "--sync", &window]);
        // The first frames: fonts and the egui context are made then. Nothing outside
        // says when (no line reports a frame, and the window's shots cannot be judged
        // here, where the server's tests use this too), so it is a pause; what the tests
        // judge they wait for with `shot_until` and the window's lines.
        std::thread::sleep(Duration::from_millis(800));
        window
    }
}

impl Drop for Xvfb {
    /// Stops the server with SIGTERM, on which it removes its lock and socket (SIGKILL
    /// would leave them behind for every run); with SIGKILL if that cannot be sent or
    /// the server has not ended `APPEAR` later.
    fn drop(&mut self) {
        let asked = Command::new("kill")
            .arg(self.process.id().to_string())
            .status()
            .is_ok_and(|status| status.success());
        let deadline = Instant::now() + APPEAR;
        while asked && Instant::now() < deadline {
            if !matches!(self.process.try_wait(), Ok(None)) {
                return;
            }
            std::thread::sleep(Duration::from_millis(20));
        }
        let _ = self.process.kill();
        let _ = self.process.wait();
    }
}

/// `xdotool ARGS` on `display`: what it printed.
pub fn xdotool(display: &str, args: &[&str]) -> String {
    let output = Command::new("xdotool")
        .args(args)
        .env("DISPLAY", display)
        .output()
        .expect("xdotool runs");
    String::from_utf8_lossy(&output.stdout).into_owned()
}

/// The whole screen of `display`, saved as a PNG at `path`.
pub fn screenshot(display: &str, path: &Path) {
    let status = Command::new("import")
        .args(["-window", "root"])
        .arg(path)
        .env("DISPLAY", display)
        .status()
        .expect("import runs");
    assert!(status.success(), "import failed");
}
