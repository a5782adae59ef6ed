//! Known-answer tests from `vectors/` (embedded at build time), each run with a choice of kernel provider: the
//! reference in `pqhelium-core`, the sim model, or the object code under unicorn or QEMU ("kernels in the loop").

use std::collections::HashMap;

use pqhelium_core::drbg::NistDrbg;
use pqhelium_core::fndsa::{self, FpuKernels, fpu};
use pqhelium_core::keccak::{self, Keccak, Permutation, ReferencePermutation, Shake128, shake256};
use pqhelium_core::mlkem::{ML_KEM_768, MlKem};
use pqhelium_core::rsp::Record;
use pqhelium_core::x25519::{self, Reference as Field};
use pqhelium_core::xwing::XWing;
use pqhelium_sim::keccak as model;
use sha2::{Digest, Sha256};

use crate::backend::{Arg, Backend, BackendKind, Call, CallError, Limits};
use crate::fpu_provider::EmulatedFpu;
use crate::registry::{bytes_to_words, words_to_bytes};

const FIPS202: &str = include_str!("../../vectors/fips202.kat");
const SCHEMES: &str = include_str!("../../vectors/schemes.kat");
const FNDSA: &str = include_str!("../../vectors/fndsa.kat");

/// Who computes the kernels of a known-answer test.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum Provider {
    Reference,
    Model,
    Unicorn,
    Qemu,
}

impl Provider {
    pub const ALL: [Provider; 4] = [Provider::Reference, Provider::Model, Provider::Unicorn, Provider::Qemu];

    pub fn name(self) -> &'static str {
        match self {
            Provider::Reference => "reference",
            Provider::Model => "model",
            Provider::Unicorn => "unicorn",
            Provider::Qemu => "qemu",
        }
    }
}

#[derive(Debug, Clone)]
pub struct KatResult {
    pub suite: &'static str,
    pub provider: Provider,
    pub name: String,
    pub passed: bool,
    pub detail: String,
}

/// The suites `check` and `kat` run by default.
pub const SUITES: &[&str] = &["fips202", "mlkem768", "x25519", "xwing", "fndsa", "fndsa-keygen"];
/// Suites too long for every run (a minute or more); `pqhelium kat --suite NAME` runs them.
pub const LONG_SUITES: &[&str] = &["x25519-1m"];

/// The providers a suite can run with: the Keccak permutation has a model and object code; FN-DSA signing has its
/// FP64 kernels as object code (`crate::fpu_provider`); the other scheme suites run on the reference kernels until
/// their Cortex-M kernels exist.
pub fn providers(suite: &str) -> &'static [Provider] {
    match suite {
        "fips202" => &Provider::ALL,
        "fndsa" => &[Provider::Reference, Provider::Unicorn, Provider::Qemu],
        _ => &[Provider::Reference],
    }
}

/// Runs one suite with one provider. An emulator that cannot start fails every entry, with the reason.
pub fn run(suite: &'static str, provider: Provider) -> Vec<KatResult> {
    let fail =
        |name: &str, detail: String| vec![KatResult { suite, provider, name: name.into(), passed: false, detail }];
    if !SUITES.contains(&suite) && !LONG_SUITES.contains(&suite) {
        return fail(suite, format!("no suite `{suite}`; suites: {}", SUITES.join(", ")));
    }
    if !providers(suite).contains(&provider) {
        return fail(suite, format!("suite `{suite}` has no {} provider yet", provider.name()));
    }
    match suite {
        "fips202" => run_fips202(provider),
        "fndsa" if provider != Provider::Reference => run_fndsa_emulated(provider),
        _ => run_schemes(suite),
    }
}

/// Every suite with every provider it has.
pub fn run_all() -> Vec<KatResult> {
    SUITES.iter().flat_map(|&suite| providers(suite).iter().flat_map(move |&p| run(suite, p))).collect()
}

/// The entries of a scheme suite: (name, fields or why they do not parse).
fn scheme_entries(suite: &str) -> impl Iterator<Item = (String, Result<Fields<'static>, String>)> {
    SCHEMES
        .lines()
        .chain(FNDSA.lines())
        .map(str::trim)
        .filter(|l| !l.is_empty() && !l.starts_with('#'))
        .filter(move |l| l.split_whitespace().next() == Some(suite))
        .map(|line| {
            let mut words = line.split_whitespace().skip(1);
            let name = words.next().unwrap_or("").to_string();
            let fields: Result<HashMap<&str, Vec<u8>>, String> = words
                .map(|w| {
                    let (key, value) = w.split_once('=').ok_or_else(|| format!("`{w}` is not field=hex"))?;
                    Ok((key, hex::decode(value).map_err(|e| format!("{key}: {e}"))?))
                })
                .collect();
            (name, fields.map(Fields))
        })
}

fn run_schemes(suite: &'static str) -> Vec<KatResult> {
    scheme_entries(suite)
        .map(|(name, fields)| {
            let result = fields.and_then(|f| check_scheme(suite, &f));
            KatResult {
                suite,
                provider: Provider::Reference,
                name,
                passed: result.is_ok(),
                detail: result.err().unwrap_or_default(),
            }
        })
        .collect()
}

struct Fields<'a>(HashMap<&'a str, Vec<u8>>);

impl Fields<'_> {
    fn get(&self, key: &str) -> Result<&[u8], String> {
        self.0.get(key).map(Vec::as_slice).ok_or_else(|| format!("missing field `{key}`"))
    }
    fn array<const N: usize>(&self, key: &str) -> Result<[u8; N], String> {
        self.get(key)?.try_into().map_err(|_| format!("`{key}` is not {N} bytes"))
    }
    /// Fails unless `actual` equals field `key`.
    fn expect(&self, key: &str, actual: &[u8]) -> Result<(), String> {
        let expected = self.get(key)?;
        if expected.eq_ignore_ascii_case(actual) {
            Ok(())
        } else {
            Err(format!("{key}: expected {}, got {}", hex::encode(expected), hex::encode(actual)))
        }
    }
}

fn check_scheme(suite: &str, f: &Fields) -> Result<(), String> {
    match suite {
        "mlkem768" => check_mlkem768(f),
        "x25519" | "x25519-1m" => check_x25519(f),
        "fndsa" => check_fndsa(f),
        "fndsa-keygen" => check_fndsa_keygen(f),
        _ => check_xwing(f),
    }
}

fn check_mlkem768(f: &Fields) -> Result<(), String> {
    let kem = MlKem::reference(ML_KEM_768);
    if f.get("record_sha256").is_ok() {
        // NIST KAT, count = 0: DRBG(0x00..0x2f) gives the record seed; DRBG(seed) gives d || z, then m.
        let mut seed = [0u8; 48];
        NistDrbg::new(&std::array::from_fn(|i| i as u8)).fill(&mut seed);
        f.expect("seed", &seed)?;
        let mut drbg = NistDrbg::new(&seed);
        let (mut coins, mut m) = ([0u8; 64], [0u8; 32]);
        drbg.fill(&mut coins);
        drbg.fill(&mut m);
        let (pk, sk) = kem.keygen_internal(coins[..32].try_into().unwrap(), coins[32..].try_into().unwrap());
        let (ss, ct) = kem.encaps(&pk, &m).map_err(|e| e.to_string())?;
        f.expect("ss", &ss)?;
        let record = Record::new(0).with("seed", &seed).with("pk", &pk).with("sk", &sk).with("ct", &ct).with("ss", &ss);
        return f.expect("record_sha256", &Sha256::digest(record.to_rsp().as_bytes()));
    }
    // mlkem-native's stream: coins = SHAKE256(bytes 32..95), then 100 times coins = SHAKE256(coins).
    let mut coins = [0u8; 96];
    shake256(&(32..96).collect::<Vec<u8>>(), &mut coins);
    let mut out = String::new();
    for _ in 0..100 {
        let previous = coins;
        shake256(&previous, &mut coins);
        let (pk, sk) = kem.keygen_internal(coins[..32].try_into().unwrap(), coins[32..64].try_into().unwrap());
        let (ss, ct) = kem.encaps(&pk, coins[64..].try_into().unwrap()).map_err(|e| e.to_string())?;
        for (label, value) in [("pk", &pk[..]), ("sk", &sk), ("ct", &ct), ("ss", &ss)] {
            out.push_str(&format!("{label} = {}\n", hex::encode(value)));
        }
    }
    f.expect("stream_sha256", &Sha256::digest(out.as_bytes()))
}

fn check_x25519(f: &Fields) -> Result<(), String> {
    if let Ok(iterations) = f.get("iterations") {
        let n = iterations.iter().fold(0u32, |acc, &b| (acc << 8) | u32::from(b));
        let (mut k, mut u) = (x25519::BASE_POINT, x25519::BASE_POINT);
        for _ in 0..n {
            let next = x25519::x25519(&Field, &k, &u);
            u = k;
            k = next;
        }
        return f.expect("out", &k);
    }
    if let Ok(k) = f.array::<32>("k") {
        return f.expect("out", &x25519::x25519(&Field, &k, &f.array("u")?));
    }
    let (alice, bob) = (f.array::<32>("alice")?, f.array::<32>("bob")?);
    let (alice_pk, bob_pk) = (x25519::x25519_base(&Field, &alice), x25519::x25519_base(&Field, &bob));
    f.expect("alice_pk", &alice_pk)?;
    f.expect("bob_pk", &bob_pk)?;
    f.expect("shared", &x25519::x25519(&Field, &alice, &bob_pk))?;
    f.expect("shared", &x25519::x25519(&Field, &bob, &alice_pk))
}

fn check_xwing(f: &Fields) -> Result<(), String> {
    // Vector i uses the i-th (32-byte seed, 64-byte eseed) pair of the SHAKE128("") stream.
    let index = f.get("index")?.first().copied().unwrap_or(0);
    let mut stream = Shake128::new();
    let (mut seed, mut eseed) = ([0u8; 32], [0u8; 64]);
    for _ in 0..=index {
        stream.squeeze(&mut seed);
        stream.squeeze(&mut eseed);
    }
    f.expect("eseed", &eseed)?;
    let xwing = XWing::reference();
    let pk = xwing.keygen(&seed);
    let (ss, ct) = xwing.encaps(&pk, &eseed).map_err(|e| e.to_string())?;
    f.expect("ss", &ss)?;
    f.expect("pk_sha256", &Sha256::digest(pk))?;
    f.expect("ct_sha256", &Sha256::digest(ct))?;
    let decapsulated = xwing.decaps(&seed, &ct).map_err(|e| e.to_string())?;
    f.expect("ss", &decapsulated)
}

/// The fn-dsa 0.4.0 signature KAT: keys from seed_kgen, a signature of "message" in the context "domain" with
/// seed_sign (pre-hashed with SHA3-256 for odd j), all through our keygen and signer; SHA3-256(sk || vk || sig).
fn check_fndsa(f: &Fields) -> Result<(), String> {
    let (logn, j) = (f.array::<1>("logn")?[0], f.array::<1>("j")?[0]);
    let (value, _) = fndsa_signature_kat(logn, j, fpu::Reference);
    f.expect("value", &value?)
}

/// The value of the signature KAT entry (logn, j) with the signing FP64 kernels `fpu` (key generation on the
/// reference kernels; decoding the signing key and signing through `fpu`), and `fpu` back.
pub fn fndsa_signature_kat<F: FpuKernels>(logn: u8, j: u8, fpu: F) -> (Result<[u8; 32], String>, F) {
    let mut seeds = [0u8; 72];
    shake256(&[logn, j, 0, 0, 0], &mut seeds);
    let (seed_kgen, seed_sign) = seeds.split_at(32);
    let logn = u32::from(logn);
    let mut kernels =
        fndsa::Kernels { ntt: fndsa::Reference, fpu, fxp: fndsa::keygen::FxpReference, keccak: ReferencePermutation };
    let mut sign = || {
        let (sk, vk) = fndsa::keygen(&mut fndsa::ReferenceKernels::default(), logn, seed_kgen.try_into().unwrap())?;
        let key = fndsa::SigningKey::decode_with(&mut kernels, &sk)?;
        let message = b"message";
        let sha3 = keccak::sha3_256(message);
        let (id, hv) =
            if j % 2 == 1 { (fndsa::HashId::SHA3_256, &sha3[..]) } else { (fndsa::HashId::RAW, &message[..]) };
        let sig = key.sign(&mut kernels, seed_sign.try_into().unwrap(), b"domain", id, hv)?;
        Ok::<_, fndsa::Error>([sk, vk, sig].concat())
    };
    let value = sign().map(|bytes| keccak::sha3_256(&bytes)).map_err(|e| e.to_string());
    (value, kernels.fpu)
}

/// The signature KAT with the signing FP64 kernels (native FP64 object code) under an emulator. A failed kernel
/// call fails its entry with the call's details, and every later entry (the provider stops running object code).
fn run_fndsa_emulated(provider: Provider) -> Vec<KatResult> {
    let kind = if provider == Provider::Unicorn { BackendKind::Unicorn } else { BackendKind::Qemu };
    let mut fpu = match EmulatedFpu::open(kind, false) {
        Ok(fpu) => Some(fpu),
        Err(e) => {
            return vec![KatResult {
                suite: "fndsa",
                provider,
                name: "fndsa".into(),
                passed: false,
                detail: format!("{kind} did not start: {e}"),
            }];
        }
    };
    scheme_entries("fndsa")
        .map(|(name, fields)| {
            let result = fields.and_then(|f| {
                let (logn, j) = (f.array::<1>("logn")?[0], f.array::<1>("j")?[0]);
                let (value, back) = fndsa_signature_kat(logn, j, fpu.take().expect("the provider is back"));
                let failed = back.check();
                fpu = Some(back);
                failed.map_err(|e| format!("kernel call failed: {e}"))?;
                f.expect("value", &value?)
            });
            KatResult {
                suite: "fndsa",
                provider,
                name,
                passed: result.is_ok(),
                detail: result.err().unwrap_or_default(),
            }
        })
        .collect()
}

/// fn-dsa-kgen 0.4.0's key generation KAT: SHA-256(f || g || F || G) from an ASCII seed.
fn check_fndsa_keygen(f: &Fields) -> Result<(), String> {
    let logn = u32::from(f.array::<1>("logn")?[0]);
    let keys = fndsa::keygen_from_seed(&mut fndsa::ReferenceKernels::default(), logn, f.get("seed")?)
        .map_err(|e| e.to_string())?;
    let bytes: Vec<u8> =
        [keys.f, keys.g, keys.capital_f, keys.capital_g].concat().into_iter().map(|c| c as u8).collect();
    f.expect("fgFG_sha256", &Sha256::digest(bytes))
}

fn fips202_entries() -> impl Iterator<Item = (&'static str, Vec<&'static str>)> {
    FIPS202
        .lines()
        .map(str::trim)
        .filter(|l| !l.is_empty() && !l.starts_with('#'))
        .map(|l| (l, l.split_whitespace().collect()))
}

fn run_fips202(provider: Provider) -> Vec<KatResult> {
    let mut permutation = match provider {
        Provider::Reference => AnyPermutation::Reference(ReferencePermutation),
        Provider::Model => AnyPermutation::Model(ModelPermutation),
        Provider::Unicorn | Provider::Qemu => {
            let kind = if provider == Provider::Unicorn { BackendKind::Unicorn } else { BackendKind::Qemu };
            match kind.open(Limits::default()) {
                Ok(backend) => AnyPermutation::Emulated(EmulatedPermutation { backend, error: None }),
                Err(e) => {
                    return fips202_entries()
                        .map(|(line, _)| KatResult {
                            suite: "fips202",
                            provider,
                            name: line.to_string(),
                            passed: false,
                            detail: format!("{kind} did not start: {e}"),
                        })
                        .collect();
                }
            }
        }
    };
    fips202_entries()
        .map(|(line, fields)| {
            let mut result = match fields.as_slice() {
                [function, message, expected] => check_fips202(&mut permutation, function, message, expected),
                _ => Err(format!("malformed line `{line}`")),
            };
            // Sticky: once a kernel call failed, no later entry of this provider can pass.
            if let AnyPermutation::Emulated(EmulatedPermutation { error: Some(e), .. }) = &permutation {
                result = Err(format!("kernel call failed: {e}"));
            }
            let name = fields.iter().take(2).copied().collect::<Vec<_>>().join(" ");
            KatResult {
                suite: "fips202",
                provider,
                name,
                passed: result.is_ok(),
                detail: result.err().unwrap_or_default(),
            }
        })
        .collect()
}

/// The provider chosen for a suite.
enum AnyPermutation {
    Reference(ReferencePermutation),
    Model(ModelPermutation),
    Emulated(EmulatedPermutation),
}

impl Permutation for AnyPermutation {
    fn permute(&mut self, state: &mut [u64; 25]) {
        match self {
            AnyPermutation::Reference(p) => p.permute(state),
            AnyPermutation::Model(p) => p.permute(state),
            AnyPermutation::Emulated(p) => p.permute(state),
        }
    }
}

/// The sim model of the interleaved kernel, on standard lanes.
struct ModelPermutation;

impl Permutation for ModelPermutation {
    fn permute(&mut self, state: &mut [u64; 25]) {
        let mut words = model::interleave(state);
        model::keccak_f1600_interleaved(&mut words);
        *state = model::deinterleave(&words);
    }
}

/// The `keccak.f1600` object code under an emulator. The lane conversion runs on the host (its own kernels are
/// checked separately by the differential campaigns). A failed call poisons the state and is remembered.
struct EmulatedPermutation {
    backend: Box<dyn Backend>,
    error: Option<CallError>,
}

impl Permutation for EmulatedPermutation {
    fn permute(&mut self, state: &mut [u64; 25]) {
        let words = words_to_bytes(&model::interleave(state));
        match self.backend.call(&Call::new("keccak_f1600_interleaved", vec![Arg::InOut(words)])) {
            Ok(out) => *state = model::deinterleave(&bytes_to_words(&out.buffers[0]).try_into().unwrap()),
            Err(e) => {
                *state = [0; 25];
                self.error.get_or_insert(e);
            }
        }
    }
}

fn check_fips202(p: &mut dyn Permutation, function: &str, message: &str, expected: &str) -> Result<(), String> {
    let message = if message == "-" { Vec::new() } else { hex::decode(message).map_err(|e| e.to_string())? };
    let expected = hex::decode(expected).map_err(|e| e.to_string())?;
    let mut out = vec![0u8; expected.len()];
    match function {
        "keccak-f1600-zero-lane0" | "keccak-f1600-twice-lane0" => {
            let mut state = [0u64; 25];
            p.permute(&mut state);
            if function == "keccak-f1600-twice-lane0" {
                p.permute(&mut state);
            }
            out.copy_from_slice(&state[0].to_le_bytes());
        }
        "sha3-256" => sponge::<136, 0x06>(p, &message, &mut out),
        "sha3-512" => sponge::<72, 0x06>(p, &message, &mut out),
        "shake128" => sponge::<168, 0x1F>(p, &message, &mut out),
        "shake256" => sponge::<136, 0x1F>(p, &message, &mut out),
        other => return Err(format!("unknown function `{other}`")),
    }
    if out == expected { Ok(()) } else { Err(format!("expected {}, got {}", hex::encode(expected), hex::encode(out))) }
}

fn sponge<const RATE: usize, const DS: u8>(p: &mut dyn Permutation, message: &[u8], out: &mut [u8]) {
    let mut sponge = Keccak::<RATE, DS, _>::with_permutation(Borrowed(p));
    sponge.absorb(message);
    sponge.squeeze(out);
}

/// Lends a provider to a sponge for one hash.
struct Borrowed<'a>(&'a mut dyn Permutation);

impl Permutation for Borrowed<'_> {
    fn permute(&mut self, state: &mut [u64; 25]) {
        self.0.permute(state);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_known_answer_passes_with_every_provider() {
        let results = run_all();
        // fips202 with four providers; mlkem768 2, x25519 5, xwing 3 entries with the reference; fndsa 90 entries
        // with the reference, unicorn and QEMU; fndsa-keygen 300 with the reference.
        assert_eq!(results.len(), 8 * Provider::ALL.len() + 2 + 5 + 3 + 3 * 90 + 300);
        for r in results {
            assert!(r.passed, "{} {} with {}: {}", r.suite, r.name, r.provider.name(), r.detail);
        }
    }

    /// Every scheme entry fails when one expected byte is changed: the checks compare what they claim to.
    #[test]
    fn a_changed_expected_value_fails_every_scheme_entry() {
        for line in SCHEMES.lines().filter(|l| !l.trim().is_empty() && !l.starts_with('#')) {
            let mut words = line.split_whitespace();
            let suite = words.next().unwrap();
            if LONG_SUITES.contains(&suite) {
                continue; // a minute of work; the same check as its short siblings
            }
            let mut fields: HashMap<&str, Vec<u8>> =
                words.skip(1).map(|w| w.split_once('=').unwrap()).map(|(k, v)| (k, hex::decode(v).unwrap())).collect();
            let expected = ["record_sha256", "stream_sha256", "out", "shared", "ct_sha256"];
            let key = *expected.iter().find(|k| fields.contains_key(*k)).expect("an expected field");
            fields.get_mut(key).unwrap()[5] ^= 0x10;
            assert!(check_scheme(suite, &Fields(fields)).is_err(), "{line}");
        }
    }

    /// A provider that gets one permutation wrong fails the known answers: the seam is real.
    #[test]
    fn a_wrong_permutation_fails_the_known_answers() {
        struct OffByOne;
        impl Permutation for OffByOne {
            fn permute(&mut self, state: &mut [u64; 25]) {
                pqhelium_core::keccak::keccak_f1600(state);
                state[0] ^= 1 << 17;
            }
        }
        for (_, fields) in fips202_entries() {
            let [function, message, expected] = fields.as_slice() else { panic!() };
            assert!(check_fips202(&mut OffByOne, function, message, expected).is_err(), "{function} {message}");
        }
    }
}
