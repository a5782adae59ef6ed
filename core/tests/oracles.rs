//! Differential tests against the oracle crates (`ml-kem`, `x25519-dalek`, `x-wing`, all RustCrypto/dalek):
//! identical keys, ciphertexts and shared secrets on random seeds, implicit rejection on random ciphertexts, and
//! the same verdict on malformed encapsulation keys.

use ml_kem::{Decapsulate, FromSeed, KeyExport, MlKem512, MlKem768, MlKem1024};
use pqhelium_core::mlkem::{ML_KEM_512, ML_KEM_768, ML_KEM_1024, MlKem, MlkemError, Params};
use pqhelium_core::x25519::{self, Reference};
use pqhelium_core::xwing::XWing;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

/// (ek, expanded dk, ss, ct, ss of decaps(random ct)) from the oracle, and its verdict on a malformed ek.
struct OracleRun {
    ek: Vec<u8>,
    dk: Vec<u8>,
    ss: Vec<u8>,
    ct: Vec<u8>,
    rejected_ss: Vec<u8>,
}

macro_rules! oracle_for {
    ($name:ident, $set:ty) => {
        #[allow(deprecated)] // the expanded decapsulation key form is what FIPS 203 and our code produce
        fn $name(seed: &[u8; 64], m: &[u8; 32], random_ct: &[u8]) -> OracleRun {
            use ml_kem::ExpandedKeyEncoding;
            let (dk, ek) = <$set>::from_seed(&(*seed).into());
            let (ct, ss) = ek.encapsulate_deterministic(&(*m).into());
            let rejected_ss = dk.decapsulate(&random_ct.try_into().unwrap());
            OracleRun {
                ek: ek.to_bytes().to_vec(),
                dk: dk.to_expanded_bytes().to_vec(),
                ss: ss.to_vec(),
                ct: ct.to_vec(),
                rejected_ss: rejected_ss.to_vec(),
            }
        }
    };
}

oracle_for!(oracle_512, MlKem512);
oracle_for!(oracle_768, MlKem768);
oracle_for!(oracle_1024, MlKem1024);

fn oracle_accepts_ek(params: &Params, ek: &[u8]) -> bool {
    match params.k {
        2 => ml_kem::EncapsulationKey::<MlKem512>::new(ek.try_into().unwrap()).is_ok(),
        3 => ml_kem::EncapsulationKey::<MlKem768>::new(ek.try_into().unwrap()).is_ok(),
        _ => ml_kem::EncapsulationKey::<MlKem1024>::new(ek.try_into().unwrap()).is_ok(),
    }
}

fn mlkem_against_oracle(params: Params, oracle: fn(&[u8; 64], &[u8; 32], &[u8]) -> OracleRun, cases: u64) {
    let kem = MlKem::reference(params);
    let mut rng = ChaCha8Rng::seed_from_u64(203 + params.k as u64);
    for case in 0..cases {
        let seed: [u8; 64] = std::array::from_fn(|_| rng.r#gen());
        let m: [u8; 32] = rng.r#gen();
        let random_ct: Vec<u8> = (0..params.ct_len()).map(|_| rng.r#gen()).collect();
        let expected = oracle(&seed, &m, &random_ct);
        let (ek, dk) = kem.keygen_internal(seed[..32].try_into().unwrap(), seed[32..].try_into().unwrap());
        assert_eq!(ek, expected.ek, "{} case {case}: ek", params.name);
        assert_eq!(dk, expected.dk, "{} case {case}: dk", params.name);
        let (ss, ct) = kem.encaps(&ek, &m).unwrap();
        assert_eq!(ct, expected.ct, "{} case {case}: ct", params.name);
        assert_eq!(ss.to_vec(), expected.ss, "{} case {case}: ss", params.name);
        assert_eq!(kem.decaps(&dk, &ct).unwrap(), ss);
        let rejected = kem.decaps(&dk, &random_ct).unwrap();
        assert_eq!(rejected.to_vec(), expected.rejected_ss, "{} case {case}: implicit rejection", params.name);

        // A random coefficient pushed to a random value in q..4096.
        let index = rng.gen_range(0..256 * params.k);
        let value: u16 = rng.gen_range(3329..4096);
        let mut bad = ek.clone();
        let at = 3 * (index / 2);
        if index % 2 == 0 {
            bad[at] = value as u8;
            bad[at + 1] = (bad[at + 1] & 0xF0) | (value >> 8) as u8;
        } else {
            bad[at + 1] = (bad[at + 1] & 0x0F) | ((value & 0x0F) << 4) as u8;
            bad[at + 2] = (value >> 4) as u8;
        }
        assert_eq!(kem.check_encapsulation_key(&bad), Err(MlkemError::CoefficientOutOfRange { index }));
        assert!(!oracle_accepts_ek(&params, &bad), "{} case {case}: oracle accepted a malformed ek", params.name);
        assert!(oracle_accepts_ek(&params, &ek));
    }
}

#[test]
fn mlkem768_matches_ml_kem_crate() {
    mlkem_against_oracle(ML_KEM_768, oracle_768, 300);
}

#[test]
fn mlkem512_and_1024_match_ml_kem_crate() {
    mlkem_against_oracle(ML_KEM_512, oracle_512, 100);
    mlkem_against_oracle(ML_KEM_1024, oracle_1024, 100);
}

#[test]
fn x25519_matches_dalek() {
    let mut rng = ChaCha8Rng::seed_from_u64(7748);
    for _ in 0..2000 {
        let k: [u8; 32] = rng.r#gen();
        let u: [u8; 32] = rng.r#gen();
        assert_eq!(x25519::x25519(&Reference, &k, &u), x25519_dalek::x25519(k, u));
        let public = x25519_dalek::PublicKey::from(&x25519_dalek::StaticSecret::from(k));
        assert_eq!(&x25519::x25519_base(&Reference, &k), public.as_bytes());
    }
}

#[test]
fn xwing_matches_x_wing_crate() {
    use x_wing::{Decapsulate as _, Decapsulator as _, KeyExport as _};
    let xwing = XWing::reference();
    let mut rng = ChaCha8Rng::seed_from_u64(0x5857);
    for case in 0..300 {
        let seed: [u8; 32] = rng.r#gen();
        let eseed: [u8; 64] = std::array::from_fn(|_| rng.r#gen());
        let random_ct: Vec<u8> = (0..x_wing::CIPHERTEXT_SIZE).map(|_| rng.r#gen()).collect();
        let oracle_dk = x_wing::DecapsulationKey::from(seed);
        let oracle_ek = oracle_dk.encapsulation_key();
        let (oracle_ct, oracle_ss) = oracle_ek.encapsulate_deterministic(&eseed.into());
        let oracle_rejected = oracle_dk.decapsulate(&random_ct.as_slice().try_into().unwrap());

        let pk = xwing.keygen(&seed);
        assert_eq!(pk.as_slice(), oracle_ek.to_bytes().as_slice(), "case {case}: pk");
        let (ss, ct) = xwing.encaps(&pk, &eseed).unwrap();
        assert_eq!(ct.as_slice(), oracle_ct.as_slice(), "case {case}: ct");
        assert_eq!(ss.as_slice(), oracle_ss.as_slice(), "case {case}: ss");
        assert_eq!(xwing.decaps(&seed, &ct).unwrap(), ss);
        let expanded = xwing.expand_key(&seed);
        assert_eq!(xwing.decaps_expanded(&expanded, &ct).unwrap(), ss);
        let rejected = xwing.decaps(&seed, &random_ct).unwrap();
        assert_eq!(rejected.as_slice(), oracle_rejected.as_slice(), "case {case}: implicit rejection");
    }
}

/// Low-order X25519 parts in pk and ct: both sides accept them (the oracle's `DecapsulationKey` accepts
/// non-contributory results) and agree on the shared secret.
#[test]
fn xwing_low_order_points_match_x_wing_crate() {
    use x_wing::{Decapsulate as _, Decapsulator as _, KeyExport as _};
    let xwing = XWing::reference();
    let low_order = [[0u8; 32], {
        let mut one = [0u8; 32];
        one[0] = 1;
        one
    }];
    let seed = [0x42u8; 32];
    let oracle_dk = x_wing::DecapsulationKey::from(seed);
    let mut pk = xwing.keygen(&seed);
    assert_eq!(pk.as_slice(), oracle_dk.encapsulation_key().to_bytes().as_slice());
    let (_, mut ct) = xwing.encaps(&pk, &[7; 64]).unwrap();
    for point in low_order {
        ct[1088..].copy_from_slice(&point);
        let oracle_ss = oracle_dk.decapsulate(&ct.as_slice().try_into().unwrap());
        assert_eq!(xwing.decaps(&seed, &ct).unwrap().as_slice(), oracle_ss.as_slice());
        pk[1184..].copy_from_slice(&point);
        let oracle_ek = x_wing::EncapsulationKey::try_from(pk.as_slice()).unwrap();
        let (oracle_ct, oracle_ss) = oracle_ek.encapsulate_deterministic(&[7; 64].into());
        let (ss, our_ct) = xwing.encaps(&pk, &[7; 64]).unwrap();
        assert_eq!((ss.as_slice(), our_ct.as_slice()), (oracle_ss.as_slice(), oracle_ct.as_slice()));
    }
}
