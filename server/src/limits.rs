//! Limits on how fast an address or a key may post: token buckets. Each kind of post
//! (games, a run's stretches, daily starts) has its own buckets and figures.
//!
//! A post is admitted in two steps. Before its body is read, or the database asked
//! anything: the address's bucket, then the bucket of the key it claims *from that
//! address*, so that junk sent from one address in an honest player's name spends only
//! that address's allowance of the name, never the player's own. These are kept in the
//! process's memory (`Admission`), so that a flood costs no database work at all; with
//! several server processes behind one address, each counts its own. Once a post's
//! signature is checked, the key's own bucket, which only the key's holder can spend:
//! kept in PostgreSQL, so that every server process counts against the same one.

use std::collections::HashMap;
use std::net::IpAddr;
use std::sync::Mutex;
use std::time::Instant;

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

/// A dealt run's commands, from one key: one a request, so more than stretches, which
/// gather what was played meanwhile. An errand's steps come as fast as the window draws
/// them (played by a bot on loopback, 1,200 commands took under ten seconds): fifty a
/// second held for a minute, and a whole run's worth at once.
pub const COMMANDS: Limits = Limits {
    burst: 5000,
    per_minute: 3000,
};

/// What a post is, for its buckets' names and figures.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Post {
    Game,
    Stretch,
    DailyStart,
    Command,
}

impl Post {
    fn name(self) -> &'static str {
        match self {
            Post::Game => "games",
            Post::Stretch => "stretches",
            Post::DailyStart => "starts",
            Post::Command => "commands",
        }
    }

    fn words(self) -> &'static str {
        match self {
            Post::Game => "games sent",
            Post::Stretch => "stretches of a run sent",
            Post::DailyStart => "daily runs started",
            Post::Command => "commands of a dealt run sent",
        }
    }

    /// One key's limits for this post, a game's being the server's settings.
    fn limits(self, games: Limits) -> Limits {
        match self {
            Post::Game | Post::DailyStart => games,
            Post::Stretch => STRETCHES,
            Post::Command => COMMANDS,
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

/// The buckets posts are admitted by before their bodies are read, in this process's
/// memory, by name.
#[derive(Default)]
pub struct Admission {
    buckets: Mutex<HashMap<String, Held>>,
}

/// A bucket in memory: its tokens when last filled, then, and how it fills.
struct Held {
    tokens: f64,
    at: Instant,
    burst: f64,
    per_second: f64,
}

impl Held {
    fn filled(&self, now: Instant) -> f64 {
        let since = now.duration_since(self.at).as_secs_f64();
        self.burst.min(self.tokens + since * self.per_second)
    }
}

/// Buckets an `Admission` holds before it forgets those filled to the brim (which are
/// the same as none at all).
const MOST_HELD_BUCKETS: usize = 100_000;

impl Admission {
    /// Admits a post from `address` claiming `key` before anything of it is read but its
    /// headers: the address's bucket, then the claimed key's at that address.
    pub fn admit(
        &self,
        games: Limits,
        post: Post,
        address: IpAddr,
        key: &str,
    ) -> Result<(), Refusal> {
        let mut buckets = self.buckets.lock().unwrap_or_else(|e| e.into_inner());
        let now = Instant::now();
        if buckets.len() >= MOST_HELD_BUCKETS {
            buckets.retain(|_, held| held.filled(now) < held.burst);
        }
        for bucket in [Bucket::Address(address), Bucket::KeyAt(key, address)] {
            let limits = bucket.limits(post.limits(games));
            let burst = f64::from(limits.burst);
            let held = buckets.entry(bucket.name(post)).or_insert(Held {
                tokens: burst,
                at: now,
                burst,
                per_second: f64::from(limits.per_minute) / 60.0,
            });
            let filled = held.filled(now);
            if filled < 1.0 {
                return Err(refused(post, bucket, limits));
            }
            (held.tokens, held.at) = (filled - 1.0, now);
        }
        Ok(())
    }
}

/// Takes one post from `bucket`, or refuses with 429 and when to try again.
pub async fn take(
    pool: &Pool,
    games: Limits,
    post: Post,
    bucket: Bucket<'_>,
) -> Result<(), Refusal> {
    let limits = bucket.limits(post.limits(games));
    match take_token(pool, limits, &bucket.name(post)).await? {
        true => Ok(()),
        false => Err(refused(post, bucket, limits)),
    }
}

/// Why a post from `bucket`, which keeps `limits`, is refused, and when to try again.
fn refused(post: Post, bucket: Bucket<'_>, limits: Limits) -> Refusal {
    let per_minute = limits.per_minute.max(1);
    Refusal::new(
        StatusCode::TOO_MANY_REQUESTS,
        format!(
            "too many {} from this {}: at most {per_minute} a minute; try again later",
            post.words(),
            bucket.what(),
        ),
    )
    .retry_after(60_u64.div_ceil(u64::from(per_minute)))
}

/// Takes one token from the bucket `name`, if it holds one: `false` means the caller must
/// wait. The bucket is filled for the time since it was last touched and taken from in
/// one statement, which PostgreSQL runs under the row's lock, so two processes cannot
/// both take its last token.
async fn take_token(pool: &Pool, limits: Limits, name: &str) -> anyhow::Result<bool> {
    let burst = f64::from(limits.burst);
    let per_second = f64::from(limits.per_minute) / 60.0;
    let client = pool.get().await?;
    let take = client
        .prepare_cached(
            "INSERT INTO buckets AS b (name, tokens, refilled_at) VALUES ($1, $2::float8 - 1, now())
             ON CONFLICT (name) DO UPDATE
                SET tokens = LEAST($2::float8, b.tokens
                        + EXTRACT(EPOCH FROM now() - b.refilled_at)::float8 * $3::float8) - 1,
                    refilled_at = now()
                WHERE LEAST($2::float8, b.tokens
                        + EXTRACT(EPOCH FROM now() - b.refilled_at)::float8 * $3::float8) >= 1
             RETURNING tokens",
        )
        .await?;
    let taken = client
        .query_opt(&take, &[&name, &burst, &per_second])
        .await?;
    Ok(taken.is_some())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn junk_in_a_name_from_one_address_spends_none_of_its_allowance_elsewhere() {
        let admission = Admission::default();
        let limits = Limits {
            burst: 2,
            per_minute: 1,
        };
        let (here, there) = ("10.0.0.66".parse().unwrap(), "10.0.0.7".parse().unwrap());
        let admit = |address, key| admission.admit(limits, Post::Game, address, key);
        assert!(admit(here, "honest").is_ok());
        assert!(admit(here, "honest").is_ok());
        let refused = admit(here, "honest").unwrap_err();
        assert!(
            refused.words.contains("key from this address"),
            "{}",
            refused.words
        );
        assert_eq!(refused.retry_after, Some(60));
        assert!(
            admit(there, "honest").is_ok(),
            "the name's own address is not held up"
        );
        // The address holds four players' worth, 8, the refused post among them.
        assert!(admit(here, "b").is_ok() && admit(here, "b").is_ok());
        assert!(admit(here, "c").is_ok() && admit(here, "c").is_ok());
        assert!(admit(here, "d").is_ok());
        let refused = admit(here, "d").unwrap_err();
        assert!(
            refused.words.contains("from this address:"),
            "{}",
            refused.words
        );
        // Posts of another kind have buckets of their own.
        assert!(admission.admit(limits, Post::Stretch, here, "d").is_ok());
    }
}
