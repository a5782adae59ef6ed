//! `pqhelium equiv`: two regions that compute the same are equivalent; a planted mutant (one swapped pair of
//! dependent instructions) is caught with the register it corrupts named; a region that clobbers a register it was
//! told to preserve is caught with that register named.

use std::path::{Path, PathBuf};
use std::process::Command;

mod common;
use common::{dependent_pair, pqhelium, swapped};

fn example(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../examples/equiv").join(name)
}

fn equiv(core: &str, before: &Path, after: &Path, extra: &[&str]) -> (i32, String, String) {
    let mut args = vec!["equiv", "--core", core, before.to_str().unwrap(), after.to_str().unwrap()];
    args.extend(["--region", "start:end", "--states", "50"]);
    args.extend(extra);
    pqhelium(&args)
}

#[test]
fn interleaved_butterflies_are_equivalent_on_both_cores() {
    for core in ["m55", "m85"] {
        let (code, stdout, stderr) =
            equiv(core, &example("butterfly.s"), &example("butterfly_interleaved.s"), &["--addr", "r0:32,r1:32"]);
        assert_eq!(code, 0, "{core}: {stdout}{stderr}");
        assert!(stdout.contains("equivalent: 50 states"), "{stdout}");
    }
}

#[test]
fn inferred_address_registers_are_the_memory_operands_bases() {
    let (code, stdout, stderr) = equiv("m55", &example("butterfly.s"), &example("butterfly_interleaved.s"), &[]);
    assert_eq!(code, 0, "{stdout}{stderr}");
    assert!(stdout.contains("address registers: r0:4096@0,r1:4096@0;"), "{stdout}");
}

#[test]
fn a_swapped_pair_of_dependent_instructions_is_caught_naming_the_register() {
    let dir = tempfile::tempdir().unwrap();
    let text = std::fs::read_to_string(example("butterfly_interleaved.s")).unwrap();
    // vqrdmulh reads q5 before vmul overwrites it. Swapped, q6 and then q5, q4 and q7 change: q4 is the first
    // register compared that differs.
    let mutant = dir.path().join("mutant.s");
    std::fs::write(&mutant, swapped(&text, "start", "vqrdmulh.s32 q6, q5, r2", "vmul.u32 q5, q5, r3")).unwrap();
    let (code, stdout, stderr) = equiv("m55", &example("butterfly.s"), &mutant, &["--addr", "r0:32,r1:32"]);
    assert_eq!(code, 1, "{stdout}{stderr}");
    assert!(stdout.contains("NOT EQUIVALENT in state 0 (seed 0): q4 differs"), "{stdout}");
    assert!(stdout.contains("--seed 0 --states 1"), "{stdout}");
}

#[test]
fn a_flag_setting_pair_swapped_is_caught_naming_the_register() {
    let dir = tempfile::tempdir().unwrap();
    let before = dir.path().join("before.s");
    let region = "start:\n    adds r0, r0, r2\n    adc r1, r1, r3\nend:\n";
    std::fs::write(&before, region).unwrap();
    // The carry of the low word reaches the high word only in this order.
    let mutant = dir.path().join("after.s");
    std::fs::write(&mutant, swapped(region, "start", "adds r0, r0, r2", "adc r1, r1, r3")).unwrap();
    let (code, stdout, stderr) = equiv("m55", &before, &mutant, &["--addr", ""]);
    assert_eq!(code, 1, "{stdout}{stderr}");
    assert!(stdout.contains(": r1 differs"), "{stdout}");
}

#[test]
fn saturation_and_predication_are_compared() {
    let dir = tempfile::tempdir().unwrap();
    let write = |name: &str, body: &str| {
        let path = dir.path().join(name);
        std::fs::write(&path, format!("start:\n{body}end:\n")).unwrap();
        path
    };
    let before = write("before.s", "    vpst\n    vaddt.i32 q0, q1, q2\n    vqadd.s32 q3, q3, q3\n");
    // Not predicated: the lanes VPR.P0 leaves alone change too.
    let unpredicated = write("unpredicated.s", "    vadd.i32 q0, q1, q2\n    vqadd.s32 q3, q3, q3\n");
    let (code, stdout, _) = equiv("m55", &before, &unpredicated, &["--addr", ""]);
    assert_eq!(code, 1, "{stdout}");
    assert!(stdout.contains(": q0 differs"), "{stdout}");
    // Not saturating: q3 differs when a lane overflows, and the sticky QC flag differs even where q3 is ignored.
    let wrapping = write("wrapping.s", "    vpst\n    vaddt.i32 q0, q1, q2\n    vadd.s32 q3, q3, q3\n");
    let (code, stdout, _) = equiv("m55", &before, &wrapping, &["--addr", "", "--ignore", "q3"]);
    assert_eq!(code, 1, "{stdout}");
    assert!(stdout.contains(": FPSCR.QC differs"), "{stdout}");
}

#[test]
fn a_clobbered_register_told_to_preserve_is_caught() {
    let dir = tempfile::tempdir().unwrap();
    let before = dir.path().join("before.s");
    std::fs::write(&before, "start:\n    ldr r2, [r0]\n    add r2, r2, r1\n    str r2, [r0]\nend:\n").unwrap();
    // The same sum through r4, a callee-saved register the region was told to leave alone.
    let after = dir.path().join("after.s");
    std::fs::write(&after, "start:\n    ldr r4, [r0]\n    add r2, r4, r1\n    str r2, [r0]\nend:\n").unwrap();
    let args = ["--addr", "r0:4", "--preserve", "r4-r11,d8-d15"];
    let (code, stdout, stderr) = equiv("m85", &before, &after, &args);
    assert_eq!(code, 1, "{stdout}{stderr}");
    assert!(stdout.contains("the after region does not preserve r4"), "{stdout}");
    // Without the promise, r4 is the only difference.
    let (code, stdout, _) = equiv("m85", &before, &after, &["--addr", "r0:4"]);
    assert_eq!(code, 1);
    assert!(stdout.contains(": r4 differs"), "{stdout}");
    let (code, stdout, _) = equiv("m85", &before, &after, &["--addr", "r0:4", "--ignore", "r4"]);
    assert_eq!(code, 0, "{stdout}");
}

#[test]
fn a_function_must_preserve_the_callee_saved_registers() {
    let dir = tempfile::tempdir().unwrap();
    let function = |body: &str| {
        format!(
            "    .syntax unified\n    .thumb\n    .text\n    .global f\n    .type f, %function\nf:\n{body}    bx lr\n    \
             .size f, . - f\n"
        )
    };
    let before = dir.path().join("before.s");
    std::fs::write(&before, function("    vadd.i32 q0, q0, q1\n")).unwrap();
    let after = dir.path().join("after.s");
    std::fs::write(&after, function("    vadd.i32 q4, q0, q1\n    vmov q0, q4\n")).unwrap();
    let (code, stdout, stderr) =
        pqhelium(&["equiv", "--core", "m55", before.to_str().unwrap(), after.to_str().unwrap(), "--states", "5"]);
    assert_eq!(code, 1, "{stdout}{stderr}");
    assert!(stdout.contains("preserved: r4,r5,r6,r7,r8,r9,r10,r11,d8,"), "{stdout}");
    assert!(stdout.contains("the after region does not preserve d8"), "{stdout}");
}

#[test]
fn bad_input_is_a_usage_error() {
    let butterfly = example("butterfly.s");
    let path = butterfly.to_str().unwrap();
    for (args, message) in [
        (vec!["--region", "start:nowhere"], "no label `nowhere:`"),
        (vec!["--addr", "r13:16"], "one of r0-r12"),
        (vec!["--preserve", "q9"], "is not r0-r12"),
    ] {
        let mut all = vec!["equiv", "--core", "m55", path, path];
        all.extend(args);
        let (code, _, stderr) = pqhelium(&all);
        assert_eq!(code, 2, "{stderr}");
        assert!(stderr.contains(message), "{stderr}");
    }
    // The lint applies: gas assembles this UNPREDICTABLE ldrd, the lint refuses it.
    let dir = tempfile::tempdir().unwrap();
    let unpredictable = dir.path().join("ldrd.s");
    std::fs::write(&unpredictable, "start:\n    ldrd r0, r0, [r1]\nend:\n").unwrap();
    let unpredictable = unpredictable.to_str().unwrap();
    let (code, _, stderr) = pqhelium(&["equiv", "--core", "m55", path, unpredictable, "--region", "start:end"]);
    assert_eq!(code, 2, "{stderr}");
    assert!(stderr.contains("the after region") && stderr.contains("unpredictable-operands"), "{stderr}");
    let (code, _, stderr) = pqhelium(&["equiv", "--core", "m55", path, "/nonexistent.s"]);
    assert_eq!(code, 2);
    assert!(stderr.contains("/nonexistent.s"), "{stderr}");
}

/// The interpreter of SLOTHY's virtual environment (`ci/setup --slothy`, which `ci/test` runs).
fn slothy_python() -> PathBuf {
    let python = Path::new(env!("CARGO_MANIFEST_DIR")).join("../.venv-slothy/bin/python");
    assert!(python.exists(), "{}: missing; run `ci/setup --slothy`", python.display());
    python
}

/// SLOTHY schedules the butterflies for each core (10 s solver limit) and `kernels/slothy/optimize.py` checks its
/// output with `equiv`; then two planted mutants of that output: one swapped pair of dependent instructions, and
/// the same code through r5, which SLOTHY was told to leave alone.
#[test]
fn slothy_output_is_checked_by_equiv_and_its_mutants_are_caught() {
    let dir = tempfile::tempdir().unwrap();
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("../kernels/slothy/optimize.py");
    for core in ["m55", "m85"] {
        let scheduled = dir.path().join(format!("butterfly_{core}.s"));
        let out = Command::new(slothy_python())
            .arg(&script)
            .args(["--core", core, "--outputs", "q0-q7", "--reserve", "r4-r11", "--timeout", "10", "--states", "50"])
            .args(["--pqhelium", env!("CARGO_BIN_EXE_pqhelium")])
            .arg(example("butterfly.s"))
            .arg(&scheduled)
            .output()
            .expect("run optimize.py");
        let stdout = String::from_utf8_lossy(&out.stdout);
        assert!(out.status.success(), "{core}: {stdout}{}", String::from_utf8_lossy(&out.stderr));
        assert!(stdout.contains("equivalent: 50 states"), "{stdout}");
        let text = std::fs::read_to_string(&scheduled).unwrap();
        assert!(text.contains("// Expected cycles:"), "not SLOTHY's output: {text}");

        let (first, second) = dependent_pair(&text, "start", "end", 'q');
        let mutant = dir.path().join(format!("mutant_{core}.s"));
        std::fs::write(&mutant, swapped(&text, "start", &first, &second)).unwrap();
        let addr = ["--addr", "r0:32,r1:32"];
        let (code, stdout, stderr) = equiv(core, &example("butterfly.s"), &mutant, &addr);
        assert_eq!(code, 1, "{first} / {second}: {stdout}{stderr}");
        assert!(stdout.contains("NOT EQUIVALENT in state 0 (seed 0): q"), "{stdout}");

        // r12 copied to r5 first and read from there: the same results, r5 clobbered.
        let through_r5 = text.replace(", r12", ", r5").replacen("start:\n", "start:\n        mov r5, r12\n", 1);
        assert_ne!(through_r5, text);
        let clobber = dir.path().join(format!("clobber_{core}.s"));
        std::fs::write(&clobber, through_r5).unwrap();
        let (code, stdout, _) =
            equiv(core, &example("butterfly.s"), &clobber, &[&addr[..], &["--preserve", "r4-r11"]].concat());
        assert_eq!(code, 1, "{stdout}");
        assert!(stdout.contains("the after region does not preserve r5"), "{stdout}");
        let (code, stdout, _) =
            equiv(core, &example("butterfly.s"), &clobber, &[&addr[..], &["--ignore", "r5"]].concat());
        assert_eq!(code, 0, "the clobber alone changes nothing else: {stdout}");
    }
}
