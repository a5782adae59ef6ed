//! ML-KEM (FIPS 203): the three parameter sets, generic over the provider of the NTT-domain kernels.
//!
//! Keys and ciphertexts are the byte strings of the standard. Randomness is always an argument (d, z for key
//! generation, m for encapsulation), so every function is deterministic.

mod ntt;

pub use ntt::{MlkemKernels, N, Poly, Q, Reference};

use crate::keccak::{Permutation, Sha3_256, Sha3_512, Shake128, Shake256};

/// One ML-KEM parameter set (FIPS 203 section 8).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Params {
    pub name: &'static str,
    pub k: usize,
    pub eta1: usize,
    pub eta2: usize,
    pub du: u32,
    pub dv: u32,
}

pub const ML_KEM_512: Params = Params { name: "ML-KEM-512", k: 2, eta1: 3, eta2: 2, du: 10, dv: 4 };
pub const ML_KEM_768: Params = Params { name: "ML-KEM-768", k: 3, eta1: 2, eta2: 2, du: 10, dv: 4 };
pub const ML_KEM_1024: Params = Params { name: "ML-KEM-1024", k: 4, eta1: 2, eta2: 2, du: 11, dv: 5 };

/// Bytes of a shared secret, of m, d and z.
pub const SHARED_SECRET_SIZE: usize = 32;

impl Params {
    /// Bytes of an encapsulation key: 384k + 32.
    pub const fn ek_len(&self) -> usize {
        384 * self.k + 32
    }

    /// Bytes of a decapsulation key: 768k + 96.
    pub const fn dk_len(&self) -> usize {
        768 * self.k + 96
    }

    /// Bytes of a ciphertext: 32 (du k + dv).
    pub const fn ct_len(&self) -> usize {
        32 * (self.du as usize * self.k + self.dv as usize)
    }
}

/// Why an input was refused.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
pub enum MlkemError {
    #[error("{what} is {actual} bytes, expected {expected}")]
    WrongLength { what: &'static str, expected: usize, actual: usize },
    #[error("encapsulation key coefficient {index} is not below q (FIPS 203 section 7.2 modulus check)")]
    CoefficientOutOfRange { index: usize },
    #[error("H(ek) stored in the decapsulation key does not match ek (FIPS 203 section 7.3 hash check)")]
    HashMismatch,
}

fn check_length(what: &'static str, bytes: &[u8], expected: usize) -> Result<(), MlkemError> {
    if bytes.len() == expected { Ok(()) } else { Err(MlkemError::WrongLength { what, expected, actual: bytes.len() }) }
}

/// An ML-KEM parameter set bound to a kernel provider.
#[derive(Debug, Clone, Copy)]
pub struct MlKem<K: MlkemKernels = Reference> {
    params: Params,
    kernels: K,
}

impl MlKem<Reference> {
    /// The parameter set with the reference kernels.
    pub const fn reference(params: Params) -> Self {
        Self { params, kernels: Reference }
    }
}

impl<K: MlkemKernels> MlKem<K> {
    pub const fn new(params: Params, kernels: K) -> Self {
        Self { params, kernels }
    }

    pub const fn params(&self) -> &Params {
        &self.params
    }

    /// ML-KEM.KeyGen_internal(d, z) (Algorithm 16): returns (ek, dk).
    pub fn keygen_internal(&self, d: &[u8; 32], z: &[u8; 32]) -> (Vec<u8>, Vec<u8>) {
        let (ek, dk_pke) = self.pke_keygen(d);
        let mut dk = dk_pke;
        dk.extend_from_slice(&ek);
        dk.extend_from_slice(&self.h(&ek));
        dk.extend_from_slice(z);
        (ek, dk)
    }

    /// ML-KEM.Encaps with caller-supplied randomness m: the section 7.2 check, then Encaps_internal.
    /// Returns (shared secret, ciphertext).
    pub fn encaps(&self, ek: &[u8], m: &[u8; 32]) -> Result<([u8; 32], Vec<u8>), MlkemError> {
        self.check_encapsulation_key(ek)?;
        self.encaps_internal(ek, m)
    }

    /// ML-KEM.Encaps_internal(ek, m) (Algorithm 17), without the modulus check (only the length is checked).
    pub fn encaps_internal(&self, ek: &[u8], m: &[u8; 32]) -> Result<([u8; 32], Vec<u8>), MlkemError> {
        check_length("encapsulation key", ek, self.params.ek_len())?;
        let (shared, r) = self.g(&[m, &self.h(ek)]);
        Ok((shared, self.pke_encrypt(ek, m, &r)))
    }

    /// ML-KEM.Decaps (Algorithm 21) with the section 7.3 input checks (lengths and hash).
    pub fn decaps(&self, dk: &[u8], ct: &[u8]) -> Result<[u8; 32], MlkemError> {
        self.check_decapsulation_key(dk)?;
        self.decaps_internal(dk, ct)
    }

    /// ML-KEM.Decaps_internal(dk, c) (Algorithm 18) with implicit rejection; only the lengths are checked.
    pub fn decaps_internal(&self, dk: &[u8], ct: &[u8]) -> Result<[u8; 32], MlkemError> {
        check_length("decapsulation key", dk, self.params.dk_len())?;
        check_length("ciphertext", ct, self.params.ct_len())?;
        let k = self.params.k;
        let (dk_pke, rest) = dk.split_at(384 * k);
        let (ek_pke, rest) = rest.split_at(384 * k + 32);
        let (h, z) = rest.split_at(32);
        let m = self.pke_decrypt(dk_pke, ct);
        let (shared, r) = self.g(&[&m, h]);
        let mut rejected = [0u8; 32];
        let mut j = Shake256::with_permutation(self.keccak());
        j.absorb(z);
        j.absorb(ct);
        j.squeeze(&mut rejected);
        let reencrypted = self.pke_encrypt(ek_pke, &m, &r);
        let keep = ct_equal_mask(ct, &reencrypted);
        Ok(std::array::from_fn(|i| (shared[i] & keep) | (rejected[i] & !keep)))
    }

    /// The encapsulation key check of section 7.2: length, and every coefficient of t-hat below q.
    pub fn check_encapsulation_key(&self, ek: &[u8]) -> Result<(), MlkemError> {
        check_length("encapsulation key", ek, self.params.ek_len())?;
        for (chunk_index, chunk) in ek[..384 * self.params.k].chunks_exact(384).enumerate() {
            let coefficients = byte_decode(12, chunk);
            if let Some(i) = coefficients.iter().position(|&c| c >= Q) {
                return Err(MlkemError::CoefficientOutOfRange { index: chunk_index * N + i });
            }
        }
        Ok(())
    }

    /// The decapsulation key check of section 7.3: length, and H(ek) stored in dk equal to H of the stored ek.
    pub fn check_decapsulation_key(&self, dk: &[u8]) -> Result<(), MlkemError> {
        check_length("decapsulation key", dk, self.params.dk_len())?;
        let k = self.params.k;
        let ek = &dk[384 * k..768 * k + 32];
        let h = &dk[768 * k + 32..768 * k + 64];
        if ct_equal_mask(&self.h(ek), h) == 0xFF { Ok(()) } else { Err(MlkemError::HashMismatch) }
    }

    /// K-PKE.KeyGen(d) (Algorithm 13): returns (ek_pke, dk_pke). Every polynomial stays in the kernels'
    /// representation from its sampler to its encoding.
    fn pke_keygen(&self, d: &[u8; 32]) -> (Vec<u8>, Vec<u8>) {
        let (k, kernels) = (self.params.k, &self.kernels);
        let mut seed = [0u8; 33];
        seed[..32].copy_from_slice(d);
        seed[32] = k as u8;
        let (rho, sigma) = self.g(&[&seed]);
        let (rho, sigma) = (&rho[..], &sigma[..]);
        let mut nonce = 0u8;
        let mut noise_hat = |eta| {
            let mut p = sample_cbd(Shake256::with_permutation(self.keccak()), eta, sigma, nonce);
            nonce += 1;
            kernels.import(&mut p);
            kernels.ntt(&mut p);
            p
        };
        let mut s_hat: Vec<Poly> = (0..k).map(|_| noise_hat(self.params.eta1)).collect();
        let e_hat: Vec<Poly> = (0..k).map(|_| noise_hat(self.params.eta1)).collect();
        // Row i of A-hat: entry (i, j) is SampleNTT(rho || j || i).
        let a_hat: Vec<Poly> =
            (0..k * k).map(|ij| self.sampled(self.sample_ntt(rho, (ij % k) as u8, (ij / k) as u8))).collect();
        let mut t_hat = vec![[0; N]; k];
        kernels.matvec(&mut t_hat, &a_hat, &s_hat);
        let mut ek = vec![0u8; self.params.ek_len()];
        for ((t, e), chunk) in t_hat.iter_mut().zip(&e_hat).zip(ek.chunks_exact_mut(384)) {
            let product = *t;
            kernels.add(t, &product, e);
            kernels.reduce(t);
            kernels.encode12(chunk, t);
        }
        ek[384 * k..].copy_from_slice(rho);
        let mut dk = vec![0u8; 384 * k];
        for (s, chunk) in s_hat.iter_mut().zip(dk.chunks_exact_mut(384)) {
            kernels.reduce(s);
            kernels.encode12(chunk, s);
        }
        (ek, dk)
    }

    /// The kernels' Keccak-f\[1600\] ([`MlkemKernels::permute`]) as a sponge's permutation.
    pub(crate) fn keccak(&self) -> KernelKeccak<'_, K> {
        KernelKeccak(&self.kernels)
    }

    /// H = SHA3-256.
    fn h(&self, data: &[u8]) -> [u8; 32] {
        let mut h = Sha3_256::with_permutation(self.keccak());
        h.absorb(data);
        h.finalize()
    }

    /// G = SHA3-512 over the concatenation, split into two 32-byte halves.
    fn g(&self, parts: &[&[u8]]) -> ([u8; 32], [u8; 32]) {
        let mut h = Sha3_512::with_permutation(self.keccak());
        for part in parts {
            h.absorb(part);
        }
        let g = h.finalize();
        (g[..32].try_into().unwrap(), g[32..].try_into().unwrap())
    }

    /// SampleNTT(rho || j || i) (Algorithm 7).
    fn sample_ntt(&self, rho: &[u8], j: u8, i: u8) -> Poly {
        sample_ntt(Shake128::with_permutation(self.keccak()), rho, j, i)
    }

    /// A sampler's output (FIPS order, canonical) in the kernels' representation.
    fn sampled(&self, mut p: Poly) -> Poly {
        self.kernels.import(&mut p);
        p
    }

    fn decode12(&self, bytes: &[u8]) -> Poly {
        let mut p = [0; N];
        self.kernels.decode12(&mut p, bytes);
        p
    }

    /// K-PKE.Encrypt(ek, m, r) (Algorithm 14). `ek` has the right length.
    fn pke_encrypt(&self, ek: &[u8], m: &[u8; 32], r: &[u8; 32]) -> Vec<u8> {
        let (k, kernels) = (self.params.k, &self.kernels);
        let (du, dv) = (self.params.du, self.params.dv);
        let (t_bytes, rho) = ek.split_at(384 * k);
        let t_hat: Vec<Poly> = t_bytes.chunks_exact(384).map(|c| self.decode12(c)).collect();
        let mut nonce = 0u8;
        let mut noise = |eta| {
            let p = sample_cbd(Shake256::with_permutation(self.keccak()), eta, r, nonce);
            nonce += 1;
            self.sampled(p)
        };
        let mut y_hat: Vec<Poly> = (0..k).map(|_| noise(self.params.eta1)).collect();
        let e1: Vec<Poly> = (0..k).map(|_| noise(self.params.eta2)).collect();
        let e2 = noise(self.params.eta2);
        for y in &mut y_hat {
            kernels.ntt(y);
        }
        // Row i of the transpose of A-hat: entry (j, i) of A-hat is SampleNTT(rho || i || j).
        let a_hat_t: Vec<Poly> =
            (0..k * k).map(|ij| self.sampled(self.sample_ntt(rho, (ij / k) as u8, (ij % k) as u8))).collect();
        let mut u = vec![[0; N]; k];
        kernels.matvec(&mut u, &a_hat_t, &y_hat);
        let mut ct = vec![0u8; self.params.ct_len()];
        let (c1, c2) = ct.split_at_mut(32 * du as usize * k);
        for ((u_i, e1_i), chunk) in u.iter_mut().zip(&e1).zip(c1.chunks_exact_mut(32 * du as usize)) {
            kernels.inv_ntt(u_i);
            let product = *u_i;
            kernels.add(u_i, &product, e1_i);
            kernels.compress(du, chunk, u_i);
        }
        let mut mu = [0; N];
        kernels.decompress(1, &mut mu, m);
        let mut v = [0; N];
        kernels.dot(&mut v, &t_hat, &y_hat);
        kernels.inv_ntt(&mut v);
        let product = v;
        kernels.add(&mut v, &product, &e2);
        let noisy = v;
        kernels.add(&mut v, &noisy, &mu);
        kernels.compress(dv, c2, &v);
        ct
    }

    /// K-PKE.Decrypt(dk, c) (Algorithm 15). Both have the right lengths.
    fn pke_decrypt(&self, dk_pke: &[u8], ct: &[u8]) -> [u8; 32] {
        let kernels = &self.kernels;
        let (du, dv) = (self.params.du, self.params.dv);
        let (c1, c2) = ct.split_at(32 * du as usize * self.params.k);
        let u_hat: Vec<Poly> = c1
            .chunks_exact(32 * du as usize)
            .map(|c| {
                let mut u = [0; N];
                kernels.decompress(du, &mut u, c);
                kernels.ntt(&mut u);
                u
            })
            .collect();
        let mut v = [0; N];
        kernels.decompress(dv, &mut v, c2);
        let s_hat: Vec<Poly> = dk_pke.chunks_exact(384).map(|c| self.decode12(c)).collect();
        let mut w = [0; N];
        kernels.dot(&mut w, &s_hat, &u_hat);
        kernels.inv_ntt(&mut w);
        let product = w;
        kernels.sub(&mut w, &v, &product);
        let mut m = [0u8; 32];
        kernels.compress(1, &mut m, &w);
        m
    }
}

/// A provider's Keccak-f\[1600\] seen as a sponge's permutation.
pub(crate) struct KernelKeccak<'a, K>(&'a K);

impl<K: MlkemKernels> Permutation for KernelKeccak<'_, K> {
    fn permute(&mut self, state: &mut [u64; 25]) {
        MlkemKernels::permute(self.0, state);
    }
}

/// 0xFF if the slices are equal, 0 otherwise, without a data-dependent branch.
fn ct_equal_mask(a: &[u8], b: &[u8]) -> u8 {
    let diff = a.iter().zip(b).fold(u8::from(a.len() != b.len()), |acc, (x, y)| acc | (x ^ y));
    (u16::from(diff).wrapping_sub(1) >> 8) as u8
}

/// SampleNTT(rho || j || i) (Algorithm 7): rejection sampling of 12-bit values from SHAKE128 (`xof`, empty).
fn sample_ntt<P: Permutation>(mut xof: Shake128<P>, rho: &[u8], j: u8, i: u8) -> Poly {
    xof.absorb(rho);
    xof.absorb(&[j, i]);
    let mut out = [0; N];
    let mut filled = 0;
    let mut block = [0u8; 168];
    while filled < N {
        xof.squeeze(&mut block);
        for c in block.chunks_exact(3) {
            let d1 = i16::from(c[0]) | (i16::from(c[1] & 0x0F) << 8);
            let d2 = i16::from(c[1] >> 4) | (i16::from(c[2]) << 4);
            for d in [d1, d2] {
                if d < Q && filled < N {
                    out[filled] = d;
                    filled += 1;
                }
            }
        }
    }
    out
}

/// SamplePolyCBD_eta(PRF_eta(seed, nonce)) (Algorithms 8 and the PRF of section 4.1), on the SHAKE256 `prf` (empty).
fn sample_cbd<P: Permutation>(mut prf: Shake256<P>, eta: usize, seed: &[u8], nonce: u8) -> Poly {
    let mut bytes = [0u8; 64 * 3];
    let bytes = &mut bytes[..64 * eta];
    prf.absorb(seed);
    prf.absorb(&[nonce]);
    prf.squeeze(bytes);
    let bit = |index: usize| i16::from((bytes[index / 8] >> (index % 8)) & 1);
    std::array::from_fn(|i| {
        let x: i16 = (0..eta).map(|j| bit(2 * i * eta + j)).sum();
        let y: i16 = (0..eta).map(|j| bit(2 * i * eta + eta + j)).sum();
        (x - y).rem_euclid(Q)
    })
}

/// Compress_d (section 4.2.1) of canonical coefficients: round(2^d x / q) mod 2^d. The rounding never ties
/// because q is odd, so adding floor(q/2) before the division rounds correctly.
fn compress_values(d: u32, p: &Poly) -> Poly {
    std::array::from_fn(|i| {
        let x = u32::from(p[i] as u16);
        ((((x << d) + u32::from(Q as u16) / 2) / u32::from(Q as u16)) & ((1 << d) - 1)) as i16
    })
}

/// Decompress_d: round(q y / 2^d).
fn decompress_values(d: u32, p: &Poly) -> Poly {
    std::array::from_fn(|i| ((u32::from(p[i] as u16) * u32::from(Q as u16) + (1 << (d - 1))) >> d) as i16)
}

/// ByteEncode_d (Algorithm 5) of values below 2^d: 32 d bytes, least significant bit first.
fn byte_encode(d: u32, p: &Poly) -> Vec<u8> {
    let mut out = Vec::with_capacity(32 * d as usize);
    let (mut acc, mut bits) = (0u32, 0u32);
    for &c in p {
        acc |= u32::from(c as u16) << bits;
        bits += d;
        while bits >= 8 {
            out.push(acc as u8);
            acc >>= 8;
            bits -= 8;
        }
    }
    out
}

/// ByteDecode_d (Algorithm 6) of 32 d bytes, without the reduction modulo q that d = 12 adds.
fn byte_decode(d: u32, bytes: &[u8]) -> Poly {
    let mut out = [0; N];
    let (mut acc, mut bits, mut next) = (0u32, 0u32, 0);
    for o in &mut out {
        while bits < d {
            acc |= u32::from(bytes[next]) << bits;
            next += 1;
            bits += 8;
        }
        *o = (acc & ((1 << d) - 1)) as i16;
        acc >>= d;
        bits -= d;
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sizes_match_fips203_table_3() {
        assert_eq!((ML_KEM_512.ek_len(), ML_KEM_512.dk_len(), ML_KEM_512.ct_len()), (800, 1632, 768));
        assert_eq!((ML_KEM_768.ek_len(), ML_KEM_768.dk_len(), ML_KEM_768.ct_len()), (1184, 2400, 1088));
        assert_eq!((ML_KEM_1024.ek_len(), ML_KEM_1024.dk_len(), ML_KEM_1024.ct_len()), (1568, 3168, 1568));
    }

    #[test]
    fn encodings_round_trip() {
        for d in [1, 4, 5, 10, 11, 12] {
            let p: Poly = std::array::from_fn(|i| ((i * 2654435761) % (1 << d)) as i16);
            assert_eq!(byte_encode(d, &p).len(), 32 * d as usize);
            assert_eq!(byte_decode(d, &byte_encode(d, &p)), p);
        }
    }

    #[test]
    fn decompress_then_compress_is_identity() {
        for d in [1, 4, 5, 10, 11] {
            let p: Poly = std::array::from_fn(|i| (i % (1 << d)) as i16);
            assert_eq!(compress_values(d, &decompress_values(d, &p)), p);
        }
    }

    #[test]
    fn compress_rounds_to_nearest() {
        for x in 0..Q {
            let p = [x; N];
            for d in [1, 4, 5, 10, 11] {
                let exact = f64::from(x) * f64::from(1u32 << d) / f64::from(Q);
                let expected = (exact.round() as i64).rem_euclid(1 << d) as i16;
                assert_eq!(compress_values(d, &p)[0], expected, "x = {x}, d = {d}");
            }
        }
    }

    #[test]
    fn equal_mask() {
        assert_eq!(ct_equal_mask(b"abc", b"abc"), 0xFF);
        assert_eq!(ct_equal_mask(b"abc", b"abd"), 0);
        assert_eq!(ct_equal_mask(b"abc", b"ab"), 0);
    }
}
