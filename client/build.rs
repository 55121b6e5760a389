//! Which of the tools the binary's end-to-end tests drive are missing here, as `cfg`s the
//! tests mark themselves ignored by (`#[cfg_attr(lacks_xvfb, ignore = "...")]`), so that a
//! test skipped for a missing tool says "ignored, skipped: ..." in the test summary
//! instead of passing silently. Under CI (`CI` set) nothing is marked: `.ci/run` installs
//! every tool, and a test whose tool is missing there fails, saying so.
//!
//! A tool installed later changes a folder on `PATH`, which reruns this script.

use std::path::{Path, PathBuf};

/// Each `cfg` and the programs it stands for.
const TOOLS: [(&str, &[&str]); 5] = [
    ("lacks_xvfb", &["Xvfb", "xdotool", "import"]),
    ("lacks_chromium", &["chromium"]),
    ("lacks_strace", &["strace"]),
    ("lacks_fiu", &["fiu-run"]),
    ("lacks_node", &["node"]),
];

fn main() {
    println!("cargo:rerun-if-env-changed=CI");
    println!("cargo:rerun-if-env-changed=PATH");
    let path: Vec<PathBuf> = std::env::var_os("PATH")
        .map(|path| std::env::split_paths(&path).collect())
        .unwrap_or_default();
    for dir in path.iter().filter(|dir| dir.is_dir()) {
        println!("cargo:rerun-if-changed={}", dir.display());
    }
    let ci = std::env::var_os("CI").is_some();
    for (cfg, programs) in TOOLS {
        println!("cargo:rustc-check-cfg=cfg({cfg})");
        let lacks = programs.iter().any(|program| !on(&path, program));
        if lacks && !ci {
            println!("cargo:rustc-cfg={cfg}");
        }
    }
}

/// Whether `program` is a file in one of the `path` folders.
fn on(path: &[PathBuf], program: &str) -> bool {
    path.iter()
        .any(|dir| Path::new(dir).join(program).is_file())
}
