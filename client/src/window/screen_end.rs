//! The end of a game: how it went, and what next (watch the replay, share it with the
//! server the player named, a new game, the menu).

use std::path::PathBuf;

use macroquad::prelude::*;
use sandglass_sim::{fold, State};
use sandglass_store::{Branch, GameId, GameMeta, Status, Stream};

use super::animate::Frame;
use super::draw_map::{Layout, Sight};
use super::hud::{self, ASK, BAD, DIM, GOOD, TEXT};
use super::share::{day_board, Share};
use super::{App, Go, Tape};
use crate::input::intent::{Input, Key};
use crate::input::keys::{bind, Mode};
use crate::morgue;
use crate::tally::Tally;

pub struct EndScreen {
    meta: GameMeta,
    state: State,
    tally: Tally,
    /// Where the game's morgue was written, if it was.
    morgue: Option<PathBuf>,
    /// Where the game came from, if it was taken over from a replay or saved as another.
    branch: Option<Branch>,
    /// Where a daily run was sent as it was played: it is not shared again.
    stream: Option<Stream>,
    share: Share,
}

impl EndScreen {
    pub fn new(app: &App, id: GameId) -> anyhow::Result<EndScreen> {
        let meta = app.store.meta(id)?;
        let events = app.store.events(id)?;
        let mut tally = Tally::default();
        let state = fold(meta.rules()?, events, &mut tally)?;
        let morgue = Some(morgue::path(app.store.dir(), &meta)).filter(|path| path.is_file());
        let branch = app.store.branch_of(&meta)?;
        let stream = app.store.stream_of(id)?;
        Ok(EndScreen {
            meta,
            state,
            tally,
            morgue,
            branch,
            stream,
            share: Share::Idle,
        })
    }

    pub fn key(&mut self, app: &App, key: Key) -> Go {
        match bind(&app.keymap, Mode::List, key) {
            Some(Input::Letter('r')) => Go::Watch(Tape::Game(self.meta.id)),
            // A daily run is not offered, and Share says where it is instead.
            Some(Input::Letter('s')) => {
                self.share.start(app, &self.meta);
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

    /// Takes in what came of sharing the game, once it has.
    pub fn update(&mut self) {
        self.share.update();
    }

    /// Whether the screen waits on something (a game being sent) and so needs frames.
    pub fn busy(&self) -> bool {
        self.share.busy()
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
        if let Some(said) = self.share.line() {
            lines.push((String::new(), TEXT));
            lines.push(said);
        }
        if let Some(stream) = &self.stream {
            lines.push((format!("Day's board    {}", day_board(stream)), DIM));
        }
        lines.extend([
            (String::new(), TEXT),
            ("r  watch the replay".to_owned(), ASK),
        ]);
        if self.stream.is_none() {
            lines.push(("s  share it on your server".to_owned(), TEXT));
        }
        lines.extend([
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
            stream: None,
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
        assert!(lines.iter().any(|(l, _)| l.starts_with("s  share")));

        // A daily run says where it is ranked, and is not offered to be shared again.
        end.stream = Some(Stream {
            server: "https://sand.example/".into(),
            run: 4,
            player: "camel".into(),
            day: "2026-11-26".into(),
        });
        let (_, lines) = end.lines();
        let board = "Day's board    https://sand.example/daily/2026-11-26";
        assert!(lines.iter().any(|(l, _)| l == board), "{lines:?}");
        assert!(lines.iter().all(|(l, _)| !l.starts_with("s  share")));
    }
}
