//! Each class of malformed FN-DSA v0.4 input gets its own typed error; the encoders round-trip.

use fn_dsa::{
    DomainContext, HashIdentifier, KeyPairGenerator, KeyPairGeneratorStandard, SigningKey, SigningKeyStandard,
    VerifyingKey as _, VerifyingKeyWeak, sign_key_size, signature_size, vrfy_key_size,
};
use pqhelium_core::fndsa::codec::{comp_decode, comp_encode, encode_verifying_key, modq_decode, modq_encode};
use pqhelium_core::fndsa::{self, Error, HashId, Reference, Signature, VerifyingKey};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha20Rng;

/// A genuine FN-DSA-512 key and signature of "message" in context "ctx", from the crate.
fn genuine() -> (Vec<u8>, Vec<u8>) {
    let mut rng = ChaCha20Rng::seed_from_u64(5);
    let mut sk = vec![0; sign_key_size(9)];
    let mut vk = vec![0; vrfy_key_size(9)];
    let mut sig = vec![0; signature_size(9)];
    KeyPairGeneratorStandard::default().keygen(9, &mut rng, &mut sk, &mut vk);
    SigningKeyStandard::decode(&sk)
        .expect("key")
        .sign(&mut rng, &DomainContext(b"ctx"), &HashIdentifier(HashId::RAW.0), b"message", &mut sig)
        .expect("sign");
    (vk, sig)
}

/// Writes `nbits` of `value` at bit `pos`, little-endian bit order.
fn put_bits(d: &mut [u8], pos: usize, value: u32, nbits: usize) {
    for k in 0..nbits {
        let p = pos + k;
        d[p / 8] = (d[p / 8] & !(1 << (p % 8))) | ((((value >> k) & 1) as u8) << (p % 8));
    }
}

#[test]
fn sizes_match_the_crate() {
    for logn in 2..=10 {
        assert_eq!(fndsa::verifying_key_size(logn), vrfy_key_size(logn));
        assert_eq!(fndsa::signature_size(logn), signature_size(logn));
    }
    assert_eq!((fndsa::verifying_key_size(9), fndsa::signature_size(9)), (897, 666));
    assert_eq!((fndsa::verifying_key_size(10), fndsa::signature_size(10)), (1793, 1280));
}

#[test]
fn round_trips() {
    let (vk, sig) = genuine();
    let key = VerifyingKey::decode(&vk).expect("key");
    assert_eq!(key.encode(), vk);
    assert_eq!(encode_verifying_key(9, key.h_ntt()).expect("encode"), vk);
    let s = Signature::decode(9, &sig).expect("signature");
    assert_eq!(s.encode().expect("encode"), sig);
    assert_eq!(key.verify(&mut Reference, &sig, b"ctx", HashId::RAW, b"message"), Ok(()));

    let mut rng = ChaCha20Rng::seed_from_u64(6);
    for logn in 2..=10u32 {
        let n = 1 << logn;
        let s2: Vec<i16> = (0..n).map(|_| rng.gen_range(-200..=200)).collect();
        let mut nonce = [0; 40];
        rng.fill(&mut nonce[..]);
        let s = Signature { logn, nonce, s2 };
        let bytes = s.encode().expect("fits");
        assert_eq!(bytes.len(), fndsa::signature_size(logn));
        assert_eq!(Signature::decode(logn, &bytes), Ok(s));
        let h: Vec<u16> = (0..n).map(|_| rng.gen_range(0..12289)).collect();
        let bytes = encode_verifying_key(logn, &h).expect("encode");
        assert_eq!(VerifyingKey::decode(&bytes).expect("decode").h_ntt(), h);
    }
    // Extremes of the bound.
    let s2 = vec![840, -840, 1, -1, 0, 127, -128, 768];
    assert_eq!(comp_decode(&comp_encode(&s2, 20).expect("fits"), 8), Ok(s2));
}

#[test]
fn verifying_key_empty() {
    assert_eq!(VerifyingKey::decode(&[]), Err(Error::Empty));
}

#[test]
fn verifying_key_wrong_header() {
    let (mut vk, _) = genuine();
    for head in [0x09 | 0x10, 0x39, 0x89] {
        vk[0] = head;
        assert_eq!(VerifyingKey::decode(&vk), Err(Error::VerifyingKeyHeader(head)));
    }
    for logn in [0u8, 1, 11, 15] {
        vk[0] = logn;
        assert_eq!(VerifyingKey::decode(&vk), Err(Error::UnsupportedDegree(u32::from(logn))));
    }
}

#[test]
fn verifying_key_wrong_length() {
    let (vk, _) = genuine();
    assert_eq!(VerifyingKey::decode(&vk[..896]), Err(Error::Length { got: 896, expected: 897 }));
    let mut longer = vk.clone();
    longer.push(0);
    assert_eq!(VerifyingKey::decode(&longer), Err(Error::Length { got: 898, expected: 897 }));
    // A valid degree-8 header on a degree-9 body.
    let mut other = vk;
    other[0] = 8;
    assert_eq!(VerifyingKey::decode(&other), Err(Error::Length { got: 897, expected: 449 }));
}

#[test]
fn verifying_key_unreduced_coefficient() {
    let (vk, _) = genuine();
    for (index, value) in [(0usize, 12289u16), (5, 16383), (511, 12290)] {
        let mut m = vk.clone();
        put_bits(&mut m[1..], 14 * index, u32::from(value), 14);
        assert_eq!(VerifyingKey::decode(&m), Err(Error::CoefficientNotReduced { index, value }));
        assert!(VerifyingKeyWeak::decode(&m).is_none() && fn_dsa::VerifyingKeyStandard::decode(&m).is_none());
    }
    assert_eq!(modq_decode(&[0xFF; 7], 4), Err(Error::CoefficientNotReduced { index: 0, value: 16383 }));
    assert_eq!(modq_encode(&[0, 1, 12289, 0]), Err(Error::CoefficientNotReduced { index: 2, value: 12289 }));
}

#[test]
fn signature_wrong_length() {
    let (vk, sig) = genuine();
    let key = VerifyingKey::decode(&vk).expect("key");
    let verify = |s: &[u8]| key.verify(&mut Reference, s, b"ctx", HashId::RAW, b"message");
    assert_eq!(verify(&sig[..665]), Err(Error::Length { got: 665, expected: 666 }));
    assert_eq!(verify(&[sig.as_slice(), &[0]].concat()), Err(Error::Length { got: 667, expected: 666 }));
    assert_eq!(verify(&[]), Err(Error::Length { got: 0, expected: 666 }));
}

#[test]
fn signature_wrong_header() {
    let (vk, mut sig) = genuine();
    let key = VerifyingKey::decode(&vk).expect("key");
    for head in [0x3A, 0x29, 0x00, 0xB9] {
        sig[0] = head;
        let got = key.verify(&mut Reference, &sig, b"ctx", HashId::RAW, b"message");
        assert_eq!(got, Err(Error::SignatureHeader { got: head, expected: 0x39 }));
    }
}

#[test]
fn compressed_negative_zero() {
    // Coefficient 1 is '-0': sign bit set, low bits 0, unary terminator at once.
    let mut d = comp_encode(&[5, 0, 7, 0], 8).expect("fits");
    put_bits(&mut d, 9, 1, 1);
    assert_eq!(comp_decode(&d, 4), Err(Error::NegativeZero { index: 1 }));
}

#[test]
fn compressed_coefficient_beyond_bound() {
    // 841 = 6*128 + 73: a canonical-looking encoding of a value past B_inf.
    let mut d = vec![0u8; 8];
    put_bits(&mut d, 0, 73 << 1, 8);
    put_bits(&mut d, 8, 1 << 6, 7);
    assert_eq!(comp_decode(&d, 1), Err(Error::CoefficientTooLarge { index: 0, magnitude: 841 }));
    // Seven unary zeros: at least 896, rejected without reading on.
    let mut d = vec![0u8; 8];
    put_bits(&mut d, 0, 3 << 1, 8);
    put_bits(&mut d, 8, 1 << 7, 8);
    assert_eq!(comp_decode(&d, 1), Err(Error::CoefficientTooLarge { index: 0, magnitude: 3 + 6 * 128 + 128 }));
    // Encoders refuse such values too.
    for bad in [841i16, -841, i16::MIN, i16::MAX] {
        let got = comp_encode(&[0, bad], 100);
        assert_eq!(got, Err(Error::CoefficientTooLarge { index: 1, magnitude: u32::from(bad.unsigned_abs()) }));
    }
}

#[test]
fn compressed_non_zero_padding() {
    let (vk, sig) = genuine();
    let key = VerifyingKey::decode(&vk).expect("key");
    let s2 = Signature::decode(9, &sig).expect("signature").s2;
    let used: usize = s2.iter().map(|x| 9 + (x.unsigned_abs() as usize >> 7)).sum();
    let first = 8 * 41 + used;
    assert!(first < 8 * 666, "this signature has padding");
    for bit in [first, (first + 8 * 666) / 2, 8 * 666 - 1] {
        let mut m = sig.clone();
        m[bit / 8] |= 1 << (bit % 8);
        assert_eq!(Signature::decode(9, &m), Err(Error::NonZeroPadding), "bit {bit}");
        assert_eq!(key.verify(&mut Reference, &m, b"ctx", HashId::RAW, b"message"), Err(Error::NonZeroPadding));
    }
    // Padding inside the last partly used byte.
    let mut d = comp_encode(&[1], 2).expect("fits");
    assert_eq!(d, [0x02, 0x01]);
    d[1] |= 0x40;
    assert_eq!(comp_decode(&d, 1), Err(Error::NonZeroPadding));
}

#[test]
fn compressed_truncated() {
    // The unary part of coefficient 0 is missing.
    assert_eq!(comp_decode(&[0x02], 1), Err(Error::Truncated { index: 0 }));
    // Coefficient 0 uses 9 bits, leaving 7 of the 8 that coefficient 1 needs.
    assert_eq!(comp_decode(&[0x02, 0x01], 2), Err(Error::Truncated { index: 1 }));
    // Two zeros take 18 of 32 bits; a third has its 8 head bits, then 6 zero bits and no unary terminator.
    let d = comp_encode(&[0, 0], 4).expect("fits");
    assert_eq!(comp_decode(&d, 2), Ok(vec![0, 0]));
    assert_eq!(comp_decode(&d, 3), Err(Error::Truncated { index: 2 }));
}

#[test]
fn compressed_too_many_bits_to_encode() {
    // Every coefficient at 840 takes 15 bits: 512 of them cannot fit the 625 bytes of an FN-DSA-512 signature.
    let s = Signature { logn: 9, nonce: [0; 40], s2: vec![840; 512] };
    assert_eq!(s.encode(), Err(Error::TooManyBits { capacity: 625 }));
}

#[test]
fn hash_inputs() {
    let (vk, sig) = genuine();
    let key = VerifyingKey::decode(&vk).expect("key");
    let long = [0u8; 256];
    assert_eq!(key.verify(&mut Reference, &sig, &long, HashId::RAW, b"message"), Err(Error::ContextTooLong(256)));
    assert_eq!(key.verify(&mut Reference, &sig, b"", HashId::EXTERNAL_MU, &[0; 63]), Err(Error::ExternalMuLength(63)));
    assert_eq!(fndsa::compute_mu(key.hashed(), b"", HashId::EXTERNAL_MU, b""), Err(Error::ExternalMuNotHashable));
    // 255 bytes is still a valid context (and then the wrong one).
    let got = key.verify(&mut Reference, &sig, &long[..255], HashId::RAW, b"message");
    assert!(matches!(got, Err(Error::S1TooLarge { .. } | Error::NormTooLarge { .. })), "{got:?}");
}

/// With h = 0, s1 = c: a nonce whose c is short everywhere separates the two norm checks.
#[test]
fn norm_checks() {
    let logn = 2;
    let vk = encode_verifying_key(logn, &[0; 4]).expect("encode");
    let key = VerifyingKey::decode(&vk).expect("key");
    let mu = [0x5A; 64];
    let mut c = [0u16; 4];
    let mut nonce = [0u8; 40];
    let short = (0u32..)
        .find(|&i| {
            nonce[..4].copy_from_slice(&i.to_le_bytes());
            fndsa::hash_to_point(&nonce, &mu, &mut c);
            c.iter().all(|&x| fndsa::ntt::centred(x).abs() <= 840)
        })
        .expect("a short c exists");
    let sig = |s2: Vec<i16>, nonce: [u8; 40]| Signature { logn, nonce, s2 }.encode().expect("fits");
    let crate_key = VerifyingKeyWeak::decode(&vk).expect("crate key");
    let crate_verdict = |s: &[u8]| crate_key.verify(s, &DomainContext(b""), &HashIdentifier(&[0xFE]), &mu);

    // c short but s2 long: only the squared norm fails.
    let long = sig(vec![300, -300, 300, -300], nonce);
    let got = key.verify_mu(&mut Reference, &long, &mu);
    assert!(matches!(got, Err(Error::NormTooLarge { bound: 208714, .. })), "nonce {short}: {got:?}");
    assert!(!crate_verdict(&long));

    // s2 = 0: accepted exactly when |c|^2 fits, as the crate decides.
    let zero = sig(vec![0; 4], nonce);
    let norm: i64 = c.iter().map(|&x| i64::from(fndsa::ntt::centred(x)).pow(2)).sum();
    assert_eq!(key.verify_mu(&mut Reference, &zero, &mu).is_ok(), norm <= 208714);
    assert_eq!(crate_verdict(&zero), norm <= 208714);

    // Another nonce whose c has a coefficient past B_inf.
    let mut other = nonce;
    other[4] = 1;
    fndsa::hash_to_point(&other, &mu, &mut c);
    let index = c.iter().position(|&x| fndsa::ntt::centred(x).abs() > 840).expect("a long coefficient");
    let magnitude = fndsa::ntt::centred(c[index]).unsigned_abs();
    let got = key.verify_mu(&mut Reference, &sig(vec![0; 4], other), &mu);
    assert_eq!(got, Err(Error::S1TooLarge { index, magnitude }));
    assert!(!crate_verdict(&sig(vec![0; 4], other)));
}
