//! The folded state of the daily runs this process is taking stretches (`runs`) or
//! commands (`dealt`) of, kept between them so that a step costs its own fold and not the
//! run's. A cache: a process that lacks a run's fold folds its events again.

use std::collections::HashMap;
use std::sync::Mutex;

/// Runs whose folded state a server process keeps between stretches; past it, the
/// least recently used is dropped and folded again from its stretches if it comes back.
const MOST_LIVE_FOLDS: usize = 4096;

/// The folded state of the runs being played, kept so that a stretch costs its own fold
/// and not the run's: each with how many events it has folded and when it was last used.
/// `F` is what folds on: a `Verifier` for a streamed run, a `Live` game for a dealt one.
pub struct LiveFolds<F> {
    /// The folds, and a count of uses that orders them by when they were last used.
    folds: Mutex<(HashMap<i64, LiveFold<F>>, u64)>,
}

impl<F> Default for LiveFolds<F> {
    fn default() -> Self {
        LiveFolds {
            folds: Mutex::new((HashMap::new(), 0)),
        }
    }
}

struct LiveFold<F> {
    fold: F,
    events: u64,
    used: u64,
}

impl<F> LiveFolds<F> {
    /// The run's fold at `events` events, taken out while a stretch is folded onto it.
    pub fn take(&self, run: i64, events: u64) -> Option<F> {
        let mut folds = self.folds.lock().unwrap_or_else(|e| e.into_inner());
        match folds.0.remove(&run) {
            Some(fold) if fold.events == events => Some(fold.fold),
            _ => None,
        }
    }

    pub fn put(&self, run: i64, events: u64, fold: F) {
        let mut guard = self.folds.lock().unwrap_or_else(|e| e.into_inner());
        let (folds, clock) = &mut *guard;
        *clock += 1;
        if folds.len() >= MOST_LIVE_FOLDS {
            if let Some(&oldest) = folds.iter().min_by_key(|(_, f)| f.used).map(|(r, _)| r) {
                folds.remove(&oldest);
            }
        }
        let used = *clock;
        folds.insert(run, LiveFold { fold, events, used });
    }
}
