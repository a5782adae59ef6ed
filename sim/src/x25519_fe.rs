//! Model of the X25519 field arithmetic kernels (`kernels/arm/x25519/fe.c`): 8 little-endian 32-bit limbs, radix
//! 2^32, any value in [0, 2^256) standing for itself mod p = 2^255 - 19. Every function takes any such value and
//! returns one congruent to the result, only partially reduced, limb for limb what the C computes: the same 32 x 32
//! -> 64-bit multiply-accumulate chains, the same folds of 2^256 = 38 (mod p), in the same order; and the ladder
//! kernels on top of them (`kernels/arm/x25519/ladder.c`): the paired inversion, the whole scalar multiplication;
//! and the fixed-base multiplication through the signed-window table (`kernels/arm/x25519/base.c`).

use std::sync::OnceLock;

use crate::coverage;

/// Limbs of a field element.
pub const LIMBS: usize = 8;

/// A field element in the kernels' representation.
pub type Fe = [u32; LIMBS];

/// 2^256 mod p: what a carry out of the top limb is worth.
pub const FOLD: u32 = 38;

/// The ladder's small constant (A + 2) / 4 for A = 486662, as `x25519.fe.mul121666` multiplies by it.
pub const A24_PLUS_ONE: u32 = 121666;

/// Bound-coverage steps of a fold of a carry c out of 2^256 (worth 38 c): the carry, and the value
/// r + 38 c - 2^256 when r + 38 c passes 2^256 again (the second fold, of 38 into the low limb).
#[derive(Debug, Clone, Copy)]
pub struct FoldSteps {
    pub carry: &'static str,
    pub second_fold: &'static str,
}

/// Bound-coverage steps of the multiplication (`crate::x25519_steps::mul`).
pub const STEP_PRODUCT_CARRIED: &str = "x25519.fe.mul/product.carried_sum";
pub const STEP_FOLD_CARRY: &str = "x25519.fe.mul/reduce.carry";
pub const STEP_SECOND_FOLD: &str = "x25519.fe.mul/reduce.second_fold";
pub(crate) const MUL_REDUCE: FoldSteps = FoldSteps { carry: STEP_FOLD_CARRY, second_fold: STEP_SECOND_FOLD };
/// The squaring's reduction (`crate::x25519_steps::sqr`).
pub const SQR_REDUCE: FoldSteps =
    FoldSteps { carry: "x25519.fe.sqr/reduce.carry", second_fold: "x25519.fe.sqr/reduce.second_fold" };
/// The addition's carry out of the sum and its fold (`crate::x25519_steps::add`).
pub const ADD_FOLD: FoldSteps = FoldSteps { carry: "x25519.fe.add/carry", second_fold: "x25519.fe.add/second_fold" };
/// The multiplication by 121666: the carry out of the chain and its fold (`crate::x25519_steps::mul121666`).
pub const MUL121666_FOLD: FoldSteps =
    FoldSteps { carry: "x25519.fe.mul121666/carry", second_fold: "x25519.fe.mul121666/second_fold" };
/// The subtraction (`crate::x25519_steps::sub`): the borrow out of a - b, and the value r (below 38) whose subtraction of 38
/// borrows again.
pub const STEP_SUB_BORROW: &str = "x25519.fe.sub/borrow";
pub const STEP_SUB_SECOND_BORROW: &str = "x25519.fe.sub/second_borrow";

/// v + 38 c reduced to [0, 2^256) (c < 2^26): one fold of the carry, then one more of 38 when that carries out,
/// which leaves it within the first limb.
fn fold_carry(r: &mut Fe, c: u32, steps: FoldSteps) {
    coverage::observe(steps.carry, i64::from(c));
    let mut t = u64::from(r[0]) + u64::from(FOLD) * u64::from(c);
    r[0] = t as u32;
    for limb in &mut r[1..] {
        t = u64::from(*limb) + (t >> 32);
        *limb = t as u32;
    }
    // A carry out leaves limbs 1..7 zero and r + 38 c - 2^256 in the low limb.
    if t >> 32 == 1 {
        coverage::observe(steps.second_fold, i64::from(r[0]));
    }
    r[0] += FOLD * (t >> 32) as u32;
}

/// t mod (2^256 - 38) up to one extra multiple: t[0..8] + 38 t[8..16], the carry folded.
fn reduce_wide(t: &[u32; 2 * LIMBS], steps: FoldSteps) -> Fe {
    let mut r = [0; LIMBS];
    let mut c = 0u32;
    for i in 0..LIMBS {
        let s = u64::from(t[LIMBS + i]) * u64::from(FOLD) + u64::from(t[i]) + u64::from(c);
        r[i] = s as u32;
        c = (s >> 32) as u32;
    }
    fold_carry(&mut r, c, steps);
    r
}

/// The full 512-bit product, row by row (operand scanning), as `x25519_fe_product`.
pub fn product(a: &Fe, b: &Fe) -> [u32; 2 * LIMBS] {
    let mut t = [0u32; 2 * LIMBS];
    let observing = coverage::enabled();
    for i in 0..LIMBS {
        let mut c = 0u32;
        for j in 0..LIMBS {
            let carried = u64::from(t[i + j]) + u64::from(c);
            if observing && carried >> 32 == 1 {
                coverage::observe(STEP_PRODUCT_CARRIED, (carried - (1 << 32)) as i64);
            }
            let s = u64::from(a[i]) * u64::from(b[j]) + u64::from(t[i + j]) + u64::from(c);
            t[i + j] = s as u32;
            c = (s >> 32) as u32;
        }
        t[i + LIMBS] = c;
    }
    t
}

pub fn mul(a: &Fe, b: &Fe) -> Fe {
    reduce_wide(&product(a, b), MUL_REDUCE)
}

/// The cross products once, doubled by a shift, plus the squares.
pub fn sqr(a: &Fe) -> Fe {
    let mut t = [0u32; 2 * LIMBS];
    for i in 0..LIMBS - 1 {
        let mut c = 0u32;
        for j in i + 1..LIMBS {
            let s = u64::from(a[i]) * u64::from(a[j]) + u64::from(t[i + j]) + u64::from(c);
            t[i + j] = s as u32;
            c = (s >> 32) as u32;
        }
        t[i + LIMBS] = c;
    }
    for i in (1..2 * LIMBS).rev() {
        t[i] = (t[i] << 1) | (t[i - 1] >> 31);
    }
    t[0] <<= 1;
    let mut c = 0u32;
    for i in 0..LIMBS {
        let square = u64::from(a[i]) * u64::from(a[i]);
        let mut s = u64::from(t[2 * i]) + (square as u32 as u64) + u64::from(c);
        t[2 * i] = s as u32;
        s = u64::from(t[2 * i + 1]) + (square >> 32) + (s >> 32);
        t[2 * i + 1] = s as u32;
        c = (s >> 32) as u32;
    }
    reduce_wide(&t, SQR_REDUCE)
}

pub fn add(a: &Fe, b: &Fe) -> Fe {
    let mut r = [0; LIMBS];
    let mut t = 0u64;
    for i in 0..LIMBS {
        t = u64::from(a[i]) + u64::from(b[i]) + (t >> 32);
        r[i] = t as u32;
    }
    fold_carry(&mut r, (t >> 32) as u32, ADD_FOLD);
    r
}

/// a - b, a borrow out of bit 256 taken back as 38, twice at most.
pub fn sub(a: &Fe, b: &Fe) -> Fe {
    let mut r = [0; LIMBS];
    let mut borrow = 0u32;
    for i in 0..LIMBS {
        let t = u64::from(a[i]).wrapping_sub(u64::from(b[i])).wrapping_sub(u64::from(borrow));
        r[i] = t as u32;
        borrow = (t >> 63) as u32;
    }
    coverage::observe(STEP_SUB_BORROW, i64::from(borrow));
    if coverage::enabled() && borrow == 1 && r[1..].iter().all(|&l| l == 0) && r[0] < FOLD {
        coverage::observe(STEP_SUB_SECOND_BORROW, i64::from(r[0]));
    }
    let mut subtrahend = FOLD * borrow;
    for limb in &mut r {
        let t = u64::from(*limb).wrapping_sub(u64::from(subtrahend));
        *limb = t as u32;
        subtrahend = (t >> 63) as u32;
    }
    r[0] = r[0].wrapping_sub(FOLD * subtrahend);
    r
}

pub fn mul121666(a: &Fe) -> Fe {
    let mut r = [0; LIMBS];
    let mut c = 0u32;
    for i in 0..LIMBS {
        let s = u64::from(a[i]) * u64::from(A24_PLUS_ONE) + u64::from(c);
        r[i] = s as u32;
        c = (s >> 32) as u32;
    }
    fold_carry(&mut r, c, MUL121666_FOLD);
    r
}

/// a^(2^k), k >= 1.
fn sqr_times(a: &Fe, k: u32) -> Fe {
    (1..k).fold(sqr(a), |acc, _| sqr(&acc))
}

/// a^(2^250 - 1) and a^11, the kernel's common head of the inversion and of `pow22523`.
fn pow_2_250_minus_1(a: &Fe) -> (Fe, Fe) {
    let a2 = sqr(a);
    let a9 = mul(&sqr_times(&a2, 2), a);
    let a11 = mul(&a9, &a2);
    let x5 = mul(&sqr(&a11), &a9);
    let x10 = mul(&sqr_times(&x5, 5), &x5);
    let x20 = mul(&sqr_times(&x10, 10), &x10);
    let x40 = mul(&sqr_times(&x20, 20), &x20);
    let x50 = mul(&sqr_times(&x40, 10), &x10);
    let x100 = mul(&sqr_times(&x50, 50), &x50);
    let x200 = mul(&sqr_times(&x100, 100), &x100);
    (mul(&sqr_times(&x200, 50), &x50), a11)
}

/// a^(p-2), so 0 maps to 0: p - 2 = (2^250 - 1) 2^5 + 11, the kernel's chain of squarings and multiplications.
pub fn inv(a: &Fe) -> Fe {
    let (x250, a11) = pow_2_250_minus_1(a);
    mul(&sqr_times(&x250, 5), &a11)
}

/// a^((p-5)/8) = a^((2^250 - 1) 4 + 1), as `x25519_fe_pow22523`.
pub fn pow22523(a: &Fe) -> Fe {
    let (x250, _) = pow_2_250_minus_1(a);
    mul(&sqr_times(&x250, 2), a)
}

/// p = 2^255 - 19 in limbs.
pub const P: Fe = [0xFFFF_FFED, u32::MAX, u32::MAX, u32::MAX, u32::MAX, u32::MAX, u32::MAX, 0x7FFF_FFFF];

/// The residue in [0, p-1]: p subtracted twice where it fits, as `x25519_fe_canonical`.
pub fn canonical(a: &Fe) -> Fe {
    let mut r = *a;
    for _ in 0..2 {
        let mut d = [0u32; LIMBS];
        let mut borrow = 0u32;
        for i in 0..LIMBS {
            let t = u64::from(r[i]).wrapping_sub(u64::from(P[i])).wrapping_sub(u64::from(borrow));
            d[i] = t as u32;
            borrow = (t >> 63) as u32;
        }
        let keep = 0u32.wrapping_sub(borrow);
        for i in 0..LIMBS {
            r[i] = (r[i] & keep) | (d[i] & !keep);
        }
    }
    r
}

/// All ones when `a` is 0 mod p.
fn zero_mask(a: &Fe) -> u32 {
    let acc = canonical(a).iter().fold(0, |acc, l| acc | l);
    0u32.wrapping_sub(((u64::from(acc)).wrapping_sub(1) >> 63) as u32)
}

/// The zero-safe paired inversion, as `x25519_inv2`: (a^-1, b^-1), 0 for 0.
pub fn inv2(a: &Fe, b: &Fe) -> (Fe, Fe) {
    let (zero_a, zero_b) = (zero_mask(a), zero_mask(b));
    let mut safe_a = a.map(|l| l & !zero_a);
    let mut safe_b = b.map(|l| l & !zero_b);
    safe_a[0] |= zero_a & 1;
    safe_b[0] |= zero_b & 1;
    let t = inv(&mul(&safe_a, &safe_b));
    let (u1, u2) = (mul(&safe_b, &t), mul(&safe_a, &t));
    (u1.map(|l| l & !zero_a), u2.map(|l| l & !zero_b))
}

/// Little-endian bytes to limbs.
pub fn from_bytes(b: &[u8; 32]) -> Fe {
    std::array::from_fn(|i| u32::from_le_bytes(b[4 * i..4 * i + 4].try_into().unwrap()))
}

fn to_bytes(a: &Fe) -> [u8; 32] {
    let mut out = [0u8; 32];
    for (chunk, l) in out.chunks_exact_mut(4).zip(a) {
        chunk.copy_from_slice(&l.to_le_bytes());
    }
    out
}

/// x z^-1 canonical, as `x25519_fe_encode_ratio`.
fn encode_ratio(x: &Fe, z: &Fe) -> [u8; 32] {
    to_bytes(&canonical(&mul(x, &inv(z))))
}

fn clamp(k: &[u8; 32]) -> [u8; 32] {
    let mut e = *k;
    e[0] &= 248;
    e[31] = (e[31] & 127) | 64;
    e
}

/// X25519(k, u), as `x25519_scalarmult`: the ladder of `cswap` and `ladder_step` from bit 254 down.
pub fn scalarmult(k: &[u8; 32], u: &[u8; 32]) -> [u8; 32] {
    let e = clamp(k);
    let mut x1 = from_bytes(u);
    x1[LIMBS - 1] &= 0x7FFF_FFFF;
    let one = std::array::from_fn(|i| u32::from(i == 0));
    let mut state = [one, [0; LIMBS], x1, one];
    let mut swap = 0;
    for t in (0..255).rev() {
        let bit = u32::from((e[t >> 3] >> (t & 7)) & 1);
        swap ^= bit;
        let [x2, z2, x3, z3] = &mut state;
        cswap(x2, x3, swap);
        cswap(z2, z3, swap);
        swap = bit;
        ladder_step(&mut state, &x1);
    }
    let [x2, z2, x3, z3] = &mut state;
    cswap(x2, x3, swap);
    cswap(z2, z3, swap);
    encode_ratio(x2, z2)
}

/// Words of a table entry: (y + x, y - x, 2 d x y), 8 limbs each.
pub const NIELS_WORDS: usize = 3 * LIMBS;

/// The signed-window fixed base (`base.c`): digits of [`SIGNED_WINDOW_BITS`] bits in [-4, 4], one window per digit
/// of a 255-bit scalar, and the multiples 1 to 4 of each window's power of 8 in the table.
pub const SIGNED_WINDOW_BITS: usize = 3;
pub const SIGNED_WINDOWS: usize = 86;
pub const SIGNED_ENTRIES: usize = 4;

/// A small constant as a field element.
fn small(v: u32) -> Fe {
    std::array::from_fn(|i| if i == 0 { v } else { 0 })
}

/// a^e for e given as little-endian limbs, by square and multiply.
fn pow(a: &Fe, e: &Fe) -> Fe {
    (0..256).rev().fold(small(1), |acc, bit| {
        let acc = sqr(&acc);
        if e[bit / 32] >> (bit % 32) & 1 == 1 { mul(&acc, a) } else { acc }
    })
}

/// A point (x, y) of the twisted Edwards curve -x^2 + y^2 = 1 + d x^2 y^2 birationally equivalent to Curve25519.
type Affine = (Fe, Fe);

/// d = -121665 / 121666.
fn edwards_d() -> Fe {
    mul(&sub(&[0; LIMBS], &small(121_665)), &inv(&small(121_666)))
}

/// The base point B of RFC 7748 on the Edwards curve: y = 4/5, x the even square root of (y^2 - 1) / (d y^2 + 1).
fn edwards_base(d: &Fe) -> Affine {
    let y = mul(&small(4), &inv(&small(5)));
    let y2 = sqr(&y);
    let w = mul(&sub(&y2, &small(1)), &inv(&add(&mul(d, &y2), &small(1))));
    // A root of w is w^((p+3)/8), or that times sqrt(-1) = 2^((p-1)/4) (p = 5 mod 8).
    let mut x = mul(&w, &pow22523(&w));
    if canonical(&sqr(&x)) != canonical(&w) {
        let mut quarter = P;
        quarter[0] -= 1;
        let quarter: Fe = std::array::from_fn(|i| quarter[i] >> 2 | quarter.get(i + 1).map_or(0, |h| h << 30));
        x = mul(&x, &pow(&small(2), &quarter));
    }
    assert_eq!(canonical(&sqr(&x)), canonical(&w), "y = 4/5 is on the curve");
    let x = canonical(&x);
    (if x[0] & 1 == 1 { canonical(&sub(&[0; LIMBS], &x)) } else { x }, canonical(&y))
}

/// P + Q by the complete addition law of the curve (a = -1, d not a square).
fn edwards_add(d: &Fe, p: &Affine, q: &Affine) -> Affine {
    let ((x1, y1), (x2, y2)) = (p, q);
    let t = mul(d, &mul(&mul(x1, x2), &mul(y1, y2)));
    let x = mul(&add(&mul(x1, y2), &mul(y1, x2)), &inv(&add(&small(1), &t)));
    let y = mul(&add(&mul(y1, y2), &mul(x1, x2)), &inv(&sub(&small(1), &t)));
    (canonical(&x), canonical(&y))
}

/// The `x25519.base` table (`kernels/arm/x25519/base_table.c`) in limbs: `[window][j]` = (j + 1) 8^window B as
/// (y + x, y - x, 2 d x y), each canonical; computed with this module's field arithmetic.
pub fn base_table() -> &'static [[[u32; NIELS_WORDS]; SIGNED_ENTRIES]] {
    static TABLE: OnceLock<Vec<[[u32; NIELS_WORDS]; SIGNED_ENTRIES]>> = OnceLock::new();
    TABLE.get_or_init(|| {
        let d = edwards_d();
        let d2 = add(&d, &d);
        let niels = |(x, y): &Affine| -> [u32; NIELS_WORDS] {
            let parts = [add(y, x), sub(y, x), mul(&d2, &mul(x, y))].map(|v| canonical(&v));
            std::array::from_fn(|w| parts[w / LIMBS][w % LIMBS])
        };
        let mut power = edwards_base(&d);
        (0..SIGNED_WINDOWS)
            .map(|_| {
                let mut multiples = vec![power];
                while multiples.len() < 1 << SIGNED_WINDOW_BITS {
                    multiples.push(edwards_add(&d, &multiples[multiples.len() - 1], &power));
                }
                power = multiples[multiples.len() - 1];
                std::array::from_fn(|j| niels(&multiples[j]))
            })
            .collect()
    })
}

/// The clamped scalar's 86 signed digits of radix 8, as `recode` in base.c.
fn recode(e: &[u8; 32]) -> [i32; SIGNED_WINDOWS] {
    let mut carry = 0i32;
    std::array::from_fn(|i| {
        let bit = SIGNED_WINDOW_BITS * i;
        let mut w = u32::from(e[bit >> 3]);
        if (bit >> 3) + 1 < 32 {
            w |= u32::from(e[(bit >> 3) + 1]) << 8;
        }
        let v = ((w >> (bit & 7)) & 7) as i32 + carry;
        carry = (v + 4) >> 3;
        v - (carry << 3)
    })
}

/// p + (y + x, y - x, 2 d x y), as `add_niels` in base.c.
fn add_niels(p: &mut [Fe; 4], yp: &Fe, ym: &Fe, t2d: &Fe) {
    let [x, y, z, t] = *p;
    let a = mul(&sub(&y, &x), ym);
    let b = mul(&add(&y, &x), yp);
    let c = mul(&t, t2d);
    let d = add(&z, &z);
    let (e, f, g, h) = (sub(&b, &a), sub(&d, &c), add(&d, &c), add(&b, &a));
    *p = [mul(&e, &f), mul(&g, &h), mul(&f, &g), mul(&e, &h)];
}

/// X25519(k, 9) through the signed-window table, as `x25519_base` (and `x25519_base_b8`, which computes the same
/// values through other addresses).
pub fn base(k: &[u8; 32]) -> [u8; 32] {
    let digits = recode(&clamp(k));
    let one: Fe = std::array::from_fn(|i| u32::from(i == 0));
    let mut p = [[0; LIMBS], one, one, [0; LIMBS]];
    for (window, &digit) in base_table().iter().zip(&digits) {
        let negative = (digit as u32) >> 31;
        let magnitude = ((digit as u32) ^ 0u32.wrapping_sub(negative)).wrapping_add(negative);
        let mut entry = [0u32; NIELS_WORDS];
        entry[0] = 1;
        entry[LIMBS] = 1;
        for (j, candidate) in window.iter().enumerate() {
            let mask = 0u32.wrapping_sub(((j as u32 + 1) ^ magnitude).wrapping_sub(1) >> 31);
            for (w, c) in entry.iter_mut().zip(candidate) {
                *w = (*w & !mask) | (c & mask);
            }
        }
        let part = |k: usize| -> Fe { entry[k * LIMBS..(k + 1) * LIMBS].try_into().unwrap() };
        let (mut yp, mut ym, mut t2d) = (part(0), part(1), part(2));
        let mut negated = sub(&[0; LIMBS], &t2d);
        cswap(&mut yp, &mut ym, negative);
        cswap(&mut t2d, &mut negated, negative);
        add_niels(&mut p, &yp, &ym, &t2d);
    }
    let [_, y, z, _] = p;
    encode_ratio(&add(&z, &y), &sub(&z, &y))
}

/// Swaps `a` and `b` when `swap` is 1 (swap in {0, 1}), through an all-ones or all-zeros mask, as `x25519_cswap`.
pub fn cswap(a: &mut Fe, b: &mut Fe, swap: u32) {
    let mask = 0u32.wrapping_sub(swap);
    for (x, y) in a.iter_mut().zip(b.iter_mut()) {
        let t = mask & (*x ^ *y);
        *x ^= t;
        *y ^= t;
    }
}

/// One ladder step on (x2, z2, x3, z3) after the swap, as `x25519_ladder_step`: z2 = E (BB + 121666 E).
pub fn ladder_step(state: &mut [Fe; 4], x1: &Fe) {
    let [x2, z2, x3, z3] = *state;
    let a = add(&x2, &z2);
    let aa = sqr(&a);
    let b = sub(&x2, &z2);
    let bb = sqr(&b);
    let e = sub(&aa, &bb);
    let c = add(&x3, &z3);
    let d = sub(&x3, &z3);
    let da = mul(&d, &a);
    let cb = mul(&c, &b);
    let new_x3 = sqr(&add(&da, &cb));
    let new_z3 = mul(x1, &sqr(&sub(&da, &cb)));
    let new_x2 = mul(&aa, &bb);
    let new_z2 = mul(&e, &add(&bb, &mul121666(&e)));
    *state = [new_x2, new_z2, new_x3, new_z3];
}

#[cfg(test)]
mod tests {
    use super::*;

    /// 86 windows x 4 entries x 96 bytes: the design's 33,024 B.
    #[test]
    fn the_base_table_is_33024_bytes() {
        assert_eq!(std::mem::size_of_val(base_table()), 33_024);
    }
}
