//! `pqhelium`: the command line of the test bench.

use std::process::ExitCode;
use std::time::{Duration, Instant};

use anyhow::{Context, Result, bail};
use clap::{Parser, Subcommand};
use pqhelium_testbench::backend::{Arg, BackendKind, Call, Limits};
use pqhelium_testbench::diff::{self, Campaign, CampaignResult, Failure};
use pqhelium_testbench::kat;
use pqhelium_testbench::registry::{self, KernelSpec, case_rng};

#[derive(Parser)]
#[command(name = "pqhelium", version, about = "Emulator-backed test bench for Cortex-M55/M85 post-quantum kernels")]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// The main job: every known-answer test and a short differential campaign of every kernel on every backend.
    Check {
        /// Cases per kernel and backend.
        #[arg(long, default_value_t = 2000)]
        cases: u64,
        #[arg(long, default_value_t = 1)]
        seed: u64,
        #[arg(long, default_value_t = default_jobs())]
        jobs: usize,
    },
    /// Kernels (id and contract) and backends (available or why not).
    List,
    /// Differential campaign: reference vs model vs object code, byte for byte.
    Fuzz {
        /// Kernel id or glob pattern (`keccak.*`).
        #[arg(long)]
        kernel: String,
        /// Backends to run (repeatable); all when absent.
        #[arg(long, value_enum)]
        backend: Vec<BackendKind>,
        #[arg(long, default_value_t = 10_000)]
        cases: u64,
        /// Campaign seed; a fresh one (printed) when absent.
        #[arg(long)]
        seed: Option<u64>,
        #[arg(long, default_value_t = default_jobs())]
        jobs: usize,
        /// Cases per guest round trip.
        #[arg(long, default_value_t = 64)]
        batch: usize,
        /// Report every failing case instead of stopping at the first.
        #[arg(long)]
        keep_going: bool,
        /// Wall-clock budget of one guest round trip, in seconds.
        #[arg(long, default_value_t = 10.0)]
        timeout: f64,
    },
    /// Re-runs one case alone and prints its inputs, every output and the first difference.
    Repro {
        #[arg(long)]
        kernel: String,
        #[arg(long, value_enum)]
        backend: BackendKind,
        #[arg(long)]
        seed: u64,
        #[arg(long)]
        case: u64,
    },
    /// Calls/s per backend: one call per round trip, batched round trips, and the kernel looping inside the guest.
    Bench {
        #[arg(long, default_value = "keccak.f1600")]
        kernel: String,
        #[arg(long, default_value_t = 20_000)]
        calls: u64,
    },
}

fn default_jobs() -> usize {
    std::thread::available_parallelism().map_or(1, |n| n.get())
}

fn main() -> ExitCode {
    tracing_subscriber::fmt()
        .with_env_filter(tracing_subscriber::EnvFilter::try_from_default_env().unwrap_or_else(|_| "warn".into()))
        .with_writer(std::io::stderr)
        .init();
    match run(Cli::parse()) {
        Ok(true) => ExitCode::SUCCESS,
        Ok(false) => ExitCode::FAILURE,
        Err(e) => {
            eprintln!("error: {e:#}");
            ExitCode::from(2)
        }
    }
}

/// Ok(passed) for commands that check something.
fn run(cli: Cli) -> Result<bool> {
    match cli.command {
        Command::List => {
            list();
            Ok(true)
        }
        Command::Check { cases, seed, jobs } => check(cases, seed, jobs),
        Command::Fuzz { kernel, backend, cases, seed, jobs, batch, keep_going, timeout } => {
            let kernels = registry::matching(&kernel);
            if kernels.is_empty() {
                bail!("no kernel matches `{kernel}` (see `pqhelium list`)");
            }
            let backends = if backend.is_empty() { BackendKind::ALL.to_vec() } else { backend };
            let seed = seed.unwrap_or_else(fresh_seed);
            println!("seed {seed}");
            let limits = Limits { timeout: Duration::from_secs_f64(timeout) };
            let mut total = Vec::new();
            for kernel in kernels {
                for &backend in &backends {
                    if !kernel.runs_on(backend) {
                        println!("{}: no {} build (MVE code runs on QEMU only)", kernel.id, backend);
                        continue;
                    }
                    let campaign =
                        Campaign { kernel, backend, seed, cases, jobs, batch, keep_going, limits, progress: true };
                    let result = diff::run(&campaign);
                    print_failures(&result);
                    println!("{} on {}: {}", kernel.id, backend, result.summary_line());
                    total.push(result);
                }
            }
            println!("{}", total_line(&total));
            Ok(total.iter().all(CampaignResult::passed))
        }
        Command::Repro { kernel, backend, seed, case } => repro(&kernel, backend, seed, case),
        Command::Bench { kernel, calls } => bench(&kernel, calls),
    }
}

fn fresh_seed() -> u64 {
    let nanos = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map_or(0, |d| d.as_nanos());
    (nanos as u64) ^ u64::from(std::process::id()).rotate_left(32)
}

fn find_kernel(id: &str) -> Result<&'static KernelSpec> {
    registry::find(id).with_context(|| format!("unknown kernel `{id}` (see `pqhelium list`)"))
}

fn list() {
    println!("kernels:");
    for k in registry::all() {
        println!("  {:<22} {}", k.id, k.summary);
        println!("  {:<22} {}", "", k.signature);
        println!("  {:<22} pre: {}; post: {}", "", k.precondition, k.postcondition);
    }
    println!("backends:");
    for b in BackendKind::ALL {
        let what = match b {
            BackendKind::Model => "the sim model against the reference (no object code)",
            BackendKind::Unicorn => "Cortex-M7 image (Thumb-2 + FP64) in process",
            BackendKind::Qemu => "Cortex-M55 image (FP64 + MVE) on qemu-system-arm mps3-an547",
        };
        match b.availability() {
            Ok(()) => println!("  {:<8} available: {what}", b.name()),
            Err(why) => println!("  {:<8} NOT available: {why}", b.name()),
        }
    }
}

fn print_failures(result: &CampaignResult) {
    if let Some(e) = &result.setup_error {
        println!("FAILED to start: {e}");
    }
    for f in result.failures.iter().take(10) {
        println!("FAIL {} on {}, seed {}, {f}", result.kernel, result.backend, result.seed);
        println!(
            "     reproduce: pqhelium repro --kernel {} --backend {} --seed {} --case {}",
            result.kernel, result.backend, result.seed, f.case
        );
    }
    if result.failures.len() > 10 {
        println!("... and {} more failing cases", result.failures.len() - 10);
    }
}

fn total_line(results: &[CampaignResult]) -> String {
    let cases: u64 = results.iter().map(|r| r.cases_run).sum();
    let mismatches: usize = results.iter().map(CampaignResult::mismatches).sum();
    let faults: usize = results.iter().map(CampaignResult::faults).sum();
    let secs: f64 = results.iter().map(|r| r.elapsed.as_secs_f64()).sum();
    format!("{cases} cases, {mismatches} mismatches, {faults} faults, {:.0} cases/s", cases as f64 / secs.max(1e-9))
}

fn check(cases: u64, seed: u64, jobs: usize) -> Result<bool> {
    let mut all_passed = true;
    println!("## Known-answer tests\n");
    let kats = kat::run_all();
    let kat_failures: Vec<_> = kats.iter().filter(|k| !k.passed).collect();
    println!("{} known answers, {} failed", kats.len(), kat_failures.len());
    for k in &kat_failures {
        println!("FAIL {} {}: {}", k.suite, k.name, k.detail);
    }
    all_passed &= kat_failures.is_empty();

    println!("\n## Differential campaigns (seed {seed}, {cases} cases each)\n");
    println!("| kernel | backend | cases | mismatches | faults | cases/s | instructions/call | result |");
    println!("|---|---|---:|---:|---:|---:|---:|---|");
    let mut results = Vec::new();
    for kernel in registry::all() {
        for backend in BackendKind::ALL.into_iter().filter(|&b| kernel.runs_on(b)) {
            let campaign = Campaign {
                kernel,
                backend,
                seed,
                cases,
                jobs,
                batch: 64,
                keep_going: false,
                limits: Limits::default(),
                progress: false,
            };
            let r = diff::run(&campaign);
            let instructions = r.instructions.mean().map_or("-".to_string(), |m| format!("{m:.0}"));
            let verdict = if r.passed() { "pass" } else { "FAIL" };
            println!(
                "| {} | {} | {} | {} | {} | {:.0} | {instructions} | {verdict} |",
                r.kernel,
                r.backend,
                r.cases_run,
                r.mismatches(),
                r.faults(),
                r.cases_per_second()
            );
            all_passed &= r.passed();
            results.push(r);
        }
    }
    println!();
    for r in &results {
        print_failures(r);
    }
    println!("{}", total_line(&results));
    println!("{}", if all_passed { "check passed" } else { "check FAILED" });
    Ok(all_passed)
}

fn repro(kernel: &str, backend: BackendKind, seed: u64, case: u64) -> Result<bool> {
    let kernel = find_kernel(kernel)?;
    let args = (kernel.generate)(case, &mut case_rng(seed, case));
    println!("kernel {} ({}), seed {seed}, case {case}", kernel.id, kernel.signature);
    for (i, arg) in args.iter().enumerate() {
        match arg {
            Arg::In(b) => println!("arg {i} in     {}", hex::encode(b)),
            Arg::InOut(b) => println!("arg {i} in/out {}", hex::encode(b)),
            Arg::Out(n) => println!("arg {i} out    {n} bytes"),
            Arg::U32(v) => println!("arg {i} u32    {v:#x}"),
            Arg::F64(x) => println!("arg {i} f64    {x:e} ({:#018x})", x.to_bits()),
        }
    }
    let show = |name: &str, o: &registry::Outcome| {
        for (i, b) in o.buffers.iter().enumerate() {
            println!("{name:<12} buffer {i}: {}", hex::encode(b));
        }
        if let Some(r) = o.ret {
            println!("{name:<12} returns {r:#x}");
        }
    };
    let (model, model_failure) = diff::check_model(kernel, &args);
    show("reference", &(kernel.reference)(&args));
    show("canon(model)", &(kernel.canon)(&model));
    show("model", &model);
    let mut failure = model_failure;
    if backend != BackendKind::Model {
        if !kernel.runs_on(backend) {
            bail!("{} has no build for {backend}", kernel.id);
        }
        let mut emulator = backend.open(Limits::default())?;
        let result = emulator.call(&Call::new(kernel.symbol, args.clone()));
        if let Ok(output) = &result {
            show(backend.name(), &kernel.outcome_of(&args, output));
            println!("{} executed {} instructions", backend, output.instructions);
        }
        let (_, object_failure) = diff::check_object_code(kernel, backend, &args, &model, result);
        failure = failure.or(object_failure);
    }
    match &failure {
        None => println!("no difference"),
        Some(Failure::Mismatch { left, right, difference: d }) => {
            println!("first difference: {left} vs {right} at {}: {} vs {}", d.place, d.expected, d.actual)
        }
        Some(Failure::Fault(e)) => println!("{e}"),
    }
    Ok(failure.is_none())
}

fn bench(kernel: &str, calls: u64) -> Result<bool> {
    let kernel = find_kernel(kernel)?;
    let args = (kernel.generate)(kernel.edge_cases, &mut case_rng(1, kernel.edge_cases));
    let one = Call::new(kernel.symbol, args.clone());
    println!("{}: {calls} calls per measurement, best of 3 rounds, one worker per backend\n", kernel.id);
    println!(
        "| backend | calls/s, 1 call per round trip | calls/s, 64 per round trip | calls/s, loop inside the guest | efficiency 1 | efficiency 64 | instructions/call |"
    );
    println!("|---|---:|---:|---:|---:|---:|---:|");
    let started = Instant::now();
    for _ in 0..calls {
        std::hint::black_box((kernel.model)(&args));
    }
    let model_rate = calls as f64 / started.elapsed().as_secs_f64();
    println!("| model (native Rust) | {model_rate:.0} | | | | | |");
    for backend in [BackendKind::Unicorn, BackendKind::Qemu].into_iter().filter(|&b| kernel.runs_on(b)) {
        let mut emulator = backend.open(Limits { timeout: Duration::from_secs(600) })?;
        emulator.call(&one)?; // warm-up: translation caches
        let rate = |batch: u64, emulator: &mut Box<dyn pqhelium_testbench::backend::Backend>| -> Result<f64> {
            let started = Instant::now();
            let mut done = 0;
            while done < calls {
                let n = batch.min(calls - done);
                let batch_calls = vec![one.clone(); n as usize];
                for r in emulator.run_batch(&batch_calls) {
                    r?;
                }
                done += n;
            }
            Ok(calls as f64 / started.elapsed().as_secs_f64())
        };
        let looped = |emulator: &mut Box<dyn pqhelium_testbench::backend::Backend>| -> Result<(f64, u64)> {
            let started = Instant::now();
            let output = emulator.call(&Call { repeat: calls as u32, ..one.clone() })?;
            Ok((calls as f64 / started.elapsed().as_secs_f64(), output.instructions / calls))
        };
        // Best of three rounds, interleaved, so that a burst of load on the machine hits all three alike.
        let (mut single, mut batched, mut guest) = (0f64, 0f64, (0f64, 0u64));
        for _ in 0..3 {
            single = single.max(rate(1, &mut emulator)?);
            batched = batched.max(rate(64, &mut emulator)?);
            let g = looped(&mut emulator)?;
            guest = if g.0 > guest.0 { g } else { guest };
        }
        let looped = guest;
        println!(
            "| {backend} | {single:.0} | {batched:.0} | {:.0} | {:.2} | {:.2} | {} |",
            looped.0,
            single / looped.0,
            batched / looped.0,
            looped.1
        );
    }
    Ok(true)
}
