//! How the server is doing, for whoever runs it: a log line per request (its address,
//! method, path, status and time), `GET /healthz` (the database and the object store
//! both answer), and `GET /metrics` in Prometheus's text format: the queue's depth,
//! verdicts by outcome (a counter, whose rate is folds per second), requests by status
//! since the process started, and the live viewers it holds.

use std::fmt::Write;
use std::net::SocketAddr;

use axum::extract::{ConnectInfo, Request, State};
use axum::http::{header, StatusCode};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use tokio::time::Instant;

use crate::app::App;
use crate::refusal::Refusal;

/// Logs and counts every request once it is answered.
pub async fn log_and_count(
    State(app): State<App>,
    ConnectInfo(client): ConnectInfo<SocketAddr>,
    request: Request,
    next: Next,
) -> Response {
    let start = Instant::now();
    let method = request.method().clone();
    let path = request.uri().path().to_owned();
    let response = next.run(request).await;
    let status = response.status();
    app.counters.answered(status);
    tracing::info!(
        client = %client.ip(),
        %method,
        path,
        status = status.as_u16(),
        ms = %format_args!("{:.3}", start.elapsed().as_secs_f64() * 1e3),
        "request"
    );
    response
}

/// `GET /healthz`: 200 when the database and the object store both answer, else 503
/// saying which does not.
pub async fn healthz(State(app): State<App>) -> Result<&'static str, Refusal> {
    let unwell = |what: &str| {
        Refusal::new(
            StatusCode::SERVICE_UNAVAILABLE,
            format!("{what} does not answer"),
        )
    };
    let client = app.pool.get().await.map_err(|_| unwell("the database"))?;
    client
        .query_one("SELECT 1", &[])
        .await
        .map_err(|_| unwell("the database"))?;
    app.objects
        .reach()
        .await
        .map_err(|_| unwell("the object store"))?;
    Ok("ok\n")
}

/// `GET /metrics`, in Prometheus's text format.
pub async fn metrics(State(app): State<App>) -> Result<Response, Refusal> {
    let client = app.pool.get().await?;
    let queued: i64 = client
        .query_one("SELECT count(*) AS queued FROM queue", &[])
        .await?
        .get("queued");
    let verdicts = client
        .query(
            "SELECT CASE WHEN NOT ok THEN 'refused' ELSE coalesce(outcome, 'in play') END
                        AS outcome,
                    count(*) AS count
             FROM verdicts GROUP BY 1 ORDER BY 1",
            &[],
        )
        .await?;
    let mut out = String::new();
    let mut metric = |name: &str, kind: &str, help: &str| {
        let _ = writeln!(out, "# HELP {name} {help}\n# TYPE {name} {kind}");
    };
    metric(
        "sandglass_queue_depth",
        "gauge",
        "Games waiting for a verifier.",
    );
    metric(
        "sandglass_verdicts_total",
        "counter",
        "Games folded, by what the fold came to.",
    );
    metric(
        "sandglass_requests_total",
        "counter",
        "Requests this process answered, by status.",
    );
    metric(
        "sandglass_live_viewers",
        "gauge",
        "Live viewers this process is streaming to.",
    );
    let _ = writeln!(out, "sandglass_queue_depth {queued}");
    for row in verdicts {
        let (outcome, count): (String, i64) = (row.get("outcome"), row.get("count"));
        let _ = writeln!(
            out,
            "sandglass_verdicts_total{{outcome=\"{outcome}\"}} {count}"
        );
    }
    for (status, count) in app.counters.requests() {
        let _ = writeln!(
            out,
            "sandglass_requests_total{{status=\"{status}\"}} {count}"
        );
    }
    let viewers = app.counters.viewers();
    let _ = writeln!(out, "sandglass_live_viewers {viewers}");
    let content_type = "text/plain; version=0.0.4; charset=utf-8";
    Ok(([(header::CONTENT_TYPE, content_type)], out).into_response())
}
