//! The order games are ranked in, stated once for both sides: the client's own
//! high-score table sorts by `Ranking`, and the server's boards sort in PostgreSQL by
//! `BEST_FIRST`, the same order written in SQL. The server's tests sort sample rows both
//! ways and compare.

use std::cmp::Ordering;

/// What places a verified game that ended: the most points first, then the fewest turns
/// (the faster of two equal games). Sorted in ascending order, the best comes first.
/// Games equal in both are placed by which came first, in each list's own terms: a
/// board's by when a game was sent or a run started, a player's own table by game number.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Ranking {
    pub points: u64,
    pub turns: u64,
}

impl Ord for Ranking {
    fn cmp(&self, other: &Ranking) -> Ordering {
        other
            .points
            .cmp(&self.points)
            .then(self.turns.cmp(&other.turns))
    }
}

impl PartialOrd for Ranking {
    fn partial_cmp(&self, other: &Ranking) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

/// `Ranking`'s order as an `ORDER BY` over a verdicts row named `v`, before the list's
/// own tie-break. It is the order of the `verdicts_ranked` index, so a board reads its
/// rows from it; the score's columns are null only in rows that are not ranked.
pub const BEST_FIRST: &str = "v.points DESC, v.turns";

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn most_points_first_then_fewest_turns() {
        let ranking = |points, turns| Ranking { points, turns };
        let mut games = vec![
            ranking(300, 90),
            ranking(1200, 4000),
            ranking(300, 40),
            ranking(0, 1),
            ranking(1200, 3000),
        ];
        games.sort();
        assert_eq!(
            games,
            [
                ranking(1200, 3000),
                ranking(1200, 4000),
                ranking(300, 40),
                ranking(300, 90),
                ranking(0, 1),
            ]
        );
    }
}
