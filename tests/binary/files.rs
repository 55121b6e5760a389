//! Saved games and replay files through the real binary: the round trip, and every way a
//! file, a directory or a name can be wrong. Each refusal must be one clear line on stderr
//! and a non-zero exit, and must leave every stored game as it was.

mod common;

use std::fs;
use std::io::{BufRead, BufReader};
use std::os::unix::fs::PermissionsExt;
use std::os::unix::process::CommandExt;
use std::process::{Child, Command, Stdio};
use std::time::Instant;

use common::{assert_clear_error, bot_game, games_in, sandglass, stdout, BIN};
use sandglass_store::{Store, StoreError, LOCK_WAIT};

/// A data directory with two games, one exported to `game.sgr` beside it.
fn setup() -> (tempfile::TempDir, std::path::PathBuf, std::path::PathBuf) {
    let root = tempfile::tempdir().unwrap();
    let dir = root.path().join("data");
    bot_game(&dir, 11, 40);
    bot_game(&dir, 12, 25);
    let file = root.path().join("game.sgr");
    let output = sandglass(&dir, &["export", "bot-11", file.to_str().unwrap()]);
    assert!(output.status.success(), "{output:?}");
    (root, dir, file)
}

/// Imports `bytes` (written to a file) and expects a refusal mentioning `needle`.
fn refuse_import(bytes: &[u8], needle: &str) {
    let (root, dir, _) = setup();
    let before = games_in(&dir);
    let bad = root.path().join("bad.sgr");
    fs::write(&bad, bytes).unwrap();
    let output = sandglass(&dir, &["import", bad.to_str().unwrap()]);
    assert_clear_error(&output, needle);
    assert_eq!(games_in(&dir), before);
}

fn exported() -> Vec<u8> {
    let (_root, _dir, file) = setup();
    fs::read(file).unwrap()
}

#[test]
fn export_then_import_gives_back_the_identical_game() {
    let (_root, dir, file) = setup();
    let output = sandglass(&dir, &["import", file.to_str().unwrap(), "--name", "copy"]);
    assert!(output.status.success(), "{output:?}");
    let store = Store::open(&dir).unwrap();
    let original = store.find("bot-11").unwrap();
    let copy = store.find("copy").unwrap();
    assert_eq!(
        store.events(copy.id).unwrap(),
        store.events(original.id).unwrap()
    );
    assert_eq!(copy.last_hash, original.last_hash);
    drop(store);
    // And `saves --json` shows both, with what scripts need.
    let lines = games_in(&dir);
    let copy_line = lines
        .lines()
        .find(|l| l.contains(r#""name":"copy""#))
        .unwrap();
    let json: serde_json::Value = serde_json::from_str(copy_line).unwrap();
    for key in ["id", "name", "status", "commands", "events", "hash"] {
        assert!(json.get(key).is_some(), "{key} missing from {copy_line}");
    }
    assert_eq!(json["hash"], format!("0x{:016x}", original.last_hash));
    // Without --name the file's name is used, made unique.
    let output = sandglass(&dir, &["import", file.to_str().unwrap()]);
    assert!(stdout(&output).contains("`game`"), "{output:?}");
    let output = sandglass(&dir, &["import", file.to_str().unwrap()]);
    assert!(stdout(&output).contains("`game-2`"), "{output:?}");
}

#[test]
fn save_as_forks_and_the_fork_plays_on_alone() {
    let (_root, dir, _) = setup();
    let output = sandglass(&dir, &["save-as", "bot-12", "fork"]);
    assert!(output.status.success(), "{output:?}");
    let before = Store::open(&dir).unwrap().find("bot-12").unwrap();
    let output = sandglass(
        &dir,
        &["bot", "--seed", "3", "--commands", "5", "--game", "fork"],
    );
    assert!(output.status.success(), "{output:?}");
    let store = Store::open(&dir).unwrap();
    assert_eq!(store.find("bot-12").unwrap(), before);
    let fork = store.find("fork").unwrap();
    let forked = store.events(fork.id).unwrap();
    assert_eq!(
        forked[..before.events as usize],
        store.events(before.id).unwrap()[..]
    );
    assert!(fork.events > before.events || fork.status.name() != "alive");
}

#[test]
fn a_truncated_replay_file_is_refused() {
    let bytes = exported();
    refuse_import(&bytes[..bytes.len() / 2], "truncated");
}

#[test]
fn a_bit_flipped_replay_file_is_refused() {
    let mut bytes = exported();
    let middle = bytes.len() / 2;
    bytes[middle] ^= 0x04;
    refuse_import(&bytes, "damaged");
}

#[test]
fn an_empty_replay_file_is_refused() {
    refuse_import(b"", "empty");
}

#[test]
fn a_foreign_file_is_refused() {
    refuse_import(
        b"\x89PNG\r\n\x1a\n\0\0\0\rIHDR\0\0\0\x01\0\0\0\x01\x08\x06\0\0\0",
        "not a Sandglass replay file",
    );
}

#[test]
fn a_replay_file_from_a_newer_format_is_refused() {
    // The version sits right after the magic and is checked before the checksum: a newer
    // format is free to change everything after it, the checksum included.
    let mut bytes = exported();
    bytes[8..10].copy_from_slice(&2u16.to_le_bytes());
    refuse_import(&bytes, "newer Sandglass");
}

#[test]
fn an_unknown_game_is_refused_by_every_subcommand() {
    let (root, dir, _) = setup();
    let before = games_in(&dir);
    let out = root.path().join("out.sgr");
    for args in [
        vec!["export", "dromedary", out.to_str().unwrap()],
        vec!["save-as", "dromedary", "x"],
        vec!["delete", "dromedary"],
        vec!["delete", "999"],
        vec![
            "bot",
            "--seed",
            "1",
            "--commands",
            "1",
            "--game",
            "dromedary",
        ],
    ] {
        let output = sandglass(&dir, &args);
        assert_clear_error(&output, "no game is named or numbered");
    }
    assert!(!out.exists());
    assert_eq!(games_in(&dir), before);
}

/// A name written like a path (it holds a `/` or ends in `.sgr`) is a replay file's: one
/// that names nothing is said to be no file, never looked up as a game; and no game may
/// take such a name.
#[test]
fn a_path_that_names_nothing_is_no_file_and_no_game_name() {
    let (root, dir, _) = setup();
    let before = games_in(&dir);
    let gone = root.path().join("gone");
    let gone = gone.to_str().unwrap();
    let config = root.path().join("config");
    let config = config.to_str().unwrap();
    for name in [gone, "gone.sgr", "nowhere/bot-11"] {
        let output = sandglass(&dir, &["verify", name]);
        assert_eq!(
            stdout(&output).trim(),
            format!("FAIL {name}: there is no file at that path")
        );
        let output = sandglass(&dir, &["import", name]);
        assert_clear_error(&output, "there is no file at that path");
        let output = sandglass(&dir, &["replay", name, "--config-dir", config]);
        assert_clear_error(&output, "there is no file at that path");
    }
    for name in ["runs/one", "one.sgr"] {
        let output = sandglass(&dir, &["save-as", "bot-11", name]);
        assert_clear_error(&output, "would read as a replay file");
    }
    assert_eq!(games_in(&dir), before);
}

#[test]
fn a_name_already_taken_is_refused() {
    let (_root, dir, file) = setup();
    let before = games_in(&dir);
    assert_clear_error(
        &sandglass(&dir, &["save-as", "bot-11", "bot-12"]),
        "already exists",
    );
    assert_clear_error(
        &sandglass(
            &dir,
            &["import", file.to_str().unwrap(), "--name", "bot-11"],
        ),
        "already exists",
    );
    assert_eq!(games_in(&dir), before);
}

#[test]
fn a_data_directory_held_by_another_process_is_refused() {
    let (_root, dir, _) = setup();
    let before = games_in(&dir);
    // Held by this test process, through the library.
    {
        let _held = Store::open(&dir).unwrap();
        assert_clear_error(
            &sandglass(&dir, &["saves"]),
            "in use by another sandglass process",
        );
        // And by the same library in the same process: sled's lock is per open file.
        assert!(matches!(Store::open(&dir), Err(StoreError::InUse { .. })));
    }
    // Let go of while another process waits for it: not in use.
    let held = Store::open(&dir).unwrap();
    let holder = std::thread::spawn(move || {
        // A pause for the other process to start waiting: nothing outside says when it
        // does. Should it start after the store is let go of (a loaded machine), the
        // test still holds, checking only that a directory let go of is not in use.
        std::thread::sleep(std::time::Duration::from_millis(300));
        drop(held);
    });
    let output = sandglass(&dir, &["saves"]);
    holder.join().unwrap();
    assert!(output.status.success(), "{output:?}");
    // Held by another sandglass process, in the middle of a bot game: stopped there
    // (SIGSTOP), so that it holds the directory for as long as `saves` waits and longer.
    let mut bot = Command::new(BIN)
        .args(["bot", "--seed", "20", "--commands", "100000"])
        .arg("--data-dir")
        .arg(&dir)
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    let mut lines = BufReader::new(bot.stdout.take().unwrap()).lines();
    assert!(lines.next().unwrap().unwrap().starts_with("game "));
    signal(&bot, "STOP");
    let start = Instant::now();
    let output = sandglass(&dir, &["saves"]);
    let waited = start.elapsed();
    signal(&bot, "KILL");
    bot.wait().unwrap();
    assert_clear_error(&output, "in use by another sandglass process");
    assert!(
        waited >= LOCK_WAIT,
        "refused after {waited:?}, without waiting"
    );
    // The interrupted bot games are stored too; the earlier ones are as they were.
    let after = games_in(&dir);
    for line in before.lines() {
        assert!(after.contains(line), "{line} changed");
    }
}

#[test]
fn a_data_directory_from_a_newer_sandglass_is_refused_and_kept() {
    let (_root, dir, _) = setup();
    let before = games_in(&dir);
    let next = sandglass_store::LAYOUT_VERSION + 1;
    {
        // As a build with the next database layout would leave it.
        let db = common::raw_sled(&dir);
        db.insert(b"layout", &next.to_be_bytes()).unwrap();
        db.flush().unwrap();
    }
    for args in [vec!["saves"], vec!["bot", "--seed", "1", "--commands", "3"]] {
        let output = sandglass(&dir, &args);
        assert_clear_error(&output, &format!("holds a game database in layout {next}"));
    }
    let db = common::raw_sled(&dir);
    db.insert(b"layout", &sandglass_store::LAYOUT_VERSION.to_be_bytes())
        .unwrap();
    drop(db);
    assert_eq!(games_in(&dir), before);
}

#[test]
fn a_read_only_data_directory_is_refused() {
    let (root, dir, file) = setup();
    let before = games_in(&dir);
    let sgr = file.to_str().unwrap();
    fs::set_permissions(root.path(), fs::Permissions::from_mode(0o755)).unwrap();
    fs::set_permissions(&dir, fs::Permissions::from_mode(0o555)).unwrap();
    // Root ignores permission bits. If this process can still write there, run the binary
    // as user `nobody`, for whom the directory really is read-only.
    let privileged = fs::write(dir.join("probe"), b"").is_ok();
    let _ = fs::remove_file(dir.join("probe"));
    // `nobody` may not reach the build's own binary (a checkout under a directory only
    // its owner opens): it runs a copy beside the data, which it can.
    let bin = match privileged {
        true => {
            let copy = root.path().join("sandglass");
            fs::copy(BIN, &copy).unwrap();
            fs::set_permissions(&copy, fs::Permissions::from_mode(0o755)).unwrap();
            copy
        }
        false => BIN.into(),
    };
    let as_user = |command: &mut Command| {
        if privileged {
            command.uid(65534).gid(65534);
        }
    };
    let run = |args: &[&str]| {
        let mut command = Command::new(&bin);
        command.args(args).arg("--data-dir").arg(&dir);
        as_user(&mut command);
        command.output().unwrap()
    };
    for args in [
        vec!["saves"],
        vec!["bot", "--seed", "1", "--commands", "3"],
        vec!["import", sgr],
        vec!["delete", "bot-11"],
    ] {
        assert_clear_error(&run(&args), "cannot write to the data directory");
    }
    // A new data directory inside a read-only one cannot be made either.
    let mut command = Command::new(&bin);
    command.args(["saves", "--data-dir"]).arg(dir.join("new"));
    as_user(&mut command);
    assert_clear_error(
        &command.output().unwrap(),
        "cannot write to the data directory",
    );
    fs::set_permissions(&dir, fs::Permissions::from_mode(0o755)).unwrap();
    assert_eq!(games_in(&dir), before);
}

/// Sends `signal` (a name `kill` knows) to `child`.
fn signal(child: &Child, signal: &str) {
    let status = Command::new("kill")
        .arg(format!("-{signal}"))
        .arg(child.id().to_string())
        .status()
        .unwrap();
    assert!(status.success(), "kill -{signal}");
}
