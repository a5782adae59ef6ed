//! The forward FN-DSA NTT solver's reachable ends are exact: the input it builds for each end drives the model's
//! step there, and no input (random ones, its own for the other steps) goes past them.

use pqhelium_sim::corner_search::SplitMix;
use pqhelium_sim::coverage;
use pqhelium_sim::fndsa_ntt::{self as ntt, passes, solver::Point, solver::Solver, steps_of};

#[test]
fn the_solved_inputs_reach_the_ends_and_nothing_passes_them() {
    for logn in [9, 10] {
        let solver = Solver::new(logn);
        let s = steps_of(logn);
        let starts: Vec<u32> = passes(logn).iter().map(|&(l0, _)| l0).chain([logn - 3]).collect();
        let mut points = Vec::new();
        for l in 0..logn as usize {
            if starts.contains(&(l as u32)) {
                points.push((Point::Red(l as u32), s.fwd_red[l]));
            }
            points.push((Point::Mul(l as u32), s.fwd_mul[l]));
            points.push((Point::Out(l as u32), s.fwd_sum[l]));
        }
        let run = |x: &[i16]| {
            let mut a = x.to_vec();
            coverage::record(|| ntt::ntt_fwd(logn, &mut a)).1
        };
        let mut inputs = Vec::new();
        for &(p, step) in &points {
            let (lo, hi) = solver.ends(p);
            for high in [true, false] {
                let x = solver.input(p, high);
                let seen = *run(&x).get(step).unwrap();
                let reached = if high { seen.max } else { seen.min };
                assert_eq!(reached, if high { hi } else { lo }, "n = 2^{logn}, {step}, high {high}");
                inputs.push(x);
            }
        }
        let mut random = SplitMix::new(u64::from(logn));
        for _ in 0..50 {
            inputs.push((0..1 << logn).map(|_| random.next_u64() as i16).collect());
        }
        for x in &inputs {
            let seen = run(x);
            for &(p, step) in &points {
                let (lo, hi) = solver.ends(p);
                let v = seen.get(step).unwrap();
                assert!(lo <= v.min && v.max <= hi, "n = 2^{logn}, {step}: {}..={} outside {lo}..={hi}", v.min, v.max);
            }
        }
    }
}
