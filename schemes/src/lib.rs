//! pqhelium-schemes: whole schemes with our kernels in the loop. The [`providers`] serve a scheme's kernel calls
//! from the models or from object code on an emulator, checking every call against its contract; [`kat`] runs the
//! known-answer suites with any provider; [`on_guest`] runs whole schemes on the guest through the pqm4 API;
//! [`operations`] estimates the cycles of whole operations; [`scheme_bench`] times our schemes against the oracle
//! crates.
//!
//! ```no_run
//! use pqhelium_schemes::kat::{self, Extent, Provider};
//!
//! let run = kat::run("mlkem768", Provider::Qemu, Extent::All);
//! assert!(run.passed());
//! ```

pub mod fndsa_on_guest;
pub mod kat;
pub mod kat_whole;
pub mod on_guest;
pub mod operations;
pub mod providers;
pub mod scheme_bench;
pub mod scheme_ct;
pub mod signature_ct;
