//! Packing calls into the DDR window and reading results back: the part of the protocol both backends share.
//!
//! The guest can write the whole window, so nothing read back is taken on trust. After every round trip the control
//! block and the call slots are checked against what the host wrote and what an honest harness can have written
//! (`check_round`); only then does a value from them become an index or a result. A window that fails the check is
//! a `CallError::CorruptControlBlock`, and since any call of a batch can write over any other's slot, the batch's
//! calls then run again one at a time, so that each error lands on the call that caused it.

use std::time::{Duration, Instant};

use pqhelium_kernels::abi::{self, call as cd, ctrl};
use tracing::warn;

use super::{Arg, Call, CallError, CallOutput, ConventionViolation, POISON, SavedRegister};
use crate::elf::GuestElf;

/// Guard bytes around every buffer: a kernel that writes outside its buffers is reported, not silently tolerated.
pub const GUARD_BYTE: u8 = 0x5A;
const GUARD_LEN: u32 = 16;
const ALIGN: u32 = 16;
/// Guest instructions per second of wall time that no emulator comes near (QEMU and unicorn run 10^8 to 10^9): a
/// count above it for the time a round trip took was not counted by the harness. It also keeps every sum of counts
/// the host keeps far from overflowing.
const MAX_INSTRUCTIONS_PER_SECOND: u128 = 100_000_000_000;

/// Byte access to the DDR window, at offsets from `abi::DDR_BASE`.
pub(crate) trait Window {
    fn write(&mut self, offset: u32, data: &[u8]);
    fn read(&self, offset: u32, len: usize) -> Vec<u8>;
    /// Sets `len` bytes to `byte`.
    fn fill(&mut self, offset: u32, len: usize, byte: u8) {
        self.write(offset, &vec![byte; len]);
    }

    fn write_u32(&mut self, offset: u32, value: u32) {
        self.write(offset, &value.to_le_bytes());
    }
}

/// A backend's way of running descriptors that are already in the window.
pub(crate) trait Engine {
    fn elf(&self) -> &GuestElf;
    fn window(&mut self) -> &mut dyn Window;
    /// Gets ready for a batch (a QEMU backend replaces a failed worker here, after the previous batch's results
    /// were read from the old one).
    fn prepare(&mut self) -> Result<(), CallError> {
        Ok(())
    }
    /// Runs the descriptors in the window (`ctrl.ncalls` of them). An error is the failure of the call the harness
    /// was running (`ctrl.current_call`, read and checked by `run_batch`): the calls before it completed, the ones
    /// after it did not run. The engine is usable again afterwards. A call that breaks the calling convention ends
    /// the batch too, but returns normally: the harness reports it in the window, where `run_batch` reads it.
    fn execute(&mut self) -> Result<(), CallError>;
    /// The guest wrote over the window: nothing it left behind may reach the next batch (a QEMU backend replaces its
    /// worker).
    fn discard(&mut self) {}
}

/// One call as packed: its descriptor, and where its buffers went.
struct Placed {
    descriptor: [u8; abi::CALL_SIZE],
    buffers: Vec<(u32, usize)>,
}

/// What one round trip settled.
enum Round {
    /// Results of the first calls of the chunk: all of them, or up to the one that failed, which comes last.
    Settled(Vec<Result<CallOutput, CallError>>),
    /// The guest wrote over the window: nothing in it is trusted.
    Corrupt(CallError),
}

/// A round trip that passed the checks.
struct Ended {
    /// Calls that completed, from the first.
    completed: usize,
    /// The error of the call after them, if one failed.
    failure: Option<CallError>,
    /// The chunk's call slots, read once: a guest still running cannot change them after the check.
    slots: Vec<u8>,
}

/// Runs `calls` in as few guest round trips as fit the window; one result per call.
pub(crate) fn run_batch(engine: &mut dyn Engine, calls: &[Call]) -> Vec<Result<CallOutput, CallError>> {
    let mut results: Vec<Option<Result<CallOutput, CallError>>> = vec![None; calls.len()];
    let mut pending: Vec<usize> = Vec::new();
    // Each call's function address; a batch usually calls one function, so consecutive calls share the lookup.
    let mut fns = vec![0u32; calls.len()];
    let mut last: Option<(&str, u32)> = None;
    for (i, call) in calls.iter().enumerate() {
        let address = match last {
            Some((symbol, address)) if symbol == call.symbol => Ok(address),
            _ => engine.elf().symbol(&call.symbol).map_err(|_| CallError::MissingSymbol(call.symbol.clone())),
        };
        match address.and_then(|address| validate(call).map(|()| address)) {
            Ok(address) => {
                fns[i] = address;
                last = Some((&call.symbol, address));
                pending.push(i);
            }
            Err(e) => results[i] = Some(Err(e)),
        }
    }
    let mut next = 0;
    while next < pending.len() {
        let chunk = take_chunk(calls, &pending[next..]);
        let settled = match run_round(engine, calls, &fns, chunk) {
            Round::Settled(settled) => settled,
            Round::Corrupt(error) if chunk.len() == 1 => vec![Err(error)],
            Round::Corrupt(error) => {
                warn!(%error, calls = chunk.len(), "the guest corrupted a batch; running its calls one at a time");
                chunk.iter().map(|&index| run_alone(engine, calls, &fns, index)).collect()
            }
        };
        next += settled.len();
        for (&index, result) in chunk.iter().zip(settled) {
            results[index] = Some(result);
        }
    }
    results.into_iter().map(|r| r.expect("every call has a result")).collect()
}

/// One call in a batch of its own: whatever it leaves in the window is its own doing.
fn run_alone(engine: &mut dyn Engine, calls: &[Call], fns: &[u32], index: usize) -> Result<CallOutput, CallError> {
    match run_round(engine, calls, fns, &[index]) {
        Round::Settled(mut settled) => settled.pop().expect("a round settles at least its first call"),
        Round::Corrupt(error) => Err(error),
    }
}

/// Runs `chunk` in one round trip and reads back what it settled.
fn run_round(engine: &mut dyn Engine, calls: &[Call], fns: &[u32], chunk: &[usize]) -> Round {
    if let Err(e) = engine.prepare() {
        return Round::Settled(vec![Err(e); chunk.len()]);
    }
    let placed = pack(engine, calls, fns, chunk);
    let started = Instant::now();
    let executed = engine.execute();
    let elapsed = started.elapsed();
    let ended = match executed {
        Err(error @ CallError::CorruptControlBlock { .. }) => Err(error),
        executed => check_round(engine.window(), &placed, executed, elapsed),
    };
    match ended {
        Ok(Ended { completed, failure, slots }) => {
            let window = engine.window();
            let mut settled: Vec<_> = placed[..completed]
                .iter()
                .enumerate()
                .map(|(slot, place)| unpack(window, &slots, slot, place))
                .collect();
            settled.extend(failure.map(Err));
            Round::Settled(settled)
        }
        Err(corrupt) => {
            engine.discard();
            Round::Corrupt(corrupt)
        }
    }
}

fn corrupt(field: &'static str, value: impl Into<u64>) -> CallError {
    CallError::CorruptControlBlock { field, value: value.into() }
}

fn word_at(bytes: &[u8], at: usize) -> u32 {
    u32::from_le_bytes(bytes[at..at + 4].try_into().unwrap())
}

fn dword_at(bytes: &[u8], at: usize) -> u64 {
    u64::from_le_bytes(bytes[at..at + 8].try_into().unwrap())
}

/// Reads how a round trip ended (`executed`: what the backend saw) and checks the window: the fields the host wrote
/// are as it wrote them, and those the harness writes hold values it can write that agree with each other, with the
/// seal of the results and with the time the round trip took. An error names the first field that fails.
fn check_round(
    window: &dyn Window,
    placed: &[Placed],
    executed: Result<(), CallError>,
    elapsed: Duration,
) -> Result<Ended, CallError> {
    let n = placed.len();
    let block = window.read(abi::CTRL_OFFSET, abi::CTRL_SIZE);
    let slots = window.read(abi::CALLS_OFFSET, n * abi::CALL_SIZE);
    let field = |at: usize| word_at(&block, at);
    for (at, name, expected) in [
        (ctrl::MAGIC, "magic", abi::MAGIC),
        (ctrl::ABI_VERSION, "abi_version", abi::ABI_VERSION),
        (ctrl::NCALLS, "ncalls", n as u32),
    ] {
        if field(at) != expected {
            return Err(corrupt(name, field(at)));
        }
    }
    let current = field(ctrl::CURRENT_CALL) as usize;
    if current >= n {
        return Err(corrupt("current_call", field(ctrl::CURRENT_CALL)));
    }
    // How many calls completed, how many the harness sealed (a call that broke the convention completed but is not
    // credited), and the error of the failed call.
    let (completed, sealed, failure) = match (executed, field(ctrl::STATUS)) {
        (Ok(()), abi::STATUS_OK) if current == n - 1 => (n, n, None),
        (Ok(()), abi::STATUS_OK) => return Err(corrupt("current_call", current as u32)),
        (Ok(()), abi::STATUS_CONVENTION) => {
            (current, current + 1, Some(CallError::CallingConvention(convention_violation(&block)?)))
        }
        // The backend saw the call fail (a fault, a timeout, a dead emulator): it did not complete.
        (Err(error), abi::STATUS_OK | abi::STATUS_FAULT) => (current, current, Some(error)),
        (_, status) => return Err(corrupt("status", status)),
    };
    check_descriptors(placed, &slots)?;
    let result = |slot: usize, at: usize| slot * abi::CALL_SIZE + at;
    let icount = |slot: usize| dword_at(&slots, result(slot, cd::ICOUNT));
    let seal = (0..sealed).fold(abi::SEAL_INIT, |seal, slot| {
        let (r0, r1) = (word_at(&slots, result(slot, cd::R0)), word_at(&slots, result(slot, cd::R1)));
        abi::seal_call(seal, slot as u32, r0, r1, dword_at(&slots, result(slot, cd::D0)), icount(slot))
    });
    if field(ctrl::RESULTS_SEAL) != seal {
        return Err(corrupt("results_seal", field(ctrl::RESULTS_SEAL)));
    }
    // The harness's count is the difference of two readings of a counter the guest can write: it may have wrapped.
    let budget = elapsed.as_nanos() * MAX_INSTRUCTIONS_PER_SECOND / 1_000_000_000;
    let mut total = 0u128;
    for slot in 0..sealed {
        total += u128::from(icount(slot));
        if total > budget {
            return Err(corrupt("call.icount", icount(slot)));
        }
    }
    Ok(Ended { completed, failure, slots })
}

/// The parts of each descriptor the host wrote (function, repeat, arguments) must be as it wrote them: a guest that
/// changed them changed which function ran, or on what.
fn check_descriptors(placed: &[Placed], slots: &[u8]) -> Result<(), CallError> {
    // Name, offset and element size of each, in descriptor order.
    const FIELDS: [(&str, usize, usize); 4] = [
        ("call.fn", cd::FN, 4),
        ("call.repeat", cd::REPEAT, 4),
        ("call.iargs", cd::IARGS, 4),
        ("call.dargs", cd::DARGS, 8),
    ];
    for (place, slot) in placed.iter().zip(slots.chunks_exact(abi::CALL_SIZE)) {
        let Some(at) = (0..cd::R0).find(|&i| slot[i] != place.descriptor[i]) else { continue };
        let &(name, start, size) = FIELDS.iter().rev().find(|field| field.1 <= at).expect("a field starts at 0");
        let element = at - (at - start) % size;
        let value = if size == 8 { dword_at(slot, element) } else { u64::from(word_at(slot, element)) };
        return Err(corrupt(name, value));
    }
    Ok(())
}

/// The violation the harness reported, if it is one the harness can report: a register it checks, the canary it
/// loaded there (sp: a 32-bit address) and a different value after the call.
fn convention_violation(block: &[u8]) -> Result<ConventionViolation, CallError> {
    let code = word_at(block, ctrl::VIOLATION_REG);
    let (before, after) = (dword_at(block, ctrl::VIOLATION_BEFORE), dword_at(block, ctrl::VIOLATION_AFTER));
    let (register, canary) = match code {
        4..=11 => (SavedRegister::Core(code as u8), Some(u64::from(abi::core_canary(code)))),
        abi::REG_SP => (SavedRegister::Sp, None),
        _ if (abi::REG_D0 + 8..abi::REG_D0 + 16).contains(&code) => {
            let n = code - abi::REG_D0;
            (SavedRegister::Double(n as u8), Some(u64::from(abi::fp_canary(n)) * 0x1_0000_0001))
        }
        _ => return Err(corrupt("violation_reg", code)),
    };
    let word_sized = !matches!(register, SavedRegister::Double(_));
    let before_as_loaded = canary.map_or(before <= u64::from(u32::MAX), |canary| before == canary);
    if !before_as_loaded {
        return Err(corrupt("violation_before", before));
    }
    if after == before || (word_sized && after > u64::from(u32::MAX)) {
        return Err(corrupt("violation_after", after));
    }
    Ok(ConventionViolation { register, before, after })
}

fn validate(call: &Call) -> Result<(), CallError> {
    let ints = call.args.iter().filter(|a| !matches!(a, Arg::F64(_))).count();
    let doubles = call.args.len() - ints;
    if ints > 8 || doubles > 8 {
        return Err(CallError::BadCall(format!("{ints} integer and {doubles} double arguments; at most 8 of each")));
    }
    if call.repeat == 0 {
        return Err(CallError::BadCall("repeat must be at least 1".into()));
    }
    if arena_bytes(call) > u64::from(abi::ARENA_SIZE) {
        return Err(CallError::BadCall("buffers larger than the guest arena".into()));
    }
    Ok(())
}

fn buffer_len(arg: &Arg) -> Option<usize> {
    match arg {
        Arg::In(b) | Arg::InOut(b) => Some(b.len()),
        Arg::Out(n) => Some(*n),
        Arg::U32(_) | Arg::F64(_) => None,
    }
}

fn slot_size(len: usize) -> u64 {
    (len as u64).div_ceil(u64::from(ALIGN)) * u64::from(ALIGN) + 2 * u64::from(GUARD_LEN)
}

fn arena_bytes(call: &Call) -> u64 {
    call.args.iter().filter_map(buffer_len).map(slot_size).sum()
}

/// The longest prefix of `pending` that fits the descriptor table and the arena (at least one call).
fn take_chunk<'a>(calls: &[Call], pending: &'a [usize]) -> &'a [usize] {
    let mut bytes = 0;
    let mut n = 0;
    for &i in pending.iter().take(abi::MAX_CALLS) {
        bytes += arena_bytes(&calls[i]);
        if n > 0 && bytes > u64::from(abi::ARENA_SIZE) {
            break;
        }
        n += 1;
    }
    &pending[..n]
}

fn pack(engine: &mut dyn Engine, calls: &[Call], fns: &[u32], chunk: &[usize]) -> Vec<Placed> {
    let window = engine.window();
    let mut cursor = abi::ARENA_OFFSET;
    let mut placed = Vec::with_capacity(chunk.len());
    for (slot, &i) in chunk.iter().enumerate() {
        let call = &calls[i];
        let mut desc = [0u8; abi::CALL_SIZE];
        desc[cd::FN..cd::FN + 4].copy_from_slice(&fns[i].to_le_bytes());
        desc[cd::REPEAT..cd::REPEAT + 4].copy_from_slice(&call.repeat.to_le_bytes());
        let (mut ints, mut doubles) = (0, 0);
        let mut buffers = Vec::new();
        for arg in &call.args {
            let int_value = match arg {
                Arg::F64(x) => {
                    let at = cd::DARGS + 8 * doubles;
                    desc[at..at + 8].copy_from_slice(&x.to_bits().to_le_bytes());
                    doubles += 1;
                    continue;
                }
                Arg::U32(v) => *v,
                Arg::In(data) | Arg::InOut(data) => place(window, &mut cursor, Some(data), data.len(), &mut buffers),
                Arg::Out(len) => place(window, &mut cursor, None, *len, &mut buffers),
            };
            let at = cd::IARGS + 4 * ints;
            desc[at..at + 4].copy_from_slice(&int_value.to_le_bytes());
            ints += 1;
        }
        window.write(abi::CALLS_OFFSET + (slot * abi::CALL_SIZE) as u32, &desc);
        placed.push(Placed { descriptor: desc, buffers });
    }
    window.write_u32(abi::CTRL_OFFSET + ctrl::NCALLS as u32, chunk.len() as u32);
    // What the harness writes when it starts the batch: if the guest dies before, call 0 is the one that failed,
    // and nothing of the previous batch is read back.
    window.write_u32(abi::CTRL_OFFSET + ctrl::CURRENT_CALL as u32, 0);
    window.write_u32(abi::CTRL_OFFSET + ctrl::STATUS as u32, abi::STATUS_OK);
    window.write_u32(abi::CTRL_OFFSET + ctrl::RESULTS_SEAL as u32, abi::SEAL_INIT);
    placed
}

/// Writes `data` (or `len` bytes of `POISON` for an output buffer) between guards at the cursor; returns its guest
/// address.
fn place(
    window: &mut dyn Window,
    cursor: &mut u32,
    data: Option<&[u8]>,
    len: usize,
    buffers: &mut Vec<(u32, usize)>,
) -> u32 {
    let padded = len.div_ceil(ALIGN as usize) * ALIGN as usize;
    window.fill(*cursor, GUARD_LEN as usize, GUARD_BYTE);
    let offset = *cursor + GUARD_LEN;
    match data {
        Some(data) => window.write(offset, data),
        None => window.fill(offset, len, POISON),
    }
    window.fill(offset + len as u32, padded - len + GUARD_LEN as usize, GUARD_BYTE);
    buffers.push((offset, len));
    *cursor = offset + padded as u32 + GUARD_LEN;
    abi::DDR_BASE + offset
}

/// Call `slot`'s result: its registers from the checked `slots`, its buffers from the window (any bytes are data;
/// where they are and how long is the host's own record).
fn unpack(window: &dyn Window, slots: &[u8], slot: usize, placed: &Placed) -> Result<CallOutput, CallError> {
    let desc = &slots[slot * abi::CALL_SIZE..(slot + 1) * abi::CALL_SIZE];
    let word = |at: usize| word_at(desc, at);
    let dword = |at: usize| dword_at(desc, at);
    let mut buffers = Vec::with_capacity(placed.buffers.len());
    for (arg, &(offset, len)) in placed.buffers.iter().enumerate() {
        // The buffer with its guards, in one read.
        let padded = len.div_ceil(ALIGN as usize) * ALIGN as usize;
        let mut slot = window.read(offset - GUARD_LEN, padded + 2 * GUARD_LEN as usize);
        let (before, rest) = slot.split_at(GUARD_LEN as usize);
        if let Some(at) = before.iter().position(|&b| b != GUARD_BYTE) {
            return Err(CallError::BufferOverrun { arg, offset: at });
        }
        if let Some(at) = rest[len..].iter().position(|&b| b != GUARD_BYTE) {
            return Err(CallError::BufferOverrun { arg, offset: len + at });
        }
        slot.truncate(GUARD_LEN as usize + len);
        slot.drain(..GUARD_LEN as usize);
        buffers.push(slot);
    }
    Ok(CallOutput {
        r0: word(cd::R0),
        r1: word(cd::R1),
        d0: f64::from_bits(dword(cd::D0)),
        buffers,
        instructions: dword(cd::ICOUNT),
    })
}
