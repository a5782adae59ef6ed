//! `pqhelium cycles`: estimates for a real kernel on both cores, the calibration against a board measurement and
//! Arm's latency tables, and the usage errors.

use std::process::Command;

use pqhelium_testbench::backend::{Call, Limits};
use pqhelium_testbench::cycles::calibration::{self, CALIBRATIONS, Source};
use pqhelium_testbench::cycles::{Core, Estimator};
use pqhelium_testbench::registry::{self, case_rng};

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
    for core in Core::ALL {
        let line = stdout.lines().find(|l| l.starts_with(&format!("fndsa.ntt512.fwd {core}: "))).expect(&stdout);
        let numbers: Vec<f64> =
            line.split(|c: char| !c.is_ascii_digit() && c != '.').filter_map(|w| w.parse().ok()).collect();
        let (cycles, instructions) = (numbers[numbers.len() - 2], numbers[numbers.len() - 1]);
        assert!(line.ends_with(" instructions/call") && line.contains(" cycles/call, "), "{line}");
        // The harness's count for the same two cases.
        let mut qemu = core.image().open(Limits::default()).unwrap();
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
/// published FP64 latencies, within the stated error of 10 %.
#[test]
fn calibration_kernels_within_the_stated_error() {
    for core in Core::ALL {
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
