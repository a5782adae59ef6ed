//! The inverse FN-DSA NTT solver's reachable ends are exact: the input it builds for each end drives the model's
//! step there (so the end is reached), and no input (random ones, its own for the other steps) goes past them.

use pqhelium_sim::corner_search::SplitMix;
use pqhelium_sim::coverage;
use pqhelium_sim::fndsa_ntt::{self as ntt, INV_IN, solver::inv::Inverse, steps_of};

#[test]
fn the_solved_inputs_reach_the_ends_and_nothing_passes_them() {
    for logn in [9, 10] {
        let t = std::time::Instant::now();
        let solver = Inverse::new(logn);
        eprintln!("n = 2^{logn}: solved in {:?}", t.elapsed());
        let s = steps_of(logn);
        let points: Vec<(u32, bool, &str)> =
            (0..logn).flat_map(|l| [(l, false, s.inv_sum[l as usize]), (l, true, s.inv_dif[l as usize])]).collect();
        let run = |x: &[i16]| {
            let mut a = x.to_vec();
            coverage::record(|| ntt::ntt_inv(logn, &mut a)).1
        };
        let mut inputs = Vec::new();
        for &(l, dif, step) in &points {
            let (lo, hi) = solver.ends(l, dif);
            eprintln!("{step}: {lo}..={hi}");
            for high in [true, false] {
                let x = solver.input(l, dif, high);
                assert!(x.iter().all(|&v| i32::from(v).abs() <= INV_IN), "{step}: an input outside the precondition");
                let seen = *run(&x).get(step).unwrap();
                let reached = if high { seen.max } else { seen.min };
                assert_eq!(reached, if high { hi } else { lo }, "n = 2^{logn}, {step}, high {high}");
                inputs.push(x);
            }
        }
        eprintln!("n = 2^{logn}: solved and built in {:?}", t.elapsed());
        let mut random = SplitMix::new(u64::from(logn));
        let max = INV_IN as u64;
        for _ in 0..50 {
            inputs.push(
                (0..1 << logn).map(|_| ((random.next_u64() % (2 * max + 1)) as i64 - max as i64) as i16).collect(),
            );
        }
        for x in &inputs {
            let seen = run(x);
            for &(l, dif, step) in &points {
                let (lo, hi) = solver.ends(l, dif);
                let v = seen.get(step).unwrap();
                assert!(lo <= v.min && v.max <= hi, "n = 2^{logn}, {step}: {}..={} outside {lo}..={hi}", v.min, v.max);
            }
        }
    }
}
