//! The replay timeline: a seek reaches the same state as folding the tape up to there,
//! however the cursor moved before; stepping is consistent both ways; ticks, command stops
//! and markers say what the states say; "take over" forks a game that plays on.

mod common;

use std::sync::OnceLock;

use common::{bot_file, play};
use proptest::prelude::*;
use sandglass_sim::bot::Bot;
use sandglass_sim::ids::Tick;
use sandglass_sim::timeline::{ExtendError, MarkerKind, Timeline};
use sandglass_sim::Change;
use sandglass_sim::{CheckError, Recording};
use sandglass_sim::{Event, FoldErrorKind, Need, Observer, Ruleset, State};
use sandglass_store::{ReplayFileError, Store, StoreError};

/// Copies kept every this many events in the tests: small, so that short tapes cross many.
const SPACING: u64 = 500;

/// A whole bot game: it descends, things die and hatch, and it ends.
fn whole_game() -> &'static Recording {
    static GAME: OnceLock<Recording> = OnceLock::new();
    GAME.get_or_init(|| bot_file(Ruleset::NETHACK, 5, None))
}

fn timeline(file: &Recording) -> Timeline {
    Timeline::with_spacing(file.clone(), SPACING).unwrap()
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(24))]

    /// However the cursor got where it is (forward, back, far, near), a seek gives the
    /// state that folding the first `at` events gives.
    #[test]
    fn a_seek_gives_the_state_of_the_fold_up_to_there(
        targets in prop::collection::vec(any::<prop::sample::Index>(), 1..6)
    ) {
        let file = whole_game();
        let mut timeline = timeline(file);
        let end = file.events.len() + 1;
        for target in targets {
            let at = target.index(end);
            let expected = play(&file.header, &file.events[..at]).hash();
            let state = timeline.seek(at as u64);
            prop_assert_eq!(state.events_folded(), at as u64);
            prop_assert_eq!(state.hash(), expected);
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(16))]

    /// A watched game's timeline, grown a stretch at a time (stretches that begin and end
    /// anywhere, mid-step too, some empty), is the timeline of the whole tape: the same
    /// events, markers, ticks and commands, and the same state wherever it is sought.
    #[test]
    fn a_timeline_grown_in_stretches_is_the_one_built_whole(
        cuts in prop::collection::vec(any::<prop::sample::Index>(), 0..40),
        samples in prop::collection::vec(any::<prop::sample::Index>(), 1..6),
    ) {
        let file = whole_game();
        let mut whole = timeline(file);
        let mut grown = Timeline::open_with_spacing(file.header.clone(), SPACING).unwrap();
        // And one that takes the draws unchecked, as for a seed not yet known.
        let mut trusting = Timeline::open_trusting_with_spacing(file.header.clone(), SPACING).unwrap();
        let len = file.events.len();
        let mut cuts: Vec<usize> = cuts.iter().map(|cut| cut.index(len + 1)).collect();
        cuts.push(len);
        cuts.sort_unstable();
        let mut from = 0;
        for cut in cuts {
            grown.extend(&file.events[from..cut]).unwrap();
            trusting.extend(&file.events[from..cut]).unwrap();
            from = cut;
            // Taking over is offered only where a game can go on, even mid-step, and
            // always once there is such a place: before the first level is drawn whole
            // (no command yet, the tape ending among its draws) there is none.
            let first_level_drawn = !grown.commands().is_empty()
                || grown.end_state().unwrap().need() != Need::Draw;
            match grown.take_over_at(grown.end()) {
                None => prop_assert!(!first_level_drawn),
                Some(over) => prop_assert!(
                    over == grown.end() && grown.end_state().unwrap().need() != Need::Draw
                        || grown.commands().contains(&over)
                ),
            }
        }
        prop_assert_eq!(grown.events(), &file.events[..]);
        prop_assert_eq!(grown.markers(), whole.markers());
        prop_assert_eq!(grown.commands(), whole.commands());
        prop_assert_eq!(grown.last_tick(), whole.last_tick());
        for tick in 0..=whole.last_tick().0 + 1 {
            prop_assert_eq!(grown.position_of_tick(Tick(tick)), whole.position_of_tick(Tick(tick)));
        }
        prop_assert_eq!(grown.outcome(), whole.outcome());
        prop_assert_eq!(grown.end_state().unwrap().hash(), file.final_hash);
        prop_assert_eq!(trusting.events(), grown.events());
        prop_assert_eq!(trusting.markers(), grown.markers());
        prop_assert_eq!(trusting.commands(), grown.commands());
        prop_assert_eq!(trusting.end_state().unwrap().hash(), file.final_hash);
        prop_assert!(grown.checks_draws() && !trusting.checks_draws());
        for sample in samples {
            let at = sample.index(len + 1) as u64;
            prop_assert_eq!(grown.seek(at).hash(), whole.seek(at).hash(), "at {}", at);
            prop_assert_eq!(trusting.seek(at).hash(), whole.seek(at).hash(), "at {}", at);
        }
    }
}

#[test]
fn a_grown_timeline_refuses_a_changed_draw_at_its_index_and_keeps_what_came_before() {
    let file = bot_file(Ruleset::NETHACK, 33, Some(60));
    let at = file.events.len() / 2;
    let at = at
        + file.events[at..]
            .iter()
            .position(|e| matches!(e, Event::Draw(_)))
            .unwrap();
    let mut events = file.events.clone();
    if let Event::Draw(value) = &mut events[at] {
        *value ^= 1;
    }
    let mut grown = Timeline::open_with_spacing(file.header.clone(), SPACING).unwrap();
    grown.extend(&events[..at - 3]).unwrap();
    let error = grown.extend(&events[at - 3..]).unwrap_err();
    let ExtendError::Refused(refused) = error else {
        panic!("{error}");
    };
    assert_eq!(refused.index.0, at as u64);
    assert!(
        matches!(refused.kind, FoldErrorKind::Desync { .. }),
        "{error}"
    );
    assert_eq!(grown.events(), &file.events[..at]);
    assert_eq!(grown.refused(), Some(refused));
    assert_eq!(
        grown.seek(at as u64).hash(),
        play(&file.header, &file.events[..at]).hash()
    );
    // Nothing more is taken after the refused event, not even the right one.
    assert_eq!(grown.extend(&file.events[at..]), Err(error));
    assert_eq!(grown.end(), at as u64);
    // A replay built whole has no more to come.
    assert_eq!(timeline(&file).extend(&[]), Err(ExtendError::Whole));
    // Without the seed, the changed draw is taken, and the game goes on from it.
    let mut trusting = Timeline::open_trusting_with_spacing(file.header.clone(), SPACING).unwrap();
    match trusting.extend(&events) {
        Ok(()) => {}
        // The other draw may lead to a step that wants more or fewer draws.
        Err(ExtendError::Refused(refused)) => assert!(refused.index.0 > at as u64),
        Err(error) => panic!("{error}"),
    }
    assert_eq!(trusting.events()[at], events[at]);
    assert_ne!(events[at], file.events[at]);
}

#[test]
fn stepping_one_event_forward_then_back_visits_the_same_states() {
    let file = bot_file(Ruleset::CLASSIC, 31, Some(300));
    let mut timeline = timeline(&file);
    let end = timeline.end();
    assert!(end > 2 * SPACING, "{end} events: too short to cross copies");
    let mut forward = vec![];
    for at in 0..=end {
        let is_command = timeline.commands().binary_search(&at).is_ok();
        let tick = timeline.tick_at(at);
        let state = timeline.seek(at);
        forward.push(state.hash());
        assert_eq!(tick, state.tick(), "tick at {at}");
        let player_to_act = state.need() == Need::Command;
        assert_eq!(
            is_command,
            player_to_act && at < end,
            "command stop at {at}"
        );
    }
    assert_eq!(forward[end as usize], file.final_hash);
    for at in (0..=end).rev() {
        assert_eq!(
            timeline.seek(at).hash(),
            forward[at as usize],
            "back at {at}"
        );
    }
    // Past the end is the end.
    assert_eq!(timeline.seek(end + 10).events_folded(), end);
}

/// Counts the ticks a fold starts.
#[derive(Default)]
struct Ticks(u64);

impl Observer for Ticks {
    fn changed(&mut self, _state: &State, change: &Change) {
        if matches!(change, Change::StartTick) {
            self.0 += 1;
        }
    }
}

#[test]
fn playing_forward_shows_every_change_on_the_way_and_never_goes_back() {
    let file = whole_game();
    let mut played = timeline(file);
    let mut sought = timeline(file);
    let from = SPACING - 3;
    // Across a kept copy: playing folds from the cursor, not from the copy.
    let to = 3 * SPACING + 41;
    played.seek(from);
    let mut ticks = Ticks::default();
    let state = played.play_to(to, &mut ticks);
    assert_eq!(state.hash(), sought.seek(to).hash());
    assert_eq!(ticks.0, played.tick_at(to).0 - played.tick_at(from).0);
    assert!(ticks.0 > 0);
    // Behind the cursor is not forward: the cursor stays.
    assert_eq!(played.play_to(from, &mut ()).events_folded(), to);
}

#[test]
fn stepping_by_commands_stops_where_the_player_is_to_act() {
    let file = bot_file(Ruleset::NETHACK, 32, Some(40));
    let mut timeline = timeline(&file);
    let end = timeline.end();
    let mut at = 0;
    let mut stops = vec![];
    while at < end {
        at = timeline.next_command(at);
        stops.push(at);
    }
    assert_eq!(
        stops.len(),
        timeline.commands().len() + 1,
        "every command, then the end"
    );
    for &stop in &stops {
        assert_ne!(timeline.seek(stop).need(), Need::Draw, "at {stop}");
    }
    for pair in stops.windows(2).rev() {
        assert_eq!(timeline.previous_command(pair[1]), pair[0]);
    }
    assert_eq!(timeline.previous_command(stops[0]), 0);
}

#[test]
fn ticks_map_to_positions_and_back() {
    let file = whole_game();
    let timeline = timeline(file);
    let last = timeline.last_tick();
    assert_eq!(play(&file.header, &file.events).tick(), last);
    for tick in [1, 2, last.0 / 2, last.0] {
        let at = timeline.position_of_tick(Tick(tick));
        assert_eq!(timeline.tick_at(at), Tick(tick));
        assert!(at == 0 || timeline.tick_at(at - 1) < Tick(tick));
    }
    assert_eq!(timeline.position_of_tick(Tick(last.0 + 1)), timeline.end());
}

#[test]
fn markers_are_where_the_states_show_them() {
    let file = whole_game();
    let mut timeline = timeline(file);
    let markers = timeline.markers().to_vec();
    let kinds = |want: fn(&MarkerKind) -> bool| markers.iter().filter(|m| want(&m.kind)).count();
    assert!(kinds(|k| matches!(k, MarkerKind::Death { .. })) > 0);
    assert!(kinds(|k| matches!(k, MarkerKind::Hatch { .. })) > 0);
    assert!(kinds(|k| matches!(k, MarkerKind::Descend { .. })) > 0);
    assert_eq!(kinds(|k| matches!(k, MarkerKind::End(_))), 1);
    assert!(
        markers.windows(2).all(|w| w[0].at <= w[1].at),
        "in tape order"
    );
    let end = timeline.end();
    for marker in markers {
        let at = marker.at;
        let before = timeline.seek(at - 1).clone();
        let after = timeline.seek(at);
        let gone = |id| {
            before.world().actor(id).is_some_and(|a| a.is_present())
                && !after.world().actor(id).is_some_and(|a| a.is_present())
        };
        match marker.kind {
            MarkerKind::Death { actor, species } | MarkerKind::KnockOut { actor, species } => {
                assert_eq!(
                    after.world().actor(actor).map(|a| a.species()),
                    Some(species)
                );
                if matches!(marker.kind, MarkerKind::Death { .. }) {
                    assert!(gone(actor), "{marker:?}");
                } else {
                    assert!(
                        after.world().actor(actor).unwrap().knocked_out() > 0,
                        "{marker:?}"
                    );
                }
            }
            MarkerKind::Hatch { egg } => assert!(gone(egg), "{marker:?}"),
            MarkerKind::Descend { depth } => {
                assert_eq!(
                    (before.world().depth(), after.world().depth()),
                    (depth - 1, depth)
                );
            }
            MarkerKind::End(outcome) => {
                assert_eq!(at, end);
                assert_eq!(before.outcome(), None);
                assert_eq!(after.outcome(), Some(outcome));
            }
        }
    }
}

#[test]
fn a_knock_out_is_marked() {
    // Elephants crash into cacti rarely: look through a few whole games for one.
    let found = (1..=20).any(|seed| {
        let timeline = timeline(&bot_file(Ruleset::NETHACK, seed, None));
        timeline
            .markers()
            .iter()
            .any(|m| matches!(m.kind, MarkerKind::KnockOut { .. }))
    });
    assert!(found, "no knock-out in twenty whole games");
}

#[test]
fn taking_over_forks_a_game_that_plays_on() {
    let file = whole_game();
    let mut timeline = timeline(file);
    let dir = tempfile::tempdir().unwrap();
    let store = Store::open(dir.path()).unwrap();
    let first_command = timeline.commands()[0];
    // Mid-step, on a command, before the first command, and at the very end.
    let end = timeline.end();
    for (n, at) in [end / 3 + 1, timeline.commands()[5], 1, end]
        .into_iter()
        .enumerate()
    {
        let cut = timeline.take_over_at(at).unwrap();
        let (header, tape) = (timeline.header(), &timeline.events()[..cut as usize]);
        assert!(cut <= at || (at < first_command && cut == first_command));
        assert!(cut == end || matches!(file.events[cut as usize], Event::Command(_)));
        let meta = store
            .create_from_tape(&format!("fork {n}"), header, tape, &mut |_, _| ())
            .unwrap();
        assert_eq!(meta.events, cut);
        assert_eq!(meta.last_hash, timeline.seek(cut).hash());
        let mut session = store.resume(meta.id).unwrap();
        if cut < end {
            assert_eq!(Bot::new(99).play(&mut session, 5).unwrap(), 5);
        } else {
            assert!(
                session.state().outcome().is_some(),
                "a fork of a whole game is over"
            );
        }
    }
    // A tape cut in the middle of a step is not a game.
    let mid = timeline.commands()[3] + 1;
    let error = store
        .create_from_tape(
            "mid",
            &file.header,
            &file.events[..mid as usize],
            &mut |_, _| (),
        )
        .unwrap_err();
    assert!(
        matches!(
            error,
            StoreError::Replay(ReplayFileError::Check(CheckError::Fold(_)))
        ),
        "{error}"
    );
}

#[test]
fn a_stored_game_verifies_and_scrubs_like_a_file() {
    let file = whole_game();
    let dir = tempfile::tempdir().unwrap();
    let store = Store::open(dir.path()).unwrap();
    let meta = store.import(file, "camel", &mut |_, _| ()).unwrap();
    let (stored, warnings) = store.recording(meta.id, &mut |_, _| ()).unwrap();
    assert!(warnings.is_empty());
    assert!(
        !stored.checkpoints.is_empty(),
        "the snapshots stand in for checkpoints"
    );
    assert_eq!(stored.final_hash, file.final_hash);
    let mut timeline = Timeline::new(stored).unwrap();
    // Somewhere inside the game, however long the bot's game is.
    let at = file.events.len() * 2 / 3;
    assert_eq!(
        timeline.seek(at as u64).hash(),
        play(&file.header, &file.events[..at]).hash()
    );
}
