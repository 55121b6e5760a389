//! A request refused, in words: the status and a line a player can act on. Bad input is
//! answered this way and changes nothing. Every 429 and 503 says when to try again
//! (`Retry-After`), which `sandglass submit` and the streamer wait for.

use axum::http::{header, StatusCode};
use axum::response::{IntoResponse, Response};

#[derive(Debug)]
pub struct Refusal {
    pub status: StatusCode,
    pub words: String,
    /// Seconds to wait before trying again, for a refusal that passes.
    pub retry_after: Option<u64>,
}

/// What a 429 or a 503 says to wait when nothing better is known.
const RETRY_AFTER: u64 = 5;

impl Refusal {
    pub fn new(status: StatusCode, words: impl ToString) -> Refusal {
        Refusal {
            status,
            words: words.to_string(),
            retry_after: None,
        }
    }

    /// The same refusal, saying to try again in `seconds`.
    pub fn retry_after(self, seconds: u64) -> Refusal {
        Refusal {
            retry_after: Some(seconds.max(1)),
            ..self
        }
    }

    /// Something on the server's side failed (the database, the storage): said in the
    /// server's log, and to the client only as that, since its details are the
    /// server's.
    pub fn internal(error: anyhow::Error) -> Refusal {
        tracing::error!("{error:#}");
        Refusal::new(
            StatusCode::SERVICE_UNAVAILABLE,
            "the server cannot take this now; try again later",
        )
    }
}

impl From<anyhow::Error> for Refusal {
    fn from(error: anyhow::Error) -> Refusal {
        Refusal::internal(error)
    }
}

impl From<deadpool_postgres::PoolError> for Refusal {
    fn from(error: deadpool_postgres::PoolError) -> Refusal {
        Refusal::internal(error.into())
    }
}

impl From<tokio_postgres::Error> for Refusal {
    fn from(error: tokio_postgres::Error) -> Refusal {
        Refusal::internal(error.into())
    }
}

impl IntoResponse for Refusal {
    fn into_response(self) -> Response {
        let passes = [
            StatusCode::TOO_MANY_REQUESTS,
            StatusCode::SERVICE_UNAVAILABLE,
        ];
        let retry_after = self
            .retry_after
            .or_else(|| passes.contains(&self.status).then_some(RETRY_AFTER));
        let mut response = (self.status, format!("{}\n", self.words)).into_response();
        if let Some(seconds) = retry_after {
            response
                .headers_mut()
                .insert(header::RETRY_AFTER, seconds.into());
        }
        response
    }
}
