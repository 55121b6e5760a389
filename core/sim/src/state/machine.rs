//! The resumable state machine: it runs until it needs a command or a draw, and stops.
//!
//! Feeding it the next event resumes it. Drivers (`drive`) decide where events come from:
//! the keyboard and the generator when playing live, a stored tape when folding. One
//! function per phase of the machine (`advance_generate`, `advance_start_tick`,
//! `advance_ordering`, `advance_act`); the machine's books are written here and nowhere
//! else.

use std::collections::BTreeMap;
use std::ops::ControlFlow;

use thiserror::Error;

use super::{Books, Need, Observer, Phase, State};
use crate::action::{Action, ActionRecord};
use crate::check::Rejection;
use crate::command::Command;
use crate::decide::{decide, is_hostile, still_possible};
use crate::ids::{ActorId, Tick};
use crate::level::{generate, Contents, Level};
use crate::map::{Map, Terrain};
use crate::message::Msg;
use crate::rng::{DrawSource, Draws, NeedDraw};
use crate::rules::Rules;
use crate::species::Behaviour;
use crate::tape::{Event, TurnOrder};
use crate::world::{Bookkeeping, Change, World};

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

/// The most slots settled by one `Settle`: 4 KiB of clocks, which stay in the nearest
/// cache between the two reads.
const SETTLE_STRETCH: u32 = 256;

impl Books {
    fn new(phase: Phase) -> Books {
        Books {
            phase,
            need: Need::Draw,
            order_keys: vec![],
            draws: vec![],
            pending: None,
            events: 0,
            draws_folded: 0,
        }
    }
}

impl State {
    /// A new game: the machine starts by asking for the draws of the first level.
    pub fn new(rules: Rules, obs: &mut impl Observer) -> State {
        let mut state = State {
            world: World::empty(rules, Map::filled(1, 1, Terrain::Sand), BTreeMap::new()),
            books: Books::new(Phase::Generate { depth: 1 }),
        };
        state.advance(obs, Tick(u64::MAX), None);
        state
    }

    /// A state with no level and no player, waiting for its first tick: what a scenario
    /// file fills with actors, through `apply` like everything else, the actors to come
    /// going by `names`.
    pub(crate) fn without_player(
        rules: Rules,
        map: Map,
        names: BTreeMap<ActorId, String>,
    ) -> State {
        State {
            world: World::empty(rules, map, names),
            books: Books::new(Phase::StartTick),
        }
    }

    /// Applies changes outside of any turn (a scenario placing its actors).
    pub(crate) fn set_up(&mut self, change: Change) {
        self.change(change, &mut ());
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

    /// Runs until the end of tick `last` (or an earlier need). Scenarios have no player,
    /// so this is how they are driven; draws must still be fed as asked.
    pub fn run_ticks(&mut self, last: Tick, obs: &mut impl Observer) -> Need {
        self.advance(obs, last, None)
    }

    fn accept(&mut self, event: Event) -> Result<(), FeedError> {
        match (self.books.need, event) {
            (Need::Nothing, _) => return Err(FeedError::AfterEnd),
            (Need::Draw, Event::Draw(value)) => {
                self.books.draws.push(value);
                self.books.draws_folded += 1;
            }
            (Need::Draw, Event::Command(_)) => return Err(FeedError::CommandWhenDrawDue),
            (Need::Command, Event::Command(command)) => {
                self.validate(&command)
                    .map_err(|reason| FeedError::Illegal { command, reason })?;
                self.books.pending = Some(command);
            }
            (Need::Command, Event::Draw(_)) => return Err(FeedError::DrawWhenCommandDue),
            // A paused scenario takes no events; it is resumed by `run_ticks`.
            (Need::Pause, Event::Draw(_)) => return Err(FeedError::DrawWhenCommandDue),
            (Need::Pause, Event::Command(_)) => return Err(FeedError::CommandWhenDrawDue),
        }
        self.books.events += 1;
        Ok(())
    }

    /// The heart of the machine: runs until something from outside is needed. Decisions
    /// may take their draws from `more` as they run.
    fn advance(
        &mut self,
        obs: &mut impl Observer,
        last: Tick,
        mut more: Option<&mut dyn DrawSource>,
    ) -> Need {
        let need = loop {
            // An actor that appeared needs its initiative before anything else happens.
            let step = if let Some(&actor) = self.world.unrolled().front() {
                self.advance_initiative(actor)
            } else {
                match self.books.phase {
                    Phase::Over => ControlFlow::Break(Need::Nothing),
                    Phase::Generate { depth } => self.advance_generate(depth, obs),
                    Phase::StartTick => self.advance_start_tick(last, obs),
                    Phase::Ordering => self.advance_ordering(),
                    Phase::Act { slot } => self.advance_act(slot, more.as_deref_mut(), obs),
                }
            };
            if let ControlFlow::Break(need) = step {
                break need;
            }
        };
        self.books.need = need;
        need
    }

    /// The newcomer's initiative, once its draw is here.
    fn advance_initiative(&mut self, actor: ActorId) -> ControlFlow<Need> {
        let Some(value) = self.books.draws.pop() else {
            return ControlFlow::Break(Need::Draw);
        };
        self.keep_books(Bookkeeping::Initiative { actor, value });
        ControlFlow::Continue(())
    }

    /// A level's seed is two draws, high word first; then the camel arrives on it.
    fn advance_generate(&mut self, depth: u8, obs: &mut impl Observer) -> ControlFlow<Need> {
        let Ok(seed) = level_seed(&self.books.draws) else {
            return ControlFlow::Break(Need::Draw);
        };
        self.books.draws.clear();
        let rules = self.world.rules();
        self.enter(generate(seed, depth, Contents::of(rules)), obs);
        ControlFlow::Continue(())
    }

    fn enter(&mut self, level: Level, obs: &mut impl Observer) {
        let (depth, ground) = (level.depth, level.ground);
        self.change(Change::NewLevel(Box::new(level)), obs);
        self.books.phase = Phase::StartTick;
        let msg = if depth == 1 {
            Msg::Welcome { depth }
        } else {
            Msg::Descended { depth }
        };
        self.say(msg, obs);
        if self.world.rules().grounds() {
            self.say(Msg::Ground(ground), obs);
        }
        // Told where the heat changes how wounds close, and only there.
        let crossing = self.world.rules().crossing();
        let heals_every = crossing.regenerate_every(depth);
        if depth > 1 && heals_every != crossing.regenerate_every(depth - 1) {
            self.say(Msg::Hotter { heals_every }, obs);
        }
    }

    fn advance_start_tick(&mut self, last: Tick, obs: &mut impl Observer) -> ControlFlow<Need> {
        if self.tick() >= last {
            return ControlFlow::Break(Need::Pause);
        }
        self.change(Change::StartTick, obs);
        self.books.phase = match self.ruleset().order {
            TurnOrder::Initiative => Phase::Act { slot: 0 },
            TurnOrder::WeightedEachTick => {
                self.books.order_keys.clear();
                Phase::Ordering
            }
        };
        ControlFlow::Continue(())
    }

    /// This tick's weighted order: a key drawn for each actor, weighed by its speed; once
    /// every key is in, heaviest first, equal keys by actor id.
    fn advance_ordering(&mut self) -> ControlFlow<Need> {
        let order = self.world.turn_order();
        let drawn = self.books.order_keys.len();
        if drawn < order.len() {
            let Some(value) = self.books.draws.pop() else {
                return ControlFlow::Break(Need::Draw);
            };
            let id = order[drawn];
            let weight = self.ruleset().time.weight(&self.world.actor_at(id).stats());
            let key = u64::from(value) * u64::from(weight);
            self.books.order_keys.push((key, id));
            return ControlFlow::Continue(());
        }
        let mut keys = std::mem::take(&mut self.books.order_keys);
        keys.sort_unstable_by_key(|&(key, id)| (std::cmp::Reverse(key), id));
        self.keep_books(Bookkeeping::Reorder(&keys));
        self.books.order_keys = keys;
        self.books.phase = Phase::Act { slot: 0 };
        ControlFlow::Continue(())
    }

    /// Phase two: the next actor that must decide does, unless it is the camel and no
    /// command is pending.
    #[inline]
    fn advance_act<'s>(
        &mut self,
        slot: u32,
        more: Option<&mut (dyn DrawSource + 's)>,
        obs: &mut impl Observer,
    ) -> ControlFlow<Need> {
        let Some(slot) = self.next_to_decide(slot, obs) else {
            self.books.phase = Phase::StartTick;
            return ControlFlow::Continue(());
        };
        self.books.phase = Phase::Act { slot };
        let id = self.world.turn_order()[slot as usize];
        let player = self.world.actor_at(id).behaviour() == Behaviour::Player;
        if player && self.books.pending.is_none() {
            return ControlFlow::Break(Need::Command);
        }
        if !player {
            if let Some(action) = self.world.actor_at(id).waiting() {
                if self.take_kept(id, action, obs) {
                    return ControlFlow::Continue(());
                }
            }
        }
        let command = if player { self.books.pending } else { None };
        let mut draws = match more {
            Some(more) => Draws::pulling(&self.books.draws, more),
            None => Draws::new(&self.books.draws),
        };
        let decided = decide(&self.world, id, command, &mut draws);
        let (pulled, count) = draws.into_pulled();
        // Each pulled draw is an event folded.
        self.books.events += count as u64;
        self.books.draws_folded += count as u64;
        match decided {
            Err(NeedDraw) => {
                self.books.draws.extend_from_slice(&pulled[..count]);
                ControlFlow::Break(Need::Draw)
            }
            Ok(action) => {
                self.books.draws.clear();
                match self.in_the_way(id, action).filter(|_| player) {
                    Some(creature) => self.stop_short(id, creature, obs),
                    None => self.take(id, action, obs),
                }
                ControlFlow::Continue(())
            }
        }
    }

    /// The creature the camel leaves be (asleep, grazing) that has stepped into the cell it
    /// gathers strength to step to, if `action` would now kick it
    /// (`Rules::steps_never_become_kicks`).
    fn in_the_way(&self, id: ActorId, action: Action) -> Option<ActorId> {
        let Action::Attack { target, .. } = action else {
            return None;
        };
        let stepping = matches!(self.world.actor_at(id).waiting(), Some(Action::Step { .. }));
        let peaceful = !is_hostile(self.world.actor_at(target));
        (self.world.rules().steps_never_become_kicks() && stepping && peaceful).then_some(target)
    }

    /// The camel's step ends where `creature` stepped into its way: its command is done
    /// and it is asked for another, told why.
    fn stop_short(&mut self, id: ActorId, creature: ActorId, obs: &mut impl Observer) {
        self.books.pending = None;
        self.change(
            Change::Gather {
                actor: id,
                action: None,
            },
            obs,
        );
        let species = self.world.actor_at(creature).species();
        self.say(Msg::InTheWay(species), obs);
    }

    /// A creature's turn when it gathers strength for an action decided earlier: the
    /// action once the energy is there, if it can still be done as decided. False if it
    /// cannot: the creature decides afresh.
    fn take_kept(&mut self, id: ActorId, action: Action, obs: &mut impl Observer) -> bool {
        if self.world.cost_of(id, &action) > self.world.clocks()[id].energy.0 {
            self.gather(id, action, obs);
            return true;
        }
        if still_possible(&self.world, id, &action) {
            self.take(id, action, obs);
            return true;
        }
        self.change(
            Change::Gather {
                actor: id,
                action: None,
            },
            obs,
        );
        false
    }

    /// Carries out what `id` decided once it can afford it: now, or after the ticks it
    /// takes to gather the energy. Then moves the books on: the game may be over, the
    /// camel gone down the stairs, or the turn over.
    #[inline]
    fn take(&mut self, id: ActorId, action: Action, obs: &mut impl Observer) {
        let cost = self.world.cost_of(id, &action);
        if cost > self.world.clocks()[id].energy.0 {
            // The camel's command stays pending: it is resolved again on its next turn.
            self.gather(id, action, obs);
            return;
        }
        // The camel's command is done once the camel carries it out; before rules
        // version 10, once anyone acted (`Rules::keeps_the_camels_command`).
        if !self.world.rules().keeps_the_camels_command() || self.world.is_player(id) {
            self.books.pending = None;
        }
        if self.world.actor_at(id).waiting().is_some() {
            self.change(
                Change::Gather {
                    actor: id,
                    action: None,
                },
                obs,
            );
        }
        self.perform(id, action, cost, obs);
        self.next_turn(id, action);
    }

    /// A turn spent gathering strength for `action`, which costs more than `id` has.
    fn gather(&mut self, id: ActorId, action: Action, obs: &mut impl Observer) {
        if self.world.actor_at(id).waiting() != Some(action) {
            self.change(
                Change::Gather {
                    actor: id,
                    action: Some(action),
                },
                obs,
            );
            if self.world.is_player(id) {
                self.say(Msg::Gathering, obs);
            }
        }
        self.perform(id, Action::Gather, 0, obs);
        self.next_turn(id, Action::Gather);
    }

    /// After `id` took `action`: the game over, the next level, or the next actor.
    fn next_turn(&mut self, id: ActorId, action: Action) {
        if self.outcome().is_some() {
            self.books.phase = Phase::Over;
        } else if matches!(action, Action::Descend) {
            let depth = self.world.depth() + 1;
            self.books.phase = Phase::Generate { depth };
        } else if action.ends_turn() && self.world.actor_at(id).is_present() {
            if let Phase::Act { slot } = self.books.phase {
                self.books.phase = Phase::Act { slot: slot + 1 };
            }
        }
    }

    /// The tick's hot loop: from `slot` on, skips the actors that cannot act and settles
    /// the turns of idle ones, up to the first actor whose action must be decided.
    #[inline]
    fn next_to_decide<O: Observer>(&mut self, slot: u32, obs: &mut O) -> Option<u32> {
        let end = self.world.turn_order().len() as u32;
        if !O::SEES_EACH_WAIT {
            return self.settle_up_to_decision(slot, end);
        }
        for slot in slot..end {
            let clock = self.world.clocks().in_turn_at(slot);
            if !clock.is_ready() {
                continue;
            }
            if !clock.idle {
                return Some(slot);
            }
            self.books.phase = Phase::Act { slot };
            self.idle_turn(self.world.turn_order()[slot as usize], obs);
        }
        None
    }

    /// `next_to_decide` when nobody watches each wait: the idle actors before the next
    /// decision are settled a stretch of slots at a time, with one `Settle` each. A
    /// stretch is read twice (to find where it ends, to settle it), so it is kept short
    /// enough to stay in the nearest cache.
    #[inline]
    fn settle_up_to_decision(&mut self, mut slot: u32, end: u32) -> Option<u32> {
        while slot < end {
            let last = end.min(slot + SETTLE_STRETCH);
            let clocks = self.world.clocks().in_turn(slot..last);
            let decide = clocks.iter().position(|c| !c.idle && c.is_ready());
            let to = decide.map_or(last, |i| slot + i as u32);
            if clocks[..(to - slot) as usize].iter().any(|c| c.idle) {
                self.keep_books(Bookkeeping::Settle { from: slot, to });
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
        let clock = self.world.clocks()[id];
        let cost = clock.cost;
        for _ in 0..clock.waits() {
            let before = self.world.energy(id).0;
            let spend = Change::Spend {
                actor: id,
                cost,
                turns: 1,
            };
            self.change(spend, obs);
            let record = ActionRecord {
                tick: self.tick(),
                actor: id,
                action: Action::Wait,
                energy_before: before,
                energy_after: before - cost,
            };
            obs.acted(self, &record);
        }
    }
}

/// A level's seed is two draws: high word first.
fn level_seed(given: &[u32]) -> Result<u64, NeedDraw> {
    let mut draws = Draws::new(given);
    let high = draws.raw()?;
    let low = draws.raw()?;
    Ok(u64::from(high) << 32 | u64::from(low))
}
