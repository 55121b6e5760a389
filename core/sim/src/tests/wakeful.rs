//! The wakeful deep (rules version 17): the deep desert's creatures are placed awake more
//! often, its levels hold one mushroom where they held two, and a step the camel gathers
//! strength for never becomes a kick.

use super::{level_of, onto, said, version};
use crate::action::Action;
use crate::bestiary::Bestiary;
use crate::command::Command;
use crate::crossing::{Crossing, DEEP_DESERT, FURNACE};
use crate::drive::Live;
use crate::geometry::{Direction, Pos};
use crate::item::{Charm, Draught, Glass, Item, Stone};
use crate::level::{generate, Contents};
use crate::lore::Lore;
use crate::message::Msg;
use crate::species::{Behaviour, Sleep, Species};
use crate::world::Change;

/// Of the creatures that often sleep, how many of `seeds`' levels at `depth` place asleep
/// and how many in all.
fn sleepers(contents: Contents, depth: u8, seeds: std::ops::Range<u64>) -> (usize, usize) {
    let (mut asleep, mut all) = (0, 0);
    for seed in seeds {
        let level = generate(seed, depth, contents);
        for &(species, _, behaviour) in &level.creatures {
            if species.sleeps() == Sleep::Often {
                all += 1;
                asleep += usize::from(behaviour == Behaviour::Asleep);
            }
        }
    }
    (asleep, all)
}

/// Above the deep desert a creature that often sleeps is asleep one time in two, as
/// under 16; in the deep desert's first three depths about one in four; on the last three
/// never. A sandworm or a viper is asleep under the sand at every depth.
#[test]
fn the_deep_desert_is_wakeful_and_its_last_depths_sleepless() {
    let contents = Contents::of(&version(17));
    let (asleep, all) = sleepers(contents, DEEP_DESERT - 1, 0..60);
    assert!(
        asleep * 10 > all * 4 && asleep * 10 < all * 6,
        "{asleep} of {all}"
    );
    let (asleep, all) = sleepers(contents, DEEP_DESERT, 0..60);
    assert!(
        asleep * 10 > all && asleep * 10 < all * 4,
        "{asleep} of {all}"
    );
    for depth in FURNACE..=Crossing::Sparse.deepest() {
        assert_eq!(sleepers(contents, depth, 0..30).0, 0, "depth {depth}");
    }
    for depth in 2..=Crossing::Sparse.deepest() {
        for seed in 0..5 {
            let level = generate(seed, depth, contents);
            let buried = level
                .creatures
                .iter()
                .filter(|c| c.0.sleeps() == Sleep::Always);
            assert!(
                buried.clone().all(|c| c.2 == Behaviour::Asleep),
                "depth {depth}"
            );
        }
    }
    assert_eq!(Bestiary::Wakeful.counts(11), Bestiary::Thieves.counts(11));
}

/// The sparse crossing is the lean one with one mushroom a level from the deep desert
/// down, where it held two.
#[test]
fn the_sparse_crossing_holds_one_mushroom_a_level_in_the_deep_desert() {
    for depth in 1..=Crossing::Sparse.deepest() {
        let (sparse, lean) = (
            Crossing::Sparse.supplies(depth),
            Crossing::Lean.supplies(depth),
        );
        let mushrooms = if depth >= DEEP_DESERT { 1 } else { 2 };
        assert_eq!(sparse.mushrooms, mushrooms, "depth {depth}");
        assert_eq!(
            crate::crossing::Supplies { mushrooms, ..lean },
            sparse,
            "depth {depth}"
        );
    }
    // A place's prize may be a mushroom too; the open ground's are fewer over many levels.
    let mushrooms = |v: u16| -> usize {
        let contents = Contents::of(&version(v));
        let level = |seed| generate(seed, FURNACE, contents);
        let on = |seed| {
            level(seed)
                .items
                .iter()
                .filter(|(_, i)| matches!(i, Item::Mushroom(_)))
                .count()
        };
        (0..20).map(on).sum()
    };
    let (under_16, under_17) = (mushrooms(16), mushrooms(17));
    assert!(
        under_17 + 10 < under_16,
        "{under_17} under 17, {under_16} under 16"
    );
}

/// A camel of rules `v` beside a grazing tortoise, which (`gathering`) it was gathering
/// strength to step where the tortoise now stands, or not; once it is told to move onto
/// the tortoise: whether the tortoise was kicked, and whether the camel was told it was
/// in the way.
fn onto_a_grazer(v: u16, gathering: bool) -> (bool, bool) {
    let (live, mut tape) = onto(version(v), 3, level_of(&[".@T."]));
    let mut state = live.into_state();
    let camel = state.world().player_id().unwrap();
    let to = Pos::new(2, 0);
    if gathering {
        let step = Action::Step { to };
        state.set_up(Change::Gather {
            actor: camel,
            action: Some(step),
        });
    }
    let mut live = Live::resume(3, state);
    live.command(Command::Move(Direction::E), &mut (), &mut tape)
        .unwrap();
    let state = live.state();
    let tortoise = state.world().map().occupant(to).unwrap();
    let kicked = state.world().actor_at(tortoise).hp() < state.world().actor_at(tortoise).max_hp();
    (kicked, said(state, Msg::InTheWay(Species::Tortoise)))
}

/// From rules version 17 a step the camel gathers strength for never becomes a kick at a
/// creature it leaves be that wandered into the cell meanwhile (played by eye: travel
/// over dunes kicked a grazing tortoise, which came for the camel): it stops, told why,
/// and is asked again. A kick meant, a move onto the tortoise from the first, is a kick.
#[test]
fn a_step_gathered_for_stops_where_a_grazer_steps_into_its_way() {
    assert_eq!(onto_a_grazer(17, true), (false, true));
    assert_eq!(onto_a_grazer(16, true), (true, false));
    assert_eq!(onto_a_grazer(17, false), (true, false));
}

/// What the bot does first under rules `v`, a spear in its bags, a lion coming along
/// a row of sand: its command and where the lion then stood from the camel.
fn bot_before_a_lion(v: u16) -> (Command, (i16, i16)) {
    let (live, _) = super::carrying(version(v), 5, &["@....L......"], &[Item::Spear]);
    let state = live.state();
    let (_, lion) = super::first_of(state, Species::Lion).unwrap();
    let camel = state.world().player().unwrap().pos();
    let command = crate::bot::Bot::new(1).choose(state).unwrap();
    (command, (lion.x - camel.x, lion.y - camel.y))
}

/// In the wakeful deep the bot throws at a hunter coming before it arrives, as a careful
/// player does (the play report's measures are of a player who does); under the rules
/// before, it plays as it always did, for their reports.
#[test]
fn the_bot_throws_at_a_lion_coming_in_the_wakeful_deep_only() {
    let (command, (east, south)) = bot_before_a_lion(17);
    assert!(east > 1, "the lion is still some way off: {east}");
    assert!(
        matches!(command, Command::ThrowAt(_, e, s) if (i16::from(e), i16::from(s)) == (east, south)),
        "{command:?} with the lion {east} east"
    );
    let (before, _) = bot_before_a_lion(16);
    assert!(!matches!(before, Command::ThrowAt(..)), "{before:?}");
}

/// What the bot uses under the rules `v`, if it uses a find: on the level drawn as `rows`
/// at depth `depth`, carrying `items` whose flasks and scarabs are all known, its skin
/// spilt first if `dry`.
fn bot_uses(v: u16, depth: u8, rows: &[&str], items: &[Item], dry: bool) -> Option<Item> {
    let mut level = level_of(rows);
    level.depth = depth;
    level.items = items.iter().map(|&item| (level.start, item)).collect();
    let mut lore = Lore::default();
    Glass::ALL.into_iter().for_each(|g| lore.learn_glass(g));
    Stone::ALL.into_iter().for_each(|s| lore.learn_stone(s));
    level.lore = Some(lore);
    let (mut live, mut tape) = onto(version(v), 5, level);
    for _ in items {
        live.command(Command::PickUp, &mut (), &mut tape).unwrap();
    }
    let mut state = live.into_state();
    if dry {
        state.set_up(Change::Spill);
    }
    match crate::bot::Bot::new(1).choose(&state) {
        Some(Command::Use(slot)) => state.world().bags().item(slot),
        _ => None,
    }
}

/// In the wakeful deep the bot uses what its finds are known to do when the moment asks
/// for it: a scarab of slumber as two lions close in, a flask of vision when its skin is
/// low and it knows of no water on the level. Under 16 it plays as it always did.
#[test]
fn the_bot_uses_slumber_on_two_lions_and_vision_when_lost_and_dry_in_the_wakeful_deep() {
    let stone = Stone::ALL
        .into_iter()
        .find(|&s| Lore::default().charm(s) == Charm::Slumber)
        .unwrap();
    let lions = ["@.L.L......", "..........."];
    let slumber = Item::Scarab(stone);
    assert_eq!(bot_uses(17, 8, &lions, &[slumber], false), Some(slumber));
    assert_eq!(bot_uses(16, 8, &lions, &[slumber], false), None);
    let glass = Glass::ALL
        .into_iter()
        .find(|&g| Lore::default().draught(g) == Draught::Vision)
        .unwrap();
    let sand = ["@..........", "...........", "..........."];
    let vision = Item::Flask(glass);
    assert_eq!(bot_uses(17, 8, &sand, &[vision], true), Some(vision));
    let full = bot_uses(17, 8, &sand, &[vision], false);
    assert_eq!(full, None, "with a full skin it keeps the flask");
}
