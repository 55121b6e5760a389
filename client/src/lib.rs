//! Sandglass's client: the window, the replay scrubber and the headless subcommands,
//! glue over `sandglass-sim` (the rules) and `sandglass-store` (saved games).
//!
//! * `cli`: the headless subcommands; no window, nothing drawn.
//! * `input`: keys, prompts and message paging; nothing drawn.
//! * `play`: the game controller, keys in and commands out; `errand` (travel, run,
//!   explore, rest) and `look` (a cell in words) beside it; nothing drawn.
//! * `timing`: an actor's energy as figures, for the side bar and the energy panel.
//! * `window`: the macroquad frame loop and the screens that draw the rest.

pub mod cli;
pub mod errand;
pub mod input;
pub mod look;
pub mod play;
pub mod report;
pub mod settings;
pub mod timing;
pub mod window;
