//! A game's row: what its header says, its play's marks and its place in the
//! verifiers' queue, written together whether it was sent whole (`submit`) or streamed
//! as a daily run (`runs`).

use deadpool_postgres::Transaction;
use sandglass_claim::hex;
use sandglass_replay::play::Play;
use sandglass_sim::Recording;

use crate::names::ruleset_label;
use crate::plays;
use crate::refusal::Refusal;

/// The game's row, with what its header says, and its place in the queue; `false` if
/// another transaction added the game first.
pub async fn add_game(
    tx: &Transaction<'_>,
    hash: &str,
    player_id: i64,
    size: usize,
    file: &Recording,
    play: &Play,
) -> Result<bool, Refusal> {
    let header = &file.header;
    let (commands, digests) = plays::marks(play);
    // One statement: the row, its play's marks and its place in the queue, or nothing
    // at all when the row is there already.
    let insert = tx
        .prepare_cached(
            "WITH game AS (
                 INSERT INTO games (hash, player_id, size, rules_version, ruleset, seed, events,
                                    play, commands)
                 VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9) ON CONFLICT (hash) DO NOTHING
                 RETURNING hash
             ), marks AS (
                 INSERT INTO play_marks (game, commands, digest)
                 SELECT game.hash, m.commands, m.digest
                 FROM game, unnest($10::integer[], $11::text[]) AS m (commands, digest)
             )
             INSERT INTO queue (game) SELECT hash FROM game RETURNING game",
        )
        .await?;
    let added = tx
        .query_opt(
            &insert,
            &[
                &hash,
                &player_id,
                &(size as i64),
                &i32::from(header.rules_version),
                &ruleset_label(&header.ruleset),
                &header.seed.to_string(),
                &(file.events.len() as i64),
                &hex(&play.whole),
                &(play.commands as i64),
                &commands,
                &digests,
            ],
        )
        .await?;
    Ok(added.is_some())
}
