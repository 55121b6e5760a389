//! Saved games from the command line: `bot`, `saves`, `save-as`, `delete`, `export`,
//! `import` and `dump`. Glue over `sandglass_store`, which owns the storage and its errors.

use std::io::Write;
use std::path::{Path, PathBuf};

use anyhow::Context;
use clap::{Args, Subcommand};
use sandglass_sim::bot::Bot;
use sandglass_sim::drive::Game;
use sandglass_sim::{Command, Header, Rules, State};
use sandglass_store::{now, sgr, Branch, GameMeta, PlayError, Session, Store, StoreError};

use super::progress::{file_label, open_store, with_bar};
use super::verify::is_replay_file;
use super::{data_dir_or_default, utc, warn, RulesetArg};
use crate::morgue;
use crate::tally::Tally;

#[derive(Subcommand)]
pub enum GamesCmd {
    /// Let the bot play a saved game. Prints `game ID`, then `ack K` once the game's
    /// command K (counting from 1) is on disk, then `morgue FILE` if the game ended and
    /// its morgue was written, then `hash 0x<16 hex digits>`, the final state hash.
    Bot(BotArgs),
    /// List the saved games.
    Saves {
        /// One JSON object per line per game, for scripts.
        #[arg(long)]
        json: bool,
    },
    /// Fork a game: the new one shares its history and goes on on its own.
    SaveAs {
        /// A game's name or number.
        game: String,
        new_name: String,
    },
    /// Delete a game.
    Delete {
        /// A game's name or number.
        game: String,
    },
    /// Write a game to a replay file.
    Export {
        /// A game's name or number.
        game: String,
        file: PathBuf,
    },
    /// Store a replay file as a new game, after checking it.
    Import {
        file: PathBuf,
        /// The new game's name (default: the file's name, made unique).
        #[arg(long)]
        name: Option<String>,
    },
    /// Write a game's morgue: how it stands (or how it ended), the camel, its bags, kills
    /// and last messages, and the level as the camel saw it, in plain text, folded from
    /// the log at any turn. A game that ends gets one by itself, in DATA_DIR/morgue/.
    Dump {
        /// A saved game (a name or a number) or a replay file (a name that holds a `/` or
        /// ends in `.sgr`).
        #[arg(value_name = "GAME|FILE.sgr")]
        game: String,
        /// The moment to dump: when the camel is first to act on this turn or later
        /// (default: the end of the log).
        #[arg(long, value_name = "N")]
        turn: Option<u64>,
        /// Write the dump to this file (default: standard output).
        #[arg(long, value_name = "FILE")]
        out: Option<PathBuf>,
    },
}

#[derive(Args)]
pub struct BotArgs {
    /// The bot's seed; also the new game's seed unless --game-seed is given.
    #[arg(long)]
    seed: u64,
    /// Play at most this many commands; the bot stops early when the game ends.
    #[arg(long)]
    commands: u64,
    #[arg(long, default_value = "nethack", conflicts_with = "game")]
    ruleset: RulesetArg,
    #[arg(long, conflicts_with = "game")]
    game_seed: Option<u64>,
    /// The new game's name (default: bot-SEED, made unique).
    #[arg(long, conflicts_with = "game")]
    name: Option<String>,
    /// Go on with this saved game (a name or a number) instead of starting one.
    #[arg(long)]
    game: Option<String>,
}

pub fn run(cmd: GamesCmd, data_dir: Option<&Path>) -> anyhow::Result<()> {
    let dir = data_dir_or_default(data_dir)?;
    match cmd {
        GamesCmd::Dump { game, turn, out } => dump(&dir, &game, turn, out.as_deref()),
        GamesCmd::Bot(args) => bot(&dir, args),
        GamesCmd::Saves { json } => saves(&dir, json),
        GamesCmd::SaveAs { game, new_name } => {
            let store = open_store(&dir)?;
            let source = store.find(&game)?;
            let (fork, warnings) = store.fork(source.id, &new_name, source.events)?;
            warn(&warnings);
            writeln!(
                std::io::stdout(),
                "Saved `{}` as `{}` (game {}).",
                source.name,
                fork.name,
                fork.id
            )?;
            Ok(())
        }
        GamesCmd::Delete { game } => {
            let store = open_store(&dir)?;
            let meta = store.find(&game)?;
            store.delete(meta.id)?;
            // The room of games deleted is given back as the store opens, once they add up
            // to as much as it holds: open it again now rather than at the next command.
            if store.has_room_to_give_back()? {
                drop(store);
                open_store(&dir)?;
            }
            writeln!(
                std::io::stdout(),
                "Deleted `{}` (game {}).",
                meta.name,
                meta.id
            )?;
            Ok(())
        }
        GamesCmd::Export { game, file } => {
            let store = open_store(&dir)?;
            let meta = store.find(&game)?;
            let replay = with_bar(&meta.name, meta.events, |progress| {
                store.export(meta.id, progress)
            })?;
            sgr::write(&replay, &file)
                .with_context(|| format!("cannot export to {}", file.display()))?;
            writeln!(
                std::io::stdout(),
                "Exported `{}` to {} ({} events).",
                meta.name,
                file.display(),
                replay.events.len()
            )?;
            Ok(())
        }
        GamesCmd::Import { file, name } => {
            let context = || format!("cannot import {}", file.display());
            // Read and check the file before touching the database.
            let replay = sgr::read(&file).with_context(context)?;
            let store = open_store(&dir)?;
            let name = match name {
                Some(name) => name,
                None => {
                    let stem = file.file_stem().unwrap_or_default().to_string_lossy();
                    store.free_name(&stem)?
                }
            };
            let meta = with_bar(&file_label(&file), replay.events.len() as u64, |progress| {
                store.import(&replay, &name, progress)
            })
            .with_context(context)?;
            writeln!(
                std::io::stdout(),
                "Imported {} as `{}` (game {}).",
                file.display(),
                meta.name,
                meta.id
            )?;
            Ok(())
        }
    }
}

fn bot(dir: &Path, args: BotArgs) -> anyhow::Result<()> {
    let store = open_store(dir)?;
    let session = match &args.game {
        Some(game) => store.resume(store.find(game)?.id)?,
        None => {
            let name = match &args.name {
                Some(name) => name.clone(),
                None => store.free_name(&format!("bot-{}", args.seed))?,
            };
            let seed = args.game_seed.unwrap_or(args.seed);
            let header = Header::new(seed, args.ruleset.0, now());
            store.create(&name, header, &mut ())?
        }
    };
    warn(session.warnings());
    let mut game = Acknowledged {
        session,
        out: std::io::stdout().lock(),
    };
    // Each line is flushed at once: whoever reads it may kill this process any moment.
    let id = game.session.meta().id;
    game.say(format_args!("game {id}"))?;
    Bot::new(args.seed).play(&mut game, args.commands)?;
    if game.session.state().outcome().is_some() {
        // The game is saved whatever becomes of its morgue: a morgue not written is a
        // warning, not a failure.
        match morgue::write(&store, game.session.meta()) {
            Ok(path) => game.say(format_args!("morgue {}", path.display()))?,
            Err(error) => super::say_on_stderr(&format!("warning: {error:#}")),
        }
    }
    let hash = game.session.state().hash();
    game.say(format_args!("hash 0x{hash:016x}"))?;
    Ok(())
}

/// A saved game that says `ack K` on stdout once its command K is on disk.
struct Acknowledged<W: Write> {
    session: Session,
    out: W,
}

impl<W: Write> Acknowledged<W> {
    /// A line on stdout; one that cannot be printed stops the bot, saying so (the
    /// command it acknowledges is saved all the same).
    fn say(&mut self, line: std::fmt::Arguments) -> anyhow::Result<()> {
        writeln!(self.out, "{line}")
            .and_then(|()| self.out.flush())
            .context("cannot print to standard output")
    }
}

impl<W: Write> Game for Acknowledged<W> {
    type Error = anyhow::Error;

    fn state(&self) -> &State {
        self.session.state()
    }

    fn play(&mut self, command: Command) -> anyhow::Result<()> {
        self.session
            .play(command)
            .map_err(|e: PlayError| anyhow::anyhow!(e))?;
        let commands = self.session.meta().commands;
        self.say(format_args!("ack {commands}"))?;
        Ok(())
    }
}

/// `sandglass dump`: a stored game's or a replay file's morgue at `turn`, folded from
/// its log.
fn dump(dir: &Path, game: &str, turn: Option<u64>, out: Option<&Path>) -> anyhow::Result<()> {
    let (name, header, events) = if is_replay_file(game) {
        let path = Path::new(game);
        let replay = sgr::read(path).with_context(|| format!("cannot dump {game}"))?;
        (file_label(path), replay.header, replay.events)
    } else {
        let store = open_store(dir)?;
        let meta = store.find(game)?;
        let events = store.events(meta.id)?;
        (morgue::title(&meta), meta.header, events)
    };
    let mut tally = Tally::default();
    let rules = Rules::of(&header).with_context(|| format!("cannot dump {name}"))?;
    let state = morgue::fold_to_turn(rules, &events, turn, &mut tally)
        .with_context(|| format!("cannot dump {name}"))?;
    let text = morgue::text(&name, &header, &state, &tally);
    match out {
        Some(file) => std::fs::write(file, text)
            .with_context(|| format!("cannot write {}", file.display()))?,
        None => std::io::stdout()
            .write_all(text.as_bytes())
            .context("cannot print to standard output")?,
    }
    Ok(())
}

fn saves(dir: &Path, json: bool) -> anyhow::Result<()> {
    let store = open_store(dir)?;
    let games = store.games()?;
    // A damaged record hides its own game only: the others are listed, and it is named.
    for damaged in store.damaged_records()? {
        super::say_on_stderr(&format!("warning: {damaged}"));
    }
    let empty = format!("No saved games in {}.", dir.display());
    super::print_listing(&listed(&store, games)?, json, json_line, table, &empty)?;
    Ok(())
}

/// `games` as `saves` lists them, each with where it came from if it is a branch.
fn listed(store: &Store, games: Vec<GameMeta>) -> Result<Vec<Listed>, StoreError> {
    games
        .into_iter()
        .map(|meta| {
            let branch = store.branch_of(&meta)?;
            Ok(Listed { meta, branch })
        })
        .collect()
}

/// A game as `saves` lists it: its record, and where it came from if it is a branch.
struct Listed {
    meta: GameMeta,
    branch: Option<Branch>,
}

/// Hashes are strings: JSON readers often hold numbers as doubles, exact only to 2^53.
fn json_line(Listed { meta, branch }: &Listed) -> String {
    let mut line = serde_json::json!({
        "id": meta.id.0,
        "name": meta.name,
        "status": meta.status.name(),
        "depth": meta.depth,
        "turns": meta.turns,
        "commands": meta.commands,
        "events": meta.events,
        "hash": format!("0x{:016x}", meta.last_hash),
        "seed": meta.header.seed,
        "ruleset": meta.header.ruleset.name(),
        "rules_version": meta.header.rules_version,
        "playable": meta.rules().is_ok(),
        "created": meta.created,
        "last_played": meta.last_played,
    });
    // Only for a branch, so that a listing of games played from their start reads as
    // it always has.
    if let Some(branch) = branch {
        line["branch_of"] = branch.from.clone().into();
        line["branch_turn"] = branch.turn.into();
    }
    line.to_string()
}

fn table(games: &[Listed]) -> String {
    let header = [
        "ID",
        "NAME",
        "STATUS",
        "DEPTH",
        "TURNS",
        "EVENTS",
        "RULES",
        "SEED",
        "LAST PLAYED",
        "BRANCH",
    ];
    let rows: Vec<[String; 10]> = games
        .iter()
        .map(|Listed { meta: m, branch }| {
            [
                m.id.to_string(),
                m.name.clone(),
                m.status.name().to_owned(),
                m.depth.to_string(),
                m.turns.to_string(),
                m.events.to_string(),
                super::rules_label(m.header.rules_version),
                m.header.seed.to_string(),
                utc(m.last_played),
                branch.as_ref().map(Branch::to_string).unwrap_or_default(),
            ]
        })
        .collect();
    super::columns(header, &rows)
}

#[cfg(test)]
mod tests {
    use super::*;
    use sandglass_sim::Ruleset;

    #[test]
    fn the_table_lines_up_its_columns() {
        let dir = tempfile::tempdir().unwrap();
        let store = Store::open(dir.path()).unwrap();
        let header = Header::new(7, Ruleset::CLASSIC, 0);
        store.create("a camel", header.clone(), &mut ()).unwrap();
        store.create("b", header, &mut ()).unwrap();
        let text = table(&listed(&store, store.games().unwrap()).unwrap());
        let lines: Vec<&str> = text.lines().collect();
        assert_eq!(lines.len(), 3);
        let status_at = lines[0].find("STATUS").unwrap();
        assert_eq!(&lines[1][status_at..status_at + 5], "alive");
        assert_eq!(&lines[2][status_at..status_at + 5], "alive");
    }

    /// A game's seed is in both listings, so that it can be shared and played again
    /// with `sandglass play --seed`.
    #[test]
    fn saves_show_each_games_seed() {
        let dir = tempfile::tempdir().unwrap();
        let store = Store::open(dir.path()).unwrap();
        let seed = crate::seed::seed_of("camel").unwrap();
        let header = Header::new(seed, Ruleset::CLASSIC, 0);
        store.create("shared", header, &mut ()).unwrap();
        let games = listed(&store, store.games().unwrap()).unwrap();
        let text = table(&games);
        let lines: Vec<&str> = text.lines().collect();
        let seed_at = lines[0].find("SEED").unwrap();
        assert!(
            lines[1][seed_at..].starts_with(&format!("{seed} ")),
            "{text}"
        );
        let json: serde_json::Value = serde_json::from_str(&json_line(&games[0])).unwrap();
        assert_eq!(json["seed"], seed);
        assert_eq!(json.get("branch_of"), None);
    }

    /// A game taken over from a replay, of a stored game or of a file, is listed as a
    /// branch, with where it came from.
    #[test]
    fn saves_show_where_a_branch_came_from() {
        let dir = tempfile::tempdir().unwrap();
        let store = Store::open(dir.path()).unwrap();
        let rules = sandglass_sim::Rules::newest(Ruleset::CLASSIC);
        let tape = sandglass_sim::bot::Bot::new(3).record(rules, 3, 40);
        let whole = store
            .create_from_tape("whole", &tape.header, &tape.events, &mut |_, _| ())
            .unwrap();
        let forked = store.fork(whole.id, "forked", whole.events).unwrap().0;
        let from_file = store
            .take_over_file(
                "taken",
                &tape.header,
                &tape.events,
                "run.sgr",
                &mut |_, _| (),
            )
            .unwrap();
        let games = listed(&store, store.games().unwrap()).unwrap();
        let text = table(&games);
        let line = |name: &str| text.lines().find(|l| l.contains(name)).unwrap().to_owned();
        assert!(line("whole").trim_end().ends_with("UTC"), "{text}");
        let turn = whole.turns;
        assert!(
            line("forked").ends_with(&format!("from turn {turn} of whole")),
            "{text}"
        );
        assert!(
            line("taken").ends_with(&format!("from turn {turn} of run.sgr")),
            "{text}"
        );
        let json: serde_json::Value = serde_json::from_str(&json_line(&games[2])).unwrap();
        assert_eq!(json["name"], "taken");
        assert_eq!(json["branch_of"], "run.sgr");
        assert_eq!(json["branch_turn"], turn);
        assert_eq!((forked.turns, from_file.turns), (turn, turn));
    }
}
