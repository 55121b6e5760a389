//! The HTTP server: the routes, and what every handler shares. It keeps nothing of its
//! own between requests; PostgreSQL and the object store hold everything.

use std::path::PathBuf;
use std::sync::Arc;

use axum::extract::{Path, State};
use axum::http::{header, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use axum::{middleware, Router};
use deadpool_postgres::Pool;
use sandglass_claim::{Claim, ClaimError};
use tokio::net::TcpListener;
use tokio::signal::unix::{signal, SignalKind};
use tokio::sync::{watch, Semaphore};

use crate::edge::{self, Edge};
use crate::limits::{Admission, Limits};
use crate::live::{self, Fanout};
use crate::metrics::{self, Counters};
use crate::names::is_hash;
use crate::objects::Objects;
use crate::refusal::Refusal;
use crate::runs::LiveFolds;
use crate::{daily, day_pages, pages, plays, runs, submit, viewer};

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

impl App {
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

#[derive(Clone)]
pub struct App {
    pub pool: Pool,
    pub objects: Objects,
    pub config: Arc<Config>,
    /// The runs this process is folding along as their stretches come.
    pub live_folds: Arc<LiveFolds>,
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

pub async fn run(
    listener: TcpListener,
    database: tokio_postgres::Config,
    pool: Pool,
    objects: Objects,
    config: Config,
    edge: Edge,
) -> anyhow::Result<()> {
    let (stopping, stop) = watch::channel(false);
    let config_uploads = usize::try_from(config.uploads_in_flight)
        .unwrap_or(usize::MAX)
        .min(Semaphore::MAX_PERMITS);
    let app = App {
        pool: pool.clone(),
        objects,
        config: Arc::new(config),
        live_folds: Arc::default(),
        fanout: Arc::default(),
        uploads: Arc::new(Semaphore::new(config_uploads)),
        stop,
        counters: Arc::default(),
        admission: Arc::default(),
    };
    let listening = tokio::spawn(live::listen(database, pool, app.fanout.clone()));
    let learning = tokio::spawn(plays::learn_older(app.pool.clone(), app.objects.clone()));
    let router = Router::new()
        .route("/", get(pages::board))
        .route("/games", post(submit::submit))
        .route("/games/{hash}", get(pages::game))
        .route("/players/{name}", get(pages::player))
        .route("/daily", get(day_pages::today_page))
        .route("/daily/{day}", get(day_pages::any_day_page))
        .route("/daily/{day}/{file}", get(daily::day_json))
        .route("/daily/{day}/{ruleset}/start", post(daily::start))
        .route("/runs/{run}", get(runs::held))
        .route("/runs/{run}/events", post(runs::append))
        .route("/runs/{run}/live", get(live::live))
        .route("/replays/{file}", get(replay))
        .route(viewer::PATH, get(viewer::index))
        .route(&format!("{}{{file}}", viewer::PATH), get(viewer::file))
        .route("/healthz", get(metrics::healthz))
        .route("/metrics", get(metrics::metrics))
        .layer(middleware::from_fn_with_state(
            app.clone(),
            metrics::log_and_count,
        ))
        .with_state(app);
    // Listened for before the address is announced, so that a stop sent the moment the
    // server is up is a stop, not a kill.
    let mut interrupt = signal(SignalKind::interrupt())?;
    let mut terminate = signal(SignalKind::terminate())?;
    let scheme = if edge.tls.is_some() { "https" } else { "http" };
    println!("listening on {scheme}://{}", listener.local_addr()?);
    // On Ctrl-C or SIGTERM (what a service manager or a container runtime sends), no new
    // connection is taken, live viewers are told the server is stopping (they go on from
    // another), and the requests under way are answered.
    let stopped = async move {
        tokio::select! {
            _ = interrupt.recv() => {}
            _ = terminate.recv() => {}
        }
        tracing::info!("stopping");
        let _ = stopping.send(true);
    };
    edge::serve(listener, router, edge, stopped).await?;
    listening.abort();
    learning.abort();
    Ok(())
}

/// `GET /replays/HASH.sgr`: a game's bytes, as sent, for the web viewer and for anyone
/// who wants to fold it themselves. Any page may fetch them (the viewer may be served
/// from elsewhere), and they never change, so they may be cached for good.
async fn replay(State(app): State<App>, Path(file): Path<String>) -> Result<Response, Refusal> {
    let Some(hash) = file.strip_suffix(".sgr").filter(|hash| is_hash(hash)) else {
        return Err(Refusal::new(StatusCode::NOT_FOUND, "no such replay"));
    };
    let known = app
        .pool
        .get()
        .await?
        .query_opt("SELECT 1 FROM shown_games WHERE hash = $1", &[&hash])
        .await?;
    if known.is_none() {
        return Err(Refusal::new(StatusCode::NOT_FOUND, "no such replay"));
    }
    let bytes = app.objects.fetch(hash).await?;
    let headers = [
        (header::CONTENT_TYPE, "application/octet-stream"),
        (header::ACCESS_CONTROL_ALLOW_ORIGIN, "*"),
        (header::CACHE_CONTROL, "public, max-age=31536000, immutable"),
    ];
    Ok((headers, bytes).into_response())
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
