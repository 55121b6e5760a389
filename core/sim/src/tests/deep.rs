//! The long crossing and its deep bestiary (rules version 11): twelve depths, ratels
//! whose hide turns kicks aside, lions in the deep desert.

use super::{first_of, level_of, onto, slot_of, version};
use crate::command::Command;
use crate::crossing::{Crossing, DEEP_DESERT};
use crate::geometry::Direction;
use crate::item::Item;
use crate::level::{generate, reachable_from, Contents};
use crate::map::Terrain;
use crate::message::Msg;
use crate::species::{Species, THICK_HIDE};
use crate::state::State;

/// The hit points of the first ratel, or none once it is dead.
fn ratel_hp(state: &State) -> Option<i16> {
    let (id, _) = first_of(state, Species::Ratel)?;
    state.world().actor(id).map(|a| a.hp())
}

/// Kick after kick takes at most `THICK_HIDE` from a ratel, however hard the camel
/// kicks; a spear thrown at it hurts it in full.
#[test]
fn kicks_barely_mark_a_ratel_but_a_thrown_spear_hurts_it_in_full() {
    let (mut live, _) = onto(version(11), 4, level_of(&["@r"]));
    let mut kicks = vec![];
    for _ in 0..3 {
        let before = ratel_hp(live.state()).unwrap();
        live.command(Command::Move(Direction::E), &mut (), &mut vec![])
            .unwrap();
        let Some(after) = ratel_hp(live.state()) else {
            break;
        };
        kicks.push(before - after);
    }
    assert!(!kicks.is_empty());
    assert!(
        kicks.iter().all(|&k| (1..=THICK_HIDE).contains(&k)),
        "{kicks:?}"
    );
    let kicked = live.state().world().messages().recent().any(|m| {
        matches!(m.msg, Msg::Hit { attacker: Species::Camel, target: Species::Ratel, damage } if damage <= THICK_HIDE)
    });
    assert!(kicked);

    let mut level = level_of(&["@...r"]);
    level.items.push((level.start, Item::Spear));
    let (mut live, _) = onto(version(11), 4, level);
    live.command(Command::PickUp, &mut (), &mut vec![]).unwrap();
    let before = ratel_hp(live.state()).unwrap();
    let spear = slot_of(live.state(), Item::Spear);
    live.command(Command::Throw(spear, Direction::E), &mut (), &mut vec![])
        .unwrap();
    let after = ratel_hp(live.state()).unwrap_or(0);
    let (least, _) = Item::Spear.thrown_damage();
    assert!(before - after >= least as i16, "{before} then {after}");
}

/// The long crossing's twelve levels: stairs down from each but the last, which holds
/// the oasis, each reachable; ratels from depth 5, lions only in the deep desert; three
/// spears on its open ground and a few more in its places, fewer than five in all where
/// the short crossing gave eight on its open ground alone.
#[test]
fn the_long_crossing_goes_twelve_deep_with_lions_only_in_the_deep_desert() {
    let contents = Contents::of(&version(11));
    let deepest = Crossing::Long.deepest();
    assert_eq!(deepest, 12);
    let mut spears = 0;
    for seed in 0..30u64 {
        for depth in 1..=deepest {
            let level = generate(seed, depth, contents);
            let at = format!("seed {seed} depth {depth}");
            let goal = match depth == deepest {
                true => Terrain::Oasis,
                false => Terrain::Stairs,
            };
            let reach = reachable_from(&level.map, level.start);
            assert!(reach.iter().any(|&p| level.map.terrain(p) == goal), "{at}");
            let has = |species| level.creatures.iter().any(|&(s, _, _)| s == species);
            assert_eq!(has(Species::Lion), depth >= DEEP_DESERT, "{at}");
            assert_eq!(has(Species::Ratel), depth >= 5, "{at}");
            spears += level
                .items
                .iter()
                .filter(|&&(_, i)| i == Item::Spear)
                .count();
        }
    }
    assert!(spears < 30 * 5, "{spears} spears in 30 crossings");
}
