//! X-Wing draft 10 appendix C vectors, regenerated from the SHAKE128("") stream (32-byte seed, then 64-byte eseed,
//! three times). Expected values from /work/shared/facts/xwing.md.

use pqhelium_core::keccak::Shake128;
use pqhelium_core::mlkem::MlkemError;
use pqhelium_core::xwing::{CIPHERTEXT_SIZE, XWing, XWingError};
use sha2::{Digest, Sha256};

struct Expected {
    eseed: &'static str,
    ss: &'static str,
    pk_sha256: &'static str,
    ct_sha256: &'static str,
}

const VECTORS: [Expected; 3] = [
    Expected {
        eseed: "3cb1eea988004b93103cfb0aeefd2a686e01fa4a58e8a3639ca8a1e3f9ae57e235b8cc873c23dc62b8d260169afa2f75ab916a58d974918835d25e6a435085b2",
        ss: "d2df0522128f09dd8e2c92b1e905c793d8f57a54c3da25861f10bf4ca613e384",
        pk_sha256: "2e816deebcd76c5c80d0cd2d174478871658e8e2ff42bc9d4a6e486372e856bb",
        ct_sha256: "17cd532d657e44c897ca6583e548a5424fc70bf54f99515a4d2bcf99e3469f33",
    },
    Expected {
        eseed: "17cda7cfad765f5623474d368ccca8af0007cd9f5e4c849f167a580b14aabdefaee7eef47cb0fca9767be1fda69419dfb927e9df07348b196691abaeb580b32d",
        ss: "f2e86241c64d60f6649fbc6c5b7d17180b780a3f34355e64a85749949c45f150",
        pk_sha256: "c42ba5f8430d7d2c83739338203819f090e8303ce9c8b02107c272bfa5376916",
        ct_sha256: "1661ea86d608a1924ba30840cb0a65f13ae051e3aec9cf0f064efc0bc92f2154",
    },
    Expected {
        eseed: "22a96188d032675c8ac850933c7aff1533b94c834adbb69c6115bad4692d8619f90b0cdf8a7b9c264029ac185b70b83f2801f2f4b3f70c593ea3aeeb613a7f1b",
        ss: "953f7f4e8c5b5049bdc771d1dffada0dd961477d1a2ae0988baa7ea6898d893f",
        pk_sha256: "6b080d6b84f095342092fa7a22423e58bd681397ad0ef00eac92bd254db4fa95",
        ct_sha256: "d3ca5578500344b5896cffc4fd740c9311946b82951df155e6fd86a7966b43c6",
    },
];

#[test]
fn draft10_vectors_from_the_shake128_stream() {
    let xwing = XWing::reference();
    let mut stream = Shake128::new();
    for expected in &VECTORS {
        let mut seed = [0u8; 32];
        let mut eseed = [0u8; 64];
        stream.squeeze(&mut seed);
        stream.squeeze(&mut eseed);
        assert_eq!(hex::encode(eseed), expected.eseed);
        let pk = xwing.keygen(&seed);
        let (ss, ct) = xwing.encaps(&pk, &eseed).unwrap();
        assert_eq!(hex::encode(ss), expected.ss);
        assert_eq!(hex::encode(Sha256::digest(pk)), expected.pk_sha256);
        assert_eq!(hex::encode(Sha256::digest(ct)), expected.ct_sha256);
        assert_eq!(xwing.decaps(&seed, &ct).unwrap(), ss);
        let expanded = xwing.expand_key(&seed);
        assert_eq!(expanded.encapsulation_key(), pk);
        assert_eq!(xwing.decaps_expanded(&expanded, &ct).unwrap(), ss);
    }
}

#[test]
fn malformed_inputs_are_typed_errors() {
    let xwing = XWing::reference();
    let seed = [9u8; 32];
    let pk = xwing.keygen(&seed);
    let eseed = [1u8; 64];
    let wrong = |what, expected, actual| XWingError::WrongLength { what, expected, actual };
    assert_eq!(xwing.encaps(&pk[..1215], &eseed), Err(wrong("encapsulation key", 1216, 1215)));
    assert_eq!(xwing.decaps(&seed, &[0; CIPHERTEXT_SIZE + 1]), Err(wrong("ciphertext", 1120, 1121)));
    assert_eq!(xwing.decaps_expanded(&xwing.expand_key(&seed), &[]), Err(wrong("ciphertext", 1120, 0)));
    let mut bad = pk;
    bad[0] = 0xFF;
    bad[1] |= 0x0F; // coefficient 0 = 4095
    assert_eq!(xwing.encaps(&bad, &eseed), Err(XWingError::MlKem(MlkemError::CoefficientOutOfRange { index: 0 })));
}

#[test]
fn invalid_ciphertexts_decapsulate_by_implicit_rejection() {
    let xwing = XWing::reference();
    let seed = [3u8; 32];
    let pk = xwing.keygen(&seed);
    let (ss, ct) = xwing.encaps(&pk, &[5; 64]).unwrap();
    let mut tampered = ct;
    tampered[10] ^= 4;
    let rejected = xwing.decaps(&seed, &tampered).unwrap();
    assert_ne!(rejected, ss);
    assert_eq!(xwing.decaps(&seed, &tampered).unwrap(), rejected);
}
