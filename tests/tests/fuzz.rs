//! What the fuzzer found, kept: every input under `tests/fixtures/fuzz/<target>/` goes
//! through the same call as its fuzz target (`fuzz/src/lib.rs`, included here so the two
//! cannot drift apart) and must come back without a panic. The inputs are any crash the
//! fuzzer found, minimised (none so far), and its minimised corpus (`cargo fuzz cmin`):
//! whole for `log`, `record` and `snapshot`, and its smallest inputs up to 1.5 MB for
//! `state` and `sgr`, whose corpora run to tens of megabytes. So a change that makes any
//! of them fail is caught by `cargo test`, without a nightly toolchain.

// The fuzz targets' own helpers (the seeder's `snapshot_input`) are not called here.
#[allow(dead_code)]
#[path = "../../fuzz/src/lib.rs"]
mod targets;

use std::fs;
use std::path::Path;

/// Feeds every kept input of `target` to `call`, and says how many there were: a target
/// with no kept inputs is a fixture gone missing, not a pass.
fn replay(target: &str, call: fn(&[u8])) {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("fixtures/fuzz")
        .join(target);
    let mut inputs: Vec<_> = fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .map(|entry| entry.unwrap().path())
        .collect();
    inputs.sort();
    assert!(!inputs.is_empty(), "no inputs kept in {}", dir.display());
    for input in &inputs {
        let bytes = fs::read(input).unwrap();
        // The name of the input goes with any panic, through the test's output.
        eprintln!("{}", input.display());
        call(&bytes);
    }
}

#[test]
fn replay_files() {
    replay("sgr", targets::sgr);
}

#[test]
fn snapshots() {
    replay("snapshot", targets::snapshot);
}

#[test]
fn states() {
    replay("state", targets::state);
}

#[test]
fn records() {
    replay("record", targets::record);
}

#[test]
fn log_steps() {
    replay("log", targets::log);
}
