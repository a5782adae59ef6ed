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
//! the decoders reject. Edge cases first: each class at each degree, and framings that do not add up.

use std::sync::LazyLock;

use pqhelium_core::fndsa::codec::{self, NONCE_LEN};
use pqhelium_core::fndsa::{self, HashId, ReferenceKernels, SigningKey, VerifyingKey, compute_mu};
use pqhelium_core::keccak;
use rand::Rng;

use super::{
    ArgSpec, Bound, CaseRng, Contract, Description, Elem, Images, Kernel, Len, Outcome, Ways, buffer, u32_arg,
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
        let fields = [&self.vk, &self.sig, &self.ctx, &self.id, &self.hv];
        let mut out: Vec<u8> = fields.iter().flat_map(|f| (f.len() as u32).to_le_bytes()).collect();
        fields.iter().for_each(|f| out.extend_from_slice(f));
        out
    }

    /// The request at the front of `bytes` and its size, if its header and fields fit.
    fn unframe(bytes: &[u8]) -> Option<(Request, usize)> {
        let header = bytes.get(..HEADER_BYTES)?;
        let mut at = HEADER_BYTES;
        let mut fields = header.chunks_exact(4).map(|w| {
            let len = u32::from_le_bytes(w.try_into().unwrap()) as usize;
            let field = bytes.get(at..at.checked_add(len)?)?.to_vec();
            at += len;
            Some(field)
        });
        let mut next = || fields.next().flatten();
        let request = Request { vk: next()?, sig: next()?, ctx: next()?, id: next()?, hv: next()? };
        Some((request, at))
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
    pub const ALL: [Class; 19] = [
        Class::Valid,
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

    /// Whether core rejects every request of this class.
    pub fn malformed(self) -> bool {
        !matches!(
            self,
            Class::Valid
                | Class::BitFlip
                | Class::Truncated
                | Class::OtherMessage
                | Class::OtherContext
                | Class::OtherKey
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
        Class::OtherMessage => match r.hv.first_mut() {
            Some(b) => *b ^= 1,
            None => r.hv.push(0),
        },
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
    }
    r
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

/// Batch edge cases: four of a kind (each class at each degree, four per batch, in order), then broken framings.
const BATCH_EDGE_CASES: [BatchEdge; 14] = {
    let mut cases = [BatchEdge::Classes { logn: 9, first: 0 }; 14];
    let mut k = 0;
    while k < 10 {
        cases[k] = BatchEdge::Classes { logn: LOGN[k % 2], first: 4 * (k / 2) };
        k += 1;
    }
    cases[10] = BatchEdge::Framing { drop: 1 };
    cases[11] = BatchEdge::Framing { drop: -1 };
    cases[12] = BatchEdge::ThreeRequests;
    cases[13] = BatchEdge::AllValidBoth;
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::case_rng;

    /// Every class does to core's verdict what its name says, at both degrees, alone and in a batch: valid requests
    /// verify, every other class is rejected.
    #[test]
    fn classes_give_the_verdicts_they_name() {
        for logn in LOGN {
            for class in Class::ALL {
                for case in 0..3 {
                    let single = request(&mut case_rng(5, case), logn, class, false);
                    assert_eq!(
                        verify_single(&single.framed()),
                        class == Class::Valid,
                        "{class:?}, logn {logn}, {case}"
                    );
                    let batch: Vec<u8> = (0..BATCH as u64)
                        .flat_map(|k| request(&mut case_rng(5, 10 * case + k), logn, class, true).framed())
                        .collect();
                    assert_eq!(verify_batch(&batch, logn), [class == Class::Valid; BATCH], "{class:?}, logn {logn}");
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
}
