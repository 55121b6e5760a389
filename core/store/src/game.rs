//! A stored game: playing it (each step written and flushed), loading it, forking it,
//! and moving it in and out of replay files.

use super::db::Store;
use super::error::{PlayError, ReplayFileError, StoreError};
use super::layout::{encode_record, key, split_key};
use super::log;
use super::snapshot::{self, SnapshotError, SnapshotWarning};
use super::verdict::Verdict;
use super::{Branch, Stream};
use super::{GameId, GameMeta, Stage, Status};
use sandglass_sim::drive::{fold_from, fold_on, Game};
use sandglass_sim::recording::{fold_visiting, is_a_stop};
use sandglass_sim::{
    CheckError, Command, Event, FoldError, FoldErrorKind, Header, Live, Need, Observer, Recording,
    Rules, State,
};

/// How many steps an import writes in one sled batch.
const BULK_BATCH: usize = 64;

/// A game being played: every accepted command is on disk before `command` returns.
pub struct Session {
    store: Store,
    meta: GameMeta,
    live: Live,
    /// The events of the step being played, reused between commands.
    step: Vec<Event>,
    warnings: Vec<SnapshotWarning>,
    broken: bool,
}

/// A game folded from its newest usable snapshot and the events after it.
pub struct Loaded {
    pub meta: GameMeta,
    pub state: State,
    /// Snapshots that were skipped on the way.
    pub warnings: Vec<SnapshotWarning>,
}

/// The snapshots a game folded from its genesis gets: at the same command boundaries as
/// live play takes them, so an imported game and the one it was exported from match.
#[derive(Default)]
struct Snapshots {
    /// The last command boundary seen.
    boundary: u64,
    taken: Vec<(u64, Vec<u8>)>,
}

impl Snapshots {
    fn visit(&mut self, state: &State) {
        if is_a_stop(state) {
            let at = state.events_folded();
            if snapshot::due(self.boundary, at) {
                self.taken.push((at, snapshot::encode(state, state.hash())));
            }
            self.boundary = at;
        }
    }
}

impl Store {
    /// Starts a new game called `name`; its first level is on disk when this returns.
    pub fn create(
        &self,
        name: &str,
        header: Header,
        obs: &mut impl Observer,
    ) -> Result<Session, StoreError> {
        self.create_streamed(name, header, None, obs)
    }

    /// `create`, for a game streamed to a server as it is played (a daily run), when
    /// `stream` says where.
    pub fn create_streamed(
        &self,
        name: &str,
        header: Header,
        stream: Option<&Stream>,
        obs: &mut impl Observer,
    ) -> Result<Session, StoreError> {
        self.check_room()?;
        self.check_new_name(name)?;
        let rules = Rules::of(&header).map_err(|cause| StoreError::Version {
            name: name.to_owned(),
            cause,
        })?;
        let id = self.new_id()?;
        let mut step = Vec::new();
        let live = Live::new(rules, header.seed, obs, &mut step);
        // The genesis is hashed now: a game closed, or killed, before its first command
        // is whole with its record as it stands.
        let meta = GameMeta::new(id, name, header, live.state(), live.state().hash());
        self.claim_name(name, id)?;
        if let Some(stream) = stream {
            self.mark_stream(id, stream)?;
        }
        let mut session = Session {
            store: self.clone(),
            meta,
            live,
            step,
            warnings: vec![],
            broken: false,
        };
        session.save_step(0)?;
        // Made, with its record: the next write carries this to disk (until then, the
        // next open looks for what a stop part-way would have left, and finds nothing).
        self.count_unfinished(-1)?;
        Ok(session)
    }

    /// Reopens a game to play on.
    pub fn resume(&self, id: GameId) -> Result<Session, StoreError> {
        self.check_room()?;
        let loaded = self.load(id)?;
        Ok(Session {
            store: self.clone(),
            live: Live::resume(loaded.meta.header.seed, loaded.state),
            meta: loaded.meta,
            step: vec![],
            warnings: loaded.warnings,
            broken: false,
        })
    }

    /// The game's state after its last event: the newest usable snapshot plus the events
    /// after it, checked against the hash its record was saved with.
    pub fn load(&self, id: GameId) -> Result<Loaded, StoreError> {
        let meta = self.meta(id)?;
        // A snapshot can decode and hold itself together and still not be where the log
        // leads (one written by hand, or by another build): the fold that starts from it
        // fails, or ends away from the saved hash. Then it is skipped like a damaged one,
        // and the fold starts again from an older point.
        let mut distrusted = vec![];
        let (
            Reached {
                state,
                mut warnings,
                rebuilt,
            },
            hash,
        ) = loop {
            let start = self.start(&meta, meta.events, &distrusted)?;
            let from_snapshot = start.from_snapshot;
            let reached = self.fold_to(&meta, start, meta.events).map(|r| {
                let hash = r.state.hash();
                (r, hash)
            });
            let disagrees = match &reached {
                Ok((_, hash)) => meta.final_hash().is_some_and(|saved| saved != *hash),
                Err(e) => matches!(e, StoreError::Damaged { .. }),
            };
            match from_snapshot {
                Some(index) if disagrees => distrusted.push(index),
                _ => break reached?,
            }
        };
        if meta.final_hash().is_some_and(|saved| saved != hash) {
            return Err(StoreError::Damaged {
                name: meta.name,
                what: format!(
                    "its log folds to hash {hash:#018x}, but it was saved at {:#018x}",
                    meta.last_hash
                ),
            });
        }
        // The fold is checked: the states it passed on the way may replace the damaged
        // snapshots. Those are a cache, so failing to write them leaves them skipped, no more.
        // Nothing to write, nothing to commit: a load that found its snapshots sound
        // writes nothing, and so costs no flush.
        let written = match rebuilt.is_empty() {
            true => Ok(()),
            false => self
                .write_snapshots(&meta, rebuilt)
                .and_then(|()| self.commit()),
        };
        for warning in &mut warnings {
            warning.rebuilt = written.is_ok() && warning.index <= meta.events;
        }
        Ok(Loaded {
            meta,
            state,
            warnings,
        })
    }

    /// Writes snapshots of a game, each under the game whose steps lead there.
    fn write_snapshots(
        &self,
        meta: &GameMeta,
        taken: Vec<(u64, Vec<u8>)>,
    ) -> Result<(), StoreError> {
        for (at, bytes) in taken {
            self.snapshots.insert(self.snapshot_key(meta, at), bytes)?;
        }
        Ok(())
    }

    /// The whole tape of a game.
    pub fn events(&self, id: GameId) -> Result<Vec<Event>, StoreError> {
        let meta = self.meta(id)?;
        self.read_log(&meta, 0, meta.events, &mut |_| ())
    }

    /// The game's events from index `from` to its end: what a streamed game has still
    /// to send once the server holds `from` of them.
    pub fn events_from(&self, id: GameId, from: u64) -> Result<Vec<Event>, StoreError> {
        let meta = self.meta(id)?;
        let from = from.min(meta.events);
        // The log is read a step at a time: from the start of the step `from` falls in.
        let start = match meta.parts().find(|p| p.start <= from && from < p.end) {
            Some(part) => {
                let step = self
                    .steps
                    .range(key(part.owner, part.start)..=key(part.owner, from))
                    .next_back()
                    .transpose()?;
                step.and_then(|(k, _)| split_key(&k))
                    .map_or(part.start, |(_, at)| at)
            }
            None => from,
        };
        let events = self.read_log(&meta, start, meta.events, &mut |_| ())?;
        Ok(events[(from - start) as usize..].to_vec())
    }

    /// Every usable snapshot of a game, oldest first, as (event index, state). Damaged
    /// ones are left out: a snapshot is only a cache of what the events say.
    pub fn snapshots(&self, id: GameId) -> Result<Vec<(u64, State)>, StoreError> {
        let meta = self.meta(id)?;
        let rules = meta.rules()?;
        let mut out = vec![];
        for range in self.snapshot_ranges(&meta, meta.events).into_iter().rev() {
            for entry in self.snapshots.range(range) {
                let (key, value) = entry?;
                if let Some((_, index)) = split_key(&key) {
                    if let Ok(state) = snapshot::decode(index, &value, rules) {
                        out.push((index, state));
                    }
                }
            }
        }
        out.dedup_by_key(|(index, _)| *index);
        Ok(out)
    }

    /// Starts a new game called `name` from the first `at` events of a game, which it
    /// shares rather than copies (see `history`); it then goes on on its own. `at` must be
    /// a command boundary; "save as" forks at the end.
    pub fn fork(
        &self,
        id: GameId,
        name: &str,
        at: u64,
    ) -> Result<(GameMeta, Vec<SnapshotWarning>), StoreError> {
        self.check_room()?;
        self.check_new_name(name)?;
        let source = self.meta(id)?;
        if !self.is_a_step_start(&source, at)? {
            return Err(StoreError::NotAStop {
                name: source.name,
                at,
            });
        }
        // Folded for the record's figures, and to check the shared log before relying on it.
        let Reached {
            state, warnings, ..
        } = self.state_at(&source, at)?;
        let new_id = self.new_id()?;
        let mut meta = GameMeta::new(new_id, name, source.header.clone(), &state, state.hash());
        meta.shared = source.shared_until(at);
        let branch = Branch {
            from: source.name,
            turn: Some(meta.turns),
        };
        self.commit_new(&meta, Some(&branch))?;
        Ok((meta, warnings))
    }

    /// Whether a step of the game starts at event `at` (where the player is to act), or
    /// the log ends there.
    fn is_a_step_start(&self, meta: &GameMeta, at: u64) -> Result<bool, StoreError> {
        if at >= meta.events {
            return Ok(at == meta.events);
        }
        let part = meta.parts().find(|part| part.start <= at && at < part.end);
        match part {
            Some(part) => Ok(self.steps.contains_key(key(part.owner, at))?),
            None => Ok(false),
        }
    }

    /// The game as a recording, for a replay file, checked against its saved hash.
    /// `progress` is told how far the reading, then the fold, has got.
    pub fn export(
        &self,
        id: GameId,
        progress: &mut dyn FnMut(Stage, u64),
    ) -> Result<Recording, StoreError> {
        let meta = self.meta(id)?;
        meta.rules()?;
        let events = self.read_log(&meta, 0, meta.events, &mut |at| {
            progress(Stage::Reading, at)
        })?;
        let file = Recording::record_visiting(meta.header.clone(), events, |state| {
            progress(Stage::Checking, state.events_folded())
        })
        .map_err(ReplayFileError::from)?;
        if meta
            .final_hash()
            .is_some_and(|saved| saved != file.final_hash)
        {
            return Err(StoreError::Damaged {
                name: meta.name,
                what: format!(
                    "its log folds to hash {:#018x}, but it was saved at {:#018x}",
                    file.final_hash, meta.last_hash
                ),
            });
        }
        Ok(file)
    }

    /// Stores a recording (a replay file's) as a new game called `name`, after checking
    /// every hash in it. `progress` is told how far the fold, then the writing, has got.
    pub fn import(
        &self,
        file: &Recording,
        name: &str,
        progress: &mut dyn FnMut(Stage, u64),
    ) -> Result<GameMeta, StoreError> {
        self.check_new_name(name)?;
        let mut snapshots = Snapshots::default();
        let state = file
            .replay(|state| {
                snapshots.visit(state);
                progress(Stage::Checking, state.events_folded());
            })
            .map_err(ReplayFileError::from)?;
        let tape = Checked {
            header: &file.header,
            events: &file.events,
            snapshots,
            hash: file.final_hash,
            state,
        };
        self.store_new(name, tape, None, progress)
    }

    /// Stores a tape as a new game called `name`: "take over from here" forks a replay
    /// this way. The tape is checked in one fold as a file is on import (every event legal,
    /// every draw the seed's), and must stop where the player is to move or the game ended.
    pub fn create_from_tape(
        &self,
        name: &str,
        header: &Header,
        events: &[Event],
        progress: &mut dyn FnMut(Stage, u64),
    ) -> Result<GameMeta, StoreError> {
        self.create_checked(name, header, events, None, progress)
    }

    /// `create_from_tape` for a game taken over from the replay file called `from`: a
    /// branch (`branch`), never ranked with the games played from their start.
    pub fn take_over_file(
        &self,
        name: &str,
        header: &Header,
        events: &[Event],
        from: &str,
        progress: &mut dyn FnMut(Stage, u64),
    ) -> Result<GameMeta, StoreError> {
        self.create_checked(name, header, events, Some(from), progress)
    }

    /// A new game of `events`, folded to check them on the way in; a branch of the
    /// replay file `branch_of`, if given.
    fn create_checked(
        &self,
        name: &str,
        header: &Header,
        events: &[Event],
        branch_of: Option<&str>,
        progress: &mut dyn FnMut(Stage, u64),
    ) -> Result<GameMeta, StoreError> {
        self.check_new_name(name)?;
        let rules = Rules::of(header).map_err(|cause| StoreError::Version {
            name: name.to_owned(),
            cause,
        })?;
        let mut snapshots = Snapshots::default();
        let state = fold_visiting(rules, header.seed, events, &mut (), |state| {
            snapshots.visit(state);
            progress(Stage::Checking, state.events_folded());
            Ok::<_, CheckError>(u64::MAX)
        })
        .map_err(ReplayFileError::from)?;
        let tape = Checked {
            header,
            events,
            snapshots,
            hash: state.hash(),
            state,
        };
        self.store_new(name, tape, branch_of, progress)
    }

    /// A stored game as a recording, for `Recording::check` to check as it checks a
    /// replay file: its events, the hashes of its snapshots as the checkpoints, and the
    /// hash its record was saved with as the final hash. Nothing is folded here. Snapshots
    /// that are damaged (a cache entry that disagrees with itself) are left out and
    /// returned as warnings, as `load` skips them. `progress` is told how far the reading has got.
    pub fn recording(
        &self,
        id: GameId,
        progress: &mut dyn FnMut(Stage, u64),
    ) -> Result<(Recording, Vec<SnapshotWarning>), StoreError> {
        let meta = self.meta(id)?;
        let rules = meta.rules()?;
        let events = self.read_log(&meta, 0, meta.events, &mut |at| {
            progress(Stage::Reading, at)
        })?;
        let mut checkpoints = vec![];
        let mut warnings = vec![];
        let ranges = self.snapshot_ranges(&meta, meta.events).into_iter().rev();
        for entry in ranges.flat_map(|range| self.snapshots.range(range)) {
            let (k, value) = entry?;
            let Some((_, index)) = split_key(&k) else {
                warnings.push(SnapshotWarning {
                    game: meta.name.clone(),
                    index: u64::MAX,
                    reason: snapshot::SnapshotError::Key,
                    rebuilt: false,
                });
                continue;
            };
            match snapshot::decode(index, &value, rules) {
                // The genesis needs no checkpoint (and a file may not hold one there).
                Ok(_) if index == 0 => {}
                Ok(_) => checkpoints.push((index, snapshot::stored_hash(&value))),
                Err(reason) => warnings.push(SnapshotWarning {
                    game: meta.name.clone(),
                    index,
                    reason,
                    rebuilt: false,
                }),
            }
        }
        // A snapshot where two stretches of the log meet may be under both games.
        checkpoints.dedup();
        // A game in play has its hash only where it was last taken.
        let final_hash = match meta.final_hash() {
            Some(hash) => hash,
            None => self.load(id)?.state.hash(),
        };
        let file = Recording {
            header: meta.header,
            events,
            checkpoints,
            final_hash,
        };
        Ok((file, warnings))
    }

    /// Writes a checked tape as a new game: events, snapshots, then the record (a branch
    /// of the replay file `branch_of`, if given). `progress` is told how far the writing
    /// of the events has got.
    fn store_new(
        &self,
        name: &str,
        tape: Checked,
        branch_of: Option<&str>,
        progress: &mut dyn FnMut(Stage, u64),
    ) -> Result<GameMeta, StoreError> {
        self.check_room()?;
        let id = self.new_id()?;
        // In batches of a few dozen steps: sled lays a log written so in about 0.6 times
        // the space of one written a step at a time, and holds each batch in memory while
        // it applies it (BENCHMARKS.md, "Storage").
        let steps: Vec<(u64, &[Event])> = log::steps(tape.events).collect();
        for chunk in steps.chunks(BULK_BATCH) {
            let mut batch = sled::Batch::default();
            let mut written = 0;
            for &(index, step) in chunk {
                batch.insert(&key(id, index), log::encode(step));
                written = index + step.len() as u64;
            }
            self.steps.apply_batch(batch)?;
            progress(Stage::Writing, written);
        }
        let meta = GameMeta::new(id, name, tape.header.clone(), &tape.state, tape.hash);
        self.write_snapshots(&meta, tape.snapshots.taken)?;
        // Checked in one fold on the way in: that fold is the game's verdict.
        let digest = self.log_digest(&meta)?;
        let verdict = Verdict::of(&meta, digest, &tape.state, tape.hash);
        self.write_verdict(id, &verdict)?;
        let branch = branch_of.map(|from| Branch {
            from: from.to_owned(),
            turn: Some(meta.turns),
        });
        self.commit_new(&meta, branch.as_ref())?;
        Ok(meta)
    }

    /// Writes the record of a game whose steps are already written, and flushes: until
    /// the record is on disk the game does not exist. With the record, the game is made
    /// (`count_unfinished`).
    fn commit_new(&self, meta: &GameMeta, branch: Option<&Branch>) -> Result<(), StoreError> {
        self.claim_name(&meta.name, meta.id)?;
        if let Some(branch) = branch {
            self.mark_branch(meta.id, branch)?;
        }
        self.commit()?;
        self.games.insert(meta.id.key(), encode_record(meta))?;
        self.count_unfinished(-1)?;
        self.commit()
    }

    /// Counts the steps that a crash left on disk beyond their game's record (see
    /// `Session::save_step`): folded from the record's end, which is then brought up to
    /// them, its hash taken. A step that does not fold stays uncounted, as it was. A game
    /// whose play a crash ended before its hash was taken gets it here too.
    pub(super) fn catch_up(&self) -> Result<(), StoreError> {
        let mut caught_up = false;
        for meta in self.games()? {
            // A game that ended with its hash taken has no step after its record: the
            // step that ended it was written with the record that says so, and an ended
            // game takes no command. Skipping its log keeps opening a long history cheap.
            if meta.status != Status::Alive && meta.final_hash().is_some() {
                continue;
            }
            let mut tail = vec![];
            let mut next = meta.events;
            while let Some(value) = self.steps.get(key(meta.id, next))? {
                let Ok(step) = log::decode(next, &value) else {
                    break;
                };
                next += step.len() as u64;
                tail.extend(step);
            }
            // A game made by the build before this one and left before its first command
            // has a record that claims the hash 0 for its genesis: that build hashed a
            // new game only when play stopped, and skipped it if it had no commands.
            let unhashed_genesis = meta.commands == 0 && meta.last_hash == 0;
            if tail.is_empty() && meta.final_hash().is_some() && !unhashed_genesis {
                continue;
            }
            let Ok(Reached { state, .. }) = self.state_at(&meta, meta.events) else {
                continue;
            };
            if let Ok(state) = fold_from(state, tail, &mut ()) {
                let mut meta = meta;
                meta.record(&state, Some(state.hash()));
                self.games.insert(meta.id.key(), encode_record(&meta))?;
                caught_up = true;
            }
        }
        if caught_up {
            self.commit()?;
        }
        Ok(())
    }

    /// The state after the first `at` events: the newest usable snapshot at or before
    /// `at`, plus the events after it. The damaged snapshots skipped on the way are taken
    /// again as the fold passes them.
    fn state_at(&self, meta: &GameMeta, at: u64) -> Result<Reached, StoreError> {
        self.fold_to(meta, self.start(meta, at, &[])?, at)
    }

    /// Where a fold to event `at` starts: the newest usable snapshot at or before it, or
    /// the genesis. Snapshots at the indexes in `distrusted` are skipped as not agreeing
    /// with the log.
    fn start(&self, meta: &GameMeta, at: u64, distrusted: &[u64]) -> Result<Start, StoreError> {
        let rules = meta.rules()?;
        let mut warnings = vec![];
        let ranges = self.snapshot_ranges(meta, at);
        for entry in ranges
            .into_iter()
            .flat_map(|range| self.snapshots.range(range).rev())
        {
            let (k, v) = entry?;
            let index = split_key(&k).map_or(u64::MAX, |(_, index)| index);
            let decoded = match distrusted.contains(&index) {
                true => Err(SnapshotError::Disagrees),
                false => snapshot::decode(index, &v, rules),
            };
            match decoded {
                Ok(state) => {
                    return Ok(Start {
                        state,
                        from_snapshot: Some(index),
                        warnings,
                    })
                }
                Err(reason) => warnings.push(SnapshotWarning {
                    game: meta.name.clone(),
                    index,
                    reason,
                    rebuilt: false,
                }),
            }
        }
        Ok(Start {
            state: State::new(rules, &mut ()),
            from_snapshot: None,
            warnings,
        })
    }

    /// Folds from `start` to event `at`, taking again the snapshots skipped on the way.
    fn fold_to(&self, meta: &GameMeta, start: Start, at: u64) -> Result<Reached, StoreError> {
        let Start {
            mut state,
            warnings,
            ..
        } = start;
        let first = state.events_folded();
        let tail = self.read_log(meta, first, at, &mut |_| ())?;
        let failed = |error: FoldError| {
            if error.kind == FoldErrorKind::EndsEarly && at < meta.events {
                StoreError::NotAStop {
                    name: meta.name.clone(),
                    at,
                }
            } else {
                StoreError::Damaged {
                    name: meta.name.clone(),
                    what: error.to_string(),
                }
            }
        };
        // Newest first above, so oldest first here; all of them lie after the start.
        let mut rebuilt = vec![];
        let mut folded = first;
        for index in warnings.iter().rev().map(|w| w.index).filter(|&i| i <= at) {
            let events = &tail[(folded - first) as usize..(index - first) as usize];
            fold_on(&mut state, events.iter().copied(), &mut ()).map_err(failed)?;
            rebuilt.push((index, snapshot::encode(&state, state.hash())));
            folded = index;
        }
        let rest = tail[(folded - first) as usize..].iter().copied();
        let state = fold_from(state, rest, &mut ()).map_err(failed)?;
        Ok(Reached {
            state,
            warnings,
            rebuilt,
        })
    }
}

/// A tape checked in one fold, on its way into the store as a new game.
struct Checked<'t> {
    header: &'t Header,
    events: &'t [Event],
    snapshots: Snapshots,
    /// The state after the last event, and its hash.
    state: State,
    hash: u64,
}

/// Where a fold starts, and the snapshots it skipped to get there, newest first.
struct Start {
    state: State,
    /// The event index of the snapshot it starts from, if it starts from one.
    from_snapshot: Option<u64>,
    warnings: Vec<SnapshotWarning>,
}

/// Where `Store::state_at` got to, and what it found on the way.
struct Reached {
    state: State,
    /// Damaged snapshots, newest first.
    warnings: Vec<SnapshotWarning>,
    /// Snapshots taken again in place of the damaged ones: (event index, snapshot).
    rebuilt: Vec<(u64, Vec<u8>)>,
}

impl Game for Session {
    type Error = PlayError;

    fn state(&self) -> &State {
        Session::state(self)
    }

    fn play(&mut self, command: Command) -> Result<(), PlayError> {
        self.command(command, &mut ()).map(drop)
    }
}

impl Session {
    pub fn state(&self) -> &State {
        self.live.state()
    }

    pub fn meta(&self) -> &GameMeta {
        &self.meta
    }

    /// Snapshots skipped while loading this game.
    pub fn warnings(&self) -> &[SnapshotWarning] {
        &self.warnings
    }

    /// Plays `command` and saves the step (the command and every draw it caused) as one
    /// value, flushed. A rejected command changes and writes nothing.
    pub fn command(
        &mut self,
        command: Command,
        obs: &mut impl Observer,
    ) -> Result<Need, PlayError> {
        if self.broken {
            return Err(StoreError::Broken {
                name: self.meta.name.clone(),
            }
            .into());
        }
        let first = self.live.state().events_folded();
        self.step.clear();
        let need = self.live.command(command, obs, &mut self.step)?;
        self.save_step(first)?;
        Ok(need)
    }

    /// Writes `self.step`, which starts at event `first`, then the snapshot when one is
    /// due, then the updated record, and flushes. On failure the session is marked broken:
    /// the state in memory is ahead of the disk.
    ///
    /// Not a transaction (which costs as much again as the write): sled recovers a prefix
    /// of its writes, so in that order a crash keeps the step whenever it keeps the record,
    /// a snapshot only of a state the log reaches, and at worst a step the record does not
    /// count yet, which the next open counts (`Store::catch_up`).
    fn save_step(&mut self, first: u64) -> Result<(), StoreError> {
        let result = self.try_save_step(first);
        self.broken = result.is_err();
        result
    }

    fn try_save_step(&mut self, first: u64) -> Result<(), StoreError> {
        let state = self.live.state();
        let after = state.events_folded();
        // The step that ends the game proves its verdict too: the state it reached is the
        // fold of the log just written, so the table never needs to fold it again.
        let ended = self.meta.status == Status::Alive && state.outcome().is_some();
        let hash = (snapshot::due(first, after) || ended).then(|| state.hash());
        let id = self.meta.id;
        let store = &self.store;
        store
            .steps
            .insert(key(id, first), log::encode(&self.step))?;
        if let Some(hash) = hash {
            let bytes = snapshot::encode(state, hash);
            store.snapshots.insert(key(id, after), bytes)?;
        }
        let mut meta = self.meta.clone();
        meta.record(state, hash);
        if let (true, Some(hash)) = (ended, hash) {
            let digest = self.store.log_digest(&meta)?;
            let verdict = Verdict::of(&meta, digest, state, hash);
            self.store.write_verdict(meta.id, &verdict)?;
        }
        self.store
            .games
            .insert(meta.id.key(), encode_record(&meta))?;
        self.store.commit()?;
        self.meta = meta;
        Ok(())
    }

    /// Takes the hash the record lacks, if it does, and writes the record.
    fn take_hash(&mut self) -> Result<(), StoreError> {
        if self.broken || self.meta.final_hash().is_some() {
            return Ok(());
        }
        let state = self.live.state();
        self.meta.record(state, Some(state.hash()));
        self.store
            .games
            .insert(self.meta.id.key(), encode_record(&self.meta))?;
        self.store.commit()?;
        Ok(())
    }
}

/// Play stops: the record gets its hash. Should that write fail, the next open of the
/// store takes the hash again (`Store::catch_up`).
impl Drop for Session {
    fn drop(&mut self) {
        let _ = self.take_hash();
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{Span, Status, SNAPSHOT_EVERY};
    use sandglass_sim::bot::Bot;
    use sandglass_sim::{fold, Ruleset};
    use sled::{IVec, Tree};

    /// A game's own entries in `tree` (`steps` or `snapshots`), as (event index, value).
    fn entries(tree: &Tree, id: GameId) -> Vec<(u64, IVec)> {
        tree.range(crate::layout::all_keys(id))
            .map(|entry| {
                let (k, v) = entry.unwrap();
                (split_key(&k).unwrap().1, v)
            })
            .collect()
    }

    /// A store in a fresh directory holding one bot game of up to `commands` commands.
    fn played(commands: u64) -> (tempfile::TempDir, Store, GameId) {
        let dir = tempfile::tempdir().unwrap();
        let store = Store::open(dir.path()).unwrap();
        let header = Header::new(1, Ruleset::NETHACK, 0);
        let mut session = store.create("camel", header, &mut ()).unwrap();
        play(&mut session, commands);
        let id = session.meta().id;
        (dir, store, id)
    }

    fn play(session: &mut Session, commands: u64) {
        Bot::new(session.meta().events)
            .play(session, commands)
            .unwrap();
    }

    /// A store holding one bot game long enough for a few snapshots.
    fn played_long() -> (tempfile::TempDir, Store, GameId) {
        let dir = tempfile::tempdir().unwrap();
        let store = Store::open(dir.path()).unwrap();
        let header = Header::new(1, Ruleset::NETHACK, 0);
        let mut session = store.create("camel", header, &mut ()).unwrap();
        Bot::lingering(1, 10_000)
            .play_until(&mut session, |s| s.events_folded() > 3 * SNAPSHOT_EVERY)
            .unwrap();
        let id = session.meta().id;
        (dir, store, id)
    }

    fn genesis_hash(store: &Store, id: GameId) -> u64 {
        let meta = store.meta(id).unwrap();
        fold(meta.rules().unwrap(), store.events(id).unwrap(), &mut ())
            .unwrap()
            .hash()
    }

    #[test]
    fn a_game_loads_back_from_its_snapshot_as_from_its_genesis() {
        let (dir, store, id) = played_long();
        let meta = store.meta(id).unwrap();
        assert!(meta.events > SNAPSHOT_EVERY, "{} events", meta.events);
        drop(store);
        let store = Store::open(dir.path()).unwrap();
        let snapshots = store.snapshots(id).unwrap();
        assert!(!snapshots.is_empty());
        let loaded = store.load(id).unwrap();
        assert!(loaded.warnings.is_empty());
        assert_eq!(loaded.state.hash(), meta.last_hash);
        assert_eq!(genesis_hash(&store, id), meta.last_hash);
        for (index, state) in snapshots {
            assert_eq!(state.events_folded(), index);
            assert_eq!(
                state.need(),
                Need::Command,
                "snapshots lie on command boundaries"
            );
        }
    }

    #[test]
    fn the_record_follows_the_game() {
        let (_dir, store, id) = played(30);
        let meta = store.meta(id).unwrap();
        let events = store.events(id).unwrap();
        let commands = events
            .iter()
            .filter(|e| matches!(e, Event::Command(_)))
            .count();
        assert_eq!(meta.events, events.len() as u64);
        assert_eq!(meta.commands, commands as u64);
        assert_eq!(meta.status, Status::Alive);
        assert_eq!(store.find("camel").unwrap(), meta);
        assert_eq!(store.find(&id.to_string()).unwrap(), meta);
        assert!(matches!(
            store.find("dromedary"),
            Err(StoreError::NoSuchGame(_))
        ));
    }

    #[test]
    fn a_resumed_game_goes_on_where_it_stopped() {
        let (dir, store, id) = played(30);
        drop(store);
        let store = Store::open(dir.path()).unwrap();
        let mut session = store.resume(id).unwrap();
        play(&mut session, 10);
        let hash = session.state().hash();
        // In play, the record has the hash of where play last took it; after, the last.
        assert!(store.meta(id).unwrap().final_hash().is_none());
        drop(session);
        assert_eq!(store.meta(id).unwrap().final_hash(), Some(hash));
        assert_eq!(genesis_hash(&store, id), hash);
    }

    /// A game left before its first command, closed or killed: what is on disk while
    /// its session is still open is what a kill leaves, and after the session is
    /// dropped, what a close leaves. Either way the record holds the genesis hash, and
    /// the game loads and checks out.
    #[test]
    fn a_game_left_before_its_first_command_is_whole() {
        let (_dir, store, closed) = played(0);
        let header = Header::new(2, Ruleset::CLASSIC, 0);
        let open = store.create("killed", header, &mut ()).unwrap();
        for id in [closed, open.meta().id] {
            let meta = store.meta(id).unwrap();
            assert_eq!(meta.commands, 0);
            assert_eq!(meta.final_hash(), Some(genesis_hash(&store, id)));
            store.load(id).unwrap();
            let (recording, _) = store.recording(id, &mut |_, _| ()).unwrap();
            recording.check(&mut (), u64::MAX, |_| ()).unwrap();
        }
    }

    /// A record that an earlier build left claiming the hash 0 for a game with no
    /// command yet is hashed from its log on the next open.
    #[test]
    fn a_genesis_left_unhashed_by_an_earlier_build_is_hashed_on_open() {
        let (dir, store, id) = played(0);
        let mut meta = store.meta(id).unwrap();
        let genesis = meta.last_hash;
        meta.last_hash = 0;
        store.games.insert(id.key(), encode_record(&meta)).unwrap();
        store.commit().unwrap();
        drop(store);
        let store = Store::open(dir.path()).unwrap();
        assert_eq!(store.meta(id).unwrap().final_hash(), Some(genesis));
        store.load(id).unwrap();
    }

    /// A crash after a step was written but before its record: the next open counts it.
    #[test]
    fn a_step_written_before_a_crash_that_kept_its_record_out_is_counted_on_open() {
        let (dir, store, id) = played(20);
        let before = store.games.get(id.key()).unwrap().unwrap();
        let mut session = store.resume(id).unwrap();
        play(&mut session, 3);
        drop(session);
        let after = store.meta(id).unwrap();
        store.games.insert(id.key(), before).unwrap();
        store.db.flush().unwrap();
        drop(store);
        let store = Store::open(dir.path()).unwrap();
        let caught_up = store.meta(id).unwrap();
        assert_eq!(caught_up.events, after.events);
        assert_eq!(caught_up.final_hash(), Some(after.last_hash));
        assert_eq!(caught_up.turns, after.turns);
        assert_eq!(genesis_hash(&store, id), after.last_hash);
    }

    /// A crash in play, before play took the hash: the next open takes it.
    #[test]
    fn a_hash_that_a_crash_kept_play_from_taking_is_taken_on_open() {
        let (dir, store, id) = played(20);
        let mut lagging = store.meta(id).unwrap();
        let hash = lagging.last_hash;
        (lagging.hashed, lagging.last_hash) = (0, 0);
        store
            .games
            .insert(id.key(), encode_record(&lagging))
            .unwrap();
        store.db.flush().unwrap();
        drop(store);
        let store = Store::open(dir.path()).unwrap();
        assert_eq!(store.meta(id).unwrap().final_hash(), Some(hash));
    }

    #[test]
    fn a_rejected_command_writes_nothing() {
        let (_dir, store, id) = played(5);
        let before = store.meta(id).unwrap();
        let mut session = store.resume(id).unwrap();
        let error = session.command(Command::Eat(sandglass_sim::Slot(25)), &mut ());
        assert!(matches!(error, Err(PlayError::Rejected(_))));
        assert_eq!(store.meta(id).unwrap().events, before.events);
        assert_eq!(store.events(id).unwrap().len() as u64, before.events);
    }

    #[test]
    fn a_damaged_snapshot_is_skipped_with_a_warning_and_rebuilt() {
        let (_dir, store, id) = played_long();
        let meta = store.meta(id).unwrap();
        let originals = entries(&store.snapshots, id);
        assert!(originals.len() >= 2, "the game has snapshots to damage");
        let (newest, value) = originals.last().unwrap().clone();
        // Loaded once with the damage: skipped, folded past, rebuilt as it was. Loaded
        // again: nothing to skip.
        let load_rebuilds = |why: &str| {
            let loaded = store.load(id).unwrap();
            assert_eq!(loaded.state.hash(), meta.last_hash);
            assert!(!loaded.warnings.is_empty());
            for warning in &loaded.warnings {
                assert!(warning.reason.to_string().contains(why), "{warning}");
                assert!(warning.rebuilt, "{warning}");
                assert!(warning.to_string().contains("rebuilt"), "{warning}");
            }
            let again = entries(&store.snapshots, id);
            assert_eq!(again, originals, "every snapshot is as it was written");
            assert!(store.load(id).unwrap().warnings.is_empty());
            loaded.warnings
        };
        // A flipped bit anywhere: caught by the checksum, before anything is decoded.
        let mut flipped = value.to_vec();
        let middle = flipped.len() / 2;
        flipped[middle] ^= 0x10;
        store.snapshots.insert(key(id, newest), flipped).unwrap();
        let warnings = load_rebuilds("checksum");
        assert_eq!(warnings.len(), 1);
        assert_eq!(warnings[0].index, newest);
        // Crafted, the checksum made to match: a wrong hash in front of an intact state.
        let reseal = |mut value: Vec<u8>| {
            let sum = xxhash_rust::xxh3::xxh3_64(&value[8..]);
            value[..8].copy_from_slice(&sum.to_le_bytes());
            value
        };
        let mut rehashed = value.to_vec();
        rehashed[8] ^= 1;
        store
            .snapshots
            .insert(key(id, newest), reseal(rehashed))
            .unwrap();
        load_rebuilds("hash");
        // A length past any game's, and one the state does not inflate to.
        for (length, why) in [(u32::MAX, "more than any game"), (7, "inflate")] {
            let mut lying = value.to_vec();
            lying[16..20].copy_from_slice(&length.to_le_bytes());
            store
                .snapshots
                .insert(key(id, newest), reseal(lying))
                .unwrap();
            load_rebuilds(why);
        }

        // Every snapshot gone bad: folded from the genesis, every one rebuilt.
        for &(at, _) in &originals {
            store.snapshots.insert(key(id, at), &b"junk"[..]).unwrap();
        }
        assert_eq!(load_rebuilds("").len(), originals.len());
    }

    #[test]
    fn a_missing_event_is_damage_not_a_panic() {
        let (_dir, store, id) = played(10);
        let (at, _) = entries(&store.steps, id)[1];
        store.steps.remove(key(id, at)).unwrap();
        let error = store.load(id).err().unwrap();
        let missing = format!("the step at event {at} is missing");
        assert!(error.to_string().contains(&missing), "{error}");
    }

    #[test]
    fn save_as_forks_a_game_that_then_goes_its_own_way() {
        let (_dir, store, id) = played(30);
        let original = store.meta(id).unwrap();
        let (fork, warnings) = store.fork(id, "other", original.events).unwrap();
        assert!(warnings.is_empty());
        assert_ne!(fork.id, id);
        assert_eq!(fork.last_hash, original.last_hash);
        assert_eq!(store.events(fork.id).unwrap(), store.events(id).unwrap());
        let mut session = store.resume(fork.id).unwrap();
        play(&mut session, 10);
        assert_eq!(store.meta(id).unwrap(), original);
        let forked = store.events(fork.id).unwrap();
        assert_eq!(
            forked[..original.events as usize],
            store.events(id).unwrap()[..]
        );
        assert!(matches!(
            store.fork(id, "other", original.events),
            Err(StoreError::NameTaken(_))
        ));
    }

    #[test]
    fn a_fork_must_cut_between_commands() {
        let (_dir, store, id) = played(10);
        let events = store.events(id).unwrap();
        let command_at = events
            .iter()
            .rposition(|e| matches!(e, Event::Command(_)))
            .unwrap() as u64;
        let (fork, _) = store.fork(id, "cut", command_at).unwrap();
        assert_eq!(fork.events, command_at);
        assert!(matches!(
            store.fork(id, "mid", command_at + 1),
            Err(StoreError::NotAStop { .. })
        ));
    }

    /// Where each command of a tape is.
    fn commands_at(events: &[Event]) -> Vec<u64> {
        (0..)
            .zip(events)
            .filter(|(_, e)| matches!(e, Event::Command(_)))
            .map(|(i, _)| i)
            .collect()
    }

    /// The keys of a game's own log.
    fn own_steps(store: &Store, id: GameId) -> Vec<u64> {
        entries(&store.steps, id)
            .into_iter()
            .map(|(at, _)| at)
            .collect()
    }

    #[test]
    fn a_fork_shares_its_history_and_writes_only_what_it_plays() {
        let (_dir, store, first) = played_long();
        let events = store.events(first).unwrap();
        let at = *commands_at(&events).last().unwrap();
        let (second, _) = store.fork(first, "second", at).unwrap();
        assert_eq!(
            second.shared,
            [Span {
                game: first,
                to: at
            }]
        );
        assert!(own_steps(&store, second.id).is_empty());
        let mut session = store.resume(second.id).unwrap();
        play(&mut session, 5);
        drop(session);
        let second = store.meta(second.id).unwrap();
        assert_eq!(own_steps(&store, second.id)[0], at);
        // A fork of the fork, before and after the point where the two part.
        let (third, _) = store.fork(second.id, "third", second.events).unwrap();
        assert_eq!(
            third.shared,
            [
                Span {
                    game: first,
                    to: at
                },
                Span {
                    game: second.id,
                    to: second.events
                }
            ]
        );
        let early_at = commands_at(&events)[0];
        let (early, _) = store.fork(second.id, "early", early_at).unwrap();
        assert_eq!(
            early.shared,
            [Span {
                game: first,
                to: early_at
            }]
        );
        // Each loads from a snapshot under the first game's id, to its own hash.
        for meta in [&second, &third] {
            let loaded = store.load(meta.id).unwrap();
            assert!(loaded.warnings.is_empty());
            assert_eq!(loaded.state.hash(), meta.last_hash);
            assert_eq!(genesis_hash(&store, meta.id), meta.last_hash);
        }
        assert_eq!(
            store.events(third.id).unwrap(),
            store.events(second.id).unwrap()
        );
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

    /// Checks that a job told its progress through `stages` in order, each rising to `events`.
    fn assert_progress(told: &[(Stage, u64)], stages: &[Stage], events: usize) {
        let mut seen: Vec<Stage> = told.iter().map(|&(stage, _)| stage).collect();
        seen.dedup();
        assert_eq!(seen, stages);
        for &stage in stages {
            let counts: Vec<u64> = told
                .iter()
                .filter(|&&(s, _)| s == stage)
                .map(|&(_, count)| count)
                .collect();
            assert!(counts.is_sorted(), "{stage:?}: {counts:?}");
            assert_eq!(counts.last(), Some(&(events as u64)), "{stage:?}");
        }
    }

    #[test]
    fn export_then_import_gives_the_identical_game_and_snapshots() {
        let (_dir, store, id) = played_long();
        let mut told = vec![];
        let file = store
            .export(id, &mut |stage, at| told.push((stage, at)))
            .unwrap();
        assert_progress(&told, &[Stage::Reading, Stage::Checking], file.events.len());
        let bytes = crate::sgr::to_bytes(&file);
        let mut told = vec![];
        let imported = store
            .import(
                &crate::sgr::from_bytes(&bytes).unwrap(),
                "again",
                &mut |stage, at| told.push((stage, at)),
            )
            .unwrap();
        assert_progress(&told, &[Stage::Checking, Stage::Writing], file.events.len());
        let original = store.meta(id).unwrap();
        assert_eq!(imported.last_hash, original.last_hash);
        assert_eq!(imported.events, original.events);
        assert_eq!(
            store.events(imported.id).unwrap(),
            store.events(id).unwrap()
        );
        let at = |id| -> Vec<u64> {
            store
                .snapshots(id)
                .unwrap()
                .into_iter()
                .map(|(i, _)| i)
                .collect()
        };
        assert_eq!(
            at(imported.id),
            at(id),
            "live play and import snapshot alike"
        );
        assert!(matches!(
            store.import(&file, "again", &mut |_, _| ()),
            Err(StoreError::NameTaken(_))
        ));
    }

    #[test]
    fn a_stored_game_is_checked_against_its_snapshots_like_a_file() {
        let (_dir, store, id) = played_long();
        let mut told = vec![];
        let (file, warnings) = store
            .recording(id, &mut |stage, at| told.push((stage, at)))
            .unwrap();
        assert!(warnings.is_empty());
        assert_progress(&told, &[Stage::Reading], file.events.len());
        let snapshots = store.snapshots(id).unwrap();
        let hashes: Vec<(u64, u64)> = snapshots.iter().map(|(i, s)| (*i, s.hash())).collect();
        assert!(!hashes.is_empty());
        assert_eq!(file.checkpoints, hashes);
        let last_hash = store.meta(id).unwrap().last_hash;
        assert_eq!(
            file.check(&mut (), u64::MAX, |_| ()).unwrap().hash(),
            last_hash
        );
        // A damaged snapshot is left out with a warning; the game still verifies.
        let (first, _) = store.snapshots.first().unwrap().unwrap();
        store.snapshots.insert(first, &b"junk"[..]).unwrap();
        let (file, warnings) = store.recording(id, &mut |_, _| ()).unwrap();
        assert_eq!(warnings.len(), 1);
        assert_eq!(file.checkpoints, hashes[1..]);
        assert!(file.check(&mut (), u64::MAX, |_| ()).is_ok());
    }

    #[test]
    fn an_import_that_does_not_verify_stores_nothing() {
        let (_dir, store, id) = played(10);
        let mut file = store.export(id, &mut |_, _| ()).unwrap();
        file.final_hash ^= 1;
        assert!(matches!(
            store.import(&file, "bad", &mut |_, _| ()),
            Err(StoreError::Replay(ReplayFileError::Check(
                CheckError::Desync { .. }
            )))
        ));
        assert_eq!(store.games().unwrap().len(), 1);
    }
}
