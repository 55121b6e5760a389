//! Allies (rules version 8 on): a jackal the camel threw a date to. It keeps near the
//! camel, bites any creature beside it that would harm the camel, and goes for one the
//! camel sees close by. It leaves sleepers and grazing tortoises be: waking them would
//! undo the camel's care in passing them.

use super::herds::is_hostile;
use super::roll_damage;
use crate::action::Action;
use crate::geometry::{Direction, Pos};
use crate::ids::ActorId;
use crate::path::first_step_to;
use crate::rng::{Draws, NeedDraw};

use crate::world::World;

/// A date thrown to a jackal wins it over one time in this many; otherwise it lands at
/// the jackal's feet. A friend is worth a gamble of food, not a sure trade for it.
pub const TAMING_ODDS: u32 = 3;
/// How far from itself an ally goes for a foe the camel sees.
const ALLY_REACH: u16 = 5;
/// How near the camel an ally keeps, when it has no foe to go for.
pub const ALLY_KEEPS_WITHIN: u16 = 2;
/// How far an ally walks round obstacles to a foe or back to the camel, in quarters of a
/// step (`path::step_cost`): twenty steps of sand.
const ALLY_WALKS: u32 = 4 * 20;

#[cold]
pub(super) fn ally(world: &World, id: ActorId, draws: &mut Draws) -> Result<Action, NeedDraw> {
    let me = world.actor_at(id);
    let here = me.pos();
    let beside = Direction::ALL
        .into_iter()
        .filter_map(|dir| world.map().occupant(here.step(dir)))
        .find(|&other| is_foe(world, other));
    if let Some(target) = beside {
        let damage = roll_damage(me.species(), draws)?;
        return Ok(Action::Attack { target, damage });
    }
    let foe = world
        .actors()
        .filter(|&(other, a)| {
            a.pos().distance(here) <= ALLY_REACH && world.sees(a.pos()) && is_foe(world, other)
        })
        .min_by_key(|&(other, a)| (a.pos().distance(here), other));
    let camel = world.player().filter(|c| c.is_present()).map(|c| c.pos());
    let goal = match (foe, camel) {
        (Some((_, a)), _) => a.pos(),
        (None, Some(camel)) if camel.distance(here) > ALLY_KEEPS_WITHIN => camel,
        _ => return Ok(Action::Rest),
    };
    Ok(walk_toward(world, here, goal))
}

/// A step on the cheapest walk toward `goal` through free cells, or a rest if none.
fn walk_toward(world: &World, here: Pos, goal: Pos) -> Action {
    let map = world.map();
    let dir = first_step_to(map, here, goal, ALLY_WALKS, |p| map.is_free(p));
    match dir.map(|d| here.step(d)).filter(|&to| map.is_free(to)) {
        Some(to) => Action::Step { to },
        None => Action::Rest,
    }
}

/// A creature an ally bites: awake, neither the camel nor an ally, and not a tortoise
/// left in peace.
fn is_foe(world: &World, id: ActorId) -> bool {
    let a = world.actor_at(id);
    a.is_present() && !world.is_player(id) && is_hostile(a)
}
