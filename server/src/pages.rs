//! The pages, rendered on the server as plain HTML: the board (all time, per rules
//! version, per ruleset), a player's games, and a game with its verdict. Every row of a
//! board is a game this server folded itself.

use std::fmt::Write;

use axum::extract::{Path, Query, State};
use axum::http::StatusCode;
use axum::response::Html;
use sandglass_protocol::ranking::BEST_FIRST;
use sandglass_protocol::Outcome;
use serde::Deserialize;
use tokio_postgres::Row;

use crate::app::App;
use crate::html::{escape, link, page, query_value};
use crate::names::is_hash;
use crate::outcome::stored_outcome;
use crate::refusal::Refusal;

/// Rows a board shows.
const BOARD_ROWS: i64 = 100;

/// What every board says its rows prove, and what they do not.
const PROOF: &str = "Every row is a game this server folded from its own log: it was played \
    by these rules, from this seed, to this end, move by move as its log says. A row does \
    not say it was the player's only try: anyone may play a seed again and send the best.";

#[derive(Deserialize)]
pub struct BoardQuery {
    rules: Option<i32>,
    ruleset: Option<String>,
}

/// `GET /`, `/?rules=10`, `/?ruleset=nethack`: the best verified games that ended.
pub async fn board(
    State(app): State<App>,
    Query(query): Query<BoardQuery>,
) -> Result<Html<String>, Refusal> {
    let client = app.pool.get().await?;
    let rows = client
        .query(
            &format!(
                "SELECT g.hash, p.name, g.rules_version, g.ruleset, g.seed,
                        v.outcome, v.depth, v.turns, v.kills, v.points
                 FROM verdicts v JOIN shown_games g ON g.hash = v.game
                 JOIN players p ON p.id = g.player_id
                 WHERE v.ok AND v.outcome IS NOT NULL
                   AND ($1::integer IS NULL OR g.rules_version = $1)
                   AND ($2::text IS NULL OR g.ruleset = $2)
                 ORDER BY {BEST_FIRST}, g.submitted_at
                 LIMIT $3"
            ),
            &[&query.rules, &query.ruleset, &BOARD_ROWS],
        )
        .await?;
    let kinds = client
        .query(
            "SELECT DISTINCT g.rules_version, g.ruleset
             FROM verdicts v JOIN shown_games g ON g.hash = v.game
             WHERE v.ok AND v.outcome IS NOT NULL ORDER BY g.rules_version, g.ruleset",
            &[],
        )
        .await?;
    let mut versions: Vec<i32> = kinds.iter().map(|row| row.get(0)).collect();
    versions.dedup();
    let mut rulesets: Vec<String> = kinds.iter().map(|row| row.get(1)).collect();
    rulesets.sort();
    rulesets.dedup();
    let mut body = format!("<p class=\"proof\">{}</p>\n<p>", escape(PROOF));
    body += &link("/", "all time");
    for version in versions {
        body += &format!(
            " · {}",
            link(&format!("/?rules={version}"), &format!("rules {version}"))
        );
    }
    for ruleset in rulesets {
        let href = format!("/?ruleset={}", query_value(&ruleset));
        body += &format!(" · {}", link(&href, &ruleset));
    }
    body += "</p>\n";
    let title = match (&query.rules, &query.ruleset) {
        (None, None) => "Best games, all time".to_owned(),
        (rules, ruleset) => {
            let rules = rules
                .map(|r| format!(" under rules {r}"))
                .unwrap_or_default();
            let ruleset = ruleset
                .as_ref()
                .map(|r| format!(", {r}"))
                .unwrap_or_default();
            format!("Best games{rules}{ruleset}")
        }
    };
    if rows.is_empty() {
        body += "<p>No verified game has ended here yet.</p>";
    } else {
        body += "<table>\n<tr><th>#</th><th>player</th><th>points</th><th>end</th>\
                 <th>depth</th><th>turns</th><th>kills</th><th>rules</th><th>ruleset</th>\
                 <th>seed</th><th>game</th></tr>\n";
        for (rank, row) in rows.iter().enumerate() {
            let name: String = row.get(1);
            let _ = writeln!(
                body,
                "<tr><td>{}</td><td>{}</td>{}<td>{}</td><td>{}</td><td>{}</td><td>{}</td></tr>",
                rank + 1,
                link(&format!("/players/{name}"), &name),
                score_cells(row, 5),
                row.get::<_, i32>(2),
                escape(row.get(3)),
                escape(row.get(4)),
                game_link(row.get(0)),
            );
        }
        body += "</table>";
    }
    Ok(Html(page(&title, &body)))
}

/// `GET /players/NAME`: the player's key and every game they sent, verified or not
/// (linked unless refused).
pub async fn player(
    State(app): State<App>,
    Path(name): Path<String>,
) -> Result<Html<String>, Refusal> {
    let client = app.pool.get().await?;
    let Some(player) = client
        .query_opt(
            "SELECT id, public_key, to_char(joined_at AT TIME ZONE 'UTC', 'YYYY-MM-DD') \
             FROM players WHERE name = $1",
            &[&name],
        )
        .await?
    else {
        return Err(Refusal::new(StatusCode::NOT_FOUND, "no such player"));
    };
    let id: i64 = player.get(0);
    let games = client
        .query(
            "SELECT g.hash, g.rules_version, g.ruleset, g.seed, v.ok,
                    v.outcome, v.depth, v.turns, v.kills, v.points
             FROM shown_games g LEFT JOIN verdicts v ON v.game = g.hash
             WHERE g.player_id = $1 ORDER BY g.submitted_at DESC",
            &[&id],
        )
        .await?;
    let mut body = format!(
        "<p>Plays here since {} under the key <code>{}</code>: every game below was signed by it.</p>\n",
        escape(player.get(2)),
        escape(player.get(1)),
    );
    body += "<table>\n<tr><th>game</th><th>verdict</th><th>points</th><th>end</th>\
             <th>depth</th><th>turns</th><th>kills</th><th>rules</th><th>ruleset</th>\
             <th>seed</th></tr>\n";
    for row in &games {
        let hash: &str = row.get(0);
        // A refused game is named, not linked: its page is for whoever has its hash.
        let (verdict, game) = match row.get::<_, Option<bool>>(4) {
            None => ("waiting", game_link(hash)),
            Some(true) => ("verified", game_link(hash)),
            Some(false) => ("refused", escape(&hash[..12.min(hash.len())])),
        };
        let _ = writeln!(
            body,
            "<tr><td>{}</td><td>{verdict}</td>{}<td>{}</td><td>{}</td><td>{}</td></tr>",
            game,
            score_cells(row, 5),
            row.get::<_, i32>(1),
            escape(row.get(2)),
            escape(row.get(3)),
        );
    }
    body += "</table>";
    Ok(Html(page(&name, &body)))
}

/// `GET /games/HASH`: what the game's header says, and what folding it came to: its
/// score and a link to watch it, or `sandglass verify`'s words for what is wrong.
pub async fn game(
    State(app): State<App>,
    Path(hash): Path<String>,
) -> Result<Html<String>, Refusal> {
    let missing = || Refusal::new(StatusCode::NOT_FOUND, "no such game");
    if !is_hash(&hash) {
        return Err(missing());
    }
    let client = app.pool.get().await?;
    let row = client
        .query_opt(
            "SELECT p.name, g.rules_version, g.ruleset, g.seed, g.events, g.size,
                    to_char(g.submitted_at AT TIME ZONE 'UTC', 'YYYY-MM-DD HH24:MI'),
                    v.ok, v.line, v.final_hash,
                    v.outcome, v.depth, v.turns, v.kills, v.points
             FROM shown_games g JOIN players p ON p.id = g.player_id
             LEFT JOIN verdicts v ON v.game = g.hash WHERE g.hash = $1",
            &[&hash],
        )
        .await?
        .ok_or_else(missing)?;
    let name: String = row.get(0);
    let bytes_url = format!("/replays/{hash}.sgr");
    let mut body = format!(
        "<p>Sent by {} on {} UTC: rules {}, ruleset {}, seed {}, {} events ({} bytes, {}).</p>\n",
        link(&format!("/players/{name}"), &name),
        escape(row.get(6)),
        row.get::<_, i32>(1),
        escape(row.get(2)),
        escape(row.get(3)),
        row.get::<_, i64>(4),
        row.get::<_, i64>(5),
        link(&bytes_url, "the replay file"),
    );
    let verdict: Option<bool> = row.get(7);
    match verdict {
        None => {
            body +=
                "<p>Waiting to be folded: it is ranked once a verifier has replayed its log.</p>"
        }
        Some(false) => {
            body += "<p><strong>Refused.</strong> Its log does not fold to what it says; \
                     <code>sandglass verify</code> says:</p>\n";
            let _ = write!(body, "<pre>{}</pre>", escape(row.get(8)));
        }
        Some(true) => body += &verified(&app, &hash, &row)?,
    }
    Ok(Html(page(&format!("Game {}", &hash[..12]), &body)))
}

/// A verified game's part of its page.
fn verified(app: &App, hash: &str, row: &Row) -> anyhow::Result<String> {
    let outcome = stored_outcome(row.get(10))?;
    let turns: i64 = row.get(12);
    let replay = format!("{}/replays/{hash}.sgr", app.config.public_url);
    let watch = format!(
        "{}?replay={}&turn={turns}",
        app.config.viewer,
        query_value(&replay)
    );
    let mut out = match outcome {
        Some(end) => format!(
            "<p><strong>Verified.</strong> Folded from its log, the camel {} on depth {} after \
             {turns} turns, with {} kills: {} points. Final state hash {}.</p>\n",
            describe(end),
            row.get::<_, i32>(11),
            row.get::<_, i32>(13),
            row.get::<_, i64>(14),
            escape(row.get(9)),
        ),
        None => format!(
            "<p><strong>Verified, not ranked:</strong> its log folds (final state hash {}), \
             but the game had not ended when it was sent.</p>\n",
            escape(row.get(9)),
        ),
    };
    let _ = write!(
        out,
        "<p>{} (at its last turn) · {}</p>\n<p><code>sandglass verify</code> says:</p>\n<pre>{}</pre>",
        link(&watch, "Watch it in the replay viewer"),
        link(&format!("/replays/{hash}.sgr"), "download it"),
        escape(row.get(8)),
    );
    Ok(out)
}

fn describe(outcome: Outcome) -> &'static str {
    match outcome {
        Outcome::Won => "reached the oasis",
        Outcome::Died => "died",
        Outcome::Quit => "stopped (the player quit)",
    }
}

/// The cells of a score: points, end, depth, turns, kills, from the row's columns
/// `outcome, depth, turns, kills, points` starting at `at`; blanks for a game not ranked.
pub(crate) fn score_cells(row: &Row, at: usize) -> String {
    let outcome: Option<String> = row.get(at);
    let depth: Option<i32> = row.get(at + 1);
    let turns: Option<i64> = row.get(at + 2);
    let kills: Option<i32> = row.get(at + 3);
    let points: Option<i64> = row.get(at + 4);
    let cell = |value: Option<String>| format!("<td>{}</td>", value.unwrap_or_default());
    [
        cell(points.map(|p| p.to_string())),
        cell(outcome.map(|o| escape(&o))),
        cell(depth.map(|d| d.to_string())),
        cell(turns.map(|t| t.to_string())),
        cell(kills.map(|k| k.to_string())),
    ]
    .concat()
}

pub(crate) fn game_link(hash: &str) -> String {
    link(&format!("/games/{hash}"), &hash[..12.min(hash.len())])
}
