//! Opening the data directory's store on a thread of its own, so that a long open (a
//! migration from an older layout, or the rewrite that gives back the room of deleted
//! games) is shown in the window as it goes, and the window answers meanwhile.

use std::path::PathBuf;
use std::sync::mpsc::{self, Receiver, RecvTimeoutError};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use macroquad::prelude::*;
use sandglass_store::{Stage, Store};

use super::{draw_map, hud};

/// How far a long open has got: the stage it is in and the count it told with it.
type Progress = Arc<Mutex<Option<(Stage, u64)>>>;

/// A store being opened.
pub struct PendingStore {
    opened: Receiver<anyhow::Result<Store>>,
    progress: Progress,
}

impl PendingStore {
    /// Starts opening the store in `dir`.
    pub fn start(dir: PathBuf) -> PendingStore {
        let (send, opened) = mpsc::channel();
        let progress = Progress::default();
        let told = Arc::clone(&progress);
        std::thread::spawn(move || {
            let store = Store::open_telling(&dir, &mut |stage, done| {
                *told.lock().unwrap_or_else(|e| e.into_inner()) = Some((stage, done));
            });
            // Nobody left to tell only if the window is gone.
            let _ = send.send(store.map_err(anyhow::Error::from));
        });
        PendingStore { opened, progress }
    }

    /// The store, if its open ends within `wait` (failed or not); else the open still
    /// going on.
    pub fn within(self, wait: Duration) -> Result<anyhow::Result<Store>, PendingStore> {
        match self.opened.recv_timeout(wait) {
            Ok(opened) => Ok(opened),
            Err(RecvTimeoutError::Timeout) => Err(self),
            Err(RecvTimeoutError::Disconnected) => Ok(Err(stopped())),
        }
    }

    /// The store, once open, saying in the window how the open goes, a frame at a time.
    pub async fn shown(self, text: &hud::Text) -> anyhow::Result<Store> {
        crate::report::line("opening shown");
        loop {
            match self.opened.try_recv() {
                Ok(opened) => {
                    crate::report::line("opened");
                    return opened;
                }
                Err(mpsc::TryRecvError::Disconnected) => return Err(stopped()),
                Err(mpsc::TryRecvError::Empty) => {}
            }
            let told = *self.progress.lock().unwrap_or_else(|e| e.into_inner());
            clear_background(draw_map::BACKGROUND);
            let area = Rect::new(0.0, 0.0, screen_width(), screen_height());
            let lines = [(progress_line(told), hud::TEXT)];
            hud::dialog(text, area, 16.0, "Opening your games", &lines);
            // The window may sleep between inputs: this frame asks for the next.
            macroquad::miniquad::window::schedule_update();
            next_frame().await;
        }
    }
}

/// The opening thread ended without a word: it panicked, and said so on stderr.
fn stopped() -> anyhow::Error {
    anyhow::anyhow!("the game database could not be opened: its opening stopped")
}

/// What the window says while the store opens, told `told`.
fn progress_line(told: Option<(Stage, u64)>) -> String {
    match told {
        Some((Stage::Migrating { games }, done)) => {
            format!("Moving your games to this build's layout: {done} of {games}.")
        }
        Some((Stage::Compacting { bytes }, done)) => format!(
            "Giving back the room of deleted games: {}%.",
            done.min(bytes) * 100 / bytes.max(1)
        ),
        _ => "Opening the data directory.".to_owned(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_line_says_what_a_long_open_is_doing_and_how_far_it_is() {
        assert_eq!(progress_line(None), "Opening the data directory.");
        assert_eq!(
            progress_line(Some((Stage::Migrating { games: 10_000 }, 3_200))),
            "Moving your games to this build's layout: 3200 of 10000."
        );
        assert_eq!(
            progress_line(Some((Stage::Compacting { bytes: 400 }, 100))),
            "Giving back the room of deleted games: 25%."
        );
        assert_eq!(
            progress_line(Some((Stage::Compacting { bytes: 0 }, 0))),
            "Giving back the room of deleted games: 0%."
        );
    }
}
