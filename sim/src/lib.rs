//! Semantic models of the Cortex-M kernels.

pub mod keccak;
pub mod mve;
