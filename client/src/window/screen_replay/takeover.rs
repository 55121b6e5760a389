//! Taking over from here: a new saved game whose log is the replay's up to the cursor,
//! copied (or, for a stored game, forked) on a thread of its own while the replay screen
//! goes on drawing with its timeline held still; then played, or its summary shown. In a
//! browser, which keeps no saved games, asking is answered with where to do it.

#[cfg(not(target_arch = "wasm32"))]
use std::sync::atomic::{AtomicU64, Ordering};
#[cfg(not(target_arch = "wasm32"))]
use std::sync::Arc;
#[cfg(not(target_arch = "wasm32"))]
use std::thread::JoinHandle;

use egui_macroquad::egui;
#[cfg(not(target_arch = "wasm32"))]
use sandglass_store::{GameMeta, Stage, Status, StoreError};

use super::super::{App, Go};
use super::ReplayScreen;
#[cfg(not(target_arch = "wasm32"))]
use super::Tape;

/// What the take-over button says of itself.
#[cfg(not(target_arch = "wasm32"))]
const TAKE_OVER_HINT: &str = "A new saved game whose log is this one's up to here (t)";
#[cfg(target_arch = "wasm32")]
const TAKE_OVER_HINT: &str = "In the native window: a new saved game whose log is this \
    one's up to here (t)";

/// What the page says where the native window would copy the log into a new game.
#[cfg(target_arch = "wasm32")]
const NATIVE_ONLY: &str = "Taking over, playing and saving are the native window's: there \
    are no saved games in a browser. Run `sandglass replay FILE.sgr` and press t there.";

/// Taking over copies the log up to the cursor into a new game, which takes seconds on a
/// game of a million events: the copy runs on a thread of its own while the screen goes on
/// drawing, with the timeline held still. In a browser, asking is answered with where
/// to do it (`NATIVE_ONLY`).
pub(super) enum TakeOver {
    No,
    Asked,
    #[cfg(not(target_arch = "wasm32"))]
    Copying(Job),
}

/// A take-over under way on its own thread.
#[cfg(not(target_arch = "wasm32"))]
pub(super) struct Job {
    job: JoinHandle<Result<GameMeta, StoreError>>,
    /// Thousandths of the work done, as the thread last said.
    done: Arc<AtomicU64>,
    turn: u64,
}

#[cfg(not(target_arch = "wasm32"))]
impl Job {
    /// What the player reads while it runs.
    fn note(&self) -> String {
        let done = self.done.load(Ordering::Relaxed);
        format!(
            "Taking over at turn {}: copying the log up to here, {}.{}% done...",
            self.turn,
            done / 10,
            done % 10
        )
    }
}

/// Thousandths of a take-over's work after `done` events of `stage`, of `len`: the fold
/// that checks the tape is the first half, writing it the second.
#[cfg(not(target_arch = "wasm32"))]
fn thousandths(stage: Stage, done: u64, len: u64) -> u64 {
    let half = done.min(len) * 500 / len.max(1);
    match stage {
        Stage::Writing => 500 + half,
        // A take-over reads no log and moves no database: never told these.
        Stage::Reading | Stage::Checking | Stage::Migrating { .. } | Stage::Compacting { .. } => {
            half
        }
    }
}

impl ReplayScreen {
    /// Asks for a take-over at the cursor: the next update starts it (or says why not).
    pub(super) fn ask_to_take_over(&mut self) {
        self.take_over = TakeOver::Asked;
    }

    /// The strip's button that asks for a take-over.
    pub(super) fn take_over_button(&mut self, ui: &mut egui::Ui) {
        if ui
            .button("Take over from here")
            .on_hover_text(TAKE_OVER_HINT)
            .clicked()
        {
            self.ask_to_take_over();
        }
    }

    /// Moves a take-over on, once a frame: starts the one asked for, or plays the game
    /// once the copy is done. `Some` while a take-over holds the screen still, with where
    /// it leads; `None` when there is none and the screen goes on as it was.
    pub(super) fn go_on_taking_over(&mut self, app: &mut App) -> anyhow::Result<Option<Go>> {
        match std::mem::replace(&mut self.take_over, TakeOver::No) {
            TakeOver::No => Ok(None),
            TakeOver::Asked => {
                self.pause();
                self.fork_here(app)?;
                Ok(Some(Go::Stay))
            }
            #[cfg(not(target_arch = "wasm32"))]
            TakeOver::Copying(copy) if copy.job.is_finished() => {
                Ok(Some(self.taken_over(copy.job)))
            }
            #[cfg(not(target_arch = "wasm32"))]
            copying => {
                self.take_over = copying;
                Ok(Some(Go::Stay))
            }
        }
    }

    /// What the player reads while the log is copied.
    #[cfg(not(target_arch = "wasm32"))]
    pub(super) fn copying_note(&self) -> Option<String> {
        match &self.take_over {
            TakeOver::Copying(copy) => Some(copy.note()),
            _ => None,
        }
    }

    /// Nothing is ever copied in a browser.
    #[cfg(target_arch = "wasm32")]
    pub(super) fn copying_note(&self) -> Option<String> {
        None
    }

    #[cfg(not(target_arch = "wasm32"))]
    pub(super) fn copying(&self) -> bool {
        matches!(self.take_over, TakeOver::Copying(_))
    }

    /// Nothing is ever copied in a browser.
    #[cfg(target_arch = "wasm32")]
    pub(super) fn copying(&self) -> bool {
        false
    }

    /// Starts forking a new live game whose log is this replay's up to the cursor (back
    /// to the last point where the player was to act).
    #[cfg(not(target_arch = "wasm32"))]
    fn fork_here(&mut self, app: &mut App) -> anyhow::Result<()> {
        if self
            .replay
            .live
            .as_ref()
            .is_some_and(|live| !live.run.seed_known)
        {
            self.note = Some(
                "This run's seed is kept by its server until its day is over: a game can be \
                 taken over from it then, not before."
                    .into(),
            );
            return Ok(());
        }
        let timeline = self.timeline();
        let Some(at) = timeline.take_over_at(self.position()) else {
            self.note = Some(
                "The first level is still being drawn: a game can be taken over once the \
                 camel is to act."
                    .into(),
            );
            return Ok(());
        };
        if at == timeline.end() && timeline.outcome().is_some() {
            self.note = Some("The game is over here: go back a little to take over.".into());
            return Ok(());
        }
        let turn = timeline.tick_at(at).0;
        if at != self.position() {
            // What is forked is what the screen shows: between two of the camel's choices
            // the cursor first goes back to the last, and the player takes over from
            // there with a second press, having seen it.
            self.jump(at);
            self.note = Some(format!(
                "A game is taken over where the camel is to act: this is its last choice \
                 before the cursor, at turn {turn}. Take over again to play on from here."
            ));
            return Ok(());
        }
        self.start_copy(app, at, turn)
    }

    /// Starts the thread that makes the new game, under a name of its own, from the log up
    /// to `at` (on `turn`): a fork of a stored game, a copy of any other.
    #[cfg(not(target_arch = "wasm32"))]
    fn start_copy(&mut self, app: &mut App, at: u64, turn: u64) -> anyhow::Result<()> {
        let name = app
            .store
            .free_name(&format!("{} from turn {turn}", self.replay.title))?;
        let store = app.store.clone();
        let done = Arc::new(AtomicU64::new(0));
        let told = Arc::clone(&done);
        let timeline = self.timeline();
        let job = match (&self.replay.tape, &self.replay.live) {
            // A fork of a stored game shares its history: nothing to copy.
            (Some(Tape::Game(id)), _) => {
                let id = *id;
                std::thread::spawn(move || store.fork(id, &name, at).map(|(meta, _)| meta))
            }
            // A take-over from a file or a live game shares no stored history: it is
            // copied, and marked as a branch of the file or the run.
            (tape, live) => {
                let header = timeline.header().clone();
                let events = timeline.events()[..at as usize].to_vec();
                let from = match (tape, live) {
                    (Some(Tape::File(path)), _) => {
                        let name = path.file_name().unwrap_or(path.as_os_str());
                        name.to_string_lossy().into_owned()
                    }
                    (_, Some(live)) => live.url.clone(),
                    _ => self.replay.title.clone(),
                };
                std::thread::spawn(move || {
                    let len = events.len() as u64;
                    store.take_over_file(&name, &header, &events, &from, &mut |stage, at| {
                        told.store(thousandths(stage, at, len), Ordering::Relaxed)
                    })
                })
            }
        };
        self.take_over = TakeOver::Copying(Job { job, done, turn });
        Ok(())
    }

    /// Where to take over, in a browser, which has no saved games to copy the log into.
    #[cfg(target_arch = "wasm32")]
    fn fork_here(&mut self, _app: &mut App) -> anyhow::Result<()> {
        self.note = Some(NATIVE_ONLY.to_owned());
        Ok(())
    }

    /// Plays the game taken over, or says why there is none.
    #[cfg(not(target_arch = "wasm32"))]
    fn taken_over(&mut self, copy: JoinHandle<Result<GameMeta, StoreError>>) -> Go {
        match copy.join() {
            Ok(Ok(meta)) if meta.status == Status::Alive => Go::TakeOver(meta.id),
            Ok(Ok(meta)) => Go::Over(meta.id),
            Ok(Err(error)) => {
                self.note = Some(crate::input::messages::quoted(&format!(
                    "Could not take over: {error}."
                )));
                Go::Stay
            }
            Err(_) => {
                self.note = Some("Could not take over: the copy stopped with an error.".into());
                Go::Stay
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_take_over_counts_its_check_then_its_writing() {
        assert_eq!(thousandths(Stage::Checking, 0, 1000), 0);
        assert_eq!(thousandths(Stage::Checking, 1000, 1000), 500);
        assert_eq!(thousandths(Stage::Writing, 0, 1000), 500);
        assert_eq!(thousandths(Stage::Writing, 500, 1000), 750);
        assert_eq!(thousandths(Stage::Writing, 2000, 1000), 1000);
        assert_eq!(thousandths(Stage::Writing, 0, 0), 500);
    }
}
