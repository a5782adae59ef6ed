//! Contracts of FN-DSA v0.4 verification on the guest (`kernels/arm/fndsa_verify/`): one request
//! (`fndsa.verify`) or four of one degree (`fndsa.verify.batch4`) to accept (1) or reject (0), logn 9 and 10, built
//! on the MVE NTT and the four-way MVE Keccak (Cortex-M55 image) and from the portable baselines (`*.scalar`, both
//! images).
//!
//! A request is five little-endian u32 lengths (verifying key, signature, context, hash identifier, hashed value)
//! and then those byte strings (`fndsa_verify.h`); a batch is four requests back to back. Reference:
//! `pqhelium_core::fndsa::VerifyingKey::decode` then `verify` (four times for a batch), accepting only keys of the
//! degrees the kernel verifies (9 or 10; a batch's logn), as the fn-dsa crate's FN-DSA-512/1024 verifier does.
//! Checked two ways: the verdicts are the definition, there is nothing in between to model.
//!
//! Cases: signatures made by core under a small pool of keys (generated once, from fixed seeds: key generation
//! takes far longer than a case) over random messages, contexts and hash identifiers, then left valid or changed:
//! one bit flipped, truncated, checked against another message, context or key, or made malformed in every class
//! the decoders reject. Signatures at the acceptance bounds are made without a signing key, under a key whose h is a
//! constant (`BOUNDARY_H`): a squared norm of exactly floor(beta^2) with `|s1[i]|` and `|s2[i]|` at B_inf, and one past
//! each of the three bounds; s2's encoding filling the signature to its last bit, and one bit more. Edge cases
//! first: each class at each degree, framings that do not add up, and batches whose requests share a nonce (one
//! signature under another message or key, or with another s2; valid signatures of two messages under one nonce).

use std::collections::HashMap;
use std::ops::RangeInclusive;
use std::sync::LazyLock;

use pqhelium_core::fndsa::codec::{self, NONCE_LEN, Signature};
use pqhelium_core::fndsa::{
    self, HashId, ReferenceKernels, SigningKey, VerifyingKey, compute_mu, hash_to_point, hash_verifying_key,
};
use pqhelium_core::keccak;
use rand::Rng;

use super::{
    ArgSpec, Bound, CaseRng, Contract, Description, Elem, Images, Kernel, Len, Outcome, Ways, buffer, framing, u32_arg,
};
use pqhelium_guest::backend::Arg;

/// Requests per batch.
pub const BATCH: usize = 4;
/// Fields of a request and the size of its framing header.
const FIELDS: usize = 5;
const HEADER_BYTES: usize = 4 * FIELDS;
/// The longest message and context the generator makes (contexts up to 255 bytes are valid; longer ones are a
/// malformed class).
const MESSAGE_MAX: usize = 300;
const CONTEXT_MAX: usize = 255;
const CONTEXT_TOO_LONG_MAX: usize = 300;
/// The longest hash identifier the generator makes.
const ID_MAX: usize = 12;
/// The largest request: a logn-10 key and signature (a byte more each where a class adds one) with room for every
/// other field the generator makes.
const REQUEST_MAX: usize = 4096;
const _: () = assert!(HEADER_BYTES + 1794 + 1281 + CONTEXT_TOO_LONG_MAX + ID_MAX + MESSAGE_MAX <= REQUEST_MAX);
/// The degrees the kernels verify.
const LOGN: [u32; 2] = [9, 10];
/// Keys per degree in the pool, and the degree of the keys that no kernel verifies (a valid key of FN-DSA, not of
/// FN-DSA-512/1024).
const KEYS_PER_DEGREE: usize = 3;
const OTHER_LOGN: u32 = 8;
/// The fn-dsa v0.4 bound on |s1[i]| and |s2[i]|: the decoder rejects larger magnitudes.
const B_INF: u32 = fndsa::B_INF;

pub(super) fn kernels() -> Vec<Kernel> {
    use Build::*;
    vec![
        Kernel::new(FndsaVerify { id: "fndsa.verify", symbol: "fndsa_verify", build: Mve, batch: false }),
        Kernel::new(FndsaVerify {
            id: "fndsa.verify.scalar",
            symbol: "fndsa_verify_scalar",
            build: Scalar,
            batch: false,
        }),
        Kernel::new(FndsaVerify { id: "fndsa.verify.batch4", symbol: "fndsa_verify_batch4", build: Mve, batch: true }),
        Kernel::new(FndsaVerify {
            id: "fndsa.verify.batch4.scalar",
            symbol: "fndsa_verify_batch4_scalar",
            build: Scalar,
            batch: true,
        }),
    ]
}

/// The MVE NTT kernels (Cortex-M55 image) or the portable baselines (both images).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Build {
    Mve,
    Scalar,
}

struct FndsaVerify {
    id: &'static str,
    symbol: &'static str,
    build: Build,
    batch: bool,
}

/// One case: the framed request(s), the length argument, and for a batch its degree.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Case {
    pub bytes: Vec<u8>,
    pub len: u32,
    pub logn: u32,
}

impl Case {
    fn new(bytes: Vec<u8>, logn: u32) -> Self {
        Case { len: bytes.len() as u32, bytes, logn }
    }
}

impl Contract for FndsaVerify {
    type Input = Case;

    fn describe(&self) -> Description {
        let (build, images) = match self.build {
            Build::Mve => ("MVE NTT and four-way MVE Keccak", Images::M55Only),
            Build::Scalar => ("portable baselines: scalar NTT and Keccak", Images::Both),
        };
        let verdict = Bound::Range { lo: 0, hi: 1 };
        let request =
            |name, max: usize| ArgSpec::input(name, Elem::U8, Len::UpTo(max), Bound::Any).repr("fndsa-verify-request");
        let length =
            |name, max: usize| ArgSpec::scalar(name, Elem::U32, Bound::Range { lo: 0, hi: max as i64 }).repr("bytes");
        let lengths = "request = 5 u32 LE lengths (vk, sig, ctx, id, hv), then those bytes";
        let (summary, computes, args, returns) = if self.batch {
            (
                format!("FN-DSA v0.4 verification of four requests of one degree (logn 9 or 10), {build}"),
                format!(
                    "verdicts[i] = 1 iff request i (four back to back, filling requests_len) verifies under a key \
                     of degree 2^logn, else 0 (core VerifyingKey::decode + verify); {lengths}"
                ),
                vec![
                    ArgSpec::output("verdicts", Elem::U8, Len::Fixed(BATCH), verdict).repr("accept 1, reject 0"),
                    request("requests", BATCH * REQUEST_MAX).repr("fndsa-verify-request x4"),
                    length("requests_len", BATCH * REQUEST_MAX),
                    ArgSpec::scalar("logn", Elem::U32, Bound::Range { lo: 9, hi: 10 }).repr("log2 n"),
                ],
                None,
            )
        } else {
            (
                format!("FN-DSA v0.4 verification of one request (logn 9 or 10), {build}"),
                format!(
                    "1 iff the request (exactly request_len bytes) verifies under a key of degree 512 or 1024, else 0 \
                     (core VerifyingKey::decode + verify); {lengths}"
                ),
                vec![request("request", REQUEST_MAX), length("request_len", REQUEST_MAX)],
                Some(ArgSpec::returned("accepted", Elem::U32, verdict).repr("accept 1, reject 0")),
            )
        };
        Description {
            id: self.id,
            symbol: self.symbol,
            images,
            summary,
            computes,
            requires: format!(
                "{} = the byte length of the request buffer",
                if self.batch { "requests_len" } else { "request_len" }
            ),
            edge_cases: if self.batch { BATCH_EDGE_CASES.len() as u64 } else { single_edge_cases() },
            args,
            returns,
            results: vec![],
        }
    }

    fn generate(&self, case: u64, rng: &mut CaseRng) -> Case {
        if self.batch { generate_batch(case, rng) } else { generate_single(case, rng) }
    }

    fn encode(&self, case: &Case) -> Vec<Arg> {
        let len = Arg::U32(case.len);
        if self.batch {
            vec![Arg::Out(BATCH), Arg::In(case.bytes.clone()), len, Arg::U32(case.logn)]
        } else {
            vec![Arg::In(case.bytes.clone()), len]
        }
    }

    fn decode(&self, args: &[Arg]) -> Case {
        if self.batch {
            Case { bytes: buffer(&args[1]).to_vec(), len: u32_arg(&args[2]), logn: u32_arg(&args[3]) }
        } else {
            Case { bytes: buffer(&args[0]).to_vec(), len: u32_arg(&args[1]), logn: 0 }
        }
    }

    /// core's verifier, request by request.
    fn reference(&self, case: &Case, _: super::RunReference) -> Outcome {
        if self.batch {
            Outcome { buffers: vec![verify_batch(&case.bytes, case.logn).map(u8::from).to_vec()], ret: None }
        } else {
            Outcome { buffers: vec![], ret: Some(u64::from(verify_single(&case.bytes))) }
        }
    }

    fn ways(&self) -> Ways<Self> {
        Ways::Two
    }

    fn precondition(&self, case: &Case) -> Result<(), String> {
        if case.len as usize == case.bytes.len() {
            Ok(())
        } else {
            Err(format!("length argument {} for {} request bytes", case.len, case.bytes.len()))
        }
    }
}

// ---- The reference ----

/// The fields of one framed request.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Request {
    pub vk: Vec<u8>,
    pub sig: Vec<u8>,
    pub ctx: Vec<u8>,
    pub id: Vec<u8>,
    pub hv: Vec<u8>,
}

impl Request {
    /// The framing: five u32 LE lengths, then the fields.
    pub fn framed(&self) -> Vec<u8> {
        framing::framed(&[&self.vk, &self.sig, &self.ctx, &self.id, &self.hv])
    }

    /// The request at the front of `bytes` and its size, if its header and fields fit.
    fn unframe(bytes: &[u8]) -> Option<(Request, usize)> {
        let ([vk, sig, ctx, id, hv], size) = framing::unframed::<FIELDS>(bytes)?;
        Some((Request { vk, sig, ctx, id, hv }, size))
    }

    /// core's verdict, for a key of degree `logn` (any of the kernels' degrees when `None`).
    fn verifies(&self, logn: Option<u32>) -> bool {
        let Ok(key) = VerifyingKey::decode(&self.vk) else { return false };
        let degree_ok = match logn {
            Some(logn) => key.logn() == logn,
            None => LOGN.contains(&key.logn()),
        };
        degree_ok && key.verify(&mut fndsa::Reference, &self.sig, &self.ctx, HashId(&self.id), &self.hv).is_ok()
    }
}

/// The verdict on one framed request of exactly `bytes.len()` bytes.
pub fn verify_single(bytes: &[u8]) -> bool {
    matches!(Request::unframe(bytes), Some((request, size)) if size == bytes.len() && request.verifies(None))
}

/// The verdicts on four framed requests filling `bytes`, keys of degree `logn` (all rejected if the framing does not
/// add up).
pub fn verify_batch(bytes: &[u8], logn: u32) -> [bool; BATCH] {
    let mut requests = Vec::with_capacity(BATCH);
    let mut at = 0;
    for _ in 0..BATCH {
        let Some((request, size)) = Request::unframe(&bytes[at..]) else { return [false; BATCH] };
        requests.push(request);
        at += size;
    }
    if at != bytes.len() || !LOGN.contains(&logn) {
        return [false; BATCH];
    }
    std::array::from_fn(|i| requests[i].verifies(Some(logn)))
}

// ---- The key pool ----

struct PoolKey {
    key: SigningKey,
    vk: Vec<u8>,
}

/// Keys of logn 9 and 10 (KEYS_PER_DEGREE each) and one of OTHER_LOGN, from fixed seeds.
static POOL: LazyLock<Vec<PoolKey>> = LazyLock::new(|| {
    let degrees = LOGN.iter().flat_map(|&logn| std::iter::repeat_n(logn, KEYS_PER_DEGREE)).chain([OTHER_LOGN]);
    degrees
        .enumerate()
        .map(|(index, logn)| {
            let mut kernels = ReferenceKernels::default();
            let mut seed = [0u8; 32];
            seed[..8].copy_from_slice(b"fv-pool\0");
            seed[8] = index as u8;
            let (sk, vk) = fndsa::keygen(&mut kernels, logn, &seed).expect("key generation from a fixed seed");
            PoolKey { key: SigningKey::decode_with(&mut kernels, &sk).expect("core decodes its own key"), vk }
        })
        .collect()
});

fn pool_key(logn: u32, which: usize) -> &'static PoolKey {
    let keys: Vec<&PoolKey> = POOL.iter().filter(|k| k.key.logn() == logn).collect();
    keys[which % keys.len()]
}

// ---- Requests ----

/// How a request is made: honest, or changed in one way.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Class {
    Valid,
    // At the acceptance bounds (made under the boundary key): accepted at each bound, rejected one past it.
    /// `|s1|^2 + |s2|^2 = floor(beta^2)`, one `|s1[i]| = B_inf` and one `|s2[j]| = B_inf`: accepted.
    NormAtBound,
    /// The same with |s1|^2 + |s2|^2 = floor(beta^2) + 1.
    NormAboveBound,
    /// The same with `|s1[i]| = B_inf + 1` (the squared norm floor(beta^2)).
    S1AboveBound,
    /// A signature of [`Class::NormAtBound`] with `s2[j]` written as B_inf + 1: the decoder's bound.
    S2AboveBound,
    /// s2's compressed encoding ends on the signature's last bit, the squared norm floor(beta^2): accepted.
    EncodingFilled,
    /// The same with one coefficient a unary bit longer: the encoding ends past the signature.
    EncodingOverfilled,
    // Invalid signatures (well-formed, wrong).
    BitFlip,
    Truncated,
    OtherMessage,
    OtherContext,
    OtherKey,
    // Malformed verifying keys.
    KeyHeader,
    KeyCoefficient,
    KeyLength,
    KeyDegree,
    // Malformed signatures.
    SignatureHeader,
    SignatureLength,
    SignatureDegree,
    NegativeZero,
    MagnitudeAboveBound,
    CompressedOverrun,
    NonZeroPadding,
    // Malformed hash inputs.
    ContextTooLong,
    ExternalMuLength,
}

impl Class {
    /// Valid first, then the bounds: the first edge cases of `fndsa.verify` and the first batch of
    /// `fndsa.verify.batch4` hold every bound.
    pub const ALL: [Class; 25] = [
        Class::Valid,
        Class::NormAtBound,
        Class::NormAboveBound,
        Class::S1AboveBound,
        Class::S2AboveBound,
        Class::EncodingFilled,
        Class::EncodingOverfilled,
        Class::BitFlip,
        Class::Truncated,
        Class::OtherMessage,
        Class::OtherContext,
        Class::OtherKey,
        Class::KeyHeader,
        Class::KeyCoefficient,
        Class::KeyLength,
        Class::KeyDegree,
        Class::SignatureHeader,
        Class::SignatureLength,
        Class::SignatureDegree,
        Class::NegativeZero,
        Class::MagnitudeAboveBound,
        Class::CompressedOverrun,
        Class::NonZeroPadding,
        Class::ContextTooLong,
        Class::ExternalMuLength,
    ];

    /// Whether core accepts every request of this class.
    pub fn accepted(self) -> bool {
        matches!(self, Class::Valid | Class::NormAtBound | Class::EncodingFilled)
    }

    /// Whether core rejects every request of this class before verifying it (a decoder or a length refuses it).
    pub fn malformed(self) -> bool {
        !self.accepted()
            && !matches!(
                self,
                Class::BitFlip
                    | Class::Truncated
                    | Class::OtherMessage
                    | Class::OtherContext
                    | Class::OtherKey
                    | Class::NormAboveBound
                    | Class::S1AboveBound
            )
    }
}

/// How the signed value is hashed.
#[derive(Debug, Clone, Copy)]
enum Mode {
    Raw,
    Sha3_256,
    Sha512,
    /// Any identifier bytes (0 to ID_MAX of them, not one of the one-byte markers): core hashes them as an OID.
    ArbitraryId,
    ExternalMu,
}

const MODES: [Mode; 5] = [Mode::Raw, Mode::Sha3_256, Mode::Sha512, Mode::ArbitraryId, Mode::ExternalMu];

fn bytes(rng: &mut CaseRng, len: usize) -> Vec<u8> {
    let mut v = vec![0; len];
    rng.fill(&mut v[..]);
    v
}

/// A signed request under pool key `which` of degree logn: random message, context and mode.
fn signed(rng: &mut CaseRng, logn: u32, which: usize) -> (Request, Mode) {
    let pool = pool_key(logn, which);
    let mode = MODES[rng.gen_range(0..MODES.len())];
    let ctx_len = if rng.gen_ratio(1, 16) { CONTEXT_MAX } else { rng.gen_range(0..=32) };
    let ctx = bytes(rng, ctx_len);
    let message_len = rng.gen_range(0..=MESSAGE_MAX);
    let message = bytes(rng, message_len);
    let (id, hv) = match mode {
        Mode::Raw => (HashId::RAW.0.to_vec(), message),
        Mode::Sha3_256 => (HashId::SHA3_256.0.to_vec(), keccak::sha3_256(&message).to_vec()),
        Mode::Sha512 => (HashId::SHA512.0.to_vec(), bytes(rng, 64)),
        Mode::ArbitraryId => {
            let id_len = rng.gen_range(0..=ID_MAX);
            let mut id = bytes(rng, id_len);
            if id.len() == 1 && (id[0] == HashId::RAW.0[0] || id[0] == HashId::EXTERNAL_MU.0[0]) {
                id[0] ^= 0x55;
            }
            (id, message)
        }
        Mode::ExternalMu => {
            let mu = compute_mu(pool.key.hashed_vk(), &ctx, HashId::RAW, &message).expect("context within 255 bytes");
            (HashId::EXTERNAL_MU.0.to_vec(), mu.to_vec())
        }
    };
    let rng40: [u8; 40] = std::array::from_fn(|_| rng.r#gen());
    let sig = pool
        .key
        .sign(&mut ReferenceKernels::default(), &rng40, &ctx, HashId(&id), &hv)
        .expect("core signs with its own key");
    (Request { vk: pool.vk.clone(), sig, ctx, id, hv }, mode)
}

/// s2 of a well-formed signature, and the capacity of its compressed part in bytes.
fn s2_of(sig: &[u8], logn: u32) -> Vec<i16> {
    codec::Signature::decode(logn, sig).expect("an honest signature decodes").s2
}

/// Re-encodes the compressed part of `sig` from `s2` with one coefficient written as (sign, magnitude) verbatim:
/// the sign bit, the 7 low bits of the magnitude, then magnitude >> 7 zeros and a one. Bits beyond the signature's
/// length are dropped.
fn reencode(sig: &mut [u8], s2: &[i16], index: usize, negative: bool, magnitude: u32) {
    let start = 1 + NONCE_LEN;
    let data = &mut sig[start..];
    data.fill(0);
    let capacity = 8 * data.len();
    let mut bit = 0;
    let mut push = |value: u32, nbits: usize| {
        for k in 0..nbits {
            if bit < capacity {
                data[bit / 8] |= (((value >> k) & 1) as u8) << (bit % 8);
            }
            bit += 1;
        }
    };
    for (i, &x) in s2.iter().enumerate() {
        let (negative, magnitude) = if i == index { (negative, magnitude) } else { (x < 0, x.unsigned_abs() as u32) };
        push(u32::from(negative) | ((magnitude & 0x7F) << 1), 8);
        let high = (magnitude >> 7) as usize;
        push(0, high);
        push(1, 1);
    }
}

/// A request of degree logn in class `class`; `rng` picks the message, key, position of the change and so on. In a
/// batch (`batch`), a key of the other standard degree is also of the wrong degree.
pub fn request(rng: &mut CaseRng, logn: u32, class: Class, batch: bool) -> Request {
    if let Some(request) = boundary_request(rng, logn, class) {
        return request;
    }
    let which = rng.gen_range(0..KEYS_PER_DEGREE);
    let (mut r, mode) = signed(rng, logn, which);
    let n = 1usize << logn;
    match class {
        Class::Valid => {}
        Class::BitFlip => {
            let at = rng.gen_range(0..r.sig.len());
            r.sig[at] ^= 1 << rng.gen_range(0..8);
        }
        Class::Truncated => {
            let keep = rng.gen_range(0..r.sig.len());
            r.sig.truncate(keep);
        }
        Class::OtherMessage => other_message(&mut r),
        Class::OtherContext => {
            // Under external mu the context is not part of the signed value: another identifier instead.
            if matches!(mode, Mode::ExternalMu) {
                r.id = HashId::RAW.0.to_vec();
            } else {
                match r.ctx.first_mut() {
                    Some(b) => *b ^= 1,
                    None => r.ctx.push(0),
                }
            }
        }
        Class::OtherKey => r.vk = pool_key(logn, which + 1 + rng.gen_range(0..KEYS_PER_DEGREE - 1)).vk.clone(),
        Class::KeyHeader => r.vk[0] |= [0x10, 0x20, 0x40, 0x80][rng.gen_range(0..4)],
        Class::KeyCoefficient => {
            // Coefficient `index` (14 bits at bit 14*index after the header) set to a value in [q, 2^14).
            let index = rng.gen_range(0..n);
            let value = rng.gen_range(fndsa::ntt::Q..1 << 14);
            for k in 0..14 {
                let bit = 8 + 14 * index + k;
                let mask = 1 << (bit % 8);
                if (value >> k) & 1 == 1 { r.vk[bit / 8] |= mask } else { r.vk[bit / 8] &= !mask }
            }
        }
        Class::KeyLength => {
            if rng.r#gen() {
                r.vk.pop();
            } else {
                r.vk.push(rng.r#gen());
            }
        }
        Class::KeyDegree => {
            // A valid signature under a key of another degree: logn 8, or in a batch the other standard one.
            let other = if batch && rng.r#gen() { 19 - logn } else { OTHER_LOGN };
            let (other_request, _) = signed(rng, other, which);
            return other_request;
        }
        Class::SignatureHeader => {
            r.sig[0] = loop {
                let head: u8 = rng.r#gen();
                if head != 0x30 + logn as u8 {
                    break head;
                }
            }
        }
        Class::SignatureLength => {
            if rng.r#gen() {
                r.sig.push(0);
            } else {
                r.sig.truncate(codec::signature_size(logn) - 1);
            }
        }
        Class::SignatureDegree => r.sig = signed(rng, 19 - logn, which).0.sig,
        Class::NegativeZero => {
            let s2 = s2_of(&r.sig, logn);
            reencode(&mut r.sig, &s2, rng.gen_range(0..n), true, 0);
        }
        Class::MagnitudeAboveBound => {
            let s2 = s2_of(&r.sig, logn);
            let magnitude = rng.gen_range(B_INF + 1..=B_INF + 128);
            reencode(&mut r.sig, &s2, rng.gen_range(0..n), rng.r#gen(), magnitude);
        }
        Class::CompressedOverrun => {
            // Every coefficient at the bound: 8 + 7 bits each, far more than the signature holds.
            reencode(&mut r.sig, &vec![B_INF as i16; n], 0, false, B_INF);
        }
        Class::NonZeroPadding => {
            // The last byte is padding in all but the rarest signatures (then this is a bit flip).
            let last = r.sig.len() - 1;
            r.sig[last] |= 1 << rng.gen_range(0..8);
        }
        Class::ContextTooLong => {
            let len = rng.gen_range(CONTEXT_MAX + 1..=CONTEXT_TOO_LONG_MAX);
            r.ctx = bytes(rng, len);
            if matches!(mode, Mode::ExternalMu) {
                r.id = HashId::RAW.0.to_vec();
            }
        }
        Class::ExternalMuLength => {
            r.id = HashId::EXTERNAL_MU.0.to_vec();
            let len = [0, 32, 63, 65, 128][rng.gen_range(0..5)];
            r.hv.resize(len, 0xA5);
        }
        Class::NormAtBound
        | Class::NormAboveBound
        | Class::S1AboveBound
        | Class::S2AboveBound
        | Class::EncodingFilled
        | Class::EncodingOverfilled => unreachable!("made by boundary_request"),
    }
    r
}

/// The same signature over another message (another hashed value).
fn other_message(r: &mut Request) {
    match r.hv.first_mut() {
        Some(b) => *b ^= 1,
        None => r.hv.push(0),
    }
}

/// The same nonce with another s2: the first non-zero coefficient one closer to zero (the encoding cannot grow).
fn other_s2(r: &mut Request, logn: u32) {
    let mut sig = Signature::decode(logn, &r.sig).expect("an honest signature decodes");
    let x = sig.s2.iter_mut().find(|x| **x != 0).expect("s2 is not zero");
    *x -= x.signum();
    r.sig = sig.encode().expect("a smaller coefficient fits");
}

// ---- Signatures at the bounds ----

/// h of the key the boundary signatures are made under: the constant polynomial 48 (48 in every NTT slot, as
/// encoded). Then s2*h = 48 s2 and s1[i] = c[i] - 48 s2[i] mod q, so each coefficient's pair (s1[i], s2[i]) is chosen
/// on its own: the 255 values of s2[i] in [-127, 127] put s1[i] within 24 of any residue, about 35 of them with
/// |s1[i]| <= B_inf. No signing key is needed; the verifier cannot tell (any h below q is a key).
const BOUNDARY_H: i32 = 48;
/// |s2[i]| of a coefficient with no unary bit in the encoding (the encoding then holds every s2), and of one with
/// exactly one.
const NO_UNARY_BIT: RangeInclusive<u32> = 0..=127;
const ONE_UNARY_BIT: RangeInclusive<u32> = 128..=255;
/// The coefficients chosen last, together, to meet the squared norm exactly: two against three (about 35^2 sums
/// looked up for each of 35^3, where a sum lands on a given value about once in 10^5 tries).
const PAIR: usize = 2;
const TRIPLE: usize = 3;

/// What a boundary signature reaches.
#[derive(Debug, Clone, Copy)]
struct Shape {
    /// |s1|^2 + |s2|^2.
    norm: u32,
    /// |s1[i]| of one coefficient (every other at most B_inf).
    s1_peak: Option<u32>,
    /// |s2[j]| = B_inf at one coefficient (every other at most 255).
    s2_peak: bool,
    /// s2's encoding ends on the signature's last bit.
    filled: bool,
}

impl Shape {
    fn of(class: Class, logn: u32) -> Option<Shape> {
        let bound = fndsa::SQBETA[logn as usize];
        let at = Shape { norm: bound, s1_peak: Some(B_INF), s2_peak: true, filled: false };
        let filled = Shape { s2_peak: false, filled: true, ..at };
        Some(match class {
            Class::NormAtBound | Class::S2AboveBound => at,
            Class::NormAboveBound => Shape { norm: bound + 1, ..at },
            Class::S1AboveBound => Shape { s1_peak: Some(B_INF + 1), ..at },
            Class::EncodingFilled | Class::EncodingOverfilled => filled,
            _ => return None,
        })
    }
}

/// One choice for a coefficient: s2[i], and |s1[i]|^2 + s2[i]^2.
#[derive(Debug, Clone, Copy)]
struct Choice {
    s2: i16,
    norm: i64,
}

/// The choices for a coefficient with hash-to-point value c: |s2| in `s2`, |s1| accepted by `s1_ok`.
fn choices(c: u16, s2: RangeInclusive<u32>, s1_ok: &dyn Fn(u32) -> bool) -> Vec<Choice> {
    let q = fndsa::ntt::Q as i32;
    s2.flat_map(|m| [m as i32, -(m as i32)].into_iter().take(if m == 0 { 1 } else { 2 }))
        .filter_map(|x| {
            let r = (i32::from(c) - BOUNDARY_H * x).rem_euclid(q);
            let s1 = if r > q / 2 { r - q } else { r };
            s1_ok(s1.unsigned_abs()).then_some(Choice { s2: x as i16, norm: i64::from(s1 * s1 + x * x) })
        })
        .collect()
}

/// s2 of `shape` for the hash-to-point values c, if this c has one: the peaks at the first coefficients that take
/// them, then each coefficient the choice closest to an equal share of the norm left, the last five together.
fn solve(c: &[u16], logn: u32, shape: Shape) -> Option<Vec<i16>> {
    let n = c.len();
    let within = |m: u32| m <= B_INF;
    let mut s2 = vec![0i16; n];
    let mut fixed = vec![false; n];
    let mut left = i64::from(shape.norm);
    let first = |fixed: &[bool], s2_range: RangeInclusive<u32>, s1_ok: &dyn Fn(u32) -> bool| {
        (0..n).filter(|&i| !fixed[i]).find_map(|i| choices(c[i], s2_range.clone(), s1_ok).first().map(|&ch| (i, ch)))
    };
    let mut peaks = Vec::new();
    if shape.s2_peak {
        peaks.push(first(&fixed, B_INF..=B_INF, &within)?);
        fixed[peaks[0].0] = true;
    }
    if let Some(peak) = shape.s1_peak {
        let (i, choice) = first(&fixed, NO_UNARY_BIT, &|m: u32| m == peak)?;
        fixed[i] = true;
        peaks.push((i, choice));
    }
    for (i, choice) in peaks {
        s2[i] = choice.s2;
        left -= choice.norm;
    }
    let free: Vec<usize> = (0..n).filter(|&i| !fixed[i]).collect();
    // Filled: as many coefficients with one unary bit as the signature has bits beyond 9 per coefficient.
    let unary = if shape.filled { 8 * (codec::signature_size(logn) - 1 - NONCE_LEN) - 9 * n } else { 0 };
    let (greedy, last) = free.split_at(free.len() - PAIR - TRIPLE);
    for (k, &i) in greedy.iter().enumerate() {
        let share = left / (free.len() - k) as i64;
        let range = if k < unary { ONE_UNARY_BIT } else { NO_UNARY_BIT };
        let choice = choices(c[i], range, &within).into_iter().min_by_key(|ch| (ch.norm - share).abs())?;
        s2[i] = choice.s2;
        left -= choice.norm;
    }
    let options: Vec<Vec<Choice>> = last.iter().map(|&i| choices(c[i], NO_UNARY_BIT, &within)).collect();
    let mut pairs = HashMap::new();
    for &a in &options[0] {
        for &b in &options[1] {
            pairs.entry(a.norm + b.norm).or_insert([a, b]);
        }
    }
    for &x in &options[2] {
        for &y in &options[3] {
            for &z in &options[4] {
                if let Some(&[a, b]) = pairs.get(&(left - x.norm - y.norm - z.norm)) {
                    for (&i, choice) in last.iter().zip([a, b, x, y, z]) {
                        s2[i] = choice.s2;
                    }
                    return Some(s2);
                }
            }
        }
    }
    None
}

/// The verifying key of degree logn whose h is [`BOUNDARY_H`].
fn boundary_key(logn: u32) -> Vec<u8> {
    codec::encode_verifying_key(logn, &vec![BOUNDARY_H as u16; 1 << logn]).expect("values below q")
}

/// A signature of `shape` over (ctx, message) under the boundary key `vk` with `nonce`, and its s2, if the
/// hash-to-point values have one.
fn boundary_signature(
    vk: &[u8],
    logn: u32,
    ctx: &[u8],
    message: &[u8],
    nonce: [u8; NONCE_LEN],
    shape: Shape,
) -> Option<(Vec<u8>, Vec<i16>)> {
    let mu = compute_mu(&hash_verifying_key(vk), ctx, HashId::RAW, message).expect("context within 255 bytes");
    let mut c = vec![0; 1 << logn];
    hash_to_point(&nonce, &mu, &mut c);
    let s2 = solve(&c, logn, shape)?;
    let sig = Signature { logn, nonce, s2: s2.clone() }.encode().expect("every shape fits the signature");
    Some((sig, s2))
}

/// A random context and message (raw) under the boundary key.
fn boundary_message(rng: &mut CaseRng, logn: u32) -> Request {
    let ctx_len = rng.gen_range(0..=32);
    let message_len = rng.gen_range(0..=MESSAGE_MAX);
    let (ctx, hv) = (bytes(rng, ctx_len), bytes(rng, message_len));
    Request { vk: boundary_key(logn), sig: vec![], ctx, id: HashId::RAW.0.to_vec(), hv }
}

/// A request of a boundary class (None for the other classes): a random message and nonce (drawn again in the
/// rare case that the hash-to-point values have no signature of the shape).
fn boundary_request(rng: &mut CaseRng, logn: u32, class: Class) -> Option<Request> {
    let shape = Shape::of(class, logn)?;
    let (mut r, s2) = loop {
        let mut r = boundary_message(rng, logn);
        let nonce = std::array::from_fn(|_| rng.r#gen());
        if let Some((sig, s2)) = boundary_signature(&r.vk, logn, &r.ctx, &r.hv, nonce, shape) {
            r.sig = sig;
            break (r, s2);
        }
    };
    match class {
        Class::S2AboveBound => {
            let j = s2.iter().position(|x| u32::from(x.unsigned_abs()) == B_INF).expect("the peak");
            reencode(&mut r.sig, &s2, j, s2[j] < 0, B_INF + 1);
        }
        Class::EncodingOverfilled => {
            let unary_bit = *ONE_UNARY_BIT.start();
            let j = s2.iter().position(|x| NO_UNARY_BIT.contains(&u32::from(x.unsigned_abs()))).expect("no unary bit");
            reencode(&mut r.sig, &s2, j, s2[j] < 0, u32::from(s2[j].unsigned_abs()) + unary_bit);
        }
        _ => {}
    }
    Some(r)
}

/// A random class: valid half the time, else any other class.
fn random_class(rng: &mut CaseRng) -> Class {
    if rng.r#gen() { Class::Valid } else { Class::ALL[rng.gen_range(1..Class::ALL.len())] }
}

// ---- Case generators ----

/// Framings that do not add up, each a whole single-request case: empty; a header alone; lengths past the end
/// (the largest u32 included); a byte after the request.
const FRAMING_EDGE_CASES: u64 = 5;

fn single_edge_cases() -> u64 {
    FRAMING_EDGE_CASES + (Class::ALL.len() * LOGN.len()) as u64
}

fn broken_framing(case: u64, valid: Vec<u8>) -> Vec<u8> {
    match case {
        0 => vec![],
        1 => vec![0; HEADER_BYTES],
        2 => {
            let mut b = valid;
            b[16..20].copy_from_slice(&u32::MAX.to_le_bytes());
            b
        }
        3 => {
            let mut b = valid;
            b.pop();
            b
        }
        _ => {
            let mut b = valid;
            b.push(0);
            b
        }
    }
}

fn generate_single(case: u64, rng: &mut CaseRng) -> Case {
    let bytes = if case < FRAMING_EDGE_CASES {
        broken_framing(case, request(rng, 9, Class::Valid, false).framed())
    } else if case < single_edge_cases() {
        let index = (case - FRAMING_EDGE_CASES) as usize;
        request(rng, LOGN[index % LOGN.len()], Class::ALL[index / LOGN.len()], false).framed()
    } else {
        let logn = LOGN[rng.gen_range(0..LOGN.len())];
        let class = random_class(rng);
        request(rng, logn, class, false).framed()
    };
    Case::new(bytes, 0)
}

/// Batches of four of a kind: groups of four consecutive classes of [`Class::ALL`] (wrapping), at each degree.
const CLASS_GROUPS: usize = Class::ALL.len().div_ceil(BATCH);

/// Batch edge cases: four of a kind (each class at each degree, four per batch, in order), broken framings, then
/// requests sharing a nonce.
const BATCH_EDGE_CASES: [BatchEdge; 2 * CLASS_GROUPS + 7] = {
    use Derived::*;
    let mut cases = [BatchEdge::ThreeRequests; 2 * CLASS_GROUPS + 7];
    let mut k = 0;
    while k < 2 * CLASS_GROUPS {
        cases[k] = BatchEdge::Classes { logn: LOGN[k % 2], first: BATCH * (k / 2) };
        k += 1;
    }
    cases[k] = BatchEdge::Framing { drop: 1 };
    cases[k + 1] = BatchEdge::Framing { drop: -1 };
    cases[k + 2] = BatchEdge::ThreeRequests;
    cases[k + 3] = BatchEdge::AllValidBoth;
    cases[k + 4] = BatchEdge::SharedSignature { logn: 9, of: [Same, OtherMessage, Same, OtherKey] };
    cases[k + 5] = BatchEdge::SharedSignature { logn: 10, of: [Same, OtherS2, Same, OtherMessage] };
    cases[k + 6] = BatchEdge::SharedNonce;
    cases
};

#[derive(Debug, Clone, Copy)]
enum BatchEdge {
    /// Classes first..first+4 of [`Class::ALL`] (wrapping), at degree logn.
    Classes { logn: u32, first: usize },
    /// Four valid requests with one byte dropped from the end (1) or one added (-1).
    Framing { drop: i32 },
    /// Three requests only.
    ThreeRequests,
    /// Four valid requests at logn 10, two of them with the same key and message.
    AllValidBoth,
    /// One valid request and copies of it, each as `of` says: all four with the signature's nonce.
    SharedSignature { logn: u32, of: [Derived; BATCH] },
    /// Under the boundary key at logn 10, one nonce for all four: a valid signature of message A over another
    /// message (rejected), that signature (accepted), a valid signature of message B, and another one of B (another
    /// s2, the squared norm one less).
    SharedNonce,
}

/// A request made from a valid one, with the same signature or (`OtherS2`) the same nonce.
#[derive(Debug, Clone, Copy)]
enum Derived {
    Same,
    OtherMessage,
    OtherKey,
    OtherS2,
}

fn generate_batch(case: u64, rng: &mut CaseRng) -> Case {
    let framed = |requests: &[Request]| requests.iter().flat_map(Request::framed).collect::<Vec<u8>>();
    if let Some(edge) = BATCH_EDGE_CASES.get(case as usize) {
        return match *edge {
            BatchEdge::Classes { logn, first } => {
                let requests: Vec<Request> =
                    (0..BATCH).map(|k| request(rng, logn, Class::ALL[(first + k) % Class::ALL.len()], true)).collect();
                Case::new(framed(&requests), logn)
            }
            BatchEdge::Framing { drop } => {
                let requests: Vec<Request> = (0..BATCH).map(|_| request(rng, 9, Class::Valid, true)).collect();
                let mut bytes = framed(&requests);
                if drop > 0 {
                    bytes.pop();
                } else {
                    bytes.push(0);
                }
                Case::new(bytes, 9)
            }
            BatchEdge::ThreeRequests => {
                let requests: Vec<Request> = (0..BATCH - 1).map(|_| request(rng, 9, Class::Valid, true)).collect();
                Case::new(framed(&requests), 9)
            }
            BatchEdge::AllValidBoth => {
                let mut requests: Vec<Request> = (0..BATCH).map(|_| request(rng, 10, Class::Valid, true)).collect();
                requests[1] = requests[0].clone();
                Case::new(framed(&requests), 10)
            }
            BatchEdge::SharedSignature { logn, of } => {
                let which = rng.gen_range(0..KEYS_PER_DEGREE);
                let (valid, _) = signed(rng, logn, which);
                let requests: Vec<Request> = of
                    .iter()
                    .map(|derived| {
                        let mut r = valid.clone();
                        match derived {
                            Derived::Same => {}
                            Derived::OtherMessage => other_message(&mut r),
                            Derived::OtherKey => r.vk = pool_key(logn, which + 1).vk.clone(),
                            Derived::OtherS2 => other_s2(&mut r, logn),
                        }
                        r
                    })
                    .collect();
                Case::new(framed(&requests), logn)
            }
            BatchEdge::SharedNonce => Case::new(framed(&shared_nonce(rng, 10)), 10),
        };
    }
    let logn = LOGN[rng.gen_range(0..LOGN.len())];
    let requests: Vec<Request> = (0..BATCH)
        .map(|_| {
            let class = random_class(rng);
            request(rng, logn, class, true)
        })
        .collect();
    Case::new(framed(&requests), logn)
}

/// The requests of [`BatchEdge::SharedNonce`] (a message drawn again in the rare case that it has no signature of a
/// shape).
fn shared_nonce(rng: &mut CaseRng, logn: u32) -> [Request; BATCH] {
    let nonce = std::array::from_fn(|_| rng.r#gen());
    let at = Shape::of(Class::NormAtBound, logn).expect("a boundary class");
    let below = Shape { norm: at.norm - 1, ..at };
    let sign = |r: &Request, shape| boundary_signature(&r.vk, logn, &r.ctx, &r.hv, nonce, shape).map(|(sig, _)| sig);
    let a = loop {
        let r = boundary_message(rng, logn);
        if let Some(sig) = sign(&r, at) {
            break Request { sig, ..r };
        }
    };
    let mut a_elsewhere = a.clone();
    other_message(&mut a_elsewhere);
    let (b, b_again) = loop {
        let r = boundary_message(rng, logn);
        if let (Some(sig), Some(again)) = (sign(&r, at), sign(&r, below)) {
            break (Request { sig, ..r.clone() }, Request { sig: again, ..r });
        }
    };
    [a_elsewhere, a, b, b_again]
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::case_rng;

    /// Every class does to core's verdict what its name says, at both degrees, alone and in a batch: valid requests
    /// and signatures at the bounds verify, every other class is rejected.
    #[test]
    fn classes_give_the_verdicts_they_name() {
        for logn in LOGN {
            for class in Class::ALL {
                for case in 0..3 {
                    let single = request(&mut case_rng(5, case), logn, class, false);
                    assert_eq!(verify_single(&single.framed()), class.accepted(), "{class:?}, logn {logn}, {case}");
                    let batch: Vec<u8> = (0..BATCH as u64)
                        .flat_map(|k| request(&mut case_rng(5, 10 * case + k), logn, class, true).framed())
                        .collect();
                    assert_eq!(verify_batch(&batch, logn), [class.accepted(); BATCH], "{class:?}, logn {logn}");
                }
            }
        }
    }

    /// The framing round-trips, and a framing that does not add up is rejected as a whole.
    #[test]
    fn framing_round_trips_and_broken_framings_reject() {
        let request = request(&mut case_rng(6, 0), 9, Class::Valid, false);
        let bytes = request.framed();
        assert_eq!(Request::unframe(&bytes), Some((request.clone(), bytes.len())));
        assert!(verify_single(&bytes));
        for case in 0..FRAMING_EDGE_CASES {
            assert!(!verify_single(&broken_framing(case, bytes.clone())), "framing edge case {case}");
        }
        let batch: Vec<u8> = (0..BATCH).flat_map(|_| bytes.clone()).collect();
        assert_eq!(verify_batch(&batch, 9), [true; BATCH]);
        assert_eq!(verify_batch(&batch, 10), [false; BATCH], "keys of another degree than the batch's");
        assert_eq!(verify_batch(&batch[..batch.len() - 1], 9), [false; BATCH]);
    }

    /// The fn-dsa crate's FN-DSA-512/1024 verifier: the oracle of core's verdicts. The crate asserts a context of at
    /// most 255 bytes and an external mu of 64 (its caller's duty): anything else is a rejection.
    fn crate_accepts(r: &Request) -> bool {
        use fn_dsa::{DomainContext, HashIdentifier, VerifyingKey as _, VerifyingKeyStandard};
        let external_mu = r.id == HashId::EXTERNAL_MU.0;
        let hashable = if external_mu { r.hv.len() == 64 } else { r.ctx.len() <= CONTEXT_MAX };
        hashable
            && VerifyingKeyStandard::decode(&r.vk)
                .is_some_and(|k| k.verify(&r.sig, &DomainContext(&r.ctx), &HashIdentifier(&r.id), &r.hv))
    }

    /// Every class is accepted by the fn-dsa crate exactly when its name says so, at both degrees.
    #[test]
    fn the_crate_gives_every_class_the_verdict_it_names() {
        for logn in LOGN {
            for class in Class::ALL {
                for case in 0..2 {
                    let r = request(&mut case_rng(8, case), logn, class, false);
                    assert_eq!(crate_accepts(&r), class.accepted(), "{class:?}, logn {logn}, {case}");
                }
            }
        }
    }

    /// The signatures at the bounds reach them exactly, by arithmetic on the decoded signature (h = 48 in every NTT
    /// slot is the constant 48, so s1 = c - 48 s2 mod q), and core rejects the ones past a bound for that bound.
    #[test]
    fn boundary_signatures_sit_exactly_at_their_bounds() {
        use fndsa::Error;
        let q = fndsa::ntt::Q as i64;
        for logn in LOGN {
            let n = 1usize << logn;
            let bound = u64::from(fndsa::SQBETA[logn as usize]);
            let capacity_bits = 8 * (codec::signature_size(logn) - 1 - NONCE_LEN);
            // (norm, max |s1|, max |s2|) of a request that decodes, with the bits its encoding takes.
            let measure = |r: &Request| {
                let key = VerifyingKey::decode(&r.vk).unwrap();
                assert!(key.h_ntt().iter().all(|&h| h == 48), "h is the constant 48");
                let sig = Signature::decode(logn, &r.sig).unwrap();
                let mu = compute_mu(key.hashed(), &r.ctx, HashId(&r.id), &r.hv).unwrap();
                let mut c = vec![0; n];
                hash_to_point(&sig.nonce, &mu, &mut c);
                let s1: Vec<i64> = c
                    .iter()
                    .zip(&sig.s2)
                    .map(|(&c, &x)| {
                        let r = (i64::from(c) - 48 * i64::from(x)).rem_euclid(q);
                        if r > q / 2 { r - q } else { r }
                    })
                    .collect();
                let s2: Vec<i64> = sig.s2.iter().map(|&x| i64::from(x)).collect();
                let norm = s1.iter().chain(&s2).map(|x| (x * x) as u64).sum::<u64>();
                let max = |v: &[i64]| v.iter().map(|x| x.unsigned_abs()).max().unwrap();
                let bits: usize = s2.iter().map(|x| 9 + (x.unsigned_abs() >> 7) as usize).sum();
                (norm, max(&s1), max(&s2), bits)
            };
            let verify = |r: &Request| {
                VerifyingKey::decode(&r.vk).unwrap().verify(&mut fndsa::Reference, &r.sig, &r.ctx, HashId(&r.id), &r.hv)
            };
            for case in 0..2 {
                let make = |class| request(&mut case_rng(9, case), logn, class, false);
                let at = make(Class::NormAtBound);
                let (norm, s1, s2, _) = measure(&at);
                assert_eq!((norm, s1, s2), (bound, 840, 840), "logn {logn}");
                assert_eq!(verify(&at), Ok(()));

                let above = make(Class::NormAboveBound);
                assert_eq!(measure(&above).0, bound + 1);
                assert_eq!(verify(&above), Err(Error::NormTooLarge { norm: bound + 1, bound: bound as u32 }));

                let s1_above = make(Class::S1AboveBound);
                let (norm, s1, _, _) = measure(&s1_above);
                assert_eq!((norm, s1), (bound, 841));
                assert!(matches!(verify(&s1_above), Err(Error::S1TooLarge { magnitude: 841, .. })));

                // The same draws as `at`: the same signature but for the one coefficient written as 841.
                let s2_above = make(Class::S2AboveBound);
                let differing = at.sig.iter().zip(&s2_above.sig).filter(|(a, b)| a != b).count();
                assert_eq!(differing, 1, "one coefficient's low bits");
                assert!(matches!(verify(&s2_above), Err(Error::CoefficientTooLarge { magnitude: 841, .. })));

                let filled = make(Class::EncodingFilled);
                let (norm, _, _, bits) = measure(&filled);
                assert_eq!((norm, bits), (bound, capacity_bits));
                assert_eq!(verify(&filled), Ok(()));

                let overfilled = make(Class::EncodingOverfilled);
                assert_eq!(verify(&overfilled), Err(Error::Truncated { index: n - 1 }));
            }
        }
    }

    /// The batches of requests sharing a nonce: one nonce in all four, and the verdicts their construction names,
    /// from core and from the fn-dsa crate.
    #[test]
    fn shared_nonce_batches_have_one_nonce_and_the_verdicts_they_name() {
        let expected: [(usize, [bool; BATCH]); 3] = [
            (BATCH_EDGE_CASES.len() - 3, [true, false, true, false]),
            (BATCH_EDGE_CASES.len() - 2, [true, false, true, false]),
            (BATCH_EDGE_CASES.len() - 1, [false, true, true, true]),
        ];
        for seed in 0..2 {
            for (index, verdicts) in expected {
                let case = generate_batch(index as u64, &mut case_rng(seed, index as u64));
                let mut requests = Vec::new();
                let mut at = 0;
                while at < case.bytes.len() {
                    let (request, size) = Request::unframe(&case.bytes[at..]).unwrap();
                    requests.push(request);
                    at += size;
                }
                assert_eq!(requests.len(), BATCH);
                let nonce = &requests[0].sig[1..1 + NONCE_LEN];
                assert!(requests.iter().all(|r| &r.sig[1..1 + NONCE_LEN] == nonce), "edge case {index}");
                assert_eq!(verify_batch(&case.bytes, case.logn), verdicts, "edge case {index}");
                let oracle: Vec<bool> = requests.iter().map(crate_accepts).collect();
                assert_eq!(oracle, verdicts, "edge case {index}: the crate");
            }
        }
    }
}
