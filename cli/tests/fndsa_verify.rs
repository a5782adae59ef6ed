//! FN-DSA verification on the guest (`fndsa.verify`, `fndsa.verify.batch4` and their portable `.scalar` builds):
//! the signature KAT's signatures accepted, every malformed class rejected with no fault, the object code equal to
//! core's verdicts on campaigns that start with the edge cases, a batch that copies one request's verdict onto
//! another caught, and the verifier's own source with its norm check off by one, or with a verdict cache keyed on the
//! nonce, failing `pqhelium check` on the edge cases.

use std::path::Path;
use std::process::Command;
use std::time::Duration;

use pqhelium_core::fndsa::{self, HashId, ReferenceKernels};
use pqhelium_core::keccak;
use pqhelium_engine::diff::{self, Campaign};
use pqhelium_families::fndsa_verify::{self as contract, BATCH, Class, Request};
use pqhelium_families::{self as registry, case_rng};
use pqhelium_guest::backend::{Arg, Backend, BackendKind, Call, Limits};

mod common;

const SINGLE: [&str; 2] = ["fndsa.verify", "fndsa.verify.scalar"];
const BATCHES: [&str; 2] = ["fndsa.verify.batch4", "fndsa.verify.batch4.scalar"];
const LOGN: [u32; 2] = [9, 10];

fn limits() -> Limits {
    Limits { timeout: Duration::from_secs(60) }
}

fn open(backend: BackendKind) -> Box<dyn Backend> {
    backend.open(limits()).unwrap_or_else(|e| panic!("{backend} must start: {e}"))
}

/// The emulators that have a kernel's object code.
fn backends_of(id: &str) -> Vec<BackendKind> {
    let kernel = registry::find(id).unwrap_or_else(|| panic!("{id} is not registered"));
    [BackendKind::Qemu, BackendKind::Unicorn].into_iter().filter(|&b| kernel.runs_on(b)).collect()
}

fn single_args(request: &Request) -> Vec<Arg> {
    let bytes = request.framed();
    let len = bytes.len() as u32;
    vec![Arg::In(bytes), Arg::U32(len)]
}

fn batch_args(requests: &[Request], logn: u32) -> Vec<Arg> {
    let bytes: Vec<u8> = requests.iter().flat_map(Request::framed).collect();
    let len = bytes.len() as u32;
    vec![Arg::Out(BATCH), Arg::In(bytes), Arg::U32(len), Arg::U32(logn)]
}

/// The guest's verdict on one request.
fn verdict(backend: &mut dyn Backend, id: &str, request: &Request) -> u32 {
    let kernel = registry::find(id).unwrap();
    let output = backend.call(&Call::new(kernel.symbol, single_args(request)));
    output.unwrap_or_else(|e| panic!("{id} on {}: {e}", backend.name())).r0
}

/// The guest's four verdicts on a batch.
fn verdicts(backend: &mut dyn Backend, id: &str, requests: &[Request], logn: u32) -> Vec<u8> {
    let kernel = registry::find(id).unwrap();
    let output = backend.call(&Call::new(kernel.symbol, batch_args(requests, logn)));
    output.unwrap_or_else(|e| panic!("{id} on {}: {e}", backend.name())).buffers[0].clone()
}

/// The KAT value of entry (logn, j) from vectors/fndsa.kat.
fn kat_value(logn: u32, j: u32) -> Vec<u8> {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../vectors/fndsa.kat");
    let text = std::fs::read_to_string(path).unwrap();
    let name = format!("logn{logn}-j{j}");
    let line = text.lines().find(|l| l.split_whitespace().nth(1) == Some(&name)).unwrap_or_else(|| panic!("{name}"));
    let value = line.split_whitespace().find_map(|f| f.strip_prefix("value=")).unwrap();
    (0..value.len()).step_by(2).map(|i| u8::from_str_radix(&value[i..i + 2], 16).unwrap()).collect()
}

/// The signature KAT entry (logn, j) made by core (keys from seed_kgen, "message" signed in the context "domain",
/// pre-hashed with SHA3-256 for odd j), checked against its KAT value, as a verification request.
fn kat_request(logn: u32, j: u32) -> Request {
    let mut seeds = [0u8; 72];
    keccak::shake256(&[logn as u8, j as u8, 0, 0, 0], &mut seeds);
    let (seed_kgen, seed_sign) = seeds.split_at(32);
    let mut kernels = ReferenceKernels::default();
    let (sk, vk) = fndsa::keygen(&mut kernels, logn, seed_kgen.try_into().unwrap()).unwrap();
    let key = fndsa::SigningKey::decode_with(&mut kernels, &sk).unwrap();
    let message = b"message".to_vec();
    let (id, hv) =
        if j % 2 == 1 { (HashId::SHA3_256, keccak::sha3_256(&message).to_vec()) } else { (HashId::RAW, message) };
    let sig = key.sign(&mut kernels, seed_sign.try_into().unwrap(), b"domain", id, &hv).unwrap();
    assert_eq!(
        keccak::sha3_256(&[sk, vk.clone(), sig.clone()].concat()).to_vec(),
        kat_value(logn, j),
        "KAT {logn}/{j}"
    );
    Request { vk, sig, ctx: b"domain".to_vec(), id: id.0.to_vec(), hv }
}

/// The signature KAT's verification step on the guest: every entry at logn 9 and 10 accepted by each build, alone
/// and four at a time; the same entries with a bit of the nonce flipped or under another context rejected.
#[test]
fn signature_kat_entries_verify_on_the_guest() {
    for logn in LOGN {
        let entries: Vec<Request> = (0..10).map(|j| kat_request(logn, j)).collect();
        let mut flipped = entries[8].clone();
        flipped.sig[5] ^= 0x10;
        let mut other_context = entries[9].clone();
        other_context.ctx = b"domaine".to_vec();
        let groups: [(&[Request], [u8; BATCH]); 3] = [
            (&entries[0..4], [1; BATCH]),
            (&entries[4..8], [1; BATCH]),
            (&[entries[8].clone(), entries[9].clone(), flipped.clone(), other_context.clone()], [1, 1, 0, 0]),
        ];
        for backend in [BackendKind::Qemu, BackendKind::Unicorn] {
            let mut emulator = open(backend);
            for id in SINGLE.iter().filter(|id| backends_of(id).contains(&backend)) {
                for (j, entry) in entries.iter().enumerate() {
                    assert_eq!(verdict(emulator.as_mut(), id, entry), 1, "{id} on {backend}: KAT entry {logn}/{j}");
                }
                assert_eq!(verdict(emulator.as_mut(), id, &flipped), 0, "{id} on {backend}: flipped nonce");
                assert_eq!(verdict(emulator.as_mut(), id, &other_context), 0, "{id} on {backend}: other context");
            }
            for id in BATCHES.iter().filter(|id| backends_of(id).contains(&backend)) {
                for (requests, expected) in &groups {
                    assert_eq!(verdicts(emulator.as_mut(), id, requests, logn), expected, "{id} on {backend}, {logn}");
                }
            }
        }
    }
}

/// Every class of malformed request (and every invalid one) is rejected, with no fault, by each build on each
/// emulator that has it, at both degrees: alone, and in batches that mix it with valid requests (its verdict 0, the
/// valid ones' 1).
#[test]
fn every_malformed_class_rejects_without_fault() {
    let rejected: Vec<Class> = Class::ALL.into_iter().filter(|c| !c.accepted()).collect();
    assert!(rejected.iter().filter(|c| c.malformed()).count() >= 13);
    for backend in [BackendKind::Qemu, BackendKind::Unicorn] {
        let mut emulator = open(backend);
        for logn in LOGN {
            for (index, &class) in rejected.iter().enumerate() {
                let rng = &mut case_rng(0xF7, (index as u64) << 4 | u64::from(logn));
                let single = contract::request(rng, logn, class, false);
                for id in SINGLE.iter().filter(|id| backends_of(id).contains(&backend)) {
                    assert_eq!(verdict(emulator.as_mut(), id, &single), 0, "{id} on {backend}: {class:?}, logn {logn}");
                }
                let mut batch: Vec<Request> =
                    (0..BATCH).map(|_| contract::request(rng, logn, Class::Valid, true)).collect();
                let position = index % BATCH;
                batch[position] = contract::request(rng, logn, class, true);
                let mut expected = [1u8; BATCH];
                expected[position] = 0;
                for id in BATCHES.iter().filter(|id| backends_of(id).contains(&backend)) {
                    let got = verdicts(emulator.as_mut(), id, &batch, logn);
                    assert_eq!(got, expected, "{id} on {backend}: {class:?} at {position}, logn {logn}");
                }
            }
        }
    }
}

/// The object code equals core's verdicts on every backend that has it: all edge cases (each class at each degree,
/// framings that do not add up), then random cases.
#[test]
fn object_code_matches_core_on_edge_and_random_cases() {
    for id in SINGLE.into_iter().chain(BATCHES) {
        let kernel = registry::find(id).unwrap();
        let cases = kernel.edge_cases + 40;
        for backend in backends_of(id) {
            diff::assert_campaign_passes(id, backend, 0xF5DB, cases);
        }
    }
}

/// A batch whose second verdict is the first's (`kernels/arm/selftest/fndsa_verify_mutant.c`) is caught by the
/// differential engine on both emulators, while the correct build passes the same cases.
#[test]
fn a_batch_answering_request_2_with_request_1s_verdict_is_caught() {
    let wrong = registry::variant("fndsa.verify.batch4.scalar", |k| {
        k.symbol = Some("pqh_selftest_fndsa_verify_batch4_second_copies_first")
    });
    let right = registry::find("fndsa.verify.batch4.scalar").unwrap();
    for backend in [BackendKind::Qemu, BackendKind::Unicorn] {
        let run = |kernel| {
            let campaign =
                Campaign { limits: limits(), keep_going: true, ..Campaign::new(kernel, backend, 0xBAD, 40, 2) };
            diff::run(&campaign)
        };
        let caught = run(wrong);
        assert!(caught.mismatches() > 0 && caught.faults() == 0, "{backend}: {:?}", caught.failures);
        assert!(caught.failures.iter().all(|f| format!("{:?}", f.failure).contains("byte 1")), "{backend}");
        let clean = run(right);
        assert!(clean.passed(), "{backend}: {:?}", clean.failures);
    }
}

/// A change to the verifier's source (`kernels/arm/fndsa_verify/fndsa_verify_impl.h`): `from`, found exactly once,
/// becomes `to`.
struct Mutant {
    name: &'static str,
    from: &'static str,
    to: &'static str,
}

/// `<` for `<=` in the norm check: a squared norm of exactly floor(beta^2) rejected.
const NORM_STRICT: Mutant =
    Mutant { name: "norm_strict", from: "return norm <= fv_sqbeta(logn);", to: "return norm < fv_sqbeta(logn);" };

/// A verdict cache keyed on the nonce: request k answered with request k-1's verdict when their nonces are equal
/// (it accepts a signature over another message, under another key or with another s2).
const NONCE_CACHE: Mutant = Mutant {
    name: "nonce_cache",
    from: "        verdicts[i] = (uint8_t)(w[i].alive && fv_check_norm(&w[i]));\n",
    to: "        verdicts[i] = (uint8_t)(w[i].alive && fv_check_norm(&w[i]));
        if (i > 0 && w[i].alive && w[i - 1].alive) {
            uint32_t same = 1;
            for (uint32_t k = 0; k < FV_NONCE_BYTES; k++) {
                same &= w[i].nonce_mu[k] == w[i - 1].nonce_mu[k];
            }
            if (same) {
                verdicts[i] = verdicts[i - 1];
            }
        }
",
};

/// The source unchanged: the same build path passes.
const UNCHANGED: Mutant = Mutant { name: "unchanged", from: "", to: "" };

/// The portable build (`fndsa_verify_scalar.c`) of the verifier's source changed by `mutant`, its entry points
/// renamed `{name}_verify` and `{name}_batch4`, written to `dir`; returns the build's path.
fn write_build(dir: &Path, arm: &Path, mutant: &Mutant) -> String {
    let source = std::fs::read_to_string(arm.join("fndsa_verify/fndsa_verify_impl.h")).unwrap();
    let changed = if mutant.from.is_empty() {
        source
    } else {
        assert_eq!(source.matches(mutant.from).count(), 1, "{}: the line to change", mutant.name);
        source.replace(mutant.from, mutant.to)
    };
    let name = mutant.name;
    std::fs::write(dir.join(format!("{name}_impl.h")), changed).unwrap();
    let build = std::fs::read_to_string(arm.join("fndsa_verify/fndsa_verify_scalar.c")).unwrap();
    let renamed = [
        ("#include \"fndsa_verify_impl.h\"", format!("#include \"{name}_impl.h\"")),
        ("#define FV_VERIFY fndsa_verify_scalar", format!("#define FV_VERIFY {name}_verify")),
        ("#define FV_VERIFY_BATCH4 fndsa_verify_batch4_scalar", format!("#define FV_VERIFY_BATCH4 {name}_batch4")),
    ];
    let build = renamed.iter().fold(build, |text, (from, to)| {
        assert_eq!(text.matches(from).count(), 1, "fndsa_verify_scalar.c: `{from}`");
        text.replace(from, to)
    });
    let path = dir.join(format!("{name}.c"));
    std::fs::write(&path, build).unwrap();
    path.display().to_string()
}

/// The verifier's own source with its norm check off by one (`<` for `<=`), and with a verdict cache keyed on the
/// nonce, built as the user's code (`--manifest`, Cortex-M7 image) with the portable NTT and Keccak kernels: `pqhelium
/// check` fails both on the edge cases alone (the batch contract's, which include the single contract's bounds), with
/// mismatches and no fault, for the single and the batch entry points where the change applies; the unchanged source
/// built the same way passes.
#[test]
fn a_norm_check_off_by_one_and_a_verdict_cache_on_the_nonce_fail_check() {
    let arm = Path::new(env!("CARGO_MANIFEST_DIR")).join("../kernels/arm");
    let dir = tempfile::tempdir().unwrap();
    let mut sources: Vec<String> =
        [UNCHANGED, NORM_STRICT, NONCE_CACHE].iter().map(|m| write_build(dir.path(), &arm, m)).collect();
    for kernel in ["fndsa_ntt/fndsa_ntt_scalar.c", "fndsa_ntt/fndsa_ntt_tables.c", "keccak/keccak_f1600.c"] {
        sources.push(arm.join(kernel).display().to_string());
    }
    let quoted = |items: &[String]| items.iter().map(|s| format!("{s:?}")).collect::<Vec<_>>().join(", ");
    let flags: Vec<String> = ["-std=c11", "-O2", "-ffreestanding", "-ffp-contract=off"]
        .iter()
        .map(|f| f.to_string())
        .chain(["fndsa_verify", "keccak"].iter().map(|d| format!("-I{}", arm.join(d).display())))
        .collect();
    let mut manifest = format!("core = \"m7\"\nsources = [{}]\nflags = [{}]\n", quoted(&sources), quoted(&flags));
    let entries = [
        ("unchanged_verify", "fndsa.verify.scalar", true),
        ("unchanged_batch4", "fndsa.verify.batch4.scalar", true),
        ("norm_strict_verify", "fndsa.verify.scalar", false),
        ("norm_strict_batch4", "fndsa.verify.batch4.scalar", false),
        ("nonce_cache_batch4", "fndsa.verify.batch4.scalar", false),
    ];
    for (symbol, contract, _) in entries {
        manifest += &format!("\n[[kernel]]\nsymbol = \"{symbol}\"\ncontract = \"{contract}\"\n");
    }
    let path = dir.path().join("mutants.toml");
    std::fs::write(&path, manifest).unwrap();
    let cases = registry::find("fndsa.verify.batch4.scalar").unwrap().edge_cases.to_string();
    let out = Command::new(env!("CARGO_BIN_EXE_pqhelium"))
        .args(["check", "--manifest", path.to_str().unwrap(), "--cases", &cases, "--jobs", "2"])
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(1), "{text}{}", String::from_utf8_lossy(&out.stderr));
    for (symbol, contract, passes) in entries {
        let (mismatches, faults, result) = common::manifest_check_row(&text, symbol, contract);
        assert_eq!(faults, "0", "{symbol}");
        if passes {
            assert_eq!((mismatches.as_str(), result.as_str()), ("0", "pass"), "{symbol}");
        } else {
            assert!(mismatches != "0" && result == "FAIL", "{symbol}: {mismatches} {result}");
        }
    }
}

/// Instructions executed per verification of valid requests (the first four signature KAT entries of each degree) on
/// QEMU: each build one request at a time, and four in one batch; printed for docs/benchmarks.md with
/// `cargo test --release -p pqhelium --test fndsa_verify instructions -- --nocapture`. The MVE build must
/// take fewer instructions than the portable one, and its batch fewer than its four single verifications (the
/// batch fills the four lanes of the permutation that a single request fills one of).
#[test]
fn instructions_per_verification() {
    let mut emulator = open(BackendKind::Qemu);
    let mut measure = |symbol: &str, args: Vec<Arg>| {
        let output = emulator.call(&Call::new(symbol, args)).unwrap_or_else(|e| panic!("{symbol}: {e}"));
        let instructions = output.instructions;
        (output, instructions)
    };
    println!("| logn | build | one request | four single requests | one batch of four | four singles / batch |");
    println!("|---|---|---:|---:|---:|---:|");
    for logn in LOGN {
        let entries: Vec<Request> = (0..BATCH as u32).map(|j| kat_request(logn, j)).collect();
        let mut by_build = Vec::new();
        for (single, batch) in SINGLE.into_iter().zip(BATCHES) {
            let symbol = |id| registry::find(id).unwrap().symbol;
            let singles: u64 = entries
                .iter()
                .map(|entry| {
                    let (output, instructions) = measure(symbol(single), single_args(entry));
                    assert_eq!(output.r0, 1, "{single}: a KAT entry of logn {logn} rejected");
                    instructions
                })
                .sum();
            let (output, batched) = measure(symbol(batch), batch_args(&entries, logn));
            assert_eq!(output.buffers[0], [1; BATCH], "{batch}: KAT entries of logn {logn} rejected");
            println!(
                "| {logn} | {single} | {} | {singles} | {batched} | {:.2} |",
                singles / BATCH as u64,
                singles as f64 / batched as f64
            );
            by_build.push((singles, batched));
        }
        let ((mve, mve_batch), (scalar, _)) = (by_build[0], by_build[1]);
        assert!(mve_batch < mve, "logn {logn}: the MVE batch took {mve_batch} instructions, four singles {mve}");
        println!("logn {logn}: scalar build / MVE build = {:.2}", scalar as f64 / mve as f64);
        assert!(mve < scalar, "logn {logn}: the MVE build took {mve} instructions, the portable one {scalar}");
    }
}
