//! What every handler shares: the application state (`App`: the database's pool, the
//! object store, the settings, and what this process keeps for its live runs and
//! metrics) and the settings the server was started with (`Config`). Below the router
//! and every handler, so that the router imports the handlers and the handlers import
//! this, and neither imports the other back.

use std::path::PathBuf;
use std::sync::Arc;

use axum::http::StatusCode;
use deadpool_postgres::Pool;
use sandglass_claim::{Claim, ClaimError};
use sandglass_sim::drive::{Live, Verifier};
use tokio::sync::{watch, Semaphore};

use crate::counters::Counters;
use crate::fanout::Fanout;
use crate::folds::LiveFolds;
use crate::limits::{Admission, Limits};
use crate::objects::Objects;
use crate::refusal::Refusal;

/// The settings `serve` was started with, from its command line.
pub struct Config {
    /// The URL players reach this server at, without a slash at its end: what their
    /// signatures name, and what links to it are written with.
    pub public_url: String,
    /// The web replay viewer's page.
    pub viewer: String,
    /// The viewer's folder, served at `/viewer/`, if the server was given it.
    pub web: Option<PathBuf>,
    pub most_bytes: u64,
    /// The bytes all uploads in flight may hold at once.
    pub uploads_in_flight: u64,
    pub limits: Limits,
    /// Turns a live view is held behind the game (for tournaments); 0 for none.
    pub live_delay_turns: u64,
}

impl Config {
    /// The server URLs a signature may name for this server: its public URL and, when
    /// that is on this machine, the same port under this machine's other names (a
    /// player who typed `localhost` for `127.0.0.1`). A claim naming any of them can be
    /// sent to no other server.
    pub fn names(&self) -> Vec<String> {
        const LOCAL: [&str; 3] = ["127.0.0.1", "localhost", "[::1]"];
        let mut names = vec![self.public_url.clone()];
        for scheme in ["http://", "https://"] {
            let Some(rest) = self.public_url.strip_prefix(scheme) else {
                continue;
            };
            let (host, port) = match rest.rsplit_once(':') {
                Some((host, port)) if !port.contains(']') => (host, format!(":{port}")),
                _ => (rest, String::new()),
            };
            if LOCAL.contains(&host) {
                names.extend(
                    LOCAL
                        .iter()
                        .filter(|other| **other != host)
                        .map(|other| format!("{scheme}{other}{port}")),
                );
            }
        }
        names
    }
}

/// What every handler is given: the same for every request, cloned for each.
#[derive(Clone)]
pub struct App {
    pub pool: Pool,
    pub objects: Objects,
    pub config: Arc<Config>,
    /// The streamed runs this process is folding along as their stretches come.
    pub live_folds: Arc<LiveFolds<Verifier>>,
    /// The dealt runs this process is playing along as their commands come.
    pub dealt_folds: Arc<LiveFolds<Live>>,
    /// The runs watched live through this process.
    pub fanout: Arc<Fanout>,
    /// The bytes that uploads in flight may hold, all together: a permit a byte.
    pub uploads: Arc<Semaphore>,
    /// Becomes true when the server is stopping.
    pub stop: watch::Receiver<bool>,
    /// What this process has counted, for `/metrics`.
    pub counters: Arc<Counters>,
    /// The limits posts are admitted by before their bodies are read.
    pub admission: Arc<Admission>,
}

impl App {
    /// A process's state at its start: nothing kept yet, nothing counted.
    pub fn new(pool: Pool, objects: Objects, config: Config, stop: watch::Receiver<bool>) -> App {
        let uploads = usize::try_from(config.uploads_in_flight)
            .unwrap_or(usize::MAX)
            .min(Semaphore::MAX_PERMITS);
        App {
            pool,
            objects,
            config: Arc::new(config),
            live_folds: Arc::default(),
            dealt_folds: Arc::default(),
            fanout: Arc::default(),
            uploads: Arc::new(Semaphore::new(uploads)),
            stop,
            counters: Arc::default(),
            admission: Arc::default(),
        }
    }

    /// Checks that `player`, under `key`, signed a claim over `content` to this server.
    pub fn check_claim(
        &self,
        player: &str,
        content: [u8; 32],
        key: &str,
        signature: &str,
    ) -> Result<(), Refusal> {
        let mut error = None;
        for server in self.config.names() {
            let claim = Claim {
                server: &server,
                player,
                content,
            };
            match claim.check(key, signature) {
                Ok(()) => return Ok(()),
                Err(e) => error = Some(e),
            }
        }
        let words = match error.expect("a server has at least one name") {
            // A client that signed for another URL (the server behind a proxy, named
            // another way) is told which one this server goes by.
            ClaimError::Forged => {
                format!(
                    "{} (this server is {})",
                    ClaimError::Forged,
                    self.config.public_url
                )
            }
            e => e.to_string(),
        };
        Err(Refusal::new(StatusCode::UNAUTHORIZED, words))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn config(public_url: &str) -> Config {
        Config {
            public_url: public_url.to_owned(),
            viewer: String::new(),
            web: None,
            most_bytes: 0,
            uploads_in_flight: 0,
            limits: Limits {
                burst: 1,
                per_minute: 1,
            },
            live_delay_turns: 0,
        }
    }

    #[test]
    fn a_server_on_this_machine_goes_by_each_of_its_names() {
        assert_eq!(
            config("http://127.0.0.1:8080").names(),
            [
                "http://127.0.0.1:8080",
                "http://localhost:8080",
                "http://[::1]:8080"
            ]
        );
        assert_eq!(
            config("https://localhost").names(),
            ["https://localhost", "https://127.0.0.1", "https://[::1]"]
        );
        assert_eq!(config("http://[::1]:80").names().len(), 3);
        assert_eq!(
            config("https://sandglass.example").names(),
            ["https://sandglass.example"]
        );
        assert_eq!(
            config("http://127.0.0.1.example:80").names(),
            ["http://127.0.0.1.example:80"]
        );
    }
}
