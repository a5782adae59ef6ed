//! FN-DSA v0.4 key generation, producing exactly the keys of fn-dsa 0.4.0 from the same seed.
//!
//! From SHAKE256(seed): sample f until it is invertible modulo q, sample g, reject on the squared norm of (g, -f) and
//! on the orthogonalized norm, then solve the NTRU equation (retrying with fresh f, g on failure). The verifying key
//! is h = g/f mod q in NTT form; the signing key carries f, g, F and SHAKE256(verifying key).
//!
//! Kernels: the mod-q NTT for the invertibility check and h ([`NttKernels`]), the fixed-point FFT and divisions of
//! the solver ([`FxpKernels`]) and Keccak-f\[1600\] for every SHAKE256 ([`Permutation`]), all through one
//! [`Kernels`] value.

pub mod fxp;
pub mod gauss;
pub mod mp31;
pub mod ntru;
pub mod zint;

pub use fxp::{FxpKernels, Reference as FxpReference};

use super::ntt::{self, NttKernels, Q};
use super::{Error, Kernels, MAX_LOGN, MIN_LOGN, codec};
use crate::keccak::{Keccak, Permutation};

/// The secret polynomials of a key pair (G is not stored in the signing key but returned for tests and checks).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct KeyPair {
    pub f: Vec<i8>,
    pub g: Vec<i8>,
    pub capital_f: Vec<i8>,
    pub capital_g: Vec<i8>,
}

fn check_logn(logn: u32) -> Result<(), Error> {
    if (MIN_LOGN..=MAX_LOGN).contains(&logn) { Ok(()) } else { Err(Error::UnsupportedDegree(logn)) }
}

/// NTT of small coefficients in the internal representation.
fn small_ntt<N: NttKernels>(ntt_k: &mut N, logn: u32, v: &[i8]) -> Vec<u16> {
    let wide: Vec<i16> = v.iter().map(|&x| x.into()).collect();
    let mut out = vec![0u16; v.len()];
    ntt::signed_to_int(&wide, &mut out);
    ntt_k.ntt(logn, &mut out);
    out
}

fn pow_q(mut b: u32, mut e: u32) -> u32 {
    let mut r = 1u32;
    b %= Q;
    while e > 0 {
        if e & 1 == 1 {
            r = r * b % Q;
        }
        b = b * b % Q;
        e >>= 1;
    }
    r
}

/// The deterministic core: (f, g, F, G) from any seed, as the reference's internal `keygen_from_seed`.
pub fn keygen_from_seed<N, F, X, P>(kernels: &mut Kernels<N, F, X, P>, logn: u32, seed: &[u8]) -> Result<KeyPair, Error>
where
    N: NttKernels,
    X: FxpKernels,
    P: Permutation,
{
    keygen_from_seed_with_course(kernels, logn, seed, &mut Vec::new())
}

/// What became of one candidate (f, g) of key generation.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Candidate {
    /// f has no inverse modulo X^n+1 and q.
    NotInvertible,
    /// ||(g, -f)|| too large.
    TooLong,
    /// The orthogonalized norm too large.
    OrthoNormTooLarge,
    /// The NTRU equation has no solution the solver finds.
    Unsolved,
    Accepted,
}

/// [`keygen_from_seed`], with what became of each candidate appended to `course`: the part of key generation's
/// course that its rejections make public (two seeds of one course run the same candidates to the same ends).
pub fn keygen_from_seed_with_course<N, F, X, P>(
    kernels: &mut Kernels<N, F, X, P>,
    logn: u32,
    seed: &[u8],
    course: &mut Vec<Candidate>,
) -> Result<KeyPair, Error>
where
    N: NttKernels,
    X: FxpKernels,
    P: Permutation,
{
    check_logn(logn)?;
    let n = 1usize << logn;
    let Kernels { ntt: ntt_k, fxp: fxp_k, keccak, .. } = kernels;
    let mut rng = gauss::Prng::new(&mut *keccak, seed);
    let candidates = max_candidates(logn);
    for _ in 0..candidates {
        let f = gauss::sample_poly(logn, &mut rng);
        // f must be invertible modulo X^n+1 and q: no zero NTT slot (zero is q internally).
        if small_ntt(ntt_k, logn, &f).iter().any(|&x| u32::from(x) == Q) {
            course.push(Candidate::NotInvertible);
            continue;
        }
        let g = gauss::sample_poly(logn, &mut rng);
        // ||(g, -f)||^2 < (1.17)^2 q.
        let sn: i32 = f.iter().chain(&g).map(|&x| i32::from(x) * i32::from(x)).sum();
        if sn >= 16823 {
            course.push(Candidate::TooLong);
            continue;
        }
        if !ntru::check_ortho_norm(fxp_k, logn, &f, &g) {
            course.push(Candidate::OrthoNormTooLarge);
            continue;
        }
        if let Some((capital_f, capital_g)) = ntru::solve(fxp_k, logn, &f, &g) {
            debug_assert_eq!(capital_f.len(), n);
            course.push(Candidate::Accepted);
            return Ok(KeyPair { f, g, capital_f, capital_g });
        }
        course.push(Candidate::Unsolved);
    }
    Err(Error::KeygenFailed(candidates))
}

/// How many candidates (f, g) key generation tries before giving up, so that a wrong kernel (one that makes every f
/// look non-invertible, say) ends in an error instead of a loop. Right kernels need about 300 candidates on average
/// at logn 2 (the NTRU equation often has no small solution there) and 5 to 34 at logn 3..=10 (300 seeds per
/// degree, 30 at logn 9 and 10); the rejections are independent, so the chance of a right key generation reaching
/// the cap is below e^-50 at every degree.
fn max_candidates(logn: u32) -> u32 {
    if logn == MIN_LOGN { 20_000 } else { 2_000 }
}

/// h = g/f mod q in NTT form, external values (what the verifying key stores).
pub fn public_key<N: NttKernels>(ntt_k: &mut N, logn: u32, f: &[i8], g: &[i8]) -> Vec<u16> {
    let tf = small_ntt(ntt_k, logn, f);
    let tg = small_ntt(ntt_k, logn, g);
    tf.iter().zip(&tg).map(|(&a, &b)| (u32::from(b) % Q * pow_q(u32::from(a), Q - 2) % Q) as u16).collect()
}

/// Key pair generation as the crate's public `KeyPairGenerator::keygen` when its RNG hands out `seed` (the crate
/// reads exactly these 32 bytes and uses them verbatim as the keygen seed). Returns (signing key, verifying key).
///
/// Errors: [`Error::UnsupportedDegree`] outside logn 2..=10. Below logn 9, a sum of several samples can (about once
/// in 10^5 keys at logn 8, far less often at logn 6 and 7) exceed the signing-key field width of f or g; the crate
/// then silently truncates the coefficient (a key that does not decode to its own f), this code returns
/// [`Error::SmallCoefficientRange`] from the encoder instead. Never at logn 9 and 10 (|f_i|, |g_i| <= 17 and 12).
pub fn keygen<N, F, X, P>(
    kernels: &mut Kernels<N, F, X, P>,
    logn: u32,
    seed: &[u8; 32],
) -> Result<(Vec<u8>, Vec<u8>), Error>
where
    N: NttKernels,
    X: FxpKernels,
    P: Permutation,
{
    encoded_keygen_from_seed(kernels, logn, seed)
}

/// [`keygen`] from a seed of any length ([`keygen_from_seed`], then the encodings): the keys the guest's whole key
/// generation writes.
pub fn encoded_keygen_from_seed<N, F, X, P>(
    kernels: &mut Kernels<N, F, X, P>,
    logn: u32,
    seed: &[u8],
) -> Result<(Vec<u8>, Vec<u8>), Error>
where
    N: NttKernels,
    X: FxpKernels,
    P: Permutation,
{
    let kp = keygen_from_seed(kernels, logn, seed)?;
    let h = public_key(&mut kernels.ntt, logn, &kp.f, &kp.g);
    let vk = codec::encode_verifying_key(logn, &h)?;
    let mut hashed = [0u8; 64];
    let mut sponge = Keccak::<136, 0x1F, _>::with_permutation(&mut kernels.keccak);
    sponge.absorb(&vk);
    sponge.squeeze(&mut hashed);
    let sk = codec::encode_signing_key(logn, &kp.f, &kp.g, &kp.capital_f, &hashed)?;
    Ok((sk, vk))
}
