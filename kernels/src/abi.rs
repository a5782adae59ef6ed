//! Mirror of `arm/harness/pqh_abi.h`: the host<->guest exchange in the DDR window. The guest writes
//! `ABI_VERSION` at boot and the host checks it, so the two cannot drift apart silently.

pub const ABI_VERSION: u32 = 5;
pub const MAGIC: u32 = 0x5051_4845;

pub const DDR_BASE: u32 = 0x6000_0000;
pub const ICOUNT_OFFSET: u32 = 0x0000;
pub const CTRL_OFFSET: u32 = 0x1000;
pub const CALLS_OFFSET: u32 = 0x2000;
pub const MAX_CALLS: usize = 256;
pub const ARENA_OFFSET: u32 = 0x1_0000;
pub const ARENA_SIZE: u32 = 16 << 20;
/// Bytes of the DDR window the host uses (counter, control, calls, arena).
pub const WINDOW_SIZE: usize = (ARENA_OFFSET + ARENA_SIZE) as usize;

pub const STATUS_OK: u32 = 0;
pub const STATUS_FAULT: u32 = 1;
/// The call did not preserve sp or a callee-saved register; `ctrl::VIOLATION_*` say which.
pub const STATUS_CONVENTION: u32 = 2;

/// Register codes in `ctrl::VIOLATION_REG`: core registers by number (r4-r11, sp), `d<n>` as `REG_D0 + n`.
pub const REG_SP: u32 = 13;
pub const REG_D0: u32 = 32;

/// `struct pqh_call`: 128 bytes.
pub const CALL_SIZE: usize = 128;
pub mod call {
    pub const FN: usize = 0;
    pub const REPEAT: usize = 4;
    pub const IARGS: usize = 8;
    pub const DARGS: usize = 40;
    pub const R0: usize = 104;
    pub const R1: usize = 108;
    pub const D0: usize = 112;
    pub const ICOUNT: usize = 120;
}

/// `struct pqh_ctrl`: word offsets.
pub mod ctrl {
    pub const MAGIC: usize = 0;
    pub const ABI_VERSION: usize = 4;
    pub const REQUEST_SEQ: usize = 8;
    pub const DONE_SEQ: usize = 12;
    pub const NCALLS: usize = 16;
    pub const STATUS: usize = 20;
    pub const CURRENT_CALL: usize = 24;
    pub const FAULT_EXC: usize = 28;
    pub const FAULT_PC: usize = 32;
    pub const FAULT_LR: usize = 36;
    pub const FAULT_XPSR: usize = 40;
    pub const CFSR: usize = 44;
    pub const HFSR: usize = 48;
    pub const MMFAR: usize = 52;
    pub const BFAR: usize = 56;
    pub const SFSR: usize = 60;
    pub const ASLEEP: usize = 64;
    pub const VIOLATION_REG: usize = 68;
    /// u64: the register's value before the call and after it.
    pub const VIOLATION_BEFORE: usize = 72;
    pub const VIOLATION_AFTER: usize = 80;
    /// The seal of the results of every call completed in the batch (`seal_call`).
    pub const RESULTS_SEAL: usize = 88;
    /// How many times the guest polls for the next batch before it sleeps (at most [`super::IDLE_POLLS_MAX`]).
    pub const IDLE_POLLS: usize = 92;
}

/// The most polls the harness makes for the next batch (`PQH_IDLE_POLLS_MAX`): a few hundred microseconds of
/// emulated time.
pub const IDLE_POLLS_MAX: u32 = 20_000;

/// `struct pqh_ctrl`: 128 bytes.
pub const CTRL_SIZE: usize = 128;

/// The seal in `ctrl::RESULTS_SEAL` before the first call: 32-bit FNV-1a over words.
pub const SEAL_INIT: u32 = 0x811C_9DC5;
const SEAL_PRIME: u32 = 0x0100_0193;

/// Adds call `index`'s results to `seal`, as the harness does after each call it completes.
pub fn seal_call(seal: u32, index: u32, r0: u32, r1: u32, d0: u64, icount: u64) -> u32 {
    let words = [index, r0, r1, d0 as u32, (d0 >> 32) as u32, icount as u32, (icount >> 32) as u32];
    words.iter().fold(seal, |seal, &word| (seal ^ word).wrapping_mul(SEAL_PRIME))
}

/// The canary `pqh_invoke` loads into core register `r<n>` (n in 4..=11) before each call (`arm/harness/pqh_invoke.h`).
pub const fn core_canary(n: u32) -> u32 {
    0xC0C0_C0C0 + 0x0101_0101 * n
}

/// The canary in each word of `d<n>` (n in 8..=15).
pub const fn fp_canary(n: u32) -> u32 {
    0xD0D0_D0D0 + 0x0101_0101 * n
}
