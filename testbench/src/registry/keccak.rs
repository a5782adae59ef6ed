//! Contracts of the Keccak kernels (`kernels/arm/keccak/keccak_f1600.c`).
//!
//! The canonicalisation between the kernels' bit-interleaved layout and the standard one is written here bit by
//! bit, straight from its definition, so that it shares nothing with the model's shift-and-mask conversion.

use pqhelium_core::keccak::keccak_f1600;
use pqhelium_sim::keccak as model;
use rand::Rng;

use super::{CaseRng, Images, KernelSpec, Outcome, Returns, bytes_to_words, words_to_bytes};
use crate::backend::Arg;

const STATE_BYTES: usize = 200;
/// All-zero, all-ones, then each of the 1600 single-bit states.
const EDGE_CASES: u64 = 2 + 1600;

pub(super) const KERNELS: &[KernelSpec] = &[
    KernelSpec {
        id: "keccak.f1600",
        summary: "Keccak-f[1600] permutation, in place, bit-interleaved 32-bit representation",
        symbol: "keccak_f1600_interleaved",
        images: Images::Both,
        signature: "void keccak_f1600_interleaved(uint32_t s[50])",
        precondition: "any state: s[2i] = even bits, s[2i+1] = odd bits of lane i = x + 5y",
        postcondition: "deinterleave(s') = Keccak-f[1600](deinterleave(s))",
        returns: Returns::Nothing,
        edge_cases: EDGE_CASES,
        generate: |case, rng| vec![Arg::InOut(interleave_bitwise(&state_case(case, rng)))],
        model: |args| {
            let mut s: [u32; 50] = bytes_to_words(buffer(&args[0])).try_into().unwrap();
            model::keccak_f1600_interleaved(&mut s);
            Outcome { buffers: vec![words_to_bytes(&s)], ret: None }
        },
        reference: |args| {
            let mut lanes = lanes_of(&deinterleave_bitwise(buffer(&args[0])));
            keccak_f1600(&mut lanes);
            Outcome { buffers: vec![bytes_of(&lanes)], ret: None }
        },
        canon: |o| Outcome { buffers: vec![deinterleave_bitwise(&o.buffers[0])], ret: None },
    },
    KernelSpec {
        id: "keccak.interleave",
        summary: "standard 64-bit lanes -> bit-interleaved 32-bit words",
        symbol: "keccak_interleave",
        images: Images::Both,
        signature: "void keccak_interleave(uint32_t out[50], const uint32_t lanes[50])",
        precondition: "any 25 little-endian 64-bit lanes",
        postcondition: "out = interleave(lanes): out[2i] = even bits, out[2i+1] = odd bits of lane i",
        returns: Returns::Nothing,
        edge_cases: EDGE_CASES,
        generate: |case, rng| vec![Arg::Out(STATE_BYTES), Arg::In(state_case(case, rng))],
        model: |args| {
            let words = model::interleave(&lanes_of(buffer(&args[1])));
            Outcome { buffers: vec![words_to_bytes(&words)], ret: None }
        },
        reference: |args| Outcome { buffers: vec![buffer(&args[1]).to_vec()], ret: None },
        canon: |o| Outcome { buffers: vec![deinterleave_bitwise(&o.buffers[0])], ret: None },
    },
    KernelSpec {
        id: "keccak.deinterleave",
        summary: "bit-interleaved 32-bit words -> standard 64-bit lanes",
        symbol: "keccak_deinterleave",
        images: Images::Both,
        signature: "void keccak_deinterleave(uint32_t lanes[50], const uint32_t in[50])",
        precondition: "any interleaved state",
        postcondition: "lanes = deinterleave(in)",
        returns: Returns::Nothing,
        edge_cases: EDGE_CASES,
        generate: |case, rng| vec![Arg::Out(STATE_BYTES), Arg::In(state_case(case, rng))],
        model: |args| {
            let words: [u32; 50] = bytes_to_words(buffer(&args[1])).try_into().unwrap();
            Outcome { buffers: vec![bytes_of(&model::deinterleave(&words))], ret: None }
        },
        reference: |args| Outcome { buffers: vec![deinterleave_bitwise(buffer(&args[1]))], ret: None },
        canon: |o| o.clone(),
    },
];

fn buffer(arg: &Arg) -> &[u8] {
    match arg {
        Arg::In(b) | Arg::InOut(b) => b,
        other => panic!("expected an input buffer, got {other:?}"),
    }
}

/// A 200-byte state: edge cases first (zero, ones, single bits), then uniformly random.
fn state_case(case: u64, rng: &mut CaseRng) -> Vec<u8> {
    match case {
        0 => vec![0; STATE_BYTES],
        1 => vec![0xFF; STATE_BYTES],
        c if c < EDGE_CASES => {
            let bit = (c - 2) as usize;
            let mut s = vec![0; STATE_BYTES];
            s[bit / 8] = 1 << (bit % 8);
            s
        }
        _ => {
            let mut s = vec![0; STATE_BYTES];
            rng.fill(&mut s[..]);
            s
        }
    }
}

fn lanes_of(bytes: &[u8]) -> [u64; 25] {
    std::array::from_fn(|i| u64::from_le_bytes(bytes[8 * i..8 * i + 8].try_into().unwrap()))
}

fn bytes_of(lanes: &[u64; 25]) -> Vec<u8> {
    lanes.iter().flat_map(|l| l.to_le_bytes()).collect()
}

/// Standard layout -> interleaved, by definition: bit k of word 2i is lane bit 2k, of word 2i+1 lane bit 2k+1.
/// (Bit by bit, on whole lanes and words rather than on bytes: it runs twice per case of a campaign.)
fn interleave_bitwise(standard: &[u8]) -> Vec<u8> {
    let mut words = [0u32; 50];
    for (i, lane) in lanes_of(standard).iter().enumerate() {
        for k in 0..32 {
            words[2 * i] |= (((lane >> (2 * k)) & 1) as u32) << k;
            words[2 * i + 1] |= (((lane >> (2 * k + 1)) & 1) as u32) << k;
        }
    }
    words_to_bytes(&words)
}

/// Interleaved -> standard layout, by definition.
fn deinterleave_bitwise(interleaved: &[u8]) -> Vec<u8> {
    let words = bytes_to_words(interleaved);
    let mut lanes = [0u64; 25];
    for (i, lane) in lanes.iter_mut().enumerate() {
        for k in 0..32 {
            *lane |= u64::from((words[2 * i] >> k) & 1) << (2 * k);
            *lane |= u64::from((words[2 * i + 1] >> k) & 1) << (2 * k + 1);
        }
    }
    bytes_of(&lanes)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::registry::case_rng;

    fn bit(bytes: &[u8], i: usize) -> u8 {
        (bytes[i / 8] >> (i % 8)) & 1
    }

    /// Lane bit k of lane l lands on bit k / 2 of word 2l + k % 2, for each of the 1600 single-bit states.
    #[test]
    fn each_bit_goes_where_the_definition_says() {
        for lane in 0..25 {
            for k in 0..64 {
                let mut s = vec![0; STATE_BYTES];
                s[(64 * lane + k) / 8] = 1 << (k % 8);
                let words = interleave_bitwise(&s);
                let target = (2 * lane + k % 2) * 32 + k / 2;
                assert_eq!(bit(&words, target), 1);
                assert_eq!(words.iter().map(|b| b.count_ones()).sum::<u32>(), 1);
                assert_eq!(deinterleave_bitwise(&words), s);
            }
        }
    }

    #[test]
    fn bitwise_conversions_are_inverse() {
        for case in [0, 1, 2, 1601, 5000, 5001] {
            let s = state_case(case, &mut case_rng(7, case));
            assert_eq!(deinterleave_bitwise(&interleave_bitwise(&s)), s);
        }
    }

    #[test]
    fn edge_cases_are_distinct_single_bits() {
        let mut rng = case_rng(0, 0);
        for case in 2..EDGE_CASES {
            let s = state_case(case, &mut rng);
            assert_eq!(s.iter().map(|b| b.count_ones()).sum::<u32>(), 1);
            assert_eq!(bit(&s, (case - 2) as usize), 1);
        }
    }
}
