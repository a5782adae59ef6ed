//! The M85 image: clang's Cortex-M85 build of the same sources, run on QEMU's Cortex-M55 model. Every kernel with
//! object code for QEMU passes a short campaign on it (its first edge cases and first random cases, every check the
//! engine makes); the image is clang's output for the Cortex-M85, compile unit by compile unit; and its harness, like
//! the M55 image's, touches no FP or MVE register outside the call trampoline.

use std::collections::BTreeMap;
use std::io::Write;
use std::process::Command;
use std::time::{Duration, Instant};

use pqhelium_engine::diff::{self, Campaign, Control};
use pqhelium_engine::ranges::Ranges;
use pqhelium_families as registry;
use pqhelium_guest::backend::{BackendKind, Image, Limits};
use pqhelium_guest::elf::GuestElf;
use pqhelium_kernels::{M55_IMAGE, M85_IMAGE};

mod common;
use common::disassemble;

const SEED: u64 = 0x85;
/// Edge cases and random cases run per kernel.
const EDGE: u64 = 3;
const RANDOM: u64 = 3;

#[test]
fn every_qemu_kernel_passes_on_the_m85_image() {
    let started = Instant::now();
    let mut campaigns = 0;
    for kernel in registry::all().filter(|k| k.runs_on(BackendKind::Qemu)) {
        assert!(Image::M85.has_symbol(kernel.symbol), "{}: missing from the M85 image", kernel.id);
        let edge = EDGE.min(kernel.edge_cases);
        let done =
            if kernel.edge_cases > edge { Ranges::from_slice(&[[edge, kernel.edge_cases]]) } else { Ranges::new() };
        let campaign = Campaign {
            image: Some(Image::M85),
            limits: Limits { timeout: Duration::from_secs(60) },
            ..Campaign::new(kernel, BackendKind::Qemu, SEED, kernel.edge_cases + RANDOM, 1)
        };
        let result = diff::run_with(&campaign, &Control { skip: done, ..Control::default() });
        let failures: Vec<String> = result.failures.iter().map(ToString::to_string).collect();
        assert!(result.passed(), "{} on {}: {:?} {failures:?}", kernel.id, result.target(), result.setup_error);
        assert_eq!(result.image, Some(Image::M85));
        assert_eq!(result.cases_run(), edge + RANDOM, "{}", kernel.id);
        assert_eq!(result.instructions.calls, edge + RANDOM, "{}: every call counted", kernel.id);
        campaigns += 1;
    }
    eprintln!("{campaigns} campaigns on the M85 image in {:.1} s", started.elapsed().as_secs_f64());
    assert!(campaigns >= 10, "{campaigns} kernels with QEMU object code");
}

/// The image's ELF in a file, for the binutils that read it.
fn elf_file(elf: &[u8]) -> tempfile::NamedTempFile {
    let mut file = tempfile::NamedTempFile::new().unwrap();
    file.write_all(elf).unwrap();
    file
}

/// `DW_AT_producer` of every compile unit: the compiler's name and version, and the flags where it records them
/// (gcc by default, clang with `-grecord-command-line`). The linked images keep no `.comment` or attributes section.
fn producers(elf: &[u8]) -> Vec<String> {
    let file = elf_file(elf);
    let output = Command::new("arm-none-eabi-readelf")
        .args(["--debug-dump=info"])
        .arg(file.path())
        .output()
        .expect("arm-none-eabi-readelf (installed with arm-none-eabi-gcc, which links the images) must run");
    assert!(output.status.success(), "{}", String::from_utf8_lossy(&output.stderr));
    let text = String::from_utf8(output.stdout).unwrap();
    let producers: Vec<String> = text
        .lines()
        .filter(|line| line.contains("DW_AT_producer"))
        .map(|line| line.split_once("): ").or_else(|| line.split_once(": ")).unwrap().1.trim().to_string())
        .collect();
    assert!(!producers.is_empty(), "no compile unit in the debug info");
    producers
}

#[test]
fn the_m85_image_is_clangs_cortex_m85_build() {
    let m85 = producers(M85_IMAGE.elf);
    for producer in &m85 {
        assert!(producer.contains("clang version 19."), "not clang 19: {producer}");
    }
    // C units record their command line; the assembly unit names the assembler only.
    let c_units: Vec<&String> = m85.iter().filter(|p| p.contains(" -c ")).collect();
    assert!(c_units.len() > 10, "{} C compile units", c_units.len());
    for producer in c_units {
        assert!(producer.contains("--target=arm-none-eabi"), "{producer}");
        assert!(producer.contains("-mcpu=cortex-m85") && producer.contains("-mfloat-abi=hard"), "{producer}");
        assert!(producer.contains(" -O2 ") && producer.contains("-ffp-contract=off"), "{producer}");
    }
    // The same reading tells the M55 image apart: gcc's, for the Cortex-M55.
    for producer in producers(M55_IMAGE.elf) {
        assert!(producer.starts_with("GNU C11") || producer.starts_with("GNU AS"), "{producer}");
        assert!(!producer.starts_with("GNU C11") || producer.contains("-mcpu=cortex-m55"), "{producer}");
    }
}

/// Functions of the harness range (`__harness_start`..`__harness_end`) and their mnemonics.
fn harness_functions(elf: &[u8]) -> BTreeMap<String, Vec<String>> {
    let guest = GuestElf::parse("image", elf).unwrap();
    let address = |name: &'static str| u64::from(guest.harness_symbol(name).unwrap());
    let range = (address("__harness_start"), address("__harness_end"));
    let functions = disassemble(elf, Some(range));
    functions.into_iter().map(|(name, code)| (name, code.into_iter().map(|i| i.mnemonic).collect())).collect()
}

/// The harness's assembly: the vector table, the fault entry and the call trampoline, which loads and checks the
/// d8-d15 canaries. Everything else in the harness range is C compiled for core registers only.
const HARNESS_ASSEMBLY: [&str; 5] =
    ["__harness_start", "pqh_vectors", "pqh_fault_entry", "pqh_fault_recover", "pqh_invoke"];

#[test]
fn the_harness_c_code_uses_core_registers_only_in_both_images() {
    for (image, elf) in [("m55", M55_IMAGE.elf), ("m85", M85_IMAGE.elf)] {
        let functions = harness_functions(elf);
        let touches_fp = |mnemonics: &Vec<String>| mnemonics.iter().any(|m| m.starts_with('v') || m == "undefined");
        // The scan sees FP instructions where there are some: the trampoline's canaries.
        assert!(touches_fp(&functions["pqh_invoke"]), "{image}: pqh_invoke loads the d8-d15 canaries");
        assert!(functions.contains_key("pqh_run_batch"), "{image}: {:?}", functions.keys());
        for (name, mnemonics) in functions.iter().filter(|(name, _)| !HARNESS_ASSEMBLY.contains(&name.as_str())) {
            assert!(!touches_fp(mnemonics), "{image}: {name} uses an FP or MVE instruction: {mnemonics:?}");
        }
    }
}

fn pqhelium(args: &[&str]) -> std::process::Output {
    Command::new(env!("CARGO_BIN_EXE_pqhelium")).args(args).output().expect("pqhelium runs")
}

#[test]
fn image_choices_that_make_no_sense_are_refused_with_one_line() {
    let refused = [
        (
            &["fuzz", "--kernel", "keccak.f1600", "--image", "m85", "--backend", "unicorn"][..],
            "--image m85 runs on qemu",
        ),
        (&["fuzz", "--kernel", "keccak.f1600", "--image", "m55", "--backend", "model"][..], "not on model"),
        (
            &["repro", "--kernel", "keccak.f1600", "--image", "m7", "--backend", "qemu", "--seed", "1", "--case", "0"],
            "--image m7 runs on unicorn",
        ),
        (&["bench", "--image", "m85", "--schemes"], "cannot be used with"),
    ];
    for (args, reason) in refused {
        let output = pqhelium(args);
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert_eq!(output.status.code(), Some(2), "{args:?}: {stderr}");
        assert!(stderr.contains(reason), "{args:?}: {stderr}");
    }
    let output = pqhelium(&["repro", "--kernel", "keccak.f1600", "--image", "m85", "--seed", "1", "--case", "0"]);
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert_eq!(output.status.code(), Some(0), "{stdout}");
    assert!(stdout.contains("qemu executed") && stdout.ends_with("no difference\n"), "{stdout}");
}
