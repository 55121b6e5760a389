//! Things on the ground and in the camel's bags.

use serde::{Deserialize, Serialize};

#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
pub enum Item {
    Date,
    CactusFruit,
    Mushroom(Look),
    Stone,
    Spear,
    /// Worn, softens every blow (rules version 7 on: `gear`).
    Blanket,
    /// Worn, dunes cost no more than sand (rules version 7 on: `gear`).
    Boots,
    /// Opens a locked door, and is used up doing it (rules version 9 on: `places`).
    Key,
}

/// How an unidentified mushroom looks. Which look has which effect is drawn per game.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
pub enum Look {
    Red,
    Brown,
    Speckled,
    Pale,
    Violet,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
pub enum Effect {
    Heal,
    Poison,
    Haste,
    Slow,
    Confusion,
}

impl Look {
    pub const ALL: [Look; 5] = [
        Look::Red,
        Look::Brown,
        Look::Speckled,
        Look::Pale,
        Look::Violet,
    ];

    pub fn index(self) -> usize {
        self as usize
    }

    pub fn name(self) -> &'static str {
        match self {
            Look::Red => "red",
            Look::Brown => "brown",
            Look::Speckled => "speckled",
            Look::Pale => "pale",
            Look::Violet => "violet",
        }
    }
}

impl Effect {
    pub const ALL: [Effect; 5] = [
        Effect::Heal,
        Effect::Poison,
        Effect::Haste,
        Effect::Slow,
        Effect::Confusion,
    ];

    pub fn name(self) -> &'static str {
        match self {
            Effect::Heal => "healing",
            Effect::Poison => "poison",
            Effect::Haste => "haste",
            Effect::Slow => "slowness",
            Effect::Confusion => "confusion",
        }
    }
}

impl Item {
    pub fn is_edible(self) -> bool {
        matches!(self, Item::Date | Item::CactusFruit | Item::Mushroom(_))
    }

    pub fn is_wearable(self) -> bool {
        matches!(self, Item::Blanket | Item::Boots)
    }

    pub fn is_throwable(self) -> bool {
        matches!(self, Item::Stone | Item::Spear)
    }

    /// Damage when it hits, inclusive.
    pub fn thrown_damage(self) -> (u32, u32) {
        match self {
            Item::Spear => (4, 8),
            Item::Stone => (1, 3),
            _ => (0, 0),
        }
    }

    /// Hit points restored by plain food.
    pub fn nourishment(self) -> i16 {
        match self {
            Item::Date => 6,
            Item::CactusFruit => 3,
            _ => 0,
        }
    }

    /// The item's noun, as a player who has not eaten it knows it.
    pub fn noun(self) -> &'static str {
        match self {
            Item::Date => "date",
            Item::CactusFruit => "cactus fruit",
            Item::Mushroom(_) => "mushroom",
            Item::Stone => "stone",
            Item::Spear => "spear",
            Item::Blanket => "saddle blanket",
            Item::Boots => "pair of boots",
            Item::Key => "key",
        }
    }

    pub fn glyph(self) -> char {
        match self {
            Item::Date => '%',
            Item::CactusFruit => '%',
            Item::Mushroom(_) => ',',
            Item::Stone => '*',
            Item::Spear => '/',
            Item::Blanket | Item::Boots => '[',
            Item::Key => '-',
        }
    }
}

/// Which mushroom looks have been identified, and what each look does in this game.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Mycology {
    effect_of: [Effect; 5],
    known: [bool; 5],
}

impl Mycology {
    pub fn new(effect_of: [Effect; 5]) -> Self {
        Mycology {
            effect_of,
            known: [false; 5],
        }
    }

    pub fn effect(&self, look: Look) -> Effect {
        self.effect_of[look.index()]
    }

    pub fn is_known(&self, look: Look) -> bool {
        self.known[look.index()]
    }

    pub(crate) fn identify(&mut self, look: Look) {
        self.known[look.index()] = true;
    }

    /// The name a player sees, without an article: a mushroom's effect once identified,
    /// its look before ("red mushroom", "mushroom of healing", "date").
    pub fn name(&self, item: Item) -> String {
        match item {
            Item::Mushroom(look) if self.is_known(look) => {
                format!("mushroom of {}", self.effect(look).name())
            }
            other => unknown_name(other),
        }
    }

    /// `name` with its article: "a red mushroom", "a mushroom of healing".
    pub fn describe(&self, item: Item) -> String {
        crate::text::a(&self.name(item))
    }

    /// `count` of `item` by name: "a date", "3 dates", "2 mushrooms of healing".
    pub fn counted(&self, item: Item, count: u16) -> String {
        crate::text::counted(&self.name(item), count)
    }
}

/// An item's name before anything is known of it: a mushroom goes by its look.
pub fn unknown_name(item: Item) -> String {
    match item {
        Item::Mushroom(look) => format!("{} mushroom", look.name()),
        other => other.noun().to_owned(),
    }
}
