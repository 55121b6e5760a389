//! Watching a saved game from its tape: command by command, with the same map,
//! animations, side bar and energy panel as live play. Folding forward only: the
//! scrubber (back steps, timeline, taking over) is a tool of its own.

use macroquad::miniquad::KeyCode;
use macroquad::prelude::*;
use sandglass_core::store::{GameId, GameMeta};
use sandglass_core::{Event, FeedError, Observer, State};

use super::animate::{Frame, Playback, Recorder};
use super::draw_map::{self, Layout};
use super::hud::{self, ASK, DIM, TEXT};
use super::{App, Go};
use crate::keys::Key;

/// Seconds between two commands at 1x.
const STEP: f64 = 0.4;
const FASTEST: u32 = 64;

pub struct ReplayScreen {
    meta: GameMeta,
    events: Vec<Event>,
    state: State,
    playing: bool,
    speed: u32,
    next_step: f64,
    playback: Option<Playback>,
    log: Vec<String>,
    seen: u64,
}

impl ReplayScreen {
    pub fn new(app: &App, id: GameId, time: f64) -> anyhow::Result<ReplayScreen> {
        let meta = app.store.meta(id)?;
        let events = app.store.events(id)?;
        let mut screen = ReplayScreen {
            state: State::new(&meta.header, &mut ()),
            meta,
            events,
            playing: true,
            speed: 1,
            next_step: time + STEP,
            playback: None,
            log: vec![],
            seen: 0,
        };
        // The first level's draws, up to the first command.
        screen.feed_draws(&mut ())?;
        Ok(screen)
    }

    pub fn state(&self) -> &State {
        &self.state
    }

    fn next_event(&self) -> Option<Event> {
        self.events
            .get(self.state.events_folded() as usize)
            .copied()
    }

    /// Feeds one command and the draws it caused, up to the next command or the end.
    fn step(&mut self, obs: &mut impl Observer) -> Result<(), FeedError> {
        if let Some(event @ Event::Command(_)) = self.next_event() {
            self.state.feed(event, obs)?;
        }
        self.feed_draws(obs)
    }

    fn feed_draws(&mut self, obs: &mut impl Observer) -> Result<(), FeedError> {
        while let Some(event @ Event::Draw(_)) = self.next_event() {
            self.state.feed(event, obs)?;
        }
        for message in self.state.messages().since(self.seen) {
            self.log.push(message.msg.to_string());
        }
        self.seen = self.state.messages().total();
        Ok(())
    }

    fn at_end(&self) -> bool {
        self.state.events_folded() as usize >= self.events.len()
    }

    fn advance(&mut self, time: f64) -> anyhow::Result<()> {
        if self.at_end() {
            return Ok(());
        }
        let mut recorder = Recorder::new(&self.state);
        self.step(&mut recorder)?;
        self.playback = Some(recorder.into_playback(time));
        Ok(())
    }

    /// Plays on by itself while not paused.
    pub fn update(&mut self, time: f64) -> anyhow::Result<()> {
        if self.playing && time >= self.next_step {
            self.next_step = time + STEP / f64::from(self.speed);
            self.advance(time)?;
        }
        Ok(())
    }

    pub fn key(&mut self, app: &App, key: Key, time: f64) -> anyhow::Result<Go> {
        match key {
            Key::Char(' ') => {
                self.playing = !self.playing;
                self.next_step = time;
            }
            Key::Char('.' | 'l') | Key::Code(KeyCode::Right) => {
                self.playing = false;
                if let Some(p) = &mut self.playback {
                    p.finish();
                }
                self.advance(time)?;
            }
            Key::Char('+' | ']') => self.speed = (self.speed * 2).min(FASTEST),
            Key::Char('-' | '[') => self.speed = (self.speed / 2).max(1),
            Key::Code(KeyCode::Home) | Key::Char('0') => {
                *self = ReplayScreen::new(app, self.meta.id, time)?;
            }
            Key::Code(KeyCode::Escape) | Key::Char('q') => return Ok(Go::Over(self.meta.id)),
            _ => {}
        }
        Ok(Go::Stay)
    }

    pub fn draw(&mut self, app: &mut App, time: f64) {
        let frame = match &mut self.playback {
            Some(playback) => {
                let frame = playback.frame(time);
                if playback.is_done() {
                    self.playback = None;
                }
                frame
            }
            None => Frame::still(&self.state),
        };
        let map = self.state.map();
        let layout = Layout::new(screen_width(), screen_height(), map.width(), map.height());
        app.painter.draw(&self.state, &frame, &layout);
        let status = if self.at_end() {
            "the end".to_owned()
        } else if self.playing {
            format!("playing {}x", self.speed)
        } else {
            "paused".to_owned()
        };
        let heading = [
            "Replay".to_owned(),
            self.meta.name.clone(),
            format!("event {}/{}", self.state.events_folded(), self.events.len()),
            status,
        ];
        let footer = ["Space pause  . step", "+ - speed", "Home start  Esc back"];
        hud::side_bar(&app.text, &layout, &self.state, &heading, &footer);
        let mut lines: Vec<(String, Color)> = self
            .log
            .iter()
            .rev()
            .take(draw_map::LOG_LINES)
            .rev()
            .map(|s| (s.clone(), TEXT))
            .collect();
        if self.at_end() {
            lines.push(("The tape ends here. Esc: back.".to_owned(), ASK));
        } else if lines.is_empty() {
            lines.push(("Replaying...".to_owned(), DIM));
        }
        hud::log(&app.text, &layout, &lines);
    }
}
