//! `sandglass verify FILE.sgr|GAME...`: one line per replay, `ok` or where it went wrong;
//! with `--json`, one JSON object per line instead, for scripts.
//!
//! Each replay is checked in one fold (`Recording::check`): every draw regenerated from
//! the seed, every event legal where it stands, every hash checkpoint and the final hash.
//! A stored game is checked the same way, its snapshots' hashes standing in for the
//! checkpoints and its saved hash for the final hash.
//!
//! Many replays are checked at once, spread over every core (rayon; `RAYON_NUM_THREADS`
//! sets how many), each thread holding one replay at a time; the lines come out in the
//! order the replays were named.

use std::collections::BTreeMap;
use std::io::Write;
use std::path::Path;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Instant;

use rayon::prelude::*;
use sandglass_replay::verdict::{check, Verdict};
use sandglass_store::{sgr, GameMeta, SnapshotWarning, Stage, Store};

use super::progress::{file_label, Bar, Count};
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
    // Many replays are checked at once, one per core, each holding only its own log; one
    // alone gets a bar over its events instead of one over the replays.
    let count =
        (replays.len() > 1).then(|| Count::new("verify", replays.len() as u64, "replays checked"));
    let checked = AtomicU64::new(0);
    let results: Vec<Checked> = replays
        .par_iter()
        .map(|name| {
            let kind = Kind::of(name);
            let start = Instant::now();
            let mut bar = count.is_none().then(|| Bar::new(&label(name, kind), 0));
            let (verdict, warnings) = match (kind, &store) {
                (Kind::Game, Some(store)) => verify_game(name, store, &mut bar),
                _ => (verify_file(Path::new(name), &mut bar), vec![]),
            };
            drop(bar);
            if let Some(count) = &count {
                count.set(checked.fetch_add(1, Ordering::Relaxed) + 1);
            }
            Checked {
                verdict,
                warnings,
                ms: start.elapsed().as_secs_f64() * 1e3,
            }
        })
        .collect();
    drop(count);
    let mut failed = 0;
    let mut out = std::io::stdout().lock();
    for (name, checked) in replays.iter().zip(results) {
        warn(&checked.warnings);
        failed += usize::from(checked.verdict.failed());
        let line = match json {
            true => checked.verdict.json(name, Kind::of(name).name()),
            false => checked.verdict.text(name, Some(checked.ms)),
        };
        writeln!(out, "{line}")?;
    }
    out.flush()?;
    if failed > 0 {
        anyhow::bail!("{failed} of {} replays failed verification", replays.len());
    }
    Ok(())
}

/// What checking one replay came to, kept until its turn to be printed: the replays are
/// reported in the order they were named, whichever finished first.
struct Checked {
    verdict: Verdict,
    /// Snapshots skipped on the way, said on stderr before its line.
    warnings: Vec<SnapshotWarning>,
    /// How long the check took.
    ms: f64,
}

/// How a bar names a replay.
fn label(name: &str, kind: Kind) -> String {
    match kind {
        Kind::File => file_label(Path::new(name)),
        Kind::Game => name.to_owned(),
    }
}

/// Whether `name`, on the command line of `verify` or `replay`, is a replay file rather
/// than a saved game: it is written like a path (it holds a `/` or ends in `.sgr`, which
/// no game's name may), or it names something on disk (a file, but also a directory, a
/// device or a pipe, which reading refuses in words). A path that names nothing is then
/// refused as no file, not looked up as a game.
pub fn is_replay_file(name: &str) -> bool {
    name.contains('/') || name.ends_with(".sgr") || Path::new(name).exists()
}

fn verify_file(path: &Path, bar: &mut Option<Bar>) -> Verdict {
    match sgr::read(path) {
        Ok(file) => {
            if let Some(bar) = bar {
                bar.set_len(file.events.len() as u64);
            }
            check(&file, "the file", |at| checking(bar, at))
        }
        Err(error) => Verdict::Fail {
            at: None,
            what: error.to_string(),
        },
    }
}

fn open_store(data_dir: Option<&Path>) -> Result<Games, String> {
    let dir = data_dir_or_default(data_dir).map_err(|e| format!("{e:#}"))?;
    let store = super::progress::open_store(&dir).map_err(|e| e.to_string())?;
    let by_name = store.games().map_err(|e| e.to_string())?;
    let by_name = by_name.into_iter().map(|m| (m.name.clone(), m)).collect();
    Ok(Games { store, by_name })
}

/// The store, and its games by name, read once: finding each of many games named on the
/// command line in the store's list would read the list once for each.
struct Games {
    store: Store,
    by_name: BTreeMap<String, GameMeta>,
}

fn verify_game(
    name: &str,
    games: &Result<Games, String>,
    bar: &mut Option<Bar>,
) -> (Verdict, Vec<SnapshotWarning>) {
    let fail = |what: String| (Verdict::Fail { at: None, what }, vec![]);
    let games = match games {
        Ok(games) => games,
        Err(what) => return fail(what.clone()),
    };
    // A name first, then a number (`Store::find`), which also says what is wrong with a
    // game whose record is damaged.
    let meta = match games.by_name.get(name) {
        Some(meta) => meta.clone(),
        None => match games.store.find(name) {
            Ok(meta) => meta,
            Err(error) => return fail(error.to_string()),
        },
    };
    if let Some(bar) = bar {
        bar.set_len(meta.events);
    }
    let mut progress = |stage, at| {
        if let Some(bar) = bar.as_mut() {
            bar.at(stage, at)
        }
    };
    match games.store.recording(meta.id, &mut progress) {
        Ok((file, warnings)) => (
            check(&file, "the game's snapshot", |at| checking(bar, at)),
            warnings,
        ),
        Err(error) => fail(error.to_string()),
    }
}

/// Moves a replay's bar, if it has one, to event `at` of the check.
fn checking(bar: &mut Option<Bar>, at: u64) {
    if let Some(bar) = bar {
        bar.at(Stage::Checking, at)
    }
}
