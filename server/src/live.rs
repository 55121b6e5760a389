//! Watching a run live: `GET /runs/RUN/live` streams its events to a viewer as
//! server-sent events, from the start (or `?from=N`, or the `Last-Event-ID` a
//! reconnecting browser sends) and then as they come.
//!
//! Any number of server processes serve viewers of the same run: each hears of new
//! stretches through its `Fanout`. A viewer that falls behind reads what it missed from
//! the table.
//!
//! The messages (`docs/live.md`):
//! `event: header` (the run, its player, day, rules and ruleset; its seed only once the
//! day is over), then `event: events` with `id: END` and `data: FIRST BASE64` for each
//! stretch, and `event: end` with the outcome when nothing more will come.

use std::collections::VecDeque;
use std::convert::Infallible;
use std::sync::Arc;
use std::time::Duration;

use axum::body::Body;
use axum::extract::{Path, Query, State};
use axum::http::{header, HeaderMap, StatusCode};
use axum::response::{IntoResponse, Response};
use base64::Engine;
use bytes::Bytes;
use deadpool_postgres::Pool;
use sandglass_protocol::live::{self as message, End, Header};
use serde::Deserialize;
use tokio::sync::{broadcast, mpsc, watch};

use crate::app::App;
use crate::counters::ViewerHeld;
use crate::days::rules_version;
use crate::fanout::{ending, stretch_of, News, Stretch};
use crate::refusal::Refusal;

/// How often an idle stream says it is still there, so that no proxy closes it.
const KEEP_ALIVE: Duration = Duration::from_secs(15);

#[derive(Deserialize)]
pub struct LiveQuery {
    from: Option<u64>,
}

/// `GET /runs/RUN/live`: the run's events as server-sent events.
pub async fn live(
    State(app): State<App>,
    Path(run): Path<i64>,
    Query(query): Query<LiveQuery>,
    headers: HeaderMap,
) -> Result<Response, Refusal> {
    // A browser reconnecting names the last `id:` it had: the events it holds.
    let from = query
        .from
        .or_else(|| {
            headers
                .get("last-event-id")
                .and_then(|v| v.to_str().ok()?.parse().ok())
        })
        .unwrap_or(0);
    let client = app.pool.get().await?;
    let row = client
        .query_opt(
            "SELECT coalesce(p.name, r.claimed_name) AS player,
                    to_char(r.day, 'YYYY-MM-DD') AS day, r.ruleset, d.rules_version, d.seed
             FROM runs r LEFT JOIN players p ON p.id = r.player_id
             JOIN shown_days d ON d.day = r.day AND d.ruleset = r.ruleset WHERE r.id = $1",
            &[&run],
        )
        .await?
        .ok_or_else(|| Refusal::new(StatusCode::NOT_FOUND, "no such run"))?;
    let head = serde_json::to_string(&Header {
        day: row.get("day"),
        player: row.get("player"),
        rules: rules_version(row.get("rules_version"))?,
        ruleset: row.get("ruleset"),
        run: run.to_string(),
        seed: row.get("seed"),
    })
    .map_err(|e| Refusal::internal(e.into()))?;
    drop(client);
    // Subscribed before the table is read, so that nothing kept in between is missed.
    let news = app.fanout.subscribe(run);
    let (out, body) = mpsc::channel::<Bytes>(16);
    let delay = app.config.live_delay_turns;
    tokio::spawn(async move {
        let mut viewer = Viewer {
            pool: app.pool.clone(),
            run,
            out,
            have: from,
            held: VecDeque::new(),
            newest_turn: 0,
            delay,
            stop: app.stop.clone(),
            _counted: app.counters.viewer(),
        };
        if viewer.say(message_text(message::HEADER, &head)).await {
            viewer.follow(news).await;
        }
    });
    let body = futures_util::stream::unfold(body, |mut body| async move {
        body.recv()
            .await
            .map(|bytes| (Ok::<_, Infallible>(bytes), body))
    });
    let headers = [
        (header::CONTENT_TYPE, "text/event-stream"),
        (header::CACHE_CONTROL, "no-cache"),
        (header::ACCESS_CONTROL_ALLOW_ORIGIN, "*"),
    ];
    Ok((headers, Body::from_stream(body)).into_response())
}

/// One viewer's stream: what it has been sent, and the stretches held back by the
/// delay.
struct Viewer {
    pool: Pool,
    run: i64,
    out: mpsc::Sender<Bytes>,
    /// Events sent so far (or held by the viewer before it connected).
    have: u64,
    /// Stretches taken but held back until the game is `delay` turns past them.
    held: VecDeque<Arc<Stretch>>,
    newest_turn: u64,
    delay: u64,
    /// Becomes true when the server is stopping.
    stop: watch::Receiver<bool>,
    /// Counted among the live viewers while it lasts.
    _counted: ViewerHeld,
}

/// A server-sent event of one line of data, named as the protocol names it.
fn message_text(name: &str, data: &str) -> String {
    format!("event: {name}\ndata: {data}\n\n")
}

/// What a viewer is told when the server stops under it.
pub const STOPPING: &str = "the server is stopping; connect again to go on";

impl Viewer {
    /// Sends `text`; false once the viewer has gone.
    async fn say(&self, text: String) -> bool {
        self.out.send(Bytes::from(text)).await.is_ok()
    }

    async fn follow(&mut self, mut news: broadcast::Receiver<News>) {
        // Everything the table holds from where the viewer stands.
        let mut queued = match self.catch_up().await {
            Ok(queued) => queued,
            Err(error) => return tracing::error!("run {}: {error:#}", self.run),
        };
        loop {
            for item in std::mem::take(&mut queued) {
                match item {
                    News::Stretch(stretch) => {
                        if !self.take(stretch).await {
                            return;
                        }
                    }
                    News::End(outcome) => {
                        let end =
                            serde_json::to_string(&End { outcome }).expect("an ending is a word");
                        let _ = self.release_all().await
                            && self.say(message_text(message::END, &end)).await;
                        return;
                    }
                }
            }
            let mut stop = self.stop.clone();
            let heard = tokio::select! {
                heard = tokio::time::timeout(KEEP_ALIVE, news.recv()) => heard,
                // The server is stopping: the viewer is told so, and goes on from another
                // (or this one, restarted) from the events it holds.
                _ = async { stop.wait_for(|stopping| *stopping).await.map(drop) } => {
                    let _ = self.say(message_text(message::STOPPING, STOPPING)).await;
                    return;
                }
            };
            match heard {
                Err(_) => {
                    let alive = format!("event: {}\ndata:\n\n", message::ALIVE);
                    if !self.say(alive).await {
                        return;
                    }
                }
                Ok(Ok(item)) => queued.push(item),
                // Fallen behind the process's backlog: read from the table instead.
                Ok(Err(broadcast::error::RecvError::Lagged(_))) => match self.catch_up().await {
                    Ok(more) => queued = more,
                    Err(error) => return tracing::error!("run {}: {error:#}", self.run),
                },
                Ok(Err(broadcast::error::RecvError::Closed)) => return,
            }
        }
    }

    /// Events the viewer has been sent or holds back.
    fn taken(&self) -> u64 {
        self.held
            .back()
            .map_or(self.have, |s| s.first + s.count)
            .max(self.have)
    }

    /// The run's stretches past those the viewer has been sent or holds back, and its
    /// end if it has ended.
    async fn catch_up(&self) -> anyhow::Result<Vec<News>> {
        let client = self.pool.get().await?;
        let rows = client
            .query(
                "SELECT first, count, turn, bytes FROM run_events
                 WHERE run = $1 AND first + count > $2 ORDER BY first",
                &[&self.run, &(self.taken() as i64)],
            )
            .await?;
        let mut news: Vec<News> = rows.iter().map(stretch_of).collect();
        if let Some(end) = ending(&client, self.run).await? {
            news.push(News::End(end));
        }
        Ok(news)
    }

    /// Takes a stretch in: held back by the delay, then sent. One already taken is
    /// skipped; one past a gap (this process read it before the viewer subscribed)
    /// makes the viewer read what it missed from the table, which holds this one too.
    async fn take(&mut self, stretch: Arc<Stretch>) -> bool {
        let mut incoming = vec![stretch];
        if incoming[0].first > self.taken() {
            let Ok(missed) = self.catch_up().await else {
                return false;
            };
            incoming = missed
                .into_iter()
                .filter_map(|item| match item {
                    News::Stretch(s) => Some(s),
                    // Heard again from the broadcast, after this stretch.
                    News::End(_) => None,
                })
                .collect();
        }
        for stretch in incoming {
            if stretch.first + stretch.count > self.taken() && stretch.first <= self.taken() {
                self.newest_turn = self.newest_turn.max(stretch.turn);
                self.held.push_back(stretch);
            }
        }
        while let Some(first) = self.held.front() {
            if first.turn + self.delay > self.newest_turn {
                break;
            }
            let first = self.held.pop_front().expect("looked at");
            if !self.send(&first).await {
                return false;
            }
        }
        true
    }

    /// Sends every stretch held back: the game is over, nothing is left to hide.
    async fn release_all(&mut self) -> bool {
        while let Some(stretch) = self.held.pop_front() {
            if !self.send(&stretch).await {
                return false;
            }
        }
        true
    }

    /// Sends the part of `stretch` the viewer does not have.
    async fn send(&mut self, stretch: &Stretch) -> bool {
        let end = stretch.first + stretch.count;
        if end <= self.have {
            return true;
        }
        let (first, bytes) = if stretch.first >= self.have {
            (stretch.first, stretch.bytes.clone())
        } else {
            // The viewer holds the stretch's beginning already: only the rest goes.
            let Ok(events) = sandglass_replay::events_from_bytes(&stretch.bytes) else {
                return false;
            };
            let skip = (self.have - stretch.first) as usize;
            (
                self.have,
                sandglass_replay::events_to_bytes(&events[skip..]),
            )
        };
        let data = base64::engine::general_purpose::STANDARD.encode(bytes);
        self.have = end;
        self.say(format!(
            "event: {}\nid: {end}\ndata: {first} {data}\n\n",
            message::EVENTS
        ))
        .await
    }
}
