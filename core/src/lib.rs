//! Reference algorithms in plain Rust, no emulator.

pub mod drbg;
pub mod fndsa;
pub mod keccak;
pub mod mlkem;
pub mod rsp;
pub mod x25519;
pub mod xwing;
