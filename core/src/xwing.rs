//! X-Wing (draft-connolly-cfrg-xwing-kem-10): ML-KEM-768 and X25519 with the SHA3-256 combiner, generic over the
//! providers of both.
//!
//! Decapsulation comes cold (from the 32-byte seed, re-expanded on every call) and warm (from an [`ExpandedKey`]
//! cached by the caller; it never leaves the holder of the seed).

use crate::keccak::{Permutation, Sha3_256, Shake256};
use crate::mlkem::{self, ML_KEM_768, MlKem, MlkemError, MlkemKernels};
use crate::x25519::{self, FieldArithmetic};

/// Bytes of the decapsulation key (the seed).
pub const SECRET_KEY_SIZE: usize = 32;
/// Bytes of the encapsulation key: pk_M (1184) || pk_X (32).
pub const ENCAPSULATION_KEY_SIZE: usize = 1216;
/// Bytes of a ciphertext: ct_M (1088) || ct_X (32).
pub const CIPHERTEXT_SIZE: usize = 1120;
/// Bytes of the encapsulation randomness: m (32) || ek_X (32).
pub const ESEED_SIZE: usize = 64;
pub const SHARED_SECRET_SIZE: usize = 32;

const PK_M_SIZE: usize = ML_KEM_768.ek_len();
const CT_M_SIZE: usize = ML_KEM_768.ct_len();
/// The combiner's label, last in its input: `\.//^\`.
const LABEL: &[u8; 6] = b"\\.//^\\";

/// Why an input was refused.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
pub enum XWingError {
    #[error("{what} is {actual} bytes, expected {expected}")]
    WrongLength { what: &'static str, expected: usize, actual: usize },
    #[error("ML-KEM-768 part: {0}")]
    MlKem(#[from] MlkemError),
}

/// The expanded decapsulation key: what warm decapsulation needs (2,400 + 32 + 32 bytes).
#[derive(Clone)]
pub struct ExpandedKey {
    dk_m: Vec<u8>,
    sk_x: [u8; 32],
    pk_x: [u8; 32],
}

impl ExpandedKey {
    /// pk_M || pk_X, read from the ML-KEM decapsulation key where ek is stored.
    pub fn encapsulation_key(&self) -> [u8; ENCAPSULATION_KEY_SIZE] {
        let mut pk = [0u8; ENCAPSULATION_KEY_SIZE];
        let k = ML_KEM_768.k;
        pk[..PK_M_SIZE].copy_from_slice(&self.dk_m[384 * k..768 * k + 32]);
        pk[PK_M_SIZE..].copy_from_slice(&self.pk_x);
        pk
    }
}

impl std::fmt::Debug for ExpandedKey {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ExpandedKey").field("pk_x", &self.pk_x).finish_non_exhaustive()
    }
}

/// X-Wing over an ML-KEM kernel provider and an X25519 field provider.
#[derive(Debug, Clone, Copy)]
pub struct XWing<K: MlkemKernels = mlkem::Reference, F: FieldArithmetic = x25519::Reference> {
    mlkem: MlKem<K>,
    field: F,
}

impl XWing {
    /// X-Wing with the reference providers.
    pub const fn reference() -> Self {
        Self { mlkem: MlKem::reference(ML_KEM_768), field: x25519::Reference }
    }
}

impl<K: MlkemKernels, F: FieldArithmetic> XWing<K, F> {
    pub const fn new(kernels: K, field: F) -> Self {
        Self { mlkem: MlKem::new(ML_KEM_768, kernels), field }
    }

    /// expandDecapsulationKey: SHAKE256(sk, 96) = d || z || sk_X; ML-KEM-768 keys from (d, z), pk_X = X25519(sk_X, 9).
    pub fn expand_key(&self, sk: &[u8; SECRET_KEY_SIZE]) -> ExpandedKey {
        let mut expanded = [0u8; 96];
        let mut shake = Shake256::with_permutation(self.mlkem.keccak());
        shake.absorb(sk);
        shake.squeeze(&mut expanded);
        let d: [u8; 32] = expanded[..32].try_into().unwrap();
        let z: [u8; 32] = expanded[32..64].try_into().unwrap();
        let sk_x: [u8; 32] = expanded[64..].try_into().unwrap();
        let (_, dk_m) = self.mlkem.keygen_internal(&d, &z);
        let pk_x = x25519::x25519_base(&self.field, &sk_x);
        ExpandedKey { dk_m, sk_x, pk_x }
    }

    /// GenerateKeyPairDerand(seed): the decapsulation key is the seed itself; returns the encapsulation key.
    pub fn keygen(&self, seed: &[u8; SECRET_KEY_SIZE]) -> [u8; ENCAPSULATION_KEY_SIZE] {
        self.expand_key(seed).encapsulation_key()
    }

    /// EncapsulateDerand(pk, eseed), after the FIPS 203 section 7.2 check of pk_M. Returns (ss, ct).
    pub fn encaps(
        &self,
        pk: &[u8],
        eseed: &[u8; ESEED_SIZE],
    ) -> Result<([u8; SHARED_SECRET_SIZE], [u8; CIPHERTEXT_SIZE]), XWingError> {
        check_length("encapsulation key", pk, ENCAPSULATION_KEY_SIZE)?;
        let (pk_m, pk_x) = pk.split_at(PK_M_SIZE);
        let pk_x: &[u8; 32] = pk_x.try_into().unwrap();
        let m: [u8; 32] = eseed[..32].try_into().unwrap();
        let ek_x: [u8; 32] = eseed[32..].try_into().unwrap();
        let (ss_m, ct_m) = self.mlkem.encaps(pk_m, &m)?;
        let (ct_x, ss_x) = self.field.scalarmult_base_and_shared(&ek_x, pk_x);
        let mut ct = [0u8; CIPHERTEXT_SIZE];
        ct[..CT_M_SIZE].copy_from_slice(&ct_m);
        ct[CT_M_SIZE..].copy_from_slice(&ct_x);
        Ok((combiner(Sha3_256::with_permutation(self.mlkem.keccak()), &ss_m, &ss_x, &ct_x, pk_x), ct))
    }

    /// Decapsulate(sk, ct), cold: the key is expanded from the seed first.
    pub fn decaps(&self, sk: &[u8; SECRET_KEY_SIZE], ct: &[u8]) -> Result<[u8; SHARED_SECRET_SIZE], XWingError> {
        check_length("ciphertext", ct, CIPHERTEXT_SIZE)?;
        self.decaps_expanded(&self.expand_key(sk), ct)
    }

    /// Decapsulate with a cached expanded key (warm).
    pub fn decaps_expanded(&self, key: &ExpandedKey, ct: &[u8]) -> Result<[u8; SHARED_SECRET_SIZE], XWingError> {
        check_length("ciphertext", ct, CIPHERTEXT_SIZE)?;
        let (ct_m, ct_x) = ct.split_at(CT_M_SIZE);
        let ct_x: &[u8; 32] = ct_x.try_into().unwrap();
        // The draft does not ask for the 7.3 check here: the key was expanded by ourselves.
        let ss_m = self.mlkem.decaps_internal(&key.dk_m, ct_m)?;
        let ss_x = x25519::x25519(&self.field, &key.sk_x, ct_x);
        Ok(combiner(Sha3_256::with_permutation(self.mlkem.keccak()), &ss_m, &ss_x, ct_x, &key.pk_x))
    }
}

fn check_length(what: &'static str, bytes: &[u8], expected: usize) -> Result<(), XWingError> {
    if bytes.len() == expected { Ok(()) } else { Err(XWingError::WrongLength { what, expected, actual: bytes.len() }) }
}

/// SHA3-256(ss_M || ss_X || ct_X || pk_X || XWingLabel) on the empty sponge `h`.
fn combiner<P: Permutation>(
    mut h: Sha3_256<P>,
    ss_m: &[u8; 32],
    ss_x: &[u8; 32],
    ct_x: &[u8; 32],
    pk_x: &[u8; 32],
) -> [u8; 32] {
    for part in [ss_m, ss_x, ct_x, pk_x] {
        h.absorb(part);
    }
    h.absorb(LABEL);
    h.finalize()
}
