//! The high-score table through the real binary: `scores --json` ranks stored games by
//! the score their own logs fold to, and a game whose log was tampered with is listed as
//! unverified, never ranked. A remembered verdict is trusted only while its game's log
//! is the one it proved, and `--recheck` catches one its log does not support.

mod common;

use std::path::Path;
use std::process::Output;

use common::{bot_game, entries_of, raw_sled, sandglass, stdout};
use sandglass_sim::bot::Bot;
use sandglass_sim::{Command, Header, Ruleset};
use sandglass_store::{GameId, Store};

#[test]
fn a_tampered_game_is_listed_unverified_and_never_ranked() {
    let root = tempfile::tempdir().unwrap();
    let dir = root.path().join("data");
    let honest = bot_game(&dir, 1, 300);
    let tampered = bot_game(&dir, 2, 300);
    {
        // The last draw of the second game's log changed, and its step's checksum
        // recomputed as a forger would: every value still decodes, but the tape is not
        // the one its hash was saved with.
        let db = raw_sled(&dir);
        let steps = db.open_tree("steps").unwrap();
        let (key, value) = entries_of(&steps, tampered).pop().unwrap();
        let mut body = value[8..].to_vec();
        let last = body.len() - 1;
        body[last] ^= 0x80;
        let mut forged = xxhash_rust::xxh3::xxh3_64(&body).to_le_bytes().to_vec();
        forged.extend(body);
        steps.insert(key, forged).unwrap();
        db.flush().unwrap();
    }
    let output = sandglass(&dir, &["scores", "--json"]);
    assert!(output.status.success(), "{output:?}");
    let lines: Vec<serde_json::Value> = stdout(&output)
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(lines.len(), 2, "{lines:?}");
    let of = |id: u64| lines.iter().find(|l| l["id"] == id).unwrap();
    assert_eq!(of(honest.0)["rank"], 1);
    assert_eq!(of(honest.0)["verified"], true);
    assert!(of(honest.0)["score"].as_u64().unwrap() >= 100);
    assert_eq!(of(tampered.0)["rank"], serde_json::Value::Null);
    assert_eq!(of(tampered.0)["verified"], false);
    assert_eq!(of(tampered.0)["score"], serde_json::Value::Null);
    // The table a person reads says so too.
    let text = stdout(&sandglass(&dir, &["scores"]));
    assert!(text.contains("unverified"), "{text}");
    assert!(text.contains("is not ranked"), "{text}");
}

/// A finished game (the bot's `commands`, then quit) stored through the library, as the
/// window stores one: its verdict is written with its last step.
fn finished_game(dir: &Path, seed: u64, commands: u64) -> GameId {
    let store = Store::open(dir).unwrap();
    let header = Header::new(seed, Ruleset::NETHACK, 0);
    let mut session = store.create(&format!("g{seed}"), header, &mut ()).unwrap();
    Bot::new(seed).play(&mut session, commands).unwrap();
    if session.state().outcome().is_none() {
        session.command(Command::Quit, &mut ()).unwrap();
    }
    session.meta().id
}

/// `scores --json`, each line parsed, by game number.
fn scores(dir: &Path, args: &[&str]) -> (Output, Vec<serde_json::Value>) {
    let output = sandglass(dir, &[&["scores", "--json"], args].concat());
    let lines = stdout(&output)
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    (output, lines)
}

fn of(lines: &[serde_json::Value], id: GameId) -> &serde_json::Value {
    lines.iter().find(|l| l["id"] == id.0).unwrap()
}

/// Rewrites the step at the end of a game's log, one draw changed and its checksum made
/// anew as a forger would: it decodes, but it is not the log the verdict proved.
fn forge_last_step(dir: &Path, id: GameId) {
    let db = raw_sled(dir);
    let steps = db.open_tree("steps").unwrap();
    let (key, value) = entries_of(&steps, id).swap_remove(0);
    let mut body = value[8..].to_vec();
    body[0] ^= 0x01;
    let mut forged = xxhash_rust::xxh3::xxh3_64(&body).to_le_bytes().to_vec();
    forged.extend(body);
    steps.insert(key, forged).unwrap();
    db.flush().unwrap();
}

#[test]
fn a_stored_verdict_is_not_trusted_once_a_step_of_its_log_changed() {
    let root = tempfile::tempdir().unwrap();
    let dir = root.path().join("data");
    let honest = finished_game(&dir, 1, 200);
    let damaged = finished_game(&dir, 2, 200);
    let (output, lines) = scores(&dir, &[]);
    assert!(output.status.success(), "{output:?}");
    assert_eq!(of(&lines, damaged)["verified"], true, "{lines:?}");
    forge_last_step(&dir, damaged);
    let (output, lines) = scores(&dir, &[]);
    assert!(output.status.success(), "{output:?}");
    assert_eq!(of(&lines, honest)["verified"], true);
    assert_eq!(of(&lines, honest)["rank"], 1);
    assert_eq!(of(&lines, damaged)["verified"], false, "{lines:?}");
    assert_eq!(of(&lines, damaged)["rank"], serde_json::Value::Null);
    // A damaged byte the step's own checksum catches: the same.
    {
        let db = raw_sled(&dir);
        let steps = db.open_tree("steps").unwrap();
        let (key, value) = entries_of(&steps, honest).pop().unwrap();
        let mut bad = value.to_vec();
        let last = bad.len() - 1;
        bad[last] ^= 0x40;
        steps.insert(key, bad).unwrap();
        db.flush().unwrap();
    }
    let (output, lines) = scores(&dir, &[]);
    assert!(output.status.success(), "{output:?}");
    assert_eq!(of(&lines, honest)["verified"], false, "{lines:?}");
    let why = of(&lines, honest)["why_unverified"].as_str().unwrap();
    assert!(why.contains("checksum"), "{why}");
}

#[test]
fn a_game_played_on_is_scored_again_from_its_longer_log() {
    let root = tempfile::tempdir().unwrap();
    let dir = root.path().join("data");
    let id = bot_game(&dir, 3, 30);
    let (_, before) = scores(&dir, &[]);
    let turns_before = of(&before, id)["turns"].as_u64().unwrap();
    // The table proved the live game and remembered it; then it is played on.
    let game = id.0.to_string();
    let output = sandglass(
        &dir,
        &["bot", "--seed", "3", "--game", &game, "--commands", "300"],
    );
    assert!(output.status.success(), "{output:?}");
    let (_, after) = scores(&dir, &[]);
    let turns_after = of(&after, id)["turns"].as_u64().unwrap();
    assert!(
        turns_after > turns_before,
        "{turns_before} -> {turns_after}"
    );
    // And what it says now is what a fold from scratch says.
    let (output, rechecked) = scores(&dir, &["--recheck"]);
    assert!(output.status.success(), "{output:?}");
    assert_eq!(after, rechecked);
}

#[test]
fn recheck_catches_a_forged_verdict_and_puts_the_folded_score_back() {
    let root = tempfile::tempdir().unwrap();
    let dir = root.path().join("data");
    let id = finished_game(&dir, 4, 100);
    let (_, honest) = scores(&dir, &[]);
    let points = of(&honest, id)["score"].as_u64().unwrap();
    {
        // The verdict's points (its last 8 bytes) raised, its checksum made anew: it
        // still describes the game as stored, so only a fold can tell it is false.
        let db = raw_sled(&dir);
        let verdicts = db.open_tree("verdicts").unwrap();
        let value = verdicts.get(id.0.to_be_bytes()).unwrap().unwrap();
        let mut body = value[8..].to_vec();
        let at = body.len() - 8;
        body[at..].copy_from_slice(&1_000_000u64.to_le_bytes());
        let mut forged = xxhash_rust::xxh3::xxh3_64(&body).to_le_bytes().to_vec();
        forged.extend(body);
        verdicts.insert(id.0.to_be_bytes(), forged).unwrap();
        db.flush().unwrap();
    }
    let (output, _) = scores(&dir, &["--recheck"]);
    assert!(!output.status.success(), "{output:?}");
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(stderr.contains("1000000 points"), "{stderr}");
    assert!(
        stderr.contains(&format!("folds to {points} points")),
        "{stderr}"
    );
    let (output, after) = scores(&dir, &[]);
    assert!(output.status.success(), "{output:?}");
    assert_eq!(of(&after, id)["score"], points);
    let (output, _) = scores(&dir, &["--recheck"]);
    assert!(output.status.success(), "{output:?}");
}

#[test]
fn a_damaged_verdict_is_proved_again_never_a_panic() {
    let root = tempfile::tempdir().unwrap();
    let dir = root.path().join("data");
    let id = finished_game(&dir, 5, 50);
    let (_, honest) = scores(&dir, &[]);
    for damage in [vec![], vec![0xff; 3], vec![0; 200]] {
        {
            let db = raw_sled(&dir);
            let verdicts = db.open_tree("verdicts").unwrap();
            verdicts.insert(id.0.to_be_bytes(), damage).unwrap();
            db.flush().unwrap();
        }
        let (output, lines) = scores(&dir, &[]);
        assert!(output.status.success(), "{output:?}");
        assert_eq!(lines, honest);
    }
}
