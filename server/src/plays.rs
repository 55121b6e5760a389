//! Whose moves a game holds: a game belongs to the player who sent its play first
//! (`sandglass_replay::play`), whatever its bytes, and a game that begins with another
//! player's moves is theirs in part and ranked as nobody's.
//!
//! A game sent is compared with every game held, by its play's digests:
//! * the same play (a copy re-stamped, or the same file): the first sender's;
//! * a held game that is a prefix of it (another's game continued past where it was sent);
//! * it a prefix of a held game (another's game cut short);
//! * the same first `OPENING_COMMANDS` commands (another's game taken over part way).
//!
//! The last three are refused, not ranked as branches: a branch would outrank the game
//! it was taken from with moves that are not its sender's, and the only sure way to rank
//! it below is not to rank it. A player's own branches are theirs, and taken as any game.

use std::time::Duration;

use anyhow::Context;
use axum::http::StatusCode;
use deadpool_postgres::Pool;
use deadpool_postgres::Transaction;
use sandglass_claim::hex;
use sandglass_replay::play::{Play, OPENING_COMMANDS};
use sandglass_sim::Header;

use crate::objects::Objects;
use crate::refusal::Refusal;

/// How a game sent relates to a game held.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kinship {
    /// The same play.
    Same,
    /// The held game is the start of the one sent, which goes on past it.
    Continues,
    /// The game sent is the start of the held game.
    CutFrom,
    /// The two share their first `OPENING_COMMANDS` commands, then part.
    TakenOver,
}

/// A held game the one sent is kin to: its content hash and its sender.
#[derive(Debug)]
pub struct Kin {
    pub kinship: Kinship,
    pub game: String,
    pub player_id: i64,
    pub player: String,
}

impl Kin {
    /// Why a game that is kin to another player's is refused, in words.
    pub fn refusal_words(&self) -> String {
        let owner = &self.player;
        match self.kinship {
            Kinship::Same => format!("this game was sent already, by {owner}: it is theirs"),
            Kinship::Continues => format!(
                "this game begins with {owner}'s game (sent already, every move of it): those \
                 moves are theirs, and a game continued from another player's is not ranked here"
            ),
            Kinship::CutFrom => format!(
                "this game is the beginning of {owner}'s game, sent already: its moves are theirs"
            ),
            Kinship::TakenOver => format!(
                "this game's first {OPENING_COMMANDS} commands are those of {owner}'s game, sent \
                 already: those moves are theirs, and a game taken over from another player's \
                 is not ranked here"
            ),
        }
    }
}

/// The held game the one of `play` is kin to, the first sent of them; one of `player_id`'s
/// own counts only when it is the same play.
pub async fn kin(
    tx: &Transaction<'_>,
    play: &Play,
    player_id: i64,
) -> Result<Option<Kin>, Refusal> {
    let whole = hex(&play.whole);
    let marks: Vec<String> = play.marks.iter().map(|m| hex(&m.digest)).collect();
    let opening = play.opening().map(|m| hex(&m.digest));
    let select = tx
        .prepare_cached(
            "SELECT kinship, g.hash, g.player_id, p.name FROM (
                 SELECT 'same' AS kinship, hash FROM games WHERE play = $1
                 UNION ALL
                 SELECT 'continues', hash FROM games WHERE play = ANY($2) AND play <> $1
                 UNION ALL
                 SELECT CASE WHEN m.digest = $1 THEN 'cut' ELSE 'taken over' END, m.game
                 FROM play_marks m WHERE m.digest = $1 OR m.digest = $3
             ) k
             JOIN games g ON g.hash = k.hash JOIN players p ON p.id = g.player_id
             WHERE k.kinship = 'same' OR g.player_id <> $4
             ORDER BY g.submitted_at, g.hash, k.kinship <> 'same'",
        )
        .await?;
    let rows = tx
        .query(&select, &[&whole, &marks, &opening, &player_id])
        .await?;
    Ok(rows.into_iter().find_map(|row| {
        let kinship = match row.get::<_, &str>("kinship") {
            "same" => Kinship::Same,
            "continues" => Kinship::Continues,
            "cut" => Kinship::CutFrom,
            "taken over" => Kinship::TakenOver,
            _ => return None,
        };
        Some(Kin {
            kinship,
            game: row.get("hash"),
            player_id: row.get("player_id"),
            player: row.get("name"),
        })
    }))
}

/// Keeps the play of a game kept before plays were (`learn_older`): its whole digest in
/// its row, its marks beside.
pub async fn keep(tx: &Transaction<'_>, hash: &str, play: &Play) -> Result<(), Refusal> {
    tx.execute(
        "UPDATE games SET play = $2, commands = $3 WHERE hash = $1",
        &[&hash, &hex(&play.whole), &(play.commands as i64)],
    )
    .await?;
    let (commands, digests) = marks(play);
    tx.execute(
        "INSERT INTO play_marks (game, commands, digest)
         SELECT $1, * FROM unnest($2::integer[], $3::text[]) ON CONFLICT DO NOTHING",
        &[&hash, &commands, &digests],
    )
    .await?;
    Ok(())
}

/// The marks of `play` as the table holds them: their commands and their digests.
pub fn marks(play: &Play) -> (Vec<i32>, Vec<String>) {
    play.marks
        .iter()
        .map(|m| (m.commands as i32, hex(&m.digest)))
        .unzip()
}

/// Holds, until the transaction ends, every other sending of a game of this seed: two
/// games can be kin only if they share it (their rules versions and rulesets may differ,
/// `sandglass_replay::play`), and the first to be kept must be seen by the check of the
/// second.
pub async fn lock_seed(tx: &Transaction<'_>, header: &Header) -> Result<(), Refusal> {
    let key = format!("seed {}", header.seed);
    let lock = tx
        .prepare_cached("SELECT pg_advisory_xact_lock(hashtextextended($1, 0))")
        .await?;
    tx.execute(&lock, &[&key]).await?;
    Ok(())
}

/// Refuses, for now, while any held game's play is not yet worked out (`learn_older`, on
/// a database whose plays were known by an older encoding): a game kin to it would not
/// be found.
pub async fn all_known(tx: &Transaction<'_>) -> Result<(), Refusal> {
    let unknown = tx
        .prepare_cached("SELECT EXISTS (SELECT 1 FROM games WHERE play IS NULL) AS unknown")
        .await?;
    if tx.query_one(&unknown, &[]).await?.get("unknown") {
        return Err(Refusal::new(
            StatusCode::SERVICE_UNAVAILABLE,
            "the server is working out the plays of the games it held before its upgrade, \
             to know a copy when it sees one; try again in a minute",
        )
        .retry_after(30));
    }
    Ok(())
}

/// Works out the play of every game kept before plays were (a server's first start on a
/// database of an older layout), from its bytes, a few at a time, so that those games
/// too are found by the games sent after. Runs beside the server until none is left.
pub async fn learn_older(pool: Pool, objects: Objects) {
    loop {
        match learn_some(&pool, &objects).await {
            Ok(0) => return,
            Ok(_) => {}
            Err(error) => {
                tracing::error!("working out the plays of older games: {error:#}");
                tokio::time::sleep(Duration::from_secs(10)).await;
            }
        }
    }
}

/// Works out the plays of a few older games; how many.
async fn learn_some(pool: &Pool, objects: &Objects) -> anyhow::Result<usize> {
    let mut client = pool.get().await?;
    let tx = client.transaction().await?;
    let rows = tx
        .query(
            "SELECT hash FROM games WHERE play IS NULL ORDER BY submitted_at LIMIT 16
             FOR UPDATE SKIP LOCKED",
            &[],
        )
        .await?;
    for row in &rows {
        let hash: String = row.get("hash");
        let bytes = objects.fetch(&hash).await?;
        let file = tokio::task::spawn_blocking(move || sandglass_replay::from_bytes(&bytes))
            .await?
            .with_context(|| format!("the bytes of game {hash}"))?;
        let play = Play::of(&file.header, &file.events);
        keep(&tx, &hash, &play)
            .await
            .map_err(|refusal| anyhow::anyhow!("{}", refusal.words))?;
    }
    tx.commit().await?;
    Ok(rows.len())
}
