//! Places: the special areas a level holds from rules version 9 on (`Rules::places`),
//! each a reward with a risk beside it. A ruin's cache behind a locked door, opened by a
//! key that lies beside a sleeper elsewhere on the level; a flooded oasis, with water to
//! fill the skin and fruit on its shore, where a sandworm lies under the sand and a cobra
//! comes to drink; a nest of dormant spider eggs around a prize, that hatch when the camel
//! comes close.
//!
//! They are laid over a finished level with draws taken after every other, so that the
//! levels of older rules are as they always were. A place goes only where nothing lies
//! yet, and only where it leaves the stairs, every creature and every item outside a
//! cache reachable from the start without the key; where it would not, another spot is
//! drawn.

use super::{reachable_from, Level};
use crate::bestiary::Brood;
use crate::crossing::Crossing;
use crate::geometry::{Direction, Pos};
use crate::item::{Glass, Item, Look, Stone};
use crate::map::{Map, Terrain};
use crate::rng::Expander;
use crate::sight::CellSet;
use crate::species::{Behaviour, Species};

/// Levels from this depth hold places: the first stays a plain start.
pub const PLACES_FROM: u8 = 2;

/// Spots drawn for a place before the level goes without it. Nearly every level finds
/// one in the first few (the test `each_kind_of_place_is_laid`).
const TRIES: u32 = 30;

/// The kinds of place.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Place {
    /// A walled yard with a locked door and a traveller's stash inside; its key lies
    /// beside a sleeping creature, or failing one as far from the start as can be.
    Cache,
    /// A broad pool with fruit on its shore, a sandworm asleep beside it and a cobra.
    Oasis,
    /// Dormant spider eggs around a spear and a mushroom.
    Nest,
}

impl Place {
    pub const ALL: [Place; 3] = [Place::Cache, Place::Oasis, Place::Nest];

    /// Its width and height, walls and shore included.
    fn size(self) -> (i16, i16) {
        match self {
            Place::Cache => (7, 5),
            Place::Oasis => (11, 7),
            Place::Nest => (5, 5),
        }
    }

    fn lay(self, level: &mut Level, area: Area, stock: Stock, rng: &mut Expander) -> bool {
        match self {
            Place::Cache => lay_cache(level, area, stock.crossing, rng),
            Place::Oasis => lay_oasis(level, area, stock.crossing, rng),
            Place::Nest => lay_nest(level, area, stock, rng),
        }
    }
}

/// What a cache holds on the short crossing, with a mushroom of a drawn look.
const STASH: [Item; 3] = [Item::Spear, Item::Date, Item::Date];

/// What the places of a level hold: the rules' tables they are laid by.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Stock {
    pub brood: Brood,
    pub crossing: Crossing,
}

/// The prize a cache or a nest holds on the long crossing, one drawn of several: a
/// spear one time in six, a javelin or a flask two in six each, a scarab one (a flask's
/// and a scarab's look drawn too). On the short crossing it was always a spear, and a
/// crossing's places gave more spears than its open ground.
fn prize(rng: &mut Expander) -> Item {
    match rng.below(6) {
        0 => Item::Spear,
        1 | 2 => Item::Javelin,
        3 | 4 => Item::Flask(Glass::ALL[rng.below(3) as usize]),
        _ => Item::Scarab(Stone::ALL[rng.below(3) as usize]),
    }
}

/// Lays one place, or one time in three two of different kinds, on a level from
/// `PLACES_FROM` down.
pub(crate) fn lay_places(level: &mut Level, stock: Stock, rng: &mut Expander) {
    if level.depth < PLACES_FROM {
        return;
    }
    let mut kinds = Place::ALL;
    rng.shuffle(&mut kinds);
    let count = if rng.one_in(3) { 2 } else { 1 };
    let mut laid: Vec<Area> = vec![];
    let (width, height) = (level.map.width() as i16, level.map.height() as i16);
    for &place in &kinds[..count] {
        let (w, h) = place.size();
        for _ in 0..TRIES {
            let area = Area {
                x: rng.below((width - w) as u32) as i16,
                y: rng.below((height - h) as u32) as i16,
                w,
                h,
            };
            if !is_clear(level, &laid, area) {
                continue;
            }
            let mut trial = level.clone();
            if place.lay(&mut trial, area, stock, rng) && is_connected(&trial) {
                *level = trial;
                laid.push(area);
                break;
            }
        }
    }
}

/// A rectangle of the map.
#[derive(Clone, Copy, Debug)]
struct Area {
    x: i16,
    y: i16,
    w: i16,
    h: i16,
}

impl Area {
    fn contains(self, p: Pos) -> bool {
        (self.x..self.x + self.w).contains(&p.x) && (self.y..self.y + self.h).contains(&p.y)
    }

    /// The area with a border of `by` cells around it.
    fn grown(self, by: i16) -> Area {
        Area {
            x: self.x - by,
            y: self.y - by,
            w: self.w + 2 * by,
            h: self.h + 2 * by,
        }
    }

    fn overlaps(self, other: Area) -> bool {
        self.x < other.x + other.w
            && other.x < self.x + self.w
            && self.y < other.y + other.h
            && other.y < self.y + self.h
    }

    fn is_edge(self, p: Pos) -> bool {
        p.x == self.x || p.y == self.y || p.x == self.x + self.w - 1 || p.y == self.y + self.h - 1
    }

    fn centre(self) -> Pos {
        Pos::new(self.x + self.w / 2, self.y + self.h / 2)
    }

    fn cells(self) -> impl Iterator<Item = Pos> {
        (self.y..self.y + self.h)
            .flat_map(move |y| (self.x..self.x + self.w).map(move |x| Pos::new(x, y)))
    }

    fn fill(self, map: &mut Map, terrain: Terrain) {
        for p in self.cells() {
            map.set_terrain(p, terrain);
        }
    }
}

/// Whether nothing stands or lies in the area or beside it: no creature, item, start,
/// stairs or place already laid, so that laying it moves nothing the level placed.
fn is_clear(level: &Level, laid: &[Area], area: Area) -> bool {
    let near = area.grown(1);
    let goal = |p: Pos| matches!(level.map.terrain(p), Terrain::Stairs | Terrain::Oasis);
    !near.contains(level.start)
        && !near.cells().any(goal)
        && !level.creatures.iter().any(|&(_, at, _)| near.contains(at))
        && !level.items.iter().any(|&(at, _)| near.contains(at))
        && !laid.iter().any(|&other| near.overlaps(other.grown(1)))
}

/// A walled yard of cactus, its locked door in the middle of a side, the stash inside,
/// and the key laid elsewhere (`lay_key`).
fn lay_cache(level: &mut Level, area: Area, crossing: Crossing, rng: &mut Expander) -> bool {
    for p in area.cells() {
        let wall = area.is_edge(p);
        level
            .map
            .set_terrain(p, if wall { Terrain::Cactus } else { Terrain::Sand });
    }
    let Area { x, y, w, h } = area;
    let door = match rng.below(4) {
        0 => Pos::new(x + w / 2, y),
        1 => Pos::new(x + w / 2, y + h - 1),
        2 => Pos::new(x, y + h / 2),
        _ => Pos::new(x + w - 1, y + h / 2),
    };
    level.map.set_terrain(door, Terrain::DoorLocked);
    let mut inside: Vec<Pos> = area.grown(-1).cells().collect();
    rng.shuffle(&mut inside);
    let mushroom = Item::Mushroom(Look::ALL[rng.below(5) as usize]);
    let stash = match crossing {
        Crossing::Short => STASH.to_vec(),
        Crossing::Long | Crossing::Furnace | Crossing::Lean | Crossing::Sparse => {
            vec![prize(rng), Item::Date]
        }
    };
    for item in stash.into_iter().chain([mushroom]) {
        if let Some(at) = inside.pop() {
            level.items.push((at, item));
        }
    }
    lay_key(level, rng)
}

/// The key goes beside a sleeper the camel can reach (one drawn of those with a free
/// cell beside them), or with none, on the reachable free cell farthest on foot from the
/// start. False if there is nowhere to put it.
fn lay_key(level: &mut Level, rng: &mut Expander) -> bool {
    let reachable = reachable_from(&level.map, level.start);
    let mut open = CellSet::empty(&level.map);
    for &p in &reachable {
        open.insert(p);
    }
    let free = |p: Pos| {
        open.contains(p)
            && p != level.start
            && matches!(
                level.map.terrain(p),
                Terrain::Sand | Terrain::Dune | Terrain::Hardpan
            )
            && !level.creatures.iter().any(|&(_, at, _)| at == p)
            && !level.items.iter().any(|&(at, _)| at == p)
    };
    let guarded: Vec<Pos> = level
        .creatures
        .iter()
        .filter(|&&(species, at, behaviour)| {
            behaviour == Behaviour::Asleep && species != Species::SpiderEgg && open.contains(at)
        })
        .filter_map(|&(_, at, _)| {
            Direction::ALL
                .into_iter()
                .map(|d| at.step(d))
                .find(|&p| free(p))
        })
        .collect();
    let spot = match guarded.len() {
        0 => reachable.iter().rev().copied().find(|&p| free(p)),
        n => Some(guarded[rng.below(n as u32) as usize]),
    };
    let Some(at) = spot else {
        return false;
    };
    level.items.push((at, Item::Key));
    true
}

/// A pool of water in an open patch of sand, dates and cactus fruit on its shore, a
/// sandworm asleep under the shore and a cobra come to drink.
fn lay_oasis(level: &mut Level, area: Area, crossing: Crossing, rng: &mut Expander) -> bool {
    area.fill(&mut level.map, Terrain::Sand);
    let centre = area.centre();
    // An ellipse seven cells across and five high.
    let wet = |p: Pos| {
        let (dx, dy) = (i32::from(p.x - centre.x), i32::from(p.y - centre.y));
        4 * dx * dx + 9 * dy * dy <= 45
    };
    for p in area.cells().filter(|&p| wet(p)) {
        level.map.set_terrain(p, Terrain::Water);
    }
    let mut shore: Vec<Pos> = area
        .cells()
        .filter(|&p| !wet(p) && Direction::ALL.iter().any(|&d| wet(p.step(d))))
        .collect();
    rng.shuffle(&mut shore);
    let fruits: &[Item] = match crossing {
        Crossing::Short => &[Item::Date, Item::Date, Item::CactusFruit, Item::CactusFruit],
        Crossing::Long | Crossing::Furnace | Crossing::Lean | Crossing::Sparse => {
            &[Item::Date, Item::CactusFruit, Item::CactusFruit]
        }
    };
    for &item in fruits {
        if let Some(at) = shore.pop() {
            level.items.push((at, item));
        }
    }
    for (species, behaviour) in [
        (Species::Sandworm, Behaviour::Asleep),
        (Species::Cobra, Behaviour::Natural),
    ] {
        if let Some(at) = shore.pop() {
            level.creatures.push((species, at, behaviour));
        }
    }
    true
}

/// A cleared patch with a spear and a mushroom in the middle, dormant spider eggs around
/// them, as many as `brood` puts in a nest.
fn lay_nest(level: &mut Level, area: Area, stock: Stock, rng: &mut Expander) -> bool {
    area.fill(&mut level.map, Terrain::Sand);
    let centre = area.centre();
    let mut around = Direction::ALL.map(|d| centre.step(d));
    rng.shuffle(&mut around);
    let (least, most) = stock.brood.nest_eggs();
    let eggs = rng.between(least, most) as usize;
    for &at in &around[..eggs] {
        level
            .creatures
            .push((Species::SpiderEgg, at, Behaviour::Asleep));
    }
    let mushroom = Item::Mushroom(Look::ALL[rng.below(5) as usize]);
    let prize = match stock.crossing {
        Crossing::Short => Item::Spear,
        Crossing::Long | Crossing::Furnace | Crossing::Lean | Crossing::Sparse => prize(rng),
    };
    level.items.push((centre, prize));
    level.items.push((centre, mushroom));
    true
}

/// Whether the stairs, every creature, every key and every item outside a cache can be
/// reached from the start without a key, and every item in a cache through its door.
fn is_connected(level: &Level) -> bool {
    let map = &level.map;
    let reach = |from: Pos| {
        let mut cells = CellSet::empty(map);
        for p in reachable_from(map, from) {
            cells.insert(p);
        }
        cells
    };
    let open = reach(level.start);
    let mut behind = CellSet::empty(map);
    let locked: Vec<Pos> = map
        .cells()
        .filter(|&p| map.terrain(p) == Terrain::DoorLocked)
        .collect();
    for &door in &locked {
        // From the door the search goes both ways: out to the start, and into the cache.
        let through = reach(door);
        if !through.contains(level.start) {
            return false;
        }
        behind.extend(&through);
    }
    let goal = map
        .cells()
        .any(|p| open.contains(p) && matches!(map.terrain(p), Terrain::Stairs | Terrain::Oasis));
    let keys = level
        .items
        .iter()
        .filter(|&&(_, item)| item == Item::Key)
        .all(|&(at, _)| open.contains(at));
    let has_key = level.items.iter().any(|&(_, item)| item == Item::Key);
    goal && keys
        && (locked.is_empty() || has_key)
        && level.creatures.iter().all(|&(_, at, _)| open.contains(at))
        && level
            .items
            .iter()
            .all(|&(at, _)| open.contains(at) || behind.contains(at))
}
