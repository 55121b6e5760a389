//! What a player can ask for. Only accepted commands are written to the tape.

use serde::{Deserialize, Serialize};

use crate::gear::Garment;
use crate::geometry::Direction;
use crate::lore::Boon;

/// An inventory letter: slot 0 is `a`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
pub struct Slot(pub u8);

impl Slot {
    pub fn letter(self) -> char {
        char::from(b'a' + self.0.min(25))
    }

    pub fn from_letter(c: char) -> Option<Slot> {
        c.is_ascii_lowercase().then(|| Slot(c as u8 - b'a'))
    }
}

/// A player's command, as the tape holds it.
///
/// Append-only: a variant's place is its number in every replay file and event log
/// (docs/replay-format.md); a variant moved or removed makes every golden read as other
/// commands (and the goldens' test fails). New variants go at the end.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum Command {
    /// Step, or attack whatever stands there.
    Move(Direction),
    /// End the turn and keep the energy for the next tick.
    Rest,
    PickUp,
    Drop(Slot),
    Eat(Slot),
    Throw(Slot, Direction),
    Open(Direction),
    Close(Direction),
    Descend,
    /// Costs nothing; moves cost half for the rest of the tick.
    Dash,
    /// Give up: the game ends here.
    Quit,
    /// Put on the gear in a slot (rules version 7 on; for good before version 9).
    Wear(Slot),
    /// Drink the flask or crack the scarab in a slot (rules version 9 on).
    Use(Slot),
    /// Crush the desert rose in a slot, growing as chosen (rules version 9 on).
    Grow(Slot, Boon),
    /// Take off a piece of gear, back into the bags (rules version 9 on).
    TakeOff(Garment),
    /// Throw what a slot holds at the cell this many cells east and south of the camel
    /// (west and north if negative), one it sees: it flies along `geometry::line` and
    /// stops at the first creature or wall, or at that cell (rules version 14 on:
    /// `Rules::throws_at_any_cell`).
    ThrowAt(Slot, i8, i8),
}

impl Command {
    /// A short lowercase name, used in traces and logs.
    pub fn name(&self) -> &'static str {
        match self {
            Command::Move(_) => "move",
            Command::Rest => "rest",
            Command::PickUp => "pick up",
            Command::Drop(_) => "drop",
            Command::Eat(_) => "eat",
            Command::Throw(..) => "throw",
            Command::Open(_) => "open",
            Command::Close(_) => "close",
            Command::Descend => "descend",
            Command::Dash => "dash",
            Command::Quit => "quit",
            Command::Wear(_) => "wear",
            Command::Use(_) => "use",
            Command::Grow(..) => "grow",
            Command::TakeOff(_) => "take off",
            Command::ThrowAt(..) => "throw at",
        }
    }
}
