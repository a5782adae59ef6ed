//! Whole FN-DSA signing on the guest (`fndsa.sign` on the FPU, `fndsa.sign.emu` on the soft-float): the published
//! signature KAT reproduced by the object code, every signature of a campaign accepted by the fn-dsa crate's
//! verifier (an oracle independent of core), the object code equal to core's signer over campaigns that start with
//! the known answers and the refused requests, and the signer's own source with its attempt counter off by one
//! failing `pqhelium check`.

use std::path::Path;
use std::time::Duration;

use fn_dsa::{DomainContext, HashIdentifier, VerifyingKey as _, VerifyingKeyStandard};
use pqhelium_core::keccak;
use pqhelium_engine::diff;
use pqhelium_families::fndsa_sign::{self, KAT_ENTRIES, Request};
use pqhelium_families::{self as registry, case_rng};
use pqhelium_guest::backend::{Arg, Backend, BackendKind, Call, Limits};

mod common;

const BUILDS: [&str; 2] = ["fndsa.sign", "fndsa.sign.emu"];
const LOGN: [u32; 2] = [9, 10];

fn open(backend: BackendKind) -> Box<dyn Backend> {
    backend.open(Limits { timeout: Duration::from_secs(60) }).unwrap_or_else(|e| panic!("{backend} must start: {e}"))
}

/// The guest's signature of a request (empty when it returns 0).
fn guest_sign(backend: &mut dyn Backend, id: &str, request: &Request, signature_len: usize) -> Vec<u8> {
    let bytes = request.framed();
    let len = bytes.len() as u32;
    let call =
        Call::new(registry::find(id).unwrap().symbol, vec![Arg::Out(signature_len), Arg::In(bytes), Arg::U32(len)]);
    let output = backend.call(&call).unwrap_or_else(|e| panic!("{id} on {}: {e}", backend.name()));
    output.buffers[0][..output.r0 as usize].to_vec()
}

/// Every numeric `#define FS_*` of the signer's source equals the value core signs with (1/q: the double nearest to
/// it, which IEEE division gives); a constant added to the source must be listed here.
#[test]
fn the_signers_constants_are_cores() {
    use pqhelium_core::fndsa::{B_INF, HashId, MAX_LOGN, SQBETA, codec, ntt, sampler};
    let expected: [(&str, u64); 21] = [
        ("FS_Q", ntt::Q.into()),
        ("FS_MAX_N", 1 << MAX_LOGN),
        ("FS_MU_BYTES", 64),
        ("FS_HVK_BYTES", 64),
        ("FS_MAX_REJECTIONS", sampler::MAX_REJECTIONS.into()),
        ("FS_ID_RAW", HashId::RAW.0[0].into()),
        ("FS_ID_EXTERNAL_MU", HashId::EXTERNAL_MU.0[0].into()),
        ("FS_NONCE_BYTES", codec::NONCE_LEN as u64),
        ("FS_SEED_BYTES", fndsa_sign::RANDOMNESS_BYTES as u64),
        ("FS_B_INF", B_INF.into()),
        ("FS_SQBETA_9", SQBETA[9].into()),
        ("FS_SQBETA_10", SQBETA[10].into()),
        ("FS_SIGNATURE_BYTES_9", codec::signature_size(9) as u64),
        ("FS_SIGNATURE_BYTES_10", codec::signature_size(10) as u64),
        ("FS_INV_Q", (1.0f64 / 12289.0).to_bits()),
        ("FS_NEG_INV_Q", (-1.0f64 / 12289.0).to_bits()),
        ("FS_INV_SIGMA_9", sampler::INV_SIGMA[9].to_bits()),
        ("FS_INV_SIGMA_10", sampler::INV_SIGMA[10].to_bits()),
        ("FS_SIGMA_MIN_9", sampler::SIGMA_MIN[9].to_bits()),
        ("FS_SIGMA_MIN_10", sampler::SIGMA_MIN[10].to_bits()),
        ("FS_MAX_ATTEMPTS", pqhelium_core::fndsa::sign::MAX_ATTEMPTS.into()),
    ];
    let source = include_str!("../../kernels/arm/fndsa_sign/fndsa_sign.c");
    let mut seen = Vec::new();
    for line in source.lines() {
        let mut words = line.split_whitespace();
        let (Some("#define"), Some(name), Some(value), None) = (words.next(), words.next(), words.next(), words.next())
        else {
            continue;
        };
        let digits = value.trim_end_matches(['u', 'l', 'U', 'L']);
        let parsed = match digits.strip_prefix("0x").or_else(|| digits.strip_prefix("0X")) {
            Some(hex) => u64::from_str_radix(hex, 16),
            None => digits.parse(),
        };
        let Ok(parsed) = parsed else { continue };
        let want = expected.iter().find(|(n, _)| *n == name).unwrap_or_else(|| panic!("{name} is not listed"));
        assert_eq!(parsed, want.1, "{name}");
        seen.push(name);
    }
    assert_eq!(seen.len(), expected.len(), "listed but not defined: {seen:?}");
}

/// The published value of signature KAT entry (logn, j): SHA3-256(sk || vk || sig) (vectors/fndsa.kat).
fn kat_value(logn: u32, j: u32) -> Vec<u8> {
    let name = format!("logn{logn}-j{j}");
    let text = include_str!("../../vectors/fndsa.kat");
    let line = text.lines().find(|l| l.split_whitespace().nth(1) == Some(&name)).unwrap_or_else(|| panic!("{name}"));
    hex::decode(line.split_whitespace().find_map(|f| f.strip_prefix("value=")).unwrap()).unwrap()
}

/// The signature KAT on the guest: every entry of logn 9 and 10 signed by the object code of both builds on QEMU
/// (Cortex-M55) and unicorn (Cortex-M7), its SHA3-256(sk || vk || sig) equal to the published value.
#[test]
fn the_signature_kat_is_reproduced_on_the_guest() {
    let entries: Vec<_> = LOGN.iter().flat_map(|&logn| (0..KAT_ENTRIES).map(move |j| (logn, j))).collect();
    let requests: Vec<_> = entries.iter().map(|&(logn, j)| fndsa_sign::kat_entry(logn, j)).collect();
    for backend in [BackendKind::Qemu, BackendKind::Unicorn] {
        let mut emulator = open(backend);
        for id in BUILDS {
            for (&(logn, j), (keys, request)) in entries.iter().zip(&requests) {
                let size = pqhelium_core::fndsa::codec::signature_size(logn);
                let sig = guest_sign(emulator.as_mut(), id, request, size);
                assert_eq!(sig.len(), size, "{id} on {backend}: logn {logn} j {j}");
                let value = keccak::sha3_256(&[keys.sk.as_slice(), &keys.vk, &sig].concat());
                assert_eq!(value.to_vec(), kat_value(logn, j), "{id} on {backend}: logn {logn} j {j}");
            }
        }
    }
}

/// Signatures made by the object code over random requests (pool keys, messages, contexts, hash identifiers and
/// randomness) verify under the fn-dsa crate's verifier, and a flipped bit of one does not.
#[test]
fn guest_signatures_verify_under_the_fn_dsa_crate() {
    let mut emulator = open(BackendKind::Qemu);
    let kernel = registry::find("fndsa.sign").unwrap();
    let edge = kernel.edge_cases;
    for case in edge..edge + 6 {
        let args = kernel.generate(case, &mut case_rng(77, case));
        let (Arg::Out(size), Arg::In(framed)) = (&args[0], &args[1]) else { panic!("the contract's arguments") };
        let request = Request::unframe(framed).expect("a generated request frames");
        for id in BUILDS {
            let sig = guest_sign(emulator.as_mut(), id, &request, *size);
            assert_eq!(sig.len(), *size, "{id}: case {case} signed");
            let vk = fndsa_sign::verifying_key(&request.sk).expect("a pool key");
            let key = VerifyingKeyStandard::decode(&vk).expect("fn-dsa decodes the verifying key");
            let (ctx, hash) = (DomainContext(&request.ctx), HashIdentifier(&request.id));
            assert!(key.verify(&sig, &ctx, &hash, &request.hv), "{id}: case {case} rejected by fn-dsa");
            let mut flipped = sig.clone();
            flipped[100] ^= 4;
            assert!(!key.verify(&flipped, &ctx, &hash, &request.hv), "{id}: case {case}, a flipped bit accepted");
        }
    }
}

/// Campaigns: the known answers, every refused class at both degrees and random requests, object code equal to
/// core's signer on every emulator and image that has it.
#[test]
fn campaigns_match_core() {
    for id in BUILDS {
        let cases = registry::find(id).unwrap().edge_cases + 6;
        for backend in [BackendKind::Qemu, BackendKind::Unicorn] {
            diff::assert_campaign_passes(id, backend, 0x51C4, cases);
        }
    }
}

/// The signer's own source (`kernels/arm/fndsa_sign/fndsa_sign.c`) with the attempt counter starting at 1, built as
/// the user's code (`--manifest`, Cortex-M7 image) with the kernels it calls: `pqhelium check` fails it on the known
/// answers with mismatches and no fault, and passes the unchanged source built the same way.
#[test]
fn a_signer_whose_attempt_counter_starts_at_one_fails_check() {
    let arm = Path::new(env!("CARGO_MANIFEST_DIR")).join("../kernels/arm");
    let dir = tempfile::tempdir().unwrap();
    let source = std::fs::read_to_string(arm.join("fndsa_sign/fndsa_sign.c")).unwrap();
    let name_line = "#define FS_SIGN fndsa_sign\n";
    let counter_line = "seed[FS_SEED_BYTES] = (uint8_t)counter;";
    for text in [name_line, counter_line] {
        assert_eq!(source.matches(text).count(), 1, "fndsa_sign.c: `{text}`");
    }
    let variants: Vec<(&str, String)> = [("unchanged", false), ("counter_from_one", true)]
        .into_iter()
        .map(|(name, mutated)| {
            let text = source.replace(name_line, &format!("#define FS_SIGN {name}_sign\n"));
            let text = if mutated {
                text.replace(counter_line, "seed[FS_SEED_BYTES] = (uint8_t)(counter + 1u);")
            } else {
                text
            };
            (name, text)
        })
        .collect();
    let kernels = [
        "fndsa_fpu/fft.c",
        "fndsa_fpu/fndsa_fpu_gm.c",
        "fndsa_fpu/ldl.c",
        "fndsa_fpu/poly.c",
        "fndsa_fpu/sampler_fp.c",
        "fndsa_fpu/softfloat.c",
        "fndsa_ntt/fndsa_ntt_scalar.c",
        "fndsa_ntt/fndsa_ntt_tables.c",
        "scheme/fips202.c",
        "keccak/keccak_f1600.c",
    ];
    let path = common::variants_manifest(
        dir.path(),
        "m7",
        &variants,
        &kernels,
        &["-std=c11", "-O2", "-ffreestanding", "-ffp-contract=off"],
        &["fndsa_sign", "keccak", "scheme"],
        &[("unchanged_sign", "fndsa.sign"), ("counter_from_one_sign", "fndsa.sign")],
    );
    let kats = (LOGN.len() as u32 * KAT_ENTRIES).to_string();
    let (code, out, err) =
        common::pqhelium(&["check", "--manifest", path.to_str().unwrap(), "--cases", &kats, "--jobs", "2"]);
    assert_eq!(code, 1, "{out}{err}");
    for (symbol, passes) in [("unchanged_sign", true), ("counter_from_one_sign", false)] {
        let (mismatches, faults, result) = common::manifest_check_row(&out, symbol, "fndsa.sign");
        assert_eq!(faults, "0", "{symbol}");
        let expected = if passes { ("0", "pass") } else { (kats.as_str(), "FAIL") };
        assert_eq!((mismatches.as_str(), result.as_str()), expected, "{symbol}");
    }
}
