//! What this process counts as it runs, for `/metrics`: requests answered by status,
//! and the live viewers it holds. Kept below the application state that holds it, so
//! that the metrics' handlers and the live streams both reach it without reaching
//! each other.

use std::collections::BTreeMap;
use std::sync::atomic::{AtomicI64, Ordering};
use std::sync::{Arc, Mutex};

use axum::http::StatusCode;

/// What this process has counted since it started.
#[derive(Default)]
pub struct Counters {
    requests: Mutex<BTreeMap<u16, u64>>,
    viewers: AtomicI64,
}

impl Counters {
    pub fn answered(&self, status: StatusCode) {
        let mut requests = self.requests.lock().unwrap_or_else(|e| e.into_inner());
        *requests.entry(status.as_u16()).or_default() += 1;
    }

    /// Requests answered so far, by status.
    pub fn requests(&self) -> BTreeMap<u16, u64> {
        self.requests
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .clone()
    }

    /// Live viewers held now.
    pub fn viewers(&self) -> i64 {
        self.viewers.load(Ordering::Relaxed)
    }

    /// A live viewer for as long as the guard is held.
    pub fn viewer(self: &Arc<Self>) -> ViewerHeld {
        self.viewers.fetch_add(1, Ordering::Relaxed);
        ViewerHeld(self.clone())
    }
}

/// One live viewer, counted until dropped.
pub struct ViewerHeld(Arc<Counters>);

impl Drop for ViewerHeld {
    fn drop(&mut self) {
        self.0.viewers.fetch_sub(1, Ordering::Relaxed);
    }
}
