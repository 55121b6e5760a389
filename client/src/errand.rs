//! Errands: travel, run, explore and rest until healed. The client plays them for the
//! player as ordinary commands, one at a time, each saved like any other; the tape never
//! knows an errand was running. An errand stops as soon as the state says it should: a
//! creature comes into view, the camel is hurt, something lies underfoot, or there is
//! nowhere left to go. None starts while a creature that could hurt the camel is near
//! (`threat_near`): each key would walk the camel on while it is bitten.

use std::collections::BTreeSet;

use sandglass_sim::geometry::{Direction, Pos};
use sandglass_sim::ids::ActorId;
use sandglass_sim::map::Terrain;
use sandglass_sim::path::first_step;
use sandglass_sim::species::Species;
use sandglass_sim::world::Actor;
use sandglass_sim::{is_hostile, Command, State};

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
}

/// An errand under way, and what the camel knew when it started.
#[derive(Clone, Debug)]
pub struct Running {
    errand: Errand,
    /// The creatures in view when it started, or that came into view and were accepted.
    known: BTreeSet<ActorId>,
    hp: i16,
    /// Where the camel stood before its last step.
    from: Option<Pos>,
    steps: u32,
}

/// Why an errand stopped, for the message line.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Stop {
    Arrived,
    Seen(String),
    Hurt,
    Underfoot,
    Blocked,
    NothingLeft,
    Healed,
    TooLong,
}

impl Stop {
    /// What the player is told; nothing when the errand simply did what it was asked.
    pub fn message(&self) -> Option<String> {
        match self {
            Stop::Arrived | Stop::Blocked | Stop::Healed => None,
            Stop::Seen(what) => Some(format!("You see {what}.")),
            Stop::Hurt => Some("You are hurt!".into()),
            Stop::Underfoot => Some("There is something here.".into()),
            Stop::NothingLeft => {
                Some("There is nowhere left to explore that you can reach.".into())
            }
            Stop::TooLong => Some("You stop to look around.".into()),
        }
    }
}

/// Steps after which any errand pauses, however well it goes.
const LONGEST: u32 = 500;

impl Running {
    pub fn start(errand: Errand, state: &State) -> Running {
        Running {
            errand,
            known: in_view(state),
            hp: camel_hp(state),
            from: None,
            steps: 0,
        }
    }

    pub fn errand(&self) -> Errand {
        self.errand
    }

    /// The next command, or why the errand is over. Looks at the state the last command
    /// left: what came into view, whether the camel was hurt, what lies underfoot.
    pub fn next(&mut self, state: &State) -> Result<Command, Stop> {
        let world = state.world();
        let Some(camel) = world.player().filter(|c| c.is_present()) else {
            return Err(Stop::Blocked);
        };
        if state.outcome().is_some() {
            return Err(Stop::Blocked);
        }
        let here = camel.pos();
        let new = in_view(state)
            .into_iter()
            .find(|id| !self.known.contains(id));
        if let Some(id) = new {
            self.known.insert(id);
            let name = world.actor(id).map_or("something", |a| a.species().name());
            return Err(Stop::Seen(sandglass_sim::text::a(name)));
        }
        if camel.hp() < self.hp {
            return Err(Stop::Hurt);
        }
        self.hp = camel.hp();
        let underfoot = world.items_at(here).next();
        if self.errand == Errand::Explore {
            // Exploring picks up what it finds, as it goes.
            if underfoot.is_some_and(|item| world.bags().slot_for(item).is_some()) {
                self.steps += 1;
                return Ok(Command::PickUp);
            }
        } else if self.steps > 0 && underfoot.is_some() && self.moves() {
            return Err(Stop::Underfoot);
        }
        if self.steps >= LONGEST {
            return Err(Stop::TooLong);
        }
        let command = match self.errand {
            Errand::Rest if camel.hp() >= camel.max_hp() => return Err(Stop::Healed),
            Errand::Rest => Command::Rest,
            Errand::Travel(to) if to == here => return Err(Stop::Arrived),
            Errand::Travel(to) => walk(state, here, |p| p == to).ok_or(Stop::Blocked)?,
            Errand::Run(dir) => self.run(state, here, dir)?,
            Errand::Explore => {
                walk(state, here, |p| unexplored(state, p, here)).ok_or(Stop::NothingLeft)?
            }
        };
        self.from = Some(here);
        self.steps += 1;
        Ok(command)
    }

    fn moves(&self) -> bool {
        self.errand != Errand::Rest
    }

    /// A run goes on while the way ahead is open and like the ground it left.
    fn run(&self, state: &State, here: Pos, dir: Direction) -> Result<Command, Stop> {
        let map = state.world().map();
        let ahead = here.step(dir);
        let onto = map.terrain(ahead);
        if !map.is_free(ahead) {
            return Err(Stop::Blocked);
        }
        let started_on = self.from.map(|p| map.terrain(p));
        if self.steps > 0 && started_on.is_some_and(|t| t != onto) {
            return Err(Stop::Arrived);
        }
        Ok(Command::Move(dir))
    }
}

/// The first command of a cheapest walk, through cells the camel remembers, to the
/// nearest cell `is_goal` accepts: a step, or opening the door in the way (a locked one
/// only with a key: `World::opens`).
fn walk(state: &State, from: Pos, is_goal: impl Fn(Pos) -> bool) -> Option<Command> {
    let world = state.world();
    let map = world.map();
    let may_enter = |p: Pos| {
        let terrain = map.terrain(p);
        let open = terrain.is_passable() || world.opens(terrain);
        // A creature in view is in the way; one out of view the camel cannot know of.
        let blocked = map.occupant(p).is_some_and(|id| world.sees_actor(id));
        world.remembers(p) && open && !blocked
    };
    let (dir, _) = first_step(map, from, u32::MAX, is_goal, may_enter)?;
    let next = from.step(dir);
    Some(if world.opens(map.terrain(next)) {
        Command::Open(dir)
    } else {
        Command::Move(dir)
    })
}

/// Where exploring leads: a cell never seen, or a remembered item that would fit in the
/// bags, not underfoot.
fn unexplored(state: &State, pos: Pos, here: Pos) -> bool {
    let world = state.world();
    let fits = |item| world.bags().slot_for(item).is_some();
    !world.remembers(pos) || (pos != here && world.items_at(pos).any(fits))
}

/// How near a creature coming for the camel keeps an errand from starting.
const NEAR: u16 = 5;

/// The nearest creature the camel sees that is about to hurt it: awake, not its ally,
/// and beside it, or within `NEAR` and coming for it (a hunter on its trail, a charging
/// elephant, a provoked tortoise). A snake wandering by is no reason to stop. Its name,
/// with its article.
pub fn threat_near(state: &State) -> Option<String> {
    let world = state.world();
    let here = world.player()?.pos();
    let hostile = |a: &Actor| a.species() != Species::SpiderEgg && is_hostile(a);
    let coming = |a: &Actor| {
        (a.species().hunts() && a.last_seen().is_some())
            || a.charging().is_some()
            || a.species() == Species::Tortoise
    };
    let threats = world.actors().filter(|&(id, a)| {
        let distance = a.pos().distance(here);
        !world.is_player(id)
            && world.sees_actor(id)
            && hostile(a)
            && (distance <= 1 || (distance <= NEAR && coming(a)))
    });
    let (_, nearest) = threats.min_by_key(|&(id, a)| (a.pos().distance(here), id))?;
    Some(sandglass_sim::text::a(nearest.species().name()))
}

/// The creatures the camel sees now.
fn in_view(state: &State) -> BTreeSet<ActorId> {
    let world = state.world();
    world
        .actors()
        .filter(|&(id, _)| !world.is_player(id) && world.sees_actor(id))
        .map(|(id, _)| id)
        .collect()
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
    use sandglass_sim::{LiveTape, Rules, Ruleset};

    /// Plays `errand` on a new game of `seed` until it stops; the commands it played.
    fn run(seed: u64, errand: Errand) -> (LiveTape, Vec<Command>, Stop) {
        let mut game = LiveTape::new(Rules::newest(Ruleset::NETHACK), seed);
        let mut running = Running::start(errand, game.state());
        let mut played = vec![];
        loop {
            match running.next(game.state()) {
                Ok(command) => {
                    game.command(command, &mut ())
                        .expect("an errand plays legal commands");
                    played.push(command);
                }
                Err(stop) => return (game, played, stop),
            }
        }
    }

    #[test]
    fn exploring_walks_to_unseen_places_and_stops_for_what_comes_into_view() {
        for seed in 1..6 {
            let before = LiveTape::new(Rules::newest(Ruleset::NETHACK), seed);
            let seen_before = before.state().world().explored().len();
            let (game, played, stop) = run(seed, Errand::Explore);
            let world = game.state().world();
            if played.is_empty() {
                // Something was in view from the start: nothing to stop for, though.
                assert!(!matches!(stop, Stop::Seen(_)), "seed {seed}: {stop:?}");
                continue;
            }
            assert!(world.explored().len() > seen_before, "seed {seed}");
            match stop {
                Stop::Seen(what) => {
                    let in_view = world
                        .actors()
                        .filter(|&(id, _)| !world.is_player(id) && world.sees_actor(id))
                        .any(|(_, a)| what.ends_with(a.species().name()));
                    assert!(in_view, "seed {seed}: saw {what} but it is not in view");
                }
                Stop::Hurt | Stop::NothingLeft | Stop::TooLong => {}
                other => panic!("seed {seed}: exploring stopped for {other:?}"),
            }
        }
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
        assert!(stop == Stop::Arrived && camel == target || matches!(stop, Stop::Seen(_)));
        assert!(!played.is_empty());
        let (_, played, stop) = run(4, Errand::Rest);
        assert_eq!(
            (played, stop),
            (vec![], Stop::Healed),
            "a healthy camel need not rest"
        );
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
