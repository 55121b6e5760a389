//! Levels: a layout made from a 64-bit seed, itself two draws from the tape.
//!
//! A level needs thousands of random choices. Each could be its own draw on the tape,
//! but the layout is a pure function of its seed, so two draws say as much and keep
//! replays small. Verification still regenerates those two draws from the game's seed.

use std::collections::VecDeque;

use serde::{Deserialize, Serialize};

use crate::bestiary::{Bestiary, Brood, PACK};
use crate::crossing::{Crossing, Supplies};
use crate::gear::FOUND_ON;
use crate::geometry::{Direction, Pos};
use crate::item::{Charm, Draught, Effect, Glass, Item, Look, Mycology, Stone};
use crate::lore::{Boon, Lore, Offers};
use crate::map::{Map, Terrain};
use crate::rng::Expander;
use crate::species::{Behaviour, Sleep, Species};

use grounds::Ground;
use places::{lay_places, Stock};

pub mod grounds;
pub mod places;

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Level {
    pub depth: u8,
    pub map: Map,
    pub start: Pos,
    pub items: Vec<(Pos, Item)>,
    /// Each creature, where it stands, and whether it is awake (`Natural`) or `Asleep`.
    pub creatures: Vec<(Species, Pos, Behaviour)>,
    /// Drawn with the first level: which mushroom look has which effect, this game.
    pub mycology: Option<Mycology>,
    /// Drawn with the first level under `Rules::finds`: which flask and which scarab
    /// does what, this game.
    pub lore: Option<Lore>,
    /// Drawn with the first level under `Rules::forking_growth`: what each desert rose
    /// offers, this game.
    pub offers: Option<Offers>,
    /// What the ground is like: drawn under `Rules::grounds`, the open erg before.
    pub ground: Ground,
}

/// What a level holds besides its ground and its creatures, by the rules' switches.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Contents {
    pub bestiary: Bestiary,
    /// The camel's gear where it lies (`gear::FOUND_ON`): `Rules::gear`.
    pub gear: bool,
    /// Javelins, flasks, scarabs, desert roses and barding (`place_finds`): `Rules::finds`.
    pub finds: bool,
    /// Special places from depth 2 (`places`): `Rules::places`.
    pub places: bool,
    /// Levels of many kinds of ground (`grounds`), not only the open erg:
    /// `Rules::grounds`.
    pub grounds: bool,
    /// A desert rose on each depth of `Crossing::roses_on`, not only one on depth 5:
    /// `Rules::roses_along_the_way`.
    pub roses: bool,
    /// How many eggs a nest holds: `Rules::brood`.
    pub brood: Brood,
    /// How deep the crossing goes and what each level gives: `Rules::crossing`.
    pub crossing: Crossing,
    /// What each desert rose offers, drawn with the first level: `Rules::forking_growth`.
    pub forking: bool,
}

impl Contents {
    /// Levels of `bestiary` and nothing the later rules versions added: no gear, finds,
    /// places, grounds or roses along the way, and the swarming brood.
    pub const fn plain(bestiary: Bestiary) -> Contents {
        Contents {
            bestiary,
            gear: false,
            finds: false,
            places: false,
            grounds: false,
            roses: false,
            brood: Brood::Swarming,
            crossing: Crossing::Short,
            forking: false,
        }
    }

    /// What the levels of `rules` hold.
    pub fn of(rules: &crate::rules::Rules) -> Contents {
        Contents {
            bestiary: rules.bestiary(),
            gear: rules.gear(),
            finds: rules.finds(),
            places: rules.places(),
            grounds: rules.grounds(),
            roses: rules.roses_along_the_way(),
            brood: rules.brood(),
            crossing: rules.crossing(),
            forking: rules.forking_growth(),
        }
    }
}

/// Makes level `depth` from `seed`, with `contents`. Every level is connected: the stairs
/// (or the oasis) and everything placed can be reached from the start, through doors if
/// need be; what lies in a locked cache, through its door once the key (which can be
/// reached without it) opens it.
pub fn generate(seed: u64, depth: u8, contents: Contents) -> Level {
    let Contents {
        bestiary,
        gear,
        finds,
        places,
        grounds,
        roses,
        brood,
        crossing,
        forking,
    } = contents;
    let mut rng = Expander::new(seed);
    let mut map = Map::filled(Map::DEFAULT_WIDTH, Map::DEFAULT_HEIGHT, Terrain::Sand);
    let ground = match grounds {
        true => Ground::draw(depth, &mut rng),
        false => Ground::Erg,
    };
    ground.lay(&mut map, &mut rng);
    let start = pick_start(&map, &mut rng);
    let reachable = reachable_from(&map, start);
    let goal = place_goal(
        &mut map,
        &reachable,
        start,
        depth == crossing.deepest(),
        &mut rng,
    );
    let mut spots = free_spots(&map, &reachable, start, goal, &mut rng);
    let mut creatures = place_creatures(&mut spots, depth, bestiary);
    let supplies = crossing.supplies(depth);
    let mut items = place_items(&mut spots, supplies, &mut rng);
    if gear {
        let found_here = FOUND_ON.iter().filter(|&&(_, on)| on == depth);
        items.extend(found_here.filter_map(|&(item, _)| Some((spots.pop()?, item))));
    }
    let mycology = (depth == 1).then(|| {
        let mut effects = Effect::ALL;
        rng.shuffle(&mut effects);
        Mycology::new(effects)
    });
    // Drawn last, so that the levels of the tables before sleep are as they always were.
    if bestiary.has_sleepers() {
        put_to_sleep(&mut creatures, bestiary.asleep_one_in(depth), &mut rng);
    }
    // Drawn after sleep, so that the levels of the versions before finds are as they were.
    let mut lore = None;
    if finds {
        let roses_on = roses.then(|| crossing.roses_on());
        items.extend(place_finds(&mut spots, depth, supplies, roses_on, &mut rng));
        lore = (depth == 1).then(|| {
            let (mut draughts, mut charms) = (Draught::ALL, Charm::ALL);
            rng.shuffle(&mut draughts);
            rng.shuffle(&mut charms);
            Lore::new(draughts, charms)
        });
    }
    let mut level = Level {
        depth,
        map,
        start,
        items,
        creatures,
        mycology,
        lore,
        offers: None,
        ground,
    };
    // After every other draw, finds' too, for the same reason; and around what lies there.
    if places {
        lay_places(&mut level, Stock { brood, crossing }, &mut rng);
    }
    // Last of all, so that the levels of the versions before are as they were.
    if forking && depth == 1 {
        let mut boons = Boon::ALL;
        rng.shuffle(&mut boons);
        level.offers = Some(Offers::from_shuffle(boons));
    }
    level
}

/// The rare finds, once a game each: bronze barding on depth 4, a desert rose on depth 5.
pub const FINDS_ON: [(Item, u8); 2] = [(Item::Barding, 4), (Item::Rose, 5)];

/// The level's javelins and flasks of random looks (`Supplies`), a scarab from depth 2,
/// and the rare finds of this depth (`FINDS_ON`; its rose on the depths of `roses_on`
/// instead, under `Rules::roses_along_the_way`).
fn place_finds(
    spots: &mut Vec<Pos>,
    depth: u8,
    supplies: Supplies,
    roses_on: Option<&[u8]>,
    rng: &mut Expander,
) -> Vec<(Pos, Item)> {
    let roses = roses_on.is_some();
    let mut finds = vec![Item::Javelin; supplies.javelins as usize];
    for _ in 0..supplies.flasks {
        finds.push(Item::Flask(Glass::ALL[rng.below(3) as usize]));
    }
    if depth >= 2 {
        finds.push(Item::Scarab(Stone::ALL[rng.below(3) as usize]));
    }
    let rare = FINDS_ON
        .iter()
        .filter(|&&(item, on)| on == depth && !(roses && item == Item::Rose));
    finds.extend(rare.map(|&(item, _)| item));
    if roses_on.is_some_and(|on| on.contains(&depth)) {
        finds.push(Item::Rose);
    }
    finds
        .into_iter()
        .filter_map(|item| Some((spots.pop()?, item)))
        .collect()
}

fn random_cell(map: &Map, rng: &mut Expander) -> Pos {
    Pos::new(
        rng.below(u32::from(map.width())) as i16,
        rng.below(u32::from(map.height())) as i16,
    )
}

/// The start is any open cell.
fn pick_start(map: &Map, rng: &mut Expander) -> Pos {
    loop {
        let at = random_cell(map, rng);
        if matches!(map.terrain(at), Terrain::Sand | Terrain::Hardpan) {
            return at;
        }
    }
}

/// The goal (stairs, or on the deepest level the oasis) is far from where the camel
/// arrives, but not always in the farthest corner: any cell in the last third of the
/// reachable ones by distance on foot.
fn place_goal(
    map: &mut Map,
    reachable: &[Pos],
    start: Pos,
    deepest: bool,
    rng: &mut Expander,
) -> Pos {
    let far = &reachable[reachable.len() * 2 / 3..];
    let goal = match far.len() {
        0 => start,
        n => far[rng.below(n as u32) as usize],
    };
    let terrain = if deepest {
        Terrain::Oasis
    } else {
        Terrain::Stairs
    };
    map.set_terrain(goal, terrain);
    goal
}

/// Reachable cells away from the start where a creature or an item may be put, in random
/// order: each is taken from the end, so no two share a cell.
fn free_spots(map: &Map, reachable: &[Pos], start: Pos, goal: Pos, rng: &mut Expander) -> Vec<Pos> {
    let mut spots: Vec<Pos> = reachable
        .iter()
        .copied()
        .filter(|&p| p != goal && p.distance(start) > 4 && map.terrain(p) != Terrain::DoorClosed)
        .collect();
    rng.shuffle(&mut spots);
    spots
}

/// Each creature on a spot of its own, taken from the end of `spots`; a hyena that
/// follows another into a pack takes the free spot nearest its packmate instead.
fn place_creatures(
    spots: &mut Vec<Pos>,
    depth: u8,
    bestiary: Bestiary,
) -> Vec<(Species, Pos, Behaviour)> {
    let counts = bestiary.counts(depth);
    let mut creatures = vec![];
    for (species, count) in counts {
        for i in 0..count {
            let spot = match creatures.last() {
                Some(&(_, leader, _)) if species == Species::Hyena && i % PACK != 0 => {
                    nearest(spots, leader)
                }
                _ => spots.pop(),
            };
            if let Some(at) = spot {
                creatures.push((species, at, Behaviour::Natural));
            }
        }
    }
    creatures
}

/// Takes the spot nearest `to` out of `spots` (the last of equally near ones).
fn nearest(spots: &mut Vec<Pos>, to: Pos) -> Option<Pos> {
    let (index, _) = spots
        .iter()
        .enumerate()
        .min_by_key(|&(i, p)| (p.distance(to), std::cmp::Reverse(i)))?;
    Some(spots.remove(index))
}

/// Sends to sleep every creature that always sleeps, and one in `often` of those that
/// often do (none of them where `often` is `None`).
fn put_to_sleep(
    creatures: &mut [(Species, Pos, Behaviour)],
    often: Option<u32>,
    rng: &mut Expander,
) {
    for (species, _, behaviour) in creatures {
        let asleep = match (species.sleeps(), often) {
            (Sleep::Never, _) | (Sleep::Often, None) => false,
            (Sleep::Often, Some(n)) => rng.one_in(n),
            (Sleep::Always, _) => true,
        };
        if asleep {
            *behaviour = Behaviour::Asleep;
        }
    }
}

/// Food, stones and spears, and a few mushrooms of random looks (`Supplies`).
fn place_items(spots: &mut Vec<Pos>, supplies: Supplies, rng: &mut Expander) -> Vec<(Pos, Item)> {
    let mut items = vec![];
    for (item, count) in supplies.plain() {
        for _ in 0..count {
            if let Some(at) = spots.pop() {
                items.push((at, item));
            }
        }
    }
    for _ in 0..supplies.mushrooms {
        if let Some(at) = spots.pop() {
            items.push((at, Item::Mushroom(Look::ALL[rng.below(5) as usize])));
        }
    }
    items
}

/// Cells reachable from `start` on foot (doors can be opened, locked ones only with a
/// key: not here), nearest first.
pub(crate) fn reachable_from(map: &Map, start: Pos) -> Vec<Pos> {
    let mut seen = vec![false; usize::from(map.width()) * usize::from(map.height())];
    let index = |p: Pos| p.y as usize * usize::from(map.width()) + p.x as usize;
    let mut order = vec![];
    let mut queue = VecDeque::from([start]);
    seen[index(start)] = true;
    while let Some(at) = queue.pop_front() {
        order.push(at);
        for dir in Direction::ALL {
            let next = at.step(dir);
            let walkable =
                map.terrain(next).is_passable() || map.terrain(next) == Terrain::DoorClosed;
            if map.contains(next) && walkable && !seen[index(next)] {
                seen[index(next)] = true;
                queue.push_back(next);
            }
        }
    }
    order
}

#[cfg(test)]
mod tests {
    use super::*;

    const DESERT: Contents = Contents::plain(Bestiary::Desert);
    const DEEPEST: u8 = Crossing::Short.deepest();

    /// Cobras come with rules version 5 only, placed after every other creature: the
    /// older table's levels are the same as they always were.
    #[test]
    fn the_cobras_table_adds_cobras_from_depth_2_and_leaves_the_others_as_they_were() {
        for depth in 1..=8 {
            let (old, new) = (
                Bestiary::Desert.counts(depth),
                Bestiary::Cobras.counts(depth),
            );
            assert_eq!(new[..old.len()], old[..]);
            let cobras = new[old.len()..].iter().map(|&(_, n)| n).sum::<u32>();
            assert_eq!(cobras > 0, depth >= 2, "depth {depth}");
            assert!(old.iter().all(|&(s, _)| s != Species::Cobra));
        }
    }

    /// Meerkats and sandworms come with rules version 6 only, after the cobras; its
    /// levels are the cobras' levels with those added and some creatures asleep.
    #[test]
    fn the_burrows_table_adds_to_the_cobras_and_puts_some_to_sleep() {
        for depth in 1..=8 {
            let (old, new) = (
                Bestiary::Cobras.counts(depth),
                Bestiary::Burrows.counts(depth),
            );
            assert_eq!(new[..old.len()], old[..]);
            assert!(new[old.len()..]
                .iter()
                .all(|&(s, _)| matches!(s, Species::Meerkat | Species::Sandworm)));
        }
        let mut asleep = [0; 2];
        for seed in 0..50 {
            let (cobras, burrows) = (
                generate(seed, 4, contents(Bestiary::Cobras, false, false)),
                generate(seed, 4, contents(Bestiary::Burrows, false, false)),
            );
            assert_eq!(cobras.map, burrows.map);
            assert!(cobras
                .creatures
                .iter()
                .all(|&(_, _, b)| b == Behaviour::Natural));
            for &(species, _, behaviour) in &burrows.creatures {
                let sleeping = behaviour == Behaviour::Asleep;
                match species.sleeps() {
                    Sleep::Never => assert!(!sleeping),
                    Sleep::Always => assert!(sleeping),
                    Sleep::Often => asleep[usize::from(sleeping)] += 1,
                }
            }
        }
        assert!(asleep[0] > 100 && asleep[1] > 100, "{asleep:?}");
    }

    /// What a level of `bestiary` holds, with or without gear, and with or without both
    /// the finds and the places of rules version 9.
    fn contents(bestiary: Bestiary, gear: bool, version_9: bool) -> Contents {
        Contents {
            gear,
            finds: version_9,
            places: version_9,
            ..Contents::plain(bestiary)
        }
    }

    /// The stairs, every creature and every item can be reached from the start, doors
    /// opened; with places, without opening a locked door (keys included), but for what
    /// lies in a cache, which its door reaches.
    #[test]
    fn every_level_is_connected() {
        for places in [false, true] {
            for seed in 0..200u64 {
                for depth in 1..=DEEPEST {
                    let level = generate(seed, depth, contents(Bestiary::Herds, true, places));
                    let at = format!("seed {seed} depth {depth} places {places}");
                    let reach = reachable_from(&level.map, level.start);
                    let goal = if depth == DEEPEST {
                        Terrain::Oasis
                    } else {
                        Terrain::Stairs
                    };
                    assert!(
                        reach.iter().any(|&p| level.map.terrain(p) == goal),
                        "{at}: goal unreachable"
                    );
                    for &(_, pos, _) in &level.creatures {
                        assert!(reach.contains(&pos), "{at}: creature at {pos:?}");
                    }
                    let doors = level
                        .map
                        .cells()
                        .filter(|&p| level.map.terrain(p) == Terrain::DoorLocked);
                    let behind: Vec<Pos> = doors
                        .flat_map(|door| {
                            let through = reachable_from(&level.map, door);
                            assert!(through.contains(&level.start), "{at}: door {door:?}");
                            through
                        })
                        .collect();
                    for &(pos, item) in &level.items {
                        let found =
                            reach.contains(&pos) || (item != Item::Key && behind.contains(&pos));
                        assert!(found, "{at}: {item:?} at {pos:?}");
                    }
                }
            }
        }
    }

    /// Rules without places make every level as it was before places came, byte for
    /// byte: the digest of many levels of every bestiary, with and without gear, made by
    /// the generator as it stood then.
    #[test]
    fn levels_without_places_are_as_they_always_were() {
        let mut digests: Vec<u8> = vec![];
        let bestiaries = [
            Bestiary::Desert,
            Bestiary::Cobras,
            Bestiary::Burrows,
            Bestiary::Herds,
        ];
        for bestiary in bestiaries {
            for gear in [false, true] {
                for seed in 0..40u64 {
                    for depth in 1..=DEEPEST {
                        let level = generate(seed, depth, contents(bestiary, gear, false));
                        // The level's fields as they were before version 9 gave it lore.
                        let Level {
                            depth,
                            map,
                            start,
                            items,
                            creatures,
                            mycology,
                            lore: None,
                            offers: None,
                            ground: Ground::Erg,
                        } = level
                        else {
                            panic!("lore without finds");
                        };
                        let fields = (depth, map, start, items, creatures, mycology);
                        let config = bincode::config::standard();
                        let bytes = bincode::serde::encode_to_vec(&fields, config).unwrap();
                        digests.extend(xxhash_rust::xxh3::xxh3_64(&bytes).to_le_bytes());
                    }
                }
            }
        }
        assert_eq!(xxhash_rust::xxh3::xxh3_64(&digests), 0x874e_2379_aba7_976c);
    }

    /// Places are laid after every other draw: a level with them is the level without,
    /// with the places laid over it.
    #[test]
    fn places_are_laid_over_the_level_without_them() {
        for seed in 0..50u64 {
            for depth in 1..=DEEPEST {
                let plain = generate(seed, depth, contents(Bestiary::Herds, true, false));
                let with = generate(seed, depth, contents(Bestiary::Herds, true, true));
                assert_eq!(with.start, plain.start);
                assert_eq!(with.mycology, plain.mycology);
                assert_eq!(with.items[..plain.items.len()], plain.items[..]);
                assert_eq!(with.creatures[..plain.creatures.len()], plain.creatures[..]);
            }
        }
    }

    #[test]
    fn same_seed_same_level() {
        assert_eq!(generate(9, 2, DESERT), generate(9, 2, DESERT));
        assert_ne!(generate(9, 2, DESERT).map, generate(10, 2, DESERT).map);
    }

    #[test]
    fn mycology_only_on_the_first_level() {
        assert!(generate(1, 1, DESERT).mycology.is_some());
        assert!(generate(1, 2, DESERT).mycology.is_none());
    }
}
