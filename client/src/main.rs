//! The `sandglass` binary: the window, the replay scrubber and the headless subcommands.
//! It is glue over `sandglass-core`, which owns the rules and their errors.

use std::path::PathBuf;
use std::process::ExitCode;

use clap::{Parser, Subcommand};

// The game screen that drives these modules is not written yet; until it is, only the
// tests use them.
#[cfg_attr(not(test), allow(dead_code))]
mod keys;
#[cfg_attr(not(test), allow(dead_code))]
mod prompt;
#[cfg_attr(not(test), allow(dead_code))]
mod settings;
mod trace;

mod games;

#[derive(Parser)]
#[command(
    name = "sandglass",
    version,
    about = "A camel crosses the desert. Every move is saved."
)]
struct Cli {
    /// Where saved games live (default: the platform's data folder for sandglass).
    #[arg(long, global = true, value_name = "DIR")]
    data_dir: Option<PathBuf>,
    #[command(subcommand)]
    command: Option<Cmd>,
}

#[derive(Subcommand)]
enum Cmd {
    /// Run a scenario file headless and print one JSON line per action taken.
    Trace {
        scenario: PathBuf,
        /// Run ticks 1..=N.
        #[arg(long)]
        ticks: u64,
    },
    #[command(flatten)]
    Games(games::GamesCmd),
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    let result = match cli.command {
        Some(Cmd::Trace { scenario, ticks }) => trace::run(&scenario, ticks),
        Some(Cmd::Games(cmd)) => games::run(cmd, cli.data_dir.as_deref()),
        None => {
            println!("The window is not built yet; try `sandglass trace scenarios/speeds.toml --ticks 6`.");
            Ok(())
        }
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(error) => {
            eprintln!("sandglass: {error:#}");
            ExitCode::FAILURE
        }
    }
}
