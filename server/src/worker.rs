//! The verifier: claims a queued game, folds its log under the game's own rules version
//! (`sandglass verify`'s check), and writes the verdict with the folded score.
//!
//! The claim is a row lock, `SELECT ... FOR UPDATE SKIP LOCKED`, held by the
//! transaction that writes the verdict and deletes the row: workers never take the same
//! game, and a worker that dies (even by `kill -9`) rolls back, so the game waits,
//! whole, for the next. A verdict is written once (its primary key).

use std::time::{Duration, Instant};

use deadpool_postgres::Pool;
use sandglass_protocol::Outcome;
use sandglass_replay::verdict::{check_folded, Verdict};
use sandglass_sim::score::Score;

use crate::objects::Objects;
use crate::outcome::outcome_of;

/// How often an idle worker forgets stale buckets (`tidy_buckets`).
const TIDY_EVERY: Duration = Duration::from_secs(60);

pub async fn run(pool: Pool, objects: Objects, idle: Duration) -> anyhow::Result<()> {
    eprintln!("worker ready");
    let mut tidied = Instant::now();
    loop {
        match verify_next(&pool, &objects).await {
            Ok(true) => {}
            Ok(false) => {
                if tidied.elapsed() > TIDY_EVERY {
                    tidied = Instant::now();
                    if let Err(error) = tidy_buckets(&pool).await {
                        tracing::error!("{error:#}");
                    }
                }
                tokio::time::sleep(idle).await
            }
            Err(error) => {
                tracing::error!("{error:#}");
                tokio::time::sleep(idle).await;
            }
        }
    }
}

/// Verifies the oldest queued game no other worker holds; `false` when none waits.
pub async fn verify_next(pool: &Pool, objects: &Objects) -> anyhow::Result<bool> {
    let start = Instant::now();
    let mut client = pool.get().await?;
    let tx = client.transaction().await?;
    let claimed = tx
        .query_opt(
            "SELECT game FROM queue ORDER BY queued_at LIMIT 1 FOR UPDATE SKIP LOCKED",
            &[],
        )
        .await?;
    let Some(row) = claimed else {
        return Ok(false);
    };
    let hash: String = row.get("game");
    eprintln!("verifying {hash}");
    let name = format!("{hash}.sgr");
    let fetched = objects.fetch(&hash).await;
    let folded = match fetched {
        Ok(bytes) => tokio::task::spawn_blocking(move || fold(&bytes, &name))
            .await
            .map_err(anyhow::Error::from),
        Err(error) => Err(error),
    };
    let folded = match folded {
        Ok(folded) => folded,
        Err(error) => {
            // Not the player's fault (the store failed, or the fold broke its promise
            // never to panic): the game goes to the back of the queue, so that one game
            // that cannot be folded now does not hold up the rest.
            tx.execute(
                "UPDATE queue SET queued_at = now() WHERE game = $1",
                &[&hash],
            )
            .await?;
            tx.commit().await?;
            return Err(error.context(format!("game {hash} waits to be folded again")));
        }
    };
    tx.execute(
        "INSERT INTO verdicts (game, ok, line, final_hash, outcome, depth, turns, kills, points)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)
         ON CONFLICT (game) DO NOTHING",
        &[
            &hash,
            &folded.final_hash.is_some(),
            &folded.line,
            &folded.final_hash,
            &folded.outcome.map(Outcome::as_str),
            &folded.score.map(|s| i32::from(s.depth)),
            &folded.score.map(|s| s.turns as i64),
            &folded.score.map(|s| s.kills as i32),
            &folded.score.map(|s| s.points as i64),
        ],
    )
    .await?;
    tx.execute("DELETE FROM queue WHERE game = $1", &[&hash])
        .await?;
    tx.commit().await?;
    eprintln!("{}", folded.line);
    // What the fold costs against the rest (the claim, the fetch, the verdict's write):
    // the server's own share of a worker's time.
    eprintln!(
        "took {:.3} ms, {:.3} ms of it folding",
        start.elapsed().as_secs_f64() * 1e3,
        folded.folding.as_secs_f64() * 1e3
    );
    Ok(true)
}

/// Forgets the limits' buckets nobody has drawn on for a day, so that the table holds
/// the addresses and keys of the day, not of all time: a bucket that long untouched
/// has filled again under any limits short of a day's refill, and a forgotten bucket
/// starts full.
async fn tidy_buckets(pool: &Pool) -> anyhow::Result<()> {
    pool.get()
        .await?
        .execute(
            "DELETE FROM buckets WHERE refilled_at < now() - interval '1 day'",
            &[],
        )
        .await?;
    Ok(())
}

/// What folding a game came to, as the verdicts table holds it.
struct Folded {
    /// `sandglass verify`'s line.
    line: String,
    /// `0x` and 16 hex digits, as `sandglass verify` prints it; `None` when refused.
    final_hash: Option<String>,
    /// How the game ended; `None` for one refused or still in play.
    outcome: Option<Outcome>,
    score: Option<Score>,
    /// How long the fold (and its checks) took.
    folding: Duration,
}

/// Folds the game `bytes` hold, checking it as `sandglass verify` does; `name` is the
/// file's name in its line.
fn fold(bytes: &[u8], name: &str) -> Folded {
    let start = Instant::now();
    let (verdict, state) = match sandglass_replay::from_bytes(bytes) {
        Ok(file) => check_folded(&file, "the file", |_| {}),
        Err(error) => (Verdict::refused(error), None),
    };
    let folding = start.elapsed();
    let line = verdict.text(name, Some(folding.as_secs_f64() * 1e3));
    let final_hash = match verdict {
        Verdict::Ok { hash, .. } => Some(format!("0x{hash:016x}")),
        Verdict::Fail { .. } => None,
    };
    let outcome = state.as_ref().and_then(|s| s.outcome()).map(outcome_of);
    Folded {
        line,
        final_hash,
        outcome,
        score: state.as_ref().map(Score::of),
        folding,
    }
}
