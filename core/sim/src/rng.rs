//! Randomness on the replay path.
//!
//! The game's generator is PCG32 (`rand_pcg`, pinned) under rules versions 2 to 14, and
//! ChaCha20 (`rand_chacha`, pinned) from 15 (`Algorithm`); only raw 32-bit outputs are
//! used, because a raw stream is fixed by its algorithm while a library's ranges and
//! shuffles may change between versions. Every raw output is a `Draw` event on the tape;
//! ranges are derived here, by our own frozen functions.

use rand_chacha::ChaCha20Rng;
use rand_core::{RngCore, SeedableRng};
use rand_pcg::Pcg32;

/// PCG32's default stream; fixed so that a seed names exactly one sequence.
const STREAM: u64 = 0x0a02_bdbf_7bb3_c0a7;

/// Which algorithm expands a game's seed into its draws: a table per rules version
/// (`Rules::algorithm`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Algorithm {
    /// Rules versions 2 to 14: PCG32. Fast, but its 64-bit state follows from a handful
    /// of its outputs, and with it every draw to come.
    Pcg32,
    /// Rules version 15 on: ChaCha20, keyed by the seed (`Generator::new`). A stream
    /// cipher's keystream: without the key, the draws dealt so far say nothing of the
    /// next, so a server can deal a game's draws one step at a time and keep its seed.
    ChaCha20,
}

/// The game's generator: a seed expands into the sequence of raw draws.
#[derive(Clone, Debug)]
pub enum Generator {
    Pcg32(Pcg32),
    ChaCha20(Box<ChaCha20Rng>),
}

impl Generator {
    /// The draws of `seed` under `algorithm`. ChaCha20's key is the seed's eight bytes,
    /// little-endian, then 24 zero bytes; its nonce (rand_chacha's stream) is 0, its
    /// block counter starts at 0, and the draws are the keystream's 32-bit little-endian
    /// words in order (docs/replay-format.md, "The generator").
    pub fn new(algorithm: Algorithm, seed: u64) -> Self {
        match algorithm {
            Algorithm::Pcg32 => Generator::Pcg32(Pcg32::new(seed, STREAM)),
            Algorithm::ChaCha20 => {
                let mut key = [0; 32];
                key[..8].copy_from_slice(&seed.to_le_bytes());
                Generator::ChaCha20(Box::new(ChaCha20Rng::from_seed(key)))
            }
        }
    }

    #[inline(always)]
    pub fn next_draw(&mut self) -> u32 {
        match self {
            Generator::Pcg32(pcg) => pcg.next_u32(),
            Generator::ChaCha20(chacha) => chacha.next_u32(),
        }
    }

    /// Skips `draws` outputs, in O(log n) for PCG32 and O(1) for ChaCha20: a resumed game
    /// continues the same sequence.
    pub fn advance(&mut self, draws: u64) {
        match self {
            Generator::Pcg32(pcg) => pcg.advance(draws),
            Generator::ChaCha20(chacha) => {
                let at = chacha.get_word_pos() + u128::from(draws);
                chacha.set_word_pos(at);
            }
        }
    }
}

/// Maps a raw draw onto `0..n` with Lemire's multiply-shift, or rejects it.
///
/// Rejection keeps every value equally likely: the caller draws again, and the rejected draw
/// stays on the tape like any other. `n == 0` is treated as `n == 1`.
pub fn below(draw: u32, n: u32) -> Option<u32> {
    let n = n.max(1);
    let product = u64::from(draw) * u64::from(n);
    let low = product as u32;
    if low < n {
        // 2^32 mod n: the low values that would make some results one more likely.
        let bias_zone = n.wrapping_neg() % n;
        if low < bias_zone {
            return None;
        }
    }
    Some((product >> 32) as u32)
}

/// Asked for a draw the step was not given yet: the machine stops with `Need::Draw`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct NeedDraw;

/// Where a step gets draws beyond those it was given, while it runs: folding a tape hands
/// over the draws that follow the event fed, so a step seldom has to stop and be run again.
pub trait DrawSource {
    /// The next draw, if the next event is one (and may be taken now).
    fn pull(&mut self) -> Option<u32>;
}

/// Draws one step may pull while it runs; a step that wants more stops as if none were left.
pub const PULL_MAX: usize = 8;

/// The draws fed to the step being resolved, read in order.
///
/// A step that needs randomness is re-run from its start each time a draw arrives, reading
/// the draws it already has and stopping at the first it lacks. Steps are pure functions
/// of the state and their draws, so re-running one is safe; steps need one to three draws,
/// so re-running is cheap. With a `DrawSource` most steps need no re-run at all.
pub struct Draws<'a> {
    given: &'a [u32],
    used: usize,
    source: Option<&'a mut dyn DrawSource>,
    pulled: [u32; PULL_MAX],
    pulled_len: usize,
}

impl<'a> Draws<'a> {
    /// Only the draws `given`.
    pub fn new(given: &'a [u32]) -> Self {
        Draws {
            given,
            used: 0,
            source: None,
            pulled: [0; PULL_MAX],
            pulled_len: 0,
        }
    }

    /// The draws `given`, then those `source` has.
    pub fn pulling(given: &'a [u32], source: &'a mut dyn DrawSource) -> Self {
        Draws {
            source: Some(source),
            ..Draws::new(given)
        }
    }

    /// The draws pulled from the source, in order: the first `count` of the array.
    pub fn into_pulled(self) -> ([u32; PULL_MAX], usize) {
        (self.pulled, self.pulled_len)
    }

    #[inline]
    pub fn raw(&mut self) -> Result<u32, NeedDraw> {
        if let Some(&draw) = self.given.get(self.used) {
            self.used += 1;
            return Ok(draw);
        }
        let source = self.source.as_mut().ok_or(NeedDraw)?;
        if self.pulled_len == PULL_MAX {
            return Err(NeedDraw);
        }
        let draw = source.pull().ok_or(NeedDraw)?;
        self.pulled[self.pulled_len] = draw;
        self.pulled_len += 1;
        Ok(draw)
    }

    /// A uniform value in `0..n`, drawing again after a rejection.
    #[inline]
    pub fn below(&mut self, n: u32) -> Result<u32, NeedDraw> {
        loop {
            if let Some(value) = below(self.raw()?, n) {
                return Ok(value);
            }
        }
    }

    /// A uniform value in `low..=high`.
    #[inline]
    pub fn between(&mut self, low: u32, high: u32) -> Result<u32, NeedDraw> {
        Ok(low + self.below(high.saturating_sub(low) + 1)?)
    }

    /// True with probability `1 / n`.
    #[inline]
    pub fn one_in(&mut self, n: u32) -> Result<bool, NeedDraw> {
        Ok(self.below(n)? == 0)
    }

    /// One of `choices`, uniformly; `None` for an empty slice (and then no draw is made).
    #[inline]
    pub fn pick<T: Copy>(&mut self, choices: &[T]) -> Result<Option<T>, NeedDraw> {
        if choices.is_empty() {
            return Ok(None);
        }
        Ok(Some(choices[self.below(choices.len() as u32)? as usize]))
    }
}

/// A generator for derived randomness that is not on the tape: a level's layout is a pure
/// function of a 64-bit seed made of two draws, expanded here. Same algorithm, own stream.
pub struct Expander(Pcg32);

impl Expander {
    pub fn new(seed: u64) -> Self {
        Expander(Pcg32::new(seed, STREAM ^ 0x5a5a_5a5a_5a5a_5a5a))
    }

    pub fn below(&mut self, n: u32) -> u32 {
        loop {
            if let Some(value) = below(self.0.next_u32(), n) {
                return value;
            }
        }
    }

    pub fn between(&mut self, low: u32, high: u32) -> u32 {
        low + self.below(high.saturating_sub(low) + 1)
    }

    pub fn one_in(&mut self, n: u32) -> bool {
        self.below(n) == 0
    }

    /// Fisher-Yates, with our own `below`.
    pub fn shuffle<T>(&mut self, items: &mut [T]) {
        for i in (1..items.len()).rev() {
            let j = self.below(i as u32 + 1) as usize;
            items.swap(i, j);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    // These literals freeze the replay path: if one changes, every recorded game changes.
    #[test]
    fn generator_stream_is_frozen() {
        let first = |algorithm, seed| {
            let mut g = Generator::new(algorithm, seed);
            (0..4).map(|_| g.next_draw()).collect::<Vec<u32>>()
        };
        assert_eq!(first(Algorithm::Pcg32, 42), FROZEN_SEED_42);
        assert_eq!(first(Algorithm::ChaCha20, 42), FROZEN_CHACHA_SEED_42);
        // Seed 0 is the all-zero key: RFC 7539's first keystream block (section 2.3.2's
        // test vector 1 begins 76 b8 e0 ad a0 f1 3d 90).
        assert_eq!(
            first(Algorithm::ChaCha20, 0)[..2],
            [0xade0_b876, 0x903d_f1a0]
        );
    }

    const FROZEN_SEED_42: [u32; 4] = [3_270_867_926, 1_795_671_209, 1_924_641_435, 1_143_034_755];
    const FROZEN_CHACHA_SEED_42: [u32; 4] =
        [652_572_191, 1_793_264_209, 1_552_637_026, 3_035_332_441];

    /// A resumed game's generator, skipped ahead, goes on as the one that drew every
    /// draw: across ChaCha20's blocks and its 64-word buffer.
    #[test]
    fn advancing_is_drawing() {
        for algorithm in [Algorithm::Pcg32, Algorithm::ChaCha20] {
            for skip in [0, 1, 15, 16, 63, 64, 65, 1_000] {
                // Both part of the way into a block first, as a game resumed mid-level is.
                let mut drawn = Generator::new(algorithm, 9);
                (0..5).for_each(|_| {
                    drawn.next_draw();
                });
                let mut skipped = drawn.clone();
                (0..skip).for_each(|_| {
                    drawn.next_draw();
                });
                skipped.advance(skip);
                let next = |g: &mut Generator| (0..70).map(|_| g.next_draw()).collect::<Vec<_>>();
                assert_eq!(next(&mut drawn), next(&mut skipped), "{algorithm:?} {skip}");
            }
        }
    }

    #[test]
    fn below_is_frozen() {
        assert_eq!(below(1, 6), Some(0));
        assert_eq!(below(u32::MAX, 6), Some(5));
        assert_eq!(below(0x8000_0001, 6), Some(3));
        assert_eq!(below(0x2aaa_aaac, 6), Some(1));
        assert_eq!(below(123_456_789, 100), Some(2));
        assert_eq!(below(7, 8), Some(0));
        assert_eq!(below(u32::MAX, 1), Some(0));
        assert_eq!(below(5, 0), Some(0));
    }

    #[test]
    fn below_rejects_exactly_the_bias_zone() {
        // 2^32 mod 6 = 4: a draw is rejected when the low word of draw * 6 is below 4.
        assert_eq!(below(0, 6), None);
        assert_eq!(below(0x8000_0000, 6), None); // low word 0
        assert_eq!(below(0x2aaa_aaab, 6), None); // low word 2
        let rejected: Vec<u32> = (0..2_000_000u32)
            .filter(|&d| below(d, 6).is_none())
            .collect();
        assert_eq!(rejected, vec![0]);
        // Powers of two divide 2^32: nothing is ever rejected.
        assert!((0..100_000u32).all(|d| below(d.wrapping_mul(40_503), 8).is_some()));
    }

    #[test]
    fn below_stays_in_range() {
        for n in [1, 2, 3, 7, 100, 1000, u32::MAX] {
            for d in [0, 1, 2, 1 << 31, u32::MAX - 1, u32::MAX] {
                if let Some(v) = below(d, n) {
                    assert!(v < n);
                }
            }
        }
    }

    /// A source of the draws 100, 101, 102, ...
    struct Counting(u32);
    impl DrawSource for Counting {
        fn pull(&mut self) -> Option<u32> {
            self.0 += 1;
            Some(self.0 + 99)
        }
    }

    #[test]
    fn a_step_pulls_after_its_given_draws_and_at_most_pull_max() {
        let mut source = Counting(0);
        let given = [7, 8];
        let mut d = Draws::pulling(&given, &mut source);
        let read: Vec<u32> = std::iter::from_fn(|| d.raw().ok()).collect();
        let pulled: Vec<u32> = (100..100 + PULL_MAX as u32).collect();
        assert_eq!(read, [&given[..], &pulled].concat());
        // The step stops as if no draw were left; the machine keeps what it pulled.
        assert_eq!(d.raw(), Err(NeedDraw));
        let (array, count) = d.into_pulled();
        assert_eq!(&array[..count], &pulled[..]);
        assert_eq!(source.0 as usize, PULL_MAX);
    }

    #[test]
    fn draws_rerun_reads_the_same_values() {
        let given = [u32::MAX, 0];
        let mut d = Draws::new(&given);
        assert_eq!(d.below(10), Ok(9));
        assert_eq!(d.one_in(2), Ok(true));
        assert_eq!(d.raw(), Err(NeedDraw));
        assert_eq!(Draws::new(&[]).pick::<u8>(&[]), Ok(None));
    }

    #[test]
    fn expander_is_frozen() {
        let mut e = Expander::new(7);
        let values: Vec<u32> = (0..5).map(|_| e.below(1000)).collect();
        assert_eq!(values, FROZEN_EXPANDER_7);
    }

    const FROZEN_EXPANDER_7: [u32; 5] = [410, 131, 545, 860, 117];
}
