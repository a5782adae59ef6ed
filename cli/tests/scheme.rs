//! `pqhelium scheme`: ML-KEM-768 and X-Wing on the guest through the pqm4 API, FN-DSA-512 and -1024 as their
//! kernels, and the errors a user can make on its command line (exit code 2, one line).

mod common;
use common::pqhelium;
use pqhelium_analyses::ct::RECORD_CAPACITY;

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

/// FN-DSA on the guest: signature known answers end to end (key generation, signing, verification alone and in a
/// batch), each operation a row with its kernel, entries passed, instructions, estimated cycles and stack; the NIST
/// signature KAT procedure through the pqm4 API against the host reference, a row per function; the build's size.
#[test]
fn fndsa_passes_its_signature_known_answers_on_the_guest() {
    for (scheme, build, core, cycles) in [
        ("fndsa512", "mve", "m55", true),
        ("fndsa1024", "portable", "m7", false),
        ("fndsa512", "portable", "m85", false),
    ] {
        let mut args = vec!["scheme", "--scheme", scheme, "--build", build, "--core", core, "--entries", "2"];
        if !cycles {
            args.push("--no-cycles");
        }
        let (code, stdout, stderr) = pqhelium(&args);
        assert_eq!(code, 0, "{args:?}: {stdout}{stderr}");
        for op in ["keypair", "sign", "verify", "verify x4 (one batch)"] {
            let row =
                stdout.lines().find(|l| l.starts_with(&format!("| {op} |"))).unwrap_or_else(|| panic!("{stdout}"));
            let cells: Vec<&str> = row.split('|').map(str::trim).collect();
            assert_eq!(cells[3], "2/2", "{row}");
            assert!(cells[4].parse::<u64>().unwrap() > 0, "{row}");
            assert_eq!(cells[5].parse::<u64>().is_ok(), cycles, "{row}");
            assert!(cells[6].parse::<u32>().unwrap() > 0, "{row}");
        }
        for function in ["crypto_sign_keypair", "crypto_sign", "crypto_sign_open"] {
            assert!(stdout.contains(&format!("| {function} | 2/2 |")), "{stdout}");
        }
        assert!(stdout.lines().any(|l| l.starts_with("size: ")), "{stdout}");
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

/// `--ct-pairs`: each operation's verdict on the m7 image (unicorn's hooks), compared to the traces' ends; the key
/// pair's differences are SampleNTT's rejection sampling on rho, skipped after.
#[test]
fn ct_pairs_give_a_verdict_per_operation() {
    let args = ["scheme", "--scheme", "mlkem768", "--core", "m7", "--no-cycles", "--ct-pairs", "1"];
    let (code, stdout, stderr) = pqhelium(&args);
    assert_eq!(code, 0, "{stdout}{stderr}");
    assert!(stdout.contains("ct mlkem768_portable_crypto_kem_enc: 1 pairs, equal traces ("), "{stdout}");
    assert!(stdout.contains("ct mlkem768_portable_crypto_kem_dec: 1 pairs, equal traces ("), "{stdout}");
    let keypair = stdout.lines().find(|l| l.starts_with("ct mlkem768_portable_crypto_kem_keypair:")).unwrap_or("");
    assert!(keypair.contains("public by design") && keypair.ends_with(", 0.0% not reached"), "{stdout}");
    assert!(stdout.contains("SampleNTT's rejection sampling reads rho"), "{stdout}");
}

/// `--ct-pairs` for FN-DSA (MVE build, M55): signing and key generation compared to their ends, every difference at
/// a place public by design (hash-to-point, the sampler, the sponge's position, key generation's draws); verification
/// has no secret input.
#[test]
fn fndsa_ct_pairs_compare_whole_key_generation_and_signing_to_their_ends() {
    let args = ["scheme", "--scheme", "fndsa512", "--build", "mve", "--no-cycles", "--ct-pairs", "1"];
    let (code, stdout, stderr) = pqhelium(&args);
    assert_eq!(code, 0, "{stdout}{stderr}");
    let line = |prefix: &str| stdout.lines().find(|l| l.starts_with(prefix)).unwrap_or("").to_string();
    let signing = line("ct fndsa_sign: 1 pairs, equal traces but for ");
    assert!(signing.contains("0.0% not reached"), "{stdout}");
    for place in ["hash-to-point rejects", "the sampler's rejection loop", "the sponge's read position"] {
        assert!(stdout.contains(place), "{place}: {stdout}");
    }
    // Key generation's traces run past a recording's capacity: compared window after window, solver included.
    let keygen = line("ct fndsa_keygen_pair: 1 pairs, equal traces but for ");
    let events: u64 = keygen.split(" of ").nth(1).and_then(|s| s.split(' ').next()?.parse().ok()).unwrap_or(0);
    assert!(events / 2 > RECORD_CAPACITY as u64, "each run longer than a recording: {keygen}");
    assert!(keygen.contains("0.0% not reached"), "{stdout}");
    assert!(stdout.contains("a rejected draw"), "{stdout}");
    assert!(line("ct fndsa_verify: no secret input").contains("all public"), "{stdout}");
    assert!(!stdout.contains("LEAK"), "{stdout}");
}

/// `--ct-pairs` for FN-DSA's portable build on the Cortex-M7 image (unicorn's trace mode): key generation and signing
/// are compared to their ends, with no leak. Its code loads inside IT blocks, whose state unicorn's memory hooks
/// would otherwise leave behind (a wrong pointer and a fault); gcc predicates the sponge's position, public code.
#[test]
fn fndsa_ct_pairs_judge_portable_key_generation_and_signing_on_the_m7() {
    let args = ["scheme", "--scheme", "fndsa512", "--build", "portable", "--core", "m7", "--ct-pairs", "1"];
    let (code, stdout, stderr) = pqhelium(&args);
    assert_eq!(code, 0, "{stdout}{stderr}");
    for operation in ["fndsa_keygen_pair_scalar", "fndsa_sign_emu"] {
        let prefix = format!("ct {operation}: 1 pairs, equal traces but for ");
        let line = stdout.lines().find(|l| l.starts_with(&prefix)).unwrap_or("");
        assert!(line.ends_with("0.0% not reached"), "{operation}: {stdout}");
    }
    assert!(stdout.contains("the sponge's read position"), "{stdout}");
    assert!(!stdout.contains("LEAK") && !stdout.contains("not judged"), "{stdout}");
}

/// `--plot`: one bar per build and operation, the run's build's bars carrying the table's cycles.
/// A chart's text elements in order: each bar's label, then its total.
fn chart_texts(svg: &str) -> Vec<&str> {
    svg.lines().filter_map(|l| l.strip_prefix("<text ")?.split('>').nth(1)?.strip_suffix("</text")).collect()
}

/// FN-DSA's chart: a bar per build and operation, the run's own build's totals those of its table.
#[test]
fn fndsa_plot_draws_both_builds() {
    let path = std::env::temp_dir().join(format!("pqhelium-scheme-fndsa-plot-{}.svg", std::process::id()));
    let args = ["scheme", "--scheme", "fndsa512", "--build", "mve", "--core", "m55", "--plot", path.to_str().unwrap()];
    let (code, stdout, stderr) = pqhelium(&args);
    let svg = std::fs::read_to_string(&path).unwrap_or_default();
    let _ = std::fs::remove_file(&path);
    assert_eq!(code, 0, "{stdout}{stderr}");
    let texts = chart_texts(&svg);
    for build in ["portable", "mve"] {
        for op in ["keypair", "sign", "verify", "verify x4 (one batch)"] {
            let label = format!("{build} {op}");
            let at = texts.iter().position(|t| *t == label).unwrap_or_else(|| panic!("no bar {label}: {svg}"));
            if build == "mve" {
                let line = stdout.lines().find(|l| l.starts_with(&format!("| {op} |"))).expect("the table's row");
                assert_eq!(
                    line.split(" | ").nth(4),
                    Some(texts[at + 1]),
                    "{line} against the chart's {}",
                    texts[at + 1]
                );
            }
        }
    }
}

#[test]
fn plot_draws_every_build_of_the_scheme() {
    let path = std::env::temp_dir().join(format!("pqhelium-scheme-plot-{}.svg", std::process::id()));
    let (code, stdout, stderr) =
        pqhelium(&["scheme", "--scheme", "mlkem768", "--core", "m85", "--plot", path.to_str().expect("utf-8")]);
    let svg = std::fs::read_to_string(&path).unwrap_or_default();
    let _ = std::fs::remove_file(&path);
    assert_eq!(code, 0, "{stdout}{stderr}");
    let texts = chart_texts(&svg);
    for build in ["portable", "mve"] {
        for op in ["crypto_kem_keypair", "crypto_kem_enc", "crypto_kem_dec"] {
            let label = format!("{build} {op}");
            let at = texts.iter().position(|t| *t == label).unwrap_or_else(|| panic!("no bar {label}: {svg}"));
            if build == "portable" {
                let cycles = texts[at + 1];
                let row = format!("| mlkem768_portable_{op} | 1/1 | ");
                let line = stdout.lines().find(|l| l.starts_with(&row)).expect("the table's row");
                assert_eq!(line.split(" | ").nth(3), Some(cycles), "{line} against the chart's {cycles}");
            }
        }
    }
}

#[test]
fn usage_errors_exit_2() {
    let chart = std::env::temp_dir().join("pqhelium-scheme-no-chart.svg");
    let chart = chart.to_str().expect("utf-8");
    for args in [
        &["scheme", "--scheme", "mlkem1024"][..],
        &["scheme", "--scheme", "mlkem768", "--entries", "0"],
        &["scheme", "--scheme", "mlkem768", "--entries", "101"],
        &["scheme", "--scheme", "mlkem768", "--core", "m33"],
        &["scheme", "--scheme", "mlkem768", "--build", "avx2"],
        &["scheme", "--scheme", "xwing", "--build", "mve", "--core", "m7"],
        &["scheme", "--scheme", "mlkem768", "--core", "m7", "--plot", chart],
        &["scheme", "--scheme", "mlkem768", "--no-cycles", "--plot", chart],
        &["scheme", "--scheme", "fndsa512", "--entries", "11"],
        &["scheme", "--scheme", "fndsa1024", "--build", "mve", "--core", "m7"],
        &["scheme", "--scheme", "fndsa512", "--core", "m7", "--plot", chart],
    ] {
        let (code, _, stderr) = pqhelium(args);
        assert_eq!(code, 2, "{args:?}: {stderr}");
    }
}

/// `scheme --manifest`: the example implementation, its planted mutant, and each error a user can hit.
mod manifest {
    use super::pqhelium;
    use std::path::{Path, PathBuf};

    use ml_kem::{FromSeed, KeyExport, MlKem768};
    use pqhelium_core::drbg::NistDrbg;
    use pqhelium_core::rsp::{self, Record};
    use sha2::{Digest, Sha256};

    const KAT_ENTRIES: usize = 2;

    fn repo() -> PathBuf {
        Path::new(env!("CARGO_MANIFEST_DIR")).parent().expect("the workspace").to_path_buf()
    }

    /// A NIST KAT file of `entries` records: each record's DRBG, seeded as `PQCgenKAT_kem.c` seeds it, handed to
    /// `values`, which returns (pk, sk, ct, ss).
    fn kat_records(entries: usize, values: impl Fn(&mut NistDrbg) -> [Vec<u8>; 4]) -> Vec<Record> {
        pqhelium_schemes::on_guest::kat_seeds(entries)
            .iter()
            .enumerate()
            .map(|(count, seed)| {
                let [pk, sk, ct, ss] = values(&mut NistDrbg::new(seed));
                Record::new(count as u64)
                    .with("seed", seed)
                    .with("pk", &pk)
                    .with("sk", &sk)
                    .with("ct", &ct)
                    .with("ss", &ss)
            })
            .collect()
    }

    /// The NIST KAT file of ML-KEM-768, `entries` records, made by the `ml-kem` crate (an oracle independent of our
    /// code) from the NIST DRBG: d || z, then m, drawn from each record's seed as `PQCgenKAT_kem.c` draws them.
    #[allow(deprecated)] // the expanded decapsulation key is what the .rsp files hold
    fn oracle_rsp(entries: usize) -> Vec<Record> {
        use ml_kem::ExpandedKeyEncoding;
        kat_records(entries, |drbg| {
            let (mut dz, mut m) = ([0u8; 64], [0u8; 32]);
            drbg.fill(&mut dz);
            drbg.fill(&mut m);
            let (dk, ek) = MlKem768::from_seed(&dz.into());
            let (ct, ss) = ek.encapsulate_deterministic(&m.into());
            [ek.to_bytes().to_vec(), dk.to_expanded_bytes().to_vec(), ct.to_vec(), ss.to_vec()]
        })
    }

    /// The NIST KAT file of X-Wing (draft 10), `entries` records, made by the `x-wing` crate (an oracle independent
    /// of our code) from the NIST DRBG: the 32-byte decapsulation key, then the 64-byte eseed, as our build draws them.
    fn xwing_oracle_rsp(entries: usize) -> Vec<Record> {
        use x_wing::{Decapsulator as _, KeyExport as _};
        kat_records(entries, |drbg| {
            let (mut sk, mut eseed) = ([0u8; 32], [0u8; 64]);
            drbg.fill(&mut sk);
            drbg.fill(&mut eseed);
            let ek = x_wing::DecapsulationKey::from(sk).encapsulation_key().clone();
            let (ct, ss) = ek.encapsulate_deterministic(&eseed.into());
            [ek.to_bytes().to_vec(), sk.to_vec(), ct.to_vec(), ss.to_vec()]
        })
    }

    /// A directory holding `manifest.toml` (the ML-KEM-768 example's, its paths made absolute, then `extra` lines),
    /// the oracle's KAT file, and any `files`.
    fn setup(extra: &str, records: &[Record], files: &[(&str, &str)]) -> (tempfile::TempDir, PathBuf) {
        let (dir, manifest) = example_setup("ml-kem-768-portable.toml", ("PQCkemKAT_2400.rsp", "ML-KEM-768"), records);
        let mut text = std::fs::read_to_string(&manifest).unwrap();
        text.push_str(extra);
        for (name, content) in files {
            let path = dir.path().join(name);
            std::fs::create_dir_all(path.parent().unwrap()).unwrap();
            std::fs::write(path, content).unwrap();
        }
        std::fs::write(&manifest, text).unwrap();
        (dir, manifest)
    }

    /// A directory holding an example's manifest (its paths made absolute, on the m55 alone) and a KAT file.
    fn example_setup(
        example: &str,
        (kat, algorithm): (&str, &str),
        records: &[Record],
    ) -> (tempfile::TempDir, PathBuf) {
        let dir = tempfile::tempdir().expect("a temporary directory");
        let example = std::fs::read_to_string(repo().join("examples/scheme").join(example)).unwrap();
        let root = format!("{}/", repo().display());
        let text = example.replace("../../", &root).replace("cores = [\"m55\", \"m85\", \"m7\"]", "cores = [\"m55\"]");
        std::fs::write(dir.path().join(kat), rsp::write(Some(algorithm), records)).unwrap();
        let manifest = dir.path().join("manifest.toml");
        std::fs::write(&manifest, text).unwrap();
        (dir, manifest)
    }

    fn run(manifest: &Path, campaign: &str) -> (i32, String, String) {
        let m = manifest.to_str().unwrap();
        pqhelium(&["scheme", "--manifest", m, "--entries", "2", "--campaign", campaign, "--no-cycles"])
    }

    #[test]
    fn the_oracles_kat_file_is_the_published_one() {
        let record0 = &oracle_rsp(1)[0];
        let published = pqhelium_schemes::on_guest::mlkem768_record0_sha256();
        assert_eq!(Sha256::digest(record0.to_rsp().as_bytes())[..], published);
    }

    #[test]
    fn the_example_passes_kat_and_differential() {
        let (_dir, manifest) = setup("", &oracle_rsp(KAT_ENTRIES), &[]);
        let (code, stdout, stderr) = run(&manifest, "2");
        assert_eq!(code, 0, "{stdout}{stderr}");
        assert!(stdout.contains("KAT: 2 entries match the .rsp file"), "{stdout}");
        assert!(stdout.contains("differential: 2 seeds and their corrupted ciphertexts match"), "{stdout}");
        assert!(stdout.contains("| m55 | mlkem768_portable_crypto_kem_dec | "), "{stdout}");
        assert!(stdout.contains("size of the implementation: "), "{stdout}");
        assert!(stdout.ends_with("scheme passed\n"), "{stdout}");
    }

    /// A manifest named by a relative path, with paths relative to it as the examples have them: its sources and
    /// include directories are found from its folder, wherever pqhelium runs from (here: the folder above it).
    #[test]
    fn a_manifest_by_a_relative_path_with_relative_paths_in_it() {
        let (dir, manifest) =
            example_setup("ml-kem-768-portable.toml", ("PQCkemKAT_2400.rsp", "ML-KEM-768"), &oracle_rsp(1));
        std::os::unix::fs::symlink(repo(), dir.path().join("repo")).unwrap();
        let folder = dir.path().join("impl");
        std::fs::create_dir(&folder).unwrap();
        std::fs::rename(dir.path().join("PQCkemKAT_2400.rsp"), folder.join("PQCkemKAT_2400.rsp")).unwrap();
        let text = std::fs::read_to_string(&manifest).unwrap().replace(&format!("{}/", repo().display()), "../repo/");
        assert!(text.contains("include = [\"../repo/kernels/arm/mlkem_ntt\""), "{text}");
        std::fs::write(folder.join("manifest.toml"), text).unwrap();
        let args = ["scheme", "--manifest", "impl/manifest.toml", "--entries", "1", "--campaign", "1", "--no-cycles"];
        let out = std::process::Command::new(env!("CARGO_BIN_EXE_pqhelium"))
            .args(args)
            .current_dir(dir.path())
            .output()
            .expect("run pqhelium");
        let (stdout, stderr) = (String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr));
        assert_eq!(out.status.code(), Some(0), "{stdout}{stderr}");
        assert!(stdout.contains("KAT: 1 entries match the .rsp file"), "{stdout}");
    }

    #[test]
    fn the_shared_secret_mutant_fails_kat_and_differential() {
        let (_dir, manifest) = setup("", &oracle_rsp(KAT_ENTRIES), &[]);
        let text = std::fs::read_to_string(&manifest).unwrap().replace("\"-O2\"]", "\"-O2\", \"-DPQH_SS_MUTANT\"]");
        std::fs::write(&manifest, text).unwrap();
        let (code, stdout, stderr) = run(&manifest, "2");
        assert_eq!(code, 1, "{stdout}{stderr}");
        assert!(stdout.contains("KAT FAILED: KAT entry 0: ss differs from the .rsp file"), "{stdout}");
        assert!(stdout.contains("differential FAILED: seed 0 ("), "{stdout}");
        assert!(stdout.contains("): ss differs from the host reference"), "{stdout}");
        assert!(stdout.ends_with("scheme FAILED\n"), "{stdout}");
    }

    #[test]
    fn both_examples_build_and_pass_on_every_core() {
        for (example, kat, records) in [
            ("ml-kem-768-portable.toml", ("PQCkemKAT_2400.rsp", "ML-KEM-768"), oracle_rsp(1)),
            ("x-wing-portable.toml", ("PQCkemKAT_32.rsp", "X-Wing"), xwing_oracle_rsp(1)),
        ] {
            let (_dir, manifest) = example_setup(example, kat, &records);
            let text = std::fs::read_to_string(&manifest)
                .unwrap()
                .replace("cores = [\"m55\"]", "cores = [\"m55\", \"m85\", \"m7\"]");
            std::fs::write(&manifest, text).unwrap();
            let (code, stdout, stderr) = run(&manifest, "1");
            assert_eq!(code, 0, "{example}: {stdout}{stderr}");
            assert_eq!(stdout.matches("KAT: 1 entries match the .rsp file").count(), 3, "{stdout}");
        }
    }

    #[test]
    fn the_xwing_example_passes_kat_and_differential() {
        let records = xwing_oracle_rsp(KAT_ENTRIES);
        let (_dir, manifest) = example_setup("x-wing-portable.toml", ("PQCkemKAT_32.rsp", "X-Wing"), &records);
        let (code, stdout, stderr) = run(&manifest, "2");
        assert_eq!(code, 0, "{stdout}{stderr}");
        assert!(stdout.contains("KAT: 2 entries match the .rsp file"), "{stdout}");
        assert!(stdout.contains("differential: 2 seeds and their corrupted ciphertexts match"), "{stdout}");
        assert!(stdout.contains("| m55 | xwing_portable_crypto_kem_dec | "), "{stdout}");
        assert!(stdout.ends_with("scheme passed\n"), "{stdout}");
    }

    #[test]
    fn the_xwing_label_mutant_fails_kat_and_differential() {
        let records = xwing_oracle_rsp(KAT_ENTRIES);
        let (_dir, manifest) = example_setup("x-wing-portable.toml", ("PQCkemKAT_32.rsp", "X-Wing"), &records);
        let text = std::fs::read_to_string(&manifest).unwrap().replace("\"-O2\"]", "\"-O2\", \"-DPQH_LABEL_MUTANT\"]");
        std::fs::write(&manifest, text).unwrap();
        let (code, stdout, stderr) = run(&manifest, "2");
        assert_eq!(code, 1, "{stdout}{stderr}");
        assert!(stdout.contains("KAT FAILED: KAT entry 0: ss differs from the .rsp file"), "{stdout}");
        assert!(stdout.contains("): ss differs from the host reference"), "{stdout}");
        assert!(stdout.ends_with("scheme FAILED\n"), "{stdout}");
    }

    fn run_ct(manifest: &Path) -> (i32, String, String) {
        let m = manifest.to_str().unwrap();
        pqhelium(&["scheme", "--manifest", m, "--campaign", "1", "--no-cycles", "--ct-pairs", "2"])
    }

    #[test]
    fn the_examples_operations_are_constant_time_but_for_the_declared_sampler() {
        let (_dir, manifest) = setup("", &oracle_rsp(1), &[]);
        let (code, stdout, stderr) = run_ct(&manifest);
        assert_eq!(code, 0, "{stdout}{stderr}");
        let keypair = stdout.lines().find(|l| l.starts_with("ct mlkem768_portable_crypto_kem_keypair:")).unwrap_or("");
        assert!(keypair.contains("2 pairs, equal traces but for "), "{stdout}");
        assert!(keypair.ends_with(", 0.0% not reached"), "{stdout}");
        assert!(stdout.contains("control flow at sample_ntt+"), "{stdout}");
        assert!(stdout.contains(": declared public by the manifest (`ct-public`)"), "{stdout}");
        assert!(stdout.contains("ct mlkem768_portable_crypto_kem_enc: 2 pairs, equal traces ("), "{stdout}");
        assert!(stdout.contains("ct mlkem768_portable_crypto_kem_dec: 2 pairs, equal traces ("), "{stdout}");
    }

    #[test]
    fn an_undeclared_sampler_is_a_leak() {
        let (_dir, manifest) = setup("", &oracle_rsp(1), &[]);
        let text = std::fs::read_to_string(&manifest).unwrap();
        let text: String = text.lines().filter(|l| !l.starts_with("ct-public")).map(|l| format!("{l}\n")).collect();
        std::fs::write(&manifest, text).unwrap();
        let (code, stdout, stderr) = run_ct(&manifest);
        assert_eq!(code, 1, "{stdout}{stderr}");
        assert!(
            stdout.contains("ct mlkem768_portable_crypto_kem_keypair: LEAK in pair 0: control flow at sample_ntt+"),
            "{stdout}"
        );
    }

    #[test]
    fn a_branch_on_the_randomness_is_a_leak() {
        let branch = "uint8_t r[1]; randombytes(r, 1); if (r[0] & 1) { volatile uint32_t n = 0; n++; }";
        let (_dir, manifest) = own_impl(API, &kem(branch), "");
        let (_, stdout, stderr) = run_ct(&manifest);
        assert!(
            stdout.contains("ct crypto_kem_keypair: LEAK in pair 0: control flow at crypto_kem_keypair+"),
            "{stdout}{stderr}"
        );
        assert!(stdout.contains("ct crypto_kem_enc: 2 pairs, equal traces"), "{stdout}");
    }

    /// The example's manifest pointed at an implementation of the test's own (`impl/`, with api.h).
    fn own_impl(api: &str, kem: &str, extra: &str) -> (tempfile::TempDir, PathBuf) {
        let (dir, manifest) = setup(extra, &oracle_rsp(1), &[("impl/api.h", api), ("impl/kem.c", kem)]);
        let text = std::fs::read_to_string(&manifest).unwrap();
        let text: String = text
            .lines()
            .map(|l| match l.split(" = ").next() {
                Some("implementation") => "implementation = \"impl\"".to_string(),
                Some("sources" | "namespace") => String::new(),
                _ => l.to_string(),
            })
            .collect::<Vec<_>>()
            .join("\n");
        std::fs::write(&manifest, text).unwrap();
        (dir, manifest)
    }

    const API: &str = "#define CRYPTO_PUBLICKEYBYTES 1184\n#define CRYPTO_SECRETKEYBYTES 2400\n\
                       #define CRYPTO_CIPHERTEXTBYTES 1088\n#define CRYPTO_BYTES 32\n";

    /// A KEM whose key pair runs `keypair` (returning 0) and whose other operations return 0 at once.
    fn kem(keypair: &str) -> String {
        format!(
            "#include <stdint.h>\n#include \"randombytes.h\"\n\
             int crypto_kem_keypair(uint8_t *pk, uint8_t *sk) {{ (void)pk; (void)sk; {keypair} return 0; }}\n\
             int crypto_kem_enc(uint8_t *c, uint8_t *s, const uint8_t *p) {{ (void)c; (void)s; (void)p; return 0; }}\n\
             int crypto_kem_dec(uint8_t *s, const uint8_t *c, const uint8_t *k) {{ (void)s; (void)c; (void)k; return 0; }}\n"
        )
    }

    fn error_line(manifest: &Path, code: i32) -> String {
        let (got, stdout, stderr) = run(manifest, "1");
        assert_eq!(got, code, "{stdout}{stderr}");
        format!("{stdout}{stderr}")
    }

    #[test]
    fn a_missing_api_symbol_is_named() {
        let (_dir, manifest) = own_impl(API, &kem("").replace("crypto_kem_enc", "crypto_kem_encaps"), "");
        let out = error_line(&manifest, 2);
        assert!(out.contains("missing API symbol: `crypto_kem_enc` is not defined by the implementation"), "{out}");
    }

    #[test]
    fn wrong_sizes_in_api_h_are_named() {
        let (_dir, manifest) = own_impl(&API.replace("2400", "2401"), &kem(""), "");
        let out = error_line(&manifest, 2);
        assert!(out.contains("api.h: CRYPTO_SECRETKEYBYTES is 2401, ML-KEM-768 has 2400"), "{out}");
    }

    #[test]
    fn a_kat_file_of_another_scheme_is_refused() {
        let mut records = oracle_rsp(1);
        records[0] = Record::new(0).with("seed", &[0; 48]).with("pk", &[0; 800]);
        let (_dir, manifest) = setup("", &records, &[]);
        let out = error_line(&manifest, 2);
        assert!(
            out.contains("count = 0: pk is 800 bytes, ML-KEM-768's is 1184: a KAT file of another scheme?"),
            "{out}"
        );
    }

    #[test]
    fn a_stack_overflow_into_the_harness_is_caught() {
        // Writes below sp down to 64 bytes under the stack's limit, into the harness's data.
        let overflow = "extern uint32_t __stack_limit[]; volatile uint32_t *p = (volatile uint32_t *)__builtin_frame_address(0); \
                        while (p > __stack_limit - 16) *--p = 0;";
        let (_dir, manifest) = own_impl(API, &kem(overflow), "");
        let out = error_line(&manifest, 1);
        assert!(out.contains("KAT entry 0: stack overflow: "), "{out}");
    }

    #[test]
    fn an_endless_loop_is_stopped() {
        let (_dir, manifest) = own_impl(API, &kem("volatile uint32_t n = 0; for (;;) n++;"), "timeout-seconds = 1\n");
        let out = error_line(&manifest, 1);
        assert!(out.contains("KAT entry 0: crypto_kem_keypair: timeout: the call did not return"), "{out}");
        assert!(out.contains("(endless loop?)"), "{out}");
    }

    #[test]
    fn a_compile_error_is_shown_whole() {
        let (_dir, manifest) = own_impl(API, &kem("this is not C;"), "");
        let out = error_line(&manifest, 2);
        assert!(out.contains("compiling ") && out.contains("kem.c for m55:\n"), "{out}");
        assert!(out.contains("error: unknown type name 'this'"), "{out}");
    }
}
