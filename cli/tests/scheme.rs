//! `pqhelium scheme`: ML-KEM-768 and X-Wing on the guest through the pqm4 API, and the errors a user can make on its command
//! line (exit code 2, one line).

use std::process::Command;

fn pqhelium(args: &[&str]) -> (i32, String, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_pqhelium")).args(args).output().expect("pqhelium runs");
    let text = |b: Vec<u8>| String::from_utf8(b).expect("utf-8");
    (out.status.code().expect("an exit code"), text(out.stdout), text(out.stderr))
}

#[test]
fn mlkem768_passes_its_kat_on_the_m55_image() {
    let (code, stdout, stderr) = pqhelium(&["scheme", "--scheme", "mlkem768", "--core", "m55", "--no-cycles"]);
    assert_eq!(code, 0, "{stdout}{stderr}");
    assert!(stdout.contains("pass the published count = 0 record"), "{stdout}");
    for op in ["keypair", "enc", "dec"] {
        let row = format!("| mlkem768_portable_crypto_kem_{op} | 1/1 |");
        assert!(stdout.contains(&row), "{stdout}");
    }
    assert!(stdout.lines().any(|l| l.starts_with("size: ")), "{stdout}");
}

/// X-Wing on the guest: the KAT procedure's entry against the host reference, and the draft's three test vectors
/// (their eseeds, shared secrets and the SHA-256 of pk and ct, `vectors/schemes.kat`) through the build's
/// derandomised functions.
#[test]
fn xwing_passes_the_draft_vectors_on_the_m85_image() {
    let (code, stdout, stderr) = pqhelium(&["scheme", "--scheme", "xwing", "--core", "m85", "--no-cycles"]);
    assert_eq!(code, 0, "{stdout}{stderr}");
    for vector in ["draft10-c.1", "draft10-c.2", "draft10-c.3"] {
        assert!(stdout.contains(&format!("pass X-Wing draft 10 vector {vector}")), "{stdout}");
    }
    for op in ["keypair", "enc", "dec"] {
        assert!(stdout.contains(&format!("| xwing_portable_crypto_kem_{op} | 1/1 |")), "{stdout}");
    }
}

/// The MVE builds: ML-KEM-768's published record on the m55 image, X-Wing's draft vectors on the m85 image.
#[test]
fn the_mve_builds_pass_their_published_answers() {
    let (code, stdout, stderr) =
        pqhelium(&["scheme", "--scheme", "mlkem768", "--build", "mve", "--core", "m55", "--no-cycles"]);
    assert_eq!(code, 0, "{stdout}{stderr}");
    assert!(stdout.contains("pass the published count = 0 record"), "{stdout}");
    assert!(stdout.contains("| mlkem768_mve_crypto_kem_dec | 1/1 |"), "{stdout}");
    let (code, stdout, stderr) =
        pqhelium(&["scheme", "--scheme", "xwing", "--build", "mve", "--core", "m85", "--no-cycles"]);
    assert_eq!(code, 0, "{stdout}{stderr}");
    assert_eq!(stdout.matches("pass X-Wing draft 10 vector").count(), 3, "{stdout}");
    assert!(stdout.contains("| xwing_mve_crypto_kem_enc | 1/1 |"), "{stdout}");
}

/// `--ct-pairs`: each operation's verdict on the m7 image (unicorn's hooks), the key pair's first difference explained
/// as SampleNTT's rejection sampling on rho.
#[test]
fn ct_pairs_give_a_verdict_per_operation() {
    let args = ["scheme", "--scheme", "mlkem768", "--core", "m7", "--no-cycles", "--ct-pairs", "1"];
    let (code, stdout, stderr) = pqhelium(&args);
    assert_eq!(code, 0, "{stdout}{stderr}");
    assert!(stdout.contains("ct mlkem768_portable_crypto_kem_enc: 1 pairs, equal traces\n"), "{stdout}");
    assert!(stdout.contains("ct mlkem768_portable_crypto_kem_dec: 1 pairs, equal traces\n"), "{stdout}");
    let keypair = stdout.lines().find(|l| l.starts_with("ct mlkem768_portable_crypto_kem_keypair:")).unwrap_or("");
    assert!(keypair.contains("explained: SampleNTT's rejection sampling reads rho"), "{stdout}");
}

#[test]
fn usage_errors_exit_2() {
    for args in [
        &["scheme", "--scheme", "mlkem1024"][..],
        &["scheme", "--scheme", "mlkem768", "--entries", "0"],
        &["scheme", "--scheme", "mlkem768", "--entries", "101"],
        &["scheme", "--scheme", "mlkem768", "--core", "m33"],
        &["scheme", "--scheme", "mlkem768", "--build", "avx2"],
        &["scheme", "--scheme", "xwing", "--build", "mve", "--core", "m7"],
    ] {
        let (code, _, stderr) = pqhelium(args);
        assert_eq!(code, 2, "{args:?}: {stderr}");
    }
}
