//! The HTTP server: the routes, each to its handler, and the server run until it is
//! told to stop. It keeps nothing of its own between requests; PostgreSQL and the
//! object store hold everything.

use axum::routing::{get, post};
use axum::{middleware, Router};
use deadpool_postgres::Pool;
use tokio::net::TcpListener;
use tokio::signal::unix::{signal, SignalKind};
use tokio::sync::watch;

use crate::app::{App, Config};
use crate::edge::{self, Edge};
use crate::objects::Objects;
use crate::{
    daily, day_pages, dealt, fanout, live, metrics, pages, plays, replays, runs, submit, viewer,
};

/// Serves on `listener` until told to stop (Ctrl-C or SIGTERM), with a listener for the
/// live runs and the working out of older games' plays running beside it.
pub async fn run(
    listener: TcpListener,
    database: tokio_postgres::Config,
    pool: Pool,
    objects: Objects,
    config: Config,
    edge: Edge,
) -> anyhow::Result<()> {
    let (stopping, stop) = watch::channel(false);
    let app = App::new(pool.clone(), objects, config, stop);
    let listening = tokio::spawn(fanout::listen(database, pool, app.fanout.clone()));
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
        .route("/daily/{day}/{ruleset}/deal", post(daily::deal))
        .route("/runs/{run}", get(runs::held))
        .route("/runs/{run}/events", post(runs::append))
        .route("/runs/{run}/commands", post(dealt::command))
        .route("/runs/{run}/live", get(live::live))
        .route("/replays/{file}", get(replays::replay))
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
