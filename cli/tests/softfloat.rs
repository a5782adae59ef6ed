//! Our binary64 soft-float (`kernels/arm/fndsa_fpu/softfloat.c`, ids `fndsa.emu.f64.*`) against the host's native
//! IEEE f64: every operation on both emulators (unicorn on the M7 image, QEMU on the M55 image; checked two ways, so
//! no model backend), object code == host IEEE f64 bit for bit, edge operands first, then random operands biased to the domain. Each case is a
//! batch of 256 operand pairs; per operation the emulated backends see 2 x 200 x 256 = 102,400 pairs. The long
//! campaign (10,000,000 pairs per operation) is `pqhelium fuzz --kernel 'fndsa.emu.f64.*'`. Also the FN-DSA signing
//! FFT and inverse FFT built on them (`fndsa.fpu.{fft,ifft}` and `.emu`), against the Rust reference.

use std::time::Duration;

use pqhelium_engine::diff::{self, Campaign, Failure};
use pqhelium_families::softfloat::{BATCH, EDGE_CASES, OPS, words};
use pqhelium_families::{self as registry, Kernel, Outcome};
use pqhelium_guest::backend::{Arg, BackendKind, Limits};

/// Cases per operation and emulated backend (the first 64 hold the edge operands).
const CASES: u64 = 200;
const SEED: u64 = 0x5F64;

fn run_clean(id: &str) {
    run_clean_cases(id, CASES);
}

fn run_clean_cases(id: &str, cases: u64) {
    let kernel = registry::find(id).unwrap_or_else(|| panic!("{id} is not registered"));
    let backends: Vec<BackendKind> = BackendKind::ALL.into_iter().filter(|&b| kernel.runs_on(b)).collect();
    assert_eq!(backends, [BackendKind::Unicorn, BackendKind::Qemu], "{id}");
    for backend in backends {
        diff::assert_campaign_passes(id, backend, SEED, cases);
    }
}

#[test]
fn add() {
    run_clean("fndsa.emu.f64.add");
}

#[test]
fn sub() {
    run_clean("fndsa.emu.f64.sub");
}

#[test]
fn mul() {
    run_clean("fndsa.emu.f64.mul");
}

#[test]
fn div() {
    run_clean("fndsa.emu.f64.div");
}

#[test]
fn sqrt() {
    run_clean("fndsa.emu.f64.sqrt");
}

#[test]
fn neg() {
    run_clean("fndsa.emu.f64.neg");
}

#[test]
fn floor_trunc_rint() {
    run_clean("fndsa.emu.f64.floor");
    run_clean("fndsa.emu.f64.trunc");
    run_clean("fndsa.emu.f64.rint");
}

#[test]
fn conversions() {
    run_clean("fndsa.emu.f64.from_i64");
    run_clean("fndsa.emu.f64.to_i64_trunc");
    run_clean("fndsa.emu.f64.to_i64_round");
    run_clean("fndsa.emu.f64.to_i64_floor");
}

/// The FN-DSA signing FFT and inverse FFT, native FP64 and on the soft-float, == the Rust reference, every bit
/// (logn 1..10; the first 30 cases are the edge cases, every logn with signed zeros, an impulse, alternating ones).
#[test]
fn fft_native_and_emulated() {
    run_clean_cases("fndsa.fpu.fft", 100);
    run_clean_cases("fndsa.fpu.fft.emu", 60);
}

#[test]
fn ifft_native_and_emulated() {
    run_clean_cases("fndsa.fpu.ifft", 100);
    run_clean_cases("fndsa.fpu.ifft.emu", 60);
}

#[test]
fn all_operations_are_registered() {
    let mut ids: Vec<&str> = registry::matching("fndsa.emu.f64.*").iter().map(|k| k.id).collect();
    ids.sort_unstable();
    let mut expected: Vec<&str> = OPS.iter().map(|op| op.id).collect();
    expected.sort_unstable();
    assert_eq!(ids, expected);
}

/// Operands of one case of a binary operation.
fn operands(kernel: &Kernel, case: u64) -> Vec<(f64, f64)> {
    let args = kernel.generate(case, &mut registry::case_rng(SEED, case));
    let a = words(&args[1]);
    let b = if args.len() > 2 { words(&args[2]) } else { vec![0; a.len()] };
    assert_eq!(a.len(), BATCH);
    a.into_iter().zip(b).map(|(x, y)| (f64::from_bits(x), f64::from_bits(y))).collect()
}

/// The edge cases contain what they promise, computed independently here: signed zeros, results rounded on a tie
/// (with both parities), carries into the exponent, overflow to infinity, total cancellation to +0.
#[test]
fn edge_cases_cover_the_rounding_classes() {
    let add = registry::find("fndsa.emu.f64.add").unwrap();
    let pairs: Vec<(f64, f64)> = (0..EDGE_CASES).flat_map(|c| operands(add, c)).collect();
    let has = |f: &dyn Fn(f64, f64) -> bool| pairs.iter().any(|&(x, y)| f(x, y));
    assert!(has(&|x, y| x.to_bits() == (-0.0f64).to_bits() && y.to_bits() == (-0.0f64).to_bits()));
    assert!(has(&|x, y| x == -y && x != 0.0), "total cancellation");
    assert!(has(&|x, y| x == 1.0 && y == 2f64.powi(-53)), "tie to even (down)");
    assert!(has(&|x, y| x == 1.0 + f64::EPSILON && y == 2f64.powi(-53)), "tie to even (up)");
    assert!(has(&|x, y| x == 2.0 - f64::EPSILON && y == 2f64.powi(-53)), "tie carrying into the exponent");
    assert!(has(&|x, y| x == f64::MAX && y == 2f64.powi(970)), "tie overflowing to infinity");
    assert!(has(&|x, y| x == f64::MIN_POSITIVE && y == f64::MIN_POSITIVE));
    let rint = registry::find("fndsa.emu.f64.rint").unwrap();
    let values: Vec<f64> = (0..EDGE_CASES).flat_map(|c| operands(rint, c)).map(|p| p.0).collect();
    for x in [0.5f64, -0.5, 1.5, 2.5, -2.5, 4503599627370495.5, -0.0, 0.49999999999999994] {
        assert!(values.iter().any(|v| v.to_bits() == x.to_bits()), "rint edge {x}");
    }
    let from = registry::find("fndsa.emu.f64.from_i64").unwrap();
    let ints: Vec<i64> = (0..EDGE_CASES).flat_map(|c| operands(from, c)).map(|p| p.0.to_bits() as i64).collect();
    for i in [i64::MIN, i64::MAX, 0, -1, (1 << 53) + 1, (1 << 54) + 2, i64::MAX - 511] {
        assert!(ints.contains(&i), "from_i64 edge {i}");
    }
}

/// No data-dependent branches: every call of an operation executes the same number of instructions, whatever the
/// operands (edge cases included: zeros, ties, overflow, cancellation), on both emulated cores.
#[test]
fn instruction_counts_do_not_depend_on_the_operands() {
    for id in OPS.iter().map(|op| op.id) {
        let kernel = registry::find(id).unwrap();
        for backend in [BackendKind::Unicorn, BackendKind::Qemu] {
            let run = Campaign { keep_going: true, ..campaign(kernel, backend) };
            let result = diff::run(&Campaign { cases: EDGE_CASES + 16, jobs: 2, ..run });
            assert!(result.passed(), "{id} on {backend}");
            let stats = &result.instructions;
            assert_eq!(stats.calls, EDGE_CASES + 16);
            assert_eq!(stats.min, stats.max, "{id} on {backend}: instruction count depends on the operands");
        }
    }
}

/// Round toward zero, for additions: the host's rounded sum moved one ulp toward zero when it is larger in magnitude
/// than the exact sum (exact error from TwoSum).
fn add_toward_zero(x: f64, y: f64) -> f64 {
    let s = x + y;
    let bp = s - x;
    let err = (x - (s - bp)) + (y - bp);
    if s.is_finite() && s != 0.0 && err != 0.0 && (err < 0.0) != (s < 0.0) {
        f64::from_bits(s.to_bits() - 1)
    } else {
        s
    }
}

fn toward_zero(args: &[Arg]) -> Outcome {
    let a = words(&args[1]);
    let b = words(&args[2]);
    let r: Vec<u8> = a
        .iter()
        .zip(&b)
        .flat_map(|(&x, &y)| add_toward_zero(f64::from_bits(x), f64::from_bits(y)).to_bits().to_le_bytes())
        .collect();
    Outcome { buffers: vec![r], ret: None }
}

fn campaign(kernel: &'static Kernel, backend: BackendKind) -> Campaign {
    Campaign { limits: Limits { timeout: Duration::from_secs(60) }, ..Campaign::new(kernel, backend, SEED, 4, 1) }
}

/// Object code checked against a round-toward-zero reference is caught on every emulated backend, on the first case:
/// the object code rounds to nearest.
#[test]
fn a_round_toward_zero_reference_is_caught() {
    assert_eq!(add_toward_zero(1.0, 2f64.powi(-53)), 1.0);
    assert_eq!(add_toward_zero(1.0, 3.0 * 2f64.powi(-54)), 1.0);
    assert_eq!(add_toward_zero(-1.0, -3.0 * 2f64.powi(-54)), -1.0);
    assert_eq!(add_toward_zero(1.0, 2f64.powi(-52)), 1.0 + f64::EPSILON);

    let wrong = registry::variant("fndsa.emu.f64.add", |k| k.reference = Some(toward_zero));
    for backend in [BackendKind::Unicorn, BackendKind::Qemu] {
        let result = diff::run(&campaign(wrong, backend));
        assert_eq!(result.setup_error, None);
        let first = result.failures.first().unwrap_or_else(|| panic!("{backend}: object code matched toward-zero"));
        assert_eq!(first.case, 0);
        let Failure::Mismatch { left, right, .. } = &first.failure else { panic!("{:?}", first.failure) };
        assert_eq!((*left, *right), ("reference", backend.name()));
    }
}
