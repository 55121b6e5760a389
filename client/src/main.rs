//! The `sandglass` binary: the command line, and which part of the client each
//! subcommand runs. Everything it does lives in the `sandglass` library. Built for
//! `wasm32`, it is the web replay viewer (`sandglass::window::web`) instead.

#[cfg(target_arch = "wasm32")]
fn main() {
    sandglass::window::web::run();
}

#[cfg(not(target_arch = "wasm32"))]
fn main() -> std::process::ExitCode {
    command_line::main()
}

/// The command line: a native build's only.
#[cfg(not(target_arch = "wasm32"))]
mod command_line {
    use std::io::Write;
    use std::path::PathBuf;
    use std::process::ExitCode;
    use std::time::Duration;

    use clap::{CommandFactory, Parser, Subcommand};
    use clap_complete::Shell;
    use sandglass::cli::{self, games, RulesetArg};
    use sandglass::window::{self, Opening, Options};

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
        #[command(subcommand)]
        command: Option<Cmd>,
    }

    #[derive(Subcommand)]
    enum Cmd {
        /// Open the window on a new game (with no subcommand, it opens on the start screen).
        Play {
            /// The game's seed (default: a random one): digits are the number they spell,
            /// any other text is hashed (xxh3-64 of its UTF-8 bytes), as the start screen's
            /// "New seeded game" does, so a seed shared as a phrase starts the same game.
            #[arg(long, value_parser = sandglass::seed::parse)]
            seed: Option<u64>,
            #[arg(long, default_value = "nethack")]
            ruleset: RulesetArg,
        },
        /// Open the window on a saved game, by name or number.
        Load { game: String },
        /// Watch a saved game or a replay file on a timeline: scrub, step, take over. A name
        /// that holds a `/` or ends in `.sgr` is a file.
        Replay {
            #[arg(value_name = "GAME|FILE.sgr")]
            replay: String,
        },
        /// Watch a game while it is played on a server, on the replay's timeline: it grows as
        /// the game goes on; scrub back, step, take over, and End returns to live.
        Watch {
            /// The run's address, `{server}/runs/{run}` (or its `/live` form).
            url: String,
        },
        /// Run a scenario file headless and print one JSON line per action taken.
        Trace {
            scenario: PathBuf,
            /// Run ticks 1..=N.
            #[arg(long)]
            ticks: u64,
        },
        #[command(flatten)]
        Games(games::GamesCmd),
        /// The high-score table: every stored game, scored by folding its own log and checking
        /// every draw and hash; a game that does not check out is listed but never ranked. A
        /// game's fold is remembered while its log stays as it was proved.
        Scores {
            /// One JSON object per line per game (rank, name, score, status, verified, ...).
            #[arg(long)]
            json: bool,
            /// Fold every game again, whatever was remembered, and report (and replace) any
            /// remembered score its log does not support; exits non-zero if there was one.
            #[arg(long)]
            recheck: bool,
        },
        /// Check replays: fold each from its header, regenerating every draw from the seed, and
        /// check every hash checkpoint and the final hash. Prints one line per replay (`ok` or
        /// `FAIL` with the first event where it went wrong); exits non-zero if any failed.
        Verify {
            /// Replay files (`.sgr`) and saved games (names or numbers). A name that holds a `/`
            /// or ends in `.sgr` is a file.
            #[arg(required = true, value_name = "FILE.sgr|GAME")]
            replays: Vec<String>,
            /// One JSON object per line per replay: replay, kind (file or game), ok, and
            /// rules_version, events, commands, draws and hash, or error and event (null when
            /// it is no one event).
            #[arg(long)]
            json: bool,
        },
        /// Print the map's keys as bound: the keymap file (`keys.txt` in the config folder)
        /// or the defaults, in the file's own form, one action a line.
        Keys {
            /// Write the default keys to `keys.txt` in the config folder, to edit there
            /// (an existing file is left as it is).
            #[arg(long)]
            write: bool,
        },
        /// Send a game to a server that ranks games by folding their logs, signed with
        /// your key (made on first use, kept beside the settings). Nothing is sent to a
        /// server you did not name; the server and name are remembered once one is taken.
        Submit {
            /// A saved game (name or number) or a replay file. A name that holds a `/` or
            /// ends in `.sgr` is a file.
            #[arg(value_name = "GAME|FILE.sgr")]
            replay: String,
            /// The server's URL, e.g. http://127.0.0.1:8080 (default: the last one used).
            #[arg(long, value_name = "URL")]
            server: Option<String>,
            /// The name to play under there: it belongs to the first key that claims it
            /// (default: the last one used).
            #[arg(long)]
            name: Option<String>,
            /// Send to this server over plain HTTP, not on this machine, though anyone on
            /// the way could read the game and send it first as theirs (remembered for it).
            #[arg(long)]
            over_plain_http: bool,
        },
        /// Play today's daily desert: one seed a day for every player, fixed in advance
        /// by the server named (--server, or the one remembered) and kept there until
        /// the day is over, one try each. The server deals each step's draws as it is
        /// played, so nobody can walk the desert ahead; while it cannot be reached the
        /// run waits, and goes on by itself when it can. Run again the same day, it goes
        /// on with the day's run.
        Daily {
            #[arg(long, default_value = "nethack")]
            ruleset: RulesetArg,
            /// The server's URL (default: the last one used).
            #[arg(long, value_name = "URL")]
            server: Option<String>,
            /// The name to play under there (default: the last one used).
            #[arg(long)]
            name: Option<String>,
            /// Play against this server over plain HTTP, not on this machine, though anyone
            /// on the way could read and take the run's steps (remembered for it).
            #[arg(long)]
            over_plain_http: bool,
            /// Let the built-in bot play up to this many commands of the run, headless
            /// (for tests and demonstrations: it spends the day's one try).
            #[arg(long, hide = true)]
            bot: Option<u64>,
            /// With --bot: milliseconds between the bot's commands.
            #[arg(long, hide = true, default_value_t = 0)]
            pace_ms: u64,
            /// With --bot: seconds to wait at the end for the server to hold every step.
            #[arg(long, hide = true, default_value_t = 60)]
            wait_s: u64,
            /// With --bot: print `durable EVENTS MICROS` (since the epoch) after each step.
            #[arg(long, hide = true)]
            report_steps: bool,
        },
        /// Print the completion script for a shell.
        ///
        /// For bash, for instance: `sandglass completions bash >
        /// ~/.local/share/bash-completion/completions/sandglass`.
        Completions { shell: Shell },
    }

    pub fn main() -> ExitCode {
        let Cli {
            data_dir,
            config_dir,
            command,
        } = Cli::parse();
        let data_dir = data_dir.as_deref();
        let window = |opening| {
            let options = Options {
                data_dir: cli::data_dir_or_default(data_dir)?,
                config_dir: sandglass::settings::config_dir(config_dir.as_deref()),
                frame_stats: None,
            };
            window::run(opening, options)
        };
        let result = match command {
            Some(Cmd::Trace { scenario, ticks }) => cli::trace::run(&scenario, ticks),
            Some(Cmd::Games(cmd)) => games::run(cmd, data_dir),
            Some(Cmd::Scores { json, recheck }) => cli::data_dir_or_default(data_dir)
                .and_then(|dir| cli::scores::run(&dir, json, recheck)),
            Some(Cmd::Verify { replays, json }) => cli::verify::run(&replays, data_dir, json),
            Some(Cmd::Submit {
                replay,
                server,
                name,
                over_plain_http,
            }) => cli::submit::run(
                &replay,
                cli::submit::Named {
                    server,
                    name,
                    over_plain_http,
                },
                data_dir,
                config_dir.as_deref(),
            ),
            Some(Cmd::Completions { shell }) => completions(shell),
            Some(Cmd::Keys { write }) => cli::keys::run(
                sandglass::settings::config_dir(config_dir.as_deref()).as_deref(),
                write,
            ),
            Some(Cmd::Play { seed, ruleset }) => window(Opening::NewGame {
                seed,
                ruleset: ruleset.0,
            }),
            Some(Cmd::Load { game }) => window(Opening::Load(game)),
            Some(Cmd::Daily {
                ruleset,
                server,
                name,
                over_plain_http,
                bot,
                pace_ms,
                wait_s,
                report_steps,
            }) => cli::daily::named_server(
                cli::submit::Named {
                    server,
                    name,
                    over_plain_http,
                },
                config_dir.as_deref(),
            )
            .and_then(|named| {
                let dir = cli::data_dir_or_default(data_dir)?;
                match bot {
                    Some(commands) => cli::daily::play_by_bot(
                        &dir,
                        named,
                        ruleset.0,
                        cli::daily::BotRun {
                            commands,
                            pace: Duration::from_millis(pace_ms),
                            patience: Duration::from_secs(wait_s),
                            report_steps,
                        },
                    ),
                    None => {
                        let (server, name, config) = named;
                        let store = cli::progress::open_store(&dir)?;
                        let (id, _) =
                            cli::daily::open_run(&store, &server, &name, ruleset.0, &config)?;
                        drop(store);
                        window(Opening::Load(id.to_string()))
                    }
                }
            }),
            Some(Cmd::Replay { replay }) => window(Opening::Replay(replay)),
            Some(Cmd::Watch { url }) => {
                use sandglass::live::{stream::watch, SILENT_FOR};
                watch(&url, sandglass::window::ring, SILENT_FOR)
                    .and_then(|watched| window(Opening::Watch(Box::new(watched))))
            }
            None => window(Opening::Menu),
        };
        match result {
            Ok(()) => ExitCode::SUCCESS,
            Err(error) => {
                cli::say_on_stderr(&format!("{error:#}"));
                ExitCode::FAILURE
            }
        }
    }

    /// Written whole to stdout once made: clap_complete panics on a failed write, where a
    /// closed pipe should be one line of error like any other.
    fn completions(shell: Shell) -> anyhow::Result<()> {
        let mut script = vec![];
        clap_complete::generate(shell, &mut Cli::command(), "sandglass", &mut script);
        std::io::stdout().write_all(&script)?;
        Ok(())
    }
}
