//! A game's play: what makes two replay files the same game.
//!
//! A server that knew a game by its bytes would rank a copy re-stamped by a stranger as
//! the stranger's, so it knows a game by the digest of its play instead: SHA-256 over an
//! explicit encoding of what no copy can change without playing a game of its own,
//! written out below so that it never follows a change of the file's layout.
//!
//! What a copier can change and still fold the same game is left out of the digest:
//! * every header field but the seed. `created_at` is never read; the rules version and
//!   the ruleset's figures are, but a game whose events fold under two of them (a short
//!   game under two versions whose differences it never met, a classic game under a
//!   threshold of 99 as under 100) is one play, and its events are what the player made;
//! * a dash: it costs nothing and changes only the cost of a step later in its tick, so
//!   one slipped in before a rest changes nothing that follows;
//! * where a throw was aimed: two cells on one line beyond the creature it hits are one
//!   throw. Its slot stays, and what it did shows in every event after it.
//!
//! Two games whose digests agree are therefore the same events but for such changes:
//! one player's moves. Honest games that differ only there do not exist: a dash or an
//! aim that changed anything changes the draws and commands that follow.
//!
//! The same digest taken over the first events of a game, up to where its *n*-th command's
//! draws end (a *mark*), says whether one game begins with another's moves: a game cut
//! short is a prefix of the whole, a game continued or taken over from another holds the
//! other's marks. Marks are taken at the first `OPENING_COMMANDS` commands only; two
//! games that agree past that agree at the last mark, so the marks find every game that
//! shares at least that many commands with another, and every game that is a whole
//! prefix of another, in a handful of lookups.

use sandglass_sim::{Command, Event, Header};
use sha2::{Digest, Sha256};

/// How many commands of a game its marks cover. Two players who chose the same seed may
/// well make the same first moves (the client's explore issues the same commands from the
/// same state); fifty commands is most of a first level, more than such a coincidence
/// runs to, and all a copier could take from another's game without it being seen.
pub const OPENING_COMMANDS: u32 = 50;

/// The digest of a game's whole play, and its marks.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Play {
    /// The digest of every event.
    pub whole: [u8; 32],
    /// How many commands the game holds, dashes left out.
    pub commands: u64,
    /// The digests at the end of its first commands' draws, one for each command up to
    /// `OPENING_COMMANDS`, in order (the last may be the whole game's).
    pub marks: Vec<Mark>,
}

/// The digest of a game's first events, up to the end of its `commands`-th command's
/// draws (the next command, or the game's end).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Mark {
    pub commands: u32,
    pub digest: [u8; 32],
}

impl Play {
    /// The play of a game of `header` and `events`.
    pub fn of(header: &Header, events: &[Event]) -> Play {
        let mut hasher = Sha256::new();
        // The encoding's name: version 1 took in the rules version, the ruleset, every
        // dash and every aim; a play of one is never taken for a play of the other.
        hasher.update(b"sandglass play 2\n");
        hasher.update(header.seed.to_le_bytes());
        let mut marks = vec![];
        let mut commands = 0u64;
        for event in events {
            match event {
                Event::Draw(value) => {
                    hasher.update([0]);
                    hasher.update(value.to_le_bytes());
                }
                Event::Command(Command::Dash) => {}
                Event::Command(command) => {
                    // The events so far end the previous command's draws: its mark.
                    if (1..=u64::from(OPENING_COMMANDS)).contains(&commands) {
                        marks.push(mark(&hasher, commands));
                    }
                    commands += 1;
                    match command {
                        Command::Throw(slot, _) | Command::ThrowAt(slot, ..) => {
                            hasher.update([2, slot.0]);
                        }
                        _ => {
                            hasher.update([1]);
                            hasher.update(crate::serde_bytes(command));
                        }
                    }
                }
            }
        }
        if (1..=u64::from(OPENING_COMMANDS)).contains(&commands) {
            marks.push(mark(&hasher, commands));
        }
        Play {
            whole: hasher.finalize().into(),
            commands,
            marks,
        }
    }

    /// The mark taken at the last opening command, if the game got that far: a game that
    /// shares it shares at least `OPENING_COMMANDS` commands with this one.
    pub fn opening(&self) -> Option<&Mark> {
        self.marks
            .last()
            .filter(|mark| mark.commands == OPENING_COMMANDS)
    }
}

fn mark(hasher: &Sha256, commands: u64) -> Mark {
    Mark {
        commands: commands as u32,
        digest: hasher.clone().finalize().into(),
    }
}

#[cfg(test)]
mod tests {
    use sandglass_sim::geometry::Direction;
    use sandglass_sim::tape::TimeModel;
    use sandglass_sim::{Command, Ruleset, Slot};

    use super::*;

    fn header(seed: u64, created_at: u64) -> Header {
        Header {
            format_version: sandglass_sim::tape::FORMAT_VERSION,
            rules_version: 10,
            seed,
            ruleset: Ruleset::NETHACK,
            created_at,
        }
    }

    /// `commands` rests, each followed by two draws, after three draws of level making.
    fn events(commands: u32) -> Vec<Event> {
        let mut events = vec![Event::Draw(7), Event::Draw(8), Event::Draw(9)];
        for i in 0..commands {
            events.push(Event::Command(Command::Rest));
            events.extend([Event::Draw(i), Event::Draw(i + 1)]);
        }
        events
    }

    #[test]
    fn the_time_a_game_was_made_is_not_its_play() {
        let a = Play::of(&header(5, 1), &events(3));
        let b = Play::of(&header(5, 1_000_000), &events(3));
        assert_eq!(a, b);
    }

    #[test]
    fn the_seed_and_every_event_are() {
        let base = Play::of(&header(5, 1), &events(3));
        assert_ne!(base.whole, Play::of(&header(6, 1), &events(3)).whole);
        let mut changed = events(3);
        changed[5] = Event::Draw(1234);
        assert_ne!(base.whole, Play::of(&header(5, 1), &changed).whole);
        // A draw and a command are never read for each other.
        let mut swapped = events(3);
        swapped[3] = Event::Command(Command::Descend);
        assert_ne!(base.whole, Play::of(&header(5, 1), &swapped).whole);
        // Nor a throw for a step.
        let mut thrown = events(3);
        thrown[3] = Event::Command(Command::Throw(Slot(1), Direction::E));
        let mut walked = events(3);
        walked[3] = Event::Command(Command::Move(Direction::E));
        assert_ne!(
            Play::of(&header(5, 1), &thrown).whole,
            Play::of(&header(5, 1), &walked).whole
        );
        let mut other_slot = events(3);
        other_slot[3] = Event::Command(Command::Throw(Slot(2), Direction::E));
        assert_ne!(
            Play::of(&header(5, 1), &thrown).whole,
            Play::of(&header(5, 1), &other_slot).whole
        );
    }

    /// Regression: a stranger's copy of a public game, its rules version or its ruleset's
    /// figures re-stamped (a game that folds under both), a dash slipped in or a throw
    /// aimed at another cell of its line, was another play and ranked as the stranger's.
    #[test]
    fn a_copy_re_stamped_dashed_or_re_aimed_is_the_same_play() {
        let mut played = events(3);
        played[3] = Event::Command(Command::ThrowAt(Slot(1), 3, 0));
        let base = Play::of(&header(5, 1), &played);

        let mut other_rules = header(5, 1);
        other_rules.rules_version = 9;
        assert_eq!(base, Play::of(&other_rules, &played));
        let mut other_ruleset = header(5, 1);
        other_ruleset.ruleset = Ruleset::CLASSIC;
        assert_eq!(base, Play::of(&other_ruleset, &played));
        other_ruleset.ruleset.time = TimeModel::Classic {
            gain: 100,
            threshold: 99,
        };
        assert_eq!(base, Play::of(&other_ruleset, &played));

        let mut dashed = played.clone();
        dashed.insert(6, Event::Command(Command::Dash));
        dashed.insert(3, Event::Command(Command::Dash));
        assert_eq!(base, Play::of(&header(5, 1), &dashed));

        let mut re_aimed = played.clone();
        re_aimed[3] = Event::Command(Command::ThrowAt(Slot(1), 5, 0));
        assert_eq!(base, Play::of(&header(5, 1), &re_aimed));
        re_aimed[3] = Event::Command(Command::Throw(Slot(1), Direction::E));
        assert_eq!(base, Play::of(&header(5, 1), &re_aimed));
    }

    #[test]
    fn a_game_cut_short_is_the_mark_of_the_whole_at_its_length() {
        let whole = Play::of(&header(5, 1), &events(10));
        let cut = Play::of(&header(5, 2), &events(4));
        assert_eq!(whole.marks.len(), 10);
        assert_eq!(
            whole.marks[3],
            Mark {
                commands: 4,
                digest: cut.whole
            }
        );
        assert_eq!(whole.marks[9].digest, whole.whole);
        assert_eq!(whole.opening(), None);
    }

    #[test]
    fn games_that_share_the_opening_share_its_mark_and_no_more_marks_are_taken() {
        let long = events(OPENING_COMMANDS + 30);
        let mut branch = events(OPENING_COMMANDS + 10);
        branch.push(Event::Command(Command::Descend));
        let a = Play::of(&header(5, 1), &long);
        let b = Play::of(&header(5, 1), &branch);
        assert_eq!(a.marks.len(), OPENING_COMMANDS as usize);
        assert_eq!(a.opening(), b.opening());
        assert!(a.opening().is_some());
        assert_ne!(a.whole, b.whole);
        assert_eq!(a.commands, u64::from(OPENING_COMMANDS) + 30);
        // One that parts before it has another.
        let mut early = events(OPENING_COMMANDS - 1);
        early.push(Event::Command(Command::Descend));
        early.extend(events(OPENING_COMMANDS).split_off(3));
        assert_ne!(Play::of(&header(5, 1), &early).opening(), a.opening());
    }
}
