//! `POST /games`: a signed game taken, checked at once, kept and queued for a verifier.
//!
//! Everything that can be checked without folding is checked before anything is
//! written: the size, the limits, the claim's headers, the bytes (sandglass-replay's
//! checks, in `sandglass verify`'s words), the signature, the name's key and the
//! upload's owner. What is refused changes nothing but the refused party's bucket.

use std::net::SocketAddr;

use axum::body::Body;
use axum::extract::{ConnectInfo, State};
use axum::http::{header, HeaderMap, StatusCode};
use axum::response::{IntoResponse, Response};
use deadpool_postgres::Transaction;
use sandglass_claim::{content_hash, hex};
use sandglass_replay::play::Play;
use sandglass_replay::ReplayError;
use sandglass_sim::Recording;

use crate::app::App;
use crate::limits::{self, Bucket, Post};
use crate::names::ruleset_label;
use crate::refusal::Refusal;
use crate::upload::{self, Signed};
use crate::{daily, plays};

pub async fn submit(
    State(app): State<App>,
    ConnectInfo(peer): ConnectInfo<SocketAddr>,
    headers: HeaderMap,
    body: Body,
) -> Result<Response, Refusal> {
    let most = app.config.most_bytes;
    let (
        Signed {
            player,
            key,
            signature,
        },
        upload,
    ) = upload::read_signed(&app, peer.ip(), &headers, body, Post::Game, "file", most).await?;
    let limits = app.config.limits;
    let bytes = upload.bytes.clone();
    let checked = bytes.clone();
    let (file, play) = tokio::task::spawn_blocking(move || {
        let file = sandglass_replay::from_bytes(&checked)?;
        let play = Play::of(&file.header, &file.events);
        Ok::<_, ReplayError>((file, play))
    })
    .await
    .map_err(|e| Refusal::internal(e.into()))?
    .map_err(|e| Refusal::new(StatusCode::UNPROCESSABLE_ENTITY, e))?;
    let hash = content_hash(&bytes);
    app.check_claim(&player, hash, &key, &signature)?;
    limits::take(&app.pool, limits, Post::Game, Bucket::Key(&key)).await?;
    let hash = hex(&hash);
    let mut client = app.pool.get().await?;
    let tx = client.transaction().await?;
    let player_id = bind_name(&tx, &player, &key).await?;
    plays::lock_seed(&tx, &file.header).await?;
    match plays::kin(&tx, &play, player_id).await? {
        Some(kin) if kin.player_id == player_id => {
            let url = format!("{}/games/{}", app.config.public_url, kin.game);
            return Ok((StatusCode::OK, format!("already sent: {url}\n")).into_response());
        }
        Some(kin) => return Err(Refusal::new(StatusCode::CONFLICT, kin.refusal_words())),
        None => {}
    }
    if let Some(day) = daily::unrevealed_day(&tx, file.header.seed).await? {
        return Err(Refusal::new(
            StatusCode::FORBIDDEN,
            format!(
                "this game's seed is the daily desert of {day}, kept secret until that day is \
                 over: send it after (a daily run is on the day's board already, as it was played)"
            ),
        ));
    }
    // The bytes are kept before the row that names them is committed, so that no row
    // ever names bytes that are missing; bytes whose row never commits are harmless,
    // found under their hash by the next to send them.
    app.objects.keep(&hash, bytes.clone()).await?;
    if !add_game(&tx, &hash, player_id, bytes.len(), &file, &play).await? {
        // These very bytes are held, kept before the server knew games by their play and
        // not yet worked out (`plays::learn_older`).
        return Err(Refusal::new(
            StatusCode::CONFLICT,
            "this game's bytes are held here already; look for it on the server",
        ));
    }
    tx.commit().await?;
    let url = format!("{}/games/{hash}", app.config.public_url);
    let headers = [(header::LOCATION, format!("/games/{hash}"))];
    Ok((StatusCode::ACCEPTED, headers, format!("queued: {url}\n")).into_response())
}

/// The player `name` as `key`: the name is bound to the first key that claims it, and a
/// key plays under one name.
pub(crate) async fn bind_name(tx: &Transaction<'_>, name: &str, key: &str) -> Result<i64, Refusal> {
    let insert = tx
        .prepare_cached(
            "INSERT INTO players (name, public_key) VALUES ($1, $2) ON CONFLICT DO NOTHING",
        )
        .await?;
    tx.execute(&insert, &[&name, &key]).await?;
    match bound_as(tx, name, key).await? {
        Some(id) => Ok(id),
        None => Err(Refusal::internal(anyhow::anyhow!(
            "the player {name} was bound and then not found"
        ))),
    }
}

/// The player `name` as `key` if the two are bound together already, `None` if neither
/// is bound yet; refused if either is bound to another.
pub(crate) async fn bound_as(
    tx: &Transaction<'_>,
    name: &str,
    key: &str,
) -> Result<Option<i64>, Refusal> {
    let select = tx
        .prepare_cached(
            "SELECT id, name, public_key FROM players WHERE name = $1 OR public_key = $2",
        )
        .await?;
    let rows = tx.query(&select, &[&name, &key]).await?;
    let mut other_name = None;
    for row in rows {
        let (id, held, held_by): (i64, String, String) = (row.get(0), row.get(1), row.get(2));
        match (held == name, held_by == key) {
            (true, true) => return Ok(Some(id)),
            (true, false) => {
                return Err(Refusal::new(
                    StatusCode::FORBIDDEN,
                    format!(
                        "the name {name} belongs to another player's key here; choose another name"
                    ),
                ))
            }
            _ => other_name = Some(held),
        }
    }
    match other_name {
        None => Ok(None),
        Some(held) => Err(Refusal::new(
            StatusCode::FORBIDDEN,
            format!("this key plays here as {held}; send games as {held}"),
        )),
    }
}

/// The game's row, with what its header says, and its place in the queue; `false` if
/// another transaction added the game first.
pub(crate) async fn add_game(
    tx: &Transaction<'_>,
    hash: &str,
    player_id: i64,
    size: usize,
    file: &Recording,
    play: &Play,
) -> Result<bool, Refusal> {
    let header = &file.header;
    let (commands, digests) = plays::marks(play);
    // One statement: the row, its play's marks and its place in the queue, or nothing
    // at all when the row is there already.
    let insert = tx
        .prepare_cached(
            "WITH game AS (
                 INSERT INTO games (hash, player_id, size, rules_version, ruleset, seed, events,
                                    play, commands)
                 VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9) ON CONFLICT (hash) DO NOTHING
                 RETURNING hash
             ), marks AS (
                 INSERT INTO play_marks (game, commands, digest)
                 SELECT game.hash, m.commands, m.digest
                 FROM game, unnest($10::integer[], $11::text[]) AS m (commands, digest)
             )
             INSERT INTO queue (game) SELECT hash FROM game RETURNING game",
        )
        .await?;
    let added = tx
        .query_opt(
            &insert,
            &[
                &hash,
                &player_id,
                &(size as i64),
                &i32::from(header.rules_version),
                &ruleset_label(&header.ruleset),
                &header.seed.to_string(),
                &(file.events.len() as i64),
                &hex(&play.whole),
                &(play.commands as i64),
                &commands,
                &digests,
            ],
        )
        .await?;
    Ok(added.is_some())
}
