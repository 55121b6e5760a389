//! The web replay viewer's page (`web/dist/`, built by `cargo xtask web`), served at
//! `/viewer/` when the server is given the folder: a game's "watch" link then opens on
//! the same server as the game's bytes, with nothing else to run.

use std::path::PathBuf;

use axum::extract::{Path, State};
use axum::http::{header, StatusCode};
use axum::response::{IntoResponse, Response};

use crate::app::App;
use crate::refusal::Refusal;

/// Where the page is served.
pub const PATH: &str = "/viewer/";

/// `GET /viewer/`: the page itself.
pub async fn index(State(app): State<App>) -> Result<Response, Refusal> {
    serve(&app, "index.html").await
}

/// `GET /viewer/FILE`: one of the page's files.
pub async fn file(State(app): State<App>, Path(name): Path<String>) -> Result<Response, Refusal> {
    serve(&app, &name).await
}

/// The file `name` of the page's folder: a plain name of the folder's own (the page is
/// flat), never a path out of it.
async fn serve(app: &App, name: &str) -> Result<Response, Refusal> {
    let missing = || Refusal::new(StatusCode::NOT_FOUND, "no such file");
    let dir: &PathBuf = app.config.web.as_ref().ok_or_else(missing)?;
    let plain = |c: char| c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.');
    if name.starts_with('.') || !name.chars().all(plain) {
        return Err(missing());
    }
    let kind = match name.rsplit('.').next() {
        Some("html") => "text/html; charset=utf-8",
        Some("js") => "text/javascript",
        Some("wasm") => "application/wasm",
        _ => "application/octet-stream",
    };
    let body = tokio::fs::read(dir.join(name))
        .await
        .map_err(|_| missing())?;
    Ok(([(header::CONTENT_TYPE, kind)], body).into_response())
}
