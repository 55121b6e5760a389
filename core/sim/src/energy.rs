//! The time rules: how actors gain, keep and spend energy (docs/design.md, "Time").
//!
//! Everything the two rulesets disagree on is answered here and nowhere else.

use crate::desert::{COLD, HEAT};
use crate::gear::BARDING_WEIGHS;
use serde::{Deserialize, Serialize};

use crate::map::Terrain;
use crate::tape::TimeModel;

/// Energy an actor holds. Bounded by the rules below: never negative, and clipped where
/// the ruleset says (at max energy in `classic`, at the carry bracket in `nethack`).
#[derive(
    Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize,
)]
pub struct Energy(pub u16);

/// What an actor is made of, as far as time is concerned.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Stats {
    /// `nethack`: the energy gained per tick (12 is normal).
    pub speed: u16,
    /// `classic`: the most energy the actor can hold.
    pub max_energy: u16,
    /// `classic`: the cost of one ordinary action.
    pub move_cost: u16,
}

/// An actor's standing in the time system: its energy and turns, and what its stats make
/// of the rules. The tick's hot loops (everyone gains; the scan for the next actor ready
/// to act; an idle crowd waiting) read nothing else, so clocks are kept apart from the
/// actors, in turn order (see `clocks`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Clock {
    pub energy: Energy,
    /// Actions taken so far (an egg hatches on its 10th).
    pub turns: u32,
    /// The energy it needs before it may act; never reached once the actor is gone.
    ready: u16,
    /// The most it carries into the next tick (in `classic`, also where its gain stops).
    cap: u16,
    /// What it gains each tick; nothing once gone.
    gain: u16,
    /// What one ordinary action costs it when no condition changes its pace: what an
    /// idle actor pays for each wait.
    pub cost: u16,
    /// An idle actor with nothing counting down (no condition, no knock-out): every
    /// action it takes is a `Wait` at `cost`, so its turns are settled without deciding.
    pub idle: bool,
    /// Dashed this tick: dash is once per tick, and halves steps for the rest of it.
    pub dashing: bool,
}

impl Clock {
    #[inline]
    pub fn is_ready(&self) -> bool {
        self.energy.0 >= self.ready
    }

    /// How many ordinary actions its energy pays for now, one after another.
    #[inline]
    pub fn waits(&self) -> u16 {
        let energy = u32::from(self.energy.0);
        let (ready, cost) = (u32::from(self.ready), u32::from(self.cost.max(1)));
        // Nearly every actor pays for at most two: count those without a division, which
        // would cost more than the rest of an idle actor's turn.
        if energy < ready + 2 * cost {
            u16::from(energy >= ready) + u16::from(energy >= ready + cost)
        } else {
            // `ready` is never below `cost`, so energy never runs out partway.
            ((energy - ready) / cost + 1) as u16
        }
    }

    /// The clock of an actor that is gone: it keeps its energy, never gains and never acts.
    pub fn stopped(self) -> Clock {
        Clock {
            ready: u16::MAX,
            cap: u16::MAX,
            gain: 0,
            idle: false,
            ..self
        }
    }
}

/// The threshold and action cost of `nethack`, where normal speed is also 12.
pub const NETHACK_UNIT: u16 = 12;

/// The most ordinary actions an actor may pay for with the most energy it can hold
/// (`TimeModel::peak`). Every creature of the game pays for two to four; a clock that
/// could pay for thousands would make one tick as long as a game.
pub const MOST_ACTIONS: u32 = 64;

/// The cost of an action before the actor's condition is taken into account.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Cost {
    /// Ends nothing and costs nothing (dash).
    Free,
    /// One ordinary action.
    Action,
    /// Half an ordinary action (a javelin's throw).
    Quick,
    /// A step onto this terrain.
    Step(Terrain),
}

/// Temporary changes to how fast an actor is.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Pace {
    pub dashing: bool,
    pub hasted: bool,
    pub slowed: bool,
    /// The camel in the heat of the day: its steps cost a third more (`desert`).
    pub sweltering: bool,
    /// A cold-blooded creature in the cold of the night: everything costs half as much
    /// again (`desert`).
    pub numb: bool,
    /// The camel in bronze barding: everything it does costs a quarter more (`gear`).
    pub laden: bool,
}

impl Pace {
    /// The fraction `num / den` of an action's cost, scaled by this pace; `step` says
    /// whether the action is a step.
    fn scale(self, mut num: u32, mut den: u32, step: bool) -> (u32, u32) {
        if self.dashing && step {
            den *= 2;
        }
        if self.hasted {
            num *= 2;
            den *= 3;
        }
        if self.slowed {
            num *= 3;
            den *= 2;
        }
        if self.sweltering && step {
            num *= HEAT.0;
            den *= HEAT.1;
        }
        if self.numb {
            num *= COLD.0;
            den *= COLD.1;
        }
        if self.laden {
            num *= BARDING_WEIGHS.0;
            den *= BARDING_WEIGHS.1;
        }
        (num, den)
    }
}

impl TimeModel {
    #[inline]
    pub fn threshold(self) -> u16 {
        match self {
            TimeModel::Classic { threshold, .. } => threshold,
            TimeModel::Nethack => NETHACK_UNIT,
        }
    }

    /// The energy an actor needs before it may act at all.
    #[inline]
    pub fn ready_at(self, stats: &Stats) -> u16 {
        self.threshold().max(self.base_cost(stats))
    }

    /// The clock of a newcomer with these stats; not idle until said so.
    pub fn clock(self, stats: &Stats) -> Clock {
        Clock {
            energy: Energy(0),
            turns: 0,
            ready: self.ready_at(stats),
            cap: self.max_energy(stats),
            gain: match self {
                TimeModel::Classic { gain, .. } => gain,
                TimeModel::Nethack => stats.speed,
            },
            cost: self.cost(stats, Cost::Action, Pace::default()),
            idle: false,
            dashing: false,
        }
    }

    /// Phase one of a tick: the actor keeps what it may carry from the last tick, and
    /// gains; a dash ends with the tick it was made in.
    #[inline]
    pub fn start_tick(self, clock: &mut Clock) {
        clock.dashing = false;
        let carried = clock.energy.0.min(clock.cap);
        let gained = carried.saturating_add(clock.gain);
        clock.energy = Energy(match self {
            // The gain is clipped at max energy.
            TimeModel::Classic { .. } => gained.min(clock.cap),
            // Never clipped within the tick: only what is carried out of it is.
            TimeModel::Nethack => gained,
        });
    }

    /// The bound shown on the energy bar and applied to what is carried between ticks.
    #[inline]
    pub fn max_energy(self, stats: &Stats) -> u16 {
        match self {
            TimeModel::Classic { .. } => stats.max_energy,
            // Speeds 1-12 carry at most 12, 13-24 at most 24, 25-36 at most 36, ...
            TimeModel::Nethack => stats.speed.max(1).div_ceil(NETHACK_UNIT) * NETHACK_UNIT,
        }
    }

    /// The most energy an actor can hold when it acts. No cost exceeds it, so that no
    /// action is out of reach forever (a slowed elephant still crosses the dunes).
    #[inline]
    pub fn peak(self, stats: &Stats) -> u16 {
        match self {
            TimeModel::Classic { .. } => stats.max_energy,
            TimeModel::Nethack => self.max_energy(stats) + stats.speed,
        }
    }

    #[inline]
    pub fn base_cost(self, stats: &Stats) -> u16 {
        match self {
            TimeModel::Classic { .. } => stats.move_cost,
            TimeModel::Nethack => NETHACK_UNIT,
        }
    }

    /// The cost of an action for this actor, on this terrain, at this pace.
    #[inline]
    pub fn cost(self, stats: &Stats, cost: Cost, pace: Pace) -> u16 {
        let base = u32::from(self.base_cost(stats));
        let (mut num, mut den) = match cost {
            Cost::Free => return 0,
            Cost::Action => (1, 1),
            Cost::Quick => (1, 2),
            Cost::Step(terrain) => terrain.step_factor(),
        };
        // Most actors go at their own pace: one test for all of them.
        if pace != Pace::default() {
            (num, den) = pace.scale(num, den, matches!(cost, Cost::Step(_)));
        }
        // Most actions need no division, and a division is the slowest step of a turn.
        let cost = if den == 1 {
            base * num
        } else {
            (base * num).div_ceil(den)
        }
        .max(1);
        cost.min(u32::from(self.peak(stats))) as u16
    }

    /// Whether this model can count with `stats`, as a decoded state must show
    /// (`Inconsistency::Stats`; the rules themselves never make other stats):
    /// * the actor gains energy every tick (nethack: its speed; classic: the ruleset's gain);
    /// * every action costs it at least 1: in classic, a move cost of 0 under a threshold
    ///   of 0 is an actor ready with no energy, acting for nothing again and again within
    ///   one tick;
    /// * the most it can hold pays for at most `MOST_ACTIONS` ordinary actions, which
    ///   also keeps `peak` within a `u16`.
    pub(crate) fn counts_with(self, stats: &Stats) -> bool {
        let unit = u32::from(NETHACK_UNIT);
        let (gain, peak, base) = match self {
            TimeModel::Classic { gain, .. } => (
                gain,
                u32::from(stats.max_energy),
                u32::from(stats.move_cost),
            ),
            TimeModel::Nethack => {
                let speed = u32::from(stats.speed);
                (
                    stats.speed,
                    speed.max(1).div_ceil(unit) * unit + speed,
                    unit,
                )
            }
        };
        gain > 0 && base > 0 && peak <= MOST_ACTIONS * base
    }

    /// Whether an actor with `stats` (which this model `counts_with`) ever holds the
    /// energy to act: the most it can hold reaches its threshold. The camel must, or the
    /// game would tick on for ever waiting for it.
    pub(crate) fn ever_ready(self, stats: &Stats) -> bool {
        self.ready_at(stats) <= self.peak(stats)
    }

    /// Under the weighted order, how strongly an actor is pulled to the front.
    pub fn weight(self, stats: &Stats) -> u32 {
        match self {
            TimeModel::Classic { .. } => 10_000 / u32::from(stats.move_cost.max(1)),
            TimeModel::Nethack => u32::from(stats.speed),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const CLASSIC: TimeModel = TimeModel::Classic {
        gain: 100,
        threshold: 100,
    };

    fn stats(speed: u16, max_energy: u16, move_cost: u16) -> Stats {
        Stats {
            speed,
            max_energy,
            move_cost,
        }
    }

    /// Runs one actor that spends its base cost whenever it can; returns actions per tick.
    fn actions_per_tick(model: TimeModel, s: Stats, ticks: usize) -> Vec<u32> {
        let mut clock = model.clock(&s);
        let cost = model.cost(&s, Cost::Action, Pace::default());
        (0..ticks)
            .map(|_| {
                model.start_tick(&mut clock);
                let mut acted = 0;
                while clock.is_ready() {
                    clock.energy = Energy(clock.energy.0 - cost);
                    acted += 1;
                }
                acted
            })
            .collect()
    }

    /// The energy after phase one of a tick, starting from `energy`.
    fn after_gain(model: TimeModel, s: Stats, energy: u16) -> u16 {
        let mut clock = model.clock(&s);
        clock.energy = Energy(energy);
        model.start_tick(&mut clock);
        clock.energy.0
    }

    #[test]
    fn nethack_speed_16_acts_1_1_2() {
        let acts = actions_per_tick(TimeModel::Nethack, stats(16, 0, 0), 6);
        assert_eq!(acts, vec![1, 1, 2, 1, 1, 2]);
    }

    #[test]
    fn nethack_normal_speed_acts_once_per_tick() {
        let acts = actions_per_tick(TimeModel::Nethack, stats(12, 0, 0), 4);
        assert_eq!(acts, vec![1, 1, 1, 1]);
    }

    #[test]
    fn classic_slow_actor_moves_every_second_tick() {
        let s = stats(0, 150, 150);
        let mut clock = CLASSIC.clock(&s);
        let mut trace = vec![];
        for _ in 0..4 {
            CLASSIC.start_tick(&mut clock);
            trace.push(clock.energy.0);
            if clock.is_ready() {
                clock.energy =
                    Energy(clock.energy.0 - CLASSIC.cost(&s, Cost::Action, Pace::default()));
                trace.push(clock.energy.0);
            }
        }
        // 100, then 200 clipped to 150, moves, 0, ...
        assert_eq!(trace, vec![100, 150, 0, 100, 150, 0]);
        assert_eq!(actions_per_tick(CLASSIC, s, 6), vec![0, 1, 0, 1, 0, 1]);
    }

    #[test]
    fn classic_fast_actor_moves_every_tick() {
        assert_eq!(
            actions_per_tick(CLASSIC, stats(0, 100, 100), 3),
            vec![1, 1, 1]
        );
    }

    #[test]
    fn classic_gain_is_clipped_at_max_energy() {
        assert_eq!(after_gain(CLASSIC, stats(0, 150, 150), 120), 150);
    }

    #[test]
    fn nethack_gain_is_never_clipped_but_the_carry_is() {
        let n = TimeModel::Nethack;
        // Speed 12 carries at most 12: 24 left over becomes 12, then gains 12.
        assert_eq!(after_gain(n, stats(12, 0, 0), 12), 24);
        assert_eq!(after_gain(n, stats(12, 0, 0), 24), 24);
        // Speed 16 carries at most 24: 30 becomes 24, then gains 16, unclipped.
        assert_eq!(after_gain(n, stats(16, 0, 0), 30), 40);
        assert_eq!(n.max_energy(&stats(25, 0, 0)), 36);
    }

    /// `waits` counts the ordinary actions energy pays for, one after another, as a loop
    /// spending `cost` while ready would: checked against that loop at every energy.
    #[test]
    fn waits_are_the_actions_the_energy_pays_for() {
        for (model, s) in [
            (TimeModel::Nethack, stats(24, 0, 0)),
            (CLASSIC, stats(0, 250, 60)),
            (CLASSIC, stats(0, 150, 150)),
        ] {
            let cost = model.cost(&s, Cost::Action, Pace::default());
            for energy in 0..=model.peak(&s) {
                let mut clock = model.clock(&s);
                clock.energy = Energy(energy);
                let mut looped = 0;
                while clock.is_ready() {
                    clock.energy = Energy(clock.energy.0 - cost);
                    looped += 1;
                }
                clock.energy = Energy(energy);
                assert_eq!(clock.waits(), looped, "{model:?} {s:?} energy {energy}");
                assert_eq!(clock.stopped().waits(), 0);
            }
        }
    }

    #[test]
    fn a_stopped_clock_keeps_its_energy_and_never_acts() {
        for model in [CLASSIC, TimeModel::Nethack] {
            let s = stats(24, 150, 100);
            let mut clock = model.clock(&s);
            clock.energy = Energy(100);
            let mut clock = clock.stopped();
            model.start_tick(&mut clock);
            assert_eq!(clock.energy, Energy(100));
            assert!(!clock.is_ready());
        }
    }

    #[test]
    fn terrain_and_pace_change_the_cost() {
        let camel = stats(12, 200, 100);
        let n = TimeModel::Nethack;
        let walk = Pace::default();
        assert_eq!(n.cost(&camel, Cost::Step(Terrain::Sand), walk), 12);
        assert_eq!(n.cost(&camel, Cost::Step(Terrain::Dune), walk), 18);
        assert_eq!(n.cost(&camel, Cost::Step(Terrain::Hardpan), walk), 9);
        let dash = Pace {
            dashing: true,
            ..walk
        };
        assert_eq!(n.cost(&camel, Cost::Step(Terrain::Sand), dash), 6);
        assert_eq!(n.cost(&camel, Cost::Action, dash), 12);
        assert_eq!(n.cost(&camel, Cost::Free, walk), 0);
        assert_eq!(CLASSIC.cost(&camel, Cost::Step(Terrain::Dune), walk), 150);
    }

    /// The rules count with every creature's stats; not with an actor that never gains,
    /// acts for nothing, or pays for more than `MOST_ACTIONS` actions with its peak.
    #[test]
    fn the_rules_count_with_stats_that_gain_and_pay_a_sane_number_of_actions() {
        for species in crate::species::Species::ALL {
            let s = species.stats();
            for model in [CLASSIC, TimeModel::Nethack] {
                assert!(model.counts_with(&s), "{species:?} under {model:?}");
                assert!(model.ever_ready(&s), "{species:?} under {model:?}");
            }
        }
        let n = TimeModel::Nethack;
        assert!(!n.counts_with(&stats(0, 200, 100)), "no gain");
        // Speed 384 holds at most 384 + 384 = 768, 64 actions; 385 holds 396 + 385.
        assert!(n.counts_with(&stats(384, 0, 0)));
        assert!(!n.counts_with(&stats(385, 0, 0)));
        assert!(
            !n.counts_with(&stats(u16::MAX, 0, 0)),
            "a peak beyond a u16"
        );
        let no_gain = TimeModel::Classic {
            gain: 0,
            threshold: 100,
        };
        assert!(!no_gain.counts_with(&stats(12, 200, 100)));
        let anytime = TimeModel::Classic {
            gain: 100,
            threshold: 0,
        };
        assert!(!anytime.counts_with(&stats(12, 0, 0)), "free actions");
        assert!(CLASSIC.counts_with(&stats(12, 6_400, 100)));
        assert!(!CLASSIC.counts_with(&stats(12, 6_401, 100)));
        // Counted with, yet never ready: its max is below the threshold.
        assert!(CLASSIC.counts_with(&stats(12, 99, 50)));
        assert!(!CLASSIC.ever_ready(&stats(12, 99, 50)));
    }

    #[test]
    fn no_cost_exceeds_what_the_actor_can_ever_hold() {
        let elephant = stats(8, 150, 150);
        let slow_on_dunes = Pace {
            slowed: true,
            ..Pace::default()
        };
        assert_eq!(
            CLASSIC.cost(&elephant, Cost::Step(Terrain::Dune), slow_on_dunes),
            150
        );
        assert!(
            TimeModel::Nethack.cost(&elephant, Cost::Step(Terrain::Dune), slow_on_dunes)
                <= TimeModel::Nethack.peak(&elephant)
        );
    }
}
