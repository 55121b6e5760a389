//! `sandglass scores`: the high-score table. Every entry is a stored game, its score worked
//! out by folding its own log under its own rules version, with every draw and hash
//! checked; a game whose log does not check out (or whose rules version this build does
//! not play) is listed as unverified and never ranked.

use std::path::Path;

use sandglass_sim::score::Score;
use sandglass_store::{GameMeta, Status, Store, StoreError};

/// One game in the table.
#[derive(Clone, Debug)]
pub struct Entry {
    /// 1 for the best; `None` for a game that did not verify.
    pub rank: Option<usize>,
    pub meta: GameMeta,
    /// The score its log folds to, once verified.
    pub score: Option<Score>,
    /// Why it did not verify.
    pub unverified: Option<String>,
}

/// Every stored game, verified and scored: ranked ones best first (most points, then
/// fewest turns, then the older game), then the unverified.
pub fn table(store: &Store) -> Result<Vec<Entry>, StoreError> {
    let mut entries: Vec<Entry> = store
        .games()?
        .into_iter()
        .map(|meta| {
            let checked = store
                .recording(meta.id, &mut |_, _| ())
                .map_err(|e| e.to_string())
                .and_then(|(recording, _)| {
                    recording
                        .check(&mut (), u64::MAX, |_| ())
                        .map_err(|e| e.to_string())
                });
            match checked {
                Ok(state) => Entry {
                    rank: None,
                    score: Some(Score::of(&state)),
                    unverified: None,
                    meta,
                },
                Err(why) => Entry {
                    rank: None,
                    score: None,
                    unverified: Some(why),
                    meta,
                },
            }
        })
        .collect();
    entries.sort_by_key(|e| match e.score {
        Some(s) => (0, std::cmp::Reverse(s.points), s.turns, e.meta.id.0),
        None => (1, std::cmp::Reverse(0), 0, e.meta.id.0),
    });
    for (i, entry) in entries.iter_mut().enumerate() {
        if entry.score.is_some() {
            entry.rank = Some(i + 1);
        }
    }
    Ok(entries)
}

pub fn run(dir: &Path, json: bool) -> anyhow::Result<()> {
    let entries = table(&Store::open(dir)?)?;
    let empty = format!("No games in {} yet.", dir.display());
    super::print_listing(&entries, json, json_line, text, &empty)?;
    Ok(())
}

fn json_line(entry: &Entry) -> String {
    let score = entry.score;
    serde_json::json!({
        "rank": entry.rank,
        "id": entry.meta.id.0,
        "name": entry.meta.name,
        "score": score.map(|s| s.points),
        "status": entry.meta.status.name(),
        "verified": entry.unverified.is_none(),
        "depth": score.map(|s| s.depth),
        "turns": score.map(|s| s.turns),
        "kills": score.map(|s| s.kills),
        "won": score.map(|s| s.won),
        "rules_version": entry.meta.header.rules_version,
        "why_unverified": entry.unverified,
    })
    .to_string()
}

/// The table as a person reads it, columns lined up.
pub fn text(entries: &[Entry]) -> String {
    let header = [
        "RANK", "SCORE", "NAME", "STATUS", "DEPTH", "TURNS", "KILLS", "RULES",
    ];
    let rows: Vec<[String; 8]> = entries.iter().map(row).collect();
    let mut text = super::columns(header, &rows);
    for entry in entries.iter().filter(|e| e.unverified.is_some()) {
        let why = entry.unverified.as_deref().unwrap_or_default();
        text += &format!("{} is not ranked: {why}\n", entry.meta.name);
    }
    text
}

/// One entry's cells, in the order of the header.
pub fn row(entry: &Entry) -> [String; 8] {
    let rank = entry.rank.map_or("-".to_owned(), |r| r.to_string());
    let status = match (entry.unverified.is_some(), entry.meta.status) {
        (true, _) => "unverified".to_owned(),
        (false, Status::Won) => "won".to_owned(),
        (false, status) => status.name().to_owned(),
    };
    match entry.score {
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
        let points: Vec<u64> = entries.iter().map(|e| e.score.unwrap().points).collect();
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
}
