//! Giving the room of deleted games back to the file system, through the real binary: a
//! data directory whose deletes freed most of it is rewritten as it opens, every game
//! kept as it was, and a rewrite stopped at any step, by a kill, leaves a directory whose
//! every game opens whole on the next run.

mod common;

use std::path::{Path, PathBuf};
use std::process::Command;

use common::{games, have, sandglass, saves_killed_at};
use sandglass_sim::bot::Bot;
use sandglass_sim::{Rules, Ruleset};
use sandglass_store::Store;

/// Games stored, and of them deleted (the oldest), in the directory every run starts from.
const STORED: u64 = 1000;
const DELETED: u64 = 900;

/// A segment of sled's log: what one store may take more than another of the same games
/// (sled applies a batch's keys in a `HashMap`'s order, new each run).
const SEGMENT: u64 = 512 << 10;

/// Stores the bot's games of `seeds` in the data directory `dir`.
fn store_games(dir: &Path, seeds: std::ops::Range<u64>) -> Store {
    let store = Store::open(dir).unwrap();
    let rules = Rules::newest(Ruleset::NETHACK);
    for seed in seeds {
        let tape = Bot::new(seed).record(rules, seed, 60);
        let name = format!("g{seed}");
        store
            .create_from_tape(&name, &tape.header, &tape.events, &mut |_, _| ())
            .unwrap();
    }
    store
}

/// A data directory in `tmp` that held `STORED` bot games and deleted `DELETED` of them,
/// closed before any open could rewrite it; and its games as `saves` lists them (name,
/// commands, hash), read from the library before it closed.
fn after_deletes(tmp: &Path) -> (PathBuf, Vec<(String, u64, String)>) {
    let dir = tmp.join("template");
    let store = store_games(&dir, 0..STORED);
    for meta in store.games().unwrap().into_iter().take(DELETED as usize) {
        store.delete(meta.id).unwrap();
    }
    assert!(store.has_room_to_give_back().unwrap());
    let mut kept: Vec<_> = store
        .games()
        .unwrap()
        .into_iter()
        .map(|meta| {
            let hash = format!("0x{:016x}", meta.last_hash);
            (meta.name, meta.commands, hash)
        })
        .collect();
    kept.sort();
    (dir, kept)
}

/// A fresh copy of `template` at `to`.
fn copy_of(template: &Path, to: &Path) -> PathBuf {
    if to.exists() {
        std::fs::remove_dir_all(to).unwrap();
    }
    let status = Command::new("cp")
        .arg("-a")
        .arg(template)
        .arg(to)
        .status()
        .unwrap();
    assert!(status.success());
    to.to_owned()
}

fn disk_bytes(dir: &Path) -> u64 {
    let output = Command::new("du")
        .args(["-s", "-B1"])
        .arg(dir)
        .output()
        .unwrap();
    let said = String::from_utf8_lossy(&output.stdout);
    said.split_whitespace().next().unwrap().parse().unwrap()
}

/// What a run left opens with every game whole and as it was, and nothing half-done
/// beside the database.
fn check_whole(dir: &Path, kept: &[(String, u64, String)]) -> Result<(), String> {
    let listed = std::panic::catch_unwind(|| common::games_in(dir));
    listed.map_err(|_| "a game does not load whole".to_owned())?;
    let listed = games(dir)?;
    if listed != kept {
        return Err(format!("the games differ: {listed:?}"));
    }
    if dir.join("migrating").exists() {
        return Err("migrating/ is left".into());
    }
    Ok(())
}

#[test]
fn a_directory_whose_deletes_freed_most_of_it_is_rewritten_as_it_opens() {
    let tmp = tempfile::tempdir().unwrap();
    let (template, kept) = after_deletes(tmp.path());
    let dir = copy_of(&template, &tmp.path().join("data"));
    let before = disk_bytes(&dir);
    let output = sandglass(&dir, &["saves", "--json"]);
    assert!(output.status.success(), "{output:?}");
    let after = disk_bytes(&dir);
    check_whole(&dir, &kept).unwrap();
    // The rewrite takes what the kept games take stored on their own, whatever the load;
    // what the directory took before depends on it (how often sled's flusher rewrote
    // pages as the games went in and out), so it is told, not checked: that there was
    // room to give back is `has_room_to_give_back` as the template was made.
    let alone = tmp.path().join("alone");
    drop(store_games(&alone, DELETED..STORED));
    let only_kept = disk_bytes(&alone);
    assert!(
        after <= only_kept + 2 * SEGMENT,
        "{after} bytes after the open, {before} before, {only_kept} for the kept games alone"
    );
    // Rewritten once: the next open leaves it be.
    let output = sandglass(&dir, &["saves"]);
    assert!(output.status.success(), "{output:?}");
    assert!(disk_bytes(&dir) <= after + (1 << 20));
}

#[test]
fn a_delete_from_the_command_line_gives_the_room_back_at_once() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("data");
    drop(store_games(&dir, 0..100));
    let kept = games(&dir).unwrap();
    // A game of a million events, most of what the directory holds, then deleted.
    let million = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../replays/v10/classic-million-4.sgr"
    );
    let output = sandglass(&dir, &["import", million, "--name", "million"]);
    assert!(output.status.success(), "{output:?}");
    let before = disk_bytes(&dir);
    let output = sandglass(&dir, &["delete", "million"]);
    assert!(output.status.success(), "{output:?}");
    let after = disk_bytes(&dir);
    assert!(
        after * 2 <= before,
        "{after} bytes after the delete, {before} before"
    );
    check_whole(&dir, &kept).unwrap();
}

/// Killed at each rename (the moves of the old files aside and of the new ones in, the
/// marks), at each sync, at each removal and at writes of the copy: at every one, what is
/// left opens with every game whole, and the next open finishes the rewrite or starts it
/// again.
#[cfg_attr(
    lacks_strace,
    ignore = "skipped: strace is not installed (.ci/run installs it)"
)]
#[test]
fn a_rewrite_killed_at_any_step_leaves_every_game_whole() {
    if !have("strace", "strace") {
        return;
    }
    let tmp = tempfile::tempdir().unwrap();
    let (template, kept) = after_deletes(tmp.path());
    let points: &[(&str, u32)] = &[
        ("rename,renameat,renameat2", 10),
        ("fsync,fdatasync", 10),
        ("unlink,unlinkat,rmdir", 5),
        ("pwrite64,write", 8),
        ("mkdir,mkdirat", 2),
    ];
    let mut killed = 0;
    let mut failures = vec![];
    for &(calls, most) in points {
        for nth in 1..=most {
            let dir = copy_of(&template, &tmp.path().join("data"));
            if saves_killed_at(&dir, calls, nth) {
                killed += 1;
            }
            if let Err(why) = check_whole(&dir, &kept) {
                failures.push(format!("killed at {calls} call {nth}: {why}"));
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
    assert!(killed >= 20, "only {killed} runs were killed part-way");
    println!("{killed} runs killed part-way, each left every game whole");
}
