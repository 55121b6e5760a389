//! Moving a data directory of an older database layout to this build's, through the real
//! binary: a directory written by the Sandglass of layout 2 (the one before this) is
//! moved on its first open with every game as it was, and a move stopped at any step, by
//! a kill or a failing disk, leaves a directory whose every game opens whole on the next
//! run, which finishes the move.

mod common;

use std::path::{Path, PathBuf};
use std::process::Command;

use common::{
    assert_clear_error, entries_of, games_in, have, raw_sled, sandglass, saves_killed_at, stdout,
    without_branches, BIN,
};
use sandglass_store::GameId;

/// A data directory written by the Sandglass of database layout 2 (a value per step,
/// two trees per game): six games, two of them forks (one of the other) of a game since
/// deleted, whose trees are kept for what they read; one imported from a file; one that
/// ended, with the snapshot taken as it ended; every game's verdict remembered by
/// `scores`. And how `saves --json` listed them then.
const LAYOUT_2: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/../tests/fixtures/layout-2.tar.gz"
);
const LAYOUT_2_SAVES: &str = include_str!("../fixtures/layout-2.json");

/// The layout-2 fixture unpacked into `tmp`; returns the data directory.
fn layout_2(tmp: &Path) -> PathBuf {
    let dir = tmp.join("layout-2");
    if dir.exists() {
        std::fs::remove_dir_all(&dir).unwrap();
    }
    let status = Command::new("tar")
        .arg("xzf")
        .arg(LAYOUT_2)
        .arg("-C")
        .arg(tmp)
        .status()
        .expect("tar runs");
    assert!(status.success());
    dir
}

#[test]
fn a_layout_2_directory_is_moved_with_every_game_as_it_was() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = layout_2(tmp.path());
    let scores_before = {
        // The scores its verdicts give, read before anything is moved (by the old tree's
        // name, which only layout 2 has).
        let db = raw_sled(&dir);
        assert_eq!(
            db.get("layout").unwrap().unwrap(),
            &2u16.to_be_bytes()[..],
            "the fixture is of layout 2"
        );
        let verdicts = db.open_tree("verdicts").unwrap();
        assert!(!verdicts.is_empty(), "the fixture holds a verdict");
        verdicts.iter().map(Result::unwrap).collect::<Vec<_>>()
    };
    let listed = games_in(&dir);
    assert_eq!(without_branches(&listed), LAYOUT_2_SAVES);
    // Its forks are branches, of a game since deleted.
    for fork in listed
        .lines()
        .filter(|line| line.contains("\"name\":\"fork-"))
    {
        assert!(fork.contains("\"branch_of\":\"a deleted game\""), "{fork}");
    }
    {
        let db = raw_sled(&dir);
        assert_eq!(
            db.get("layout").unwrap().unwrap(),
            &sandglass_store::LAYOUT_VERSION.to_be_bytes()[..]
        );
        // The same few trees, whatever the number of games.
        let mut names: Vec<String> = db
            .tree_names()
            .iter()
            .map(|n| String::from_utf8_lossy(n).into_owned())
            .collect();
        names.sort();
        assert_eq!(
            names,
            [
                "__sled__default",
                "branches",
                "dealt",
                "games",
                "names",
                "snapshots",
                "steps",
                "streams",
                "verdicts"
            ]
        );
        // Verdicts are kept as they were, and still hold (the logs they proved are the
        // same steps, under new keys).
        let verdicts = db.open_tree("verdicts").unwrap();
        let after: Vec<_> = verdicts.iter().map(Result::unwrap).collect();
        assert_eq!(after, scores_before);
        // The deleted game's steps are kept as far as its forks read them.
        let steps = db.open_tree("steps").unwrap();
        assert!(!entries_of(&steps, GameId(1)).is_empty());
        assert!(db
            .open_tree("games")
            .unwrap()
            .get(1u64.to_be_bytes())
            .unwrap()
            .is_none());
        let snapshots = db.open_tree("snapshots").unwrap();
        assert!(!entries_of(&snapshots, GameId(6)).is_empty());
    }
    for leftover in ["migrating", "before-layout-3"] {
        assert!(!dir.join(leftover).exists(), "{leftover} is left");
    }
    // The table believes the moved verdicts without folding again, and every game verifies.
    let output = sandglass(&dir, &["scores", "--json"]);
    assert!(output.status.success(), "{output:?}");
    assert!(
        !stdout(&output).contains("\"verified\":false"),
        "{output:?}"
    );
    let output = sandglass(&dir, &["verify", "fork-2", "long", "imported"]);
    assert!(output.status.success(), "{output:?}");
    // The moved games play on, fork, and delete as any other.
    let output = sandglass(
        &dir,
        &["bot", "--seed", "3", "--game", "fork-2", "--commands", "20"],
    );
    assert!(output.status.success(), "{output:?}");
    let output = sandglass(&dir, &["save-as", "long", "long-2"]);
    assert!(output.status.success(), "{output:?}");
    // Every moved game's name is held: no second game may take it.
    for taken in ["classic", "ended", "imported"] {
        let output = sandglass(&dir, &["save-as", "long", taken]);
        assert_clear_error(&output, "already exists");
    }
    let output = sandglass(&dir, &["delete", "long"]);
    assert!(output.status.success(), "{output:?}");
    let output = sandglass(&dir, &["verify", "long-2", "fork-1"]);
    assert!(output.status.success(), "{output:?}");
}

/// What a run stopped part-way left must open, as the old layout or the new, with every
/// game whole: listed as before, each loading to its saved hash. Then the next open has
/// finished the move.
fn check_whole(dir: &Path) -> Result<(), String> {
    let listed = std::panic::catch_unwind(|| games_in(dir)).map_err(|_| "does not open")?;
    if without_branches(&listed) != LAYOUT_2_SAVES {
        return Err(format!("the games differ:\n{listed}"));
    }
    let layout = raw_sled(dir).get("layout").unwrap().map(|v| v.to_vec());
    if layout.as_deref() != Some(&sandglass_store::LAYOUT_VERSION.to_be_bytes()[..]) {
        return Err(format!("still in layout {layout:?} after an open"));
    }
    for leftover in ["migrating", "before-layout-3"] {
        if dir.join(leftover).exists() {
            return Err(format!("{leftover} is left"));
        }
    }
    Ok(())
}

/// Killed at each rename (the moves of the old files aside and of the new ones in, the
/// marks), at each sync, at each removal and at writes of the database being built: at
/// every one, what is left opens with every game whole.
#[cfg_attr(
    lacks_strace,
    ignore = "skipped: strace is not installed (.ci/run installs it)"
)]
#[test]
fn a_migration_killed_at_any_step_leaves_every_game_whole() {
    if !have("strace", "strace") {
        return;
    }
    let tmp = tempfile::tempdir().unwrap();
    let points: &[(&str, u32)] = &[
        ("rename,renameat,renameat2", 12),
        ("fsync,fdatasync", 12),
        ("unlink,unlinkat,rmdir", 6),
        ("pwrite64,write", 10),
        ("mkdir,mkdirat", 3),
    ];
    let mut killed = 0;
    let mut failures = vec![];
    for &(calls, most) in points {
        for nth in 1..=most {
            let dir = layout_2(tmp.path());
            if saves_killed_at(&dir, calls, nth) {
                killed += 1;
            }
            if let Err(why) = check_whole(&dir) {
                failures.push(format!("killed at {calls} call {nth}: {why}"));
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
    assert!(killed >= 20, "only {killed} runs were killed part-way");
    println!("{killed} runs killed part-way, each left every game whole");
}

/// The calls failed, by libfiu's names for them, while the move goes on.
const FAULTS: [&str; 7] = [
    "posix/io/rw/pwrite",
    "posix/io/rw/pread",
    "posix/io/sync/fsync",
    "posix/io/sync/fdatasync",
    "posix/io/oc/open",
    "posix/io/dir/rename",
    "posix/io/dir/unlink",
];

#[cfg_attr(
    lacks_fiu,
    ignore = "skipped: fiu-run is not installed (.ci/run installs fiu-utils)"
)]
#[test]
fn a_migration_on_a_failing_disk_says_so_in_words_and_leaves_every_game_whole() {
    if !have("fiu-run", "fiu-utils") {
        return;
    }
    let tmp = tempfile::tempdir().unwrap();
    let mut failures = vec![];
    let mut failed_runs = 0;
    for fault in FAULTS {
        for probability in ["0.05", "0.3"] {
            let dir = layout_2(tmp.path());
            let enable = format!("enable_random name={fault},probability={probability}");
            let output = Command::new("fiu-run")
                .args(["-x", "-c", &enable])
                .arg(BIN)
                .args(["saves", "--data-dir"])
                .arg(&dir)
                .output()
                .unwrap();
            if !output.status.success() {
                failed_runs += 1;
                let stderr = String::from_utf8_lossy(&output.stderr);
                if stderr.contains("panicked") || stderr.trim().lines().count() > 1 {
                    failures.push(format!("{fault} at {probability}: {stderr}"));
                } else if !stderr.trim().is_empty() {
                    assert_clear_error(&output, "");
                }
            }
            if let Err(why) = check_whole(&dir) {
                failures.push(format!("{fault} at {probability}: {why}"));
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
    println!("{failed_runs} runs failed under the fault; each left every game whole");
}
