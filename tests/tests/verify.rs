//! Verification finds what was tampered with, at the event where it was: a changed draw,
//! an event of the wrong kind, an illegal command, a wrong checkpoint or final hash; and a
//! replay recorded under other rules is refused, naming both rules versions.

mod common;

use std::sync::OnceLock;

use common::{bot_file, through_bytes};
use proptest::prelude::*;
use sandglass_replay::ReplayError;
use sandglass_sim::ids::EventIndex;
use sandglass_sim::rules::{self, HeaderError, Rules, VersionError};
use sandglass_sim::tape::TimeModel;
use sandglass_sim::{verify, Command, Event, FeedError, FoldError, FoldErrorKind, Ruleset, Slot};
use sandglass_sim::{CheckError, Recording};
use sandglass_store::{sgr, ReplayFileError};

fn fold_error(result: Result<sandglass_sim::State, CheckError>) -> FoldError {
    match result {
        Err(CheckError::Fold(error)) => error,
        other => panic!("expected a fold error, got {:?}", other.map(|s| s.hash())),
    }
}

/// A game long enough to hold checkpoints, made once for every case.
fn long_game() -> &'static Recording {
    static GAME: OnceLock<Recording> = OnceLock::new();
    GAME.get_or_init(|| bot_file(Ruleset::NETHACK, 21, Some(400)))
}

/// Indexes of the draws of `file`.
fn draws(file: &Recording) -> Vec<usize> {
    (0..file.events.len())
        .filter(|&i| matches!(file.events[i], Event::Draw(_)))
        .collect()
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(48))]

    /// One draw changed anywhere (the checksum recomputed, so the file reads) is reported
    /// at exactly its index, with both values, before any checkpoint could notice.
    #[test]
    fn a_changed_draw_is_reported_at_exactly_its_index(pick in any::<prop::sample::Index>(), flip in 1u32..) {
        let mut file = long_game().clone();
        let draws = draws(&file);
        let at = draws[pick.index(draws.len())];
        let Event::Draw(expected) = file.events[at] else { unreachable!() };
        let found = expected ^ flip;
        file.events[at] = Event::Draw(found);
        let file = through_bytes(&file);
        let error = fold_error(file.check(&mut (), u64::MAX, |_| ()));
        prop_assert_eq!(error, FoldError {
            index: EventIndex(at as u64),
            kind: FoldErrorKind::Desync { expected, found },
        });
        // The bare tape API says the same.
        let rules = Rules::of(&file.header).unwrap();
        let bare = verify(rules, file.header.seed, file.events.iter().copied(), &mut ()).unwrap_err();
        prop_assert_eq!(bare, error);
    }
}

#[test]
fn a_draw_where_a_command_is_due_is_the_wrong_kind_of_event() {
    let mut file = bot_file(Ruleset::CLASSIC, 22, Some(50));
    let at = file
        .events
        .iter()
        .rposition(|e| matches!(e, Event::Command(_)))
        .unwrap();
    file.events[at] = Event::Draw(7);
    let error = fold_error(through_bytes(&file).check(&mut (), u64::MAX, |_| ()));
    assert_eq!(error.index, EventIndex(at as u64));
    assert_eq!(
        error.kind,
        FoldErrorKind::Feed(FeedError::DrawWhenCommandDue)
    );
}

#[test]
fn an_illegal_command_is_named_at_its_index() {
    let mut file = bot_file(Ruleset::NETHACK, 23, Some(50));
    let at = file
        .events
        .iter()
        .position(|e| matches!(e, Event::Command(_)))
        .unwrap();
    let command = Command::Eat(Slot(25));
    file.events[at] = Event::Command(command);
    let error = fold_error(through_bytes(&file).check(&mut (), u64::MAX, |_| ()));
    assert_eq!(error.index, EventIndex(at as u64));
    assert!(
        matches!(error.kind, FoldErrorKind::Feed(FeedError::Illegal { command: c, .. }) if c == command),
        "{error}"
    );
}

#[test]
fn a_wrong_checkpoint_or_final_hash_is_a_desync_at_its_event() {
    // A whole game of over 10,000 events, so that it holds a checkpoint.
    let mut file = bot_file(Ruleset::NETHACK, 14, None);
    let last = file.checkpoints.len().checked_sub(1).expect("a checkpoint");
    let (at, hash) = file.checkpoints[last];
    file.checkpoints[last].1 ^= 1;
    assert!(matches!(
        through_bytes(&file).check(&mut (), u64::MAX, |_| ()),
        Err(CheckError::Desync { index, expected, found })
            if index == at && expected == hash ^ 1 && found == hash
    ));
    file.checkpoints[last].1 = hash;
    file.final_hash ^= 1;
    let end = file.events.len() as u64;
    assert!(matches!(
        through_bytes(&file).check(&mut (), u64::MAX, |_| ()),
        Err(CheckError::Desync { index, .. }) if index == end
    ));
}

/// A replay of a rules version newer than this build, or one it no longer keeps, is
/// refused with both versions named: the file's and the ones this build plays.
#[test]
fn a_replay_under_rules_this_build_does_not_play_is_refused_naming_both_versions() {
    let newest = rules::NEWEST;
    let cases = [
        (newest + 1, VersionError::Newer { found: newest + 1 }),
        (1, VersionError::Dropped { found: 1 }),
    ];
    for (version, refusal) in cases {
        let mut file = bot_file(Ruleset::CLASSIC, 25, Some(20));
        file.header.rules_version = version;
        let error = sgr::from_bytes(&sgr::to_bytes(&file)).unwrap_err();
        assert!(
            matches!(error, ReplayFileError::Bytes(ReplayError::Header(HeaderError::Rules(e))) if e == refusal),
            "{error}"
        );
        let message = error.to_string();
        assert!(
            message.contains(&format!("rules version {version}"))
                && message.contains(&format!("rules versions {} to {newest}", rules::KEPT[0])),
            "{message}"
        );
        // A file built in memory is refused by `verify` alike.
        assert_eq!(
            file.check(&mut (), u64::MAX, |_| ()),
            Err(CheckError::Header(refusal.into()))
        );
    }
}

/// Classic rules under which the camel can never act would fold for ever: such a header
/// is refused before anything is folded.
#[test]
fn a_replay_whose_rules_would_stall_the_game_is_refused() {
    for (gain, threshold) in [(0, 100), (100, 201)] {
        let mut file = bot_file(Ruleset::CLASSIC, 25, Some(20));
        file.header.ruleset.time = TimeModel::Classic { gain, threshold };
        let error = sgr::from_bytes(&sgr::to_bytes(&file)).unwrap_err();
        assert!(
            matches!(
                error,
                ReplayFileError::Bytes(ReplayError::Header(HeaderError::Stalled { most: 200, .. }))
            ),
            "{error}"
        );
        assert!(
            error.to_string().contains("the camel could never act"),
            "{error}"
        );
        assert!(matches!(
            file.check(&mut (), u64::MAX, |_| ()),
            Err(CheckError::Header(HeaderError::Stalled { .. }))
        ));
    }
}

#[test]
fn an_untouched_replay_verifies_to_its_final_hash() {
    let file = through_bytes(&bot_file(Ruleset::NETHACK, 26, None));
    let state = file.check(&mut (), u64::MAX, |_| ()).unwrap();
    assert_eq!(state.hash(), file.final_hash);
    assert!(state.outcome().is_some(), "the bot plays to the end");
}
