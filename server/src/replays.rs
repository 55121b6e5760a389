//! `GET /replays/HASH.sgr`: a shown game's bytes, as sent.

use axum::extract::{Path, State};
use axum::http::{header, StatusCode};
use axum::response::{IntoResponse, Response};

use crate::app::App;
use crate::names::is_hash;
use crate::refusal::Refusal;

/// `GET /replays/HASH.sgr`: a game's bytes, as sent, for the web viewer and for anyone
/// who wants to fold it themselves. Any page may fetch them (the viewer may be served
/// from elsewhere), and they never change, so they may be cached for good.
pub async fn replay(State(app): State<App>, Path(file): Path<String>) -> Result<Response, Refusal> {
    let Some(hash) = file.strip_suffix(".sgr").filter(|hash| is_hash(hash)) else {
        return Err(Refusal::new(StatusCode::NOT_FOUND, "no such replay"));
    };
    let known = app
        .pool
        .get()
        .await?
        .query_opt("SELECT 1 FROM shown_games WHERE hash = $1", &[&hash])
        .await?;
    if known.is_none() {
        return Err(Refusal::new(StatusCode::NOT_FOUND, "no such replay"));
    }
    let bytes = app.objects.fetch(hash).await?;
    let headers = [
        (header::CONTENT_TYPE, "application/octet-stream"),
        (header::ACCESS_CONTROL_ALLOW_ORIGIN, "*"),
        (header::CACHE_CONTROL, "public, max-age=31536000, immutable"),
    ];
    Ok((headers, bytes).into_response())
}
