//! Morgues: `sandglass dump` of any moment of a stored game or a replay file, and the
//! morgue a game leaves in the data directory when it ends.

mod common;

use std::path::Path;

use common::{assert_clear_error, sandglass, stdout};
use sandglass_sim::{fold, Rules, State};
use sandglass_store::sgr;

const GOLDEN: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/../replays/v10/nethack-whole-3.sgr"
);

/// The golden's log folded to its first `events` events.
fn folded(events: usize) -> State {
    let replay = sgr::read(Path::new(GOLDEN)).unwrap();
    let rules = Rules::of(&replay.header).unwrap();
    fold(rules, replay.events[..events].iter().copied(), &mut ()).unwrap()
}

/// `after N events` from a dump's third line.
fn events_of(dump: &str) -> usize {
    let line = dump.lines().nth(2).unwrap();
    let after = line.split("after ").nth(1).unwrap();
    after.split(' ').next().unwrap().parse().unwrap()
}

/// What a dump says of the camel agrees with the fold of the log as far as it says it
/// went: depth, hit points, bags.
fn agrees_with_the_fold(dump: &str) {
    let state = folded(events_of(dump));
    let world = state.world();
    let camel = world.player().unwrap();
    let hp = format!("Hit points   {}/{}\n", camel.hp().max(0), camel.max_hp());
    assert!(dump.contains(&hp), "no {hp:?} in\n{dump}");
    let depth = format!("Depth {}, turns {}", world.depth(), state.tick().0);
    assert!(dump.contains(&depth), "no {depth:?} in\n{dump}");
    for (slot, stack) in world.bags().stacks() {
        let line = format!(
            "\n{} - {}\n",
            slot.letter(),
            world.counted_items(stack.item, stack.count)
        );
        assert!(dump.contains(&line), "no {line:?} in\n{dump}");
    }
}

#[test]
fn a_replays_dump_at_its_end_and_at_a_middle_turn_agrees_with_the_fold() {
    let dir = tempfile::tempdir().unwrap();
    let output = sandglass(dir.path(), &["dump", GOLDEN]);
    assert!(output.status.success(), "{output:?}");
    let end = stdout(&output);
    assert!(end.starts_with("Sandglass: nethack-whole-3.sgr\n"), "{end}");
    assert!(
        end.contains("Rules version 10, ruleset nethack, seed 3\n"),
        "{end}"
    );
    assert!(end.contains("Died on depth 5, "), "{end}");
    assert!(
        end.contains("== Depth 5 as the camel last saw it =="),
        "{end}"
    );
    assert_eq!(events_of(&end), 6395);
    agrees_with_the_fold(&end);

    let output = sandglass(dir.path(), &["dump", GOLDEN, "--turn", "200"]);
    assert!(output.status.success(), "{output:?}");
    let middle = stdout(&output);
    assert!(middle.contains("At turn 200, "), "{middle}");
    assert!(middle.contains("Still crossing, on depth "), "{middle}");
    agrees_with_the_fold(&middle);
    let map = middle
        .split("as the camel last saw it ==\n")
        .nth(1)
        .unwrap();
    assert_eq!(map.matches('@').count(), 1, "{map}");
}

#[test]
fn a_game_the_bot_ends_leaves_a_morgue_and_dump_writes_the_same() {
    let dir = tempfile::tempdir().unwrap();
    let output = sandglass(dir.path(), &["bot", "--seed", "30", "--commands", "100000"]);
    assert!(output.status.success(), "{output:?}");
    let text = stdout(&output);
    let path = text
        .lines()
        .find_map(|line| line.strip_prefix("morgue "))
        .unwrap_or_else(|| panic!("no `morgue FILE` line in {text}"));
    assert_eq!(
        Path::new(path),
        dir.path().join("morgue").join("bot-30-1.txt")
    );
    let morgue = std::fs::read_to_string(path).unwrap();
    assert!(
        morgue.starts_with("Sandglass: bot-30 (game 1)\n"),
        "{morgue}"
    );
    let out = dir.path().join("dump.txt");
    let output = sandglass(
        dir.path(),
        &["dump", "bot-30", "--out", out.to_str().unwrap()],
    );
    assert!(output.status.success(), "{output:?}");
    assert!(output.stdout.is_empty(), "{output:?}");
    assert_eq!(std::fs::read_to_string(out).unwrap(), morgue);
    // A game cut short has no morgue until it ends.
    let output = sandglass(dir.path(), &["bot", "--seed", "31", "--commands", "5"]);
    assert!(!stdout(&output).contains("morgue"), "{output:?}");
}

#[test]
fn a_missing_or_damaged_game_is_a_clear_error() {
    let dir = tempfile::tempdir().unwrap();
    let output = sandglass(dir.path(), &["dump", "no-such-game"]);
    assert_clear_error(&output, "no-such-game");
    let missing = dir.path().join("missing.sgr");
    let output = sandglass(dir.path(), &["dump", missing.to_str().unwrap()]);
    assert_clear_error(&output, "missing.sgr");
    let mut bytes = std::fs::read(GOLDEN).unwrap();
    bytes.truncate(bytes.len() / 2);
    let damaged = dir.path().join("damaged.sgr");
    std::fs::write(&damaged, bytes).unwrap();
    let output = sandglass(dir.path(), &["dump", damaged.to_str().unwrap()]);
    assert_clear_error(&output, "damaged.sgr");
    let output = sandglass(dir.path(), &["dump", GOLDEN, "--turn", "100000"]);
    assert_clear_error(&output, "there is no turn 100000");
}
