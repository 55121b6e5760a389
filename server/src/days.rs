//! The daily desert: one seed a UTC day for each named ruleset, the same for everyone,
//! fixed in advance and shown only when the day is over.
//!
//! A day's row is made the first time the day is asked for, with a seed and a salt from
//! the system's randomness, and never changes (the first process to make it wins; every
//! other reads it). Its commitment, the SHA-256 of `sandglass daily DAY RULESET SEED
//! SALT`, is shown from then on; its seed and salt once the day is over, so that anyone
//! can check the seed every run of the day was given was the one fixed before it.

use axum::http::StatusCode;
use deadpool_postgres::GenericClient;
use sandglass_claim::{content_hash, daily_commitment_line, hex};
use sandglass_protocol::daily::Day;
use sandglass_sim::rules::NEWEST;
use sandglass_sim::Ruleset;
use tokio_postgres::Row;

use crate::refusal::Refusal;

/// Today, in UTC, by the database's clock: every server process agrees on the day.
pub async fn today(client: &impl GenericClient) -> Result<String, Refusal> {
    let row = client
        .query_one("SELECT to_char(utc_today(), 'YYYY-MM-DD') AS today", &[])
        .await?;
    Ok(row.get("today"))
}

/// A ruleset named in a path: one of the named rulesets.
pub fn named_ruleset(name: &str) -> Result<Ruleset, Refusal> {
    Ruleset::by_name(name).ok_or_else(|| {
        let names: Vec<&str> = Ruleset::NAMED.iter().map(|r| r.name()).collect();
        Refusal::new(
            StatusCode::NOT_FOUND,
            format!(
                "there is no daily desert for the ruleset {name:?}: there is one for {}",
                names.join(" and ")
            ),
        )
    })
}

/// A day as written in a path, `YYYY-MM-DD`, a real one; `None` for anything else.
pub fn parse_day(day: &str) -> Option<String> {
    let date: jiff::civil::Date = day.parse().ok()?;
    // No desert was made before the Unix epoch; and days PostgreSQL cannot hold (the
    // year 0, which its calendar lacks) are no days at all, not the database's failure.
    if date.year() < 1970 {
        return None;
    }
    let written = date.strftime("%Y-%m-%d").to_string();
    (written == day).then_some(written)
}

/// Today's desert for `ruleset`, made if this is the first time it is asked for.
pub async fn make_today(client: &impl GenericClient, ruleset: &str) -> Result<Day, Refusal> {
    let day = today(client).await?;
    // Made once a day: every later page and start only reads it.
    if let Some(desert) = find_day(client, &day, ruleset).await? {
        return Ok(desert);
    }
    let mut seed_bytes = [0u8; 8];
    let mut salt_bytes = [0u8; 16];
    getrandom::fill(&mut seed_bytes)
        .and_then(|_| getrandom::fill(&mut salt_bytes))
        .map_err(|e| Refusal::internal(anyhow::anyhow!("no randomness for a seed: {e}")))?;
    let seed = u64::from_le_bytes(seed_bytes).to_string();
    let salt = hex(&salt_bytes);
    let commitment = hex(&content_hash(
        daily_commitment_line(&day, ruleset, &seed, &salt).as_bytes(),
    ));
    client
        .execute(
            "INSERT INTO days (day, ruleset, rules_version, seed, salt, commitment)
             VALUES ($1::text::date, $2, $3, $4, $5, $6) ON CONFLICT DO NOTHING",
            &[
                &day,
                &ruleset,
                &i32::from(NEWEST),
                &seed,
                &salt,
                &commitment,
            ],
        )
        .await?;
    find_day(client, &day, ruleset).await?.ok_or_else(|| {
        Refusal::internal(anyhow::anyhow!(
            "the desert of {day} was made and cannot be read"
        ))
    })
}

/// The day whose desert `seed` is, if that day's seed is not shown yet (`shown_days`):
/// until then no game played from it is shown either (a day's run sent again as a
/// game, or a game played from a seed passed on).
pub async fn unrevealed_day(
    client: &impl GenericClient,
    seed: u64,
) -> Result<Option<String>, Refusal> {
    let select = client
        .prepare_cached(
            "SELECT to_char(d.day, 'YYYY-MM-DD') AS day
             FROM days d JOIN shown_days s ON s.day = d.day AND s.ruleset = d.ruleset
             WHERE d.seed = $1 AND NOT s.revealed LIMIT 1",
        )
        .await?;
    let row = client.query_opt(&select, &[&seed.to_string()]).await?;
    Ok(row.map(|row| row.get("day")))
}

/// A day's desert as `shown_days` shows it: the seed and salt only once it is over.
struct ShownDay {
    rules_version: i32,
    commitment: String,
    revealed: bool,
    seed: Option<String>,
    salt: Option<String>,
}

impl ShownDay {
    fn from_row(row: &Row) -> ShownDay {
        ShownDay {
            rules_version: row.get("rules_version"),
            commitment: row.get("commitment"),
            revealed: row.get("revealed"),
            seed: row.get("seed"),
            salt: row.get("salt"),
        }
    }
}

/// The day's desert for `ruleset`, if it was ever asked for.
pub async fn find_day(
    client: &impl GenericClient,
    day: &str,
    ruleset: &str,
) -> Result<Option<Day>, Refusal> {
    let row = client
        .query_opt(
            "SELECT rules_version, commitment, revealed, seed, salt
             FROM shown_days WHERE day = $1::text::date AND ruleset = $2",
            &[&day, &ruleset],
        )
        .await?;
    let Some(shown) = row.as_ref().map(ShownDay::from_row) else {
        return Ok(None);
    };
    Ok(Some(Day {
        day: day.to_owned(),
        ruleset: ruleset.to_owned(),
        rules: rules_version(shown.rules_version)?,
        commitment: shown.commitment,
        over: shown.revealed,
        seed: shown.seed,
        salt: shown.salt,
    }))
}

/// A day's rules version as its row holds it (an `integer`), as the wire says it.
pub fn rules_version(stored: i32) -> Result<u16, Refusal> {
    u16::try_from(stored)
        .map_err(|_| Refusal::internal(anyhow::anyhow!("a day holds the rules version {stored}")))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_the_named_rulesets_have_a_desert() {
        for ruleset in Ruleset::NAMED {
            assert_eq!(named_ruleset(ruleset.name()).unwrap(), ruleset);
        }
        let refused = named_ruleset("nethack-weighted").unwrap_err();
        assert_eq!(refused.status, StatusCode::NOT_FOUND);
        assert!(
            refused
                .words
                .ends_with("there is one for nethack and classic"),
            "{}",
            refused.words
        );
    }

    #[test]
    fn a_day_is_a_real_date_written_one_way() {
        assert_eq!(parse_day("2026-11-26").as_deref(), Some("2026-11-26"));
        for wrong in [
            "2026-02-30",
            "2026-1-26",
            "26-11-2026",
            "2026-11-26x",
            "",
            "today",
            "0000-01-01",
            "1969-12-31",
        ] {
            assert_eq!(parse_day(wrong), None, "{wrong}");
        }
    }
}
