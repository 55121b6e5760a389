//! A recorded game: its tape and the hashes that check it. A replay file is one on disk
//! (`sandglass-store` reads and writes the bytes); a stored game can be read as one; the
//! replay scrubber's timeline is built from one. Checking a recording folds its tape once,
//! regenerating every draw from the seed and comparing every hash on the way.

use thiserror::Error;

use crate::drive::{FoldError, Verifier};
use crate::rules::{HeaderError, Rules};
use crate::state::{Need, Observer, State};
use crate::tape::{Event, Header};

/// A hash checkpoint is recorded after every this many events: the spacing of a stored
/// game's snapshots (see `sandglass-store`), so that both localise a desync to the same
/// stretch of tape.
pub const CHECKPOINT_EVERY: u64 = 10_000;

/// A game's tape with the hashes recorded along it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Recording {
    pub header: Header,
    pub events: Vec<Event>,
    /// (events folded, `State::hash` after them), in increasing order of events.
    pub checkpoints: Vec<(u64, u64)>,
    /// `State::hash` after the last event.
    pub final_hash: u64,
}

/// Why a recording does not check out.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Error)]
pub enum CheckError {
    #[error(transparent)]
    Header(#[from] HeaderError),
    #[error("its events do not make a game: {0}")]
    Fold(#[from] FoldError),
    #[error("desync: after event {index} the state hash is {found:#018x}, but the recording holds {expected:#018x}")]
    Desync {
        index: u64,
        expected: u64,
        found: u64,
    },
    #[error("a checkpoint lies at event 0 or beyond the last event")]
    Checkpoint,
}

impl CheckError {
    /// The event where the recording went wrong, when it is one.
    pub fn index(&self) -> Option<u64> {
        match self {
            CheckError::Fold(e) => Some(e.index.0),
            CheckError::Desync { index, .. } => Some(*index),
            CheckError::Header(_) | CheckError::Checkpoint => None,
        }
    }
}

impl Recording {
    /// Folds a tape and records its checkpoints and final hash.
    pub fn record(header: Header, events: Vec<Event>) -> Result<Recording, CheckError> {
        Recording::record_visiting(header, events, |_| ())
    }

    /// `record`, where `visit` sees the state wherever the player was to move and at
    /// every checkpoint: enough to tell how far a long fold has got.
    pub fn record_visiting(
        header: Header,
        events: Vec<Event>,
        mut visit: impl FnMut(&State),
    ) -> Result<Recording, CheckError> {
        let rules = Rules::of(&header)?;
        let mut checkpoints = vec![];
        let state = fold_visiting(rules, header.seed, &events, &mut (), |state| {
            let folded = state.events_folded();
            if folded % CHECKPOINT_EVERY == 0 {
                checkpoints.push((folded, state.hash()));
            }
            visit(state);
            Ok::<_, CheckError>(next_multiple(folded, CHECKPOINT_EVERY))
        })?;
        Ok(Recording {
            header,
            events,
            checkpoints,
            final_hash: state.hash(),
        })
    }

    /// `check` with no observer: `visit` sees the state wherever the player was to move.
    /// Returns the final state.
    pub fn replay(&self, visit: impl FnMut(&State)) -> Result<State, CheckError> {
        self.check(&mut (), u64::MAX, visit)
    }

    /// Checks the recording in one fold: every draw is regenerated from the seed and
    /// compared, every event must be legal where it stands, every checkpoint and the final
    /// hash must match. `obs` watches the fold and `visit` sees the state wherever the
    /// player was to move and after every multiple of `every` events, so that a caller
    /// that needs more from the fold (markers, snapshots) does not fold again.
    pub fn check(
        &self,
        obs: &mut impl Observer,
        every: u64,
        mut visit: impl FnMut(&State),
    ) -> Result<State, CheckError> {
        let rules = Rules::of(&self.header)?;
        let mut checkpoints = self.checkpoints.iter().peekable();
        let state = fold_visiting(rules, self.header.seed, &self.events, obs, |state| {
            let folded = state.events_folded();
            if let Some(&&(index, expected)) = checkpoints.peek() {
                if index == folded {
                    checkpoints.next();
                    check_hash(index, expected, state)?;
                }
            }
            visit(state);
            let checkpoint = checkpoints.peek().map_or(u64::MAX, |&&(index, _)| index);
            Ok::<_, CheckError>(checkpoint.min(next_multiple(folded, every)))
        })?;
        if checkpoints.next().is_some() {
            // Replay files refuse such checkpoints when read; a value built by hand may
            // still hold one.
            return Err(CheckError::Checkpoint);
        }
        check_hash(self.events.len() as u64, self.final_hash, &state)?;
        Ok(state)
    }
}

fn check_hash(index: u64, expected: u64, state: &State) -> Result<(), CheckError> {
    let found = state.hash();
    if found != expected {
        return Err(CheckError::Desync {
            index,
            expected,
            found,
        });
    }
    Ok(())
}

/// Folds `events` from the genesis like `drive::verify` (every draw checked against the
/// seed), showing `visit` the state after each step of the fold: imports take their
/// snapshots and recordings check their hashes this way, in the one pass that validates
/// the tape. A step ends where the player is to move, or earlier where `visit` asked to
/// look: it returns the next count of events folded at which it must see the state.
pub fn fold_visiting<E: From<FoldError>>(
    rules: Rules,
    seed: u64,
    events: &[Event],
    obs: &mut impl Observer,
    mut visit: impl FnMut(&State) -> Result<u64, E>,
) -> Result<State, E> {
    let mut verifier = Verifier::new(rules, seed, obs);
    let mut events = events.iter().copied().peekable();
    let mut look_at: u64 = 1;
    loop {
        // The event fed counts too: the draws after it may bring the fold up to `look_at`.
        let budget = look_at.saturating_sub(verifier.state().events_folded() + 1);
        if !verifier.feed_pulling(&mut events, budget, obs)? {
            break;
        }
        look_at = visit(verifier.state())?;
    }
    Ok(verifier.finish()?)
}

/// The first multiple of `every` after `count`: where a visitor that wants to see the
/// state every `every` events looks next.
pub fn next_multiple(count: u64, every: u64) -> u64 {
    (count / every + 1).saturating_mul(every)
}

/// Whether the state is where a tape may stop or be cut: the player is to move, or the
/// game is over.
pub fn is_a_stop(state: &State) -> bool {
    state.need() != Need::Draw
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::bot::Bot;
    use crate::tape::Ruleset;

    fn recorded(seed: u64, commands: u64) -> Recording {
        let tape = Bot::new(seed).record(Rules::newest(Ruleset::NETHACK), seed, commands);
        Recording::record(tape.header, tape.events).unwrap()
    }

    /// A game long enough to hold two checkpoints.
    fn long() -> Recording {
        let mut game = crate::LiveTape::new(Rules::newest(Ruleset::NETHACK), 1);
        Bot::lingering(1, 2_000)
            .play_until(&mut game, |s| s.events_folded() > 2 * CHECKPOINT_EVERY)
            .unwrap();
        let tape = game.into_tape();
        Recording::record(tape.header, tape.events).unwrap()
    }

    #[test]
    fn a_recording_checks_out_and_its_checkpoints_lie_every_so_many_events() {
        let recording = long();
        assert!(recording.events.len() as u64 > CHECKPOINT_EVERY);
        let at: Vec<u64> = recording.checkpoints.iter().map(|&(i, _)| i).collect();
        let expected: Vec<u64> = (1..=recording.events.len() as u64 / CHECKPOINT_EVERY)
            .map(|k| k * CHECKPOINT_EVERY)
            .collect();
        assert_eq!(at, expected);
        assert_eq!(
            recording.replay(|_| ()).unwrap().hash(),
            recording.final_hash
        );
    }

    #[test]
    fn a_changed_draw_is_caught_as_a_desync_or_a_bad_tape() {
        let mut recording = long();
        let (first_checkpoint, _) = recording.checkpoints[0];
        // A draw well before the first checkpoint, so that a checkpoint must catch it.
        let at = (1..first_checkpoint as usize)
            .rev()
            .find(|&i| matches!(recording.events[i], Event::Draw(_)))
            .unwrap();
        if let Event::Draw(value) = &mut recording.events[at] {
            *value ^= 0x8000_0000;
        }
        let error = recording.replay(|_| ()).unwrap_err();
        assert!(
            matches!(error, CheckError::Desync { .. } | CheckError::Fold(_)),
            "{error}"
        );
        assert!(error.index().is_some_and(|i| i <= first_checkpoint));
    }

    #[test]
    fn a_wrong_final_hash_is_a_desync_at_the_end() {
        let mut recording = recorded(3, 20);
        recording.final_hash ^= 1;
        let end = recording.events.len() as u64;
        assert!(matches!(
            recording.replay(|_| ()),
            Err(CheckError::Desync { index, .. }) if index == end
        ));
    }

    #[test]
    fn a_tape_cut_mid_step_is_not_a_game() {
        let mut tape = Bot::new(3).record(Rules::newest(Ruleset::NETHACK), 3, 20);
        // Its last draw and all after it: the step that draw belongs to is left short.
        let last_draw = tape
            .events
            .iter()
            .rposition(|e| matches!(e, Event::Draw(_)));
        tape.events.truncate(last_draw.unwrap());
        assert!(matches!(
            Recording::record(tape.header, tape.events),
            Err(CheckError::Fold(_))
        ));
    }

    #[test]
    fn a_tape_of_other_rules_is_refused() {
        let mut recording = recorded(3, 20);
        recording.header.rules_version += 1;
        assert!(matches!(
            recording.replay(|_| ()),
            Err(CheckError::Header(_))
        ));
    }
}
