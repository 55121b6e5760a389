//! How snakes, elephants, spiders and eggs decide, and the actors of scenario files.
//! Hunters (jackals, scorpions) have a module of their own: `hunt`.

use super::ally::ally;
use super::herds::{hyena, tortoise};
use super::hunt::{flee, hunter, thief, vulture};
use super::{in_reach, roll_damage, step_or_attack};
use crate::action::Action;
use crate::geometry::{Direction, Pos};
use crate::ids::ActorId;
use crate::map::Terrain;
use crate::rng::{Draws, NeedDraw};
use crate::species::{Behaviour, Species};
use crate::world::{Actor, Condition, World};

/// A spider egg does nothing for this many of its own turns, and hatches on the next
/// (seed 003: `for _ = 1 to 10 do perform End_of_turn done`, then hatch).
pub const EGG_WAITS: u32 = 10;
/// An elephant that charges into a cactus loses this many of its turns, counting the one
/// it crashed on, and acts again on the next (seed 003: `for _ = 1 to 20 do perform
/// End_of_turn done`).
pub const KNOCKOUT_TURNS: u16 = 20;

/// What a non-player actor does with its turn.
#[inline]
pub(super) fn decide(world: &World, id: ActorId, draws: &mut Draws) -> Result<Action, NeedDraw> {
    let me = world.actor_at(id);
    match me.behaviour() {
        Behaviour::Player | Behaviour::Idle | Behaviour::Slumber => Ok(Action::Wait),
        Behaviour::Rest => Ok(Action::Rest),
        Behaviour::Wander => wander(world, id, |_| false, draws),
        Behaviour::Asleep => listen(world, id, draws),
        Behaviour::Ally => ally(world, id, draws),
        // A mushroom's burst (rules version 16 on: nothing confused a creature before)
        // sends it reeling as a confused camel does, striking whatever it stumbles into.
        Behaviour::Natural if me.conditions().has(Condition::Confused) => {
            wander(world, id, |_| true, draws)
        }
        Behaviour::Natural => match me.species() {
            Species::Camel => wander(world, id, |_| false, draws),
            Species::Snake => snake(world, id, draws),
            Species::Elephant => elephant(world, id, draws),
            Species::Spider => spider(world, id, draws),
            Species::SpiderEgg => Ok(egg(world, id)),
            Species::Jackal
            | Species::Scorpion
            | Species::Sandworm
            | Species::Lion
            | Species::Ratel
            | Species::Locusts
            | Species::Viper => hunter(world, id, draws),
            Species::Fennec => thief(world, id, draws),
            Species::Vulture => vulture(world, id, draws),
            Species::Cobra => cobra(world, id, draws),
            Species::Meerkat => meerkat(world, id, draws),
            Species::Hyena => hyena(world, id, draws),
            Species::Tortoise => tortoise(world, id, draws),
        },
    }
}

/// A sleeper's turn: it wakes if it hears the camel, the likelier the nearer (one draw,
/// taken only within earshot), and sleeps on otherwise. Kept out of the way of the
/// other creatures' turns (`cold`), which older rules play alone: inlined, it made
/// `decide` too large to take the spider's turn in, and the fold of a version-5 golden
/// 2% dearer; out of line it costs a sleeper a call.
#[cold]
fn listen(world: &World, id: ActorId, draws: &mut Draws) -> Result<Action, NeedDraw> {
    let me = world.actor_at(id);
    let hearing = me.species().hearing();
    let camel = world.player().filter(|c| c.is_present());
    let Some(distance) = camel.map(|c| c.pos().distance(me.pos())) else {
        return Ok(Action::Wait);
    };
    if distance <= hearing && draws.below(u32::from(hearing) + 1)? >= u32::from(distance) {
        return Ok(Action::Wake);
    }
    Ok(Action::Wait)
}

/// The desert's sentry: on seeing the camel it shrieks while any sleeper within
/// `SHRIEK_REACH` sleeps on, then runs from it; otherwise it wanders, harming nobody.
/// Out of line for the reason `listen` is.
#[cold]
fn meerkat(world: &World, id: ActorId, draws: &mut Draws) -> Result<Action, NeedDraw> {
    let me = world.actor_at(id);
    let camel = world
        .player()
        .filter(|c| c.is_present() && world.sees(me.pos()));
    match camel {
        Some(_) if sleepers_near(world, me.pos()).next().is_some() => Ok(Action::Shriek),
        Some(camel) => Ok(flee(world, me, camel.pos())),
        None => wander(world, id, |_| false, draws),
    }
}

/// How far a meerkat's shriek wakes sleepers, in king moves.
pub const SHRIEK_REACH: u16 = 10;

/// The sleepers within `SHRIEK_REACH` of `at`, by id.
pub(crate) fn sleepers_near(world: &World, at: Pos) -> impl Iterator<Item = ActorId> + '_ {
    world
        .actors()
        .filter(move |(_, a)| {
            a.behaviour() == Behaviour::Asleep && a.pos().distance(at) <= SHRIEK_REACH
        })
        .map(|(id, _)| id)
}

#[inline]
fn wander(
    world: &World,
    id: ActorId,
    may_attack: impl Fn(ActorId) -> bool,
    draws: &mut Draws,
) -> Result<Action, NeedDraw> {
    let dir = Direction::ALL[draws.below(8)? as usize];
    step_or_attack(world, id, dir, may_attack, draws)
}

/// Moves in a random direction each action and bites whatever it bumps into.
#[inline]
fn snake(world: &World, id: ActorId, draws: &mut Draws) -> Result<Action, NeedDraw> {
    wander(world, id, |_| true, draws)
}

/// Spits at the camel it sees along a clear row, column or diagonal within its reach;
/// otherwise moves as a snake does.
#[inline]
fn cobra(world: &World, id: ActorId, draws: &mut Draws) -> Result<Action, NeedDraw> {
    let me = world.actor_at(id);
    let camel = world.player_id().zip(world.player());
    let spat = |(_, c): &(ActorId, &Actor)| {
        c.is_present() && in_reach(world, me.pos(), c.pos(), me.species())
    };
    if let Some((target, _)) = camel.filter(spat) {
        let damage = roll_damage(me.species(), draws)?;
        return Ok(Action::Attack { target, damage });
    }
    snake(world, id, draws)
}

/// Wanders; bites the camel; now and then lays an egg beside itself.
#[inline]
fn spider(world: &World, id: ActorId, draws: &mut Draws) -> Result<Action, NeedDraw> {
    if draws.one_in(100)? {
        let at = world.actor_at(id).pos();
        let free: Vec<Pos> = Direction::ALL
            .iter()
            .map(|&d| at.step(d))
            .filter(|&p| world.map().is_free(p))
            .collect();
        if !free.is_empty() && brood(world) < world.rules().brood().limit() {
            if let Some(at) = draws.pick(&free)? {
                return Ok(Action::LayEgg { at });
            }
        }
    }
    wander(world, id, |target| is_camel(world, target), draws)
}

fn brood(world: &World) -> usize {
    world
        .actors()
        .filter(|(_, a)| matches!(a.species(), Species::Spider | Species::SpiderEgg))
        .count()
}

/// Does nothing for `EGG_WAITS` turns, then hatches.
#[inline]
fn egg(world: &World, id: ActorId) -> Action {
    if world.turns(id) >= EGG_WAITS {
        Action::Hatch
    } else {
        Action::Wait
    }
}

/// Slow. Charges the camel along a clear row or column and cannot turn until it hits
/// something; a cactus knocks it out.
#[inline]
fn elephant(world: &World, id: ActorId, draws: &mut Draws) -> Result<Action, NeedDraw> {
    let me = world.actor_at(id);
    if me.knocked_out() > 0 {
        return Ok(Action::Stunned);
    }
    let dir = match me.charging().or_else(|| sighting(world, me.pos())) {
        Some(dir) => dir,
        None => return wander(world, id, |_| false, draws),
    };
    let to = me.pos().step(dir);
    let map = world.map();
    Ok(match map.occupant(to) {
        Some(target) => Action::Ram {
            target,
            damage: roll_damage(Species::Elephant, draws)?,
        },
        None if map.terrain(to).is_passable() => Action::Charge { dir, to },
        // The crash is the first of the turns lost.
        None => Action::Crash {
            knock_out: (map.terrain(to) == Terrain::Cactus).then_some(KNOCKOUT_TURNS - 1),
        },
    })
}

#[inline]
fn is_camel(world: &World, id: ActorId) -> bool {
    world.actor_at(id).species() == Species::Camel
}

/// The direction of a camel standing along a row or column with nothing between, that
/// the elephant sees (sight is the camel's, and symmetric: see `sight`); before rules
/// version 3, at any distance.
fn sighting(world: &World, from: Pos) -> Option<Direction> {
    let map = world.map();
    let in_sight = !world.rules().elephants_charge_only_in_sight()
        || world.player().is_none()
        || world.sees(from);
    Direction::ORTHOGONAL.into_iter().find(|&dir| {
        let mut at = from.step(dir);
        while map.is_free(at) {
            at = at.step(dir);
        }
        in_sight && map.occupant(at).is_some_and(|id| is_camel(world, id))
    })
}
