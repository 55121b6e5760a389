//! The desert's clock (`Rules::desert_clock`, rules version 6): heat, cold and water.

use super::{first_of, on_level_under, rest_until, said, version};
use crate::action::Action;
use crate::command::Command;
use crate::desert::{TimeOfDay, DAY_TICKS, WATERSKIN};
use crate::geometry::Direction;
use crate::message::Msg;
use crate::species::Species;
use crate::state::State;

/// The camel beside a pool; a snake walled in by water, so that it stays where it is.
const POOL: [&str; 2] = [
    "...@=s", //
    "....==",
];

/// What a step west onto sand costs the camel, and an ordinary action the snake, now.
fn costs(state: &State) -> (u16, u16) {
    let world = state.world();
    let camel = world.player_id().unwrap();
    let west = world.player().unwrap().pos().step(Direction::W);
    let (snake, _) = first_of(state, Species::Snake).unwrap();
    (
        world.cost_of(camel, &Action::Step { to: west }),
        world.cost_of(snake, &Action::Wait),
    )
}

/// Rests until the part of the day `time` has come.
fn rest_until_time(live: &mut crate::drive::Live, time: TimeOfDay) {
    let due = |state: &State| TimeOfDay::at(state.tick()) == time;
    assert!(rest_until(live, DAY_TICKS as usize, due), "{time:?} came");
}

/// From rules version 6, at noon the camel's steps cost a third more, and at night the
/// cold-blooded pay half as much again for everything; before, the time of day did not
/// exist.
#[test]
fn heat_and_cold_change_what_acting_costs_from_version_6() {
    for v in [5, 6] {
        let (mut live, _) = on_level_under(version(v), 4, &POOL);
        let clock = v == 6;
        assert_eq!(costs(live.state()), (12, 12), "morning, version {v}");
        rest_until_time(&mut live, TimeOfDay::Noon);
        let noon = if clock { (16, 12) } else { (12, 12) };
        assert_eq!(costs(live.state()), noon, "noon, version {v}");
        rest_until_time(&mut live, TimeOfDay::Night);
        let night = if clock { (12, 18) } else { (12, 12) };
        assert_eq!(costs(live.state()), night, "night, version {v}");
        let world = live.state().world();
        assert_eq!(world.time_of_day().is_some(), clock);
    }
}

fn water(state: &State) -> u16 {
    state.world().water()
}

fn hp(state: &State) -> i16 {
    state.world().player().unwrap().hp()
}

/// The camel starts with a full waterskin and takes a sip every 16 of its turns away
/// from water; emptied, it weakens a hit point a sip instead and heals no more; beside a
/// pool it fills the skin again, and drinks from the pool while it stays. Before version
/// 6 it never thirsted.
#[test]
fn the_camel_drinks_as_it_goes_weakens_without_water_and_fills_beside_a_pool() {
    let rows = ["@.=", "..."];
    let (mut live, mut tape) = on_level_under(version(6), 4, &rows);
    assert_eq!(water(live.state()), WATERSKIN);
    assert!(rest_until(&mut live, 1_000, |s| water(s) == 0));
    assert!(said(live.state(), Msg::WaterLow));
    assert!(said(live.state(), Msg::WaterGone));
    let before = hp(live.state());
    assert!(rest_until(&mut live, 20, |s| hp(s) < before));
    assert!(said(live.state(), Msg::Parched));
    // Parched, it does not heal: over 40 turns it only loses.
    let low = hp(live.state());
    assert!(!rest_until(&mut live, 40, |s| hp(s) > low));
    // One step east, beside the pool: the skin fills.
    live.command(Command::Move(Direction::E), &mut (), &mut tape)
        .unwrap();
    assert_eq!(water(live.state()), WATERSKIN);
    assert!(said(live.state(), Msg::Filled));
    // Beside the pool it drinks from the pool: the skin stays full, and is not filled
    // again and again.
    let filled = |s: &State| {
        let said = s.world().messages().recent();
        said.filter(|m| m.msg == Msg::Filled).count()
    };
    let once = filled(live.state());
    assert!(!rest_until(&mut live, 40, |s| {
        water(s) < WATERSKIN || filled(s) > once
    }));

    let (mut live, _) = on_level_under(version(5), 4, &rows);
    assert!(!rest_until(&mut live, 600, |s| {
        hp(s) < 30 || said(s, Msg::Parched) || water(s) > 0
    }));
}

/// Turns from one sip to the next.
fn turns_per_sip(live: &mut crate::drive::Live) -> usize {
    let start = water(live.state());
    assert!(rest_until(live, 20, |s| water(s) < start));
    let (sipped, mut rests) = (water(live.state()), 0);
    assert!(rest_until(live, 20, |s| {
        rests += 1;
        water(s) < sipped
    }));
    rests - 1
}

/// Sixteen turns a sip in the morning, eight at noon.
#[test]
fn the_camel_drinks_twice_as_fast_at_noon() {
    let (mut live, _) = on_level_under(version(6), 4, &["@...", "...."]);
    assert_eq!(turns_per_sip(&mut live), 16);
    rest_until_time(&mut live, TimeOfDay::Noon);
    assert_eq!(turns_per_sip(&mut live), 8);
    assert!(TimeOfDay::at(live.state().tick()).is_hot());
}
