//! `cargo xtask bot-report`: the bot plays a game on each of many seeds, under both
//! rulesets, and the report says how far it got: wins, deaths by what, depths reached.

use std::collections::BTreeMap;

use sandglass_sim::bot::Bot;
use sandglass_sim::message::Msg;
use sandglass_sim::score::Score;
use sandglass_sim::{LiveTape, Outcome, Rules, Ruleset};

/// A game the bot has not finished after this many commands is counted as stuck.
const GIVE_UP: u64 = 30_000;

pub fn run(seeds: u64) -> anyhow::Result<()> {
    for ruleset in Ruleset::NAMED {
        let mut wins = 0;
        let mut depths: BTreeMap<u8, u32> = BTreeMap::new();
        let mut killers: BTreeMap<String, u32> = BTreeMap::new();
        let (mut ticks, mut stuck) = (0, 0);
        for seed in 1..=seeds {
            let mut game = LiveTape::new(Rules::newest(ruleset), seed);
            Bot::new(seed).play(&mut game, GIVE_UP)?;
            let state = game.state();
            let score = Score::of(state);
            *depths.entry(score.depth).or_default() += 1;
            match state.outcome() {
                Some(Outcome::Won) => {
                    wins += 1;
                    ticks += score.turns;
                }
                Some(_) => {
                    let by = state.world().messages().recent().find_map(|m| match m.msg {
                        Msg::Died { by } => Some(by.map_or("poison", |s| s.name())),
                        _ => None,
                    });
                    *killers.entry(by.unwrap_or("?").to_owned()).or_default() += 1;
                }
                None => stuck += 1,
            }
        }
        println!(
            "{}: {wins} of {seeds} games won ({}%), {stuck} unfinished after {GIVE_UP} commands",
            ruleset.name(),
            wins * 100 / seeds
        );
        if let Some(mean) = ticks.checked_div(wins) {
            println!("  a won game took {mean} ticks on average");
        }
        println!("  deepest level reached: {depths:?}");
        println!("  killed by: {killers:?}");
    }
    Ok(())
}
