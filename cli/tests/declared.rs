//! Contracts declared in a manifest: the ML-DSA forward NTT of `examples/mldsa/` (no contract of ours) through
//! `check`, `fuzz`, `repro`, `bench`, `ct` and `cycles` against its host C reference, a one-constant mutant caught,
//! one object against another (the MVE build against the portable C build), the reference and the twiddle table
//! checked against mathematics, and declarations that do not fit refused.

use std::path::{Path, PathBuf};

use pqhelium_guest::backend::Arg;

const Q: i64 = 8380417;
/// A primitive 512th root of unity mod q (FIPS 204).
const ZETA: i64 = 1753;

mod common;
use common::pqhelium;

fn example_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../examples/mldsa")
}

fn example(name: &str) -> String {
    example_dir().join(name).display().to_string()
}

/// The example in a temporary directory, with `edit` applied to the text of file `name`.
fn mutated(name: &str, edit: impl FnOnce(&str) -> String) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    for entry in std::fs::read_dir(example_dir()).unwrap() {
        let path = entry.unwrap().path();
        std::fs::copy(&path, dir.path().join(path.file_name().unwrap())).unwrap();
    }
    let target = dir.path().join(name);
    let text = std::fs::read_to_string(&target).unwrap();
    let changed = edit(&text);
    assert_ne!(changed, text, "the mutant changes {name}");
    std::fs::write(target, changed).unwrap();
    dir
}

fn power(mut base: i64, mut e: u64) -> i64 {
    let mut r = 1;
    base = base.rem_euclid(Q);
    while e > 0 {
        if e & 1 == 1 {
            r = r * base % Q;
        }
        base = base * base % Q;
        e >>= 1;
    }
    r
}

fn brv8(k: usize) -> u64 {
    u64::from((k as u8).reverse_bits())
}

#[test]
fn the_example_passes_check_fuzz_repro_bench_ct_and_cycles_from_its_manifest() {
    let manifest = example("mldsa.toml");
    let (code, out, err) = pqhelium(&["check", "--manifest", &manifest, "--cases", "200", "--jobs", "1"]);
    assert_eq!(code, 0, "{out}{err}");
    for symbol in ["mldsa_ntt_mve", "mldsa_ntt_c"] {
        assert!(out.contains(&format!("| {symbol} | my.mldsa.ntt | qemu (mldsa-m55) | 200 | 0 | 0 |")), "{out}");
    }
    assert!(out.contains("reference: the host C function `mldsa_ntt_ref`"), "{out}");

    let fuzz = ["fuzz", "--manifest", &manifest, "--kernel", "mldsa_ntt_mve", "--cases", "100", "--jobs", "1"];
    let (code, out, err) = pqhelium(&fuzz);
    assert_eq!(code, 0, "{out}{err}");
    assert!(out.contains("mldsa_ntt_mve on qemu (mldsa-m55): 100 cases, 0 mismatches, 0 faults"), "{out}");

    let repro = ["repro", "--manifest", &manifest, "--kernel", "mldsa_ntt_mve", "--seed", "1", "--case", "3"];
    let (code, out, err) = pqhelium(&repro);
    assert_eq!(code, 0, "{out}{err}");
    assert!(out.contains("no difference"), "{out}");

    let (code, out, err) = pqhelium(&["bench", "--manifest", &manifest, "--calls", "5"]);
    assert_eq!(code, 0, "{out}{err}");
    assert!(out.contains("| mldsa_ntt_mve | qemu (mldsa-m55) |"), "{out}");

    // The NTT's addresses and branches depend on nothing secret.
    let (code, out, err) = pqhelium(&["ct", "--manifest", &manifest, "--kernel", "mldsa_ntt_mve", "--pairs", "2"]);
    assert_eq!(code, 0, "{out}{err}");
    assert!(out.contains("pass mldsa_ntt_mve: 2 pairs, equal traces"), "{out}");

    let (code, out, err) = pqhelium(&["cycles", "--manifest", &manifest, "--calls", "1"]);
    assert_eq!(code, 0, "{out}{err}");
    for symbol in ["mldsa_ntt_mve", "mldsa_ntt_c"] {
        let line = out.lines().find(|l| l.contains(&format!("{symbol} m55:"))).unwrap_or_else(|| panic!("{out}"));
        let cycles: u64 = line.split(": ").nth(1).and_then(|r| r.split(' ').next()).unwrap().parse().unwrap();
        // 1024 butterflies: at least one cycle each.
        assert!(cycles > 1024, "{line}");
    }
}

/// One twiddle factor changed by one: both builds fail against the host reference, and the failure is shrunk.
#[test]
fn a_one_constant_mutant_fails_check() {
    // mldsa_zetas[1] = 1753^128 * 2^32 mod q = 25847.
    let dir = mutated("mldsa_zetas.h", |t| t.replacen(" 25847,", " 25848,", 1));
    let manifest = dir.path().join("mldsa.toml");
    let (code, out, err) =
        pqhelium(&["check", "--manifest", manifest.to_str().unwrap(), "--cases", "40", "--jobs", "1"]);
    assert_eq!(code, 1, "{out}{err}");
    for symbol in ["mldsa_ntt_mve", "mldsa_ntt_c"] {
        assert!(out.contains(&format!("FAIL {symbol} on qemu (mldsa-m55)")), "{out}");
    }
    assert!(out.contains("reference and canon(qemu) differ"), "{out}");
    // Shrunk on the declared i32 elements: one coefficient in the half that zeta[1] multiplies is enough.
    let shrunk = out.lines().find_map(|l| l.trim().strip_prefix("shrunk input: ")).expect("a shrunk input");
    assert!(shrunk.starts_with("a: 256 x i32, all 0 but "), "{shrunk}");
    let left = listed(shrunk, "a");
    assert!(left.len() == 1 && left[0].0 >= 128 && left[0].1 != "0", "{shrunk}");
}

/// The elements a shrunk input lists for argument `name` (`name[i] = v`): their indices and values.
fn listed(shrunk: &str, name: &str) -> Vec<(usize, String)> {
    shrunk
        .split([',', ';'])
        .filter_map(|part| {
            let element = part.rsplit(" but ").next()?.trim();
            let (index, value) = element.strip_prefix(name)?.strip_prefix('[')?.split_once("] = ")?;
            Some((index.parse().ok()?, value.to_string()))
        })
        .collect()
}

/// The MVE build against the portable C build, both on the Cortex-M55: they agree, and an MVE build with one
/// butterfly's difference reversed does not.
#[test]
fn one_object_is_checked_against_another() {
    let manifest = example("mldsa_o2o.toml");
    let (code, out, err) = pqhelium(&["check", "--manifest", &manifest, "--cases", "100", "--jobs", "1"]);
    assert_eq!(code, 0, "{out}{err}");
    assert!(out.contains("| mldsa_ntt_mve | my.mldsa.ntt.portable | qemu (mldsa_o2o-m55) | 100 | 0 | 0 |"), "{out}");
    assert!(out.contains("reference: `mldsa_ntt_c` of your objects on the m55"), "{out}");

    let dir = mutated("mldsa_ntt_mve.c", |t| t.replacen("vsubq_s32(x, t)", "vsubq_s32(t, x)", 1));
    let manifest = dir.path().join("mldsa_o2o.toml");
    let (code, out, err) =
        pqhelium(&["check", "--manifest", manifest.to_str().unwrap(), "--cases", "20", "--jobs", "1"]);
    assert_eq!(code, 1, "{out}{err}");
    assert!(out.contains("FAIL mldsa_ntt_mve on qemu (mldsa_o2o-m55)"), "{out}");
}

/// The host reference is FIPS 204's NTT: output k is the input polynomial evaluated at zeta^(2 brv8(k) + 1), the
/// k-th root of X^256 + 1 in FIPS 204's order; checked on monomials and on a polynomial with every coefficient set.
#[test]
fn the_host_reference_evaluates_at_the_roots_of_x256_plus_1() {
    let loaded = pqhelium_byo::load(Path::new(&example("mldsa.toml")), None).unwrap();
    let kernel = loaded.matching("mldsa_ntt_c")[0];
    let ntt = |w: &[i64]| -> Vec<i64> {
        let bytes: Vec<u8> = w.iter().flat_map(|&x| (x as i32).to_le_bytes()).collect();
        let reference = kernel.evaluate(&[Arg::InOut(bytes)]).unwrap().reference;
        reference.buffers[0].chunks(4).map(|c| i64::from(i32::from_le_bytes(c.try_into().unwrap()))).collect()
    };
    let evaluate = |w: &[i64], k: usize| -> i64 {
        let root = power(ZETA, 2 * brv8(k) + 1);
        w.iter().rev().fold(0, |acc, &c| (acc * root + c).rem_euclid(Q))
    };
    let mut state = 0x9e37_79b9_7f4a_7c15u64;
    let mut next = || {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        (state % (2 * Q as u64 - 1)) as i64 - (Q - 1)
    };
    let dense: Vec<i64> = (0..256).map(|_| next()).collect();
    let mut inputs = vec![dense];
    for i in [0, 1, 255] {
        let mut monomial = vec![0; 256];
        monomial[i] = 1;
        inputs.push(monomial);
    }
    for w in inputs {
        let out = ntt(&w);
        for (k, &x) in out.iter().enumerate() {
            assert_eq!(x, evaluate(&w, k), "output {k}");
        }
    }
}

/// The twiddle table of the guest builds is zeta^brv8(k) * 2^32 mod q, centred.
#[test]
fn the_twiddle_table_is_fips_204s_zetas_in_the_montgomery_domain() {
    let header = std::fs::read_to_string(example_dir().join("mldsa_zetas.h")).unwrap();
    let body = header.split("mldsa_zetas[256] = {").nth(1).unwrap().split("};").next().unwrap();
    let table: Vec<i64> =
        body.split(',').map(str::trim).filter(|s| !s.is_empty()).map(|s| s.parse().unwrap()).collect();
    assert_eq!(table.len(), 256);
    for (k, &z) in table.iter().enumerate() {
        let expected = (power(ZETA, brv8(k)) << 32).rem_euclid(Q);
        let centred = if expected > Q / 2 { expected - Q } else { expected };
        assert_eq!(z, centred, "mldsa_zetas[{k}]");
    }
    assert_eq!(power(ZETA, 256), Q - 1, "zeta is a primitive 512th root of unity");
}

/// A manifest with a declared contract in a fresh directory; `link` refuses it with `expected` in its error.
fn refused(manifest: &str, files: &[(&str, &str)], expected: &str) {
    let dir = tempfile::tempdir().unwrap();
    for (name, text) in files {
        std::fs::write(dir.path().join(name), text).unwrap();
    }
    let path = dir.path().join("m.toml");
    std::fs::write(&path, manifest).unwrap();
    let elf = dir.path().join("out.elf");
    let (code, out, err) = pqhelium(&["link", "--manifest", path.to_str().unwrap(), "-o", elf.to_str().unwrap()]);
    assert_eq!(code, 2, "{out}{err}");
    assert!(err.starts_with("error: ") && err.contains(expected), "expected `{expected}` in: {err}");
}

const K_SOURCE: &str = ".syntax unified\n.thumb\n.text\n.global k\n.thumb_func\nk:\n bx lr\n";

fn declared(reference: &str, arg: &str) -> String {
    format!(
        "core = \"m55\"\nsources = [\"k.S\"]\n[[contract]]\nid = \"my.c\"\nreference = {reference}\n\
         [[contract.arg]]\n{arg}\n[[kernel]]\nsymbol = \"k\"\ncontract = \"my.c\"\n"
    )
}

const ARG: &str = "name = \"a\"\ntype = \"i32\"\nlength = 4\ndirection = \"inout\"";

#[test]
fn declarations_that_do_not_fit_are_refused() {
    let files = [("k.S", K_SOURCE), ("r.c", "void r(int *a) { a[0] = 0 }\n")];
    let c = "{ c = \"r.c\", symbol = \"r\" }";
    refused(&declared(c, &ARG.replace("i32", "i24")), &files, "argument `a`: unknown type `i24`");
    refused(&declared(c, &format!("{ARG}\nedges = [5]\ninput = [0, 4]")), &files, "edge value 5 is outside");
    refused(&declared(c, &ARG.replace("inout", "in")), &files, "contract `my.c`: no output");
    refused(&declared(c, &format!("{ARG}\nmodulus = 1")), &files, "modulus 1 does not fit i32");
    refused(&declared("{ symbol = \"nope\" }", ARG), &files, "symbol `nope` is not defined by your objects");
    let ours = declared(c, ARG).replace("\"my.c\"", "\"mlkem.basemul.scalar\"");
    refused(&ours, &files, "contract `mlkem.basemul.scalar`: is one of ours");
    // The host compiler's messages, whole: the file, line and what is missing.
    refused(&declared(c, ARG), &files, "reference: the host C compiler failed:\n");
    refused(&declared(c, ARG), &files, "r.c:1:");
}

/// The host reference's flags are relative to the manifest, as its sources are, wherever pqhelium runs from.
#[test]
fn a_host_reference_finds_its_headers_through_flags_relative_to_the_manifest() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir_all(dir.path().join("inc")).unwrap();
    std::fs::write(dir.path().join("inc/zero.h"), "#define ZERO 0\n").unwrap();
    std::fs::write(dir.path().join("r.c"), "#include \"zero.h\"\nvoid r(int *a) { a[0] = ZERO; }\n").unwrap();
    std::fs::write(dir.path().join("k.S"), K_SOURCE).unwrap();
    let manifest = dir.path().join("m.toml");
    std::fs::write(&manifest, declared("{ c = \"r.c\", symbol = \"r\", flags = [\"-I\", \"inc\"] }", ARG)).unwrap();
    assert_ne!(std::env::current_dir().unwrap(), dir.path(), "pqhelium runs from another folder");
    let elf = dir.path().join("out.elf");
    let (code, out, err) = pqhelium(&["link", "--manifest", manifest.to_str().unwrap(), "-o", elf.to_str().unwrap()]);
    assert_eq!(code, 0, "{out}{err}");
}

/// A host reference that crashes ends its own process: the case fails with the process's status, the bench goes on.
#[test]
fn a_host_reference_that_crashes_fails_its_case_with_its_status() {
    // Edge case 2 sets every coefficient to 1.
    let crash =
        "#include <stdint.h>\n#include <stdlib.h>\nvoid mldsa_ntt_ref(int32_t w[256]) { if (w[0] == 1) abort(); }\n";
    let dir = mutated("mldsa_ntt_ref.c", |_| crash.to_string());
    let manifest = dir.path().join("mldsa.toml");
    let (code, out, err) =
        pqhelium(&["check", "--manifest", manifest.to_str().unwrap(), "--cases", "3", "--jobs", "1"]);
    assert_eq!(code, 1, "{out}{err}");
    assert!(
        out.contains("case 2: mldsa_ntt_c: generated input: the host reference `mldsa_ntt_ref` did not answer")
            && out.contains("its process ended, signal: 6 (SIGABRT)"),
        "{out}"
    );
}

const WIDEN: &str = "#include <stdint.h>\n\
    void widen(const uint16_t x[8], uint64_t y[8], uint32_t s) {\n\
        for (int i = 0; i < 8; i++) {\n\
            y[i] = ((uint64_t)x[i] << (16 * s))\n\
    #ifdef MUTANT\n\
                + (x[i] > 1000)\n\
    #endif\n\
            ;\n\
        }\n\
    }\n";

/// The reference prints as it runs: its printing goes to stderr, not into the answers.
const WIDEN_REF: &str = "#include <stdint.h>\n#include <stdio.h>\n\
    void widen_ref(const uint16_t x[8], uint64_t y[8], uint32_t s) {\n\
        printf(\"widen_ref %u\\n\", (unsigned)s);\n\
        for (int i = 0; i < 8; i++) y[i] = (uint64_t)x[i] << (16 * s);\n\
    }\n";

/// Other element types, a scalar and the Cortex-M7: u16 lanes in, u64 lanes out, a shift count in a register. The
/// kernel passes; its mutant (off by one above 1000) fails, shrunk to one u16 input above 1000.
#[test]
fn u16_inputs_u64_outputs_and_a_scalar_shrink_on_their_own_types() {
    let manifest = |flags: &str| {
        format!(
            "core = \"m7\"\nsources = [\"k.c\"]\nflags = [{flags}]\n[[contract]]\nid = \"my.widen\"\n\
             reference = {{ c = \"r.c\", symbol = \"widen_ref\" }}\n\
             [[contract.arg]]\nname = \"x\"\ntype = \"u16\"\nlength = 8\ndirection = \"in\"\n\
             [[contract.arg]]\nname = \"y\"\ntype = \"u64\"\nlength = 8\ndirection = \"out\"\n\
             [[contract.arg]]\nname = \"s\"\ntype = \"u32\"\nlength = \"scalar\"\ndirection = \"in\"\ninput = [0, 3]\n\
             [[kernel]]\nsymbol = \"widen\"\ncontract = \"my.widen\"\n"
        )
    };
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("k.c"), WIDEN).unwrap();
    std::fs::write(dir.path().join("r.c"), WIDEN_REF).unwrap();
    let run = |flags: &str| {
        let path = dir.path().join("m.toml");
        std::fs::write(&path, manifest(flags)).unwrap();
        pqhelium(&["check", "--manifest", path.to_str().unwrap(), "--cases", "50", "--jobs", "1"])
    };
    let (code, out, err) = run("\"-O2\"");
    assert_eq!(code, 0, "{out}{err}");
    assert!(out.contains("| widen | my.widen | unicorn (m-m7) | 50 | 0 | 0 |"), "{out}");
    assert!(err.contains("widen_ref 3") && !out.lines().any(|l| l.starts_with("widen_ref ")), "{out}{err}");
    let (code, out, err) = run("\"-O2\", \"-DMUTANT\"");
    assert_eq!(code, 1, "{out}{err}");
    let shrunk = out.lines().find_map(|l| l.trim().strip_prefix("shrunk input: ")).expect("a shrunk input");
    // Unsigned words without a modulus print in hex; the scalar by name; the output not at all.
    assert!(shrunk.starts_with("x: 8 x u16, all 0x0000 but x[") && shrunk.contains("; s = "), "{shrunk}");
    let left = listed(shrunk, "x");
    assert_eq!(left.len(), 1, "{shrunk}");
    let value = u16::from_str_radix(left[0].1.trim_start_matches("0x"), 16).unwrap();
    assert!(value > 1000, "an input above 1000 remains: {shrunk}");
}
