//! The server's parts, as a library so that its tests and benchmarks name the same
//! code the binary runs: `serve` (HTTP), `worker` (the verifier), and what both share.

pub mod app;
mod counters;
pub mod daily;
mod day_pages;
mod days;
pub mod db;
mod dealt;
pub mod edge;
mod fanout;
mod folds;
mod games;
mod html;
pub mod limits;
pub mod live;
mod metrics;
mod names;
pub mod objects;
mod openings;
mod outcome;
mod pages;
mod players;
mod plays;
mod refusal;
mod replays;
pub mod runs;
pub mod serve;
mod submit;
mod upload;
pub mod viewer;
pub mod worker;
