//! The fold's properties: a live game equals the fold of its log, from the genesis or
//! from any snapshot; a damaged tape gives a typed error or a true prefix, never a panic;
//! and the determinism check can fail.

use proptest::prelude::*;
use sandglass_sim::bot::Bot;
use sandglass_sim::drive::fold_from;
use sandglass_sim::ids::EventIndex;
use sandglass_sim::rules::{self, RulesVersion};
use sandglass_sim::{
    fold, verify, Event, FoldErrorKind, Header, LiveTape, Need, Rules, Ruleset, State,
};

/// One helper for this boundary: a bot game of `commands` commands under the kept rules
/// version `version` picks, with the hash of the live state after every command.
fn play(
    seed: u64,
    classic: bool,
    version: usize,
    bot_seed: u64,
    commands: usize,
) -> (Rules, Header, Vec<Event>, Vec<(usize, u64)>) {
    let ruleset = if classic {
        Ruleset::CLASSIC
    } else {
        Ruleset::NETHACK
    };
    let number = rules::KEPT[version % rules::KEPT.len()];
    let rules = Rules::new(RulesVersion::kept(number).unwrap(), ruleset);
    let mut game = LiveTape::new(rules, seed);
    let mut hashes = vec![];
    let mut bot = Bot::new(bot_seed);
    // The live state's hash wherever the player was to act: before each command and at
    // the end.
    bot.play_until(&mut game, |state| {
        hashes.push((state.events_folded() as usize, state.hash()));
        hashes.len() > commands
    })
    .expect("the bot issues legal commands");
    let state = game.state();
    if hashes.last().map(|&(at, _)| at) != Some(state.events_folded() as usize) {
        hashes.push((state.events_folded() as usize, state.hash()));
    }
    let tape = game.into_tape();
    (rules, tape.header, tape.events, hashes)
}

/// The newest rules version, for the tests that need no other.
fn newest() -> usize {
    rules::KEPT.len() - 1
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(24))]

    /// `Live` feeds the machine one event at a time; `fold` and `verify` let decisions take
    /// the tape's draws as they run. All three must reach the same state.
    #[test]
    fn live_state_equals_the_fold_of_its_log(seed: u64, classic: bool, version: usize, bot: u64, n in 1usize..300) {
        let (rules, header, tape, hashes) = play(seed, classic, version, bot, n);
        let folded = fold(rules, tape.iter().copied(), &mut ()).unwrap();
        prop_assert_eq!(folded.hash(), hashes.last().unwrap().1);
        let again = fold(rules, tape.iter().copied(), &mut ()).unwrap();
        prop_assert_eq!(again.hash(), folded.hash());
        prop_assert_eq!(verify(rules, header.seed, tape.iter().copied(), &mut ()).unwrap().hash(), folded.hash());
    }

    #[test]
    fn a_fold_from_any_snapshot_reaches_the_same_state(seed: u64, version: usize, bot: u64, n in 1usize..200, at in any::<prop::sample::Index>()) {
        let (rules, _, tape, hashes) = play(seed, false, version, bot, n);
        let (cut, hash_at_cut) = hashes[at.index(hashes.len())];
        let prefix = fold(rules, tape[..cut].iter().copied(), &mut ()).unwrap();
        prop_assert_eq!(prefix.hash(), hash_at_cut);
        // A snapshot is the encoded state; decoding and folding on must not notice.
        let snapshot = State::decode(&prefix.encode(), rules.version()).unwrap();
        let resumed = fold_from(snapshot, tape[cut..].iter().copied(), &mut ()).unwrap();
        prop_assert_eq!(resumed.hash(), hashes.last().unwrap().1);
    }

    #[test]
    fn a_cut_tape_is_a_prefix_state_or_a_typed_error(seed: u64, bot: u64, n in 1usize..150, cut in any::<prop::sample::Index>()) {
        let (rules, _, tape, hashes) = play(seed, true, newest(), bot, n);
        let cut = cut.index(tape.len() + 1);
        match fold(rules, tape[..cut].iter().copied(), &mut ()) {
            Ok(state) => {
                // Only a cut between commands (or at the end of the game) folds...
                prop_assert!(state.need() != Need::Draw);
                // ... and then it is exactly the live state at that point.
                let live = hashes.iter().find(|(len, _)| *len == cut);
                prop_assert_eq!(Some(state.hash()), live.map(|(_, h)| *h));
            }
            Err(error) => {
                prop_assert_eq!(error.kind, FoldErrorKind::EndsEarly);
                prop_assert_eq!(error.index, EventIndex(cut as u64));
            }
        }
    }

    #[test]
    fn an_altered_event_is_a_typed_error_or_another_game_never_a_panic(
        seed: u64, bot: u64, n in 1usize..150, at in any::<prop::sample::Index>(), value: u32, as_command: bool,
    ) {
        let (rules, header, mut tape, _) = play(seed, false, newest(), bot, n);
        let i = at.index(tape.len());
        let original = tape[i];
        tape[i] = if as_command {
            Event::Command(sandglass_sim::Command::Rest)
        } else {
            Event::Draw(value)
        };
        let _ = fold(rules, tape.iter().copied(), &mut ());
        let checked = verify(rules, header.seed, tape.iter().copied(), &mut ());
        // A draw replaced by anything else is named at exactly its index. (A command
        // replaced by another may be legal, and what it changes shows up later, if at all.)
        if matches!(original, Event::Draw(_)) && tape[i] != original {
            prop_assert_eq!(checked.unwrap_err().index, EventIndex(i as u64));
        }
    }
}

/// The determinism check can fail: one altered draw is caught at exactly its index.
#[test]
fn an_altered_draw_is_caught_at_its_index() {
    let (rules, header, mut tape, _) = play(42, false, newest(), 7, 200);
    let i = tape
        .iter()
        .rposition(|e| matches!(e, Event::Draw(_)))
        .unwrap();
    let Event::Draw(d) = tape[i] else {
        unreachable!()
    };
    tape[i] = Event::Draw(d ^ 1);
    let error = verify(rules, header.seed, tape.iter().copied(), &mut ()).unwrap_err();
    assert_eq!(error.index, EventIndex(i as u64));
    assert_eq!(
        error.kind,
        FoldErrorKind::Desync {
            expected: d,
            found: d ^ 1
        }
    );
}

/// And the state hash can fail: a tape whose level seed is altered folds without error
/// (the fold alone cannot know the draw is wrong) to a different hash.
#[test]
fn an_altered_tape_folds_to_another_hash() {
    let (rules, _, mut tape, _) = play(42, false, newest(), 7, 1);
    let Event::Draw(d) = tape[0] else {
        unreachable!("a game opens with its level seed")
    };
    // The level seed's two draws, fed one by one: how many draws the step takes next
    // depends on the level (its sleepers draw nothing), so a fold of a whole step of one
    // level would end early or late on the other.
    let after = |events: &[Event]| {
        let mut state = State::new(rules, &mut ());
        for &event in events {
            state.feed(event, &mut ()).unwrap();
        }
        state.hash()
    };
    let original = after(&tape[..2]);
    tape[0] = Event::Draw(d.wrapping_add(1));
    assert_ne!(after(&tape[..2]), original);
}

/// Every command the bot issues validates, in both rulesets and every kept rules
/// version, over long games.
#[test]
fn the_bot_only_issues_legal_commands() {
    for (seed, classic) in [(1, false), (2, true), (3, false), (4, true)] {
        let version = seed as usize;
        let (rules, _, tape, _) = play(seed, classic, version, seed * 31, 2_000);
        assert!(fold(rules, tape, &mut ()).is_ok());
    }
}
