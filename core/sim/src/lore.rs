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

/// How the camel has grown, one desert rose at a time (rules version 9 on): each boon
/// taken, counted, and what the roses still to be crushed offer. Hardiness is counted
/// too, though it shows in the camel's hit points, so that a player can be told what it
/// chose.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Growth {
    taken: [u8; Boon::ALL.len()],
    offers: Offers,
}

/// A desert rose's choice. The first three are every rose's choice under rules 9 to 11;
/// from 12 (`Rules::forking_growth`) a rose offers three of them all (`Offers`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum Boon {
    /// `HARDIER_HP` more hit points, for good, and as many back now.
    Hardier,
    /// Kicks harm `STRONGER_KICK` more.
    Stronger,
    /// The waterskin holds `DEEPER_SIPS` more.
    Deeper,
    /// Every blow that reaches the camel harms `HIDE_TURNS` less, never below 1.
    Hide,
    /// Whatever the camel throws harms `ARM_HARM` more.
    Arm,
    /// The camel takes a sip `HUMP_TURNS` turns later than it would.
    Hump,
    /// Every flask and every scarab known at once, by its look.
    Sage,
    /// Every creature the camel kills gives it `VIGOUR_HP` hit points back.
    Vigour,
    /// Kicks harm `FURY_KICK` more, and the camel has `FURY_COST_HP` fewer hit points.
    Fury,
    /// `SINEW_HP` more hit points (and as many back now), and the waterskin holds
    /// `SINEW_COST_SIPS` fewer.
    Sinew,
}

/// Hit points a rose spent on hardiness adds to the camel's most.
pub const HARDIER_HP: i16 = 3;
/// Damage a rose spent on strength adds to each kick.
pub const STRONGER_KICK: i16 = 1;
/// Sips a rose spent on a deeper waterskin adds to what it holds.
pub const DEEPER_SIPS: u16 = 10;
/// Damage a thick hide turns from each blow.
pub const HIDE_TURNS: i16 = 1;
/// Damage a strong throw adds to each thing thrown.
pub const ARM_HARM: i16 = 2;
/// Turns a fat hump adds between sips.
pub const HUMP_TURNS: u32 = 4;
/// Hit points each kill gives back to a camel grown vigorous.
pub const VIGOUR_HP: i16 = 2;
/// Damage fury adds to each kick, and the hit points it costs.
pub const FURY_KICK: i16 = 3;
pub const FURY_COST_HP: i16 = 4;
/// Hit points sinew adds, and the sips it costs the waterskin.
pub const SINEW_HP: i16 = 6;
pub const SINEW_COST_SIPS: u16 = 8;
/// The fewest sips a waterskin holds, however much sinew costs it.
const LEAST_SIPS: u16 = 4;

impl Boon {
    pub const ALL: [Boon; 10] = [
        Boon::Hardier,
        Boon::Stronger,
        Boon::Deeper,
        Boon::Hide,
        Boon::Arm,
        Boon::Hump,
        Boon::Sage,
        Boon::Vigour,
        Boon::Fury,
        Boon::Sinew,
    ];

    /// Every rose's offer before rules 12.
    pub const FIRST_THREE: [Boon; 3] = [Boon::Hardier, Boon::Stronger, Boon::Deeper];

    /// Its name in a word or two: "thick hide".
    pub fn name(self) -> &'static str {
        match self {
            Boon::Hardier => "hardier",
            Boon::Stronger => "stronger",
            Boon::Deeper => "deeper skin",
            Boon::Hide => "thick hide",
            Boon::Arm => "strong throw",
            Boon::Hump => "fat hump",
            Boon::Sage => "desert lore",
            Boon::Vigour => "vigour",
            Boon::Fury => "fury",
            Boon::Sinew => "sinew",
        }
    }

    /// What it does, as the player chooses it.
    pub fn describe(self) -> String {
        match self {
            Boon::Hardier => format!("hardier: {HARDIER_HP} more hit points"),
            Boon::Stronger => format!("stronger: kicks harm {STRONGER_KICK} more"),
            Boon::Deeper => format!("deeper waterskin: {DEEPER_SIPS} more sips"),
            Boon::Hide => format!("thick hide: blows harm you {HIDE_TURNS} less"),
            Boon::Arm => format!("strong throw: thrown things harm {ARM_HARM} more"),
            Boon::Hump => format!("fat hump: a sip {HUMP_TURNS} turns later"),
            Boon::Sage => "desert lore: know every flask and scarab".to_owned(),
            Boon::Vigour => format!("vigour: {VIGOUR_HP} hit points back for each kill"),
            Boon::Fury => {
                format!("fury: kicks harm {FURY_KICK} more, but {FURY_COST_HP} fewer hit points")
            }
            Boon::Sinew => {
                format!("sinew: {SINEW_HP} more hit points, but {SINEW_COST_SIPS} fewer sips")
            }
        }
    }
}

/// How many roses' offers a game draws: one for each rose of the long crossing
/// (`Crossing::roses_on`); a rose beyond them offers what the first did.
pub const OFFERS: usize = 3;

/// The three boons each rose offers in turn, drawn once a game (rules version 12 on):
/// nine different boons of the ten, so that two runs are offered, and grow, differently.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Offers(pub [[Boon; 3]; OFFERS]);

impl Default for Offers {
    /// Every rose's offer before rules 12: the first three boons.
    fn default() -> Self {
        Offers([Boon::FIRST_THREE; OFFERS])
    }
}

impl Offers {
    /// The offers a shuffle of every boon makes: its first nine, three at a time.
    pub fn from_shuffle(boons: [Boon; 10]) -> Offers {
        Offers(std::array::from_fn(|i| {
            std::array::from_fn(|j| boons[i * 3 + j])
        }))
    }

    /// Whether each offer names three different boons, as a game draws them.
    pub(crate) fn is_sound(&self) -> bool {
        self.0.iter().all(|[a, b, c]| a != b && b != c && a != c)
    }
}

impl Growth {
    /// The growth of a camel that has taken `taken` (counted by `Boon::ALL`'s order),
    /// its roses offering `offers`.
    pub fn new(taken: [u8; Boon::ALL.len()], offers: Offers) -> Growth {
        Growth { taken, offers }
    }

    /// Whether any rose was crushed yet.
    pub fn has_grown(self) -> bool {
        self.taken.iter().any(|&n| n > 0)
    }

    /// How many roses were spent on `boon`.
    pub fn taken(self, boon: Boon) -> u8 {
        self.taken[boon as usize]
    }

    /// Every boon's count, in `Boon::ALL`'s order.
    pub(crate) fn counts(self) -> [u8; Boon::ALL.len()] {
        self.taken
    }

    pub(crate) fn offers(self) -> Offers {
        self.offers
    }

    /// What the next rose crushed offers.
    pub fn offer(self) -> [Boon; 3] {
        let crushed: usize = self.taken.iter().map(|&n| usize::from(n)).sum();
        self.offers.0[crushed % OFFERS]
    }

    pub(crate) fn grow(&mut self, boon: Boon) {
        let count = &mut self.taken[boon as usize];
        *count = count.saturating_add(1);
    }

    /// The roses' offers a new game drew.
    pub(crate) fn offered(&mut self, offers: Offers) {
        self.offers = offers;
    }

    fn times(self, boon: Boon) -> i16 {
        i16::from(self.taken(boon))
    }

    /// Damage the camel's kicks gain.
    #[inline]
    pub fn kick_bonus(self) -> i16 {
        self.times(Boon::Stronger) * STRONGER_KICK + self.times(Boon::Fury) * FURY_KICK
    }

    /// Damage the camel's throws gain.
    #[inline]
    pub fn throw_bonus(self) -> i16 {
        self.times(Boon::Arm) * ARM_HARM
    }

    /// Damage a blow that reaches the camel loses.
    #[inline]
    pub fn hide(self) -> i16 {
        self.times(Boon::Hide) * HIDE_TURNS
    }

    /// Turns added between the camel's sips.
    #[inline]
    pub fn hump(self) -> u32 {
        u32::from(self.taken(Boon::Hump)) * HUMP_TURNS
    }

    /// Hit points a kill gives back.
    #[inline]
    pub fn vigour(self) -> i16 {
        self.times(Boon::Vigour) * VIGOUR_HP
    }

    /// Sips the waterskin holds.
    #[inline]
    pub fn waterskin(self) -> u16 {
        let deeper = u16::from(self.taken(Boon::Deeper)) * DEEPER_SIPS;
        let sinew = u16::from(self.taken(Boon::Sinew)) * SINEW_COST_SIPS;
        (crate::desert::WATERSKIN + deeper)
            .saturating_sub(sinew)
            .max(LEAST_SIPS)
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
        assert_eq!(growth.taken(Boon::Hardier), 0);
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
