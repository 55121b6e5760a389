//! The finds of rules version 9: javelins, flasks, scarabs, desert roses, barding, and
//! gear that comes off. A test level brings the lore of `Lore::default`, so its flasks and
//! scarabs do what it says: cloudy sweet water, amber vision, green brackish water;
//! jade slumber, bone blinking, copper alarm.

use super::{carrying, first_of, level_of, onto, rest_until, said, slot_of, told, version};
use crate::action::Action;
use crate::bestiary::Bestiary;
use crate::check::Rejection;
use crate::command::{Command, Slot};
use crate::drive::Live;
use crate::gear::Garment;
use crate::geometry::{Direction, Pos};
use crate::item::{Charm, Draught, Glass, Item, Stone};
use crate::level::{generate, Contents, FINDS_ON};
use crate::lore::{
    Boon, Lore, Offers, DEEPER_SIPS, FURY_COST_HP, HARDIER_HP, HUMP_TURNS, SINEW_COST_SIPS,
    SINEW_HP,
};
use crate::message::Msg;
use crate::species::{Behaviour, Species};
use crate::state::State;
use crate::tape::Event;

/// The harm that `blow` reads from the messages of games of seeds 0 to `seeds`: in each,
/// a camel beside a snake picks up `item` and gives the commands `commands` makes of its
/// slot. A game where one is refused tells nothing.
fn blows_over_seeds(
    seeds: u64,
    item: Item,
    commands: impl Fn(Slot) -> Vec<Command>,
    blow: impl Fn(&Msg) -> Option<i16>,
) -> Vec<i16> {
    let mut harm = vec![];
    for seed in 0..seeds {
        let (mut live, mut tape) = carrying(version(9), seed, &["@s"], &[item]);
        let mut commands = commands(slot_of(live.state(), item)).into_iter();
        if commands.all(|c| live.command(c, &mut (), &mut tape).is_ok()) {
            let told = live.state().world().messages().recent();
            harm.extend(told.filter_map(|m| blow(&m.msg)));
        }
    }
    harm
}

/// A level of a game's own size (a snapshot's explored cells must cover it), the camel
/// in its corner and `more` drawn over its first rows.
fn wide(more: &[&str]) -> Vec<String> {
    let mut rows = vec![".".repeat(64); 40];
    for (row, drawn) in rows.iter_mut().zip(more) {
        row.replace_range(0..drawn.len(), drawn);
    }
    rows
}

fn rows(rows: &[String]) -> Vec<&str> {
    rows.iter().map(String::as_str).collect()
}

fn camel(state: &State) -> crate::ids::ActorId {
    state.world().player_id().unwrap()
}

/// A javelin is thrown in half the time of a spear, and harms 1 to 4.
#[test]
fn a_javelin_flies_in_half_the_time_of_a_spear() {
    let (live, _) = carrying(version(9), 4, &["@....s"], &[Item::Javelin]);
    let world = live.state().world();
    let throw = |item| Action::Throw {
        slot: slot_of(live.state(), item),
        lands: Pos::new(4, 0),
        hit: None,
    };
    let (javelin, spear) = (
        world.cost_of(camel(live.state()), &throw(Item::Javelin)),
        world.cost_of(camel(live.state()), &throw(Item::Spear)),
    );
    assert_eq!(javelin * 2, spear);
    let throw = |slot| vec![Command::Throw(slot, Direction::E)];
    let harm = blows_over_seeds(30, Item::Javelin, throw, |msg| match *msg {
        Msg::Struck {
            item: Item::Javelin,
            damage,
            ..
        } => Some(damage),
        _ => None,
    });
    assert!(harm.len() > 10, "{harm:?}");
    assert!(harm.iter().all(|d| (1..=4).contains(d)), "{harm:?}");
}

/// From version 9 a spear's blow is told as the spear's; before, as the camel's kick.
#[test]
fn a_thrown_spear_is_told_as_a_spear_from_version_9() {
    for rules_version in [8, 9] {
        let (mut live, mut tape) = carrying(version(rules_version), 4, &["@.s"], &[]);
        let spear = slot_of(live.state(), Item::Spear);
        let thrown = Command::Throw(spear, Direction::E);
        live.command(thrown, &mut (), &mut tape).unwrap();
        let recent = told(live.state());
        let kicked = recent.iter().any(|m| {
            matches!(
                m,
                Msg::Hit {
                    attacker: Species::Camel,
                    ..
                }
            )
        });
        let struck = recent.iter().any(|m| matches!(m, Msg::Struck { .. }));
        assert_eq!((kicked, struck), (rules_version == 8, rules_version == 9));
        let text: Vec<String> = recent.iter().map(Msg::to_string).collect();
        assert!(
            text.iter().all(|t| !t.contains("kick")) || rules_version == 8,
            "{text:?}"
        );
    }
}

/// Drinking a flask uses it up and teaches what its look holds.
#[test]
fn each_flask_does_what_it_holds_and_is_known_after() {
    let map = wide(&["@"]);
    let flasks = Glass::ALL.map(Item::Flask);
    let (live, mut tape) = carrying(version(9), 4, &rows(&map), &flasks);
    let id = camel(live.state());
    let mut state = live.into_state();
    state.set_up(crate::world::Change::Hurt {
        actor: id,
        amount: 10,
    });
    let mut live = Live::resume(4, state);
    let hp = live.state().world().actor_at(id).hp();
    let amber = Item::Flask(Glass::Amber);
    assert_eq!(live.state().world().item_name(amber), "amber flask");
    // Brackish water: the skin is spoilt.
    let green = slot_of(live.state(), Item::Flask(Glass::Green));
    live.command(Command::Use(green), &mut (), &mut tape)
        .unwrap();
    assert_eq!(live.state().world().water(), 0);
    // Sweet water: the skin fills, and 5 hit points come back.
    let cloudy = slot_of(live.state(), Item::Flask(Glass::Cloudy));
    live.command(Command::Use(cloudy), &mut (), &mut tape)
        .unwrap();
    assert_eq!(live.state().world().actor_at(id).hp(), hp + 5);
    assert_eq!(live.state().world().water(), 20);
    assert!(said(
        live.state(),
        Msg::Drank {
            glass: Glass::Cloudy,
            draught: Draught::Sweet
        }
    ));
    // Vision: every cell of the level is known.
    let amber_slot = slot_of(live.state(), amber);
    live.command(Command::Use(amber_slot), &mut (), &mut tape)
        .unwrap();
    let world = live.state().world();
    assert!(world.map().cells().all(|p| world.remembers(p)));
    assert_eq!(world.item_name(amber), "flask of vision");
    assert!(live
        .state()
        .world()
        .bags()
        .stacks()
        .all(|(_, s)| !s.item.is_usable()));
    let lore = live.state().world().lore();
    assert!(Glass::ALL.into_iter().all(|g| lore.knows_glass(g)));
}

/// A scarab of slumber puts every creature the camel sees to sleep, its ally aside.
#[test]
fn a_scarab_of_slumber_sends_what_the_camel_sees_to_sleep() {
    let (mut live, mut tape) = carrying(version(9), 4, &["@..s..j"], &[Item::Scarab(Stone::Jade)]);
    let jade = slot_of(live.state(), Item::Scarab(Stone::Jade));
    live.command(Command::Use(jade), &mut (), &mut tape)
        .unwrap();
    let world = live.state().world();
    for species in [Species::Snake, Species::Jackal] {
        let (id, _) = first_of(live.state(), species).unwrap();
        assert_eq!(world.actor_at(id).behaviour(), Behaviour::Slumber);
        assert_eq!(world.actor_at(id).last_seen(), None);
    }
    let cracked = Msg::Cracked {
        stone: Stone::Jade,
        charm: Charm::Slumber,
        fizzled: false,
    };
    assert!(said(live.state(), cracked));
}

/// A scarab of blinking carries the camel to a free cell at least 8 away; with none far
/// enough it fizzles.
#[test]
fn a_scarab_of_blinking_carries_the_camel_far_or_fizzles() {
    let map = wide(&["@"]);
    let bone = Item::Scarab(Stone::Bone);
    let (mut live, mut tape) = carrying(version(9), 4, &rows(&map), &[bone, bone]);
    let from = live.state().world().actor_at(camel(live.state())).pos();
    let slot = slot_of(live.state(), bone);
    live.command(Command::Use(slot), &mut (), &mut tape)
        .unwrap();
    let to = live.state().world().actor_at(camel(live.state())).pos();
    assert!(from.distance(to) >= 8, "{from:?} to {to:?}");
    assert_eq!(
        live.state().world().map().occupant(to),
        Some(camel(live.state()))
    );
    let (mut small, mut tape) = carrying(version(9), 4, &["@...."], &[bone]);
    let slot = slot_of(small.state(), bone);
    small
        .command(Command::Use(slot), &mut (), &mut tape)
        .unwrap();
    assert_eq!(
        small.state().world().player().unwrap().pos(),
        Pos::new(0, 0)
    );
    let fizzled = Msg::Cracked {
        stone: Stone::Bone,
        charm: Charm::Blink,
        fizzled: true,
    };
    assert!(said(small.state(), fizzled));
}

/// A scarab of alarm wakes every sleeper and tells every hunter where the camel is.
#[test]
fn a_scarab_of_alarm_wakes_the_level_and_calls_the_hunters() {
    let map = wide(&[
        "@",
        "",
        "",
        "",
        "",
        "",
        "",
        "",
        "",
        "",
        "",
        "",
        ".......W.......j",
    ]);
    let mut level = level_of(&rows(&map));
    for creature in &mut level.creatures {
        creature.2 = Behaviour::Asleep;
    }
    level.items = vec![(level.start, Item::Scarab(Stone::Copper))];
    level.lore = Some(Lore::default());
    let (mut live, mut tape) = onto(version(9), 4, level);
    live.command(Command::PickUp, &mut (), &mut tape).unwrap();
    let copper = slot_of(live.state(), Item::Scarab(Stone::Copper));
    live.command(Command::Use(copper), &mut (), &mut tape)
        .unwrap();
    let world = live.state().world();
    let camel_at = world.player().unwrap().pos();
    for species in [Species::Sandworm, Species::Jackal] {
        let (id, _) = first_of(live.state(), species).unwrap();
        let actor = world.actor_at(id);
        assert_eq!(actor.behaviour(), Behaviour::Natural, "{species:?}");
        assert_eq!(actor.last_seen(), Some(camel_at), "{species:?}");
    }
}

/// Each of a desert rose's three boons, and only a rose grows the camel.
#[test]
fn a_desert_rose_grows_the_camel_as_chosen() {
    let map = wide(&["@"]);
    let roses = [Item::Rose, Item::Rose, Item::Rose];
    let (mut live, mut tape) = carrying(version(9), 4, &rows(&map), &roses);
    let id = camel(live.state());
    let date = slot_of(live.state(), Item::Date);
    let refused = live.command(Command::Grow(date, Boon::Hardier), &mut (), &mut tape);
    assert_eq!(refused.unwrap_err(), Rejection::CannotGrow(Item::Date));
    let most = live.state().world().actor_at(id).max_hp();
    for boon in Boon::FIRST_THREE {
        let rose = slot_of(live.state(), Item::Rose);
        // Before rules 12 a rose offers only the first three.
        let later = live.command(Command::Grow(rose, Boon::Hide), &mut (), &mut tape);
        assert_eq!(later.unwrap_err(), Rejection::NotOffered(Boon::Hide));
        live.command(Command::Grow(rose, boon), &mut (), &mut tape)
            .unwrap();
        assert!(said(live.state(), Msg::Grew(boon)));
    }
    let world = live.state().world();
    assert_eq!(world.actor_at(id).max_hp(), most + HARDIER_HP);
    assert_eq!(world.growth().kick_bonus(), 1);
    assert_eq!(world.growth().waterskin(), 20 + DEEPER_SIPS);
    // Beside water the deeper skin fills to its new brim.
    let (mut wet, mut tape) = carrying(version(9), 4, &["@=", ".."], &[Item::Rose]);
    let rose = slot_of(wet.state(), Item::Rose);
    wet.command(Command::Grow(rose, Boon::Deeper), &mut (), &mut tape)
        .unwrap();
    rest_until(&mut wet, 2, |_| false);
    assert_eq!(wet.state().world().water(), 20 + DEEPER_SIPS);
}

/// A stronger camel's kicks harm one more: over many kicks, never less than the least
/// plus one, and sometimes the most plus one, which no plain kick reaches.
#[test]
fn a_stronger_camel_kicks_harder() {
    let (low, high) = Species::Camel.damage();
    let (low, high) = (low as i16, high as i16);
    let grow_and_kick = |rose| {
        let grow = Command::Grow(rose, Boon::Stronger);
        vec![grow, Command::Move(Direction::E)]
    };
    let kicks = blows_over_seeds(40, Item::Rose, grow_and_kick, |msg| match *msg {
        Msg::Hit {
            attacker: Species::Camel,
            damage,
            ..
        } => Some(damage),
        _ => None,
    });
    assert!(kicks.len() > 10, "{kicks:?}");
    assert!(
        kicks.iter().all(|d| (low + 1..=high + 1).contains(d)),
        "{kicks:?}"
    );
    assert!(kicks.contains(&(high + 1)), "{kicks:?}");
}

/// Barding softens every blow by 1 but makes all the camel does dearer; from version 9
/// gear comes off, back into the bags; before, it stays on.
#[test]
fn barding_softens_and_weighs_and_gear_comes_off() {
    let (mut live, mut tape) = carrying(version(9), 4, &["@.."], &[Item::Barding]);
    let id = camel(live.state());
    let step = Action::Step { to: Pos::new(1, 0) };
    let light = live.state().world().cost_of(id, &step);
    let idle = live.state().world().cost_of(id, &Action::Wait);
    let barding = slot_of(live.state(), Item::Barding);
    live.command(Command::Wear(barding), &mut (), &mut tape)
        .unwrap();
    let world = live.state().world();
    assert_eq!(world.cost_of(id, &step), (light * 5).div_ceil(4));
    assert_eq!(world.cost_of(id, &Action::Wait), (idle * 5).div_ceil(4));
    assert_eq!(world.gear().soften(5), 4);
    let refused = live.command(Command::TakeOff(Garment::Boots), &mut (), &mut tape);
    assert_eq!(refused.unwrap_err(), Rejection::NotWorn(Item::Boots));
    live.command(Command::TakeOff(Garment::Barding), &mut (), &mut tape)
        .unwrap();
    let world = live.state().world();
    assert!(!world.gear().wears(Item::Barding));
    assert_eq!(world.cost_of(id, &step), light);
    assert!(world.bags().slot_for(Item::Barding).is_some());
    assert!(said(live.state(), Msg::TookOff(Item::Barding)));
    let (mut old, mut tape) = carrying(version(8), 4, &["@.."], &[Item::Blanket]);
    let blanket = slot_of(old.state(), Item::Blanket);
    old.command(Command::Wear(blanket), &mut (), &mut tape)
        .unwrap();
    let refused = old.command(Command::TakeOff(Garment::Blanket), &mut (), &mut tape);
    assert_eq!(refused.unwrap_err(), Rejection::StaysOn);
}

/// Only flasks and scarabs are used.
#[test]
fn only_flasks_and_scarabs_are_used() {
    let (mut live, mut tape) = carrying(version(9), 4, &["@."], &[]);
    let spear = slot_of(live.state(), Item::Spear);
    let refused = live.command(Command::Use(spear), &mut (), &mut tape);
    assert_eq!(refused.unwrap_err(), Rejection::CannotUse(Item::Spear));
}

/// The finds lie only under version 9's contents: a javelin and flasks on every level,
/// scarabs from depth 2, barding on depth 4 and a rose on 5. The levels of the versions
/// before are the same with them or without: the finds are placed after all else.
#[test]
fn finds_lie_where_version_9_puts_them_and_change_no_older_level() {
    for seed in 0..20 {
        for depth in 1..=8 {
            let contents = |finds| Contents {
                gear: true,
                finds,
                ..Contents::plain(Bestiary::Herds)
            };
            let (old, new) = (
                generate(seed, depth, contents(false)),
                generate(seed, depth, contents(true)),
            );
            assert_eq!((&old.map, &old.creatures), (&new.map, &new.creatures));
            assert_eq!(new.items[..old.items.len()], old.items[..]);
            let added: Vec<Item> = new.items[old.items.len()..]
                .iter()
                .map(|&(_, i)| i)
                .collect();
            let count = |want: fn(&Item) -> bool| added.iter().filter(|i| want(i)).count();
            assert_eq!(count(|i| *i == Item::Javelin), 1);
            assert_eq!(count(|i| matches!(i, Item::Flask(_))), 2);
            assert_eq!(
                count(|i| matches!(i, Item::Scarab(_))),
                usize::from(depth >= 2)
            );
            let rare: Vec<Item> = FINDS_ON
                .iter()
                .filter(|&&(_, on)| on == depth)
                .map(|&(i, _)| i)
                .collect();
            assert_eq!(
                count(|i| matches!(i, Item::Rose | Item::Barding)),
                rare.len()
            );
            assert_eq!(new.lore.is_some(), depth == 1);
            assert!(old.lore.is_none());
        }
    }
}

/// The barding worn, the lore and the growth are part of the state: a snapshot keeps
/// them, and each changes the hash.
#[test]
fn the_finds_are_in_the_state_and_its_hash() {
    let map = wide(&["@"]);
    let items = [Item::Barding, Item::Rose, Item::Flask(Glass::Green)];
    let (mut live, mut tape) = carrying(version(9), 4, &rows(&map), &items);
    let mut hashes = vec![live.state().hash()];
    let commands = [
        Command::Wear(slot_of(live.state(), Item::Barding)),
        Command::Grow(slot_of(live.state(), Item::Rose), Boon::Stronger),
        Command::Use(slot_of(live.state(), Item::Flask(Glass::Green))),
    ];
    for command in commands {
        live.command(command, &mut (), &mut tape).unwrap();
        let state = live.state();
        let decoded = State::decode(&state.encode(), state.world().rules().version()).unwrap();
        assert_eq!(decoded.hash(), state.hash());
        assert_eq!(decoded.world().gear(), state.world().gear());
        assert_eq!(decoded.world().lore(), state.world().lore());
        assert_eq!(decoded.world().growth(), state.world().growth());
        hashes.push(state.hash());
    }
    hashes.dedup();
    assert_eq!(hashes.len(), 4);
}

/// Under rules 12 the first level draws what each rose offers: nine different boons of
/// the ten, three to a rose, differently in different games; later levels draw none.
#[test]
fn a_game_draws_three_boons_for_each_rose() {
    let contents = Contents::of(&version(12));
    let mut offers_seen = std::collections::BTreeSet::new();
    for seed in 0..20 {
        let Some(Offers(offers)) = generate(seed, 1, contents).offers else {
            panic!("the first level draws the offers");
        };
        let mut boons: Vec<Boon> = offers.iter().flatten().copied().collect();
        boons.sort_by_key(|&b| b as u8);
        boons.dedup();
        assert_eq!(boons.len(), 9, "nine different boons");
        offers_seen.insert(format!("{offers:?}"));
        assert_eq!(generate(seed, 2, contents).offers, None);
    }
    assert!(offers_seen.len() > 15, "games are offered differently");
    assert_eq!(generate(0, 1, Contents::of(&version(11))).offers, None);
}

/// A rose offers the boons drawn for it, in turn: another is refused, and each boon does
/// what it says, the costly ones their cost too.
#[test]
fn each_rose_offers_its_three_and_each_boon_does_what_it_says() {
    let offers = Offers([
        [Boon::Fury, Boon::Sage, Boon::Hide],
        [Boon::Sinew, Boon::Hump, Boon::Arm],
        [Boon::Vigour, Boon::Deeper, Boon::Stronger],
    ]);
    let (mut live, mut tape) = with_roses(3, offers);
    let id = camel(live.state());
    let world = live.state().world();
    let (most, skin, every) = (
        world.actor_at(id).max_hp(),
        world.growth().waterskin(),
        world.thirst_every(),
    );
    let mut grow = |live: &mut Live, boon| {
        let rose = slot_of(live.state(), Item::Rose);
        live.command(Command::Grow(rose, boon), &mut (), &mut tape)
    };
    assert_eq!(
        grow(&mut live, Boon::Sinew).unwrap_err(),
        Rejection::NotOffered(Boon::Sinew),
        "the second rose's boon is not the first's"
    );
    grow(&mut live, Boon::Fury).unwrap();
    let world = live.state().world();
    assert_eq!(world.actor_at(id).max_hp(), most - FURY_COST_HP);
    assert_eq!(world.growth().kick_bonus(), 3);
    assert_eq!(world.growth().offer(), offers.0[1]);
    grow(&mut live, Boon::Sinew).unwrap();
    let world = live.state().world();
    assert_eq!(world.actor_at(id).max_hp(), most - FURY_COST_HP + SINEW_HP);
    assert_eq!(world.growth().waterskin(), skin - SINEW_COST_SIPS);
    assert!(world.water() <= world.growth().waterskin());
    grow(&mut live, Boon::Vigour).unwrap();
    assert!(said(live.state(), Msg::Grew(Boon::Vigour)));
    assert_eq!(live.state().world().growth().vigour(), 2);
    assert_eq!(live.state().world().thirst_every(), every);
    // The growth so far survives a snapshot.
    let state = live.state();
    let decoded = State::decode(&state.encode(), state.world().rules().version()).unwrap();
    assert_eq!(&decoded, state);
}

/// Desert lore names every flask and scarab at once; a fat hump puts off each sip.
#[test]
fn desert_lore_knows_every_find_and_a_hump_waits_longer() {
    let offers = Offers([
        [Boon::Sage, Boon::Hump, Boon::Hide],
        [Boon::Hump, Boon::Arm, Boon::Fury],
        [Boon::Vigour, Boon::Deeper, Boon::Stronger],
    ]);
    let (mut live, mut tape) = with_roses(2, offers);
    let every = live.state().world().thirst_every();
    for boon in [Boon::Sage, Boon::Hump] {
        let rose = slot_of(live.state(), Item::Rose);
        live.command(Command::Grow(rose, boon), &mut (), &mut tape)
            .unwrap();
    }
    let world = live.state().world();
    assert!(Glass::ALL.iter().all(|&g| world.lore().knows_glass(g)));
    assert!(Stone::ALL.iter().all(|&s| world.lore().knows_stone(s)));
    assert_eq!(world.thirst_every(), every + HUMP_TURNS);
}

/// A camel of rules 12 carrying `roses` desert roses, which offer `offers`.
fn with_roses(roses: usize, offers: Offers) -> (Live, Vec<Event>) {
    let map = wide(&["@"]);
    let mut level = level_of(&rows(&map));
    level.items = vec![(level.start, Item::Rose); roses];
    level.lore = Some(Lore::default());
    level.offers = Some(offers);
    let (mut live, mut tape) = onto(version(12), 4, level);
    for _ in 0..roses {
        live.command(Command::PickUp, &mut (), &mut tape).unwrap();
    }
    (live, tape)
}
