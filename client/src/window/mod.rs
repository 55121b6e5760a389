//! The window: one loop that reads keys, lets the current screen act on them, draws it,
//! and shows the frame. The screens never block on more than the one flushed write of
//! a command, and nothing is simulated to draw a frame. What the binary reports on
//! stdout as it goes is `crate::report`'s.
//!
//! The loop is `native`'s, or in a browser `web`'s, around the same screens; this module
//! holds what both share (`App`, `Go`, `Screen` and how a screen is drawn).

mod animate;
mod atlas;
#[cfg(not(target_arch = "wasm32"))]
mod bench;
#[cfg(not(target_arch = "wasm32"))]
mod display;
// The game screen's parts (help, legend, captions) are not in the web viewer.
#[cfg_attr(target_arch = "wasm32", allow(dead_code))]
mod draw_map;
#[cfg(not(target_arch = "wasm32"))]
mod frames;
#[cfg_attr(target_arch = "wasm32", allow(dead_code))]
mod hud;
#[cfg(not(target_arch = "wasm32"))]
mod native;
#[cfg(not(target_arch = "wasm32"))]
mod opening;
#[cfg_attr(target_arch = "wasm32", allow(dead_code))]
mod options;
mod panel;
#[cfg(not(target_arch = "wasm32"))]
mod scoreboard;
#[cfg(not(target_arch = "wasm32"))]
mod screen_end;
#[cfg(not(target_arch = "wasm32"))]
mod screen_game;
mod screen_replay;
#[cfg(not(target_arch = "wasm32"))]
mod screen_start;
#[cfg(not(target_arch = "wasm32"))]
mod server_entry;
#[cfg(not(target_arch = "wasm32"))]
mod share;
mod view;
#[cfg(target_os = "linux")]
mod waker;
#[cfg(all(not(target_os = "linux"), not(target_arch = "wasm32")))]
mod waker {
    /// Nothing here wakes a sleeping window, so the window never sleeps.
    pub struct Waker;

    impl Waker {
        pub fn start() -> Option<Waker> {
            None
        }
    }

    /// The window never sleeps: nothing to wake.
    pub fn ring() {}
}
#[cfg(target_arch = "wasm32")]
pub mod web;

use std::cell::Cell;
use std::path::PathBuf;

use macroquad::prelude::*;
use sandglass_sim::geometry::Pos;
#[cfg(not(target_arch = "wasm32"))]
use sandglass_sim::Ruleset;
use sandglass_sim::State;
#[cfg(not(target_arch = "wasm32"))]
use sandglass_store::{GameId, Store};

use crate::input::intent::{Input, Key};
use crate::input::keymap::{is_global, Keymap};
use crate::input::keys::{bind, is_any_key, Mode};
use crate::settings::Settings;
use draw_map::{Layout, Scheme, Sight};
use options::OptionsScreen;

#[cfg(not(target_arch = "wasm32"))]
pub use bench::BenchArgs;
#[cfg(not(target_arch = "wasm32"))]
pub use native::{run, Opening, Options};
#[cfg(not(target_arch = "wasm32"))]
pub use waker::ring;

#[cfg(not(target_arch = "wasm32"))]
use bench::BenchScreen;
#[cfg(not(target_arch = "wasm32"))]
use screen_end::EndScreen;
#[cfg(not(target_arch = "wasm32"))]
use screen_game::GameScreen;
#[cfg(not(target_arch = "wasm32"))]
use screen_replay::Replay;
use screen_replay::ReplayScreen;

#[cfg(not(target_arch = "wasm32"))]
pub use screen_replay::Tape;
#[cfg(not(target_arch = "wasm32"))]
use screen_start::StartScreen;

/// The window's settings wherever it opens: its title and size, and room for a full map
/// and a crowd in one batch: 10,000 quads of 4 vertices and 6 indices (indices are
/// 16-bit, so 65,535 vertices is the most a batch can hold).
fn conf(width: i32, height: i32) -> macroquad::conf::Conf {
    macroquad::conf::Conf {
        miniquad_conf: Conf {
            window_title: "Sandglass".to_owned(),
            window_width: width,
            window_height: height,
            high_dpi: false,
            window_resizable: true,
            ..Default::default()
        },
        draw_call_vertex_capacity: 40_000,
        draw_call_index_capacity: 60_000,
        ..Default::default()
    }
}

/// The window's size the first time it opens, when the display's size is not known; the
/// size the web viewer asks for, which its page overrides.
const DEFAULT_WINDOW: [u32; 2] = [1280, 720];

/// Below this the map's cells are under 10 pixels, too small to read, and the window
/// says so instead of drawing the screen.
pub const MIN_WINDOW: [u32; 2] = [860, 540];

/// What every screen shares.
pub struct App {
    #[cfg(not(target_arch = "wasm32"))]
    store: Store,
    text: hud::Text,
    painter: draw_map::Painter,
    settings: Settings,
    config_dir: Option<PathBuf>,
    /// The keys of the map, the player's own or the defaults.
    keymap: Keymap,
    /// Said across the foot of the window until a key is pressed: why the keymap file
    /// is not used.
    notice: Option<String>,
    /// The options screen, over the current screen while it is open.
    options: Option<OptionsScreen>,
    /// The cell size that fits the whole map in the last layout made, where glyph sizes
    /// step from while they fit the map.
    fitted: Cell<f32>,
}

impl App {
    /// What every screen shares, with the settings and keys remembered in `config_dir`.
    fn new(#[cfg(not(target_arch = "wasm32"))] store: Store, config_dir: Option<PathBuf>) -> App {
        let settings = config_dir
            .as_deref()
            .map(Settings::load)
            .unwrap_or_default();
        let (keymap, notice) = config_dir.as_deref().map(Keymap::load).unwrap_or_default();
        if let Some(notice) = &notice {
            crate::report::line(&format!("keymap refused: {notice}"));
        }
        App {
            #[cfg(not(target_arch = "wasm32"))]
            store,
            text: hud::Text::load(),
            painter: draw_map::Painter::new(),
            settings,
            config_dir,
            keymap,
            notice,
            options: None,
            fitted: Cell::new(0.0),
        }
    }

    /// Where `state`'s map goes in a window `height` pixels high, at the glyph size the
    /// player chose, following `focus` (the look cursor) or else the camel.
    fn layout(&self, state: &State, height: f32, focus: Option<Pos>) -> Layout {
        let map = state.world().map();
        let focus = focus.or_else(|| state.world().player().map(|c| c.pos()));
        let size = (map.width(), map.height());
        let layout = Layout::sized(
            screen_width(),
            height,
            size,
            self.settings.glyph_size,
            focus,
        );
        self.fitted.set(layout.fitted);
        layout
    }

    /// The side bar beside `state`'s map, its creatures in the colours of the map.
    fn side_bar(&self, layout: &Layout, state: &State, heading: &[String], footer: &[&str]) {
        hud::side_bar(
            (&self.text, self.painter.scheme),
            layout,
            state,
            heading,
            footer,
        );
    }

    /// The glyph size one step bigger (`by` 1) or smaller (-1), remembered.
    fn step_glyphs(&mut self, by: i32) {
        let fitted = match self.fitted.get() {
            0.0 => Layout::new(screen_width(), screen_height(), 64, 40).fitted,
            fitted => fitted,
        };
        let chosen = self.settings.glyph_size;
        let size = match by {
            1.. => view::bigger(chosen, fitted),
            _ => view::smaller(chosen, fitted),
        };
        self.set_glyphs(Some(size));
    }

    /// Carries out an action that works on every screen; false for any other.
    fn global(&mut self, input: Input) -> bool {
        match input {
            Input::TogglePanel => self.toggle_panel(),
            Input::ToggleFullScreen => self.toggle_full_screen(),
            Input::Bigger => self.step_glyphs(1),
            Input::Smaller => self.step_glyphs(-1),
            Input::FitMap => self.set_glyphs(None),
            _ => return false,
        }
        true
    }

    /// Glyphs of `size` pixels, or as large as fit the whole map; remembered.
    fn set_glyphs(&mut self, size: Option<u16>) {
        self.settings.glyph_size = size;
        self.save_settings();
        crate::report::line(&match size {
            Some(px) => format!("glyphs {px}"),
            None => "glyphs fit".to_owned(),
        });
    }

    /// Writes the keymap file, saying `done` or why it could not be written.
    fn save_keymap(&self, done: &str) -> (String, Color) {
        let Some(dir) = &self.config_dir else {
            return (format!("{done} (Not kept: no config folder.)"), hud::TEXT);
        };
        match self.keymap.save(dir) {
            Ok(()) => (done.to_owned(), hud::GOOD),
            Err(error) => (
                format!(
                    "{done} Not kept: cannot write in {}: {error}.",
                    dir.display()
                ),
                hud::BAD,
            ),
        }
    }

    /// Full screen on or off, remembered for the next time the window opens.
    fn toggle_full_screen(&mut self) {
        self.settings.full_screen = !self.settings.full_screen;
        set_fullscreen(self.settings.full_screen);
        self.save_settings();
        crate::report::line(if self.settings.full_screen {
            "full screen on"
        } else {
            "full screen off"
        });
    }

    fn toggle_panel(&mut self) {
        self.settings.panel_open = !self.settings.panel_open;
        self.save_settings();
        crate::report::line(if self.settings.panel_open {
            "panel shown"
        } else {
            "panel hidden"
        });
    }

    /// A preference that cannot be saved is not worth stopping the game for.
    fn save_settings(&self) {
        if let Some(dir) = &self.config_dir {
            if let Err(error) = self.settings.save_window_choices(dir) {
                eprintln!(
                    "sandglass: cannot save settings in {}: {error}",
                    dir.display()
                );
            }
        }
    }
}

/// Where a screen sends the player next.
///
/// In a browser (`web`) there are no saved games: the replay screen is the only screen,
/// and the menu it goes back to is the page's own, waiting for a file.
pub enum Go {
    Stay,
    Menu,
    #[cfg(not(target_arch = "wasm32"))]
    NewGame {
        seed: Option<u64>,
        ruleset: Ruleset,
    },
    #[cfg(not(target_arch = "wasm32"))]
    Play(GameId),
    /// A game just copied from a replay up to a moment, played from there.
    #[cfg(not(target_arch = "wasm32"))]
    TakeOver(GameId),
    /// The summary of a finished game.
    #[cfg(not(target_arch = "wasm32"))]
    Over(GameId),
    /// The scrubber on a tape, checked when it opens.
    #[cfg(not(target_arch = "wasm32"))]
    Watch(Tape),
    /// The scrubber on a replay already checked.
    #[cfg(not(target_arch = "wasm32"))]
    Show(Box<Replay>),
    #[cfg(not(target_arch = "wasm32"))]
    Bench(BenchArgs),
    #[cfg(not(target_arch = "wasm32"))]
    Exit,
}

enum Screen {
    #[cfg(not(target_arch = "wasm32"))]
    Start(Box<StartScreen>),
    #[cfg(not(target_arch = "wasm32"))]
    Game(Box<GameScreen>),
    #[cfg(not(target_arch = "wasm32"))]
    End(Box<EndScreen>),
    Replay(Box<ReplayScreen>),
    #[cfg(not(target_arch = "wasm32"))]
    Bench(Box<BenchScreen>),
}

impl Screen {
    /// The state the energy panel shows, if the screen has one. Not the end screen's:
    /// the game is over and the panel would hide its summary; nor the game's while a box
    /// asks the player something the panel would hide.
    /// The state the energy panel shows, and what of it: only what the camel sees in a
    /// game being played (the panel is no window onto the unseen), everything on the
    /// replay's whole-map view and in the benchmark.
    fn panel_state(&self) -> Option<(&State, Sight)> {
        match self {
            #[cfg(not(target_arch = "wasm32"))]
            Screen::Start(_) | Screen::End(_) => None,
            #[cfg(not(target_arch = "wasm32"))]
            Screen::Game(s) if s.asks() => None,
            #[cfg(not(target_arch = "wasm32"))]
            Screen::Game(s) => Some((s.state(), Sight::Camel)),
            Screen::Replay(s) => Some((s.state(), s.sight())),
            #[cfg(not(target_arch = "wasm32"))]
            Screen::Bench(s) => Some((s.state(), Sight::Everything)),
        }
    }
}

/// Shadows are drawn as many soft quads: a measurable share of a frame under Xvfb's
/// software GL, for no information.
fn style_egui() {
    egui_macroquad::cfg(|ctx| {
        ctx.style_mut(|style| {
            style.visuals.window_shadow = egui_macroquad::egui::Shadow::NONE;
            style.visuals.popup_shadow = egui_macroquad::egui::Shadow::NONE;
        });
    });
}

impl Screen {
    /// The keys pressed since the last frame, in order, up to the first that leaves the
    /// screen. The options screen takes every key while it is open; the keymap's global
    /// actions (F1 the energy panel, F11 or Alt+Enter full screen, Control and Plus,
    /// Minus or 0 the glyph size) work wherever they are pressed.
    fn keys(&mut self, app: &mut App, keys: Vec<Key>, time: f64) -> anyhow::Result<Go> {
        for key in keys {
            if let Some(mut options) = app.options.take() {
                if options.key(app, key) {
                    app.options = Some(options);
                }
                continue;
            }
            if is_any_key(&app.keymap, key) {
                app.notice = None;
            }
            let global = self
                .size_key(key)
                .or_else(|| bind(&app.keymap, Mode::Play, key).filter(|&i| is_global(i)));
            match global {
                Some(input) if app.global(input) => {}
                _ => {
                    let go = match self {
                        #[cfg(not(target_arch = "wasm32"))]
                        Screen::Start(s) => s.key(app, key),
                        #[cfg(not(target_arch = "wasm32"))]
                        Screen::Game(s) => s.key(app, key, time)?,
                        #[cfg(not(target_arch = "wasm32"))]
                        Screen::End(s) => s.key(app, key),
                        Screen::Replay(s) => s.key(key, time),
                        #[cfg(not(target_arch = "wasm32"))]
                        Screen::Bench(_) => Go::Stay,
                    };
                    if !matches!(go, Go::Stay) {
                        return Ok(go);
                    }
                }
            }
        }
        Ok(Go::Stay)
    }

    /// PageUp and PageDown size the glyphs where they are free: on the replay, whose
    /// keys move by commands and events, not by map directions.
    fn size_key(&self, key: Key) -> Option<Input> {
        use macroquad::miniquad::KeyCode;
        match (self, key) {
            (Screen::Replay(_), Key::Code(KeyCode::PageUp)) => Some(Input::Bigger),
            (Screen::Replay(_), Key::Code(KeyCode::PageDown)) => Some(Input::Smaller),
            _ => None,
        }
    }

    /// What a screen does by itself as time passes: a replay playing, the benchmark.
    /// Nothing moves under the options screen: no errand steps, no replay plays, and a
    /// click meant for it travels nowhere.
    fn update(&mut self, app: &mut App, time: f64) -> anyhow::Result<Go> {
        if app.options.is_some() {
            return Ok(Go::Stay);
        }
        Ok(match self {
            #[cfg(not(target_arch = "wasm32"))]
            Screen::Game(s) => s.update(app, time)?,
            Screen::Replay(s) => s.update(app, time)?,
            #[cfg(not(target_arch = "wasm32"))]
            Screen::Bench(s) => s.update(time),
            #[cfg(not(target_arch = "wasm32"))]
            Screen::Start(s) => s.update(),
            #[cfg(not(target_arch = "wasm32"))]
            Screen::End(s) => {
                s.update();
                Go::Stay
            }
        })
    }

    /// Whether the screen changes by itself, and so needs the next frame unasked.
    #[cfg(not(target_arch = "wasm32"))]
    fn busy(&self, time: f64) -> bool {
        match self {
            Screen::Game(s) => s.busy(),
            Screen::Replay(s) => s.busy(time),
            Screen::Bench(_) => true,
            Screen::Start(s) => s.busy(),
            Screen::End(s) => s.busy(),
        }
    }

    /// Leaving a game reports its final hash.
    #[cfg(not(target_arch = "wasm32"))]
    fn leave(&mut self) {
        if let Screen::Game(game) = self {
            game.leave();
        }
    }

    /// One frame: the screen, then egui's parts (the scrubber's strip, the energy panel).
    /// Returns whether egui wants another frame (a widget still changing).
    fn draw(&mut self, app: &mut App, time: f64) -> bool {
        clear_background(draw_map::BACKGROUND);
        if too_small(screen_width(), screen_height()) {
            let (w, h) = (screen_width(), screen_height());
            let lines = [
                (format!("This window is {w:.0} × {h:.0}."), hud::TEXT),
                (
                    format!(
                        "Make it at least {} × {} to play.",
                        MIN_WINDOW[0], MIN_WINDOW[1]
                    ),
                    hud::TEXT,
                ),
            ];
            let area = Rect::new(0.0, 0.0, w, h);
            hud::dialog(&app.text, area, 13.0, "Too small", &lines);
            return false;
        }
        app.painter.scheme = Scheme::of(app.settings.high_contrast);
        // The options screen covers the whole window: the screen under it, its egui
        // parts and the panel are not drawn, for no one would see them.
        let covered = app.options.is_some();
        match (&app.options, &mut *self) {
            (Some(options), _) => options.draw(app),
            #[cfg(not(target_arch = "wasm32"))]
            (None, Screen::Start(s)) => s.draw(app),
            #[cfg(not(target_arch = "wasm32"))]
            (None, Screen::Game(s)) => s.draw(app, time),
            #[cfg(not(target_arch = "wasm32"))]
            (None, Screen::End(s)) => s.draw(app),
            (None, Screen::Replay(s)) => s.draw(app, time),
            #[cfg(not(target_arch = "wasm32"))]
            (None, Screen::Bench(s)) => s.draw(app, time),
        }
        if let Some(notice) = &app.notice {
            draw_notice(app, notice);
        }
        let mut open = app.settings.panel_open && !covered;
        let mut panel_at = app.settings.panel_at;
        egui_macroquad::ui(|ctx| {
            match self {
                _ if covered => {}
                Screen::Replay(s) => s.ui(ctx, time),
                #[cfg(not(target_arch = "wasm32"))]
                _ => {}
            }
            if let (true, Some((state, sight))) = (open, self.panel_state()) {
                let layout = app.layout(state, screen_height(), None);
                let seen = (sight, app.painter.scheme);
                panel::show(ctx, state, seen, &mut open, &layout, &mut panel_at);
            }
        });
        let mut repaint = false;
        egui_macroquad::cfg(|ctx| repaint = ctx.has_requested_repaint());
        egui_macroquad::draw();
        if open != app.settings.panel_open && app.options.is_none() {
            // Closed with the panel's own button.
            app.toggle_panel();
        }
        if panel_at != app.settings.panel_at {
            app.settings.panel_at = panel_at;
            app.save_settings();
        }
        repaint
    }
}

/// A message across the foot of the window, over whatever screen is open: over the
/// game's message log rather than its map, where it would hide the camel.
fn draw_notice(app: &App, notice: &str) {
    let size = (screen_height() / 44.0).clamp(13.0, 22.0).round();
    let line = draw_map::line_height(size);
    let lines = hud::wrap(notice, screen_width() - 4.0 * size, size);
    let h = (lines.len() as f32 + 1.0) * line;
    let top = screen_height() - h;
    draw_rectangle(0.0, top, screen_width(), h, draw_map::BACKGROUND);
    hud::frame(Rect::new(0.0, top, screen_width(), h));
    for (i, part) in lines.iter().enumerate() {
        let y = top + size * 0.5 + i as f32 * line;
        app.text.draw(part, 2.0 * size, y, size, hud::BAD);
    }
}

/// Whether a window of `w` by `h` pixels is too small to play in.
fn too_small(w: f32, h: f32) -> bool {
    w < MIN_WINDOW[0] as f32 || h < MIN_WINDOW[1] as f32
}
