//! Sampling of f and g from the SHAKE256 stream: a half-Gaussian cumulative table looked up with 15 random bits,
//! one more bit for the sign; below degree 512 several degree-512 samples are summed per coefficient.

use crate::keccak::{Keccak, Permutation};

/// Cumulative distribution (scaled by 2^15, as counts of "v < table[j]") for degree 512 and below.
const CDT_512: [u16; 17] = [29543, 23286, 17574, 12669, 8706, 5692, 3535, 2083, 1164, 615, 308, 146, 65, 28, 11, 4, 1];
/// The same for degree 1024.
const CDT_1024: [u16; 12] = [28207, 19623, 12472, 7198, 3753, 1761, 742, 280, 94, 28, 8, 2];

/// The key-generation PRNG: SHAKE256(seed), read as consecutive little-endian 16-bit words.
pub struct Prng<P: Permutation> {
    sponge: Shake256Sponge<P>,
}

/// SHAKE256 (rate 136, suffix 1111) on the given permutation provider.
type Shake256Sponge<P> = Keccak<136, 0x1F, P>;

impl<P: Permutation> Prng<P> {
    pub fn new(permutation: P, seed: &[u8]) -> Self {
        let mut sponge = Shake256Sponge::with_permutation(permutation);
        sponge.absorb(seed);
        Self { sponge }
    }

    pub fn next_u16(&mut self) -> u16 {
        let mut b = [0u8; 2];
        self.sponge.squeeze(&mut b);
        u16::from_le_bytes(b)
    }
}

/// One polynomial with coefficients in [-127, 127] and odd coefficient sum (odd resultant).
pub fn sample_poly<P: Permutation>(logn: u32, rng: &mut Prng<P>) -> Vec<i8> {
    let n = 1usize << logn;
    let (table, reps): (&[u16], usize) = if logn == 10 { (&CDT_1024, 1) } else { (&CDT_512, 1 << (9 - logn)) };
    let mut out = Vec::with_capacity(n);
    let mut parity = 0i32;
    while out.len() < n {
        let mut v = 0i32;
        for _ in 0..reps {
            let u = rng.next_u16();
            let r = u >> 1;
            let mag = table.iter().filter(|&&t| r < t).count() as i32;
            v += if u & 1 == 1 { -mag } else { mag };
        }
        // Sums of many samples (small degrees) can leave the i8 range: draw again.
        if !(-127..=127).contains(&v) {
            continue;
        }
        if out.len() == n - 1 {
            if (parity ^ v) & 1 == 0 {
                continue;
            }
        } else {
            parity ^= v;
        }
        out.push(v as i8);
    }
    out
}
