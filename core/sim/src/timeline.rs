//! A replay as a timeline: the state at any event of a long tape, quickly; the notable
//! moments on it; and the tape to fork a new game from. The replay scrubber is built on it.
//!
//! Positions on the timeline count events folded: position `p` is the state after the
//! first `p` events, from 0 (the genesis, before the first draw) to the tape's length.
//!
//! Seeking never folds from the genesis. The one fold that builds the timeline (the same
//! fold that verifies the file) keeps a copy of the state every `CACHE_EVERY` events; a seek
//! starts from the cursor when the target is ahead of it and nearer than the copy before
//! the target, and otherwise from that copy, and folds forward. Stepping one event forward
//! folds one event; stepping back starts again from a copy.
//!
//! A timeline may also grow at its end, for a game watched while it is played: `open`
//! starts one from a header with no events and `extend` adds each stretch as it comes,
//! checked as a file's events are (every draw against the generator), with the copies,
//! markers, ticks and commands kept up to date as the building fold keeps them. Where the
//! seed is not known yet (a server may keep a day's seed until the day is over, having
//! checked every draw itself), `open_trusting` takes the draws as they come.

use thiserror::Error;

use std::iter::Peekable;

use crate::drive::{fold_on, FoldError, FoldErrorKind, Verifier};
use crate::ids::{ActorId, EventIndex, Tick};
use crate::recording::{is_a_stop, next_multiple, CheckError, Recording};
use crate::rng::DrawSource;
use crate::rules::{HeaderError, Rules};
use crate::species::Species;
use crate::state::{Observer, State};
use crate::tape::{Event, Header};
use crate::world::{Change, Outcome};

/// A copy of the state is kept after every this many events.
///
/// Chosen from `cargo bench -p sandglass-sim --bench replay` (BENCHMARKS.md, "Replays"): a
/// seek copies a state (about 1.5 µs) and folds about 50 ns per event from there. On a
/// million-event replay, 2,000 gives a median seek of 0.05 ms and a p99 of 0.1 ms, a fifth
/// of the 1% of a fold from the start that a seek may cost, for 17 MB of copies; 10,000
/// (the spacing of the database's snapshots) takes 3.6 MB but its p99 reaches 0.9%.
pub const CACHE_EVERY: u64 = 2_000;

/// A notable moment, at the position where it has just happened: the state at `at` shows
/// it, the state at `at - 1` does not yet.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Marker {
    pub at: u64,
    pub kind: MarkerKind,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum MarkerKind {
    /// A creature died (the camel too; its death also ends the game).
    Death { actor: ActorId, species: Species },
    /// A spider egg hatched (and is gone).
    Hatch { egg: ActorId },
    /// A charging creature ran into a cactus and was knocked out.
    KnockOut { actor: ActorId, species: Species },
    /// The camel went down the stairs to a new level.
    Descend { depth: u8 },
    /// The game ended; always at the last position.
    End(Outcome),
}

pub struct Timeline {
    header: Header,
    events: Vec<Event>,
    every: u64,
    /// `cache[i]` is the state at position `i * every`.
    cache: Vec<State>,
    cursor: State,
    /// The markers and tick starts, as the building fold found them.
    scan: Scan,
    /// Indexes of the command events: the positions where the player is to act.
    commands: Vec<u64>,
    /// The checked end of a timeline that grows (`open`); none on one built whole.
    tip: Option<Tip>,
}

/// The end of a growing tape: the fold that takes each new event where the last left off.
struct Tip {
    fold: TipFold,
    /// The event that could not be added, once one could not: nothing is added after it.
    refused: Option<FoldError>,
}

enum TipFold {
    /// Every draw checked against the generator, as a file's are.
    Checked(Verifier),
    /// The seed is not known: draws are taken as they come, events still checked for
    /// their kind and legality.
    Trusting(State),
}

impl TipFold {
    fn state(&self) -> &State {
        match self {
            TipFold::Checked(verifier) => verifier.state(),
            TipFold::Trusting(state) => state,
        }
    }

    /// Feeds the next of `events` and at most `budget` draws after it; false once none
    /// are left.
    fn feed<I: Iterator<Item = Event>>(
        &mut self,
        events: &mut Peekable<I>,
        budget: u64,
        obs: &mut impl Observer,
    ) -> Result<bool, FoldError> {
        let state = match self {
            TipFold::Checked(verifier) => return verifier.feed_pulling(events, budget, obs),
            TipFold::Trusting(state) => state,
        };
        let Some(event) = events.next() else {
            return Ok(false);
        };
        let index = EventIndex(state.events_folded());
        let mut more = TakenDraws { events, budget };
        state
            .feed_pulling(event, &mut more, obs)
            .map_err(|e| FoldError {
                index,
                kind: FoldErrorKind::Feed(e),
            })?;
        Ok(true)
    }
}

/// The draws that come next on a tape, at most `budget` of them, unchecked.
struct TakenDraws<'a, I: Iterator<Item = Event>> {
    events: &'a mut Peekable<I>,
    budget: u64,
}

impl<I: Iterator<Item = Event>> DrawSource for TakenDraws<'_, I> {
    fn pull(&mut self) -> Option<u32> {
        if self.budget == 0 {
            return None;
        }
        match self.events.next_if(|e| matches!(e, Event::Draw(_)))? {
            Event::Draw(value) => {
                self.budget -= 1;
                Some(value)
            }
            Event::Command(_) => None,
        }
    }
}

/// Why a stretch could not be added to a timeline.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Error)]
pub enum ExtendError {
    /// The event at `FoldError::index` does not follow (a desync, an illegal command, a
    /// draw where a command is due); the events before it were added.
    #[error("{0}")]
    Refused(#[from] FoldError),
    /// The timeline was built from a whole recording, which has no more to come.
    #[error("this replay is whole: nothing can be added to it")]
    Whole,
}

impl Timeline {
    /// Checks a recording (`Recording::check`: every draw, event, checkpoint and the
    /// final hash) and builds its timeline in that same fold. The cursor starts at the end.
    pub fn new(recording: Recording) -> Result<Timeline, CheckError> {
        Timeline::with_spacing(recording, CACHE_EVERY)
    }

    /// `new`, keeping a copy of the state every `every` events instead (at least 1): less
    /// memory for slower seeks, or the reverse.
    pub fn with_spacing(file: Recording, every: u64) -> Result<Timeline, CheckError> {
        let every = every.max(1);
        let mut scan = Scan::default();
        let mut cache = vec![State::new(Rules::of(&file.header)?, &mut ())];
        let cursor = file.check(&mut scan, every, |state| {
            if state.events_folded() % every == 0 {
                cache.push(state.clone());
            }
        })?;
        let commands = (0..)
            .zip(&file.events)
            .filter(|(_, event)| matches!(event, Event::Command(_)))
            .map(|(index, _)| index)
            .collect();
        Ok(Timeline {
            header: file.header,
            events: file.events,
            every,
            cache,
            cursor,
            scan,
            commands,
            tip: None,
        })
    }

    /// A timeline with no events yet, that grows by `extend`: a game watched while it is
    /// played. The cursor starts at the genesis.
    pub fn open(header: Header) -> Result<Timeline, HeaderError> {
        Timeline::open_with_spacing(header, CACHE_EVERY)
    }

    /// `open`, keeping a copy of the state every `every` events (as `with_spacing`).
    pub fn open_with_spacing(header: Header, every: u64) -> Result<Timeline, HeaderError> {
        let rules = Rules::of(&header)?;
        let mut scan = Scan::default();
        let fold = TipFold::Checked(Verifier::new(rules, header.seed, &mut scan));
        Ok(Timeline::grown_from(header, every, scan, fold))
    }

    /// `open` for a game whose seed is not known (the header's is not read): its draws
    /// are taken as they come, unchecked, for whoever sent them checked them. Commands
    /// are still checked, and a draw where a command is due, or the reverse, refused.
    pub fn open_trusting(header: Header) -> Result<Timeline, HeaderError> {
        Timeline::open_trusting_with_spacing(header, CACHE_EVERY)
    }

    /// `open_trusting`, keeping a copy of the state every `every` events.
    pub fn open_trusting_with_spacing(header: Header, every: u64) -> Result<Timeline, HeaderError> {
        let rules = Rules::of(&header)?;
        let mut scan = Scan::default();
        let fold = TipFold::Trusting(State::new(rules, &mut scan));
        Ok(Timeline::grown_from(header, every, scan, fold))
    }

    /// A timeline with no events yet, growing by `fold`.
    fn grown_from(header: Header, every: u64, scan: Scan, fold: TipFold) -> Timeline {
        let cursor = fold.state().clone();
        Timeline {
            header,
            events: vec![],
            every: every.max(1),
            cache: vec![cursor.clone()],
            cursor,
            scan,
            commands: vec![],
            tip: Some(Tip {
                fold,
                refused: None,
            }),
        }
    }

    /// Adds `stretch` at the end, checking each event as `Timeline::new` checks a file's
    /// (a trusting timeline's draws aside).
    /// A stretch may begin or end in the middle of a step. On an event that does not
    /// follow, the events before it are kept and the error names it; nothing more can be
    /// added after that. The cursor stays where it is.
    pub fn extend(&mut self, stretch: &[Event]) -> Result<(), ExtendError> {
        let start = self.end();
        let tip = self.tip.as_mut().ok_or(ExtendError::Whole)?;
        if let Some(refused) = tip.refused {
            return Err(refused.into());
        }
        let mut events = stretch.iter().copied().peekable();
        let outcome = loop {
            // Stop at every multiple of the spacing to keep a copy, as the building fold does.
            let folded = tip.fold.state().events_folded();
            let budget = next_multiple(folded, self.every).saturating_sub(folded + 1);
            match tip.fold.feed(&mut events, budget, &mut self.scan) {
                Ok(true) => {}
                Ok(false) => break Ok(()),
                Err(refused) => {
                    tip.refused = Some(refused);
                    break Err(refused.into());
                }
            }
            let state = tip.fold.state();
            if state.events_folded() % self.every == 0 {
                self.cache.push(state.clone());
            }
        };
        let added = (tip.fold.state().events_folded() - start) as usize;
        for (index, event) in (start..).zip(&stretch[..added]) {
            if matches!(event, Event::Command(_)) {
                self.commands.push(index);
            }
        }
        self.events.extend_from_slice(&stretch[..added]);
        outcome
    }

    /// The state at the end of a timeline that grows, without moving the cursor.
    pub fn end_state(&self) -> Option<&State> {
        self.tip.as_ref().map(|tip| tip.fold.state())
    }

    /// Whether every draw was checked against the generator: false only for a timeline
    /// opened with `open_trusting`.
    pub fn checks_draws(&self) -> bool {
        !matches!(
            self.tip,
            Some(Tip {
                fold: TipFold::Trusting(_),
                ..
            })
        )
    }

    /// The event a growing timeline refused, if it refused one.
    pub fn refused(&self) -> Option<FoldError> {
        self.tip.as_ref().and_then(|tip| tip.refused)
    }

    pub fn header(&self) -> &Header {
        &self.header
    }

    pub fn events(&self) -> &[Event] {
        &self.events
    }

    /// The last position: the number of events on the tape.
    pub fn end(&self) -> u64 {
        self.events.len() as u64
    }

    /// Where the cursor is.
    pub fn position(&self) -> u64 {
        self.cursor.events_folded()
    }

    /// The state at the cursor.
    pub fn cursor(&self) -> &State {
        &self.cursor
    }

    /// Moves the cursor to position `at` (the end if `at` is past it) and returns the state
    /// there. The position may fall in the middle of a step, between two draws: the state
    /// is then the world as it stood part-way through the creatures' turns.
    pub fn seek(&mut self, at: u64) -> &State {
        let at = at.min(self.end());
        let copy = at / self.every;
        let here = self.position();
        if here > at || here < copy * self.every {
            self.cursor.clone_from(&self.cache[copy as usize]);
        }
        self.fold_to(at, &mut ())
    }

    /// Moves the cursor forward to `at` (the end if `at` is past it) by folding every event
    /// on the way, each change shown to `obs`: for playing a replay with what each step
    /// caused animated. Use `seek` to jump, or to go back.
    pub fn play_to(&mut self, at: u64, obs: &mut impl Observer) -> &State {
        self.fold_to(at.clamp(self.position(), self.end()), obs)
    }

    fn fold_to(&mut self, at: u64, obs: &mut impl Observer) -> &State {
        let from = self.position() as usize;
        let events = self.events[from..at as usize].iter().copied();
        // The whole tape folded when the timeline was built; folding is deterministic.
        fold_on(&mut self.cursor, events, obs).expect("a verified tape folds again");
        &self.cursor
    }

    /// Indexes of the command events, in order: the positions where the player is to act,
    /// for stepping one command at a time.
    pub fn commands(&self) -> &[u64] {
        &self.commands
    }

    /// One command forward: the next position after `at` where the player is to act, or
    /// the end.
    pub fn next_command(&self, at: u64) -> u64 {
        let i = self.commands.partition_point(|&c| c <= at);
        self.commands.get(i).copied().unwrap_or(self.end())
    }

    /// One command back: the last position before `at` where the player is to act, or the
    /// genesis.
    pub fn previous_command(&self, at: u64) -> u64 {
        let i = self.commands.partition_point(|&c| c < at);
        i.checked_sub(1).map_or(0, |i| self.commands[i])
    }

    /// The tick of the state at position `at`, without folding.
    pub fn tick_at(&self, at: u64) -> Tick {
        Tick(self.scan.tick_starts.partition_point(|&start| start <= at) as u64)
    }

    /// The first position whose tick is `tick` or later (the end if the game never got
    /// there): for a slider over turns.
    pub fn position_of_tick(&self, tick: Tick) -> u64 {
        match tick.0.checked_sub(1) {
            None => 0,
            Some(i) => self
                .scan
                .tick_starts
                .get(i as usize)
                .copied()
                .unwrap_or(self.end()),
        }
    }

    /// The tick at the end of the tape.
    pub fn last_tick(&self) -> Tick {
        Tick(self.scan.tick_starts.len() as u64)
    }

    /// How the game ended, if the tape goes that far.
    pub fn outcome(&self) -> Option<Outcome> {
        match self.scan.markers.last()?.kind {
            MarkerKind::End(outcome) => Some(outcome),
            _ => None,
        }
    }

    /// Deaths, hatchings, knock-outs, descents and the end of the game, in tape order.
    pub fn markers(&self) -> &[Marker] {
        &self.scan.markers
    }

    /// The first position where the player is to act: the first command, or the end when
    /// the tape has none (yet). Where a replay opens, and how far back playing goes.
    pub fn first_stop(&self) -> u64 {
        self.commands.first().copied().unwrap_or(self.end())
    }

    /// Where "take over from here" cuts the tape for the cursor at `at`: a new game can only
    /// go on where the player is to act, so this is the last such position at or before
    /// `at` (a command's index, or the end), or the first one when `at` comes before any
    /// (while the first level is being drawn). None while there is no such position: a
    /// growing tape that ends among the draws of its first level. The new game is the
    /// header and the events before that position (`Store::take_over_file`), or, for a
    /// stored game, `Store::fork(id, name, position)`, snapshots and all.
    pub fn take_over_at(&self, at: u64) -> Option<u64> {
        let at = at.min(self.end());
        // A growing tape may end in the middle of a step, where no game can go on.
        let end_is_a_stop = self.end_state().is_none_or(is_a_stop);
        if at == self.end() && end_is_a_stop {
            return Some(at);
        }
        let i = self.commands.partition_point(|&c| c <= at);
        match i.checked_sub(1) {
            Some(i) => Some(self.commands[i]),
            None => self
                .commands
                .first()
                .copied()
                .or(end_is_a_stop.then_some(self.end())),
        }
    }
}

/// Watches the building fold for the markers and the start of every tick.
#[derive(Default)]
struct Scan {
    markers: Vec<Marker>,
    tick_starts: Vec<u64>,
}

impl Observer for Scan {
    fn changed(&mut self, state: &State, change: &Change) {
        let at = state.events_folded();
        let species = |actor: ActorId| state.world().actor(actor).map(|a| a.species());
        let kind = match *change {
            Change::StartTick => {
                self.tick_starts.push(at);
                return;
            }
            Change::Die { actor, .. } => match species(actor) {
                Some(species) => MarkerKind::Death { actor, species },
                None => return,
            },
            // Eggs are the only creatures that vanish one by one; whole levels of creatures
            // left behind go with the new level, not through `Vanish`.
            Change::Vanish { actor } if species(actor) == Some(Species::SpiderEgg) => {
                MarkerKind::Hatch { egg: actor }
            }
            Change::KnockOut { actor, .. } => match species(actor) {
                Some(species) => MarkerKind::KnockOut { actor, species },
                None => return,
            },
            Change::NewLevel(ref level) if level.depth > 1 => {
                MarkerKind::Descend { depth: level.depth }
            }
            Change::End(outcome) => MarkerKind::End(outcome),
            _ => return,
        };
        self.markers.push(Marker { at, kind });
    }
}
