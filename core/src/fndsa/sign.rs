//! FN-DSA v0.4 signing: the decoded signing key and the signing loop.
//!
//! Every kernel call goes through [`Kernels`]: the NTT (recomputing G and h at decoding), the FP64 kernels (basis,
//! Gram matrix, ffSampling, lattice point) and Keccak (every SHAKE256 of signing), so that a model or emulated
//! kernel plugged in there takes part in producing real signatures.

use super::codec::{self, NONCE_LEN, SigningKeyParts};
use super::fpu::{FpuKernels, scaled};
use super::hash::{HashId, compute_mu_with, hash_to_point_with};
use super::ntt::{self, NttKernels, Q};
use super::sampler::{MAX_REJECTIONS, Sampler};
use super::{B_INF, Error, Kernels, ReferenceKernels, SQBETA};
use crate::keccak::{Keccak, Permutation};

/// 1/q, to scale the target (c, 0) B^-1 = (-c F, c f)/q (B^-1 = [[-F, f], [-G, g]]/q since det B = q).
const INV_Q: f64 = scaled(6004310871091074, -66);

/// Failing 27 attempts in a row has probability below 2^-256 with a valid key: the key must be bad.
pub const MAX_ATTEMPTS: u8 = 27;

type Shake256With<P> = Keccak<136, 0x1F, P>;

/// A decoded signing key with what signing needs precomputed: G (from f G - g F = q), the verifying key, the hash
/// of (f, g) for hedged randomness, and the basis B = [[g, -f], [G, -F]] in FFT form.
#[derive(Clone, Debug)]
pub struct SigningKey {
    logn: u32,
    f: Vec<i8>,
    g: Vec<i8>,
    big_f: Vec<i8>,
    big_g: Vec<i8>,
    hashed_vk: [u8; 64],
    hashed_sk: [u8; 40],
    vk: Vec<u8>,
    /// b00 = g, b01 = -f, b10 = G, b11 = -F, n values each, FFT form.
    basis: Vec<f64>,
}

impl SigningKey {
    /// Decodes with the reference kernels.
    pub fn decode(src: &[u8]) -> Result<Self, Error> {
        Self::decode_with(&mut ReferenceKernels::default(), src)
    }

    /// Decodes `0x50 + logn || f || g || F || SHAKE256(vk)`, recomputing G and h through the NTT. Fails on any
    /// malformed encoding, on f not invertible mod q, and on a G coefficient outside [-127, 127].
    pub fn decode_with<N: NttKernels, F: FpuKernels, X, P: Permutation>(
        k: &mut Kernels<N, F, X, P>,
        src: &[u8],
    ) -> Result<Self, Error> {
        let SigningKeyParts { logn, f, g, big_f, hashed_vk } = codec::decode_signing_key(src)?;
        let n = 1usize << logn;

        // The hedging key: SHAKE256 of the encoded (f, g), 40 bytes.
        let fg_len = 2 * n * codec::small_bits(logn) as usize / 8;
        let mut hashed_sk = [0; 40];
        let mut sh = Shake256With::with_permutation(&mut k.keccak);
        sh.absorb(&src[1..1 + fg_len]);
        sh.squeeze(&mut hashed_sk);

        // h = g/f and G = h F, in the NTT domain.
        let to_ntt = |k: &mut N, v: &[i8]| {
            let mut w = vec![0u16; n];
            ntt::signed_to_int(&v.iter().map(|&x| i16::from(x)).collect::<Vec<_>>(), &mut w);
            k.ntt(logn, &mut w);
            w
        };
        let f_ntt = to_ntt(&mut k.ntt, &f);
        if f_ntt.iter().any(|&x| u32::from(x) == Q) {
            return Err(Error::NotInvertible);
        }
        let mut h = inverse_ntt_domain(&mut k.ntt, logn, &f_ntt);
        let g_ntt = to_ntt(&mut k.ntt, &g);
        k.ntt.mul(logn, &mut h, &g_ntt);
        let mut big_g = to_ntt(&mut k.ntt, &big_f);
        k.ntt.mul(logn, &mut big_g, &h);
        k.ntt.intt(logn, &mut big_g);
        let big_g = big_g
            .iter()
            .enumerate()
            .map(|(index, &x)| {
                let value = ntt::centred(x);
                i8::try_from(value).ok().filter(|&v| v != -128).ok_or(Error::BigGOutOfRange { index, value })
            })
            .collect::<Result<Vec<i8>, Error>>()?;
        ntt::int_to_ext(&mut h);
        let vk = codec::encode_verifying_key(logn, &h)?;

        let mut basis = vec![0.0; 4 * n];
        {
            let (b00, rest) = basis.split_at_mut(n);
            let (b01, rest) = rest.split_at_mut(n);
            let (b10, b11) = rest.split_at_mut(n);
            for (b, v) in [(b00, &g), (b01, &f), (b10, &big_g), (b11, &big_f)] {
                k.fpu.set_small(logn, b, &v.iter().map(|&x| i32::from(x)).collect::<Vec<_>>());
                k.fpu.fft(logn, b);
            }
            k.fpu.neg(logn, b01);
            k.fpu.neg(logn, b11);
        }
        Ok(Self { logn, f, g, big_f, big_g, hashed_vk, hashed_sk, vk, basis })
    }

    /// The canonical encoding (G is not part of it).
    pub fn encode(&self) -> Vec<u8> {
        codec::encode_signing_key(self.logn, &self.f, &self.g, &self.big_f, &self.hashed_vk)
            .expect("decoded coefficients are in range")
    }

    pub fn logn(&self) -> u32 {
        self.logn
    }

    /// The verifying key recomputed from f and g (h = g/f in NTT form), encoded.
    pub fn verifying_key(&self) -> &[u8] {
        &self.vk
    }

    /// SHAKE256 of the verifying key as stored in the signing key (used for mu; not checked against h).
    pub fn hashed_vk(&self) -> &[u8; 64] {
        &self.hashed_vk
    }

    /// G, recomputed at decoding.
    pub fn big_g(&self) -> &[i8] {
        &self.big_g
    }

    /// Signs the message `hv` pre-hashed as `id` (the message itself for [`HashId::RAW`]) in the domain context
    /// `ctx`; with [`HashId::EXTERNAL_MU`], `hv` is mu itself (64 bytes) and `ctx` is ignored. `rng40` is the
    /// caller's randomness (what the crate reads from its RNG).
    pub fn sign<N: NttKernels, F: FpuKernels, X, P: Permutation>(
        &self,
        k: &mut Kernels<N, F, X, P>,
        rng40: &[u8; 40],
        ctx: &[u8],
        id: HashId<'_>,
        hv: &[u8],
    ) -> Result<Vec<u8>, Error> {
        let mu = if id.is_external_mu() {
            hv.try_into().map_err(|_| Error::ExternalMuLength(hv.len()))?
        } else {
            compute_mu_with(&mut k.keccak, &self.hashed_vk, ctx, id, hv)?
        };
        self.sign_mu(k, rng40, &mu)
    }

    /// Signs the message representative mu (external-mu signing).
    pub fn sign_mu<N: NttKernels, F: FpuKernels, X, P: Permutation>(
        &self,
        k: &mut Kernels<N, F, X, P>,
        rng40: &[u8; 40],
        mu: &[u8; 64],
    ) -> Result<Vec<u8>, Error> {
        // Hedged seed: the caller's randomness, bound to the key and the message.
        let mut seed = [0u8; 41];
        let mut sh = Shake256With::with_permutation(&mut k.keccak);
        sh.absorb(&self.hashed_sk);
        sh.absorb(mu);
        sh.absorb(rng40);
        sh.squeeze(&mut seed[..40]);

        let mut work = Workspace::new(self.logn);
        for counter in 0..MAX_ATTEMPTS {
            seed[40] = counter;
            let mut sampler = Sampler::new(&mut k.fpu, &mut k.keccak, self.logn, &seed);
            let mut nonce = [0u8; NONCE_LEN];
            sampler.next_bytes(&mut nonce);
            let sig = self.attempt(&mut sampler, &mut work, &nonce, mu);
            if sampler.gave_up() {
                return Err(Error::SamplerFailed(MAX_REJECTIONS));
            }
            if let Some(sig) = sig {
                return Ok(sig);
            }
        }
        Err(Error::SigningFailed(u32::from(MAX_ATTEMPTS)))
    }

    /// One attempt: hash to a point c, sample (s1, s2) close to (c, 0) in the lattice, and encode it if short.
    fn attempt<F: FpuKernels, P: Permutation>(
        &self,
        sampler: &mut Sampler<'_, F, P>,
        w: &mut Workspace,
        nonce: &[u8; NONCE_LEN],
        mu: &[u8; 64],
    ) -> Option<Vec<u8>> {
        let logn = self.logn;
        let n = 1usize << logn;
        let mut hm = vec![0u16; n];
        hash_to_point_with(sampler.keccak(), nonce, mu, &mut hm);

        let (b00, rest) = self.basis.split_at(n);
        let (b01, rest) = rest.split_at(n);
        let (b10, b11) = rest.split_at(n);
        let Workspace { g00, g01, g11, t0, t1, tmp } = w;
        let fpu = sampler.fpu();

        // Gram matrix G = B adj(B) (upper triangle; g10 = adj(g01)).
        let s = &mut tmp[..n];
        g00.copy_from_slice(b00);
        fpu.mulownadj_fft(logn, g00);
        s.copy_from_slice(b01);
        fpu.mulownadj_fft(logn, s);
        fpu.add(logn, g00, s);
        g01.copy_from_slice(b00);
        fpu.muladj_fft(logn, g01, b10);
        s.copy_from_slice(b01);
        fpu.muladj_fft(logn, s, b11);
        fpu.add(logn, g01, s);
        g11.copy_from_slice(b10);
        fpu.mulownadj_fft(logn, g11);
        s.copy_from_slice(b11);
        fpu.mulownadj_fft(logn, s);
        fpu.add(logn, g11, s);

        // Target (c, 0) B^-1 = (-c F, c f)/q (det B = q): t0 = c b11/q, t1 = -c b01/q.
        fpu.set_small(logn, t0, &hm.iter().map(|&x| i32::from(x)).collect::<Vec<_>>());
        fpu.fft(logn, t0);
        t1.copy_from_slice(t0);
        fpu.mul_fft(logn, t1, b01);
        fpu.mulconst(logn, t1, -INV_Q);
        fpu.mul_fft(logn, t0, b11);
        fpu.mulconst(logn, t0, INV_Q);

        sampler.ffsamp(logn, t0, t1, g00, g01, g11, tmp);
        let fpu = sampler.fpu();

        // Lattice point (t0, t1) B, back to coefficients.
        let (tx, rest) = tmp.split_at_mut(n);
        let ty = &mut rest[..n];
        tx.copy_from_slice(t0);
        ty.copy_from_slice(t1);
        fpu.mul_fft(logn, tx, b00);
        fpu.mul_fft(logn, ty, b10);
        fpu.add(logn, tx, ty);
        ty.copy_from_slice(t0);
        fpu.mul_fft(logn, ty, b01);
        t0.copy_from_slice(tx);
        fpu.mul_fft(logn, t1, b11);
        fpu.add(logn, t1, ty);
        fpu.ifft(logn, t0);
        fpu.ifft(logn, t1);
        let mut r0 = vec![0i64; n];
        let mut r1 = vec![0i64; n];
        fpu.round(logn, t0, &mut r0);
        fpu.round(logn, t1, &mut r1);

        // s1 = c - round(t0), s2 = -round(t1), both truncated to 16 bits as the crate does. The squared norm wraps
        // on 32 bits; the sticky flag catches any wrap (the running sum passes 2^31 first) and |s1| > B_inf.
        let b_inf = B_INF as i32;
        let (mut sqn, mut flag) = (0u32, 0u32);
        for (&c, &r) in hm.iter().zip(&r0) {
            let z = i32::from((i32::from(c) - r as i32) as i16);
            sqn = sqn.wrapping_add((z * z) as u32);
            flag |= sqn | (b_inf - z) as u32 | (b_inf + z) as u32;
        }
        let s2: Vec<i16> = r1.iter().map(|&r| r.wrapping_neg() as i16).collect();
        for &z in &s2 {
            let z = i32::from(z);
            sqn = sqn.wrapping_add((z * z) as u32);
            flag |= sqn;
        }
        if flag >> 31 != 0 || sqn > SQBETA[logn as usize] {
            return None;
        }
        // s2 may still have a coefficient above B_inf or not fit the fixed size: then try again.
        let mut sig = vec![0x30 + logn as u8];
        sig.extend_from_slice(nonce);
        sig.extend(codec::comp_encode(&s2, codec::signature_size(logn) - 1 - NONCE_LEN).ok()?);
        Some(sig)
    }
}

/// The FP buffers of one signing attempt.
struct Workspace {
    g00: Vec<f64>,
    g01: Vec<f64>,
    g11: Vec<f64>,
    t0: Vec<f64>,
    t1: Vec<f64>,
    tmp: Vec<f64>,
}

impl Workspace {
    fn new(logn: u32) -> Self {
        let n = 1usize << logn;
        let v = || vec![0.0; n];
        Self { g00: v(), g01: v(), g11: v(), t0: v(), t1: v(), tmp: vec![0.0; 4 * n] }
    }
}

/// 1/x in the NTT domain, pointwise, as x^(q-2) (Fermat) by square-and-multiply through the kernels' products.
fn inverse_ntt_domain<N: NttKernels>(k: &mut N, logn: u32, x: &[u16]) -> Vec<u16> {
    let e = Q - 2;
    let mut acc = x.to_vec();
    for bit in (0..31 - e.leading_zeros()).rev() {
        let copy = acc.clone();
        k.mul(logn, &mut acc, &copy);
        if (e >> bit) & 1 == 1 {
            k.mul(logn, &mut acc, x);
        }
    }
    acc
}
