//! Rules version 10: levels of many grounds, roses along the way, bounded broods, harms
//! told, and dates fed to an ally. Each against the version before it.

use super::{first_of, level_of, onto, rest_until, said, slot_of, version};
use crate::bestiary::Brood;
use crate::command::Command;
use crate::crossing::Crossing;
use crate::geometry::{Direction, Pos};
use crate::item::Item;
use crate::level::grounds::Ground;
use crate::level::{generate, reachable_from, Contents};

const DEEPEST: u8 = Crossing::Short.deepest();
const ROSES_ON: &[u8] = Crossing::Short.roses_on();
use crate::map::Terrain;
use crate::message::{Harm, Msg};
use crate::species::Species;
use crate::world::{Change, Condition};

fn contents(v: u16) -> Contents {
    Contents::of(&version(v))
}

/// Every ground comes up, the first level is always the open erg, and every level of
/// every ground is connected: the stairs (or the oasis) and everything placed on it can
/// be reached from the start.
#[test]
fn every_ground_comes_up_and_every_level_of_it_is_connected() {
    let mut met = std::collections::BTreeMap::new();
    for seed in 0..120u64 {
        for depth in 1..=DEEPEST {
            let level = generate(seed, depth, contents(10));
            *met.entry(level.ground).or_insert(0) += 1;
            if depth == 1 {
                assert_eq!(level.ground, Ground::Erg, "seed {seed}");
            }
            let reach = reachable_from(&level.map, level.start);
            let goal = if depth == DEEPEST {
                Terrain::Oasis
            } else {
                Terrain::Stairs
            };
            let at = format!("seed {seed} depth {depth} {:?}", level.ground);
            assert!(
                reach.iter().any(|&p| level.map.terrain(p) == goal),
                "{at}: no way to the goal"
            );
            for &(_, pos, _) in &level.creatures {
                assert!(reach.contains(&pos), "{at}: a creature out of reach");
            }
        }
    }
    assert_eq!(met.len(), Ground::ALL.len(), "{met:?}");
    assert!(met.values().all(|&n| n > 100), "{met:?}");
}

/// Each ground is what its name says: a canyon's ridges of cactus are crossed only by
/// passes, a dune sea is mostly dunes, a basin has a lake, a ruined town has doors.
#[test]
fn each_ground_is_laid_as_it_is_named() {
    for seed in 0..300u64 {
        let level = generate(seed, 3, contents(10));
        let map = &level.map;
        let cells = map.cells().count();
        let share = |t: Terrain| map.cells().filter(|&p| map.terrain(p) == t).count() * 100 / cells;
        match level.ground {
            Ground::Canyon => {
                // Most rows cross three ridges or more: runs of two cacti or more.
                let cactus = |x: i16, y: i16| map.terrain(Pos::new(x, y)) == Terrain::Cactus;
                let ridges = |y: i16| {
                    (0..map.width() as i16)
                        .filter(|&x| !cactus(x - 1, y) && cactus(x, y) && cactus(x + 1, y))
                        .count()
                };
                let crossed = (0..map.height() as i16).filter(|&y| ridges(y) >= 3).count();
                assert!(crossed >= 25, "seed {seed}: {crossed} rows cross ridges");
            }
            Ground::DuneSea => assert!(share(Terrain::Dune) > 50, "seed {seed}"),
            Ground::Basin => assert!(share(Terrain::Water) >= 5, "seed {seed}"),
            Ground::Ruins => assert!(
                map.cells()
                    .any(|p| matches!(map.terrain(p), Terrain::DoorClosed | Terrain::DoorOpen)),
                "seed {seed}"
            ),
            Ground::Erg => {}
        }
    }
}

/// From version 10 a rose lies on each depth of `Crossing::roses_on` and nowhere else; before, one
/// on depth 5.
#[test]
fn roses_lie_along_the_way_from_version_10() {
    let roses = |v: u16, depth: u8| {
        (0..30u64)
            .filter(|&seed| {
                let level = generate(seed, depth, contents(v));
                level.items.iter().any(|&(_, item)| item == Item::Rose)
            })
            .count()
    };
    for depth in 1..=DEEPEST {
        let ten = roses(10, depth);
        let nine = roses(9, depth);
        assert_eq!(ten > 25, ROSES_ON.contains(&depth), "depth {depth}: {ten}");
        assert_eq!(nine > 25, depth == 5, "depth {depth}: {nine}");
    }
}

/// A version-10 nest holds one or two eggs; a version-9 nest three to five.
#[test]
fn a_nest_holds_fewer_eggs_from_version_10() {
    for (v, brood) in [(9, Brood::Swarming), (10, Brood::Bounded)] {
        let (least, most) = brood.nest_eggs();
        let mut nests = 0;
        for seed in 0..200u64 {
            let level = generate(seed, 4, contents(v));
            let eggs = level
                .creatures
                .iter()
                .filter(|&&(s, ..)| s == Species::SpiderEgg)
                .count() as u32;
            if eggs > 0 {
                nests += 1;
                assert!(
                    (least..=2 * most).contains(&eggs),
                    "v{v} seed {seed}: {eggs}"
                );
            }
        }
        assert!(nests > 20, "v{v}: {nests} nests");
    }
}

/// Poison burns with its amount told from version 10, and a death by it is named.
#[test]
fn poison_is_told_with_its_amount_and_names_the_death_it_brings() {
    for v in [9, 10] {
        let (live, _) = onto(version(v), 5, level_of(&["@...."]));
        let mut state = live.into_state();
        let camel = state.world().player_id().unwrap();
        let hp = state.world().actor_at(camel).hp();
        state.set_up(Change::Hurt {
            actor: camel,
            amount: hp - 2,
        });
        state.set_up(Change::Condition {
            actor: camel,
            condition: Condition::Poisoned,
            turns: 10,
        });
        let mut live = crate::drive::Live::resume(5, state);
        assert!(rest_until(&mut live, 10, |s| s.outcome().is_some()));
        let told = said(live.state(), Msg::Burns { damage: 1 });
        let named = said(live.state(), Msg::Perished(Harm::Poison));
        let plain = said(live.state(), Msg::Died { by: None });
        assert_eq!((told, named, plain), (v >= 10, v >= 10, v < 10), "v{v}");
    }
}

/// A date thrown to the camel's ally is eaten and heals it from version 10; before, it
/// landed at the ally's feet.
#[test]
fn an_ally_eats_a_date_thrown_to_it_from_version_10() {
    for v in [9, 10] {
        let (live, _) = onto(version(v), 5, level_of(&["@j.."]));
        let (jackal, _) = first_of(live.state(), Species::Jackal).unwrap();
        let mut state = live.into_state();
        state.set_up(Change::Tame { actor: jackal });
        state.set_up(Change::Hurt {
            actor: jackal,
            amount: 4,
        });
        let mut live = crate::drive::Live::resume(5, state);
        let date = slot_of(live.state(), Item::Date);
        live.command(Command::Throw(date, Direction::E), &mut (), &mut vec![])
            .unwrap();
        let world = live.state().world();
        let fed = said(
            live.state(),
            Msg::Fed {
                species: Species::Jackal,
                amount: Item::Date.nourishment(),
            },
        );
        let jackal = world.actor_at(jackal);
        assert_eq!(fed, v >= 10, "v{v}");
        assert_eq!(jackal.hp() == jackal.max_hp(), v >= 10, "v{v}");
        assert_eq!(world.floor().iter().any(|&(_, i)| i == Item::Date), v < 10);
    }
}
