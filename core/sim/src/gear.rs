//! What the camel wears (rules version 7 on): a saddle blanket that softens every blow a
//! creature lands, and boots that make dunes no harder going than sand. Each is found
//! once in a game, carried in the bags, and put on with a turn (`Command::Wear`); worn,
//! it stays on for good.

use serde::{Deserialize, Serialize};

use crate::item::Item;

/// How much a saddle blanket takes off each blow, leaving at least 1.
pub const BLANKET_SOFTENS: i16 = 1;

/// The depth each piece of gear lies on, once a game.
pub const FOUND_ON: [(Item, u8); 2] = [(Item::Blanket, 2), (Item::Boots, 4)];

/// What the camel has on.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Gear {
    blanket: bool,
    boots: bool,
}

impl Gear {
    /// Whether the camel has `item` on.
    pub fn wears(self, item: Item) -> bool {
        match item {
            Item::Blanket => self.blanket,
            Item::Boots => self.boots,
            _ => false,
        }
    }

    pub fn has_boots(self) -> bool {
        self.boots
    }

    /// Everything worn, blanket first.
    pub fn worn(self) -> impl Iterator<Item = Item> {
        [(Item::Blanket, self.blanket), (Item::Boots, self.boots)]
            .into_iter()
            .filter_map(|(item, on)| on.then_some(item))
    }

    pub(crate) fn put_on(&mut self, item: Item) {
        match item {
            Item::Blanket => self.blanket = true,
            Item::Boots => self.boots = true,
            _ => {}
        }
    }

    /// A creature's blow of `damage` as the camel feels it.
    #[inline]
    pub fn soften(self, damage: i16) -> i16 {
        if self.blanket {
            (damage - BLANKET_SOFTENS).max(1)
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
    }
}
