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
use bytes::Bytes;
use sandglass_claim::{
    content_hash, hex, Claim, ClaimError, KEY_HEADER, PLAYER_HEADER, SIGNATURE_HEADER,
};
use sandglass_sim::Recording;
use tokio_postgres::Transaction;

use crate::daily;
use crate::limits::{self, Bucket};
use crate::refusal::Refusal;
use crate::serve::{ruleset_label, App};

pub async fn submit(
    State(app): State<App>,
    ConnectInfo(peer): ConnectInfo<SocketAddr>,
    headers: HeaderMap,
    body: Body,
) -> Result<Response, Refusal> {
    // Read before anything is refused, so that a client still sending its game hears
    // why rather than finding the connection closed under it.
    let bytes = read_body(&app, &headers, body).await?;
    take(&app, &Bucket::Address(peer.ip())).await?;
    let (player, key, signature) = signed_by(&headers)?;
    let checked = bytes.clone();
    let file = tokio::task::spawn_blocking(move || sandglass_replay::from_bytes(&checked))
        .await
        .map_err(|e| Refusal::internal(e.into()))?
        .map_err(|e| Refusal::new(StatusCode::UNPROCESSABLE_ENTITY, e))?;
    let hash = content_hash(&bytes);
    let claim = Claim {
        server: &app.config.public_url,
        player: &player,
        content: hash,
    };
    claim.check(&key, &signature).map_err(|e| {
        let words = match e {
            // A client that signed for another URL (the server behind a proxy, named
            // another way) is told which one this server goes by.
            ClaimError::Forged => format!("{e} (this server is {})", app.config.public_url),
            e => e.to_string(),
        };
        Refusal::new(StatusCode::UNAUTHORIZED, words)
    })?;
    // One key, one spelling: hexadecimal's either case.
    let key = key.to_ascii_lowercase();
    take(&app, &Bucket::Key(&key)).await?;
    let hash = hex(&hash);
    let mut client = app.pool.get().await?;
    let tx = client.transaction().await?;
    let player_id = bind_name(&tx, &player, &key).await?;
    let url = format!("{}/games/{hash}", app.config.public_url);
    match owner(&tx, &hash).await? {
        Some((owner_id, _)) if owner_id == player_id => {
            return Ok((StatusCode::OK, format!("already sent: {url}\n")).into_response());
        }
        Some((_, owner)) => {
            return Err(Refusal::new(
                StatusCode::CONFLICT,
                format!("this game was sent already, by {owner}: it is theirs"),
            ));
        }
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
    if !add_game(&tx, &hash, player_id, bytes.len(), &file).await? {
        // Sent at the same moment by someone else, whose row came first.
        return Err(Refusal::new(
            StatusCode::CONFLICT,
            "this game was sent at the same moment by another; look for it on the server",
        ));
    }
    tx.commit().await?;
    let headers = [(header::LOCATION, format!("/games/{hash}"))];
    Ok((StatusCode::ACCEPTED, headers, format!("queued: {url}\n")).into_response())
}

/// The claim's name, public key and signature, from the request's headers.
pub(crate) fn signed_by(headers: &HeaderMap) -> Result<(String, String, String), Refusal> {
    let [player, key, signature] = [PLAYER_HEADER, KEY_HEADER, SIGNATURE_HEADER].map(|name| {
        headers
            .get(name)
            .and_then(|value| value.to_str().ok())
            .unwrap_or("")
            .to_owned()
    });
    if player.is_empty() || key.is_empty() || signature.is_empty() {
        return Err(Refusal::new(
            StatusCode::UNAUTHORIZED,
            format!(
                "a game must be sent signed: the player's name, public key and signature in \
                 {PLAYER_HEADER}, {KEY_HEADER} and {SIGNATURE_HEADER} (`sandglass submit` does this)"
            ),
        ));
    }
    Ok((player, key, signature))
}

/// Takes a submission from `bucket`, or refuses with 429.
pub(crate) async fn take(app: &App, bucket: &Bucket<'_>) -> Result<(), Refusal> {
    if limits::take(&app.pool, app.config.limits, bucket).await? {
        return Ok(());
    }
    Err(Refusal::new(
        StatusCode::TOO_MANY_REQUESTS,
        format!(
            "too many games sent from this {}: at most {} a minute; try again later",
            bucket.what(),
            bucket.limits(app.config.limits).per_minute
        ),
    ))
}

/// The body, refused unread when it says it is too large and cut off when it grows
/// past the limit: no upload makes the server hold more than `most_bytes`.
async fn read_body(app: &App, headers: &HeaderMap, body: Body) -> Result<Bytes, Refusal> {
    let most = app.config.most_bytes;
    let too_large = |size: String| {
        Refusal::new(
            StatusCode::PAYLOAD_TOO_LARGE,
            format!("the file is {size} bytes, more than this server takes (at most {most})"),
        )
    };
    let declared = headers
        .get(header::CONTENT_LENGTH)
        .and_then(|value| value.to_str().ok()?.parse::<u64>().ok());
    if let Some(size) = declared.filter(|&size| size > most) {
        return Err(too_large(size.to_string()));
    }
    let most_usize = usize::try_from(most).unwrap_or(usize::MAX);
    axum::body::to_bytes(body, most_usize)
        .await
        .map_err(|_| too_large("more than that".into()))
}

/// The player `name` as `key`: the name is bound to the first key that claims it, and a
/// key plays under one name.
pub(crate) async fn bind_name(tx: &Transaction<'_>, name: &str, key: &str) -> Result<i64, Refusal> {
    tx.execute(
        "INSERT INTO players (name, public_key) VALUES ($1, $2) ON CONFLICT DO NOTHING",
        &[&name, &key],
    )
    .await?;
    let rows = tx
        .query(
            "SELECT id, name, public_key FROM players WHERE name = $1 OR public_key = $2",
            &[&name, &key],
        )
        .await?;
    let mut other_name = None;
    for row in rows {
        let (id, held, held_by): (i64, String, String) = (row.get(0), row.get(1), row.get(2));
        match (held == name, held_by == key) {
            (true, true) => return Ok(id),
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
    let held = other_name.unwrap_or_default();
    Err(Refusal::new(
        StatusCode::FORBIDDEN,
        format!("this key plays here as {held}; send games as {held}"),
    ))
}

/// Who sent the game `hash` already, if anyone: their id and name.
async fn owner(tx: &Transaction<'_>, hash: &str) -> Result<Option<(i64, String)>, Refusal> {
    let row = tx
        .query_opt(
            "SELECT p.id, p.name FROM games g JOIN players p ON p.id = g.player_id
             WHERE g.hash = $1",
            &[&hash],
        )
        .await?;
    Ok(row.map(|row| (row.get(0), row.get(1))))
}

/// The game's row, with what its header says, and its place in the queue; `false` if
/// another transaction added the game first.
pub(crate) async fn add_game(
    tx: &Transaction<'_>,
    hash: &str,
    player_id: i64,
    size: usize,
    file: &Recording,
) -> Result<bool, Refusal> {
    let header = &file.header;
    let added = tx
        .execute(
            "INSERT INTO games (hash, player_id, size, rules_version, ruleset, seed, events)
         VALUES ($1, $2, $3, $4, $5, $6, $7) ON CONFLICT (hash) DO NOTHING",
            &[
                &hash,
                &player_id,
                &(size as i64),
                &i32::from(header.rules_version),
                &ruleset_label(&header.ruleset),
                &header.seed.to_string(),
                &(file.events.len() as i64),
            ],
        )
        .await?;
    if added == 0 {
        return Ok(false);
    }
    tx.execute("INSERT INTO queue (game) VALUES ($1)", &[&hash])
        .await?;
    Ok(true)
}
