//! `sandglass verify FILE.sgr|GAME...`: one line per replay, `ok` or where it went wrong;
//! with `--json`, one JSON object per line instead, for scripts.
//!
//! Each replay is checked in one fold (`Recording::check`): every draw regenerated from
//! the seed, every event legal where it stands, every hash checkpoint and the final hash.
//! A stored game is checked the same way, its snapshots' hashes standing in for the
//! checkpoints and its saved hash for the final hash.

use std::io::Write;
use std::path::Path;
use std::time::Instant;

use sandglass_replay::verdict::{check, Verdict};
use sandglass_store::{sgr, Stage, Store};

use super::progress::{file_label, Bar};
use super::{data_dir_or_default, warn};

/// Where a replay comes from.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Kind {
    File,
    Game,
}

impl Kind {
    fn of(name: &str) -> Kind {
        if is_replay_file(name) {
            Kind::File
        } else {
            Kind::Game
        }
    }

    fn name(self) -> &'static str {
        match self {
            Kind::File => "file",
            Kind::Game => "game",
        }
    }
}

pub fn run(replays: &[String], data_dir: Option<&Path>, json: bool) -> anyhow::Result<()> {
    // Opened only if a game is named: files need no data directory.
    let store = replays
        .iter()
        .any(|name| Kind::of(name) == Kind::Game)
        .then(|| open_store(data_dir));
    let mut failed = 0;
    let mut out = std::io::stdout().lock();
    for name in replays {
        let kind = Kind::of(name);
        let start = Instant::now();
        let verdict = match (kind, &store) {
            (Kind::Game, Some(store)) => verify_game(name, store),
            _ => verify_file(Path::new(name)),
        };
        let ms = start.elapsed().as_secs_f64() * 1e3;
        failed += usize::from(verdict.failed());
        let line = match json {
            true => verdict.json(name, kind.name()),
            false => verdict.text(name, ms),
        };
        writeln!(out, "{line}")?;
        out.flush()?;
    }
    if failed > 0 {
        anyhow::bail!("{failed} of {} replays failed verification", replays.len());
    }
    Ok(())
}

/// Whether `name`, on the command line of `verify` or `replay`, is a replay file rather
/// than a saved game: it is written like a path (it holds a `/` or ends in `.sgr`, which
/// no game's name may), or it names something on disk (a file, but also a directory, a
/// device or a pipe, which reading refuses in words). A path that names nothing is then
/// refused as no file, not looked up as a game.
pub fn is_replay_file(name: &str) -> bool {
    name.contains('/') || name.ends_with(".sgr") || Path::new(name).exists()
}

fn verify_file(path: &Path) -> Verdict {
    match sgr::read(path) {
        Ok(file) => {
            let mut bar = Bar::new(&file_label(path), file.events.len() as u64);
            check(&file, "the file", |at| bar.at(Stage::Checking, at))
        }
        Err(error) => Verdict::Fail {
            at: None,
            what: error.to_string(),
        },
    }
}

fn open_store(data_dir: Option<&Path>) -> Result<Store, String> {
    let dir = data_dir_or_default(data_dir).map_err(|e| format!("{e:#}"))?;
    Store::open(&dir).map_err(|e| e.to_string())
}

fn verify_game(name: &str, store: &Result<Store, String>) -> Verdict {
    let fail = |what: String| Verdict::Fail { at: None, what };
    let store = match store {
        Ok(store) => store,
        Err(what) => return fail(what.clone()),
    };
    let meta = match store.find(name) {
        Ok(meta) => meta,
        Err(error) => return fail(error.to_string()),
    };
    let mut bar = Bar::new(name, meta.events);
    match store.recording(meta.id, &mut |stage, at| bar.at(stage, at)) {
        Ok((file, warnings)) => {
            bar.suspend(|| warn(&warnings));
            check(&file, "the game's snapshot", |at| {
                bar.at(Stage::Checking, at)
            })
        }
        Err(error) => fail(error.to_string()),
    }
}
