//! Finding the way: the cheapest walk from a cell to the nearest of some goal cells, with
//! integer step costs, for hunters chasing the camel and for the client's travel and
//! explore.
//!
//! Deterministic by construction: cells are settled cheapest first, and among cells of
//! equal cost in the order they were first reached; neighbours are tried in a fixed
//! order, the four straight steps first (north, east, south, west), then the diagonals,
//! so that of two equally cheap walks the straighter-looking one is taken. The walk chosen
//! is always the same, on every machine.

use std::cmp::Reverse;
use std::collections::BinaryHeap;

use crate::geometry::{Direction, Pos};
use crate::map::{Map, Terrain};

/// The order neighbours are tried in: straight steps, then diagonals, each clockwise
/// from north.
const NEIGHBOURS: [Direction; 8] = [
    Direction::N,
    Direction::E,
    Direction::S,
    Direction::W,
    Direction::NE,
    Direction::SE,
    Direction::SW,
    Direction::NW,
];

/// What a step onto `terrain` costs a walker, in quarters of an ordinary step, as the
/// energy system prices it (dunes half as dear again, hardpan three quarters).
pub fn step_cost(terrain: Terrain) -> u32 {
    let (num, den) = terrain.step_factor();
    4 * num / den
}

/// The first step of a cheapest walk from `from` to the nearest cell `is_goal` accepts,
/// and that cell, entering only cells `may_enter` allows (a goal may always be entered),
/// and giving up beyond a total cost of `limit`. `None` if no goal is within reach (or
/// `from` is one).
pub fn first_step(
    map: &Map,
    from: Pos,
    limit: u32,
    is_goal: impl Fn(Pos) -> bool,
    may_enter: impl Fn(Pos) -> bool,
) -> Option<(Direction, Pos)> {
    search(map, from, limit, is_goal, may_enter, |_| 0)
}

/// `first_step` to the one cell `to`, searching toward it first (A*: the cheapest a walk
/// from a cell can be is a hardpan step per king move), so that a hunter's search
/// settles few cells beyond its way.
pub fn first_step_to(
    map: &Map,
    from: Pos,
    to: Pos,
    limit: u32,
    may_enter: impl Fn(Pos) -> bool,
) -> Option<Direction> {
    let cheapest = step_cost(Terrain::Hardpan);
    let estimate = |p: Pos| cheapest * u32::from(p.distance(to));
    search(map, from, limit, |p| p == to, may_enter, estimate).map(|(dir, _)| dir)
}

/// The search both walks share: cells are settled by their cost so far plus `estimate`
/// (never more than what is left to pay, so the first goal settled is a cheapest one),
/// ties in the order cells were reached.
fn search(
    map: &Map,
    from: Pos,
    limit: u32,
    is_goal: impl Fn(Pos) -> bool,
    may_enter: impl Fn(Pos) -> bool,
    estimate: impl Fn(Pos) -> u32,
) -> Option<(Direction, Pos)> {
    let width = usize::from(map.width());
    let index = |p: Pos| p.y as usize * width + p.x as usize;
    let cells = width * usize::from(map.height());
    if !map.contains(from) {
        return None;
    }
    let mut cost = vec![u32::MAX; cells];
    let mut first: Vec<Option<Direction>> = vec![None; cells];
    // (cost, order of reaching, cell): the heap's least is the next to settle.
    let mut frontier = BinaryHeap::new();
    let mut reached = 0u32;
    cost[index(from)] = 0;
    frontier.push(Reverse((estimate(from), reached, from.x, from.y)));
    while let Some(Reverse((ranked, _, x, y))) = frontier.pop() {
        let at = Pos::new(x, y);
        let so_far = cost[index(at)];
        if ranked > so_far + estimate(at) {
            continue;
        }
        if at != from && is_goal(at) {
            return first[index(at)].map(|dir| (dir, at));
        }
        for dir in NEIGHBOURS {
            let next = at.step(dir);
            if !map.contains(next) || !(is_goal(next) || may_enter(next)) {
                continue;
            }
            let total = so_far + step_cost(map.terrain(next));
            if total > limit || total >= cost[index(next)] {
                continue;
            }
            cost[index(next)] = total;
            first[index(next)] = first[index(at)].or(Some(dir));
            reached += 1;
            frontier.push(Reverse((total + estimate(next), reached, next.x, next.y)));
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    fn walk(map: &Map, from: Pos, to: Pos) -> Option<Direction> {
        let open = |p: Pos| map.terrain(p).is_passable();
        let towards = first_step_to(map, from, to, 1000, open);
        // Searching toward the goal finds a walk as cheap as searching all around.
        let around = first_step(map, from, 1000, |p| p == to, open).map(|(dir, _)| dir);
        assert_eq!(towards.is_some(), around.is_some());
        towards
    }

    #[test]
    fn the_way_goes_round_a_wall_of_cacti() {
        let map = Map::from_rows(&[
            ".....", //
            "..#..", //
            "..#..", //
            "..#..", //
            ".....",
        ]);
        // Straight east is blocked: round the north or the south end, north first.
        let from = Pos::new(0, 2);
        let to = Pos::new(4, 2);
        assert_eq!(walk(&map, from, to), Some(Direction::NE));
        let mut at = from;
        for _ in 0..8 {
            if at == to {
                break;
            }
            at = at.step(walk(&map, at, to).unwrap());
            assert!(map.terrain(at).is_passable());
        }
        assert_eq!(at, to);
    }

    #[test]
    fn dunes_are_walked_round_when_that_is_cheaper() {
        let map = Map::from_rows(&[
            "......", //
            ".~~~~.", //
            ".~~~~.", //
            "......",
        ]);
        // Through the dunes: four steps at 6 and one at 4; round them: five at 4.
        let dir = walk(&map, Pos::new(0, 1), Pos::new(5, 1)).unwrap();
        assert_eq!(dir, Direction::NE);
    }

    #[test]
    fn no_way_and_out_of_reach_are_none() {
        let map = Map::from_rows(&["..#..", "..#..", "..#.."]);
        assert_eq!(walk(&map, Pos::new(0, 0), Pos::new(4, 0)), None);
        let open = Map::filled(30, 1, Terrain::Sand);
        let far = first_step(&open, Pos::new(0, 0), 20, |p| p.x == 29, |_| true);
        assert_eq!(far, None);
        let near = first_step(&open, Pos::new(0, 0), 20, |p| p.x == 5, |_| true);
        assert_eq!(near, Some((Direction::E, Pos::new(5, 0))));
    }

    #[test]
    fn the_nearest_goal_is_the_one_walked_to() {
        let map = Map::filled(9, 9, Terrain::Sand);
        let goals = [Pos::new(8, 4), Pos::new(2, 4)];
        let found = first_step(&map, Pos::new(4, 4), 100, |p| goals.contains(&p), |_| true);
        assert_eq!(found, Some((Direction::W, Pos::new(2, 4))));
    }
}
