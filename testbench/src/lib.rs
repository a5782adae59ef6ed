//! pqhelium-testbench: runs Cortex-M kernels under emulators and checks them, byte for byte, against their models
//! and the reference algorithms.
//!
//! - [`elf`]: guest images, validated before an emulator sees them;
//! - [`backend`]: the emulators (unicorn in process, QEMU worker processes) behind one trait;
//! - [`ct`]: constant-time evidence: leakage traces of the object code compared over pairs of secret inputs;
//! - [`registry`]: one contract per kernel;
//! - [`diff`]: the differential engine behind `pqhelium fuzz` and `pqhelium check`;
//! - [`kat`]: known-answer tests from `vectors/`, with any kernel provider;
//! - [`providers`]: the kernel providers of the schemes from the models and from object code (kernels in the loop);
//! - [`report`]: JSON reports (also the checkpoint of a campaign) and JUnit XML;
//! - [`ranges`], [`shard`], [`shrink`]: case bookkeeping, campaigns split across machines, minimal counterexamples;
//! - [`affinity`]: `--pin`, a CPU of its own for each emulator worker.

pub mod affinity;
pub mod backend;
pub mod byo;
pub mod coverage;
pub mod ct;
pub mod cycles;
pub mod diff;
pub mod elf;
pub mod fuzzing;
pub mod kat;
pub mod lint;
pub mod providers;
pub mod ranges;
pub mod registry;
pub mod report;
pub mod scheme_bench;
pub mod shard;
pub mod shrink;
