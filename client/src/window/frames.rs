//! Frame timing: a cap for a window without vsync, sleep while nothing changes, and the
//! statistics behind BENCHMARKS.md (`--frame-stats FILE`).

use std::fmt::Write as _;
use std::time::{Duration, Instant};

use super::waker::Waker;

/// The shortest frame when nothing else paces the loop. Under Xvfb, or with vsync off,
/// the loop would otherwise redraw hundreds of times a second for nothing. Shorter than
/// a 60 Hz refresh so that with vsync on the cap never makes a frame miss its vblank.
const SHORTEST: Duration = Duration::from_micros(13_333);

/// The shortest frame once nothing has changed for a while, where the window cannot
/// sleep until an event: it still answers a key within a tenth of a second, at a tenth
/// of the cost.
const IDLE: Duration = Duration::from_millis(100);

/// How long the screen stays at the full frame rate after it last changed: long enough
/// for the next key of a player who is playing.
pub const QUIET_AFTER: f64 = 2.0;

/// The shortest frame, `still` seconds after the screen last changed, in a window that
/// cannot sleep.
fn shortest(still: f64) -> Duration {
    if still < QUIET_AFTER {
        SHORTEST
    } else {
        IDLE
    }
}

/// Paces the loop: full rate while the screen changes; once it has been still for
/// `QUIET_AFTER`, asleep in miniquad's event loop until an event wakes it (see
/// `waker`), or, where nothing could wake it, at `IDLE`.
pub struct Pacer {
    /// Measuring: every frame at once, never asleep.
    uncapped: bool,
    /// Started with the first frame, when the window's GL context is current.
    waker: Option<Option<Waker>>,
    /// Whether the last frame left the loop asleep: the `asleep` line is reported as it
    /// falls asleep, for whoever drives the window to wait on.
    asleep: bool,
}

impl Pacer {
    pub fn new(uncapped: bool) -> Pacer {
        Pacer {
            uncapped,
            waker: None,
            asleep: false,
        }
    }

    /// Ends a frame whose own work took `work`, `still` seconds after the screen last
    /// changed: asks miniquad for the next frame unless the window may sleep, and keeps
    /// to the frame cap.
    pub fn end_frame(&mut self, still: f64, work: Duration) {
        if self.uncapped {
            macroquad::miniquad::window::schedule_update();
            return;
        }
        let can_sleep = self.waker.get_or_insert_with(Waker::start).is_some();
        let sleeps = can_sleep && still >= QUIET_AFTER;
        if !sleeps {
            macroquad::miniquad::window::schedule_update();
        } else if !self.asleep {
            crate::report::asleep();
        }
        self.asleep = sleeps;
        let shortest = if can_sleep { SHORTEST } else { shortest(still) };
        if work < shortest {
            std::thread::sleep(shortest - work);
        }
    }
}

/// Durations of every frame, in seconds.
#[derive(Default)]
pub struct FrameStats {
    /// From one frame's start to the next: what sets the frame rate.
    intervals: Vec<f64>,
    /// The loop's own work in a frame: keys, game, drawing calls, egui; before the
    /// frame is handed to the GL driver.
    work: Vec<f64>,
    started: Option<Instant>,
}

impl FrameStats {
    pub fn frame(&mut self, start: Instant, work: Duration) {
        if let Some(previous) = self.started {
            self.intervals
                .push(start.duration_since(previous).as_secs_f64());
        }
        self.started = Some(start);
        self.work.push(work.as_secs_f64());
    }

    pub fn report(&self) -> String {
        let mut out = String::new();
        let total: f64 = self.intervals.iter().sum();
        let frames = self.intervals.len();
        let _ = writeln!(
            out,
            "frames: {frames} in {total:.2} s, {:.1} per second",
            frames as f64 / total.max(1e-9)
        );
        for (name, values) in [("frame interval", &self.intervals), ("work", &self.work)] {
            let _ = writeln!(out, "{name} ms: {}", summary(values));
        }
        out
    }
}

/// Mean, median, 95th and 99th percentiles and maximum, in milliseconds.
fn summary(values: &[f64]) -> String {
    if values.is_empty() {
        return "no frames".to_owned();
    }
    let mut sorted = values.to_vec();
    sorted.sort_by(f64::total_cmp);
    let at = |q: f64| sorted[((sorted.len() - 1) as f64 * q).round() as usize] * 1000.0;
    let mean = sorted.iter().sum::<f64>() / sorted.len() as f64 * 1000.0;
    format!(
        "mean {mean:.2}, median {:.2}, p95 {:.2}, p99 {:.2}, max {:.2}",
        at(0.5),
        at(0.95),
        at(0.99),
        at(1.0)
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_frame_rate_drops_only_after_the_screen_stays_still() {
        assert_eq!(shortest(0.0), SHORTEST);
        assert_eq!(shortest(QUIET_AFTER - 0.01), SHORTEST);
        assert_eq!(shortest(QUIET_AFTER), IDLE);
        assert!(IDLE > SHORTEST * 5);
    }

    #[test]
    fn percentiles_of_a_known_list() {
        let values: Vec<f64> = (1..=100).map(|ms| f64::from(ms) / 1000.0).collect();
        assert_eq!(
            summary(&values),
            "mean 50.50, median 51.00, p95 95.00, p99 99.00, max 100.00"
        );
        assert_eq!(summary(&[]), "no frames");
    }
}
