//! The database of one data directory: opening it, and the games as a list.

use std::collections::BTreeSet;
use std::io;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::{Duration, Instant};

use sled::{Db, Tree};

use super::durable::Durability;
use super::error::{is_full, StoreError};
use super::layout::{self, decode_record, LAYOUT_VERSION};
use super::seal::{Seal, WRITES};
use super::{compact, migrate, replace, reserve};
use super::{GameId, GameMeta, Stage};

/// How long `Store::open` waits for the data directory's lock before calling it in use, as
/// SQLite's busy timeout does. sled lets go of its lock file only once its last background
/// write is done, an instant after the store is dropped (longer on a loaded machine), and
/// a process spawned at that instant holds a copy of the descriptor until it starts; a
/// directory closed a moment ago is not in use. A directory really held by another process
/// is reported after this long.
pub const LOCK_WAIT: Duration = Duration::from_secs(3);

/// How many keys tidying up removes between two checks of the room left on the disk: their
/// keys in sled's log and, at worst, a few leaves of its tree rewritten, far less than
/// the room the check asks for.
const TIDY_BATCH: usize = 64;

/// The sled database of one data directory. Only one process may hold it at a time; its
/// clones share the one database, from any thread.
#[derive(Clone)]
pub struct Store {
    pub(super) dir: PathBuf,
    pub(super) db: Db,
    pub(super) games: Tree,
    /// Every game's log (`log`), keyed by game and event index (`layout::key`).
    pub(super) steps: Tree,
    /// Every game's snapshots, keyed likewise.
    pub(super) snapshots: Tree,
    pub(super) verdicts: Tree,
    /// Which game holds each name (`layout::NAMES`).
    pub(super) names: Tree,
    /// Where each branch came from (`branch`).
    pub(super) branches: Tree,
    /// Where each streamed game is sent (`stream`).
    pub(super) streams: Tree,
    /// Which games are dealt runs (`deal`).
    pub(super) dealt: Tree,
    seal: Arc<Seal>,
    durable: Arc<Durability>,
    /// Whether the store opened without giving up its reserve, and so may take new writes
    /// (`reserve`).
    room: bool,
}

impl Store {
    /// Opens (creating if needed) the database in `dir`, waiting up to `LOCK_WAIT` for
    /// another holder to let go of it. A database of an older layout is migrated first,
    /// and one whose deletes freed as much as it holds is rewritten compactly (`compact`).
    pub fn open(dir: &Path) -> Result<Store, StoreError> {
        Store::open_with(dir, LOCK_WAIT, &mut |_, _| ())
    }

    /// `open`, waiting up to `wait` for the lock.
    pub fn open_waiting(dir: &Path, wait: Duration) -> Result<Store, StoreError> {
        Store::open_with(dir, wait, &mut |_, _| ())
    }

    /// `open`, telling `progress` how a migration from an older layout goes, if there is
    /// one to do (`Stage::Migrating`, with the count of games moved so far).
    pub fn open_telling(
        dir: &Path,
        progress: &mut dyn FnMut(Stage, u64),
    ) -> Result<Store, StoreError> {
        Store::open_with(dir, LOCK_WAIT, progress)
    }

    fn open_with(
        dir: &Path,
        wait: Duration,
        progress: &mut dyn FnMut(Stage, u64),
    ) -> Result<Store, StoreError> {
        let made = !dir.exists();
        std::fs::create_dir_all(dir).map_err(|e| dir_error(dir, e))?;
        probe_writable(dir).map_err(|e| dir_error(dir, e))?;
        // A migration that was ready to take the database's place when it stopped takes
        // it now; one that was not is cleared. Either way what is left is one database.
        replace::finish(dir).map_err(|e| dir_error(dir, e))?;
        let mut compacted = false;
        let (db, released, seal) = loop {
            let (db, released) = match open_db(dir, wait) {
                Err(StoreError::DiskFull) if reserve::release(dir) => (open_db(dir, wait)?, true),
                opened => (opened?, false),
            };
            let (seal, sealed) = Seal::open(dir).map_err(|e| dir_error(dir, e))?;
            let writes = layout::count_in(db.get(WRITES)?.as_deref());
            if let Some(sealed) = sealed.filter(|&sealed| writes < sealed) {
                return Err(StoreError::Lost {
                    dir: dir.to_owned(),
                    writes,
                    sealed,
                    seal: seal.path().to_owned(),
                });
            }
            match layout_of(&db, dir)? {
                Some(LAYOUT_VERSION) => {
                    // Deletes that freed much of the database have their room given back
                    // (`compact`), once per open: a copy that could not be made is not
                    // tried again until the next.
                    let held = match released || compacted {
                        true => None,
                        false => compact::worthwhile(&db, dir)?,
                    };
                    let Some(held) = held else {
                        break (db, released, seal);
                    };
                    compacted = true;
                    drop(seal);
                    compact::rewrite(db, dir, held, progress)?;
                }
                Some(older) => {
                    // The migration builds the new database beside this one and puts it
                    // in its place once every game in it is checked; then it is opened.
                    drop(seal);
                    migrate::to_current(db, dir, older, progress)?;
                }
                None => {
                    db.insert(layout::LAYOUT, &LAYOUT_VERSION.to_be_bytes())?;
                    db.flush()?;
                    break (db, released, seal);
                }
            }
        };
        let durable = Durability::open(dir, made).map_err(|e| dir_error(dir, e))?;
        let store = Store {
            dir: dir.to_owned(),
            games: db.open_tree(layout::GAMES)?,
            steps: db.open_tree(layout::STEPS)?,
            snapshots: db.open_tree(layout::SNAPSHOTS)?,
            verdicts: db.open_tree(layout::VERDICTS)?,
            names: db.open_tree(layout::NAMES)?,
            branches: db.open_tree(layout::BRANCHES)?,
            streams: db.open_tree(layout::STREAMS)?,
            dealt: db.open_tree(layout::DEALT)?,
            db,
            seal: Arc::new(seal),
            durable: Arc::new(durable),
            room: !released,
        };
        // The reserve first: tidying up takes only the room beside it.
        reserve::keep(dir);
        // Tidying up may wait for a disk with room: what is stored reads the same without
        // it. A store that had to give up its reserve to open does not try, nor does one
        // on a disk short of room (`reserve::room_to_tidy`, checked again as it goes): the
        // removal of a large import a full disk cut short takes room before it frees any,
        // and sled fails every later call, reads too, once a write of its own has failed.
        if store.room && reserve::room_to_tidy(dir) {
            for tidy in [Store::drop_orphans, Store::catch_up] {
                match tidy(&store) {
                    Err(StoreError::DiskFull) => {}
                    done => done?,
                }
            }
        }
        Ok(store)
    }

    /// Whether deletes have freed enough of the database for the next open to rewrite it
    /// compactly (`compact`).
    pub fn has_room_to_give_back(&self) -> Result<bool, StoreError> {
        Ok(self.room && compact::worthwhile(&self.db, &self.dir)?.is_some())
    }

    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// Fails unless the store may take new writes: a store opened on a full disk is for
    /// reading (see `reserve`), and one whose disk failed a sync takes none (`durable`).
    pub(super) fn check_room(&self) -> Result<(), StoreError> {
        self.durable.check()?;
        if self.room {
            Ok(())
        } else {
            Err(StoreError::DiskFull)
        }
    }

    /// Makes every write so far durable, counting it in the database and then in the seal
    /// (see `seal`): flushed by sled, then synced (`durable`); only then may it be
    /// acknowledged.
    pub(super) fn commit(&self) -> Result<(), StoreError> {
        self.durable.check()?;
        let writes = self.db.update_and_fetch(WRITES, |value| {
            Some((layout::count_in(value) + 1).to_be_bytes().to_vec())
        })?;
        self.db.flush()?;
        self.durable.sync()?;
        self.seal.record(layout::count_in(writes.as_deref()));
        Ok(())
    }

    /// Every game whose record is sound, by id. A damaged record hides only its own game:
    /// `damaged_records` says which.
    pub fn games(&self) -> Result<Vec<GameMeta>, StoreError> {
        Ok(self.records()?.into_iter().filter_map(Result::ok).collect())
    }

    /// Why each record that is not sound cannot be read, by id.
    pub fn damaged_records(&self) -> Result<Vec<StoreError>, StoreError> {
        Ok(self
            .records()?
            .into_iter()
            .filter_map(Result::err)
            .collect())
    }

    fn records(&self) -> Result<Vec<Result<GameMeta, StoreError>>, StoreError> {
        let mut records = vec![];
        for entry in self.games.iter() {
            let (key, value) = entry?;
            records.push(decode_record(&key, &value));
        }
        Ok(records)
    }

    pub fn meta(&self, id: GameId) -> Result<GameMeta, StoreError> {
        match self.games.get(id.key())? {
            Some(value) => decode_record(&id.key(), &value),
            None => Err(StoreError::NoSuchGame(id.to_string())),
        }
    }

    /// The game called `name_or_id`: a name first, then a number. Names cannot be all
    /// digits, so the two never clash.
    pub fn find(&self, name_or_id: &str) -> Result<GameMeta, StoreError> {
        if let Some(meta) = self.holder(name_or_id)? {
            return Ok(meta);
        }
        let missing = || StoreError::NoSuchGame(name_or_id.to_owned());
        let id = name_or_id.parse::<u64>().map_err(|_| missing())?;
        // A game whose record is damaged is there all the same: say what is wrong with it.
        match self.meta(GameId(id)) {
            Err(StoreError::NoSuchGame(_)) => Err(missing()),
            found => found,
        }
    }

    /// Deletes a game: its record first (flushed), so that a crash part-way leaves only
    /// steps and snapshots without a record, which the next `open` tidies. They go, or are
    /// cut back to what its forks still read; so are those of deleted games it read. The
    /// room they took is sled's to reuse at once, and the file system's again at an open
    /// once deletes have freed as much as the store holds (`compact`).
    pub fn delete(&self, id: GameId) -> Result<(), StoreError> {
        let meta = self.meta(id);
        if !self.games.contains_key(id.key())? {
            return Err(StoreError::NoSuchGame(id.to_string()));
        }
        self.count_unfinished(1)?;
        self.games.remove(id.key())?;
        self.branches.remove(id.key())?;
        self.streams.remove(id.key())?;
        self.dealt.remove(id.key())?;
        self.forget_verdict(id)?;
        self.commit()?;
        let read = match meta {
            Ok(meta) => {
                // Only if it is still this game's: a name is never held by two games, but
                // an entry left by a crash may lead elsewhere.
                let _ = self
                    .names
                    .compare_and_swap(&meta.name, Some(&id.key()), None::<&[u8]>)?;
                meta.shared
            }
            Err(_) => vec![],
        };
        let mut done = self.tidy(id)?;
        for span in read {
            if !self.games.contains_key(span.game.key())? {
                done &= self.tidy(span.game)?;
            }
        }
        // Cut short by a disk short of room, it is left counted for the next open.
        if done {
            self.count_unfinished(-1)?;
        }
        self.commit()?;
        Ok(())
    }

    /// Counts a write that may leave steps without a record as begun (`1`) or seen
    /// through (`-1`) (`layout::UNFINISHED`).
    pub(super) fn count_unfinished(&self, by: i64) -> Result<(), StoreError> {
        self.add_to_count(layout::UNFINISHED, by)
    }

    /// Adds `by` to the count under `key` in sled's default tree (`layout::count_in`).
    fn add_to_count(&self, key: &[u8], by: i64) -> Result<(), StoreError> {
        self.db.update_and_fetch(key, |count| {
            let count = layout::count_in(count).saturating_add_signed(by);
            Some(count.to_be_bytes().to_vec())
        })?;
        Ok(())
    }

    /// Fails unless `name` is a valid name that no game has yet.
    pub fn check_new_name(&self, name: &str) -> Result<(), StoreError> {
        if let Err(reason) = valid_name(name) {
            return Err(StoreError::BadName {
                name: name.to_owned(),
                reason,
            });
        }
        if self.holder(name)?.is_some() {
            return Err(StoreError::NameTaken(name.to_owned()));
        }
        Ok(())
    }

    /// The game called `name`, if one is. Looked up in `names`, not found by reading
    /// every record: making, naming or finding a game costs the same whatever the number
    /// of games. An entry is believed only when the record it leads to is sound and holds
    /// the name (`layout::NAMES`).
    fn holder(&self, name: &str) -> Result<Option<GameMeta>, StoreError> {
        let Some(id) = self.names.get(name)?.and_then(|id| GameId::from_key(&id)) else {
            return Ok(None);
        };
        Ok(self.meta(id).ok().filter(|meta| meta.name == name))
    }

    /// Writes that game `id` holds `name`, before its record is written.
    pub(super) fn claim_name(&self, name: &str, id: GameId) -> Result<(), StoreError> {
        self.names.insert(name, &id.key())?;
        Ok(())
    }

    /// `base`, or `base-2`, `base-3`, ... whichever is free first (`game` if `base` is not
    /// a valid name).
    pub fn free_name(&self, base: &str) -> Result<String, StoreError> {
        let base = if valid_name(base).is_ok() {
            base
        } else {
            "game"
        };
        let mut name = base.to_owned();
        let mut n = 2u64;
        while self.holder(&name)?.is_some() {
            name = format!("{base}-{n}");
            n += 1;
        }
        Ok(name)
    }

    /// The next game number: 1, 2, 3, ... never reused, even after a delete, and never
    /// one that a record, a step or a snapshot in the database already has, whatever the
    /// counter says (a counter gone backwards, or damaged, would otherwise hand out a
    /// stored game's).
    /// The game it is for is counted as begun (`count_unfinished`) until its record is
    /// written.
    pub(super) fn new_id(&self) -> Result<GameId, StoreError> {
        self.count_unfinished(1)?;
        let mut floor = self
            .games
            .last()?
            .and_then(|(k, _)| GameId::from_key(&k))
            .map_or(0, |id| id.0);
        for tree in [&self.steps, &self.snapshots] {
            if let Some((k, _)) = tree.last()? {
                // A key of another shape is no game's; it cannot raise the floor.
                if let Some((id, _)) = layout::split_key(&k) {
                    floor = floor.max(id.0);
                }
            }
        }
        let last = self.db.update_and_fetch(layout::LAST_ID, |last| {
            Some(
                (layout::count_in(last).max(floor) + 1)
                    .to_be_bytes()
                    .to_vec(),
            )
        })?;
        let id = last
            .and_then(|b| <[u8; 8]>::try_from(b.as_ref()).ok())
            .map(u64::from_be_bytes)
            .expect("the counter was just written as eight bytes");
        Ok(GameId(id))
    }

    /// Removes every step and snapshot of a game, the last first, while the disk has room
    /// (see `cut`); says whether it got through.
    pub(super) fn drop_game(&self, id: GameId) -> Result<bool, StoreError> {
        Ok(self.cut(&self.steps, layout::all_keys(id))?
            && self.cut(&self.snapshots, layout::all_keys(id))?)
    }

    /// Removes every key of `tree` in `range`, the last first, so that a crash part-way
    /// leaves what comes before whole. It stops, leaving the rest, when the disk is short
    /// of room (`reserve::room_to_tidy`, checked before each `TIDY_BATCH` removals, each
    /// batch flushed so that the check sees what it took): what is left belongs to no
    /// record, and the next open with room takes it on (`drop_orphans`). The bytes removed
    /// are counted (`layout::FREED`), for an open to give their room back (`compact`).
    /// Says whether it got through.
    pub(super) fn cut(
        &self,
        tree: &Tree,
        range: impl std::ops::RangeBounds<[u8; 16]> + Clone,
    ) -> Result<bool, StoreError> {
        loop {
            if !reserve::room_to_tidy(&self.dir) {
                return Ok(false);
            }
            let mut freed = 0;
            let mut emptied = false;
            for _ in 0..TIDY_BATCH {
                let Some((k, v)) = tree.range(range.clone()).next_back().transpose()? else {
                    emptied = true;
                    break;
                };
                freed += k.len() + v.len();
                tree.remove(k)?;
            }
            if freed > 0 {
                self.add_to_count(layout::FREED, freed as i64)?;
            }
            if emptied {
                return Ok(true);
            }
            self.db.flush()?;
        }
    }

    /// Tidies the steps and snapshots of games that have no record: left by a delete,
    /// fork or import that a crash interrupted (their record is written last). Only when
    /// one was begun and not seen through (`layout::UNFINISHED`): looking for them takes
    /// a seek per game, which opening a long history would otherwise pay every time.
    fn drop_orphans(&self) -> Result<(), StoreError> {
        let unfinished = self.db.get(layout::UNFINISHED)?;
        if unfinished.is_none_or(|count| count.iter().all(|&b| b == 0)) {
            return Ok(());
        }
        let mut orphans = BTreeSet::new();
        for tree in [&self.steps, &self.snapshots] {
            for id in games_in(tree)? {
                if !self.games.contains_key(id.key())? {
                    orphans.insert(id);
                }
            }
        }
        let mut done = true;
        for &id in &orphans {
            self.branches.remove(id.key())?;
            self.streams.remove(id.key())?;
            self.dealt.remove(id.key())?;
            done &= self.tidy(id)?;
        }
        // Nothing is being written while the store opens: what is left unfinished is all
        // there is, and if it is all tidied, nothing is.
        if done {
            self.db.remove(layout::UNFINISHED)?;
        }
        self.commit()?;
        Ok(())
    }
}

/// The games with at least one key in `tree` (`steps` or `snapshots`), found with one
/// seek per game rather than a read of every key: opening a store of many games looks
/// through them all.
fn games_in(tree: &Tree) -> Result<Vec<GameId>, StoreError> {
    let mut games = vec![];
    let mut from = vec![];
    while let Some((k, _)) = tree.range(from.as_slice()..).next().transpose()? {
        match layout::split_key(&k).map(|(id, _)| id) {
            Some(id) => {
                games.push(id);
                match id.0.checked_add(1) {
                    Some(next) => from = layout::key(GameId(next), 0).to_vec(),
                    None => break,
                }
            }
            // A key of another shape names no game: step past it.
            None => from = [k.as_ref(), &[0]].concat(),
        }
    }
    Ok(games)
}

/// The layout the database was written in, `None` for a new one. One without a recorded
/// layout but with games in it was written before the layout was recorded, in layout 1.
fn layout_of(db: &Db, dir: &Path) -> Result<Option<u16>, StoreError> {
    let Some(found) = db.get(layout::LAYOUT)? else {
        return Ok(migrate::unrecorded_layout(db));
    };
    let found = <[u8; 2]>::try_from(found.as_ref())
        .map(u16::from_be_bytes)
        .map_err(|_| StoreError::Damaged {
            name: "(all games)".into(),
            what: "the database's layout version does not decode".into(),
        })?;
    match found {
        1..=LAYOUT_VERSION => Ok(Some(found)),
        _ => Err(StoreError::Layout {
            dir: dir.to_owned(),
            found,
            supported: LAYOUT_VERSION,
        }),
    }
}

/// Why `name` cannot name a game.
fn valid_name(name: &str) -> Result<(), &'static str> {
    if name.trim().is_empty() {
        return Err("it is empty");
    }
    if name.trim() != name {
        return Err("it starts or ends with a space");
    }
    if name.chars().count() > 64 {
        return Err("it is longer than 64 characters");
    }
    if name.chars().any(char::is_control) {
        return Err("it holds control characters");
    }
    if name.chars().all(|c| c.is_ascii_digit()) {
        return Err("it is all digits, which would read as a game number");
    }
    if name.contains('/') || name.ends_with(".sgr") {
        return Err("it holds a `/` or ends in `.sgr`, which would read as a replay file");
    }
    Ok(())
}

/// sled opens its files for writing even to read, so a directory this process cannot write
/// to is reported before sled touches it, with a message that says so.
fn probe_writable(dir: &Path) -> io::Result<()> {
    let probe = dir.join(format!(".write-probe-{}", std::process::id()));
    std::fs::File::create(&probe)?;
    std::fs::remove_file(&probe)
}

fn dir_error(dir: &Path, cause: io::Error) -> StoreError {
    if is_full(&cause) {
        return StoreError::DiskFull;
    }
    let dir = dir.to_owned();
    match cause.kind() {
        io::ErrorKind::PermissionDenied | io::ErrorKind::ReadOnlyFilesystem => {
            StoreError::ReadOnly { dir, cause }
        }
        _ => StoreError::Open { dir, cause },
    }
}

/// Opens sled's database in `dir`, trying again while its lock is held, until `wait` has
/// passed.
fn open_db(dir: &Path, wait: Duration) -> Result<Db, StoreError> {
    let deadline = Instant::now() + wait;
    let mut pause = Duration::from_millis(2);
    let mut cleared = false;
    loop {
        match open_sled(dir)? {
            Err(e) if is_lock_held(&e) && Instant::now() < deadline => {
                std::thread::sleep(pause.min(deadline.saturating_duration_since(Instant::now())));
                pause = (pause * 2).min(Duration::from_millis(100));
            }
            Err(sled::Error::Corruption { .. }) if !cleared && clear_unfinished(dir) => {
                cleared = true;
            }
            result => return result.map_err(|e| open_error(dir, e)),
        }
    }
}

/// Removes the snapshot files that sled began and never finished (`snap.*.generating`),
/// and says whether there were any. sled leaves one behind when the disk fills while it
/// opens, and then takes it for damage on every later open; it renames a snapshot into
/// place only once it is whole, so such a file holds nothing the database needs.
fn clear_unfinished(dir: &Path) -> bool {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return false;
    };
    let unfinished: Vec<PathBuf> = entries
        .filter_map(|entry| Some(entry.ok()?.path()))
        .filter(|path| {
            path.file_name()
                .and_then(|n| n.to_str())
                .is_some_and(|n| n.starts_with("snap.") && n.ends_with(".generating"))
        })
        .collect();
    // Every one removed, so not `any`, which stops at the first.
    let removed = unfinished
        .iter()
        .filter(|path| std::fs::remove_file(path).is_ok())
        .count();
    removed > 0
}

/// Opens sled's database in `dir`. sled 0.34 panics on some damaged files while it
/// recovers them (an index out of bounds in its segment accounting): that panic is caught
/// here and reported as damage, the panic message kept off the terminal.
fn open_sled(dir: &Path) -> Result<sled::Result<Db>, StoreError> {
    let hook = std::panic::take_hook();
    std::panic::set_hook(Box::new(|_| {}));
    let opened = std::panic::catch_unwind(|| {
        sled::Config::new()
            .path(dir)
            .cache_capacity(CACHE_BYTES)
            .open()
    });
    std::panic::set_hook(hook);
    opened.map_err(|_| StoreError::Corrupt)
}

/// How much of the database sled keeps in memory once read. Its default, 1 GiB, let
/// every page read stay: `verify` of 300 games of 6,000 events grew by 0.4 MB a game, to
/// 146 MB, and a table or verify over a long history would grow with it; with 32 MiB it
/// took 98 MB, with 8 MiB 69 MB, in no more time. Reads go through the page cache of the
/// OS all the same (BENCHMARKS.md, "A lifetime of games").
const CACHE_BYTES: u64 = 8 << 20;

/// sled 0.34 reports a lock held by another open of its file only in the message.
fn is_lock_held(error: &sled::Error) -> bool {
    matches!(error, sled::Error::Io(e)
        if e.kind() == io::ErrorKind::Other && e.to_string().contains("could not acquire lock"))
}

fn open_error(dir: &Path, error: sled::Error) -> StoreError {
    match error {
        e if is_lock_held(&e) => StoreError::InUse {
            dir: dir.to_owned(),
        },
        sled::Error::Io(e) if !is_full(&e) => dir_error(dir, e),
        other => other.into(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fixtures::{commands_at, entries, own_steps, played, played_long};
    use crate::layout::key;
    use sandglass_sim::{Header, Ruleset};

    #[test]
    fn a_second_open_of_the_same_directory_is_refused_as_in_use_after_waiting() {
        let dir = tempfile::tempdir().unwrap();
        let _first = Store::open(dir.path()).unwrap();
        let wait = Duration::from_millis(300);
        let start = Instant::now();
        match Store::open_waiting(dir.path(), wait) {
            Err(StoreError::InUse { dir: d }) => assert_eq!(d, dir.path()),
            Err(other) => panic!("expected InUse, got {other}"),
            Ok(_) => panic!("a second open succeeded"),
        }
        assert!(
            start.elapsed() >= wait,
            "it gave up before its wait was over"
        );
    }

    /// The race that made the suite flaky: a store opened just as another lets go of the
    /// directory waits for it instead of calling it in use.
    #[test]
    fn an_open_waits_for_a_holder_that_lets_go() {
        let dir = tempfile::tempdir().unwrap();
        let first = Store::open(dir.path()).unwrap();
        let holder = std::thread::spawn(move || {
            std::thread::sleep(Duration::from_millis(200));
            drop(first);
        });
        let second = Store::open_waiting(dir.path(), Duration::from_secs(30));
        holder.join().unwrap();
        assert!(second.is_ok(), "{:?}", second.err());
        // Closed and reopened at once, many times over: never in use.
        drop(second);
        for _ in 0..20 {
            drop(Store::open(dir.path()).unwrap());
        }
    }

    /// A data directory holding one game, with no store open on it.
    fn closed_with_one_game() -> tempfile::TempDir {
        let dir = tempfile::tempdir().unwrap();
        let header = sandglass_sim::Header::new(1, sandglass_sim::Ruleset::NETHACK, 0);
        let store = Store::open(dir.path()).unwrap();
        drop(store.create("kept", header, &mut ()).unwrap());
        dir
    }

    /// What sled leaves when the disk fills while it opens, and then takes for damage.
    #[test]
    fn a_snapshot_sled_never_finished_is_cleared_and_the_store_opens() {
        let dir = closed_with_one_game();
        let unfinished = dir.path().join("snap.00000000DEADBEEF.generating");
        std::fs::File::create(&unfinished).unwrap();
        let store = Store::open(dir.path()).unwrap();
        assert_eq!(store.games().unwrap().len(), 1);
        assert!(!unfinished.exists());
    }

    #[test]
    fn a_database_in_another_layout_is_refused_naming_both_and_left_as_it_was() {
        let dir = closed_with_one_game();
        let set_layout = |bytes: &[u8]| {
            let db = open_db(dir.path(), LOCK_WAIT).unwrap();
            db.insert(layout::LAYOUT, bytes).unwrap();
            db.flush().unwrap();
        };
        set_layout(&7u16.to_be_bytes());
        match Store::open(dir.path()) {
            Err(StoreError::Layout {
                found, supported, ..
            }) => {
                assert_eq!((found, supported), (7, LAYOUT_VERSION))
            }
            Err(other) => panic!("expected Layout, got {other}"),
            Ok(_) => panic!("a database in layout 7 was opened"),
        }
        let db = open_db(dir.path(), LOCK_WAIT).unwrap();
        assert_eq!(
            db.get(layout::LAYOUT).unwrap().unwrap(),
            &7u16.to_be_bytes()[..]
        );
        assert_eq!(
            db.open_tree(layout::GAMES).unwrap().len(),
            1,
            "the game is still there"
        );
        drop(db);
        set_layout(b"?");
        let error = Store::open(dir.path()).err().unwrap();
        assert!(matches!(error, StoreError::Damaged { .. }), "{error}");
    }

    #[test]
    fn a_database_without_a_recorded_layout_is_marked_as_this_builds() {
        let dir = closed_with_one_game();
        let db = open_db(dir.path(), LOCK_WAIT).unwrap();
        db.remove(layout::LAYOUT).unwrap();
        db.flush().unwrap();
        drop(db);
        let store = Store::open(dir.path()).unwrap();
        assert_eq!(store.games().unwrap().len(), 1);
        assert_eq!(
            store.db.get(layout::LAYOUT).unwrap().unwrap(),
            &LAYOUT_VERSION.to_be_bytes()[..]
        );
    }

    #[test]
    fn a_data_directory_under_a_file_is_a_clear_error() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("plain");
        std::fs::write(&file, b"x").unwrap();
        let error = Store::open(&file.join("data")).err().unwrap();
        assert!(matches!(error, StoreError::Open { .. }), "{error}");
        assert!(error.to_string().contains("--data-dir"), "{error}");
    }

    #[test]
    fn game_numbers_count_up_across_reopens_and_deletes() {
        let dir = tempfile::tempdir().unwrap();
        let header = sandglass_sim::Header::new(1, sandglass_sim::Ruleset::NETHACK, 0);
        let create = |store: &Store, name: &str| {
            store
                .create(name, header.clone(), &mut ())
                .unwrap()
                .meta()
                .id
        };
        let store = Store::open(dir.path()).unwrap();
        assert_eq!(create(&store, "a"), GameId(1));
        assert_eq!(create(&store, "b"), GameId(2));
        store.delete(GameId(2)).unwrap();
        drop(store);
        let store = Store::open(dir.path()).unwrap();
        assert_eq!(create(&store, "c"), GameId(3));
        assert_eq!(store.free_name("a").unwrap(), "a-2");
        assert_eq!(store.free_name("12").unwrap(), "game");
    }

    #[test]
    fn a_name_is_free_again_once_its_game_is_deleted_and_a_stale_entry_holds_none_nor_finds_one() {
        let dir = closed_with_one_game();
        let store = Store::open(dir.path()).unwrap();
        let taken = store.check_new_name("kept");
        assert!(matches!(taken, Err(StoreError::NameTaken(_))), "{taken:?}");
        // An entry left by a crash before its record was written leads to no game.
        store.names.insert("ghost", &GameId(99).key()).unwrap();
        assert!(store.check_new_name("ghost").is_ok());
        assert_eq!(store.free_name("ghost").unwrap(), "ghost");
        assert!(matches!(
            store.find("ghost"),
            Err(StoreError::NoSuchGame(_))
        ));
        assert_eq!(store.free_name("kept").unwrap(), "kept-2");
        let id = store.find("kept").unwrap().id;
        store.delete(id).unwrap();
        assert!(store.check_new_name("kept").is_ok());
        assert_eq!(store.free_name("kept").unwrap(), "kept");
        assert!(matches!(store.find("kept"), Err(StoreError::NoSuchGame(_))));
        assert!(store.names.get("kept").unwrap().is_none());
    }

    /// The bytes a directory takes on disk (blocks allocated, not lengths).
    /// Issue 35: a tree per game made every new game cost more disk than the one before
    /// (the second thousand games took tens of megabytes). Now each costs about what its
    /// replay file does, however many came before: the disk the second thousand games add
    /// is within twice their `.sgr` bytes and 4 KB a game, and no more than the first
    /// thousand took (with the directory's fixed costs). Both bounds allow a few of sled's
    /// 512 KiB segments: where its background flush falls moves the figure by that much
    /// on a loaded machine.
    #[test]
    fn the_disk_a_game_takes_does_not_grow_with_the_games_before_it() {
        let dir = tempfile::tempdir().unwrap();
        let store = Store::open(dir.path()).unwrap();
        // Stores games `from..to`; returns the disk then, and their files' bytes.
        let stored = |from: u64, to: u64| {
            let mut sgr_bytes = 0;
            for seed in from..to {
                let file = crate::bot_recording(seed, 20);
                sgr_bytes += crate::sgr::to_bytes(&file).len() as u64;
                let name = format!("g{seed}");
                let made =
                    store.create_from_tape(&name, &file.header, &file.events, &mut |_, _| ());
                made.unwrap();
            }
            (crate::disk_bytes(dir.path()), sgr_bytes)
        };
        let (first, _) = stored(0, 1000);
        let (both, second_sgr) = stored(1000, 2000);
        let second = both - first;
        let segments = 4 * 512 * 1024;
        assert!(
            second <= 2 * second_sgr + 4096 * 1000 + segments,
            "the second thousand games took {second} bytes, their files {second_sgr}"
        );
        assert!(
            second <= first + segments,
            "the second thousand games took {second} bytes, the first {first}"
        );
    }

    #[test]
    fn names_that_could_be_ids_or_files_or_are_blank_are_refused() {
        assert!(valid_name("camel").is_ok());
        assert!(valid_name("run 2").is_ok());
        assert!(valid_name("sgr").is_ok());
        for bad in [
            "",
            "  ",
            "12",
            " x",
            "a\nb",
            &"x".repeat(65),
            "a/b",
            "run.sgr",
        ] {
            assert!(valid_name(bad).is_err(), "{bad:?}");
        }
    }

    #[test]
    fn the_games_in_a_tree_are_found_one_seek_each_past_keys_of_other_shapes() {
        let dir = tempfile::tempdir().unwrap();
        let db = sled::open(dir.path()).unwrap();
        let tree = db.open_tree("steps").unwrap();
        for (game, index) in [(1, 0), (1, 9), (2, 4), (7, 0), (u64::MAX, 3)] {
            tree.insert(layout::key(GameId(game), index), &[][..])
                .unwrap();
        }
        tree.insert(&[0, 0, 0, 0, 0, 0, 0, 5][..], &[][..]).unwrap();
        let found: Vec<u64> = games_in(&tree).unwrap().iter().map(|id| id.0).collect();
        assert_eq!(found, [1, 2, 7, u64::MAX]);
    }

    #[test]
    fn a_deleted_game_read_by_a_fork_is_cut_back_to_what_the_fork_reads() {
        let (_dir, store, first) = played_long();
        let events = store.events(first).unwrap();
        let at = commands_at(&events)[1];
        let (fork, _) = store.fork(first, "fork", at).unwrap();
        store.delete(first).unwrap();
        assert_eq!(
            own_steps(&store, first).last().copied().map(|k| k < at),
            Some(true)
        );
        assert!(entries(&store.snapshots, first)
            .iter()
            .all(|&(index, _)| index <= at));
        let loaded = store.load(fork.id).unwrap();
        assert_eq!(loaded.state.hash(), fork.last_hash);
        assert_eq!(store.events(fork.id).unwrap(), events[..at as usize]);
        // With the last reader gone, the rest goes too.
        store.delete(fork.id).unwrap();
        assert!(store.steps.is_empty() && store.snapshots.is_empty());
    }

    #[test]
    fn a_counter_gone_backwards_never_hands_out_a_stored_games_number() {
        let (_dir, store, id) = played(5);
        let (fork, _) = store
            .fork(id, "fork", store.meta(id).unwrap().events)
            .unwrap();
        store
            .db
            .insert(b"last_game_id", &0u64.to_be_bytes())
            .unwrap();
        let header = Header::new(2, Ruleset::NETHACK, 0);
        let newer = store.create("newer", header.clone(), &mut ()).unwrap();
        assert!(newer.meta().id > fork.id);
        store.db.insert(b"last_game_id", &b"junk"[..]).unwrap();
        let newest = store.create("newest", header, &mut ()).unwrap();
        assert!(newest.meta().id > newer.meta().id);
        assert_eq!(
            store.load(id).unwrap().state.hash(),
            store.meta(id).unwrap().last_hash
        );
    }

    #[test]
    fn delete_removes_the_game_and_its_steps() {
        let (dir, store, id) = played(5);
        let other = store.create("other", Header::new(3, Ruleset::NETHACK, 0), &mut ());
        let other = other.unwrap().meta().id;
        let others_steps = entries(&store.steps, other);
        store.delete(id).unwrap();
        assert!(matches!(store.meta(id), Err(StoreError::NoSuchGame(_))));
        assert!(matches!(store.delete(id), Err(StoreError::NoSuchGame(_))));
        assert!(entries(&store.steps, id).is_empty());
        assert!(entries(&store.snapshots, id).is_empty());
        assert_eq!(entries(&store.steps, other), others_steps);
        store.delete(other).unwrap();
        assert!(store.steps.is_empty() && store.snapshots.is_empty());
        drop(store);
        assert!(Store::open(dir.path()).unwrap().games().unwrap().is_empty());
    }

    #[test]
    fn steps_left_without_a_record_are_dropped_on_open() {
        let (dir, store, id) = played(5);
        let ghost = store.new_id().unwrap();
        store.steps.insert(key(ghost, 0), &b"x"[..]).unwrap();
        store.snapshots.insert(key(ghost, 9), &b"y"[..]).unwrap();
        store.db.flush().unwrap();
        let steps = entries(&store.steps, id);
        drop(store);
        let store = Store::open(dir.path()).unwrap();
        assert!(entries(&store.steps, ghost).is_empty());
        assert!(entries(&store.snapshots, ghost).is_empty());
        assert_eq!(entries(&store.steps, id), steps);
        assert!(store.load(id).is_ok());
        assert_eq!(unfinished(&store), 0);
    }

    fn unfinished(store: &Store) -> u64 {
        let count = store.db.get(crate::layout::UNFINISHED).unwrap();
        count.map_or(0, |b| u64::from_be_bytes(b.as_ref().try_into().unwrap()))
    }

    /// Opening looks for steps without a record only when a write that may leave some was
    /// begun and not seen through: every game made, forked, imported or deleted is seen
    /// through.
    #[test]
    fn every_write_that_may_leave_steps_without_a_record_is_seen_through() {
        let (_dir, store, id) = played(5);
        assert_eq!(unfinished(&store), 0);
        let at = store.meta(id).unwrap().events;
        let (fork, _) = store.fork(id, "fork", at).unwrap();
        let (file, _) = store.recording(id, &mut |_, _| ()).unwrap();
        let imported = store.import(&file, "imported", &mut |_, _| ()).unwrap();
        assert_eq!(unfinished(&store), 0);
        for game in [id, fork.id, imported.id] {
            store.delete(game).unwrap();
        }
        assert_eq!(unfinished(&store), 0);
        // One begun and not seen through is counted.
        store.new_id().unwrap();
        assert_eq!(unfinished(&store), 1);
    }
}
