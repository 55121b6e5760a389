//! The morgue: a game told in plain text, at its end or at any moment of its log (a
//! character dump, as DCSS writes one). `text` is a pure function of a folded `State`
//! and what a `Tally` counted over the fold; `fold_to_turn` folds a log to the moment
//! wanted, and `write` puts a finished game's morgue beside the saves, in
//! `DATA_DIR/morgue/NAME-ID.txt` (`path`).

use std::fmt::Write as _;
use std::fs;
use std::io::Write as _;
use std::path::{Path, PathBuf};

use anyhow::Context;
use sandglass_sim::drive::fold_on;
use sandglass_sim::geometry::Pos;
use sandglass_sim::score::Score;
use sandglass_sim::{fold_from, Event, Header, Outcome, Rules, State};
use sandglass_store::{GameMeta, Store};

use crate::tally::Tally;
use crate::telling::tell;

/// The messages a morgue ends its story with.
pub const LAST_MESSAGES: usize = 12;

/// The folder of morgues in a data directory.
pub const FOLDER: &str = "morgue";

/// The morgue of `state`, the game `game` (its name, or a file's) played under `header`,
/// with what `tally` counted on the way there.
pub fn text(game: &str, header: &Header, state: &State, tally: &Tally) -> String {
    let world = state.world();
    let mut out = String::new();
    // Writing to a String cannot fail.
    let mut line = |s: String| {
        out.push_str(&s);
        out.push('\n');
    };
    line(format!("Sandglass: {game}"));
    line(format!(
        "Rules version {}, ruleset {}, seed {}",
        header.rules_version,
        header.ruleset.name(),
        header.seed
    ));
    line(format!(
        "At turn {}, after {} events ({} commands)",
        state.tick().0,
        state.events_folded(),
        state.events_folded() - state.draws_folded()
    ));
    line(String::new());
    line(ending(state, tally));
    let score = Score::of(state);
    line(format!(
        "Depth {}, turns {}, kills {}, score {}",
        score.depth, score.turns, score.kills, score.points
    ));
    line(String::new());
    line("== The camel ==".into());
    match world.player() {
        Some(camel) => {
            line(format!(
                "Hit points   {}/{}",
                camel.hp().max(0),
                camel.max_hp()
            ));
            if world.time_of_day().is_some() {
                let skin = world.growth().waterskin();
                line(format!("Water        {}/{skin}", world.water()));
            }
        }
        None => line("No camel in this game.".into()),
    }
    let worn: Vec<String> = world
        .gear()
        .worn()
        .map(|i| world.describe_item(i))
        .collect();
    line(format!("Wearing      {}", list_or(&worn, "nothing")));
    let allies: Vec<String> = world
        .actors()
        .filter(|(_, a)| a.is_present() && a.is_ally())
        .map(|(_, a)| {
            let name = sandglass_sim::text::a(a.species().name());
            format!("{name} ({}/{} hit points)", a.hp().max(0), a.max_hp())
        })
        .collect();
    line(format!("Ally         {}", list_or(&allies, "none")));
    let growth: Vec<String> = tally
        .growth
        .iter()
        .map(|(depth, boon)| format!("{} on depth {depth}", boon.name()))
        .collect();
    line(format!("Grew         {}", list_or(&growth, "not at all")));
    line(String::new());
    line("== Bags ==".into());
    let bags = world.bags();
    if bags.is_empty() {
        line("(empty)".into());
    }
    for (slot, stack) in bags.stacks() {
        let name = world.counted_items(stack.item, stack.count);
        line(format!("{} - {name}", slot.letter()));
    }
    line(String::new());
    line("== Kills ==".into());
    let all: u32 = tally.kills.values().sum();
    line(format!("{all} in all: {}", tally.kills_words()));
    line(format!(
        "Damage dealt {}, taken {}; things eaten {}",
        tally.dealt, tally.taken, tally.eaten
    ));
    line(String::new());
    line(format!("== The last {LAST_MESSAGES} messages =="));
    let log = world.messages();
    let last: Vec<_> = log
        .recent()
        .skip(log.recent().len().saturating_sub(LAST_MESSAGES))
        .collect();
    // Told as the window told them, a turn's lines together: a find known by now is
    // named, not described by its look, but in the turn that made it known.
    for turn in last.chunk_by(|a, b| a.tick == b.tick) {
        let msgs: Vec<_> = turn.iter().map(|m| m.msg).collect();
        for said in tell(world, &msgs) {
            line(format!("{:>6}  {said}", turn[0].tick.0));
        }
    }
    line(String::new());
    line(format!(
        "== Depth {} as the camel last saw it ==",
        world.depth()
    ));
    out.push_str(&level(state));
    out
}

/// How the game stands: "Died on depth 3, killed by an elephant."
fn ending(state: &State, tally: &Tally) -> String {
    let depth = state.world().depth();
    match state.outcome() {
        Some(Outcome::Died) => match tally.death {
            Some(death) => format!("Died on depth {depth}, {}.", death.words()),
            None => format!("Died on depth {depth}."),
        },
        Some(Outcome::Won) => format!("Reached the oasis on depth {depth}."),
        Some(Outcome::Quit) => format!("Gave up the crossing on depth {depth}."),
        None => format!("Still crossing, on depth {depth}."),
    }
}

fn list_or(items: &[String], none: &str) -> String {
    match items.is_empty() {
        true => none.to_owned(),
        false => items.join(", "),
    }
}

/// The level as the camel last saw it, a character a cell (the ASCII glyphs of scenario
/// files, `Terrain::glyph`): the creatures and things it sees now, the ground it
/// remembers, blanks for the rest; the camel's `@` where it stands, alive or dead.
/// Lines lose their trailing blanks.
pub fn level(state: &State) -> String {
    let world = state.world();
    let map = world.map();
    let camel = world.player().map(|c| c.pos());
    let mut out = String::new();
    for y in 0..map.height() as i16 {
        let mut row = String::new();
        for x in 0..map.width() as i16 {
            let pos = Pos::new(x, y);
            let seen = world.sees(pos);
            let creature = map
                .occupant(pos)
                .filter(|&id| seen && world.sees_actor(id))
                .and_then(|id| world.actor(id))
                .map(|a| a.species().glyph());
            let item = world.items_at(pos).last().filter(|_| seen);
            let glyph = if camel == Some(pos) {
                '@'
            } else if let Some(glyph) = creature {
                glyph
            } else if let Some(item) = item {
                item.glyph()
            } else if world.remembers(pos) || seen {
                map.terrain(pos).glyph()
            } else {
                ' '
            };
            row.push(glyph);
        }
        let _ = writeln!(out, "{}", row.trim_end());
    }
    out
}

/// `events` folded to the moment the camel is first asked to act on turn `turn` or
/// later (the whole log without one, or if the game ends on that turn), with `tally`
/// counting on the way.
pub fn fold_to_turn(
    rules: Rules,
    events: &[Event],
    turn: Option<u64>,
    tally: &mut Tally,
) -> anyhow::Result<State> {
    let mut state = State::new(rules, tally);
    let mut rest = events;
    while let Some(first) = rest.first() {
        let due = turn.is_some_and(|turn| state.tick().0 >= turn);
        if due && matches!(first, Event::Command(_)) {
            break;
        }
        // One step at a time: an event and the draws that follow it.
        let draws = rest[1..]
            .iter()
            .take_while(|e| matches!(e, Event::Draw(_)))
            .count();
        let (step, after) = rest.split_at(1 + draws);
        fold_on(&mut state, step.iter().copied(), tally)?;
        rest = after;
    }
    let state = fold_from(state, std::iter::empty(), tally)?;
    let last = state.tick().0;
    match turn {
        Some(wanted) if last < wanted => {
            anyhow::bail!("the game reaches only turn {last}; there is no turn {wanted}")
        }
        _ => Ok(state),
    }
}

/// Where a stored game's morgue goes: `DATA_DIR/morgue/NAME-ID.txt`, the name kept to
/// letters, digits, `-` and `_` (anything else becomes `_`), so that any name makes a
/// plain file name; the id keeps two games apart.
pub fn path(data_dir: &Path, meta: &GameMeta) -> PathBuf {
    let name: String = meta
        .name
        .chars()
        .map(|c| match c.is_alphanumeric() || c == '-' || c == '_' {
            true => c,
            false => '_',
        })
        .collect();
    data_dir
        .join(FOLDER)
        .join(format!("{name}-{}.txt", meta.id))
}

/// How a morgue names a stored game: "crossing (game 4)".
pub fn title(meta: &GameMeta) -> String {
    format!("{} (game {})", meta.name, meta.id)
}

/// Folds the stored game `meta` names and writes its morgue (`path`), whole or not at
/// all (written beside, then renamed). Returns where it went.
pub fn write(store: &Store, meta: &GameMeta) -> anyhow::Result<PathBuf> {
    let events = store.events(meta.id)?;
    let mut tally = Tally::default();
    let state = fold_to_turn(meta.rules()?, &events, None, &mut tally)?;
    let dump = text(&title(meta), &meta.header, &state, &tally);
    let path = path(store.dir(), meta);
    let folder = store.dir().join(FOLDER);
    let written = (|| {
        fs::create_dir_all(&folder)?;
        let part = folder.join(format!(".{}.part", meta.id));
        let mut file = fs::File::create(&part)?;
        file.write_all(dump.as_bytes())?;
        file.sync_all()?;
        fs::rename(&part, &path)
    })();
    written.with_context(|| format!("cannot write the morgue {}", path.display()))?;
    Ok(path)
}

#[cfg(test)]
mod tests {
    use super::*;
    use sandglass_sim::bot::Bot;
    use sandglass_sim::{fold, Ruleset};

    /// A bot's whole game, folded, with its tally.
    fn bot_game(seed: u64) -> (Header, Vec<Event>, State, Tally) {
        let rules = Rules::newest(Ruleset::NETHACK);
        let tape = Bot::new(seed).record(rules, seed, u64::MAX);
        let mut tally = Tally::default();
        let state = fold(rules, tape.events.iter().copied(), &mut tally).unwrap();
        (tape.header, tape.events, state, tally)
    }

    #[test]
    fn a_finished_games_morgue_has_every_section_and_the_camel_where_it_stood() {
        let (header, _, state, tally) = bot_game(30);
        assert!(state.outcome().is_some(), "the bot's game ends");
        let dump = text("last crossing", &header, &state, &tally);
        for section in [
            "Sandglass: last crossing",
            &format!("seed {}", header.seed),
            &format!("Rules version {}", header.rules_version),
            "== The camel ==",
            "Hit points ",
            "Wearing ",
            "Ally ",
            "Grew ",
            "== Bags ==",
            "== Kills ==",
            "== The last 12 messages ==",
            &format!(
                "== Depth {} as the camel last saw it ==",
                state.world().depth()
            ),
        ] {
            assert!(dump.contains(section), "no {section:?} in\n{dump}");
        }
        assert!(dump.contains(&ending(&state, &tally)), "{dump}");
        let kills: u32 = tally.kills.values().sum();
        assert!(dump.contains(&format!("{kills} in all")), "{dump}");
        // The level: as many lines as the map has rows, the camel's `@` where it stood.
        let map = level(&state);
        let rows: Vec<&str> = map.lines().collect();
        assert_eq!(rows.len(), usize::from(state.world().map().height()));
        let camel = state.world().player().unwrap().pos();
        let row: Vec<char> = rows[camel.y as usize].chars().collect();
        assert_eq!(row[camel.x as usize], '@');
        assert_eq!(map.matches('@').count(), 1, "{map}");
        assert!(dump.ends_with(&map));
    }

    #[test]
    fn the_map_shows_only_what_the_camel_has_seen() {
        let (_, _, state, _) = bot_game(30);
        let world = state.world();
        let map = level(&state);
        for (y, row) in map.lines().enumerate() {
            for (x, glyph) in row.chars().enumerate() {
                let pos = Pos::new(x as i16, y as i16);
                let known = world.remembers(pos) || world.sees(pos);
                assert_eq!(glyph != ' ', known, "{pos:?}");
            }
        }
    }

    #[test]
    fn a_turn_folds_to_where_the_camel_first_acts_on_it() {
        let (header, events, end, _) = bot_game(30);
        let rules = Rules::of(&header).unwrap();
        let turn = end.tick().0 / 2;
        let mut tally = Tally::default();
        let state = fold_to_turn(rules, &events, Some(turn), &mut tally).unwrap();
        // The turn itself, or the first after it where the camel acts (one it spends
        // gathering strength, or knocked out, asks it nothing).
        assert!(
            state.tick().0 >= turn && state.tick().0 <= turn + 5,
            "{}",
            state.tick().0
        );
        assert_eq!(state.need(), sandglass_sim::Need::Command);
        // The same as folding the log's prefix of that many events.
        let at = state.events_folded() as usize;
        let prefix = fold(rules, events[..at].iter().copied(), &mut ()).unwrap();
        assert_eq!(prefix.hash(), state.hash());
        assert!(text("g", &header, &state, &tally).contains("Still crossing"));
        // No turn: the whole log; a turn past the end: an error that says so.
        let whole = fold_to_turn(rules, &events, None, &mut Tally::default()).unwrap();
        assert_eq!(whole.hash(), end.hash());
        let past = end.tick().0 + 1;
        let error = fold_to_turn(rules, &events, Some(past), &mut Tally::default())
            .unwrap_err()
            .to_string();
        assert_eq!(
            error,
            format!(
                "the game reaches only turn {}; there is no turn {past}",
                end.tick().0
            )
        );
    }

    #[test]
    fn a_games_morgue_is_named_for_it_whatever_its_name() {
        let dir = tempfile::tempdir().unwrap();
        let store = Store::open(dir.path()).unwrap();
        let header = Header::new(7, Ruleset::NETHACK, 0);
        let session = store.create("a b:c", header, &mut ()).unwrap();
        let meta = session.meta();
        assert_eq!(
            path(dir.path(), meta),
            dir.path()
                .join("morgue")
                .join(format!("a_b_c-{}.txt", meta.id))
        );
        let written = write(&store, meta).unwrap();
        let dump = fs::read_to_string(written).unwrap();
        let first = format!("Sandglass: a b:c (game {})\n", meta.id);
        assert!(dump.starts_with(&first), "{dump}");
    }
}
