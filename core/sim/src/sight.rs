//! Sight: what the camel sees, by symmetric shadowcasting (after Albert Ford's
//! "Symmetric Shadowcasting", written here in integers), and a set of cells to keep it in.
//!
//! Cacti, closed doors and the edge of the map block sight; water, dunes and creatures do
//! not. The field is symmetric: if the camel sees a cell, a creature standing there sees
//! the camel, which is how hunters find it. Sight reaches `SIGHT_RADIUS` cells (a round
//! disc: `dx² + dy² <= r² + r`), so that the desert has something left to explore.

use serde::{Deserialize, Serialize};

use crate::geometry::Pos;
use crate::map::Map;

/// How far the camel sees, in cells.
pub const SIGHT_RADIUS: i32 = 8;

/// A set of cells of a map, as bits.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct CellSet {
    width: u16,
    bits: Vec<u64>,
}

impl CellSet {
    /// The empty set over a map's cells.
    pub fn empty(map: &Map) -> CellSet {
        let cells = usize::from(map.width()) * usize::from(map.height());
        CellSet {
            width: map.width(),
            bits: vec![0; cells.div_ceil(64)],
        }
    }

    fn index(&self, pos: Pos) -> Option<usize> {
        let inside = pos.x >= 0 && pos.y >= 0 && (pos.x as u16) < self.width;
        let i = inside.then(|| pos.y as usize * usize::from(self.width) + pos.x as usize)?;
        (i < self.bits.len() * 64).then_some(i)
    }

    pub fn contains(&self, pos: Pos) -> bool {
        self.index(pos)
            .is_some_and(|i| self.bits[i / 64] >> (i % 64) & 1 == 1)
    }

    pub fn insert(&mut self, pos: Pos) {
        if let Some(i) = self.index(pos) {
            self.bits[i / 64] |= 1 << (i % 64);
        }
    }

    /// Adds the cell at `index` of its map's rows (`Map::index`).
    fn insert_at(&mut self, index: usize) {
        if let Some(bits) = self.bits.get_mut(index / 64) {
            *bits |= 1 << (index % 64);
        }
    }

    pub fn clear(&mut self) {
        self.bits.fill(0);
    }

    /// Adds every cell of `other`.
    pub fn extend(&mut self, other: &CellSet) {
        for (bits, more) in self.bits.iter_mut().zip(&other.bits) {
            *bits |= more;
        }
    }

    /// Whether the set is one over `map`'s cells: its width, a bit for every cell and
    /// none beyond the last. Sets are sized once, to their map, and checked when decoded.
    pub(crate) fn covers(&self, map: &Map) -> bool {
        let cells = usize::from(map.width()) * usize::from(map.height());
        let beyond = match (self.bits.last(), cells % 64) {
            (Some(&last), used) if used > 0 => last >> used,
            _ => 0,
        };
        self.width == map.width() && self.bits.len() == cells.div_ceil(64) && beyond == 0
    }

    pub fn len(&self) -> usize {
        self.bits.iter().map(|b| b.count_ones() as usize).sum()
    }

    pub fn is_empty(&self) -> bool {
        self.bits.iter().all(|&b| b == 0)
    }
}

/// Marks in `seen` every cell visible from `origin` within `radius`, the origin too.
pub fn field_of_view(map: &Map, origin: Pos, radius: i32, seen: &mut CellSet) {
    seen.insert(origin);
    // How far each row reaches to either side within the disc, worked out once rather
    // than in every stretch of a row the scan comes back to.
    let reach: Vec<i32> = (0..=radius)
        .map(|depth| isqrt(radius * radius + radius - depth * depth))
        .collect();
    for quadrant in QUADRANTS {
        let mut scan = Scan {
            map,
            origin,
            reach: &reach,
            quadrant,
            seen: &mut *seen,
        };
        scan.row(1, Slope::new(-1, 1), Slope::new(1, 1));
    }
}

/// A slope `num / den` from the origin, in the quadrant's own frame (`den > 0`).
#[derive(Clone, Copy, Debug)]
struct Slope {
    num: i32,
    den: i32,
}

impl Slope {
    fn new(num: i32, den: i32) -> Slope {
        Slope { num, den }
    }

    /// The slope of the near edge of the cell at `col` in row `depth`: (2col - 1) / 2depth.
    fn of(depth: i32, col: i32) -> Slope {
        Slope::new(2 * col - 1, 2 * depth)
    }
}

/// The four quadrants: how a (depth, column) pair in the quadrant maps to a map offset.
const QUADRANTS: [(i32, i32, i32, i32); 4] = [
    // (dx per col, dx per depth, dy per col, dy per depth)
    (1, 0, 0, -1), // north
    (0, 1, 1, 0),  // east
    (1, 0, 0, 1),  // south
    (0, -1, 1, 0), // west
];

struct Scan<'a> {
    map: &'a Map,
    origin: Pos,
    /// Indexed by depth, to the radius: how many columns either side of the middle a
    /// row has within the disc.
    reach: &'a [i32],
    quadrant: (i32, i32, i32, i32),
    seen: &'a mut CellSet,
}

impl Scan<'_> {
    fn pos(&self, depth: i32, col: i32) -> Pos {
        let (xc, xd, yc, yd) = self.quadrant;
        Pos::new(
            (i32::from(self.origin.x) + col * xc + depth * xd) as i16,
            (i32::from(self.origin.y) + col * yc + depth * yd) as i16,
        )
    }

    /// Scans row `depth` between the slopes `start` and `end`, and the rows behind it
    /// that light gets through to.
    fn row(&mut self, depth: i32, mut start: Slope, end: Slope) {
        let Some(&reach) = self.reach.get(depth as usize) else {
            return;
        };
        // The columns whose centres lie within the slopes, rounding ties outward at the
        // start (round half up) and inward at the end (round half down); and within the
        // disc. A cell beyond the disc's edge in this row is beyond it in every row behind,
        // where the disc is narrower, so neither it nor its shadow is ever seen.
        let first = floor_div(2 * depth * start.num + start.den, 2 * start.den).max(-reach);
        let last = ceil_div(2 * depth * end.num - end.den, 2 * end.den).min(reach);
        let mut previous_blocks: Option<bool> = None;
        for col in first..=last {
            // Beyond the map's edge blocks like cactus, and is not kept.
            let cell = self.map.index(self.pos(depth, col));
            let blocks = cell.is_none_or(|i| self.map.terrain_at(i).blocks());
            // A blocker is seen wherever its centre lies; open ground only between the
            // slopes, which is what keeps the field symmetric.
            let symmetric =
                || col * start.den >= depth * start.num && col * end.den <= depth * end.num;
            if let Some(i) = cell.filter(|_| blocks || symmetric()) {
                self.seen.insert_at(i);
            }
            match previous_blocks {
                Some(true) if !blocks => start = Slope::of(depth, col),
                Some(false) if blocks => self.row(depth + 1, start, Slope::of(depth, col)),
                _ => {}
            }
            previous_blocks = Some(blocks);
        }
        if previous_blocks == Some(false) {
            self.row(depth + 1, start, end);
        }
    }
}

/// The largest whole number whose square is at most `n` (0 for negative `n`), counted
/// up to: sight's radius keeps `n` small.
fn isqrt(n: i32) -> i32 {
    let mut root = 0;
    while (root + 1) * (root + 1) <= n {
        root += 1;
    }
    root
}

fn floor_div(a: i32, b: i32) -> i32 {
    a.div_euclid(b)
}

fn ceil_div(a: i32, b: i32) -> i32 {
    -(-a).div_euclid(b)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::map::Terrain;

    fn seen_from(map: &Map, at: Pos, radius: i32) -> CellSet {
        let mut seen = CellSet::empty(map);
        field_of_view(map, at, radius, &mut seen);
        seen
    }

    #[test]
    fn open_ground_is_seen_in_a_disc() {
        let map = Map::filled(21, 21, Terrain::Sand);
        let seen = seen_from(&map, Pos::new(10, 10), 3);
        for pos in map.cells() {
            let (dx, dy) = (i32::from(pos.x) - 10, i32::from(pos.y) - 10);
            assert_eq!(seen.contains(pos), dx * dx + dy * dy <= 12, "{pos:?}");
        }
    }

    #[test]
    fn a_cactus_is_seen_and_hides_what_is_behind_it() {
        let map = Map::from_rows(&[".......", "...#...", ".......", "...@..."]);
        let seen = seen_from(&map, Pos::new(3, 3), 8);
        assert!(seen.contains(Pos::new(3, 1)), "the cactus itself");
        assert!(!seen.contains(Pos::new(3, 0)), "straight behind it");
        assert!(seen.contains(Pos::new(0, 0)), "around it");
    }

    /// If a sees b then b sees a, wherever the cacti are.
    #[test]
    fn sight_is_symmetric() {
        let rows = [
            "..#.......#..",
            "....#.........",
            ".#......##...",
            "......#......",
            "..#.......#..",
            ".....#.......",
            "#.......#...#",
            "...#.........",
        ];
        let map = Map::from_rows(&rows);
        let open: Vec<Pos> = map.cells().filter(|&p| !map.terrain(p).blocks()).collect();
        for &a in &open {
            let from_a = seen_from(&map, a, 8);
            for &b in &open {
                let from_b = seen_from(&map, b, 8);
                assert_eq!(
                    from_a.contains(b),
                    from_b.contains(a),
                    "{a:?} and {b:?} disagree"
                );
            }
        }
    }

    /// Stopping at the disc's edge changes nothing inside it: the field within radius 8
    /// is the unbounded field cut to the disc, on maps with cacti all over.
    #[test]
    fn the_disc_is_the_unbounded_field_cut_to_it() {
        let mut rng = crate::rng::Expander::new(5);
        for _ in 0..40 {
            let mut map = Map::filled(41, 41, Terrain::Sand);
            for _ in 0..rng.between(50, 400) {
                let at = Pos::new(rng.below(41) as i16, rng.below(41) as i16);
                map.set_terrain(at, Terrain::Cactus);
            }
            let origin = Pos::new(20, 20);
            map.set_terrain(origin, Terrain::Sand);
            let near = seen_from(&map, origin, 8);
            let far = seen_from(&map, origin, 100);
            for pos in map.cells() {
                let (dx, dy) = (i32::from(pos.x) - 20, i32::from(pos.y) - 20);
                let in_disc = dx * dx + dy * dy <= 72;
                assert_eq!(near.contains(pos), in_disc && far.contains(pos), "{pos:?}");
            }
        }
    }

    /// Cells beyond the map's edge block sight but are not kept, even where the set has
    /// bits to spare past the last cell: a 10 by 10 map's set has 28.
    #[test]
    fn nothing_beyond_the_edge_is_kept() {
        let map = Map::filled(10, 10, Terrain::Sand);
        for at in map.cells() {
            let seen = seen_from(&map, at, 8);
            assert!(seen.covers(&map), "from {at:?}");
        }
    }

    #[test]
    fn whole_square_roots_round_down() {
        for n in 0..2_000 {
            let r = isqrt(n);
            assert!(r * r <= n && (r + 1) * (r + 1) > n, "{n}");
        }
        assert_eq!(isqrt(-5), 0);
    }

    #[test]
    fn a_closed_door_blocks_sight_and_an_open_one_does_not() {
        let mut map = Map::from_rows(&["#####", "#...#", "#####", "....."]);
        map.set_terrain(Pos::new(2, 2), Terrain::DoorClosed);
        assert!(!seen_from(&map, Pos::new(2, 1), 8).contains(Pos::new(2, 3)));
        map.set_terrain(Pos::new(2, 2), Terrain::DoorOpen);
        assert!(seen_from(&map, Pos::new(2, 1), 8).contains(Pos::new(2, 3)));
    }

    #[test]
    fn a_cell_set_covers_its_own_map_and_no_other() {
        let map = Map::filled(70, 3, Terrain::Sand);
        let mut set = CellSet::empty(&map);
        set.insert(Pos::new(69, 2));
        assert!(set.covers(&map));
        assert!(
            !set.covers(&Map::filled(3, 70, Terrain::Sand)),
            "another width"
        );
        assert!(
            !set.covers(&Map::filled(70, 4, Terrain::Sand)),
            "more cells"
        );
        assert!(!CellSet::default().covers(&map));
        // 210 cells: 18 bits of the last word are beyond the map.
        let mut beyond = CellSet::empty(&map);
        *beyond.bits.last_mut().unwrap() |= 1 << 20;
        assert!(!beyond.covers(&map));
    }

    #[test]
    fn a_cell_set_holds_what_was_put_in() {
        let map = Map::filled(70, 3, Terrain::Sand);
        let mut set = CellSet::empty(&map);
        assert!(set.is_empty());
        for pos in [
            Pos::new(0, 0),
            Pos::new(63, 0),
            Pos::new(64, 0),
            Pos::new(69, 2),
        ] {
            set.insert(pos);
            assert!(set.contains(pos));
        }
        set.insert(Pos::new(-1, 0));
        set.insert(Pos::new(70, 0));
        assert_eq!(set.len(), 4);
        assert!(!set.contains(Pos::new(1, 0)));
        let mut other = CellSet::empty(&map);
        other.insert(Pos::new(5, 1));
        set.extend(&other);
        assert_eq!(set.len(), 5);
        set.clear();
        assert!(set.is_empty());
    }
}
