//! The differential engine: for each case, reference vs canon(model), and object code vs model, byte for byte.
//!
//! Case i depends only on (seed, i). Workers (one emulator each) take chunks of case indices from a shared counter,
//! so any number of jobs runs the same cases; results are sorted by case index.

use std::sync::Mutex;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::time::{Duration, Instant};

use indicatif::{ProgressBar, ProgressStyle};
use tracing::info;

use crate::backend::{Arg, Backend, BackendKind, Call, CallError, Limits};
use crate::registry::{KernelSpec, Outcome, case_rng};

#[derive(Debug, Clone)]
pub struct Campaign {
    pub kernel: &'static KernelSpec,
    pub backend: BackendKind,
    pub seed: u64,
    pub cases: u64,
    pub jobs: usize,
    /// Cases per guest round trip.
    pub batch: usize,
    /// Go on after the first mismatch or fault.
    pub keep_going: bool,
    pub limits: Limits,
    pub progress: bool,
}

/// The first place where two outcomes differ.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Difference {
    /// `buffer 0, byte 17` or `return value`.
    pub place: String,
    pub expected: String,
    pub actual: String,
}

#[derive(Debug, Clone)]
pub enum Failure {
    /// `left` and `right` name the two sides, e.g. `reference` and `canon(model)`, or `model` and `qemu`.
    Mismatch {
        left: &'static str,
        right: &'static str,
        difference: Difference,
    },
    Fault(CallError),
}

#[derive(Debug, Clone)]
pub struct CaseFailure {
    pub case: u64,
    pub failure: Failure,
    pub args: Vec<Arg>,
}

#[derive(Debug, Clone, Default)]
pub struct InstructionStats {
    pub calls: u64,
    pub min: u64,
    pub max: u64,
    pub total: u64,
}

impl InstructionStats {
    fn add(&mut self, n: u64) {
        self.min = if self.calls == 0 { n } else { self.min.min(n) };
        self.max = self.max.max(n);
        self.total += n;
        self.calls += 1;
    }
    fn merge(&mut self, other: &InstructionStats) {
        if other.calls == 0 {
            return;
        }
        self.min = if self.calls == 0 { other.min } else { self.min.min(other.min) };
        self.max = self.max.max(other.max);
        self.total += other.total;
        self.calls += other.calls;
    }
    pub fn mean(&self) -> Option<f64> {
        (self.calls > 0).then(|| self.total as f64 / self.calls as f64)
    }
}

#[derive(Debug, Clone)]
pub struct CampaignResult {
    pub kernel: &'static str,
    pub backend: BackendKind,
    pub seed: u64,
    pub cases_run: u64,
    pub failures: Vec<CaseFailure>,
    pub instructions: InstructionStats,
    pub elapsed: Duration,
    /// A backend that could not start: no case ran.
    pub setup_error: Option<String>,
}

impl CampaignResult {
    pub fn mismatches(&self) -> usize {
        self.failures.iter().filter(|f| matches!(f.failure, Failure::Mismatch { .. })).count()
    }
    pub fn faults(&self) -> usize {
        self.failures.len() - self.mismatches()
    }
    pub fn passed(&self) -> bool {
        self.failures.is_empty() && self.setup_error.is_none()
    }
    pub fn cases_per_second(&self) -> f64 {
        self.cases_run as f64 / self.elapsed.as_secs_f64().max(1e-9)
    }
    /// The closing line of a fuzz run.
    pub fn summary_line(&self) -> String {
        format!(
            "{} cases, {} mismatches, {} faults, {:.0} cases/s",
            self.cases_run,
            self.mismatches(),
            self.faults(),
            self.cases_per_second()
        )
    }
}

impl std::fmt::Display for CaseFailure {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match &self.failure {
            Failure::Mismatch { left, right, difference: d } => write!(
                f,
                "case {}: {left} and {right} differ at {}: {left} {}, {right} {}",
                self.case, d.place, d.expected, d.actual
            ),
            Failure::Fault(e) => write!(f, "case {}: {e}", self.case),
        }
    }
}

/// The first difference between two outcomes, if any.
pub fn compare(expected: &Outcome, actual: &Outcome) -> Option<Difference> {
    if expected.ret != actual.ret {
        let show = |r: Option<u64>| r.map_or("none".to_string(), |v| format!("{v:#x}"));
        return Some(Difference {
            place: "return value".into(),
            expected: show(expected.ret),
            actual: show(actual.ret),
        });
    }
    if expected.buffers.len() != actual.buffers.len() {
        return Some(Difference {
            place: "number of output buffers".into(),
            expected: expected.buffers.len().to_string(),
            actual: actual.buffers.len().to_string(),
        });
    }
    for (i, (e, a)) in expected.buffers.iter().zip(&actual.buffers).enumerate() {
        if e.len() != a.len() {
            return Some(Difference {
                place: format!("length of buffer {i}"),
                expected: e.len().to_string(),
                actual: a.len().to_string(),
            });
        }
        if let Some(at) = e.iter().zip(a).position(|(x, y)| x != y) {
            return Some(Difference {
                place: format!("buffer {i}, byte {at}"),
                expected: format!("{:#04x}", e[at]),
                actual: format!("{:#04x}", a[at]),
            });
        }
    }
    None
}

/// Checks one case's model against the reference; the model's outcome is returned for the object-code check.
pub fn check_model(kernel: &KernelSpec, args: &[Arg]) -> (Outcome, Option<Failure>) {
    let model = (kernel.model)(args);
    let reference = (kernel.reference)(args);
    let failure = compare(&reference, &(kernel.canon)(&model)).map(|difference| Failure::Mismatch {
        left: "reference",
        right: "canon(model)",
        difference,
    });
    (model, failure)
}

/// Checks one emulated outcome against the model.
pub fn check_object_code(
    kernel: &KernelSpec,
    backend: BackendKind,
    args: &[Arg],
    model: &Outcome,
    result: Result<crate::backend::CallOutput, CallError>,
) -> (Option<u64>, Option<Failure>) {
    match result {
        Err(e) => (None, Some(Failure::Fault(e))),
        Ok(output) => {
            let actual = kernel.outcome_of(args, &output);
            let failure = compare(model, &actual).map(|difference| Failure::Mismatch {
                left: "model",
                right: backend.name(),
                difference,
            });
            (Some(output.instructions), failure)
        }
    }
}

struct Shared {
    next: AtomicU64,
    stop: AtomicBool,
    failures: Mutex<Vec<CaseFailure>>,
    instructions: Mutex<InstructionStats>,
    done: AtomicU64,
    setup_error: Mutex<Option<String>>,
}

pub fn run(campaign: &Campaign) -> CampaignResult {
    let kernel = campaign.kernel;
    let shared = Shared {
        next: AtomicU64::new(0),
        stop: AtomicBool::new(false),
        failures: Mutex::new(Vec::new()),
        instructions: Mutex::new(InstructionStats::default()),
        done: AtomicU64::new(0),
        setup_error: Mutex::new(None),
    };
    let bar = if campaign.progress { ProgressBar::new(campaign.cases) } else { ProgressBar::hidden() };
    bar.set_style(
        ProgressStyle::with_template("{prefix} [{bar:30}] {pos}/{len} {per_sec} ETA {eta}")
            .expect("valid template")
            .progress_chars("=> "),
    );
    bar.set_prefix(format!("{} on {}", kernel.id, campaign.backend));
    let started = Instant::now();
    let jobs = campaign.jobs.max(1);
    let pool = rayon::ThreadPoolBuilder::new().num_threads(jobs).build().expect("thread pool");
    pool.broadcast(|_| worker(campaign, &shared, &bar));
    bar.finish_and_clear();
    let mut failures = shared.failures.into_inner().unwrap();
    failures.sort_by_key(|f| f.case);
    let result = CampaignResult {
        kernel: kernel.id,
        backend: campaign.backend,
        seed: campaign.seed,
        cases_run: shared.done.load(Ordering::SeqCst),
        failures,
        instructions: shared.instructions.into_inner().unwrap(),
        elapsed: started.elapsed(),
        setup_error: shared.setup_error.into_inner().unwrap(),
    };
    info!(kernel = kernel.id, backend = %campaign.backend, "{}", result.summary_line());
    result
}

fn worker(campaign: &Campaign, shared: &Shared, bar: &ProgressBar) {
    let kernel = campaign.kernel;
    let mut backend: Option<Box<dyn Backend>> = match campaign.backend {
        BackendKind::Model => None,
        kind => match kind.open(campaign.limits) {
            Ok(b) => Some(b),
            Err(e) => {
                *shared.setup_error.lock().unwrap() = Some(format!("{kind}: {e}"));
                shared.stop.store(true, Ordering::SeqCst);
                return;
            }
        },
    };
    let batch = campaign.batch.max(1) as u64;
    let mut stats = InstructionStats::default();
    while !shared.stop.load(Ordering::SeqCst) {
        let first = shared.next.fetch_add(batch, Ordering::SeqCst);
        if first >= campaign.cases {
            break;
        }
        let last = (first + batch).min(campaign.cases);
        let cases: Vec<(u64, Vec<Arg>)> =
            (first..last).map(|i| (i, (kernel.generate)(i, &mut case_rng(campaign.seed, i)))).collect();
        let mut failures = Vec::new();
        let models: Vec<Outcome> = cases
            .iter()
            .map(|(i, args)| {
                let (model, failure) = check_model(kernel, args);
                if let Some(failure) = failure {
                    failures.push(CaseFailure { case: *i, failure, args: args.clone() });
                }
                model
            })
            .collect();
        if let Some(backend) = backend.as_mut() {
            let calls: Vec<Call> = cases.iter().map(|(_, args)| Call::new(kernel.symbol, args.clone())).collect();
            let results = backend.run_batch(&calls);
            for (((i, args), model), result) in cases.iter().zip(&models).zip(results) {
                let (instructions, failure) = check_object_code(kernel, campaign.backend, args, model, result);
                if let Some(n) = instructions {
                    stats.add(n);
                }
                if let Some(failure) = failure {
                    failures.push(CaseFailure { case: *i, failure, args: args.clone() });
                }
            }
        }
        shared.done.fetch_add(last - first, Ordering::SeqCst);
        bar.inc(last - first);
        if !failures.is_empty() {
            if !campaign.keep_going {
                shared.stop.store(true, Ordering::SeqCst);
            }
            shared.failures.lock().unwrap().extend(failures);
        }
    }
    shared.instructions.lock().unwrap().merge(&stats);
}
