//! A game's score, from its state alone: how deep the camel got, whether it reached the
//! oasis and how fast, and what it killed on the way. The high-score table ranks stored
//! games by it, each folded from its own log to get it.

use crate::state::State;
use crate::world::Outcome;

/// Points per depth reached.
pub const PER_DEPTH: u64 = 100;
/// Points per creature killed.
pub const PER_KILL: u64 = 10;
/// Points for reaching the oasis, before the bonus for speed.
pub const OASIS: u64 = 1_000;
/// A won game's bonus is a point for every this many ticks it took fewer than `PAR`.
pub const TICKS_PER_POINT: u64 = 10;
pub const PAR: u64 = 20_000;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Score {
    pub depth: u8,
    pub won: bool,
    pub turns: u64,
    pub kills: u32,
    pub points: u64,
}

impl Score {
    pub fn of(state: &State) -> Score {
        let world = state.world();
        let (depth, turns, kills) = (world.depth(), world.tick().0, world.kills());
        let won = state.outcome() == Some(Outcome::Won);
        let mut points = PER_DEPTH * u64::from(depth) + PER_KILL * u64::from(kills);
        if won {
            points += OASIS + PAR.saturating_sub(turns) / TICKS_PER_POINT;
        }
        Score {
            depth,
            won,
            turns,
            kills,
            points,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::bot::Bot;
    use crate::{LiveTape, Rules, Ruleset};

    #[test]
    fn a_score_counts_depth_and_kills_and_a_win_counts_its_speed() {
        let mut game = LiveTape::new(Rules::newest(Ruleset::NETHACK), 3);
        Bot::new(3).play(&mut game, 300).unwrap();
        let score = Score::of(game.state());
        let world = game.state().world();
        assert_eq!(score.depth, world.depth());
        assert_eq!(score.kills, world.kills());
        let base = PER_DEPTH * u64::from(score.depth) + PER_KILL * u64::from(score.kills);
        if score.won {
            assert!(score.points > base + OASIS);
        } else {
            assert_eq!(score.points, base);
        }
    }
}
