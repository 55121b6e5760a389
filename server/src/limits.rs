//! Limits on how fast an address or a key may submit: a token bucket per address and
//! per key, kept in PostgreSQL so that every server process counts against the same
//! buckets. A key's bucket holds up to `burst` submissions and fills again at
//! `per_minute`; an address's holds `PLAYERS_PER_ADDRESS` times as many.

use std::net::IpAddr;

use deadpool_postgres::Pool;

/// One player's limits.
#[derive(Clone, Copy, Debug)]
pub struct Limits {
    pub burst: u32,
    pub per_minute: u32,
}

/// An address may be shared by several players (a household, a club behind one
/// router): it is allowed as many submissions as this many keys.
pub const PLAYERS_PER_ADDRESS: u32 = 4;

/// Whose submissions a bucket counts.
pub enum Bucket<'a> {
    Address(IpAddr),
    Key(&'a str),
}

impl Bucket<'_> {
    /// What the bucket is called in words and in the table.
    pub fn what(&self) -> &'static str {
        match self {
            Bucket::Address(_) => "address",
            Bucket::Key(_) => "key",
        }
    }

    /// The limits this bucket keeps, for a player's `limits`.
    pub fn limits(&self, limits: Limits) -> Limits {
        match self {
            Bucket::Address(_) => Limits {
                burst: limits.burst.saturating_mul(PLAYERS_PER_ADDRESS),
                per_minute: limits.per_minute.saturating_mul(PLAYERS_PER_ADDRESS),
            },
            Bucket::Key(_) => limits,
        }
    }

    fn name(&self) -> String {
        match self {
            Bucket::Address(address) => format!("address:{address}"),
            Bucket::Key(key) => format!("key:{key}"),
        }
    }
}

/// Takes one submission from `bucket`, if it holds one: `false` means the caller must
/// wait. The bucket is filled for the time since it was last touched and taken from in
/// one statement, which PostgreSQL runs under the row's lock, so two processes cannot
/// both take its last token.
pub async fn take(pool: &Pool, limits: Limits, bucket: &Bucket<'_>) -> anyhow::Result<bool> {
    let limits = bucket.limits(limits);
    let burst = f64::from(limits.burst);
    let per_second = f64::from(limits.per_minute) / 60.0;
    let name = bucket.name();
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
