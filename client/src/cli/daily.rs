//! `sandglass daily [--ruleset R] [--server URL] [--name NAME]`: today's desert, the
//! same seed for every player, one try each, streamed to the server as it is played.
//!
//! The seed comes only from the server, by starting the run; the game is then an
//! ordinary saved game that also remembers its run (`Store::stream_of`), so that it is
//! sent on whenever it is played, here or after a crash. Run again the same day, the
//! command goes on with the day's run rather than asking for another.

use std::path::Path;
use std::time::Duration;

use anyhow::{bail, Context};
use sandglass_claim::daily_start_content;
use sandglass_protocol::daily::Started;
use sandglass_sim::bot::Bot;
use sandglass_sim::{Header, Rules, RulesVersion, Ruleset};
use sandglass_store::{GameId, Status, Store, Stream};

use super::progress::open_store;
use super::submit::remember;
use crate::online::Server;
use crate::settings::{self, Settings};
use crate::streamer::{Sending, Streamer};

/// How long starting the day's run may take.
const TIMEOUT: Duration = Duration::from_secs(20);

/// The day's run for this player: found among the saved games, or started on the server
/// and made here. Returns the game, and whether it is still to be played.
pub fn open_run(
    store: &Store,
    server: &str,
    name: &str,
    ruleset: Ruleset,
    config: &Path,
) -> anyhow::Result<(GameId, bool)> {
    let server = Server::new(server, name, config, TIMEOUT)?;
    let today = jiff::Timestamp::now().strftime("%Y-%m-%d").to_string();
    if let Some((id, status)) = local_run(store, &server, &today, ruleset)? {
        return Ok((id, status == Status::Alive));
    }
    let path = format!("/daily/{today}/{}/start", ruleset.name());
    let answer = server
        .post_signed(&path, daily_start_content(&today, ruleset.name()), &[])
        .with_context(|| format!("cannot reach {} to start today's desert", server.base))?;
    if !answer.ok() {
        bail!(
            "{} would not start today's desert: {}",
            server.base,
            answer.words
        );
    }
    let started: Started = serde_json::from_str(&answer.words)
        .with_context(|| format!("{} answered what is not a run", server.base))?;
    remember(config, &server);
    let seed: u64 = started
        .seed
        .parse()
        .context("the server's seed is not a number")?;
    let version = RulesVersion::kept(started.rules).with_context(|| {
        format!(
            "today's desert on {} is played under rules {}, which this build does not play",
            server.base, started.rules
        )
    })?;
    let rules = Rules::new(version, ruleset);
    let created = jiff::Timestamp::now().as_second().max(0) as u64;
    let stream = Stream {
        server: server.base.clone(),
        run: started.run,
        player: server.name.clone(),
        day: started.day.clone(),
    };
    let game_name = store.free_name(&format!("daily {} {}", started.day, ruleset.name()))?;
    let session = store.create_streamed(
        &game_name,
        Header::of(rules, seed, created),
        Some(&stream),
        &mut (),
    )?;
    Ok((session.meta().id, true))
}

/// Today's run on this server for this player, if a saved game holds it, and how it
/// stands.
fn local_run(
    store: &Store,
    server: &Server,
    today: &str,
    ruleset: Ruleset,
) -> anyhow::Result<Option<(GameId, Status)>> {
    for meta in store.games()? {
        let Some(stream) = store.stream_of(meta.id)? else {
            continue;
        };
        if stream.server == server.base
            && stream.player == server.name
            && stream.day == today
            && meta.header.ruleset == ruleset
        {
            return Ok(Some((meta.id, meta.status)));
        }
    }
    Ok(None)
}

/// The server and name from the flags or the settings, and the config folder.
pub fn named_server(
    named: super::submit::Named,
    config_dir: Option<&Path>,
) -> anyhow::Result<(String, String, std::path::PathBuf)> {
    let config = settings::config_dir(config_dir)
        .context("cannot find this system's config folder; choose one with --config-dir DIR")?;
    let settings = Settings::load(&config);
    let server = named.server.clone().or(settings.server).context(
        "name the server whose daily desert to play with --server URL (it is remembered)",
    )?;
    named.remember_plain_http(&server, &config);
    let name = named.name.or(settings.player).context(
        "name yourself with --name NAME: the server gives the name to the first key that \
         claims it (it is remembered)",
    )?;
    Ok((server, name, config))
}

/// How the bot plays a day's run (`sandglass daily --bot`).
pub struct BotRun {
    /// Commands to play at most.
    pub commands: u64,
    /// The wait between two commands.
    pub pace: Duration,
    /// How long to wait at the end for the server to hold every step.
    pub patience: Duration,
    /// Print each step's events and the moment it was durable.
    pub report_steps: bool,
}

/// `sandglass daily --bot N`: the built-in bot plays up to N commands of the day's run,
/// each step sent as it is made durable, `pace` apart; then waits up to `patience` for
/// the server to hold every step. Prints the run's game and how the sending stood.
pub fn play_by_bot(
    data_dir: &Path,
    (server, name, config): (String, String, std::path::PathBuf),
    ruleset: Ruleset,
    bot_run: BotRun,
) -> anyhow::Result<()> {
    let BotRun {
        commands,
        pace,
        patience,
        report_steps,
    } = bot_run;
    let store = open_store(data_dir)?;
    let (id, open) = open_run(&store, &server, &name, ruleset, &config)?;
    let stream = store
        .stream_of(id)?
        .context("the run's game does not say its run")?;
    println!("run {} game {id}", stream.run);
    let streamer = Streamer::start(store.clone(), id, stream, config);
    if open {
        let mut session = store.resume(id)?;
        let mut bot = Bot::new(session.meta().header.seed);
        let mut played = 0;
        while played < commands && session.state().outcome().is_none() {
            if bot.play(&mut session, 1)? == 0 {
                break;
            }
            played += 1;
            streamer.wake();
            if report_steps {
                // When the step was durable, by the wall clock a viewer on this machine
                // reads too: for the benchmark from a durable step to a viewer.
                let now = std::time::SystemTime::now()
                    .duration_since(std::time::UNIX_EPOCH)
                    .unwrap_or_default();
                println!("durable {} {}", session.meta().events, now.as_micros());
            }
            std::thread::sleep(pace);
        }
        println!(
            "played {played} commands: {} events, {}, hash 0x{:016x}",
            session.meta().events,
            session.meta().status.name(),
            session.state().hash()
        );
    }
    streamer.wake();
    let events = store.meta(id)?.events;
    match streamer.finish(patience) {
        Sending::Live { sent } if sent == events => println!("sent {sent} of {events} events"),
        Sending::Live { sent } | Sending::Waiting { sent, .. } => {
            bail!("only {sent} of {events} events reached the server; the rest are sent next time")
        }
        Sending::Refused(why) => bail!("the server refused the run: {why}"),
    }
    Ok(())
}
