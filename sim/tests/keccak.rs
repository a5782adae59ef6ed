//! The interleaved Keccak model against the plain 64-bit reference.

use pqhelium_core::keccak::{ROUND_CONSTANTS, keccak_f1600};
use pqhelium_sim::keccak::{ROUND_CONSTANTS_INTERLEAVED, deinterleave, interleave, keccak_f1600_interleaved};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

/// The layout, spelled out one bit at a time.
fn naive_interleave(lanes: &[u64; 25]) -> [u32; 50] {
    let mut words = [0u32; 50];
    for (i, &lane) in lanes.iter().enumerate() {
        for k in 0..32 {
            words[2 * i] |= (((lane >> (2 * k)) & 1) as u32) << k;
            words[2 * i + 1] |= (((lane >> (2 * k + 1)) & 1) as u32) << k;
        }
    }
    words
}

fn random_lanes(rng: &mut ChaCha8Rng) -> [u64; 25] {
    core::array::from_fn(|_| rng.r#gen())
}

#[test]
fn interleave_matches_naive_definition() {
    let mut rng = ChaCha8Rng::seed_from_u64(0x1E_0001);
    for _ in 0..10_000 {
        let s = random_lanes(&mut rng);
        assert_eq!(interleave(&s), naive_interleave(&s), "state {s:x?}");
    }
    // Single bits pin down every position exactly.
    for bit in 0..1600 {
        let mut s = [0u64; 25];
        s[bit / 64] = 1 << (bit % 64);
        assert_eq!(interleave(&s), naive_interleave(&s), "bit {bit}");
    }
}

#[test]
fn interleave_and_deinterleave_are_inverse() {
    let mut rng = ChaCha8Rng::seed_from_u64(0x1E_0002);
    for _ in 0..10_000 {
        let s = random_lanes(&mut rng);
        assert_eq!(deinterleave(&interleave(&s)), s);
        let words: [u32; 50] = core::array::from_fn(|_| rng.r#gen());
        assert_eq!(interleave(&deinterleave(&words)), words);
    }
}

#[test]
fn round_constants_are_split_correctly() {
    for (ir, (&rc, split)) in ROUND_CONSTANTS.iter().zip(&ROUND_CONSTANTS_INTERLEAVED).enumerate() {
        let mut lanes = [0u64; 25];
        lanes[0] = rc;
        let words = naive_interleave(&lanes);
        assert_eq!(*split, [words[0], words[1]], "round {ir}");
    }
}

fn check_against_reference(s: [u64; 25], what: &str) {
    let mut expected = s;
    keccak_f1600(&mut expected);
    let mut words = interleave(&s);
    keccak_f1600_interleaved(&mut words);
    assert_eq!(deinterleave(&words), expected, "{what}");
}

#[test]
fn permutation_matches_reference_on_fixed_states() {
    check_against_reference([0; 25], "all-zero");
    check_against_reference([u64::MAX; 25], "all-ones");
    for bit in 0..1600 {
        let mut s = [0u64; 25];
        s[bit / 64] = 1 << (bit % 64);
        check_against_reference(s, &format!("single bit {bit}"));
    }
}

#[test]
fn permutation_matches_reference_on_random_states() {
    let seed = 0x1E_0003;
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    for case in 0..10_000 {
        let s = random_lanes(&mut rng);
        check_against_reference(s, &format!("seed {seed:#x}, case {case}"));
    }
}
