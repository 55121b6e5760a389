//! Allies: a jackal the camel threw a date to (rules version 8).

use super::{first_of, level_of, onto, rest_until, said, slot_of, version};
use crate::check::Rejection;
use crate::command::Command;
use crate::decide::{ALLY_KEEPS_WITHIN, TAMING_ODDS};
use crate::drive::Live;
use crate::geometry::{Direction, Pos};
use crate::ids::ActorId;
use crate::item::Item;
use crate::message::Msg;
use crate::species::{Behaviour, Species};
use crate::state::State;
use crate::tape::Event;
use crate::world::Change;

/// A version-8 game on the level drawn as `rows`, the camel with five more dates,
/// throwing them east until one wins the jackal there over.
fn tame_east(rows: &[&str]) -> (Live, Vec<Event>) {
    let mut level = level_of(rows);
    level.items = vec![(level.start, Item::Date); 5];
    let (mut live, mut tape) = onto(version(8), 5, level);
    while !live.state().world().floor().is_empty() {
        live.command(Command::PickUp, &mut (), &mut tape).unwrap();
    }
    while !said(live.state(), Msg::Tamed(Species::Jackal)) {
        let date = slot_of(live.state(), Item::Date);
        live.command(Command::Throw(date, Direction::E), &mut (), &mut tape)
            .unwrap();
    }
    (live, tape)
}

/// A version-8 game on the level drawn as `rows`, the jackal there the camel's ally.
fn with_ally(rows: &[&str]) -> (Live, Vec<Event>) {
    with_ally_under(8, rows)
}

/// A game of rules version `v` on the level drawn as `rows`, the jackal there the
/// camel's ally.
fn with_ally_under(v: u16, rows: &[&str]) -> (Live, Vec<Event>) {
    let (live, tape) = onto(version(v), 5, level_of(rows));
    let (jackal, _) = first_of(live.state(), Species::Jackal).unwrap();
    let mut state = live.into_state();
    state.set_up(Change::Tame { actor: jackal });
    (Live::resume(5, state), tape)
}

fn dates(state: &State) -> u16 {
    let stacks = state.world().bags().stacks();
    stacks
        .filter(|(_, s)| s.item == Item::Date)
        .map(|(_, s)| s.count)
        .sum()
}

fn ally(state: &State) -> ActorId {
    let (id, _) = first_of(state, Species::Jackal).unwrap();
    assert!(state.world().actor_at(id).is_ally());
    id
}

/// A date thrown to a jackal wins it over one time in `TAMING_ODDS`: it is eaten and
/// the jackal is the camel's ally. Otherwise the jackal leaves it at its feet, unhurt.
/// Before version 8 a date cannot be thrown.
#[test]
fn a_date_thrown_to_a_jackal_may_win_it_over() {
    let (live, _) = tame_east(&["@...j"]);
    let state = live.state();
    let jackal = ally(state);
    assert_eq!(state.world().actor_at(jackal).behaviour(), Behaviour::Ally);
    let at = state.world().actor_at(jackal).pos();
    let spurned = state.world().floor().len() as u16;
    assert_eq!(
        dates(state) + spurned + 1,
        7,
        "one date eaten, the rest kept or spurned"
    );
    assert!(state
        .world()
        .floor()
        .iter()
        .all(|&(p, i)| p == at && i == Item::Date));
    let (mut wins, mut throws) = (0, 0);
    for seed in 0..60 {
        let (mut live, mut tape) = onto(version(8), seed, level_of(&["@j"]));
        let date = slot_of(live.state(), Item::Date);
        live.command(Command::Throw(date, Direction::E), &mut (), &mut tape)
            .unwrap();
        throws += 1;
        wins += u32::from(said(live.state(), Msg::Tamed(Species::Jackal)));
    }
    let expected = throws / TAMING_ODDS;
    assert!(
        wins.abs_diff(expected) <= expected / 2,
        "{wins} of {throws} won over"
    );
    let (mut older, mut tape) = onto(version(7), 5, level_of(&["@...j"]));
    let date = slot_of(older.state(), Item::Date);
    let refused = older.command(Command::Throw(date, Direction::E), &mut (), &mut tape);
    assert_eq!(refused.unwrap_err(), Rejection::CannotThrow(Item::Date));
}

/// The camel keeps one ally at a time: a date does not win a second jackal over.
#[test]
fn one_ally_at_a_time() {
    let rows = ["@..j", "....", "j..."];
    let (live, _) = onto(version(8), 5, level_of(&rows));
    let jackals: Vec<ActorId> = live
        .state()
        .world()
        .actors()
        .filter(|(_, a)| a.species() == Species::Jackal)
        .map(|(id, _)| id)
        .collect();
    assert!(jackals.iter().all(|&j| live.state().world().tames(j)));
    let (live, _) = with_ally(&rows);
    let world = live.state().world();
    let wild = jackals.iter().find(|&&j| !world.actor_at(j).is_ally());
    assert!(!world.tames(*wild.unwrap()));
}

/// A date thrown to a creature that cannot be tamed hurts nothing and lies where it
/// fell, at the creature's feet.
#[test]
fn a_date_thrown_to_a_snake_only_lands() {
    let (mut live, mut tape) = onto(version(8), 5, level_of(&["@..s"]));
    let date = slot_of(live.state(), Item::Date);
    live.command(Command::Throw(date, Direction::E), &mut (), &mut tape)
        .unwrap();
    let state = live.state();
    let (snake, at) = first_of(state, Species::Snake).unwrap();
    let snake = state.world().actor_at(snake);
    assert_eq!(snake.hp(), snake.max_hp());
    assert_eq!(state.world().floor(), &[(at, Item::Date)]);
}

/// An ally bites the creature beside it that would harm the camel, and never the camel.
#[test]
fn an_ally_bites_the_camels_foes_and_never_the_camel() {
    let (mut live, _) = with_ally(&["@j..", "....", "...S"]);
    let bitten = rest_until(&mut live, 60, |s| {
        s.world().messages().recent().any(|m| {
            matches!(
                m.msg,
                Msg::Hit {
                    attacker: Species::Jackal,
                    target: Species::Scorpion,
                    ..
                }
            )
        })
    });
    assert!(bitten, "the ally never bit the scorpion");
    let on_camel = live.state().world().messages().recent().any(|m| {
        matches!(
            m.msg,
            Msg::Hit {
                attacker: Species::Jackal,
                target: Species::Camel,
                ..
            }
        )
    });
    assert!(!on_camel);
}

/// An ally with no foe about keeps near the camel as it walks away.
#[test]
fn an_ally_follows_the_camel() {
    let (mut live, mut tape) = with_ally(&["@.j.............."]);
    let jackal = ally(live.state());
    for _ in 0..12 {
        live.command(Command::Move(Direction::E), &mut (), &mut tape)
            .ok();
        rest_until(&mut live, 1, |_| false);
    }
    rest_until(&mut live, 6, |_| false);
    let world = live.state().world();
    let camel = world.player().unwrap().pos();
    assert!(camel.x >= 10, "the camel walked east: {camel:?}");
    let near = world.actor_at(jackal).pos().distance(camel);
    assert!(near <= ALLY_KEEPS_WITHIN, "the ally is {near} away");
}

/// An ally leaves a sleeper and a grazing tortoise in peace.
#[test]
fn an_ally_lets_sleepers_and_grazing_tortoises_be() {
    let mut level = level_of(&["@j.h", "..T."]);
    level.creatures[1].2 = Behaviour::Asleep;
    let (mut live, mut tape) = onto(version(8), 5, level);
    let date = slot_of(live.state(), Item::Date);
    live.command(Command::Throw(date, Direction::E), &mut (), &mut tape)
        .unwrap();
    rest_until(&mut live, 20, |_| false);
    let world = live.state().world();
    for (_, a) in world.actors().filter(|(_, a)| !a.is_ally()) {
        assert_eq!(a.hp(), a.max_hp(), "{:?} was bitten", a.species());
    }
}

/// An ally beside the camel goes down the stairs with it, onto the cell nearest the
/// camel's; one left further off stays behind.
#[test]
fn an_ally_beside_the_camel_goes_down_the_stairs_with_it() {
    let (mut live, mut tape) = with_ally(&[">j......"]);
    let jackal = ally(live.state());
    live.command(Command::Descend, &mut (), &mut tape).unwrap();
    let world = live.state().world();
    assert_eq!(world.depth(), 2);
    let ally = world.actor(jackal).unwrap();
    assert!(ally.is_present() && ally.is_ally());
    assert_eq!(ally.pos().distance(world.player().unwrap().pos()), 1);
    let named = world.map().occupant(ally.pos());
    assert_eq!(named, Some(jackal));
}

/// Whether the jackal, the camel's ally on the level drawn as `rows` under rules `v`,
/// is with the camel on depth 2 once it goes down the stairs it stands on.
fn goes_down(v: u16, rows: &[&str]) -> bool {
    let (mut live, mut tape) = with_ally_under(v, rows);
    let jackal = ally(live.state());
    live.command(Command::Descend, &mut (), &mut tape).unwrap();
    let world = live.state().world();
    assert_eq!(world.depth(), 2);
    world.actor(jackal).is_some_and(|a| a.is_present())
}

/// From rules version 17 an ally the camel sees within `FOLLOWS_FROM` goes down the
/// stairs with it, where before only one beside it did; one out of sight, behind a wall,
/// or further off stays behind.
#[test]
fn an_ally_near_and_in_sight_goes_down_the_stairs_with_it() {
    let near = [">..j....."];
    assert!(goes_down(17, &near));
    assert!(!goes_down(16, &near));
    assert!(goes_down(17, &[">j......"]) && goes_down(16, &[">j......"]));
    assert!(!goes_down(17, &[">.......j"]));
    assert!(!goes_down(17, &[">.#", "###", "j.."]));
}

/// A hunter after the camel bites an ally standing beside it.
#[test]
fn a_hunter_bites_an_ally_in_its_way() {
    let (mut live, _) = with_ally(&["@j.h..", "......"]);
    let jackal = ally(live.state());
    let bitten = rest_until(&mut live, 40, |s| {
        let a = s.world().actor(jackal).unwrap();
        !a.is_present() || a.hp() < a.max_hp()
    });
    assert!(bitten, "nobody bit the ally");
}

/// The camel walking into its ally changes places with it, at a step's cost.
#[test]
fn the_camel_and_its_ally_change_places() {
    let (mut live, mut tape) = with_ally(&["@j.."]);
    let jackal = ally(live.state());
    live.command(Command::Move(Direction::E), &mut (), &mut tape)
        .unwrap();
    let world = live.state().world();
    assert_eq!(world.player().unwrap().pos(), Pos::new(1, 0));
    let ally = world.actor_at(jackal);
    assert_eq!(ally.hp(), ally.max_hp());
    assert_eq!(world.map().occupant(Pos::new(1, 0)), world.player_id());
    assert_eq!(world.map().occupant(ally.pos()), Some(jackal));
}
