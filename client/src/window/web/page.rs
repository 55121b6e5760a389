//! What the viewer asks of the page it runs in and tells it: the functions `web/sandglass.js`
//! gives the module (miniquad's loader imports them from `env`), each wrapped here so that
//! the rest of the viewer calls plain Rust.

use sandglass_replay::verdict::Verdict;

/// The version of the functions below; `web/sandglass.js` says the same, and miniquad's
/// loader warns on the console when the two differ (a page left from another build).
#[no_mangle]
pub extern "C" fn sandglass_crate_version() -> u32 {
    4
}

extern "C" {
    fn sandglass_replay_url_length() -> u32;
    fn sandglass_replay_url(ptr: *mut u8, len: u32);
    fn sandglass_speed() -> u32;
    fn sandglass_turn() -> f64;
    fn sandglass_now_ms() -> f64;
    fn sandglass_verdict(ptr: *const u8, len: u32, json_ptr: *const u8, json_len: u32, ok: u32);
    fn sandglass_status(ptr: *const u8, len: u32);
    fn sandglass_frame_rate(fps: f64, work_ms: f64);
    fn sandglass_live_url_length() -> u32;
    fn sandglass_live_url(ptr: *mut u8, len: u32);
    fn sandglass_live_open(ptr: *const u8, len: u32);
    fn sandglass_live_next() -> u32;
    fn sandglass_live_length() -> u32;
    fn sandglass_live_first() -> f64;
    fn sandglass_live_take(ptr: *mut u8, len: u32);
    fn sandglass_live_heard_ms() -> f64;
}

/// The replay the page was opened on (`?replay=URL`), if any.
pub fn replay_url() -> Option<String> {
    query(sandglass_replay_url_length, sandglass_replay_url)
}

/// The live game the page was opened on (`?live=URL`), if any.
pub fn live_url() -> Option<String> {
    query(sandglass_live_url_length, sandglass_live_url)
}

/// A text the page gives by its length, then its bytes; `None` when it is empty.
fn query(
    length: unsafe extern "C" fn() -> u32,
    read: unsafe extern "C" fn(*mut u8, u32),
) -> Option<String> {
    // SAFETY: the page writes at most `len` bytes into the buffer it is given.
    let text = unsafe {
        let len = length();
        let mut bytes = vec![0; len as usize];
        read(bytes.as_mut_ptr(), len);
        String::from_utf8_lossy(&bytes).into_owned()
    };
    (!text.is_empty()).then_some(text)
}

/// Opens the page's `EventSource` on `url`, closing the one before and forgetting what it
/// said and was not yet taken; `None` only closes it.
pub fn live_open(url: Option<&str>) {
    let url = url.unwrap_or("");
    // SAFETY: the page reads the string during the call and keeps no pointer.
    unsafe { sandglass_live_open(url.as_ptr(), url.len() as u32) }
}

/// One thing the page's `EventSource` said, as the page hands it over.
pub enum Said {
    /// A message's data (`header`, `end`): its name and text.
    Text(Message, String),
    /// An `events` message: its first index, and its bytes, decoded from base64 by the page.
    Events(u64, Vec<u8>),
}

/// What a text the page hands over is.
#[derive(Clone, Copy, PartialEq, Eq)]
pub enum Message {
    Header,
    End,
    /// The connection dropped (its text says so).
    Dropped,
    /// The page could not take a message (too long a line, no base64): why.
    Refused,
}

/// The next thing the page's `EventSource` said, if it said anything not yet taken.
pub fn live_next() -> Option<Said> {
    // SAFETY: numbers, then the page writes at most `len` bytes into the buffer it is
    // given.
    let (kind, first, bytes) = unsafe {
        let kind = sandglass_live_next();
        if kind == 0 {
            return None;
        }
        let first = sandglass_live_first();
        let len = sandglass_live_length();
        let mut bytes = vec![0; len as usize];
        sandglass_live_take(bytes.as_mut_ptr(), len);
        (kind, first, bytes)
    };
    let text = |message| {
        Some(Said::Text(
            message,
            String::from_utf8_lossy(&bytes).into_owned(),
        ))
    };
    match kind {
        1 => text(Message::Header),
        // A whole number, as the page parsed it from the message (at most 2^53).
        2 => Some(Said::Events(first as u64, bytes)),
        3 => text(Message::End),
        4 => text(Message::Dropped),
        _ => text(Message::Refused),
    }
}

/// When the page's `EventSource` last said anything, an `alive` included (or was
/// opened), on the page's clock (`now_ms`).
pub fn live_heard_ms() -> f64 {
    // SAFETY: a number, nothing shared.
    unsafe { sandglass_live_heard_ms() }
}

/// The speed the page was asked to play at (`&speed=64`); 1 unless it was.
pub fn speed() -> u32 {
    // SAFETY: a number, nothing shared.
    unsafe { sandglass_speed() }.max(1)
}

/// The turn the page was asked to open the replay at (`&turn=120`), if it was.
pub fn turn() -> Option<u64> {
    // SAFETY: a number, nothing shared.
    let turn = unsafe { sandglass_turn() };
    // A whole number up to 2^53, as the page parsed it; -1 for none.
    (turn >= 0.0).then_some(turn as u64)
}

/// Milliseconds on the page's clock (`performance.now()`), finer than macroquad's.
pub fn now_ms() -> f64 {
    // SAFETY: a number, nothing shared.
    unsafe { sandglass_now_ms() }
}

/// A span of `ms` on the page's clock, if the clock can tell it: browsers coarsen
/// `performance.now()` (to 0.1 ms, or 1 ms, with jitter) against timing attacks, so a
/// span under `CLOCK_GRAIN` is no measurement, and said as none rather than as 0.0 ms.
pub fn timed(ms: f64) -> Option<f64> {
    (ms >= CLOCK_GRAIN).then_some(ms)
}

/// The coarsest grain of a browser's `performance.now()` outside an isolated page.
const CLOCK_GRAIN: f64 = 1.0;

/// Shows the verdict on the file `name` above the canvas, in the title and on the
/// console: the line `sandglass verify` prints (with `ms`, how long the check took, if
/// the page's clock could tell), and the `--json` line as the element's `data-json`, for
/// whoever checks the page.
pub fn verdict(verdict: &Verdict, name: &str, ms: Option<f64>) {
    let line = verdict.text(name, ms);
    let json = verdict.json(name, "file");
    // SAFETY: the page reads the two strings during the call and keeps no pointer.
    unsafe {
        sandglass_verdict(
            line.as_ptr(),
            line.len() as u32,
            json.as_ptr(),
            json.len() as u32,
            u32::from(!verdict.failed()),
        )
    }
}

/// What the viewer is doing, in a few words, beside the verdict.
pub fn status(what: &str) {
    // SAFETY: the page reads the string during the call and keeps no pointer.
    unsafe { sandglass_status(what.as_ptr(), what.len() as u32) }
}

/// The frames drawn in the last second, and the viewer's own work in each, on average.
pub fn frame_rate(fps: f64, work_ms: f64) {
    // SAFETY: numbers, nothing shared.
    unsafe { sandglass_frame_rate(fps, work_ms) }
}
