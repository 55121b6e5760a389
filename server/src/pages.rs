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

/// A board's row: a ranked game, who sent it, what its header says and its score.
struct BoardRow {
    hash: String,
    player: String,
    rules_version: i32,
    ruleset: String,
    seed: String,
    score: ScoreColumns,
}

impl BoardRow {
    fn from_row(row: &Row) -> BoardRow {
        BoardRow {
            hash: row.get("hash"),
            player: row.get("player"),
            rules_version: row.get("rules_version"),
            ruleset: row.get("ruleset"),
            seed: row.get("seed"),
            score: ScoreColumns::from_row(row),
        }
    }
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
                "SELECT g.hash, p.name AS player, g.rules_version, g.ruleset, g.seed,
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
    let mut versions: Vec<i32> = kinds.iter().map(|row| row.get("rules_version")).collect();
    versions.dedup();
    let mut rulesets: Vec<String> = kinds.iter().map(|row| row.get("ruleset")).collect();
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
        for (rank, row) in rows.iter().map(BoardRow::from_row).enumerate() {
            let name = &row.player;
            let _ = writeln!(
                body,
                "<tr><td>{}</td><td>{}</td>{}<td>{}</td><td>{}</td><td>{}</td><td>{}</td></tr>",
                rank + 1,
                link(&format!("/players/{name}"), name),
                row.score.cells(),
                row.rules_version,
                escape(&row.ruleset),
                escape(&row.seed),
                game_link(&row.hash),
            );
        }
        body += "</table>";
    }
    Ok(Html(page(&title, &body)))
}

/// A player as their page shows them.
struct PlayerRow {
    id: i64,
    public_key: String,
    /// The day they first sent something, `YYYY-MM-DD` in UTC.
    joined: String,
}

impl PlayerRow {
    fn from_row(row: &Row) -> PlayerRow {
        PlayerRow {
            id: row.get("id"),
            public_key: row.get("public_key"),
            joined: row.get("joined"),
        }
    }
}

/// One of a player's games: what its header says, whether it was verified (`None`
/// while it waits) and its score.
struct PlayersGameRow {
    hash: String,
    rules_version: i32,
    ruleset: String,
    seed: String,
    ok: Option<bool>,
    score: ScoreColumns,
}

impl PlayersGameRow {
    fn from_row(row: &Row) -> PlayersGameRow {
        PlayersGameRow {
            hash: row.get("hash"),
            rules_version: row.get("rules_version"),
            ruleset: row.get("ruleset"),
            seed: row.get("seed"),
            ok: row.get("ok"),
            score: ScoreColumns::from_row(row),
        }
    }
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
             AS joined FROM players WHERE name = $1",
            &[&name],
        )
        .await?
    else {
        return Err(Refusal::new(StatusCode::NOT_FOUND, "no such player"));
    };
    let player = PlayerRow::from_row(&player);
    let games = client
        .query(
            "SELECT g.hash, g.rules_version, g.ruleset, g.seed, v.ok,
                    v.outcome, v.depth, v.turns, v.kills, v.points
             FROM shown_games g LEFT JOIN verdicts v ON v.game = g.hash
             WHERE g.player_id = $1 ORDER BY g.submitted_at DESC",
            &[&player.id],
        )
        .await?;
    let mut body = format!(
        "<p>Plays here since {} under the key <code>{}</code>: every game below was signed by it.</p>\n",
        escape(&player.joined),
        escape(&player.public_key),
    );
    body += "<table>\n<tr><th>game</th><th>verdict</th><th>points</th><th>end</th>\
             <th>depth</th><th>turns</th><th>kills</th><th>rules</th><th>ruleset</th>\
             <th>seed</th></tr>\n";
    for row in games.iter().map(PlayersGameRow::from_row) {
        let hash = &row.hash;
        // A refused game is named, not linked: its page is for whoever has its hash.
        let (verdict, game) = match row.ok {
            None => ("waiting", game_link(hash)),
            Some(true) => ("verified", game_link(hash)),
            Some(false) => ("refused", escape(&hash[..12.min(hash.len())])),
        };
        let _ = writeln!(
            body,
            "<tr><td>{}</td><td>{verdict}</td>{}<td>{}</td><td>{}</td><td>{}</td></tr>",
            game,
            row.score.cells(),
            row.rules_version,
            escape(&row.ruleset),
            escape(&row.seed),
        );
    }
    body += "</table>";
    Ok(Html(page(&name, &body)))
}

/// A game as sent: who sent it and when, what its header says, and whether it was
/// verified (`None` while it waits).
struct SentGameRow {
    player: String,
    rules_version: i32,
    ruleset: String,
    seed: String,
    events: i64,
    size: i64,
    /// `YYYY-MM-DD HH24:MI` in UTC.
    submitted: String,
    ok: Option<bool>,
}

impl SentGameRow {
    fn from_row(row: &Row) -> SentGameRow {
        SentGameRow {
            player: row.get("player"),
            rules_version: row.get("rules_version"),
            ruleset: row.get("ruleset"),
            seed: row.get("seed"),
            events: row.get("events"),
            size: row.get("size"),
            submitted: row.get("submitted"),
            ok: row.get("ok"),
        }
    }
}

/// A verified game's verdict, from the same row: a verified fold has every figure of
/// its score, and a final hash.
struct VerifiedRow {
    line: String,
    final_hash: String,
    /// Empty for a game that had not ended.
    outcome: Option<String>,
    depth: i32,
    turns: i64,
    kills: i32,
    points: i64,
}

impl VerifiedRow {
    fn from_row(row: &Row) -> VerifiedRow {
        VerifiedRow {
            line: row.get("line"),
            final_hash: row.get("final_hash"),
            outcome: row.get("outcome"),
            depth: row.get("depth"),
            turns: row.get("turns"),
            kills: row.get("kills"),
            points: row.get("points"),
        }
    }
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
            "SELECT p.name AS player, g.rules_version, g.ruleset, g.seed, g.events, g.size,
                    to_char(g.submitted_at AT TIME ZONE 'UTC', 'YYYY-MM-DD HH24:MI') AS submitted,
                    v.ok, v.line, v.final_hash,
                    v.outcome, v.depth, v.turns, v.kills, v.points
             FROM shown_games g JOIN players p ON p.id = g.player_id
             LEFT JOIN verdicts v ON v.game = g.hash WHERE g.hash = $1",
            &[&hash],
        )
        .await?
        .ok_or_else(missing)?;
    let sent = SentGameRow::from_row(&row);
    let name = &sent.player;
    let bytes_url = format!("/replays/{hash}.sgr");
    let mut body = format!(
        "<p>Sent by {} on {} UTC: rules {}, ruleset {}, seed {}, {} events ({} bytes, {}).</p>\n",
        link(&format!("/players/{name}"), name),
        escape(&sent.submitted),
        sent.rules_version,
        escape(&sent.ruleset),
        escape(&sent.seed),
        sent.events,
        sent.size,
        link(&bytes_url, "the replay file"),
    );
    match sent.ok {
        None => {
            body +=
                "<p>Waiting to be folded: it is ranked once a verifier has replayed its log.</p>"
        }
        Some(false) => {
            body += "<p><strong>Refused.</strong> Its log does not fold to what it says; \
                     <code>sandglass verify</code> says:</p>\n";
            let _ = write!(body, "<pre>{}</pre>", escape(row.get("line")));
        }
        Some(true) => body += &verified(&app, &hash, &VerifiedRow::from_row(&row))?,
    }
    Ok(Html(page(&format!("Game {}", &hash[..12]), &body)))
}

/// A verified game's part of its page.
fn verified(app: &App, hash: &str, row: &VerifiedRow) -> anyhow::Result<String> {
    let outcome = stored_outcome(row.outcome.clone())?;
    let turns = row.turns;
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
            row.depth,
            row.kills,
            row.points,
            escape(&row.final_hash),
        ),
        None => format!(
            "<p><strong>Verified, not ranked:</strong> its log folds (final state hash {}), \
             but the game had not ended when it was sent.</p>\n",
            escape(&row.final_hash),
        ),
    };
    let _ = write!(
        out,
        "<p>{} (at its last turn) · {}</p>\n<p><code>sandglass verify</code> says:</p>\n<pre>{}</pre>",
        link(&watch, "Watch it in the replay viewer"),
        link(&format!("/replays/{hash}.sgr"), "download it"),
        escape(&row.line),
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

/// A verdict's score, from a row's columns `outcome, depth, turns, kills, points`:
/// empty for a game not ranked.
pub(crate) struct ScoreColumns {
    outcome: Option<String>,
    depth: Option<i32>,
    turns: Option<i64>,
    kills: Option<i32>,
    points: Option<i64>,
}

impl ScoreColumns {
    pub(crate) fn from_row(row: &Row) -> ScoreColumns {
        ScoreColumns {
            outcome: row.get("outcome"),
            depth: row.get("depth"),
            turns: row.get("turns"),
            kills: row.get("kills"),
            points: row.get("points"),
        }
    }

    /// Whether the fold found the game ended: only such a game is ranked.
    pub(crate) fn ended(&self) -> bool {
        self.outcome.is_some()
    }

    /// The cells of a score: points, end, depth, turns, kills; blanks for a game not
    /// ranked.
    pub(crate) fn cells(&self) -> String {
        let cell = |value: Option<String>| format!("<td>{}</td>", value.unwrap_or_default());
        [
            cell(self.points.map(|p| p.to_string())),
            cell(self.outcome.as_deref().map(escape)),
            cell(self.depth.map(|d| d.to_string())),
            cell(self.turns.map(|t| t.to_string())),
            cell(self.kills.map(|k| k.to_string())),
        ]
        .concat()
    }
}

pub(crate) fn game_link(hash: &str) -> String {
    link(&format!("/games/{hash}"), &hash[..12.min(hash.len())])
}
