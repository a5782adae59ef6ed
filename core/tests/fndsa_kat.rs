//! The published FN-DSA v0.4 known answers (`vectors/fndsa.kat`, provenance in `vectors/README.md`), all of them,
//! with our key generation and our signer end to end: 90 signature KATs (logn 2..10, j 0..9) and 300 key-generation
//! KATs (seeds "test0".."test99" at logn 8, 9, 10).

use pqhelium_core::fndsa::{self, HashId, ReferenceKernels, SigningKey};
use pqhelium_core::keccak;
use sha2::{Digest, Sha256};

const VECTORS: &str = include_str!("../../vectors/fndsa.kat");

/// One known answer: its name and its fields (name, bytes).
type Entry = (String, Vec<(String, Vec<u8>)>);

/// The entries of one suite.
fn entries(suite: &str) -> Vec<Entry> {
    VECTORS
        .lines()
        .filter(|l| l.split_whitespace().next() == Some(suite))
        .map(|l| {
            let mut words = l.split_whitespace().skip(1);
            let name = words.next().expect("entry name").to_owned();
            let fields = words
                .map(|w| {
                    let (k, v) = w.split_once('=').expect("field=hex");
                    (k.to_owned(), hex::decode(v).expect("hex"))
                })
                .collect();
            (name, fields)
        })
        .collect()
}

fn field<'a>(fields: &'a [(String, Vec<u8>)], key: &str) -> &'a [u8] {
    &fields.iter().find(|(k, _)| k == key).unwrap_or_else(|| panic!("field {key}")).1
}

#[test]
fn signature_kat_with_our_keygen_and_signer() {
    let kats = entries("fndsa");
    assert_eq!(kats.len(), 90);
    for (name, fields) in kats {
        let (logn, j) = (field(&fields, "logn")[0], field(&fields, "j")[0]);
        // SHAKE256(logn || j as 4 bytes LE) = seed_kgen (32) || seed_sign (40).
        let mut seeds = [0u8; 72];
        keccak::shake256(&[logn, j, 0, 0, 0], &mut seeds);
        let mut kernels = ReferenceKernels::default();
        let (sk, vk) = fndsa::keygen(&mut kernels, logn.into(), seeds[..32].try_into().unwrap()).expect(&name);
        let key = SigningKey::decode_with(&mut kernels, &sk).expect(&name);
        let sha3 = keccak::sha3_256(b"message");
        let (id, hv) = if j % 2 == 1 { (HashId::SHA3_256, &sha3[..]) } else { (HashId::RAW, &b"message"[..]) };
        let sig = key.sign(&mut kernels, seeds[32..].try_into().unwrap(), b"domain", id, hv).expect(&name);
        let value = keccak::sha3_256(&[sk, vk, sig].concat());
        assert_eq!(hex::encode(value), hex::encode(field(&fields, "value")), "{name}");
    }
}

#[test]
fn keygen_kat() {
    let kats = entries("fndsa-keygen");
    assert_eq!(kats.len(), 300);
    for (name, fields) in kats {
        let logn = field(&fields, "logn")[0];
        let keys = fndsa::keygen_from_seed(&mut ReferenceKernels::default(), logn.into(), field(&fields, "seed"))
            .expect(&name);
        let bytes: Vec<u8> =
            [keys.f, keys.g, keys.capital_f, keys.capital_g].concat().into_iter().map(|c| c as u8).collect();
        assert_eq!(hex::encode(Sha256::digest(bytes)), hex::encode(field(&fields, "fgFG_sha256")), "{name}");
    }
}
