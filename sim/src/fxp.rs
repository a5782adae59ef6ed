//! The 32.32 fixed-point arithmetic of FN-DSA key generation's FFT as the portable kernels compute it (the
//! products from 32 x 32 -> 64-bit partial products, as C without a 128-bit type), and the FFT's twiddles: what
//! the baseline models (`crate::fxp_fft::scalar`) and the corner searches (`crate::corner_search`) share.

use std::sync::OnceLock;

/// Entries of the twiddle table.
pub const ROOTS: usize = 1024;

/// The twiddles: entry k is exp(i pi rev10(k) / 1024) in 32.32, rounded to nearest, as (re, im); rev10 is the
/// 10-bit bit reversal.
pub fn roots() -> &'static [(u64, u64); ROOTS] {
    static TABLE: OnceLock<[(u64, u64); ROOTS]> = OnceLock::new();
    TABLE.get_or_init(|| {
        std::array::from_fn(|k| {
            let (c, s) = crate::trig::cos_sin_pi_1024(((k as u32).reverse_bits() >> 22) as usize);
            (crate::trig::round_q32(c), crate::trig::round_q32(s))
        })
    })
}

/// floor(a b / 2^32) mod 2^64 from the partial products ah bh, ah bl, al bh and al bl.
pub fn mul(a: u64, b: u64) -> u64 {
    let (al, bl) = (a as u32, b as u32);
    let (ah, bh) = ((a >> 32) as i32, (b >> 32) as i32);
    let low = u64::from(al) * u64::from(bl);
    let cross_a = i64::from(ah) * i64::from(bl);
    let cross_b = i64::from(bh) * i64::from(al);
    let top = (ah as u32).wrapping_mul(bh as u32);
    (u64::from(top) << 32).wrapping_add(cross_a as u64).wrapping_add(cross_b as u64).wrapping_add(low >> 32)
}

/// The halving (x + 1) >> 1 on the signed value, the addition wrapping first.
pub fn half(x: u64) -> u64 {
    (x.wrapping_add(1) as i64 >> 1) as u64
}

/// The complex product with three real products: (ac - bd, (a + b)(c + d) - (ac + bd)).
pub fn cmul(a: u64, b: u64, c: u64, d: u64) -> (u64, u64) {
    let (z0, z1, z2) = (mul(a, c), mul(b, d), mul(a.wrapping_add(b), c.wrapping_add(d)));
    (z0.wrapping_sub(z1), z2.wrapping_sub(z0.wrapping_add(z1)))
}
