//! A request refused, in words: the status and a line a player can act on. Bad input is
//! answered this way and changes nothing.

use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};

#[derive(Debug)]
pub struct Refusal {
    pub status: StatusCode,
    pub words: String,
}

impl Refusal {
    pub fn new(status: StatusCode, words: impl ToString) -> Refusal {
        Refusal {
            status,
            words: words.to_string(),
        }
    }

    /// Something on the server's side failed (the database, the storage): said in the
    /// server's log, and to the client only as that, since its details are the
    /// server's.
    pub fn internal(error: anyhow::Error) -> Refusal {
        eprintln!("error: {error:#}");
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
        (self.status, format!("{}\n", self.words)).into_response()
    }
}
