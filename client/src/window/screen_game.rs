//! The game screen: draws what the game controller holds, and animates what each command
//! caused. Keys go to the controller (`crate::play`), which plays and saves them.

use std::collections::VecDeque;

use macroquad::prelude::*;
use sandglass_sim::geometry::{line, Pos};
use sandglass_sim::State;

use super::animate::{Frame, Playback, Recorder};
use super::draw_map::{self, Layout};
use super::hud::{self, ASK, BAD, DIM, TEXT, TITLE};
use super::options::OptionsScreen;
use super::{App, Go};
use crate::input::intent::{Input, Key};
use crate::input::keymap::key_name;
use crate::input::keys::{help_lines, Mode};
use crate::look::{creature_lines, describe, desert_lines, energy_lines, rules_lines};
use crate::play::{inventory_lines, GameController, HelpPage, Overlay, Reaction, HISTORY_PAGE};
use crate::streamer::Streamer;
use crate::warnings::Warnings;

/// Seconds between two steps of an errand (travel, run, explore, rest): quick, but each
/// step is seen.
const ERRAND_STEP: f64 = 0.045;

pub struct GameScreen {
    game: GameController,
    playback: Option<Playback>,
    /// When the errand under way plays its next step.
    next_step: f64,
    /// The map cell under the mouse, if it is over the map.
    hovered: Option<Pos>,
    /// Whether Escape put away the caption of the cell under the mouse: it shows again
    /// once the mouse is over another cell.
    caption_hidden: bool,
    /// A daily run's sending to its server, on its own thread; dropped with the screen,
    /// it sends what is left and stops.
    streamer: Option<Streamer>,
    /// Keys pressed while a dealt run's command waits on its draws, taken in order once
    /// they come: typed ahead over a slow link, none is lost. Dropped once the server
    /// cannot be reached, when the run takes no command.
    held: VecDeque<Key>,
}

impl GameScreen {
    pub fn new(game: GameController) -> GameScreen {
        GameScreen {
            game,
            playback: None,
            next_step: 0.0,
            hovered: None,
            caption_hidden: false,
            streamer: None,
            held: VecDeque::new(),
        }
    }

    /// The screen on a game streamed as it is played (a daily run): each step is sent
    /// once the store has made it durable.
    pub fn streamed(mut self, streamer: Streamer) -> GameScreen {
        streamer.wake();
        self.streamer = Some(streamer);
        self
    }

    /// The map's layout: the view follows the look cursor while it is out, otherwise the
    /// camel.
    fn layout(&self, app: &App) -> Layout {
        let focus = match self.game.overlay() {
            Overlay::Look(at) => Some(*at),
            _ => None,
        };
        app.layout(self.state(), screen_height(), focus)
    }

    /// The mouse (a click travels, hovering describes) and the errand under way.
    pub fn update(&mut self, app: &mut App, time: f64) -> anyhow::Result<Go> {
        let layout = self.layout(app);
        let (x, y) = mouse_position();
        self.hover(layout.cell_under(vec2(x, y)));
        if is_mouse_button_pressed(MouseButton::Left) {
            if let Some(cell) = self.hovered {
                self.game.click(cell);
            }
        }
        if self.game.waiting() {
            if self.game.out_of_reach() {
                self.held.clear();
            }
            let mut recorder = Recorder::new(self.state());
            let reaction = self.game.poll(&app.store, &mut recorder)?;
            let go = self.react(app, reaction, recorder, time)?;
            return match go {
                Go::Stay => self.take_held(app, time),
                go => Ok(go),
            };
        }
        if self.game.is_running() && time >= self.next_step {
            self.next_step = time + ERRAND_STEP;
            if let Some(playback) = &mut self.playback {
                playback.finish();
            }
            let mut recorder = Recorder::new(self.state());
            let reaction = self.game.step(&app.store, &mut recorder)?;
            return self.react(app, reaction, recorder, time);
        }
        Ok(Go::Stay)
    }

    fn react(
        &mut self,
        app: &mut App,
        reaction: Reaction,
        recorder: Recorder,
        time: f64,
    ) -> anyhow::Result<Go> {
        if let Some(streamer) = &self.streamer {
            streamer.wake();
        }
        Ok(match reaction {
            Reaction::Stay | Reaction::Sent => Go::Stay,
            Reaction::Played => {
                let pace = app.settings.animation.factor();
                self.playback = Some(recorder.into_playback(time, pace));
                Go::Stay
            }
            Reaction::Options => {
                app.options = Some(OptionsScreen::new());
                Go::Stay
            }
            Reaction::Menu => Go::Menu,
            Reaction::Over(id) => Go::Over(id),
        })
    }

    pub fn state(&self) -> &State {
        self.game.state()
    }

    /// Whether the screen changes by itself: an errand under way, a command's draws
    /// awaited, or a command's playback.
    pub fn busy(&self) -> bool {
        self.game.is_running()
            || self.game.waiting()
            || self.playback.as_ref().is_some_and(|p| !p.is_done())
    }

    pub fn key(&mut self, app: &mut App, key: Key, time: f64) -> anyhow::Result<Go> {
        if self.game.waiting() && !self.game.out_of_reach() {
            self.held.push_back(key);
            return Ok(Go::Stay);
        }
        // A key means the player has seen enough of the last command's playback.
        if let Some(playback) = &mut self.playback {
            playback.finish();
        }
        // Escape puts away a hover caption, then the energy panel, before it leaves the
        // game, as it closes everything else shown over the map first: played by eye,
        // an Escape meant for a caption left the game.
        let idle = self.game.mode() == Mode::Play && matches!(self.game.overlay(), Overlay::None);
        let escape = key == Key::Code(KeyCode::Escape);
        if escape && idle && self.put_away_caption() {
            return Ok(Go::Stay);
        }
        if escape && app.settings.panel_open && idle {
            app.toggle_panel();
            return Ok(Go::Stay);
        }
        let mut recorder = Recorder::new(self.state());
        let reaction = self.game.key(&app.store, &app.keymap, key, &mut recorder)?;
        self.next_step = time + ERRAND_STEP;
        self.react(app, reaction, recorder, time)
    }

    /// The mouse is over `cell` (`None`: off the map); a caption put away shows again on
    /// another cell.
    fn hover(&mut self, cell: Option<Pos>) {
        if cell != self.hovered {
            self.caption_hidden = false;
        }
        self.hovered = cell;
    }

    /// The cell whose caption is drawn over the map: the one under the mouse, where no
    /// question is open and Escape has not put it away.
    fn caption(&self) -> Option<Pos> {
        let shown = !self.caption_hidden && self.game.prompt().is_none();
        self.hovered.filter(|_| shown)
    }

    /// Puts away the caption shown, if one is: whether there was one.
    fn put_away_caption(&mut self) -> bool {
        let shown = self.caption().is_some();
        self.caption_hidden |= shown;
        shown
    }

    /// The keys held while a command waited, once it no longer does: up to the next
    /// that waits again.
    fn take_held(&mut self, app: &mut App, time: f64) -> anyhow::Result<Go> {
        while !self.game.waiting() {
            let Some(key) = self.held.pop_front() else {
                break;
            };
            let go = self.key(app, key, time)?;
            if !matches!(go, Go::Stay) {
                return Ok(go);
            }
        }
        Ok(Go::Stay)
    }

    /// Reports the final hash once, whether the player left for the menu, the game
    /// ended, or the window was closed.
    pub fn leave(&mut self) {
        self.game.leave();
    }

    pub fn draw(&mut self, app: &mut App, time: f64) {
        let frame = Frame::at(&mut self.playback, self.game.state(), time);
        let state = self.game.state();
        let layout = self.layout(app);
        app.painter
            .draw(state, &frame, &layout, draw_map::Sight::Camel);
        draw_stirred_ground(&layout, state, self.game.warnings());
        let meta = self.game.meta();
        let mut heading = vec![
            "Sandglass".to_owned(),
            meta.name.clone(),
            format!(
                "{}, rules {}",
                state.ruleset().name(),
                state.world().rules().version().number()
            ),
        ];
        if let Some(streamer) = &self.streamer {
            heading.push(streamer.sending().line(meta.events));
        }
        heading.extend(self.game.dealer_line());
        // The hints name the keys as bound.
        let key = |input| {
            app.keymap
                .keys_of(input)
                .first()
                .map_or_else(|| "-".to_owned(), |&k| key_name(k))
        };
        let hint = |a: Input, what_a: &str, b: Input, what_b: &str| {
            format!("{} {what_a}  {} {what_b}", key(a), key(b))
        };
        let footer = [
            hint(Input::Help, "keys", Input::TogglePanel, "energy"),
            hint(Input::Explore, "explore", Input::Look, "look"),
            hint(Input::SaveAs, "save as", Input::Quit, "quit"),
            format!("{} options", key(Input::Options)),
        ];
        let footer: Vec<&str> = footer.iter().map(String::as_str).collect();
        app.side_bar(&layout, state, &heading, &footer);
        hud::log(&app.text, &layout, &self.log_lines());
        self.draw_overlay(app, &layout);
    }

    /// Whether a box the player must read or answer is over the map: the help, the
    /// history, Save as, or a menu of items. The energy panel gives way to it.
    pub fn asks(&self) -> bool {
        match self.game.overlay() {
            Overlay::Help(_) | Overlay::SaveAs(_) | Overlay::History(_) | Overlay::Inventory => {
                true
            }
            Overlay::Look(_) => false,
            Overlay::None => self
                .game
                .prompt()
                .is_some_and(|prompt| !prompt.choices().is_empty()),
        }
    }

    fn draw_overlay(&self, app: &App, layout: &Layout) {
        let state = self.game.state();
        let (text, size, area) = (&app.text, layout.text, layout.map);
        // A caption keeps clear of the camel's cell.
        let camel = state.world().player().map(|c| corner(layout, c.pos()));
        match self.game.overlay() {
            Overlay::Help(page) => self.draw_help(app, layout, *page),
            Overlay::SaveAs(name) => {
                let lines = [
                    (format!("Name: {name}_"), ASK),
                    (String::new(), TEXT),
                    ("Enter saves a copy of this game under that".to_owned(), DIM),
                    ("name (Load opens it); you play on here.".to_owned(), DIM),
                    ("Escape: never mind.".to_owned(), DIM),
                ];
                hud::dialog(text, area, size, "Save as", &lines);
            }
            Overlay::Look(at) => {
                mark(layout, *at);
                let mut lines = describe(state, *at);
                lines.push("Directions move, Tab the next creature; Escape or ; is done.".into());
                hud::caption(text, layout, corner(layout, *at), &lines, camel);
            }
            Overlay::History(up) => self.draw_history(app, layout, *up),
            Overlay::Inventory => {
                let mut lines: Vec<(String, Color)> = inventory_lines(state)
                    .into_iter()
                    .map(|line| (line, TEXT))
                    .collect();
                lines.push((String::new(), TEXT));
                lines.push(("Any key closes this.".to_owned(), DIM));
                hud::dialog(text, area, size, "Inventory", &lines);
            }
            Overlay::None => {
                if let Some(prompt) = self.game.prompt() {
                    if let Some((from, cursor)) = prompt.cell() {
                        draw_flight(layout, state, from, cursor);
                        mark(layout, cursor);
                    }
                    if let Some(target) = prompt.aimed() {
                        mark(layout, target.at);
                    }
                    if !prompt.choices().is_empty() {
                        let lines: Vec<(String, Color)> = prompt
                            .choices()
                            .iter()
                            .map(|(slot, name)| (format!("{} - {name}", slot.letter()), TEXT))
                            .collect();
                        hud::dialog(text, area, size, &prompt.line(), &lines);
                    }
                } else if let Some(at) = self.caption() {
                    mark(layout, at);
                    let lines = describe(state, at);
                    hud::caption(text, layout, corner(layout, at), &lines, camel);
                }
            }
        }
    }

    /// A page of the help over the whole window, the legend of every glyph beside it:
    /// the keys and how time works, or the desert and its creatures.
    fn draw_help(&self, app: &App, layout: &Layout, page: HelpPage) {
        let window = Rect::new(0.0, 0.0, screen_width(), screen_height());
        let state = self.state();
        let desert = desert_lines(state);
        let keys = help_lines(&app.keymap);
        let (keys, title, lines, footer) = match page {
            HelpPage::Keys => (
                &keys[..],
                "Time and energy",
                [energy_lines(state), rules_lines(state)].concat(),
                match desert.is_empty() {
                    true => "Any key closes this.",
                    false => "Space: more; any other key closes.",
                },
            ),
            HelpPage::Desert => (
                &[][..],
                "The desert",
                desert,
                match creature_lines(state).is_empty() {
                    true => "Any key closes this.",
                    false => "Space: its creatures; any other key closes.",
                },
            ),
            HelpPage::Creatures => (
                &[][..],
                "Its creatures",
                creature_lines(state),
                "Any key closes this.",
            ),
        };
        let help = hud::Help {
            keys,
            legend: &draw_map::legend(app.painter.scheme),
            title,
            lines: &lines,
            footer,
        };
        hud::help(&app.text, window, layout.text, &help);
    }

    /// The whole message history, wrapped, its end at the bottom unless scrolled up.
    fn draw_history(&self, app: &App, layout: &Layout, up: usize) {
        let size = layout.text;
        let area = layout.map;
        let room = area.w - 4.0 * size;
        let lines: Vec<String> = self
            .game
            .messages()
            .history()
            .iter()
            .flat_map(|m| hud::wrap(m, room, size))
            .collect();
        let rows = ((area.h / draw_map::line_height(size)) as usize)
            .saturating_sub(5)
            .max(1);
        let end = lines.len().saturating_sub(up);
        let first = end.saturating_sub(rows);
        let mut shown: Vec<(String, Color)> = lines[first..end]
            .iter()
            .map(|l| (l.clone(), TEXT))
            .collect();
        shown.push((String::new(), TEXT));
        shown.push((
            format!("Up, Down, Page Up, Page Down ({HISTORY_PAGE} lines) scroll; Escape closes."),
            DIM,
        ));
        let title = format!("Messages ({} of {})", end, lines.len());
        hud::panel(&app.text, area, size, &title, TITLE, &shown);
    }

    /// The log's lines: older ones dim, this command's bright, then what is asked.
    fn log_lines(&self) -> Vec<(String, Color)> {
        let messages = self.game.messages();
        let shown = messages.shown();
        let fresh = shown.len() - messages.page().len();
        let first = shown.len().saturating_sub(draw_map::LOG_LINES);
        let mut lines: Vec<(String, Color)> = shown[first..]
            .iter()
            .enumerate()
            .map(|(i, s)| (s.clone(), if first + i >= fresh { TEXT } else { DIM }))
            .collect();
        if messages.has_more() {
            lines.push(("--more--".to_owned(), ASK));
        } else if self.game.is_over() {
            lines.push(("--more-- (the game is over)".to_owned(), ASK));
        } else if let Some(prompt) = self.game.prompt() {
            lines.push((prompt.line(), ASK));
        }
        lines
    }
}

/// A frame round the map cell at `at`: the look cursor, the cell under the mouse, a
/// target; none for a cell out of view.
fn mark(layout: &Layout, at: Pos) {
    if !layout.shows(super::animate::cell_of(at)) {
        return;
    }
    let corner = corner(layout, at);
    let cell = layout.cell;
    draw_rectangle_lines(corner.x, corner.y, cell.x, cell.y, 2.0, hud::ASK);
}

/// The ground near where the sand stirred, which errands keep off (a sandworm lies
/// beneath and wakes to a camel beside it): tinted over the cells the camel remembers,
/// so that the player sees what the errands steer round.
fn draw_stirred_ground(layout: &Layout, state: &State, warnings: &Warnings) {
    let world = state.world();
    let map = world.map();
    let tint = Color { a: 0.22, ..BAD };
    for y in 0..map.height() {
        for x in 0..map.width() {
            let at = Pos::new(x as i16, y as i16);
            if !warnings.keeps_off(at)
                || !world.remembers(at)
                || !layout.shows(super::animate::cell_of(at))
            {
                continue;
            }
            let corner = corner(layout, at);
            draw_rectangle(corner.x, corner.y, layout.cell.x, layout.cell.y, tint);
        }
    }
}

/// The path a throw from `from` at `to` flies, as `geometry::line` gives it (the fold's
/// own), a dot a cell, to the first creature the camel sees or what blocks the way. What
/// blocks it is crossed out: the throw falls short of it.
fn draw_flight(layout: &Layout, state: &State, from: Pos, to: Pos) {
    let (world, size) = (state.world(), layout.cell);
    for at in line(from, to) {
        if !layout.shows(super::animate::cell_of(at)) {
            return;
        }
        if !world.map().contains(at) || world.map().terrain(at).blocks() {
            let corner = corner(layout, at);
            let far = corner + size;
            draw_line(corner.x, corner.y, far.x, far.y, 2.0, BAD);
            draw_line(corner.x, far.y, far.x, corner.y, 2.0, BAD);
            return;
        }
        let middle = corner(layout, at) + size / 2.0;
        let dot = (size.x.min(size.y) / 6.0).max(2.0);
        draw_rectangle(middle.x - dot / 2.0, middle.y - dot / 2.0, dot, dot, ASK);
        if world
            .map()
            .occupant(at)
            .is_some_and(|id| world.sees_actor(id))
        {
            return;
        }
    }
}

/// Where a map cell is drawn, in the window.
fn corner(layout: &Layout, at: Pos) -> Vec2 {
    layout.cell_at(super::animate::cell_of(at))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::input::keymap::Keymap;
    use crate::play::testing::new_game;

    #[test]
    fn a_menu_or_the_help_asks_and_the_look_cursor_does_not() {
        let (_dir, store, game) = new_game();
        let mut screen = GameScreen::new(game);
        let mut press = |key| {
            screen
                .game
                .key(&store, &Keymap::default(), key, &mut ())
                .unwrap();
            screen.asks()
        };
        assert!(press(Key::Char('e')), "the eat menu");
        assert!(!press(Key::Code(KeyCode::Escape)));
        assert!(press(Key::Char('?')), "the help");
        assert!(!press(Key::Code(KeyCode::Escape)));
        assert!(
            !press(Key::Char(';')),
            "the look cursor leaves the map in view"
        );
    }

    #[test]
    fn a_hover_caption_put_away_shows_again_on_another_cell() {
        let (_dir, _store, game) = new_game();
        let mut screen = GameScreen::new(game);
        let (a, b) = (Pos::new(3, 3), Pos::new(4, 3));
        screen.hover(Some(a));
        assert_eq!(screen.caption(), Some(a));
        assert!(screen.put_away_caption(), "Escape puts it away");
        assert!(!screen.put_away_caption(), "and the next leaves the game");
        screen.hover(Some(a));
        assert_eq!(screen.caption(), None, "still over the same cell");
        screen.hover(Some(b));
        assert_eq!(screen.caption(), Some(b));
        screen.hover(None);
        assert_eq!(screen.caption(), None);
    }
}
