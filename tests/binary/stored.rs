//! The data directory as it is found on disk, through the real binary: older layouts,
//! and damaged or crafted bytes. Whatever is found, every command answers in one clear
//! line or works, and no game is lost for another's damage.

mod common;

use std::path::{Path, PathBuf};
use std::process::Command;

use common::{games_in, raw_sled, sandglass, stdout};

/// A data directory written by the Sandglass of database layout 1 (a key per event):
/// four games, one forked from another and one with snapshots, and how `saves --json`
/// listed them then.
const LAYOUT_1: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/../tests/fixtures/layout-1.tar.gz"
);
const LAYOUT_1_SAVES: &str = include_str!("../fixtures/layout-1.json");

/// The layout-1 fixture unpacked into a fresh directory; returns the data directory.
fn layout_1(tmp: &Path) -> PathBuf {
    let status = Command::new("tar")
        .arg("xzf")
        .arg(LAYOUT_1)
        .arg("-C")
        .arg(tmp)
        .status()
        .expect("tar runs");
    assert!(status.success());
    tmp.join("layout-1")
}

#[test]
fn a_layout_1_directory_is_migrated_with_every_game_as_it_was() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = layout_1(tmp.path());
    // The first open migrates; every game loads and folds to its saved hash.
    assert_eq!(games_in(&dir), LAYOUT_1_SAVES);
    // The old logs are gone, and the second open finds nothing left to do.
    {
        let db = raw_sled(&dir);
        let names: Vec<String> = db
            .tree_names()
            .iter()
            .map(|n| String::from_utf8_lossy(n).into_owned())
            .collect();
        assert!(names.iter().all(|n| !n.ends_with("/events")), "{names:?}");
        assert!(names.iter().any(|n| n == "game/4/steps"), "{names:?}");
        // The long game's snapshot is kept, stored again in the new encoding (checksummed).
        let snapshots = db.open_tree("game/4/snapshots").unwrap();
        assert_eq!(snapshots.len(), 1);
        let (_, value) = snapshots.first().unwrap().unwrap();
        let sum = xxhash_rust::xxh3::xxh3_64(&value[8..]).to_le_bytes();
        assert_eq!(value[..8], sum);
    }
    assert_eq!(games_in(&dir), LAYOUT_1_SAVES);
    // A migrated game plays on, and exports to a file that verifies.
    let output = sandglass(
        &dir,
        &["bot", "--seed", "3", "--game", "desert", "--commands", "20"],
    );
    assert!(output.status.success(), "{output:?}");
    let file = tmp.path().join("long.sgr");
    let output = sandglass(&dir, &["export", "long", file.to_str().unwrap()]);
    assert!(output.status.success(), "{output:?}");
    let output = sandglass(&dir, &["verify", file.to_str().unwrap()]);
    assert!(output.status.success(), "{output:?}");
    assert!(stdout(&output).contains("0x4b2801a9c7c7cf1c"), "{output:?}");
}

#[test]
fn a_layout_1_game_with_a_damaged_log_keeps_its_old_log_and_hides_no_other() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = layout_1(tmp.path());
    {
        let db = raw_sled(&dir);
        let events = db.open_tree("game/2/events").unwrap();
        events.remove(7u64.to_be_bytes()).unwrap();
        db.flush().unwrap();
    }
    let output = sandglass(&dir, &["saves"]);
    assert!(output.status.success(), "{output:?}");
    let listed = stdout(&output);
    for name in ["desert", "desert-copy", "long"] {
        assert!(listed.contains(name), "{listed}");
    }
    // The damaged game says what is wrong with it, and its old log is kept for repair.
    let output = sandglass(
        &dir,
        &[
            "export",
            "classic",
            tmp.path().join("c.sgr").to_str().unwrap(),
        ],
    );
    common::assert_clear_error(&output, "classic");
    let db = raw_sled(&dir);
    assert!(db
        .tree_names()
        .iter()
        .any(|n| n.as_ref() == b"game/2/events"));
    assert_eq!(db.open_tree("game/2/events").unwrap().len(), 199);
}
