//! `pqhelium fuzz`: differential campaigns at scale, checkpointed so that a killed campaign resumes where it stopped.
//!
//! The checkpoint is the JSON report itself: after every chunk of cases (at most every 200 ms) it records exactly
//! which case ranges ran and every failure so far. `--resume` skips those ranges. After Ctrl-C the chunks in flight
//! finish and the checkpoint is exact; after a hard kill, the chunks finished since the last checkpoint and those in
//! flight run again; none is skipped.

use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::sync::Mutex;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use anyhow::{Context, Result, bail};
use pqhelium_testbench::backend::{BackendKind, Limits};
use pqhelium_testbench::diff::{self, Campaign, CampaignResult, CaseFailure, Control, summary_line};
use pqhelium_testbench::registry;
use pqhelium_testbench::report::{self, Report};

pub fn default_jobs() -> usize {
    std::thread::available_parallelism().map_or(1, |n| n.get())
}

#[derive(clap::Args)]
pub struct Args {
    /// Kernel id or glob pattern (`keccak.*`, `*`).
    #[arg(long)]
    kernel: String,
    /// Backends to run (repeatable); every backend the kernel has when absent.
    #[arg(long, value_enum)]
    backend: Vec<BackendKind>,
    /// Cases per kernel and backend.
    #[arg(long, default_value_t = 10_000, conflicts_with = "duration")]
    cases: u64,
    /// Run for this long instead (`90s`, `30m`, `8h`), shared equally by the kernel x backend campaigns.
    #[arg(long, value_parser = parse_duration)]
    duration: Option<Duration>,
    /// Campaign seed; a fresh one (printed) when absent.
    #[arg(long)]
    seed: Option<u64>,
    #[arg(long, default_value_t = default_jobs())]
    jobs: usize,
    /// Cases per guest round trip.
    #[arg(long, default_value_t = diff::DEFAULT_BATCH)]
    batch: usize,
    /// Report every failing case instead of stopping at the first.
    #[arg(long)]
    keep_going: bool,
    /// On a machine the campaign has to itself: when the jobs leave a CPU over, each emulator worker (with its QEMU)
    /// runs on a CPU of its own and case generation and checking on the others.
    #[arg(long)]
    pin: bool,
    /// Wall-clock budget of one guest round trip, in seconds.
    #[arg(long, default_value_t = 10.0)]
    timeout: f64,
    /// Evaluations spent shrinking each failing input (0: none).
    #[arg(long, default_value_t = 2000)]
    shrink_budget: usize,
    /// Final JSON report (schema in docs/report.md).
    #[arg(long)]
    report: Option<PathBuf>,
    /// JUnit XML, one test case per kernel x backend.
    #[arg(long)]
    junit: Option<PathBuf>,
    /// Where the checkpoint goes.
    #[arg(long, default_value = "pqhelium-state.json")]
    state: PathBuf,
    /// Continue the campaign checkpointed in this file (same kernels, backends, seed and case count).
    #[arg(long)]
    resume: Option<PathBuf>,
}

fn parse_duration(text: &str) -> Result<Duration, String> {
    let (number, unit) = text.split_at(text.find(|c: char| !c.is_ascii_digit() && c != '.').unwrap_or(text.len()));
    let value: f64 = number.parse().map_err(|_| format!("`{text}`: expected a number and a unit (s, m, h)"))?;
    let seconds = match unit {
        "s" | "" => value,
        "m" => value * 60.0,
        "h" => value * 3600.0,
        _ => return Err(format!("`{text}`: unknown unit `{unit}` (s, m, h)")),
    };
    Ok(Duration::from_secs_f64(seconds))
}

/// Set by Ctrl-C, SIGTERM or SIGHUP: no new chunk starts; the checkpoint is written; the command exits with 130.
static INTERRUPTED: AtomicBool = AtomicBool::new(false);

/// Every mistake in the command line, found before the first case runs (exit code 2).
fn validate(args: &Args) -> Result<()> {
    if args.jobs == 0 {
        bail!("--jobs 0: at least one job is needed");
    }
    if !(1..=diff::DEFAULT_BATCH).contains(&args.batch) {
        bail!("--batch {}: between 1 and {} cases per round trip", args.batch, diff::DEFAULT_BATCH);
    }
    if !(args.timeout.is_finite() && args.timeout > 0.0) {
        bail!("--timeout {}: a positive number of seconds", args.timeout);
    }
    if args.duration.is_some_and(|d| d.is_zero()) {
        bail!("--duration 0: nothing would run");
    }
    match &args.resume {
        Some(checkpoint) => super::ensure_writable("--resume", checkpoint)?,
        None => super::ensure_writable("--state", &args.state)?,
    }
    for (flag, path) in [("--report", &args.report), ("--junit", &args.junit)] {
        if let Some(path) = path {
            super::ensure_writable(flag, path)?;
        }
    }
    Ok(())
}

pub fn run(args: Args) -> Result<ExitCode> {
    validate(&args)?;
    let kernels = registry::matching(&args.kernel);
    if kernels.is_empty() {
        bail!("no kernel matches `{}` (see `pqhelium list`)", args.kernel);
    }
    let (mut report, state_path) = match &args.resume {
        Some(path) => {
            let report = Report::load(path).map_err(anyhow::Error::msg)?;
            if args.seed.is_some_and(|s| s != report.seed) {
                bail!("--seed {} differs from the checkpoint's seed {}", args.seed.unwrap(), report.seed);
            }
            if report.case_generators != registry::CASE_GENERATORS {
                bail!(
                    "{} was made by case generators version {}, this pqhelium has version {}: the same seed gives \
                     other cases now, so the resumed part would not be the campaign that was started; start a new one",
                    path.display(),
                    report.case_generators,
                    registry::CASE_GENERATORS
                );
            }
            println!("resuming {} (seed {})", path.display(), report.seed);
            (report, path.clone())
        }
        None => (Report::new(args.seed.unwrap_or_else(fresh_seed)), args.state.clone()),
    };
    let seed = report.seed;
    println!("seed {seed}; checkpoint {} (resume with --resume {})", state_path.display(), state_path.display());
    let _ = ctrlc::set_handler(|| INTERRUPTED.store(true, Ordering::SeqCst));

    let mut pairs = Vec::new();
    for kernel in kernels {
        let backends: Vec<BackendKind> =
            if args.backend.is_empty() { BackendKind::ALL.to_vec() } else { args.backend.clone() };
        for backend in backends {
            if kernel.runs_on(backend) {
                pairs.push((kernel, backend));
            } else if backend == BackendKind::Model {
                println!("{}: checked two ways (reference == object code), it has no model to run", kernel.id);
            } else {
                println!(
                    "{}: no {backend} build (MVE code runs on QEMU only; schemes on the model backend)",
                    kernel.id
                );
            }
        }
    }
    if pairs.is_empty() {
        bail!("nothing to run: no kernel matching `{}` has a build for the backends asked for", args.kernel);
    }
    let cases = if args.duration.is_some() { u64::MAX } else { args.cases };
    let share = args.duration.map(|d| d / pairs.len().max(1) as u32);
    let mut results: Vec<CampaignResult> = Vec::new();
    for (kernel, backend) in pairs {
        let base = report.campaign_mut(kernel.id, backend.name()).clone();
        let cases = base.cases_requested.unwrap_or(cases);
        if base.ranges.holes(cases).is_empty() && !base.ranges.as_slice().is_empty() {
            println!("{} on {backend}: already complete ({} cases)", kernel.id, base.cases_run);
            continue;
        }
        let campaign = Campaign {
            duration: share,
            batch: args.batch,
            keep_going: args.keep_going,
            limits: Limits { timeout: Duration::from_secs_f64(args.timeout) },
            progress: true,
            shrink_budget: args.shrink_budget,
            pin: args.pin,
            ..Campaign::new(kernel, backend, seed, cases, args.jobs)
        };
        let checkpoint = Checkpoint::new(&report, &state_path, kernel.id, backend.name(), seed);
        let on_chunk = |range: [u64; 2], failures: &[CaseFailure]| checkpoint.record(range, failures);
        let control = Control { done: base.ranges.clone(), interrupt: Some(&INTERRUPTED), on_chunk: Some(&on_chunk) };
        let result = diff::run_with(&campaign, &control);
        super::print_failures(&result);
        println!("{} on {backend}: {} (ran {})", kernel.id, result.summary_line(), result.ran);
        let mut entry = base;
        entry.cases_requested = (args.duration.is_none()).then_some(cases);
        entry.absorb(&result);
        *report.campaign_mut(kernel.id, backend.name()) = entry;
        report.save(&state_path).with_context(|| format!("writing {}", state_path.display()))?;
        let stop = result.interrupted || (!result.passed() && !args.keep_going);
        results.push(result);
        if stop {
            break;
        }
    }
    let interrupted = INTERRUPTED.load(Ordering::SeqCst);
    report.complete = !interrupted;
    report.save(&state_path).with_context(|| format!("writing {}", state_path.display()))?;
    write_outputs(&report, args.report.as_deref(), args.junit.as_deref())?;
    let cases_run = results.iter().map(|r| r.cases_run()).sum();
    let elapsed = results.iter().map(|r| r.elapsed).sum();
    let mismatches = results.iter().map(|r| r.mismatches()).sum();
    let faults = results.iter().map(|r| r.faults()).sum();
    if interrupted {
        println!(
            "interrupted: resume with `pqhelium fuzz --kernel '{}' --resume {}`",
            args.kernel,
            state_path.display()
        );
    }
    println!("{}", summary_line(cases_run, mismatches, faults, elapsed));
    Ok(if interrupted { ExitCode::from(130) } else { super::exit(report.passed()) })
}

fn write_outputs(report: &Report, json: Option<&Path>, junit: Option<&Path>) -> Result<()> {
    if let Some(path) = json {
        report.save(path).with_context(|| format!("writing {}", path.display()))?;
    }
    if let Some(path) = junit {
        std::fs::write(path, report::junit(report)).with_context(|| format!("writing {}", path.display()))?;
    }
    Ok(())
}

fn fresh_seed() -> u64 {
    let nanos = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map_or(0, |d| d.as_nanos());
    (nanos as u64) ^ u64::from(std::process::id()).rotate_left(32)
}

/// The live checkpoint of one campaign: the report as it was, plus every chunk completed since.
struct Checkpoint<'a> {
    path: &'a Path,
    kernel: &'static str,
    backend: &'static str,
    seed: u64,
    live: Mutex<(Report, Instant)>,
}

const CHECKPOINT_EVERY: Duration = Duration::from_millis(200);

impl<'a> Checkpoint<'a> {
    fn new(report: &Report, path: &'a Path, kernel: &'static str, backend: &'static str, seed: u64) -> Self {
        let live = Mutex::new((report.clone(), Instant::now()));
        Self { path, kernel, backend, seed, live }
    }

    fn record(&self, [first, last]: [u64; 2], failures: &[CaseFailure]) {
        let mut live = self.live.lock().unwrap();
        let (report, saved) = &mut *live;
        let entry = report.campaign_mut(self.kernel, self.backend);
        entry.ranges.insert(first, last);
        entry.cases_run = entry.ranges.count();
        entry.failures.extend(failures.iter().map(|f| report::failure_report(self.kernel, self.backend, self.seed, f)));
        if !failures.is_empty() || saved.elapsed() >= CHECKPOINT_EVERY {
            if let Err(e) = report.save(self.path) {
                tracing::warn!("checkpoint {}: {e}", self.path.display());
            }
            *saved = Instant::now();
        }
    }
}
