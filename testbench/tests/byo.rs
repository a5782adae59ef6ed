//! Bring your own object code: the worked example (`examples/byo/`) through `link`, `check`, `fuzz`, `repro` and
//! `bench` from its manifest alone, its mutant caught, and every error a user will hit as one line with exit code 2.

use std::path::{Path, PathBuf};
use std::process::Command;

fn pqhelium(args: &[&str]) -> (i32, String, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_pqhelium")).args(args).output().expect("run pqhelium");
    let text = |b: &[u8]| String::from_utf8_lossy(b).into_owned();
    (out.status.code().unwrap_or(-1), text(&out.stdout), text(&out.stderr))
}

fn example(name: &str) -> String {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../examples/byo").join(name).display().to_string()
}

const KERNEL: &str = "byo_basemul_bitrev_mont";

#[test]
fn the_example_runs_through_link_check_fuzz_repro_and_bench_from_its_manifest() {
    let manifest = example("byo.toml");
    let dir = tempfile::tempdir().unwrap();
    let elf = dir.path().join("their.elf");
    let (code, out, err) = pqhelium(&["link", "--manifest", &manifest, "-o", elf.to_str().unwrap()]);
    assert_eq!(code, 0, "{out}{err}");
    assert!(out.contains("byo_basemul_bitrev_mont (mlkem.basemul.scalar)"), "{out}");
    assert!(elf.is_file());

    let (code, out, err) = pqhelium(&["check", "--manifest", &manifest, "--cases", "300", "--jobs", "1"]);
    assert_eq!(code, 0, "{out}{err}");
    assert!(out.contains(&format!("| {KERNEL} | mlkem.basemul.scalar | qemu (byo-m55) | 300 | 0 | 0 |")), "{out}");
    assert!(out.contains("checked two ways: reference == canon(object code)"), "{out}");
    assert!(out.contains("check passed"), "{out}");

    let state = dir.path().join("state.json");
    let fuzz = ["fuzz", "--manifest", &manifest, "--cases", "200", "--seed", "3", "--jobs", "1"];
    let (code, out, err) = pqhelium(&[&fuzz[..], &["--state", state.to_str().unwrap()]].concat());
    assert_eq!(code, 0, "{out}{err}");
    assert!(out.contains(&format!("{KERNEL} on qemu (byo-m55): 200 cases, 0 mismatches, 0 faults")), "{out}");

    let (code, out, err) =
        pqhelium(&["repro", "--manifest", &manifest, "--kernel", KERNEL, "--seed", "3", "--case", "9"]);
    assert_eq!(code, 0, "{out}{err}");
    assert!(out.contains("no difference") && out.contains("qemu executed"), "{out}");

    let (code, out, err) = pqhelium(&["bench", "--manifest", &manifest, "--calls", "20"]);
    assert_eq!(code, 0, "{out}{err}");
    assert!(out.contains(&format!("| {KERNEL} | qemu (byo-m55) |")), "{out}");
}

#[test]
fn the_mutant_with_one_wrong_constant_is_caught_and_reproduced() {
    let manifest = example("mutant.toml");
    let (code, out, err) = pqhelium(&["check", "--manifest", &manifest, "--cases", "200", "--jobs", "1"]);
    assert_eq!(code, 1, "{out}{err}");
    assert!(out.contains(&format!("FAIL {KERNEL} on qemu (mutant-m55)")), "{out}");
    assert!(out.contains("reference and canon(qemu) differ"), "{out}");
    let line = out.lines().find(|l| l.contains("reproduce: pqhelium repro")).expect("a reproduction line");
    let command: Vec<&str> = line.split("pqhelium ").nth(1).unwrap().split_whitespace().collect();
    assert!(command.contains(&"--manifest"), "{line}");
    let (code, out, _) = pqhelium(&command);
    assert_eq!(code, 1, "{out}");
    assert!(out.contains("first difference: reference vs canon(qemu)"), "{out}");
    // The JSON report's reproduction command names the manifest too.
    let dir = tempfile::tempdir().unwrap();
    let (report, state) = (dir.path().join("r.json"), dir.path().join("s.json"));
    let (report, state) = (report.to_str().unwrap(), state.to_str().unwrap());
    let fuzz = ["fuzz", "--manifest", &manifest, "--cases", "50", "--jobs", "1", "--report", report, "--state", state];
    let (code, out, err) = pqhelium(&fuzz);
    assert_eq!(code, 1, "{out}{err}");
    let json = std::fs::read_to_string(report).unwrap();
    assert!(json.contains(&format!("pqhelium repro --kernel {KERNEL} --manifest {manifest} --seed")), "{json}");
}

/// A manifest in a fresh directory with these files; returns the manifest's path.
fn write(dir: &Path, manifest: &str, files: &[(&str, &str)]) -> PathBuf {
    for (name, text) in files {
        std::fs::write(dir.join(name), text).unwrap();
    }
    let path = dir.join("m.toml");
    std::fs::write(&path, manifest).unwrap();
    path
}

/// `link` on a manifest: exit code 2 and one line on stderr containing `expected`.
fn refused(manifest: &str, files: &[(&str, &str)], expected: &str) {
    let dir = tempfile::tempdir().unwrap();
    let path = write(dir.path(), manifest, files);
    let elf = dir.path().join("out.elf");
    let (code, out, err) = pqhelium(&["link", "--manifest", path.to_str().unwrap(), "-o", elf.to_str().unwrap()]);
    assert_eq!(code, 2, "{out}{err}");
    assert_eq!(err.lines().count(), 1, "one line: {err}");
    assert!(err.starts_with("error: ") && err.contains(expected), "expected `{expected}` in: {err}");
}

const BASEMUL: &str = "[[kernel]]\nsymbol = \"k\"\ncontract = \"mlkem.basemul.scalar\"\n";
const K_SOURCE: &str = ".syntax unified\n.thumb\n.text\n.global k\n.thumb_func\nk:\n bx lr\n";

#[test]
fn a_symbol_missing_from_their_objects_is_named() {
    let manifest = format!("core = \"m55\"\nsources = [\"k.S\"]\n{}", BASEMUL.replace("\"k\"", "\"nope\""));
    refused(&manifest, &[("k.S", K_SOURCE)], "symbol `nope` is not defined by your objects");
    let table = format!(
        "core = \"m55\"\nsources = [\"k.S\"]\n{BASEMUL}args = [\"out\", \"a\", \"b\", {{ symbol = \"zetas\" }}]\n"
    );
    refused(&table, &[("k.S", K_SOURCE)], "symbol `zetas` is not defined by your objects");
}

#[test]
fn a_contract_we_do_not_have_is_named() {
    let manifest =
        format!("core = \"m55\"\nsources = [\"k.S\"]\n{}", BASEMUL.replace("mlkem.basemul.scalar", "mlkem.nope"));
    refused(&manifest, &[("k.S", K_SOURCE)], "`k`: no contract `mlkem.nope` (see `pqhelium list`)");
}

#[test]
fn adapters_that_do_not_fit_the_contract_are_refused() {
    let head = format!("core = \"m55\"\nsources = [\"k.S\"]\n{BASEMUL}");
    let files = [("k.S", K_SOURCE)];
    refused(&format!("{head}args = [\"out\", \"a\"]\n"), &files, "contract argument `b` is missing from `args`");
    refused(
        &format!("{head}args = [\"out\", \"a\", \"b\", \"c\"]\n"),
        &files,
        "`c` is not an argument of the contract",
    );
    refused(&format!("{head}[kernel.adapt.a]\ninput-bound = [0, 100]\n"), &files, "holds fewer than q = 3329 residues");
    refused(&format!("{head}[kernel.adapt.a]\nfactor = 3329\n"), &files, "factor 3329 has no inverse mod 3329");
    refused(
        &format!("{head}[kernel.adapt.out]\ninput-bound = [0, 4000]\n"),
        &files,
        "an output-only buffer takes no input bound",
    );
    let keccak = "[[kernel]]\nsymbol = \"k\"\ncontract = \"keccak.f1600\"\n[kernel.adapt.s]\nfactor = 2\n";
    refused(&format!("core = \"m55\"\nsources = [\"k.S\"]\n{keccak}"), &files, "computes no residues mod q");
}

#[test]
fn objects_for_another_architecture_or_float_abi_are_refused() {
    let dir = tempfile::tempdir().unwrap();
    let c = dir.path().join("k.c");
    std::fs::write(&c, "void k(void) {}\n").unwrap();
    let host = dir.path().join("host.o");
    assert!(Command::new("cc").arg("-c").arg(&c).arg("-o").arg(&host).status().unwrap().success());
    let soft = dir.path().join("soft.o");
    let status = Command::new("arm-none-eabi-gcc")
        .args(["-mcpu=cortex-m55", "-mthumb", "-mfloat-abi=soft", "-c"])
        .arg(&c)
        .arg("-o")
        .arg(&soft)
        .status()
        .unwrap();
    assert!(status.success());
    for (object, expected) in [(&host, "not 32-bit Arm"), (&soft, "built for the soft-float ABI")] {
        let manifest = format!("core = \"m55\"\nobjects = [\"{}\"]\n{BASEMUL}", object.display());
        refused(&manifest, &[], expected);
    }
}

#[test]
fn an_undefined_symbol_at_link_time_is_named() {
    let source = ".syntax unified\n.thumb\n.text\n.global k\n.thumb_func\nk:\n b missing_helper\n";
    let manifest = format!("core = \"m55\"\nsources = [\"k.S\"]\n{BASEMUL}");
    refused(&manifest, &[("k.S", source)], "link: undefined symbol `missing_helper`");
}

#[test]
fn a_bad_manifest_names_its_line_and_column() {
    let files = [("k.S", K_SOURCE)];
    let unknown = format!("core = \"m55\"\nsources = [\"k.S\"]\n{BASEMUL}colour = \"red\"\n");
    refused(&unknown, &files, "m.toml:6:1: unknown field `colour`");
    let wrong_type = format!("core = 55\nsources = [\"k.S\"]\n{BASEMUL}");
    refused(&wrong_type, &files, "m.toml:1:8: invalid type: integer `55`, expected a string");
    refused(&format!("core = \"m33\"\nsources = [\"k.S\"]\n{BASEMUL}"), &files, "unknown core `m33` (m55, m85, m7)");
}

#[test]
fn an_object_with_an_unpredictable_encoding_is_refused_with_its_location() {
    let fixture = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/lint_unpredictable.S");
    let manifest = format!("core = \"m55\"\nsources = [\"{}\"]\n{BASEMUL}", fixture.display());
    refused(&manifest, &[], "the lint refuses it: lint_writeback+0x0");
}

#[test]
fn c_sources_link_with_c_library_helpers_for_the_m85_with_clang() {
    let source = "#include <string.h>\nvoid k(short *out, const short *a, const short *b) {\n    \
                  memcpy(out, a, 512);\n    (void)b;\n}\n";
    let dir = tempfile::tempdir().unwrap();
    let path = write(
        dir.path(),
        &format!("core = \"m85\"\nsources = [\"k.c\"]\nflags = [\"-O2\"]\n{BASEMUL}"),
        &[("k.c", source)],
    );
    let elf = dir.path().join("out.elf");
    let (code, out, err) = pqhelium(&["link", "--manifest", path.to_str().unwrap(), "-o", elf.to_str().unwrap()]);
    assert_eq!(code, 0, "{out}{err}");
    assert!(out.contains("cortex-m85 harness"), "{out}");
    let symbols = Command::new("arm-none-eabi-nm").arg(&elf).output().unwrap();
    assert!(String::from_utf8_lossy(&symbols.stdout).contains(" memcpy"), "memcpy from newlib");
}

/// The contract layer's checks apply to their code as to ours: a write past a buffer and a clobbered callee-saved
/// register fail the check (exit code 1) with what happened.
#[test]
fn a_kernel_that_overruns_or_clobbers_fails_the_check() {
    let overrun = ".syntax unified\n.thumb\n.text\n.global k\n.thumb_func\nk:\n strh r1, [r0, #512]\n bx lr\n";
    let clobber = ".syntax unified\n.thumb\n.text\n.global k\n.thumb_func\nk:\n movs r4, #0\n bx lr\n";
    for (source, expected) in [(overrun, "kernel wrote outside buffer 0"), (clobber, "calling convention violated: r4")]
    {
        let dir = tempfile::tempdir().unwrap();
        let path = write(dir.path(), &format!("core = \"m55\"\nsources = [\"k.S\"]\n{BASEMUL}"), &[("k.S", source)]);
        let (code, out, err) =
            pqhelium(&["check", "--manifest", path.to_str().unwrap(), "--cases", "20", "--jobs", "1"]);
        assert_eq!(code, 1, "{out}{err}");
        assert!(out.contains(expected), "expected `{expected}` in: {out}");
    }
}
