//! `cargo xtask bot-report`: the bot plays a game on each of many seeds, under both
//! rulesets and the newest rules (or the version `--rules` names), and the report says how far it got: wins, deaths by
//! what, depths reached and the turns taken, as Markdown tables for BENCHMARKS.md.

use std::collections::BTreeMap;

use sandglass_sim::bot::Bot;
use sandglass_sim::message::Msg;
use sandglass_sim::score::Score;
use sandglass_sim::{LiveTape, Outcome, Rules, RulesVersion, Ruleset, State};

/// A game the bot has not finished after this many commands is counted as stuck.
const GIVE_UP: u64 = 30_000;

/// How one game ended.
struct Game {
    outcome: Option<Outcome>,
    depth: u8,
    ticks: u64,
    /// What killed the camel, if something did.
    cause: Option<&'static str>,
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
    println!("| ruleset | won | died | unfinished | median depth | median ticks | median ticks of a win |");
    println!("| --- | --- | --- | --- | --- | --- | --- |");
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
        println!(
            "| {} | {won} ({}%) | {died} | {unfinished} | {} | {} | {} |",
            ruleset.name(),
            won as u64 * 100 / seeds,
            median(games.iter().map(|g| u64::from(g.depth)).collect()),
            median(games.iter().map(|g| g.ticks).collect()),
            median(wins),
        );
        tables.push((ruleset, games));
    }
    for (ruleset, games) in tables {
        let mut causes: BTreeMap<&str, usize> = BTreeMap::new();
        let mut depths: BTreeMap<u8, usize> = BTreeMap::new();
        for game in &games {
            *depths.entry(game.depth).or_default() += 1;
            if let Some(cause) = game.cause {
                *causes.entry(cause).or_default() += 1;
            }
        }
        let mut causes: Vec<_> = causes.into_iter().collect();
        causes.sort_by_key(|&(cause, n)| (std::cmp::Reverse(n), cause));
        let list = |pairs: Vec<String>| pairs.join(", ");
        println!("\n{}:", ruleset.name());
        println!(
            "* deaths by: {}",
            list(causes.iter().map(|(c, n)| format!("{c} {n}")).collect())
        );
        println!(
            "* deepest level reached (depth: games): {}",
            list(depths.iter().map(|(d, n)| format!("{d}: {n}")).collect())
        );
    }
    Ok(())
}

/// The bot's game on `seed` under `rules`.
fn play(rules: Rules, seed: u64) -> anyhow::Result<Game> {
    let mut game = LiveTape::new(rules, seed);
    Bot::new(seed).play(&mut game, GIVE_UP)?;
    let state = game.state();
    let score = Score::of(state);
    Ok(Game {
        outcome: state.outcome(),
        depth: score.depth,
        ticks: state.tick().0,
        cause: cause_of_death(state),
    })
}

/// What killed the camel: a creature, thirst (it was parched as it died) or poison.
fn cause_of_death(state: &State) -> Option<&'static str> {
    let mut said = state.world().messages().recent().rev().map(|m| m.msg);
    said.find_map(|msg| match msg {
        Msg::Died { by: Some(species) } => Some(Some(species.name())),
        Msg::Died { by: None } => Some(None),
        _ => None,
    })
    .map(|by| {
        by.unwrap_or_else(|| {
            if said.next() == Some(Msg::Parched) {
                "thirst"
            } else {
                "poison"
            }
        })
    })
}

/// The middle value (the lower of the two middle ones), 0 of none.
fn median(mut values: Vec<u64>) -> u64 {
    values.sort_unstable();
    values
        .get(values.len().saturating_sub(1) / 2)
        .copied()
        .unwrap_or(0)
}
