//! The game: keys become commands through the prompt pipeline, each accepted command is
//! on disk before the next key is read, and what it caused plays back on the map.

use macroquad::prelude::*;
use sandglass_core::store::{GameId, PlayError, Session};
use sandglass_core::{Command, State};

use super::animate::{Frame, Playback, Recorder};
use super::draw_map::{self, Layout};
use super::hud::{self, ASK, DIM, TEXT};
use super::{App, Go};
use crate::keys::{bind, help_lines, is_any_key, Input, Key, Mode};
use crate::prompt::{self, Flow, Inventory, ItemView, Messages, Prompt};

pub struct GameScreen {
    session: Session,
    /// The question of a multi-step action, while one is open.
    prompt: Option<Prompt>,
    messages: Messages,
    /// The game's message count already in `messages`.
    seen: u64,
    playback: Option<Playback>,
    overlay: Overlay,
    /// The final hash has been reported.
    left: bool,
}

enum Overlay {
    None,
    Help,
    /// Typing the name of a copy of this game.
    SaveAs(String),
}

/// The camel's bags, as the prompts see them.
struct Bags<'a>(&'a State);

impl Inventory for Bags<'_> {
    fn items(&self) -> Vec<ItemView> {
        let state = self.0;
        state
            .inventory()
            .iter()
            .enumerate()
            .map(|(i, &item)| ItemView {
                slot: sandglass_core::Slot(i as u8),
                name: state.mycology().describe(item),
                edible: item.is_edible(),
                throwable: item.is_throwable(),
            })
            .collect()
    }
}

impl GameScreen {
    /// A game just made (`fresh`) or resumed; reports `game ID hash H`.
    pub fn new(app: &mut App, session: Session, fresh: bool) -> GameScreen {
        let state = session.state();
        let mut messages = Messages::default();
        let log = state.messages();
        if fresh {
            for message in log.recent() {
                messages.push(message.msg.to_string());
            }
        } else {
            for message in log.recent() {
                messages.recall(message.msg.to_string());
            }
            messages.push(format!(
                "Welcome back to `{}`. Every move is saved.",
                session.meta().name
            ));
        }
        let seen = log.total();
        app.out.game(session.meta().id, state.hash());
        GameScreen {
            session,
            prompt: None,
            messages,
            seen,
            playback: None,
            overlay: Overlay::None,
            left: false,
        }
    }

    pub fn state(&self) -> &State {
        self.session.state()
    }

    fn id(&self) -> GameId {
        self.session.meta().id
    }

    fn over(&self) -> bool {
        self.state().outcome().is_some()
    }

    /// How the next key is read.
    fn mode(&self) -> Mode {
        if self.messages.has_more() || self.over() {
            Mode::More
        } else if let Some(prompt) = &self.prompt {
            prompt.mode()
        } else {
            Mode::Play
        }
    }

    pub fn key(&mut self, app: &mut App, key: Key, time: f64) -> anyhow::Result<Go> {
        // A key means the player has seen enough of the last command's playback.
        if let Some(playback) = &mut self.playback {
            playback.finish();
        }
        match std::mem::replace(&mut self.overlay, Overlay::None) {
            Overlay::Help => {
                if !is_any_key(key) {
                    self.overlay = Overlay::Help;
                }
                return Ok(Go::Stay);
            }
            Overlay::SaveAs(name) => return Ok(self.save_as_key(app, key, name)),
            Overlay::None => {}
        }
        let mode = self.mode();
        let Some(input) = bind(mode, key) else {
            return Ok(Go::Stay);
        };
        if mode == Mode::More {
            if self.messages.has_more() {
                self.messages.answer(input);
            } else if matches!(input, Input::Space | Input::Confirm | Input::Escape) {
                // The game is over and its last words read.
                self.leave(app);
                return Ok(Go::Over(self.id()));
            }
            return Ok(Go::Stay);
        }
        let flow = match self.prompt.take() {
            Some(prompt) => prompt.answer(input),
            None => match input {
                Input::Help => {
                    self.overlay = Overlay::Help;
                    return Ok(Go::Stay);
                }
                Input::SaveAs => {
                    let name = app.store.free_name(&self.session.meta().name)?;
                    self.overlay = Overlay::SaveAs(name);
                    return Ok(Go::Stay);
                }
                Input::Escape => {
                    self.leave(app);
                    return Ok(Go::Menu);
                }
                _ => {
                    let Some(flow) = prompt::start(input, &Bags(self.state())) else {
                        return Ok(Go::Stay);
                    };
                    // A new action: the last one's lines leave the screen.
                    self.messages.turn_page();
                    flow
                }
            },
        };
        match flow {
            Flow::Ask(prompt) => self.prompt = Some(prompt),
            Flow::Cancelled(why) => self.messages.push(why),
            Flow::Command(command) => self.play(app, command, time)?,
        }
        Ok(Go::Stay)
    }

    /// Hands a fully answered command to the core; it is validated, played and flushed
    /// to disk before this returns. A refusal costs nothing and writes nothing.
    fn play(&mut self, app: &mut App, command: Command, time: f64) -> anyhow::Result<()> {
        let mut recorder = Recorder::new(self.state());
        match self.session.command(command, &mut recorder) {
            Ok(_) => {
                let meta = self.session.meta();
                app.out.ack(meta.commands, meta.last_hash);
                for message in self.session.state().messages().since(self.seen) {
                    self.messages.push(message.msg.to_string());
                }
                self.seen = self.session.state().messages().total();
                self.playback = Some(recorder.into_playback(time));
            }
            Err(PlayError::Rejected(why)) => self.messages.push(why.to_string()),
            // The session refuses further commands: nothing more can be saved.
            Err(PlayError::Store(error)) => return Err(error.into()),
        }
        Ok(())
    }

    fn save_as_key(&mut self, app: &mut App, key: Key, mut name: String) -> Go {
        use macroquad::miniquad::KeyCode;
        match key {
            Key::Char(c) if !c.is_control() && name.chars().count() < 64 => name.push(c),
            Key::Code(KeyCode::Backspace) => {
                name.pop();
            }
            Key::Code(KeyCode::Escape) => {
                self.overlay = Overlay::None;
                self.messages.push(prompt::NEVER_MIND);
                return Go::Stay;
            }
            Key::Code(KeyCode::Enter | KeyCode::KpEnter) => {
                let meta = self.session.meta();
                let said = match app.store.fork(meta.id, &name, meta.events) {
                    Ok(_) => format!("Saved a copy as `{name}`; you play on in `{}`.", meta.name),
                    Err(error) => format!("Not saved: {error}."),
                };
                self.overlay = Overlay::None;
                self.messages.turn_page();
                self.messages.push(said);
                return Go::Stay;
            }
            _ => {}
        }
        self.overlay = Overlay::SaveAs(name);
        Go::Stay
    }

    /// Reports the final hash once, whether the player left for the menu, the game
    /// ended, or the window was closed.
    pub fn leave(&mut self, app: &mut App) {
        if !self.left {
            self.left = true;
            app.out.hash(self.state().hash());
        }
    }

    pub fn draw(&mut self, app: &mut App, time: f64) {
        let frame = Frame::at(&mut self.playback, self.session.state(), time);
        let state = self.session.state();
        let map = state.map();
        let layout = Layout::new(screen_width(), screen_height(), map.width(), map.height());
        app.painter.draw(state, &frame, &layout);
        let meta = self.session.meta();
        let heading = [
            "Sandglass".to_owned(),
            format!("{} ({})", meta.name, state.ruleset().name()),
        ];
        let footer = ["? keys  F1 energy", "S save as  Q quit", "Esc menu"];
        hud::side_bar(&app.text, &layout, state, &heading, &footer);
        hud::log(&app.text, &layout, &self.log_lines());
        let size = layout.text;
        let area = layout.map;
        match &self.overlay {
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
                if let Some(prompt) = &self.prompt {
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
        let shown = self.messages.shown();
        let fresh = shown.len() - self.messages.page().len();
        let first = shown.len().saturating_sub(draw_map::LOG_LINES);
        let mut lines: Vec<(String, Color)> = shown[first..]
            .iter()
            .enumerate()
            .map(|(i, s)| (s.clone(), if first + i >= fresh { TEXT } else { DIM }))
            .collect();
        if self.messages.has_more() {
            lines.push(("--more--".to_owned(), ASK));
        } else if self.over() {
            lines.push(("--more-- (the game is over)".to_owned(), ASK));
        } else if let Some(prompt) = &self.prompt {
            lines.push((prompt.line(), ASK));
        }
        lines
    }
}
