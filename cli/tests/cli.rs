//! The `pqhelium` binary as a user runs it.

use std::process::Command;

use pqhelium_families::CASE_GENERATORS;

/// Runs pqhelium in a fresh temporary directory, so that its files (the fuzz checkpoint) land there.
fn pqhelium(args: &[&str]) -> (bool, String) {
    let dir = tempfile::tempdir().unwrap();
    let out =
        Command::new(env!("CARGO_BIN_EXE_pqhelium")).args(args).current_dir(dir.path()).output().expect("run pqhelium");
    (out.status.success(), String::from_utf8_lossy(&out.stdout).into_owned())
}

#[test]
fn fuzz_ends_with_the_summary_line() {
    for backend in ["model", "unicorn", "qemu"] {
        let (ok, stdout) =
            pqhelium(&["fuzz", "--kernel", "keccak.f1600", "--backend", backend, "--cases", "300", "--seed", "9"]);
        assert!(ok, "{stdout}");
        let last = stdout.lines().last().unwrap();
        assert!(last.starts_with("300 cases, 0 mismatches, 0 faults, "), "{last}");
        assert!(last.ends_with(" cases/s"), "{last}");
    }
}

#[test]
fn glob_patterns_select_several_kernels() {
    let (ok, stdout) =
        pqhelium(&["fuzz", "--kernel", "keccak.*interleave", "--backend", "model", "--cases", "50", "--seed", "1"]);
    assert!(ok, "{stdout}");
    // keccak.interleave and keccak.deinterleave (not their .mve kernels).
    assert_eq!(stdout.lines().filter(|l| l.contains(" on model: 50 cases")).count(), 2, "{stdout}");
    assert!(stdout.lines().last().unwrap().starts_with("100 cases, 0 mismatches, 0 faults"));
}

#[test]
fn unknown_kernel_is_a_clear_error() {
    let out = Command::new(env!("CARGO_BIN_EXE_pqhelium"))
        .args(["fuzz", "--kernel", "nope.*", "--cases", "1"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("no kernel matches `nope.*`"));
}

#[test]
fn list_names_every_kernel_and_backend() {
    let (ok, stdout) = pqhelium(&["list"]);
    assert!(ok);
    for needle in
        ["keccak.f1600", "keccak.interleave", "keccak.deinterleave", "unicorn  available", "qemu     available"]
    {
        assert!(stdout.contains(needle), "{needle} missing from:\n{stdout}");
    }
}

#[test]
fn repro_prints_inputs_and_every_output() {
    let (ok, stdout) =
        pqhelium(&["repro", "--kernel", "keccak.f1600", "--backend", "qemu", "--seed", "3", "--case", "2"]);
    assert!(ok, "{stdout}");
    for needle in
        ["arg 0 in/out", "reference    buffer 0", "model        buffer 0", "qemu         buffer 0", "no difference"]
    {
        assert!(stdout.contains(needle), "{needle} missing from:\n{stdout}");
    }
}

#[test]
fn kat_runs_a_suite_with_every_provider() {
    // Every suite with every provider is what `check` runs (above); in full, `kat` takes minutes.
    let (ok, stdout) = pqhelium(&["kat", "--suite", "fips202", "--suite", "rfc7748", "--provider", "reference"]);
    assert!(ok, "{stdout}");
    assert!(stdout.contains("rfc7748 with reference: 5/5 passed"), "{stdout}");
    let (ok, stdout) = pqhelium(&["kat", "--suite", "fips202"]);
    assert!(ok, "{stdout}");
    for provider in ["reference", "model", "unicorn", "qemu"] {
        assert!(stdout.contains(&format!("fips202 with {provider}: 8/8 passed")), "{stdout}");
    }
    let out = Command::new(env!("CARGO_BIN_EXE_pqhelium")).args(["kat", "--suite", "nope"]).output().unwrap();
    assert_eq!(out.status.code(), Some(2));
}

/// A whole-scheme suite through `kat`: its emulator providers, a chosen image; the model provider is refused.
#[test]
fn kat_runs_a_whole_scheme_suite() {
    let (ok, stdout) = pqhelium(&["kat", "--suite", "xwing-whole"]);
    assert!(ok, "{stdout}");
    assert!(stdout.contains("xwing-whole with unicorn: 3/3 passed"), "{stdout}");
    assert!(stdout.contains("xwing-whole with qemu: 3/3 passed"), "{stdout}");
    let (ok, stdout) = pqhelium(&["kat", "--suite", "mlkem768-whole", "--image", "m85"]);
    assert!(ok, "{stdout}");
    assert!(stdout.contains("mlkem768-whole with qemu (m85): 2/2 passed"), "{stdout}");
    assert!(stdout.contains("builds: portable, mve"), "{stdout}");
    let args = ["kat", "--suite", "xwing-whole", "--provider", "model"];
    let out = Command::new(env!("CARGO_BIN_EXE_pqhelium")).args(args).output().unwrap();
    assert_eq!(out.status.code(), Some(2), "{}", String::from_utf8_lossy(&out.stderr));
}

#[test]
fn check_passes_and_writes_its_reports() {
    let dir = tempfile::tempdir().unwrap();
    let (json, junit) = (dir.path().join("check.json"), dir.path().join("check.xml"));
    let (ok, stdout) =
        pqhelium(&["check", "--cases", "200", "--report", json.to_str().unwrap(), "--junit", junit.to_str().unwrap()]);
    assert!(ok, "{stdout}");
    assert!(stdout.lines().last().unwrap() == "check passed");
    for (kernel, image) in [("fndsa.sign", "m55"), ("fndsa.sign", "m85"), ("fndsa.sign.emu", "m7")] {
        let signing = format!("- {kernel} on {image}: 1 pairs, equal traces but for ");
        assert!(stdout.contains(&signing), "{signing}: {stdout}");
    }
    assert!(stdout.contains("| keccak.f1600 | qemu | 200 | 0 | 0 |"), "{stdout}");
    // Whole schemes on the guest: every build on every image holding it, against the reference and published answers.
    for row in [
        "| mlkem768 | portable | m7 | equal | 1/1 | pass |",
        "| mlkem768 | mve | m85 | equal | 1/1 | pass |",
        "| xwing | portable | m55 | equal | 3/3 | pass |",
        "| xwing | mve | m85 | equal | 3/3 | pass |",
    ] {
        assert!(stdout.contains(row), "{row}: {stdout}");
    }
    // The constant-time table: pairs per kernel (16 of its edge cases, 8 random) and per image, and the kernels
    // without a secret argument with their reason.
    assert!(stdout.contains("| keccak.f1600 | 16 + 8 | pass (24) | pass (24) | pass (24) |"), "{stdout}");
    assert!(stdout.contains("- `fndsa.verify`: verifies a signature"), "{stdout}");
    assert!(stdout.contains("\nconstant time: pass\n"), "{stdout}");
    // The cycles column: `pqhelium cycles`'s estimate of the same case on the M55 image, none on unicorn's M7.
    let cell = |prefix: &str| {
        let row = stdout.lines().find(|l| l.starts_with(prefix)).unwrap_or_else(|| panic!("{prefix}: {stdout}"));
        row.split('|').map(str::trim).nth(8).unwrap().to_string()
    };
    let (_, cycles) = pqhelium(&["cycles", "--kernel", "keccak.f1600", "--core", "m55", "--calls", "1"]);
    let estimate = cycles.split_whitespace().nth(2).unwrap();
    assert_eq!(cell("| keccak.f1600 | qemu |"), estimate, "{cycles}");
    assert_eq!(cell("| keccak.f1600 | unicorn |"), "-");
    // The host/guest column: a ratio where a guest ran (QEMU), none on the model (no guest call to compare with).
    let header = stdout.lines().find(|l| l.starts_with("| kernel | backend |")).expect("campaign table");
    assert_eq!(header.split('|').map(str::trim).nth(9), Some("host / guest"), "{header}");
    let ratio = |prefix: &str| {
        let row = stdout.lines().find(|l| l.starts_with(prefix)).unwrap_or_else(|| panic!("{prefix}: {stdout}"));
        row.split('|').map(str::trim).nth(9).unwrap().to_string()
    };
    let qemu: f64 = ratio("| keccak.f1600 | qemu |").parse().expect("a number on QEMU");
    assert!(qemu.is_finite() && qemu > 0.0, "{qemu}");
    assert_eq!(ratio("| keccak.f1600 | model |"), "-");
    let report = pqhelium_engine::report::Report::load(&json).unwrap();
    assert!(report.complete && report.passed());
    let junit = quick_junit::Report::deserialize_from_str(&std::fs::read_to_string(junit).unwrap()).unwrap();
    let cases = junit.test_suites.iter().flat_map(|s| &s.test_cases);
    assert!(cases.clone().any(|c| c.classname.as_deref() == Some("keccak.f1600") && c.name.as_str() == "qemu"));
}

/// A checkpoint from case generators of another version (here: from before the version was recorded) gives other
/// cases for the same seed: resuming it is refused, not silently mixed.
#[test]
fn a_checkpoint_of_other_case_generators_is_not_resumed() {
    let dir = tempfile::tempdir().unwrap();
    let state = dir.path().join("state.json");
    let run = |args: &[&str]| {
        Command::new(env!("CARGO_BIN_EXE_pqhelium")).args(args).current_dir(dir.path()).output().expect("run pqhelium")
    };
    let first = run(&["fuzz", "--kernel", "mlkem.order.to_mve", "--backend", "model", "--cases", "10", "--seed", "3"]);
    assert!(first.status.success());
    let mut report: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(dir.path().join("pqhelium-state.json")).unwrap()).unwrap();
    assert_eq!(report["case_generators"], CASE_GENERATORS);
    report.as_object_mut().unwrap().remove("case_generators");
    report["complete"] = false.into();
    std::fs::write(&state, report.to_string()).unwrap();
    let resumed = run(&["fuzz", "--kernel", "mlkem.order.to_mve", "--backend", "model", "--resume", "state.json"]);
    assert!(!resumed.status.success());
    let stderr = String::from_utf8_lossy(&resumed.stderr);
    let refusal = format!("case generators version 1, this pqhelium has version {CASE_GENERATORS}");
    assert!(stderr.contains(&refusal), "{stderr}");
}

#[test]
fn bad_command_lines_are_refused_before_any_case_runs() {
    let missing_dir = "/nonexistent-pqhelium-dir/out";
    let refused: &[(&[&str], &str)] = &[
        (&["fuzz", "--kernel", "keccak.f1600", "--report", missing_dir], "--report"),
        (&["fuzz", "--kernel", "keccak.f1600", "--junit", missing_dir], "--junit"),
        (&["fuzz", "--kernel", "keccak.f1600", "--state", missing_dir], "--state"),
        (&["check", "--report", missing_dir], "--report"),
        (&["fuzz", "--kernel", "keccak.nothing*"], "no kernel matches"),
        (&["fuzz", "--kernel", "keccak.f1600", "--duration", "5x"], "unknown time unit \"x\""),
        (&["fuzz", "--kernel", "keccak.f1600", "--duration", "0s"], "nothing would run"),
        (&["fuzz", "--kernel", "keccak.f1600", "--seed", "abc"], "--seed"),
        (&["fuzz", "--kernel", "keccak.f1600", "--jobs", "0"], "--jobs"),
        (&["fuzz", "--kernel", "keccak.f1600", "--timeout=-1"], "--timeout"),
        (&["fuzz", "--kernel", "keccak.f1600", "--timeout", "NaN"], "--timeout"),
        (&["fuzz", "--kernel", "keccak.f1600", "--batch", "0"], "--batch"),
        (&["fuzz", "--kernel", "fndsa.fpu.fft", "--backend", "model"], "nothing to run"),
        (&["fuzz", "--kernel", "keccak.f1600", "--shard", "4/4"], "expected K/N with 0 <= K < N"),
        (&["fuzz", "--kernel", "keccak.f1600", "--shard", "1"], "expected K/N"),
        (&["merge", "-o", "all.json"], "<SHARDS>"),
        (&["merge", "missing.json", "-o", missing_dir], "--output"),
    ];
    for (args, reason) in refused {
        let dir = tempfile::tempdir().unwrap();
        let out = Command::new(env!("CARGO_BIN_EXE_pqhelium")).args(*args).current_dir(dir.path()).output().unwrap();
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {stderr}");
        assert!(stderr.contains(reason), "{args:?}: the reason should name {reason}: {stderr}");
        assert!(!String::from_utf8_lossy(&out.stdout).contains("cases,"), "{args:?} ran cases");
        let left: Vec<_> = std::fs::read_dir(dir.path()).unwrap().collect();
        assert!(left.is_empty(), "{args:?} left files behind: {left:?}");
    }
}

/// `--duration` takes humantime's forms; one too long for any clock is a usage error, not a crash.
#[test]
fn durations_run_and_absurd_ones_are_refused() {
    let dir = tempfile::tempdir().unwrap();
    let fuzz = |duration: &str| {
        Command::new(env!("CARGO_BIN_EXE_pqhelium"))
            .args(["fuzz", "--kernel", "keccak.f1600", "--backend", "model", "--seed", "1", "--duration", duration])
            .current_dir(dir.path())
            .output()
            .unwrap()
    };
    for absurd in ["99999999999999999999h", "18446744073709551615s"] {
        let out = fuzz(absurd);
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{absurd}: {stderr}");
        // clap's hint (`For more information, try '--help'.`) follows the one line of the error.
        let lines: Vec<&str> = stderr.lines().filter(|l| !l.is_empty() && !l.starts_with("For more")).collect();
        assert_eq!(lines.len(), 1, "{stderr}");
        assert!(lines[0].starts_with("error: ") && lines[0].contains(absurd), "{stderr}");
        assert!(out.stdout.is_empty(), "{absurd} ran cases");
    }
    let out = fuzz("1s");
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "{stdout}{}", String::from_utf8_lossy(&out.stderr));
    assert!(stdout.lines().last().unwrap().contains(" cases, 0 mismatches, 0 faults"), "{stdout}");
}

#[test]
fn resume_runs_the_recorded_plan_and_refuses_contradicting_flags() {
    let dir = tempfile::tempdir().unwrap();
    let run = |args: &[&str]| {
        Command::new(env!("CARGO_BIN_EXE_pqhelium")).args(args).current_dir(dir.path()).output().unwrap()
    };
    let kernel = ["fuzz", "--kernel", "mlkem.order.to_mve"];
    let first =
        run(&[&kernel[..], &["--backend", "model", "--cases", "10", "--seed", "3", "--state", "s.json"]].concat());
    assert!(first.status.success());
    for (flag, value) in [("--cases", "20"), ("--shard", "1/2"), ("--seed", "4"), ("--backend", "qemu")] {
        let out = run(&[&kernel[..], &["--resume", "s.json", flag, value]].concat());
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{flag}: {stderr}");
        assert!(stderr.contains(&format!("{flag} ")) && stderr.contains("differs from the checkpoint"), "{stderr}");
    }
    let out = run(&["fuzz", "--kernel", "mlkem.*", "--resume", "s.json"]);
    assert_eq!(out.status.code(), Some(2));
    // Without flags: the recorded backend (model only) and case count; all already ran.
    let out = run(&[&kernel[..], &["--resume", "s.json"]].concat());
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "{stdout}");
    assert!(stdout.contains("mlkem.order.to_mve on model: already complete (10 cases)"), "{stdout}");
    assert!(stdout.lines().last().unwrap().starts_with("0 cases, 0 mismatches"), "{stdout}");
}

#[test]
fn a_reader_that_stops_early_ends_the_output_quietly() {
    // `pqhelium list --json | head`: the listing (over 200 kB) outlasts a pipe's buffer, so a write fails once the
    // reader has gone.
    let mut child = Command::new(env!("CARGO_BIN_EXE_pqhelium"))
        .args(["list", "--json"])
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .expect("run pqhelium");
    drop(child.stdout.take());
    let out = child.wait_with_output().unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(!stderr.contains("panicked"), "{stderr}");
    assert!(stderr.is_empty(), "{stderr}");
    assert_eq!(out.status.code(), Some(141));
}

/// The extreme values the numeric flags take (every seed; case and pair numbers from 0 to 2^48 - 1; no shrinking)
/// run to their verdict; those out of range stop at a usage error naming the flag. The parser's side, for every
/// numeric flag of every command, is the unit test in src/main.rs.
#[test]
fn extreme_numeric_values_run_or_are_usage_errors() {
    const SEED_MAX: &str = "18446744073709551615";
    const LAST_CASE: &str = "281474976710655";
    let run = |args: &[&str]| {
        let dir = tempfile::tempdir().unwrap();
        let out = Command::new(env!("CARGO_BIN_EXE_pqhelium")).args(args).current_dir(dir.path()).output().unwrap();
        (out.status.code(), String::from_utf8_lossy(&out.stdout).into_owned() + &String::from_utf8_lossy(&out.stderr))
    };
    let taken: &[&[&str]] = &[
        &["repro", "--kernel", "keccak.f1600", "--backend", "model", "--seed", SEED_MAX, "--case", LAST_CASE],
        &["repro", "--kernel", "keccak.f1600", "--backend", "unicorn", "--seed", "0", "--case", "0"],
        &["fuzz", "--kernel", "keccak.f1600", "--backend", "model", "--cases", "3", "--seed", SEED_MAX],
        &["fuzz", "--kernel", "keccak.f1600", "--backend", "model", "--cases", "3", "--shrink-budget", "0"],
        &["coverage", "--kernel", "mlkem.ntt.fwd", "--cases", "2", "--seed", SEED_MAX],
        &["ct", "--kernel", "ct.fixture.lookup.masked", "--image", "m7", "--seed", SEED_MAX, "--pair", LAST_CASE],
        &["cycles", "--kernel", "keccak.f1600", "--core", "m55", "--seed", SEED_MAX, "--case", LAST_CASE],
    ];
    for args in taken {
        let (code, output) = run(args);
        assert_eq!(code, Some(0), "{args:?}: {output}");
    }
    let refused: &[(&[&str], &str)] = &[
        (
            &["repro", "--kernel", "keccak.f1600", "--backend", "model", "--seed", "1", "--case", "281474976710656"],
            "--case",
        ),
        (&["ct", "--kernel", "ct.fixture.lookup", "--pair=-1"], "--pair"),
        (&["ct", "--kernel", "ct.fixture.lookup", "--pairs", "0"], "--pairs"),
        (&["coverage", "--cases", "0"], "--cases"),
        (&["check", "--jobs", "100000"], "--jobs"),
        (&["bench", "--calls", "18446744073709551615"], "--calls"),
        (&["cycles", "--calls", "1e30"], "--calls"),
        (&["fuzz", "--kernel", "keccak.f1600", "--timeout", "1e30"], "--timeout"),
        (&["fuzz", "--kernel", "keccak.f1600", "--cases", "18446744073709551616"], "--cases"),
    ];
    for (args, flag) in refused {
        let (code, output) = run(args);
        assert_eq!(code, Some(2), "{args:?}: {output}");
        assert!(output.contains(flag), "{args:?}: the error should name {flag}: {output}");
    }
}
