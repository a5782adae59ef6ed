//! Hashing in FN-DSA v0.4: the verifying-key hash, the message representative mu (ML-DSA style) and hash-to-point.

use super::Error;
use crate::keccak::{Keccak, Permutation, ReferencePermutation};

/// The identifier of how the message was pre-hashed: a DER-encoded OID, or one of two one-byte markers.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct HashId<'a>(pub &'a [u8]);

impl HashId<'_> {
    /// The message itself, not pre-hashed (pure FN-DSA).
    pub const RAW: HashId<'static> = HashId(&[0x00]);
    /// The caller hands mu (64 bytes) instead of a message; the context is then unused.
    pub const EXTERNAL_MU: HashId<'static> = HashId(&[0xFE]);
    /// NIST hash OIDs 2.16.840.1.101.3.4.2.x, DER-encoded.
    pub const SHA256: HashId<'static> = HashId(&nist_hash_oid(0x01));
    pub const SHA384: HashId<'static> = HashId(&nist_hash_oid(0x02));
    pub const SHA512: HashId<'static> = HashId(&nist_hash_oid(0x03));
    pub const SHA512_256: HashId<'static> = HashId(&nist_hash_oid(0x06));
    pub const SHA3_256: HashId<'static> = HashId(&nist_hash_oid(0x08));
    pub const SHA3_384: HashId<'static> = HashId(&nist_hash_oid(0x09));
    pub const SHA3_512: HashId<'static> = HashId(&nist_hash_oid(0x0A));
    pub const SHAKE128: HashId<'static> = HashId(&nist_hash_oid(0x0B));
    pub const SHAKE256: HashId<'static> = HashId(&nist_hash_oid(0x0C));

    pub fn is_raw(&self) -> bool {
        self.0 == [0x00]
    }

    pub fn is_external_mu(&self) -> bool {
        self.0 == [0xFE]
    }
}

const fn nist_hash_oid(last: u8) -> [u8; 11] {
    [0x06, 0x09, 0x60, 0x86, 0x48, 0x01, 0x65, 0x03, 0x04, 0x02, last]
}

/// SHAKE256(verifying key), 64 bytes: binds mu to the key.
pub fn hash_verifying_key(vk: &[u8]) -> [u8; 64] {
    let mut out = [0; 64];
    crate::keccak::shake256(vk, &mut out);
    out
}

/// mu = SHAKE256(hvk || 0x00 || len(ctx) || ctx || message) for a raw message, or
/// SHAKE256(hvk || 0x01 || len(ctx) || ctx || id || hv) for a pre-hashed one, 64 bytes.
pub fn compute_mu(hashed_vk: &[u8; 64], ctx: &[u8], id: HashId<'_>, hv: &[u8]) -> Result<[u8; 64], Error> {
    compute_mu_with(&mut ReferencePermutation, hashed_vk, ctx, id, hv)
}

/// [`compute_mu`] with SHAKE256 on the given Keccak provider.
pub fn compute_mu_with<P: Permutation>(
    keccak: &mut P,
    hashed_vk: &[u8; 64],
    ctx: &[u8],
    id: HashId<'_>,
    hv: &[u8],
) -> Result<[u8; 64], Error> {
    if id.is_external_mu() {
        return Err(Error::ExternalMuNotHashable);
    }
    let ctx_len = u8::try_from(ctx.len()).map_err(|_| Error::ContextTooLong(ctx.len()))?;
    let raw = id.is_raw();
    let mut sh = Keccak::<136, 0x1F, _>::with_permutation(keccak);
    sh.absorb(hashed_vk);
    sh.absorb(&[u8::from(!raw), ctx_len]);
    sh.absorb(ctx);
    if !raw {
        sh.absorb(id.0);
    }
    sh.absorb(hv);
    let mut mu = [0; 64];
    sh.squeeze(&mut mu);
    Ok(mu)
}

/// Fills `c` (external representation) from SHAKE256(nonce || mu): little-endian 16-bit words, keeping only
/// w < 61445 = 5q so that w mod q is uniform.
pub fn hash_to_point(nonce: &[u8; 40], mu: &[u8; 64], c: &mut [u16]) {
    hash_to_point_with(&mut ReferencePermutation, nonce, mu, c);
}

/// [`hash_to_point`] with SHAKE256 on the given Keccak provider.
pub fn hash_to_point_with<P: Permutation>(keccak: &mut P, nonce: &[u8; 40], mu: &[u8; 64], c: &mut [u16]) {
    const Q: u16 = super::ntt::Q as u16;
    let mut sh = Keccak::<136, 0x1F, _>::with_permutation(keccak);
    sh.absorb(nonce);
    sh.absorb(mu);
    let mut filled = 0;
    while filled < c.len() {
        let mut word = [0; 2];
        sh.squeeze(&mut word);
        let w = u16::from_le_bytes(word);
        if w < 5 * Q {
            c[filled] = w % Q;
            filled += 1;
        }
    }
}
