//! Showing what happened during one command, in the order it happened.
//!
//! Between two of the camel's moves a snake may act twice and an elephant charge three
//! cells. The `Recorder` watches the fold (it is an `Observer`) and keeps, per action, what
//! a player could see move; the `Playback` then replays those beats over a fraction of a
//! second while the final state is already saved. The core's state is never touched and
//! nothing is simulated again: a frame is a position along the recorded beats.

use macroquad::math::Vec2;
use sandglass_sim::action::ActionRecord;
use sandglass_sim::geometry::Pos;
use sandglass_sim::ids::ActorId;
use sandglass_sim::item::Item;
use sandglass_sim::species::Species;
use sandglass_sim::Change;
use sandglass_sim::{Observer, State};

/// A cell's position in cells, as a frame places things that may lie between cells.
pub fn cell_of(pos: Pos) -> Vec2 {
    Vec2::new(f32::from(pos.x), f32::from(pos.y))
}

/// One thing a player can see happen.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Motion {
    Step {
        actor: ActorId,
        from: Pos,
        to: Pos,
    },
    Appear {
        actor: ActorId,
        species: Species,
        at: Pos,
    },
    /// Died or left; shown until its beat ends.
    Gone {
        actor: ActorId,
    },
    Hurt {
        actor: ActorId,
    },
    /// A thrown item on its way; it lies on the floor at `floor_index` when it lands, if
    /// it does not snap there.
    Fly {
        item: Item,
        from: Pos,
        to: Pos,
        floor_index: Option<usize>,
    },
}

/// Everything one action showed.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Beat {
    pub by_player: bool,
    pub motions: Vec<Motion>,
}

type Shown = Option<(Species, Pos)>;

/// Watches one command's fold and keeps its beats. Each change says what moved, from
/// where and to where; the recorder only groups them by the action that made them.
pub struct Recorder {
    /// Who stood where before the first beat, by actor index.
    start: Vec<Shown>,
    beats: Vec<Beat>,
    current: Vec<Motion>,
}

impl Recorder {
    pub fn new(state: &State) -> Recorder {
        Recorder {
            start: snapshot(state),
            beats: vec![],
            current: vec![],
        }
    }

    /// The beats, ready to play from `time` (seconds, any clock that only goes forward),
    /// taking `pace` times as long as at the normal pace (0: shown at once).
    pub fn into_playback(self, time: f64, pace: f64) -> Playback {
        Playback::new(self.start, self.beats, time, pace)
    }
}

fn snapshot(state: &State) -> Vec<Shown> {
    let mut shown = vec![];
    for (id, actor) in state.world().actors() {
        if shown.len() <= id.index() {
            shown.resize(id.index() + 1, None);
        }
        shown[id.index()] = Some((actor.species(), actor.pos()));
    }
    shown
}

impl Observer for Recorder {
    fn changed(&mut self, state: &State, change: &Change) {
        let motion = match *change {
            Change::Move { actor, from, to } => Motion::Step { actor, from, to },
            Change::Spawn {
                actor, species, at, ..
            } => Motion::Appear { actor, species, at },
            Change::Die { actor, .. } | Change::Vanish { actor } => Motion::Gone { actor },
            Change::Hurt { actor, .. } => Motion::Hurt { actor },
            Change::Land { item, from, at, .. } => Motion::Fly {
                item,
                from,
                to: at,
                // It lands last on the floor.
                floor_index: Some(state.world().floor().len() - 1),
            },
            Change::Snap { item, from, at, .. } => Motion::Fly {
                item,
                from,
                to: at,
                floor_index: None,
            },
            // A new level replaces everything: there is nothing to show moving across it.
            Change::NewLevel(_) => {
                self.start = snapshot(state);
                self.beats.clear();
                self.current.clear();
                return;
            }
            _ => return,
        };
        self.current.push(motion);
    }

    fn acted(&mut self, state: &State, record: &ActionRecord) {
        if !self.current.is_empty() {
            self.beats.push(Beat {
                by_player: state.world().player_id() == Some(record.actor),
                motions: std::mem::take(&mut self.current),
            });
        }
    }
}

/// Seconds a creature's beat takes, and the camel's own (quicker: it is the player's
/// answer to a key and should feel immediate).
const BEAT: f64 = 0.075;
const PLAYER_BEAT: f64 = 0.05;
/// Seconds per cell of a thrown item's flight.
const FLIGHT_CELL: f64 = 0.03;
/// However much happened, the whole playback fits in this: beats get shorter, never
/// dropped, so the order stays visible.
const LONGEST: f64 = 0.6;

/// An actor as a frame shows it.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Actor {
    pub id: ActorId,
    pub species: Species,
    /// In cells; between two cells while it moves.
    pub at: Vec2,
    pub hurt: bool,
}

/// What to draw in one frame.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Frame {
    pub actors: Vec<Actor>,
    /// A thrown item in the air, in cells.
    pub flight: Option<(Item, Vec2)>,
    /// A floor item not to draw yet: it is still flying.
    pub hidden_item: Option<usize>,
}

impl Frame {
    /// What to draw at `time`: the playback's frame while it runs (dropped once done),
    /// otherwise `state` as it stands.
    pub fn at(playback: &mut Option<Playback>, state: &State, time: f64) -> Frame {
        let Some(running) = playback else {
            return Frame::still(state);
        };
        let frame = running.frame(time);
        if running.is_done() {
            *playback = None;
        }
        frame
    }

    /// The state as it stands, nothing moving.
    pub fn still(state: &State) -> Frame {
        Frame {
            actors: state
                .world()
                .actors()
                .map(|(id, a)| Actor {
                    id,
                    species: a.species(),
                    at: cell_of(a.pos()),
                    hurt: false,
                })
                .collect(),
            ..Frame::default()
        }
    }
}

/// Recorded beats being played.
pub struct Playback {
    /// Who stands where when beat `next` starts.
    shown: Vec<Shown>,
    beats: Vec<Beat>,
    /// When each beat ends, in seconds from `started`.
    ends: Vec<f64>,
    next: usize,
    started: f64,
}

impl Playback {
    fn new(start: Vec<Shown>, beats: Vec<Beat>, time: f64, pace: f64) -> Playback {
        let lengths: Vec<f64> = beats.iter().map(length).collect();
        let total: f64 = lengths.iter().sum();
        let scale = pace
            * if total > LONGEST {
                LONGEST / total
            } else {
                1.0
            };
        let ends = lengths
            .iter()
            .scan(0.0, |end, len| {
                *end += len * scale;
                Some(*end)
            })
            .collect();
        Playback {
            shown: start,
            beats,
            ends,
            next: 0,
            started: time,
        }
    }

    pub fn is_done(&self) -> bool {
        self.next >= self.beats.len()
    }

    /// Jumps to the end (a key was pressed: the player has seen enough).
    pub fn finish(&mut self) {
        while !self.is_done() {
            self.complete_beat();
        }
    }

    /// The frame at `time`. Time only goes forward: finished beats are folded into the
    /// shown positions once.
    pub fn frame(&mut self, time: f64) -> Frame {
        let t = time - self.started;
        while !self.is_done() && t >= self.ends[self.next] {
            self.complete_beat();
        }
        let mut frame = Frame {
            actors: self
                .shown
                .iter()
                .enumerate()
                .filter_map(|(i, s)| {
                    s.map(|(species, at)| Actor {
                        id: ActorId(i as u32),
                        species,
                        at: cell_of(at),
                        hurt: false,
                    })
                })
                .collect(),
            ..Frame::default()
        };
        let Some(beat) = self.beats.get(self.next) else {
            return frame;
        };
        let begin = if self.next == 0 {
            0.0
        } else {
            self.ends[self.next - 1]
        };
        let progress = ((t - begin) / (self.ends[self.next] - begin).max(1e-6)).clamp(0.0, 1.0);
        let progress = progress as f32;
        for motion in &beat.motions {
            match *motion {
                Motion::Step { actor, from, to } => {
                    let at = cell_of(from).lerp(cell_of(to), progress);
                    if let Some(a) = frame.actors.iter_mut().find(|a| a.id == actor) {
                        a.at = at;
                    }
                }
                Motion::Hurt { actor } => {
                    if let Some(a) = frame.actors.iter_mut().find(|a| a.id == actor) {
                        a.hurt = true;
                    }
                }
                Motion::Fly {
                    item,
                    from,
                    to,
                    floor_index,
                } => {
                    frame.flight = Some((item, cell_of(from).lerp(cell_of(to), progress)));
                    frame.hidden_item = floor_index;
                }
                // A newcomer shows when its beat is over; the dead linger until then.
                Motion::Appear { .. } | Motion::Gone { .. } => {}
            }
        }
        // An item thrown in a later beat is not on the ground yet either.
        if frame.hidden_item.is_none() {
            frame.hidden_item = self.beats[self.next..]
                .iter()
                .flat_map(|b| &b.motions)
                .find_map(|m| match m {
                    Motion::Fly { floor_index, .. } => *floor_index,
                    _ => None,
                });
        }
        frame
    }

    fn complete_beat(&mut self) {
        for motion in &self.beats[self.next].motions {
            match *motion {
                Motion::Step { actor, to, .. } => {
                    if let Some(Some((_, at))) = self.shown.get_mut(actor.index()) {
                        *at = to;
                    }
                }
                Motion::Appear { actor, species, at } => {
                    if self.shown.len() <= actor.index() {
                        self.shown.resize(actor.index() + 1, None);
                    }
                    self.shown[actor.index()] = Some((species, at));
                }
                Motion::Gone { actor } => {
                    if let Some(slot) = self.shown.get_mut(actor.index()) {
                        *slot = None;
                    }
                }
                Motion::Hurt { .. } | Motion::Fly { .. } => {}
            }
        }
        self.next += 1;
    }
}

/// How long a beat takes before any squeezing.
fn length(beat: &Beat) -> f64 {
    let flight = beat
        .motions
        .iter()
        .filter_map(|m| match m {
            Motion::Fly { from, to, .. } => Some(f64::from(from.distance(*to)) * FLIGHT_CELL),
            _ => None,
        })
        .fold(0.0, f64::max);
    let base = if beat.by_player { PLAYER_BEAT } else { BEAT };
    base.max(flight)
}

#[cfg(test)]
mod tests {
    use super::*;
    use sandglass_sim::ids::Tick;
    use sandglass_sim::scenario::Scenario;
    use sandglass_sim::{Command, Live, Rules, Ruleset};

    /// A fast wanderer (speed 24: two actions a tick) and a slow one on open sand.
    fn wanderers() -> Live {
        let text = r#"
            ruleset = "nethack"
            seed = 3
            map = """
..........
..........
..........
..........
"""
            [[actor]]
            name = "quick"
            at = [2, 1]
            speed = 24
            species = "snake"
            behaviour = "wander"
            [[actor]]
            name = "slow"
            at = [7, 2]
            speed = 12
            species = "spider"
            behaviour = "wander"
        "#;
        let scenario: Scenario = toml::from_str(text).unwrap();
        Live::resume(scenario.seed, scenario.build().unwrap())
    }

    fn steps(beat: &Beat) -> Vec<(ActorId, Pos, Pos)> {
        beat.motions
            .iter()
            .filter_map(|m| match *m {
                Motion::Step { actor, from, to } => Some((actor, from, to)),
                _ => None,
            })
            .collect()
    }

    #[test]
    fn a_creature_that_acts_twice_moves_twice_in_order() {
        let mut live = wanderers();
        live.run_ticks(Tick(1), &mut (), &mut vec![]);
        let before = live.state().clone();
        let mut recorder = Recorder::new(&before);
        live.run_ticks(Tick(2), &mut recorder, &mut vec![]);
        let quick: Vec<_> = recorder
            .beats
            .iter()
            .flat_map(steps)
            .filter(|(actor, _, _)| *actor == ActorId(0))
            .collect();
        assert_eq!(quick.len(), 2, "{:?}", recorder.beats);
        // The second step starts where the first ended, and ends where the state says.
        assert_eq!(quick[0].2, quick[1].1);
        let start = before.world().actor(ActorId(0)).unwrap().pos();
        assert_eq!(quick[0].1, start);
        assert_eq!(
            quick[1].2,
            live.state().world().actor(ActorId(0)).unwrap().pos()
        );
    }

    #[test]
    fn playback_moves_between_cells_and_ends_where_the_state_is() {
        let mut live = wanderers();
        live.run_ticks(Tick(1), &mut (), &mut vec![]);
        let mut recorder = Recorder::new(live.state());
        live.run_ticks(Tick(2), &mut recorder, &mut vec![]);
        let mut playback = recorder.into_playback(10.0, 1.0);
        let start = playback.frame(10.0);
        let midway = playback.frame(10.0 + BEAT / 2.0);
        assert_ne!(start, midway, "something moves during the first beat");
        let fraction = |f: &Frame| f.actors.iter().any(|a| a.at.x.fract() != 0.0);
        assert!(fraction(&midway), "halfway between cells: {midway:?}");
        let end = playback.frame(10.0 + LONGEST + 1.0);
        assert!(playback.is_done());
        assert_eq!(end, Frame::still(live.state()));
    }

    #[test]
    fn finishing_early_shows_the_final_state() {
        let mut live = wanderers();
        let mut recorder = Recorder::new(live.state());
        live.run_ticks(Tick(3), &mut recorder, &mut vec![]);
        let mut playback = recorder.into_playback(0.0, 1.0);
        playback.finish();
        assert_eq!(playback.frame(0.0), Frame::still(live.state()));
    }

    #[test]
    fn a_thrown_stone_flies_from_the_camel_and_lands_after_its_flight() {
        let rules = Rules::newest(Ruleset::NETHACK);
        let mut live = Live::new(rules, 7, &mut (), &mut vec![]);
        let slot = live.state().world().bags().slot_for(Item::Stone).unwrap();
        let camel = live.state().world().player().unwrap().pos();
        let mut recorder = Recorder::new(live.state());
        // Towards open ground, so that the stone has somewhere to fly.
        let dir = sandglass_sim::geometry::Direction::ALL
            .into_iter()
            .find(|&d| live.state().world().map().is_free(camel.step(d)))
            .unwrap();
        live.command(Command::Throw(slot, dir), &mut recorder, &mut vec![])
            .unwrap();
        let first = &recorder.beats[0];
        assert!(first.by_player);
        let fly = first
            .motions
            .iter()
            .find_map(|m| match *m {
                Motion::Fly { item, from, .. } => Some((item, from)),
                _ => None,
            })
            .expect("the throw flies");
        assert_eq!(fly, (Item::Stone, camel));
        let mut playback = recorder.into_playback(0.0, 1.0);
        let frame = playback.frame(0.001);
        assert!(frame.flight.is_some());
        assert!(frame.hidden_item.is_some(), "not on the ground mid-flight");
        playback.finish();
        let done = playback.frame(0.0);
        assert_eq!((done.flight, done.hidden_item), (None, None));
    }
}
