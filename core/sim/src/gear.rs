//! What the camel wears (rules version 7 on): a saddle blanket that softens every blow a
//! creature lands, and boots that make dunes no harder going than sand; from rules
//! version 9, bronze barding that softens blows too but makes every action dearer. Each is
//! found once in a game, carried in the bags, and put on with a turn (`Command::Wear`).
//! Before version 9, worn gear stays on for good; from it, gear comes off with a turn
//! (`Command::TakeOff`), back into the bags.

use serde::{Deserialize, Serialize};

use crate::item::Item;

/// How much a saddle blanket takes off each blow, leaving at least 1.
pub const BLANKET_SOFTENS: i16 = 1;

/// How much bronze barding takes off each blow, leaving at least 1; with the blanket,
/// both soften it. Its weight is the price: a camel wearing both feels half of what a
/// jackal bites, but acts a fifth less often.
pub const BARDING_SOFTENS: i16 = 1;

/// What barding multiplies the cost of everything the camel does by, as a fraction.
pub const BARDING_WEIGHS: (u32, u32) = (5, 4);

/// The depth each piece of gear lies on, once a game (barding from rules version 9 on:
/// `level::FINDS_ON`).
pub const FOUND_ON: [(Item, u8); 2] = [(Item::Blanket, 2), (Item::Boots, 4)];

/// A piece of gear, as `Command::TakeOff` names it (one byte on the tape).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum Garment {
    Blanket,
    Boots,
    Barding,
}

impl Garment {
    pub const ALL: [Garment; 3] = [Garment::Blanket, Garment::Boots, Garment::Barding];

    pub fn item(self) -> Item {
        match self {
            Garment::Blanket => Item::Blanket,
            Garment::Boots => Item::Boots,
            Garment::Barding => Item::Barding,
        }
    }
}

/// What the camel has on. The barding is encoded apart from the rest, with what version 9
/// added to the state, so that the gear of versions 7 and 8 encodes as it always did.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Gear {
    blanket: bool,
    boots: bool,
    #[serde(skip)]
    barding: bool,
}

impl Gear {
    /// Whether the camel has `item` on.
    pub fn wears(self, item: Item) -> bool {
        match item {
            Item::Blanket => self.blanket,
            Item::Boots => self.boots,
            Item::Barding => self.barding,
            _ => false,
        }
    }

    /// Whether anything is worn.
    #[inline]
    pub fn is_worn(self) -> bool {
        self != Gear::default()
    }

    /// Whether its weight makes everything the camel does dearer.
    #[inline]
    pub fn has_barding(self) -> bool {
        self.barding
    }

    pub fn has_boots(self) -> bool {
        self.boots
    }

    /// Everything worn, blanket first.
    pub fn worn(self) -> impl Iterator<Item = Item> {
        [
            (Item::Blanket, self.blanket),
            (Item::Boots, self.boots),
            (Item::Barding, self.barding),
        ]
        .into_iter()
        .filter_map(|(item, on)| on.then_some(item))
    }

    /// This gear with barding on or not: how a decoded state's gear is made whole.
    pub(crate) fn with_barding(mut self, on: bool) -> Gear {
        self.barding = on;
        self
    }

    pub(crate) fn put_on(&mut self, item: Item) {
        self.set(item, true);
    }

    pub(crate) fn take_off(&mut self, item: Item) {
        self.set(item, false);
    }

    fn set(&mut self, item: Item, on: bool) {
        match item {
            Item::Blanket => self.blanket = on,
            Item::Boots => self.boots = on,
            Item::Barding => self.barding = on,
            _ => {}
        }
    }

    /// A creature's blow of `damage` as the camel feels it.
    #[inline]
    pub fn soften(self, damage: i16) -> i16 {
        let softens =
            i16::from(self.blanket) * BLANKET_SOFTENS + i16::from(self.barding) * BARDING_SOFTENS;
        if softens > 0 {
            (damage - softens).max(1)
        } else {
            damage
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_blanket_softens_a_blow_by_one_but_never_to_nothing() {
        let mut gear = Gear::default();
        assert_eq!(gear.soften(5), 5);
        gear.put_on(Item::Blanket);
        assert_eq!((gear.soften(5), gear.soften(1)), (4, 1));
        assert!(gear.wears(Item::Blanket) && !gear.wears(Item::Boots));
        assert_eq!(gear.worn().collect::<Vec<_>>(), [Item::Blanket]);
        gear.put_on(Item::Barding);
        assert_eq!((gear.soften(5), gear.soften(2)), (3, 1));
        gear.take_off(Item::Blanket);
        assert_eq!(gear.soften(5), 4);
        assert_eq!(gear.worn().collect::<Vec<_>>(), [Item::Barding]);
    }
}
