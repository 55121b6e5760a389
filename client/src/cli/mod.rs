//! The headless subcommands: saved games, replays and scenarios from a terminal. Nothing
//! here opens a window or links a drawing call; these are glue over `sandglass-store` and
//! `sandglass-sim`, which own the rules and their errors.

pub mod daily;
pub mod games;
pub mod keys;
pub mod progress;
pub mod scores;
pub mod submit;
pub mod trace;
pub mod verify;

use std::io::Write;
use std::path::{Path, PathBuf};

use anyhow::Context;
use clap::builder::PossibleValue;
use sandglass_sim::{RulesVersion, Ruleset};
use sandglass_store::SnapshotWarning;

/// A ruleset as typed on the command line: its name, from the list the simulation keeps.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RulesetArg(pub Ruleset);

impl clap::ValueEnum for RulesetArg {
    fn value_variants<'a>() -> &'a [Self] {
        const NAMED: [RulesetArg; 2] =
            [RulesetArg(Ruleset::NAMED[0]), RulesetArg(Ruleset::NAMED[1])];
        &NAMED
    }

    fn to_possible_value(&self) -> Option<PossibleValue> {
        Some(PossibleValue::new(self.0.name()))
    }
}

/// `--data-dir`, or the platform's data folder for sandglass.
pub fn data_dir_or_default(given: Option<&Path>) -> anyhow::Result<PathBuf> {
    match given {
        Some(dir) => Ok(dir.to_owned()),
        None => directories::ProjectDirs::from("", "", "sandglass")
            .map(|dirs| dirs.data_dir().to_owned())
            .context("cannot find this system's data folder; choose one with --data-dir DIR"),
    }
}

/// A moment stored as seconds since the epoch, as a person reads it: `YYYY-MM-DD HH:MM UTC`.
pub fn utc(seconds: u64) -> String {
    let moment = i64::try_from(seconds)
        .ok()
        .and_then(|s| jiff::Timestamp::from_second(s).ok())
        .unwrap_or(jiff::Timestamp::UNIX_EPOCH);
    moment.strftime("%Y-%m-%d %H:%M UTC").to_string()
}

/// A game's rules version as the listings show it: the number, and whether this build
/// plays it (a game of a version it does not keep is listed, never hidden).
pub fn rules_label(version: u16) -> String {
    match RulesVersion::kept(version) {
        Ok(_) => version.to_string(),
        Err(_) => format!("{version} (not playable by this build)"),
    }
}

/// `rows` under `header`, each column as wide as its widest cell, two spaces between.
pub fn columns<const N: usize>(header: [&str; N], rows: &[[String; N]]) -> String {
    let mut widths = header.map(|h| h.chars().count());
    for row in rows {
        for (width, cell) in widths.iter_mut().zip(row) {
            *width = (*width).max(cell.chars().count());
        }
    }
    let line = |cells: [&str; N]| {
        let padded: Vec<String> = cells
            .iter()
            .zip(widths)
            .map(|(cell, width)| format!("{cell:<width$}"))
            .collect();
        format!("{}\n", padded.join("  ").trim_end())
    };
    let mut text = line(header);
    for row in rows {
        text += &line(row.each_ref().map(String::as_str));
    }
    text
}

/// A listing on stdout: one JSON object a line for scripts, a table with its columns
/// lined up for people, or `empty` when there is nothing to list.
pub fn print_listing<T>(
    items: &[T],
    json: bool,
    json_line: fn(&T) -> String,
    table: fn(&[T]) -> String,
    empty: &str,
) -> std::io::Result<()> {
    use std::io::Write;
    let mut out = std::io::stdout().lock();
    if json {
        for item in items {
            writeln!(out, "{}", json_line(item))?;
        }
    } else if items.is_empty() {
        writeln!(out, "{empty}")?;
    } else {
        write!(out, "{}", table(items))?;
    }
    Ok(())
}

/// Warnings on stderr.
pub fn warn(warnings: &[SnapshotWarning]) {
    for warning in warnings {
        say_on_stderr(&format!("warning: {warning}"));
    }
}

/// `sandglass: WHAT` on stderr, in one write so that it is whole or not there. A terminal
/// that cannot take it loses it: that is no reason to stop (`eprintln!` would panic).
pub fn say_on_stderr(what: &str) {
    let line = format!("sandglass: {what}\n");
    let _ = std::io::stderr().write_all(line.as_bytes());
}

#[cfg(test)]
mod tests {
    use super::*;
    use clap::ValueEnum;

    #[test]
    fn dates_are_civil_utc() {
        assert_eq!(utc(0), "1970-01-01 00:00 UTC");
        assert_eq!(utc(951_782_400 + 3_600 + 60), "2000-02-29 01:01 UTC");
        assert_eq!(utc(1_767_225_599), "2025-12-31 23:59 UTC");
    }

    #[test]
    fn every_named_ruleset_is_a_choice_by_its_name() {
        for ruleset in Ruleset::NAMED {
            let parsed = RulesetArg::from_str(ruleset.name(), false).unwrap();
            assert_eq!(parsed.0, ruleset);
        }
        assert!(RulesetArg::from_str("angband", false).is_err());
    }
}
