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
    /// Arm's published latencies of the FP64 unit (the Cortex-M55/M85 software optimisation guides' figures as
    /// carried by Arm's LLVM scheduling models `ARMScheduleM55.td`/`ARMScheduleM85.td`).
    ArmLatencyTable,
    /// Arm's pipeline description in `ARMScheduleM55.td` (the VLDR/VADD/VMUL/VSTR beat diagrams).
    ArmM55PipelineDescription,
    /// Arm's FP64 latencies (as [`Source::ArmLatencyTable`]) on an unpipelined FP64 unit: independent operations take
    /// the sum of their latencies, as FALCON_M55's board figures of its signing FFT imply (docs/cycles.md).
    ArmLatencyTableUnpipelined,
}

impl Source {
    pub fn describe(self) -> &'static str {
        match self {
            Source::Ra8d1Measurement => "measured, RA8D1 (jnk0le/random pipeline cycle test)",
            Source::ArmLatencyTable => "Arm latency table (ARMScheduleM55/M85.td)",
            Source::ArmM55PipelineDescription => "Arm M55 beat diagram (ARMScheduleM55.td)",
            Source::ArmLatencyTableUnpipelined => "Arm latency table, FP64 unpipelined (ARMScheduleM55.td)",
        }
    }

    /// Whether the figure is independent of the scheduling model the estimate uses (a board measurement), or the
    /// same data the model was built from (then the check covers our composition of blocks, loops and terms only).
    pub fn independent_of_model(self) -> bool {
        self == Source::Ra8d1Measurement
    }
}

/// One calibration kernel on one core.
pub struct Calibration {
    pub symbol: &'static str,
    pub core: Core,
    /// Published cycles per loop iteration.
    pub published: f64,
    pub source: Source,
    /// Whether the kernel takes the 64-byte buffer.
    pub buffer: bool,
}

const fn cal(symbol: &'static str, core: Core, published: f64, source: Source, buffer: bool) -> Calibration {
    Calibration { symbol, core, published, source, buffer }
}

/// The calibration set. Per iteration: 20 cycles of dual-issued pairs; eight dependent FP64 operations (their latency
/// each); six independent FP64 operations, which the Cortex-M55 runs one after the other (their latency each); four MVE sequences (5 and 6 cycles each in Arm's diagrams; back to back they cannot overlap, since each
/// starts and ends on the load/store pipe).
pub const CALIBRATIONS: &[Calibration] = &[
    cal("cal_alu_pairs", Core::M85, 20.001, Source::Ra8d1Measurement, false),
    cal("cal_fp64_add_chain", Core::M55, 8.0 * 15.0, Source::ArmLatencyTable, false),
    cal("cal_fp64_add_chain", Core::M85, 8.0 * 6.0, Source::ArmLatencyTable, false),
    cal("cal_fp64_mul_chain", Core::M55, 8.0 * 21.0, Source::ArmLatencyTable, false),
    cal("cal_fp64_mul_chain", Core::M85, 8.0 * 8.0, Source::ArmLatencyTable, false),
    cal("cal_fp64_div_chain", Core::M55, 8.0 * 30.0, Source::ArmLatencyTable, false),
    cal("cal_fp64_div_chain", Core::M85, 8.0 * 29.0, Source::ArmLatencyTable, false),
    cal("cal_fp64_add_independent", Core::M55, 6.0 * 15.0, Source::ArmLatencyTableUnpipelined, false),
    cal("cal_fp64_mul_add_independent", Core::M55, 3.0 * (21.0 + 15.0), Source::ArmLatencyTableUnpipelined, false),
    cal("cal_mve_overlap", Core::M55, 4.0 * 5.0, Source::ArmM55PipelineDescription, true),
    cal("cal_mve_no_overlap", Core::M55, 4.0 * 6.0, Source::ArmM55PipelineDescription, true),
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
