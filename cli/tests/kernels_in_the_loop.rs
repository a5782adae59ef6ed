//! Known answers with our object code in the loop: the ML-KEM-768 KAT (NIST and mlkem-native's stream), the X-Wing
//! draft vectors and FN-DSA signature KAT entries pass with the NTT kernels as object code on QEMU (MVE kernels,
//! Cortex-M55 image) and on unicorn (portable C, Cortex-M7 image), ML-KEM-768 and X-Wing with Keccak-f\[1600\] too,
//! and the object code served every kernel the schemes need. A provider wired to a wrong kernel fails the known answers, on its values or on the kernel's
//! contract, with a message that names the kernel.

use pqhelium_families as registry;
use pqhelium_guest::backend::BackendKind;
use pqhelium_schemes::kat::{self, Extent, Provider, SuiteRun};
use pqhelium_schemes::providers::fndsa_ntt::{self, FndsaNttProvider};
use pqhelium_schemes::providers::mlkem::{self, MlkemProvider};

const EMULATORS: [(Provider, BackendKind); 2] =
    [(Provider::Qemu, BackendKind::Qemu), (Provider::Unicorn, BackendKind::Unicorn)];

/// The ML-KEM kernels each emulator runs (forward, inverse, the k = 3 inner product): the MVE kernels where there
/// is MVE. `tests/mlkem_poly.rs` checks the rest of the polynomial kernels in the loop.
fn mlkem_ids(kind: BackendKind) -> [&'static str; 3] {
    match kind {
        BackendKind::Qemu => ["mlkem.ntt.fwd", "mlkem.ntt.inv", "mlkem.dot.k3.mve"],
        _ => ["mlkem.ntt.fwd.scalar", "mlkem.ntt.inv.scalar", "mlkem.dot.k3.scalar"],
    }
}

/// The FN-DSA NTT kernel of `op` (fwd, inv, pointwise) for n = 512 or 1024 each emulator runs.
fn fndsa_id(kind: BackendKind, n: usize, op: &str) -> String {
    let suffix = if kind == BackendKind::Qemu { "" } else { ".scalar" };
    format!("fndsa.ntt{n}.{op}{suffix}")
}

fn symbol(id: &str) -> &'static str {
    registry::find(id).unwrap_or_else(|| panic!("{id} is registered")).symbol
}

fn assert_passed(run: &SuiteRun) {
    assert!(!run.results.is_empty(), "{} with {}: no entries ran", run.suite, run.provider.name());
    for r in &run.results {
        assert!(r.passed, "{} {} with {}: {}", r.suite, r.name, r.provider.name(), r.detail);
    }
}

/// Every kernel of `ids` served calls as object code (guest instructions counted).
fn assert_served(run: &SuiteRun, ids: &[&str]) {
    for id in ids {
        let count = run.served.get(symbol(id)).copied().unwrap_or_default();
        assert!(count.calls > 0, "{} with {}: {id} served no call", run.suite, run.provider.name());
        assert!(count.instructions > 0, "{} with {}: {id} executed nothing", run.suite, run.provider.name());
    }
}

/// The ML-KEM-768 KAT (the NIST record and the mlkem-native stream) and the X-Wing draft's three vectors.
#[test]
fn mlkem768_kat_and_xwing_vectors_with_the_ntt_object_code() {
    for (suite, entries) in [("mlkem768", 2), ("xwing", 3)] {
        for (provider, kind) in EMULATORS {
            let run = kat::run(suite, provider, Extent::All);
            assert_passed(&run);
            assert_eq!(run.results.len(), entries, "{suite}");
            assert_served(&run, &mlkem_ids(kind));
            assert_served(&run, &["keccak.f1600"]);
            assert!(!run.notes.iter().any(|n| n.contains("Keccak")), "{:?}", run.notes);
        }
    }
}

/// One entry at each degree the NTT kernels serve, and one at logn 2, which they do not: its NTT calls go to the
/// reference, and the run says so.
#[test]
fn fndsa_signature_kat_with_the_ntt_and_fp64_object_code() {
    const ENTRIES: &[&str] = &["logn2-j0", "logn9-j0", "logn10-j1"];
    for (provider, kind) in EMULATORS {
        let run = kat::run("fndsa", provider, Extent::Only(ENTRIES));
        assert_passed(&run);
        assert_eq!(run.results.len(), ENTRIES.len());
        let ntt: Vec<String> =
            [512, 1024].iter().flat_map(|&n| ["fwd", "inv", "pointwise"].map(|op| fndsa_id(kind, n, op))).collect();
        assert_served(&run, &ntt.iter().map(String::as_str).collect::<Vec<_>>());
        assert_served(&run, &["fndsa.fpu.fft", "fndsa.fpu.ifft", "fndsa.fpu.ldl", "fndsa.fpu.sampler_centre"]);
        assert!(
            run.notes.iter().any(|n| n.contains("on the reference, where no kernel exists") && n.contains("logn 2:")),
            "{:?}",
            run.notes
        );
    }
}

fn failures(run: &SuiteRun) -> String {
    run.results.iter().filter(|r| !r.passed).map(|r| format!("{}: {}", r.name, r.detail)).collect::<Vec<_>>().join("\n")
}

/// The forward NTT where the inverse belongs: its outputs break the inverse's output bound, and the provider stops
/// with a message naming the kernel and the bound.
#[test]
fn a_forward_ntt_in_place_of_the_inverse_fails_the_mlkem_kat() {
    for (provider, kind) in EMULATORS {
        let mut kernels = MlkemProvider::open(kind).expect("emulator starts");
        let [forward, inverse, _] = mlkem_ids(kind);
        kernels.rewire(mlkem::Op::InvNtt, registry::variant(inverse, |k| k.symbol = Some(symbol(forward))));
        let run = kat::run_mlkem_with("mlkem768", provider, &kernels, Extent::Only(&["nist-kat-count0"]));
        assert!(!run.passed(), "{} passed with the forward NTT as the inverse", provider.name());
        let text = failures(&run);
        assert!(text.contains("kernel call failed") && text.contains(inverse), "{text}");
        assert!(text.contains("outside its bound"), "{text}");
    }
}

/// On QEMU, the portable forward NTT in place of the MVE one: its outputs stay inside the MVE kernel's bounds, but
/// in FIPS order where the MVE order is expected, so only the known answers can catch it, and do.
#[test]
fn a_kernel_with_the_wrong_storage_order_fails_the_mlkem_kat_on_its_values() {
    let mut kernels = MlkemProvider::open(BackendKind::Qemu).expect("QEMU starts");
    let wrong = registry::variant("mlkem.ntt.fwd", |k| k.symbol = Some(symbol("mlkem.ntt.fwd.scalar")));
    kernels.rewire(mlkem::Op::Ntt, wrong);
    let run = kat::run_mlkem_with("mlkem768", Provider::Qemu, &kernels, Extent::Only(&["nist-kat-count0"]));
    assert!(!run.passed());
    assert_eq!(kernels.tally().check(), Ok(()), "every call kept its contract");
    let text = failures(&run);
    assert!(text.contains("expected"), "a value differs: {text}");
}

/// A symbol missing from the image fails the known answer with the emulator's error, not a panic.
#[test]
fn a_missing_kernel_fails_the_xwing_vectors_with_the_symbol() {
    for (provider, kind) in EMULATORS {
        let mut kernels = MlkemProvider::open(kind).expect("emulator starts");
        let [_, _, dot] = mlkem_ids(kind);
        let missing = registry::variant(dot, |k| k.symbol = Some("pqh_no_such_kernel"));
        kernels.rewire(mlkem::Op::Poly(registry::mlkem_poly::Op::Dot), missing);
        let run = kat::run_mlkem_with("xwing", provider, &kernels, Extent::All);
        let vectors = run.results.iter().filter(|r| r.name.starts_with("draft10-"));
        for r in vectors {
            assert!(!r.passed && r.detail.contains("pqh_no_such_kernel"), "{}: {}", r.name, r.detail);
        }
        let text = failures(&run);
        assert!(text.contains("pqh_no_such_kernel was never called"), "{text}");
    }
}

/// FN-DSA likewise: the forward NTT of n = 512 in place of the inverse fails the signature KAT entry (on QEMU on the
/// MVE inverse's output bound; the portable kernels share theirs, [0, q-1], so on unicorn on the values).
#[test]
fn a_forward_ntt_in_place_of_the_inverse_fails_the_fndsa_kat() {
    for (provider, kind) in EMULATORS {
        let mut ntt = FndsaNttProvider::open(kind).expect("emulator starts");
        let (inverse, forward) = (fndsa_id(kind, 512, "inv"), symbol(&fndsa_id(kind, 512, "fwd")));
        ntt.rewire(fndsa_ntt::Op::Intt, 9, registry::variant(&inverse, |k| k.symbol = Some(forward)));
        let run = kat::run_fndsa_with(provider, ntt, None, Extent::Only(&["logn9-j0"]));
        assert!(!run.passed(), "{} passed with the forward NTT as the inverse", provider.name());
        let text = failures(&run);
        if kind == BackendKind::Qemu {
            assert!(text.contains("kernel call failed") && text.contains("outside its bound"), "{text}");
        }
    }
}
