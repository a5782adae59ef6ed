//! Throughput of our ML-KEM-768, X-Wing and FN-DSA (`pqhelium-core`, reference providers) next to the oracle crates,
//! each operation timed on both sides in the same run with the same inputs.

use std::hint::black_box;
use std::time::Instant;

use ml_kem::{Decapsulate, FromSeed, MlKem768};
use pqhelium_core::fndsa::{self, HashId, ReferenceKernels};
use pqhelium_core::mlkem::{ML_KEM_768, MlKem};
use pqhelium_core::xwing::XWing;

/// Calls per second of `op` over `iterations` calls (at least one).
fn rate(iterations: u32, mut op: impl FnMut(u32)) -> f64 {
    let iterations = iterations.max(1);
    let start = Instant::now();
    for i in 0..iterations {
        op(i);
    }
    f64::from(iterations) / start.elapsed().as_secs_f64()
}

/// (operation, our calls/s, oracle calls/s) for ML-KEM-768 and X-Wing key generation, encapsulation and
/// decapsulation (X-Wing decapsulation cold: from the 32-byte seed, as the oracle does it).
pub fn run(iterations: u32) -> Vec<(String, f64, f64)> {
    let seed64 = |i: u32| -> [u8; 64] { std::array::from_fn(|j| (i as u8).wrapping_add(j as u8)) };
    let seed32 = |i: u32| -> [u8; 32] { std::array::from_fn(|j| (i as u8) ^ (j as u8)) };
    let mut rows = Vec::new();

    let kem = MlKem::reference(ML_KEM_768);
    let (ek, dk) = kem.keygen_internal(&seed32(1), &seed32(2));
    let (_, ct) = kem.encaps(&ek, &seed32(3)).expect("our own key passes the check");
    let (oracle_dk, oracle_ek) = MlKem768::from_seed(&seed64(1).into());
    let oracle_ct = oracle_ek.encapsulate_deterministic(&seed32(3).into()).0;
    rows.push((
        "ML-KEM-768 keygen".to_owned(),
        rate(iterations, |i| {
            black_box(kem.keygen_internal(&seed32(i), &seed32(i + 1)));
        }),
        rate(iterations, |i| {
            black_box(MlKem768::from_seed(&seed64(i).into()));
        }),
    ));
    rows.push((
        "ML-KEM-768 encaps".to_owned(),
        rate(iterations, |i| {
            black_box(kem.encaps(&ek, &seed32(i)).ok());
        }),
        rate(iterations, |i| {
            // The oracle checks ek when it is parsed; parse every time, as our encaps checks every time.
            let key =
                ek.as_slice().try_into().ok().and_then(|bytes| ml_kem::EncapsulationKey::<MlKem768>::new(bytes).ok());
            black_box(key.map(|k| k.encapsulate_deterministic(&seed32(i).into())));
        }),
    ));
    rows.push((
        "ML-KEM-768 decaps".to_owned(),
        rate(iterations, |_| {
            black_box(kem.decaps(&dk, &ct).ok());
        }),
        rate(iterations, |_| {
            black_box(oracle_dk.decapsulate(&oracle_ct));
        }),
    ));

    let xwing = XWing::reference();
    let pk = xwing.keygen(&seed32(5));
    let (_, xct) = xwing.encaps(&pk, &seed64(6)).expect("our own key passes the check");
    let oracle_xdk = x_wing::DecapsulationKey::from(seed32(5));
    let oracle_xek = {
        use x_wing::Decapsulator as _;
        oracle_xdk.encapsulation_key().clone()
    };
    let oracle_xct = oracle_xek.encapsulate_deterministic(&seed64(6).into()).0;
    rows.push((
        "X-Wing keygen".to_owned(),
        rate(iterations, |i| {
            black_box(xwing.keygen(&seed32(i)));
        }),
        rate(iterations, |i| {
            use x_wing::{Decapsulator as _, KeyExport as _};
            black_box(x_wing::DecapsulationKey::from(seed32(i)).encapsulation_key().to_bytes());
        }),
    ));
    rows.push((
        "X-Wing encaps".to_owned(),
        rate(iterations, |i| {
            black_box(xwing.encaps(&pk, &seed64(i)).ok());
        }),
        rate(iterations, |i| {
            let key = x_wing::EncapsulationKey::try_from(pk.as_slice()).ok();
            black_box(key.map(|k| k.encapsulate_deterministic(&seed64(i).into())));
        }),
    ));
    rows.push((
        "X-Wing decaps (cold)".to_owned(),
        rate(iterations, |_| {
            black_box(xwing.decaps(&seed32(5), &xct).ok());
        }),
        rate(iterations, |_| {
            use x_wing::Decapsulate as _;
            black_box(oracle_xdk.decapsulate(&oracle_xct));
        }),
    ));
    rows.extend(fndsa_rows(9, iterations));
    rows.extend(fndsa_rows(10, iterations));
    rows
}

/// FN-DSA key generation (a tenth of the iterations: it is ~100x slower than signing), signing and verification
/// at one degree.
fn fndsa_rows(logn: u32, iterations: u32) -> Vec<(String, f64, f64)> {
    use fn_dsa::{
        DomainContext, HashIdentifier, KeyPairGenerator, KeyPairGeneratorStandard, SigningKey as _, SigningKeyStandard,
        VerifyingKey as _, VerifyingKeyStandard,
    };
    use rand::SeedableRng;
    let name = format!("FN-DSA-{}", 1 << logn);
    let seed32 = |i: u32| -> [u8; 32] { std::array::from_fn(|j| (i as u8) ^ (j as u8) ^ 0x5C) };
    let seed40 = |i: u32| -> [u8; 40] { std::array::from_fn(|j| (i as u8).wrapping_mul(3) ^ (j as u8)) };
    let mut rng = rand_chacha::ChaCha20Rng::seed_from_u64(u64::from(logn));
    let mut kernels = ReferenceKernels::default();
    let (sk, vk) = fndsa::keygen(&mut kernels, logn, &seed32(1)).expect("keygen of a valid degree");
    let key = fndsa::SigningKey::decode(&sk).expect("our own key decodes");
    let verifier = fndsa::VerifyingKey::decode(&vk).expect("our own key decodes");
    let sig = key.sign(&mut kernels, &seed40(1), b"", HashId::RAW, b"message").expect("signing with a valid key");
    let mut oracle_key = SigningKeyStandard::decode(&sk).expect("the crate decodes our key");
    let oracle_verifier = VerifyingKeyStandard::decode(&vk).expect("the crate decodes our key");
    let (ctx, id) = (DomainContext(b""), HashIdentifier(HashId::RAW.0));
    vec![
        (
            format!("{name} keygen"),
            rate(iterations.div_ceil(10), |i| {
                black_box(fndsa::keygen(&mut kernels, logn, &seed32(i)).ok());
            }),
            rate(iterations.div_ceil(10), |_| {
                let (mut sk, mut vk) = (vec![0; sk.len()], vec![0; vk.len()]);
                KeyPairGeneratorStandard::default().keygen(logn, &mut rng, &mut sk, &mut vk);
                black_box((sk, vk));
            }),
        ),
        (
            format!("{name} sign"),
            rate(iterations, |i| {
                black_box(key.sign(&mut kernels, &seed40(i), b"", HashId::RAW, b"message").ok());
            }),
            rate(iterations, |_| {
                let mut out = vec![0; sig.len()];
                black_box(oracle_key.sign(&mut rng, &ctx, &id, b"message", &mut out));
            }),
        ),
        (
            format!("{name} verify"),
            rate(iterations, |_| {
                black_box(verifier.verify(&mut fndsa::Reference, &sig, b"", HashId::RAW, b"message").is_ok());
            }),
            rate(iterations, |_| {
                black_box(oracle_verifier.verify(&sig, &ctx, &id, b"message"));
            }),
        ),
    ]
}

#[cfg(test)]
mod tests {
    #[test]
    fn every_operation_has_positive_rates() {
        let rows = super::run(2);
        assert_eq!(rows.len(), 12);
        for (name, ours, oracle) in rows {
            assert!(ours > 0.0 && oracle > 0.0, "{name}");
        }
    }
}
