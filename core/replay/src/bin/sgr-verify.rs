//! `sgr-verify [--json] FILE.sgr...`: `sandglass verify` for replay files, with nothing
//! but this crate and the simulation behind it. Built for `wasm32-wasip1` and run under
//! Node's own WASI (`core/replay/wasi/run.mjs`), it shows every golden folding to the same
//! hash on wasm32 as natively; its lines are `sandglass verify`'s (`Verdict`), so the two
//! outputs are compared line by line (`tests/binary/wasm.rs`).

use std::fs;
use std::io::Write;
use std::process::ExitCode;
use std::time::Instant;

use sandglass_replay::verdict::{check, Verdict};
use sandglass_replay::{check_size, from_bytes};
use sandglass_sim::Recording;

fn main() -> ExitCode {
    let (flags, files): (Vec<String>, Vec<String>) = std::env::args()
        .skip(1)
        .partition(|arg| arg.starts_with("--"));
    let json = match flags.as_slice() {
        [] => false,
        [flag] if flag == "--json" => true,
        _ => {
            eprintln!("usage: sgr-verify [--json] FILE.sgr...");
            return ExitCode::from(2);
        }
    };
    let mut failed = 0;
    let mut out = std::io::stdout().lock();
    for name in &files {
        let start = Instant::now();
        let verdict = match read(name) {
            Ok(file) => check(&file, "the file", |_| ()),
            Err(why) => Verdict::refused(why),
        };
        let ms = start.elapsed().as_secs_f64() * 1e3;
        failed += usize::from(verdict.failed());
        let line = match json {
            true => verdict.json(name, "file"),
            false => verdict.text(name, Some(ms)),
        };
        if writeln!(out, "{line}").is_err() {
            return ExitCode::FAILURE;
        }
    }
    if failed > 0 {
        eprintln!("{failed} of {} replays failed verification", files.len());
        return ExitCode::FAILURE;
    }
    ExitCode::SUCCESS
}

/// The file at `path`, held to the size limit before it is read, refused in the words
/// `sandglass verify` uses (`sandglass_store::ReplayFileError`, which this program cannot
/// link: the store needs sled). Only a regular file is read; under WASI the preopened
/// directory is all the program sees.
fn read(path: &str) -> Result<Recording, String> {
    let unreadable = |error: std::io::Error| match error.kind() {
        std::io::ErrorKind::NotFound => "there is no file at that path".to_owned(),
        _ => format!("cannot read it: {error}"),
    };
    let meta = fs::metadata(path).map_err(unreadable)?;
    if !meta.is_file() {
        return Err("it is not a regular file (a directory, a device or a pipe)".to_owned());
    }
    check_size(meta.len()).map_err(|e| e.to_string())?;
    let bytes = fs::read(path).map_err(unreadable)?;
    from_bytes(&bytes).map_err(|e| e.to_string())
}
