//! The rules a turn pays for besides the energy system: the camel's field of view, worked
//! out again every time it moves, and a hunter's path search, every time it decides.
//! Both on real generated levels (depth 4 of seeds 1 to 8), from every open cell in turn.

use criterion::{criterion_group, criterion_main, Criterion};
use sandglass_sim::bestiary::Bestiary;
use sandglass_sim::geometry::Pos;
use sandglass_sim::level::{generate, Contents, Level};
use sandglass_sim::path::first_step_to;
use sandglass_sim::sight::{field_of_view, CellSet};
use sandglass_sim::HUNT_REACH;

fn levels() -> Vec<Level> {
    (1..=8)
        .map(|seed| generate(seed, 4, Contents::plain(Bestiary::Desert)))
        .collect()
}

/// Open cells of `level`, every seventh: a spread of places to look or walk from.
fn places(level: &Level) -> Vec<Pos> {
    let map = &level.map;
    map.cells()
        .filter(|&p| map.terrain(p).is_passable())
        .step_by(7)
        .collect()
}

fn sight(c: &mut Criterion) {
    let levels = levels();
    let spots: Vec<(&Level, Pos)> = levels
        .iter()
        .flat_map(|l| places(l).into_iter().map(move |p| (l, p)))
        .collect();
    let mut seen = CellSet::empty(&levels[0].map);
    let mut i = 0;
    c.bench_function("field of view, radius 8, one camel turn", |b| {
        b.iter(|| {
            let (level, at) = spots[i % spots.len()];
            i += 1;
            seen.clear();
            field_of_view(&level.map, at, &mut seen);
            seen.len()
        })
    });
}

fn hunt(c: &mut Criterion) {
    let levels = levels();
    // A hunter at one place and the camel at another, 5 to 20 cells apart.
    let chases: Vec<(&Level, Pos, Pos)> = levels
        .iter()
        .flat_map(|l| {
            let spots = places(l);
            let pairs: Vec<(Pos, Pos)> = spots
                .iter()
                .zip(spots.iter().skip(11))
                .map(|(&a, &b)| (a, b))
                .filter(|(a, b)| (5..=20).contains(&a.distance(*b)))
                .collect();
            pairs.into_iter().map(move |(a, b)| (l, a, b))
        })
        .collect();
    println!("{} chases", chases.len());
    let mut i = 0;
    c.bench_function("hunter's path search, one decision", |b| {
        b.iter(|| {
            let (level, hunter, camel) = chases[i % chases.len()];
            i += 1;
            let map = &level.map;
            first_step_to(map, hunter, camel, HUNT_REACH, |p| {
                map.terrain(p).is_passable()
            })
        })
    });
}

criterion_group!(benches, sight, hunt);
criterion_main!(benches);
