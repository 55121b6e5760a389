//! May the camel do this? A rejected command costs nothing and is never written down.

use thiserror::Error;

use crate::bags::LETTERS;
use crate::command::{Command, Slot};
use crate::geometry::Direction;
use crate::ids::ActorId;
use crate::item::Item;
use crate::lore::Boon;
use crate::map::Terrain;
use crate::text::{a, capitalise};
use crate::world::World;

/// Why a command was refused, in words a player can act on.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Error)]
pub enum Rejection {
    #[error("It is not your turn.")]
    NotYourTurn,
    #[error("The game is over.")]
    GameOver,
    #[error("{} blocks the way.", capitalise(.0.name()))]
    Blocked(Terrain),
    #[error("There is nothing here to pick up.")]
    NothingHere,
    #[error("Your bags are full.")]
    BagsFull,
    #[error("{}", no_item(.0))]
    NoSuchItem(Slot),
    #[error("You cannot eat {}.", a(.0.noun()))]
    CannotEat(Item),
    #[error("You cannot throw {} usefully.", a(.0.noun()))]
    CannotThrow(Item),
    #[error("You cannot wear {}.", a(.0.noun()))]
    CannotWear(Item),
    #[error("You already wear {}.", a(.0.noun()))]
    AlreadyWorn(Item),
    #[error("You cannot drink or crack {}.", a(.0.noun()))]
    CannotUse(Item),
    #[error("Only a desert rose makes you grow, not {}.", a(.0.noun()))]
    CannotGrow(Item),
    #[error("This desert rose does not offer that ({}).", .0.describe())]
    NotOffered(Boon),
    #[error("You are not wearing {}.", a(.0.noun()))]
    NotWorn(Item),
    #[error("Gear stays on for good under these rules.")]
    StaysOn,
    #[error("There is no closed door there.")]
    NoClosedDoor,
    #[error("There is no open door there.")]
    NoOpenDoor,
    #[error("Something is in the way of the door.")]
    DoorBlocked,
    #[error("There are no stairs here.")]
    NoStairs,
    #[error("You have already dashed this turn.")]
    AlreadyDashed,
    #[error("The door is locked. A key lying somewhere on this level opens it.")]
    Locked,
    #[error("Under these rules a throw goes along one of the eight lines, not at a cell.")]
    ThrowsAlongLines,
    #[error("You cannot see there.")]
    Unseen,
    #[error("Throw it at something other than your own feet.")]
    AtYourFeet,
}

/// Why `slot` holds nothing: an empty letter, or (in a crafted tape) a slot past `z`,
/// which no letter names.
fn no_item(slot: &Slot) -> String {
    if usize::from(slot.0) < LETTERS {
        format!("You have no item {}.", slot.letter())
    } else {
        format!(
            "There is no slot {} in your bags: they run from a to z.",
            slot.0 + 1
        )
    }
}

/// Whether the camel `id` may do `command` in `world` now that it is its turn (whose
/// turn it is, is the machine's to say: `State::validate`). Changes nothing.
pub(crate) fn check_command(
    world: &World,
    id: ActorId,
    command: &Command,
) -> Result<(), Rejection> {
    let me = world.actor_at(id);
    let map = world.map();
    let item = |slot: Slot| world.bags().item(slot).ok_or(Rejection::NoSuchItem(slot));
    match *command {
        Command::Move(dir) => check_move(world, id, dir),
        Command::Rest | Command::Quit => Ok(()),
        Command::PickUp => match world.items_at(me.pos()).next() {
            None => Err(Rejection::NothingHere),
            Some(item) if world.bags().slot_for(item).is_none() => Err(Rejection::BagsFull),
            Some(_) => Ok(()),
        },
        Command::Drop(slot) => item(slot).map(drop),
        Command::Eat(slot) => match item(slot)? {
            food if food.is_edible() => Ok(()),
            other => Err(Rejection::CannotEat(other)),
        },
        Command::Wear(slot) => match item(slot)? {
            worn if world.gear().wears(worn) => Err(Rejection::AlreadyWorn(worn)),
            gear if gear.is_wearable() => Ok(()),
            other => Err(Rejection::CannotWear(other)),
        },
        Command::Use(slot) => match item(slot)? {
            usable if usable.is_usable() => Ok(()),
            other => Err(Rejection::CannotUse(other)),
        },
        Command::Grow(slot, boon) => match item(slot)? {
            Item::Rose if world.growth().offer().contains(&boon) => Ok(()),
            Item::Rose => Err(Rejection::NotOffered(boon)),
            other => Err(Rejection::CannotGrow(other)),
        },
        Command::TakeOff(garment) => {
            let worn = garment.item();
            if !world.rules().finds() {
                Err(Rejection::StaysOn)
            } else if !world.gear().wears(worn) {
                Err(Rejection::NotWorn(worn))
            } else if world.bags().slot_for(worn).is_none() {
                Err(Rejection::BagsFull)
            } else {
                Ok(())
            }
        }
        Command::Throw(slot, _) => match item(slot)? {
            missile if world.can_throw(missile) => Ok(()),
            other => Err(Rejection::CannotThrow(other)),
        },
        Command::ThrowAt(slot, east, south) => {
            if !world.rules().throws_at_any_cell() {
                return Err(Rejection::ThrowsAlongLines);
            }
            let at = me.pos().offset(east, south);
            match item(slot)? {
                other if !world.can_throw(other) => Err(Rejection::CannotThrow(other)),
                _ if at == me.pos() => Err(Rejection::AtYourFeet),
                _ if !world.sees(at) => Err(Rejection::Unseen),
                _ => Ok(()),
            }
        }
        Command::Open(dir) => match map.terrain(me.pos().step(dir)) {
            Terrain::DoorClosed => Ok(()),
            Terrain::DoorLocked => check_key(world),
            _ => Err(Rejection::NoClosedDoor),
        },
        Command::Close(dir) => {
            let at = me.pos().step(dir);
            if map.terrain(at) != Terrain::DoorOpen {
                Err(Rejection::NoOpenDoor)
            } else if map.occupant(at).is_some() || world.items_at(at).next().is_some() {
                Err(Rejection::DoorBlocked)
            } else {
                Ok(())
            }
        }
        Command::Descend => match map.terrain(me.pos()) {
            Terrain::Stairs => Ok(()),
            _ => Err(Rejection::NoStairs),
        },
        Command::Dash => {
            if world.is_dashing(id) {
                Err(Rejection::AlreadyDashed)
            } else {
                Ok(())
            }
        }
    }
}

/// A step is legal onto passable terrain, or into a creature (an attack), whatever it
/// costs: a step dearer than the camel's energy takes longer, it is not refused. A
/// confused camel may stumble elsewhere; that is decided when it moves.
fn check_move(world: &World, id: ActorId, dir: Direction) -> Result<(), Rejection> {
    let to = world.actor_at(id).pos().step(dir);
    if world.map().occupant(to).is_some() {
        return Ok(());
    }
    let terrain = world.map().terrain(to);
    if terrain == Terrain::DoorLocked {
        return check_key(world);
    }
    if !terrain.is_passable() {
        return Err(Rejection::Blocked(terrain));
    }
    Ok(())
}

/// A locked door opens to the camel that carries a key (walking into it, or opening it),
/// and to no other.
fn check_key(world: &World) -> Result<(), Rejection> {
    if world.opens(Terrain::DoorLocked) {
        Ok(())
    } else {
        Err(Rejection::Locked)
    }
}
