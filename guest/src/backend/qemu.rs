//! The QEMU backend: the Cortex-M55 image (FP64 + MVE), or the Cortex-M85 one (same instruction set), on
//! `qemu-system-arm -M mps3-an547`, one long-lived QEMU process per worker running the harness firmware.
//!
//! Data goes through shared memory: the board's DDR is backed by an anonymous memory file (memfd) that QEMU inherits
//! and the host maps too. The doorbell is UART0: one byte from the host raises the guest's RX interrupt (the guest
//! sleeps in WFI), one byte back means the batch is done; the host blocks in poll(2) meanwhile. Neither side burns a
//! core while idle.
//!
//! Guest code is untrusted, so QEMU runs sealed: no network and no default devices (`-nodefaults -nic none`: the
//! board's Ethernet controller has no backend), no semihosting (it would let the guest run host commands), a seccomp
//! sandbox that forbids spawning processes, and no file in any directory: the DDR, the image, the plugin and QEMU's
//! log are all anonymous files, so no exit of ours, SIGKILL included, leaves anything behind.

use std::fs::File;
use std::io::{Read, Write};
use std::os::fd::{AsRawFd, RawFd};
use std::os::unix::process::CommandExt;
use std::path::PathBuf;
use std::process::{Child, ChildStdin, ChildStdout, Command, Stdio};
use std::sync::atomic::{Ordering, fence};
use std::time::{Duration, Instant};

use memmap2::MmapMut;
use pqhelium_kernels::abi::{self, ctrl};
use pqhelium_kernels::{GuestImage, ICOUNT_PLUGIN};
use tracing::{debug, warn};

use super::batch::{self, Engine, Window};
use super::memfd::{anonymous_file, anonymous_file_with, fd_path};
use super::qemu_trace::TracePlugin;
use super::{Backend, BackendError, Call, CallError, CallOutput, Fault, FaultKind, Limits};
use crate::elf::GuestElf;
use crate::trace::{Core, Trace};

/// The board's DDR size: the backing memory must match it (sparse: only touched pages use memory).
const DDR_SIZE: u64 = 2 << 30;
const BOOT_TIMEOUT: Duration = Duration::from_secs(20);
/// How long a timed-out guest is watched to tell an endless loop (instructions advance) from a hung QEMU.
const PROGRESS_PROBE: Duration = Duration::from_millis(500);
/// How often the host looks at done_seq while it waits, in case a completion byte is late.
const DONE_POLL: Duration = Duration::from_millis(20);
/// Exceptions the harness's vector table sends to its fault handler (harness_entry.S): NMI, HardFault, MemManage,
/// BusFault, UsageFault, SecureFault, SVCall, DebugMonitor, PendSV. Any other number in `fault_exc` was not written
/// by the harness.
const FAULT_EXCEPTIONS: [u32; 9] = [2, 3, 4, 5, 6, 7, 11, 12, 14];

/// The QEMU binary: `$PQHELIUM_QEMU`, else `qemu-system-arm` on the PATH.
pub fn find_qemu() -> Result<PathBuf, String> {
    if let Some(path) = std::env::var_os("PQHELIUM_QEMU") {
        return Ok(PathBuf::from(path));
    }
    std::env::var_os("PATH")
        .iter()
        .flat_map(std::env::split_paths)
        .map(|dir| dir.join("qemu-system-arm"))
        .find(|p| p.is_file())
        .ok_or_else(|| "qemu-system-arm not found: run `ci/setup` (apt-get install qemu-system-arm)".to_string())
}

pub struct QemuBackend {
    elf: GuestElf,
    limits: Limits,
    qemu: PathBuf,
    image_file: File,
    plugin_file: File,
    skip_range: (u32, u32),
    worker: Option<Worker>,
    no_window: NoWindow,
    restarts: u64,
    /// Whether the plugin records the block profile (`crate::profile`).
    profiling: bool,
    /// Trace mode (`pqhelium ct`): the trace plugin, loaded into every worker this backend starts.
    pub(super) trace: Option<TracePlugin>,
    /// How many times the guest looks for the next batch before it sleeps (`ctrl::IDLE_POLLS`).
    idle_polls: u32,
}

/// The guest's polls for the next batch in a campaign's pipeline, a twentieth of the default: three batches in four
/// are handed over at once; the others wait for the host thread to prepare them, and polling would only take the CPU
/// from it (docs/benchmarks.md, "Choices measured against their alternatives").
const PIPELINED_IDLE_POLLS: u32 = 1000;

struct Worker {
    child: Child,
    stdin: ChildStdin,
    stdout: ChildStdout,
    /// QEMU's stderr, shown when it fails to boot.
    log: File,
    map: MmapMut,
    /// The number of the last batch requested (`request_seq`): the host's own count, never read back from the
    /// guest. The harness boots with done_seq = request_seq = 0.
    seq: u32,
    /// Died, hung or timed out: replaced before the next batch.
    failed: bool,
    /// The block profile the plugin writes: a host-owned file the guest cannot reach.
    profile: Option<MmapMut>,
}

impl Drop for Worker {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

impl QemuBackend {
    pub fn open(image: &GuestImage, limits: Limits) -> Result<Self, BackendError> {
        let elf = GuestElf::parse(image.name, image.elf)?;
        Self::with_image(elf, image.elf, limits)
    }

    /// A backend on any harness image (tests use hostile ones).
    pub fn with_image(elf: GuestElf, elf_bytes: &[u8], limits: Limits) -> Result<Self, BackendError> {
        Self::start(elf, elf_bytes, limits, false, None)
    }

    /// A backend whose plugin also records the block profile of what runs (`pqhelium cycles`).
    pub fn open_profiled(image: &GuestImage, limits: Limits) -> Result<Self, BackendError> {
        Self::start(GuestElf::parse(image.name, image.elf)?, image.elf, limits, true, None)
    }

    /// The block profile file of the current worker (none unless opened profiled, or after a failed restart).
    pub fn profile_mut(&mut self) -> Option<&mut [u8]> {
        self.worker.as_mut().and_then(|w| w.profile.as_deref_mut())
    }

    pub(super) fn start(
        elf: GuestElf,
        elf_bytes: &[u8],
        limits: Limits,
        profiling: bool,
        trace: Option<TracePlugin>,
    ) -> Result<Self, BackendError> {
        let qemu = find_qemu().map_err(BackendError::Unavailable)?;
        let skip_range = (elf.harness_symbol("__harness_start")?, elf.harness_symbol("__harness_end")?);
        elf.harness_symbol("pqh_reset")?;
        let image_file = anonymous_file_with(c"pqhelium-guest.elf", elf_bytes)?;
        let plugin_file = anonymous_file_with(c"libpqh_icount.so", ICOUNT_PLUGIN)?;
        let mut backend = Self {
            elf,
            limits,
            qemu,
            image_file,
            plugin_file,
            skip_range,
            worker: None,
            no_window: NoWindow,
            restarts: 0,
            profiling,
            trace,
            idle_polls: abi::IDLE_POLLS_MAX,
        };
        backend.worker = Some(backend.spawn()?);
        Ok(backend)
    }

    /// Process id of the current QEMU worker (tests kill it).
    pub fn worker_pid(&self) -> Option<u32> {
        self.worker.as_ref().map(|w| w.child.id())
    }

    /// How many times the QEMU process was restarted after dying or hanging.
    pub fn restarts(&self) -> u64 {
        self.restarts
    }

    fn spawn(&self) -> Result<Worker, BackendError> {
        let start_error = |what: &str, e: std::io::Error| BackendError::Start(format!("{what}: {e}"));
        let ddr = anonymous_file(c"pqhelium-ddr").map_err(|e| start_error("shared memory", e))?;
        // SAFETY: the memory is ours alone and only QEMU shares it; both sides treat it as bytes.
        let map = ddr
            .set_len(DDR_SIZE)
            .and_then(|_| unsafe { memmap2::MmapOptions::new().len(abi::WINDOW_SIZE).map_mut(&ddr) })
            .map_err(|e| start_error("mapping shared memory", e))?;
        let log = anonymous_file(c"pqhelium-qemu-log").map_err(|e| start_error("qemu log", e))?;
        let ddr_path = fd_path(&ddr);
        let mut plugin = format!(
            "{},shm={ddr_path},offset={},skip_lo={:#x},skip_hi={:#x}",
            fd_path(&self.plugin_file),
            abi::ICOUNT_OFFSET,
            self.skip_range.0,
            self.skip_range.1
        );
        let profile_file = match self.profiling {
            true => Some(anonymous_file(c"pqhelium-profile").map_err(|e| start_error("profile file", e))?),
            false => None,
        };
        let profile = match &profile_file {
            Some(file) => {
                plugin.push_str(&format!(",profile={}", fd_path(file)));
                // SAFETY: the file is ours and QEMU's plugin only; both sides treat it as bytes.
                let map = file
                    .set_len(crate::profile::FILE_SIZE as u64)
                    .and_then(|_| unsafe { MmapMut::map_mut(file) })
                    .map_err(|e| start_error("mapping the profile file", e))?;
                Some(map)
            }
            None => None,
        };
        let mut command = Command::new(&self.qemu);
        command
            .args(["-M", "mps3-an547,memory-backend=ddr"])
            .args(["-object", &format!("memory-backend-file,id=ddr,size={DDR_SIZE},mem-path={ddr_path},share=on")])
            .args(["-nodefaults", "-nic", "none"])
            .args(["-display", "none", "-monitor", "none", "-serial", "stdio"])
            .args(["-semihosting-config", "enable=off"])
            .args(["-sandbox", "on,obsolete=deny,elevateprivileges=deny,spawn=deny,resourcecontrol=deny"])
            .args(["-plugin", &plugin])
            .args(self.trace.iter().flat_map(|t| t.qemu_args(self.skip_range)))
            .args(["-kernel", &fd_path(&self.image_file)])
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(log.try_clone().map_err(|e| start_error("qemu log", e))?);
        let mut inherited = vec![ddr.as_raw_fd(), self.image_file.as_raw_fd(), self.plugin_file.as_raw_fd()];
        inherited.extend(profile_file.as_ref().map(|f| f.as_raw_fd()));
        inherited.extend(self.trace.iter().flat_map(|t| t.fds()));
        let parent = std::process::id() as libc::pid_t;
        // SAFETY: `prepare_child` makes only async-signal-safe calls and does not allocate.
        unsafe {
            command.pre_exec(move || prepare_child(parent, &inherited));
        }
        let mut child = command.spawn().map_err(|e| start_error("starting qemu-system-arm", e))?;
        let stdin = child.stdin.take().expect("piped");
        // The doorbell never blocks the host: QEMU reads its UART input only now and then (see `Worker::run`), so
        // after enough quick round trips the pipe would fill and a blocking write would hang for good.
        // SAFETY: fcntl on a descriptor we own; only our end of the pipe becomes non-blocking.
        unsafe {
            let fd = stdin.as_raw_fd();
            libc::fcntl(fd, libc::F_SETFL, libc::fcntl(fd, libc::F_GETFL) | libc::O_NONBLOCK);
        }
        let stdout = child.stdout.take().expect("piped");
        let mut worker = Worker { child, stdin, stdout, log, map, seq: 0, failed: false, profile };
        match wait_byte(&mut worker.stdout, BOOT_TIMEOUT) {
            Ok(b'R') => {}
            Ok(other) => return Err(BackendError::Start(format!("unexpected boot byte {other:#04x}"))),
            Err(e) => return Err(BackendError::Start(format!("{e}{}", worker.log_tail()))),
        }
        let magic = read_u32(&worker.map, abi::CTRL_OFFSET + ctrl::MAGIC as u32);
        let version = read_u32(&worker.map, abi::CTRL_OFFSET + ctrl::ABI_VERSION as u32);
        if magic != abi::MAGIC || version != abi::ABI_VERSION {
            return Err(BackendError::Start(format!(
                "harness handshake failed (magic {magic:#x}, ABI {version}; expected {:#x}, {})",
                abi::MAGIC,
                abi::ABI_VERSION
            )));
        }
        debug!(pid = worker.child.id(), "qemu worker ready");
        Ok(worker)
    }

    /// Replaces a dead or hung worker. A failure to restart fails the calls of the next batch.
    fn restart(&mut self) {
        self.worker = None;
        self.restarts += 1;
        match self.spawn() {
            Ok(w) => self.worker = Some(w),
            Err(e) => warn!("qemu worker restart failed: {e}"),
        }
    }

    /// The fault the harness recorded. Every field is guest-written: the exception number must be one the harness
    /// handles; the others are only shown.
    fn fault(&self) -> Result<Fault, CallError> {
        let worker = self.worker.as_ref().expect("a worker reported the fault");
        let field = |f: usize| worker.ctrl(f);
        let exception = field(ctrl::FAULT_EXC);
        if !FAULT_EXCEPTIONS.contains(&exception) {
            return Err(CallError::CorruptControlBlock { field: "fault_exc", value: exception.into() });
        }
        let pc = field(ctrl::FAULT_PC);
        let (cfsr, hfsr) = (field(ctrl::CFSR), field(ctrl::HFSR));
        let kind = if let Some(imm) = self.breakpoint_at(pc) {
            FaultKind::Breakpoint { imm }
        } else if cfsr & 0x0001_0000 != 0 {
            FaultKind::UndefinedInstruction
        } else if cfsr & 0x0000_FFFF != 0 {
            // MemManage (bits 0..8) or BusFault (bits 8..16); MMARVALID (7) / BFARVALID (15) say the address is known.
            let address = if cfsr & 0x80 != 0 {
                Some(field(ctrl::MMFAR))
            } else if cfsr & 0x8000 != 0 {
                Some(field(ctrl::BFAR))
            } else {
                None
            };
            FaultKind::MemoryAccess { address }
        } else if cfsr >> 16 != 0 {
            FaultKind::Usage(super::decode_cfsr(cfsr, 0, 0))
        } else {
            FaultKind::Other(format!("exception {exception}: {}, HFSR {hfsr:#010x}", super::decode_cfsr(cfsr, 0, 0)))
        };
        Ok(Fault { kind, pc, location: self.elf.locate(pc) })
    }

    /// The immediate of a `bkpt` at `pc`, if that is what the guest executed.
    fn breakpoint_at(&self, pc: u32) -> Option<u8> {
        self.elf.segments.iter().find_map(|seg| {
            let at = pc.checked_sub(seg.addr)? as usize;
            let insn = seg.data.get(at..at.checked_add(2)?)?;
            (insn[1] == 0xBE).then_some(insn[0])
        })
    }
}

/// Runs in the forked child just before QEMU starts. Only async-signal-safe calls, no allocation.
fn prepare_child(parent: libc::pid_t, inherited: &[RawFd]) -> std::io::Result<()> {
    // SAFETY: plain system calls on the child's own process state and descriptors.
    unsafe {
        // The worker dies with us: no orphaned QEMU after a host crash or SIGKILL. (Strictly, with the thread that
        // spawns it: a backend stays on the thread that uses it.) Had we died before the prctl, the child would
        // already belong to another parent: it must not start at all then.
        if libc::prctl(libc::PR_SET_PDEATHSIG, libc::SIGKILL) != 0 {
            return Err(std::io::Error::last_os_error());
        }
        if libc::getppid() != parent {
            return Err(std::io::Error::from_raw_os_error(libc::ESRCH));
        }
        // A guest that crashes QEMU leaves no core file (it would hold the 2 GiB DDR).
        let no_core = libc::rlimit { rlim_cur: 0, rlim_max: 0 };
        if libc::setrlimit(libc::RLIMIT_CORE, &no_core) != 0 {
            return Err(std::io::Error::last_os_error());
        }
        for &fd in inherited {
            if libc::fcntl(fd, libc::F_SETFD, 0) != 0 {
                return Err(std::io::Error::last_os_error());
            }
        }
    }
    Ok(())
}

fn read_u32(map: &MmapMut, offset: u32) -> u32 {
    let at = offset as usize;
    // Volatile: the guest writes this memory behind the compiler's back.
    unsafe { std::ptr::read_volatile(map[at..at + 4].as_ptr().cast::<u32>()) }
}

fn read_icount(map: &MmapMut) -> u64 {
    let at = abi::ICOUNT_OFFSET as usize;
    unsafe { std::ptr::read_volatile(map[at..at + 8].as_ptr().cast::<u64>()) }
}

#[derive(Debug)]
enum WaitError {
    TimedOut,
    Closed,
    Io(std::io::Error),
}

impl std::fmt::Display for WaitError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            WaitError::TimedOut => write!(f, "no answer from the guest in time"),
            WaitError::Closed => write!(f, "qemu exited"),
            WaitError::Io(e) => write!(f, "reading from qemu: {e}"),
        }
    }
}

/// Blocks until QEMU writes one byte (the guest's UART), the deadline passes, or QEMU goes away.
fn wait_byte(stdout: &mut ChildStdout, timeout: Duration) -> Result<u8, WaitError> {
    let deadline = Instant::now() + timeout;
    loop {
        let left = deadline.saturating_duration_since(Instant::now());
        let mut fds = libc::pollfd { fd: stdout.as_raw_fd(), events: libc::POLLIN, revents: 0 };
        let ms = left.as_millis().min(i32::MAX as u128) as i32;
        // SAFETY: one valid pollfd for the duration of the call.
        let ready = unsafe { libc::poll(&mut fds, 1, ms) };
        if ready < 0 {
            let e = std::io::Error::last_os_error();
            if e.kind() == std::io::ErrorKind::Interrupted {
                continue;
            }
            return Err(WaitError::Io(e));
        }
        if ready == 0 {
            return Err(WaitError::TimedOut);
        }
        let mut byte = [0u8; 1];
        return match stdout.read(&mut byte) {
            Ok(0) => Err(WaitError::Closed),
            Ok(_) => Ok(byte[0]),
            Err(e) => Err(WaitError::Io(e)),
        };
    }
}

impl Window for MmapMut {
    fn write(&mut self, offset: u32, data: &[u8]) {
        self[offset as usize..offset as usize + data.len()].copy_from_slice(data);
    }
    fn read(&self, offset: u32, len: usize) -> Vec<u8> {
        self[offset as usize..offset as usize + len].to_vec()
    }
    fn fill(&mut self, offset: u32, len: usize, byte: u8) {
        self[offset as usize..offset as usize + len].fill(byte);
    }
}

/// Stand-in window while no worker runs (a restart failed): writes go nowhere, execute reports the failure.
struct NoWindow;
impl Window for NoWindow {
    fn write(&mut self, _offset: u32, _data: &[u8]) {}
    fn read(&self, _offset: u32, len: usize) -> Vec<u8> {
        vec![0; len]
    }
}

impl Engine for QemuBackend {
    fn elf(&self) -> &GuestElf {
        &self.elf
    }

    fn window(&mut self) -> &mut dyn Window {
        match self.worker.as_mut() {
            Some(w) => &mut w.map,
            None => &mut self.no_window,
        }
    }

    fn prepare(&mut self) -> Result<(), CallError> {
        if self.worker.as_ref().is_none_or(|w| w.failed) {
            self.restart();
        }
        match self.worker {
            Some(_) => Ok(()),
            None => Err(CallError::WorkerDied("qemu could not be restarted".into())),
        }
    }

    fn execute(&mut self) -> Result<(), CallError> {
        let timeout = self.limits.timeout;
        let Some(worker) = self.worker.as_mut() else {
            return Err(CallError::WorkerDied("no qemu worker".into()));
        };
        if let Some(trace) = self.trace.as_mut() {
            trace.reset();
        }
        let error = match worker.run(timeout, self.idle_polls) {
            // Any other status, a calling-convention violation included, is read and checked by the shared code.
            Ok(()) if worker.ctrl(ctrl::STATUS) == abi::STATUS_FAULT => {
                return Err(self.fault().map_or_else(|e| e, CallError::Fault));
            }
            Ok(()) => return Ok(()),
            Err(error) => error,
        };
        // Stop the worker now; its memory stays readable for the calls that completed. It is replaced before the
        // next batch (`prepare`).
        warn!(%error, "qemu worker failed; it will be restarted");
        worker.failed = true;
        let _ = worker.child.kill();
        Err(error)
    }

    fn discard(&mut self) {
        if let Some(worker) = self.worker.as_mut() {
            worker.failed = true;
            let _ = worker.child.kill();
        }
    }
}

impl Worker {
    /// The last lines QEMU wrote to stderr.
    fn log_tail(&self) -> String {
        // A fresh open: reading through the descriptor QEMU writes to would move its offset.
        let log = std::fs::read_to_string(fd_path(&self.log)).unwrap_or_default();
        let tail: Vec<&str> = log.lines().rev().take(5).collect();
        if tail.is_empty() {
            String::new()
        } else {
            format!("; qemu said: {}", tail.into_iter().rev().collect::<Vec<_>>().join(" | "))
        }
    }

    fn ctrl(&self, field: usize) -> u32 {
        read_u32(&self.map, abi::CTRL_OFFSET + field as u32)
    }

    /// Rings the doorbell and waits until the guest reports the batch done, the budget runs out, or QEMU goes away.
    fn run(&mut self, timeout: Duration, idle_polls: u32) -> Result<(), CallError> {
        self.seq = self.seq.wrapping_add(1);
        let seq = self.seq;
        self.map.write_u32(abi::CTRL_OFFSET + ctrl::IDLE_POLLS as u32, idle_polls);
        fence(Ordering::SeqCst);
        self.map.write_u32(abi::CTRL_OFFSET + ctrl::REQUEST_SEQ as u32, seq);
        fence(Ordering::SeqCst);
        // Ring only a sleeping guest: a polling one finds the batch itself, and a byte it does not need would stay
        // in QEMU's input pipe (its CMSDK UART takes host input only when its main loop wakes) until the pipe is
        // full. Should that happen anyway, a full pipe is no error: the guest wakes every millisecond to look.
        if self.ctrl(ctrl::ASLEEP) != 0 {
            match self.stdin.write(b"!") {
                Ok(_) => {}
                Err(e) if e.kind() == std::io::ErrorKind::WouldBlock => {}
                Err(e) => return Err(CallError::WorkerDied(format!("qemu does not take input: {e}"))),
            }
        }
        let deadline = Instant::now() + timeout;
        loop {
            let slice = DONE_POLL.min(deadline.saturating_duration_since(Instant::now()));
            // A byte is only a hint (an earlier batch's byte may arrive late): completion is done_seq == seq.
            let answer = wait_byte(&mut self.stdout, slice);
            fence(Ordering::SeqCst);
            if self.ctrl(ctrl::DONE_SEQ) == seq {
                return Ok(());
            }
            match answer {
                Ok(_) | Err(WaitError::TimedOut) if Instant::now() < deadline => continue,
                Ok(_) | Err(WaitError::TimedOut) => return Err(self.timed_out(seq, timeout)),
                Err(e) => {
                    let status = self.child.try_wait().ok().flatten();
                    return Err(CallError::WorkerDied(format!(
                        "{e} ({})",
                        status.map_or("still running".into(), |s| s.to_string())
                    )));
                }
            }
        }
    }

    /// Batch `seq` never reported done: the guest wrote over the sequence numbers (then the harness may have finished
    /// but reported a batch the host never asked for), or it still runs, or the emulator is stuck.
    fn timed_out(&self, seq: u32, timeout: Duration) -> CallError {
        let (request, done) = (self.ctrl(ctrl::REQUEST_SEQ), self.ctrl(ctrl::DONE_SEQ));
        if request != seq {
            return CallError::CorruptControlBlock { field: "request_seq", value: request.into() };
        }
        // Until the harness reports this batch, done_seq holds the previous one's number.
        if done != seq.wrapping_sub(1) {
            return CallError::CorruptControlBlock { field: "done_seq", value: done.into() };
        }
        self.classify_timeout(timeout)
    }

    /// Still executing guest code (an endless loop) or a stuck emulator?
    fn classify_timeout(&self, timeout: Duration) -> CallError {
        let before = read_icount(&self.map);
        std::thread::sleep(PROGRESS_PROBE);
        if read_icount(&self.map) != before {
            CallError::Timeout(timeout)
        } else {
            CallError::WorkerDied(format!("qemu hung: no guest progress for {timeout:?}"))
        }
    }
}

impl Backend for QemuBackend {
    fn name(&self) -> &'static str {
        "qemu"
    }
    fn run_batch(&mut self, calls: &[Call]) -> Vec<Result<CallOutput, CallError>> {
        batch::run_batch(self, calls)
    }
    fn expect_pipelined_batches(&mut self) {
        self.idle_polls = PIPELINED_IDLE_POLLS;
    }
    fn block_profile(&mut self) -> Option<&mut [u8]> {
        self.profile_mut()
    }
}

impl QemuBackend {
    /// A backend in trace mode: every round trip builds the leakage trace of the code it runs outside the harness
    /// ([`QemuBackend::take_trace`]), with the variable-latency operands of `core`.
    pub fn open_traced(image: &pqhelium_kernels::GuestImage, limits: Limits, core: Core) -> Result<Self, BackendError> {
        let elf = crate::elf::GuestElf::parse(image.name, image.elf)?;
        QemuBackend::start(elf, image.elf, limits, false, Some(TracePlugin::new(core)?))
    }

    /// Trace mode: whether the next round trips keep events (to find the first difference), from which event on
    /// (at most [`crate::trace::RECORD_CAPACITY`] of them), or only the hash.
    pub fn record_events(&mut self, record: Option<u64>) {
        if let Some(trace) = self.trace.as_mut() {
            trace.record = record;
        }
    }

    /// Trace mode: the leakage trace of the last round trip (`None` when not tracing).
    pub fn take_trace(&mut self) -> Option<Result<Trace, String>> {
        self.trace.as_ref().map(TracePlugin::read)
    }
}
