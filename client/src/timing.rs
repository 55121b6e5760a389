//! An actor's place in the energy system, as figures a player reads: what it has, what it
//! needs to act, what a step costs it where it stands, when it will be ready, how fast it
//! goes. The energy panel and the side bar both show these, so they cannot disagree.

use std::fmt;

use sandglass_sim::action::Action;
use sandglass_sim::energy::{Cost, Pace};
use sandglass_sim::ids::{ActorId, Tick};
use sandglass_sim::tape::TimeModel;
use sandglass_sim::State;

/// The figures for one actor.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Figures {
    /// The energy it holds now.
    pub energy: u16,
    /// What it needs before it may act at all.
    pub needed: u16,
    /// The most it may carry into the next tick.
    pub carried: u16,
    /// The most it can hold when it acts: the bar's full length.
    pub peak: u16,
    /// A step onto the ground it stands on, at its pace now.
    pub step: u16,
    /// When it can act next, if it takes no action before then.
    pub ready: Ready,
    /// How fast it goes now, haste and slowness counted (see `speed`).
    pub speed: String,
    /// The pace that makes `speed` differ from its own, if any.
    pub pace: Option<&'static str>,
}

/// When an actor can act next.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Ready {
    /// Its turn is now, or still to come in this tick.
    Now,
    /// Not before this turn.
    At(Tick),
    /// Not within any tick the panel looks ahead to.
    Never,
}

impl fmt::Display for Ready {
    fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result {
        match self {
            Ready::Now => f.write_str("now"),
            Ready::At(tick) => write!(f, "turn {}", tick.0),
            Ready::Never => f.write_str("-"),
        }
    }
}

impl Figures {
    /// The figures of `id`, if it is an actor of the game.
    pub fn of(state: &State, id: ActorId) -> Option<Figures> {
        let world = state.world();
        let time = world.time();
        let actor = world.actor(id)?;
        let stats = actor.stats();
        let pace = world.pace(id);
        Some(Figures {
            energy: world.energy(id).0,
            needed: time.ready_at(&stats),
            carried: time.max_energy(&stats),
            peak: time.peak(&stats),
            // A step onto ground like its own, as the fold prices it (boots and all).
            step: world.cost_of(id, &Action::Step { to: actor.pos() }),
            ready: ready(state, id),
            speed: speed(
                time,
                stats.speed,
                time.cost(&stats, Cost::Action, pace),
                pace,
            ),
            pace: match (pace.hasted, pace.slowed) {
                (true, false) => Some("hasted"),
                (false, true) => Some("slowed"),
                _ => None,
            },
        })
    }
}

/// Nethack: the speed an actor would need to act as often with no haste or slowness
/// (haste makes actions cost two thirds, so a hasted speed 12 goes as a speed 18).
/// Classic: the gain per tick against what an ordinary action costs now.
fn speed(time: TimeModel, own: u16, action: u16, pace: Pace) -> String {
    match time {
        TimeModel::Nethack => {
            let (num, den) = match (pace.hasted, pace.slowed) {
                (true, false) => (3, 2),
                (false, true) => (2, 3),
                _ => (1, 1),
            };
            (u32::from(own) * num / den).to_string()
        }
        TimeModel::Classic { gain, .. } => format!("{gain}/{action}"),
    }
}

fn ready(state: &State, id: ActorId) -> Ready {
    if acts_this_tick(state, id) {
        return Ready::Now;
    }
    match state.next_ready_tick(id) {
        Some(tick) => Ready::At(tick),
        None => Ready::Never,
    }
}

/// Ready, and its turn in this tick's order is now or still to come.
fn acts_this_tick(state: &State, id: ActorId) -> bool {
    let order = state.world().turn_order();
    let (Some(current), Some(mine)) = (
        state
            .current_actor()
            .and_then(|c| order.iter().position(|&a| a == c)),
        order.iter().position(|&a| a == id),
    ) else {
        return false;
    };
    mine >= current && state.world().is_ready(id)
}

#[cfg(test)]
mod tests {
    use super::*;
    use sandglass_sim::bot::Bot;
    use sandglass_sim::{LiveTape, Rules, Ruleset};

    #[test]
    fn a_fresh_camel_is_ready_now_with_a_step_at_its_own_pace() {
        for ruleset in Ruleset::NAMED {
            let game = LiveTape::new(Rules::newest(ruleset), 3);
            let id = game.state().world().player_id().unwrap();
            let figures = Figures::of(game.state(), id).unwrap();
            assert_eq!(figures.ready, Ready::Now, "{}", ruleset.name());
            assert!(figures.energy >= figures.needed);
            assert!(figures.needed <= figures.carried && figures.carried <= figures.peak);
            assert_eq!(figures.pace, None);
        }
    }

    #[test]
    fn haste_and_slowness_show_in_the_speed() {
        let hasted = Pace {
            hasted: true,
            ..Pace::default()
        };
        let slowed = Pace {
            slowed: true,
            ..Pace::default()
        };
        assert_eq!(speed(TimeModel::Nethack, 12, 12, Pace::default()), "12");
        assert_eq!(speed(TimeModel::Nethack, 12, 8, hasted), "18");
        assert_eq!(speed(TimeModel::Nethack, 12, 18, slowed), "8");
        let classic = Ruleset::CLASSIC.time;
        let TimeModel::Classic { gain, .. } = classic else {
            unreachable!("the classic ruleset uses the classic time model")
        };
        assert_eq!(speed(classic, 12, 67, hasted), format!("{gain}/67"));
    }

    #[test]
    fn every_actor_waiting_for_a_later_turn_is_ready_at_a_turn_to_come() {
        let mut game = LiveTape::new(Rules::newest(Ruleset::NETHACK), 5);
        Bot::new(5).play(&mut game, 60).unwrap();
        let state = game.state();
        for (id, _) in state.world().actors() {
            match Figures::of(state, id).unwrap().ready {
                Ready::At(tick) => assert!(tick > state.tick()),
                Ready::Now => assert!(state.world().is_ready(id)),
                Ready::Never => {}
            }
        }
    }
}
