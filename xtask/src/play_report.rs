//! `cargo xtask play-report`: the bot plays a game on each of many seeds, under both
//! rulesets and the newest rules (or the version `--rules` names), and the report says
//! how the games went, as Markdown for BENCHMARKS.md: wins, deaths and what caused them,
//! depths and turns; kills by species; how often an errand (explore, travel, rest) would
//! be refused for a threat; commands accepted but never carried out; the kinds of command
//! played; how the camel grew, by depth; and the kinds of ground met. Its second table
//! measures tension: how often the camel came near death, how near the winners came,
//! what a win left unused in the bags, and where along the crossing the deaths fell.

use std::collections::{BTreeMap, BTreeSet};

use sandglass::errand::threat;
use sandglass::tally::Tally;
use sandglass_sim::action::{Action, ActionRecord};
use sandglass_sim::bot::Bot;
use sandglass_sim::message::Msg;
use sandglass_sim::score::Score;
use sandglass_sim::{Change, LiveTape, Observer, Outcome, Rules, RulesVersion, Ruleset, State};

/// A game the bot has not finished after this many commands is counted as stuck.
const GIVE_UP: u64 = 30_000;

/// How one game went.
#[derive(Default)]
struct Game {
    outcome: Option<Outcome>,
    depth: u8,
    ticks: u64,
    /// The camel's kills, what killed it and how it grew.
    tally: Tally,
    /// Commands played when a threat would have refused an errand.
    refusals: u64,
    /// Commands accepted that the camel never carried out, the game going on.
    dropped: u64,
    kinds: BTreeSet<&'static str>,
    grounds: Vec<&'static str>,
    /// The fewest hit points the camel had after a hurt it lived through, and whether
    /// it ever fell below a quarter of its most.
    lowest: Option<i16>,
    fell_low: bool,
    /// Items in the bags at the end.
    carried: u32,
    /// The game's deepest level (its rules').
    deepest: u8,
}

/// What the game's observer sees of one command: the camel's actions, and what the
/// report counts.
struct Watch<'a> {
    game: &'a mut Game,
    acted: bool,
}

impl Observer for Watch<'_> {
    fn acted(&mut self, state: &State, record: &ActionRecord) {
        if state.world().is_player(record.actor) && record.action != Action::Gather {
            self.acted = true;
        }
    }

    fn changed(&mut self, state: &State, change: &Change) {
        self.game.tally.changed(state, change);
        let world = state.world();
        if let Change::Hurt { actor, .. } = *change {
            if let Some(camel) = world.player().filter(|_| world.is_player(actor)) {
                let hp = camel.hp();
                if hp > 0 {
                    self.game.lowest = Some(self.game.lowest.map_or(hp, |low| low.min(hp)));
                    self.game.fell_low |= i32::from(hp) * 4 < i32::from(camel.max_hp());
                }
            }
        }
        if let Change::Say(Msg::Ground(ground)) = *change {
            self.game.grounds.push(ground.name());
        }
    }
}

pub fn run(seeds: u64, version: Option<u16>) -> anyhow::Result<()> {
    let version = match version {
        Some(number) => RulesVersion::kept(number)?,
        None => RulesVersion::NEWEST,
    };
    println!(
        "Rules version {}, seeds 1 to {seeds}, the bot seeing what the camel sees.\n",
        version.number()
    );
    println!(
        "| ruleset | won | died | unfinished | median depth | median turns | median turns of a win | errands refused per 1,000 turns | commands dropped | command kinds |"
    );
    println!("| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |");
    let mut tables = vec![];
    for ruleset in Ruleset::NAMED {
        let games = (1..=seeds)
            .map(|seed| play(Rules::new(version, ruleset), seed))
            .collect::<anyhow::Result<Vec<Game>>>()?;
        let count =
            |want: fn(Option<Outcome>) -> bool| games.iter().filter(|g| want(g.outcome)).count();
        let won = count(|o| o == Some(Outcome::Won));
        let died = count(|o| o == Some(Outcome::Died));
        let unfinished = count(|o| o.is_none());
        let wins: Vec<u64> = games
            .iter()
            .filter(|g| g.outcome == Some(Outcome::Won))
            .map(|g| g.ticks)
            .collect();
        let turns: u64 = games.iter().map(|g| g.ticks).sum();
        let refusals: u64 = games.iter().map(|g| g.refusals).sum();
        let kinds: BTreeSet<&str> = games.iter().flat_map(|g| g.kinds.iter().copied()).collect();
        println!(
            "| {} | {won} ({}%) | {died} | {unfinished} | {} | {} | {} | {:.1} | {} | {} |",
            ruleset.name(),
            won as u64 * 100 / seeds,
            median(games.iter().map(|g| u64::from(g.depth)).collect()),
            median(games.iter().map(|g| g.ticks).collect()),
            median(wins),
            refusals as f64 * 1000.0 / turns.max(1) as f64,
            games.iter().map(|g| g.dropped).sum::<u64>(),
            kinds.len(),
        );
        tables.push((ruleset, games));
    }
    tension(&tables);
    for (ruleset, games) in tables {
        println!("\n{}:", ruleset.name());
        details(&games);
    }
    Ok(())
}

/// The tension table: a row per ruleset.
fn tension(tables: &[(Ruleset, Vec<Game>)]) {
    println!(
        "\n| ruleset | games below a quarter of hit points | wins below a quarter | lowest hit points of each win | items carried at a win's end (median) | deaths in the crossing's first, middle and last third | most kills of one species |"
    );
    println!("| --- | --- | --- | --- | --- | --- | --- |");
    for (ruleset, games) in tables {
        let wins: Vec<&Game> = games
            .iter()
            .filter(|g| g.outcome == Some(Outcome::Won))
            .collect();
        let low = games.iter().filter(|g| g.fell_low).count();
        let wins_low = wins.iter().filter(|g| g.fell_low).count();
        let mut lowest: Vec<i16> = wins.iter().filter_map(|g| g.lowest).collect();
        lowest.sort_unstable();
        let carried = median(wins.iter().map(|g| u64::from(g.carried)).collect());
        let mut thirds = [0; 3];
        for game in games.iter().filter(|g| g.outcome == Some(Outcome::Died)) {
            let third = (usize::from(game.depth) - 1) * 3 / usize::from(game.deepest);
            thirds[third.min(2)] += 1;
        }
        let mut kills: BTreeMap<&str, u32> = BTreeMap::new();
        for (species, n) in games.iter().flat_map(|g| &g.tally.kills) {
            *kills.entry(species.name()).or_default() += n;
        }
        let all: u32 = kills.values().sum();
        let most = kills
            .iter()
            .max_by_key(|&(name, n)| (n, std::cmp::Reverse(*name)))
            .map_or("none".to_owned(), |(name, n)| {
                format!("{name} {}%", n * 100 / all.max(1))
            });
        let lowest: Vec<String> = lowest.iter().map(i16::to_string).collect();
        println!(
            "| {} | {low} of {} ({}%) | {wins_low} of {} | {} | {carried} | {} / {} / {} | {most} |",
            ruleset.name(),
            games.len(),
            low * 100 / games.len().max(1),
            wins.len(),
            match lowest.is_empty() {
                true => "none".to_owned(),
                false => lowest.join(", "),
            },
            thirds[0],
            thirds[1],
            thirds[2],
        );
    }
}

/// The lines under a ruleset's row: deaths, depths, kills, growth and ground.
fn details(games: &[Game]) {
    let mut causes: BTreeMap<&str, usize> = BTreeMap::new();
    let mut depths: BTreeMap<u8, usize> = BTreeMap::new();
    let mut kills: BTreeMap<&str, u32> = BTreeMap::new();
    let mut growth: BTreeMap<(u8, &str), usize> = BTreeMap::new();
    let mut grounds: BTreeMap<&str, usize> = BTreeMap::new();
    for game in games {
        *depths.entry(game.depth).or_default() += 1;
        if let Some(death) = game.tally.death {
            *causes.entry(death.name()).or_default() += 1;
        }
        for (species, n) in &game.tally.kills {
            *kills.entry(species.name()).or_default() += n;
        }
        for &(depth, boon) in &game.tally.growth {
            *growth.entry((depth, boon.name())).or_default() += 1;
        }
        for ground in &game.grounds {
            *grounds.entry(ground).or_default() += 1;
        }
    }
    let list = |pairs: Vec<String>| match pairs.is_empty() {
        true => "none".to_owned(),
        false => pairs.join(", "),
    };
    let by_count = |map: BTreeMap<&str, usize>| {
        let mut pairs: Vec<_> = map.into_iter().collect();
        pairs.sort_by_key(|&(name, n)| (std::cmp::Reverse(n), name));
        list(pairs.iter().map(|(k, n)| format!("{k} {n}")).collect())
    };
    println!(
        "* deaths by ({} causes): {}",
        causes.len(),
        by_count(causes.clone())
    );
    println!(
        "* deepest level reached (depth: games): {}",
        list(depths.iter().map(|(d, n)| format!("{d}: {n}")).collect())
    );
    let all: u32 = kills.values().sum();
    let mut by_kills: Vec<_> = kills.into_iter().collect();
    by_kills.sort_by_key(|&(name, n)| (std::cmp::Reverse(n), name));
    println!(
        "* kills ({all}) by species: {}",
        list(
            by_kills
                .iter()
                .map(|(k, n)| format!("{k} {n} ({}%)", n * 100 / all.max(1)))
                .collect()
        )
    );
    println!(
        "* growth (depth: boon games): {}",
        list(
            growth
                .iter()
                .map(|((d, boon), n)| format!("{d}: {boon} {n}"))
                .collect()
        )
    );
    println!("* levels by ground: {}", by_count(grounds));
}

/// The bot's game on `seed` under `rules`, watched command by command.
fn play(rules: Rules, seed: u64) -> anyhow::Result<Game> {
    let mut live = LiveTape::new(rules, seed);
    let mut bot = Bot::new(seed);
    let mut game = Game::default();
    for _ in 0..GIVE_UP {
        let Some(command) = bot.choose(live.state()) else {
            break;
        };
        if threat(live.state()).is_some() {
            game.refusals += 1;
        }
        game.kinds.insert(command.name());
        let mut watch = Watch {
            game: &mut game,
            acted: false,
        };
        live.command(command, &mut watch)?;
        if !watch.acted && live.state().outcome().is_none() {
            game.dropped += 1;
        }
    }
    let state = live.state();
    let score = Score::of(state);
    game.outcome = state.outcome();
    game.depth = score.depth;
    game.ticks = state.tick().0;
    game.carried = state.world().bags().count();
    game.deepest = rules.crossing().deepest();
    Ok(game)
}

/// The middle value (the lower of the two middle ones), 0 of none.
fn median(mut values: Vec<u64>) -> u64 {
    values.sort_unstable();
    values
        .get(values.len().saturating_sub(1) / 2)
        .copied()
        .unwrap_or(0)
}
