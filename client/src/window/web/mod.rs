//! The web replay viewer: the window's replay screen (`screen_replay`, with its map, side
//! bar, energy panel and timeline strip) in a browser page, built for
//! `wasm32-unknown-unknown` (`cargo xtask web`). The page opens on a replay named by
//! `?replay=URL` (playing at `&speed=N`, 1 to 64) or waits for a `.sgr` file dropped on
//! it; either is verified as it loads, and the verdict is said in `sandglass verify`'s own
//! words (`page::verdict`).
//!
//! A browser has no saved games, so there is no start screen, no live play and no take
//! over: the page says where those are (the native window). It can watch a game played
//! elsewhere, though: `?live=URL` (a server's run, `{server}/runs/{run}`) opens the
//! screen on it as it is played (`live`).

mod live;
mod page;

use macroquad::input::utils::{register_input_subscriber, repeat_all_miniquad_input};
use macroquad::prelude::*;
use sandglass_replay::verdict::{check, Verdict};
use sandglass_replay::{check_size, from_bytes};
use sandglass_sim::Recording;

use super::screen_replay::{Replay, ReplayScreen, Source as _};
use super::{conf, draw_map, hud, style_egui, App, Go, Screen, DEFAULT_WINDOW};
use crate::input::intent::Key;
use crate::input::keys::KeyQueue;
use crate::live::Feed;
use live::PageStream;

/// Opens the viewer in the page's canvas; returns at once, the browser runs the frames.
pub fn run() {
    let [width, height] = DEFAULT_WINDOW.map(|side| side as i32);
    macroquad::Window::from_config(conf(width, height), main_loop());
}

/// What the page shows: the replay being watched, or what it waits for.
enum Showing {
    Replay(Screen),
    /// The page's own menu: drop a file. `said` is why the last file is not shown.
    Waiting {
        said: Option<String>,
    },
}

async fn main_loop() {
    style_egui();
    let subscriber = register_input_subscriber();
    let mut keys = KeyQueue::default();
    let mut app = App::new(None);
    let mut showing = match (page::live_url(), page::replay_url()) {
        (Some(url), _) => watch(&app, &url).await,
        (None, Some(url)) => fetch(&app, &url).await,
        (None, None) => waiting(None),
    };
    // What the status line last said of a live game.
    let mut live_status = None;
    let mut frames = FrameRate::default();
    loop {
        let time = get_time();
        let start = page::now_ms();
        repeat_all_miniquad_input(&mut keys, subscriber);
        let pressed = keys.take();
        if let Some(file) = get_dropped_files().into_iter().next() {
            let name = file
                .path
                .and_then(|path| path.file_name().map(|n| n.to_string_lossy().into_owned()))
                .unwrap_or_else(|| "dropped.sgr".to_owned());
            showing = open(&app, name, &file.bytes.unwrap_or_default()).await;
            continue;
        }
        match &mut showing {
            Showing::Replay(screen) => {
                let go = screen
                    .keys(&mut app, pressed, time)
                    .and_then(|go| match go {
                        Go::Stay => screen.update(&mut app, time),
                        go => Ok(go),
                    });
                match go {
                    Ok(Go::Stay) => {
                        let Screen::Replay(replay) = &mut *screen;
                        tell_live(replay, &mut live_status);
                        screen.draw(&mut app, time);
                    }
                    Ok(Go::Menu) => showing = waiting(None),
                    Err(error) => {
                        let said = format!("{error:#}");
                        showing = waiting(Some(said));
                    }
                }
            }
            Showing::Waiting { said } => draw_waiting(&app, said.as_deref()),
        }
        frames.frame(time, page::now_ms() - start);
        next_frame().await;
    }
}

/// Says on the page where a live game stands when that changes, and the verdict on it
/// once its stream has stopped.
fn tell_live(screen: &mut ReplayScreen, said: &mut Option<String>) {
    let status = screen.live_status();
    if status.is_some() && status != *said {
        page::status(status.as_deref().unwrap_or_default());
        *said = status;
    }
    if let Some((verdict, name)) = screen.live_verdict() {
        page::verdict(&verdict, &name, None);
    }
}

/// The live game at `url` (`?live=URL`): its stream opened, and the replay screen on it
/// once its header has come.
async fn watch(app: &App, url: &str) -> Showing {
    let mut stream = PageStream::open(url);
    let url = stream.url().to_owned();
    page::status(&format!("connecting to {url}"));
    let run = loop {
        say(app, &format!("Connecting to {url}..."));
        match stream.next() {
            Some(Feed::Run(run)) => break run,
            Some(Feed::Stopped(refusal)) => {
                let verdict = Verdict::refused(format!("cannot watch it: {refusal}"));
                page::verdict(&verdict, &url, None);
                return waiting(Some(verdict.text(&url, None)));
            }
            _ => next_frame().await,
        }
    };
    match Replay::live(run, Box::new(stream), &url) {
        Ok(replay) => Showing::Replay(Screen::Replay(Box::new(ReplayScreen::new(
            replay,
            get_time(),
        )))),
        Err(error) => waiting(Some(format!("{error:#}"))),
    }
}

/// Why a replay named by `?replay=URL` is not shown when the server sent none.
const FETCH_FAILED: &str = "cannot fetch it: the server sent no file from that address";

/// The replay at `url` (on the page's own server), fetched, then opened as a dropped one.
async fn fetch(app: &App, url: &str) -> Showing {
    let name = url.rsplit('/').next().unwrap_or(url);
    let name = name.split(['?', '#']).next().unwrap_or(name).to_owned();
    page::status(&format!("fetching {url}"));
    say(app, &format!("Fetching {url}..."));
    next_frame().await;
    match load_file(url).await {
        Ok(bytes) => open(app, name, &bytes).await,
        // The browser tells a missing file, a refusal and a failed connection apart to
        // no one: the request failed, that is all macroquad hears.
        Err(_) => {
            let verdict = Verdict::refused(FETCH_FAILED);
            page::verdict(&verdict, &name, None);
            waiting(Some(verdict.text(&name, None)))
        }
    }
}

/// Verifies the bytes of the replay `name` and says the verdict on the page; a replay
/// that verifies is then laid out on its timeline and shown.
async fn open(app: &App, name: String, bytes: &[u8]) -> Showing {
    page::status(&format!("checking {name}"));
    say(
        app,
        &format!("Checking {name}: every draw, checkpoint and the final hash..."),
    );
    next_frame().await;
    let start = page::now_ms();
    let (verdict, file) = verify(bytes);
    page::verdict(&verdict, &name, page::timed(page::now_ms() - start));
    let Some(file) = file.filter(|_| !verdict.failed()) else {
        return waiting(Some(verdict.text(&name, None)));
    };
    page::status(&format!("laying out {name}"));
    say(
        app,
        &format!("{name} verifies. Laying it out on the timeline..."),
    );
    next_frame().await;
    match Replay::of_file(file, name.clone()) {
        Ok(replay) => {
            page::status(&format!("watching {name}"));
            let time = get_time();
            let mut screen = ReplayScreen::new(replay, time);
            // `&speed=N` is pressed as the keys a player would press for it.
            for _ in 0..page::speed().ilog2() {
                screen.key(Key::Char('+'), time);
            }
            // `&turn=N` (a game's page on the server links to a moment of it).
            if let Some(turn) = page::turn() {
                screen.go_to_turn(turn);
                page::status(&format!("watching {name} at turn {}", screen.turn()));
            }
            Showing::Replay(Screen::Replay(Box::new(screen)))
        }
        Err(error) => waiting(Some(format!("{error:#}"))),
    }
}

/// What `sandglass verify` does to a file's bytes once it has read them: the size limit,
/// the decoding, then the one fold that checks every draw and hash (`verdict::check`).
fn verify(bytes: &[u8]) -> (Verdict, Option<Recording>) {
    match check_size(bytes.len() as u64).and_then(|()| from_bytes(bytes)) {
        Ok(file) => (check(&file, "the file", |_| ()), Some(file)),
        Err(error) => (Verdict::refused(error), None),
    }
}

/// The page's menu, saying why the last file is not shown, if one is not.
fn waiting(said: Option<String>) -> Showing {
    page::status("waiting for a file");
    Showing::Waiting { said }
}

/// One frame that says `what`, for the work that follows it and holds the next frame.
fn say(app: &App, what: &str) {
    clear_background(draw_map::BACKGROUND);
    let area = Rect::new(0.0, 0.0, screen_width(), screen_height());
    let lines = [(what.to_owned(), hud::TEXT)];
    hud::dialog(&app.text, area, 16.0, "Sandglass", &lines);
}

/// The page's menu: what it takes, and where the rest of the game is.
fn draw_waiting(app: &App, said: Option<&str>) {
    clear_background(draw_map::BACKGROUND);
    let area = Rect::new(0.0, 0.0, screen_width(), screen_height());
    let size = 16.0;
    let mut lines: Vec<(String, Color)> = vec![];
    if let Some(said) = said {
        for line in hud::wrap(said, area.w * 0.7, size) {
            lines.push((line, hud::BAD));
        }
        lines.push((String::new(), hud::TEXT));
    }
    let text = [
        (
            "Drop a .sgr replay file on this page to watch it, or open the page",
            hud::TEXT,
        ),
        (
            "as ?replay=URL, a file on the same server. It is verified as it loads.",
            hud::TEXT,
        ),
        ("", hud::TEXT),
        (
            "Playing, saving and taking over are the native window's: there are",
            hud::DIM,
        ),
        (
            "no saved games in a browser (`cargo run --release`, see the README).",
            hud::DIM,
        ),
    ];
    lines.extend(text.iter().map(|&(line, color)| (line.to_owned(), color)));
    hud::dialog(
        &app.text,
        area,
        size,
        "Sandglass: the replay viewer",
        &lines,
    );
}

/// Counts frames and tells the page their rate once a second, with the time the
/// viewer's own work took in each (the rest of a frame is the browser's: WebGL, the
/// page's compositing).
#[derive(Default)]
struct FrameRate {
    since: f64,
    frames: u32,
    work_ms: f64,
}

impl FrameRate {
    fn frame(&mut self, time: f64, work_ms: f64) {
        self.frames += 1;
        self.work_ms += work_ms;
        let elapsed = time - self.since;
        if elapsed >= 1.0 {
            let frames = f64::from(self.frames);
            page::frame_rate(frames / elapsed, self.work_ms / frames);
            *self = FrameRate {
                since: time,
                ..FrameRate::default()
            };
        }
    }
}
