//! Limits on how fast an address or a key may submit: a token bucket per address and
//! per key, kept in PostgreSQL so that every server process counts against the same
//! buckets. A bucket holds up to `burst` submissions and fills again at `per_minute`.

use deadpool_postgres::Pool;

#[derive(Clone, Copy, Debug)]
pub struct Limits {
    pub burst: u32,
    pub per_minute: u32,
}

/// Takes one submission from the bucket `name` (`address:...`, `key:...`), if it holds
/// one: `false` means the caller must wait. The bucket is filled for the time since it
/// was last touched and taken from in one statement, which PostgreSQL runs under the
/// row's lock, so two processes cannot both take its last token.
pub async fn take(pool: &Pool, limits: Limits, name: &str) -> anyhow::Result<bool> {
    let burst = f64::from(limits.burst);
    let per_second = f64::from(limits.per_minute) / 60.0;
    let client = pool.get().await?;
    let taken = client
        .query_opt(
            "INSERT INTO buckets AS b (name, tokens, refilled_at) VALUES ($1, $2::float8 - 1, now())
             ON CONFLICT (name) DO UPDATE
                SET tokens = LEAST($2::float8, b.tokens
                        + EXTRACT(EPOCH FROM now() - b.refilled_at)::float8 * $3::float8) - 1,
                    refilled_at = now()
                WHERE LEAST($2::float8, b.tokens
                        + EXTRACT(EPOCH FROM now() - b.refilled_at)::float8 * $3::float8) >= 1
             RETURNING tokens",
            &[&name, &burst, &per_second],
        )
        .await?;
    Ok(taken.is_some())
}
