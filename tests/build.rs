//! One test per golden replay: writes `goldens.rs` into OUT_DIR with a `#[test]` for every
//! `.sgr` file in `replays/`, so that each file passes or fails under its own name.

use std::fmt::Write as _;
use std::path::Path;

fn main() {
    let replays = Path::new(env!("CARGO_MANIFEST_DIR")).join("../replays");
    // A file added or removed changes the directory; a file re-recorded changes itself,
    // but the tests read it at run time, so that needs no rebuild.
    println!("cargo:rerun-if-changed={}", replays.display());
    let mut names: Vec<String> = std::fs::read_dir(&replays)
        .map(|listing| {
            listing
                .filter_map(|entry| entry.ok()?.file_name().into_string().ok())
                .filter(|name| name.ends_with(".sgr"))
                .collect()
        })
        .unwrap_or_default();
    names.sort();
    let mut tests = String::new();
    for name in &names {
        let stem = name.trim_end_matches(".sgr");
        let ident: String = stem
            .chars()
            .map(|c| {
                if c.is_ascii_alphanumeric() {
                    c.to_ascii_lowercase()
                } else {
                    '_'
                }
            })
            .collect();
        writeln!(
            tests,
            "#[test]\nfn golden_{ident}() {{\n    check_golden({name:?});\n}}\n"
        )
        .unwrap();
    }
    writeln!(tests, "const GOLDEN_FILES: &[&str] = &{names:?};").unwrap();
    let out = Path::new(&std::env::var("OUT_DIR").unwrap()).join("goldens.rs");
    std::fs::write(out, tests).unwrap();
}
