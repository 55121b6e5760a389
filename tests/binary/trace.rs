//! `sandglass trace` on the example scenarios: the documented format and time rules.

use std::process::Command;

fn trace(scenario: &str, ticks: u64) -> Vec<serde_json::Value> {
    let path = format!("{}/../scenarios/{scenario}", env!("CARGO_MANIFEST_DIR"));
    let out = Command::new(env!("CARGO_BIN_EXE_sandglass"))
        .args(["trace", &path, "--ticks", &ticks.to_string()])
        .output()
        .expect("the binary runs");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout)
        .expect("utf-8")
        .lines()
        .map(|l| serde_json::from_str(l).expect("each line is one JSON object"))
        .collect()
}

fn per_tick(lines: &[serde_json::Value], name: &str, ticks: u64) -> Vec<usize> {
    (1..=ticks)
        .map(|t| {
            lines
                .iter()
                .filter(|l| l["name"] == name && l["tick"] == t)
                .count()
        })
        .collect()
}

#[test]
fn speeds_follow_the_nethack_rules() {
    let lines = trace("speeds.toml", 6);
    let keys: Vec<&String> = lines[0].as_object().unwrap().keys().collect();
    assert_eq!(keys.len(), 6);
    assert_eq!(per_tick(&lines, "speedy", 6), vec![1, 1, 2, 1, 1, 2]);
    assert_eq!(per_tick(&lines, "normal", 6), vec![1; 6]);
    assert_eq!(per_tick(&lines, "slow", 6), vec![0, 1, 1, 0, 1, 1]);
}

#[test]
fn the_classic_slow_actor_moves_every_second_tick() {
    let lines = trace("classic.toml", 6);
    assert_eq!(per_tick(&lines, "slow", 6), vec![0, 1, 0, 1, 0, 1]);
}

#[test]
fn the_elephant_charges_and_the_egg_hatches() {
    let elephant = trace("elephant.toml", 20);
    assert!(elephant
        .iter()
        .any(|l| l["name"] == "jumbo" && l["action"] == "charge"));
    assert!(elephant
        .iter()
        .any(|l| l["name"] == "jumbo" && l["action"] == "ram"));
    // Ten turns of waiting, and the egg hatches on its 11th.
    let eggs = trace("eggs.toml", 11);
    let egg: Vec<&str> = eggs
        .iter()
        .filter(|l| l["name"] == "egg")
        .map(|l| l["action"].as_str().unwrap())
        .collect();
    assert_eq!(egg.len(), 11);
    assert!(egg[..10].iter().all(|&a| a == "idle"), "{egg:?}");
    assert_eq!(egg[10], "hatch");
}

#[test]
fn a_bad_scenario_is_one_clear_line() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("bad.toml");
    let bad = [
        (
            "ruleset = \"chess\"\nmap = \"..\"\n",
            "unknown ruleset \"chess\"",
        ),
        // Not TOML at all: toml's own message quotes the line over several.
        ("seed = 1\nmap = \n", "line 2, column 7: invalid string"),
    ];
    for (text, needle) in bad {
        std::fs::write(&path, text).unwrap();
        let out = Command::new(env!("CARGO_BIN_EXE_sandglass"))
            .args(["trace", path.to_str().unwrap(), "--ticks", "3"])
            .output()
            .unwrap();
        assert!(!out.status.success());
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(err.lines().count(), 1, "{err}");
        assert!(err.contains(needle), "{err}");
    }
}
