//! Actions: what an actor does once every random outcome is settled, and what it costs.
//!
//! Deciding (`decide`) takes draws and returns an `Action`; performing (`perform`) turns
//! it into changes and takes none.

use serde::{Deserialize, Serialize};

use crate::command::Slot;
use crate::energy::Cost;
use crate::gear::Garment;
use crate::geometry::{Direction, Pos};
use crate::ids::{ActorId, Tick};
use crate::lore::Boon;
use crate::map::Map;

/// A decided action, its dice already rolled.
///
/// Append-only: a variant's place is its number in the state's encoding, which
/// `State::hash` digests and snapshots store; a variant moved or removed changes every
/// golden's hashes (and the goldens' test fails). New variants go at the end.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum Action {
    /// Spends one action doing nothing in particular (an idle actor, a waiting egg).
    Wait,
    /// Ends the turn and keeps the energy.
    Rest,
    /// Ends the turn and keeps the energy, to afford the action the actor decided on,
    /// which costs more than it holds: it is carried out as soon as the energy is there.
    Gather,
    Dash,
    Step {
        to: Pos,
    },
    Attack {
        target: ActorId,
        damage: i16,
    },
    /// Walked into something that does not give way; the action is spent.
    Bump,
    PickUp,
    Drop(Slot),
    Eat(Slot),
    /// `hit` is whom it hits and the damage, or for a date whether it wins them over
    /// (1 or 0: `decide::player::throw`).
    Throw {
        slot: Slot,
        lands: Pos,
        hit: Option<(ActorId, i16)>,
    },
    Open(Pos),
    Close(Pos),
    Descend,
    Quit,
    /// One cell of an elephant's charge.
    Charge {
        dir: Direction,
        to: Pos,
    },
    /// A charge that ends against a creature.
    Ram {
        target: ActorId,
        damage: i16,
    },
    /// A charge that ends against terrain; against a cactus the elephant is knocked out
    /// for `knock_out` of its turns.
    Crash {
        knock_out: Option<u16>,
    },
    /// A knocked-out turn.
    Stunned,
    LayEgg {
        at: Pos,
    },
    Hatch,
    /// A sleeper wakes (rules version 6 on).
    Wake,
    /// A meerkat's cry: every sleeper within `SHRIEK_REACH` wakes (rules version 6 on).
    Shriek,
    /// A hyena's call: its packmates in earshot wake and learn where the camel is (rules
    /// version 7 on).
    Howl,
    /// The camel puts on the gear in a slot (rules version 7 on).
    Wear(Slot),
    /// A tortoise flattens the cactus at `at` to sand (rules version 7 on).
    Trample {
        at: Pos,
    },
    /// The camel steps onto its ally's cell, at `to`, and the ally onto the camel's
    /// (rules version 8 on).
    Swap {
        with: ActorId,
        to: Pos,
    },
    /// The camel drinks the flask or cracks the scarab in a slot; a scarab of blinking
    /// carries it `to` a cell drawn when it was decided (rules version 9 on).
    Use {
        slot: Slot,
        to: Option<Pos>,
    },
    /// The camel crushes the desert rose in a slot and grows (rules version 9 on).
    Grow {
        slot: Slot,
        boon: Boon,
    },
    /// The camel takes off a piece of gear (rules version 9 on).
    TakeOff(Garment),
    /// The camel opens the locked door at `at` with the key in `key`, which is used up
    /// (rules version 9 on).
    Unlock {
        at: Pos,
        key: Slot,
    },
    /// A thief beside the camel snatches one thing from `slot` of its bags (rules version
    /// 16 on: `Rules::thieves`).
    Steal {
        slot: Slot,
    },
}

impl Action {
    /// What kind of cost the action has on `map`, before the actor's pace.
    #[inline]
    pub fn cost(&self, map: &Map) -> Cost {
        match *self {
            Action::Rest | Action::Gather | Action::Dash | Action::Quit => Cost::Free,
            Action::Step { to } | Action::Charge { to, .. } | Action::Swap { to, .. } => {
                Cost::Step(map.terrain(to))
            }
            _ => Cost::Action,
        }
    }

    pub fn name(&self) -> &'static str {
        match self {
            Action::Wait => "idle",
            Action::Rest => "rest",
            Action::Gather => "gather",
            Action::Dash => "dash",
            Action::Step { .. } => "move",
            Action::Attack { .. } => "attack",
            Action::Bump => "bump",
            Action::PickUp => "pick up",
            Action::Drop(_) => "drop",
            Action::Eat(_) => "eat",
            Action::Throw { .. } => "throw",
            Action::Open(_) => "open",
            Action::Close(_) => "close",
            Action::Descend => "descend",
            Action::Quit => "quit",
            Action::Charge { .. } => "charge",
            Action::Ram { .. } => "ram",
            Action::Crash { .. } => "crash",
            Action::Stunned => "stunned",
            Action::LayEgg { .. } => "lay egg",
            Action::Hatch => "hatch",
            Action::Wake => "wake",
            Action::Shriek => "shriek",
            Action::Howl => "howl",
            Action::Wear(_) => "wear",
            Action::Trample { .. } => "trample",
            Action::Swap { .. } => "swap",
            Action::Use { .. } => "use",
            Action::Grow { .. } => "grow",
            Action::TakeOff(_) => "take off",
            Action::Unlock { .. } => "unlock",
            Action::Steal { .. } => "steal",
        }
    }

    /// The actor it is aimed at, if any: whom it attacks, rams or throws at.
    pub(crate) fn target(&self) -> Option<ActorId> {
        match *self {
            Action::Attack { target, .. } | Action::Ram { target, .. } => Some(target),
            Action::Swap { with, .. } => Some(with),
            Action::Throw { hit, .. } => hit.map(|(target, _)| target),
            _ => None,
        }
    }

    /// The cell it changes or ends on, if any: where it steps, lays, opens or lands.
    pub(crate) fn cell(&self) -> Option<Pos> {
        match *self {
            Action::Step { to } | Action::Charge { to, .. } | Action::LayEgg { at: to } => Some(to),
            Action::Swap { to, .. } => Some(to),
            Action::Open(at) | Action::Close(at) | Action::Trample { at } => Some(at),
            Action::Unlock { at, .. } => Some(at),
            Action::Throw { lands, .. } => Some(lands),
            Action::Use { to, .. } => to,
            _ => None,
        }
    }

    /// The damage it rolled, if any.
    pub(crate) fn damage(&self) -> Option<i16> {
        match *self {
            Action::Attack { damage, .. } | Action::Ram { damage, .. } => Some(damage),
            Action::Throw { hit, .. } => hit.map(|(_, damage)| damage),
            _ => None,
        }
    }

    /// Ends the actor's turn whatever energy is left.
    pub(crate) fn ends_turn(&self) -> bool {
        matches!(
            self,
            Action::Rest | Action::Gather | Action::Descend | Action::Quit
        )
    }
}

/// One action taken, as the trace and the client see it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ActionRecord {
    pub tick: Tick,
    pub actor: ActorId,
    pub action: Action,
    pub energy_before: u16,
    pub energy_after: u16,
}
