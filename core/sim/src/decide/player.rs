//! The camel's command, resolved into an action: where a confused camel stumbles, what a
//! kick or a thrown stone does.

use super::step_or_attack;
use crate::action::Action;
use crate::command::{Command, Slot};
use crate::geometry::Direction;
use crate::ids::ActorId;
use crate::rng::{Draws, NeedDraw};
use crate::world::{Condition, World};

/// Resolves a validated player command into an action, rolling what it needs.
pub(super) fn resolve(
    world: &World,
    id: ActorId,
    command: Command,
    draws: &mut Draws,
) -> Result<Action, NeedDraw> {
    let me = world.actor_at(id);
    Ok(match command {
        Command::Move(dir) => {
            let dir = if me.conditions().has(Condition::Confused) {
                Direction::ALL[draws.below(8)? as usize]
            } else {
                dir
            };
            step_or_attack(world, id, dir, |_| true, draws)?
        }
        Command::Rest => Action::Rest,
        Command::PickUp => Action::PickUp,
        Command::Drop(slot) => Action::Drop(slot),
        Command::Eat(slot) => Action::Eat(slot),
        Command::Throw(slot, dir) => throw(world, id, slot, dir, draws)?,
        Command::Open(dir) => Action::Open(me.pos().step(dir)),
        Command::Close(dir) => Action::Close(me.pos().step(dir)),
        Command::Descend => Action::Descend,
        Command::Dash => Action::Dash,
        Command::Quit => Action::Quit,
        Command::Wear(slot) => Action::Wear(slot),
    })
}

/// A thrown item flies until it hits a creature or a wall, and lands there.
fn throw(
    world: &World,
    id: ActorId,
    slot: Slot,
    dir: Direction,
    draws: &mut Draws,
) -> Result<Action, NeedDraw> {
    let map = world.map();
    // Validated commands throw what the bags hold; there is nothing else to throw.
    let Some(item) = world.bags().item(slot) else {
        return Ok(Action::Rest);
    };
    let mut at = world.actor_at(id).pos();
    let mut lands = at;
    loop {
        let next = at.step(dir);
        if let Some(target) = map.occupant(next) {
            let (low, high) = item.thrown_damage();
            let damage = draws.between(low, high)? as i16;
            return Ok(Action::Throw {
                slot,
                lands: next,
                hit: Some((target, damage)),
            });
        }
        if map.terrain(next).blocks() || !map.contains(next) {
            return Ok(Action::Throw {
                slot,
                lands,
                hit: None,
            });
        }
        at = next;
        if map.terrain(at).is_passable() {
            lands = at;
        }
    }
}
