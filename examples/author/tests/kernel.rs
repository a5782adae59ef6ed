//! The author's kernel checked as part of `cargo test`: it passes its contract, and a one-constant mutant of it fails.

use std::path::PathBuf;

use pqhelium::author::{Kernels, Options, Verdict};

const SYMBOL: &str = "byo_basemul_bitrev_mont";
const CASES: u64 = 200;
const CT_PAIRS: u64 = 8;

fn manifest(name: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join(name)
}

fn options() -> Options {
    Options { cases: CASES, seed: 1, jobs: 1 }
}

#[test]
fn the_kernel_computes_its_contract() {
    let kernels = Kernels::load(&manifest("kernel.toml")).unwrap_or_else(|e| panic!("{e}"));
    let report = kernels.check(&options());
    let kernel = report.kernel(SYMBOL).expect("the manifest's symbol is in the report");
    assert_eq!(kernel.contract, "mlkem.basemul.scalar");
    assert_eq!(kernel.cases(), CASES);
    assert_eq!((kernel.mismatches(), kernel.faults()), (0, 0), "{:?}", kernel.first_failure());
    assert!(report.passed());
}

#[test]
fn a_mutant_of_the_kernel_fails_with_a_counterexample() {
    let kernels = Kernels::load(&manifest("mutant.toml")).unwrap_or_else(|e| panic!("{e}"));
    let report = kernels.check(&options());
    let kernel = report.kernel(SYMBOL).expect("the manifest's symbol is in the report");
    assert!(!report.passed());
    assert_eq!(kernel.faults(), 0);
    assert!(kernel.mismatches() > 0);
    let failure = kernel.first_failure().expect("a failing case is reported");
    assert!(matches!(failure.failure, pqhelium::author::Failure::Mismatch { .. }), "{failure:?}");
    assert!(!failure.args.is_empty(), "the counterexample carries its input");
}

#[test]
fn the_kernel_is_constant_time_and_a_leaky_build_of_it_is_not() {
    let verdicts = |name: &str| {
        let kernels = Kernels::load(&manifest(name)).unwrap_or_else(|e| panic!("{e}"));
        let reports = kernels.constant_time(1, CT_PAIRS).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(reports.len(), 1);
        assert_eq!((reports[0].pairs, reports[0].faults), (CT_PAIRS, 0), "{name}: {:?}", reports[0].first_fault);
        reports[0].verdict.clone()
    };
    assert!(matches!(verdicts("kernel.toml"), Verdict::ConstantTime));
    assert!(matches!(verdicts("leaky.toml"), Verdict::Leak { .. }));
}
