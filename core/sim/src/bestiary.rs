//! Which creatures the levels hold, and how many at each depth: a table per rules version
//! that changed them. Below both the levels, which place them, and the rules, which name
//! the table each version plays with.

use crate::crossing::{DEEP_DESERT, FURNACE};
use crate::geometry::Direction;
use crate::species::Species;

/// Which creatures the levels hold, and how many at each depth: a table per rules version
/// that changed them (`Rules::bestiary`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Bestiary {
    /// Rules versions 2 to 4: snakes, spiders, elephants, jackals and scorpions.
    Desert,
    /// Rules version 5: the desert's, and cobras that spit from a distance.
    Cobras,
    /// Rules version 6: the cobras', meerkats and sandworms; many creatures asleep.
    Burrows,
    /// Rules versions 7 to 10: the burrows', hyenas in packs and tortoises that trample
    /// cacti.
    Herds,
    /// Rules versions 11 to 14: the herds', over twelve depths, with ratels from depth 5
    /// and lions in the deep desert (`crossing::DEEP_DESERT`).
    Deep,
    /// Rules version 15: the deep's, with locust swarms from depth 3, vultures from
    /// depth 5, and on the last three depths (`crossing::FURNACE`) a second lion and a
    /// second pack. Played by eye under 14, every run was won: the deepest levels held a
    /// creature or two at a time, met and beaten one by one.
    Hunted,
    /// Rules version 16: the hunted's, with fennecs that steal from depth 2 and horned
    /// vipers under the sand from depth 5, placed last. Played by eye under 15, a careful
    /// player lost only hit points, never what the bags held, and learnt to see every
    /// buried danger by the stirring sand of a single kind.
    Thieves,
    /// Rules version 17: the thieves' creatures, wakeful in the deep desert: from depth 7
    /// a creature that often sleeps is placed asleep one time in four, and on the last
    /// three depths never (`Bestiary::asleep_one_in`). Played by eye under 16, a careful
    /// player met the deep hunters one by one, most of them asleep, walked past them, and
    /// reached the last depths with hit points to spare in every game.
    Wakeful,
}

impl Bestiary {
    /// Whether its levels place creatures asleep: from `Burrows` on.
    pub fn has_sleepers(self) -> bool {
        self >= Bestiary::Burrows
    }

    /// A creature that often sleeps (`species::Sleep::Often`) is placed asleep on level
    /// `depth` one time in this many; `None` where none is.
    pub fn asleep_one_in(self, depth: u8) -> Option<u32> {
        match self {
            Bestiary::Wakeful if depth >= FURNACE => None,
            Bestiary::Wakeful if depth >= DEEP_DESERT => Some(4),
            _ => Some(2),
        }
    }

    /// How many of each creature a level of `depth` holds: more, and more kinds, deeper.
    /// Jackals come from depth 2, scorpions from depth 3; under `Cobras`, cobras from
    /// depth 2, placed after the others; under `Burrows`, meerkats from depth 1 and
    /// sandworms from depth 2, placed after the cobras; under `Herds`, tortoises from
    /// depth 4 and a pack of two hyenas from depth 7, placed last; under `Deep`, ratels
    /// from depth 5 and lions from depth 7, after them.
    pub fn counts(self, depth: u8) -> Vec<(Species, u32)> {
        match self {
            Bestiary::Deep => return deep_counts(depth),
            Bestiary::Hunted => return hunted_counts(depth),
            Bestiary::Thieves | Bestiary::Wakeful => return thieves_counts(depth),
            _ => {}
        }
        let d = u32::from(depth);
        let mut counts = vec![
            (Species::Snake, 2 + d / 2),
            (Species::Spider, 1 + d / 3),
            (Species::Elephant, (d + 1) / 3),
            (Species::Jackal, d.saturating_sub(1).div_ceil(2)),
            (Species::Scorpion, d.saturating_sub(1) / 2),
        ];
        if self != Bestiary::Desert {
            counts.push((Species::Cobra, (d + 1) / 3));
        }
        if self >= Bestiary::Burrows {
            counts.push((Species::Meerkat, 1 + d / 4));
            counts.push((Species::Sandworm, (d + 1) / 3));
        }
        if self >= Bestiary::Herds {
            counts.push((Species::Tortoise, d.saturating_sub(1) / 3));
            counts.push((Species::Hyena, PACK * (d.saturating_sub(4) / 3)));
        }
        counts
    }
}

/// The deep bestiary's counts at `depth` of twelve: the herds' of the depth as far
/// down the eight-depth crossing (the same creatures, rising as slowly over the longer
/// way), then ratels from depth 5 and lions from the deep desert on, placed last.
fn deep_counts(depth: u8) -> Vec<(Species, u32)> {
    let as_far_down = (u32::from(depth) * 2).div_ceil(3) as u8;
    let mut counts = Bestiary::Herds.counts(as_far_down);
    let d = u32::from(depth);
    counts.push((Species::Ratel, d.saturating_sub(1) / 4));
    let lions = match depth >= DEEP_DESERT {
        true => (d - 3) / 4,
        false => 0,
    };
    counts.push((Species::Lion, lions));
    counts
}

/// The hunted bestiary's counts at `depth`: the deep's, more of its hunters on the last
/// three depths, then locust swarms and vultures, placed last so that every creature the
/// deep bestiary placed stands where it would.
fn hunted_counts(depth: u8) -> Vec<(Species, u32)> {
    let mut counts = deep_counts(depth);
    let d = u32::from(depth);
    if depth >= FURNACE {
        for (species, count) in counts.iter_mut() {
            *count += match species {
                Species::Lion => 1,
                Species::Hyena => PACK,
                _ => 0,
            };
        }
    }
    counts.push((Species::Locusts, (d + 1) / 4));
    counts.push((Species::Vulture, d.saturating_sub(2) / 3));
    counts
}

/// The thieves' bestiary's counts at `depth`: the hunted's, then fennecs from depth 2
/// (one, two from depth 5, three from depth 10) and horned vipers from depth 5 (one, two
/// from depth 8, three from depth 11), placed last so that every creature the hunted
/// bestiary placed stands where it would.
fn thieves_counts(depth: u8) -> Vec<(Species, u32)> {
    let mut counts = hunted_counts(depth);
    let d = u32::from(depth);
    let fennecs = match depth {
        0 | 1 => 0,
        _ => 1 + d / 5,
    };
    counts.push((Species::Fennec, fennecs));
    counts.push((Species::Viper, d.saturating_sub(2) / 3));
    counts
}

/// How many hyenas run together.
pub const PACK: u32 = 2;

/// How spiders breed: a table per rules version (`Rules::brood`): how many eggs there
/// come to be, and how many spiders each hatches (before version 12, one on every free
/// cell about it, the seed's rule).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Brood {
    /// Rules versions 2 to 9: spiders lay until a level holds forty spiders and eggs,
    /// and a nest holds three to five eggs.
    Swarming,
    /// Rules versions 10 and 11: spiders lay until a level holds six spiders and eggs,
    /// and a nest holds one egg.
    Bounded,
    /// Rules version 12: as `Bounded`, and an egg hatches at most `CLUTCH` spiders, so
    /// that spiders are not the bulk of every game's kills (a third of the bot's under
    /// 11: BENCHMARKS.md).
    Clutch,
}

/// The most spiders an egg hatches under `Brood::Clutch`.
pub const CLUTCH: u8 = 3;

impl Brood {
    /// Spiders stop laying when the level holds this many spiders and eggs: the desert
    /// is finite, and a brood that doubled forever would end every long game the same
    /// way.
    pub fn limit(self) -> usize {
        match self {
            Brood::Swarming => 40,
            Brood::Bounded | Brood::Clutch => 6,
        }
    }

    /// How many eggs a nest holds, at least and at most (`level::places`). Each hatches
    /// a spider on every free cell around it: a few eggs are a brood the camel can
    /// fight, more would bury it.
    pub fn nest_eggs(self) -> (u32, u32) {
        match self {
            Brood::Swarming => (3, 5),
            Brood::Bounded | Brood::Clutch => (1, 1),
        }
    }

    /// The most spiders an egg hatches, on the free cells about it in the compass's order.
    pub fn hatched(self) -> u8 {
        match self {
            Brood::Swarming | Brood::Bounded => Direction::ALL.len() as u8,
            Brood::Clutch => CLUTCH,
        }
    }
}
