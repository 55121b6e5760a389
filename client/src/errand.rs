//! Errands: travel, run, explore and rest until healed. The client plays them for the
//! player as ordinary commands, one at a time, each saved like any other; the tape never
//! knows an errand was running. An errand stops as soon as the state says it should: a
//! creature threatens the camel, the camel is hurt, something lies underfoot, or there
//! is nowhere left to go; and it says why. None starts while a creature threatens the
//! camel (`threat`): each key would walk the camel on while it is bitten. A creature
//! that is merely in view (a spider wandering, a sleeper, an ally) stops nothing: with a
//! hatched nest on the level, every errand would stop at every step.
//!
//! Errands obey the game's own warnings, as Brogue's do: a walk steers round the cells a
//! dormant egg would hear the camel in and those about where the sand stirred (`Warnings`),
//! a moving errand stops where the sand stirs, and once as the waterskin runs low and
//! once as it runs dry, saying where the nearest water known lies (a walk to a pool's
//! shore goes on), a threat is one that has a way to the camel, and a slow
//! harm (poison, thirst) stops a walk only once it has worn the camel to half its hit
//! points, and a rest never: a rest is often meant to outlast it.

use sandglass_sim::desert::WATER_LOW;
use sandglass_sim::geometry::{Direction, Pos};
use sandglass_sim::map::Terrain;
use sandglass_sim::path::first_step;
use sandglass_sim::species::Species;
use sandglass_sim::world::{Actor, Condition};
use sandglass_sim::{closes_in, is_hostile, weakened, Command, State};

use crate::look::{carried, is_fleeing};
use crate::warnings::Warnings;

/// What the player asked for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Errand {
    /// Walk to a cell by the cheapest way the camel knows (`_`, `>`, a click).
    Travel(Pos),
    /// Keep stepping one way (Shift and a direction).
    Run(Direction),
    /// Walk to the nearest place not yet seen, or item not yet picked up, and pick it up
    /// (`x`).
    Explore,
    /// Rest until healed (`R`).
    Rest,
    /// Take the whole pile underfoot, item by item, while the bags have room (`,` on a
    /// pile of more than one).
    Gather,
}

/// An errand under way, and what the camel knew when it started.
#[derive(Clone, Debug)]
pub struct Running {
    errand: Errand,
    hp: i16,
    /// Sips in the waterskin after the last step.
    water: u16,
    /// Whether a slow harm (poison, thirst) was at work after the last step: the step
    /// on which poison wears off still hurts, and is its harm, not a blow.
    harmed: bool,
    /// Where the camel stood before its last step.
    from: Option<Pos>,
    /// Steps in a row that went back to the cell before.
    reversals: u32,
    /// Times the sand had stirred on the level after the last step.
    stirrings: usize,
    steps: u32,
}

/// Why an errand stopped, for the message line.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Stop {
    /// At the place it was going to, or at the end of a run.
    Arrived,
    /// A creature threatens the camel.
    Threat(Threat),
    /// The camel lost this many hit points since the last step.
    Hurt(i16),
    /// A slow harm (poison, thirst) took a walking camel to half its hit points or below.
    Weakening {
        hp: i16,
        most: i16,
    },
    /// The waterskin has just run low, or (`dry`) run dry: from here the camel weakens
    /// as it goes. With where the nearest water it knows of lies, if it knows of any.
    Thirsty {
        dry: bool,
        water: Option<Water>,
    },
    /// The sand stirred: a sleeper lies beneath, near.
    SandStirs,
    /// The only way on passes where the sand stirred.
    PastStirring,
    Underfoot,
    /// No way on to where it was going.
    Blocked,
    /// The way on changed with every step, back and forth.
    Dithering,
    NothingLeft,
    Healed,
    /// A rest where no wound closes by itself (the furnace's last depths), with no
    /// poison to wait out: it would only drink the waterskin dry.
    NothingHeals,
    TooLong,
    /// The game is over.
    Over,
}

impl Stop {
    /// What the player is told; nothing when the errand simply did what it was asked, or
    /// the game is over.
    pub fn message(&self) -> Option<String> {
        match self {
            Stop::Arrived | Stop::Over => None,
            Stop::Threat(threat) => Some(format!("You stop: {threat}.")),
            Stop::Hurt(1) => Some("You stop: you lost a hit point.".into()),
            Stop::Hurt(lost) => Some(format!("You stop: you lost {lost} hit points.")),
            Stop::Weakening { hp, most } => Some(format!(
                "You stop: you are weakening, at {hp} of {most} hit points."
            )),
            Stop::Thirsty { dry, water } => {
                let skin = match dry {
                    false => "your waterskin is nearly empty",
                    true => "your waterskin is dry, and you weaken as you go",
                };
                let known = match water {
                    Some(water) => format!("The nearest water you know of is {water}."),
                    None => "You know of no water on this level.".to_owned(),
                };
                Some(format!("You stop: {skin}. {known}"))
            }
            Stop::SandStirs => Some("You stop: the sand stirs. Go back the way you came.".into()),
            Stop::PastStirring => Some(
                "You stop: the only way on passes where the sand stirred. Step by hand.".into(),
            ),
            Stop::Underfoot => Some("You stop: there is something here.".into()),
            Stop::Blocked => Some("You stop: the way on is blocked.".into()),
            Stop::Dithering => Some(
                "You stop: the way on keeps changing, as what blocks it comes into view and \
                 leaves it. Step by hand."
                    .into(),
            ),
            Stop::NothingLeft => {
                Some("There is nowhere left to explore that you can reach.".into())
            }
            Stop::Healed => Some("You are at full health.".into()),
            Stop::NothingHeals => Some(
                "Resting heals nothing here: in the furnace only food, drink, a mushroom or a \
                 boon closes a wound."
                    .into(),
            ),
            Stop::TooLong => Some("You stop to look around.".into()),
        }
    }
}

/// Where the nearest water the camel knows of lies, as a player is told it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Water {
    /// King moves from the camel, as the crow flies.
    pub cells: u16,
    /// Roughly which way.
    pub toward: Direction,
}

impl std::fmt::Display for Water {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let Water { cells, toward } = self;
        let unit = if *cells == 1 { "cell" } else { "cells" };
        write!(f, "{cells} {unit} {}", toward.name())
    }
}

/// A creature that threatens the camel: awake, hostile, and beside it or coming for it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Threat {
    /// Its name, with its article.
    pub name: String,
    pub how: Menace,
}

/// How a creature threatens the camel.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Menace {
    Beside,
    /// On its way: a hunter, a provoked tortoise, a charge.
    Coming,
    /// Near enough to strike from where it is, a cobra's spit, though not lined up yet:
    /// it wanders into a line at any moment.
    InReach,
}

impl std::fmt::Display for Threat {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let how = match self.how {
            Menace::Beside => "is beside you",
            Menace::Coming => "is coming for you",
            Menace::InReach => "can strike you from there",
        };
        write!(f, "{} {how}", self.name)
    }
}

/// Steps after which any errand pauses, however well it goes.
const LONGEST: u32 = 500;

/// Steps back to the cell before, in a row, that end an errand.
const DITHER: u32 = 3;

impl Running {
    pub fn start(errand: Errand, state: &State, warnings: &Warnings) -> Running {
        Running {
            errand,
            hp: camel_hp(state),
            water: state.world().water(),
            harmed: slow_harm(state),
            from: None,
            reversals: 0,
            stirrings: warnings.count(),
            steps: 0,
        }
    }

    pub fn errand(&self) -> Errand {
        self.errand
    }

    /// The next command, or why the errand is over. Looks at the state the last command
    /// left: whether a creature threatens the camel, whether it was hurt, whether the sand
    /// stirred (`warnings`, what the camel was warned of on the level), what lies
    /// underfoot.
    pub fn next(&mut self, state: &State, warnings: &Warnings) -> Result<Command, Stop> {
        let world = state.world();
        let Some(camel) = world.player().filter(|c| c.is_present()) else {
            return Err(Stop::Over);
        };
        if state.outcome().is_some() {
            return Err(Stop::Over);
        }
        let here = camel.pos();
        if let Some(threat) = threat(state) {
            return Err(Stop::Threat(threat));
        }
        let lost = self.hp - camel.hp();
        let slow = lost <= SLOW_HARM && (slow_harm(state) || self.harmed);
        self.harmed = slow_harm(state);
        if lost > 0 && !slow {
            return Err(Stop::Hurt(lost));
        }
        // A walk goes on through a slow harm, but stops as it takes the camel to half its
        // hit points, and at every point from a quarter down: parched, explore would
        // otherwise walk it down to nothing a point at a time. Played by eye, a stop at
        // every point below half left a parched camel five turns a press.
        let most = camel.max_hp();
        let to_half = self.hp * 2 > most && camel.hp() * 2 <= most;
        let low = camel.hp() * 4 <= most;
        if lost > 0 && self.moves() && (to_half || low) {
            return Err(Stop::Weakening {
                hp: camel.hp(),
                most: camel.max_hp(),
            });
        }
        self.hp = camel.hp();
        let stirs = warnings.count() > self.stirrings;
        self.stirrings = warnings.count();
        if stirs && self.moves() {
            return Err(Stop::SandStirs);
        }
        // Once as the skin runs low and once as it runs dry: played by eye, explore
        // walked a parched camel on down to half its hit points with no word.
        let ran_low = world.water() <= WATER_LOW && self.water > WATER_LOW;
        let dry = world.water() == 0 && self.water > 0;
        self.water = world.water();
        // A rest too, but where the skin fills as it rests: played by eye, a rest till
        // healed away from water drank the skin from 14 to 1.
        let gathers = self.errand == Errand::Gather;
        let filling = self.errand == Errand::Rest && world.fills_at(here);
        let warns = world.rules().desert_clock() && !gathers && !filling && !self.to_water(state);
        if (ran_low || dry) && warns {
            let water = nearest_water(state, warnings, here);
            return Err(Stop::Thirsty { dry, water });
        }
        // What lies underfoot that the camel could take: not what it dropped here.
        let fits = |item| world.bags().slot_for(item).is_some();
        let takes = !warnings.left_at(here) && world.items_at(here).any(fits);
        if self.errand == Errand::Explore {
            // Exploring picks up what it finds, as it goes.
            if takes {
                self.steps += 1;
                return Ok(Command::PickUp);
            }
        } else if self.steps > 0 && takes && self.moves() {
            return Err(Stop::Underfoot);
        }
        if self.steps >= LONGEST {
            return Err(Stop::TooLong);
        }
        let command = match self.errand {
            Errand::Rest => {
                let hurt = camel.hp() < camel.max_hp();
                let heals = world.regenerate_every().is_some();
                match rest_over(hurt, poisoned(camel), heals) {
                    Some(stop) => return Err(stop),
                    None => Command::Rest,
                }
            }
            Errand::Gather if state.validate(&Command::PickUp).is_ok() => Command::PickUp,
            Errand::Gather => return Err(Stop::Arrived),
            Errand::Travel(to) if to == here => return Err(Stop::Arrived),
            Errand::Travel(to) => walk_or_why(state, warnings, here, |p| p == to, Stop::Blocked)?,
            Errand::Run(dir) => self.run(state, here, dir)?,
            Errand::Explore => {
                let goal = |p| unexplored(state, warnings, p, here) && !warnings.keeps_off(p);
                walk_or_why(state, warnings, here, goal, Stop::NothingLeft)?
            }
        };
        // A way that changes with every step (what blocks it comes into view and leaves
        // it) would walk the camel back and forth for ever: three steps back in a row
        // end the errand.
        let back = matches!(command, Command::Move(dir) if Some(here.step(dir)) == self.from);
        self.reversals = if back { self.reversals + 1 } else { 0 };
        if self.reversals >= DITHER {
            return Err(Stop::Dithering);
        }
        self.from = Some(here);
        self.steps += 1;
        Ok(command)
    }

    /// Whether it is a walk to where the camel fills its skin: one the warning of a low
    /// skin would only interrupt.
    fn to_water(&self, state: &State) -> bool {
        matches!(self.errand, Errand::Travel(to) if state.world().fills_at(to))
    }

    fn moves(&self) -> bool {
        !matches!(self.errand, Errand::Rest | Errand::Gather)
    }

    /// A run goes on while the way ahead is open and like the ground it left.
    fn run(&self, state: &State, here: Pos, dir: Direction) -> Result<Command, Stop> {
        let map = state.world().map();
        let ahead = here.step(dir);
        let onto = map.terrain(ahead);
        if !map.is_free(ahead) {
            // Running into a wall is how a run ends.
            return Err(Stop::Arrived);
        }
        let started_on = self.from.map(|p| map.terrain(p));
        if self.steps > 0 && started_on.is_some_and(|t| t != onto) {
            return Err(Stop::Arrived);
        }
        Ok(Command::Move(dir))
    }
}

/// `walk`, keeping off where the sand stirred; or, where there is no such way, why not:
/// `PastStirring` when the only way passes there, else `none`.
fn walk_or_why(
    state: &State,
    warnings: &Warnings,
    from: Pos,
    is_goal: impl Fn(Pos) -> bool,
    none: Stop,
) -> Result<Command, Stop> {
    if let Some(command) = walk(state, warnings, from, &is_goal) {
        return Ok(command);
    }
    let unstirred = warnings.without_stirrings();
    let past = warnings.count() > 0 && walk(state, &unstirred, from, is_goal).is_some();
    Err(if past { Stop::PastStirring } else { none })
}

/// Why a rest ends before its next turn, if it does: the camel is whole, or (hurt) its
/// wounds close by themselves nowhere here. A rest outlasts poison in both cases: the
/// burn is still to come.
fn rest_over(hurt: bool, poisoned: bool, heals: bool) -> Option<Stop> {
    match (hurt, poisoned, heals) {
        (_, true, _) => None,
        (false, false, _) => Some(Stop::Healed),
        (true, false, false) => Some(Stop::NothingHeals),
        (true, false, true) => None,
    }
}

/// The first command of a cheapest walk, through cells the camel remembers and off the
/// ground about a stirring (`warnings`), to the nearest cell `is_goal` accepts: a step, or
/// opening the door in the way (a locked one only with a key: `World::opens`). It keeps
/// off the cells beside a creature awake and hostile in view where another way leads to
/// a goal: played by eye, explore walked the camel past a grazing elephant's flank.
fn walk(
    state: &State,
    warnings: &Warnings,
    from: Pos,
    is_goal: impl Fn(Pos) -> bool,
) -> Option<Command> {
    let world = state.world();
    let map = world.map();
    let eggs = known_eggs(state, warnings);
    let may = |p| may_enter(state, &eggs, p) && !warnings.keeps_off(p);
    let wary: Vec<Pos> = world
        .actors()
        .filter(|&(id, _)| !world.is_player(id) && world.sees_actor(id))
        .filter(|(_, a)| a.species() != Species::SpiderEgg && is_hostile(a))
        .map(|(_, a)| a.pos())
        .collect();
    let apart = |p: Pos| wary.iter().all(|c| c.distance(p) > 1);
    // The goal too: a search may always enter its goal, and explore's nearest unseen
    // cell was one beside an elephant.
    let goal_apart = |p| is_goal(p) && apart(p);
    let wide = first_step(map, from, u32::MAX, goal_apart, |p| may(p) && apart(p));
    let (dir, _) = wide.or_else(|| first_step(map, from, u32::MAX, &is_goal, may))?;
    let next = from.step(dir);
    Some(if world.opens(map.terrain(next)) {
        Command::Open(dir)
    } else {
        Command::Move(dir)
    })
}

/// Where the nearest cell the camel knows a way to and fills its skin at lies, if any.
fn nearest_water(state: &State, warnings: &Warnings, here: Pos) -> Option<Water> {
    let world = state.world();
    let eggs = known_eggs(state, warnings);
    let may = |p| may_enter(state, &eggs, p);
    let fills = |p| world.known_to_fill_at(p);
    let (_, at) = first_step(world.map(), here, u32::MAX, fills, may)?;
    Some(Water {
        cells: here.distance(at),
        toward: compass(here, at)?,
    })
}

/// The one of eight directions nearest the bearing from `from` to `to`: a diagonal
/// only where neither axis is more than twice the other.
fn compass(from: Pos, to: Pos) -> Option<Direction> {
    let (dx, dy) = (to.x - from.x, to.y - from.y);
    let (wide, tall) = (dx.abs(), dy.abs());
    let across = if tall > 2 * wide { 0 } else { dx.signum() };
    let down = if wide > 2 * tall { 0 } else { dy.signum() };
    Direction::from_delta(across, down)
}

/// Whether a walk the camel plans may pass through `p`: a cell it remembers, open or
/// one it can open (a locked door only with a key), with no creature in view on it but
/// an ally, which gives way (the two change places: played by eye, a jackal standing in
/// a house's only door made explore say there was nowhere left to explore, and travel
/// that it knew no way; one out of view the camel cannot know of), and out of the
/// hearing of every dormant egg
/// it knows of (`eggs`, from `known_eggs`): walked past, a nest hatches a spider on every
/// free cell about it.
fn may_enter(state: &State, eggs: &[Pos], p: Pos) -> bool {
    let world = state.world();
    let map = world.map();
    let terrain = map.terrain(p);
    let open = terrain.is_passable() || world.opens(terrain);
    let blocked = map.occupant(p).is_some_and(|id| {
        let ally = world.actor(id).is_some_and(|a| a.is_ally());
        world.sees_actor(id) && !ally
    });
    let hearing = Species::SpiderEgg.hearing();
    let near_an_egg = eggs.iter().any(|egg| egg.distance(p) <= hearing);
    world.remembers(p) && open && !blocked && !near_an_egg
}

/// Where the dormant eggs the camel knows of lie: those it sees and those it remembers
/// (`warnings`), gathered once for a whole search, which asks `may_enter` of every cell it
/// reaches.
fn known_eggs(state: &State, warnings: &Warnings) -> Vec<Pos> {
    let world = state.world();
    let seen = world
        .actors()
        .filter(|&(id, a)| a.species() == Species::SpiderEgg && world.sees_actor(id));
    let mut eggs: Vec<Pos> = seen.map(|(_, a)| a.pos()).chain(warnings.eggs()).collect();
    eggs.sort();
    eggs.dedup();
    eggs
}

/// The most hit points a slow harm takes in one step: poison's burn, thirst's weakening.
const SLOW_HARM: i16 = 1;

/// Whether the camel suffers a slow harm, that an errand goes on through: poison, or
/// thirst with the waterskin empty.
fn slow_harm(state: &State) -> bool {
    let world = state.world();
    let Some(camel) = world.player() else {
        return false;
    };
    let parched = world.rules().desert_clock() && world.water() == 0;
    poisoned(camel) || parched
}

fn poisoned(camel: &Actor) -> bool {
    camel.conditions().has(Condition::Poisoned)
}

/// How many of the cells nearest a click are tried for a way there.
const CLICK_TRIES: usize = 16;

/// Where a click on `to` travels: `to` itself when the camel knows a way there, or else
/// the cell nearest it that the camel knows a way to (the shore of a pool, the near side
/// of a wall), the one nearest the camel among equals. `None` when it knows a way to
/// none of the cells near it.
pub fn travel_goal(state: &State, warnings: &Warnings, to: Pos) -> Option<Pos> {
    let here = state.world().player()?.pos();
    let eggs = known_eggs(state, warnings);
    let mut near: Vec<Pos> = state
        .world()
        .map()
        .cells()
        .filter(|&p| p == here || may_enter(state, &eggs, p))
        .collect();
    near.sort_by_key(|&p| (p.distance(to), p.distance(here), p));
    near.into_iter()
        .take(CLICK_TRIES)
        .find(|&p| p == here || walk(state, warnings, here, |q| q == p).is_some())
}

/// Where exploring leads: a cell never seen, or a remembered item that would fit in the
/// bags, not underfoot, nor where the camel dropped it (`warnings`).
fn unexplored(state: &State, warnings: &Warnings, pos: Pos, here: Pos) -> bool {
    let world = state.world();
    let fits = |item| world.bags().slot_for(item).is_some();
    let wanted = pos != here && !warnings.left_at(pos) && world.items_at(pos).any(fits);
    !world.remembers(pos) || wanted
}

/// How near a hunter on the camel's trail, or a provoked tortoise, threatens it: one
/// further off may have no way to it (a scorpion behind cacti waits where it is).
const NEAR: u16 = 5;

/// The nearest creature the camel sees that threatens it: awake, hostile, and beside
/// it, coming for it (a hunter on its trail or a provoked tortoise within `NEAR`, a
/// charging elephant from any distance), or within the reach of a strike from afar (a
/// cobra that spits as soon as it wanders into a line). A snake or a spider wandering
/// by, a sleeper, an egg or an ally is no reason to stop, nor to refuse an errand.
pub fn threat(state: &State) -> Option<Threat> {
    let world = state.world();
    let here = world.player()?.pos();
    let hostile = |a: &Actor| a.species() != Species::SpiderEgg && is_hostile(a);
    let coming = |id, a: &Actor| {
        let near = a.pos().distance(here) <= NEAR && has_a_way(state, a.pos(), here);
        // A hunter whose way is shut waits where it is, as the sim decides (`closes_in`).
        let stuck = a.species().hunts() && !closes_in(world, id);
        let hunting = on_the_camels_trail(state, a) && !is_fleeing(a) && !stuck;
        let charging_at = a.charging().is_some_and(|dir| ahead(a.pos(), dir, here));
        charging_at || (near && (hunting || a.species() == Species::Tortoise))
    };
    let in_reach =
        |a: &Actor| a.species().reach() > 1 && a.pos().distance(here) <= a.species().reach();
    let how = |id, a: &Actor| match a.pos().distance(here) {
        0 | 1 => Some(Menace::Beside),
        _ if coming(id, a) => Some(Menace::Coming),
        _ if in_reach(a) => Some(Menace::InReach),
        _ => None,
    };
    let threats = world.actors().filter_map(|(id, a)| {
        let seen = !world.is_player(id) && world.sees_actor(id) && hostile(a);
        Some((id, a, how(id, a).filter(|_| seen)?))
    });
    let (_, nearest, how) = threats.min_by_key(|&(id, a, _)| (a.pos().distance(here), id))?;
    Some(Threat {
        name: sandglass_sim::text::a(nearest.species().name()),
        how,
    })
}

/// Whether `creature` goes for the camel: a hunter on its trail, a vulture over a
/// weakened camel (it comes down by sight, with no trail to follow), or a thief with
/// empty paws that sees it.
pub fn on_the_camels_trail(state: &State, creature: &Actor) -> bool {
    let world = state.world();
    match creature.species() {
        Species::Vulture => world.player().is_some_and(weakened),
        Species::Fennec => world.sees(creature.pos()) && carried(world, creature).is_none(),
        species => species.hunts() && creature.last_seen().is_some(),
    }
}

/// Whether a creature at `from` has a short way on foot to the camel at `to`, as far as
/// the camel knows the ground: a hunter behind water or cacti, with no way round near,
/// is no threat yet.
fn has_a_way(state: &State, from: Pos, to: Pos) -> bool {
    let map = state.world().map();
    // In quarters of a step (`path::step_cost`): twice `NEAR` steps of sand.
    let reach = 4 * 2 * u32::from(NEAR);
    let free = |p: Pos| p == to || map.terrain(p).is_passable();
    first_step(map, from, reach, |p| p == to, free).is_some()
}

/// Whether `to` lies on the line from `from` in direction `dir`: where a charge from
/// `from` goes.
fn ahead(from: Pos, dir: Direction, to: Pos) -> bool {
    let (dx, dy) = dir.delta();
    let (x, y) = (to.x - from.x, to.y - from.y);
    let along = if dx != 0 { x / dx } else { y / dy };
    along > 0 && (x, y) == (dx * along, dy * along)
}

fn camel_hp(state: &State) -> i16 {
    state.world().player().map_or(0, |c| c.hp())
}

/// Where the stairs (or the oasis) are, if the camel has seen them.
pub fn known_stairs(state: &State) -> Option<Pos> {
    let world = state.world();
    let map = world.map();
    map.cells()
        .find(|&p| world.remembers(p) && matches!(map.terrain(p), Terrain::Stairs | Terrain::Oasis))
}

#[cfg(test)]
mod tests {
    use super::*;
    use sandglass_sim::message::Msg;
    use sandglass_sim::{LiveTape, Rules, Ruleset};

    /// No warning of stirring sand yet.
    fn calm() -> Warnings {
        Warnings::default()
    }

    /// Plays `command` on `game`, and notes in `warnings` whether the sand stirred.
    fn play(game: &mut LiveTape, warnings: &mut Warnings, command: Command) {
        let seen = game.state().world().messages().total();
        game.command(command, &mut ())
            .expect("an errand plays legal commands");
        let log = game.state().world().messages();
        let said: Vec<Msg> = log.since(seen).map(|m| m.msg).collect();
        warnings.note(game.state(), &said);
    }

    /// Plays `errand` on a new game of `seed` until it stops; the commands it played.
    fn run(seed: u64, errand: Errand) -> (LiveTape, Vec<Command>, Stop) {
        let mut game = LiveTape::new(Rules::newest(Ruleset::NETHACK), seed);
        let mut warnings = calm();
        let mut running = Running::start(errand, game.state(), &warnings);
        let mut played = vec![];
        loop {
            match running.next(game.state(), &warnings) {
                Ok(command) => {
                    play(&mut game, &mut warnings, command);
                    played.push(command);
                }
                Err(stop) => return (game, played, stop),
            }
        }
    }

    /// Exploring goes on past creatures that merely come into view, and stops only for
    /// one that threatens the camel, which is then in view and near or on its way.
    #[test]
    fn exploring_walks_to_unseen_places_and_stops_only_for_a_threat() {
        let mut passed_by = 0;
        for seed in 1..13 {
            let before = LiveTape::new(Rules::newest(Ruleset::NETHACK), seed);
            let seen_before = before.state().world().explored().len();
            let (game, played, stop) = run(seed, Errand::Explore);
            let world = game.state().world();
            assert!(!played.is_empty(), "seed {seed}: {stop:?}");
            assert!(world.explored().len() > seen_before, "seed {seed}");
            passed_by += world
                .actors()
                .filter(|&(id, _)| !world.is_player(id) && world.sees_actor(id))
                .count();
            match stop {
                Stop::Threat(seen) => assert_eq!(threat(game.state()), Some(seen)),
                Stop::Hurt(lost) => assert!(lost > 0),
                Stop::Thirsty { .. } => assert!(world.water() <= WATER_LOW),
                Stop::NothingLeft | Stop::TooLong | Stop::Over => {}
                Stop::SandStirs | Stop::PastStirring | Stop::Weakening { .. } => {}
                Stop::Dithering => {}
                other => panic!("seed {seed}: exploring stopped for {other:?}"),
            }
        }
        assert!(
            passed_by > 0,
            "some creature was in view when exploring stopped"
        );
    }

    /// A charge threatens only what lies ahead of it.
    #[test]
    fn a_charge_goes_only_ahead() {
        let from = Pos::new(5, 5);
        assert!(ahead(from, Direction::E, Pos::new(9, 5)));
        assert!(!ahead(from, Direction::E, Pos::new(1, 5)));
        assert!(!ahead(from, Direction::E, Pos::new(9, 6)));
        assert!(ahead(from, Direction::N, Pos::new(5, 0)));
        assert!(!ahead(from, Direction::N, Pos::new(5, 5)));
    }

    /// A stop says why, a threat how it threatens.
    #[test]
    fn a_threat_is_told_as_beside_or_coming() {
        let beside = Threat {
            name: "a spider".into(),
            how: Menace::Beside,
        };
        assert_eq!(beside.to_string(), "a spider is beside you");
        let spitting = Threat {
            name: "a cobra".into(),
            how: Menace::InReach,
        };
        assert_eq!(spitting.to_string(), "a cobra can strike you from there");
        let coming = Threat {
            name: "a jackal".into(),
            how: Menace::Coming,
        };
        assert_eq!(
            Stop::Threat(coming).message().unwrap(),
            "You stop: a jackal is coming for you."
        );
        assert_eq!(
            Stop::Hurt(3).message().unwrap(),
            "You stop: you lost 3 hit points."
        );
    }

    /// Regression: exploring went on, and on again at each key, while a cobra in view
    /// spat at the camel from a few cells off each time it wandered into a line (played
    /// by eye: 30 hit points to 1, "You stop: you lost 3 hit points" at every spit). A
    /// cobra within its spit's reach is a threat before it lines up.
    #[test]
    fn a_cobra_within_its_spits_reach_is_a_threat_before_it_lines_up() {
        let reach = Species::Cobra.reach();
        let cobra_off = |state: &State| {
            let world = state.world();
            let Some(here) = world.player().map(|c| c.pos()) else {
                return false;
            };
            world.actors().any(|(id, a)| {
                a.species() == Species::Cobra
                    && world.sees_actor(id)
                    && (2..=reach).contains(&a.pos().distance(here))
            })
        };
        let game = (1..60)
            .find_map(|seed| played_until(seed, 4_000, cobra_off))
            .expect("some game meets a cobra a few cells off");
        let threat = threat(game.state()).expect("the cobra threatens");
        assert_ne!(threat.how, Menace::Beside, "{threat}");
    }

    /// A game of `seed` rested on (the bot's command where resting is refused) until
    /// `done` says so, at most `commands` commands; `None` if it never did, or ended.
    fn played_until(seed: u64, commands: u32, done: impl Fn(&State) -> bool) -> Option<LiveTape> {
        let mut game = LiveTape::new(Rules::newest(Ruleset::NETHACK), seed);
        let mut bot = sandglass_sim::bot::Bot::new(seed);
        for _ in 0..commands {
            if done(game.state()) {
                return Some(game);
            }
            let command = bot.choose(game.state())?;
            game.command(command, &mut ()).ok()?;
        }
        None
    }

    /// What the camel drops, exploring leaves where it lies: it neither picks it up again
    /// underfoot nor walks back for it (played by eye, explore went back for every stone
    /// the camel put down).
    #[test]
    fn exploring_leaves_what_the_camel_dropped() {
        let mut game = LiveTape::new(Rules::newest(Ruleset::NETHACK), 3);
        let mut warnings = calm();
        let stones = |g: &LiveTape| {
            let world = g.state().world();
            world.bags().find(sandglass_sim::item::Item::Stone)
        };
        let stone = stones(&game).expect("the camel sets out with stones");
        play(&mut game, &mut warnings, Command::Drop(stone));
        let dropped = game.state().world().player().unwrap().pos();
        assert!(warnings.left_at(dropped));
        let mut running = Running::start(Errand::Explore, game.state(), &warnings);
        for _ in 0..60 {
            let Ok(command) = running.next(game.state(), &warnings) else {
                break;
            };
            let here = game.state().world().player().unwrap().pos();
            assert!(
                !(command == Command::PickUp && here == dropped),
                "explore picked up what the camel dropped"
            );
            play(&mut game, &mut warnings, command);
        }
        let world = game.state().world();
        assert!(
            world.items_at(dropped).next().is_some(),
            "it lies where it fell"
        );
        assert!(!warnings.left_at(Pos::new(0, 0)));
    }

    /// An errand stops once, as the waterskin runs low, saying so: a walk, and a rest away
    /// from water (played by eye, a rest till healed drank the skin from 14 to 1); a rest
    /// where the skin fills does not, and nor does the next errand, begun with the skin
    /// already low (it may be going for water).
    #[test]
    fn a_walk_stops_once_as_the_waterskin_runs_low() {
        let low = |s: &State| (1..=WATER_LOW).contains(&s.world().water()) && threat(s).is_none();
        let game = (1..20)
            .find_map(|seed| played_until(seed, 3000, low))
            .expect("a game whose skin runs low");
        let state = game.state();
        let hp = camel_hp(state);
        let crossing = |errand| Running {
            water: WATER_LOW + 1,
            hp,
            ..Running::start(errand, state, &calm())
        };
        let thirsty = |stop: Result<Command, Stop>| matches!(stop, Err(Stop::Thirsty { .. }));
        let water = nearest_water(state, &calm(), state.world().player().unwrap().pos());
        assert_eq!(
            crossing(Errand::Explore).next(state, &calm()),
            Err(Stop::Thirsty { dry: false, water })
        );
        let by_water = state
            .world()
            .fills_at(state.world().player().unwrap().pos());
        assert_eq!(
            thirsty(crossing(Errand::Rest).next(state, &calm())),
            !by_water
        );
        // A walk to the shore of a pool goes on: it is going for water.
        let map = state.world().map();
        let shore = map.cells().find(|&p| {
            map.is_free(p)
                && Direction::ALL
                    .into_iter()
                    .any(|d| map.terrain(p.step(d)) == Terrain::Water)
        });
        if let Some(shore) = shore {
            assert!(!thirsty(
                crossing(Errand::Travel(shore)).next(state, &calm())
            ));
        }
        assert!(!thirsty(
            Running::start(Errand::Explore, state, &calm()).next(state, &calm())
        ));
    }

    /// A moving errand stops again as the skin runs dry, saying where the nearest water
    /// it knows of lies: played by eye, explore walked a parched camel down to half its
    /// hit points.
    #[test]
    fn a_walk_stops_once_more_as_the_waterskin_runs_dry() {
        let dry = |s: &State| s.world().water() == 0 && threat(s).is_none();
        let game = (1..20)
            .find_map(|seed| played_until(seed, 4000, dry))
            .expect("a game whose skin runs dry");
        let state = game.state();
        let here = state.world().player().unwrap().pos();
        let drying = Running {
            water: 1,
            ..Running::start(Errand::Explore, state, &calm())
        };
        let Err(Stop::Thirsty { dry: true, water }) = drying.clone().next(state, &calm()) else {
            panic!("the walk goes on as the skin runs dry");
        };
        if let Some(Water { cells, toward }) = water {
            // The water told of is where the skin fills, that far and that way.
            let world = state.world();
            // Water it has seen: a cell beside a pool it remembers, or the oasis.
            let map = world.map();
            let seen_water = |p: Pos| world.remembers(p) && map.terrain(p) == Terrain::Water;
            let told = map.cells().filter(|&p| {
                world.remembers(p)
                    && (map.terrain(p) == Terrain::Oasis
                        || Direction::ALL.into_iter().any(|d| seen_water(p.step(d))))
                    && here.distance(p) == cells
                    && compass(here, p) == Some(toward)
            });
            assert!(told.count() > 0, "water {cells} cells {}", toward.name());
        }
        // Once told, the walk goes on (the player may be looking for water).
        let mut told = drying;
        let _ = told.next(state, &calm());
        assert!(!matches!(
            told.next(state, &calm()),
            Err(Stop::Thirsty { .. })
        ));
    }

    #[test]
    fn thirst_is_told_with_the_nearest_water_and_its_bearing() {
        let water = Water {
            cells: 12,
            toward: Direction::NE,
        };
        let low = Stop::Thirsty {
            dry: false,
            water: Some(water),
        };
        assert_eq!(
            low.message().unwrap(),
            "You stop: your waterskin is nearly empty. The nearest water you know of is \
             12 cells north-east."
        );
        let dry = Stop::Thirsty {
            dry: true,
            water: None,
        };
        assert_eq!(
            dry.message().unwrap(),
            "You stop: your waterskin is dry, and you weaken as you go. You know of no \
             water on this level."
        );
        let at = |x, y| compass(Pos::new(10, 10), Pos::new(x, y));
        assert_eq!(at(20, 11), Some(Direction::E), "far east, a little south");
        assert_eq!(at(14, 13), Some(Direction::SE));
        assert_eq!(at(9, 2), Some(Direction::N));
        assert_eq!(at(4, 4), Some(Direction::NW));
        assert_eq!(at(10, 10), None);
    }

    /// A camel poisoned, hurt (a rest at its most hit points is over at once) and above
    /// `hp` hit points, with nothing near.
    fn sick_alone(s: &State, hp: i16) -> bool {
        let camel = s.world().player();
        let sick = camel.is_some_and(|c| c.conditions().has(Condition::Poisoned));
        let hurt = camel.is_some_and(|c| c.hp() < c.max_hp());
        sick && hurt && threat(s).is_none() && camel_hp(s) > hp
    }

    /// Poison's burn stops no errand: a rest goes on through it, as it is meant to
    /// outlast it; a blow (more than a slow harm takes) still stops one.
    #[test]
    fn a_rest_outlasts_poison() {
        let game = (1..40)
            .find_map(|seed| played_until(seed, 3000, |s| sick_alone(s, 2)))
            .expect("a hurt camel poisoned with nothing near");
        let state = game.state();
        let hp = camel_hp(state);
        let burnt = |lost| Running {
            hp: hp + lost,
            ..Running::start(Errand::Rest, state, &calm())
        };
        assert_eq!(burnt(SLOW_HARM).next(state, &calm()), Ok(Command::Rest));
        assert_eq!(
            burnt(SLOW_HARM + 1).next(state, &calm()),
            Err(Stop::Hurt(SLOW_HARM + 1))
        );
    }

    /// An ally in view gives way to a walk (the two change places), and a walk may plan
    /// through its cell; any other creature in view stands in the way.
    #[test]
    fn a_walk_passes_through_an_ally_and_not_through_a_stranger() {
        let beside = |s: &State, ally: bool| {
            let world = s.world();
            let camel = world.player().filter(|_| s.outcome().is_none())?;
            Direction::ALL
                .into_iter()
                .map(|d| camel.pos().step(d))
                .find(|&p| {
                    let id = world.map().occupant(p);
                    let seen = id.filter(|&id| world.sees_actor(id));
                    seen.and_then(|id| world.actor(id))
                        .is_some_and(|a| a.is_ally() == ally && a.species() != Species::SpiderEgg)
                })
        };
        let game = (1..60)
            .find_map(|seed| played_until(seed, 4000, |s| beside(s, true).is_some()))
            .expect("a game in which an ally stands beside the camel");
        let state = game.state();
        let ally = beside(state, true).unwrap();
        assert!(
            may_enter(state, &[], ally),
            "the ally at {ally:?} gives way"
        );
        let game = (1..60)
            .find_map(|seed| played_until(seed, 4000, |s| beside(s, false).is_some()))
            .expect("a game in which a stranger stands beside the camel");
        let stranger = beside(game.state(), false).unwrap();
        assert!(!may_enter(game.state(), &[], stranger));
    }

    /// Regression (played by eye): a rest through poison stopped on the step that poison
    /// wore off, "You stop: you lost 1 hit points", since the camel was no longer
    /// poisoned when its last burn was counted. That burn is poison's, too.
    #[test]
    fn a_rest_goes_on_past_the_burn_on_which_poison_wears_off() {
        let mut game = (1..40)
            .find_map(|seed| played_until(seed, 3000, |s| sick_alone(s, 4)))
            .expect("a hurt camel poisoned with nothing near");
        let mut rest = Running::start(Errand::Rest, game.state(), &calm());
        let mut wore_off = false;
        for _ in 0..200 {
            let sick = game.state().world().player().map(poisoned);
            match rest.next(game.state(), &calm()) {
                Ok(command) => game.command(command, &mut ()).unwrap(),
                Err(stop) => {
                    assert!(!matches!(stop, Stop::Hurt(_)), "{stop:?}");
                    break;
                }
            };
            let cured = game.state().world().player().map(poisoned) == Some(false);
            wore_off |= sick == Some(true) && cured;
            if wore_off {
                // The step it wore off on is told apart from a blow.
                let next = rest.next(game.state(), &calm());
                assert!(!matches!(next, Err(Stop::Hurt(_))), "{next:?}");
                break;
            }
        }
        assert!(wore_off, "the poison wore off during the rest");
        assert_eq!(
            Stop::Hurt(1).message().unwrap(),
            "You stop: you lost a hit point."
        );
    }

    /// A walk goes on through a slow harm, and stops as it takes the camel to half its hit
    /// points and at every point from a quarter down, saying so; between, it goes on; a
    /// rest goes on (it is meant to outlast it).
    #[test]
    fn a_walk_stops_when_a_slow_harm_takes_it_to_half() {
        let low_and_sick = |s: &State| {
            let camel = s.world().player();
            let half = camel.is_some_and(|c| c.hp() * 2 <= c.max_hp() && c.hp() > 2);
            half && slow_harm(s) && threat(s).is_none()
        };
        let game = (1..60)
            .find_map(|seed| played_until(seed, 4000, low_and_sick))
            .expect("a camel at half its hit points, poisoned or parched, nothing near");
        let state = game.state();
        let hp = camel_hp(state);
        let most = state.world().player().unwrap().max_hp();
        // The errand began at `before` hit points: one point more, or at more than half.
        let burnt = |errand, before| Running {
            hp: before,
            ..Running::start(errand, state, &calm())
        };
        let stops = |before| burnt(Errand::Explore, before).next(state, &calm());
        let weakening = Err(Stop::Weakening { hp, most });
        let one_more = hp + SLOW_HARM;
        match (one_more * 2 > most, hp * 4 <= most) {
            // Just past half, or low: a walk stops.
            (true, _) | (_, true) => assert_eq!(stops(one_more), weakening),
            // Between a quarter and half, a walk goes on through the next point.
            (false, false) => assert_ne!(stops(one_more), weakening),
        }
        assert_ne!(
            burnt(Errand::Rest, one_more).next(state, &calm()),
            weakening
        );
        let said = Stop::Weakening { hp: 12, most: 30 }.message().unwrap();
        assert_eq!(said, "You stop: you are weakening, at 12 of 30 hit points.");
    }

    /// A poisoned camel at its most hit points rests on: the poison will burn it yet.
    #[test]
    fn a_rest_at_full_health_waits_out_poison() {
        let full_and_poisoned = |s: &State| {
            let camel = s.world().player();
            let full = camel.is_some_and(|c| c.hp() >= c.max_hp() && poisoned(c));
            full && threat(s).is_none()
        };
        let game = (1..60)
            .find_map(|seed| played_until(seed, 3000, full_and_poisoned))
            .expect("a poisoned camel at full health with nothing near");
        let state = game.state();
        let mut rest = Running::start(Errand::Rest, state, &calm());
        assert_eq!(rest.next(state, &calm()), Ok(Command::Rest));
    }

    /// On the furnace's last depths, where no wound closes by itself, a rest of a hurt
    /// camel that is not poisoned is refused at once, saying why, where it would have
    /// rested until the waterskin ran dry; a poisoned one rests on, to outlast the burn.
    #[test]
    fn a_rest_where_nothing_heals_is_refused_saying_why() {
        assert_eq!(rest_over(true, false, false), Some(Stop::NothingHeals));
        assert_eq!(rest_over(true, true, false), None);
        assert_eq!(rest_over(true, false, true), None);
        assert_eq!(rest_over(false, false, false), Some(Stop::Healed));
        assert_eq!(rest_over(false, true, true), None);
        let said = Stop::NothingHeals.message().unwrap();
        assert!(said.contains("furnace") && said.contains("food"), "{said}");
    }

    /// A walk steers round a dormant egg the camel sees, out of its hearing, where a
    /// step would hatch the nest; and exploring from beside a nest never walks into it.
    #[test]
    fn a_walk_steers_round_a_dormant_egg() {
        let sees_an_egg = |s: &State| {
            let world = s.world();
            world.actors().any(|(id, a)| {
                a.species() == Species::SpiderEgg && world.sees_actor(id) && threat(s).is_none()
            })
        };
        let game = (1..60)
            .find_map(|seed| played_until(seed, 4000, sees_an_egg))
            .expect("a game in which the camel sees an egg");
        let world = game.state().world();
        let (_, egg) = world
            .actors()
            .find(|&(id, a)| a.species() == Species::SpiderEgg && world.sees_actor(id))
            .unwrap();
        let (at, hearing) = (egg.pos(), Species::SpiderEgg.hearing());
        for p in world.map().cells().filter(|p| p.distance(at) <= hearing) {
            let eggs = known_eggs(game.state(), &calm());
            assert!(
                !may_enter(game.state(), &eggs, p),
                "{p:?} by the egg at {at:?}"
            );
        }
        let mut game = game;
        let mut running = Running::start(Errand::Explore, game.state(), &calm());
        for _ in 0..200 {
            let Ok(command) = running.next(game.state(), &calm()) else {
                break;
            };
            let before = game.state().world().player().unwrap().pos();
            game.command(command, &mut ()).unwrap();
            let camel = game.state().world().player().unwrap().pos();
            if camel != before {
                assert!(
                    camel.distance(at) > hearing,
                    "{camel:?} by the egg at {at:?}"
                );
            }
        }
    }

    /// Where the sand stirs, exploring stops and says so; explored again, the camel keeps
    /// off the ground about the stirring but for where it stood calm, the way it came.
    #[test]
    fn exploring_stops_where_the_sand_stirs_and_keeps_off_it_after() {
        let found = (1..80).find_map(|seed| {
            let mut game = LiveTape::new(Rules::newest(Ruleset::NETHACK), seed);
            let mut bot = sandglass_sim::bot::Bot::new(seed);
            let mut warnings = calm();
            let mut running = Running::start(Errand::Explore, game.state(), &warnings);
            // Explore while it goes on; where it stops for anything else, the bot plays.
            for _ in 0..4000 {
                let command = match running.next(game.state(), &warnings) {
                    Err(Stop::SandStirs) => return Some((game, warnings)),
                    Ok(command) => command,
                    Err(_) => {
                        running = Running::start(Errand::Explore, game.state(), &warnings);
                        bot.choose(game.state())?
                    }
                };
                play(&mut game, &mut warnings, command);
            }
            None
        });
        let (mut game, mut warnings) = found.expect("a game in which exploring met stirring sand");
        let spot = game.state().world().player().unwrap().pos();
        assert!(warnings.keeps_off(spot) && warnings.count() > 0);
        let mut running = Running::start(Errand::Explore, game.state(), &warnings);
        for _ in 0..300 {
            let Ok(command) = running.next(game.state(), &warnings) else {
                break;
            };
            let before = warnings.clone();
            let from = game.state().world().player().unwrap().pos();
            play(&mut game, &mut warnings, command);
            let camel = game.state().world().player().unwrap().pos();
            // A pick-up where it stands is no step onto the stirring.
            let stepped = camel != from;
            assert!(
                !(stepped && before.keeps_off(camel)),
                "{command:?} to {camel:?} by the stirring at {spot:?}"
            );
        }
    }

    /// An egg the camel saw is kept off after it leaves the camel's view, until its cell
    /// is seen without it: a walk that kept off it only in view turned back each time it
    /// came into view, back and forth until the camel died of thirst.
    #[test]
    fn a_walk_keeps_off_an_egg_out_of_view() {
        let found = (1..80).find_map(|seed| {
            let mut game = LiveTape::new(Rules::newest(Ruleset::NETHACK), seed);
            let mut bot = sandglass_sim::bot::Bot::new(seed);
            let mut warnings = calm();
            let mut seen: Option<Pos> = None;
            for _ in 0..4000 {
                let command = bot.choose(game.state())?;
                play(&mut game, &mut warnings, command);
                let world = game.state().world();
                match seen {
                    None => seen = warnings.eggs().next(),
                    Some(egg) if !world.sees(egg) => return Some((game, warnings, egg)),
                    Some(_) => {}
                }
                if seen.is_some_and(|egg| !warnings.eggs().any(|e| e == egg)) {
                    seen = None;
                }
            }
            None
        });
        let (game, warnings, egg) = found.expect("a game whose camel saw an egg and left it");
        let state = game.state();
        assert!(known_eggs(state, &warnings).contains(&egg));
        assert!(!known_eggs(state, &calm()).contains(&egg));
        let hearing = Species::SpiderEgg.hearing();
        let eggs = known_eggs(state, &warnings);
        for p in state
            .world()
            .map()
            .cells()
            .filter(|p| p.distance(egg) <= hearing)
        {
            assert!(!may_enter(state, &eggs, p), "{p:?} by the egg at {egg:?}");
        }
        assert_eq!(
            Stop::Dithering.message().unwrap(),
            "You stop: the way on keeps changing, as what blocks it comes into view and \
             leaves it. Step by hand."
        );
    }

    /// `,` on a pile takes all of it that fits, one command an item, and stops when
    /// nothing is left underfoot.
    #[test]
    fn a_pile_is_taken_whole() {
        let pile = |s: &State| {
            let world = s.world();
            let fits = |item| world.bags().slot_for(item).is_some();
            let here = world.player().map(|c| c.pos());
            let more = here.is_some_and(|p| world.items_at(p).filter(|&i| fits(i)).count() > 1);
            // Nothing awake and hostile in view within a few steps, nor a thief in view
            // at all (it comes for the bags faster than the camel picks up), to come and
            // stop it.
            let alone = here.is_some_and(|p| {
                !world.actors().any(|(id, a)| {
                    let near = a.pos().distance(p) <= 4 || a.species() == Species::Fennec;
                    !world.is_player(id) && world.sees_actor(id) && is_hostile(a) && near
                })
            });
            more && alone
        };
        let mut game = (1..60)
            .find_map(|seed| played_until(seed, 4000, pile))
            .expect("a game whose camel stands on a pile");
        let here = game.state().world().player().unwrap().pos();
        let before = game.state().world().items_at(here).count();
        let mut running = Running::start(Errand::Gather, game.state(), &calm());
        let mut taken = 0;
        while let Ok(command) = running.next(game.state(), &calm()) {
            assert_eq!(command, Command::PickUp);
            game.command(command, &mut ()).unwrap();
            taken += 1;
        }
        assert!(taken >= 2, "{taken} of {before}");
        let left = game.state().world().items_at(here).next();
        assert!(left.is_none_or(|item| game.state().world().bags().slot_for(item).is_none()));
    }

    #[test]
    fn exploring_picks_up_what_it_walks_onto() {
        let (game, played, _) = run(11, Errand::Explore);
        if played.contains(&Command::PickUp) {
            let bags = game.state().world().bags();
            assert!(
                bags.stacks().count() > 3,
                "something was added to the starting kit"
            );
        }
    }

    #[test]
    fn travel_arrives_and_resting_stops_when_healed() {
        let game = LiveTape::new(Rules::newest(Ruleset::NETHACK), 4);
        let here = game.state().world().player().unwrap().pos();
        let world = game.state().world();
        let target = world
            .map()
            .cells()
            .filter(|&p| world.remembers(p) && world.map().is_free(p))
            .max_by_key(|p| p.distance(here))
            .unwrap();
        let (game, played, stop) = run(4, Errand::Travel(target));
        let camel = game.state().world().player().unwrap().pos();
        assert!(stop == Stop::Arrived && camel == target || matches!(stop, Stop::Threat(_)));
        assert!(!played.is_empty());
        let (_, played, stop) = run(4, Errand::Rest);
        assert_eq!(
            (played, stop.clone()),
            (vec![], Stop::Healed),
            "a healthy camel need not rest"
        );
        assert_eq!(stop.message().unwrap(), "You are at full health.");
    }

    #[test]
    fn the_stairs_are_known_once_seen() {
        let mut game = LiveTape::new(Rules::newest(Ruleset::NETHACK), 2);
        let mut bot = sandglass_sim::bot::Bot::new(2);
        bot.play_until(&mut game, |s| {
            known_stairs(s).is_some() || s.world().depth() > 1
        })
        .unwrap();
        if game.state().world().depth() == 1 {
            let stairs = known_stairs(game.state()).unwrap();
            assert_eq!(game.state().world().map().terrain(stairs), Terrain::Stairs);
            assert!(game.state().world().remembers(stairs));
        }
    }
}
