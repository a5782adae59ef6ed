//! The ML-KEM NTT models (pqhelium_sim::mlkem_ntt): the worst-case bounds (no 16-bit lane, and in the basemul no
//! 32-bit lane, overflows for any input inside the preconditions, and the outputs meet their postconditions), the
//! exactness of the modular multiplication's bound, the round trip, and the MVE models against the scalar ones.

use pqhelium_core::mlkem::{MlkemKernels, Reference};
use pqhelium_sim::mlkem_ntt::{self as m, Poly, bounds};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

const Q: i32 = m::Q as i32;
/// The forward NTT's precondition as a coefficient.
const FWD_IN: i16 = m::FWD_IN_MAX as i16;

fn canonical(p: &Poly) -> Poly {
    p.map(|x| i32::from(x).rem_euclid(Q) as i16)
}

fn random(rng: &mut ChaCha8Rng, max: i16) -> Poly {
    std::array::from_fn(|_| rng.gen_range(-max..=max))
}

/// MVE order -> FIPS order, through the model's own permutation.
fn fips(p: &Poly) -> Poly {
    let mut out = [0; m::N];
    for (s, &x) in p.iter().enumerate() {
        out[m::mve_coeff(s)] = x;
    }
    out
}

#[test]
fn no_lane_overflows_inside_the_preconditions_and_postconditions_hold() {
    let max = |b: [i64; m::N]| b.into_iter().max().unwrap();
    let fwd = max(bounds::fwd(m::FWD_IN_MAX).unwrap());
    assert_eq!(fwd, m::FWD_OUT_MAX, "documented forward output bound");
    let inv = max(bounds::inv(m::ANY_I16).unwrap());
    assert_eq!(inv, m::INV_OUT_MAX, "documented inverse output bound");
    assert!(inv < i64::from(Q));
    let bm = max(bounds::basemul(m::BASEMUL_IN_MAX, m::BASEMUL_IN_MAX).unwrap());
    assert_eq!(bm, m::BASEMUL_OUT_MAX, "documented basemul output bound");
    assert!(bm < i64::from(Q));
    assert!(bounds::from_mve(m::ANY_I16).unwrap() < i64::from(Q));
    // The chain fwd -> basemul -> inv stays inside the preconditions.
    assert!(fwd <= m::BASEMUL_IN_MAX);
    // The propagation fails where it must: a larger forward input overflows a lane.
    assert!(bounds::fwd(2 * m::FWD_IN_MAX).is_err());
    assert!(bounds::basemul(m::BASEMUL_IN_MAX + 1, m::BASEMUL_IN_MAX + 1).is_err());
}

/// The bound of mulmod is checked against every |a| <= 2^15 - 1 for every twiddle the kernels use.
#[test]
fn the_mulmod_bound_holds_exhaustively() {
    let mut zs: Vec<i16> = m::ZETA.iter().chain(&m::GAMMA).copied().collect();
    zs.extend([1, m::F, m::ZF]);
    for &z in &zs {
        let zt = m::twist(z);
        let (mut worst_small, mut worst_all) = (0i64, 0i64);
        for a in -i16::MAX..=i16::MAX {
            let r = i64::from(m::mulmod(a, z, zt));
            assert_eq!((r - i64::from(a) * i64::from(z)).rem_euclid(i64::from(Q)), 0);
            if i64::from(a).abs() <= m::FWD_IN_MAX {
                worst_small = worst_small.max(r.abs());
            }
            worst_all = worst_all.max(r.abs());
        }
        assert!(worst_all <= bounds::mulmod_bound(i64::from(i16::MAX), z), "z = {z}");
        assert!(worst_small <= bounds::mulmod_bound(m::FWD_IN_MAX, z), "z = {z}");
    }
}

/// Observed maxima on edge inputs stay inside the proved bounds.
#[test]
fn observed_outputs_stay_inside_the_bounds() {
    let fwd_b = bounds::fwd(m::FWD_IN_MAX).unwrap();
    let mut rng = ChaCha8Rng::seed_from_u64(1);
    for case in 0..300 {
        let x: Poly = match case {
            0 => [FWD_IN; m::N],
            1 => [-FWD_IN; m::N],
            2 => std::array::from_fn(|i| if i % 2 == 0 { FWD_IN } else { -FWD_IN }),
            _ => random(&mut rng, FWD_IN),
        };
        let mut y = x;
        m::ntt_fwd_scalar(&mut y);
        assert!(y.iter().zip(&fwd_b).all(|(&v, &b)| i64::from(v).abs() <= b));
        let mut z = y;
        m::ntt_inv_scalar(&mut z);
        assert!(z.iter().all(|&v| i64::from(v).abs() <= m::INV_OUT_MAX));
    }
}

#[test]
fn round_trip_through_the_models() {
    let mut rng = ChaCha8Rng::seed_from_u64(2);
    for case in 0..500 {
        let x: Poly = match case {
            0 => [0; m::N],
            1 => [m::Q - 1; m::N],
            2 => [FWD_IN; m::N],
            3 => [-FWD_IN; m::N],
            _ if case % 2 == 0 => std::array::from_fn(|_| rng.gen_range(0..m::Q)),
            _ => random(&mut rng, FWD_IN),
        };
        let mut p = m::to_mve(&x);
        m::ntt_fwd_mve(&mut p);
        m::ntt_inv_mve(&mut p);
        assert_eq!(m::from_mve(&p), canonical(&x), "case {case}");
    }
}

/// The MVE models perform the scalar models' arithmetic coefficient by coefficient: equal after the permutation,
/// and both equal to the reference mod q.
#[test]
fn mve_models_equal_scalar_models_and_reference() {
    let mut rng = ChaCha8Rng::seed_from_u64(3);
    for _ in 0..300 {
        let x = random(&mut rng, FWD_IN);
        let mut v = x;
        m::ntt_fwd_mve(&mut v);
        let mut s = fips(&x);
        m::ntt_fwd_scalar(&mut s);
        assert_eq!(fips(&v), s);
        let mut r = canonical(&s);
        let mut ref_in = canonical(&fips(&x));
        Reference.ntt(&mut ref_in);
        assert_eq!(canonical(&r), ref_in);

        let y = random(&mut rng, i16::MAX);
        let mut v = y;
        m::ntt_inv_mve(&mut v);
        let mut s = fips(&y);
        m::ntt_inv_scalar(&mut s);
        assert_eq!(fips(&v), s);

        let (a, b) = (random(&mut rng, i16::MAX), random(&mut rng, i16::MAX));
        let s = m::basemul_scalar(&fips(&a), &fips(&b));
        assert_eq!(fips(&m::basemul_mve(&a, &b)), s);
        Reference.basemul(&mut r, &canonical(&fips(&a)), &canonical(&fips(&b)));
        assert_eq!(canonical(&s), r);
    }
}

/// The inverse NTT's solver: each corner case drives its step to exactly the end the solver computed, on the scalar
/// model and on the MVE model (the same input in the MVE order), and no random input goes past those ends (the
/// ends are maxima, not only values reached).
#[test]
fn the_inverse_solver_ends_are_reached_and_not_exceeded() {
    use pqhelium_sim::coverage::record;
    let start = std::time::Instant::now();
    let solver = &*m::INV_SOLVER;
    let corners = &*m::corners::INV;
    let runs = solver.levels.iter().flatten().map(|s| s.runs()).max().unwrap();
    eprintln!("inverse solver and corner cases: {:?}; sets of at most {runs} runs", start.elapsed());
    let s = &m::SCALAR_STEPS;
    let mut ends = Vec::new();
    for l in 0..7 {
        for (step, e) in [(s.inv_sum[l], solver.sum[l]), (s.inv_mulmod[l], solver.dif[l])] {
            ends.push((step, e.hi.0, e.lo.0));
        }
        if l == 2 {
            ends.push((s.inv_reduce_mid, solver.mid().hi.0, solver.mid().lo.0));
        }
    }
    assert_eq!(corners.len(), 2 * ends.len());
    let run = |p: &Poly| {
        let mut x = *p;
        record(|| m::ntt_inv_scalar(&mut x)).1
    };
    let run_mve = |p: &Poly| {
        let mut x = m::to_mve(p);
        record(|| m::ntt_inv_mve(&mut x)).1
    };
    for (k, &(step, hi, lo)) in ends.iter().enumerate() {
        let mve_step = step.replace(".scalar/", ".mve/");
        for (c, high) in [(2 * k, true), (2 * k + 1, false)] {
            let (scalar, mve) = (run(&corners[c]), run_mve(&corners[c]));
            let (a, b) = (scalar.get(step).unwrap(), mve.get(mve_step.as_str()).unwrap());
            let want = if high { hi } else { lo };
            assert_eq!(if high { a.max } else { a.min }, i64::from(want), "{step} corner {c}");
            assert_eq!(if high { b.max } else { b.min }, i64::from(want), "{mve_step} corner {c}");
        }
    }
    let mut rng = ChaCha8Rng::seed_from_u64(23);
    for _ in 0..200 {
        let p: Poly = std::array::from_fn(|_| rng.r#gen());
        let seen = run(&p);
        for &(step, hi, lo) in &ends {
            let x = seen.get(step).unwrap();
            assert!(x.max <= i64::from(hi) && x.min >= i64::from(lo), "{step}: {x:?} outside {lo}..={hi}");
        }
    }
}
