//! `sandglass trace`: a scenario's actions as JSON lines.

use std::io::{BufWriter, Write};
use std::path::Path;

use anyhow::Context;
use sandglass_sim::action::ActionRecord;
use sandglass_sim::ids::Tick;
use sandglass_sim::scenario::Scenario;
use sandglass_sim::{Live, Need, Observer, State};

pub fn run(path: &Path, ticks: u64) -> anyhow::Result<()> {
    let text = std::fs::read_to_string(path)
        .with_context(|| format!("cannot read scenario {}", path.display()))?;
    let scenario: Scenario = toml::from_str(&text).map_err(|error| {
        let what = toml_error(&text, &error);
        anyhow::anyhow!("{} is not a valid scenario file: {what}", path.display())
    })?;
    let state = scenario
        .build()
        .with_context(|| format!("in {}", path.display()))?;
    let mut live = Live::resume(scenario.seed, state);
    let mut printer = Printer {
        out: BufWriter::new(std::io::stdout().lock()),
        failed: None,
    };
    let need = live.run_ticks(Tick(ticks), &mut printer, &mut Vec::new());
    if let Some(error) = printer.failed {
        return Err(error).context("cannot write the trace");
    }
    printer.out.flush().context("cannot write the trace")?;
    if need == Need::Command {
        anyhow::bail!("the scenario stopped for a player command; scenarios have no player");
    }
    Ok(())
}

/// A TOML error in one line: where, then what. toml's own message takes several lines,
/// quoting the line and underlining the place.
fn toml_error(text: &str, error: &toml::de::Error) -> String {
    let what = error.message().lines().collect::<Vec<_>>().join("; ");
    let Some(span) = error.span() else {
        return what;
    };
    let before = text.get(..span.start).unwrap_or(text);
    let line = before.matches('\n').count() + 1;
    let column = before.chars().rev().take_while(|&c| c != '\n').count() + 1;
    format!("line {line}, column {column}: {what}")
}

/// One JSON object per action, in the order taken.
pub fn line(state: &State, record: &ActionRecord) -> String {
    // Written by hand so the keys keep the documented order.
    let quoted = |s: &str| serde_json::Value::from(s).to_string();
    format!(
        r#"{{"tick":{},"actor":{},"name":{},"action":{},"energy_before":{},"energy_after":{}}}"#,
        record.tick.0,
        record.actor.0,
        quoted(state.world().name_of(record.actor)),
        quoted(record.action.name()),
        record.energy_before,
        record.energy_after,
    )
}

struct Printer<W: Write> {
    out: W,
    /// The first write error; the run finishes, then reports it.
    failed: Option<std::io::Error>,
}

impl<W: Write> Observer for Printer<W> {
    fn acted(&mut self, state: &State, record: &ActionRecord) {
        if self.failed.is_none() {
            if let Err(error) = writeln!(self.out, "{}", line(state, record)) {
                self.failed = Some(error);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn error_in(text: &str) -> String {
        toml_error(text, &toml::from_str::<Scenario>(text).unwrap_err())
    }

    #[test]
    fn a_toml_error_is_one_line_saying_where() {
        assert_eq!(
            error_in("seed = 1\nruleset = \n"),
            "line 2, column 11: invalid string; expected `\"`, `'`"
        );
        assert_eq!(
            error_in("seed = 1\n"),
            "line 1, column 1: missing field `ruleset`"
        );
    }
}
