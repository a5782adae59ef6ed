//! The FN-DSA NTT modulo q = 12289 against mathematics: Montgomery reduction, polynomial evaluation at the roots of
//! unity, inverse, and negacyclic products computed by schoolbook multiplication.

use pqhelium_core::fndsa::ntt::{self, G, GM, IGM, NttKernels, Q, Reference};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha20Rng;

/// Internal-representation values: random, with the extremes 1 and q (= 0) first.
fn random_int_poly(rng: &mut ChaCha20Rng, n: usize, trial: usize) -> Vec<u16> {
    match trial {
        0 => vec![Q as u16; n],
        1 => vec![1; n],
        2 => vec![(Q - 1) as u16; n],
        _ => (0..n).map(|_| rng.gen_range(1..=Q) as u16).collect(),
    }
}

fn pow(b: u64, e: u64) -> u64 {
    let q = u64::from(Q);
    (0..64).rev().fold(1, |r, k| if (e >> k) & 1 == 1 { r * r % q * b % q } else { r * r % q })
}

#[test]
fn mred_is_division_by_2_32_into_1_to_q() {
    let mut rng = ChaCha20Rng::seed_from_u64(1);
    let r_inv = pow(pow(2, 32) % u64::from(Q), u64::from(Q) - 2);
    let edges = [1u32, 2, Q, Q * Q, 3489673216, 3489673215];
    for x in edges.into_iter().chain((0..200_000).map(|_| rng.gen_range(1..=3489673216u32))) {
        let d = ntt::mq_mred(x);
        assert!((1..=Q).contains(&d), "mq_mred({x}) = {d}");
        assert_eq!(u64::from(d) % u64::from(Q), u64::from(x) * r_inv % u64::from(Q), "mq_mred({x})");
    }
}

#[test]
fn add_sub_half_stay_in_1_to_q() {
    for x in 1..=Q {
        for y in [1, 2, Q / 2, Q - 1, Q, x] {
            let (a, s) = (ntt::mq_add(x, y), ntt::mq_sub(x, y));
            assert!((1..=Q).contains(&a) && (1..=Q).contains(&s));
            assert_eq!(a % Q, (x + y) % Q);
            assert_eq!(s % Q, (x + Q - y) % Q);
        }
        let h = ntt::mq_half(x);
        assert!((1..=Q).contains(&h));
        assert_eq!((2 * h) % Q, x % Q);
    }
}

#[test]
fn twiddles_are_powers_of_a_primitive_2048th_root() {
    let q = u64::from(Q);
    assert_eq!(pow(u64::from(G), 1024), q - 1, "g^1024 = -1: g has order 2048");
    // GM[1] = g^512 * R and IGM[1] = g^-512 * R/2, so GM[1]^2 = -R^2 and GM[i]*IGM[i] = R^2/2 for every i.
    let r = pow(2, 32) % q;
    let half_r2 = r * r % q * pow(2, q - 2) % q;
    for i in 0..1024 {
        assert!((1..=Q as u16).contains(&GM[i]) && (1..=Q as u16).contains(&IGM[i]));
        assert_eq!(u64::from(GM[i]) * u64::from(IGM[i]) % q, half_r2, "GM[{i}] * IGM[{i}]");
    }
    assert_eq!(u64::from(GM[1]) * u64::from(GM[1]) % q, (q - r * r % q) % q);
    assert_eq!(u64::from(GM[0]), r);
}

#[test]
fn forward_ntt_evaluates_at_the_odd_2n_th_roots() {
    let mut rng = ChaCha20Rng::seed_from_u64(2);
    let q = u64::from(Q);
    for logn in 1..=10 {
        let n = 1usize << logn;
        let mut seen = std::collections::HashSet::new();
        for trial in 0..4 {
            let a = random_int_poly(&mut rng, n, trial + 2);
            let mut f = a.clone();
            Reference.ntt(logn, &mut f);
            for (j, &fj) in f.iter().enumerate() {
                let e = ntt::ntt_root_exponent(logn, j);
                seen.insert(e);
                let w = u64::from(ntt::root_power(e));
                // Horner from the top coefficient.
                let value = a.iter().rev().fold(0, |acc, &ak| (acc * w + u64::from(ak)) % q);
                assert_eq!(u64::from(fj) % q, value, "logn {logn} slot {j}");
                assert!((1..=Q as u16).contains(&fj));
            }
        }
        // The n slots are the n distinct roots of X^n + 1.
        assert_eq!(seen.len(), n);
        assert!(seen.iter().all(|&e| pow(u64::from(G), u64::from(e) * n as u64) == q - 1));
    }
}

#[test]
fn inverse_undoes_forward_at_every_logn() {
    let mut rng = ChaCha20Rng::seed_from_u64(3);
    for logn in 1..=10 {
        let n = 1usize << logn;
        for trial in 0..20 {
            let a = random_int_poly(&mut rng, n, trial);
            let mut b = a.clone();
            Reference.ntt(logn, &mut b);
            Reference.intt(logn, &mut b);
            assert_eq!(a, b, "logn {logn} trial {trial}");
        }
    }
}

fn schoolbook_negacyclic(a: &[u16], b: &[u16]) -> Vec<u16> {
    let n = a.len();
    let q = i64::from(Q);
    let mut c = vec![0i64; n];
    for i in 0..n {
        for j in 0..n {
            let p = i64::from(a[i]) * i64::from(b[j]) % q;
            if i + j < n { c[i + j] += p } else { c[i + j - n] -= p }
        }
    }
    c.into_iter().map(|x| x.rem_euclid(q) as u16).collect()
}

#[test]
fn ntt_product_is_the_negacyclic_product_at_every_logn() {
    let mut rng = ChaCha20Rng::seed_from_u64(4);
    for logn in 1..=10 {
        let n = 1usize << logn;
        for trial in 0..if logn <= 8 { 12 } else { 5 } {
            let a = random_int_poly(&mut rng, n, trial);
            let b = random_int_poly(&mut rng, n, 3 + trial);
            let mut got = ntt::poly_mul(&mut Reference, logn, &a, &b);
            ntt::int_to_ext(&mut got);
            assert_eq!(got, schoolbook_negacyclic(&a, &b), "logn {logn} trial {trial}");
        }
    }
}

#[test]
fn representation_conversions() {
    let mut v = vec![0, 1, 6144, 12288];
    ntt::ext_to_int(&mut v);
    assert_eq!(v, [12289, 1, 6144, 12288]);
    ntt::int_to_ext(&mut v);
    assert_eq!(v, [0, 1, 6144, 12288]);
    let mut d = vec![0; 5];
    ntt::signed_to_int(&[0, -1, 840, -840, 6144], &mut d);
    assert_eq!(d, [12289, 12288, 840, 12289 - 840, 6144]);
    let centred: Vec<i32> = [12289u16, 0, 1, 6144, 6145, 12288].iter().map(|&x| ntt::centred(x)).collect();
    assert_eq!(centred, [0, 0, 1, 6144, -6144, -1]);
}
