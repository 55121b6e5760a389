//! Progress bars for the jobs that go over every event of a game (import, export, verify),
//! and for those that go over many games at once (verify, scores).
//!
//! A bar is drawn on stderr, and only when stderr is a terminal: indicatif's stderr target
//! hides itself when stderr is a pipe or a file, or `TERM` is unset or `dumb`, so scripts
//! and tests, which read stdout and stderr through pipes, never see one.

use std::path::Path;

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use sandglass_store::{Stage, Store, StoreError};

/// Opens the store in `dir`, with a bar while a data directory of an older layout is
/// moved to this build's (`Stage::Migrating`) or one whose deletes freed much of it is
/// rewritten (`Stage::Compacting`); none when there is neither to do.
pub fn open_store(dir: &Path) -> Result<Store, StoreError> {
    let mut count: Option<Count> = None;
    Store::open_telling(dir, &mut |stage, done| {
        let (len, unit) = match stage {
            Stage::Migrating { games } => (games, "games moved"),
            Stage::Compacting { bytes } => (bytes, "bytes rewritten"),
            _ => return,
        };
        count
            .get_or_insert_with(|| Count::new("data directory", len, unit))
            .set(done);
    })
}

/// Runs a store job that tells its progress (`Store::import`, `export`), with a bar over
/// its `len` events labelled `what`.
pub fn with_bar<T>(what: &str, len: u64, job: impl FnOnce(&mut dyn FnMut(Stage, u64)) -> T) -> T {
    let mut bar = Bar::new(what, len);
    job(&mut |stage, done| bar.at(stage, done))
}

/// How a bar names a file: by its name alone, which leaves the bar room on the line.
pub fn file_label(path: &Path) -> String {
    let name = path.file_name().unwrap_or(path.as_os_str());
    name.to_string_lossy().into_owned()
}

const TEMPLATE: &str = "{prefix} {msg:8} [{wide_bar}] {human_pos}/{human_len} events";

/// A bar over a job on `len` events, cleared when dropped: only the job's result stays on
/// the screen.
pub struct Bar {
    bar: ProgressBar,
    stage: Option<Stage>,
}

impl Bar {
    /// A bar for a job on `what` (a file or a game, as the user named it).
    pub fn new(what: &str, len: u64) -> Bar {
        let style = ProgressStyle::with_template(TEMPLATE)
            .expect("the template names only indicatif's keys")
            .progress_chars("=> ");
        let bar = ProgressBar::with_draw_target(Some(len), ProgressDrawTarget::stderr())
            .with_style(style)
            .with_prefix(what.to_owned());
        Bar { bar, stage: None }
    }

    /// Where the job stands: `done` events through `stage`.
    pub fn at(&mut self, stage: Stage, done: u64) {
        if self.stage != Some(stage) {
            self.stage = Some(stage);
            self.bar.set_message(stage.name());
        }
        self.bar.set_position(done);
    }

    /// The job turns out to be on `len` events (known once its replay is found).
    pub fn set_len(&mut self, len: u64) {
        self.bar.set_length(len);
    }
}

impl Drop for Bar {
    fn drop(&mut self) {
        self.bar.finish_and_clear();
    }
}

const COUNT_TEMPLATE: &str = "{prefix} [{wide_bar}] {human_pos}/{human_len} {msg}";

/// A bar over a job on `len` items (games, files) that several threads get through in any
/// order, each telling the count so far; cleared when dropped.
pub struct Count {
    bar: ProgressBar,
}

impl Count {
    /// A bar labelled `what`, counting `unit` ("games proved").
    pub fn new(what: &str, len: u64, unit: &str) -> Count {
        let style = ProgressStyle::with_template(COUNT_TEMPLATE)
            .expect("the template names only indicatif's keys")
            .progress_chars("=> ");
        let bar = ProgressBar::with_draw_target(Some(len), ProgressDrawTarget::stderr())
            .with_style(style)
            .with_prefix(what.to_owned())
            .with_message(unit.to_owned());
        Count { bar }
    }

    /// `done` items are through. Counts told out of order never move the bar back.
    pub fn set(&self, done: u64) {
        if done > self.bar.position() {
            self.bar.set_position(done);
        }
    }
}

impl Drop for Count {
    fn drop(&mut self) {
        self.bar.finish_and_clear();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_bar_takes_every_stage_of_a_job() {
        let mut bar = Bar::new("game.sgr", 100);
        for stage in [Stage::Reading, Stage::Checking, Stage::Writing] {
            bar.at(stage, 0);
            bar.at(stage, 100);
            assert_eq!(bar.bar.message(), stage.name());
            assert_eq!(bar.bar.position(), 100);
        }
    }

    #[test]
    fn a_count_told_out_of_order_only_goes_forward() {
        let count = Count::new("scores", 10, "games proved");
        count.set(4);
        count.set(2);
        assert_eq!(count.bar.position(), 4);
        count.set(10);
        assert_eq!(count.bar.position(), 10);
    }
}
