//! Crash safety: the real binary plays bot games into one data directory and is killed
//! with SIGKILL at random moments. After every kill the directory must open, every
//! acknowledged command must be in the log, the log must fold to its saved hash, and the
//! game must go on: the next round continues it (with `bot --game`) while it is alive.
//!
//! Then the same for a game of a million events being imported, forked and deleted: every
//! game left must be whole, and the one acted on there in full or not at all.
//!
//! Bounded: at most 20 kills and about 60 seconds for play. The random seed is printed;
//! set `SANDGLASS_CRASH_SEED` to replay a run.

mod common;

use std::io::{BufRead, BufReader, Read};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use std::path::Path;

use common::{games_in, sandglass, BIN};
use sandglass_sim::Event;
use sandglass_store::{sgr, GameId, Status, Store};

const KILLS: u32 = 20;
const DEADLINE: Duration = Duration::from_secs(60);

/// splitmix64: enough randomness for choosing moments, with no dependency.
struct Rng(u64);

impl Rng {
    fn below(&mut self, n: u64) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        (z ^ (z >> 31)) % n
    }
}

/// What one run of `sandglass bot` said before it ended or was killed.
#[derive(Default)]
struct Said {
    game: Option<GameId>,
    last_ack: u64,
    finished: bool,
}

impl Said {
    fn read(&mut self, line: &str) {
        if let Some(id) = line.strip_prefix("game ") {
            self.game = id.parse().ok().map(GameId);
        } else if let Some(k) = line.strip_prefix("ack ") {
            let k: u64 = k.parse().expect("ack K");
            assert!(k > self.last_ack, "acks go up");
            self.last_ack = k;
        } else if line.starts_with("hash ") {
            self.finished = true;
        }
    }
}

/// Runs `bot`, waits for `acks` acknowledgements (or the end), waits `pause` more, kills it.
/// Returns what it said, including lines still in the pipe when it died: those were
/// acknowledged too.
fn run_and_kill(args: &[String], acks: u64, pause: Duration) -> (Said, bool) {
    let mut child = Command::new(BIN)
        .args(args)
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .expect("the sandglass binary runs");
    let mut reader = BufReader::new(child.stdout.take().expect("piped stdout"));
    let mut said = Said::default();
    let mut line = String::new();
    while said.last_ack < acks && !said.finished {
        line.clear();
        if reader.read_line(&mut line).expect("stdout reads") == 0 {
            break;
        }
        said.read(line.trim_end());
    }
    // The kill falls `pause` after those acks, wherever the run then is: a point chosen
    // by the clock on purpose, not a wait for anything.
    std::thread::sleep(pause);
    let killed = child.try_wait().expect("try_wait").is_none();
    // `Child::kill` is SIGKILL on Unix: no destructor, no flush, no goodbye.
    child.kill().expect("kill");
    child.wait().expect("wait");
    let mut rest = String::new();
    reader
        .read_to_string(&mut rest)
        .expect("the rest of stdout");
    for line in rest.lines() {
        said.read(line);
    }
    (said, killed)
}

/// The run's random seed: `SANDGLASS_CRASH_SEED`, or the clock.
fn crash_seed() -> Rng {
    let seed = std::env::var("SANDGLASS_CRASH_SEED")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or_else(|| {
            std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .map_or(0, |d| d.as_nanos() as u64)
        });
    println!("crash test seed: {seed} (set SANDGLASS_CRASH_SEED={seed} to replay)");
    Rng(seed)
}

#[test]
fn killed_at_random_moments_loses_no_acknowledged_command() {
    let mut rng = crash_seed();
    let root = tempfile::tempdir().unwrap();
    let dir = root.path().join("data");
    let dir_arg = dir.to_str().unwrap().to_owned();
    let start = Instant::now();
    let (mut kills, mut continued, mut rounds) = (0, 0, 0);
    // The game the next round continues, and how many commands it is known to hold.
    let mut current: Option<(GameId, u64)> = None;
    while kills < KILLS && start.elapsed() < DEADLINE {
        rounds += 1;
        let mut args: Vec<String> = ["bot", "--data-dir", &dir_arg, "--commands", "100000"]
            .map(String::from)
            .to_vec();
        args.extend(["--seed".into(), rng.below(1_000_000).to_string()]);
        if let Some((id, _)) = current {
            args.extend(["--game".into(), id.to_string()]);
        }
        // Often a few commands in; sometimes before the first, while the store opens.
        let acks = if rng.below(4) == 0 { 0 } else { rng.below(60) };
        let pause = Duration::from_micros(rng.below(4_000));
        let (said, killed) = run_and_kill(&args, acks, pause);
        kills += u32::from(killed);

        let store = Store::open(&dir).expect("the data directory opens after a kill");
        for meta in store.games().expect("the games list") {
            let loaded = store
                .load(meta.id)
                .expect("every game folds to its saved hash");
            assert_eq!(loaded.state.hash(), meta.last_hash);
        }
        // A run killed before it announced its game promised nothing new, but a game it
        // was continuing must still hold what it held.
        let Some(id) = said.game.or(current.map(|(id, _)| id)) else {
            continue;
        };
        if let Some((continued_id, _)) = current {
            assert_eq!(id, continued_id, "`bot --game` goes on with the same game");
        }
        let meta = store.meta(id).expect("the game is stored");
        let commands = store
            .events(id)
            .expect("its events")
            .iter()
            .filter(|e| matches!(e, Event::Command(_)))
            .count() as u64;
        assert_eq!(commands, meta.commands);
        assert!(
            commands >= said.last_ack,
            "round {rounds}: command {} was acknowledged but only {commands} are stored",
            said.last_ack
        );
        if let Some((_, known)) = current {
            assert!(
                commands >= known,
                "commands were lost from an earlier round"
            );
            if said.last_ack > known {
                continued += 1;
            }
        }
        current = (meta.status == Status::Alive).then_some((id, commands));
    }
    println!(
        "{kills} kills in {rounds} rounds, {continued} continued games, {:?}",
        start.elapsed()
    );
    assert!(kills >= 5, "only {kills} kills in {:?}", start.elapsed());
    assert!(continued > 0, "no killed game was ever continued");
    // Whatever is left plays on to the end of a short run, cleanly.
    if let Some((id, _)) = current {
        let output = sandglass(
            &dir,
            &[
                "bot",
                "--seed",
                "1",
                "--commands",
                "3",
                "--game",
                &id.to_string(),
            ],
        );
        assert!(output.status.success(), "{output:?}");
    }
    games_in(&dir);
}

/// `sandglass ARGS --data-dir DIR`, killed after `pause` if it has not finished; whether it
/// was killed.
fn kill_after(dir: &Path, args: &[&str], pause: Duration) -> bool {
    let mut child = Command::new(BIN)
        .args(args)
        .arg("--data-dir")
        .arg(dir)
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .expect("the sandglass binary runs");
    // A kill point chosen by the clock on purpose, wherever the command then is.
    std::thread::sleep(pause);
    let killed = child.try_wait().expect("try_wait").is_none();
    child.kill().expect("kill");
    child.wait().expect("wait");
    killed
}

#[test]
fn killed_while_importing_forking_or_deleting_a_large_game_leaves_every_game_whole() {
    let mut rng = crash_seed();
    let root = tempfile::tempdir().unwrap();
    let dir = root.path().join("data");
    let golden = Path::new(env!("CARGO_MANIFEST_DIR")).join("../replays/v4/classic-million-4.sgr");
    let file = sgr::read(&golden).unwrap();
    let golden = golden.to_str().unwrap();
    common::bot_game(&dir, 1, 100);
    let small = games_in(&dir);
    // After every kill: every game listed is whole (`games_in` loads each one and checks
    // its hash), the small game is as it was, and a large game is the golden one in full.
    let check = |what: &str| -> Vec<String> {
        let listing = games_in(&dir);
        assert!(listing.starts_with(&small), "{what}: {listing}");
        let mut large = vec![];
        for line in listing.lines().skip(1) {
            let game: serde_json::Value = serde_json::from_str(line).unwrap();
            assert_eq!(game["events"], file.events.len() as u64, "{what}: {game}");
            assert_eq!(
                game["hash"],
                format!("0x{:016x}", file.final_hash),
                "{what}"
            );
            large.push(game["name"].as_str().unwrap().to_owned());
        }
        large
    };
    let mut kills = 0;
    // Imports take a few tenths of a second here: killed anywhere in them.
    for round in 0..6 {
        let name = format!("big-{round}");
        let pause = Duration::from_millis(rng.below(500));
        kills += u32::from(kill_after(
            &dir,
            &["import", golden, "--name", &name],
            pause,
        ));
        let large = check(&format!("import killed after {pause:?}"));
        assert!(large.iter().all(|n| n.starts_with("big-")));
    }
    let output = sandglass(&dir, &["import", golden, "--name", "big"]);
    assert!(output.status.success(), "{output:?}");
    for round in 0..4 {
        let pause = Duration::from_millis(rng.below(60));
        let copy = format!("copy-{round}");
        kills += u32::from(kill_after(&dir, &["save-as", "big", &copy], pause));
        check(&format!("save-as killed after {pause:?}"));
    }
    // In the order they were made: the game the forks read from goes before them, and
    // they must outlive it.
    for victim in check("before the deletes") {
        let pause = Duration::from_millis(rng.below(60));
        kills += u32::from(kill_after(&dir, &["delete", &victim], pause));
        check(&format!("delete of {victim} killed after {pause:?}"));
    }
    println!("{kills} kills of imports, forks and deletes");
    assert!(
        kills >= 3,
        "only {kills} of the runs were still going when killed"
    );
}
