//! The camel's gear: a saddle blanket and boots (rules version 7).

use super::{level_of, onto, rest_until, said, slot_of, version};
use crate::bestiary::Bestiary;
use crate::check::Rejection;
use crate::command::Command;
use crate::drive::Live;
use crate::geometry::Pos;
use crate::item::Item;
use crate::level::{generate, Contents};
use crate::message::Msg;
use crate::species::Species;
use crate::state::State;
use crate::tape::Event;

/// A version-7 game on the level drawn as `rows`, `items` at the camel's feet.
fn with_items(rows: &[&str], items: &[Item]) -> (Live, Vec<Event>) {
    let mut level = level_of(rows);
    level.items = items.iter().map(|&item| (level.start, item)).collect();
    onto(version(7), 4, level)
}

/// Picks up everything at the camel's feet and puts on `item`.
fn put_on(live: &mut Live, tape: &mut Vec<Event>, item: Item) {
    while live
        .state()
        .world()
        .items_at(live.state().world().player().unwrap().pos())
        .next()
        .is_some()
    {
        live.command(Command::PickUp, &mut (), tape).unwrap();
    }
    let slot = slot_of(live.state(), item);
    live.command(Command::Wear(slot), &mut (), tape).unwrap();
}

/// Worn, a saddle blanket takes one off every blow a creature lands: a sandworm's 3 to 6
/// become 2 to 5. It leaves the bags for good, and the camel is told it put it on.
#[test]
fn a_worn_saddle_blanket_softens_every_blow() {
    let (mut live, mut tape) = with_items(&["@.W"], &[Item::Blanket]);
    put_on(&mut live, &mut tape, Item::Blanket);
    let world = live.state().world();
    assert!(world.gear().wears(Item::Blanket));
    assert!(world.bags().stacks().all(|(_, s)| s.item != Item::Blanket));
    assert!(said(live.state(), Msg::PutOn(Item::Blanket)));
    rest_until(&mut live, 25, |_| false);
    let blows: Vec<i16> = live
        .state()
        .world()
        .messages()
        .recent()
        .filter_map(|m| match m.msg {
            Msg::Hit {
                attacker: Species::Sandworm,
                damage,
                ..
            } => Some(damage),
            _ => None,
        })
        .collect();
    assert!(blows.len() >= 3, "{blows:?}");
    assert!(blows.iter().all(|d| (2..=5).contains(d)), "{blows:?}");
}

/// Boots make a step onto dunes cost what a step onto sand does.
#[test]
fn boots_make_dunes_as_quick_as_sand() {
    let (mut live, mut tape) = with_items(&["@~."], &[Item::Boots]);
    let step_cost = |state: &State, to: Pos| {
        let world = state.world();
        world.cost_of(
            world.player_id().unwrap(),
            &crate::action::Action::Step { to },
        )
    };
    let (dune, sand) = (Pos::new(1, 0), Pos::new(2, 0));
    assert!(step_cost(live.state(), dune) > step_cost(live.state(), sand));
    put_on(&mut live, &mut tape, Item::Boots);
    assert_eq!(step_cost(live.state(), dune), step_cost(live.state(), sand));
}

/// Only gear can be worn, and each piece once.
#[test]
fn what_cannot_be_worn_is_refused() {
    let (mut live, mut tape) = with_items(&["@."], &[Item::Blanket, Item::Blanket]);
    let date = slot_of(live.state(), Item::Date);
    let refused = live.command(Command::Wear(date), &mut (), &mut tape);
    assert_eq!(refused.unwrap_err(), Rejection::CannotWear(Item::Date));
    put_on(&mut live, &mut tape, Item::Blanket);
    let again = slot_of(live.state(), Item::Blanket);
    let refused = live.command(Command::Wear(again), &mut (), &mut tape);
    assert_eq!(refused.unwrap_err(), Rejection::AlreadyWorn(Item::Blanket));
}

/// Gear lies on its depth only where the rules have it: a blanket on depth 2, boots on
/// depth 4, once each; nowhere under older rules.
#[test]
fn gear_lies_on_its_depth_under_version_7_only() {
    for seed in 0..20 {
        for depth in 1..=8 {
            let gear = |with| {
                let level = generate(
                    seed,
                    depth,
                    Contents {
                        gear: with,
                        ..Contents::plain(Bestiary::Herds)
                    },
                );
                let items = level.items.into_iter().map(|(_, item)| item);
                items.filter(|i| i.is_wearable()).collect::<Vec<_>>()
            };
            let expected = match depth {
                2 => vec![Item::Blanket],
                4 => vec![Item::Boots],
                _ => vec![],
            };
            assert_eq!(gear(true), expected, "seed {seed}, depth {depth}");
            assert!(gear(false).is_empty());
        }
    }
}

/// What the camel wears is part of the state: a snapshot keeps it, and it changes the hash.
#[test]
fn the_gear_worn_is_in_the_state_and_its_hash() {
    // A level of a game's own size, as a snapshot's explored cells must cover it.
    let mut rows = vec![".".repeat(64); 40];
    rows[0].replace_range(0..1, "@");
    let rows: Vec<&str> = rows.iter().map(String::as_str).collect();
    let (mut live, mut tape) = with_items(&rows, &[Item::Boots]);
    let before = live.state().hash();
    put_on(&mut live, &mut tape, Item::Boots);
    let state = live.state();
    let decoded = State::decode(&state.encode(), state.world().rules().version()).unwrap();
    assert!(decoded.world().gear().wears(Item::Boots));
    assert_eq!(decoded.hash(), state.hash());
    assert_ne!(state.hash(), before);
}
