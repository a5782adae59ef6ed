//! pqhelium-core: the reference algorithms in plain Rust, no emulator: Keccak and SHA-3/SHAKE, ML-KEM, X25519,
//! X-Wing, the NIST KAT DRBG and FN-DSA. Every scheme is generic over kernel providers (one trait per family), with
//! the reference as the default provider, so that the same scheme code runs with a model or object code in the loop.
//!
//! ```
//! // FIPS 202's SHA3-256 of the empty string.
//! let digest = pqhelium_core::keccak::sha3_256(b"");
//! assert_eq!(digest[..4], [0xa7, 0xff, 0xc6, 0xf8]);
//! ```

pub mod drbg;
pub mod fndsa;
pub mod host_simd;
pub mod keccak;
pub mod mlkem;
pub mod rsp;
pub mod x25519;
pub mod xwing;
