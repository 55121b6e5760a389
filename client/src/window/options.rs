//! The options screen, over whatever screen opened it (the start screen's Options, `O`
//! in a game): full screen, glyph size, animation, colours, and the keys, each action
//! rebound by pressing its new key. Every change is made and remembered at once.

use macroquad::prelude::*;

use super::hud::{self, ASK, BAD, DIM, TEXT, TITLE};
use super::App;
use crate::input::intent::Key;
use crate::input::keymap::{is_global, key_name, Keymap, ACTIONS};
use crate::input::keys::{bind, Mode};
use crate::settings::Pace;

/// A line of the options screen.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Row {
    FullScreen,
    GlyphSize,
    Animation,
    Colours,
    /// Every key back to its default, and the keymap file written with them.
    ResetKeys,
    /// An action in `ACTIONS`.
    Action(usize),
}

fn rows() -> Vec<Row> {
    let settings = [
        Row::FullScreen,
        Row::GlyphSize,
        Row::Animation,
        Row::Colours,
        Row::ResetKeys,
    ];
    settings
        .into_iter()
        .chain((0..ACTIONS.len()).map(Row::Action))
        .collect()
}

/// What the options screen holds while it is open.
pub struct OptionsScreen {
    /// The highlighted row.
    choice: usize,
    /// The next key pressed becomes this action's.
    rebinding: Option<usize>,
    /// What the last change came to, good or refused.
    said: Option<(String, Color)>,
}

impl OptionsScreen {
    pub fn new() -> OptionsScreen {
        OptionsScreen {
            choice: 0,
            rebinding: None,
            said: None,
        }
    }

    /// A key press: a new key for the action being rebound, or a move, a change, or
    /// Escape to close. Returns whether the screen stays open.
    pub fn key(&mut self, app: &mut App, key: Key) -> bool {
        use macroquad::miniquad::KeyCode;
        if let Some(at) = self.rebinding {
            if is_modifier(key) {
                return true;
            }
            self.rebinding = None;
            self.said = Some(match key {
                Key::Code(KeyCode::Escape) => ("Never mind.".to_owned(), DIM),
                key => rebind(app, at, key),
            });
            return true;
        }
        // The keys that work on every screen work here too (the panel, toggled, shows once
        // this screen closes).
        let global = bind(&app.keymap, Mode::Play, key).filter(|&i| is_global(i));
        if global.is_some_and(|input| app.global(input)) {
            return true;
        }
        let rows = rows();
        let row = rows[self.choice];
        match key {
            Key::Code(KeyCode::Escape) => return false,
            Key::Code(KeyCode::Up | KeyCode::Kp8) => self.choice = self.choice.saturating_sub(1),
            Key::Code(KeyCode::Down | KeyCode::Kp2) => {
                self.choice = (self.choice + 1).min(rows.len() - 1);
            }
            Key::Code(KeyCode::PageUp) => self.choice = self.choice.saturating_sub(PAGE),
            Key::Code(KeyCode::PageDown) => self.choice = (self.choice + PAGE).min(rows.len() - 1),
            Key::Code(KeyCode::Left | KeyCode::Kp4) => self.change(app, row, -1),
            Key::Code(KeyCode::Right | KeyCode::Kp6) => self.change(app, row, 1),
            Key::Code(KeyCode::Enter | KeyCode::KpEnter) | Key::Char(' ') => {
                self.change(app, row, 1);
            }
            _ => {}
        }
        true
    }

    /// Changes what `row` holds one step (`by`, 1 or -1), or starts rebinding its action.
    fn change(&mut self, app: &mut App, row: Row, by: i32) {
        self.said = None;
        match row {
            Row::FullScreen => app.toggle_full_screen(),
            Row::GlyphSize => app.step_glyphs(by),
            Row::Animation => {
                let at = Pace::ALL
                    .iter()
                    .position(|&p| p == app.settings.animation)
                    .unwrap_or(1) as i32;
                let next = (at + by).rem_euclid(Pace::ALL.len() as i32) as usize;
                app.settings.animation = Pace::ALL[next];
                app.save_settings();
            }
            Row::Colours => {
                app.settings.high_contrast = !app.settings.high_contrast;
                app.save_settings();
            }
            Row::ResetKeys => {
                app.keymap = Keymap::default();
                self.said = Some(app.save_keymap("Every key is back to its default."));
            }
            Row::Action(at) => self.rebinding = Some(at),
        }
    }

    pub fn draw(&self, app: &App) {
        let area = Rect::new(0.0, 0.0, screen_width(), screen_height());
        let size = (screen_height() / 44.0).clamp(13.0, 22.0).round();
        let line = super::draw_map::line_height(size);
        draw_rectangle(area.x, area.y, area.w, area.h, super::draw_map::BACKGROUND);
        hud::frame(area);
        let (x, mut y) = (area.x + 2.0 * size, area.y + size);
        app.text.bold("Options", x, y, size, TITLE);
        y += 1.5 * line;
        let rows = rows();
        // As many rows as fit above the footer, scrolled to keep the highlight in view.
        let room = (((area.h - 8.0 * line) / line) as usize).max(1);
        let first = self
            .choice
            .saturating_sub(room - 1)
            .min(rows.len().saturating_sub(room));
        let described: Vec<(String, String)> = rows.iter().map(|&row| describe(app, row)).collect();
        let label_w = described
            .iter()
            .map(|(label, _)| hud::width(label, size))
            .fold(0.0, f32::max)
            + 2.0 * size;
        for (index, (label, value)) in described.into_iter().enumerate().skip(first).take(room) {
            let chosen = index == self.choice;
            let color = if chosen { ASK } else { TEXT };
            if chosen {
                app.text.bold(">", x - 1.5 * size, y, size, ASK);
            }
            app.text.draw(&label, x, y, size, color);
            let value = match (chosen, self.rebinding) {
                (true, Some(_)) => "press its new key (Escape: never mind)".to_owned(),
                _ => value,
            };
            app.text.bold(&value, x + label_w, y, size, color);
            y += line;
        }
        let mut y = area.bottom() - 5.0 * line;
        if let Some((said, color)) = &self.said {
            for part in hud::wrap(said, area.w - 4.0 * size, size) {
                app.text.draw(&part, x, y, size, *color);
                y += line;
            }
        }
        let keys_file = match &app.config_dir {
            Some(dir) => format!(
                "Keys are kept in {}.",
                dir.join(crate::input::keymap::FILE_NAME).display()
            ),
            None => {
                "This system has no config folder: changes last until the window closes.".to_owned()
            }
        };
        let y = area.bottom() - 2.5 * line;
        app.text.draw(&keys_file, x, y - line, size, DIM);
        app.text.draw(
            "Up, Down choose; Left, Right or Enter change; Enter on an action, then its new key; Escape closes.",
            x,
            y,
            size,
            DIM,
        );
    }
}

/// Rows a page key moves by.
const PAGE: usize = 10;

/// A row's label and what it is set to.
fn describe(app: &App, row: Row) -> (String, String) {
    let on = |b: bool| if b { "on" } else { "off" }.to_owned();
    match row {
        Row::FullScreen => ("Full screen".into(), on(app.settings.full_screen)),
        Row::GlyphSize => (
            "Glyph size".into(),
            match app.settings.glyph_size {
                Some(px) => format!("{px} pixels"),
                None => "as large as fit the whole map".to_owned(),
            },
        ),
        Row::Animation => ("Animation".into(), app.settings.animation.name().to_owned()),
        Row::Colours => (
            "Colours".into(),
            match app.settings.high_contrast {
                true => "high contrast".to_owned(),
                false => "normal".to_owned(),
            },
        ),
        Row::ResetKeys => (
            "Keys".into(),
            "Enter: every key back to its default".to_owned(),
        ),
        Row::Action(at) => {
            let action = &ACTIONS[at];
            (action.what.to_owned(), app.keymap.names_of(action.input))
        }
    }
}

/// Makes `key` action `at`'s first key and writes the keymap file, or says why not.
fn rebind(app: &mut App, at: usize, key: Key) -> (String, Color) {
    match app.keymap.rebind(at, key) {
        Ok(()) => {
            let done = format!("{}: {}.", ACTIONS[at].what, key_name(key));
            app.save_keymap(&done)
        }
        Err(error) => (format!("Not changed: {error}."), BAD),
    }
}

/// Keys pressed on their way to another (Shift before a capital): not a key of their own.
fn is_modifier(key: Key) -> bool {
    use macroquad::miniquad::KeyCode::*;
    match key {
        Key::Code(code) | Key::Shift(code) => matches!(
            code,
            LeftShift
                | RightShift
                | LeftControl
                | RightControl
                | LeftAlt
                | RightAlt
                | LeftSuper
                | RightSuper
                | CapsLock
                | NumLock
                | Unknown
        ),
        // Enter and Escape type a control character before their code arrives.
        Key::Char(c) => c.is_control(),
        Key::Ctrl(_) => false,
    }
}
