//! The world the camel walks in: the map, the actors and their clocks, the items, the
//! messages. Its fields are private; reading is free, and the only code that changes it is
//! `apply`, one `Change` at a time.

mod apply;
mod parts;

use std::collections::{BTreeMap, VecDeque};

use serde::{Deserialize, Serialize};

use crate::action::Action;
use crate::bags::Bags;
use crate::clocks::Clocks;
use crate::desert::TimeOfDay;
use crate::energy::{Clock, Cost, Energy, Pace, Stats};
use crate::gear::Gear;
use crate::geometry::{Direction, Pos};
use crate::ids::{ActorId, Tick};
use crate::item::{unknown_name, Effect, Item, Mycology};
use crate::level::grounds::Ground;
use crate::lore::{Growth, Lore};
use crate::map::{Map, Terrain};
use crate::message::MessageLog;
use crate::rules::Rules;
use crate::sight::CellSet;
use crate::species::{Behaviour, Species};
use crate::tape::{Ruleset, TimeModel};

pub(crate) use apply::Bookkeeping;
pub use apply::Change;
pub(crate) use parts::{ActorParts, WorldParts};

/// A temporary condition: what a mushroom does to whoever eats it, for a number of turns.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
pub enum Condition {
    Haste,
    Slow,
    Confused,
    Poisoned,
}

impl Condition {
    /// In the order `Conditions` holds (and encodes) them.
    pub const ALL: [Condition; 4] = [
        Condition::Haste,
        Condition::Slow,
        Condition::Confused,
        Condition::Poisoned,
    ];

    /// What a creature with it is: "hasted", "poisoned".
    pub fn adjective(self) -> &'static str {
        match self {
            Condition::Haste => "hasted",
            Condition::Slow => "slowed",
            Condition::Confused => "confused",
            Condition::Poisoned => "poisoned",
        }
    }

    /// Whether it helps whoever has it.
    pub fn is_good(self) -> bool {
        self == Condition::Haste
    }

    /// The mushroom's effect that gives it.
    pub fn effect(self) -> Effect {
        match self {
            Condition::Haste => Effect::Haste,
            Condition::Slow => Effect::Slow,
            Condition::Confused => Effect::Confusion,
            Condition::Poisoned => Effect::Poison,
        }
    }
}

/// Turns left of each temporary condition; 0 means none.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Conditions([u16; 4]);

impl Conditions {
    #[inline]
    pub fn is_none(&self) -> bool {
        self.0 == [0; 4]
    }

    /// Turns left of `condition`.
    #[inline]
    pub fn left(&self, condition: Condition) -> u16 {
        self.0[condition as usize]
    }

    #[inline]
    pub fn has(&self, condition: Condition) -> bool {
        self.left(condition) > 0
    }

    /// Every condition with the turns it has left, in `Condition::ALL` order.
    pub fn each(&self) -> impl Iterator<Item = (Condition, u16)> + '_ {
        Condition::ALL.into_iter().map(|c| (c, self.left(c)))
    }

    fn set(&mut self, condition: Condition, turns: u16) {
        self.0[condition as usize] = turns;
    }

    fn run_down(&mut self, turns: u16) {
        for left in &mut self.0 {
            *left = left.saturating_sub(turns);
        }
    }
}

/// How a game ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum Outcome {
    Died,
    Won,
    Quit,
}

/// An actor; its energy, turns and dash are kept apart, in its `Clock` (see `clocks`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Actor {
    species: Species,
    behaviour: Behaviour,
    pos: Pos,
    stats: Stats,
    hp: i16,
    max_hp: i16,
    initiative: u32,
    /// False once dead or gone (hatched, left behind on an upper level).
    present: bool,
    knocked_out: u16,
    charging: Option<Direction>,
    conditions: Conditions,
    /// What it decided on and gathers strength for: it costs more energy than it had.
    waiting: Option<Action>,
    /// A hunter's memory: where it last saw the camel.
    last_seen: Option<Pos>,
}

impl Actor {
    fn new(species: Species, behaviour: Behaviour, pos: Pos, stats: Stats) -> Self {
        Actor {
            species,
            behaviour,
            pos,
            stats,
            hp: species.max_hp(),
            max_hp: species.max_hp(),
            initiative: 0,
            present: true,
            knocked_out: 0,
            charging: None,
            conditions: Conditions::default(),
            waiting: None,
            last_seen: None,
        }
    }

    #[inline]
    pub fn species(&self) -> Species {
        self.species
    }
    #[inline]
    pub fn behaviour(&self) -> Behaviour {
        self.behaviour
    }
    #[inline]
    pub fn pos(&self) -> Pos {
        self.pos
    }
    #[inline]
    pub fn stats(&self) -> Stats {
        self.stats
    }
    #[inline]
    pub fn hp(&self) -> i16 {
        self.hp
    }
    #[inline]
    pub fn max_hp(&self) -> i16 {
        self.max_hp
    }
    #[inline]
    pub fn initiative(&self) -> u32 {
        self.initiative
    }
    #[inline]
    pub fn is_present(&self) -> bool {
        self.present
    }
    #[inline]
    pub fn is_ally(&self) -> bool {
        self.behaviour == Behaviour::Ally
    }
    #[inline]
    pub fn knocked_out(&self) -> u16 {
        self.knocked_out
    }
    #[inline]
    pub fn charging(&self) -> Option<Direction> {
        self.charging
    }
    #[inline]
    pub fn conditions(&self) -> Conditions {
        self.conditions
    }
    /// The action it gathers strength for, if it decided on one it could not afford.
    #[inline]
    pub fn waiting(&self) -> Option<Action> {
        self.waiting
    }
    /// Where a hunter last saw the camel.
    pub fn last_seen(&self) -> Option<Pos> {
        self.last_seen
    }
}

/// How far off an ally the camel sees may be and still follow it down the stairs, under
/// `Rules::allies_follow_from_near`: a step beyond the two it keeps within
/// (`decide::ally::ALLY_KEEPS_WITHIN`), so that one keeping near is never left behind.
pub const FOLLOWS_FROM: u16 = 3;

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct World {
    rules: Rules,
    tick: Tick,
    /// Every actor that has been in the game; an `ActorId` is an index.
    actors: Vec<Actor>,
    /// Each actor's clock, found by the same index, laid out in turn order.
    clocks: Clocks,
    /// Names given by a scenario file; game actors go by their species.
    names: BTreeMap<ActorId, String>,
    /// This tick's turn order. Under `Initiative` it changes only when actors come or go.
    order: Vec<ActorId>,
    order_stale: bool,
    /// Actors that appeared and still need their initiative draw, oldest first.
    unrolled: VecDeque<ActorId>,
    map: Map,
    depth: u8,
    /// Items on the ground, in the order they came to lie there.
    floor: Vec<(Pos, Item)>,
    bags: Bags,
    mycology: Mycology,
    player: Option<ActorId>,
    messages: MessageLog,
    outcome: Option<Outcome>,
    /// The cells the camel sees now (worked out again whenever it moves, a door turns or
    /// a level is entered; not encoded, being a function of the rest).
    sight: CellSet,
    /// The cells of this level the camel has seen, and remembers.
    explored: CellSet,
    /// Creatures the camel has killed.
    kills: u32,
    /// Sips left in the camel's waterskin (rules version 6 on; 0 before, and unused).
    water: u16,
    /// What the camel wears (rules version 7 on; nothing before).
    gear: Gear,
    /// What the camel knows of flasks and scarabs (rules version 9 on).
    lore: Lore,
    /// How the camel has grown (rules version 9 on).
    growth: Growth,
    /// What this level's ground is like (rules version 10 on; the open erg before).
    ground: Ground,
    /// What each thief carries, snatched from the camel's bags (rules version 16 on:
    /// `Rules::thieves`; empty before). It falls where the thief dies, and is gone with
    /// a thief left behind on a level above.
    loot: BTreeMap<ActorId, Item>,
}

impl World {
    /// A world with nothing in it yet, on `map`, where the actors to come will go by
    /// `names` (a scenario's; a game's go by their species).
    pub(crate) fn empty(rules: Rules, map: Map, names: BTreeMap<ActorId, String>) -> World {
        World {
            rules,
            tick: Tick(0),
            actors: vec![],
            clocks: Clocks::default(),
            names,
            order: vec![],
            order_stale: true,
            unrolled: VecDeque::new(),
            depth: 0,
            floor: vec![],
            bags: match rules.letters_kept() {
                true => Bags::keeping_letters(&[]),
                false => Bags::default(),
            },
            mycology: Mycology::new(Effect::ALL),
            player: None,
            messages: MessageLog::default(),
            outcome: None,
            sight: CellSet::empty(&map),
            explored: CellSet::empty(&map),
            kills: 0,
            water: 0,
            gear: Gear::default(),
            lore: Lore::default(),
            growth: Growth::default(),
            ground: Ground::Erg,
            loot: BTreeMap::new(),
            map,
        }
    }

    /// The rules the game is played under: its version's behaviours and its ruleset.
    #[inline]
    pub fn rules(&self) -> &Rules {
        &self.rules
    }
    #[inline]
    pub fn ruleset(&self) -> Ruleset {
        self.rules.ruleset()
    }
    #[inline]
    pub fn time(&self) -> TimeModel {
        self.rules.ruleset().time
    }
    #[inline]
    pub fn tick(&self) -> Tick {
        self.tick
    }
    #[inline]
    pub fn outcome(&self) -> Option<Outcome> {
        self.outcome
    }
    #[inline]
    pub fn map(&self) -> &Map {
        &self.map
    }
    #[inline]
    pub fn depth(&self) -> u8 {
        self.depth
    }
    #[inline]
    pub fn floor(&self) -> &[(Pos, Item)] {
        &self.floor
    }
    pub fn items_at(&self, pos: Pos) -> impl Iterator<Item = Item> + '_ {
        self.floor
            .iter()
            .filter(move |(p, _)| *p == pos)
            .map(|&(_, item)| item)
    }
    #[inline]
    pub fn bags(&self) -> &Bags {
        &self.bags
    }
    #[inline]
    pub fn mycology(&self) -> &Mycology {
        &self.mycology
    }
    pub fn messages(&self) -> &MessageLog {
        &self.messages
    }
    #[inline]
    pub fn player_id(&self) -> Option<ActorId> {
        self.player
    }
    #[inline]
    pub fn player(&self) -> Option<&Actor> {
        self.player.map(|id| &self.actors[id.index()])
    }
    #[inline]
    pub fn is_player(&self, id: ActorId) -> bool {
        self.player == Some(id)
    }
    #[inline]
    pub fn actor(&self, id: ActorId) -> Option<&Actor> {
        self.actors.get(id.index())
    }

    /// The actor `id`, which the caller knows exists (an id the world handed out).
    #[inline]
    pub(crate) fn actor_at(&self, id: ActorId) -> &Actor {
        &self.actors[id.index()]
    }

    /// Every actor still in the game, by id.
    pub fn actors(&self) -> impl Iterator<Item = (ActorId, &Actor)> {
        self.actors
            .iter()
            .enumerate()
            .filter(|(_, a)| a.present)
            .map(|(i, a)| (ActorId(i as u32), a))
    }

    /// Every actor that has ever been in the game, gone ones too: the id the next one
    /// will take.
    #[inline]
    pub fn actor_count(&self) -> usize {
        self.actors.len()
    }

    /// The actor's scenario name, or its species.
    pub fn name_of(&self, id: ActorId) -> &str {
        match self.names.get(&id) {
            Some(name) => name,
            None => self
                .actors
                .get(id.index())
                .map_or("?", |a| a.species.name()),
        }
    }

    /// Names given by a scenario, by actor.
    pub fn names(&self) -> &BTreeMap<ActorId, String> {
        &self.names
    }

    /// The turn order of the current tick.
    #[inline]
    pub fn turn_order(&self) -> &[ActorId] {
        &self.order
    }

    #[inline]
    pub(crate) fn order_stale(&self) -> bool {
        self.order_stale
    }

    /// Actors that appeared and still wait for their initiative draw, oldest first.
    #[inline]
    pub(crate) fn unrolled(&self) -> &VecDeque<ActorId> {
        &self.unrolled
    }

    #[inline]
    pub(crate) fn clocks(&self) -> &Clocks {
        &self.clocks
    }

    #[inline]
    pub fn energy(&self, id: ActorId) -> Energy {
        self.clocks.get(id).map_or(Energy(0), |c| c.energy)
    }

    /// Whether `id` has the energy to act.
    #[inline]
    pub fn is_ready(&self, id: ActorId) -> bool {
        self.clocks.get(id).is_some_and(Clock::is_ready)
    }

    /// Whether `id` dashed this tick.
    #[inline]
    pub fn is_dashing(&self, id: ActorId) -> bool {
        self.clocks.get(id).is_some_and(|c| c.dashing)
    }

    /// How fast `id` goes just now: its dash and conditions, the time of day, and for
    /// the camel the weight of what it wears.
    #[inline]
    pub fn pace(&self, id: ActorId) -> Pace {
        let mut pace = self.bare_pace(id);
        pace.laden = self.gear.has_barding() && self.is_player(id);
        pace
    }

    /// `pace` but for what is worn: its dash and conditions, and the time of day.
    #[inline]
    fn bare_pace(&self, id: ActorId) -> Pace {
        let Some(actor) = self.actors.get(id.index()) else {
            return Pace::default();
        };
        let conditions = actor.conditions;
        let mut pace = Pace {
            dashing: self.is_dashing(id),
            hasted: conditions.has(Condition::Haste),
            slowed: conditions.has(Condition::Slow),
            ..Pace::default()
        };
        if let Some(time) = self.time_of_day() {
            pace.sweltering = time.is_hot() && self.is_player(id);
            pace.numb = time.is_cold() && actor.species.is_cold_blooded();
        }
        pace
    }

    /// Actions `id` has taken so far.
    #[inline]
    pub fn turns(&self, id: ActorId) -> u32 {
        self.clocks.get(id).map_or(0, |c| c.turns)
    }

    /// Whether the camel sees `pos` now (and, sight being symmetric, whether a creature
    /// standing there sees the camel).
    #[inline]
    pub fn sees(&self, pos: Pos) -> bool {
        self.sight.contains(pos)
    }

    /// Whether `id` would go down the stairs with the camel now: an ally beside it, or
    /// under `Rules::allies_follow_from_near` one it sees within `FOLLOWS_FROM`.
    pub fn follows_down(&self, id: ActorId) -> bool {
        let Some(camel) = self.player().filter(|c| c.present).map(|c| c.pos) else {
            return false;
        };
        let a = self.actor_at(id);
        let near = match self.rules.allies_follow_from_near() {
            true => a.pos.distance(camel) <= FOLLOWS_FROM && self.sees(a.pos),
            false => a.pos.distance(camel) <= 1,
        };
        a.present && a.behaviour == Behaviour::Ally && near
    }

    /// Whether the camel sees the actor `id`: where it stands is in sight, and it is not
    /// hidden there (`is_hidden`).
    #[inline]
    pub fn sees_actor(&self, id: ActorId) -> bool {
        self.sees(self.actor_at(id).pos) && !self.is_hidden(id)
    }

    /// Whether the camel has seen `pos` on this level.
    pub fn remembers(&self, pos: Pos) -> bool {
        self.explored.contains(pos)
    }

    /// The cells of this level the camel has seen.
    pub fn explored(&self) -> &CellSet {
        &self.explored
    }

    /// Creatures the camel has killed.
    pub fn kills(&self) -> u32 {
        self.kills
    }

    /// Whether a date thrown to `id` makes it the camel's ally: one of a tameable
    /// species, while the camel has no ally. One friend at a time: a camel trailing a
    /// pack of jackals would have nothing left to fear.
    pub fn tames(&self, id: ActorId) -> bool {
        let tameable = self.actor(id).is_some_and(|a| a.species.is_tameable());
        tameable && !self.actors().any(|(_, a)| a.is_ally())
    }

    /// Whether the camel may throw `item`: a missile, or since rules version 8 a date,
    /// to tame a jackal with (`Rules::allies`).
    pub fn can_throw(&self, item: Item) -> bool {
        match item {
            Item::Date => self.rules.allies(),
            Item::Mushroom(_) => self.rules.mushrooms_burst(),
            other => other.is_throwable(),
        }
    }

    /// Whether the camel can open a door of `terrain` to pass it: a closed one, or a
    /// locked one with a key in its bags (`Rules::places`).
    pub fn opens(&self, terrain: Terrain) -> bool {
        terrain == Terrain::DoorClosed
            || (terrain == Terrain::DoorLocked && self.bags.find(Item::Key).is_some())
    }

    /// What the camel wears (`Rules::gear`).
    pub fn gear(&self) -> Gear {
        self.gear
    }

    /// Sips left in the camel's waterskin (under the desert's clock: `Rules::desert_clock`).
    pub fn water(&self) -> u16 {
        self.water
    }

    /// What the camel knows of flasks and scarabs (`Rules::finds`).
    pub fn lore(&self) -> &Lore {
        &self.lore
    }

    /// How the camel has grown (`Rules::finds`).
    pub fn growth(&self) -> Growth {
        self.growth
    }

    /// Turns between the camel's sips here: the depth's heat (`Crossing::thirst_every`)
    /// and a fat hump's patience (`Boon::Hump`).
    pub fn thirst_every(&self) -> u32 {
        self.rules.crossing().thirst_every(self.depth) + self.growth.hump()
    }

    /// Turns between the hit points the camel gets back by itself here, `None` where no
    /// wound closes by itself: the depth's heat (`Crossing::regenerate_every`).
    pub fn regenerate_every(&self) -> Option<u32> {
        self.rules.crossing().regenerate_every(self.depth)
    }

    /// Whether `at` is beside a pool (or on the oasis): where the camel fills its waterskin.
    #[inline]
    pub fn fills_at(&self, at: Pos) -> bool {
        let map = self.map();
        map.terrain(at) == Terrain::Oasis
            || Direction::ALL
                .iter()
                .any(|&d| map.terrain(at.step(d)) == Terrain::Water)
    }

    /// Whether the camel knows `at` as a place it fills its waterskin: it remembers the
    /// cell, and the oasis it is or a pool beside it (a remembered cell beside water it
    /// never saw is no water it knows of).
    pub fn known_to_fill_at(&self, at: Pos) -> bool {
        let map = self.map();
        let seen_water = |p: Pos| self.remembers(p) && map.terrain(p) == Terrain::Water;
        self.remembers(at)
            && (map.terrain(at) == Terrain::Oasis
                || Direction::ALL.iter().any(|&d| seen_water(at.step(d))))
    }

    /// What this level's ground is like: always the open erg before rules version 10.
    pub fn ground(&self) -> Ground {
        self.ground
    }

    /// What the thief `id` carries, if it snatched something (rules version 16 on).
    #[inline]
    pub fn loot_of(&self, id: ActorId) -> Option<Item> {
        self.loot.get(&id).copied()
    }

    /// What every thief carries, by thief.
    pub fn loot(&self) -> &BTreeMap<ActorId, Item> {
        &self.loot
    }

    /// The name a player sees, without an article: what an unknown find does once the
    /// camel has learnt it, its look before ("red mushroom", "flask of vision", "date").
    pub fn item_name(&self, item: Item) -> String {
        let (mycology, lore) = (&self.mycology, &self.lore);
        match item {
            Item::Mushroom(look) if mycology.is_known(look) => {
                format!("mushroom of {}", mycology.effect(look).name())
            }
            Item::Flask(glass) if lore.knows_glass(glass) => {
                format!("flask of {}", lore.draught(glass).name())
            }
            Item::Scarab(stone) if lore.knows_stone(stone) => {
                format!("scarab of {}", lore.charm(stone).name())
            }
            other => unknown_name(other),
        }
    }

    /// `item_name` with its article: "a red mushroom", "a flask of vision".
    pub fn describe_item(&self, item: Item) -> String {
        crate::text::a(&self.item_name(item))
    }

    /// `count` of `item` by name: "a date", "3 dates", "2 mushrooms of healing".
    pub fn counted_items(&self, item: Item, count: u16) -> String {
        crate::text::counted(&self.item_name(item), count)
    }

    /// The part of the day it is, if the desert has a clock under these rules.
    #[inline]
    pub fn time_of_day(&self) -> Option<TimeOfDay> {
        self.rules.desert_clock().then(|| TimeOfDay::at(self.tick))
    }

    /// Whether `id` is out of sight wherever it is: a sandworm asleep under the sand.
    #[inline]
    pub fn is_hidden(&self, id: ActorId) -> bool {
        let a = self.actor_at(id);
        a.behaviour == Behaviour::Asleep && a.species.hides_asleep()
    }

    /// What `action` costs `id` now.
    #[inline]
    pub fn cost_of(&self, id: ActorId, action: &Action) -> u16 {
        let stats = self.actor_at(id).stats();
        let mut cost = action.cost(&self.map);
        let mut pace = self.bare_pace(id);
        // What the camel wears changes its own costs; nothing is worn before version 7,
        // so most games pay one test of the gear for every actor's action.
        if self.gear.is_worn() && self.is_player(id) {
            pace.laden = self.gear.has_barding();
            // Boots: dunes are sand to the camel's feet.
            if self.gear.has_boots() && cost == Cost::Step(Terrain::Dune) {
                cost = Cost::Step(Terrain::Sand);
            }
        }
        // A javelin flies in half a throw (none before version 9); only the camel throws.
        if let Action::Throw { slot, .. } = *action {
            if self.bags.item(slot) == Some(Item::Javelin) {
                cost = Cost::Quick;
            }
        }
        self.time().cost(&stats, cost, pace)
    }

    /// How many ticks after this one `id` first has the energy to act, if it takes no
    /// action before then (`None` beyond 64).
    pub fn ticks_until_ready(&self, id: ActorId) -> Option<u64> {
        let mut clock = *self.clocks.get(id)?;
        (1..=64).find(|_| {
            self.time().start_tick(&mut clock);
            clock.is_ready()
        })
    }
}
