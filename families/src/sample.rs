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
    /// instructions).
    pub fn fill(&self, rng: &mut CaseRng, out: &mut [i16]) {
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

    /// `fill` keeps exactly the draws `map` accepts, in the stream's order, across several blocks.
    #[test]
    fn fill_gives_the_accepted_draws_in_order() {
        let span = Span16::new(-4993, 4993);
        let mut out = [0i16; 700];
        span.fill(&mut case_rng(5, 6), &mut out);
        let mut bytes = [0u8; 4096];
        case_rng(5, 6).fill_bytes(&mut bytes);
        let accepted: Vec<i16> = bytes
            .chunks_exact(2)
            .filter_map(|pair| span.map(u16::from_le_bytes([pair[0], pair[1]])))
            .map(|x| x as i16)
            .take(out.len())
            .collect();
        assert_eq!(out.to_vec(), accepted);
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
