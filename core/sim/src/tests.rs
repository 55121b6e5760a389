//! Rule tests over whole states: the time system and the creatures, watched through the
//! same observer the trace uses. One helper per boundary: `scenario` builds a state from
//! a scenario file, `run` plays it and returns what each actor did.

use crate::action::{Action, ActionRecord};
use crate::command::{Command, Slot};
use crate::decide::{EGG_WAITS, KNOCKOUT_TURNS};
use crate::drive::Live;
use crate::geometry::{Direction, Pos};
use crate::ids::Tick;
use crate::item::{Effect, Item, Look};
use crate::level::grounds::Ground;
use crate::level::Level;
use crate::map::{Map, Terrain};
use crate::message::Msg;
use crate::rules::{Rules, RulesVersion};
use crate::scenario::{find, Scenario};
use crate::species::{Behaviour, Species};
use crate::state::{Need, Observer, State};
use crate::tape::{Event, Header, Ruleset};
use crate::world::{Change, Condition};

mod allies;
mod deep;
mod desert;
mod finds;
mod furnace;
mod gear;
mod grounds;
mod herds;
mod hunted;
mod lean;
mod places;
mod sleep;
mod slowed;
mod thieves;
mod wakeful;

fn scenario(toml: &str) -> (State, u64) {
    let scenario: Scenario = toml::from_str(toml).expect("test scenario parses");
    (
        scenario.build().expect("test scenario builds"),
        scenario.seed,
    )
}

/// One action as the tests read it: tick, actor name, action, energy before and after.
type Entry = (u64, String, Action, u16, u16);

#[derive(Default)]
struct Log(Vec<Entry>);

impl Observer for Log {
    fn acted(&mut self, state: &State, r: &ActionRecord) {
        let name = state.world().name_of(r.actor).to_string();
        self.0
            .push((r.tick.0, name, r.action, r.energy_before, r.energy_after));
    }
}

/// Runs ticks 1..=`ticks` and returns every action taken, in order.
fn run(state: State, seed: u64, ticks: u64) -> (Live, Vec<Entry>) {
    let mut live = Live::resume(seed, state);
    let mut log = Log::default();
    live.run_ticks(Tick(ticks), &mut log, &mut Vec::new());
    (live, log.0)
}

fn actions_per_tick(log: &[Entry], name: &str, ticks: u64) -> Vec<usize> {
    (1..=ticks)
        .map(|t| {
            log.iter()
                .filter(|(tick, n, ..)| *tick == t && n == name)
                .count()
        })
        .collect()
}

#[test]
fn nethack_speed_16_acts_1_1_2_times_per_tick() {
    let (state, seed) = scenario(
        "ruleset = \"nethack\"\nmap = \"...\"\n[[actor]]\nname = \"speedy\"\nat = [0, 0]\nspeed = 16\nbehaviour = \"idle\"\n",
    );
    let (_, log) = run(state, seed, 6);
    assert_eq!(actions_per_tick(&log, "speedy", 6), vec![1, 1, 2, 1, 1, 2]);
}

/// Idle actors' turns are paid for a stretch of the turn order at a time when nobody
/// watches each wait: the state is the same as when every wait is shown, under both
/// rulesets and both turn orders, beside creatures that decide and resting actors, in a
/// crowd where many stretches hold no decision at all.
#[test]
fn an_idle_crowd_settled_at_once_is_the_crowd_shown_wait_by_wait() {
    for ruleset in [
        "ruleset = \"nethack\"",
        "ruleset = \"classic\"\ngain = 100\nthreshold = 100",
        "ruleset = \"classic\"\norder = \"weighted\"",
    ] {
        let mut toml = format!(
            "{ruleset}\nmap = \"\"\"\n{}\"\"\"\n",
            format!("{}\n", ".".repeat(50)).repeat(30)
        );
        for i in 0..1_500 {
            let speed = 4 + (i * 5) % 30;
            let behaviour = match i % 250 {
                0 => "behaviour = \"wander\"".to_owned(),
                1 => "behaviour = \"rest\"".to_owned(),
                2 => "species = \"snake\"".to_owned(),
                _ => format!(
                    "behaviour = \"idle\"\nmax_energy = {}\nmove_cost = {}",
                    100 + i % 40 * 3,
                    60 + i % 40 * 2
                ),
            };
            toml.push_str(&format!(
                "[[actor]]\nname = \"a{i}\"\nat = [{}, {}]\nspeed = {speed}\n{behaviour}\n",
                i % 50,
                i / 50
            ));
        }
        let (state, seed) = scenario(&toml);
        let (watched, log) = run(state.clone(), seed, 50);
        let mut unwatched = Live::resume(seed, state);
        unwatched.run_ticks(Tick(50), &mut (), &mut Vec::new());
        assert_eq!(unwatched.state(), watched.state());
        let waits = log.iter().filter(|e| e.2 == Action::Wait).count();
        assert!(
            waits > 60_000,
            "{ruleset}: the idle actors waited {waits} times"
        );
    }
}

#[test]
fn classic_slow_actor_moves_every_second_tick() {
    let (state, seed) = scenario(
        "ruleset = \"classic\"\ngain = 100\nthreshold = 100\nmap = \"...\"\n[[actor]]\nname = \"slow\"\nat = [0, 0]\nmax_energy = 150\nmove_cost = 150\nbehaviour = \"idle\"\n",
    );
    let (_, log) = run(state, seed, 6);
    assert_eq!(actions_per_tick(&log, "slow", 6), vec![0, 1, 0, 1, 0, 1]);
    assert!(log
        .iter()
        .all(|(.., before, after)| (*before, *after) == (150, 0)));
}

#[test]
fn rest_keeps_energy_up_to_the_bound() {
    let (state, seed) = scenario(
        "ruleset = \"classic\"\nmap = \"..\"\n[[actor]]\nname = \"sleeper\"\nat = [0, 0]\nmax_energy = 250\nmove_cost = 100\nbehaviour = \"rest\"\n",
    );
    let (live, log) = run(state, seed, 4);
    let energies: Vec<u16> = log.iter().map(|(.., before, _)| *before).collect();
    // Banks 100 a tick, clipped at its max of 250.
    assert_eq!(energies, vec![100, 200, 250, 250]);
    assert!(log
        .iter()
        .all(|(_, _, action, before, after)| *action == Action::Rest && before == after));
    let id = find(live.state(), "sleeper").unwrap();
    assert_eq!(live.state().world().energy(id).0, 250);
}

#[test]
fn nethack_rest_carries_at_most_the_speed_bracket() {
    let (state, seed) = scenario(
        "ruleset = \"nethack\"\nmap = \"..\"\n[[actor]]\nname = \"sleeper\"\nat = [0, 0]\nspeed = 12\nbehaviour = \"rest\"\n",
    );
    let (_, log) = run(state, seed, 3);
    let energies: Vec<u16> = log.iter().map(|(.., before, _)| *before).collect();
    // Gain is never clipped within the tick; only the carry is (12 for speed 12).
    assert_eq!(energies, vec![12, 24, 24]);
}

/// A live game, played until the camel is to move.
fn game(seed: u64, ruleset: Ruleset) -> (Header, Live, Vec<Event>) {
    let header = Header::new(seed, ruleset, 0);
    let mut tape = vec![];
    let live = Live::new(Rules::newest(ruleset), seed, &mut (), &mut tape);
    (header, live, tape)
}

#[test]
fn a_zero_cost_action_leaves_the_turn_open() {
    let (_, mut live, mut tape) = game(5, Ruleset::NETHACK);
    let camel = live.state().world().player_id().unwrap();
    let before = live.state().world().energy(camel);
    let tick = live.state().tick();
    let need = live.command(Command::Dash, &mut (), &mut tape).unwrap();
    assert_eq!(need, Need::Command);
    assert_eq!(live.state().tick(), tick);
    assert_eq!(live.state().world().energy(camel), before);
    assert!(live.state().world().is_dashing(camel));
    assert_eq!(
        live.command(Command::Dash, &mut (), &mut tape),
        Err(crate::Rejection::AlreadyDashed)
    );
}

#[test]
fn a_rejected_command_changes_nothing_and_appends_nothing() {
    let (_, mut live, mut tape) = game(11, Ruleset::CLASSIC);
    let hash = live.state().hash();
    let len = tape.len();
    for bad in [
        Command::Eat(Slot(2)),
        Command::Descend,
        Command::Drop(Slot(25)),
        Command::Wear(Slot(0)),
    ] {
        assert!(live.command(bad, &mut (), &mut tape).is_err(), "{bad:?}");
        assert_eq!(live.state().hash(), hash);
        assert_eq!(tape.len(), len);
    }
}

#[test]
fn the_weighted_order_is_reproducible_from_its_draws() {
    let text = "ruleset = \"nethack\"\norder = \"weighted\"\nseed = 9\nmap = \"....\"\n\
        [[actor]]\nname = \"a\"\nat = [0, 0]\nspeed = 6\nbehaviour = \"idle\"\n\
        [[actor]]\nname = \"b\"\nat = [1, 0]\nspeed = 30\nbehaviour = \"idle\"\n\
        [[actor]]\nname = \"c\"\nat = [2, 0]\nspeed = 12\nbehaviour = \"idle\"\n";
    let (state, seed) = scenario(text);
    let mut live = Live::resume(seed, state.clone());
    let mut draws = vec![];
    live.run_ticks(Tick(1), &mut (), &mut draws);
    // One draw per actor, by id; the order sorts draw * speed, heaviest first.
    let keyed: Vec<u64> = draws
        .iter()
        .zip([6u64, 30, 12])
        .map(|(e, speed)| match e {
            Event::Draw(d) => u64::from(*d) * speed,
            Event::Command(_) => unreachable!("scenarios have no commands"),
        })
        .collect();
    let mut expected: Vec<usize> = (0..3).collect();
    expected.sort_by_key(|&i| (std::cmp::Reverse(keyed[i]), i));
    let order: Vec<usize> = live
        .state()
        .world()
        .turn_order()
        .iter()
        .map(|id| id.index())
        .collect();
    assert_eq!(order, expected);
    // And the same draws give the same order again.
    let mut again = Live::resume(seed, state);
    again.run_ticks(Tick(1), &mut (), &mut Vec::new());
    assert_eq!(
        again.state().world().turn_order(),
        live.state().world().turn_order()
    );
}

/// Seed 003: `for _ = 1 to 10 do perform End_of_turn done`, then the egg hatches.
#[test]
fn an_egg_waits_10_turns_and_hatches_on_its_11th_into_exactly_the_empty_neighbours() {
    // The egg at the centre has a cactus north and a resting camel east: 6 cells are
    // empty, and the newest rules hatch a clutch of them (`Brood::Clutch`).
    let (state, seed) = scenario(
        "ruleset = \"classic\"\nmap = \"\"\"\n.#.\n...\n...\n\"\"\"\n\
         [[actor]]\nname = \"egg\"\nat = [1, 1]\nspecies = \"spider egg\"\n\
         [[actor]]\nname = \"camel\"\nat = [2, 1]\nbehaviour = \"rest\"\n",
    );
    let (live, log) = run(state, seed, u64::from(EGG_WAITS) + 1);
    let egg: Vec<Action> = log
        .iter()
        .filter(|(_, n, ..)| n == "egg")
        .map(|e| e.2)
        .collect();
    assert_eq!(egg.len(), 11);
    assert!(egg[..10].iter().all(|a| *a == Action::Wait), "{egg:?}");
    assert_eq!(egg[10], Action::Hatch);
    let spiders: Vec<Pos> = live
        .state()
        .world()
        .actors()
        .filter(|(_, a)| a.species() == Species::Spider)
        .map(|(_, a)| a.pos())
        .collect();
    // The empty neighbours in the compass's order, as many as the rules' brood hatches.
    let empty = [(0, 0), (2, 0), (0, 1), (0, 2), (1, 2), (2, 2)];
    let most = usize::from(live.state().world().rules().brood().hatched());
    let mut want: Vec<(i16, i16)> = Direction::ALL
        .into_iter()
        .map(|d| Pos::new(1, 1).step(d))
        .map(|p| (p.x, p.y))
        .filter(|p| empty.contains(p))
        .take(most)
        .collect();
    let mut got: Vec<(i16, i16)> = spiders.iter().map(|p| (p.x, p.y)).collect();
    got.sort();
    want.sort();
    assert_eq!(got, want);
    assert!(live
        .state()
        .world()
        .actors()
        .all(|(_, a)| a.species() != Species::SpiderEgg));
}

#[test]
fn a_charge_stops_at_the_first_obstacle_and_a_cactus_knocks_out_for_20_turns() {
    // The elephant sees the camel across open sand and charges; the camel is then moved
    // out of the row, so the charge runs on into the cactus.
    let (mut state, seed) = scenario(
        "ruleset = \"classic\"\nmap = \"\"\"\n......#.\n........\n\"\"\"\n\
         [[actor]]\nname = \"jumbo\"\nat = [0, 0]\nspecies = \"elephant\"\n\
         [[actor]]\nname = \"camel\"\nat = [7, 0]\nbehaviour = \"rest\"\n",
    );
    // The cactus at x = 6 stands between: no sighting. Put the camel in view instead.
    let camel = find(&state, "camel").unwrap();
    state.set_up(Change::Move {
        actor: camel,
        from: Pos::new(7, 0),
        to: Pos::new(5, 0),
    });
    let jumbo = find(&state, "jumbo").unwrap();
    let (live, log) = run(state, seed, 2);
    assert!(matches!(
        log.iter().find(|e| e.1 == "jumbo").unwrap().2,
        Action::Charge {
            dir: Direction::E,
            ..
        }
    ));
    assert_eq!(
        live.state().world().actor(jumbo).unwrap().charging(),
        Some(Direction::E)
    );
    // The camel steps out of the row; the elephant cannot turn.
    let mut s = live.into_state();
    s.set_up(Change::Move {
        actor: camel,
        from: Pos::new(5, 0),
        to: Pos::new(5, 1),
    });
    let (_, log) = run(s, seed, 2 + 2 * 60);
    let jumbo_log: Vec<Action> = log.iter().filter(|e| e.1 == "jumbo").map(|e| e.2).collect();
    let crash = jumbo_log
        .iter()
        .position(|a| {
            *a == Action::Crash {
                knock_out: Some(KNOCKOUT_TURNS - 1),
            }
        })
        .unwrap();
    assert!(jumbo_log[..crash].iter().all(|a| matches!(
        a,
        Action::Charge {
            dir: Direction::E,
            ..
        }
    )));
    // From x = 1 to x = 5, then the cactus at x = 6.
    assert_eq!(crash, 4);
    let stunned = jumbo_log[crash + 1..]
        .iter()
        .take_while(|a| **a == Action::Stunned)
        .count();
    // Seed 003: 20 turns lost counting the crash; it acts again on its 21st.
    assert_eq!(1 + stunned, 20);
    assert_eq!(KNOCKOUT_TURNS, 20);
    assert_ne!(jumbo_log[crash + 1 + stunned], Action::Stunned);
}

/// A game of `seed` moved, once the camel is to act, onto a level of open sand where
/// `items` lie at the camel's feet: for rules that need a particular place.
fn on_sand(seed: u64, ruleset: Ruleset, start: Pos, items: Vec<Item>) -> (Live, Vec<Event>) {
    let level = Level {
        depth: 1,
        map: Map::filled(8, 8, Terrain::Sand),
        start,
        items: items.into_iter().map(|item| (start, item)).collect(),
        creatures: vec![],
        mycology: None,
        lore: None,
        offers: None,
        ground: Ground::Erg,
    };
    onto(Rules::newest(ruleset), seed, level)
}

/// A game of `seed` moved, once the camel is to act, onto a level drawn as `rows`: `@`
/// the camel, a species' glyph a creature, terrain by its scenario glyph.
fn on_level(seed: u64, ruleset: Ruleset, rows: &[&str]) -> (Live, Vec<Event>) {
    on_level_under(Rules::newest(ruleset), seed, rows)
}

/// `on_level`, the game played under `rules`.
fn on_level_under(rules: Rules, seed: u64, rows: &[&str]) -> (Live, Vec<Event>) {
    onto(rules, seed, level_of(rows))
}

/// The first level drawn as `rows` (see `on_level`), every creature awake.
fn level_of(rows: &[&str]) -> Level {
    let mut map = Map::filled(rows[0].len() as u16, rows.len() as u16, Terrain::Sand);
    let (mut start, mut creatures) = (Pos::new(0, 0), vec![]);
    for (y, row) in rows.iter().enumerate() {
        for (x, glyph) in row.chars().enumerate() {
            let at = Pos::new(x as i16, y as i16);
            match Species::ALL.into_iter().find(|s| s.glyph() == glyph) {
                Some(Species::Camel) => start = at,
                Some(species) => creatures.push((species, at, Behaviour::Natural)),
                None => map.set_terrain(at, Terrain::from_glyph(glyph).expect("a terrain glyph")),
            }
        }
    }
    Level {
        depth: 1,
        map,
        start,
        items: vec![],
        creatures,
        mycology: None,
        lore: None,
        offers: None,
        ground: Ground::Erg,
    }
}

/// A game under `rules` of `seed` on the level drawn as `rows`, `items` at the camel's
/// feet and picked up. Its flasks and scarabs do what `Lore::default` says.
fn carrying(rules: Rules, seed: u64, rows: &[&str], items: &[Item]) -> (Live, Vec<Event>) {
    let mut level = level_of(rows);
    level.items = items.iter().map(|&item| (level.start, item)).collect();
    level.lore = Some(crate::lore::Lore::default());
    let (mut live, mut tape) = onto(rules, seed, level);
    for _ in items {
        live.command(Command::PickUp, &mut (), &mut tape).unwrap();
    }
    (live, tape)
}

fn onto(rules: Rules, seed: u64, level: Level) -> (Live, Vec<Event>) {
    let mut tape = vec![];
    let live = Live::new(rules, seed, &mut (), &mut tape);
    let mut state = live.into_state();
    state.set_up(Change::NewLevel(Box::new(level)));
    (Live::resume(seed, state), tape)
}

/// The first actor of `species`, and where it is.
fn first_of(state: &State, species: Species) -> Option<(crate::ids::ActorId, Pos)> {
    state
        .world()
        .actors()
        .find(|(_, a)| a.species() == species)
        .map(|(id, a)| (id, a.pos()))
}

/// Rests the camel until `done` says so, at most `turns` times; false if it never did.
fn rest_until(live: &mut Live, turns: usize, mut done: impl FnMut(&State) -> bool) -> bool {
    for _ in 0..turns {
        if done(live.state()) {
            return true;
        }
        if live.command(Command::Rest, &mut (), &mut vec![]).is_err() {
            return false;
        }
    }
    done(live.state())
}

/// The slot of the first stack of `item` in the camel's bags.
fn slot_of(state: &State, item: Item) -> Slot {
    let stacks = state.world().bags().stacks();
    let mut slots = stacks.filter(|(_, s)| s.item == item).map(|(slot, _)| slot);
    slots.next().unwrap()
}

/// The messages still in the log, oldest first.
fn told(state: &State) -> Vec<Msg> {
    state.world().messages().recent().map(|m| m.msg).collect()
}

fn said(state: &State, msg: Msg) -> bool {
    state.world().messages().recent().any(|m| m.msg == msg)
}

#[test]
fn a_step_onto_dunes_dearer_than_the_camels_energy_is_taken_a_tick_later() {
    for ruleset in [Ruleset::NETHACK, Ruleset::CLASSIC] {
        let (mut live, mut tape) = on_level(4, ruleset, &["..@~.", "....."]);
        let tick = live.state().tick();
        // Onto sand: one tick.
        live.command(Command::Move(Direction::W), &mut (), &mut tape)
            .unwrap();
        assert_eq!(live.state().tick().0, tick.0 + 1, "{ruleset:?}");
        live.command(Command::Move(Direction::E), &mut (), &mut tape)
            .unwrap();
        let tick = live.state().tick();
        // Onto the dunes: accepted, not refused; the camel gathers strength for a tick
        // while the world goes on, then steps.
        live.command(Command::Move(Direction::E), &mut (), &mut tape)
            .unwrap();
        let world = live.state().world();
        assert_eq!(world.player().unwrap().pos(), Pos::new(3, 0), "{ruleset:?}");
        assert_eq!(live.state().tick().0, tick.0 + 2, "{ruleset:?}");
        assert!(said(live.state(), Msg::Gathering));
        assert_eq!(world.player().unwrap().waiting(), None, "done gathering");
    }
}

#[test]
fn a_creature_gathers_strength_for_a_dune_and_then_crosses_it() {
    let (state, seed) = scenario(
        "ruleset = \"nethack\"\nseed = 5\nmap = \"\"\"\n~~~~~\n~~~~~\n~~~~~\n\"\"\"\n\
         [[actor]]\nname = \"walker\"\nat = [2, 1]\nspeed = 12\nbehaviour = \"wander\"\n",
    );
    let (_, log) = run(state, seed, 8);
    let walker: Vec<&Entry> = log.iter().filter(|e| e.1 == "walker").collect();
    // A step costs 18 and a tick brings 12: with 12 in hand the walker gathers strength
    // for the step it decided on, and takes it the next tick, with 24.
    let gathers: Vec<usize> = (0..walker.len())
        .filter(|&i| walker[i].2 == Action::Gather)
        .collect();
    assert!(gathers.len() >= 2, "{walker:?}");
    for i in gathers {
        let (_, _, _, before, after) = walker[i];
        assert_eq!((*before, *after), (12, 12), "{walker:?}");
        let (_, _, next, before, after) = walker[i + 1];
        assert!(matches!(next, Action::Step { .. }), "{walker:?}");
        assert_eq!((*before, *after), (24, 6), "{walker:?}");
    }
}

#[test]
fn the_camel_remembers_what_it_saw_and_sees_only_so_far() {
    let row = format!("@{}", ".".repeat(29));
    let (mut live, _) = on_level(2, Ruleset::NETHACK, &[&row, &row.replace('@', ".")]);
    let world = live.state().world();
    assert!(world.sees(Pos::new(8, 0)));
    assert!(!world.sees(Pos::new(9, 0)), "sight reaches 8 cells");
    for _ in 0..10 {
        live.command(Command::Move(Direction::E), &mut (), &mut vec![])
            .unwrap();
    }
    let world = live.state().world();
    assert!(!world.sees(Pos::new(0, 0)));
    assert!(world.remembers(Pos::new(0, 0)), "seen once, remembered");
    assert!(world.sees(Pos::new(18, 0)));
    assert!(!world.remembers(Pos::new(29, 0)));
}

#[test]
fn a_jackal_walks_round_water_to_the_camel_it_sees() {
    let (mut live, _) = on_level(
        6,
        Ruleset::NETHACK,
        &[
            "..........", //
            "..=====...", //
            ".j=====.@.", //
            "..=====...", //
            "..........",
        ],
    );
    let (jackal, _) = first_of(live.state(), Species::Jackal).unwrap();
    let mut path = vec![];
    let bitten = rest_until(&mut live, 12, |state| {
        if let Some(at) = state.world().actor(jackal).map(|a| a.pos()) {
            path.push(at);
        }
        state.world().player().unwrap().hp() < state.world().player().unwrap().max_hp()
    });
    assert!(bitten, "the jackal never reached the camel: {path:?}");
    let map = live.state().world().map();
    assert!(
        path.iter().all(|&p| map.terrain(p) == Terrain::Sand),
        "{path:?}"
    );
}

#[test]
fn a_hunter_remembers_where_it_saw_the_camel_and_loses_the_trail_there() {
    let (live, _) = on_level(
        3,
        Ruleset::NETHACK,
        &[
            "S.....@..#..", //
            ".........#..", //
            ".........#..",
        ],
    );
    let (scorpion, _) = first_of(live.state(), Species::Scorpion).unwrap();
    let seen_at = Pos::new(6, 0);
    assert_eq!(
        live.state().world().actor(scorpion).unwrap().last_seen(),
        Some(seen_at)
    );
    // The camel is carried off behind the cacti, out of sight.
    let mut state = live.into_state();
    state.set_up(Change::Move {
        actor: state.world().player_id().unwrap(),
        from: seen_at,
        to: Pos::new(11, 2),
    });
    let world = state.world();
    assert!(!world.sees(world.actor(scorpion).unwrap().pos()));
    assert_eq!(world.actor(scorpion).unwrap().last_seen(), Some(seen_at));
    let mut live = Live::resume(3, state);
    let lost = rest_until(&mut live, 30, |state| {
        state.world().actor(scorpion).unwrap().last_seen().is_none()
    });
    assert!(lost);
    assert_eq!(live.state().world().actor(scorpion).unwrap().pos(), seen_at);
}

/// Where a hunter's trail ends, another creature may stand by the time it gets there.
/// Before rules version 8 the hunter stepped onto it all the same, and the two shared
/// the cell, the map naming only the hunter; since 8 it waits beside it.
#[test]
fn a_hunter_steps_onto_a_taken_trail_end_only_before_version_8() {
    for (v, shares) in [(7, true), (8, false)] {
        let rows = ["S.@..#..", ".....#..", ".....#.."];
        let (live, _) = onto(version(v), 3, level_of(&rows));
        let (scorpion, _) = first_of(live.state(), Species::Scorpion).unwrap();
        let seen_at = Pos::new(2, 0);
        let mut state = live.into_state();
        state.set_up(Change::Move {
            actor: state.world().player_id().unwrap(),
            from: seen_at,
            to: Pos::new(7, 2),
        });
        let newcomer = crate::ids::ActorId(state.world().actor_count() as u32);
        state.set_up(Change::Spawn {
            actor: newcomer,
            species: Species::Tortoise,
            behaviour: Behaviour::Rest,
            stats: Species::Tortoise.stats(),
            at: seen_at,
        });
        let mut live = Live::resume(3, state);
        rest_until(&mut live, 30, |_| false);
        let world = live.state().world();
        let at = world.actor(scorpion).unwrap().pos();
        assert_eq!(
            at == seen_at,
            shares,
            "version {v}: the scorpion is at {at:?}"
        );
        assert_eq!(world.map().occupant(Pos::new(1, 0)).is_some(), !shares);
        assert_eq!(world.actor(newcomer).unwrap().pos(), seen_at);
    }
}

/// A version-7 game where a scorpion stepped onto a spider's cell (its trail's end), and
/// the spider then left it: from then on the map named neither. Every state of the game
/// is still one its version's snapshots hold.
#[test]
fn a_version_7_game_with_a_creature_the_map_does_not_name_snapshots_whole() {
    let rules = version(7);
    let mut game = crate::drive::LiveTape::new(rules, 206);
    crate::bot::Bot::new(206).play(&mut game, 1000).unwrap();
    let tape = game.into_tape();
    let mut unnamed = 0;
    let each_event = |state: &State| {
        let world = state.world();
        let named = world
            .actors()
            .filter(|&(id, a)| world.map().occupant(a.pos()) == Some(id));
        if named.count() < world.actors().count() {
            unnamed += 1;
            let back = State::decode(&state.encode(), rules.version()).unwrap();
            assert_eq!(back.hash(), state.hash());
        }
        Ok::<_, crate::drive::FoldError>(state.events_folded() + 1)
    };
    crate::recording::fold_visiting(rules, 206, &tape.events, &mut (), each_event).unwrap();
    assert!(
        unnamed > 0,
        "the scorpion never shared a cell in {} events",
        tape.events.len()
    );
}

#[test]
fn a_scorpion_sting_poisons_the_camel() {
    let (mut live, _) = on_level(1, Ruleset::NETHACK, &["....", ".@S.", "...."]);
    let stung = rest_until(&mut live, 10, |state| said(state, Msg::Poisoned));
    assert!(stung);
    let camel = live.state().world().player().unwrap();
    assert!(camel.conditions().has(crate::world::Condition::Poisoned));
}

#[test]
fn a_badly_hurt_jackal_runs_from_the_camel() {
    let (live, _) = on_level(1, Ruleset::NETHACK, &[".......", "..@j...", "......."]);
    let mut state = live.into_state();
    let (jackal, at) = first_of(&state, Species::Jackal).unwrap();
    state.set_up(Change::Hurt {
        actor: jackal,
        amount: 5,
    });
    let camel = state.world().player().unwrap().pos();
    let mut live = Live::resume(1, state);
    live.command(Command::Rest, &mut (), &mut vec![]).unwrap();
    let now = live.state().world().actor(jackal).unwrap().pos();
    assert!(
        now.distance(camel) > at.distance(camel),
        "{at:?} to {now:?}"
    );
}

/// `live`'s game of `seed`, its camel 10 hit points below its most: the camel, and the
/// turns it had taken.
fn hurt_by_ten(live: Live, seed: u64) -> (Live, crate::ids::ActorId, u32) {
    let mut state = live.into_state();
    let camel = state.world().player_id().unwrap();
    state.set_up(Change::Hurt {
        actor: camel,
        amount: 10,
    });
    let start = state.world().turns(camel);
    (Live::resume(seed, state), camel, start)
}

/// The poison's end is told after its last burn from 13 on; before, it was told first,
/// and the camel read that the poison wore off and then that it burned.
#[test]
fn the_poison_wears_off_after_its_last_burn() {
    let told = |rules: Rules| {
        let (live, _) = onto(rules, 9, level_of(&["@....", "....."]));
        let mut state = live.into_state();
        let camel = state.world().player_id().unwrap();
        state.set_up(Change::Condition {
            actor: camel,
            condition: Condition::Poisoned,
            turns: 1,
        });
        let seen = state.world().messages().total();
        let mut live = Live::resume(9, state);
        live.command(Command::Rest, &mut (), &mut vec![]).unwrap();
        let log = live.state().world().messages();
        let order: Vec<Msg> = log
            .since(seen)
            .map(|m| m.msg)
            .filter(|m| matches!(m, Msg::Burns { .. } | Msg::ConditionEnds(_)))
            .collect();
        order
    };
    let (burns, ends) = (Msg::Burns { damage: 1 }, Msg::ConditionEnds(Effect::Poison));
    assert_eq!(told(version(13)), [burns, ends]);
    assert_eq!(told(version(12)), [ends, burns]);
}

#[test]
fn the_camel_gets_a_hit_point_back_every_eight_turns() {
    let (live, _) = on_sand(9, Ruleset::NETHACK, Pos::new(3, 3), vec![]);
    let (mut live, camel, start) = hurt_by_ten(live, 9);
    for _ in 0..24 {
        live.command(Command::Rest, &mut (), &mut vec![]).unwrap();
        let world = live.state().world();
        let turns = world.turns(camel);
        let every = crate::crossing::REGENERATE_EVERY;
        let healed = (turns / every - start / every) as i16;
        assert_eq!(
            world.actor(camel).unwrap().hp(),
            20 + healed,
            "turn {turns}"
        );
    }
}

#[test]
fn a_mushroom_kind_is_identified_after_eating() {
    let look = Look::Violet;
    let (mut live, mut tape) = on_sand(
        3,
        Ruleset::NETHACK,
        Pos::new(3, 3),
        vec![Item::Mushroom(look)],
    );
    live.command(Command::PickUp, &mut (), &mut tape).unwrap();
    let slot = live
        .state()
        .world()
        .bags()
        .slot_for(Item::Mushroom(look))
        .unwrap();
    assert!(!live.state().world().mycology().is_known(look));
    while live.state().need() != Need::Command {
        live.command(Command::Rest, &mut (), &mut tape).unwrap();
    }
    live.command(Command::Eat(slot), &mut (), &mut tape)
        .unwrap();
    assert!(live.state().world().mycology().is_known(look));
    let name = live.state().world().describe_item(Item::Mushroom(look));
    assert!(name.starts_with("a mushroom of "), "{name}");
}

#[test]
fn walking_off_the_map_is_blocked_like_a_cactus() {
    let (live, _) = on_sand(8, Ruleset::CLASSIC, Pos::new(0, 0), vec![]);
    assert_eq!(
        live.state().validate(&Command::Move(Direction::W)),
        Err(crate::Rejection::Blocked(Terrain::Cactus))
    );
}

/// An empty letter is named; a slot past `z` (only a crafted tape holds one) is not
/// called `z`.
#[test]
fn a_missing_item_is_named_by_its_letter_or_its_slot() {
    let (live, _) = on_sand(8, Ruleset::CLASSIC, Pos::new(0, 0), vec![]);
    let refused = |slot| {
        live.state()
            .validate(&Command::Drop(Slot(slot)))
            .unwrap_err()
    };
    assert_eq!(refused(25).to_string(), "You have no item z.");
    let past = refused(26).to_string();
    assert_eq!(
        past,
        "There is no slot 27 in your bags: they run from a to z."
    );
}

/// Rules of the kept version `version`, nethack time.
fn version(version: u16) -> Rules {
    Rules::new(RulesVersion::kept(version).unwrap(), Ruleset::NETHACK)
}

/// What `species` (the first of it) decides to do now, given the same few draws each
/// time (a wanderer heads north with them).
fn decision(state: &State, species: Species) -> Option<Action> {
    let (id, _) = first_of(state, species).unwrap();
    let mut draws = crate::rng::Draws::new(&[0; 8]);
    crate::decide::decide(state.world(), id, None, &mut draws).ok()
}

/// A row of sand twenty cells long, the camel at one end and an elephant at the other:
/// in line, nothing between, beyond the camel's sight.
const FAR_ELEPHANT: [&str; 3] = [
    "......................", //
    "@....................E", //
    "......................",
];

/// Before rules version 3 an elephant charged a camel in its row from beyond the camel's
/// sight; since, only one it sees (`Rules::elephants_charge_only_in_sight`).
#[test]
fn an_elephant_charges_from_beyond_the_camels_sight_only_before_version_3() {
    for (v, charges) in [(2, true), (3, false), (4, false), (5, false)] {
        let (live, _) = on_level_under(version(v), 1, &FAR_ELEPHANT);
        let (_, at) = first_of(live.state(), Species::Elephant).unwrap();
        assert!(
            !live.state().world().sees(at),
            "the elephant is out of sight"
        );
        let charge = Action::Charge {
            dir: Direction::W,
            to: Pos::new(at.x - 1, at.y),
        };
        let decided = decision(live.state(), Species::Elephant);
        assert_eq!(decided == Some(charge), charges, "version {v}: {decided:?}");
    }
    // Within sight, every version charges.
    for v in crate::rules::KEPT {
        let (live, _) = on_level_under(version(v), 1, &["@.....E"]);
        let charge = Action::Charge {
            dir: Direction::W,
            to: Pos::new(5, 0),
        };
        assert_eq!(decision(live.state(), Species::Elephant), Some(charge));
    }
}

/// Before rules version 3 the camel heard of an egg hatching anywhere on the level;
/// since, only of one it sees (`Rules::told_only_what_is_seen`).
#[test]
fn the_camel_hears_of_a_hatching_out_of_sight_only_before_version_3() {
    let far = ["@...................o."];
    let near = ["@...o."];
    let hatched = |state: &State| {
        state
            .world()
            .messages()
            .recent()
            .any(|m| matches!(m.msg, Msg::Hatched { .. }))
    };
    for (v, rows, told) in [
        (2, far, true),
        (3, far, false),
        (4, far, false),
        (5, far, false),
        (3, near, true),
    ] {
        let rows: &[&str] = &rows;
        let (mut live, _) = on_level_under(version(v), 2, rows);
        let gone = |state: &State| first_of(state, Species::SpiderEgg).is_none();
        assert!(
            rest_until(&mut live, 30, gone),
            "version {v}: the egg hatched"
        );
        assert_eq!(hatched(live.state()), told, "version {v}, {rows:?}");
    }
}

/// Before rules version 4 a hunter's search settled cells by their cost alone; since, by
/// their cost plus the least the rest of the way can cost
/// (`Rules::hunters_search_toward_the_camel`). Both walks are as cheap, but of equally
/// cheap walks they take different first steps here (water and dunes block no sight):
/// west before, north-west since.
#[test]
fn a_hunter_searches_toward_the_camel_only_from_version_4() {
    let rows = [
        "@...........", //
        "....~~......", //
        "...==~~.....", //
        "...==~......", //
        "....~.......", //
        "....~j......", //
        "............",
    ];
    let kept = [
        (2, Direction::W),
        (3, Direction::W),
        (4, Direction::NW),
        (5, Direction::NW),
    ];
    for (v, dir) in kept {
        let (live, _) = on_level_under(version(v), 3, &rows);
        let (_, at) = first_of(live.state(), Species::Jackal).unwrap();
        assert!(live.state().world().sees(at), "the jackal sees the camel");
        let step = Action::Step { to: at.step(dir) };
        assert_eq!(
            decision(live.state(), Species::Jackal),
            Some(step),
            "version {v}"
        );
    }
}

/// A cobra spits at the camel it sees along a clear row, column or diagonal within its
/// reach, and poisons it; beyond its reach, off a straight line, or with a cactus between,
/// it wanders as a snake does (which needs a draw).
#[test]
fn a_cobra_spits_along_a_clear_line_within_its_reach() {
    let spits = |rows: &[&str]| {
        let (live, _) = on_level_under(version(5), 4, rows);
        matches!(
            decision(live.state(), Species::Cobra),
            Some(Action::Attack { target, .. }) if live.state().world().is_player(target)
        )
    };
    assert!(spits(&["@...c"]), "along a row, 4 cells");
    assert!(
        spits(&["@....", ".....", "..c.."]),
        "along a diagonal, 2 cells"
    );
    assert!(spits(&["@", ".", ".", "c"]), "along a column, 3 cells");
    assert!(!spits(&["@....c"]), "5 cells: beyond its reach");
    assert!(!spits(&["@.#.c"]), "a cactus between");
    assert!(!spits(&["@....", "...c."]), "off any straight line");
    // A spit lands: it hurts and poisons.
    let (mut live, _) = on_level_under(version(5), 4, &["@..c"]);
    let poisoned = rest_until(&mut live, 10, |state| {
        state.world().player().is_some_and(|c| c.hp() < c.max_hp())
    });
    assert!(poisoned, "the cobra's spit hurt the camel");
    assert!(said(live.state(), Msg::Poisoned), "and poisoned it");
}

/// An egg in the open hatches a spider on every free cell about it before rules 12, and
/// at most `CLUTCH` from then on (`Brood::Clutch`).
#[test]
fn an_egg_hatches_a_clutch_from_version_12() {
    let rows = ["@.....", "......", "...o..", "......"];
    for (v, spiders) in [(11, 8), (12, crate::bestiary::CLUTCH)] {
        let (mut live, _) = on_level_under(version(v), 2, &rows);
        let gone = |state: &State| first_of(state, Species::SpiderEgg).is_none();
        assert!(rest_until(&mut live, 30, gone), "version {v}: it hatched");
        let hatched = live
            .state()
            .world()
            .actors()
            .filter(|(_, a)| a.species() == Species::Spider && a.is_present())
            .count();
        assert_eq!(hatched, usize::from(spiders), "version {v}");
    }
}
