//! The same hash on wasm32: every golden replay of every kept rules version, verified by
//! `sgr-verify` built for `wasm32-wasip1` and run under Node's own WASI
//! (`core/replay/wasi/run.mjs`), must give `sandglass verify --json`'s lines, one for one.
//!
//! The wasm build goes to a target directory of its own (`target/wasi`): the `cargo test`
//! running this holds the lock on the usual one. Without Node or the target this test says
//! so and passes, except in CI (`CI` set), where `.ci/run` installs both and a missing
//! one is a failure.

mod common;

use std::path::{Path, PathBuf};
use std::process::Command;

use common::{stdout, BIN};
use sandglass_sim::rules;

fn workspace() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

/// The goldens, as paths relative to `replays/`, where both builds are run.
fn goldens() -> Vec<String> {
    let mut files = vec![];
    for version in rules::KEPT {
        let folder = format!("v{version}");
        for entry in std::fs::read_dir(workspace().join("replays").join(&folder)).unwrap() {
            let name = entry.unwrap().file_name().to_string_lossy().into_owned();
            if name.ends_with(".sgr") {
                files.push(format!("{folder}/{name}"));
            }
        }
    }
    files.sort();
    files
}

/// Says why the test cannot run here; a failure in CI, where nothing may be missing.
fn missing(what: &str) {
    let message = format!("{what}; .ci/run installs it. The wasm32 verify was not run.");
    assert!(std::env::var_os("CI").is_none(), "{message}");
    eprintln!("SKIPPED: {message}");
}

/// `sgr-verify` for `wasm32-wasip1`, built now; `None` if the target is not installed.
fn build_wasi_verify() -> Option<PathBuf> {
    let target_dir = workspace().join("target/wasi");
    let cargo = std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into());
    let built = Command::new(cargo)
        .current_dir(workspace())
        .args(["build", "--release", "--target", "wasm32-wasip1"])
        .args(["-p", "sandglass-replay", "--bin", "sgr-verify"])
        .env("CARGO_TARGET_DIR", &target_dir)
        .output()
        .expect("cargo runs");
    let stderr = String::from_utf8_lossy(&built.stderr);
    if !built.status.success() {
        if stderr.contains("target may not be installed") {
            missing("the wasm32-wasip1 target is not installed (rustup target add wasm32-wasip1)");
            return None;
        }
        panic!("the wasm32-wasip1 build failed:\n{stderr}");
    }
    Some(target_dir.join("wasm32-wasip1/release/sgr-verify.wasm"))
}

#[test]
fn every_golden_verifies_to_the_same_hash_on_wasm32_as_natively() {
    if Command::new("node").arg("--version").output().is_err() {
        missing("Node (Debian's nodejs) is not installed");
        return;
    }
    let Some(wasm) = build_wasi_verify() else {
        return;
    };
    let files = goldens();
    let replays = workspace().join("replays");
    let native = Command::new(BIN)
        .current_dir(&replays)
        .args(["verify", "--json"])
        .args(&files)
        .output()
        .unwrap();
    let runner = workspace().join("core/replay/wasi/run.mjs");
    let wasi = Command::new("node")
        .current_dir(&replays)
        .arg(runner)
        .arg(&wasm)
        .arg("--json")
        .args(&files)
        .output()
        .unwrap();
    assert!(
        native.status.success() && wasi.status.success(),
        "native: {}\nwasm32: {}",
        String::from_utf8_lossy(&native.stderr),
        String::from_utf8_lossy(&wasi.stderr)
    );
    let (native, wasi) = (stdout(&native), stdout(&wasi));
    assert_eq!(native.lines().count(), files.len(), "{native}");
    for (file, (n, w)) in files.iter().zip(native.lines().zip(wasi.lines())) {
        assert!(n.contains(r#""ok":true"#), "{n}");
        assert_eq!(n, w, "{file}: native and wasm32 differ");
    }
    assert_eq!(wasi.lines().count(), files.len(), "{wasi}");
}
