//! Fuzz targets: one function per parser of outside input, run by the AFL binary of `fuzz/` (`ci/fuzz`) and, on the
//! seed corpus `fuzz/corpus/<target>/`, by `tests/fuzz_corpus.rs`.
//!
//! A target takes any bytes. It panics (a crash, for AFL) when the parser panics or when a property fails: a
//! decoded value must encode back to its input, and where an oracle crate decodes the same format it must accept
//! exactly what ours accepts and compute the same thing from it.

use std::path::Path;
use std::sync::OnceLock;

use fn_dsa::{
    DomainContext, HASH_ID_RAW, SigningKeyStandard, SigningKeyWeak, VerifyingKey as _, VerifyingKeyStandard,
    VerifyingKeyWeak, vrfy_key_size,
};
use ml_kem::{MlKem512, MlKem768, MlKem1024};
use pqhelium_core::fndsa::{self, HashId, MAX_LOGN, MIN_LOGN, ReferenceKernels, Signature};
use pqhelium_core::keccak::ReferencePermutation;
use pqhelium_core::mlkem::{ML_KEM_512, ML_KEM_768, ML_KEM_1024, MlKem, Params};
use pqhelium_core::rsp::{self, Record};
use pqhelium_core::x25519::{self, FieldArithmetic};
use pqhelium_core::xwing::{self, XWing};
use serde_json::Value;

use pqhelium_byo::formula::{self, Formula};
use pqhelium_byo::manifest;
use pqhelium_engine::ranges::Ranges;
use pqhelium_engine::report::{self, ArgReport, CampaignReport, FailureReport, Report};
use pqhelium_families::{self as registry, case_rng, check_input_bounds};
use pqhelium_guest::elf::GuestElf;
use pqhelium_schemes::kat;

/// What a parser made of an input.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Verdict {
    /// Decoded, and every property held.
    Accepted,
    /// Refused with an error.
    Rejected,
}

use Verdict::{Accepted, Rejected};

impl Verdict {
    fn of(accepted: bool) -> Self {
        if accepted { Accepted } else { Rejected }
    }
}

pub struct Target {
    /// Also the name of its corpus directory.
    pub name: &'static str,
    pub run: fn(&[u8]) -> Verdict,
}

pub const TARGETS: &[Target] = &[
    Target { name: "elf", run: elf },
    Target { name: "report", run: report },
    Target { name: "kat", run: kat },
    Target { name: "rsp", run: rsp },
    Target { name: "fndsa_signing_key", run: fndsa_signing_key },
    Target { name: "fndsa_verifying_key", run: fndsa_verifying_key },
    Target { name: "fndsa_signature", run: fndsa_signature },
    Target { name: "mlkem", run: mlkem },
    Target { name: "xwing", run: xwing },
    Target { name: "x25519", run: x25519 },
    Target { name: "manifest", run: manifest },
    Target { name: "order_formula", run: order_formula },
    Target { name: "order_file", run: order_file },
];

pub fn target(name: &str) -> Option<&'static Target> {
    TARGETS.iter().find(|t| t.name == name)
}

/// The guest ELF loader: accepted images keep their segments inside the address space, and the bytes' alignment
/// in memory does not change the result (the loader parses an aligned copy).
pub fn elf(data: &[u8]) -> Verdict {
    let mut shifted = vec![0u8; data.len() + 1];
    shifted[1..].copy_from_slice(data);
    let image = match (GuestElf::parse("fuzz", data), GuestElf::parse("fuzz", &shifted[1..])) {
        (Ok(image), Ok(again)) => {
            assert_eq!(layout(&image), layout(&again), "the same image read at another alignment");
            image
        }
        (Err(e), Err(again)) => {
            assert_eq!(e.to_string(), again.to_string(), "the same image read at another alignment");
            return Rejected;
        }
        (first, again) => panic!("aligned: {:?}, unaligned: {:?}", first.err(), again.err()),
    };
    for segment in &image.segments {
        assert!(segment.data.len() as u64 <= u64::from(segment.mem_size), "segment file size above memory size");
        assert!(segment.addr.checked_add(segment.mem_size).is_some(), "segment wraps the address space");
    }
    for addr in [0, image.entry, u32::MAX].into_iter().chain(image.segments.iter().map(|s| s.addr)) {
        image.locate(addr);
    }
    Accepted
}

type Layout = (u32, Vec<(u32, Vec<u8>, u32, bool)>, String);

fn layout(image: &GuestElf) -> Layout {
    let segments = image.segments.iter().map(|s| (s.addr, s.data.clone(), s.mem_size, s.writable)).collect();
    (image.entry, segments, image.locate(image.entry))
}

/// The checkpoint reader behind `pqhelium fuzz --resume`: an accepted report says, for each campaign, exactly which
/// cases ran and which remain (the two add up to the campaign); it is written back and read again unchanged.
pub fn report(data: &[u8]) -> Verdict {
    let Ok(text) = std::str::from_utf8(data) else { return Rejected };
    let Ok(mut report) = Report::parse(text) else { return Rejected };
    for campaign in &report.campaigns {
        check_resume_plan(&campaign.ranges, campaign.cases_requested.unwrap_or(u64::MAX));
    }
    let written = serde_json::to_value(&report).expect("a report serialises");
    let again = Report::parse(&written.to_string()).expect("a written report reads back");
    assert_same_json(&written, &serde_json::to_value(&again).expect("a report serialises"), "report");
    report::junit(&report);
    report.campaign_mut("fuzz", "model");
    Accepted
}

/// What `--resume` computes from a campaign's ranges: the cases that ran and the holes left in `0..limit`.
fn check_resume_plan(ranges: &Ranges, limit: u64) {
    let ran = ranges.as_slice();
    assert!(ran.iter().all(|[start, end]| start < end), "empty or reversed range in {ran:?}");
    assert!(ran.windows(2).all(|w| w[0][1] < w[1][0]), "ranges not sorted and apart: {ran:?}");
    let holes = ranges.holes(limit);
    let ran_below: u64 = ran.iter().map(|&[start, end]| end.min(limit) - start.min(limit)).sum();
    let remaining: u64 = holes.iter().map(|[start, end]| end - start).sum();
    assert_eq!(ran_below + remaining, limit, "ran {ran:?} and holes {holes:?} do not make up 0..{limit}");
    assert!(holes.iter().all(|&[start, end]| !ranges.contains(start) && !ranges.contains(end - 1)));
    assert_eq!(ranges.count(), ran.iter().map(|[start, end]| end - start).sum::<u64>());
}

/// JSON equality, numbers within a rounding error: the JSON reader may round a float's last bit differently.
fn assert_same_json(a: &Value, b: &Value, at: &str) {
    match (a, b) {
        (Value::Number(x), Value::Number(y)) if x.is_f64() || y.is_f64() => {
            let (x, y) = (x.as_f64().unwrap(), y.as_f64().unwrap());
            assert!((x - y).abs() <= 1e-12 * x.abs().max(y.abs()), "{at}: {x} became {y}");
        }
        (Value::Array(x), Value::Array(y)) => {
            assert_eq!(x.len(), y.len(), "{at}: length");
            for (i, (x, y)) in x.iter().zip(y).enumerate() {
                assert_same_json(x, y, &format!("{at}[{i}]"));
            }
        }
        (Value::Object(x), Value::Object(y)) => {
            assert_eq!(x.keys().collect::<Vec<_>>(), y.keys().collect::<Vec<_>>(), "{at}: keys");
            for (key, x) in x {
                assert_same_json(x, &y[key], &format!("{at}.{key}"));
            }
        }
        _ => assert_eq!(a, b, "{at}"),
    }
}

/// The `.kat` readers: scheme entries (`suite name field=hex ...`), written back, read the same; the fips202 lines
/// (`function message expected`) are checked on the reference Keccak.
pub fn kat(data: &[u8]) -> Verdict {
    let Ok(text) = std::str::from_utf8(data) else { return Rejected };
    let mut accepted = false;
    for (suite, name, fields) in text.lines().filter_map(kat::scheme_entry) {
        let Ok(fields) = fields else { continue };
        accepted = true;
        let mut line = format!("{suite} {name}");
        for (key, value) in &fields.0 {
            line.push_str(&format!(" {key}={}", hex::encode(value)));
            assert_eq!(fields.get(key), Ok(value.as_slice()));
            assert_eq!(fields.array::<32>(key).is_ok(), value.len() == 32);
        }
        let (suite_again, name_again, again) = kat::scheme_entry(&line).expect("a written entry is an entry");
        assert_eq!((suite_again, name_again.as_str()), (suite, name.as_str()), "{line}");
        assert_eq!(again.expect("a written entry parses").0, fields.0, "{line}");
    }
    for (_, fields) in kat::fips202_entries(text) {
        if let [function, message, expected] = fields.as_slice() {
            accepted |= kat::check_fips202(&mut ReferencePermutation, function, message, expected).is_ok();
        }
    }
    Verdict::of(accepted)
}

/// The `.rsp` reader: the records, written back, read the same, as a file and one by one.
pub fn rsp(data: &[u8]) -> Verdict {
    let Ok(text) = std::str::from_utf8(data) else { return Rejected };
    let Ok(records) = rsp::parse(text) else { return Rejected };
    assert_eq!(rsp::parse(&rsp::write(Some("fuzz"), &records)).as_ref(), Ok(&records));
    for record in &records {
        assert_eq!(rsp::parse(&record.to_rsp()), Ok(vec![record.clone()]));
    }
    Accepted
}

/// FN-DSA signing keys: accepted exactly when fn-dsa accepts them, with the same verifying key, and re-encoded to
/// the input.
pub fn fndsa_signing_key(data: &[u8]) -> Verdict {
    fn oracle<K: fn_dsa::SigningKey>(src: &[u8]) -> Option<Vec<u8>> {
        let key = K::decode(src)?;
        let mut vk = vec![0; vrfy_key_size(key.get_logn())];
        key.to_verifying_key(&mut vk);
        Some(vk)
    }
    let oracle_vk = match data.first().map(|head| u32::from(head & 0x0F)) {
        Some(9..) => oracle::<SigningKeyStandard>(data),
        Some(_) => oracle::<SigningKeyWeak>(data),
        None => None,
    };
    match (fndsa::SigningKey::decode(data), oracle_vk) {
        (Ok(key), Some(vk)) => {
            assert_eq!(key.verifying_key(), vk.as_slice(), "verifying key");
            assert_eq!(key.encode(), data, "re-encoded");
            Accepted
        }
        (Err(_), None) => Rejected,
        (Err(fndsa::Error::BigGOutOfRange { .. }), Some(oracle_vk)) if oracle_skips_g_range_check(data) => {
            // The oracle recomputed the same h = g/f: the two differ only by the check it skips.
            let parts = fndsa::decode_signing_key(data).expect("decoded up to G");
            let h = fndsa::keygen::public_key(&mut fndsa::Reference, parts.logn, &parts.f, &parts.g);
            assert_eq!(fndsa::codec::encode_verifying_key(parts.logn, &h).unwrap(), oracle_vk, "verifying key");
            Rejected
        }
        (ours, oracle_vk) => panic!("ours: {:?}; fn-dsa accepts: {}", ours.err(), oracle_vk.is_some()),
    }
}

/// fn-dsa 0.4.0's AVX2 signing-key decoder (logn 4 and up, on a CPU with AVX2) accepts a key whose recomputed G has
/// coefficients outside [-127, 127]: its range test (`mq_avx2::mqpoly_int_to_small`) reads bit 15 of values below
/// 2^14. Its portable decoder refuses such keys, as FN-DSA and ours do.
fn oracle_skips_g_range_check(key: &[u8]) -> bool {
    let logn = key.first().map_or(0, |head| head & 0x0F);
    #[cfg(target_arch = "x86_64")]
    return logn >= 4 && std::is_x86_feature_detected!("avx2");
    #[cfg(not(target_arch = "x86_64"))]
    false
}

/// FN-DSA verifying keys: accepted exactly when fn-dsa accepts them, and re-encoded to the input.
pub fn fndsa_verifying_key(data: &[u8]) -> Verdict {
    let oracle_accepts = match data.first().copied() {
        Some(9 | 10) => VerifyingKeyStandard::decode(data).is_some(),
        Some(_) => VerifyingKeyWeak::decode(data).is_some(),
        None => false,
    };
    let ours = fndsa::VerifyingKey::decode(data);
    assert_eq!(ours.is_ok(), oracle_accepts, "ours: {:?}", ours.as_ref().err());
    let Ok(key) = ours else { return Rejected };
    assert_eq!(key.encode(), data, "re-encoded");
    Accepted
}

/// The message and context of the signature target's signatures.
const SIGNED_MESSAGE: &[u8] = b"fuzz";
const SIGNED_CONTEXT: &[u8] = b"pqhelium";

/// The key pair (signing key, verifying key) of degree `logn` that the signature target verifies against.
fn signature_key_pair(logn: u32) -> (Vec<u8>, Vec<u8>) {
    let seed = [logn as u8; 32];
    fndsa::keygen(&mut ReferenceKernels::default(), logn, &seed).expect("a supported degree")
}

fn signature_verifying_key(logn: u32) -> &'static [u8] {
    static KEYS: [OnceLock<Vec<u8>>; MAX_LOGN as usize + 1] = [const { OnceLock::new() }; MAX_LOGN as usize + 1];
    KEYS[logn as usize].get_or_init(|| signature_key_pair(logn).1)
}

/// FN-DSA signatures: `logn || signature`. A decoded signature re-encodes to the input; against a fixed key of that
/// degree, ours verifies exactly what fn-dsa verifies.
pub fn fndsa_signature(data: &[u8]) -> Verdict {
    let Some((&logn, sig)) = data.split_first() else { return Rejected };
    let logn = u32::from(logn);
    let decoded = Signature::decode(logn, sig);
    if let Ok(signature) = &decoded {
        assert_eq!(signature.encode().expect("a decoded signature encodes"), sig, "re-encoded");
    }
    if !(MIN_LOGN..=MAX_LOGN).contains(&logn) {
        assert!(decoded.is_err(), "a signature of unsupported degree {logn} decoded");
        return Rejected;
    }
    let vk = signature_verifying_key(logn);
    let ours = fndsa::VerifyingKey::decode(vk).expect("our own key decodes").verify(
        &mut fndsa::Reference,
        sig,
        SIGNED_CONTEXT,
        HashId::RAW,
        SIGNED_MESSAGE,
    );
    let context = DomainContext(SIGNED_CONTEXT);
    let oracle = match logn {
        9 | 10 => VerifyingKeyStandard::decode(vk).map(|k| k.verify(sig, &context, &HASH_ID_RAW, SIGNED_MESSAGE)),
        _ => VerifyingKeyWeak::decode(vk).map(|k| k.verify(sig, &context, &HASH_ID_RAW, SIGNED_MESSAGE)),
    };
    assert_eq!(Some(ours.is_ok()), oracle, "ours: {ours:?}");
    assert!(ours.is_err() || decoded.is_ok(), "a signature that does not decode verified");
    Verdict::of(ours.is_ok())
}

/// A shared secret and a ciphertext.
type Encapsulation = ([u8; 32], Vec<u8>);

/// The oracle's ML-KEM for one parameter set: encapsulation with given randomness (None: key refused), and
/// decapsulation with an expanded key (None: key refused).
struct MlkemOracle {
    encaps: fn(&[u8], &[u8; 32]) -> Option<Encapsulation>,
    decaps: fn(&[u8], &[u8]) -> Option<[u8; 32]>,
}

macro_rules! mlkem_oracle {
    ($set:ty) => {
        MlkemOracle {
            encaps: |ek, m| {
                let ek = ml_kem::EncapsulationKey::<$set>::new(ek.try_into().ok()?).ok()?;
                let (ct, ss) = ek.encapsulate_deterministic(&(*m).into());
                Some((ss.into(), ct.to_vec()))
            },
            #[allow(deprecated)] // the expanded decapsulation key is the form of FIPS 203 and of our code
            decaps: |dk, ct| {
                use ml_kem::{Decapsulate, ExpandedKeyEncoding};
                let dk = ml_kem::DecapsulationKey::<$set>::from_expanded_bytes(dk.try_into().ok()?).ok()?;
                Some(dk.decapsulate(&ct.try_into().ok()?).into())
            },
        }
    };
}

const MLKEM_SETS: [(Params, MlkemOracle); 3] = [
    (ML_KEM_512, mlkem_oracle!(MlKem512)),
    (ML_KEM_768, mlkem_oracle!(MlKem768)),
    (ML_KEM_1024, mlkem_oracle!(MlKem1024)),
];

/// What an ML-KEM input is, from its first byte.
#[derive(Clone, Copy)]
enum MlkemInput {
    EncapsulationKey,
    DecapsulationKey,
    Ciphertext,
}

const MLKEM_INPUTS: [MlkemInput; 3] =
    [MlkemInput::EncapsulationKey, MlkemInput::DecapsulationKey, MlkemInput::Ciphertext];

/// The first byte of an ML-KEM input: parameter set (`MLKEM_SETS`) and kind (`MLKEM_INPUTS`).
fn mlkem_selector(set: usize, input: usize) -> u8 {
    (input * MLKEM_SETS.len() + set) as u8
}

/// The randomness of encapsulations and the seeds (d, z) of the fixed decapsulation keys.
const MLKEM_M: [u8; 32] = [0x4d; 32];
const MLKEM_D: [u8; 32] = [0x64; 32];
const MLKEM_Z: [u8; 32] = [0x7a; 32];

/// ML-KEM (512, 768, 1024): `selector || bytes`. An encapsulation key is accepted exactly when ml-kem accepts it, and
/// encapsulates to the same ciphertext and secret; so is an expanded decapsulation key (its checks: FIPS 203 section
/// 7.3 and the modulus check of the ek inside), which decapsulates a ciphertext for its own ek to the same secret;
/// a ciphertext decapsulates under a fixed key to the same secret, or is refused by both for its length.
pub fn mlkem(data: &[u8]) -> Verdict {
    let Some((&selector, bytes)) = data.split_first() else { return Rejected };
    let (params, oracle) = &MLKEM_SETS[usize::from(selector) % MLKEM_SETS.len()];
    let kem = MlKem::reference(*params);
    let k = params.k;
    match MLKEM_INPUTS[usize::from(selector) / MLKEM_SETS.len() % MLKEM_INPUTS.len()] {
        MlkemInput::EncapsulationKey => {
            let ours = kem.encaps(bytes, &MLKEM_M);
            assert_eq!(ours.is_ok(), kem.check_encapsulation_key(bytes).is_ok());
            assert_eq!(ours.ok(), (oracle.encaps)(bytes, &MLKEM_M), "{} encapsulation", params.name);
            Verdict::of(kem.check_encapsulation_key(bytes).is_ok())
        }
        MlkemInput::DecapsulationKey => {
            let accepted = kem.check_decapsulation_key(bytes).is_ok()
                && kem.check_encapsulation_key(&bytes[384 * k..768 * k + 32]).is_ok();
            let ct = if accepted {
                kem.encaps(&bytes[384 * k..768 * k + 32], &MLKEM_M).expect("a checked ek").1
            } else {
                vec![0; params.ct_len()]
            };
            let ours = kem.decaps(bytes, &ct);
            assert_eq!((oracle.decaps)(bytes, &ct), accepted.then(|| ours.expect("a checked dk")), "{}", params.name);
            Verdict::of(accepted)
        }
        MlkemInput::Ciphertext => {
            let (_, dk) = kem.keygen_internal(&MLKEM_D, &MLKEM_Z);
            let ours = kem.decaps(&dk, bytes);
            assert_eq!(ours.is_ok(), bytes.len() == params.ct_len(), "{}: {ours:?}", params.name);
            assert_eq!(ours.ok(), (oracle.decaps)(&dk, bytes), "{} decapsulation", params.name);
            Verdict::of(bytes.len() == params.ct_len())
        }
    }
}

/// What an X-Wing input is, from its first byte.
#[derive(Clone, Copy)]
enum XwingInput {
    EncapsulationKey,
    Ciphertext,
    SecretKey,
}

const XWING_INPUTS: [XwingInput; 3] = [XwingInput::EncapsulationKey, XwingInput::Ciphertext, XwingInput::SecretKey];
const XWING_ESEED: [u8; xwing::ESEED_SIZE] = [0xe5; xwing::ESEED_SIZE];
const XWING_SECRET_KEY: [u8; xwing::SECRET_KEY_SIZE] = [0x5c; xwing::SECRET_KEY_SIZE];

/// X-Wing: `selector || bytes`. An encapsulation key is accepted exactly when x-wing accepts it and encapsulates to
/// the same ciphertext and secret; a ciphertext decapsulates under a fixed key to the same secret (cold and warm),
/// or is refused for its length; a secret key expands to the same encapsulation key.
pub fn xwing(data: &[u8]) -> Verdict {
    use x_wing::{Decapsulate as _, Decapsulator as _, KeyExport as _};
    let Some((&selector, bytes)) = data.split_first() else { return Rejected };
    let ours = XWing::reference();
    match XWING_INPUTS[usize::from(selector) % XWING_INPUTS.len()] {
        XwingInput::EncapsulationKey => {
            let encapsulated = ours.encaps(bytes, &XWING_ESEED);
            let oracle = x_wing::EncapsulationKey::try_from(bytes).ok().map(|ek| {
                let (ct, ss) = ek.encapsulate_deterministic(&XWING_ESEED.into());
                (<[u8; 32]>::from(ss), <[u8; xwing::CIPHERTEXT_SIZE]>::from(ct))
            });
            assert_eq!(encapsulated.ok(), oracle, "encapsulation");
            Verdict::of(oracle.is_some())
        }
        XwingInput::Ciphertext => {
            let cold = ours.decaps(&XWING_SECRET_KEY, bytes);
            let warm = ours.decaps_expanded(&ours.expand_key(&XWING_SECRET_KEY), bytes);
            assert_eq!(cold, warm, "cold and warm decapsulation");
            let oracle = <&[u8; xwing::CIPHERTEXT_SIZE]>::try_from(bytes)
                .ok()
                .map(|ct| x_wing::DecapsulationKey::from(XWING_SECRET_KEY).decapsulate(&(*ct).into()).into());
            assert_eq!(cold.ok(), oracle, "decapsulation");
            Verdict::of(oracle.is_some())
        }
        XwingInput::SecretKey => {
            let Ok(sk) = <[u8; xwing::SECRET_KEY_SIZE]>::try_from(bytes) else { return Rejected };
            let ek = ours.keygen(&sk);
            assert_eq!(ours.expand_key(&sk).encapsulation_key(), ek);
            let oracle = x_wing::DecapsulationKey::from(sk).encapsulation_key().to_bytes();
            assert_eq!(ek.as_slice(), oracle.as_slice(), "encapsulation key");
            Accepted
        }
    }
}

/// X25519: `k || u`, zero-padded to 64 bytes. Decoding u ignores bit 255 and reduces modulo p (RFC 7748 section 5),
/// encoding is canonical, and X25519(k, u) equals x25519-dalek's; the fixed-base paths agree with the ladder.
pub fn x25519(data: &[u8]) -> Verdict {
    let mut input = [0u8; 64];
    let used = data.len().min(64);
    input[..used].copy_from_slice(&data[..used]);
    let k: [u8; 32] = input[..32].try_into().unwrap();
    let u: [u8; 32] = input[32..].try_into().unwrap();
    let field = x25519::Reference;
    let canonical = canonical_u(&u);
    assert_eq!(field.encode(&field.decode(&u)), canonical, "decode then encode {}", hex::encode(u));
    assert_eq!(field.encode(&field.decode(&canonical)), canonical);
    let shared = x25519::x25519(&field, &k, &u);
    assert_eq!(shared, x25519_dalek::x25519(k, u), "X25519({}, {})", hex::encode(k), hex::encode(u));
    assert_eq!(shared, x25519::x25519(&field, &k, &canonical));
    let base = x25519::x25519_base(&field, &k);
    assert_eq!(base, x25519::x25519(&field, &k, &x25519::BASE_POINT));
    assert_eq!(x25519::x25519_base_and_shared(&field, &k, &u), (base, shared));
    Accepted
}

/// u with bit 255 cleared, minus p = 2^255 - 19 when that leaves it at least p: the only values that need it are
/// p .. 2^255 - 1, bytes `ed..ff ff .. ff 7f`.
fn canonical_u(u: &[u8; 32]) -> [u8; 32] {
    let mut v = *u;
    v[31] &= 0x7f;
    if v[31] == 0x7f && v[1..31].iter().all(|&b| b == 0xff) && v[0] >= 0xed {
        let low = v[0] - 0xed;
        v = [0; 32];
        v[0] = low;
    }
    v
}

/// The kernels of one manifest the target builds: few enough to keep the target fast.
const MANIFEST_KERNELS: usize = 4;
const MANIFEST_SEED: u64 = 7;
/// Every symbol the manifest target's image defines is at this address; its order files are not read (the
/// `order_file` target has that parser).
const SYMBOL_ADDRESS: u32 = 0x1000;

/// Manifests (TOML): an error names a line and column inside the text; an accepted manifest's kernels are built as
/// `pqhelium check --manifest` builds them after linking (symbols resolved, order files left out), and for each
/// kernel built, its generated cases lie within its own declared input bounds and evaluate; with one state per call,
/// the contract's reference on the adapted case (their order, factor and form undone) equals the contract's
/// reference on the contract's own case.
pub fn manifest(data: &[u8]) -> Verdict {
    let Ok(text) = std::str::from_utf8(data) else { return Rejected };
    let manifest = match manifest::parse(text) {
        Ok(manifest) => manifest,
        Err(e) => {
            assert_error_position(text, &e);
            return Rejected;
        }
    };
    let mut built = false;
    for entry in manifest.kernels.iter().take(MANIFEST_KERNELS) {
        if entry.adapt.values().any(|a| a.order_file.is_some()) {
            continue;
        }
        let address = |_: &str| Some(SYMBOL_ADDRESS);
        let Ok(kernel) = pqhelium_byo::foreign_kernel(entry, &manifest.core, Path::new("."), &address) else {
            continue;
        };
        built = true;
        let contract = registry::find(&entry.contract).expect("a kernel was built on this contract");
        // Edge case 0 and the first random case.
        for case in [0, kernel.edge_cases] {
            let theirs = kernel.generate(case, &mut case_rng(MANIFEST_SEED, case));
            check_input_bounds(kernel, &theirs).unwrap_or_else(|e| panic!("{}: case {case}: {e}", entry.symbol));
            let evaluated = kernel.evaluate(&theirs).unwrap_or_else(|e| panic!("{}: case {case}: {e}", entry.symbol));
            if entry.states.unwrap_or(1) == 1 {
                let ours = contract.generate(case, &mut case_rng(MANIFEST_SEED, case));
                let reference = contract.evaluate(&ours).expect("the contract's own case").reference;
                assert_eq!(evaluated.reference, reference, "{}: case {case}: adapted and back", entry.symbol);
            }
        }
    }
    Verdict::of(built)
}

/// A `line:column: message` error of the manifest reader names a place inside the text (or just after it).
fn assert_error_position(text: &str, error: &str) {
    let mut parts = error.splitn(3, ':');
    let (line, column) =
        (parts.next().and_then(|l| l.parse::<usize>().ok()), parts.next().and_then(|c| c.parse::<usize>().ok()));
    let (Some(line), Some(column)) = (line, column) else { panic!("no line:column in `{error}`") };
    let lines = text.split('\n').collect::<Vec<_>>();
    assert!((1..=lines.len()).contains(&line), "line {line} of {}: {error}", lines.len());
    assert!((1..=lines[line - 1].len() + 1).contains(&column), "column {column} of line {line}: {error}");
}

/// What the formula target evaluates at: edge indices and lengths, and the extremes of 64-bit integers.
const FORMULA_INDICES: [i64; 7] = [0, 1, 5, 255, -1, i64::MIN, i64::MAX];
const FORMULA_LENGTHS: [i64; 4] = [1, 8, 256, i64::MAX];
/// Lengths the formula target tabulates.
const FORMULA_TABLES: [usize; 4] = [1, 2, 8, 256];

/// The end of the range `0..end(n)` a wrapped formula's values lie in, for length `n`.
type End = fn(i64) -> i64;

/// Order formulas: evaluation is an error or a value, never a panic, and the same inside parentheses or beside a
/// neutral element; `% n` of it lies in `0..n`, `& 255` in `0..256`, `bitrev(it, 5)` in `0..32`; its table of `n`
/// elements is accepted exactly when every index evaluates and the values are a permutation of `0..n` (checked by
/// sorting), and holds those values.
pub fn order_formula(data: &[u8]) -> Verdict {
    let Ok(text) = std::str::from_utf8(data) else { return Rejected };
    let Ok(formula) = Formula::parse(text) else { return Rejected };
    assert_eq!(formula.text(), text);
    let same = ["({})", "0 + ({})", "({}) * 1", "({}) | 0", "({}) >> 0"];
    let ranged: [(&str, End); 3] = [("({}) % n", |n| n), ("({}) & 255", |_| 256), ("bitrev({}, 5)", |_| 32)];
    let wrapped = |shape: &str| Formula::parse(&shape.replace("{}", text)).ok();
    let same: Vec<Formula> = same.iter().filter_map(|shape| wrapped(shape)).collect();
    let ranged: Vec<(Formula, End)> = ranged.iter().filter_map(|(shape, end)| Some((wrapped(shape)?, *end))).collect();
    for n in FORMULA_LENGTHS {
        for i in FORMULA_INDICES {
            let value = formula.eval(i, n);
            for other in &same {
                assert_eq!(other.eval(i, n).ok(), value.clone().ok(), "`{}` at i = {i}, n = {n}", other.text());
            }
            if value.is_err() {
                continue;
            }
            for (other, end) in &ranged {
                let v = other.eval(i, n).unwrap_or_else(|e| panic!("`{}` at i = {i}, n = {n}: {e}", other.text()));
                assert!((0..end(n)).contains(&v), "`{}` at i = {i}, n = {n}: {v}", other.text());
            }
        }
    }
    for n in FORMULA_TABLES {
        let values: Option<Vec<i64>> = (0..n as i64).map(|i| formula.eval(i, n as i64).ok()).collect();
        let is_permutation = values.as_ref().is_some_and(|v| {
            let mut sorted = v.clone();
            sorted.sort_unstable();
            sorted.into_iter().eq(0..n as i64)
        });
        match formula.table(n) {
            Ok(table) => {
                assert!(is_permutation, "a table of {n} that is no permutation: {table:?}");
                assert!(table.iter().zip(values.unwrap()).all(|(&t, v)| t as i64 == v), "table of {n}");
            }
            Err(e) => assert!(!is_permutation, "a permutation of {n} refused: {e}"),
        }
    }
    Accepted
}

/// Order files: an error names a line of the file; the indices read, written back one line (spaces) or one a line
/// (commas and comments), read the same; the list is accepted as a permutation exactly when, sorted, it is
/// `0..len`, and never for another length.
pub fn order_file(data: &[u8]) -> Verdict {
    let Ok(text) = std::str::from_utf8(data) else { return Rejected };
    let indices = match manifest::parse_order_file(text) {
        Ok(indices) => indices,
        Err(e) => {
            let line: usize = e.split(':').next().and_then(|l| l.parse().ok()).unwrap_or_else(|| panic!("{e}"));
            assert!((1..=text.lines().count()).contains(&line), "line {line}: {e}");
            return Rejected;
        }
    };
    let words: Vec<String> = indices.iter().map(usize::to_string).collect();
    assert_eq!(manifest::parse_order_file(&words.join(" ")).as_ref(), Ok(&indices), "written on one line");
    let commented: String = words.iter().map(|w| format!("{w}, # index\n")).collect();
    assert_eq!(manifest::parse_order_file(&commented).as_ref(), Ok(&indices), "written one a line");
    let mut sorted = indices.clone();
    sorted.sort_unstable();
    let is_permutation = sorted.into_iter().eq(0..indices.len());
    let n = indices.len();
    assert_eq!(formula::permutation(indices.clone(), n).is_ok(), is_permutation, "{indices:?}");
    assert!(formula::permutation(indices, n + 1).is_err(), "a list of {n} taken for {} elements", n + 1);
    Accepted
}

/// The seed corpus, as (target, file name, contents): small valid inputs made by our own encoders and writers (the
/// ELF seeds are built by `ci/fuzz seeds` with the cross toolchain).
pub fn seeds() -> Vec<(&'static str, String, Vec<u8>)> {
    let mut seeds = Vec::new();
    let mut add = |target: &'static str, name: String, bytes: Vec<u8>| seeds.push((target, name, bytes));

    add("report", "checkpoint.json".into(), serde_json::to_vec_pretty(&seed_report()).unwrap());
    add("kat", "entries.kat".into(), SEED_KAT.as_bytes().to_vec());
    let records = [Record::new(0).with("seed", &[0x06, 0x15]).with("ss", &[]), Record::new(1).with("pk", &[0xab])];
    add("rsp", "records.rsp".into(), rsp::write(Some("ML-KEM-768"), &records).into_bytes());

    for logn in [2, 9, 10] {
        let (sk, vk) = signature_key_pair(logn);
        let key = fndsa::SigningKey::decode(&sk).unwrap();
        let sig = key
            .sign(&mut ReferenceKernels::default(), &[0x40; 40], SIGNED_CONTEXT, HashId::RAW, SIGNED_MESSAGE)
            .unwrap();
        add("fndsa_signing_key", format!("logn{logn}.sk"), sk);
        add("fndsa_verifying_key", format!("logn{logn}.vk"), vk);
        add("fndsa_signature", format!("logn{logn}.sig"), [vec![logn as u8], sig].concat());
    }

    for (set, (params, _)) in MLKEM_SETS.iter().enumerate() {
        let kem = MlKem::reference(*params);
        let (ek, dk) = kem.keygen_internal(&MLKEM_D, &MLKEM_Z);
        let (_, ct) = kem.encaps(&ek, &MLKEM_M).unwrap();
        for (input, (kind, bytes)) in [("ek", ek), ("dk", dk), ("ct", ct)].into_iter().enumerate() {
            add("mlkem", format!("{}-{kind}", params.name), [vec![mlkem_selector(set, input)], bytes].concat());
        }
    }

    let xw = XWing::reference();
    let ek = xw.keygen(&XWING_SECRET_KEY);
    let (_, ct) = xw.encaps(&ek, &XWING_ESEED).unwrap();
    add("xwing", "ek".into(), [&[0][..], &ek].concat());
    add("xwing", "ct".into(), [&[1][..], &ct].concat());
    add("xwing", "sk".into(), [&[2][..], &XWING_SECRET_KEY].concat());

    let mut above_p = [0xffu8; 32];
    above_p[0] = 0xf0; // p + 3, bit 255 set
    add("x25519", "base-point".into(), [[0x77; 32], x25519::BASE_POINT].concat());
    add("x25519", "u-above-p".into(), [[0x31; 32], above_p].concat());

    for (name, text) in SEED_MANIFESTS {
        add("manifest", name.to_string(), text.as_bytes().to_vec());
    }
    for (k, text) in SEED_FORMULAS.iter().enumerate() {
        add("order_formula", format!("formula-{k}"), text.as_bytes().to_vec());
    }
    let bit_reversal: Vec<String> = (0..256u32).map(|i| (i.reverse_bits() >> 24).to_string()).collect();
    add(
        "order_file",
        "bit-reversal-256.txt".into(),
        format!("# bit-reversed order\n{}\n", bit_reversal.join(" ")).into_bytes(),
    );
    add("order_file", "even-odd-8.txt".into(), b"0, 2, 4, 6 # even\n1, 3, 5, 7 # odd\n".to_vec());
    seeds
}

/// The example manifests, and one with every kind of extra argument, a formula order and consecutive states.
const SEED_MANIFESTS: [(&str, &str); 4] = [
    ("byo.toml", include_str!("../../examples/byo/byo.toml")),
    ("keccak_x4.toml", include_str!("../../examples/byo/keccak_x4.toml")),
    ("ntt_alias.toml", include_str!("../../examples/byo/ntt_alias.toml")),
    ("extras.toml", SEED_MANIFEST_EXTRAS),
];

const SEED_MANIFEST_EXTRAS: &str = r#"core = "m7"
sources = ["k.S"]

[[kernel]]
symbol = "ntt_out_of_place"
contract = "mlkem.ntt.fwd.scalar"
args = [{ input = "p" }, "p", { symbol = "zetas" }, { scratch = 64 }, { constant = 256 }]

[kernel.adapt.p]
order-formula = "bitrev(i, 8)"
input-bound = [-3328, 3328]

[[kernel]]
symbol = "basemul_in_place"
contract = "mlkem.basemul.scalar"
args = [{ in-place = ["a", "out"] }, "b"]

[kernel.adapt.b]
order-formula = "(i % 2) * 128 + i / 2"
factor = 2285
form = "unsigned"

[[kernel]]
symbol = "keccak_x2"
contract = "keccak.f1600"
states = 2
layout = "consecutive"
"#;

/// Order formulas of the shapes the manifest documentation gives.
const SEED_FORMULAS: [&str; 5] = [
    "bitrev(i, 8)",
    "(i % 2) * 128 + i / 2",
    "n - 1 - i",
    "bitrev(i / 2, 7) * 2 + i % 2",
    "(i ^ 0x5) & (n - 1) | 0 << 3",
];

/// Short lines of each `.kat` format, in the shape of `vectors/`: fips202 (`function message expected`), X25519
/// scheme entries, and a comment.
const SEED_KAT: &str = "# suite  name  field=hex ...
keccak-f1600-zero-lane0   -       e7dde140798f25f1
sha3-256    -       a7ffc6f8bf1ed76651c14756a061d662f580ff4de43b49fa82d80a4b80f8434a
shake128    -       7f9c2ba4e88f827d616045507605853e
x25519 one k=0100000000000000000000000000000000000000000000000000000000000000 u=0900000000000000000000000000000000000000000000000000000000000000 out=00
";

/// A checkpoint with one finished campaign with a failure and one interrupted campaign bounded by time.
fn seed_report() -> Report {
    let mut report = Report::new(42);
    report.campaigns.push(CampaignReport {
        kernel: "keccak.f1600".into(),
        backend: "model".into(),
        cases_requested: Some(1000),
        ranges: Ranges::from_slice(&[[0, 1000]]),
        cases_run: 1000,
        mismatches: 1,
        elapsed_seconds: 0.25,
        cases_per_second: 4000.0,
        failures: vec![FailureReport {
            case: 7,
            kind: "mismatch".into(),
            detail: "out[0]: expected 01, got 00".into(),
            input: vec![ArgReport { kind: "in".into(), value: "00ff".into() }],
            shrunk_input: None,
            repro: "pqhelium repro --kernel keccak.f1600 --backend model --seed 42 --case 7".into(),
            regression_test: String::new(),
        }],
        ..Default::default()
    });
    report.campaigns.push(CampaignReport {
        kernel: "mlkem.ntt".into(),
        backend: "unicorn".into(),
        ranges: Ranges::from_slice(&[[0, 64], [128, 192]]),
        cases_run: 128,
        elapsed_seconds: 1.5,
        cases_per_second: 85.3,
        ..Default::default()
    });
    report
}
