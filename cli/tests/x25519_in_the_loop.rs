//! Known answers with the X25519 kernels as object code: RFC 7748 (section 5.2, the iterated test, section 6.1) and
//! the X-Wing draft vectors pass on QEMU with the M55 and the M85 image and on unicorn with the M7 image, and the
//! object code served every X25519 kernel the suites need (`pqhelium kat --suite rfc7748|xwing --image ...`). A
//! wrong kernel in the provider fails them; `--image` refuses what it cannot do with exit status 2.

use std::process::Command;

use pqhelium_core::x25519::{self, FieldArithmetic};
use pqhelium_families as registry;
use pqhelium_guest::backend::Image;
use pqhelium_schemes::kat::{self, Extent, Provider, SuiteRun};
use pqhelium_schemes::providers::x25519::{Op, X25519Provider};

const IMAGES: [(Provider, Image); 3] =
    [(Provider::Qemu, Image::M55), (Provider::Qemu, Image::M85), (Provider::Unicorn, Image::M7)];

fn symbol(id: &str) -> &'static str {
    registry::find(id).unwrap_or_else(|| panic!("{id} is registered")).symbol
}

fn assert_passed(run: &SuiteRun) {
    assert!(!run.results.is_empty(), "{} with {}: no entries ran", run.suite, run.provider.name());
    for r in &run.results {
        assert!(r.passed, "{} {} with {} ({:?}): {}", r.suite, r.name, r.provider.name(), run.image, r.detail);
    }
}

fn assert_served(run: &SuiteRun, ids: &[&str]) {
    for id in ids {
        let count = run.served.get(symbol(id)).copied().unwrap_or_default();
        assert!(count.calls > 0 && count.instructions > 0, "{} on {:?}: {id} served nothing", run.suite, run.image);
    }
}

/// The swap each image runs: MVE where there is MVE.
fn cswap(image: Image) -> &'static str {
    if image == Image::M7 { "x25519.cswap" } else { "x25519.cswap.mve" }
}

#[test]
fn rfc7748_with_the_x25519_object_code_on_every_image() {
    for (provider, image) in IMAGES {
        // Quick: every entry but the 1,000 iterations (`kat` runs them: tests/cli.rs, below).
        let run = kat::run_on("rfc7748", provider, Some(image), Extent::Quick);
        assert_passed(&run);
        assert_eq!(run.results.len(), 4, "{image}");
        assert_eq!(run.image, Some(image));
        assert_served(&run, &["x25519.scalarmult", "x25519.base", "x25519.ladder_step", "x25519.fe.inv", cswap(image)]);
    }
}

#[test]
fn xwing_vectors_with_the_x25519_and_mlkem_object_code_on_every_image() {
    for (provider, image) in IMAGES {
        let run = kat::run_on("xwing", provider, Some(image), Extent::All);
        assert_passed(&run);
        assert_eq!(run.results.len(), 3, "{image}");
        let x25519 = ["x25519.base", "x25519.scalarmult", "x25519.inv2", "x25519.ladder_step", "x25519.fe.mul"];
        assert_served(&run, &x25519);
        assert_served(&run, &[cswap(image)]);
        let mlkem = if image == Image::M7 { "mlkem.matvec.k3.scalar" } else { "mlkem.matvec.k3.mve" };
        assert_served(&run, &[mlkem]);
    }
}

/// The multiplication that drops a carry (the selftest mutant) in the provider: the X25519 values go wrong.
#[test]
fn a_wrong_multiplication_fails_the_rfc7748_ladder() {
    let mut field = X25519Provider::open(Image::M55).expect("QEMU starts");
    let wrong = registry::variant("x25519.fe.mul", |k| k.symbol = Some("pqh_selftest_x25519_fe_mul_carry_dropped"));
    field.rewire(Op::Mul, wrong);
    let run = kat::run_rfc7748_with("rfc7748", Provider::Qemu, &field, Extent::Only(&["rfc7748-5.2-1"]));
    assert!(!run.passed(), "passed with a wrong multiplication");
    let detail = &run.results[0].detail;
    assert!(detail.contains("expected"), "{detail}");
}

/// The paired inversion served by `x25519.inv2` is zero-safe through the provider, as the reference's.
#[test]
fn the_provider_pairs_inversions_zero_safely() {
    let field = X25519Provider::open(Image::M85).expect("QEMU starts");
    let f = &field;
    let (zero, three) = (f.small(0), f.small(3));
    let inverse = x25519::Reference.encode(&x25519::Reference.invert(&x25519::Reference.small(3)));
    let (a, b) = f.invert_pair(&three, &zero);
    assert_eq!((f.encode(&a), f.encode(&b)), (inverse, [0; 32]));
    assert_eq!(field.tally().calls_of(symbol("x25519.inv2")), 1);
}

fn pqhelium(args: &[&str]) -> (Option<i32>, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_pqhelium")).args(args).output().expect("pqhelium runs");
    (out.status.code(), String::from_utf8_lossy(&out.stdout).into_owned() + &String::from_utf8_lossy(&out.stderr))
}

/// `kat --image m85` runs the whole RFC 7748 suite (the 1,000 iterations too) on the M85 image and prints the calls.
#[test]
fn kat_takes_an_image() {
    let (code, out) = pqhelium(&["kat", "--suite", "rfc7748", "--image", "m85"]);
    assert_eq!(code, Some(0), "{out}");
    assert!(out.contains("rfc7748 with qemu (m85): 5/5 passed"), "{out}");
    assert!(out.contains("x25519_scalarmult 1005"), "{out}");
    for bad in [
        &["kat", "--suite", "fndsa", "--image", "m85"][..],
        &["kat", "--suite", "rfc7748", "--image", "m7", "--provider", "qemu"],
    ] {
        let (code, out) = pqhelium(bad);
        assert_eq!(code, Some(2), "{bad:?}: {out}");
        assert_eq!(out.lines().count(), 1, "{bad:?}: one line: {out}");
    }
}
