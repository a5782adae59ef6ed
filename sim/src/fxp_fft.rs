//! Models of the fixed-point FFT kernels of FN-DSA key generation (`kernels/arm/fndsa_keygen/`): the MVE kernels of
//! `fft_q32.mve.c` written with [`crate::mve`], one call per intrinsic in the C source's order ([`fft`], [`ifft`]),
//! and the portable baselines of `fft_q32_scalar.c` ([`scalar`]).
//!
//! Representation: a `u64` holds a signed 64-bit integer x standing for x / 2^32; n = 2^logn values hold n/2 complex
//! values, real parts first. The MVE kernels keep four values in a pair of vectors ([`V64`]): the low words
//! (unsigned) and the high words (signed). Memory is modelled as the vector's 32-bit words (low word first), which
//! is what the kernel's VLD2/VLD4/gathers read. The unsigned loads and stores of the C source (`vld2q_u32`, ...)
//! are the instructions of the signed ones (`vld2q_s32`, ...), under which the model calls them.
//!
//! Why the split-word arithmetic is exact (carries, mixed-sign high products, the rounding of the halving) is
//! written once, at the top of `fft_q32.mve.c`; [`mul64`], [`add64`], [`sub64`] and [`half_add64`] are tested
//! against the reference's scalar operations on extreme operands in `sim/tests/fxp_fft.rs`.
//!
//! The twiddles ([`roots`]) are computed here from first principles ([`crate::trig`]); the guest's C table
//! (`fft_q32_gm.c`) is rendered from them by [`crate::tables`], and tests check the committed file,
//! the table inside the guest images and, against the reference's, every entry.

use std::sync::OnceLock;

pub use crate::fxp::{ROOTS, roots};

use crate::coverage::{self, step_names};
use crate::mve::*;

/// Bound-coverage steps, shared by the MVE kernels and the baselines: the arithmetic is the same (every product and
/// halving exact before one floor), and below degree 2^[`VECTOR_LOGN_MIN`] the MVE kernels run the baseline's code,
/// so one name per layer covers both. Layer h pairs values 2^h apart.
///
/// The inverse FFT: the operand of each halving, sums and differences.
pub const STEP_HALF_SUM: [&str; 9] = step_names!("fndsa.keygen.ifft", "half_sum", [0, 1, 2, 3, 4, 5, 6, 7, 8]);
pub const STEP_HALF_DIFF: [&str; 9] = step_names!("fndsa.keygen.ifft", "half_diff", [0, 1, 2, 3, 4, 5, 6, 7, 8]);
/// The forward FFT: the fraction each product's floor drops, (a b) mod 2^32 = (al bl) mod 2^32 (the low words'
/// product is the only partial product with bits below 2^32), in [0, 2^32 - 1].
pub const STEP_PRODUCT_FLOOR: [&str; 9] = step_names!("fndsa.keygen.fft", "product_floor", [0, 1, 2, 3, 4, 5, 6, 7, 8]);

/// The largest fraction a product's floor can drop.
pub const FRACTION_MAX: i64 = u32::MAX as i64;

/// The inverse FFT's steps: every halving's operand may be any 64-bit value (wrapping sums); past layer 0 it is a
/// sum or difference of two halved values in [-2^62, 2^62 - 1], which bounds what it can reach
/// (`corner_search::ifft_halving_ends`, every end reached by the contract's corner cases).
pub fn ifft_steps() -> Vec<coverage::Step> {
    let mut steps = Vec::new();
    for h in 0..STEP_HALF_SUM.len() {
        let [sum_lo, sum_hi, diff_lo, diff_hi] = crate::corner_search::ifft_halving_ends(h as u32);
        let why = "each term is a halved value in [-2^62, 2^62 - 1]";
        let step = |name, lo, hi| {
            let s = coverage::Step::range(name, i64::MIN, i64::MAX);
            if (lo, hi) == (i64::MIN, i64::MAX) { s } else { s.reachable(lo, hi, why) }
        };
        steps.push(step(STEP_HALF_SUM[h], sum_lo, sum_hi));
        steps.push(step(STEP_HALF_DIFF[h], diff_lo, diff_hi));
    }
    steps
}

/// The forward FFT's steps: each layer's dropped fractions, proven in [0, 2^32 - 1]. One operand of every product
/// is a twiddle word (sr, si or sr + si of the layer's entries), so when the low words of a layer's twiddles are all
/// multiples of 2^v the fraction is too, and 2^32 - 2^v is its largest value
/// (`corner_search::fft_fraction_max`, reached by the contract's corner cases).
pub fn fft_steps() -> Vec<coverage::Step> {
    (0..STEP_PRODUCT_FLOOR.len())
        .map(|h| {
            let step = coverage::Step::range(STEP_PRODUCT_FLOOR[h], 0, FRACTION_MAX);
            let max = crate::corner_search::fft_fraction_max(h as u32).0;
            if max == FRACTION_MAX {
                step
            } else {
                let v = (FRACTION_MAX + 1 - max).trailing_zeros();
                step.reachable(0, max, format!("the low words of this layer's twiddles are multiples of 2^{v}"))
            }
        })
        .collect()
}

/// Observes the fraction the floor of a b drops, lane by lane.
fn observe_fraction(step: &'static str, a: Q, b: Q) {
    if coverage::enabled() {
        for (x, y) in a.u32().into_iter().zip(b.u32()) {
            coverage::observe(step, i64::from(x.wrapping_mul(y)));
        }
    }
}

/// Observes the operands of an inverse butterfly's halvings, x + y and x - y, lane by lane.
fn observe_halvings(layer: usize, x: V64, y: V64) {
    if coverage::enabled() {
        for (x, y) in x.to_u64().into_iter().zip(y.to_u64()) {
            coverage::observe(STEP_HALF_SUM[layer], x.wrapping_add(y) as i64);
            coverage::observe(STEP_HALF_DIFF[layer], x.wrapping_sub(y) as i64);
        }
    }
}

/// Butterflies per vector; the MVE kernels vectorise every layer from this degree on (below it, the portable code).
pub const LANES: usize = 4;
pub const VECTOR_LOGN_MIN: u32 = 4;

/// Word offsets of the distance-2 layer inside 8 values (16 words): x = values {0, 1, 4, 5}, y = {2, 3, 6, 7}.
const D2_X_LO: [u32; 4] = [0, 2, 8, 10];
const D2_X_HI: [u32; 4] = [1, 3, 9, 11];
const D2_Y_LO: [u32; 4] = [4, 6, 12, 14];
const D2_Y_HI: [u32; 4] = [5, 7, 13, 15];
/// Word offsets of the twiddles of groups g, g, g+1, g+1 from entry g (real low, real high, imaginary low, high).
const D2_W_RE_LO: [u32; 4] = [0, 0, 4, 4];
const D2_W_RE_HI: [u32; 4] = [1, 1, 5, 5];
const D2_W_IM_LO: [u32; 4] = [2, 2, 6, 6];
const D2_W_IM_HI: [u32; 4] = [3, 3, 7, 7];

/// How the model rounds: as the kernel does, or deliberately wrong (tests show that a wrong rounding is caught).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Rounding {
    /// The kernel's (and the reference's): products floored, halving rounded (`(x + 1) >> 1`).
    Kernel,
    /// Halving without the +1: `x >> 1` (VHADD in place of VRHADD).
    HalfTruncates,
    /// The low partial product rounded to nearest instead of floored (VRMULH in place of VMULH).
    ProductRounds,
}

/// Four 32.32 values: low words (unsigned) and high words (signed).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct V64 {
    pub lo: Q,
    pub hi: Q,
}

impl V64 {
    pub fn from_u64(v: [u64; 4]) -> V64 {
        V64 { lo: Q::from_u32(v.map(|x| x as u32)), hi: Q::from_u32(v.map(|x| (x >> 32) as u32)) }
    }

    pub fn to_u64(self) -> [u64; 4] {
        let (lo, hi) = (self.lo.u32(), self.hi.u32());
        core::array::from_fn(|i| u64::from(lo[i]) | u64::from(hi[i]) << 32)
    }
}

fn carry_of_add(x: Q, y: Q) -> Q {
    vshrq_n_u32(vhaddq_u32(x, y), 31)
}

fn borrow_of_sub(x: Q, y: Q) -> Q {
    vshrq_n_u32(vhsubq_u32(x, y), 31)
}

/// x + y mod 2^64.
pub fn add64(x: V64, y: V64) -> V64 {
    V64 { lo: vaddq_u32(x.lo, y.lo), hi: vaddq_u32(vaddq_u32(x.hi, y.hi), carry_of_add(x.lo, y.lo)) }
}

/// x - y mod 2^64.
pub fn sub64(x: V64, y: V64) -> V64 {
    V64 { lo: vsubq_u32(x.lo, y.lo), hi: vsubq_u32(vsubq_u32(x.hi, y.hi), borrow_of_sub(x.lo, y.lo)) }
}

/// floor(s u / 2^32) for a signed word s and an unsigned word u.
fn mulh_su(s: Q, u: Q) -> Q {
    let high = vmulhq_s32(s, u);
    let u_top = vshrq_n_s32(u, 31);
    vaddq_u32(high, vandq_u32(s, u_top))
}

/// floor(a b / 2^32) mod 2^64 (the reference's `mul`), accumulated term by term.
pub fn mul64(a: V64, b: V64) -> V64 {
    mul64_rounding(a, b, Rounding::Kernel)
}

fn mul64_rounding(a: V64, b: V64, rounding: Rounding) -> V64 {
    let mut hi = vmulq_u32(a.hi, b.hi);
    hi = vaddq_u32(hi, mulh_su(a.hi, b.lo));
    hi = vaddq_u32(hi, mulh_su(b.hi, a.lo));
    let low_high = if rounding == Rounding::ProductRounds { vrmulhq_u32(a.lo, b.lo) } else { vmulhq_u32(a.lo, b.lo) };
    let cross_a = vmulq_u32(a.hi, b.lo);
    hi = vaddq_u32(hi, carry_of_add(low_high, cross_a));
    let partial = vaddq_u32(low_high, cross_a);
    let cross_b = vmulq_u32(b.hi, a.lo);
    hi = vaddq_u32(hi, carry_of_add(partial, cross_b));
    V64 { lo: vaddq_u32(partial, cross_b), hi }
}

/// (s + 1) >> 1 where s = x + y, from r = VRHADD(xl, yl) and the high word of the sum.
fn halve(r: Q, sum_hi: Q) -> V64 {
    V64 { lo: vsliq_n_u32(r, sum_hi, 31), hi: vshrq_n_s32(sum_hi, 1) }
}

/// The low words' halving add: rounded (the kernel's) or truncated (a wrong model).
fn halving_add(x: Q, y: Q, rounding: Rounding) -> Q {
    if rounding == Rounding::HalfTruncates { vhaddq_u32(x, y) } else { vrhaddq_u32(x, y) }
}

/// half(x + y) = ((x + y + 1) mod 2^64) >> 1, arithmetic (the reference's `half` of the wrapped sum).
pub fn half_add64(x: V64, y: V64) -> V64 {
    half_add64_rounding(x, y, Rounding::Kernel)
}

fn half_add64_rounding(x: V64, y: V64, rounding: Rounding) -> V64 {
    let r = halving_add(x.lo, y.lo, rounding);
    halve(r, vaddq_u32(vaddq_u32(x.hi, y.hi), vshrq_n_u32(r, 31)))
}

/// half(x - y).
pub fn half_sub64(x: V64, y: V64, zero: Q) -> V64 {
    half_sub64_rounding(x, y, zero, Rounding::Kernel)
}

fn half_sub64_rounding(x: V64, y: V64, zero: Q, rounding: Rounding) -> V64 {
    let d = sub64(x, y);
    let r = halving_add(d.lo, zero, rounding);
    halve(r, vaddq_u32(d.hi, vshrq_n_u32(r, 31)))
}

/// A 64-bit scalar in all four lanes.
fn dup64(w: u64) -> V64 {
    V64 { lo: vdupq_n_u32(w as u32), hi: vdupq_n_u32((w >> 32) as u32) }
}

/// The twiddle (sr, si) of a complex product and sr + si, one per lane.
struct Twiddle {
    re: V64,
    im: V64,
    sum: V64,
}

/// The kernel: its rounding and the zero vector it keeps.
#[derive(Clone, Copy)]
struct Kernel {
    rounding: Rounding,
    zero: Q,
}

impl Kernel {
    fn new(rounding: Rounding) -> Self {
        Kernel { rounding, zero: vdupq_n_u32(0) }
    }

    fn mul64(self, a: V64, b: V64) -> V64 {
        mul64_rounding(a, b, self.rounding)
    }

    /// (zr, zi) = (sr, si) (c, d), three multiplications; `floor` names the products' step (forward FFT).
    fn cmul(self, s: &Twiddle, c: V64, d: V64, floor: Option<&'static str>) -> (V64, V64) {
        let z0 = self.mul64(s.re, c);
        let z1 = self.mul64(s.im, d);
        let cd = add64(c, d);
        let z2 = self.mul64(s.sum, cd);
        if let Some(step) = floor {
            observe_fraction(step, s.re.lo, c.lo);
            observe_fraction(step, s.im.lo, d.lo);
            observe_fraction(step, s.sum.lo, cd.lo);
        }
        (sub64(z0, z1), sub64(z2, add64(z0, z1)))
    }

    fn fwd_butterfly(self, x: &mut [V64; 2], y: &mut [V64; 2], s: &Twiddle, layer: usize) {
        let (zr, zi) = self.cmul(s, y[0], y[1], Some(STEP_PRODUCT_FLOOR[layer]));
        y[0] = sub64(x[0], zr);
        y[1] = sub64(x[1], zi);
        x[0] = add64(x[0], zr);
        x[1] = add64(x[1], zi);
    }

    /// `s` holds the conjugated twiddle (sr, -si) and sr - si.
    fn inv_butterfly(self, x: &mut [V64; 2], y: &mut [V64; 2], s: &Twiddle, layer: usize) {
        observe_halvings(layer, x[0], y[0]);
        observe_halvings(layer, x[1], y[1]);
        let dr = half_sub64_rounding(x[0], y[0], self.zero, self.rounding);
        let di = half_sub64_rounding(x[1], y[1], self.zero, self.rounding);
        x[0] = half_add64_rounding(x[0], y[0], self.rounding);
        x[1] = half_add64_rounding(x[1], y[1], self.rounding);
        let (zr, zi) = self.cmul(s, dr, di, None);
        y[0] = zr;
        y[1] = zi;
    }

    /// A butterfly of layer `layer` (values 2^layer apart).
    fn butterfly(self, x: &mut [V64; 2], y: &mut [V64; 2], s: &Twiddle, inverse: bool, layer: usize) {
        if inverse { self.inv_butterfly(x, y, s, layer) } else { self.fwd_butterfly(x, y, s, layer) }
    }

    /// Per-lane twiddles as loaded, conjugated for the inverse.
    fn twiddle_lanes(self, re: V64, im: V64, inverse: bool) -> Twiddle {
        let im = if inverse { sub64(V64 { lo: self.zero, hi: self.zero }, im) } else { im };
        Twiddle { re, sum: add64(re, im), im }
    }

    /// A layer whose butterflies are `ht` >= 4 values apart: groups of 2 ht values with twiddle entry m + i.
    fn layer_wide(self, f: &mut [i32], hn: usize, m: usize, ht: usize, inverse: bool) {
        let layer = ht.trailing_zeros() as usize;
        for i in 0..m / 2 {
            let s = twiddle_dup(m + i, inverse);
            for j in (2 * i * ht..2 * i * ht + ht).step_by(LANES) {
                let mut x = [load2(f, j), load2(f, j + hn)];
                let mut y = [load2(f, j + ht), load2(f, j + ht + hn)];
                self.butterfly(&mut x, &mut y, &s, inverse, layer);
                store2(f, j, x[0]);
                store2(f, j + hn, x[1]);
                store2(f, j + ht, y[0]);
                store2(f, j + ht + hn, y[1]);
            }
        }
    }

    /// The layer of distance 2 (m = hn / 2 twiddles): 8 values, two groups, per step.
    fn layer_d2(self, f: &mut [i32], hn: usize, inverse: bool) {
        let m = hn / 2;
        let table = gm_words();
        for j in (0..hn).step_by(2 * LANES) {
            let w = &table[2 * 2 * (m + j / 4)..];
            let re = V64 { lo: gather(w, &D2_W_RE_LO), hi: gather(w, &D2_W_RE_HI) };
            let im = V64 { lo: gather(w, &D2_W_IM_LO), hi: gather(w, &D2_W_IM_HI) };
            let s = self.twiddle_lanes(re, im, inverse);
            let (pr, pi) = (2 * j, 2 * (j + hn));
            let mut x = [
                V64 { lo: gather(&f[pr..], &D2_X_LO), hi: gather(&f[pr..], &D2_X_HI) },
                V64 { lo: gather(&f[pi..], &D2_X_LO), hi: gather(&f[pi..], &D2_X_HI) },
            ];
            let mut y = [
                V64 { lo: gather(&f[pr..], &D2_Y_LO), hi: gather(&f[pr..], &D2_Y_HI) },
                V64 { lo: gather(&f[pi..], &D2_Y_LO), hi: gather(&f[pi..], &D2_Y_HI) },
            ];
            self.butterfly(&mut x, &mut y, &s, inverse, 1);
            scatter(&mut f[pr..], &D2_X_LO, x[0].lo);
            scatter(&mut f[pr..], &D2_X_HI, x[0].hi);
            scatter(&mut f[pr..], &D2_Y_LO, y[0].lo);
            scatter(&mut f[pr..], &D2_Y_HI, y[0].hi);
            scatter(&mut f[pi..], &D2_X_LO, x[1].lo);
            scatter(&mut f[pi..], &D2_X_HI, x[1].hi);
            scatter(&mut f[pi..], &D2_Y_LO, y[1].lo);
            scatter(&mut f[pi..], &D2_Y_HI, y[1].hi);
        }
    }

    /// The layer of distance 1 (m = hn twiddles): 8 values, four groups, per step.
    fn layer_d1(self, f: &mut [i32], hn: usize, inverse: bool) {
        let m = hn;
        let table = gm_words();
        for j in (0..hn).step_by(2 * LANES) {
            let [wrl, wrh, wil, wih] = vld4q_s32(&table[2 * 2 * (m + j / 2)..]);
            let s = self.twiddle_lanes(V64 { lo: wrl, hi: wrh }, V64 { lo: wil, hi: wih }, inverse);
            let [rxl, rxh, ryl, ryh] = vld4q_s32(&f[2 * j..]);
            let [ixl, ixh, iyl, iyh] = vld4q_s32(&f[2 * (j + hn)..]);
            let mut x = [V64 { lo: rxl, hi: rxh }, V64 { lo: ixl, hi: ixh }];
            let mut y = [V64 { lo: ryl, hi: ryh }, V64 { lo: iyl, hi: iyh }];
            self.butterfly(&mut x, &mut y, &s, inverse, 0);
            vst4q_s32(&mut f[2 * j..], [x[0].lo, x[0].hi, y[0].lo, y[0].hi]);
            vst4q_s32(&mut f[2 * (j + hn)..], [x[1].lo, x[1].hi, y[1].lo, y[1].hi]);
        }
    }

    fn fft(self, logn: u32, f: &mut [u64]) {
        if logn < VECTOR_LOGN_MIN {
            return scalar::fft(logn, f);
        }
        let hn = 1usize << (logn - 1);
        with_words(f, |w| {
            for lm in 1..logn - 2 {
                self.layer_wide(w, hn, 1 << lm, hn >> lm, false);
            }
            self.layer_d2(w, hn, false);
            self.layer_d1(w, hn, false);
        });
    }

    fn ifft(self, logn: u32, f: &mut [u64]) {
        if logn < VECTOR_LOGN_MIN {
            return scalar::ifft(logn, f);
        }
        let hn = 1usize << (logn - 1);
        with_words(f, |w| {
            self.layer_d1(w, hn, true);
            self.layer_d2(w, hn, true);
            for lm in (1..logn - 2).rev() {
                self.layer_wide(w, hn, 1 << lm, hn >> lm, true);
            }
        });
    }
}

/// The broadcast twiddle of entry k, conjugated (sr, -si) for the inverse, with its sum (64-bit scalar code).
fn twiddle_dup(k: usize, inverse: bool) -> Twiddle {
    let (sr, si) = roots()[k];
    let si = if inverse { si.wrapping_neg() } else { si };
    Twiddle { re: dup64(sr), im: dup64(si), sum: dup64(sr.wrapping_add(si)) }
}

/// VLD2 of 4 values from value index `at`.
fn load2(f: &[i32], at: usize) -> V64 {
    let [lo, hi] = vld2q_s32(&f[2 * at..]);
    V64 { lo, hi }
}

fn store2(f: &mut [i32], at: usize, v: V64) {
    vst2q_s32(&mut f[2 * at..], [v.lo, v.hi]);
}

fn offsets(words: &[u32; 4]) -> Q {
    vld1q_s32(&words.map(|w| w as i32))
}

fn gather(base: &[i32], words: &[u32; 4]) -> Q {
    vldrwq_gather_shifted_offset_s32(base, offsets(words))
}

fn scatter(base: &mut [i32], words: &[u32; 4], v: Q) {
    vstrwq_scatter_shifted_offset_s32(base, offsets(words), v);
}

/// Runs `body` on the 32-bit words of `f` (low word first), then writes them back.
fn with_words(f: &mut [u64], body: impl FnOnce(&mut [i32])) {
    let mut words: Vec<i32> = f.iter().flat_map(|&x| [x as i32, (x >> 32) as i32]).collect();
    body(&mut words);
    for (x, w) in f.iter_mut().zip(words.chunks_exact(2)) {
        *x = u64::from(w[0] as u32) | u64::from(w[1] as u32) << 32;
    }
}

/// The twiddle table as the guest's memory holds it: 1024 entries (re, im), each value as two words.
fn gm_words() -> &'static [i32] {
    static WORDS: OnceLock<Vec<i32>> = OnceLock::new();
    WORDS.get_or_init(|| {
        roots().iter().flat_map(|&(re, im)| [re as i32, (re >> 32) as i32, im as i32, (im >> 32) as i32]).collect()
    })
}

fn check(logn: u32, f: &[u64]) {
    assert!((1..=10).contains(&logn), "keygen FFT: logn {logn} outside 1..=10");
    assert!(f.len() >= 1 << logn, "keygen FFT: vector shorter than 2^logn");
}

/// The MVE forward FFT (`fndsa_keygen_fft`), in place.
pub fn fft(logn: u32, f: &mut [u64]) {
    fft_rounding(logn, f, Rounding::Kernel);
}

/// The MVE inverse FFT (`fndsa_keygen_ifft`), in place, with the division by n/2.
pub fn ifft(logn: u32, f: &mut [u64]) {
    ifft_rounding(logn, f, Rounding::Kernel);
}

/// [`fft`] with a chosen rounding (tests: a wrong rounding must be caught).
pub fn fft_rounding(logn: u32, f: &mut [u64], rounding: Rounding) {
    check(logn, f);
    Kernel::new(rounding).fft(logn, f);
}

/// [`ifft`] with a chosen rounding.
pub fn ifft_rounding(logn: u32, f: &mut [u64], rounding: Rounding) {
    check(logn, f);
    Kernel::new(rounding).ifft(logn, f);
}

/// Models of the portable baselines (`fft_q32_scalar.c`): the same formulas on 64-bit integers, 32x32 -> 64-bit
/// partial products for each product (as the C source, which has no 128-bit type).
pub mod scalar {
    use super::{STEP_HALF_DIFF, STEP_HALF_SUM, STEP_PRODUCT_FLOOR, roots};
    use crate::coverage;
    use crate::fxp::{cmul, half};

    /// The forward butterfly's product, observing the fraction each floor drops (step `floor`).
    fn cmul_observed(a: u64, b: u64, c: u64, d: u64, floor: &'static str) -> (u64, u64) {
        if coverage::enabled() {
            let (ab, cd) = (a.wrapping_add(b), c.wrapping_add(d));
            for (x, y) in [(a, c), (b, d), (ab, cd)] {
                coverage::observe(floor, i64::from((x as u32).wrapping_mul(y as u32)));
            }
        }
        cmul(a, b, c, d)
    }

    /// `fndsa_keygen_fft_scalar`.
    pub fn fft(logn: u32, f: &mut [u64]) {
        super::check(logn, f);
        let hn = 1usize << (logn - 1);
        let mut t = hn;
        for lm in 1..logn {
            let (m, ht) = (1usize << lm, t >> 1);
            let floor = STEP_PRODUCT_FLOOR[ht.trailing_zeros() as usize];
            for i in 0..m / 2 {
                let (sr, si) = roots()[m + i];
                for j in i * t..i * t + ht {
                    let (xr, xi) = (f[j], f[j + hn]);
                    let (zr, zi) = cmul_observed(sr, si, f[j + ht], f[j + ht + hn], floor);
                    f[j] = xr.wrapping_add(zr);
                    f[j + hn] = xi.wrapping_add(zi);
                    f[j + ht] = xr.wrapping_sub(zr);
                    f[j + ht + hn] = xi.wrapping_sub(zi);
                }
            }
            t = ht;
        }
    }

    /// `fndsa_keygen_ifft_scalar`.
    pub fn ifft(logn: u32, f: &mut [u64]) {
        super::check(logn, f);
        let hn = 1usize << (logn - 1);
        let mut ht = 1usize;
        let observing = coverage::enabled();
        for lm in (1..logn).rev() {
            let (m, t) = (1usize << lm, 2 * ht);
            let layer = ht.trailing_zeros() as usize;
            for i in 0..m / 2 {
                let (sr, si) = roots()[m + i];
                let si = si.wrapping_neg();
                for j in i * t..i * t + ht {
                    let (xr, xi, yr, yi) = (f[j], f[j + hn], f[j + ht], f[j + ht + hn]);
                    if observing {
                        for (x, y) in [(xr, yr), (xi, yi)] {
                            coverage::observe(STEP_HALF_SUM[layer], x.wrapping_add(y) as i64);
                            coverage::observe(STEP_HALF_DIFF[layer], x.wrapping_sub(y) as i64);
                        }
                    }
                    f[j] = half(xr.wrapping_add(yr));
                    f[j + hn] = half(xi.wrapping_add(yi));
                    let (zr, zi) = cmul(sr, si, half(xr.wrapping_sub(yr)), half(xi.wrapping_sub(yi)));
                    f[j + ht] = zr;
                    f[j + ht + hn] = zi;
                }
            }
            ht = t;
        }
    }
}
