//! `cargo xtask bench-history`: a data directory holding a long history of finished games,
//! and what the commands that go over all of it cost there, for BENCHMARKS.md ("A lifetime
//! of games"). The games are short (the bot plays a few commands, then quits) so that ten
//! thousand of them build in minutes; what is measured grows with their count.
//!
//! As the games are stored, the disk the directory takes is measured at 1,000, 5,000 and
//! 10,000 games (beside the bytes of the same games as `.sgr` files), with the time each
//! game took to store; at the end, all but a tenth of the games are deleted and the disk
//! measured again. Only the library's public calls are used, so that the same tool builds
//! against an older store for a comparison in one sitting.
//!
//! The release binary (`target/release/sandglass`) is timed as a player runs it, each
//! command several times, the median reported; its peak memory is read by
//! `/usr/bin/time`. What the window does on the UI thread when High scores or Load is
//! chosen is timed in this process, through the same library calls.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::atomic::AtomicBool;
use std::time::{Duration, Instant};

use anyhow::{bail, Context};
use sandglass::cli::scores;
use sandglass_sim::bot::Bot;
use sandglass_sim::{Command as GameCommand, LiveTape, Recording, Rules, Ruleset};
use sandglass_store::{sgr, GameId, Store, Verdict};

/// How many times each figure is measured; the median is reported.
const RUNS: usize = 5;

/// The counts of games at which the disk is measured while they are stored.
const CHECKPOINTS: [u64; 3] = [1_000, 5_000, 10_000];

pub fn run(games: u64, commands: u64, dir: Option<PathBuf>) -> anyhow::Result<()> {
    let bin = binary()?;
    let scratch = tempfile::tempdir()?;
    let dir = dir.unwrap_or_else(|| scratch.path().join("data"));
    let data = ["--data-dir", dir.to_str().context("a data dir in UTF-8")?];
    if dir.exists() {
        // Kept from an earlier run: its verdicts are brought up to this build first.
        println!("reusing the games in {}", dir.display());
        timed(&bin, &[&data[..], &["scores"]].concat(), &[])?;
    } else {
        let built = Instant::now();
        let events = build(&dir, games, commands)?;
        let (open, _) = median_of(|| drop(Store::open(&dir).expect("the store opens")));
        println!("Store::open: {open:.1?}");
        println!(
            "built {games} finished games of {commands} commands then quit ({:.0} events a game) in {:.0} s",
            events as f64 / games as f64,
            built.elapsed().as_secs_f64()
        );
    }
    let bytes = disk_bytes(&dir)?;
    println!(
        "disk: {bytes} bytes, {} bytes a finished game",
        bytes / games
    );

    let store = Store::open(&dir)?;
    let (open, rows) = median_of(|| {
        let stored = scores::stored(&store).expect("the table reads");
        stored.entries.len()
    });
    println!("High scores opens (verdicts stored, UI thread): {open:.1?} for {rows} games");
    let (checked, doubted) = median_of(|| {
        let stored = scores::stored(&store).expect("the table reads");
        let stop = AtomicBool::new(false);
        scores::doubted(&store, &stored.claims, &stop, &|_| ()).len()
    });
    println!(
        "High scores with every log read against its verdict (worker thread): {checked:.1?}, {doubted} doubted"
    );
    let (load, _) = median_of(|| {
        let mut games = store.games().expect("the games list");
        games.sort_by_key(|m| std::cmp::Reverse((m.last_played, m.id)));
        games.len()
    });
    println!("Load list opens (UI thread): {load:.1?}");
    drop(store);

    report(
        &bin,
        "scores (verdicts stored)",
        &[&data[..], &["scores"]].concat(),
        &[],
    )?;
    report(&bin, "saves", &[&data[..], &["saves"]].concat(), &[])?;
    let mut none = vec![];
    for _ in 0..3 {
        forget_verdicts(&dir)?;
        none.push(timed(&bin, &[&data[..], &["scores"]].concat(), &[])?);
    }
    print_runs(
        "scores (no verdicts stored: every game folded, then remembered)",
        none,
    );

    let names: Vec<String> = (0..games).map(name).collect();
    let verify: Vec<&str> = [&data[..], &["verify"]]
        .concat()
        .into_iter()
        .chain(names.iter().map(String::as_str))
        .collect();
    let mut one = vec![];
    let mut all = vec![];
    for _ in 0..3 {
        one.push(timed(&bin, &verify, &[("RAYON_NUM_THREADS", "1")])?);
        all.push(timed(&bin, &verify, &[])?);
    }
    let (one_s, all_s) = (median(&one).0, median(&all).0);
    print_runs("verify of every game, one core", one);
    print_runs(
        &format!(
            "verify of every game, {} cores",
            std::thread::available_parallelism()?
        ),
        all,
    );
    println!(
        "verify speed-up: {:.2}x",
        one_s.as_secs_f64() / all_s.as_secs_f64()
    );
    delete_most(&dir, games)
}

/// Deletes all but the last tenth of the games, oldest first, and says what the disk
/// holds then, once the store is opened again (which gives the room of the deleted games
/// back), and after as many writes again (new games, deleted at once) and another open.
fn delete_most(dir: &Path, games: u64) -> anyhow::Result<()> {
    let (before, _) = median_of(|| drop(Store::open(dir).expect("the store opens")));
    let store = Store::open(dir)?;
    let kept = games / 10;
    let started = Instant::now();
    let mut left = store.games()?.into_iter().take((games - kept) as usize);
    // A tenth first: what they free is past the floor of a rewrite but under what the
    // store holds, so every open reads every key to weigh it.
    for meta in left.by_ref().take((games / 10) as usize) {
        store.delete(meta.id)?;
    }
    drop(store);
    let (weighed, _) = median_of(|| drop(Store::open(dir).expect("the store opens")));
    println!(
        "Store::open: {before:.1?}; with a tenth of the games deleted (every key weighed): {weighed:.1?}"
    );
    let store = Store::open(dir)?;
    for meta in left {
        store.delete(meta.id)?;
    }
    let deleted = started.elapsed();
    drop(store);
    let bytes = disk_bytes(dir)?;
    println!(
        "deleted {} games in {:.1} s: disk {bytes} bytes, {} bytes a game kept",
        games - kept,
        deleted.as_secs_f64(),
        bytes / kept.max(1)
    );
    let started = Instant::now();
    let store = Store::open(dir)?;
    println!(
        "opened again in {:.2} s: disk {} bytes",
        started.elapsed().as_secs_f64(),
        disk_bytes(dir)?
    );
    let mut game = LiveTape::new(Rules::newest(Ruleset::NETHACK), 0);
    game.command(GameCommand::Quit, &mut ())?;
    let tape = game.into_tape();
    for round in 1..=10 {
        for _ in 0..kept / 10 {
            let meta =
                store.create_from_tape("churn", &tape.header, &tape.events, &mut |_, _| ())?;
            store.delete(meta.id)?;
        }
        println!(
            "then {} games made and deleted: disk {} bytes",
            round * (kept / 10),
            disk_bytes(dir)?
        );
    }
    drop(store);
    drop(Store::open(dir)?);
    println!("opened again: disk {} bytes", disk_bytes(dir)?);
    Ok(())
}

fn name(i: u64) -> String {
    format!("g{i}")
}

/// Stores `games` finished bot games of `commands` commands each (quit after them, if
/// still alive), through the library as an import does (which proves and stores each
/// verdict). Returns the events stored. Says, at each of `CHECKPOINTS`, the disk the
/// directory takes against the games' `.sgr` files, and at the end how long storing a
/// game took at the 10th and at the last.
fn build(dir: &Path, games: u64, commands: u64) -> anyhow::Result<u64> {
    let store = Store::open(dir)?;
    let mut events = 0;
    let mut sgr_bytes = 0;
    let mut took = vec![];
    for i in 0..games {
        let mut game = LiveTape::new(Rules::newest(Ruleset::NETHACK), i);
        Bot::new(i).play(&mut game, commands)?;
        if game.state().outcome().is_none() {
            game.command(GameCommand::Quit, &mut ())?;
        }
        let tape = game.into_tape();
        events += tape.events.len() as u64;
        let file = Recording::record(tape.header.clone(), tape.events.clone())?;
        sgr_bytes += sgr::to_bytes(&file).len() as u64;
        let started = Instant::now();
        store.create_from_tape(&name(i), &tape.header, &tape.events, &mut |_, _| ())?;
        took.push(started.elapsed());
        let stored = i + 1;
        if CHECKPOINTS.contains(&stored) || stored == games {
            let bytes = disk_bytes(dir)?;
            println!(
                "{stored} games: disk {bytes} bytes, {} a game; their .sgr files {} a game",
                bytes / stored,
                sgr_bytes / stored
            );
        }
    }
    // Each the median of eleven, for one store is at the mercy of the disk.
    let around = |at: usize| {
        let from = at.saturating_sub(6).min(took.len().saturating_sub(11));
        let mut some: Vec<Duration> = took.iter().skip(from).take(11).copied().collect();
        some.sort();
        some.get(some.len() / 2).copied().unwrap_or_default()
    };
    let (tenth, last) = (around(10), around(took.len()));
    println!(
        "storing a game: {tenth:.2?} at the 10th, {last:.2?} at the {games}th ({:.2}x)",
        last.as_secs_f64() / tenth.as_secs_f64().max(1e-9)
    );
    Ok(events)
}

/// Drops every stored verdict, as a data directory of an older build has none.
fn forget_verdicts(dir: &Path) -> anyhow::Result<()> {
    let store = Store::open(dir)?;
    let ids: Vec<(GameId, Option<Verdict>)> =
        store.games()?.into_iter().map(|m| (m.id, None)).collect();
    store.remember(&ids)?;
    Ok(())
}

/// The bytes the data directory takes on disk (blocks allocated, not lengths).
fn disk_bytes(dir: &Path) -> anyhow::Result<u64> {
    use std::os::unix::fs::MetadataExt;
    let mut total = 0;
    for entry in std::fs::read_dir(dir)? {
        let entry = entry?;
        let meta = entry.metadata()?;
        total += match meta.is_dir() {
            true => disk_bytes(&entry.path())?,
            false => meta.blocks() * 512,
        };
    }
    Ok(total)
}

/// One run of the binary: its wall time and peak memory (KiB).
fn timed(bin: &Path, args: &[&str], env: &[(&str, &str)]) -> anyhow::Result<(Duration, u64)> {
    let out = tempfile::NamedTempFile::new()?;
    let start = Instant::now();
    let status = Command::new("/usr/bin/time")
        .args(["-f", "%M", "-o"])
        .arg(out.path())
        .arg(bin)
        .args(args)
        .envs(env.iter().copied())
        .stdout(std::process::Stdio::null())
        .status()
        .context("cannot run /usr/bin/time (Debian: apt-get install time)")?;
    let wall = start.elapsed();
    if !status.success() {
        bail!("sandglass {args:?} failed: {status}");
    }
    let text = std::fs::read_to_string(out.path())?;
    let kib = text.trim().lines().last().unwrap_or("").parse()?;
    Ok((wall, kib))
}

fn report(bin: &Path, what: &str, args: &[&str], env: &[(&str, &str)]) -> anyhow::Result<()> {
    let runs = (0..RUNS)
        .map(|_| timed(bin, args, env))
        .collect::<anyhow::Result<Vec<_>>>()?;
    print_runs(what, runs);
    Ok(())
}

fn median(runs: &[(Duration, u64)]) -> (Duration, u64) {
    let mut times: Vec<Duration> = runs.iter().map(|r| r.0).collect();
    let mut peaks: Vec<u64> = runs.iter().map(|r| r.1).collect();
    times.sort();
    peaks.sort();
    (times[times.len() / 2], peaks[peaks.len() / 2])
}

fn print_runs(what: &str, runs: Vec<(Duration, u64)>) {
    let (time, kib) = median(&runs);
    let all: Vec<String> = runs
        .iter()
        .map(|r| format!("{:.2}", r.0.as_secs_f64()))
        .collect();
    println!(
        "{what}: median {:.3} s (runs {} s), peak memory {:.1} MB",
        time.as_secs_f64(),
        all.join(", "),
        kib as f64 / 1024.0
    );
}

/// The median time of `RUNS` runs of `f`, and what the last returned.
fn median_of<T>(mut f: impl FnMut() -> T) -> (Duration, T) {
    let mut times = vec![];
    let mut last = None;
    for _ in 0..RUNS {
        let start = Instant::now();
        last = Some(f());
        times.push(start.elapsed());
    }
    times.sort();
    (times[RUNS / 2], last.expect("RUNS > 0"))
}

/// The release binary, built by `cargo build --release` beside this tool.
fn binary() -> anyhow::Result<PathBuf> {
    let exe = std::env::current_exe()?;
    let bin = exe
        .parent()
        .context("the tool lies in a folder")?
        .join("sandglass");
    if !bin.exists() {
        bail!(
            "{} is missing: run `cargo build --release` first",
            bin.display()
        );
    }
    Ok(bin)
}
