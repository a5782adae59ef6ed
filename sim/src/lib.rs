//! Semantic models of the Cortex-M kernels.

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
