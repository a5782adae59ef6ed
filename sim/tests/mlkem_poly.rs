//! The ML-KEM polynomial kernels' models (pqhelium_sim::mlkem_poly): the per-coefficient formulas equal FIPS 203's
//! definitions exhaustively (reduction over every int16_t, Compress_d over every representative, Decompress_d over
//! every value), the k = 3 products' bound is proved and tight enough, and the MVE product model agrees with the
//! portable one and with the reference.

use pqhelium_core::mlkem::{MlkemKernels, Reference};
use pqhelium_sim::mlkem_ntt::{self as ntt, Poly};
use pqhelium_sim::mlkem_poly::{self as m, bounds};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

const Q: i64 = ntt::Q as i64;

#[test]
fn reduction_is_canonical_for_every_int16() {
    for x in i16::MIN..=i16::MAX {
        assert_eq!(i64::from(m::canonical(x)), i64::from(x).rem_euclid(Q), "x = {x}");
    }
}

/// round(2^d x / q) mod 2^d, exactly, from the definition (q odd: no ties).
fn compress_exact(d: u32, x: i64) -> i64 {
    let x = x.rem_euclid(Q);
    ((2 * (x << d) + Q) / (2 * Q)).rem_euclid(1 << d)
}

#[test]
fn compression_matches_the_definition_for_every_representative() {
    for d in m::WIDTHS {
        for x in i16::MIN..=i16::MAX {
            assert_eq!(i64::from(m::compress(d, x)), compress_exact(d, i64::from(x)), "d = {d}, x = {x}");
        }
    }
}

#[test]
fn decompression_matches_the_definition() {
    for d in m::WIDTHS {
        for y in 0..1u16 << d {
            // round(q y / 2^d), half up (FIPS 203 4.2.1).
            let exact = (2 * Q * i64::from(y) + (1 << d)) / (2 << d);
            assert_eq!(i64::from(m::decompress(d, y)), exact, "d = {d}, y = {y}");
        }
    }
}

#[test]
fn the_products_bound_is_proved_and_leaves_room() {
    let out = bounds::dot(m::DOT_A_MAX, ntt::ANY_I16).unwrap();
    assert_eq!(out, m::DOT_OUT_MAX, "documented dot/matvec output bound");
    assert!(out < Q, "the output is below q");
    // The chain: products feed the inverse NTT (any int16_t) and add's first operand.
    assert!(out <= m::ADD_A_MAX);
    // The proof fails where it must: a matrix of 16-bit values would overflow the 32-bit sums.
    assert!(bounds::dot(4 * m::DOT_A_MAX, ntt::ANY_I16).is_err());
    assert_eq!(m::ADD_A_MAX + m::ADD_B_MAX, i64::from(i16::MAX));
}

fn random(rng: &mut ChaCha8Rng, max: i16) -> Poly {
    std::array::from_fn(|_| rng.gen_range(-max..=max))
}

fn fips(p: &Poly) -> Poly {
    let mut out = [0; ntt::N];
    for (s, &x) in p.iter().enumerate() {
        out[ntt::mve_coeff(s)] = x;
    }
    out
}

fn canonical(p: &Poly) -> Poly {
    p.map(|x| x.rem_euclid(ntt::Q))
}

#[test]
fn dot_models_agree_with_the_reference_and_stay_inside_the_bound() {
    let mut rng = ChaCha8Rng::seed_from_u64(7);
    let a_max = m::DOT_A_MAX as i16;
    for case in 0..40 {
        let (a, b): (Vec<Poly>, Vec<Poly>) = match case {
            0 => (vec![[a_max; 256]; 3], vec![[i16::MIN; 256]; 3]),
            1 => (vec![[-a_max; 256]; 3], vec![[i16::MIN; 256]; 3]),
            2 => (vec![[a_max; 256]; 3], vec![[i16::MAX; 256]; 3]),
            _ => (
                (0..3).map(|_| random(&mut rng, a_max)).collect(),
                (0..3).map(|_| random(&mut rng, i16::MAX)).collect(),
            ),
        };
        let (af, bf): (Vec<Poly>, Vec<Poly>) = (a.iter().map(fips).collect(), b.iter().map(fips).collect());
        let mut expected = [0; 256];
        Reference.dot(&mut expected, &af, &bf);
        let mve = m::dot_k3_mve(&a, &b);
        let scalar = m::dot_k3_scalar(&af, &bf);
        assert_eq!(canonical(&fips(&mve)), expected, "case {case}: MVE model");
        assert_eq!(canonical(&scalar), expected, "case {case}: portable model");
        assert_eq!(fips(&mve), scalar, "case {case}: both builds compute the same representatives");
        assert!(mve.iter().all(|&x| i64::from(x).abs() <= m::DOT_OUT_MAX), "case {case}");
    }
}

/// The packing models (the kernels' grouped byte formulas) equal the reference's ByteEncode_d and ByteDecode_d, on
/// random polynomials and on one nonzero coefficient at each position (every field of every group).
#[test]
fn packing_equals_the_references_byte_encoding() {
    let mut rng = ChaCha8Rng::seed_from_u64(0xB17E);
    let mut polys: Vec<Poly> = (0..20).map(|_| random(&mut rng, i16::MAX)).collect();
    polys.extend((0..256).map(|i| std::array::from_fn(|j| if i == j { Q as i16 - 1 } else { 0 })));
    for p in &polys {
        for d in m::WIDTHS {
            let mut expected = vec![0u8; 32 * d as usize];
            Reference.compress(d, &mut expected, p);
            assert_eq!(m::compress_poly(d, p, false), expected, "compress d = {d}");
            let mut back = [0; ntt::N];
            Reference.decompress(d, &mut back, &expected);
            assert_eq!(m::decompress_poly(d, &expected, false), back, "decompress d = {d}");
        }
        let c = canonical(p);
        let mut expected = vec![0u8; 384];
        Reference.encode12(&mut expected, &c);
        assert_eq!(m::encode12(&c, false), expected, "encode12");
        let bytes: Vec<u8> = (0..384).map(|_| rng.r#gen()).collect();
        let mut decoded = [0; ntt::N];
        Reference.decode12(&mut decoded, &bytes);
        assert_eq!(m::decode12(&bytes, false), decoded, "decode12");
    }
}
