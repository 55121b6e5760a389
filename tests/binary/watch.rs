//! `sandglass watch`, end to end: the window's replay screen on a game streamed by a
//! small live server (`common::live`) that serves a golden replay in stretches over a few
//! seconds and drops the first connection half-way. The window reaches the golden's final
//! hash, every event taken once (a repeated or lost one would fold to another hash, or be
//! refused), having reconnected from the events it held; a stretch that is no base64, or
//! that does not follow from the seed, is said on the screen while the window goes on.
//!
//! Needs Xvfb, xdotool and ImageMagick, as the `window` test does: without them it fails
//! when `CI` is set and is skipped otherwise. Screenshots stay in `target/tmp/watch/`.

mod common;

use std::path::Path;
use std::time::{Duration, Instant};

use common::live::{Damage, LiveServer, Plan};
use common::xvfb::{screenshots_or_skip, Xvfb};
use common::xwindow::{dir_args, pixels, Window, PATIENCE};
use sandglass_sim::{Event, Recording};
use sandglass_store::{sgr, Store};

const GOLDEN: &str = "nethack-whole-3.sgr";

fn golden() -> Recording {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../replays/v10")
        .join(GOLDEN);
    sgr::read(&path).unwrap()
}

/// Stretches of 300 events, 150 ms apart: the golden's 6,395 events over about three
/// seconds.
fn plan(drop_at: Option<u64>, damage: Damage) -> Plan {
    Plan {
        stretch: 300,
        pause: Duration::from_millis(150),
        drop_at,
        silent: false,
        overlap: 40,
        damage,
        hide_seed: false,
    }
}

#[cfg_attr(
    lacks_xvfb,
    ignore = "skipped: Xvfb, xdotool or ImageMagick is not installed (.ci/run installs them)"
)]
#[test]
fn watching_a_live_game_under_xvfb() {
    let Some(shots) = screenshots_or_skip("watch") else {
        return;
    };
    let display = Xvfb::start();
    a_dropped_connection_loses_and_repeats_nothing(&display, &shots);
    a_run_whose_seed_is_kept_is_followed_to_its_hash(&display, &shots);
    a_refused_stretch_is_said_on_the_screen(&display, &shots, Damage::Base64(1_000), "no base64");
    // A draw a third of the way in, changed: what came before it stays on the screen.
    let file = golden();
    let third = file.events.len() / 3;
    let draw = third
        + file.events[third..]
            .iter()
            .position(|e| matches!(e, Event::Draw(_)))
            .unwrap();
    let desync = Damage::Desync(draw as u64);
    a_refused_stretch_is_said_on_the_screen(&display, &shots, desync, "differs");
    eprintln!("screenshots in {}", shots.display());
}

/// The whole game, through one dropped connection, to the golden's final hash.
fn a_dropped_connection_loses_and_repeats_nothing(display: &Xvfb, shots: &Path) {
    let file = golden();
    let len = file.events.len() as u64;
    let server = LiveServer::start(file.clone(), plan(Some(len / 2), Damage::None));
    let (data, config) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
    let url = server.run_url();
    let dirs = dir_args(&data, &config);
    let mut window = Window::open(display, &[&dirs[..], &["watch", &url]].concat());
    let mut held = vec![];
    let mut shot_taken = false;
    let mut reconnected = false;
    let deadline = Instant::now() + PATIENCE * 3;
    let end = loop {
        let line = window
            .next_line(deadline.saturating_duration_since(Instant::now()))
            .unwrap_or_else(|| panic!("no `live end` line; the binary said {:?}", window.said));
        if let Some(events) = line
            .strip_prefix("live ")
            .and_then(|l| l.strip_suffix(" events"))
        {
            held.push(events.parse::<u64>().unwrap());
            if !shot_taken && held.last() > Some(&(len / 4)) {
                // The line is printed as the events arrive; the frame that draws them
                // follows, later on a busy machine.
                let shot = window.shot_until(shots, "01-live-mid-game", |s| colours(s) > 30);
                assert_drawn(&shot, "the live game mid-way");
                shot_taken = true;
            }
        } else if line.starts_with("live reconnecting") {
            reconnected = true;
        } else if line.starts_with("live refused") {
            panic!("{line}; the binary said {:?}", window.said);
        } else if let Some(end) = line.strip_prefix("live end ") {
            break end.to_owned();
        }
    };
    assert!(shot_taken && reconnected, "{:?}", window.said);
    assert!(held.windows(2).all(|w| w[0] < w[1]), "{held:?}");
    assert_eq!(held.last(), Some(&len), "every event, once");
    assert_eq!(end, format!("died 0x{:016x}", file.final_hash));
    // The second connection asked for what the first had not sent.
    let requests = server.requests();
    assert_eq!(requests.len(), 2, "{requests:?}");
    assert!(
        requests[0].starts_with("GET /runs/golden/live "),
        "{requests:?}"
    );
    let from = requests[1]
        .split("?from=")
        .nth(1)
        .and_then(|rest| rest.split(' ').next())
        .and_then(|n| n.parse::<u64>().ok())
        .unwrap_or_else(|| panic!("{requests:?}"));
    assert!(
        held.contains(&from) && from >= len / 2,
        "from {from}: {held:?}"
    );
    window.shot(shots, "02-live-ended");
    // Scrub back, then End: the end again.
    window.key("Home");
    window.shot(shots, "03-scrubbed-back");
    window.key("End");
    window.shot(shots, "04-back-to-the-end");
    // Taken over three commands after the first, as from a file: a new game whose log
    // is the golden's up to there.
    window.key("Home");
    for _ in 0..3 {
        window.key("Right");
    }
    window.key("t");
    let (id, hash) = window.wait_game();
    close(&mut window);
    let commands: Vec<usize> = (0..file.events.len())
        .filter(|&i| matches!(file.events[i], Event::Command(_)))
        .collect();
    let cut = commands[3];
    let rules = sandglass_sim::Rules::of(&file.header).unwrap();
    let expected = sandglass_sim::verify(
        rules,
        file.header.seed,
        file.events[..cut].iter().copied(),
        &mut (),
    )
    .unwrap();
    assert_eq!(hash, expected.hash());
    let store = Store::open(data.path()).unwrap();
    let meta = store.meta(id).unwrap();
    assert_eq!(meta.events, cut as u64);
    assert!(
        meta.name.starts_with("camel's run from turn "),
        "{}",
        meta.name
    );
}

/// A server that keeps the day's seed sends the header's as null: the draws are taken as
/// it sends them, and the game folds to the same hash; it cannot be taken over yet.
fn a_run_whose_seed_is_kept_is_followed_to_its_hash(display: &Xvfb, shots: &Path) {
    let file = golden();
    let plan = Plan {
        hide_seed: true,
        ..plan(None, Damage::None)
    };
    let server = LiveServer::start(file.clone(), plan);
    let (data, config) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
    let url = server.run_url();
    let dirs = dir_args(&data, &config);
    let mut window = Window::open(display, &[&dirs[..], &["watch", &url]].concat());
    let end = window.wait_line("live end ");
    assert_eq!(end, format!("live end died 0x{:016x}", file.final_hash));
    window.key("Home");
    window.key("t");
    window.shot(shots, "06-seed-kept-no-take-over");
    close(&mut window);
    let store = Store::open(data.path()).unwrap();
    assert!(store.games().unwrap().is_empty(), "nothing was taken over");
}

/// A stretch that cannot be taken stops the stream with words, and the window stays.
fn a_refused_stretch_is_said_on_the_screen(
    display: &Xvfb,
    shots: &Path,
    damage: Damage,
    words: &str,
) {
    let file = golden();
    let server = LiveServer::start(file, plan(None, damage));
    let (data, config) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
    let url = server.run_url();
    let dirs = dir_args(&data, &config);
    let mut window = Window::open(display, &[&dirs[..], &["watch", &url]].concat());
    let line = window.wait_line("live refused");
    assert!(line.contains(words), "{line}");
    let name = format!("05-refused-{}", words.replace(' ', "-"));
    let shot = window.shot_until(shots, &name, |s| colours(s) > 30);
    assert_drawn(&shot, &name);
    assert!(
        window.process.try_wait().unwrap().is_none(),
        "the window stays open"
    );
    close(&mut window);
}

/// Closes the window as a desktop's close button does, and waits for it to exit.
fn close(window: &mut Window) {
    window.ask_to_close();
    let deadline = Instant::now() + PATIENCE;
    while window.process.try_wait().unwrap().is_none() {
        assert!(Instant::now() < deadline, "the window did not close");
        std::thread::sleep(Duration::from_millis(50));
    }
}

/// A drawn screen: many colours.
fn assert_drawn(image: &macroquad::texture::Image, what: &str) {
    assert!(colours(image) > 30, "{what} is nearly blank");
}

/// How many colours `image` shows.
fn colours(image: &macroquad::texture::Image) -> usize {
    pixels(image)
        .collect::<std::collections::HashSet<_>>()
        .len()
}

/// A run that cannot be watched is said in the terminal before any window opens: no
/// server there, or a server without that run.
#[test]
fn a_run_that_cannot_be_watched_is_said_in_the_terminal() {
    let server = LiveServer::start(golden(), plan(None, Damage::None));
    let missing = format!("http://{}/runs/other", server.addr);
    for (url, words) in [
        ("http://127.0.0.1:1/runs/x", "cannot connect"),
        (missing.as_str(), "404"),
    ] {
        let output = std::process::Command::new(common::BIN)
            .args(["watch", url])
            .env_remove("DISPLAY")
            .output()
            .unwrap();
        let said = String::from_utf8_lossy(&output.stderr);
        assert!(!output.status.success(), "{said}");
        assert!(
            said.starts_with(&format!("sandglass: cannot watch {url}: ")) && said.contains(words),
            "{said}"
        );
    }
}

/// From a stretch written by the server to the window's taking it in, while the window
/// sleeps between stretches (none for four seconds, twice the stillness after which it
/// sleeps): each stretch rings it awake. `SANDGLASS_BENCH_BIN` names another build's
/// binary to compare with. BENCHMARKS.md quotes it.
#[test]
#[ignore = "a benchmark: cargo test --release -p sandglass --test watch -- --ignored --nocapture"]
fn bench_a_sleeping_window_takes_a_stretch() {
    let display = Xvfb::start();
    let file = golden();
    let plan = Plan {
        stretch: 800,
        pause: Duration::from_secs(4),
        ..plan(None, Damage::None)
    };
    let server = LiveServer::start(file, plan);
    let (data, config) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
    let url = server.run_url();
    let dirs = dir_args(&data, &config);
    let bin = std::env::var("SANDGLASS_BENCH_BIN").unwrap_or(common::BIN.to_owned());
    let mut window = Window::open_binary(&bin, &display, &[&dirs[..], &["watch", &url]].concat());
    let mut taken = vec![];
    loop {
        let line = window
            .next_line(PATIENCE)
            .unwrap_or_else(|| panic!("no `live end` line; the binary said {:?}", window.said));
        if let Some(events) = line
            .strip_prefix("live ")
            .and_then(|l| l.strip_suffix(" events"))
        {
            taken.push((events.parse::<u64>().unwrap(), Instant::now()));
        } else if line.starts_with("live end ") {
            break;
        }
    }
    let sent = server.sent();
    let mut millis: Vec<f64> = taken
        .iter()
        // The first stretch comes while the window is opening.
        .skip(1)
        .map(|(events, at)| {
            let (_, written) = sent.iter().find(|(e, _)| e == events).unwrap();
            at.duration_since(*written).as_secs_f64() * 1e3
        })
        .collect();
    millis.sort_by(f64::total_cmp);
    eprintln!(
        "{bin}: {} stretches, from written to taken: median {:.1} ms, longest {:.1} ms; all {millis:.1?}",
        millis.len(),
        millis[millis.len() / 2],
        millis[millis.len() - 1],
    );
}
