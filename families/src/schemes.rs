//! Host-only contracts of whole schemes: our ML-KEM-768 and X-Wing (`pqhelium-core`, the "model") against the
//! oracle crates `ml-kem`, `x25519-dalek` and `x-wing` (the "reference"), on random seeds.
//!
//! Inputs: the key-generation seed, the encapsulation randomness and a random ciphertext. Outputs, on both sides:
//! [encapsulation key, ciphertext, shared secret, shared secret of decapsulating the random ciphertext], the last
//! one exercising implicit rejection.

use ml_kem::{Decapsulate, FromSeed, KeyExport, MlKem768};
use pqhelium_core::mlkem::{ML_KEM_768, MlKem};
use pqhelium_core::xwing::{self, XWing};
use rand::Rng;

use super::{
    ArgSpec, Bound, CaseRng, Contract, Description, Elem, Images, Kernel, Len, Outcome, RunReference, Ways, buffer,
};
use pqhelium_guest::backend::Arg;

/// All-zero inputs, then all-ones inputs.
const EDGE_CASES: u64 = 2;

pub(super) fn kernels() -> Vec<Kernel> {
    vec![Kernel::new(Scheme::MlKem768), Kernel::new(Scheme::XWing)]
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Scheme {
    MlKem768,
    XWing,
}

/// A secret or public byte string of `len` bytes.
fn bytes(name: &'static str, len: usize, repr: &'static str, secret: bool) -> ArgSpec {
    let arg = ArgSpec::input(name, Elem::U8, Len::Fixed(len), Bound::Any).repr(repr);
    if secret { arg.secret() } else { arg }
}

fn result(name: &'static str, len: usize, repr: &'static str, secret: bool) -> ArgSpec {
    let arg = ArgSpec::output(name, Elem::U8, Len::Fixed(len), Bound::Any).repr(repr);
    if secret { arg.secret() } else { arg }
}

impl Contract for Scheme {
    /// The key-generation seed, the encapsulation randomness and the random ciphertext.
    type Input = Vec<Vec<u8>>;

    fn describe(&self) -> Description {
        let (id, summary, computes, [seed, eseed, ct, ek], encoding) = match self {
            Scheme::MlKem768 => (
                "mlkem768.scheme",
                "ML-KEM-768 keygen, encaps, decaps and implicit rejection: pqhelium-core vs the ml-kem crate",
                "keygen_internal(d || z); encaps(ek, m); decaps(dk, ct); decaps(dk, random_ct): [ek, ct, ss, \
                 ss of the random ciphertext] equal to the ml-kem crate's",
                [64, 32, ML_KEM_768.ct_len(), ML_KEM_768.ek_len()],
                "fips203",
            ),
            Scheme::XWing => (
                "xwing.scheme",
                "X-Wing keygen, encaps, decaps and implicit rejection: pqhelium-core vs the x-wing crate",
                "keygen(seed); encaps(pk, eseed); decaps(seed, ct); decaps(seed, random_ct): [pk, ct, ss, ss of the \
                 random ciphertext] equal to the x-wing crate's",
                [xwing::SECRET_KEY_SIZE, xwing::ESEED_SIZE, xwing::CIPHERTEXT_SIZE, xwing::ENCAPSULATION_KEY_SIZE],
                "xwing-draft-10",
            ),
        };
        Description {
            id,
            symbol: "",
            images: Images::HostOnly,
            summary: summary.into(),
            computes: computes.into(),
            requires: String::new(),
            edge_cases: EDGE_CASES,
            args: vec![
                bytes("seed", seed, "bytes", true),
                bytes("eseed", eseed, "bytes", true),
                bytes("random_ct", ct, encoding, false),
            ],
            returns: None,
            results: vec![
                result("ek", ek, encoding, false),
                result("ct", ct, encoding, false),
                result("ss", 32, "bytes", true),
                result("ss_rejected", 32, "bytes", true),
            ],
        }
    }

    fn generate(&self, case: u64, rng: &mut CaseRng) -> Vec<Vec<u8>> {
        let lengths = match self {
            Scheme::MlKem768 => [64, 32, ML_KEM_768.ct_len()],
            Scheme::XWing => [xwing::SECRET_KEY_SIZE, xwing::ESEED_SIZE, xwing::CIPHERTEXT_SIZE],
        };
        inputs(case, rng, &lengths)
    }

    fn encode(&self, buffers: &Vec<Vec<u8>>) -> Vec<Arg> {
        buffers.iter().map(|b| Arg::In(b.clone())).collect()
    }

    fn decode(&self, args: &[Arg]) -> Vec<Vec<u8>> {
        args.iter().map(|a| buffer(a).to_vec()).collect()
    }

    /// The oracle crate.
    fn reference(&self, buffers: &Vec<Vec<u8>>, _: RunReference) -> Outcome {
        match self {
            Scheme::MlKem768 => mlkem768_oracle(buffers),
            Scheme::XWing => xwing_oracle(buffers),
        }
    }

    fn ways(&self) -> Ways<Self> {
        Ways::Three { model: |scheme, buffers| scheme.ours(buffers), canon: |_, o| o.clone() }
    }
}

impl Scheme {
    /// pqhelium-core.
    fn ours(&self, buffers: &[Vec<u8>]) -> Outcome {
        match self {
            Scheme::MlKem768 => mlkem768_ours(buffers),
            Scheme::XWing => xwing_ours(buffers),
        }
    }
}

/// One input buffer per length: edge cases are constant bytes, later cases random.
fn inputs(case: u64, rng: &mut CaseRng, lengths: &[usize]) -> Vec<Vec<u8>> {
    lengths
        .iter()
        .map(|&len| match case {
            0 => vec![0; len],
            1 => vec![0xFF; len],
            _ => (0..len).map(|_| rng.r#gen()).collect(),
        })
        .collect()
}

fn array<const N: usize>(buffer: &[u8]) -> [u8; N] {
    buffer.try_into().expect("the contract checked the buffers' sizes")
}

/// A refused input becomes a one-buffer outcome naming the error, so that the campaign reports a mismatch.
fn refused(error: impl std::fmt::Display) -> Outcome {
    Outcome { buffers: vec![format!("error: {error}").into_bytes()], ret: None }
}

fn mlkem768_ours(args: &[Vec<u8>]) -> Outcome {
    let kem = MlKem::reference(ML_KEM_768);
    let seed: [u8; 64] = array(&args[0]);
    let (ek, dk) = kem.keygen_internal(seed[..32].try_into().unwrap(), seed[32..].try_into().unwrap());
    let run = || {
        let (ss, ct) = kem.encaps(&ek, &array(&args[1]))?;
        let ss_check = kem.decaps(&dk, &ct)?;
        let rejected = kem.decaps(&dk, &args[2])?;
        Ok::<_, pqhelium_core::mlkem::MlkemError>((ct, ss, ss_check, rejected))
    };
    match run() {
        // A decapsulation that disagrees with its encapsulation shows up as a differing shared secret.
        Ok((ct, ss, ss_check, rejected)) => {
            let ss = if ss == ss_check { ss.to_vec() } else { b"decaps(encaps) differs".to_vec() };
            Outcome { buffers: vec![ek, ct, ss, rejected.to_vec()], ret: None }
        }
        Err(e) => refused(e),
    }
}

fn mlkem768_oracle(args: &[Vec<u8>]) -> Outcome {
    let (dk, ek) = MlKem768::from_seed(&array::<64>(&args[0]).into());
    let (ct, ss) = ek.encapsulate_deterministic(&array::<32>(&args[1]).into());
    let rejected = dk.decapsulate(&array::<1088>(&args[2]).into());
    Outcome { buffers: vec![ek.to_bytes().to_vec(), ct.to_vec(), ss.to_vec(), rejected.to_vec()], ret: None }
}

fn xwing_ours(args: &[Vec<u8>]) -> Outcome {
    let xwing = XWing::reference();
    let seed: [u8; 32] = array(&args[0]);
    let key = xwing.expand_key(&seed);
    let pk = key.encapsulation_key();
    let run = || {
        let (ss, ct) = xwing.encaps(&pk, &array(&args[1]))?;
        // Cold decapsulation for the honest ciphertext, warm for the random one: both paths are exercised.
        let ss_check = xwing.decaps(&seed, &ct)?;
        let rejected = xwing.decaps_expanded(&key, &args[2])?;
        Ok::<_, xwing::XWingError>((ct, ss, ss_check, rejected))
    };
    match run() {
        Ok((ct, ss, ss_check, rejected)) => {
            let ss = if ss == ss_check { ss.to_vec() } else { b"decaps(encaps) differs".to_vec() };
            Outcome { buffers: vec![pk.to_vec(), ct.to_vec(), ss, rejected.to_vec()], ret: None }
        }
        Err(e) => refused(e),
    }
}

fn xwing_oracle(args: &[Vec<u8>]) -> Outcome {
    use x_wing::{Decapsulate as _, Decapsulator as _, KeyExport as _};
    let dk = x_wing::DecapsulationKey::from(array::<32>(&args[0]));
    let ek = dk.encapsulation_key();
    let (ct, ss) = ek.encapsulate_deterministic(&array::<64>(&args[1]).into());
    let rejected = dk.decapsulate(&array::<1120>(&args[2]).into());
    Outcome { buffers: vec![ek.to_bytes().to_vec(), ct.to_vec(), ss.to_vec(), rejected.to_vec()], ret: None }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::case_rng;
    use crate::check_model;

    #[test]
    fn schemes_match_their_oracles_on_edge_and_random_cases() {
        for kernel in kernels() {
            for case in 0..20 {
                let args = kernel.generate(case, &mut case_rng(3, case));
                let (_, failure) = check_model(&kernel, &args);
                assert!(failure.is_none(), "{} case {case}: {failure:?}", kernel.id);
            }
        }
    }
}
