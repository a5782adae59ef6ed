//! Arithmetic modulo q = 12289 and the negacyclic NTT over Z_q\[X\]/(X^n + 1), n = 2^logn, logn 1..=10, in the
//! reference domain of FN-DSA v0.4.
//!
//! Three representations of a coefficient:
//! - *external*: plain value in `[0, q-1]` (what the encodings carry);
//! - *internal*: the same value in `[1, q]`, with q standing for 0, so that [`mq_mred`] needs no final conditional
//!   subtraction;
//! - *NTT*: internal-range values of the polynomial evaluated at the 2n-th roots of unity (see [`ntt_root_exponent`]).
//!
//! The verifying key of v0.4 stores h already in NTT form, so this NTT must use exactly the crate's root order:
//! `GM[i] = g^rev10(i) * 2^32 mod q` with g = 7, `iGM[i] = g^-rev10(i) * 2^31 mod q`.

use super::MAX_LOGN;

/// The modulus.
pub const Q: u32 = 12289;
/// -1/q mod 2^32, for Montgomery reduction with R = 2^32.
pub const Q1I: u32 = 4143984639;
/// R^2 = 2^64 mod q: a Montgomery product by it converts to Montgomery form.
pub const R2: u32 = 5664;
/// A primitive 2048th root of unity modulo q (7^1024 = -1 mod q).
pub const G: u32 = 7;

// The constants above are checked against their definitions at compile time.
const _: () = {
    assert!(Q1I.wrapping_mul(Q) == u32::MAX); // Q1I * q = -1 mod 2^32
    assert!(R2 as u64 == ((1u128 << 64) % Q as u128) as u64);
    assert!(pow_mod(G, 1024) == Q - 1);
};

const fn pow_mod(base: u32, mut e: u32) -> u32 {
    let mut r = 1u64;
    let mut b = base as u64 % Q as u64;
    while e > 0 {
        if e & 1 == 1 {
            r = r * b % Q as u64;
        }
        b = b * b % Q as u64;
        e >>= 1;
    }
    r as u32
}

const fn rev10(i: usize) -> usize {
    (i as u32).reverse_bits() as usize >> 22
}

/// `GM[i] = g^rev10(i) * 2^32 mod q`, in `[1, q]`: the forward twiddles in Montgomery form, bit-reversed order.
pub static GM: [u16; 1024] = twiddles(G, 32);
/// `iGM[i] = g^-rev10(i) * 2^31 mod q`, in `[1, q]`: inverse twiddles with the per-layer halving folded in.
pub static IGM: [u16; 1024] = twiddles(pow_mod(G, 2047), 31);

const fn twiddles(root: u32, log_scale: u32) -> [u16; 1024] {
    let scale = ((1u64 << log_scale) % Q as u64) as u32;
    let mut t = [0u16; 1024];
    let mut i = 0;
    while i < 1024 {
        let v = (pow_mod(root, rev10(i) as u32) as u64 * scale as u64 % Q as u64) as u32;
        t[i] = if v == 0 { Q as u16 } else { v as u16 };
        i += 1;
    }
    t
}

/// Montgomery reduction: x / 2^32 mod q, in `[1, q]`, for 1 <= x <= 3489673216 (up to 23 summed products).
///
/// With b = -x/q mod 2^32, only the top 16 bits of b and of (b >> 16)*q are needed, and the `+1` puts the result in
/// `[1, q]` with no conditional subtraction: 16x16-bit products, as on the Cortex-M kernels.
#[inline]
pub fn mq_mred(x: u32) -> u32 {
    let b = x.wrapping_mul(Q1I);
    let c = (b >> 16) * Q;
    (c >> 16) + 1
}

/// Montgomery product x*y / 2^32 mod q for x, y in `[1, q]`.
#[inline]
pub fn mq_mmul(x: u32, y: u32) -> u32 {
    mq_mred(x * y)
}

/// x + y mod q in `[1, q]` for x, y in `[1, q]`.
#[inline]
pub fn mq_add(x: u32, y: u32) -> u32 {
    // a = q - (x + y) in [-q, q - 2]; adding q when negative gives -(x+y) mod q in [0, q-1].
    let a = Q.wrapping_sub(x + y);
    Q - a.wrapping_add(Q & (a >> 16))
}

/// x - y mod q in `[1, q]` for x, y in `[1, q]`.
#[inline]
pub fn mq_sub(x: u32, y: u32) -> u32 {
    let a = y.wrapping_sub(x);
    Q - a.wrapping_add(Q & (a >> 16))
}

/// x / 2 mod q in `[1, q]` for x in `[1, q]` (q is odd: add q to odd values first).
#[inline]
pub fn mq_half(x: u32) -> u32 {
    (x + ((x & 1).wrapping_neg() & Q)) >> 1
}

/// External `[0, q-1]` to internal `[1, q]`, in place.
pub fn ext_to_int(a: &mut [u16]) {
    for x in a {
        if *x == 0 {
            *x = Q as u16;
        }
    }
}

/// Internal `[1, q]` to external `[0, q-1]`, in place.
pub fn int_to_ext(a: &mut [u16]) {
    for x in a {
        if u32::from(*x) == Q {
            *x = 0;
        }
    }
}

/// Signed coefficients in `[-q, q]` to the internal representation.
pub fn signed_to_int(v: &[i16], d: &mut [u16]) {
    for (d, &x) in d.iter_mut().zip(v) {
        *d = (i32::from(x) + Q as i32 - 1).rem_euclid(Q as i32) as u16 + 1;
    }
}

/// An external or internal value as the centred representative in `[-(q-1)/2, (q-1)/2]`.
#[inline]
pub fn centred(x: u16) -> i32 {
    let x = i32::from(x) % Q as i32;
    if x > (Q as i32 - 1) / 2 { x - Q as i32 } else { x }
}

/// The provider of the NTT kernels: [`Reference`] here, or a model or emulated Cortex-M object code plugged in by the
/// testbench. Every slice holds exactly n = 2^logn internal-representation values.
pub trait NttKernels {
    /// Forward negacyclic NTT in place: coefficients to evaluations (order of [`ntt_root_exponent`]).
    fn ntt(&mut self, logn: u32, a: &mut [u16]);
    /// Inverse NTT in place, including the division by n.
    fn intt(&mut self, logn: u32, a: &mut [u16]);
    /// Pointwise product `a[i] <- a[i] * b[i] mod q` of two NTT-domain vectors (plain, not Montgomery, values).
    fn mul(&mut self, logn: u32, a: &mut [u16], b: &[u16]);
}

/// The plain-Rust reference kernels.
#[derive(Clone, Copy, Debug, Default)]
pub struct Reference;

fn check_len(logn: u32, a: &[u16]) {
    assert!((1..=MAX_LOGN).contains(&logn), "FN-DSA NTT: logn {logn} outside 1..=10");
    assert_eq!(a.len(), 1 << logn, "FN-DSA NTT: slice length is not 2^logn");
}

/// Cooley-Tukey, decimation in time, twiddles `GM[m + i]` at the layer with m blocks; inlined into `forward`'s two
/// compilations.
#[inline(always)]
fn forward_layers(a: &mut [u16]) {
    let mut t = a.len();
    let mut m = 1;
    while m < a.len() {
        let ht = t / 2;
        for (i, block) in a.chunks_exact_mut(t).enumerate() {
            let s = u32::from(GM[m + i]);
            let (lo, hi) = block.split_at_mut(ht);
            for (x, y) in lo.iter_mut().zip(hi) {
                let x1 = u32::from(*x);
                let x2 = mq_mmul(u32::from(*y), s);
                *x = mq_add(x1, x2) as u16;
                *y = mq_sub(x1, x2) as u16;
            }
        }
        t = ht;
        m *= 2;
    }
}

/// Gentleman-Sande, decimation in frequency; each layer halves, so n^-1 needs no final pass. Inlined into
/// `inverse`'s two compilations.
#[inline(always)]
fn inverse_layers(a: &mut [u16]) {
    let mut t = 1;
    let mut hm = a.len() / 2;
    while hm >= 1 {
        for (i, block) in a.chunks_exact_mut(2 * t).enumerate() {
            let s = u32::from(IGM[hm + i]);
            let (lo, hi) = block.split_at_mut(t);
            for (x, y) in lo.iter_mut().zip(hi) {
                let x1 = u32::from(*x);
                let x2 = u32::from(*y);
                *x = mq_half(mq_add(x1, x2)) as u16;
                *y = mq_mmul(mq_sub(x1, x2), s) as u16;
            }
        }
        t *= 2;
        hm /= 2;
    }
}

crate::with_widest_vectors! { fn forward(a: &mut [u16]) = forward_layers; }
crate::with_widest_vectors! { fn inverse(a: &mut [u16]) = inverse_layers; }

impl NttKernels for Reference {
    fn ntt(&mut self, logn: u32, a: &mut [u16]) {
        check_len(logn, a);
        forward(a);
    }

    fn intt(&mut self, logn: u32, a: &mut [u16]) {
        check_len(logn, a);
        inverse(a);
    }

    /// Two Montgomery products, the second by R^2, cancel both 2^-32 factors.
    fn mul(&mut self, logn: u32, a: &mut [u16], b: &[u16]) {
        check_len(logn, a);
        check_len(logn, b);
        for (x, &y) in a.iter_mut().zip(b) {
            *x = mq_mmul(mq_mmul(u32::from(*x), u32::from(y)), R2) as u16;
        }
    }
}

/// The exponent e such that NTT output slot `j` (for degree 2^logn) is the polynomial evaluated at g^e:
/// the odd powers of the primitive 2n-th root g^(1024/n), in bit-reversed order.
pub fn ntt_root_exponent(logn: u32, j: usize) -> u32 {
    let rev = (j as u32).reverse_bits() >> (32 - logn);
    (2 * rev + 1) << (MAX_LOGN - logn)
}

/// g^e mod q, as an external value.
pub fn root_power(e: u32) -> u32 {
    pow_mod(G, e)
}

/// The negacyclic product a*b mod (X^n + 1, q) through the kernels; inputs and output in the internal representation.
pub fn poly_mul<K: NttKernels>(kernels: &mut K, logn: u32, a: &[u16], b: &[u16]) -> Vec<u16> {
    let mut x = a.to_vec();
    let mut y = b.to_vec();
    kernels.ntt(logn, &mut x);
    kernels.ntt(logn, &mut y);
    kernels.mul(logn, &mut x, &y);
    kernels.intt(logn, &mut x);
    x
}
