//! A case's random stream: ChaCha8 keyed and laid out as `rand_chacha::ChaCha8Rng` (the key expanded from the
//! campaign seed, the case index as the stream, 64-bit block counter from 0, words in block order), so a (seed, case
//! index) gives the same bytes, and the same cases, on every host.
//!
//! Generating them is a large part of a short kernel's host work per case (an ML-KEM case reads about a kilobyte).
//! On a CPU with AVX-512 VL, eight blocks are computed at once, one per 32-bit lane of 256-bit vectors (32 registers,
//! lane rotations): with `Span16::fill`'s compaction, a fifth off an ML-KEM NTT case's host work. Elsewhere
//! rand_chacha computes them: lanes on AVX2 or without vectors are slower than its own copies (both in
//! `docs/benchmarks.md`).

use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use rand_chacha::rand_core::CryptoRng;
use rand_chacha::rand_core::block::{BlockRng, BlockRngCore};

/// Random source of one case: a function of (campaign seed, case index) only.
pub type CaseRng = BlockRng<CaseStream>;

pub fn case_rng(seed: u64, case: u64) -> CaseRng {
    let key = expand_seed(seed);
    let stream = if lanes_available() {
        CaseStream::Lanes { key: key_words(key), counter: 0, stream: case }
    } else {
        let mut chacha = ChaCha8Rng::from_seed(key);
        chacha.set_stream(case);
        CaseStream::Portable(Box::new(chacha))
    };
    BlockRng::new(stream)
}

/// The key `SeedableRng::seed_from_u64` makes of a seed (rand_core 0.6): eight outputs of the PCG32 generator
/// (XSH RR, multiplier 6364136223846793005, increment 11634580027462260723) started at the seed, little-endian.
fn expand_seed(seed: u64) -> [u8; 32] {
    const MULTIPLIER: u64 = 6_364_136_223_846_793_005;
    const INCREMENT: u64 = 11_634_580_027_462_260_723;
    let mut state = seed;
    let mut key = [0u8; 32];
    for word in key.chunks_exact_mut(4) {
        state = state.wrapping_mul(MULTIPLIER).wrapping_add(INCREMENT);
        let xorshifted = (((state >> 18) ^ state) >> 27) as u32;
        word.copy_from_slice(&xorshifted.rotate_right((state >> 59) as u32).to_le_bytes());
    }
    key
}

/// Blocks computed per refill: one per lane.
const LANES: usize = 8;
const BLOCK_WORDS: usize = 16;

/// The ChaCha8 block function of one (key, stream), refilled eight blocks at a time.
#[derive(Clone, Debug)]
pub enum CaseStream {
    Lanes { key: [u32; 8], counter: u64, stream: u64 },
    Portable(Box<ChaCha8Rng>),
}

/// Eight consecutive blocks of the stream.
#[derive(Clone, Debug)]
pub struct Blocks([u32; LANES * BLOCK_WORDS]);

impl Default for Blocks {
    fn default() -> Self {
        Self([0; LANES * BLOCK_WORDS])
    }
}

impl AsRef<[u32]> for Blocks {
    fn as_ref(&self) -> &[u32] {
        &self.0
    }
}

impl AsMut<[u32]> for Blocks {
    fn as_mut(&mut self) -> &mut [u32] {
        &mut self.0
    }
}

impl BlockRngCore for CaseStream {
    type Item = u32;
    type Results = Blocks;

    fn generate(&mut self, results: &mut Blocks) {
        match self {
            Self::Lanes { key, counter, stream } => {
                blocks_in_lanes(key, *counter, *stream, &mut results.0);
                *counter = counter.wrapping_add(LANES as u64);
            }
            Self::Portable(chacha) => chacha.fill(&mut results.0[..]),
        }
    }
}

// ChaCha8 is a cryptographic generator whichever way its blocks are computed; the schemes' oracle crates ask for one.
impl CryptoRng for CaseStream {}

fn key_words(seed: [u8; 32]) -> [u32; 8] {
    std::array::from_fn(|i| u32::from_le_bytes(seed[4 * i..4 * i + 4].try_into().expect("four bytes")))
}

#[cfg(target_arch = "x86_64")]
fn lanes_available() -> bool {
    std::is_x86_feature_detected!("avx512f") && std::is_x86_feature_detected!("avx512vl")
}

#[cfg(not(target_arch = "x86_64"))]
fn lanes_available() -> bool {
    false
}

fn blocks_in_lanes(key: &[u32; 8], counter: u64, stream: u64, out: &mut [u32; LANES * BLOCK_WORDS]) {
    #[cfg(target_arch = "x86_64")]
    {
        #[target_feature(enable = "avx512f,avx512vl")]
        unsafe fn with_avx512(key: &[u32; 8], counter: u64, stream: u64, out: &mut [u32; LANES * BLOCK_WORDS]) {
            chacha8_lanes(key, counter, stream, out)
        }
        if lanes_available() {
            // SAFETY: this CPU has AVX-512 F and VL, the features the copy was compiled for.
            return unsafe { with_avx512(key, counter, stream, out) };
        }
    }
    chacha8_lanes(key, counter, stream, out)
}

/// Blocks `counter..counter + LANES` of ChaCha8 (RFC 7539's block function with 8 rounds and a 64-bit counter in
/// words 12-13, the stream in 14-15), block `l` in `out[16 l..16 l + 16]`; row `w` of the state holds word `w` of
/// every block, so each step of a quarter round is one vector operation.
#[inline(always)]
fn chacha8_lanes(key: &[u32; 8], counter: u64, stream: u64, out: &mut [u32; LANES * BLOCK_WORDS]) {
    // "expand 32-byte k", little-endian words.
    const SIGMA: [u32; 4] = [0x6170_7865, 0x3320_646e, 0x7962_2d32, 0x6b20_6574];
    let mut initial = [[0u32; LANES]; BLOCK_WORDS];
    for (w, &c) in SIGMA.iter().enumerate() {
        initial[w] = [c; LANES];
    }
    for (w, &k) in key.iter().enumerate() {
        initial[4 + w] = [k; LANES];
    }
    initial[12] = std::array::from_fn(|l| counter.wrapping_add(l as u64) as u32);
    initial[13] = std::array::from_fn(|l| (counter.wrapping_add(l as u64) >> 32) as u32);
    initial[14] = [stream as u32; LANES];
    initial[15] = [(stream >> 32) as u32; LANES];
    let mut x = initial;
    for _ in 0..4 {
        quarter_round(&mut x, 0, 4, 8, 12);
        quarter_round(&mut x, 1, 5, 9, 13);
        quarter_round(&mut x, 2, 6, 10, 14);
        quarter_round(&mut x, 3, 7, 11, 15);
        quarter_round(&mut x, 0, 5, 10, 15);
        quarter_round(&mut x, 1, 6, 11, 12);
        quarter_round(&mut x, 2, 7, 8, 13);
        quarter_round(&mut x, 3, 4, 9, 14);
    }
    for w in 0..BLOCK_WORDS {
        for l in 0..LANES {
            out[BLOCK_WORDS * l + w] = x[w][l].wrapping_add(initial[w][l]);
        }
    }
}

#[inline(always)]
fn quarter_round(x: &mut [[u32; LANES]; BLOCK_WORDS], a: usize, b: usize, c: usize, d: usize) {
    add_xor_rotate(x, a, b, d, 16);
    add_xor_rotate(x, c, d, b, 12);
    add_xor_rotate(x, a, b, d, 8);
    add_xor_rotate(x, c, d, b, 7);
}

/// One step of a quarter round in every lane: `x[sum] += x[addend]; x[target] = (x[target] ^ x[sum]) <<< rotation`.
#[inline(always)]
fn add_xor_rotate(x: &mut [[u32; LANES]; BLOCK_WORDS], sum: usize, addend: usize, target: usize, rotation: u32) {
    let (mut total, mut rotated) = (x[sum], x[target]);
    for ((total, rotated), addend) in total.iter_mut().zip(&mut rotated).zip(x[addend]) {
        *total = total.wrapping_add(addend);
        *rotated = (*rotated ^ *total).rotate_left(rotation);
    }
    (x[sum], x[target]) = (total, rotated);
}

#[cfg(test)]
mod tests {
    use rand::RngCore;

    use super::*;

    fn oracle(seed: u64, case: u64) -> ChaCha8Rng {
        let mut chacha = ChaCha8Rng::seed_from_u64(seed);
        chacha.set_stream(case);
        chacha
    }

    /// Reads of every kind and length, across refills, give rand_chacha's bytes: the lane form as this CPU runs
    /// it, the lane form compiled without its vector copy, and the portable form.
    #[test]
    fn every_form_gives_rand_chachas_stream() {
        let lanes = |seed, case| {
            let key = key_words(oracle(seed, case).get_seed());
            BlockRng::new(CaseStream::Lanes { key, counter: 0, stream: case })
        };
        let portable = |seed, case| BlockRng::new(CaseStream::Portable(Box::new(oracle(seed, case))));
        for (seed, case) in [(0, 0), (7, 1), (u64::MAX, u64::MAX), (20261204, 123_456_789)] {
            for mut ours in [case_rng(seed, case), lanes(seed, case), portable(seed, case)] {
                let mut theirs = oracle(seed, case);
                for length in [0, 1, 3, 4, 5, 255, 256, 1021, 4099] {
                    assert_eq!(ours.next_u32(), theirs.next_u32());
                    let (mut a, mut b) = (vec![0u8; length], vec![0u8; length]);
                    ours.fill_bytes(&mut a);
                    theirs.fill_bytes(&mut b);
                    assert_eq!(a, b, "seed {seed}, case {case}, {length} bytes");
                    assert_eq!(ours.next_u64(), theirs.next_u64());
                }
            }
        }
    }

    /// The key expansion against rand_chacha's own.
    #[test]
    fn seeds_expand_to_rand_chachas_keys() {
        for seed in [0, 1, 7, 2040, 20261204, 1 << 63, u64::MAX].into_iter().chain((0..1000).map(|i| i * 0x9E37_79B9)) {
            assert_eq!(expand_seed(seed), ChaCha8Rng::seed_from_u64(seed).get_seed(), "seed {seed}");
        }
    }

    /// The block function without the vector copy, on the lanes' own counters, against rand_chacha's words at the
    /// same positions, a counter carry into word 13 included.
    #[test]
    fn the_block_function_matches_rand_chacha_at_any_counter() {
        for counter in [0u64, 8, 0xFFFF_FFFC, 1 << 40] {
            let mut theirs = oracle(5, 9);
            theirs.set_word_pos(u128::from(counter) * BLOCK_WORDS as u128);
            let mut expected = [0u32; LANES * BLOCK_WORDS];
            theirs.fill(&mut expected[..]);
            let mut ours = [0u32; LANES * BLOCK_WORDS];
            chacha8_lanes(&key_words(theirs.get_seed()), counter, 9, &mut ours);
            assert_eq!(ours, expected, "counter {counter}");
        }
    }
}
