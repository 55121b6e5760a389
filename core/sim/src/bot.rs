//! An automatic player: deterministic from its own seed (never the game's), it issues only
//! legal commands and plays a plausible game: it explores, picks things up, eats when
//! hurt, fights what is next to it, throws at elephants and descends. It knows what the
//! camel knows and no more: the cells it remembers, the creatures it sees.

use crate::bestiary::Bestiary;
use crate::command::{Command, Slot};
use crate::crossing::Crossing;
use crate::decide::{is_hostile, is_provoked};
use crate::desert::{WATERSKIN, WATER_LOW};
use crate::drive::{Game, LiveTape};
use crate::geometry::{line, Direction, Pos};
use crate::item::{Charm, Draught, Effect, Item};
use crate::lore::Boon;
use crate::map::Terrain;
use crate::path::first_step;
use crate::rng::Expander;
use crate::rules::Rules;
use crate::species::Species;
use crate::state::{Need, State};
use crate::tape::Tape;

/// The boons the bot takes first, where a rose offers three of ten: what keeps it alive
/// over what makes it strike harder.
const LIKED: [Boon; 10] = [
    Boon::Hardier,
    Boon::Hide,
    Boon::Vigour,
    Boon::Sinew,
    Boon::Hump,
    Boon::Arm,
    Boon::Deeper,
    Boon::Stronger,
    Boon::Sage,
    Boon::Fury,
];

pub struct Bot {
    dice: Expander,
    /// Commands to spend on each level before heading for the stairs.
    patience: u32,
    depth: u8,
    on_this_level: u32,
}

impl Bot {
    /// A bot that makes for the stairs as soon as there is nothing nearer to pick up.
    pub fn new(seed: u64) -> Bot {
        Bot::lingering(seed, 0)
    }

    /// A bot that spends at least `patience` commands on each level before descending:
    /// long games, for benchmarks and long golden replays, that are still real games.
    pub fn lingering(seed: u64, patience: u32) -> Bot {
        Bot {
            dice: Expander::new(seed ^ 0x0b07_b07b_07b0),
            patience,
            depth: 0,
            on_this_level: 0,
        }
    }

    /// A new game under `rules` from `seed`, the bot playing up to `commands` commands
    /// (fewer if the game ends first): its tape.
    pub fn record(&mut self, rules: Rules, seed: u64, commands: u64) -> Tape {
        let mut game = LiveTape::new(rules, seed);
        self.play(&mut game, commands)
            .expect("the bot plays only legal commands");
        game.into_tape()
    }

    /// Plays up to `commands` commands on `game`, fewer if it ends; returns how many.
    pub fn play<G: Game>(&mut self, game: &mut G, commands: u64) -> Result<u64, G::Error> {
        let mut played = 0;
        self.play_until(game, |_| {
            played += 1;
            played > commands
        })
    }

    /// Plays on `game` until it ends or `stop` says so, asked before each command with the
    /// state the command would be played in; returns how many commands were played.
    pub fn play_until<G: Game>(
        &mut self,
        game: &mut G,
        mut stop: impl FnMut(&State) -> bool,
    ) -> Result<u64, G::Error> {
        let mut played = 0;
        while !stop(game.state()) {
            let Some(command) = self.choose(game.state()) else {
                break;
            };
            game.play(command)?;
            played += 1;
        }
        Ok(played)
    }

    /// The bot's next command, always one that validates; `None` once the game is over.
    pub fn choose(&mut self, state: &State) -> Option<Command> {
        if state.need() != Need::Command {
            return None;
        }
        if state.world().depth() != self.depth {
            self.depth = state.world().depth();
            self.on_this_level = 0;
        }
        self.on_this_level += 1;
        let wishes = self.wishes(state);
        let chosen = wishes.into_iter().find(|c| state.validate(c).is_ok());
        // Resting is legal whenever the camel is to act.
        Some(chosen.unwrap_or(Command::Rest))
    }

    /// What the bot would like to do, best first; the first legal one is taken.
    fn wishes(&mut self, state: &State) -> Vec<Command> {
        let world = state.world();
        let Some(me) = world.player() else {
            return vec![];
        };
        let pos = me.pos();
        let mut wishes = vec![];
        let bags = world.bags();
        let slot_of = |want: &dyn Fn(Item) -> bool| {
            bags.stacks()
                .find(|(_, stack)| want(stack.item))
                .map(|(slot, _)| slot)
        };
        let mycology = world.mycology();
        let known_heal = |i: Item| match i {
            Item::Mushroom(look) => {
                mycology.is_known(look) && mycology.effect(look) == Effect::Heal
            }
            other => other.nourishment() > 0,
        };
        let (hp, max_hp) = (i32::from(me.hp()), i32::from(me.max_hp()));
        // Where no wound closes by itself (the furnace's last depths), it eats sooner.
        let heals = world.regenerate_every().is_some();
        let eats_below = if heals { 2 } else { 3 };
        if hp * 5 < max_hp * eats_below {
            if let Some(slot) = slot_of(&known_heal) {
                wishes.push(Command::Eat(slot));
            }
        }
        // Put on whatever gear it carries.
        if let Some(slot) = slot_of(&|i: Item| i.is_wearable() && !world.gear().wears(i)) {
            wishes.push(Command::Wear(slot));
        }
        // Spend a desert rose at once: where every rose offers the same three, on the way
        // it has grown least (hit points first); else on the boon it likes best.
        if let Some(slot) = slot_of(&|i: Item| i == Item::Rose) {
            let growth = world.growth();
            let offer = growth.offer().into_iter();
            let pick = match world.rules().forking_growth() {
                false => offer.min_by_key(|&boon| growth.taken(boon)),
                true => offer.min_by_key(|boon| LIKED.iter().position(|b| b == boon)),
            };
            wishes.extend(pick.map(|boon| Command::Grow(slot, boon)));
        }
        // Walk away from an angry tortoise: it is too slow to follow, and hits hard.
        if let Some(giant) = angry_tortoise_beside(state, pos) {
            let away = Direction::ALL
                .into_iter()
                .filter(|&d| world.map().is_free(pos.step(d)))
                .max_by_key(|&d| pos.step(d).distance(giant));
            wishes.extend(away.map(Command::Move));
        }
        // Tame a jackal beside it with a date, where the rules allow.
        let date = slot_of(&|i: Item| i == Item::Date).filter(|_| world.rules().allies());
        for dir in Direction::ALL {
            let occupant = world.map().occupant(pos.step(dir));
            let seen = occupant.filter(|&id| world.sees_actor(id));
            if let (Some(date), Some(id)) = (date, seen) {
                if world.tames(id) {
                    wishes.push(Command::Throw(date, dir));
                }
            }
        }
        // Feed a date to a badly hurt ally beside it, where allies eat them.
        let feeds =
            slot_of(&|i: Item| i == Item::Date).filter(|_| world.rules().allies_eat_dates());
        for dir in Direction::ALL {
            let ally = world
                .map()
                .occupant(pos.step(dir))
                .and_then(|id| world.actor(id));
            let hurt = ally.is_some_and(|a| a.is_ally() && a.hp() * 2 < a.max_hp());
            if let (Some(date), true) = (feeds, hurt) {
                wishes.push(Command::Throw(date, dir));
            }
        }
        // In the wakeful deep, as a careful player does: something thrown at a hunter
        // coming, before it arrives (a mushroom known to harm a lion or a ratel first),
        // and a healing mushroom or food eaten sooner while poisoned.
        let deep = plays_deep(world.rules());
        if deep {
            wishes.extend(known_find_wanted(state).map(Command::Use));
            if let Some((target, species)) = nearest_hunter(state, pos) {
                let harms = |i: Item| match i {
                    Item::Mushroom(look) => {
                        mycology.is_known(look) && mycology.effect(look) != Effect::Heal
                    }
                    _ => false,
                };
                let big = matches!(species, Species::Lion | Species::Ratel);
                let mushroom = slot_of(&harms).filter(|_| big);
                let missile = [Item::Spear, Item::Javelin, Item::Stone]
                    .into_iter()
                    .find_map(|item| bags.find(item))
                    .filter(|_| target.distance(pos) > 1);
                let (east, south) = (target.x - pos.x, target.y - pos.y);
                for slot in mushroom.into_iter().chain(missile) {
                    wishes.push(Command::ThrowAt(slot, east as i8, south as i8));
                }
            }
            let poisoned = me.conditions().has(crate::world::Condition::Poisoned);
            if poisoned && hp * 2 < max_hp {
                wishes.extend(slot_of(&known_heal).map(Command::Eat));
            }
        }
        // Fight whatever is adjacent, in sight and awake; let sleepers and allies lie.
        for dir in Direction::ALL {
            let occupant = world.map().occupant(pos.step(dir));
            let seen = occupant.filter(|&id| world.sees_actor(id));
            let awake = seen.and_then(|id| world.actor(id));
            if awake.is_some_and(is_hostile) {
                wishes.push(Command::Move(dir));
            }
        }
        // Throw at an elephant in line.
        if let Some(dir) = elephant_in_line(state, pos) {
            if let Some(slot) = slot_of(&|i: Item| i.is_throwable()) {
                if self.dice.one_in(2) {
                    wishes.push(Command::Throw(slot, dir));
                }
            }
        }
        // Under the long crossing, throw the best missile carried at a lion or a ratel in
        // line, and when badly hurt with no known healing, try an unknown flask or scarab
        // (only there, so that the report of the versions before plays as it always did).
        if world.rules().crossing() >= Crossing::Long {
            let best = [Item::Spear, Item::Javelin, Item::Stone]
                .into_iter()
                .find_map(|item| bags.find(item));
            if let (Some(slot), Some(dir)) = (best, deep_hunter_in_line(state, pos)) {
                wishes.push(Command::Throw(slot, dir));
            }
            let unknown_find = |i: Item| match i {
                Item::Flask(glass) => !world.lore().knows_glass(glass),
                Item::Scarab(stone) => !world.lore().knows_stone(stone),
                _ => false,
            };
            let desperate = hp * 4 < max_hp && slot_of(&known_heal).is_none();
            if let Some(slot) = slot_of(&unknown_find).filter(|_| desperate) {
                wishes.push(Command::Use(slot));
            }
        }
        if world.items_at(pos).next().is_some() {
            wishes.push(Command::PickUp);
        }
        // Hurt with nothing near: rest, and let the hit points come back, where they do.
        // Under the long crossing, as a careful player does, until nearly whole, water
        // allowing.
        // In the deep, a long rest is taken beside water, where it drinks from the pool,
        // not the skin: it walks there first when it knows of some.
        let careful = world.rules().crossing() >= Crossing::Long && world.water() > THIRSTY;
        let rests_below = if careful { 4 } else { 2 };
        let wants_rest = hp * rests_below < max_hp * (rests_below - 1) && heals;
        let by_water = world.fills_at(pos);
        let rest_at_water = deep && wants_rest && !by_water && knows_water(state);
        if wants_rest && !threatened(state, pos) && !rest_at_water {
            wishes.push(Command::Rest);
        }
        // Curiosity: taste an unknown mushroom when healthy.
        if hp * 10 > max_hp * 7 && self.dice.one_in(8) {
            let unknown = |i: Item| matches!(i, Item::Mushroom(l) if !mycology.is_known(l));
            if let Some(slot) = slot_of(&unknown) {
                wishes.push(Command::Eat(slot));
            }
        }
        // Curiosity, too, for flasks and scarabs; a draw only when it carries one, so that
        // the bot plays the versions before them as it always did.
        let lore = world.lore();
        let unknown_find = |i: Item| match i {
            Item::Flask(glass) => !lore.knows_glass(glass),
            Item::Scarab(stone) => !lore.knows_stone(stone),
            _ => false,
        };
        if let Some(slot) = slot_of(&unknown_find) {
            if hp * 10 > max_hp * 7 && !threatened(state, pos) && self.dice.one_in(8) {
                wishes.push(Command::Use(slot));
            }
        }
        // Sweet water, once known, when the skin runs low.
        let sweet = |i: Item| matches!(i, Item::Flask(g) if lore.knows_glass(g) && lore.draught(g) == Draught::Sweet);
        if world.water() <= THIRSTY {
            if let Some(slot) = slot_of(&sweet) {
                wishes.push(Command::Use(slot));
            }
        }
        // In the deep, nearly dry: a cactus fruit's juice, then any flask not known to be
        // other than sweet water.
        if deep && world.water() <= WATER_LOW {
            let unknown_glass = |i: Item| matches!(i, Item::Flask(g) if !lore.knows_glass(g));
            let fruit = slot_of(&|i: Item| i == Item::CactusFruit).map(Command::Eat);
            wishes.extend(
                fruit
                    .into_iter()
                    .chain(slot_of(&unknown_glass).map(Command::Use)),
            );
        }
        if self.dice.one_in(150) && !bags.is_empty() {
            let slot = Slot(self.dice.below(crate::bags::LETTERS as u32) as u8);
            wishes.push(Command::Drop(slot));
        }
        // In the deep a dry camel that knows of no water here makes for the stairs: the
        // next level may hold some.
        let no_water = deep && world.water() <= THIRSTY && !knows_water(state);
        let restless = self.on_this_level > self.patience || no_water;
        if restless && matches!(world.map().terrain(pos), Terrain::Stairs) {
            wishes.push(Command::Descend);
        }
        if self.dice.one_in(25) {
            wishes.push(Command::Dash);
        }
        // In the deep, a skin half empty is filled at water it knows of, on the way.
        let drinks_at = if deep { WATERSKIN / 2 } else { THIRSTY };
        let thirsty = world.rules().desert_clock() && (world.water() <= drinks_at || rest_at_water);
        let goal = if thirsty {
            Goal::Water
        } else {
            Goal::Things { stairs: restless }
        };
        if let Some(dir) =
            route(state, pos, goal).or_else(|| route(state, pos, Goal::Things { stairs: restless }))
        {
            let next = pos.step(dir);
            if world.opens(world.map().terrain(next)) {
                wishes.push(Command::Open(dir));
            }
            wishes.push(Command::Move(dir));
        }
        // Wander when there is nowhere to go.
        let dir = Direction::ALL[self.dice.below(8) as usize];
        wishes.push(Command::Move(dir));
        wishes.push(Command::Rest);
        wishes
    }
}

/// In the deep, a find known for what it does, used when it is what the moment asks
/// for, as a careful player uses it: a scarab of slumber when hunters close in on a
/// hurt camel, one of blinking when one is beside a camel nearly dead with nothing to
/// heal it, a flask of vision when the skin is half empty and no water (or no stairs)
/// is known on the level. Its slot, if one is wanted.
fn known_find_wanted(state: &State) -> Option<Slot> {
    let world = state.world();
    let me = world.player()?;
    let (hp, max_hp) = (i32::from(me.hp()), i32::from(me.max_hp()));
    let lore = world.lore();
    let bags = world.bags();
    let slot_of = |want: &dyn Fn(Item) -> bool| {
        bags.stacks()
            .find(|(_, stack)| want(stack.item))
            .map(|(slot, _)| slot)
    };
    let charm = |wanted: Charm| {
        slot_of(&|i| matches!(i, Item::Scarab(s) if lore.knows_stone(s) && lore.charm(s) == wanted))
    };
    let near = |reach: u16| {
        world
            .actors()
            .filter(|&(id, a)| {
                !world.is_player(id)
                    && world.sees_actor(id)
                    && a.species().hunts()
                    && is_hostile(a)
                    && a.pos().distance(me.pos()) <= reach
            })
            .count()
    };
    let heals = slot_of(&|i| match i {
        Item::Mushroom(look) => {
            world.mycology().is_known(look) && world.mycology().effect(look) == Effect::Heal
        }
        other => other.nourishment() > 0,
    });
    if hp * 4 < max_hp && heals.is_none() && near(1) > 0 {
        if let Some(slot) = charm(Charm::Blink) {
            return Some(slot);
        }
    }
    if (hp * 5 < max_hp * 3 && near(3) > 0) || near(4) > 1 {
        if let Some(slot) = charm(Charm::Slumber) {
            return Some(slot);
        }
    }
    let stairs_known = world
        .map()
        .cells()
        .any(|p| world.remembers(p) && world.map().terrain(p) == Terrain::Stairs);
    // Once a level is known whole (a flask drunk), another shows nothing more.
    let unknown = world.map().cells().any(|p| !world.remembers(p));
    let lost = unknown && (!knows_water(state) || !stairs_known);
    if lost && world.water() <= WATERSKIN / 2 {
        let vision = |i| matches!(i, Item::Flask(g) if lore.knows_glass(g) && lore.draught(g) == Draught::Vision);
        return slot_of(&vision);
    }
    None
}

/// The bot goes for a drink with this many sips left, or fewer.
const THIRSTY: u16 = 5;

/// Whether the bot plays the deep desert as a careful player does: throwing at hunters
/// before they arrive, eating sooner while poisoned, filling its skin at half and making
/// for the stairs when dry. Only from the wakeful deep (rules version 17), so that the
/// play report of every version before plays as it always did.
fn plays_deep(rules: &Rules) -> bool {
    rules.bestiary() >= Bestiary::Wakeful
}

/// How far the bot throws at a hunter coming.
const THROW_REACH: u16 = 6;

/// The nearest hostile hunter in sight, awake and within a throw, with nothing in the
/// way of a throw at it: where it stands and what it is.
fn nearest_hunter(state: &State, from: Pos) -> Option<(Pos, Species)> {
    let world = state.world();
    let map = world.map();
    let clear = |to: Pos| {
        let path = line(from, to);
        let before = &path[..path.len().saturating_sub(1)];
        before
            .iter()
            .all(|&p| map.occupant(p).is_none() && !map.terrain(p).blocks())
    };
    world
        .actors()
        .filter(|&(id, a)| {
            !world.is_player(id)
                && world.sees_actor(id)
                && (a.species().hunts() || a.species().venom().is_some())
                && is_hostile(a)
                && a.pos().distance(from) <= THROW_REACH
        })
        .map(|(_, a)| (a.pos(), a.species()))
        .filter(|&(at, _)| clear(at))
        .min_by_key(|&(at, _)| (at.distance(from), at))
}

/// Whether the camel remembers a cell of this level where it fills its skin.
fn knows_water(state: &State) -> bool {
    let world = state.world();
    world.map().cells().any(|p| world.known_to_fill_at(p))
}

/// Where the bot is going.
#[derive(Clone, Copy)]
enum Goal {
    /// The nearest item or, once it is ready to leave, the stairs and the oasis.
    Things { stairs: bool },
    /// The nearest cell beside a pool.
    Water,
}

/// The first step of a cheapest walk through remembered cells to the `goal`, or to the
/// nearest cell never seen when the goal is not known yet. Closed doors count as
/// walkable, and locked ones while it carries a key: the bot opens them. Creatures move;
/// only those seen next to the camel are in the way.
fn route(state: &State, from: Pos, goal: Goal) -> Option<Direction> {
    let world = state.world();
    let map = world.map();
    let known = |p: Pos| world.remembers(p);
    let stairs = |p: Pos| known(p) && matches!(map.terrain(p), Terrain::Stairs | Terrain::Oasis);
    let beside_water = |p: Pos| {
        Direction::ALL
            .iter()
            .any(|&d| known(p.step(d)) && map.terrain(p.step(d)) == Terrain::Water)
    };
    let stairs_known = map.cells().any(stairs);
    let item = |p: Pos| known(p) && world.items_at(p).next().is_some();
    let is_goal = |p: Pos| match goal {
        Goal::Things { stairs: true } if stairs_known => stairs(p) || item(p),
        Goal::Things { .. } => !known(p) || item(p),
        Goal::Water => known(p) && beside_water(p),
    };
    let may_enter = |p: Pos| {
        let terrain = map.terrain(p);
        let walkable = terrain.is_passable() || world.opens(terrain);
        let in_the_way =
            p.distance(from) == 1 && map.occupant(p).is_some_and(|id| world.sees_actor(id));
        known(p) && walkable && !in_the_way
    };
    first_step(map, from, u32::MAX, is_goal, may_enter).map(|(dir, _)| dir)
}

/// Where a provoked tortoise the camel sees stands beside `at`, if one does.
fn angry_tortoise_beside(state: &State, at: Pos) -> Option<Pos> {
    let world = state.world();
    Direction::ALL.into_iter().map(|d| at.step(d)).find(|&p| {
        world.map().occupant(p).is_some_and(|id| {
            let a = world.actor_at(id);
            world.sees_actor(id) && a.species() == Species::Tortoise && is_provoked(a)
        })
    })
}

/// Whether a creature the camel sees that could hurt it is within a few cells.
fn threatened(state: &State, at: Pos) -> bool {
    let world = state.world();
    world.actors().any(|(id, actor)| {
        !world.is_player(id)
            && world.sees_actor(id)
            && actor.species() != Species::SpiderEgg
            && actor.pos().distance(at) <= 5
    })
}

/// The first of `dirs` along which, within `reach` cells and with nothing in between,
/// stands a creature in sight that `wanted` accepts: where a throw would hit it.
fn in_line(
    state: &State,
    from: Pos,
    dirs: &[Direction],
    reach: u32,
    wanted: impl Fn(&crate::world::Actor) -> bool,
) -> Option<Direction> {
    let world = state.world();
    let map = world.map();
    dirs.iter().copied().find(|&dir| {
        let mut at = from.step(dir);
        for _ in 0..reach {
            if let Some(id) = map.occupant(at) {
                return world.sees_actor(id) && world.actor(id).is_some_and(&wanted);
            }
            if map.terrain(at).blocks() {
                return false;
            }
            at = at.step(dir);
        }
        false
    })
}

/// A lion or a ratel, not an ally, along one of the eight lines within a throw.
fn deep_hunter_in_line(state: &State, from: Pos) -> Option<Direction> {
    let deep = |a: &crate::world::Actor| {
        matches!(a.species(), Species::Lion | Species::Ratel) && !a.is_ally()
    };
    in_line(state, from, &Direction::ALL, 6, deep)
}

/// An elephant along a row or column (the lines it charges on).
fn elephant_in_line(state: &State, from: Pos) -> Option<Direction> {
    let elephant = |a: &crate::world::Actor| a.species() == Species::Elephant;
    in_line(state, from, &Direction::ORTHOGONAL, 10, elephant)
}
