//! Contracts of the Keccak kernels: the scalar ones (`kernels/arm/keccak/keccak_f1600.c`) and the MVE ones
//! (`keccak_x4.mve.c`: the lane conversions, and four permutations at once in the x4 layout), and the permutations
//! scheduled by SLOTHY for each core (`kernels/arm/keccak/slothy/`, docs/slothy.md), under the same contracts.
//!
//! The canonicalisation between the kernels' bit-interleaved layout and the standard one is written here bit by
//! bit, straight from its definition, so that it shares nothing with the models' shift-and-mask conversions; the x4
//! layout (vector w = word w of the four states, state j in lane j) is spelled out here too.

use pqhelium_core::keccak::keccak_f1600;
use pqhelium_sim::keccak as model;
use pqhelium_sim::keccak_x4 as model_x4;
use rand::Rng;

use super::{
    ArgSpec, Bound, CaseRng, Contract, Description, Elem, Images, Kernel, Len, Outcome, RunReference, Ways, buffer,
    bytes_to_words, le_bytes, words_to_bytes,
};
use crate::Build;
use pqhelium_guest::backend::Arg;

const STATE_BYTES: usize = 200;
/// All-zero, all-ones, then each of the 1600 single-bit states.
const EDGE_CASES: u64 = 2 + 1600;

/// The state as 50 little-endian 32-bit words: bit-interleaved, or 25 standard 64-bit lanes (low word first).
type State = [u32; 50];

/// States per call of the x4 permutation, one per 32-bit lane.
const X4_STATES: usize = 4;
/// Words of four states in the x4 layout.
const X4_WORDS: usize = X4_STATES * 50;
/// Edge cases of the x4 permutation: for each of the 1600 bits, the four lanes zero, all ones, that single bit and
/// random, each kind in a different lane as the case index advances (so that a lane mix-up always changes a lane).
const X4_EDGE_CASES: u64 = 1600;

pub const INTERLEAVED: &str = "bit-interleaved";
const LANES: &str = "keccak-lanes";
const X4_LAYOUT: &str = "keccak-x4-interleaved";

/// The permutations scheduled by SLOTHY: (id, symbol, the core whose model scheduled it).
const SCHEDULES: [(&str, &str, &str); 2] = [
    ("keccak.f1600.slothy_m55", "keccak_f1600_interleaved_slothy_m55", "Cortex-M55"),
    ("keccak.f1600.slothy_m85", "keccak_f1600_interleaved_slothy_m85", "Cortex-M85"),
];
const X4_SCHEDULES: [(&str, &str, &str); 2] = [
    ("keccak.f1600x4.mve.slothy_m55", "keccak_f1600x4_interleaved_slothy_m55", "Cortex-M55"),
    ("keccak.f1600x4.mve.slothy_m85", "keccak_f1600x4_interleaved_slothy_m85", "Cortex-M85"),
];

/// The ids of the Keccak-f\[1600\] kernels scheduled by SLOTHY: scalar, then x4 (MVE).
pub fn scheduled_permutations() -> ([&'static str; 2], [&'static str; 2]) {
    (SCHEDULES.map(|s| s.0), X4_SCHEDULES.map(|s| s.0))
}

pub(super) fn kernels() -> Vec<Kernel> {
    let keccak = |id, symbol, op, build| Kernel::new(Keccak { id, symbol, op, build, scheduled_for: None });
    let scheduled = SCHEDULES.map(|(id, symbol, core)| {
        Kernel::new(Keccak { id, symbol, op: Op::Permute, build: Build::Scalar, scheduled_for: Some(core) })
    });
    let x4 = |(id, symbol, scheduled_for)| Kernel::new(KeccakX4 { id, symbol, scheduled_for });
    vec![
        keccak("keccak.f1600", "keccak_f1600_interleaved", Op::Permute, Build::Scalar),
        keccak("keccak.interleave", "keccak_interleave", Op::Interleave, Build::Scalar),
        keccak("keccak.deinterleave", "keccak_deinterleave", Op::Deinterleave, Build::Scalar),
        keccak("keccak.interleave.mve", "keccak_interleave_mve", Op::Interleave, Build::Mve),
        keccak("keccak.deinterleave.mve", "keccak_deinterleave_mve", Op::Deinterleave, Build::Mve),
        x4(("keccak.f1600x4.mve", "keccak_f1600x4_interleaved", None)),
    ]
    .into_iter()
    .chain(scheduled)
    .chain(X4_SCHEDULES.map(|(id, symbol, core)| x4((id, symbol, Some(core)))))
    .collect()
}

/// A summary's suffix naming the core a kernel was scheduled for.
fn scheduled(core: Option<&str>) -> String {
    core.map_or(String::new(), |core| format!("; scheduled by SLOTHY for the {core} model"))
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Op {
    /// Keccak-f\[1600\] on the bit-interleaved state, in place.
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
    /// Scalar (both images) or MVE (Cortex-M55 image only, modelled by `sim::keccak_x4`).
    build: Build,
    /// The core whose SLOTHY model scheduled it, if any.
    scheduled_for: Option<&'static str>,
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
            images: if self.build == Build::Mve { Images::M55Only } else { Images::Both },
            summary: if self.build == Build::Mve {
                format!("{summary}, MVE (four lanes per step)")
            } else {
                format!("{summary}{}", scheduled(self.scheduled_for))
            },
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

    fn reference(&self, state: &State, _: RunReference) -> Outcome {
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
            Op::Interleave if self.build == Build::Mve => one(words_to_bytes(&model_x4::interleave(state))),
            Op::Deinterleave if self.build == Build::Mve => one(words_to_bytes(&model_x4::deinterleave(state))),
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

/// `keccak.f1600x4.mve`: Keccak-f\[1600\] on four interleaved states at once, in place, in the x4 layout; and its
/// schedules by SLOTHY.
struct KeccakX4 {
    id: &'static str,
    symbol: &'static str,
    scheduled_for: Option<&'static str>,
}

/// Four states in the x4 layout: word w of state j at index 4w + j.
type X4State = [u32; X4_WORDS];

impl Contract for KeccakX4 {
    type Input = X4State;

    fn describe(&self) -> Description {
        Description {
            id: self.id,
            symbol: self.symbol,
            images: Images::M55Only,
            summary: format!(
                "four Keccak-f[1600] permutations at once, in place, one interleaved state per MVE lane{}",
                scheduled(self.scheduled_for)
            ),
            computes: "for j = 0..3: deinterleave(state j of s') = Keccak-f[1600](deinterleave(state j of s)); word w \
                       of state j is s[4w + j] (vector w = word w of the four states, state j in lane j)"
                .into(),
            requires: String::new(),
            edge_cases: X4_EDGE_CASES,
            args: vec![
                ArgSpec::in_out("s", Elem::U32, Len::Fixed(X4_WORDS), Bound::Any, Bound::Any).repr(X4_LAYOUT).secret(),
            ],
            returns: None,
            results: vec![],
        }
    }

    fn generate(&self, case: u64, rng: &mut CaseRng) -> X4State {
        let states = x4_states_case(case, rng);
        let interleaved = states.map(|s| bytes_to_words(&interleave_bitwise(&s)));
        std::array::from_fn(|i| interleaved[i % X4_STATES][i / X4_STATES])
    }

    fn encode(&self, s: &X4State) -> Vec<Arg> {
        vec![Arg::InOut(words_to_bytes(s))]
    }

    fn decode(&self, args: &[Arg]) -> X4State {
        bytes_to_words(buffer(&args[0])).try_into().unwrap()
    }

    /// The four states one after another, in the standard layout, each permuted by the reference.
    fn reference(&self, s: &X4State, _: RunReference) -> Outcome {
        let permuted = split_x4(s).map(|state| {
            let mut lanes = lanes_of(&deinterleave_bitwise(&words_to_bytes(&state)));
            keccak_f1600(&mut lanes);
            bytes_of(&lanes)
        });
        one(permuted.concat())
    }

    fn ways(&self) -> Ways<Self> {
        Ways::Three { model: Self::model, canon: Self::canon }
    }
}

impl KeccakX4 {
    fn model(&self, s: &X4State) -> Outcome {
        let mut s = *s;
        model_x4::keccak_f1600x4_interleaved(&mut s);
        one(words_to_bytes(&s))
    }

    /// The four states of the kernel's outcome one after another, each converted bit by bit.
    fn canon(&self, outcome: &Outcome) -> Outcome {
        let s: X4State = bytes_to_words(&outcome.buffers[0]).try_into().unwrap();
        one(split_x4(&s).map(|state| deinterleave_bitwise(&words_to_bytes(&state))).concat())
    }
}

/// The x4 layout taken apart: state j is every fourth word from word j.
fn split_x4(s: &X4State) -> [State; X4_STATES] {
    std::array::from_fn(|j| std::array::from_fn(|w| s[X4_STATES * w + j]))
}

/// Four standard states. Edge case c: zero, all ones, single bit c and a random state, rotated by c across the
/// lanes; then four independent random states.
fn x4_states_case(case: u64, rng: &mut CaseRng) -> [Vec<u8>; X4_STATES] {
    let random = |rng: &mut CaseRng| {
        let mut s = vec![0; STATE_BYTES];
        rng.fill(&mut s[..]);
        s
    };
    if case >= X4_EDGE_CASES {
        return std::array::from_fn(|_| random(rng));
    }
    let mut single = vec![0; STATE_BYTES];
    single[case as usize / 8] = 1 << (case % 8);
    let kinds = [vec![0; STATE_BYTES], vec![0xFF; STATE_BYTES], single, random(rng)];
    std::array::from_fn(|j| kinds[(j + case as usize) % X4_STATES].clone())
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
    le_bytes(lanes, u64::to_le_bytes)
}

/// Bit k of a byte moved to bit 2k: the definition's bit loop below, run once per byte value at compile time.
const SPREAD: [u16; 256] = {
    let mut table = [0u16; 256];
    let mut byte = 0;
    while byte < 256 {
        let mut k = 0;
        while k < 8 {
            table[byte] |= (((byte >> k) & 1) as u16) << (2 * k);
            k += 1;
        }
        byte += 1;
    }
    table
};

/// Bit 2k of a byte moved to bit k (its even bits, packed): the inverse of [`SPREAD`], built the same way.
const EVEN_BITS: [u8; 256] = {
    let mut table = [0u8; 256];
    let mut byte = 0;
    while byte < 256 {
        let mut k = 0;
        while k < 4 {
            table[byte] |= (((byte >> (2 * k)) & 1) as u8) << k;
            k += 1;
        }
        byte += 1;
    }
    table
};

/// Bit k of `w` at bit 2k of a lane, for every k (a byte at a time through [`SPREAD`]).
fn spread(w: u32) -> u64 {
    w.to_le_bytes().iter().enumerate().fold(0, |lane, (i, &b)| lane | u64::from(SPREAD[usize::from(b)]) << (16 * i))
}

/// Bit 2k of `lane` at bit k of a word, for every k (a byte at a time through [`EVEN_BITS`]).
fn even_bits(lane: u64) -> u32 {
    lane.to_le_bytes().iter().enumerate().fold(0, |w, (i, &b)| w | u32::from(EVEN_BITS[usize::from(b)]) << (4 * i))
}

/// Standard layout -> interleaved, by definition: bit k of word 2i is lane bit 2k, of word 2i+1 lane bit 2k+1.
/// (Through tables of the definition's bit loop, a byte at a time: it runs on every case of a campaign; the tests
/// check every bit against the definition.)
pub fn interleave_bitwise(standard: &[u8]) -> Vec<u8> {
    let mut words = [0u32; 50];
    for (i, lane) in lanes_of(standard).iter().enumerate() {
        words[2 * i] = even_bits(*lane);
        words[2 * i + 1] = even_bits(lane >> 1);
    }
    words_to_bytes(&words)
}

/// Interleaved -> standard layout, by definition (the inverse, through the same tables).
pub fn deinterleave_bitwise(interleaved: &[u8]) -> Vec<u8> {
    let words = bytes_to_words(interleaved);
    let mut lanes = [0u64; 25];
    for (i, lane) in lanes.iter_mut().enumerate() {
        *lane = spread(words[2 * i]) | spread(words[2 * i + 1]) << 1;
    }
    bytes_of(&lanes)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::case_rng;

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

    /// Every x4 edge case has four different states, and over four consecutive cases each kind visits every lane.
    #[test]
    fn x4_edge_cases_differ_in_every_lane() {
        for case in 0..X4_EDGE_CASES {
            let states = x4_states_case(case, &mut case_rng(3, case));
            for a in 0..X4_STATES {
                for b in a + 1..X4_STATES {
                    assert_ne!(states[a], states[b], "case {case}: lanes {a} and {b}");
                }
            }
            let single = (0..X4_STATES).find(|&j| states[j].iter().map(|b| b.count_ones()).sum::<u32>() == 1);
            assert_eq!(single, Some((2 + 4 * X4_STATES - case as usize % X4_STATES) % X4_STATES), "case {case}");
            assert_eq!(bit(&states[single.unwrap()], case as usize), 1);
        }
    }

    #[test]
    fn x4_layout_is_word_major() {
        let s: X4State = std::array::from_fn(|i| i as u32);
        let states = split_x4(&s);
        assert_eq!(states[3][10], 43);
        assert_eq!(
            KeccakX4 { id: "", symbol: "", scheduled_for: None }.generate(5000, &mut case_rng(1, 5000)).len(),
            X4_WORDS
        );
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
