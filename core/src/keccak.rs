//! Keccak-f\[1600\] and the SHA-3 / SHAKE sponges of FIPS 202.
//!
//! This is the reference the kernels are judged against, so it favours a
//! direct transcription of the standard over speed.
//!
//! State convention: 25 lanes of 64 bits, lane `(x, y)` at index `x + 5 * y`.
//! Bytes map onto lanes little-endian, as in FIPS 202 section B.1.

/// Iota round constants RC\[i_r\] for the 24 rounds (FIPS 202, Algorithm 6).
pub const ROUND_CONSTANTS: [u64; 24] = [
    0x0000_0000_0000_0001,
    0x0000_0000_0000_8082,
    0x8000_0000_0000_808A,
    0x8000_0000_8000_8000,
    0x0000_0000_0000_808B,
    0x0000_0000_8000_0001,
    0x8000_0000_8000_8081,
    0x8000_0000_0000_8009,
    0x0000_0000_0000_008A,
    0x0000_0000_0000_0088,
    0x0000_0000_8000_8009,
    0x0000_0000_8000_000A,
    0x0000_0000_8000_808B,
    0x8000_0000_0000_008B,
    0x8000_0000_0000_8089,
    0x8000_0000_0000_8003,
    0x8000_0000_0000_8002,
    0x8000_0000_0000_0080,
    0x0000_0000_0000_800A,
    0x8000_0000_8000_000A,
    0x8000_0000_8000_8081,
    0x8000_0000_0000_8080,
    0x0000_0000_8000_0001,
    0x8000_0000_8000_8008,
];

/// Rho rotation offsets, indexed by `x + 5 * y` (FIPS 202, Algorithm 2,
/// already reduced mod 64).
pub const RHO_OFFSETS: [u32; 25] = [
    0, 1, 62, 28, 27, // y = 0
    36, 44, 6, 55, 20, // y = 1
    3, 10, 43, 25, 39, // y = 2
    41, 45, 15, 21, 8, // y = 3
    18, 2, 61, 56, 14, // y = 4
];

/// Keccak-f\[1600\]: 24 rounds of theta, rho, pi, chi, iota.
pub fn keccak_f1600(a: &mut [u64; 25]) {
    for &rc in &ROUND_CONSTANTS {
        // theta: xor every lane with the parities of two neighbouring columns.
        let c: [u64; 5] = core::array::from_fn(|x| a[x] ^ a[x + 5] ^ a[x + 10] ^ a[x + 15] ^ a[x + 20]);
        for x in 0..5 {
            let d = c[(x + 4) % 5] ^ c[(x + 1) % 5].rotate_left(1);
            for y in 0..5 {
                a[x + 5 * y] ^= d;
            }
        }

        // rho and pi together: pi moves lane (x, y) to (y, 2x + 3y), which is
        // the inverse form of A'[x, y] = A[x + 3y, x] from the standard.
        let mut b = [0u64; 25];
        for y in 0..5 {
            for x in 0..5 {
                let to = y + 5 * ((2 * x + 3 * y) % 5);
                b[to] = a[x + 5 * y].rotate_left(RHO_OFFSETS[x + 5 * y]);
            }
        }

        // chi: the only non-linear step, along each row.
        for y in 0..5 {
            for x in 0..5 {
                a[x + 5 * y] = b[x + 5 * y] ^ (!b[(x + 1) % 5 + 5 * y] & b[(x + 2) % 5 + 5 * y]);
            }
        }

        // iota: breaks the symmetry between rounds.
        a[0] ^= rc;
    }
}

/// Keccak-f\[1600\] on a 200-byte state (lanes stored little-endian).
pub fn keccak_f1600_bytes(state: &mut [u8; 200]) {
    let mut lanes = [0u64; 25];
    for (lane, chunk) in lanes.iter_mut().zip(state.chunks_exact(8)) {
        *lane = u64::from_le_bytes(chunk.try_into().expect("8-byte chunk"));
    }
    keccak_f1600(&mut lanes);
    for (chunk, lane) in state.chunks_exact_mut(8).zip(lanes) {
        chunk.copy_from_slice(&lane.to_le_bytes());
    }
}

/// Keccak sponge with a rate of `RATE` bytes and the domain-separation
/// byte `DS` (the suffix bits plus the first pad10*1 bit, as one byte).
///
/// Absorb any number of times, then squeeze any number of times; the first
/// squeeze pads and switches to squeezing. Absorbing after that panics,
/// because the sponge has no way to take input once padded.
#[derive(Clone, Debug)]
pub struct Keccak<const RATE: usize, const DS: u8, P: Permutation = ReferencePermutation> {
    permutation: P,
    state: [u64; 25],
    /// Byte offset inside the rate of the next byte to absorb or squeeze.
    pos: usize,
    squeezing: bool,
}

/// SHA3-256: capacity 512 bits, suffix `01`.
pub type Sha3_256<P = ReferencePermutation> = Keccak<136, 0x06, P>;
/// SHA3-512: capacity 1024 bits, suffix `01`.
pub type Sha3_512<P = ReferencePermutation> = Keccak<72, 0x06, P>;
/// SHAKE128: capacity 256 bits, suffix `1111`.
pub type Shake128<P = ReferencePermutation> = Keccak<168, 0x1F, P>;
/// SHAKE256: capacity 512 bits, suffix `1111`.
pub type Shake256<P = ReferencePermutation> = Keccak<136, 0x1F, P>;

/// The Keccak-f\[1600\] provider of a sponge: the reference below, or a model or emulated object code plugged in by
/// the testbench, so that the same SHA-3/SHAKE code (and its known answers) runs with any kernel in the loop.
pub trait Permutation {
    fn permute(&mut self, state: &mut [u64; 25]);
}

/// A borrowed provider serves as well, so several sponges of one computation can share one kernel (and its counts).
impl<P: Permutation + ?Sized> Permutation for &mut P {
    fn permute(&mut self, state: &mut [u64; 25]) {
        (**self).permute(state);
    }
}

/// [`keccak_f1600`] as a [`Permutation`].
#[derive(Clone, Copy, Debug, Default)]
pub struct ReferencePermutation;

impl Permutation for ReferencePermutation {
    fn permute(&mut self, state: &mut [u64; 25]) {
        keccak_f1600(state);
    }
}

impl<const RATE: usize, const DS: u8> Default for Keccak<RATE, DS> {
    fn default() -> Self {
        Self::new()
    }
}

impl<const RATE: usize, const DS: u8> Keccak<RATE, DS> {
    /// Empty sponge (all-zero state) on the reference permutation.
    pub const fn new() -> Self {
        Self::with_permutation(ReferencePermutation)
    }
}

impl<const RATE: usize, const DS: u8, P: Permutation> Keccak<RATE, DS, P> {
    /// Empty sponge on the given permutation provider.
    pub const fn with_permutation(permutation: P) -> Self {
        // Whole lanes keep byte addressing simple; the rate must leave capacity.
        const { assert!(RATE > 0 && RATE < 200 && RATE.is_multiple_of(8)) };
        Self { permutation, state: [0; 25], pos: 0, squeezing: false }
    }

    /// Feed more message bytes. Panics if squeezing has started.
    pub fn absorb(&mut self, mut data: &[u8]) {
        assert!(!self.squeezing, "Keccak: absorb after squeeze");
        while !data.is_empty() {
            // Whole lanes at a time where aligned (the common case), single bytes at the edges.
            if self.pos.is_multiple_of(8) && data.len() >= 8 {
                let lanes = ((RATE - self.pos) / 8).min(data.len() / 8);
                for (i, chunk) in data[..8 * lanes].chunks_exact(8).enumerate() {
                    self.state[self.pos / 8 + i] ^= u64::from_le_bytes(chunk.try_into().unwrap());
                }
                self.pos += 8 * lanes;
                data = &data[8 * lanes..];
            } else {
                self.xor_byte(self.pos, data[0]);
                self.pos += 1;
                data = &data[1..];
            }
            if self.pos == RATE {
                self.permutation.permute(&mut self.state);
                self.pos = 0;
            }
        }
    }

    /// Fill `out` with the next output bytes. The first call pads the
    /// message; later calls continue the same output stream.
    pub fn squeeze(&mut self, mut out: &mut [u8]) {
        if !self.squeezing {
            self.pad();
        }
        while !out.is_empty() {
            if self.pos == RATE {
                self.permutation.permute(&mut self.state);
                self.pos = 0;
            }
            if self.pos.is_multiple_of(8) && out.len() >= 8 {
                let lanes = ((RATE - self.pos) / 8).min(out.len() / 8);
                let (head, rest) = std::mem::take(&mut out).split_at_mut(8 * lanes);
                for (i, chunk) in head.chunks_exact_mut(8).enumerate() {
                    chunk.copy_from_slice(&self.state[self.pos / 8 + i].to_le_bytes());
                }
                self.pos += 8 * lanes;
                out = rest;
            } else {
                out[0] = self.get_byte(self.pos);
                self.pos += 1;
                out = &mut std::mem::take(&mut out)[1..];
            }
        }
    }

    /// pad10*1 with the domain bits merged in, then the last permutation
    /// of the absorbing phase. `DS` and `0x80` may land on the same byte.
    fn pad(&mut self) {
        self.xor_byte(self.pos, DS);
        self.xor_byte(RATE - 1, 0x80);
        self.permutation.permute(&mut self.state);
        self.pos = 0;
        self.squeezing = true;
    }

    fn xor_byte(&mut self, i: usize, byte: u8) {
        self.state[i / 8] ^= u64::from(byte) << (8 * (i % 8));
    }

    fn get_byte(&self, i: usize) -> u8 {
        (self.state[i / 8] >> (8 * (i % 8))) as u8
    }
}

impl<P: Permutation> Sha3_256<P> {
    /// The 32-byte digest of everything absorbed.
    pub fn finalize(mut self) -> [u8; 32] {
        let mut out = [0; 32];
        self.squeeze(&mut out);
        out
    }
}

impl<P: Permutation> Sha3_512<P> {
    /// The 64-byte digest of everything absorbed.
    pub fn finalize(mut self) -> [u8; 64] {
        let mut out = [0; 64];
        self.squeeze(&mut out);
        out
    }
}

/// SHA3-256 of `data`.
pub fn sha3_256(data: &[u8]) -> [u8; 32] {
    let mut h = Sha3_256::new();
    h.absorb(data);
    h.finalize()
}

/// SHA3-512 of `data`.
pub fn sha3_512(data: &[u8]) -> [u8; 64] {
    let mut h = Sha3_512::new();
    h.absorb(data);
    h.finalize()
}

/// SHAKE128 of `data`, `out.len()` bytes of output.
pub fn shake128(data: &[u8], out: &mut [u8]) {
    let mut h = Shake128::new();
    h.absorb(data);
    h.squeeze(out);
}

/// SHAKE256 of `data`, `out.len()` bytes of output.
pub fn shake256(data: &[u8], out: &mut [u8]) {
    let mut h = Shake256::new();
    h.absorb(data);
    h.squeeze(out);
}
