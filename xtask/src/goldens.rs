//! `cargo xtask record-goldens DIR`: writes the golden replays of the newest rules version
//! into `DIR/v<N>/`, with their README and manifest, from the fixed table below. The tests
//! verify every kept version's goldens on every run. A kept version's goldens are never
//! recorded again (docs/design.md, "Rules versions"): the command refuses a folder that
//! already holds them, so it runs once per rules version, when that version is made.
//! Everything is derived from the table, with the header's creation time fixed at 0, so
//! that recording twice under the same rules writes identical bytes.

use std::fmt::Write as _;
use std::path::Path;

use anyhow::Context;
use sandglass_sim::bot::Bot;
use sandglass_sim::rules::{self, Rules};
use sandglass_sim::tape::TurnOrder;
use sandglass_sim::timeline::{MarkerKind, Timeline};
use sandglass_sim::{Command, LiveTape, Recording, Ruleset, State};
use sandglass_store::sgr;
use sha2::{Digest, Sha256};

/// The command that records them, as the README and the tests quote it.
pub const RECORD_COMMAND: &str = "cargo xtask record-goldens replays/";

/// How long the bot plays.
#[derive(Clone, Copy)]
enum Length {
    /// At most this many commands; the game is usually still going when the tape stops.
    Commands(u64),
    /// Until the game ends (at most `GIVE_UP` commands).
    End,
    /// This many commands, then `quit`.
    ThenQuit(u64),
    /// Until the tape holds at least this many events, at a command boundary.
    Events(u64),
}

/// A game that has not ended after this many commands is taken for a bot stuck for good.
const GIVE_UP: u64 = 20_000;

struct Golden {
    name: &'static str,
    covers: &'static str,
    ruleset: Ruleset,
    game_seed: u64,
    bot_seed: u64,
    /// Commands the bot spends on each level before it heads for the stairs.
    patience: u32,
    length: Length,
}

const WEIGHTED_CLASSIC: Ruleset = Ruleset {
    order: TurnOrder::WeightedEachTick,
    ..Ruleset::CLASSIC
};

const GOLDENS: &[Golden] = &[
    Golden {
        name: "nethack-short-1",
        covers: "the first level, cut short while the game goes on",
        ruleset: Ruleset::NETHACK,
        game_seed: 1,
        bot_seed: 1,
        patience: 0,
        length: Length::Commands(60),
    },
    Golden {
        name: "classic-short-2",
        covers: "the same under the classic energy rules",
        ruleset: Ruleset::CLASSIC,
        game_seed: 2,
        bot_seed: 2,
        patience: 0,
        length: Length::Commands(60),
    },
    Golden {
        name: "nethack-whole-3",
        covers: "a whole game, the bot making for the stairs on every level",
        ruleset: Ruleset::NETHACK,
        game_seed: 3,
        bot_seed: 30,
        patience: 0,
        length: Length::End,
    },
    Golden {
        name: "nethack-whole-5",
        covers: "another whole game, another seed",
        ruleset: Ruleset::NETHACK,
        game_seed: 5,
        bot_seed: 5,
        patience: 0,
        length: Length::End,
    },
    Golden {
        name: "classic-whole-1",
        covers: "a whole classic game",
        ruleset: Ruleset::CLASSIC,
        game_seed: 1,
        bot_seed: 1,
        patience: 0,
        length: Length::End,
    },
    Golden {
        name: "classic-whole-5",
        covers: "another whole classic game, another seed",
        ruleset: Ruleset::CLASSIC,
        game_seed: 5,
        bot_seed: 5,
        patience: 0,
        length: Length::End,
    },
    Golden {
        name: "classic-weighted-7",
        covers: "the classic rules with a fresh speed-weighted turn order every tick",
        ruleset: WEIGHTED_CLASSIC,
        game_seed: 7,
        bot_seed: 7,
        patience: 0,
        length: Length::End,
    },
    Golden {
        name: "nethack-lingering-9",
        covers: "a longer game: the bot spends 100 commands on each level",
        ruleset: Ruleset::NETHACK,
        game_seed: 9,
        bot_seed: 9,
        patience: 100,
        length: Length::End,
    },
    Golden {
        name: "nethack-quit-4",
        covers: "a game the player quits",
        ruleset: Ruleset::NETHACK,
        game_seed: 4,
        bot_seed: 4,
        patience: 0,
        length: Length::ThenQuit(150),
    },
    Golden {
        name: "classic-million-4",
        covers: "over a million events on the first level, for long-game speed and seeking",
        ruleset: Ruleset::CLASSIC,
        game_seed: 4,
        bot_seed: 4,
        patience: u32::MAX,
        length: Length::Events(1_000_000),
    },
];

/// The manifest of a version's goldens, in the form `sha256sum -c` reads.
const MANIFEST: &str = "SHA256SUMS";

pub fn run(replays: &Path) -> anyhow::Result<()> {
    let newest = rules::NEWEST;
    let dir = replays.join(format!("v{newest}"));
    let kept = std::fs::read_dir(&dir).is_ok_and(|mut listing| listing.next().is_some());
    if kept {
        anyhow::bail!(
            "{} already holds the goldens of rules version {newest}, and a kept version's \
             goldens are never recorded again. A rules change is a new version: add it to \
             KEPT in core/sim/src/rules.rs, then run this again to record its goldens.",
            dir.display()
        );
    }
    std::fs::create_dir_all(&dir).with_context(|| format!("cannot create {}", dir.display()))?;
    let dir = dir.as_path();
    let mut rows = String::new();
    let mut manifest = vec![];
    for golden in GOLDENS {
        let (file, end) = record(golden)?;
        let path = dir.join(format!("{}.sgr", golden.name));
        let bytes = sgr::to_bytes(&file);
        std::fs::write(&path, &bytes)
            .with_context(|| format!("cannot write {}", path.display()))?;
        let sum: String = Sha256::digest(&bytes)
            .iter()
            .map(|b| format!("{b:02x}"))
            .collect();
        manifest.push(format!("{sum}  {}.sgr\n", golden.name));
        let row = row(golden, file, &end, bytes.len())?;
        println!("wrote {}: {row}", path.display());
        writeln!(rows, "| `{}.sgr` | {row} |", golden.name)?;
    }
    // By name, as `sha256sum *.sgr` lists them.
    manifest.sort_by(|a, b| a[64..].cmp(&b[64..]));
    for (name, text) in [
        ("README.md", readme_text(&rows)),
        (MANIFEST, manifest.concat()),
    ] {
        let path = dir.join(name);
        std::fs::write(&path, text).with_context(|| format!("cannot write {}", path.display()))?;
        println!("wrote {}", path.display());
    }
    Ok(())
}

/// Plays the golden's game with the bot and records it.
fn record(golden: &Golden) -> anyhow::Result<(Recording, State)> {
    let mut game = LiveTape::new(Rules::newest(golden.ruleset), golden.game_seed);
    let mut bot = Bot::lingering(golden.bot_seed, golden.patience);
    match golden.length {
        Length::Commands(n) => bot.play(&mut game, n)?,
        Length::End => bot.play(&mut game, GIVE_UP)?,
        Length::ThenQuit(n) => {
            let played = bot.play(&mut game, n)?;
            if game.state().outcome().is_none() {
                game.command(Command::Quit, &mut ())?;
            }
            played
        }
        Length::Events(n) => bot.play_until(&mut game, |state| state.events_folded() >= n)?,
    };
    let state = game.state().clone();
    let tape = game.into_tape();
    let header = tape.header.clone();
    let failed = match golden.length {
        Length::End => state.outcome().is_none(),
        Length::ThenQuit(_) => state.outcome() != Some(sandglass_sim::Outcome::Quit),
        Length::Events(n) => (tape.events.len() as u64) < n,
        Length::Commands(_) => false,
    };
    if failed {
        anyhow::bail!(
            "golden replay {} no longer plays as its table entry says (it stopped after {} events, outcome {:?}); \
             pick another seed or length for it in xtask/src/goldens.rs",
            golden.name,
            tape.events.len(),
            state.outcome()
        );
    }
    let file = Recording::record(header, tape.events)
        .with_context(|| format!("golden replay {} does not record", golden.name))?;
    Ok((file, state))
}

/// The README's table row for a recorded golden (without its name).
fn row(golden: &Golden, file: Recording, end: &State, bytes: usize) -> anyhow::Result<String> {
    let ruleset = match golden.ruleset.order {
        TurnOrder::Initiative => golden.ruleset.name().to_owned(),
        TurnOrder::WeightedEachTick => format!("{}, weighted order", golden.ruleset.name()),
    };
    let events = file.events.len();
    let commands = file
        .events
        .iter()
        .filter(|e| matches!(e, sandglass_sim::Event::Command(_)))
        .count();
    let outcome = match end.outcome() {
        None => "alive".to_owned(),
        Some(outcome) => format!("{outcome:?}").to_lowercase(),
    };
    let timeline = Timeline::new(file)
        .with_context(|| format!("golden replay {} does not verify", golden.name))?;
    let mut counts = [0; 4];
    for marker in timeline.markers() {
        match marker.kind {
            MarkerKind::Death { .. } => counts[0] += 1,
            MarkerKind::Hatch { .. } => counts[1] += 1,
            MarkerKind::KnockOut { .. } => counts[2] += 1,
            MarkerKind::Descend { .. } => counts[3] += 1,
            MarkerKind::End(_) => {}
        }
    }
    let [deaths, hatchings, knock_outs, descents] = counts;
    Ok(format!(
        "{ruleset} | {} / {} | {events} | {commands} | {} | {outcome}, depth {} | {deaths} / {hatchings} / {knock_outs} / {descents} | {bytes} | {}",
        golden.game_seed,
        golden.bot_seed,
        timeline.last_tick().0,
        end.world().depth(),
        golden.covers
    ))
}

/// A version's README: what its goldens are, and a row for each.
fn readme_text(rows: &str) -> String {
    format!(
        "# Golden replays of rules version {newest}

Every file here is a game the bot played, recorded under rules version {newest} by
`{RECORD_COMMAND}` from the table in `xtask/src/goldens.rs`, once, when the version was
made. They are never recorded again: `{MANIFEST}` holds the checksum of each, and the
tests fail if one changes (`../README.md` says why and what to do).

Seeds are the game's / the bot's. Markers are deaths / hatchings / knock-outs / descents.

| file | rules | seeds | events | commands | ticks | end | markers | bytes | covers |
| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |
{rows}",
        newest = rules::NEWEST
    )
}
