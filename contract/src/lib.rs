//! pqhelium-contract: what a kernel promises, as data, and the vocabulary every kernel family is written in.
//!
//! A contract is a [`Description`] (every argument in AAPCS order with its element type, length, direction, input
//! and output bounds, representation, storage order and secrecy) and a [`Behaviour`] (edge and corner cases first,
//! then random cases, each from (seed, case index) alone; the reference; for kernels checked three ways the model and
//! the canonicalisation between the two). A [`Kernel`] joins the two; [`check`] holds the host-side checks of one
//! case.
//!
//! ```
//! use pqhelium_contract::{Contract, Kernel, case_rng};
//! # fn any_kernel() -> Kernel { unimplemented!() }
//! # if false {
//! let kernel: Kernel = any_kernel();
//! let args = kernel.generate(0, &mut case_rng(7, 0));
//! let (expected, failure) = pqhelium_contract::check_model(&kernel, &args);
//! assert!(failure.is_none(), "{}: {failure:?}", kernel.id);
//! # let _ = expected;
//! # }
//! ```

pub mod check;
mod description;
mod glob;
mod kernel;

pub use check::{Difference, Failure, check_model, compare};
pub use description::*;
pub use glob::{Glob, glob_match};
pub use kernel::*;
