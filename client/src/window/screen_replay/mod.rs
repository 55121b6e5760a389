//! The replay scrubber: a stored game or a `.sgr` file on a timeline. The map, side bar,
//! messages and energy panel show the world at the cursor; the strip along the bottom
//! moves the cursor (slider, buttons, markers) and the keys do the same.
//!
//! All seeking goes through the core's `Timeline`, which keeps a copy of the state every
//! few thousand events: a move of the slider folds at most that far, never the whole tape.
//! Playing forward folds from the cursor with a `Recorder` watching, so a replay animates
//! exactly as live play did.
//!
//! A game watched while it is played is a timeline that grows, the cursor following its
//! end while it is there (`live`); taking over starts a new saved game from the cursor
//! (`takeover`). This module keeps the timeline itself: stepping, playing and drawing.

use std::collections::BTreeSet;
#[cfg(not(target_arch = "wasm32"))]
use std::path::PathBuf;

use anyhow::Context as _;
use egui_macroquad::egui::{self, Color32, Context, RichText, Sense, Stroke};
use macroquad::miniquad::KeyCode;
use macroquad::prelude::*;
use sandglass_sim::ids::Tick;
use sandglass_sim::timeline::{Marker, MarkerKind, Timeline};
use sandglass_sim::{Command, Event, Outcome, Recording, State};
#[cfg(not(target_arch = "wasm32"))]
use sandglass_store::{sgr, GameId, Store};

use super::animate::{Frame, Playback, Recorder};
use super::draw_map::{self, Sight};
use super::hud::{self, DIM, TEXT};
use super::{App, Go};
use crate::input::intent::Key;
use live::Live;
/// Where a live game's events come from; the web viewer's page stream is one.
#[cfg(target_arch = "wasm32")]
pub use live::Source;
use takeover::TakeOver;

mod live;
mod takeover;

/// Seconds between two commands at 1x.
const STEP: f64 = 0.4;
const FASTEST: u32 = 64;
/// Above this speed steps come too fast to animate; the map just shows each one.
const ANIMATED_UP_TO: u32 = 4;
/// The height of the timeline strip, in pixels.
const STRIP: f32 = 116.0;

/// Where a replay's tape comes from.
#[cfg(not(target_arch = "wasm32"))]
#[derive(Clone, Debug)]
pub enum Tape {
    Game(GameId),
    File(PathBuf),
}

/// A replay checked and laid out on its timeline, ready to watch.
pub struct Replay {
    timeline: Timeline,
    title: String,
    /// The stored game or file; none for a live game.
    #[cfg(not(target_arch = "wasm32"))]
    tape: Option<Tape>,
    /// A game watched while it is played.
    live: Option<Live>,
}

impl Replay {
    /// Reads the tape and verifies it (every draw, checkpoint and the final hash) in the
    /// one fold that builds the timeline. A replay that does not verify is not shown.
    #[cfg(not(target_arch = "wasm32"))]
    pub fn open(store: &Store, tape: Tape) -> anyhow::Result<Replay> {
        let (file, title) = match &tape {
            Tape::Game(id) => {
                let name = store.meta(*id)?.name;
                // Damaged snapshots are only a cache; the fold below checks the rest.
                let (file, _damaged) = store.recording(*id, &mut |_, _| ())?;
                (file, name)
            }
            Tape::File(path) => {
                let file = sgr::read(path)
                    .with_context(|| format!("cannot open the replay {}", path.display()))?;
                let stem = path.file_stem().map(|s| s.to_string_lossy().into_owned());
                (file, stem.unwrap_or_else(|| "replay".to_owned()))
            }
        };
        Ok(Replay {
            timeline: lay_out(file, &title)?,
            title,
            tape: Some(tape),
            live: None,
        })
    }

    /// A replay file the page read, under its name.
    #[cfg(target_arch = "wasm32")]
    pub fn of_file(file: Recording, name: String) -> anyhow::Result<Replay> {
        Ok(Replay {
            timeline: lay_out(file, &name)?,
            title: name,
            live: None,
        })
    }
}

/// A recording laid out on its timeline, verified in the same fold.
fn lay_out(file: Recording, title: &str) -> anyhow::Result<Timeline> {
    Timeline::new(file).with_context(|| format!("the replay `{title}` does not verify"))
}

pub struct ReplayScreen {
    replay: Replay,
    playing: bool,
    speed: u32,
    /// When the next step is due while playing.
    next_step: f64,
    playback: Option<Playback>,
    take_over: TakeOver,
    /// Why the last request could not be done.
    note: Option<String>,
    /// What the map shows: what the camel saw at the cursor, or the whole level.
    sight: Sight,
    /// The turn typed so far after `T` (go to turn), while one is being typed.
    goto: Option<String>,
    /// Playing towards the start.
    backwards: bool,
    /// The kinds of marker shown under the slider.
    shown: BTreeSet<Group>,
}

impl ReplayScreen {
    /// Opens on the first position where the player is to act, playing; reports
    /// `replay N events`.
    pub fn new(replay: Replay, time: f64) -> ReplayScreen {
        let live = replay.live.is_some();
        if !live {
            crate::report::replay(replay.timeline.end());
        }
        let mut screen = ReplayScreen {
            replay,
            // A live game opens at its end, following it.
            playing: !live,
            speed: 1,
            next_step: time + STEP,
            playback: None,
            take_over: TakeOver::No,
            note: None,
            sight: Sight::Camel,
            goto: None,
            backwards: false,
            shown: Group::ALL.into_iter().collect(),
        };
        let first = match live {
            true => screen.timeline().end(),
            false => screen.timeline().first_stop(),
        };
        screen.jump(first);
        screen
    }

    /// What the map shows: what the camel saw, or everything.
    pub fn sight(&self) -> Sight {
        self.sight
    }

    pub fn state(&self) -> &State {
        self.timeline().cursor()
    }

    fn timeline(&self) -> &Timeline {
        &self.replay.timeline
    }

    fn position(&self) -> u64 {
        self.timeline().position()
    }

    /// The turn at the cursor, for the web page's status line.
    #[cfg(target_arch = "wasm32")]
    pub(super) fn turn(&self) -> u64 {
        self.timeline().tick_at(self.position()).0
    }

    /// Moves the cursor to where the player first acts on `turn` (or the end, if the game
    /// never got there).
    pub(super) fn go_to_turn(&mut self, turn: u64) {
        let at = turn_position(self.timeline(), turn);
        self.jump(at);
    }

    /// Moves the cursor anywhere, with nothing animated.
    fn jump(&mut self, at: u64) {
        self.playback = None;
        self.note = None;
        self.replay.timeline.seek(at);
    }

    /// Moves the cursor forward to `at`, animating what happened on the way.
    fn play_to(&mut self, at: u64, time: f64) {
        let mut recorder = Recorder::new(self.state());
        self.replay.timeline.play_to(at, &mut recorder);
        self.playback = Some(recorder.into_playback(time, 1.0));
        self.note = None;
    }

    /// Plays on from the cursor, towards the end or (`backwards`) the start.
    fn play(&mut self, backwards: bool, time: f64) {
        self.follow(false);
        self.playing = true;
        self.backwards = backwards;
        self.next_step = time;
    }

    /// Stops playing, and following a live game's end.
    fn pause(&mut self) {
        self.playing = false;
        self.follow(false);
        if let Some(playback) = &mut self.playback {
            playback.finish();
        }
    }

    /// Whether the screen changes by itself: playing, copying a take-over, animating, or
    /// a live stream saying things (between its stretches the window may sleep: its
    /// waker's heartbeat still looks for more twice a second).
    #[cfg(not(target_arch = "wasm32"))]
    pub fn busy(&self, time: f64) -> bool {
        self.playing
            || !matches!(self.take_over, TakeOver::No)
            || self.playback.as_ref().is_some_and(|p| !p.is_done())
            || self.live_news(time)
    }

    /// Plays on by itself while not paused, and does what the strip asked for.
    pub fn update(&mut self, app: &mut App, time: f64) -> anyhow::Result<Go> {
        self.take_live(time);
        if let Some(go) = self.go_on_taking_over(app)? {
            return Ok(go);
        }
        if !self.playing || time < self.next_step {
            return Ok(Go::Stay);
        }
        let interval = STEP / f64::from(self.speed);
        // At high speed several steps fall in one frame; after a stall (a window drag),
        // play on from now rather than racing to catch up.
        let mut target = self.position();
        let first = self.timeline().first_stop();
        while self.next_step <= time {
            target = match self.backwards {
                false => self.timeline().next_command(target),
                true => self.timeline().previous_command(target).max(first),
            };
            self.next_step += interval;
        }
        self.next_step = self.next_step.max(time);
        // Backwards there is nothing to animate: each step back is a seek.
        if self.speed <= ANIMATED_UP_TO && !self.backwards {
            self.play_to(target, time);
        } else {
            self.jump(target);
        }
        let stop = match self.backwards {
            false => self.timeline().end(),
            true => first,
        };
        if self.position() == stop {
            self.playing = false;
            // Played up to a live game's end: live again.
            self.follow(!self.backwards);
        }
        Ok(Go::Stay)
    }

    pub fn key(&mut self, key: Key, time: f64) -> Go {
        if self.copying() {
            return Go::Stay;
        }
        if self.goto.is_some() {
            self.key_typing_turn(key);
            return Go::Stay;
        }
        match key {
            Key::Char(' ') => self.key_play(time),
            Key::Char('r') => self.key_play_backwards(time),
            Key::Char('l' | '.') | Key::Code(KeyCode::Right) => self.key_step(key, time),
            Key::Char('+' | '=') => self.speed = (self.speed * 2).min(FASTEST),
            Key::Char('-') => self.speed = (self.speed / 2).max(1),
            Key::Char('t') => self.ask_to_take_over(),
            Key::Char('T') => {
                self.pause();
                self.goto = Some(String::new());
            }
            Key::Char('m') => self.key_whole_map(),
            Key::Char('q') | Key::Code(KeyCode::Escape) => return self.back(),
            _ => self.key_seek(key),
        }
        Go::Stay
    }

    /// A key while a turn is typed after `T`: a digit, Backspace, Enter to go there,
    /// Escape not to.
    fn key_typing_turn(&mut self, key: Key) {
        let Some(typed) = &mut self.goto else {
            return;
        };
        match key {
            Key::Char(c @ '0'..='9') if typed.len() < 12 => typed.push(c),
            Key::Code(KeyCode::Backspace) => {
                typed.pop();
            }
            Key::Code(KeyCode::Enter | KeyCode::KpEnter) => {
                let turn = typed.parse().unwrap_or(0);
                self.goto = None;
                self.go_to_turn(turn);
            }
            Key::Code(KeyCode::Escape) => self.goto = None,
            _ => {}
        }
    }

    /// Space: pauses what plays (or follows a live game's end); otherwise plays on, from
    /// the start if the cursor is at the end, except at a live game's end, where play goes
    /// on as it comes.
    fn key_play(&mut self, time: f64) {
        let here = self.position();
        let end = self.timeline().end();
        if self.playing || self.following() {
            self.pause();
        } else if self.replay.live.is_some() && here == end {
            self.follow(true);
        } else {
            if here == end {
                self.jump(self.timeline().first_stop());
            }
            self.play(false, time);
        }
    }

    /// `r`: pauses playing backwards, or plays backwards, from the end if the cursor is
    /// at the start.
    fn key_play_backwards(&mut self, time: f64) {
        if self.playing && self.backwards {
            self.pause();
            return;
        }
        if self.position() == self.timeline().first_stop() {
            self.jump(self.timeline().end());
        }
        self.play(true, time);
    }

    /// Right (or `l`) plays the next command and `.` the next event, animated, and
    /// pauses there.
    fn key_step(&mut self, key: Key, time: f64) {
        let here = self.position();
        let to = match key {
            Key::Char('.') => here + 1,
            _ => self.timeline().next_command(here),
        };
        self.pause();
        self.play_to(to, time);
    }

    /// `m`: the whole level, or what the camel saw.
    fn key_whole_map(&mut self) {
        self.sight = match self.sight {
            Sight::Camel => Sight::Everything,
            Sight::Everything => Sight::Camel,
        }
    }

    /// The keys that move the cursor with nothing animated, paused there (`seek_to`);
    /// any other key does nothing.
    fn key_seek(&mut self, key: Key) {
        if let Some(to) = self.seek_to(key) {
            self.pause();
            self.jump(to);
            // The end of a live game is live.
            self.follow(to == self.timeline().end());
        }
    }

    /// Where a key moves the cursor: a command back, an event back, the start, the end,
    /// the next or the last marker shown.
    fn seek_to(&self, key: Key) -> Option<u64> {
        let here = self.position();
        let timeline = self.timeline();
        match key {
            Key::Char('h') | Key::Code(KeyCode::Left) => Some(timeline.previous_command(here)),
            Key::Char(',') => Some(here.saturating_sub(1)),
            // The first moment the map exists, where the player first acts.
            Key::Char('g') | Key::Code(KeyCode::Home) => Some(timeline.first_stop()),
            Key::Char('G') | Key::Code(KeyCode::End) => Some(timeline.end()),
            Key::Char('n') => self.markers_shown().into_iter().find(|&at| at > here),
            Key::Char('p') => self.markers_shown().into_iter().rev().find(|&at| at < here),
            _ => None,
        }
    }

    /// Where the markers the legend shows stand: n and p go through them.
    fn markers_shown(&self) -> Vec<u64> {
        self.timeline()
            .markers()
            .iter()
            .filter(|m| self.shown.contains(&Group::of(m.kind)))
            .map(|m| m.at)
            .collect()
    }

    /// Where Escape leads: a finished game's summary, or the menu.
    #[cfg(not(target_arch = "wasm32"))]
    fn back(&self) -> Go {
        match (&self.replay.tape, self.timeline().outcome()) {
            (Some(Tape::Game(id)), Some(_)) => Go::Over(*id),
            _ => Go::Menu,
        }
    }

    /// Where Escape leads in a browser: the page, waiting for another file.
    #[cfg(target_arch = "wasm32")]
    fn back(&self) -> Go {
        Go::Menu
    }

    pub fn draw(&mut self, app: &mut App, time: f64) {
        let frame = Frame::at(&mut self.playback, self.replay.timeline.cursor(), time);
        let state = self.timeline().cursor();
        // The timeline strip takes the bottom of the window.
        let height = (screen_height() - STRIP).max(STRIP);
        let layout = app.layout(state, height, None);
        app.painter.draw(state, &frame, &layout, self.sight);
        let header = self.timeline().header();
        let status = if self.playing && self.backwards {
            format!("playing backwards {}x", self.speed)
        } else if self.playing {
            format!("playing {}x", self.speed)
        } else {
            format!("paused ({}x)", self.speed)
        };
        let (kind, status) = match &self.replay.live {
            Some(live) => (
                format!("Live, {}", live.run.day),
                live.status(self.timeline(), &status),
            ),
            None => ("Replay".to_owned(), status),
        };
        let seed = match &self.replay.live {
            Some(live) if !live.run.seed_known => "not yet shown".to_owned(),
            _ => header.seed.to_string(),
        };
        let heading = [
            kind,
            self.replay.title.clone(),
            format!(
                "{}, rules {}, seed {seed}",
                header.ruleset.name(),
                header.rules_version,
            ),
            status,
            last_input(self.timeline().events(), self.position()),
        ];
        let home_end = match &self.replay.live {
            Some(_) => "Home  End live  T turn",
            None => "Home End  T go to turn",
        };
        let footer = [
            "Space play  r backwards",
            "+ - speed",
            "PgUp PgDn  glyph size",
            "Left Right  a command",
            ", .  one event",
            home_end,
            "n p  markers",
            "m whole map  t take over",
            "Esc back",
        ];
        app.side_bar(&layout, state, &heading, &footer);
        hud::log(&app.text, &layout, &self.log_lines());
    }

    /// The messages as they stood at the cursor: this tick's bright, older ones dim, and
    /// the note, if any, last.
    fn log_lines(&self) -> Vec<(String, Color)> {
        let state = self.state();
        let recent = state.world().messages().recent();
        let skip = recent.len().saturating_sub(draw_map::LOG_LINES);
        let mut lines: Vec<(String, Color)> = recent
            .skip(skip)
            .map(|m| {
                let color = if m.tick == state.tick() { TEXT } else { DIM };
                (format!("{:>6}  {}", m.tick.0, m.msg), color)
            })
            .collect();
        let last = self.timeline().last_tick().0;
        let asked = match (self.copying_note(), &self.goto, &self.note) {
            (Some(copying), _, _) => Some(copying),
            (None, Some(typed), _) => Some(format!(
                "Go to turn (1 to {last}): {typed}_   Enter goes there, Escape does not"
            )),
            (None, None, None) => self.replay.live.as_ref().and_then(Live::note),
            (None, None, note) => note.clone(),
        };
        if let Some(asked) = asked {
            if lines.len() == draw_map::LOG_LINES {
                lines.remove(0);
            }
            lines.push((asked, hud::ASK));
        }
        lines
    }

    /// The strip along the bottom: buttons, the slider over events, the markers under it.
    pub fn ui(&mut self, ctx: &Context, time: f64) {
        let copying = self.copying();
        egui::TopBottomPanel::bottom("timeline")
            .exact_height(STRIP)
            .show(ctx, |ui| {
                ui.add_enabled_ui(!copying, |ui| {
                    self.controls(ui, time);
                    self.slider(ui);
                    self.legend(ui);
                });
            });
    }

    fn controls(&mut self, ui: &mut egui::Ui, time: f64) {
        ui.horizontal(|ui| {
            let backwards = self.playing && self.backwards;
            let forwards = self.playing && !self.backwards;
            let keys: [(&str, &str, Key); 8] = [
                ("|<", "Start (Home)", Key::Code(KeyCode::Home)),
                ("<<", "One command back (Left)", Key::Code(KeyCode::Left)),
                ("<", "One event back (,)", Key::Char(',')),
                (
                    if backwards { "Pause" } else { "Back" },
                    "Play backwards or pause (r)",
                    Key::Char('r'),
                ),
                (
                    if forwards { "Pause" } else { "Play" },
                    "Play or pause (Space)",
                    Key::Char(' '),
                ),
                (">", "One event forward (.)", Key::Char('.')),
                (
                    ">>",
                    "One command forward (Right)",
                    Key::Code(KeyCode::Right),
                ),
                (">|", "End (End)", Key::Code(KeyCode::End)),
            ];
            for (label, hint, key) in keys {
                if ui.button(label).on_hover_text(hint).clicked() {
                    self.key(key, time);
                }
            }
            ui.separator();
            egui::ComboBox::from_id_salt("speed")
                .selected_text(format!("{}x", self.speed))
                .width(56.0)
                .show_ui(ui, |ui| {
                    for speed in (0..=6).map(|p| 1u32 << p) {
                        ui.selectable_value(&mut self.speed, speed, format!("{speed}x"));
                    }
                });
            ui.separator();
            self.take_over_button(ui);
            ui.separator();
            let timeline = self.timeline();
            let here = self.position();
            let commands = timeline.commands();
            let done = commands.partition_point(|&c| c < here);
            ui.label(format!(
                "event {here} of {}   command {done} of {}   tick {} of {}",
                timeline.end(),
                commands.len(),
                timeline.tick_at(here).0,
                timeline.last_tick().0
            ));
        });
    }

    /// The slider runs over turns, the game's own time: a turn a player spent resting is
    /// as wide as one full of creatures' draws. Dragging it goes to where the player first
    /// acts on the turn; the keys still step one event at a time.
    fn slider(&mut self, ui: &mut egui::Ui) {
        let last = self.timeline().last_tick().0.max(1);
        let here = self.timeline().tick_at(self.position()).0;
        let mut turn = here;
        ui.spacing_mut().slider_width = ui.available_width();
        let slider = ui.add(egui::Slider::new(&mut turn, 0..=last).show_value(false));
        // Keys are the scrubber's own; a focused slider would take the arrows too.
        slider.surrender_focus();
        if slider.changed() && turn != here {
            self.pause();
            self.go_to_turn(turn);
        }
        // The markers, under the slider's rail, each at its turn: the handle's centre on
        // turn t lies at the same x as a marker on turn t.
        let rail = slider
            .rect
            .shrink2(egui::vec2(slider.rect.height() / 2.5, 0.0));
        let (strip, response) =
            ui.allocate_exact_size(egui::vec2(slider.rect.width(), 16.0), Sense::click());
        let timeline = self.timeline();
        let x_of = |at: u64| rail.left() + rail.width() * turn_fraction(timeline, at);
        let painter = ui.painter_at(strip);
        let shown: Vec<Marker> = timeline
            .markers()
            .iter()
            .filter(|m| self.shown.contains(&Group::of(m.kind)))
            .copied()
            .collect();
        for marker in &shown {
            let x = x_of(marker.at);
            painter.line_segment(
                [egui::pos2(x, strip.top()), egui::pos2(x, strip.bottom())],
                Stroke::new(2.0, Group::of(marker.kind).color()),
            );
        }
        // The nearest marker to the pointer, within a few pixels.
        let near = response.hover_pos().and_then(|pointer| {
            shown
                .iter()
                .map(|m| ((x_of(m.at) - pointer.x).abs(), *m))
                .filter(|(distance, _)| *distance <= 5.0)
                .min_by(|a, b| a.0.total_cmp(&b.0))
                .map(|(_, m)| m)
        });
        if let Some(marker) = near {
            let text = format!(
                "{} (turn {}): click to go there",
                describe(marker),
                timeline.tick_at(marker.at).0
            );
            if response.on_hover_text(RichText::new(text)).clicked() {
                self.pause();
                self.jump(marker.at);
            }
        }
    }

    /// One checkbox per kind of marker, in its colour: the legend and the filter at once.
    fn legend(&mut self, ui: &mut egui::Ui) {
        ui.horizontal(|ui| {
            ui.label("Markers:");
            for group in Group::ALL {
                let mut on = self.shown.contains(&group);
                let label = RichText::new(group.name()).color(group.color());
                if ui.checkbox(&mut on, label).changed() {
                    match on {
                        true => self.shown.insert(group),
                        false => self.shown.remove(&group),
                    };
                }
            }
        });
    }
}

/// How far along the game position `at` is, by turns: 0 at the first, 1 at the last.
fn turn_fraction(timeline: &Timeline, at: u64) -> f32 {
    let last = timeline.last_tick().0.max(1);
    timeline.tick_at(at).0 as f32 / last as f32
}

/// The kinds of marker a player tells apart, each with its colour and its checkbox.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
enum Group {
    Descents,
    Deaths,
    KnockOuts,
    Hatchings,
    End,
}

impl Group {
    const ALL: [Group; 5] = [
        Group::Descents,
        Group::Deaths,
        Group::KnockOuts,
        Group::Hatchings,
        Group::End,
    ];

    fn of(kind: MarkerKind) -> Group {
        match kind {
            MarkerKind::Descend { .. } => Group::Descents,
            MarkerKind::Death { .. } => Group::Deaths,
            MarkerKind::KnockOut { .. } => Group::KnockOuts,
            MarkerKind::Hatch { .. } => Group::Hatchings,
            MarkerKind::End(_) => Group::End,
        }
    }

    fn name(self) -> &'static str {
        match self {
            Group::Descents => "descents",
            Group::Deaths => "deaths",
            Group::KnockOuts => "knock-outs",
            Group::Hatchings => "hatchings",
            Group::End => "the end",
        }
    }

    fn color(self) -> Color32 {
        match self {
            Group::Descents => Color32::from_rgb(100, 160, 255),
            Group::Deaths => Color32::from_rgb(200, 110, 90),
            Group::KnockOuts => Color32::from_rgb(240, 210, 80),
            Group::Hatchings => Color32::from_rgb(200, 120, 230),
            Group::End => Color32::WHITE,
        }
    }
}

fn describe(marker: Marker) -> String {
    match marker.kind {
        MarkerKind::Death { species, .. } => format!("the {} died", species.name()),
        MarkerKind::Hatch { .. } => "an egg hatched".to_owned(),
        MarkerKind::KnockOut { species, .. } => {
            format!("the {} was knocked out", species.name())
        }
        MarkerKind::Descend { depth } => format!("down to depth {depth}"),
        MarkerKind::End(Outcome::Won) => "the camel reached the oasis".to_owned(),
        MarkerKind::End(Outcome::Died) => "the game ended in death".to_owned(),
        MarkerKind::End(Outcome::Quit) => "the player quit".to_owned(),
    }
}

/// Where the player first acts on `turn`: the first command at or after the turn's
/// first event (the first of all for turn 0 or 1), or the end if the game never got there.
fn turn_position(timeline: &Timeline, turn: u64) -> u64 {
    match timeline.position_of_tick(Tick(turn)).checked_sub(1) {
        Some(before) => timeline.next_command(before),
        None => timeline.first_stop(),
    }
}

/// The last command the player gave before event `at`, in words: what the cursor's
/// moment answers.
fn last_input(events: &[Event], at: u64) -> String {
    let before = &events[..(at as usize).min(events.len())];
    match before.iter().rev().find_map(|event| match event {
        Event::Command(command) => Some(command),
        Event::Draw(_) => None,
    }) {
        Some(command) => format!("Input: {}", in_words(command)),
        None => "Input: none yet".to_owned(),
    }
}

/// A command as the player would say it: "move north", "throw b east".
fn in_words(command: &Command) -> String {
    match *command {
        Command::Move(d) | Command::Open(d) | Command::Close(d) => {
            format!("{} {}", command.name(), d.name())
        }
        Command::Drop(slot) | Command::Eat(slot) | Command::Wear(slot) | Command::Use(slot) => {
            format!("{} {}", command.name(), slot.letter())
        }
        Command::Grow(slot, boon) => format!("grow {} {boon:?}", slot.letter()).to_lowercase(),
        Command::TakeOff(garment) => format!("take off {garment:?}").to_lowercase(),
        Command::Throw(slot, d) => format!("throw {} {}", slot.letter(), d.name()),
        Command::ThrowAt(slot, east, south) => {
            format!("throw {} at {east} east, {south} south", slot.letter())
        }
        _ => command.name().to_owned(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use sandglass_sim::bot::Bot;
    use sandglass_sim::geometry::Direction;
    use sandglass_sim::{Recording, Rules, Ruleset, Slot};

    #[test]
    fn go_to_turn_lands_where_the_player_first_acts_on_it() {
        let tape = Bot::new(4).record(Rules::newest(Ruleset::NETHACK), 4, 200);
        let timeline = Timeline::new(Recording::record(tape.header, tape.events).unwrap()).unwrap();
        let first = timeline.first_stop();
        assert_eq!(turn_position(&timeline, 0), first);
        assert_eq!(turn_position(&timeline, 1), first);
        for turn in [2, 10, 57, timeline.last_tick().0] {
            let at = turn_position(&timeline, turn);
            assert!(timeline.commands().contains(&at) || at == timeline.end());
            assert!(timeline.tick_at(at) >= Tick(turn), "turn {turn}: at {at}");
            // The player's command before it came on an earlier turn.
            if at != first && at != timeline.end() {
                let before = timeline.previous_command(at);
                assert!(timeline.tick_at(before) < Tick(turn), "turn {turn}");
            }
        }
        assert_eq!(turn_position(&timeline, u64::MAX), timeline.end());
    }

    #[test]
    fn markers_sit_at_their_turn_and_every_kind_has_a_checkbox() {
        let tape = Bot::new(9).record(Rules::newest(Ruleset::NETHACK), 9, u64::MAX);
        let timeline = Timeline::new(Recording::record(tape.header, tape.events).unwrap()).unwrap();
        let last = timeline.last_tick().0 as f32;
        let mut groups = BTreeSet::new();
        for marker in timeline.markers() {
            let turn = timeline.tick_at(marker.at).0 as f32;
            assert_eq!(turn_fraction(&timeline, marker.at), turn / last);
            groups.insert(Group::of(marker.kind));
        }
        assert!(groups.contains(&Group::Descents) && groups.contains(&Group::End));
        assert_eq!(turn_fraction(&timeline, timeline.end()), 1.0);
        let names: BTreeSet<_> = Group::ALL.iter().map(|g| g.name()).collect();
        assert_eq!(names.len(), Group::ALL.len());
    }

    #[test]
    fn the_input_shown_is_the_last_command_before_the_cursor() {
        let events = [
            Event::Draw(1),
            Event::Command(Command::Move(Direction::N)),
            Event::Draw(2),
            Event::Command(Command::Throw(
                Slot::from_letter('b').unwrap(),
                Direction::E,
            )),
            Event::Draw(3),
        ];
        assert_eq!(last_input(&events, 0), "Input: none yet");
        assert_eq!(last_input(&events, 1), "Input: none yet");
        assert_eq!(last_input(&events, 2), "Input: move north");
        assert_eq!(last_input(&events, 3), "Input: move north");
        assert_eq!(last_input(&events, 5), "Input: throw b east");
        assert_eq!(last_input(&events, 99), "Input: throw b east");
        assert_eq!(in_words(&Command::Rest), "rest");
    }
}
