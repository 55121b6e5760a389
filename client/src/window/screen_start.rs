//! The start screen: its menu (New game, New seeded game, Daily desert, Continue, Load,
//! Watch a replay, Open a replay file, High scores, Options, Quit), and what each entry
//! opens over it, one at a time.

mod replay_files;
mod saved_games;
mod seed_entry;

use std::path::PathBuf;
use std::thread::JoinHandle;

use macroquad::prelude::*;
use sandglass_sim::geometry::Direction;
use sandglass_sim::Ruleset;
use sandglass_store::{GameId, GameMeta, Status};

use super::draw_map::{line_height, BACKGROUND};
use super::hud::{self, ASK, BAD, DIM, TEXT, TITLE};
use super::options::OptionsScreen;
use super::scoreboard::Board;
use super::server_entry::{Entered, ServerEntry};
use super::share::NO_CONFIG;
use super::{App, Go, Tape};
use crate::cli::scores::{self, Proof};
use crate::input::intent::{Input, Key};
use crate::input::keys::{bind, Mode};
use crate::settings::Settings;
use replay_files::{draw_files, files_key};
use saved_games::{draw_list, SavedGames};
use seed_entry::{draw_seed_entry, SeedEntry};

pub struct StartScreen {
    /// The highlighted entry.
    choice: usize,
    /// The most recently played game still alive: what Continue resumes.
    latest: Option<GameMeta>,
    /// What shows under the title: the menu, or the one thing opened from it.
    shown: Shown,
    /// What was last typed in the server's box: it opens on it again if the server did
    /// not take it (only what a server took is remembered in the settings).
    typed: Option<ServerEntry>,
    /// Today's daily run being started on the player's server (or found among the
    /// saved games), on a thread: the game, and whether it is still to be played. It
    /// goes on whatever is opened meanwhile.
    daily: Option<JoinHandle<anyhow::Result<(GameId, bool)>>>,
    /// Why the last choice did not work.
    error: Option<String>,
}

/// What the start screen shows under its title. Everything but the menu is opened from
/// the menu and closes back to it.
enum Shown {
    /// The entries, the highlighted one at `choice`.
    Menu,
    /// The saved games, to load or to watch.
    Games(SavedGames),
    /// The high-score table.
    Scores(Board),
    /// The replay files found, and the highlighted one.
    Files((Vec<PathBuf>, usize)),
    /// The box where a new seeded game's seed is typed.
    Seed(SeedEntry),
    /// The box where the player names their server and themselves: the daily desert
    /// asked for them and none were named.
    Server(ServerEntry),
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Choice {
    New,
    Seeded,
    Daily,
    Continue,
    Load,
    Watch,
    Files,
    Scores,
    Options,
    Quit,
}

const ENTRIES: [(Choice, char, &str); 10] = [
    (Choice::New, 'n', "New game"),
    (Choice::Seeded, 'e', "New seeded game"),
    (Choice::Daily, 'd', "Daily desert"),
    (Choice::Continue, 'c', "Continue"),
    (Choice::Load, 'l', "Load"),
    (Choice::Watch, 'w', "Watch a replay"),
    (Choice::Files, 'f', "Open a replay file"),
    (Choice::Scores, 's', "High scores"),
    (Choice::Options, 'o', "Options"),
    (Choice::Quit, 'q', "Quit"),
];

/// Where `choice` is in the menu.
fn entry(choice: Choice) -> usize {
    ENTRIES.iter().position(|e| e.0 == choice).unwrap_or(0)
}

/// The most recently played live game among `games`.
pub fn latest_alive(games: &[GameMeta]) -> Option<&GameMeta> {
    games
        .iter()
        .filter(|m| m.status == Status::Alive)
        .max_by_key(|m| (m.last_played, m.id))
}

impl StartScreen {
    pub fn new(app: &App, error: Option<String>) -> StartScreen {
        let (latest, error) = match app.store.games() {
            Ok(games) => (latest_alive(&games).cloned(), error),
            Err(e) => (None, Some(e.to_string())),
        };
        StartScreen {
            // Continue first when there is something to continue.
            choice: match latest {
                Some(_) => entry(Choice::Continue),
                None => entry(Choice::New),
            },
            latest,
            shown: Shown::Menu,
            typed: None,
            daily: None,
            error,
        }
    }

    pub fn key(&mut self, app: &mut App, key: Key) -> Go {
        let input = bind(&app.keymap, Mode::List, key);
        // What was opened from the menu says `None` when a key closes it.
        let open = match (&mut self.shown, input) {
            // The boxes take the keys themselves: a letter is text there.
            (Shown::Seed(entry), _) => entry.key(key),
            (Shown::Server(entry), _) => match entry.key(key) {
                Entered::Typing => Some(Go::Stay),
                Entered::Closed => None,
                Entered::Named { server, name } => {
                    self.typed = Some(entry.clone());
                    self.start_daily_on(app, server, name);
                    None
                }
            },
            (_, None) => Some(Go::Stay),
            (Shown::Games(list), Some(input)) => list.key(app, input),
            (Shown::Scores(board), Some(input)) => scores_key(board, input),
            (Shown::Files(files), Some(input)) => files_key(files, input),
            (Shown::Menu, Some(input)) => Some(self.menu_key(app, input)),
        };
        open.unwrap_or_else(|| {
            self.shown = Shown::Menu;
            Go::Stay
        })
    }

    /// Keys on the menu: arrows move the highlight, Enter or Space picks it, as does an
    /// entry's letter; Escape quits.
    fn menu_key(&mut self, app: &mut App, input: Input) -> Go {
        let picked = match input {
            Input::Move(dir) => {
                self.choice = moved(self.choice, ENTRIES.len(), dir);
                None
            }
            Input::Confirm | Input::Space => Some(ENTRIES[self.choice].0),
            Input::Letter(c) => ENTRIES.iter().find(|e| e.1 == c).map(|e| e.0),
            Input::Escape => Some(Choice::Quit),
            _ => None,
        };
        match picked {
            Some(choice) => self.pick(app, choice),
            None => Go::Stay,
        }
    }

    /// What an entry of the menu does.
    fn pick(&mut self, app: &mut App, choice: Choice) -> Go {
        match choice {
            Choice::New => Go::NewGame {
                seed: None,
                ruleset: Ruleset::NETHACK,
            },
            Choice::Seeded => {
                self.open(Shown::Seed(SeedEntry::new()));
                Go::Stay
            }
            Choice::Daily => {
                self.start_daily(app);
                Go::Stay
            }
            Choice::Continue => match &self.latest {
                Some(meta) => Go::Play(meta.id),
                None => {
                    self.error = Some("There is no game to continue: start a new one.".into());
                    Go::Stay
                }
            },
            Choice::Load => {
                self.open_games(app, false);
                Go::Stay
            }
            Choice::Watch => {
                self.open_games(app, true);
                Go::Stay
            }
            Choice::Files => {
                self.open_files();
                Go::Stay
            }
            Choice::Scores => {
                match Board::open(&app.store) {
                    Ok(Some(board)) => self.shown = Shown::Scores(board),
                    Ok(None) => self.error = Some("There are no games to score yet.".into()),
                    Err(e) => self.error = Some(e.to_string()),
                }
                Go::Stay
            }
            Choice::Options => {
                app.options = Some(OptionsScreen::new());
                Go::Stay
            }
            Choice::Quit => Go::Exit,
        }
    }

    /// `shown` opened over the menu, which says no more of what went wrong before.
    fn open(&mut self, shown: Shown) {
        self.shown = shown;
        self.error = None;
    }

    /// The saved games, to play (`watch` false) or to watch; or why there are none.
    fn open_games(&mut self, app: &App, watch: bool) {
        match SavedGames::open(app, watch) {
            Ok(Some(list)) => self.open(Shown::Games(list)),
            Ok(None) => self.error = Some("There are no saved games yet.".into()),
            Err(e) => self.error = Some(e.to_string()),
        }
    }

    /// The replay files here and in `./replays`; or why there are none.
    fn open_files(&mut self) {
        let files = replay_files::found();
        match files.is_empty() {
            true => {
                self.error = Some(
                    "No replay files (.sgr) here or in ./replays and its folders: \
                     sandglass export GAME FILE.sgr writes one."
                        .into(),
                )
            }
            false => self.open(Shown::Files((files, 0))),
        }
    }

    /// Today's daily desert, on the server the player named; the box to name one and
    /// oneself first if they have not.
    fn start_daily(&mut self, app: &App) {
        if self.daily.is_some() {
            return;
        }
        let Some(config) = &app.config_dir else {
            self.say(NO_CONFIG.into());
            return;
        };
        match Settings::load(config) {
            Settings {
                server: Some(server),
                player: Some(name),
                ..
            } => self.start_daily_on(app, server, name),
            settings => {
                let typed = self.typed.take();
                self.open(Shown::Server(
                    typed.unwrap_or_else(|| ServerEntry::new(&settings)),
                ));
            }
        }
    }

    /// Today's daily desert on `server` as `name`: started there (or found among the
    /// saved games) on a thread, and opened once it is. The server and name are
    /// remembered once the server starts the run.
    fn start_daily_on(&mut self, app: &App, server: String, name: String) {
        let Some(config) = app.config_dir.clone() else {
            return;
        };
        let store = app.store.clone();
        self.error = None;
        self.daily = Some(std::thread::spawn(move || {
            crate::cli::daily::open_run(&store, &server, &name, Ruleset::NETHACK, &config)
        }));
    }

    /// What the screen does by itself: the high scores take the games proved since the
    /// last frame, a game being shared its answer, and today's daily run, once started,
    /// opens.
    pub fn update(&mut self) -> Go {
        match &mut self.shown {
            Shown::Scores(board) => board.update(),
            Shown::Games(list) => list.update(),
            Shown::Menu | Shown::Files(_) | Shown::Seed(_) | Shown::Server(_) => {}
        }
        if !self.daily.as_ref().is_some_and(|d| d.is_finished()) {
            return Go::Stay;
        }
        match self.daily.take().map(JoinHandle::join) {
            Some(Ok(Ok((id, true)))) => Go::Play(id),
            Some(Ok(Ok((id, false)))) => Go::Over(id),
            Some(Ok(Err(error))) => {
                self.say(format!("{error:#}"));
                Go::Stay
            }
            _ => {
                self.say("Starting today's desert failed.".into());
                Go::Stay
            }
        }
    }

    /// Why today's desert does not open, on the screen and on stdout (`daily ...`).
    fn say(&mut self, why: String) {
        crate::report::line(&format!("daily {why}"));
        self.error = Some(why);
    }

    /// Whether the screen changes by itself: games are being proved for the high scores,
    /// a game is being shared, or today's desert is being started.
    pub fn busy(&self) -> bool {
        let shown = match &self.shown {
            Shown::Scores(board) => board.progress().is_some(),
            Shown::Games(list) => list.busy(),
            Shown::Menu | Shown::Files(_) | Shown::Seed(_) | Shown::Server(_) => false,
        };
        shown || self.daily.is_some()
    }

    pub fn draw(&self, app: &App) {
        clear_background(BACKGROUND);
        let (w, h) = (screen_width(), screen_height());
        let size = (h / 32.0).clamp(14.0, 26.0).round();
        let line = line_height(size);
        let x = (w * 0.12).round();
        let mut y = (h * 0.12).round();
        app.text.bold("S A N D G L A S S", x, y, size * 1.8, TITLE);
        y += line * 2.2;
        app.text.draw(
            "A camel crosses the desert. Every move is saved.",
            x,
            y,
            size,
            DIM,
        );
        y += line * 2.0;
        match &self.shown {
            Shown::Menu => self.draw_menu(app, x, y, size),
            Shown::Games(list) => draw_list(app, list, x, y, size),
            Shown::Scores(board) => draw_scores(app, board, x, y, size),
            Shown::Files((files, choice)) => draw_files(app, files, *choice, x, y, size),
            Shown::Seed(entry) => draw_seed_entry(app, entry, x, y, size),
            Shown::Server(entry) => draw_server_entry(app, entry, x, y, size),
        }
        self.draw_status(app, x, size);
    }

    /// The line at the bottom: what went wrong, that today's desert is being started,
    /// or, on the menu, that there is nothing to continue.
    fn draw_status(&self, app: &App, x: f32, size: f32) {
        let (w, h) = (screen_width(), screen_height());
        let line = line_height(size);
        if let Some(error) = &self.error {
            // Wrapped, its last line where a short one stands: a long error grows up.
            let lines = hud::wrap(error, w - 2.0 * x, size);
            let top = h - line * (1.0 + lines.len() as f32);
            for (i, text) in lines.iter().enumerate() {
                app.text.draw(text, x, top + line * i as f32, size, BAD);
            }
        } else if self.daily.is_some() {
            let starting = "Starting today's desert on your server...";
            app.text.draw(starting, x, h - line * 2.0, size, ASK);
        } else if matches!(self.shown, Shown::Menu) && self.latest.is_none() {
            app.text
                .draw("No game to continue yet.", x, h - line * 2.0, size, ASK);
        }
    }

    /// The entries, from `x`, `y` down, Continue naming the game it resumes.
    fn draw_menu(&self, app: &App, x: f32, mut y: f32, size: f32) {
        let w = screen_width();
        let line = line_height(size);
        for (i, (entry, key, name)) in ENTRIES.iter().enumerate() {
            let mut label = format!("{key}  {name}");
            let mut color = TEXT;
            if *entry == Choice::Continue {
                match &self.latest {
                    Some(m) => {
                        label += &format!("   {} - depth {}, turn {}", m.name, m.depth, m.turns)
                    }
                    None => color = DIM,
                }
            }
            if i == self.choice {
                highlight(x, y, w, size);
            }
            app.text
                .draw(&hud::fit(&label, w - 2.0 * x, size), x, y, size, color);
            y += line * 1.3;
        }
        y += line;
        app.text
            .draw("Arrows and Enter, or the letter.", x, y, size, DIM);
    }
}

/// The box to name the player's server and themselves, from `x`, `y` down.
fn draw_server_entry(app: &App, entry: &ServerEntry, x: f32, y: f32, size: f32) {
    let mut rows = Rows::titled(app, "Daily desert: your server", x, y, size, usize::MAX, 3);
    rows.text(app, "One desert a day, the same for every player,", DIM);
    rows.text(app, "fixed in advance by the server you name, which", DIM);
    rows.text(app, "watches your run step by step and ranks it.", DIM);
    rows.text(app, "", TEXT);
    let field = |label: &str, text: &str, typing: bool| {
        let cursor = if typing { "_" } else { "" };
        (
            format!("{label}{text}{cursor}"),
            if typing { TEXT } else { DIM },
        )
    };
    let (server, color) = field("Server:     ", &entry.server, !entry.on_name);
    rows.text(app, &server, color);
    let (name, color) = field("Your name:  ", &entry.name, entry.on_name);
    rows.text(app, &name, color);
    rows.text(app, "", TEXT);
    match &entry.problem {
        Some(problem) => rows.text(app, problem, BAD),
        None => {
            rows.text(app, "A name is the first player's to claim it.", DIM);
            rows.text(app, "Nothing is sent to a server you did not name.", DIM);
        }
    }
    rows.footer(
        app,
        "Tab: the other field. Enter starts today's run. Escape: back.",
    );
}

/// Keys on the high scores: Enter watches the game's replay; `None` once Escape closes
/// them.
fn scores_key(board: &mut Board, input: Input) -> Option<Go> {
    let go = match input {
        Input::Escape => return None,
        Input::Move(dir) => {
            board.choose(moved(board.choice(), board.entries().len(), dir));
            Go::Stay
        }
        Input::Confirm | Input::Space => {
            Go::Watch(Tape::Game(board.entries()[board.choice()].meta.id))
        }
        _ => Go::Stay,
    };
    Some(go)
}

/// The high scores, from `x`, `y` down: every stored game, its score folded from its own
/// log; those still being proved, then the unverified, last and unranked.
fn draw_scores(app: &App, board: &Board, x: f32, y: f32, size: f32) {
    let table = board.entries();
    let mut rows = Rows::titled(app, "High scores", x, y, size, board.choice(), 5);
    let header = format!(
        "{:>4}  {:>6}  {:<20} {:<10} {:>5} {:>6} {:>5} {:>5}",
        "#", "score", "name", "status", "depth", "turns", "kills", "rules"
    );
    rows.text(app, &header, DIM);
    let first_branch = table.iter().position(|e| e.branch.is_some());
    for (i, entry) in table.iter().enumerate().skip(rows.first).take(rows.rows) {
        if Some(i) == first_branch {
            rows.text(app, "Branches, not ranked (saved as, or taken over):", DIM);
        }
        let [rank, score, name, status, depth, turns, kills, rules] = scores::row(entry);
        let name = rows.column(&name);
        let mut label = format!(
            "{rank:>4}  {score:>6}  {name:<20} {status:<10} {depth:>5} {turns:>6} {kills:>5} {rules:>5}"
        );
        if let Some(branch) = &entry.branch {
            label += &format!("  {branch}");
        }
        let color = match entry.proof {
            Proof::Proved(_) => TEXT,
            Proof::Pending => DIM,
            Proof::Failed(_) => BAD,
        };
        rows.row(app, i, &label, color);
    }
    rows.footer(
        app,
        "Every score is folded from its game's own log. Enter watches it.",
    );
    if let Some((done, of)) = board.progress() {
        rows.text(
            app,
            &format!("Checking the scores against their logs: {done} of {of}..."),
            ASK,
        );
    }
}

/// The highlight after an arrow: up one row or down one, round the ends.
fn moved(choice: usize, count: usize, dir: Direction) -> usize {
    let count = count.max(1);
    let step = if dir.delta().1 < 0 { count - 1 } else { 1 };
    (choice + step) % count
}

/// A list drawn under its title, one row after another, scrolled so that the chosen row
/// shows.
struct Rows {
    x: f32,
    /// Where the next row is drawn.
    y: f32,
    size: f32,
    line: f32,
    choice: usize,
    /// The first row shown, and how many fit.
    first: usize,
    rows: usize,
}

impl Rows {
    /// Draws a list's `title` at `x`, `y`, and lays out its rows under it, leaving
    /// `reserved` lines at the bottom.
    fn titled(
        app: &App,
        title: &str,
        x: f32,
        y: f32,
        menu_size: f32,
        choice: usize,
        reserved: usize,
    ) -> Rows {
        app.text.bold(title, x, y, menu_size, TITLE);
        let y = y + line_height(menu_size) * 1.5;
        let size = (menu_size * 0.85).round();
        let line = line_height(size);
        let rows = (((screen_height() - y) / line) as usize)
            .saturating_sub(reserved)
            .max(1);
        Rows {
            x,
            y,
            size,
            line,
            choice,
            first: choice.saturating_sub(rows - 1),
            rows,
        }
    }

    /// `name` cut to a column 20 characters wide, so that the columns after it stay in
    /// line.
    fn column(&self, name: &str) -> String {
        hud::fit(name, hud::width(&"x".repeat(20), self.size), self.size)
    }

    /// Row `i`, on the highlight band if it is the chosen one.
    fn row(&mut self, app: &App, i: usize, label: &str, color: Color) {
        if i == self.choice {
            highlight(self.x, self.y, screen_width(), self.size);
        }
        self.text(app, label, color);
    }

    /// A line of the list, cut to the window.
    fn text(&mut self, app: &App, label: &str, color: Color) {
        let fitted = hud::fit(label, screen_width() - 2.0 * self.x, self.size);
        app.text.draw(&fitted, self.x, self.y, self.size, color);
        self.y += self.line;
    }

    /// The list's help, a line below its last row.
    fn footer(&mut self, app: &App, help: &str) {
        self.y += self.line;
        self.text(app, help, DIM);
    }
}

/// The band behind the chosen row of a list whose text starts at `x` in a window `w` wide.
fn highlight(x: f32, y: f32, w: f32, size: f32) {
    let band = Color::new(0.3, 0.22, 0.1, 1.0);
    draw_rectangle(
        x - size * 0.5,
        y,
        w - 2.0 * x + size,
        line_height(size),
        band,
    );
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_entry_has_its_own_letter() {
        for (i, (_, letter, _)) in ENTRIES.iter().enumerate() {
            assert!(ENTRIES[..i].iter().all(|e| e.1 != *letter), "{letter}");
        }
    }

    #[test]
    fn the_highlight_goes_round_the_ends() {
        assert_eq!(moved(0, 3, Direction::S), 1);
        assert_eq!(moved(2, 3, Direction::S), 0);
        assert_eq!(moved(0, 3, Direction::N), 2);
        assert_eq!(moved(0, 0, Direction::N), 0);
    }
}
