//! Model of the X25519 field arithmetic kernels (`kernels/arm/x25519/fe.c`): 8 little-endian 32-bit limbs, radix
//! 2^32, any value in [0, 2^256) standing for itself mod p = 2^255 - 19. Every function takes any such value and
//! returns one congruent to the result, only partially reduced, limb for limb what the C computes: the same 32 x 32
//! -> 64-bit multiply-accumulate chains, the same folds of 2^256 = 38 (mod p), in the same order; and the ladder
//! kernels on top of them (`kernels/arm/x25519/ladder.c`).

/// Limbs of a field element.
pub const LIMBS: usize = 8;

/// A field element in the kernels' representation.
pub type Fe = [u32; LIMBS];

/// 2^256 mod p: what a carry out of the top limb is worth.
pub const FOLD: u32 = 38;

/// The ladder's small constant (A + 2) / 4 for A = 486662, as `x25519.fe.mul121666` multiplies by it.
pub const A24_PLUS_ONE: u32 = 121666;

/// v + 38 c reduced to [0, 2^256) (c < 2^26): one fold of the carry, then one more of 38 when that carries out,
/// which leaves it within the first limb.
fn fold_carry(r: &mut Fe, c: u32) {
    let mut t = u64::from(r[0]) + u64::from(FOLD) * u64::from(c);
    r[0] = t as u32;
    for limb in &mut r[1..] {
        t = u64::from(*limb) + (t >> 32);
        *limb = t as u32;
    }
    r[0] += FOLD * (t >> 32) as u32;
}

/// t mod (2^256 - 38) up to one extra multiple: t[0..8] + 38 t[8..16], the carry folded.
fn reduce_wide(t: &[u32; 2 * LIMBS]) -> Fe {
    let mut r = [0; LIMBS];
    let mut c = 0u32;
    for i in 0..LIMBS {
        let s = u64::from(t[LIMBS + i]) * u64::from(FOLD) + u64::from(t[i]) + u64::from(c);
        r[i] = s as u32;
        c = (s >> 32) as u32;
    }
    fold_carry(&mut r, c);
    r
}

/// The full 512-bit product, row by row (operand scanning), as `x25519_fe_product`.
pub fn product(a: &Fe, b: &Fe) -> [u32; 2 * LIMBS] {
    let mut t = [0u32; 2 * LIMBS];
    for i in 0..LIMBS {
        let mut c = 0u32;
        for j in 0..LIMBS {
            let s = u64::from(a[i]) * u64::from(b[j]) + u64::from(t[i + j]) + u64::from(c);
            t[i + j] = s as u32;
            c = (s >> 32) as u32;
        }
        t[i + LIMBS] = c;
    }
    t
}

pub fn mul(a: &Fe, b: &Fe) -> Fe {
    reduce_wide(&product(a, b))
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
    reduce_wide(&t)
}

pub fn add(a: &Fe, b: &Fe) -> Fe {
    let mut r = [0; LIMBS];
    let mut t = 0u64;
    for i in 0..LIMBS {
        t = u64::from(a[i]) + u64::from(b[i]) + (t >> 32);
        r[i] = t as u32;
    }
    fold_carry(&mut r, (t >> 32) as u32);
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
    fold_carry(&mut r, c);
    r
}

/// a^(2^k), k >= 1.
fn sqr_times(a: &Fe, k: u32) -> Fe {
    (1..k).fold(sqr(a), |acc, _| sqr(&acc))
}

/// a^(p-2), so 0 maps to 0: p - 2 = (2^250 - 1) 2^5 + 11, the kernel's chain of squarings and multiplications.
pub fn inv(a: &Fe) -> Fe {
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
    let x250 = mul(&sqr_times(&x200, 50), &x50);
    mul(&sqr_times(&x250, 5), &a11)
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
