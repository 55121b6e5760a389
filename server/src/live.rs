//! Watching a run live: `GET /runs/RUN/live` streams its events to a viewer as
//! server-sent events, from the start (or `?from=N`, or the `Last-Event-ID` a
//! reconnecting browser sends) and then as they come.
//!
//! Any number of server processes serve viewers of the same run. The process that takes
//! a stretch notifies the others through PostgreSQL (`NOTIFY runs` in the transaction
//! that keeps it, so a viewer never hears of a stretch that is not kept); every process
//! listens on one connection of its own, and for each run someone watches there, reads
//! the new stretches once and hands them to all its viewers of that run. PostgreSQL's
//! `LISTEN/NOTIFY` rather than a message bus: the database already orders and keeps the
//! stretches, a notification is sent only once its stretch is committed, and a server
//! needs nothing more than the database it already has. A viewer that falls behind, or
//! a listener that loses its connection, reads what it missed from the table.
//!
//! The messages (`docs/live.md`):
//! `event: header` (the run, its player, day, rules and ruleset; its seed only once the
//! day is over), then `event: events` with `id: END` and `data: FIRST BASE64` for each
//! stretch, and `event: end` with the outcome when nothing more will come.

use std::collections::{HashMap, VecDeque};
use std::convert::Infallible;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use axum::body::Body;
use axum::extract::{Path, Query, State};
use axum::http::{header, HeaderMap, StatusCode};
use axum::response::{IntoResponse, Response};
use base64::Engine;
use bytes::Bytes;
use deadpool_postgres::Pool;
use futures_util::StreamExt;
use sandglass_protocol::live::{self as message, End, Header};
use sandglass_protocol::Ending;
use serde::Deserialize;
use tokio::sync::{broadcast, mpsc, watch};
use tokio_postgres::{AsyncMessage, NoTls};

use crate::daily::rules_version;
use crate::metrics::ViewerHeld;
use crate::outcome::stored_outcome;
use crate::refusal::Refusal;
use crate::serve::App;

/// Stretches a process holds for viewers that have not taken them yet; one further
/// behind reads from the table instead.
const BACKLOG: usize = 256;

/// How often an idle stream says it is still there, so that no proxy closes it.
const KEEP_ALIVE: Duration = Duration::from_secs(15);

/// What a process hands its viewers of a run.
#[derive(Clone, Debug)]
enum News {
    /// A stretch kept: its first event's index, how many, the turn after it, its bytes.
    Stretch(Arc<Stretch>),
    /// The run is over, and how.
    End(Ending),
}

#[derive(Debug)]
struct Stretch {
    first: u64,
    count: u64,
    turn: u64,
    bytes: Vec<u8>,
}

/// The runs watched in this process: for each, its viewers' channel and how far this
/// process has read the run's stretches for them.
#[derive(Default)]
pub struct Fanout {
    runs: Mutex<HashMap<i64, Watched>>,
}

struct Watched {
    news: broadcast::Sender<News>,
    read: Option<u64>,
}

impl Fanout {
    fn subscribe(&self, run: i64) -> broadcast::Receiver<News> {
        let mut runs = self.runs.lock().unwrap_or_else(|e| e.into_inner());
        runs.entry(run)
            .or_insert_with(|| Watched {
                news: broadcast::channel(BACKLOG).0,
                read: None,
            })
            .news
            .subscribe()
    }

    /// Where this process's reading of `run` stands, if anyone here watches it; a run
    /// nobody watches any more is forgotten.
    fn read_so_far(&self, run: i64) -> Option<Option<u64>> {
        let mut runs = self.runs.lock().unwrap_or_else(|e| e.into_inner());
        let watched = runs.get(&run)?;
        if watched.news.receiver_count() == 0 {
            runs.remove(&run);
            return None;
        }
        Some(watched.read)
    }

    fn tell(&self, run: i64, read: u64, news: Vec<News>) {
        let mut runs = self.runs.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(watched) = runs.get_mut(&run) {
            watched.read = Some(read);
            for item in news {
                // No receiver left is not an error: the run is forgotten next time.
                let _ = watched.news.send(item);
            }
        }
    }

    fn watched(&self) -> Vec<i64> {
        let runs = self.runs.lock().unwrap_or_else(|e| e.into_inner());
        runs.keys().copied().collect()
    }
}

/// Listens for `NOTIFY runs` on a connection of its own for as long as the server runs,
/// connecting again whenever the connection is lost, and reading what was missed.
pub async fn listen(database: tokio_postgres::Config, pool: Pool, fanout: Arc<Fanout>) {
    loop {
        if let Err(error) = listen_once(&database, &pool, &fanout).await {
            tracing::error!("the live listener: {error:#}; connecting again");
        }
        tokio::time::sleep(Duration::from_secs(1)).await;
    }
}

async fn listen_once(
    database: &tokio_postgres::Config,
    pool: &Pool,
    fanout: &Fanout,
) -> anyhow::Result<()> {
    let (client, mut connection) = database.connect(NoTls).await?;
    let (heard, mut notes) = mpsc::unbounded_channel();
    let driver = tokio::spawn(async move {
        let mut messages = futures_util::stream::poll_fn(move |cx| connection.poll_message(cx));
        while let Some(message) = messages.next().await {
            match message {
                Ok(AsyncMessage::Notification(note)) => {
                    let _ = heard.send(note.payload().to_owned());
                }
                Ok(_) => {}
                Err(error) => return anyhow::Error::from(error),
            }
        }
        anyhow::anyhow!("the database closed the connection")
    });
    client.batch_execute("LISTEN runs").await?;
    // What came while this process was not listening.
    for run in fanout.watched() {
        read_news(pool, fanout, run).await?;
    }
    while let Some(note) = notes.recv().await {
        if let Ok(run) = note.parse::<i64>() {
            read_news(pool, fanout, run).await?;
        }
    }
    drop(client);
    Err(driver.await?)
}

/// Reads the run's stretches this process has not read yet, if anyone here watches it,
/// and hands them to its viewers.
async fn read_news(pool: &Pool, fanout: &Fanout, run: i64) -> anyhow::Result<()> {
    let Some(read) = fanout.read_so_far(run) else {
        return Ok(());
    };
    let client = pool.get().await?;
    // A process that has read nothing of the run yet starts at its newest stretch:
    // each viewer has read the table up to where it subscribed.
    let rows = match read {
        Some(read) => {
            client
                .query(
                    "SELECT first, count, turn, bytes FROM run_events
                     WHERE run = $1 AND first >= $2 ORDER BY first",
                    &[&run, &(read as i64)],
                )
                .await?
        }
        None => {
            client
                .query(
                    "SELECT first, count, turn, bytes FROM run_events
                     WHERE run = $1 ORDER BY first DESC LIMIT 1",
                    &[&run],
                )
                .await?
        }
    };
    let mut news: Vec<News> = rows.iter().map(stretch_of).collect();
    let read = news
        .iter()
        .filter_map(|n| match n {
            News::Stretch(s) => Some(s.first + s.count),
            News::End(_) => None,
        })
        .max()
        .or(read)
        .unwrap_or(0);
    if let Some(end) = ending(&client, run).await? {
        news.push(News::End(end));
    }
    fanout.tell(run, read, news);
    Ok(())
}

fn stretch_of(row: &tokio_postgres::Row) -> News {
    News::Stretch(Arc::new(Stretch {
        first: row.get::<_, i64>(0) as u64,
        count: row.get::<_, i64>(1) as u64,
        turn: row.get::<_, i64>(2) as u64,
        bytes: row.get(3),
    }))
}

/// How the run ended, if it has: its outcome, refused for a run stopped on a bad event,
/// abandoned for one left unfinished when its day ended.
async fn ending(client: &tokio_postgres::Client, run: i64) -> anyhow::Result<Option<Ending>> {
    let row = client
        .query_one(
            "SELECT outcome, refused IS NOT NULL, day_is_over(day)
             FROM runs WHERE id = $1",
            &[&run],
        )
        .await?;
    let (refused, over): (bool, bool) = (row.get(1), row.get(2));
    Ok(match stored_outcome(row.get(0))? {
        Some(outcome) => Some(Ending::Outcome(outcome)),
        None if refused => Some(Ending::Refused),
        None if over => Some(Ending::Abandoned),
        None => None,
    })
}

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
            "SELECT coalesce(p.name, r.claimed_name), to_char(r.day, 'YYYY-MM-DD'), r.ruleset,
                    d.rules_version,
                    CASE WHEN day_is_over(r.day) THEN d.seed END
             FROM runs r LEFT JOIN players p ON p.id = r.player_id
             JOIN days d ON d.day = r.day AND d.ruleset = r.ruleset WHERE r.id = $1",
            &[&run],
        )
        .await?
        .ok_or_else(|| Refusal::new(StatusCode::NOT_FOUND, "no such run"))?;
    let head = serde_json::to_string(&Header {
        day: row.get(1),
        player: row.get(0),
        rules: rules_version(row.get(3))?,
        ruleset: row.get(2),
        run: run.to_string(),
        seed: row.get(4),
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
