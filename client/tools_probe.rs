// Shared by the client's and the server's build scripts (`include!`d by both): which of
// the tools the end-to-end tests drive are missing here.

use std::path::{Path, PathBuf};

/// Each `cfg` and the programs it stands for.
const TOOLS: [(&str, &[&str]); 5] = [
    ("lacks_xvfb", &["Xvfb", "xdotool", "import"]),
    ("lacks_chromium", &["chromium"]),
    ("lacks_strace", &["strace"]),
    ("lacks_fiu", &["fiu-run"]),
    ("lacks_node", &["node"]),
];

/// Marks each missing tool's `cfg` (outside CI), and reruns the script as `PATH` or
/// its folders change.
fn mark_missing_tools() {
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
