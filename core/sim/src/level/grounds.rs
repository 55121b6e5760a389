//! The kinds of ground a level is laid on (rules version 10 on: `Rules::grounds`). Each
//! changes how a fight goes there: a pack held in a canyon's pass, an elephant charging
//! across a dune sea, creatures met round a corner in a ruined town, a lake to be walked
//! round in an oasis basin. Before, every level was the open erg.

use serde::{Deserialize, Serialize};

use crate::geometry::{Direction, Pos};
use crate::map::{Map, Terrain};
use crate::rng::Expander;

use super::random_cell;

/// What a level's ground is like.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
pub enum Ground {
    /// Open sand with drifts of dunes and pans of hardpan, cactus groves, pools and a few
    /// ruined yards: the desert of every level before rules version 10.
    #[default]
    Erg,
    /// Hardpan floors between ridges of cactus that cross the level, each broken by a
    /// few narrow passes: a pack met in a pass comes one at a time.
    Canyon,
    /// Soft dunes as far as the eye sees, crossed by ridges of hardpan: slow going,
    /// long sight lines, elephants' ground.
    DuneSea,
    /// Streets of hardpan between walled houses with doors: creatures met round corners
    /// and through doorways.
    Ruins,
    /// A great lake in the middle, a firm shore round it: water to fill the skin from,
    /// and a long way round.
    Basin,
}

impl Ground {
    pub const ALL: [Ground; 5] = [
        Ground::Erg,
        Ground::Canyon,
        Ground::DuneSea,
        Ground::Ruins,
        Ground::Basin,
    ];

    /// The ground of level `depth`: the first is the open erg, a gentle start; each
    /// deeper one is drawn from every kind.
    pub fn draw(depth: u8, rng: &mut Expander) -> Ground {
        if depth <= 1 {
            Ground::Erg
        } else {
            Ground::ALL[rng.below(Ground::ALL.len() as u32) as usize]
        }
    }

    pub fn name(self) -> &'static str {
        match self {
            Ground::Erg => "open erg",
            Ground::Canyon => "canyon",
            Ground::DuneSea => "dune sea",
            Ground::Ruins => "ruined town",
            Ground::Basin => "oasis basin",
        }
    }

    /// What the player is told of it on arriving.
    pub fn hint(self) -> &'static str {
        match self {
            Ground::Erg => "open sand, dunes and cactus groves",
            Ground::Canyon => "ridges of cactus, crossed only by narrow passes",
            Ground::DuneSea => "soft dunes as far as the eye sees; the hardpan ridges are quicker",
            Ground::Ruins => "walled houses along hardpan streets",
            Ground::Basin => "a great lake, with a firm shore round it",
        }
    }

    /// Lays this ground over `map`, a level of sand.
    pub fn lay(self, map: &mut Map, rng: &mut Expander) {
        match self {
            Ground::Erg => lay_erg(map, rng),
            Ground::Canyon => lay_canyon(map, rng),
            Ground::DuneSea => lay_dune_sea(map, rng),
            Ground::Ruins => lay_ruins(map, rng),
            Ground::Basin => lay_basin(map, rng),
        }
    }
}

/// `terrain` along a random walk of `size` steps from a random cell.
fn blob(map: &mut Map, terrain: Terrain, size: u32, rng: &mut Expander) {
    let mut at = random_cell(map, rng);
    for _ in 0..size {
        map.set_terrain(at, terrain);
        at = at.step(Direction::ALL[rng.below(8) as usize]);
    }
}

/// Soft dunes and hard pans as blobs grown by random walks, pools of water, cactus groves
/// and single cacti, and a few ruined yards.
pub(crate) fn lay_erg(map: &mut Map, rng: &mut Expander) {
    for (terrain, blobs, size) in [(Terrain::Dune, 7, 90), (Terrain::Hardpan, 5, 60)] {
        for _ in 0..blobs {
            blob(map, terrain, size, rng);
        }
    }
    for _ in 0..rng.between(1, 3) {
        pool(map, (15, 40), rng);
    }
    for _ in 0..rng.between(140, 220) {
        let at = random_cell(map, rng);
        map.set_terrain(at, Terrain::Cactus);
    }
    for _ in 0..rng.between(2, 4) {
        build_ruin(map, rng);
    }
}

/// Water along a random walk of `least` to `most` straight steps from a random cell.
fn pool(map: &mut Map, (least, most): (u32, u32), rng: &mut Expander) {
    let mut at = random_cell(map, rng);
    for _ in 0..rng.between(least, most) {
        map.set_terrain(at, Terrain::Water);
        at = at.step(Direction::ORTHOGONAL[rng.below(4) as usize]);
    }
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
    map.set_terrain(door, random_door(rng));
}

fn random_door(rng: &mut Expander) -> Terrain {
    if rng.one_in(2) {
        Terrain::DoorClosed
    } else {
        Terrain::DoorOpen
    }
}

/// Ridges of cactus from the top of the level to its bottom, every 9 to 13 columns,
/// wandering a little; each two cells thick (so that no diagonal step slips through) and
/// broken by two or three passes one or two cells wide. Between them, hardpan floors with
/// drifts of sand and dune, and a few cacti.
fn lay_canyon(map: &mut Map, rng: &mut Expander) {
    fill(map, Terrain::Hardpan);
    for _ in 0..6 {
        blob(map, Terrain::Sand, 60, rng);
    }
    for _ in 0..3 {
        blob(map, Terrain::Dune, 50, rng);
    }
    for _ in 0..rng.between(20, 40) {
        let at = random_cell(map, rng);
        map.set_terrain(at, Terrain::Cactus);
    }
    let (width, height) = (map.width() as i16, map.height() as i16);
    let mut ridge = rng.between(8, 12) as i16;
    while ridge < width - 6 {
        let passes: Vec<(i16, i16)> = (0..rng.between(2, 3))
            .map(|_| {
                (
                    rng.between(1, height as u32 - 3) as i16,
                    rng.between(1, 2) as i16,
                )
            })
            .collect();
        let in_pass = |y: i16| passes.iter().any(|&(top, wide)| y >= top && y < top + wide);
        let mut x = ridge;
        for y in 0..height {
            x = (x + rng.below(3) as i16 - 1).clamp(ridge - 2, ridge + 2);
            let terrain = if in_pass(y) {
                Terrain::Hardpan
            } else {
                Terrain::Cactus
            };
            map.set_terrain(Pos::new(x, y), terrain);
            map.set_terrain(Pos::new(x + 1, y), terrain);
        }
        ridge += rng.between(9, 13) as i16;
    }
}

/// Dunes everywhere, crossed by four to six ridges of hardpan that run roughly one way;
/// a few patches of sand, single cacti and one pool.
fn lay_dune_sea(map: &mut Map, rng: &mut Expander) {
    fill(map, Terrain::Dune);
    for _ in 0..3 {
        blob(map, Terrain::Sand, 40, rng);
    }
    for _ in 0..rng.between(4, 6) {
        let heading = Direction::ALL[rng.below(8) as usize];
        let mut at = random_cell(map, rng);
        for _ in 0..rng.between(60, 120) {
            map.set_terrain(at, Terrain::Hardpan);
            let dir = match rng.below(3) {
                0 => Direction::ALL[rng.below(8) as usize],
                _ => heading,
            };
            at = at.step(dir);
        }
    }
    pool(map, (10, 20), rng);
    for _ in 0..rng.between(40, 80) {
        let at = random_cell(map, rng);
        map.set_terrain(at, Terrain::Cactus);
    }
}

/// Blocks between streets of hardpan (a street every 9 to 12 columns and every 7 to 10
/// rows, the level's edges streets too); most blocks a house walled in cactus with a
/// door onto a street, a wall stone fallen here and there, the rest open yards.
fn lay_ruins(map: &mut Map, rng: &mut Expander) {
    fill(map, Terrain::Sand);
    let (width, height) = (map.width() as i16, map.height() as i16);
    let xs = street_lines(width, 9, 12, rng);
    let ys = street_lines(height, 7, 10, rng);
    for &x in &xs {
        for y in 0..height {
            map.set_terrain(Pos::new(x, y), Terrain::Hardpan);
        }
    }
    for &y in &ys {
        for x in 0..width {
            map.set_terrain(Pos::new(x, y), Terrain::Hardpan);
        }
    }
    for pair_y in ys.windows(2) {
        for pair_x in xs.windows(2) {
            // The block between two streets, a cell of yard left on each side.
            let (x0, x1) = (pair_x[0] + 2, pair_x[1] - 2);
            let (y0, y1) = (pair_y[0] + 2, pair_y[1] - 2);
            if x1 - x0 >= 3 && y1 - y0 >= 3 && !rng.one_in(4) {
                build_house(map, (x0, y0, x1, y1), rng);
            } else {
                for _ in 0..rng.between(0, 3) {
                    let at = Pos::new(
                        rng.between(x0 as u32, x1.max(x0) as u32) as i16,
                        rng.between(y0 as u32, y1.max(y0) as u32) as i16,
                    );
                    map.set_terrain(at, Terrain::Cactus);
                }
            }
        }
    }
}

/// Where the streets run along one side of `length` cells: its first and last cell, and
/// every `least` to `most` cells between.
fn street_lines(length: i16, least: u32, most: u32, rng: &mut Expander) -> Vec<i16> {
    let mut lines = vec![0];
    let mut at = rng.between(least, most) as i16;
    while at < length - least as i16 / 2 {
        lines.push(at);
        at += rng.between(least, most) as i16;
    }
    lines.push(length - 1);
    lines
}

/// A house filling the block from `(x0, y0)` to `(x1, y1)`, its walls of cactus, one or
/// two doors, and one wall cell in four fallen to sand.
fn build_house(map: &mut Map, (x0, y0, x1, y1): (i16, i16, i16, i16), rng: &mut Expander) {
    for y in y0..=y1 {
        for x in x0..=x1 {
            let wall = x == x0 || x == x1 || y == y0 || y == y1;
            let fallen = wall && rng.one_in(12);
            let terrain = if wall && !fallen {
                Terrain::Cactus
            } else {
                Terrain::Sand
            };
            map.set_terrain(Pos::new(x, y), terrain);
        }
    }
    let (mx, my) = ((x0 + x1) / 2, (y0 + y1) / 2);
    let sides = [
        Pos::new(mx, y0),
        Pos::new(mx, y1),
        Pos::new(x0, my),
        Pos::new(x1, my),
    ];
    for _ in 0..rng.between(1, 2) {
        let door = sides[rng.below(4) as usize];
        map.set_terrain(door, random_door(rng));
    }
}

/// A lake in the middle, an ellipse 10 to 16 cells across each way from its centre and 6
/// to 10 up and down, ringed by a shore of hardpan two cells wide; dunes drifted at the
/// level's edges, a few pools and cactus groves.
fn lay_basin(map: &mut Map, rng: &mut Expander) {
    fill(map, Terrain::Sand);
    for _ in 0..5 {
        blob(map, Terrain::Dune, 70, rng);
    }
    let (width, height) = (map.width() as i32, map.height() as i32);
    let centre = (
        width / 2 + rng.between(0, 8) as i32 - 4,
        height / 2 + rng.between(0, 4) as i32 - 2,
    );
    let (rx, ry) = (rng.between(10, 16) as i32, rng.between(6, 10) as i32);
    for y in 0..height {
        for x in 0..width {
            let (dx, dy) = (x - centre.0, y - centre.1);
            let at = Pos::new(x as i16, y as i16);
            if within(dx, dy, rx, ry) {
                map.set_terrain(at, Terrain::Water);
            } else if within(dx, dy, rx + 2, ry + 2) {
                map.set_terrain(at, Terrain::Hardpan);
            }
        }
    }
    for _ in 0..rng.between(1, 2) {
        pool(map, (6, 14), rng);
    }
    for _ in 0..rng.between(60, 100) {
        let at = random_cell(map, rng);
        if map.terrain(at) == Terrain::Sand || map.terrain(at) == Terrain::Dune {
            map.set_terrain(at, Terrain::Cactus);
        }
    }
}

/// Whether `(dx, dy)` lies within the ellipse of half-axes `rx` and `ry`, in integers.
fn within(dx: i32, dy: i32, rx: i32, ry: i32) -> bool {
    (dx * ry).pow(2) + (dy * rx).pow(2) <= (rx * ry).pow(2)
}

fn fill(map: &mut Map, terrain: Terrain) {
    for at in map.cells().collect::<Vec<_>>() {
        map.set_terrain(at, terrain);
    }
}
