//! Dealt runs: games whose draws a server deals a step at a time, keeping the seed
//! (`docs/live.md`, "Dealt runs"). Marked in `layout::DEALT` before the game's first
//! record, with the command sent to be dealt and not yet answered, if there is one: a
//! client stopped while it waited sends that same command again when the run is opened,
//! and the server, which may have kept it, answers it as it did.
//!
//! A dealt game is played only with dealt draws (`Session::send`, `Session::dealt`):
//! its header's seed is not the run's, so a draw made here would not be the server's.

use super::db::Store;
use super::error::StoreError;
use super::log;
use super::GameId;
use sandglass_sim::{Command, Event};

/// A dealt game's mark: no command waiting.
const NOTHING_SENT: &[u8] = &[];

impl Store {
    /// Writes down that game `id`, about to be recorded, is dealt.
    pub(super) fn mark_dealt(&self, id: GameId) -> Result<(), StoreError> {
        self.dealt.insert(id.key(), NOTHING_SENT)?;
        Ok(())
    }

    /// Whether game `id` is a dealt run.
    pub fn is_dealt(&self, id: GameId) -> Result<bool, StoreError> {
        Ok(self.dealt.contains_key(id.key())?)
    }

    /// The command sent to be dealt at event `at` and not yet answered, if any. One
    /// written at another index was answered and kept before a stop: it is forgotten.
    pub(super) fn sent(&self, id: GameId, at: u64) -> Result<Option<Command>, StoreError> {
        let Some(value) = self.dealt.get(id.key())? else {
            return Ok(None);
        };
        let Some((index, step)) = value.split_first_chunk::<8>() else {
            return Ok(None);
        };
        if u64::from_be_bytes(*index) != at {
            return Ok(None);
        }
        match log::decode(at, step).as_deref() {
            Ok([Event::Command(command)]) => Ok(Some(*command)),
            _ => Err(StoreError::Damaged {
                name: self.meta(id)?.name,
                what: "the command it sent to be dealt does not read".into(),
            }),
        }
    }

    /// Writes down `command`, sent to be dealt at event `at` (not yet flushed).
    pub(super) fn write_sent(
        &self,
        id: GameId,
        at: u64,
        command: Command,
    ) -> Result<(), StoreError> {
        let mut value = at.to_be_bytes().to_vec();
        value.extend(log::encode(&[Event::Command(command)]));
        self.dealt.insert(id.key(), value)?;
        Ok(())
    }

    /// Forgets the command sent: it was answered, and its step is written.
    pub(super) fn clear_sent(&self, id: GameId) -> Result<(), StoreError> {
        self.dealt.insert(id.key(), NOTHING_SENT)?;
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use crate::error::{PlayError, StoreError};
    use crate::{Store, Stream};
    use sandglass_sim::bot::Bot;
    use sandglass_sim::{Command, Event, Header, LiveTape, Rules, Ruleset, Slot};

    /// A command and the draws dealt for it.
    type Step = (Command, Vec<u32>);

    /// A dealt run fed the draws of a game the bot played from `seed`: what the server
    /// deals is what its own seeded game draws.
    fn dealer(seed: u64, commands: u64) -> (Vec<u32>, Vec<Step>, u64) {
        let mut game = LiveTape::new(Rules::newest(Ruleset::NETHACK), seed);
        Bot::new(seed).play(&mut game, commands).unwrap();
        let (mut opening, mut steps) = (vec![], vec![]);
        for event in &game.tape().events {
            match (*event, steps.last_mut()) {
                (Event::Command(c), _) => steps.push((c, vec![])),
                (Event::Draw(d), Some((_, draws))) => draws.push(d),
                (Event::Draw(d), None) => opening.push(d),
            }
        }
        (opening, steps, game.state().hash())
    }

    fn stream() -> Stream {
        Stream {
            server: "http://127.0.0.1:1".into(),
            run: 4,
            player: "camel".into(),
            day: "2026-12-01".into(),
        }
    }

    #[test]
    fn a_dealt_run_plays_only_dealt_draws_and_sends_again_what_a_stop_left_waiting() {
        let dir = tempfile::tempdir().unwrap();
        let store = Store::open(dir.path()).unwrap();
        let (opening, steps, hash) = dealer(5, 60);
        let header = Header::of(Rules::newest(Ruleset::NETHACK), 0, 0);
        let mut session = store
            .create_dealt("dealt", header, &stream(), &opening, &mut ())
            .unwrap();
        let id = session.meta().id;
        assert!(store.is_dealt(id).unwrap());
        let (first, rest) = steps.split_first().unwrap();
        // Its own seed is not the run's: it never draws for itself.
        assert!(matches!(
            session.command(first.0, &mut ()),
            Err(PlayError::Store(StoreError::Dealt { .. }))
        ));
        assert!(matches!(
            session.send(Command::Eat(Slot(25))),
            Err(PlayError::Rejected(_))
        ));
        let at = session.send(first.0).unwrap();
        assert_eq!(at, opening.len() as u64);
        // Killed while it waits: the command is sent again on the next open.
        drop(session);
        drop(store);
        let store = Store::open(dir.path()).unwrap();
        let mut session = store.resume(id).unwrap();
        assert_eq!(session.sent(), Some((at, first.0)));
        let other = match first.0 {
            Command::Rest => Command::PickUp,
            _ => Command::Rest,
        };
        assert!(matches!(
            session.send(other),
            Err(PlayError::Store(StoreError::Waiting { .. }))
        ));
        assert_eq!(session.send(first.0).unwrap(), at);
        // Draws that do not fit the step keep nothing.
        assert!(matches!(
            session.dealt(&[1, 2, 3], &mut ()),
            Err(PlayError::Store(StoreError::Misdealt { .. }))
        ));
        assert_eq!(store.meta(id).unwrap().events, at);
        session.dealt(&first.1, &mut ()).unwrap();
        assert_eq!(session.sent(), None);
        for (command, draws) in rest {
            session.send(*command).unwrap();
            session.dealt(draws, &mut ()).unwrap();
        }
        assert_eq!(session.state().hash(), hash);
        drop(session);
        drop(store);
        let store = Store::open(dir.path()).unwrap();
        let session = store.resume(id).unwrap();
        assert_eq!(session.sent(), None);
        assert_eq!(session.state().hash(), hash);
        assert_eq!(store.meta(id).unwrap().final_hash(), Some(hash));
        store.delete(id).unwrap();
        assert!(!store.is_dealt(id).unwrap());
    }

    #[test]
    fn a_seeded_game_sends_nothing_to_be_dealt() {
        let (_dir, store, id) = crate::fixtures::played(3);
        let mut session = store.resume(id).unwrap();
        assert!(!store.is_dealt(id).unwrap());
        assert!(matches!(
            session.send(Command::Rest),
            Err(PlayError::Store(StoreError::NotDealt { .. }))
        ));
        assert!(matches!(
            session.dealt(&[], &mut ()),
            Err(PlayError::Store(StoreError::NotDealt { .. }))
        ));
    }
}
