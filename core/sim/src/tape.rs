//! The tape: a header plus the events that rebuild a game.

use serde::{Deserialize, Serialize};

use crate::command::Command;

/// Version of the tape's encoding. Bump when `Header` or `Event` change shape.
pub const FORMAT_VERSION: u16 = 1;

/// One entry of the tape.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum Event {
    /// A player command that was accepted.
    Command(Command),
    /// One raw output of the game's PCG generator.
    Draw(u32),
}

impl Event {
    pub fn kind(&self) -> &'static str {
        match self {
            Event::Command(_) => "command",
            Event::Draw(_) => "draw",
        }
    }
}

/// How time flows: which energy rule bites where (docs/design.md, "Time").
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum TimeModel {
    /// Fixed gain for everyone, clipped at each actor's max energy.
    Classic { gain: u16, threshold: u16 },
    /// Gain is the actor's speed; threshold and cost 12; only the carry is clipped.
    Nethack,
}

/// Who acts first among actors ready in the same tick.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum TurnOrder {
    /// An initiative drawn once, when the actor appears.
    Initiative,
    /// A fresh speed-weighted random order every tick.
    WeightedEachTick,
}

/// The ruleset: data in the header, so a tape carries the rules it was played under.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Ruleset {
    pub time: TimeModel,
    pub order: TurnOrder,
}

impl Ruleset {
    pub const CLASSIC: Ruleset = Ruleset {
        time: TimeModel::Classic {
            gain: 100,
            threshold: 100,
        },
        order: TurnOrder::Initiative,
    };
    pub const NETHACK: Ruleset = Ruleset {
        time: TimeModel::Nethack,
        order: TurnOrder::Initiative,
    };

    /// The rulesets that go by a name, as typed on a command line or in a scenario.
    pub const NAMED: [Ruleset; 2] = [Ruleset::NETHACK, Ruleset::CLASSIC];

    /// "classic" or "nethack".
    pub fn by_name(name: &str) -> Option<Ruleset> {
        Ruleset::NAMED.into_iter().find(|r| r.name() == name)
    }

    pub fn name(&self) -> &'static str {
        match self.time {
            TimeModel::Classic { .. } => "classic",
            TimeModel::Nethack => "nethack",
        }
    }
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Header {
    pub format_version: u16,
    /// Which rules the game is played under (`rules::KEPT`): checked, with the rest, by
    /// `Rules::of`.
    pub rules_version: u16,
    pub seed: u64,
    pub ruleset: Ruleset,
    /// Seconds since the Unix epoch; metadata only, never read by the simulation.
    pub created_at: u64,
}

/// A game's tape: its header and its events, in memory.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Tape {
    pub header: Header,
    pub events: Vec<Event>,
}
