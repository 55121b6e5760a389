//! Reading a game back: its state, folded from the newest usable snapshot and the log
//! after it and checked against the hash its record was saved with (`Store::load`,
//! `Loaded`), its events (`events`, `events_from`) and its snapshots. A snapshot that is
//! damaged, or that the log does not lead to, is skipped with a warning and taken again
//! as the fold passes its place.
//!
//! Apart because the rest start from it: play reopens a game from what it loads
//! (`session`), a fork checks the log it shares by folding it here (`transfer`), and
//! neither needs to know how a fold finds its start or rebuilds what it skipped.

use super::db::Store;
use super::error::StoreError;
use super::layout::{key, split_key};
use super::snapshot::{self, SnapshotError, SnapshotWarning};
use super::{GameId, GameMeta};
use sandglass_sim::drive::{fold_from, fold_on};
use sandglass_sim::{Event, FoldError, FoldErrorKind, State};

/// A game folded from its newest usable snapshot and the events after it.
pub struct Loaded {
    pub meta: GameMeta,
    pub state: State,
    /// Snapshots that were skipped on the way.
    pub warnings: Vec<SnapshotWarning>,
}

impl Store {
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
    pub(super) fn write_snapshots(
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

    /// The state after the first `at` events: the newest usable snapshot at or before
    /// `at`, plus the events after it. The damaged snapshots skipped on the way are taken
    /// again as the fold passes them.
    pub(super) fn state_at(&self, meta: &GameMeta, at: u64) -> Result<Reached, StoreError> {
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

/// Where a fold starts, and the snapshots it skipped to get there, newest first.
struct Start {
    state: State,
    /// The event index of the snapshot it starts from, if it starts from one.
    from_snapshot: Option<u64>,
    warnings: Vec<SnapshotWarning>,
}

/// Where `Store::state_at` got to, and what it found on the way.
pub(super) struct Reached {
    pub(super) state: State,
    /// Damaged snapshots, newest first.
    pub(super) warnings: Vec<SnapshotWarning>,
    /// Snapshots taken again in place of the damaged ones: (event index, snapshot).
    rebuilt: Vec<(u64, Vec<u8>)>,
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fixtures::{entries, genesis_hash, played, played_long};
    use crate::SNAPSHOT_EVERY;
    use sandglass_sim::Need;

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
}
