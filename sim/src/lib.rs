//! pqhelium-sim: models of the Cortex-M kernels, each in its kernel's own data layout, lanes and order of
//! operations (lazy reductions, FP64 order), written with an MVE instruction model ([`mve`]); the bounds proofs of
//! each family, the steps whose bound coverage is reported ([`coverage`]) and exact corner-case solvers.
//!
//! ```
//! use pqhelium_sim::keccak::{deinterleave, interleave, keccak_f1600_interleaved};
//!
//! // The bit-interleaved permutation agrees with the reference on standard lanes.
//! let mut lanes = [0u64; 25];
//! let mut words = interleave(&lanes);
//! keccak_f1600_interleaved(&mut words);
//! pqhelium_core::keccak::keccak_f1600(&mut lanes);
//! assert_eq!(deinterleave(&words), lanes);
//! ```

pub mod corner_search;
pub mod coverage;
pub mod fndsa_ntt;
pub mod fxp_div;
pub mod fxp_fft;
pub mod keccak;
pub mod keccak_x4;
pub mod mlkem_ntt;
pub mod mlkem_poly;
pub mod mve;
pub mod rounding;
pub mod x25519_fe;
pub mod x25519_steps;
