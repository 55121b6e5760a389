//! `sandglass verify` through the real binary: one `ok` line per sound replay, file or
//! saved game; for a tampered one a `FAIL` line naming the event where it went wrong and
//! what differed, and a non-zero exit. With `--json`, the same verdicts as JSON lines.

mod common;

use std::fs;
use std::path::{Path, PathBuf};
use std::process::Command;

use common::{bot_game, sandglass, stdout, BIN};
use sandglass_sim::rules;
use sandglass_sim::Event;
use sandglass_store::sgr;
use serde_json::{json, Value};

/// A data directory holding the game `bot-11`, exported to `game.sgr` beside it.
fn setup() -> (tempfile::TempDir, PathBuf, PathBuf) {
    let root = tempfile::tempdir().unwrap();
    let dir = root.path().join("data");
    // Played to its end: long enough to hold hash checkpoints.
    bot_game(&dir, 11, 5_000);
    let file = root.path().join("game.sgr");
    let output = sandglass(&dir, &["export", "bot-11", file.to_str().unwrap()]);
    assert!(output.status.success(), "{output:?}");
    (root, dir, file)
}

fn verify(dir: &Path, replays: &[&str]) -> std::process::Output {
    let mut args = vec!["verify"];
    args.extend(replays);
    sandglass(dir, &args)
}

/// Checks an `ok NAME events=N hash=0x... time=...ms` line and returns its hash.
fn ok_line<'l>(line: &'l str, name: &str, events: usize) -> &'l str {
    let rest = line
        .strip_prefix(&format!("ok {name} events={events} hash="))
        .unwrap_or_else(|| panic!("{line:?}"));
    let (hash, time) = rest.split_once(' ').unwrap();
    assert!(hash.starts_with("0x") && hash.len() == 18, "{line:?}");
    let ms = time
        .strip_prefix("time=")
        .and_then(|t| t.strip_suffix("ms"));
    assert!(ms.is_some_and(|ms| ms.parse::<f64>().is_ok()), "{line:?}");
    hash
}

#[test]
fn sound_files_and_saved_games_each_get_an_ok_line() {
    let (_root, dir, file) = setup();
    let path = file.to_str().unwrap();
    let replay = sgr::read(&file).unwrap();
    let output = verify(&dir, &[path, "bot-11"]);
    assert!(output.status.success(), "{output:?}");
    let text = stdout(&output);
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(lines.len(), 2, "{text}");
    let expected = format!("0x{:016x}", replay.final_hash);
    assert_eq!(ok_line(lines[0], path, replay.events.len()), expected);
    assert_eq!(ok_line(lines[1], "bot-11", replay.events.len()), expected);
}

/// Every golden of every kept rules version verifies through the binary, each under
/// its own rules.
#[test]
fn every_golden_replay_verifies() {
    let replays = Path::new(env!("CARGO_MANIFEST_DIR")).join("../replays");
    let mut files: Vec<String> = vec![];
    for version in rules::KEPT {
        let folder = replays.join(format!("v{version}"));
        files.extend(
            fs::read_dir(&folder)
                .unwrap()
                .map(|e| e.unwrap().path().to_string_lossy().into_owned())
                .filter(|p| p.ends_with(".sgr")),
        );
    }
    files.sort();
    let output = Command::new(BIN)
        .arg("verify")
        .args(&files)
        .output()
        .unwrap();
    let text = stdout(&output);
    assert!(
        output.status.success(),
        "{text}\nA kept golden is never re-recorded: a rules change is a new rules version."
    );
    assert_eq!(text.lines().count(), files.len());
    for (line, file) in text.lines().zip(&files) {
        assert!(line.starts_with(&format!("ok {file} ")), "{line}");
    }
}

/// A copy of `file` as `bad.sgr` beside it, one draw in the middle changed: the file still
/// reads (`to_bytes` recomputes the checksum), and only the fold can tell. Returns its
/// path, the draw's index and the message that draw must fail with.
fn with_a_changed_draw(file: &Path) -> (String, usize, String) {
    let mut replay = sgr::read(file).unwrap();
    let at = replay.events.len() / 2;
    let at = (at..)
        .find(|&i| matches!(replay.events[i], Event::Draw(_)))
        .unwrap();
    let Event::Draw(expected) = replay.events[at] else {
        unreachable!()
    };
    let found = expected ^ 0x0001_0000;
    replay.events[at] = Event::Draw(found);
    let bad = file.with_file_name("bad.sgr");
    fs::write(&bad, sgr::to_bytes(&replay)).unwrap();
    let what = format!("draw {found:#010x} differs from the generator's {expected:#010x}");
    (bad.to_str().unwrap().to_owned(), at, what)
}

#[test]
fn a_changed_draw_is_reported_at_exactly_its_index() {
    let (_root, dir, file) = setup();
    let (bad, at, what) = with_a_changed_draw(&file);
    let output = verify(&dir, &[file.to_str().unwrap(), &bad]);
    assert!(!output.status.success());
    let text = stdout(&output);
    let lines: Vec<&str> = text.lines().collect();
    assert!(lines[0].starts_with("ok "), "{text}");
    assert_eq!(lines[1], format!("FAIL {bad} at event {at}: {what}"));
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(
        stderr.trim(),
        "sandglass: 1 of 2 replays failed verification"
    );
}

#[test]
fn a_replay_under_other_rules_is_refused_naming_both_versions() {
    let (root, dir, file) = setup();
    let mut replay = sgr::read(&file).unwrap();
    let newer = rules::NEWEST + 1;
    replay.header.rules_version = newer;
    let other = root.path().join("other.sgr");
    fs::write(&other, sgr::to_bytes(&replay)).unwrap();
    let other = other.to_str().unwrap();
    let output = verify(&dir, &[other]);
    assert!(!output.status.success());
    assert_eq!(
        stdout(&output).trim(),
        format!(
            "FAIL {other}: recorded under rules version {newer}, newer than this build, which \
             plays rules versions {} to {}: a newer Sandglass plays it",
            rules::KEPT[0],
            rules::NEWEST
        )
    );
}

#[test]
fn a_wrong_checkpoint_is_reported_at_its_event() {
    let (root, dir, file) = setup();
    let mut replay = sgr::read(&file).unwrap();
    let (at, hash) = *replay.checkpoints.first().expect("a checkpoint");
    replay.checkpoints[0].1 ^= 0xff;
    let bad = root.path().join("bad.sgr");
    fs::write(&bad, sgr::to_bytes(&replay)).unwrap();
    let bad = bad.to_str().unwrap();
    let output = verify(&dir, &[bad]);
    assert!(!output.status.success());
    assert_eq!(
        stdout(&output).trim(),
        format!(
            "FAIL {bad} at event {at}: the state hash after {at} events is 0x{hash:016x}, but the file recorded 0x{:016x}",
            hash ^ 0xff
        )
    );
}

#[test]
fn files_need_no_data_directory_and_unknown_games_fail_alone() {
    let (root, _dir, file) = setup();
    // A data directory that cannot be made: under a plain file.
    let plain = root.path().join("plain");
    fs::write(&plain, b"x").unwrap();
    let nowhere = plain.join("data");
    let output = verify(&nowhere, &[file.to_str().unwrap()]);
    assert!(output.status.success(), "{output:?}");
    let (_root, dir, file) = setup();
    let output = verify(&dir, &["no-such-game", file.to_str().unwrap()]);
    assert!(!output.status.success());
    let text = stdout(&output);
    let lines: Vec<&str> = text.lines().collect();
    assert!(
        lines[0].starts_with("FAIL no-such-game: no game is named"),
        "{text}"
    );
    assert!(lines[1].starts_with("ok "), "{text}");
    // A path that names no regular file is refused as such, not looked up as a game.
    let output = verify(&dir, &["/dev/null", root_dir(&dir)]);
    assert!(!output.status.success());
    for line in stdout(&output).lines() {
        assert!(line.contains("it is not a regular file"), "{line}");
    }
}

/// The folder holding the data directory: a directory, for `verify` to refuse.
fn root_dir(dir: &Path) -> &str {
    dir.parent().unwrap().to_str().unwrap()
}

#[test]
fn verify_json_gives_one_object_per_replay_with_its_verdict() {
    let (_root, dir, file) = setup();
    let (bad, at, what) = with_a_changed_draw(&file);
    let replay = sgr::read(&file).unwrap();
    let path = file.to_str().unwrap();
    let output = verify(&dir, &["--json", path, &bad, "bot-11", "no-such-game"]);
    assert!(!output.status.success());
    let text = stdout(&output);
    let lines: Vec<Value> = text
        .lines()
        .map(|line| serde_json::from_str(line).unwrap_or_else(|e| panic!("{e}: {line}")))
        .collect();
    let commands = replay
        .events
        .iter()
        .filter(|e| matches!(e, Event::Command(_)))
        .count();
    let ok = |replay_name: &str, kind: &str| {
        json!({
            "replay": replay_name,
            "kind": kind,
            "ok": true,
            "rules_version": rules::NEWEST,
            "events": replay.events.len(),
            "commands": commands,
            "draws": replay.events.len() - commands,
            "hash": format!("0x{:016x}", replay.final_hash),
        })
    };
    assert_eq!(lines.len(), 4, "{text}");
    assert_eq!(lines[0], ok(path, "file"));
    assert_eq!(
        lines[1],
        json!({"replay": bad, "kind": "file", "ok": false, "error": what, "event": at})
    );
    assert_eq!(lines[2], ok("bot-11", "game"));
    assert_eq!(lines[3]["event"], Value::Null);
    assert_eq!(lines[3]["ok"], false);
    let error = lines[3]["error"].as_str().unwrap();
    assert!(error.starts_with("no game is named"), "{error}");
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(
        stderr.trim(),
        "sandglass: 2 of 4 replays failed verification"
    );
}
