//! Every kept rules version through the real binary: games of each version (2 to 5) made
//! by importing their goldens are listed with their version, scored and verified under
//! their own rules, played on and exported under the version they began with; a stored
//! game of a version this build does not keep is listed as not playable, and refused with
//! both versions named, none of its data changed.

mod common;

use std::path::{Path, PathBuf};

use common::{assert_clear_error, raw_sled, sandglass, stdout};
use sandglass_sim::rules;
use sandglass_store::sgr;
use serde_json::Value;

fn golden(version: u16, name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join(format!("../replays/v{version}/{name}.sgr"))
}

fn json_lines(dir: &Path, args: &[&str]) -> Vec<Value> {
    let output = sandglass(dir, args);
    assert!(output.status.success(), "{output:?}");
    stdout(&output)
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect()
}

fn import(dir: &Path, file: &Path, name: &str) {
    let output = sandglass(dir, &["import", file.to_str().unwrap(), "--name", name]);
    assert!(output.status.success(), "{output:?}");
}

#[test]
fn games_of_every_kept_version_list_score_verify_and_play_on_under_their_own_rules() {
    let root = tempfile::tempdir().unwrap();
    let dir = root.path().join("data");
    for version in rules::KEPT {
        import(
            &dir,
            &golden(version, "nethack-quit-4"),
            &format!("quit-v{version}"),
        );
        import(
            &dir,
            &golden(version, "nethack-short-1"),
            &format!("short-v{version}"),
        );
    }
    let saves = json_lines(&dir, &["saves", "--json"]);
    assert_eq!(saves.len(), 2 * rules::KEPT.len());
    for game in &saves {
        let name = game["name"].as_str().unwrap();
        let version = name.rsplit_once("-v").unwrap().1;
        assert_eq!(game["rules_version"].to_string(), version, "{game}");
        assert_eq!(game["playable"], true, "{game}");
    }
    // Every entry of the table is folded under its own rules, and says which.
    let scores = json_lines(&dir, &["scores", "--json"]);
    assert!(scores.iter().all(|s| s["verified"] == true), "{scores:?}");
    let text = stdout(&sandglass(&dir, &["scores"]));
    assert!(text.lines().next().unwrap().ends_with("RULES"), "{text}");

    for version in rules::KEPT {
        let name = format!("short-v{version}");
        let verdict = &json_lines(&dir, &["verify", "--json", &name])[0];
        assert_eq!(verdict["ok"], true, "{verdict}");
        assert_eq!(verdict["rules_version"], version, "{verdict}");
        // Played on, saved, exported: still its own version, and it verifies.
        let output = sandglass(
            &dir,
            &["bot", "--seed", "5", "--commands", "40", "--game", &name],
        );
        assert!(output.status.success(), "{output:?}");
        let file = root.path().join(format!("{name}.sgr"));
        let output = sandglass(&dir, &["export", &name, file.to_str().unwrap()]);
        assert!(output.status.success(), "{output:?}");
        let exported = sgr::read(&file).unwrap();
        assert_eq!(exported.header.rules_version, version);
        assert!(exported.events.len() > 274, "the game went on");
        let verdict = &json_lines(&dir, &["verify", "--json", file.to_str().unwrap()])[0];
        assert_eq!(verdict["ok"], true, "{verdict}");
        assert_eq!(verdict["rules_version"], version, "{verdict}");
    }
    // A new game is played under the newest rules.
    let output = sandglass(
        &dir,
        &["bot", "--seed", "8", "--commands", "5", "--name", "new"],
    );
    assert!(output.status.success(), "{output:?}");
    let new = json_lines(&dir, &["saves", "--json"])
        .into_iter()
        .find(|g| g["name"] == "new")
        .unwrap();
    assert_eq!(new["rules_version"], rules::NEWEST);
}

/// Every key and value of every tree in the data directory's database: what its games
/// hold, apart from how sled lays its files out (which any open may tidy).
fn contents_of(dir: &Path) -> Vec<(Vec<u8>, Vec<u8>, Vec<u8>)> {
    let db = raw_sled(dir);
    let mut out = vec![];
    for name in db.tree_names() {
        for entry in db.open_tree(&name).unwrap().iter() {
            let (k, v) = entry.unwrap();
            out.push((name.to_vec(), k.to_vec(), v.to_vec()));
        }
    }
    out
}

#[test]
fn a_stored_game_of_a_version_this_build_does_not_keep_is_listed_and_refused_in_words() {
    let root = tempfile::tempdir().unwrap();
    let dir = root.path().join("data");
    import(&dir, &golden(rules::NEWEST, "nethack-short-1"), "kept");
    import(&dir, &golden(rules::NEWEST, "nethack-quit-4"), "future");
    let newer = rules::NEWEST + 1;
    {
        // The record's header names a rules version from a newer build: a data directory
        // that build wrote, opened by this one.
        let db = raw_sled(&dir);
        let games = db.open_tree("games").unwrap();
        let (key, record) = games
            .iter()
            .map(Result::unwrap)
            .find(|(_, v)| v.windows(6).any(|w| w == b"future"))
            .unwrap();
        let mut record = record.to_vec();
        // After the id and the name: the format version (1), then the rules version.
        let name_end = record.windows(6).position(|w| w == b"future").unwrap() + 6;
        assert_eq!(record[name_end..name_end + 2], [1, rules::NEWEST as u8]);
        record[name_end + 1] = newer as u8;
        games.insert(key, record).unwrap();
        db.flush().unwrap();
    }
    let before = contents_of(&dir);
    let saves = json_lines(&dir, &["saves", "--json"]);
    let future = saves.iter().find(|g| g["name"] == "future").unwrap();
    assert_eq!(future["rules_version"], newer);
    assert_eq!(future["playable"], false);
    let table = stdout(&sandglass(&dir, &["saves"]));
    assert!(
        table.contains(&format!("{newer} (not playable by this build)")),
        "{table}"
    );
    let both = format!("rules version {newer}, newer than this build");
    let file = root.path().join("out.sgr");
    for args in [
        vec!["export", "future", file.to_str().unwrap()],
        vec!["bot", "--seed", "1", "--commands", "3", "--game", "future"],
        vec!["save-as", "future", "copy"],
    ] {
        assert_clear_error(&sandglass(&dir, &args), &both);
    }
    let verdict = &json_lines_failing(&dir, &["verify", "--json", "future"])[0];
    assert!(
        verdict["error"].as_str().unwrap().contains(&both),
        "{verdict}"
    );
    // The table lists it, unranked, and the kept game ranked.
    let scores = json_lines(&dir, &["scores", "--json"]);
    let entry = scores.iter().find(|s| s["name"] == "future").unwrap();
    assert_eq!(entry["verified"], false, "{entry}");
    assert_eq!(entry["rank"], Value::Null);
    assert!(contents_of(&dir) == before, "the games' data changed");
}

fn json_lines_failing(dir: &Path, args: &[&str]) -> Vec<Value> {
    let output = sandglass(dir, args);
    assert!(!output.status.success(), "{output:?}");
    stdout(&output)
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect()
}
