//! Cycle estimates for the Cortex-M55 and Cortex-M85 without a board (`pqhelium cycles`).
//!
//! The QEMU plugin records how often each translated block ran in the calls and which block followed which
//! ([`profile`]); LLVM's scheduling models of the two cores, written by Arm, give each block's cycles after the block
//! before it ([`mca`], llvm-mca-19 on the block's disassembly, cached per image and core); [`model`] adds what those
//! models leave out (taken branches, mispredictions, low-overhead loops). What is modelled and the measured error on
//! the calibration kernels: docs/cycles.md.

pub mod calibration;
pub mod mca;
pub mod model;
pub mod plot;
pub mod profile;

use anyhow::{Context, Result, bail};

use crate::backend::qemu::QemuBackend;
use crate::backend::{Arg, Backend, Call, Limits};
use crate::elf::GuestElf;
pub use mca::Core;
pub use model::{Class, Estimate};

/// A profiled QEMU worker on a core's image, with the image's disassembly and llvm-mca for the core.
pub struct Estimator {
    pub core: Core,
    backend: QemuBackend,
    elf: GuestElf,
    disassembly: mca::Disassembly,
    mca: mca::Mca,
}

impl Estimator {
    pub fn new(core: Core) -> Result<Self> {
        Self::on_image(core, core.image())
    }

    /// An estimator on another image built for `core` (a user's, `--manifest`).
    pub fn on_image(core: Core, image: crate::backend::Image) -> Result<Self> {
        let image = image.guest();
        // llvm-mca first: without it nothing can be estimated, and the error says what to install.
        let mca = mca::Mca::new(core, image.elf)?;
        let disassembly = mca::Disassembly::of_image(image.elf)?;
        let elf = GuestElf::parse(image.name, image.elf)?;
        let backend = QemuBackend::open_profiled(&image, Limits { timeout: std::time::Duration::from_secs(600) })?;
        Ok(Self { core, backend, elf, disassembly, mca })
    }

    pub fn has_symbol(&self, symbol: &str) -> bool {
        self.elf.has_symbol(symbol)
    }

    /// Runs `symbol` once per argument list (one batch), and estimates the average call. The instructions the
    /// profile holds must be the ones the harness counted.
    pub fn estimate(&mut self, symbol: &str, cases: &[Vec<Arg>]) -> Result<Estimate> {
        if cases.is_empty() {
            bail!("no calls to profile");
        }
        let calls: Vec<Call> = cases.iter().map(|args| Call::new(symbol, args.clone())).collect();
        profile::reset(self.backend.profile_mut().context("the QEMU worker has no block profile")?);
        let mut counted = 0u64;
        for result in self.backend.run_batch(&calls) {
            counted += result.with_context(|| format!("{symbol} on the {} image", self.elf.name))?.instructions;
        }
        let profile = profile::read(self.backend.profile_mut().context("the QEMU worker has no block profile")?)?;
        if profile.instructions() != counted {
            bail!("block profile of {symbol}: {} instructions, the harness counted {counted}", profile.instructions());
        }
        model::estimate(self.core, &profile, calls.len() as u64, &self.disassembly, &mut self.mca, &self.elf)
    }
}
