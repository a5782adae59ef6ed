//! Contracts of whole FN-DSA v0.4 signing on the guest (`kernels/arm/fndsa_sign/`): decoding the signing key (G
//! recomputed through the NTT), the hedged seed, the attempts with ffSampling and the Gaussian sampler, the
//! compressed signature, logn 9 and 10. `fndsa.sign` runs the FP64 kernels on the FPU, `fndsa.sign.emu` the same
//! source on our soft-float (the portable build); both use the scalar NTT and Keccak, and build for every image.
//!
//! A request is five little-endian u32 lengths (signing key, context, hash identifier, hashed value, randomness) and
//! then those byte strings (`fndsa_sign.h`). The kernel returns the signature's length after writing it, or 0 and
//! leaves the signature buffer as it was where core's signer returns an error. Reference: `pqhelium_core::fndsa::
//! SigningKey::decode` then `sign` with the request's 40 bytes of randomness, for keys of logn 9 and 10 only (the
//! degrees of FN-DSA-512 and -1024). Checked two ways: the signature is the definition.
//!
//! Cases: the signature known answers first (`vectors/fndsa.kat`, suite `fndsa`: seed = logn || j, keys from our key
//! generation, "message" in the context "domain"), then requests that core refuses (each class at each degree), then
//! random ones: a key of a small pool (fixed seeds), a random message, context, hash identifier and randomness.

use std::sync::LazyLock;

use pqhelium_core::fndsa::codec;
use pqhelium_core::fndsa::{self, HashId, ReferenceKernels, SigningKey, compute_mu};
use pqhelium_core::keccak;
use pqhelium_guest::backend::{Arg, POISON};
use rand::Rng;

use super::{
    ArgSpec, Bound, CaseRng, Contract, Description, Elem, Images, Kernel, Len, Outcome, Ways, buffer, framing, u32_arg,
};

/// Fields of a request and the size of its framing header.
const FIELDS: usize = 5;
const HEADER_BYTES: usize = 4 * FIELDS;
/// The randomness a signer draws.
pub const RANDOMNESS_BYTES: usize = 40;
/// The largest signature (logn 10), the size of the signature buffer when the request has no key of logn 9.
const SIGNATURE_MAX: usize = 1280;
/// The longest message and context the generator makes; contexts over 255 bytes are refused.
const MESSAGE_MAX: usize = 300;
const CONTEXT_MAX: usize = 255;
/// The largest request: a logn-10 key (a byte more where a class adds one) and every other field at its longest (an
/// 11-byte hash OID).
const REQUEST_MAX: usize = 3200;
const _: () =
    assert!(HEADER_BYTES + (2369 + 1) + (CONTEXT_MAX + 1) + 11 + MESSAGE_MAX + (RANDOMNESS_BYTES + 1) <= REQUEST_MAX);
/// The degrees the kernels sign at.
const LOGN: [u32; 2] = [9, 10];
/// Keys per degree in the pool.
const KEYS_PER_DEGREE: usize = 2;
/// Signature known answers per degree (j = 0..KAT_ENTRIES).
pub const KAT_ENTRIES: u32 = 10;

pub(super) fn kernels() -> Vec<Kernel> {
    vec![
        Kernel::new(FndsaSign { id: "fndsa.sign", symbol: "fndsa_sign", soft_float: false }),
        Kernel::new(FndsaSign { id: "fndsa.sign.emu", symbol: "fndsa_sign_emu", soft_float: true }),
    ]
}

struct FndsaSign {
    id: &'static str,
    symbol: &'static str,
    /// The portable build: every FP64 operation on our soft-float.
    soft_float: bool,
}

/// One case: the framed request and the size of the signature buffer (the signature's size at the key's degree).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Case {
    pub request: Vec<u8>,
    pub signature_len: usize,
}

impl Contract for FndsaSign {
    type Input = Case;

    fn describe(&self) -> Description {
        let build = match self.soft_float {
            false => "the FP64 kernels on the FPU",
            true => "the FP64 kernels on our soft-float (portable build)",
        };
        Description {
            id: self.id,
            symbol: self.symbol,
            images: Images::Both,
            summary: format!("FN-DSA v0.4 signing, whole (logn 9 or 10), {build}, scalar NTT and Keccak"),
            computes: "sig = the signature of the request (core SigningKey::decode + sign with its randomness), \
                       returned: its length (666 or 1280), or 0 with sig untouched on core's error; request = 5 u32 \
                       LE lengths (sk, ctx, id, hv, rnd), then those bytes"
                .into(),
            requires:
                "request_len = the byte length of the request buffer; sig holds the signature of the key's degree"
                    .into(),
            edge_cases: edge_cases(),
            args: vec![
                ArgSpec::output("sig", Elem::U8, Len::UpTo(SIGNATURE_MAX), Bound::Any).repr("fndsa-signature"),
                ArgSpec::input("request", Elem::U8, Len::UpTo(REQUEST_MAX), Bound::Any)
                    .repr("fndsa-sign-request")
                    .secret(),
                ArgSpec::scalar("request_len", Elem::U32, Bound::Range { lo: 0, hi: REQUEST_MAX as i64 }).repr("bytes"),
            ],
            returns: Some(
                ArgSpec::returned("len", Elem::U32, Bound::Range { lo: 0, hi: SIGNATURE_MAX as i64 })
                    .repr("signature bytes, 0 on error"),
            ),
            results: vec![],
        }
    }

    fn generate(&self, case: u64, rng: &mut CaseRng) -> Case {
        generate(case, rng)
    }

    fn encode(&self, case: &Case) -> Vec<Arg> {
        vec![Arg::Out(case.signature_len), Arg::In(case.request.clone()), Arg::U32(case.request.len() as u32)]
    }

    fn decode(&self, args: &[Arg]) -> Case {
        let signature_len = match &args[0] {
            Arg::Out(n) => *n,
            other => buffer(other).len(),
        };
        let request = buffer(&args[1]).to_vec();
        debug_assert_eq!(u32_arg(&args[2]) as usize, request.len());
        Case { request, signature_len }
    }

    /// core's signer; on its error the buffer as the harness poisoned it.
    fn reference(&self, case: &Case, _: super::RunReference) -> Outcome {
        match sign(&case.request) {
            Some(sig) if sig.len() <= case.signature_len => {
                let mut out = sig.clone();
                out.resize(case.signature_len, POISON);
                Outcome { buffers: vec![out], ret: Some(sig.len() as u64) }
            }
            _ => Outcome { buffers: vec![vec![POISON; case.signature_len]], ret: Some(0) },
        }
    }

    fn ways(&self) -> Ways<Self> {
        Ways::Two
    }

    fn precondition(&self, case: &Case) -> Result<(), String> {
        match case.signature_len {
            1..=SIGNATURE_MAX => Ok(()),
            n => Err(format!("a signature buffer of {n} bytes")),
        }
    }
}

// ---- The reference ----

/// The fields of one request.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Request {
    pub sk: Vec<u8>,
    pub ctx: Vec<u8>,
    pub id: Vec<u8>,
    pub hv: Vec<u8>,
    pub randomness: Vec<u8>,
}

impl Request {
    /// The framing: five u32 LE lengths, then the fields.
    pub fn framed(&self) -> Vec<u8> {
        framing::framed(&[&self.sk, &self.ctx, &self.id, &self.hv, &self.randomness])
    }

    /// The request filling `bytes` exactly, if its framing adds up.
    pub fn unframe(bytes: &[u8]) -> Option<Request> {
        let ([sk, ctx, id, hv, randomness], size) = framing::unframed::<FIELDS>(bytes)?;
        (size == bytes.len()).then_some(Request { sk, ctx, id, hv, randomness })
    }
}

/// core's signature of a framed request, `None` where core refuses it or the key is not of logn 9 or 10.
pub fn sign(request: &[u8]) -> Option<Vec<u8>> {
    let r = Request::unframe(request)?;
    let randomness: &[u8; RANDOMNESS_BYTES] = r.randomness.as_slice().try_into().ok()?;
    let mut kernels = ReferenceKernels::default();
    let key = SigningKey::decode_with(&mut kernels, &r.sk).ok().filter(|k| LOGN.contains(&k.logn()))?;
    key.sign(&mut kernels, randomness, &r.ctx, HashId(&r.id), &r.hv).ok()
}

/// The verifying key of an encoded signing key (recomputed from f and g), if core decodes the key.
pub fn verifying_key(sk: &[u8]) -> Option<Vec<u8>> {
    SigningKey::decode(sk).ok().map(|key| key.verifying_key().to_vec())
}

// ---- Cases ----

/// A key pair: the encoded signing key and verifying key.
#[derive(Debug, Clone)]
pub struct KeyPair {
    pub sk: Vec<u8>,
    pub vk: Vec<u8>,
}

/// Keys of logn 9 and 10 (KEYS_PER_DEGREE each), from fixed seeds.
static POOL: LazyLock<Vec<(u32, KeyPair)>> = LazyLock::new(|| {
    let degrees = LOGN.iter().flat_map(|&logn| std::iter::repeat_n(logn, KEYS_PER_DEGREE));
    degrees
        .enumerate()
        .map(|(index, logn)| {
            let mut seed = [0u8; 32];
            seed[..8].copy_from_slice(b"fs-pool\0");
            seed[8] = index as u8;
            let (sk, vk) = fndsa::keygen(&mut ReferenceKernels::default(), logn, &seed).expect("a fixed seed's key");
            (logn, KeyPair { sk, vk })
        })
        .collect()
});

fn pool_key(logn: u32, which: usize) -> &'static KeyPair {
    let keys: Vec<&KeyPair> = POOL.iter().filter(|(l, _)| *l == logn).map(|(_, k)| k).collect();
    keys[which % keys.len()]
}

/// SHAKE256(logn || j as u32 LE): the key generation seed (32 bytes), then the signing randomness.
fn kat_seeds(logn: u32, j: u32) -> [u8; 32 + RANDOMNESS_BYTES] {
    let mut seeds = [0u8; 32 + RANDOMNESS_BYTES];
    let mut seed = vec![logn as u8];
    seed.extend_from_slice(&j.to_le_bytes());
    keccak::shake256(&seed, &mut seeds);
    seeds
}

/// The key generation seed of signature known answer (logn, j).
pub fn kat_keygen_seed(logn: u32, j: u32) -> [u8; 32] {
    kat_seeds(logn, j)[..32].try_into().expect("32 bytes")
}

/// The signature known answer of degree logn, entry j (`vectors/fndsa.kat`): its key pair and request.
pub fn kat_entry(logn: u32, j: u32) -> (KeyPair, Request) {
    let (sk, vk) = fndsa::keygen(&mut ReferenceKernels::default(), logn, &kat_keygen_seed(logn, j))
        .expect("key generation of a known answer");
    let request = Request { sk: sk.clone(), randomness: kat_randomness(logn, j).to_vec(), ..kat_message(j) };
    (KeyPair { sk, vk }, request)
}

/// What signature known answer j signs: "message" in the context "domain", raw for even j, its SHA3-256 with the
/// SHA3-256 identifier for odd j (no key, no randomness).
pub fn kat_message(j: u32) -> Request {
    let message = b"message".to_vec();
    let (id, hv) = match j % 2 {
        1 => (HashId::SHA3_256.0.to_vec(), keccak::sha3_256(&message).to_vec()),
        _ => (HashId::RAW.0.to_vec(), message),
    };
    Request { ctx: b"domain".to_vec(), id, hv, ..Request::default() }
}

/// The signing randomness of signature known answer (logn, j).
pub fn kat_randomness(logn: u32, j: u32) -> [u8; RANDOMNESS_BYTES] {
    kat_seeds(logn, j)[32..].try_into().expect("40 bytes")
}

/// The known answers' requests, built once (key generation takes far longer than a case).
static KAT_REQUESTS: LazyLock<Vec<Request>> =
    LazyLock::new(|| LOGN.iter().flat_map(|&logn| (0..KAT_ENTRIES).map(move |j| kat_entry(logn, j).1)).collect());

/// Requests core refuses.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Refused {
    KeyHeader,
    KeyLength,
    /// f with the forbidden coefficient -2^(bits-1).
    KeyForbiddenValue,
    /// A valid key of logn 8: FN-DSA, not FN-DSA-512/1024.
    KeyDegree,
    ContextTooLong,
    ExternalMuLength,
    RandomnessLength,
    FramingShort,
    FramingLong,
}

impl Refused {
    pub const ALL: [Refused; 9] = [
        Refused::KeyHeader,
        Refused::KeyLength,
        Refused::KeyForbiddenValue,
        Refused::KeyDegree,
        Refused::ContextTooLong,
        Refused::ExternalMuLength,
        Refused::RandomnessLength,
        Refused::FramingShort,
        Refused::FramingLong,
    ];
}

fn edge_cases() -> u64 {
    (LOGN.len() * (KAT_ENTRIES as usize + Refused::ALL.len())) as u64
}

fn bytes(rng: &mut CaseRng, len: usize) -> Vec<u8> {
    let mut v = vec![0; len];
    rng.fill(&mut v[..]);
    v
}

/// A request under pool key `which` of degree logn: random message, context, hash identifier and randomness.
fn random_request(rng: &mut CaseRng, logn: u32) -> Request {
    let key = pool_key(logn, rng.gen_range(0..KEYS_PER_DEGREE));
    let ctx_len = if rng.gen_ratio(1, 16) { CONTEXT_MAX } else { rng.gen_range(0..=32) };
    let ctx = bytes(rng, ctx_len);
    let message_len = rng.gen_range(0..=MESSAGE_MAX);
    let message = bytes(rng, message_len);
    let (id, hv) = match rng.gen_range(0..4) {
        0 => (HashId::RAW.0.to_vec(), message),
        1 => (HashId::SHA3_256.0.to_vec(), keccak::sha3_256(&message).to_vec()),
        2 => {
            let vk_hash = fndsa::hash_verifying_key(&key.vk);
            let mu = compute_mu(&vk_hash, &ctx, HashId::RAW, &message).expect("context within 255 bytes");
            (HashId::EXTERNAL_MU.0.to_vec(), mu.to_vec())
        }
        _ => (HashId::SHA512.0.to_vec(), bytes(rng, 64)),
    };
    Request { sk: key.sk.clone(), ctx, id, hv, randomness: bytes(rng, RANDOMNESS_BYTES) }
}

fn refused_request(rng: &mut CaseRng, logn: u32, class: Refused) -> Vec<u8> {
    let mut r = random_request(rng, logn);
    match class {
        Refused::KeyHeader => r.sk[0] ^= [0x10, 0x20, 0x40, 0x80][rng.gen_range(0..4)],
        Refused::KeyLength => {
            if rng.r#gen() {
                r.sk.pop();
            } else {
                r.sk.push(rng.r#gen());
            }
        }
        Refused::KeyForbiddenValue => {
            // f's first coefficient (the low bits of the first byte) set to the reserved pattern.
            let bits = codec::small_bits(logn);
            let mask = (1u8 << bits) - 1;
            r.sk[1] = (r.sk[1] & !mask) | (1 << (bits - 1));
        }
        Refused::KeyDegree => {
            let mut seed = [0u8; 32];
            seed[..8].copy_from_slice(b"fs-other");
            r.sk = fndsa::keygen(&mut ReferenceKernels::default(), 8, &seed).expect("a fixed seed's key").0;
        }
        Refused::ContextTooLong => {
            r.id = HashId::RAW.0.to_vec();
            r.ctx = bytes(rng, CONTEXT_MAX + 1);
        }
        Refused::ExternalMuLength => {
            r.id = HashId::EXTERNAL_MU.0.to_vec();
            let len = if rng.r#gen() { 63 } else { 65 };
            r.hv = bytes(rng, len);
        }
        Refused::RandomnessLength => {
            if rng.r#gen() {
                r.randomness.pop();
            } else {
                r.randomness.push(0);
            }
        }
        Refused::FramingShort => {
            let mut framed = r.framed();
            framed.pop();
            return framed;
        }
        Refused::FramingLong => {
            let mut framed = r.framed();
            framed.push(0);
            return framed;
        }
    }
    r.framed()
}

/// The signature buffer for a request: the signature's size at its key's degree, the largest otherwise.
fn signature_len(request: &[u8]) -> usize {
    let logn = request.get(HEADER_BYTES).map(|&head| u32::from(head & 0x0F));
    match logn {
        Some(logn) if LOGN.contains(&logn) => codec::signature_size(logn),
        _ => SIGNATURE_MAX,
    }
}

fn generate(case: u64, rng: &mut CaseRng) -> Case {
    let kat = KAT_REQUESTS.len() as u64;
    let request = if case < kat {
        KAT_REQUESTS[case as usize].framed()
    } else if case < edge_cases() {
        let index = (case - kat) as usize;
        refused_request(rng, LOGN[index % LOGN.len()], Refused::ALL[index / LOGN.len()])
    } else {
        let logn = LOGN[rng.gen_range(0..LOGN.len())];
        random_request(rng, logn).framed()
    };
    Case { signature_len: signature_len(&request), request }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::case_rng;

    /// Every refused class is refused by core, at both degrees; the random requests are signed.
    #[test]
    fn refused_classes_are_refused_and_random_requests_signed() {
        for (index, &class) in Refused::ALL.iter().enumerate() {
            for &logn in &LOGN {
                let request = refused_request(&mut case_rng(3, index as u64), logn, class);
                assert_eq!(sign(&request), None, "{class:?} at logn {logn}");
            }
        }
        for case in 0..4 {
            let request = random_request(&mut case_rng(4, case), LOGN[case as usize % 2]).framed();
            let sig = sign(&request).expect("a pool key signs");
            assert_eq!(sig.len(), signature_len(&request));
        }
    }
}
