//! Places (rules version 9): a ruin's cache behind a locked door and the key that opens
//! it, a flooded oasis, a nest of dormant spider eggs.

use super::{carrying, first_of, level_of, onto, rest_until, said, slot_of, version};
use crate::bestiary::Bestiary;
use crate::bot::Bot;
use crate::check::Rejection;
use crate::command::Command;
use crate::crossing::Crossing;
use crate::drive::{Game, Live};
use crate::geometry::{Direction, Pos};
use crate::item::{Item, Look};
use crate::level::grounds::Ground;
use crate::level::places::PLACES_FROM;
use crate::level::{generate, reachable_from, Contents, Level};

const DEEPEST: u8 = Crossing::Short.deepest();
use crate::map::{Map, Terrain};
use crate::message::Msg;
use crate::species::{Behaviour, Species};
use crate::state::State;
use crate::tape::Event;
use crate::world::Change;

fn generated(seed: u64, depth: u8, places: bool) -> Level {
    let contents = Contents {
        gear: true,
        places,
        ..Contents::plain(Bestiary::Herds)
    };
    generate(seed, depth, contents)
}

/// Whether an oasis's pool covers `p`, around `centre`: seven cells across, five high.
fn wet(centre: Pos, p: Pos) -> bool {
    let (dx, dy) = (i32::from(p.x - centre.x), i32::from(p.y - centre.y));
    4 * dx * dx + 9 * dy * dy <= 45
}

/// The places a level holds, told by their shapes: a cache's locked door, an oasis's
/// centre (a whole pool of its shape), a nest's centre (the cell its dormant eggs are
/// around, where its prize lies).
#[derive(Debug, Default)]
struct Found {
    cache: Vec<Pos>,
    oasis: Vec<Pos>,
    nest: Vec<Pos>,
}

impl Found {
    fn count(&self) -> usize {
        self.cache.len() + self.oasis.len() + self.nest.len()
    }
}

/// How many levels of seeds 0 to 99, at the depths that have places, hold one that
/// `which` picks out of what was `found`; `check` is given each such level, where the
/// place is and which level it is, in words.
fn each_place(
    which: impl Fn(&Found) -> Option<Pos>,
    mut check: impl FnMut(&Level, Pos, &str),
) -> usize {
    let mut count = 0;
    for seed in 0..100 {
        for depth in PLACES_FROM..=DEEPEST {
            let level = generated(seed, depth, true);
            if let Some(place) = which(&found(&level)) {
                count += 1;
                check(&level, place, &format!("seed {seed} depth {depth}"));
            }
        }
    }
    count
}

fn found(level: &Level) -> Found {
    let map = &level.map;
    let pool = |c: Pos| {
        let cells = (-5..=5).flat_map(|dx| (-3..=3).map(move |dy| Pos::new(c.x + dx, c.y + dy)));
        cells
            .filter(|&p| wet(c, p))
            .all(|p| map.terrain(p) == Terrain::Water)
    };
    let eggs: Vec<Pos> = level
        .creatures
        .iter()
        .filter(|&&(s, _, b)| s == Species::SpiderEgg && b == Behaviour::Asleep)
        .map(|&(_, at, _)| at)
        .collect();
    let mut nest: Vec<Pos> = level
        .items
        .iter()
        .filter(|&&(at, item)| item == Item::Spear && eggs.iter().any(|e| e.distance(at) == 1))
        .map(|&(at, _)| at)
        .collect();
    nest.dedup();
    Found {
        cache: map
            .cells()
            .filter(|&p| map.terrain(p) == Terrain::DoorLocked)
            .collect(),
        oasis: map.cells().filter(|&c| pool(c)).collect(),
        nest,
    }
}

/// Places are laid from depth 2 under rules version 9 only: one or two to a level, of
/// different kinds; without the switch, none (and no key, no locked door, no dormant egg).
#[test]
fn places_are_laid_from_depth_2_under_version_9_only() {
    let (mut levels, mut without) = (0, 0);
    for seed in 0..100 {
        for depth in 1..=DEEPEST {
            let plain = found(&generated(seed, depth, false));
            assert_eq!(plain.count(), 0, "seed {seed} depth {depth}: {plain:?}");
            let level = generated(seed, depth, true);
            let places = found(&level);
            assert!(places.count() <= 2, "seed {seed} depth {depth}: {places:?}");
            assert!(places.cache.len() <= 1 && places.oasis.len() <= 1 && places.nest.len() <= 1);
            if depth < PLACES_FROM {
                assert_eq!(places.count(), 0);
                assert!(level.items.iter().all(|&(_, i)| i != Item::Key));
            } else {
                levels += 1;
                without += usize::from(places.count() == 0);
            }
        }
    }
    assert!(
        without * 100 <= levels,
        "{without} of {levels} levels have no place"
    );
}

/// The switch is the game's: a version-9 game's second level holds its places, a
/// version-8 game's the same level without them.
#[test]
fn a_version_9_game_lays_places_and_a_version_8_game_does_not() {
    let (mut with, mut without) = (0, 0);
    for seed in 0..6 {
        for (v, count) in [(8, &mut without), (9, &mut with)] {
            let mut game = crate::drive::LiveTape::new(version(v), seed);
            let mut commands = 0;
            let arrived = |s: &State| {
                commands += 1;
                s.world().depth() >= 2 || commands > 3000
            };
            Bot::new(seed).play_until(&mut game, arrived).unwrap();
            let world = game.state().world();
            if world.depth() < 2 {
                continue;
            }
            let locked = world
                .map()
                .cells()
                .any(|p| world.map().terrain(p) == Terrain::DoorLocked);
            let dormant = world.actors().any(|(_, a)| {
                a.species() == Species::SpiderEgg && a.behaviour() == Behaviour::Asleep
            });
            let key = world.floor().iter().any(|&(_, i)| i == Item::Key);
            *count += usize::from(locked || dormant || key || has_oasis(world.map()));
        }
    }
    assert_eq!(without, 0);
    assert!(
        with >= 4,
        "{with} of 6 version-9 games found a place on depth 2"
    );
}

fn has_oasis(map: &Map) -> bool {
    let level = Level {
        depth: 2,
        map: map.clone(),
        start: Pos::new(0, 0),
        items: vec![],
        creatures: vec![],
        mycology: None,
        lore: None,
        offers: None,
        ground: Ground::Erg,
    };
    !found(&level).oasis.is_empty()
}

/// A cache is a walled yard whose one way in is a locked door; inside lie a spear, two
/// dates and a mushroom, out of reach without the key. The key lies where the camel can
/// reach it without opening anything locked, most often beside a sleeping creature.
#[test]
fn a_cache_is_a_locked_yard_with_a_stash_and_its_key_lies_outside() {
    let mut guarded = 0;
    let caches = each_place(
        |f| f.cache.first().copied(),
        |level, door, name| {
            let outside = reachable_from(&level.map, level.start);
            let through = reachable_from(&level.map, door);
            let inside: Vec<Pos> = through
                .into_iter()
                .filter(|&p| p != door && !outside.contains(&p))
                .collect();
            assert_eq!(inside.len(), 15, "{name}: a yard of 5 by 3");
            for &p in &inside {
                for d in Direction::ALL {
                    let next = p.step(d);
                    let walled = inside.contains(&next)
                        || next == door
                        || level.map.terrain(next) == Terrain::Cactus;
                    assert!(walled, "{name}: a gap at {next:?}");
                }
            }
            let stash: Vec<Item> = level
                .items
                .iter()
                .filter(|(at, _)| inside.contains(at))
                .map(|&(_, item)| item)
                .collect();
            let count = |kind: fn(&Item) -> bool| stash.iter().filter(|&i| kind(i)).count();
            assert_eq!(stash.len(), 4, "{name}: {stash:?}");
            assert_eq!(count(|&i| i == Item::Spear), 1);
            assert_eq!(count(|&i| i == Item::Date), 2);
            assert_eq!(count(|i| matches!(i, Item::Mushroom(_))), 1);
            let keys: Vec<Pos> = level
                .items
                .iter()
                .filter(|&&(_, item)| item == Item::Key)
                .map(|&(at, _)| at)
                .collect();
            assert_eq!(keys.len(), 1);
            assert!(outside.contains(&keys[0]));
            let beside_a_sleeper = level
                .creatures
                .iter()
                .any(|&(_, at, b)| b == Behaviour::Asleep && at.distance(keys[0]) == 1);
            guarded += usize::from(beside_a_sleeper);
        },
    );
    assert!(caches >= 50, "{caches} caches");
    assert!(
        guarded * 10 >= caches * 8,
        "{guarded} of {caches} keys guarded"
    );
}

/// An oasis is a pool of 27 cells, fruit on its shore (two dates, two cactus fruit), a
/// sandworm asleep beside the water and a cobra. (A cache's key may lie there too,
/// beside the sandworm.)
#[test]
fn an_oasis_is_a_pool_with_fruit_a_sandworm_and_a_cobra_on_its_shore() {
    let oases = each_place(
        |f| f.oasis.first().copied(),
        |level, centre, name| {
            let map = &level.map;
            let pool = map.cells().filter(|&p| wet(centre, p)).count();
            assert_eq!(pool, 27);
            let shore = |p: Pos| Direction::ALL.iter().any(|&d| wet(centre, p.step(d)));
            let mut fruit: Vec<Item> = level
                .items
                .iter()
                .filter(|&&(at, item)| shore(at) && item != Item::Key)
                .map(|&(_, item)| item)
                .collect();
            fruit.sort();
            let expected = [Item::Date, Item::Date, Item::CactusFruit, Item::CactusFruit];
            assert_eq!(fruit, expected, "{name}");
            let on_shore = |species, behaviour| {
                level
                    .creatures
                    .iter()
                    .any(|&(s, at, b)| s == species && b == behaviour && shore(at))
            };
            assert!(on_shore(Species::Sandworm, Behaviour::Asleep));
            assert!(on_shore(Species::Cobra, Behaviour::Natural));
        },
    );
    assert!(oases >= 50, "{oases} oases");
}

/// A nest is three to five dormant spider eggs around a cell holding a spear and a
/// mushroom.
#[test]
fn a_nest_is_dormant_eggs_around_a_spear_and_a_mushroom() {
    let nests = each_place(
        |f| f.nest.first().copied(),
        |level, centre, name| {
            let eggs = level
                .creatures
                .iter()
                .filter(|&&(s, at, b)| {
                    s == Species::SpiderEgg && b == Behaviour::Asleep && at.distance(centre) == 1
                })
                .count();
            assert!((3..=5).contains(&eggs), "{name}: {eggs} eggs");
            let prize: Vec<Item> = level
                .items
                .iter()
                .filter(|&&(at, _)| at == centre)
                .map(|&(_, item)| item)
                .collect();
            assert_eq!(prize.len(), 2);
            assert_eq!(prize[0], Item::Spear);
            assert!(matches!(prize[1], Item::Mushroom(_)));
        },
    );
    assert!(nests >= 50, "{nests} nests");
}

fn keys(state: &State) -> usize {
    let stacks = state.world().bags().stacks();
    stacks
        .filter(|(_, s)| s.item == Item::Key)
        .map(|(_, s)| usize::from(s.count))
        .sum()
}

/// Walking into a locked door with a key opens it for good: the key is used up, the
/// camel told, and the next step goes through.
#[test]
fn walking_into_a_locked_door_with_a_key_opens_it_and_uses_the_key_up() {
    let (mut live, mut tape) = carrying(version(9), 7, &["@&."], &[Item::Key, Item::Key]);
    let door = Pos::new(1, 0);
    assert_eq!(keys(live.state()), 2);
    live.command(Command::Move(Direction::E), &mut (), &mut tape)
        .unwrap();
    let state = live.state();
    assert_eq!(state.world().map().terrain(door), Terrain::DoorOpen);
    assert_eq!(keys(state), 1);
    assert!(said(state, Msg::Unlocked));
    assert_eq!(state.world().player().unwrap().pos(), Pos::new(0, 0));
    live.command(Command::Move(Direction::E), &mut (), &mut tape)
        .unwrap();
    assert_eq!(live.state().world().player().unwrap().pos(), door);
}

/// Opening (o) a locked door with a key does the same.
#[test]
fn opening_a_locked_door_with_a_key_unlocks_it() {
    let (mut live, mut tape) = carrying(version(9), 7, &["@&."], &[Item::Key]);
    live.command(Command::Open(Direction::E), &mut (), &mut tape)
        .unwrap();
    let state = live.state();
    assert_eq!(
        state.world().map().terrain(Pos::new(1, 0)),
        Terrain::DoorOpen
    );
    assert_eq!(keys(state), 0);
    assert!(said(state, Msg::Unlocked));
}

/// Without a key a locked door is refused, walked into or opened, and costs nothing.
#[test]
fn a_locked_door_is_refused_without_a_key() {
    let (mut live, mut tape) = carrying(version(9), 7, &["@&."], &[Item::Date]);
    let hash = live.state().hash();
    for command in [Command::Move(Direction::E), Command::Open(Direction::E)] {
        let refused = live.command(command, &mut (), &mut tape);
        assert_eq!(refused.unwrap_err(), Rejection::Locked);
    }
    let refused = live.command(Command::Close(Direction::E), &mut (), &mut tape);
    assert_eq!(refused.unwrap_err(), Rejection::NoOpenDoor);
    assert_eq!(live.state().hash(), hash);
    let words = Rejection::Locked.to_string();
    assert!(words.contains("key"), "{words}");
}

/// A locked door hides what is behind it, as a closed one does, and no creature opens
/// it: a jackal that knows where the camel is stays on its side.
#[test]
fn a_locked_door_blocks_sight_and_every_creature() {
    let rows = ["#####", "@.&.j", "#####"];
    let (live, _) = onto(version(9), 3, level_of(&rows));
    let (jackal, _) = first_of(live.state(), Species::Jackal).unwrap();
    assert!(!live.state().world().sees(Pos::new(3, 1)));
    let mut state = live.into_state();
    state.set_up(Change::Alert {
        actor: jackal,
        at: Pos::new(0, 1),
    });
    let mut live = Live::resume(3, state);
    rest_until(&mut live, 30, |_| false);
    let world = live.state().world();
    assert!(world.actor(jackal).unwrap().pos().x > 2);
    assert_eq!(world.map().terrain(Pos::new(2, 1)), Terrain::DoorLocked);
    let camel = world.player().unwrap();
    assert_eq!(camel.hp(), camel.max_hp());
}

/// The level drawn as `rows`, every spider egg on it dormant, as a nest's are.
fn with_dormant_eggs(rows: &[&str]) -> (Live, Vec<Event>) {
    let mut level = level_of(rows);
    for (species, _, behaviour) in &mut level.creatures {
        if *species == Species::SpiderEgg {
            *behaviour = Behaviour::Asleep;
        }
    }
    onto(version(9), 5, level)
}

/// A nest's egg lies dormant while the camel keeps its distance; once the camel comes
/// within two steps it stirs, and hatches on its next turn.
#[test]
fn a_dormant_egg_hatches_only_once_the_camel_comes_close() {
    let (mut live, _) = with_dormant_eggs(&["@.....o.."]);
    let (egg, _) = first_of(live.state(), Species::SpiderEgg).unwrap();
    rest_until(&mut live, 40, |_| false);
    let world = live.state().world();
    assert_eq!(world.actor(egg).unwrap().behaviour(), Behaviour::Asleep);
    assert!(first_of(live.state(), Species::Spider).is_none());
    let (mut live, _) = with_dormant_eggs(&["..@.o.."]);
    let hatched = rest_until(&mut live, 40, |s| first_of(s, Species::Spider).is_some());
    assert!(hatched);
    let state = live.state();
    assert!(said(state, Msg::Wakes(Species::SpiderEgg)));
    assert!(state
        .world()
        .messages()
        .recent()
        .any(|m| matches!(m.msg, Msg::Hatched { spiders } if spiders > 0)));
    assert_eq!(
        Msg::Wakes(Species::SpiderEgg).to_string(),
        "A spider egg quivers!"
    );
}

/// A game the bot plays on one level, without a tape.
struct OnLevel(Live);

impl Game for OnLevel {
    type Error = Rejection;

    fn state(&self) -> &State {
        self.0.state()
    }

    fn play(&mut self, command: Command) -> Result<(), Rejection> {
        self.0.command(command, &mut (), &mut vec![]).map(drop)
    }
}

/// The bot picks up a key, opens the cache it finds with it, and takes what is inside.
#[test]
fn the_bot_opens_a_cache_with_its_key_and_takes_the_stash() {
    let rows = [
        "@.....#####",
        "......#...#",
        "......&...#",
        "......#...#",
        "......#####",
    ];
    let mut level = level_of(&rows);
    let stash = Item::Mushroom(Look::Red);
    level.items = vec![(Pos::new(2, 4), Item::Key), (Pos::new(8, 2), stash)];
    let (live, _) = onto(version(9), 2, level);
    let mut game = OnLevel(live);
    let mut commands = 0;
    let armed = |s: &State| {
        commands += 1;
        s.world().bags().find(stash).is_some() || commands > 500
    };
    Bot::new(2).play_until(&mut game, armed).unwrap();
    let state = game.state();
    assert!(said(state, Msg::Unlocked));
    assert_eq!(keys(state), 0);
    assert_eq!(
        state.world().bags().item(slot_of(state, stash)),
        Some(stash)
    );
}
