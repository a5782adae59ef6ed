//! FN-DSA as in Pornin's v0.4 (crate `fn-dsa` 0.4.0, tracking the FIPS 206 draft): arithmetic modulo q, encodings,
//! hash-to-point, key generation (fixed-point NTRU solver), signing (FP64 kernels, Gaussian sampler) and signature
//! verification.

use crate::keccak::ReferencePermutation;

pub mod codec;
pub mod fpu;
pub mod hash;
pub mod keygen;
pub mod ntt;
pub mod sampler;
pub mod sign;
pub mod verify;

pub use codec::{
    Signature, SigningKeyParts, decode_signing_key, encode_signing_key, signature_size, signing_key_size,
    verifying_key_size,
};
pub use fpu::FpuKernels;
pub use hash::{HashId, compute_mu, compute_mu_with, hash_to_point, hash_to_point_with, hash_verifying_key};
pub use keygen::{FxpKernels, KeyPair, encoded_keygen_from_seed, keygen, keygen_from_seed};
pub use ntt::{NttKernels, Reference};
pub use sign::SigningKey;
pub use verify::VerifyingKey;

/// The kernel families FN-DSA calls out to, one provider each: NTT modulo q, the signing FP64 kernels, the key
/// generation fixed-point kernels and the Keccak permutation. core holds a reference for each; the testbench plugs
/// in models and emulated object code. Key generation and signing take `&mut Kernels<..>` and reach every kernel of
/// those families through it, so one swapped provider changes exactly its own part of the computation.
#[derive(Clone, Debug, Default)]
pub struct Kernels<N, F, X, P> {
    pub ntt: N,
    pub fpu: F,
    pub fxp: X,
    pub keccak: P,
}

/// The reference provider of every family: what key generation and signing use unless something is plugged in.
pub type ReferenceKernels = Kernels<ntt::Reference, fpu::Reference, keygen::FxpReference, ReferencePermutation>;

/// Smallest and largest degrees (as logn) of the encodings and of verification.
pub const MIN_LOGN: u32 = 2;
pub const MAX_LOGN: u32 = 10;

/// Largest |coefficient| of s1 and s2 in a valid signature (the infinity-norm bound B_inf of v0.4).
pub const B_INF: u32 = 840;

/// floor(beta^2): the largest accepted squared norm of (s1, s2), by logn (fn-dsa-comm 0.4.0 `mq::SQBETA`).
pub const SQBETA: [u32; 11] =
    [0, 101498, 208714, 428865, 892039, 1852696, 3842630, 7959734, 16468416, 34034726, 70265242];

/// Why an FN-DSA encoding, hash input or signature was rejected.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum Error {
    #[error("empty encoding")]
    Empty,
    #[error("verifying-key header byte {0:#04x}: expected 0x00 + logn")]
    VerifyingKeyHeader(u8),
    #[error("signature header byte {got:#04x}: expected {expected:#04x} (0x30 + logn)")]
    SignatureHeader { got: u8, expected: u8 },
    #[error("logn {0} unsupported: expected {MIN_LOGN}..={MAX_LOGN}")]
    UnsupportedDegree(u32),
    #[error("encoding is {got} bytes: expected {expected}")]
    Length { got: usize, expected: usize },
    #[error("coefficient {index} is {value}: not below q = 12289")]
    CoefficientNotReduced { index: usize, value: u16 },
    #[error("compressed coefficient {index} is '-0'")]
    NegativeZero { index: usize },
    #[error("compressed coefficient {index} has magnitude at least {magnitude}, above B_inf = 840")]
    CoefficientTooLarge { index: usize, magnitude: u32 },
    #[error("compressed data ends inside coefficient {index}")]
    Truncated { index: usize },
    #[error("non-zero padding bits after the last compressed coefficient")]
    NonZeroPadding,
    #[error("s2 needs more than the {capacity} bytes a signature holds")]
    TooManyBits { capacity: usize },
    #[error("context is {0} bytes: at most 255")]
    ContextTooLong(usize),
    #[error("external mu is {0} bytes: expected 64")]
    ExternalMuLength(usize),
    #[error("the external-mu identifier has no message to hash")]
    ExternalMuNotHashable,
    #[error("|s1[{index}]| = {magnitude} above B_inf = 840")]
    S1TooLarge { index: usize, magnitude: u32 },
    #[error("squared norm {norm} above the bound {bound}")]
    NormTooLarge { norm: u64, bound: u32 },
    #[error("signing-key header byte {0:#04x}: expected 0x50 + logn")]
    SigningKeyHeader(u8),
    #[error("{poly}[{index}] = {value} does not fit {bits} signed bits (reserved value excluded)")]
    SmallCoefficientRange { poly: codec::KeyPoly, index: usize, value: i32, bits: u32 },
    #[error("{poly}[{index}] is -2^({bits}-1), the reserved value of its {bits}-bit encoding")]
    ForbiddenValue { poly: codec::KeyPoly, index: usize, bits: u32 },
    #[error("f is not invertible modulo (X^n + 1, q)")]
    NotInvertible,
    #[error("recomputed G[{index}] = {value} is outside [-127, 127]")]
    BigGOutOfRange { index: usize, value: i32 },
    #[error("no valid signature after {0} attempts: the signing key is inconsistent")]
    SigningFailed(u32),
    #[error("no key pair after {0} candidates (f, g): a kernel gives wrong results")]
    KeygenFailed(u32),
    #[error("the Gaussian sampler rejected {0} candidates in a row: a kernel gives wrong results")]
    SamplerFailed(u32),
}
