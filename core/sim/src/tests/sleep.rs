//! Sleepers, the meerkat that wakes them and the sandworm under the sand (the `Burrows`
//! bestiary, rules version 6).

use super::{first_of, level_of, onto, rest_until, said, version};
use crate::command::Command;
use crate::geometry::Direction;
use crate::message::Msg;
use crate::species::{Behaviour, Species};
use crate::state::State;

/// A game on the level drawn as `rows` (see `on_level`), every creature asleep.
fn asleep(rows: &[&str]) -> (crate::drive::Live, Vec<crate::tape::Event>) {
    let mut level = level_of(rows);
    for (_, _, behaviour) in &mut level.creatures {
        *behaviour = Behaviour::Asleep;
    }
    onto(version(6), 4, level)
}

fn behaviour(state: &State, species: Species) -> Behaviour {
    let (id, _) = first_of(state, species).unwrap();
    state.world().actor(id).unwrap().behaviour()
}

/// A sleeper beyond its hearing sleeps on however long the camel stays; one beside the
/// camel soon wakes, and the camel sees it wake.
#[test]
fn a_sleeper_hears_the_camel_only_near() {
    let far = ["@.........j"];
    let (mut live, _) = asleep(&far);
    let woke = rest_until(&mut live, 100, |s| {
        behaviour(s, Species::Jackal) != Behaviour::Asleep
    });
    assert!(!woke, "ten cells away: out of earshot");
    let (mut live, _) = asleep(&["@.j"]);
    let woke = rest_until(&mut live, 20, |s| {
        behaviour(s, Species::Jackal) == Behaviour::Natural
    });
    assert!(woke, "two cells away: heard");
    assert!(said(live.state(), Msg::Wakes(Species::Jackal)));
}

/// A blow wakes a sleeper that lives through it.
#[test]
fn a_sleeper_kicked_wakes() {
    let (mut live, mut tape) = asleep(&["@S"]);
    live.command(Command::Move(Direction::E), &mut (), &mut tape)
        .unwrap();
    let state = live.state();
    let (id, _) = first_of(state, Species::Scorpion).unwrap();
    assert!(state.world().actor(id).unwrap().hp() < Species::Scorpion.max_hp());
    assert_eq!(behaviour(state, Species::Scorpion), Behaviour::Natural);
    assert!(said(state, Msg::Wakes(Species::Scorpion)));
}

/// A meerkat that sees the camel shrieks, and every sleeper within its reach wakes, even
/// one far out of the camel's earshot; then, with nobody left to wake, it runs.
#[test]
fn a_meerkat_shrieks_the_sleepers_awake_and_runs() {
    let mut level = level_of(&["@..m.........j"]);
    let jackal = level.creatures.iter_mut().find(|c| c.0 == Species::Jackal);
    jackal.unwrap().2 = Behaviour::Asleep;
    let (mut live, _) = onto(version(6), 4, level);
    let shrieked = rest_until(&mut live, 10, |s| said(s, Msg::Shrieks));
    assert!(shrieked);
    assert_eq!(behaviour(live.state(), Species::Jackal), Behaviour::Natural);
    let (_, before) = first_of(live.state(), Species::Meerkat).unwrap();
    let camel = live.state().world().player().unwrap().pos();
    assert!(rest_until(&mut live, 10, |s| {
        let (_, now) = first_of(s, Species::Meerkat).unwrap();
        now.distance(camel) > before.distance(camel)
    }));
}

/// A sandworm asleep is not seen where the camel sees: not by the camel, nor on the map;
/// but the camel feels the sand stir two cells from it. Stepped beside, it wakes, shows
/// itself and bites.
#[test]
fn a_sandworm_lies_hidden_until_the_camel_comes_beside_it() {
    let (mut live, mut tape) = asleep(&["@..W"]);
    let (worm, at) = first_of(live.state(), Species::Sandworm).unwrap();
    let world = live.state().world();
    assert!(world.sees(at) && world.is_hidden(worm) && !world.sees_actor(worm));
    assert!(!rest_until(&mut live, 30, |s| {
        s.world().actor(worm).unwrap().behaviour() != Behaviour::Asleep
    }));
    // Two cells off, the camel feels the sand stir; beside it, the worm may wake.
    live.command(Command::Move(Direction::E), &mut (), &mut tape)
        .unwrap();
    assert!(said(live.state(), Msg::SandStirs));
    live.command(Command::Move(Direction::E), &mut (), &mut tape)
        .unwrap();
    let woke = rest_until(&mut live, 20, |s| s.world().sees_actor(worm));
    assert!(woke, "beside it, the camel is felt");
    let bitten = rest_until(&mut live, 20, |s| {
        s.world().player().is_some_and(|c| c.hp() < c.max_hp())
    });
    assert!(bitten);
}
