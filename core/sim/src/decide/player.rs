//! The camel's command, resolved into an action: where a confused camel stumbles, what a
//! kick or a thrown stone does.

use super::ally::TAMING_ODDS;
use super::step_or_attack;
use crate::action::Action;
use crate::command::{Command, Slot};
use crate::geometry::{line, Direction, Pos};
use crate::ids::ActorId;
use crate::item::{Charm, Item};
use crate::map::Terrain;
use crate::rng::{Draws, NeedDraw};
use crate::world::{Condition, World};

/// Resolves a validated player command into an action, rolling what it needs. Out of
/// line: the camel takes one turn in many, and inlined into `decide` it left no room
/// there for the spider's turn, which most turns of a long game are.
#[inline(never)]
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
            let to = me.pos().step(dir);
            // Walking into a locked door with a key opens it.
            if let Some(unlock) = unlock(world, to) {
                return Ok(unlock);
            }
            match world.map().occupant(to) {
                // An ally gives way: the two change places.
                Some(with) if world.actor_at(with).is_ally() => Action::Swap { with, to },
                _ => match step_or_attack(world, id, dir, |_| true, draws)? {
                    // A camel grown stronger (`Boon::Stronger`) kicks harder.
                    Action::Attack { target, damage } => Action::Attack {
                        target,
                        damage: damage + world.growth().kick_bonus(),
                    },
                    other => other,
                },
            }
        }
        Command::Rest => Action::Rest,
        Command::PickUp => Action::PickUp,
        Command::Drop(slot) => Action::Drop(slot),
        Command::Eat(slot) => Action::Eat(slot),
        Command::Throw(slot, dir) => throw(world, id, slot, dir, draws)?,
        Command::Open(dir) => {
            let at = me.pos().step(dir);
            unlock(world, at).unwrap_or(Action::Open(at))
        }
        Command::Close(dir) => Action::Close(me.pos().step(dir)),
        Command::Descend => Action::Descend,
        Command::Dash => Action::Dash,
        Command::Quit => Action::Quit,
        Command::Wear(slot) => Action::Wear(slot),
        Command::Use(slot) => Action::Use {
            slot,
            to: blink_to(world, id, slot, draws)?,
        },
        Command::Grow(slot, boon) => Action::Grow { slot, boon },
        Command::TakeOff(item) => Action::TakeOff(item),
        Command::ThrowAt(slot, east, south) => {
            throw_at(world, id, slot, me.pos().offset(east, south), draws)?
        }
    })
}

/// A scarab of blinking carries the camel at least this many king moves away.
pub const BLINK_LEAST: u16 = 8;

/// Where a scarab of blinking carries the camel: any free open cell (sand, dune or
/// hardpan) at least `BLINK_LEAST` away, drawn. `None` for any other find, or when no
/// cell is far enough (then the charm fizzles). Out of line: it is seldom called, and
/// inlined it made the deciding of every creature's turn dearer.
#[cold]
fn blink_to(
    world: &World,
    id: ActorId,
    slot: Slot,
    draws: &mut Draws,
) -> Result<Option<Pos>, NeedDraw> {
    let blinks = match world.bags().item(slot) {
        Some(Item::Scarab(stone)) => world.lore().charm(stone) == Charm::Blink,
        _ => false,
    };
    if !blinks {
        return Ok(None);
    }
    let from = world.actor_at(id).pos();
    let map = world.map();
    let open = |p: Pos| {
        matches!(
            map.terrain(p),
            Terrain::Sand | Terrain::Dune | Terrain::Hardpan
        )
    };
    let far = |p: Pos| p.distance(from) >= BLINK_LEAST && open(p) && map.is_free(p);
    let count = map.cells().filter(|&p| far(p)).count() as u32;
    if count == 0 {
        return Ok(None);
    }
    let pick = draws.below(count)? as usize;
    Ok(map.cells().filter(|&p| far(p)).nth(pick))
}

/// Opening the locked door at `at` with the first key in the bags, if it is one and the
/// camel carries a key (rules version 9 on: only its levels lock doors).
fn unlock(world: &World, at: Pos) -> Option<Action> {
    let locked = world.map().terrain(at) == Terrain::DoorLocked;
    let key = world.bags().find(Item::Key).filter(|_| locked)?;
    Some(Action::Unlock { at, key })
}

/// A thrown item flies until it hits a creature or a wall, and lands there.
fn throw(
    world: &World,
    id: ActorId,
    slot: Slot,
    dir: Direction,
    draws: &mut Draws,
) -> Result<Action, NeedDraw> {
    let mut at = world.actor_at(id).pos();
    let path = std::iter::from_fn(|| {
        at = at.step(dir);
        Some(at)
    });
    fly(world, id, slot, path, draws)
}

/// A thrown item flies along `geometry::line` to `to` until it hits a creature or a
/// wall, and lands there, or at `to` (`Command::ThrowAt`).
fn throw_at(
    world: &World,
    id: ActorId,
    slot: Slot,
    to: Pos,
    draws: &mut Draws,
) -> Result<Action, NeedDraw> {
    let from = world.actor_at(id).pos();
    fly(world, id, slot, line(from, to).into_iter(), draws)
}

/// A thrown item flies along `path` until it hits a creature or a wall, and lands there,
/// or where the path ends. A missile rolls its damage; a date rolls whether it wins over
/// a creature that can be tamed (1 in `TAMING_ODDS`, as 1 for yes and 0 for no in the
/// place of damage: `perform_throw`); a mushroom rolls nothing: it bursts.
fn fly(
    world: &World,
    id: ActorId,
    slot: Slot,
    path: impl Iterator<Item = Pos>,
    draws: &mut Draws,
) -> Result<Action, NeedDraw> {
    let map = world.map();
    // Validated commands throw what the bags hold; there is nothing else to throw.
    let Some(item) = world.bags().item(slot) else {
        return Ok(Action::Rest);
    };
    let mut lands = world.actor_at(id).pos();
    for next in path {
        if let Some(target) = map.occupant(next) {
            let damage = match item {
                Item::Date => i16::from(draws.below(TAMING_ODDS)? == 0),
                Item::Mushroom(_) => 0,
                _ => {
                    let (low, high) = item.thrown_damage();
                    draws.between(low, high)? as i16 + world.growth().throw_bonus()
                }
            };
            return Ok(Action::Throw {
                slot,
                lands: next,
                hit: Some((target, damage)),
            });
        }
        if map.terrain(next).blocks() || !map.contains(next) {
            break;
        }
        if map.terrain(next).is_passable() {
            lands = next;
        }
    }
    Ok(Action::Throw {
        slot,
        lands,
        hit: None,
    })
}
