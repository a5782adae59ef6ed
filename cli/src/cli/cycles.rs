//! `pqhelium cycles`: estimated Cortex-M55 and Cortex-M85 cycles per call of each kernel, from the blocks QEMU ran
//! and LLVM's scheduling models of the two cores (`pqhelium_analyses::cycles`, docs/cycles.md).

use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::{Context, Result, bail};
use pqhelium_analyses::cycles::{self, Class, Core, Estimator, Timing, calibration, plot};
use pqhelium_families::{self as registry, case_rng};
use pqhelium_guest::backend::{BackendKind, Image};
use pqhelium_schemes::operations::{self, OperationPart, Scheme};

/// The most blocks `--blocks N` prints (0 prints them all).
const MAX_BLOCKS: u64 = 1_000_000;

#[derive(clap::Args)]
pub struct Args {
    /// With --manifest: run an object the lint refuses for this rule (repeatable: `undecodable`,
    /// `potentially-undefined`, `unpredictable-operands`), for investigation: every result is marked, and the exit
    /// code is 1 at best.
    #[arg(long, requires = "manifest", value_name = "RULE")]
    allow_lint: Vec<String>,
    /// Kernel id or glob; with --manifest, its symbols.
    #[arg(long, default_value = "*")]
    kernel: String,
    /// The core (its image and its scheduling model); both when absent.
    #[arg(long, value_parser = estimated_core)]
    core: Vec<Core>,
    /// Your kernels' manifest instead (README "Check your own kernel"): its symbols on the image linked from it, timed
    /// by the model of the manifest's core (m55 or m85).
    #[arg(long, conflicts_with_all = ["core", "calibration"])]
    manifest: Option<PathBuf>,
    /// Calls profiled per kernel (random cases after the edge cases; the estimate is their average).
    #[arg(long, default_value_t = 4, value_parser = clap::value_parser!(u64).range(1..=256))]
    calls: u64,
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// Estimate this case alone instead (numbered as `fuzz` and `repro` number them: the edge cases first).
    #[arg(long, conflicts_with = "calls", value_parser = super::numbers::case())]
    case: Option<u64>,
    /// Pin a contract parameter (repeatable): only cases with NAME = VALUE, e.g. `--param logn=9`.
    #[arg(long = "param", value_name = "NAME=VALUE")]
    params: Vec<registry::Pin>,
    /// Also print each kernel's N costliest blocks, most cycles first (12 without N, 0 for all).
    #[arg(long, value_name = "N", num_args = 0..=1, default_missing_value = "12",
          value_parser = clap::value_parser!(u64).range(0..=MAX_BLOCKS))]
    blocks: Option<u64>,
    /// Write the cycles split by instruction class as an SVG chart.
    #[arg(long)]
    plot: Option<PathBuf>,
    /// Instead: the calibration kernels, predicted against their published cycles per iteration.
    #[arg(long, conflicts_with_all = ["kernel", "blocks", "plot", "operation", "case", "params"])]
    calibration: bool,
    /// Instead: the kernel part of whole operations (their known answers, kernels as object code), per operation.
    #[arg(long, value_enum, conflicts_with_all = ["kernel", "blocks", "case", "manifest", "params"])]
    operation: Vec<Scheme>,
    /// With --operation: X-Wing vectors (at most 3), FN-DSA signatures and keys per degree.
    #[arg(long, default_value_t = 2, value_parser = clap::value_parser!(u32).range(1..=10))]
    vectors: u32,
}

/// `--core`: the cores with a cycle model.
fn estimated_core(name: &str) -> Result<Core, String> {
    cycles::CORES
        .into_iter()
        .find(|c| c.name() == name)
        .ok_or_else(|| format!("cycles are estimated for m55 and m85, not {name}"))
}

pub fn run(args: Args) -> Result<ExitCode> {
    if args.calibration {
        return calibration(&args.core);
    }
    if !args.operation.is_empty() {
        return operation_parts(&args);
    }
    let loaded = args.manifest.as_deref().map(|m| super::byo::load(m, None, &args.allow_lint)).transpose()?;
    let (kernels, targets): (Vec<_>, Vec<(Core, Image)>) = match &loaded {
        Some(loaded) => {
            let cpu = loaded.image.guest().cpu;
            let Some(core) = cycles::CORES.into_iter().find(|c| c.cpu() == cpu) else {
                bail!("cycles are estimated for the Cortex-M55 and Cortex-M85; the manifest's core is {cpu}");
            };
            (super::byo::matching(loaded, &args.kernel)?, vec![(core, loaded.image)])
        }
        None => {
            let kernels: Vec<_> =
                registry::matching(&args.kernel).into_iter().filter(|k| k.runs_on(BackendKind::Qemu)).collect();
            if kernels.is_empty() {
                bail!(
                    "no kernel with object code for the M55/M85 images matches `{}` (see `pqhelium list`)",
                    args.kernel
                );
            }
            let cores = if args.core.is_empty() { cycles::CORES.to_vec() } else { args.core.clone() };
            (kernels, cores.into_iter().map(|c| (c, Image::of(c))).collect())
        }
    };
    let kernels = super::pinned(kernels, &args.params)?;
    if let Some(path) = &args.plot {
        super::ensure_writable("--plot", path)?;
    }
    let mut bars = Vec::new();
    let mut estimated = 0;
    for (core, image) in targets {
        let mut estimator = Estimator::on_image(core, image)?;
        for kernel in &kernels {
            if !estimator.has_symbol(kernel.symbol) {
                continue;
            }
            let numbers: Vec<u64> = match args.case {
                Some(case) => vec![case],
                None => (0..args.calls).map(|i| kernel.edge_cases + i).collect(),
            };
            let cases: Vec<_> =
                numbers.into_iter().map(|case| kernel.generate(case, &mut case_rng(args.seed, case))).collect();
            let estimate =
                estimator.estimate(kernel.symbol, &cases).with_context(|| format!("{} on {core}", kernel.id))?;
            println!(
                "{} {core}: {:.0} cycles/call, {:.0} instructions/call",
                kernel.id, estimate.cycles, estimate.instructions
            );
            if let Some(shown) = args.blocks {
                let shown = if shown == 0 { estimate.blocks.len() } else { shown as usize };
                let classes: Vec<String> = Class::ALL
                    .iter()
                    .zip(estimate.by_class)
                    .filter(|(_, c)| *c > 0.0)
                    .map(|(class, c)| format!("{} {:.0}", class.name(), c))
                    .collect();
                println!("    by class: {}; branch and loop terms {:.0}", classes.join(", "), estimate.branch_terms);
                println!("    {:>10} {:>12} {:>8} {:>12}  block", "cycles", "executions", "insns", "cycles/exec");
                for block in estimate.blocks.iter().take(shown) {
                    println!(
                        "    {:>10.0} {:>12.1} {:>8} {:>12.1}  {} ({})",
                        block.cycles,
                        block.executions,
                        block.id.insns,
                        block.cycles / block.executions,
                        block.location,
                        block.id
                    );
                }
                if estimate.blocks.len() > shown {
                    println!("    ... {} more blocks", estimate.blocks.len() - shown);
                }
            }
            bars.push(plot::Bar { label: format!("{} {core}", kernel.id), by_class: estimate.by_class });
            estimated += 1;
        }
    }
    if let Some(path) = &args.plot {
        let title = format!("Estimated cycles per call by instruction class ({})", args.kernel);
        std::fs::write(path, plot::svg(&title, &bars)).with_context(|| format!("--plot {}", path.display()))?;
    }
    println!("{estimated} estimates (llvm-mca-19 scheduling models; error model in docs/cycles.md)");
    Ok(ExitCode::SUCCESS)
}

/// The calibration table: published and predicted cycles per iteration, the error, the set (fit or held out), the
/// source; then the worst error of each set against the goal.
fn calibration(cores: &[Core]) -> Result<ExitCode> {
    println!("| kernel | core | published cycles/iteration | predicted | error | set | source |");
    println!("|---|---|---:|---:|---:|---|---|");
    let mut errors: Vec<(calibration::Set, f64)> = Vec::new();
    for core in cycles::CORES.into_iter().filter(|c| cores.is_empty() || cores.contains(c)) {
        let mut estimator = Estimator::new(core)?;
        for c in calibration::CALIBRATIONS.iter().filter(|c| c.core == core) {
            let outcome = calibration::run(&mut estimator, c).with_context(|| format!("{} on {core}", c.symbol))?;
            println!(
                "| {} | {core} | {:.1} | {:.1} | {:+.1} % | {} | {} |",
                c.symbol,
                c.published,
                outcome.predicted,
                100.0 * outcome.error,
                c.set.name(),
                c.source.describe()
            );
            errors.push((c.set, outcome.error.abs()));
        }
    }
    for set in [calibration::Set::Fit, calibration::Set::HeldOut] {
        let of_set: Vec<f64> = errors.iter().filter(|e| e.0 == set).map(|e| e.1).collect();
        let worst = of_set.iter().copied().fold(0.0, f64::max);
        let mean = of_set.iter().sum::<f64>() / of_set.len().max(1) as f64;
        let within = of_set.iter().filter(|&&e| e <= calibration::GOAL).count();
        println!(
            "{}: {} kernels, mean |error| {:.1} %, worst {:.1} %, {within} within the goal of {:.0} %",
            set.name(),
            of_set.len(),
            100.0 * mean,
            100.0 * worst,
            100.0 * calibration::GOAL
        );
    }
    Ok(ExitCode::SUCCESS)
}

/// The kernel part of whole operations per core: a table per scheme with each part's kernel calls, then each
/// operation's variants compared.
fn operation_parts(args: &Args) -> Result<ExitCode> {
    if let Some(path) = &args.plot {
        super::ensure_writable("--plot", path)?;
    }
    let cores = if args.core.is_empty() { cycles::CORES.to_vec() } else { args.core.clone() };
    let mut bars = Vec::new();
    for core in cores {
        let mut timing = Timing::new(core)?;
        for &scheme in &args.operation {
            let parts = operations::run(&mut timing, scheme, args.vectors)
                .with_context(|| format!("--operation {} on {core}", scheme.name()))?;
            print_parts(core, scheme, &parts);
            bars.extend(parts.iter().map(|part| plot::Bar {
                label: format!("{} ({}) {core}", part.operation, part.variant),
                by_class: part.by_class(),
            }));
        }
    }
    if let Some(path) = &args.plot {
        let title = "Estimated cycles of the kernel part per operation";
        std::fs::write(path, plot::svg_per(title, "operation", &bars))
            .with_context(|| format!("--plot {}", path.display()))?;
    }
    println!(
        "kernel part only: what runs on the host (Keccak outside verification, samplers, encodings, FN-DSA signing's \
         integer parts) is not counted"
    );
    Ok(ExitCode::SUCCESS)
}

fn print_parts(core: Core, scheme: Scheme, parts: &[OperationPart]) {
    println!("\n--operation {} on {core} ({} image), kernel part per operation:\n", scheme.name(), Image::of(core));
    println!("| operation | kernels | runs | instructions | est. cycles | kernel calls per operation (cycles/call) |");
    println!("|---|---|---:|---:|---:|---|");
    for part in parts {
        let calls: Vec<String> = part
            .kernels
            .iter()
            .map(|k| {
                format!("{} x{} ({:.0})", k.symbol, k.calls as f64 / part.operations as f64, k.cycles / k.calls as f64)
            })
            .collect();
        println!(
            "| {} | {} | {} | {:.0} | {:.0} | {} |",
            part.operation,
            part.variant,
            part.operations,
            part.instructions(),
            part.cycles(),
            calls.join(", ")
        );
    }
    // Each operation's first variant against the others (optimised against baseline, native against soft-float).
    let mut by_operation: Vec<(&str, Vec<&OperationPart>)> = Vec::new();
    for part in parts {
        match by_operation.iter_mut().find(|(op, _)| *op == part.operation) {
            Some((_, list)) => list.push(part),
            None => by_operation.push((&part.operation, vec![part])),
        }
    }
    println!();
    for (operation, list) in by_operation.iter().filter(|(_, l)| l.len() > 1) {
        let (first, other) = (list[0], list[1]);
        println!(
            "{operation}: {} against {}: cycles {:+.2} % ({:.2}x), instructions {:+.2} % ({:.2}x)",
            first.variant,
            other.variant,
            100.0 * (first.cycles() / other.cycles() - 1.0),
            other.cycles() / first.cycles(),
            100.0 * (first.instructions() / other.instructions() - 1.0),
            other.instructions() / first.instructions()
        );
    }
}
