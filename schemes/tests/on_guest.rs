//! Whole ML-KEM-768 and X-Wing on the guest through the pqm4 API: the guest's NIST DRBG against the host's (an
//! independent implementation, on the `aes` crate), the published count = 0 record of the NIST KAT, the X-Wing
//! draft's test vectors, and the host reference for further KAT seeds, on each image.

use pqhelium_core::drbg::NistDrbg;
use pqhelium_guest::backend::{Arg, Backend, Call, Image, Limits};
use pqhelium_schemes::on_guest::{self, MLKEM768_MVE, MLKEM768_PORTABLE, STACK_WINDOW, XWING_MVE, XWING_PORTABLE};
use pqhelium_schemes::scheme_ct::{self, OpVerdict, Randomness};

fn open(image: Image) -> Box<dyn Backend> {
    image.open(Limits::default()).expect("the emulator starts")
}

/// randombytes after randombytes_init: several lengths, partial blocks and an empty draw, each followed by the
/// DRBG's update, byte for byte as the host's DRBG.
fn drbg_matches_host(image: Image) {
    let mut guest = open(image);
    let seed: [u8; 48] = std::array::from_fn(|i| (7 * i + 3) as u8);
    let mut host = NistDrbg::new(&seed);
    let mut calls = vec![Call::new("randombytes_init", vec![Arg::In(seed.to_vec()), Arg::U32(0), Arg::U32(256)])];
    let lengths = [48usize, 1, 0, 33, 64];
    for &n in &lengths {
        calls.push(Call::new("randombytes", vec![Arg::Out(n), Arg::U32(n as u32)]));
    }
    let results = guest.run_batch(&calls);
    for (&n, result) in lengths.iter().zip(&results[1..]) {
        let out = result.as_ref().expect("randombytes runs");
        let mut expected = vec![0u8; n];
        host.fill(&mut expected);
        assert_eq!(out.buffers[0], expected, "{image}: randombytes({n})");
    }
}

/// The first `entries` NIST KAT entries: every output equal to the host reference's, decapsulation giving the shared
/// secret back, and entry 0 the published record.
fn kat_entries(image: Image, entries: usize) {
    let mut guest = open(image);
    for (i, seed) in on_guest::kat_seeds(entries).iter().enumerate() {
        let run = on_guest::run_entry(guest.as_mut(), &MLKEM768_PORTABLE, seed).expect("the entry runs");
        let expected = on_guest::mlkem768_reference(seed);
        let got = &run.values;
        for (name, a, b) in
            [("pk", &got.pk, &expected.pk), ("sk", &got.sk, &expected.sk), ("ct", &got.ct, &expected.ct)]
        {
            assert!(a == b, "{image}: entry {i}: {name} differs from the host reference");
        }
        assert_eq!(hex::encode(&got.ss), hex::encode(&expected.ss), "{image}: entry {i}: ss");
        assert_eq!(run.decapsulated, run.values.ss, "{image}: entry {i} decapsulation");
        if i == 0 {
            assert!(on_guest::is_mlkem768_record0(&run.values), "{image}: the published count = 0 record");
        }
        for op in &run.ops {
            assert!(op.instructions > 0 && op.stack > 0 && !op.stack_saturated, "{image}: {op:?}");
        }
    }
}

#[test]
fn drbg_matches_the_host_drbg_m55() {
    drbg_matches_host(Image::M55);
}

#[test]
fn drbg_matches_the_host_drbg_m7() {
    drbg_matches_host(Image::M7);
}

#[test]
fn mlkem768_kat_entries_m55() {
    kat_entries(Image::M55, 2);
}

#[test]
fn mlkem768_kat_entries_m85() {
    kat_entries(Image::M85, 1);
}

#[test]
fn mlkem768_kat_entries_m7() {
    kat_entries(Image::M7, 1);
}

/// A corrupted ciphertext decapsulates to the implicit-rejection key J(z || c), as the host reference computes it.
#[test]
fn corrupted_ciphertext_is_implicitly_rejected_m55() {
    let mut guest = open(Image::M55);
    let seed = on_guest::kat_seeds(1)[0];
    let reference = on_guest::mlkem768_reference(&seed);
    let mut ct = reference.ct.clone();
    ct[100] ^= 0x01;
    let kem = pqhelium_core::mlkem::MlKem::reference(pqhelium_core::mlkem::ML_KEM_768);
    let expected = kem.decaps(&reference.sk, &ct).unwrap();
    assert_ne!(expected[..], reference.ss[..]);
    let ss = on_guest::decapsulate(guest.as_mut(), &MLKEM768_PORTABLE, &ct, &reference.sk).expect("runs");
    assert_eq!(ss, expected);
}

/// The stack probes report what a function used: nothing between them reads as 0, and a planted function that uses
/// exactly n bytes reads as n; a window that is all used reads as saturated, not as a smaller figure.
#[test]
fn stack_probes_measure_a_planted_frame() {
    let mut guest = open(Image::M55);
    let mut probed = |bytes: Option<u32>| {
        let mut calls = vec![Call::new("pqh_stack_paint", vec![Arg::U32(STACK_WINDOW)])];
        calls.extend(bytes.map(|n| Call::new("pqh_selftest_stack_use", vec![Arg::U32(n)])));
        calls.push(Call::new("pqh_stack_scan", vec![]));
        let results = guest.run_batch(&calls);
        let painted = results[0].as_ref().unwrap().r0;
        (painted, results.last().unwrap().as_ref().unwrap().r0)
    };
    assert_eq!(probed(None), (STACK_WINDOW, 0));
    for n in [4, 200, 4096] {
        assert_eq!(probed(Some(n)), (STACK_WINDOW, n));
    }
    assert_eq!(probed(Some(STACK_WINDOW)), (STACK_WINDOW, STACK_WINDOW));
}

/// The planted mutant (selftest/mlkem768_ss_mutant.c: our build with one wrong byte in the shared secret that
/// encapsulation returns) fails the KAT: the published record and the host reference both disagree with it.
#[test]
fn shared_secret_mutant_fails_the_kat_m55() {
    let mutant = on_guest::KemBuild { prefix: "mlkem768_ss_mutant_", ..MLKEM768_PORTABLE };
    let mut guest = open(Image::M55);
    let seed = on_guest::kat_seeds(1)[0];
    let run = on_guest::run_entry(guest.as_mut(), &mutant, &seed).expect("the entry runs");
    let expected = on_guest::mlkem768_reference(&seed);
    assert_eq!((&run.values.pk, &run.values.ct), (&expected.pk, &expected.ct));
    assert_ne!(run.values.ss, expected.ss);
    assert!(!on_guest::is_mlkem768_record0(&run.values));
}

/// X-Wing on each image: the draft's three test vectors through the derandomised functions, and a KAT entry
/// through the pqm4 API equal to the host reference's.
#[test]
fn xwing_passes_the_draft_vectors_and_the_host_reference_on_every_image() {
    for image in [Image::M55, Image::M85, Image::M7] {
        let mut guest = open(image);
        let seed = on_guest::kat_seeds(1)[0];
        let run = on_guest::run_entry(guest.as_mut(), &XWING_PORTABLE, &seed).expect("the entry runs");
        let expected = on_guest::xwing_reference(&seed);
        assert_eq!(run.values, expected, "{image}");
        assert_eq!(run.decapsulated, expected.ss, "{image}");
        let vectors = on_guest::published_answers(guest.as_mut(), &XWING_PORTABLE, &run.values);
        assert_eq!(vectors.len(), 3, "{image}");
        for (what, verdict) in vectors {
            assert_eq!(verdict, Ok(()), "{image}: {what}");
        }
    }
}

/// The planted X-Wing mutant (selftest/xwing_label_mutant.c: one wrong byte of the combiner's label) fails every
/// draft vector and differs from the host reference in the shared secret alone.
#[test]
fn xwing_label_mutant_fails_the_vectors_and_the_reference_m55() {
    let mutant = on_guest::KemBuild { prefix: "xwing_label_mutant_", ..XWING_PORTABLE };
    let mut guest = open(Image::M55);
    let seed = on_guest::kat_seeds(1)[0];
    let run = on_guest::run_entry(guest.as_mut(), &mutant, &seed).expect("the entry runs");
    let expected = on_guest::xwing_reference(&seed);
    assert_eq!((&run.values.pk, &run.values.ct), (&expected.pk, &expected.ct));
    assert_ne!(run.values.ss, expected.ss);
    let vectors = on_guest::published_answers(guest.as_mut(), &mutant, &run.values);
    assert_eq!(vectors.len(), 3);
    for (what, verdict) in vectors {
        let why = verdict.expect_err(&what);
        assert!(why.contains("ss"), "{what}: {why}");
    }
}

/// The MVE builds on the images that hold them: two KAT entries equal to the host reference's, decapsulation giving
/// the shared secret back.
#[test]
fn the_mve_builds_match_the_host_reference_on_the_m55_and_m85_images() {
    for build in [MLKEM768_MVE, XWING_MVE] {
        for &image in build.images {
            let mut guest = open(image);
            for seed in on_guest::kat_seeds(2) {
                let run = on_guest::run_entry(guest.as_mut(), &build, &seed).expect("the entry runs");
                let expected = (build.reference)(&seed);
                assert_eq!(run.values, expected, "{} {image}", build.prefix);
                assert_eq!(run.decapsulated, expected.ss, "{} {image}", build.prefix);
            }
        }
    }
}

/// The verdict of an operation whose pairs' traces are equal throughout.
fn equal_throughout(verdict: &OpVerdict) -> bool {
    matches!(verdict, OpVerdict::Resynchronised(whole) if whole.differences == 0 && whole.compared == whole.events)
}

/// Whole operations under the trace plugin: ML-KEM-768's encapsulation and decapsulation (accepting in one run of a
/// pair, rejecting in the other) with equal traces, its key pair's differences all in SampleNTT (rho, public) and
/// compared on to the end.
#[test]
fn mlkem768_operations_are_constant_time_m55() {
    let verdicts = scheme_ct::check_operations(Image::M55, &MLKEM768_PORTABLE, 2, 1, Randomness::Derandomised)
        .expect("the tracer starts");
    let [(_, keypair), (_, enc), (_, dec)] = &verdicts[..] else { panic!("three operations: {verdicts:?}") };
    assert!(equal_throughout(enc), "{enc:?}");
    assert!(equal_throughout(dec), "{dec:?}");
    let OpVerdict::Resynchronised(whole) = keypair else { panic!("{keypair:?}") };
    assert!(whole.differences > 0 && whole.lost.is_none() && whole.compared == whole.events, "{whole:?}");
    assert!(whole.places.iter().all(|(_, why)| *why == scheme_ct::SAMPLER_REASON), "{whole:?}");
}

/// The X-Wing design's B8 fixed base in the MVE X-Wing build (selftest/xwing_b8.mve.c) leaks in the encapsulation,
/// at the base-point multiplication of the secret ek_X; the B8S build's encapsulation has equal traces.
#[test]
fn the_b8_fixed_base_leaks_in_the_encapsulation_and_b8s_does_not_m55() {
    let b8 = on_guest::KemBuild { prefix: "xwing_b8_", ..XWING_MVE };
    let verdicts =
        scheme_ct::check_operations(Image::M55, &b8, 2, 1, Randomness::Derandomised).expect("the tracer starts");
    let (_, enc) = &verdicts[1];
    let OpVerdict::Leak { leak, .. } = enc else { panic!("{enc:?}") };
    assert!(leak.source.as_deref().is_some_and(|s| s.starts_with("kernels/arm/x25519/base.c")), "{leak:?}");
    let verdicts =
        scheme_ct::check_operations(Image::M55, &XWING_MVE, 2, 1, Randomness::Derandomised).expect("the tracer starts");
    assert!(equal_throughout(&verdicts[1].1), "{:?}", verdicts[1].1);
}
