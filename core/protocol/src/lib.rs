//! What crosses the wire between the client and the server, defined once: every JSON
//! answer and message either side reads, the words a game's outcome is spelled in, and
//! the order a board ranks games in. Both depend on this crate, so a field renamed or an
//! outcome added changes both sides at once, where two copies of a shape would drift
//! apart unseen (as a `_ =>` once read any outcome it did not know as "quit").
//!
//! The bytes are the contract: old clients and servers talk to new ones, so a field's
//! name, order and spelling stay as they are, and each module's tests pin the JSON its
//! types make. It holds no HTTP, no database and no simulation, and builds for `wasm32`
//! (the web viewer reads the live stream through it).

#![forbid(unsafe_code)]

pub mod daily;
pub mod dealt;
pub mod live;
pub mod outcome;
pub mod ranking;
pub mod runs;

pub use outcome::{Ending, Outcome, UnknownOutcome};
pub use ranking::Ranking;
