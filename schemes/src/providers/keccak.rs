//! Keccak-f\[1600\] providers on standard lanes, from the sim models or the object code, which work on the
//! bit-interleaved representation (the lane conversion runs on the host; the conversion kernels are checked by their
//! own campaigns):
//!
//! - `Permutation` (one state): `keccak.f1600`;
//! - [`PermutationX4`] (four states at once): `keccak.f1600x4.mve`, with [`run_batch`], which steps up to four
//!   sponges or permutation jobs ([`LaneJob`]) in lockstep, one per lane, so that the x4 kernel does every
//!   permutation, and [`shake256_x4`] on top.
//!
//! `with_kernel` picks another kernel of the same contract: the permutations scheduled by SLOTHY.

use pqhelium_core::keccak::{Permutation, ReferencePermutation};
use pqhelium_sim::keccak as model;
use pqhelium_sim::keccak_x4 as model_x4;

use super::{Guest, Tally, registered};
use pqhelium_families::{bytes_to_words, words_to_bytes};
use pqhelium_guest::backend::{Arg, BackendError, BackendKind};

/// The permutation a suite runs with.
pub enum AnyPermutation {
    Reference(ReferencePermutation),
    Model(ModelPermutation),
    Emulated(Box<EmulatedPermutation>),
}

impl AnyPermutation {
    /// What the object code served, for the emulated provider.
    pub fn tally(&self) -> Option<&Tally> {
        match self {
            AnyPermutation::Emulated(p) => Some(p.tally()),
            AnyPermutation::Reference(_) | AnyPermutation::Model(_) => None,
        }
    }
}

impl Permutation for AnyPermutation {
    fn permute(&mut self, state: &mut [u64; 25]) {
        match self {
            AnyPermutation::Reference(p) => p.permute(state),
            AnyPermutation::Model(p) => p.permute(state),
            AnyPermutation::Emulated(p) => p.permute(state),
        }
    }
}

/// The sim model of the interleaved kernel, on standard lanes.
pub struct ModelPermutation;

impl Permutation for ModelPermutation {
    fn permute(&mut self, state: &mut [u64; 25]) {
        let mut words = model::interleave(state);
        model::keccak_f1600_interleaved(&mut words);
        *state = model::deinterleave(&words);
    }
}

/// The `keccak.f1600` object code under an emulator. A failed call zeroes the state and is recorded.
pub struct EmulatedPermutation {
    guest: Guest,
    symbol: &'static str,
}

impl EmulatedPermutation {
    pub fn new(guest: Guest) -> Self {
        Self::with_kernel(guest, "keccak.f1600")
    }

    /// Another registered kernel of the `keccak.f1600` contract (a scheduled one).
    pub fn with_kernel(guest: Guest, id: &str) -> Self {
        Self { guest, symbol: registered(id).symbol }
    }

    /// The kernel's symbol.
    pub fn symbol(&self) -> &'static str {
        self.symbol
    }

    /// What the kernel served, and the first failure.
    pub fn tally(&self) -> &Tally {
        self.guest.tally()
    }
}

impl Permutation for EmulatedPermutation {
    fn permute(&mut self, state: &mut [u64; 25]) {
        let words = words_to_bytes(&model::interleave(state));
        match self.guest.call(self.symbol, 0, vec![Arg::InOut(words)]) {
            Some(out) => *state = model::deinterleave(&bytes_to_words(&out.buffers[0]).try_into().unwrap()),
            None => *state = [0; 25],
        }
    }
}

/// Four Keccak-f\[1600\] permutations at once on standard lanes: what `keccak.f1600x4.mve` computes, one state per MVE
/// lane.
pub trait PermutationX4 {
    fn permute4(&mut self, states: &mut [[u64; 25]; X4_STATES]);
}

/// States per call of the x4 permutation.
pub const X4_STATES: usize = model_x4::STATES;

/// Four single permutations: any [`Permutation`] (the reference, or a kernel) as an x4 permutation.
pub struct FourSingle<P>(pub P);

impl<P: Permutation> PermutationX4 for FourSingle<P> {
    fn permute4(&mut self, states: &mut [[u64; 25]; X4_STATES]) {
        for state in states {
            self.0.permute(state);
        }
    }
}

/// Standard states into the x4 layout of interleaved words (the conversion runs on the host, as for
/// [`ModelPermutation`]).
fn to_x4_words(states: &[[u64; 25]; X4_STATES]) -> [u32; model_x4::X4_WORDS] {
    model_x4::to_x4(&states.map(|s| model::interleave(&s)))
}

fn from_x4_words(words: &[u32; model_x4::X4_WORDS]) -> [[u64; 25]; X4_STATES] {
    model_x4::from_x4(words).map(|s| model::deinterleave(&s))
}

/// The sim model of `keccak.f1600x4.mve`, on standard lanes.
pub struct ModelPermutationX4;

impl PermutationX4 for ModelPermutationX4 {
    fn permute4(&mut self, states: &mut [[u64; 25]; X4_STATES]) {
        let mut words = to_x4_words(states);
        model_x4::keccak_f1600x4_interleaved(&mut words);
        *states = from_x4_words(&words);
    }
}

/// The `keccak.f1600x4.mve` object code under an emulator with MVE (QEMU): four states in, four states out, one
/// guest call. A failed call zeroes the four states and is recorded: whoever uses the results asks
/// [`Tally::check`] (through [`EmulatedPermutationX4::tally`]).
pub struct EmulatedPermutationX4 {
    guest: Guest,
    symbol: &'static str,
}

impl EmulatedPermutationX4 {
    pub fn new(guest: Guest) -> Self {
        Self::with_kernel(guest, "keccak.f1600x4.mve")
    }

    /// Another registered kernel of the `keccak.f1600x4.mve` contract (a scheduled one).
    pub fn with_kernel(guest: Guest, id: &str) -> Self {
        Self { guest, symbol: registered(id).symbol }
    }

    /// On a new QEMU (the M55 image, which has the MVE kernels).
    pub fn open() -> Result<Self, BackendError> {
        Ok(Self::new(Guest::open(BackendKind::Qemu)?))
    }

    pub fn symbol(&self) -> &'static str {
        self.symbol
    }

    /// What the kernel served, and the first failure.
    pub fn tally(&self) -> &Tally {
        self.guest.tally()
    }
}

impl PermutationX4 for EmulatedPermutationX4 {
    fn permute4(&mut self, states: &mut [[u64; 25]; X4_STATES]) {
        let words = words_to_bytes(&to_x4_words(states));
        match self.guest.call(self.symbol, 0, vec![Arg::InOut(words)]) {
            Some(out) => *states = from_x4_words(&bytes_to_words(&out.buffers[0]).try_into().unwrap()),
            None => *states = [[0; 25]; X4_STATES],
        }
    }
}

/// One lane's work in a batch: a sponge (SHA-3 or SHAKE, rate and domain byte chosen at run time) or a number of
/// bare permutations of the zero state. A batch ([`run_batch`]) steps up to four of them in lockstep, each lane
/// independently: absorbing, padding and squeezing happen on the host between the x4 permutations.
pub struct LaneJob {
    state: [u8; STATE_BYTES],
    work: Work,
    output: Vec<u8>,
    output_len: usize,
}

enum Work {
    Sponge { rate: usize, domain: u8, message: Vec<u8>, absorbed: usize, padded: bool },
    Permutations { left: u32 },
}

impl LaneJob {
    /// A sponge of `rate` bytes (a multiple of 8 below 200) and domain byte `domain` (suffix bits and the first
    /// padding bit, as [`pqhelium_core::keccak::Keccak`]'s `DS`) on `message`, `output_len` bytes out.
    pub fn sponge(rate: usize, domain: u8, message: &[u8], output_len: usize) -> Self {
        assert!(
            rate > 0 && rate < STATE_BYTES && rate.is_multiple_of(8),
            "rate {rate}: whole lanes, below {STATE_BYTES}"
        );
        let work = Work::Sponge { rate, domain, message: message.to_vec(), absorbed: 0, padded: false };
        Self { state: [0; STATE_BYTES], work, output: Vec::with_capacity(output_len), output_len }
    }

    /// SHAKE256 of `message`, `output_len` bytes.
    pub fn shake256(message: &[u8], output_len: usize) -> Self {
        Self::sponge(SHAKE256_RATE, SHAKE_DOMAIN, message, output_len)
    }

    /// `count` permutations of the zero state; the output is the first `output_len` (at most 200) bytes of the
    /// state.
    pub fn permutations(count: u32, output_len: usize) -> Self {
        assert!(output_len <= STATE_BYTES, "a state has {STATE_BYTES} bytes");
        Self { state: [0; STATE_BYTES], work: Work::Permutations { left: count }, output: Vec::new(), output_len }
    }

    /// The output, complete once the job's batch has run.
    pub fn output(&self) -> &[u8] {
        &self.output
    }

    /// Does the work up to the next permutation: `true` if the lane needs one now, `false` when the job is done.
    fn advance(&mut self) -> bool {
        match &mut self.work {
            Work::Permutations { left } => {
                if *left > 0 {
                    *left -= 1;
                    return true;
                }
                self.output = self.state[..self.output_len].to_vec();
                false
            }
            Work::Sponge { rate, domain, message, absorbed, padded } => {
                let bytes = &mut self.state;
                if !*padded {
                    let block = &message[*absorbed..];
                    let take = block.len().min(*rate);
                    for (s, m) in bytes.iter_mut().zip(&block[..take]) {
                        *s ^= m;
                    }
                    *absorbed += take;
                    if take == *rate {
                        return true;
                    }
                    // pad10*1 with the domain bits; both may land on the same byte.
                    bytes[take] ^= *domain;
                    bytes[*rate - 1] ^= 0x80;
                    *padded = true;
                    return true;
                }
                let take = (self.output_len - self.output.len()).min(*rate);
                self.output.extend_from_slice(&bytes[..take]);
                self.output.len() < self.output_len
            }
        }
    }
}

/// SHAKE256's rate in bytes and its domain byte (suffix `1111` and the first padding bit).
const SHAKE256_RATE: usize = 136;
const SHAKE_DOMAIN: u8 = 0x1F;
const STATE_BYTES: usize = 200;

/// A state's bytes as lanes (little-endian, FIPS 202 B.1), and back.
fn lanes_of(bytes: &[u8; STATE_BYTES]) -> [u64; 25] {
    std::array::from_fn(|i| u64::from_le_bytes(bytes[8 * i..8 * i + 8].try_into().unwrap()))
}

fn bytes_of(lanes: &[u64; 25]) -> [u8; STATE_BYTES] {
    std::array::from_fn(|i| lanes[i / 8].to_le_bytes()[i % 8])
}

/// Runs every job, four lanes at a time: each x4 permutation serves every lane that needs one, and a lane whose job
/// is done takes the next job in order. Idle lanes carry the zero state. Returns the number of x4 calls.
pub fn run_batch(p: &mut impl PermutationX4, jobs: &mut [LaneJob]) -> u64 {
    let mut next = 0;
    let mut lanes: [Option<usize>; X4_STATES] = [None; X4_STATES];
    let mut calls = 0;
    loop {
        for lane in &mut lanes {
            // A lane keeps its job while the job needs permutations, then takes the next ones in order until one
            // needs a permutation (a job that needs none is done at once).
            while !lane.is_some_and(|j| jobs[j].advance()) {
                if next == jobs.len() {
                    *lane = None;
                    break;
                }
                *lane = Some(next);
                next += 1;
            }
        }
        if lanes.iter().all(Option::is_none) {
            return calls;
        }
        let mut states = lanes.map(|lane| lane.map_or([0; 25], |j| lanes_of(&jobs[j].state)));
        p.permute4(&mut states);
        calls += 1;
        for (lane, state) in lanes.iter().zip(&states) {
            if let Some(j) = lane {
                jobs[*j].state = bytes_of(state);
            }
        }
    }
}

/// SHAKE256 of four messages of independent lengths, `output_lens[j]` bytes each, on an x4 permutation.
pub fn shake256_x4(
    p: &mut impl PermutationX4,
    messages: [&[u8]; X4_STATES],
    output_lens: [usize; X4_STATES],
) -> [Vec<u8>; X4_STATES] {
    let mut jobs: Vec<LaneJob> = messages.iter().zip(output_lens).map(|(m, len)| LaneJob::shake256(m, len)).collect();
    run_batch(p, &mut jobs);
    let mut outputs = jobs.into_iter().map(|j| j.output);
    std::array::from_fn(|_| outputs.next().unwrap())
}
