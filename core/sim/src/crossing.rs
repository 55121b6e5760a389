//! How long the crossing is, and how the desert changes along it: a table per rules
//! version that changed it (`Rules::crossing`). Below the levels, which are stocked by it,
//! and the rules, which name the table each version plays with.

use crate::item::Item;

/// The length of the crossing and what its levels give: a table per rules version.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Crossing {
    /// Rules versions 2 to 10: eight depths, every level stocked as the first is.
    Short,
    /// Rules version 11: twelve depths. Supplies thin out as the camel goes down, the
    /// deep desert is hotter (the camel drinks more often), and the deepest levels hold
    /// lions and ratels (`Bestiary::Deep`). A crossing stocked like the first level all
    /// the way was won with bags full of unused food and healing.
    Long,
    /// Rules version 13: the long crossing, where wounds close more slowly as the desert
    /// grows hotter and not at all by themselves on its last three depths, and a level
    /// holds one stone. Played by eye under 12, a camel rested back to whole after every
    /// fight and reached depth 11 at full health with eleven dates and eleven stones
    /// never needed.
    Furnace,
    /// Rules version 14: the furnace, with lean food: a date a level to depth 6 and on
    /// every other level below, a cactus fruit a level to depth 6 and none deeper. Played
    /// by eye under 13, both won runs ended at full health with 16 to 19 dates never
    /// eaten.
    Lean,
    /// Rules version 17: the lean crossing, with one mushroom a level in the deep desert
    /// where it held two. Played by eye under 16, a thrown mushroom (slowness, poison,
    /// confusion) won every big fight of the deep levels, and two a level left some over.
    Sparse,
}

/// What a level's ground holds besides its finds: food, water, stones, spears, mushrooms.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Supplies {
    pub dates: u32,
    pub fruit: u32,
    pub stones: u32,
    pub spears: u32,
    pub mushrooms: u32,
    /// Javelins and flasks, with the finds (`Rules::finds`).
    pub javelins: u32,
    pub flasks: u32,
}

impl Crossing {
    /// The oasis lies on this level; every level above has stairs down.
    pub const fn deepest(self) -> u8 {
        match self {
            Crossing::Short => 8,
            Crossing::Long | Crossing::Furnace | Crossing::Lean | Crossing::Sparse => 12,
        }
    }

    /// The depths a desert rose lies on under `Rules::roses_along_the_way`: three times
    /// in a crossing the camel chooses how to grow, early, midway and late.
    pub const fn roses_on(self) -> &'static [u8] {
        match self {
            Crossing::Short => &[2, 4, 6],
            Crossing::Long | Crossing::Furnace | Crossing::Lean | Crossing::Sparse => &[3, 6, 9],
        }
    }

    /// What level `depth` gives. The long crossing's first levels give a little less
    /// than the short one's, and its deep ones about half: a careful camel has what it
    /// needs, one that wastes runs short. Its spears (thrown and picked up again, the
    /// strongest blow a camel has) lie on three levels only. The furnace's levels hold one
    /// stone each: stones were carried to the end of a won run by the dozen. The lean
    /// crossing's hold a date to depth 6 and on every other level below (9 in all, where
    /// the furnace's held 15), and cactus fruit only to depth 6 (6, where it held 18).
    pub const fn supplies(self, depth: u8) -> Supplies {
        match self {
            Crossing::Short => Supplies {
                dates: 3,
                fruit: 2,
                stones: 3,
                spears: 1,
                mushrooms: 3,
                javelins: 1,
                flasks: 2,
            },
            Crossing::Sparse => Supplies {
                mushrooms: if depth >= DEEP_DESERT { 1 } else { 2 },
                ..Crossing::Lean.supplies(depth)
            },
            Crossing::Lean => {
                let deep = depth >= DEEP_DESERT;
                Supplies {
                    dates: if deep { depth as u32 % 2 } else { 1 },
                    fruit: if deep { 0 } else { 1 },
                    ..Crossing::Furnace.supplies(depth)
                }
            }
            Crossing::Long | Crossing::Furnace => {
                let shallow = depth <= 3;
                let deep = depth >= DEEP_DESERT;
                let furnace = matches!(self, Crossing::Furnace);
                Supplies {
                    dates: if shallow { 2 } else { 1 },
                    fruit: if deep { 1 } else { 2 },
                    stones: if deep || furnace { 1 } else { 2 },
                    spears: if matches!(depth, 1 | 5 | 9) { 1 } else { 0 },
                    mushrooms: 2,
                    javelins: depth as u32 % 2,
                    flasks: if deep { 1 } else { 2 },
                }
            }
        }
    }

    /// The camel takes a sip every this many of its turns on level `depth` (twice as
    /// often at noon: `desert::sip_due`). The long crossing's deep desert, from depth 7,
    /// is hotter: a waterskin lasts a quarter less there.
    pub const fn thirst_every(self, depth: u8) -> u32 {
        match self {
            Crossing::Long | Crossing::Furnace | Crossing::Lean | Crossing::Sparse
                if depth >= DEEP_DESERT =>
            {
                12
            }
            _ => crate::desert::THIRST_EVERY,
        }
    }

    /// The camel gets a hit point back every this many of its turns on level `depth`;
    /// `None` where no wound closes by itself, and only food, drink, a mushroom or a boon
    /// heals. In the furnace the sun stands higher every three depths: a wound closes every
    /// 8 turns to depth 3, every 12 to depth 6, every 20 in the deep desert's first three
    /// and not at all on the last three (`FURNACE`).
    pub const fn regenerate_every(self, depth: u8) -> Option<u32> {
        match self {
            Crossing::Short | Crossing::Long => Some(REGENERATE_EVERY),
            Crossing::Furnace | Crossing::Lean | Crossing::Sparse if depth >= FURNACE => None,
            Crossing::Furnace | Crossing::Lean | Crossing::Sparse if depth >= DEEP_DESERT => {
                Some(20)
            }
            Crossing::Furnace | Crossing::Lean | Crossing::Sparse if depth >= 4 => Some(12),
            Crossing::Furnace | Crossing::Lean | Crossing::Sparse => Some(REGENERATE_EVERY),
        }
    }

    /// Whether wounds close more slowly as the crossing goes down (`regenerate_every`):
    /// what the side bar and the help speak of.
    pub const fn has_furnace(self) -> bool {
        matches!(self, Crossing::Furnace | Crossing::Lean | Crossing::Sparse)
    }
}

/// The camel gets a hit point back every this many of its turns, where its wounds close
/// at the first level's pace (`Crossing::regenerate_every`).
pub const REGENERATE_EVERY: u32 = 8;

/// The first depth of the long crossing's deep desert: hotter, sparser, lions.
pub const DEEP_DESERT: u8 = 7;

/// The first of the furnace's last three depths, where no wound closes by itself.
pub const FURNACE: u8 = 10;

impl Supplies {
    /// The plain supplies, in the order a level places them: dates, fruit, stones, then
    /// spears (mushrooms, javelins and flasks are drawn with their looks).
    pub fn plain(self) -> [(Item, u32); 4] {
        [
            (Item::Date, self.dates),
            (Item::CactusFruit, self.fruit),
            (Item::Stone, self.stones),
            (Item::Spear, self.spears),
        ]
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The short crossing is the levels as they always were: the counts the generator
    /// placed before the table.
    #[test]
    fn the_short_crossing_stocks_every_level_as_before() {
        for depth in 1..=Crossing::Short.deepest() {
            let s = Crossing::Short.supplies(depth);
            assert_eq!(
                s.plain(),
                [
                    (Item::Date, 3),
                    (Item::CactusFruit, 2),
                    (Item::Stone, 3),
                    (Item::Spear, 1)
                ]
            );
            assert_eq!((s.mushrooms, s.javelins, s.flasks), (3, 1, 2));
            assert_eq!(Crossing::Short.thirst_every(depth), 16);
        }
    }

    /// Over the whole long crossing the camel finds fewer dates than the short one gave,
    /// and three spears, not eight.
    #[test]
    fn the_long_crossing_gives_less_and_less() {
        let total = |crossing: Crossing, of: fn(Supplies) -> u32| {
            (1..=crossing.deepest())
                .map(|d| of(crossing.supplies(d)))
                .sum::<u32>()
        };
        assert!(total(Crossing::Long, |s| s.dates) < total(Crossing::Short, |s| s.dates));
        assert_eq!(total(Crossing::Long, |s| s.spears), 3);
        for depth in 2..=Crossing::Long.deepest() {
            let (above, here) = (
                Crossing::Long.supplies(depth - 1),
                Crossing::Long.supplies(depth),
            );
            assert!(here.dates <= above.dates && here.fruit <= above.fruit);
        }
        assert!(Crossing::Long.thirst_every(12) < Crossing::Long.thirst_every(1));
        assert!(Crossing::Long
            .roses_on()
            .iter()
            .all(|&d| d < Crossing::Long.deepest()));
    }
}
