//! What one server process hears of the runs watched through it, and hands to their
//! viewers. The process that takes a stretch notifies the others through PostgreSQL
//! (`NOTIFY runs` in the transaction that keeps it, so a viewer never hears of a stretch
//! that is not kept); every process listens on one connection of its own, and for each
//! run someone watches there, reads the new stretches once and hands them to all its
//! viewers of that run through a broadcast channel. PostgreSQL's `LISTEN/NOTIFY` rather
//! than a message bus: the database already orders and keeps the stretches, a
//! notification is sent only once its stretch is committed, and a server needs nothing
//! more than the database it already has. A listener that loses its connection reads
//! what it missed from the table.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use deadpool_postgres::Pool;
use futures_util::StreamExt;
use sandglass_protocol::Ending;
use tokio::sync::{broadcast, mpsc};
use tokio_postgres::{AsyncMessage, NoTls};

use crate::outcome::stored_outcome;

/// Stretches a process holds for viewers that have not taken them yet; one further
/// behind reads from the table instead.
const BACKLOG: usize = 256;

/// What a process hands its viewers of a run.
#[derive(Clone, Debug)]
pub enum News {
    /// A stretch kept: its first event's index, how many, the turn after it, its bytes.
    Stretch(Arc<Stretch>),
    /// The run is over, and how.
    End(Ending),
}

#[derive(Debug)]
pub struct Stretch {
    pub first: u64,
    pub count: u64,
    pub turn: u64,
    pub bytes: Vec<u8>,
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
    pub fn subscribe(&self, run: i64) -> broadcast::Receiver<News> {
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

/// A stretch read from `run_events` (its `first, count, turn, bytes`), as news.
pub fn stretch_of(row: &tokio_postgres::Row) -> News {
    News::Stretch(Arc::new(Stretch {
        first: row.get::<_, i64>("first") as u64,
        count: row.get::<_, i64>("count") as u64,
        turn: row.get::<_, i64>("turn") as u64,
        bytes: row.get("bytes"),
    }))
}

/// How the run ended, if it has: its outcome, refused for a run stopped on a bad event,
/// abandoned for one left unfinished when its day ended.
pub async fn ending(client: &tokio_postgres::Client, run: i64) -> anyhow::Result<Option<Ending>> {
    let row = client
        .query_one(
            "SELECT outcome, refused IS NOT NULL AS refused, day_is_over(day) AS day_over
             FROM runs WHERE id = $1",
            &[&run],
        )
        .await?;
    let (refused, over): (bool, bool) = (row.get("refused"), row.get("day_over"));
    Ok(match stored_outcome(row.get("outcome"))? {
        Some(outcome) => Some(Ending::Outcome(outcome)),
        None if refused => Some(Ending::Refused),
        None if over => Some(Ending::Abandoned),
        None => None,
    })
}
