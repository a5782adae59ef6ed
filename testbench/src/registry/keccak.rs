//! Contracts of the Keccak kernels (`kernels/arm/keccak/keccak_f1600.c`).
//!
//! The canonicalisation between the kernels' bit-interleaved layout and the standard one is written here bit by
//! bit, straight from its definition, so that it shares nothing with the model's shift-and-mask conversion.

use pqhelium_core::keccak::keccak_f1600;
use pqhelium_sim::keccak as model;
use rand::Rng;

use super::{
    ArgSpec, Bound, CaseRng, Contract, Description, Elem, Images, Kernel, Len, Outcome, Ways, buffer, bytes_to_words,
    words_to_bytes,
};
use crate::backend::Arg;

const STATE_BYTES: usize = 200;
/// All-zero, all-ones, then each of the 1600 single-bit states.
const EDGE_CASES: u64 = 2 + 1600;

/// The state as 50 little-endian 32-bit words: bit-interleaved, or 25 standard 64-bit lanes (low word first).
type State = [u32; 50];

const INTERLEAVED: &str = "bit-interleaved";
const LANES: &str = "keccak-lanes";

pub(super) fn kernels() -> Vec<Kernel> {
    vec![
        Kernel::new(Keccak { id: "keccak.f1600", symbol: "keccak_f1600_interleaved", op: Op::Permute }),
        Kernel::new(Keccak { id: "keccak.interleave", symbol: "keccak_interleave", op: Op::Interleave }),
        Kernel::new(Keccak { id: "keccak.deinterleave", symbol: "keccak_deinterleave", op: Op::Deinterleave }),
    ]
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Op {
    /// Keccak-f[1600] on the bit-interleaved state, in place.
    Permute,
    /// Standard lanes -> bit-interleaved words.
    Interleave,
    /// Bit-interleaved words -> standard lanes.
    Deinterleave,
}

struct Keccak {
    id: &'static str,
    symbol: &'static str,
    op: Op,
}

impl Contract for Keccak {
    type Input = State;

    fn describe(&self) -> Description {
        let state = |name, repr| ArgSpec::input(name, Elem::U32, Len::Fixed(50), Bound::Any).repr(repr).secret();
        let out = |name, repr| ArgSpec::output(name, Elem::U32, Len::Fixed(50), Bound::Any).repr(repr).secret();
        let (summary, computes, args) = match self.op {
            Op::Permute => (
                "Keccak-f[1600] permutation, in place, bit-interleaved 32-bit representation",
                "deinterleave(s') = Keccak-f[1600](deinterleave(s)); s[2i] = even bits, s[2i+1] = odd bits of lane \
                 i = x + 5y",
                vec![
                    ArgSpec::in_out("s", Elem::U32, Len::Fixed(50), Bound::Any, Bound::Any).repr(INTERLEAVED).secret(),
                ],
            ),
            Op::Interleave => (
                "standard 64-bit lanes -> bit-interleaved 32-bit words",
                "out = interleave(lanes): out[2i] = even bits, out[2i+1] = odd bits of lane i",
                vec![out("out", INTERLEAVED), state("lanes", LANES)],
            ),
            Op::Deinterleave => (
                "bit-interleaved 32-bit words -> standard 64-bit lanes",
                "lanes = deinterleave(in)",
                vec![out("lanes", LANES), state("in", INTERLEAVED)],
            ),
        };
        Description {
            id: self.id,
            symbol: self.symbol,
            images: Images::Both,
            summary: summary.into(),
            computes: computes.into(),
            requires: String::new(),
            edge_cases: EDGE_CASES,
            args,
            returns: None,
            results: vec![],
        }
    }

    fn generate(&self, case: u64, rng: &mut CaseRng) -> State {
        let standard = state_case(case, rng);
        let bytes = if self.op == Op::Permute { interleave_bitwise(&standard) } else { standard };
        bytes_to_words(&bytes).try_into().unwrap()
    }

    fn encode(&self, state: &State) -> Vec<Arg> {
        match self.op {
            Op::Permute => vec![Arg::InOut(words_to_bytes(state))],
            Op::Interleave | Op::Deinterleave => vec![Arg::Out(STATE_BYTES), Arg::In(words_to_bytes(state))],
        }
    }

    fn decode(&self, args: &[Arg]) -> State {
        bytes_to_words(buffer(args.last().expect("one state argument"))).try_into().unwrap()
    }

    fn reference(&self, state: &State) -> Outcome {
        let bytes = words_to_bytes(state);
        let standard = match self.op {
            Op::Permute => {
                let mut lanes = lanes_of(&deinterleave_bitwise(&bytes));
                keccak_f1600(&mut lanes);
                bytes_of(&lanes)
            }
            Op::Interleave => bytes,
            Op::Deinterleave => deinterleave_bitwise(&bytes),
        };
        one(standard)
    }

    fn ways(&self) -> Ways<Self> {
        Ways::Three { model: Self::model, canon: Self::canon }
    }
}

impl Keccak {
    fn model(&self, state: &State) -> Outcome {
        match self.op {
            Op::Permute => {
                let mut s = *state;
                model::keccak_f1600_interleaved(&mut s);
                one(words_to_bytes(&s))
            }
            Op::Interleave => one(words_to_bytes(&model::interleave(&lanes_of(&words_to_bytes(state))))),
            Op::Deinterleave => one(bytes_of(&model::deinterleave(state))),
        }
    }

    /// The kernel's outcome in the standard layout, converted bit by bit.
    fn canon(&self, outcome: &Outcome) -> Outcome {
        match self.op {
            Op::Permute | Op::Interleave => one(deinterleave_bitwise(&outcome.buffers[0])),
            Op::Deinterleave => outcome.clone(),
        }
    }
}

fn one(buffer: Vec<u8>) -> Outcome {
    Outcome { buffers: vec![buffer], ret: None }
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
