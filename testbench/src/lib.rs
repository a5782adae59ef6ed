//! pqhelium-testbench: runs Cortex-M kernels under emulators and checks them, byte for byte, against their models
//! and the reference algorithms.
//!
//! - [`elf`]: guest images, validated before an emulator sees them;
//! - [`backend`]: the emulators (unicorn in process, QEMU worker processes) behind one trait;
//! - [`registry`]: one contract per kernel;
//! - [`diff`]: the differential engine behind `pqhelium fuzz` and `pqhelium check`;
//! - [`kat`]: known-answer tests from `vectors/`.

pub mod backend;
pub mod diff;
pub mod elf;
pub mod kat;
pub mod registry;
