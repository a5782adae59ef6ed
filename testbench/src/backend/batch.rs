//! Packing calls into the DDR window and reading results back: the part of the protocol both backends share.

use pqhelium_kernels::abi::{self, call as cd, ctrl};

use super::{Arg, Call, CallError, CallOutput, ConventionViolation, POISON, SavedRegister};
use crate::elf::GuestElf;

/// Guard bytes around every buffer: a kernel that writes outside its buffers is reported, not silently tolerated.
pub const GUARD_BYTE: u8 = 0x5A;
const GUARD_LEN: u32 = 16;
const ALIGN: u32 = 16;

/// Byte access to the DDR window, at offsets from `abi::DDR_BASE`.
pub(crate) trait Window {
    fn write(&mut self, offset: u32, data: &[u8]);
    fn read(&self, offset: u32, len: usize) -> Vec<u8>;
    /// Sets `len` bytes to `byte`.
    fn fill(&mut self, offset: u32, len: usize, byte: u8) {
        self.write(offset, &vec![byte; len]);
    }

    fn read_u32(&self, offset: u32) -> u32 {
        u32::from_le_bytes(self.read(offset, 4).try_into().unwrap())
    }
    fn write_u32(&mut self, offset: u32, value: u32) {
        self.write(offset, &value.to_le_bytes());
    }
    fn ctrl(&self, field: usize) -> u32 {
        self.read_u32(abi::CTRL_OFFSET + field as u32)
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
    /// Runs the descriptors in the window (`ctrl.ncalls` of them). On failure, returns the index of the failed
    /// call: the calls before it completed, the ones after it did not run. The engine is usable again afterwards.
    /// A call that breaks the calling convention ends the batch too, but returns normally: the harness reports it
    /// in the window, where `run_batch` reads it for every backend.
    fn execute(&mut self) -> Result<(), (usize, CallError)>;
}

/// Where one call's buffers went.
struct Placed {
    buffers: Vec<(u32, usize)>,
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
        if let Err(e) = engine.prepare() {
            for &index in chunk {
                results[index] = Some(Err(e.clone()));
            }
            next += chunk.len();
            continue;
        }
        let placed = pack(engine, calls, &fns, chunk);
        let failed = engine.execute().err().or_else(|| convention_violation(engine.window()));
        // The index comes from guest memory: a guest that wrote over it fails the last call, not the host.
        let failed = failed.map(|(k, error)| (k.min(chunk.len() - 1), error));
        let completed = failed.as_ref().map_or(chunk.len(), |(k, _)| *k);
        for (slot, (&index, place)) in chunk.iter().zip(&placed).enumerate().take(completed) {
            results[index] = Some(unpack(engine.window(), slot, place));
        }
        if let Some((k, error)) = failed {
            results[chunk[k]] = Some(Err(error));
        }
        next += (completed + 1).min(chunk.len());
    }
    results.into_iter().map(|r| r.expect("every call has a result")).collect()
}

/// The call that broke the calling convention, if the harness reported one (it stopped the batch there).
fn convention_violation(window: &dyn Window) -> Option<(usize, CallError)> {
    if window.ctrl(ctrl::STATUS) != abi::STATUS_CONVENTION {
        return None;
    }
    let current = window.ctrl(ctrl::CURRENT_CALL) as usize;
    let word = |field: usize| u64::from(window.ctrl(field));
    let double = |field: usize| word(field) | word(field + 4) << 32;
    let code = window.ctrl(ctrl::VIOLATION_REG);
    let register = match code {
        4..=11 => SavedRegister::Core(code as u8),
        abi::REG_SP => SavedRegister::Sp,
        _ if (abi::REG_D0 + 8..abi::REG_D0 + 16).contains(&code) => SavedRegister::Double((code - abi::REG_D0) as u8),
        // Only a guest that wrote over the control block gets here.
        _ => {
            return Some((
                current,
                CallError::WorkerDied(format!("harness control block corrupted (register {code})")),
            ));
        }
    };
    let violation =
        ConventionViolation { register, before: double(ctrl::VIOLATION_BEFORE), after: double(ctrl::VIOLATION_AFTER) };
    Some((current, CallError::CallingConvention(violation)))
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
        placed.push(Placed { buffers });
    }
    window.write_u32(abi::CTRL_OFFSET + ctrl::NCALLS as u32, chunk.len() as u32);
    // If the guest dies before it starts this batch, call 0 is the one that failed, not a stale index.
    window.write_u32(abi::CTRL_OFFSET + ctrl::CURRENT_CALL as u32, 0);
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

fn unpack(window: &dyn Window, slot: usize, placed: &Placed) -> Result<CallOutput, CallError> {
    let desc = window.read(abi::CALLS_OFFSET + (slot * abi::CALL_SIZE) as u32, abi::CALL_SIZE);
    let word = |at: usize| u32::from_le_bytes(desc[at..at + 4].try_into().unwrap());
    let dword = |at: usize| u64::from_le_bytes(desc[at..at + 8].try_into().unwrap());
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
