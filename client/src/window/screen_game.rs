//! The game screen: draws what the game controller holds, and animates what each command
//! caused. Keys go to the controller (`crate::play`), which plays and saves them.

use macroquad::prelude::*;
use sandglass_sim::State;

use super::animate::{Frame, Playback, Recorder};
use super::draw_map::{self, Layout};
use super::hud::{self, ASK, DIM, TEXT};
use super::{App, Go};
use crate::input::keys::{help_lines, Key};
use crate::play::{GameController, Overlay, Reaction};

pub struct GameScreen {
    game: GameController,
    playback: Option<Playback>,
}

impl GameScreen {
    pub fn new(game: GameController) -> GameScreen {
        GameScreen {
            game,
            playback: None,
        }
    }

    pub fn state(&self) -> &State {
        self.game.state()
    }

    pub fn key(&mut self, app: &mut App, key: Key, time: f64) -> anyhow::Result<Go> {
        // A key means the player has seen enough of the last command's playback.
        if let Some(playback) = &mut self.playback {
            playback.finish();
        }
        let mut recorder = Recorder::new(self.state());
        Ok(match self.game.key(&app.store, key, &mut recorder)? {
            Reaction::Stay => Go::Stay,
            Reaction::Played => {
                self.playback = Some(recorder.into_playback(time));
                Go::Stay
            }
            Reaction::Menu => Go::Menu,
            Reaction::Over(id) => Go::Over(id),
        })
    }

    /// Reports the final hash once, whether the player left for the menu, the game
    /// ended, or the window was closed.
    pub fn leave(&mut self) {
        self.game.leave();
    }

    pub fn draw(&mut self, app: &mut App, time: f64) {
        let frame = Frame::at(&mut self.playback, self.game.state(), time);
        let state = self.game.state();
        let map = state.world().map();
        let layout = Layout::new(screen_width(), screen_height(), map.width(), map.height());
        app.painter
            .draw(state, &frame, &layout, draw_map::Sight::Camel);
        let meta = self.game.meta();
        let heading = [
            "Sandglass".to_owned(),
            format!("{} ({})", meta.name, state.ruleset().name()),
        ];
        let footer = ["? keys  F1 energy", "S save as  Q quit", "Esc menu"];
        hud::side_bar(&app.text, &layout, state, &heading, &footer);
        hud::log(&app.text, &layout, &self.log_lines());
        let size = layout.text;
        let area = layout.map;
        match self.game.overlay() {
            Overlay::Help => {
                let mut lines: Vec<(String, Color)> =
                    help_lines().into_iter().map(|l| (l, TEXT)).collect();
                lines.push((String::new(), TEXT));
                lines.push(("Any key closes this.".to_owned(), DIM));
                hud::dialog(&app.text, area, size, "Keys", &lines);
            }
            Overlay::SaveAs(name) => {
                let lines = [
                    (format!("Name: {name}_"), ASK),
                    (String::new(), TEXT),
                    ("Enter saves a copy of this game under that".to_owned(), DIM),
                    ("name (Load opens it); you play on here.".to_owned(), DIM),
                    ("Escape: never mind.".to_owned(), DIM),
                ];
                hud::dialog(&app.text, area, size, "Save as", &lines);
            }
            Overlay::None => {
                if let Some(prompt) = self.game.prompt() {
                    if !prompt.choices().is_empty() {
                        let lines: Vec<(String, Color)> = prompt
                            .choices()
                            .iter()
                            .map(|(slot, name)| (format!("{} - {name}", slot.letter()), TEXT))
                            .collect();
                        hud::dialog(&app.text, area, size, &prompt.line(), &lines);
                    }
                }
            }
        }
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
