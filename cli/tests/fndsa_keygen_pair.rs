//! Whole FN-DSA key generation on the guest (`fndsa.keygen.pair` on the MVE FFT and VDIV divisions,
//! `fndsa.keygen.pair.scalar` portable): the keys equal to the fn-dsa crate's (an oracle independent of core),
//! campaigns against core, and the generator's own source with the sampler's sign convention flipped failing
//! `pqhelium check`. The published key generation and signature KATs on the guest are `kat --suite
//! fndsa-keygen-whole` and `fndsa-whole` (schemes/tests/kat_whole.rs).

use std::path::Path;
use std::time::Duration;

use fn_dsa::{KeyPairGenerator as _, KeyPairGeneratorStandard, sign_key_size, vrfy_key_size};
use pqhelium_core::fndsa::codec;
use pqhelium_core::keccak;
use pqhelium_engine::diff;
use pqhelium_families::fndsa_keygen_pair::LOGN;
use pqhelium_families::fndsa_scheme::Replay;
use pqhelium_families::fndsa_sign::KAT_ENTRIES;
use pqhelium_families::{self as registry};
use pqhelium_guest::backend::{Arg, Backend, BackendKind, Call, Image, Limits};

mod common;

/// Each build with the images that hold it.
const BUILDS: [(&str, &[Image]); 2] = [
    ("fndsa.keygen.pair", &[Image::M55, Image::M85]),
    ("fndsa.keygen.pair.scalar", &[Image::M55, Image::M85, Image::M7]),
];

fn open(image: Image) -> Box<dyn Backend> {
    image.open(Limits { timeout: Duration::from_secs(120) }).unwrap_or_else(|e| panic!("{image} must start: {e}"))
}

/// The guest's (signing key, verifying key) of a seed, both empty when it returns 0.
fn guest_keygen(backend: &mut dyn Backend, id: &str, seed: &[u8], logn: u32) -> (Vec<u8>, Vec<u8>) {
    let (sk_len, vk_len) = (codec::signing_key_size(logn), codec::verifying_key_size(logn));
    let args =
        vec![Arg::Out(sk_len), Arg::Out(vk_len), Arg::In(seed.to_vec()), Arg::U32(seed.len() as u32), Arg::U32(logn)];
    let call = Call::new(registry::find(id).unwrap().symbol, args);
    let output = backend.call(&call).unwrap_or_else(|e| panic!("{id} on {}: {e}", backend.name()));
    match output.r0 {
        1 => (output.buffers[0].clone(), output.buffers[1].clone()),
        _ => (Vec::new(), Vec::new()),
    }
}

/// Keys from random 32-byte seeds equal the fn-dsa crate's (its key pair generator reads exactly the seed).
#[test]
fn guest_keys_are_the_fn_dsa_crates() {
    let mut emulator = open(Image::M55);
    for (index, logn) in LOGN.into_iter().cycle().take(4).enumerate() {
        let seed = keccak::sha3_256(format!("crate seed {index}").as_bytes());
        let (mut sk, mut vk) = (vec![0; sign_key_size(logn)], vec![0; vrfy_key_size(logn)]);
        KeyPairGeneratorStandard::default().keygen(logn, &mut Replay(&seed), &mut sk, &mut vk);
        for (id, _) in BUILDS {
            assert_eq!(guest_keygen(emulator.as_mut(), id, &seed, logn), (sk.clone(), vk.clone()), "{id}: logn {logn}");
        }
    }
}

/// Campaigns: the known answers' key generations, the refused degrees and random seeds, object code equal to core
/// on both emulators.
#[test]
fn campaigns_match_core() {
    for (id, images) in BUILDS {
        let cases = registry::find(id).unwrap().edge_cases + 4;
        let backends: &[BackendKind] =
            if images.contains(&Image::M7) { &[BackendKind::Qemu, BackendKind::Unicorn] } else { &[BackendKind::Qemu] };
        for &backend in backends {
            diff::assert_campaign_passes(id, backend, 0x6E7, cases);
        }
    }
}

/// The generator's own source (`kernels/arm/fndsa_keygen/keygen.c`) with the sign of the sampled coefficients
/// flipped (still a valid key, another one), built as the user's code (`--manifest`, Cortex-M55 image) with the
/// kernels it calls: `pqhelium check` fails it on every known answer with no fault, and passes the unchanged source
/// built the same way.
#[test]
fn a_generator_with_the_sign_convention_flipped_fails_check() {
    let arm = Path::new(env!("CARGO_MANIFEST_DIR")).join("../kernels/arm");
    let dir = tempfile::tempdir().unwrap();
    let source = std::fs::read_to_string(arm.join("fndsa_keygen/keygen.c")).unwrap();
    let sign_line = "uint32_t negate = 0u - (u & 1u);";
    assert_eq!(source.matches(sign_line).count(), 1, "keygen.c: `{sign_line}`");
    let variants: Vec<(&str, String)> = [("unchanged", false), ("sign_flipped", true)]
        .into_iter()
        .map(|(name, mutated)| {
            let text = source.replace("fndsa_keygen_pair_", &format!("{name}_keygen_"));
            (name, if mutated { text.replace(sign_line, "uint32_t negate = (u & 1u) - 1u;") } else { text })
        })
        .collect();
    let kernels = [
        "fndsa_keygen/keygen_primes.c",
        "fndsa_keygen/fft_q32_scalar.c",
        "fndsa_keygen/fft_q32_gm.c",
        "fndsa_keygen/div_scalar.c",
        "fndsa_ntt/fndsa_ntt_scalar.c",
        "fndsa_ntt/fndsa_ntt_tables.c",
        "scheme/fips202.c",
        "keccak/keccak_f1600.c",
    ];
    let contract = "fndsa.keygen.pair.scalar";
    let path = common::variants_manifest(
        dir.path(),
        "m55",
        &variants,
        &kernels,
        &["-std=c11", "-O2", "-ffreestanding"],
        &["fndsa_keygen", "keccak", "scheme"],
        &[("unchanged_keygen_scalar", contract), ("sign_flipped_keygen_scalar", contract)],
    );
    let kats = LOGN.len() as u32 * KAT_ENTRIES;
    let cases = registry::find("fndsa.keygen.pair.scalar").unwrap().edge_cases.to_string();
    let (code, out, err) =
        common::pqhelium(&["check", "--manifest", path.to_str().unwrap(), "--cases", &cases, "--jobs", "2"]);
    assert_eq!(code, 1, "{out}{err}");
    for (symbol, passes) in [("unchanged_keygen_scalar", true), ("sign_flipped_keygen_scalar", false)] {
        let (mismatches, faults, result) = common::manifest_check_row(&out, symbol, "fndsa.keygen.pair.scalar");
        assert_eq!(faults, "0", "{symbol}");
        let expected = if passes { ("0".to_string(), "pass") } else { (kats.to_string(), "FAIL") };
        assert_eq!((mismatches, result.as_str()), expected, "{symbol}");
    }
}
