//! The calibration kernels (`kernels/arm/calibration/`): short loops whose cycles per iteration on the Cortex-M55
//! and Cortex-M85 are published, estimated the way `pqhelium cycles` estimates every kernel. docs/cycles.md lists
//! predicted against published with the sources.

use anyhow::Result;

use super::{Core, Estimator};
use pqhelium_guest::backend::Arg;

/// Where a published figure comes from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Source {
    /// Measured on a Cortex-M85 board (Renesas RA8D1, r0p2): jnk0le/random, `pipeline cycle test/` (the loop
    /// template and its notes, `doc/cortex_m85.md`).
    Ra8d1Measurement,
    /// The same board and notes: an inner loop's branch in a loop nest costs 3-4 cycles of misprediction per run of
    /// the inner loop.
    Ra8d1NestedBranch,
    /// Arm's published latencies of the FP64 unit (the Cortex-M55/M85 software optimisation guides' figures as
    /// carried by Arm's LLVM scheduling models `ARMScheduleM55.td`/`ARMScheduleM85.td`).
    ArmLatencyTable,
    /// Arm's pipeline description in `ARMScheduleM55.td` (the VLDR/VADD/VMUL/VSTR beat diagrams).
    ArmM55PipelineDescription,
    /// Arm's FP64 latencies (as [`Source::ArmLatencyTable`]) on an unpipelined FP64 unit: independent operations take
    /// the sum of their latencies, as FALCON_M55's board figures of its signing FFT imply (docs/cycles.md).
    ArmLatencyTableUnpipelined,
    /// `MispredictPenalty = 3` of `ARMScheduleM55.td` paid on every taken branch, one cycle per instruction that does
    /// not dual-issue, and a low-overhead loop's first `le` executed (later ones from the loop cache).
    ArmM55BranchRefill,
}

impl Source {
    pub fn describe(self) -> &'static str {
        match self {
            Source::Ra8d1Measurement => "measured, RA8D1 (jnk0le/random pipeline cycle test)",
            Source::Ra8d1NestedBranch => "measured, RA8D1: nested-loop branch 3-4 (jnk0le/random cortex_m85.md)",
            Source::ArmLatencyTable => "Arm latency table (ARMScheduleM55/M85.td)",
            Source::ArmM55PipelineDescription => "Arm M55 beat diagram (ARMScheduleM55.td)",
            Source::ArmLatencyTableUnpipelined => "Arm latency table, FP64 unpipelined (ARMScheduleM55.td)",
            Source::ArmM55BranchRefill => "Arm M55 MispredictPenalty 3 per taken branch (ARMScheduleM55.td)",
        }
    }
}

/// Which set a calibration point belongs to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Set {
    /// The model's terms and constants come from the same source as the figure (Arm's latencies and penalties as
    /// LLVM's models state them): the point checks that the term is there and composed right, and fails when the
    /// term is removed, but it cannot show that the source is right about the core.
    Fit,
    /// Measured on a board, and nothing in the model was set from it.
    HeldOut,
}

impl Set {
    pub fn name(self) -> &'static str {
        match self {
            Set::Fit => "fit",
            Set::HeldOut => "held out",
        }
    }
}

/// One calibration kernel on one core.
pub struct Calibration {
    pub symbol: &'static str,
    pub core: Core,
    /// Published cycles per loop iteration.
    pub published: f64,
    pub source: Source,
    pub set: Set,
    /// Whether the kernel takes the 64-byte buffer.
    pub buffer: bool,
}

const fn cal(symbol: &'static str, core: Core, published: f64, source: Source, set: Set) -> Calibration {
    Calibration { symbol, core, published, source, set, buffer: false }
}

const fn with_buffer(calibration: Calibration) -> Calibration {
    Calibration { buffer: true, ..calibration }
}

/// The goal: every estimate within 10 % of its published figure.
pub const GOAL: f64 = 0.10;

/// The calibration set (each kernel's comment in `calibration.mve.c` derives its figure). Per iteration: 20 cycles
/// of dual-issued pairs; eight dependent FP64 operations (their latency each); six independent FP64 operations, which
/// both cores run one after the other (their latency each); four MVE sequences (5 and 6 cycles each in Arm's
/// diagrams); loops closed by a taken branch and nested loops, whose per-iteration cost contains the branch and loop
/// terms (a taken branch's refill, a first `le`, an inner loop's misprediction).
pub const CALIBRATIONS: &[Calibration] = &[
    cal("cal_alu_pairs", Core::M85, 20.001, Source::Ra8d1Measurement, Set::HeldOut),
    cal("cal_branch_nested", Core::M85, 2.0 * 5.0 + 3.5 + 0.5, Source::Ra8d1NestedBranch, Set::HeldOut),
    cal("cal_fp64_add_chain", Core::M55, 8.0 * 15.0, Source::ArmLatencyTable, Set::Fit),
    cal("cal_fp64_add_chain", Core::M85, 8.0 * 6.0, Source::ArmLatencyTable, Set::Fit),
    cal("cal_fp64_mul_chain", Core::M55, 8.0 * 21.0, Source::ArmLatencyTable, Set::Fit),
    cal("cal_fp64_mul_chain", Core::M85, 8.0 * 8.0, Source::ArmLatencyTable, Set::Fit),
    cal("cal_fp64_div_chain", Core::M55, 8.0 * 30.0, Source::ArmLatencyTable, Set::Fit),
    cal("cal_fp64_div_chain", Core::M85, 8.0 * 29.0, Source::ArmLatencyTable, Set::Fit),
    cal("cal_fp64_add_independent", Core::M55, 6.0 * 15.0, Source::ArmLatencyTableUnpipelined, Set::Fit),
    cal("cal_fp64_add_independent", Core::M85, 6.0 * 6.0, Source::ArmLatencyTableUnpipelined, Set::Fit),
    cal("cal_fp64_mul_add_independent", Core::M55, 3.0 * (21.0 + 15.0), Source::ArmLatencyTableUnpipelined, Set::Fit),
    with_buffer(cal("cal_mve_overlap", Core::M55, 4.0 * 5.0, Source::ArmM55PipelineDescription, Set::Fit)),
    with_buffer(cal("cal_mve_no_overlap", Core::M55, 4.0 * 6.0, Source::ArmM55PipelineDescription, Set::Fit)),
    cal("cal_branch_loop", Core::M55, 6.0 + 3.0, Source::ArmM55BranchRefill, Set::Fit),
    cal("cal_loop_once_nested", Core::M55, 6.0 + 3.0, Source::ArmM55BranchRefill, Set::Fit),
];

/// Iteration counts of the two runs: the estimate per iteration is the difference over the difference, so the
/// call's fixed cost (entry, exit, the loop set-up and the loop exit) drops out.
pub const ITERATIONS: (u32, u32) = (10, 110);

/// A calibration kernel's estimate per iteration.
pub struct Outcome {
    pub predicted: f64,
    /// (predicted - published) / published.
    pub error: f64,
}

/// Estimates one calibration kernel per iteration (the estimator must be on the kernel's core).
pub fn run(estimator: &mut Estimator, calibration: &Calibration) -> Result<Outcome> {
    let mut at = |n: u32| -> Result<f64> {
        let mut args = vec![Arg::U32(n)];
        if calibration.buffer {
            args.push(Arg::InOut(vec![0; 64]));
        }
        Ok(estimator.estimate(calibration.symbol, &[args])?.cycles)
    };
    let (a, b) = ITERATIONS;
    let predicted = (at(b)? - at(a)?) / f64::from(b - a);
    Ok(Outcome { predicted, error: (predicted - calibration.published) / calibration.published })
}
