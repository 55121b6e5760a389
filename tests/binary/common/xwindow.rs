//! The binary's window on a virtual X display (`common::xvfb`), driven with key presses
//! from `xdotool` and looked at through screenshots: for the tests that open windows
//! (`window`, `watch`).

use std::io::{BufRead, BufReader};
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::sync::mpsc::{self, Receiver};
use std::time::{Duration, Instant};

use macroquad::texture::Image;
use sandglass_store::GameId;

use super::xvfb::{self, Xvfb};
use super::BIN;

/// How long any one thing may take before the test gives up on it.
pub const PATIENCE: Duration = Duration::from_secs(10);
/// The window's size, as the binary opens it.
pub const WIDTH: usize = 1280;
pub const HEIGHT: usize = 720;

/// The binary with its window, and what it says on stdout.
pub struct Window {
    pub process: Child,
    pub lines: Receiver<String>,
    pub said: Vec<String>,
    pub display: String,
    pub window: String,
    pub last_hash: Option<u64>,
}

impl Window {
    pub fn open(display: &Xvfb, args: &[&str]) -> Window {
        Window::open_binary(BIN, display, args)
    }

    /// The window of another build's binary at `bin`, to compare with this build's.
    pub fn open_binary(bin: &str, display: &Xvfb, args: &[&str]) -> Window {
        let mut process = Command::new(bin)
            .args(args)
            .env("DISPLAY", &display.name)
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit())
            .spawn()
            .expect("the sandglass binary runs");
        let stdout = process.stdout.take().unwrap();
        let (send, lines) = mpsc::channel();
        std::thread::spawn(move || {
            for line in BufReader::new(stdout).lines() {
                let Ok(line) = line else { break };
                if send.send(line).is_err() {
                    break;
                }
            }
        });
        let mut window = Window {
            process,
            lines,
            said: vec![],
            display: display.name.clone(),
            window: String::new(),
            last_hash: None,
        };
        window.window = display.find_window();
        window
    }

    /// The window's size, as the X server has it.
    pub fn size(&self) -> (u32, u32) {
        let said = self.xdotool(&["getwindowgeometry", &self.window]);
        let geometry = said
            .lines()
            .find_map(|line| line.trim().strip_prefix("Geometry: "))
            .unwrap_or_else(|| panic!("no geometry in {said:?}"));
        let (w, h) = geometry.split_once('x').unwrap();
        (w.parse().unwrap(), h.parse().unwrap())
    }

    /// Waits until the window is `size`.
    pub fn wait_size(&self, size: (u32, u32)) {
        let deadline = Instant::now() + PATIENCE;
        while self.size() != size {
            assert!(
                Instant::now() < deadline,
                "the window stayed {:?}, not {size:?}",
                self.size()
            );
            std::thread::sleep(Duration::from_millis(100));
        }
    }

    pub fn xdotool(&self, args: &[&str]) -> String {
        xvfb::xdotool(&self.display, args)
    }

    pub fn key(&self, key: &str) {
        self.xdotool(&["key", "--window", &self.window, key]);
        std::thread::sleep(Duration::from_millis(150));
    }

    /// The next line on stdout, within `patience`.
    pub fn next_line(&mut self, patience: Duration) -> Option<String> {
        let line = self.lines.recv_timeout(patience).ok()?;
        if let Some(hash) = line.split(" hash 0x").nth(1) {
            self.last_hash = u64::from_str_radix(hash, 16).ok();
        }
        self.said.push(line.clone());
        Some(line)
    }

    pub fn wait_line(&mut self, prefix: &str) -> String {
        let deadline = Instant::now() + PATIENCE;
        while let Some(line) = self.next_line(deadline.saturating_duration_since(Instant::now())) {
            if line.starts_with(prefix) {
                return line;
            }
        }
        panic!("no `{prefix}` line; the binary said {:?}", self.said);
    }

    /// `game ID hash 0xH`: the game opened.
    pub fn wait_game(&mut self) -> (GameId, u64) {
        let line = self.wait_line("game ");
        let id = line["game ".len()..]
            .split(' ')
            .next()
            .and_then(|id| id.parse().ok())
            .unwrap_or_else(|| panic!("{line:?}"));
        (GameId(id), self.last_hash.unwrap())
    }

    /// Presses `key` until the game is left (a `--more--` may need it more than once);
    /// returns the hash it reports then.
    pub fn leave_with(&mut self, key: &str) -> u64 {
        for _ in 0..4 {
            self.key(key);
            while let Some(line) = self.next_line(Duration::from_millis(700)) {
                if let Some(hash) = line.strip_prefix("hash 0x") {
                    return u64::from_str_radix(hash, 16).unwrap();
                }
            }
        }
        panic!("the game was not left; the binary said {:?}", self.said);
    }

    /// Presses `key` and waits up to `patience` for the command it completes to be
    /// acknowledged; then presses Space, which reads any `--more--` and means nothing
    /// on the map. False if no command was accepted (a cactus in the way).
    pub fn command(&mut self, key: &str, acks: &mut u64, patience: Duration) -> bool {
        self.key(key);
        let deadline = Instant::now() + patience;
        while let Some(line) = self.next_line(deadline.saturating_duration_since(Instant::now())) {
            if let Some(rest) = line.strip_prefix("ack ") {
                *acks = rest.split(' ').next().unwrap().parse().unwrap();
                self.key("space");
                self.key("space");
                return true;
            }
        }
        false
    }

    /// Presses `key` for an errand (explore, travel, rest) and waits until its steps stop
    /// coming; then reads any `--more--`. Returns how many steps it played.
    pub fn errand(&mut self, key: &str, acks: &mut u64) -> u64 {
        self.key(key);
        let before = *acks;
        let quiet = Duration::from_millis(900);
        let deadline = Instant::now() + PATIENCE * 3;
        while let Some(line) = self.next_line(quiet) {
            if let Some(rest) = line.strip_prefix("ack ") {
                *acks = rest.split(' ').next().unwrap().parse().unwrap();
            }
            assert!(Instant::now() < deadline, "the errand never stopped");
        }
        self.key("space");
        self.key("space");
        *acks - before
    }

    /// The window as it looks now, saved as `name.png` in `dir`.
    pub fn shot(&self, dir: &Path, name: &str) -> Image {
        // A few frames for the last key to show.
        std::thread::sleep(Duration::from_millis(400));
        let path = dir.join(format!("{name}.png"));
        xvfb::screenshot(&self.display, &path);
        let bytes = std::fs::read(&path).unwrap();
        Image::from_file_with_format(&bytes, None).expect("import writes a PNG")
    }

    /// Screenshots until one shows what `done` looks for, or `PATIENCE` runs out: the
    /// last one either way, for the caller's assertion to judge.
    pub fn shot_until(&self, dir: &Path, name: &str, done: impl Fn(&Image) -> bool) -> Image {
        let deadline = Instant::now() + PATIENCE;
        loop {
            let shot = self.shot(dir, name);
            if done(&shot) || Instant::now() >= deadline {
                return shot;
            }
        }
    }

    /// Waits for the binary to exit after `key` closed it. The window can be gone before
    /// xdotool lets go of the key, which the X server then holds down: pressed again for
    /// the next window, it would send nothing.
    pub fn wait_exit(&mut self, key: &str) {
        let deadline = Instant::now() + PATIENCE;
        loop {
            if let Some(status) = self.process.try_wait().unwrap() {
                assert!(status.success(), "the binary failed: {status}");
                self.xdotool(&["keyup", key]);
                return;
            }
            assert!(Instant::now() < deadline, "the binary did not exit");
            std::thread::sleep(Duration::from_millis(50));
        }
    }

    /// Leaves the window still until it says it has fallen asleep in its event loop.
    pub fn fall_asleep(&mut self) {
        self.wait_line("asleep");
    }

    /// Asks the window to close as a desktop does for its close button: a
    /// `WM_DELETE_WINDOW` message from the window manager.
    pub fn ask_to_close(&self) {
        use x11_dl::xlib;
        let xlib = xlib::Xlib::open().expect("libX11 loads");
        let name = std::ffi::CString::new(self.display.clone()).unwrap();
        let window: xlib::Window = self.window.parse().expect("xdotool gives a window id");
        // SAFETY: a connection of this test's own, opened, used and closed here.
        unsafe {
            let display = (xlib.XOpenDisplay)(name.as_ptr());
            assert!(!display.is_null(), "the test connects to Xvfb");
            let protocols = (xlib.XInternAtom)(display, c"WM_PROTOCOLS".as_ptr(), xlib::False);
            let delete = (xlib.XInternAtom)(display, c"WM_DELETE_WINDOW".as_ptr(), xlib::False);
            let mut data = xlib::ClientMessageData::new();
            data.set_long(0, delete as std::ffi::c_long);
            let mut event = xlib::XEvent {
                client_message: xlib::XClientMessageEvent {
                    type_: xlib::ClientMessage,
                    serial: 0,
                    send_event: xlib::True,
                    display,
                    window,
                    message_type: protocols,
                    format: 32,
                    data,
                },
            };
            (xlib.XSendEvent)(display, window, xlib::False, xlib::NoEventMask, &mut event);
            (xlib.XFlush)(display);
            (xlib.XCloseDisplay)(display);
        }
    }

    /// SIGKILL: nothing is flushed or said on the way out.
    pub fn kill(mut self) {
        self.process.kill().unwrap();
        self.process.wait().unwrap();
    }
}

impl Drop for Window {
    fn drop(&mut self) {
        // A test that failed half-way must not leave a window behind.
        if let Ok(None) = self.process.try_wait() {
            let _ = self.process.kill();
            let _ = self.process.wait();
        }
    }
}

/// The window's pixels, as RGB triples.
pub fn pixels(image: &Image) -> impl Iterator<Item = [u8; 3]> + '_ {
    let width = usize::from(image.width);
    (0..HEIGHT.min(usize::from(image.height))).flat_map(move |y| {
        (0..WIDTH.min(width)).map(move |x| {
            let at = (y * width + x) * 4;
            [image.bytes[at], image.bytes[at + 1], image.bytes[at + 2]]
        })
    })
}

/// The arguments that give the binary `data` for its games and `config` for its
/// settings, so that no run touches the machine's own.
pub fn dir_args<'d>(data: &'d tempfile::TempDir, config: &'d tempfile::TempDir) -> [&'d str; 4] {
    [
        "--data-dir",
        data.path().to_str().unwrap(),
        "--config-dir",
        config.path().to_str().unwrap(),
    ]
}
