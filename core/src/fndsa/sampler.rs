//! The Gaussian sampler of FN-DSA v0.4 and fast Fourier sampling (ffSampling) over the LDL tree.
//!
//! Randomness is one SHAKE256 output stream (seeded by the caller) read in order: bytes, little-endian u16 and u64.
//! The floating-point steps go through [`FpuKernels`]; what stays here is integer work on explicit values: the base
//! sampler's table comparison, the fixed-point polynomial for exp(-x) and the lazy Bernoulli comparison.

use super::fpu::{FpuKernels, scaled};
use crate::keccak::Permutation;

/// SHAKE256(seed) read as a byte stream, one rate-sized block at a time. It keeps only the sponge state, not the
/// permutation: each call that may need a new block borrows the provider, which can then also serve the other
/// hashes of the signing attempt (hash-to-point) in between.
pub struct ShakePrng {
    state: [u64; 25],
    block: [u8; RATE],
    pos: usize,
}

const RATE: usize = 136;

impl ShakePrng {
    /// Absorbs the seed and pads it (SHAKE suffix 0x1F); the first block is produced on first use.
    pub fn new<P: Permutation>(permutation: &mut P, seed: &[u8]) -> Self {
        let mut state = [0u64; 25];
        let mut pos = 0;
        for &byte in seed {
            state[pos / 8] ^= u64::from(byte) << (8 * (pos % 8));
            pos += 1;
            if pos == RATE {
                permutation.permute(&mut state);
                pos = 0;
            }
        }
        state[pos / 8] ^= 0x1F << (8 * (pos % 8));
        state[(RATE - 1) / 8] ^= 0x80 << (8 * ((RATE - 1) % 8));
        Self { state, block: [0; RATE], pos: RATE }
    }

    /// The next `out.len()` bytes of the stream.
    pub fn fill<P: Permutation>(&mut self, permutation: &mut P, out: &mut [u8]) {
        let mut done = 0;
        while done < out.len() {
            if self.pos == RATE {
                permutation.permute(&mut self.state);
                for (chunk, lane) in self.block.chunks_exact_mut(8).zip(&self.state) {
                    chunk.copy_from_slice(&lane.to_le_bytes());
                }
                self.pos = 0;
            }
            let take = (RATE - self.pos).min(out.len() - done);
            out[done..done + take].copy_from_slice(&self.block[self.pos..self.pos + take]);
            self.pos += take;
            done += take;
        }
    }
}

/// 1/sigma by logn (index 0 unused): sigma = sqrt(log(4n(1 + 1/eps))/pi)/sqrt(2 pi) * 1.17 sqrt(q), with
/// eps = 1/sqrt(max(2, n/4) 2^64). Values of fn-dsa 0.4.0 (one bit below the round-3 C constants).
pub const INV_SIGMA: [f64; 11] = [
    0.0,
    scaled(7961475618707097, -60),
    scaled(7851656902127320, -60),
    scaled(7746260754658859, -60),
    scaled(7595833604889141, -60),
    scaled(7453842886538220, -60),
    scaled(7319528409832599, -60),
    scaled(7192222552237877, -60),
    scaled(7071336252758509, -60),
    scaled(6956347512113097, -60),
    scaled(6846791885593314, -60),
];

/// sigma_min by logn (index 0 unused): the smoothing parameter sigma / (1.17 sqrt(q)).
pub const SIGMA_MIN: [f64; 11] = [
    0.0,
    scaled(5028307297130123, -52),
    scaled(5098636688852518, -52),
    scaled(5168009084304506, -52),
    scaled(5270355833453349, -52),
    scaled(5370752584786614, -52),
    scaled(5469306724145091, -52),
    scaled(5566116128735780, -52),
    scaled(5661270305715104, -52),
    scaled(5754851361258101, -52),
    scaled(5846934829975396, -52),
];

/// The reverse cumulative distribution of the base half-Gaussian (sigma0 = 1.8205) as 79-bit thresholds, each
/// split into (high 31 bits, middle 24, low 24). z0 is the number of thresholds above a uniform 79-bit value.
const BASE_CDT: [[u32; 3]; 18] = [
    [1375468055, 6936092, 9176346],
    [711562636, 1023934, 15582455],
    [289335016, 4826132, 14746371],
    [90749601, 12313548, 10843417],
    [21676598, 5732767, 9419414],
    [3908963, 11171514, 6206010],
    [529006, 11146683, 11891888],
    [53503, 15610582, 11661180],
    [4032, 7095613, 11671091],
    [225, 16701698, 407118],
    [9, 6787688, 1638204],
    [0, 4870085, 8687822],
    [0, 111406, 13946073],
    [0, 1887, 12017202],
    [0, 23, 11452285],
    [0, 0, 3689579],
    [0, 0, 25354],
    [0, 0, 129],
];

/// Coefficients of the degree-12 polynomial approximating exp(-x) on [0, ln 2) in 64-bit fixed point (from FACCT),
/// highest degree first, evaluated by Horner's rule.
const EXPM_COEFFS: [u64; 13] = [
    0x00000004741183A3,
    0x00000036548CFC06,
    0x0000024FDCBF140A,
    0x0000171D939DE045,
    0x0000D00CF58F6F84,
    0x000680681CF796E3,
    0x002D82D8305B0FEA,
    0x011111110E066FD0,
    0x0555555555070F00,
    0x155555555581FF00,
    0x400000000002B400,
    0x7FFFFFFFFFFF4800,
    0x8000000000000000,
];

/// The high 64 bits of a 64x64-bit product.
fn mul_hi(a: u64, b: u64) -> u64 {
    ((u128::from(a) * u128::from(b)) >> 64) as u64
}

/// ccs * exp(-rem) * 2^63 from the fixed-point fractions rem*2^64 and ccs*2^64.
pub fn expm_p63(rem_fx: u64, ccs_fx: u64) -> u64 {
    let y = EXPM_COEFFS[1..].iter().fold(EXPM_COEFFS[0], |y, &c| c.wrapping_sub(mul_hi(rem_fx, y)));
    mul_hi(ccs_fx, y)
}

/// The sampler of one signing attempt: its PRNG stream, the FP kernels and the Keccak provider.
pub struct Sampler<'a, F: FpuKernels, P: Permutation> {
    prng: ShakePrng,
    fpu: &'a mut F,
    keccak: &'a mut P,
    /// logn of the whole scheme (the constants depend on it, not on the recursion depth).
    logn: u32,
    /// Set when a sample rejected [`MAX_REJECTIONS`] candidates in a row: its kernels are wrong.
    gave_up: bool,
}

/// Candidates one sample may reject before the sampler gives up. A right sampler accepts about every second
/// candidate (47 to 59 % over the signatures of the KAT, by logn), so 1,000 rejections in a row (a chance below
/// 10^-250) mean wrong kernels, and signing ends in an error instead of a loop.
pub const MAX_REJECTIONS: u32 = 1_000;

impl<'a, F: FpuKernels, P: Permutation> Sampler<'a, F, P> {
    /// A sampler whose randomness is SHAKE256(seed), computed with `keccak`.
    pub fn new(fpu: &'a mut F, keccak: &'a mut P, logn: u32, seed: &[u8]) -> Self {
        Self { prng: ShakePrng::new(keccak, seed), fpu, keccak, logn, gave_up: false }
    }

    /// The FP kernels, for the steps of signing around the sampling.
    pub fn fpu(&mut self) -> &mut F {
        self.fpu
    }

    /// The Keccak provider, for the other hashes of the attempt.
    pub fn keccak(&mut self) -> &mut P {
        self.keccak
    }

    /// The next bytes of the sampler's stream (the signature nonce comes first).
    pub fn next_bytes(&mut self, out: &mut [u8]) {
        self.prng.fill(self.keccak, out);
    }

    fn next_u8(&mut self) -> u8 {
        let mut b = [0];
        self.next_bytes(&mut b);
        b[0]
    }

    fn next_u16(&mut self) -> u16 {
        let mut b = [0; 2];
        self.next_bytes(&mut b);
        u16::from_le_bytes(b)
    }

    fn next_u64(&mut self) -> u64 {
        let mut b = [0; 8];
        self.next_bytes(&mut b);
        u64::from_le_bytes(b)
    }

    /// Base sampler: z0 >= 0 from the half-Gaussian and a uniform bit b, from 80 random bits (u64 then u16; b is
    /// bit 0, the 79 others form the value compared against the table).
    fn base(&mut self) -> (i32, i32) {
        let lo = self.next_u64();
        let hi = self.next_u16();
        let b = (lo & 1) as i32;
        let v0 = (lo >> 1) as u32 & 0xFF_FFFF;
        let v1 = (lo >> 25) as u32 & 0xFF_FFFF;
        let v2 = (lo >> 49) as u32 | (u32::from(hi) << 15);
        let mut z0 = 0;
        for t in &BASE_CDT {
            // Borrow chain of the 79-bit subtraction v - t, low limb first: the final borrow is v < t.
            let c = v0.wrapping_sub(t[2]) >> 31;
            let c = v1.wrapping_sub(t[1]).wrapping_sub(c) >> 31;
            let c = v2.wrapping_sub(t[0]).wrapping_sub(c) >> 31;
            z0 += c as i32;
        }
        (z0, b)
    }

    /// True with probability ccs * exp(-x), x = k ln2 + rem: compares ccs exp(-rem) 2^(64-k) against uniform
    /// bytes, most significant first, reading only as many bytes as it takes to decide.
    fn ber_exp(&mut self, k: i64, rem_fx: u64, ccs_fx: u64) -> bool {
        // Saturate k at 63 (2^-63 is below anything that matters); the mask keeps the computation branch-free.
        let kw = k as u32;
        let k = (kw | (63u32.wrapping_sub(kw) >> 16)) & 63;
        // 2^64 would not fit: the -1 keeps the value on 64 bits.
        let z = (expm_p63(rem_fx, ccs_fx) << 1).wrapping_sub(1) >> k;
        for i in 0..8 {
            let w = self.next_u8();
            let bz = (z >> (56 - 8 * i)) as u8;
            if w != bz {
                return w < bz;
            }
        }
        false
    }

    /// An integer from the discrete Gaussian centred on mu with standard deviation 1/isigma.
    pub fn sample(&mut self, mu: f64, isigma: f64) -> i32 {
        // After giving up, the rest of the attempt is discarded: no more kernel calls.
        if self.gave_up {
            return 0;
        }
        let centre = self.fpu.sampler_centre(mu, isigma, SIGMA_MIN[self.logn as usize]);
        for _ in 0..MAX_REJECTIONS {
            // A bimodal candidate: z <= 0 around 0 (b = 0) or z >= 1 around 1 (b = 1), kept with probability
            // exp(-((z - r)^2/(2 sigma^2) - z0^2/(2 sigma0^2))) scaled by ccs.
            let (z0, b) = self.base();
            let z = b + (2 * b - 1) * z0;
            let e = self.fpu.sampler_exponent(&centre, z, z0);
            if self.ber_exp(e.k, e.rem_fx, centre.ccs_fx) {
                return centre.s + z;
            }
        }
        self.gave_up = true;
        centre.s
    }

    /// Whether a sample gave up after [`MAX_REJECTIONS`] rejections (its value is then meaningless).
    pub fn gave_up(&self) -> bool {
        self.gave_up
    }

    /// Fast Fourier sampling: replaces the target (t0, t1) (FFT form) by a lattice-Gaussian sample around it for the
    /// Gram matrix [[g00, g01], [adj(g01), g11]] (g00, g11 self-adjoint). The Gram matrix is destroyed; `tmp` needs
    /// 4n values. Everything is at degree 2^logn, logn >= 1.
    // The arguments are the algorithm's own: the target pair, the three Gram polynomials and the scratch.
    #[allow(clippy::too_many_arguments)]
    pub fn ffsamp(
        &mut self,
        logn: u32,
        t0: &mut [f64],
        t1: &mut [f64],
        g00: &mut [f64],
        g01: &mut [f64],
        g11: &mut [f64],
        tmp: &mut [f64],
    ) {
        if logn == 1 {
            self.ffsamp_leaf(t0, t1, g00, g01, g11);
            return;
        }
        let n = 1usize << logn;
        let hn = n >> 1;
        // LDL: g01 <- L10, g11 <- D11 (g00 = D00).
        self.fpu.ldl_fft(logn, g00, g01, g11);

        // D00 and D11 split into the half-size Gram matrices of the two sub-trees: left is (g00[..hn], g00[hn..],
        // g01[..hn]), right is (g11[..hn], g11[hn..], g01[hn..]). L10 moves to tmp[..n].
        {
            let (w0, rest) = tmp.split_at_mut(hn);
            let w1 = &mut rest[..hn];
            self.fpu.split_selfadj_fft(logn, w0, w1, g00);
            g00[..hn].copy_from_slice(w0);
            g00[hn..n].copy_from_slice(w1);
            self.fpu.split_selfadj_fft(logn, w0, w1, g11);
            g11[..hn].copy_from_slice(w0);
            g11[hn..n].copy_from_slice(w1);
        }
        tmp[..n].copy_from_slice(&g01[..n]);
        g01[..hn].copy_from_slice(&g00[..hn]);
        g01[hn..n].copy_from_slice(&g11[..hn]);
        let (left_00, left_01) = g00[..n].split_at_mut(hn);
        let (right_00, right_01) = g11[..n].split_at_mut(hn);
        let (left_11, right_11) = g01[..n].split_at_mut(hn);

        // Right sub-tree on t1, with tmp[2n..] as its scratch; z1 then lands in tmp[2n..3n].
        let (l10, rest) = tmp.split_at_mut(n);
        let (w, rest) = rest.split_at_mut(n);
        {
            let (w0, w1) = w.split_at_mut(hn);
            self.fpu.split_fft(logn, w0, w1, t1);
            self.ffsamp(logn - 1, w0, w1, right_00, right_01, right_11, rest);
            self.fpu.merge_fft(logn, &mut rest[..n], w0, w1);
        }
        let z1 = &rest[..n];

        // tb0 = t0 + (t1 - z1) L10 into t0; z1 becomes the output t1.
        w.copy_from_slice(&t1[..n]);
        self.fpu.sub(logn, w, z1);
        t1[..n].copy_from_slice(z1);
        self.fpu.mul_fft(logn, l10, w);
        self.fpu.add(logn, t0, l10);

        // Left sub-tree on tb0 (tmp is free again).
        let (w0, rest) = tmp.split_at_mut(hn);
        let (w1, rest) = rest.split_at_mut(hn);
        self.fpu.split_fft(logn, w0, w1, t0);
        self.ffsamp(logn - 1, w0, w1, left_00, left_01, left_11, rest);
        self.fpu.merge_fft(logn, t0, w0, w1);
    }

    /// The n = 2 level: one complex value each; the splits are trivial, the leaves sample each real coordinate.
    fn ffsamp_leaf(&mut self, t0: &mut [f64], t1: &mut [f64], g00: &mut [f64], g01: &mut [f64], g11: &mut [f64]) {
        let inv_sigma = INV_SIGMA[self.logn as usize];
        self.fpu.ldl_fft(1, g00, g01, g11);
        let isigma = self.fpu.leaf_sigma(g11[0], inv_sigma);
        let z = [self.sample(t1[0], isigma), self.sample(t1[1], isigma)];
        let mut z1 = [0.0; 2];
        self.fpu.set_small(1, &mut z1, &z);
        let mut w = [t1[0], t1[1]];
        self.fpu.sub(1, &mut w, &z1);
        t1[..2].copy_from_slice(&z1);
        self.fpu.mul_fft(1, g01, &w);
        self.fpu.add(1, t0, g01);
        let isigma = self.fpu.leaf_sigma(g00[0], inv_sigma);
        let z = [self.sample(t0[0], isigma), self.sample(t0[1], isigma)];
        self.fpu.set_small(1, t0, &z);
    }
}
