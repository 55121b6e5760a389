//! A dealt run: the server keeps the day's seed and deals the draws the game needs, so
//! that its player never holds the seed while the day lasts and cannot walk the desert
//! ahead in a second game (`docs/live.md`, "Dealt runs"). The run's rules draw from
//! ChaCha20 (`Rules::algorithm`), whose draws say nothing of the next.
//!
//! `POST /runs/RUN/commands?at=N`: the camel's next command, signed by the run's player.
//! The server plays it on the run's game, then keeps the command and every draw it
//! brought in one transaction, and answers the draws only once that has committed: a
//! draw is dealt only after the command it follows is kept, so no client can see what a
//! command brought and then claim another. A command sent again at an index the server
//! holds (a client that did not hear the answer) is answered again if it is the same
//! command, and refused if it is another; an illegal command is refused in the rules'
//! words and changes nothing.

use std::net::SocketAddr;

use axum::body::Body;
use axum::extract::{ConnectInfo, Path, Query, State};
use axum::http::{HeaderMap, StatusCode};
use axum::Json;
use deadpool_postgres::Transaction;
use sandglass_claim::command_content;
use sandglass_protocol::dealt::{Dealt, MOST_COMMAND_BYTES};
use sandglass_protocol::runs::gap;
use sandglass_sim::drive::{Live, Verifier};
use sandglass_sim::{Command, Event, Header, Rules, RulesVersion, Ruleset, State as Game};
use serde::Deserialize;

use crate::app::App;
use crate::limits::{self, Bucket, Post};
use crate::outcome::outcome_of;
use crate::refusal::Refusal;
use crate::runs::{
    bind_on_first_stretch, check_owner, events_from, fold_onto, keep, locked_run, refold, Run,
};
use crate::upload::{self, Signed};

/// Whether a run under rules version `version` can be dealt: its rules draw from a
/// generator whose draws say nothing of the next (PCG32's state follows from a few of
/// its outputs). The ruleset has no say in it.
pub fn can_be_dealt(version: u16) -> bool {
    RulesVersion::kept(version).is_ok_and(|v| Rules::new(v, Ruleset::NETHACK).can_be_dealt())
}

/// The opening of a dealt run of `header`: the game before the camel's first command,
/// and the draws of its first level. Level making takes milliseconds: off the runtime.
pub async fn opening(header: &Header) -> Result<(Live, Vec<Event>), Refusal> {
    let header = header.clone();
    tokio::task::spawn_blocking(move || {
        let rules = Rules::of(&header).map_err(|e| anyhow::anyhow!("{e}"))?;
        let mut opening = vec![];
        let live = Live::new(rules, header.seed, &mut (), &mut opening);
        Ok::<_, anyhow::Error>((live, opening))
    })
    .await
    .map_err(|e| Refusal::internal(e.into()))?
    .map_err(Refusal::internal)
}

/// What a dealing's answer says of `draws`, dealt from index `first` on, after which
/// the game is `game` and holds `events` events.
pub fn dealt(run: i64, first: u64, draws: &[Event], game: &Game, events: u64) -> Dealt {
    Dealt {
        run,
        first,
        draws: draws
            .iter()
            .filter_map(|e| match e {
                Event::Draw(value) => Some(*value),
                Event::Command(_) => None,
            })
            .collect(),
        hash: format!("{:016x}", game.hash()),
        events,
        outcome: game.outcome().map(outcome_of),
    }
}

#[derive(Deserialize)]
pub struct At {
    at: u64,
}

/// `POST /runs/RUN/commands?at=N`: the run's command at event index N, signed by its
/// player; answers the draws it brought, kept first.
pub async fn command(
    State(app): State<App>,
    ConnectInfo(peer): ConnectInfo<SocketAddr>,
    Path(run): Path<i64>,
    Query(At { at }): Query<At>,
    headers: HeaderMap,
    body: Body,
) -> Result<Json<Dealt>, Refusal> {
    let most = MOST_COMMAND_BYTES as u64;
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
        Post::Command,
        "command",
        most,
    )
    .await?;
    check_owner(&app, run, &player, &key).await?;
    let bytes = upload.bytes.clone();
    app.check_claim(&player, command_content(run, at, &bytes), &key, &signature)?;
    limits::take(
        &app.pool,
        app.config.limits,
        Post::Command,
        Bucket::Key(&key),
    )
    .await?;
    let command = match sandglass_replay::events_from_bytes(&bytes).as_deref() {
        Ok([Event::Command(command)]) => *command,
        Ok(_) => {
            return Err(Refusal::new(
                StatusCode::UNPROCESSABLE_ENTITY,
                "a dealt run takes one command at a time, and no draws: the server deals them",
            ))
        }
        Err(e) => return Err(Refusal::new(StatusCode::UNPROCESSABLE_ENTITY, e)),
    };
    let mut client = app.pool.get().await?;
    let tx = client.transaction().await?;
    bind_on_first_stretch(&tx, run, &player, &key).await?;
    let held = locked_run(&tx, run).await?;
    if !held.dealt {
        return Err(Refusal::new(
            StatusCode::CONFLICT,
            format!(
                "run {run} is not dealt: its player sends its events, draws and all, to \
                 /runs/{run}/events"
            ),
        ));
    }
    if let Some(why) = &held.refused {
        return Err(Refusal::new(
            StatusCode::CONFLICT,
            format!("run {run} was stopped: {why}"),
        ));
    }
    // The run's game as the server holds it; before its first command, its opening,
    // kept with that command.
    let (live, mut new) = match app.dealt_folds.take(run, held.events) {
        Some(live) => (live, vec![]),
        None if held.events == 0 => opening(&held.header).await?,
        None => (resumed(&tx, run, &held).await?, vec![]),
    };
    let next = held.events + new.len() as u64;
    // A game put back unplayed is kept for the next command only where it holds what the
    // server holds: an opening not yet kept is folded again, not cached as kept.
    let put_back = |live: Live, opening: &[Event]| {
        if opening.is_empty() {
            app.dealt_folds.put(run, held.events, live);
        }
    };
    if at < next {
        put_back(live, &new);
        return again(&tx, run, &held, at, command).await.map(Json);
    }
    if at > next {
        put_back(live, &new);
        return Err(Refusal::new(StatusCode::CONFLICT, gap(run, next, at)));
    }
    if held.ended {
        return Err(Refusal::new(
            StatusCode::CONFLICT,
            format!("run {run} has ended: nothing follows its last event"),
        ));
    }
    let played = tokio::task::spawn_blocking(move || {
        let mut live = live;
        let result = live.command(command, &mut (), &mut new);
        (live, new, result)
    })
    .await
    .map_err(|e| Refusal::internal(e.into()))?;
    let (live, new, result) = played;
    if let Err(why) = result {
        // Refused before anything changed: the run goes on from where it was.
        put_back(live, &new);
        return Err(Refusal::new(
            StatusCode::UNPROCESSABLE_ENTITY,
            format!("event {at} is not a command the camel can make now: {why}"),
        ));
    }
    let (events, outcome) = keep(&app, &tx, run, &held, &new, live.state()).await?;
    tx.commit().await?;
    // Kept: now, and only now, what the command brought is dealt.
    let draws = &new[(at + 1 - held.events) as usize..];
    let answer = dealt(run, at + 1, draws, live.state(), events);
    if outcome.is_none() {
        app.dealt_folds.put(run, events, live);
    }
    Ok(Json(answer))
}

/// The game of a run whose events the server holds, folded again (a process that has
/// not played this run yet, or dropped it), its generator where the run's draws end.
async fn resumed(tx: &Transaction<'_>, run: i64, held: &Run) -> Result<Live, Refusal> {
    let verifier = refold(tx, run, held).await?;
    let state = verifier
        .finish()
        .map_err(|e| Refusal::internal(anyhow::anyhow!("run {run} ends mid-step: {e}")))?;
    Ok(Live::resume(held.header.seed, state))
}

/// A command sent again at `at`, an index the server holds: if it is the command held
/// there, what it was dealt, as it was dealt; any other is refused, and the run is as
/// it was.
async fn again(
    tx: &Transaction<'_>,
    run: i64,
    held: &Run,
    at: u64,
    command: Command,
) -> Result<Dealt, Refusal> {
    let events = events_from(tx, run, 0).await?;
    match events.get(at as usize) {
        Some(Event::Command(kept)) if *kept == command => {}
        Some(Event::Command(kept)) => {
            return Err(Refusal::new(
                StatusCode::CONFLICT,
                format!(
                    "event {at} of run {run} is a {} already, dealt and kept: a dealt run's \
                     commands never change once sent",
                    kept.name()
                ),
            ))
        }
        _ => {
            return Err(Refusal::new(
                StatusCode::CONFLICT,
                format!("event {at} of run {run} is a draw the server dealt, not a command"),
            ))
        }
    }
    let end = events[at as usize + 1..]
        .iter()
        .position(|e| matches!(e, Event::Command(_)))
        .map_or(events.len(), |i| at as usize + 1 + i);
    let header = held.header.clone();
    let folded = events[..end].to_vec();
    let game = tokio::task::spawn_blocking(move || {
        let rules = Rules::of(&header).map_err(|e| anyhow::anyhow!("{e}"))?;
        let verifier = Verifier::new(rules, header.seed, &mut ());
        fold_onto(verifier, folded)
            .map_err(|(index, why)| anyhow::anyhow!("kept event {index} does not fold: {why}"))
    })
    .await
    .map_err(|e| Refusal::internal(e.into()))?
    .map_err(|e| Refusal::internal(e.context(format!("run {run}"))))?;
    let draws = &events[at as usize + 1..end];
    Ok(dealt(run, at + 1, draws, game.state(), end as u64))
}
