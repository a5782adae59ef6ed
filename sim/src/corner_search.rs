//! Searches on the models for inputs that drive one inner step of a kernel to the end of its interval: the corner
//! cases the contracts put among their edge cases. Random inputs almost never reach these values (each is one value
//! of a 2^32 or 2^64 range, or one ulp of a double), so they are constructed, then checked by running the model.
//!
//! The methods (argued in docs/coverage.md):
//! - X25519 product ([`x25519_product_corners`]): the carry of step j of row i grows monotonically with a\[i\], so a
//!   bisection on a\[i\] reaches the carry c = 2^32 - t exactly, where t is the partial-product limb it meets.
//! - Keygen inverse FFT ([`keygen_ifft_halving_corners`]): the first slot of every block is a tree of halved sums of
//!   the block's inputs only, so the input at that slot moves the halving's operand by exactly one per 2^h added (h
//!   the halvings in between): solving backwards through the butterflies sets the operand to 2^63 - 1 or -2^63.
//! - Keygen forward FFT ([`keygen_fft_fraction_corners`]): a value whose butterfly partner is zero passes a layer
//!   unchanged, so one input word reaches every butterfly of a chosen layer, where it completes a twiddle's low word
//!   to the largest fraction a product's floor can drop.

use crate::fxp::{cmul, half, roots};
use crate::x25519_fe::{Fe, LIMBS};

/// A small deterministic generator (SplitMix64): the searches must give the same corners on every machine.
#[derive(Debug, Clone)]
pub struct SplitMix(u64);

impl SplitMix {
    pub fn new(seed: u64) -> Self {
        Self(seed)
    }

    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    fn next_u32(&mut self) -> u32 {
        (self.next_u64() >> 32) as u32
    }
}

/// The multiplication's reduction: t[0..8] + 38 t[8..16] leaves r and a carry c; r + 38 c is then folded once more
/// when it passes 2^256. `Some(w)` (w = r + 38 c - 2^256, in [0, 38 c)) when that second fold fires for a b.
pub fn second_fold(a: &Fe, b: &Fe) -> Option<u64> {
    let t = crate::x25519_fe::product(a, b);
    let mut r = [0u32; LIMBS];
    let mut c = 0u64;
    for i in 0..LIMBS {
        let s = u64::from(t[LIMBS + i]) * 38 + u64::from(t[i]) + c;
        r[i] = s as u32;
        c = s >> 32;
    }
    // r + 38 c passes 2^256 only when limbs 1..7 are all ones and limb 0 carries.
    let low = u64::from(r[0]) + 38 * c;
    (r[1..].iter().all(|&l| l == u32::MAX) && low >> 32 == 1).then(|| low - (1 << 32))
}

/// Operand pairs of the field multiplication whose reduction folds a second time, at both ends of the wrapped
/// value w in [0, 38 c): a = 2^256 - k and b = 2^256 - m give r + 38 c = 2^256 + km - 38 (k + m) + 37 * 2^256 for
/// small k, m, so a brute force over k, m in 1..=96 (checked on the model) finds the smallest and largest w, and
/// every c the squares (k = m) give.
pub fn x25519_fold_corners() -> Vec<(Fe, Fe)> {
    let near_top = |k: u32| -> Fe {
        let mut v = [u32::MAX; LIMBS];
        v[0] = u32::MAX - (k - 1);
        v
    };
    let mut found: Vec<(u64, Fe, Fe)> = Vec::new();
    for k in 1..=96 {
        for m in k..=96 {
            let (a, b) = (near_top(k), near_top(m));
            if let Some(w) = second_fold(&a, &b) {
                found.push((w, a, b));
            }
        }
    }
    found.sort_by_key(|&(w, ..)| w);
    let mut corners: Vec<(Fe, Fe)> = Vec::new();
    for &(_, a, b) in found.iter().take(2).chain(found.iter().rev().take(2)) {
        if !corners.contains(&(a, b)) {
            corners.push((a, b));
        }
    }
    corners
}

/// The two 32-bit terms step j of row i of the schoolbook product adds to a\[i\] b\[j\]: the limb t[i + j] the earlier
/// rows left and the carry c of step j - 1 (as `x25519_fe::product` and `x25519_fe_product` compute them).
pub fn product_step_terms(a: &Fe, b: &Fe, i: usize, j: usize) -> (u32, u32) {
    let mut t = [0u32; 2 * LIMBS];
    for row in 0..=i {
        let mut c = 0u32;
        for col in 0..LIMBS {
            if (row, col) == (i, j) {
                return (t[i + j], c);
            }
            let s = u64::from(a[row]) * u64::from(b[col]) + u64::from(t[row + col]) + u64::from(c);
            t[row + col] = s as u32;
            c = (s >> 32) as u32;
        }
        t[row + LIMBS] = c;
    }
    unreachable!("row {i} step {j} inside the product")
}

/// The largest sum t + c any step of the product of `a` and `b` adds (2^32 at the corner).
pub fn product_max_step_sum(a: &Fe, b: &Fe) -> u64 {
    (0..LIMBS)
        .flat_map(|i| (0..LIMBS).map(move |j| (i, j)))
        .map(|(i, j)| {
            let (t, c) = product_step_terms(a, b, i, j);
            u64::from(t) + u64::from(c)
        })
        .max()
        .unwrap_or(0)
}

/// For every step (row i >= 1, column j >= 1: row 0 and column 0 add a zero term), operands a, b of the field
/// multiplication whose product meets t[i + j] + c = 2^32 exactly at that step: the one sum where a carry computed
/// from the wrapped 32-bit sum is lost.
pub fn x25519_product_corners() -> Vec<(Fe, Fe)> {
    let mut rng = SplitMix::new(0x2551_9C0A);
    let mut corners = Vec::new();
    for i in 1..LIMBS {
        for j in 1..LIMBS {
            'search: loop {
                let mut a: Fe = std::array::from_fn(|_| rng.next_u32());
                let mut b: Fe = std::array::from_fn(|_| rng.next_u32());
                // The carry into step j reaches 2^32 - 2 only with a large b[j - 1].
                b[j - 1] = u32::MAX - (rng.next_u32() & 0xFF);
                let (t, _) = product_step_terms(&a, &b, i, j);
                let target = (1u64 << 32) - u64::from(t);
                // Smallest a[i] whose carry reaches the target (the carry never decreases as a[i] grows).
                let (mut lo, mut hi) = (0u64, 1u64 << 32);
                while lo < hi {
                    let mid = (lo + hi) / 2;
                    a[i] = mid as u32;
                    if u64::from(product_step_terms(&a, &b, i, j).1) >= target {
                        hi = mid;
                    } else {
                        lo = mid + 1;
                    }
                }
                if lo < 1 << 32 {
                    a[i] = lo as u32;
                    let (t, c) = product_step_terms(&a, &b, i, j);
                    if u64::from(t) + u64::from(c) == 1 << 32 {
                        corners.push((a, b));
                        break 'search;
                    }
                }
            }
        }
    }
    corners
}

/// The halving's operand s (any 64-bit value, as a signed integer) and its ends: half(s) = (s + 1) >> 1 wraps at
/// s = 2^63 - 1. Past the first layer an operand is a sum or difference of two halved values, each in
/// [-2^62, 2^62 - 1], so sums reach [-2^63, 2^63 - 2] and differences [-2^63 + 1, 2^63 - 1]: the reachable ends.
pub const HALF_MAX: i64 = (1 << 62) - 1;
pub const HALF_MIN: i64 = -(1 << 62);

/// The reachable ends of the halving operands of inverse-FFT layer h: (sum low, sum high, difference low, high).
pub fn ifft_halving_ends(h: u32) -> [i64; 4] {
    if h == 0 {
        [i64::MIN, i64::MAX, i64::MIN, i64::MAX]
    } else {
        [2 * HALF_MIN, 2 * HALF_MAX, HALF_MIN - HALF_MAX, HALF_MAX - HALF_MIN]
    }
}

/// The operands of the first butterfly of the block at `base` in the inverse-FFT layer of half-width `ht`, run on
/// the block's inputs alone (the reference's order): (xr + yr, xi + yi, xr - yr, xi - yi) before their halving.
pub fn ifft_block_operands(logn: u32, f: &[u64], base: usize, ht: usize) -> [u64; 4] {
    let hn = 1usize << (logn - 1);
    let gm = roots();
    let mut g = f.to_vec();
    let mut h = 1usize;
    for lm in (1..logn).rev() {
        let m = 1usize << lm;
        let t = 2 * h;
        if h == ht {
            let (xr, xi, yr, yi) = (g[base], g[base + hn], g[base + ht], g[base + ht + hn]);
            return [xr.wrapping_add(yr), xi.wrapping_add(yi), xr.wrapping_sub(yr), xi.wrapping_sub(yi)];
        }
        // Only the blocks inside [base, base + 2 ht) matter; run them all (cheap) in the reference's order.
        for i in 0..m / 2 {
            let (sr, si) = gm[m + i];
            let si = si.wrapping_neg();
            for j in i * t..i * t + h {
                let (xr, xi) = (g[j], g[j + hn]);
                let (yr, yi) = (g[j + h], g[j + h + hn]);
                g[j] = half(xr.wrapping_add(yr));
                g[j + hn] = half(xi.wrapping_add(yi));
                let (zr, zi) = cmul(sr, si, half(xr.wrapping_sub(yr)), half(xi.wrapping_sub(yi)));
                g[j + h] = zr;
                g[j + h + hn] = zi;
            }
        }
        h = t;
    }
    unreachable!("half-width {ht} is a layer of logn {logn}")
}

/// Inverse-FFT inputs (logn, f) that drive the halvings of every layer to both reachable ends
/// ([`ifft_halving_ends`]), sums and differences, real and imaginary parts.
///
/// Construction (solving backwards through the butterflies): the first slot of a block of the layer of half-width
/// 2^h halves x + y and x - y, where x and y are the two halves' sum trees; a half whose inputs all equal v, with
/// v in [-2^62, 2^62 - 1], has the sum tree v at every level (half(2v) = v). So v = 2^62 - 1 or -2^62 on each half
/// sets the operand to either end. In layer 0 the operands are raw inputs, set directly. One case per degree holds
/// every layer but the last in the disjoint blocks at slots 2^(h+1); another holds the last layer (block 0). Four
/// variants per degree: sums of the real parts with differences of the imaginary parts or the other way round, at
/// the high or the low ends. Everything else is random.
pub fn keygen_ifft_halving_corners() -> Vec<(u32, Vec<u64>)> {
    let mut rng = SplitMix::new(0x1FF7_4A1F);
    let mut out = Vec::new();
    for logn in 2..=10u32 {
        let hn = 1usize << (logn - 1);
        for variant in 0..4 {
            let (sum_on_real, high) = (variant % 2 == 0, variant / 2 == 0);
            for top in [false, true] {
                let layers: Vec<u32> = if top { vec![logn - 2] } else { (0..logn.saturating_sub(2)).collect() };
                if layers.is_empty() {
                    continue;
                }
                let mut f: Vec<u64> = (0..2 * hn).map(|_| rng.next_u64()).collect();
                for h in layers {
                    let ht = 1usize << h;
                    let base = if top { 0 } else { 2 * ht };
                    let (sum_x, sum_y, diff_x, diff_y) = match (h, high) {
                        (0, true) => (HALF_MAX + 1, HALF_MAX, HALF_MAX, HALF_MIN),
                        (0, false) => (HALF_MIN, HALF_MIN, 0, i64::MIN),
                        (_, true) => (HALF_MAX, HALF_MAX, HALF_MAX, HALF_MIN),
                        (_, false) => (HALF_MIN, HALF_MIN, HALF_MIN, HALF_MAX),
                    };
                    let (sum_part, diff_part) = if sum_on_real { (0, hn) } else { (hn, 0) };
                    for k in 0..ht {
                        f[sum_part + base + k] = sum_x as u64;
                        f[sum_part + base + ht + k] = sum_y as u64;
                        f[diff_part + base + k] = diff_x as u64;
                        f[diff_part + base + ht + k] = diff_y as u64;
                    }
                }
                out.push((logn, f));
            }
        }
    }
    out
}

/// 2^256 - m in limbs (m < 2^32).
fn below_2_256(m: u32) -> Fe {
    let mut a = [u32::MAX; LIMBS];
    a[0] = 0u32.wrapping_sub(m);
    a
}

/// The squaring's second fold on the squares of 2^256 - m, m in 1..=256, run on the model: (value, operand) for
/// every m that folds twice.
fn x25519_sqr_second_folds() -> Vec<(i64, Fe)> {
    (1..=256)
        .filter_map(|m| {
            let a = below_2_256(m);
            let (_, seen) = crate::coverage::record(|| crate::x25519_fe::sqr(&a));
            seen.get(crate::x25519_fe::SQR_REDUCE.second_fold).map(|s| (s.max, a))
        })
        .collect()
}

/// The smallest and largest second-fold values of the squaring that [`x25519_sqr_corners`] reach.
pub fn x25519_sqr_fold_ends() -> (i64, i64) {
    let folds = x25519_sqr_second_folds();
    (folds.iter().map(|f| f.0).min().unwrap(), folds.iter().map(|f| f.0).max().unwrap())
}

/// Squaring operands at the reduction's corners: 2^256 - 76, whose square's halves give
/// t[0..8] + 38 t[8..16] = 38 2^256 (the carry 38), and the squares of 2^256 - m whose second fold leaves the
/// smallest and the largest value (a search over m in 1..=256: a square's halves are tied, so the pairs of the
/// multiplication's search do not carry over).
pub fn x25519_sqr_corners() -> Vec<Fe> {
    let folds = x25519_sqr_second_folds();
    let lo = folds.iter().min_by_key(|f| f.0).unwrap().1;
    let hi = folds.iter().max_by_key(|f| f.0).unwrap().1;
    vec![below_2_256(76), lo, hi]
}

/// The multiplication by k = 121666: for every carry c = floor(a k / 2^256), the largest a with that carry,
/// a = floor(((c + 1) 2^256 - 1) / k), leaves r = a k - c 2^256 largest, so the second fold's value
/// w = r + 38 c - 2^256 = 38 c - 1 - s, s = ((c + 1) 2^256 - 1) mod k; the smaller a = a_top - j give w - j k.
/// Exhaustive over c: (value, operand) at the smallest and at the largest value.
pub fn x25519_mul121666_fold_ends() -> ((i64, Fe), (i64, Fe)) {
    let k = u64::from(crate::x25519_fe::A24_PLUS_ONE);
    let two_256 = (0..256).fold(1u64, |r, _| 2 * r % k);
    let fold = u64::from(crate::x25519_fe::FOLD);
    // (w, c, j) at both ends.
    let (mut lo, mut hi) = ((i64::MAX, 0, 0), (i64::MIN, 0, 0));
    for c in 0..k {
        let s = ((c + 1) * two_256 + k - 1) % k;
        let w = (fold * c) as i64 - 1 - s as i64;
        if w < 0 {
            continue;
        }
        if w > hi.0 {
            hi = (w, c, 0);
        }
        if w % k as i64 <= lo.0 {
            lo = (w % k as i64, c, w as u64 / k);
        }
    }
    // a = ((c + 1) 2^256 - 1 - s) / k - j, the division limb by limb from the top (limb 8 is c).
    let operand = |c: u64, j: u64| -> Fe {
        let s = ((c + 1) * two_256 + k - 1) % k;
        let mut n = [u32::MAX; LIMBS];
        n[0] -= s as u32;
        let mut rem = c;
        let mut a = [0u32; LIMBS];
        for i in (0..LIMBS).rev() {
            let cur = rem << 32 | u64::from(n[i]);
            a[i] = (cur / k) as u32;
            rem = cur % k;
        }
        let (low, borrow) = a[0].overflowing_sub(j as u32);
        a[0] = low;
        assert!(!borrow, "j < 2^32 - a[0] for the c found");
        a
    };
    ((lo.0, operand(lo.1, lo.2)), (hi.0, operand(hi.1, hi.2)))
}

/// Operands of the multiplication by 121666 whose second fold leaves the smallest and the largest value.
pub fn x25519_mul121666_corners() -> Vec<Fe> {
    let (lo, hi) = x25519_mul121666_fold_ends();
    vec![lo.1, hi.1]
}

/// The twiddle words of forward-FFT layer h (values 2^h apart) over every degree that has it: for each, the degree,
/// the entry k and which product (0: sr c, 1: si d, 2: (sr + si)(c + d)) it multiplies, with its low word.
fn fft_twiddle_words(h: u32) -> impl Iterator<Item = (u32, usize, usize, u32)> {
    (h + 2..=10).flat_map(move |logn| {
        let m = 1usize << (logn - 1 - h);
        (m..m + m / 2).flat_map(move |k| {
            let (sr, si) = roots()[k];
            [sr, si, sr.wrapping_add(si)].into_iter().enumerate().map(move |(p, w)| (logn, k, p, w as u32))
        })
    })
}

/// The largest fraction (a b) mod 2^32 a product of forward-FFT layer h can drop, and a twiddle word that reaches it
/// (degree, entry, product, low word): a twiddle word w = 2^v u (u odd) times any data word gives exactly the
/// multiples of 2^v, so the largest is 2^32 - 2^v for the smallest v among the layer's twiddle words.
pub fn fft_fraction_max(h: u32) -> (i64, (u32, usize, usize, u32)) {
    let best = fft_twiddle_words(h).filter(|t| t.3 != 0).min_by_key(|t| (t.3.trailing_zeros(), t.0)).unwrap();
    ((1i64 << 32) - (1i64 << best.3.trailing_zeros()), best)
}

/// The inverse of an odd u modulo 2^32 (Newton's iteration doubles the correct bits each step).
fn inverse_mod_2_32(u: u32) -> u32 {
    let mut x = u;
    for _ in 0..5 {
        x = x.wrapping_mul(2u32.wrapping_sub(u.wrapping_mul(x)));
    }
    x
}

/// Forward-FFT inputs (logn, f) whose products drop the largest fraction each layer allows ([`fft_fraction_max`]),
/// one per layer 0..=8 (the zero vector, an edge case, drops 0 everywhere).
///
/// Construction: in the forward FFT a value in the x slot of a butterfly whose y slot is zero is copied unchanged
/// to both outputs (the product of a twiddle and zero is exactly zero). So the input f[2^h] = c, f[2^h + n/2] = d,
/// everything else zero, reaches layer h with x = 0 and y = (c, d) in every butterfly: every entry of the layer
/// meets (c, d). The data word that completes a twiddle word w = 2^v u to 2^32 - 2^v is -u^-1 mod 2^32; it goes in
/// c (products sr c and (sr + si)(c + d), with d = 0) or in d (product si d, with c = 0).
pub fn keygen_fft_fraction_corners() -> Vec<(u32, Vec<u64>)> {
    let mut rng = SplitMix::new(0xF0F7_C0E2);
    (0..9u32)
        .map(|h| {
            let (_, (logn, _, product, w)) = fft_fraction_max(h);
            let data = u64::from(inverse_mod_2_32(w >> w.trailing_zeros()).wrapping_neg());
            // The high word is free: random, so that the case tests the whole product.
            let word = data | u64::from(rng.next_u32()) << 32;
            let hn = 1usize << (logn - 1);
            let mut f = vec![0u64; 2 * hn];
            let slot = if product == 1 { (1 << h) + hn } else { 1 << h };
            f[slot] = word;
            (logn, f)
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_fold_corners_fold_twice_at_both_ends() {
        let corners = x25519_fold_corners();
        assert_eq!(corners.len(), 4);
        let ws: Vec<u64> = corners.iter().map(|(a, b)| second_fold(a, b).expect("a second fold")).collect();
        eprintln!("wrapped values {ws:?}");
        assert!(ws[0] <= 1 && ws[2] >= 37 * 38 - 40, "{ws:?}");
    }

    #[test]
    fn every_product_step_reaches_a_sum_of_two_to_the_32() {
        let corners = x25519_product_corners();
        assert_eq!(corners.len(), 49);
        for (k, (a, b)) in corners.iter().enumerate() {
            let (i, j) = (1 + k / 7, 1 + k % 7);
            let (t, c) = product_step_terms(a, b, i, j);
            assert_eq!(u64::from(t) + u64::from(c), 1 << 32, "row {i} step {j}");
        }
    }

    #[test]
    fn every_inverse_fft_layer_halves_both_ends() {
        let corners = keygen_ifft_halving_corners();
        assert_eq!(corners.len(), 4 + 8 * 8);
        for logn in 2..=10u32 {
            for h in 0..logn - 1 {
                // Every reachable end of every operand (sum re, sum im, difference re, difference im) is hit.
                let ends = ifft_halving_ends(h);
                let mut hit = [[false; 2]; 4];
                for (_, f) in corners.iter().filter(|(l, _)| *l == logn) {
                    let base = if h == logn - 2 { 0 } else { 2 << h };
                    let ops = ifft_block_operands(logn, f, base, 1 << h);
                    for (which, &op) in ops.iter().enumerate() {
                        let (lo, hi) = if which < 2 { (ends[0], ends[1]) } else { (ends[2], ends[3]) };
                        hit[which][0] |= op as i64 == lo;
                        hit[which][1] |= op as i64 == hi;
                    }
                }
                assert_eq!(hit, [[true; 2]; 4], "logn {logn} layer {h}");
            }
        }
    }

    #[test]
    fn the_field_corners_fold_at_their_ends() {
        use crate::coverage::record;
        use crate::x25519_fe::{MUL121666_FOLD, SQR_REDUCE, mul121666, sqr};
        let sqr_corners = x25519_sqr_corners();
        let (_, seen) = record(|| sqr(&sqr_corners[0]));
        assert_eq!(seen.get(SQR_REDUCE.carry).unwrap().max, 38);
        let (lo, hi) = x25519_sqr_fold_ends();
        eprintln!("squaring's second fold {lo}..={hi}");
        let (_, seen) = record(|| sqr_corners[1..].iter().map(sqr).count());
        let s = seen.get(SQR_REDUCE.second_fold).unwrap();
        assert_eq!((s.min, s.max), (lo, hi));
        assert!(lo <= 11 && hi >= 1331, "{lo}..={hi}");
        let ((w_lo, a_lo), (w_hi, a_hi)) = x25519_mul121666_fold_ends();
        assert_eq!(w_lo, 0);
        for (w, a) in [(w_lo, a_lo), (w_hi, a_hi)] {
            let (_, seen) = record(|| mul121666(&a));
            assert_eq!(seen.get(MUL121666_FOLD.second_fold).map(|s| s.max), Some(w));
        }
        // Below the proof's bound 38 * 121665 - 1.
        assert!(w_hi > 4_600_000 && w_hi < 38 * 121_665, "{w_hi}");
    }

    #[test]
    fn every_forward_fft_layer_drops_its_largest_fraction() {
        let corners = keygen_fft_fraction_corners();
        assert_eq!(corners.len(), 9);
        for (h, (logn, f)) in corners.iter().enumerate() {
            let (max, (_, k, product, _)) = fft_fraction_max(h as u32);
            assert!(max >= (1 << 31), "layer {h}: {max}");
            // Run the reference's earlier layers, then the layer's products on the twiddle found.
            let hn = 1usize << (logn - 1);
            let ht = 1usize << h;
            let lm = logn - 1 - h as u32;
            let mut g = f.clone();
            let mut t = hn;
            for l in 1..lm {
                let (m, half) = (1usize << l, t >> 1);
                for i in 0..m / 2 {
                    let (sr, si) = roots()[m + i];
                    for j in i * t..i * t + half {
                        let (xr, xi) = (g[j], g[j + hn]);
                        let (zr, zi) = cmul(sr, si, g[j + half], g[j + half + hn]);
                        g[j] = xr.wrapping_add(zr);
                        g[j + hn] = xi.wrapping_add(zi);
                        g[j + half] = xr.wrapping_sub(zr);
                        g[j + half + hn] = xi.wrapping_sub(zi);
                    }
                }
                t = half;
            }
            let block = k - (1 << lm);
            let (c, d) = (g[block * 2 * ht + ht], g[block * 2 * ht + ht + hn]);
            let (sr, si) = roots()[k];
            let (a, b) = [(sr, c), (si, d), (sr.wrapping_add(si), c.wrapping_add(d))][product];
            assert_eq!(i64::from((a as u32).wrapping_mul(b as u32)), max, "layer {h}");
        }
    }
}
