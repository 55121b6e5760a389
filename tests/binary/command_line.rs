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
            "keys",
        ] {
            assert!(script.contains(subcommand), "{shell}: no {subcommand}");
        }
    }
    let output = sandglass(dir.path(), &["completions", "bash"]);
    assert!(stdout(&output).contains("complete -F _sandglass"));
}

/// `sandglass keys --write` writes the default keys where the window reads them, never
/// over a file already there; `sandglass keys` prints the keys as bound, and says on
/// stderr why a file it cannot use is not used.
#[test]
fn keys_are_written_out_with_the_defaults_and_printed_as_bound() {
    let config = tempfile::tempdir().unwrap();
    let keys = |args: &[&str]| {
        Command::new(BIN)
            .args(["--config-dir", config.path().to_str().unwrap()])
            .args(args)
            .output()
            .expect("the sandglass binary runs")
    };
    let written = keys(&["keys", "--write"]);
    assert!(written.status.success(), "{written:?}");
    let file = config.path().join("keys.txt");
    let defaults = std::fs::read_to_string(&file).unwrap();
    assert!(defaults.contains("\nexplore = x\n"), "{defaults}");
    assert!(
        defaults.contains("\nmove_west = h Left Kp4\n"),
        "{defaults}"
    );

    let again = keys(&["keys", "--write"]);
    assert!(!again.status.success(), "{again:?}");
    assert!(String::from_utf8_lossy(&again.stderr).contains("already exists"));
    assert_eq!(std::fs::read_to_string(&file).unwrap(), defaults);

    std::fs::write(&file, "explore = z\n").unwrap();
    let mine = keys(&["keys"]);
    assert!(stdout(&mine).contains("\nexplore = z\n"), "{mine:?}");

    std::fs::write(&file, "explore = z\ndrop = z\n").unwrap();
    let refused = keys(&["keys"]);
    let said = String::from_utf8_lossy(&refused.stderr);
    assert!(
        said.contains("line 2: z is already explore's key, so it cannot be drop's too"),
        "{said}"
    );
    assert!(stdout(&refused).contains("\nexplore = x\n"), "{refused:?}");
}
