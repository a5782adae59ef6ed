//! The models state their constants themselves or derive them from first principles, without the reference
//! (`pqhelium-core` is only a dev-dependency of the sim, for tests like these). Here every such constant is compared
//! with the reference's, so a wrong constant on either side fails.

use pqhelium_core::fndsa::fpu;
use pqhelium_core::fndsa::keygen::fxp;
use pqhelium_core::{fndsa, keccak as core_keccak, mlkem, x25519};
use pqhelium_sim::{fndsa_ntt, fxp_fft, keccak, mlkem_ntt, tables, x25519_fe};

#[test]
fn keccak_round_constants_and_rho_offsets_are_the_references() {
    assert_eq!(keccak::ROUND_CONSTANTS, core_keccak::ROUND_CONSTANTS);
    assert_eq!(keccak::RHO_OFFSETS, core_keccak::RHO_OFFSETS);
}

#[test]
fn mlkem_modulus_degree_and_twiddles_are_the_references_and_fips_203s() {
    assert_eq!((mlkem_ntt::Q, mlkem_ntt::N), (mlkem::Q, mlkem::N));
    // FIPS 203, Appendix A: the first zeta^BitRev7(i) and zeta^(2 BitRev7(i) + 1), centred.
    assert_eq!(mlkem_ntt::ZETA[..8], [1, 1729 - 3329, 2580 - 3329, 3289 - 3329, 2642 - 3329, 630, 1897 - 3329, 848]);
    assert_eq!(mlkem_ntt::GAMMA[..4], [17, -17, 2761 - 3329, 3329 - 2761]);
}

#[test]
fn fndsa_modulus_generator_and_twiddles_are_the_references() {
    assert_eq!(u32::try_from(fndsa_ntt::Q).unwrap(), fndsa::ntt::Q);
    assert_eq!(fndsa_ntt::G, fndsa::ntt::G);
    // The reference's Montgomery twiddles GM[k] = g^rev10(k) 2^32 mod q (in [1, q]) and IGM[k] = g^-rev10(k) 2^31.
    let q = i64::from(fndsa::ntt::Q);
    let scaled = |w: i16, bits: u32| ((i64::from(w) << bits).rem_euclid(q) + q - 1) % q + 1;
    for k in 0..1024 {
        assert_eq!(scaled(fndsa_ntt::ZETA[k], 32), i64::from(fndsa::ntt::GM[k]), "zeta {k}");
        assert_eq!(scaled(fndsa_ntt::IZETA[k], 31), i64::from(fndsa::ntt::IGM[k]), "izeta {k}");
    }
}

#[test]
fn keygen_fft_roots_are_the_references() {
    assert_eq!(fxp_fft::roots(), fxp::roots());
}

#[test]
fn signing_fft_twiddles_are_the_references() {
    let reference: Vec<u64> = fpu::gm().iter().map(|x| x.to_bits()).collect();
    assert_eq!(tables::fpu_gm(), reference);
}

#[test]
fn the_x25519_fixed_base_table_is_the_references() {
    assert_eq!(
        (x25519_fe::SIGNED_WINDOWS, x25519_fe::SIGNED_ENTRIES, x25519_fe::SIGNED_WINDOW_BITS),
        (x25519::SIGNED_WINDOWS, x25519::SIGNED_ENTRIES, x25519::SIGNED_WINDOW_BITS)
    );
    let reference = x25519::signed_window_table();
    assert_eq!(x25519_fe::base_table().len(), reference.len());
    for (i, (ours, theirs)) in x25519_fe::base_table().iter().zip(&reference).enumerate() {
        for (j, (entry, niels)) in ours.iter().zip(theirs).enumerate() {
            let bytes: Vec<u8> = entry.iter().flat_map(|l| l.to_le_bytes()).collect();
            assert_eq!(bytes, niels.concat(), "window {i}, entry {j}");
        }
    }
}

#[test]
fn keygen_primes_are_the_references() {
    let ours = pqhelium_sim::keygen_primes::primes();
    let reference = fndsa::keygen::mp31::primes();
    assert_eq!(ours.len(), reference.len());
    for (a, b) in ours.iter().zip(reference) {
        assert_eq!((a.p, a.p0i, a.r2, a.g, a.ig, a.s), (b.p, b.p0i, b.r2, b.g, b.ig, b.s), "prime {}", b.p);
    }
}
