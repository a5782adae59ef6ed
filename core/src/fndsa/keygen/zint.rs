//! Big integers for the NTRU solver: base 2^31 words (31 bits used per `u32`, little-endian, two's complement with
//! bit 30 of the top word as sign when signed), or RNS residues modulo the first primes of [`super::mp31::primes`].
//!
//! Polynomials of big integers are stored word-major: word j of coefficient i sits at `j*n + i` ("stride n"), so
//! most functions take a stride.

use super::mp31::{self, SmallPrime};
use std::sync::OnceLock;

const MASK31: u32 = 0x7FFF_FFFF;

/// m <- m * x (x < 2^31, m unsigned, stride 1); returns the carry word.
pub fn mul_small(m: &mut [u32], x: u32) -> u32 {
    let mut cc = 0u32;
    for w in m.iter_mut() {
        let z = u64::from(*w) * u64::from(x) + u64::from(cc);
        *w = z as u32 & MASK31;
        cc = (z >> 31) as u32;
    }
    cc
}

/// d mod p for an unsigned d of `len` words at `stride` (plain residue).
pub fn mod_small_unsigned(d: &[u32], len: usize, stride: usize, sp: &SmallPrime) -> u32 {
    let (p, p0i) = (sp.p, sp.p0i);
    // Horner from the top word; a Montgomery product by 2^31*R multiplies by 2^31.
    let shift = mp31::half(sp.r2, p);
    let mut x = 0u32;
    for j in (0..len).rev() {
        x = mp31::mmul(x, shift, p, p0i);
        x = mp31::add(x, mp31::set_unsigned(d[j * stride], p), p);
    }
    x
}

/// d mod p for a signed d of `len` words at `stride`; `rx` = 2^(31*len) mod p ([`mp31::pow2_31e`]).
pub fn mod_small_signed(d: &[u32], len: usize, stride: usize, sp: &SmallPrime, rx: u32) -> u32 {
    if len == 0 {
        return 0;
    }
    let r = mod_small_unsigned(d, len, stride, sp);
    // A negative value was read as itself + 2^(31*len).
    let neg = (d[(len - 1) * stride] >> 30).wrapping_neg();
    mp31::sub(r, rx & neg, sp.p)
}

/// Residues modulo one prime of integers with a fixed word count: 2^(31j) mod p precomputed, so that a residue is
/// one dot product and a single reduction (the hot path of the solver).
pub struct Reducer {
    p: u32,
    pw: &'static [u64],
    rx: u32,
}

/// 2^(31j) mod p_index for j = 0..=NUM_PRIMES + 1, computed once per prime.
fn powers_of_2_31(index: usize) -> &'static [u64] {
    static TABLES: OnceLock<Vec<OnceLock<Vec<u64>>>> = OnceLock::new();
    let all = TABLES.get_or_init(|| (0..mp31::NUM_PRIMES).map(|_| OnceLock::new()).collect());
    all[index].get_or_init(|| {
        let sp = &mp31::primes()[index];
        // A Montgomery product by R2/2 (the Montgomery form of 2^31) multiplies a plain value by 2^31.
        let shift = mp31::half(sp.r2, sp.p);
        let mut x = 1u32;
        (0..mp31::NUM_PRIMES + 2)
            .map(|_| {
                let v = u64::from(x);
                x = mp31::mmul(x, shift, sp.p, sp.p0i);
                v
            })
            .collect()
    })
}

impl Reducer {
    /// For integers of `len` words modulo prime number `index`.
    pub fn new(index: usize, len: usize) -> Self {
        let all = powers_of_2_31(index);
        Self { p: mp31::primes()[index].p, pw: &all[..len], rx: all[len] as u32 }
    }

    /// d mod p, d unsigned (words at `stride`).
    #[inline]
    pub fn unsigned(&self, d: &[u32], stride: usize) -> u32 {
        // Each product is below 2^62 and there are at most 2^9 of them: no overflow in 128 bits.
        let mut acc: u128 = 0;
        for (j, &w) in self.pw.iter().enumerate() {
            acc += u128::from(u64::from(d[j * stride]) * w);
        }
        (acc % u128::from(self.p)) as u32
    }

    /// d mod p, d signed (two's complement, bit 30 of the top word is the sign).
    #[inline]
    pub fn signed(&self, d: &[u32], stride: usize) -> u32 {
        let len = self.pw.len();
        if len == 0 {
            return 0;
        }
        let r = self.unsigned(d, stride);
        let neg = (d[(len - 1) * stride] >> 30).wrapping_neg();
        mp31::sub(r, self.rx & neg, self.p)
    }
}

/// Rebuild integers from residues (Garner). `xx` holds `sets` consecutive blocks of n integers, each integer having
/// `len` words at stride n; on input word i is the residue modulo prime i, on output the integer in base 2^31,
/// in `[0, m)` or, when `signed`, in (-m/2, m/2) as two's complement, where m is the product of the `len` primes.
pub fn rebuild_crt(xx: &mut [u32], len: usize, n: usize, sets: usize, signed: bool) {
    let ps = mp31::primes();
    // modulus[0..i] = product of the first i primes, in base 2^31.
    let mut modulus = vec![0u32; len.max(1)];
    modulus[0] = ps[0].p;
    for i in 1..len {
        let sp = &ps[i];
        let red = Reducer::new(i, i);
        for set in 0..sets {
            let base = set * n * len;
            for k in 0..n {
                let x = &mut xx[base + k..];
                // x mod m_i is known in words 0..i; lift to x mod m_{i+1} = x + m_i * ((r_i - x) / m_i mod p_i).
                let r = x[i * n];
                let cur = red.unsigned(x, n);
                let t = mp31::mmul(sp.s, mp31::sub(r, cur, sp.p), sp.p, sp.p0i);
                let mut cc = 0u32;
                for (j, &mw) in modulus[..i].iter().enumerate() {
                    let z = u64::from(t) * u64::from(mw) + u64::from(x[j * n]) + u64::from(cc);
                    x[j * n] = z as u32 & MASK31;
                    cc = (z >> 31) as u32;
                }
                x[i * n] = cc;
            }
        }
        modulus[i] = mul_small(&mut modulus[..i], sp.p);
    }
    if signed {
        for set in 0..sets {
            let base = set * n * len;
            for k in 0..n {
                centre(&mut xx[base + k..], n, &modulus[..len]);
            }
        }
    }
}

/// x <- x - m if x > (m-1)/2 (x in `[0, m)`, m odd, x at stride, m at stride 1, same word count).
fn centre(x: &mut [u32], stride: usize, m: &[u32]) {
    // Compare x with floor(m/2), from the top word down.
    let mut greater = false;
    for i in (0..m.len()).rev() {
        let hm = (m[i] >> 1) | ((m.get(i + 1).copied().unwrap_or(0) & 1) << 30);
        let xw = x[i * stride];
        if xw != hm {
            greater = xw > hm;
            break;
        }
    }
    if greater {
        let mut borrow = 0u32;
        for (i, &mw) in m.iter().enumerate() {
            let z = x[i * stride].wrapping_sub(mw).wrapping_sub(borrow);
            x[i * stride] = z & MASK31;
            borrow = z >> 31;
        }
    }
}

/// x <- x + k * 2^(31*sch + scl) * y (signed, two's complement, truncated to xlen words; x and y share `stride`;
/// words of y beyond ylen are its sign). scl in 0..31.
#[allow(clippy::too_many_arguments)]
pub fn add_scaled_mul_small(
    x: &mut [u32],
    xlen: usize,
    y: &[u32],
    ylen: usize,
    stride: usize,
    k: i32,
    sch: u32,
    scl: u32,
) {
    let sch = sch as usize;
    if ylen == 0 || sch >= xlen {
        return;
    }
    let ysign = (y[(ylen - 1) * stride] >> 30).wrapping_neg() >> 1;
    let mut spill = 0u32;
    let mut cc = 0i64;
    for u in sch..xlen {
        let j = u - sch;
        let wy = if j < ylen { y[j * stride] } else { ysign };
        let shifted = ((wy << scl) & MASK31) | spill;
        spill = if scl == 0 { 0 } else { wy >> (31 - scl) };
        let z = i64::from(shifted) * i64::from(k) + i64::from(x[u * stride]) + cc;
        x[u * stride] = z as u32 & MASK31;
        cc = z >> 31;
    }
}

/// x <- x - 2^(31*sch + scl) * y (signed, truncated to xlen words, shared stride). scl in 0..31.
#[allow(clippy::too_many_arguments)]
pub fn sub_scaled(x: &mut [u32], xlen: usize, y: &[u32], ylen: usize, stride: usize, sch: u32, scl: u32) {
    let sch = sch as usize;
    if ylen == 0 || sch >= xlen {
        return;
    }
    let ysign = (y[(ylen - 1) * stride] >> 30).wrapping_neg() >> 1;
    let mut spill = 0u32;
    let mut borrow = 0u32;
    for u in sch..xlen {
        let j = u - sch;
        let wy = if j < ylen { y[j * stride] } else { ysign };
        let shifted = ((wy << scl) & MASK31) | spill;
        spill = if scl == 0 { 0 } else { wy >> (31 - scl) };
        let z = x[u * stride].wrapping_sub(shifted).wrapping_sub(borrow);
        x[u * stride] = z & MASK31;
        borrow = z >> 31;
    }
}

/// -1/m mod 2^31 for odd m (Newton iteration).
fn neg_inv31(m: u32) -> u32 {
    let mut y = m;
    for _ in 0..5 {
        y = y.wrapping_mul(2u32.wrapping_sub(m.wrapping_mul(y)));
    }
    y.wrapping_neg() & MASK31
}

/// (a*fa + b*fb) / 2^31 for unsigned a, b (same word count), exact when the low 31 bits cancel; returns the words
/// of |result| and whether it was negative. |fa| + |fb| <= 2^31.
fn combine_div31(a: &[u32], b: &[u32], fa: i64, fb: i64, out: &mut [u32]) -> bool {
    let len = a.len();
    let mut cc: i128 = 0;
    for i in 0..len {
        let z = i128::from(a[i]) * i128::from(fa) + i128::from(b[i]) * i128::from(fb) + cc;
        if i > 0 {
            out[i - 1] = z as u32 & MASK31;
        }
        cc = z >> 31;
    }
    out[len - 1] = cc as u32 & MASK31;
    let neg = cc < 0;
    if neg {
        // Two's complement negation over len words.
        let mut carry = 1u32;
        for w in out.iter_mut() {
            let z = (!*w & MASK31) + carry;
            *w = z & MASK31;
            carry = z >> 31;
        }
    }
    neg
}

/// (u*fu + v*fv) / 2^31 mod m for u, v in `[0, m)` (m odd, m0i = -1/m mod 2^31), result in `[0, m)`.
fn combine_mod(u: &[u32], v: &[u32], fu: i64, fv: i64, m: &[u32], m0i: u32, out: &mut [u32]) {
    let len = m.len();
    // Add k*m with k chosen so that the low 31 bits vanish (Montgomery division by 2^31).
    let low = (i128::from(u[0]) * i128::from(fu) + i128::from(v[0]) * i128::from(fv)) as u32;
    let k = low.wrapping_mul(m0i) & MASK31;
    let mut cc: i128 = 0;
    for i in 0..len {
        let z = i128::from(u[i]) * i128::from(fu)
            + i128::from(v[i]) * i128::from(fv)
            + i128::from(m[i]) * i128::from(k)
            + cc;
        if i > 0 {
            out[i - 1] = z as u32 & MASK31;
        }
        cc = z >> 31;
    }
    // The result lies in (-m, 2m): the top word may carry a sign or an extra bit; fix with one add or subtract.
    out[len - 1] = cc as u32 & MASK31;
    let top = cc >> 31;
    if top != 0 || !less31(out, m) {
        let add = top < 0;
        let mut carry: i64 = 0;
        for (w, &mw) in out.iter_mut().zip(m) {
            let z = i64::from(*w) + if add { i64::from(mw) } else { -i64::from(mw) } + carry;
            *w = z as u32 & MASK31;
            carry = z >> 31;
        }
    }
}

fn less31(a: &[u32], b: &[u32]) -> bool {
    for i in (0..a.len()).rev() {
        if a[i] != b[i] {
            return a[i] < b[i];
        }
    }
    false
}

/// 32 bits of an unsigned 31-bit-word integer starting at bit `pos`.
fn bits32_at(a: &[u32], pos: usize) -> u32 {
    let mut v: u64 = 0;
    let (w, s) = (pos / 31, pos % 31);
    for k in 0..3 {
        if let Some(&x) = a.get(w + k) {
            v |= u64::from(x) << (31 * k);
        }
    }
    (v >> s) as u32
}

/// Bezout coefficients for odd, coprime x and y (unsigned, same word count): u in `[0, y)`, v in `[0, x)` with
/// x*u - y*v = 1. Returns false (u, v untouched) if x or y is even or gcd(x, y) != 1. The pair is unique, so any
/// correct algorithm gives the same words.
///
/// Binary GCD 31 steps at a time (Pornin, eprint 2020/972): the steps are decided on 63-bit approximations (top 32
/// bits and low 31 bits) of a and b and applied to the full values as a 2x2 matrix, then divided by 2^31. Along
/// the way a = x*ua (mod y) = -y*va (mod x), and likewise for b; once b = 1, u = ub and v = vb.
pub fn bezout(u: &mut [u32], v: &mut [u32], x: &[u32], y: &[u32]) -> bool {
    let len = x.len();
    if len == 0 || x[0] & y[0] & 1 == 0 {
        return false;
    }
    let (mut a, mut b) = (x.to_vec(), y.to_vec());
    let mut ua = vec![0u32; len];
    ua[0] = 1;
    let mut ub = vec![0u32; len];
    let mut va = vec![0u32; len];
    let mut vb = x.to_vec();
    vb[0] -= 1;
    let (x0i, y0i) = (neg_inv31(x[0]), neg_inv31(y[0]));
    let mut t1 = vec![0u32; len];
    let mut t2 = vec![0u32; len];
    for _ in 0..2 * len + 1 {
        let top = (0..len).rev().find(|&i| a[i] | b[i] != 0);
        let Some(top) = top else { break };
        let bitlen = 31 * top + (32 - (a[top] | b[top]).leading_zeros()) as usize;
        let approx = |z: &[u32]| -> u64 {
            if bitlen <= 63 {
                u64::from(bits32_at(z, 0)) | u64::from(bits32_at(z, 32)) << 32
            } else {
                (u64::from(bits32_at(z, bitlen - 32)) << 31) | u64::from(z[0])
            }
        };
        let (mut xa, mut xb) = (approx(&a), approx(&b));
        // Row 0 builds the new a, row 1 the new b, both times 2^31.
        let (mut f0, mut g0, mut f1, mut g1) = (1i64, 0i64, 0i64, 1i64);
        for _ in 0..31 {
            if xa & 1 == 1 {
                if xa < xb {
                    std::mem::swap(&mut xa, &mut xb);
                    std::mem::swap(&mut f0, &mut f1);
                    std::mem::swap(&mut g0, &mut g1);
                }
                xa -= xb;
                f0 -= f1;
                g0 -= g1;
            }
            xa >>= 1;
            f1 <<= 1;
            g1 <<= 1;
        }
        if combine_div31(&a, &b, f0, g0, &mut t1) {
            (f0, g0) = (-f0, -g0);
        }
        if combine_div31(&a, &b, f1, g1, &mut t2) {
            (f1, g1) = (-f1, -g1);
        }
        a.copy_from_slice(&t1);
        b.copy_from_slice(&t2);
        combine_mod(&ua, &ub, f0, g0, y, y0i, &mut t1);
        combine_mod(&ua, &ub, f1, g1, y, y0i, &mut t2);
        ua.copy_from_slice(&t1);
        ub.copy_from_slice(&t2);
        combine_mod(&va, &vb, f0, g0, x, x0i, &mut t1);
        combine_mod(&va, &vb, f1, g1, x, x0i, &mut t2);
        va.copy_from_slice(&t1);
        vb.copy_from_slice(&t2);
    }
    // b holds gcd(x, y) once a has reached 0.
    if b[0] != 1 || b[1..].iter().any(|&w| w != 0) || a.iter().any(|&w| w != 0) {
        return false;
    }
    u.copy_from_slice(&ub);
    v.copy_from_slice(&vb);
    true
}
