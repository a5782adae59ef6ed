//! The ML-KEM-768 polynomial kernels around the NTT (`kernels/arm/mlkem_ntt/mlkem_poly*.c`): each passes its edge
//! cases and random cases three ways on every image that has it (MVE: M55 and M85 on QEMU; portable: the three), a
//! compression that rounds one value up too early is caught by the edge cases alone, and the ML-KEM-768 KAT and the
//! X-Wing vectors pass on the M85 image with every kernel served.

use std::time::Duration;

use pqhelium_engine::diff::{self, Campaign};
use pqhelium_families::{self as registry, Kernel, mlkem_poly};
use pqhelium_guest::backend::{BackendKind, Image, Limits};
use pqhelium_schemes::kat::{self, Extent, Provider};
use pqhelium_schemes::providers::mlkem::MlkemProvider;

const SEED: u64 = 0x0768_C0DE;
/// Random cases after the edge cases.
const RANDOM: u64 = 40;

fn limits() -> Limits {
    Limits { timeout: Duration::from_secs(60) }
}

fn campaign(kernel: &'static Kernel, image: Image, cases: u64) -> diff::CampaignResult {
    diff::run(&Campaign {
        image: Some(image),
        limits: limits(),
        keep_going: true,
        shrink_budget: 0,
        ..Campaign::new(kernel, image.backend(), SEED, cases, 2)
    })
}

fn kernel(id: &str) -> &'static Kernel {
    registry::find(id).unwrap_or_else(|| panic!("{id} is registered"))
}

#[test]
fn every_polynomial_kernel_agrees_with_model_and_reference_on_every_image() {
    for op in mlkem_poly::Op::ALL {
        for (mve, images) in [(true, &[Image::M55, Image::M85][..]), (false, &Image::ALL[..])] {
            let k = kernel(&mlkem_poly::kernel_id(op, mve));
            for &image in images {
                let result = campaign(k, image, k.edge_cases + RANDOM);
                assert!(result.passed(), "{} on {image}: {:?} {:?}", k.id, result.setup_error, result.failures);
            }
        }
    }
}

/// Compress_10 rounding one value up too early (`kernels/arm/selftest/mlkem_compress_mutant.c`: x = 1250, just
/// below the boundary of 385) is caught by the contract's edge cases alone, on every image.
#[test]
fn a_compression_rounding_up_at_one_boundary_is_caught_by_the_edge_cases() {
    let right = kernel("mlkem.compress.du10.scalar");
    let wrong = registry::variant(right.id, |k| k.symbol = Some("pqh_selftest_mlkem_compress_du10_round_up"));
    for image in Image::ALL {
        let caught = campaign(wrong, image, right.edge_cases);
        assert!(caught.mismatches() > 0 && caught.faults() == 0, "{image}: {:?}", caught.failures);
        assert!(campaign(right, image, right.edge_cases).passed(), "{image}");
    }
}

/// The KAT suites with the kernels of the M85 image (clang's build), every one of them served.
#[test]
fn mlkem768_kat_and_xwing_vectors_on_the_m85_image() {
    for (suite, extent) in [("mlkem768", Extent::Only(&["nist-kat-count0"])), ("xwing", Extent::All)] {
        let kernels = MlkemProvider::open_image(Image::M85).expect("QEMU starts");
        let run = kat::run_mlkem_with(suite, Provider::Qemu, &kernels, extent);
        for r in &run.results {
            assert!(r.passed, "{suite} {}: {}", r.name, r.detail);
        }
        let required = kernels.required();
        assert_eq!(required.len(), 16, "ntt, inv_ntt, to_mve and the 13 polynomial kernels");
        for symbol in required {
            let count = run.served.get(symbol).copied().unwrap_or_default();
            assert!(count.calls > 0 && count.instructions > 0, "{suite}: {symbol} served nothing");
        }
    }
}

/// The portable kernels need no order conversion: on unicorn no import runs, and the MVE build's one import kernel
/// is the only conversion in its list.
#[test]
fn only_the_samplers_outputs_are_converted() {
    let portable = MlkemProvider::open(BackendKind::Unicorn).expect("unicorn starts");
    assert!(portable.required().iter().all(|s| s.ends_with("_scalar")), "{:?}", portable.required());
    let mve = MlkemProvider::open_image(Image::M55).expect("QEMU starts");
    let conversions: Vec<_> =
        mve.required().into_iter().filter(|s| s.contains("to_mve") || s.contains("from_mve")).collect();
    assert_eq!(conversions, ["mlkem_to_mve"]);
}

/// `pqhelium kat --image`: the X-Wing vectors with the M85 image's kernels; an image whose emulator contradicts the
/// provider, or a suite without image support, is a usage error.
#[test]
fn kat_takes_the_image_of_the_mlkem_kernels() {
    let pqhelium = |args: &[&str]| {
        std::process::Command::new(env!("CARGO_BIN_EXE_pqhelium")).args(args).output().expect("run pqhelium")
    };
    let out = pqhelium(&["kat", "--suite", "xwing", "--image", "m85"]);
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "{text}");
    assert!(text.contains("xwing with qemu (m85): 3/3 passed") && text.contains("mlkem_matvec_k3_mve"), "{text}");
    for bad in [&["kat", "--image", "m7", "--provider", "qemu"][..], &["kat", "--suite", "fndsa", "--image", "m85"]] {
        let out = pqhelium(bad);
        assert_eq!(out.status.code(), Some(2), "{bad:?}");
        assert!(String::from_utf8_lossy(&out.stderr).contains("--image"), "{bad:?}");
    }
}
