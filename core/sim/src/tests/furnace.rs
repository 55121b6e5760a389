//! The furnace (rules version 13): wounds close more slowly as the crossing goes down and
//! not by themselves on its last three depths, the camel is told where that changes, and
//! a level holds one stone.

use super::{hurt_by_ten, level_of, onto, rest_until, version};
use crate::command::Command;
use crate::crossing::{Crossing, DEEP_DESERT, FURNACE, REGENERATE_EVERY};
use crate::item::Item;
use crate::level::{generate, Contents};
use crate::message::Msg;
use crate::rules::Rules;

/// The camel's hit points after resting `turns` times on an open level at `depth`, from
/// 10 below its most, under `rules`; and how many turns it took.
fn rested(rules: Rules, depth: u8, turns: usize) -> (i16, u32) {
    let mut level = level_of(&["@......", "......."]);
    level.depth = depth;
    let (live, _) = onto(rules, 7, level);
    let (mut live, camel, start) = hurt_by_ten(live, 7);
    rest_until(&mut live, turns, |_| false);
    let world = live.state().world();
    let lost = world.player().unwrap().max_hp() - world.player().unwrap().hp();
    (10 - lost, world.turns(camel) - start)
}

/// Under 13 a wound closes every 8 turns to depth 3, every 12 from depth 4, every 20 in
/// the deep desert, and never by itself on the last three depths; under 12 every 8 turns
/// at every depth.
#[test]
fn wounds_close_more_slowly_with_depth_and_not_at_all_at_the_end() {
    let cases = [
        (2, Some(8)),
        (5, Some(12)),
        (DEEP_DESERT, Some(20)),
        (FURNACE, None),
        (12, None),
    ];
    for (depth, every) in cases {
        assert_eq!(Crossing::Furnace.regenerate_every(depth), every);
        let (healed, turns) = rested(version(13), depth, 60);
        let expected = every.map_or(0, |e| turns / e) as i16;
        assert!(
            (expected - 1..=expected).contains(&healed),
            "depth {depth}: {healed} back in {turns} turns"
        );
        if every.is_none() {
            assert_eq!(healed, 0, "depth {depth}");
        }
    }
    let (healed, turns) = rested(version(12), FURNACE + 1, 36);
    assert!(
        healed >= (turns / REGENERATE_EVERY) as i16 - 1,
        "{healed} in {turns}"
    );
}

/// Going down the stairs, the camel is told of the heat where its wounds start to close
/// more slowly (depths 4 and 7) and where they stop closing (depth 10), and nowhere else.
#[test]
fn the_heat_is_told_where_it_changes_how_wounds_close() {
    let told = |rules: Rules, from: u8| {
        let mut level = level_of(&[">......"]);
        level.depth = from;
        let (mut live, _) = onto(rules, 3, level);
        live.command(Command::Descend, &mut (), &mut vec![])
            .unwrap();
        let world = live.state().world();
        assert_eq!(world.depth(), from + 1);
        let heat = world.messages().recent().find_map(|m| match m.msg {
            Msg::Hotter { heals_every } => Some(heals_every),
            _ => None,
        });
        heat
    };
    assert_eq!(told(version(13), 3), Some(Some(12)));
    assert_eq!(told(version(13), DEEP_DESERT - 1), Some(Some(20)));
    assert_eq!(told(version(13), FURNACE - 1), Some(None));
    for quiet in [1, 4, DEEP_DESERT, FURNACE] {
        assert_eq!(told(version(13), quiet), None, "from depth {quiet}");
    }
    assert_eq!(told(version(12), DEEP_DESERT - 1), None);
}

/// The furnace's levels lie on the open ground with one stone each, where the long
/// crossing's first six held two.
#[test]
fn a_furnace_level_holds_one_stone_on_its_open_ground() {
    for depth in 1..=Crossing::Furnace.deepest() {
        assert_eq!(Crossing::Furnace.supplies(depth).stones, 1, "depth {depth}");
        let long = Crossing::Long.supplies(depth);
        let furnace = Crossing::Furnace.supplies(depth);
        assert_eq!((furnace.dates, furnace.fruit), (long.dates, long.fruit));
    }
    let contents = Contents::of(&version(13));
    for seed in 0..10 {
        let level = generate(seed, 2, contents);
        let stones = level.items.iter().filter(|&&(_, i)| i == Item::Stone);
        assert_eq!(stones.count(), 1, "seed {seed}");
    }
}
