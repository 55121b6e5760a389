//! Sandglass's client: the window, the replay scrubber and the headless subcommands,
//! glue over `sandglass-sim` (the rules) and `sandglass-store` (saved games).
//!
//! * `cli`: the headless subcommands; no window, nothing drawn.
//! * `identity`: the player's key pair, which signs the games `submit` sends.
//! * `online`: signed requests to the server the player named; `dealer` sends a dealt
//!   run's commands to it and takes back the draws it deals, and `streamer` sends a run
//!   of a day that cannot be dealt as it is played, each on a thread of its own.
//! * `input`: keys, prompts and message paging; nothing drawn.
//! * `live`: a game watched while it is played, as a server streams it; nothing drawn.
//! * `play`: the game controller, keys in and commands out; `errand` (travel, run,
//!   explore, rest) and `look` (a cell in words) beside it; nothing drawn.
//! * `timing`: an actor's energy as figures, for the side bar and the energy panel.
//! * `window`: the macroquad frame loop and the screens that draw the rest.
//!
//! Built for `wasm32` (the web replay viewer, `window::web`), the library is the replay
//! screen and what it draws with: the subcommands and live play, which need saved games,
//! files and threads, are left out.

#[cfg(not(target_arch = "wasm32"))]
pub mod cli;
#[cfg(not(target_arch = "wasm32"))]
pub mod dealer;
pub mod errand;
#[cfg(not(target_arch = "wasm32"))]
pub mod identity;
pub mod input;
pub mod live;
pub mod look;
pub mod meetings;
#[cfg(not(target_arch = "wasm32"))]
pub mod morgue;
#[cfg(not(target_arch = "wasm32"))]
pub mod online;
#[cfg(not(target_arch = "wasm32"))]
pub mod play;
pub mod report;
pub mod seed;
pub mod settings;
#[cfg(not(target_arch = "wasm32"))]
pub mod streamer;
pub mod tally;
#[cfg(not(target_arch = "wasm32"))]
pub mod telling;
pub mod timing;
pub mod warnings;
pub mod window;
