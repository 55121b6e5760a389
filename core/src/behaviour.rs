//! How creatures decide. Each behaviour is straight-line code over the state that
//! "performs" draws with `?`: when a draw is missing the machine stops with `Need::Draw`
//! and runs the decision again once it has it.

use crate::act::{roll_damage, step_or_attack, Action, HATCH_TURN};
use crate::geometry::{Direction, Pos};
use crate::ids::ActorId;
use crate::map::Terrain;
use crate::rng::{Draws, NeedDraw};
use crate::species::{Behaviour, Species};
use crate::state::State;

/// Spiders stop laying when the level holds this many spiders and eggs: the desert is
/// finite and a brood that doubled forever would end every long game the same way.
pub const BROOD_LIMIT: usize = 40;

/// What a non-player actor does with its turn.
pub(crate) fn decide(state: &State, id: ActorId, draws: &mut Draws) -> Result<Action, NeedDraw> {
    let me = &state.actors[id.index()];
    match me.behaviour {
        Behaviour::Player | Behaviour::Idle => Ok(Action::Wait),
        Behaviour::Rest => Ok(Action::Rest),
        Behaviour::Wander => wander(state, id, |_| false, draws),
        Behaviour::Natural => match me.species {
            Species::Camel => wander(state, id, |_| false, draws),
            Species::Snake => snake(state, id, draws),
            Species::Elephant => elephant(state, id, draws),
            Species::Spider => spider(state, id, draws),
            Species::SpiderEgg => Ok(egg(state, id)),
        },
    }
}

fn wander(
    state: &State,
    id: ActorId,
    may_attack: impl Fn(ActorId) -> bool,
    draws: &mut Draws,
) -> Result<Action, NeedDraw> {
    let dir = Direction::ALL[draws.below(8)? as usize];
    step_or_attack(state, id, dir, may_attack, draws)
}

/// Moves in a random direction each action and bites whatever it bumps into.
fn snake(state: &State, id: ActorId, draws: &mut Draws) -> Result<Action, NeedDraw> {
    wander(state, id, |_| true, draws)
}

/// Wanders; bites the camel; now and then lays an egg beside itself.
fn spider(state: &State, id: ActorId, draws: &mut Draws) -> Result<Action, NeedDraw> {
    if draws.one_in(100)? {
        let at = state.actors[id.index()].pos;
        let free: Vec<Pos> = Direction::ALL
            .iter()
            .map(|&d| at.step(d))
            .filter(|&p| state.world.map.is_free(p))
            .collect();
        if !free.is_empty() && brood(state) < BROOD_LIMIT {
            if let Some(at) = draws.pick(&free)? {
                return Ok(Action::LayEgg { at });
            }
        }
    }
    wander(state, id, |target| is_camel(state, target), draws)
}

fn brood(state: &State) -> usize {
    state
        .actors()
        .filter(|(_, a)| matches!(a.species, Species::Spider | Species::SpiderEgg))
        .count()
}

/// Does nothing until its 10th turn, then hatches.
fn egg(state: &State, id: ActorId) -> Action {
    if state.turns(id) + 1 >= HATCH_TURN {
        Action::Hatch
    } else {
        Action::Wait
    }
}

/// Slow. Charges the camel along a clear row or column and cannot turn until it hits
/// something; a cactus knocks it out.
fn elephant(state: &State, id: ActorId, draws: &mut Draws) -> Result<Action, NeedDraw> {
    let me = &state.actors[id.index()];
    if me.knocked_out > 0 {
        return Ok(Action::Stunned);
    }
    let dir = match me.charging.or_else(|| sighting(state, me.pos)) {
        Some(dir) => dir,
        None => return wander(state, id, |_| false, draws),
    };
    let to = me.pos.step(dir);
    let map = &state.world.map;
    Ok(match map.occupant(to) {
        Some(target) => Action::Ram {
            target,
            damage: roll_damage(Species::Elephant, draws)?,
        },
        None if map.terrain(to).is_passable() => Action::Charge { dir, to },
        None => Action::Crash {
            cactus: map.terrain(to) == Terrain::Cactus,
        },
    })
}

fn is_camel(state: &State, id: ActorId) -> bool {
    state.actors[id.index()].species == Species::Camel
}

/// The direction of a camel standing along a row or column with nothing between.
fn sighting(state: &State, from: Pos) -> Option<Direction> {
    let map = &state.world.map;
    Direction::ORTHOGONAL.into_iter().find(|&dir| {
        let mut at = from.step(dir);
        while map.is_free(at) {
            at = at.step(dir);
        }
        map.occupant(at).is_some_and(|id| is_camel(state, id))
    })
}
