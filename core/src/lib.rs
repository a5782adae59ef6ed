//! Reference algorithms in plain Rust, no emulator.

pub mod keccak;
