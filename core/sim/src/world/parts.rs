//! A world from its parts: how a decoded state's world is built, and the rules it must
//! keep. A world made by applying changes keeps them by construction; one decoded from a
//! damaged or crafted snapshot keeps them only because they are checked here, once, so
//! that folding on from it never meets an index out of bounds, a count that overflows or
//! a camel that never gets a turn. Each rule says what relies on it.

use std::collections::{BTreeMap, VecDeque};

use super::{Actor, Conditions, Outcome, World};
use crate::action::Action;
use crate::bags::Bags;
use crate::clocks::Clocks;
use crate::consistency::{Inconsistency, MOST_COUNT};
use crate::energy::{Clock, Energy, Stats};
use crate::gear::Gear;
use crate::geometry::{Direction, Pos};
use crate::ids::{ActorId, Tick};
use crate::item::{Item, Mycology};
use crate::level::grounds::Ground;
use crate::lore::{Growth, Lore};
use crate::map::{Map, Terrain};
use crate::message::MessageLog;
use crate::rules::Rules;
use crate::sight::CellSet;
use crate::species::{Behaviour, Species};
use crate::tape::{Ruleset, TimeModel, TurnOrder};

/// The most hit points an actor may have, far above any creature's (the camel has 30).
/// With hit points between its negative and itself, no blow or meal overflows them.
const MOST_HP: i16 = 1_000;

/// The most items the floor and the bags may hold together. A game holds about a hundred
/// (a dozen a level); a stack counts to `u16::MAX`, and every item could end up in one.
const MOST_ITEMS: usize = 10_000;

/// The most actions an actor may have taken: a count (`u32`) that can go on.
const MOST_TURNS: u32 = 1 << 31;

/// Everything a world holds: how `encoding` gives back a world it decoded, the one way
/// to make a world other than applying changes to an empty one.
pub(crate) struct WorldParts {
    pub(crate) rules: Rules,
    pub(crate) tick: Tick,
    pub(crate) actors: Vec<ActorParts>,
    pub(crate) names: BTreeMap<ActorId, String>,
    pub(crate) order: Vec<ActorId>,
    pub(crate) order_stale: bool,
    pub(crate) unrolled: VecDeque<ActorId>,
    pub(crate) map: Map,
    pub(crate) depth: u8,
    pub(crate) floor: Vec<(Pos, Item)>,
    pub(crate) bags: Bags,
    pub(crate) mycology: Mycology,
    pub(crate) player: Option<ActorId>,
    pub(crate) messages: MessageLog,
    pub(crate) outcome: Option<Outcome>,
    pub(crate) explored: CellSet,
    pub(crate) kills: u32,
    pub(crate) water: u16,
    pub(crate) gear: Gear,
    pub(crate) lore: Lore,
    pub(crate) growth: Growth,
    pub(crate) ground: Ground,
    pub(crate) loot: BTreeMap<ActorId, Item>,
}

/// Everything an actor holds, as `WorldParts` holds it, with what its clock keeps that
/// cannot be worked out again (its energy, turns and dash).
pub(crate) struct ActorParts {
    pub(crate) species: Species,
    pub(crate) behaviour: Behaviour,
    pub(crate) pos: Pos,
    pub(crate) stats: Stats,
    pub(crate) energy: Energy,
    pub(crate) turns: u32,
    pub(crate) dashing: bool,
    pub(crate) hp: i16,
    pub(crate) max_hp: i16,
    pub(crate) initiative: u32,
    pub(crate) present: bool,
    pub(crate) knocked_out: u16,
    pub(crate) charging: Option<Direction>,
    pub(crate) conditions: Conditions,
    pub(crate) waiting: Option<Action>,
    pub(crate) last_seen: Option<Pos>,
}

impl World {
    /// The world `parts` describe, or the first rule it breaks (a damaged snapshot that
    /// still parses). What it sees is worked out again, and each clock from its stats.
    pub(crate) fn from_parts(parts: WorldParts) -> Result<World, Inconsistency> {
        let WorldParts {
            rules,
            tick,
            actors: parts,
            names,
            order,
            order_stale,
            unrolled,
            map,
            depth,
            floor,
            bags,
            mycology,
            player,
            messages,
            outcome,
            explored,
            kills,
            water,
            gear,
            lore,
            growth,
            ground,
            loot,
        } = parts;
        check_rules(rules.ruleset())?;
        map.check()?;
        // Sight is added to what was explored word by word, and both are read by the map's
        // positions.
        if !explored.covers(&map) {
            return Err(Inconsistency::Explored);
        }
        messages.check()?;
        bags.check()?;
        let (actors, clocks): (Vec<Actor>, Vec<Clock>) = parts
            .into_iter()
            .map(|a| a.build(rules.ruleset().time))
            .collect::<Result<Vec<_>, _>>()?
            .into_iter()
            .unzip();
        let clocks = Clocks::new(clocks, &order).ok_or(Inconsistency::TurnOrder)?;
        let mut world = World {
            rules,
            tick,
            actors,
            clocks,
            names,
            order,
            order_stale,
            unrolled,
            map,
            depth,
            floor,
            bags,
            mycology,
            player,
            messages,
            outcome,
            sight: CellSet::default(),
            explored,
            kills,
            water,
            gear,
            lore,
            growth,
            ground,
            loot,
        };
        world.check()?;
        for i in 0..world.actors.len() {
            world.recheck_idle(ActorId(i as u32));
        }
        world.sight = CellSet::empty(&world.map);
        world.compute_sight();
        Ok(world)
    }

    /// The rules that tie the world's parts together, once each part is sound alone.
    fn check(&self) -> Result<(), Inconsistency> {
        self.check_player()?;
        self.check_actors()?;
        self.check_occupants()?;
        self.check_ids()?;
        self.check_items()?;
        self.check_counts()
    }

    /// The camel. A game has one from its first level on (before it, nothing at all),
    /// and it is the one actor that asks for commands: the machine stops for a command at
    /// whoever behaves as the player, and `validate` takes commands only for the camel.
    /// It is gone exactly when it died: gone from a game that goes on, it would never act
    /// again and the others would tick on for ever; for the same reason it must be able to
    /// gather the energy to act. Once it has arrived, the depth is one of the game's.
    fn check_player(&self) -> Result<(), Inconsistency> {
        let plays = |a: &Actor| a.behaviour == Behaviour::Player;
        let Some(id) = self.player else {
            if !self.actors.is_empty() {
                return Err(Inconsistency::Player);
            }
            return (self.depth == 0).then_some(()).ok_or(Inconsistency::Depth);
        };
        let camel = self.actors.get(id.index()).ok_or(Inconsistency::Player)?;
        let mut others = self
            .actors
            .iter()
            .enumerate()
            .filter(|&(i, _)| i != id.index());
        if camel.species != Species::Camel || !plays(camel) || others.any(|(_, a)| plays(a)) {
            return Err(Inconsistency::Player);
        }
        if camel.present == (self.outcome == Some(Outcome::Died)) {
            return Err(Inconsistency::PlayerGone);
        }
        if !self.time().ever_ready(&camel.stats) {
            return Err(Inconsistency::Stalled);
        }
        if !(1..=self.rules.crossing().deepest()).contains(&self.depth) {
            return Err(Inconsistency::Depth);
        }
        Ok(())
    }

    /// Each actor on its own. One that is there stands on the map (its position indexes
    /// the map's cells; sight and searches start from it) and has hit points left (at 0 it
    /// would have died). Hit points stay within `MOST_HP` either side, so that no blow or
    /// meal overflows them. What a hunter there remembers is on the map (it walks there,
    /// and measures its flight from it). What an actor keeps for later is carried out as
    /// it was decided, unchecked: it names actors that exist, rolls damage a die could,
    /// and, for an actor still there, only cells of the map (a gone actor's lay on the
    /// level it left).
    fn check_actors(&self) -> Result<(), Inconsistency> {
        let most_damage = most_damage() + self.growth.kick_bonus().max(self.growth.throw_bonus());
        let on_map = |pos: Pos| self.map.contains(pos);
        for a in &self.actors {
            if a.present && !on_map(a.pos) {
                return Err(Inconsistency::OutsideMap);
            }
            let hp = (1..=MOST_HP).contains(&a.max_hp)
                && (-MOST_HP..=a.max_hp).contains(&a.hp)
                && (a.hp > 0 || !a.present);
            if !hp {
                return Err(Inconsistency::HitPoints);
            }
            if let Some(action) = a.waiting {
                let target = action.target();
                let kept = target.is_none_or(|t| t.index() < self.actors.len())
                    && action
                        .damage()
                        .is_none_or(|d| (0..=most_damage).contains(&d))
                    && (!a.present || action.cell().is_none_or(on_map));
                if !kept {
                    return Err(Inconsistency::KeptAction);
                }
            }
            if a.present && a.last_seen.is_some_and(|at| !on_map(at)) {
                return Err(Inconsistency::LastSeen);
            }
            if a.behaviour == Behaviour::Ally && !self.rules.allies() {
                return Err(Inconsistency::Ally);
            }
        }
        Ok(())
    }

    /// The map's occupants are exactly the actors there, each on the cell that names it:
    /// a move clears the cell it leaves, attacks find their target by the cell, and an
    /// occupant that is not there would block its cell, or be attacked, for ever. Before
    /// rules version 8 a hunter could step onto a taken cell
    /// (`Rules::hunters_step_only_onto_free_cells`), leaving an actor there the map does
    /// not name: those versions' games reach such states, so their snapshots may hold them.
    fn check_occupants(&self) -> Result<(), Inconsistency> {
        let mut named = 0;
        for (pos, id) in self.map.occupants() {
            let there = self.actor(id).is_some_and(|a| a.present && a.pos == pos);
            if !there {
                return Err(Inconsistency::Occupants);
            }
            named += 1;
        }
        // An actor stands on one cell, so the named cells name distinct actors, every one
        // there: all of them exactly when the counts agree.
        if named != self.actors().count() && self.rules.hunters_step_only_onto_free_cells() {
            return Err(Inconsistency::Occupants);
        }
        Ok(())
    }

    /// The ids the world keeps name actors (the turn order's are checked as the clocks are
    /// laid out in it, `Clocks::new`). Scenario names name actors. Newcomers waiting for
    /// their initiative are actors there, each once, and only under the rules that draw
    /// initiatives: each is drawn for once, for an actor in the game. A turn order said to
    /// be up to date holds every actor there: it is rebuilt only when stale, and an actor
    /// left out (the camel) would never act again.
    fn check_ids(&self) -> Result<(), Inconsistency> {
        let count = self.actors.len();
        if self.names.keys().any(|id| id.index() >= count) {
            return Err(Inconsistency::UnknownActor);
        }
        let mut waiting = vec![false; count];
        for id in &self.unrolled {
            let actor = self.actor(*id).ok_or(Inconsistency::UnknownActor)?;
            if !actor.present || std::mem::replace(&mut waiting[id.index()], true) {
                return Err(Inconsistency::Unrolled);
            }
        }
        if !self.unrolled.is_empty() && self.rules.ruleset().order != TurnOrder::Initiative {
            return Err(Inconsistency::Unrolled);
        }
        if !self.order_stale {
            let mut ordered = vec![false; count];
            for id in &self.order {
                ordered[id.index()] = true;
            }
            if self.actors().any(|(id, _)| !ordered[id.index()]) {
                return Err(Inconsistency::StaleOrder);
            }
        }
        Ok(())
    }

    /// Items on the floor lie on the map (it is drawn cell by cell). The floor and the
    /// bags together hold few enough that no stack can count past `u16::MAX`: items only
    /// move between the two, and each new level brings a dozen.
    fn check_items(&self) -> Result<(), Inconsistency> {
        if self.floor.iter().any(|&(at, _)| !self.map.contains(at)) {
            return Err(Inconsistency::FloorOutsideMap);
        }
        if self.floor.len() + self.bags.count() as usize + self.loot.len() > MOST_ITEMS {
            return Err(Inconsistency::Items);
        }
        // A thief carries until it dies or goes, and only under the rules that have
        // thieves: loot of an actor not there would never fall.
        let carried = |id: &ActorId| self.actor(*id).is_some_and(|a| a.present);
        if !self.loot.is_empty() && (!self.rules.thieves() || !self.loot.keys().all(carried)) {
            return Err(Inconsistency::Loot);
        }
        self.check_places()
    }

    /// Locked doors and their keys came with places (`Rules::places`): an older
    /// version's state holding either is damaged, and would play by rules its version
    /// never had.
    fn check_places(&self) -> Result<(), Inconsistency> {
        if self.rules.places() {
            return Ok(());
        }
        let locked = self
            .map
            .cells()
            .any(|p| self.map.terrain(p) == Terrain::DoorLocked);
        let key = self.floor.iter().any(|&(_, item)| item == Item::Key)
            || self.bags.find(Item::Key).is_some();
        if locked || key {
            return Err(Inconsistency::Places);
        }
        Ok(())
    }

    /// The tick can go on counting, the camel has killed no more creatures than there
    /// have been (each dies once), its waterskin holds no more than it can (a sip more
    /// would be lost, not kept), and each flask's look and each scarab's stone names a
    /// kind of its own (two of one kind would leave one never to be learnt).
    fn check_counts(&self) -> Result<(), Inconsistency> {
        if self.tick.0 > MOST_COUNT {
            return Err(Inconsistency::Count);
        }
        if self.kills as usize > self.actors.len() {
            return Err(Inconsistency::Kills);
        }
        if self.water > self.growth.waterskin() {
            return Err(Inconsistency::Water);
        }
        if !self.lore.is_sound() {
            return Err(Inconsistency::Lore);
        }
        if !self.growth.offers().is_sound() {
            return Err(Inconsistency::Offers);
        }
        Ok(())
    }
}

impl ActorParts {
    /// The actor and its clock, worked out from its stats once the rules are known to
    /// count with them (`TimeModel::counts_with`). Energy is clipped to the most the actor
    /// can hold whenever it gains and is only spent otherwise; more, and a tick would let
    /// it act more often than any rules do. Its turns can go on counting. A gone actor's
    /// clock is stopped.
    fn build(self, time: TimeModel) -> Result<(Actor, Clock), Inconsistency> {
        if !time.counts_with(&self.stats) {
            return Err(Inconsistency::Stats);
        }
        if self.energy.0 > time.peak(&self.stats) {
            return Err(Inconsistency::Energy);
        }
        if self.turns > MOST_TURNS {
            return Err(Inconsistency::Count);
        }
        let mut clock = time.clock(&self.stats);
        clock.energy = self.energy;
        clock.turns = self.turns;
        clock.dashing = self.dashing;
        let clock = if self.present { clock } else { clock.stopped() };
        let actor = Actor {
            species: self.species,
            behaviour: self.behaviour,
            pos: self.pos,
            stats: self.stats,
            hp: self.hp,
            max_hp: self.max_hp,
            initiative: self.initiative,
            present: self.present,
            knocked_out: self.knocked_out,
            charging: self.charging,
            conditions: self.conditions,
            waiting: self.waiting,
            last_seen: self.last_seen,
        };
        Ok((actor, clock))
    }
}

/// The rules must let a camel act, as `Rules::of` asks of a tape's: a camel
/// arrives with its species' stats, and the game would tick on for ever waiting for one
/// that could not.
fn check_rules(ruleset: Ruleset) -> Result<(), Inconsistency> {
    let camel = Species::Camel.stats();
    let time = ruleset.time;
    let sound = time.counts_with(&camel) && time.ever_ready(&camel);
    sound.then_some(()).ok_or(Inconsistency::Rules)
}

/// The most damage any blow or missile deals.
fn most_damage() -> i16 {
    let blows = Species::ALL.map(|s| s.damage().1);
    let missiles = [Item::Stone, Item::Spear, Item::Javelin].map(|i| i.thrown_damage().1);
    let most = blows.into_iter().chain(missiles).max().unwrap_or(0);
    i16::try_from(most).unwrap_or(i16::MAX)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::desert::WATERSKIN;
    use crate::encoding::testing::{damaged, game, played, refusal};
    use crate::item::{Charm, Draught};
    use crate::lore::Lore;
    use crate::rules::Rules;
    use crate::state::State;
    use crate::tape::TimeModel;

    /// A creature still there, by its index among the world's actors.
    fn creature(state: &State) -> usize {
        let world = state.world();
        let (id, _) = world
            .actors()
            .find(|&(id, _)| !world.is_player(id))
            .unwrap();
        id.index()
    }

    fn refused(damage: impl FnOnce(&mut WorldParts)) -> Inconsistency {
        refusal(&game(), |world, _| damage(world))
    }

    #[test]
    fn rules_under_which_a_camel_could_never_act_are_refused() {
        for (gain, threshold) in [(0, 100), (100, 201)] {
            let time = TimeModel::Classic { gain, threshold };
            let refused = refusal(&played(Ruleset::CLASSIC, 5), |w, _| {
                w.rules = Rules::newest(Ruleset {
                    time,
                    ..Ruleset::CLASSIC
                })
            });
            assert_eq!(
                refused,
                Inconsistency::Rules,
                "gain {gain}, threshold {threshold}"
            );
        }
    }

    #[test]
    fn a_map_its_cells_do_not_fill_and_explored_cells_of_another_map_are_refused() {
        let refused_map = refused(|w| w.map = Map::filled(0, 40, crate::map::Terrain::Sand));
        assert_eq!(refused_map, Inconsistency::MapSize);
        assert_eq!(
            refused(|w| w.explored = CellSet::default()),
            Inconsistency::Explored
        );
    }

    #[test]
    fn stats_the_rules_cannot_count_with_are_refused() {
        let state = game();
        let snake = creature(&state);
        for speed in [0, 385] {
            let stats = |w: &mut WorldParts, _: &mut _| w.actors[snake].stats.speed = speed;
            assert_eq!(
                refusal(&state, stats),
                Inconsistency::Stats,
                "speed {speed}"
            );
        }
        let classic = played(Ruleset::CLASSIC, 5);
        let id = creature(&classic);
        let free = |w: &mut WorldParts, _: &mut _| w.actors[id].stats.move_cost = 0;
        assert_eq!(refusal(&classic, free), Inconsistency::Stats);
    }

    #[test]
    fn more_energy_than_an_actor_can_hold_is_refused() {
        let peak = TimeModel::Nethack.peak(&Species::Camel.stats());
        let refused = refused(|w| w.actors[0].energy = Energy(peak + 1));
        assert_eq!(refused, Inconsistency::Energy);
    }

    #[test]
    fn counts_about_to_overflow_are_refused() {
        let turns = refused(|w| w.actors[0].turns = MOST_TURNS + 1);
        assert_eq!(turns, Inconsistency::Count);
        let tick = refused(|w| w.tick = Tick(MOST_COUNT + 1));
        assert_eq!(tick, Inconsistency::Count);
        let kills = refused(|w| w.kills = w.actors.len() as u32 + 1);
        assert_eq!(kills, Inconsistency::Kills);
        let water = refused(|w| w.water = WATERSKIN + 1);
        assert_eq!(water, Inconsistency::Water);
        let deeper = |w: &mut WorldParts| {
            w.growth.grow(crate::lore::Boon::Deeper);
            w.water = WATERSKIN + 1;
        };
        assert!(damaged(&game(), |w, _| deeper(w)).is_ok());
        let twice = refused(|w| w.lore = Lore::new([Draught::Sweet; 3], Charm::ALL));
        assert_eq!(twice, Inconsistency::Lore);
    }

    #[test]
    fn a_game_without_its_one_camel_playing_is_refused() {
        let state = game();
        let other = creature(&state);
        let damages: [&dyn Fn(&mut WorldParts); 5] = [
            &|w| w.player = None,
            &|w| w.player = Some(ActorId(other as u32)),
            &|w| w.player = Some(ActorId(9_999)),
            &|w| w.actors[0].species = Species::Snake,
            &|w| w.actors[other].behaviour = Behaviour::Player,
        ];
        for (i, damage) in damages.into_iter().enumerate() {
            let refused = refusal(&state, |w, _| damage(w));
            assert_eq!(refused, Inconsistency::Player, "damage {i}");
        }
    }

    #[test]
    fn a_camel_gone_from_a_game_that_goes_on_is_refused() {
        let refused = refused(|w| {
            let camel = &mut w.actors[0];
            camel.present = false;
            camel.hp = 0;
        });
        assert_eq!(refused, Inconsistency::PlayerGone);
    }

    #[test]
    fn a_camel_that_never_gains_the_energy_to_act_is_refused() {
        // Under classic rules a camel acts at its move cost, and holds at most its max.
        let refused = refusal(&played(Ruleset::CLASSIC, 5), |w, _| {
            let camel = &mut w.actors[0];
            camel.stats.max_energy = 99;
            camel.energy = Energy(0);
        });
        assert_eq!(refused, Inconsistency::Stalled);
    }

    #[test]
    fn a_depth_that_is_not_a_level_of_the_game_is_refused() {
        let deepest = Rules::newest(Ruleset::NETHACK).crossing().deepest();
        for depth in [0, deepest + 1] {
            assert_eq!(refused(|w| w.depth = depth), Inconsistency::Depth);
        }
        // Before its first level, a game is at depth 0 and has no one in it.
        let genesis = State::new(Rules::newest(Ruleset::NETHACK), &mut ());
        assert_eq!(refusal(&genesis, |w, _| w.depth = 1), Inconsistency::Depth);
    }

    #[test]
    fn an_actor_outside_the_map_or_the_map_naming_others_than_its_actors_is_refused() {
        let state = game();
        let snake = creature(&state);
        let outside = |w: &mut WorldParts, _: &mut _| w.actors[snake].pos = Pos::new(-1, 3);
        assert_eq!(refusal(&state, outside), Inconsistency::OutsideMap);
        let at = state.world().actor_at(ActorId(snake as u32)).pos();
        let free = state
            .world()
            .map()
            .cells()
            .find(|&p| state.world().map().is_free(p));
        let damages: [&dyn Fn(&mut WorldParts); 4] = [
            // Its cell names nobody, or someone else.
            &|w| w.map.set_occupant(at, None),
            &|w| w.map.set_occupant(at, Some(ActorId(0))),
            // It stands elsewhere than its cell says.
            &|w| w.actors[snake].pos = free.unwrap(),
            // An empty cell names it too.
            &|w| {
                w.map
                    .set_occupant(free.unwrap(), Some(ActorId(snake as u32)))
            },
        ];
        for (i, damage) in damages.into_iter().enumerate() {
            let refused = refusal(&state, |w, _| damage(w));
            assert_eq!(refused, Inconsistency::Occupants, "damage {i}");
        }
        let gone = |w: &mut WorldParts, _: &mut _| w.actors[snake].present = false;
        assert_eq!(refusal(&state, gone), Inconsistency::Occupants);
    }

    /// A game under rules version `v`, some way in.
    fn played_under(v: u16) -> State {
        let rules = Rules::new(
            crate::rules::RulesVersion::kept(v).unwrap(),
            Ruleset::NETHACK,
        );
        let mut game = crate::drive::LiveTape::new(rules, 11);
        crate::bot::Bot::new(3).play(&mut game, 60).unwrap();
        game.state().clone()
    }

    /// A present actor its cell does not name is a state versions before 8 reach
    /// (`Rules::hunters_step_only_onto_free_cells`): their snapshots may hold it; a
    /// newer snapshot holding it is damaged.
    #[test]
    fn an_actor_no_cell_names_is_refused_only_from_version_8() {
        let unnamed = |state: &State| {
            let at = state
                .world()
                .actor_at(ActorId(creature(state) as u32))
                .pos();
            damaged(state, |w, _| w.map.set_occupant(at, None)).map(|_| ())
        };
        for v in 2..=7 {
            assert_eq!(unnamed(&played_under(v)), Ok(()), "version {v}");
        }
        assert_eq!(unnamed(&game()), Err(Inconsistency::Occupants));
    }

    /// Locked doors and keys came in version 9: an older state holding either is
    /// damaged.
    #[test]
    fn a_locked_door_or_a_key_is_refused_before_version_9() {
        let state = played_under(8);
        let camel = state.world().player().unwrap().pos();
        let door = |w: &mut WorldParts, _: &mut _| w.map.set_terrain(camel, Terrain::DoorLocked);
        assert_eq!(refusal(&state, door), Inconsistency::Places);
        let key = |w: &mut WorldParts, _: &mut _| w.floor.push((camel, Item::Key));
        assert_eq!(refusal(&state, key), Inconsistency::Places);
        let carried = |w: &mut WorldParts, _: &mut _| w.bags = Bags::of(&[Item::Key]);
        assert_eq!(refusal(&state, carried), Inconsistency::Places);
        let newer = game();
        let far = Pos::new(0, 0);
        let door = |w: &mut WorldParts, _: &mut _| w.map.set_terrain(far, Terrain::DoorLocked);
        assert!(damaged(&newer, door).is_ok());
        let key = |w: &mut WorldParts, _: &mut _| w.floor.push((far, Item::Key));
        assert!(damaged(&newer, key).is_ok());
    }

    /// Allies came in version 8: an older state holding one is damaged.
    #[test]
    fn an_ally_is_refused_before_version_8() {
        let tame = |state: &State| {
            let creature = creature(state);
            damaged(state, |w, _| w.actors[creature].behaviour = Behaviour::Ally).map(|_| ())
        };
        assert_eq!(tame(&played_under(7)), Err(Inconsistency::Ally));
        assert_eq!(tame(&game()), Ok(()));
    }

    #[test]
    fn hit_points_out_of_bounds_are_refused() {
        let damages: [&dyn Fn(&mut ActorParts); 4] = [
            &|a| a.hp = 0,
            &|a| a.hp = a.max_hp + 1,
            &|a| a.max_hp = 0,
            &|a| (a.max_hp, a.hp) = (MOST_HP + 1, MOST_HP + 1),
        ];
        for (i, damage) in damages.into_iter().enumerate() {
            let refused = refused(|w| damage(&mut w.actors[0]));
            assert_eq!(refused, Inconsistency::HitPoints, "damage {i}");
        }
    }

    #[test]
    fn a_kept_action_off_the_map_at_no_one_or_beyond_any_roll_is_refused() {
        let state = game();
        let snake = creature(&state);
        let kept = [
            Action::Step {
                to: Pos::new(200, 3),
            },
            Action::Attack {
                target: ActorId(9_999),
                damage: 1,
            },
            Action::Attack {
                target: ActorId(0),
                damage: i16::MIN,
            },
            Action::Ram {
                target: ActorId(0),
                damage: 100,
            },
            Action::Throw {
                slot: crate::Slot(0),
                lands: Pos::new(3, -1),
                hit: None,
            },
        ];
        for action in kept {
            let keep = |w: &mut WorldParts, _: &mut _| w.actors[snake].waiting = Some(action);
            assert_eq!(
                refusal(&state, keep),
                Inconsistency::KeptAction,
                "{action:?}"
            );
        }
        let sound = Action::Attack {
            target: ActorId(0),
            damage: most_damage(),
        };
        let keep = |w: &mut WorldParts, _: &mut _| w.actors[snake].waiting = Some(sound);
        assert!(damaged(&state, keep).is_ok());
    }

    #[test]
    fn a_memory_of_the_camel_off_the_map_is_refused() {
        let state = game();
        let snake = creature(&state);
        let memory =
            |w: &mut WorldParts, _: &mut _| w.actors[snake].last_seen = Some(Pos::new(64, 0));
        assert_eq!(refusal(&state, memory), Inconsistency::LastSeen);
    }

    #[test]
    fn items_off_the_map_or_more_than_a_game_counts_are_refused() {
        let outside = refused(|w| w.floor.push((Pos::new(0, 40), Item::Date)));
        assert_eq!(outside, Inconsistency::FloorOutsideMap);
        let heap = refused(|w| w.floor.extend([(Pos::new(1, 1), Item::Stone); MOST_ITEMS]));
        assert_eq!(heap, Inconsistency::Items);
    }

    #[test]
    fn ids_naming_no_actor_and_initiatives_awaited_twice_or_for_no_one_are_refused() {
        let name = refused(|w| {
            w.names.insert(ActorId(9_999), "ghost".into());
        });
        assert_eq!(name, Inconsistency::UnknownActor);
        let unknown = refused(|w| w.unrolled.push_back(ActorId(9_999)));
        assert_eq!(unknown, Inconsistency::UnknownActor);
        let state = game();
        let snake = creature(&state);
        let twice = |w: &mut WorldParts, _: &mut _| {
            w.unrolled
                .extend([ActorId(snake as u32), ActorId(snake as u32)])
        };
        assert_eq!(refusal(&state, twice), Inconsistency::Unrolled);
        // The bot's game played on until one of its creatures is gone.
        let has_gone = |s: &State| s.world().actor_count() > s.world().actors().count();
        let state = (1..20)
            .map(|n| played(Ruleset::NETHACK, 60 * n))
            .find(has_gone)
            .expect("the game has a gone actor");
        let gone = (0..state.world().actor_count() as u32)
            .map(ActorId)
            .find(|&id| !state.world().actor_at(id).is_present())
            .unwrap();
        let for_gone = |w: &mut WorldParts, _: &mut _| w.unrolled.push_back(gone);
        assert_eq!(refusal(&state, for_gone), Inconsistency::Unrolled);
        let weighted = Ruleset {
            order: TurnOrder::WeightedEachTick,
            ..Ruleset::NETHACK
        };
        let newcomer = |w: &mut WorldParts, _: &mut _| {
            w.rules = Rules::newest(weighted);
            w.unrolled.push_back(ActorId(0));
        };
        assert_eq!(refusal(&state, newcomer), Inconsistency::Unrolled);
    }

    #[test]
    fn an_order_said_to_be_up_to_date_that_leaves_out_an_actor_there_is_refused() {
        let state = game();
        // One after the camel in this tick's order, so that the camel keeps its slot.
        let order = state.world().turn_order();
        let camel = order.iter().position(|&id| state.world().is_player(id));
        let snake = *order[camel.unwrap() + 1..]
            .last()
            .expect("one after the camel");
        let stale = |w: &mut WorldParts, _: &mut _| {
            w.order.retain(|&id| id != snake);
            w.order_stale = true;
        };
        assert!(
            damaged(&state, stale).is_ok(),
            "rebuilt before the next tick"
        );
        let fresh = |w: &mut WorldParts, _: &mut _| {
            w.order.retain(|&id| id != snake);
            w.order_stale = false;
        };
        assert_eq!(refusal(&state, fresh), Inconsistency::StaleOrder);
    }
}
