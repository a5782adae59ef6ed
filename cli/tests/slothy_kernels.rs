//! The NTTs and the Keccak-f\[1600\] permutations SLOTHY scheduled for each core (kernels/arm/mlkem_ntt/slothy/,
//! kernels/arm/fndsa_ntt/slothy/, kernels/arm/keccak/slothy/, docs/slothy.md): they serve the ML-KEM-768 and FN-DSA
//! (NTTs), FIPS 202 and FN-DSA key generation (Keccak) known answers on the image of their core; each is equivalent
//! to its source under `pqhelium equiv`; a planted mutant (one swapped pair of dependent instructions) is caught by
//! `equiv` and by `check`; a register SLOTHY was told to keep, clobbered, is caught by `equiv`; the unscheduled
//! sources pass `check` as a manifest.

use std::path::{Path, PathBuf};

mod common;
use common::{dependent_pair, pqhelium, swapped};

use pqhelium_families as registry;
use pqhelium_guest::backend::Image;
use pqhelium_schemes::kat::{self, Extent, Provider};
use pqhelium_schemes::providers::Guest;
use pqhelium_schemes::providers::fndsa_ntt::{self, FndsaNttProvider};
use pqhelium_schemes::providers::keccak::EmulatedPermutation;
use pqhelium_schemes::providers::mlkem::{self, MlkemProvider};

const CORES: [(&str, Image); 2] = [("m55", Image::M55), ("m85", Image::M85)];

/// A kernel in SLOTHY's input form and its schedules (kernels/slothy/jobs_*.py): the directory and stem of the source,
/// the buffers the region reads and writes (`equiv --addr`), the registers live across the loops, which SLOTHY was
/// told to keep, and the ones it renames freely (their final values do not matter).
struct Source {
    dir: &'static str,
    stem: &'static str,
    addr: &'static str,
    kept: &'static str,
    temporaries: &'static str,
}

/// ML-KEM: p (r0), the zeta pairs (r11) and the pass-4 rows (r10).
const MLKEM_FWD: Source = Source {
    dir: "mlkem_ntt/slothy",
    stem: "mlkem_ntt_fwd",
    addr: "r0:512,r10:768,r11:512",
    kept: "r0,r10,r11",
    temporaries: "r1-r9,r12,q0-q7",
};
const MLKEM_INV: Source = Source { stem: "mlkem_ntt_inv", ..MLKEM_FWD };
/// FN-DSA: the array (r0), the scratch on the stack (r9), the last pass's rows (r10) and the zeta pairs (r11).
const FNDSA512: Source = Source {
    dir: "fndsa_ntt/slothy",
    stem: "fndsa_ntt512_fwd",
    addr: "r0:1024,r9:1024,r10:1792,r11:512",
    kept: "r0,r9,r10,r11",
    temporaries: "r1-r8,r12,q0-q7",
};
const FNDSA1024: Source = Source { stem: "fndsa_ntt1024_fwd", addr: "r0:2048,r9:2048,r10:3584,r11:512", ..FNDSA512 };

impl Source {
    /// The source and its schedule for `core`.
    fn files(&self, core: &str) -> (PathBuf, PathBuf) {
        let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../kernels/arm").join(self.dir);
        (dir.join(format!("{}.s", self.stem)), dir.join(format!("{}_slothy_{core}.mve.S", self.stem)))
    }

    /// `pqhelium equiv` of two regions between `start` and `end`, over 20 states, with the source's buffers.
    fn equiv(&self, core: &str, before: &Path, after: &Path, extra: &[&str]) -> (i32, String, String) {
        equiv_region(core, before, after, "start:end", self.addr, extra)
    }

    /// `equiv` of the source against a schedule: memory and the kept registers compared, the temporaries ignored.
    fn equiv_to_source(&self, core: &str, scheduled: &Path) -> (i32, String, String) {
        let (source, _) = self.files(core);
        self.equiv(core, &source, scheduled, &["--ignore", self.temporaries, "--preserve", self.kept])
    }
}

fn equiv_region(
    core: &str,
    before: &Path,
    after: &Path,
    region: &str,
    addr: &str,
    extra: &[&str],
) -> (i32, String, String) {
    let mut args = vec!["equiv", "--core", core, before.to_str().unwrap(), after.to_str().unwrap()];
    args.extend(["--region", region, "--states", "20", "--addr", addr]);
    args.extend(extra);
    pqhelium(&args)
}

/// ML-KEM-768's NIST record with both scheduled NTTs of the image's core in place of the C ones.
#[test]
fn scheduled_ntts_serve_the_mlkem_kat_on_the_image_of_their_core() {
    for (core, image) in CORES {
        let mut kernels = MlkemProvider::open_image(image).expect("QEMU starts");
        let ids = [(mlkem::Op::Ntt, "fwd"), (mlkem::Op::InvNtt, "inv")]
            .map(|(op, name)| (op, registry::find(&format!("mlkem.ntt.{name}.slothy_{core}")).expect("registered")));
        for (op, kernel) in ids {
            kernels.rewire(op, kernel);
        }
        let run = kat::run_mlkem_with("mlkem768", Provider::Qemu, &kernels, Extent::Only(&["nist-kat-count0"]));
        assert!(!run.results.is_empty());
        for r in &run.results {
            assert!(r.passed, "{core} {}: {}", r.name, r.detail);
        }
        for (_, kernel) in ids {
            let served = run.served.get(kernel.symbol).copied().unwrap_or_default();
            assert!(served.calls > 0 && served.instructions > 0, "{core}: {} served no call", kernel.symbol);
        }
    }
}

/// FN-DSA's signature KAT (key generation, signing, verification: every NTT of n = 512 and 1024) with the scheduled
/// forward NTTs of the image's core in place of the C ones.
#[test]
fn scheduled_fndsa_ntts_serve_the_fndsa_kat_on_the_image_of_their_core() {
    for (core, image) in CORES {
        let mut ntt = FndsaNttProvider::open_image(image).expect("QEMU starts");
        let kernels = [(9, 512), (10, 1024)]
            .map(|(logn, n)| (logn, registry::find(&format!("fndsa.ntt{n}.fwd.slothy_{core}")).expect("registered")));
        for (logn, kernel) in kernels {
            ntt.rewire(fndsa_ntt::Op::Ntt, logn, kernel);
        }
        let run = kat::run_fndsa_with(Provider::Qemu, ntt, None, Extent::Only(&["logn9-j0", "logn10-j0"]));
        assert_eq!(run.results.len(), 2);
        for r in &run.results {
            assert!(r.passed, "{core} {}: {}", r.name, r.detail);
        }
        for (_, kernel) in kernels {
            let served = run.served.get(kernel.symbol).copied().unwrap_or_default();
            assert!(served.calls > 0 && served.instructions > 0, "{core}: {} served no call", kernel.symbol);
        }
    }
}

/// SLOTHY's self-check, which it cannot run on Armv8.1-M: each scheduled region against its source, the memory and
/// the registers SLOTHY was told to keep compared.
#[test]
fn scheduled_ntts_are_equivalent_to_their_source() {
    for (core, _) in CORES {
        for source in [MLKEM_FWD, MLKEM_INV, FNDSA512, FNDSA1024] {
            let (_, output) = source.files(core);
            let (code, stdout, stderr) = source.equiv_to_source(core, &output);
            assert_eq!(code, 0, "{} {core}: {stdout}{stderr}", source.stem);
            assert!(stdout.contains("equivalent: 20 states"), "{stdout}");
        }
    }
}

/// A clobber of a register SLOTHY was told to keep (the pointer to the pass-4 rows) is caught by `equiv`.
#[test]
fn a_scheduled_ntt_clobbering_a_kept_register_is_caught_by_equiv() {
    let dir = tempfile::tempdir().unwrap();
    let (_, output) = MLKEM_FWD.files("m55");
    let text = std::fs::read_to_string(&output).unwrap();
    let clobber = dir.path().join("clobber.S");
    std::fs::write(&clobber, text.replacen("\nend:\n", "\n    mov r10, r12\nend:\n", 1)).unwrap();
    let (code, stdout, stderr) = MLKEM_FWD.equiv_to_source("m55", &clobber);
    assert_eq!(code, 1, "{stdout}{stderr}");
    assert!(stdout.contains("the after region does not preserve r10"), "{stdout}");
}

/// One pair of dependent instructions swapped in the M55 schedule of `source`: `equiv` finds a difference from the
/// schedule, and `check` of the mutant object (through a manifest, under `contract`, with our tables: each of
/// `tables` aliased) fails where the same object unmutated passes.
fn a_swapped_pair_is_caught_by_equiv_and_by_check(source: &Source, contract: &str, tables: &[&str]) {
    let dir = tempfile::tempdir().unwrap();
    let (_, output) = source.files("m55");
    let text = std::fs::read_to_string(&output).unwrap();
    let (first, second) = dependent_pair(&text, "start", "end", 'q');
    let mutant = swapped(&text, "start", &first, &second);
    assert_ne!(mutant, text);
    let mutant_path = dir.path().join("mutant.S");
    std::fs::write(&mutant_path, &mutant).unwrap();
    let (code, stdout, stderr) = source.equiv("m55", &output, &mutant_path, &[]);
    assert_eq!(code, 1, "{first} / {second}: {stdout}{stderr}");
    assert!(stdout.contains("NOT EQUIVALENT in state 0"), "{stdout}");

    // The kernel under a name of its own, its tables aliased to ours.
    let own = |t: &str| {
        let renamed = t.replace(&format!("{}_slothy_m55", source.stem), "byo_kernel");
        tables.iter().fold(renamed, |t, table| t.replace(table, &format!("byo_{table}")))
    };
    let aliases: String = tables.iter().map(|t| format!("byo_{t} = \"{t}\"\n")).collect();
    for (name, asm, expected) in [("same", &text, 0), ("mutant", &mutant, 1)] {
        std::fs::write(dir.path().join(format!("{name}.S")), own(asm)).unwrap();
        let manifest = dir.path().join(format!("{name}.toml"));
        let toml = format!(
            "core = \"m55\"\nsources = [\"{name}.S\"]\n\n[aliases]\n{aliases}\n[[kernel]]\nsymbol = \"byo_kernel\"\n\
             contract = \"{contract}\"\n"
        );
        std::fs::write(&manifest, toml).unwrap();
        let (code, stdout, stderr) =
            pqhelium(&["check", "--manifest", manifest.to_str().unwrap(), "--cases", "20", "--jobs", "1"]);
        assert_eq!(code, expected, "{name}: {stdout}{stderr}");
    }
}

#[test]
fn a_swapped_pair_in_the_scheduled_mlkem_ntt_is_caught_by_equiv_and_by_check() {
    a_swapped_pair_is_caught_by_equiv_and_by_check(
        &MLKEM_FWD,
        "mlkem.ntt.fwd",
        &["pqh_mlkem_zeta_pairs", "pqh_mlkem_fwd_d"],
    );
}

#[test]
fn a_swapped_pair_in_the_scheduled_fndsa_ntt_is_caught_by_equiv_and_by_check() {
    a_swapped_pair_is_caught_by_equiv_and_by_check(
        &FNDSA512,
        "fndsa.ntt512.fwd",
        &["fndsa_zeta_pairs", "fndsa_fwd_rows_512"],
    );
}

/// The unscheduled sources, the figures' baseline (docs/benchmarks.md), pass `check` as your own kernels would.
#[test]
fn the_unscheduled_sources_pass_check_through_their_manifests() {
    let examples = Path::new(env!("CARGO_MANIFEST_DIR")).join("../examples/slothy");
    for (core, _) in CORES {
        for (manifest, symbols) in [
            ("ntt_source", ["mlkem_ntt_fwd_asm", "mlkem_ntt_inv_asm"]),
            ("fndsa_ntt_source", ["fndsa_ntt512_fwd_asm", "fndsa_ntt1024_fwd_asm"]),
            ("keccak_source", ["keccak_f1600_interleaved_slothy", "keccak_f1600x4_interleaved_slothy"]),
        ] {
            let manifest = examples.join(format!("{manifest}_{core}.toml"));
            let (code, stdout, stderr) =
                pqhelium(&["check", "--manifest", manifest.to_str().unwrap(), "--cases", "50", "--jobs", "1"]);
            assert_eq!(code, 0, "{core}: {stdout}{stderr}");
            assert!(symbols.iter().all(|s| stdout.contains(s)), "{stdout}");
        }
    }
}

/// The Keccak-f\[1600\] permutations SLOTHY scheduled, region by region as kernels/slothy/jobs_keccak.py schedules
/// them: (region, the buffers of its address registers, the registers live across it). The scalar state is 200
/// bytes, its round's scratch frame 496, the round constants 192; x4: each state half 400, C and D 160.
const KECCAK_REGIONS: [(&str, &str, &str); 12] = [
    ("theta_c", "r0:200,r2:496", "r0,r2"),
    ("theta_d", "r2:496", "r2"),
    ("rho_pi_0", "r0:200,r2:496", "r0,r2,r3"),
    ("rho_pi_1", "r0:200,r2:496", "r0,r2,r3"),
    ("rho_pi_2", "r0:200,r2:496", "r0,r2,r3"),
    ("rho_pi_3", "r0:200,r2:496", "r0,r2,r3"),
    ("rho_pi_4", "r0:200,r2:496", "r0,r2,r3"),
    ("chi_iota_0", "r1:200,r2:496,r3:192", "r1,r2,r3"),
    ("chi_iota_1", "r1:200,r2:496", "r1,r2"),
    ("chi_iota_2", "r1:200,r2:496", "r1,r2"),
    ("chi_iota_3", "r1:200,r2:496", "r1,r2"),
    ("chi_iota_4", "r1:200,r2:496", "r1,r2"),
];
const KECCAK_X4_REGIONS: [(&str, &str, &str); 12] = [
    ("theta_c", "r0:400,r2:400,r4:160", "r0-r12"),
    ("theta_d", "r4:160,r5:160", "r0-r12"),
    ("rows_00", X4_ROWS, "r0-r12"),
    ("rows_01", X4_ROWS, "r0-r12"),
    ("rows_10", X4_ROWS, "r0-r12"),
    ("rows_11", X4_ROWS, "r0-r12"),
    ("rows_20", X4_ROWS, "r0-r12"),
    ("rows_21", X4_ROWS, "r0-r12"),
    ("rows_30", X4_ROWS, "r0-r12"),
    ("rows_31", X4_ROWS, "r0-r12"),
    ("rows_40", X4_ROWS, "r0-r12"),
    ("rows_41", X4_ROWS, "r0-r12"),
];
const X4_ROWS: &str = "r0:400,r2:400,r1:400,r3:400,r5:160";
/// Every register: SLOTHY renames all but the kept ones (`--preserve` checks those).
const EVERY_REGISTER: &str = "r0-r12,q0-q7";

fn keccak_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../kernels")
}

/// The scheduled scalar (`x4` false) or four-way Keccak for `core`, and its source.
fn scheduled_keccak(x4: bool, core: &str) -> (PathBuf, PathBuf) {
    let dir = keccak_dir();
    if x4 {
        (
            dir.join("slothy/keccak/keccak_f1600x4.mve.s"),
            dir.join(format!("arm/keccak/slothy/keccak_f1600x4_{core}.mve.S")),
        )
    } else {
        (dir.join("slothy/keccak/keccak_f1600.s"), dir.join(format!("arm/keccak/slothy/keccak_f1600_{core}.S")))
    }
}

/// SLOTHY's self-check of every region of each scheduled Keccak: memory compared, the registers live across the
/// region kept.
#[test]
fn scheduled_keccaks_are_equivalent_to_their_source_region_by_region() {
    for (core, _) in CORES {
        for (x4, regions) in [(false, KECCAK_REGIONS), (true, KECCAK_X4_REGIONS)] {
            let (source, output) = scheduled_keccak(x4, core);
            for (region, addr, kept) in regions {
                let labels = format!("{region}_start:{region}_end");
                let extra = ["--ignore", EVERY_REGISTER, "--preserve", kept];
                let (code, stdout, stderr) = equiv_region(core, &source, &output, &labels, addr, &extra);
                assert_eq!(code, 0, "{} {region} {core}: {stdout}{stderr}", output.display());
                assert!(stdout.contains("equivalent: 20 states"), "{stdout}");
            }
        }
    }
}

/// The scheduled permutations in the loop of known answers on the image of their core: FIPS 202's SHA-3 and SHAKE
/// vectors (the scalar ones one entry at a time, the x4 ones four at a time), and FN-DSA-512's key generation (its
/// SHAKE256 on the scheduled scalar permutation).
#[test]
fn scheduled_keccaks_serve_the_fips202_and_fndsa_keygen_kats_on_the_image_of_their_core() {
    let runs = kat::run_fips202_scheduled();
    assert_eq!(runs.len(), 4);
    for (core, image) in CORES {
        let id = format!("keccak.f1600.slothy_{core}");
        let guest = Guest::open_image(image).expect("QEMU starts");
        let keccak = EmulatedPermutation::with_kernel(guest, &id);
        let run = kat::run_fndsa_keygen_with_keccak(keccak, Extent::Only(&["logn9-test0"]));
        for run in runs.iter().filter(|r| r.image == Some(image)).chain([&run]) {
            assert!(!run.results.is_empty(), "{}", run.suite);
            for r in &run.results {
                assert!(r.passed, "{core} {} {}: {}", run.suite, r.name, r.detail);
            }
            let served = run.served.values().map(|s| s.calls).sum::<u64>();
            assert!(served > 0, "{core} {}: the scheduled kernel served no call", run.suite);
        }
    }
}

/// One pair of dependent instructions swapped in the scheduled scalar Keccak (the first register it loads and its
/// first use): `equiv` finds a difference from the schedule, and `check --manifest` of the mutant object fails where
/// the same object unmutated passes.
#[test]
fn a_swapped_pair_in_a_scheduled_keccak_is_caught_by_equiv_and_by_check() {
    let dir = tempfile::tempdir().unwrap();
    let (_, output) = scheduled_keccak(false, "m55");
    let text = std::fs::read_to_string(&output).unwrap();
    let (region, addr, _) = KECCAK_REGIONS[0];
    let (start, end) = (format!("{region}_start"), format!("{region}_end"));
    let (first, second) = dependent_pair(&text, &start, &end, 'r');
    let mutant = swapped(&text, &start, &first, &second);
    assert_ne!(mutant, text);
    let mutant_path = dir.path().join("mutant.S");
    std::fs::write(&mutant_path, &mutant).unwrap();
    let (code, stdout, stderr) =
        equiv_region("m55", &output, &mutant_path, &format!("{start}:{end}"), addr, &["--ignore", EVERY_REGISTER]);
    assert_eq!(code, 1, "{first} / {second}: {stdout}{stderr}");
    assert!(stdout.contains("NOT EQUIVALENT in state 0"), "{stdout}");

    // The kernel under a name of its own, the round constants from the image.
    let own = |t: &str| t.replace("keccak_f1600_interleaved_slothy_m55", "byo_keccak");
    for (name, asm, expected) in [("same", &text, 0), ("mutant", &mutant, 1)] {
        std::fs::write(dir.path().join(format!("{name}.S")), own(asm)).unwrap();
        let manifest = dir.path().join(format!("{name}.toml"));
        let toml = format!(
            "core = \"m55\"\nsources = [\"{name}.S\"]\n\n[aliases]\n\
             keccak_round_constants_interleaved = \"keccak_round_constants_interleaved\"\n\n[[kernel]]\n\
             symbol = \"byo_keccak\"\ncontract = \"keccak.f1600\"\n"
        );
        std::fs::write(&manifest, toml).unwrap();
        let (code, stdout, stderr) =
            pqhelium(&["check", "--manifest", manifest.to_str().unwrap(), "--cases", "20", "--jobs", "1"]);
        assert_eq!(code, expected, "{name}: {stdout}{stderr}");
    }
}
