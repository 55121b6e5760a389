//! `sandglass scores`: the high-score table. Every entry is a stored game, its score worked
//! out by folding its own log under its own rules version, with every draw and hash
//! checked; a game whose log does not check out (or whose rules version this build does
//! not play) is listed as unverified and never ranked.
//!
//! A fold is made once and remembered as the game's verdict (`sandglass_store::Verdict`),
//! which the table takes for as long as it still describes the game: its record and its
//! log as stored now. Only the games without one are folded, spread over every core, one
//! game's log in memory per core. `--recheck` folds every game again and reports any
//! stored verdict that its log does not support.

use std::collections::BTreeMap;
use std::path::Path;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};

use rayon::prelude::*;
use sandglass_protocol::Ranking;
use sandglass_sim::score::Score;
use sandglass_store::{Branch, GameId, GameMeta, ProofError, Store, StoreError, Verdict};

use super::progress::{open_store, Count};
use super::say_on_stderr;

/// Where one game stands in the table.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Proof {
    /// Its log folds to this score.
    Proved(Score),
    /// Its log does not check out, for this reason.
    Failed(String),
    /// Not proved yet: its verdict is missing, or no longer describes it.
    Pending,
}

/// One game in the table.
#[derive(Clone, Debug)]
pub struct Entry {
    /// 1 for the best; `None` for a game not proved.
    pub rank: Option<usize>,
    pub meta: GameMeta,
    pub proof: Proof,
    /// Where the game came from, if it is a branch: it is never ranked.
    pub branch: Option<Branch>,
}

impl Entry {
    /// The score its log folds to, once proved.
    pub fn score(&self) -> Option<Score> {
        match self.proof {
            Proof::Proved(score) => Some(score),
            _ => None,
        }
    }

    /// Why it did not verify, if it did not.
    pub fn unverified(&self) -> Option<&str> {
        match &self.proof {
            Proof::Failed(why) => Some(why),
            _ => None,
        }
    }

    /// Takes what folding its log came to.
    pub fn prove(&mut self, proved: &Result<Verdict, String>) {
        self.proof = match proved {
            Ok(verdict) => Proof::Proved(verdict.score),
            Err(why) => Proof::Failed(why.clone()),
        };
    }
}

/// The table as the stored verdicts make it, at once, and what is left to do.
pub struct Stored {
    /// Ranked (`rank`): a game whose verdict fits its record is proved, every other pending.
    pub entries: Vec<Entry>,
    /// The games taken as proved, each with the digest of the log its verdict proved: for
    /// `doubted` to compare with their logs as stored now.
    pub claims: Vec<(GameMeta, u64)>,
    /// The games to fold (`prove`).
    pub pending: Vec<GameMeta>,
}

/// The table as the stored verdicts make it, from the records alone: reading each game's
/// log for its digest costs more than the window may take to open (BENCHMARKS.md, "A
/// lifetime of games"), so that is left to `doubted`, which whoever shows the table runs
/// next (the window on its worker thread, `table` before it prints).
pub fn stored(store: &Store) -> Result<Stored, StoreError> {
    let verdicts = store.verdicts()?;
    let mut claims = vec![];
    let mut pending = vec![];
    let mut entries: Vec<Entry> = store
        .games()?
        .into_iter()
        .map(|meta| {
            let proof = match verdicts.get(&meta.id) {
                Some(Ok(verdict)) if verdict.fits(&meta) => {
                    claims.push((meta.clone(), verdict.log));
                    Proof::Proved(verdict.score)
                }
                _ => {
                    pending.push(meta.clone());
                    Proof::Pending
                }
            };
            Entry {
                rank: None,
                meta,
                proof,
                branch: None,
            }
        })
        .collect();
    with_branches(store, &mut entries)?;
    rank(&mut entries);
    Ok(Stored {
        entries,
        claims,
        pending,
    })
}

/// Of the games taken as proved (`Stored::claims`), those whose log as stored is not the
/// one their verdict proved (or cannot be read): changed behind the store's back, to be
/// folded again. Reads each log, decoding and folding nothing, spread over the cores;
/// `told` hears the count checked so far, from any thread.
pub fn doubted(
    store: &Store,
    claims: &[(GameMeta, u64)],
    stop: &AtomicBool,
    told: &(dyn Fn(u64) + Sync),
) -> Vec<GameMeta> {
    let count = AtomicU64::new(0);
    claims
        .par_iter()
        .filter(|_| !stop.load(Ordering::Relaxed))
        .filter(|(meta, log)| {
            let same = store.log_digest(meta).is_ok_and(|now| now == *log);
            told(count.fetch_add(1, Ordering::Relaxed) + 1);
            !same
        })
        .map(|(meta, _)| meta.clone())
        .collect()
}

/// Marks the games in `doubted` as pending, and ranks the table again.
pub fn doubt(entries: &mut [Entry], doubted: &[GameMeta]) {
    let ids: std::collections::BTreeSet<GameId> = doubted.iter().map(|m| m.id).collect();
    for entry in entries.iter_mut().filter(|e| ids.contains(&e.meta.id)) {
        entry.proof = Proof::Pending;
    }
    rank(entries);
}

/// Says of each entry that is a branch (saved as, or taken over from a replay of a stored
/// game or of a file) where it came from: such a game is never ranked with the games
/// played from their start.
fn with_branches(store: &Store, entries: &mut [Entry]) -> Result<(), StoreError> {
    for entry in entries {
        entry.branch = store.branch_of(&entry.meta)?;
    }
    Ok(())
}

/// Sorts the table and ranks it: whole games first, the proved best first (as a
/// server's board ranks them, `Ranking`, then the older game), then the pending, then
/// those that failed, each by id; then the branches in the same order, never ranked.
pub fn rank(entries: &mut [Entry]) {
    entries.sort_by_key(|e| {
        let branch = e.branch.is_some();
        match &e.proof {
            Proof::Proved(s) => {
                let ranking = Ranking {
                    points: s.points,
                    turns: s.turns,
                };
                (branch, 0, Some(ranking), e.meta.id.0)
            }
            Proof::Pending => (branch, 1, None, e.meta.id.0),
            Proof::Failed(_) => (branch, 2, None, e.meta.id.0),
        }
    });
    for (i, entry) in entries.iter_mut().enumerate() {
        let ranked = matches!(entry.proof, Proof::Proved(_)) && entry.branch.is_none();
        entry.rank = ranked.then_some(i + 1);
    }
}

/// What folding one game's log came to, in words if it failed.
pub type Proved = (GameId, Result<Verdict, String>);

/// Folds each of `games`, spread over rayon's threads (every core), one game's log in
/// memory per thread. `told` hears of each as it is done, from any thread, with the count
/// done so far; once `stop` is set, the games not begun are left out. Returns the results
/// in the order of `games`.
pub fn prove(
    store: &Store,
    games: &[GameMeta],
    stop: &AtomicBool,
    told: &(dyn Fn(u64, &Proved) + Sync),
) -> Vec<Proved> {
    let count = AtomicU64::new(0);
    games
        .par_iter()
        .filter(|_| !stop.load(Ordering::Relaxed))
        .map(|meta| {
            let proved = (
                meta.id,
                store.prove(meta).map_err(|e: ProofError| e.to_string()),
            );
            told(count.fetch_add(1, Ordering::Relaxed) + 1, &proved);
            proved
        })
        .collect()
}

/// Remembers the verdicts proved, so that the next table need not fold those games again.
/// Failures are not remembered: such a game is folded again each time, and says why.
pub fn remember(store: &Store, proved: &[Proved]) -> Result<(), StoreError> {
    let verdicts: Vec<(GameId, Option<Verdict>)> = proved
        .iter()
        .filter_map(|(id, proved)| Some((*id, Some(*proved.as_ref().ok()?))))
        .collect();
    store.remember(&verdicts)
}

/// Every stored game, proved: ranked ones best first, then the unverified. The games
/// without a verdict that holds are folded (with a bar on a terminal) and their verdicts
/// remembered; a store that cannot take the write says so on stderr, and the table is
/// whole all the same.
pub fn table(store: &Store) -> Result<Vec<Entry>, StoreError> {
    let Stored {
        mut entries,
        claims,
        mut pending,
    } = stored(store)?;
    let doubted = doubted(store, &claims, &AtomicBool::new(false), &|_| ());
    doubt(&mut entries, &doubted);
    pending.extend(doubted);
    if pending.is_empty() {
        return Ok(entries);
    }
    let bar = Count::new("scores", pending.len() as u64, "games proved");
    let proved = prove(store, &pending, &AtomicBool::new(false), &|done, _| {
        bar.set(done)
    });
    drop(bar);
    if let Err(e) = remember(store, &proved) {
        say_on_stderr(&format!("the scores were proved but not remembered: {e}"));
    }
    apply(&mut entries, &proved);
    Ok(entries)
}

/// Puts what folding came to into the table, and ranks it again.
pub fn apply(entries: &mut [Entry], proved: &[Proved]) {
    let by_id: BTreeMap<GameId, &Result<Verdict, String>> =
        proved.iter().map(|(id, p)| (*id, p)).collect();
    for entry in entries.iter_mut() {
        if let Some(proved) = by_id.get(&entry.meta.id) {
            entry.prove(proved);
        }
    }
    rank(entries);
}

/// A stored verdict that its game's log does not support, in words.
pub fn disagreement(meta: &GameMeta, stored: &Verdict, proved: &Result<Verdict, String>) -> String {
    let claim = format!(
        "game `{}`: its stored verdict says {} points after {} events",
        meta.name, stored.score.points, stored.events
    );
    match proved {
        Ok(p) => format!(
            "{claim}, but its log folds to {} points (depth {}, turn {}, {} kills, hash {:#018x})",
            p.score.points, p.score.depth, p.score.turns, p.score.kills, p.hash
        ),
        Err(why) => format!("{claim}, but its log does not check out: {why}"),
    }
}

/// Every game folded again, whatever is stored: the table as its logs make it, and every
/// stored verdict that claims to describe a game as it is now but disagrees with what its
/// log folds to (a verdict written by hand, or by a build that folded otherwise). Those
/// are replaced by what was proved, or dropped if the log does not check out.
pub fn recheck(store: &Store) -> Result<(Vec<Entry>, Vec<String>), StoreError> {
    let verdicts = store.verdicts()?;
    let games = store.games()?;
    let bar = Count::new("recheck", games.len() as u64, "games folded");
    let proved = prove(store, &games, &AtomicBool::new(false), &|done, _| {
        bar.set(done)
    });
    drop(bar);
    let mut disagreements = vec![];
    let mut changes = vec![];
    for (meta, (id, proved)) in games.iter().zip(&proved) {
        let Some(Ok(stored)) = verdicts.get(id) else {
            if let Ok(p) = proved {
                changes.push((*id, Some(*p)));
            }
            continue;
        };
        // What the log is now: a verdict on another log (the game played on since) is
        // stale, not false.
        let claims_now = match proved {
            Ok(p) => stored.holds_for(meta, p.log),
            Err(_) => store
                .log_digest(meta)
                .is_ok_and(|log| stored.holds_for(meta, log)),
        };
        if claims_now && proved.as_ref() != Ok(stored) {
            disagreements.push(disagreement(meta, stored, proved));
        }
        if proved.as_ref() != Ok(stored) {
            changes.push((*id, proved.as_ref().ok().copied()));
        }
    }
    if let Err(e) = store.remember(&changes) {
        say_on_stderr(&format!(
            "the rechecked scores could not be remembered: {e}"
        ));
    }
    let mut entries: Vec<Entry> = games
        .into_iter()
        .map(|meta| Entry {
            rank: None,
            meta,
            proof: Proof::Pending,
            branch: None,
        })
        .collect();
    with_branches(store, &mut entries)?;
    apply(&mut entries, &proved);
    Ok((entries, disagreements))
}

pub fn run(dir: &Path, json: bool, recheck: bool) -> anyhow::Result<()> {
    let store = open_store(dir)?;
    let (entries, disagreements) = match recheck {
        true => self::recheck(&store)?,
        false => (table(&store)?, vec![]),
    };
    let empty = format!("No games in {} yet.", dir.display());
    super::print_listing(&entries, json, json_line, text, &empty)?;
    for line in &disagreements {
        say_on_stderr(line);
    }
    if !disagreements.is_empty() {
        anyhow::bail!(
            "{} stored verdicts disagreed with their games' logs; they are replaced by what the logs fold to",
            disagreements.len()
        );
    }
    Ok(())
}

fn json_line(entry: &Entry) -> String {
    let score = entry.score();
    serde_json::json!({
        "rank": entry.rank,
        "id": entry.meta.id.0,
        "name": entry.meta.name,
        "score": score.map(|s| s.points),
        "status": entry.meta.status.name(),
        "verified": entry.score().is_some(),
        "depth": score.map(|s| s.depth),
        "turns": score.map(|s| s.turns),
        "kills": score.map(|s| s.kills),
        "won": score.map(|s| s.won),
        "rules_version": entry.meta.header.rules_version,
        "why_unverified": entry.unverified(),
        "branch": entry.branch.is_some(),
        "branch_of": entry.branch.as_ref().map(|b| &b.from),
        "branch_turn": entry.branch.as_ref().and_then(|b| b.turn),
    })
    .to_string()
}

/// The table as a person reads it, columns lined up.
pub fn text(entries: &[Entry]) -> String {
    let header = [
        "RANK", "SCORE", "NAME", "STATUS", "DEPTH", "TURNS", "KILLS", "RULES",
    ];
    let (branches, whole): (Vec<&Entry>, Vec<&Entry>) =
        entries.iter().partition(|e| e.branch.is_some());
    let rows: Vec<[String; 8]> = whole.into_iter().map(row).collect();
    let mut text = super::columns(header, &rows);
    if !branches.is_empty() {
        text += "\nBranches, not ranked (saved as, or taken over from a replay):\n";
        let [rank, score, name, status, depth, turns, kills, rules] = header;
        let header = [
            rank, score, name, status, depth, turns, kills, rules, "BRANCH",
        ];
        let rows: Vec<[String; 9]> = branches
            .into_iter()
            .map(|entry| {
                let [rank, score, name, status, depth, turns, kills, rules] = row(entry);
                let from = entry.branch.as_ref().map(Branch::to_string);
                let from = from.unwrap_or_default();
                [rank, score, name, status, depth, turns, kills, rules, from]
            })
            .collect();
        text += &super::columns(header, &rows);
    }
    for entry in entries {
        if let Some(why) = entry.unverified() {
            text += &format!("{} is not ranked: {why}\n", entry.meta.name);
        }
    }
    text
}

/// One entry's cells, in the order of the header.
pub fn row(entry: &Entry) -> [String; 8] {
    let rank = entry.rank.map_or("-".to_owned(), |r| r.to_string());
    let status = match (&entry.proof, entry.meta.status) {
        (Proof::Failed(_), _) => "unverified".to_owned(),
        (Proof::Pending, _) => "proving".to_owned(),
        (Proof::Proved(_), status) => status.name().to_owned(),
    };
    match entry.score() {
        Some(s) => [
            rank,
            s.points.to_string(),
            entry.meta.name.clone(),
            status,
            s.depth.to_string(),
            s.turns.to_string(),
            s.kills.to_string(),
            super::rules_label(entry.meta.header.rules_version),
        ],
        None => [
            rank,
            "-".into(),
            entry.meta.name.clone(),
            status,
            "-".into(),
            "-".into(),
            "-".into(),
            super::rules_label(entry.meta.header.rules_version),
        ],
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use sandglass_sim::bot::Bot;
    use sandglass_sim::{Header, Ruleset};

    #[test]
    fn games_rank_by_their_folded_score() {
        let dir = tempfile::tempdir().unwrap();
        let store = Store::open(dir.path()).unwrap();
        for (seed, commands) in [(1, 20), (2, 2_000), (3, 200)] {
            let header = Header::new(seed, Ruleset::NETHACK, 0);
            let mut session = store.create(&format!("g{seed}"), header, &mut ()).unwrap();
            Bot::new(seed).play(&mut session, commands).unwrap();
        }
        let entries = table(&store).unwrap();
        assert_eq!(entries.len(), 3);
        let points: Vec<u64> = entries.iter().map(|e| e.score().unwrap().points).collect();
        assert!(points.windows(2).all(|w| w[0] >= w[1]), "{points:?}");
        let ranks: Vec<Option<usize>> = entries.iter().map(|e| e.rank).collect();
        assert_eq!(ranks, [Some(1), Some(2), Some(3)]);
        let text = text(&entries);
        assert!(text.starts_with("RANK  SCORE"), "{text}");
        let json: serde_json::Value = serde_json::from_str(&json_line(&entries[0])).unwrap();
        for key in ["rank", "name", "score", "status", "verified"] {
            assert!(json.get(key).is_some(), "{key}");
        }
        assert_eq!(json["verified"], true);
    }

    /// A fork of a game (a take-over from its replay, a "save as") is listed apart and
    /// never ranked, however well it scores.
    #[test]
    fn a_branch_is_never_ranked_with_whole_games() {
        let dir = tempfile::tempdir().unwrap();
        let store = Store::open(dir.path()).unwrap();
        let header = Header::new(1, Ruleset::NETHACK, 0);
        let mut session = store.create("whole", header, &mut ()).unwrap();
        Bot::new(1).play(&mut session, 100).unwrap();
        let whole = session.meta().clone();
        drop(session);
        let (branch, _) = store
            .fork(whole.id, "whole from turn 50", whole.events)
            .unwrap();
        let mut branched = store.resume(branch.id).unwrap();
        Bot::new(1).play(&mut branched, 2_000).unwrap();
        drop(branched);
        let entries = table(&store).unwrap();
        let by_name = |name: &str| entries.iter().find(|e| e.meta.name == name).unwrap();
        assert_eq!(by_name("whole").rank, Some(1));
        let fork = by_name("whole from turn 50");
        assert!(fork.score().is_some(), "proved, all the same");
        assert_eq!(fork.rank, None);
        let text = text(&entries);
        let heading = text.find("Branches, not ranked").unwrap();
        assert!(text.find("whole from turn 50").unwrap() > heading, "{text}");
        let json: serde_json::Value = serde_json::from_str(&json_line(fork)).unwrap();
        assert_eq!(json["branch"], true);
        assert_eq!(json["rank"], serde_json::Value::Null);
        assert_eq!(json["branch_of"], "whole");
        assert_eq!(json["branch_turn"], whole.turns);
    }

    /// A take-over from a replay file shares no stored history, and is a branch all the
    /// same: never ranked, however well it went.
    #[test]
    fn a_take_over_from_a_replay_file_is_never_ranked() {
        let dir = tempfile::tempdir().unwrap();
        let store = Store::open(dir.path()).unwrap();
        let rules = sandglass_sim::Rules::newest(Ruleset::NETHACK);
        let short = Bot::new(1).record(rules, 1, 10);
        let played = |tape: &sandglass_sim::Tape, name: &str, from: Option<&str>| {
            let made = match from {
                Some(from) => {
                    store.take_over_file(name, &tape.header, &tape.events, from, &mut |_, _| ())
                }
                None => store.create_from_tape(name, &tape.header, &tape.events, &mut |_, _| ()),
            };
            let made = made.unwrap();
            let mut session = store.resume(made.id).unwrap();
            Bot::new(1).play(&mut session, 500).unwrap();
            made.turns
        };
        played(&short, "whole", None);
        let turn = played(&short, "taken over", Some("lost.sgr"));
        let from = format!("from turn {turn} of lost.sgr");
        let whole_score = |entries: &[Entry], name: &str| {
            let entry = entries.iter().find(|e| e.meta.name == name).unwrap();
            (entry.rank, entry.branch.clone())
        };
        let entries = table(&store).unwrap();
        assert_eq!(whole_score(&entries, "whole"), (Some(1), None));
        let (rank, branch) = whole_score(&entries, "taken over");
        assert_eq!(rank, None);
        assert_eq!(branch.unwrap().to_string(), from);
        let text = text(&entries);
        let heading = text.find("Branches, not ranked").unwrap();
        assert!(text.find(&from).unwrap() > heading, "{text}");
    }

    /// Three games, two of them finished (their verdicts written as they ended), one
    /// left alive (no verdict).
    fn three_games() -> (tempfile::TempDir, Store) {
        let dir = tempfile::tempdir().unwrap();
        let store = Store::open(dir.path()).unwrap();
        for (seed, quit) in [(1, true), (2, true), (3, false)] {
            let header = Header::new(seed, Ruleset::NETHACK, 0);
            let mut session = store.create(&format!("g{seed}"), header, &mut ()).unwrap();
            Bot::new(seed).play(&mut session, 50).unwrap();
            if quit && session.state().outcome().is_none() {
                session
                    .command(sandglass_sim::Command::Quit, &mut ())
                    .unwrap();
            }
        }
        (dir, store)
    }

    #[test]
    fn a_game_without_a_verdict_is_pending_and_unranked_until_folded_then_remembered() {
        let (_dir, store) = three_games();
        let first = stored(&store).unwrap();
        assert_eq!(first.claims.len(), 2);
        assert_eq!(first.pending.len(), 1);
        let last = first.entries.last().unwrap();
        assert_eq!((last.meta.name.as_str(), last.rank), ("g3", None));
        assert_eq!(last.proof, Proof::Pending);
        assert!(doubted(&store, &first.claims, &AtomicBool::new(false), &|_| ()).is_empty());
        // `table` folds it and remembers it: the next table has nothing to fold.
        let whole = table(&store).unwrap();
        assert!(whole
            .iter()
            .all(|e| e.score().is_some() && e.rank.is_some()));
        let again = stored(&store).unwrap();
        assert!(again.pending.is_empty());
        let scores = |t: &[Entry]| t.iter().map(|e| (e.meta.id, e.score())).collect::<Vec<_>>();
        assert_eq!(scores(&again.entries), scores(&whole));
    }

    #[test]
    fn a_stopped_fold_leaves_the_games_not_begun() {
        let (_dir, store) = three_games();
        let games = store.games().unwrap();
        let told = AtomicU64::new(0);
        let proved = prove(&store, &games, &AtomicBool::new(true), &|_, _| {
            told.fetch_add(1, Ordering::Relaxed);
        });
        assert!(proved.is_empty());
        assert_eq!(told.load(Ordering::Relaxed), 0);
        let proved = prove(&store, &games, &AtomicBool::new(false), &|_, _| ());
        let ids: Vec<GameId> = proved.iter().map(|p| p.0).collect();
        let wanted: Vec<GameId> = games.iter().map(|m| m.id).collect();
        assert_eq!(
            ids, wanted,
            "in the order asked, whichever thread finished first"
        );
    }
}
