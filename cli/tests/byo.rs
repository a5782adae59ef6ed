//! Bring your own object code: the worked example (`examples/byo/`) through `link`, `check`, `fuzz`, `repro` and
//! `bench` from its manifest alone, its mutant caught, and every error a user will hit as one line with exit code 2.

use std::path::{Path, PathBuf};
use std::process::Command;

mod common;
use common::pqhelium;

fn example(name: &str) -> String {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../examples/byo").join(name).display().to_string()
}

const KERNEL: &str = "byo_basemul_bitrev_mont";
const SHARED_HEADER: &str = "mlkem_mont.h";

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
    // Shrunk to one coefficient of `a` in their i16 elements; their table's address in hex.
    let shrunk = out.lines().find_map(|l| l.trim().strip_prefix("shrunk input: ")).expect("a shrunk input");
    assert!(shrunk.starts_with("a: 256 x i16, all 0 but a[") && !shrunk.contains(", a["), "{shrunk}");
    assert!(shrunk.contains("; byo_gammas_mont = 0x"), "{shrunk}");
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

/// `m.toml` and these files written into `dir`, beside the examples' shared header (their `.S` files include it).
fn write(dir: &Path, manifest: &str, files: &[(&str, &str)]) -> PathBuf {
    std::fs::copy(example(SHARED_HEADER), dir.join(SHARED_HEADER)).unwrap();
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

/// Relative paths in the flags are relative to the manifest, as its other paths are, wherever pqhelium runs from:
/// `-I inc` finds the header of a source in another folder of the manifest's.
#[test]
fn an_include_folder_in_the_flags_is_relative_to_the_manifest() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir_all(dir.path().join("src")).unwrap();
    std::fs::create_dir_all(dir.path().join("inc")).unwrap();
    std::fs::write(dir.path().join("inc/ret.h"), "#define RETURN bx lr\n").unwrap();
    let source = K_SOURCE.replace(" bx lr", " RETURN");
    std::fs::write(dir.path().join("src/k.S"), format!("#include \"ret.h\"\n{source}")).unwrap();
    let manifest = dir.path().join("m.toml");
    std::fs::write(&manifest, format!("core = \"m55\"\nsources = [\"src/k.S\"]\nflags = [\"-I\", \"inc\"]\n{BASEMUL}"))
        .unwrap();
    assert_ne!(std::env::current_dir().unwrap(), dir.path(), "pqhelium runs from another folder");
    let elf = dir.path().join("out.elf");
    let (code, out, err) = pqhelium(&["link", "--manifest", manifest.to_str().unwrap(), "-o", elf.to_str().unwrap()]);
    assert_eq!(code, 0, "{out}{err}");
    assert!(elf.is_file());
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
    refused(&format!("core = \"m55\"\nsources = [\"k.S\"]\n{keccak}"), &files, "`s`: holds no residues mod q");
    // A polynomial kernel's encoding is bytes, not residues: its factor is refused, naming it.
    let compress =
        "[[kernel]]\nsymbol = \"k\"\ncontract = \"mlkem.compress.dv4.scalar\"\n[kernel.adapt.out]\nfactor = 2\n";
    refused(&format!("core = \"m55\"\nsources = [\"k.S\"]\n{compress}"), &files, "`out`: holds no residues mod q");
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
    refused(&manifest, &[], "the lint refuses it (9 findings): ");
    refused(&manifest, &[], "lint_unpredictable.S:11: lint_writeback+0x0 (.text 0x0) `ldrd r0, r1, [r0], #8`");
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

/// The instruction offset of the first `mnemonic` in `symbol` of a linked image, from binutils' disassembler.
fn offset_of(elf: &Path, symbol: &str, mnemonic: &str) -> u32 {
    let out = Command::new("arm-none-eabi-objdump").args(["-d", &format!("--disassemble={symbol}")]).arg(elf).output();
    let text = String::from_utf8(out.unwrap().stdout).unwrap();
    let address = |line: &str| u32::from_str_radix(line.trim().split(':').next().unwrap().trim(), 16).unwrap();
    let start = text.lines().find(|l| l.ends_with(&format!("<{symbol}>:"))).expect("the symbol");
    let start = u32::from_str_radix(start.split_whitespace().next().unwrap(), 16).unwrap();
    // `ldrb` or its wide form `ldrb.w`.
    let is = |m: &str| m.trim() == mnemonic || m.trim().strip_prefix(mnemonic) == Some(".w");
    let line = text.lines().find(|l| l.split('\t').nth(2).is_some_and(is)).expect(mnemonic);
    address(line) - start
}

#[test]
fn ct_passes_the_example_and_reports_a_secret_indexed_load_with_its_symbol_and_offset() {
    let (code, out, err) = pqhelium(&["ct", "--manifest", &example("byo.toml"), "--pairs", "3"]);
    assert_eq!(code, 0, "{out}{err}");
    assert!(out.contains(&format!("pass {KERNEL}: 3 pairs, equal traces")), "{out}");
    assert!(out.contains("leakage traces on qemu (byo-m55 image)"), "{out}");

    let manifest = example("leaky.toml");
    let dir = tempfile::tempdir().unwrap();
    let elf = dir.path().join("leaky.elf");
    let (code, out, err) = pqhelium(&["link", "--manifest", &manifest, "-o", elf.to_str().unwrap()]);
    assert_eq!(code, 0, "{out}{err}");
    let load = offset_of(&elf, KERNEL, "ldrb");
    let (code, out, err) = pqhelium(&["ct", "--manifest", &manifest, "--pairs", "3"]);
    assert_eq!(code, 1, "{out}{err}");
    assert!(out.contains(&format!("LEAK {KERNEL}: memory address leak at {KERNEL}+{load:#x} (")), "{out}");
    let line = out.lines().find(|l| l.contains("reproduce: pqhelium ct")).expect("a reproduction line");
    assert!(line.contains(&format!("--kernel {KERNEL} --manifest {manifest} --seed 1 --pair ")), "{line}");
    let command: Vec<&str> = line.split("pqhelium ").nth(1).unwrap().split_whitespace().collect();
    let (code, out, _) = pqhelium(&command);
    assert_eq!(code, 1, "{out}");
    assert!(out.contains(&format!("{KERNEL}+{load:#x}")), "{out}");
}

/// The example's loop is 26 instructions for each of the 128 pairs, with 4 before it and the return after it.
const EXAMPLE_INSTRUCTIONS: u64 = 4 + 128 * 26 + 1;

#[test]
fn cycles_estimates_their_symbol_on_the_manifest_s_core() {
    let (code, out, err) = pqhelium(&["cycles", "--manifest", &example("byo.toml"), "--calls", "2"]);
    assert_eq!(code, 0, "{out}{err}");
    let line = out.lines().find(|l| l.starts_with(&format!("{KERNEL} m55: "))).expect("a line for their symbol");
    assert!(line.ends_with(&format!(" cycles/call, {EXAMPLE_INSTRUCTIONS} instructions/call")), "{line}");
    let cycles: f64 = line.split_whitespace().nth(2).unwrap().parse().unwrap();
    // At least one cycle per instruction on the in-order M55 less the dual issue it does not have for these.
    assert!(cycles >= EXAMPLE_INSTRUCTIONS as f64 * 0.9, "{line}");
    assert!(out.contains("1 estimates"), "{out}");

    let dir = tempfile::tempdir().unwrap();
    let path = write(dir.path(), &format!("core = \"m7\"\nsources = [\"k.S\"]\n{BASEMUL}"), &[("k.S", K_SOURCE)]);
    let (code, out, err) = pqhelium(&["cycles", "--manifest", path.to_str().unwrap()]);
    assert_eq!(code, 2, "{out}{err}");
    assert!(err.contains("cycles are estimated for the Cortex-M55 and Cortex-M85; the manifest's core is cortex-m7"));
}

/// C sources whose flags set no optimisation level are built at our images' -O2, not the compilers' -O0: the same
/// instructions per call as with `-O2` given, fewer than with `-O0`.
#[test]
fn c_sources_without_an_optimisation_flag_are_built_at_o2() {
    let source = "#include <stdint.h>\nvoid k(int16_t p[256]) {\n    \
                  for (int i = 0; i < 256; i++) p[i] = (int16_t)(((p[i] % 3329) + 3329) % 3329);\n}\n";
    let dir = tempfile::tempdir().unwrap();
    let instructions = |flags: &str| {
        let manifest = format!(
            "core = \"m55\"\nsources = [\"k.c\"]\n{flags}\n[[kernel]]\nsymbol = \"k\"\n\
             contract = \"mlkem.poly.reduce.scalar\"\n"
        );
        let path = write(dir.path(), &manifest, &[("k.c", source)]);
        let (code, out, err) = pqhelium(&["cycles", "--manifest", path.to_str().unwrap(), "--calls", "1"]);
        assert_eq!(code, 0, "{flags}: {out}{err}");
        let line = out.lines().find(|l| l.starts_with("k m55: ")).unwrap_or_else(|| panic!("{flags}: {out}"));
        let count = line.rsplit(", ").next().and_then(|c| c.split_whitespace().next()).map(str::parse::<u64>);
        count.unwrap_or_else(|| panic!("{line}")).unwrap()
    };
    let (default, o2, o0) = (instructions(""), instructions("flags = [\"-O2\"]"), instructions("flags = [\"-O0\"]"));
    assert_eq!(default, o2);
    assert!(o0 > 2 * o2, "-O0 {o0}, -O2 {o2}");
}

/// The example's manifest with its three `order = "bit-reversal"` lines replaced by `order`.
fn example_with_order(dir: &Path, order: &str, files: &[(&str, &str)]) -> PathBuf {
    let source = std::fs::read_to_string(example("basemul_bitrev_mont.S")).unwrap();
    let manifest = std::fs::read_to_string(example("byo.toml")).unwrap().replace("order = \"bit-reversal\"", order);
    let mut files = files.to_vec();
    files.push(("basemul_bitrev_mont.S", &source));
    write(dir, &manifest, &files)
}

fn check(path: &Path, cases: &str) -> (i32, String, String) {
    pqhelium(&["check", "--manifest", path.to_str().unwrap(), "--cases", cases, "--jobs", "1"])
}

#[test]
fn storage_orders_as_a_formula_or_a_file_of_indices() {
    // The example's bit reversal of 8-bit indices, as a formula and as a list computed here.
    let dir = tempfile::tempdir().unwrap();
    let path = example_with_order(dir.path(), "order-formula = \"bitrev(i, 8)\"", &[]);
    let (code, out, err) = check(&path, "100");
    assert_eq!(code, 0, "{out}{err}");
    assert!(out.contains("order-formula `bitrev(i, 8)`"), "{out}");

    let list: Vec<String> = (0..256u32).map(|s| (s.reverse_bits() >> 24).to_string()).collect();
    let file = format!("# bit-reversed\n{}\n", list.join(", "));
    let path = example_with_order(dir.path(), "order-file = \"bitrev.txt\"", &[("bitrev.txt", &file)]);
    let (code, out, err) = check(&path, "100");
    assert_eq!(code, 0, "{out}{err}");
    assert!(out.contains("order from order-file bitrev.txt"), "{out}");

    // Another permutation (pairs swapped: the even-odd map of another library) is not the kernel's order: caught.
    let path = example_with_order(dir.path(), "order-formula = \"bitrev(i ^ 1, 8)\"", &[]);
    let (code, out, err) = check(&path, "20");
    assert_eq!(code, 1, "{out}{err}");
    assert!(out.contains("reference and canon(qemu) differ"), "{out}");
}

#[test]
fn an_order_that_is_not_a_permutation_of_the_length_is_refused() {
    let head = format!("core = \"m55\"\nsources = [\"k.S\"]\n{BASEMUL}[kernel.adapt.a]\n");
    let files = [("k.S", K_SOURCE)];
    refused(
        &format!("{head}order-formula = \"(i % 2) * 128 + i / 4\"\n"),
        &files,
        "`a`: order-formula `(i % 2) * 128 + i / 4`: indices 0 and 2 both give 0: not a permutation of 0..256",
    );
    // Values outside 0..n, divisions by zero and overflows: the formula module's unit tests.
    refused(
        &format!("{head}order-formula = \"2 * j\"\n"),
        &files,
        "order-formula `2 * j`: at column 5: unknown name `j`",
    );
    let short: Vec<String> = (0..255).map(|i| i.to_string()).collect();
    refused(
        &format!("{head}order-file = \"p.txt\"\n"),
        &[("k.S", K_SOURCE), ("p.txt", &short.join(" "))],
        "`a`: order-file p.txt: 255 indices for 256 elements",
    );
    refused(
        &format!("{head}order-file = \"p.txt\"\n"),
        &[("k.S", K_SOURCE), ("p.txt", "0 1\n2 x\n")],
        "p.txt:2: `x` is not an index",
    );
    refused(
        &format!("{head}order = \"bit-reversal\"\norder-formula = \"i\"\n"),
        &files,
        "at most one of order, order-file and order-formula",
    );
}

#[test]
fn in_place_and_out_of_place_forms() {
    // Their base multiplication in place over `a`, the contract's out of place.
    let dir = tempfile::tempdir().unwrap();
    let source = std::fs::read_to_string(example("basemul_bitrev_mont.S")).unwrap();
    let manifest = std::fs::read_to_string(example("byo.toml"))
        .unwrap()
        .replace(
            "sources = [\"basemul_bitrev_mont.S\"]",
            "sources = [\"basemul_bitrev_mont.S\"]\nflags = [\"-DIN_PLACE\"]",
        )
        .replace("args = [\"a\", \"b\", \"out\",", "args = [{ in-place = [\"a\", \"out\"] }, \"b\",");
    let path = write(dir.path(), &manifest, &[("basemul_bitrev_mont.S", &source)]);
    let (code, out, err) = check(&path, "100");
    assert_eq!(code, 0, "{out}{err}");
    assert!(out.contains("a and out: one buffer, in place"), "{out}");
    // The in-place build given the out-of-place arguments reads gammas from where `out` is: caught.
    let wrong = manifest.replace("args = [{ in-place = [\"a\", \"out\"] }, \"b\",", "args = [\"a\", \"b\", \"out\",");
    let path = write(dir.path(), &wrong, &[]);
    let (code, out, err) = check(&path, "20");
    assert_eq!(code, 1, "{out}{err}");

    // Their Keccak permutation out of place, the contract's in place.
    let keccak = std::fs::read_to_string(example("keccak_x4.c")).unwrap();
    let manifest = "core = \"m55\"\nsources = [\"keccak_x4.c\"]\nflags = [\"-O2\"]\n[[kernel]]\n\
                    symbol = \"byo_keccak_f1600_oop\"\ncontract = \"keccak.f1600\"\nargs = [{ input = \"s\" }, \"s\"]\n";
    let path = write(dir.path(), manifest, &[("keccak_x4.c", &keccak)]);
    let (code, out, err) = check(&path, "40");
    assert_eq!(code, 0, "{out}{err}");
    assert!(out.contains("s: out of place, its input in a buffer of its own"), "{out}");
    // The two buffers swapped: it reads the poisoned output buffer and writes its read-only input: caught.
    let path = write(dir.path(), &manifest.replace("[{ input = \"s\" }, \"s\"]", "[\"s\", { input = \"s\" }]"), &[]);
    let (code, out, err) = check(&path, "20");
    assert_eq!(code, 1, "{out}{err}");

    let head = format!("core = \"m55\"\nsources = [\"k.S\"]\n{BASEMUL}");
    let files = [("k.S", K_SOURCE)];
    refused(
        &format!("{head}args = [{{ input = \"a\" }}, \"a\", \"b\", \"out\"]\n"),
        &files,
        "{ input = \"a\" } takes the input of an in-out argument of the contract, once",
    );
    refused(
        &format!("{head}args = [{{ in-place = [\"a\", \"b\"] }}, \"out\"]\n"),
        &files,
        "{ in-place = [\"a\", \"b\"] } takes an input and an output of the contract of one type and length",
    );
}

#[test]
fn a_four_way_keccak_is_checked_as_four_single_permutations() {
    let manifest = example("keccak_x4.toml");
    let (code, out, err) = pqhelium(&["check", "--manifest", &manifest, "--cases", "12", "--jobs", "1"]);
    assert_eq!(code, 0, "{out}{err}");
    assert!(out.contains("| byo_keccak_f1600_x4 | keccak.f1600 | qemu (keccak_x4-m55) | 12 | 0 | 0 |"), "{out}");
    assert!(out.contains("4 states per call (element e of state j at k e + j)"), "{out}");

    let dir = tempfile::tempdir().unwrap();
    let keccak = std::fs::read_to_string(example("keccak_x4.c")).unwrap();
    let text = std::fs::read_to_string(&manifest).unwrap();
    let variant = |flags: &str, layout: &str| {
        let m = text.replace("flags = [\"-O2\"]", flags).replace("layout = \"interleaved\"", layout);
        write(dir.path(), &m, &[("keccak_x4.c", &keccak)])
    };
    // The consecutive build declared consecutive passes; declared interleaved, it fails; the mutant fails.
    let consecutive = "flags = [\"-O2\", \"-DCONSECUTIVE\"]";
    let (code, out, err) = check(&variant(consecutive, "layout = \"consecutive\""), "6");
    assert_eq!(code, 0, "{out}{err}");
    let (code, out, err) = check(&variant(consecutive, "layout = \"interleaved\""), "6");
    assert_eq!(code, 1, "{out}{err}");
    let (code, out, err) = check(&variant("flags = [\"-O2\", \"-DMUTANT\"]", "layout = \"interleaved\""), "6");
    assert_eq!(code, 1, "{out}{err}");
    assert!(out.contains("reference and canon(qemu) differ"), "{out}");

    let path = variant("flags = [\"-O2\"]", "");
    let (code, out, err) = check(&path, "1");
    assert_eq!(code, 2, "{out}{err}");
    assert!(err.contains("`byo_keccak_f1600_x4`: states = 4 needs a layout (interleaved, consecutive)"), "{err}");
}

#[test]
fn resume_refuses_a_changed_manifest() {
    let dir = tempfile::tempdir().unwrap();
    let source = std::fs::read_to_string(example("basemul_bitrev_mont.S")).unwrap();
    let text = std::fs::read_to_string(example("byo.toml")).unwrap();
    let path = write(dir.path(), &text, &[("basemul_bitrev_mont.S", &source)]);
    let (manifest, state) = (path.to_str().unwrap(), dir.path().join("state.json"));
    let state = state.to_str().unwrap();
    let (code, out, err) =
        pqhelium(&["fuzz", "--manifest", manifest, "--cases", "20", "--jobs", "1", "--state", state]);
    assert_eq!(code, 0, "{out}{err}");
    let json: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(state).unwrap()).unwrap();
    assert_eq!(json["plan"]["manifest"]["path"], manifest);
    assert_eq!(json["plan"]["manifest"]["sha256"].as_str().unwrap().len(), 64);
    // Resumed without --manifest: the checkpoint's manifest, its kernel already complete.
    let (code, out, err) = pqhelium(&["fuzz", "--kernel", "*", "--resume", state, "--jobs", "1"]);
    assert_eq!(code, 0, "{out}{err}");
    assert!(out.contains(&format!("{KERNEL} on qemu (m-m55): already complete (20 cases)")), "{out}");
    std::fs::write(&path, format!("{text}# changed\n")).unwrap();
    let (code, out, err) = pqhelium(&["fuzz", "--kernel", "*", "--resume", state, "--jobs", "1"]);
    assert_eq!(code, 2, "{out}{err}");
    assert_eq!(err.lines().count(), 1, "{err}");
    assert!(err.contains(&format!("{manifest} changed since the checkpoint {state} was written")), "{err}");
}

/// FN-DSA's modulus (q = 12289) through the same adapters: their pointwise product takes unsigned residues.
#[test]
fn a_kernel_mod_the_fn_dsa_prime_with_unsigned_inputs() {
    let source = |q: u32| {
        format!(
            "#include <stdint.h>\nvoid k(int16_t *r, const int16_t *a, const int16_t *b) {{\n    \
             for (int i = 0; i < 512; i++) r[i] = (int16_t)(((int32_t)a[i] * b[i]) % {q});\n}}\n"
        )
    };
    let manifest = "core = \"m55\"\nsources = [\"k.c\"]\nflags = [\"-O2\"]\n[[kernel]]\nsymbol = \"k\"\n\
                    contract = \"fndsa.ntt512.pointwise.scalar\"\n[kernel.adapt.a]\nform = \"unsigned\"\n\
                    [kernel.adapt.b]\nform = \"unsigned\"\n";
    let dir = tempfile::tempdir().unwrap();
    let path = write(dir.path(), manifest, &[("k.c", &source(12289))]);
    let (code, out, err) = check(&path, "60");
    assert_eq!(code, 0, "{out}{err}");
    assert!(out.contains("times 1 mod 12289, unsigned"), "{out}");
    // The same kernel reducing mod 12288: caught.
    let path = write(dir.path(), manifest, &[("k.c", &source(12288))]);
    let (code, out, err) = check(&path, "60");
    assert_eq!(code, 1, "{out}{err}");
}

/// An ML-KEM polynomial kernel through a factor: their compression takes its polynomial in the Montgomery domain
/// (times 2^16 mod q, centred) and leaves it with R^-1 = 169 before Compress_4 and ByteEncode_4.
#[test]
fn a_polynomial_kernel_in_the_montgomery_domain() {
    let source = |r_inverse: u32| {
        format!(
            "#include <stdint.h>\nvoid k(uint8_t *out, const int16_t *p) {{\n    \
             for (int i = 0; i < 128; i++) out[i] = 0;\n    \
             for (int i = 0; i < 256; i++) {{\n        \
             int32_t x = ((int32_t)p[i] * {r_inverse}) % 3329;\n        \
             if (x < 0) x += 3329;\n        \
             uint32_t c = ((uint32_t)(32 * x + 3329) / 6658) & 15;\n        \
             out[i / 2] |= (uint8_t)(c << (4 * (i % 2)));\n    }}\n}}\n"
        )
    };
    let manifest = "core = \"m55\"\nsources = [\"k.c\"]\nflags = [\"-O2\"]\n[[kernel]]\nsymbol = \"k\"\n\
                    contract = \"mlkem.compress.dv4.scalar\"\n[kernel.adapt.p]\nfactor = 2285\nform = \"centred\"\n";
    let dir = tempfile::tempdir().unwrap();
    let path = write(dir.path(), manifest, &[("k.c", &source(169))]);
    let (code, out, err) = check(&path, "60");
    assert_eq!(code, 0, "{out}{err}");
    assert!(out.contains("p: times 2285 mod 3329, centred"), "{out}");
    // The wrong R^-1: caught.
    let path = write(dir.path(), manifest, &[("k.c", &source(170))]);
    let (code, out, err) = check(&path, "60");
    assert_eq!(code, 1, "{out}{err}");
}

/// The example's code in a section of its own name and its table in writable data: placed by the linker beside
/// ours, checked and traced as before.
#[test]
fn code_in_non_standard_sections_and_tables_in_writable_data() {
    let dir = tempfile::tempdir().unwrap();
    let source = std::fs::read_to_string(example("basemul_bitrev_mont.S"))
        .unwrap()
        .replace("\n    .text\n", "\n    .section .fastcode, \"ax\"\n")
        .replace(".section .rodata.byo_gammas_mont, \"a\"", ".section .twiddles, \"aw\"");
    assert!(source.contains(".fastcode") && source.contains(".twiddles"));
    let manifest = std::fs::read_to_string(example("byo.toml")).unwrap();
    let path = write(dir.path(), &manifest, &[("basemul_bitrev_mont.S", &source)]);
    let elf = dir.path().join("their.elf");
    let (code, out, err) = pqhelium(&["link", "--manifest", path.to_str().unwrap(), "-o", elf.to_str().unwrap()]);
    assert_eq!(code, 0, "{out}{err}");
    let sections = Command::new("arm-none-eabi-readelf").arg("-S").arg(&elf).output().unwrap();
    let sections = String::from_utf8_lossy(&sections.stdout).into_owned();
    // `[ N] NAME TYPE ADDRESS OFFSET SIZE ES FLAGS ...`: the flags of the section's line.
    let flagged = |name: &str, flags: &str| {
        sections.lines().any(|l| l.split_whitespace().any(|w| w == name) && l.split_whitespace().any(|w| w == flags))
    };
    assert!(flagged(".fastcode", "AX") && flagged(".twiddles", "WA"), "{sections}");
    let (code, out, err) = check(&path, "40");
    assert_eq!(code, 0, "{out}{err}");
    assert!(out.contains(&format!("| {KERNEL} | mlkem.basemul.scalar | qemu (m-m55) | 40 | 0 | 0 |")), "{out}");
}

/// The alias example with its `[aliases]` entry replaced.
fn alias_example(dir: &Path, alias: &str) -> PathBuf {
    let source = std::fs::read_to_string(example("ntt_alias.c")).unwrap();
    let manifest = std::fs::read_to_string(example("ntt_alias.toml")).unwrap();
    assert!(manifest.contains("byo_zeta = \"pqh_mlkem_zeta\""));
    let manifest = manifest.replace("byo_zeta = \"pqh_mlkem_zeta\"", alias);
    write(dir, &manifest, &[("ntt_alias.c", &source)])
}

#[test]
fn a_table_aliased_to_one_of_ours_links_and_passes_and_a_wrong_or_unknown_table_does_not() {
    // The NTT declares `byo_zeta` and defines no table: the alias to ours makes it correct.
    let (code, out, err) = check(Path::new(&example("ntt_alias.toml")), "100");
    assert_eq!(code, 0, "{out}{err}");
    assert!(out.contains("byo_ntt_fwd_alias") && out.contains("100 cases, 0 mismatches, 0 faults"), "{out}");
    // Aliased to another table of ours of the same shape (the base multiplication's gammas): wrong results.
    let dir = tempfile::tempdir().unwrap();
    let wrong = alias_example(dir.path(), "byo_zeta = \"pqh_mlkem_gamma\"");
    let (code, out, err) = check(&wrong, "20");
    assert_eq!(code, 1, "{out}{err}");
    assert!(out.contains("check FAILED"), "{out}");
    // A table we do not have, and a name that is no symbol: one line each, exit 2.
    for (alias, expected) in [
        ("byo_zeta = \"pqh_no_table\"", "our m55 kernels have no table `pqh_no_table`"),
        ("\"byo zeta\" = \"pqh_mlkem_zeta\"", "`byo zeta` is not a symbol name"),
    ] {
        let dir = tempfile::tempdir().unwrap();
        let path = alias_example(dir.path(), alias);
        let (code, out, err) = check(&path, "20");
        assert_eq!(code, 2, "{out}{err}");
        assert_eq!(err.lines().count(), 1, "{err}");
        assert!(err.contains(expected), "expected `{expected}` in: {err}");
    }
}

/// A kernel whose output's order and domain differ from its input's: it reduces an ML-KEM polynomial
/// (`mlkem.poly.reduce.scalar`, natural order in) and writes it bit-reversed and times 2^16 mod q (2285), in place
/// and out of place. Its adapters are given per direction; one adapter for both directions, or a wrong factor, fails.
#[test]
fn adapters_per_direction() {
    let source = |factor: u32| {
        format!(
            "#include <stdint.h>\n\
             static int16_t out_of(const int16_t *in, int s) {{\n    \
             int r = 0;\n    for (int b = 0; b < 8; b++) r |= ((s >> b) & 1) << (7 - b);\n    \
             int32_t x = ((int32_t)in[r] * {factor}) % 3329;\n    return (int16_t)x;\n}}\n\
             void k(int16_t *p) {{\n    int16_t in[256];\n    for (int i = 0; i < 256; i++) in[i] = p[i];\n    \
             for (int s = 0; s < 256; s++) p[s] = out_of(in, s);\n}}\n\
             void k_oop(int16_t *out, const int16_t *in) {{\n    \
             for (int s = 0; s < 256; s++) out[s] = out_of(in, s);\n}}\n"
        )
    };
    let head = "core = \"m55\"\nsources = [\"k.c\"]\nflags = [\"-O2\"]\n\
                [[kernel]]\nsymbol = \"k\"\ncontract = \"mlkem.poly.reduce.scalar\"\n";
    let oop =
        "[[kernel]]\nsymbol = \"k_oop\"\ncontract = \"mlkem.poly.reduce.scalar\"\nargs = [\"p\", { input = \"p\" }]\n";
    let output = "order = \"bit-reversal\"\nfactor = 2285\n";
    let split = format!("{head}[kernel.adapt.p.output]\n{output}{oop}[kernel.adapt.p.output]\n{output}");
    let dir = tempfile::tempdir().unwrap();
    let path = write(dir.path(), &split, &[("k.c", &source(65536))]);
    let (code, out, err) = check(&path, "60");
    assert_eq!(code, 0, "{out}{err}");
    assert!(out.contains("p: in: as the contract's; out: bit-reversed order, times 2285 mod 3329"), "{out}");
    // The same adapter for both directions: the input is bit-reversed and scaled too.
    let flat = format!("{head}[kernel.adapt.p]\n{output}");
    let path = write(dir.path(), &flat, &[]);
    let (code, out, err) = check(&path, "60");
    assert_eq!(code, 1, "{out}{err}");
    // A factor of 2^16 + 1: caught.
    let path = write(dir.path(), &split, &[("k.c", &source(65537))]);
    let (code, out, err) = check(&path, "60");
    assert_eq!(code, 1, "{out}{err}");

    let files = [("k.c", source(65536))];
    let files: Vec<(&str, &str)> = files.iter().map(|(n, t)| (*n, t.as_str())).collect();
    refused(
        &format!("{head}[kernel.adapt.p]\nfactor = 2\n[kernel.adapt.p.output]\nfactor = 2285\n"),
        &files,
        "with an `input` or `output` sub-table, every key goes in a sub-table",
    );
    let basemul = format!("core = \"m55\"\nsources = [\"k.S\"]\n{BASEMUL}[kernel.adapt.a.output]\nfactor = 2\n");
    refused(&basemul, &[("k.S", K_SOURCE)], "`a` is input only: it takes no output adapter");
}

/// An example's manifest and sources copied into `dir`, the manifest edited by `edits` (from, to); its path.
fn example_edited(dir: &Path, manifest: &str, sources: &[&str], edits: &[(&str, &str)]) -> PathBuf {
    for source in sources {
        std::fs::copy(example(source), dir.join(source)).unwrap();
    }
    let text = std::fs::read_to_string(example(manifest)).unwrap();
    let text = edits.iter().fold(text, |t, (from, to)| {
        assert!(t.contains(from), "{from} in {manifest}");
        t.replace(from, to)
    });
    write(dir, &text, &[])
}

const FWD_SOURCES: [&str; 2] = ["ntt_fwd_bitrev_mont.S", "mlkem_zetas.S"];
const INV_SOURCES: [&str; 2] = ["intt_transposed.S", "mlkem_zetas.S"];

/// Two NTTs of our own in assembly, each through its manifest alone: a forward NTT with natural input and
/// bit-reversed Montgomery-domain output over a domain wider than the contract's, and an out-of-place inverse NTT with
/// transposed input and natural output times 128.
#[test]
fn our_own_assembly_ntts_pass_from_their_manifests_with_no_shim() {
    let (code, out, err) = check(Path::new(&example("ntt_fwd.toml")), "40");
    assert_eq!(code, 0, "{out}{err}");
    let row = "| byo_ntt_fwd_bitrev_mont | mlkem.ntt.fwd.scalar | qemu (ntt_fwd-m55) | 40 | 0 | 0 |";
    assert!(out.contains(row), "{out}");
    assert!(out.contains("p: in: inputs in [-32768, 32767]; out: bit-reversed order, times 2285 mod 3329"), "{out}");
    let (code, out, err) = check(Path::new(&example("ntt_inv.toml")), "40");
    assert_eq!(code, 0, "{out}{err}");
    assert!(out.contains("| byo_intt_transposed | mlkem.ntt.inv.scalar | qemu (ntt_inv-m55) | 40 | 0 | 0 |"), "{out}");
    assert!(out.contains("p: out of place, its input in a buffer of its own"), "{out}");
}

/// The forward NTT's manifest declares any int16_t input: the generated inputs cover that domain (values beyond the
/// contract's 8192 and the ends), and a build right only up to |x| = 16384 (-DNARROW) passes over the contract's
/// domain and fails over the declared one.
#[test]
fn a_wider_input_domain_is_tested_as_declared() {
    let manifest = example("ntt_fwd.toml");
    let args = ["repro", "--manifest", &manifest, "--kernel", "byo_ntt_fwd_bitrev_mont", "--seed", "5"];
    let (mut beyond, mut ends) = (0, 0);
    for case in ["20", "21", "22", "23"] {
        let (code, out, err) = pqhelium(&[&args[..], &["--case", case]].concat());
        assert_eq!(code, 0, "{out}{err}");
        let line = out.lines().find(|l| l.starts_with("arg 0 in/out (input, kernel layout) ")).expect(&out);
        let bytes = hex::decode(line.rsplit(' ').next().unwrap()).unwrap();
        let values: Vec<i16> = bytes.chunks(2).map(|b| i16::from_le_bytes([b[0], b[1]])).collect();
        beyond += values.iter().filter(|x| x.unsigned_abs() > 16384).count();
        ends += values.iter().filter(|&&x| x == i16::MIN || x == i16::MAX).count();
    }
    assert!(beyond > 200 && ends > 10, "{beyond} values beyond 16384, {ends} at the ends");

    let dir = tempfile::tempdir().unwrap();
    let narrow = [("core = \"m55\"", "core = \"m55\"\nflags = [\"-DNARROW\"]")];
    let path = example_edited(dir.path(), "ntt_fwd.toml", &FWD_SOURCES, &narrow);
    let (code, out, err) = check(&path, "40");
    assert_eq!(code, 1, "{out}{err}");
    assert!(out.contains("FAIL byo_ntt_fwd_bitrev_mont"), "{out}");
    let contract_domain = [narrow[0], ("input-bound = [-32768, 32767]\n", "")];
    let path = example_edited(dir.path(), "ntt_fwd.toml", &FWD_SOURCES, &contract_domain);
    let (code, out, err) = check(&path, "40");
    assert_eq!(code, 0, "{out}{err}");
}

/// A wrong constant is no adapter mistake: its failure comes with no hint, although its edge cases (every element one
/// value) and shrunk cases (one nonzero element) fit some ratio at every place.
#[test]
fn a_wrong_constant_gets_no_adapter_hint() {
    // Barrett reduction to centred residues with 3328 for q: each output is off by the quotient.
    let source = "#include <stdint.h>\nvoid k(int16_t *p) {\n    for (int i = 0; i < 256; i++) {\n        \
                  int32_t t = ((int32_t)p[i] * 20159 + (1 << 25)) >> 26;\n        p[i] = (int16_t)(p[i] - t * 3328);\n\
                  }\n}\n";
    let manifest = "core = \"m55\"\nsources = [\"k.c\"]\nflags = [\"-O2\"]\n[[kernel]]\nsymbol = \"k\"\n\
                    contract = \"mlkem.poly.reduce.scalar\"\n[kernel.adapt.p]\noutput-bound = [-1700, 1700]\n";
    let dir = tempfile::tempdir().unwrap();
    let path = write(dir.path(), manifest, &[("k.c", source)]);
    let (code, out, err) = check(&path, "40");
    assert_eq!(code, 1, "{out}{err}");
    assert!(out.contains("reference and canon(qemu) differ"), "{out}");
    assert!(!out.contains("hint:"), "{out}");
}

/// An output adapter with the wrong factor fails, with a hint giving the factor that would match; an output with its
/// order left out fails with a hint about the order.
#[test]
fn a_wrong_output_adapter_fails_with_a_hint() {
    let dir = tempfile::tempdir().unwrap();
    let path = example_edited(dir.path(), "ntt_fwd.toml", &FWD_SOURCES, &[("factor = 2285", "factor = 1")]);
    let (code, out, err) = check(&path, "40");
    assert_eq!(code, 1, "{out}{err}");
    let hint = "hint: `p`'s outputs, adapters undone, are the reference's times 2285 mod 3329 at every place: an \
                output factor of 2285 (the manifest says 1) would match";
    assert!(out.contains(hint), "{out}");

    let path = example_edited(dir.path(), "ntt_inv.toml", &INV_SOURCES, &[("factor = 128", "factor = 3303")]);
    let (code, out, err) = check(&path, "40");
    assert_eq!(code, 1, "{out}{err}");
    // 3303 = 128^-1 mod q: undoing it multiplies the outputs by 128 once more, 128^2 = 3068 mod q.
    assert!(
        out.contains(
            "are the reference's times 3068 mod 3329 at every place: an output factor of 128 (the \
                          manifest says 3303) would match"
        ),
        "{out}"
    );

    let path = example_edited(dir.path(), "ntt_fwd.toml", &FWD_SOURCES, &[("order = \"bit-reversal\"\n", "")]);
    let (code, out, err) = check(&path, "40");
    assert_eq!(code, 1, "{out}{err}");
    assert!(out.contains("hint: `p`'s outputs, adapters undone, are the reference's values in another order"), "{out}");
}

/// One adapter for both directions where the kernel meant only its output: the check fails, and the hint names the
/// sub-table that passes the failing case.
#[test]
fn a_flat_adapter_meant_for_one_direction_gets_a_hint() {
    let dir = tempfile::tempdir().unwrap();
    let flat = [
        ("[kernel.adapt.p.input]\ninput-bound = [-32768, 32767]\n", ""),
        ("[kernel.adapt.p.output]", "[kernel.adapt.p]"),
    ];
    let path = example_edited(dir.path(), "ntt_fwd.toml", &FWD_SOURCES, &flat);
    let (code, out, err) = check(&path, "10");
    assert_eq!(code, 1, "{out}{err}");
    let hint = "hint: the flat [kernel.adapt.p] applies to both directions of `p`; with it on the output alone this \
                case passes: did you mean [kernel.adapt.p.output]?";
    assert!(out.contains(hint), "{out}");
}

/// Named representations, each declared on one direction or both: Montgomery (the forward NTT's output factor by
/// name), unsigned elements (a reduction writing lazy residues above 2^15), standard Keccak lanes (a textbook
/// Keccak-f[1600] against the bit-interleaved contract), and a storage order from a file on the output alone.
#[test]
fn named_representations_convert_each_direction() {
    let dir = tempfile::tempdir().unwrap();
    let montgomery = [("factor = 2285", "representation = \"montgomery\"")];
    let path = example_edited(dir.path(), "ntt_fwd.toml", &FWD_SOURCES, &montgomery);
    let (code, out, err) = check(&path, "20");
    assert_eq!(code, 0, "{out}{err}");
    assert!(out.contains("out: bit-reversed order, Montgomery domain, outputs in"), "{out}");

    // The output order as a file: index s holds the contract's coefficient BitRev8(s), listed here.
    let list: Vec<String> = (0..256u32).map(|s| ((s as u8).reverse_bits()).to_string()).collect();
    std::fs::write(dir.path().join("bitrev8.txt"), list.join("\n")).unwrap();
    let from_file = [("order = \"bit-reversal\"", "order-file = \"bitrev8.txt\"")];
    let path = example_edited(dir.path(), "ntt_fwd.toml", &FWD_SOURCES, &from_file);
    let (code, out, err) = check(&path, "20");
    assert_eq!(code, 0, "{out}{err}");

    // p[i] = (p[i] mod q) + 17 q as a uint16_t: from 53265 to 59921, read as int16_t another residue.
    let source = "#include <stdint.h>\nvoid k(uint16_t *p) {\n    for (int i = 0; i < 256; i++) {\n        \
                  int32_t x = (int16_t)p[i] % 3329;\n        p[i] = (uint16_t)(x + 17 * 3329);\n    }\n}\n";
    let head = "core = \"m55\"\nsources = [\"k.c\"]\nflags = [\"-O2\"]\n\
                [[kernel]]\nsymbol = \"k\"\ncontract = \"mlkem.poly.reduce.scalar\"\n";
    let unsigned = format!("{head}[kernel.adapt.p.output]\nrepresentation = \"unsigned\"\n");
    let path = write(dir.path(), &unsigned, &[("k.c", source)]);
    let (code, out, err) = check(&path, "20");
    assert_eq!(code, 0, "{out}{err}");
    let path = write(dir.path(), head, &[("k.c", source)]);
    let (code, out, err) = check(&path, "20");
    assert_eq!(code, 1, "read as the contract's int16_t, it fails: {out}{err}");

    // A textbook Keccak on standard lanes: it passes as declared, and fails every case against the bit-interleaved
    // contract without its representation.
    let path = Path::new(&example("keccak_standard.toml")).to_path_buf();
    let (code, out, err) = check(&path, "16");
    assert_eq!(code, 0, "{out}{err}");
    assert!(
        out.contains("| byo_keccak_f1600_standard | keccak.f1600 | qemu (keccak_standard-m55) | 16 | 0 | 0 |"),
        "{out}"
    );
    let undeclared = [("[kernel.adapt.s]\nrepresentation = \"standard-lanes\"\n", "")];
    let path = example_edited(dir.path(), "keccak_standard.toml", &["keccak_standard.c"], &undeclared);
    let (code, out, err) = check(&path, "16");
    assert_eq!(code, 1, "{out}{err}");
    assert!(out.contains("16 cases, 16 mismatches"), "{out}");

    let wrong = [("representation = \"standard-lanes\"", "representation = \"standard-lane\"")];
    let path = example_edited(dir.path(), "keccak_standard.toml", &["keccak_standard.c"], &wrong);
    let (code, out, err) = check(&path, "1");
    assert_eq!(code, 2, "{out}{err}");
    assert!(err.contains("unknown representation `standard-lane`, did you mean `standard-lanes`?"), "{err}");
    refused(
        &format!("{head}[kernel.adapt.p]\nrepresentation = \"standard-lanes\"\n"),
        &[("k.c", source)],
        "standard-lanes converts a bit-interleaved Keccak-f[1600] state",
    );
}
