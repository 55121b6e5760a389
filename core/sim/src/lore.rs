//! What the camel has learnt of the unknown finds of rules version 9 (`Rules::finds`):
//! which flask holds which draught, which scarab holds which charm (both drawn per game),
//! and which it has found out by using one. Mushrooms keep their own, older record
//! (`item::Mycology`), encoded where it always was.

use serde::{Deserialize, Serialize};

use crate::item::{Charm, Draught, Glass, Stone};

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Lore {
    draught_of: [Draught; 3],
    charm_of: [Charm; 3],
    glass_known: [bool; 3],
    stone_known: [bool; 3],
}

impl Default for Lore {
    /// The lore of a world before its first level: nothing known, in the lists' order.
    fn default() -> Self {
        Lore::new(Draught::ALL, Charm::ALL)
    }
}

impl Lore {
    pub fn new(draught_of: [Draught; 3], charm_of: [Charm; 3]) -> Self {
        Lore {
            draught_of,
            charm_of,
            glass_known: [false; 3],
            stone_known: [false; 3],
        }
    }

    pub fn draught(&self, glass: Glass) -> Draught {
        self.draught_of[glass as usize]
    }

    pub fn charm(&self, stone: Stone) -> Charm {
        self.charm_of[stone as usize]
    }

    pub fn knows_glass(&self, glass: Glass) -> bool {
        self.glass_known[glass as usize]
    }

    pub fn knows_stone(&self, stone: Stone) -> bool {
        self.stone_known[stone as usize]
    }

    pub(crate) fn learn_glass(&mut self, glass: Glass) {
        self.glass_known[glass as usize] = true;
    }

    pub(crate) fn learn_stone(&mut self, stone: Stone) {
        self.stone_known[stone as usize] = true;
    }

    /// Whether the lists are each a shuffle of every draught and every charm, as a game
    /// draws them: a decoded snapshot's must be, or two looks would name one draught.
    pub(crate) fn is_sound(&self) -> bool {
        let mut draughts = self.draught_of;
        let mut charms = self.charm_of;
        draughts.sort();
        charms.sort();
        draughts == Draught::ALL && charms == Charm::ALL
    }
}

/// How the camel has grown, one desert rose at a time (rules version 9 on): each choice
/// taken, counted. Hardiness is counted too, though it shows in the camel's hit points,
/// so that a player can be told what it chose.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Growth {
    pub hardier: u8,
    pub stronger: u8,
    pub deeper: u8,
}

/// A desert rose's choice.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum Boon {
    /// `HARDIER_HP` more hit points, for good, and as many back now.
    Hardier,
    /// Kicks harm `STRONGER_KICK` more.
    Stronger,
    /// The waterskin holds `DEEPER_SIPS` more.
    Deeper,
}

/// Hit points a rose spent on hardiness adds to the camel's most.
pub const HARDIER_HP: i16 = 3;
/// Damage a rose spent on strength adds to each kick.
pub const STRONGER_KICK: i16 = 1;
/// Sips a rose spent on a deeper waterskin adds to what it holds.
pub const DEEPER_SIPS: u16 = 10;

impl Boon {
    pub const ALL: [Boon; 3] = [Boon::Hardier, Boon::Stronger, Boon::Deeper];

    /// What it does, as the player chooses it.
    pub fn describe(self) -> String {
        match self {
            Boon::Hardier => format!("hardier: {HARDIER_HP} more hit points"),
            Boon::Stronger => format!("stronger: kicks harm {STRONGER_KICK} more"),
            Boon::Deeper => format!("deeper waterskin: {DEEPER_SIPS} more sips"),
        }
    }
}

impl Growth {
    pub(crate) fn grow(&mut self, boon: Boon) {
        let count = match boon {
            Boon::Hardier => &mut self.hardier,
            Boon::Stronger => &mut self.stronger,
            Boon::Deeper => &mut self.deeper,
        };
        *count = count.saturating_add(1);
    }

    /// Damage the camel's kicks gain.
    #[inline]
    pub fn kick_bonus(self) -> i16 {
        i16::from(self.stronger) * STRONGER_KICK
    }

    /// Sips the waterskin holds.
    #[inline]
    pub fn waterskin(self) -> u16 {
        crate::desert::WATERSKIN + u16::from(self.deeper) * DEEPER_SIPS
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn growth_counts_each_boon_and_what_it_adds() {
        let mut growth = Growth::default();
        assert_eq!((growth.kick_bonus(), growth.waterskin()), (0, 20));
        growth.grow(Boon::Stronger);
        growth.grow(Boon::Deeper);
        growth.grow(Boon::Deeper);
        assert_eq!((growth.kick_bonus(), growth.waterskin()), (1, 40));
        assert_eq!(growth.hardier, 0);
    }

    #[test]
    fn lore_is_sound_only_as_a_shuffle() {
        let lore = Lore::new(
            [Draught::Brackish, Draught::Sweet, Draught::Vision],
            Charm::ALL,
        );
        assert!(lore.is_sound());
        assert_eq!(lore.draught(Glass::Cloudy), Draught::Brackish);
        let twice = Lore::new([Draught::Sweet; 3], Charm::ALL);
        assert!(!twice.is_sound());
    }
}
