//! `pqhelium ct`: constant-time evidence. For each kernel, pairs of inputs that differ only in the arguments its
//! contract marks secret run through the object code under trace; the first difference between the two leakage
//! traces is a leak (see `pqhelium_testbench::ct`).

use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::{Context, Result, bail};
use pqhelium_testbench::backend::{Image, Limits};
use pqhelium_testbench::ct::{self, KernelReport, Tracer, Verdict};
use pqhelium_testbench::registry;
use serde::Serialize;

#[derive(clap::Args)]
pub struct Args {
    /// Kernel id or glob; with --manifest, its symbols (all when absent).
    #[arg(long, required_unless_present = "manifest")]
    kernel: Option<String>,
    /// Your kernels' manifest instead (README "Check your own kernel"): its symbols traced on the image linked from it.
    #[arg(long, conflicts_with = "image")]
    manifest: Option<PathBuf>,
    /// Pairs per kernel; pair i compares case i with the secret arguments of a later case.
    #[arg(long, default_value_t = 100)]
    pairs: u64,
    /// Compare this pair alone (to reproduce a leak from its report line).
    #[arg(long, conflicts_with = "pairs")]
    pair: Option<u64>,
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// Guest image to trace (repeatable): m7 on unicorn, m55 and m85 on QEMU through the trace plugin.
    #[arg(long, value_enum, default_values_t = [Image::M7])]
    image: Vec<Image>,
    /// Also write the verdicts as JSON.
    #[arg(long)]
    report: Option<PathBuf>,
}

#[derive(Serialize)]
struct Report<'a> {
    schema: &'static str,
    kernels: &'a [KernelReport],
}

pub fn run(args: Args) -> Result<ExitCode> {
    let pattern = args.kernel.as_deref().unwrap_or("*");
    let loaded = args.manifest.as_deref().map(|m| super::byo::load(m, None)).transpose()?;
    let (kernels, mut images) = match &loaded {
        Some(loaded) => (super::byo::matching(loaded, pattern)?, vec![loaded.image]),
        None => (registry::matching(pattern), args.image.clone()),
    };
    if kernels.is_empty() {
        bail!("no kernel matches `{pattern}` (see `pqhelium list`)");
    }
    if let Some(path) = &args.report {
        super::ensure_writable("--report", path)?;
    }
    let range = match args.pair {
        Some(pair) => pair..pair + 1,
        None => 0..args.pairs,
    };
    images.dedup();
    let mut reports = Vec::new();
    for image in images {
        let mut tracer = Tracer::open(image, Limits::default())?;
        println!("leakage traces on {} ({image} image), seed {}", tracer.backend_name(), args.seed);
        for &kernel in &kernels {
            let report = ct::check_kernel(&mut tracer, kernel, args.seed, range.clone());
            print_verdict(&report);
            reports.push(report);
        }
    }
    if let Some(path) = &args.report {
        let json = serde_json::to_string_pretty(&Report { schema: "pqhelium-ct/1", kernels: &reports })?;
        std::fs::write(path, json + "\n").with_context(|| format!("--report {}", path.display()))?;
    }
    let pairs: u64 = reports.iter().map(|r| r.pairs).sum();
    let leaks = reports.iter().filter(|r| matches!(r.verdict, Verdict::Leak { .. })).count();
    let faults: u64 = reports.iter().map(|r| r.faults).sum();
    println!("{pairs} pairs, {leaks} leaks, {faults} faults");
    Ok(super::exit(leaks == 0 && faults == 0))
}

fn print_verdict(report: &KernelReport) {
    let KernelReport { kernel, pairs, faults, .. } = report;
    match &report.verdict {
        Verdict::Skipped { reason } => println!("SKIP {kernel}: {reason}"),
        Verdict::ConstantTime if *faults == 0 && report.declassified_pairs > 0 => println!(
            "pass {kernel}: {pairs} pairs, equal traces up to declared public events ({} pairs)",
            report.declassified_pairs
        ),
        Verdict::ConstantTime if *faults == 0 => println!("pass {kernel}: {pairs} pairs, equal traces"),
        Verdict::ConstantTime => println!("FAULT {kernel}: {pairs} pairs, {faults} faulted"),
        Verdict::Leak { pair, case_a, case_b, leak } => {
            println!("LEAK {kernel}: {leak}");
            println!("     pair {pair}: case {case_a} with the secret arguments of case {case_b}");
            let on = match pqhelium_testbench::byo::manifest_of(&report.image) {
                Some(manifest) => format!("--manifest {}", manifest.display()),
                None => format!("--image {}", report.image),
            };
            println!("     reproduce: pqhelium ct --kernel {kernel} {on} --seed {} --pair {pair}", report.seed);
        }
    }
    if let Some(fault) = &report.first_fault {
        println!("     first fault: {fault}");
    }
    for declaration in &report.declarations {
        println!("     declared public: {declaration}");
    }
    if let Some(leak) = &report.first_declassified {
        println!("     {} pairs first differ at a declared public event, the first: {leak}", report.declassified_pairs);
    }
}
