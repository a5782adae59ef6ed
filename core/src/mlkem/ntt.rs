//! The polynomial kernels of ML-KEM (FIPS 203 sections 4.2 and 4.3) behind a provider trait, and the reference
//! provider.
//!
//! A provider may come from emulated Cortex-M kernels with their own storage order and lazy reductions, so the
//! scheme never looks at a coefficient between two calls: a polynomial is in the provider's representation from
//! [`MlkemKernels::import`] (the samplers' FIPS-order output) to the bytes of an encoding. The default methods are
//! the reference: FIPS order, any `i16` representatives accepted (reduced first), canonical outputs. A provider that
//! overrides some methods must keep its representation readable by the others it leaves to the defaults.

use super::{byte_decode, byte_encode, compress_values, decompress_values};

/// The ML-KEM modulus.
pub const Q: i16 = 3329;
/// Coefficients per polynomial.
pub const N: usize = 256;

/// One polynomial of R_q, coefficient `i` at index `i`; in the NTT domain, FIPS 203's bit-reversed order.
pub type Poly = [i16; N];

/// The polynomial operations of ML-KEM, in FIPS 203's orders and scaling by default.
pub trait MlkemKernels {
    /// Forward NTT in place (Algorithm 9).
    fn ntt(&self, poly: &mut Poly);
    /// Inverse NTT in place, including the factor 128^-1 (Algorithm 10).
    fn inv_ntt(&self, poly: &mut Poly);
    /// `out = a * b` in T_q, the 128 degree-one products of Algorithm 11.
    fn basemul(&self, out: &mut Poly, a: &Poly, b: &Poly);

    /// A sampled polynomial (FIPS order, canonical) into the provider's storage order. Default: unchanged.
    fn import(&self, _poly: &mut Poly) {}

    /// `out = a + b` (a: a product or an inverse NTT; b: a noise polynomial, its NTT or a decompressed message).
    fn add(&self, out: &mut Poly, a: &Poly, b: &Poly) {
        *out = std::array::from_fn(|i| (i32::from(a[i]) + i32::from(b[i])).rem_euclid(QI) as i16);
    }

    /// `out = a - b` (a: a decompressed v; b: an inverse NTT).
    fn sub(&self, out: &mut Poly, a: &Poly, b: &Poly) {
        *out = std::array::from_fn(|i| (i32::from(a[i]) - i32::from(b[i])).rem_euclid(QI) as i16);
    }

    /// Every coefficient to its canonical representative 0..q-1 (the storage order unchanged).
    fn reduce(&self, poly: &mut Poly) {
        *poly = canonical(poly);
    }

    /// ByteEncode_12 of a reduced polynomial into `out` (384 bytes).
    fn encode12(&self, out: &mut [u8], poly: &Poly) {
        out.copy_from_slice(&byte_encode(12, &canonical(poly)));
    }

    /// ByteDecode_12 of 384 bytes, with its reduction modulo q.
    fn decode12(&self, poly: &mut Poly, bytes: &[u8]) {
        *poly = canonical(&byte_decode(12, bytes));
    }

    /// ByteEncode_d(Compress_d(poly)) into `out` (32 d bytes).
    fn compress(&self, d: u32, out: &mut [u8], poly: &Poly) {
        out.copy_from_slice(&byte_encode(d, &compress_values(d, &canonical(poly))));
    }

    /// Decompress_d(ByteDecode_d(bytes)) of 32 d bytes.
    fn decompress(&self, d: u32, poly: &mut Poly, bytes: &[u8]) {
        *poly = decompress_values(d, &byte_decode(d, bytes));
    }

    /// `out = sum_j a_j * b_j` in T_q. Default: one base multiplication per pair, summed.
    fn dot(&self, out: &mut Poly, a: &[Poly], b: &[Poly]) {
        let mut acc = [0; N];
        let mut product = [0; N];
        for (x, y) in a.iter().zip(b) {
            self.basemul(&mut product, x, y);
            acc = std::array::from_fn(|i| (i32::from(acc[i]) + i32::from(product[i])).rem_euclid(QI) as i16);
        }
        *out = acc;
    }

    /// `out_i = sum_j a[i k + j] * v_j` in T_q, `a` row-major with k = `v.len()` columns. Default: one dot per row.
    fn matvec(&self, out: &mut [Poly], a: &[Poly], v: &[Poly]) {
        for (o, row) in out.iter_mut().zip(a.chunks_exact(v.len())) {
            self.dot(o, row, v);
        }
    }

    /// Keccak-f\[1600\] on standard lanes, for every SHA-3 and SHAKE call of the scheme (and of X-Wing on top).
    fn permute(&self, state: &mut [u64; 25]) {
        crate::keccak::keccak_f1600(state);
    }
}

/// Any representatives to 0..q-1.
pub(super) fn canonical(poly: &Poly) -> Poly {
    poly.map(|x| x.rem_euclid(Q))
}

/// The algorithms as FIPS 203 writes them, with exact reductions modulo q.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Reference;

const QI: i32 = Q as i32;
/// 128^-1 mod q, the scaling of the inverse NTT.
const INV_128: i32 = 3303;

const fn bit_reverse7(i: usize) -> usize {
    ((i as u8).reverse_bits() >> 1) as usize
}

const fn pow_mod_q(base: i32, mut exp: usize) -> i32 {
    let mut result = 1;
    let mut b = base % QI;
    while exp > 0 {
        if exp & 1 == 1 {
            result = result * b % QI;
        }
        b = b * b % QI;
        exp >>= 1;
    }
    result
}

/// zeta^BitRev7(i) for zeta = 17, the primitive 256th root of unity (FIPS 203 appendix A).
const ZETAS: [i32; 128] = {
    let mut table = [0; 128];
    let mut i = 0;
    while i < 128 {
        table[i] = pow_mod_q(17, bit_reverse7(i));
        i += 1;
    }
    table
};

/// zeta^(2 BitRev7(i) + 1), the moduli X^2 - gamma of the degree-one products.
const GAMMAS: [i32; 128] = {
    let mut table = [0; 128];
    let mut i = 0;
    while i < 128 {
        table[i] = pow_mod_q(17, 2 * bit_reverse7(i) + 1);
        i += 1;
    }
    table
};

/// Coefficients as residues 0..q-1 in 16 bits: campaigns run this reference on every case, and 16-bit lanes let the
/// compiler process eight coefficients per host vector instruction.
const QU: u16 = Q as u16;

/// `s mod q` for `s` in 0..2q: `s - q` is negative exactly when `s < q`, and then q is added back (a sign mask, no
/// division).
#[inline(always)]
fn reduce_below_2q(s: u16) -> u16 {
    let x = s.wrapping_sub(QU) as i16;
    (x + ((x >> 15) & Q)) as u16
}

/// `a + b mod q` for residues `a` and `b`.
#[inline(always)]
fn add_mod(a: u16, b: u16) -> u16 {
    reduce_below_2q(a + b)
}

/// `a - b mod q` for residues `a` and `b`.
#[inline(always)]
fn sub_mod(a: u16, b: u16) -> u16 {
    reduce_below_2q(a + QU - b)
}

/// A constant factor `w` (a residue) with `floor(w 2^16 / q)`, for Shoup's product: for any `b` below 2^16,
/// `w b - floor(b w' / 2^16) q` lies in 0..2q, so it is computed exactly in wrapping 16-bit arithmetic and one
/// conditional subtraction gives `w b mod q` (checked against the remainder for every factor and residue in the
/// tests).
#[derive(Clone, Copy)]
struct ShoupFactor {
    w: u16,
    w_shoup: u16,
}

impl ShoupFactor {
    const fn new(w: i32) -> Self {
        Self { w: w as u16, w_shoup: ((w as u32) << 16).div_euclid(Q as u32) as u16 }
    }

    #[inline(always)]
    fn times(self, b: u16) -> u16 {
        let quotient = ((u32::from(b) * u32::from(self.w_shoup)) >> 16) as u16;
        reduce_below_2q(self.w.wrapping_mul(b).wrapping_sub(quotient.wrapping_mul(QU)))
    }
}

const ZETA_FACTORS: [ShoupFactor; 128] = {
    let mut table = [ShoupFactor::new(0); 128];
    let mut i = 0;
    while i < 128 {
        table[i] = ShoupFactor::new(ZETAS[i]);
        i += 1;
    }
    table
};

const INV_128_FACTOR: ShoupFactor = ShoupFactor::new(INV_128);

#[inline(always)]
fn widen(poly: &Poly) -> [u16; N] {
    poly.map(|x| x.rem_euclid(Q) as u16)
}

#[inline(always)]
fn narrow(out: &mut Poly, residues: &[u16; N]) {
    *out = residues.map(|x| x as i16);
}

/// One layer of Algorithm 9: blocks of `2 LEN` coefficients, block `j` multiplied by zeta number `first + j`. The
/// half-length is a constant so that the compiler lays out each layer's loops for it.
#[inline(always)]
fn forward_layer<const LEN: usize>(f: &mut [u16; N], first: usize) {
    for (block, zeta) in f.chunks_exact_mut(2 * LEN).zip(&ZETA_FACTORS[first..]) {
        let (lo, hi) = block.split_at_mut(LEN);
        for (a, b) in lo.iter_mut().zip(hi) {
            let t = zeta.times(*b);
            *b = sub_mod(*a, t);
            *a = add_mod(*a, t);
        }
    }
}

/// One layer of Algorithm 10: block `j` multiplied by zeta number `last - j`.
#[inline(always)]
fn inverse_layer<const LEN: usize>(f: &mut [u16; N], last: usize) {
    for (j, block) in f.chunks_exact_mut(2 * LEN).enumerate() {
        let zeta = ZETA_FACTORS[last - j];
        let (lo, hi) = block.split_at_mut(LEN);
        for (a, b) in lo.iter_mut().zip(hi) {
            let t = *a;
            *a = add_mod(t, *b);
            *b = zeta.times(sub_mod(*b, t));
        }
    }
}

/// Algorithm 9 on residues; inlined into `ntt`'s two compilations.
#[inline(always)]
fn ntt_layers(poly: &mut Poly) {
    let mut f = widen(poly);
    // Layer by layer, len = 128 down to 2; the zetas are taken in order from zeta number 1.
    forward_layer::<128>(&mut f, 1);
    forward_layer::<64>(&mut f, 2);
    forward_layer::<32>(&mut f, 4);
    forward_layer::<16>(&mut f, 8);
    forward_layer::<8>(&mut f, 16);
    forward_layer::<4>(&mut f, 32);
    forward_layer::<2>(&mut f, 64);
    narrow(poly, &f);
}

/// Algorithm 10 on residues, then the factor 128^-1; inlined into `inv_ntt`'s two compilations.
#[inline(always)]
fn inv_ntt_layers(poly: &mut Poly) {
    let mut f = widen(poly);
    // len = 2 up to 128; the zetas are taken backwards from zeta number 127.
    inverse_layer::<2>(&mut f, 127);
    inverse_layer::<4>(&mut f, 63);
    inverse_layer::<8>(&mut f, 31);
    inverse_layer::<16>(&mut f, 15);
    inverse_layer::<32>(&mut f, 7);
    inverse_layer::<64>(&mut f, 3);
    inverse_layer::<128>(&mut f, 1);
    for x in &mut f {
        *x = INV_128_FACTOR.times(*x);
    }
    narrow(poly, &f);
}

crate::with_widest_vectors! { fn ntt(poly: &mut Poly) = ntt_layers; }
crate::with_widest_vectors! { fn inv_ntt(poly: &mut Poly) = inv_ntt_layers; }

impl MlkemKernels for Reference {
    fn ntt(&self, poly: &mut Poly) {
        ntt(poly);
    }

    fn inv_ntt(&self, poly: &mut Poly) {
        inv_ntt(poly);
    }

    fn basemul(&self, out: &mut Poly, a: &Poly, b: &Poly) {
        let (a, b) = (canonical(a), canonical(b));
        for (i, &gamma) in GAMMAS.iter().enumerate() {
            let (a0, a1) = (i32::from(a[2 * i]), i32::from(a[2 * i + 1]));
            let (b0, b1) = (i32::from(b[2 * i]), i32::from(b[2 * i + 1]));
            out[2 * i] = ((a0 * b0 + a1 * b1 % QI * gamma) % QI) as i16;
            out[2 * i + 1] = ((a0 * b1 + a1 * b0) % QI) as i16;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tables_match_fips203_appendix_a() {
        assert_eq!(&ZETAS[..4], &[1, 1729, 2580, 3289]);
        assert_eq!(&GAMMAS[..4], &[17, 3312, 2761, 568]);
        // The moduli come in pairs X^2 - gamma, X^2 + gamma.
        assert!(GAMMAS.chunks(2).all(|pair| pair[0] + pair[1] == QI));
    }

    #[test]
    fn the_conditional_subtraction_is_the_remainder() {
        for s in 0..2 * QU {
            assert_eq!(reduce_below_2q(s), s % QU, "{s}");
        }
    }

    #[test]
    fn shoup_products_are_the_remainders() {
        for w in ZETAS.iter().copied().chain([INV_128]) {
            let factor = ShoupFactor::new(w);
            for b in 0..QU {
                assert_eq!(i32::from(factor.times(b)), w * i32::from(b) % QI, "{w} * {b}");
            }
        }
    }

    /// The NTT by its definition: output pair i is f mod (X^2 - gamma_i), i.e. the even and odd coefficients each
    /// evaluated at gamma_i (FIPS 203 section 4.3).
    #[test]
    fn ntt_is_the_remainders_mod_x2_minus_gamma() {
        let f: Poly = std::array::from_fn(|i| ((i * i * 13 + 7 * i + 2) % 3329) as i16);
        let mut f_hat = f;
        Reference.ntt(&mut f_hat);
        for (i, &gamma) in GAMMAS.iter().enumerate() {
            let eval = |parity: usize| {
                (0..N / 2).rev().fold(0i64, |acc, k| (acc * i64::from(gamma) + i64::from(f[2 * k + parity])) % 3329)
            };
            assert_eq!([i64::from(f_hat[2 * i]), i64::from(f_hat[2 * i + 1])], [eval(0), eval(1)], "pair {i}");
        }
    }

    #[test]
    fn inverse_ntt_undoes_ntt() {
        let mut p: Poly = std::array::from_fn(|i| ((i * 37 + 11) % 3329) as i16);
        let original = p;
        Reference.ntt(&mut p);
        assert_ne!(p, original);
        Reference.inv_ntt(&mut p);
        assert_eq!(p, original);
    }

    #[test]
    fn basemul_is_negacyclic_convolution() {
        let a: Poly = std::array::from_fn(|i| ((i * i * 7 + 3) % 3329) as i16);
        let b: Poly = std::array::from_fn(|i| ((i * 1021 + 5) % 3329) as i16);
        let mut schoolbook = [0i64; N];
        for i in 0..N {
            for j in 0..N {
                let product = i64::from(a[i]) * i64::from(b[j]);
                if i + j < N {
                    schoolbook[i + j] += product;
                } else {
                    schoolbook[i + j - N] -= product;
                }
            }
        }
        let (mut a_hat, mut b_hat, mut c) = (a, b, [0; N]);
        Reference.ntt(&mut a_hat);
        Reference.ntt(&mut b_hat);
        Reference.basemul(&mut c, &a_hat, &b_hat);
        Reference.inv_ntt(&mut c);
        let expected: Poly = std::array::from_fn(|i| schoolbook[i].rem_euclid(3329) as i16);
        assert_eq!(c, expected);
    }
}
