//! A power cut, simulated: the bot plays on a disk that keeps only what was synced
//! (`powerfs`), and the power goes at a random moment, at least 50 times a run, some
//! during a game's first commands. Each time the power comes back, the store opens on
//! what survived, and every command the bot acknowledged before the cut is there, the
//! game verifies, and every other game is as it was. A disk that says it synced and did
//! not shows that the check sees a loss.

mod common;
mod powerfs;

use std::io::{BufRead, BufReader};
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::sync::mpsc;
use std::time::{Duration, Instant};

use common::{games, sandglass, saves, summary, BIN};
use powerfs::PowerDisk;

/// Cuts per run.
const CUTS: u64 = 50;

/// The bot, started on `args`, its stdout read line by line on a thread of its own.
fn start_bot(dir: &Path, args: &[&str]) -> (Child, mpsc::Receiver<String>) {
    let mut child = Command::new(BIN)
        .arg("bot")
        .args(args)
        .args(["--data-dir", dir.to_str().unwrap()])
        .stdout(Stdio::piped())
        .stderr(Stdio::inherit())
        .spawn()
        .unwrap();
    let out = child.stdout.take().unwrap();
    let (send, lines) = mpsc::channel();
    std::thread::spawn(move || {
        for line in BufReader::new(out).lines().map_while(Result::ok) {
            if send.send(line).is_err() {
                break;
            }
        }
    });
    (child, lines)
}

/// The game the bot played and the last command it acknowledged, from all it printed.
fn acknowledged(lines: impl IntoIterator<Item = String>) -> (Option<u64>, Option<u64>) {
    let (mut game, mut acked) = (None, None);
    for line in lines {
        if let Some(id) = line.strip_prefix("game ") {
            game = id.parse().ok();
        }
        if let Some(k) = line.strip_prefix("ack ") {
            acked = k.parse().ok();
        }
    }
    (game, acked)
}

/// After the power came back: every game in `kept` is as it was, and game `played` (by
/// number) holds at least `acked` commands and verifies. Returns the games as they are.
fn check(
    dir: &Path,
    kept: &[(String, u64, String)],
    played: Option<u64>,
    acked: Option<u64>,
) -> Result<Vec<(String, u64, String)>, String> {
    let listed = saves(dir)?;
    let now = summary(&listed);
    let name = played.and_then(|id| {
        let game = listed.iter().find(|g| g["id"] == id)?;
        Some(game["name"].as_str()?.to_owned())
    });
    for game in kept.iter().filter(|g| Some(&g.0) != name.as_ref()) {
        if !now.contains(game) {
            return Err(format!("{} changed or went: {now:?}", game.0));
        }
    }
    if let Some(acked) = acked {
        let Some(name) = name else {
            return Err(format!(
                "game {played:?} acknowledged {acked} commands and is gone"
            ));
        };
        let commands = now.iter().find(|g| g.0 == name).map_or(0, |g| g.1);
        if commands < acked {
            return Err(format!(
                "{name} holds {commands} commands of {acked} acknowledged"
            ));
        }
        let verified = sandglass(dir, &["verify", &name]);
        if !verified.status.success() {
            return Err(format!("{name} does not verify: {verified:?}"));
        }
    }
    Ok(now)
}

/// Whether game `id` is still being played.
fn is_alive(dir: &Path, id: u64) -> bool {
    saves(dir).is_ok_and(|games| {
        games
            .iter()
            .any(|g| g["id"] == id && g["status"] == "alive")
    })
}

/// A small deterministic generator for the moments of the cuts.
fn next(state: &mut u64) -> u64 {
    *state ^= *state << 13;
    *state ^= *state >> 7;
    *state ^= *state << 17;
    *state
}

/// When the power goes, counted from the bot's start.
#[derive(Clone, Copy, Debug)]
enum Moment {
    /// This long after it starts: perhaps while it opens the store or makes its game.
    AfterStart(Duration),
    /// This long after its first acknowledged command, however long a loaded machine
    /// takes to get there: in the middle of play.
    AfterAck(Duration),
}

/// One cycle: the bot plays (on a game, or a new one), the power goes at `moment`, the
/// bot is killed, the power comes back. Returns the game played and its last ack.
fn cycle(
    disk: &PowerDisk,
    dir: &Path,
    args: &[&str],
    moment: Moment,
) -> (Option<u64>, Option<u64>) {
    let (mut bot, lines) = start_bot(dir, args);
    let mut said = vec![];
    let after = match moment {
        Moment::AfterStart(after) => after,
        Moment::AfterAck(after) => {
            let patience = Instant::now() + Duration::from_secs(20);
            while let Ok(line) =
                lines.recv_timeout(patience.saturating_duration_since(Instant::now()))
            {
                let ack = line.starts_with("ack ");
                said.push(line);
                if ack {
                    break;
                }
            }
            after
        }
    };
    // The cut falls `after` on: a point chosen by the clock on purpose, not a wait.
    std::thread::sleep(after);
    disk.cut();
    let _ = bot.kill();
    let _ = bot.wait();
    said.extend(lines.iter());
    disk.power_on();
    acknowledged(said)
}

#[test]
fn a_power_cut_loses_no_acknowledged_command_and_no_other_game() {
    let root = tempfile::tempdir().unwrap();
    let mountpoint = root.path().join("disk");
    std::fs::create_dir_all(&mountpoint).unwrap();
    let disk = PowerDisk::new();
    let session = match disk.mount(&mountpoint) {
        Ok(session) => session,
        Err(e) if std::env::var_os("CI").is_none() => {
            eprintln!(
                "skipped: cannot mount a FUSE filesystem here ({e}); install fuse3, run as root"
            );
            return;
        }
        Err(e) => panic!("cannot mount the power-cut disk ({e}): .ci/run installs fuse3"),
    };
    let dir = mountpoint.join("data");
    for seed in 1..=2 {
        let output = sandglass(
            &dir,
            &["bot", "--seed", &seed.to_string(), "--commands", "40"],
        );
        assert!(output.status.success(), "{output:?}");
    }
    let mut kept = games(&dir).unwrap();
    assert_eq!(kept.len(), 2);

    let mut rng = 0x5eed_cafe_u64;
    let mut failures = vec![];
    let (mut current, mut acknowledged_cuts) = (None, 0);
    for cut in 0..CUTS {
        // A cut lands in the middle of play: the bot goes on with the game of the last
        // cut while it is alive, the power going soon after its first acknowledged
        // command; every fourth time it starts a game, cut in its first moments.
        let seed = (100 + cut).to_string();
        let alive = current.filter(|&id| cut % 4 != 0 && is_alive(&dir, id));
        let id = alive.map(|id: u64| id.to_string());
        let mut args = vec!["--seed", &seed, "--commands", "100000"];
        if let Some(id) = &id {
            args.extend(["--game", id.as_str()]);
        }
        let moment = match alive {
            Some(_) => Moment::AfterAck(Duration::from_millis(next(&mut rng) % 60)),
            None => Moment::AfterStart(Duration::from_millis(5 + next(&mut rng) % 150)),
        };
        let (game, acked) = cycle(&disk, &dir, &args, moment);
        let game = alive.or(game);
        acknowledged_cuts += u64::from(acked.is_some());
        match check(&dir, &kept, game, acked) {
            Ok(now) => kept = now,
            Err(why) => failures.push(format!("cut {cut} at {moment:?}: {why}")),
        }
        current = game;
    }
    assert!(
        failures.is_empty(),
        "{} of {CUTS} cuts:\n{}",
        failures.len(),
        failures.join("\n")
    );
    assert!(
        acknowledged_cuts >= CUTS / 2,
        "only {acknowledged_cuts} of {CUTS} cuts came after an acknowledged command"
    );

    // The check can fail: on a disk that only says it synced, a cut loses what was
    // acknowledged.
    disk.lie();
    let (_, acked) = cycle(
        &disk,
        &dir,
        &["--seed", "7", "--commands", "100000", "--game", "bot-1"],
        Moment::AfterAck(Duration::from_millis(50)),
    );
    assert!(
        acked.is_some(),
        "the bot acknowledged commands before the cut"
    );
    let caught = check(&dir, &kept, Some(1), acked).unwrap_err();
    assert!(!caught.is_empty());
    drop(session);
}
