//! The AES-256-CTR DRBG of NIST's `rng.c`, which generated the randomness of the NIST PQC KAT files
//! (`PQCgenKAT_kem.c`): no derivation function, no personalisation string, no prediction resistance.

use aes::Aes256;
use aes::cipher::{BlockEncrypt, KeyInit, generic_array::GenericArray};

/// Bytes of the entropy input of [`NistDrbg::new`].
pub const SEED_SIZE: usize = 48;

/// DRBG state: the AES key and the 128-bit counter V.
pub struct NistDrbg {
    key: [u8; 32],
    v: [u8; 16],
}

impl std::fmt::Debug for NistDrbg {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("NistDrbg").finish_non_exhaustive()
    }
}

impl NistDrbg {
    /// `randombytes_init(entropy_input, NULL, 256)`.
    pub fn new(entropy_input: &[u8; SEED_SIZE]) -> Self {
        let mut drbg = Self { key: [0; 32], v: [0; 16] };
        drbg.update(Some(entropy_input));
        drbg
    }

    /// `randombytes(out, out.len())`: whole blocks of AES(key, ++V), then an update. Each call starts on a fresh
    /// block, so one call of 64 bytes differs from two of 32.
    pub fn fill(&mut self, out: &mut [u8]) {
        let cipher = Aes256::new(GenericArray::from_slice(&self.key));
        for chunk in out.chunks_mut(16) {
            increment(&mut self.v);
            let mut block = GenericArray::clone_from_slice(&self.v);
            cipher.encrypt_block(&mut block);
            chunk.copy_from_slice(&block[..chunk.len()]);
        }
        self.update(None);
    }

    /// `AES256_CTR_DRBG_Update`: three blocks of keystream, xored with the provided data, become key || V.
    fn update(&mut self, provided: Option<&[u8; SEED_SIZE]>) {
        let cipher = Aes256::new(GenericArray::from_slice(&self.key));
        let mut temp = [0u8; SEED_SIZE];
        for chunk in temp.chunks_mut(16) {
            increment(&mut self.v);
            let mut block = GenericArray::clone_from_slice(&self.v);
            cipher.encrypt_block(&mut block);
            chunk.copy_from_slice(&block);
        }
        if let Some(data) = provided {
            for (t, d) in temp.iter_mut().zip(data) {
                *t ^= d;
            }
        }
        self.key.copy_from_slice(&temp[..32]);
        self.v.copy_from_slice(&temp[32..]);
    }
}

/// V + 1 as a big-endian 128-bit integer.
fn increment(v: &mut [u8; 16]) {
    *v = u128::from_be_bytes(*v).wrapping_add(1).to_be_bytes();
}
