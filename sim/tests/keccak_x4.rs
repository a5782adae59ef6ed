//! The MVE Keccak models (`pqhelium_sim::keccak_x4`) against the plain 64-bit reference: the x4 permutation equals
//! four single permutations, lane by lane, on states that differ per lane; the MVE lane conversions equal the
//! definition of the layout.

use std::time::Instant;

use pqhelium_core::keccak::keccak_f1600;
use pqhelium_sim::keccak_x4::{
    STATE_WORDS, STATES, deinterleave, from_x4, interleave, keccak_f1600x4_interleaved, to_x4,
};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

/// Bit k of lane i is bit k / 2 of word 2i + k % 2, spelled out one bit at a time.
fn interleave_by_definition(lanes: &[u64; 25]) -> [u32; STATE_WORDS] {
    let mut words = [0u32; STATE_WORDS];
    for (i, &lane) in lanes.iter().enumerate() {
        for k in 0..64 {
            words[2 * i + k % 2] |= (((lane >> k) & 1) as u32) << (k / 2);
        }
    }
    words
}

fn deinterleave_by_definition(words: &[u32; STATE_WORDS]) -> [u64; 25] {
    core::array::from_fn(|i| (0..64).fold(0, |lane, k| lane | (u64::from((words[2 * i + k % 2] >> (k / 2)) & 1) << k)))
}

fn lane_words(lanes: &[u64; 25]) -> [u32; STATE_WORDS] {
    core::array::from_fn(|w| (lanes[w / 2] >> (32 * (w % 2))) as u32)
}

fn lanes_of(words: &[u32; STATE_WORDS]) -> [u64; 25] {
    core::array::from_fn(|i| u64::from(words[2 * i]) | u64::from(words[2 * i + 1]) << 32)
}

/// Four different states: zero, all ones, one single bit, random; then four random ones.
fn quartets(rng: &mut ChaCha8Rng, count: usize) -> Vec<[[u64; 25]; STATES]> {
    let mut out = Vec::new();
    for bit in (0..1600).step_by(7) {
        let mut single = [0u64; 25];
        single[bit / 64] = 1 << (bit % 64);
        out.push([[0; 25], [u64::MAX; 25], single, core::array::from_fn(|_| rng.r#gen())]);
        // The same four, rotated across the lanes: each kind in each lane.
        let last = *out.last().unwrap();
        out.push(core::array::from_fn(|j| last[(j + 1) % STATES]));
    }
    out.extend((0..count).map(|_| core::array::from_fn(|_| core::array::from_fn(|_| rng.r#gen()))));
    out
}

#[test]
fn four_permutations_at_once_equal_four_single_ones() {
    let mut rng = ChaCha8Rng::seed_from_u64(0x4B34_0001);
    let start = Instant::now();
    let cases = quartets(&mut rng, 100);
    for states in &cases {
        let mut x4 = to_x4(&states.map(|s| interleave_by_definition(&s)));
        keccak_f1600x4_interleaved(&mut x4);
        for (j, (got, input)) in from_x4(&x4).iter().zip(states).enumerate() {
            let mut want = *input;
            keccak_f1600(&mut want);
            assert_eq!(deinterleave_by_definition(got), want, "lane {j} of {states:x?}");
        }
    }
    eprintln!("{} x4 permutations in {:.2} s", cases.len(), start.elapsed().as_secs_f64());
}

#[test]
fn mve_conversions_follow_the_definition() {
    let mut rng = ChaCha8Rng::seed_from_u64(0x4B34_0002);
    let mut states: Vec<[u64; 25]> = vec![[0; 25], [u64::MAX; 25]];
    for bit in 0..1600 {
        let mut s = [0u64; 25];
        s[bit / 64] = 1 << (bit % 64);
        states.push(s);
    }
    states.extend((0..2000).map(|_| core::array::from_fn(|_| rng.r#gen::<u64>())));
    for s in &states {
        let words = interleave_by_definition(s);
        assert_eq!(interleave(&lane_words(s)), words, "{s:x?}");
        assert_eq!(lanes_of(&deinterleave(&words)), *s, "{words:x?}");
    }
}

#[test]
fn x4_layout_round_trips_and_keeps_states_apart() {
    let states: [[u32; STATE_WORDS]; STATES] = core::array::from_fn(|j| core::array::from_fn(|w| (100 * j + w) as u32));
    let x4 = to_x4(&states);
    // Vector w holds word w of the four states, state j in lane j.
    assert_eq!(&x4[4 * 7..4 * 8], &[7, 107, 207, 307]);
    assert_eq!(from_x4(&x4), states);
}
