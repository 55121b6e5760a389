//! `sandglass submit GAME|FILE.sgr [--server URL] [--name NAME]`: sends a game to a
//! server that ranks games by folding them, signed with the player's key.
//!
//! Nothing is sent to a server the player did not name: `--server`, or the one named
//! before (remembered in the settings). The game is read and checked here first, so a
//! damaged file is refused in `sandglass verify`'s words without being sent.

use std::io::Write;
use std::path::Path;
use std::time::Duration;

use anyhow::{bail, Context};
use sandglass_claim::{check_name, content_hash};
use sandglass_store::sgr;

use super::data_dir_or_default;
use super::progress::{file_label, open_store, with_bar};
use super::verify::is_replay_file;
use crate::online::{closed_on, Server};
use crate::settings::{self, Settings};

/// How long sending one game may take: a game of a million events is about 4 MB.
const TIMEOUT: Duration = Duration::from_secs(120);

/// How many times a game is sent again when the server asks to be tried later.
const MOST_TRIES: u32 = 3;

/// The longest wait a server may ask for that `submit` waits out, rather than giving up
/// with the server's words.
const MOST_WAIT: Duration = Duration::from_secs(60);

/// The server and name a command line gave, if it did.
pub struct Named {
    pub server: Option<String>,
    pub name: Option<String>,
    /// The player accepts plain HTTP to that server (`--over-plain-http`).
    pub over_plain_http: bool,
}

impl Named {
    /// Remembers, for the server named, that its player accepts plain HTTP to it, when
    /// they said so on this command line.
    pub fn remember_plain_http(&self, server: &str, config: &Path) {
        if !self.over_plain_http {
            return;
        }
        let mut settings = Settings::load(config);
        let base = sandglass_claim::server_base(server).to_owned();
        if !settings.plain_http.contains(&base) {
            settings.plain_http.push(base);
            if let Err(error) = settings.save(config) {
                super::say_on_stderr(&format!("cannot remember --over-plain-http: {error}"));
            }
        }
    }
}

pub fn run(
    replay: &str,
    named: Named,
    data_dir: Option<&Path>,
    config_dir: Option<&Path>,
) -> anyhow::Result<()> {
    let config = settings::config_dir(config_dir)
        .context("cannot find this system's config folder; choose one with --config-dir DIR")?;
    let settings = Settings::load(&config);
    let server = named
        .server
        .clone()
        .or_else(|| settings.server.clone())
        .context(
            "name the server to send it to with --server URL (it is remembered for next time)",
        )?;
    named.remember_plain_http(&server, &config);
    let name = named.name.or_else(|| settings.player.clone()).context(
        "name yourself with --name NAME: the server gives the name to the first key that \
         claims it, and this one's key is made for you (it is remembered for next time)",
    )?;
    check_name(&name)?;
    let (label, bytes) = read(replay, data_dir)?;
    let words = send(&bytes, &label, &server, &name, &config)?;
    writeln!(std::io::stdout(), "{label}: {words}")?;
    Ok(())
}

/// Sends the game `bytes` (called `label` in what is said) to `server` under `name`,
/// signed with the player's key (kept in `config`, made on first use); returns the
/// server's words on taking it. Once a server takes a game, it and the name are
/// remembered in the settings, for the next `submit` and the window's Share.
pub fn send(
    bytes: &[u8],
    label: &str,
    server: &str,
    name: &str,
    config: &Path,
) -> anyhow::Result<String> {
    let server = Server::new(server, name, config, TIMEOUT)?;
    let base = &server.base;
    let mut tries = 0;
    let answer = loop {
        let answer = server
            .post_signed("/games", content_hash(bytes), bytes)
            .map_err(|error| {
                if closed_on(&error) {
                    anyhow::anyhow!(
                        "{base} closed the connection while {label} ({} bytes) was sent: it may \
                         be larger than the server takes",
                        bytes.len()
                    )
                } else {
                    anyhow::Error::new(error).context(format!("cannot send {label} to {base}"))
                }
            })?;
        // A server that is busy, or a limit that passes: waited for as the server asks,
        // a few times, when the wait is short.
        match answer.retry_after.filter(|wait| *wait <= MOST_WAIT) {
            Some(wait) if answer.try_later() && tries < MOST_TRIES => {
                tries += 1;
                super::say_on_stderr(&format!(
                    "{base}: {} (trying again in {} s)",
                    answer.words,
                    wait.as_secs()
                ));
                std::thread::sleep(wait);
            }
            _ => break answer,
        }
    };
    if !answer.ok() {
        bail!("{base} refused {label}: {}", answer.words);
    }
    remember(config, &server);
    Ok(answer.words)
}

/// Remembers the server and the name a server took something under, for the next
/// `submit`, `daily` and the window's Share.
pub fn remember(config: &Path, server: &Server) {
    let mut settings = Settings::load(config);
    settings.server = Some(server.base.clone());
    settings.player = Some(server.name.clone());
    if let Err(error) = settings.save(config) {
        super::say_on_stderr(&format!("cannot remember the server and name: {error}"));
    }
}

/// The replay's label and its bytes: a file's, checked as `sandglass verify` checks it,
/// or a saved game's, exported.
fn read(replay: &str, data_dir: Option<&Path>) -> anyhow::Result<(String, Vec<u8>)> {
    if is_replay_file(replay) {
        let path = Path::new(replay);
        let file = sgr::read(path).with_context(|| format!("cannot send {replay}"))?;
        return Ok((file_label(path), sandglass_replay::to_bytes(&file)));
    }
    let store = open_store(&data_dir_or_default(data_dir)?)?;
    let meta = store.find(replay)?;
    let file = with_bar(&meta.name, meta.events, |progress| {
        store.export(meta.id, progress)
    })?;
    Ok((meta.name, sandglass_replay::to_bytes(&file)))
}
