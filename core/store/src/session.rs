//! The open game: `Session`, made by `Store::create` or `Store::resume`, writes each
//! command's step and flushes it before the next command is taken, and takes the game's
//! hash when play stops. `Store::catch_up` is here with it: on the next open it finishes
//! what a crash kept play from finishing, so the order of play's writes and what a stop
//! between any two of them leaves are read in one place.
//!
//! Apart from reading a game back (`load`) and from moving games in and out
//! (`transfer`): a session is the one thing here that holds a game open from call to
//! call, writing it a step at a time.

use super::db::Store;
use super::error::{PlayError, StoreError};
use super::layout::{encode_record, key};
use super::load::Reached;
use super::log;
use super::snapshot::{self, SnapshotWarning};
use super::verdict::Verdict;
use super::Stream;
use super::{GameId, GameMeta, Status};
use sandglass_sim::drive::{fold_from, Game};
use sandglass_sim::{
    Command, Dealt, DealtError, Event, Header, Live, Need, Observer, Rules, State,
};

/// A game being played: every accepted command is on disk before `command` returns.
pub struct Session {
    store: Store,
    meta: GameMeta,
    play: Play,
    /// The events of the step being played, reused between commands.
    step: Vec<Event>,
    warnings: Vec<SnapshotWarning>,
    broken: bool,
}

/// Where a session's draws come from.
enum Play {
    /// The game's own seed: every game but a dealt run.
    Seeded(Live),
    /// Its server (`deal`), a step at a time; `sent` is the command sent there whose
    /// draws have not come yet.
    Dealt { game: Dealt, sent: Option<Command> },
}

impl Play {
    fn state(&self) -> &State {
        match self {
            Play::Seeded(live) => live.state(),
            Play::Dealt { game, .. } => game.state(),
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
        let seed = header.seed;
        self.make(name, header, stream, |rules, step| {
            Ok(Play::Seeded(Live::new(rules, seed, obs, step)))
        })
    }

    /// A dealt run called `name`, played on `stream`'s server: its first level made of
    /// the draws `opening` the server dealt. `header.seed` is not the run's, which the
    /// server keeps.
    pub fn create_dealt(
        &self,
        name: &str,
        header: Header,
        stream: &Stream,
        opening: &[u32],
        obs: &mut impl Observer,
    ) -> Result<Session, StoreError> {
        self.make(name, header, Some(stream), |rules, step| {
            let game =
                Dealt::new(rules, opening, obs, step).map_err(|cause| misdealt(name, cause))?;
            Ok(Play::Dealt { game, sent: None })
        })
    }

    /// A new game whose first level `begin` plays into the step it is handed.
    fn make(
        &self,
        name: &str,
        header: Header,
        stream: Option<&Stream>,
        begin: impl FnOnce(Rules, &mut Vec<Event>) -> Result<Play, StoreError>,
    ) -> Result<Session, StoreError> {
        self.check_room()?;
        self.check_new_name(name)?;
        let rules = Rules::of(&header).map_err(|cause| StoreError::Version {
            name: name.to_owned(),
            cause,
        })?;
        let mut step = Vec::new();
        let play = begin(rules, &mut step)?;
        let id = self.new_id()?;
        // The genesis is hashed now: a game closed, or killed, before its first command
        // is whole with its record as it stands.
        let meta = GameMeta::new(id, name, header, play.state(), play.state().hash());
        self.claim_name(name, id)?;
        if let Some(stream) = stream {
            self.mark_stream(id, stream)?;
        }
        if let Play::Dealt { .. } = play {
            self.mark_dealt(id)?;
        }
        let mut session = Session {
            store: self.clone(),
            meta,
            play,
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
        let play = match self.is_dealt(id)? {
            true => Play::Dealt {
                sent: self.sent(id, loaded.meta.events)?,
                game: Dealt::resume(loaded.state),
            },
            false => Play::Seeded(Live::resume(loaded.meta.header.seed, loaded.state)),
        };
        Ok(Session {
            store: self.clone(),
            play,
            meta: loaded.meta,
            step: vec![],
            warnings: loaded.warnings,
            broken: false,
        })
    }
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
        self.play.state()
    }

    pub fn meta(&self) -> &GameMeta {
        &self.meta
    }

    /// Snapshots skipped while loading this game.
    pub fn warnings(&self) -> &[SnapshotWarning] {
        &self.warnings
    }

    /// Plays `command` and saves the step (the command and every draw it caused) as one
    /// value, flushed. A rejected command changes and writes nothing. A dealt run's
    /// commands go by `send` and `dealt` instead.
    pub fn command(
        &mut self,
        command: Command,
        obs: &mut impl Observer,
    ) -> Result<Need, PlayError> {
        self.check_not_broken()?;
        let Play::Seeded(live) = &mut self.play else {
            return Err(self.error(|name| StoreError::Dealt { name }).into());
        };
        let first = live.state().events_folded();
        self.step.clear();
        let need = live.command(command, obs, &mut self.step)?;
        self.save_step(first)?;
        Ok(need)
    }

    /// A dealt run's next command, checked and written down (flushed) before it is sent
    /// to be dealt: returns its event index, where the server is to keep it. Sent again
    /// while it waits, the same command is the same; another is refused.
    pub fn send(&mut self, command: Command) -> Result<u64, PlayError> {
        self.check_not_broken()?;
        let id = self.meta.id;
        let Play::Dealt { game, sent } = &mut self.play else {
            return Err(self.error(|name| StoreError::NotDealt { name }).into());
        };
        let at = game.state().events_folded();
        match sent {
            Some(waiting) if *waiting == command => return Ok(at),
            Some(_) => return Err(self.error(|name| StoreError::Waiting { name }).into()),
            None => game.validate(&command)?,
        }
        self.store.write_sent(id, at, command)?;
        self.store.commit()?;
        *sent = Some(command);
        Ok(at)
    }

    /// The command sent to be dealt and still waiting on its draws, at its event index.
    pub fn sent(&self) -> Option<(u64, Command)> {
        match &self.play {
            Play::Dealt {
                game,
                sent: Some(command),
            } => Some((game.state().events_folded(), *command)),
            _ => None,
        }
    }

    /// Plays the command sent with the `draws` its server dealt for it, and saves the
    /// step as `command` does. Draws that do not fit the step change and write nothing.
    pub fn dealt(&mut self, draws: &[u32], obs: &mut impl Observer) -> Result<Need, PlayError> {
        self.check_not_broken()?;
        let name = &self.meta.name;
        let Play::Dealt { game, sent } = &mut self.play else {
            return Err(StoreError::NotDealt { name: name.clone() }.into());
        };
        let Some(command) = *sent else {
            return Err(misdealt(name, DealtError::TooMany(draws.len())).into());
        };
        let first = game.state().events_folded();
        self.step.clear();
        let need = game
            .command(command, draws, obs, &mut self.step)
            .map_err(|cause| misdealt(name, cause))?;
        *sent = None;
        self.save_step(first)?;
        Ok(need)
    }

    fn check_not_broken(&self) -> Result<(), StoreError> {
        match self.broken {
            true => Err(self.error(|name| StoreError::Broken { name })),
            false => Ok(()),
        }
    }

    /// An error about this game, by its name.
    fn error(&self, error: impl FnOnce(String) -> StoreError) -> StoreError {
        error(self.meta.name.clone())
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
        let state = self.play.state();
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
        // After the record: a stop between the two leaves the command marked as sent at
        // an index the record has passed, which `Store::sent` forgets.
        if let Play::Dealt { .. } = self.play {
            self.store.clear_sent(id)?;
        }
        self.store.commit()?;
        self.meta = meta;
        Ok(())
    }

    /// Takes the hash the record lacks, if it does, and writes the record.
    fn take_hash(&mut self) -> Result<(), StoreError> {
        if self.broken || self.meta.final_hash().is_some() {
            return Ok(());
        }
        let state = self.play.state();
        self.meta.record(state, Some(state.hash()));
        self.store
            .games
            .insert(self.meta.id.key(), encode_record(&self.meta))?;
        self.store.commit()?;
        Ok(())
    }
}

/// Draws dealt for a step that they do not fit.
fn misdealt(name: &str, cause: DealtError) -> StoreError {
    StoreError::Misdealt {
        name: name.to_owned(),
        cause,
    }
}

/// Play stops: the record gets its hash. Should that write fail, the next open of the
/// store takes the hash again (`Store::catch_up`).
impl Drop for Session {
    fn drop(&mut self) {
        let _ = self.take_hash();
    }
}

impl Store {
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
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fixtures::{genesis_hash, play, played};
    use sandglass_sim::Ruleset;

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
}
