//! Contracts of whole FN-DSA v0.4 key generation on the guest (`kernels/arm/fndsa_keygen/keygen.c`): f and g from
//! SHAKE256(seed), the checks, the NTRU solver, h and the encoded keys, logn 9 and 10. `fndsa.keygen.pair` runs on
//! the MVE FFT and the VDIV.F64 divisions (M55 and M85 images), `fndsa.keygen.pair.scalar` on the portable FFT and
//! the bit-by-bit divisions (every image).
//!
//! The kernel writes the signing and verifying keys and returns 1, or returns 0 and leaves both buffers as they were
//! for a degree other than 9 and 10. Reference: `pqhelium_core::fndsa::encoded_keygen_from_seed` (core's key
//! generation from a seed of any length). Checked two ways: the keys are the definition.
//!
//! Cases: the key generations of the signature known answers first (`vectors/fndsa.kat`: seed_kgen of logn || j),
//! then the refused degrees, then random seeds of 0 to 64 bytes at logn 9 or 10.

use pqhelium_core::fndsa::{self, ReferenceKernels, codec};
use pqhelium_guest::backend::{Arg, POISON};
use rand::Rng;

use super::{
    ArgSpec, Bound, CaseRng, Contract, Description, Elem, Images, Kernel, Len, Outcome, Ways, buffer, u32_arg,
};
use crate::fndsa_sign::{KAT_ENTRIES, kat_keygen_seed};

/// The degrees the kernels generate keys at.
pub const LOGN: [u32; 2] = [9, 10];
/// Degrees refused: below, between and above FN-DSA's.
const REFUSED_LOGN: [u32; 3] = [0, 8, 11];
/// The longest seed the generator makes.
const SEED_MAX: usize = 64;

/// The largest keys (logn 10): signing key, verifying key.
fn largest_keys() -> (usize, usize) {
    (codec::signing_key_size(10), codec::verifying_key_size(10))
}

pub(super) fn kernels() -> Vec<Kernel> {
    vec![
        Kernel::new(FndsaKeygenPair { id: "fndsa.keygen.pair", symbol: "fndsa_keygen_pair", mve: true }),
        Kernel::new(FndsaKeygenPair { id: "fndsa.keygen.pair.scalar", symbol: "fndsa_keygen_pair_scalar", mve: false }),
    ]
}

struct FndsaKeygenPair {
    id: &'static str,
    symbol: &'static str,
    mve: bool,
}

/// One case: the seed, the degree, and the key buffers' sizes (the keys' sizes at a supported degree, the largest
/// otherwise).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Case {
    pub seed: Vec<u8>,
    pub logn: u32,
}

impl Case {
    pub fn key_sizes(&self) -> (usize, usize) {
        if LOGN.contains(&self.logn) {
            (codec::signing_key_size(self.logn), codec::verifying_key_size(self.logn))
        } else {
            largest_keys()
        }
    }
}

impl Contract for FndsaKeygenPair {
    type Input = Case;

    fn describe(&self) -> Description {
        let (images, build) = match self.mve {
            true => (Images::M55Only, "MVE fixed-point FFT, VDIV.F64 divisions"),
            false => (Images::Both, "portable fixed-point FFT and bit-by-bit divisions"),
        };
        let (sk_max, vk_max) = largest_keys();
        Description {
            id: self.id,
            symbol: self.symbol,
            images,
            summary: format!("FN-DSA v0.4 key generation, whole (logn 9 or 10), {build}, scalar NTT and Keccak"),
            computes: "(sk, vk) = core's encoded key pair from the seed (keygen_from_seed, h = g/f, the encodings), \
                       returned 1; 0 with sk and vk untouched for logn other than 9 and 10"
                .into(),
            requires: "seed_len = the seed buffer's length; sk and vk hold the keys of degree logn".into(),
            edge_cases: edge_cases(),
            args: vec![
                ArgSpec::output("sk", Elem::U8, Len::UpTo(sk_max), Bound::Any).repr("fndsa-signing-key"),
                ArgSpec::output("vk", Elem::U8, Len::UpTo(vk_max), Bound::Any).repr("fndsa-verifying-key"),
                ArgSpec::input("seed", Elem::U8, Len::UpTo(SEED_MAX), Bound::Any).repr("bytes").secret(),
                ArgSpec::scalar("seed_len", Elem::U32, Bound::Range { lo: 0, hi: SEED_MAX as i64 }).repr("bytes"),
                ArgSpec::scalar("logn", Elem::U32, Bound::Range { lo: 0, hi: 11 }).repr("log2 degree"),
            ],
            returns: Some(ArgSpec::returned("ok", Elem::U32, Bound::Range { lo: 0, hi: 1 }).repr("1, 0 on error")),
            results: vec![],
        }
    }

    fn generate(&self, case: u64, rng: &mut CaseRng) -> Case {
        generate(case, rng)
    }

    fn encode(&self, case: &Case) -> Vec<Arg> {
        let (sk, vk) = case.key_sizes();
        vec![
            Arg::Out(sk),
            Arg::Out(vk),
            Arg::In(case.seed.clone()),
            Arg::U32(case.seed.len() as u32),
            Arg::U32(case.logn),
        ]
    }

    fn decode(&self, args: &[Arg]) -> Case {
        let seed = buffer(&args[2]).to_vec();
        debug_assert_eq!(u32_arg(&args[3]) as usize, seed.len());
        Case { seed, logn: u32_arg(&args[4]) }
    }

    /// core's key generation; for a refused degree the buffers as the harness poisoned them.
    fn reference(&self, case: &Case, _: super::RunReference) -> Outcome {
        let (sk_len, vk_len) = case.key_sizes();
        match keygen(case) {
            Some((sk, vk)) => Outcome { buffers: vec![sk, vk], ret: Some(1) },
            None => Outcome { buffers: vec![vec![POISON; sk_len], vec![POISON; vk_len]], ret: Some(0) },
        }
    }

    fn ways(&self) -> Ways<Self> {
        Ways::Two
    }
}

/// core's key pair (signing key, verifying key) for a case, `None` outside logn 9 and 10.
pub fn keygen(case: &Case) -> Option<(Vec<u8>, Vec<u8>)> {
    if !LOGN.contains(&case.logn) {
        return None;
    }
    fndsa::encoded_keygen_from_seed(&mut ReferenceKernels::default(), case.logn, &case.seed).ok()
}

fn edge_cases() -> u64 {
    (LOGN.len() * KAT_ENTRIES as usize + REFUSED_LOGN.len()) as u64
}

fn generate(case: u64, rng: &mut CaseRng) -> Case {
    let kat = LOGN.len() as u64 * u64::from(KAT_ENTRIES);
    if case < kat {
        let logn = LOGN[(case / u64::from(KAT_ENTRIES)) as usize];
        return Case { seed: kat_keygen_seed(logn, (case % u64::from(KAT_ENTRIES)) as u32).to_vec(), logn };
    }
    let logn =
        if case < edge_cases() { REFUSED_LOGN[(case - kat) as usize] } else { LOGN[rng.gen_range(0..LOGN.len())] };
    let mut seed = vec![0u8; rng.gen_range(0..=SEED_MAX)];
    rng.fill(&mut seed[..]);
    Case { seed, logn }
}
