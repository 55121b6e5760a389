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
    /// A light spear: less harm than a spear, thrown in half the time (rules version 9
    /// on: `finds`).
    Javelin,
    /// A flask of something to drink, known by its look until drunk (rules version 9 on).
    Flask(Glass),
    /// A carved scarab, cracked for its charm, known by its stone until used (rules
    /// version 9 on).
    Scarab(Stone),
    /// A desert rose: crushed, it makes the camel stronger for good in one way it chooses
    /// (rules version 9 on: `growth`).
    Rose,
    /// Worn, bronze barding softens blows as a blanket does, and with one, but everything
    /// the camel does costs more under its weight (rules version 9 on: `gear`).
    Barding,
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

/// How an unidentified flask looks. Which has which draught is drawn per game.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
pub enum Glass {
    Cloudy,
    Amber,
    Green,
}

/// What a flask holds.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
pub enum Draught {
    /// Fills the waterskin and heals a little.
    Sweet,
    /// Shows the camel the whole level.
    Vision,
    /// Spoils the waterskin: it is emptied.
    Brackish,
}

/// What stone an unidentified scarab is carved from. Which has which charm is drawn per
/// game.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
pub enum Stone {
    Jade,
    Bone,
    Copper,
}

/// What a scarab does when cracked.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
pub enum Charm {
    /// Every creature the camel sees falls into a charmed sleep, until it is hurt.
    Slumber,
    /// The camel is carried to a far cell of the level.
    Blink,
    /// Every creature on the level wakes, and the hunters learn where the camel is.
    Alarm,
}

impl Glass {
    pub const ALL: [Glass; 3] = [Glass::Cloudy, Glass::Amber, Glass::Green];

    pub fn name(self) -> &'static str {
        match self {
            Glass::Cloudy => "cloudy",
            Glass::Amber => "amber",
            Glass::Green => "green",
        }
    }
}

impl Draught {
    pub const ALL: [Draught; 3] = [Draught::Sweet, Draught::Vision, Draught::Brackish];

    pub fn name(self) -> &'static str {
        match self {
            Draught::Sweet => "sweet water",
            Draught::Vision => "vision",
            Draught::Brackish => "brackish water",
        }
    }
}

impl Stone {
    pub const ALL: [Stone; 3] = [Stone::Jade, Stone::Bone, Stone::Copper];

    pub fn name(self) -> &'static str {
        match self {
            Stone::Jade => "jade",
            Stone::Bone => "bone",
            Stone::Copper => "copper",
        }
    }
}

impl Charm {
    pub const ALL: [Charm; 3] = [Charm::Slumber, Charm::Blink, Charm::Alarm];

    pub fn name(self) -> &'static str {
        match self {
            Charm::Slumber => "slumber",
            Charm::Blink => "blinking",
            Charm::Alarm => "alarm",
        }
    }
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
        matches!(self, Item::Blanket | Item::Boots | Item::Barding)
    }

    pub fn is_throwable(self) -> bool {
        matches!(self, Item::Stone | Item::Spear | Item::Javelin)
    }

    /// Whether it is used up by `Command::Use`: a flask drunk, a scarab cracked.
    pub fn is_usable(self) -> bool {
        matches!(self, Item::Flask(_) | Item::Scarab(_))
    }

    /// Damage when it hits, inclusive.
    pub fn thrown_damage(self) -> (u32, u32) {
        match self {
            Item::Spear => (4, 8),
            Item::Javelin => (1, 4),
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
            Item::Javelin => "javelin",
            Item::Flask(_) => "flask",
            Item::Scarab(_) => "scarab",
            Item::Rose => "desert rose",
            Item::Barding => "bronze barding",
            Item::Key => "key",
        }
    }

    pub fn glyph(self) -> char {
        match self {
            Item::Date => '%',
            Item::CactusFruit => '%',
            Item::Mushroom(_) => ',',
            Item::Stone => '*',
            Item::Spear | Item::Javelin => '/',
            Item::Blanket | Item::Boots | Item::Barding => '[',
            Item::Flask(_) => '!',
            Item::Scarab(_) => '"',
            Item::Rose => '&',
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
}

/// An item's name before anything is known of it: a mushroom, a flask or a scarab goes
/// by its look.
pub fn unknown_name(item: Item) -> String {
    match item {
        Item::Mushroom(look) => format!("{} mushroom", look.name()),
        Item::Flask(glass) => format!("{} flask", glass.name()),
        Item::Scarab(stone) => format!("{} scarab", stone.name()),
        other => other.noun().to_owned(),
    }
}
