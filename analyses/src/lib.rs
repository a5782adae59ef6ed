//! pqhelium-analyses: what pqhelium says about object code beyond its outputs: constant-time evidence ([`ct`]),
//! cycle estimates for the Cortex-M55 and M85 ([`cycles`]) and the lint of UNDEFINED and UNPREDICTABLE encodings
//! ([`lint`]).
//!
//! ```no_run
//! use pqhelium_analyses::ct;
//! use pqhelium_guest::backend::Image;
//!
//! let kernel = pqhelium_families::find("ct.fixture.table_lookup").unwrap();
//! let report = ct::check_kernel(kernel, Image::M55, 100, 1, None)?;
//! println!("{:?}", ct::judge(&report, Image::M55));
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

pub mod ct;
pub mod cycles;
pub mod lint;
