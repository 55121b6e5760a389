//! Drivers: where the machine's events come from.
//!
//! * `Live` answers draws from the seeded generator and commands from the caller, and
//!   hands back every event it produced, in order, to be written to the log.
//! * `fold` answers everything from a stored tape.
//! * `verify` (and `Verifier`, a step at a time) folds a tape and also regenerates every
//!   draw from the seed.
//! * `Dealt` takes commands from the caller and each step's draws from whoever dealt
//!   them: a server that keeps the seed of a run its player must not see ahead.
//!
//! Folding hands the machine the tape's next draws as a `DrawSource`, so a decision takes
//! them as it runs instead of stopping at each one and being run again.

use thiserror::Error;

use crate::check::Rejection;
use crate::command::Command;
use crate::ids::{EventIndex, Tick};
use crate::rng::{DrawSource, Generator};
use crate::rules::Rules;
use crate::state::{FeedError, Need, Observer, State};
use crate::tape::{Event, Header, Tape};
use std::iter::Peekable;

/// A live game: the state and the generator that answers its draws.
pub struct Live {
    state: State,
    generator: Generator,
}

impl Live {
    /// Starts a new game under `rules`; `out` receives the events of the first level.
    pub fn new(rules: Rules, seed: u64, obs: &mut impl Observer, out: &mut Vec<Event>) -> Live {
        let state = State::new(rules, obs);
        let mut live = Live {
            state,
            generator: Generator::new(rules.algorithm(), seed),
        };
        live.answer_draws(obs, out, Tick(u64::MAX));
        live
    }

    /// Continues a game folded from its tape (or a snapshot and the tape after it).
    pub fn resume(seed: u64, state: State) -> Live {
        let mut generator = Generator::new(state.world().rules().algorithm(), seed);
        generator.advance(state.draws_folded());
        Live { state, generator }
    }

    pub fn state(&self) -> &State {
        &self.state
    }

    pub fn into_state(self) -> State {
        self.state
    }

    /// Plays one command: validates it, then appends to `out` the command and every draw
    /// it caused. A rejected command appends nothing and changes nothing.
    pub fn command(
        &mut self,
        command: Command,
        obs: &mut impl Observer,
        out: &mut Vec<Event>,
    ) -> Result<Need, Rejection> {
        self.state.validate(&command)?;
        let event = Event::Command(command);
        self.state
            .feed(event, obs)
            .expect("a validated command is accepted");
        out.push(event);
        Ok(self.answer_draws(obs, out, Tick(u64::MAX)))
    }

    /// Runs a scenario (no player) to the end of tick `last`, answering draws.
    pub fn run_ticks(&mut self, last: Tick, obs: &mut impl Observer, out: &mut Vec<Event>) -> Need {
        self.state.run_ticks(last, obs);
        self.answer_draws(obs, out, last)
    }

    fn answer_draws(&mut self, obs: &mut impl Observer, out: &mut Vec<Event>, last: Tick) -> Need {
        while self.state.need() == Need::Draw {
            let event = Event::Draw(self.generator.next_draw());
            self.state
                .feed_until(event, obs, last)
                .expect("a draw is accepted when a draw is needed");
            out.push(event);
        }
        self.state.need()
    }
}

/// A game whose draws are dealt from outside, a step at a time, with the command they
/// follow: a dealt run, whose seed its server keeps until the run may be shown. Nothing
/// here can make a draw; a step whose dealt draws do not fit it changes nothing.
pub struct Dealt {
    state: State,
}

/// Draws that do not fit the step they were dealt for.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Error)]
pub enum DealtError {
    #[error(transparent)]
    Rejected(#[from] Rejection),
    #[error("the dealt draws end before the step does")]
    TooFew,
    #[error("{0} dealt draws are left over once the step is done")]
    TooMany(usize),
}

impl Dealt {
    /// Starts a new game under `rules` from the draws of its first level; `out` receives
    /// them as events.
    pub fn new(
        rules: Rules,
        draws: &[u32],
        obs: &mut impl Observer,
        out: &mut Vec<Event>,
    ) -> Result<Dealt, DealtError> {
        let mut state = State::new(rules, obs);
        take_draws(&mut state, draws, obs, out)?;
        Ok(Dealt { state })
    }

    /// Continues a game folded from its tape.
    pub fn resume(state: State) -> Dealt {
        Dealt { state }
    }

    pub fn state(&self) -> &State {
        &self.state
    }

    /// Whether the camel can make `command` now: asked before it is sent to be dealt.
    pub fn validate(&self, command: &Command) -> Result<(), Rejection> {
        self.state.validate(command)
    }

    /// Plays `command` with the draws dealt for it, and appends them to `out` as events.
    /// A command the camel cannot make, or draws that are too few or too many for its
    /// step, change nothing and append nothing.
    pub fn command(
        &mut self,
        command: Command,
        draws: &[u32],
        obs: &mut impl Observer,
        out: &mut Vec<Event>,
    ) -> Result<Need, DealtError> {
        self.state.validate(&command)?;
        let mut next = self.state.clone();
        let mut step = vec![Event::Command(command)];
        next.feed(step[0], obs)
            .expect("a validated command is accepted");
        take_draws(&mut next, draws, obs, &mut step)?;
        self.state = next;
        out.extend(step);
        Ok(self.state.need())
    }
}

/// Feeds `draws` to `state`, which must want exactly that many before its next command.
fn take_draws(
    state: &mut State,
    draws: &[u32],
    obs: &mut impl Observer,
    out: &mut Vec<Event>,
) -> Result<(), DealtError> {
    let mut draws = draws.iter();
    while state.need() == Need::Draw {
        let event = Event::Draw(*draws.next().ok_or(DealtError::TooFew)?);
        state
            .feed(event, obs)
            .expect("a draw is accepted when a draw is needed");
        out.push(event);
    }
    match draws.len() {
        0 => Ok(()),
        left => Err(DealtError::TooMany(left)),
    }
}

/// A live game that keeps the tape it makes: for the bot, tests and benchmarks, where
/// nothing is stored.
pub struct LiveTape {
    live: Live,
    tape: Tape,
}

impl LiveTape {
    /// Starts a new game under `rules`, its first level on the tape.
    pub fn new(rules: Rules, seed: u64) -> LiveTape {
        let mut events = vec![];
        let live = Live::new(rules, seed, &mut (), &mut events);
        LiveTape {
            live,
            tape: Tape {
                header: Header::of(rules, seed, 0),
                events,
            },
        }
    }

    pub fn state(&self) -> &State {
        self.live.state()
    }

    /// The tape so far.
    pub fn tape(&self) -> &Tape {
        &self.tape
    }

    pub fn into_tape(self) -> Tape {
        self.tape
    }

    /// Plays `command`, watched by `obs`, and adds it and the draws it caused to the tape.
    pub fn command(
        &mut self,
        command: Command,
        obs: &mut impl Observer,
    ) -> Result<Need, Rejection> {
        self.live.command(command, obs, &mut self.tape.events)
    }
}

/// A game that takes one command at a time: what the bot plays.
pub trait Game {
    type Error;
    fn state(&self) -> &State;
    /// Plays a legal `command`.
    fn play(&mut self, command: Command) -> Result<(), Self::Error>;
}

impl Game for LiveTape {
    type Error = Rejection;

    fn state(&self) -> &State {
        LiveTape::state(self)
    }

    fn play(&mut self, command: Command) -> Result<(), Rejection> {
        self.command(command, &mut ()).map(drop)
    }
}

/// A tape that cannot be folded, and the first event where that shows.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Error)]
#[error("event {index}: {kind}")]
pub struct FoldError {
    pub index: EventIndex,
    pub kind: FoldErrorKind,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Error)]
pub enum FoldErrorKind {
    #[error(transparent)]
    Feed(#[from] FeedError),
    #[error("the tape ends in the middle of a step: a draw is missing")]
    EndsEarly,
    #[error("draw {found:#010x} differs from the generator's {expected:#010x}")]
    Desync { expected: u32, found: u32 },
}

/// Folds a whole tape of a game played under `rules` from the genesis.
pub fn fold(
    rules: Rules,
    events: impl IntoIterator<Item = Event>,
    obs: &mut impl Observer,
) -> Result<State, FoldError> {
    let state = State::new(rules, obs);
    fold_from(state, events, obs)
}

/// Folds the events that follow `state` (a snapshot, or a game folded so far).
pub fn fold_from(
    mut state: State,
    events: impl IntoIterator<Item = Event>,
    obs: &mut impl Observer,
) -> Result<State, FoldError> {
    fold_on(&mut state, events, obs)?;
    finish(state)
}

/// Folds `events` into `state` in place; the tape may stop anywhere.
pub fn fold_on(
    state: &mut State,
    events: impl IntoIterator<Item = Event>,
    obs: &mut impl Observer,
) -> Result<(), FoldError> {
    let mut events = events.into_iter().peekable();
    while let Some(event) = events.next() {
        let index = EventIndex(state.events_folded());
        let mut more = TapeDraws(&mut events);
        state
            .feed_pulling(event, &mut more, obs)
            .map_err(refused_at(index))?;
    }
    Ok(())
}

/// The machine refused the event at `index`.
fn refused_at(index: EventIndex) -> impl FnOnce(FeedError) -> FoldError {
    move |e| FoldError {
        index,
        kind: e.into(),
    }
}

/// The draws that come next on a tape, for a step that wants them while it runs.
struct TapeDraws<'a, I: Iterator<Item = Event>>(&'a mut Peekable<I>);

impl<I: Iterator<Item = Event>> DrawSource for TapeDraws<'_, I> {
    fn pull(&mut self) -> Option<u32> {
        match self.0.next_if(|e| matches!(e, Event::Draw(_)))? {
            Event::Draw(value) => Some(value),
            Event::Command(_) => None,
        }
    }
}

/// A tape may stop where the player was to move, or where the game ended; not mid-step.
fn finish(state: State) -> Result<State, FoldError> {
    if state.need() == Need::Draw {
        return Err(FoldError {
            index: EventIndex(state.events_folded()),
            kind: FoldErrorKind::EndsEarly,
        });
    }
    Ok(state)
}

/// Folds a tape of a game played under `rules` and checks every draw against the
/// generator seeded with `seed`.
pub fn verify(
    rules: Rules,
    seed: u64,
    events: impl IntoIterator<Item = Event>,
    obs: &mut impl Observer,
) -> Result<State, FoldError> {
    let mut verifier = Verifier::new(rules, seed, obs);
    let mut events = events.into_iter().peekable();
    while verifier.feed_pulling(&mut events, u64::MAX, obs)? {}
    verifier.finish()
}

/// `verify` a step at a time, for callers that look at the state between events (replay
/// files check their hash checkpoints, the timeline keeps copies) without folding the tape
/// a second time.
pub struct Verifier {
    state: State,
    generator: Generator,
    /// The generator's next output, once looked at and not yet matched by a draw.
    next_draw: Option<u32>,
}

impl Verifier {
    pub fn new(rules: Rules, seed: u64, obs: &mut impl Observer) -> Verifier {
        Verifier {
            state: State::new(rules, obs),
            generator: Generator::new(rules.algorithm(), seed),
            next_draw: None,
        }
    }

    /// The state after the events fed so far.
    pub fn state(&self) -> &State {
        &self.state
    }

    /// Feeds the next of `events`, then as many of the draws after it as the machine asks
    /// for before it next stops, but at most `budget` of them. Every draw must be the
    /// generator's next output. False once `events` is empty.
    pub fn feed_pulling<I: Iterator<Item = Event>>(
        &mut self,
        events: &mut Peekable<I>,
        budget: u64,
        obs: &mut impl Observer,
    ) -> Result<bool, FoldError> {
        let Some(event) = events.next() else {
            return Ok(false);
        };
        self.check(event)?;
        let index = EventIndex(self.state.events_folded());
        let mut more = CheckedDraws {
            events,
            generator: &mut self.generator,
            next_draw: &mut self.next_draw,
            budget,
        };
        self.state
            .feed_pulling(event, &mut more, obs)
            .map_err(refused_at(index))?;
        Ok(true)
    }

    /// A draw must be the generator's next output; one where a command is due is
    /// reported as the wrong kind of event when it is fed.
    fn check(&mut self, event: Event) -> Result<(), FoldError> {
        if let Event::Draw(found) = event {
            let expected = expected(&mut self.generator, &mut self.next_draw);
            self.next_draw = None;
            if found != expected && self.state.need() == Need::Draw {
                return Err(FoldError {
                    index: EventIndex(self.state.events_folded()),
                    kind: FoldErrorKind::Desync { expected, found },
                });
            }
        }
        Ok(())
    }

    /// The final state, unless the tape stopped in the middle of a step.
    pub fn finish(self) -> Result<State, FoldError> {
        finish(self.state)
    }
}

/// The generator's next output, looked at without being used up. Once for every draw a
/// replay is checked against.
#[inline]
fn expected(generator: &mut Generator, next_draw: &mut Option<u32>) -> u32 {
    *next_draw.get_or_insert_with(|| generator.next_draw())
}

/// The draws that come next on a tape, each handed over only if it is the generator's
/// next output: one that is not is left on the tape, for `Verifier::feed_pulling` to
/// report at its own index.
struct CheckedDraws<'a, I: Iterator<Item = Event>> {
    events: &'a mut Peekable<I>,
    generator: &'a mut Generator,
    next_draw: &'a mut Option<u32>,
    budget: u64,
}

impl<I: Iterator<Item = Event>> DrawSource for CheckedDraws<'_, I> {
    fn pull(&mut self) -> Option<u32> {
        if self.budget == 0 {
            return None;
        }
        let expected = expected(self.generator, self.next_draw);
        self.events.next_if_eq(&Event::Draw(expected))?;
        *self.next_draw = None;
        self.budget -= 1;
        Some(expected)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::bot::Bot;
    use crate::tape::Ruleset;

    /// The draws of each step of `tape`, after its first level's.
    fn steps(tape: &Tape) -> Vec<(Command, Vec<u32>)> {
        let mut steps: Vec<(Command, Vec<u32>)> = vec![];
        for event in &tape.events {
            match (event, steps.last_mut()) {
                (Event::Command(c), _) => steps.push((*c, vec![])),
                (Event::Draw(d), Some((_, draws))) => draws.push(*d),
                (Event::Draw(_), None) => {}
            }
        }
        steps
    }

    fn opening(tape: &Tape) -> Vec<u32> {
        tape.events
            .iter()
            .map_while(|e| match e {
                Event::Draw(d) => Some(*d),
                Event::Command(_) => None,
            })
            .collect()
    }

    #[test]
    fn a_dealt_game_fed_a_seeded_games_draws_is_that_game() {
        let rules = Rules::newest(Ruleset::NETHACK);
        let mut seeded = LiveTape::new(rules, 41);
        Bot::new(41).play(&mut seeded, 200).unwrap();
        let tape = seeded.tape();
        let mut out = vec![];
        let mut dealt = Dealt::new(rules, &opening(tape), &mut (), &mut out).unwrap();
        for (command, draws) in steps(tape) {
            dealt.command(command, &draws, &mut (), &mut out).unwrap();
        }
        assert_eq!(out, tape.events);
        assert_eq!(dealt.state().hash(), seeded.state().hash());
    }

    #[test]
    fn draws_that_do_not_fit_their_step_change_nothing() {
        let rules = Rules::newest(Ruleset::NETHACK);
        let mut seeded = LiveTape::new(rules, 43);
        Bot::new(43).play(&mut seeded, 40).unwrap();
        let tape = seeded.tape();
        let mut out = vec![];
        let first_level = opening(tape);
        assert_eq!(
            Dealt::new(
                rules,
                &first_level[..first_level.len() - 1],
                &mut (),
                &mut out
            )
            .err(),
            Some(DealtError::TooFew)
        );
        let mut extra = opening(tape);
        extra.push(7);
        assert_eq!(
            Dealt::new(rules, &extra, &mut (), &mut out).err(),
            Some(DealtError::TooMany(1))
        );
        let mut dealt = Dealt::new(rules, &opening(tape), &mut (), &mut vec![]).unwrap();
        let (command, draws) = steps(tape)
            .into_iter()
            .find(|(_, draws)| !draws.is_empty())
            .unwrap();
        let before = dealt.state().hash();
        let mut out = vec![];
        let short = dealt.command(command, &draws[..draws.len() - 1], &mut (), &mut out);
        assert_eq!(short, Err(DealtError::TooFew));
        let mut long = draws.clone();
        long.extend([1, 2]);
        let over = dealt.command(command, &long, &mut (), &mut out);
        assert_eq!(over, Err(DealtError::TooMany(2)));
        let illegal = dealt.command(
            Command::Eat(crate::command::Slot(25)),
            &[],
            &mut (),
            &mut out,
        );
        assert!(matches!(illegal, Err(DealtError::Rejected(_))));
        assert!(out.is_empty());
        assert_eq!(dealt.state().hash(), before);
        dealt.command(command, &draws, &mut (), &mut out).unwrap();
        assert_eq!(out.len(), 1 + draws.len());
    }
}
