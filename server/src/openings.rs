//! Whose opening a daily run plays: of two players' runs of one desert that share their
//! first `OPENING_COMMANDS` commands and draws (`sandglass_replay::play`), the one the
//! server kept that far first owns those moves, and the other copied them (watched live,
//! and played over into a run of its own) and is never ranked.
//!
//! A submitted game is known by its play as it arrives (`plays::kin`); a run is played a
//! step at a time, so what it shares with another is known as it goes: its opening is
//! noted once, the moment the server holds it, with the time, and compared then with
//! those of the day's other runs. A copy can only come after what it copies, so the time
//! the opening was kept decides, not when the run began or ended.

use deadpool_postgres::Transaction;
use sandglass_claim::hex;
use sandglass_replay::play::Play;
use sandglass_sim::{Event, Header};

use crate::plays;
use crate::refusal::Refusal;

/// Notes the opening of run `run` of `day` (its header `header`, its player
/// `player_id`) once `events`, all it holds now, reach it: its digest, the time, and the
/// other player's run of the day that kept the same opening before, if one did. In the
/// caller's transaction; nothing until the run has played that far.
pub async fn note(
    tx: &Transaction<'_>,
    run: i64,
    day: &str,
    header: &Header,
    player_id: i64,
    events: &[Event],
) -> Result<(), Refusal> {
    let play = Play::of(header, events);
    let Some(opening) = play.opening().map(|mark| hex(&mark.digest)) else {
        return Ok(());
    };
    // Two runs reaching the same opening at once: the second to take the lock sees the
    // first.
    plays::lock_seed(tx, header).await?;
    let first = tx
        .query_opt(
            "SELECT id FROM runs
             WHERE day = $1::text::date AND ruleset = $2 AND opening = $3 AND player_id <> $4
             ORDER BY opening_at, id LIMIT 1",
            &[&day, &header.ruleset.name(), &opening, &player_id],
        )
        .await?;
    let copied_from: Option<i64> = first.map(|row| row.get("id"));
    tx.execute(
        "UPDATE runs SET opening = $2, opening_at = clock_timestamp(), copied_from = $3
         WHERE id = $1",
        &[&run, &opening, &copied_from],
    )
    .await?;
    Ok(())
}
