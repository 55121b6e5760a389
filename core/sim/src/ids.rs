//! Newtypes for numbers that must not mix.

use serde::{Deserialize, Serialize};

/// An actor's index in the state's actor table. Ids are never reused within a game.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
pub struct ActorId(pub u32);

impl ActorId {
    pub fn index(self) -> usize {
        self.0 as usize
    }
}

/// A tick of the energy system: every actor gains once, then the ready ones act.
#[derive(
    Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize,
)]
pub struct Tick(pub u64);

/// A position on the tape, counting from 0.
#[derive(
    Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize,
)]
pub struct EventIndex(pub u64);

impl std::fmt::Display for EventIndex {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}", self.0)
    }
}
