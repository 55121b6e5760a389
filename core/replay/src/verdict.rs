//! What verifying one replay comes to, in the words `sandglass verify` prints: the one
//! place those lines are written, so that the native command, the WASI `sgr-verify` and
//! the web viewer say the same thing of the same file.

use sandglass_sim::{CheckError, Event, Recording, State};

/// What one replay came to.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Verdict {
    Ok {
        events: u64,
        /// Of the events, how many are commands; the rest are draws.
        commands: u64,
        hash: u64,
        rules_version: u16,
    },
    /// Where it went wrong, when that is an event, and what differed.
    Fail { at: Option<u64>, what: String },
}

impl Verdict {
    /// A replay refused before it was folded (it could not be read, or its bytes are no
    /// replay): `what` says why.
    pub fn refused(what: impl ToString) -> Verdict {
        Verdict::Fail {
            at: None,
            what: what.to_string(),
        }
    }

    /// The line `sandglass verify` prints for it; `ms` is how long the check took, if
    /// the clock could tell (a browser's is too coarse to time a short replay).
    pub fn text(&self, name: &str, ms: Option<f64>) -> String {
        match self {
            Verdict::Ok { events, hash, .. } => {
                let line = format!("ok {name} events={events} hash=0x{hash:016x}");
                match ms {
                    Some(ms) => format!("{line} time={ms:.1}ms"),
                    None => line,
                }
            }
            Verdict::Fail { at: Some(at), what } => format!("FAIL {name} at event {at}: {what}"),
            Verdict::Fail { at: None, what } => format!("FAIL {name}: {what}"),
        }
    }

    /// The line `sandglass verify --json` prints for it; `kind` is `file` or `game`. The
    /// time is left out, so that the same replays always give the same lines; the hash is
    /// a string, as in `saves --json`, since JSON readers often hold numbers as doubles,
    /// exact only to 2^53.
    pub fn json(&self, name: &str, kind: &str) -> String {
        let line = match self {
            Verdict::Ok {
                events,
                commands,
                hash,
                rules_version,
            } => serde_json::json!({
                "replay": name,
                "kind": kind,
                "ok": true,
                "rules_version": rules_version,
                "events": events,
                "commands": commands,
                "draws": events - commands,
                "hash": format!("0x{hash:016x}"),
            }),
            Verdict::Fail { at, what } => serde_json::json!({
                "replay": name,
                "kind": kind,
                "ok": false,
                "error": what,
                "event": at,
            }),
        };
        line.to_string()
    }

    pub fn failed(&self) -> bool {
        matches!(self, Verdict::Fail { .. })
    }
}

/// Checks `file` in one fold (`Recording::check`): every draw regenerated from the seed,
/// every event legal where it stands, every hash checkpoint and the final hash.
/// `checkpoint` names what recorded the hashes along the way, for the message; `progress`
/// is told the events folded so far.
pub fn check(file: &Recording, checkpoint: &str, progress: impl FnMut(u64)) -> Verdict {
    check_folded(file, checkpoint, progress).0
}

/// `check`, with the state the fold ended in when it passed: what a caller that ranks
/// the game reads its score and outcome from.
pub fn check_folded(
    file: &Recording,
    checkpoint: &str,
    mut progress: impl FnMut(u64),
) -> (Verdict, Option<State>) {
    let checked = file.check(&mut (), u64::MAX, |state| progress(state.events_folded()));
    let error = match checked {
        Ok(state) => {
            let commands = file
                .events
                .iter()
                .filter(|e| matches!(e, Event::Command(_)));
            let verdict = Verdict::Ok {
                events: state.events_folded(),
                commands: commands.count() as u64,
                hash: state.hash(),
                rules_version: file.header.rules_version,
            };
            return (verdict, Some(state));
        }
        Err(error) => error,
    };
    let verdict = match error {
        CheckError::Fold(fold) => Verdict::Fail {
            at: Some(fold.index.0),
            what: fold.kind.to_string(),
        },
        CheckError::Desync {
            index,
            expected,
            found,
        } => {
            let recorder = if index == file.events.len() as u64 {
                "the final hash"
            } else {
                checkpoint
            };
            Verdict::Fail {
                at: Some(index),
                what: format!(
                    "the state hash after {index} events is 0x{found:016x}, but {recorder} recorded 0x{expected:016x}"
                ),
            }
        }
        other => Verdict::refused(other),
    };
    (verdict, None)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_line_gives_the_time_only_when_the_clock_could_tell_it() {
        let ok = Verdict::Ok {
            events: 12,
            commands: 3,
            hash: 0xab,
            rules_version: 10,
        };
        assert_eq!(
            ok.text("a.sgr", Some(2.25)),
            "ok a.sgr events=12 hash=0x00000000000000ab time=2.2ms"
        );
        assert_eq!(
            ok.text("a.sgr", None),
            "ok a.sgr events=12 hash=0x00000000000000ab"
        );
        assert_eq!(
            Verdict::refused("not a replay").text("b.sgr", None),
            "FAIL b.sgr: not a replay"
        );
    }
}
