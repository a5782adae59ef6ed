//! Exact, cheap sampling of a case's coefficient vectors from its random stream.
//!
//! Generation is a large part of the host's work per case for the shorter kernels (a 3 us permutation, a 13 us
//! pointwise product), and the host shares the machine with the emulator. rand's `gen_range` spends a 32-bit draw of
//! ChaCha8 on every 16-bit coefficient, and for some spans rejects up to half of them. Here two bytes of the stream,
//! taken in bulk, make a draw, and a span of at most 2^16 integers is sampled by multiplication with the exact
//! rejection zone (Lemire's method): every integer of the span equally likely.

use rand::RngCore;

use super::CaseRng;

/// The integers `lo..=hi` (at most 2^16 of them), each equally likely.
#[derive(Debug, Clone, Copy)]
pub struct Span16 {
    lo: i32,
    len: u32,
    /// Draws whose low product half is below this are rejected: (2^16 - len) mod len of them, which leaves every
    /// value of the span exactly floor(2^16 / len) draws.
    reject_below: u32,
}

impl Span16 {
    pub const fn new(lo: i32, hi: i32) -> Self {
        let len = (hi - lo + 1) as u32;
        assert!(lo <= hi && len <= 1 << 16, "a span of 1 to 2^16 integers");
        Self { lo, len, reject_below: ((1 << 16) - len) % len }
    }

    /// The value a 16-bit draw gives, or `None` if it is rejected.
    #[cfg(test)]
    fn map(&self, bits: u16) -> Option<i32> {
        let (value, accepted) = self.candidate(bits);
        accepted.then_some(value)
    }

    /// The value a 16-bit draw would give, and whether the draw is accepted.
    #[inline]
    fn candidate(&self, bits: u16) -> (i32, bool) {
        let product = u32::from(bits) * self.len;
        (self.lo + (product >> 16) as i32, product & 0xFFFF >= self.reject_below)
    }

    /// Fills `out` with independent samples, drawn from the stream's bytes a block at a time: each block's accepted
    /// values are compacted without a branch per draw (one draw at a time, with a branch, costs about twice the host
    /// instructions), 32 at a time by AVX-512's compress where the CPU has it (a tenth of an ML-KEM campaign's host
    /// work per case without it).
    pub fn fill(&self, rng: &mut CaseRng, out: &mut [i16]) {
        #[cfg(target_arch = "x86_64")]
        if self.len < 1 << 16 && compress::available() {
            // SAFETY: this CPU has the features `fill_compressed` was compiled for.
            return unsafe { compress::fill_compressed(self, rng, out) };
        }
        self.fill_portable(rng, out)
    }

    fn fill_portable(&self, rng: &mut CaseRng, out: &mut [i16]) {
        let mut draws = [0u8; 2 * BLOCK];
        let mut accepted = [0i16; BLOCK];
        let mut filled = 0;
        while filled < out.len() {
            rng.fill_bytes(&mut draws);
            let mut n = 0;
            for pair in draws.chunks_exact(2) {
                let (value, ok) = self.candidate(u16::from_le_bytes([pair[0], pair[1]]));
                // n < BLOCK here (at most one more per draw); the mask only spares the bounds check.
                accepted[n % BLOCK] = value as i16;
                n += usize::from(ok);
            }
            let take = n.min(out.len() - filled);
            out[filled..filled + take].copy_from_slice(&accepted[..take]);
            filled += take;
        }
    }
}

/// `Span16::fill` in 16-bit lanes: a vector of 32 draws, its products' high and low halves, the accepted lanes moved
/// to the front (`vpcompressw` into a register: its form with a memory operand is slow on some CPUs) and stored.
#[cfg(target_arch = "x86_64")]
mod compress {
    use core::arch::x86_64::*;

    use rand::RngCore;

    use super::{BLOCK, CaseRng, Span16};

    /// Draws per vector.
    const WIDTH: usize = 32;

    pub(super) fn available() -> bool {
        std::is_x86_feature_detected!("avx512bw") && std::is_x86_feature_detected!("avx512vbmi2")
    }

    /// As `Span16::fill_portable`, for a span of fewer than 2^16 integers (so that its length and rejection zone
    /// fit 16-bit lanes). The value of a draw, `lo + (product >> 16)`, is computed mod 2^16: it fits an i16.
    #[target_feature(enable = "avx512f,avx512bw,avx512vbmi2")]
    pub(super) fn fill_compressed(span: &Span16, rng: &mut CaseRng, out: &mut [i16]) {
        let len = _mm512_set1_epi16(span.len as u16 as i16);
        let reject_below = _mm512_set1_epi16(span.reject_below as u16 as i16);
        let lo = _mm512_set1_epi16(span.lo as i16);
        let mut draws = [0u8; 2 * BLOCK];
        let mut filled = 0;
        while filled < out.len() {
            rng.fill_bytes(&mut draws);
            for vector in draws.chunks_exact(2 * WIDTH) {
                // SAFETY: `vector` holds 64 bytes, the unaligned load's width.
                let bits = unsafe { _mm512_loadu_si512(vector.as_ptr().cast()) };
                let ok = _mm512_cmpge_epu16_mask(_mm512_mullo_epi16(bits, len), reject_below);
                let accepted = _mm512_maskz_compress_epi16(ok, _mm512_add_epi16(lo, _mm512_mulhi_epu16(bits, len)));
                let count = ok.count_ones() as usize;
                // The whole vector is stored where it fits; the lanes beyond `count` are overwritten next.
                if let Some(to) = out.get_mut(filled..filled + WIDTH) {
                    // SAFETY: `to` holds 32 i16, the unaligned store's width.
                    unsafe { _mm512_storeu_si512(to.as_mut_ptr().cast(), accepted) };
                    filled += count;
                } else {
                    let mut last = [0i16; WIDTH];
                    // SAFETY: as above, for `last`.
                    unsafe { _mm512_storeu_si512(last.as_mut_ptr().cast(), accepted) };
                    let take = count.min(out.len() - filled);
                    out[filled..filled + take].copy_from_slice(&last[..take]);
                    filled += take;
                    if filled == out.len() {
                        return;
                    }
                }
            }
        }
    }
}

/// Draws per block of `Span16::fill` and `sprinkle`.
const BLOCK: usize = 128;

/// Of the 2^16 values of a draw, about this many sprinkle an edge value: 0.3 of them.
const SPRINKLED: u32 = 19661;

/// Replaces each value of `out`, independently with probability about 0.3, by one of `edges`, each equally likely:
/// one draw per value, through `sprinkled`. Without a branch per draw, which a sprinkled case's random choices would
/// mispredict.
pub fn sprinkle<const E: usize>(rng: &mut CaseRng, out: &mut [i16], edges: &[i16; E]) {
    let mut draws = [0u8; 2 * BLOCK];
    for chunk in out.chunks_mut(BLOCK) {
        let draws = &mut draws[..2 * chunk.len()];
        rng.fill_bytes(draws);
        for (x, pair) in chunk.iter_mut().zip(draws.chunks_exact(2)) {
            *x = sprinkled(u16::from_le_bytes([pair[0], pair[1]]), *x, edges);
        }
    }
}

/// What a draw makes of `value`: a draw below `E * per_edge` (per_edge = floor(19661 / E)) makes it edge
/// `draw / per_edge`; any other leaves it.
#[inline]
fn sprinkled<const E: usize>(draw: u16, value: i16, edges: &[i16; E]) -> i16 {
    let pick = (u32::from(draw) / (SPRINKLED / E as u32)) as usize;
    // A select by mask: the compiler turns `if pick < E` into a branch.
    let keep = i16::from(pick >= E).wrapping_neg();
    (value & keep) | (edges[pick.min(E - 1)] & !keep)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::case_rng;

    /// Every 16-bit draw, through the map: each value of the span comes from exactly floor(2^16 / len) draws, and
    /// nothing outside the span comes out.
    #[test]
    fn every_value_of_a_span_is_equally_likely() {
        for (lo, hi) in
            [(0, 0), (0, 2), (-1, 1), (0, 3328), (-4993, 4993), (-32767, 32767), (-32768, 32767), (5, 65540)]
        {
            let span = Span16::new(lo, hi);
            let len = (hi - lo + 1) as usize;
            let mut count = vec![0u32; len];
            for bits in 0..=u16::MAX {
                if let Some(x) = span.map(bits) {
                    assert!((lo..=hi).contains(&x), "{x} outside {lo}..={hi}");
                    count[(x - lo) as usize] += 1;
                }
            }
            let each = (1u32 << 16) / len as u32;
            assert!(count.iter().all(|&c| c == each), "{lo}..={hi}: counts differ from {each}");
        }
    }

    /// Every 16-bit draw, through `sprinkled`: each edge comes from exactly floor(19661 / E) draws, the others
    /// leave the value, so a value is sprinkled with probability about 0.3.
    #[test]
    fn every_edge_is_equally_likely() {
        let edges = [10, 20, 30, 40, 50, 60, 70];
        let keep = i16::MIN;
        let mut count = [0u32; 7];
        let mut kept = 0u32;
        for draw in 0..=u16::MAX {
            match sprinkled(draw, keep, &edges) {
                x if x == keep => kept += 1,
                x => count[edges.iter().position(|&e| e == x).expect("an edge")] += 1,
            }
        }
        assert_eq!(count, [2808; 7], "19661 / 7 = 2808 draws per edge");
        assert_eq!(kept, 65536 - 7 * 2808);
    }

    /// `sprinkle` maps the stream's little-endian pairs in order, one per value, across several blocks.
    #[test]
    fn sprinkle_maps_the_streams_draws_in_order() {
        let edges = [-1, 1, 3328];
        let before: Vec<i16> = (0..300).collect();
        let mut out = before.clone();
        sprinkle(&mut case_rng(3, 4), &mut out, &edges);
        let mut bytes = [0u8; 600];
        case_rng(3, 4).fill_bytes(&mut bytes);
        let mut sprinkled_values = 0;
        for ((pair, &x), &was) in bytes.chunks_exact(2).zip(&out).zip(&before) {
            let draw = u32::from(u16::from_le_bytes([pair[0], pair[1]]));
            let expected = if draw < 3 * 6553 { edges[(draw / 6553) as usize] } else { was };
            assert_eq!(x, expected, "draw {draw}");
            sprinkled_values += usize::from(x != was);
        }
        // 300 x 0.3 = 90 expected; 5 standard deviations is about +-40.
        assert!((50..=130).contains(&sprinkled_values), "{sprinkled_values} sprinkled");
    }

    /// `fill` keeps exactly the draws `map` accepts, in the stream's order, across several blocks: as this CPU runs
    /// it and in its portable form, for spans of 1 to 2^16 integers and outputs shorter and longer than a vector.
    #[test]
    fn fill_gives_the_accepted_draws_in_order() {
        for (lo, hi) in [(-4993, 4993), (0, 0), (0, 3328), (-32767, 32767), (-32768, 32767), (-3, 3), (1, 40000)] {
            let span = Span16::new(lo, hi);
            for case in 0..20 {
                let mut bytes = [0u8; 8192];
                case_rng(5, case).fill_bytes(&mut bytes);
                let expected: Vec<i16> = bytes
                    .chunks_exact(2)
                    .filter_map(|pair| span.map(u16::from_le_bytes([pair[0], pair[1]])))
                    .map(|x| x as i16)
                    .take([1, 33, 256, 700][case as usize % 4])
                    .collect();
                let mut out = vec![0i16; expected.len()];
                span.fill(&mut case_rng(5, case), &mut out);
                assert_eq!(out, expected, "{lo}..={hi}, case {case}");
                span.fill_portable(&mut case_rng(5, case), &mut out);
                assert_eq!(out, expected, "{lo}..={hi}, case {case}, portable");
            }
        }
    }

    #[test]
    fn samples_are_reproducible_and_cover_the_span() {
        let span = Span16::new(-3, 3);
        let draw = |case| {
            let mut rng = case_rng(11, case);
            let mut out = [0i16; 4096];
            span.fill(&mut rng, &mut out);
            out
        };
        let first = draw(7);
        assert_eq!(first, draw(7));
        assert_ne!(first, draw(8));
        for v in -3..=3 {
            let n = first.iter().filter(|&&x| x == v).count();
            // 4096 / 7 = 585 expected; 5 standard deviations is about +-110.
            assert!((470..=700).contains(&n), "{v} drawn {n} times");
        }
    }
}
