//! Players: a name belongs to the first key that claims it, and a key plays under one
//! name. Whoever sends a game, a stretch or a daily start is bound here.

use axum::http::StatusCode;
use deadpool_postgres::Transaction;
use tokio_postgres::Row;

use crate::refusal::Refusal;

/// The player `name` as `key`: the name is bound to the first key that claims it, and a
/// key plays under one name.
pub async fn bind_name(tx: &Transaction<'_>, name: &str, key: &str) -> Result<i64, Refusal> {
    let insert = tx
        .prepare_cached(
            "INSERT INTO players (name, public_key) VALUES ($1, $2) ON CONFLICT DO NOTHING",
        )
        .await?;
    tx.execute(&insert, &[&name, &key]).await?;
    match bound_as(tx, name, key).await? {
        Some(id) => Ok(id),
        None => Err(Refusal::internal(anyhow::anyhow!(
            "the player {name} was bound and then not found"
        ))),
    }
}

/// A player's row.
struct PlayerRow {
    id: i64,
    name: String,
    public_key: String,
}

impl PlayerRow {
    fn from_row(row: &Row) -> PlayerRow {
        PlayerRow {
            id: row.get("id"),
            name: row.get("name"),
            public_key: row.get("public_key"),
        }
    }
}

/// The player `name` as `key` if the two are bound together already, `None` if neither
/// is bound yet; refused if either is bound to another.
pub async fn bound_as(tx: &Transaction<'_>, name: &str, key: &str) -> Result<Option<i64>, Refusal> {
    let select = tx
        .prepare_cached(
            "SELECT id, name, public_key FROM players WHERE name = $1 OR public_key = $2",
        )
        .await?;
    let rows = tx.query(&select, &[&name, &key]).await?;
    let mut other_name = None;
    for row in &rows {
        let PlayerRow {
            id,
            name: held,
            public_key: held_by,
        } = PlayerRow::from_row(row);
        match (held == name, held_by == key) {
            (true, true) => return Ok(Some(id)),
            (true, false) => {
                return Err(Refusal::new(
                    StatusCode::FORBIDDEN,
                    format!(
                        "the name {name} belongs to another player's key here; choose another name"
                    ),
                ))
            }
            _ => other_name = Some(held),
        }
    }
    match other_name {
        None => Ok(None),
        Some(held) => Err(Refusal::new(
            StatusCode::FORBIDDEN,
            format!("this key plays here as {held}; send games as {held}"),
        )),
    }
}
