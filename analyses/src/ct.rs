//! Constant-time evidence from the object code (`pqhelium ct`): pairs of runs whose leakage traces
//! ([`pqhelium_guest::trace`]) are compared, and the verdicts judged against the declared known leaks.
//!
//! A pair is two inputs of a kernel that differ only in the arguments its contract marks secret: case A of the
//! contract's generator, with the secret arguments of a later case B. The kernel is constant-time on the pair when
//! both traces are equal. Traces are compared as running hashes; a pair whose hashes differ runs again with every
//! event recorded, to find the first differing event: the leak.

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
    Leak(Leak),
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

    /// The leakage trace of one call.
    pub fn trace(&mut self, symbol: &str, args: &[Arg], record: bool) -> Result<Trace, CallError> {
        use pqhelium_guest::backend::Backend;
        let call = Call::new(symbol, args.to_vec());
        match &mut self.backend {
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

    /// Runs both inputs of a pair and compares their traces; on a difference, runs both again recording every event
    /// to find the first one.
    pub fn compare(&mut self, symbol: &str, pair: &Pair) -> PairOutcome {
        let run = |tracer: &mut Self, record| {
            let a = tracer.trace(symbol, &pair.args_a, record)?;
            let b = tracer.trace(symbol, &pair.args_b, record)?;
            Ok::<_, CallError>((a, b))
        };
        match run(self, false) {
            Err(e) => PairOutcome::Fault(e),
            Ok((a, b)) if a.same_as(&b) => PairOutcome::ConstantTime,
            Ok(_) => match run(self, true) {
                Err(e) => PairOutcome::Fault(e),
                Ok((a, b)) => {
                    let complete = |t: &Trace| t.recorded.as_ref().is_some_and(|r| r.len() as u64 == t.events);
                    let both = complete(&a) && complete(&b);
                    let (ra, rb) = (a.recorded.unwrap_or_default(), b.recorded.unwrap_or_default());
                    match first_difference(&ra, &rb, &self.elf, self.lines.as_ref()) {
                        Some(leak) if both || leak.event < ra.len().min(rb.len()) as u64 => PairOutcome::Leak(leak),
                        // The hashes differ beyond what the recording holds.
                        _ => PairOutcome::Fault(CallError::BadCall(format!(
                            "the traces differ ({} and {} events) beyond the first {} recorded",
                            a.events,
                            b.events,
                            ra.len().min(rb.len())
                        ))),
                    }
                }
            },
        }
    }
}

/// The verdict on one kernel.
#[derive(Debug, Clone, Serialize)]
#[serde(tag = "status", rename_all = "kebab-case")]
pub enum Verdict {
    /// Every pair ran with equal traces.
    ConstantTime,
    /// The first leaking pair (the kernel's campaign stops there).
    Leak { pair: u64, case_a: u64, case_b: u64, leak: Leak },
    /// Skipped, with why (no secret argument, not in the image).
    Skipped { reason: String },
}

/// One kernel's constant-time campaign.
#[derive(Debug, Clone, Serialize)]
pub struct KernelReport {
    pub kernel: &'static str,
    pub symbol: &'static str,
    pub image: String,
    pub seed: u64,
    /// Pairs compared (pairs with no fitting partner case are not counted).
    pub pairs: u64,
    /// Pairs whose runs faulted, with the first error.
    pub faults: u64,
    pub first_fault: Option<String>,
    /// What the contract declares public by design, and how many pairs first differed there (the first shown).
    pub declarations: Vec<Declassification>,
    pub declassified_pairs: u64,
    pub first_declassified: Option<Leak>,
    #[serde(flatten)]
    pub verdict: Verdict,
}

/// Compares the pairs `pairs` of `kernel` (stopping at the first leak).
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
        faults: 0,
        first_fault: None,
        declarations: kernel.declassified().to_vec(),
        declassified_pairs: 0,
        first_declassified: None,
        verdict: Verdict::ConstantTime,
    };
    if !has_secret(kernel) {
        report.verdict = Verdict::Skipped { reason: "no argument is marked secret".into() };
        return report;
    }
    if !tracer.image.has_symbol(kernel.symbol) || kernel.images == registry::Images::HostOnly {
        report.verdict = Verdict::Skipped { reason: format!("no object code in the {} image", tracer.image) };
        return report;
    }
    for index in pairs {
        let Some(pair) = pair(kernel, seed, index) else { continue };
        report.pairs += 1;
        match tracer.compare(kernel.symbol, &pair) {
            PairOutcome::ConstantTime => {}
            PairOutcome::Leak(leak) if report.declarations.iter().any(|d| d.covers(&leak)) => {
                report.declassified_pairs += 1;
                report.first_declassified.get_or_insert(leak);
            }

            PairOutcome::Fault(e) => {
                report.faults += 1;
                report.first_fault.get_or_insert_with(|| format!("pair {index}: {e}"));
            }
            PairOutcome::Leak(leak) => {
                report.verdict = Verdict::Leak { pair: index, case_a: pair.a, case_b: pair.b, leak };
                break;
            }
        }
    }
    report
}

/// A leak `pqhelium check` expects: planted in a fixture (it must be found), or found in one of our kernels and
/// explained (docs/constant-time.md). Any other leak fails `check`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct KnownLeak {
    /// Kernel id or glob.
    pub kernel: &'static str,
    pub images: &'static [Image],
    pub kind: LeakKind,
    /// A fixture's planted leak: `check` fails when it is not found.
    pub planted: bool,
    pub why: &'static str,
}

const ALL_IMAGES: &[Image] = &[Image::M7, Image::M55, Image::M85];

const PLANTED: &str = "planted: the fixture leaks on purpose";
const FP_DIV: &str = "VDIV.F64/VSQRT.F64 with secret operands: variable latency on the Cortex-M85 for want of a \
    statement; FN-DSA's design relies on the Cortex-M55's constant-latency FP64 division";
const M7_FP64: &str = "FP64 additions, multiplications and divisions with secret operands: operand-dependent times \
    measured on a Cortex-M7; the FP64 kernels are for the Cortex-M55, whose FP64 unit has no such measurement";

/// The leaks `pqhelium check` expects (docs/constant-time.md explains each).
pub const KNOWN_LEAKS: &[KnownLeak] = &[
    KnownLeak {
        kernel: "ct.fixture.lookup",
        images: ALL_IMAGES,
        kind: LeakKind::MemoryAddress,
        planted: true,
        why: PLANTED,
    },
    KnownLeak {
        kernel: "ct.fixture.branch",
        images: ALL_IMAGES,
        kind: LeakKind::ControlFlow,
        planted: true,
        why: PLANTED,
    },
    KnownLeak {
        kernel: "ct.fixture.select.it",
        images: ALL_IMAGES,
        kind: LeakKind::Predication,
        planted: true,
        why: PLANTED,
    },
    KnownLeak {
        kernel: "ct.fixture.div_q",
        images: ALL_IMAGES,
        kind: LeakKind::VariableLatency,
        planted: true,
        why: PLANTED,
    },
    KnownLeak {
        kernel: "ct.fixture.clz",
        images: ALL_IMAGES,
        kind: LeakKind::ControlFlow,
        planted: true,
        why: PLANTED,
    },
    KnownLeak {
        kernel: "ct.fixture.abs",
        images: &[Image::M85],
        kind: LeakKind::Predication,
        planted: true,
        why: "planted: branch-free C that clang compiles to an IT block on the sign (gcc keeps the masks)",
    },
    KnownLeak {
        kernel: "ct.fixture.select.vpt",
        images: &[Image::M55, Image::M85],
        kind: LeakKind::LanePredication,
        planted: true,
        why: PLANTED,
    },
    KnownLeak {
        kernel: "fndsa.*",
        images: &[Image::M7],
        kind: LeakKind::VariableLatency,
        planted: false,
        why: M7_FP64,
    },
    KnownLeak {
        kernel: "fndsa.fpu.ldl",
        images: &[Image::M85],
        kind: LeakKind::VariableLatency,
        planted: false,
        why: FP_DIV,
    },
    KnownLeak {
        kernel: "fndsa.fpu.leaf_sigma",
        images: &[Image::M85],
        kind: LeakKind::VariableLatency,
        planted: false,
        why: FP_DIV,
    },
    KnownLeak {
        kernel: "fndsa.keygen.*",
        images: &[Image::M85],
        kind: LeakKind::VariableLatency,
        planted: false,
        why: FP_DIV,
    },
    KnownLeak {
        kernel: "x25519.base.b8",
        images: ALL_IMAGES,
        kind: LeakKind::MemoryAddress,
        planted: true,
        why: "planted: the X-Wing design's B8 flaw, table operands reached through a pointer chosen by the sign of a \
            secret digit",
    },
    KnownLeak {
        kernel: "fndsa.keygen.*fft",
        images: &[Image::M85],
        kind: LeakKind::LanePredication,
        planted: false,
        why: "clang makes the fixed-point FFT's rounding correction of negative lanes a VPT-predicated add; no public \
            source says predicated-off lanes take different time",
    },
    KnownLeak {
        kernel: "mlkem.order.from_mve",
        images: &[Image::M85],
        kind: LeakKind::LanePredication,
        planted: false,
        why: "clang makes the sign correction of each lane a VPT-predicated add; no public source says predicated-off \
            lanes take different time, and the output order it converts is what ML-KEM publishes anyway",
    },
    KnownLeak {
        kernel: "mlkem.*",
        images: &[Image::M85],
        kind: LeakKind::LanePredication,
        planted: false,
        why: "clang makes the conditional add of q to a negative (or subtraction from a too large) coefficient a \
            VPT-predicated add, in the MVE kernels and in the portable C it vectorises; no public source says \
            predicated-off lanes take different time",
    },
];

/// What `check` makes of one kernel's campaign on one image.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Judgement {
    Pass,
    /// A leak the table expects.
    Known(&'static KnownLeak),
    /// A leak the table does not explain.
    Unexplained,
    /// A fixture's planted leak was not found.
    PlantedMissing(&'static KnownLeak),
    Faulted,
}

fn known(kernel: &str, image: Image, kind: Option<LeakKind>) -> Option<&'static KnownLeak> {
    KNOWN_LEAKS.iter().find(|k| {
        registry::glob_match(k.kernel, kernel) && k.images.contains(&image) && kind.is_none_or(|kind| kind == k.kind)
    })
}

/// Judges one campaign against [`KNOWN_LEAKS`].
pub fn judge(report: &KernelReport, image: Image) -> Judgement {
    if report.faults > 0 {
        return Judgement::Faulted;
    }
    match &report.verdict {
        Verdict::Leak { leak, .. } => {
            known(report.kernel, image, Some(leak.kind)).map_or(Judgement::Unexplained, Judgement::Known)
        }
        Verdict::ConstantTime => match known(report.kernel, image, None) {
            Some(planted) if planted.planted => Judgement::PlantedMissing(planted),
            _ => Judgement::Pass,
        },
        Verdict::Skipped { .. } => Judgement::Pass,
    }
}
