//! The same hash on wasm32: every golden replay of every kept rules version, verified by
//! `sgr-verify` built for `wasm32-wasip1` and run under Node's own WASI
//! (`core/replay/wasi/run.mjs`), must give `sandglass verify --json`'s lines, one for one;
//! and so must damaged files, refused in the same words at the same event.
//!
//! The wasm build goes to a target directory of its own (`target/wasi`): the `cargo test`
//! running this holds the lock on the usual one. Without Node or the target this test says
//! so and passes, except in CI (`CI` set), where `.ci/run` installs both and a missing
//! one is a failure.

mod common;

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use common::{stdout, BIN};
use sandglass_sim::{rules, Event};
use sandglass_store::sgr;

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

/// `sandglass verify --json FILES` and `sgr-verify --json FILES` under Node, both run in
/// `dir` (the WASI program's preopened `.`).
fn both(dir: &Path, wasm: &Path, files: &[String]) -> (Output, Output) {
    let native = Command::new(BIN)
        .current_dir(dir)
        .args(["verify", "--json"])
        .args(files)
        .output()
        .unwrap();
    let wasi = Command::new("node")
        .current_dir(dir)
        .arg(workspace().join("core/replay/wasi/run.mjs"))
        .arg(wasm)
        .arg("--json")
        .args(files)
        .output()
        .unwrap();
    (native, wasi)
}

/// Both outputs, one line per file, equal line by line; returns the native lines.
fn same_lines(files: &[String], native: &Output, wasi: &Output) -> Vec<String> {
    let (native, wasi) = (stdout(native), stdout(wasi));
    let lines: Vec<String> = native.lines().map(str::to_owned).collect();
    assert_eq!(lines.len(), files.len(), "{native}");
    assert_eq!(wasi.lines().count(), files.len(), "{wasi}");
    for (file, (n, w)) in files.iter().zip(native.lines().zip(wasi.lines())) {
        assert_eq!(n, w, "{file}: native and wasm32 differ");
    }
    lines
}

#[cfg_attr(
    lacks_node,
    ignore = "skipped: Node is not installed (.ci/run installs nodejs)"
)]
#[test]
fn every_golden_verifies_to_the_same_hash_on_wasm32_as_natively_and_damage_gets_the_same_words() {
    if Command::new("node").arg("--version").output().is_err() {
        missing("Node (Debian's nodejs) is not installed");
        return;
    }
    let Some(wasm) = build_wasi_verify() else {
        return;
    };
    let files = goldens();
    let (native, wasi) = both(&workspace().join("replays"), &wasm, &files);
    assert!(
        native.status.success() && wasi.status.success(),
        "native: {}\nwasm32: {}",
        String::from_utf8_lossy(&native.stderr),
        String::from_utf8_lossy(&wasi.stderr)
    );
    for line in same_lines(&files, &native, &wasi) {
        assert!(line.contains(r#""ok":true"#), "{line}");
    }

    // Damaged copies of a golden: each refused, by both, in the same words.
    let dir = tempfile::tempdir().unwrap();
    let golden = workspace().join("replays/v6/classic-short-2.sgr");
    let bytes = std::fs::read(&golden).unwrap();
    let mut flipped = bytes.clone();
    flipped[bytes.len() / 2] ^= 0x10;
    let mut changed = sgr::read(&golden).unwrap();
    let last = changed.events.len() - 1;
    if let Event::Draw(draw) = &mut changed.events[last] {
        *draw ^= 1;
    }
    let damaged: [(&str, Vec<u8>); 5] = [
        ("empty.sgr", vec![]),
        ("truncated.sgr", bytes[..bytes.len() - 5].to_vec()),
        ("flipped.sgr", flipped),
        ("foreign.sgr", b"not a replay at all".to_vec()),
        ("desync.sgr", sgr::to_bytes(&changed)),
    ];
    let mut files = vec![];
    for (name, bytes) in damaged {
        std::fs::write(dir.path().join(name), bytes).unwrap();
        files.push(name.to_owned());
    }
    files.push("gone.sgr".to_owned());
    let (native, wasi) = both(dir.path(), &wasm, &files);
    assert!(!native.status.success() && !wasi.status.success());
    for line in same_lines(&files, &native, &wasi) {
        assert!(line.contains(r#""ok":false"#), "{line}");
    }
}
