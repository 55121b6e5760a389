//! Performing: a decided action becomes changes to the world, in the order an observer
//! sees them. Nothing here takes a draw (every die was rolled while deciding) and nothing
//! here touches the machine's books (whose turn it is next is the machine's business).

mod finds;

use crate::action::{Action, ActionRecord};
use crate::command::Slot;
use crate::decide::{pack_unaware, sleepers_near};
use crate::desert::{sip_due, TimeOfDay, FRUIT_WATER, WATER_LOW};
use crate::geometry::{Direction, Pos};
use crate::ids::ActorId;
use crate::item::{Effect, Item, Look};
use crate::map::Terrain;
use crate::message::{Harm, Msg};
use crate::species::{Behaviour, Species, STIR_REACH, SWARMS_MOST};
use crate::state::{Observer, State};
use crate::world::{Change, Condition, Conditions, Outcome, World};

/// Turns of each condition a mushroom gives.
const POISON_TURNS: u16 = 8;
const HASTE_TURNS: u16 = 20;
const CONFUSION_TURNS: u16 = 10;
/// Hit points a mushroom of healing gives back.
const MUSHROOM_HEAL: i16 = 10;
/// Hit points a flask of sweet water gives back.
const SWEET_HEAL: i16 = 5;

impl State {
    /// Carries out a decided action: pays its `cost`, then makes its changes, and shows
    /// the observer the action taken.
    #[inline]
    pub(crate) fn perform(
        &mut self,
        id: ActorId,
        action: Action,
        cost: u16,
        obs: &mut impl Observer,
    ) {
        let before = self.world().energy(id).0;
        let turn = !matches!(action, Action::Dash);
        let conditions = self.world().actor_at(id).conditions();
        let poisoned = turn && conditions.has(Condition::Poisoned);
        // Most turns end nothing: the rules are asked only when a condition runs.
        let ending = turn && !conditions.is_none();
        let told_after = ending && self.world().rules().ends_told_after_the_last_harm();
        if ending && !told_after {
            self.perform_turn_end_notes(id, conditions, obs);
        }
        let turns = u16::from(turn);
        self.change(
            Change::Spend {
                actor: id,
                cost,
                turns,
            },
            obs,
        );
        if poisoned {
            // Poison hurts with every turn it lasts, its last included.
            self.perform_harm(id, Harm::Poison, obs);
        } else if turn {
            self.perform_regeneration(id, obs);
        }
        if told_after && self.world().actor_at(id).is_present() {
            self.perform_turn_end_notes(id, conditions, obs);
        }
        if self.world().actor_at(id).is_present() {
            self.perform_action(id, action, obs);
        }
        if turn && self.world().rules().desert_clock() && self.world().is_player(id) {
            self.perform_thirst(id, obs);
        }
        let record = ActionRecord {
            tick: self.tick(),
            actor: id,
            action,
            energy_before: before,
            energy_after: self.world().energy(id).0,
        };
        obs.acted(self, &record);
    }

    /// Tells the camel which of its `conditions` (as the turn began) end with the turn it
    /// is taking.
    fn perform_turn_end_notes(
        &mut self,
        id: ActorId,
        conditions: Conditions,
        obs: &mut impl Observer,
    ) {
        if !self.world().is_player(id) {
            return;
        }
        for (condition, left) in conditions.each() {
            if left == 1 {
                self.say(Msg::ConditionEnds(condition.effect()), obs);
            }
        }
    }

    /// The camel heals slowly, a hit point every few turns where its wounds close by
    /// themselves (`World::regenerate_every`), unless poisoned or, under the desert's
    /// clock, out of water.
    fn perform_regeneration(&mut self, id: ActorId, obs: &mut impl Observer) {
        let world = self.world();
        if !world.is_player(id) {
            return;
        }
        let me = world.actor_at(id);
        let Some(every) = world.regenerate_every() else {
            return;
        };
        let due = world.turns(id).is_multiple_of(every);
        let parched = world.rules().desert_clock() && world.water() == 0;
        if due && me.is_present() && me.hp() < me.max_hp() && !parched {
            self.perform_heal(id, 1, obs);
        }
    }

    /// The end of the camel's turn under the desert's clock: beside water it drinks from
    /// the pool and fills its waterskin if it is not full; away from water, when a sip is
    /// due (`desert::sip_due`), it drinks from the skin, and with the skin empty it
    /// weakens instead, a hit point a sip.
    fn perform_thirst(&mut self, id: ActorId, obs: &mut impl Observer) {
        let world = self.world();
        let me = world.actor_at(id);
        if !me.is_present() || world.outcome().is_some() {
            return;
        }
        let (water, skin) = (world.water(), world.growth().waterskin());
        if world.fills_at(me.pos()) {
            if water < skin {
                let fill = Change::Fill { sips: skin - water };
                self.change(fill, obs);
                self.say(Msg::Filled, obs);
            }
            return;
        }
        let time = TimeOfDay::at(world.tick());
        let every = world.thirst_every();
        if !sip_due(world.turns(id), every, time) {
            return;
        }
        if water == 0 {
            self.say(Msg::Parched, obs);
            return self.perform_harm(id, Harm::Thirst, obs);
        }
        self.change(Change::Sip, obs);
        match water - 1 {
            0 => self.say(Msg::WaterGone, obs),
            WATER_LOW => self.say(Msg::WaterLow, obs),
            _ => {}
        }
    }

    #[inline]
    fn perform_action(&mut self, id: ActorId, action: Action, obs: &mut impl Observer) {
        let species = self.world().actor_at(id).species();
        match action {
            Action::Wait | Action::Rest | Action::Gather | Action::Stunned => {}
            Action::Bump => self.perform_bump(id, obs),
            Action::Dash => self.change(Change::Dash { actor: id }, obs),
            Action::Step { to } => self.perform_step(id, to, obs),
            Action::Attack { target, damage } => self.perform_attack(species, target, damage, obs),
            Action::PickUp => self.perform_pick_up(id, obs),
            Action::Drop(slot) => self.perform_drop(slot, obs),
            Action::Eat(slot) => self.perform_eat(id, slot, obs),
            Action::Throw { slot, lands, hit } => self.perform_throw(id, slot, lands, hit, obs),
            Action::Open(at) => self.perform_door(at, true, obs),
            Action::Close(at) => self.perform_door(at, false, obs),
            // The machine makes the next level once the action is over.
            Action::Descend => {}
            Action::Quit => self.perform_quit(obs),
            Action::Charge { dir, to } => self.perform_charge(id, dir, to, obs),
            Action::Ram { target, damage } => self.perform_ram(id, species, target, damage, obs),
            Action::Crash { knock_out } => self.perform_crash(id, knock_out, obs),
            Action::LayEgg { at } => self.perform_lay_egg(at, obs),
            Action::Hatch => self.perform_hatch(id, obs),
            Action::Wake => self.perform_wake(id, obs),
            Action::Shriek => self.perform_shriek(id, obs),
            Action::Howl => self.perform_howl(id, obs),
            Action::Wear(slot) => self.perform_wear(slot, obs),
            Action::Trample { at } => self.perform_trample(at, obs),
            Action::Swap { with, .. } => self.perform_swap(id, with, obs),
            Action::Use { slot, to } => self.perform_use(id, slot, to, obs),
            Action::Grow { slot, boon } => self.perform_grow(slot, boon, obs),
            Action::TakeOff(item) => self.perform_take_off(item, obs),
            Action::Unlock { at, key } => self.perform_unlock(at, key, obs),
            Action::Steal { slot } => self.perform_steal(id, slot, obs),
        }
    }

    fn perform_wake(&mut self, id: ActorId, obs: &mut impl Observer) {
        self.change(Change::Wake { actor: id }, obs);
        let me = self.world().actor_at(id);
        let (at, species) = (me.pos(), me.species());
        self.say_seen(at, Msg::Wakes(species), obs);
    }

    /// Every sleeper in the meerkat's earshot wakes; the camel hears the cry if it sees
    /// the meerkat (and it shrieks only then).
    fn perform_shriek(&mut self, id: ActorId, obs: &mut impl Observer) {
        let at = self.world().actor_at(id).pos();
        self.say_seen(at, Msg::Shrieks, obs);
        let sleepers: Vec<ActorId> = sleepers_near(self.world(), at).collect();
        for actor in sleepers {
            self.change(Change::Wake { actor }, obs);
        }
    }

    /// The hyena's packmates in earshot that do not know where the camel is wake and
    /// learn it. A howl carries: the camel hears it wherever it is.
    fn perform_howl(&mut self, id: ActorId, obs: &mut impl Observer) {
        let Some(camel) = self.world().player().map(|c| c.pos()) else {
            return;
        };
        self.say(Msg::Howls, obs);
        let unaware: Vec<ActorId> = pack_unaware(self.world(), id).collect();
        for actor in unaware {
            if self.world().actor_at(actor).behaviour() == Behaviour::Asleep {
                self.change(Change::Wake { actor }, obs);
            }
            self.change(Change::Alert { actor, at: camel }, obs);
        }
    }

    fn perform_wear(&mut self, slot: Slot, obs: &mut impl Observer) {
        let Some(item) = self.world().bags().item(slot) else {
            return;
        };
        self.change(Change::Wear { slot }, obs);
        self.say(Msg::PutOn(item), obs);
    }

    fn perform_trample(&mut self, at: Pos, obs: &mut impl Observer) {
        self.change(Change::Trample { at }, obs);
        self.say_seen(at, Msg::Tramples, obs);
    }

    pub(crate) fn say(&mut self, msg: Msg, obs: &mut impl Observer) {
        self.change(Change::Say(msg), obs);
    }

    /// Tells the camel what happens at `at`, if it sees it: nobody hears of what happens
    /// out of sight. (With no camel, as in a scenario, everything is told.)
    fn say_seen(&mut self, at: Pos, msg: Msg, obs: &mut impl Observer) {
        if hears_of(self.world(), at) {
            self.say(msg, obs);
        }
    }

    fn perform_bump(&mut self, id: ActorId, obs: &mut impl Observer) {
        if self.world().is_player(id) {
            self.say(Msg::Stumble, obs);
        }
    }

    #[inline]
    fn perform_step(&mut self, id: ActorId, to: Pos, obs: &mut impl Observer) {
        self.perform_move(id, to, obs);
        self.arrived(id, to, obs);
    }

    /// `id` goes from where it stands to `to`: a step, or a scarab's blink.
    #[inline]
    fn perform_move(&mut self, id: ActorId, to: Pos, obs: &mut impl Observer) {
        let from = self.world().actor_at(id).pos();
        self.change(
            Change::Move {
                actor: id,
                from,
                to,
            },
            obs,
        );
    }

    fn perform_swap(&mut self, id: ActorId, with: ActorId, obs: &mut impl Observer) {
        self.change(Change::Swap { actor: id, with }, obs);
        let to = self.world().actor_at(id).pos();
        self.arrived(id, to, obs);
    }

    /// What the camel finds where it steps: the oasis, or sand stirring over a sleeper.
    fn arrived(&mut self, id: ActorId, to: Pos, obs: &mut impl Observer) {
        if self.world().is_player(id) && self.world().map().terrain(to) == Terrain::Oasis {
            self.say(Msg::Won, obs);
            self.change(Change::End(Outcome::Won), obs);
        } else if self.world().is_player(id) && stirring_near(self.world(), to) {
            self.say(Msg::SandStirs, obs);
        }
    }

    fn perform_pick_up(&mut self, id: ActorId, obs: &mut impl Observer) {
        let at = self.world().actor_at(id).pos();
        let floor = self.world().floor();
        if let Some(floor_index) = floor.iter().position(|(p, _)| *p == at) {
            let item = floor[floor_index].1;
            self.change(Change::PickUp { floor_index }, obs);
            self.say(Msg::PickedUp(item), obs);
        }
    }

    fn perform_drop(&mut self, slot: Slot, obs: &mut impl Observer) {
        let Some(item) = self.world().bags().item(slot) else {
            return;
        };
        self.change(Change::Drop { slot }, obs);
        self.say(Msg::Dropped(item), obs);
    }

    fn perform_eat(&mut self, id: ActorId, slot: Slot, obs: &mut impl Observer) {
        let Some(item) = self.world().bags().item(slot) else {
            return;
        };
        self.change(Change::Consume { slot }, obs);
        self.say(Msg::Ate(item), obs);
        match item {
            Item::Mushroom(look) => {
                let effect = self.world().mycology().effect(look);
                self.perform_identify(look, effect, obs);
                self.perform_effect(id, effect, obs);
            }
            food => {
                self.perform_heal(id, food.nourishment(), obs);
                if food == Item::CactusFruit && self.world().rules().desert_clock() {
                    self.change(Change::Fill { sips: FRUIT_WATER }, obs);
                }
            }
        }
    }

    /// What a mushroom does to whoever eats it.
    fn perform_effect(&mut self, id: ActorId, effect: Effect, obs: &mut impl Observer) {
        let (condition, turns) = match effect {
            Effect::Heal => return self.perform_heal(id, MUSHROOM_HEAL, obs),
            Effect::Poison => (Condition::Poisoned, POISON_TURNS),
            Effect::Haste => (Condition::Haste, HASTE_TURNS),
            Effect::Slow => (Condition::Slow, HASTE_TURNS),
            Effect::Confusion => (Condition::Confused, CONFUSION_TURNS),
        };
        self.change(
            Change::Condition {
                actor: id,
                condition,
                turns,
            },
            obs,
        );
    }

    fn perform_heal(&mut self, actor: ActorId, amount: i16, obs: &mut impl Observer) {
        self.change(Change::Heal { actor, amount }, obs);
    }

    fn perform_throw(
        &mut self,
        id: ActorId,
        slot: Slot,
        lands: Pos,
        hit: Option<(ActorId, i16)>,
        obs: &mut impl Observer,
    ) {
        let thrower = self.world().actor_at(id);
        let (species, from) = (thrower.species(), thrower.pos());
        let Some(item) = self.world().bags().item(slot) else {
            return;
        };
        // A date reaching the camel's ally is eaten, and heals it.
        let ally = hit
            .map(|(target, _)| target)
            .filter(|&t| item == Item::Date && self.world().actor_at(t).is_ally());
        if let Some(ally) = ally.filter(|_| self.world().rules().allies_eat_dates()) {
            let species = self.world().actor_at(ally).species();
            self.change(Change::Consume { slot }, obs);
            let amount = item.nourishment();
            self.change(
                Change::Heal {
                    actor: ally,
                    amount,
                },
                obs,
            );
            return self.say(Msg::Fed { species, amount }, obs);
        }
        let caught = hit.filter(|&(_, won)| won > 0).map(|(target, _)| target);
        if let Some(target) = caught.filter(|&t| item == Item::Date && self.world().tames(t)) {
            let tamed = self.world().actor_at(target).species();
            self.change(Change::Consume { slot }, obs);
            self.change(Change::Tame { actor: target }, obs);
            return self.say(Msg::Tamed(tamed), obs);
        }
        if let (Item::Mushroom(look), Some((target, _))) = (item, hit) {
            if self.world().rules().mushrooms_burst() {
                return self.perform_burst(slot, look, target, obs);
            }
        }
        let blow = hit.filter(|_| item.is_throwable());
        // Under `Rules::spears_break` a spear that hits snaps on its target, and under
        // `Rules::javelins_break` a javelin: it flies, and lands nowhere.
        let snaps = blow.is_some() && self.world().rules().snaps_on_a_hit(item);
        let flight = match snaps {
            true => Change::Snap {
                slot,
                item,
                from,
                at: lands,
            },
            false => Change::Land {
                slot,
                item,
                from,
                at: lands,
            },
        };
        self.change(flight, obs);
        let hit_species = hit.map(|(t, _)| self.world().actor_at(t).species());
        match blow {
            Some((target, damage)) if self.world().rules().thrown_blows_told_as_thrown() => {
                let target_species = self.world().actor_at(target).species();
                let struck = Msg::Struck {
                    item,
                    target: target_species,
                    damage,
                };
                self.say(struck, obs);
                if snaps {
                    self.say(Msg::Snapped(item), obs);
                }
                self.perform_wound(target, damage, Some(species), false, obs);
            }
            _ => {
                let thrown = Msg::Thrown {
                    item,
                    hit: hit_species,
                };
                self.say(thrown, obs);
                if let Some((target, damage)) = blow {
                    self.perform_hurt(target, damage, Some(species), obs);
                }
            }
        }
    }

    /// One thing from `slot` of the camel's bags goes to the thief `id`, who carries it
    /// from now on. The camel feels its bags lighten, whether it sees the thief or not.
    fn perform_steal(&mut self, id: ActorId, slot: Slot, obs: &mut impl Observer) {
        let Some(item) = self.world().bags().item(slot) else {
            return;
        };
        let thief = self.world().actor_at(id).species();
        self.change(
            Change::Steal {
                thief: id,
                slot,
                item,
            },
            obs,
        );
        self.say(Msg::Stole { thief, item }, obs);
    }

    /// A mushroom thrown that reaches a creature bursts on it, doing what it would do to
    /// whoever ate it; the camel knows its kind from then on (`Rules::mushrooms_burst`).
    fn perform_burst(&mut self, slot: Slot, look: Look, target: ActorId, obs: &mut impl Observer) {
        self.change(Change::Consume { slot }, obs);
        let effect = self.world().mycology().effect(look);
        let species = self.world().actor_at(target).species();
        self.say(
            Msg::Burst {
                look,
                effect,
                target: species,
            },
            obs,
        );
        self.perform_identify(look, effect, obs);
        self.perform_effect(target, effect, obs);
    }

    /// The camel learns what mushrooms of `look` do, told, if it did not know: eaten or
    /// burst, a mushroom shows its kind.
    fn perform_identify(&mut self, look: Look, effect: Effect, obs: &mut impl Observer) {
        if !self.world().mycology().is_known(look) {
            self.change(Change::Identify(look), obs);
            self.say(Msg::Identified { look, effect }, obs);
        }
    }

    fn perform_door(&mut self, at: Pos, open: bool, obs: &mut impl Observer) {
        self.change(Change::Door { at, open }, obs);
        self.say(if open { Msg::Opened } else { Msg::Closed }, obs);
    }

    /// The key stays in the lock: it leaves the bags, and the door opens for good.
    fn perform_unlock(&mut self, at: Pos, key: Slot, obs: &mut impl Observer) {
        self.change(Change::Consume { slot: key }, obs);
        self.change(Change::Door { at, open: true }, obs);
        self.say(Msg::Unlocked, obs);
    }

    fn perform_quit(&mut self, obs: &mut impl Observer) {
        self.say(Msg::Quit, obs);
        self.change(Change::End(Outcome::Quit), obs);
    }

    fn perform_charge(&mut self, id: ActorId, dir: Direction, to: Pos, obs: &mut impl Observer) {
        if self.world().actor_at(id).charging().is_none() {
            let charge = Change::Charge {
                actor: id,
                dir: Some(dir),
            };
            self.change(charge, obs);
            self.say_seen(to, Msg::Charges, obs);
        }
        self.perform_step(id, to, obs);
    }

    fn perform_ram(
        &mut self,
        id: ActorId,
        species: Species,
        target: ActorId,
        damage: i16,
        obs: &mut impl Observer,
    ) {
        self.change(
            Change::Charge {
                actor: id,
                dir: None,
            },
            obs,
        );
        let damage = self.felt(target, damage);
        self.perform_hurt(target, damage, Some(species), obs);
    }

    /// A blow of `damage` struck beside `target` as it feels it: the camel's gear
    /// softens it, a thick hide (`Species::thick_hide`) turns most of it aside.
    #[inline]
    fn felt(&self, target: ActorId, damage: i16) -> i16 {
        let world = self.world();
        let victim = world.actor_at(target);
        if world.is_player(target) {
            let hide = world.growth().hide();
            match hide {
                0 => world.gear().soften(damage),
                _ => (world.gear().soften(damage) - hide).max(1),
            }
        } else if let Some(most) = victim.species().thick_hide() {
            damage.min(most)
        } else {
            damage
        }
    }

    fn perform_crash(&mut self, id: ActorId, knock_out: Option<u16>, obs: &mut impl Observer) {
        self.change(
            Change::Charge {
                actor: id,
                dir: None,
            },
            obs,
        );
        if let Some(turns) = knock_out {
            self.change(Change::KnockOut { actor: id, turns }, obs);
            let at = self.world().actor_at(id).pos();
            self.say_seen(at, Msg::Stunned, obs);
        }
    }

    fn perform_lay_egg(&mut self, at: Pos, obs: &mut impl Observer) {
        self.perform_spawn(Species::SpiderEgg, at, obs);
        self.say_seen(at, Msg::EggLaid, obs);
    }

    /// The egg opens: a spider on every empty neighbouring cell.
    fn perform_hatch(&mut self, id: ActorId, obs: &mut impl Observer) {
        let at = self.world().actor_at(id).pos();
        self.change(Change::Vanish { actor: id }, obs);
        let most = self.world().rules().brood().hatched();
        let mut spiders = 0;
        for dir in Direction::ALL {
            let cell = at.step(dir);
            if spiders < most && self.world().map().is_free(cell) {
                self.perform_spawn(Species::Spider, cell, obs);
                spiders += 1;
            }
        }
        self.say_seen(at, Msg::Hatched { spiders }, obs);
    }

    /// A locust swarm struck and not killed splits: half its hit points (rounded down) fly
    /// off as a new swarm onto the first free cell about it in the compass's order, awake
    /// and hunting. A swarm of one hit point, one with no free cell beside it, or one on
    /// a level that holds `SWARMS_MOST` swarms already stays whole.
    fn perform_split(&mut self, id: ActorId, obs: &mut impl Observer) {
        let world = self.world();
        let me = world.actor_at(id);
        let (at, half) = (me.pos(), me.hp() / 2);
        let swarms = world
            .actors()
            .filter(|(_, a)| a.is_present() && a.species() == Species::Locusts)
            .count();
        let cell = Direction::ALL
            .into_iter()
            .map(|d| at.step(d))
            .find(|&p| world.map().is_free(p));
        let Some(cell) = cell.filter(|_| half > 0 && swarms < SWARMS_MOST) else {
            return;
        };
        let new = ActorId(world.actor_count() as u32);
        self.perform_spawn(Species::Locusts, cell, obs);
        let shed = Species::Locusts.max_hp() - half;
        self.change(
            Change::Hurt {
                actor: new,
                amount: shed,
            },
            obs,
        );
        self.change(
            Change::Hurt {
                actor: id,
                amount: half,
            },
            obs,
        );
        self.say_seen(at, Msg::Split(Species::Locusts), obs);
    }

    fn perform_spawn(&mut self, species: Species, at: Pos, obs: &mut impl Observer) {
        let spawn = Change::Spawn {
            actor: ActorId(self.world().actor_count() as u32),
            species,
            behaviour: Behaviour::Natural,
            stats: species.stats(),
            at,
        };
        self.change(spawn, obs);
    }

    /// A blow: its damage, and a venomous attacker's poison if the victim lives.
    fn perform_attack(
        &mut self,
        species: Species,
        target: ActorId,
        damage: i16,
        obs: &mut impl Observer,
    ) {
        let damage = self.felt(target, damage);
        self.perform_hurt(target, damage, Some(species), obs);
        let Some(turns) = species.venom() else {
            return;
        };
        if self.world().actor_at(target).is_present() {
            let poison = Change::Condition {
                actor: target,
                condition: Condition::Poisoned,
                turns,
            };
            self.change(poison, obs);
            if self.world().is_player(target) {
                self.say(Msg::Poisoned, obs);
            }
        }
    }

    /// Damage, and death when hit points run out.
    pub(crate) fn perform_hurt(
        &mut self,
        target: ActorId,
        amount: i16,
        by: Option<Species>,
        obs: &mut impl Observer,
    ) {
        self.perform_wound(target, amount, by, true, obs);
    }

    /// A hit point lost to `harm`, which no creature deals. Told, poison's with its
    /// amount (thirst's own message already says it), and a death it brings named for it,
    /// under `Rules::harms_told`; before, poison hurt without a word and the death was
    /// only "You die."
    fn perform_harm(&mut self, id: ActorId, harm: Harm, obs: &mut impl Observer) {
        const HARM: i16 = 1;
        let told = self.world().rules().harms_told() && self.world().is_player(id);
        if told && harm == Harm::Poison {
            self.say(Msg::Burns { damage: HARM }, obs);
        }
        self.perform_hurt(id, HARM, None, obs);
        let dead = self.world().outcome() == Some(Outcome::Died);
        if told && dead {
            self.say(Msg::Perished(harm), obs);
        }
    }

    /// Damage, told as a blow by `by` if `blow` (a missile's is told as the missile's
    /// own), and death when hit points run out.
    fn perform_wound(
        &mut self,
        target: ActorId,
        amount: i16,
        by: Option<Species>,
        blow: bool,
        obs: &mut impl Observer,
    ) {
        let world = self.world();
        let victim = world.actor_at(target).species();
        // What touches the camel it knows of; blows between creatures only if it sees them.
        let felt = world.is_player(target) || by == Some(Species::Camel);
        let told = felt || hears_of(world, world.actor_at(target).pos());
        self.change(
            Change::Hurt {
                actor: target,
                amount,
            },
            obs,
        );
        if let (Some(attacker), true) = (by, told && blow) {
            self.say(
                Msg::Hit {
                    attacker,
                    target: victim,
                    damage: amount,
                },
                obs,
            );
        }
        let hurt = self.world().actor_at(target);
        if hurt.hp() > 0 {
            if matches!(hurt.behaviour(), Behaviour::Asleep | Behaviour::Slumber) {
                self.perform_wake(target, obs);
            }
            if victim == Species::Locusts {
                self.perform_split(target, obs);
            }
            return;
        }
        if let Some(item) = self.world().loot_of(target) {
            let at = self.world().actor_at(target).pos();
            let thief = victim;
            self.change(
                Change::LetFall {
                    thief: target,
                    item,
                    at,
                },
                obs,
            );
            self.say_seen(at, Msg::LetFall { thief, item }, obs);
        }
        self.change(Change::Die { actor: target, by }, obs);
        if self.world().is_player(target) {
            // A death no creature dealt is told by `perform_harm`, naming its cause,
            // where the rules tell harms.
            if by.is_some() || !self.world().rules().harms_told() {
                self.say(Msg::Died { by }, obs);
            }
            self.change(Change::End(Outcome::Died), obs);
        } else {
            if let (Some(attacker), true) = (by, told) {
                self.say(
                    Msg::Killed {
                        attacker,
                        target: victim,
                    },
                    obs,
                );
            }
            self.perform_vigour(by, victim, obs);
        }
    }

    /// A camel grown vigorous (`Boon::Vigour`) takes hit points back from its kill; under
    /// `Rules::brood_gives_no_vigour`, not from a spider or an egg, which a nest breeds
    /// without end.
    fn perform_vigour(&mut self, by: Option<Species>, victim: Species, obs: &mut impl Observer) {
        let world = self.world();
        let (vigour, camel) = (world.growth().vigour(), world.player_id());
        let Some(camel) = camel.filter(|_| vigour > 0 && by == Some(Species::Camel)) else {
            return;
        };
        // Asked only of a vigorous camel's kill: most deaths in a long game are spiders'.
        let brood = matches!(victim, Species::Spider | Species::SpiderEgg);
        if brood && world.rules().brood_gives_no_vigour() {
            return;
        }
        if !victim.hunts() && world.rules().vigour_only_from_hunters() {
            return;
        }
        let me = world.actor_at(camel);
        if me.is_present() && me.hp() < me.max_hp() {
            self.perform_heal(camel, vigour, obs);
        }
    }
}

/// Whether a hidden sleeper lies within `STIR_REACH` of `at`: the tell that warns the
/// camel of a sandworm it cannot see. The 25 cells about the camel are looked at, not
/// every creature of a level that may hold a brood of hundreds. The map names a hidden
/// sleeper in every version, even those where a hunter could step onto a taken cell
/// (`Rules::hunters_step_only_onto_free_cells`): it has lain where the level put it since,
/// on a cell the camel never stood on, so no hunter's trail ever ended there.
fn stirring_near(world: &World, at: Pos) -> bool {
    if !world.rules().bestiary().has_sleepers() {
        return false;
    }
    let reach = STIR_REACH as i16;
    let mut near = (-reach..=reach)
        .flat_map(|dy| (-reach..=reach).map(move |dx| Pos::new(at.x + dx, at.y + dy)));
    near.any(|p| {
        world
            .map()
            .occupant(p)
            .is_some_and(|id| world.is_hidden(id))
    })
}

/// Whether the camel hears of what happens at `at`: only if it sees it (with no camel, as
/// in a scenario, everything is told), since rules version 3; before, of everything.
fn hears_of(world: &World, at: Pos) -> bool {
    !world.rules().told_only_what_is_seen() || world.player().is_none() || world.sees(at)
}
