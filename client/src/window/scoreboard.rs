//! The high-score table on the start screen. It opens at once with what the stored
//! verdicts prove (`scores::stored`, from the games' records alone). A thread of its own
//! then reads the logs of those games to see that each is still the log its verdict
//! proved (`scores::doubted`), and folds, over every core, the games without a verdict
//! and any whose log changed; they join the table as each is proved, so the window never
//! waits for a fold. A game not yet proved is listed, marked, and never ranked.

use std::sync::atomic::AtomicBool;
use std::sync::mpsc::{self, Receiver};
use std::sync::Arc;

use sandglass_store::{GameId, GameMeta, Store, StoreError};

use crate::cli::scores::{self, Entry, Proved, Stored};
use crate::report;

/// The table while it is open, and its highlighted row.
pub struct Board {
    entries: Vec<Entry>,
    choice: usize,
    proving: Option<Proving>,
}

/// What the thread has to tell, as it comes.
enum News {
    /// One more log read, and found to be the one its verdict proved.
    Checked,
    /// A log that is not the one its verdict proved: the game is to be folded again.
    Doubted(GameMeta),
    Proved(Proved),
}

/// The work under way: its news as it comes, and how much there is (logs to read and
/// games to fold).
struct Proving {
    results: Receiver<News>,
    done: usize,
    total: usize,
    /// Set when the table closes: the games not begun are left for next time.
    stop: Arc<AtomicBool>,
}

impl Drop for Proving {
    fn drop(&mut self) {
        self.stop.store(true, std::sync::atomic::Ordering::Relaxed);
    }
}

impl Board {
    /// The table as the stored verdicts make it, with the folds of the rest started; `None`
    /// if there are no games.
    pub fn open(store: &Store) -> Result<Option<Board>, StoreError> {
        let Stored {
            entries,
            claims,
            pending,
        } = scores::stored(store)?;
        if entries.is_empty() {
            return Ok(None);
        }
        report::line(&format!(
            "scores shown {} games {} proving",
            entries.len(),
            pending.len()
        ));
        let proving = Some(Proving::start(store.clone(), claims, pending));
        Ok(Some(Board {
            entries,
            choice: 0,
            proving,
        }))
    }

    pub fn entries(&self) -> &[Entry] {
        &self.entries
    }

    pub fn choice(&self) -> usize {
        self.choice
    }

    pub fn choose(&mut self, choice: usize) {
        self.choice = choice;
    }

    /// How far the folds have got, while they are under way: (done, of).
    pub fn progress(&self) -> Option<(usize, usize)> {
        self.proving.as_ref().map(|p| (p.done, p.total))
    }

    /// Takes the games proved since the last frame into the table, ranked again, the
    /// highlight staying on its game.
    pub fn update(&mut self) {
        let Some(proving) = &mut self.proving else {
            return;
        };
        let mut doubted = vec![];
        let mut proved = vec![];
        for news in proving.results.try_iter() {
            match news {
                News::Checked => proving.done += 1,
                News::Doubted(meta) => {
                    doubted.push(meta);
                    // Read (and counted so), and now to be folded too.
                    proving.total += 1;
                }
                News::Proved(p) => {
                    proving.done += 1;
                    proved.push(p);
                }
            }
        }
        if proving.done >= proving.total {
            self.proving = None;
            report::line("scores proved");
        }
        if doubted.is_empty() && proved.is_empty() {
            return;
        }
        let chosen: Option<GameId> = self.entries.get(self.choice).map(|e| e.meta.id);
        scores::doubt(&mut self.entries, &doubted);
        scores::apply(&mut self.entries, &proved);
        if let Some(id) = chosen {
            self.choice = self
                .entries
                .iter()
                .position(|e| e.meta.id == id)
                .unwrap_or(0);
        }
    }
}

impl Proving {
    /// On a thread of its own (which spreads the work over rayon's threads): reads the
    /// logs of the games taken as proved, then folds the `pending` and those whose log
    /// changed, sending news as it comes, and remembers the verdicts folded once done.
    fn start(store: Store, claims: Vec<(GameMeta, u64)>, pending: Vec<GameMeta>) -> Proving {
        let (send, results) = mpsc::channel();
        let stop = Arc::new(AtomicBool::new(false));
        let total = claims.len() + pending.len();
        let stopped = Arc::clone(&stop);
        std::thread::spawn(move || {
            // A closed table drops the receiver: the work goes on to its end all the same
            // unless stopped, and what was folded is kept.
            let doubted = scores::doubted(&store, &claims, &stopped, &|_| {
                let _ = send.send(News::Checked);
            });
            for meta in &doubted {
                let _ = send.send(News::Doubted(meta.clone()));
            }
            let games = [pending, doubted].concat();
            let proved = scores::prove(&store, &games, &stopped, &|_, proved| {
                let _ = send.send(News::Proved(proved.clone()));
            });
            // A cache: a store that cannot take it now proves these games again next time.
            let _ = scores::remember(&store, &proved);
        });
        Proving {
            results,
            done: 0,
            total,
            stop,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use sandglass_sim::bot::Bot;
    use sandglass_sim::{Header, Ruleset};

    #[test]
    fn the_board_opens_with_games_unproved_and_takes_them_in_as_they_are_folded() {
        let dir = tempfile::tempdir().unwrap();
        let store = Store::open(dir.path()).unwrap();
        for seed in 1..=4 {
            let header = Header::new(seed, Ruleset::NETHACK, 0);
            let mut session = store.create(&format!("g{seed}"), header, &mut ()).unwrap();
            Bot::new(seed).play(&mut session, 30).unwrap();
        }
        let mut board = Board::open(&store).unwrap().unwrap();
        assert_eq!(board.progress(), Some((0, 4)));
        assert!(board.entries().iter().all(|e| e.rank.is_none()));
        board.choose(2);
        let chosen = board.entries()[2].meta.id;
        while board.progress().is_some() {
            board.update();
            std::thread::yield_now();
        }
        assert!(board.entries().iter().all(|e| e.rank.is_some()));
        assert_eq!(board.entries()[board.choice()].meta.id, chosen);
        // Remembered by the thread once done: the next board has nothing to fold. The
        // thread commits after its last news, so wait for it to let go of the store.
        let deadline = std::time::Instant::now() + std::time::Duration::from_secs(30);
        while !scores::stored(&store).unwrap().pending.is_empty() {
            assert!(std::time::Instant::now() < deadline, "never remembered");
            std::thread::sleep(std::time::Duration::from_millis(10));
        }
    }
}
