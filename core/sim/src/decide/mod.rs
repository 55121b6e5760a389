//! Deciding: what an actor does with its turn. A decision reads the world and takes draws
//! with `?`; when a draw is missing the machine stops with `Need::Draw` and runs the
//! decision again once it has it. Decisions never change anything: they return an
//! `Action`, with its dice already rolled, for `perform` to carry out.

mod ally;
mod creatures;
mod herds;
mod hunt;
mod player;

use crate::action::Action;
use crate::command::Command;
use crate::geometry::{Direction, Pos};
use crate::ids::ActorId;
use crate::rng::{Draws, NeedDraw};
use crate::species::Species;
use crate::world::World;

pub use ally::{ALLY_KEEPS_WITHIN, TAMING_ODDS};
pub(crate) use creatures::sleepers_near;
pub use creatures::{EGG_WAITS, KNOCKOUT_TURNS, SHRIEK_REACH};
pub(crate) use herds::pack_unaware;
pub use herds::{is_hostile, is_provoked};
pub use hunt::{closes_in, runs_from_the_camel, weakened, HUNT_REACH, VULTURE_KEEPS_OFF};

/// What `id` does now: the player's `command`, or what its behaviour chooses.
#[inline]
pub(crate) fn decide(
    world: &World,
    id: ActorId,
    command: Option<Command>,
    draws: &mut Draws,
) -> Result<Action, NeedDraw> {
    match command {
        Some(command) => player::resolve(world, id, command, draws),
        None => creatures::decide(world, id, draws),
    }
}

/// Whether an action decided earlier, which its actor gathered strength for, can still be
/// carried out as it was decided: the cell it steps to still free, the creature it
/// attacks still beside it.
pub(crate) fn still_possible(world: &World, id: ActorId, action: &Action) -> bool {
    let here = world.actor_at(id).pos();
    match *action {
        Action::Step { to } | Action::Charge { to, .. } | Action::LayEgg { at: to } => {
            world.map().is_free(to)
        }
        Action::Attack { target, .. } => world.actor(target).is_some_and(|t| {
            t.is_present() && in_reach(world, here, t.pos(), world.actor_at(id).species())
        }),
        Action::Ram { target, .. } => world
            .actor(target)
            .is_some_and(|t| t.is_present() && t.pos().distance(here) == 1),
        _ => true,
    }
}

/// Whether an attack of `species` from `from` reaches `to`: beside it, or for one that
/// reaches further, along a clear row, column or diagonal within its reach that the
/// camel's (symmetric) sight covers.
fn in_reach(world: &World, from: Pos, to: Pos, species: Species) -> bool {
    let distance = from.distance(to);
    if distance <= 1 {
        return distance == 1;
    }
    let (dx, dy) = (to.x - from.x, to.y - from.y);
    let straight = dx == 0 || dy == 0 || dx.abs() == dy.abs();
    if distance > species.reach() || !straight || !world.sees(from) {
        return false;
    }
    let step = Pos::new(dx.signum(), dy.signum());
    (1..distance as i16)
        .map(|i| Pos::new(from.x + step.x * i, from.y + step.y * i))
        .all(|p| world.map().is_free(p))
}

/// A step in `dir`: an attack if someone `may_attack` stands there, a bump if the way is
/// blocked, else a move.
#[inline]
fn step_or_attack(
    world: &World,
    id: ActorId,
    dir: Direction,
    may_attack: impl Fn(ActorId) -> bool,
    draws: &mut Draws,
) -> Result<Action, NeedDraw> {
    let me = world.actor_at(id);
    let to = me.pos().step(dir);
    Ok(match world.map().occupant(to) {
        Some(target) if may_attack(target) => Action::Attack {
            target,
            damage: roll_damage(me.species(), draws)?,
        },
        Some(_) => Action::Bump,
        None if world.map().terrain(to).is_passable() => Action::Step { to },
        None => Action::Bump,
    })
}

/// A roll of damage for `species`.
#[inline]
fn roll_damage(species: Species, draws: &mut Draws) -> Result<i16, NeedDraw> {
    let (low, high) = species.damage();
    Ok(draws.between(low, high)? as i16)
}
