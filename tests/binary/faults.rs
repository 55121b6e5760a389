//! A failing disk, through the real binary: `fiu-run` fails chosen C library calls (reads,
//! writes, syncs, opens, renames) at random while the bot plays on one of three stored
//! games. After every run, with the fault gone, every acknowledged command is stored, the
//! other games are exactly as they were, nothing panicked and every error was one line of
//! words. A run in which the directory is put back as it was before the bot's
//! acknowledged commands shows that the check catches a lost game.

mod common;

use std::path::Path;
use std::process::{Command, Output};

use common::{bot_game, games, sandglass, stdout, BIN};

/// The calls failed, by libfiu's names for them.
const FAULTS: [&str; 9] = [
    "posix/io/rw/read",
    "posix/io/rw/pread",
    "posix/io/rw/write",
    "posix/io/rw/pwrite",
    "posix/io/sync/fsync",
    "posix/io/sync/fdatasync",
    "linux/io/sync_file_range",
    "posix/io/oc/open",
    "posix/io/dir/rename",
];

/// How often each call fails, in each class.
const PROBABILITIES: [&str; 3] = ["0.01", "0.05", "0.25"];

/// Runs of each class at each probability: 9 x 3 x 4 = 108 runs.
const RUNS_EACH: u64 = 4;

/// What the bot said under the fault: the last command it acknowledged, if any.
fn last_ack(output: &Output) -> Option<u64> {
    stdout(output)
        .lines()
        .rev()
        .find_map(|l| l.strip_prefix("ack ")?.parse().ok())
}

/// The run's output is sound: no panic, and a failure is one line of words. Failing
/// `write` fails the terminal's writes too (libfiu cannot tell a file from a pipe): there
/// a failure may leave stderr empty, for nothing could be said.
fn check_words(output: &Output, fault: &str) -> Result<(), String> {
    let stderr = String::from_utf8_lossy(&output.stderr);
    if stderr.contains("panicked") {
        return Err(format!("it panicked: {stderr}"));
    }
    if output.status.success() {
        return Ok(());
    }
    let words = stderr.trim();
    if words.is_empty() && fault == "posix/io/rw/write" {
        return Ok(());
    }
    let one_line = words.lines().count() == 1 && words.starts_with("sandglass: ");
    let debug_form = words.contains("Os {") || words.contains("kind: ");
    if !one_line || debug_form {
        return Err(format!("not one line of words: {words:?}"));
    }
    Ok(())
}

/// With the fault gone: `played` holds at least its `acked` commands and verifies, and
/// every other game is as `before` had it.
fn check_games(
    dir: &Path,
    before: &[(String, u64, String)],
    played: &str,
    acked: Option<u64>,
) -> Result<(), String> {
    let after = games(dir)?;
    for game in before.iter().filter(|(name, ..)| name != played) {
        if !after.contains(game) {
            return Err(format!("{} changed or went: {after:?}", game.0));
        }
    }
    let Some((_, commands, _)) = after.iter().find(|(name, ..)| name == played) else {
        return Err(format!("{played} is gone: {after:?}"));
    };
    if acked.is_some_and(|acked| *commands < acked) {
        return Err(format!(
            "{played} holds {commands} commands, but {acked:?} were acknowledged"
        ));
    }
    let verified = sandglass(dir, &["verify", played]);
    if !verified.status.success() {
        return Err(format!("{played} does not verify: {verified:?}"));
    }
    Ok(())
}

fn copy_dir(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for entry in std::fs::read_dir(from).unwrap() {
        let entry = entry.unwrap();
        let target = to.join(entry.file_name());
        if entry.file_type().unwrap().is_dir() {
            copy_dir(&entry.path(), &target);
        } else {
            std::fs::copy(entry.path(), target).unwrap();
        }
    }
}

/// The bot goes on with `bot-1` for 20 commands while `fault` fails with `probability`.
fn bot_under(dir: &Path, fault: &str, probability: &str, seed: u64) -> Output {
    let enable = format!("enable_random name={fault},probability={probability}");
    Command::new("fiu-run")
        .args(["-x", "-c", &enable])
        .arg(BIN)
        .args(["bot", "--data-dir", dir.to_str().unwrap()])
        .args([
            "--seed",
            &seed.to_string(),
            "--commands",
            "20",
            "--game",
            "bot-1",
        ])
        .output()
        .unwrap()
}

#[cfg_attr(
    lacks_fiu,
    ignore = "skipped: fiu-run is not installed (.ci/run installs fiu-utils)"
)]
#[test]
fn no_fault_of_the_disk_loses_an_acknowledged_command_or_another_game() {
    if Command::new("fiu-run").arg("--help").output().is_err() {
        assert!(
            std::env::var_os("CI").is_none(),
            "fiu-run is missing: .ci/run installs fiu-utils"
        );
        eprintln!("skipped: fiu-run is missing (install fiu-utils to run this test)");
        return;
    }
    let root = tempfile::tempdir().unwrap();
    let template = root.path().join("template");
    for seed in 1..=3 {
        bot_game(&template, seed, 30);
    }
    let before = games(&template).unwrap();
    assert_eq!(before.len(), 3);

    // The check can fail: commands acknowledged, then the directory put back as it was.
    let lossy = root.path().join("lossy");
    copy_dir(&template, &lossy);
    let output = sandglass(
        &lossy,
        &["bot", "--seed", "7", "--commands", "5", "--game", "bot-1"],
    );
    assert!(output.status.success(), "{output:?}");
    std::fs::remove_dir_all(&lossy).unwrap();
    copy_dir(&template, &lossy);
    let caught = check_games(&lossy, &before, "bot-1", last_ack(&output)).unwrap_err();
    assert!(caught.contains("were acknowledged"), "{caught}");

    let mut failures = vec![];
    let mut runs = 0;
    for fault in FAULTS {
        for probability in PROBABILITIES {
            for run in 0..RUNS_EACH {
                let dir = root.path().join(format!("run-{runs}"));
                copy_dir(&template, &dir);
                let output = bot_under(&dir, fault, probability, 10 + run);
                let checked = check_words(&output, fault)
                    .and_then(|()| check_games(&dir, &before, "bot-1", last_ack(&output)));
                if let Err(why) = checked {
                    failures.push(format!("{fault} at {probability}, run {run}: {why}"));
                }
                std::fs::remove_dir_all(&dir).unwrap();
                runs += 1;
            }
        }
    }
    assert!(runs >= 100);
    assert!(
        failures.is_empty(),
        "{} of {runs} runs:\n{}",
        failures.len(),
        failures.join("\n")
    );
}
