//! The native window: opening it (on the start screen, a game or a replay), opening the
//! screens that need saved games, and the frame loop that paces and times its frames.

use std::cell::RefCell;
use std::hash::{BuildHasher, Hasher};
use std::path::PathBuf;
use std::rc::Rc;
use std::time::{Duration, Instant};

use anyhow::Context;
use macroquad::input::utils::{register_input_subscriber, repeat_all_miniquad_input};
use macroquad::prelude::*;
use sandglass_sim::{Header, Ruleset};
use sandglass_store::{GameId, Status, Store};

use super::bench::{BenchArgs, BenchScreen};
use super::frames::{self, FrameStats, Pacer};
use super::opening::PendingStore;
use super::screen_end::EndScreen;
use super::screen_game::GameScreen;
use super::screen_replay::{Replay, ReplayScreen, Tape};
use super::screen_start::StartScreen;
use super::{conf, display, draw_map, hud, style_egui, App, Go, Screen};
use super::{DEFAULT_WINDOW, MIN_WINDOW};
use crate::dealer::Dealer;
use crate::input::keys::KeyQueue;
use crate::live::stream::Watched;
use crate::play::{GameController, Start};
use crate::settings::Settings;
use crate::streamer::Streamer;

/// What the window opens on.
pub enum Opening {
    Menu,
    NewGame {
        seed: Option<u64>,
        ruleset: Ruleset,
    },
    /// A saved game, by name or number.
    Load(String),
    /// The scrubber, on a replay file or a saved game.
    Replay(String),
    /// The scrubber on a game played elsewhere, growing as it is played.
    Watch(Box<Watched>),
    Bench(BenchArgs),
}

pub struct Options {
    pub data_dir: PathBuf,
    /// Where settings are remembered; `None` if this system has no config folder.
    pub config_dir: Option<PathBuf>,
    /// Write frame time statistics here when the window closes; also lifts the frame
    /// cap, to measure what the loop can do.
    pub frame_stats: Option<PathBuf>,
}

/// Opens the window and runs until it is closed.
pub fn run(opening: Opening, options: Options) -> anyhow::Result<()> {
    let settings = options
        .config_dir
        .as_deref()
        .map(Settings::load)
        .unwrap_or_default();
    let conf = window_conf(&settings);
    // Whatever can fail before a window is needed fails here, as a plain error in the
    // terminal. A data directory that cannot be opened (another window has it, say) is
    // said in a window too: started from a desktop, there is no terminal to read. An open
    // that takes long (a migration, or the rewrite that gives back the room of deleted
    // games) goes on in the window, which says how it goes.
    let wait = if has_display() {
        QUICK_OPEN
    } else {
        Duration::MAX
    };
    let ready = match PendingStore::start(options.data_dir.clone()).within(wait) {
        Ok(Ok(store)) => {
            let first = first_screen(&store, opening)?;
            Ready::Now(store, first)
        }
        Ok(Err(error)) => {
            if has_display() {
                say_in_window(conf, cannot_open(&error));
            }
            return Err(error);
        }
        Err(pending) => Ready::Later(pending, opening),
    };
    let result = Rc::new(RefCell::new(Ok(())));
    let out = Rc::clone(&result);
    macroquad::Window::from_config(may_sleep(conf), async move {
        let (store, first) = match ready {
            Ready::Now(store, first) => (store, first),
            Ready::Later(pending, opening) => {
                let text = hud::Text::load();
                let opened = pending.shown(&text).await.and_then(|store| {
                    let first = first_screen(&store, opening)?;
                    Ok((store, first))
                });
                match opened {
                    Ok(both) => both,
                    Err(error) => {
                        show_said(&text, cannot_open(&error)).await;
                        *out.borrow_mut() = Err(error);
                        return;
                    }
                }
            }
        };
        let app = App::new(store, options.config_dir);
        *out.borrow_mut() = main_loop(app, first, options.frame_stats).await;
    });
    result.replace(Ok(()))
}

/// How long the store may take to open before the window opens to say how the open goes.
const QUICK_OPEN: Duration = Duration::from_millis(300);

/// The store, open, and the screen the window opens on; or the store still opening.
enum Ready {
    Now(Store, Go),
    Later(PendingStore, Opening),
}

/// The screen `opening` names, in `store`.
fn first_screen(store: &Store, opening: Opening) -> anyhow::Result<Go> {
    Ok(match opening {
        Opening::Menu => Go::Menu,
        Opening::NewGame { seed, ruleset } => Go::NewGame { seed, ruleset },
        Opening::Load(game) => {
            let meta = store.find(&game)?;
            if meta.status == Status::Alive {
                Go::Play(meta.id)
            } else {
                Go::Over(meta.id)
            }
        }
        Opening::Replay(name) => {
            let tape = if crate::cli::verify::is_replay_file(&name) {
                Tape::File(name.into())
            } else {
                Tape::Game(store.find(&name)?.id)
            };
            Go::Show(Box::new(Replay::open(store, tape)?))
        }
        Opening::Watch(watched) => {
            let Watched { run, url, feed } = *watched;
            Go::Show(Box::new(Replay::live(run, Box::new(feed), &url)?))
        }
        Opening::Bench(args) => Go::Bench(args),
    })
}

/// Why the data directory cannot be opened, as the window says it.
fn cannot_open(error: &anyhow::Error) -> String {
    let said = crate::input::messages::quoted(&format!("{error:#}."));
    sandglass_sim::text::capitalise(&said)
}

/// The window as the player last left it (or at `DEFAULT_WINDOW`).
fn window_conf(settings: &Settings) -> macroquad::conf::Conf {
    // As large as the player last left it; the first time, most of the display, or a
    // size most displays hold when the display cannot be asked.
    let [width, height] = settings
        .window
        .map(|[w, h]| [w.clamp(MIN_WINDOW[0], 8192), h.clamp(MIN_WINDOW[1], 8192)])
        .or_else(|| display::size().map(|size| display::first_window(size, MIN_WINDOW)))
        .unwrap_or(DEFAULT_WINDOW)
        .map(|side| side as i32);
    let mut conf = conf(width, height);
    conf.miniquad_conf.fullscreen = settings.full_screen;
    conf
}

/// The game's window may sleep in miniquad's event loop while nothing changes
/// (`frames::Pacer`): any input wakes it.
fn may_sleep(mut conf: macroquad::conf::Conf) -> macroquad::conf::Conf {
    conf.miniquad_conf.platform.blocking_event_loop = true;
    conf.update_on = Some(macroquad::conf::UpdateTrigger {
        key_down: true,
        mouse_down: true,
        mouse_up: true,
        mouse_motion: true,
        mouse_wheel: true,
        specific_key: None,
        touch: true,
    });
    conf
}

/// Whether there is a display to open a window on.
fn has_display() -> bool {
    ["DISPLAY", "WAYLAND_DISPLAY"]
        .iter()
        .any(|name| std::env::var_os(name).is_some_and(|v| !v.is_empty()))
}

/// A window that says `message` until a key, a click or its close button.
fn say_in_window(conf: macroquad::conf::Conf, message: String) {
    macroquad::Window::from_config(conf, async move {
        show_said(&hud::Text::load(), message).await;
    });
}

/// Says `message` (why the games cannot be opened) until a key, a click or the close
/// button.
async fn show_said(text: &hud::Text, message: String) {
    loop {
        clear_background(draw_map::BACKGROUND);
        let area = Rect::new(0.0, 0.0, screen_width(), screen_height());
        let size = 16.0;
        let mut lines: Vec<(String, Color)> = hud::wrap(&message, area.w * 0.8, size)
            .into_iter()
            .map(|line| (line, hud::TEXT))
            .collect();
        lines.push((String::new(), hud::TEXT));
        lines.push(("Any key closes this.".to_owned(), hud::DIM));
        hud::dialog(text, area, size, "Sandglass cannot open its games", &lines);
        if get_last_key_pressed().is_some() || is_mouse_button_pressed(MouseButton::Left) {
            break;
        }
        next_frame().await;
    }
}

/// Opens the screen `go` names; `None` to close the window. A game that cannot be opened
/// from the menu sends the player back to it with the reason.
fn open(app: &mut App, go: Go, time: f64) -> anyhow::Result<Option<Screen>> {
    Ok(Some(match go {
        Go::Stay | Go::Menu => Screen::Start(Box::new(StartScreen::new(app, None))),
        Go::NewGame { seed, ruleset } => {
            let seed = seed.unwrap_or_else(random_seed);
            let name = app.store.free_name("crossing")?;
            let header = Header::new(seed, ruleset, sandglass_store::now());
            let session = app.store.create(&name, header, &mut ())?;
            Screen::Game(Box::new(GameScreen::new(GameController::new(
                session,
                Start::New,
            ))))
        }
        Go::Play(id) => resume(app, id, Start::Resumed),
        Go::TakeOver(id) => resume(app, id, Start::TakenOver),
        Go::Over(id) => match EndScreen::new(app, id) {
            Ok(screen) => Screen::End(Box::new(screen)),
            Err(error) => menu_with(app, error),
        },
        Go::Watch(tape) => match Replay::open(&app.store, tape) {
            Ok(replay) => Screen::Replay(Box::new(ReplayScreen::new(replay, time))),
            Err(error) => menu_with(app, error),
        },
        Go::Show(replay) => Screen::Replay(Box::new(ReplayScreen::new(*replay, time))),
        Go::Bench(args) => {
            // Measured with the panel open, as the heaviest frame; not remembered.
            app.settings.panel_open = true;
            Screen::Bench(Box::new(BenchScreen::new(&args, time)?))
        }
        Go::Exit => return Ok(None),
    }))
}

/// The game screen on a stored game, told what the game said before; or the menu with
/// the reason it cannot be played.
fn resume(app: &mut App, id: GameId, start: fn(Vec<String>) -> Start) -> Screen {
    let resumed = app
        .store
        .resume(id)
        .map_err(anyhow::Error::from)
        .and_then(|s| {
            let history = crate::play::message_history(&app.store, id)?;
            Ok((s, history))
        });
    match resumed {
        Ok((session, history)) => {
            let game = GameController::new(session, start(history));
            // A daily run goes on with its server wherever it is played from: dealt
            // from it, or sent to it.
            let stream = app.store.stream_of(id).ok().flatten();
            let dealt = app.store.is_dealt(id).unwrap_or(false);
            Screen::Game(Box::new(match (stream, app.config_dir.clone()) {
                (Some(stream), Some(config)) if dealt => {
                    GameScreen::new(game.dealt(Dealer::start(stream, config)))
                }
                (Some(stream), Some(config)) => GameScreen::new(game).streamed(Streamer::start(
                    app.store.clone(),
                    id,
                    stream,
                    config,
                )),
                _ => GameScreen::new(game),
            }))
        }
        Err(error) => menu_with(app, error),
    }
}

/// The start screen, saying why what the player chose cannot be opened.
fn menu_with(app: &App, error: anyhow::Error) -> Screen {
    let said = crate::input::messages::quoted(&format!("{error:#}"));
    Screen::Start(Box::new(StartScreen::new(app, Some(said))))
}

async fn main_loop(mut app: App, first: Go, stats_file: Option<PathBuf>) -> anyhow::Result<()> {
    // Closing the window becomes a request the loop sees, so the game can report its
    // final hash and the frame statistics can be written. The game itself needs no
    // saving: every command already is on disk.
    prevent_quit();
    style_egui();
    let subscriber = register_input_subscriber();
    let mut keys = KeyQueue::default();
    let mut stats = FrameStats::default();
    let Some(mut screen) = open(&mut app, first, get_time())? else {
        return Ok(());
    };
    let benchmark = matches!(screen, Screen::Bench(_));
    let mut pacer = Pacer::new(benchmark || stats_file.is_some());
    // When the screen last changed, and when the player last did something: the window
    // sleeps once nothing has changed for a while (`frames::Pacer`).
    let mut last_change = 0.0;
    let mut last_input = 0.0;
    let mut last_size = (0.0, 0.0);
    loop {
        let start = Instant::now();
        let time = get_time();
        repeat_all_miniquad_input(&mut keys, subscriber);
        let pressed = keys.take();
        let size = (screen_width(), screen_height());
        let had_input = !pressed.is_empty()
            || pointer_moved()
            || mouse_wheel() != (0.0, 0.0)
            || [MouseButton::Left, MouseButton::Right]
                .iter()
                .any(|&b| is_mouse_button_down(b))
            || size != last_size;
        last_size = size;
        let mut go = screen.keys(&mut app, pressed, time)?;
        let next = screen.update(&mut app, time)?;
        if matches!(go, Go::Stay) {
            go = next;
        }
        if is_quit_requested() {
            go = Go::Exit;
        }
        let new_screen = !matches!(go, Go::Stay);
        if new_screen {
            screen.leave();
            match open(&mut app, go, time)? {
                Some(next) => screen = next,
                None => break,
            }
        }
        if had_input {
            last_input = time;
        }
        // egui asks for another frame after any event it is given, the waker's nudge
        // (`waker`) too; its own animations follow input, so a request long after the
        // last input is for that nudge, which changed nothing.
        let repaint = screen.draw(&mut app, time) && time - last_input < frames::QUIET_AFTER;
        // What is busy under the options screen waits for it (`Screen::update`).
        let busy = screen.busy(time) && app.options.is_none();
        if repaint || busy || had_input || new_screen {
            last_change = time;
        }
        let work = start.elapsed();
        stats.frame(start, work);
        pacer.end_frame(time - last_change, work);
        next_frame().await;
    }
    if !benchmark {
        app.settings.window = Some([screen_width() as u32, screen_height() as u32]);
        app.save_settings();
    }
    write_stats(&stats, benchmark, stats_file)
}

/// Whether the pointer moved over the window since the last frame. Moving elsewhere on
/// the desktop changes nothing on screen; leaving the window does (a hover caption goes).
fn pointer_moved() -> bool {
    let delta = mouse_delta_position();
    let now = mouse_position_local();
    let over = |at: Vec2| at.x.abs() <= 1.0 && at.y.abs() <= 1.0;
    delta != Vec2::ZERO && (over(now) || over(now + delta))
}

/// The frame statistics: printed after a benchmark, written where `--frame-stats` said.
fn write_stats(stats: &FrameStats, benchmark: bool, file: Option<PathBuf>) -> anyhow::Result<()> {
    let report = stats.report();
    if benchmark {
        print!("{report}");
    }
    if let Some(path) = file {
        std::fs::write(&path, &report)
            .with_context(|| format!("cannot write frame statistics to {}", path.display()))?;
    }
    Ok(())
}

/// A seed nobody chose: the standard library's per-process random keys, mixed with the
/// clock so that two games started in one process differ too.
fn random_seed() -> u64 {
    let mut hasher = std::collections::hash_map::RandomState::new().build_hasher();
    hasher.write_i128(jiff::Timestamp::now().as_nanosecond());
    hasher.finish()
}
