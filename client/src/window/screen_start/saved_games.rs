//! The start screen's list of saved games, to play or to watch: a line for each, the keys
//! that open one, and the highlighted one shared with the player's server (`S`).

use sandglass_store::{Branch, GameMeta, Status, StoreError};

use super::{moved, Rows};
use crate::cli::{rules_label, utc};
use crate::input::intent::Input;
use crate::window::hud::{BAD, DIM, TEXT};
use crate::window::share::Share;
use crate::window::{App, Go, Tape};

/// The saved games, to play or to watch, and the highlighted one.
pub(super) struct SavedGames {
    /// Each saved game, and where it came from if it is a branch.
    games: Vec<(GameMeta, Option<Branch>)>,
    choice: usize,
    /// Picking a game opens its replay rather than the game.
    watch: bool,
    /// The highlighted game sent to the player's server (`S`).
    share: Share,
}

impl SavedGames {
    /// The saved games, newest first, to play (`watch` false) or to watch; `None` if
    /// there are none.
    pub(super) fn open(app: &App, watch: bool) -> Result<Option<SavedGames>, StoreError> {
        let mut games = listed(app)?;
        if games.is_empty() {
            return Ok(None);
        }
        // Newest first: the one just played is the likeliest choice.
        games.sort_by_key(|(m, _)| std::cmp::Reverse((m.last_played, m.id)));
        Ok(Some(SavedGames {
            games,
            choice: 0,
            watch,
            share: Share::Idle,
        }))
    }

    /// Keys on the saved games: a game picked opens it (or its replay); `None` once
    /// Escape closes the list.
    pub(super) fn key(&mut self, app: &App, input: Input) -> Option<Go> {
        let count = self.games.len();
        let go = match input {
            Input::Move(dir) => {
                self.choice = moved(self.choice, count, dir);
                Go::Stay
            }
            Input::Confirm | Input::Space => self.pick(self.choice),
            // Lower-case letters pick games; the capital shares the highlighted one.
            Input::Letter('S') => {
                self.share.start(app, &self.games[self.choice].0);
                Go::Stay
            }
            Input::Letter(c) => {
                let index = (c as usize).wrapping_sub('a' as usize);
                if c.is_ascii_lowercase() && index < count {
                    self.pick(index)
                } else {
                    Go::Stay
                }
            }
            Input::Escape => return None,
            _ => Go::Stay,
        };
        Some(go)
    }

    /// Game `i` opened: its replay, the game if it is alive, how it ended if not.
    fn pick(&self, i: usize) -> Go {
        let (meta, _) = &self.games[i];
        if self.watch {
            Go::Watch(Tape::Game(meta.id))
        } else if meta.status == Status::Alive {
            Go::Play(meta.id)
        } else {
            Go::Over(meta.id)
        }
    }

    /// The game being shared takes the server's answer.
    pub(super) fn update(&mut self) {
        self.share.update();
    }

    /// Whether a game is being shared.
    pub(super) fn busy(&self) -> bool {
        self.share.busy()
    }
}

/// The saved games, each with where it came from if it is a branch.
fn listed(app: &App) -> Result<Vec<(GameMeta, Option<Branch>)>, StoreError> {
    let games = app.store.games()?;
    games
        .into_iter()
        .map(|meta| {
            let branch = app.store.branch_of(&meta)?;
            Ok((meta, branch))
        })
        .collect()
}

/// The saved games to load or watch, from `x`, `y` down, scrolled to the chosen one.
pub(super) fn draw_list(app: &App, list: &SavedGames, x: f32, y: f32, size: f32) {
    let title = if list.watch {
        "Watch a replay"
    } else {
        "Saved games"
    };
    let mut rows = Rows::titled(app, title, x, y, size, list.choice, 4);
    for (i, (meta, branch)) in list
        .games
        .iter()
        .enumerate()
        .skip(rows.first)
        .take(rows.rows)
    {
        let letter = if i < 26 {
            char::from(b'a' + i as u8)
        } else {
            ' '
        };
        let mut label = format!(
            "{letter}  {:<20} {:<6} depth {}  turn {:<6} {}  rules {}",
            rows.column(&meta.name),
            meta.status.name(),
            meta.depth,
            meta.turns,
            utc(meta.last_played),
            rules_label(meta.header.rules_version),
        );
        if let Some(branch) = branch {
            label += &format!("  {branch}");
        }
        let color = match (meta.rules().is_ok(), meta.status) {
            (false, _) => BAD,
            (true, Status::Alive) => TEXT,
            (true, _) => DIM,
        };
        rows.row(app, i, &label, color);
    }
    rows.footer(
        app,
        if list.watch {
            "Enter opens the replay on a timeline. S shares a finished game. Escape: back."
        } else {
            "Enter plays a game or shows how it ended. S shares a finished game. Escape: back."
        },
    );
    if let Some((said, colour)) = list.share.line() {
        rows.text(app, &said, colour);
    }
}
