//! pqhelium-sim: models of the Cortex-M kernels, each in its kernel's own data layout, lanes and order of
//! operations (lazy reductions, FP64 order), written with an MVE instruction model ([`mve`]); the bounds proofs of
//! each family, the steps whose bound coverage is reported ([`coverage`]) and exact corner-case solvers.
//!
//! The models state their constants themselves or derive them from first principles (the Keccak round constants
//! from the LFSR, the twiddles from the generator or from pi, the fixed-base table by the model's own curve
//! arithmetic); the crate takes nothing from the reference (`pqhelium-core`), and `sim/tests/independent_constants.rs`
//! compares every such constant with the reference's, so a wrong one on either side fails. The C kernels' tables are
//! rendered from these constants ([`tables`]).
//!
//! ```
//! use pqhelium_sim::keccak::{deinterleave, interleave, keccak_f1600_interleaved};
//!
//! // The bit-interleaved permutation of the zero state: lane 0 of FIPS 202's Keccak-f[1600] of zero.
//! let mut words = interleave(&[0u64; 25]);
//! keccak_f1600_interleaved(&mut words);
//! assert_eq!(deinterleave(&words)[0], 0xF125_8F79_40E1_DDE7);
//! ```

pub mod corner_search;
pub mod coverage;
pub mod fndsa_ntt;
pub mod fxp;
pub mod fxp_div;
pub mod fxp_fft;
pub mod keccak;
pub mod keccak_x4;
pub mod keygen_primes;
pub mod mlkem_ntt;
pub mod mlkem_poly;
pub mod mve;
pub mod rounding;
pub mod tables;
pub mod trig;
pub mod x25519_fe;
pub mod x25519_steps;
