//! One test per golden replay: writes `goldens.rs` into OUT_DIR with a `#[test]` for every
//! `.sgr` file in `replays/v<N>/`, one folder per kept rules version, so that each file
//! passes or fails under its own name.

use std::fmt::Write as _;
use std::path::Path;

fn main() {
    let replays = Path::new(env!("CARGO_MANIFEST_DIR")).join("../replays");
    // A file added or removed changes its folder; a file changed changes itself, but the
    // tests read it at run time (and its manifest says it may not change), so that needs
    // no rebuild.
    println!("cargo:rerun-if-changed={}", replays.display());
    let mut files: Vec<String> = vec![];
    for version in listing(&replays).filter(|name| name.starts_with('v')) {
        let folder = replays.join(&version);
        println!("cargo:rerun-if-changed={}", folder.display());
        for name in listing(&folder).filter(|name| name.ends_with(".sgr")) {
            files.push(format!("{version}/{name}"));
        }
    }
    files.sort();
    let mut tests = String::new();
    for file in &files {
        let ident: String = file
            .trim_end_matches(".sgr")
            .chars()
            .map(|c| match c.is_ascii_alphanumeric() {
                true => c.to_ascii_lowercase(),
                false => '_',
            })
            .collect();
        writeln!(
            tests,
            "#[test]\nfn golden_{ident}() {{\n    check_golden({file:?});\n}}\n"
        )
        .unwrap();
    }
    writeln!(tests, "const GOLDEN_FILES: &[&str] = &{files:?};").unwrap();
    let out = Path::new(&std::env::var("OUT_DIR").unwrap()).join("goldens.rs");
    std::fs::write(out, tests).unwrap();
}

/// The names in a folder, none if it cannot be read.
fn listing(dir: &Path) -> impl Iterator<Item = String> {
    std::fs::read_dir(dir)
        .into_iter()
        .flatten()
        .filter_map(|entry| entry.ok()?.file_name().into_string().ok())
}
