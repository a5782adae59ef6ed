//! Constant-time evidence from the object code (`pqhelium ct`): pairs of runs whose leakage traces
//! ([`pqhelium_guest::trace`]) are compared, and the verdicts judged against the declared known leaks.
//!
//! A pair is two inputs of a kernel that differ only in the arguments its contract marks secret: case A of the
//! contract's generator, with the secret arguments of a later case B. The kernel is constant-time on the pair when
//! both traces are equal. Traces are compared as running hashes; a pair whose hashes differ runs again with every
//! event recorded, to find every difference: the leaks. `check` judges them against [`KNOWN_LEAKS`], each a
//! difference at one kernel, image, kind, latency class and source line, with its reason.

use serde::Serialize;

use pqhelium_families::{self as registry, Kernel, case_rng};
use pqhelium_guest::backend::qemu::QemuBackend;
use pqhelium_guest::backend::unicorn::UnicornBackend;
use pqhelium_guest::backend::{Arg, BackendError, BackendKind, Call, CallError, Image, Limits};
use pqhelium_guest::elf::{GuestElf, SourceLines};
pub use pqhelium_guest::trace::*;

/// A pair of inputs of a kernel: case `a`'s arguments with the secret ones of case `b`.
#[derive(Debug, Clone)]
pub struct Pair {
    pub a: u64,
    pub b: u64,
    pub args_a: Vec<Arg>,
    pub args_b: Vec<Arg>,
}

/// How many later cases are tried for a `b` whose secret arguments have the shapes of case `a`'s (kernels whose
/// buffer lengths depend on a public parameter).
const PARTNER_SEARCH: u64 = 16;

/// Whether the kernel has an argument its contract marks secret.
pub fn has_secret(kernel: &Kernel) -> bool {
    kernel.args.iter().any(|a| a.secret)
}

fn same_shape(x: &Arg, y: &Arg) -> bool {
    match (x, y) {
        (Arg::In(p), Arg::In(q)) | (Arg::InOut(p), Arg::InOut(q)) => p.len() == q.len(),
        (Arg::Out(p), Arg::Out(q)) => p == q,
        (Arg::U32(_), Arg::U32(_)) | (Arg::F64(_), Arg::F64(_)) => true,
        _ => false,
    }
}

/// Pair number `index` of a campaign: case A is `index` (edge cases come first), case B the first later case whose
/// secret arguments fit A's public ones (same shapes, input bounds and relations between the arguments). `None`
/// when no case of the next few fits.
pub fn pair(kernel: &Kernel, seed: u64, index: u64) -> Option<Pair> {
    let a = index;
    let args_a = kernel.generate(a, &mut case_rng(seed, a));
    if args_a.len() != kernel.args.len() {
        return None;
    }
    (a + 1..=a + PARTNER_SEARCH).find_map(|b| {
        let donor = kernel.generate(b, &mut case_rng(seed, b));
        let mut args_b = args_a.clone();
        for ((slot, spec), given) in args_b.iter_mut().zip(&kernel.args).zip(donor) {
            if spec.secret {
                if !same_shape(slot, &given) {
                    return None;
                }
                *slot = given;
            }
        }
        let fits = registry::check_input_bounds(kernel, &args_b).is_ok() && kernel.evaluate(&args_b).is_ok();
        fits.then(|| Pair { a, b, args_a: args_a.clone(), args_b })
    })
}

/// An emulator in trace mode.
enum TracingBackend {
    Unicorn(UnicornBackend),
    Qemu(QemuBackend),
}

impl TracingBackend {
    fn trace(&mut self, symbol: &str, args: &[Arg], record: Option<u64>) -> Result<Trace, CallError> {
        use pqhelium_guest::backend::Backend;
        let call = Call::new(symbol, args.to_vec());
        match self {
            TracingBackend::Unicorn(backend) => {
                backend.record_events(record);
                backend.call(&call)?;
                Ok(backend.take_trace().expect("the backend traces"))
            }
            TracingBackend::Qemu(backend) => {
                backend.record_events(record);
                backend.call(&call)?;
                backend.take_trace().expect("the backend traces").map_err(CallError::BadCall)
            }
        }
    }
}

/// The object code under trace: an emulator in trace mode on one image.
pub struct Tracer {
    backend: TracingBackend,
    elf: GuestElf,
    lines: Option<SourceLines>,
    pub image: Image,
}

/// What one pair showed.
#[derive(Debug, Clone, PartialEq)]
pub enum PairOutcome {
    ConstantTime,
    /// The traces differ: every difference ([`differences`]).
    Differ(Vec<Leak>),
    /// The traces differ beyond what the recordings hold: the differences found in them, and why the rest is
    /// unjudged.
    Truncated(Vec<Leak>, String),
    /// A run faulted or timed out: no trace to compare.
    Fault(CallError),
}

impl Tracer {
    /// A tracer on `image`: unicorn's hooks for the m7 image, the QEMU trace plugin for the m55 and m85 images.
    pub fn open(image: Image, limits: Limits) -> Result<Self, BackendError> {
        Self::open_as(image, image.core(), limits)
    }

    /// A tracer on `image` that traces the variable-latency classes of `core` (the image's own core for
    /// [`Tracer::open`]; another one to check an emulator's operand reads against the other's).
    pub fn open_as(image: Image, core: Core, limits: Limits) -> Result<Self, BackendError> {
        let elf = GuestElf::parse(image.name(), image.guest().elf)?;
        let backend = match image.backend() {
            BackendKind::Qemu => TracingBackend::Qemu(QemuBackend::open_traced(&image.guest(), limits, core)?),
            _ => TracingBackend::Unicorn(UnicornBackend::open(&image.guest(), limits)?.traced(core)?),
        };
        let lines = SourceLines::parse(image.guest().elf);
        Ok(Self { backend, elf, lines, image })
    }

    /// The emulator that runs the traces.
    pub fn backend_name(&self) -> &'static str {
        match self.backend {
            TracingBackend::Unicorn(_) => "unicorn",
            TracingBackend::Qemu(_) => "qemu",
        }
    }

    /// The leakage trace of one call, recording its events from event `record` on when asked.
    pub fn trace(&mut self, symbol: &str, args: &[Arg], record: Option<u64>) -> Result<Trace, CallError> {
        self.backend.trace(symbol, args, record)
    }

    /// Runs both inputs of a pair and compares their traces; on a difference, runs both again recording every event
    /// to find every difference ([`differences`]).
    pub fn compare(&mut self, symbol: &str, pair: &Pair) -> PairOutcome {
        let run = |tracer: &mut Self, record| {
            let a = tracer.trace(symbol, &pair.args_a, record)?;
            let b = tracer.trace(symbol, &pair.args_b, record)?;
            Ok::<_, CallError>((a, b))
        };
        match run(self, None) {
            Err(e) => PairOutcome::Fault(e),
            Ok((a, b)) if a.same_as(&b) => PairOutcome::ConstantTime,
            Ok(_) => match run(self, Some(0)) {
                Err(e) => PairOutcome::Fault(e),
                Ok((a, b)) => {
                    let both = a.recorded_to_end() && b.recorded_to_end();
                    let (ra, rb) = (a.recorded.unwrap_or_default(), b.recorded.unwrap_or_default());
                    let leaks = differences(&ra, &rb, &self.elf, self.lines.as_ref());
                    if both && !leaks.is_empty() {
                        return PairOutcome::Differ(leaks);
                    }
                    let why = if both {
                        "the hashed traces differ, the recorded ones are equal".to_string()
                    } else {
                        format!(
                            "the traces ({} and {} events) are longer than their recordings ({} and {}): the \
                             differences beyond cannot be judged",
                            a.events,
                            b.events,
                            ra.len(),
                            rb.len()
                        )
                    };
                    PairOutcome::Truncated(leaks, why)
                }
            },
        }
    }
}

/// A pair of a whole operation compared with [`resynchronised_in_windows`]: what it found, and each trace's length
/// in events.
#[derive(Debug, Clone)]
pub struct WholeComparison {
    pub found: Resynchronised,
    pub events: (u64, u64),
}

impl Tracer {
    /// Runs both inputs of a pair of a whole operation recording their events, and compares the recordings
    /// ([`resynchronised_in_windows`]: a trace longer than a recording is run again for each further window, and
    /// every run of an input must give the same trace): `public` says which differences are public by design,
    /// `region` which instructions (given their `symbol+offset` and `file:line`) are public code, skipped after such
    /// a difference (`None`: it cannot tell).
    pub fn compare_whole(
        &mut self,
        symbol: &str,
        pair: &Pair,
        public: impl Fn(&Leak) -> bool,
        region: impl Fn(&str, Option<&str>) -> Option<bool>,
    ) -> Result<WholeComparison, CallError> {
        let Tracer { backend, elf, lines, .. } = self;
        let lines = lines.as_ref();
        let in_region = |pc: u32| region(&elf.locate(pc), lines.and_then(|l| l.line(pc)).as_deref());
        let mut first_runs: [Option<(u64, u64)>; 2] = [None, None];
        let mut record = |side: usize, from: u64| {
            let trace = backend.trace(symbol, [&pair.args_a, &pair.args_b][side], Some(from))?;
            let run = (trace.hash, trace.events);
            match first_runs[side] {
                Some(first) if first != run => Err(CallError::BadCall(format!(
                    "two runs of one input gave different traces ({} and {} events): the operation is not \
                     deterministic, so its recordings cannot be joined",
                    first.1, run.1
                ))),
                _ => {
                    first_runs[side] = Some(run);
                    Ok(trace)
                }
            }
        };
        let (found, events) = resynchronised_in_windows(&mut record, elf, lines, public, in_region)?;
        Ok(WholeComparison { found, events })
    }
}

/// The verdict on one kernel.
#[derive(Debug, Clone, Serialize)]
#[serde(tag = "status", rename_all = "kebab-case")]
pub enum Verdict {
    /// Every pair ran with equal traces (up to declared public events).
    ConstantTime,
    /// The first leak found (every leak is in [`KernelReport::leaks`]).
    Leak { pair: u64, case_a: u64, case_b: u64, leak: Leak },
    /// No argument is marked secret: nothing to compare ([`NO_SECRET`] says why, for our kernels).
    NoSecret { reason: String },
    /// Not run: no object code in the image.
    Skipped { reason: String },
    /// Not traced as a whole ([`NOT_TRACED`] says why).
    NotTraced { reason: String },
}

/// One leak of a campaign (a kind and class of difference at one source line) and the pairs that showed it.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Found {
    pub leak: Leak,
    /// The first pair that showed it.
    pub pair: u64,
    pub case_a: u64,
    pub case_b: u64,
    /// How many pairs showed it.
    pub pairs: u64,
}

/// One kernel's constant-time campaign.
#[derive(Debug, Clone, Serialize)]
pub struct KernelReport {
    pub kernel: &'static str,
    pub symbol: &'static str,
    pub image: String,
    pub seed: u64,
    /// Pairs compared.
    pub pairs: u64,
    /// Pair numbers skipped for want of a partner case that fits case A (not compared, not in `pairs`).
    pub unpaired: u64,
    /// Pairs whose runs faulted, or whose differences could not all be judged, with the first error.
    pub faults: u64,
    pub first_fault: Option<String>,
    /// What the contract declares public by design, and how many pairs differed there (the first shown).
    pub declarations: Vec<Declassification>,
    pub declassified_pairs: u64,
    pub first_declassified: Option<Leak>,
    /// Every leak of every pair, in the order found, each kind, class and source line once.
    pub leaks: Vec<Found>,
    #[serde(flatten)]
    pub verdict: Verdict,
}

impl KernelReport {
    fn fault(&mut self, index: u64, why: impl std::fmt::Display) {
        self.faults += 1;
        self.first_fault.get_or_insert_with(|| format!("pair {index}: {why}"));
    }

    /// Takes in the differences of one pair: declared public ones, and leaks.
    fn absorb(&mut self, index: u64, pair: &Pair, differences: Vec<Leak>) {
        let mut declassified = false;
        // The leaks this pair showed (an unrolled line shows once per copy).
        let mut shown = Vec::new();
        for leak in differences {
            if self.declarations.iter().any(|d| d.covers(&leak)) {
                declassified = true;
                self.first_declassified.get_or_insert(leak);
            } else if let Some(at) = self.leaks.iter().position(|f| same_place(&f.leak, &leak)) {
                if !shown.contains(&at) {
                    shown.push(at);
                    self.leaks[at].pairs += 1;
                }
            } else {
                shown.push(self.leaks.len());
                self.leaks.push(Found { leak, pair: index, case_a: pair.a, case_b: pair.b, pairs: 1 });
            }
        }
        self.declassified_pairs += u64::from(declassified);
    }
}

/// Whether two leaks are of one kind and class at one source line (or, without a line, one instruction): an unrolled
/// loop's copies of a line are one leak.
fn same_place(x: &Leak, y: &Leak) -> bool {
    let place = |l: &Leak| (l.kind, l.class, l.source.clone().unwrap_or_else(|| l.location.clone()));
    place(x) == place(y)
}

/// Compares the pairs `pairs` of `kernel`, every difference of every pair (a leak does not end the campaign).
pub fn check_kernel(
    tracer: &mut Tracer,
    kernel: &'static Kernel,
    seed: u64,
    pairs: std::ops::Range<u64>,
) -> KernelReport {
    let mut report = KernelReport {
        kernel: kernel.id,
        symbol: kernel.symbol,
        image: tracer.image.name().into(),
        seed,
        pairs: 0,
        unpaired: 0,
        faults: 0,
        first_fault: None,
        declarations: kernel.declassified().to_vec(),
        declassified_pairs: 0,
        first_declassified: None,
        leaks: Vec::new(),
        verdict: Verdict::ConstantTime,
    };
    if !has_secret(kernel) {
        let reason = no_secret_reason(kernel.id).unwrap_or("no argument is marked secret");
        report.verdict = Verdict::NoSecret { reason: reason.into() };
        return report;
    }
    if let Some(reason) = not_traced_reason(kernel.id) {
        report.verdict = Verdict::NotTraced { reason: reason.into() };
        return report;
    }
    if !tracer.image.has_symbol(kernel.symbol) || kernel.images == registry::Images::HostOnly {
        report.verdict = Verdict::Skipped { reason: format!("no object code in the {} image", tracer.image) };
        return report;
    }
    for index in pairs {
        let Some(pair) = pair(kernel, seed, index) else {
            report.unpaired += 1;
            continue;
        };
        report.pairs += 1;
        match tracer.compare(kernel.symbol, &pair) {
            PairOutcome::ConstantTime => {}
            PairOutcome::Differ(leaks) => report.absorb(index, &pair, leaks),
            PairOutcome::Truncated(leaks, why) => {
                report.absorb(index, &pair, leaks);
                report.fault(index, why);
            }
            PairOutcome::Fault(e) => report.fault(index, e),
        }
    }
    if let Some(first) = report.leaks.first() {
        let Found { leak, pair, case_a, case_b, .. } = first.clone();
        report.verdict = Verdict::Leak { pair, case_a, case_b, leak };
    }
    report
}

/// Why a kernel of ours has no secret argument (`pqhelium check` lists them; a test keeps this table equal to the
/// registry's kernels without one).
pub const NO_SECRET: &[(&str, &str)] = &[
    ("mlkem.decompress.du10.mve", CIPHERTEXT),
    ("mlkem.decompress.dv4.mve", CIPHERTEXT),
    ("mlkem.decompress.du10.scalar", CIPHERTEXT),
    ("mlkem.decompress.dv4.scalar", CIPHERTEXT),
    ("fndsa.verify", VERIFICATION),
    ("fndsa.verify.scalar", VERIFICATION),
    ("fndsa.verify.batch4", VERIFICATION),
    ("fndsa.verify.batch4.scalar", VERIFICATION),
];

const CIPHERTEXT: &str = "decompresses a ciphertext's u or v, which the sender publishes";
const VERIFICATION: &str = "verifies a signature: the public key, message and signature are all public";

/// Whole operations of ours that `ct` does not trace as a whole, and why (`pqhelium check` lists them).
pub const NOT_TRACED: &[(&str, &str)] = &[
    ("fndsa.sign", WHOLE_SIGNING),
    ("fndsa.sign.emu", WHOLE_SIGNING),
    ("fndsa.keygen.pair", WHOLE_KEYGEN),
    ("fndsa.keygen.pair.scalar", WHOLE_KEYGEN),
];

const WHOLE_SIGNING: &str = "whole signing: its rejection loops (hash-to-point, the sampler) repeat a number of times \
     that depends on the key and the randomness by design, so a pair's traces part and must be brought back in step: \
     `pqhelium scheme --scheme fndsa512|fndsa1024 --ct-pairs N` compares them that way (docs/constant-time.md); the \
     kernels it calls (FP64, NTT, Keccak) are traced one by one here";

const WHOLE_KEYGEN: &str = "whole key generation: candidates are drawn and rejected a key-dependent number of times by \
     design, so a pair's traces part and must be brought back in step: `pqhelium scheme --ct-pairs N` compares them \
     that way, to their ends, the NTRU solver included; the fixed-point FFT and division kernels it calls are traced \
     one by one here";

/// Why `kernel` is not traced as a whole, when [`NOT_TRACED`] says.
pub fn not_traced_reason(kernel: &str) -> Option<&'static str> {
    NOT_TRACED.iter().find(|(id, _)| *id == kernel).map(|(_, why)| *why)
}

/// Why `kernel` has no secret argument, when [`NO_SECRET`] says.
pub fn no_secret_reason(kernel: &str) -> Option<&'static str> {
    NO_SECRET.iter().find(|(id, _)| *id == kernel).map(|(_, why)| *why)
}

/// The fewest pairs a kernel's campaign must compare to pass `check`: a difference that half the pairs show (a branch
/// on one secret bit) is missed by all of them with probability 2^-8 < 0.4%.
pub const MIN_PAIRS: u64 = 8;

/// Edge cases `check` pairs at most per kernel: about a third of the kernels have no more (all their edge cases
/// paired); the others (Keccak's 1,602 single-bit states, the FN-DSA key generation's and X25519's division and field
/// edge classes) would multiply the section's time by seven, and `pqhelium ct --pairs N` pairs them all.
pub const CHECK_EDGE_PAIRS: u64 = 16;

/// The pairs `check` runs of a kernel: one per edge case, up to [`CHECK_EDGE_PAIRS`] (pair i takes edge case i with
/// the secret arguments of the next case, so each of those edge values of every secret argument is paired), then
/// [`MIN_PAIRS`] pairs of random cases.
pub fn check_pairs(kernel: &Kernel) -> u64 {
    kernel.edge_cases.min(CHECK_EDGE_PAIRS) + MIN_PAIRS
}

/// A leak `pqhelium check` expects, at exactly one kernel, on the listed images, of one kind (and latency class), at
/// the listed source lines: planted in a fixture (it must be found), or found in one of our kernels and explained
/// (docs/constant-time.md). Any other difference fails `check`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct KnownLeak {
    /// The kernel's id (exactly: no glob).
    pub kernel: &'static str,
    pub images: &'static [Image],
    pub kind: LeakKind,
    /// The instruction class of a variable-latency leak (`None` for the other kinds).
    pub class: Option<LatencyClass>,
    /// The source lines (`file:line` of the image's DWARF, as [`Leak::source`]) where the differences may be: the
    /// line stays when code elsewhere moves the offsets, and one edit of the line makes `check` ask again.
    pub lines: &'static [&'static str],
    /// A fixture's planted leak: `check` fails when it is not found.
    pub planted: bool,
    pub why: &'static str,
}

impl KnownLeak {
    /// Whether this entry explains a leak of `kernel` on `image`.
    pub fn explains(&self, kernel: &str, image: Image, leak: &Leak) -> bool {
        self.kernel == kernel && self.explains_line(image, leak)
    }

    /// Whether this entry explains a leak on `image` at one of its source lines, in whatever code inlined them (a
    /// whole operation's trace).
    pub fn explains_line(&self, image: Image, leak: &Leak) -> bool {
        self.images.contains(&image)
            && self.kind == leak.kind
            && self.class == leak.class
            && leak.source.as_deref().is_some_and(|line| self.lines.contains(&line))
    }
}

const ALL_IMAGES: &[Image] = &[Image::M7, Image::M55, Image::M85];

const PLANTED: &str = "planted: the fixture leaks on purpose";
const FP_DIV: &str = "VDIV.F64/VSQRT.F64 with secret operands: variable latency on the Cortex-M85 for want of a \
    statement; FN-DSA's design relies on the Cortex-M55's constant-latency FP64 division";
const M7_FP64: &str = "FP64 additions, multiplications and divisions with secret operands: operand-dependent times \
    measured on a Cortex-M7; the FP64 kernels are for the Cortex-M55, whose FP64 unit has no such measurement";
const MLKEM_VPT: &str = "clang makes the conditional add of q to a negative (or subtraction from a too large) \
    coefficient a VPT-predicated add, in the MVE kernels and in the portable C it vectorises; no public source says \
    predicated-off lanes take different time";
const KEYGEN_FFT_VPT: &str = "clang makes the fixed-point FFT's rounding correction of negative lanes a VPT-predicated \
    add; no public source says predicated-off lanes take different time";

/// The lines of the FP64 operations the native FP64 kernels inline (`kernels/arm/fndsa_fpu/fp64.h`: add 173,
/// subtract 178, multiply 183, divide 188, square root 200, the integer conversion's multiply-add 223 and 240; the
/// sampler's own products in `sampler_fp.c`), and of the key generation's division (`fndsa_keygen/fxr_div.h`: the
/// conversion 21, the digit 42, the reciprocal's division 58 and product 59), each as the traces show them.
const FP64_ADD: &str = "kernels/arm/fndsa_fpu/fp64.h:173";
const FP64_SUB: &str = "kernels/arm/fndsa_fpu/fp64.h:178";
const FP64_MUL: &str = "kernels/arm/fndsa_fpu/fp64.h:183";
const FP64_ADD_SUB_MUL: &[&str] = &[FP64_ADD, FP64_SUB, FP64_MUL];
const FP64_DIV: &[&str] = &["kernels/arm/fndsa_fpu/fp64.h:188"];
const FP64_SQRT: &[&str] = &["kernels/arm/fndsa_fpu/fp64.h:200"];
const FP64_OF_I64: &str = "kernels/arm/fndsa_fpu/fp64.h:223";
const FP64_TO_I64: &str = "kernels/arm/fndsa_fpu/fp64.h:240";
const FXR_ADD_MUL: &[&str] = &[
    "kernels/arm/fndsa_keygen/fxr_div.h:21",
    "kernels/arm/fndsa_keygen/fxr_div.h:42",
    "kernels/arm/fndsa_keygen/fxr_div.h:59",
];
const FXR_DIV: &[&str] = &["kernels/arm/fndsa_keygen/fxr_div.h:58"];
/// The correction of a lane by q in `mlkem_poly.mve.c`.
const MLKEM_LANE_CORRECTION: &[&str] = &["kernels/arm/mlkem_ntt/mlkem_poly.mve.c:62"];

/// Where `x25519.base.b8` leaks: the pointer picked by the sign, and the loads of the operands it points at.
const B8_OPERANDS: &[&str] = &["kernels/arm/x25519/base.c:171", "kernels/arm/x25519/fe.c:63"];

const fn planted(
    kernel: &'static str,
    images: &'static [Image],
    kind: LeakKind,
    line: &'static [&'static str],
) -> KnownLeak {
    let class = match kind {
        LeakKind::VariableLatency => Some(LatencyClass::IntegerDivide),
        _ => None,
    };
    KnownLeak { kernel, images, kind, class, lines: line, planted: true, why: PLANTED }
}

const fn explained(
    kernel: &'static str,
    image: &'static [Image],
    kind: LeakKind,
    class: Option<LatencyClass>,
    lines: &'static [&'static str],
    why: &'static str,
) -> KnownLeak {
    KnownLeak { kernel, images: image, kind, class, lines, planted: false, why }
}

const fn m7_fp64(kernel: &'static str, class: LatencyClass, lines: &'static [&'static str]) -> KnownLeak {
    explained(kernel, &[Image::M7], LeakKind::VariableLatency, Some(class), lines, M7_FP64)
}

const fn m85_fp_div(kernel: &'static str, lines: &'static [&'static str]) -> KnownLeak {
    explained(kernel, &[Image::M85], LeakKind::VariableLatency, Some(LatencyClass::FloatDivideSqrt), lines, FP_DIV)
}

const fn m85_vpt(kernel: &'static str, lines: &'static [&'static str], why: &'static str) -> KnownLeak {
    explained(kernel, &[Image::M85], LeakKind::LanePredication, None, lines, why)
}

use LatencyClass::{DoubleAddMultiply, FloatDivideSqrt};

/// The leaks `pqhelium check` expects (docs/constant-time.md explains each).
pub const KNOWN_LEAKS: &[KnownLeak] = &[
    planted("ct.fixture.lookup", ALL_IMAGES, LeakKind::MemoryAddress, &["kernels/arm/ct_fixture/fixtures.c:36"]),
    planted("ct.fixture.branch", ALL_IMAGES, LeakKind::ControlFlow, &["kernels/arm/ct_fixture/fixtures.c:61"]),
    planted("ct.fixture.select.it", ALL_IMAGES, LeakKind::Predication, &["kernels/arm/ct_fixture/fixtures.c:77"]),
    planted("ct.fixture.div_q", ALL_IMAGES, LeakKind::VariableLatency, &["kernels/arm/ct_fixture/fixtures.c:98"]),
    planted("ct.fixture.clz", ALL_IMAGES, LeakKind::ControlFlow, &["kernels/arm/ct_fixture/fixtures.c:121"]),
    KnownLeak {
        why: "planted: branch-free C that clang compiles to an IT block on the sign (gcc keeps the masks)",
        ..planted("ct.fixture.abs", &[Image::M85], LeakKind::Predication, &["kernels/arm/ct_fixture/fixtures.c:168"])
    },
    planted(
        "ct.fixture.select.vpt",
        &[Image::M55, Image::M85],
        LeakKind::LanePredication,
        &["kernels/arm/ct_fixture/fixtures_vpt.mve.c:18"],
    ),
    KnownLeak {
        why: "planted: the X-Wing design's B8 flaw, table operands reached through a pointer chosen by the sign of a \
            secret digit",
        ..planted("x25519.base.b8", ALL_IMAGES, LeakKind::MemoryAddress, B8_OPERANDS)
    },
    m7_fp64("fndsa.fpu.fft", DoubleAddMultiply, FP64_ADD_SUB_MUL),
    m7_fp64("fndsa.fpu.ifft", DoubleAddMultiply, FP64_ADD_SUB_MUL),
    m7_fp64("fndsa.fpu.add", DoubleAddMultiply, &[FP64_ADD]),
    m7_fp64("fndsa.fpu.sub", DoubleAddMultiply, &[FP64_SUB]),
    m7_fp64("fndsa.fpu.mulconst", DoubleAddMultiply, &[FP64_MUL]),
    m7_fp64("fndsa.fpu.mul", DoubleAddMultiply, FP64_ADD_SUB_MUL),
    m7_fp64("fndsa.fpu.muladj", DoubleAddMultiply, FP64_ADD_SUB_MUL),
    m7_fp64("fndsa.fpu.mulownadj", DoubleAddMultiply, &[FP64_ADD, FP64_MUL]),
    m7_fp64("fndsa.fpu.ldl", DoubleAddMultiply, FP64_ADD_SUB_MUL),
    m7_fp64("fndsa.fpu.ldl", FloatDivideSqrt, FP64_DIV),
    m7_fp64("fndsa.fpu.split", DoubleAddMultiply, FP64_ADD_SUB_MUL),
    m7_fp64("fndsa.fpu.split_selfadj", DoubleAddMultiply, FP64_ADD_SUB_MUL),
    m7_fp64("fndsa.fpu.merge", DoubleAddMultiply, FP64_ADD_SUB_MUL),
    m7_fp64("fndsa.fpu.leaf_sigma", DoubleAddMultiply, &[FP64_MUL]),
    m7_fp64("fndsa.fpu.leaf_sigma", FloatDivideSqrt, FP64_SQRT),
    m7_fp64(
        "fndsa.fpu.sampler_centre",
        DoubleAddMultiply,
        &[
            FP64_MUL,
            FP64_OF_I64,
            FP64_TO_I64,
            "kernels/arm/fndsa_fpu/sampler_fp.c:34",
            "kernels/arm/fndsa_fpu/sampler_fp.c:35",
        ],
    ),
    m7_fp64("fndsa.fpu.sampler_exponent", DoubleAddMultiply, &[FP64_SUB, FP64_MUL, FP64_TO_I64]),
    m7_fp64("fndsa.keygen.div", DoubleAddMultiply, FXR_ADD_MUL),
    m7_fp64("fndsa.keygen.div", FloatDivideSqrt, FXR_DIV),
    m7_fp64("fndsa.keygen.div_selfadj", DoubleAddMultiply, FXR_ADD_MUL),
    m7_fp64("fndsa.keygen.div_selfadj", FloatDivideSqrt, FXR_DIV),
    m7_fp64("fndsa.keygen.invnorm", DoubleAddMultiply, FXR_ADD_MUL),
    m7_fp64("fndsa.keygen.invnorm", FloatDivideSqrt, FXR_DIV),
    m7_fp64("fndsa.keygen.inv_mul2e", DoubleAddMultiply, FXR_ADD_MUL),
    m7_fp64("fndsa.keygen.inv_mul2e", FloatDivideSqrt, FXR_DIV),
    m85_fp_div("fndsa.fpu.ldl", FP64_DIV),
    m85_fp_div("fndsa.fpu.leaf_sigma", FP64_SQRT),
    m85_fp_div("fndsa.keygen.div", FXR_DIV),
    m85_fp_div("fndsa.keygen.div_selfadj", FXR_DIV),
    m85_fp_div("fndsa.keygen.invnorm", FXR_DIV),
    m85_fp_div("fndsa.keygen.inv_mul2e", FXR_DIV),
    m85_vpt("fndsa.keygen.fft", &["kernels/arm/fndsa_keygen/fft_q32.mve.c:103"], KEYGEN_FFT_VPT),
    m85_vpt("fndsa.keygen.ifft", &["kernels/arm/fndsa_keygen/fft_q32.mve.c:103"], KEYGEN_FFT_VPT),
    m85_vpt(
        "mlkem.order.from_mve",
        &["kernels/arm/mlkem_ntt/mlkem_ntt.mve.c:423"],
        "clang makes the sign correction of each lane a VPT-predicated add; no public source says predicated-off \
            lanes take different time, and the output order it converts is what ML-KEM publishes anyway",
    ),
    m85_vpt("mlkem.compress.du10.mve", MLKEM_LANE_CORRECTION, MLKEM_VPT),
    m85_vpt("mlkem.compress.dv4.mve", MLKEM_LANE_CORRECTION, MLKEM_VPT),
    m85_vpt("mlkem.compress.d1.mve", MLKEM_LANE_CORRECTION, MLKEM_VPT),
    m85_vpt("mlkem.decompress.d1.mve", &["kernels/arm/mlkem_ntt/mlkem_poly.mve.c:169"], MLKEM_VPT),
    m85_vpt("mlkem.poly.reduce.mve", MLKEM_LANE_CORRECTION, MLKEM_VPT),
];

/// What `check` makes of one kernel's campaign on one image.
#[derive(Debug, Clone, PartialEq)]
pub enum Judgement {
    /// At least [`MIN_PAIRS`] pairs, no fault, every planted leak found and every leak explained by the entries given
    /// (none: equal traces).
    Pass(Vec<&'static KnownLeak>),
    /// Leaks no entry explains (every one of the campaign).
    Unexplained(Vec<Found>),
    /// A fixture's planted leak was not found.
    PlantedMissing(&'static KnownLeak),
    Faulted,
    /// Fewer than [`MIN_PAIRS`] pairs compared.
    TooFewPairs(u64),
    /// No secret argument, for the reason [`NO_SECRET`] gives.
    NoSecret(&'static str),
    /// No secret argument, and [`NO_SECRET`] does not say why.
    NoSecretUnexplained,
    /// No object code in the image.
    NotInImage,
    /// Not traced as a whole, for the reason [`NOT_TRACED`] gives.
    NotTraced(&'static str),
}

impl Judgement {
    /// Whether `check` passes with it.
    pub fn passed(&self) -> bool {
        matches!(self, Judgement::Pass(_) | Judgement::NoSecret(_) | Judgement::NotInImage | Judgement::NotTraced(_))
    }
}

/// Judges one campaign against [`KNOWN_LEAKS`].
pub fn judge(report: &KernelReport, image: Image) -> Judgement {
    judge_against(report, image, KNOWN_LEAKS)
}

/// Judges one campaign against the known leaks `known`.
pub fn judge_against(report: &KernelReport, image: Image, known: &'static [KnownLeak]) -> Judgement {
    match &report.verdict {
        Verdict::NoSecret { .. } => {
            return no_secret_reason(report.kernel).map_or(Judgement::NoSecretUnexplained, Judgement::NoSecret);
        }
        Verdict::Skipped { .. } => return Judgement::NotInImage,
        Verdict::NotTraced { .. } => {
            return Judgement::NotTraced(not_traced_reason(report.kernel).expect("only NOT_TRACED's kernels"));
        }
        Verdict::ConstantTime | Verdict::Leak { .. } => {}
    }
    let explained = |found: &Found| known.iter().find(|k| k.explains(report.kernel, image, &found.leak));
    let unexplained: Vec<Found> = report.leaks.iter().filter(|f| explained(f).is_none()).cloned().collect();
    if !unexplained.is_empty() {
        return Judgement::Unexplained(unexplained);
    }
    if report.faults > 0 {
        return Judgement::Faulted;
    }
    let planted = known.iter().filter(|k| k.planted && k.kernel == report.kernel && k.images.contains(&image));
    if let Some(missing) =
        planted.clone().find(|k| !report.leaks.iter().any(|f| k.explains(report.kernel, image, &f.leak)))
    {
        return Judgement::PlantedMissing(missing);
    }
    if report.pairs < MIN_PAIRS {
        return Judgement::TooFewPairs(report.pairs);
    }
    let mut used: Vec<&'static KnownLeak> = Vec::new();
    for entry in report.leaks.iter().filter_map(explained) {
        if !used.contains(&entry) {
            used.push(entry);
        }
    }
    Judgement::Pass(used)
}

/// One kernel's campaign as `check` runs it on the tracer's image ([`check_pairs`] pairs), and its judgement.
pub fn run_as_check(tracer: &mut Tracer, kernel: &'static Kernel, seed: u64) -> (KernelReport, Judgement) {
    let report = check_kernel(tracer, kernel, seed, 0..check_pairs(kernel));
    let judgement = judge(&report, tracer.image);
    (report, judgement)
}

impl Judgement {
    /// The cell of `check`'s constant-time table.
    pub fn cell(&self, report: &KernelReport) -> String {
        match self {
            Judgement::Pass(known) if known.is_empty() => format!("pass ({})", report.pairs),
            Judgement::Pass(known) => format!("pass ({}; {} known leaks)", report.pairs, known.len()),
            Judgement::Unexplained(leaks) => format!("**{} unexplained leaks**", leaks.len()),
            Judgement::PlantedMissing(_) => "**planted leak missed**".into(),
            Judgement::Faulted => format!("**{} faults**", report.faults),
            Judgement::TooFewPairs(n) => format!("**{n} pairs**"),
            Judgement::NoSecret(_) | Judgement::NoSecretUnexplained => "no secret".into(),
            Judgement::NotInImage => "-".into(),
            Judgement::NotTraced(_) => "not traced".into(),
        }
    }

    /// What `check` prints under its table for a failure (`None` when it passed).
    pub fn failure(&self, report: &KernelReport) -> Option<String> {
        let at = format!("{} {}", report.image, report.kernel);
        Some(match self {
            Judgement::Pass(_) | Judgement::NoSecret(_) | Judgement::NotInImage | Judgement::NotTraced(_) => {
                return None;
            }
            Judgement::Unexplained(leaks) => leaks
                .iter()
                .map(|f| format!("{at}: UNEXPLAINED {} (pair {}, {} pairs)", f.leak, f.pair, f.pairs))
                .collect::<Vec<_>>()
                .join("\n"),
            Judgement::PlantedMissing(k) => {
                format!("{at}: planted {} leak at {} not found", k.kind, k.lines.join(", "))
            }
            Judgement::Faulted => format!("{at}: fault {}", report.first_fault.as_deref().unwrap_or_default()),
            Judgement::TooFewPairs(n) => format!(
                "{at}: {n} pairs compared, fewer than {MIN_PAIRS} ({} without a fitting partner)",
                report.unpaired
            ),
            Judgement::NoSecretUnexplained => format!("{at}: no secret argument, and ct::NO_SECRET does not say why"),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn leak(kind: LeakKind, class: Option<LatencyClass>, source: &str) -> Leak {
        Leak {
            kind,
            class,
            pc: 0x1000,
            location: "f+0x0".into(),
            source: Some(source.into()),
            event: 0,
            a: String::new(),
            b: String::new(),
        }
    }

    fn report(kernel: &'static str, pairs: u64, leaks: Vec<Leak>) -> KernelReport {
        let verdict = match leaks.first() {
            Some(leak) => Verdict::Leak { pair: 0, case_a: 0, case_b: 1, leak: leak.clone() },
            None => Verdict::ConstantTime,
        };
        KernelReport {
            kernel,
            symbol: "",
            image: String::new(),
            seed: 0,
            pairs,
            unpaired: 0,
            faults: 0,
            first_fault: None,
            declarations: Vec::new(),
            declassified_pairs: 0,
            first_declassified: None,
            leaks: leaks.into_iter().map(|leak| Found { leak, pair: 0, case_a: 0, case_b: 1, pairs: 1 }).collect(),
            verdict,
        }
    }

    #[test]
    fn known_leaks_name_exact_kernels_and_locations() {
        for k in KNOWN_LEAKS {
            assert!(registry::find(k.kernel).is_some_and(|kernel| kernel.id == k.kernel), "{k:?}");
            assert_eq!(k.class.is_some(), k.kind == LeakKind::VariableLatency, "{k:?}");
            assert!(!k.lines.is_empty() && !k.images.is_empty(), "{k:?}");
            assert!(k.lines.iter().all(|l| l.rsplit_once(':').is_some_and(|(_, n)| n.parse::<u32>().is_ok())), "{k:?}");
        }
        // One entry per kernel, image, kind and class.
        for (i, k) in KNOWN_LEAKS.iter().enumerate() {
            let same = |o: &&KnownLeak| (o.kernel, o.kind, o.class) == (k.kernel, k.kind, k.class);
            let overlap =
                KNOWN_LEAKS[i + 1..].iter().filter(same).any(|o| o.images.iter().any(|m| k.images.contains(m)));
            assert!(!overlap, "{k:?} twice");
        }
    }

    #[test]
    fn the_kernels_without_a_secret_are_those_listed_with_a_reason() {
        let without: Vec<&str> = registry::all().filter(|k| !has_secret(k)).map(|k| k.id).collect();
        let listed: Vec<&str> = NO_SECRET.iter().map(|(id, _)| *id).collect();
        assert_eq!(without, listed);
    }

    /// The kernels not traced as a whole are registered, have a secret argument (else they would be in
    /// [`NO_SECRET`]), and are judged as not traced whatever their campaign found.
    #[test]
    fn the_kernels_not_traced_are_registered_and_judged_so() {
        for (id, why) in NOT_TRACED {
            let kernel = registry::find(id).unwrap_or_else(|| panic!("{id} is not registered"));
            assert!(has_secret(kernel), "{id}");
            let mut campaign = report(id, 0, vec![]);
            campaign.verdict = Verdict::NotTraced { reason: why.to_string() };
            assert_eq!(judge(&campaign, Image::M55), Judgement::NotTraced(why));
            assert!(Judgement::NotTraced(why).passed());
            campaign.verdict = Verdict::ConstantTime;
            assert_eq!(judge(&campaign, Image::M55), Judgement::TooFewPairs(0), "{id}: judged on its pairs if traced");
        }
    }

    /// An FP64 division known on the M85 image excuses an FP64 division at its line, and nothing else: not a UDIV at
    /// the same line (the KyberSlash class), not another line, image or kernel.
    #[test]
    fn a_known_leak_excuses_only_its_class_line_image_and_kernel() {
        let line = FXR_DIV[0];
        let fp_div = leak(LeakKind::VariableLatency, Some(LatencyClass::FloatDivideSqrt), line);
        let udiv = leak(LeakKind::VariableLatency, Some(LatencyClass::IntegerDivide), line);
        let elsewhere = leak(LeakKind::VariableLatency, Some(LatencyClass::FloatDivideSqrt), "kernels/arm/x.c:1");
        let kernel = "fndsa.keygen.div";
        let pass = |r: &KernelReport, image| judge(r, image).passed();
        assert!(pass(&report(kernel, MIN_PAIRS, vec![fp_div.clone()]), Image::M85));
        assert!(!pass(&report(kernel, MIN_PAIRS, vec![fp_div.clone()]), Image::M55));
        assert!(!pass(&report("fndsa.keygen.div.scalar", MIN_PAIRS, vec![fp_div.clone()]), Image::M85));
        for second in [udiv, elsewhere] {
            let judged = judge(&report(kernel, MIN_PAIRS, vec![fp_div.clone(), second.clone()]), Image::M85);
            assert!(matches!(&judged, Judgement::Unexplained(u) if u.len() == 1 && u[0].leak == second), "{judged:?}");
        }
    }

    #[test]
    fn no_evidence_is_no_pass() {
        assert_eq!(judge(&report("keccak.f1600", 0, vec![]), Image::M55), Judgement::TooFewPairs(0));
        assert_eq!(
            judge(&report("keccak.f1600", MIN_PAIRS - 1, vec![]), Image::M55),
            Judgement::TooFewPairs(MIN_PAIRS - 1)
        );
        assert_eq!(judge(&report("keccak.f1600", MIN_PAIRS, vec![]), Image::M55), Judgement::Pass(vec![]));
        let mut faulted = report("keccak.f1600", MIN_PAIRS, vec![]);
        faulted.faults = 1;
        assert_eq!(judge(&faulted, Image::M55), Judgement::Faulted);
        let mut unlisted = report("keccak.f1600", 0, vec![]);
        unlisted.verdict = Verdict::NoSecret { reason: String::new() };
        assert_eq!(judge(&unlisted, Image::M55), Judgement::NoSecretUnexplained);
        assert!(!Judgement::NoSecretUnexplained.passed());
        // A planted leak must be found.
        let judged = judge(&report("ct.fixture.div_q", 100, vec![]), Image::M7);
        assert!(matches!(judged, Judgement::PlantedMissing(k) if k.kernel == "ct.fixture.div_q"), "{judged:?}");
    }
}
