//! The daily desert's pages: today's (`/daily`) and any day's (`/daily/DAY`), one board
//! per named ruleset. A board ranks the day's runs a verifier has folded to their end;
//! below them, the runs still being played (each with a link to watch it live), those
//! left unfinished when the day ended, and those stopped on an event that did not fold.

use std::fmt::Write;

use axum::extract::{Path, State};
use axum::http::StatusCode;
use axum::response::Html;
use sandglass_claim::daily_commitment_line;
use sandglass_protocol::daily::Day;
use sandglass_protocol::ranking::BEST_FIRST;
use sandglass_replay::play::OPENING_COMMANDS;
use sandglass_sim::Ruleset;
use tokio_postgres::Row;

use crate::app::App;
use crate::days::{find_day, make_today, parse_day, today};
use crate::html::{escape, link, page, query_value};
use crate::names::ruleset_label;
use crate::pages::{game_link, ScoreColumns};
use crate::refusal::Refusal;

/// What a day's board proves, and what it does not.
const PROOF: &str = "Every ranked run was streamed to this server from its first step as it \
    was played, checked event by event as it came, and folded again from its log by a \
    verifier. It is the player's one try at the day's seed, which the server gives out only \
    with a run and shows to all when the day is over; its commitment, below, was fixed \
    before. Another name is another try (a board cannot know two names are one person), \
    and a run watched live shows its desert to whoever watches.";

/// `GET /daily`: today's deserts.
pub async fn today_page(State(app): State<App>) -> Result<Html<String>, Refusal> {
    let client = app.pool.get().await?;
    let day = today(&client).await?;
    day_page(&app, &client, &day).await
}

/// `GET /daily/DAY`: a day's deserts, their seeds shown once the day is over.
pub async fn any_day_page(
    State(app): State<App>,
    Path(day): Path<String>,
) -> Result<Html<String>, Refusal> {
    let day = parse_day(&day).ok_or_else(|| Refusal::new(StatusCode::NOT_FOUND, "no such day"))?;
    let client = app.pool.get().await?;
    day_page(&app, &client, &day).await
}

async fn day_page(
    app: &App,
    client: &deadpool_postgres::Client,
    day: &str,
) -> Result<Html<String>, Refusal> {
    let is_today = day == today(client).await?;
    let mut body = format!("<p class=\"proof\">{}</p>\n", escape(PROOF));
    if is_today {
        body += "<p>Play it with <code>sandglass daily</code>, or <em>Daily desert</em> on \
                 the game's start screen, once a server is named.</p>\n";
    }
    for ruleset in Ruleset::NAMED {
        let ruleset = ruleset_label(&ruleset);
        let desert = match is_today {
            true => Some(make_today(client, &ruleset).await?),
            false => find_day(client, day, &ruleset).await?,
        };
        let Some(desert) = desert else {
            let _ = writeln!(
                body,
                "<h2>{ruleset}</h2>\n<p>No desert was played that day.</p>"
            );
            continue;
        };
        body += &seed_part(&desert);
        body += &board(app, client, &desert).await?;
    }
    let earlier = client
        .query(
            "SELECT DISTINCT to_char(day, 'YYYY-MM-DD') AS day FROM days
             WHERE day < $1::text::date ORDER BY 1 DESC LIMIT 30",
            &[&day],
        )
        .await?;
    if !earlier.is_empty() {
        body += "<p>Earlier days: ";
        let days: Vec<String> = earlier
            .iter()
            .map(|row| {
                let day: String = row.get("day");
                link(&format!("/daily/{day}"), &day)
            })
            .collect();
        body += &days.join(" · ");
        body += "</p>\n";
    }
    Ok(Html(page(&format!("The daily desert of {day}"), &body)))
}

/// A desert's heading, its commitment, and its seed once the day is over, with how to
/// check the one against the other.
fn seed_part(desert: &Day) -> String {
    let mut out = format!(
        "<h2>{} (rules {})</h2>\n<p>Commitment: <code>{}</code></p>\n",
        escape(&desert.ruleset),
        desert.rules,
        escape(&desert.commitment)
    );
    match (&desert.seed, &desert.salt) {
        (Some(seed), Some(salt)) => {
            let line = daily_commitment_line(&desert.day, &desert.ruleset, seed, salt);
            let _ = writeln!(
                out,
                "<p>Seed <code>{}</code>, salt <code>{}</code>. Check that this was the seed \
                 fixed before the day: <code>printf %s '{}' | sha256sum</code> prints the \
                 commitment.</p>",
                escape(seed),
                escape(salt),
                escape(&line)
            );
        }
        _ => out += "<p>The seed is shown here when the day is over (midnight UTC).</p>\n",
    }
    out
}

/// The desert's runs: the ranked first, then the rest, each saying where it stands.
async fn board(
    app: &App,
    client: &deadpool_postgres::Client,
    desert: &Day,
) -> Result<String, Refusal> {
    // The ranked first, best first; then the rest, whose score's columns are null.
    let rows = client
        .query(
            &format!(
                "SELECT r.id, p.name AS player, r.depth AS run_depth, r.turns AS run_turns,
                        r.refused, r.outcome AS run_outcome, day_is_over(r.day) AS day_over,
                        v.ok, r.game, v.outcome, v.depth, v.turns, v.kills, v.points,
                        cp.name AS copied_from
                 FROM runs r JOIN players p ON p.id = r.player_id
                 LEFT JOIN verdicts v ON v.game = r.game
                 LEFT JOIN runs c ON c.id = r.copied_from
                 LEFT JOIN players cp ON cp.id = c.player_id
                 WHERE r.day = $1::text::date AND r.ruleset = $2
                 ORDER BY (v.ok AND v.outcome IS NOT NULL AND r.copied_from IS NULL) IS TRUE
                          DESC, {BEST_FIRST}, r.started_at"
            ),
            &[&desert.day, &desert.ruleset],
        )
        .await?;
    if rows.is_empty() {
        return Ok("<p>Nobody has started this desert yet.</p>\n".to_owned());
    }
    let mut out = "<table>\n<tr><th>#</th><th>player</th><th>points</th><th>end</th>\
                   <th>depth</th><th>turns</th><th>kills</th><th>run</th></tr>\n"
        .to_owned();
    let mut rank = 0;
    for row in rows.iter().map(DayRunRow::from_row) {
        let (run, name) = (row.id, &row.player);
        let ranked = row.ok == Some(true) && row.score.ended() && row.copied_from.is_none();
        let watch = format!(
            "{}?live={}",
            app.config.viewer,
            query_value(&format!("{}/runs/{run}/live", app.config.public_url))
        );
        let (place, cells, status) = if ranked {
            rank += 1;
            let status = match desert.seed {
                Some(_) => game_link(row.game.as_deref().expect("a ranked run is a game")),
                None => link(&watch, "watch it"),
            };
            (rank.to_string(), row.score.cells(), status)
        } else {
            let (depth, turns) = (row.run_depth, row.run_turns);
            let cells = format!(
                "<td></td><td>{}</td><td>{depth}</td><td>{turns}</td><td></td>",
                row.standing()
            );
            let status = match (&row.refused, row.day_over) {
                (Some(why), _) => format!("stopped: {}", escape(why)),
                (None, _) if row.copied_from.is_some() => copied_words(&row),
                (None, _) if row.run_outcome.is_some() => {
                    format!("being verified · {}", link(&watch, "watch it"))
                }
                (None, true) => link(&watch, "watch it"),
                (None, false) => format!("playing now · {}", link(&watch, "watch live")),
            };
            (String::new(), cells, status)
        };
        let _ = writeln!(
            out,
            "<tr><td>{place}</td><td>{}</td>{cells}<td>{status}</td></tr>",
            link(&format!("/players/{name}"), name),
        );
    }
    out += "</table>\n";
    Ok(out)
}

/// Why a run that copied another's first moves is not ranked, in words.
fn copied_words(row: &DayRunRow) -> String {
    let first = row.copied_from.as_deref().unwrap_or_default();
    format!(
        "not ranked: its first {OPENING_COMMANDS} commands are {}'s run's, played here first",
        escape(first)
    )
}

/// A run of a day's board: the run as far as its stream went, and its verdict's score
/// once a verifier has folded it.
struct DayRunRow {
    id: i64,
    player: String,
    run_depth: i32,
    run_turns: i64,
    /// Why its stream was stopped, if it was.
    refused: Option<String>,
    /// How its stream ended, if it has.
    run_outcome: Option<String>,
    day_over: bool,
    /// The verifier's verdict on the finished run, once it has one.
    ok: Option<bool>,
    /// The finished run as a game.
    game: Option<String>,
    score: ScoreColumns,
    /// The player whose run of the day kept these first moves before this one did
    /// (`openings`), if another did.
    copied_from: Option<String>,
}

impl DayRunRow {
    fn from_row(row: &Row) -> DayRunRow {
        DayRunRow {
            id: row.get("id"),
            player: row.get("player"),
            run_depth: row.get("run_depth"),
            run_turns: row.get("run_turns"),
            refused: row.get("refused"),
            run_outcome: row.get("run_outcome"),
            day_over: row.get("day_over"),
            ok: row.get("ok"),
            game: row.get("game"),
            score: ScoreColumns::from_row(row),
            copied_from: row.get("copied_from"),
        }
    }

    /// A run not ranked, in a word: still being played, being verified, abandoned or
    /// stopped.
    fn standing(&self) -> &'static str {
        let refused = self.refused.is_some();
        let ended = self.run_outcome.is_some();
        match (refused, ended, self.day_over) {
            (true, _, _) => "refused",
            _ if self.copied_from.is_some() => "copied",
            (false, true, _) => "ended",
            (false, false, true) => "abandoned",
            (false, false, false) => "playing",
        }
    }
}
