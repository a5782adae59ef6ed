//! Known-answer suites of whole schemes on the guest (`pqhelium kat --suite mlkem768-whole`, `xwing-whole`,
//! `fndsa-whole`, `fndsa-keygen-whole`): every published entry of the scheme's suite run by each build of ours that
//! the image holds (portable and MVE), every operation on the guest. The host only frames inputs and hashes outputs;
//! the published values judge them.

use pqhelium_core::fndsa::{SigningKey, codec};
use pqhelium_guest::backend::{Arg, Backend, Call, Image, Limits};
use sha2::{Digest, Sha256};

use crate::fndsa_on_guest::{self, BATCH_VERDICTS, CALL_TIMEOUT, Op as SignatureOp, SIGNATURE_BUILDS, SignatureBuild};
use crate::kat::{self, Extent, Fields, KatResult, Provider, SuiteRun};
use crate::on_guest::{self, GuestXWing, KEM_BUILDS, KemBuild};

/// The whole-scheme suites and the suite whose published entries each runs.
pub const WHOLE_SUITES: [(&str, &str); 4] = [
    ("mlkem768-whole", "mlkem768"),
    ("xwing-whole", "xwing"),
    ("fndsa-whole", "fndsa"),
    ("fndsa-keygen-whole", "fndsa-keygen"),
];

/// The degrees the guest builds implement: FN-DSA-512 and -1024 (the published suites also hold logn 2-8).
const GUEST_LOGN: [u8; 2] = [9, 10];

/// The providers of the whole-scheme suites: the emulators (their images hold the builds).
pub const PROVIDERS: [Provider; 2] = [Provider::Unicorn, Provider::Qemu];

/// The whole-scheme suite named `name`, if it is one.
pub fn find(name: &str) -> Option<&'static str> {
    whole_suite(name).map(|(whole, _)| *whole)
}

/// `name`'s row of [`WHOLE_SUITES`].
fn whole_suite(name: &str) -> Option<&'static (&'static str, &'static str)> {
    WHOLE_SUITES.iter().find(|(whole, _)| *whole == name)
}

/// Runs whole-scheme suite `suite` with an emulator `provider` on `image` (`None`: the emulator's default image).
pub fn run_on(suite: &'static str, provider: Provider, image: Option<Image>, extent: Extent) -> SuiteRun {
    let image = match kat::provider_image(provider, image) {
        Ok(Some(image)) => image,
        Ok(None) => {
            return SuiteRun::failed(suite, provider, format!("suite `{suite}` runs on an emulator (unicorn, qemu)"));
        }
        Err(why) => return SuiteRun::failed(suite, provider, why),
    };
    let start = std::time::Instant::now();
    let mut run = run(suite, provider, image, extent);
    run.elapsed = start.elapsed();
    run.image = Some(image);
    run
}

/// A build of a scheme, with the suite it runs.
enum WholeBuild {
    Kem(KemBuild),
    Signature(SignatureBuild),
    Keygen(SignatureBuild),
}

impl WholeBuild {
    fn name(&self) -> &'static str {
        match self {
            WholeBuild::Kem(build) => build.build,
            WholeBuild::Signature(build) | WholeBuild::Keygen(build) => build.build,
        }
    }

    /// One entry on a guest holding the build.
    fn check(&self, backend: &mut dyn Backend, f: &Fields) -> Result<(), String> {
        match self {
            WholeBuild::Kem(build) => check_kem_entry(backend, build, f),
            WholeBuild::Signature(build) => check_signature_entry(backend, build, f),
            WholeBuild::Keygen(build) => check_keygen_entry(backend, build.symbol(SignatureOp::Keypair), f),
        }
    }
}

/// The builds of `suite`'s scheme that `image` holds.
fn builds(suite: &str, image: Image) -> Vec<WholeBuild> {
    let kem = |name: &str| {
        KEM_BUILDS.into_iter().filter(|b| b.name == name && b.images.contains(&image)).map(WholeBuild::Kem).collect()
    };
    let signature = SIGNATURE_BUILDS.into_iter().filter(|b| b.images.contains(&image));
    match suite {
        "mlkem768-whole" => kem("mlkem768"),
        "xwing-whole" => kem("xwing"),
        "fndsa-whole" => signature.map(WholeBuild::Signature).collect(),
        _ => signature.map(WholeBuild::Keygen).collect(),
    }
}

/// Whether the guest builds implement the entry's parameter set (every KEM entry; FN-DSA at logn 9 and 10).
fn applies(f: &Fields) -> bool {
    f.array::<1>("logn").map_or(true, |[logn]| GUEST_LOGN.contains(&logn))
}

/// Runs whole-scheme suite `suite` on `image`: each entry of its published suite at a degree the builds implement,
/// by every build the image holds; an entry passes when every build reproduces it.
fn run(suite: &'static str, provider: Provider, image: Image, extent: Extent) -> SuiteRun {
    let Some(&(_, entry_suite)) = whole_suite(suite) else {
        return SuiteRun::failed(suite, provider, format!("no whole-scheme suite `{suite}`"));
    };
    let builds = builds(suite, image);
    if builds.is_empty() {
        return SuiteRun::failed(suite, provider, format!("the {image} image holds no build of {entry_suite}"));
    }
    let mut backend = match image.open(Limits { timeout: CALL_TIMEOUT }) {
        Ok(backend) => backend,
        Err(e) => return SuiteRun::did_not_start(suite, provider, e),
    };
    let all = kat::scheme_entries(entry_suite).count();
    let results: Vec<KatResult> = kat::scheme_entries(entry_suite)
        .filter(|(name, fields)| match extent {
            Extent::Only(names) => names.contains(&name.as_str()),
            _ => fields.as_ref().map_or(true, applies),
        })
        .map(|(name, fields)| {
            let result = fields.and_then(|f| {
                builds.iter().try_for_each(|b| b.check(backend.as_mut(), &f).map_err(|e| format!("{}: {e}", b.name())))
            });
            KatResult { suite, provider, name, passed: result.is_ok(), detail: result.err().unwrap_or_default() }
        })
        .collect();
    let names: Vec<&str> = builds.iter().map(WholeBuild::name).collect();
    let mut notes = vec![format!("every operation on the guest, builds: {}", names.join(", "))];
    if results.len() < all {
        notes.push(format!(
            "{} of the {all} published entries: the guest builds implement FN-DSA-512 and -1024 (logn 9, 10)",
            results.len()
        ));
    }
    SuiteRun::new(suite, provider, results, notes)
}

/// An entry of the KEM's published suite (`mlkem768` or `xwing`) through `build` on the guest.
pub fn check_kem_entry(backend: &mut dyn Backend, build: &KemBuild, f: &Fields) -> Result<(), String> {
    match build.name {
        "mlkem768" => check_mlkem768(backend, build, f),
        _ => kat::check_xwing(f, &mut GuestXWing { backend, build }),
    }
}

/// A signature known answer (logn, j) end to end on the guest: SHA3-256(sk || vk || sig) against the published
/// value, and the verdicts of verification alone and in a batch.
pub fn check_signature_entry(backend: &mut dyn Backend, build: &SignatureBuild, f: &Fields) -> Result<(), String> {
    let (logn, j) = (f.array::<1>("logn")?[0], f.array::<1>("j")?[0]);
    let run = fndsa_on_guest::run_kat_entry(backend, build, logn.into(), j.into())?;
    f.expect("value", &run.value())?;
    match (run.verified, run.batch) {
        (true, batch) if batch == BATCH_VERDICTS => Ok(()),
        (verified, batch) => {
            Err(format!("verification said {verified}, the batch {batch:?} (expected true, {BATCH_VERDICTS:?})"))
        }
    }
}

/// An ML-KEM-768 entry through a build's pqm4 API: the NIST KAT's count = 0 record (`randombytes` from the DRBG
/// seeded with the entry's seed), or mlkem-native's 100-entry stream through the derandomised functions.
fn check_mlkem768(backend: &mut dyn Backend, build: &KemBuild, f: &Fields) -> Result<(), String> {
    if f.get("record_sha256").is_ok() {
        let seed = f.array("seed")?;
        let run = on_guest::run_entry(backend, build, &seed).map_err(|e| e.to_string())?;
        f.expect("ss", &run.values.ss)?;
        f.expect("record_sha256", &Sha256::digest(run.values.record(0).to_rsp().as_bytes()))?;
        return f.expect("ss", &run.decapsulated);
    }
    kat::check_mlkem_stream(f, |coins| {
        let (pk, sk) = (Arg::Out(build.public_key), Arg::Out(build.secret_key));
        let keys =
            on_guest::call_api(backend, build, "crypto_kem_keypair_derand", vec![pk, sk, Arg::In(coins[..64].into())])?;
        let (pk, sk) = (keys[0].clone(), keys[1].clone());
        let args = vec![
            Arg::Out(build.ciphertext),
            Arg::Out(build.shared_secret),
            Arg::In(pk.clone()),
            Arg::In(coins[64..].into()),
        ];
        let encapsulated = on_guest::call_api(backend, build, "crypto_kem_enc_derand", args)?;
        let (ct, ss) = (encapsulated[0].clone(), encapsulated[1].clone());
        if on_guest::decapsulate(backend, build, &ct, &sk).map_err(|e| e.to_string())? != ss {
            return Err("decapsulation did not give the shared secret back".into());
        }
        Ok([pk, sk, ct, ss])
    })
}

/// A key generation entry with the kernel `symbol`: SHA-256(f || g || F || G) of the key it makes from the entry's
/// seed (f, g and F decoded from the signing key, G recomputed from them by core's key decoding).
pub fn check_keygen_entry(backend: &mut dyn Backend, symbol: &str, f: &Fields) -> Result<(), String> {
    let (logn, seed) = (u32::from(f.array::<1>("logn")?[0]), f.get("seed")?);
    let (sk_len, vk_len) = (codec::signing_key_size(logn), codec::verifying_key_size(logn));
    let args =
        vec![Arg::Out(sk_len), Arg::Out(vk_len), Arg::In(seed.to_vec()), Arg::U32(seed.len() as u32), Arg::U32(logn)];
    let out = backend.call(&Call::new(symbol, args)).map_err(|e| format!("{symbol}: {e}"))?;
    if out.r0 != 1 {
        return Err(format!("{symbol} returned {} (no key)", out.r0));
    }
    let sk = &out.buffers[0];
    let parts = codec::decode_signing_key(sk).map_err(|e| format!("the signing key does not decode: {e}"))?;
    let big_g = SigningKey::decode(sk).map_err(|e| format!("the signing key does not decode: {e}"))?.big_g().to_vec();
    let bytes: Vec<u8> = [parts.f, parts.g, parts.big_f, big_g].concat().into_iter().map(|c| c as u8).collect();
    f.expect("fgFG_sha256", &Sha256::digest(&bytes))
}
