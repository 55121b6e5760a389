//! The energy system alone: idle actors of mixed speeds, no map interaction.
//! Reports the cost of one tick; divide by actions per tick for the cost per action
//! (printed once per size).

use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion, Throughput};
use sandglass_sim::ids::Tick;
use sandglass_sim::scenario::{ActorSpec, Scenario};
use sandglass_sim::{Live, State};

/// A square-ish map holding `n` idle actors with speeds 6..=24 (nethack), one per cell.
fn crowd(n: usize) -> (State, u64) {
    let side = (n as f64).sqrt().ceil() as usize;
    let row = ".".repeat(side);
    let actors = (0..n)
        .map(|i| ActorSpec {
            name: format!("a{i}"),
            at: [(i % side) as i16, (i / side) as i16],
            species: None,
            behaviour: Some("idle".to_owned()),
            speed: Some(6 + (i as u16 * 7) % 19),
            max_energy: None,
            move_cost: None,
        })
        .collect();
    let scenario = Scenario {
        ruleset: "nethack".to_owned(),
        gain: None,
        threshold: None,
        order: None,
        seed: 0,
        map: std::iter::repeat_n(row.as_str(), side)
            .collect::<Vec<_>>()
            .join("\n"),
        actors,
    };
    (
        scenario.build().expect("bench scenario builds"),
        scenario.seed,
    )
}

/// Counts actions, so that the cost per action can be printed beside the cost per tick.
#[derive(Default)]
struct Count(u64);
impl sandglass_sim::Observer for Count {
    fn acted(&mut self, _: &State, _: &sandglass_sim::action::ActionRecord) {
        self.0 += 1;
    }
}

/// The crowd of `n`, every initiative rolled and the first tick played.
fn settled(n: usize) -> Live {
    let (state, seed) = crowd(n);
    let mut live = Live::resume(seed, state);
    live.run_ticks(Tick(1), &mut (), &mut Vec::new());
    live
}

/// One tick more, shown to `obs`.
fn tick(live: &mut Live, obs: &mut impl sandglass_sim::Observer) {
    let next = live.state().tick().0 + 1;
    live.run_ticks(Tick(next), obs, &mut Vec::new());
}

fn ticks(c: &mut Criterion) {
    let mut group = c.benchmark_group("energy tick");
    group.sample_size(20);
    for n in [1_000usize, 10_000, 100_000, 1_000_000] {
        group.throughput(Throughput::Elements(n as u64));
        let mut printed = false;
        group.bench_with_input(BenchmarkId::from_parameter(n), &n, |b, &n| {
            let mut live = settled(n);
            if !printed {
                let mut count = Count::default();
                for _ in 0..36 {
                    tick(&mut live, &mut count);
                }
                println!("{n} actors: {:.3} actions per tick", count.0 as f64 / 36.0);
                printed = true;
            }
            b.iter(|| tick(&mut live, &mut ()))
        });
    }
    group.finish();
}

/// The same 10,000 actors watched by an observer that is shown every wait (as `trace` and
/// the window's energy panel are), so each action is applied and reported on its own.
fn ticks_watched(c: &mut Criterion) {
    let mut group = c.benchmark_group("energy tick, every action shown");
    group.sample_size(20);
    let n = 10_000;
    group.throughput(Throughput::Elements(n as u64));
    group.bench_with_input(BenchmarkId::from_parameter(n), &n, |b, &n| {
        let mut live = settled(n);
        b.iter(|| tick(&mut live, &mut Count::default()))
    });
    group.finish();
}

criterion_group!(benches, ticks, ticks_watched);
criterion_main!(benches);
