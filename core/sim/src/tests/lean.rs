//! The lean crossing (rules version 14): a spear that hits snaps, vigour gives nothing
//! for the brood, and the levels hold fewer dates and no cactus fruit in the deep desert.

use super::{first_of, hurt_by_ten, level_of, onto, said, slot_of, told, version};
use crate::check::Rejection;
use crate::command::Command;
use crate::crossing::{Crossing, DEEP_DESERT};
use crate::drive::Live;
use crate::geometry::{line, Direction, Pos};
use crate::item::Item;
use crate::level::{generate, Contents};
use crate::lore::{Boon, Lore, Offers};
use crate::message::Msg;
use crate::rules::Rules;
use crate::species::{Behaviour, Species};

/// A camel of `rules` holding `item`, on the row `row` (a ratel, too tough for one spear
/// to kill, where it shows); after one throw east: how many of `item` left the bags, how
/// many lie on the ground, and whether the camel read that it snapped.
pub(super) fn throw_at_a_ratel(rules: Rules, item: Item, row: &str) -> (usize, usize, bool) {
    let held = |live: &Live| -> usize {
        let stacks = live.state().world().bags().stacks();
        let spears = stacks.filter(|(_, s)| s.item == item);
        spears.map(|(_, s)| s.count as usize).sum()
    };
    let mut level = level_of(&[row]);
    level.items.push((level.start, item));
    let (mut live, _) = onto(rules, 4, level);
    live.command(Command::PickUp, &mut (), &mut vec![]).unwrap();
    let before = held(&live);
    let spear = slot_of(live.state(), item);
    live.command(Command::Throw(spear, Direction::E), &mut (), &mut vec![])
        .unwrap();
    let floor = live.state().world().floor();
    let lying = floor.iter().filter(|&&(_, i)| i == item).count();
    let snapped = said(live.state(), Msg::Snapped(item));
    (before - held(&live), lying, snapped)
}

/// Under 14 a spear that hits snaps, told after the blow; one that misses lands and can
/// be picked up again. Under 13 a spear that hits lands beside its target.
#[test]
fn a_spear_that_hits_snaps_and_one_that_misses_lands() {
    let spear = Item::Spear;
    assert_eq!(throw_at_a_ratel(version(14), spear, "@..r."), (1, 0, true));
    assert_eq!(throw_at_a_ratel(version(14), spear, "@...."), (1, 1, false));
    assert_eq!(throw_at_a_ratel(version(13), spear, "@..r."), (1, 1, false));

    let mut level = level_of(&["@..r."]);
    level.items.push((level.start, Item::Spear));
    let (mut live, _) = onto(version(14), 4, level);
    live.command(Command::PickUp, &mut (), &mut vec![]).unwrap();
    let spear = slot_of(live.state(), Item::Spear);
    live.command(Command::Throw(spear, Direction::E), &mut (), &mut vec![])
        .unwrap();
    let told = told(live.state());
    let struck = told.iter().position(|m| {
        matches!(
            m,
            Msg::Struck {
                item: Item::Spear,
                target: Species::Ratel,
                ..
            }
        )
    });
    let snapped = told.iter().position(|m| *m == Msg::Snapped(Item::Spear));
    assert!(struck.is_some() && struck < snapped, "{told:?}");
    assert_eq!(Msg::Snapped(Item::Spear).to_string(), "The spear snaps.");
}

/// A vigorous camel of `rules`, 10 hit points down, kicks the creature beside it (drawn
/// as in `row`, "@x" for a spider) to death: the hit points it got back from the kill
/// (its own wounds do not close by themselves on depth 12 of the furnace).
pub(super) fn vigour_from(rules: Rules, row: &str) -> i16 {
    let victim = Species::ALL
        .into_iter()
        .find(|s| row.ends_with(s.glyph()))
        .unwrap();
    let mut level = level_of(&[row]);
    level.depth = 12;
    level.items = vec![(level.start, Item::Rose)];
    level.lore = Some(Lore::default());
    level.offers = Some(Offers([[Boon::Vigour, Boon::Deeper, Boon::Stronger]; 3]));
    let (mut live, _) = onto(rules, 4, level);
    live.command(Command::PickUp, &mut (), &mut vec![]).unwrap();
    let rose = slot_of(live.state(), Item::Rose);
    live.command(Command::Grow(rose, Boon::Vigour), &mut (), &mut vec![])
        .unwrap();
    let (mut live, camel, _) = hurt_by_ten(live, 4);
    let mut back = 0;
    while first_of(live.state(), victim).is_some() {
        let before = live.state().world().actor_at(camel).hp();
        live.command(Command::Move(Direction::E), &mut (), &mut vec![])
            .unwrap();
        let after = live.state().world().actor_at(camel).hp();
        if first_of(live.state(), victim).is_none() {
            back = after - before;
        }
    }
    back
}

/// Under 14 vigour gives nothing back for a spider; under 13 it gave its two hit points.
#[test]
fn vigour_gives_nothing_for_the_brood() {
    assert_eq!(vigour_from(version(14), "@x"), 0);
    assert_eq!(vigour_from(version(13), "@x"), 2);
}

/// The lean crossing's open ground holds a date on each level to depth 6 and on every
/// other level below, nine in all where the furnace's held fifteen, and cactus fruit
/// only above the deep desert; everything else as the furnace's.
#[test]
fn the_lean_crossing_holds_fewer_dates_and_no_deep_fruit() {
    let total = |crossing: Crossing, of: fn(crate::crossing::Supplies) -> u32| {
        (1..=crossing.deepest())
            .map(|d| of(crossing.supplies(d)))
            .sum::<u32>()
    };
    assert_eq!(total(Crossing::Lean, |s| s.dates), 9);
    assert_eq!(total(Crossing::Furnace, |s| s.dates), 15);
    assert_eq!(total(Crossing::Lean, |s| s.fruit), 6);
    for depth in 1..=Crossing::Lean.deepest() {
        let (lean, furnace) = (
            Crossing::Lean.supplies(depth),
            Crossing::Furnace.supplies(depth),
        );
        assert_eq!(lean.fruit == 0, depth >= DEEP_DESERT, "depth {depth}");
        assert_eq!(
            (
                lean.stones,
                lean.spears,
                lean.mushrooms,
                lean.javelins,
                lean.flasks
            ),
            (
                furnace.stones,
                furnace.spears,
                furnace.mushrooms,
                furnace.javelins,
                furnace.flasks
            )
        );
        assert_eq!(
            Crossing::Lean.regenerate_every(depth),
            Crossing::Furnace.regenerate_every(depth)
        );
    }
    let contents = Contents::of(&version(14));
    for seed in 0..10 {
        let level = generate(seed, DEEP_DESERT + 1, contents);
        let fruit = level.items.iter().filter(|&&(_, i)| i == Item::CactusFruit);
        let on_open_ground = fruit.count();
        // An oasis place still rings its pool with fruit; the open ground holds none.
        assert!(on_open_ground <= 2, "seed {seed}: {on_open_ground}");
    }
}

/// A camel of `rules` on `rows` holding a javelin, after throwing it at the cell `east` and
/// `south` of it: what the fold said of the command, and where the stone lies.
fn thrown_at(
    rules: Rules,
    rows: &[&str],
    east: i8,
    south: i8,
) -> (Result<(), Rejection>, Option<Pos>) {
    let mut level = level_of(rows);
    level.items.push((level.start, Item::Javelin));
    // In a charmed sleep, so that it stands where the row puts it until it is hit.
    for creature in &mut level.creatures {
        creature.2 = Behaviour::Slumber;
    }
    let (mut live, _) = onto(rules, 4, level);
    live.command(Command::PickUp, &mut (), &mut vec![]).unwrap();
    let javelin = slot_of(live.state(), Item::Javelin);
    let done = live.command(Command::ThrowAt(javelin, east, south), &mut (), &mut vec![]);
    let floor = live.state().world().floor();
    let lies = floor
        .iter()
        .find(|&&(_, i)| i == Item::Javelin)
        .map(|&(at, _)| at);
    (done.map(|_| ()), lies)
}

/// Under 14 a throw goes at any cell the camel sees, along `geometry::line`: it lands on
/// an empty cell, stops at the first creature on the way (a ratel off the eight lines),
/// and flies over water to fall on the last dry cell before it. A cell unseen, the camel's own, or any cell under 13 is refused
/// with the reason, and nothing is written.
#[test]
fn a_throw_goes_at_any_cell_in_sight_from_rules_14() {
    let open = ["@.....", "......", "......"];
    assert_eq!(
        thrown_at(version(14), &open, 4, 2),
        (Ok(()), Some(Pos::new(4, 2)))
    );
    let ratel = ["@.....", "..r...", "......"];
    let (done, lies) = thrown_at(version(14), &ratel, 4, 2);
    assert_eq!((done, lies), (Ok(()), Some(Pos::new(2, 1))));
    let pool = ["@.==..", "......", "......"];
    assert_eq!(
        thrown_at(version(14), &pool, 3, 0),
        (Ok(()), Some(Pos::new(1, 0)))
    );
    assert_eq!(
        thrown_at(version(14), &open, 0, 0),
        (Err(Rejection::AtYourFeet), None)
    );
    assert_eq!(
        thrown_at(version(14), &open, 40, 0),
        (Err(Rejection::Unseen), None)
    );
    assert_eq!(
        thrown_at(version(13), &open, 4, 2),
        (Err(Rejection::ThrowsAlongLines), None)
    );
    assert_eq!(
        line(Pos::new(0, 0), Pos::new(4, 2)),
        [
            Pos::new(1, 0),
            Pos::new(2, 1),
            Pos::new(3, 1),
            Pos::new(4, 2)
        ]
    );
}
