//! A game's verdict: the score its log folds to, proved once and remembered with exactly
//! what it proves, so that the high-score table need not fold every game ever played each
//! time it opens.
//!
//! A verdict says: the log of `events` events whose stored steps digest to `log`, under
//! rules version `rules_version`, folds to the state hashed `hash`, which scores `score`.
//! It is trusted only while all of that still describes the game: its record (length,
//! saved hash, rules version) and its log as stored now. A game played on, a step damaged
//! or rewritten, a record replaced: each makes the verdict describe another log, and the
//! game is proved again. `Store::prove` folds the log to make one; the table reads them
//! (`Store::verdicts`), and `scores --recheck` folds every game again and compares.
//!
//! The `verdicts` tree holds one value per game, keyed by its id (big-endian `u64`): an
//! 8-byte checksum (xxh3-64 of the rest, little-endian), the format byte, then the fields
//! below in fixed-width little-endian. A value of any other length, format or checksum is
//! damaged, and counts as no verdict: the game is proved again.

use std::collections::BTreeMap;
use std::fmt;

use sandglass_sim::score::Score;
use sandglass_sim::{CheckError, State};

use super::db::Store;
use super::error::StoreError;
use super::layout::keys;
use super::{GameId, GameMeta};

/// The encoding of a verdict value; a value in any other is damaged.
const FORMAT: u8 = 1;
/// checksum, format, events, hash, rules version, log digest, depth, won, turns, kills,
/// points.
const LEN: usize = 8 + 1 + 8 + 8 + 2 + 8 + 1 + 1 + 8 + 4 + 8;

/// What a game's log was proved to fold to.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Verdict {
    /// The length of the log proved, in events.
    pub events: u64,
    /// `State::hash` after the last of them.
    pub hash: u64,
    pub rules_version: u16,
    /// The digest of the log's steps as stored (`Store::log_digest`).
    pub log: u64,
    pub score: Score,
}

impl Verdict {
    /// The verdict on a log of `meta.header`'s rules that digests to `log` and folds to
    /// `state`, whose hash is `hash` (taken by the caller, who has it already).
    pub fn of(meta: &GameMeta, log: u64, state: &State, hash: u64) -> Verdict {
        Verdict {
            events: state.events_folded(),
            hash,
            rules_version: meta.header.rules_version,
            log,
            score: Score::of(state),
        }
    }

    /// Whether this verdict is on the game as its record describes it now, whose log
    /// digests to `log`: the same length, saved hash and rules version, the same steps.
    pub fn holds_for(&self, meta: &GameMeta, log: u64) -> bool {
        self.fits(meta) && self.log == log
    }

    /// Whether this verdict is on the game as its record describes it now: the same
    /// length, saved hash and rules version. Every write through the store changes the
    /// record; only a change to the log made behind its back (a damaged disk, a hand
    /// edit) also needs `holds_for`, which reads the log.
    pub fn fits(&self, meta: &GameMeta) -> bool {
        self.events == meta.events
            && Some(self.hash) == meta.final_hash()
            && self.rules_version == meta.header.rules_version
    }

    fn encode(&self) -> Vec<u8> {
        let s = self.score;
        let mut body = Vec::with_capacity(LEN - 8);
        body.push(FORMAT);
        body.extend(self.events.to_le_bytes());
        body.extend(self.hash.to_le_bytes());
        body.extend(self.rules_version.to_le_bytes());
        body.extend(self.log.to_le_bytes());
        body.push(s.depth);
        body.push(u8::from(s.won));
        body.extend(s.turns.to_le_bytes());
        body.extend(s.kills.to_le_bytes());
        body.extend(s.points.to_le_bytes());
        let mut value = xxhash_rust::xxh3::xxh3_64(&body).to_le_bytes().to_vec();
        value.extend(body);
        value
    }

    /// A stored value, checked: its length is fixed, so a damaged one can ask for nothing.
    fn decode(value: &[u8]) -> Result<Verdict, &'static str> {
        if value.len() != LEN {
            return Err("it is not a verdict's length");
        }
        let (sum, body) = value.split_at(8);
        if xxhash_rust::xxh3::xxh3_64(body).to_le_bytes() != sum {
            return Err("its checksum does not match");
        }
        if body[0] != FORMAT {
            return Err("it is in an unknown format");
        }
        let mut at = 1;
        let mut take = |n: usize| {
            let bytes = &body[at..at + n];
            at += n;
            bytes
        };
        let u64_ = |b: &[u8]| u64::from_le_bytes(b.try_into().expect("eight bytes"));
        let events = u64_(take(8));
        let hash = u64_(take(8));
        let rules_version = u16::from_le_bytes(take(2).try_into().expect("two bytes"));
        let log = u64_(take(8));
        let depth = take(1)[0];
        let won = match take(1)[0] {
            0 => false,
            1 => true,
            _ => return Err("its `won` is neither 0 nor 1"),
        };
        let turns = u64_(take(8));
        let kills = u32::from_le_bytes(take(4).try_into().expect("four bytes"));
        let points = u64_(take(8));
        Ok(Verdict {
            events,
            hash,
            rules_version,
            log,
            score: Score {
                depth,
                won,
                turns,
                kills,
                points,
            },
        })
    }
}

/// Why a game could not be proved: its log could not be read, or does not check out.
#[derive(Debug)]
pub enum ProofError {
    Store(StoreError),
    Check(CheckError),
    /// The game was played on while it was being proved: prove it again.
    Moved {
        name: String,
    },
}

impl fmt::Display for ProofError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ProofError::Store(e) => e.fmt(f),
            ProofError::Check(e) => e.fmt(f),
            ProofError::Moved { name } => {
                write!(f, "game `{name}` was played on while it was being proved")
            }
        }
    }
}

impl std::error::Error for ProofError {}

impl From<StoreError> for ProofError {
    fn from(e: StoreError) -> ProofError {
        ProofError::Store(e)
    }
}

impl Store {
    /// Every stored verdict, by game; a damaged value says why it is not one. Values
    /// whose key is not a game number are left out: no game can ask for them.
    pub fn verdicts(&self) -> Result<BTreeMap<GameId, Result<Verdict, &'static str>>, StoreError> {
        let mut out = BTreeMap::new();
        for entry in self.verdicts.iter() {
            let (k, v) = entry?;
            if let Some(id) = GameId::from_key(&k) {
                out.insert(id, Verdict::decode(&v));
            }
        }
        Ok(out)
    }

    /// The digest of a game's log as stored: xxh3-64 over each step's event index (as
    /// 8 big-endian bytes) and value, in log order, through the steps of the games it was
    /// forked from: any step changed (damaged, or rewritten with its checksum made anew),
    /// added or lost changes it. Nothing is decoded or folded, so it costs a read of the
    /// log and no more. The index, not the whole key, is digested, as layout 2 keyed a
    /// step: a verdict proved before the migration to layout 3 holds after it.
    pub fn log_digest(&self, meta: &GameMeta) -> Result<u64, StoreError> {
        let mut digest = xxhash_rust::xxh3::Xxh3::new();
        for part in meta.parts() {
            for entry in self.steps.range(keys(part.owner, part.start, part.end)) {
                let (k, v) = entry?;
                let k = k.get(8..).unwrap_or_default();
                // Each length first, so that no two logs run together the same.
                digest.update(&(k.len() as u64).to_le_bytes());
                digest.update(k);
                digest.update(&(v.len() as u64).to_le_bytes());
                digest.update(&v);
            }
        }
        Ok(digest.digest())
    }

    /// Folds a game's log, checking every draw and hash as `verify` does, and returns the
    /// verdict it comes to. Nothing is stored (`remember` does that). Only this one game's
    /// log is held in memory.
    pub fn prove(&self, meta: &GameMeta) -> Result<Verdict, ProofError> {
        let digest = self.log_digest(meta)?;
        let (recording, _) = self.recording(meta.id, &mut |_, _| ())?;
        let state = recording
            .check(&mut (), u64::MAX, |_| ())
            .map_err(ProofError::Check)?;
        if state.events_folded() != meta.events {
            return Err(ProofError::Moved {
                name: meta.name.clone(),
            });
        }
        Ok(Verdict::of(meta, digest, &state, state.hash()))
    }

    /// Stores verdicts (`Some`) and drops them (`None`), durably, in one commit. A store
    /// that may take no writes (a full disk, a failed sync) remembers none, and says so:
    /// they are only a cache of what the logs say, to be proved again next time.
    pub fn remember(&self, verdicts: &[(GameId, Option<Verdict>)]) -> Result<(), StoreError> {
        if verdicts.is_empty() {
            return Ok(());
        }
        self.check_room()?;
        let mut batch = sled::Batch::default();
        for (id, verdict) in verdicts {
            match verdict {
                Some(verdict) => batch.insert(&id.key(), verdict.encode()),
                None => batch.remove(&id.key()),
            }
        }
        self.verdicts.apply_batch(batch)?;
        self.commit()
    }

    /// Writes a game's verdict, for the caller to commit with the rest of its write.
    pub(crate) fn write_verdict(&self, id: GameId, verdict: &Verdict) -> Result<(), StoreError> {
        self.verdicts.insert(id.key(), verdict.encode())?;
        Ok(())
    }

    /// Drops a game's verdict, for the caller to commit.
    pub(crate) fn forget_verdict(&self, id: GameId) -> Result<(), StoreError> {
        self.verdicts.remove(id.key())?;
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::log;
    use sandglass_sim::bot::Bot;
    use sandglass_sim::{Command, Header, Ruleset};

    /// A store with one game the bot played `commands` commands of, then quit.
    fn finished(commands: u64) -> (tempfile::TempDir, Store, GameMeta) {
        let dir = tempfile::tempdir().unwrap();
        let store = Store::open(dir.path()).unwrap();
        let header = Header::new(5, Ruleset::NETHACK, 0);
        let mut session = store.create("ended", header, &mut ()).unwrap();
        Bot::new(5).play(&mut session, commands).unwrap();
        if session.state().outcome().is_none() {
            session.command(Command::Quit, &mut ()).unwrap();
        }
        let id = session.meta().id;
        drop(session);
        let meta = store.meta(id).unwrap();
        (dir, store, meta)
    }

    #[test]
    fn a_game_that_ends_has_its_verdict_stored_and_it_is_what_a_fold_proves() {
        let (_dir, store, meta) = finished(40);
        let stored = store.verdicts().unwrap()[&meta.id].unwrap();
        let digest = store.log_digest(&meta).unwrap();
        assert!(stored.holds_for(&meta, digest));
        assert_eq!(store.prove(&meta).unwrap(), stored);
        assert_eq!(stored.events, meta.events);
    }

    #[test]
    fn a_verdict_value_reads_back_and_a_damaged_one_is_refused_in_words() {
        let (_dir, store, meta) = finished(10);
        let verdict = store.prove(&meta).unwrap();
        let value = verdict.encode();
        assert_eq!(value.len(), LEN);
        assert_eq!(Verdict::decode(&value), Ok(verdict));
        for at in 0..value.len() {
            let mut damaged = value.clone();
            damaged[at] ^= 0x10;
            assert!(Verdict::decode(&damaged).is_err(), "byte {at}");
        }
        assert!(Verdict::decode(&value[..LEN - 1]).is_err());
        assert!(Verdict::decode(&[value.clone(), vec![0]].concat()).is_err());
        assert!(Verdict::decode(&[]).is_err());
    }

    #[test]
    fn a_stored_verdict_does_not_hold_once_a_step_is_rewritten() {
        let (_dir, store, meta) = finished(20);
        let verdict = store.prove(&meta).unwrap();
        let steps = &store.steps;
        // The first step is the first level's draws alone: one of them changed, and the
        // step's checksum made anew as a forger would.
        let (k, v) = steps.first().unwrap().unwrap();
        let mut events = log::decode(0, &v).unwrap();
        events[0] = match events[0] {
            sandglass_sim::Event::Draw(d) => sandglass_sim::Event::Draw(d ^ 1),
            command => panic!("the first step starts with {command:?}"),
        };
        steps.insert(k, log::encode(&events)).unwrap();
        let digest = store.log_digest(&meta).unwrap();
        assert!(!verdict.holds_for(&meta, digest));
    }
}
