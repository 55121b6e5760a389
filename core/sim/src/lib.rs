//! The simulation of Sandglass.
//!
//! A game is a tape of events (player commands and raw draws); its state is a pure fold
//! over the tape. This crate does no I/O and reads no clock: it cannot, for it depends on
//! nothing that could (see ARCHITECTURE.md). Saved games live in `sandglass-store`.

#![forbid(unsafe_code)]

pub mod action;
pub mod bags;
pub mod bestiary;
pub mod bot;
pub mod check;
mod clocks;
pub mod command;
mod consistency;
pub mod crossing;
mod decide;
pub mod desert;
pub mod drive;
mod encoding;
pub mod energy;
pub mod gear;
pub mod geometry;
pub mod ids;
pub mod item;
pub mod level;
pub mod lore;
pub mod map;
pub mod message;
pub mod path;
mod perform;
pub mod recording;
pub mod rng;
pub mod rules;
pub mod scenario;
pub mod score;
pub mod sight;
pub mod species;
pub mod state;
pub mod tape;
pub mod text;
pub mod timeline;
pub mod world;

pub use check::Rejection;
pub use command::{Command, Slot};
pub use consistency::{Inconsistency, MOST_STATE_BYTES};
pub use decide::{
    closes_in, is_hostile, is_provoked, runs_from_the_camel, weakened, ALLY_KEEPS_WITHIN,
    EGG_WAITS, HUNT_REACH, KNOCKOUT_TURNS, SHRIEK_REACH, TAMING_ODDS, VULTURE_KEEPS_OFF,
};
pub use drive::{
    fold, fold_from, verify, Dealt, DealtError, FoldError, FoldErrorKind, Game, Live, LiveTape,
};
pub use encoding::DecodeError;
pub use recording::{CheckError, Recording};
pub use rules::{HeaderError, Rules, RulesVersion};
pub use state::{FeedError, Need, Observer, State};
pub use tape::{Event, Header, Ruleset, Tape};
pub use world::{Change, Outcome, World};

#[cfg(test)]
mod tests;
