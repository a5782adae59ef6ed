//! Helpers shared by the FN-DSA test files that call the fn-dsa 0.4.0 crate as an oracle.
// Each test file is its own crate and uses a subset of these.
#![allow(dead_code)]

use fn_dsa::{KeyPairGenerator, KeyPairGeneratorStandard, KeyPairGeneratorWeak, sign_key_size, vrfy_key_size};

/// Hands the crate a fixed byte stream (its keygen reads 32 bytes, its signer 40), so that any seed can be replayed
/// through its public API. Reading past the end is a test failure.
pub struct Replay {
    stream: Vec<u8>,
    read: usize,
}

impl Replay {
    pub fn new(stream: &[u8]) -> Self {
        Self { stream: stream.to_vec(), read: 0 }
    }

    /// Bytes handed out so far.
    pub fn read(&self) -> usize {
        self.read
    }
}

impl fn_dsa::RngCore for Replay {
    fn next_u32(&mut self) -> u32 {
        let mut b = [0; 4];
        self.fill_bytes(&mut b);
        u32::from_le_bytes(b)
    }
    fn next_u64(&mut self) -> u64 {
        let mut b = [0; 8];
        self.fill_bytes(&mut b);
        u64::from_le_bytes(b)
    }
    fn fill_bytes(&mut self, dest: &mut [u8]) {
        let end = self.read + dest.len();
        assert!(end <= self.stream.len(), "the crate read more than the {} replayed bytes", self.stream.len());
        dest.copy_from_slice(&self.stream[self.read..end]);
        self.read = end;
    }
    fn try_fill_bytes(&mut self, dest: &mut [u8]) -> Result<(), fn_dsa::RngError> {
        self.fill_bytes(dest);
        Ok(())
    }
}

impl fn_dsa::CryptoRng for Replay {}

/// The crate's (signing key, verifying key) from a 32-byte seed, through its public keygen.
pub fn crate_keygen(logn: u32, seed: &[u8; 32]) -> (Vec<u8>, Vec<u8>) {
    let mut sk = vec![0; sign_key_size(logn)];
    let mut vk = vec![0; vrfy_key_size(logn)];
    let mut rng = Replay::new(seed);
    // The crate splits its API by degree: "standard" for logn 9 and 10, "weak" below.
    if logn >= 9 {
        KeyPairGeneratorStandard::default().keygen(logn, &mut rng, &mut sk, &mut vk);
    } else {
        KeyPairGeneratorWeak::default().keygen(logn, &mut rng, &mut sk, &mut vk);
    }
    assert_eq!(rng.read(), 32, "the crate's keygen reads exactly its 32-byte seed");
    (sk, vk)
}
