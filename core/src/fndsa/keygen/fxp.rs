//! 32.32 fixed-point arithmetic of FN-DSA v0.4 key generation, the fixed-point FFT and the vector divisions.
//!
//! A value is a `u64` holding a signed 64-bit integer x that stands for x / 2^32 (top 32 bits integral). Additions
//! wrap; products are the signed 128-bit product shifted right by 32 (floor). FFT vectors of degree n = 2^logn hold
//! n/2 complex values: real parts in `[0, n/2)`, imaginary parts in `[n/2, n)`.
//!
//! The expensive and bit-exactness-critical operations (FFT, inverse FFT and the three vector operations that use
//! the bit-by-bit division) form the [`FxpKernels`] family, so that models and emulated Cortex-M kernels can replace
//! them one by one.

use std::sync::OnceLock;

/// 1.0 in 32.32.
pub const ONE: u64 = 1 << 32;

/// Exact conversion of an integer.
pub const fn from_i32(x: i32) -> u64 {
    ((x as u32) as u64) << 32
}

/// Signed product, floor of (a*b) / 2^32, wrapping to 64 bits.
#[inline]
pub fn mul(a: u64, b: u64) -> u64 {
    (((a as i64 as i128) * (b as i64 as i128)) >> 32) as u64
}

#[inline]
pub fn sqr(a: u64) -> u64 {
    mul(a, a)
}

/// x / 2^e rounded to nearest, ties up (add half an ulp of the result, then arithmetic shift). e < 64.
#[inline]
pub fn div2e(x: u64, e: u32) -> u64 {
    ((x.wrapping_add((1u64 << e) >> 1) as i64) >> e) as u64
}

#[inline]
pub fn half(x: u64) -> u64 {
    div2e(x, 1)
}

/// Nearest integer, ties up; a value at or above 2^31 - 1/2 wraps to -2^31.
#[inline]
pub fn round(x: u64) -> i32 {
    ((x.wrapping_add(1 << 31) as i64) >> 32) as i32
}

/// Fixed-point quotient x / y by restoring division one quotient bit at a time, with the exact steps of the
/// reference (so that overflowing and degenerate operands give the same bits too):
///
/// - operate on |x| and |y|; the numerator window starts at |x| >> 31 and takes one more bit of |x| per step for
///   quotient bits 63..33, then zeros for bits 32..0;
/// - a step sets its bit when `num - y` is non-negative as a signed 64-bit value, subtracts y if so, then doubles;
/// - the quotient is rounded up when the final doubled remainder reaches y (ties up), then given the sign of x*y.
///
/// For |y| < 2^62 and |x| * 2^32 / |y| < 2^62 this is round(x * 2^32 / y), ties away from zero (tested against
/// exact 128-bit arithmetic).
///
/// Zero denominator (it does occur in key generation): every step compares the window, which at bit i is
/// floor(|x| * 2^(32-i)) mod 2^64, with 0 as a signed value. Hence 0 / 0 = 0 (all ones plus the rounding bit wraps
/// to 0), 1.0 / 0 = -2^-31, and in general the result is [`div_by_zero`] of x.
pub fn div(x: u64, y: u64) -> u64 {
    let sx = ((x as i64) >> 63) as u64;
    let sy = ((y as i64) >> 63) as u64;
    let ax = (x ^ sx).wrapping_sub(sx);
    let ay = (y ^ sy).wrapping_sub(sy);
    // Bit set when the window is at least y in the signed sense (borrow-free subtraction).
    let step = |num: u64| ((num.wrapping_sub(ay) as i64 >> 63) + 1) as u64;
    let mut q = 0u64;
    let mut num = ax >> 31;
    for i in (0..64).rev() {
        let b = step(num);
        q |= b << i;
        num = num.wrapping_sub(ay & b.wrapping_neg()) << 1;
        if i >= 33 {
            num |= (ax >> (i - 33)) & 1;
        }
    }
    q = q.wrapping_add(step(num));
    let s = sx ^ sy;
    (q ^ s).wrapping_sub(s)
}

/// What [`div`] returns for a zero denominator, written directly from the window description above (used to
/// document and test the degenerate case): bit i of the quotient is set iff floor(|x| * 2^(32-i)) mod 2^64 is below
/// 2^63, the rounding adds 1 iff (|x| * 2^33) mod 2^64 is below 2^63, and the sign of x is applied.
pub fn div_by_zero(x: u64) -> u64 {
    let neg = (x as i64) < 0;
    let ax = if neg { x.wrapping_neg() } else { x } as u128;
    let window = |i: i32| -> u64 { if i <= 32 { (ax << (32 - i)) as u64 } else { (ax >> (i - 32)) as u64 } };
    let mut q = 0u64;
    for i in 0..64 {
        if window(i) < 1 << 63 {
            q |= 1 << i;
        }
    }
    q = q.wrapping_add(u64::from(((ax << 33) as u64) < 1 << 63));
    if neg { q.wrapping_neg() } else { q }
}

/// Complex product with three real multiplications: z0 = ac, z1 = bd, z2 = (a+b)(c+d); re = z0 - z1,
/// im = z2 - (z0 + z1). The rounding of each product makes this differ from the 4-multiplication form.
#[inline]
pub fn cmul(a: u64, b: u64, c: u64, d: u64) -> (u64, u64) {
    let z0 = mul(a, c);
    let z1 = mul(b, d);
    let z2 = mul(a.wrapping_add(b), c.wrapping_add(d));
    (z0.wrapping_sub(z1), z2.wrapping_sub(z0.wrapping_add(z1)))
}

/// Twiddles: entry k is exp(i*pi*rev10(k)/1024) in 32.32, rounded to nearest, as (re, im).
pub fn roots() -> &'static [(u64, u64); 1024] {
    static TABLE: OnceLock<Box<[(u64, u64); 1024]>> = OnceLock::new();
    TABLE.get_or_init(|| {
        let mut t = Box::new([(0u64, 0u64); 1024]);
        for (k, e) in t.iter_mut().enumerate() {
            let (re, im) = root_exact(k);
            *e = (re.round() as i64 as u64, im.round() as i64 as u64);
        }
        t
    })
}

/// The unrounded scaled twiddle (re, im) * 2^32 in f64 (error far below 10^-5, see the tests on the rounding margin).
pub fn root_exact(k: usize) -> (f64, f64) {
    let e = (k as u32).reverse_bits() >> 22;
    // Reduce to the first octant so that sin/cos are evaluated on small angles, then use exact symmetries.
    let angle = |j: u32| -> (f64, f64) {
        let j = j % 2048;
        let (quad, r) = (j / 512, j % 512);
        let (c, s) = if r <= 256 {
            let a = std::f64::consts::PI * f64::from(r) / 1024.0;
            (a.cos(), a.sin())
        } else {
            let a = std::f64::consts::PI * f64::from(512 - r) / 1024.0;
            (a.sin(), a.cos())
        };
        match quad {
            0 => (c, s),
            1 => (-s, c),
            2 => (-c, -s),
            _ => (s, -c),
        }
    };
    let (c, s) = angle(e);
    (c * 4294967296.0, s * 4294967296.0)
}

/// The fixed-point kernel family of key generation (whole vectors, as an M55 kernel would implement them).
pub trait FxpKernels {
    /// Forward FFT in place: n real values to n/2 complex values (real parts then imaginary parts).
    fn fft(&mut self, logn: u32, f: &mut [u64]);
    /// Inverse FFT in place (including the division by n/2).
    fn ifft(&mut self, logn: u32, f: &mut [u64]);
    /// a <- a / b for a in FFT form and b self-adjoint (only its n/2 real parts are read); two divisions per slot.
    fn div_selfadj(&mut self, logn: u32, a: &mut [u64], b: &[u64]);
    /// `d[i] <- 2^e / (|a_i|^2 + |b_i|^2)` for i < n/2 (d is self-adjoint, only its real half is written).
    fn invnorm(&mut self, logn: u32, d: &mut [u64], a: &[u64], b: &[u64], e: u32);
    /// a <- 2^e / a slot by slot in FFT form: (re * 2^e, -im * 2^e) / (re^2 + im^2).
    fn inv_mul2e(&mut self, logn: u32, a: &mut [u64], e: u32);
}

/// A borrowed provider serves as well (several computations can share one provider and its counters).
impl<X: FxpKernels + ?Sized> FxpKernels for &mut X {
    fn fft(&mut self, logn: u32, f: &mut [u64]) {
        (**self).fft(logn, f);
    }
    fn ifft(&mut self, logn: u32, f: &mut [u64]) {
        (**self).ifft(logn, f);
    }
    fn div_selfadj(&mut self, logn: u32, a: &mut [u64], b: &[u64]) {
        (**self).div_selfadj(logn, a, b);
    }
    fn invnorm(&mut self, logn: u32, d: &mut [u64], a: &[u64], b: &[u64], e: u32) {
        (**self).invnorm(logn, d, a, b, e);
    }
    fn inv_mul2e(&mut self, logn: u32, a: &mut [u64], e: u32) {
        (**self).inv_mul2e(logn, a, e);
    }
}

/// The plain-Rust reference kernels.
#[derive(Clone, Copy, Debug, Default)]
pub struct Reference;

fn check(logn: u32, f: &[u64], len: usize) {
    assert!((1..=10).contains(&logn), "keygen FFT: logn {logn} outside 1..=10");
    assert!(f.len() >= len, "keygen FFT: vector shorter than expected");
}

impl FxpKernels for Reference {
    fn fft(&mut self, logn: u32, f: &mut [u64]) {
        check(logn, f, 1 << logn);
        let gm = roots();
        let hn = 1usize << (logn - 1);
        // Layer with m = 2^lm twiddles; butterflies x +/- s*y on blocks of t complex values.
        let mut t = hn;
        for lm in 1..logn {
            let m = 1usize << lm;
            let ht = t / 2;
            for i in 0..m / 2 {
                let (sr, si) = gm[m + i];
                let base = i * t;
                for j in base..base + ht {
                    let (xr, xi) = (f[j], f[j + hn]);
                    let (zr, zi) = cmul(sr, si, f[j + ht], f[j + ht + hn]);
                    f[j] = xr.wrapping_add(zr);
                    f[j + hn] = xi.wrapping_add(zi);
                    f[j + ht] = xr.wrapping_sub(zr);
                    f[j + ht + hn] = xi.wrapping_sub(zi);
                }
            }
            t = ht;
        }
    }

    fn ifft(&mut self, logn: u32, f: &mut [u64]) {
        check(logn, f, 1 << logn);
        let gm = roots();
        let hn = 1usize << (logn - 1);
        // Gentleman-Sande: (x+y)/2 and conj(s)*(x-y)/2, halving every layer.
        let mut ht = 1usize;
        for lm in (1..logn).rev() {
            let m = 1usize << lm;
            let t = 2 * ht;
            for i in 0..m / 2 {
                let (sr, si) = gm[m + i];
                let si = si.wrapping_neg();
                let base = i * t;
                for j in base..base + ht {
                    let (xr, xi) = (f[j], f[j + hn]);
                    let (yr, yi) = (f[j + ht], f[j + ht + hn]);
                    f[j] = half(xr.wrapping_add(yr));
                    f[j + hn] = half(xi.wrapping_add(yi));
                    let (dr, di) = (half(xr.wrapping_sub(yr)), half(xi.wrapping_sub(yi)));
                    let (zr, zi) = cmul(sr, si, dr, di);
                    f[j + ht] = zr;
                    f[j + ht + hn] = zi;
                }
            }
            ht = t;
        }
    }

    fn div_selfadj(&mut self, logn: u32, a: &mut [u64], b: &[u64]) {
        check(logn, a, 1 << logn);
        let hn = 1usize << (logn - 1);
        for i in 0..hn {
            a[i] = div(a[i], b[i]);
            a[i + hn] = div(a[i + hn], b[i]);
        }
    }

    fn invnorm(&mut self, logn: u32, d: &mut [u64], a: &[u64], b: &[u64], e: u32) {
        check(logn, a, 1 << logn);
        let hn = 1usize << (logn - 1);
        let r = from_i32(1 << e);
        for i in 0..hn {
            let na = sqr(a[i]).wrapping_add(sqr(a[i + hn]));
            let nb = sqr(b[i]).wrapping_add(sqr(b[i + hn]));
            d[i] = div(r, na.wrapping_add(nb));
        }
    }

    fn inv_mul2e(&mut self, logn: u32, a: &mut [u64], e: u32) {
        check(logn, a, 1 << logn);
        let hn = 1usize << (logn - 1);
        for i in 0..hn {
            let (re, im) = (a[i], a[i + hn].wrapping_neg());
            let z = sqr(a[i]).wrapping_add(sqr(a[i + hn]));
            a[i] = div(re << e, z);
            a[i + hn] = div(im << e, z);
        }
    }
}

/// Pointwise complex product a <- a*b of two FFT-form vectors (3-multiplication form, a's slot first).
pub fn mul_fft(logn: u32, a: &mut [u64], b: &[u64]) {
    let hn = 1usize << (logn - 1);
    for i in 0..hn {
        let (r, im) = cmul(a[i], a[i + hn], b[i], b[i + hn]);
        a[i] = r;
        a[i + hn] = im;
    }
}

/// Hermitian adjoint in FFT form: negate the imaginary parts.
pub fn adj_fft(logn: u32, a: &mut [u64]) {
    let n = 1usize << logn;
    for x in &mut a[n / 2..n] {
        *x = x.wrapping_neg();
    }
}

/// a <- a * c for a real constant c (either representation).
pub fn mul_realconst(logn: u32, a: &mut [u64], c: u64) {
    for x in &mut a[..1 << logn] {
        *x = mul(*x, c);
    }
}

/// a <- a * b with b self-adjoint (real FFT values, only the first n/2 entries of b are read).
pub fn mul_selfadj_fft(logn: u32, a: &mut [u64], b: &[u64]) {
    let hn = 1usize << (logn - 1);
    for i in 0..hn {
        a[i] = mul(a[i], b[i]);
        a[i + hn] = mul(a[i + hn], b[i]);
    }
}
