//! The daily desert's routes: a day's commitment (and its seed once it is over) as JSON,
//! and a player's start of today's run. One ranked run a player a day: a player gets the
//! seed only by starting their run, which is then streamed to the server as it is played
//! (`runs`).

use std::net::SocketAddr;

use axum::extract::{ConnectInfo, Path, State};
use axum::http::{HeaderMap, StatusCode};
use axum::Json;
use sandglass_claim::{daily_deal_content, daily_start_content};
use sandglass_protocol::daily::{Day, Started};
use sandglass_protocol::dealt::Dealing;
use tokio_postgres::Row;

use crate::app::App;
use crate::days::{find_day, make_today, named_ruleset, parse_day, today};
use crate::dealt;
use crate::limits::{self, Bucket, Post};
use crate::names::ruleset_label;
use crate::players::bound_as;
use crate::refusal::Refusal;
use crate::runs::header_of;
use crate::upload::{signed_by, Signed};

/// `GET /daily/DAY/RULESET.json`: the day's commitment, and its seed and salt once it
/// is over. Today's is made if nobody asked for it yet.
pub async fn day_json(
    State(app): State<App>,
    Path((day, file)): Path<(String, String)>,
) -> Result<Json<Day>, Refusal> {
    let ruleset = file
        .strip_suffix(".json")
        .ok_or_else(|| Refusal::new(StatusCode::NOT_FOUND, "no such page"))?;
    let ruleset = ruleset_label(&named_ruleset(ruleset)?);
    let client = app.pool.get().await?;
    let day = parse_day(&day)
        .ok_or_else(|| Refusal::new(StatusCode::NOT_FOUND, "a day is written YYYY-MM-DD"))?;
    if day == today(&client).await? {
        return Ok(Json(make_today(&client, &ruleset).await?));
    }
    find_day(&client, &day, &ruleset)
        .await?
        .map(Json)
        .ok_or_else(|| Refusal::new(StatusCode::NOT_FOUND, "no desert was played that day"))
}

/// How long a started run that was never sent a stretch is kept: past it, the start
/// is forgotten (a later start of the same day is given the same desert again).
pub const UNSTREAMED_START_EXPIRES: std::time::Duration = std::time::Duration::from_secs(3600);

/// The player's run of the day as a start finds it, with the day's seed.
struct StartedRow {
    id: i64,
    events: i64,
    /// Neither ended nor stopped.
    open: bool,
    seed: String,
    dealt: bool,
    started: i64,
}

impl StartedRow {
    fn from_row(row: &Row) -> StartedRow {
        StartedRow {
            id: row.get("id"),
            events: row.get("events"),
            open: row.get("open"),
            seed: row.get("seed"),
            dealt: row.get("dealt"),
            started: row.get("started"),
        }
    }
}

/// The run a start or a dealing begins: the player's run of the day, and the day's rules.
struct Begun {
    run: StartedRow,
    day: String,
    ruleset: String,
    rules: u16,
}

/// `POST /daily/DAY/RULESET/start`, signed: the player's run of today's desert, and its
/// seed, for a day under rules whose draws cannot be dealt (a day made by a server of
/// rules 14 or older); any other day is only dealt. One run a player a day: a second
/// start is refused once the first has events; one whose answer was lost (no events
/// yet) is given again.
pub async fn start(
    State(app): State<App>,
    ConnectInfo(peer): ConnectInfo<SocketAddr>,
    Path((day, ruleset)): Path<(String, String)>,
    headers: HeaderMap,
) -> Result<Json<Started>, Refusal> {
    let begun = begin(&app, peer, day, ruleset, &headers, false).await?;
    Ok(Json(Started {
        run: begun.run.id,
        day: begun.day,
        ruleset: begun.ruleset,
        rules: begun.rules,
        seed: begun.run.seed,
        events: begun.run.events as u64,
    }))
}

/// `POST /daily/DAY/RULESET/deal`, signed: the player's dealt run of today's desert
/// (`dealt`), with the draws of its first level; never its seed. One run a player a day,
/// dealt or not; a dealing whose answer was lost (no command yet) is given again, the
/// same opening.
pub async fn deal(
    State(app): State<App>,
    ConnectInfo(peer): ConnectInfo<SocketAddr>,
    Path((day, ruleset)): Path<(String, String)>,
    headers: HeaderMap,
) -> Result<Json<Dealing>, Refusal> {
    let begun = begin(&app, peer, day, ruleset, &headers, true).await?;
    let (run, rules) = (&begun.run, i32::from(begun.rules));
    let header = header_of(rules, &begun.ruleset, &run.seed, run.started)
        .ok_or_else(|| Refusal::internal(anyhow::anyhow!("run {}'s day is unreadable", run.id)))?;
    let (live, opening) = dealt::opening(&header).await?;
    let events = opening.len() as u64;
    Ok(Json(Dealing {
        run: begun.run.id,
        day: begun.day,
        ruleset: begun.ruleset,
        rules: begun.rules,
        started: begun.run.started as u64,
        opening: dealt::dealt(begun.run.id, 0, &opening, live.state(), events),
    }))
}

/// Begins the player's run of today's desert, `dealt` or with its seed handed over,
/// or finds the one they began and never sent anything of: the checks both starts
/// share, and the run's row.
async fn begin(
    app: &App,
    peer: SocketAddr,
    day: String,
    ruleset: String,
    headers: &HeaderMap,
    dealt: bool,
) -> Result<Begun, Refusal> {
    let ruleset = ruleset_label(&named_ruleset(&ruleset)?);
    let Signed {
        player,
        key,
        signature,
    } = signed_by(headers)?;
    let limits = app.config.limits;
    app.admission
        .admit(limits, Post::DailyStart, peer.ip(), &key)?;
    let content = match dealt {
        true => daily_deal_content(&day, &ruleset),
        false => daily_start_content(&day, &ruleset),
    };
    app.check_claim(&player, content, &key, &signature)?;
    limits::take(&app.pool, limits, Post::DailyStart, Bucket::Key(&key)).await?;
    let mut client = app.pool.get().await?;
    let tx = client.transaction().await?;
    let today = today(&tx).await?;
    if day != today {
        return Err(Refusal::new(
            StatusCode::CONFLICT,
            format!("the desert of {day} cannot be started: today (UTC) is {today}"),
        ));
    }
    // Nothing is bound by a start: the name and key wait in the run until its first
    // stretch lands (`runs::append`), and a start that never streams is forgotten. The
    // player is told now if either belongs to another.
    let player_id = bound_as(&tx, &player, &key).await?;
    let desert = make_today(&tx, &ruleset).await?;
    // A day that can be dealt is only dealt: a start would hand its seed over, and a
    // second game played from it walks the whole desert ahead of the ranked run.
    match (dealt, dealt::can_be_dealt(desert.rules)) {
        (true, false) => {
            return Err(Refusal::new(
                StatusCode::CONFLICT,
                format!(
                    "the desert of {day} is played under rules version {}, whose draws follow \
                     from one another: it cannot be dealt (start it instead)",
                    desert.rules
                ),
            ))
        }
        (false, true) => {
            return Err(Refusal::new(
                StatusCode::CONFLICT,
                format!(
                    "the desert of {day} is dealt: its seed is kept until the day is over, and \
                     each step's draws are dealt as it is played. Begin it with POST \
                     /daily/{day}/{ruleset}/deal (sandglass daily does)"
                ),
            ))
        }
        _ => {}
    }
    tx.execute(
        "DELETE FROM runs WHERE player_id IS NULL
             AND started_at < now() - $1::bigint * interval '1 second'",
        &[&(UNSTREAMED_START_EXPIRES.as_secs() as i64)],
    )
    .await?;
    tx.execute(
        "INSERT INTO runs (day, ruleset, player_id, claimed_name, claimed_key, dealt)
         SELECT $1::text::date, $2, NULL, $3, $4, $6
         WHERE $5::bigint IS NULL OR NOT EXISTS (
             SELECT 1 FROM runs WHERE day = $1::text::date AND ruleset = $2 AND player_id = $5)
         ON CONFLICT DO NOTHING",
        &[&day, &ruleset, &player, &key, &player_id, &dealt],
    )
    .await?;
    // The seed from `days` itself, not `shown_days`: the start of a run is where a
    // player is given the day's seed before the day is over, and the one place; a
    // dealing folds the opening from it and gives none of it.
    let run = tx
        .query_one(
            "SELECT r.id, r.events, r.outcome IS NULL AND r.refused IS NULL AS open, d.seed,
                    r.dealt, EXTRACT(EPOCH FROM r.started_at)::bigint AS started
             FROM runs r JOIN days d ON d.day = r.day AND d.ruleset = r.ruleset
             WHERE r.day = $1::text::date AND r.ruleset = $2
               AND (r.player_id = $3 OR (r.player_id IS NULL AND r.claimed_key = $4))
             ORDER BY r.player_id NULLS LAST LIMIT 1",
            &[&day, &ruleset, &player_id, &key],
        )
        .await?;
    let run = StartedRow::from_row(&run);
    if run.events > 0 || !run.open {
        return Err(Refusal::new(
            StatusCode::CONFLICT,
            format!(
                "{player} has played the {ruleset} desert of {day} already (run {}): one \
                 try a day",
                run.id
            ),
        ));
    }
    if run.dealt != dealt {
        let began = match run.dealt {
            true => "dealt (its seed kept by the server)",
            false => "with its seed handed over",
        };
        return Err(Refusal::new(
            StatusCode::CONFLICT,
            format!(
                "{player} began the {ruleset} desert of {day} already (run {}), {began}: one \
                 try a day, begun one way",
                run.id
            ),
        ));
    }
    tx.commit().await?;
    Ok(Begun {
        run,
        day,
        ruleset,
        rules: desert.rules,
    })
}
