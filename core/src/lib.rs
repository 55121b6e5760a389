//! Sandglass's deterministic core.
//!
//! A game is a tape of events (player commands and raw draws); its state is a pure fold
//! over the tape. The simulation modules do no I/O and read no clock; `store` (the sled
//! log, snapshots and replay files) sits beside them. See ARCHITECTURE.md.

pub mod act;
pub mod apply;
pub mod behaviour;
pub mod bot;
pub mod check;
mod clocks;
pub mod command;
pub mod drive;
mod encoding;
pub mod energy;
pub mod geometry;
pub mod ids;
pub mod item;
pub mod level;
pub mod machine;
pub mod map;
pub mod message;
pub mod rng;
pub mod scenario;
pub mod species;
pub mod state;
pub mod store;
pub mod tape;
pub mod timeline;

pub use check::{validate, Rejection};
pub use command::{Command, Slot};
pub use drive::{fold, fold_from, verify, FoldError, FoldErrorKind, Live};
pub use machine::{FeedError, Observer};
pub use state::{Need, Outcome, State};
pub use tape::{Event, Header, Ruleset};

#[cfg(test)]
mod tests;
