//! The command line as scripts see it: completion scripts, and no progress bar in what a
//! pipe reads.

mod common;

use std::path::Path;
use std::process::{Command, Output};

use common::{sandglass, stdout, BIN};

/// `sandglass ARGS --data-dir DIR` with stdout and stderr read through pipes, under a
/// `TERM` that names a real terminal: only the pipe can keep a bar away.
fn piped(dir: &Path, args: &[&str]) -> Output {
    let output = Command::new(BIN)
        .args(args)
        .arg("--data-dir")
        .arg(dir)
        .env("TERM", "xterm-256color")
        .output()
        .expect("the sandglass binary runs");
    assert!(output.status.success(), "{output:?}");
    output
}

#[test]
fn long_jobs_draw_no_progress_bar_into_a_pipe() {
    let root = tempfile::tempdir().unwrap();
    let dir = root.path().join("data");
    let golden = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../replays/v4/classic-million-4.sgr"
    );
    let copy = root.path().join("copy.sgr");
    let copy = copy.to_str().unwrap();
    let runs = [
        piped(&dir, &["import", golden]),
        piped(&dir, &["export", "classic-million-4", copy]),
        piped(&dir, &["verify", golden, "classic-million-4", copy]),
    ];
    for output in runs {
        assert!(output.stderr.is_empty(), "{output:?}");
        let text = stdout(&output);
        // A bar redraws its line with a carriage return and clears it with an escape code.
        assert!(!text.contains(['\r', '\x1b']), "{text:?}");
    }
}

#[test]
fn completions_name_every_subcommand() {
    let dir = tempfile::tempdir().unwrap();
    for shell in ["bash", "zsh", "fish", "elvish", "powershell"] {
        let output = sandglass(dir.path(), &["completions", shell]);
        assert!(output.status.success(), "{output:?}");
        let script = stdout(&output);
        for subcommand in [
            "play",
            "load",
            "replay",
            "trace",
            "bot",
            "saves",
            "save-as",
            "delete",
            "export",
            "import",
            "dump",
            "scores",
            "verify",
            "completions",
        ] {
            assert!(script.contains(subcommand), "{shell}: no {subcommand}");
        }
    }
    let output = sandglass(dir.path(), &["completions", "bash"]);
    assert!(stdout(&output).contains("complete -F _sandglass"));
}
