//! Hyenas in packs and tortoises that trample cacti (the `Herds` bestiary, rules
//! version 7).

use super::{first_of, level_of, onto, rest_until, said, version};
use crate::bestiary::Bestiary;
use crate::command::Command;
use crate::geometry::{Direction, Pos};
use crate::level::{generate, Contents};
use crate::map::Terrain;
use crate::message::Msg;
use crate::species::{Behaviour, Species, PACK_BITE};
use crate::state::State;

/// Every blow a creature of `species` has landed on the camel, as the messages tell it.
fn blows_by(state: &State, species: Species) -> Vec<i16> {
    let messages = state.world().messages().recent();
    messages
        .filter_map(|m| match m.msg {
            Msg::Hit {
                attacker,
                target: Species::Camel,
                damage,
            } if attacker == species => Some(damage),
            _ => None,
        })
        .collect()
}

/// A hyena that sees the camel howls; its packmate, asleep and far out of the camel's
/// earshot, wakes and comes for the camel from where it heard the howl.
#[test]
fn a_hyena_howls_its_sleeping_packmate_awake_and_onto_the_camel() {
    let mut level = level_of(&["@..h...............h"]);
    level.creatures.last_mut().unwrap().2 = Behaviour::Asleep;
    let (mut live, _) = onto(version(7), 4, level);
    assert!(rest_until(&mut live, 10, |s| said(s, Msg::Howls)));
    let state = live.state();
    let far = state.world().actors().map(|(_, a)| a);
    let far = far
        .filter(|a| a.species() == Species::Hyena)
        .max_by_key(|a| a.pos().x);
    let far = far.unwrap();
    assert_eq!(far.behaviour(), Behaviour::Natural);
    assert_eq!(far.last_seen(), Some(Pos::new(0, 0)));
    let start = far.pos();
    assert!(rest_until(&mut live, 20, |s| {
        let hyenas = s
            .world()
            .actors()
            .filter(|(_, a)| a.species() == Species::Hyena);
        hyenas.map(|(_, a)| a.pos().x).max() < Some(start.x)
    }));
}

/// Alone beside the camel, a hyena bites as a jackal does; with its packmate beside the
/// camel too, each bite does `PACK_BITE` more.
#[test]
fn a_hyena_bites_harder_while_its_packmate_stands_beside_the_camel() {
    let (low, high) = Species::Hyena.damage();
    let (low, high) = (low as i16, high as i16);
    let (mut live, _) = onto(version(7), 4, level_of(&["@h"]));
    rest_until(&mut live, 12, |_| false);
    let alone = blows_by(live.state(), Species::Hyena);
    assert!(!alone.is_empty());
    assert!(alone.iter().all(|d| (low..=high).contains(d)), "{alone:?}");
    let (mut live, _) = onto(version(7), 4, level_of(&["h@h"]));
    rest_until(&mut live, 6, |_| false);
    let pack = blows_by(live.state(), Species::Hyena);
    assert!(pack.len() >= 2);
    let flanked = (low + PACK_BITE)..=(high + PACK_BITE);
    assert!(pack.iter().all(|d| flanked.contains(d)), "{pack:?}");
}

/// A tortoise left alone grazes beside the camel and never harms it.
#[test]
fn a_tortoise_left_alone_harms_nobody() {
    let (mut live, _) = onto(version(7), 4, level_of(&["@T."]));
    rest_until(&mut live, 40, |_| false);
    let camel = live.state().world().player().unwrap();
    assert_eq!(camel.hp(), camel.max_hp());
    assert!(blows_by(live.state(), Species::Tortoise).is_empty());
}

/// Kicked, a tortoise comes for the camel it sees in a straight line, trampling the
/// cactus between them flat, and crushes it.
#[test]
fn a_kicked_tortoise_tramples_the_cactus_between_it_and_the_camel() {
    let rows = ["@T..", ".#..", "...."];
    let (mut live, mut tape) = onto(version(7), 4, level_of(&rows));
    for dir in [Direction::E, Direction::S, Direction::SE] {
        live.command(Command::Move(dir), &mut (), &mut tape)
            .unwrap();
    }
    let (_, at) = first_of(live.state(), Species::Tortoise).unwrap();
    assert_eq!(at, Pos::new(1, 0), "it stood its ground");
    assert_eq!(live.state().world().player().unwrap().pos(), Pos::new(1, 2));
    let cactus = Pos::new(1, 1);
    assert!(rest_until(&mut live, 10, |s| said(s, Msg::Tramples)));
    assert_eq!(live.state().world().map().terrain(cactus), Terrain::Sand);
    assert!(rest_until(&mut live, 20, |s| {
        !blows_by(s, Species::Tortoise).is_empty()
    }));
}

/// The herds' table is the burrows' with tortoises and hyena packs added last, so the
/// levels above depth 4 are the burrows' levels; a pack's two hyenas start near each
/// other.
#[test]
fn the_herds_table_adds_packs_and_tortoises_to_the_burrows() {
    for depth in 1..=8 {
        let (old, new) = (
            Bestiary::Burrows.counts(depth),
            Bestiary::Herds.counts(depth),
        );
        assert_eq!(new[..old.len()], old[..]);
        let added: Vec<_> = new[old.len()..].iter().filter(|&&(_, n)| n > 0).collect();
        assert_eq!(added.is_empty(), depth < 4, "depth {depth}: {added:?}");
        let hyenas = new.iter().find(|&&(s, _)| s == Species::Hyena).unwrap().1;
        assert_eq!(hyenas % 2, 0);
        assert_eq!(hyenas > 0, depth >= 7);
    }
    for seed in 0..50 {
        assert_eq!(
            generate(seed, 3, Contents::plain(Bestiary::Burrows)),
            generate(seed, 3, Contents::plain(Bestiary::Herds))
        );
        let level = generate(
            seed,
            7,
            Contents {
                gear: true,
                ..Contents::plain(Bestiary::Herds)
            },
        );
        let pack: Vec<Pos> = level
            .creatures
            .iter()
            .filter(|c| c.0 == Species::Hyena)
            .map(|c| c.1)
            .collect();
        assert_eq!(pack.len(), 2, "seed {seed}");
        assert!(pack[0].distance(pack[1]) <= 3, "seed {seed}: {pack:?}");
    }
}
