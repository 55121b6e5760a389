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
    let scenario: Scenario = toml::from_str(&text)
        .with_context(|| format!("{} is not a valid scenario file", path.display()))?;
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
