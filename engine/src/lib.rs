//! pqhelium-engine: differential campaigns. Every case of a kernel is run by the reference, the model and the
//! object code (on any backend), compared byte for byte with the contract enforced, shrunk to a minimal
//! counterexample when it fails, and recorded in reports that resume, shard and merge.
//!
//! ```no_run
//! use pqhelium_engine::diff::{self, Campaign};
//! use pqhelium_guest::backend::BackendKind;
//!
//! let kernel = pqhelium_families::find("mlkem.ntt.fwd").unwrap();
//! let result = diff::run(&Campaign::new(kernel, BackendKind::Qemu, 7, 10_000, 2));
//! assert!(result.passed());
//! ```
//!
//! - [`diff`]: the differential engine behind `pqhelium fuzz` and `pqhelium check`;
//! - [`shrink`]: minimal counterexamples;
//! - [`coverage`]: bound coverage of each reduction and rounding step;
//! - [`ranges`], [`shard`]: case bookkeeping, campaigns split across machines;
//! - [`report`]: JSON reports (also the checkpoint of a campaign) and JUnit XML.

pub mod coverage;
pub mod diff;
pub mod ranges;
pub mod report;
pub mod shard;
pub mod shrink;
