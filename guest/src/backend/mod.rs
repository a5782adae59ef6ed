//! Emulator backends: one trait, two implementations (unicorn in process, QEMU as worker processes).
//!
//! Both run the same harness firmware protocol (`kernels/arm/harness/pqh_abi.h`): the host writes call descriptors
//! and argument buffers into the DDR window at 0x60000000, the guest runs them and writes results back. The packing
//! and unpacking of that window is shared here; each backend only moves bytes and runs the guest.

mod batch;
mod memfd;
pub mod qemu;
mod qemu_trace;
pub mod unicorn;

use std::fmt;
use std::time::Duration;

pub use batch::GUARD_BYTE;

pub use crate::cpu::Core;
use crate::elf::ElfError;

/// One AAPCS argument. Buffers are placed in guest memory; the call receives their address.
#[derive(Debug, Clone, PartialEq)]
pub enum Arg {
    /// Input buffer (the kernel should not write it; a write is visible in the output).
    In(Vec<u8>),
    /// Buffer read and written in place.
    InOut(Vec<u8>),
    /// Output buffer of this many bytes, filled with `POISON` before the call.
    Out(usize),
    /// Integer scalar in a core register (or on the stack after r3).
    U32(u32),
    /// Double in d0..d7 (hard-float AAPCS).
    F64(f64),
}

/// Byte that fills output buffers before a call, so that unwritten output is deterministic and visible.
pub const POISON: u8 = 0xA5;

/// A call of a guest function by symbol.
#[derive(Debug, Clone)]
pub struct Call {
    pub symbol: String,
    pub args: Vec<Arg>,
    /// Calls the function this many times in a guest loop, on the same buffers (benchmarks); normally 1.
    pub repeat: u32,
}

impl Call {
    pub fn new(symbol: impl Into<String>, args: Vec<Arg>) -> Self {
        Self { symbol: symbol.into(), args, repeat: 1 }
    }
}

/// What a call returned.
#[derive(Debug, Clone, PartialEq)]
pub struct CallOutput {
    pub r0: u32,
    pub r1: u32,
    pub d0: f64,
    /// The final contents of every buffer argument, in argument order.
    pub buffers: Vec<Vec<u8>>,
    /// Guest instructions executed by the call (all repeats), harness excluded.
    pub instructions: u64,
}

#[derive(Debug, Clone, PartialEq)]
pub enum FaultKind {
    /// A load, store or fetch at an address where nothing is, or that is not allowed.
    MemoryAccess {
        address: Option<u32>,
    },
    UndefinedInstruction,
    /// `bkpt`, including semihosting requests (`bkpt 0xab`), which pqhelium never serves.
    Breakpoint {
        imm: u8,
    },
    /// Another usage fault (invalid state, stack overflow, unaligned, division by zero...).
    Usage(String),
    /// Anything else the core escalated, with the raw fault registers.
    Other(String),
}

impl fmt::Display for FaultKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            FaultKind::MemoryAccess { address: Some(a) } => write!(f, "invalid memory access at {a:#010x}"),
            FaultKind::MemoryAccess { address: None } => write!(f, "invalid memory access"),
            FaultKind::UndefinedInstruction => write!(f, "undefined instruction"),
            FaultKind::Breakpoint { imm: 0xab } => write!(f, "semihosting request (bkpt 0xab) refused"),
            FaultKind::Breakpoint { imm } => write!(f, "breakpoint (bkpt {imm:#04x})"),
            FaultKind::Usage(s) => write!(f, "usage fault: {s}"),
            FaultKind::Other(s) => write!(f, "fault: {s}"),
        }
    }
}

/// The bits of the Configurable Fault Status Register (Armv8-M ARM, B3.6 "CFSR": MMFSR bits 0..8, BFSR 8..16, UFSR
/// 16..32), each with what it means to a kernel's author.
const CFSR_BITS: [(u32, &str, &str); 18] = [
    (0, "IACCVIOL", "instruction fetch from memory that does not permit execution"),
    (1, "DACCVIOL", "data access to memory the MPU does not permit"),
    (3, "MUNSTKERR", "MemManage fault while unstacking on exception return"),
    (4, "MSTKERR", "MemManage fault while stacking on exception entry"),
    (5, "MLSPERR", "MemManage fault during lazy floating-point state preservation"),
    (8, "IBUSERR", "bus error on an instruction fetch"),
    (9, "PRECISERR", "precise data bus error"),
    (10, "IMPRECISERR", "imprecise data bus error"),
    (11, "UNSTKERR", "bus error while unstacking on exception return"),
    (12, "STKERR", "bus error while stacking on exception entry"),
    (13, "LSPERR", "bus error during lazy floating-point state preservation"),
    (16, "UNDEFINSTR", "undefined instruction"),
    (17, "INVSTATE", "invalid state (a branch to an address with bit 0 clear, or a bad IT state)"),
    (18, "INVPC", "invalid EXC_RETURN or PC on exception return"),
    (19, "NOCP", "coprocessor, FPU or MVE instruction while it is disabled or absent"),
    (20, "STKOF", "stack overflow (a stack limit register)"),
    (24, "UNALIGNED", "unaligned access"),
    (25, "DIVBYZERO", "division by zero"),
];

/// MMFSR.MMARVALID and BFSR.BFARVALID: MMFAR and BFAR hold the faulting data address.
const MMARVALID: u32 = 1 << 7;
const BFARVALID: u32 = 1 << 15;

/// What a CFSR value says, bit by bit (`unaligned access (UNALIGNED)`), with the address of a data access when MMFAR
/// or BFAR holds it, and the raw value. Every bit is guest-written and only shown.
pub fn decode_cfsr(cfsr: u32, mmfar: u32, bfar: u32) -> String {
    let mut parts = Vec::new();
    for &(bit, name, meaning) in &CFSR_BITS {
        if cfsr & (1 << bit) == 0 {
            continue;
        }
        let address = match name {
            "DACCVIOL" if cfsr & MMARVALID != 0 => format!(" at {mmfar:#010x}"),
            "PRECISERR" if cfsr & BFARVALID != 0 => format!(" at {bfar:#010x}"),
            _ => String::new(),
        };
        parts.push(format!("{meaning}{address} ({name})"));
    }
    let known = CFSR_BITS.iter().fold(MMARVALID | BFARVALID, |mask, (bit, _, _)| mask | 1 << bit);
    if cfsr & !known != 0 {
        parts.push(format!("reserved bits {:#010x}", cfsr & !known));
    }
    if parts.is_empty() {
        parts.push("no fault status bit set".into());
    }
    format!("{}, CFSR {cfsr:#010x}", parts.join("; "))
}

#[derive(Debug, Clone, PartialEq)]
pub struct Fault {
    pub kind: FaultKind,
    pub pc: u32,
    /// `symbol+offset` of the faulting instruction.
    pub location: String,
}

/// A register the AAPCS requires a function to preserve.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SavedRegister {
    /// r4-r11.
    Core(u8),
    /// d8-d15 (s16-s31; q4-q7 with MVE).
    Double(u8),
    Sp,
}

impl fmt::Display for SavedRegister {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            SavedRegister::Core(n) => write!(f, "r{n}"),
            SavedRegister::Double(n) => write!(f, "d{n}"),
            SavedRegister::Sp => f.write_str("sp"),
        }
    }
}

/// A call that returned without preserving sp or a callee-saved register: the value before the call (the caller's
/// sp, or the canary the harness loaded into the register) and after it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ConventionViolation {
    pub register: SavedRegister,
    pub before: u64,
    pub after: u64,
}

impl fmt::Display for ConventionViolation {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let (register, before, after) = (self.register, self.before, self.after);
        match register {
            SavedRegister::Sp => {
                let moved = i128::from(after) - i128::from(before);
                write!(f, "sp moved by {moved} bytes ({before:#010x} before, {after:#010x} after)")
            }
            SavedRegister::Core(_) => {
                write!(f, "{register} not preserved ({before:#010x} before, {after:#010x} after)")
            }
            SavedRegister::Double(_) => {
                write!(f, "{register} not preserved ({before:#018x} before, {after:#018x} after)")
            }
        }
    }
}

#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum CallError {
    #[error("guest fault: {} at {:#010x} ({})", .0.kind, .0.pc, .0.location)]
    Fault(Fault),
    #[error("timeout: the call did not return within {0:?} (endless loop?)")]
    Timeout(Duration),
    #[error("emulator worker failed: {0}")]
    WorkerDied(String),
    #[error("symbol `{0}` not found in the guest image")]
    MissingSymbol(String),
    #[error("calling convention violated: {0}")]
    CallingConvention(ConventionViolation),
    #[error("kernel wrote outside buffer {arg} (guard bytes at offset {offset} changed)")]
    BufferOverrun { arg: usize, offset: usize },
    #[error("bad call: {0}")]
    BadCall(String),
    /// The guest wrote over the memory the host shares with the harness (control block, call slots, instruction
    /// counter): `field` holds a value the harness would not have left there, so nothing read back is trusted.
    #[error("guest wrote over the harness's shared memory: {field} = {value:#x}")]
    CorruptControlBlock { field: &'static str, value: u64 },
}

#[derive(Debug, thiserror::Error)]
pub enum BackendError {
    #[error(transparent)]
    Elf(#[from] ElfError),
    #[error("{0}")]
    Unavailable(String),
    #[error("emulator failed to start: {0}")]
    Start(String),
}

/// Limits that make a misbehaving guest an error instead of a hang.
#[derive(Debug, Clone, Copy)]
pub struct Limits {
    /// Wall-clock budget of one batch of calls.
    pub timeout: Duration,
}

impl Default for Limits {
    fn default() -> Self {
        Self { timeout: Duration::from_secs(10) }
    }
}

/// An emulator that runs guest functions. Usable again after any error.
pub trait Backend: Send {
    fn name(&self) -> &'static str;
    /// Runs the calls in order; one result per call. A fault or timeout fails that call only, and so does a guest
    /// that writes over the shared memory: a batch found corrupted is run again one call at a time.
    fn run_batch(&mut self, calls: &[Call]) -> Vec<Result<CallOutput, CallError>>;
    fn call(&mut self, call: &Call) -> Result<CallOutput, CallError> {
        self.run_batch(std::slice::from_ref(call)).pop().expect("one result per call")
    }
    /// The caller prepares each batch while the guest runs the one before, on the same CPUs (a campaign's pipeline):
    /// a guest that finished a batch should soon sleep rather than poll for the next, which would take the CPU from
    /// the threads preparing it. Nothing to do for a backend whose guest does not wait between batches.
    fn expect_pipelined_batches(&mut self) {}
    /// The block profile file (`crate::profile`) of a backend opened to record one; none otherwise.
    fn block_profile(&mut self) -> Option<&mut [u8]> {
        None
    }
}

/// The backends the CLI knows. `Model` runs no object code: it checks the model against the reference.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, clap::ValueEnum)]
pub enum BackendKind {
    Model,
    Unicorn,
    Qemu,
}

impl BackendKind {
    pub const ALL: [BackendKind; 3] = [BackendKind::Model, BackendKind::Unicorn, BackendKind::Qemu];

    pub fn name(self) -> &'static str {
        match self {
            BackendKind::Model => "model",
            BackendKind::Unicorn => "unicorn",
            BackendKind::Qemu => "qemu",
        }
    }

    /// The image the backend runs unless told otherwise (none for the model).
    pub fn default_image(self) -> Option<Image> {
        match self {
            BackendKind::Model => None,
            BackendKind::Unicorn => Some(Image::M7),
            BackendKind::Qemu => Some(Image::M55),
        }
    }

    /// Every image this backend runs (none for the model).
    pub fn images(self) -> impl Iterator<Item = Image> {
        Image::ALL.into_iter().filter(move |i| i.backend() == self)
    }

    /// Whether the backend can run here, or why not.
    pub fn availability(self) -> Result<(), String> {
        match self {
            BackendKind::Qemu => qemu::find_qemu().map(|_| ()),
            _ => Ok(()),
        }
    }

    /// Opens an emulator of this kind on its default image.
    pub fn open(self, limits: Limits) -> Result<Box<dyn Backend>, BackendError> {
        self.open_image(self.default_image(), limits)
    }

    /// Opens an emulator of this kind on `image`; an image this emulator cannot run is refused.
    pub fn open_image(self, image: Option<Image>, limits: Limits) -> Result<Box<dyn Backend>, BackendError> {
        match image {
            None => Err(BackendError::Unavailable(format!("the {self} backend runs no object code"))),
            Some(image) if image.backend() != self => {
                Err(BackendError::Unavailable(format!("the {image} image runs on {}, not on {self}", image.backend())))
            }
            Some(image) => image.open(limits),
        }
    }
}

/// The guest images (`kernels/build.rs`): which compiler built them for which core, and the emulator that runs them.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Image {
    /// gcc, Cortex-M55 (FP64 + MVE), on QEMU mps3-an547.
    M55,
    /// clang, Cortex-M85, on the same QEMU Cortex-M55 model: the same instruction set, another compiler's code.
    M85,
    /// gcc, Cortex-M7 (FP64, no MVE), on unicorn.
    M7,
    /// A user's objects linked with our harness (`pqhelium link`), leaked so that an image stays `Copy`; its core
    /// (`cortex-m7` on unicorn, the others on QEMU) picks the emulator.
    User(&'static pqhelium_kernels::GuestImage),
}

/// `--image` names the built-in images only; a user's image comes from `--manifest`.
impl clap::ValueEnum for Image {
    fn value_variants<'a>() -> &'a [Self] {
        &Image::ALL
    }

    fn to_possible_value(&self) -> Option<clap::builder::PossibleValue> {
        match self {
            Image::User(_) => None,
            builtin => Some(clap::builder::PossibleValue::new(builtin.name())),
        }
    }
}

impl Image {
    pub const ALL: [Image; 3] = [Image::M55, Image::M85, Image::M7];

    pub fn name(self) -> &'static str {
        match self {
            Image::M55 => "m55",
            Image::M85 => "m85",
            Image::M7 => "m7",
            Image::User(guest) => guest.name,
        }
    }

    /// Our image built for `core` (gcc for the M55 and M7, clang for the M85).
    pub fn of(core: Core) -> Image {
        match core {
            Core::M55 => Image::M55,
            Core::M85 => Image::M85,
            Core::M7 => Image::M7,
        }
    }

    pub fn from_name(name: &str) -> Option<Image> {
        Image::ALL.into_iter().find(|i| i.name() == name)
    }

    /// The ELF and the core it is built for.
    pub fn guest(self) -> pqhelium_kernels::GuestImage {
        match self {
            Image::M55 => pqhelium_kernels::M55_IMAGE,
            Image::M85 => pqhelium_kernels::M85_IMAGE,
            Image::M7 => pqhelium_kernels::M7_IMAGE,
            Image::User(guest) => *guest,
        }
    }

    /// The core the image is built for. A user's image is linked only for a core pqhelium knows (`byo`).
    pub fn core(self) -> Core {
        match self {
            Image::M55 => Core::M55,
            Image::M85 => Core::M85,
            Image::M7 => Core::M7,
            Image::User(guest) => Core::from_cpu(guest.cpu).expect("a user image is linked for a known core"),
        }
    }

    /// The emulator that runs this image.
    pub fn backend(self) -> BackendKind {
        match self {
            Image::M55 | Image::M85 => BackendKind::Qemu,
            Image::M7 => BackendKind::Unicorn,
            Image::User(_) if self.core() == Core::M7 => BackendKind::Unicorn,
            Image::User(_) => BackendKind::Qemu,
        }
    }

    /// Whether this is the image its emulator runs unless told otherwise.
    pub fn is_default(self) -> bool {
        self.backend().default_image() == Some(self)
    }

    /// Whether the image has a kernel's symbol.
    pub fn has_symbol(self, symbol: &str) -> bool {
        crate::elf::GuestElf::parse(self.name(), self.guest().elf).is_ok_and(|elf| elf.has_symbol(symbol))
    }

    /// Opens the emulator of this image, loaded with it.
    pub fn open(self, limits: Limits) -> Result<Box<dyn Backend>, BackendError> {
        match self.backend() {
            BackendKind::Unicorn => Ok(Box::new(unicorn::UnicornBackend::open(&self.guest(), limits)?)),
            _ => Ok(Box::new(qemu::QemuBackend::open(&self.guest(), limits)?)),
        }
    }
}

impl fmt::Display for Image {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// The manifest each user image was linked from, by image name: what a reproduction command names.
static MANIFESTS: std::sync::Mutex<Vec<(String, std::path::PathBuf)>> = std::sync::Mutex::new(Vec::new());

/// Records that the user image `image` was linked from `manifest` (`pqhelium link`).
pub fn record_manifest(image: &str, manifest: &std::path::Path) {
    MANIFESTS.lock().unwrap().push((image.to_string(), manifest.to_path_buf()));
}

/// The manifest a user image (by name) was linked from in this process.
pub fn manifest_of(image: &str) -> Option<std::path::PathBuf> {
    MANIFESTS.lock().unwrap().iter().find(|(name, _)| name == image).map(|(_, path)| path.clone())
}

/// How campaigns and reports name where object code ran: the backend, and the image when it is not the backend's
/// default (`qemu`, `qemu (m85)`), so that what ran before the M85 image existed reads as it did.
pub fn target_label(backend: impl fmt::Display, image: Option<Image>) -> String {
    match image {
        Some(image) if !image.is_default() => format!("{backend} ({image})"),
        _ => backend.to_string(),
    }
}

impl fmt::Display for BackendKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

#[cfg(test)]
mod tests {
    use super::decode_cfsr;

    /// CFSR values built from the Armv8-M Architecture Reference Manual's bit positions, not from the table.
    #[test]
    fn cfsr_bits_are_named() {
        let cases = [
            (1 << 24, "unaligned access (UNALIGNED), CFSR 0x01000000"),
            (1 << 25, "division by zero (DIVBYZERO), CFSR 0x02000000"),
            (1 << 16, "undefined instruction (UNDEFINSTR), CFSR 0x00010000"),
            (1 << 19, "coprocessor, FPU or MVE instruction while it is disabled or absent (NOCP), CFSR 0x00080000"),
            (1 << 0, "instruction fetch from memory that does not permit execution (IACCVIOL), CFSR 0x00000001"),
        ];
        for (cfsr, text) in cases {
            assert_eq!(decode_cfsr(cfsr, 0, 0), text);
        }
        assert!(decode_cfsr(1 << 17, 0, 0).starts_with("invalid state (a branch to an address with bit 0 clear"));
        // DACCVIOL with MMARVALID: the address is MMFAR's; without it, none is claimed.
        assert_eq!(
            decode_cfsr(1 << 1 | 1 << 7, 0x2000_0003, 0),
            "data access to memory the MPU does not permit at 0x20000003 (DACCVIOL), CFSR 0x00000082"
        );
        assert_eq!(decode_cfsr(1 << 1, 0x2000_0003, 0).find("0x20000003"), None);
        // PRECISERR with BFARVALID, and two faults at once.
        assert_eq!(
            decode_cfsr(1 << 9 | 1 << 15 | 1 << 25, 0, 0x6000_0000),
            "precise data bus error at 0x60000000 (PRECISERR); division by zero (DIVBYZERO), CFSR 0x02008200"
        );
        assert_eq!(decode_cfsr(1 << 30, 0, 0), "reserved bits 0x40000000, CFSR 0x40000000");
        assert_eq!(decode_cfsr(0, 0, 0), "no fault status bit set, CFSR 0x00000000");
    }
}
