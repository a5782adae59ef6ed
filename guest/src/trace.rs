//! Leakage traces of one guest call, as the backends record them (`pqhelium ct` compares them in pairs).
//!
//! A leakage trace is what an attacker who times the core could learn about one call, as events in execution order:
//! every executed instruction address (control flow), every data access's address and size (memory), and the
//! operands of the instructions whose latency depends on their values on the target core (variable latency, a
//! table per core below), and the lane predicates of MVE instructions in VPT blocks. An instruction whose IT
//! condition fails is left out. Values loaded or stored are not in the trace: only where and when. The m7 image is
//! traced by unicorn's hooks, the m55 and m85 images by QEMU's trace plugin (`backend::qemu_trace`). Traces are
//! compared as running hashes (cheap for millions of instructions); [`differences`] finds every difference of two
//! recorded traces: the leaks.

use std::collections::{HashMap, HashSet};
use std::fmt;

use serde::{Deserialize, Serialize};

pub use crate::cpu::Core;
use crate::elf::{GuestElf, SourceLines};

/// Instructions whose latency may depend on their operand values.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
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

/// Events a recording holds (24 bytes each, 768 MiB in all): a kernel whole, an FN-DSA signature whole; the first
/// events of a longer whole operation. The hash covers every event.
pub const RECORD_CAPACITY: usize = 32 << 20;

const FNV_OFFSET: u64 = 0xcbf2_9ce4_8422_2325;
const FNV_PRIME: u64 = 0x0000_0100_0000_01b3;

/// A leakage trace: a running hash of every event (64-bit FNV-1a over words), their number, and, when recording,
/// the events themselves from event `first` on, at most [`RECORD_CAPACITY`] of them: a window of a longer trace.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Trace {
    pub hash: u64,
    pub events: u64,
    /// The index of the first event recorded (0 when not recording).
    pub first: u64,
    pub recorded: Option<Vec<Event>>,
}

impl Trace {
    /// An empty trace that records events from event `record` on, or only hashes them.
    pub fn new(record: Option<u64>) -> Self {
        Self { hash: FNV_OFFSET, events: 0, first: record.unwrap_or(0), recorded: record.map(|_| Vec::new()) }
    }

    /// From which event on events are recorded, if they are.
    pub fn recording(&self) -> Option<u64> {
        self.recorded.as_ref().map(|_| self.first)
    }

    /// Starts again, keeping what is recorded.
    pub fn clear(&mut self) {
        *self = Trace::new(self.recording());
    }

    #[inline]
    pub fn push(&mut self, event: Event) {
        for word in event.words() {
            self.hash = (self.hash ^ word).wrapping_mul(FNV_PRIME);
        }
        if let Some(events) = &mut self.recorded
            && self.events >= self.first
            && events.len() < RECORD_CAPACITY
        {
            events.push(event);
        }
        self.events += 1;
    }

    /// Whether the recording runs to the trace's end (from its first event).
    pub fn recorded_to_end(&self) -> bool {
        self.recorded.as_ref().is_some_and(|r| r.len() as u64 == self.events.saturating_sub(self.first))
    }

    /// Whether two traces are equal as far as their hashes tell.
    pub fn same_as(&self, other: &Trace) -> bool {
        (self.hash, self.events) == (other.hash, other.events)
    }
}

/// What kind of information a leak gives away.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
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

/// A difference between the traces of a pair.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Leak {
    pub kind: LeakKind,
    /// The instruction class of a variable-latency operand (`None` for the other kinds).
    pub class: Option<LatencyClass>,
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

impl Leak {
    /// Whether `other` is a difference of the same kind at the same instruction (the places of a whole operation's
    /// verdict; `pqhelium ct` groups a kernel's leaks by source line instead).
    pub fn same_instruction(&self, other: &Leak) -> bool {
        (self.kind, self.pc) == (other.kind, other.pc)
    }
}

impl fmt::Display for Leak {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let Leak { kind, class, pc, location, source, event, a, b } = self;
        let source = source.as_ref().map_or(String::new(), |s| format!(", {s}"));
        write!(f, "{kind} leak at {location} ({pc:#010x}{source}), event {event}: {a} vs {b}")?;
        match class {
            Some(class) => write!(f, " [{}]", class.name()),
            None => Ok(()),
        }
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
/// The size in bytes of the Thumb instruction whose first halfword is `first`: a 32-bit instruction's top five bits
/// are 0b11101, 0b11110 or 0b11111.
pub(crate) fn thumb_size(first: u16) -> u32 {
    if first >> 11 >= 0b11101 { 4 } else { 2 }
}

/// The size in bytes of the instruction at `pc` in `elf` (2 where the image holds no code there).
fn instruction_size(elf: &GuestElf, pc: u32) -> u32 {
    halfword_at(elf, pc & !1).map_or(2, thumb_size)
}

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

/// Whether two differing events are the same event of the same instruction with other data (operands, a lane
/// predicate, an address): the traces still line up after them.
fn aligned(x: &Event, y: &Event) -> bool {
    match (*x, *y) {
        (Event::Operands { pc: p, class: c, .. }, Event::Operands { pc: q, class: d, .. }) => p == q && c == d,
        (Event::LanePredicate { pc: p, .. }, Event::LanePredicate { pc: q, .. }) => p == q,
        (Event::Load { pc: p, size: s, .. }, Event::Load { pc: q, size: t, .. })
        | (Event::Store { pc: p, size: s, .. }, Event::Store { pc: q, size: t, .. }) => p == q && s == t,
        _ => false,
    }
}

/// The kind, instruction and latency class of the difference at `index` (the first differing event, `x` and `y`
/// from each trace).
fn classify(
    a: &[Event],
    index: usize,
    x: Option<&Event>,
    y: Option<&Event>,
    elf: &GuestElf,
) -> (LeakKind, u32, Option<LatencyClass>) {
    match (x, y) {
        (Some(Event::Operands { pc, class, .. }), _) | (_, Some(Event::Operands { pc, class, .. })) => {
            (LeakKind::VariableLatency, *pc, Some(*class))
        }
        (Some(Event::LanePredicate { pc, .. }), _) | (_, Some(Event::LanePredicate { pc, .. })) => {
            (LeakKind::LanePredication, *pc, None)
        }
        (Some(e @ (Event::Load { .. } | Event::Store { .. })), _)
        | (_, Some(e @ (Event::Load { .. } | Event::Store { .. }))) => (LeakKind::MemoryAddress, e.pc(), None),
        // Two different next instructions, or one run returned: the instruction before decided, a branch or the
        // condition of an IT block (the emulator skips an instruction whose condition fails).
        _ => {
            let last_instruction = executed_backwards(&a[..index]).next();
            let pc = last_instruction.unwrap_or_else(|| x.or(y).map_or(0, Event::pc));
            let kind = if in_it_block(&a[..index], elf) { LeakKind::Predication } else { LeakKind::ControlFlow };
            (kind, pc, None)
        }
    }
}

/// Every difference between two recorded traces, as leaks located in `elf` (with their source lines, when `lines`
/// has them), in trace order, each instruction once (at its first difference); empty when the traces are equal.
///
/// A difference in an event's data (operands, lane predicate, access address of the same instruction) leaves the
/// traces in step, and the comparison goes on to their ends. A difference in what runs (control flow, IT
/// predication, an access in one run only, one run returning) is the last one compared: after it the traces no
/// longer line up event by event.
pub fn differences(a: &[Event], b: &[Event], elf: &GuestElf, lines: Option<&SourceLines>) -> Vec<Leak> {
    let mut found = Vec::new();
    let mut seen = HashSet::new();
    let mut from = 0;
    loop {
        let index =
            from + a[from..].iter().zip(&b[from..]).position(|(x, y)| x != y).unwrap_or(a.len().min(b.len()) - from);
        if index == a.len() && index == b.len() {
            return found;
        }
        let (x, y) = (a.get(index), b.get(index));
        let (kind, pc, class) = classify(a, index, x, y, elf);
        if seen.insert((kind, pc)) {
            found.push(Leak {
                kind,
                class,
                pc,
                location: elf.locate(pc),
                source: lines.and_then(|l| l.line(pc)),
                event: index as u64,
                a: describe(x, elf),
                b: describe(y, elf),
            });
        }
        match (x, y) {
            (Some(x), Some(y)) if aligned(x, y) => from = index + 1,
            _ => return found,
        }
    }
}

/// What [`resynchronised_differences`] found.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Resynchronised {
    /// The first difference `public` did not explain: a leak (the comparison ends there).
    pub leak: Option<Leak>,
    /// Each place (kind and instruction) of a difference `public` explained, once, in trace order.
    pub public: Vec<Leak>,
    /// How many differences `public` explained.
    pub public_count: u64,
    /// Events of each trace the comparison went through (compared, or skipped as public code), from the traces'
    /// first events.
    pub compared: (u64, u64),
    /// Events of both traces skipped as public code after a public difference.
    pub skipped: u64,
    /// Why the comparison ended before both ends, if it did without a leak.
    pub lost: Option<String>,
    /// Where a recording ended before its trace did: the comparison goes on from these events of each trace, in
    /// recordings that start there.
    pub resume: Option<(u64, u64)>,
}

impl Resynchronised {
    /// Adds what the comparison of the next windows found.
    fn absorb(&mut self, next: Resynchronised) {
        self.leak = self.leak.take().or(next.leak);
        for leak in next.public {
            if !self.public.iter().any(|p| p.same_instruction(&leak)) {
                self.public.push(leak);
            }
        }
        self.public_count += next.public_count;
        self.compared = next.compared;
        self.skipped += next.skipped;
        self.lost = next.lost;
        self.resume = next.resume;
    }
}

/// A recording of a trace: its events from event `first` on, and whether they run to the trace's end (a window of
/// a trace longer than a recording does not).
#[derive(Debug, Clone, Copy)]
pub struct Window<'a> {
    pub events: &'a [Event],
    pub first: u64,
    pub to_end: bool,
}

impl<'a> Window<'a> {
    /// The recording of a trace (none when it records nothing).
    pub fn of(trace: &'a Trace) -> Self {
        Window { events: trace.recorded.as_deref().unwrap_or(&[]), first: trace.first, to_end: trace.recorded_to_end() }
    }
}

/// Events recorded before a window's first compared one: the judgement of a difference looks back up to five
/// instructions.
pub const LOOK_BACK: u64 = 64;

/// The differences between two recorded traces of a whole operation in which some code is public by design (a
/// rejection loop, the hashing of public values), from events `start` of each on: `region` says which instructions
/// are public code, and `public` which differences they explain (`None`: it cannot tell). After a public difference
/// in what runs, each trace skips ahead to its first event outside the region (a rejection loop's extra rounds, a
/// call that returned earlier), and the comparison goes on from there when both are at the same instruction. The
/// first difference `public` does not explain is the leak, and ends the comparison. Where a recording ends before
/// its trace, the comparison stops and says where to resume ([`resynchronised_in_windows`] goes on).
pub fn resynchronised_differences(
    a: Window,
    b: Window,
    start: (u64, u64),
    elf: &GuestElf,
    lines: Option<&SourceLines>,
    public: impl Fn(&Leak) -> bool,
    region: impl Fn(u32) -> Option<bool>,
) -> Resynchronised {
    let mut found = Resynchronised::default();
    let mut seen = HashSet::new();
    // Per instruction: in the region (or unknown), a function's first instruction, its size in bytes.
    let mut places: HashMap<u32, (Option<bool>, bool, u32)> = HashMap::new();
    let mut place = |pc: u32| {
        *places.entry(pc).or_insert_with(|| (region(pc), elf.locate(pc).ends_with("+0x0"), instruction_size(elf, pc)))
    };
    // The first event at or after `from` outside the region, and the events skipped to it. A function entered from
    // the skipped code at its first instruction (a call) is skipped up to its return (the instruction after the
    // call); an instruction the region cannot place is skipped.
    let mut outside = |events: &[Event], from: usize| {
        let mut returns: Vec<u32> = Vec::new();
        let mut previous: Option<u32> = None;
        for (k, event) in events.iter().enumerate().skip(from) {
            let Event::Execute { pc } = *event else {
                continue;
            };
            let (in_region, entry, _) = place(pc);
            // A return, perhaps past calls that ended in a tail call (which return with their caller).
            if let Some(at) = returns.iter().rposition(|&r| r == pc) {
                returns.truncate(at);
            } else if let Some(caller) = previous.filter(|&p| entry && p + place(p).2 != pc) {
                returns.push(caller + place(caller).2);
            }
            if returns.is_empty() && in_region == Some(false) {
                // The events of the instruction before this one belong to it: stop at this one's.
                return Some(k);
            }
            previous = Some(pc);
        }
        None
    };
    let (ea, eb) = (a.events, b.events);
    let absolute = |i: usize, j: usize| (a.first + i as u64, b.first + j as u64);
    let (mut i, mut j) = ((start.0 - a.first) as usize, (start.1 - b.first) as usize);
    loop {
        let same = ea[i..].iter().zip(&eb[j..]).position(|(x, y)| x != y).unwrap_or((ea.len() - i).min(eb.len() - j));
        (i, j) = (i + same, j + same);
        found.compared = absolute(i, j);
        if (i == ea.len() && !a.to_end) || (j == eb.len() && !b.to_end) {
            found.resume = Some(found.compared);
            return found;
        }
        if i == ea.len() && j == eb.len() {
            return found;
        }
        let (x, y) = (ea.get(i), eb.get(j));
        let (kind, pc, class) = classify(ea, i, x, y, elf);
        let leak = Leak {
            kind,
            class,
            pc,
            location: elf.locate(pc),
            source: lines.and_then(|l| l.line(pc)),
            event: a.first + i as u64,
            a: describe(x, elf),
            b: describe(y, elf),
        };
        if !public(&leak) {
            found.leak = Some(leak);
            return found;
        }
        let skip_to = match (x, y) {
            (Some(x), Some(y)) if aligned(x, y) => None,
            _ => {
                let next = (outside(ea, i), outside(eb, j));
                // A recording that ends inside the public code: the next ones start at this difference.
                if (next.0.is_none() && !a.to_end) || (next.1.is_none() && !b.to_end) {
                    found.resume = Some(absolute(i, j));
                    return found;
                }
                Some(next)
            }
        };
        found.public_count += 1;
        if seen.insert((kind, pc)) {
            found.public.push(leak);
        }
        match skip_to {
            None => (i, j) = (i + 1, j + 1),
            Some((Some(next_i), Some(next_j))) if ea[next_i] == eb[next_j] => {
                found.skipped += (next_i - i + next_j - j) as u64;
                (i, j) = (next_i, next_j);
            }
            Some((next_i, next_j)) => {
                let place = |window: &Window, at: Option<usize>| {
                    at.map_or("its end".to_string(), |k| {
                        let pc = window.events[k].pc();
                        let source = lines.and_then(|l| l.line(pc)).unwrap_or_else(|| "no source line".into());
                        format!("{} ({source}, event {})", elf.locate(pc), window.first + k as u64)
                    })
                };
                found.lost = Some(format!(
                    "after the public difference at event {}, the runs leave the public code at different places: \
                     {} and {}",
                    a.first + i as u64,
                    place(&a, next_i),
                    place(&b, next_j)
                ));
                return found;
            }
        }
    }
}

/// [`resynchronised_differences`] over traces longer than a recording: `record(side, from)` runs trace `side`
/// (0 or 1) again and records it from event `from` on, and the comparison goes on window after window, each
/// starting [`LOOK_BACK`] events before where the last one stopped. Also each trace's length in events.
pub fn resynchronised_in_windows<E>(
    mut record: impl FnMut(usize, u64) -> Result<Trace, E>,
    elf: &GuestElf,
    lines: Option<&SourceLines>,
    public: impl Fn(&Leak) -> bool,
    region: impl Fn(u32) -> Option<bool>,
) -> Result<(Resynchronised, (u64, u64)), E> {
    let mut total = Resynchronised::default();
    let mut from: (u64, u64) = (0, 0);
    loop {
        let a = record(0, from.0.saturating_sub(LOOK_BACK))?;
        let b = record(1, from.1.saturating_sub(LOOK_BACK))?;
        let found = resynchronised_differences(Window::of(&a), Window::of(&b), from, elf, lines, &public, &region);
        total.absorb(found);
        match total.resume {
            Some(next) if next != from => from = next,
            Some(stuck) => {
                total.resume = None;
                total.lost = Some(format!(
                    "the public code skipped from events {} and {} runs longer than a recording",
                    stuck.0, stuck.1
                ));
                return Ok((total, (a.events, b.events)));
            }
            None => return Ok((total, (a.events, b.events))),
        }
    }
}

/// A difference its contract declares public by design: a difference of a pair, of this kind, inside this function,
/// is no leak (the scheme's analysis makes it public, as FN-DSA's rejection loop counts). A declared control-flow or
/// IT-predication difference ends the comparison of the pair like any other ([`differences`]); every report lists
/// the declarations.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct Declassification {
    pub function: &'static str,
    pub kind: LeakKind,
    pub reason: &'static str,
}

impl Declassification {
    /// Whether the declaration covers this difference.
    pub fn covers(&self, leak: &Leak) -> bool {
        leak.kind == self.kind && leak.location.strip_prefix(self.function).is_some_and(|rest| rest.starts_with('+'))
    }
}

impl fmt::Display for Declassification {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} in {}: {}", self.kind, self.function, self.reason)
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

    /// The M55 image, and in `fndsa_sign` (none a function's first instruction): p0, a public region (r0 and the
    /// instruction after it, r1), p2 and p3 outside it; and the first instruction of another function.
    struct Places {
        elf: crate::elf::GuestElf,
        p0: u32,
        r0: u32,
        after_r0: u32,
        r1: u32,
        p2: u32,
        p3: u32,
        entry: u32,
    }

    impl Places {
        fn new() -> Self {
            let image = crate::backend::Image::M55.guest();
            let elf = crate::elf::GuestElf::parse(image.name, image.elf).expect("the image parses");
            let base = elf.symbol("fndsa_sign").expect("fndsa_sign") & !1;
            let entry = elf.symbol("pqh_keccak_squeeze").expect("pqh_keccak_squeeze") & !1;
            let r0 = base + 0x40;
            let after_r0 = r0 + instruction_size(&elf, r0);
            Places { p0: base + 0x20, r0, after_r0, r1: after_r0 + 8, p2: base + 0x80, p3: base + 0x84, entry, elf }
        }

        fn region(&self, pc: u32) -> Option<bool> {
            Some((self.r0..=self.r1).contains(&pc))
        }

        fn compare(&self, a: &[Event], b: &[Event]) -> Resynchronised {
            let public = |leak: &Leak| self.region(leak.pc) == Some(true);
            let whole = |events| Window { events, first: 0, to_end: true };
            resynchronised_differences(whole(a), whole(b), (0, 0), &self.elf, None, public, |pc| self.region(pc))
        }

        /// The comparison through recordings of at most `capacity` events each.
        fn compare_in_windows(&self, a: &[Event], b: &[Event], capacity: usize) -> (Resynchronised, usize) {
            let public = |leak: &Leak| self.region(leak.pc) == Some(true);
            let mut recordings = 0;
            let mut record = |side: usize, from: u64| {
                recordings += 1;
                let events = [a, b][side];
                let window = events.iter().skip(from as usize).take(capacity).copied().collect();
                Ok::<_, ()>(Trace { hash: 0, events: events.len() as u64, first: from, recorded: Some(window) })
            };
            let (found, events) =
                resynchronised_in_windows(&mut record, &self.elf, None, public, |pc| self.region(pc)).unwrap();
            assert_eq!(events, (a.len() as u64, b.len() as u64));
            (found, recordings)
        }
    }

    fn run(pcs: &[u32]) -> Vec<Event> {
        pcs.iter().map(|&pc| Event::Execute { pc }).collect()
    }

    /// Run A takes one more round of a public loop (r0, r1) than run B; then both store, B elsewhere: the extra
    /// round is skipped as public, the store's address is the leak.
    #[test]
    fn a_leak_after_a_public_loop_is_found() {
        let Places { p0, r0, r1, p2, .. } = Places::new();
        let places = Places::new();
        let store = |address| Event::Store { pc: p2, address, size: 4 };
        let a = [run(&[p0, r0, r1, r0, r1, p2]), vec![store(0x100)]].concat();
        let b = [run(&[p0, r0, r1, p2]), vec![store(0x100)]].concat();
        let equal = places.compare(&a, &b);
        assert_eq!((equal.leak, equal.lost, equal.public_count, equal.skipped), (None, None, 1, 2));
        assert_eq!(equal.compared, (a.len() as u64, b.len() as u64));
        assert_eq!(equal.public[0].pc, r1, "the loop's branch decided");

        let b = [run(&[p0, r0, r1, p2]), vec![store(0x200)]].concat();
        let leak = places.compare(&a, &b).leak.expect("the store's address differs");
        assert_eq!((leak.kind, leak.pc, leak.event), (LeakKind::MemoryAddress, p2, 6));
    }

    /// A function the public loop calls is skipped up to its return; runs that leave the public code at different
    /// places end the comparison, without a leak.
    #[test]
    fn called_code_is_skipped_and_parting_ways_is_reported() {
        let places = Places::new();
        let Places { p0, r0, after_r0, r1, p2, p3, entry, .. } = places;
        let round = [r0, entry, entry + 2, after_r0, r1];
        let a = run(&[&[p0][..], &round, &round, &[p2]].concat());
        let b = run(&[&[p0][..], &round, &[p2]].concat());
        let found = places.compare(&a, &b);
        assert_eq!((found.leak, found.lost, found.public_count), (None, None, 1));
        assert_eq!(found.skipped, round.len() as u64);

        let b = run(&[&[p0][..], &round, &[p3]].concat());
        let parted = places.compare(&a, &b);
        assert!(parted.leak.is_none());
        assert!(parted.lost.expect("the runs part").contains("different places"));
    }

    /// Recordings shorter than the traces: the comparison goes on window after window and finds what whole
    /// recordings show, wherever a window ends (windows of 80 to 125 events, each after the first starting
    /// `LOOK_BACK` events before where the last stopped, so that every event of the middle part ends one).
    #[test]
    fn windows_find_what_whole_recordings_find() {
        let places = Places::new();
        let Places { p0, r0, after_r0, r1, p2, p3, entry, .. } = places;
        let lead = run(&[p0; 100]);
        let store = |address| Event::Store { pc: p2, address, size: 4 };
        let round = [r0, entry, entry + 2, after_r0, r1];
        let with_lead = |middle: &[Vec<Event>]| [lead.as_slice(), &middle.concat(), &lead].concat();
        let cases = [
            (
                with_lead(&[run(&[r0, r1, r0, r1, p2]), vec![store(0x100)]]),
                with_lead(&[run(&[r0, r1, p2]), vec![store(0x100)]]),
            ),
            (
                with_lead(&[run(&[r0, r1, r0, r1, p2]), vec![store(0x100)]]),
                with_lead(&[run(&[r0, r1, p2]), vec![store(0x200)]]),
            ),
            (with_lead(&[run(&round), run(&round), run(&[p2])]), with_lead(&[run(&round), run(&[p2])])),
            (with_lead(&[run(&round), run(&round), run(&[p2])]), with_lead(&[run(&round), run(&[p3])])),
        ];
        let key = |found: &Resynchronised| {
            let places: Vec<_> = found.public.iter().map(|l| (l.kind, l.pc)).collect();
            let leak = found.leak.as_ref().map(|l| (l.kind, l.pc, l.event));
            (leak, places, found.public_count, found.compared, found.skipped, found.lost.clone())
        };
        for (a, b) in &cases {
            let whole = places.compare(a, b);
            assert_eq!(whole.resume, None);
            for capacity in 80..=125 {
                let (windowed, recordings) = places.compare_in_windows(a, b, capacity);
                assert_eq!(key(&windowed), key(&whole), "windows of {capacity} events");
                assert_eq!(windowed.resume, None);
                // The first difference is event 100: a shorter window cannot reach it, a whole trace's needs no other.
                if capacity <= 100 {
                    assert!(recordings > 2, "windows of {capacity} events");
                }
                if capacity >= a.len().max(b.len()) {
                    assert_eq!(recordings, 2, "windows of {capacity} events");
                }
            }
        }
    }

    /// Public code that runs longer than a recording ends the comparison, without a verdict on what follows.
    #[test]
    fn a_skip_longer_than_a_recording_ends_the_comparison() {
        let places = Places::new();
        let Places { p0, r0, r1, p2, .. } = places;
        let rounds = |count: usize| run(&[r0, r1].repeat(count));
        let a = [run(&[p0; 100]), rounds(200), run(&[p2])].concat();
        let b = [run(&[p0; 100]), rounds(1), run(&[p2])].concat();
        assert_eq!(places.compare(&a, &b).lost, None);
        let (windowed, _) = places.compare_in_windows(&a, &b, 150);
        assert!(windowed.leak.is_none());
        assert!(windowed.lost.expect("stuck").contains("longer than a recording"));
    }

    /// A difference outside public code is the leak at once.
    #[test]
    fn a_difference_outside_public_code_is_a_leak() {
        let places = Places::new();
        let Places { p0, p2, p3, .. } = places;
        let found = places.compare(&run(&[p0, p2]), &run(&[p0, p3]));
        assert_eq!(found.leak.map(|l| (l.kind, l.pc)), Some((LeakKind::ControlFlow, p0)));
        assert_eq!(found.public_count, 0);
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
