//! The FN-DSA NTT MVE kernels never overflow a 16-bit lane for any input inside their preconditions, and their
//! outputs meet the postconditions (the constants of `pqhelium_sim::fndsa_ntt`, which `fndsa_ntt.h` repeats): a
//! worst-case propagation of per-coefficient bounds through every butterfly of every pass
//! (`pqhelium_sim::fndsa_ntt::bounds`), plus exhaustive checks that the bounds of the two modular operations it
//! relies on are sound.

use pqhelium_sim::fndsa_ntt::{
    self as ntt, FWD_IN, FWD_OUT_512, FWD_OUT_1024, INV_IN, INV_OUT, IZETA, MONT_C, PW_IN, PW_OUT, Q, RED_OUT, ZETA,
    barrett_companion, bounds, centred, ninv,
};
use pqhelium_sim::mve::Q as V;

#[test]
fn no_lane_overflows_and_postconditions_hold() {
    let mut inv_out = 0;
    for (logn, fwd_out) in [(9, FWD_OUT_512), (10, FWD_OUT_1024)] {
        let fwd = bounds::forward(logn, i64::from(FWD_IN)).unwrap();
        assert_eq!(*fwd.iter().max().unwrap(), i64::from(fwd_out), "forward n = 2^{logn}");
        let inv = bounds::inverse(logn, i64::from(INV_IN)).unwrap();
        inv_out = inv_out.max(*inv.iter().max().unwrap());
        // One more unit of input bound on the inverse would not be covered: the precondition is what the proof uses.
        assert!(bounds::inverse(logn, i64::from(INV_IN) + 1).is_err());
    }
    // The documented bounds are the proved ones: tight, not merely sufficient.
    assert_eq!(inv_out, i64::from(INV_OUT), "inverse, both sizes");
    assert_eq!(bounds::pointwise(i64::from(PW_IN)).unwrap(), i64::from(PW_OUT));
    assert_eq!(bounds::red_max(), i64::from(RED_OUT));
}

/// `mul_max` is sound: for every int16 input b, the Barrett product by w stays within mul_max(|b|, w) (checked on
/// 64 of the table twiddles, n^-1, the fused last-layer twiddles and 2^16 mod q).
#[test]
fn barrett_multiplication_bound_is_sound() {
    let mut consts: Vec<i16> = ZETA.iter().step_by(32).chain(IZETA.iter().step_by(32)).copied().collect();
    for logn in [9, 10] {
        consts.push(ninv(logn));
        consts.push(centred(i64::from(IZETA[1]) * i64::from(ninv(logn))));
    }
    consts.push(MONT_C);
    for w in consts {
        let wbr = barrett_companion(w);
        for x in (i16::MIN..=i16::MAX).step_by(8) {
            let b: [i16; 8] = std::array::from_fn(|i| x + i as i16);
            let r = ntt::mul_n(V::from_i16(b), w, wbr).i16();
            for (bi, ri) in b.into_iter().zip(r) {
                let exact = i64::from(bi) * i64::from(w);
                assert_eq!((exact - i64::from(ri)).rem_euclid(i64::from(Q)), 0, "w = {w}, b = {bi}");
                let bound = bounds::mul_max(i64::from(bi).abs(), w);
                if bound <= bounds::LIMIT {
                    assert!(i64::from(ri).abs() <= bound, "w = {w}, b = {bi}: {ri} > {bound}");
                }
            }
        }
    }
}

/// The Montgomery step of the pointwise kernel: x*y/2^16 mod q within the bound, over a grid of extreme inputs.
#[test]
fn pointwise_montgomery_bound_is_sound() {
    let (max, half) = (i16::MAX, (Q - 1) / 2);
    let edges: Vec<i16> = vec![-max, -max + 1, -Q, -half - 1, -1, 0, 1, half, Q - 1, max - 1, max];
    let r16 = 65536i64.rem_euclid(i64::from(Q));
    for &x in &edges {
        for &y in &edges {
            let m = ntt::montgomery(V::from_i16([x; 8]), V::from_i16([y; 8])).i16()[0];
            assert_eq!((i64::from(m) * r16 - i64::from(x) * i64::from(y)).rem_euclid(i64::from(Q)), 0);
            assert!(i64::from(m).abs() <= (i64::from(x).abs() * i64::from(y).abs() + 32768 * i64::from(Q)) / 65536);
        }
    }
}

/// The pointwise products' exact ends: the Montgomery result is the function of the lane product that
/// `montgomery_of` computes (checked against the model on random and extreme operands), the corner operands drive
/// the model to exactly the ends, and no operand pair near the ends of the domain goes past them.
#[test]
fn pointwise_montgomery_exact_ends_are_reached_and_not_exceeded() {
    use pqhelium_sim::fndsa_ntt::pointwise_steps::{ENDS, montgomery_of};
    use rand::{Rng, SeedableRng};
    let start = std::time::Instant::now();
    let [(lo, (lx, ly)), (hi, (hx, hy))] = *ENDS;
    eprintln!("pointwise exact ends {lo}..={hi}: {:?}", start.elapsed());
    let model = |x: i16, y: i16| i64::from(ntt::montgomery(V::from_i16([x; 8]), V::from_i16([y; 8])).i16()[0]);
    assert_eq!((model(hx, hy), model(lx, ly)), (hi, lo));
    let [_, proven] = bounds::pointwise_steps(i64::from(PW_IN)).unwrap();
    assert!(-proven <= lo && hi <= proven);
    let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(16);
    let max = PW_IN as i16;
    for _ in 0..100_000 {
        let (x, y) = (rng.gen_range(-max..=max), rng.gen_range(-max..=max));
        assert_eq!(montgomery_of(i64::from(x) * i64::from(y)), model(x, y), "{x} {y}");
    }
    for x in max - 255..=max {
        for y in max - 255..=max {
            for (sx, sy) in [(1, 1), (1, -1)] {
                let k = montgomery_of(i64::from(sx * x) * i64::from(sy * y));
                assert!((lo..=hi).contains(&k), "{x} {y}: {k}");
                assert_eq!(k, model(sx * x, sy * y));
            }
        }
    }
}
