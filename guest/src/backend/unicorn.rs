//! The unicorn backend: the Cortex-M7 image (Thumb-2 + FP64, no MVE) in process, one engine per worker thread.
//!
//! unicorn delivers no Cortex-M exceptions, so the host runs `pqh_run_batch` directly with a return address where
//! emulation stops, and turns unicorn's errors and hooks into faults. Instructions are counted per translation
//! block, over the kernel range only, and exposed to the guest harness as an MMIO counter at `PQH_ICOUNT_ADDR`.
//!
//! In trace mode ([`UnicornBackend::traced`], for `pqhelium ct`) per-instruction and memory hooks also build the
//! leakage trace of the code outside the harness; a backend opened normally has none of these hooks.

use pqhelium_kernels::GuestImage;
use pqhelium_kernels::abi::{self, ctrl};
use unicorn_engine::{Arch, ArmCpuModel, HookType, MemType, Mode, Prot, Query, RegisterARM, Unicorn, uc_error};

use super::batch::{self, Engine, Window};
use super::{Backend, BackendError, Call, CallError, CallOutput, Fault, FaultKind, Limits};
use crate::elf::GuestElf;
use crate::trace::{self as ct, Core, Event, Operand, Trace};

const ITCM: (u64, u64) = (0x0000_0000, 512 << 10);
const DTCM: (u64, u64) = (0x2000_0000, 512 << 10);
/// Emulation stops when the harness returns here (an unused word at the end of ITCM).
const STOP_ADDR: u64 = ITCM.0 + ITCM.1 - 16;

/// State the hooks share with the backend.
#[derive(Default)]
struct HookState {
    instructions: u64,
    /// Per halfword of kernel code: (size, instruction count) of the last block seen starting there.
    block_counts: Vec<(u32, u32)>,
    /// Code bytes of the kernel range, to count Thumb instructions in a block.
    code: Vec<u8>,
    code_base: u64,
    bad_access: Option<u64>,
    interrupt: Option<u32>,
    tracing: Option<Box<Tracing>>,
}

/// Trace mode: the leakage trace of the last round trip, over the code outside the harness.
struct Tracing {
    trace: Trace,
    core: Core,
    harness: std::ops::Range<u64>,
    /// The instruction running, when it is not harness code: memory accesses are traced only then.
    kernel_pc: Option<u32>,
}

pub struct UnicornBackend {
    uc: Unicorn<'static, HookState>,
    elf: GuestElf,
    limits: Limits,
    run_batch_addr: u32,
    stack_top: u32,
    /// Writable segments, restored before every batch so that calls cannot influence each other.
    writable: Vec<(u32, Vec<u8>)>,
}

fn uc_err(e: uc_error) -> BackendError {
    BackendError::Start(format!("unicorn: {e:?}"))
}

impl UnicornBackend {
    pub fn open(image: &GuestImage, limits: Limits) -> Result<Self, BackendError> {
        let elf = GuestElf::parse(image.name, image.elf)?;
        Self::with_elf(elf, limits)
    }

    pub fn with_elf(elf: GuestElf, limits: Limits) -> Result<Self, BackendError> {
        let run_batch_addr = elf.harness_symbol("pqh_run_batch")?;
        let stack_top = elf.harness_symbol("__stack_top")?;
        let kernels = (elf.harness_symbol("__kernels_start")?, elf.harness_symbol("__kernels_end")?);
        let mut uc = Unicorn::new_with_data(Arch::ARM, Mode::THUMB, HookState::default()).map_err(uc_err)?;
        // THUMB + Cortex-M7: the M-class mode would force a Cortex-M33 without FP64.
        uc.ctl_set_cpu_model(ArmCpuModel::CORTEX_M7 as i32).map_err(uc_err)?;
        for (base, size) in [ITCM, DTCM] {
            uc.mem_map(base, size, Prot::ALL).map_err(uc_err)?;
        }
        let page = 0x1000u64;
        uc.mmio_map(
            u64::from(abi::DDR_BASE),
            page,
            Some(|uc: &mut Unicorn<'_, HookState>, offset: u64, _size: usize| {
                let count = uc.get_data().instructions;
                if offset == 4 { count >> 32 } else { count & 0xFFFF_FFFF }
            }),
            None::<fn(&mut Unicorn<'_, HookState>, u64, usize, u64)>,
        )
        .map_err(uc_err)?;
        uc.mem_map(u64::from(abi::DDR_BASE) + page, abi::WINDOW_SIZE as u64 - page, Prot::READ | Prot::WRITE)
            .map_err(uc_err)?;
        let mut writable = Vec::new();
        for seg in &elf.segments {
            let in_map = [ITCM, DTCM]
                .iter()
                .any(|&(b, s)| u64::from(seg.addr) >= b && u64::from(seg.addr) + u64::from(seg.mem_size) <= b + s);
            if !in_map {
                return Err(BackendError::Start(format!("segment at {:#010x} is outside ITCM/DTCM", seg.addr)));
            }
            let mut bytes = seg.data.clone();
            bytes.resize(seg.mem_size as usize, 0);
            uc.mem_write(u64::from(seg.addr), &bytes).map_err(uc_err)?;
            if seg.writable {
                writable.push((seg.addr, bytes));
            }
        }
        let code = uc.mem_read_as_vec(u64::from(kernels.0), (kernels.1 - kernels.0) as usize).map_err(uc_err)?;
        let block_counts = vec![(0, 0); code.len() / 2 + 1];
        *uc.get_data_mut() = HookState { code, code_base: u64::from(kernels.0), block_counts, ..HookState::default() };
        uc.add_block_hook(u64::from(kernels.0), u64::from(kernels.1) - 1, |uc, address, size| {
            // Called for every executed block: a table lookup, decoding each block once.
            let state = uc.get_data_mut();
            let start = (address - state.code_base) as usize;
            let slot = &mut state.block_counts[start / 2];
            if slot.0 != size {
                let end = (start + size as usize).min(state.code.len());
                *slot = (size, count_thumb_instructions(&state.code[start..end]) as u32);
            }
            state.instructions += u64::from(slot.1);
        })
        .map_err(uc_err)?;
        uc.add_mem_hook(HookType::MEM_INVALID, 1, 0, |uc, _kind: MemType, address, _size, _value| {
            uc.get_data_mut().bad_access = Some(address);
            false
        })
        .map_err(uc_err)?;
        uc.add_intr_hook(|uc, intno| {
            uc.get_data_mut().interrupt = Some(intno);
            let _ = uc.emu_stop();
        })
        .map_err(uc_err)?;
        Ok(Self { uc, elf, limits, run_batch_addr, stack_top, writable })
    }

    /// This backend in trace mode: from now on every round trip records the leakage trace of the code it runs
    /// outside the harness ([`UnicornBackend::take_trace`]), with the variable-latency operands of `core`.
    pub fn traced(mut self, core: Core) -> Result<Self, BackendError> {
        let harness = self.elf.harness_symbol("__harness_start")?..self.elf.harness_symbol("__harness_end")?;
        let harness = u64::from(harness.start)..u64::from(harness.end);
        self.uc.get_data_mut().tracing =
            Some(Box::new(Tracing { trace: Trace::new(None), core, harness, kernel_pc: None }));
        self.uc.add_code_hook(1, 0, trace_instruction).map_err(uc_err)?;
        self.uc
            .add_mem_hook(HookType::MEM_READ | HookType::MEM_WRITE, 1, 0, |uc, kind, address, size, _value| {
                trace_access(uc, kind, address, size);
                true
            })
            .map_err(uc_err)?;
        Ok(self)
    }

    /// Trace mode: whether the next round trips keep every event (to find the first difference) or only the hash.
    pub fn record_events(&mut self, record: Option<u64>) {
        if let Some(tracing) = self.uc.get_data_mut().tracing.as_mut() {
            tracing.trace = Trace::new(record);
        }
    }

    /// Trace mode: the leakage trace of the last round trip (`None` when not tracing).
    pub fn take_trace(&mut self) -> Option<Trace> {
        let tracing = self.uc.get_data_mut().tracing.as_mut()?;
        let fresh = Trace::new(tracing.trace.recording());
        Some(std::mem::replace(&mut tracing.trace, fresh))
    }

    fn fault_at(&self, kind: FaultKind) -> CallError {
        let pc = self.uc.reg_read(RegisterARM::PC).unwrap_or(0) as u32;
        CallError::Fault(Fault { kind, pc, location: self.elf.locate(pc) })
    }

    fn breakpoint_imm(&self, pc: u32) -> u8 {
        let mut insn = [0u8; 2];
        let _ = self.uc.mem_read(u64::from(pc & !1), &mut insn);
        insn[0] // bkpt #imm is 0xBEii
    }
}

/// Trace mode, at every load and store: the access, for the instruction [`trace_instruction`] saw last.
fn trace_access(uc: &mut Unicorn<'_, HookState>, kind: MemType, address: u64, size: usize) {
    forget_restored_it_state(uc);
    if let Some(tracing) = uc.get_data_mut().tracing.as_mut()
        && let Some(pc) = tracing.kernel_pc
    {
        let (address, size) = (address as u32, size as u8);
        let event =
            if kind == MemType::WRITE { Event::Store { pc, address, size } } else { Event::Load { pc, address, size } };
        tracing.trace.push(event);
    }
}

/// The IT bits of the CPSR: IT[1:0] at bits 26:25, IT[7:2] at bits 15:10.
const CPSR_IT: u64 = 0x0600_FC00;

/// Before calling a memory hook, unicorn restores the CPU state of the accessing instruction, its IT state
/// included. Translated code keeps the IT state itself and expects the CPU state to hold zero between blocks (it
/// writes the state back only when a block ends inside an IT block), so an access inside an IT block that ends
/// within the same translated block leaves the state behind: the next block is translated as if it were the IT
/// block's rest, its first instructions predicated. Zero is the right value here in every case.
fn forget_restored_it_state(uc: &mut Unicorn<'_, HookState>) {
    if let Ok(cpsr) = uc.reg_read(RegisterARM::CPSR)
        && cpsr & CPSR_IT != 0
    {
        let _ = uc.reg_write(RegisterARM::CPSR, cpsr & !CPSR_IT);
    }
}

/// Trace mode, before every instruction: its address and, for a variable-latency instruction of the core, the
/// values of its operands.
fn trace_instruction(uc: &mut Unicorn<'_, HookState>, address: u64, size: u32) {
    let state = uc.get_data_mut();
    let Some(tracing) = state.tracing.as_mut() else { return };
    if tracing.harness.contains(&address) {
        tracing.kernel_pc = None;
        return;
    }
    let pc = address as u32;
    tracing.kernel_pc = Some(pc);
    tracing.trace.push(Event::Execute { pc });
    let at = address.wrapping_sub(state.code_base) as usize;
    let Some(bytes) = state.code.get(at..at.saturating_add(4)).filter(|_| size == 4) else { return };
    let halfword = |i: usize| u16::from_le_bytes([bytes[i], bytes[i + 1]]);
    let Some((class, first, second)) = ct::decode_variable_latency(halfword(0), halfword(2)) else { return };
    if !ct::is_variable(tracing.core, class) {
        return;
    }
    let read = |operand: Operand| {
        let register = match operand {
            Operand::Core(13) => i32::from(RegisterARM::SP),
            Operand::Core(14) => i32::from(RegisterARM::LR),
            Operand::Core(15) => i32::from(RegisterARM::PC),
            Operand::Core(n) => i32::from(RegisterARM::R0) + i32::from(n),
            Operand::Single(n) => i32::from(RegisterARM::S0) + i32::from(n),
            Operand::Double(n) => i32::from(RegisterARM::D0) + i32::from(n),
        };
        uc.reg_read(register).unwrap_or(0)
    };
    let values = [read(first), second.map_or(0, read)];
    if let Some(tracing) = uc.get_data_mut().tracing.as_mut() {
        tracing.trace.push(Event::Operands { pc, class, values });
    }
}

/// Number of Thumb instructions in a block of code.
fn count_thumb_instructions(code: &[u8]) -> u64 {
    let mut count = 0;
    let mut at = 0;
    while at + 1 < code.len() {
        let half = u16::from_le_bytes([code[at], code[at + 1]]);
        at += ct::thumb_size(half) as usize;
        count += 1;
    }
    count
}

impl Engine for UnicornBackend {
    fn elf(&self) -> &GuestElf {
        &self.elf
    }

    fn window(&mut self) -> &mut dyn Window {
        self
    }

    /// The harness's boot (`pqh_reset`) never runs here: the backend writes the handshake it would, before every
    /// batch, so that the check after each batch finds a guest that wrote over it, and the next batch does not.
    fn prepare(&mut self) -> Result<(), CallError> {
        self.write_u32(abi::CTRL_OFFSET + ctrl::MAGIC as u32, abi::MAGIC);
        self.write_u32(abi::CTRL_OFFSET + ctrl::ABI_VERSION as u32, abi::ABI_VERSION);
        Ok(())
    }

    fn execute(&mut self) -> Result<(), CallError> {
        // Unicorn may return before the stop address without a timeout, an exception or a fault of the guest: the
        // batch then runs once more, from the same memory and registers.
        let (mut result, mut pc) = self.start_batch();
        if self.returned_early(result, pc) {
            (result, pc) = self.start_batch();
        }
        let state = self.uc.get_data();
        let error = match (result, state.interrupt, state.bad_access) {
            (Ok(()), None, _) if pc == STOP_ADDR => return Ok(()),
            (_, Some(7), _) => {
                let imm = self.breakpoint_imm(pc as u32);
                self.fault_at(FaultKind::Breakpoint { imm })
            }
            (_, Some(1), _) | (Err(uc_error::INSN_INVALID), _, _) => self.fault_at(FaultKind::UndefinedInstruction),
            (_, Some(n), _) => self.fault_at(FaultKind::Other(format!("CPU exception {n}"))),
            (Err(_), None, Some(address)) => self.fault_at(FaultKind::MemoryAccess { address: Some(address as u32) }),
            (Err(e), None, None) => self.fault_at(FaultKind::Other(format!("unicorn error {e:?}"))),
            (Ok(()), None, _) if self.returned_early(result, pc) => self.fault_at(FaultKind::Other(format!(
                "unicorn returned twice at {pc:#x}, before the end of the batch, without a timeout, an exception or \
                 a fault"
            ))),
            (Ok(()), None, _) => CallError::Timeout(self.limits.timeout),
        };
        Err(error)
    }
}

impl UnicornBackend {
    /// Whether unicorn returned without reaching the stop address, and not for its timeout or an exception.
    fn returned_early(&self, result: Result<(), uc_error>, pc: u64) -> bool {
        // Unicorn is asked about its timeout only when the batch did not end: a finished batch costs nothing more.
        let not_timed_out = || self.uc.query(Query::TIMEOUT) == Ok(0);
        result.is_ok() && pc != STOP_ADDR && self.uc.get_data().interrupt.is_none() && not_timed_out()
    }

    /// The batch from the writable segments' initial contents: unicorn's result and the pc it stopped at.
    fn start_batch(&mut self) -> (Result<(), uc_error>, u64) {
        for (addr, bytes) in &self.writable {
            self.uc.mem_write(u64::from(*addr), bytes).expect("segment is mapped");
        }
        {
            let state = self.uc.get_data_mut();
            state.bad_access = None;
            state.interrupt = None;
            if let Some(tracing) = state.tracing.as_mut() {
                tracing.trace.clear();
                tracing.kernel_pc = None;
            }
        }
        let regs = [(RegisterARM::SP, u64::from(self.stack_top)), (RegisterARM::LR, STOP_ADDR | 1)];
        for (reg, value) in regs {
            self.uc.reg_write(reg, value).expect("register");
        }
        let timeout_us = self.limits.timeout.as_micros().max(1) as u64;
        let result = self.uc.emu_start(u64::from(self.run_batch_addr | 1), STOP_ADDR, timeout_us, 0);
        (result, self.uc.reg_read(RegisterARM::PC).unwrap_or(0))
    }
}

impl Window for UnicornBackend {
    fn write(&mut self, offset: u32, data: &[u8]) {
        self.uc.mem_write(u64::from(abi::DDR_BASE + offset), data).expect("DDR window is mapped");
    }
    fn read(&self, offset: u32, len: usize) -> Vec<u8> {
        self.uc.mem_read_as_vec(u64::from(abi::DDR_BASE + offset), len).expect("DDR window is mapped")
    }
}

impl Backend for UnicornBackend {
    fn name(&self) -> &'static str {
        "unicorn"
    }
    fn run_batch(&mut self, calls: &[Call]) -> Vec<Result<CallOutput, CallError>> {
        batch::run_batch(self, calls)
    }
}

// SAFETY: a backend is moved to its worker thread once and used there only; unicorn's Rc is never shared.
unsafe impl Send for UnicornBackend {}

#[cfg(test)]
mod tests {
    use super::*;

    /// `f(r0)`: an IT block whose executed instruction loads, a branch out of it, then `movs r0, #5; adds r0, #1`:
    /// 6 unless the two instructions after the branch are predicated by a leaked IT state.
    /// ```text
    /// movs r1, #0; cmp r1, #1; ite ne; ldrne r2, [r0]; ldreq r2, [r0, #4]; b 1f
    /// 1: movs r0, #5; adds r0, #1; bkpt #0
    /// ```
    const IT_THEN_BRANCH: [u8; 18] =
        [0x00, 0x21, 0x01, 0x29, 0x14, 0xbf, 0x02, 0x68, 0x42, 0x68, 0xff, 0xe7, 0x05, 0x20, 0x01, 0x30, 0x00, 0xbe];

    fn run_it_then_branch(
        hook: impl FnMut(&mut Unicorn<'_, HookState>, MemType, u64, usize, i64) -> bool + 'static,
    ) -> u64 {
        let mut uc = Unicorn::new_with_data(Arch::ARM, Mode::THUMB, HookState::default()).unwrap();
        uc.ctl_set_cpu_model(ArmCpuModel::CORTEX_M7 as i32).unwrap();
        for (base, size) in [ITCM, DTCM] {
            uc.mem_map(base, size, Prot::ALL).unwrap();
        }
        uc.mem_write(ITCM.0, &IT_THEN_BRANCH).unwrap();
        uc.add_mem_hook(HookType::MEM_READ | HookType::MEM_WRITE, 1, 0, hook).unwrap();
        uc.reg_write(RegisterARM::R0, DTCM.0).unwrap();
        let end = ITCM.0 + IT_THEN_BRANCH.len() as u64 - 2;
        uc.emu_start(ITCM.0 | 1, end, 0, 0).unwrap();
        uc.reg_read(RegisterARM::R0).unwrap()
    }

    /// A memory hook that does nothing makes unicorn predicate the code after an IT block (the emulator's fault this
    /// test guards against; if it is ever fixed, `forget_restored_it_state` can go); trace mode's hook does not.
    #[test]
    fn an_access_inside_an_it_block_leaves_no_it_state_behind() {
        assert_eq!(run_it_then_branch(|_, _, _, _, _| true), 5, "unicorn no longer leaks the IT state");
        let traced = |uc: &mut Unicorn<'_, HookState>, kind, address, size, _value| {
            trace_access(uc, kind, address, size);
            true
        };
        assert_eq!(run_it_then_branch(traced), 6);
    }

    #[test]
    fn thumb_lengths() {
        // movs r0, #1 (16-bit); ldr.w r0, [r1] (32-bit, 0xf8d1 0x0000); bx lr (16-bit)
        let code = [0x01, 0x20, 0xd1, 0xf8, 0x00, 0x00, 0x70, 0x47];
        assert_eq!(count_thumb_instructions(&code), 3);
    }
}
