//! Levels: a layout made from a 64-bit seed, itself two draws from the tape.
//!
//! A level needs thousands of random choices. Each could be its own draw on the tape,
//! but the layout is a pure function of its seed, so two draws say as much and keep
//! replays small. Verification still regenerates those two draws from the game's seed.

use std::collections::VecDeque;

use serde::{Deserialize, Serialize};

use crate::gear::FOUND_ON;
use crate::geometry::{Direction, Pos};
use crate::item::{Charm, Draught, Effect, Glass, Item, Look, Mycology, Stone};
use crate::lore::Lore;
use crate::map::{Map, Terrain};
use crate::places::lay_places;
use crate::rng::Expander;
use crate::species::{Behaviour, Sleep, Species};

/// The oasis lies on this level; every level above has stairs down.
pub const DEEPEST: u8 = 8;

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
}

impl Contents {
    /// What the levels of `rules` hold.
    pub fn of(rules: &crate::rules::Rules) -> Contents {
        Contents {
            bestiary: rules.bestiary(),
            gear: rules.gear(),
            finds: rules.finds(),
            places: rules.places(),
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
    } = contents;
    let mut rng = Expander::new(seed);
    let mut map = Map::filled(Map::DEFAULT_WIDTH, Map::DEFAULT_HEIGHT, Terrain::Sand);
    lay_ground(&mut map, &mut rng);
    let start = pick_start(&map, &mut rng);
    let reachable = reachable_from(&map, start);
    let goal = place_goal(&mut map, &reachable, start, depth, &mut rng);
    let mut spots = free_spots(&map, &reachable, start, goal, &mut rng);
    let mut creatures = place_creatures(&mut spots, depth, bestiary);
    let mut items = place_items(&mut spots, &mut rng);
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
        put_to_sleep(&mut creatures, &mut rng);
    }
    // Drawn after sleep, so that the levels of the versions before finds are as they were.
    let mut lore = None;
    if finds {
        items.extend(place_finds(&mut spots, depth, &mut rng));
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
    };
    // After every other draw, finds' too, for the same reason; and around what lies there.
    if places {
        lay_places(&mut level, &mut rng);
    }
    level
}

/// The rare finds, once a game each: bronze barding on depth 4, a desert rose on depth 5.
pub const FINDS_ON: [(Item, u8); 2] = [(Item::Barding, 4), (Item::Rose, 5)];

/// A javelin on every level, two flasks of random looks, a scarab from depth 2, and the
/// rare finds of this depth (`FINDS_ON`).
fn place_finds(spots: &mut Vec<Pos>, depth: u8, rng: &mut Expander) -> Vec<(Pos, Item)> {
    let mut finds = vec![Item::Javelin];
    for _ in 0..2 {
        finds.push(Item::Flask(Glass::ALL[rng.below(3) as usize]));
    }
    if depth >= 2 {
        finds.push(Item::Scarab(Stone::ALL[rng.below(3) as usize]));
    }
    let rare = FINDS_ON.iter().filter(|&&(_, on)| on == depth);
    finds.extend(rare.map(|&(item, _)| item));
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

/// Soft dunes and hard pans as blobs grown by random walks, pools of water, cactus groves
/// and single cacti, and a few ruined yards.
fn lay_ground(map: &mut Map, rng: &mut Expander) {
    for (terrain, blobs, size) in [(Terrain::Dune, 7, 90), (Terrain::Hardpan, 5, 60)] {
        for _ in 0..blobs {
            let mut at = random_cell(map, rng);
            for _ in 0..size {
                map.set_terrain(at, terrain);
                at = at.step(Direction::ALL[rng.below(8) as usize]);
            }
        }
    }
    for _ in 0..rng.between(1, 3) {
        let mut at = random_cell(map, rng);
        for _ in 0..rng.between(15, 40) {
            map.set_terrain(at, Terrain::Water);
            at = at.step(Direction::ORTHOGONAL[rng.below(4) as usize]);
        }
    }
    for _ in 0..rng.between(140, 220) {
        let at = random_cell(map, rng);
        map.set_terrain(at, Terrain::Cactus);
    }
    for _ in 0..rng.between(2, 4) {
        build_ruin(map, rng);
    }
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
fn place_goal(map: &mut Map, reachable: &[Pos], start: Pos, depth: u8, rng: &mut Expander) -> Pos {
    let far = &reachable[reachable.len() * 2 / 3..];
    let goal = match far.len() {
        0 => start,
        n => far[rng.below(n as u32) as usize],
    };
    let terrain = if depth >= DEEPEST {
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

/// Which creatures the levels hold, and how many at each depth: a table per rules version
/// that changed them (`Rules::bestiary`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Bestiary {
    /// Rules versions 2 to 4: snakes, spiders, elephants, jackals and scorpions.
    Desert,
    /// Rules version 5: the desert's, and cobras that spit from a distance.
    Cobras,
    /// Rules version 6: the cobras', meerkats and sandworms; many creatures asleep.
    Burrows,
    /// Rules version 7: the burrows', hyenas in packs and tortoises that trample cacti.
    Herds,
}

impl Bestiary {
    /// Whether its levels place creatures asleep: from `Burrows` on.
    pub fn has_sleepers(self) -> bool {
        self >= Bestiary::Burrows
    }

    /// Every kind its levels hold, hatchlings aside, in the order of `counts`: the
    /// deepest level holds them all.
    pub fn species(self) -> impl Iterator<Item = Species> {
        self.counts(DEEPEST).into_iter().map(|(species, _)| species)
    }

    /// How many of each creature a level of `depth` holds: more, and more kinds, deeper.
    /// Jackals come from depth 2, scorpions from depth 3; under `Cobras`, cobras from
    /// depth 2, placed after the others; under `Burrows`, meerkats from depth 1 and
    /// sandworms from depth 2, placed after the cobras; under `Herds`, tortoises from
    /// depth 4 and a pack of two hyenas from depth 7, placed last.
    pub fn counts(self, depth: u8) -> Vec<(Species, u32)> {
        let d = u32::from(depth);
        let mut counts = vec![
            (Species::Snake, 2 + d / 2),
            (Species::Spider, 1 + d / 3),
            (Species::Elephant, (d + 1) / 3),
            (Species::Jackal, d.saturating_sub(1).div_ceil(2)),
            (Species::Scorpion, d.saturating_sub(1) / 2),
        ];
        if self != Bestiary::Desert {
            counts.push((Species::Cobra, (d + 1) / 3));
        }
        if self >= Bestiary::Burrows {
            counts.push((Species::Meerkat, 1 + d / 4));
            counts.push((Species::Sandworm, (d + 1) / 3));
        }
        if self >= Bestiary::Herds {
            counts.push((Species::Tortoise, d.saturating_sub(1) / 3));
            counts.push((Species::Hyena, PACK * (d.saturating_sub(4) / 3)));
        }
        counts
    }
}

/// How many hyenas run together.
const PACK: u32 = 2;

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

/// Sends to sleep every creature that always sleeps, and one in two of those that often do.
fn put_to_sleep(creatures: &mut [(Species, Pos, Behaviour)], rng: &mut Expander) {
    for (species, _, behaviour) in creatures {
        let asleep = match species.sleeps() {
            Sleep::Never => false,
            Sleep::Often => rng.one_in(2),
            Sleep::Always => true,
        };
        if asleep {
            *behaviour = Behaviour::Asleep;
        }
    }
}

/// Food, stones and a spear, and a few mushrooms of random looks.
fn place_items(spots: &mut Vec<Pos>, rng: &mut Expander) -> Vec<(Pos, Item)> {
    let kinds = [
        (Item::Date, 3),
        (Item::CactusFruit, 2),
        (Item::Stone, 3),
        (Item::Spear, 1),
    ];
    let mut items = vec![];
    for (item, count) in kinds {
        for _ in 0..count {
            if let Some(at) = spots.pop() {
                items.push((at, item));
            }
        }
    }
    for _ in 0..3 {
        if let Some(at) = spots.pop() {
            items.push((at, Item::Mushroom(Look::ALL[rng.below(5) as usize])));
        }
    }
    items
}

/// A small walled yard of cactus with a door, closed or open.
fn build_ruin(map: &mut Map, rng: &mut Expander) {
    let (rw, rh) = (rng.between(5, 9) as i16, rng.between(4, 7) as i16);
    let x0 = rng.below(u32::from(map.width()) - rw as u32) as i16;
    let y0 = rng.below(u32::from(map.height()) - rh as u32) as i16;
    for y in y0..y0 + rh {
        for x in x0..x0 + rw {
            let edge = x == x0 || y == y0 || x == x0 + rw - 1 || y == y0 + rh - 1;
            map.set_terrain(
                Pos::new(x, y),
                if edge { Terrain::Cactus } else { Terrain::Sand },
            );
        }
    }
    let door = match rng.below(4) {
        0 => Pos::new(x0 + rw / 2, y0),
        1 => Pos::new(x0 + rw / 2, y0 + rh - 1),
        2 => Pos::new(x0, y0 + rh / 2),
        _ => Pos::new(x0 + rw - 1, y0 + rh / 2),
    };
    let kind = if rng.one_in(2) {
        Terrain::DoorClosed
    } else {
        Terrain::DoorOpen
    };
    map.set_terrain(door, kind);
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

    const DESERT: Contents = Contents {
        bestiary: Bestiary::Desert,
        gear: false,
        finds: false,
        places: false,
    };

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
            bestiary,
            gear,
            finds: version_9,
            places: version_9,
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
