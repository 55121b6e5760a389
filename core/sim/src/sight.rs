//! Sight: what the camel sees, as symmetric shadowcasting (after Albert Ford's
//! "Symmetric Shadowcasting") sees it, worked out in integers from a table of the disc's
//! slopes; and a set of cells to keep it in.
//!
//! Cacti, closed doors and the edge of the map block sight; water, dunes and creatures do
//! not. The field is symmetric: if the camel sees a cell, a creature standing there sees
//! the camel, which is how hunters find it. Sight reaches `SIGHT_RADIUS` cells (a round
//! disc: `dx² + dy² <= r² + r`), so that the desert has something left to explore.

use std::sync::OnceLock;

use serde::{Deserialize, Serialize};

use crate::geometry::Pos;
use crate::map::Map;

/// How far the camel sees, in cells.
pub const SIGHT_RADIUS: i16 = 8;

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

/// Marks in `seen` every cell visible from `origin` within `SIGHT_RADIUS`, the origin too.
///
/// Symmetric shadowcasting scans each quadrant row by row, narrowing the slopes light
/// still passes between as it meets blockers. What it sees comes to this: a row's light
/// is every slope from the origin that no blocker within the disc in a nearer row shades,
/// where a blocker shades the open span of slopes its own cell covers. A floor is seen if
/// light reaches its centre from either side; a blocker if light falls on any part of it.
/// Those slopes are cut into the few pieces between the edges and centres of the disc's
/// cells (`Shape`), so a row's shade is a set of bits, and a cell's test one mask.
pub fn field_of_view(map: &Map, origin: Pos, seen: &mut CellSet) {
    seen.insert(origin);
    let shape = Shape::of_sight();
    for quadrant in 0..QUADRANTS.len() {
        let mut shade = Pieces::default();
        for row in shape.rows() {
            let mut cast = Pieces::default();
            for cell in row {
                let (dx, dy) = cell.offsets[quadrant];
                // Beyond the map's edge blocks like cactus, and is not kept.
                let index = map.index(Pos::new(origin.x + dx, origin.y + dy));
                let blocks = index.is_none_or(|i| map.terrain_at(i).blocks());
                let lit = if blocks {
                    cast.add(&cell.span);
                    !shade.covers(&cell.span)
                } else {
                    !shade.covers(&cell.beside_centre)
                };
                if let Some(i) = index.filter(|_| lit) {
                    seen.insert_at(i);
                }
            }
            shade.add(&cast);
            if shade == shape.all {
                break;
            }
        }
    }
}

/// The four quadrants: how a (depth, column) pair in the quadrant maps to a map offset.
const QUADRANTS: [(i16, i16, i16, i16); 4] = [
    // (dx per col, dx per depth, dy per col, dy per depth)
    (1, 0, 0, -1), // north
    (0, 1, 1, 0),  // east
    (1, 0, 0, 1),  // south
    (0, -1, 1, 0), // west
];

/// Words enough for a bit per piece of a quadrant's slopes: 88 pieces at radius 8.
const PIECE_WORDS: usize = 2;

/// A set of the pieces a quadrant's slopes, from -1 to 1, are cut into.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
struct Pieces([u64; PIECE_WORDS]);

impl Pieces {
    fn insert(&mut self, piece: usize) {
        self.0[piece / 64] |= 1 << (piece % 64);
    }

    fn add(&mut self, other: &Pieces) {
        for (word, more) in self.0.iter_mut().zip(other.0) {
            *word |= more;
        }
    }

    /// Whether every piece of `other` is in this set.
    fn covers(&self, other: &Pieces) -> bool {
        self.0
            .iter()
            .zip(other.0)
            .all(|(word, part)| part & !word == 0)
    }
}

/// One cell of a quadrant within the disc, and the pieces of slope it answers to.
#[derive(Debug)]
struct CellShape {
    /// Where the cell is from the origin in each quadrant, as `QUADRANTS` turns it.
    offsets: [(i16, i16); 4],
    /// The pieces inside the span of slopes the cell covers: lit if any is, and shaded
    /// behind it if it blocks.
    span: Pieces,
    /// The pieces either side of the slope of its centre (one, at the quadrant's edges).
    beside_centre: Pieces,
}

/// Every quadrant's cells within the disc, row by row, with the pieces of slope each
/// answers to. The same for every look: worked out once.
#[derive(Debug)]
struct Shape {
    cells: Vec<CellShape>,
    /// Where each row's cells start in `cells`, nearest row first, and where the last ends.
    row_starts: Vec<usize>,
    /// Every piece.
    all: Pieces,
}

impl Shape {
    fn of_sight() -> &'static Shape {
        static SHAPE: OnceLock<Shape> = OnceLock::new();
        SHAPE.get_or_init(|| Shape::new(i32::from(SIGHT_RADIUS)))
    }

    fn new(radius: i32) -> Shape {
        // Slopes in whole steps of 1 / unit: every edge (2col ± 1) / 2depth and centre
        // col / depth of a row within the radius is one.
        let unit = (1..=radius).fold(2, |unit, depth| lcm(unit, 2 * depth));
        let mut cuts: Vec<i32> = (1..=radius)
            .flat_map(|depth| (-2 * depth..=2 * depth).map(move |k| k * (unit / (2 * depth))))
            .collect();
        cuts.sort_unstable();
        cuts.dedup();
        // Piece i lies between cuts i and i + 1.
        let pieces = cuts.len() - 1;
        assert!(pieces <= PIECE_WORDS * 64, "{pieces} pieces of slope");
        let cut = |slope: i32| {
            let slope = slope.clamp(-unit, unit);
            cuts.binary_search(&slope)
                .expect("every edge and centre is a cut")
        };
        let mut all = Pieces::default();
        (0..pieces).for_each(|piece| all.insert(piece));
        let (mut cells, mut row_starts) = (vec![], vec![]);
        for depth in 1..=radius {
            row_starts.push(cells.len());
            let step = unit / (2 * depth);
            // The columns whose centres lie within the quadrant's slopes and the disc.
            let reach = isqrt(radius * radius + radius - depth * depth).min(depth);
            for col in -reach..=reach {
                let mut span = Pieces::default();
                (cut((2 * col - 1) * step)..cut((2 * col + 1) * step))
                    .for_each(|piece| span.insert(piece));
                let centre = cut(2 * col * step);
                let mut beside_centre = Pieces::default();
                beside_centre.insert(centre.saturating_sub(1));
                beside_centre.insert(centre.min(pieces - 1));
                let (depth, col) = (depth as i16, col as i16);
                let offsets = QUADRANTS
                    .map(|(xc, xd, yc, yd)| (col * xc + depth * xd, col * yc + depth * yd));
                cells.push(CellShape {
                    offsets,
                    span,
                    beside_centre,
                });
            }
        }
        row_starts.push(cells.len());
        Shape {
            cells,
            row_starts,
            all,
        }
    }

    /// The cells of each row, nearest first.
    fn rows(&self) -> impl Iterator<Item = &[CellShape]> {
        self.row_starts
            .windows(2)
            .map(|ends| &self.cells[ends[0]..ends[1]])
    }
}

fn lcm(a: i32, b: i32) -> i32 {
    let gcd = |mut a: i32, mut b: i32| {
        while b != 0 {
            (a, b) = (b, a % b);
        }
        a
    };
    a / gcd(a, b) * b
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::map::Terrain;
    use crate::rng::Expander;

    fn seen_from(map: &Map, at: Pos) -> CellSet {
        let mut seen = CellSet::empty(map);
        field_of_view(map, at, &mut seen);
        seen
    }

    /// Symmetric shadowcasting as Albert Ford writes it, row by row and recursive, in
    /// integers, for any radius: what `field_of_view` must give.
    mod shadowcasting {
        use super::*;

        pub fn seen_from(map: &Map, origin: Pos, radius: i32) -> CellSet {
            let mut seen = CellSet::empty(map);
            seen.insert(origin);
            for quadrant in QUADRANTS {
                let mut scan = Scan {
                    map,
                    origin,
                    radius,
                    quadrant,
                    seen: &mut seen,
                };
                scan.row(1, Slope::new(-1, 1), Slope::new(1, 1));
            }
            seen
        }

        /// A slope `num / den` from the origin, in the quadrant's own frame (`den > 0`).
        #[derive(Clone, Copy)]
        struct Slope {
            num: i32,
            den: i32,
        }

        impl Slope {
            fn new(num: i32, den: i32) -> Slope {
                Slope { num, den }
            }

            /// The near edge of the cell at `col` in row `depth`: (2col - 1) / 2depth.
            fn of(depth: i32, col: i32) -> Slope {
                Slope::new(2 * col - 1, 2 * depth)
            }
        }

        struct Scan<'a> {
            map: &'a Map,
            origin: Pos,
            radius: i32,
            quadrant: (i16, i16, i16, i16),
            seen: &'a mut CellSet,
        }

        impl Scan<'_> {
            fn pos(&self, depth: i32, col: i32) -> Pos {
                let (xc, xd, yc, yd) = self.quadrant;
                let [xc, xd, yc, yd] = [xc, xd, yc, yd].map(i32::from);
                Pos::new(
                    (i32::from(self.origin.x) + col * xc + depth * xd) as i16,
                    (i32::from(self.origin.y) + col * yc + depth * yd) as i16,
                )
            }

            /// Scans row `depth` between the slopes `start` and `end`, and the rows behind
            /// it that light gets through to: the columns whose centres lie within the
            /// slopes (ties rounded outward at the start, inward at the end), and within
            /// the disc.
            fn row(&mut self, depth: i32, mut start: Slope, end: Slope) {
                if depth > self.radius {
                    return;
                }
                let r = self.radius;
                let reach = isqrt(r * r + r - depth * depth);
                let first = (2 * depth * start.num + start.den)
                    .div_euclid(2 * start.den)
                    .max(-reach);
                let last = -(-(2 * depth * end.num - end.den)).div_euclid(2 * end.den);
                let mut previous_blocks = None;
                for col in first..=last.min(reach) {
                    let at = self.pos(depth, col);
                    let blocks = self.map.terrain(at).blocks();
                    let symmetric =
                        col * start.den >= depth * start.num && col * end.den <= depth * end.num;
                    if self.map.contains(at) && (blocks || symmetric) {
                        self.seen.insert(at);
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
    }

    /// A map of `width` by `height` with cacti, closed doors and dunes strewn over it.
    fn strewn(rng: &mut Expander, width: u16, height: u16) -> Map {
        let mut map = Map::filled(width, height, Terrain::Sand);
        let cells = u32::from(width) * u32::from(height);
        for _ in 0..rng.between(0, cells) {
            let at = Pos::new(
                rng.below(width.into()) as i16,
                rng.below(height.into()) as i16,
            );
            let terrain = [Terrain::Cactus, Terrain::DoorClosed, Terrain::Dune];
            map.set_terrain(at, terrain[rng.below(3) as usize]);
        }
        map
    }

    /// The pieces of slope give what shadowcasting gives, from every cell of maps strewn
    /// thinly to thickly, the map's edges within sight or not.
    #[test]
    fn sight_is_symmetric_shadowcasting() {
        let mut rng = Expander::new(11);
        for _ in 0..200 {
            let (width, height) = (rng.between(1, 40) as u16, rng.between(1, 40) as u16);
            let map = strewn(&mut rng, width, height);
            for at in map.cells() {
                let expected = shadowcasting::seen_from(&map, at, SIGHT_RADIUS.into());
                assert_eq!(seen_from(&map, at), expected, "from {at:?} on\n{map:?}");
            }
        }
    }

    #[test]
    fn open_ground_is_seen_in_a_disc() {
        let map = Map::filled(21, 21, Terrain::Sand);
        let seen = seen_from(&map, Pos::new(10, 10));
        for pos in map.cells() {
            let (dx, dy) = (i32::from(pos.x) - 10, i32::from(pos.y) - 10);
            assert_eq!(seen.contains(pos), dx * dx + dy * dy <= 72, "{pos:?}");
        }
    }

    #[test]
    fn a_cactus_is_seen_and_hides_what_is_behind_it() {
        let map = Map::from_rows(&[".......", "...#...", ".......", "...@..."]);
        let seen = seen_from(&map, Pos::new(3, 3));
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
            let from_a = seen_from(&map, a);
            for &b in &open {
                let from_b = seen_from(&map, b);
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
        let mut rng = Expander::new(5);
        for _ in 0..40 {
            let mut map = Map::filled(41, 41, Terrain::Sand);
            for _ in 0..rng.between(50, 400) {
                let at = Pos::new(rng.below(41) as i16, rng.below(41) as i16);
                map.set_terrain(at, Terrain::Cactus);
            }
            let origin = Pos::new(20, 20);
            map.set_terrain(origin, Terrain::Sand);
            let near = seen_from(&map, origin);
            let far = shadowcasting::seen_from(&map, origin, 100);
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
            let seen = seen_from(&map, at);
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
        assert!(!seen_from(&map, Pos::new(2, 1)).contains(Pos::new(2, 3)));
        map.set_terrain(Pos::new(2, 2), Terrain::DoorOpen);
        assert!(seen_from(&map, Pos::new(2, 1)).contains(Pos::new(2, 3)));
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
