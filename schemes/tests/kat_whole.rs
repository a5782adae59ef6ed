//! The known-answer suites of whole schemes on the guest (`kat --suite *-whole`): every suite passes with each
//! build on every image that holds one, and each entry check fails on a build or an expected value that is wrong.

use pqhelium_guest::backend::{Backend, Image, Limits};
use pqhelium_schemes::fndsa_on_guest::{Op, SignatureBuild};
use pqhelium_schemes::kat::{self, Extent, Fields, Provider};
use pqhelium_schemes::kat_whole::{self, WHOLE_SUITES};
use pqhelium_schemes::on_guest::{KemBuild, MLKEM768_PORTABLE};

fn open(image: Image) -> Box<dyn Backend> {
    image.open(Limits::default()).expect("the emulator starts")
}

/// The published entry `name` of `suite` (`vectors/*.kat`).
fn entry(suite: &str, name: &str) -> Fields<'static> {
    let text: &'static str = if suite.starts_with("fndsa") {
        include_str!("../../vectors/fndsa.kat")
    } else {
        include_str!("../../vectors/schemes.kat")
    };
    text.lines()
        .filter_map(kat::scheme_entry)
        .find(|(s, n, _)| *s == suite && n == name)
        .map(|(_, _, fields)| fields.expect("the entry parses"))
        .unwrap_or_else(|| panic!("no entry {suite} {name}"))
}

/// Every whole suite on every image, each with every build the image holds: the KEM suites in full everywhere, the
/// FN-DSA signature suite's degrees 9 and 10 in full on the M55 and two entries elsewhere (the portable build's
/// soft-float on unicorn takes seconds per entry), key generation on a few seeds (`kat --suite fndsa-keygen-whole`
/// runs all 200).
#[test]
fn every_whole_suite_passes_on_every_image() {
    const KEYGEN_SEEDS: &[&str] = &["logn9-test0", "logn9-test7", "logn10-test0"];
    const SIGNATURE_ENTRIES: &[&str] = &["logn9-j1", "logn10-j0"];
    let images = [(Provider::Qemu, Image::M55), (Provider::Qemu, Image::M85), (Provider::Unicorn, Image::M7)];
    for (suite, _) in WHOLE_SUITES {
        for (provider, image) in images {
            let extent = match suite {
                "fndsa-keygen-whole" => Extent::Only(KEYGEN_SEEDS),
                "fndsa-whole" if image != Image::M55 => Extent::Only(SIGNATURE_ENTRIES),
                _ => Extent::All,
            };
            let run = kat_whole::run_on(suite, provider, Some(image), extent);
            assert!(!run.results.is_empty(), "{suite} on {image}");
            for result in &run.results {
                assert!(result.passed, "{suite} on {image}: {} {}", result.name, result.detail);
            }
            if suite == "fndsa-whole" && image == Image::M55 {
                assert_eq!(run.results.len(), 20, "j = 0..9 at logn 9 and 10");
            }
            let builds = if image == Image::M7 { "portable" } else { "portable, mve" };
            let named = run.notes.iter().any(|n| n.ends_with(&format!("builds: {builds}")));
            assert!(named, "{suite} on {image}: {:?}", run.notes);
        }
    }
}

/// The planted ML-KEM-768 mutant (`selftest/mlkem768_ss_mutant.c`: one wrong byte in the shared secret) fails both
/// published entries: the count = 0 record and mlkem-native's stream.
#[test]
fn the_shared_secret_mutant_fails_both_mlkem768_entries() {
    let mutant = KemBuild { prefix: "mlkem768_ss_mutant_", ..MLKEM768_PORTABLE };
    let mut guest = open(Image::M55);
    for name in ["nist-kat-count0", "mlkem-native-stream"] {
        let f = entry("mlkem768", name);
        assert_eq!(kat_whole::check_kem_entry(guest.as_mut(), &MLKEM768_PORTABLE, &f), Ok(()), "{name}");
        let verdict = kat_whole::check_kem_entry(guest.as_mut(), &mutant, &f);
        assert!(verdict.is_err(), "{name}: the mutant passed");
    }
}

/// An FN-DSA entry checked against another entry's published value fails, for the signature and the key generation
/// suites (the checks compare what the guest made, not what the entry says).
#[test]
fn fndsa_entries_fail_on_another_entrys_value() {
    let build = SignatureBuild::find("portable").unwrap();
    let mut guest = open(Image::M55);
    let mut swapped = entry("fndsa", "logn9-j0");
    assert_eq!(kat_whole::check_signature_entry(guest.as_mut(), &build, &swapped), Ok(()));
    swapped.0.insert("value", entry("fndsa", "logn9-j1").get("value").unwrap().to_vec());
    assert!(kat_whole::check_signature_entry(guest.as_mut(), &build, &swapped).is_err());

    let symbol = build.symbol(Op::Keypair);
    let mut swapped = entry("fndsa-keygen", "logn9-test1");
    assert_eq!(kat_whole::check_keygen_entry(guest.as_mut(), symbol, &swapped), Ok(()));
    swapped.0.insert("fgFG_sha256", entry("fndsa-keygen", "logn9-test2").get("fgFG_sha256").unwrap().to_vec());
    assert!(kat_whole::check_keygen_entry(guest.as_mut(), symbol, &swapped).is_err());
}
