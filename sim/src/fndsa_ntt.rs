//! Models of the FN-DSA NTT kernels, q = 12289 (`kernels/arm/fndsa_ntt/`): the MVE kernels of `fndsa_ntt.mve.c`
//! written with [`crate::mve`] (one function per intrinsic, in the C source's order; only [`red`]'s VQDMULH and
//! VRSHR pair is one function, an identity checked exhaustively), the portable baselines of `fndsa_ntt_scalar.c`
//! ([`scalar`]), and the worst-case bound propagation ([`bounds`]) that proves the MVE kernels never overflow a
//! 16-bit lane.
//!
//! Representation of the MVE kernels: signed 16-bit lanes, x stands for x mod q, no Montgomery factor. Storage order
//! of the NTT domain: position `64c + 8r + j` holds reference slot `64c + 8j + r` ([`ntt_slot`]).
//!
//! The twiddles are recomputed here from g = 7 and q, independently of the C tables.

use crate::coverage::{self, LaneExtremes};
use crate::mve::*;

/// The names of a step at each layer (0-based, as the bounds proof counts): `<prefix>/layer<L>.<step>`.
macro_rules! per_layer {
    ($prefix:literal, $step:literal) => {
        crate::coverage::step_names!($prefix, $step, [0, 1, 2, 3, 4, 5, 6, 7, 8, 9])
    };
}

/// The steps the MVE models observe ([`crate::coverage`]), per size. Forward: each pass's reduction of its loaded
/// input (named by the pass's first layer), each layer's multiplication input and butterfly outputs. Inverse: each
/// layer's sums (the reduction's input; at layer 0 the multiplication by n^-1's) and differences (the
/// multiplication's input).
pub struct Steps {
    pub fwd_red: [&'static str; 10],
    pub fwd_mul: [&'static str; 10],
    pub fwd_sum: [&'static str; 10],
    pub inv_sum: [&'static str; 10],
    pub inv_dif: [&'static str; 10],
}

pub const STEPS_512: Steps = Steps {
    fwd_red: per_layer!("fndsa.ntt512.fwd", "red"),
    fwd_mul: per_layer!("fndsa.ntt512.fwd", "mul"),
    fwd_sum: per_layer!("fndsa.ntt512.fwd", "sum"),
    inv_sum: per_layer!("fndsa.ntt512.inv", "sum"),
    inv_dif: per_layer!("fndsa.ntt512.inv", "dif"),
};

pub const STEPS_1024: Steps = Steps {
    fwd_red: per_layer!("fndsa.ntt1024.fwd", "red"),
    fwd_mul: per_layer!("fndsa.ntt1024.fwd", "mul"),
    fwd_sum: per_layer!("fndsa.ntt1024.fwd", "sum"),
    inv_sum: per_layer!("fndsa.ntt1024.inv", "sum"),
    inv_dif: per_layer!("fndsa.ntt1024.inv", "dif"),
};

/// The steps of a size.
pub fn steps_of(logn: u32) -> &'static Steps {
    if logn == 9 { &STEPS_512 } else { &STEPS_1024 }
}

/// What the inverse model gathers over one call, per layer, recorded at its end: each butterfly's sums (the
/// reduction's input) and differences (the multiplication's), as integers, so that a wrapped lane shows past the bound.
struct InvTally {
    sum: [LaneExtremes; 10],
    dif: [LaneExtremes; 10],
}

impl InvTally {
    const NONE: InvTally = InvTally { sum: [LaneExtremes::NONE; 10], dif: [LaneExtremes::NONE; 10] };

    #[inline(always)]
    fn butterfly(tally: &mut Option<InvTally>, layer: usize, a: Q, b: Q) {
        if let Some(t) = tally {
            t.sum[layer].s16_sum(a, b, false);
            t.dif[layer].s16_sum(a, b, true);
        }
    }

    fn record(&self, steps: &Steps) {
        for layer in 0..10 {
            self.sum[layer].record(steps.inv_sum[layer]);
            self.dif[layer].record(steps.inv_dif[layer]);
        }
    }
}

// The family's constants, defined here once: the model, the bounds proof (`bounds`, `sim/tests/fndsa_ntt_bounds.rs`)
// and the contracts read them; the C kernels' `fndsa_ntt.h` repeats them by name, checked against these by
// `sim/tests/kernel_constants.rs`.

/// The modulus (FN-DSA).
pub const Q: i16 = 12289;
/// The generator of the twiddles: a primitive 2048th root of unity mod q (g^1024 = -1, checked below).
pub const G: u32 = 7;
/// q^-1 mod 2^16, as a signed 16-bit value.
pub const QINV: i16 = -12287;
/// round(2^28 / q): the Barrett constant of [`red`].
pub const RED_V: i16 = (((1i64 << 29) + Q as i64) / (2 * Q as i64)) as i16;
/// 2^16 mod q, which cancels the Montgomery factor of the pointwise product.
pub const MONT_C: i16 = ((1i64 << 16) % Q as i64) as i16;

const _: () = assert!((Q as i32 * QINV as i32) & 0xFFFF == 1);

/// Precondition of the forward MVE kernels: every int16 (no bound).
pub const FWD_IN: i32 = 32768;
/// Postconditions of the forward MVE kernels, n = 512 and n = 1024: |x| <= FWD_OUT_512, FWD_OUT_1024.
pub const FWD_OUT_512: i32 = 32028;
pub const FWD_OUT_1024: i32 = 32065;
/// Precondition of the inverse MVE kernels: |x| <= INV_IN.
pub const INV_IN: i32 = 16383;
/// Postcondition of the inverse MVE kernels (n^-1 included): |x| <= INV_OUT.
pub const INV_OUT: i32 = 8067;
/// Precondition of the pointwise MVE kernels: |a|, |b| <= PW_IN (-32768 excluded).
pub const PW_IN: i32 = 32767;
/// Postcondition of the pointwise MVE kernels: |r| <= PW_OUT.
pub const PW_OUT: i32 = 9909;
/// |red(a)| <= RED_OUT for every int16 a.
pub const RED_OUT: i32 = 6145;

// Each output feeds the next kernel: forward -> pointwise -> inverse.
const _: () = assert!(FWD_OUT_512 <= PW_IN && FWD_OUT_1024 <= PW_IN && PW_OUT <= INV_IN);

const fn pow_mod(base: u32, mut e: u32) -> u32 {
    let q = Q as u64;
    let mut r = 1u64;
    let mut b = base as u64 % q;
    while e > 0 {
        if e & 1 == 1 {
            r = r * b % q;
        }
        b = b * b % q;
        e >>= 1;
    }
    r as u32
}

/// The centred representative of x mod q, in [-(q-1)/2, (q-1)/2].
pub const fn centred(x: i64) -> i16 {
    let r = x.rem_euclid(Q as i64);
    (if r > (Q as i64 - 1) / 2 { r - Q as i64 } else { r }) as i16
}

/// round(w 2^15 / q) (never a tie: q is odd): the Barrett companion of the constant w.
pub const fn barrett_companion(w: i16) -> i16 {
    ((w as i64 * 65536 + Q as i64).div_euclid(2 * Q as i64)) as i16
}

const fn tables(root: u32) -> ([i16; 1024], [i16; 1024]) {
    let mut w = [0i16; 1024];
    let mut b = [0i16; 1024];
    let mut k = 0;
    while k < 1024 {
        let rev = (k as u32).reverse_bits() >> 22;
        w[k] = centred(pow_mod(root, rev) as i64);
        b[k] = barrett_companion(w[k]);
        k += 1;
    }
    (w, b)
}

const _: () = assert!(pow_mod(G, 1024) == Q as u32 - 1);

const FWD: ([i16; 1024], [i16; 1024]) = tables(G);
/// g^-1 = g^2047: g has order 2048.
const INV: ([i16; 1024], [i16; 1024]) = tables(pow_mod(G, 2047));
/// `fndsa_zeta[k] = g^rev10(k)` (centred) and its Barrett companions `fndsa_zeta_br`.
pub static ZETA: [i16; 1024] = FWD.0;
pub static ZETA_BR: [i16; 1024] = FWD.1;
/// `fndsa_izeta[k] = g^-rev10(k)` (centred) and `fndsa_izeta_br`.
pub static IZETA: [i16; 1024] = INV.0;
pub static IZETA_BR: [i16; 1024] = INV.1;

/// n^-1 mod q (centred) for n = 2^logn.
pub fn ninv(logn: u32) -> i16 {
    centred(i64::from(pow_mod(1 << logn, Q as u32 - 2)))
}

/// The reference slot held at storage position `p` of the MVE kernels' NTT order (an involution).
pub fn ntt_slot(p: usize) -> usize {
    (p & !63) | ((p & 7) << 3) | ((p >> 3) & 7)
}

/// Barrett multiplication by the constant w (companion wbr): b*w - q*round(b*wbr/2^15).
#[inline(always)]
pub fn mul_n(b: Q, w: i16, wbr: i16) -> Q {
    let hi = vqrdmulhq_n_s16(b, wbr);
    let lo = vmulq_n_s16(b, w);
    vmlaq_n_s16(lo, hi, -Q)
}

#[inline(always)]
fn mul_v(b: Q, w: Q, wbr: Q) -> Q {
    let hi = vqrdmulhq_s16(b, wbr);
    let lo = vmulq_s16(b, w);
    vmlaq_n_s16(lo, hi, -Q)
}

/// Barrett reduction of every lane.
#[inline(always)]
pub fn red(a: Q) -> Q {
    // The kernel's VQDMULH then VRSHR #13, in one step (the same value, see `vqdmulhq_n_vrshrq_n_s16`).
    let t = vqdmulhq_n_vrshrq_n_s16(a, RED_V, 13);
    vmlaq_n_s16(a, t, -Q)
}

/// The kernel's `vld1q_s16(a + base + k d)` for k < N, a column of a register pass, the slice cut once (so that
/// the model's hot loop checks bounds once per column, not per load).
#[inline(always)]
fn load_column<const N: usize>(a: &[i16], base: usize, d: usize) -> [Q; N] {
    let column = &a[base..base + (N - 1) * d + 8];
    core::array::from_fn(|k| vld1q_s16(&column[k * d..k * d + 8]))
}

/// The kernel's `vst1q_s16(a + base + k d, r[k])` for k < N (bounds as in [`load_column`]).
#[inline(always)]
fn store_column<const N: usize>(a: &mut [i16], base: usize, d: usize, r: &[Q]) {
    let column = &mut a[base..base + (N - 1) * d + 8];
    for (k, &x) in r[..N].iter().enumerate() {
        vst1q_s16(&mut column[k * d..k * d + 8], x);
    }
}

/// Expands `$butterfly!(layer, top register, distance)` for every butterfly of a register pass of `$nl` layers (2
/// or 3), layer by layer (first to last forward, last to first inverse), top registers ascending, as the kernel's
/// loops run them. Written out so that every register index is a constant: the pass keeps its eight vectors in host
/// registers.
macro_rules! network {
    ($nl:expr, forward, $butterfly:ident) => {
        match $nl {
            3 => {
                network!(@layer $butterfly, 0, 4, [0, 1, 2, 3]);
                network!(@layer $butterfly, 1, 2, [0, 1, 4, 5]);
                network!(@layer $butterfly, 2, 1, [0, 2, 4, 6]);
            }
            2 => {
                network!(@layer $butterfly, 0, 2, [0, 1]);
                network!(@layer $butterfly, 1, 1, [0, 2]);
            }
            _ => unreachable!("passes of 2 or 3 layers"),
        }
    };
    ($nl:expr, inverse, $butterfly:ident) => {
        match $nl {
            3 => {
                network!(@layer $butterfly, 2, 1, [0, 2, 4, 6]);
                network!(@layer $butterfly, 1, 2, [0, 1, 4, 5]);
                network!(@layer $butterfly, 0, 4, [0, 1, 2, 3]);
            }
            2 => {
                network!(@layer $butterfly, 1, 1, [0, 2]);
                network!(@layer $butterfly, 0, 2, [0, 1]);
            }
            _ => unreachable!("passes of 2 or 3 layers"),
        }
    };
    (@layer $butterfly:ident, $s:literal, $dist:literal, [$($k:literal),+]) => {
        $($butterfly!($s, $k, $dist);)+
    };
}

/// What the forward model gathers of its steps over one call ([`coverage::Extremes`]), per layer, recorded at its end:
/// an observed vector is then a few lane comparisons, not a look-up.
struct FwdTally {
    red: [LaneExtremes; 10],
    mul: [LaneExtremes; 10],
    sum: [LaneExtremes; 10],
}

impl FwdTally {
    const NONE: FwdTally =
        FwdTally { red: [LaneExtremes::NONE; 10], mul: [LaneExtremes::NONE; 10], sum: [LaneExtremes::NONE; 10] };

    fn record(&self, steps: &Steps) {
        for layer in 0..10 {
            self.red[layer].record(steps.fwd_red[layer]);
            self.mul[layer].record(steps.fwd_mul[layer]);
            self.sum[layer].record(steps.fwd_sum[layer]);
        }
    }
}

/// A register pass of log2(`NR`) layers from layer `l0`, on `NR` registers (a constant, as in the kernel;
/// `network!` writes its butterflies out).
fn fwd_pass<const NR: usize>(a: &mut [i16], logn: u32, l0: u32, tally: &mut Option<FwdTally>) {
    let nl = NR.trailing_zeros();
    let n = 1usize << logn;
    let (group, d) = (n >> l0, n >> (l0 + nl));
    for g in 0..1usize << l0 {
        for col in (0..d).step_by(8) {
            let base = g * group + col;
            let column = load_column::<NR>(a, base, d);
            let mut r = [Q::ZERO; 8];
            for (x, &c) in r.iter_mut().zip(&column) {
                if let Some(t) = tally {
                    t.red[l0 as usize].s16(c);
                }
                *x = red(c);
            }
            macro_rules! butterfly {
                ($s:literal, $k:literal, $dist:literal) => {{
                    let (s, k, dist) = ($s, $k, $dist);
                    let z = (1 << (l0 + s)) + (g << s) + (k >> (nl - s));
                    let layer = (l0 + s) as usize;
                    if let Some(t) = tally {
                        t.mul[layer].s16(r[k + dist]);
                    }
                    let t = mul_n(r[k + dist], ZETA[z], ZETA_BR[z]);
                    if let Some(tally) = tally {
                        tally.sum[layer].s16_sum(r[k], t, false);
                        tally.sum[layer].s16_sum(r[k], t, true);
                    }
                    r[k + dist] = vsubq_s16(r[k], t);
                    r[k] = vaddq_s16(r[k], t);
                }};
            }
            network!(nl, forward, butterfly);
            store_column::<NR>(a, base, d, &r);
        }
    }
}

#[inline(always)]
fn ct_v(r: &mut [Q; 8], x: usize, y: usize, w: Q, wbr: Q, layer: usize, tally: &mut Option<FwdTally>) {
    if let Some(t) = tally {
        t.mul[layer].s16(r[y]);
    }
    let t = mul_v(r[y], w, wbr);
    if let Some(tally) = tally {
        tally.sum[layer].s16_sum(r[x], t, false);
        tally.sum[layer].s16_sum(r[x], t, true);
    }
    r[y] = vsubq_s16(r[x], t);
    r[x] = vaddq_s16(r[x], t);
}

fn fwd_last(a: &mut [i16], logn: u32, tally: &mut Option<FwdTally>) {
    let n = 1usize << logn;
    let first = logn as usize - 3;
    for c in 0..n / 64 {
        let base = 64 * c;
        // The kernel's eight gathers with transpose_offsets, each followed by a reduction.
        let mut r = vldrhq_gather_transpose8_s16(&a[base..]);
        for x in &mut r {
            if let Some(t) = tally {
                t.red[first].s16(*x);
            }
            *x = red(*x);
        }
        let (w, wb) = (vld1q_s16(&ZETA[n / 8 + 8 * c..]), vld1q_s16(&ZETA_BR[n / 8 + 8 * c..]));
        for k in 0..4 {
            ct_v(&mut r, k, k + 4, w, wb, first, tally);
        }
        let (w2, wb2) = (vld2q_s16(&ZETA[n / 4 + 16 * c..]), vld2q_s16(&ZETA_BR[n / 4 + 16 * c..]));
        for k in (0..8).filter(|k| k & 2 == 0) {
            ct_v(&mut r, k, k + 2, w2[k >> 2], wb2[k >> 2], first + 1, tally);
        }
        let (w4, wb4) = (vld4q_s16(&ZETA[n / 2 + 32 * c..]), vld4q_s16(&ZETA_BR[n / 2 + 32 * c..]));
        for k in (0..8).step_by(2) {
            ct_v(&mut r, k, k + 1, w4[k >> 1], wb4[k >> 1], first + 2, tally);
        }
        for (k, v) in r.into_iter().enumerate() {
            vst1q_s16(&mut a[base + 8 * k..], v);
        }
    }
}

#[inline(always)]
fn gs_v(r: &mut [Q; 8], x: usize, y: usize, w: Q, wbr: Q, layer: usize, tally: &mut Option<InvTally>) {
    InvTally::butterfly(tally, layer, r[x], r[y]);
    let s = vaddq_s16(r[x], r[y]);
    let d = vsubq_s16(r[x], r[y]);
    r[x] = red(s);
    r[y] = mul_v(d, w, wbr);
}

fn inv_first(a: &mut [i16], logn: u32, tally: &mut Option<InvTally>) {
    let n = 1usize << logn;
    let last = logn as usize - 1;
    for c in 0..n / 64 {
        let base = 64 * c;
        let mut r = [Q::ZERO; 8];
        for (k, x) in r.iter_mut().enumerate() {
            *x = vld1q_s16(&a[base + 8 * k..]);
        }
        let (w4, wb4) = (vld4q_s16(&IZETA[n / 2 + 32 * c..]), vld4q_s16(&IZETA_BR[n / 2 + 32 * c..]));
        for k in (0..8).step_by(2) {
            gs_v(&mut r, k, k + 1, w4[k >> 1], wb4[k >> 1], last, tally);
        }
        let (w2, wb2) = (vld2q_s16(&IZETA[n / 4 + 16 * c..]), vld2q_s16(&IZETA_BR[n / 4 + 16 * c..]));
        for k in (0..8).filter(|k| k & 2 == 0) {
            gs_v(&mut r, k, k + 2, w2[k >> 2], wb2[k >> 2], last - 1, tally);
        }
        let (w, wb) = (vld1q_s16(&IZETA[n / 8 + 8 * c..]), vld1q_s16(&IZETA_BR[n / 8 + 8 * c..]));
        for k in 0..4 {
            gs_v(&mut r, k, k + 4, w, wb, last - 2, tally);
        }
        // The kernel's eight scatters with transpose_offsets.
        vstrhq_scatter_transpose8_s16(&mut a[base..], r);
    }
}

fn inv_pass<const NR: usize>(a: &mut [i16], logn: u32, l0: u32, tally: &mut Option<InvTally>) {
    let nl = NR.trailing_zeros();
    let n = 1usize << logn;
    let ni = ninv(logn);
    let last = centred(i64::from(IZETA[1]) * i64::from(ni));
    let (ni_br, last_br) = (barrett_companion(ni), barrett_companion(last));
    let (group, d) = (n >> l0, n >> (l0 + nl));
    for g in 0..1usize << l0 {
        for col in (0..d).step_by(8) {
            let base = g * group + col;
            let column = load_column::<NR>(a, base, d);
            let mut r = [Q::ZERO; 8];
            r[..NR].copy_from_slice(&column);
            macro_rules! butterfly {
                ($s:literal, $k:literal, $dist:literal) => {{
                    let (s, k, dist) = ($s, $k, $dist);
                    InvTally::butterfly(tally, (l0 + s) as usize, r[k], r[k + dist]);
                    let sum = vaddq_s16(r[k], r[k + dist]);
                    let dif = vsubq_s16(r[k], r[k + dist]);
                    if l0 + s == 0 {
                        r[k] = mul_n(sum, ni, ni_br);
                        r[k + dist] = mul_n(dif, last, last_br);
                    } else {
                        let z = (1 << (l0 + s)) + (g << s) + (k >> (nl - s));
                        r[k] = red(sum);
                        r[k + dist] = mul_n(dif, IZETA[z], IZETA_BR[z]);
                    }
                }};
            }
            network!(nl, inverse, butterfly);
            store_column::<NR>(a, base, d, &r);
        }
    }
}

/// The register passes (first layer, layer count) of the forward kernel; the inverse runs them in reverse order.
pub fn passes(logn: u32) -> &'static [(u32, u32)] {
    match logn {
        9 => &[(0, 3), (3, 3)],
        10 => &[(0, 3), (3, 2), (5, 2)],
        _ => panic!("fndsa_ntt: n = 2^{logn} is not a kernel size"),
    }
}

/// `fndsa_ntt{512,1024}_fwd`: forward NTT in place, natural order in, NTT order ([`ntt_slot`]) out.
pub fn ntt_fwd(logn: u32, a: &mut [i16]) {
    assert_eq!(a.len(), 1 << logn);
    let mut tally = coverage::enabled().then_some(FwdTally::NONE);
    for &(l0, nl) in passes(logn) {
        match nl {
            3 => fwd_pass::<8>(a, logn, l0, &mut tally),
            2 => fwd_pass::<4>(a, logn, l0, &mut tally),
            _ => unreachable!("passes of 2 or 3 layers"),
        }
    }
    fwd_last(a, logn, &mut tally);
    if let Some(t) = tally {
        t.record(steps_of(logn));
    }
}

/// `fndsa_ntt{512,1024}_inv`: inverse NTT in place with the scaling by 1/n, NTT order in, natural order out.
pub fn ntt_inv(logn: u32, a: &mut [i16]) {
    assert_eq!(a.len(), 1 << logn);
    let mut tally = coverage::enabled().then_some(InvTally::NONE);
    inv_first(a, logn, &mut tally);
    for &(l0, nl) in passes(logn).iter().rev() {
        match nl {
            3 => inv_pass::<8>(a, logn, l0, &mut tally),
            2 => inv_pass::<4>(a, logn, l0, &mut tally),
            _ => unreachable!("passes of 2 or 3 layers"),
        }
    }
    if let Some(t) = tally {
        t.record(steps_of(logn));
    }
}

/// The Montgomery product x*y / 2^16 mod q of the pointwise kernel (before the correction by 2^16).
pub fn montgomery(x: Q, y: Q) -> Q {
    let lo = vmulq_s16(x, y);
    let hi = vqdmulhq_s16(x, y);
    let m = vmulq_n_s16(lo, QINV);
    let t = vqdmulhq_n_s16(m, Q);
    vhsubq_s16(hi, t)
}

/// `fndsa_ntt{512,1024}_pointwise`: r = a*b mod q, lane by lane.
pub fn pointwise(a: &[i16], b: &[i16]) -> Vec<i16> {
    assert_eq!(a.len(), b.len());
    let steps = pointwise_steps::of(a.len());
    let mut r = vec![0i16; a.len()];
    // Gathered over the call, recorded at its end.
    let recording = coverage::enabled();
    let (mut products, mut reduced) = (LaneExtremes::NONE, LaneExtremes::NONE);
    for i in (0..a.len()).step_by(8) {
        let (x, y) = (vld1q_s16(&a[i..]), vld1q_s16(&b[i..]));
        let p = montgomery(x, y);
        if recording {
            products.s16_product(x, y);
            reduced.s16(p);
        }
        vst1q_s16(&mut r[i..], mul_n(p, MONT_C, barrett_companion(MONT_C)));
    }
    products.record(steps.product);
    reduced.record(steps.montgomery);
    r
}

/// Models of the portable baselines (`fndsa_ntt_scalar.c`): canonical [0, q-1] outputs, reference NTT order.
pub mod scalar {
    use super::{IZETA, LaneExtremes, Q, ZETA, ninv};

    const QU: u32 = Q as u32;

    fn canon(x: i16) -> u32 {
        i32::from(x).rem_euclid(i32::from(Q)) as u32
    }

    pub fn ntt_fwd(logn: u32, a: &mut [i16]) {
        let n = 1usize << logn;
        let mut v: Vec<u32> = a.iter().map(|&x| canon(x)).collect();
        let (mut m, mut t) = (1, n);
        while m < n {
            let ht = t / 2;
            for i in 0..m {
                let w = canon(ZETA[m + i]);
                for j in i * t..i * t + ht {
                    let (x, y) = (v[j], v[j + ht] * w % QU);
                    v[j] = (x + y) % QU;
                    v[j + ht] = (x + QU - y) % QU;
                }
            }
            t = ht;
            m *= 2;
        }
        for (d, x) in a.iter_mut().zip(v) {
            *d = x as i16;
        }
    }

    pub fn ntt_inv(logn: u32, a: &mut [i16]) {
        let n = 1usize << logn;
        let mut v: Vec<u32> = a.iter().map(|&x| canon(x)).collect();
        let (mut m, mut t) = (n / 2, 1);
        while m >= 1 {
            for i in 0..m {
                let w = canon(IZETA[m + i]);
                for j in 2 * i * t..2 * i * t + t {
                    let (x, y) = (v[j], v[j + t]);
                    v[j] = (x + y) % QU;
                    v[j + t] = (x + QU - y) * w % QU;
                }
            }
            t *= 2;
            m /= 2;
        }
        let ni = canon(ninv(logn));
        for (d, x) in a.iter_mut().zip(v) {
            *d = (x * ni % QU) as i16;
        }
    }

    pub fn pointwise(a: &[i16], b: &[i16]) -> Vec<i16> {
        let steps = super::pointwise_steps::of(a.len());
        // Gathered over the call, recorded at its end.
        let recording = crate::coverage::enabled();
        let (mut remainders, mut products) = (LaneExtremes::NONE, LaneExtremes::NONE);
        let product = |(&x, &y): (&i16, &i16)| {
            let p = canon(x) * canon(y);
            if recording {
                // C's truncating remainder, before `canon` adds q to a negative one.
                remainders.one(i32::from(x % Q));
                remainders.one(i32::from(y % Q));
                products.one(p as i32);
            }
            (p % QU) as i16
        };
        let r = a.iter().zip(b).map(product).collect();
        remainders.record(steps.remainder);
        products.record(steps.scalar_product);
        r
    }
}

/// Worst-case bounds of the MVE kernels, per coefficient, layer by layer: every lane value is tracked as a bound on
/// its absolute value, using the exact bounds of the two modular operations:
///
/// - Barrett multiplication by w (companion w' = round(w 2^15/q)): r = b w - q round(b w'/2^15), and
///   |b w/q - b w'/2^15| = |b| |w 2^15 - w' q| / (q 2^15), so |r| <= floor(q/2 + |b| |w 2^15 - w' q| / 2^15);
///   the `vmla` computes r mod 2^16, hence exactly when that bound is below 2^15;
/// - reduction: |red(a)| <= `red_max` over every int16 a (computed exhaustively with the model);
/// - pointwise: |x y / 2^16 mod q| = |x y - m q| / 2^16 <= (|x| |y| + 2^15 q) / 2^16 (m is a 16-bit lane).
///
/// Every sum and difference of a butterfly must stay within [-32767, 32767] (a wrapped `vadd`/`vsub` would be
/// wrong mod q); the functions return `Err` naming the first place where a bound could exceed it.
pub mod bounds {
    use super::*;

    /// The largest |lane| that an `int16_t` can hold without ambiguity for these kernels.
    pub const LIMIT: i64 = 32767;

    /// max |red(a)| over all int16 a, exhaustively.
    pub fn red_max() -> i64 {
        (i16::MIN..=i16::MAX)
            .step_by(8)
            .flat_map(|x| red(Q::from_i16(std::array::from_fn(|i| x + i as i16))).i16())
            .map(|v| i64::from(v).abs())
            .max()
            .unwrap()
    }

    /// Bound of |Barrett multiplication of b by w| for |b| <= b_max.
    pub fn mul_max(b_max: i64, w: i16) -> i64 {
        let delta = (i64::from(w) * 32768 - i64::from(barrett_companion(w)) * i64::from(Q)).abs();
        (i64::from(Q) * 16384 + b_max * delta) / 32768
    }

    fn check(v: i64, what: &str) -> Result<i64, String> {
        if v <= LIMIT { Ok(v) } else { Err(format!("{what}: bound {v} exceeds {LIMIT}")) }
    }

    /// Forward CT butterfly on bounds: returns (bound of x + t, bound of x - t).
    fn ct(x: i64, y: i64, w: i16, place: &str) -> Result<(i64, i64), String> {
        let t = check(mul_max(y, w), place)?;
        let v = check(x + t, place)?;
        Ok((v, v))
    }

    fn gs(x: i64, y: i64, w: i16, rmax: i64, sum_mul: Option<i16>, place: &str) -> Result<(i64, i64), String> {
        let s = check(x + y, place)?;
        let a = match sum_mul {
            Some(ni) => check(mul_max(s, ni), place)?,
            None => rmax,
        };
        Ok((a, check(mul_max(s, w), place)?))
    }

    /// Per-coefficient output bounds of the forward kernel for |input| <= in_max (storage order of the output);
    /// the maximum over every intermediate value is checked against [`LIMIT`].
    pub fn forward(logn: u32, in_max: i64) -> Result<Vec<i64>, String> {
        forward_layers(logn, in_max).map(|(out, _)| out)
    }

    /// Per layer, the bounds of the steps the models observe ([`super::Steps`]): forward, a pass's reduction input
    /// (at the pass's first layer), the multiplication input and the butterfly outputs; inverse, the sums and
    /// differences, in `sum` ([`inverse_layers`]).
    #[derive(Debug, Clone, Default)]
    pub struct Layers {
        pub red: [i64; 10],
        pub mul: [i64; 10],
        pub sum: [i64; 10],
    }

    /// The output bounds of the forward kernel and the bounds of its steps.
    pub fn forward_layers(logn: u32, in_max: i64) -> Result<(Vec<i64>, Layers), String> {
        let n = 1usize << logn;
        let rmax = red_max();
        let mut a = vec![in_max; n];
        let mut layers = Layers::default();
        let mut ct = |x: i64, y: i64, w: i16, layer: usize, place: &str| -> Result<(i64, i64), String> {
            layers.mul[layer] = layers.mul[layer].max(y);
            let (v, v2) = ct(x, y, w, place)?;
            layers.sum[layer] = layers.sum[layer].max(v);
            Ok((v, v2))
        };
        for &(l0, nl) in passes(logn) {
            let (group, d) = (n >> l0, n >> (l0 + nl));
            for g in 0..1usize << l0 {
                for col in 0..d {
                    let base = g * group + col;
                    for k in 0..1usize << nl {
                        layers.red[l0 as usize] = layers.red[l0 as usize].max(a[base + k * d]);
                    }
                    let mut r: Vec<i64> = (0..1usize << nl).map(|_| rmax).collect();
                    for s in 0..nl {
                        let dist = 1usize << (nl - 1 - s);
                        for k in (0..r.len()).filter(|k| k & dist == 0) {
                            let z = (1 << (l0 + s)) + (g << s) + (k >> (nl - s));
                            let layer = (l0 + s) as usize;
                            (r[k], r[k + dist]) =
                                ct(r[k], r[k + dist], ZETA[z], layer, &format!("fwd layer {}", l0 + s))?;
                        }
                    }
                    for (k, v) in r.into_iter().enumerate() {
                        a[base + k * d] = v;
                    }
                }
            }
        }
        let mut out = vec![0; n];
        let first = logn as usize - 3;
        layers.red[first] = a.iter().copied().max().unwrap();
        for c in 0..n / 64 {
            for j in 0..8 {
                // lane j of register k is coefficient 64c + 8j + k; its twiddles at distances 4, 2, 1:
                let mut r: Vec<i64> = (0..8).map(|_| rmax).collect();
                for k in 0..4 {
                    (r[k], r[k + 4]) = ct(r[k], r[k + 4], ZETA[n / 8 + 8 * c + j], first, "fwd distance 4")?;
                }
                for k in (0..8).filter(|k| k & 2 == 0) {
                    let z = n / 4 + 16 * c + 2 * j + (k >> 2);
                    (r[k], r[k + 2]) = ct(r[k], r[k + 2], ZETA[z], first + 1, "fwd distance 2")?;
                }
                for k in (0..8).step_by(2) {
                    let z = n / 2 + 32 * c + 4 * j + (k >> 1);
                    (r[k], r[k + 1]) = ct(r[k], r[k + 1], ZETA[z], first + 2, "fwd distance 1")?;
                }
                for (k, v) in r.into_iter().enumerate() {
                    out[64 * c + 8 * k + j] = v;
                }
            }
        }
        Ok((out, layers))
    }

    /// Per-coefficient output bounds of the inverse kernel for |input| <= in_max (natural output order).
    pub fn inverse(logn: u32, in_max: i64) -> Result<Vec<i64>, String> {
        inverse_layers(logn, in_max).map(|(out, _)| out)
    }

    /// The output bounds of the inverse kernel and, per layer, the bound of its butterflies' sums and differences
    /// (the same: |x - y| <= |x| + |y|), in `Layers::sum`.
    pub fn inverse_layers(logn: u32, in_max: i64) -> Result<(Vec<i64>, Layers), String> {
        let n = 1usize << logn;
        let rmax = red_max();
        let mut layers = Layers::default();
        let mut gs = |x: i64, y: i64, w: i16, sum_mul: Option<i16>, layer: usize, place: &str| {
            layers.sum[layer] = layers.sum[layer].max(x + y);
            gs(x, y, w, rmax, sum_mul, place)
        };
        // After the first pass, in the natural order.
        let mut a = vec![0; n];
        for c in 0..n / 64 {
            for j in 0..8 {
                let mut r = [in_max; 8];
                for k in (0..8).step_by(2) {
                    let z = n / 2 + 32 * c + 4 * j + (k >> 1);
                    (r[k], r[k + 1]) = gs(r[k], r[k + 1], IZETA[z], None, logn as usize - 1, "inv distance 1")?;
                }
                for k in (0..8).filter(|k| k & 2 == 0) {
                    let z = n / 4 + 16 * c + 2 * j + (k >> 2);
                    (r[k], r[k + 2]) = gs(r[k], r[k + 2], IZETA[z], None, logn as usize - 2, "inv distance 2")?;
                }
                for k in 0..4 {
                    let z = IZETA[n / 8 + 8 * c + j];
                    (r[k], r[k + 4]) = gs(r[k], r[k + 4], z, None, logn as usize - 3, "inv distance 4")?;
                }
                for (k, v) in r.into_iter().enumerate() {
                    a[64 * c + 8 * j + k] = v;
                }
            }
        }
        let ni = ninv(logn);
        let last = centred(i64::from(IZETA[1]) * i64::from(ni));
        for &(l0, nl) in passes(logn).iter().rev() {
            let (group, d) = (n >> l0, n >> (l0 + nl));
            for g in 0..1usize << l0 {
                for col in 0..d {
                    let base = g * group + col;
                    let mut r: Vec<i64> = (0..1usize << nl).map(|k| a[base + k * d]).collect();
                    for s in (0..nl).rev() {
                        let dist = 1usize << (nl - 1 - s);
                        for k in (0..r.len()).filter(|k| k & dist == 0) {
                            let place = format!("inv layer {}", l0 + s);
                            let layer = (l0 + s) as usize;
                            (r[k], r[k + dist]) = if l0 + s == 0 {
                                gs(r[k], r[k + dist], last, Some(ni), layer, &place)?
                            } else {
                                let z = (1 << (l0 + s)) + (g << s) + (k >> (nl - s));
                                gs(r[k], r[k + dist], IZETA[z], None, layer, &place)?
                            };
                        }
                    }
                    for (k, v) in r.into_iter().enumerate() {
                        a[base + k * d] = v;
                    }
                }
            }
        }
        Ok((a, layers))
    }

    /// Bound of the pointwise output for |a|, |b| <= in_max.
    pub fn pointwise(in_max: i64) -> Result<i64, String> {
        let [_, m] = pointwise_steps(in_max)?;
        check(mul_max(m, MONT_C), "pointwise correction")
    }

    /// The bounds of the pointwise kernel's steps for |a|, |b| <= in_max: the product a b (the Montgomery
    /// reduction's input, 32 bits) and the Montgomery result (the multiplication by 2^16 mod q's input).
    pub fn pointwise_steps(in_max: i64) -> Result<[i64; 2], String> {
        let m = check((in_max * in_max + 32768 * i64::from(Q)) / 65536, "pointwise montgomery")?;
        Ok([in_max * in_max, m])
    }
}

/// Solving the forward MVE transform backwards: the exact reachable set of every coefficient after every operation,
/// and inputs that put a coefficient at any reachable value.
///
/// The kernel computes a Cooley-Tukey NTT in the natural order on each coefficient (its last pass gathers
/// coefficient `64c + 8j + k` into lane j of register k, and each butterfly's twiddle is its block's). After layer
/// L, coefficient j depends only on the inputs of its class mod n/2^(L+1); a butterfly's u and v lie in different
/// classes, so they depend on disjoint inputs and u + mul(v) ranges over exactly U + mul(V). The reductions at each
/// pass's start and the multiplications act coefficient by coefficient: their images are computed with the model,
/// exhaustively over the set. Sets are kept as runs, with no assumption that they are intervals (a multiplication's
/// image has sparse ends), so every set here is exact: an upper bound by construction, attained by the inputs
/// `Solver::input` builds (which the tests run on the model).
pub mod solver {
    use std::collections::HashMap;

    use super::{Q as MODULUS, ZETA, ZETA_BR, mul_n, passes, pow_mod, red};
    use crate::mve::Q;

    /// A finite set of integers: sorted, disjoint, non-adjacent runs `lo..=hi`.
    #[derive(Clone, Debug, PartialEq, Eq, Hash)]
    pub struct Set(Vec<(i32, i32)>);

    /// A set of more runs than this is not the near-interval that keeps the sums cheap: the solver stops.
    const MAX_RUNS: usize = 4096;

    impl Set {
        pub fn interval(lo: i32, hi: i32) -> Set {
            Set(vec![(lo, hi)])
        }

        fn from_runs(runs: Vec<(i32, i32)>) -> Set {
            let out = merge(runs);
            assert!(out.len() <= MAX_RUNS, "fndsa_ntt solver: a reachable set of {} runs", out.len());
            Set(out)
        }

        pub fn min(&self) -> i32 {
            self.0[0].0
        }

        pub fn max(&self) -> i32 {
            self.0[self.0.len() - 1].1
        }

        /// How many runs (1: an interval).
        pub fn runs(&self) -> usize {
            self.0.len()
        }

        pub fn contains(&self, x: i32) -> bool {
            let i = self.0.partition_point(|&(_, hi)| hi < x);
            i < self.0.len() && self.0[i].0 <= x
        }

        /// { x + y : x in self, y in other }.
        pub fn sum(&self, other: &Set) -> Set {
            Set::from_runs(self.0.iter().flat_map(|a| other.0.iter().map(move |b| (a.0 + b.0, a.1 + b.1))).collect())
        }

        pub fn neg(&self) -> Set {
            Set(self.0.iter().rev().map(|&(lo, hi)| (-hi, -lo)).collect())
        }

        /// x in self and y in other with x + y = s (x the smallest such).
        fn split(&self, other: &Set, s: i32) -> Option<(i32, i32)> {
            let mut found = None;
            for &(alo, ahi) in &self.0 {
                for &(blo, bhi) in &other.0 {
                    let (lo, hi) = (alo.max(s - bhi), ahi.min(s - blo));
                    if lo <= hi && found.is_none_or(|x| lo < x) {
                        found = Some(lo);
                    }
                }
            }
            found.map(|x| (x, s - x))
        }

        /// An element x of self with op(x) = value: x = value (reduction) or value w^-1 (multiplication by w) mod q,
        /// each candidate checked on the model.
        fn preimage(&self, op: Op, value: i32) -> Option<i32> {
            let q = i64::from(MODULUS);
            let r = match op {
                Op::Red => i64::from(value),
                Op::Mul(w, _) => i64::from(value) * i64::from(pow_mod(i64::from(w).rem_euclid(q) as u32, q as u32 - 2)),
            }
            .rem_euclid(q) as i32;
            let first = self.min() + (r - self.min()).rem_euclid(q as i32);
            (first..=self.max()).step_by(q as usize).find(|&x| self.contains(x) && op.scalar(x) == value)
        }
    }

    /// Sorted, disjoint, non-adjacent runs covering the same integers as `runs`.
    fn merge(mut runs: Vec<(i32, i32)>) -> Vec<(i32, i32)> {
        runs.sort_unstable();
        let mut out: Vec<(i32, i32)> = Vec::with_capacity(runs.len());
        for (lo, hi) in runs {
            match out.last_mut() {
                Some(last) if lo <= last.1 + 1 => last.1 = last.1.max(hi),
                _ => out.push((lo, hi)),
            }
        }
        out
    }

    /// A coefficient-wise operation of the kernels: the reduction, or the multiplication by a constant.
    #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
    pub enum Op {
        Red,
        /// The constant and its Barrett companion.
        Mul(i16, i16),
    }

    impl Op {
        fn apply(self, x: Q) -> Q {
            match self {
                Op::Red => red(x),
                Op::Mul(w, wbr) => mul_n(x, w, wbr),
            }
        }

        fn scalar(self, x: i32) -> i32 {
            i32::from(self.apply(Q::from_i16([x as i16; 8])).i16()[0])
        }

        /// { op(x) : x in set }, every element evaluated on the model.
        fn image(self, set: &Set) -> Set {
            Set::from_runs(self.image_runs(set))
        }

        /// The runs of [`Op::image`], not yet checked for their count.
        fn image_runs(self, set: &Set) -> Vec<(i32, i32)> {
            assert!(
                set.min() >= i32::from(i16::MIN) && set.max() <= i32::from(i16::MAX),
                "fndsa_ntt solver: an operand leaves int16_t: {}..={}",
                set.min(),
                set.max()
            );
            let mut bits = [0u64; 1024];
            for &(lo, hi) in &set.0 {
                for x in (lo..=hi).step_by(8) {
                    let lanes = self.apply(Q::from_i16(std::array::from_fn(|i| (x + i as i32).min(hi) as i16)));
                    for v in lanes.i16() {
                        let k = (i32::from(v) + 32768) as usize;
                        bits[k >> 6] |= 1 << (k & 63);
                    }
                }
            }
            let mut runs = Vec::new();
            let mut open: Option<i32> = None;
            for (w, &word) in bits.iter().enumerate() {
                if (word == 0 && open.is_none()) || (word == u64::MAX && open.is_some()) {
                    continue;
                }
                for b in 0..64 {
                    let v = (w * 64 + b) as i32 - 32768;
                    match (word >> b & 1 == 1, open) {
                        (true, None) => open = Some(v),
                        (false, Some(lo)) => {
                            runs.push((lo, v - 1));
                            open = None;
                        }
                        _ => {}
                    }
                }
            }
            if let Some(lo) = open {
                runs.push((lo, 32767));
            }
            runs
        }
    }

    /// One operation of the transform on every coefficient.
    #[derive(Clone, Copy, Debug)]
    enum Stage {
        /// A forward pass's reduction of its input.
        Red,
        /// A layer of butterflies (0-based, as the bounds proof counts).
        Layer(u32),
    }

    /// The butterfly of layer l that involves coefficient j: (its top, its bottom, the twiddle's index, whether j
    /// is the top).
    fn butterfly(logn: u32, l: u32, j: usize) -> (usize, usize, usize, bool) {
        let len = 1usize << (logn - l - 1);
        let top = j % (2 * len) < len;
        let lo = if top { j } else { j - len };
        (lo, lo + len, (1 << l) + j / (2 * len), top)
    }

    /// What a step observes.
    #[derive(Clone, Copy, Debug)]
    pub enum Point {
        /// A pass's reduction input, named by the pass's first layer.
        Red(u32),
        /// A layer's multiplication input.
        Mul(u32),
        /// A layer's butterfly outputs.
        Out(u32),
    }

    /// A value to build an input for: coefficient j after `stage` operations.
    #[derive(Clone, Copy, Debug)]
    struct Target {
        stage: usize,
        j: usize,
        value: i32,
    }

    /// The reachable sets of the forward transform of size 2^logn.
    pub struct Solver {
        logn: u32,
        stages: Vec<Stage>,
        /// `sets[k][j]`: coefficient j's reachable set after k stages (k = 0: the input), reference order.
        sets: Vec<Vec<Set>>,
        /// The images computed, shared by the coefficients whose sets and constants coincide.
        images: HashMap<(Op, Set), Set>,
    }

    impl Solver {
        pub fn new(logn: u32) -> Solver {
            let n = 1usize << logn;
            let mut stages = Vec::new();
            let starts: Vec<u32> = passes(logn).iter().map(|&(l0, _)| l0).chain([logn - 3]).collect();
            for l in 0..logn {
                if starts.contains(&l) {
                    stages.push(Stage::Red);
                }
                stages.push(Stage::Layer(l));
            }
            let input = Set::interval(i16::MIN.into(), i16::MAX.into());
            let mut s = Solver { logn, stages, sets: vec![vec![input; n]], images: HashMap::new() };
            for k in 0..s.stages.len() {
                let next = (0..n).map(|j| s.next_set(k, j)).collect();
                s.sets.push(next);
            }
            s
        }

        fn image(&mut self, op: Op, set: &Set) -> Set {
            self.images.entry((op, set.clone())).or_insert_with(|| op.image(set)).clone()
        }

        fn next_set(&mut self, k: usize, j: usize) -> Set {
            match self.stages[k] {
                Stage::Red => {
                    let x = self.sets[k][j].clone();
                    self.image(Op::Red, &x)
                }
                Stage::Layer(l) => {
                    let (lo, hi, z, top) = butterfly(self.logn, l, j);
                    let v = self.sets[k][hi].clone();
                    let t = self.image(Op::Mul(ZETA[z], ZETA_BR[z]), &v);
                    self.sets[k][lo].sum(&if top { t } else { t.neg() })
                }
            }
        }

        /// The stage before the first operation of layer l (the forward pass's reduction when it starts one).
        fn before(&self, l: u32) -> usize {
            let at = self.stages.iter().position(|s| matches!(s, Stage::Layer(x) if *x == l)).unwrap();
            if matches!(at.checked_sub(1).map(|p| self.stages[p]), Some(Stage::Red)) { at - 1 } else { at }
        }

        fn layer_stage(&self, l: u32) -> usize {
            self.stages.iter().position(|s| matches!(s, Stage::Layer(x) if *x == l)).unwrap()
        }

        /// The stage a step observes and the coefficients it observes there.
        fn targets(&self, p: Point) -> (usize, Vec<usize>) {
            let n = 1usize << self.logn;
            match p {
                Point::Red(l) => (self.before(l), (0..n).collect()),
                Point::Mul(l) => (self.layer_stage(l), (0..n).filter(|&j| !butterfly(self.logn, l, j).3).collect()),
                Point::Out(l) => (self.layer_stage(l) + 1, (0..n).collect()),
            }
        }

        /// A step's exact reachable ends.
        pub fn ends(&self, p: Point) -> (i64, i64) {
            let (stage, js) = self.targets(p);
            let sets = || js.iter().map(|&j| &self.sets[stage][j]);
            (sets().map(Set::min).min().unwrap().into(), sets().map(Set::max).max().unwrap().into())
        }

        /// An input that drives the step to its high (low) end (unconstrained coefficients 0).
        pub fn input(&self, p: Point, high: bool) -> Vec<i16> {
            let (stage, js) = self.targets(p);
            let end = |j: usize| if high { self.sets[stage][j].max() } else { -self.sets[stage][j].min() };
            let j = *js.iter().max_by_key(|&&j| end(j)).unwrap();
            let value = if high { self.sets[stage][j].max() } else { self.sets[stage][j].min() };
            let mut x = vec![0; 1 << self.logn];
            self.build(Target { stage, j, value }, &mut x);
            x
        }

        fn build(&self, t: Target, x: &mut [i16]) {
            let Target { stage, j, value } = t;
            if stage == 0 {
                x[j] = value as i16;
                return;
            }
            let k = stage - 1;
            let missing = || format!("fndsa_ntt solver: no preimage of {value} (coefficient {j}, stage {k})");
            match self.stages[k] {
                Stage::Red => {
                    let pre = self.sets[k][j].preimage(Op::Red, value).unwrap_or_else(|| panic!("{}", missing()));
                    self.build(Target { stage: k, j, value: pre }, x);
                }
                Stage::Layer(l) => {
                    let (lo, hi, z, top) = butterfly(self.logn, l, j);
                    let op = Op::Mul(ZETA[z], ZETA_BR[z]);
                    let (u, v) = (&self.sets[k][lo], &self.sets[k][hi]);
                    let t = &self.images[&(op, v.clone())];
                    let split = if top { u.split(t, value) } else { u.split(&t.neg(), value).map(|(a, b)| (a, -b)) };
                    let (vu, vt) = split.unwrap_or_else(|| panic!("{}", missing()));
                    let vv = v.preimage(op, vt).unwrap_or_else(|| panic!("{}", missing()));
                    self.build(Target { stage: k, j: lo, value: vu }, x);
                    self.build(Target { stage: k, j: hi, value: vv }, x);
                }
            }
        }
    }

    /// Solving the inverse MVE transform backwards: the reachable ends of every layer's sums and differences, and
    /// inputs that reach them.
    ///
    /// The kernel computes a Gentleman-Sande NTT on each coefficient of the reference order (its first pass
    /// scatters lane j of register k back to coefficient `64c + 8j + k`); a butterfly's u and v depend on disjoint
    /// inputs, so u + v and u - v range over exactly U + V and U - V. No reduction follows a multiplication here:
    /// the sparse ends of its image add up, layer after layer, into sets of many thousands of runs. Only the ends
    /// matter, so each set is kept as computed within `WINDOW` of each end and filled in between: a superset, and
    /// a sum's window is the sum of its operands' windows. The ends so computed are upper bounds; `Inverse::input`
    /// builds an input that attains each of them (the tests run it on the model), so they are the exact ends.
    pub mod inv {
        use std::collections::HashMap;

        use super::super::{INV_IN, IZETA, IZETA_BR, barrett_companion, centred, ninv, ntt_slot, pow_mod};
        use super::{MODULUS, Op, Set, butterfly, merge};

        /// How far inside each end a set is kept as computed; further in, it is filled.
        pub const WINDOW: i32 = 1024;

        /// Words of a window's bitmap (bit i: i from the end).
        const WORDS: usize = (WINDOW as usize + 64) / 64;

        impl Set {
            /// A superset of `runs`' integers: filled from WINDOW above the least to WINDOW below the greatest.
            fn filled(runs: Vec<(i32, i32)>) -> Set {
                let runs = merge(runs);
                let (lo, hi) = (runs[0].0, runs[runs.len() - 1].1);
                let mut keep: Vec<(i32, i32)> =
                    runs.into_iter().filter(|&(a, b)| a < lo + WINDOW || b > hi - WINDOW).collect();
                if lo + WINDOW < hi - WINDOW {
                    keep.push((lo + WINDOW, hi - WINDOW));
                }
                Set(merge(keep))
            }

            /// The values within WINDOW below the greatest, as bits: bit i is max - i.
            fn top_bits(&self) -> [u64; WORDS] {
                let mut bits = [0u64; WORDS];
                let max = self.max();
                for &(lo, hi) in self.0.iter().rev() {
                    if hi < max - WINDOW {
                        break;
                    }
                    for v in lo.max(max - WINDOW)..=hi {
                        let i = (max - v) as usize;
                        bits[i >> 6] |= 1 << (i & 63);
                    }
                }
                bits
            }

            /// A superset of { x + y : x in self, y in other }, as computed within WINDOW of each end: the sums
            /// there need both operands within WINDOW of the same end.
            fn sum_windowed(&self, other: &Set) -> Set {
                let (lo, hi) = (self.min() + other.min(), self.max() + other.max());
                let top = sum_bits(&self.top_bits(), &other.top_bits());
                let bottom = sum_bits(&self.neg().top_bits(), &other.neg().top_bits());
                let bit = |bits: &[u64; WORDS], i: i32| bits[i as usize >> 6] >> (i & 63) & 1 == 1;
                // Each window's values in ascending order, consecutive ones joined into runs (few to sort).
                let mut runs: Vec<(i32, i32)> = Vec::new();
                let mut push = |v: i32| match runs.last_mut() {
                    Some(last) if v == last.1 + 1 => last.1 = v,
                    _ => runs.push((v, v)),
                };
                (0..=WINDOW).filter(|&i| bit(&bottom, i)).for_each(|i| push(lo + i));
                (0..=WINDOW).rev().filter(|&i| bit(&top, i)).for_each(|i| push(hi - i));
                if lo + WINDOW < hi - WINDOW {
                    runs.push((lo + WINDOW, hi - WINDOW));
                }
                Set::filled(runs)
            }

            /// x in self and y in other with x + y = s, up to `limit` of them, those within the windows of both
            /// first.
            fn splits(&self, other: &Set, s: i32, limit: usize) -> Vec<(i32, i32)> {
                let inside = |set: &Set, x: i32| x <= set.min() + WINDOW || x >= set.max() - WINDOW;
                let (mut first, mut rest) = (Vec::new(), Vec::new());
                for &(alo, ahi) in &self.0 {
                    // y = s - x in [s - ahi, s - alo]: the runs of other that meet it.
                    let from = other.0.partition_point(|&(_, hi)| hi < s - ahi);
                    for &(blo, bhi) in other.0[from..].iter().take_while(|&&(blo, _)| blo <= s - alo) {
                        let (xlo, xhi) = (alo.max(s - bhi), ahi.min(s - blo));
                        for x in [xhi, xlo] {
                            let pick = if inside(self, x) && inside(other, s - x) { &mut first } else { &mut rest };
                            if pick.len() < limit && !pick.contains(&(x, s - x)) {
                                pick.push((x, s - x));
                            }
                        }
                    }
                }
                first.extend(rest);
                first.truncate(limit);
                first
            }
        }

        /// x shifted up by `by` bits (towards the higher words).
        fn shl(x: &[u64; WORDS], by: usize) -> [u64; WORDS] {
            let mut out = [0u64; WORDS];
            let (words, bits) = (by >> 6, by & 63);
            for k in words..WORDS {
                let carry = if bits > 0 && k > words { x[k - words - 1] >> (64 - bits) } else { 0 };
                out[k] = x[k - words] << bits | carry;
            }
            out
        }

        fn or(x: &mut [u64; WORDS], y: &[u64; WORDS]) {
            x.iter_mut().zip(y).for_each(|(a, b)| *a |= b);
        }

        /// The bits of { i + j } for i in a, j in b, up to WINDOW: for each run of a's bits, b smeared over the
        /// run's length (by doubling) and shifted to its start.
        fn sum_bits(a: &[u64; WORDS], b: &[u64; WORDS]) -> [u64; WORDS] {
            let bit = |i: usize| a[i >> 6] >> (i & 63) & 1 == 1;
            let mut out = [0u64; WORDS];
            let mut i = 0;
            while i <= WINDOW as usize {
                if !bit(i) {
                    i += 1;
                    continue;
                }
                let start = i;
                while i <= WINDOW as usize && bit(i) {
                    i += 1;
                }
                let len = i - start;
                let mut smear = *b;
                let mut covered = 1;
                while 2 * covered <= len {
                    let shifted = shl(&smear, covered);
                    or(&mut smear, &shifted);
                    covered *= 2;
                }
                if covered < len {
                    let shifted = shl(&smear, len - covered);
                    or(&mut smear, &shifted);
                }
                or(&mut out, &shl(&smear, start));
            }
            let last = WINDOW as usize + 1;
            if !last.is_multiple_of(64) {
                out[WORDS - 1] &= (1u64 << (last % 64)) - 1;
            }
            out
        }

        /// The operations of a butterfly of layer l with twiddle index z on its sum and its difference.
        fn ops(logn: u32, l: u32, z: usize) -> (Op, Op) {
            if l == 0 {
                let ni = ninv(logn);
                let last = centred(i64::from(IZETA[1]) * i64::from(ni));
                (Op::Mul(ni, barrett_companion(ni)), Op::Mul(last, barrett_companion(last)))
            } else {
                (Op::Red, Op::Mul(IZETA[z], IZETA_BR[z]))
            }
        }

        /// A step's end: its value and the top coefficient of a butterfly that reaches it.
        #[derive(Clone, Copy, Debug)]
        struct End {
            value: i32,
            j: usize,
        }

        /// The reachable sets of the inverse transform of size 2^logn.
        pub struct Inverse {
            logn: u32,
            /// `sets[k][j]`: a superset of coefficient j's reachable set after k layers (layer logn - 1 first; k =
            /// 0: the input), reference order, exact within WINDOW of its ends.
            sets: Vec<Vec<Set>>,
            /// Per layer, sums then differences: the low end, the high end.
            ends: Vec<[[End; 2]; 2]>,
        }

        impl Inverse {
            pub fn new(logn: u32) -> Inverse {
                let n = 1usize << logn;
                let mut sets = vec![vec![Set::interval(-INV_IN, INV_IN); n]];
                let none = [End { value: i32::MAX, j: 0 }, End { value: i32::MIN, j: 0 }];
                let mut ends = vec![[none; 2]; logn as usize];
                let mut images: HashMap<(Op, Set), Set> = HashMap::new();
                let mut image = |op: Op, set: Set| {
                    images.entry((op, set)).or_insert_with_key(|(op, set)| Set::filled(op.image_runs(set))).clone()
                };
                for k in 0..logn as usize {
                    let l = logn - 1 - k as u32;
                    let mut next = sets[k].clone();
                    for j in (0..n).filter(|&j| butterfly(logn, l, j).3) {
                        let (lo, hi, z, _) = butterfly(logn, l, j);
                        let (u, v) = (&sets[k][lo], &sets[k][hi]);
                        let (s, d) = (u.sum_windowed(v), u.sum_windowed(&v.neg()));
                        for (e, set) in ends[l as usize].iter_mut().zip([&s, &d]) {
                            if set.min() < e[0].value {
                                e[0] = End { value: set.min(), j };
                            }
                            if set.max() > e[1].value {
                                e[1] = End { value: set.max(), j };
                            }
                        }
                        let (top, bottom) = ops(logn, l, z);
                        next[lo] = image(top, s);
                        next[hi] = image(bottom, d);
                    }
                    sets.push(next);
                }
                Inverse { logn, sets, ends }
            }

            /// The reachable ends of layer l's sums (`dif`: differences).
            pub fn ends(&self, l: u32, dif: bool) -> (i64, i64) {
                let [lo, hi] = self.ends[l as usize][usize::from(dif)];
                (lo.value.into(), hi.value.into())
            }

            /// An input (storage order, unconstrained coefficients 0) that drives layer l's sums (`dif`:
            /// differences) to their high (low) end.
            pub fn input(&self, l: u32, dif: bool, high: bool) -> Vec<i16> {
                let End { value, j } = self.ends[l as usize][usize::from(dif)][usize::from(high)];
                let k = (self.logn - 1 - l) as usize;
                let (lo, hi, _, _) = butterfly(self.logn, l, j);
                let (u, v) = (&self.sets[k][lo], &self.sets[k][hi]);
                let v = if dif { v.neg() } else { v.clone() };
                let mut x = vec![0; 1 << self.logn];
                let built = u
                    .splits(&v, value, 16)
                    .into_iter()
                    .any(|(a, b)| self.build(k, lo, a, &mut x) && self.build(k, hi, if dif { -b } else { b }, &mut x));
                assert!(built, "fndsa_ntt inverse solver: layer {l} end {value} not built");
                x
            }

            /// Sets coefficient j after k layers to `value`, if it can: false when no preimage was found.
            fn build(&self, k: usize, j: usize, value: i32, x: &mut [i16]) -> bool {
                if k == 0 {
                    x[ntt_slot(j)] = value as i16;
                    return value.abs() <= INV_IN;
                }
                let l = self.logn - k as u32;
                let (lo, hi, z, top) = butterfly(self.logn, l, j);
                let (u, v) = (&self.sets[k - 1][lo], &self.sets[k - 1][hi]);
                let v = if top { v.clone() } else { v.neg() };
                let s = u.sum_windowed(&v);
                let op = if top { ops(self.logn, l, z).0 } else { ops(self.logn, l, z).1 };
                // The preimages: one residue class mod q (value, or value w^-1 for the multiplication by w).
                let q = i64::from(MODULUS);
                let r = match op {
                    Op::Red => i64::from(value),
                    Op::Mul(w, _) => {
                        i64::from(value) * i64::from(pow_mod(i64::from(w).rem_euclid(q) as u32, q as u32 - 2))
                    }
                }
                .rem_euclid(q) as i32;
                let first = s.min() + (r - s.min()).rem_euclid(q as i32);
                let pre = (first..=s.max()).step_by(q as usize).filter(|&b| s.contains(b) && op.scalar(b) == value);
                pre.into_iter().any(|b| {
                    u.splits(&v, b, 6)
                        .into_iter()
                        .any(|(a, c)| self.build(k - 1, lo, a, x) && self.build(k - 1, hi, if top { c } else { -c }, x))
                })
            }
        }
    }
}

/// The steps of the MVE kernels with their proven intervals ([`bounds`]) and corner cases: their exact reachable
/// ends and inputs that reach them, forward (`super::solver`) and inverse (`super::solver::inv`).
pub mod steps {
    use std::sync::LazyLock;

    use super::solver::inv::Inverse;
    use super::solver::{Point, Solver};
    use super::{FWD_IN, INV_IN, bounds, passes, steps_of};
    use crate::coverage::{Proven, Step};

    const SOLVED: &str = "exact (solved backwards): a butterfly's u and v depend on disjoint inputs, so their \
                          reachable sets add, and each reduction's and multiplication's image is exhaustive; the \
                          proof adds each layer's worst multiplication error and reduction output, which no input \
                          attains at every layer";

    /// The forward kernels' reachable sets, solved once per process and size.
    static SOLVER_512: LazyLock<Solver> = LazyLock::new(|| Solver::new(9));
    static SOLVER_1024: LazyLock<Solver> = LazyLock::new(|| Solver::new(10));

    fn solver(logn: u32) -> &'static Solver {
        if logn == 9 { &SOLVER_512 } else { &SOLVER_1024 }
    }

    const SOLVED_INV: &str = "exact (solved backwards): a butterfly's u and v depend on disjoint inputs, so their \
                              reachable sets add; each set is kept exactly near its ends, where the ends are decided, \
                              and each end is attained by an input built for it; the proof adds each layer's worst \
                              multiplication error and reduction output, which no input attains at every layer";

    /// The inverse kernels' reachable sets, solved once per process and size.
    static INVERSE_512: LazyLock<Inverse> = LazyLock::new(|| Inverse::new(9));
    static INVERSE_1024: LazyLock<Inverse> = LazyLock::new(|| Inverse::new(10));

    fn inverse(logn: u32) -> &'static Inverse {
        if logn == 9 { &INVERSE_512 } else { &INVERSE_1024 }
    }

    /// The exact ends of a step, checked to lie inside the proof's (two independent computations of the same step);
    /// reported as reachable where they fall short of it.
    fn exact(step: Step, (lo, hi): (i64, i64), reason: &str) -> Step {
        let Proven::Range { lo: plo, hi: phi } = step.proven else { unreachable!("integer steps") };
        assert!(plo <= lo && hi <= phi, "{}: reachable {lo}..={hi} outside the proof's {plo}..={phi}", step.name);
        if lo > plo || hi < phi { step.reachable(lo, hi, reason) } else { step }
    }

    /// The layers that start a register pass, the last one (three layers after its gathers) included.
    fn pass_starts(logn: u32) -> Vec<usize> {
        passes(logn).iter().map(|&(l0, _)| l0 as usize).chain([logn as usize - 3]).collect()
    }

    /// The forward kernel of size 2^logn: each pass's reduction input, each layer's multiplication input and
    /// butterfly outputs.
    pub fn fwd(logn: u32) -> Vec<Step> {
        let s = steps_of(logn);
        let (_, l) = bounds::forward_layers(logn, i64::from(FWD_IN)).expect("the forward bounds hold");
        let starts = pass_starts(logn);
        let exact = |step: Step, p: Point| exact(step, solver(logn).ends(p), SOLVED);
        let mut out = Vec::new();
        for layer in 0..logn as usize {
            let l32 = layer as u32;
            if starts.contains(&layer) {
                let red = l.red[layer];
                out.push(if layer == 0 {
                    Step::range(s.fwd_red[layer], -red, red - 1)
                } else {
                    exact(Step::magnitude(s.fwd_red[layer], red), Point::Red(l32))
                });
            }
            out.push(exact(Step::magnitude(s.fwd_mul[layer], l.mul[layer]), Point::Mul(l32)));
            out.push(exact(Step::magnitude(s.fwd_sum[layer], l.sum[layer]), Point::Out(l32)));
        }
        out
    }

    /// The inverse kernel: each layer's sums and differences, in the order it runs the layers.
    pub fn inv(logn: u32) -> Vec<Step> {
        let s = steps_of(logn);
        let (_, l) = bounds::inverse_layers(logn, i64::from(INV_IN)).expect("the inverse bounds hold");
        let mut out = Vec::new();
        for layer in (0..logn).rev() {
            let ends = |dif| inverse(logn).ends(layer, dif);
            let bound = l.sum[layer as usize];
            out.push(exact(Step::magnitude(s.inv_sum[layer as usize], bound), ends(false), SOLVED_INV));
            out.push(exact(Step::magnitude(s.inv_dif[layer as usize], bound), ends(true), SOLVED_INV));
        }
        out
    }

    /// The forward kernel's steps the corner cases are for: those the edge cases do not already drive to their
    /// ends (the first reduction's input is the kernel's input), in layer order.
    fn solved(logn: u32) -> Vec<Point> {
        let reds = pass_starts(logn).into_iter().skip(1).map(|l| Point::Red(l as u32));
        reds.chain((0..logn).flat_map(|l| [Point::Mul(l), Point::Out(l)])).collect()
    }

    /// How many corner cases a kernel has (two per step), without solving.
    pub fn corner_cases(logn: u32, forward: bool) -> usize {
        2 * if forward { solved(logn).len() } else { 2 * logn as usize }
    }

    /// The forward kernel: an input for each step's high end, then one for its low end.
    fn solve(logn: u32) -> Vec<Vec<i16>> {
        let solver = solver(logn);
        solved(logn).into_iter().flat_map(|p| [solver.input(p, true), solver.input(p, false)]).collect()
    }

    /// The inverse kernel: per layer (0 first), an input for its sums' high end, then their low end, then its
    /// differences' high and low ends.
    fn solve_inv(logn: u32) -> Vec<Vec<i16>> {
        let inverse = inverse(logn);
        let ends = |l| [(false, true), (false, false), (true, true), (true, false)].map(move |(d, h)| (l, d, h));
        (0..logn).flat_map(ends).map(|(l, dif, high)| inverse.input(l, dif, high)).collect()
    }

    pub static FWD_512: LazyLock<Vec<Vec<i16>>> = LazyLock::new(|| solve(9));
    pub static FWD_1024: LazyLock<Vec<Vec<i16>>> = LazyLock::new(|| solve(10));
    pub static INV_512: LazyLock<Vec<Vec<i16>>> = LazyLock::new(|| solve_inv(9));
    pub static INV_1024: LazyLock<Vec<Vec<i16>>> = LazyLock::new(|| solve_inv(10));

    /// The corner cases of a kernel.
    pub fn corners(logn: u32, forward: bool) -> &'static [Vec<i16>] {
        match (logn, forward) {
            (9, true) => &FWD_512,
            (9, false) => &INV_512,
            (_, true) => &FWD_1024,
            (_, false) => &INV_1024,
        }
    }
}

/// Bound coverage of the pointwise products (both sizes, both builds): the steps, their proven intervals, the exact
/// reachable ends and the operands that reach them.
///
/// MVE: the Montgomery result of lane products p = a b is (p - q m) / 2^16 with m = p q^-1 mod 2^16 (signed), a
/// function of p alone (the VQDMULH halves differ by exactly 2 (p - q m) / 2^16, which VHSUB halves). Its value k
/// and m determine p = 2^16 k + q m, and every m in [-2^15, 2^15) is that of its p; so k is reachable exactly when
/// some such p is a product of two operands of magnitude at most PW_IN. `exact_end` tries every k from the
/// proof's bound inwards and every m, and factors each p: exhaustive over the operand pairs, without enumerating
/// them.
pub mod pointwise_steps {
    use std::sync::LazyLock;

    use super::{PW_IN, Q, QINV, bounds};
    use crate::coverage::Step;

    /// The steps of one size. MVE: the 32-bit lane product, the Montgomery result. Scalar: each operand's C
    /// remainder mod q (before the sign correction), the product of the canonical residues (before `% q`).
    pub struct PwSteps {
        pub product: &'static str,
        pub montgomery: &'static str,
        pub remainder: &'static str,
        pub scalar_product: &'static str,
    }

    pub const PW_512: PwSteps = PwSteps {
        product: "fndsa.ntt512.pointwise/product",
        montgomery: "fndsa.ntt512.pointwise/montgomery",
        remainder: "fndsa.ntt512.pointwise.scalar/canon.remainder",
        scalar_product: "fndsa.ntt512.pointwise.scalar/product",
    };

    pub const PW_1024: PwSteps = PwSteps {
        product: "fndsa.ntt1024.pointwise/product",
        montgomery: "fndsa.ntt1024.pointwise/montgomery",
        remainder: "fndsa.ntt1024.pointwise.scalar/canon.remainder",
        scalar_product: "fndsa.ntt1024.pointwise.scalar/product",
    };

    /// The steps of the size with n coefficients.
    pub fn of(n: usize) -> &'static PwSteps {
        if n == 512 { &PW_512 } else { &PW_1024 }
    }

    /// The Montgomery result of the lane product p (`super::montgomery`'s value).
    pub fn montgomery_of(p: i64) -> i64 {
        let m = i64::from((p as i32).wrapping_mul(i32::from(QINV)) as i16);
        (p - i64::from(Q) * m) >> 16
    }

    /// Operands x, y with |x|, |y| <= PW_IN and x y = p, if any.
    fn factor(p: i64) -> Option<(i16, i16)> {
        let max = i64::from(PW_IN);
        let a = p.abs();
        if a == 0 {
            return Some((0, 0));
        }
        // x <= y <= max: x from a / max up to sqrt(a).
        let first = (a + max - 1) / max;
        let x = (first..).take_while(|&x| x * x <= a).find(|&x| a % x == 0)?;
        Some(((p.signum() * x) as i16, (a / x) as i16))
    }

    /// The Montgomery result's highest (or lowest) reachable value, and operands that give it.
    pub fn exact_end(high: bool) -> (i64, (i16, i16)) {
        let [pmax, bound] = bounds::pointwise_steps(i64::from(PW_IN)).expect("the pointwise bounds hold");
        let q = i64::from(Q);
        for k in (0..=bound).rev().map(|k| if high { k } else { -k }) {
            for m in -32768..32768 {
                let p = 65536 * k + q * m;
                if p.abs() <= pmax
                    && let Some(xy) = factor(p)
                {
                    return (k, xy);
                }
            }
        }
        unreachable!("0 is reachable")
    }

    /// The exact ends, computed once: (low, its operands), (high, its operands).
    pub static ENDS: LazyLock<[(i64, (i16, i16)); 2]> = LazyLock::new(|| [exact_end(false), exact_end(true)]);

    /// Corner cases of the MVE kernels: every lane's operands at the Montgomery result's high end, then its low.
    pub const CORNER_CASES: usize = 2;

    /// Corner case c: (a, b), every lane the same operands.
    pub fn corner(c: usize, n: usize) -> [Vec<i16>; 2] {
        let (_, (x, y)) = ENDS[1 - c];
        [vec![x; n], vec![y; n]]
    }

    const EXACT: &str = "exact: the result is k = (p - q m) / 2^16, m = p q^-1 mod 2^16; every k from the bound \
                         inwards tried with every m, for p = 2^16 k + q m a product of two operands; the proof's end \
                         needs p at its end and m = -2^15 at once";

    /// The steps of the size 2^logn with their proven intervals and, for the Montgomery result, its exact ends.
    pub fn steps(logn: u32, mve: bool) -> Vec<Step> {
        let s = of(1 << logn);
        if mve {
            let [product, montgomery] = bounds::pointwise_steps(i64::from(PW_IN)).expect("the pointwise bounds hold");
            let [(lo, _), (hi, _)] = *ENDS;
            vec![
                Step::magnitude(s.product, product),
                Step::magnitude(s.montgomery, montgomery).reachable(lo, hi, EXACT),
            ]
        } else {
            // canon: C's remainder of an int16_t lies in (-q, q); the product of two residues in [0, (q - 1)^2].
            let q = i64::from(Q);
            vec![Step::magnitude(s.remainder, q - 1), Step::range(s.scalar_product, 0, (q - 1) * (q - 1))]
        }
    }
}
