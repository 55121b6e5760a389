//! The end of a game: how it went, and what next (watch the replay, share it with the
//! server the player named, a new game, the menu).

use std::path::PathBuf;
use std::thread::JoinHandle;

use macroquad::prelude::*;
use sandglass_sim::{fold, State};
use sandglass_store::{Branch, GameId, GameMeta, Status};

use super::animate::Frame;
use super::draw_map::{Layout, Sight};
use super::hud::{self, ASK, BAD, DIM, GOOD, TEXT};
use super::{App, Go, Tape};
use crate::input::keys::{bind, Input, Key, Mode};
use crate::morgue;
use crate::settings::Settings;
use crate::tally::Tally;

pub struct EndScreen {
    meta: GameMeta,
    state: State,
    tally: Tally,
    /// Where the game's morgue was written, if it was.
    morgue: Option<PathBuf>,
    /// Where the game came from, if it was taken over from a replay or saved as another.
    branch: Option<Branch>,
    share: Share,
}

/// The game sent to the player's server (`s`), as `sandglass submit` sends it.
enum Share {
    /// Not asked for.
    Idle,
    /// Being exported and sent, on a thread of its own, to the server named.
    Sending(String, JoinHandle<anyhow::Result<String>>),
    /// What came of it, or why it was not sent.
    Said(String, Color),
}

/// Why the window sends nothing: it sends only to a server the player named.
const NO_SERVER: &str = "No server named yet: `sandglass submit GAME --server URL --name NAME` \
     names one, and then s shares from here. Nothing is sent to a server you did not name.";

impl EndScreen {
    pub fn new(app: &App, id: GameId) -> anyhow::Result<EndScreen> {
        let meta = app.store.meta(id)?;
        let events = app.store.events(id)?;
        let mut tally = Tally::default();
        let state = fold(meta.rules()?, events, &mut tally)?;
        let morgue = Some(morgue::path(app.store.dir(), &meta)).filter(|path| path.is_file());
        let branch = app.store.branch_of(&meta)?;
        Ok(EndScreen {
            meta,
            state,
            tally,
            morgue,
            branch,
            share: Share::Idle,
        })
    }

    pub fn key(&mut self, app: &App, key: Key) -> Go {
        match bind(&app.keymap, Mode::List, key) {
            Some(Input::Letter('r')) => Go::Watch(Tape::Game(self.meta.id)),
            Some(Input::Letter('s')) => {
                self.share(app);
                Go::Stay
            }
            Some(Input::Letter('n')) => Go::NewGame {
                seed: None,
                ruleset: self.meta.header.ruleset,
            },
            Some(Input::Letter('q')) => Go::Exit,
            Some(Input::Confirm | Input::Escape | Input::Space) => Go::Menu,
            _ => Go::Stay,
        }
    }

    /// Sends the game to the server the player named (remembered by `sandglass
    /// submit`), signed with the player's key, on a thread: the window goes on answering.
    fn share(&mut self, app: &App) {
        if matches!(self.share, Share::Sending(..)) {
            return;
        }
        let Some(config) = app.config_dir.clone() else {
            let why = "This system has no config folder to keep a player's key in.";
            self.say(why.into(), BAD);
            return;
        };
        let Settings {
            server: Some(server),
            player: Some(name),
            ..
        } = Settings::load(&config)
        else {
            self.say(NO_SERVER.into(), DIM);
            return;
        };
        let (store, id, label) = (app.store.clone(), self.meta.id, self.meta.name.clone());
        let to = server.clone();
        let sending = std::thread::spawn(move || {
            let file = store.export(id, &mut |_, _| ())?;
            let bytes = sandglass_replay::to_bytes(&file);
            crate::cli::submit::send(&bytes, &label, &to, &name, &config)
        });
        self.share = Share::Sending(server, sending);
    }

    /// Takes in what came of sending the game, once it has.
    pub fn update(&mut self) {
        let Share::Sending(_, sending) = &self.share else {
            return;
        };
        if !sending.is_finished() {
            return;
        }
        let Share::Sending(server, sending) = std::mem::replace(&mut self.share, Share::Idle)
        else {
            return;
        };
        match sending.join() {
            Ok(Ok(words)) => self.say(format!("Shared on {server}: {words}"), GOOD),
            Ok(Err(error)) => self.say(format!("Not shared: {error:#}."), BAD),
            Err(_) => self.say("Not shared: sending it failed.".into(), BAD),
        }
    }

    /// Says what came of sharing, on the screen and on stdout (`share ...`).
    fn say(&mut self, said: String, colour: Color) {
        crate::report::line(&format!("share {said}"));
        self.share = Share::Said(said, colour);
    }

    /// Whether the screen waits on something (a game being sent) and so needs frames.
    pub fn busy(&self) -> bool {
        matches!(self.share, Share::Sending(..))
    }

    fn lines(&self) -> (String, Vec<(String, Color)>) {
        let meta = &self.meta;
        let t = &self.tally;
        let title = match meta.status {
            Status::Dead => match t.death {
                Some(death) => format!("You died on depth {}, {}.", meta.depth, death.words()),
                None => format!("You died on depth {}.", meta.depth),
            },
            Status::Won => "You reached the oasis!".to_owned(),
            Status::Quit => format!("You gave up the crossing on depth {}.", meta.depth),
            Status::Alive => format!("{} goes on.", meta.name),
        };
        let kills = t.kills_words();
        let hp = self.state.world().player().map_or(0, |c| c.hp().max(0));
        let verdict = match meta.status {
            Status::Won => GOOD,
            Status::Dead => BAD,
            _ => TEXT,
        };
        let mut lines = vec![
            (
                format!(
                    "Game {} ({}, seed {})",
                    meta.name,
                    meta.header.ruleset.name(),
                    meta.header.seed
                ),
                DIM,
            ),
            (String::new(), TEXT),
            (format!("Turns          {}", meta.turns), TEXT),
            (format!("Commands       {}", meta.commands), TEXT),
            (format!("Deepest level  {}", meta.depth), TEXT),
            (format!("Hit points     {hp}"), verdict),
            (format!("Killed         {kills}"), TEXT),
            (
                format!("Damage dealt   {}, taken {}", t.dealt, t.taken),
                TEXT,
            ),
            (format!("Things eaten   {}", t.eaten), TEXT),
            (format!("Final hash     0x{:016x}", self.state.hash()), DIM),
        ];
        if let Some(path) = &self.morgue {
            lines.push((format!("Morgue         {}", path.display()), DIM));
        }
        if let Some(branch) = &self.branch {
            lines.push((
                format!("A branch {branch}: not ranked in the high scores."),
                DIM,
            ));
        }
        match &self.share {
            Share::Idle => {}
            Share::Sending(server, _) => {
                lines.push((String::new(), TEXT));
                lines.push((format!("Sending it to {server}..."), DIM));
            }
            Share::Said(said, colour) => {
                lines.push((String::new(), TEXT));
                lines.push((said.clone(), *colour));
            }
        }
        lines.extend([
            (String::new(), TEXT),
            ("r  watch the replay".to_owned(), ASK),
            ("s  share it on your server".to_owned(), TEXT),
            ("n  new game".to_owned(), TEXT),
            ("Enter  back to the menu".to_owned(), TEXT),
            ("q  quit".to_owned(), TEXT),
        ]);
        (title, lines)
    }

    pub fn draw(&self, app: &mut App) {
        let map = self.state.world().map();
        let layout = Layout::new(screen_width(), screen_height(), map.width(), map.height());
        app.painter.draw(
            &self.state,
            &Frame::still(&self.state),
            &layout,
            Sight::Everything,
        );
        // The last sight of the desert, dimmed behind the summary.
        draw_rectangle(
            0.0,
            0.0,
            screen_width(),
            screen_height(),
            Color::new(0.0, 0.0, 0.0, 0.55),
        );
        let (title, lines) = self.lines();
        let area = Rect::new(0.0, 0.0, screen_width(), screen_height());
        hud::dialog(&app.text, area, layout.text, &title, &lines);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tally::Death;
    use sandglass_sim::bot::Bot;
    use sandglass_sim::species::Species;
    use sandglass_sim::{Rules, Ruleset};

    #[test]
    fn the_summary_names_the_killer_with_its_article_and_quotes_no_name() {
        let dir = tempfile::tempdir().unwrap();
        let store = sandglass_store::Store::open(dir.path()).unwrap();
        let tape = Bot::new(30).record(Rules::newest(Ruleset::NETHACK), 3, u64::MAX);
        let recording = sandglass_sim::Recording::record(tape.header, tape.events).unwrap();
        let meta = store
            .import(&recording, "last crossing", &mut |_, _| ())
            .unwrap();
        let mut end = EndScreen {
            meta,
            state: State::new(Rules::newest(Ruleset::NETHACK), &mut ()),
            tally: Tally::default(),
            morgue: None,
            branch: None,
            share: Share::Idle,
        };
        end.tally.death = Some(Death::By(Species::Elephant));
        end.meta.status = Status::Dead;
        let (title, lines) = end.lines();
        assert_eq!(
            title,
            format!(
                "You died on depth {}, killed by an elephant.",
                end.meta.depth
            )
        );
        assert!(lines[0]
            .0
            .starts_with("Game last crossing (nethack, seed 3)"));
        assert!(lines.iter().all(|(l, _)| !l.contains('`')), "{lines:?}");
    }
}
