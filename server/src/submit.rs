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
use sandglass_claim::{content_hash, hex};
use sandglass_replay::play::Play;
use sandglass_replay::ReplayError;

use crate::app::App;
use crate::days::unrevealed_day;
use crate::games::add_game;
use crate::limits::{self, Bucket, Post};
use crate::players::bind_name;
use crate::plays;
use crate::refusal::Refusal;
use crate::upload::{self, Signed};

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
    plays::all_known(&tx).await?;
    match plays::kin(&tx, &play, player_id).await? {
        Some(kin) if kin.player_id == player_id => {
            let url = format!("{}/games/{}", app.config.public_url, kin.game);
            return Ok((StatusCode::OK, format!("already sent: {url}\n")).into_response());
        }
        Some(kin) => return Err(Refusal::new(StatusCode::CONFLICT, kin.refusal_words())),
        None => {}
    }
    if let Some(day) = unrevealed_day(&tx, file.header.seed).await? {
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
