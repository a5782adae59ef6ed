//! The small primes of FN-DSA key generation's NTRU solver, from first principles: the primes p = 1 mod 2048 below
//! 2^31, largest first, each with its Montgomery constants (R = 2^32). The C solver (`kernels/arm/fndsa_keygen/
//! keygen.c`) reads them as a table ([`crate::tables`] renders `keygen_primes.c`).

/// How many primes the solver uses (the unreduced F at logn 10 has 308 words).
pub const COUNT: usize = 308;

/// One prime and its constants, as the C table holds them.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SmallPrime {
    pub p: u32,
    /// -1/p mod 2^32.
    pub p0i: u32,
    /// 2^64 mod p.
    pub r2: u32,
    /// c^((p-1)/2048) for the smallest c >= 2 for which it has order 2048, Montgomery form.
    pub g: u32,
    /// 1/g, Montgomery form.
    pub ig: u32,
    /// 1 / (product of the larger primes) mod p, Montgomery form.
    pub s: u32,
}

fn pow_mod(base: u64, mut e: u64, m: u64) -> u64 {
    let (mut r, mut b) = (1u64, base % m);
    while e > 0 {
        if e & 1 == 1 {
            r = r * b % m;
        }
        b = b * b % m;
        e >>= 1;
    }
    r
}

/// Miller-Rabin with the bases 2, 7 and 61, exact below 4,759,123,141.
fn is_prime(n: u64) -> bool {
    if n < 2 || n.is_multiple_of(2) {
        return n == 2;
    }
    let (mut d, mut s) = (n - 1, 0);
    while d % 2 == 0 {
        d /= 2;
        s += 1;
    }
    [2u64, 7, 61].iter().all(|&a| {
        if a % n == 0 {
            return true;
        }
        let mut x = pow_mod(a, d, n);
        if x == 1 || x == n - 1 {
            return true;
        }
        (1..s).any(|_| {
            x = x * x % n;
            x == n - 1
        })
    })
}

/// The [`COUNT`] primes with their constants.
pub fn primes() -> Vec<SmallPrime> {
    let mut out: Vec<SmallPrime> = Vec::with_capacity(COUNT);
    let mut p = (1u64 << 31) + 1;
    while out.len() < COUNT {
        p -= 2048;
        if !is_prime(p) {
            continue;
        }
        let r = (1u64 << 32) % p;
        let root = (2..).map(|c| pow_mod(c, (p - 1) / 2048, p)).find(|&x| pow_mod(x, 1024, p) == p - 1).unwrap();
        let product = out.iter().fold(1u64, |acc, q| acc * u64::from(q.p) % p);
        let inverse = |x: u64| pow_mod(x, p - 2, p);
        let p0i = {
            // Newton's iteration doubles the correct low bits of 1/p (p is its own inverse mod 8): 32 after five.
            let mut y = p as u32;
            for _ in 0..5 {
                y = y.wrapping_mul(2u32.wrapping_sub((p as u32).wrapping_mul(y)));
            }
            y.wrapping_neg()
        };
        out.push(SmallPrime {
            p: p as u32,
            p0i,
            r2: ((u128::from(r) * u128::from(r)) % u128::from(p)) as u32,
            g: (root * r % p) as u32,
            ig: (inverse(root) * r % p) as u32,
            s: (inverse(product) * r % p) as u32,
        });
    }
    out
}
