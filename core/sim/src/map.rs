//! The grid: terrain, and which actor stands where.

use serde::{Deserialize, Serialize};

use crate::consistency::Inconsistency;
use crate::geometry::Pos;
use crate::ids::ActorId;

#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
pub enum Terrain {
    Sand,
    /// Soft: slow to cross.
    Dune,
    /// Hard: quick to cross.
    Hardpan,
    /// A wall. Outside the map counts as cactus.
    Cactus,
    /// Impassable.
    Water,
    DoorClosed,
    DoorOpen,
    Stairs,
    /// The goal, on the deepest level.
    Oasis,
    /// A door that blocks like a closed one until the camel opens it with a key (rules
    /// version 9 on: `places`). Last, so that the older terrains keep their encoding.
    DoorLocked,
}

impl Terrain {
    /// Can a creature stand here?
    pub fn is_passable(self) -> bool {
        !matches!(
            self,
            Terrain::Cactus | Terrain::Water | Terrain::DoorClosed | Terrain::DoorLocked
        )
    }

    /// Does it stop a thrown stone or a charging elephant's line of sight?
    pub fn blocks(self) -> bool {
        matches!(
            self,
            Terrain::Cactus | Terrain::DoorClosed | Terrain::DoorLocked
        )
    }

    /// The step cost as a fraction of an ordinary action.
    pub fn step_factor(self) -> (u32, u32) {
        match self {
            Terrain::Dune => (3, 2),
            Terrain::Hardpan => (3, 4),
            _ => (1, 1),
        }
    }

    pub fn name(self) -> &'static str {
        match self {
            Terrain::Sand => "sand",
            Terrain::Dune => "dunes",
            Terrain::Hardpan => "hardpan",
            Terrain::Cactus => "a cactus",
            Terrain::Water => "water",
            Terrain::DoorClosed => "a closed door",
            Terrain::DoorOpen => "an open door",
            Terrain::Stairs => "stairs down",
            Terrain::Oasis => "the oasis",
            Terrain::DoorLocked => "a locked door",
        }
    }

    /// The ASCII glyph used by scenario files and the text view.
    pub fn glyph(self) -> char {
        match self {
            Terrain::Sand => '.',
            Terrain::Dune => '~',
            Terrain::Hardpan => '_',
            Terrain::Cactus => '#',
            Terrain::Water => '=',
            Terrain::DoorClosed => '+',
            Terrain::DoorOpen => '\'',
            Terrain::Stairs => '>',
            Terrain::Oasis => '*',
            Terrain::DoorLocked => '&',
        }
    }

    pub fn from_glyph(c: char) -> Option<Terrain> {
        ALL_TERRAIN.into_iter().find(|t| t.glyph() == c)
    }
}

const ALL_TERRAIN: [Terrain; 10] = [
    Terrain::Sand,
    Terrain::Dune,
    Terrain::Hardpan,
    Terrain::Cactus,
    Terrain::Water,
    Terrain::DoorClosed,
    Terrain::DoorOpen,
    Terrain::Stairs,
    Terrain::Oasis,
    Terrain::DoorLocked,
];

/// Terrain plus an occupancy grid, so that "who stands there" is one lookup.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Map {
    width: u16,
    height: u16,
    terrain: Vec<Terrain>,
    occupant: Vec<Option<ActorId>>,
}

impl Map {
    pub const DEFAULT_WIDTH: u16 = 64;
    pub const DEFAULT_HEIGHT: u16 = 40;
    /// The longest side a map may have: a scenario's at most (a level's is 64 by 40).
    /// Positions are `i16`, and a search of the map allocates a word per cell.
    pub const MOST_SIDE: u16 = 1000;

    pub fn filled(width: u16, height: u16, terrain: Terrain) -> Self {
        debug_assert!(width <= Map::MOST_SIDE && height <= Map::MOST_SIDE);
        let cells = usize::from(width) * usize::from(height);
        Map {
            width,
            height,
            terrain: vec![terrain; cells],
            occupant: vec![None; cells],
        }
    }

    pub fn width(&self) -> u16 {
        self.width
    }

    pub fn height(&self) -> u16 {
        self.height
    }

    /// Where `pos` is in the rows of cells, if it is on the map: the order `CellSet`
    /// keeps its bits in too.
    #[inline]
    pub(crate) fn index(&self, pos: Pos) -> Option<usize> {
        // A negative coordinate read as a `u16` is 32,768 or more: beyond any side, which
        // is at most `MOST_SIDE`. One test a side, on every lookup of every turn.
        let inside = (pos.x as u16) < self.width && (pos.y as u16) < self.height;
        inside.then(|| pos.y as usize * usize::from(self.width) + pos.x as usize)
    }

    pub fn contains(&self, pos: Pos) -> bool {
        self.index(pos).is_some()
    }

    /// Outside the map counts as cactus.
    #[inline]
    pub fn terrain(&self, pos: Pos) -> Terrain {
        self.index(pos).map_or(Terrain::Cactus, |i| self.terrain[i])
    }

    /// The terrain of the cell at `index`.
    #[inline]
    pub(crate) fn terrain_at(&self, index: usize) -> Terrain {
        self.terrain[index]
    }

    #[inline]
    pub fn occupant(&self, pos: Pos) -> Option<ActorId> {
        self.index(pos).and_then(|i| self.occupant[i])
    }

    /// Passable and nobody there.
    #[inline]
    pub fn is_free(&self, pos: Pos) -> bool {
        self.terrain(pos).is_passable() && self.occupant(pos).is_none()
    }

    /// The free cell nearest `to` by king moves (of equally near ones, the first in
    /// rows from the top), other than `to` itself.
    pub fn nearest_free(&self, to: Pos) -> Option<Pos> {
        let free = self.cells().filter(|&p| p != to && self.is_free(p));
        free.min_by_key(|p| p.distance(to))
    }

    pub(crate) fn set_terrain(&mut self, pos: Pos, terrain: Terrain) {
        if let Some(i) = self.index(pos) {
            self.terrain[i] = terrain;
        }
    }

    #[inline]
    pub(crate) fn set_occupant(&mut self, pos: Pos, who: Option<ActorId>) {
        if let Some(i) = self.index(pos) {
            self.occupant[i] = who;
        }
    }

    /// Whether a decoded map is one the game can use: at least a cell, no side longer
    /// than `MOST_SIDE`, and exactly a terrain and an occupant per cell (`index` finds a
    /// cell by the size alone, then reads both).
    pub(crate) fn check(&self) -> Result<(), Inconsistency> {
        let sides = 1..=Map::MOST_SIDE;
        let cells = usize::from(self.width) * usize::from(self.height);
        let sound = sides.contains(&self.width)
            && sides.contains(&self.height)
            && self.terrain.len() == cells
            && self.occupant.len() == cells;
        sound.then_some(()).ok_or(Inconsistency::MapSize)
    }

    /// Every occupied cell and who stands there, row by row.
    pub(crate) fn occupants(&self) -> impl Iterator<Item = (Pos, ActorId)> + '_ {
        self.cells()
            .zip(&self.occupant)
            .filter_map(|(pos, who)| Some((pos, (*who)?)))
    }

    /// Every cell, row by row.
    pub fn cells(&self) -> impl Iterator<Item = Pos> + '_ {
        let w = self.width as i16;
        (0..self.height as i16).flat_map(move |y| (0..w).map(move |x| Pos::new(x, y)))
    }

    /// A map for tests, drawn as rows of `#` (cactus), `~` (dunes) and anything else
    /// (sand).
    #[cfg(test)]
    pub(crate) fn from_rows(rows: &[&str]) -> Map {
        let mut map = Map::filled(rows[0].len() as u16, rows.len() as u16, Terrain::Sand);
        for (y, row) in rows.iter().enumerate() {
            for (x, c) in row.chars().enumerate() {
                let at = Pos::new(x as i16, y as i16);
                match c {
                    '#' => map.set_terrain(at, Terrain::Cactus),
                    '~' => map.set_terrain(at, Terrain::Dune),
                    _ => {}
                }
            }
        }
        map
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn outside_the_map_blocks_like_cactus() {
        let map = Map::filled(3, 2, Terrain::Sand);
        for outside in [
            Pos::new(-1, 0),
            Pos::new(3, 0),
            Pos::new(0, 2),
            Pos::new(0, -1),
            Pos::new(i16::MIN, 0),
            Pos::new(1, i16::MIN),
        ] {
            assert_eq!(map.terrain(outside), Terrain::Cactus);
            assert!(!map.is_free(outside));
        }
        assert!(map.is_free(Pos::new(2, 1)));
    }

    #[test]
    fn a_map_without_cells_or_with_cells_its_size_does_not_hold_is_refused() {
        assert_eq!(Map::filled(64, 40, Terrain::Sand).check(), Ok(()));
        assert_eq!(Map::filled(1, 1, Terrain::Sand).check(), Ok(()));
        let side = Map::MOST_SIDE;
        assert_eq!(Map::filled(side, 2, Terrain::Sand).check(), Ok(()));
        for (width, height) in [(0, 40), (64, 0), (side + 1, 1), (1, side + 1)] {
            let map = Map::filled(width, height, Terrain::Sand);
            assert_eq!(
                map.check(),
                Err(Inconsistency::MapSize),
                "{width} x {height}"
            );
        }
        let mut short = Map::filled(3, 2, Terrain::Sand);
        short.terrain.pop();
        assert_eq!(short.check(), Err(Inconsistency::MapSize));
        let mut long = Map::filled(3, 2, Terrain::Sand);
        long.occupant.push(None);
        assert_eq!(long.check(), Err(Inconsistency::MapSize));
    }

    #[test]
    fn occupants_are_listed_with_their_cells() {
        let mut map = Map::filled(3, 2, Terrain::Sand);
        map.set_occupant(Pos::new(2, 0), Some(ActorId(4)));
        map.set_occupant(Pos::new(0, 1), Some(ActorId(1)));
        let found: Vec<_> = map.occupants().collect();
        assert_eq!(
            found,
            [(Pos::new(2, 0), ActorId(4)), (Pos::new(0, 1), ActorId(1))]
        );
    }

    #[test]
    fn glyphs_round_trip() {
        for t in ALL_TERRAIN {
            assert_eq!(Terrain::from_glyph(t.glyph()), Some(t));
        }
    }
}
