//! Where a game's log lies. A fork does not copy the log it was forked from: its record
//! names the stretches it shares with older games ([`Span`]), each read from the steps
//! of the game that played it, and under its own id lie only the steps it played after
//! the fork. "Save as" and "take over" then write one record, whatever the length of the
//! game.
//!
//! A game's steps and snapshots outlive its record while a fork still reads them, cut
//! back to what the forks read (`Store::tidy`).

use std::ops::RangeInclusive;

use serde::{Deserialize, Serialize};

use sandglass_sim::Event;

use super::db::Store;
use super::error::StoreError;
use super::layout::{self, key};
use super::log;
use super::{GameId, GameMeta};

/// A stretch of a game's log that lies under another game's id: the events from where
/// the previous span ended (0 for the first) up to `to`, played by game `game`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Span {
    pub game: GameId,
    pub to: u64,
}

/// The keys in `snapshots` of one stretch of the log being read.
pub(crate) type SnapshotRange = RangeInclusive<[u8; 16]>;

/// A stretch of a game's log and the game under whose id it lies: events `start..end`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Part {
    pub(crate) owner: GameId,
    pub(crate) start: u64,
    pub(crate) end: u64,
}

impl GameMeta {
    /// The stretches of the log in tape order, the game's own last (it may be empty).
    pub(crate) fn parts(&self) -> impl Iterator<Item = Part> + '_ {
        let starts = std::iter::once(0).chain(self.shared.iter().map(|span| span.to));
        let owners = self.shared.iter().map(|span| span.game).chain([self.id]);
        let ends = self.shared.iter().map(|span| span.to).chain([self.events]);
        starts
            .zip(owners)
            .zip(ends)
            .map(|((start, owner), end)| Part { owner, start, end })
    }

    /// What a fork of this game at event `at` shares with it: every stretch of its log
    /// before `at`, this game's own included.
    pub(crate) fn shared_until(&self, at: u64) -> Vec<Span> {
        self.parts()
            .filter(|part| part.start < at)
            .map(|part| Span {
                game: part.owner,
                to: part.end.min(at),
            })
            .collect()
    }

    /// Whether the spans can describe this game's log: each in an older game, each
    /// ending after the one before, none past the game's end.
    pub(crate) fn spans_are_sound(&self) -> bool {
        let mut start = 0;
        self.shared.iter().all(|span| {
            let sound = span.game < self.id && start < span.to && span.to <= self.events;
            start = span.to;
            sound
        })
    }
}

impl Store {
    /// Events `from..to` of a game's log, both ends step boundaries. `read_to` is told the
    /// index of the next event to read as the reading goes.
    pub(crate) fn read_log(
        &self,
        meta: &GameMeta,
        from: u64,
        to: u64,
        read_to: &mut dyn FnMut(u64),
    ) -> Result<Vec<Event>, StoreError> {
        let mut events = Vec::with_capacity(to.saturating_sub(from).min(1 << 20) as usize);
        for part in meta.parts() {
            let (start, end) = (from.max(part.start), to.min(part.end));
            if start < end {
                let read = log::read(&self.steps, part.owner, start, end, &meta.name, read_to)?;
                events.extend(read);
            }
        }
        Ok(events)
    }

    /// The ranges of keys in `snapshots` that may hold the state of this game after event
    /// `at` or before, newest first.
    pub(crate) fn snapshot_ranges(&self, meta: &GameMeta, at: u64) -> Vec<SnapshotRange> {
        let mut ranges: Vec<SnapshotRange> = meta
            .parts()
            .filter(|part| part.start <= at)
            .map(|part| key(part.owner, part.start)..=key(part.owner, part.end.min(at)))
            .collect();
        ranges.reverse();
        ranges
    }

    /// The key under which the snapshot of a game at event `at` is kept: that of the game
    /// whose steps lead there.
    pub(crate) fn snapshot_key(&self, meta: &GameMeta, at: u64) -> [u8; 16] {
        let owner = meta
            .parts()
            .find(|part| part.start < at && at <= part.end)
            .map_or(meta.id, |part| part.owner);
        key(owner, at)
    }

    /// Cuts back the steps and snapshots of a game that has no record any more: dropped
    /// if no fork reads them, else cut to what the forks read. While a record does not
    /// decode, what it reads is unknown, and everything is kept. Says whether it got
    /// through (see `cut`): a record that does not decode counts as through, as nothing
    /// would come of trying again until it is repaired.
    pub(crate) fn tidy(&self, id: GameId) -> Result<bool, StoreError> {
        let mut read_to = None;
        for entry in self.games.iter() {
            let (k, v) = entry?;
            let Ok(meta) = layout::decode_record(&k, &v) else {
                return Ok(true);
            };
            for span in meta.shared.iter().filter(|span| span.game == id) {
                read_to = read_to.max(Some(span.to));
            }
        }
        let Some(to) = read_to else {
            return self.drop_game(id);
        };
        // In order from the end, so that a crash part-way leaves the log whole up to `to`.
        let end = key(id, u64::MAX);
        Ok(self.cut(&self.steps, key(id, to)..=end)?
            && self.cut(&self.snapshots, key(id, to.saturating_add(1))..=end)?)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn meta(id: u64, shared: &[(u64, u64)], events: u64) -> GameMeta {
        let header = sandglass_sim::Header::new(1, sandglass_sim::Ruleset::NETHACK, 0);
        let rules = sandglass_sim::Rules::of(&header).unwrap();
        let state = sandglass_sim::State::new(rules, &mut ());
        let mut meta = GameMeta::new(GameId(id), "g", header, &state, 0);
        meta.shared = shared
            .iter()
            .map(|&(game, to)| Span {
                game: GameId(game),
                to,
            })
            .collect();
        meta.events = events;
        meta
    }

    #[test]
    fn a_log_is_the_shared_stretches_then_the_games_own() {
        let parts: Vec<(u64, u64, u64)> = meta(5, &[(1, 40), (3, 90)], 120)
            .parts()
            .map(|p| (p.owner.0, p.start, p.end))
            .collect();
        assert_eq!(parts, [(1, 0, 40), (3, 40, 90), (5, 90, 120)]);
        let alone: Vec<(u64, u64, u64)> = meta(2, &[], 7)
            .parts()
            .map(|p| (p.owner.0, p.start, p.end))
            .collect();
        assert_eq!(alone, [(2, 0, 7)]);
    }

    #[test]
    fn a_fork_shares_every_stretch_before_its_point_and_no_more() {
        let source = meta(5, &[(1, 40), (3, 90)], 120);
        let spans = |at| {
            source
                .shared_until(at)
                .iter()
                .map(|s| (s.game.0, s.to))
                .collect::<Vec<_>>()
        };
        assert_eq!(spans(0), []);
        assert_eq!(spans(30), [(1, 30)]);
        assert_eq!(spans(40), [(1, 40)]);
        assert_eq!(spans(60), [(1, 40), (3, 60)]);
        assert_eq!(spans(120), [(1, 40), (3, 90), (5, 120)]);
    }

    #[test]
    fn spans_out_of_order_or_from_a_younger_game_are_unsound() {
        assert!(meta(5, &[(1, 40), (3, 90)], 120).spans_are_sound());
        assert!(!meta(5, &[(3, 90), (1, 40)], 120).spans_are_sound());
        assert!(!meta(5, &[(7, 40)], 120).spans_are_sound());
        assert!(!meta(5, &[(5, 40)], 120).spans_are_sound());
        assert!(!meta(5, &[(1, 0)], 120).spans_are_sound());
        assert!(!meta(5, &[(1, 130)], 120).spans_are_sound());
    }
}
