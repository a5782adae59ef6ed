//! The guest side of pqhelium: Cortex-M kernels and the harness firmware, built by `build.rs` with
//! `arm-none-eabi-gcc` (and `clang-19` for the Cortex-M85) into three ELF images, plus the QEMU TCG plugin that
//! counts instructions.
//!
//! The images are embedded in this crate, so the testbench needs nothing at run time but QEMU itself.

pub mod abi;

/// A guest image and the emulator it is built for.
#[derive(Debug, Clone, Copy)]
pub struct GuestImage {
    pub name: &'static str,
    pub cpu: &'static str,
    pub elf: &'static [u8],
}

/// Cortex-M55 (FP64 + MVE), built by gcc, for QEMU `mps3-an547`.
pub const M55_IMAGE: GuestImage = GuestImage {
    name: "pqhelium-m55",
    cpu: "cortex-m55",
    elf: include_bytes!(concat!(env!("OUT_DIR"), "/pqhelium-m55.elf")),
};

/// Cortex-M85, built by clang from the same sources (gcc 12 knows no M85), for the same QEMU `mps3-an547` model:
/// the M85 and M55 share the Armv8.1-M + MVE instruction set; timing and PACBTI are not modelled.
pub const M85_IMAGE: GuestImage = GuestImage {
    name: "pqhelium-m85",
    cpu: "cortex-m85",
    elf: include_bytes!(concat!(env!("OUT_DIR"), "/pqhelium-m85.elf")),
};

/// Cortex-M7 (FP64, no MVE), for unicorn, whose QEMU 5.0 has no M55.
pub const M7_IMAGE: GuestImage = GuestImage {
    name: "pqhelium-m7",
    cpu: "cortex-m7",
    elf: include_bytes!(concat!(env!("OUT_DIR"), "/pqhelium-m7.elf")),
};

/// The QEMU TCG plugin (host shared object) that counts executed instructions into shared memory.
pub const ICOUNT_PLUGIN: &[u8] = include_bytes!(concat!(env!("OUT_DIR"), "/libpqh_icount.so"));

/// The QEMU TCG plugin that builds leakage traces (`pqhelium ct`) into a host file the guest cannot see.
pub const TRACE_PLUGIN: &[u8] = include_bytes!(concat!(env!("OUT_DIR"), "/libpqh_trace.so"));
