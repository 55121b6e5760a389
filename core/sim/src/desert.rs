//! The desert's own clock (rules version 6 on): the time of day, what heat and cold do to
//! the cost of acting, and the camel's water.
//!
//! A day is `DAY_TICKS` ticks of four equal parts, and a game starts at the beginning of a
//! morning. Heat and cold change what actions cost, never what they do: in the heat of
//! the day the camel's steps cost a third more (`HEAT`) and it drinks twice as fast; in
//! the cold of the night the cold-blooded (snakes, cobras, scorpions, spiders) are
//! sluggish and every action costs them half as much again (`COLD`). So the camel that
//! travels by night meets slow reptiles and saves water, and the one that crosses the
//! noon sun pays for it. Beside a pool the camel drinks from the pool, not its skin.

use serde::{Deserialize, Serialize};

use crate::ids::Tick;

/// Ticks in a whole day: about one level's walk for a camel of normal speed.
pub const DAY_TICKS: u64 = 400;

/// Sips the camel's waterskin holds; it starts full.
pub const WATERSKIN: u16 = 20;

/// The camel takes a sip every this many of its turns, twice as often in the heat.
pub const THIRST_EVERY: u32 = 16;

/// The camel is told its waterskin runs low when this many sips are left (and an errand
/// stops there: the client's `errand`).
pub const WATER_LOW: u16 = 4;

/// Sips a cactus fruit's juice gives.
pub const FRUIT_WATER: u16 = 2;

/// What the heat of noon multiplies the camel's steps by, as a fraction.
pub const HEAT: (u32, u32) = (4, 3);

/// What the cold of night multiplies a cold-blooded creature's actions by, as a fraction.
pub const COLD: (u32, u32) = (3, 2);

/// The part of the day a tick falls in.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum TimeOfDay {
    Morning,
    /// Hot: the camel's steps cost more, and it drinks twice as fast.
    Noon,
    Evening,
    /// Cold: the cold-blooded are sluggish.
    Night,
}

impl TimeOfDay {
    pub const ALL: [TimeOfDay; 4] = [
        TimeOfDay::Morning,
        TimeOfDay::Noon,
        TimeOfDay::Evening,
        TimeOfDay::Night,
    ];

    #[inline]
    pub fn at(tick: Tick) -> TimeOfDay {
        TimeOfDay::ALL[((tick.0 % DAY_TICKS) * 4 / DAY_TICKS) as usize]
    }

    /// Ticks from `tick` until this part of the day ends.
    pub fn ticks_left(tick: Tick) -> u64 {
        let quarter = DAY_TICKS / 4;
        quarter - tick.0 % quarter
    }

    pub fn name(self) -> &'static str {
        match self {
            TimeOfDay::Morning => "morning",
            TimeOfDay::Noon => "noon",
            TimeOfDay::Evening => "evening",
            TimeOfDay::Night => "night",
        }
    }

    /// What it does to the cost of acting, in a few words for the side bar.
    pub fn effect(self) -> String {
        match self {
            TimeOfDay::Morning | TimeOfDay::Evening => "mild".into(),
            TimeOfDay::Noon => format!(
                "hot: your steps cost {}/{}, you drink twice as fast",
                HEAT.0, HEAT.1
            ),
            TimeOfDay::Night => {
                format!(
                    "cold: reptiles and spiders act at {}/{} cost",
                    COLD.0, COLD.1
                )
            }
        }
    }

    #[inline]
    pub fn is_hot(self) -> bool {
        self == TimeOfDay::Noon
    }

    #[inline]
    pub fn is_cold(self) -> bool {
        self == TimeOfDay::Night
    }
}

/// Whether the camel, taking a sip every `every` turns (`Crossing::thirst_every`),
/// takes one as it ends its `turns`th turn at `time`: at noon, twice as often.
#[inline]
pub fn sip_due(turns: u32, every: u32, time: TimeOfDay) -> bool {
    let every = if time.is_hot() { every / 2 } else { every };
    turns.is_multiple_of(every)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_day_is_four_equal_parts_from_morning() {
        let at = |t| TimeOfDay::at(Tick(t));
        assert_eq!(at(0), TimeOfDay::Morning);
        assert_eq!(at(99), TimeOfDay::Morning);
        assert_eq!(at(100), TimeOfDay::Noon);
        assert_eq!(at(299), TimeOfDay::Evening);
        assert_eq!(at(300), TimeOfDay::Night);
        assert_eq!(at(399), TimeOfDay::Night);
        assert_eq!(at(400), TimeOfDay::Morning);
        assert_eq!(
            at(u64::MAX),
            TimeOfDay::ALL[(u64::MAX % 400 / 100) as usize]
        );
        assert_eq!(TimeOfDay::ticks_left(Tick(0)), 100);
        assert_eq!(TimeOfDay::ticks_left(Tick(399)), 1);
    }

    #[test]
    fn the_camel_drinks_twice_as_often_at_noon() {
        let sips = |time| {
            (1..=160)
                .filter(|&t| sip_due(t, THIRST_EVERY, time))
                .count()
        };
        assert_eq!(sips(TimeOfDay::Morning), 10);
        assert_eq!(sips(TimeOfDay::Night), 10);
        assert_eq!(sips(TimeOfDay::Noon), 20);
    }
}
