//! X25519: RFC 7748 sections 5.2 and 6.1, the fixed-base table against the ladder, the shared inversion.

use std::time::Instant;

use pqhelium_core::x25519::{
    BASE_POINT, Reference, x25519, x25519_base, x25519_base_and_shared, x25519_pair_by_ladder,
};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

fn bytes(hex_text: &str) -> [u8; 32] {
    hex::decode(hex_text).unwrap().try_into().unwrap()
}

#[test]
fn rfc7748_section_5_2_vectors() {
    let vectors = [
        (
            "a546e36bf0527c9d3b16154b82465edd62144c0ac1fc5a18506a2244ba449ac4",
            "e6db6867583030db3594c1a424b15f7c726624ec26b3353b10a903a6d0ab1c4c",
            "c3da55379de9c6908e94ea4df28d084f32eccf03491c71f754b4075577a28552",
        ),
        (
            "4b66e9d4d1b4673c5ad22691957d6af5c11b6421e0ea01d42ca4169e7918ba0d",
            "e5210f12786811d3f4b7959d0538ae2c31dbe7106fc03c3efc4cd549c715a493",
            "95cbde9476e8907d7aade45cb4b873f88b595a68799fa152e6f8f7647aac7957",
        ),
    ];
    for (k, u, out) in vectors {
        assert_eq!(hex::encode(x25519(&Reference, &bytes(k), &bytes(u))), out);
    }
}

#[test]
fn rfc7748_iterated_1_and_1000() {
    let (mut k, mut u) = (BASE_POINT, BASE_POINT);
    for i in 1..=1000 {
        let next = x25519(&Reference, &k, &u);
        u = k;
        k = next;
        if i == 1 {
            assert_eq!(hex::encode(k), "422c8e7a6227d7bca1350b3e2bb7279f7897b87bb6854b783c60e80311ae3079");
        }
    }
    assert_eq!(hex::encode(k), "684cf59ba83309552800ef566f2f4d3c1c3887c49360e3875f2eb94d99532c51");
}

#[test]
fn rfc7748_section_6_1_diffie_hellman() {
    let alice = bytes("77076d0a7318a57d3c16c17251b26645df4c2f87ebc0992ab177fba51db92c2a");
    let bob = bytes("5dab087e624a8a4b79e17f8b83800ee66f3bb1292618b6fd1c2f8b27ff88e0eb");
    let alice_pk = x25519_base(&Reference, &alice);
    let bob_pk = x25519_base(&Reference, &bob);
    assert_eq!(hex::encode(alice_pk), "8520f0098930a754748b7ddcb43ef75a0dbf3a0d26381af4eba4a98eaa9b4e6a");
    assert_eq!(hex::encode(bob_pk), "de9edb7d7b7dc1b4d35b61c2ece435373f8343c85b78674dadfc7e146f882b4f");
    assert_eq!(x25519(&Reference, &alice, &BASE_POINT), alice_pk);
    let shared = "4a5d9d5ba4ce2de1728e3bf480350f25e07e21c947d19e3376f09b3c1e161742";
    assert_eq!(hex::encode(x25519(&Reference, &alice, &bob_pk)), shared);
    assert_eq!(hex::encode(x25519(&Reference, &bob, &alice_pk)), shared);
}

/// 100,000 random scalars plus the extreme ones: fixed base and ladder agree. Split over the available cores.
#[test]
fn fixed_base_equals_ladder() {
    let start = Instant::now();
    let mut rng = ChaCha8Rng::seed_from_u64(25519);
    let mut scalars = vec![[0u8; 32], [0xFF; 32]];
    scalars.extend((0..100_000).map(|_| rng.r#gen::<[u8; 32]>()));
    let threads = std::thread::available_parallelism().map_or(1, |n| n.get());
    std::thread::scope(|scope| {
        for chunk in scalars.chunks(scalars.len().div_ceil(threads)) {
            scope.spawn(move || {
                for k in chunk {
                    let ladder = x25519(&Reference, k, &BASE_POINT);
                    assert_eq!(x25519_base(&Reference, k), ladder, "k = {}", hex::encode(k));
                }
            });
        }
    });
    eprintln!("fixed base vs ladder: {} scalars in {:.1?}", scalars.len(), start.elapsed());
}

#[test]
fn base_and_shared_equals_two_separate_calls() {
    let mut rng = ChaCha8Rng::seed_from_u64(7748);
    // Low-order points (0, 1, the order-8 point and p - 1) give a zero shared secret, which must stay zero.
    let mut points = vec![
        [0u8; 32],
        bytes("0100000000000000000000000000000000000000000000000000000000000000"),
        bytes("e0eb7a7c3b41b8ae1656e3faf19fc46ada098deb9c32b1fd866205165f49b800"),
        bytes("ecffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff7f"),
    ];
    points.extend((0..200).map(|_| rng.r#gen::<[u8; 32]>()));
    for (i, u) in points.iter().enumerate() {
        let k: [u8; 32] = rng.r#gen();
        let (public, shared) = x25519_base_and_shared(&Reference, &k, u);
        assert_eq!(public, x25519(&Reference, &k, &BASE_POINT));
        assert_eq!(shared, x25519(&Reference, &k, u));
        assert_eq!(x25519_pair_by_ladder(&Reference, &k, u), (public, shared));
        if i < 4 {
            assert_eq!(shared, [0; 32]);
        }
    }
}

/// RFC 7748 section 5: u-coordinates p..2^255-1 are accepted and taken modulo p, bit 255 is ignored.
#[test]
fn non_canonical_u_is_reduced_and_bit_255_masked() {
    let k = bytes("a546e36bf0527c9d3b16154b82465edd62144c0ac1fc5a18506a2244ba449ac4");
    for small in [0u8, 1, 9, 18] {
        let mut canonical = [0u8; 32];
        canonical[0] = small;
        let mut above_p = [0xFFu8; 32];
        above_p[31] = 0x7F;
        above_p[0] = 0xED + small; // p + small
        let expected = x25519(&Reference, &k, &canonical);
        assert_eq!(x25519(&Reference, &k, &above_p), expected, "p + {small}");
        above_p[31] |= 0x80;
        assert_eq!(x25519(&Reference, &k, &above_p), expected, "p + {small} with bit 255");
        assert_eq!(x25519_dalek::x25519(k, above_p), expected, "oracle, p + {small}");
    }
}
