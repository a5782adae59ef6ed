//! Known-answer tests from `vectors/` (embedded at build time), each run with a choice of kernel provider: the
//! reference in `pqhelium-core`, the sim model, or the object code under unicorn or QEMU ("kernels in the loop",
//! the providers of `crate::providers`). A run reports what the model or object code served, call by call per
//! kernel, and fails if a kernel it needs was never called: a suite cannot pass on the reference by accident.

use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::time::{Duration, Instant};

use pqhelium_core::drbg::NistDrbg;
use pqhelium_core::fndsa::keygen::{FxpKernels, FxpReference};
use pqhelium_core::fndsa::{self, FpuKernels, NttKernels, fpu, ntt};
use pqhelium_core::keccak::{self, Keccak, Permutation, ReferencePermutation, Shake128, shake256};
use pqhelium_core::mlkem::{ML_KEM_768, MlKem, MlkemKernels};
use pqhelium_core::rsp::Record;
use pqhelium_core::x25519::{self, FieldArithmetic, Reference as Field};
use pqhelium_core::xwing::XWing;
use rayon::prelude::*;
use sha2::{Digest, Sha256};

use crate::providers::fndsa_fpu::EmulatedFpu;
use crate::providers::fndsa_keygen::FxpProvider;
use crate::providers::fndsa_ntt::{self, FndsaNttProvider, KERNEL_LOGNS};
use crate::providers::keccak::{
    AnyPermutation, EmulatedPermutation, EmulatedPermutationX4, LaneJob, ModelPermutationX4, PermutationX4, run_batch,
};
use crate::providers::mlkem::{MlkemProvider, Op as MlkemOp};
use crate::providers::x25519::{self as x25519_provider, X25519Provider};
use crate::providers::{Build, Engine, Guest, KernelCount, Tally};
use pqhelium_guest::backend::{BackendError, BackendKind, Image};

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

    /// The object-code provider of an emulator.
    pub fn for_backend(kind: BackendKind) -> Provider {
        if kind == BackendKind::Qemu { Provider::Qemu } else { Provider::Unicorn }
    }

    /// The emulator of an object-code provider.
    pub(crate) fn emulator(self) -> Option<BackendKind> {
        match self {
            Provider::Unicorn => Some(BackendKind::Unicorn),
            Provider::Qemu => Some(BackendKind::Qemu),
            Provider::Reference | Provider::Model => None,
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

/// One suite run with one provider: its entries, what the provider's model or object code served, and what the run
/// left to the reference or left out.
#[derive(Debug, Clone)]
pub struct SuiteRun {
    pub suite: &'static str,
    pub provider: Provider,
    pub results: Vec<KatResult>,
    /// Calls (and guest instructions) per kernel symbol served by the model or the object code.
    pub served: BTreeMap<&'static str, KernelCount>,
    /// What the run did not put in the loop, or left out.
    pub notes: Vec<String>,
    pub elapsed: Duration,
    /// The image of an object-code provider.
    pub image: Option<Image>,
}

impl SuiteRun {
    pub(crate) fn new(suite: &'static str, provider: Provider, results: Vec<KatResult>, notes: Vec<String>) -> Self {
        Self { suite, provider, results, served: BTreeMap::new(), notes, elapsed: Duration::ZERO, image: None }
    }

    pub fn passed(&self) -> bool {
        self.results.iter().all(|r| r.passed)
    }

    /// A run that could not start: one failed result with the reason.
    pub(crate) fn failed(suite: &'static str, provider: Provider, detail: String) -> Self {
        Self::new(
            suite,
            provider,
            vec![KatResult { suite, provider, name: suite.into(), passed: false, detail }],
            vec![],
        )
    }

    pub(crate) fn did_not_start(suite: &'static str, provider: Provider, e: BackendError) -> Self {
        Self::failed(suite, provider, format!("{} did not start: {e}", provider.name()))
    }

    /// Adds what `tally` served, and a failed result for each symbol of `required` it never called.
    fn served_by(&mut self, tally: &Tally, required: impl IntoIterator<Item = &'static str>) {
        for (&symbol, count) in tally.counts() {
            let total = self.served.entry(symbol).or_default();
            total.calls += count.calls;
            total.instructions += count.instructions;
        }
        for symbol in required.into_iter().filter(|s| tally.calls_of(s) == 0) {
            self.results.push(KatResult {
                suite: self.suite,
                provider: self.provider,
                name: "kernels in the loop".into(),
                passed: false,
                detail: format!("{symbol} was never called: the entries ran without it"),
            });
        }
    }
}

/// How much of a suite to run.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Extent {
    /// Every entry.
    All,
    /// What `check` runs: every entry, except where a suite is slow with its provider: a `Sample` there.
    Quick,
    /// The named entries of a scheme suite only.
    Only(&'static [&'static str]),
}

/// The entries `check` runs of a suite that is slow with some provider.
struct Sample {
    keep: fn(&Fields) -> bool,
    /// Which entries, for the report.
    what: &'static str,
}

/// The FN-DSA signature KAT with emulated kernels (a minute and more in full): j = 0 (raw message) and j = 1
/// (SHA3-256 pre-hash) at every degree.
const FNDSA_SAMPLE: Sample =
    Sample { keep: |f| f.array::<1>("j").is_ok_and(|[j]| j < 2), what: "j = 0 and 1 at every degree" };

/// The key generation KAT with emulated kernels (minutes in full: about 1,300 FFT and division calls per key): the
/// seeds "test0" to "test2" at every degree.
const FNDSA_KEYGEN_SAMPLE: Sample = Sample {
    keep: |f| f.get("seed").is_ok_and(|seed| [&b"test0"[..], b"test1", b"test2"].contains(&seed)),
    what: "seeds test0 to test2 at every degree",
};

/// The suites `check` and `kat` run by default.
pub const SUITES: &[&str] = &["fips202", "mlkem768", "rfc7748", "xwing", "fndsa", "fndsa-keygen"];
/// Suites too long for every run (a minute or more); `pqhelium kat --suite NAME` runs them (and the whole-scheme
/// suites of [`crate::kat_whole`]).
pub const LONG_SUITES: &[&str] = &["rfc7748-1m"];
/// Suites whose object-code providers run on a chosen image (`kat --image`); the others on their emulator's default.
pub const IMAGE_SUITES: &[&str] = &["mlkem768", "rfc7748", "rfc7748-1m", "xwing"];
/// Suites `check` also runs on the M85 image (QEMU), beside the default M55.
const M85_SUITES: &[&str] = &["rfc7748", "xwing"];

/// The providers a suite can run with: every suite whose kernels exist as model and object code has all four; the
/// others run on the reference kernels until their Cortex-M kernels exist.
pub fn providers(suite: &str) -> &'static [Provider] {
    match suite {
        "fips202" | "mlkem768" | "rfc7748" | "rfc7748-1m" | "xwing" | "fndsa" | "fndsa-keygen" => &Provider::ALL,
        _ => &[Provider::Reference],
    }
}

/// Runs one suite with one provider. An emulator that cannot start fails the run, with the reason.
pub fn run(suite: &'static str, provider: Provider, extent: Extent) -> SuiteRun {
    run_on(suite, provider, None, extent)
}

/// Runs one suite with one provider, its object code from `image` (`None`: the emulator's default image). An image
/// the provider's emulator does not run, or a suite that runs on default images only, fails the run.
pub fn run_on(suite: &'static str, provider: Provider, image: Option<Image>, extent: Extent) -> SuiteRun {
    let resolved = match provider_image(provider, image) {
        Ok(resolved) => resolved,
        Err(why) => return SuiteRun::failed(suite, provider, why),
    };
    if let Some(image) = image
        && !image.is_default()
        && !IMAGE_SUITES.contains(&suite)
    {
        let why = format!("suite `{suite}` runs on the default images only (--image: {})", IMAGE_SUITES.join(", "));
        return SuiteRun::failed(suite, provider, why);
    }
    let mut run = run_checked(suite, provider, resolved, extent);
    run.image = resolved;
    run
}

/// The image `provider` runs: `image` if its emulator runs it, else its emulator's default image (`None` for the
/// host providers, which refuse an image).
pub(crate) fn provider_image(provider: Provider, image: Option<Image>) -> Result<Option<Image>, String> {
    match (image, provider.emulator()) {
        (Some(image), kind) if kind != Some(image.backend()) => {
            Err(format!("the {image} image runs on {}, not with the {} provider", image.backend(), provider.name()))
        }
        (image, kind) => Ok(kind.map(|kind| image.or(kind.default_image()).expect("an emulator has an image"))),
    }
}

fn run_checked(suite: &'static str, provider: Provider, image: Option<Image>, extent: Extent) -> SuiteRun {
    if !SUITES.contains(&suite) && !LONG_SUITES.contains(&suite) {
        return SuiteRun::failed(suite, provider, format!("no suite `{suite}`; suites: {}", SUITES.join(", ")));
    }
    if !providers(suite).contains(&provider) {
        return SuiteRun::failed(suite, provider, format!("suite `{suite}` has no {} provider yet", provider.name()));
    }
    let start = Instant::now();
    let mut run = match (suite, provider) {
        ("fips202", _) => run_fips202(provider),
        (_, Provider::Reference) => run_reference(suite, extent),
        ("rfc7748" | "rfc7748-1m", _) => run_rfc7748(suite, provider, image, extent),
        ("mlkem768" | "xwing", _) => run_mlkem(suite, provider, image, extent),
        ("fndsa-keygen", _) => run_fndsa_keygen(provider, extent),
        _ => run_fndsa(provider, extent),
    };
    run.elapsed = start.elapsed();
    run
}

/// Every suite with every provider it has, as `check` runs them; the X25519 and X-Wing suites on QEMU with the M85
/// image too, and fips202 with each Keccak permutation SLOTHY scheduled.
pub fn run_all() -> Vec<SuiteRun> {
    let mut plan: Vec<(&'static str, Provider, Option<Image>)> =
        SUITES.iter().flat_map(|&suite| providers(suite).iter().map(move |&p| (suite, p, None))).collect();
    plan.extend(M85_SUITES.iter().map(|&suite| (suite, Provider::Qemu, Some(Image::M85))));
    // One run per CPU at a time (each opens its own emulator; the runs share nothing), collected in the plan's order.
    let mut runs: Vec<SuiteRun> =
        plan.par_iter().map(|&(suite, provider, image)| run_on(suite, provider, image, Extent::Quick)).collect();
    runs.extend(run_fips202_scheduled());
    runs
}

/// The entries of a scheme suite: (name, fields or why they do not parse).
pub(crate) fn scheme_entries(suite: &str) -> impl Iterator<Item = (String, Result<Fields<'static>, String>)> {
    SCHEMES
        .lines()
        .chain(FNDSA.lines())
        .filter_map(scheme_entry)
        .filter(move |(entry_suite, ..)| *entry_suite == suite)
        .map(|(_, name, fields)| (name, fields))
}

/// One line of a scheme `.kat` file: (suite, name, fields or why they do not parse); `None` for a blank line or a
/// comment.
pub fn scheme_entry(line: &str) -> Option<(&str, String, Result<Fields<'_>, String>)> {
    let line = line.trim();
    if line.starts_with('#') {
        return None;
    }
    let mut words = line.split_whitespace();
    let suite = words.next()?;
    let name = words.next().unwrap_or("").to_string();
    let fields: Result<HashMap<&str, Vec<u8>>, String> = words
        .map(|w| {
            let (key, value) = w.split_once('=').ok_or_else(|| format!("`{w}` is not field=hex"))?;
            Ok((key, hex::decode(value).map_err(|e| format!("{key}: {e}"))?))
        })
        .collect();
    Some((suite, name, fields.map(Fields)))
}

/// Runs `check` on the entries of `suite` the extent selects (with `Quick`, those of `sample` if there is one); the
/// results, and a note if entries were left out.
fn scheme_results(
    suite: &'static str,
    provider: Provider,
    extent: Extent,
    sample: Option<&Sample>,
    mut check: impl FnMut(&Fields) -> Result<(), String>,
) -> (Vec<KatResult>, Option<String>) {
    let entries = scheme_entries(suite).count();
    let results: Vec<KatResult> = scheme_entries(suite)
        .filter(|(name, fields)| match (extent, sample, fields) {
            (Extent::Quick, Some(sample), Ok(fields)) => (sample.keep)(fields),
            (Extent::Only(names), ..) => names.contains(&name.as_str()),
            _ => true,
        })
        .map(|(name, fields)| {
            let result = fields.and_then(|f| check(&f));
            KatResult { suite, provider, name, passed: result.is_ok(), detail: result.err().unwrap_or_default() }
        })
        .collect();
    let ran = results.len();
    let note = match (extent, sample) {
        _ if ran == entries => None,
        (Extent::Only(names), _) => Some(format!("{ran} of the {entries} entries: {}", names.join(", "))),
        (_, Some(sample)) => Some(format!(
            "{ran} of the {entries} entries ({}); `pqhelium kat --suite {suite} --provider {}` runs them all",
            sample.what,
            provider.name()
        )),
        (_, None) => None,
    };
    (results, note)
}

/// An entry's verdict with kernels in the loop: a failed kernel call fails it, whatever it computed.
fn in_the_loop(outcome: Result<(), String>, kernels: Result<(), String>) -> Result<(), String> {
    kernels.map_err(|e| format!("kernel call failed: {e}"))?;
    outcome
}

fn run_reference(suite: &'static str, extent: Extent) -> SuiteRun {
    let provider = Provider::Reference;
    let (results, note) = scheme_results(suite, provider, extent, None, |f| check_scheme(suite, f));
    SuiteRun::new(suite, provider, results, note.into_iter().collect())
}

pub struct Fields<'a>(pub HashMap<&'a str, Vec<u8>>);

impl Fields<'_> {
    pub fn get(&self, key: &str) -> Result<&[u8], String> {
        self.0.get(key).map(Vec::as_slice).ok_or_else(|| format!("missing field `{key}`"))
    }
    pub fn array<const N: usize>(&self, key: &str) -> Result<[u8; N], String> {
        self.get(key)?.try_into().map_err(|_| format!("`{key}` is not {N} bytes"))
    }
    /// Fails unless `actual` equals field `key`.
    pub(crate) fn expect(&self, key: &str, actual: &[u8]) -> Result<(), String> {
        let expected = self.get(key)?;
        if expected.eq_ignore_ascii_case(actual) {
            Ok(())
        } else {
            Err(format!("{key}: expected {}, got {}", hex::encode(expected), hex::encode(actual)))
        }
    }
}

/// An entry of a scheme suite on the reference kernels.
fn check_scheme(suite: &str, f: &Fields) -> Result<(), String> {
    match suite {
        "mlkem768" => check_mlkem768(f, &MlKem::reference(ML_KEM_768)),
        "rfc7748" | "rfc7748-1m" => check_rfc7748(f, &Field),
        "fndsa" => check_fndsa(f, &mut fndsa::ReferenceKernels::default()),
        "fndsa-keygen" => check_fndsa_keygen(f, &mut fndsa::ReferenceKernels::default()),
        _ => check_xwing(f, &mut XWing::reference()),
    }
}

/// ML-KEM-768 and X-Wing with the ML-KEM kernels of the model (the MVE kernels') or of the object code of `image`
/// (the MVE kernels on QEMU, the portable C on unicorn), every SHA-3 and SHAKE on `keccak.f1600` from the same
/// source; X-Wing with the X25519 kernels from the same source too.
fn run_mlkem(suite: &'static str, provider: Provider, image: Option<Image>, extent: Extent) -> SuiteRun {
    let opened = match image {
        None => Ok((
            MlkemProvider::new(Build::Mve, Engine::model()).with_keccak(),
            X25519Provider::new(Build::Mve, Engine::model()),
        )),
        Some(image) => Engine::open_image(image)
            .map(|engine| MlkemProvider::new(Build::for_image(image), engine).with_keccak())
            .and_then(|kernels| Ok((kernels, X25519Provider::open(image)?))),
    };
    match opened {
        Ok((kernels, _)) if suite == "mlkem768" => run_mlkem_with(suite, provider, &kernels, extent),
        Ok((kernels, field)) => run_xwing_with(provider, &kernels, &field, extent),
        Err(e) => SuiteRun::did_not_start(suite, provider, e),
    }
}

/// X-Wing with the ML-KEM kernels `kernels` and the X25519 kernels `field`, reported as `provider`'s run.
pub fn run_xwing_with(provider: Provider, kernels: &MlkemProvider, field: &X25519Provider, extent: Extent) -> SuiteRun {
    let suite = "xwing";
    let (results, note) = scheme_results(suite, provider, extent, None, |f| {
        let outcome = check_xwing(f, &mut XWing::new(kernels, field));
        in_the_loop(outcome, kernels.tally().check().and(field.tally().check()))
    });
    let mut notes: Vec<String> = note.into_iter().collect();
    if kernels.kernel(MlkemOp::Keccak).is_none() {
        notes.push("Keccak (SHA-3, SHAKE) on the reference".into());
    }
    let mut run = SuiteRun::new(suite, provider, results, notes);
    run.served_by(&kernels.tally(), kernels.required());
    run.served_by(&field.tally(), XWING_X25519_OPS.map(|op| field.kernel(op).symbol));
    run
}

/// The X25519 kernels X-Wing calls: key generation's fixed base, encapsulation's table walk in the field kernels,
/// ladder steps, swaps and paired inversion, decapsulation's whole scalar multiplication.
const XWING_X25519_OPS: [x25519_provider::Op; 7] = {
    use x25519_provider::Op::*;
    [Base, Scalarmult, Mul, Add, Sub, Cswap, LadderStep]
};

/// The X25519 kernels the RFC 7748 suite calls: the whole scalar multiplications, and the ladder of the section 5.2
/// vectors again step by step (swaps, ladder steps, the final inversion and multiplication).
const RFC7748_OPS: [x25519_provider::Op; 6] = {
    use x25519_provider::Op::*;
    [Scalarmult, Base, Cswap, LadderStep, Inv, Mul]
};

/// The RFC 7748 iterated test's 1,000 iterations with the model or object code: `check` leaves them to `kat`.
const RFC7748_SAMPLE: Sample =
    Sample { keep: |f| f.get("iterations").ok().is_none_or(|n| n.len() == 1), what: "all but the 1,000 iterations" };

/// RFC 7748 with the X25519 kernels of the model or of the object code of `image`.
fn run_rfc7748(suite: &'static str, provider: Provider, image: Option<Image>, extent: Extent) -> SuiteRun {
    let field = match image {
        None => X25519Provider::new(Build::Mve, Engine::model()),
        Some(image) => match X25519Provider::open(image) {
            Ok(field) => field,
            Err(e) => return SuiteRun::did_not_start(suite, provider, e),
        },
    };
    run_rfc7748_with(suite, provider, &field, extent)
}

/// The RFC 7748 suite (`rfc7748` or `rfc7748-1m`) with the X25519 kernels `field`, reported as `provider`'s run.
pub fn run_rfc7748_with(suite: &'static str, provider: Provider, field: &X25519Provider, extent: Extent) -> SuiteRun {
    let (results, note) = scheme_results(suite, provider, extent, Some(&RFC7748_SAMPLE), |f| {
        in_the_loop(check_rfc7748(f, &field), field.tally().check())
    });
    let mut run = SuiteRun::new(suite, provider, results, note.into_iter().collect());
    let required: Vec<&'static str> = match suite {
        "rfc7748" => RFC7748_OPS.map(|op| field.kernel(op).symbol).to_vec(),
        _ => vec![field.kernel(x25519_provider::Op::Scalarmult).symbol],
    };
    run.served_by(&field.tally(), required);
    run
}

/// ML-KEM-768 or X-Wing (`suite`) with the ML-KEM kernels `kernels`, reported as `provider`'s run.
pub fn run_mlkem_with(suite: &'static str, provider: Provider, kernels: &MlkemProvider, extent: Extent) -> SuiteRun {
    let (results, note) = scheme_results(suite, provider, extent, None, |f| {
        let outcome = match suite {
            "mlkem768" => check_mlkem768(f, &MlKem::new(ML_KEM_768, kernels)),
            _ => check_xwing(f, &mut XWing::new(kernels, Field)),
        };
        in_the_loop(outcome, kernels.tally().check())
    });
    let mut notes: Vec<String> = note.into_iter().collect();
    if kernels.kernel(MlkemOp::Keccak).is_none() {
        notes.push("Keccak (SHA-3, SHAKE) on the reference".into());
    }
    if suite == "xwing" {
        notes.push("X25519 on the reference".into());
    }
    let mut run = SuiteRun::new(suite, provider, results, notes);
    run.served_by(&kernels.tally(), kernels.required());
    run
}

fn check_mlkem768<K: MlkemKernels>(f: &Fields, kem: &MlKem<K>) -> Result<(), String> {
    let decaps = |sk: &[u8], ct: &[u8], ss: &[u8]| match kem.decaps(sk, ct) {
        Ok(decapsulated) if decapsulated == ss => Ok(()),
        Ok(other) => {
            Err(format!("decapsulation gave {}, not the shared secret {}", hex::encode(other), hex::encode(ss)))
        }
        Err(e) => Err(format!("decapsulation failed: {e}")),
    };
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
        f.expect("record_sha256", &Sha256::digest(record.to_rsp().as_bytes()))?;
        return decaps(&sk, &ct, &ss);
    }
    check_mlkem_stream(f, |coins| {
        let (pk, sk) = kem.keygen_internal(coins[..32].try_into().unwrap(), coins[32..64].try_into().unwrap());
        let (ss, ct) = kem.encaps(&pk, coins[64..].try_into().unwrap()).map_err(|e| e.to_string())?;
        decaps(&sk, &ct, &ss)?;
        Ok([pk.to_vec(), sk.to_vec(), ct.to_vec(), ss.to_vec()])
    })
}

/// mlkem-native's 100-entry ML-KEM-768 stream: coins = SHAKE256(bytes 32..95), then 100 times coins =
/// SHAKE256(coins). `entry` makes pk, sk, ct and ss from the coins (d || z for the key pair, m for encapsulation)
/// and checks that decapsulation gives ss back; the stream's hash of every pk, sk, ct and ss judges them.
pub(crate) fn check_mlkem_stream(
    f: &Fields,
    mut entry: impl FnMut(&[u8; 96]) -> Result<[Vec<u8>; 4], String>,
) -> Result<(), String> {
    let mut coins = [0u8; 96];
    shake256(&(32..96).collect::<Vec<u8>>(), &mut coins);
    let mut stream = String::new();
    for index in 0..100 {
        let previous = coins;
        shake256(&previous, &mut coins);
        let values = entry(&coins).map_err(|e| format!("stream entry {index}: {e}"))?;
        for (label, value) in ["pk", "sk", "ct", "ss"].into_iter().zip(&values) {
            stream.push_str(&format!("{label} = {}\n", hex::encode(value)));
        }
    }
    f.expect("stream_sha256", &Sha256::digest(stream.as_bytes()))
}

/// An RFC 7748 entry with the X25519 provider `field`: the section 5.2 vectors by its scalar multiplication and by
/// the ladder in its steps, the iterated test, and section 6.1's key pairs (fixed base) and shared secret.
fn check_rfc7748<F: FieldArithmetic>(f: &Fields, field: &F) -> Result<(), String> {
    if let Ok(iterations) = f.get("iterations") {
        let n = iterations.iter().fold(0u32, |acc, &b| (acc << 8) | u32::from(b));
        let (mut k, mut u) = (x25519::BASE_POINT, x25519::BASE_POINT);
        for _ in 0..n {
            let next = x25519::x25519(field, &k, &u);
            u = k;
            k = next;
        }
        return f.expect("out", &k);
    }
    if let Ok(k) = f.array::<32>("k") {
        let u = f.array("u")?;
        f.expect("out", &x25519::x25519(field, &k, &u))?;
        return f.expect("out", &x25519::x25519_by_ladder(field, &k, &u));
    }
    let (alice, bob) = (f.array::<32>("alice")?, f.array::<32>("bob")?);
    let (alice_pk, bob_pk) = (x25519::x25519_base(field, &alice), x25519::x25519_base(field, &bob));
    f.expect("alice_pk", &alice_pk)?;
    f.expect("bob_pk", &bob_pk)?;
    f.expect("shared", &x25519::x25519(field, &alice, &bob_pk))?;
    f.expect("shared", &x25519::x25519(field, &bob, &alice_pk))
}

/// X-Wing as its test vectors call it: the draft's derandomised functions, on the host or on a guest.
pub trait XWingDerand {
    /// GenerateKeyPairDerand(seed): the encapsulation key.
    fn keygen(&mut self, seed: &[u8; 32]) -> Result<Vec<u8>, String>;
    /// EncapsulateDerand(pk, eseed): (shared secret, ciphertext).
    fn encaps(&mut self, pk: &[u8], eseed: &[u8; 64]) -> Result<(Vec<u8>, Vec<u8>), String>;
    /// Decapsulate(seed, ct): the shared secret.
    fn decaps(&mut self, seed: &[u8; 32], ct: &[u8]) -> Result<Vec<u8>, String>;
}

impl<K: MlkemKernels, F: FieldArithmetic> XWingDerand for XWing<K, F> {
    fn keygen(&mut self, seed: &[u8; 32]) -> Result<Vec<u8>, String> {
        Ok(XWing::keygen(self, seed).to_vec())
    }
    fn encaps(&mut self, pk: &[u8], eseed: &[u8; 64]) -> Result<(Vec<u8>, Vec<u8>), String> {
        let (ss, ct) = XWing::encaps(self, pk, eseed).map_err(|e| e.to_string())?;
        Ok((ss.to_vec(), ct.to_vec()))
    }
    fn decaps(&mut self, seed: &[u8; 32], ct: &[u8]) -> Result<Vec<u8>, String> {
        XWing::decaps(self, seed, ct).map(|ss| ss.to_vec()).map_err(|e| e.to_string())
    }
}

pub(crate) fn check_xwing(f: &Fields, xwing: &mut impl XWingDerand) -> Result<(), String> {
    // Vector i uses the i-th (32-byte seed, 64-byte eseed) pair of the SHAKE128("") stream.
    let index = f.get("index")?.first().copied().unwrap_or(0);
    let mut stream = Shake128::new();
    let (mut seed, mut eseed) = ([0u8; 32], [0u8; 64]);
    for _ in 0..=index {
        stream.squeeze(&mut seed);
        stream.squeeze(&mut eseed);
    }
    f.expect("eseed", &eseed)?;
    let pk = xwing.keygen(&seed)?;
    let (ss, ct) = xwing.encaps(&pk, &eseed)?;
    f.expect("ss", &ss)?;
    f.expect("pk_sha256", &Sha256::digest(&pk))?;
    f.expect("ct_sha256", &Sha256::digest(&ct))?;
    let decapsulated = xwing.decaps(&seed, &ct)?;
    f.expect("ss", &decapsulated)
}

/// The X-Wing test vectors of draft 10 (appendix C) run by `xwing`: (name, verdict) per vector.
pub fn xwing_vectors(xwing: &mut impl XWingDerand) -> Vec<(String, Result<(), String>)> {
    scheme_entries("xwing").map(|(name, fields)| (name, fields.and_then(|f| check_xwing(&f, xwing)))).collect()
}

/// The published value of FN-DSA signature known answer (logn, j): SHA3-256(sk || vk || sig) (`vectors/fndsa.kat`).
pub fn fndsa_published_value(logn: u32, j: u32) -> Result<Vec<u8>, String> {
    let name = format!("logn{logn}-j{j}");
    let (_, fields) = scheme_entries("fndsa").find(|(entry, _)| *entry == name).ok_or(format!("no entry {name}"))?;
    Ok(fields?.get("value")?.to_vec())
}

/// The kernels of an FN-DSA signature KAT entry: the NTT and FP64 kernels as provided, key generation's
/// fixed-point kernels and Keccak on the reference.
pub type FndsaKernels<N, F> = fndsa::Kernels<N, F, FxpReference, ReferencePermutation>;

/// The fn-dsa 0.4.0 signature KAT: keys from seed_kgen, a signature of "message" in the context "domain" with
/// seed_sign (pre-hashed with SHA3-256 for odd j), all through our keygen and signer; SHA3-256(sk || vk || sig).
pub(crate) fn check_fndsa<N: NttKernels, F: FpuKernels>(
    f: &Fields,
    kernels: &mut FndsaKernels<N, F>,
) -> Result<(), String> {
    let (logn, j) = (f.array::<1>("logn")?[0], f.array::<1>("j")?[0]);
    f.expect("value", &fndsa_kat_entry(logn, j, kernels)?)
}

/// The value of the signature KAT entry (logn, j) with `kernels`: key generation (its NTTs), decoding the signing
/// key (NTTs, FP64 kernels), signing (FP64 kernels); then the signature must verify (NTTs) under the verifying key.
pub fn fndsa_kat_entry<N: NttKernels, F: FpuKernels>(
    logn: u8,
    j: u8,
    kernels: &mut FndsaKernels<N, F>,
) -> Result<[u8; 32], String> {
    let mut seeds = [0u8; 72];
    shake256(&[logn, j, 0, 0, 0], &mut seeds);
    let (seed_kgen, seed_sign) = seeds.split_at(32);
    let logn = u32::from(logn);
    let (sk, vk) = fndsa::keygen(kernels, logn, seed_kgen.try_into().unwrap()).map_err(|e| e.to_string())?;
    let key = fndsa::SigningKey::decode_with(kernels, &sk).map_err(|e| e.to_string())?;
    let message = b"message";
    let sha3 = keccak::sha3_256(message);
    let (id, hv) = if j % 2 == 1 { (fndsa::HashId::SHA3_256, &sha3[..]) } else { (fndsa::HashId::RAW, &message[..]) };
    let sig = key.sign(kernels, seed_sign.try_into().unwrap(), b"domain", id, hv).map_err(|e| e.to_string())?;
    fndsa::VerifyingKey::decode(&vk)
        .and_then(|vk| vk.verify(&mut kernels.ntt, &sig, b"domain", id, hv))
        .map_err(|e| format!("the signature does not verify: {e}"))?;
    Ok(keccak::sha3_256(&[sk, vk, sig].concat()))
}

/// The value of the signature KAT entry (logn, j) with the signing FP64 kernels `fpu` and every other kernel on the
/// reference (see [`fndsa_kat_entry`]), and `fpu` back.
pub fn fndsa_signature_kat<F: FpuKernels>(logn: u8, j: u8, fpu: F) -> (Result<[u8; 32], String>, F) {
    let mut kernels = fndsa::Kernels { ntt: fndsa::Reference, fpu, fxp: FxpReference, keccak: ReferencePermutation };
    let value = fndsa_kat_entry(logn, j, &mut kernels);
    (value, kernels.fpu)
}

/// The signature KAT with the NTT kernels of the model (the MVE kernels', FP64 kernels on the reference: their
/// order of operations is their definition) or of the object code with the FP64 object code beside them (on QEMU
/// the MVE NTTs and the native FP64 kernels, on unicorn the portable C NTTs and the native FP64 kernels).
fn run_fndsa(provider: Provider, extent: Extent) -> SuiteRun {
    match provider.emulator() {
        None => run_fndsa_with(provider, FndsaNttProvider::new(Build::Mve, Engine::model()), None, extent),
        Some(kind) => match FndsaNttProvider::open(kind).and_then(|ntt| Ok((ntt, EmulatedFpu::open(kind, false)?))) {
            Ok((ntt, fpu)) => run_fndsa_with(provider, ntt, Some(fpu), extent),
            Err(e) => SuiteRun::did_not_start("fndsa", provider, e),
        },
    }
}

/// The signature KAT with the NTT kernels `ntt` and the FP64 object code `fpu` (`None`: the reference), reported as
/// `provider`'s run.
pub fn run_fndsa_with(provider: Provider, ntt: FndsaNttProvider, fpu: Option<EmulatedFpu>, extent: Extent) -> SuiteRun {
    match fpu {
        Some(fpu) => fndsa_suite(provider, extent, ntt, fpu, |fpu| Some(fpu)),
        None => fndsa_suite(provider, extent, ntt, fpu::Reference, |_| None),
    }
}

/// The signature KAT with the NTT kernels `ntt` and the FP64 kernels `fpu` (`emulated` gives the FP64 object code,
/// if that is what `fpu` is).
fn fndsa_suite<F: FpuKernels>(
    provider: Provider,
    extent: Extent,
    ntt: FndsaNttProvider,
    fpu: F,
    emulated: fn(&F) -> Option<&EmulatedFpu>,
) -> SuiteRun {
    let suite = "fndsa";
    let mut kernels = fndsa::Kernels { ntt, fpu, fxp: FxpReference, keccak: ReferencePermutation };
    let mut degrees = BTreeSet::new();
    let sample = provider.emulator().map(|_| &FNDSA_SAMPLE);
    let (results, note) = scheme_results(suite, provider, extent, sample, |f| {
        degrees.insert(u32::from(f.array::<1>("logn")?[0]));
        let outcome = check_fndsa(f, &mut kernels);
        let fpu_check = emulated(&kernels.fpu).map_or(Ok(()), EmulatedFpu::check);
        in_the_loop(outcome, kernels.ntt.tally().check().and(fpu_check))
    });
    let mut notes: Vec<String> = note.into_iter().collect();
    notes.push("key generation's fixed-point kernels and Keccak on the reference".into());
    let on_reference: Vec<String> =
        kernels.ntt.reference_calls().iter().map(|(logn, calls)| format!("logn {logn}: {calls}")).collect();
    if !on_reference.is_empty() {
        let [small, large] = KERNEL_LOGNS;
        notes.push(format!(
            "NTT calls on the reference, where no kernel exists (the kernels serve logn {small} and {large}): {}",
            on_reference.join(", ")
        ));
    }
    let fpu = emulated(&kernels.fpu);
    if fpu.is_none() {
        notes.push("FP64 kernels on the reference (their order of operations is their definition: no model)".into());
    }
    let mut run = SuiteRun::new(suite, provider, results, notes);
    let ntt_required: Vec<&'static str> = degrees
        .iter()
        .flat_map(|&logn| fndsa_ntt::Op::ALL.map(|op| kernels.ntt.kernel(op, logn)))
        .flatten()
        .map(|k| k.symbol)
        .collect();
    run.served_by(kernels.ntt.tally(), ntt_required);
    if let Some(fpu) = fpu {
        run.served_by(fpu.tally(), fpu.kernels().map(|k| k.symbol));
    }
    run
}

/// The key generation KAT with the fixed-point kernels of the model or of the object code (on QEMU the Cortex-M55
/// kernels: the MVE FFTs and one VDIV.F64 per division; on unicorn the portable baselines).
fn run_fndsa_keygen(provider: Provider, extent: Extent) -> SuiteRun {
    match provider.emulator() {
        None => run_fndsa_keygen_with(provider, FxpProvider::new(Build::Mve, Engine::model()), extent),
        Some(kind) => match FxpProvider::open(kind) {
            Ok(fxp) => run_fndsa_keygen_with(provider, fxp, extent),
            Err(e) => SuiteRun::did_not_start("fndsa-keygen", provider, e),
        },
    }
}

/// The key generation KAT with the fixed-point kernels `fxp`, reported as `provider`'s run; the NTTs and Keccak on
/// the reference.
pub fn run_fndsa_keygen_with(provider: Provider, fxp: FxpProvider, extent: Extent) -> SuiteRun {
    let suite = "fndsa-keygen";
    let mut kernels = fndsa::Kernels { ntt: ntt::Reference, fpu: fpu::Reference, fxp, keccak: ReferencePermutation };
    let sample = provider.emulator().map(|_| &FNDSA_KEYGEN_SAMPLE);
    let (results, note) = scheme_results(suite, provider, extent, sample, |f| {
        let outcome = check_fndsa_keygen(f, &mut kernels);
        in_the_loop(outcome, kernels.fxp.tally().check())
    });
    let mut notes: Vec<String> = note.into_iter().collect();
    notes.push("the NTTs and Keccak on the reference".to_string());
    let mut run = SuiteRun::new(suite, provider, results, notes);
    run.served_by(kernels.fxp.tally(), kernels.fxp.kernels().map(|k| k.symbol));
    run
}

/// The key generation KAT with Keccak-f\[1600\] on `keccak` (a guest permutation, e.g. one SLOTHY scheduled), reported
/// as QEMU's run; the NTTs, the FPU and the fixed-point kernels on the reference.
pub fn run_fndsa_keygen_with_keccak(keccak: EmulatedPermutation, extent: Extent) -> SuiteRun {
    let suite = "fndsa-keygen";
    let mut kernels = fndsa::Kernels { ntt: ntt::Reference, fpu: fpu::Reference, fxp: FxpReference, keccak };
    let (results, note) = scheme_results(suite, Provider::Qemu, extent, Some(&FNDSA_KEYGEN_SAMPLE), |f| {
        let outcome = check_fndsa_keygen(f, &mut kernels);
        in_the_loop(outcome, kernels.keccak.tally().check())
    });
    let mut notes: Vec<String> = note.into_iter().collect();
    notes.push(format!("Keccak by `{}`; the rest on the reference", kernels.keccak.symbol()));
    let mut run = SuiteRun::new(suite, Provider::Qemu, results, notes);
    run.served_by(kernels.keccak.tally(), [kernels.keccak.symbol()]);
    run
}

/// fn-dsa-kgen 0.4.0's key generation KAT: SHA-256(f || g || F || G) from an ASCII seed, with the kernels `kernels`.
pub(crate) fn check_fndsa_keygen<N: NttKernels, F, X: FxpKernels, P: Permutation>(
    f: &Fields,
    kernels: &mut fndsa::Kernels<N, F, X, P>,
) -> Result<(), String> {
    let logn = u32::from(f.array::<1>("logn")?[0]);
    let keys = fndsa::keygen_from_seed(kernels, logn, f.get("seed")?).map_err(|e| e.to_string())?;
    let bytes: Vec<u8> =
        [keys.f, keys.g, keys.capital_f, keys.capital_g].concat().into_iter().map(|c| c as u8).collect();
    f.expect("fgFG_sha256", &Sha256::digest(bytes))
}

/// The lines of a fips202 `.kat` file, split into words.
pub fn fips202_entries(text: &str) -> impl Iterator<Item = (&str, Vec<&str>)> {
    text.lines()
        .map(str::trim)
        .filter(|l| !l.is_empty() && !l.starts_with('#'))
        .map(|l| (l, l.split_whitespace().collect()))
}

/// fips202 with one provider: the model and QEMU (whose image has MVE) run the x4 permutation, four entries at a
/// time ([`run_fips202_x4`]); unicorn runs the scalar `keccak.f1600`, the reference the reference.
fn run_fips202(provider: Provider) -> SuiteRun {
    let suite = "fips202";
    let permutation = match provider.emulator() {
        None if provider == Provider::Reference => AnyPermutation::Reference(ReferencePermutation),
        None => return run_fips202_x4(provider, ModelPermutationX4, |_| None),
        Some(kind) => match Guest::open(kind) {
            Ok(guest) if Build::for_backend(kind) == Build::Mve => {
                return run_fips202_x4(provider, EmulatedPermutationX4::new(guest), |p| Some((p.tally(), p.symbol())));
            }
            Ok(guest) => AnyPermutation::Emulated(Box::new(EmulatedPermutation::new(guest))),
            Err(e) => return SuiteRun::did_not_start(suite, provider, e),
        },
    };
    run_fips202_single(provider, permutation)
}

/// fips202 on QEMU with each Keccak-f\[1600\] permutation SLOTHY scheduled, on the image of the core it was scheduled
/// for: the scalar ones one entry at a time, the x4 ones four at a time. Their notes name the kernel.
pub fn run_fips202_scheduled() -> Vec<SuiteRun> {
    let (scalar, x4) = pqhelium_families::scheduled_permutations();
    let image = |id: &str| if id.ends_with("m85") { Image::M85 } else { Image::M55 };
    let kernels = scalar.into_iter().map(|id| (id, false)).chain(x4.into_iter().map(|id| (id, true)));
    kernels
        .map(|(id, four)| {
            let mut run = match Guest::open_image(image(id)) {
                Ok(guest) if four => {
                    let permutation = EmulatedPermutationX4::with_kernel(guest, id);
                    run_fips202_x4(Provider::Qemu, permutation, |p| Some((p.tally(), p.symbol())))
                }
                Ok(guest) => {
                    let permutation = AnyPermutation::Emulated(Box::new(EmulatedPermutation::with_kernel(guest, id)));
                    run_fips202_single(Provider::Qemu, permutation)
                }
                Err(e) => SuiteRun::did_not_start("fips202", Provider::Qemu, e),
            };
            run.image = Some(image(id));
            run.notes.push(format!("with `{id}`"));
            run
        })
        .collect()
}

/// fips202 one entry at a time with a single permutation.
fn run_fips202_single(provider: Provider, mut permutation: AnyPermutation) -> SuiteRun {
    let suite = "fips202";
    let results = fips202_entries(FIPS202)
        .map(|(line, fields)| {
            let outcome = match fields.as_slice() {
                [function, message, expected] => check_fips202(&mut permutation, function, message, expected),
                _ => Err(format!("malformed line `{line}`")),
            };
            let result = in_the_loop(outcome, permutation.tally().map_or(Ok(()), Tally::check));
            let name = fields.iter().take(2).copied().collect::<Vec<_>>().join(" ");
            KatResult { suite, provider, name, passed: result.is_ok(), detail: result.err().unwrap_or_default() }
        })
        .collect();
    let mut run = SuiteRun::new(suite, provider, results, Vec::new());
    if let AnyPermutation::Emulated(p) = &permutation {
        run.served_by(p.tally(), [p.symbol()]);
    }
    run
}

/// fips202 with the x4 permutation doing every permutation: each entry is a lane job, and [`run_batch`] runs them
/// four at a time. `served` gives the object code's tally and symbol (none for the model).
fn run_fips202_x4<P: PermutationX4>(
    provider: Provider,
    mut permutation: P,
    served: impl Fn(&P) -> Option<(&Tally, &'static str)>,
) -> SuiteRun {
    let suite = "fips202";
    let mut names = Vec::new();
    let mut jobs = Vec::new();
    // Per entry: the index of its job and its expected output, or why it has none.
    let mut checks = Vec::new();
    for (line, fields) in fips202_entries(FIPS202) {
        names.push(fields.iter().take(2).copied().collect::<Vec<_>>().join(" "));
        let job = match fields.as_slice() {
            [function, message, expected] => fips202_job(function, message, expected),
            _ => Err(format!("malformed line `{line}`")),
        };
        checks.push(job.map(|(job, expected)| {
            jobs.push(job);
            (jobs.len() - 1, expected)
        }));
    }
    run_batch(&mut permutation, &mut jobs);
    let kernels = served(&permutation).map_or(Ok(()), |(tally, _)| tally.check());
    let results = names
        .into_iter()
        .zip(checks)
        .map(|(name, check)| {
            let outcome = check.and_then(|(job, expected)| compare_output(&expected, jobs[job].output()));
            let result = in_the_loop(outcome, kernels.clone());
            KatResult { suite, provider, name, passed: result.is_ok(), detail: result.err().unwrap_or_default() }
        })
        .collect();
    let mut run = SuiteRun::new(suite, provider, results, Vec::new());
    if let Some((tally, symbol)) = served(&permutation) {
        run.served_by(tally, [symbol]);
    }
    run
}

/// A fips202 entry as a lane job, with its expected output.
fn fips202_job(function: &str, message: &str, expected: &str) -> Result<(LaneJob, Vec<u8>), String> {
    let message = if message == "-" { Vec::new() } else { hex::decode(message).map_err(|e| e.to_string())? };
    let expected = hex::decode(expected).map_err(|e| e.to_string())?;
    let len = expected.len();
    let job = match function {
        "keccak-f1600-zero-lane0" => LaneJob::permutations(1, LANE_BYTES),
        "keccak-f1600-twice-lane0" => LaneJob::permutations(2, LANE_BYTES),
        "sha3-256" => LaneJob::sponge(136, 0x06, &message, len),
        "sha3-512" => LaneJob::sponge(72, 0x06, &message, len),
        "shake128" => LaneJob::sponge(168, 0x1F, &message, len),
        "shake256" => LaneJob::sponge(136, 0x1F, &message, len),
        other => return Err(format!("unknown function `{other}`")),
    };
    Ok((job, expected))
}

/// The permutation entries compare lane 0 of the state.
const LANE_BYTES: usize = 8;

fn compare_output(expected: &[u8], out: &[u8]) -> Result<(), String> {
    if out == expected { Ok(()) } else { Err(format!("expected {}, got {}", hex::encode(expected), hex::encode(out))) }
}

pub fn check_fips202(p: &mut dyn Permutation, function: &str, message: &str, expected: &str) -> Result<(), String> {
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
            out = state[0].to_le_bytes().to_vec();
        }
        "sha3-256" => sponge::<136, 0x06>(p, &message, &mut out),
        "sha3-512" => sponge::<72, 0x06>(p, &message, &mut out),
        "shake128" => sponge::<168, 0x1F>(p, &message, &mut out),
        "shake256" => sponge::<136, 0x1F>(p, &message, &mut out),
        other => return Err(format!("unknown function `{other}`")),
    }
    compare_output(&expected, &out)
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
        let runs = run_all();
        let entries = |suite: &str| runs.iter().filter(|r| r.suite == suite).map(|r| r.results.len()).sum::<usize>();
        // fips202 with four providers and the four scheduled permutations; mlkem768 2 entries with four providers; rfc7748 5 with the reference, 4 (not
        // the 1,000 iterations) with the model and each emulator, QEMU's M85 image too; xwing 3 with four providers
        // and the M85 image; fndsa 90 with the reference and the model, 18 (j = 0, 1 at every degree) on each
        // emulator; fndsa-keygen 300 with the reference and the model, 9 (seeds test0 to test2 at every degree) on
        // each emulator.
        let expected = [
            ("fips202", (4 + 4) * 8),
            ("mlkem768", 4 * 2),
            ("rfc7748", 5 + 4 * 4),
            ("xwing", 5 * 3),
            ("fndsa", 2 * 90 + 2 * 18),
            ("fndsa-keygen", 2 * 300 + 2 * 9),
        ];
        for (suite, count) in expected {
            assert_eq!(entries(suite), count, "{suite}");
        }
        for r in runs.iter().flat_map(|run| &run.results) {
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
        for (_, fields) in fips202_entries(FIPS202) {
            let [function, message, expected] = fields.as_slice() else { panic!() };
            assert!(check_fips202(&mut OffByOne, function, message, expected).is_err(), "{function} {message}");
        }
    }
}
