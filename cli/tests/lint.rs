//! The object lint (`pqhelium lint`): encodings the architecture calls UNDEFINED or UNPREDICTABLE are refused with
//! their location and rule; our own images are clean.

use std::path::{Path, PathBuf};
use std::process::Command;

mod common;
use common::pqhelium;

/// tests/data/lint_unpredictable.S assembled for the Cortex-M55 (the toolchain ci/setup installs).
fn fixture_object(dir: &Path) -> PathBuf {
    let source = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/lint_unpredictable.S");
    let object = dir.join("lint_unpredictable.o");
    let status = Command::new("arm-none-eabi-gcc")
        .args(["-mcpu=cortex-m55", "-mthumb", "-c"])
        .arg(&source)
        .arg("-o")
        .arg(&object)
        .status()
        .expect("run arm-none-eabi-gcc");
    assert!(status.success());
    object
}

#[test]
fn every_unpredictable_encoding_is_refused_with_its_location_and_rule() {
    let dir = tempfile::tempdir().unwrap();
    let object = fixture_object(dir.path());
    let (code, stdout, _) = pqhelium(&["lint", "--object", object.to_str().unwrap(), "--core", "m55"]);
    assert_eq!(code, 1, "{stdout}");
    let found = |location: &str, rule: &str| {
        stdout.lines().any(|l| l.contains(&format!(": {location} (")) && l.contains(&format!("`: {rule} (")))
    };
    for (location, rule) in [
        ("lint_writeback+0x0", "unpredictable-operands"),
        ("lint_writeback+0x4", "unpredictable-operands"),
        ("lint_writeback+0x8", "unpredictable-operands"),
        ("lint_writeback+0xc", "unpredictable-operands"),
        ("lint_mve+0x4", "unpredictable-operands"),
        ("lint_mve+0x8", "undecodable"),
        ("lint_mve+0xe", "unpredictable-operands"),
    ] {
        assert!(found(location, rule), "{location} {rule} not reported:\n{stdout}");
    }
    // The clean instructions around them (and the whole clean function, literal pool included) are not reported.
    for clean in ["lint_writeback+0x10 ", "lint_mve+0x0 ", "lint_clean+"] {
        assert!(!stdout.contains(clean), "{clean} reported:\n{stdout}");
    }
    assert!(stdout.contains("ldrd r0, r1, [r0], #8"), "{stdout}");
    assert!(stdout.lines().last().unwrap().starts_with("1 objects linted, findings"), "{stdout}");
}

/// An object built for the Cortex-M55 is refused in one line when linted for the Cortex-M7, whose decoder would
/// report each of its MVE and Armv8.1-M instructions.
#[test]
fn an_armv8m_object_linted_for_the_m7_is_refused_by_its_architecture() {
    let dir = tempfile::tempdir().unwrap();
    let object = fixture_object(dir.path());
    let (code, stdout, stderr) = pqhelium(&["lint", "--object", object.to_str().unwrap(), "--core", "m7"]);
    assert_eq!(code, 2, "{stdout}{stderr}");
    assert_eq!(stdout, "");
    assert!(
        stderr.contains(
            "built for Armv8.1-M mainline with MVE (Cortex-M55, M85), which Armv7E-M (Cortex-M7) does not run"
        ) && stderr.contains("--core m55 or m85"),
        "{stderr}"
    );
}

#[test]
fn our_images_are_clean() {
    let (code, stdout, stderr) = pqhelium(&["lint"]);
    assert_eq!(code, 0, "{stdout}{stderr}");
    for image in ["pqhelium-m55.elf", "pqhelium-m85.elf", "pqhelium-m7.elf"] {
        let line = stdout.lines().find(|l| l.starts_with(image)).unwrap_or_else(|| panic!("{image}:\n{stdout}"));
        assert!(line.ends_with(" 0 findings"), "{line}");
        let instructions: usize = line.split_whitespace().nth(1).unwrap().parse().unwrap();
        assert!(instructions > 5000, "{line}");
    }
}

#[test]
fn a_foreign_or_missing_object_is_a_usage_error() {
    let exe = std::env::current_exe().unwrap();
    let (code, _, stderr) = pqhelium(&["lint", "--object", exe.to_str().unwrap()]);
    assert_eq!(code, 2);
    assert!(stderr.contains("not 32-bit Arm"), "{stderr}");
    let (code, _, stderr) = pqhelium(&["lint", "--object", "/nonexistent/kernel.o"]);
    assert_eq!(code, 2);
    assert!(stderr.contains("no such file"), "{stderr}");
    let (code, _, stderr) = pqhelium(&["lint", "--object", "x.o", "--core", "m4"]);
    assert_eq!(code, 2);
    assert!(stderr.contains("m4"), "{stderr}");
}
