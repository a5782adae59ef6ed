//! `pqhelium fuzz`: differential campaigns at scale, checkpointed so that a killed campaign resumes where it stopped.
//!
//! The checkpoint is the JSON report itself, written before the first case and then as chunks of cases complete
//! (every [`CHECKPOINT_EVERY`] or [`CHECKPOINT_EVERY_CASES`] cases, whichever comes first, and at once on a
//! failure): it records exactly which case ranges ran and every failure so far, and is replaced atomically. `--resume`
//! runs exactly the cases it does not record. After Ctrl-C the chunks in flight finish and the checkpoint is exact;
//! after a hard kill, what ran but was not yet recorded runs again (the chunks completed since the last write and
//! those in flight, each chunk sized to about [`diff::CHUNK_TARGET`] of work); no recorded case runs twice and none
//! is skipped.
//!
//! `--shard K/N` runs the K-th of N disjoint slices of the cases ([`Shard`]); `pqhelium merge` combines the shards'
//! reports into the report of one run.

use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::sync::Mutex;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use anyhow::{Context, Result, bail};
use pqhelium_engine::diff::{self, Campaign, CampaignResult, CaseFailure, Control, summary_line};
use pqhelium_engine::ranges::Ranges;
use pqhelium_engine::report::{self, ManifestRecord, Plan, Report};
use pqhelium_engine::shard::Shard;
use pqhelium_families as registry;
use pqhelium_guest::backend::{BackendKind, Image, Limits, target_label};

#[derive(clap::Args)]
pub struct Args {
    /// With --manifest: run an object the lint refuses for this rule (repeatable: `undecodable`,
    /// `potentially-undefined`, `unpredictable-operands`), for investigation: every result is marked, and the exit
    /// code is 1 at best.
    #[arg(long, value_name = "RULE")]
    allow_lint: Vec<String>,
    /// Kernel id or glob pattern (`keccak.*`, `*`); with --manifest, its symbols (all when absent); with --resume,
    /// the checkpoint's.
    #[arg(long, required_unless_present_any = ["manifest", "resume"])]
    kernel: Option<String>,
    /// Your kernels' manifest instead (README "Check your own kernel"): its symbols on the image linked from it.
    #[arg(long, conflicts_with = "image")]
    manifest: Option<PathBuf>,
    /// Backends to run (repeatable); every backend the kernel has when absent.
    #[arg(long, value_enum)]
    backend: Vec<BackendKind>,
    /// The guest image the emulator runs (m85: clang's Cortex-M85 build on QEMU); alone, it picks its backend.
    /// Each backend's default image (m55 on QEMU, m7 on unicorn) when absent.
    #[arg(long, value_enum)]
    image: Option<Image>,
    /// Cases per kernel and backend [default: 10000].
    #[arg(long, conflicts_with = "duration", value_parser = super::numbers::cases())]
    cases: Option<u64>,
    /// Run for this long instead (`90s`, `30m`, `8h`, `1h30m`), shared equally by the kernel x backend campaigns.
    #[arg(long, value_parser = parse_duration)]
    duration: Option<Duration>,
    /// Campaign seed; a fresh one (printed) when absent.
    #[arg(long)]
    seed: Option<u64>,
    #[arg(long, default_value_t = super::default_jobs(), value_parser = super::numbers::jobs())]
    jobs: usize,
    /// Cases per guest round trip.
    #[arg(long, default_value_t = diff::DEFAULT_BATCH, value_parser = batch_size)]
    batch: usize,
    /// Report every failing case instead of stopping at the first.
    #[arg(long)]
    keep_going: bool,
    /// On a machine the campaign has to itself: when the jobs leave a CPU over, each emulator worker (with its QEMU)
    /// runs on a CPU of its own and case generation and checking on the others.
    #[arg(long)]
    pin: bool,
    /// Wall-clock budget of one guest round trip, in seconds.
    #[arg(long, default_value_t = 10.0, value_parser = parse_timeout)]
    timeout: f64,
    /// Evaluations spent shrinking each failing input (0: none).
    #[arg(long, default_value_t = 2000, value_parser = shrink_budget())]
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
    /// Continue the campaign checkpointed in this file (same kernels, backends, seed, case count and shard).
    #[arg(long)]
    resume: Option<PathBuf>,
    /// Pin a contract parameter (repeatable): only cases with NAME = VALUE, e.g. `--param logn=9`.
    #[arg(long = "param", value_name = "NAME=VALUE", conflicts_with = "resume")]
    params: Vec<registry::Pin>,
    /// Run only shard K of N (K = 0..N-1): the K-th of N disjoint slices of the cases, for campaigns split across
    /// machines; `pqhelium merge` combines the shards' reports.
    #[arg(long)]
    shard: Option<Shard>,
}

/// The longest `--timeout` of one round trip, in seconds: a day.
const MAX_TIMEOUT: f64 = 86_400.0;

/// The most evaluations `--shrink-budget` spends on one failure: a shrink of a few hours at the most.
const MAX_SHRINK_BUDGET: u64 = 1_000_000;

fn shrink_budget() -> clap::builder::RangedU64ValueParser<usize> {
    clap::builder::RangedU64ValueParser::new().range(0..=MAX_SHRINK_BUDGET)
}

fn parse_timeout(text: &str) -> Result<f64, String> {
    let seconds: f64 = text.parse().map_err(|e| format!("`{text}`: {e}"))?;
    if !(seconds > 0.0 && seconds <= MAX_TIMEOUT) {
        return Err(format!("`{text}`: a number of seconds above 0 and at most {MAX_TIMEOUT}"));
    }
    Ok(seconds)
}

fn batch_size(text: &str) -> Result<usize, String> {
    match text.parse() {
        Ok(batch) if (1..=diff::DEFAULT_BATCH).contains(&batch) => Ok(batch),
        _ => Err(format!("`{text}`: between 1 and {} cases per round trip", diff::DEFAULT_BATCH)),
    }
}

fn parse_duration(text: &str) -> Result<Duration, String> {
    // A bare number has always meant seconds.
    let bare = !text.is_empty() && text.bytes().all(|b| b.is_ascii_digit() || b == b'.');
    let duration = if bare { humantime::parse_duration(&format!("{text}s")) } else { humantime::parse_duration(text) };
    let duration = duration.map_err(|e| format!("`{text}`: {e}"))?;
    if duration.is_zero() {
        return Err(format!("`{text}`: nothing would run"));
    }
    // The campaign's deadline is an `Instant`: one the clock cannot reach would overflow it.
    std::time::Instant::now()
        .checked_add(duration)
        .ok_or_else(|| format!("`{text}`: longer than the clock can count"))?;
    Ok(duration)
}

/// Set by Ctrl-C, SIGTERM or SIGHUP: no new chunk starts; the checkpoint is written; the command exits with 130.
static INTERRUPTED: AtomicBool = AtomicBool::new(false);

/// Every mistake in the command line, found before the first case runs (exit code 2).
fn validate(args: &Args) -> Result<()> {
    super::check_image(&args.backend, args.image)?;
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

const DEFAULT_CASES: u64 = 10_000;

pub fn run(args: Args) -> Result<ExitCode> {
    validate(&args)?;
    // A checkpoint that this command line contradicts, or whose manifest changed, is refused before anything links.
    let resumed = args.resume.as_deref().map(|path| resumed(path, &args)).transpose()?;
    let manifest = manifest_of_run(&args, resumed.as_ref());
    let recorded = resumed.as_ref().and_then(|r| r.plan.as_ref()).map(|p| p.kernel.clone());
    let pattern = args.kernel.clone().or(recorded).unwrap_or_else(|| "*".into());
    let user = manifest.as_deref().map(|m| super::byo::load(m, None, &args.allow_lint)).transpose()?;
    let kernels = match &user {
        Some(loaded) => super::byo::matching(loaded, &pattern)?,
        None => registry::matching(&pattern),
    };
    if kernels.is_empty() {
        bail!("{}", super::no_match(&pattern));
    }
    let kernels = super::pinned(kernels, &args.params)?;
    let plan = Plan {
        kernel: pattern.clone(),
        backends: args.backend.iter().map(|b| b.name().to_string()).collect(),
        cases: args.duration.is_none().then_some(args.cases.unwrap_or(DEFAULT_CASES)),
        image: args.image.map(|i| i.name().to_string()),
        shard: args.shard,
        manifest: manifest.as_deref().map(ManifestRecord::of).transpose().map_err(anyhow::Error::msg)?,
    };
    let (mut report, state_path) = match (resumed, &args.resume) {
        (Some(report), Some(path)) => (report, path.clone()),
        _ => {
            let mut report = Report::new(args.seed.unwrap_or_else(fresh_seed));
            report.plan = Some(plan.clone());
            (report, args.state.clone())
        }
    };
    // A resumed campaign runs as it was started: its plan, not this command line's defaults.
    let plan = report.plan.clone().unwrap_or(plan);
    let image = match plan.image.as_deref() {
        _ if let Some(loaded) = &user => Some(loaded.image),
        Some(name) => Some(Image::from_name(name).with_context(|| format!("unknown image `{name}` in the plan"))?),
        None => None,
    };
    let mut pairs = Vec::new();
    for kernel in kernels {
        let backends = BackendKind::ALL
            .into_iter()
            .filter(|b| plan.backends.is_empty() || plan.backends.contains(&b.name().to_string()))
            .filter(|&b| image.is_none_or(|i| i.backend() == b));
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
        bail!("nothing to run: no kernel matching `{}` has a build for the backends asked for", pattern);
    }
    // Written before anything runs, so that a campaign killed while it starts can be resumed.
    report.save(&state_path).with_context(|| format!("writing {}", state_path.display()))?;
    let seed = report.seed;
    let shard = plan.shard.unwrap_or(Shard::WHOLE);
    let of_shard = if shard == Shard::WHOLE { String::new() } else { format!("; shard {shard}") };
    println!(
        "seed {seed}{of_shard}; checkpoint {} (resume with --resume {})",
        state_path.display(),
        state_path.display()
    );
    let _ = ctrlc::set_handler(|| INTERRUPTED.store(true, Ordering::SeqCst));

    let cases = plan.cases.unwrap_or(u64::MAX);
    let share = args.duration.map(|d| d / pairs.len().max(1) as u32);
    let mut results: Vec<CampaignResult> = Vec::new();
    for (kernel, backend) in pairs {
        let image = image.or(backend.default_image());
        let image_name = image.map(Image::name);
        let on = target_label(backend, image);
        let base = report.campaign_on_image_mut(kernel.id, backend.name(), image_name).clone();
        let cases = base.cases_requested.unwrap_or(cases);
        // Not to run: what the checkpoint records, and the other shards' cases.
        let mut skip = shard.outside(cases);
        skip.extend(&base.ranges);
        if skip.holes(cases).is_empty() {
            println!("{} on {on}: already complete ({} cases)", kernel.id, base.cases_run);
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
            image,
            coverage: true,
            ..Campaign::new(kernel, backend, seed, cases, args.jobs)
        };
        let checkpoint = Checkpoint::new(&report, &state_path, kernel.id, (backend.name(), image_name), seed);
        let on_chunk = |range: [u64; 2], failures: &[CaseFailure]| checkpoint.record(range, failures);
        let control = Control { skip, interrupt: Some(&INTERRUPTED), on_chunk: Some(&on_chunk) };
        let result = diff::run_with(&campaign, &control);
        super::print_failures(&result, kernel, &args.params);
        println!("{} on {on}: {} (ran {})", kernel.id, result.summary_line(), result.ran);
        let mut entry = base;
        entry.cases_requested = plan.cases;
        entry.absorb(&result);
        if let Some(c) = &entry.coverage {
            println!("{} on {on}: {}", kernel.id, c.line());
        }
        *report.campaign_on_image_mut(kernel.id, backend.name(), image_name) = entry;
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
        println!("interrupted: resume with `pqhelium fuzz --kernel '{}' --resume {}`", pattern, state_path.display());
    }
    println!("{}", summary_line(cases_run, mismatches, faults, elapsed));
    Ok(if interrupted { ExitCode::from(130) } else { super::exit(report.passed()) })
}

/// The manifest a run links: `--manifest`, or the one the checkpoint to resume records.
fn manifest_of_run(args: &Args, resumed: Option<&Report>) -> Option<PathBuf> {
    let recorded = resumed.and_then(|r| r.plan.as_ref()).and_then(|p| p.manifest.as_ref()).map(|m| m.path.clone());
    args.manifest.clone().or(recorded)
}

/// The checkpoint to resume, if this command line does not contradict it.
fn resumed(path: &Path, args: &Args) -> Result<Report> {
    let report = Report::load(path).map_err(anyhow::Error::msg)?;
    let differs = |flag: &str, given: String, recorded: String| {
        anyhow::anyhow!("{flag} {given} differs from the checkpoint's {recorded} ({})", path.display())
    };
    if let Some(seed) = args.seed.filter(|&s| s != report.seed) {
        return Err(differs("--seed", seed.to_string(), report.seed.to_string()));
    }
    if report.case_generators != registry::CASE_GENERATORS {
        bail!(
            "{} was made by case generators version {}, this pqhelium has version {}: the same seed gives other \
             cases now, so the resumed part would not be the campaign that was started; start a new one",
            path.display(),
            report.case_generators,
            registry::CASE_GENERATORS
        );
    }
    if let Some(plan) = &report.plan {
        if let Some(kernel) = args.kernel.as_ref().filter(|k| **k != plan.kernel) {
            return Err(differs("--kernel", format!("`{kernel}`"), format!("`{}`", plan.kernel)));
        }
        let backends: Vec<String> = args.backend.iter().map(|b| b.name().to_string()).collect();
        if !backends.is_empty() && backends != plan.backends {
            return Err(differs("--backend", backends.join(","), plan.backends.join(",")));
        }
        let image = args.image.map(|i| i.name().to_string());
        if image.is_some() && image != plan.image {
            let name = |i: &Option<String>| i.clone().unwrap_or("the default".into());
            return Err(differs("--image", name(&image), name(&plan.image)));
        }
        if args.cases.is_some() && args.cases != plan.cases {
            return Err(differs("--cases", format!("{:?}", args.cases), format!("{:?}", plan.cases)));
        }
        match (&plan.manifest, &args.manifest) {
            (None, Some(given)) => {
                bail!("--manifest {}: the checkpoint {} ran our kernels", given.display(), path.display())
            }
            (Some(recorded), given) => {
                if given.as_ref().is_some_and(|g| *g != recorded.path) {
                    let given = given.as_ref().expect("given").display().to_string();
                    return Err(differs("--manifest", given, recorded.path.display().to_string()));
                }
                let now = ManifestRecord::of(&recorded.path).map_err(anyhow::Error::msg)?;
                if now.sha256 != recorded.sha256 {
                    bail!(
                        "{} changed since the checkpoint {} was written (SHA-256 {} then, {} now): the resumed \
                         part would check other kernels; start a new campaign",
                        recorded.path.display(),
                        path.display(),
                        &recorded.sha256[..16],
                        &now.sha256[..16]
                    );
                }
            }
            (None, None) => {}
        }
        if args.shard.is_some() && args.shard != plan.shard {
            let shard = |s: Option<Shard>| s.map_or("none".to_string(), |s| s.to_string());
            return Err(differs("--shard", shard(args.shard), shard(plan.shard)));
        }
    }
    let recorded: u64 = report.campaigns.iter().map(|c| c.cases_run).sum();
    println!("resuming {} (seed {}): {recorded} cases recorded, each runs no more", path.display(), report.seed);
    Ok(report)
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
    image: Option<&'static str>,
    seed: u64,
    /// The pause of the fault injection, read once.
    pause_in_write: Duration,
    live: Mutex<Live>,
}

struct Live {
    report: Report,
    saved_at: Instant,
    unsaved_cases: u64,
}

/// The checkpoint is written when a chunk completes this long after the last write...
const CHECKPOINT_EVERY: Duration = Duration::from_millis(200);
/// ... or when this many cases have completed since it, whichever comes first (and at once on a failure).
const CHECKPOINT_EVERY_CASES: u64 = 10_000;

/// Fault injection for the hard-kill test: milliseconds to wait between writing a checkpoint's temporary file and
/// renaming it into place, so that a kill can land while a checkpoint is being written.
const PAUSE_IN_CHECKPOINT_WRITE: &str = "PQHELIUM_TEST_PAUSE_IN_CHECKPOINT_WRITE_MS";

impl<'a> Checkpoint<'a> {
    /// The checkpoint of `kernel` on `(backend, image)`.
    fn new(
        report: &Report,
        path: &'a Path,
        kernel: &'static str,
        (backend, image): (&'static str, Option<&'static str>),
        seed: u64,
    ) -> Self {
        let live = Live { report: report.clone(), saved_at: Instant::now(), unsaved_cases: 0 };
        let pause_ms = std::env::var(PAUSE_IN_CHECKPOINT_WRITE).ok().and_then(|ms| ms.parse().ok());
        let pause_in_write = Duration::from_millis(pause_ms.unwrap_or(0));
        Self { path, kernel, backend, image, seed, pause_in_write, live: Mutex::new(live) }
    }

    fn record(&self, [first, last]: [u64; 2], failures: &[CaseFailure]) {
        let mut live = self.live.lock().unwrap();
        let failed = !failures.is_empty();
        let (kernel, backend, image, seed) = (self.kernel, self.backend, self.image, self.seed);
        let failures = failures.iter().map(|f| report::failure_report_on_image(kernel, backend, image, seed, f));
        let entry = live.report.campaign_on_image_mut(kernel, backend, image);
        entry.record(&Ranges::from_slice(&[[first, last]]), failures);
        live.unsaved_cases += last - first;
        if failed || live.saved_at.elapsed() >= CHECKPOINT_EVERY || live.unsaved_cases >= CHECKPOINT_EVERY_CASES {
            if let Err(e) = live.report.save_pausing(self.path, self.pause_in_write) {
                tracing::warn!("checkpoint {}: {e}", self.path.display());
            }
            live.saved_at = Instant::now();
            live.unsaved_cases = 0;
        }
    }
}
