//! Helpers for the tests that run the real `sandglass` binary.
//!
//! These files live with the workspace's integration tests but are test targets of the
//! `sandglass` package (see client/Cargo.toml): only for its own tests does cargo build
//! the binary first, fresh, and say where it is.

#![allow(dead_code)] // each test file uses its own share of these

use std::path::Path;
use std::process::{Command, Output};

use sandglass_store::{GameId, Store};

pub mod live;
pub mod xvfb;
pub mod xwindow;

pub const BIN: &str = env!("CARGO_BIN_EXE_sandglass");

/// Waits until `done`, looking again every 50 ms; fails naming `what` once `patience` is
/// over. A test waits for a condition, never for a time a quiet machine happens to need.
pub fn wait_until(what: &str, patience: std::time::Duration, mut done: impl FnMut() -> bool) {
    let start = std::time::Instant::now();
    while !done() {
        assert!(start.elapsed() < patience, "waited {patience:?} for {what}");
        std::thread::sleep(std::time::Duration::from_millis(50));
    }
}

/// `sandglass ARGS --data-dir DIR`, run to completion.
pub fn sandglass(dir: &Path, args: &[&str]) -> Output {
    Command::new(BIN)
        .args(args)
        .arg("--data-dir")
        .arg(dir)
        .output()
        .expect("the sandglass binary runs")
}

pub fn stdout(output: &Output) -> String {
    String::from_utf8_lossy(&output.stdout).into_owned()
}

/// A bot game of up to `commands` commands; returns its number.
pub fn bot_game(dir: &Path, seed: u64, commands: u64) -> GameId {
    let seed = seed.to_string();
    let commands = commands.to_string();
    let output = sandglass(dir, &["bot", "--seed", &seed, "--commands", &commands]);
    assert!(output.status.success(), "{output:?}");
    let text = stdout(&output);
    let id = text
        .lines()
        .next()
        .and_then(|line| line.strip_prefix("game "))
        .and_then(|id| id.parse().ok())
        .unwrap_or_else(|| panic!("no `game ID` line first in {text:?}"));
    let last = text.lines().last().unwrap_or_default();
    assert!(
        last.starts_with("hash 0x") && last.len() == "hash 0x".len() + 16,
        "{last:?}"
    );
    GameId(id)
}

/// The failure shape every refused operation must have: a non-zero exit and exactly one
/// line on stderr, which mentions `needle`.
pub fn assert_clear_error(output: &Output, needle: &str) {
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(!output.status.success(), "succeeded: {output:?}");
    assert_eq!(stderr.lines().count(), 1, "not one line: {stderr:?}");
    assert!(stderr.starts_with("sandglass: "), "{stderr:?}");
    assert!(
        stderr.contains(needle),
        "{stderr:?} does not mention {needle:?}"
    );
}

/// What the games of `dir` look like from outside (`saves --json`); also checks that
/// every one of them loads whole and folds to the hash it was saved at, where its record
/// holds the hash of its last event.
pub fn games_in(dir: &Path) -> String {
    {
        let store = Store::open(dir).expect("the data directory opens");
        for meta in store.games().expect("the games list") {
            let loaded = store
                .load(meta.id)
                .unwrap_or_else(|e| panic!("game {} does not load: {e}", meta.id));
            assert!(loaded.warnings.is_empty(), "{:?}", loaded.warnings);
            match meta.final_hash() {
                Some(hash) => assert_eq!(loaded.state.hash(), hash),
                // Play stopped before its hash could be taken (a disk that filled as the
                // game ended): the record holds an earlier one (`GameMeta::hashed`), the
                // next open with room takes it, and meanwhile the whole log loads.
                None => assert_eq!(loaded.state.events_folded(), meta.events),
            }
        }
    }
    let output = sandglass(dir, &["saves", "--json"]);
    assert!(output.status.success(), "{output:?}");
    stdout(&output)
}

/// Each stored game as `saves --json` lists it, or why `saves` failed: the view of a
/// directory a fault test compares before and after.
pub fn saves(dir: &Path) -> Result<Vec<serde_json::Value>, String> {
    let output = sandglass(dir, &["saves", "--json"]);
    if !output.status.success() {
        return Err(format!("saves failed: {output:?}"));
    }
    Ok(stdout(&output)
        .lines()
        .map(|line| serde_json::from_str(line).unwrap())
        .collect())
}

/// Each stored game's name, commands and saved hash, by name (`saves`).
pub fn games(dir: &Path) -> Result<Vec<(String, u64, String)>, String> {
    Ok(summary(&saves(dir)?))
}

/// Each game of a `saves` listing as its name, commands and saved hash, by name.
pub fn summary(listed: &[serde_json::Value]) -> Vec<(String, u64, String)> {
    let mut games: Vec<(String, u64, String)> = listed
        .iter()
        .map(|game| {
            let name = game["name"].as_str().unwrap().to_owned();
            let hash = game["hash"].as_str().unwrap().to_owned();
            (name, game["commands"].as_u64().unwrap(), hash)
        })
        .collect();
    games.sort();
    games
}

/// The data directory's sled database itself, opened as a tool that edits it by hand
/// would, waiting as `Store::open` does for a store closed a moment ago to let go of it.
pub fn raw_sled(dir: &Path) -> sled::Db {
    let deadline = std::time::Instant::now() + sandglass_store::LOCK_WAIT;
    loop {
        match sled::open(dir) {
            Ok(db) => return db,
            Err(e) if std::time::Instant::now() < deadline => {
                assert!(e.to_string().contains("lock"), "{e}");
                std::thread::sleep(std::time::Duration::from_millis(10));
            }
            Err(e) => panic!("sled cannot open {}: {e}", dir.display()),
        }
    }
}

/// One game's entries in a tree of the database keyed by game and event index (`steps`,
/// `snapshots`: layout 3 keys them by the game's number and the event's index, both
/// big-endian `u64`), first to last.
pub fn entries_of(tree: &sled::Tree, id: GameId) -> Vec<(sled::IVec, sled::IVec)> {
    let from = [id.0.to_be_bytes(), [0; 8]].concat();
    let to = [id.0.to_be_bytes(), [0xff; 8]].concat();
    tree.range(from..=to).map(Result::unwrap).collect()
}

/// Whether `tool` can be run; if not, says so and lets the test pass, except under CI,
/// whose `.ci/run` installs `package`.
pub fn have(tool: &str, package: &str) -> bool {
    let found = Command::new(tool).arg("--help").output().is_ok();
    if !found {
        assert!(
            std::env::var_os("CI").is_none(),
            "{tool} is missing: .ci/run installs {package}"
        );
        eprintln!("skipped: {tool} is missing (install {package} to run this test)");
    }
    found
}

/// `sandglass saves` on `dir` under strace, killed at the `nth` call of one of `calls`.
/// Returns whether it was killed (the call came) or ran to its end.
pub fn saves_killed_at(dir: &Path, calls: &str, nth: u32) -> bool {
    let output = Command::new("strace")
        .args(["-f", "-qq", "-o", "/dev/null"])
        .arg(format!("--inject={calls}:signal=KILL:when={nth}"))
        .arg(BIN)
        .args(["saves", "--data-dir"])
        .arg(dir)
        .output()
        .expect("strace runs");
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(!stderr.contains("panicked"), "{stderr}");
    !output.status.success()
}

/// A `saves --json` listing without what branches add to it (`branch_of`,
/// `branch_turn`): as builds listed games before branches were listed.
pub fn without_branches(listing: &str) -> String {
    listing
        .lines()
        .map(|line| {
            let mut game: serde_json::Value = serde_json::from_str(line).unwrap();
            let fields = game.as_object_mut().unwrap();
            fields.remove("branch_of");
            fields.remove("branch_turn");
            game.to_string() + "\n"
        })
        .collect()
}
