//! Look: a cell described in words, for the look cursor (`;`) and the mouse. What the
//! camel sees there now, or remembers of it: the ground and what a step onto it costs,
//! the creature standing there and what it is doing, the items lying there.

use sandglass_sim::action::Action;
use sandglass_sim::bestiary::Bestiary;
use sandglass_sim::crossing::{DEEP_DESERT, FURNACE};
use sandglass_sim::desert::{TimeOfDay, COLD, DAY_TICKS, FRUIT_WATER, HEAT};
use sandglass_sim::energy::{Cost, Pace};
use sandglass_sim::gear::{BARDING_SOFTENS, BARDING_WEIGHS, BLANKET_SOFTENS};
use sandglass_sim::geometry::Pos;
use sandglass_sim::ids::ActorId;
use sandglass_sim::item::Item;
use sandglass_sim::lore::{DEEPER_SIPS, HARDIER_HP, STRONGER_KICK};
use sandglass_sim::map::Terrain;
use sandglass_sim::rules;
use sandglass_sim::species::{Behaviour, Species, COBRA_REACH, PACK_BITE, SWARMS_MOST, THICK_HIDE};
use sandglass_sim::text::{a, capitalise, plural};
use sandglass_sim::world::{Actor, World, FOLLOWS_FROM};
use sandglass_sim::{
    is_provoked, runs_from_the_camel, weakened, State, EGG_WAITS, SHRIEK_REACH, TAMING_ODDS,
    VULTURE_KEEPS_OFF,
};

/// The lines describing `pos` as the camel knows it.
pub fn describe(state: &State, pos: Pos) -> Vec<String> {
    let world = state.world();
    if !world.map().contains(pos) {
        return vec!["The edge of the desert: nothing passes.".into()];
    }
    if !world.remembers(pos) {
        return vec!["You have not seen this place.".into()];
    }
    let mut lines = vec![ground(world, pos)];
    if world.sees(pos) {
        let occupant = world.map().occupant(pos).filter(|&id| !world.is_hidden(id));
        if let Some(actor) = occupant.and_then(|id| world.actor(id)) {
            lines.push(creature(state, actor));
        }
    } else {
        lines.push("(remembered; you do not see it now)".into());
    }
    let items = pile(world, pos);
    if !items.is_empty() {
        let one = items.len() == 1 && world.items_at(pos).nth(1).is_none();
        lines.push(format!(
            "{} lie{} here.",
            capitalise(&items.join(", ")),
            if one { "s" } else { "" }
        ));
    }
    lines
}

/// The items lying at `pos`, like ones counted together, in the order they were put
/// down: "5 dates", "a spear".
pub fn pile(world: &World, pos: Pos) -> Vec<String> {
    let mut counted: Vec<(Item, u16)> = vec![];
    for item in world.items_at(pos) {
        match counted.iter_mut().find(|(kind, _)| *kind == item) {
            Some((_, count)) => *count += 1,
            None => counted.push((item, 1)),
        }
    }
    counted
        .into_iter()
        .map(|(item, count)| world.counted_items(item, count))
        .collect()
}

/// A creature the camel sees, as the side bar lists it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Sighting {
    pub species: Species,
    pub hp: i16,
    pub max_hp: i16,
    /// What sets it apart; nothing for one going about its business.
    pub standing: Option<Standing>,
}

/// What sets a creature in view apart, in a word or two.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Standing {
    Dormant,
    Asleep,
    Ally,
    Stunned,
    Charging,
    Fleeing,
    Hunting,
    Enraged,
}

impl Standing {
    pub fn words(self) -> &'static str {
        match self {
            Standing::Dormant => "dormant",
            Standing::Asleep => "asleep",
            Standing::Ally => "your ally",
            Standing::Stunned => "stunned",
            Standing::Charging => "charging",
            Standing::Fleeing => "fleeing",
            Standing::Hunting => "hunting you",
            Standing::Enraged => "enraged",
        }
    }

    /// Whether it will do the camel no harm for now.
    pub fn is_calm(self) -> bool {
        matches!(
            self,
            Standing::Dormant | Standing::Asleep | Standing::Stunned | Standing::Fleeing
        )
    }

    fn of(actor: &Actor) -> Option<Standing> {
        match actor.behaviour() {
            Behaviour::Asleep if actor.species() == Species::SpiderEgg => {
                return Some(Standing::Dormant)
            }
            Behaviour::Asleep | Behaviour::Slumber => return Some(Standing::Asleep),
            Behaviour::Ally => return Some(Standing::Ally),
            _ => {}
        }
        Some(if actor.knocked_out() > 0 {
            Standing::Stunned
        } else if actor.charging().is_some() {
            Standing::Charging
        } else if is_fleeing(actor) {
            Standing::Fleeing
        } else if actor.species().hunts() && actor.last_seen().is_some() {
            Standing::Hunting
        } else if actor.species() == Species::Tortoise && is_provoked(actor) {
            Standing::Enraged
        } else {
            return None;
        })
    }
}

impl Sighting {
    /// "s snake 4/6", "j jackal 3/8 (your ally)".
    pub fn line(&self) -> String {
        let glyph = self.species.glyph();
        let name = self.species.name();
        let (hp, max_hp) = (self.hp.max(0), self.max_hp);
        match self.standing {
            Some(standing) => format!("{glyph} {name} {hp}/{max_hp} ({})", standing.words()),
            None => format!("{glyph} {name} {hp}/{max_hp}"),
        }
    }
}

/// The creatures the camel sees, nearest first.
pub fn in_view(state: &State) -> Vec<Sighting> {
    let world = state.world();
    let Some(here) = world.player().map(|c| c.pos()) else {
        return vec![];
    };
    let mut seen: Vec<(u16, ActorId, &Actor)> = world
        .actors()
        .filter(|&(id, _)| !world.is_player(id) && world.sees_actor(id))
        .map(|(id, a)| (a.pos().distance(here), id, a))
        .collect();
    seen.sort_by_key(|&(distance, id, _)| (distance, id));
    seen.into_iter()
        .map(|(_, _, actor)| Sighting {
            species: actor.species(),
            hp: actor.hp(),
            max_hp: actor.max_hp(),
            standing: Standing::of(actor),
        })
        .collect()
}

/// Whether a hunter on the camel's trail runs from it rather than after it, as the
/// simulation decides (`runs_from_the_camel`).
/// Whether the camel has lost half its hit points: what a vulture waits for.
fn weakened_camel(world: &World) -> bool {
    world.player().is_some_and(weakened)
}

pub fn is_fleeing(actor: &Actor) -> bool {
    actor.species().hunts() && actor.last_seen().is_some() && runs_from_the_camel(actor)
}

/// What a thief standing in the world carries, snatched from the camel's bags.
pub fn carried(world: &World, actor: &Actor) -> Option<Item> {
    world
        .map()
        .occupant(actor.pos())
        .and_then(|id| world.loot_of(id))
}

/// The ground, and what a step onto it costs the camel as it is now.
fn ground(world: &World, pos: Pos) -> String {
    let terrain = world.map().terrain(pos);
    let what = match terrain {
        Terrain::Sand => "Sand",
        Terrain::Dune => "Dunes: soft and slow to cross",
        Terrain::Hardpan => "Hardpan: hard and quick to cross",
        Terrain::Cactus => return "A cactus: nothing passes, nothing is seen past it.".into(),
        Terrain::Water if world.rules().desert_clock() => {
            return "Water: too deep to wade; beside it your waterskin fills.".into()
        }
        Terrain::Water => return "Water: too deep to wade; you see across it.".into(),
        Terrain::DoorClosed => {
            return "A closed door: step into it, or open it (o), to pass or see through.".into()
        }
        Terrain::DoorLocked => {
            return "A locked door: a key found on this level opens it (walk into it or o).".into()
        }
        Terrain::DoorOpen => "An open door",
        Terrain::Stairs => "Stairs down (>)",
        Terrain::Oasis => "The oasis: reach it and the crossing is won",
    };
    match world.player_id().zip(world.player()) {
        Some((id, camel)) => {
            let stats = camel.stats();
            let pace = world.pace(id);
            // As the fold prices it: boots make dunes sand to the camel's feet.
            let step = world.cost_of(id, &Action::Step { to: pos });
            let base = world.time().cost(&stats, Cost::Step(Terrain::Sand), pace);
            if step == base {
                format!("{what}: a step costs {step} energy.")
            } else {
                format!("{what}: a step costs {step} energy ({base} on sand).")
            }
        }
        None => format!("{what}."),
    }
}

/// A creature: its species, hit points, speed and energy, and what it is about.
fn creature(state: &State, actor: &Actor) -> String {
    let world = state.world();
    let species = actor.species();
    if species == Species::Camel {
        return "You, the camel.".into();
    }
    let id = world.map().occupant(actor.pos());
    let energy = id.map_or(0, |id| world.energy(id).0);
    let speed = match world.time() {
        sandglass_sim::tape::TimeModel::Nethack => format!("speed {}", actor.stats().speed),
        sandglass_sim::tape::TimeModel::Classic { .. } => {
            format!("move cost {}", actor.stats().move_cost)
        }
    };
    format!(
        "{} ({}/{} hp, {speed}, energy {energy}): {}.",
        capitalise(&a(species.name())),
        actor.hp(),
        actor.max_hp(),
        doing(world, actor, id.map_or(0, |id| world.turns(id)))
    )
}

/// What a creature is about, as far as its state tells.
fn doing(world: &World, actor: &Actor, turns: u32) -> String {
    let species = actor.species();
    if actor.behaviour() == Behaviour::Asleep && species == Species::SpiderEgg {
        return "dormant; come close and it stirs, and hatches".into();
    }
    if actor.behaviour() == Behaviour::Asleep {
        return "asleep; the nearer you pass, the likelier it wakes".into();
    }
    if actor.behaviour() == Behaviour::Slumber {
        return "in a charmed sleep; only a blow or an alarm wakes it".into();
    }
    if actor.is_ally() {
        return "your ally; it keeps near you and bites what comes for you (walk into it \
            to change places)"
            .into();
    }
    if actor.knocked_out() > 0 {
        return format!("knocked out, for {} more turns", actor.knocked_out());
    }
    if actor.charging().is_some() {
        return format!("charging {}", actor.charging().map_or("", |d| d.name()));
    }
    if let Some(action) = actor.waiting() {
        return match action {
            Action::Step { .. } => "gathering strength for a step".into(),
            _ => "gathering strength".into(),
        };
    }
    match species {
        Species::SpiderEgg => {
            let left = EGG_WAITS.saturating_sub(turns) + 1;
            format!("hatching in {left} turns")
        }
        _ if species.hunts() && actor.last_seen().is_some() => {
            let doing = if is_fleeing(actor) {
                "fleeing from you"
            } else if world.sees(actor.pos()) {
                "hunting you"
            } else {
                "on your trail"
            };
            match species {
                Species::Lion => format!("{doing}; faster and stronger than you"),
                Species::Ratel => format!("{doing}; kicks barely mark its hide: throw things"),
                Species::Locusts => format!(
                    "{doing}; a blow that does not kill it splits it in two: kill it in one"
                ),
                _ => doing.into(),
            }
        }
        Species::Scorpion => "lying in wait".into(),
        Species::Cobra => {
            format!("wandering; it spits at you along a clear line up to {COBRA_REACH} cells")
        }
        Species::Elephant => "grazing; it charges what it sees along a row or column".into(),
        Species::Meerkat => format!(
            "keeping watch; on seeing you it shrieks, waking sleepers within {SHRIEK_REACH} cells, and runs"
        ),
        Species::Hyena => format!(
            "roaming with its pack; it howls when it sees you, and bites {PACK_BITE} harder while another hyena is beside you"
        ),
        Species::Tortoise if is_provoked(actor) => {
            "enraged; it comes straight for you, trampling cacti, and crushes what it meets".into()
        }
        Species::Tortoise => "grazing; harmless unless hurt, and slow".into(),
        Species::Lion => "prowling; faster and stronger than you: you cannot outrun it".into(),
        Species::Ratel => format!(
            "prowling; its thick hide turns kicks and bites aside (at most {THICK_HIDE} each): throw things at it"
        ),
        Species::Vulture if weakened_camel(world) => {
            "coming down on you: you have lost half your hit points, and it is faster than you"
                .into()
        }
        Species::Vulture => format!(
            "circling; faster than you, it keeps {VULTURE_KEEPS_OFF} cells off until you have lost half your hit points"
        ),
        Species::Locusts => format!(
            "swarming; a blow that does not kill it splits it in two (at most {SWARMS_MOST} swarms): kill it in one"
        ),
        Species::Fennec => match carried(world, actor) {
            Some(item) => format!(
                "running off with {}: it lets it fall only where it dies",
                world.describe_item(item)
            ),
            None if world.sees(actor.pos()) => {
                "coming for your bags, faster than you: it snatches one thing and runs".into()
            }
            None => "prowling; a thief faster than you".into(),
        },
        _ => "wandering".into(),
    }
}

/// The desert's clock and the camel's water, for the help screen of a game played
/// under it (`Rules::desert_clock`); nothing for older rules.
pub fn desert_lines(state: &State) -> Vec<String> {
    let Some(now) = state.world().time_of_day() else {
        return vec![];
    };
    let mut lines = clock_lines(state, now);
    lines.extend(finds_lines(state));
    lines.extend(ground_lines(state));
    lines
}

/// The day, the heat and the cold, and the camel's water.
fn clock_lines(state: &State, now: TimeOfDay) -> Vec<String> {
    let quarter = DAY_TICKS / 4;
    let world = state.world();
    let every = world.thirst_every();
    vec![
        format!(
            "A day is {DAY_TICKS} ticks: morning, noon, evening and night, {quarter} each; now {}.",
            now.name()
        ),
        format!(
            "At noon your steps cost {}/{} and you drink twice as fast. At night the cold",
            HEAT.0, HEAT.1
        ),
        format!(
            "numbs {}: they act at {}/{} cost.",
            cold_blooded(state),
            COLD.0,
            COLD.1
        ),
        format!(
            "Your waterskin holds {} sips: one every {every} turns here, every {} at noon.",
            state.world().growth().waterskin(),
            every / 2
        ),
        format!(
            "Beside water you drink from it and fill the skin; a cactus fruit gives {FRUIT_WATER} sips."
        ),
        "Empty, you lose a hit point a sip instead, and do not heal.".into(),
        "Many creatures sleep: the nearer you pass, the likelier they wake. A meerkat".into(),
        "that sees you shrieks them all awake. Where the sand stirs, a sandworm lies".into(),
        "unseen beneath: step away before you stand beside it.".into(),
    ]
}

/// Gear, javelins, flasks, scarabs and roses, and what the crossing's depths take away.
fn finds_lines(state: &State) -> Vec<String> {
    let mut lines = vec![];
    if state.world().rules().finds() {
        lines.extend([
            format!("Gear (W to wear, T to take off): a saddle blanket softens every blow by {BLANKET_SOFTENS},"),
            format!("boots make dunes as quick going as sand, and bronze barding softens blows by {BARDING_SOFTENS}"),
            format!("more but weighs on everything you do ({}/{} cost).", BARDING_WEIGHS.0, BARDING_WEIGHS.1),
            "Javelins (t) harm less than a spear but fly in half the time. Flasks (drink) and".into(),
            "scarabs (crack) are unknown until used (a): some help, some harm. A desert rose (a)".into(),
        ]);
        let rules = state.world().rules();
        let roses_on = depths(rules.crossing().roses_on());
        if rules.forking_growth() {
            // Under 12 and on, a rose offers three boons of ten, drawn for the game: the
            // prompt names them, and the first three are not always among them.
            lines.extend([
                "offers three of ten ways to grow for good, drawn for the game, some at a cost:"
                    .into(),
                format!("the prompt says what each does. One lies on each of depths {roses_on}."),
            ]);
        } else {
            lines.extend([
                format!("makes you hardier (+{HARDIER_HP} hit points), stronger (kicks +{STRONGER_KICK}) or your waterskin deeper"),
                match rules.roses_along_the_way() {
                    true => format!("(+{DEEPER_SIPS} sips), for good: one lies on each of depths {roses_on}."),
                    false => format!("(+{DEEPER_SIPS} sips), for good: there is one in a crossing, so choose well."),
                },
            ]);
        }
        if rules.crossing().has_furnace() {
            lines.extend([
                "The deeper you go, the slower a wound closes by itself (the side bar's Heals),"
                    .into(),
                "and on the last three depths it does not: there only food, drink and boons heal."
                    .into(),
            ]);
        }
        if rules.spears_break() {
            lines.extend([
                "A thrown spear that hits snaps: keep spears for what kicks cannot kill. One that"
                    .into(),
                "misses lands, and can be picked up again. Food is scarce: eat when it matters."
                    .into(),
            ]);
        }
        if rules.javelins_break() {
            lines.push(
                "Javelins snap on a hit too. Vigour gives back only for the hunters you kill."
                    .into(),
            );
        }
    } else if state.world().rules().gear() {
        lines.push(format!(
            "Gear (W to wear, for good): a saddle blanket softens every blow by {BLANKET_SOFTENS},"
        ));
        lines.push("and boots make dunes as quick going as sand.".into());
    }
    lines
}

/// The creatures later versions brought, and how each is met: the help's third page
/// (the desert's ran past two columns once fennecs and vipers came).
pub fn creature_lines(state: &State) -> Vec<String> {
    let mut lines = vec![];
    if state.world().rules().bestiary() >= Bestiary::Herds {
        lines.extend([
            "Hyenas run in pairs: one that sees you howls the other awake and onto you,".into(),
            format!("and each bites {PACK_BITE} harder while both stand beside you: meet them in a gap."),
            "A tortoise grazes, harmless until hurt; then it comes for you, slow but hard-hitting,".into(),
            "and cacti do not stop it: it tramples them flat.".into(),
        ]);
    }
    if state.world().rules().bestiary() >= Bestiary::Hunted {
        lines.extend([
            "A locust swarm splits in two when a blow does not kill it: kill it in one blow,".into(),
            format!("or leave it. A vulture, faster than you, keeps {VULTURE_KEEPS_OFF} cells off until you have"),
            "lost half your hit points; then it comes down on you.".into(),
        ]);
    }
    if state.world().rules().thieves() {
        lines.extend([
            "A fennec, faster than you, comes for your bags: beside you it snatches one thing and"
                .into(),
            "runs, letting it fall only where it dies. Throw at it before it reaches you. A horned"
                .into(),
            "viper lies under the sand as a sandworm does, where the sand stirs; its bite poisons."
                .into(),
        ]);
    }
    if state.world().rules().bestiary() >= Bestiary::Wakeful {
        lines.extend([
            format!("From depth {DEEP_DESERT} the desert is wakeful and bare: one creature in four that might"),
            format!("sleep does (from depth {FURNACE}, none), and a level holds one mushroom, not two."),
        ]);
    }
    if state.world().rules().mushrooms_burst() {
        lines.extend([
            "A mushroom thrown (t) bursts on the creature it reaches and does to it what it".into(),
            "would do to you: poison a lion, slow a vulture, send a hyena reeling. What it was"
                .into(),
            "is known from then on; one that reaches nobody lands whole.".into(),
        ]);
    }
    if state.world().rules().allies() {
        lines.extend([
            format!("A date thrown to a jackal (t) wins it over one time in {TAMING_ODDS}; you keep one ally"),
            "at a time, drawn on a green tile. It keeps near you, bites what comes for you, and".into(),
            match state.world().rules().allies_follow_from_near() {
                true => format!("follows you down the stairs from within {FOLLOWS_FROM} cells in sight. Walk into it to swap."),
                false => "follows you down the stairs from beside you. Walk into it to change places.".into(),
            },
        ]);
    }
    if state.world().rules().allies_eat_dates() {
        lines.push("A date thrown to your ally is caught and eaten, and heals it.".into());
    }
    lines
}

/// The ground of the levels, and the places they hold.
fn ground_lines(state: &State) -> Vec<String> {
    let mut lines = vec![];
    if state.world().rules().grounds() {
        lines.extend([
            "Below the first level the ground varies: canyons whose cactus ridges only narrow"
                .into(),
            "passes cross (meet a pack there, one at a time), a dune sea (slow going; elephants"
                .into(),
            "see far), a ruined town of walled houses, an oasis basin round a great lake.".into(),
        ]);
    }
    if state.world().rules().places() {
        lines.extend([
            "From depth 2 the desert holds places. A ruin's cache lies behind a locked door: its"
                .into(),
            "key lies elsewhere on the level, often beside a sleeper; walk into the door with it."
                .into(),
            "A flooded oasis gives water and fruit, and draws cobras and sandworms. A nest of"
                .into(),
            "dormant spider eggs guards a prize: come close and they hatch.".into(),
        ]);
    }
    lines
}

/// "2, 4 and 6".
fn depths(list: &[u8]) -> String {
    let names: Vec<String> = list.iter().map(u8::to_string).collect();
    match names.split_last() {
        Some((last, [])) => last.clone(),
        Some((last, rest)) => format!("{} and {last}", rest.join(", ")),
        None => String::new(),
    }
}

/// The cold-blooded kinds the game's levels hold, by name: "snakes, cobras, ... and spiders"
/// (the deepest level holds every kind).
fn cold_blooded(state: &State) -> String {
    let kinds: Vec<String> = state
        .world()
        .rules()
        .bestiary()
        .counts(state.world().rules().crossing().deepest())
        .into_iter()
        .map(|(species, _)| species)
        .filter(|s| s.is_cold_blooded())
        .map(|s| plural(s.name()))
        .collect();
    match kinds.split_last() {
        Some((last, [])) => last.clone(),
        Some((last, rest)) => format!("{} and {last}", rest.join(", ")),
        None => String::new(),
    }
}

/// What the game's rules version means, for the help screen.
pub fn rules_lines(state: &State) -> Vec<String> {
    let version = state.world().rules().version().number();
    let newest = rules::NEWEST;
    let first = if version == newest {
        format!("Rules version {version}, the newest: every new game is played under it.")
    } else {
        format!("Rules version {version}: this game began under older rules (new games: {newest}).")
    };
    vec![
        first,
        "A game keeps the rules it began under for good: saves, replays and scores".into(),
        "of every version this build keeps play on exactly as they were recorded.".into(),
    ]
}

/// A few lines on time and energy, with this game's own numbers, for the help screen.
pub fn energy_lines(state: &State) -> Vec<String> {
    let world = state.world();
    let Some(camel) = world.player() else {
        return vec![];
    };
    let time = world.time();
    let stats = camel.stats();
    let cost = |terrain| time.cost(&stats, Cost::Step(terrain), Pace::default());
    let dash = Pace {
        dashing: true,
        ..Pace::default()
    };
    let gain = match time {
        sandglass_sim::tape::TimeModel::Nethack => stats.speed,
        sandglass_sim::tape::TimeModel::Classic { gain, .. } => gain,
    };
    vec![
        format!(
            "Every creature gains energy each tick (you: {gain}) and acts with {} or more.",
            time.ready_at(&stats)
        ),
        format!(
            "A step costs {} on sand, {} on dunes, {} on hardpan.",
            cost(Terrain::Sand),
            cost(Terrain::Dune),
            cost(Terrain::Hardpan)
        ),
        "A step dearer than your energy is not refused: you gather strength".into(),
        "and take it when you can, while the desert moves on.".into(),
        format!(
            "A dash, once a tick: steps cost half (sand {}) for the rest of it.",
            time.cost(&stats, Cost::Step(Terrain::Sand), dash)
        ),
        // The keys are the player's to choose: the list beside this names them.
        "Resting keeps your energy for the next tick. Fast creatures act more".into(),
        "often than you; slow ones less: the energy panel shows everyone's.".into(),
    ]
}

#[cfg(test)]
mod tests {
    use super::*;
    use sandglass_sim::{LiveTape, Rules, Ruleset};

    #[test]
    fn the_camels_own_cell_is_described_with_its_cost() {
        let game = LiveTape::new(Rules::newest(Ruleset::NETHACK), 7);
        let state = game.state();
        let here = state.world().player().unwrap().pos();
        let lines = describe(state, here);
        assert!(lines[0].contains("a step costs"), "{lines:?}");
        assert_eq!(lines[1], "You, the camel.");
    }

    #[test]
    fn the_energy_lines_quote_this_rulesets_costs() {
        let game = LiveTape::new(Rules::newest(Ruleset::NETHACK), 7);
        let lines = energy_lines(game.state()).join(" ");
        assert!(
            lines.contains("12 on sand, 18 on dunes, 9 on hardpan"),
            "{lines}"
        );
        let game = LiveTape::new(Rules::newest(Ruleset::CLASSIC), 7);
        let lines = energy_lines(game.state()).join(" ");
        assert!(
            lines.contains("100 on sand, 150 on dunes, 75 on hardpan"),
            "{lines}"
        );
    }

    #[test]
    fn the_rules_lines_name_the_games_version_and_the_newest() {
        let game = LiveTape::new(Rules::newest(Ruleset::NETHACK), 7);
        let lines = rules_lines(game.state()).join(" ");
        assert!(
            lines.contains(&format!("version {}, the newest", rules::NEWEST)),
            "{lines}"
        );
        let older = sandglass_sim::RulesVersion::kept(rules::KEPT[0]).unwrap();
        let game = LiveTape::new(Rules::new(older, Ruleset::NETHACK), 7);
        let lines = rules_lines(game.state()).join(" ");
        assert!(
            lines.contains(&format!(
                "version {}: this game began under older rules (new games: {})",
                rules::KEPT[0],
                rules::NEWEST
            )),
            "{lines}"
        );
    }

    #[test]
    fn unseen_and_outside_cells_say_so() {
        let game = LiveTape::new(Rules::newest(Ruleset::NETHACK), 7);
        let state = game.state();
        let map = state.world().map();
        let unseen = map.cells().find(|&p| !state.world().remembers(p)).unwrap();
        assert_eq!(describe(state, unseen), ["You have not seen this place."]);
        assert!(describe(state, Pos::new(-1, 0))[0].contains("edge"));
    }

    #[test]
    fn a_creature_in_view_is_named_with_what_it_is_doing() {
        // Seed 7's first level, played until a creature is in view.
        let mut game = LiveTape::new(Rules::newest(Ruleset::NETHACK), 7);
        let mut bot = sandglass_sim::bot::Bot::new(7);
        bot.play_until(&mut game, |s| {
            let w = s.world();
            w.actors()
                .any(|(id, _)| !w.is_player(id) && w.sees_actor(id))
        })
        .unwrap();
        let world = game.state().world();
        let (_, seen) = world
            .actors()
            .find(|&(id, _)| !world.is_player(id) && world.sees_actor(id))
            .unwrap();
        let lines = describe(game.state(), seen.pos());
        let line = lines.iter().find(|l| l.contains(" hp,")).unwrap();
        assert!(line.contains(seen.species().name()), "{line}");
        assert!(
            line.contains(&format!("{}/{} hp", seen.hp(), seen.max_hp())),
            "{line}"
        );
    }

    /// Plays bot games of the newest rules until `found` picks an actor out of a state;
    /// that state and the actor's place.
    fn first_game_with(found: impl Fn(&State) -> Option<Pos>) -> (State, Pos) {
        for seed in 1..40 {
            let mut game = LiveTape::new(Rules::newest(Ruleset::NETHACK), seed);
            let mut bot = sandglass_sim::bot::Bot::new(seed);
            bot.play_until(&mut game, |s| found(s).is_some()).unwrap();
            if let Some(at) = found(game.state()) {
                return (game.state().clone(), at);
            }
        }
        panic!("no game of 39 showed it");
    }

    #[test]
    fn a_sleeper_in_view_is_said_to_sleep_and_a_hidden_one_is_sand() {
        let asleep = |s: &State| {
            let w = s.world();
            w.actors()
                .find(|&(id, a)| {
                    // A nest's egg is dormant rather than asleep: its own test below.
                    let egg = a.species() == Species::SpiderEgg;
                    a.behaviour() == Behaviour::Asleep && !egg && w.sees_actor(id)
                })
                .map(|(_, a)| a.pos())
        };
        let (state, at) = first_game_with(asleep);
        let lines = describe(&state, at).join(" ");
        assert!(lines.contains("asleep"), "{lines}");
        let hidden = |s: &State| {
            let w = s.world();
            w.actors()
                .find(|&(id, a)| w.is_hidden(id) && w.sees(a.pos()))
                .map(|(_, a)| a.pos())
        };
        let (state, at) = first_game_with(hidden);
        let lines = describe(&state, at);
        assert!(!lines.join(" ").contains("sandworm"), "{lines:?}");
        assert_eq!(lines.len(), 1, "the ground alone: {lines:?}");
    }

    /// A cache's locked door says a key opens it, and a nest's egg that it lies dormant.
    #[test]
    fn a_locked_door_and_a_dormant_egg_say_what_they_are() {
        let locked = |s: &State| {
            let w = s.world();
            let map = w.map();
            map.cells()
                .find(|&p| map.terrain(p) == Terrain::DoorLocked && w.sees(p))
        };
        let (state, at) = first_game_with(locked);
        let lines = describe(&state, at).join(" ");
        assert!(
            lines.contains("locked door") && lines.contains("key"),
            "{lines}"
        );
        let dormant = |s: &State| {
            let w = s.world();
            w.actors()
                .find(|&(id, a)| {
                    a.species() == Species::SpiderEgg
                        && a.behaviour() == Behaviour::Asleep
                        && w.sees_actor(id)
                })
                .map(|(_, a)| a.pos())
        };
        let (state, at) = first_game_with(dormant);
        let lines = describe(&state, at).join(" ");
        assert!(lines.contains("dormant"), "{lines}");
    }
}
