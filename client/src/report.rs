//! The lines the binary reports on stdout, each flushed at once, for whoever drives it
//! (the end-to-end tests, scripts): `game ID hash 0xH` when a game opens, `ack K hash 0xH`
//! once its command K is on disk, `panel shown` / `panel hidden` on F1, `asleep` when
//! the window, left still, falls asleep in its event loop (`window::frames`), `hash 0xH`
//! when the game is left (game over, back to the menu, or the window closed),
//! `replay N events` when a replay opens on the scrubber, `scores shown N games P proving`
//! when the high scores open (P of them still to be folded) and `scores proved` once
//! they are; `opening shown` when the window opens on a data directory still opening (a
//! migration, a rewrite) and says how it goes, and `opened` once it is open; `share
//! WORDS` when the end screen has shared a game, or says why it did not; `daily WHY`
//! when the start screen could not start today's desert. Watching a live
//! game: `live N events` as its events come (N held in all), `live reconnecting: WHY`,
//! `live refused WHY` and, at its end, `live end OUTCOME 0xH` (the hash of its last state).

use std::io::Write;

#[cfg(not(target_arch = "wasm32"))]
use sandglass_store::GameId;

pub fn line(line: &str) {
    let mut out = std::io::stdout().lock();
    // Nobody reading stdout is no reason to stop playing.
    let _ = writeln!(out, "{line}");
    let _ = out.flush();
}

#[cfg(not(target_arch = "wasm32"))]
pub fn game(id: GameId, hash: u64) {
    line(&format!("game {id} hash 0x{hash:016x}"));
}

pub fn ack(commands: u64, hash: u64) {
    line(&format!("ack {commands} hash 0x{hash:016x}"));
}

pub fn asleep() {
    line("asleep");
}

pub fn hash(hash: u64) {
    line(&format!("hash 0x{hash:016x}"));
}

pub fn replay(events: u64) {
    line(&format!("replay {events} events"));
}
