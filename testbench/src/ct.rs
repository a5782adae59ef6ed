//! Constant-time evidence from the object code (`pqhelium ct`): leakage traces and pairs of runs that compare them.
//!
//! A leakage trace is what an attacker who times the core could learn about one call, as events in execution order:
//! every executed instruction address (control flow), every data access's address and size (memory), and the
//! operands of the instructions whose latency depends on their values on the target core (variable latency, a
//! table per core below), and the lane predicates of MVE instructions in VPT blocks. An instruction whose IT
//! condition fails is left out. Values loaded or stored are not in the trace: only where and when. The m7 image is
//! traced by unicorn's hooks, the m55 and m85 images by QEMU's trace plugin (`backend::qemu_trace`).
//!
//! A pair is two inputs of a kernel that differ only in the arguments its contract marks secret: case A of the
//! contract's generator, with the secret arguments of a later case B. The kernel is constant-time on the pair when
//! both traces are equal. Traces are compared as running hashes (cheap for millions of instructions); a pair whose
//! hashes differ runs again with every event recorded, to find the first differing event: the leak.

use std::fmt;

use serde::{Deserialize, Serialize};

use crate::backend::qemu::QemuBackend;
use crate::backend::unicorn::UnicornBackend;
use crate::backend::{Arg, BackendError, BackendKind, Call, CallError, Image, Limits};
use crate::elf::{GuestElf, SourceLines};
use crate::registry::{self, Kernel, case_rng};

/// The core a guest image is built for, whose timing the variable-latency table describes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Core {
    M7,
    M55,
    M85,
}

impl Core {
    pub fn of(image: Image) -> Core {
        match image {
            Image::M7 => Core::M7,
            Image::M55 => Core::M55,
            Image::M85 => Core::M85,
            Image::User(guest) => match guest.cpu {
                "cortex-m7" => Core::M7,
                "cortex-m85" => Core::M85,
                _ => Core::M55,
            },
        }
    }
}

/// Instructions whose latency may depend on their operand values.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub enum LatencyClass {
    /// UDIV, SDIV.
    IntegerDivide,
    /// VDIV.F32/F64, VSQRT.F32/F64.
    FloatDivideSqrt,
    /// The FP64 additions and multiplications: VADD, VSUB, VMUL, VNMUL, VMLA, VMLS, VNMLA, VNMLS, VFMA, VFMS, VFNMA,
    /// VFNMS (.F64). The two source operands are traced; an accumulating form's accumulator is not.
    DoubleAddMultiply,
}

impl LatencyClass {
    pub const ALL: [LatencyClass; 3] =
        [LatencyClass::IntegerDivide, LatencyClass::FloatDivideSqrt, LatencyClass::DoubleAddMultiply];

    pub fn name(self) -> &'static str {
        match self {
            LatencyClass::IntegerDivide => "integer division (UDIV/SDIV)",
            LatencyClass::FloatDivideSqrt => "FP division / square root (VDIV/VSQRT)",
            LatencyClass::DoubleAddMultiply => "FP64 addition / multiplication (VADD/VSUB/VMUL/VMLA/VFMA.F64...)",
        }
    }
}

/// One row of the variable-latency table: whether the class takes operand-dependent time on the core, and why we
/// believe so. Division (integer and FP) and square root count as variable unless a public source says otherwise;
/// FP64 addition and multiplication count as variable where a public measurement shows operand-dependent time.
#[derive(Debug, Clone, Copy, Serialize)]
pub struct LatencyFact {
    pub core: Core,
    pub class: LatencyClass,
    pub variable: bool,
    pub source: &'static str,
}

const NO_DIT_STATEMENT: &str = "no public Arm statement of data-independent timing for this core; the Cortex-M4 \
    TRM gives UDIV/SDIV 2-12 cycles with early termination, and KyberSlash (eprint 2024/1049) recovered ML-KEM keys \
    from a secret numerator divided by q";

/// The per-core variable-latency table (docs/constant-time.md prints it with its sources).
pub const VARIABLE_LATENCY: &[LatencyFact] = &[
    LatencyFact { core: Core::M7, class: LatencyClass::IntegerDivide, variable: true, source: NO_DIT_STATEMENT },
    LatencyFact {
        core: Core::M7,
        class: LatencyClass::FloatDivideSqrt,
        variable: true,
        source: "measured on an STM32H743 (jnk0le/random, pipeline cycle test/doc/cortex_m7.md): VDIV.F64 30 cycles, 2 \
            with a zero operand; Howe and Westerbaan saw operand-dependent FPU timing on four Cortex-M7 boards",
    },
    LatencyFact { core: Core::M55, class: LatencyClass::IntegerDivide, variable: true, source: NO_DIT_STATEMENT },
    LatencyFact {
        core: Core::M55,
        class: LatencyClass::FloatDivideSqrt,
        variable: false,
        source: "the FN-DSA Cortex-M55 design states that VDIV.F64 latency does not depend on the operands",
    },
    LatencyFact { core: Core::M85, class: LatencyClass::IntegerDivide, variable: true, source: NO_DIT_STATEMENT },
    LatencyFact {
        core: Core::M85,
        class: LatencyClass::FloatDivideSqrt,
        variable: true,
        source: "no public statement for the Cortex-M85 (LLVM's model gives FP64 div/sqrt 29 cycles, not a guarantee)",
    },
    LatencyFact {
        core: Core::M7,
        class: LatencyClass::DoubleAddMultiply,
        variable: true,
        source: "measured on an STM32H743 (jnk0le/random, pipeline cycle test/doc/cortex_m7.md): VADD.F64 1 cycle \
            with equal exponents, 2 with different ones, 3 with a denormal or zero operand; VMUL.F64 5 cycles, 4 with a \
            zero operand; VFMA/VMLA.F64 likewise; single precision is not affected. Howe and Westerbaan (eprint \
            2022/405) saw the same on Cortex-M7 boards",
    },
    LatencyFact {
        core: Core::M55,
        class: LatencyClass::DoubleAddMultiply,
        variable: false,
        source: "no public measurement or statement either way found; LLVM's scheduling model gives fixed latencies (a \
            model, not a guarantee); the Cortex-M7's figures are of another FPU",
    },
    LatencyFact {
        core: Core::M85,
        class: LatencyClass::DoubleAddMultiply,
        variable: false,
        source: "no public measurement or statement either way found (jnk0le's RA8D1 notes, doc/cortex_m85.md, cover \
            FP64 issue rules, not operand values); LLVM's model gives FP64 add 6, multiply 8 cycles, not a guarantee",
    },
];

/// Whether the class takes operand-dependent time on the core.
pub fn is_variable(core: Core, class: LatencyClass) -> bool {
    VARIABLE_LATENCY.iter().any(|f| f.core == core && f.class == class && f.variable)
}

/// A register operand of a variable-latency instruction.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Operand {
    Core(u8),
    Single(u8),
    Double(u8),
}

/// The class and register operands of a variable-latency Thumb-2 instruction (`first`, `second`: its two halfwords),
/// or `None` for any other instruction. VSQRT has one operand.
pub fn decode_variable_latency(first: u16, second: u16) -> Option<(LatencyClass, Operand, Option<Operand>)> {
    // SDIV/UDIV T1: 11111011 1001/1011 Rn | 1111 Rd 1111 Rm.
    if matches!(first & 0xFFF0, 0xFB90 | 0xFBB0) && second & 0xF0F0 == 0xF0F0 {
        let (n, m) = ((first & 0xF) as u8, (second & 0xF) as u8);
        return Some((LatencyClass::IntegerDivide, Operand::Core(n), Some(Operand::Core(m))));
    }
    // VFP register numbers: Dx = X:Vx for doubles, Sx = Vx:X for singles (sz = bit 8 of the second halfword).
    let double = second & 0x0100 != 0;
    let register = |v: u16, extra: u16| {
        let (v, extra) = (v as u8, extra as u8);
        if double { Operand::Double(extra << 4 | v) } else { Operand::Single(v << 1 | extra) }
    };
    let m = register(second & 0xF, second >> 5 & 1);
    // VDIV T1: 11101110 1D00 Vn | Vd 101 sz N0M0 Vm.
    if first & 0xFFB0 == 0xEE80 && second & 0x0E50 == 0x0A00 {
        let n = register(first & 0xF, second >> 7 & 1);
        return Some((LatencyClass::FloatDivideSqrt, n, Some(m)));
    }
    // VSQRT T1: 11101110 1D11 0001 | Vd 101 sz 11M0 Vm.
    if first & 0xFFBF == 0xEEB1 && second & 0x0ED0 == 0x0AC0 {
        return Some((LatencyClass::FloatDivideSqrt, m, None));
    }
    // FP64 VMLA/VMLS (opc1 0D00), VNMLA/VNMLS (0D01), VMUL/VNMUL (0D10), VADD/VSUB (0D11), VFNMA/VFNMS (1D01),
    // VFMA/VFMS (1D10): 11101110 opc1 Vn | Vd 1011 N op M 0 Vm.
    if matches!(first & 0xFFB0, 0xEE00 | 0xEE10 | 0xEE20 | 0xEE30 | 0xEE90 | 0xEEA0) && second & 0x0F10 == 0x0B00 {
        let n = register(first & 0xF, second >> 7 & 1);
        return Some((LatencyClass::DoubleAddMultiply, n, Some(m)));
    }
    None
}

/// One event of a leakage trace.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Event {
    Execute {
        pc: u32,
    },
    Load {
        pc: u32,
        address: u32,
        size: u8,
    },
    Store {
        pc: u32,
        address: u32,
        size: u8,
    },
    /// The operand values of a variable-latency instruction (register bits; the second is 0 for VSQRT).
    Operands {
        pc: u32,
        class: LatencyClass,
        values: [u64; 2],
    },
    /// An MVE instruction inside a VPT block and its lane predicate (VPR.P0, one bit per byte lane; QEMU only).
    LanePredicate {
        pc: u32,
        p0: u16,
    },
}

impl Event {
    pub fn pc(&self) -> u32 {
        match *self {
            Event::Execute { pc }
            | Event::Load { pc, .. }
            | Event::Store { pc, .. }
            | Event::Operands { pc, .. }
            | Event::LanePredicate { pc, .. } => pc,
        }
    }

    /// The words the running hash absorbs: a tag with the pc, then the event's data (the QEMU trace plugin,
    /// `kernels/plugin/pqh_trace.c`, hashes and records the same words).
    pub fn words(&self) -> [u64; 3] {
        match *self {
            Event::Execute { pc } => [u64::from(pc) << 8, 0, 0],
            Event::Load { pc, address, size } => [u64::from(pc) << 8 | 1, u64::from(address) << 8 | u64::from(size), 0],
            Event::Store { pc, address, size } => {
                [u64::from(pc) << 8 | 2, u64::from(address) << 8 | u64::from(size), 0]
            }
            Event::Operands { pc, class, values } => {
                [u64::from(pc) << 8 | 3 | (class as u64) << 4, values[0], values[1]]
            }
            Event::LanePredicate { pc, p0 } => [u64::from(pc) << 8 | 4, u64::from(p0), 0],
        }
    }
}

impl Event {
    /// The event whose words these are, or `None` for words no event has.
    pub fn from_words(words: [u64; 3]) -> Option<Event> {
        let [tag, data, extra] = words;
        let pc = u32::try_from(tag >> 8).ok()?;
        let access = || Some((u32::try_from(data >> 8).ok()?, (data & 0xFF) as u8));
        let event = match tag & 0xFF {
            0 => Event::Execute { pc },
            1 => access().map(|(address, size)| Event::Load { pc, address, size })?,
            2 => access().map(|(address, size)| Event::Store { pc, address, size })?,
            3 => Event::Operands { pc, class: LatencyClass::IntegerDivide, values: [data, extra] },
            0x13 => Event::Operands { pc, class: LatencyClass::FloatDivideSqrt, values: [data, extra] },
            0x23 => Event::Operands { pc, class: LatencyClass::DoubleAddMultiply, values: [data, extra] },
            4 => Event::LanePredicate { pc, p0: u16::try_from(data).ok()? },
            _ => return None,
        };
        (event.words() == words).then_some(event)
    }
}

const FNV_OFFSET: u64 = 0xcbf2_9ce4_8422_2325;
const FNV_PRIME: u64 = 0x0000_0100_0000_01b3;

/// A leakage trace: a running hash of every event (64-bit FNV-1a over words), their number, and, when recording,
/// the events themselves.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Trace {
    pub hash: u64,
    pub events: u64,
    pub recorded: Option<Vec<Event>>,
}

impl Trace {
    pub fn new(record: bool) -> Self {
        Self { hash: FNV_OFFSET, events: 0, recorded: record.then(Vec::new) }
    }

    /// Starts again, keeping whether events are recorded.
    pub fn clear(&mut self) {
        *self = Trace::new(self.recorded.is_some());
    }

    #[inline]
    pub fn push(&mut self, event: Event) {
        for word in event.words() {
            self.hash = (self.hash ^ word).wrapping_mul(FNV_PRIME);
        }
        self.events += 1;
        if let Some(events) = &mut self.recorded {
            events.push(event);
        }
    }

    /// Whether two traces are equal as far as their hashes tell.
    pub fn same_as(&self, other: &Trace) -> bool {
        (self.hash, self.events) == (other.hash, other.events)
    }
}

/// What kind of information a leak gives away.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum LeakKind {
    ControlFlow,
    /// An instruction of an IT block ran in one run and was skipped in the other: the condition is secret. The
    /// Cortex-M85 takes different time for a skipped instruction (docs/constant-time.md).
    Predication,
    MemoryAddress,
    VariableLatency,
    /// An MVE instruction of a VPT block ran with different lane predicates: the condition is secret.
    LanePredication,
}

impl fmt::Display for LeakKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            LeakKind::ControlFlow => "control flow",
            LeakKind::Predication => "IT predication",
            LeakKind::MemoryAddress => "memory address",
            LeakKind::VariableLatency => "variable-latency operand",
            LeakKind::LanePredication => "VPT lane predication",
        })
    }
}

/// The first difference between the traces of a pair.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Leak {
    pub kind: LeakKind,
    /// The instruction where the runs part: the branch before two different next instructions, the access with two
    /// different addresses, the instruction with two different operands.
    pub pc: u32,
    /// `symbol+offset` of `pc`.
    pub location: String,
    /// `file:line` of `pc` from the image's DWARF, when it has a line for it.
    pub source: Option<String>,
    /// Index of the first differing event.
    pub event: u64,
    /// What each run did there.
    pub a: String,
    pub b: String,
}

impl fmt::Display for Leak {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let Leak { kind, pc, location, source, event, a, b } = self;
        let source = source.as_ref().map_or(String::new(), |s| format!(", {s}"));
        write!(f, "{kind} leak at {location} ({pc:#010x}{source}), event {event}: {a} vs {b}")
    }
}

fn describe(event: Option<&Event>, elf: &GuestElf) -> String {
    match event {
        None => "returned".into(),
        Some(Event::Execute { pc }) => format!("next instruction {}", elf.locate(*pc)),
        Some(Event::Load { address, size, .. }) => format!("load {size} bytes at {address:#010x}"),
        Some(Event::Store { address, size, .. }) => format!("store {size} bytes at {address:#010x}"),
        Some(Event::Operands { values, .. }) => format!("operands {:#x}, {:#x}", values[0], values[1]),
        Some(Event::LanePredicate { p0, .. }) => format!("lane predicate {p0:#06x}"),
    }
}

/// The halfword of the image at `address`.
fn halfword_at(elf: &GuestElf, address: u32) -> Option<u16> {
    elf.segments.iter().find_map(|segment| {
        let at = address.checked_sub(segment.addr)? as usize;
        segment.data.get(at..at + 2).map(|b| u16::from_le_bytes([b[0], b[1]]))
    })
}

/// The addresses of the instructions executed, last first.
fn executed_backwards(events: &[Event]) -> impl Iterator<Item = u32> + '_ {
    events.iter().rev().filter_map(|e| match e {
        Event::Execute { pc } => Some(*pc),
        _ => None,
    })
}

/// Whether the last instruction of `events` is an IT instruction or inside the block of one (which holds up to four
/// instructions: 4 - trailing zeros of the mask; instructions skipped in this run are not among the events).
fn in_it_block(events: &[Event], elf: &GuestElf) -> bool {
    executed_backwards(events).take(5).enumerate().any(|(distance, pc)| {
        // IT: 0xBFxy with a non-zero mask y (0xBFx0 are the hints: NOP, YIELD, WFE...).
        let mask = halfword_at(elf, pc).filter(|h| h & 0xFF00 == 0xBF00).map_or(0, |h| h & 0xF);
        mask != 0 && distance <= 4 - mask.trailing_zeros() as usize
    })
}

/// The first differing event of two recorded traces, as a leak located in `elf` (and its source line, when
/// `lines` has it); `None` when they are equal.
pub fn first_difference(a: &[Event], b: &[Event], elf: &GuestElf, lines: Option<&SourceLines>) -> Option<Leak> {
    let index = a.iter().zip(b).position(|(x, y)| x != y).unwrap_or(a.len().min(b.len()));
    if index == a.len() && index == b.len() {
        return None;
    }
    let (x, y) = (a.get(index), b.get(index));
    let last_instruction = executed_backwards(&a[..index]).next();
    let (kind, pc) = match (x, y) {
        (Some(Event::Operands { pc, .. }), _) | (_, Some(Event::Operands { pc, .. })) => {
            (LeakKind::VariableLatency, *pc)
        }
        (Some(Event::LanePredicate { pc, .. }), _) | (_, Some(Event::LanePredicate { pc, .. })) => {
            (LeakKind::LanePredication, *pc)
        }
        (Some(e @ (Event::Load { .. } | Event::Store { .. })), _)
        | (_, Some(e @ (Event::Load { .. } | Event::Store { .. }))) => (LeakKind::MemoryAddress, e.pc()),
        // Two different next instructions, or one run returned: the instruction before decided, a branch or the
        // condition of an IT block (the emulator skips an instruction whose condition fails).
        _ => {
            let pc = last_instruction.unwrap_or_else(|| x.or(y).map_or(0, Event::pc));
            let kind = if in_it_block(&a[..index], elf) { LeakKind::Predication } else { LeakKind::ControlFlow };
            (kind, pc)
        }
    };
    Some(Leak {
        kind,
        pc,
        location: elf.locate(pc),
        source: lines.and_then(|l| l.line(pc)),
        event: index as u64,
        a: describe(x, elf),
        b: describe(y, elf),
    })
}

/// A difference its contract declares public by design: the first difference of a pair, of this kind, inside this
/// function, is no leak (the scheme's analysis makes it public, as FN-DSA's rejection loop counts). The pair's
/// traces are not compared beyond it (they need not line up after it); every report lists the declarations.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct Declassification {
    pub function: &'static str,
    pub kind: LeakKind,
    pub reason: &'static str,
}

impl Declassification {
    /// Whether the declaration covers this first difference.
    pub fn covers(&self, leak: &Leak) -> bool {
        leak.kind == self.kind && leak.location.strip_prefix(self.function).is_some_and(|rest| rest.starts_with('+'))
    }
}

impl fmt::Display for Declassification {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} in {}: {}", self.kind, self.function, self.reason)
    }
}

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
        Self::open_as(image, Core::of(image), limits)
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
        use crate::backend::Backend;
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
        registry::glob_match(k.kernel.as_bytes(), kernel.as_bytes())
            && k.images.contains(&image)
            && kind.is_none_or(|kind| kind == k.kind)
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn decodes_the_variable_latency_instructions() {
        use LatencyClass::*;
        use Operand::*;
        // udiv r3, r3, ip (fbb3 f3fc); sdiv r0, r1, r2 (fb91 f0f2)
        assert_eq!(decode_variable_latency(0xfbb3, 0xf3fc), Some((IntegerDivide, Core(3), Some(Core(12)))));
        assert_eq!(decode_variable_latency(0xfb91, 0xf0f2), Some((IntegerDivide, Core(1), Some(Core(2)))));
        // vdiv.f64 d0, d1, d2 (ee81 0b02); vdiv.f32 s0, s3, s5 (ee81 0aa2); vsqrt.f64 d0, d17 (eeb1 0be1)
        assert_eq!(decode_variable_latency(0xee81, 0x0b02), Some((FloatDivideSqrt, Double(1), Some(Double(2)))));
        assert_eq!(decode_variable_latency(0xee81, 0x0aa2), Some((FloatDivideSqrt, Single(3), Some(Single(5)))));
        assert_eq!(decode_variable_latency(0xeeb1, 0x0be1), Some((FloatDivideSqrt, Double(17), None)));
        // vadd.f64 d0, d1, d2 (ee31 0b02); vsub.f64 d16, d17, d18 (ee71 0be2); vmul.f64 d0, d1, d2 (ee21 0b02);
        // vmla.f64 d4, d1, d3 (ee01 4b03); vfma.f64 d0, d1, d2 (eea1 0b02)
        assert_eq!(decode_variable_latency(0xee31, 0x0b02), Some((DoubleAddMultiply, Double(1), Some(Double(2)))));
        assert_eq!(decode_variable_latency(0xee71, 0x0be2), Some((DoubleAddMultiply, Double(17), Some(Double(18)))));
        assert_eq!(decode_variable_latency(0xee21, 0x0b02), Some((DoubleAddMultiply, Double(1), Some(Double(2)))));
        assert_eq!(decode_variable_latency(0xee01, 0x4b03), Some((DoubleAddMultiply, Double(1), Some(Double(3)))));
        assert_eq!(decode_variable_latency(0xeea1, 0x0b02), Some((DoubleAddMultiply, Double(1), Some(Double(2)))));
        // mul.w r4, r2, r3 (fb02 f403); vadd.f32 s0, s2, s4 (ee31 0a02); vmov d0, r0, r1 (ec41 0b10);
        // vneg.f64 d0, d1 (eeb1 0b41)
        assert_eq!(decode_variable_latency(0xfb02, 0xf403), None);
        assert_eq!(decode_variable_latency(0xee31, 0x0a02), None);
        assert_eq!(decode_variable_latency(0xec41, 0x0b10), None);
        assert_eq!(decode_variable_latency(0xeeb1, 0x0b41), None);
    }

    #[test]
    fn every_core_has_a_row_per_class() {
        for core in [Core::M7, Core::M55, Core::M85] {
            for class in LatencyClass::ALL {
                let rows = VARIABLE_LATENCY.iter().filter(|f| f.core == core && f.class == class).count();
                assert_eq!(rows, 1, "{core:?} {class:?}");
            }
        }
    }
}
