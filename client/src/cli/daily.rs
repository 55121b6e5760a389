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
use sandglass_claim::{daily_deal_content, daily_start_content};
use sandglass_protocol::daily::{Day, Started};
use sandglass_protocol::dealt::Dealing;
use sandglass_sim::bot::Bot;
use sandglass_sim::{Command, Game, Header, Rules, RulesVersion, Ruleset, State};
use sandglass_store::{GameId, Session, Status, Store, Stream};
use serde::de::DeserializeOwned;

use super::progress::open_store;
use super::submit::remember;
use crate::dealer::{check_hash, Dealer, DealtRun};
use crate::online::Server;
use crate::settings::{self, Settings};
use crate::streamer::{Sending, Streamer};

/// How long starting the day's run may take.
const TIMEOUT: Duration = Duration::from_secs(20);

/// The day's run for this player: found among the saved games, or begun on the server
/// and made here. Returns the game, and whether it is still to be played.
///
/// A day under rules whose draws say nothing of the next is dealt: the server keeps its
/// seed until the day is over and deals each step's draws (`crate::dealer`), so that no
/// second game can walk the desert ahead. A day under older rules is started, its seed
/// handed over, and streamed as it is played (`crate::streamer`).
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
    let day: Day = ask(&server, &format!("/daily/{today}/{}.json", ruleset.name()))
        .context("to see today's desert")?;
    let version = RulesVersion::kept(day.rules).with_context(|| {
        format!(
            "today's desert on {} is played under rules {}, which this build does not play",
            server.base, day.rules
        )
    })?;
    let rules = Rules::new(version, ruleset);
    let id = match rules.can_be_dealt() {
        true => deal(store, &server, &day, rules)?,
        false => start(store, &server, &day, rules)?,
    };
    remember(config, &server);
    Ok((id, true))
}

/// Begins the day's dealt run on `server` and makes its game here from the first
/// level's draws, checked against the server's hash. Its header's seed is 0: the
/// server keeps the run's.
fn deal(store: &Store, server: &Server, day: &Day, rules: Rules) -> anyhow::Result<GameId> {
    let path = format!("/daily/{}/{}/deal", day.day, day.ruleset);
    let dealing: Dealing = post(server, &path, daily_deal_content(&day.day, &day.ruleset))?;
    let stream = stream_of(server, dealing.run, &dealing.day);
    let game_name = store.free_name(&format!("daily {} {}", dealing.day, day.ruleset))?;
    let header = Header::of(rules, 0, dealing.started);
    let session =
        store.create_dealt(&game_name, header, &stream, &dealing.opening.draws, &mut ())?;
    let id = session.meta().id;
    if let Err(error) = check_hash(session.state(), &dealing.opening) {
        drop(session);
        store.delete(id)?;
        return Err(error);
    }
    Ok(id)
}

/// Starts the day's run on `server`, its seed handed over, and makes its game here.
fn start(store: &Store, server: &Server, day: &Day, rules: Rules) -> anyhow::Result<GameId> {
    let path = format!("/daily/{}/{}/start", day.day, day.ruleset);
    let started: Started = post(server, &path, daily_start_content(&day.day, &day.ruleset))?;
    let seed: u64 = started
        .seed
        .parse()
        .context("the server's seed is not a number")?;
    let created = jiff::Timestamp::now().as_second().max(0) as u64;
    let stream = stream_of(server, started.run, &started.day);
    let game_name = store.free_name(&format!("daily {} {}", started.day, day.ruleset))?;
    let header = Header::of(rules, seed, created);
    let session = store.create_streamed(&game_name, header, Some(&stream), &mut ())?;
    Ok(session.meta().id)
}

fn stream_of(server: &Server, run: i64, day: &str) -> Stream {
    Stream {
        server: server.base.clone(),
        run,
        player: server.name.clone(),
        day: day.to_owned(),
    }
}

/// What `server` answers a GET of `path`, read as JSON.
fn ask<T: DeserializeOwned>(server: &Server, path: &str) -> anyhow::Result<T> {
    let answer = server
        .get(path)
        .with_context(|| format!("cannot reach {}", server.base))?;
    if !answer.ok() {
        bail!("{} answered: {}", server.base, answer.words);
    }
    serde_json::from_str(&answer.words)
        .with_context(|| format!("{} answered what does not read", server.base))
}

/// What `server` answers a signed POST of `path` over `content`, read as JSON.
fn post<T: DeserializeOwned>(server: &Server, path: &str, content: [u8; 32]) -> anyhow::Result<T> {
    let answer = server
        .post_signed(path, content, &[])
        .with_context(|| format!("cannot reach {} to begin today's desert", server.base))?;
    if !answer.ok() {
        bail!(
            "{} would not begin today's desert: {}",
            server.base,
            answer.words
        );
    }
    serde_json::from_str(&answer.words)
        .with_context(|| format!("{} answered what is not a run", server.base))
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
/// `pace` apart. A dealt run's every command waits for its draws; a streamed run's steps
/// are sent as they are made durable, and at the end the bot waits up to `patience` for
/// the server to hold every one. Prints the run's game and how the sending stood.
pub fn play_by_bot(
    data_dir: &Path,
    (server, name, config): (String, String, std::path::PathBuf),
    ruleset: Ruleset,
    bot_run: BotRun,
) -> anyhow::Result<()> {
    let store = open_store(data_dir)?;
    let (id, open) = open_run(&store, &server, &name, ruleset, &config)?;
    let stream = store
        .stream_of(id)?
        .context("the run's game does not say its run")?;
    println!("run {} game {id}", stream.run);
    let stream_run = stream.run;
    if store.is_dealt(id)? {
        let dealer = Dealer::start(stream, config);
        if open {
            let mut session = store.resume(id)?;
            let mut run = DealtRun {
                session: &mut session,
                dealer: &dealer,
            };
            run.resend()?;
            bot_plays(&mut run, Bot::new(stream_run as u64), &bot_run)?;
        }
        let events = store.meta(id)?.events;
        println!("sent {events} of {events} events");
        return Ok(());
    }
    let streamer = Streamer::start(store.clone(), id, stream, config);
    if open {
        let mut session = store.resume(id)?;
        let bot = Bot::new(session.meta().header.seed);
        bot_plays(&mut StreamedRun(&mut session, &streamer), bot, &bot_run)?;
    }
    streamer.wake();
    let events = store.meta(id)?.events;
    match streamer.finish(bot_run.patience) {
        Sending::Live { sent } if sent == events => println!("sent {sent} of {events} events"),
        Sending::Live { sent } | Sending::Waiting { sent, .. } => {
            bail!("only {sent} of {events} events reached the server; the rest are sent next time")
        }
        Sending::Refused(why) => bail!("the server refused the run: {why}"),
    }
    Ok(())
}

/// A streamed run's game: each step sent once it is durable.
struct StreamedRun<'a>(&'a mut Session, &'a Streamer);

impl Game for StreamedRun<'_> {
    type Error = anyhow::Error;

    fn state(&self) -> &State {
        self.0.state()
    }

    fn play(&mut self, command: Command) -> anyhow::Result<()> {
        self.0.play(command)?;
        self.1.wake();
        Ok(())
    }
}

/// The bot plays `game`, a run of the day, as `bot_run` says, and prints what it played.
fn bot_plays<G>(game: &mut G, mut bot: Bot, bot_run: &BotRun) -> anyhow::Result<()>
where
    G: Game<Error = anyhow::Error>,
{
    let mut played = 0;
    while played < bot_run.commands && game.state().outcome().is_none() {
        if bot.play(game, 1)? == 0 {
            break;
        }
        played += 1;
        if bot_run.report_steps {
            // When the step was durable, by the wall clock a viewer on this machine
            // reads too: for the benchmark from a durable step to a viewer.
            let now = std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .unwrap_or_default();
            println!(
                "durable {} {}",
                game.state().events_folded(),
                now.as_micros()
            );
        }
        std::thread::sleep(bot_run.pace);
    }
    let state = game.state();
    println!(
        "played {played} commands: {} events, {}, hash 0x{:016x}",
        state.events_folded(),
        Status::of(state).name(),
        state.hash()
    );
    Ok(())
}
