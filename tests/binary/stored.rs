//! The data directory as it is found on disk, through the real binary: older layouts,
//! and damaged or crafted bytes. Whatever is found, every command answers in one clear
//! line or works, and no game is lost for another's damage.

mod common;

use std::path::{Path, PathBuf};
use std::process::Command;

use common::{entries_of, games_in, raw_sled, sandglass, stdout};
use sandglass_store::GameId;

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
        // No tree per game is left: the trees are the same few, whatever the games.
        assert!(names.iter().all(|n| !n.starts_with("game/")), "{names:?}");
        let steps = db.open_tree("steps").unwrap();
        assert!(!entries_of(&steps, GameId(4)).is_empty());
        // The long game's snapshot is kept, stored again in the new encoding (checksummed).
        let snapshots = entries_of(&db.open_tree("snapshots").unwrap(), GameId(4));
        assert_eq!(snapshots.len(), 1);
        let (_, value) = &snapshots[0];
        let sum = xxhash_rust::xxh3::xxh3_64(&value[8..]).to_le_bytes();
        assert_eq!(value[..8], sum);
    }
    // Nothing of the move is left beside the database.
    assert!(!dir.join("migrating").exists());
    assert!(!dir.join("before-layout-3").exists());
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
    // The damaged game says what is wrong with it, and its old log, which layout 3 cannot
    // hold, is kept for repair with the whole old database beside the new one.
    let output = sandglass(
        &dir,
        &[
            "export",
            "classic",
            tmp.path().join("c.sgr").to_str().unwrap(),
        ],
    );
    common::assert_clear_error(&output, "classic");
    let db = raw_sled(&dir.join("before-layout-3"));
    assert!(db
        .tree_names()
        .iter()
        .any(|n| n.as_ref() == b"game/2/events"));
    assert_eq!(db.open_tree("game/2/events").unwrap().len(), 199);
    drop(db);
    // The others moved whole all the same.
    for name in ["desert", "desert-copy", "long"] {
        let output = sandglass(&dir, &["verify", name]);
        assert!(output.status.success(), "{output:?}");
    }
}

/// A data directory holding one bot game of up to `commands` commands.
fn one_game(commands: u64) -> (tempfile::TempDir, PathBuf) {
    let root = tempfile::tempdir().unwrap();
    let dir = root.path().join("data");
    common::bot_game(&dir, ONE_GAME_SEED, commands);
    (root, dir)
}

/// A seed whose game under the newest rules lasts long enough to hold snapshots (over
/// 10,000 events in 700 commands, its last snapshot on the level it stands on then, and
/// alive past 2,000), and the name `one_game` stores it under.
const ONE_GAME_SEED: u64 = 333;
const ONE_GAME: &str = "bot-333";

#[test]
fn a_database_cut_short_is_refused_not_read_as_a_shorter_game() {
    // Nothing but the bot opens the directory first: a clean close may leave a snapshot of
    // sled's pages beside its file, and a file cut short under one is reported as damaged
    // (its own clear error) before the seal is looked at.
    let (_root, dir) = one_game(2000);
    let db = dir.join("db");
    let size = std::fs::metadata(&db).unwrap().len();
    std::fs::OpenOptions::new()
        .write(true)
        .open(&db)
        .unwrap()
        .set_len(size / 2)
        .unwrap();
    // Every command refuses it, the same way each time: nothing of ours is written to it
    // (sled's own recovery may tidy the end of its file), and the seal stays as it was.
    let seal = dir.join(sandglass_store::SEAL_FILE);
    let sealed = std::fs::read(&seal).unwrap();
    let mut said = vec![];
    for args in [
        &["saves"][..],
        &["export", ONE_GAME, "x.sgr"],
        &["bot", "--seed", "1", "--commands", "5"],
        &["saves"],
    ] {
        let output = sandglass(&dir, args);
        common::assert_clear_error(&output, "cut short");
        said.push(output.stderr);
        assert!(std::fs::read(&seal).unwrap() == sealed, "the seal changed");
    }
    assert!(said.windows(2).all(|w| w[0] == w[1]), "{said:?}");
    // Setting the seal aside is the way to open what is left, on purpose.
    std::fs::remove_file(dir.join(sandglass_store::SEAL_FILE)).unwrap();
    let output = sandglass(&dir, &["saves", "--json"]);
    assert!(output.status.success(), "{output:?}");
    let left: serde_json::Value = serde_json::from_str(stdout(&output).trim()).unwrap();
    assert_eq!(left["name"], ONE_GAME);
}

#[test]
fn a_database_file_that_makes_sled_panic_is_a_clear_error() {
    let root = tempfile::tempdir().unwrap();
    let dir = root.path().join("data");
    // Enough small writes for several of sled's segments and a snapshot of its pages;
    // cut inside the second segment, sled's recovery panics (an index out of bounds).
    {
        let db = sled::open(&dir).unwrap();
        let tree = db.open_tree("t").unwrap();
        for i in 0u64..100_000 {
            tree.insert(i.to_be_bytes(), &[1, 2, 3, 4, 5, 6][..])
                .unwrap();
        }
        db.flush().unwrap();
    }
    // Once its lock is free, sled's last writes are done.
    drop(raw_sled(&dir));
    std::fs::OpenOptions::new()
        .write(true)
        .open(dir.join("db"))
        .unwrap()
        .set_len((1 << 20) + 1)
        .unwrap();
    let output = sandglass(&dir, &["saves"]);
    common::assert_clear_error(&output, "damaged");
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(!stderr.contains("panicked"), "{stderr}");
}

#[test]
fn a_damaged_record_hides_only_its_own_game() {
    let root = tempfile::tempdir().unwrap();
    let dir = root.path().join("data");
    for seed in 1..=3 {
        common::bot_game(&dir, seed, 30);
    }
    {
        let db = raw_sled(&dir);
        let games = db.open_tree("games").unwrap();
        let mut record = games.get(2u64.to_be_bytes()).unwrap().unwrap().to_vec();
        // The name's length, first after the id: now it claims far more than there is.
        record[1] = 0xfc;
        games.insert(2u64.to_be_bytes(), record).unwrap();
        db.flush().unwrap();
    }
    let output = sandglass(&dir, &["saves"]);
    assert!(output.status.success(), "{output:?}");
    let listed = stdout(&output);
    assert!(
        listed.contains("bot-1") && listed.contains("bot-3"),
        "{listed}"
    );
    assert!(!listed.contains("bot-2"), "{listed}");
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        stderr.contains("number 2") && stderr.contains("record"),
        "{stderr}"
    );
    // The others go on as before; the damaged one says what is wrong with it.
    let file = dir.with_file_name("one.sgr");
    let output = sandglass(&dir, &["export", "bot-1", file.to_str().unwrap()]);
    assert!(output.status.success(), "{output:?}");
    let output = sandglass(&dir, &["export", "2", file.to_str().unwrap()]);
    common::assert_clear_error(&output, "record");
    let output = sandglass(&dir, &["bot", "--seed", "9", "--commands", "5"]);
    assert!(output.status.success(), "{output:?}");
}

#[test]
fn a_counter_gone_backwards_never_gives_a_new_game_a_stored_games_number() {
    let root = tempfile::tempdir().unwrap();
    let dir = root.path().join("data");
    let first = common::bot_game(&dir, 1, 30);
    let second = common::bot_game(&dir, 2, 30);
    let before = games_in(&dir);
    {
        let db = raw_sled(&dir);
        db.insert("last_game_id", &0u64.to_be_bytes()).unwrap();
        db.flush().unwrap();
    }
    let third = common::bot_game(&dir, 3, 30);
    assert!(third > first && third > second, "{third:?}");
    let after = games_in(&dir);
    assert!(after.starts_with(&before), "{before}\n{after}");
}

/// A small tmpfs mounted for one test, unmounted when dropped. Mounting needs root, as CI
/// runs; elsewhere there is none.
struct Tmpfs(tempfile::TempDir);

impl Tmpfs {
    fn mount(size: &str) -> Option<Tmpfs> {
        let dir = tempfile::tempdir().unwrap();
        let mounted = Command::new("mount")
            .args(["-t", "tmpfs", "-o", &format!("size={size}"), "tmpfs"])
            .arg(dir.path())
            .stderr(std::process::Stdio::null())
            .status()
            .is_ok_and(|s| s.success());
        mounted.then_some(Tmpfs(dir))
    }

    /// Makes the disk `size` in all, as a player who frees room on a full disk does.
    fn resize(&self, size: &str) {
        let status = Command::new("mount")
            .args(["-o", &format!("remount,size={size}")])
            .arg(self.path())
            .status()
            .unwrap();
        assert!(status.success(), "could not resize the tmpfs to {size}");
    }

    fn path(&self) -> &Path {
        self.0.path()
    }
}

impl Drop for Tmpfs {
    fn drop(&mut self) {
        let _ = Command::new("umount").arg("-l").arg(self.0.path()).status();
    }
}

#[test]
fn a_full_disk_is_said_in_words_and_the_games_stored_still_list_and_export() {
    let Some(disk) = Tmpfs::mount("3m") else {
        assert_ne!(
            euid(),
            0,
            "root could not mount a tmpfs for the disk-full test"
        );
        eprintln!("not root: no tmpfs to fill, the disk-full test does not run here");
        return;
    };
    let dir = disk.path().join("data");
    let outside = tempfile::tempdir().unwrap();
    common::bot_game(&dir, 1, 300);
    let before = games_in(&dir);
    // A game of a million events (4 MB of log) does not fit: the import fails part-way.
    let golden = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../replays/v4/classic-million-4.sgr"
    );
    let output = sandglass(&dir, &["import", golden]);
    common::assert_clear_error(&output, "disk holding the game database is full");
    // Nothing half-written: the games are the ones there were, each listing, loading,
    // folding to its hash, and exporting to a file that verifies.
    assert_eq!(games_in(&dir), before);
    let output = sandglass(&dir, &["verify", "bot-1"]);
    assert!(output.status.success(), "{output:?}");
    let file = outside.path().join("bot-1.sgr");
    let output = sandglass(&dir, &["export", "bot-1", file.to_str().unwrap()]);
    assert!(output.status.success(), "{output:?}");
    let output = sandglass(&dir, &["verify", file.to_str().unwrap()]);
    assert!(output.status.success(), "{output:?}");
    // Filled to the last byte, the disk still lets them be listed and exported (the open
    // gives up the reserve for it, if sled needs room to open at all).
    fill(disk.path());
    for _ in 0..3 {
        assert_eq!(games_in(&dir), before);
        let output = sandglass(&dir, &["export", "bot-1", file.to_str().unwrap()]);
        assert!(output.status.success(), "{output:?}");
    }
    // A new game then plays in what room sled has inside its file, or is refused in words;
    // either way the games stored are as they were.
    let output = sandglass(&dir, &["bot", "--seed", "2", "--commands", "50"]);
    if !output.status.success() {
        common::assert_clear_error(&output, "full");
    }
    let after = games_in(&dir);
    assert!(after.starts_with(&before), "{before}\n{after}");
    // Room again: play goes on. The room is made by growing the disk, not by removing the
    // ballast alone: the import cut short may have taken the whole disk into sled's file
    // before the ballast was written (how much depends on when sled's flusher ran), and
    // the open makes its reserve whole again before any room is left for play.
    std::fs::remove_file(disk.path().join("ballast")).unwrap();
    disk.resize("8m");
    let output = sandglass(
        &dir,
        &["bot", "--seed", "3", "--game", "bot-1", "--commands", "5"],
    );
    assert!(output.status.success(), "{output:?}");
}

/// Writes a file until the disk holding `dir` is full.
fn fill(dir: &Path) {
    use std::io::Write;
    let mut ballast = std::fs::File::create(dir.join("ballast")).unwrap();
    let block = vec![0xa5; 4096];
    while ballast.write_all(&block).is_ok() {}
    let _ = ballast.write_all(&block[..1]);
}

/// The effective user: root may mount.
fn euid() -> u32 {
    let output = Command::new("id").arg("-u").output().unwrap();
    String::from_utf8_lossy(&output.stdout)
        .trim()
        .parse()
        .unwrap()
}

/// splitmix64, for choosing which bytes to change.
fn mix(state: &mut u64) -> u64 {
    *state = state.wrapping_add(0x9e37_79b9_7f4a_7c15);
    let mut z = *state;
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}

/// A snapshot made to say what it likes: its state changed, then deflated, its hash,
/// length and checksum all made to match, as a hand with the format at hand would.
fn crafted_snapshot(state: &[u8]) -> Vec<u8> {
    let mut body = xxhash_rust::xxh3::xxh3_64(state).to_le_bytes().to_vec();
    body.extend((state.len() as u32).to_le_bytes());
    body.extend(miniz_oxide::deflate::compress_to_vec(state, 1));
    let mut value = xxhash_rust::xxh3::xxh3_64(&body).to_le_bytes().to_vec();
    value.extend(body);
    value
}

/// Crafted snapshots, each a state with a few bytes changed and every check made to pass
/// but the state's own: whatever they hold, loading the game skips them with a warning (a
/// state that does not hold together is refused when decoded; one that does, but is not
/// where the log leads, when the fold from it fails or misses the saved hash), rebuilds
/// them from the log, and plays on; never a panic, a hang, or a game lost.
#[test]
fn crafted_snapshots_are_skipped_and_rebuilt_never_trusted_blindly() {
    // Its last snapshot is on the level the game ends on: a change to a level the camel
    // leaves after it would be forgotten with the level, and loading could not tell.
    let (_root, dir) = one_game(700);
    let (key, original, state) = {
        let db = raw_sled(&dir);
        let tree = db.open_tree("snapshots").unwrap();
        let (key, value) = entries_of(&tree, GameId(1))
            .pop()
            .expect("a game of 700 commands has a snapshot");
        let state = miniz_oxide::inflate::decompress_to_vec(&value[20..]).unwrap();
        (key.to_vec(), value.to_vec(), state)
    };
    let mut seed = 0x5eed;
    let mut reasons = std::collections::BTreeSet::new();
    let mut warned = 0;
    for round in 0..60 {
        let mut changed = state.clone();
        for _ in 0..=(mix(&mut seed) % 4) {
            let at = (mix(&mut seed) % changed.len() as u64) as usize;
            changed[at] = mix(&mut seed) as u8;
        }
        if changed == state {
            continue;
        }
        {
            let db = raw_sled(&dir);
            let tree = db.open_tree("snapshots").unwrap();
            tree.insert(&key, crafted_snapshot(&changed)).unwrap();
            db.flush().unwrap();
        }
        let output = sandglass(
            &dir,
            &["bot", "--seed", "1", "--game", ONE_GAME, "--commands", "1"],
        );
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert!(output.status.success(), "round {round}: {output:?}");
        // A change only to what the game forgets before its last event (an old message
        // pushed out of the log) folds to the saved hash all the same: loading cannot tell
        // it from the true state, and plays on from the true state. Such a snapshot stays
        // (`verify` names it, its hash not the log's there); with the true one put back,
        // the game the bot played on verifies. Every other is skipped and rebuilt.
        match stderr
            .lines()
            .find(|l| l.contains("snapshot") && l.contains("rebuilt"))
        {
            Some(warning) => {
                let reason = warning.split(" was skipped (").nth(1).unwrap_or("");
                reasons.insert(reason.split([':', ')']).next().unwrap_or("").to_owned());
                warned += 1;
            }
            None => {
                let db = raw_sled(&dir);
                let tree = db.open_tree("snapshots").unwrap();
                tree.insert(&key, original.clone()).unwrap();
                db.flush().unwrap();
            }
        }
        let output = sandglass(&dir, &["verify", ONE_GAME]);
        assert!(
            output.status.success(),
            "round {round}: rebuilt, it checks: {output:?}"
        );
    }
    assert!(
        warned >= 50,
        "only {warned} of 60 crafted snapshots were skipped"
    );
    println!("crafted snapshots skipped for: {reasons:?}");
    games_in(&dir);
}
