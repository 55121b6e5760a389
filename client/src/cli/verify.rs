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

use sandglass_sim::{CheckError, Event, Recording};
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

/// What one replay came to.
enum Verdict {
    Ok {
        events: u64,
        /// Of the events, how many are commands; the rest are draws.
        commands: u64,
        hash: u64,
        rules_version: u16,
    },
    /// Where it went wrong, when that is an event, and what differed.
    Fail { at: Option<u64>, what: String },
}

impl Verdict {
    /// The line `sandglass verify` prints for it; `ms` is how long the check took.
    fn text(&self, name: &str, ms: f64) -> String {
        match self {
            Verdict::Ok { events, hash, .. } => {
                format!("ok {name} events={events} hash=0x{hash:016x} time={ms:.1}ms")
            }
            Verdict::Fail { at: Some(at), what } => format!("FAIL {name} at event {at}: {what}"),
            Verdict::Fail { at: None, what } => format!("FAIL {name}: {what}"),
        }
    }

    /// The line `sandglass verify --json` prints for it. The time is left out, so that the
    /// same replays always give the same lines; the hash is a string, as in `saves --json`,
    /// since JSON readers often hold numbers as doubles, exact only to 2^53.
    fn json(&self, name: &str, kind: Kind) -> String {
        let kind = kind.name();
        let line = match self {
            Verdict::Ok {
                events,
                commands,
                hash,
                rules_version,
            } => serde_json::json!({
                "replay": name,
                "kind": kind,
                "ok": true,
                "rules_version": rules_version,
                "events": events,
                "commands": commands,
                "draws": events - commands,
                "hash": format!("0x{hash:016x}"),
            }),
            Verdict::Fail { at, what } => serde_json::json!({
                "replay": name,
                "kind": kind,
                "ok": false,
                "error": what,
                "event": at,
            }),
        };
        line.to_string()
    }

    fn failed(&self) -> bool {
        matches!(self, Verdict::Fail { .. })
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
            true => verdict.json(name, kind),
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
            check(&file, "the file", &mut bar)
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
            check(&file, "the game's snapshot", &mut bar)
        }
        Err(error) => fail(error.to_string()),
    }
}

/// `checkpoint` names what recorded the hashes along the way, for the message.
fn check(file: &Recording, checkpoint: &str, bar: &mut Bar) -> Verdict {
    let checked = file.check(&mut (), u64::MAX, |state| {
        bar.at(Stage::Checking, state.events_folded())
    });
    let error = match checked {
        Ok(state) => {
            let commands = file
                .events
                .iter()
                .filter(|e| matches!(e, Event::Command(_)));
            return Verdict::Ok {
                events: state.events_folded(),
                commands: commands.count() as u64,
                hash: state.hash(),
                rules_version: file.header.rules_version,
            };
        }
        Err(error) => error,
    };
    match error {
        CheckError::Fold(fold) => Verdict::Fail {
            at: Some(fold.index.0),
            what: fold.kind.to_string(),
        },
        CheckError::Desync {
            index,
            expected,
            found,
        } => {
            let recorder = if index == file.events.len() as u64 {
                "the final hash"
            } else {
                checkpoint
            };
            Verdict::Fail {
                at: Some(index),
                what: format!(
                    "the state hash after {index} events is 0x{found:016x}, but {recorder} recorded 0x{expected:016x}"
                ),
            }
        }
        other => Verdict::Fail {
            at: None,
            what: other.to_string(),
        },
    }
}
