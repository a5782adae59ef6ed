//! `pqhelium cycles`: estimates for a real kernel on both cores, the calibration against a board measurement and
//! Arm's latency tables, and the usage errors.

use std::process::Command;

use pqhelium_analyses::cycles::calibration::{self, CALIBRATIONS, Source};
use pqhelium_analyses::cycles::{self, Core, Estimator, Estimators, Timing};
use pqhelium_families::{self as registry, case_rng};
use pqhelium_guest::backend::BackendKind;
use pqhelium_guest::backend::{Arg, Call, Image, Limits};
use pqhelium_schemes::operations::{self, Scheme, XWING_OPERATIONS};

fn pqhelium(args: &[&str], env: &[(&str, &str)]) -> (Option<i32>, String, String) {
    let mut command = Command::new(env!("CARGO_BIN_EXE_pqhelium"));
    command.args(args);
    for (k, v) in env {
        command.env(k, v);
    }
    let out = command.output().expect("run pqhelium");
    (out.status.code(), String::from_utf8_lossy(&out.stdout).into(), String::from_utf8_lossy(&out.stderr).into())
}

/// `KERNEL CORE: C cycles/call, I instructions/call` on both cores; the instructions are those QEMU's harness counts
/// for the same calls, and the cycles are what instructions allow: at most three issue per cycle on the M85 (two and
/// a predicted branch), two on the M55.
#[test]
fn a_real_kernel_on_both_cores() {
    let dir = tempfile::tempdir().unwrap();
    let svg = dir.path().join("plot.svg");
    let (code, stdout, stderr) = pqhelium(
        &["cycles", "--kernel", "fndsa.ntt512.fwd", "--calls", "2", "--blocks", "--plot", svg.to_str().unwrap()],
        &[],
    );
    assert_eq!(code, Some(0), "{stderr}");
    let kernel = registry::find("fndsa.ntt512.fwd").unwrap();
    for core in cycles::CORES {
        let line = stdout.lines().find(|l| l.starts_with(&format!("fndsa.ntt512.fwd {core}: "))).expect(&stdout);
        let numbers: Vec<f64> =
            line.split(|c: char| !c.is_ascii_digit() && c != '.').filter_map(|w| w.parse().ok()).collect();
        let (cycles, instructions) = (numbers[numbers.len() - 2], numbers[numbers.len() - 1]);
        assert!(line.ends_with(" instructions/call") && line.contains(" cycles/call, "), "{line}");
        // The harness's count for the same two cases.
        let mut qemu = Image::of(core).open(Limits::default()).unwrap();
        let counted: u64 = (0..2)
            .map(|i| kernel.edge_cases + i)
            .map(|case| qemu.call(&Call::new(kernel.symbol, kernel.generate(case, &mut case_rng(1, case)))).unwrap())
            .map(|out| out.instructions)
            .sum();
        assert_eq!(instructions, (counted as f64 / 2.0).round(), "{line}");
        let widest = if core == Core::M85 { 3.0 } else { 2.0 };
        assert!(cycles >= instructions / widest && cycles < 50.0 * instructions, "{line}");
    }
    assert!(stdout.contains("by class: ") && stdout.contains("fndsa_ntt512_fwd"), "{stdout}");
    let plot = std::fs::read_to_string(&svg).unwrap();
    assert!(plot.starts_with("<svg") && plot.contains("fndsa.ntt512.fwd m55") && plot.contains("fndsa.ntt512.fwd m85"));
}

/// The calibration kernel measured on a Cortex-M85 board (20,001 cycles for 1,000 iterations) and the Cortex-M55's
/// published FP64 latencies, within the stated error of 10 %: dependent chains (a latency each) and independent
/// operations, which the M55 runs unpipelined (the sum of their latencies; LLVM's model alone would start one a cycle
/// and miss by more than 80 %).
#[test]
fn calibration_kernels_within_the_stated_error() {
    for core in cycles::CORES {
        let mut estimator = Estimator::new(core).unwrap();
        let checked = CALIBRATIONS.iter().filter(|c| {
            c.core == core
                && (c.source == Source::Ra8d1Measurement || c.symbol.starts_with("cal_fp64") && core == Core::M55)
        });
        for c in checked {
            let outcome = calibration::run(&mut estimator, c).unwrap();
            assert!(
                outcome.error.abs() <= 0.10,
                "{} on {core}: {} vs published {}",
                c.symbol,
                outcome.predicted,
                c.published
            );
        }
    }
}

/// A usage error is exit code 2 with the reason on stderr; without llvm-mca the error says what to install.
#[test]
fn usage_errors_and_missing_llvm_mca() {
    let (code, _, stderr) = pqhelium(&["cycles", "--core", "m99"], &[]);
    assert_eq!(code, Some(2));
    assert!(stderr.lines().next().unwrap().contains("invalid value 'm99' for '--core"), "{stderr}");
    let (code, stdout, stderr) = pqhelium(&["cycles", "--kernel", "nope.*"], &[]);
    assert_eq!((code, stdout.as_str()), (Some(2), ""));
    assert_eq!(stderr.lines().count(), 1, "{stderr}");
    assert!(stderr.contains("no kernel") && stderr.contains("nope.*"), "{stderr}");
    let empty = tempfile::tempdir().unwrap();
    for env in [("PATH", empty.path().to_str().unwrap()), ("PQHELIUM_LLVM_MCA", "/nonexistent/llvm-mca-19")] {
        let (code, _, stderr) = pqhelium(&["cycles", "--kernel", "keccak.f1600"], &[env]);
        assert_eq!(code, Some(2), "{env:?}");
        assert_eq!(stderr.lines().count(), 1, "{stderr}");
        assert!(stderr.contains("llvm-mca-19 not found") && stderr.contains("llvm-19"), "{stderr}");
    }
}

/// X-Wing's kernel parts (one draft-10 vector, M85 image): the kernel calls FIPS 203 and RFC 7748 prescribe per
/// operation, and each kernel's share is its calls times the per-call estimate `pqhelium cycles` gives that kernel on
/// a registry case (every X-Wing kernel runs one instruction path whatever its inputs).
#[test]
fn xwing_kernel_parts_are_their_kernel_calls() {
    let core = Core::M85;
    let parts = operations::run(&mut Timing::new(core).unwrap(), Scheme::Xwing, 1).unwrap();
    assert_eq!(parts.len(), 2 * XWING_OPERATIONS.len());
    let mut estimator = Estimator::new(core).unwrap();
    for (i, part) in parts.iter().enumerate() {
        let (operation, optimised) = (i % XWING_OPERATIONS.len(), i < XWING_OPERATIONS.len());
        assert_eq!(
            (part.operation.as_str(), part.operations),
            (&*format!("X-Wing {}", XWING_OPERATIONS[operation]), 1)
        );
        let calls = |symbol: &str| part.kernels.iter().find(|k| k.symbol == symbol).map_or(0, |k| k.calls);
        let build = if optimised { "mve" } else { "scalar" };
        // FIPS 203: K-PKE.KeyGen transforms s and e (2k NTTs), K-PKE.Encrypt y (k NTTs) and returns k + 1 products
        // (inverse NTTs), K-PKE.Decrypt transforms u (k) and returns one product, then re-encrypts; k = 3.
        let (keygen, encrypt, decrypt) = ((6, 0), (3, 4), (3, 1));
        let (fwd, inv) = match operation {
            0 => keygen,
            1 => encrypt,
            2 => (decrypt.0 + encrypt.0, decrypt.1 + encrypt.1),
            _ => (keygen.0 + decrypt.0 + encrypt.0, decrypt.1 + encrypt.1),
        };
        let name = &part.operation;
        assert_eq!(calls(&format!("mlkem_ntt_fwd_{build}")), fwd, "{name} {}", part.variant);
        assert_eq!(calls(&format!("mlkem_ntt_inv_{build}")), inv, "{name} {}", part.variant);
        // RFC 7748: 255 ladder steps, two swaps before each and two after the last; the design's encapsulation runs
        // two ladders and one paired inversion, its key generation the fixed-base table; the baseline the whole
        // portable scalar multiplication for each X25519.
        let scalar_mults = [1, 2, 1, 2][operation];
        if optimised {
            let ladders = [0, 2, 1, 1][operation];
            assert_eq!(calls("x25519_ladder_step"), 255 * ladders, "{name}");
            assert_eq!(calls("x25519_cswap_mve"), 2 * 256 * ladders, "{name}");
            assert_eq!(calls("x25519_inv2"), u64::from(operation == 1), "{name}");
            assert_eq!(calls("x25519_base"), scalar_mults - ladders, "{name}");
            assert_eq!(calls("x25519_scalarmult"), 0, "{name}");
        } else {
            assert_eq!(calls("x25519_scalarmult"), scalar_mults, "{name}");
            assert_eq!(calls("x25519_ladder_step") + calls("x25519_base") + calls("x25519_inv2"), 0, "{name}");
        }
        for kernel in &part.kernels {
            let registered = registry::all()
                .find(|k| k.symbol == kernel.symbol && k.runs_on(BackendKind::Qemu))
                .unwrap_or_else(|| panic!("{} is not registered", kernel.symbol));
            let case = registered.edge_cases;
            let alone =
                estimator.estimate(kernel.symbol, &[registered.generate(case, &mut case_rng(7, case))]).unwrap();
            assert_eq!(kernel.instructions as f64, kernel.calls as f64 * alone.instructions, "{}", kernel.symbol);
            let expected = kernel.calls as f64 * alone.cycles;
            assert!(
                (kernel.cycles - expected).abs() <= 0.01 * expected,
                "{}: {} vs {expected}",
                kernel.symbol,
                kernel.cycles
            );
        }
        let sum: f64 = part.kernels.iter().map(|k| k.cycles).sum();
        assert_eq!(part.cycles(), sum);
    }
}

/// The cycles column of `bench` and `check` (one profiled call, [`Estimators`]) reproduces the calibration: the
/// board-measured loop and the M55's FP64 latencies per iteration from two calls of different lengths, within the
/// stated 10 %.
#[test]
fn the_cycles_column_matches_the_calibration() {
    let mut estimators = Estimators::default();
    let checked = CALIBRATIONS
        .iter()
        .filter(|c| c.source == Source::Ra8d1Measurement || c.symbol.starts_with("cal_fp64") && c.core == Core::M55);
    for c in checked {
        let (a, b) = calibration::ITERATIONS;
        let at = |estimators: &mut Estimators, n: u32| {
            let mut args = vec![Arg::U32(n)];
            if c.buffer {
                args.push(Arg::InOut(vec![0; 64]));
            }
            estimators.cycles(Image::of(c.core), c.symbol, &args).expect("an estimate")
        };
        let per_iteration = (at(&mut estimators, b) - at(&mut estimators, a)) / f64::from(b - a);
        assert!((per_iteration - c.published).abs() <= 0.10 * c.published, "{}: {per_iteration}", c.symbol);
    }
}
