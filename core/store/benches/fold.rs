//! Folding a bot game of a million events, next to only decoding the same events.
//! The game is the golden replay `replays/v4/classic-million-4.sgr`.

use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use sandglass_sim::{fold, Rules};
use sandglass_store::sgr;

fn million(c: &mut Criterion) {
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../replays/v4/classic-million-4.sgr"
    );
    let bytes = std::fs::read(path).expect("the golden million-event replay is in replays/");
    let file = sgr::from_bytes(&bytes).expect("the golden replay decodes");
    let rules = Rules::of(&file.header).expect("a kept rules version");
    let events = file.events.len() as u64;
    println!("{events} events, {} bytes", bytes.len());

    let mut group = c.benchmark_group("million events");
    group.sample_size(10);
    group.throughput(Throughput::Elements(events));
    group.bench_function("decode only, .sgr file", |b| {
        b.iter(|| sgr::from_bytes(&bytes).expect("decodes").events.len())
    });
    // The sled log stores each event on its own as bincode (standard config).
    let logged: Vec<Vec<u8>> = file
        .events
        .iter()
        .map(|e| bincode::serde::encode_to_vec(e, bincode::config::standard()).expect("encodes"))
        .collect();
    group.bench_function("decode only, per-event bincode (log values)", |b| {
        b.iter(|| {
            logged
                .iter()
                .map(|bytes| {
                    let (event, _): (sandglass_sim::Event, usize) =
                        bincode::serde::decode_from_slice(bytes, bincode::config::standard())
                            .expect("decodes");
                    matches!(event, sandglass_sim::Event::Draw(_)) as u64
                })
                .sum::<u64>()
        })
    });
    group.bench_function("fold", |b| {
        b.iter(|| {
            fold(rules, file.events.iter().copied(), &mut ())
                .expect("the golden replay folds")
                .hash()
        })
    });
    group.finish();
}

criterion_group!(benches, million);
criterion_main!(benches);
