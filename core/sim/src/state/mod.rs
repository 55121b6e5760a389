//! The state a fold builds: the world, and the machine's books on where it stands in the
//! tape. Both are private: the world changes only through `World::apply`, and the books
//! only in `machine`, this module's child.

mod machine;

use serde::{Deserialize, Serialize};

use crate::action::ActionRecord;
use crate::check::{check_command, Rejection};
use crate::command::Command;
use crate::ids::{ActorId, Tick};
use crate::tape::Ruleset;
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

impl Books {
    pub(crate) fn from_parts(parts: BooksParts) -> Books {
        let BooksParts {
            phase,
            need,
            order_keys,
            draws,
            pending,
            events,
            draws_folded,
        } = parts;
        Books {
            phase,
            need,
            order_keys,
            draws,
            pending,
            events,
            draws_folded,
        }
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
