//! What a player can ask for. Only accepted commands are written to the tape.

use serde::{Deserialize, Serialize};

use crate::geometry::Direction;

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
    /// Put on the gear in a slot, for good (rules version 7 on).
    Wear(Slot),
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
        }
    }
}
