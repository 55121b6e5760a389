//! `sandglass bench-window` (hidden): the frame loop under load, for BENCHMARKS.md.
//!
//! A real 64 x 40 level with a thousand wandering creatures (a scenario: the core lets
//! only scenarios place creatures freely), advanced one tick at a time as fast as a
//! player holding a key, each tick played back like a command's, with the energy panel
//! open on every actor.

use macroquad::prelude::*;
use sandglass_sim::bestiary::Bestiary;
use sandglass_sim::geometry::Pos;
use sandglass_sim::ids::Tick;
use sandglass_sim::level::{generate, Contents};
use sandglass_sim::scenario::{ActorSpec, Scenario};
use sandglass_sim::species::Species;
use sandglass_sim::{Live, State};

use super::animate::{Frame, Playback, Recorder};
use super::draw_map::{Layout, Sight};
use super::hud::{self, TEXT};
use super::{App, Go};

#[derive(clap::Args)]
pub struct BenchArgs {
    /// Creatures on the map.
    #[arg(long, default_value_t = 1000)]
    pub creatures: usize,
    /// How long to run.
    #[arg(long, default_value_t = 10.0)]
    pub seconds: f64,
    /// Ticks simulated (and animated) per second.
    #[arg(long, default_value_t = 8.0)]
    pub ticks_per_second: f64,
}

pub struct BenchScreen {
    live: Live,
    playback: Option<Playback>,
    next_tick: f64,
    until: f64,
    interval: f64,
}

impl BenchScreen {
    pub fn new(args: &BenchArgs, time: f64) -> anyhow::Result<BenchScreen> {
        let scenario = crowd(args.creatures)?;
        let state = scenario.build()?;
        Ok(BenchScreen {
            live: Live::resume(scenario.seed, state),
            playback: None,
            next_tick: time,
            until: time + args.seconds,
            interval: 1.0 / args.ticks_per_second.max(0.1),
        })
    }

    pub fn state(&self) -> &State {
        self.live.state()
    }

    /// Runs a tick when one is due; closes the window once the time is up.
    pub fn update(&mut self, time: f64) -> Go {
        if time >= self.until {
            return Go::Exit;
        }
        if time >= self.next_tick {
            self.next_tick += self.interval;
            let mut recorder = Recorder::new(self.live.state());
            let next = Tick(self.live.state().tick().0 + 1);
            self.live.run_ticks(next, &mut recorder, &mut Vec::new());
            self.playback = Some(recorder.into_playback(time, 1.0));
        }
        Go::Stay
    }

    pub fn draw(&mut self, app: &mut App, time: f64) {
        let frame = Frame::at(&mut self.playback, self.live.state(), time);
        let state = self.live.state();
        let map = state.world().map();
        let layout = Layout::new(screen_width(), screen_height(), map.width(), map.height());
        // A crowd with no camel: everything is drawn, the heaviest frame there is.
        app.painter.draw(state, &frame, &layout, Sight::Everything);
        let heading = ["Benchmark".to_owned(), "a crowd on a real level".to_owned()];
        app.side_bar(&layout, state, &heading, &["F1 energy panel"]);
        let line = format!(
            "{} creatures, tick {}: frame times go to --frame-stats",
            frame.actors.len(),
            state.tick().0
        );
        hud::log(&app.text, &layout, &[(line, TEXT)]);
    }
}

/// A generated level with `count` wandering snakes, spiders and elephants on its free
/// cells, spread over the whole map.
fn crowd(count: usize) -> anyhow::Result<Scenario> {
    let level = generate(0x5a9d_91a5, 1, Contents::plain(Bestiary::Desert));
    let map = &level.map;
    let mut text = String::new();
    for y in 0..map.height() as i16 {
        for x in 0..map.width() as i16 {
            text.push(map.terrain(Pos::new(x, y)).glyph());
        }
        text.push('\n');
    }
    let mut free: Vec<Pos> = map.cells().filter(|&p| map.is_free(p)).collect();
    anyhow::ensure!(
        count <= free.len(),
        "the level has room for {} creatures, not {count}",
        free.len()
    );
    // A fixed shuffle (multiplicative hashing of the index), so the crowd covers the map.
    free.sort_by_key(|p| (i64::from(p.y) * 64 + i64::from(p.x)).wrapping_mul(0x9e37_79b9) % 4099);
    let kinds = [Species::Snake, Species::Spider, Species::Elephant];
    let actors = free
        .iter()
        .take(count)
        .enumerate()
        .map(|(i, p)| {
            let species = kinds[i % kinds.len()];
            ActorSpec {
                name: format!("{} {i}", species.name()),
                at: [p.x, p.y],
                species: Some(species.name().to_owned()),
                behaviour: Some("wander".to_owned()),
                speed: None,
                max_energy: None,
                move_cost: None,
            }
        })
        .collect();
    Ok(Scenario {
        ruleset: "nethack".to_owned(),
        gain: None,
        threshold: None,
        order: None,
        seed: 1,
        map: text,
        actors,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_crowd_is_a_thousand_creatures_on_a_full_size_map() {
        let state = crowd(1000).unwrap().build().unwrap();
        assert_eq!(state.world().actors().count(), 1000);
        assert_eq!(
            (state.world().map().width(), state.world().map().height()),
            (64, 40)
        );
    }

    #[test]
    fn too_big_a_crowd_is_refused() {
        assert!(crowd(64 * 40).is_err());
    }
}
