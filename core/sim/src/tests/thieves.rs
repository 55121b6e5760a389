//! The thieving sands (rules version 16): fennecs that snatch from the camel's bags and
//! run, horned vipers under the sand, and mushrooms thrown that burst on a creature.

use super::{first_of, level_of, onto, rest_until, said, slot_of, told, version};
use crate::bestiary::Bestiary;
use crate::check::Rejection;
use crate::command::Command;
use crate::drive::Live;
use crate::geometry::Direction;
use crate::item::{Effect, Item, Look};
use crate::message::Msg;
use crate::species::Species;
use crate::state::State;
use crate::world::{Change, Condition};
use crate::Rules;

/// A live game on a level of `rows`, the camel holding only `items` (what it set out
/// with gone, these picked up from its feet before anything else happens).
fn holding(rules: Rules, rows: &[&str], items: &[Item]) -> Live {
    let mut level = level_of(rows);
    for &item in items {
        level.items.push((level.start, item));
    }
    let (live, _) = onto(rules, 4, level);
    let mut state = live.into_state();
    loop {
        let first = state.world().bags().stacks().next().map(|(slot, _)| slot);
        let Some(slot) = first else { break };
        state.set_up(Change::Consume { slot });
    }
    let mut live = Live::resume(4, state);
    for _ in items {
        live.command(Command::PickUp, &mut (), &mut vec![]).unwrap();
    }
    live
}

fn carried(state: &State) -> u32 {
    state.world().bags().count()
}

/// A fennec beside the camel snatches one thing and runs with it; the camel is told, and
/// the fennec is never bitten for it nor bites.
#[test]
fn a_fennec_snatches_one_thing_and_runs() {
    let mut live = holding(version(16), &["@f......", "........"], &[Item::Date]);
    assert_eq!(carried(live.state()), 1);
    let stolen = |state: &State| carried(state) == 0;
    assert!(rest_until(&mut live, 5, stolen), "{:?}", told(live.state()));
    let state = live.state();
    assert!(said(
        state,
        Msg::Stole {
            thief: Species::Fennec,
            item: Item::Date
        }
    ));
    let (fennec, _) = first_of(state, Species::Fennec).unwrap();
    assert_eq!(state.world().loot_of(fennec), Some(Item::Date));
    let camel = state.world().player().unwrap();
    assert_eq!(
        camel.hp(),
        camel.max_hp(),
        "a fennec wants the bags, not the camel"
    );
    assert_eq!(
        Msg::Stole {
            thief: Species::Fennec,
            item: Item::Date
        }
        .to_string(),
        "The fennec snatches a date from your bags and runs!"
    );
    // It runs: after a few turns it is further off than it was.
    let mut live = Live::resume(4, live.into_state());
    rest_until(&mut live, 4, |_| false);
    let (_, at) = first_of(live.state(), Species::Fennec).unwrap();
    let here = live.state().world().player().unwrap().pos();
    assert!(at.distance(here) > 1, "it stayed beside the camel");
}

/// A fennec killed lets fall what it carries, where it dies, told.
#[test]
fn a_fennec_killed_lets_fall_what_it_carries() {
    let mut live = holding(version(16), &["@f.", "..."], &[Item::Stone]);
    let mut state = live.state().clone();
    let (fennec, at) = first_of(&state, Species::Fennec).unwrap();
    let slot = slot_of(&state, Item::Stone);
    state.set_up(Change::Steal {
        thief: fennec,
        slot,
        item: Item::Stone,
    });
    // Hurt to its last hit point: the camel's kick kills it.
    let hp = state.world().actor_at(fennec).hp();
    state.set_up(Change::Hurt {
        actor: fennec,
        amount: hp - 1,
    });
    live = Live::resume(4, state);
    live.command(Command::Move(Direction::E), &mut (), &mut vec![])
        .unwrap();
    let state = live.state();
    assert!(first_of(state, Species::Fennec).is_none());
    assert!(state.world().items_at(at).any(|i| i == Item::Stone));
    assert!(said(
        state,
        Msg::LetFall {
            thief: Species::Fennec,
            item: Item::Stone
        }
    ));
    assert!(state.world().loot().is_empty());
}

/// With nothing in the bags a fennec has nothing to come for: it wanders.
#[test]
fn a_fennec_leaves_empty_bags_alone() {
    let mut live = holding(version(16), &["@f...", "....."], &[]);
    rest_until(&mut live, 10, |_| false);
    let world = live.state().world();
    assert!(world.loot().is_empty());
    assert!(!told(live.state())
        .iter()
        .any(|m| matches!(m, Msg::Stole { .. })));
}

/// Under 16 a mushroom thrown at a creature bursts on it with its effect, and the camel
/// knows its kind; under 15 a mushroom cannot be thrown.
#[test]
fn a_mushroom_thrown_bursts_on_the_creature_it_reaches() {
    let rows = ["@..L....", "........"];
    for look in Look::ALL {
        let mushroom = Item::Mushroom(look);
        let mut live = holding(version(16), &rows, &[mushroom]);
        let effect = live.state().world().mycology().effect(look);
        let slot = slot_of(live.state(), mushroom);
        live.command(Command::Throw(slot, Direction::E), &mut (), &mut vec![])
            .unwrap();
        let state = live.state();
        assert!(
            said(
                state,
                Msg::Burst {
                    look,
                    effect,
                    target: Species::Lion
                }
            ),
            "{:?}",
            told(state)
        );
        assert!(state.world().mycology().is_known(look));
        assert_eq!(carried(state), 0);
        assert!(
            state.world().floor().is_empty(),
            "it burst, and lies nowhere"
        );
        let condition = match effect {
            Effect::Heal => None,
            Effect::Poison => Some(Condition::Poisoned),
            Effect::Haste => Some(Condition::Haste),
            Effect::Slow => Some(Condition::Slow),
            Effect::Confusion => Some(Condition::Confused),
        };
        if let Some(condition) = condition {
            let (lion, _) = first_of(state, Species::Lion).unwrap();
            let has = state.world().actor_at(lion).conditions().has(condition);
            // The lion may have taken a turn since, but not the whole of it.
            assert!(has, "{effect:?}");
        }
    }

    let mushroom = Item::Mushroom(Look::Red);
    let mut live = holding(version(15), &rows, &[mushroom]);
    let slot = slot_of(live.state(), mushroom);
    let refused = live.command(Command::Throw(slot, Direction::E), &mut (), &mut vec![]);
    assert_eq!(refused, Err(Rejection::CannotThrow(mushroom)));
    assert_eq!(carried(live.state()), 1);
}

/// A mushroom thrown that reaches nobody lands whole, and is still unknown.
#[test]
fn a_mushroom_that_reaches_nobody_lands_whole() {
    let mushroom = Item::Mushroom(Look::Brown);
    let mut live = holding(version(16), &["@...."], &[mushroom]);
    let slot = slot_of(live.state(), mushroom);
    live.command(Command::Throw(slot, Direction::E), &mut (), &mut vec![])
        .unwrap();
    let state = live.state();
    assert!(state.world().floor().iter().any(|&(_, i)| i == mushroom));
    assert!(!state.world().mycology().is_known(Look::Brown));
}

/// The thieves' bestiary is the hunted one with fennecs and vipers placed after it.
#[test]
fn the_thieves_bestiary_adds_fennecs_and_vipers_last() {
    for depth in 1..=12 {
        let (hunted, thieves) = (
            Bestiary::Hunted.counts(depth),
            Bestiary::Thieves.counts(depth),
        );
        assert_eq!(thieves[..hunted.len()], hunted[..]);
        let added: Vec<(Species, u32)> = thieves[hunted.len()..].to_vec();
        let fennecs = match depth {
            1 => 0,
            2..=4 => 1,
            5..=9 => 2,
            _ => 3,
        };
        let vipers = match depth {
            ..=4 => 0,
            5..=7 => 1,
            8..=10 => 2,
            _ => 3,
        };
        assert_eq!(
            added,
            vec![(Species::Fennec, fennecs), (Species::Viper, vipers)]
        );
    }
}

/// A viper lies hidden under the sand where the sand stirs, and its bite poisons.
#[test]
fn a_viper_hides_under_the_sand_and_its_bite_poisons() {
    assert!(Species::Viper.hides_asleep());
    assert_eq!(Species::Viper.venom(), Some(5));
    assert_eq!(Species::Viper.hearing(), Species::Sandworm.hearing());
}

/// A state holding loot encodes and decodes to itself; loot carried by an actor that is
/// not there is refused as damage.
#[test]
fn loot_is_kept_in_the_state_and_checked_when_read_back() {
    let live = holding(version(16), &["@f.", "..."], &[Item::Date, Item::Stone]);
    let mut state = live.state().clone();
    let (fennec, _) = first_of(&state, Species::Fennec).unwrap();
    let slot = slot_of(&state, Item::Date);
    state.set_up(Change::Steal {
        thief: fennec,
        slot,
        item: Item::Date,
    });
    let bytes = state.encode();
    let decoded = State::decode(&bytes, version(16).version()).unwrap();
    assert_eq!(decoded.hash(), state.hash());
    assert_eq!(decoded.world().loot_of(fennec), Some(Item::Date));

    state.set_up(Change::Die {
        actor: crate::ids::ActorId(fennec.0),
        by: None,
    });
    // Die takes the loot with the thief; put it back by hand as a damaged snapshot would.
    let mut bytes = state.encode();
    let empty_loot = bincode::serde::encode_to_vec(
        std::collections::BTreeMap::<crate::ids::ActorId, Item>::new(),
        crate::encoding::canonical(),
    )
    .unwrap();
    let full_loot = bincode::serde::encode_to_vec(
        std::collections::BTreeMap::from([(fennec, Item::Date)]),
        crate::encoding::canonical(),
    )
    .unwrap();
    assert!(bytes.ends_with(&empty_loot));
    bytes.truncate(bytes.len() - empty_loot.len());
    bytes.extend(full_loot);
    let refused = State::decode(&bytes, version(16).version());
    assert!(
        matches!(
            refused,
            Err(crate::encoding::DecodeError::Inconsistent(
                crate::consistency::Inconsistency::Loot
            ))
        ),
        "{refused:?}"
    );
}

/// A creature a mushroom of confusion burst on reels as a confused camel does: a lion
/// beside the camel stumbles where its draws send it rather than mauling.
#[test]
fn a_confused_creature_reels() {
    let live = holding(version(16), &["...", "@L.", "..."], &[]);
    let mut state = live.into_state();
    let (lion, _) = first_of(&state, Species::Lion).unwrap();
    let mut draws = crate::rng::Draws::new(&[1 << 31; 8]);
    let before = crate::decide::decide(state.world(), lion, None, &mut draws).ok();
    assert!(
        matches!(before, Some(crate::action::Action::Attack { .. })),
        "{before:?}"
    );
    let (lion, at) = first_of(&state, Species::Lion).unwrap();
    state.set_up(Change::Condition {
        actor: lion,
        condition: Condition::Confused,
        turns: 5,
    });
    assert_eq!(
        super::decision(&state, Species::Lion),
        Some(crate::action::Action::Step {
            to: at.step(Direction::N)
        })
    );
}
