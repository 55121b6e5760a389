//! The creatures of rules version 7: hyenas, which hunt in packs, and tortoises, slow
//! giants the cacti do not stop. Their turns are kept out of line (`cold`), as the
//! sleepers' are, so that the older versions' creatures decide as fast as before.

use super::hunt::hunter;
use super::step_or_attack;
use crate::action::Action;
use crate::geometry::{Direction, Pos};
use crate::ids::ActorId;
use crate::map::Terrain;
use crate::rng::{Draws, NeedDraw};
use crate::species::{Behaviour, Species, HOWL_REACH, PACK_BITE};
use crate::world::{Actor, World};

/// A hyena that sees the camel howls while a packmate in earshot sleeps or has no trail
/// of it; otherwise it hunts as a jackal does, and bites harder while another hyena
/// stands beside its victim.
#[cold]
pub(super) fn hyena(world: &World, id: ActorId, draws: &mut Draws) -> Result<Action, NeedDraw> {
    let me = world.actor_at(id);
    let sees_camel = world.player().is_some_and(|c| c.is_present()) && world.sees(me.pos());
    if sees_camel && pack_unaware(world, id).next().is_some() {
        return Ok(Action::Howl);
    }
    Ok(match hunter(world, id, draws)? {
        Action::Attack { target, damage } if flanked(world, id, target) => Action::Attack {
            target,
            damage: damage + PACK_BITE,
        },
        action => action,
    })
}

/// The other hyenas within `HOWL_REACH` of hyena `id` that sleep or do not know where the
/// camel is: those its howl reaches.
pub(crate) fn pack_unaware(world: &World, id: ActorId) -> impl Iterator<Item = ActorId> + '_ {
    let at = world.actor_at(id).pos();
    world
        .actors()
        .filter(move |&(other, a)| {
            other != id
                && a.species() == Species::Hyena
                && a.pos().distance(at) <= HOWL_REACH
                && (a.behaviour() == Behaviour::Asleep || a.last_seen().is_none())
        })
        .map(|(other, _)| other)
}

/// Whether another hyena, awake, stands beside `target` as well as hyena `id`.
fn flanked(world: &World, id: ActorId, target: ActorId) -> bool {
    let at = world.actor_at(target).pos();
    Direction::ALL.iter().any(|&d| {
        world.map().occupant(at.step(d)).is_some_and(|other| {
            let a = world.actor_at(other);
            other != id && a.species() == Species::Hyena && a.behaviour() != Behaviour::Asleep
        })
    })
}

/// A tortoise grazes, wandering, and harms nobody; once hurt, it comes for the camel
/// within its hearing, seen or not, straight through cacti, trampling them, and crushes
/// whatever stands in its way.
#[cold]
pub(super) fn tortoise(world: &World, id: ActorId, draws: &mut Draws) -> Result<Action, NeedDraw> {
    let me = world.actor_at(id);
    let near = |at: Pos| at.distance(me.pos()) <= me.species().hearing();
    let camel = world
        .player()
        .filter(|c| c.is_present() && is_provoked(me) && near(c.pos()))
        .map(|c| c.pos());
    let chasing = camel.and_then(|at| me.pos().direction_to(at));
    let dir = match chasing {
        Some(dir) => dir,
        None => Direction::ALL[draws.below(8)? as usize],
    };
    let to = me.pos().step(dir);
    let map = world.map();
    if chasing.is_some() && map.contains(to) && map.terrain(to) == Terrain::Cactus {
        return Ok(Action::Trample { at: to });
    }
    step_or_attack(world, id, dir, |_| chasing.is_some(), draws)
}

/// Whether a tortoise has been hurt, and so fights.
pub fn is_provoked(tortoise: &Actor) -> bool {
    tortoise.hp() < tortoise.max_hp()
}

/// Whether a creature would harm the camel: awake, not its ally, and not a tortoise left
/// in peace. The one test the ally, the bot and the window's errands share; each tells
/// the camel itself and eggs apart as it needs.
pub fn is_hostile(creature: &Actor) -> bool {
    let peaceful = creature.species() == Species::Tortoise && !is_provoked(creature);
    let resting = matches!(
        creature.behaviour(),
        Behaviour::Asleep | Behaviour::Ally | Behaviour::Slumber
    );
    !resting && !peaceful
}
