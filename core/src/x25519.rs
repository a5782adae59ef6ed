//! X25519 (RFC 7748), generic over the provider of the arithmetic modulo p = 2^255 - 19.
//!
//! - [`x25519`]: the Montgomery ladder of RFC 7748 section 5, with a constant-time conditional swap;
//! - [`x25519_base`]: X25519(k, 9) through a table of multiples of the base point on the birationally equivalent
//!   twisted Edwards curve (64 windows of 4 bits, built once at first use);
//! - [`invert_pair`]: two inverses for the price of one inversion, zero-safe;
//! - [`x25519_base_and_shared`]: X25519(k, 9) and X25519(k, u) sharing one inversion (X-Wing encapsulation);
//!   [`x25519_pair_by_ladder`] the same with both by the ladder (the X-Wing-on-M85 design's encapsulation);
//! - [`signed_window_table`]: the signed-window table of the `x25519.base` kernel (86 windows of 3 bits, 4 entries).
//!
//! A provider serves the field operations and may serve larger steps whole (a ladder step, the paired inversion, a
//! whole scalar multiplication): [`FieldArithmetic`]'s provided methods compute them from the field operations.

use std::sync::OnceLock;

/// Arithmetic modulo p = 2^255 - 19. Elements may be kept in any redundant form between calls.
pub trait FieldArithmetic {
    type Element: Copy;

    /// The element of a little-endian encoding; bit 255 is ignored and values >= p are reduced (RFC 7748 section 5).
    fn decode(&self, bytes: &[u8; 32]) -> Self::Element;
    /// The canonical little-endian encoding (fully reduced).
    fn encode(&self, a: &Self::Element) -> [u8; 32];
    fn add(&self, a: &Self::Element, b: &Self::Element) -> Self::Element;
    fn sub(&self, a: &Self::Element, b: &Self::Element) -> Self::Element;
    fn mul(&self, a: &Self::Element, b: &Self::Element) -> Self::Element;
    fn sqr(&self, a: &Self::Element) -> Self::Element;
    /// Swaps `a` and `b` when `swap` is 1, leaves them when it is 0, with the same instructions either way.
    fn cswap(&self, swap: u64, a: &mut Self::Element, b: &mut Self::Element);

    /// `a * factor` for a small constant such as (A - 2) / 4 = 121665.
    fn mul_small(&self, a: &Self::Element, factor: u32) -> Self::Element {
        let mut bytes = [0; 32];
        bytes[..4].copy_from_slice(&factor.to_le_bytes());
        self.mul(a, &self.decode(&bytes))
    }

    /// The element `value` (0, 1, small constants).
    fn small(&self, value: u8) -> Self::Element {
        let mut bytes = [0; 32];
        bytes[0] = value;
        self.decode(&bytes)
    }

    /// a^(p-2), so 0 maps to 0: the addition chain 2^255 - 21 = (2^250 - 1) 2^5 + 11.
    fn invert(&self, a: &Self::Element) -> Self::Element {
        let pow2k = |x: &Self::Element, k: u32| (0..k).fold(*x, |acc, _| self.sqr(&acc));
        let a2 = self.sqr(a);
        let a9 = self.mul(&pow2k(&a2, 2), a);
        let a11 = self.mul(&a9, &a2);
        let a_5_0 = self.mul(&self.sqr(&a11), &a9); // a^(2^5 - 1)
        let a_10_0 = self.mul(&pow2k(&a_5_0, 5), &a_5_0);
        let a_20_0 = self.mul(&pow2k(&a_10_0, 10), &a_10_0);
        let a_40_0 = self.mul(&pow2k(&a_20_0, 20), &a_20_0);
        let a_50_0 = self.mul(&pow2k(&a_40_0, 10), &a_10_0);
        let a_100_0 = self.mul(&pow2k(&a_50_0, 50), &a_50_0);
        let a_200_0 = self.mul(&pow2k(&a_100_0, 100), &a_100_0);
        let a_250_0 = self.mul(&pow2k(&a_200_0, 50), &a_50_0);
        self.mul(&pow2k(&a_250_0, 5), &a11)
    }

    /// One ladder step after the swap: (x2 : z2) doubled, (x3 : z3) the sum of the two points, whose difference
    /// has u-coordinate `x1`. A provider may serve it whole.
    fn ladder_step(&self, state: &mut [Self::Element; 4], x1: &Self::Element) {
        let [x2, z2, x3, z3] = *state;
        let a = self.add(&x2, &z2);
        let aa = self.sqr(&a);
        let b = self.sub(&x2, &z2);
        let bb = self.sqr(&b);
        let e = self.sub(&aa, &bb);
        let c = self.add(&x3, &z3);
        let d = self.sub(&x3, &z3);
        let da = self.mul(&d, &a);
        let cb = self.mul(&c, &b);
        let new_x3 = self.sqr(&self.add(&da, &cb));
        let new_z3 = self.mul(x1, &self.sqr(&self.sub(&da, &cb)));
        let new_x2 = self.mul(&aa, &bb);
        let new_z2 = self.mul(&e, &self.add(&aa, &self.mul_small(&e, A24)));
        *state = [new_x2, new_z2, new_x3, new_z3];
    }

    /// (d1^-1, d2^-1), zero-safe ([`invert_pair`]). A provider may serve it whole.
    fn invert_pair(&self, d1: &Self::Element, d2: &Self::Element) -> (Self::Element, Self::Element)
    where
        Self: Sized,
    {
        invert_pair(self, d1, d2)
    }

    /// X25519(k, u) ([`x25519_by_ladder`]). A provider may serve the whole scalar multiplication.
    fn scalarmult(&self, k: &[u8; 32], u: &[u8; 32]) -> [u8; 32]
    where
        Self: Sized,
    {
        x25519_by_ladder(self, k, u)
    }

    /// X25519(k, 9) ([`x25519_base_by_table`]). A provider may serve it whole.
    fn scalarmult_base(&self, k: &[u8; 32]) -> [u8; 32]
    where
        Self: Sized,
    {
        x25519_base_by_table(self, k)
    }

    /// (X25519(k, 9), X25519(k, u)), X-Wing encapsulation's pair ([`x25519_base_and_shared`]). A provider may
    /// compute it another way.
    fn scalarmult_base_and_shared(&self, k: &[u8; 32], u: &[u8; 32]) -> ([u8; 32], [u8; 32])
    where
        Self: Sized,
    {
        x25519_base_and_shared(self, k, u)
    }
}

/// Five 51-bit limbs, 64-bit words and 128-bit products; limbs stay below 2^52 between operations.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Reference;

const MASK51: u64 = (1 << 51) - 1;

/// An element of GF(2^255 - 19) in the reference provider's radix 2^51.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Fe51([u64; 5]);

#[inline]
fn carry(mut l: [u64; 5]) -> Fe51 {
    for i in 0..4 {
        l[i + 1] += l[i] >> 51;
        l[i] &= MASK51;
    }
    l[0] += 19 * (l[4] >> 51);
    l[4] &= MASK51;
    Fe51(l)
}

/// A 64 x 64 -> 128-bit product (one multiply instruction).
#[inline]
fn m(x: u64, y: u64) -> u128 {
    u128::from(x) * u128::from(y)
}

/// Limb sums of products (each below 2^115) carried down to 51-bit limbs.
#[inline]
fn carry_wide(t: [u128; 5]) -> Fe51 {
    let mut r = [0u64; 5];
    let mut c: u128 = 0;
    for i in 0..5 {
        let v = t[i] + c;
        r[i] = (v as u64) & MASK51;
        c = v >> 51;
    }
    // Limbs below 2^52 keep c below 2^60, so r0 + 19 c fits in 64 bits; one more step leaves limb 1 below
    // 2^51 + 2^13, within the 2^52 bound.
    r[0] += 19 * (c as u64);
    r[1] += r[0] >> 51;
    r[0] &= MASK51;
    Fe51(r)
}

impl FieldArithmetic for Reference {
    type Element = Fe51;

    #[inline]
    fn decode(&self, bytes: &[u8; 32]) -> Fe51 {
        let w: [u64; 4] = std::array::from_fn(|i| u64::from_le_bytes(bytes[8 * i..8 * i + 8].try_into().unwrap()));
        Fe51([
            w[0] & MASK51,
            ((w[0] >> 51) | (w[1] << 13)) & MASK51,
            ((w[1] >> 38) | (w[2] << 26)) & MASK51,
            ((w[2] >> 25) | (w[3] << 39)) & MASK51,
            (w[3] >> 12) & MASK51,
        ])
    }

    #[inline]
    fn encode(&self, a: &Fe51) -> [u8; 32] {
        let mut l = carry(carry(a.0).0).0;
        // The value is below 2p; it is >= p exactly when adding 19 carries out of bit 255.
        let mut q = (l[0] + 19) >> 51;
        for limb in &l[1..] {
            q = (limb + q) >> 51;
        }
        l[0] += 19 * q;
        for i in 0..4 {
            l[i + 1] += l[i] >> 51;
            l[i] &= MASK51;
        }
        l[4] &= MASK51;
        let words = [
            l[0] | (l[1] << 51),
            (l[1] >> 13) | (l[2] << 38),
            (l[2] >> 26) | (l[3] << 25),
            (l[3] >> 39) | (l[4] << 12),
        ];
        let mut out = [0u8; 32];
        for (chunk, w) in out.chunks_exact_mut(8).zip(words) {
            chunk.copy_from_slice(&w.to_le_bytes());
        }
        out
    }

    #[inline]
    fn add(&self, a: &Fe51, b: &Fe51) -> Fe51 {
        carry(std::array::from_fn(|i| a.0[i] + b.0[i]))
    }

    #[inline]
    fn sub(&self, a: &Fe51, b: &Fe51) -> Fe51 {
        // Adding 2p keeps every limb non-negative.
        const TWO_P: [u64; 5] = [(1 << 52) - 38, (1 << 52) - 2, (1 << 52) - 2, (1 << 52) - 2, (1 << 52) - 2];
        carry(std::array::from_fn(|i| a.0[i] + TWO_P[i] - b.0[i]))
    }

    #[inline]
    fn mul(&self, a: &Fe51, b: &Fe51) -> Fe51 {
        let (a, b) = (a.0, b.0);
        // 2^255 = 19 mod p: limb products past the top fold back multiplied by 19 (still below 2^57).
        let b19 = b.map(|x| 19 * x);
        carry_wide([
            m(a[0], b[0]) + m(a[1], b19[4]) + m(a[2], b19[3]) + m(a[3], b19[2]) + m(a[4], b19[1]),
            m(a[0], b[1]) + m(a[1], b[0]) + m(a[2], b19[4]) + m(a[3], b19[3]) + m(a[4], b19[2]),
            m(a[0], b[2]) + m(a[1], b[1]) + m(a[2], b[0]) + m(a[3], b19[4]) + m(a[4], b19[3]),
            m(a[0], b[3]) + m(a[1], b[2]) + m(a[2], b[1]) + m(a[3], b[0]) + m(a[4], b19[4]),
            m(a[0], b[4]) + m(a[1], b[3]) + m(a[2], b[2]) + m(a[3], b[1]) + m(a[4], b[0]),
        ])
    }

    #[inline]
    fn sqr(&self, a: &Fe51) -> Fe51 {
        let a = a.0;
        let (a0_2, a1_2, a2_2, a3_2) = (2 * a[0], 2 * a[1], 2 * a[2], 2 * a[3]);
        let (a3_19, a4_19) = (19 * a[3], 19 * a[4]);
        carry_wide([
            m(a[0], a[0]) + m(a1_2, a4_19) + m(a2_2, a3_19),
            m(a0_2, a[1]) + m(a2_2, a4_19) + m(a[3], a3_19),
            m(a0_2, a[2]) + m(a[1], a[1]) + m(a3_2, a4_19),
            m(a0_2, a[3]) + m(a1_2, a[2]) + m(a[4], a4_19),
            m(a0_2, a[4]) + m(a1_2, a[3]) + m(a[2], a[2]),
        ])
    }

    #[inline]
    fn mul_small(&self, a: &Fe51, factor: u32) -> Fe51 {
        carry_wide(a.0.map(|limb| m(limb, u64::from(factor))))
    }

    #[inline]
    fn cswap(&self, swap: u64, a: &mut Fe51, b: &mut Fe51) {
        let mask = 0u64.wrapping_sub(swap);
        for (x, y) in a.0.iter_mut().zip(b.0.iter_mut()) {
            let t = mask & (*x ^ *y);
            *x ^= t;
            *y ^= t;
        }
    }
}

/// decodeScalar25519: clear bits 0, 1, 2 and 255, set bit 254.
pub fn clamp(k: &[u8; 32]) -> [u8; 32] {
    let mut k = *k;
    k[0] &= 248;
    k[31] &= 127;
    k[31] |= 64;
    k
}

/// The u-coordinate of the base point.
pub const BASE_POINT: [u8; 32] = {
    let mut u = [0; 32];
    u[0] = 9;
    u
};

/// X25519(k, u): the provider's scalar multiplication (by default [`x25519_by_ladder`]).
pub fn x25519<F: FieldArithmetic>(f: &F, k: &[u8; 32], u: &[u8; 32]) -> [u8; 32] {
    f.scalarmult(k, u)
}

/// X25519(k, 9): the provider's fixed-base multiplication (by default [`x25519_base_by_table`]); equal to
/// [`x25519`] with u = 9 for every k.
pub fn x25519_base<F: FieldArithmetic>(f: &F, k: &[u8; 32]) -> [u8; 32] {
    f.scalarmult_base(k)
}

/// X25519(k, u) by the Montgomery ladder, in the provider's field arithmetic and ladder steps.
pub fn x25519_by_ladder<F: FieldArithmetic>(f: &F, k: &[u8; 32], u: &[u8; 32]) -> [u8; 32] {
    let (x, z) = ladder(f, &clamp(k), &f.decode(u));
    f.encode(&f.mul(&x, &f.invert(&z)))
}

/// X25519(k, 9) through the fixed-base table, in the provider's field arithmetic.
pub fn x25519_base_by_table<F: FieldArithmetic>(f: &F, k: &[u8; 32]) -> [u8; 32] {
    let (x, z) = fixed_base(f, &clamp(k));
    f.encode(&f.mul(&x, &f.invert(&z)))
}

/// (X25519(k, 9), X25519(k, u)) with the two final inversions shared by the provider's paired inversion.
pub fn x25519_base_and_shared<F: FieldArithmetic>(f: &F, k: &[u8; 32], u: &[u8; 32]) -> ([u8; 32], [u8; 32]) {
    let k = clamp(k);
    let (x1, z1) = fixed_base(f, &k);
    let (x2, z2) = ladder(f, &k, &f.decode(u));
    let (inv1, inv2) = f.invert_pair(&z1, &z2);
    (f.encode(&f.mul(&x1, &inv1)), f.encode(&f.mul(&x2, &inv2)))
}

/// (X25519(k, 9), X25519(k, u)) both by the ladder, the two final inversions shared by the provider's paired
/// inversion: X-Wing encapsulation as the X-Wing-on-M85 design runs it (its fixed-base table serves key generation).
pub fn x25519_pair_by_ladder<F: FieldArithmetic>(f: &F, k: &[u8; 32], u: &[u8; 32]) -> ([u8; 32], [u8; 32]) {
    let k = clamp(k);
    let (x1, z1) = ladder(f, &k, &f.decode(&BASE_POINT));
    let (x2, z2) = ladder(f, &k, &f.decode(u));
    let (inv1, inv2) = f.invert_pair(&z1, &z2);
    (f.encode(&f.mul(&x1, &inv1)), f.encode(&f.mul(&x2, &inv2)))
}

/// 1 if `a` is zero modulo p, else 0, without a data-dependent branch.
fn is_zero<F: FieldArithmetic>(f: &F, a: &F::Element) -> u64 {
    let acc = f.encode(a).iter().fold(0u8, |acc, b| acc | b);
    u64::from(acc).wrapping_sub(1) >> 63
}

/// (d1^-1, d2^-1) with one inversion and three multiplications; a zero input gives a zero output, as a^(p-2)
/// would. Each zero di is replaced by 1 before the shared inversion so that it cannot spoil the other inverse.
pub fn invert_pair<F: FieldArithmetic>(f: &F, d1: &F::Element, d2: &F::Element) -> (F::Element, F::Element) {
    let (zero1, zero2) = (is_zero(f, d1), is_zero(f, d2));
    let (mut safe1, mut safe2) = (*d1, *d2);
    f.cswap(zero1, &mut safe1, &mut f.small(1));
    f.cswap(zero2, &mut safe2, &mut f.small(1));
    let t = f.invert(&f.mul(&safe1, &safe2));
    let mut inv1 = f.mul(&safe2, &t);
    let mut inv2 = f.mul(&safe1, &t);
    f.cswap(zero1, &mut inv1, &mut f.small(0));
    f.cswap(zero2, &mut inv2, &mut f.small(0));
    (inv1, inv2)
}

/// (A - 2) / 4 for the curve's A = 486662.
const A24: u32 = 121665;

/// The ladder of RFC 7748 section 5 on a clamped scalar: [k]u as a projective pair (X : Z).
fn ladder<F: FieldArithmetic>(f: &F, k: &[u8; 32], u: &F::Element) -> (F::Element, F::Element) {
    let x1 = *u;
    let (mut x2, mut z2, mut x3, mut z3) = (f.small(1), f.small(0), *u, f.small(1));
    let mut swap = 0u64;
    for t in (0..255).rev() {
        let bit = u64::from((k[t / 8] >> (t % 8)) & 1);
        swap ^= bit;
        f.cswap(swap, &mut x2, &mut x3);
        f.cswap(swap, &mut z2, &mut z3);
        swap = bit;
        let mut state = [x2, z2, x3, z3];
        f.ladder_step(&mut state, &x1);
        [x2, z2, x3, z3] = state;
    }
    f.cswap(swap, &mut x2, &mut x3);
    f.cswap(swap, &mut z2, &mut z3);
    (x2, z2)
}

/// One table entry: an affine Edwards point (x, y) as (y + x, y - x, 2 d x y), canonical bytes as 12 words.
type NielsWords = [u64; 12];
/// `table[i][j]` = j 16^i B for the 64 windows and the 16 digit values (j = 0 is the neutral point).
type BaseTable = [[NielsWords; 16]; 64];

/// 64 x 16 x 96 bytes = 96 KiB, built with the reference arithmetic on first use; its values are canonical bytes,
/// so every provider can read it.
fn base_table() -> &'static BaseTable {
    static TABLE: OnceLock<Box<BaseTable>> = OnceLock::new();
    TABLE.get_or_init(build_base_table)
}

/// A point of -x^2 + y^2 = 1 + d x^2 y^2 in extended coordinates: x = X/Z, y = Y/Z, x y = T/Z.
#[derive(Clone, Copy)]
struct Extended<E> {
    x: E,
    y: E,
    z: E,
    t: E,
}

/// An affine point prepared for addition.
struct Niels<E> {
    y_plus_x: E,
    y_minus_x: E,
    xy2d: E,
}

/// Extended + affine addition for a = -1 (Hisil, Wong, Carter, Dawson 2008, with Z2 = 1); complete on this curve
/// because d is not a square, so the neutral point and doublings need no special case.
fn add_niels<F: FieldArithmetic>(f: &F, p: &Extended<F::Element>, q: &Niels<F::Element>) -> Extended<F::Element> {
    let a = f.mul(&f.sub(&p.y, &p.x), &q.y_minus_x);
    let b = f.mul(&f.add(&p.y, &p.x), &q.y_plus_x);
    let c = f.mul(&p.t, &q.xy2d);
    let d = f.add(&p.z, &p.z);
    let (e, ff, g, h) = (f.sub(&b, &a), f.sub(&d, &c), f.add(&d, &c), f.add(&b, &a));
    Extended { x: f.mul(&e, &ff), y: f.mul(&g, &h), z: f.mul(&ff, &g), t: f.mul(&e, &h) }
}

fn neutral<F: FieldArithmetic>(f: &F) -> Extended<F::Element> {
    Extended { x: f.small(0), y: f.small(1), z: f.small(1), t: f.small(0) }
}

/// sum over the 64 nibbles k_i of k of [k_i 16^i] B, then u = (1 + y) / (1 - y) = (Z + Y) / (Z - Y).
fn fixed_base<F: FieldArithmetic>(f: &F, k: &[u8; 32]) -> (F::Element, F::Element) {
    let table = base_table();
    let mut acc = neutral(f);
    for (i, window) in table.iter().enumerate() {
        let digit = u64::from((k[i / 2] >> (4 * (i % 2))) & 15);
        let mut selected = [0u64; 12];
        for (j, entry) in window.iter().enumerate() {
            // All-ones when j == digit: j ^ digit is below 16, so subtracting 1 borrows only from zero.
            let mask = 0u64.wrapping_sub(((j as u64 ^ digit).wrapping_sub(1)) >> 63);
            for (s, w) in selected.iter_mut().zip(entry) {
                *s |= w & mask;
            }
        }
        let element = |part: usize| {
            let mut bytes = [0u8; 32];
            for (chunk, w) in bytes.chunks_exact_mut(8).zip(&selected[4 * part..4 * part + 4]) {
                chunk.copy_from_slice(&w.to_le_bytes());
            }
            f.decode(&bytes)
        };
        acc = add_niels(f, &acc, &Niels { y_plus_x: element(0), y_minus_x: element(1), xy2d: element(2) });
    }
    (f.add(&acc.z, &acc.y), f.sub(&acc.z, &acc.y))
}

/// Square-and-multiply by a public exponent (table construction only).
fn pow_public(f: &Reference, a: &Fe51, exponent_le: &[u8; 32]) -> Fe51 {
    let mut result = f.small(1);
    for bit in (0..256).rev() {
        result = f.sqr(&result);
        if (exponent_le[bit / 8] >> (bit % 8)) & 1 == 1 {
            result = f.mul(&result, a);
        }
    }
    result
}

/// The 32-byte little-endian encoding of 2^e - c for e in 249..=255 and small c.
fn two_power_minus(e: usize, c: u8) -> [u8; 32] {
    let mut out = [0xFF; 32];
    out[31] = (1u8 << (e - 248)) - 1;
    out[0] = 0u8.wrapping_sub(c);
    out
}

/// The base point on the twisted Edwards curve, in extended coordinates, and 2 d (the Niels form's factor).
fn edwards_base_point(f: &Reference) -> (Extended<Fe51>, Fe51) {
    let equal = |a: &Fe51, b: &Fe51| f.encode(a) == f.encode(b);
    let one = f.small(1);
    // d = -121665 / 121666 = -A24 / (A24 + 1), from the curve's Montgomery form.
    let d = f.sub(&f.small(0), &f.mul(&f.mul_small(&one, A24), &f.invert(&f.mul_small(&one, A24 + 1))));
    // The base point: u = 9 gives y = (u - 1) / (u + 1) = 4/5; x^2 = (y^2 - 1) / (d y^2 + 1). Either root would
    // do (u depends on y only, and [k](-B) = -[k]B has the same y); RFC 8032's B takes the even one.
    let y = f.mul(&f.small(4), &f.invert(&f.small(5)));
    let y2 = f.sqr(&y);
    let x2 = f.mul(&f.sub(&y2, &one), &f.invert(&f.add(&f.mul(&d, &y2), &one)));
    // p = 5 mod 8: a candidate root x2^((p+3)/8), times sqrt(-1) = 2^((p-1)/4) when its square is -x2.
    let mut x = pow_public(f, &x2, &two_power_minus(252, 2));
    if !equal(&f.sqr(&x), &x2) {
        x = f.mul(&x, &pow_public(f, &f.small(2), &two_power_minus(253, 5)));
    }
    assert!(equal(&f.sqr(&x), &x2), "the base point's x must exist");
    if f.encode(&x)[0] & 1 == 1 {
        x = f.sub(&f.small(0), &x);
    }
    (Extended { x, y, z: one, t: f.mul(&x, &y) }, f.add(&d, &d))
}

/// The affine Niels form (y + x, y - x, 2 d x y) of a point, as its three canonical encodings.
fn niels_bytes(f: &Reference, p: &Extended<Fe51>, d2: &Fe51) -> [[u8; 32]; 3] {
    let z_inv = f.invert(&p.z);
    let (x, y) = (f.mul(&p.x, &z_inv), f.mul(&p.y, &z_inv));
    [f.encode(&f.add(&y, &x)), f.encode(&f.sub(&y, &x)), f.encode(&f.mul(&f.mul(&x, &y), d2))]
}

fn niels_of_bytes(f: &Reference, bytes: &[[u8; 32]; 3]) -> Niels<Fe51> {
    Niels { y_plus_x: f.decode(&bytes[0]), y_minus_x: f.decode(&bytes[1]), xy2d: f.decode(&bytes[2]) }
}

fn build_base_table() -> Box<BaseTable> {
    let f = Reference;
    let (mut power, d2) = edwards_base_point(&f); // 16^i B
    let words_of = |n: &[[u8; 32]; 3]| -> NielsWords {
        std::array::from_fn(|w| u64::from_le_bytes(n[w / 4][8 * (w % 4)..8 * (w % 4) + 8].try_into().unwrap()))
    };
    let mut table = Box::new([[[0u64; 12]; 16]; 64]);
    for window in table.iter_mut() {
        let step = niels_of_bytes(&f, &niels_bytes(&f, &power, &d2));
        let mut multiple = neutral(&f);
        for entry in window.iter_mut() {
            *entry = words_of(&niels_bytes(&f, &multiple, &d2));
            multiple = add_niels(&f, &multiple, &step);
        }
        power = multiple;
    }
    table
}

/// Windows of the signed-window fixed-base table: 86 signed digits of 3 bits cover a clamped scalar (below 2^255)
/// and the carry out of its top digit.
pub const SIGNED_WINDOWS: usize = 86;
/// Entries per window: the multiples 1 to 4 (a digit in [-4, 4] is an entry, its sign, or the neutral point).
pub const SIGNED_ENTRIES: usize = 4;
/// Bits per signed digit.
pub const SIGNED_WINDOW_BITS: usize = 3;

/// One entry of the signed-window table: the Niels form (y + x, y - x, 2 d x y) as three canonical encodings.
pub type NielsEntry = [[u8; 32]; 3];

/// `table[i][j]` = (j + 1) 8^i B for the 86 windows and j in 0..4, in the reference arithmetic: the table of the
/// `x25519.base` kernel (86 x 4 x 96 B = 33,024 B).
pub fn signed_window_table() -> Vec<[NielsEntry; SIGNED_ENTRIES]> {
    let f = Reference;
    let (mut power, d2) = edwards_base_point(&f); // 8^i B
    (0..SIGNED_WINDOWS)
        .map(|_| {
            let step = niels_of_bytes(&f, &niels_bytes(&f, &power, &d2));
            let mut multiple = neutral(&f);
            let window = std::array::from_fn(|_| {
                multiple = add_niels(&f, &multiple, &step);
                niels_bytes(&f, &multiple, &d2)
            });
            for _ in SIGNED_ENTRIES..1 << SIGNED_WINDOW_BITS {
                multiple = add_niels(&f, &multiple, &step);
            }
            power = multiple;
            window
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn le(value: u8) -> [u8; 32] {
        let mut b = [0u8; 32];
        b[0] = value;
        b
    }

    #[test]
    fn reduction_is_canonical() {
        let f = Reference;
        // p itself and p + 1 (non-canonical encodings) reduce to 0 and 1.
        let mut p = [0xFF; 32];
        p[0] = 0xED;
        p[31] = 0x7F;
        assert_eq!(f.encode(&f.decode(&p)), [0; 32]);
        p[0] = 0xEE;
        assert_eq!(f.encode(&f.decode(&p)), le(1));
        // -1 = p - 1.
        let minus_one = f.sub(&f.small(0), &f.small(1));
        p[0] = 0xEC;
        assert_eq!(f.encode(&minus_one), p);
    }

    #[test]
    fn inversion() {
        let f = Reference;
        let a = f.decode(&[0x5A; 32]);
        assert_eq!(f.encode(&f.mul(&a, &f.invert(&a))), le(1));
        assert_eq!(f.encode(&f.invert(&f.small(0))), [0; 32]);
    }

    #[test]
    fn paired_inversion_is_zero_safe() {
        let f = Reference;
        let (a, b, zero) = (f.small(3), f.decode(&[0x33; 32]), f.small(0));
        let inverse = |x: &Fe51| f.encode(&f.invert(x));
        let bytes = |(u, v): (Fe51, Fe51)| (f.encode(&u), f.encode(&v));
        assert_eq!(bytes(invert_pair(&f, &a, &b)), (inverse(&a), inverse(&b)));
        assert_eq!(bytes(invert_pair(&f, &zero, &b)), ([0; 32], inverse(&b)));
        assert_eq!(bytes(invert_pair(&f, &a, &zero)), (inverse(&a), [0; 32]));
        assert_eq!(bytes(invert_pair(&f, &zero, &zero)), ([0; 32], [0; 32]));
    }

    #[test]
    fn table_starts_with_the_base_point() {
        // Entry [0][1] is B itself: u = (1 + y) / (1 - y) = 9 with y = ((y+x) + (y-x)) / 2.
        let f = Reference;
        let entry = &base_table()[0][1];
        let element = |part: usize| {
            let bytes: Vec<u8> = entry[4 * part..4 * part + 4].iter().flat_map(|w| w.to_le_bytes()).collect();
            f.decode(&bytes.try_into().unwrap())
        };
        let y = f.mul(&f.add(&element(0), &element(1)), &f.invert(&f.small(2)));
        let one = f.small(1);
        let u = f.mul(&f.add(&one, &y), &f.invert(&f.sub(&one, &y)));
        assert_eq!(f.encode(&u), BASE_POINT);
    }
}
