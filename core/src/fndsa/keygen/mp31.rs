//! Arithmetic modulo 31-bit primes p = 1 mod 2048 (Montgomery form with R = 2^32) and the negacyclic NTT mod p.
//!
//! Values are kept fully reduced in `[0, p)`. Every function here computes a mathematically defined residue, so the
//! particular primitive root chosen for each prime does not change any result of key generation (NTT values are
//! only ever multiplied pointwise and transformed back).

use std::sync::OnceLock;

/// One small prime with its Montgomery constants.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SmallPrime {
    pub p: u32,
    /// -1/p mod 2^32.
    pub p0i: u32,
    /// 2^64 mod p (Montgomery form of R).
    pub r2: u32,
    /// A primitive 2048th root of 1 mod p, Montgomery form.
    pub g: u32,
    /// 1/g, Montgomery form.
    pub ig: u32,
    /// 1 / (product of the previous primes) mod p, Montgomery form (the Garner coefficient for the CRT).
    pub s: u32,
}

/// How many primes key generation can use (the largest unreduced F at logn 10 needs 308 words).
pub const NUM_PRIMES: usize = 308;

const fn pow_mod(b: u64, mut e: u64, m: u64) -> u64 {
    let mut r = 1u64;
    let mut b = b % m;
    while e > 0 {
        if e & 1 == 1 {
            r = r * b % m;
        }
        b = b * b % m;
        e >>= 1;
    }
    r
}

/// Deterministic Miller-Rabin for 32-bit integers (bases 2, 7 and 61 suffice below 4759123141).
pub fn is_prime_u32(n: u32) -> bool {
    if n < 2 {
        return false;
    }
    for sp in [2u32, 3, 5, 7, 11, 13, 61] {
        if n.is_multiple_of(sp) {
            return n == sp;
        }
    }
    let n64 = u64::from(n);
    let s = (n - 1).trailing_zeros();
    let d = u64::from((n - 1) >> s);
    'bases: for a in [2u64, 7, 61] {
        let mut x = pow_mod(a, d, n64);
        if x == 1 || x == n64 - 1 {
            continue;
        }
        for _ in 1..s {
            x = x * x % n64;
            if x == n64 - 1 {
                continue 'bases;
            }
        }
        return false;
    }
    true
}

/// The primes below 2^31 that are 1 mod 2048, largest first, with their constants (computed on first use).
pub fn primes() -> &'static [SmallPrime] {
    static TABLE: OnceLock<Vec<SmallPrime>> = OnceLock::new();
    TABLE.get_or_init(|| {
        let mut out: Vec<SmallPrime> = Vec::with_capacity(NUM_PRIMES);
        let mut p = (1u32 << 31) + 1;
        // Product of the previous primes modulo the current one is recomputed per prime (cheap at this size).
        while out.len() < NUM_PRIMES {
            p -= 2048;
            if !is_prime_u32(p) {
                continue;
            }
            let p64 = u64::from(p);
            let r = (1u64 << 32) % p64;
            let r2 = ((1u128 << 64) % u128::from(p)) as u64;
            // Newton iteration for 1/p mod 2^32, then negate.
            let mut inv = p;
            for _ in 0..5 {
                inv = inv.wrapping_mul(2u32.wrapping_sub(p.wrapping_mul(inv)));
            }
            let p0i = inv.wrapping_neg();
            // Primitive 2048th root: c^((p-1)/2048) for the first c giving an element of order exactly 2048.
            let mut c = 2u64;
            let g = loop {
                let x = pow_mod(c, (p64 - 1) / 2048, p64);
                if pow_mod(x, 1024, p64) == p64 - 1 {
                    break x;
                }
                c += 1;
            };
            let ig = pow_mod(g, p64 - 2, p64);
            let prod = out.iter().fold(1u64, |acc, q| acc * u64::from(q.p) % p64);
            let s = pow_mod(prod, p64 - 2, p64);
            out.push(SmallPrime {
                p,
                p0i,
                r2: r2 as u32,
                g: (g * r % p64) as u32,
                ig: (ig * r % p64) as u32,
                s: (s * r % p64) as u32,
            });
        }
        out
    })
}

/// All ones if x as i32 is negative, else zero.
#[inline]
pub fn sign_mask(x: u32) -> u32 {
    ((x as i32) >> 31) as u32
}

/// Signed v in (-p, p) to `[0, p)`.
#[inline]
pub fn set_signed(v: i32, p: u32) -> u32 {
    let w = v as u32;
    w.wrapping_add(p & sign_mask(w))
}

/// Unsigned v in `[0, 2p)` to `[0, p)`.
#[inline]
pub fn set_unsigned(v: u32, p: u32) -> u32 {
    let w = v.wrapping_sub(p);
    w.wrapping_add(p & sign_mask(w))
}

/// `[0, p)` to the centred signed value in (-p/2, p/2].
#[inline]
pub fn norm(x: u32, p: u32) -> i32 {
    if x > p / 2 { x.wrapping_sub(p) as i32 } else { x as i32 }
}

#[inline]
pub fn add(a: u32, b: u32, p: u32) -> u32 {
    let d = a.wrapping_add(b).wrapping_sub(p);
    d.wrapping_add(p & sign_mask(d))
}

#[inline]
pub fn sub(a: u32, b: u32, p: u32) -> u32 {
    let d = a.wrapping_sub(b);
    d.wrapping_add(p & sign_mask(d))
}

/// a / 2 mod p.
#[inline]
pub fn half(a: u32, p: u32) -> u32 {
    a.wrapping_add(p & (a & 1).wrapping_neg()) >> 1
}

/// Montgomery product a*b / 2^32 mod p.
#[inline]
pub fn mmul(a: u32, b: u32, p: u32, p0i: u32) -> u32 {
    let z = u64::from(a) * u64::from(b);
    let w = (z as u32).wrapping_mul(p0i);
    let d = ((z + u64::from(w) * u64::from(p)) >> 32) as u32;
    set_unsigned(d, p)
}

/// R mod p (Montgomery 1).
#[inline]
pub fn mont_one(p: u32) -> u32 {
    p.wrapping_neg() << 1
}

/// R/2 mod p.
#[inline]
pub fn mont_half(p: u32) -> u32 {
    0x8000_0000 - p
}

/// 2^(31*e) mod p (plain value, not Montgomery).
pub fn pow2_31e(e: u32, sp: &SmallPrime) -> u32 {
    // R2/2 is the Montgomery form of 2^31: each Montgomery product by it multiplies a plain value by 2^31.
    let x = half(sp.r2, sp.p);
    let mut acc = 1;
    for _ in 0..e {
        acc = mmul(acc, x, sp.p, sp.p0i);
    }
    acc
}

/// x / y mod p, or 0 when y = 0 (Fermat: y^(p-2)).
pub fn div(x: u32, y: u32, sp: &SmallPrime) -> u32 {
    let (p, p0i) = (sp.p, sp.p0i);
    // Work in Montgomery form: ym = y*R.
    let ym = mmul(y, sp.r2, p, p0i);
    let mut acc = mont_one(p);
    let mut e = p - 2;
    let mut b = ym;
    while e > 0 {
        if e & 1 == 1 {
            acc = mmul(acc, b, p, p0i);
        }
        b = mmul(b, b, p, p0i);
        e >>= 1;
    }
    // acc = y^-1 * R; one Montgomery product with x gives x/y.
    mmul(acc, x, p, p0i)
}

fn rev(i: usize, logn: u32) -> usize {
    if logn == 0 { 0 } else { ((i as u32).reverse_bits() >> (32 - logn)) as usize }
}

/// Forward twiddles for degree 2^logn: gm[rev(i)] = w^i (Montgomery), w a primitive 2^(logn+1)-th root.
pub fn make_gm(logn: u32, sp: &SmallPrime) -> Vec<u32> {
    let (p, p0i) = (sp.p, sp.p0i);
    let mut w = sp.g;
    for _ in logn..10 {
        w = mmul(w, w, p, p0i);
    }
    let mut gm = vec![0u32; 1 << logn];
    let mut x = mont_one(p);
    for i in 0..1usize << logn {
        gm[rev(i, logn)] = x;
        x = mmul(x, w, p, p0i);
    }
    gm
}

/// Inverse twiddles: igm[rev(i)] = w^-i / 2 (Montgomery), the halving of each inverse layer folded in.
pub fn make_igm(logn: u32, sp: &SmallPrime) -> Vec<u32> {
    let (p, p0i) = (sp.p, sp.p0i);
    let mut w = sp.ig;
    for _ in logn..10 {
        w = mmul(w, w, p, p0i);
    }
    let mut igm = vec![0u32; 1 << logn];
    let mut x = mont_half(p);
    for i in 0..1usize << logn {
        igm[rev(i, logn)] = x;
        x = mmul(x, w, p, p0i);
    }
    igm
}

/// The degree-1024 forward and inverse twiddles of prime `index`, computed once. Entry j of the degree-n table is
/// entry j of the degree-1024 one for every n (w_2n = w_2048^(1024/n) and rev_logn(i) = rev10(i * 1024/n)), so
/// these serve every degree.
pub fn twiddles(index: usize) -> (&'static [u32], &'static [u32]) {
    type Pair = (Vec<u32>, Vec<u32>);
    static TABLES: OnceLock<Vec<OnceLock<Pair>>> = OnceLock::new();
    let all = TABLES.get_or_init(|| (0..NUM_PRIMES).map(|_| OnceLock::new()).collect());
    let (gm, igm) = all[index].get_or_init(|| {
        let sp = &primes()[index];
        (make_gm(10, sp), make_igm(10, sp))
    });
    (gm, igm)
}

/// Negacyclic NTT in place (Cooley-Tukey); `gm` from [`make_gm`] for this degree or any larger one.
pub fn ntt(logn: u32, a: &mut [u32], gm: &[u32], sp: &SmallPrime) {
    let (p, p0i) = (sp.p, sp.p0i);
    let mut t = 1usize << logn;
    for lm in 0..logn {
        let m = 1usize << lm;
        let ht = t / 2;
        for i in 0..m {
            let s = gm[m + i];
            let base = i * t;
            for j in base..base + ht {
                let x1 = a[j];
                let x2 = mmul(a[j + ht], s, p, p0i);
                a[j] = add(x1, x2, p);
                a[j + ht] = sub(x1, x2, p);
            }
        }
        t = ht;
    }
}

/// Inverse NTT in place (Gentleman-Sande), including the division by the degree.
pub fn intt(logn: u32, a: &mut [u32], igm: &[u32], sp: &SmallPrime) {
    let (p, p0i) = (sp.p, sp.p0i);
    let mut t = 1usize;
    for lm in 0..logn {
        let hm = 1usize << (logn - 1 - lm);
        for i in 0..hm {
            let s = igm[hm + i];
            let base = 2 * i * t;
            for j in base..base + t {
                let (x1, x2) = (a[j], a[j + t]);
                a[j] = half(add(x1, x2, p), p);
                a[j + t] = mmul(sub(x1, x2, p), s, p, p0i);
            }
        }
        t *= 2;
    }
}
