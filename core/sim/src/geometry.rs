//! Positions and the eight compass directions.

use serde::{Deserialize, Serialize};

/// A cell on the map. Signed so that "one step outside the map" is representable.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
pub struct Pos {
    pub x: i16,
    pub y: i16,
}

impl Pos {
    pub const fn new(x: i16, y: i16) -> Self {
        Pos { x, y }
    }

    pub fn step(self, dir: Direction) -> Pos {
        let (dx, dy) = dir.delta();
        Pos::new(self.x.saturating_add(dx), self.y.saturating_add(dy))
    }

    /// The cell `east` and `south` of this one (west and north if negative).
    pub fn offset(self, east: i8, south: i8) -> Pos {
        Pos::new(
            self.x.saturating_add(i16::from(east)),
            self.y.saturating_add(i16::from(south)),
        )
    }

    /// Chebyshev distance: the number of king moves between two cells.
    pub fn distance(self, other: Pos) -> u16 {
        let dx = (i32::from(self.x) - i32::from(other.x)).unsigned_abs();
        let dy = (i32::from(self.y) - i32::from(other.y)).unsigned_abs();
        dx.max(dy) as u16
    }

    /// The direction of a straight line (row, column or diagonal) from `self` to `other`.
    pub fn direction_to(self, other: Pos) -> Option<Direction> {
        let dx = (other.x - self.x).signum();
        let dy = (other.y - self.y).signum();
        Direction::from_delta(dx, dy)
    }
}

/// The cells of a straight line from `from` to `to`, `from` left out and `to` last:
/// Bresenham's line, in integers, the same both in the fold and on the screen, so the
/// path a throw is shown is the path it flies.
pub fn line(from: Pos, to: Pos) -> Vec<Pos> {
    let (dx, dy) = (
        i32::from(to.x) - i32::from(from.x),
        i32::from(to.y) - i32::from(from.y),
    );
    let (sx, sy) = (dx.signum(), dy.signum());
    let (ax, ay) = (dx.abs(), dy.abs());
    let mut cells = Vec::with_capacity(ax.max(ay) as usize);
    let (mut x, mut y) = (i32::from(from.x), i32::from(from.y));
    let mut error = ax - ay;
    while (x, y) != (i32::from(to.x), i32::from(to.y)) {
        let twice = 2 * error;
        if twice > -ay {
            error -= ay;
            x += sx;
        }
        if twice < ax {
            error += ax;
            y += sy;
        }
        cells.push(Pos::new(x as i16, y as i16));
    }
    cells
}

/// The eight directions, in a fixed order that draws index into.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
pub enum Direction {
    N,
    NE,
    E,
    SE,
    S,
    SW,
    W,
    NW,
}

impl Direction {
    pub const ALL: [Direction; 8] = [
        Direction::N,
        Direction::NE,
        Direction::E,
        Direction::SE,
        Direction::S,
        Direction::SW,
        Direction::W,
        Direction::NW,
    ];

    /// The four directions an elephant can charge in.
    pub const ORTHOGONAL: [Direction; 4] = [Direction::N, Direction::E, Direction::S, Direction::W];

    pub const fn delta(self) -> (i16, i16) {
        match self {
            Direction::N => (0, -1),
            Direction::NE => (1, -1),
            Direction::E => (1, 0),
            Direction::SE => (1, 1),
            Direction::S => (0, 1),
            Direction::SW => (-1, 1),
            Direction::W => (-1, 0),
            Direction::NW => (-1, -1),
        }
    }

    pub fn from_delta(dx: i16, dy: i16) -> Option<Direction> {
        Direction::ALL.into_iter().find(|d| d.delta() == (dx, dy))
    }

    pub fn name(self) -> &'static str {
        match self {
            Direction::N => "north",
            Direction::NE => "north-east",
            Direction::E => "east",
            Direction::SE => "south-east",
            Direction::S => "south",
            Direction::SW => "south-west",
            Direction::W => "west",
            Direction::NW => "north-west",
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn directions_round_trip_through_their_delta() {
        for d in Direction::ALL {
            let (dx, dy) = d.delta();
            assert_eq!(Direction::from_delta(dx, dy), Some(d));
        }
        assert_eq!(Direction::from_delta(0, 0), None);
    }

    #[test]
    fn distance_is_chebyshev() {
        assert_eq!(Pos::new(0, 0).distance(Pos::new(3, -5)), 5);
        assert_eq!(
            Pos::new(2, 2).direction_to(Pos::new(2, 9)),
            Some(Direction::S)
        );
    }
}
