//! A daily run streamed as it is played: `POST /runs/RUN/events?from=N` appends a stretch
//! of the run's events, signed by its player, and `GET /runs/RUN` says how many the
//! server holds.
//!
//! Every stretch is folded onto the run's state before it is kept (a live verifier
//! folding along): a draw that is not the day's generator's next output, an illegal
//! command, a stretch after the run ended, each is refused with its index, and the run
//! is stopped there. Stretches are kept in order and exactly once: one that starts past
//! what the server holds is a gap and refused; one that repeats what it holds (a client
//! that did not hear the answer) is taken if it is the same events, and what is new in
//! it appended. The run's row is locked while a stretch is appended, so that servers
//! that share the database take a run's stretches one at a time.
//!
//! When the fold reaches the game's end, the run becomes a game like any other (bytes in
//! the object store, a row in `games`, a place in the queue), hidden until the day is
//! over, and a verifier folds it again for the day's board.

use std::net::SocketAddr;

use axum::body::Body;
use axum::extract::{ConnectInfo, Path, Query, State};
use axum::http::{HeaderMap, StatusCode};
use axum::Json;
use bytes::Bytes;
use deadpool_postgres::{GenericClient, Transaction};
use sandglass_claim::{content_hash, hex, stretch_content};
use sandglass_protocol::runs::{gap, Held, MOST_STRETCH_BYTES};
use sandglass_protocol::Outcome;
use sandglass_replay::play::Play;
use sandglass_sim::drive::Verifier;
use sandglass_sim::tape::FORMAT_VERSION;
use sandglass_sim::{Event, Header, Recording, Rules, Ruleset};
use serde::Deserialize;
use tokio_postgres::Row;

use crate::app::App;
use crate::games::add_game;
use crate::limits::{self, Bucket, Post};
use crate::openings;
use crate::outcome::{outcome_of, stored_outcome};
use crate::players::bind_name;
use crate::refusal::Refusal;
use crate::upload::{self, Signed};

/// A run's row, as a stretch or a command needs it.
pub(crate) struct Run {
    pub player_id: i64,
    pub player: String,
    pub day: String,
    pub header: Header,
    pub events: u64,
    pub ended: bool,
    pub refused: Option<String>,
    /// Its draws dealt by the server (`dealt`), not sent by its player.
    pub dealt: bool,
    /// Whether its opening has been noted (`openings`): it has played that far.
    pub opening_known: bool,
}

/// The run's header: the day's rules and seed; made when the run started.
pub(crate) fn header_of(
    rules_version: i32,
    ruleset: &str,
    seed: &str,
    started: i64,
) -> Option<Header> {
    Some(Header {
        format_version: FORMAT_VERSION,
        rules_version: u16::try_from(rules_version).ok()?,
        seed: seed.parse().ok()?,
        ruleset: Ruleset::by_name(ruleset)?,
        created_at: u64::try_from(started).ok()?,
    })
}

/// Binds the name and key a run was started under, once its first stretch is signed
/// by them: until then, a start binds nothing (`daily::start`).
pub(crate) async fn bind_on_first_stretch(
    tx: &Transaction<'_>,
    run: i64,
    player: &str,
    key: &str,
) -> Result<(), Refusal> {
    let pending = tx
        .query_opt(
            "SELECT 1 FROM runs WHERE id = $1 AND player_id IS NULL FOR UPDATE",
            &[&run],
        )
        .await?;
    if pending.is_none() {
        return Ok(());
    }
    let player_id = bind_name(tx, player, key).await?;
    let bound = tx
        .execute(
            "UPDATE runs SET player_id = $2, claimed_name = NULL, claimed_key = NULL
             WHERE id = $1 AND NOT EXISTS (
                 SELECT 1 FROM runs o WHERE o.day = runs.day AND o.ruleset = runs.ruleset
                                        AND o.player_id = $2)",
            &[&run, &player_id],
        )
        .await?;
    if bound == 0 {
        return Err(Refusal::new(
            StatusCode::CONFLICT,
            format!("{player} has a run of this desert already: one try a day"),
        ));
    }
    Ok(())
}

impl Run {
    /// The run as `locked_run` reads it; `None` when its day's header cannot be made.
    fn from_row(row: &Row) -> Option<Run> {
        let header = header_of(
            row.get("rules_version"),
            row.get("ruleset"),
            row.get("seed"),
            row.get("started"),
        )?;
        Some(Run {
            player_id: row.get("player_id"),
            player: row.get("player"),
            day: row.get("day"),
            header,
            events: row.get::<_, i64>("events") as u64,
            ended: row.get("ended"),
            refused: row.get("refused"),
            dealt: row.get("dealt"),
            opening_known: row.get("opening_known"),
        })
    }
}

pub(crate) async fn locked_run(tx: &Transaction<'_>, run: i64) -> Result<Run, Refusal> {
    // The seed from `days` itself, not `shown_days`: the server folds a run by its
    // day's generator whatever the hour, and shows none of it.
    let row = tx
        .query_opt(
            "SELECT r.player_id, p.name AS player, to_char(r.day, 'YYYY-MM-DD') AS day,
                    d.rules_version, r.ruleset, d.seed,
                    EXTRACT(EPOCH FROM r.started_at)::bigint AS started,
                    r.events, r.outcome IS NOT NULL AS ended, r.refused, r.dealt,
                    r.opening IS NOT NULL AS opening_known
             FROM runs r JOIN players p ON p.id = r.player_id
             JOIN days d ON d.day = r.day AND d.ruleset = r.ruleset
             WHERE r.id = $1 FOR UPDATE OF r",
            &[&run],
        )
        .await?
        .ok_or_else(|| Refusal::new(StatusCode::NOT_FOUND, "no such run"))?;
    Run::from_row(&row)
        .ok_or_else(|| Refusal::internal(anyhow::anyhow!("run {run}'s day is unreadable")))
}

/// The run's events the server holds from `from` on, read back from its stretches.
pub async fn events_from(
    client: &impl GenericClient,
    run: i64,
    from: u64,
) -> Result<Vec<Event>, Refusal> {
    let rows = client
        .query(
            "SELECT first, bytes FROM run_events WHERE run = $1 AND first + count > $2
             ORDER BY first",
            &[&run, &(from as i64)],
        )
        .await?;
    let mut events = vec![];
    for row in rows {
        let first = row.get::<_, i64>("first") as u64;
        let stretch = sandglass_replay::events_from_bytes(row.get("bytes")).map_err(|e| {
            Refusal::internal(anyhow::anyhow!("run {run}'s stretch at {first}: {e}"))
        })?;
        let skip = from.saturating_sub(first) as usize;
        events.extend_from_slice(&stretch[skip.min(stretch.len())..]);
    }
    Ok(events)
}

#[derive(Deserialize)]
pub struct From {
    from: u64,
}

/// `GET /runs/RUN` as JSON: where a client resumes sending.
pub async fn held(State(app): State<App>, Path(run): Path<i64>) -> Result<Json<Held>, Refusal> {
    let row = app
        .pool
        .get()
        .await?
        .query_opt(
            "SELECT coalesce(p.name, r.claimed_name) AS player,
                    to_char(r.day, 'YYYY-MM-DD') AS day, r.ruleset, r.events, r.outcome,
                    r.refused
             FROM runs r LEFT JOIN players p ON p.id = r.player_id WHERE r.id = $1",
            &[&run],
        )
        .await?
        .ok_or_else(|| Refusal::new(StatusCode::NOT_FOUND, "no such run"))?;
    Ok(Json(Held {
        run,
        player: row.get("player"),
        day: row.get("day"),
        ruleset: row.get("ruleset"),
        events: row.get::<_, i64>("events") as u64,
        outcome: stored_outcome(row.get("outcome"))?,
        refused: row.get("refused"),
    }))
}

/// `POST /runs/RUN/events?from=N`: a stretch of the run's events from index N, signed
/// by the run's player. Answers how many events the server holds after it.
pub async fn append(
    State(app): State<App>,
    ConnectInfo(peer): ConnectInfo<SocketAddr>,
    Path(run): Path<i64>,
    Query(From { from }): Query<From>,
    headers: HeaderMap,
    body: Body,
) -> Result<Json<Held>, Refusal> {
    // Everything that needs no body first, and the row is locked only for a stretch
    // its player signed: a flood of junk costs a bucket's row, never the run's.
    let most = MOST_STRETCH_BYTES as u64;
    let (
        Signed {
            player,
            key,
            signature,
        },
        upload,
    ) = upload::read_signed(
        &app,
        peer.ip(),
        &headers,
        body,
        Post::Stretch,
        "stretch",
        most,
    )
    .await?;
    let limits = app.config.limits;
    let bytes = upload.bytes.clone();
    check_owner(&app, run, &player, &key).await?;
    app.check_claim(
        &player,
        stretch_content(run, from, &bytes),
        &key,
        &signature,
    )?;
    limits::take(&app.pool, limits, Post::Stretch, Bucket::Key(&key)).await?;
    let decoded = bytes.clone();
    let stretch =
        tokio::task::spawn_blocking(move || sandglass_replay::events_from_bytes(&decoded))
            .await
            .map_err(|e| Refusal::internal(e.into()))?
            .map_err(|e| Refusal::new(StatusCode::UNPROCESSABLE_ENTITY, e))?;
    let mut client = app.pool.get().await?;
    let tx = client.transaction().await?;
    bind_on_first_stretch(&tx, run, &player, &key).await?;
    let at = locked_run(&tx, run).await?;
    if let Some(why) = &at.refused {
        return Err(Refusal::new(
            StatusCode::CONFLICT,
            format!("run {run} was stopped: {why}"),
        ));
    }
    if at.dealt {
        return Err(Refusal::new(
            StatusCode::CONFLICT,
            format!(
                "run {run} is dealt: the server deals its draws, so its player sends only \
                 its commands, one at a time, to /runs/{run}/commands"
            ),
        ));
    }
    if from > at.events {
        return Err(Refusal::new(
            StatusCode::CONFLICT,
            gap(run, at.events, from),
        ));
    }
    let repeated = (at.events - from).min(stretch.len() as u64) as usize;
    if repeated > 0 {
        let held = events_from(&tx, run, from).await?;
        if let Some(i) = (0..repeated).find(|&i| held[i] != stretch[i]) {
            return Err(Refusal::new(
                StatusCode::CONFLICT,
                format!(
                    "event {} differs from the one the server holds there: a run's events \
                     never change once sent",
                    from + i as u64
                ),
            ));
        }
    }
    let new = &stretch[repeated..];
    if new.is_empty() {
        tx.commit().await?;
        return held(State(app), Path(run)).await;
    }
    if at.ended {
        return Err(Refusal::new(
            StatusCode::CONFLICT,
            format!("run {run} has ended: nothing follows its last event"),
        ));
    }
    let verifier = match app.live_folds.take(run, at.events) {
        Some(verifier) => verifier,
        None => refold(&tx, run, &at).await?,
    };
    let new_events = new.to_vec();
    let folded = tokio::task::spawn_blocking(move || fold_onto(verifier, new_events))
        .await
        .map_err(|e| Refusal::internal(e.into()))?;
    let verifier = match folded {
        Ok(verifier) => verifier,
        Err((index, why)) => {
            let words = format!("event {index} does not fold: {why}");
            tx.execute(
                "UPDATE runs SET refused = $2, refused_at = $3 WHERE id = $1",
                &[&run, &words, &(index as i64)],
            )
            .await?;
            tx.commit().await?;
            return Err(Refusal::new(
                StatusCode::UNPROCESSABLE_ENTITY,
                format!("run {run} is stopped: {words}"),
            ));
        }
    };
    let (events, outcome) = keep(&app, &tx, run, &at, new, verifier.state()).await?;
    tx.commit().await?;
    if outcome.is_none() {
        app.live_folds.put(run, events, verifier);
    }
    // What the row now says, known here: no second read on every step's way in.
    Ok(Json(Held {
        run,
        player: at.player,
        day: at.day,
        ruleset: at.header.ruleset.name().to_owned(),
        events,
        outcome,
        refused: None,
    }))
}

/// Refuses a stretch or a command for `run` sent by anyone but its player, under their
/// key: the name and key it was started under, or bound to at its first stretch.
pub(crate) async fn check_owner(
    app: &App,
    run: i64,
    player: &str,
    key: &str,
) -> Result<(), Refusal> {
    let owner = app
        .pool
        .get()
        .await?
        .query_opt(
            "SELECT coalesce(p.name, r.claimed_name) AS player,
                    coalesce(p.public_key, r.claimed_key) AS public_key
             FROM runs r LEFT JOIN players p ON p.id = r.player_id WHERE r.id = $1",
            &[&run],
        )
        .await?
        .ok_or_else(|| Refusal::new(StatusCode::NOT_FOUND, "no such run"))?;
    let (owner, owner_key): (String, String) = (owner.get("player"), owner.get("public_key"));
    if player != owner || key != owner_key {
        return Err(Refusal::new(
            StatusCode::FORBIDDEN,
            format!("run {run} is {owner}'s: only their key sends its events"),
        ));
    }
    Ok(())
}

/// Keeps `new`, the events that follow what the server holds of `run` (`at`), which
/// fold to `state`: a stretch of its own, the run's row brought up to date, every
/// process told (`live`), and the run made a game if they end it. In the caller's
/// transaction: nothing of it is kept unless that commits. Gives the events held now and
/// the outcome.
pub(crate) async fn keep(
    app: &App,
    tx: &Transaction<'_>,
    run: i64,
    at: &Run,
    new: &[Event],
    state: &sandglass_sim::State,
) -> Result<(u64, Option<Outcome>), Refusal> {
    let events = at.events + new.len() as u64;
    let outcome = state.outcome().map(outcome_of);
    let world = state.world();
    tx.execute(
        "INSERT INTO run_events (run, first, count, turn, bytes) VALUES ($1, $2, $3, $4, $5)",
        &[
            &run,
            &(at.events as i64),
            &(new.len() as i64),
            &(world.tick().0 as i64),
            &sandglass_replay::events_to_bytes(new),
        ],
    )
    .await?;
    tx.execute(
        "UPDATE runs SET events = $2, turns = $3, depth = $4, outcome = $5, last_event_at = now()
         WHERE id = $1",
        &[
            &run,
            &(events as i64),
            &(world.tick().0 as i64),
            &i32::from(world.depth()),
            &outcome.map(Outcome::as_str),
        ],
    )
    .await?;
    if !at.opening_known {
        let held = events_from(tx, run, 0).await?;
        openings::note(tx, run, &at.day, &at.header, at.player_id, &held).await?;
    }
    // Every server process listening hears of it once this commits (`live`).
    tx.execute("SELECT pg_notify('runs', $1)", &[&run.to_string()])
        .await?;
    if outcome.is_some() {
        finish(app, tx, run, at).await?;
    }
    Ok((events, outcome))
}

/// Folds the run's stretches again from its start: a process that has not folded this
/// run yet, or dropped it.
pub(crate) async fn refold(tx: &Transaction<'_>, run: i64, at: &Run) -> Result<Verifier, Refusal> {
    let events = events_from(tx, run, 0).await?;
    let header = at.header.clone();
    tokio::task::spawn_blocking(move || {
        let rules = Rules::of(&header).map_err(|e| anyhow::anyhow!("{e}"))?;
        let verifier = Verifier::new(rules, header.seed, &mut ());
        fold_onto(verifier, events)
            .map_err(|(index, why)| anyhow::anyhow!("kept event {index} does not fold: {why}"))
    })
    .await
    .map_err(|e| Refusal::internal(e.into()))?
    .map_err(|e: anyhow::Error| Refusal::internal(e.context(format!("run {run}"))))
}

/// `events` folded onto `verifier`, each draw checked against the day's generator; or
/// the index of the first that does not fold, and why.
pub(crate) fn fold_onto(
    mut verifier: Verifier,
    events: Vec<Event>,
) -> Result<Verifier, (u64, String)> {
    let mut events = events.into_iter().peekable();
    loop {
        match verifier.feed_pulling(&mut events, u64::MAX, &mut ()) {
            Ok(true) => {}
            Ok(false) => return Ok(verifier),
            Err(error) => return Err((error.index.0, error.kind.to_string())),
        }
    }
}

/// The ended run as a game: its replay bytes kept, its row (hidden until the day is
/// over) and its place in the verifiers' queue, in the run's transaction; nothing for a
/// run that copied another's first moves.
async fn finish(app: &App, tx: &Transaction<'_>, run: i64, at: &Run) -> Result<(), Refusal> {
    // A run that copied another's first moves (`openings`) ends as a run, never a game:
    // its moves are another player's, and its bytes may be theirs to the byte.
    let copied = tx
        .query_one(
            "SELECT copied_from IS NOT NULL AS copied FROM runs WHERE id = $1",
            &[&run],
        )
        .await?;
    if copied.get("copied") {
        return Ok(());
    }
    let events = events_from(tx, run, 0).await?;
    let header = at.header.clone();
    let recording = tokio::task::spawn_blocking(move || Recording::record(header, events))
        .await
        .map_err(|e| Refusal::internal(e.into()))?
        .map_err(|e| Refusal::internal(anyhow::anyhow!("run {run} does not record: {e}")))?;
    let bytes = sandglass_replay::to_bytes(&recording);
    let hash = hex(&content_hash(&bytes));
    app.objects.keep(&hash, Bytes::from(bytes.clone())).await?;
    let play = Play::of(&recording.header, &recording.events);
    add_game(tx, &hash, at.player_id, bytes.len(), &recording, &play).await?;
    tx.execute(
        "UPDATE games SET hidden_until = $2::text::date + 1 WHERE hash = $1",
        &[&hash, &at.day],
    )
    .await?;
    tx.execute("UPDATE runs SET game = $2 WHERE id = $1", &[&run, &hash])
        .await?;
    Ok(())
}
