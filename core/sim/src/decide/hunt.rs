//! Hunters: jackals, scorpions, sandworms awake, from rules version 11 ratels and lions,
//! and from 15 locust swarms, and vultures once the camel is weakened. A hunter that sees the camel goes for it by the
//! cheapest walk (`path`); one that lost sight of it goes to where it last saw it (the
//! world keeps that memory: `Actor::last_seen`); a jackal badly hurt runs instead. With no
//! trail, a jackal roams and a scorpion lies in wait.

use super::{roll_damage, step_or_attack};
use crate::action::Action;
use crate::command::Slot;
use crate::geometry::{Direction, Pos};
use crate::ids::ActorId;
use crate::path::{first_step, first_step_to};
use crate::rng::{Draws, NeedDraw};
use crate::species::Species;
use crate::world::{Actor, World};

/// How far a hunter will walk round obstacles to reach its quarry, in quarters of a
/// step (`path::step_cost`): thirty steps of sand.
pub const HUNT_REACH: u32 = 4 * 30;

#[inline]
pub(super) fn hunter(world: &World, id: ActorId, draws: &mut Draws) -> Result<Action, NeedDraw> {
    let me = world.actor_at(id);
    let quarry = if world.sees(me.pos()) {
        world.player().filter(|c| c.is_present()).map(Actor::pos)
    } else {
        me.last_seen()
    };
    let Some(quarry) = quarry else {
        return roam(world, id, draws);
    };
    if runs_from_the_camel(me) {
        return Ok(flee(world, me, quarry));
    }
    let camel_there = world.map().occupant(quarry).filter(|&o| world.is_player(o));
    if let (1, Some(target)) = (me.pos().distance(quarry), camel_there) {
        let damage = roll_damage(me.species(), draws)?;
        return Ok(Action::Attack { target, damage });
    }
    if let Some(target) = ally_beside(world, me.pos()) {
        let damage = roll_damage(me.species(), draws)?;
        return Ok(Action::Attack { target, damage });
    }
    match step_toward(world, me.pos(), quarry) {
        Some(to) => Ok(Action::Step { to }),
        None => roam(world, id, draws),
    }
}

/// Where a hunter at `from` steps on its way to `quarry`, if it has a way. The search may
/// end on the quarry's cell whoever stands there now: since rules version 8 a hunter does
/// not step onto a creature that took the camel's place.
fn step_toward(world: &World, from: Pos, quarry: Pos) -> Option<Pos> {
    let to = from.step(way_to(world, from, quarry)?);
    let onto_anyone = !world.rules().hunters_step_only_onto_free_cells();
    (onto_anyone || world.map().occupant(to).is_none()).then_some(to)
}

/// Whether `id`, a hunter, goes for the camel now as `hunter` decides: it has the camel in
/// sight or on its trail, does not run from it, and stands beside it or has a step on its
/// way there. A scorpion whose way is shut (by water, cacti or creatures) waits where it
/// is: played by eye, one parked for many turns refused every errand as "coming".
pub fn closes_in(world: &World, id: ActorId) -> bool {
    let me = world.actor_at(id);
    let quarry = match world.sees(me.pos()) {
        true => world.player().filter(|c| c.is_present()).map(Actor::pos),
        false => me.last_seen(),
    };
    let Some(quarry) = quarry.filter(|_| me.species().hunts()) else {
        return false;
    };
    !runs_from_the_camel(me)
        && (me.pos().distance(quarry) <= 1 || step_toward(world, me.pos(), quarry).is_some())
}

/// The first step of a cheapest walk from `from` to `quarry` through free cells, searched
/// toward the quarry since rules version 4 and all around before.
fn way_to(world: &World, from: Pos, quarry: Pos) -> Option<Direction> {
    let map = world.map();
    let free = |p| map.is_free(p);
    if world.rules().hunters_search_toward_the_camel() {
        first_step_to(map, from, quarry, HUNT_REACH, free)
    } else {
        first_step(map, from, HUNT_REACH, |p| p == quarry, free).map(|(dir, _)| dir)
    }
}

/// An ally of the camel's beside `at`, that a hunter on the camel's trail bites first
/// (rules version 8 on: before, there were no allies).
fn ally_beside(world: &World, at: Pos) -> Option<ActorId> {
    if !world.rules().allies() {
        return None;
    }
    let map = world.map();
    let mut beside = Direction::ALL
        .into_iter()
        .filter_map(|d| map.occupant(at.step(d)));
    beside.find(|&id| world.actor_at(id).is_ally())
}

/// A vulture's turn: on a camel that has lost half its hit points it comes down as a
/// hunter does; from one in better health it keeps `VULTURE_KEEPS_OFF` king moves away
/// while it sees it, and otherwise drifts, harming nobody.
pub(super) fn vulture(world: &World, id: ActorId, draws: &mut Draws) -> Result<Action, NeedDraw> {
    let me = world.actor_at(id);
    let camel = world.player().filter(|c| c.is_present());
    match camel {
        Some(camel) if weakened(camel) => hunter(world, id, draws),
        Some(camel)
            if world.sees(me.pos()) && me.pos().distance(camel.pos()) < VULTURE_KEEPS_OFF =>
        {
            Ok(flee(world, me, camel.pos()))
        }
        _ => roam(world, id, draws),
    }
}

/// A thief's turn (a fennec, rules version 16 on): with something in its paws, or badly
/// hurt, it runs from the camel it sees; with empty paws it goes for the camel it sees
/// and, beside it, snatches one thing from the bags, from a stack drawn among those they
/// hold. With no camel in sight, or nothing in the bags to take, it wanders, harming
/// nobody: it wants the bags, not the camel.
pub(super) fn thief(world: &World, id: ActorId, draws: &mut Draws) -> Result<Action, NeedDraw> {
    let me = world.actor_at(id);
    let camel = world
        .player()
        .filter(|c| c.is_present() && world.sees(me.pos()));
    let Some(camel) = camel else {
        return roam(world, id, draws);
    };
    if world.loot_of(id).is_some() || badly_hurt(me) {
        return Ok(flee(world, me, camel.pos()));
    }
    if world.bags().is_empty() {
        return roam(world, id, draws);
    }
    if me.pos().distance(camel.pos()) == 1 {
        let stacks: Vec<Slot> = world.bags().stacks().map(|(slot, _)| slot).collect();
        if let Some(slot) = draws.pick(&stacks)? {
            return Ok(Action::Steal { slot });
        }
    }
    match way_to(world, me.pos(), camel.pos()).map(|dir| me.pos().step(dir)) {
        Some(to) if world.map().is_free(to) => Ok(Action::Step { to }),
        _ => roam(world, id, draws),
    }
}

/// How near, in king moves, a vulture comes to a camel it waits on.
pub const VULTURE_KEEPS_OFF: u16 = 4;

/// Whether the camel has lost half its hit points or more: what a vulture waits for.
pub fn weakened(camel: &Actor) -> bool {
    i32::from(camel.hp()) * 2 <= i32::from(camel.max_hp())
}

/// Whether a hunter with the camel to go for runs from it instead: one that flees, badly
/// hurt.
#[inline]
pub fn runs_from_the_camel(me: &Actor) -> bool {
    me.species().flees() && badly_hurt(me)
}

/// At a third of its hit points or fewer.
fn badly_hurt(me: &Actor) -> bool {
    i32::from(me.hp()) * 3 <= i32::from(me.max_hp())
}

/// No trail to follow: a jackal wanders, a scorpion waits where it is.
fn roam(world: &World, id: ActorId, draws: &mut Draws) -> Result<Action, NeedDraw> {
    if world.actor_at(id).species() == Species::Scorpion {
        return Ok(Action::Wait);
    }
    let dir = Direction::ALL[draws.below(8)? as usize];
    step_or_attack(world, id, dir, |_| false, draws)
}

/// The free neighbouring cell farthest from `threat` (by king moves, then by straight
/// distance, then in `Direction::ALL` order); resting where it is if no cell is farther.
pub(super) fn flee(world: &World, me: &Actor, threat: Pos) -> Action {
    let distance = |p: Pos| {
        let (dx, dy) = (i32::from(p.x - threat.x), i32::from(p.y - threat.y));
        (p.distance(threat), dx * dx + dy * dy)
    };
    let here = distance(me.pos());
    let mut best: Option<(Pos, (u16, i32))> = None;
    for dir in Direction::ALL {
        let to = me.pos().step(dir);
        let far = distance(to);
        if world.map().is_free(to) && far > here && best.is_none_or(|(_, b)| far > b) {
            best = Some((to, far));
        }
    }
    match best {
        Some((to, _)) => Action::Step { to },
        None => Action::Rest,
    }
}
