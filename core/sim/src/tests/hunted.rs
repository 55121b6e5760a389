//! The hunted crossing (rules version 15): a javelin that hits snaps, vigour gives back
//! only for hunters, locust swarms split when struck, vultures wait for a weakened camel,
//! and the last three depths hold more lions and packs.

use super::lean::{throw_at_a_ratel, vigour_from};
use super::{level_of, onto, rest_until, said, told, version};
use crate::bestiary::{Bestiary, PACK};
use crate::command::Command;
use crate::crossing::FURNACE;
use crate::drive::Live;
use crate::geometry::Direction;
use crate::item::Item;
use crate::message::Msg;
use crate::species::{Species, SWARMS_MOST};
use crate::world::Change;

/// Under 15 a javelin that hits snaps as a spear does; one that misses lands. Under 14 a
/// javelin that hits lands beside its target.
#[test]
fn a_javelin_that_hits_snaps() {
    let javelin = Item::Javelin;
    assert_eq!(
        throw_at_a_ratel(version(15), javelin, "@..r."),
        (1, 0, true)
    );
    assert_eq!(
        throw_at_a_ratel(version(15), javelin, "@...."),
        (1, 1, false)
    );
    assert_eq!(
        throw_at_a_ratel(version(14), javelin, "@..r."),
        (1, 1, false)
    );
}

/// Under 15 vigour gives back for a hunter (a jackal) and for nothing else (a snake);
/// under 14 it gave for the snake too.
#[test]
fn vigour_gives_back_only_for_hunters() {
    assert_eq!(vigour_from(version(15), "@j"), 2);
    assert_eq!(vigour_from(version(15), "@s"), 0);
    assert_eq!(vigour_from(version(14), "@s"), 2);
}

/// The swarms on the level, present, with their hit points, by id.
fn swarms(live: &Live) -> Vec<i16> {
    let world = live.state().world();
    let present = world.actors().filter(|(_, a)| a.is_present());
    let swarms = present.filter(|(_, a)| a.species() == Species::Locusts);
    swarms.map(|(_, a)| a.hp()).collect()
}

/// A swarm kicked and not killed splits: half its hit points fly off as a new swarm
/// beside it, told; the two hold what the one held after the kick.
#[test]
fn a_locust_swarm_struck_splits_in_two() {
    let (mut live, _) = onto(version(15), 4, level_of(&["...", "@l.", "..."]));
    live.command(Command::Move(Direction::E), &mut (), &mut vec![])
        .unwrap();
    let told = told(live.state());
    let kick = told.iter().find_map(|m| match *m {
        Msg::Hit {
            attacker: Species::Camel,
            target: Species::Locusts,
            damage,
        } => Some(damage),
        _ => None,
    });
    let left = Species::Locusts.max_hp() - kick.expect("the camel kicked the swarm");
    let mut hp = swarms(&live);
    hp.sort();
    assert_eq!(hp, vec![left / 2, left - left / 2], "{told:?}");
    assert!(said(live.state(), Msg::Split(Species::Locusts)));
    assert_eq!(
        Msg::Split(Species::Locusts).to_string(),
        "The locust swarm splits in two."
    );
}

/// A level that holds `SWARMS_MOST` swarms already: a swarm kicked is only hurt.
#[test]
fn swarms_stop_splitting_at_the_most_a_level_holds() {
    let row = format!("@{}", "l".repeat(SWARMS_MOST));
    let (mut live, _) = onto(version(15), 4, level_of(&[&row, &".".repeat(row.len())]));
    live.command(Command::Move(Direction::E), &mut (), &mut vec![])
        .unwrap();
    assert!(swarms(&live).len() <= SWARMS_MOST);
    assert!(!said(live.state(), Msg::Split(Species::Locusts)));
}

/// A vulture keeps off a camel in health, and comes down on one that has lost half its
/// hit points.
#[test]
fn a_vulture_waits_for_a_weakened_camel() {
    let rows = ["........", "@....v..", "........"];
    let (mut live, _) = onto(version(15), 4, level_of(&rows));
    let torn = |state: &crate::state::State| {
        told(state).iter().any(|m| {
            matches!(
                m,
                Msg::Hit {
                    attacker: Species::Vulture,
                    ..
                }
            )
        })
    };
    assert!(
        !rest_until(&mut live, 40, torn),
        "it tore at a camel in health"
    );

    let mut state = live.into_state();
    let camel = state.world().player_id().unwrap();
    // Well below half, so that the wounds that close while it waits do not lift it back.
    let third = state.world().actor_at(camel).max_hp() / 3;
    let hp = state.world().actor_at(camel).hp();
    state.set_up(Change::Hurt {
        actor: camel,
        amount: hp - third,
    });
    let mut live = Live::resume(4, state);
    assert!(rest_until(&mut live, 40, torn), "it never came down");
}

/// The hunted bestiary is the deep one with swarms and vultures placed after it, and on
/// the last three depths a lion and a pack more.
#[test]
fn the_last_depths_hold_more_hunters() {
    let count = |bestiary: Bestiary, depth: u8, species: Species| {
        let counts = bestiary.counts(depth);
        counts
            .iter()
            .find(|(s, _)| *s == species)
            .map_or(0, |c| c.1)
    };
    for depth in 1..=12 {
        let (deep, hunted) = (Bestiary::Deep.counts(depth), Bestiary::Hunted.counts(depth));
        assert_eq!(hunted.len(), deep.len() + 2);
        let more = |species| {
            count(Bestiary::Hunted, depth, species) - count(Bestiary::Deep, depth, species)
        };
        let furnace = depth >= FURNACE;
        assert_eq!(more(Species::Lion), u32::from(furnace), "depth {depth}");
        assert_eq!(more(Species::Hyena), if furnace { PACK } else { 0 });
        assert_eq!(more(Species::Jackal), 0);
        assert_eq!(
            count(Bestiary::Hunted, depth, Species::Locusts) > 0,
            depth >= 3
        );
        assert_eq!(
            count(Bestiary::Hunted, depth, Species::Vulture) > 0,
            depth >= 5
        );
    }
}

/// Whether the scorpion of the level drawn as `rows` goes for the camel now, as a
/// hunter's turn decides (`decide::closes_in`).
fn scorpion_closes_in(rows: &[&str]) -> bool {
    let (live, _) = onto(version(17), 3, level_of(rows));
    let world = live.state().world();
    let (id, _) = super::first_of(live.state(), Species::Scorpion).unwrap();
    crate::decide::closes_in(world, id)
}

/// A hunter in sight of the camel closes in where it has a step on its way; one whose
/// every way is shut by creatures about it waits where it is, and is no hunter coming
/// (the window's errands ask this; played by eye, a parked scorpion refused them all).
#[test]
fn a_hunter_whose_way_is_shut_does_not_close_in() {
    let open = ["@....", ".....", ".....", "...S.", "....."];
    assert!(scorpion_closes_in(&open));
    let shut = ["@....", ".....", "..sss", "..sSs", "..sss"];
    assert!(!scorpion_closes_in(&shut));
    assert!(scorpion_closes_in(&["@S..."]));
}
