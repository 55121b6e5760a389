//! The resumable state machine: it runs until it needs a command or a draw, and stops.
//!
//! Feeding it the next event resumes it. Drivers (`drive`) decide where events come from:
//! the keyboard and the generator when playing live, a stored tape when folding.

use thiserror::Error;

use crate::act::{resolve_command, Action, ActionRecord};
use crate::apply::Change;
use crate::check::{validate, Rejection};
use crate::clocks::Clocks;
use crate::command::Command;
use crate::ids::{ActorId, Tick};
use crate::item::{Effect, Mycology};
use crate::level::{generate, Level};
use crate::map::{Map, Terrain};
use crate::message::{MessageLog, Msg};
use crate::rng::{DrawSource, Draws, NeedDraw};
use crate::species::Behaviour;
use crate::state::{Need, Phase, State, World};
use crate::tape::{Event, Header, TurnOrder};
use std::collections::{BTreeMap, VecDeque};

/// Watches the fold: every change as it is applied, every action as it is taken.
/// Both default to nothing, and `()` watches nothing at no cost.
pub trait Observer {
    /// Whether it is shown each action of an idle actor's turn. When not, the turn is
    /// paid for with one change, which is all a crowd of idle actors costs a tick.
    const SEES_EACH_WAIT: bool = true;

    fn changed(&mut self, _state: &State, _change: &Change) {}
    fn acted(&mut self, _state: &State, _record: &ActionRecord) {}
}

impl Observer for () {
    const SEES_EACH_WAIT: bool = false;
}

/// Why an event could not be folded.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Error)]
pub enum FeedError {
    #[error("a draw was given where a command is due")]
    DrawWhenCommandDue,
    #[error("a command was given where a draw is due")]
    CommandWhenDrawDue,
    #[error("illegal command {command:?}: {reason}")]
    Illegal { command: Command, reason: Rejection },
    #[error("an event was given after the game ended")]
    AfterEnd,
}

impl State {
    /// A new game: the machine starts by asking for the draws of the first level.
    pub fn new(header: &Header, obs: &mut impl Observer) -> State {
        let mut state = State::empty(header.ruleset, Map::filled(1, 1, Terrain::Sand));
        state.phase = Phase::Generate { depth: 1 };
        state.advance(obs, Tick(u64::MAX), None);
        state
    }

    pub(crate) fn empty(ruleset: crate::tape::Ruleset, map: Map) -> State {
        State {
            ruleset,
            tick: Tick(0),
            phase: Phase::StartTick,
            need: Need::Draw,
            actors: vec![],
            clocks: Clocks::default(),
            names: BTreeMap::new(),
            order: vec![],
            order_stale: true,
            order_keys: vec![],
            unrolled: VecDeque::new(),
            draws: vec![],
            pending: None,
            world: World {
                map,
                depth: 0,
                floor: vec![],
                inventory: vec![],
                mycology: Mycology::new(Effect::ALL),
                player: None,
            },
            messages: MessageLog::default(),
            events: 0,
            draws_folded: 0,
        }
    }

    /// Feeds the next event and runs on to the next need.
    pub fn feed(&mut self, event: Event, obs: &mut impl Observer) -> Result<Need, FeedError> {
        self.feed_until(event, obs, Tick(u64::MAX))
    }

    /// `feed`, stopping at the end of tick `last` at the latest.
    pub fn feed_until(
        &mut self,
        event: Event,
        obs: &mut impl Observer,
        last: Tick,
    ) -> Result<Need, FeedError> {
        self.accept(event)?;
        Ok(self.advance(obs, last, None))
    }

    /// `feed`, then as many of the draws `more` holds as the machine asks for before it
    /// next stops: the same as feeding each of them, one `feed` at a time.
    pub fn feed_pulling(
        &mut self,
        event: Event,
        more: &mut dyn DrawSource,
        obs: &mut impl Observer,
    ) -> Result<Need, FeedError> {
        self.accept(event)?;
        Ok(self.advance(obs, Tick(u64::MAX), Some(more)))
    }

    fn accept(&mut self, event: Event) -> Result<(), FeedError> {
        match (self.need, event) {
            (Need::Nothing, _) => return Err(FeedError::AfterEnd),
            (Need::Draw, Event::Draw(value)) => {
                self.draws.push(value);
                self.draws_folded += 1;
            }
            (Need::Draw, Event::Command(_)) => return Err(FeedError::CommandWhenDrawDue),
            (Need::Command, Event::Command(command)) => {
                validate(self, &command)
                    .map_err(|reason| FeedError::Illegal { command, reason })?;
                self.pending = Some(command);
            }
            (Need::Command, Event::Draw(_)) => return Err(FeedError::DrawWhenCommandDue),
            // A paused scenario takes no events; it is resumed by `run_ticks`.
            (Need::Pause, Event::Draw(_)) => return Err(FeedError::DrawWhenCommandDue),
            (Need::Pause, Event::Command(_)) => return Err(FeedError::CommandWhenDrawDue),
        }
        self.events += 1;
        Ok(())
    }

    /// Runs until the end of tick `last` (or an earlier need). Scenarios have no player,
    /// so this is how they are driven; draws must still be fed as asked.
    pub fn run_ticks(&mut self, last: Tick, obs: &mut impl Observer) -> Need {
        self.advance(obs, last, None)
    }

    /// The heart of the machine: runs until something from outside is needed. Decisions
    /// may take their draws from `more` as they run.
    fn advance(
        &mut self,
        obs: &mut impl Observer,
        last: Tick,
        mut more: Option<&mut dyn DrawSource>,
    ) -> Need {
        self.need = loop {
            // An actor that appeared needs its initiative before anything else happens.
            if let Some(&actor) = self.unrolled.front() {
                match self.draws.pop() {
                    Some(value) => self.change(Change::Initiative { actor, value }, obs),
                    None => break Need::Draw,
                }
                continue;
            }
            match self.phase {
                Phase::Over(_) => break Need::Nothing,
                Phase::Generate { depth } => match level_seed(&self.draws) {
                    Err(NeedDraw) => break Need::Draw,
                    Ok(seed) => {
                        self.draws.clear();
                        let level = generate(seed, depth);
                        self.enter(level, obs);
                    }
                },
                Phase::StartTick => {
                    if self.tick >= last {
                        break Need::Pause;
                    }
                    self.change(Change::StartTick, obs);
                    self.phase = match self.ruleset.order {
                        TurnOrder::Initiative => Phase::Act { slot: 0 },
                        TurnOrder::WeightedEachTick => {
                            self.order_keys.clear();
                            self.order.clear();
                            let present = self.actors.iter().enumerate().filter(|(_, a)| a.present);
                            self.order.extend(present.map(|(i, _)| ActorId(i as u32)));
                            Phase::Ordering
                        }
                    };
                }
                Phase::Ordering => {
                    if self.order_keys.len() < self.order.len() {
                        match self.draws.pop() {
                            Some(value) => {
                                let id = self.order[self.order_keys.len()];
                                let weight =
                                    self.ruleset.time.weight(&self.actors[id.index()].stats);
                                self.order_keys
                                    .push((u64::from(value) * u64::from(weight), id));
                            }
                            None => break Need::Draw,
                        }
                        continue;
                    }
                    self.change(Change::Reorder, obs);
                    self.phase = Phase::Act { slot: 0 };
                }
                Phase::Act { slot } => {
                    let Some(slot) = self.next_to_decide(slot, obs) else {
                        self.phase = Phase::StartTick;
                        continue;
                    };
                    self.phase = Phase::Act { slot };
                    let id = self.order[slot as usize];
                    let player = self.actors[id.index()].behaviour == Behaviour::Player;
                    if player && self.pending.is_none() {
                        break Need::Command;
                    }
                    let mut draws = match more.as_deref_mut() {
                        Some(more) => Draws::pulling(&self.draws, more),
                        None => Draws::new(&self.draws),
                    };
                    let decided = match self.pending {
                        Some(command) if player => resolve_command(self, id, command, &mut draws),
                        _ => crate::behaviour::decide(self, id, &mut draws),
                    };
                    let (pulled, count) = draws.into_pulled();
                    if count > 0 {
                        // Each pulled draw is an event folded.
                        self.events += count as u64;
                        self.draws_folded += count as u64;
                    }
                    match decided {
                        Err(NeedDraw) => {
                            self.draws.extend_from_slice(&pulled[..count]);
                            break Need::Draw;
                        }
                        Ok(action) => {
                            self.draws.clear();
                            self.pending = None;
                            self.take(id, action, obs);
                        }
                    }
                }
            }
        };
        self.need
    }

    /// A creature that cannot afford what it chose waits for the energy instead.
    fn take(&mut self, id: ActorId, action: Action, obs: &mut impl Observer) {
        let cost = self.cost_of(id, &action);
        if cost <= self.clocks[id].energy.0 {
            self.perform(id, action, cost, obs);
        } else {
            self.perform(id, Action::Rest, 0, obs);
        }
    }

    /// The tick's hot loop: from `slot` on, skips the actors that cannot act and settles
    /// the turns of idle ones, up to the first actor whose action must be decided.
    fn next_to_decide<O: Observer>(&mut self, slot: u32, obs: &mut O) -> Option<u32> {
        let end = self.order.len() as u32;
        if !O::SEES_EACH_WAIT {
            return self.settle_up_to_decision(slot, end, obs);
        }
        for slot in slot..end {
            let clock = self.clocks.in_turn_at(slot);
            if !clock.is_ready() {
                continue;
            }
            if !clock.idle {
                return Some(slot);
            }
            self.phase = Phase::Act { slot };
            self.idle_turn(self.order[slot as usize], obs);
        }
        None
    }

    /// `next_to_decide` when nobody watches each wait: the idle actors before the next
    /// decision are settled a stretch of slots at a time, with one `Settle` each. A
    /// stretch is read twice (to find where it ends, to settle it), so it is kept short
    /// enough to stay in the nearest cache.
    fn settle_up_to_decision(
        &mut self,
        mut slot: u32,
        end: u32,
        obs: &mut impl Observer,
    ) -> Option<u32> {
        while slot < end {
            let last = end.min(slot + SETTLE_STRETCH);
            let clocks = self.clocks.in_turn(slot..last);
            let decide = clocks.iter().position(|c| !c.idle && c.is_ready());
            let to = decide.map_or(last, |i| slot + i as u32);
            if clocks[..(to - slot) as usize].iter().any(|c| c.idle) {
                self.change(Change::Settle { from: slot, to }, obs);
            }
            if decide.is_some() {
                return Some(to);
            }
            slot = last;
        }
        None
    }

    /// An idle actor's turn, one `Wait` after another as `perform` would show them;
    /// deciding each is skipped because an idle actor needs no draw and touches nothing
    /// but its own clock.
    fn idle_turn(&mut self, id: ActorId, obs: &mut impl Observer) {
        let clock = self.clocks[id];
        let cost = clock.cost;
        for _ in 0..clock.waits() {
            let before = self.clocks[id].energy.0;
            self.change(
                Change::Spend {
                    actor: id,
                    cost,
                    turns: 1,
                },
                obs,
            );
            let record = ActionRecord {
                tick: self.tick,
                actor: id,
                action: Action::Wait,
                energy_before: before,
                energy_after: before - cost,
            };
            obs.acted(self, &record);
        }
    }

    fn enter(&mut self, level: Level, obs: &mut impl Observer) {
        let depth = level.depth;
        self.change(Change::NewLevel(Box::new(level)), obs);
        let msg = if depth == 1 {
            Msg::Welcome { depth }
        } else {
            Msg::Descended { depth }
        };
        self.say(msg, obs);
    }
}

/// A level's seed is two draws: high word first.
fn level_seed(given: &[u32]) -> Result<u64, NeedDraw> {
    let mut draws = Draws::new(given);
    let high = draws.raw()?;
    let low = draws.raw()?;
    Ok(u64::from(high) << 32 | u64::from(low))
}

/// The most slots settled by one `Settle`: 4 KiB of clocks, which stay in the nearest
/// cache between the two reads.
const SETTLE_STRETCH: u32 = 256;
