//! The library API for a kernel author's own tests: load a manifest (README "Check your own kernel",
//! `docs/byo.md`), run the differential and the constant-time check of each of its symbols, and read typed reports.
//! `pqhelium check --manifest` runs [`Kernels::check`] and prints its report.
//!
//! ```no_run
//! use pqhelium::author::{Kernels, Options};
//!
//! // Builds, lints and links the manifest's sources for its core, then checks each symbol against its contract.
//! let kernels = Kernels::load("kernels.toml".as_ref()).expect("the manifest builds");
//! let report = kernels.check(&Options { cases: 500, ..Options::default() });
//! for kernel in &report.kernels {
//!     assert_eq!(kernel.cases(), 500, "{}", kernel.symbol());
//!     assert_eq!(kernel.mismatches(), 0, "{:?}", kernel.first_failure());
//! }
//! assert!(report.passed());
//!
//! // Constant time: 8 pairs of runs that differ only in the secret arguments, their traces equal.
//! for kernel in kernels.constant_time(1, 8).expect("the tracer starts") {
//!     assert!(matches!(kernel.verdict, pqhelium::author::Verdict::ConstantTime), "{:?}", kernel.leaks);
//! }
//! ```

use std::path::Path;

use pqhelium_analyses::ct::{self, Tracer};
use pqhelium_byo::{self as byo, Loaded};
use pqhelium_engine::diff::{self, Campaign};
use pqhelium_guest::backend::Limits;

/// The types of a report's campaigns and counterexamples.
pub use pqhelium_analyses::ct::{KernelReport as CtReport, Verdict};
pub use pqhelium_engine::diff::{CampaignResult, CaseFailure, Difference, Failure};

/// How many cases a check runs and from which seed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Options {
    /// Cases per symbol: its contract's edge cases first, then random ones.
    pub cases: u64,
    /// The seed every case is drawn from: the same seed, the same cases.
    pub seed: u64,
    /// Worker threads, each with its own emulator.
    pub jobs: usize,
}

impl Default for Options {
    /// `pqhelium check`'s defaults: 2000 cases from seed 1 on one thread.
    fn default() -> Self {
        Options { cases: 2000, seed: 1, jobs: 1 }
    }
}

/// A manifest's kernels, built, linted and linked into an image for its core.
pub struct Kernels {
    loaded: Loaded,
}

impl Kernels {
    /// Builds, lints and links the manifest's sources (paths in it are relative to it). The error says what was
    /// wrong: the manifest, a compiler message, a lint finding, an unknown contract or symbol.
    pub fn load(manifest: &Path) -> Result<Kernels, String> {
        byo::load(manifest, None).map(|loaded| Kernels { loaded })
    }

    /// Kernels of a manifest already loaded (with [`byo::load_with`]'s options, such as lint rules let through).
    pub fn from_loaded(loaded: Loaded) -> Kernels {
        Kernels { loaded }
    }

    /// The manifest's build, as `pqhelium` loads it.
    pub fn loaded(&self) -> &Loaded {
        &self.loaded
    }

    /// A differential campaign of each symbol on the image: its object code run on the core's emulator, each
    /// output compared with the contract's reference, the first failure shrunk.
    pub fn check(&self, options: &Options) -> Report {
        let image = self.loaded.image;
        let kernels = self
            .loaded
            .kernels
            .iter()
            .zip(&self.loaded.contracts)
            .map(|(&kernel, contract)| {
                let campaign = Campaign {
                    image: Some(image),
                    ..Campaign::new(kernel, image.backend(), options.seed, options.cases, options.jobs)
                };
                KernelReport { contract: contract.clone(), campaign: diff::run(&campaign) }
            })
            .collect();
        Report { kernels }
    }

    /// `pqhelium ct` on each symbol: pairs `0..pairs` from `seed`, each two runs that differ only in the contract's
    /// secret arguments, their traces compared on the manifest's core. A symbol is constant time when its
    /// [`CtReport::verdict`] is [`Verdict::ConstantTime`] with no fault; a leak names its source line (build with
    /// `-g`) or `symbol+offset`. The error: the tracer could not start.
    pub fn constant_time(&self, seed: u64, pairs: u64) -> Result<Vec<CtReport>, String> {
        let mut tracer = Tracer::open(self.loaded.image, Limits::default()).map_err(|e| e.to_string())?;
        Ok(self.loaded.kernels.iter().map(|&kernel| ct::check_kernel(&mut tracer, kernel, seed, 0..pairs)).collect())
    }
}

/// The outcome of [`Kernels::check`]: one entry per symbol, in the manifest's order.
#[derive(Debug)]
pub struct Report {
    pub kernels: Vec<KernelReport>,
}

impl Report {
    /// Every symbol ran every case with no mismatch, fault or setup error.
    pub fn passed(&self) -> bool {
        self.kernels.iter().all(KernelReport::passed)
    }

    /// The entry of a symbol.
    pub fn kernel(&self, symbol: &str) -> Option<&KernelReport> {
        self.kernels.iter().find(|k| k.symbol() == symbol)
    }
}

/// One symbol's campaign.
#[derive(Debug)]
pub struct KernelReport {
    /// The contract it was checked against.
    pub contract: String,
    /// The whole campaign, as the command line prints it.
    pub campaign: CampaignResult,
}

impl KernelReport {
    pub fn symbol(&self) -> &str {
        self.campaign.kernel
    }

    /// Cases run.
    pub fn cases(&self) -> u64 {
        self.campaign.cases_run()
    }

    /// Cases whose output differed from the reference.
    pub fn mismatches(&self) -> usize {
        self.campaign.mismatches()
    }

    /// Cases whose call faulted (or broke a bound of the contract).
    pub fn faults(&self) -> usize {
        self.campaign.faults()
    }

    /// The first failing case: its number, its input (and shrunk input), and the failure, which for a mismatch
    /// names the first differing place with the reference's and the object code's values there.
    pub fn first_failure(&self) -> Option<&CaseFailure> {
        self.campaign.failures.first()
    }

    pub fn passed(&self) -> bool {
        self.campaign.passed()
    }
}
