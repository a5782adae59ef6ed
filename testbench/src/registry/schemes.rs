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

use super::{CaseRng, Images, KernelSpec, Outcome, Returns};
use crate::backend::Arg;

/// All-zero inputs, then all-ones inputs.
const EDGE_CASES: u64 = 2;

pub(super) const KERNELS: &[KernelSpec] = &[
    KernelSpec {
        id: "mlkem768.scheme",
        summary: "ML-KEM-768 keygen, encaps, decaps and implicit rejection: pqhelium-core vs the ml-kem crate",
        symbol: "",
        images: Images::HostOnly,
        signature: "keygen_internal(d || z[64]); encaps(ek, m[32]); decaps(dk, ct); decaps(dk, random ct[1088])",
        precondition: "any d || z, m and ciphertext bytes",
        postcondition: "[ek, ct, ss, ss of the random ciphertext] equal to the ml-kem crate's",
        returns: Returns::Nothing,
        edge_cases: EDGE_CASES,
        generate: |case, rng| inputs(case, rng, &[64, 32, ML_KEM_768.ct_len()]),
        model: mlkem768_ours,
        reference: mlkem768_oracle,
        canon: |o| o.clone(),
    },
    KernelSpec {
        id: "xwing.scheme",
        summary: "X-Wing keygen, encaps, decaps and implicit rejection: pqhelium-core vs the x-wing crate",
        symbol: "",
        images: Images::HostOnly,
        signature: "keygen(seed[32]); encaps(pk, eseed[64]); decaps(seed, ct); decaps(seed, random ct[1120])",
        precondition: "any seed, eseed and ciphertext bytes",
        postcondition: "[pk, ct, ss, ss of the random ciphertext] equal to the x-wing crate's",
        returns: Returns::Nothing,
        edge_cases: EDGE_CASES,
        generate: |case, rng| inputs(case, rng, &[xwing::SECRET_KEY_SIZE, xwing::ESEED_SIZE, xwing::CIPHERTEXT_SIZE]),
        model: xwing_ours,
        reference: xwing_oracle,
        canon: |o| o.clone(),
    },
];

/// One input buffer per length: edge cases are constant bytes, later cases random.
fn inputs(case: u64, rng: &mut CaseRng, lengths: &[usize]) -> Vec<Arg> {
    lengths
        .iter()
        .map(|&len| match case {
            0 => Arg::In(vec![0; len]),
            1 => Arg::In(vec![0xFF; len]),
            _ => Arg::In((0..len).map(|_| rng.r#gen()).collect()),
        })
        .collect()
}

fn buffer(arg: &Arg) -> &[u8] {
    match arg {
        Arg::In(b) => b,
        other => panic!("expected an input buffer, got {other:?}"),
    }
}

fn array<const N: usize>(arg: &Arg) -> [u8; N] {
    buffer(arg).try_into().expect("the generator makes buffers of the contract's sizes")
}

/// A refused input becomes a one-buffer outcome naming the error, so that the campaign reports a mismatch.
fn refused(error: impl std::fmt::Display) -> Outcome {
    Outcome { buffers: vec![format!("error: {error}").into_bytes()], ret: None }
}

fn mlkem768_ours(args: &[Arg]) -> Outcome {
    let kem = MlKem::reference(ML_KEM_768);
    let seed: [u8; 64] = array(&args[0]);
    let (ek, dk) = kem.keygen_internal(seed[..32].try_into().unwrap(), seed[32..].try_into().unwrap());
    let run = || {
        let (ss, ct) = kem.encaps(&ek, &array(&args[1]))?;
        let ss_check = kem.decaps(&dk, &ct)?;
        let rejected = kem.decaps(&dk, buffer(&args[2]))?;
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

fn mlkem768_oracle(args: &[Arg]) -> Outcome {
    let (dk, ek) = MlKem768::from_seed(&array::<64>(&args[0]).into());
    let (ct, ss) = ek.encapsulate_deterministic(&array::<32>(&args[1]).into());
    let rejected = dk.decapsulate(&array::<1088>(&args[2]).into());
    Outcome { buffers: vec![ek.to_bytes().to_vec(), ct.to_vec(), ss.to_vec(), rejected.to_vec()], ret: None }
}

fn xwing_ours(args: &[Arg]) -> Outcome {
    let xwing = XWing::reference();
    let seed: [u8; 32] = array(&args[0]);
    let key = xwing.expand_key(&seed);
    let pk = key.encapsulation_key();
    let run = || {
        let (ss, ct) = xwing.encaps(&pk, &array(&args[1]))?;
        // Cold decapsulation for the honest ciphertext, warm for the random one: both paths are exercised.
        let ss_check = xwing.decaps(&seed, &ct)?;
        let rejected = xwing.decaps_expanded(&key, buffer(&args[2]))?;
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

fn xwing_oracle(args: &[Arg]) -> Outcome {
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
    use crate::diff::check_model;
    use crate::registry::case_rng;

    #[test]
    fn schemes_match_their_oracles_on_edge_and_random_cases() {
        for kernel in KERNELS {
            for case in 0..20 {
                let args = (kernel.generate)(case, &mut case_rng(3, case));
                let (_, failure) = check_model(kernel, &args);
                assert!(failure.is_none(), "{} case {case}: {failure:?}", kernel.id);
            }
        }
    }
}
