//! What the finds of rules version 9 do (`Rules::finds`): a flask drunk, a scarab
//! cracked, a desert rose crushed, gear taken off.

use super::SWEET_HEAL;
use crate::command::Slot;
use crate::gear::Garment;
use crate::geometry::Pos;
use crate::ids::ActorId;
use crate::item::{Charm, Draught, Item};
use crate::lore::Boon;
use crate::message::Msg;
use crate::species::{Behaviour, Species};
use crate::state::{Observer, State};
use crate::world::Change;

impl State {
    /// Drinks the flask or cracks the scarab in `slot`: it is used up, and the camel
    /// knows its kind from then on.
    pub(super) fn perform_use(
        &mut self,
        id: ActorId,
        slot: Slot,
        to: Option<Pos>,
        obs: &mut impl Observer,
    ) {
        let Some(item) = self.world().bags().item(slot) else {
            return;
        };
        self.change(Change::Consume { slot }, obs);
        self.change(Change::Learn(item), obs);
        let lore = *self.world().lore();
        match item {
            Item::Flask(glass) => {
                let draught = lore.draught(glass);
                self.say(Msg::Drank { glass, draught }, obs);
                self.perform_draught(id, draught, obs);
            }
            Item::Scarab(stone) => {
                let charm = lore.charm(stone);
                let fizzled = charm == Charm::Blink && to.is_none();
                let cracked = Msg::Cracked {
                    stone,
                    charm,
                    fizzled,
                };
                self.say(cracked, obs);
                self.perform_charm(id, charm, to, obs);
            }
            _ => {}
        }
    }

    fn perform_draught(&mut self, id: ActorId, draught: Draught, obs: &mut impl Observer) {
        match draught {
            Draught::Sweet => {
                let sips = self.world().growth().waterskin();
                self.change(Change::Fill { sips }, obs);
                self.perform_heal(id, SWEET_HEAL, obs);
            }
            Draught::Vision => self.change(Change::Reveal, obs),
            Draught::Brackish => self.change(Change::Spill, obs),
        }
    }

    fn perform_charm(
        &mut self,
        id: ActorId,
        charm: Charm,
        to: Option<Pos>,
        obs: &mut impl Observer,
    ) {
        match charm {
            Charm::Slumber => {
                let world = self.world();
                let sleepers: Vec<ActorId> = world
                    .actors()
                    .filter(|&(other, a)| {
                        other != id && world.sees_actor(other) && is_awake(a.behaviour())
                    })
                    .filter(|(_, a)| a.species() != Species::SpiderEgg)
                    .map(|(other, _)| other)
                    .collect();
                for actor in sleepers {
                    self.change(Change::Sleep { actor }, obs);
                }
            }
            Charm::Blink => {
                if let Some(to) = to {
                    self.perform_move(id, to, obs);
                }
            }
            Charm::Alarm => {
                let camel = self.world().actor_at(id).pos();
                let woken: Vec<(ActorId, bool, bool)> = self
                    .world()
                    .actors()
                    .filter(|&(other, _)| other != id)
                    .map(|(other, a)| {
                        let asleep =
                            matches!(a.behaviour(), Behaviour::Asleep | Behaviour::Slumber);
                        (other, asleep, a.species().hunts())
                    })
                    .collect();
                for (actor, asleep, hunts) in woken {
                    if asleep {
                        self.change(Change::Wake { actor }, obs);
                    }
                    if hunts {
                        self.change(Change::Alert { actor, at: camel }, obs);
                    }
                }
            }
        }
    }

    /// Crushes the desert rose in `slot`, and the camel grows as it chose.
    pub(super) fn perform_grow(&mut self, slot: Slot, boon: Boon, obs: &mut impl Observer) {
        self.change(Change::Consume { slot }, obs);
        self.change(Change::Grow(boon), obs);
        self.say(Msg::Grew(boon), obs);
    }

    pub(super) fn perform_take_off(&mut self, garment: Garment, obs: &mut impl Observer) {
        self.change(Change::TakeOff(garment.item()), obs);
        self.say(Msg::TookOff(garment.item()), obs);
    }
}

/// Whether a creature behaving so falls asleep at a charm of slumber: every awake
/// creature but the camel's ally.
fn is_awake(behaviour: Behaviour) -> bool {
    !matches!(
        behaviour,
        Behaviour::Asleep | Behaviour::Ally | Behaviour::Player | Behaviour::Slumber
    )
}
