//! Acknowledged means durable, through the real binary: under `strace`, every `ack K` the
//! bot prints follows a successful `fdatasync` (or `fsync`) of sled's log begun after the
//! last write to it; under `fiu-run`, a sync that fails is final, said in words, never
//! acknowledged and never a panic, and the next run finds every acknowledged command.

mod common;

use std::path::Path;
use std::process::Command;

use common::{bot_game, have, sandglass, stdout, BIN};

/// One system call as `strace -f` shows it: its thread, name, first argument, result, and
/// whether the line is its start, its end, or both.
#[derive(Debug, Clone)]
struct Call {
    thread: String,
    name: String,
    first: String,
    result: Option<i64>,
    starts: bool,
    ends: bool,
}

fn parse(line: &str) -> Option<Call> {
    let (thread, rest) = line.split_once(char::is_whitespace)?;
    let rest = rest.trim_start();
    if let Some(resumed) = rest.strip_prefix("<... ") {
        let (name, tail) = resumed.split_once(" resumed>")?;
        return Some(Call {
            thread: thread.to_owned(),
            name: name.to_owned(),
            first: String::new(),
            result: result(tail),
            starts: false,
            ends: true,
        });
    }
    let (name, args) = rest.split_once('(')?;
    let unfinished = args.ends_with("<unfinished ...>");
    Some(Call {
        thread: thread.to_owned(),
        name: name.to_owned(),
        // A call cut in two may end its line at its first argument: `fdatasync(5 <unfinished`.
        first: args
            .split([',', ')', ' '])
            .next()
            .unwrap_or_default()
            .to_owned(),
        result: if unfinished { None } else { result(args) },
        starts: true,
        ends: !unfinished,
    })
}

fn result(tail: &str) -> Option<i64> {
    tail.rsplit_once(" = ")?
        .1
        .split_whitespace()
        .next()?
        .parse()
        .ok()
}

/// Checks an `strace -f` log of the bot: every `ack` written to stdout must come after a
/// sync of sled's log (`path` ending in `/db`) that began after the last write to it
/// ended, and ended in success. Returns how many acks were checked, or the first that was
/// not covered.
fn acks_follow_syncs(trace: &str) -> Result<usize, String> {
    let mut log_fds: Vec<String> = vec![];
    // The threads whose open of the log another thread's call cut in two: the file
    // descriptor is on the line that resumes it.
    let mut opening: Vec<String> = vec![];
    // Since the last write to the log ended: a sync begun, and one finished with success.
    let (mut sync_begun, mut synced) = (false, false);
    let mut pending_sync = 0usize;
    let mut acks = 0;
    for line in trace.lines() {
        let Some(call) = parse(line) else { continue };
        match call.name.as_str() {
            "openat" if line.contains("/db\"") && !call.ends => opening.push(call.thread),
            "openat" if call.ends && (line.contains("/db\"") || opening.contains(&call.thread)) => {
                opening.retain(|thread| *thread != call.thread);
                if let Some(fd) = call.result {
                    log_fds.push(fd.to_string());
                }
            }
            "pwrite64" | "write" | "pwritev" if log_fds.contains(&call.first) => {
                sync_begun = false;
                synced = false;
            }
            "fdatasync" | "fsync" => {
                if call.starts && log_fds.contains(&call.first) {
                    sync_begun = true;
                    pending_sync += 1;
                }
                if call.ends && pending_sync > 0 {
                    pending_sync -= 1;
                    synced |= sync_begun && call.result == Some(0);
                }
            }
            "write" if call.first == "1" && line.contains("\"ack ") => {
                if !synced {
                    return Err(format!("not synced before: {line}"));
                }
                acks += 1;
            }
            _ => {}
        }
    }
    Ok(acks)
}

#[cfg_attr(
    lacks_strace,
    ignore = "skipped: strace is not installed (.ci/run installs it)"
)]
#[test]
fn every_ack_follows_a_sync_of_the_log_after_its_last_write() {
    if !have("strace", "strace") {
        return;
    }
    let root = tempfile::tempdir().unwrap();
    let dir = root.path().join("data");
    let log = root.path().join("trace.txt");
    let output = Command::new("strace")
        .args(["-f", "-o", log.to_str().unwrap()])
        .args(["-e", "trace=openat,pwrite64,pwritev,write,fsync,fdatasync"])
        .arg(BIN)
        .args(["bot", "--data-dir", dir.to_str().unwrap()])
        .args(["--seed", "3", "--commands", "100"])
        .output()
        .unwrap();
    assert!(output.status.success(), "{output:?}");
    let acks = stdout(&output)
        .lines()
        .filter(|l| l.starts_with("ack "))
        .count();
    assert!(acks >= 50, "{acks} commands");
    let trace = std::fs::read_to_string(&log).unwrap();
    assert_eq!(acks_follow_syncs(&trace), Ok(acks));
    // The check can fail: the same run with its syncs taken out is caught at the first ack.
    let unsynced: String = trace
        .lines()
        .filter(|l| !l.contains("fdatasync(") && !l.contains("fsync("))
        .map(|l| format!("{l}\n"))
        .collect();
    let caught = acks_follow_syncs(&unsynced).unwrap_err();
    assert!(caught.contains("\"ack 1\\n\""), "{caught}");
}

/// The check follows the log through an open that another thread's call cut in two, as
/// `strace -f` shows it when threads run at once (a loaded machine): its descriptor is on
/// the line that resumes it.
#[test]
fn an_open_of_the_log_cut_in_two_is_still_followed() {
    let trace = r#"100 openat(AT_FDCWD, "/d/db", O_RDWR|O_CREAT|O_CLOEXEC, 0666) = 3
100 openat(AT_FDCWD, "/d/db", O_RDONLY|O_CLOEXEC <unfinished ...>
101 openat(AT_FDCWD, "/d/conf", O_RDONLY|O_CLOEXEC) = 4
100 <... openat resumed>)              = 5
101 pwrite64(3, "\336\204", 883, 115) = 883
100 fdatasync(5)                      = 0
100 write(1, "ack 1\n", 6)            = 6
101 pwrite64(3, "\336\204", 165, 998) = 165
100 fdatasync(5 <unfinished ...>
101 openat(AT_FDCWD, "/d/snap.tmp", O_RDONLY|O_CLOEXEC) = 6
100 <... fdatasync resumed>)          = 0
100 write(1, "ack 2\n", 6)            = 6
"#;
    assert_eq!(acks_follow_syncs(trace), Ok(2));
    // The resumed open is of the log: a write through it after the last sync is caught.
    let written = trace.replace(
        "100 write(1, \"ack 2",
        "100 pwrite64(5, \"\", 1, 0) = 1\n100 write(1, \"ack 2",
    );
    assert!(acks_follow_syncs(&written).unwrap_err().contains("ack 2"));
}

/// `fiu-run` failing every `fdatasync` of the bot's process from the start.
fn with_failing_syncs(dir: &Path, args: &[&str]) -> std::process::Output {
    Command::new("fiu-run")
        .args(["-x", "-c", "enable name=posix/io/sync/fdatasync"])
        .arg(BIN)
        .args(args)
        .args(["--data-dir", dir.to_str().unwrap()])
        .output()
        .unwrap()
}

#[cfg_attr(
    lacks_fiu,
    ignore = "skipped: fiu-run is not installed (.ci/run installs fiu-utils)"
)]
#[test]
fn a_failed_sync_is_final_said_in_words_and_loses_nothing_acknowledged() {
    if !have("fiu-run", "fiu-utils") {
        return;
    }
    let root = tempfile::tempdir().unwrap();
    let dir = root.path().join("data");
    let id = bot_game(&dir, 3, 20);
    let before = stdout(&sandglass(&dir, &["saves", "--json"]));
    let output = with_failing_syncs(
        &dir,
        &[
            "bot",
            "--seed",
            "4",
            "--commands",
            "5",
            "--game",
            &id.0.to_string(),
        ],
    );
    assert!(!output.status.success(), "{output:?}");
    let said = stdout(&output);
    assert!(
        !said.contains("ack "),
        "a command acknowledged unsynced: {said}"
    );
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(!stderr.contains("panicked"), "{stderr}");
    assert_eq!(stderr.trim().lines().count(), 1, "{stderr}");
    assert!(
        stderr.contains("the disk failed to save the game")
            && stderr.contains("everything acknowledged before is safe"),
        "{stderr}"
    );
    // With the disk well again, the game is there with every acknowledged command, and
    // plays on.
    let after: serde_json::Value =
        serde_json::from_str(stdout(&sandglass(&dir, &["saves", "--json"])).trim()).unwrap();
    let before: serde_json::Value = serde_json::from_str(before.trim()).unwrap();
    assert!(
        after["commands"].as_u64() >= before["commands"].as_u64(),
        "{after}"
    );
    let output = sandglass(&dir, &["verify", &id.0.to_string()]);
    assert!(output.status.success(), "{output:?}");
    let output = sandglass(
        &dir,
        &[
            "bot",
            "--seed",
            "5",
            "--commands",
            "5",
            "--game",
            &id.0.to_string(),
        ],
    );
    assert!(output.status.success(), "{output:?}");
    // A store whose sync failed takes nothing more: a new game is refused in words too.
    let output = with_failing_syncs(&dir, &["bot", "--seed", "6", "--commands", "3"]);
    assert!(!output.status.success(), "{output:?}");
    assert!(!stdout(&output).contains("ack "), "{output:?}");
}
