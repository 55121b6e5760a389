//! The state a fold builds: the world, and the machine's books on where it stands in the
//! tape. Both are private: the world changes only through `World::apply`, and the books
//! only in `machine`, this module's child.

mod machine;

use serde::{Deserialize, Serialize};

use crate::action::ActionRecord;
use crate::check::{check_command, Rejection};
use crate::command::Command;
use crate::consistency::{Inconsistency, MOST_COUNT};
use crate::ids::{ActorId, Tick};
use crate::tape::{Ruleset, TurnOrder};
use crate::world::{Bookkeeping, Change, Outcome, World};

pub use machine::FeedError;

/// Watches the fold: every change as it is applied, every action as it is taken.
/// Both default to nothing, and `()` watches nothing at no cost.
pub trait Observer {
    /// Whether it is shown each action of an idle actor's turn. When not, the turn is
    /// paid for with bookkeeping it does not see, which is all a crowd of idle actors
    /// costs a tick.
    const SEES_EACH_WAIT: bool = true;

    fn changed(&mut self, _state: &State, _change: &Change) {}
    fn acted(&mut self, _state: &State, _record: &ActionRecord) {}
}

impl Observer for () {
    const SEES_EACH_WAIT: bool = false;
}

/// What the machine needs to go on.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum Need {
    /// The player is ready to act.
    Command,
    /// A raw draw from the game's generator.
    Draw,
    /// The tick limit given to `run_ticks` was reached (scenarios have no player to wait on).
    Pause,
    /// The game is over.
    Nothing,
}

/// Where the machine stands between two events.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Phase {
    /// A level is to be made (the game's start, or after descending).
    Generate { depth: u8 },
    /// Phase one of the next tick is due.
    StartTick,
    /// Drawing this tick's weighted order: one draw per actor in the order.
    Ordering,
    /// Phase two: the actor in slot `slot` of the turn order is to act.
    Act { slot: u32 },
    /// The game is over; the tape ends here.
    Over,
}

/// The machine's books: its place in the tape and in the tick. Written only by the
/// machine; read by the encoding.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Books {
    phase: Phase,
    need: Need,
    /// Weighted order keys drawn so far this tick, one per actor of the turn order.
    order_keys: Vec<(u64, ActorId)>,
    /// Draws fed to the step being resolved.
    draws: Vec<u32>,
    /// The accepted command being resolved.
    pending: Option<Command>,
    /// Events folded so far.
    events: u64,
    /// Of those, draws: a live generator resumes after this many outputs.
    draws_folded: u64,
}

/// Everything the books hold, for `encoding` to give back what it decoded.
pub(crate) struct BooksParts {
    pub(crate) phase: Phase,
    pub(crate) need: Need,
    pub(crate) order_keys: Vec<(u64, ActorId)>,
    pub(crate) draws: Vec<u32>,
    pub(crate) pending: Option<Command>,
    pub(crate) events: u64,
    pub(crate) draws_folded: u64,
}

/// The most draws a step may be waiting with: a decision takes a handful, and a level two.
const MOST_STEP_DRAWS: usize = 256;

impl Books {
    /// The books `parts` describe, kept for `world`, or the first rule of the machine's
    /// they break (a damaged snapshot that still parses).
    pub(crate) fn from_parts(parts: BooksParts, world: &World) -> Result<Books, Inconsistency> {
        let BooksParts {
            phase,
            need,
            order_keys,
            draws,
            pending,
            events,
            draws_folded,
        } = parts;
        let books = Books {
            phase,
            need,
            order_keys,
            draws,
            pending,
            events,
            draws_folded,
        };
        books.check_phase(world)?;
        books.check_need(world)?;
        books.check_order_keys(world)?;
        books.check_counts()?;
        Ok(books)
    }

    /// The phase fits the world. A level to make is the one below the camel's, and one of
    /// the game's (a game without its camel is one still to make its first level). The
    /// weighted order is drawn only under the rules that draw it. The actor to act is in
    /// the turn order, or just past its end (a newcomer's initiative is drawn before the
    /// tick moves on).
    fn check_phase(&self, world: &World) -> Result<(), Inconsistency> {
        let sound = match self.phase {
            Phase::Generate { depth } => {
                world.depth() < world.rules().crossing().deepest() && depth == world.depth() + 1
            }
            _ if world.player_id().is_none() => false,
            Phase::Ordering => world.ruleset().order == TurnOrder::WeightedEachTick,
            Phase::Act { slot } => slot as usize <= world.turn_order().len(),
            Phase::StartTick | Phase::Over => true,
        };
        sound.then_some(()).ok_or(Inconsistency::Phase)
    }

    /// What the machine waits for fits where it stands: nothing exactly when the game is
    /// over (`accept` refuses every event then, and only then); a command only in the
    /// camel's turn with no command pending (`accept` keeps the one it is given, and
    /// `validate` refuses every command outside the camel's turn); a pause only before a
    /// tick (where `run_ticks` stops).
    fn check_need(&self, world: &World) -> Result<(), Inconsistency> {
        let over = self.phase == Phase::Over;
        let sound = match self.need {
            Need::Nothing => over,
            _ if over => false,
            Need::Command => match self.phase {
                Phase::Act { slot } => {
                    let actor = world.turn_order().get(slot as usize).copied();
                    actor.is_some() && actor == world.player_id() && self.pending.is_none()
                }
                _ => false,
            },
            Need::Pause => self.phase == Phase::StartTick,
            Need::Draw => true,
        };
        sound.then_some(()).ok_or(Inconsistency::Need)
    }

    /// Order keys name actors. While the weighted order is drawn, key `i` is that of the
    /// order's slot `i` (`advance_ordering` draws them in order, and arranges the clocks by
    /// the keys once all are in, which takes ids that exist, each once).
    fn check_order_keys(&self, world: &World) -> Result<(), Inconsistency> {
        let known = |id: ActorId| id.index() < world.actor_count();
        let mut sound = self.order_keys.iter().all(|&(_, id)| known(id));
        if self.phase == Phase::Ordering {
            let order = world.turn_order();
            sound &= self.order_keys.len() <= order.len()
                && self
                    .order_keys
                    .iter()
                    .zip(order)
                    .all(|(&(_, id), &o)| id == o);
        }
        sound.then_some(()).ok_or(Inconsistency::OrderKeys)
    }

    /// The draws waiting for the step are few; the counts of events and of draws among
    /// them can go on counting, and the draws are among the events (the store counts the
    /// commands as the difference).
    fn check_counts(&self) -> Result<(), Inconsistency> {
        if self.draws.len() > MOST_STEP_DRAWS {
            return Err(Inconsistency::Draws);
        }
        if self.events > MOST_COUNT || self.draws_folded > self.events {
            return Err(Inconsistency::Count);
        }
        Ok(())
    }

    pub(crate) fn phase(&self) -> Phase {
        self.phase
    }
    pub(crate) fn order_keys(&self) -> &[(u64, ActorId)] {
        &self.order_keys
    }
    pub(crate) fn draws(&self) -> &[u32] {
        &self.draws
    }
    pub(crate) fn pending(&self) -> Option<Command> {
        self.pending
    }
}

/// Compared, hashed and encoded whole: two states are equal when their worlds and their
/// books are.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct State {
    world: World,
    books: Books,
}

impl State {
    /// The state a world and books decoded from a snapshot make.
    pub(crate) fn from_parts(world: World, books: Books) -> State {
        State { world, books }
    }

    pub fn world(&self) -> &World {
        &self.world
    }

    pub(crate) fn books(&self) -> &Books {
        &self.books
    }

    pub fn need(&self) -> Need {
        self.books.need
    }

    /// How the game ended, once it has.
    pub fn outcome(&self) -> Option<Outcome> {
        self.world.outcome()
    }

    pub fn ruleset(&self) -> Ruleset {
        self.world.ruleset()
    }

    pub fn tick(&self) -> Tick {
        self.world.tick()
    }

    /// Events folded so far.
    pub fn events_folded(&self) -> u64 {
        self.books.events
    }

    /// Of those, draws.
    pub fn draws_folded(&self) -> u64 {
        self.books.draws_folded
    }

    /// Whose turn it is, during phase two.
    pub fn current_actor(&self) -> Option<ActorId> {
        match self.books.phase {
            Phase::Act { slot } => self.world.turn_order().get(slot as usize).copied(),
            _ => None,
        }
    }

    /// The first tick at which `id` will be able to act again, assuming it takes no action
    /// before then: this one while it is taking its turn. Shown by the energy panel.
    pub fn next_ready_tick(&self, id: ActorId) -> Option<Tick> {
        if self.world.is_ready(id) && self.current_actor() == Some(id) {
            return Some(self.tick());
        }
        let ahead = self.world.ticks_until_ready(id)?;
        Some(Tick(self.tick().0 + ahead))
    }

    /// Checks a command against the state without changing anything: the game must be on,
    /// the camel to act, and the command one it can carry out (`check`).
    pub fn validate(&self, command: &Command) -> Result<(), Rejection> {
        if self.outcome().is_some() {
            return Err(Rejection::GameOver);
        }
        let Some(id) = self.world.player_id() else {
            return Err(Rejection::NotYourTurn);
        };
        if self.need() != Need::Command || self.current_actor() != Some(id) {
            return Err(Rejection::NotYourTurn);
        }
        check_command(&self.world, id, command)
    }

    /// Changes the world and tells the observer.
    #[inline(always)]
    pub(crate) fn change(&mut self, change: Change, obs: &mut impl Observer) {
        self.world.apply(&change);
        obs.changed(self, &change);
    }

    /// The machine's changes to the world, which no observer is shown.
    #[inline(always)]
    fn keep_books(&mut self, books: Bookkeeping) {
        self.world.keep_books(books);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::encoding::testing::{damaged, game, played, refusal};
    use crate::rules::Rules;
    use crate::tape::TimeModel;

    /// The slot of the first creature in the turn order.
    fn creature_slot(state: &State) -> u32 {
        let world = state.world();
        let slot = world
            .turn_order()
            .iter()
            .position(|&id| !world.is_player(id));
        slot.unwrap() as u32
    }

    fn refused(state: &State, damage: impl FnOnce(&mut BooksParts)) -> Inconsistency {
        refusal(state, |_, books| damage(books))
    }

    #[test]
    fn a_phase_that_does_not_fit_the_world_is_refused() {
        let state = game();
        let len = state.world().turn_order().len() as u32;
        let depth = state.world().depth();
        let phases = [
            Phase::Act { slot: len + 1 },
            Phase::Generate { depth: depth + 2 },
            Phase::Generate { depth },
            Phase::Ordering,
        ];
        for phase in phases {
            let refused = refused(&state, |b| (b.phase, b.need) = (phase, Need::Draw));
            assert_eq!(refused, Inconsistency::Phase, "{phase:?}");
        }
        // Nothing below the deepest level.
        let deepest = refusal(&state, |w, b| {
            let deepest = Rules::newest(Ruleset::NETHACK).crossing().deepest();
            w.depth = deepest;
            (b.phase, b.need) = (Phase::Generate { depth: deepest + 1 }, Need::Draw);
        });
        assert_eq!(deepest, Inconsistency::Phase);
        // Without a camel, a game is still to make its first level.
        let genesis = State::new(Rules::newest(Ruleset::NETHACK), &mut ());
        let refused = refused(&genesis, |b| b.phase = Phase::StartTick);
        assert_eq!(refused, Inconsistency::Phase);
        // Just past the last slot, a newcomer's initiative may be due.
        let past = |_: &mut _, b: &mut BooksParts| {
            (b.phase, b.need) = (Phase::Act { slot: len }, Need::Draw)
        };
        assert!(damaged(&state, past).is_ok());
    }

    #[test]
    fn waiting_for_what_the_phase_does_not_give_is_refused() {
        let state = game();
        let Phase::Act { slot } = state.books().phase() else {
            panic!("the camel is to act");
        };
        let creature = creature_slot(&state);
        let books: [(Phase, Need, Option<Command>); 6] = [
            (Phase::Act { slot }, Need::Nothing, None),
            (Phase::Over, Need::Command, None),
            (Phase::StartTick, Need::Command, None),
            (Phase::Act { slot }, Need::Command, Some(Command::Rest)),
            (Phase::Act { slot: creature }, Need::Command, None),
            (Phase::Act { slot }, Need::Pause, None),
        ];
        for (phase, need, pending) in books {
            let refused = refused(&state, |b| {
                (b.phase, b.need, b.pending) = (phase, need, pending)
            });
            assert_eq!(
                refused,
                Inconsistency::Need,
                "{phase:?}, {need:?}, {pending:?}"
            );
        }
    }

    #[test]
    fn order_keys_naming_no_actor_or_another_slot_s_are_refused() {
        let unknown = refused(&game(), |b| b.order_keys.push((7, ActorId(9_999))));
        assert_eq!(unknown, Inconsistency::OrderKeys);
        let weighted = Ruleset {
            time: TimeModel::Nethack,
            order: TurnOrder::WeightedEachTick,
        };
        let state = played(weighted, 30);
        let order = state.world().turn_order().to_vec();
        let drawing = |keys: Vec<(u64, ActorId)>| {
            move |_: &mut _, b: &mut BooksParts| {
                (b.phase, b.need, b.order_keys) = (Phase::Ordering, Need::Draw, keys)
            }
        };
        assert!(damaged(&state, drawing(vec![(7, order[0])])).is_ok());
        let refused = refusal(&state, drawing(vec![(7, order[1])]));
        assert_eq!(refused, Inconsistency::OrderKeys);
        let more = order.iter().chain(&order).map(|&id| (7, id)).collect();
        assert_eq!(refusal(&state, drawing(more)), Inconsistency::OrderKeys);
    }

    #[test]
    fn more_draws_than_a_step_takes_or_than_events_are_refused() {
        let state = game();
        let draws = refused(&state, |b| b.draws = vec![7; MOST_STEP_DRAWS + 1]);
        assert_eq!(draws, Inconsistency::Draws);
        let folded = refused(&state, |b| b.draws_folded = b.events + 1);
        assert_eq!(folded, Inconsistency::Count);
        let events = refused(&state, |b| b.events = MOST_COUNT + 1);
        assert_eq!(events, Inconsistency::Count);
    }
}
