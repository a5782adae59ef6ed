//! `Permutation` (Keccak-f[1600] on standard lanes) from the sim model or the object code of `keccak.f1600`, which
//! works on the bit-interleaved representation. The lane conversion runs on the host (the conversion kernels are
//! checked by their own campaigns).

use pqhelium_core::keccak::{Permutation, ReferencePermutation};
use pqhelium_sim::keccak as model;

use super::{Guest, Tally, registered};
use crate::backend::Arg;
use crate::registry::{bytes_to_words, words_to_bytes};

/// The permutation a suite runs with.
pub enum AnyPermutation {
    Reference(ReferencePermutation),
    Model(ModelPermutation),
    Emulated(EmulatedPermutation),
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
        Self { guest, symbol: registered("keccak.f1600").symbol }
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
