//! FN-DSA v0.4 verification: s1 = c - s2*h mod (X^n + 1, q) must be short, and (s1, s2) short together.

use super::codec::{self, Signature};
use super::hash::{HashId, compute_mu, hash_to_point, hash_verifying_key};
use super::ntt::{self, NttKernels};
use super::{B_INF, Error, SQBETA};

/// A decoded verifying key: degree, h in NTT form (external values, as encoded), and the key's hash for mu.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct VerifyingKey {
    logn: u32,
    h: Vec<u16>,
    hashed: [u8; 64],
}

impl VerifyingKey {
    /// Decodes and validates an encoded verifying key (logn 2..=10).
    pub fn decode(src: &[u8]) -> Result<Self, Error> {
        let (logn, h) = codec::decode_verifying_key(src)?;
        Ok(Self { logn, h, hashed: hash_verifying_key(src) })
    }

    /// The canonical encoding, byte-identical to the decoded input.
    pub fn encode(&self) -> Vec<u8> {
        codec::encode_verifying_key(self.logn, &self.h).expect("logn was validated at decoding")
    }

    pub fn logn(&self) -> u32 {
        self.logn
    }

    /// h in NTT form, values in `[0, q-1]`.
    pub fn h_ntt(&self) -> &[u16] {
        &self.h
    }

    /// SHAKE256 of the encoded key, 64 bytes.
    pub fn hashed(&self) -> &[u8; 64] {
        &self.hashed
    }

    /// Verifies `sig` over the message `hv` pre-hashed as `id` (the message itself for [`HashId::RAW`], mu for
    /// [`HashId::EXTERNAL_MU`], which ignores `ctx`) in the domain context `ctx` (at most 255 bytes).
    pub fn verify<K: NttKernels>(
        &self,
        kernels: &mut K,
        sig: &[u8],
        ctx: &[u8],
        id: HashId<'_>,
        hv: &[u8],
    ) -> Result<(), Error> {
        let mu = if id.is_external_mu() {
            hv.try_into().map_err(|_| Error::ExternalMuLength(hv.len()))?
        } else {
            compute_mu(&self.hashed, ctx, id, hv)?
        };
        self.verify_mu(kernels, sig, &mu)
    }

    /// Verifies `sig` against the message representative mu.
    pub fn verify_mu<K: NttKernels>(&self, kernels: &mut K, sig: &[u8], mu: &[u8; 64]) -> Result<(), Error> {
        let logn = self.logn;
        let n = 1usize << logn;
        let sig = Signature::decode(logn, sig)?;

        let mut c = vec![0; n];
        hash_to_point(&sig.nonce, mu, &mut c);
        ntt::ext_to_int(&mut c);

        // s2*h: s2 goes to the NTT domain; h is there already.
        let mut t = vec![0; n];
        ntt::signed_to_int(&sig.s2, &mut t);
        kernels.ntt(logn, &mut t);
        let mut h = self.h.clone();
        ntt::ext_to_int(&mut h);
        kernels.mul(logn, &mut t, &h);
        kernels.intt(logn, &mut t);

        let mut norm: u64 = sig.s2.iter().map(|&x| (i64::from(x) * i64::from(x)) as u64).sum();
        for (index, (&ci, &ti)) in c.iter().zip(&t).enumerate() {
            let s1 = ntt::centred(ntt::mq_sub(u32::from(ci), u32::from(ti)) as u16);
            let magnitude = s1.unsigned_abs();
            if magnitude > B_INF {
                return Err(Error::S1TooLarge { index, magnitude });
            }
            norm += u64::from(magnitude * magnitude);
        }
        let bound = SQBETA[logn as usize];
        if norm > u64::from(bound) {
            return Err(Error::NormTooLarge { norm, bound });
        }
        Ok(())
    }
}
