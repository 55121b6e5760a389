//! Replays: seeking in a million-event replay, and verifying one.
//!
//! * seek: the timeline's latency to random positions (median and p99 from our own
//!   samples), stepping one event forward and back, next to folding the same tape from the
//!   start, in the same run; and the same seeks for other spacings of the timeline's state
//!   copies, with the memory those copies take, behind the choice of `CACHE_EVERY`;
//! * verify: `Recording::from_bytes` + `Recording::check` (every draw regenerated, every
//!   checkpoint and the final hash checked), next to decoding the file alone, and to
//!   decoding it and folding it with no checks at all; the same for the million-event
//!   golden of each kept version from 5 on, read from `replays/`; and a stored game's
//!   verification (`Store::recording` + `Recording::check`) next to reading its log.
//!
//! Run with `cargo bench -p sandglass-store --bench replay`; BENCHMARKS.md has the figures.

use std::alloc::{GlobalAlloc, Layout, System};
use std::sync::atomic::{AtomicIsize, Ordering};
use std::time::{Duration, Instant};

use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use sandglass_sim::bot::Bot;
use sandglass_sim::rng::Expander;
use sandglass_sim::timeline::{Timeline, CACHE_EVERY};
use sandglass_sim::Recording;
use sandglass_sim::{fold, LiveTape, Rules, Ruleset};
use sandglass_store::{sgr, Store};

/// Counts the bytes allocated and not yet freed, to weigh the timeline's state copies.
struct Counting;

static LIVE_BYTES: AtomicIsize = AtomicIsize::new(0);

unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        LIVE_BYTES.fetch_add(layout.size() as isize, Ordering::Relaxed);
        System.alloc(layout)
    }
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        LIVE_BYTES.fetch_sub(layout.size() as isize, Ordering::Relaxed);
        System.dealloc(ptr, layout)
    }
    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        LIVE_BYTES.fetch_add(
            new_size as isize - layout.size() as isize,
            Ordering::Relaxed,
        );
        System.realloc(ptr, layout, new_size)
    }
}

#[global_allocator]
static ALLOCATOR: Counting = Counting;

/// The bot on the classic rules, never leaving the first level: the game of
/// `replays/classic-million-4.sgr`, played to at least a million events.
fn million_event_file() -> Recording {
    let mut game = LiveTape::new(Rules::newest(Ruleset::CLASSIC), 4);
    Bot::lingering(4, u32::MAX)
        .play_until(&mut game, |state| state.events_folded() >= 1_000_000)
        .unwrap();
    let tape = game.into_tape();
    assert!(tape.events.len() >= 1_000_000, "the lingering game goes on");
    Recording::record(tape.header, tape.events).unwrap()
}

fn percentile(sorted: &[Duration], p: f64) -> Duration {
    sorted[((sorted.len() - 1) as f64 * p).round() as usize]
}

/// Random positions on a tape of `end` events, the same every run.
fn positions(end: u64, count: usize) -> Vec<u64> {
    let mut dice = Expander::new(7);
    (0..count)
        .map(|_| u64::from(dice.below(end as u32 + 1)))
        .collect()
}

/// Seeks to each position in turn, timing each: (median, p99).
fn time_seeks(timeline: &mut Timeline, at: &[u64]) -> (Duration, Duration) {
    let mut times: Vec<Duration> = at
        .iter()
        .map(|&p| {
            let start = Instant::now();
            std::hint::black_box(timeline.seek(p));
            start.elapsed()
        })
        .collect();
    times.sort();
    (percentile(&times, 0.5), percentile(&times, 0.99))
}

fn fold_time(file: &Recording) -> Duration {
    let mut times: Vec<Duration> = (0..5)
        .map(|_| {
            let start = Instant::now();
            std::hint::black_box(
                fold(
                    Rules::of(&file.header).unwrap(),
                    file.events.iter().copied(),
                    &mut (),
                )
                .unwrap(),
            );
            start.elapsed()
        })
        .collect();
    times.sort();
    times[2]
}

fn seek(c: &mut Criterion) {
    let file = million_event_file();
    let end = file.events.len() as u64;
    let whole = fold_time(&file);
    println!("1M replay: {end} events; fold from the start (median of 5): {whole:?}");

    // The tape itself is not counted: only what the timeline adds to it.
    let tape = file.clone();
    let before = LIVE_BYTES.load(Ordering::Relaxed);
    let start = Instant::now();
    let mut timeline = Timeline::new(tape).unwrap();
    let build = start.elapsed();
    let held = LIVE_BYTES.load(Ordering::Relaxed) - before;
    println!(
        "timeline (copies every {CACHE_EVERY}): built in {build:?} (verify, markers, copies); holds {:.1} MB, {} markers",
        held as f64 / 1e6,
        timeline.markers().len()
    );
    let targets = positions(end, 2_000);
    let (median, p99) = time_seeks(&mut timeline, &targets);
    let share = |d: Duration| 100.0 * d.as_secs_f64() / whole.as_secs_f64();
    println!(
        "  seek to random positions: median {median:?} ({:.2}% of the fold), p99 {p99:?} ({:.2}%)",
        share(median),
        share(p99)
    );
    let forward: Vec<u64> = targets.iter().map(|&p| (p + 1).min(end)).collect();
    let mut steps = vec![];
    let mut backs = vec![];
    for (&p, &next) in targets.iter().zip(&forward) {
        timeline.seek(p);
        let start = Instant::now();
        std::hint::black_box(timeline.seek(next));
        steps.push(start.elapsed());
        let start = Instant::now();
        std::hint::black_box(timeline.seek(p));
        backs.push(start.elapsed());
    }
    steps.sort();
    backs.sort();
    println!(
        "  one event forward: median {:?}, p99 {:?}; one event back: median {:?}, p99 {:?}",
        percentile(&steps, 0.5),
        percentile(&steps, 0.99),
        percentile(&backs, 0.5),
        percentile(&backs, 0.99)
    );

    // Other spacings of the copies, for the choice of CACHE_EVERY.
    drop(timeline);
    for every in [500, 1_000, 2_000, 5_000, 10_000] {
        let tape = file.clone();
        let before = LIVE_BYTES.load(Ordering::Relaxed);
        let mut timeline = Timeline::with_spacing(tape, every).unwrap();
        let held = LIVE_BYTES.load(Ordering::Relaxed) - before;
        let (median, p99) = time_seeks(&mut timeline, &targets);
        println!(
            "  copies every {every:>6}: seek median {median:?} ({:.2}%), p99 {p99:?} ({:.2}%), holds {:.1} MB",
            share(median),
            share(p99),
            held as f64 / 1e6
        );
    }

    let mut timeline = Timeline::new(file.clone()).unwrap();
    let mut group = c.benchmark_group("seek in a 1M-event replay");
    group.sample_size(10);
    group.bench_function("fold from the start", |b| {
        b.iter(|| {
            fold(
                Rules::of(&file.header).unwrap(),
                file.events.iter().copied(),
                &mut (),
            )
            .unwrap()
        })
    });
    let mut next = targets.iter().copied().cycle();
    group.bench_function("seek to a random position", |b| {
        b.iter(|| {
            timeline.seek(next.next().unwrap_or(0));
        })
    });
    group.finish();
}

fn verify(c: &mut Criterion) {
    let file = million_event_file();
    let bytes = sgr::to_bytes(&file);
    let events = file.events.len() as u64;
    // The median of 7 runs, and the fastest: on a busy machine other work only ever adds
    // time, so the fastest is the nearest to what the code takes on a quiet one.
    let time = |f: &mut dyn FnMut()| {
        let mut times: Vec<Duration> = (0..7)
            .map(|_| {
                let start = Instant::now();
                f();
                start.elapsed()
            })
            .collect();
        times.sort();
        (times[3], times[0])
    };
    let (decode, _) = time(&mut || drop(std::hint::black_box(sgr::from_bytes(&bytes).unwrap())));
    let (plain, _) = time(&mut || {
        let file = sgr::from_bytes(&bytes).unwrap();
        std::hint::black_box(
            fold(
                Rules::of(&file.header).unwrap(),
                file.events.iter().copied(),
                &mut (),
            )
            .unwrap(),
        );
    });
    let (verified, fastest) = time(&mut || {
        let file = sgr::from_bytes(&bytes).unwrap();
        std::hint::black_box(file.check(&mut (), u64::MAX, |_| ()).unwrap());
    });
    let rate = |d: Duration| events as f64 / d.as_secs_f64() / 1e6;
    println!(
        "verify a {events}-event replay ({} bytes), medians of 7 (and the fastest, for verifying):",
        bytes.len()
    );
    println!(
        "  decode only:             {decode:?} ({:.0} M events/s)",
        rate(decode)
    );
    println!(
        "  decode + fold, no checks: {plain:?} ({:.1} M events/s)",
        rate(plain)
    );
    println!(
        "  decode + verify:          {verified:?} ({:.1} M events/s; fastest {fastest:?}, {:.1} M); {:.1}x decoding, {:.3}x the unchecked fold",
        rate(verified),
        rate(fastest),
        verified.as_secs_f64() / decode.as_secs_f64(),
        verified.as_secs_f64() / plain.as_secs_f64()
    );

    // The million-event goldens of the kept versions from 5 on, as the files hold them.
    let goldens = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../replays");
    for version in 5..=sandglass_sim::rules::NEWEST {
        let path = goldens.join(format!("v{version}/classic-million-4.sgr"));
        let bytes = std::fs::read(&path).unwrap();
        let events = sgr::from_bytes(&bytes).unwrap().events.len() as f64;
        let (verified, fastest) = time(&mut || {
            let file = sgr::from_bytes(&bytes).unwrap();
            std::hint::black_box(file.check(&mut (), u64::MAX, |_| ()).unwrap());
        });
        println!(
            "  golden v{version}, decode + verify: {verified:?} ({:.1} M events/s; fastest {fastest:?}, {:.1} M)",
            events / verified.as_secs_f64() / 1e6,
            events / fastest.as_secs_f64() / 1e6
        );
    }

    // The same game stored in a data directory, where decoding means reading the log.
    let dir = tempfile::tempdir().unwrap();
    let store = Store::open(dir.path()).unwrap();
    let id = store.import(&file, "million", &mut |_, _| ()).unwrap().id;
    let (read, _) = time(&mut || drop(std::hint::black_box(store.events(id).unwrap())));
    let (stored, _) = time(&mut || {
        let (file, _) = store.recording(id, &mut |_, _| ()).unwrap();
        std::hint::black_box(file.check(&mut (), u64::MAX, |_| ()).unwrap());
    });
    println!(
        "  stored game, read the log only: {read:?} ({:.1} M events/s)",
        rate(read)
    );
    println!(
        "  stored game, read + verify:     {stored:?} ({:.1} M events/s); {:.2}x reading",
        rate(stored),
        stored.as_secs_f64() / read.as_secs_f64()
    );

    let mut group = c.benchmark_group("verify a 1M-event replay");
    group.sample_size(10);
    group.throughput(Throughput::Elements(events));
    group.bench_function("decode only", |b| {
        b.iter(|| sgr::from_bytes(&bytes).unwrap())
    });
    group.bench_function("decode + fold, no checks", |b| {
        b.iter(|| {
            let file = sgr::from_bytes(&bytes).unwrap();
            fold(
                Rules::of(&file.header).unwrap(),
                file.events.iter().copied(),
                &mut (),
            )
            .unwrap()
        })
    });
    group.bench_function("decode + verify", |b| {
        b.iter(|| {
            let file = sgr::from_bytes(&bytes).unwrap();
            file.check(&mut (), u64::MAX, |_| ()).unwrap()
        })
    });
    group.finish();
}

criterion_group!(benches, seek, verify);
criterion_main!(benches);
