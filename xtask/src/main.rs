//! `cargo xtask`: the developers' tools, kept out of the shipped binary.
//!
//! * `record-goldens DIR`: plays and writes the newest rules version's golden replays,
//!   their README and manifest, into `DIR/v<N>/`; refuses a folder already recorded.
//! * `bench-window`: the window's frame loop under a crowd, for BENCHMARKS.md.
//! * `bot-report`: how the bot fares over many seeds.
//! * `bench-history`: the score table, lists and `verify` over ten thousand stored games.
//! * `web`: the web replay viewer's page, built into `web/dist/`; `--serve` serves it.

mod goldens;
mod history;
mod play_report;
mod web;

use std::path::PathBuf;
use std::process::ExitCode;

use clap::{Parser, Subcommand};
use sandglass::window::{self, BenchArgs, Opening, Options};

#[derive(Parser)]
#[command(name = "cargo xtask")]
struct Cli {
    #[command(subcommand)]
    command: Cmd,
}

#[derive(Subcommand)]
enum Cmd {
    /// Record the newest rules version's golden replays into DIR/v<N>/ (with README and
    /// SHA256SUMS) from the table in xtask/src/goldens.rs; a kept version's are never
    /// recorded again.
    RecordGoldens { dir: PathBuf },
    /// Open the window on a crowd of creatures on a real level and measure frame times.
    BenchWindow {
        #[command(flatten)]
        bench: BenchArgs,
        /// Write the frame time statistics here when the window closes.
        #[arg(long, value_name = "FILE")]
        frame_stats: Option<PathBuf>,
    },
    /// Let the bot play a game on each of seeds 1..=N under both rulesets, and report how
    /// the games went: wins, deaths by cause, kills by species, errands refused, commands
    /// dropped, growth by depth and the kinds of ground met.
    PlayReport {
        #[arg(long, default_value_t = 100)]
        seeds: u64,
        /// The rules version to play under: the newest unless named, so that a rules
        /// change can be weighed against the version before it.
        #[arg(long, value_name = "VERSION")]
        rules: Option<u16>,
    },
    /// Build a data directory of many short finished games and time the score table (with
    /// verdicts stored and with none), `saves`, the Load list and `verify` of every game on
    /// one core and on all. Run `cargo build --release` first: it times that binary.
    BenchHistory {
        #[arg(long, default_value_t = 10_000)]
        games: u64,
        /// Commands the bot plays in each game before it quits.
        #[arg(long, default_value_t = 20)]
        commands: u64,
        /// Build the games here and keep them (a directory that exists is used as it is);
        /// by default a directory removed after.
        #[arg(long, value_name = "DIR")]
        dir: Option<PathBuf>,
    },
    /// Build the web replay viewer for wasm32-unknown-unknown into web/dist/ (the page,
    /// its .wasm and macroquad's loader).
    Web {
        /// Then serve the workspace on 127.0.0.1 (python3's http.server): the page at
        /// /web/dist/, the goldens under /replays/.
        #[arg(long)]
        serve: bool,
        #[arg(long, default_value_t = 8000)]
        port: u16,
    },
}

fn main() -> ExitCode {
    let result = match Cli::parse().command {
        Cmd::RecordGoldens { dir } => goldens::run(&dir),
        Cmd::BenchWindow { bench, frame_stats } => bench_window(bench, frame_stats),
        Cmd::PlayReport { seeds, rules } => play_report::run(seeds, rules),
        Cmd::BenchHistory {
            games,
            commands,
            dir,
        } => history::run(games, commands, dir),
        Cmd::Web { serve, port } => web::run(serve.then_some(port)),
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(error) => {
            eprintln!("xtask: {error:#}");
            ExitCode::FAILURE
        }
    }
}

/// The benchmark keeps nothing: its data and settings go to a directory removed after.
fn bench_window(bench: BenchArgs, frame_stats: Option<PathBuf>) -> anyhow::Result<()> {
    let scratch = tempfile::tempdir()?;
    let options = Options {
        data_dir: scratch.path().join("data"),
        config_dir: None,
        frame_stats,
    };
    window::run(Opening::Bench(bench), options)
}
