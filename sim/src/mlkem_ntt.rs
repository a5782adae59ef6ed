//! Models of the ML-KEM NTT kernels (`kernels/arm/mlkem_ntt/`), q = 3329, n = 256.
//!
//! - The MVE kernels (`mlkem_ntt.mve.c`) are modelled with [`crate::mve`], one intrinsic per call, in the C source's
//!   order, so the models reproduce the kernels' exact outputs: signed 16-bit non-canonical representatives (no
//!   Montgomery factor), in the "MVE order" ([`mve_coeff`]).
//! - The scalar baselines (`mlkem_ntt_scalar.c`) are modelled in plain Rust, in the FIPS 203 order, with the same
//!   arithmetic coefficient by coefficient.
//! - [`bounds`] propagates worst-case magnitudes through every operation of the kernels and proves that no 16-bit
//!   (or, in the basemul, 32-bit) lane overflows for inputs inside the preconditions.

use std::sync::LazyLock;

use crate::coverage::{self, LaneExtremes};
use crate::mve::*;

// The family's constants, defined here once: the model, the bounds proof (`bounds`, `sim/tests/mlkem_ntt_bounds.rs`)
// and the contracts read them; the C kernels' `mlkem_ntt.h` repeats them by name, checked against these by
// `sim/tests/kernel_constants.rs`.

/// The modulus and the degree (FIPS 203).
pub const Q: i16 = 3329;
pub const N: usize = 256;
pub type Poly = [i16; N];

/// FIPS 203's zeta: a primitive 256th root of unity mod q.
const ZETA_ROOT: i64 = 17;

/// Precondition of the forward NTT: |x| <= FWD_IN_MAX.
pub const FWD_IN_MAX: i64 = 8192;
/// Postcondition of the forward NTT: |x| <= FWD_OUT_MAX (proved by [`bounds::fwd`]).
pub const FWD_OUT_MAX: i64 = 23588;
/// The inverse NTT and from_mve accept every int16_t: |x| <= 32768.
pub const ANY_I16: i64 = 32768;
/// Postcondition of the inverse NTT: |x| <= INV_OUT_MAX (proved by [`bounds::inv`]).
pub const INV_OUT_MAX: i64 = 1907;
/// Precondition of the basemul: |a|, |b| <= BASEMUL_IN_MAX.
pub const BASEMUL_IN_MAX: i64 = 32767;
/// Postcondition of the basemul: |x| <= BASEMUL_OUT_MAX (proved by [`bounds::basemul`]).
pub const BASEMUL_OUT_MAX: i64 = 2652;

/// round(2^15 / q): the twisted form of 1.
pub const ONE_TW: i16 = twist(1);
/// round(2^31 / q), the 32-bit Barrett constant.
pub const BARRETT32: i32 = (((1i64 << 32) + Q as i64) / (2 * Q as i64)) as i32;

const fn bit_reverse7(i: usize) -> usize {
    ((i as u8).reverse_bits() >> 1) as usize
}

const fn pow_mod_q(base: i64, exp: usize) -> i64 {
    let mut r = 1i64;
    let mut e = 0;
    while e < exp {
        r = r * base % Q as i64;
        e += 1;
    }
    r
}

/// The centred representative of x mod q, in [-(q-1)/2, (q-1)/2].
pub const fn centre(x: i64) -> i16 {
    let q = Q as i64;
    let r = x.rem_euclid(q);
    if r > (q - 1) / 2 { (r - q) as i16 } else { r as i16 }
}

/// The twisted constant of z: round(z 2^15 / q) (half up).
pub const fn twist(z: i16) -> i16 {
    (2 * (z as i64) * 32768 + Q as i64).div_euclid(2 * Q as i64) as i16
}

const fn table(odd: bool, twisted: bool) -> [i16; 128] {
    let mut t = [0; 128];
    let mut k = 0;
    while k < 128 {
        let e = if odd { 2 * bit_reverse7(k) + 1 } else { bit_reverse7(k) };
        let z = centre(pow_mod_q(ZETA_ROOT, e));
        t[k] = if twisted { twist(z) } else { z };
        k += 1;
    }
    t
}

/// zeta^BitRev7(k), centred, and the twisted forms (`pqh_mlkem_zeta`, `pqh_mlkem_zeta_tw`).
pub const ZETA: [i16; 128] = table(false, false);
pub const ZETA_TW: [i16; 128] = table(false, true);
/// zeta^(2 BitRev7(k) + 1), centred, and the twisted forms (`pqh_mlkem_gamma`, `pqh_mlkem_gamma_tw`).
pub const GAMMA: [i16; 128] = table(true, false);
pub const GAMMA_TW: [i16; 128] = table(true, true);
/// 128^-1 (= 128^(q-2)) and zeta_1 128^-1, centred.
pub const F: i16 = centre(pow_mod_q(128, Q as usize - 2));
pub const ZF: i16 = centre(ZETA[1] as i64 * F as i64);

/// The FIPS 203 index of the coefficient at storage index `s` of the MVE order:
/// s0 s1 -> c1 c2, s2 -> c0, s3 -> c4, s4 -> c5, s5 -> c3, s6 s7 -> c6 c7.
pub const fn mve_coeff(s: usize) -> usize {
    ((s & 1) << 1) | ((s & 2) << 1) | ((s >> 2) & 1) | ((s & 8) << 1) | ((s & 16) << 1) | ((s >> 2) & 8) | (s & 0xC0)
}

// ---- bound coverage ----

/// The names of a step at each of the 7 layers: `<prefix>/layer<L>.<step>`.
macro_rules! per_layer {
    ($prefix:literal, $step:literal) => {
        crate::coverage::step_names!($prefix, $step, [1, 2, 3, 4, 5, 6, 7])
    };
}

/// The steps a model observes ([`crate::coverage`]), named per build: the MVE kernels and the scalar baselines
/// perform the same operations on each coefficient, so both have the same steps and the same proven intervals.
pub struct Steps {
    /// Forward: the input of each layer's multiplication by zeta, and the butterfly's outputs u + t, u - t.
    pub fwd_mulmod: [&'static str; 7],
    pub fwd_sum: [&'static str; 7],
    /// Inverse: the first reduction's input, each layer's u + v and v - u (the multiplication's input), the
    /// reduction after layer 3.
    pub inv_reduce_in: &'static str,
    pub inv_sum: [&'static str; 7],
    pub inv_mulmod: [&'static str; 7],
    pub inv_reduce_mid: &'static str,
    /// Basemul: the multiplication of b1 by gamma, and the two 32-bit sums the Barrett reduction takes.
    pub bm_gamma: &'static str,
    pub bm_even: &'static str,
    pub bm_odd: &'static str,
}

pub const MVE_STEPS: Steps = Steps {
    fwd_mulmod: per_layer!("mlkem.ntt.fwd.mve", "mulmod"),
    fwd_sum: per_layer!("mlkem.ntt.fwd.mve", "sum"),
    inv_reduce_in: "mlkem.ntt.inv.mve/layer0.reduce",
    inv_sum: per_layer!("mlkem.ntt.inv.mve", "sum"),
    inv_mulmod: per_layer!("mlkem.ntt.inv.mve", "mulmod"),
    inv_reduce_mid: "mlkem.ntt.inv.mve/layer3.reduce",
    bm_gamma: "mlkem.basemul.mve/gamma.mulmod",
    bm_even: "mlkem.basemul.mve/even.barrett",
    bm_odd: "mlkem.basemul.mve/odd.barrett",
};

pub const SCALAR_STEPS: Steps = Steps {
    fwd_mulmod: per_layer!("mlkem.ntt.fwd.scalar", "mulmod"),
    fwd_sum: per_layer!("mlkem.ntt.fwd.scalar", "sum"),
    inv_reduce_in: "mlkem.ntt.inv.scalar/layer0.reduce",
    inv_sum: per_layer!("mlkem.ntt.inv.scalar", "sum"),
    inv_mulmod: per_layer!("mlkem.ntt.inv.scalar", "mulmod"),
    inv_reduce_mid: "mlkem.ntt.inv.scalar/layer3.reduce",
    bm_gamma: "mlkem.basemul.scalar/gamma.mulmod",
    bm_even: "mlkem.basemul.scalar/even.barrett",
    bm_odd: "mlkem.basemul.scalar/odd.barrett",
};

/// What an NTT model gathers of its steps over one call ([`coverage::Extremes`]), per layer, recorded once at its
/// end: an observed value or vector is then a few comparisons, not a look-up. `mulmod` is the multiplication's input
/// (forward: x[v]; inverse: v - u), `sum` the butterfly's sums (forward: u + t and u - t; inverse: u + v).
struct Tally {
    mulmod: [LaneExtremes; 7],
    sum: [LaneExtremes; 7],
    reduce_in: LaneExtremes,
    reduce_mid: LaneExtremes,
}

impl Tally {
    const NONE: Tally = Tally {
        mulmod: [LaneExtremes::NONE; 7],
        sum: [LaneExtremes::NONE; 7],
        reduce_in: LaneExtremes::NONE,
        reduce_mid: LaneExtremes::NONE,
    };

    /// A tally when this thread records coverage, else none (and nothing is gathered).
    fn start() -> Option<Tally> {
        coverage::enabled().then_some(Tally::NONE)
    }

    /// Records a forward NTT's steps.
    fn record_fwd(tally: Option<Tally>, s: &Steps) {
        if let Some(t) = tally {
            for layer in 0..7 {
                t.mulmod[layer].record(s.fwd_mulmod[layer]);
                t.sum[layer].record(s.fwd_sum[layer]);
            }
        }
    }

    /// Records an inverse NTT's steps.
    fn record_inv(tally: Option<Tally>, s: &Steps) {
        if let Some(t) = tally {
            t.reduce_in.record(s.inv_reduce_in);
            t.reduce_mid.record(s.inv_reduce_mid);
            for layer in 0..7 {
                t.sum[layer].record(s.inv_sum[layer]);
                t.mulmod[layer].record(s.inv_mulmod[layer]);
            }
        }
    }
}

// ---- scalar arithmetic (the C baselines, and the reference of the per-lane arithmetic) ----

/// Barrett multiplication with a twisted constant: a z - q round(a z' / 2^15).
pub fn mulmod(a: i16, z: i16, zt: i16) -> i16 {
    let t = (i32::from(a) * i32::from(zt) + (1 << 14)) >> 15;
    (i32::from(a) * i32::from(z)).wrapping_sub(t * i32::from(Q)) as i16
}

fn reduce1(a: i16) -> i16 {
    mulmod(a, 1, ONE_TW)
}

/// 32-bit Barrett reduction: x - q round(x BARRETT32 / 2^31), narrowed to 16 bits.
pub fn barrett32(x: i32) -> i16 {
    let t = ((i64::from(x) * i64::from(BARRETT32) + (1 << 30)) >> 31) as i32;
    x.wrapping_sub(t.wrapping_mul(i32::from(Q))) as i16
}

/// `mlkem_ntt_fwd_scalar`: FIPS order in and out.
pub fn ntt_fwd_scalar(p: &mut Poly) {
    let mut tally = Tally::start();
    let mut k = 1;
    let mut len = 128;
    let mut layer = 0;
    while len >= 2 {
        for start in (0..N).step_by(2 * len) {
            let (z, zt) = (ZETA[k], ZETA_TW[k]);
            k += 1;
            for j in start..start + len {
                let t = mulmod(p[j + len], z, zt);
                let u = p[j];
                if let Some(tally) = tally.as_mut() {
                    tally.mulmod[layer].one(p[j + len].into());
                    tally.sum[layer].one(i32::from(u) - i32::from(t));
                    tally.sum[layer].one(i32::from(u) + i32::from(t));
                }
                p[j + len] = u.wrapping_sub(t);
                p[j] = u.wrapping_add(t);
            }
        }
        len /= 2;
        layer += 1;
    }
    Tally::record_fwd(tally, &SCALAR_STEPS);
}

fn inv_layer(p: &mut Poly, len: usize, layer: usize, tally: &mut Option<Tally>) {
    let mut k = N / len - 1;
    for start in (0..N).step_by(2 * len) {
        let (z, zt) = (ZETA[k], ZETA_TW[k]);
        for j in start..start + len {
            let (u, v) = (p[j], p[j + len]);
            if let Some(tally) = tally.as_mut() {
                tally.sum[layer].one(i32::from(u) + i32::from(v));
                tally.mulmod[layer].one(i32::from(v) - i32::from(u));
            }
            p[j] = u.wrapping_add(v);
            p[j + len] = mulmod(v.wrapping_sub(u), z, zt);
        }
        k = k.wrapping_sub(1);
    }
}

/// `mlkem_ntt_inv_scalar`: FIPS order in and out, scaled by 128^-1.
pub fn ntt_inv_scalar(p: &mut Poly) {
    let mut tally = Tally::start();
    let reduce = |p: &mut Poly, seen: Option<&mut LaneExtremes>| {
        if let Some(seen) = seen {
            p.iter().for_each(|&x| seen.one(x.into()));
        }
        p.iter_mut().for_each(|x| *x = reduce1(*x));
    };
    reduce(p, tally.as_mut().map(|t| &mut t.reduce_in));
    for (layer, len) in [2, 4, 8].into_iter().enumerate() {
        inv_layer(p, len, layer, &mut tally);
    }
    reduce(p, tally.as_mut().map(|t| &mut t.reduce_mid));
    for (layer, len) in [16, 32, 64].into_iter().enumerate() {
        inv_layer(p, len, 3 + layer, &mut tally);
    }
    for j in 0..128 {
        let (u, v) = (p[j], p[j + 128]);
        if let Some(tally) = tally.as_mut() {
            tally.sum[6].one(i32::from(u) + i32::from(v));
            tally.mulmod[6].one(i32::from(v) - i32::from(u));
        }
        p[j] = mulmod(u.wrapping_add(v), F, twist(F));
        p[j + 128] = mulmod(v.wrapping_sub(u), ZF, twist(ZF));
    }
    Tally::record_inv(tally, &SCALAR_STEPS);
}

/// `mlkem_basemul_scalar`: FIPS order.
pub fn basemul_scalar(a: &Poly, b: &Poly) -> Poly {
    let mut out = [0; N];
    // Gathered over the call, recorded at its end: gamma's input, then the two sums.
    let recording = coverage::enabled();
    let (mut gamma, mut evens, mut odds) = (LaneExtremes::NONE, LaneExtremes::NONE, LaneExtremes::NONE);
    for i in 0..128 {
        let (a0, a1) = (i32::from(a[2 * i]), i32::from(a[2 * i + 1]));
        let (b0, b1) = (i32::from(b[2 * i]), i32::from(b[2 * i + 1]));
        let bg = i32::from(mulmod(b1 as i16, GAMMA[i], GAMMA_TW[i]));
        let (even, odd) = ((a0 * b0).wrapping_add(a1 * bg), (a0 * b1).wrapping_add(a1 * b0));
        if recording {
            gamma.one(b1);
            evens.one(even);
            odds.one(odd);
        }
        out[2 * i] = barrett32(even);
        out[2 * i + 1] = barrett32(odd);
    }
    gamma.record(SCALAR_STEPS.bm_gamma);
    evens.record(SCALAR_STEPS.bm_even);
    odds.record(SCALAR_STEPS.bm_odd);
    out
}

// ---- the MVE kernels ----

/// The kernels' constant tables (`fwd_d`, `inv_d`, `bm_g` in `mlkem_ntt.mve.c`): rows of 8 zetas then their 8
/// twisted forms.
struct Tables {
    fwd_d: Vec<Row>,
    inv_d: Vec<Row>,
    bm_g: Vec<Row>,
}

/// 8 zetas then their 8 twisted forms: one operand of `mulmod_v`.
pub type Row = [i16; 16];

const fn twisted_row(zetas: [i16; 8]) -> Row {
    let mut row = [0; 16];
    let mut i = 0;
    while i < 8 {
        row[i] = zetas[i];
        row[8 + i] = twist(zetas[i]);
        i += 1;
    }
    row
}

fn row(out: &mut Vec<Row>, lane: impl Fn(usize, usize) -> i16) {
    // lane l = (c0, c4, c5): l1 = c4, l2 = c5
    out.push(twisted_row(std::array::from_fn(|l| lane((l >> 1) & 1, (l >> 2) & 1))));
}

static TABLES: LazyLock<Tables> = LazyLock::new(|| {
    let (mut fwd_d, mut inv_d, mut bm_g) = (Vec::new(), Vec::new(), Vec::new());
    for blk in 0..8 {
        // block = (c3, c6, c7): h = c3, m = (c6, c7)
        let (m, h) = (blk >> 1, blk & 1);
        row(&mut fwd_d, |l1, l2| ZETA[32 + 8 * m + 4 * l2 + 2 * l1 + h]);
        for c2 in 0..2 {
            row(&mut fwd_d, |l1, l2| ZETA[64 + 16 * m + 8 * l2 + 4 * l1 + 2 * h + c2]);
        }
        for c2 in 0..2 {
            row(&mut inv_d, |l1, l2| ZETA[127 - (16 * m + 8 * l2 + 4 * l1 + 2 * h + c2)]);
        }
        row(&mut inv_d, |l1, l2| ZETA[63 - (8 * m + 4 * l2 + 2 * l1 + h)]);
        for k in 0..4 {
            bm_g.push(twisted_row(std::array::from_fn(|l| GAMMA[mve_coeff(32 * blk + 4 * l + k) >> 1])));
        }
    }
    Tables { fwd_d, inv_d, bm_g }
});

/// The MVE kernels' tables `fwd_d`, `inv_d` and `pqh_mlkem_bm_g`, as rows (rendered by [`crate::tables`]).
pub fn mve_tables() -> (&'static [Row], &'static [Row], &'static [Row]) {
    (&TABLES.fwd_d, &TABLES.inv_d, &TABLES.bm_g)
}

/// The basemul's gamma rows (`pqh_mlkem_bm_g`): per 32-block and vld4q vector k, 8 gammas then their twisted forms.
pub fn basemul_gamma_rows() -> &'static [[i16; 16]] {
    &TABLES.bm_g
}

#[inline(always)]
fn mulmod_n(a: Q, z: i16, zt: i16) -> Q {
    vmlaq_n_s16(vmulq_n_s16(a, z), vqrdmulhq_n_s16(a, zt), -Q)
}

#[inline(always)]
fn mulmod_v(a: Q, row: &Row) -> Q {
    vmlaq_n_s16(vmulq_s16(a, vld1q_s16(&row[..8])), vqrdmulhq_s16(a, vld1q_s16(&row[8..])), -Q)
}

#[inline(always)]
fn reduce1_v(a: Q) -> Q {
    vmlaq_n_s16(a, vqrdmulhq_n_s16(a, ONE_TW), -Q)
}

/// Cooley-Tukey butterfly of layer `layer` (0-based) on x[u], x[v] with t = x[v] * zeta.
#[inline(always)]
fn ct(x: &mut [Q], u: usize, v: usize, layer: usize, t: impl Fn(Q) -> Q, tally: &mut Option<Tally>) {
    let t = t(x[v]);
    if let Some(tally) = tally.as_mut() {
        tally.mulmod[layer].s16(x[v]);
        // The sums as integers: a lane past 16 bits shows as past the proven bound, not wrapped back inside it.
        tally.sum[layer].s16_sum(x[u], t, false);
        tally.sum[layer].s16_sum(x[u], t, true);
    }
    x[v] = vsubq_s16(x[u], t);
    x[u] = vaddq_s16(x[u], t);
}

/// Gentleman-Sande butterfly of layer `layer`: (u, v) -> (u + v, (v - u) * zeta).
#[inline(always)]
fn gs(x: &mut [Q], u: usize, v: usize, layer: usize, m: impl Fn(Q) -> Q, tally: &mut Option<Tally>) {
    if let Some(tally) = tally.as_mut() {
        tally.sum[layer].s16_sum(x[u], x[v], false);
        tally.mulmod[layer].s16_sum(x[v], x[u], true);
    }
    let d = vsubq_s16(x[v], x[u]);
    x[u] = vaddq_s16(x[u], x[v]);
    x[v] = m(d);
}

/// ZETA[k] and ZETA_TW[k] in every lane, as a `mulmod_v` row: what the kernels' by-scalar multiplies see. With the
/// index known only at run time, a load from here replaces two broadcasts (4 host instructions each).
static ZETA_ROWS: [Row; 128] = {
    let mut rows = [[0; 16]; 128];
    let mut k = 0;
    while k < 128 {
        rows[k] = twisted_row([ZETA[k]; 8]);
        k += 1;
    }
    rows
};

/// Multiplication by ZETA[k] (`mulmod_n(a, ZETA[k], ZETA_TW[k])`, the same lanes: a by-scalar multiply is the vector
/// multiply by the scalar's broadcast).
#[inline(always)]
fn zeta_n(k: usize) -> impl Fn(Q) -> Q {
    #[inline(always)]
    move |a| mulmod_v(a, &ZETA_ROWS[k])
}

#[inline(always)]
fn zeta_v(row: &Row) -> impl Fn(Q) -> Q + '_ {
    #[inline(always)]
    move |a| mulmod_v(a, row)
}

#[inline(always)]
fn load4(p: &[i16], offsets: [usize; 4]) -> [Q; 4] {
    let [a, b, c, d] = offsets;
    [vld1q_s16(&p[a..]), vld1q_s16(&p[b..]), vld1q_s16(&p[c..]), vld1q_s16(&p[d..])]
}

#[inline(always)]
fn store4(p: &mut [i16], offsets: [usize; 4], x: [Q; 4]) {
    for (o, v) in offsets.into_iter().zip(x) {
        vst1q_s16(&mut p[o..], v);
    }
}

pqhelium_core::with_widest_vectors! {
    /// `mlkem_ntt_fwd_mve`: MVE order in and out.
    pub fn ntt_fwd_mve(p: &mut Poly) = ntt_fwd_mve_lanes;
}

/// The forward model's body, inlined into `ntt_fwd_mve`'s two compilations.
#[inline(always)]
fn ntt_fwd_mve_lanes(p: &mut Poly) {
    let t = &*TABLES;
    let mut tally = Tally::start();
    for j in 0..8 {
        let o = [8 * j, 8 * j + 64, 8 * j + 128, 8 * j + 192];
        let mut x = load4(p, o);
        ct(&mut x, 0, 2, 0, zeta_n(1), &mut tally);
        ct(&mut x, 1, 3, 0, zeta_n(1), &mut tally);
        ct(&mut x, 0, 1, 1, zeta_n(2), &mut tally);
        ct(&mut x, 2, 3, 1, zeta_n(3), &mut tally);
        store4(p, o, x);
    }
    for g in 0..8 {
        let m = g >> 1;
        let o = [32 * g, 32 * g + 8, 32 * g + 16, 32 * g + 24];
        let mut x = load4(p, o);
        ct(&mut x, 0, 2, 2, zeta_n(4 + m), &mut tally);
        ct(&mut x, 1, 3, 2, zeta_n(4 + m), &mut tally);
        ct(&mut x, 0, 1, 3, zeta_n(8 + 2 * m), &mut tally);
        ct(&mut x, 2, 3, 3, zeta_n(9 + 2 * m), &mut tally);
        store4(p, o, x);
    }
    for i in 0..16 {
        let r = 64 * (i >> 2) + 8 * (i & 3);
        let mut x = [vld1q_s16(&p[r..]), vld1q_s16(&p[r + 32..])];
        ct(&mut x, 0, 1, 4, zeta_n(16 + i), &mut tally);
        vst1q_s16(&mut p[r..], x[0]);
        vst1q_s16(&mut p[r + 32..], x[1]);
    }
    for blk in 0..8 {
        let r = 32 * blk;
        let z = &t.fwd_d[3 * blk..3 * blk + 3];
        let mut a = vld4q_s16(&p[r..]);
        ct(&mut a, 0, 2, 5, zeta_v(&z[0]), &mut tally);
        ct(&mut a, 1, 3, 5, zeta_v(&z[0]), &mut tally);
        ct(&mut a, 0, 1, 6, zeta_v(&z[1]), &mut tally);
        ct(&mut a, 2, 3, 6, zeta_v(&z[2]), &mut tally);
        vst4q_s16(&mut p[r..], a);
    }
    Tally::record_fwd(tally, &MVE_STEPS);
}

pqhelium_core::with_widest_vectors! {
    /// `mlkem_ntt_inv_mve`: MVE order in and out, scaled by 128^-1.
    pub fn ntt_inv_mve(p: &mut Poly) = ntt_inv_mve_lanes;
}

/// The inverse model's body, inlined into `ntt_inv_mve`'s two compilations.
#[inline(always)]
fn ntt_inv_mve_lanes(p: &mut Poly) {
    let t = &*TABLES;
    let mut tally = Tally::start();
    for blk in 0..8 {
        let r = 32 * blk;
        let z = &t.inv_d[3 * blk..3 * blk + 3];
        // Written out: `[Q; 4]::map` left reduce1_v as a call per vector.
        let [a0, a1, a2, a3] = vld4q_s16(&p[r..]);
        if let Some(tally) = tally.as_mut() {
            [a0, a1, a2, a3].into_iter().for_each(|v| tally.reduce_in.s16(v));
        }
        let mut a = [reduce1_v(a0), reduce1_v(a1), reduce1_v(a2), reduce1_v(a3)];
        gs(&mut a, 0, 1, 0, zeta_v(&z[0]), &mut tally);
        gs(&mut a, 2, 3, 0, zeta_v(&z[1]), &mut tally);
        gs(&mut a, 0, 2, 1, zeta_v(&z[2]), &mut tally);
        gs(&mut a, 1, 3, 1, zeta_v(&z[2]), &mut tally);
        vst4q_s16(&mut p[r..], a);
    }
    for i in 0..16 {
        let r = 64 * (i >> 2) + 8 * (i & 3);
        let mut x = [vld1q_s16(&p[r..]), vld1q_s16(&p[r + 32..])];
        gs(&mut x, 0, 1, 2, zeta_n(31 - i), &mut tally);
        if let Some(tally) = tally.as_mut() {
            tally.reduce_mid.s16(x[0]);
            tally.reduce_mid.s16(x[1]);
        }
        vst1q_s16(&mut p[r..], reduce1_v(x[0]));
        vst1q_s16(&mut p[r + 32..], reduce1_v(x[1]));
    }
    for g in 0..8 {
        let m = g >> 1;
        let o = [32 * g, 32 * g + 8, 32 * g + 16, 32 * g + 24];
        let mut x = load4(p, o);
        gs(&mut x, 0, 1, 3, zeta_n(15 - 2 * m), &mut tally);
        gs(&mut x, 2, 3, 3, zeta_n(14 - 2 * m), &mut tally);
        gs(&mut x, 0, 2, 4, zeta_n(7 - m), &mut tally);
        gs(&mut x, 1, 3, 4, zeta_n(7 - m), &mut tally);
        store4(p, o, x);
    }
    for j in 0..8 {
        let o = [8 * j, 8 * j + 64, 8 * j + 128, 8 * j + 192];
        let mut x = load4(p, o);
        gs(&mut x, 0, 1, 5, zeta_n(3), &mut tally);
        gs(&mut x, 2, 3, 5, zeta_n(2), &mut tally);
        if let Some(tally) = tally.as_mut() {
            for (u, v) in [(x[0], x[2]), (x[1], x[3])] {
                tally.sum[6].s16_sum(u, v, false);
                tally.mulmod[6].s16_sum(v, u, true);
            }
        }
        let (d0, d1) = (vsubq_s16(x[2], x[0]), vsubq_s16(x[3], x[1]));
        x[0] = mulmod_n(vaddq_s16(x[0], x[2]), F, twist(F));
        x[1] = mulmod_n(vaddq_s16(x[1], x[3]), F, twist(F));
        x[2] = mulmod_n(d0, ZF, twist(ZF));
        x[3] = mulmod_n(d1, ZF, twist(ZF));
        store4(p, o, x);
    }
    Tally::record_inv(tally, &MVE_STEPS);
}

fn barrett32_pair(even: Q, odd: Q, inactive: Q) -> Q {
    let re = vmlaq_n_s32(even, vqrdmulhq_n_s32(even, BARRETT32), -i32::from(Q));
    let ro = vmlaq_n_s32(odd, vqrdmulhq_n_s32(odd, BARRETT32), -i32::from(Q));
    vmovntq_s32(vmovnbq_s32(inactive, re), ro)
}

/// `mlkem_basemul_mve`: MVE order.
pub fn basemul_mve(a: &Poly, b: &Poly) -> Poly {
    let t = &*TABLES;
    let mut out = [0; N];
    // Gathered over the call, recorded at its end: gamma's input, then the two sums.
    let recording = coverage::enabled();
    let (mut gamma, mut evens, mut odds) = (LaneExtremes::NONE, LaneExtremes::NONE, LaneExtremes::NONE);
    for blk in 0..8 {
        let (x, y) = (vld4q_s16(&a[32 * blk..]), vld4q_s16(&b[32 * blk..]));
        let g = &t.bm_g[4 * blk..4 * blk + 4];
        let mut product = |k: usize| {
            let bg = mulmod_v(y[k], &g[k]);
            let bs = vrev32q_s16(y[k]);
            let even = vaddq_s32(vmullbq_int_s16(x[k], y[k]), vmulltq_int_s16(x[k], bg));
            let odd = vaddq_s32(vmullbq_int_s16(x[k], bs), vmulltq_int_s16(x[k], bs));
            if recording {
                // b1 sits in the odd lanes of y[k]; the even lanes' products are discarded.
                y[k].i16().into_iter().skip(1).step_by(2).for_each(|b1| gamma.one(b1.into()));
                evens.s32(even);
                odds.s32(odd);
            }
            barrett32_pair(even, odd, bg)
        };
        // Written out: `array::from_fn` left the closure as a call per vector.
        let o = [product(0), product(1), product(2), product(3)];
        vst4q_s16(&mut out[32 * blk..], o);
    }
    gamma.record(MVE_STEPS.bm_gamma);
    evens.record(MVE_STEPS.bm_even);
    odds.record(MVE_STEPS.bm_odd);
    out
}

const LANE_COEFF: [i16; 8] = [0, 2, 4, 6, 1, 3, 5, 7];

fn coeff_of_vector(v: usize) -> u16 {
    (((v & 1) << 4) | ((v & 2) << 4) | ((v & 4) << 1) | ((v & 24) << 3)) as u16
}

/// `mlkem_to_mve`: FIPS order -> MVE order (a permutation).
pub fn to_mve(input: &Poly) -> Poly {
    let mut out = [0; N];
    let base = vld1q_s16(&LANE_COEFF);
    for v in 0..32 {
        vst1q_s16(&mut out[8 * v..], vldrhq_gather_shifted_offset_s16(input, vaddq_n_u16(base, coeff_of_vector(v))));
    }
    out
}

/// Bound-coverage steps of `mlkem_from_mve` (`steps::from_mve`): the reduction's input, and its output, to which
/// q is added when negative.
pub const STEP_FROM_MVE_REDUCE: &str = "mlkem.order.from_mve/reduce";
pub const STEP_FROM_MVE_PLUS_Q: &str = "mlkem.order.from_mve/plus_q_if_negative";

/// `mlkem_from_mve`: MVE order -> FIPS order, canonical 0..q-1.
pub fn from_mve(input: &Poly) -> Poly {
    let mut out = [0; N];
    let base = vld1q_s16(&LANE_COEFF);
    let q = vdupq_n_s16(Q);
    for v in 0..32 {
        let x = vld1q_s16(&input[8 * v..]);
        coverage::observe_s16(STEP_FROM_MVE_REDUCE, x);
        let mut x = reduce1_v(x);
        coverage::observe_s16(STEP_FROM_MVE_PLUS_Q, x);
        x = vaddq_s16(x, vandq_s16(vshrq_n_s16(x, 16), q));
        vstrhq_scatter_shifted_offset_s16(&mut out, vaddq_n_u16(base, coeff_of_vector(v)), x);
    }
    out
}

/// Worst-case magnitude propagation through every operation of the kernels (the MVE kernels and the scalar
/// baselines perform the same operations on each coefficient, so one propagation covers both), in FIPS order.
pub mod bounds {
    use super::{ANY_I16, BASEMUL_IN_MAX, F, FWD_IN_MAX, GAMMA, N, ONE_TW, ZETA, ZF, twist};

    const Q: i64 = super::Q as i64;
    /// Largest magnitude a 16-bit lane may hold (symmetric intervals).
    pub const I16_MAX: i64 = 32767;

    /// |mulmod(a, z)| for |a| <= a_max: a z - q round(a z'/2^15) = q (a z/q - t) + a e/2^15 with e = z' q - z 2^15,
    /// so |mulmod| <= q/2 + a_max |e| / 2^15, an integer: floor((q 2^15 + 2 a_max |e|) / 2^16).
    pub fn mulmod_bound(a_max: i64, z: i16) -> i64 {
        let e = (i64::from(twist(z)) * Q - i64::from(z) * 32768).abs();
        (Q * 32768 + 2 * a_max * e) / 65536
    }

    /// The same for the 32-bit Barrett reduction with m = round(2^31/q): e = m q - 2^31.
    pub fn barrett32_bound(x_max: i64) -> i64 {
        let e = (i64::from(super::BARRETT32) * Q - (1i64 << 31)).abs();
        (Q * (1i64 << 31) + 2 * x_max * e) >> 32
    }

    fn fits(what: &str, b: i64, limit: i64) -> Result<i64, String> {
        if b <= limit { Ok(b) } else { Err(format!("{what}: bound {b} exceeds {limit}")) }
    }

    /// Output bounds of the forward NTT, coefficient by coefficient (FIPS order), for |x| <= input.
    pub fn fwd(input: i64) -> Result<[i64; N], String> {
        fwd_layers(input).map(|(b, _)| b)
    }

    /// Per layer: the bound of the multiplication's input and of the butterfly's outputs (the steps
    /// `Steps::fwd_mulmod`, `Steps::fwd_sum`); and the output bounds.
    pub fn fwd_layers(input: i64) -> Result<([i64; N], [[i64; 2]; 7]), String> {
        let mut b = [input; N];
        let mut layers = [[0; 2]; 7];
        let (mut k, mut len, mut layer) = (1, 128, 0);
        while len >= 2 {
            for start in (0..N).step_by(2 * len) {
                for j in start..start + len {
                    let t = mulmod_bound(b[j + len], ZETA[k]);
                    let s = fits(&format!("fwd len {len} coefficient {j}"), b[j] + t, I16_MAX)?;
                    layers[layer][0] = layers[layer][0].max(b[j + len]);
                    layers[layer][1] = layers[layer][1].max(s);
                    b[j] = s;
                    b[j + len] = s;
                }
                k += 1;
            }
            len /= 2;
            layer += 1;
        }
        Ok((b, layers))
    }

    /// One layer; the bound of its sums u + v (which also bounds v - u, the multiplication's input).
    fn inv_layer(b: &mut [i64; N], len: usize) -> Result<i64, String> {
        let mut k = N / len - 1;
        let mut sums = 0;
        for start in (0..N).step_by(2 * len) {
            for j in start..start + len {
                let s = fits(&format!("inv len {len} coefficient {j}"), b[j] + b[j + len], I16_MAX)?;
                sums = sums.max(s);
                b[j] = s;
                b[j + len] = mulmod_bound(s, ZETA[k]);
            }
            k = k.wrapping_sub(1);
        }
        Ok(sums)
    }

    /// Output bounds of the inverse NTT for |x| <= input.
    pub fn inv(input: i64) -> Result<[i64; N], String> {
        inv_layers(input).map(|(b, ..)| b)
    }

    /// The output bounds, the bound of each layer's sums (`Steps::inv_sum`, `Steps::inv_mulmod`), and of the
    /// reduction's input after layer 3 (`Steps::inv_reduce_mid`).
    pub fn inv_layers(input: i64) -> Result<([i64; N], [i64; 7], i64), String> {
        let one = |x: i64| mulmod_bound(x, 1);
        debug_assert_eq!(twist(1), ONE_TW);
        let mut b = [one(input); N];
        let mut sums = [0; 7];
        for (layer, len) in [2, 4, 8].into_iter().enumerate() {
            sums[layer] = inv_layer(&mut b, len)?;
        }
        let mid = b.into_iter().max().unwrap();
        b.iter_mut().for_each(|x| *x = one(*x));
        for (layer, len) in [16, 32, 64].into_iter().enumerate() {
            sums[3 + layer] = inv_layer(&mut b, len)?;
        }
        for j in 0..128 {
            let s = fits(&format!("inv last layer coefficient {j}"), b[j] + b[j + 128], I16_MAX)?;
            sums[6] = sums[6].max(s);
            b[j] = mulmod_bound(s, F);
            b[j + 128] = mulmod_bound(s, ZF);
        }
        Ok((b, sums, mid))
    }

    /// Output bounds of the basemul for |a| <= a_max, |b| <= b_max; checks the 32-bit sums.
    pub fn basemul(a_max: i64, b_max: i64) -> Result<[i64; N], String> {
        basemul_sums(a_max, b_max).map(|(out, _)| out)
    }

    /// The output bounds and the bounds of the even and odd 32-bit sums (`Steps::bm_even`, `Steps::bm_odd`).
    pub fn basemul_sums(a_max: i64, b_max: i64) -> Result<([i64; N], [i64; 2]), String> {
        let mut out = [0; N];
        let mut sums = [0; 2];
        for (i, &gamma) in GAMMA.iter().enumerate() {
            let bg = fits("b1 gamma", mulmod_bound(b_max, gamma), I16_MAX)?;
            let even = fits("even sum", a_max * b_max + a_max * bg, i64::from(i32::MAX))?;
            let odd = fits("odd sum", 2 * a_max * b_max, i64::from(i32::MAX))?;
            sums = [sums[0].max(even), sums[1].max(odd)];
            out[2 * i] = fits("even", barrett32_bound(even), I16_MAX)?;
            out[2 * i + 1] = fits("odd", barrett32_bound(odd), I16_MAX)?;
        }
        Ok((out, sums))
    }

    /// from_mve: the reduction by 1 must land in (-q, q) for the conditional addition of q to give 0..q-1.
    pub fn from_mve(input: i64) -> Result<i64, String> {
        fits("from_mve reduction", mulmod_bound(input, 1), Q - 1)
    }

    /// The documented contracts: (fwd out, inv out, basemul out, from_mve reduction) maxima.
    pub fn contracts() -> Result<(i64, i64, i64, i64), String> {
        let max = |b: [i64; N]| b.into_iter().max().unwrap();
        Ok((
            max(fwd(FWD_IN_MAX)?),
            max(inv(ANY_I16)?),
            max(basemul(BASEMUL_IN_MAX, BASEMUL_IN_MAX)?),
            from_mve(ANY_I16)?,
        ))
    }
}

/// The steps of each kernel with their proven intervals ([`bounds`]) and what valid inputs can reach where it is
/// less (both builds have the same; `s` names them).
pub mod steps {
    use std::sync::LazyLock;

    use super::bounds::{self, mulmod_bound};
    use super::inv_solver::Ends;
    use super::solver::Solver;
    use super::{ANY_I16, BASEMUL_IN_MAX, FWD_IN_MAX, GAMMA, GAMMA_TW, Steps, mulmod};
    use crate::coverage::Proven;
    use crate::coverage::Step;

    /// `from_mve`: the reduction takes any int16_t; its output is proven in (-q, q) (`bounds::from_mve`), and
    /// reaches, exhaustively over the inputs, the ends of `from_mve_reached`.
    pub fn from_mve() -> Vec<Step> {
        let q = i64::from(super::Q);
        let (lo, hi) = from_mve_reached();
        let reduced = Step::range(super::STEP_FROM_MVE_PLUS_Q, 1 - q, q - 1);
        let reduced = if (lo, hi) == (1 - q, q - 1) {
            reduced
        } else {
            reduced.reachable(lo, hi, "exhaustive over every int16_t input")
        };
        vec![Step::range(super::STEP_FROM_MVE_REDUCE, -ANY_I16, ANY_I16 - 1), reduced]
    }

    /// The smallest and largest reduction by 1 (a - q round(a 1' / 2^15)) over every int16_t.
    pub fn from_mve_reached() -> (i64, i64) {
        let r = (i16::MIN..=i16::MAX).map(|a| i64::from(super::reduce1(a)));
        (r.clone().min().unwrap(), r.max().unwrap())
    }

    /// max |mulmod(b, z)| over every |b| <= b_max, exhaustively.
    fn mulmod_reached(b_max: i64, z: i16, zt: i16) -> i64 {
        (-b_max..=b_max).map(|b| i64::from(mulmod(b as i16, z, zt)).abs()).max().unwrap()
    }

    /// Forward NTT: each layer's multiplication input and butterfly outputs, with the exact reachable ends where
    /// the proof's are out of reach ([`super::solver`]).
    pub fn fwd(s: &Steps) -> Vec<Step> {
        let (_, layers) = bounds::fwd_layers(FWD_IN_MAX).expect("the forward NTT's bounds hold");
        let solver = &*super::SOLVER;
        let exact = |step: Step, l: usize, js: &dyn Fn() -> Box<dyn Iterator<Item = usize>>| {
            let (_, hi) = solver.best(l, js(), true);
            let (_, lo) = solver.best(l, js(), false);
            match step.proven {
                Proven::Range { lo: plo, hi: phi } if lo > plo || hi < phi => step.reachable(lo, hi, SOLVED),
                _ => step,
            }
        };
        let mut out = Vec::new();
        for (l, [mul, sum]) in layers.into_iter().enumerate() {
            let layer = l + 1;
            let mulmod = Step::magnitude(s.fwd_mulmod[l], mul);
            out.push(if layer == 1 { mulmod } else { exact(mulmod, layer - 1, &|| Box::new(Solver::v_side(layer))) });
            out.push(exact(Step::magnitude(s.fwd_sum[l], sum), layer, &|| Box::new(0..super::N)));
        }
        out
    }

    const SOLVED: &str = "exact (solved backwards): a butterfly's u and v depend on disjoint inputs, so their \
                          extremes add; the proof adds each layer's worst multiplication error, which no input \
                          attains at every layer";

    const INV_SOLVED: &str = "exact (solved backwards): u and v depend on disjoint inputs, so u + v and v - u reach \
                              the sumsets of their reachable sets, each propagated exactly; the proof adds every \
                              reduction's worst error";

    /// Inverse NTT: the first reduction's input (any int16_t), each layer's sums and differences, the middle
    /// reduction's input, with the exact reachable ends ([`super::inv_solver`]).
    pub fn inv(s: &Steps) -> Vec<Step> {
        let (_, sums, mid) = bounds::inv_layers(ANY_I16).expect("the inverse NTT's bounds hold");
        let solver = &*super::INV_SOLVER;
        let exact = |step: Step, e: Ends| {
            let (lo, hi) = (i64::from(e.lo.0), i64::from(e.hi.0));
            match step.proven {
                Proven::Range { lo: plo, hi: phi } if lo > plo || hi < phi => step.reachable(lo, hi, INV_SOLVED),
                _ => step,
            }
        };
        let mut out = vec![Step::range(s.inv_reduce_in, -ANY_I16, ANY_I16 - 1)];
        for (l, sum) in sums.into_iter().enumerate() {
            out.push(exact(Step::magnitude(s.inv_sum[l], sum), solver.sum[l]));
            out.push(exact(Step::magnitude(s.inv_mulmod[l], sum), solver.dif[l]));
            if l == 2 {
                out.push(exact(Step::magnitude(s.inv_reduce_mid, mid), solver.mid()));
            }
        }
        out
    }

    /// The largest |mulmod(b1, gamma_i)| over every |b1| <= BASEMUL_IN_MAX and every i, exhaustively (computed once).
    static GAMMA_REACHED: LazyLock<i64> =
        LazyLock::new(|| (0..128).map(|i| mulmod_reached(BASEMUL_IN_MAX, GAMMA[i], GAMMA_TW[i])).max().unwrap());

    /// Basemul: b1 before its multiplication by gamma, the even and odd 32-bit sums before the Barrett reduction.
    pub fn basemul(s: &Steps) -> Vec<Step> {
        let (_, [even, odd]) = bounds::basemul_sums(BASEMUL_IN_MAX, BASEMUL_IN_MAX).expect("the basemul's bounds hold");
        let (a, b) = (BASEMUL_IN_MAX, BASEMUL_IN_MAX);
        let proven_bg = GAMMA.iter().map(|&g| mulmod_bound(b, g)).max().unwrap();
        let reached = a * b + a * *GAMMA_REACHED;
        let even_step = Step::magnitude(s.bm_even, even);
        let even_step = if reached < even {
            even_step.reachable(
                -reached,
                reached,
                format!(
                    "a0 b0 + a1 (b1 gamma mod+-): |b1 gamma mod+-| reaches {} (exhaustive over b1 and gamma), the \
                     proof allows {proven_bg}",
                    *GAMMA_REACHED
                ),
            )
        } else {
            even_step
        };
        vec![Step::magnitude(s.bm_gamma, b), even_step, Step::magnitude(s.bm_odd, odd)]
    }
}

/// Corner cases: inputs (FIPS order) that drive each step of the kernels to each end of its interval, solved once on
/// the scalar models' arithmetic ([`solver`], [`inv_solver`], exhaustive searches). The MVE kernels perform the same
/// operations on each coefficient, so the same inputs, in the MVE order, drive their steps to the same values.
pub mod corners {
    use std::sync::LazyLock;

    use super::solver::Solver;
    use super::{N, Poly};

    /// How many corner cases each kernel has (known without solving: `pqhelium list` shows them): two per step.
    pub const FWD_CASES: usize = 2 + 4 * 6;
    pub const INV_CASES: usize = 4 * 7 + 2;
    pub const BASEMUL_CASES: usize = 4;

    /// The forward NTT, solved backwards through the butterflies ([`super::solver`]): per layer, the butterfly
    /// outputs at their high and low ends, and (from layer 2) the multiplication's input at its ends (layer 1's is
    /// the input itself, at its ends in the edge cases).
    pub static FWD: LazyLock<Vec<Poly>> = LazyLock::new(|| {
        let solver = &*super::SOLVER;
        let mut found = Vec::new();
        for l in 1..=7 {
            if l > 1 {
                for high in [true, false] {
                    let (j, _) = solver.best(l - 1, Solver::v_side(l), high);
                    found.push(solver.extreme(l - 1, j, high));
                }
            }
            for high in [true, false] {
                let (j, _) = solver.best(l, 0..N, high);
                found.push(solver.extreme(l, j, high));
            }
        }
        assert_eq!(found.len(), FWD_CASES);
        found
    });

    /// The inverse NTT, solved backwards through the butterflies ([`super::inv_solver`]): per layer, the sums at
    /// their high and low ends, then the differences; after layer 3, the middle reduction's input.
    pub static INV: LazyLock<Vec<Poly>> = LazyLock::new(|| {
        let solver = &*super::INV_SOLVER;
        let mut found = Vec::new();
        for layer in 0..7 {
            for (dif, high) in [(false, true), (false, false), (true, true), (true, false)] {
                found.push(solver.corner(layer, dif, high));
            }
            if layer == 2 {
                found.extend([true, false].map(|high| solver.mid_corner(high)));
            }
        }
        assert_eq!(found.len(), INV_CASES);
        found
    });

    /// The b1 (|b1| <= BASEMUL_IN_MAX) with the largest |mulmod(b1, gamma_i)|, and the sign of that product.
    fn best_b1(i: usize) -> (i16, i16) {
        let m = super::BASEMUL_IN_MAX as i16;
        let bg = |b: i16| super::mulmod(b, super::GAMMA[i], super::GAMMA_TW[i]);
        let b1 = (-m..=m).max_by_key(|&b| (bg(b).unsigned_abs(), b)).unwrap();
        (b1, bg(b1).signum())
    }

    /// The basemul (FIPS order, pairs (a, b)): the even sums a0 b0 + a1 (b1 gamma) at their high and low ends (each
    /// pair's b1 the one whose product with its gamma is largest, a1 of that product's sign), then the odd sums.
    pub static BASEMUL: LazyLock<Vec<[Poly; 2]>> = LazyLock::new(|| {
        let m = super::BASEMUL_IN_MAX as i16;
        let best: Vec<(i16, i16)> = (0..N / 2).map(best_b1).collect();
        let b: Poly = std::array::from_fn(|c| if c % 2 == 0 { m } else { best[c / 2].0 });
        let even = |sign: i16| -> Poly {
            std::array::from_fn(|c| if c % 2 == 0 { sign * m } else { sign * best[c / 2].1 * m })
        };
        let found = vec![[even(1), b], [even(-1), b], [[m; N], [m; N]], [[-m; N], [m; N]]];
        assert_eq!(found.len(), BASEMUL_CASES);
        found
    });
}

/// The forward NTT's reachable intervals, computed once ([`solver`]): the steps' reachable ends and the corner
/// cases read them.
pub static SOLVER: LazyLock<solver::Solver> = LazyLock::new(solver::Solver::new);

/// Solving backwards through the forward NTT's butterflies (FIPS order, the scalar model's arithmetic, which the
/// MVE kernel performs on each coefficient too).
///
/// After layer L, coefficient j depends only on the inputs i = j mod 2^(8-L) (its class). A butterfly's u and v
/// (coefficients j and j + len before it) are in different classes, so they depend on disjoint inputs: the
/// extremes of u + t and u - t (t = mulmod(v, zeta)) are u's extreme plus t's, and t's extreme is exhaustive over
/// v's reachable interval. Every value of that interval is reachable (`Solver::build` constructs it, and the
/// corner cases are checked on the model), so the intervals computed here are exact, not bounds.
pub mod solver {
    use super::{FWD_IN_MAX, N, Poly, ZETA, ZETA_TW, mulmod};

    /// Reachable intervals of every coefficient after every layer: `range[L][j]` for L = 0 (the input) ..= 7.
    pub struct Solver {
        pub range: Vec<[(i64, i64); N]>,
    }

    /// The butterfly that writes coefficient j at layer L (1..=7): (u index, v index, zeta index, whether j is u's
    /// side: u + t, else u - t).
    fn butterfly(l: usize, j: usize) -> (usize, usize, usize, bool) {
        let len = N >> l;
        let block = j / (2 * len);
        let lower = j % (2 * len) < len;
        let u = if lower { j } else { j - len };
        (u, u + len, (1 << (l - 1)) + block, lower)
    }

    fn t(v: i64, k: usize) -> i64 {
        i64::from(mulmod(v as i16, ZETA[k], ZETA_TW[k]))
    }

    impl Solver {
        pub fn new() -> Solver {
            let mut range = vec![[(-FWD_IN_MAX, FWD_IN_MAX); N]];
            for l in 1..=7 {
                let before = range[l - 1];
                let mut now = [(0, 0); N];
                for (j, r) in now.iter_mut().enumerate() {
                    let (u, v, k, lower) = butterfly(l, j);
                    let (vlo, vhi) = before[v];
                    let (tmin, tmax) =
                        (vlo..=vhi).map(|v| t(v, k)).fold((i64::MAX, i64::MIN), |(a, b), x| (a.min(x), b.max(x)));
                    let (ulo, uhi) = before[u];
                    *r = if lower { (ulo + tmin, uhi + tmax) } else { (ulo - tmax, uhi - tmin) };
                }
                range.push(now);
            }
            Solver { range }
        }

        /// Sets the inputs of coefficient j's class so that it holds `target` after layer `l`; false when no
        /// choice of v (smallest first) leaves u inside its reachable interval (never, for a target inside j's).
        pub fn build(&self, l: usize, j: usize, target: i64, x: &mut Poly) -> bool {
            if l == 0 {
                if target.abs() > FWD_IN_MAX {
                    return false;
                }
                x[j] = target as i16;
                return true;
            }
            let (u, v, k, lower) = butterfly(l, j);
            let ((ulo, uhi), (vlo, vhi)) = (self.range[l - 1][u], self.range[l - 1][v]);
            let reach = vlo.abs().max(vhi);
            for m in 0..=reach {
                for vv in [m, -m] {
                    if vv < vlo || vv > vhi {
                        continue;
                    }
                    let need = if lower { target - t(vv, k) } else { target + t(vv, k) };
                    if (ulo..=uhi).contains(&need) && self.build(l - 1, u, need, x) && self.build(l - 1, v, vv, x) {
                        return true;
                    }
                }
            }
            false
        }

        /// An input that puts coefficient j at its high (or low) end after layer l.
        pub fn extreme(&self, l: usize, j: usize, high: bool) -> Poly {
            let (lo, hi) = self.range[l][j];
            let mut x = [0; N];
            assert!(self.build(l, j, if high { hi } else { lo }, &mut x), "layer {l} coefficient {j}");
            x
        }

        /// The coefficient with the highest (lowest) reachable value after layer l among `js`, and that value.
        pub fn best(&self, l: usize, js: impl Iterator<Item = usize>, high: bool) -> (usize, i64) {
            let value = |j: usize| if high { self.range[l][j].1 } else { self.range[l][j].0 };
            let j = js.max_by_key(|&j| if high { value(j) } else { -value(j) }).unwrap();
            (j, value(j))
        }

        /// The coefficients that are some butterfly's v at layer l (1..=7): its multiplication's inputs.
        pub fn v_side(l: usize) -> impl Iterator<Item = usize> {
            (0..N).filter(move |j| j % (2 * (N >> l)) >= N >> l)
        }
    }

    impl Default for Solver {
        fn default() -> Self {
            Self::new()
        }
    }
}

/// The inverse NTT's reachable sets, computed once ([`inv_solver`]): the steps' reachable ends and the corner cases
/// read them.
pub static INV_SOLVER: LazyLock<inv_solver::InvSolver> = LazyLock::new(inv_solver::InvSolver::new);

/// Solving backwards through the inverse NTT's Gentleman-Sande butterflies (FIPS order, the scalar model's
/// arithmetic, which the MVE kernel performs on each coefficient too).
///
/// Before the layer of half-length len, coefficient j depends only on the inputs of its aligned block of len
/// coefficients with j's parity, so a butterfly's u and v (j and j + len) depend on disjoint inputs: the pair
/// (u, v) reaches every pair of their reachable sets, u + v reaches exactly the sumset, v - u the sumset with -u's,
/// and mulmod(v - u, zeta) the image of that, computed over every element. The sets are kept exactly, as runs of
/// consecutive integers (a reduction's image has gaps near its ends, so sumsets are not always intervals), and
/// every sum is checked to fit 16 bits (the model's wrapping additions are then exact). `InvSolver::build`
/// constructs an input for any reachable value, and the tests run the corner cases on the models.
pub mod inv_solver {
    use super::{N, Poly, ZETA, ZETA_TW, mulmod, reduce1};

    /// A set of integers as its maximal runs lo..=hi, in increasing order.
    #[derive(Clone, Debug, PartialEq, Eq)]
    pub struct Set(Vec<(i32, i32)>);

    impl Set {
        pub fn min(&self) -> i32 {
            self.0[0].0
        }

        pub fn max(&self) -> i32 {
            self.0[self.0.len() - 1].1
        }

        pub fn contains(&self, x: i32) -> bool {
            let i = self.0.partition_point(|&(_, hi)| hi < x);
            i < self.0.len() && self.0[i].0 <= x
        }

        /// The number of runs (1 for an interval).
        pub fn runs(&self) -> usize {
            self.0.len()
        }

        /// {f(x) : x in self}, exhaustively; every x must fit 16 bits.
        fn image(&self, f: impl Fn(i16) -> i16) -> Set {
            let mut hit = vec![false; 1 << 16];
            let (mut lo, mut hi) = (usize::MAX, 0);
            for &(a, b) in &self.0 {
                for x in a..=b {
                    let x = i16::try_from(x).expect("a reachable value fits 16 bits");
                    let i = (i32::from(f(x)) + 32768) as usize;
                    hit[i] = true;
                    (lo, hi) = (lo.min(i), hi.max(i));
                }
            }
            let mut runs: Vec<(i32, i32)> = Vec::new();
            for v in (lo..=hi).filter(|&i| hit[i]).map(|i| i as i32 - 32768) {
                match runs.last_mut() {
                    Some(r) if r.1 + 1 == v => r.1 = v,
                    _ => runs.push((v, v)),
                }
            }
            Set(runs)
        }

        /// {a + b : a in self, b in other}: the union of the runs' pairwise sums, each an interval.
        fn sum(&self, other: &Set) -> Set {
            let mut pairs: Vec<(i32, i32)> =
                self.0.iter().flat_map(|&(a0, a1)| other.0.iter().map(move |&(b0, b1)| (a0 + b0, a1 + b1))).collect();
            pairs.sort_unstable();
            let mut runs: Vec<(i32, i32)> = Vec::new();
            for (lo, hi) in pairs {
                match runs.last_mut() {
                    Some(r) if lo <= r.1 + 1 => r.1 = r.1.max(hi),
                    _ => runs.push((lo, hi)),
                }
            }
            Set(runs)
        }

        fn neg(&self) -> Set {
            Set(self.0.iter().rev().map(|&(lo, hi)| (-hi, -lo)).collect())
        }

        /// a in self and b in other with a + b = t.
        fn split(&self, other: &Set, t: i32) -> Option<(i32, i32)> {
            self.0.iter().flat_map(|&(a0, a1)| other.0.iter().map(move |&(b0, b1)| (a0, a1, b0, b1))).find_map(
                |(a0, a1, b0, b1)| {
                    (a0 + b0 <= t && t <= a1 + b1).then(|| {
                        let a = (t - b1).clamp(a0, a1);
                        (a, t - a)
                    })
                },
            )
        }

        /// An x in self with f(x) = t, the smallest in magnitude first (the easiest to split further).
        fn preimage(&self, t: i32, f: impl Fn(i16) -> i16) -> Option<i32> {
            let reach = self.min().abs().max(self.max());
            (0..=reach).flat_map(|m| [m, -m]).find(|&x| self.contains(x) && i32::from(f(x as i16)) == t)
        }
    }

    /// The butterflies' half-lengths, layer by layer; layer 6 (len 128) multiplies both outputs.
    const LENS: [usize; 7] = [2, 4, 8, 16, 32, 64, 128];
    /// The reduction by 1 runs on the input and after layer 2 (`MID_AFTER`).
    const MID_AFTER: usize = 2;

    /// The level (index into `InvSolver::levels`) a layer reads: level 0 is the reduced input, level 4 the
    /// reduction after layer 2.
    const fn before(layer: usize) -> usize {
        if layer <= MID_AFTER { layer } else { layer + 1 }
    }

    /// The butterfly of layer `layer` that writes coefficient j: (u index, v index, zeta index, whether j is u's
    /// side).
    fn butterfly(layer: usize, j: usize) -> (usize, usize, usize, bool) {
        let len = LENS[layer];
        let lower = j % (2 * len) < len;
        let u = if lower { j } else { j - len };
        (u, u + len, N / len - 1 - j / (2 * len), lower)
    }

    /// The reachable ends of one step over every butterfly of its layer, and the u index that attains each.
    #[derive(Clone, Copy, Debug)]
    pub struct Ends {
        pub lo: (i32, usize),
        pub hi: (i32, usize),
    }

    impl Ends {
        fn of(values: impl Iterator<Item = (Set, usize)>) -> Ends {
            let mut e = Ends { lo: (i32::MAX, 0), hi: (i32::MIN, 0) };
            for (s, u) in values {
                if s.min() < e.lo.0 {
                    e.lo = (s.min(), u);
                }
                if s.max() > e.hi.0 {
                    e.hi = (s.max(), u);
                }
            }
            e
        }
    }

    /// What the steps reach: `levels[L][j]` the reachable set of coefficient j at level L (0: after the first
    /// reduction, 1..=3: after layers 0..=2, 4: after the middle reduction, 5..=7: after layers 3..=5), and per
    /// layer the ends of its sums u + v and differences v - u.
    pub struct InvSolver {
        pub levels: Vec<Vec<Set>>,
        pub sum: [Ends; 7],
        pub dif: [Ends; 7],
        /// A preimage under the first reduction of each of its values (index: value - `pre_min`).
        pre: Vec<i16>,
        pre_min: i32,
    }

    impl InvSolver {
        pub fn new() -> InvSolver {
            let inputs = Set(vec![(i16::MIN.into(), i16::MAX.into())]);
            let reduced = inputs.image(reduce1);
            let pre_min = reduced.min();
            let mut pre = vec![0; (reduced.max() - pre_min + 1) as usize];
            for x in i16::MIN..=i16::MAX {
                pre[(i32::from(reduce1(x)) - pre_min) as usize] = x;
            }
            let mut levels = vec![vec![reduced; N]];
            let (mut sum, mut dif) = (Vec::new(), Vec::new());
            for layer in 0..7 {
                let cur = &levels[before(layer)];
                let len = LENS[layer];
                let us = || (0..N).filter(move |j| j % (2 * len) < len);
                let sums: Vec<(Set, usize)> = us().map(|u| (cur[u].sum(&cur[u + len]), u)).collect();
                let difs: Vec<(Set, usize)> = us().map(|u| (cur[u + len].sum(&cur[u].neg()), u)).collect();
                for (s, _) in sums.iter().chain(&difs) {
                    assert!(s.min() >= i16::MIN.into() && s.max() <= i16::MAX.into(), "layer {layer}: 16 bits");
                }
                sum.push(Ends::of(sums.iter().cloned()));
                dif.push(Ends::of(difs.iter().cloned()));
                if layer == 6 {
                    break;
                }
                let mut next = cur.clone();
                for ((s, u), (d, _)) in sums.into_iter().zip(difs) {
                    let (_, v, k, _) = butterfly(layer, u);
                    next[v] = d.image(|x| mulmod(x, ZETA[k], ZETA_TW[k]));
                    next[u] = s;
                }
                if layer == MID_AFTER {
                    levels.push(next.iter().map(|s| s.image(reduce1)).collect());
                    levels.insert(MID_AFTER + 1, next);
                } else {
                    levels.push(next);
                }
            }
            let ends = |v: Vec<Ends>| v.try_into().expect("seven layers");
            InvSolver { levels, sum: ends(sum), dif: ends(dif), pre, pre_min }
        }

        /// Sets the inputs of coefficient j's class so that it holds `target` at `level`; false when `target` is
        /// not reachable there.
        pub fn build(&self, level: usize, j: usize, target: i32, x: &mut Poly) -> bool {
            if !self.levels[level][j].contains(target) {
                return false;
            }
            if level == 0 {
                x[j] = self.pre[(target - self.pre_min) as usize];
                return true;
            }
            if level == before(MID_AFTER + 1) {
                let s = self.levels[level - 1][j].preimage(target, reduce1).expect("a reachable value");
                return self.build(level - 1, j, s, x);
            }
            let layer = if level <= MID_AFTER + 1 { level - 1 } else { level - 2 };
            let (u, v, k, lower) = butterfly(layer, j);
            if lower {
                self.pair(layer, u, target, false, x)
            } else {
                let (su, sv) = (&self.levels[level - 1][u], &self.levels[level - 1][v]);
                let d = sv.sum(&su.neg()).preimage(target, |d| mulmod(d, ZETA[k], ZETA_TW[k]));
                d.is_some_and(|d| self.pair(layer, u, d, true, x))
            }
        }

        /// Sets the inputs of the butterfly of `layer` at u so that u + v (`dif`: v - u) is `target`.
        fn pair(&self, layer: usize, u: usize, target: i32, dif: bool, x: &mut Poly) -> bool {
            let level = before(layer);
            let v = u + LENS[layer];
            let (su, sv) = (&self.levels[level][u], &self.levels[level][v]);
            let split = if dif { sv.split(&su.neg(), target).map(|(b, a)| (-a, b)) } else { su.split(sv, target) };
            split.is_some_and(|(a, b)| self.build(level, u, a, x) && self.build(level, v, b, x))
        }

        /// An input that drives the sums (`dif`: differences) of `layer` to their high (or low) end.
        pub fn corner(&self, layer: usize, dif: bool, high: bool) -> Poly {
            let e = if dif { self.dif[layer] } else { self.sum[layer] };
            let (target, u) = if high { e.hi } else { e.lo };
            let mut x = [0; N];
            assert!(self.pair(layer, u, target, dif, &mut x), "layer {layer} at {target}");
            x
        }

        /// The reachable ends of the middle reduction's input (the coefficients after layer 2).
        pub fn mid(&self) -> Ends {
            let level = MID_AFTER + 1;
            Ends::of(self.levels[level].iter().cloned().zip(0..N))
        }

        /// An input that drives the middle reduction's input to its high (or low) end.
        pub fn mid_corner(&self, high: bool) -> Poly {
            let e = self.mid();
            let (target, j) = if high { e.hi } else { e.lo };
            let mut x = [0; N];
            assert!(self.build(MID_AFTER + 1, j, target, &mut x), "the middle reduction at {target}");
            x
        }
    }

    impl Default for InvSolver {
        fn default() -> Self {
            Self::new()
        }
    }
}
