//! The guest side of pqhelium: Cortex-M kernels and the harness firmware, built by `build.rs` with
//! `arm-none-eabi-gcc` into two ELF images, plus the QEMU TCG plugin that counts instructions.
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

/// Cortex-M55 (FP64 + MVE), for QEMU `mps3-an547`. Cortex-M85 code runs here too: same instruction set.
pub const M55_IMAGE: GuestImage = GuestImage {
    name: "pqhelium-m55",
    cpu: "cortex-m55",
    elf: include_bytes!(concat!(env!("OUT_DIR"), "/pqhelium-m55.elf")),
};

/// Cortex-M7 (FP64, no MVE), for unicorn, whose QEMU 5.0 has no M55.
pub const M7_IMAGE: GuestImage = GuestImage {
    name: "pqhelium-m7",
    cpu: "cortex-m7",
    elf: include_bytes!(concat!(env!("OUT_DIR"), "/pqhelium-m7.elf")),
};

/// The QEMU TCG plugin (host shared object) that counts executed instructions into shared memory.
pub const ICOUNT_PLUGIN: &[u8] = include_bytes!(concat!(env!("OUT_DIR"), "/libpqh_icount.so"));
