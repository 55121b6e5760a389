//! The `sandglass` binary: the window, the replay scrubber and the headless subcommands.
//! It is glue over `sandglass-core`, which owns the rules and their errors.

use std::path::PathBuf;
use std::process::ExitCode;

use clap::{Parser, Subcommand};
use sandglass_core::Ruleset;

mod keys;
mod prompt;
mod settings;
mod trace;
mod window;

mod games;
mod goldens;
mod verify;

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
    /// Where the window remembers its settings (default: the platform's config folder).
    #[arg(long, global = true, value_name = "DIR")]
    config_dir: Option<PathBuf>,
    /// Write the window's frame time statistics to FILE when it closes (and do not cap
    /// the frame rate), for BENCHMARKS.md.
    #[arg(long, global = true, value_name = "FILE", hide = true)]
    frame_stats: Option<PathBuf>,
    #[command(subcommand)]
    command: Option<Cmd>,
}

#[derive(Subcommand)]
enum Cmd {
    /// Open the window on a new game (with no subcommand, it opens on the start screen).
    Play {
        /// The game's seed (default: a random one).
        #[arg(long)]
        seed: Option<u64>,
        #[arg(long, value_parser = ["nethack", "classic"], default_value = "nethack")]
        ruleset: String,
    },
    /// Open the window on a saved game, by name or number.
    Load { game: String },
    /// Watch a saved game or a replay file on a timeline: scrub, step, take over.
    Replay {
        #[arg(value_name = "GAME|FILE.sgr")]
        replay: String,
    },
    /// Open the window on a crowd of creatures and measure frame times.
    #[command(hide = true)]
    BenchWindow(window::BenchArgs),
    /// Run a scenario file headless and print one JSON line per action taken.
    Trace {
        scenario: PathBuf,
        /// Run ticks 1..=N.
        #[arg(long)]
        ticks: u64,
    },
    #[command(flatten)]
    Games(games::GamesCmd),
    /// Check replays: fold each from its header, regenerating every draw from the seed, and
    /// check every hash checkpoint and the final hash. Prints one line per replay (`ok` or
    /// `FAIL` with the first event where it went wrong); exits non-zero if any failed.
    Verify {
        /// Replay files (`.sgr`) and saved games (names or numbers).
        #[arg(required = true, value_name = "FILE.sgr|GAME")]
        replays: Vec<String>,
    },
    /// Write the golden replays and their README from the table in client/src/goldens.rs.
    #[command(hide = true)]
    RecordGoldens { dir: PathBuf },
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    let result = match cli.command {
        Some(Cmd::Trace { scenario, ticks }) => trace::run(&scenario, ticks),
        Some(Cmd::Games(cmd)) => games::run(cmd, cli.data_dir.as_deref()),
        Some(Cmd::Verify { replays }) => verify::run(&replays, cli.data_dir.as_deref()),
        Some(Cmd::RecordGoldens { dir }) => goldens::run(&dir),
        Some(Cmd::Play { seed, ruleset }) => {
            // The value parser admits only the names `by_name` knows.
            let ruleset = Ruleset::by_name(&ruleset).unwrap_or(Ruleset::NETHACK);
            window_options(&cli.data_dir, cli.config_dir, cli.frame_stats)
                .and_then(|o| window::run(window::Opening::NewGame { seed, ruleset }, o))
        }
        Some(Cmd::Load { game }) => window_options(&cli.data_dir, cli.config_dir, cli.frame_stats)
            .and_then(|o| window::run(window::Opening::Load(game), o)),
        Some(Cmd::Replay { replay }) => {
            window_options(&cli.data_dir, cli.config_dir, cli.frame_stats)
                .and_then(|o| window::run(window::Opening::Replay(replay), o))
        }
        Some(Cmd::BenchWindow(args)) => {
            window_options(&cli.data_dir, cli.config_dir, cli.frame_stats)
                .and_then(|o| window::run(window::Opening::Bench(args), o))
        }
        None => window_options(&cli.data_dir, cli.config_dir, cli.frame_stats)
            .and_then(|o| window::run(window::Opening::Menu, o)),
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(error) => {
            eprintln!("sandglass: {error:#}");
            ExitCode::FAILURE
        }
    }
}

fn window_options(
    data_dir: &Option<PathBuf>,
    config_dir: Option<PathBuf>,
    frame_stats: Option<PathBuf>,
) -> anyhow::Result<window::Options> {
    Ok(window::Options {
        data_dir: games::data_dir_or_default(data_dir.as_deref())?,
        config_dir: settings::config_dir(config_dir.as_deref()),
        frame_stats,
    })
}
