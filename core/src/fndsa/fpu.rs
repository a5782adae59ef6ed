//! The floating-point (binary64) kernels of FN-DSA v0.4 signing, behind the [`FpuKernels`] trait so that a model or
//! emulated Cortex-M55 object code (native FP64) can replace any of them.
//!
//! Signatures are reproducible bit for bit only if every kernel performs exactly the same IEEE-754 operations, in
//! the same order, rounded to nearest-even, with no fused multiply-add, as fn-dsa 0.4.0. [`Reference`] is that
//! sequence written in plain Rust (Rust never contracts `a*b + c` into an FMA).
//!
//! Polynomials in FFT form follow the crate's layout: n = 2^logn reals hold n/2 complex values, real parts in
//! `[0, n/2)` and imaginary parts in `[n/2, n)`. A self-adjoint polynomial (real FFT values) uses only `[0, n/2)`.

use std::cell::Cell;
use std::sync::LazyLock;

/// `mantissa * 2^exp` as an exact binary64 (|mantissa| < 2^53, result normal): how the crate writes its constants.
pub const fn scaled(mantissa: i64, exp: i32) -> f64 {
    assert!(exp > -1023 && exp < 1024);
    mantissa as f64 * f64::from_bits(((1023 + exp) as u64) << 52)
}

/// 1/(2*sigma0^2) with sigma0 = 1.8205, the width of the base sampler's half-Gaussian.
pub const INV_2SQRSIGMA0: f64 = scaled(5435486223186882, -55);
/// ln 2, for reducing the Bernoulli exponent.
pub const LOG2: f64 = scaled(6243314768165359, -53);
/// 1/ln 2.
pub const INV_LOG2: f64 = scaled(6497320848556798, -52);

/// The floating-point part of one Gaussian sample around `mu` (see [`FpuKernels::sampler_centre`]).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct SamplerCentre {
    /// floor(mu): the integer part, added back to the sampled offset.
    pub s: i32,
    /// mu - floor(mu), in [0, 1): the centre the rejection loop works around.
    pub r: f64,
    /// 1/(2 sigma^2) = isigma^2 / 2.
    pub dss: f64,
    /// sigma_min/sigma as a 64-bit fixed-point fraction: trunc(ccs * 2^63) * 2.
    pub ccs_fx: u64,
}

/// The Bernoulli exponent x = (z - r)^2/(2 sigma^2) - z0^2/(2 sigma0^2) of one candidate, split as
/// x = k ln2 + rem with 0 <= rem < ln2 (see [`FpuKernels::sampler_exponent`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct BerExponent {
    /// trunc(x / ln2), not yet saturated.
    pub k: i64,
    /// rem as a 64-bit fixed-point fraction: trunc(rem * 2^63) * 2 (as an unsigned wrap of the signed value).
    pub rem_fx: u64,
}

/// The FP64 kernels of signing. Slices hold n = 2^logn values unless said otherwise; a kernel may assume its inputs
/// are in the ranges signing produces (finite, no subnormals).
pub trait FpuKernels {
    /// Coefficients to FFT form, in place.
    fn fft(&mut self, logn: u32, f: &mut [f64]);
    /// FFT form to coefficients, in place (including the division by n/2).
    fn ifft(&mut self, logn: u32, f: &mut [f64]);
    /// Integers to reals (exact: |s| < 2^31).
    fn set_small(&mut self, logn: u32, d: &mut [f64], s: &[i32]);
    /// Round to nearest, ties to even (the final step from FFT-domain lattice point to integers).
    fn round(&mut self, logn: u32, f: &[f64], d: &mut [i64]);
    /// a += b, coefficient-wise (either representation).
    fn add(&mut self, logn: u32, a: &mut [f64], b: &[f64]);
    /// a -= b.
    fn sub(&mut self, logn: u32, a: &mut [f64], b: &[f64]);
    /// a = -a.
    fn neg(&mut self, logn: u32, a: &mut [f64]);
    /// a *= c.
    fn mulconst(&mut self, logn: u32, a: &mut [f64], c: f64);
    /// a *= b (FFT form: complex products).
    fn mul_fft(&mut self, logn: u32, a: &mut [f64], b: &[f64]);
    /// a *= adj(b) (FFT form: times the conjugate).
    fn muladj_fft(&mut self, logn: u32, a: &mut [f64], b: &[f64]);
    /// a = a*adj(a) (FFT form; the result is self-adjoint: imaginary half set to zero). A Gram-matrix step.
    fn mulownadj_fft(&mut self, logn: u32, a: &mut [f64]);
    /// LDL decomposition of the self-adjoint 2x2 Gram matrix [[g00, g01], [adj(g01), g11]] (g00, g11 self-adjoint):
    /// g01 becomes L10 = adj(g01/g00) and g11 becomes D11 = g11 - |g01|^2/g00; g00 (= D00) is unchanged.
    fn ldl_fft(&mut self, logn: u32, g00: &[f64], g01: &mut [f64], g11: &mut [f64]);
    /// f(x) = f0(x^2) + x f1(x^2) in FFT form: f (n values) to f0, f1 (n/2 values each).
    fn split_fft(&mut self, logn: u32, f0: &mut [f64], f1: &mut [f64], f: &[f64]);
    /// [`split_fft`](Self::split_fft) of a self-adjoint f (only `f[..n/2]` read); f0 and f1 come out full.
    fn split_selfadj_fft(&mut self, logn: u32, f0: &mut [f64], f1: &mut [f64], f: &[f64]);
    /// The inverse of [`split_fft`](Self::split_fft): f0, f1 (n/2 values each) to f (n values).
    fn merge_fft(&mut self, logn: u32, f: &mut [f64], f0: &[f64], f1: &[f64]);
    /// The inverse deviation at a leaf of the LDL tree: sqrt(d) * inv_sigma.
    fn leaf_sigma(&mut self, d: f64, inv_sigma: f64) -> f64;
    /// The per-sample set-up of the Gaussian sampler: split mu = s + r with s = floor(mu), dss = isigma^2/2 and
    /// ccs = isigma * sigma_min as a fixed-point fraction.
    fn sampler_centre(&mut self, mu: f64, isigma: f64, sigma_min: f64) -> SamplerCentre;
    /// The Bernoulli exponent of the candidate z = b + (2b - 1) z0 drawn from the base sampler (z0 >= 0, b a bit).
    fn sampler_exponent(&mut self, centre: &SamplerCentre, z: i32, z0: i32) -> BerExponent;
}

/// A rounded operation of [`Reference`], as an observer sees it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Op {
    /// a + b.
    Add,
    /// a - b.
    Sub,
    /// a * b.
    Mul,
    /// a / b.
    Div,
    /// sqrt(a) (b is 0).
    Sqrt,
}

/// Sees the rounded operations of [`Reference`]'s composite kernels (the FFTs, products, LDL, split, merge and the
/// leaf's sigma) on this thread: the operation, its operands and its result.
pub type Observer = fn(Op, f64, f64, f64);

thread_local! {
    static OBSERVER: Cell<Option<Observer>> = const { Cell::new(None) };
}

/// Sets this thread's observer of [`Reference`]'s operations (None: none), returning the previous one. A coverage
/// measurement sets one around a reference run; the results never change.
pub fn set_observer(observer: Option<Observer>) -> Option<Observer> {
    OBSERVER.with(|o| o.replace(observer))
}

/// The operations of [`Reference`]: each computes exactly the one IEEE operation, then tells the observer if any.
mod op {
    use super::{OBSERVER, Op};

    #[inline(always)]
    fn seen(op: Op, a: f64, b: f64, r: f64) -> f64 {
        if let Some(observe) = OBSERVER.with(|o| o.get()) {
            observe(op, a, b, r);
        }
        r
    }

    #[inline(always)]
    pub fn add(a: f64, b: f64) -> f64 {
        seen(Op::Add, a, b, a + b)
    }

    #[inline(always)]
    pub fn sub(a: f64, b: f64) -> f64 {
        seen(Op::Sub, a, b, a - b)
    }

    #[inline(always)]
    pub fn mul(a: f64, b: f64) -> f64 {
        seen(Op::Mul, a, b, a * b)
    }

    #[inline(always)]
    pub fn div(a: f64, b: f64) -> f64 {
        seen(Op::Div, a, b, a / b)
    }

    #[inline(always)]
    pub fn sqrt(a: f64) -> f64 {
        seen(Op::Sqrt, a, 0.0, a.sqrt())
    }
}

/// The plain-Rust reference kernels, in the crate's order of operations.
#[derive(Clone, Copy, Debug, Default)]
pub struct Reference;

/// (x_re + i x_im)(y_re + i y_im), as the crate writes it: callers pass negated parts to conjugate, never reorder.
#[inline(always)]
fn cmul(x_re: f64, x_im: f64, y_re: f64, y_im: f64) -> (f64, f64) {
    (op::sub(op::mul(x_re, y_re), op::mul(x_im, y_im)), op::add(op::mul(x_re, y_im), op::mul(x_im, y_re)))
}

/// The complex twiddle k of [`gm`], as (re, im).
#[inline(always)]
fn twiddle(k: usize) -> (f64, f64) {
    let t = gm();
    (t[2 * k], t[2 * k + 1])
}

impl FpuKernels for Reference {
    /// Decimation in time; the first layer (x + i y) is the storage layout itself, so layers start at m = 2.
    fn fft(&mut self, logn: u32, f: &mut [f64]) {
        let n = 1usize << logn;
        let hn = n >> 1;
        let mut t = hn;
        for lm in 1..logn {
            let m = 1usize << lm;
            let ht = t >> 1;
            for i in 0..m >> 1 {
                let (s_re, s_im) = twiddle(m + i);
                let j0 = i * t;
                for j1 in j0..j0 + ht {
                    let j2 = j1 + ht;
                    let (x_re, x_im) = (f[j1], f[j1 + hn]);
                    let (z_re, z_im) = cmul(f[j2], f[j2 + hn], s_re, s_im);
                    f[j1] = op::add(x_re, z_re);
                    f[j1 + hn] = op::add(x_im, z_im);
                    f[j2] = op::sub(x_re, z_re);
                    f[j2 + hn] = op::sub(x_im, z_im);
                }
            }
            t = ht;
        }
    }

    /// Decimation in frequency with conjugate twiddles; the logn - 1 halvings are one final scaling by 2^-(logn-1).
    fn ifft(&mut self, logn: u32, f: &mut [f64]) {
        let n = 1usize << logn;
        let hn = n >> 1;
        let mut t = 1;
        for lm in 1..logn {
            let hm = 1usize << (logn - lm);
            for i in 0..hm >> 1 {
                let (s_re, s_im) = twiddle(hm + i);
                let j0 = 2 * t * i;
                for j1 in j0..j0 + t {
                    let j2 = j1 + t;
                    let (x_re, x_im) = (f[j1], f[j1 + hn]);
                    let (y_re, y_im) = (f[j2], f[j2 + hn]);
                    f[j1] = op::add(x_re, y_re);
                    f[j1 + hn] = op::add(x_im, y_im);
                    let (z_re, z_im) = cmul(op::sub(x_re, y_re), op::sub(x_im, y_im), s_re, -s_im);
                    f[j2] = z_re;
                    f[j2 + hn] = z_im;
                }
            }
            t <<= 1;
        }
        let scale = scaled(1, 1 - logn as i32);
        for x in &mut f[..n] {
            *x = op::mul(*x, scale);
        }
    }

    fn set_small(&mut self, logn: u32, d: &mut [f64], s: &[i32]) {
        for (d, &x) in d[..1 << logn].iter_mut().zip(s) {
            *d = f64::from(x);
        }
    }

    fn round(&mut self, logn: u32, f: &[f64], d: &mut [i64]) {
        for (d, &x) in d[..1 << logn].iter_mut().zip(f) {
            *d = x.round_ties_even() as i64;
        }
    }

    fn add(&mut self, logn: u32, a: &mut [f64], b: &[f64]) {
        for (a, &b) in a[..1 << logn].iter_mut().zip(b) {
            *a += b;
        }
    }

    fn sub(&mut self, logn: u32, a: &mut [f64], b: &[f64]) {
        for (a, &b) in a[..1 << logn].iter_mut().zip(b) {
            *a -= b;
        }
    }

    fn neg(&mut self, logn: u32, a: &mut [f64]) {
        for a in &mut a[..1 << logn] {
            *a = -*a;
        }
    }

    fn mulconst(&mut self, logn: u32, a: &mut [f64], c: f64) {
        for a in &mut a[..1 << logn] {
            *a *= c;
        }
    }

    fn mul_fft(&mut self, logn: u32, a: &mut [f64], b: &[f64]) {
        let hn = 1usize << (logn - 1);
        for i in 0..hn {
            (a[i], a[i + hn]) = cmul(a[i], a[i + hn], b[i], b[i + hn]);
        }
    }

    fn muladj_fft(&mut self, logn: u32, a: &mut [f64], b: &[f64]) {
        let hn = 1usize << (logn - 1);
        for i in 0..hn {
            (a[i], a[i + hn]) = cmul(a[i], a[i + hn], b[i], -b[i + hn]);
        }
    }

    fn mulownadj_fft(&mut self, logn: u32, a: &mut [f64]) {
        let hn = 1usize << (logn - 1);
        for i in 0..hn {
            a[i] = op::add(op::mul(a[i], a[i]), op::mul(a[i + hn], a[i + hn]));
            a[i + hn] = 0.0;
        }
    }

    fn ldl_fft(&mut self, logn: u32, g00: &[f64], g01: &mut [f64], g11: &mut [f64]) {
        let hn = 1usize << (logn - 1);
        for i in 0..hn {
            let (g01_re, g01_im) = (g01[i], g01[i + hn]);
            let inv = op::div(1.0, g00[i]);
            let (mu_re, mu_im) = (op::mul(g01_re, inv), op::mul(g01_im, inv));
            g11[i] = op::sub(g11[i], op::add(op::mul(mu_re, g01_re), op::mul(mu_im, g01_im)));
            g01[i] = mu_re;
            g01[i + hn] = -mu_im;
        }
    }

    fn split_fft(&mut self, logn: u32, f0: &mut [f64], f1: &mut [f64], f: &[f64]) {
        if logn == 1 {
            (f0[0], f1[0]) = (f[0], f[1]);
            return;
        }
        let hn = 1usize << (logn - 1);
        let qn = hn >> 1;
        for i in 0..qn {
            let (a_re, a_im) = (f[2 * i], f[2 * i + hn]);
            let (b_re, b_im) = (f[2 * i + 1], f[2 * i + 1 + hn]);
            f0[i] = op::mul(op::add(a_re, b_re), 0.5);
            f0[i + qn] = op::mul(op::add(a_im, b_im), 0.5);
            let (s_re, s_im) = twiddle(i + hn);
            let (u_re, u_im) = cmul(op::sub(a_re, b_re), op::sub(a_im, b_im), s_re, -s_im);
            f1[i] = op::mul(u_re, 0.5);
            f1[i + qn] = op::mul(u_im, 0.5);
        }
    }

    fn split_selfadj_fft(&mut self, logn: u32, f0: &mut [f64], f1: &mut [f64], f: &[f64]) {
        if logn == 1 {
            (f0[0], f1[0]) = (f[0], 0.0);
            return;
        }
        let hn = 1usize << (logn - 1);
        let qn = hn >> 1;
        for i in 0..qn {
            let (a_re, b_re) = (f[2 * i], f[2 * i + 1]);
            f0[i] = op::mul(op::add(a_re, b_re), 0.5);
            f0[i + qn] = 0.0;
            let t = op::mul(op::sub(a_re, b_re), 0.5);
            let (s_re, s_im) = twiddle(i + hn);
            f1[i] = op::mul(t, s_re);
            f1[i + qn] = op::mul(t, -s_im);
        }
    }

    fn merge_fft(&mut self, logn: u32, f: &mut [f64], f0: &[f64], f1: &[f64]) {
        if logn == 1 {
            (f[0], f[1]) = (f0[0], f1[0]);
            return;
        }
        let hn = 1usize << (logn - 1);
        let qn = hn >> 1;
        for i in 0..qn {
            let (a_re, a_im) = (f0[i], f0[i + qn]);
            let (s_re, s_im) = twiddle(i + hn);
            let (b_re, b_im) = cmul(f1[i], f1[i + qn], s_re, s_im);
            f[2 * i] = op::add(a_re, b_re);
            f[2 * i + hn] = op::add(a_im, b_im);
            f[2 * i + 1] = op::sub(a_re, b_re);
            f[2 * i + 1 + hn] = op::sub(a_im, b_im);
        }
    }

    fn leaf_sigma(&mut self, d: f64, inv_sigma: f64) -> f64 {
        op::mul(op::sqrt(d), inv_sigma)
    }

    fn sampler_centre(&mut self, mu: f64, isigma: f64, sigma_min: f64) -> SamplerCentre {
        // floor as truncation corrected downwards (what x86_64 and the crate's emulation both compute).
        let t = mu as i64;
        let s = t - i64::from(mu < t as f64);
        let ccs = isigma * sigma_min;
        SamplerCentre { s: s as i32, r: mu - s as f64, dss: isigma * isigma * 0.5, ccs_fx: to_fixed63(ccs) }
    }

    fn sampler_exponent(&mut self, c: &SamplerCentre, z: i32, z0: i32) -> BerExponent {
        let d = f64::from(z) - c.r;
        let x = d * d * c.dss - f64::from(z0 * z0) * INV_2SQRSIGMA0;
        let k = (x * INV_LOG2) as i64;
        let rem = x - k as f64 * LOG2;
        BerExponent { k, rem_fx: to_fixed63(rem) }
    }
}

/// trunc(x * 2^63) * 2 as a u64: a fraction in [0, 1) as 64-bit fixed point (with the low bit zero).
fn to_fixed63(x: f64) -> u64 {
    ((x * scaled(1, 63)) as i64 as u64) << 1
}

/// The FFT twiddles, 1024 complex values as 2048 reals (re, im): entry k >= 2 is exp(i pi rev10(k)/1024), with
/// rev10 the 10-bit bit reversal. Entry 0 is unused (zero) and entry 1 (angle pi/2) is (-0.0, 1.0), as in the
/// crate's table (a signed zero can reach a result through x + 0*y, so it must match too).
///
/// Computed at first use in double-double arithmetic and rounded once, which gives the correctly rounded values
/// the crate's table holds (checked entry by entry through a hash in the tests).
pub fn gm() -> &'static [f64; 2048] {
    static GM: LazyLock<Box<[f64; 2048]>> = LazyLock::new(compute_gm);
    &GM
}

fn compute_gm() -> Box<[f64; 2048]> {
    // cos and sin of m pi/1024 for m in 0..=256 (the first octant); the rest follows by symmetry, exactly.
    let octant: Vec<(f64, f64)> = (0..=256).map(dd::cos_sin_pi_1024).collect();
    let mut t = Box::new([0.0; 2048]);
    for k in 1..1024 {
        let j = ((k as u32).reverse_bits() >> 22) as usize;
        let (c, s) = match j {
            0..=256 => octant[j],
            257..=512 => {
                let (c, s) = octant[512 - j];
                (s, c)
            }
            513..=768 => {
                let (c, s) = octant[j - 512];
                (-s, c)
            }
            _ => {
                let (c, s) = octant[1024 - j];
                (-c, s)
            }
        };
        t[2 * k] = c;
        t[2 * k + 1] = s;
    }
    t[2] = -0.0;
    t
}

/// Just enough double-double arithmetic (value = hi + lo, ~106 bits) for correctly rounded cos/sin of m pi/1024.
mod dd {
    #[derive(Clone, Copy)]
    struct Dd(f64, f64);

    fn two_sum(a: f64, b: f64) -> Dd {
        let s = a + b;
        let bb = s - a;
        Dd(s, (a - (s - bb)) + (b - bb))
    }

    fn quick_two_sum(a: f64, b: f64) -> Dd {
        let s = a + b;
        Dd(s, b - (s - a))
    }

    /// Dekker's split and product: exact a*b as hi + lo without a fused multiply-add.
    fn split(a: f64) -> (f64, f64) {
        let c = 134217729.0 * a;
        let hi = c - (c - a);
        (hi, a - hi)
    }

    fn two_prod(a: f64, b: f64) -> Dd {
        let p = a * b;
        let (ah, al) = split(a);
        let (bh, bl) = split(b);
        Dd(p, ((ah * bh - p) + ah * bl + al * bh) + al * bl)
    }

    fn add(x: Dd, y: Dd) -> Dd {
        let s = two_sum(x.0, y.0);
        let t = two_sum(x.1, y.1);
        let s = quick_two_sum(s.0, s.1 + t.0);
        quick_two_sum(s.0, s.1 + t.1)
    }

    fn mul(x: Dd, y: Dd) -> Dd {
        let p = two_prod(x.0, y.0);
        quick_two_sum(p.0, p.1 + (x.0 * y.1 + x.1 * y.0))
    }

    fn div_f64(x: Dd, d: f64) -> Dd {
        let q1 = x.0 / d;
        let p = two_prod(q1, d);
        let r = add(x, Dd(-p.0, -p.1));
        let q2 = r.0 / d;
        let p = two_prod(q2, d);
        let r = add(r, Dd(-p.0, -p.1));
        let s = quick_two_sum(q1, q2);
        add(s, Dd(r.0 / d, 0.0))
    }

    /// pi to about 107 bits.
    const PI: Dd = Dd(std::f64::consts::PI, 1.2246467991473532e-16);

    /// (cos, sin) of m pi / 1024 for 0 <= m <= 256 (angle at most pi/4), each rounded once to binary64.
    pub(super) fn cos_sin_pi_1024(m: usize) -> (f64, f64) {
        // m/1024 is exact, so the angle is PI scaled by an exact factor then divided by a power of two.
        let x = mul(PI, Dd(m as f64 / 1024.0, 0.0));
        let x2 = mul(x, x);
        // Taylor series; at |x| <= pi/4 the terms fall below 2^-110 well before k = 30.
        let (mut cos, mut sin) = (Dd(1.0, 0.0), x);
        let (mut tc, mut ts) = (Dd(1.0, 0.0), x);
        for k in 1..15 {
            let (a, b) = ((2 * k - 1) as f64, (2 * k) as f64);
            tc = div_f64(mul(tc, x2), a * b);
            ts = div_f64(mul(ts, x2), b * (b + 1.0));
            let sign = if k % 2 == 1 { -1.0 } else { 1.0 };
            cos = add(cos, Dd(sign * tc.0, sign * tc.1));
            sin = add(sin, Dd(sign * ts.0, sign * ts.1));
        }
        (cos.0 + cos.1, sin.0 + sin.1)
    }
}
