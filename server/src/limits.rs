//! Limits on how fast an address or a key may post: token buckets kept in PostgreSQL,
//! so that every server process counts against the same buckets. Each kind of post
//! (games, a run's stretches, daily starts) has its own buckets and figures.
//!
//! A post is admitted in two steps. Before its body is read, or a row locked: the
//! address's bucket, then the bucket of the key it claims *from that address*, so that
//! junk sent from one address in an honest player's name spends only that address's
//! allowance of the name, never the player's own. Once its signature is checked, the
//! key's own bucket, which only the key's holder can spend.

use std::net::IpAddr;

use axum::http::StatusCode;
use deadpool_postgres::Pool;

use crate::refusal::Refusal;

/// One player's limits for one kind of post.
#[derive(Clone, Copy, Debug)]
pub struct Limits {
    pub burst: u32,
    pub per_minute: u32,
}

/// An address may be shared by several players (a household, a club behind one
/// router): it is allowed as many posts as this many keys.
pub const PLAYERS_PER_ADDRESS: u32 = 4;

/// A run's stretches, one key's: a client sends a step as soon as it is saved, and
/// what is saved meanwhile goes in one stretch, so a player who outruns this loses
/// nothing (the stretches only grow). Ten a second held for a minute is more than a
/// person presses keys.
pub const STRETCHES: Limits = Limits {
    burst: 600,
    per_minute: 600,
};

/// What a post is, for its buckets' names and figures.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Post {
    Game,
    Stretch,
    DailyStart,
}

impl Post {
    fn name(self) -> &'static str {
        match self {
            Post::Game => "games",
            Post::Stretch => "stretches",
            Post::DailyStart => "starts",
        }
    }

    fn words(self) -> &'static str {
        match self {
            Post::Game => "games sent",
            Post::Stretch => "stretches of a run sent",
            Post::DailyStart => "daily runs started",
        }
    }

    /// One key's limits for this post, a game's being the server's settings.
    fn limits(self, games: Limits) -> Limits {
        match self {
            Post::Game | Post::DailyStart => games,
            Post::Stretch => STRETCHES,
        }
    }
}

/// Whose posts a bucket counts.
#[derive(Clone, Copy, Debug)]
pub enum Bucket<'a> {
    Address(IpAddr),
    /// A key as claimed from one address, before its signature is checked.
    KeyAt(&'a str, IpAddr),
    /// A key whose signature was checked.
    Key(&'a str),
}

impl Bucket<'_> {
    /// What the bucket is called in words.
    pub fn what(&self) -> &'static str {
        match self {
            Bucket::Address(_) => "address",
            Bucket::KeyAt(..) => "key from this address",
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
            Bucket::KeyAt(..) | Bucket::Key(_) => limits,
        }
    }

    fn name(&self, post: Post) -> String {
        let post = post.name();
        match self {
            Bucket::Address(address) => format!("{post}:address:{address}"),
            Bucket::KeyAt(key, address) => format!("{post}:key:{key}@{address}"),
            Bucket::Key(key) => format!("{post}:key:{key}"),
        }
    }
}

/// Admits a post from `address` claiming `key` before anything of it is read but its
/// headers: the address's bucket, then the claimed key's at that address.
pub async fn admit(
    pool: &Pool,
    games: Limits,
    post: Post,
    address: IpAddr,
    key: &str,
) -> Result<(), Refusal> {
    take(pool, games, post, Bucket::Address(address)).await?;
    take(pool, games, post, Bucket::KeyAt(key, address)).await
}

/// Takes one post from `bucket`, or refuses with 429 and when to try again.
pub async fn take(
    pool: &Pool,
    games: Limits,
    post: Post,
    bucket: Bucket<'_>,
) -> Result<(), Refusal> {
    let limits = bucket.limits(post.limits(games));
    if take_token(pool, limits, &bucket.name(post)).await? {
        return Ok(());
    }
    let per_minute = limits.per_minute.max(1);
    Err(Refusal::new(
        StatusCode::TOO_MANY_REQUESTS,
        format!(
            "too many {} from this {}: at most {per_minute} a minute; try again later",
            post.words(),
            bucket.what(),
        ),
    )
    .retry_after(60_u64.div_ceil(u64::from(per_minute))))
}

/// Takes one token from the bucket `name`, if it holds one: `false` means the caller must
/// wait. The bucket is filled for the time since it was last touched and taken from in
/// one statement, which PostgreSQL runs under the row's lock, so two processes cannot
/// both take its last token.
async fn take_token(pool: &Pool, limits: Limits, name: &str) -> anyhow::Result<bool> {
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
