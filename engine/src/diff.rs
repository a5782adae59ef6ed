//! The differential engine: for each case, reference vs canon(model), and object code vs model, byte for byte; the
//! object code must also leave its read-only inputs as they were.
//!
//! Case i depends only on (seed, i). Workers (one emulator each) take chunks of case indices from a shared
//! dispenser, so any number of jobs runs the same cases. A resumed campaign skips the ranges already run. A case
//! whose emulator died or hung is retried once on a fresh emulator before it counts as a fault. Failing inputs
//! are shrunk (see [`crate::shrink`]).

use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};
use std::sync::{Mutex, mpsc};
use std::time::{Duration, Instant};

use indicatif::{ProgressBar, ProgressStyle};
use pqhelium_sim::coverage::{self, Observations};
use tracing::{info, warn};

use crate::ranges::Ranges;
use crate::shrink;
pub use pqhelium_contract::check::{Difference, Failure, check_model, compare};
use pqhelium_families::{self as registry, Kernel, Outcome, case_rng};
use pqhelium_guest::affinity::Placement;
use pqhelium_guest::backend::{Arg, Backend, BackendKind, Call, CallError, CallOutput, Image, Limits, target_label};

/// Cases per guest round trip unless told otherwise: the most the harness takes in one batch (`abi::MAX_CALLS`), so
/// that the fixed cost of a round trip (doorbell, wake-up, packing) is spread over as many cases as possible.
pub const DEFAULT_BATCH: usize = pqhelium_kernels::abi::MAX_CALLS;

#[derive(Debug, Clone)]
pub struct Campaign {
    pub kernel: &'static Kernel,
    pub backend: BackendKind,
    /// The guest image the emulator runs: the backend's default unless set (none for the model).
    pub image: Option<Image>,
    pub seed: u64,
    /// Cases `0..cases` (with a duration, an upper bound).
    pub cases: u64,
    /// Stop dispensing new cases after this long.
    pub duration: Option<Duration>,
    pub jobs: usize,
    /// Cases per guest round trip at most: a chunk holds fewer when they take longer than [`CHUNK_TARGET`].
    pub batch: usize,
    /// Go on after the first mismatch or fault.
    pub keep_going: bool,
    pub limits: Limits,
    pub progress: bool,
    /// Evaluations spent shrinking each failing input (0: no shrinking), for the first [`FAILURES_SHRUNK`].
    pub shrink_budget: usize,
    /// Give each emulator worker a CPU of its own when the jobs leave one over (`affinity`).
    pub pin: bool,
    /// Record what the model's steps reach ([`pqhelium_sim::coverage`]) into [`CampaignResult::coverage`].
    pub coverage: bool,
}

impl Campaign {
    /// A campaign with the usual settings: [`DEFAULT_BATCH`] cases per round trip, stop at the first failure, shrink it.
    pub fn new(kernel: &'static Kernel, backend: BackendKind, seed: u64, cases: u64, jobs: usize) -> Self {
        Self {
            kernel,
            backend,
            image: backend.default_image(),
            seed,
            cases,
            duration: None,
            jobs,
            batch: DEFAULT_BATCH,
            keep_going: false,
            limits: Limits::default(),
            progress: false,
            shrink_budget: 2000,
            pin: false,
            coverage: false,
        }
    }
}

/// How many of a campaign's failures are shrunk: the first it meets (with one job, those of the lowest cases), as
/// many as a person reads, while a broken kernel under `--keep-going` may fail on every case.
pub const FAILURES_SHRUNK: usize = 10;

/// Called after every completed chunk with its case range and failures.
pub type ChunkHook<'a> = &'a (dyn Fn([u64; 2], &[CaseFailure]) + Sync);

/// Outside control of a running campaign.
#[derive(Default)]
pub struct Control<'a> {
    /// Cases not to run: those a checkpoint records as run, and another shard's.
    pub skip: Ranges,
    /// Once set, no new chunk starts; chunks in flight finish and are reported.
    pub interrupt: Option<&'a AtomicBool>,
    /// Called after every completed chunk, with the chunk's range and failures (checkpointing).
    pub on_chunk: Option<ChunkHook<'a>>,
}

#[derive(Debug, Clone)]
pub struct CaseFailure {
    pub case: u64,
    pub failure: Failure,
    pub args: Vec<Arg>,
    /// The smallest input found that fails the same way, when shrinking ran and found a smaller one.
    pub shrunk: Option<Vec<Arg>>,
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
    pub fn merge(&mut self, other: &InstructionStats) {
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
    pub image: Option<Image>,
    pub seed: u64,
    /// The cases this run executed (not those skipped as already done).
    pub ran: Ranges,
    pub failures: Vec<CaseFailure>,
    pub instructions: InstructionStats,
    pub elapsed: Duration,
    /// Part of `elapsed` spent before the last worker was ready to run cases (emulator start-up).
    pub startup: Duration,
    /// Cases run again after their emulator died or hung.
    pub retries: u64,
    /// Stopped by the interrupt flag before all cases ran.
    pub interrupted: bool,
    /// A backend that could not start: no case ran.
    pub setup_error: Option<String>,
    /// What the model's steps reached over the cases run, when the campaign asked for it (`Campaign::coverage`).
    pub coverage: Option<Observations>,
}

impl CampaignResult {
    pub fn cases_run(&self) -> u64 {
        self.ran.count()
    }
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
        self.cases_run() as f64 / self.elapsed.as_secs_f64().max(1e-9)
    }
    /// Cases per second once the workers were ready: emulator start-up excluded (benchmarks compare this with an
    /// emulator that is already running).
    pub fn cases_per_second_after_startup(&self) -> f64 {
        self.cases_run() as f64 / (self.elapsed.saturating_sub(self.startup)).as_secs_f64().max(1e-9)
    }
    /// The backend, and the image when it is not the backend's default: `qemu (m85)`.
    pub fn target(&self) -> String {
        target_label(self.backend, self.image)
    }
    /// The closing line of a fuzz run.
    pub fn summary_line(&self) -> String {
        summary_line(self.cases_run(), self.mismatches(), self.faults(), self.elapsed)
    }
}

pub fn summary_line(cases: u64, mismatches: usize, faults: usize, elapsed: Duration) -> String {
    let rate = cases as f64 / elapsed.as_secs_f64().max(1e-9);
    format!("{cases} cases, {mismatches} mismatches, {faults} faults, {rate:.0} cases/s")
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
            Failure::Bound(v) => write!(f, "case {}: {v}", self.case),
        }
    }
}

/// A call that changed one of its read-only inputs (`Arg::In`): a mismatch between the input as passed and as the
/// backend read it back, at the first changed byte.
pub fn check_inputs_unchanged(backend: BackendKind, args: &[Arg], output: &CallOutput) -> Option<Failure> {
    let buffer_args = args.iter().enumerate().filter(|(_, a)| matches!(a, Arg::In(_) | Arg::InOut(_) | Arg::Out(_)));
    for ((index, arg), after) in buffer_args.zip(&output.buffers) {
        let Arg::In(before) = arg else { continue };
        if before != after {
            let at = before.iter().zip(after).position(|(b, a)| b != a).unwrap_or(before.len().min(after.len()));
            let show = |buffer: &[u8]| buffer.get(at).map_or("nothing".to_string(), |v| format!("{v:#04x}"));
            let difference = Difference {
                place: format!("argument {index} (read-only input), byte {at}"),
                expected: show(before),
                actual: show(after),
            };
            return Some(Failure::Mismatch { left: "input", right: backend.name(), difference });
        }
    }
    None
}

/// Checks one emulated outcome: read-only inputs unchanged, outputs within the contract's output bounds and equal to
/// `expected` (the model's, or the reference's for two-way kernels); returns the instructions executed when the call
/// returned.
pub fn check_object_code(
    kernel: &Kernel,
    backend: BackendKind,
    args: &[Arg],
    expected: &Outcome,
    result: Result<CallOutput, CallError>,
) -> (Option<u64>, Option<Failure>) {
    match result {
        Err(e) => (None, Some(Failure::Fault(e))),
        Ok(output) => {
            let instructions = output.instructions;
            if let Some(failure) = check_inputs_unchanged(backend, args, &output) {
                return (Some(instructions), Some(failure));
            }
            let actual = kernel.outcome_of(args, output);
            if let Err(violation) = registry::check_output_bounds(kernel, args, &actual, backend.name()) {
                return (Some(instructions), Some(Failure::Bound(violation)));
            }
            let (actual, right) = if kernel.canonicalises_object_code() {
                (kernel.canon(&actual), canonicalised(backend))
            } else {
                (actual, backend.name())
            };
            let failure = compare(expected, &actual).map(|difference| Failure::Mismatch {
                left: kernel.expected_side(),
                right,
                difference,
            });
            (Some(instructions), failure)
        }
    }
}

/// How a report names a backend's outcome after the kernel's canonicalisation.
fn canonicalised(backend: BackendKind) -> &'static str {
    match backend {
        BackendKind::Model => "canon(model)",
        BackendKind::Unicorn => "canon(unicorn)",
        BackendKind::Qemu => "canon(qemu)",
    }
}

/// Runs one case completely (model, reference and, for an emulator backend, the object code); the first failure.
pub fn check_case(
    kernel: &Kernel,
    kind: BackendKind,
    backend: Option<&mut (dyn Backend + 'static)>,
    args: &[Arg],
) -> Option<Failure> {
    let (model, failure) = check_model(kernel, args);
    if failure.is_some() {
        return failure;
    }
    let backend = backend?;
    let result = backend.call(&Call::new(kernel.symbol, args.to_vec()));
    check_object_code(kernel, kind, args, &model, result).1
}

/// For regression tests: runs one case on a fresh backend and panics with the difference if it fails.
pub fn assert_case_passes(kernel_id: &str, kind: BackendKind, args: &[Arg]) {
    match kind.default_image() {
        Some(image) => assert_case_passes_on_image(kernel_id, image, args),
        None => {
            let kernel = pqhelium_families::find(kernel_id).unwrap_or_else(|| panic!("unknown kernel {kernel_id}"));
            if let Some(failure) = check_case(kernel, kind, None, args) {
                panic!("{kernel_id} on {kind}: {failure:?}");
            }
        }
    }
}

/// [`assert_case_passes`] on the emulator of a given guest image.
pub fn assert_case_passes_on_image(kernel_id: &str, image: Image, args: &[Arg]) {
    let kernel = pqhelium_families::find(kernel_id).unwrap_or_else(|| panic!("unknown kernel {kernel_id}"));
    let (kind, target) = (image.backend(), target_label(image.backend(), Some(image)));
    let mut backend = image.open(Limits::default()).unwrap_or_else(|e| panic!("{target}: {e}"));
    if let Some(failure) = check_case(kernel, kind, Some(backend.as_mut()), args) {
        panic!("{kernel_id} on {target}: {failure:?}");
    }
}

/// For tests: runs `cases` cases of a kernel on a backend (two jobs, generous timeout) and panics unless every case
/// passed and, on an emulator, every call was counted.
pub fn assert_campaign_passes(kernel_id: &str, kind: BackendKind, seed: u64, cases: u64) {
    let kernel = pqhelium_families::find(kernel_id).unwrap_or_else(|| panic!("{kernel_id} is not registered"));
    assert!(kernel.runs_on(kind), "{kernel_id} has no build for {kind}");
    let campaign =
        Campaign { limits: Limits { timeout: Duration::from_secs(60) }, ..Campaign::new(kernel, kind, seed, cases, 2) };
    let result = run(&campaign);
    assert_eq!(result.setup_error, None);
    let failures: Vec<String> = result.failures.iter().map(ToString::to_string).collect();
    assert!(failures.is_empty(), "{kernel_id} on {kind}: {failures:?}");
    assert_eq!(result.cases_run(), cases);
    if kind != BackendKind::Model {
        assert_eq!(result.instructions.calls, cases, "every emulated call was counted");
        assert!(result.instructions.min > 0);
    }
}

/// What a faithful emulator hands back for `args`: the inputs as passed, the outputs as `expected` (the model's, or
/// the reference's) has them.
pub fn faithful_output(args: &[Arg], expected: &Outcome) -> CallOutput {
    let mut outputs = expected.buffers.iter();
    let buffers = args
        .iter()
        .filter_map(|arg| match arg {
            Arg::In(data) => Some(data.clone()),
            Arg::InOut(_) | Arg::Out(_) => Some(outputs.next().cloned().unwrap_or_default()),
            Arg::U32(_) | Arg::F64(_) => None,
        })
        .collect();
    CallOutput { r0: expected.ret.unwrap_or(0) as u32, r1: 0, d0: 0.0, buffers, instructions: 1 }
}

/// The host's share of one case of a campaign, measured on this thread: what a campaign does per case besides the
/// emulated call, over the random cases of `seed` (from `edge_cases` on) until at least `min_cases` cases and
/// `min_time` have passed. That is the case's generation, the reference and the model with bound coverage recorded
/// (as `fuzz` and `check` record it), canonicalisation and the model's comparison, the contract's input and output
/// checks, and the checks of the emulated outcome (read-only inputs, output bounds, canonicalisation, comparison; run
/// here on the outcome a faithful emulator would return). A two-way kernel has no model: its reference is what runs.
pub fn host_time_per_case(kernel: &'static Kernel, seed: u64, min_cases: u64, min_time: Duration) -> Duration {
    let one = |case: u64| {
        let args = kernel.generate(case, &mut case_rng(seed, case));
        let (expected, failure) = check_model(kernel, &args);
        let output = faithful_output(&args, &expected);
        std::hint::black_box((failure, check_object_code(kernel, BackendKind::Qemu, &args, &expected, Ok(output))));
    };
    // The random cases, which are all but the first few of a campaign (the edge cases before them may be built by a
    // solver, once per campaign); one untimed, as what a campaign builds once (tables) is not a cost per case.
    let first = kernel.edge_cases;
    let ((), warm) = coverage::record(|| one(first));
    std::hint::black_box(warm);
    let started = Instant::now();
    let mut done = 0u64;
    let ((), seen) = coverage::record(|| {
        while done < min_cases || started.elapsed() < min_time {
            one(first + done);
            done += 1;
        }
    });
    std::hint::black_box(seen);
    started.elapsed() / u32::try_from(done).unwrap_or(u32::MAX)
}

/// The host's time per case over the guest's time per call, from the two measured figures: below 1 the guest is the
/// bottleneck of a campaign; the goal for a kernel with a model is at most 0.1.
pub fn host_guest_ratio(host_per_case: Duration, guest_calls_per_second: f64) -> f64 {
    host_per_case.as_secs_f64() * guest_calls_per_second
}

/// The work a chunk is sized to: a chunk is the unit the checkpoint records, so a hard kill makes at most a few
/// chunks per worker run again. Fast kernels reach `--batch` cases long before this; slow ones get fewer cases.
pub const CHUNK_TARGET: Duration = Duration::from_millis(100);
/// The first chunk of a worker, before its pace is known.
const FIRST_CHUNK: u64 = 8;

/// The cases of the next chunk, from the time the last one took.
fn next_chunk_size(batch: u64, last_cases: u64, took: Duration) -> u64 {
    let per_case = took.as_secs_f64() / last_cases.max(1) as f64;
    ((CHUNK_TARGET.as_secs_f64() / per_case.max(1e-9)) as u64).clamp(1, batch)
}

/// Hands out chunks of the case indices still owed, in order.
struct Dispenser {
    holes: Vec<[u64; 2]>,
    state: Mutex<(usize, u64)>,
}

impl Dispenser {
    fn new(skip: &Ranges, cases: u64) -> Self {
        let holes = skip.holes(cases);
        let start = holes.first().map_or(0, |h| h[0]);
        Self { holes, state: Mutex::new((0, start)) }
    }

    fn next(&self, size: u64) -> Option<[u64; 2]> {
        let mut state = self.state.lock().unwrap();
        let (hole, at) = *state;
        let [_, end] = *self.holes.get(hole)?;
        let last = end.min(at.saturating_add(size));
        *state = if last == end { (hole + 1, self.holes.get(hole + 1).map_or(0, |h| h[0])) } else { (hole, last) };
        Some([at, last])
    }
}

struct Shared<'a> {
    campaign: &'a Campaign,
    control: &'a Control<'a>,
    dispenser: Dispenser,
    started: Instant,
    deadline: Option<Instant>,
    /// When the last worker became ready (its emulator started).
    ready: Mutex<Duration>,
    stop: AtomicBool,
    ran: Mutex<Ranges>,
    failures: Mutex<Vec<CaseFailure>>,
    instructions: Mutex<InstructionStats>,
    retries: AtomicU64,
    /// How many more failures are shrunk ([`FAILURES_SHRUNK`] at the start).
    shrinks_left: AtomicUsize,
    setup_error: Mutex<Option<String>>,
    coverage: Mutex<Observations>,
    bar: ProgressBar,
}

impl Shared<'_> {
    fn should_stop(&self) -> bool {
        self.stop.load(Ordering::SeqCst)
            || self.control.interrupt.is_some_and(|i| i.load(Ordering::SeqCst))
            || self.deadline.is_some_and(|d| Instant::now() >= d)
    }
}

pub fn run(campaign: &Campaign) -> CampaignResult {
    run_with(campaign, &Control::default())
}

pub fn run_with(campaign: &Campaign, control: &Control) -> CampaignResult {
    let kernel = campaign.kernel;
    let owed: u64 = control.skip.holes(campaign.cases).iter().map(|[a, b]| b - a).sum();
    let bar = if !campaign.progress {
        ProgressBar::hidden()
    } else if campaign.duration.is_some() {
        ProgressBar::new_spinner()
    } else {
        ProgressBar::new(owed)
    };
    bar.set_style(
        ProgressStyle::with_template("{prefix} [{bar:30}] {pos}/{len} {per_sec} ETA {eta} {msg}")
            .expect("valid template")
            .progress_chars("=> "),
    );
    bar.set_prefix(format!("{} on {}", kernel.id, target_label(campaign.backend, campaign.image)));
    let started = Instant::now();
    let shared = Shared {
        campaign,
        control,
        dispenser: Dispenser::new(&control.skip, campaign.cases),
        started,
        deadline: campaign.duration.map(|d| started + d),
        ready: Mutex::new(Duration::ZERO),
        stop: AtomicBool::new(false),
        ran: Mutex::new(Ranges::new()),
        failures: Mutex::new(Vec::new()),
        instructions: Mutex::new(InstructionStats::default()),
        retries: AtomicU64::new(0),
        shrinks_left: AtomicUsize::new(FAILURES_SHRUNK),
        setup_error: Mutex::new(None),
        coverage: Mutex::new(Observations::default()),
        bar,
    };
    let placement = if campaign.pin { Placement::plan(campaign.jobs.max(1)) } else { None };
    let pool = rayon::ThreadPoolBuilder::new().num_threads(campaign.jobs.max(1)).build().expect("thread pool");
    pool.broadcast(|job| worker(&shared, placement.as_ref(), job.index()));
    shared.bar.finish_and_clear();
    let ran = shared.ran.into_inner().unwrap();
    let mut covered = control.skip.clone();
    covered.extend(&ran);
    let owed_left = !covered.holes(campaign.cases).is_empty();
    let mut failures = shared.failures.into_inner().unwrap();
    failures.sort_by_key(|f| f.case);
    let interrupted = owed_left && control.interrupt.is_some_and(|i| i.load(Ordering::SeqCst));
    let result = CampaignResult {
        kernel: kernel.id,
        backend: campaign.backend,
        image: campaign.image,
        seed: campaign.seed,
        ran,
        failures,
        instructions: shared.instructions.into_inner().unwrap(),
        elapsed: started.elapsed(),
        startup: shared.ready.into_inner().unwrap(),
        retries: shared.retries.load(Ordering::SeqCst),
        interrupted,
        setup_error: shared.setup_error.into_inner().unwrap(),
        coverage: campaign.coverage.then(|| shared.coverage.into_inner().unwrap()),
    };
    info!(kernel = kernel.id, backend = %result.target(), "{}", result.summary_line());
    result
}

/// One chunk made ready on the host: its cases as calls, and each case's model already checked against the
/// reference.
struct Prepared {
    range: [u64; 2],
    calls: Vec<Call>,
    models: Vec<(Outcome, Option<Failure>)>,
}

/// Generates the cases of `range`, runs the model and the reference on each and compares them; records what the
/// model's steps reach into the campaign's coverage when it asks for it.
fn prepare(shared: &Shared, [first, last]: [u64; 2]) -> Prepared {
    let campaign = shared.campaign;
    let kernel = campaign.kernel;
    let calls: Vec<Call> =
        (first..last).map(|i| Call::new(kernel.symbol, kernel.generate(i, &mut case_rng(campaign.seed, i)))).collect();
    let check = || calls.iter().map(|call| check_model(kernel, &call.args)).collect();
    let models = if campaign.coverage {
        let (models, seen) = coverage::record(check);
        shared.coverage.lock().unwrap().merge(&seen);
        models
    } else {
        check()
    };
    Prepared { range: [first, last], calls, models }
}

fn worker(shared: &Shared, placement: Option<&Placement>, job: usize) {
    let campaign = shared.campaign;
    let kind = campaign.backend;
    if kind == BackendKind::Model {
        return model_worker(shared);
    }
    let batch = campaign.batch.max(1) as u64;
    // A pipeline, so that the guest never waits for the host: while the guest runs chunk k, one host thread compares
    // chunk k-1's emulated outputs with its models, then generates chunk k+1 and checks its models against the
    // reference (the first chunk while the emulator starts). One thread, not one per stage: the host's work is a
    // fraction of the guest's, and a chunk is then prepared, checked and freed by the same thread (its allocator's
    // own memory, in its own core's cache). What needs the emulator stays on this thread: retries before the
    // hand-over, and shrinking, so the host thread finishes the chunks that passed and sends the others back. A chunk
    // is dispensed when its preparation starts, and every dispensed chunk runs to the end: a stop or an interrupt only
    // keeps new chunks from starting.
    std::thread::scope(|scope| {
        let (host_work, host_jobs) = mpsc::channel::<HostJob>();
        let (ready, readied) = mpsc::sync_channel::<Prepared>(1);
        let (failed, to_shrink) = mpsc::channel();
        scope.spawn(move || {
            if let Some(p) = placement {
                p.pin_host();
            }
            let mut stats = InstructionStats::default();
            for job in host_jobs {
                match job {
                    HostJob::Prepare(range) => {
                        if ready.send(prepare(shared, range)).is_err() {
                            break;
                        }
                    }
                    HostJob::Check(chunk, results) => {
                        let range = chunk.range;
                        let failures = check_chunk(campaign, chunk, results, &mut stats);
                        if failures.is_empty() {
                            finish_chunk(shared, None, range, failures);
                        } else if failed.send((range, failures)).is_err() {
                            break;
                        }
                    }
                }
            }
            shared.instructions.lock().unwrap().merge(&stats);
        });
        // Dispenses the next chunk to the host thread; whether one is now in preparation.
        let size = std::cell::Cell::new(FIRST_CHUNK.min(batch));
        let ask = || {
            !shared.should_stop()
                && shared
                    .dispenser
                    .next(size.get())
                    .map(|range| host_work.send(HostJob::Prepare(range)).expect("host thread alive"))
                    .is_some()
        };
        let mut in_flight = ask();
        // Before the emulator starts: a QEMU process inherits its worker's CPU.
        if let Some(p) = placement {
            p.pin_worker(job);
        }
        let mut backend = match kind.open_image(campaign.image, campaign.limits) {
            Ok(b) => b,
            Err(e) => {
                *shared.setup_error.lock().unwrap() = Some(format!("{}: {e}", target_label(kind, campaign.image)));
                shared.stop.store(true, Ordering::SeqCst);
                return;
            }
        };
        backend.expect_pipelined_batches();
        {
            let mut ready = shared.ready.lock().unwrap();
            *ready = (*ready).max(shared.started.elapsed());
        }
        while in_flight {
            let started = Instant::now();
            let chunk = readied.recv().expect("model check panicked");
            in_flight = ask();
            let mut results = backend.run_batch(&chunk.calls);
            for ((case, call), result) in (chunk.range[0]..).zip(&chunk.calls).zip(&mut results) {
                // The emulator died or hung under this case: once more, on a fresh one, before blaming it.
                if matches!(result, Err(CallError::WorkerDied(_) | CallError::Timeout(_))) {
                    warn!(case, "retrying once after a dead or hung emulator");
                    shared.retries.fetch_add(1, Ordering::SeqCst);
                    *result = backend.call(call);
                }
            }
            let cases = chunk.calls.len() as u64;
            host_work.send(HostJob::Check(chunk, results)).expect("host thread alive");
            size.set(next_chunk_size(batch, cases, started.elapsed()));
            for (range, failures) in to_shrink.try_iter() {
                finish_chunk(shared, Some(backend.as_mut()), range, failures);
            }
        }
        // The host thread ends after its last job, and with it the failures' channel.
        drop(host_work);
        for (range, failures) in to_shrink {
            finish_chunk(shared, Some(backend.as_mut()), range, failures);
        }
    });
}

/// The host thread's work for an emulator worker, in the order the worker asks for it.
enum HostJob {
    /// Generate the chunk's cases and check their models.
    Prepare([u64; 2]),
    /// Compare the chunk's emulated outputs with its models.
    Check(Prepared, Vec<Result<CallOutput, CallError>>),
}

/// Compares a chunk's emulated outputs with its models, counting the instructions of the calls that returned; the
/// chunk's failures, model against reference included.
fn check_chunk(
    campaign: &Campaign,
    chunk: Prepared,
    results: Vec<Result<CallOutput, CallError>>,
    stats: &mut InstructionStats,
) -> Vec<CaseFailure> {
    let mut failures = Vec::new();
    let cases = (chunk.range[0]..).zip(chunk.calls).zip(chunk.models.into_iter().zip(results));
    for ((case, call), ((model, model_failure), result)) in cases {
        let (instructions, failure) = check_object_code(campaign.kernel, campaign.backend, &call.args, &model, result);
        if let Some(n) = instructions {
            stats.add(n);
        }
        for failure in model_failure.into_iter().chain(failure) {
            failures.push(CaseFailure { case, failure, args: call.args.clone(), shrunk: None });
        }
    }
    failures
}

/// A worker of the model backend: no object code, so nothing to overlap.
fn model_worker(shared: &Shared) {
    let campaign = shared.campaign;
    let batch = campaign.batch.max(1) as u64;
    let mut size = FIRST_CHUNK.min(batch);
    while !shared.should_stop() {
        let Some(range) = shared.dispenser.next(size) else { break };
        let started = Instant::now();
        let Prepared { calls, models, .. } = prepare(shared, range);
        size = next_chunk_size(batch, range[1] - range[0], started.elapsed());
        let failures = (range[0]..)
            .zip(calls.into_iter().zip(models))
            .filter_map(|(case, (call, (_, failure)))| {
                failure.map(|failure| CaseFailure { case, failure, args: call.args, shrunk: None })
            })
            .collect();
        finish_chunk(shared, None, range, failures);
    }
}

/// Shrinks a chunk's failures and records the chunk as run.
fn finish_chunk(
    shared: &Shared,
    mut backend: Option<&mut (dyn Backend + 'static)>,
    [first, last]: [u64; 2],
    mut failures: Vec<CaseFailure>,
) {
    let campaign = shared.campaign;
    if campaign.shrink_budget > 0 {
        for f in &mut failures {
            if shared.shrinks_left.fetch_update(Ordering::SeqCst, Ordering::SeqCst, |n| n.checked_sub(1)).is_err() {
                break;
            }
            f.shrunk = shrink_failure(campaign, backend.as_deref_mut(), f);
        }
    }
    shared.ran.lock().unwrap().insert(first, last);
    shared.bar.inc(last - first);
    if let Some(on_chunk) = shared.control.on_chunk {
        on_chunk([first, last], &failures);
    }
    if !failures.is_empty() {
        if !campaign.keep_going {
            shared.stop.store(true, Ordering::SeqCst);
        }
        shared.failures.lock().unwrap().extend(failures);
    }
}

/// The smallest input that fails like `failure` does, if smaller than the original.
fn shrink_failure(
    campaign: &Campaign,
    mut backend: Option<&mut (dyn Backend + 'static)>,
    failure: &CaseFailure,
) -> Option<Vec<Arg>> {
    let kernel = campaign.kernel;
    let simplest = kernel.generate(0, &mut case_rng(campaign.seed, 0));
    let element_bytes: Vec<usize> = kernel.args.iter().map(|a| a.elem.bytes()).collect();
    let shrunk = shrink::shrink(&failure.args, &simplest, &element_bytes, campaign.shrink_budget, |candidate| {
        let backend = backend.as_deref_mut();
        check_case(kernel, campaign.backend, backend, candidate).is_some_and(|f| f.same_class(&failure.failure))
    });
    (shrunk != failure.args).then_some(shrunk)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn object_code_that_writes_a_read_only_input_fails() {
        let (kernel, args) = pqhelium_families::all()
            .filter(|k| k.runs_on(BackendKind::Qemu))
            .map(|k| (k, k.generate(0, &mut case_rng(1, 0))))
            .find(|(_, args)| args.iter().any(|a| matches!(a, Arg::In(data) if !data.is_empty())))
            .expect("a kernel with a read-only input");
        let (model, failure) = check_model(kernel, &args);
        assert_eq!(failure, None);
        let faithful = faithful_output(&args, &model);
        let check = |output: CallOutput| check_object_code(kernel, BackendKind::Qemu, &args, &model, Ok(output)).1;
        assert_eq!(check(faithful.clone()), None, "{}: the faithful output passes", kernel.id);

        let index = args.iter().position(|a| matches!(a, Arg::In(data) if !data.is_empty())).unwrap();
        let buffer = args[..index].iter().filter(|a| !matches!(a, Arg::U32(_) | Arg::F64(_))).count();
        let mut written = faithful;
        written.buffers[buffer][0] ^= 0x80;
        let before = written.buffers[buffer][0] ^ 0x80;
        let failure = check(written).expect("a changed input fails");
        let expected = Failure::Mismatch {
            left: "input",
            right: "qemu",
            difference: Difference {
                place: format!("argument {index} (read-only input), byte 0"),
                expected: format!("{before:#04x}"),
                actual: format!("{:#04x}", before ^ 0x80),
            },
        };
        assert_eq!(failure, expected, "{}", kernel.id);
        // Shrinking keeps a changed input apart from an output that differs from the model.
        let mismatch = |left, place: &str| Failure::Mismatch {
            left,
            right: "qemu",
            difference: Difference { place: place.into(), expected: "0x00".into(), actual: "0x01".into() },
        };
        assert!(failure.same_class(&mismatch("input", "argument 9 (read-only input), byte 3")));
        assert!(!failure.same_class(&mismatch("model", "buffer 0, byte 0")));
    }
}
