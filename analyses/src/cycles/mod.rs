//! Cycle estimates for the Cortex-M55 and Cortex-M85 without a board (`pqhelium cycles`).
//!
//! The QEMU plugin records how often each translated block ran in the calls and which block followed which
//! ([`pqhelium_guest::profile`]); LLVM's scheduling models of the two cores, written by Arm, give each block's cycles after the block
//! before it ([`mca`], llvm-mca-19 on the block's disassembly, cached per image and core); [`model`] adds what those
//! models leave out (taken branches, mispredictions, low-overhead loops). What is modelled and the measured error on
//! the calibration kernels: docs/cycles.md.

pub mod calibration;
pub mod mca;
pub mod model;
pub mod plot;

use anyhow::{Context, Result, bail};

pub use model::{Class, Estimate};
pub use pqhelium_guest::backend::Core;
use pqhelium_guest::backend::qemu::QemuBackend;
use pqhelium_guest::backend::{Arg, Backend, Call, Image, Limits};
use pqhelium_guest::elf::GuestElf;
use pqhelium_guest::profile;

/// The cores whose cycles are estimated: those with an LLVM scheduling model and the terms of [`model`].
pub const CORES: [Core; 2] = [Core::M55, Core::M85];

/// The timing side of an estimate: a core's image, its disassembly and llvm-mca for the core.
pub struct Timing {
    pub core: Core,
    elf: GuestElf,
    disassembly: mca::Disassembly,
    mca: mca::Mca,
}

impl Timing {
    pub fn new(core: Core) -> Result<Self> {
        Self::on_image(core, Image::of(core))
    }

    /// The timing of another image built for `core` (a user's, `--manifest`).
    pub fn on_image(core: Core, image: Image) -> Result<Self> {
        if !CORES.contains(&core) {
            bail!("no cycle model for the Cortex-{}: cycles are estimated for the M55 and the M85", &core.name()[1..]);
        }
        let image = image.guest();
        // llvm-mca first: without it nothing can be estimated, and the error says what to install.
        let mca = mca::Mca::new(core, image.elf)?;
        let disassembly = mca::Disassembly::of_image(image.elf)?;
        let elf = GuestElf::parse(image.name, image.elf)?;
        Ok(Self { core, elf, disassembly, mca })
    }

    pub fn has_symbol(&self, symbol: &str) -> bool {
        self.elf.has_symbol(symbol)
    }

    /// The estimate of the average of `calls` calls that ran `profile` on this core's image.
    pub fn estimate(&mut self, profile: &profile::Profile, calls: u64) -> Result<Estimate> {
        model::estimate(self.core, profile, calls, &self.disassembly, &mut self.mca, &self.elf)
    }
}

/// A profiled QEMU worker on a core's image, with the [`Timing`] of the core.
pub struct Estimator {
    pub core: Core,
    backend: QemuBackend,
    timing: Timing,
}

impl Estimator {
    pub fn new(core: Core) -> Result<Self> {
        Self::on_image(core, Image::of(core))
    }

    /// An estimator on another image built for `core` (a user's, `--manifest`).
    pub fn on_image(core: Core, image: Image) -> Result<Self> {
        let timing = Timing::on_image(core, image)?;
        let backend =
            QemuBackend::open_profiled(&image.guest(), Limits { timeout: std::time::Duration::from_secs(600) })?;
        Ok(Self { core, backend, timing })
    }

    pub fn has_symbol(&self, symbol: &str) -> bool {
        self.timing.has_symbol(symbol)
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
            counted += result.with_context(|| format!("{symbol} on the {} image", self.timing.elf.name))?.instructions;
        }
        let profile = profile::read(self.backend.profile_mut().context("the QEMU worker has no block profile")?)?;
        if profile.instructions() != counted {
            bail!("block profile of {symbol}: {} instructions, the harness counted {counted}", profile.instructions());
        }
        self.timing.estimate(&profile, calls.len() as u64)
    }
}

/// One estimator per core, opened on first use, for a cycles column beside an instructions column (`bench`,
/// `check`): one profiled call per estimate, llvm-mca's results cached per image. A core whose estimator cannot
/// start (no llvm-mca-19) gets an empty column and one warning.
#[derive(Default)]
pub struct Estimators(std::collections::HashMap<Core, Option<Estimator>>);

impl Estimators {
    /// Estimated cycles of `symbol` on `args` on the core `image` was built for (none for the M7 image).
    pub fn cycles(&mut self, image: Image, symbol: &str, args: &[Arg]) -> Option<f64> {
        self.estimate(image, symbol, args).map(|estimate| estimate.cycles)
    }

    /// The whole estimate of one call of `symbol` on `args` (cycles by instruction class, blocks).
    pub fn estimate(&mut self, image: Image, symbol: &str, args: &[Arg]) -> Option<Estimate> {
        let core = CORES.into_iter().find(|&c| Image::of(c) == image)?;
        let estimator = self.0.entry(core).or_insert_with(|| {
            Estimator::new(core).map_err(|e| eprintln!("no cycle estimates for {core}: {e:#}")).ok()
        });
        match estimator.as_mut()?.estimate(symbol, &[args.to_vec()]) {
            Ok(estimate) => Some(estimate),
            Err(e) => {
                eprintln!("no cycle estimate for {symbol} on {core}: {e:#}");
                None
            }
        }
    }
}
