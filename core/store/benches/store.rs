//! Storage: the cost of saving a step, of loading a long game, and of the bytes it takes.
//!
//! * save step: from an accepted command to its step flushed (`Session::command`, so the
//!   step's simulation and hashing are in), next to a bare sled insert + flush of the same
//!   key and value into another database on the same disk, interleaved step by step;
//! * load: a game of a million events from its newest snapshot, next to folding it from
//!   the genesis (its events read from sled too), and the snapshot costs behind the choice
//!   of `SNAPSHOT_EVERY`;
//! * bytes per event in the sled directory and in the `.sgr` file (printed);
//! * the golden million-event game imported, verified from the store, forked and deleted
//!   twenty times, each next to verifying its `.sgr` (printed).
//!
//! Run with `cargo bench -p sandglass-store --bench store`; BENCHMARKS.md has the figures.

use std::path::Path;
use std::time::{Duration, Instant};

use criterion::{criterion_group, criterion_main, Criterion};
use sandglass_sim::bot::Bot;
use sandglass_sim::Recording;
use sandglass_sim::{
    fold, Event, Header, Live, LiveTape, Need, Rules, RulesVersion, Ruleset, State,
};
use sandglass_store::{log, sgr, Session, Store, SNAPSHOT_EVERY};

/// Plays bot games into a store and writes every step's events again into a bare tree.
struct Writer {
    store: Store,
    session: Session,
    /// The same game without storage, to know each step's events.
    shadow: Live,
    bot: Bot,
    games: u64,
    step: Vec<Event>,
    bare_db: sled::Db,
    bare: sled::Tree,
    /// sled's log file in the bare database, to sync as the store syncs its own.
    bare_log: std::fs::File,
    bare_next: u64,
    events_written: u64,
}

impl Writer {
    fn new(log_dir: &Path, bare_dir: &Path) -> Writer {
        let store = Store::open(log_dir).unwrap();
        let (session, shadow) = Writer::game(&store, 1);
        let bare_db = sled::open(bare_dir).unwrap();
        let bare = bare_db.open_tree("steps").unwrap();
        let bare_log = std::fs::File::open(bare_dir.join("db")).unwrap();
        Writer {
            store,
            session,
            shadow,
            bot: Bot::new(1),
            games: 1,
            step: vec![],
            bare_db,
            bare,
            bare_log,
            bare_next: 0,
            events_written: 0,
        }
    }

    fn game(store: &Store, seed: u64) -> (Session, Live) {
        let header = Header::new(seed, Ruleset::NETHACK, 0);
        let session = store
            .create(&format!("bench-{seed}"), header.clone(), &mut ())
            .unwrap();
        let shadow = Live::new(
            Rules::of(&header).unwrap(),
            header.seed,
            &mut (),
            &mut vec![],
        );
        (session, shadow)
    }

    /// One command, saved by the log and then written bare, flushed, then synced:
    /// (log time, bare time to flushed, bare time to synced).
    fn step(&mut self) -> (Duration, Duration, Duration) {
        let command = loop {
            match self.bot.choose(self.session.state()) {
                Some(command) => break command,
                None => {
                    self.games += 1;
                    (self.session, self.shadow) = Writer::game(&self.store, self.games);
                    self.bot = Bot::new(self.games);
                }
            }
        };
        self.step.clear();
        self.shadow
            .command(command, &mut (), &mut self.step)
            .unwrap();
        let start = Instant::now();
        self.session.command(command, &mut ()).unwrap();
        let log = start.elapsed();
        let value = log::encode(&self.step);
        self.events_written += self.step.len() as u64;
        let start = Instant::now();
        self.bare
            .insert(self.bare_next.to_be_bytes(), value)
            .unwrap();
        self.bare_db.flush().unwrap();
        let flushed = start.elapsed();
        self.bare_log.sync_data().unwrap();
        self.bare_next += self.step.len() as u64;
        (log, flushed, start.elapsed())
    }
}

fn percentile(sorted: &[Duration], p: f64) -> Duration {
    sorted[((sorted.len() - 1) as f64 * p).round() as usize]
}

fn save_step(c: &mut Criterion) {
    let log_dir = tempfile::tempdir().unwrap();
    let bare_dir = tempfile::tempdir().unwrap();
    let mut writer = Writer::new(log_dir.path(), bare_dir.path());

    // Percentiles from one interleaved run (criterion below reports its own estimates).
    let (mut logs, mut flushes, mut bares) = (vec![], vec![], vec![]);
    for _ in 0..3_000 {
        let (log, flushed, bare) = writer.step();
        logs.push(log);
        flushes.push(flushed);
        bares.push(bare);
    }
    logs.sort();
    flushes.sort();
    bares.sort();
    let (log50, log99) = (percentile(&logs, 0.5), percentile(&logs, 0.99));
    let (flush50, flush99) = (percentile(&flushes, 0.5), percentile(&flushes, 0.99));
    let (bare50, bare99) = (percentile(&bares, 0.5), percentile(&bares, 0.99));
    println!(
        "save step, {} commands, {} events",
        logs.len(),
        writer.events_written
    );
    println!("  log  (command to synced step):   median {log50:?}, p99 {log99:?}");
    println!("  sled insert + flush:             median {flush50:?}, p99 {flush99:?}");
    println!("  bare (sled insert + flush + fdatasync): median {bare50:?}, p99 {bare99:?}");
    println!(
        "  log / bare: median {:.2}, p99 {:.2}",
        log50.as_secs_f64() / bare50.as_secs_f64(),
        log99.as_secs_f64() / bare99.as_secs_f64()
    );

    let mut group = c.benchmark_group("save step");
    group.sample_size(30);
    group.bench_function("log: command to synced step", |b| {
        b.iter_custom(|iters| (0..iters).map(|_| writer.step().0).sum())
    });
    group.bench_function("bare sled insert + flush + fdatasync", |b| {
        b.iter_custom(|iters| (0..iters).map(|_| writer.step().2).sum())
    });
    group.finish();

    let events = writer.events_written;
    drop(writer);
    println!(
        "sled directory after live play (a flush per command): {:.1} bytes per event ({} events)",
        disk_bytes(log_dir.path()) as f64 / events as f64,
        events
    );
}

/// A game that lingers on its first level, as the golden `classic-million-4` does (the
/// bot with endless patience), played until at least `events` events.
fn lingering_tape(events: u64) -> (Header, Vec<Event>) {
    let mut game = LiveTape::new(Rules::newest(Ruleset::CLASSIC), 4);
    Bot::lingering(4, u32::MAX)
        .play_until(&mut game, |state| state.events_folded() >= events)
        .unwrap();
    let tape = game.into_tape();
    assert!(
        tape.events.len() as u64 >= events,
        "the lingering game ended at {} events",
        tape.events.len()
    );
    (tape.header, tape.events)
}

/// The first command boundary at or after `at`.
fn boundary_at_or_after(header: &Header, tape: &[Event], at: usize) -> usize {
    let mut state = State::new(Rules::of(header).unwrap(), &mut ());
    for (i, &event) in tape.iter().enumerate() {
        state.feed(event, &mut ()).unwrap();
        if i + 1 >= at && state.need() != Need::Draw {
            return i + 1;
        }
    }
    tape.len()
}

fn load(c: &mut Criterion) {
    // Long enough that the newest snapshot is almost SNAPSHOT_EVERY events back (the worst
    // case for loading); its prefix up to 1,000,000 has a snapshot at its very end.
    let worst_len = 1_000_000 + SNAPSHOT_EVERY - 200;
    let (header, tape) = lingering_tape(worst_len);
    let best_len = boundary_at_or_after(&header, &tape, 1_000_000);

    let dir = tempfile::tempdir().unwrap();
    let store = Store::open(dir.path()).unwrap();
    let best_file = Recording::record(header.clone(), tape[..best_len].to_vec()).unwrap();
    let worst_file = Recording::record(header.clone(), tape).unwrap();
    let best = store.import(&best_file, "best", &mut |_, _| ()).unwrap();
    let worst = store.import(&worst_file, "worst", &mut |_, _| ()).unwrap();

    let snapshots = store.snapshots(worst.id).unwrap();
    let (newest, state) = snapshots.last().unwrap();
    println!(
        "1M game: {} events ({} commands); newest snapshot at {newest}, {} events back",
        worst.events,
        worst.commands,
        worst.events - newest
    );
    let encoded = state.encode();
    let time = |f: &mut dyn FnMut()| {
        let start = Instant::now();
        for _ in 0..100 {
            f();
        }
        start.elapsed() / 100
    };
    let encode = time(&mut || drop(std::hint::black_box(state.encode())));
    let decode = time(&mut || {
        drop(std::hint::black_box(
            State::decode(&encoded, RulesVersion::NEWEST).unwrap(),
        ))
    });
    let hash = time(&mut || {
        std::hint::black_box(state.hash());
    });
    println!(
        "snapshot: {} bytes, encode {encode:?}, decode {decode:?}, hash {hash:?}",
        encoded.len()
    );
    let events = store.events(worst.id).unwrap();
    let start = Instant::now();
    let folded = fold(Rules::of(&header).unwrap(), events.iter().copied(), &mut ()).unwrap();
    let fold_time = start.elapsed();
    assert_eq!(folded.hash(), worst.last_hash);
    println!(
        "fold in memory: {fold_time:?} for {} events, {:.0} ns per event",
        events.len(),
        fold_time.as_nanos() as f64 / events.len() as f64
    );

    let mut group = c.benchmark_group("load 1M-event game");
    group.sample_size(10);
    group.bench_function("newest snapshot, no tail", |b| {
        b.iter(|| store.load(best.id).unwrap())
    });
    group.bench_function(
        format!("newest snapshot + {} events", worst.events - newest),
        |b| b.iter(|| store.load(worst.id).unwrap()),
    );
    group.bench_function("fold from the start (events read from sled)", |b| {
        b.iter(|| {
            fold(
                Rules::of(&header).unwrap(),
                store.events(worst.id).unwrap(),
                &mut (),
            )
            .unwrap()
        })
    });
    group.finish();

    drop(store);
    let fresh = tempfile::tempdir().unwrap();
    {
        let store = Store::open(fresh.path()).unwrap();
        store.import(&worst_file, "one", &mut |_, _| ()).unwrap();
    }
    println!(
        "sled directory, one imported {}-event game: {:.1} bytes per event",
        worst.events,
        disk_bytes(fresh.path()) as f64 / worst.events as f64
    );
    let sgr_bytes = sgr::to_bytes(&worst_file).len();
    println!(
        ".sgr of the 1M game: {sgr_bytes} bytes, {:.3} bytes per event",
        sgr_bytes as f64 / worst.events as f64
    );
    sgr_of_bot_games();
}

/// The golden million-event replay of the newest rules, as its file's bytes.
fn golden_million() -> Vec<u8> {
    let newest = RulesVersion::NEWEST.number();
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join(format!("../../replays/v{newest}/classic-million-4.sgr"));
    std::fs::read(path).unwrap()
}

/// The median of `runs` timings of `job`.
fn median_of(runs: usize, mut job: impl FnMut() -> Duration) -> Duration {
    let mut times: Vec<Duration> = (0..runs).map(|_| job()).collect();
    times.sort();
    percentile(&times, 0.5)
}

fn timed(job: impl FnOnce()) -> Duration {
    let start = Instant::now();
    job();
    start.elapsed()
}

/// The golden million-event game through the store, each figure next to verifying its
/// `.sgr` in the same sitting: importing it, verifying it from the store, the bytes it
/// takes there, and what twenty save-as + delete cycles do to the directory.
fn million_through_the_store(_: &mut Criterion) {
    let bytes = golden_million();
    let verify_file = median_of(5, || {
        timed(|| {
            let file = sgr::from_bytes(&bytes).unwrap();
            file.check(&mut (), u64::MAX, |_| ()).unwrap();
        })
    });
    let file = sgr::from_bytes(&bytes).unwrap();
    let dirs: Vec<tempfile::TempDir> = (0..3).map(|_| tempfile::tempdir().unwrap()).collect();
    let mut into = dirs.iter();
    let import = median_of(dirs.len(), || {
        let dir = into.next().unwrap();
        timed(|| {
            let store = Store::open(dir.path()).unwrap();
            store.import(&file, "golden", &mut |_, _| ()).unwrap();
        })
    });
    let dir = dirs[0].path();
    let per_event = disk_bytes(dir) as f64 / file.events.len() as f64;
    let store = Store::open(dir).unwrap();
    let id = store.find("golden").unwrap().id;
    let verify_stored = median_of(5, || {
        timed(|| {
            let (recording, _) = store.recording(id, &mut |_, _| ()).unwrap();
            recording.check(&mut (), u64::MAX, |_| ()).unwrap();
        })
    });
    println!("1M golden ({} events):", file.events.len());
    println!("  verify its .sgr:       median {verify_file:?}");
    println!(
        "  import:                median {import:?} ({:.1} times the .sgr's verify)",
        import.as_secs_f64() / verify_file.as_secs_f64()
    );
    println!(
        "  verify from the store: median {verify_stored:?} ({:.1} times)",
        verify_stored.as_secs_f64() / verify_file.as_secs_f64()
    );
    println!("  in the store:          {per_event:.1} bytes per event");
    drop(store);
    let before = disk_bytes(dir);
    for cycle in 0..20 {
        let store = Store::open(dir).unwrap();
        let source = store.find("golden").unwrap();
        let name = format!("copy-{cycle}");
        let (copy, _) = store.fork(source.id, &name, source.events).unwrap();
        store.delete(copy.id).unwrap();
    }
    let after = disk_bytes(dir);
    println!(
        "  20 save-as + delete:   {before} -> {after} bytes ({:+.1}%)",
        (after as f64 / before as f64 - 1.0) * 100.0
    );
}

/// `.sgr` bytes per event over ordinary bot games, played to their end.
fn sgr_of_bot_games() {
    let (mut bytes, mut events) = (0, 0);
    for seed in 1..=20 {
        let tape = Bot::new(seed).record(Rules::newest(Ruleset::NETHACK), seed, u64::MAX);
        events += tape.events.len();
        bytes += sgr::to_bytes(&Recording::record(tape.header, tape.events).unwrap()).len();
    }
    println!(
        ".sgr of 20 whole bot games: {:.3} bytes per event ({events} events)",
        bytes as f64 / events as f64
    );
}

/// Space the directory's files take on disk (allocated blocks).
fn disk_bytes(dir: &Path) -> u64 {
    use std::os::unix::fs::MetadataExt;
    let mut total = 0;
    for entry in std::fs::read_dir(dir).unwrap() {
        let entry = entry.unwrap();
        let meta = entry.metadata().unwrap();
        total += if meta.is_dir() {
            disk_bytes(&entry.path())
        } else {
            meta.blocks() * 512
        };
    }
    total
}

criterion_group!(benches, save_step, load, million_through_the_store);
criterion_main!(benches);
