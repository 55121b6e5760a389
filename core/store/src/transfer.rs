//! Games moved in and out whole: a stored game given out as a recording (`export`, folded
//! and checked for a replay file; `recording`, its snapshots' hashes as the checkpoints,
//! for `Recording::check`), a checked tape stored as a new game (`import`,
//! `create_from_tape`, `take_over_file`: its steps in batches, with the snapshots live
//! play would have taken), and a fork, a new game that shares the first stretch of
//! another's log (`fork`).
//!
//! Apart from the open game (`session`): each of these makes or reads a game in one call,
//! and a game it makes is written record last (`commit_new`), so until the record is on
//! disk there is no game to list, whatever a stop part-way left.

use super::db::Store;
use super::error::{ReplayFileError, StoreError};
use super::layout::{encode_record, key, split_key};
use super::load::Reached;
use super::log;
use super::snapshot::{self, SnapshotWarning};
use super::verdict::Verdict;
use super::Branch;
use super::{GameId, GameMeta, Stage};
use sandglass_sim::recording::{fold_visiting, is_a_stop};
use sandglass_sim::{CheckError, Event, Header, Recording, Rules, State};

/// How many steps an import writes in one sled batch.
const BULK_BATCH: usize = 64;

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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fixtures::{commands_at, genesis_hash, own_steps, play, played, played_long};
    use crate::Span;

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
