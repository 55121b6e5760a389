//! No command is ever dropped: every kind of command, given while the camel is slowed and
//! holds less energy than it costs, is accepted and carried out once the energy is there, the turns
//! between spent gathering strength (and said so), under both rulesets.

use super::*;
use crate::gear::Garment;
use crate::item::Glass;
use crate::world::Condition;

/// The camel between an open door (west) and a closed one (east), stairs to the south;
/// in the far corner a snake walled in by cacti, acting every tick (bumping into them)
/// while the camel gathers its strength.
const ROWS: [&str; 5] = [
    ".......#s",
    ".......##",
    "..'@+....",
    "...>.....",
    ".........",
];

/// What it carries into each trial.
const KIT: [Item; 6] = [
    Item::Date,
    Item::Stone,
    Item::Blanket,
    Item::Flask(Glass::Cloudy),
    Item::Rose,
    Item::Mushroom(Look::Red),
];

/// The camel's own actions, as they are taken.
#[derive(Default)]
struct Camel(Vec<Action>);

impl Observer for Camel {
    fn acted(&mut self, state: &State, record: &ActionRecord) {
        if state.world().is_player(record.actor) {
            self.0.push(record.action);
        }
    }
}

/// Plays `before` at the camel's usual pace, then slows it and takes its energy down to
/// the least that lets it act, short of what anything but a free action costs it
/// slowed, then plays `command`: the camel's actions from then on.
fn slowed(
    rules: Rules,
    before: &[fn(&State) -> Command],
    command: fn(&State) -> Command,
) -> (Live, Vec<Action>) {
    let (mut live, _) = carrying(rules, 5, &ROWS, &KIT);
    for step in before {
        let setup = step(live.state());
        live.command(setup, &mut (), &mut vec![]).unwrap();
    }
    let mut state = live.into_state();
    let camel = state.world().player_id().unwrap();
    state.set_up(Change::Condition {
        actor: camel,
        condition: Condition::Slow,
        turns: 50,
    });
    let energy = state.world().energy(camel).0;
    state.set_up(Change::Spend {
        actor: camel,
        cost: energy - state.world().time().threshold(),
        turns: 0,
    });
    let mut live = Live::resume(5, state);
    let command = command(live.state());
    let mut seen = Camel::default();
    live.command(command, &mut seen, &mut vec![])
        .unwrap_or_else(|why| panic!("{command:?} was refused: {why}"));
    (live, seen.0)
}

fn slot(state: &State, item: Item) -> Slot {
    state.world().bags().find(item).expect("in the kit")
}

#[test]
fn every_command_is_carried_out_by_a_slowed_camel_short_of_energy() {
    type Trial = (
        &'static str,
        Vec<fn(&State) -> Command>,
        fn(&State) -> Command,
    );
    let trials: Vec<Trial> = vec![
        ("move", vec![], |_| Command::Move(Direction::N)),
        ("rest", vec![], |_| Command::Rest),
        (
            "pick up",
            vec![|s| Command::Drop(slot(s, Item::Date))],
            |_| Command::PickUp,
        ),
        ("drop", vec![], |s| Command::Drop(slot(s, Item::Date))),
        ("eat", vec![], |s| Command::Eat(slot(s, Item::Date))),
        ("eat", vec![], |s| {
            Command::Eat(slot(s, Item::Mushroom(Look::Red)))
        }),
        ("throw", vec![], |s| {
            Command::Throw(slot(s, Item::Stone), Direction::N)
        }),
        ("open", vec![], |_| Command::Open(Direction::E)),
        ("close", vec![], |_| Command::Close(Direction::W)),
        ("descend", vec![|_| Command::Move(Direction::S)], |_| {
            Command::Descend
        }),
        ("dash", vec![], |_| Command::Dash),
        ("quit", vec![], |_| Command::Quit),
        ("wear", vec![], |s| Command::Wear(slot(s, Item::Blanket))),
        (
            "take off",
            vec![|s| Command::Wear(slot(s, Item::Blanket))],
            |_| Command::TakeOff(Garment::Blanket),
        ),
        ("use", vec![], |s| {
            Command::Use(slot(s, Item::Flask(Glass::Cloudy)))
        }),
        // The first boon the rose offers: the offers are drawn with the game.
        ("grow", vec![], |s| {
            Command::Grow(slot(s, Item::Rose), s.world().growth().offer()[0])
        }),
    ];
    for ruleset in [Ruleset::NETHACK, Ruleset::CLASSIC] {
        for (kind, before, command) in &trials {
            let (live, acted) = slowed(Rules::newest(ruleset), before, *command);
            let name = |a: &Action| a.name();
            let done: Vec<&str> = acted.iter().map(name).filter(|&n| n != "gather").collect();
            assert_eq!(
                done.first(),
                Some(kind),
                "{ruleset:?}: {kind}: the camel did {acted:?}"
            );
            // What costs energy waited for it, and the player was told.
            let free = matches!(*kind, "rest" | "dash" | "quit");
            let gathered = acted.first().map(name) == Some("gather");
            assert_eq!(gathered, !free, "{ruleset:?}: {kind}: {acted:?}");
            let world = live.state().world();
            if gathered {
                let said = world.messages().recent().map(|m| m.msg);
                assert!(said.into_iter().any(|m| m == Msg::Gathering), "{kind}");
            }
            if let Some(camel) = world.player() {
                assert_eq!(camel.waiting(), None, "{kind}: still gathering");
            }
        }
    }
}

/// The check above can fail: before rules version 10 the first creature to act after the
/// camel gathered its strength dropped the camel's command, and the camel was asked for
/// another with the one given never done.
#[test]
fn before_version_10_a_creature_acting_dropped_the_camels_command() {
    let nine = Rules::new(RulesVersion::kept(9).unwrap(), Ruleset::NETHACK);
    let (live, acted) = slowed(nine, &[], |s| Command::Eat(slot(s, Item::Date)));
    assert_eq!(acted, [Action::Gather]);
    let camel = live.state().world().player().unwrap();
    assert!(camel.waiting().is_some(), "still gathering, asked again");
    assert_eq!(live.state().need(), Need::Command);
}
