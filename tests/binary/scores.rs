//! The high-score table through the real binary: `scores --json` ranks stored games by
//! the score their own logs fold to, and a game whose log was tampered with is listed as
//! unverified, never ranked.

mod common;

use common::{bot_game, raw_sled, sandglass, stdout};

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
        let steps = db.open_tree(format!("game/{tampered}/steps")).unwrap();
        let (key, value) = steps.last().unwrap().unwrap();
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
