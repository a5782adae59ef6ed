//! pqhelium-analyses: what pqhelium says about object code beyond its outputs: constant-time evidence ([`ct`]),
//! cycle estimates for the Cortex-M55 and M85 ([`cycles`]), the lint of UNDEFINED and UNPREDICTABLE encodings
//! ([`lint`]) and the architecture an object says it was built for ([`attributes`]).
//!
//! ```no_run
//! use pqhelium_analyses::ct::{self, Tracer};
//! use pqhelium_guest::backend::{Image, Limits};
//!
//! let kernel = pqhelium_families::find("mlkem.ntt.fwd").unwrap();
//! let mut tracer = Tracer::open(Image::M55, Limits::default())?;
//! let report = ct::check_kernel(&mut tracer, kernel, 7, 0..100);
//! println!("{:?}", ct::judge(&report, Image::M55));
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

pub mod attributes;
pub mod ct;
pub mod cycles;
pub mod lint;
