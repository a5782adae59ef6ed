//! ML-KEM known answers: the NIST KAT (count = 0 record), mlkem-native's 100-entry SHAKE stream, and the input
//! checks of FIPS 203 sections 7.2 and 7.3. Expected values from /work/shared/facts/xwing.md (PQClean META.yml,
//! mlkem-native META.yml).

use pqhelium_core::drbg::NistDrbg;
use pqhelium_core::keccak::shake256;
use pqhelium_core::mlkem::{ML_KEM_512, ML_KEM_768, ML_KEM_1024, MlKem, MlkemError};
use pqhelium_core::rsp::{self, Record};
use sha2::{Digest, Sha256};

fn sha256_hex(data: &[u8]) -> String {
    hex::encode(Sha256::digest(data))
}

#[test]
fn nist_kat_count_0_record() {
    let entropy: [u8; 48] = std::array::from_fn(|i| i as u8);
    let mut seed = [0u8; 48];
    NistDrbg::new(&entropy).fill(&mut seed);
    assert_eq!(
        hex::encode_upper(seed),
        "061550234D158C5EC95595FE04EF7A25767F2E24CC2BC479D09D86DC9ABCFDE7056A8C266F9EF97ED08541DBD2E1FFA1"
    );
    let mut drbg = NistDrbg::new(&seed);
    let mut coins = [0u8; 64];
    drbg.fill(&mut coins);
    let mut m = [0u8; 32];
    drbg.fill(&mut m);
    let kem = MlKem::reference(ML_KEM_768);
    let (pk, sk) = kem.keygen_internal(coins[..32].try_into().unwrap(), coins[32..].try_into().unwrap());
    let (ss, ct) = kem.encaps(&pk, &m).unwrap();
    assert_eq!(kem.decaps(&sk, &ct).unwrap(), ss);
    assert_eq!(hex::encode_upper(ss), "AC865F839FEF1BF3D528DD7504BED2F64B5502B0FA81D1C32763658E4AAC5037");
    let record = Record::new(0).with("seed", &seed).with("pk", &pk).with("sk", &sk).with("ct", &ct).with("ss", &ss);
    let text = record.to_rsp();
    assert_eq!(sha256_hex(text.as_bytes()), "5352539586b6c3df58be6158a6250aeff402bd73060b0a3de68850ac074c17c3");
    assert_eq!(rsp::parse(&text).unwrap(), vec![record]);
}

#[test]
fn mlkem_native_kat_stream_768() {
    let kem = MlKem::reference(ML_KEM_768);
    let seed: Vec<u8> = (32..96).collect();
    let mut coins = [0u8; 96];
    shake256(&seed, &mut coins);
    let mut out = String::new();
    for _ in 0..100 {
        let previous = coins;
        shake256(&previous, &mut coins);
        let (pk, sk) = kem.keygen_internal(coins[..32].try_into().unwrap(), coins[32..64].try_into().unwrap());
        let (ss, ct) = kem.encaps(&pk, coins[64..].try_into().unwrap()).unwrap();
        assert_eq!(kem.decaps(&sk, &ct).unwrap(), ss);
        for (label, value) in [("pk", &pk[..]), ("sk", &sk), ("ct", &ct), ("ss", &ss)] {
            out.push_str(&format!("{label} = {}\n", hex::encode(value)));
        }
    }
    assert_eq!(sha256_hex(out.as_bytes()), "8cff42556667edbd0fec7d0b2666d7710d80db71b684f8b4852a37ece2a4c844");
}

#[test]
fn round_trips_for_every_parameter_set() {
    for params in [ML_KEM_512, ML_KEM_768, ML_KEM_1024] {
        let kem = MlKem::reference(params);
        let (ek, dk) = kem.keygen_internal(&[1; 32], &[2; 32]);
        assert_eq!((ek.len(), dk.len()), (params.ek_len(), params.dk_len()));
        let (ss, ct) = kem.encaps(&ek, &[3; 32]).unwrap();
        assert_eq!(ct.len(), params.ct_len());
        assert_eq!(kem.decaps(&dk, &ct).unwrap(), ss, "{}", params.name);
        let mut tampered = ct.clone();
        tampered[0] ^= 1;
        assert_ne!(kem.decaps(&dk, &tampered).unwrap(), ss, "{}", params.name);
    }
}

#[test]
fn encapsulation_key_check_rejects_coefficients_of_q_and_above() {
    let kem = MlKem::reference(ML_KEM_768);
    let (ek, _) = kem.keygen_internal(&[4; 32], &[5; 32]);
    assert_eq!(kem.check_encapsulation_key(&ek), Ok(()));
    // Coefficient 2 * 256 + 1 lives in bytes 768 + 1 (high nibble) and 768 + 2 of t-hat's encoding.
    for value in [3329u16, 3330, 4095] {
        let mut bad = ek.clone();
        bad[768 + 1] = (bad[768 + 1] & 0x0F) | ((value & 0x0F) << 4) as u8;
        bad[768 + 2] = (value >> 4) as u8;
        assert_eq!(kem.check_encapsulation_key(&bad), Err(MlkemError::CoefficientOutOfRange { index: 513 }));
        assert_eq!(kem.encaps(&bad, &[0; 32]), Err(MlkemError::CoefficientOutOfRange { index: 513 }));
        // Encaps_internal alone takes it (ByteDecode_12 reduces modulo q) and does not panic.
        assert!(kem.encaps_internal(&bad, &[0; 32]).is_ok());
    }
}

#[test]
fn decapsulation_key_check_and_lengths() {
    let kem = MlKem::reference(ML_KEM_768);
    let (ek, dk) = kem.keygen_internal(&[6; 32], &[7; 32]);
    let (_, ct) = kem.encaps(&ek, &[8; 32]).unwrap();
    assert_eq!(kem.check_decapsulation_key(&dk), Ok(()));
    let mut bad = dk.clone();
    bad[1200] ^= 0x80; // inside the stored ek
    assert_eq!(kem.check_decapsulation_key(&bad), Err(MlkemError::HashMismatch));
    assert_eq!(kem.decaps(&bad, &ct), Err(MlkemError::HashMismatch));
    let wrong = |what, expected, actual| MlkemError::WrongLength { what, expected, actual };
    assert_eq!(kem.decaps(&dk[1..], &ct), Err(wrong("decapsulation key", 2400, 2399)));
    assert_eq!(kem.decaps(&dk, &ct[..1000]), Err(wrong("ciphertext", 1088, 1000)));
    assert_eq!(kem.encaps(&ek[..5], &[0; 32]), Err(wrong("encapsulation key", 1184, 5)));
    assert_eq!(kem.encaps_internal(&[], &[0; 32]), Err(wrong("encapsulation key", 1184, 0)));
    assert_eq!(kem.check_encapsulation_key(&ek[..1183]), Err(wrong("encapsulation key", 1184, 1183)));
    assert!(kem.decaps(&[], &[]).is_err());
}
