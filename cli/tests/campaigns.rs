//! Campaigns at scale: nothing lost when an emulator dies, exact resumption after an interrupt, shrunk
//! counterexamples, reports.

use std::io::Read;
use std::process::Command;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use pqhelium_engine::diff::{self, Campaign, CaseFailure, Control, Failure};
use pqhelium_engine::ranges::Ranges;
use pqhelium_engine::report::{self, Report};
use pqhelium_families as registry;
use pqhelium_guest::backend::{Arg, BackendKind};

mod common;
use common::KillOnDrop;

/// Far above what reaching a checkpoint needs on a loaded machine: it only turns a hang into a failure.
const PATIENCE: Duration = Duration::from_secs(120);

#[test]
fn an_interrupted_campaign_resumes_without_redoing_or_skipping_cases() {
    let kernel = registry::find("keccak.interleave").unwrap();
    let campaign = Campaign { batch: 100, ..Campaign::new(kernel, BackendKind::Unicorn, 5, 20_000, 2) };
    let interrupt = AtomicBool::new(false);
    let seen = std::sync::atomic::AtomicU64::new(0);
    let stop_early = |range: [u64; 2], _: &[CaseFailure]| {
        if seen.fetch_add(range[1] - range[0], Ordering::SeqCst) >= 3_000 {
            interrupt.store(true, Ordering::SeqCst);
        }
    };
    let first = diff::run_with(
        &campaign,
        &Control { interrupt: Some(&interrupt), on_chunk: Some(&stop_early), ..Default::default() },
    );
    assert!(first.interrupted);
    assert!(first.ran.count() >= 3_000 && first.ran.count() < 20_000, "{}", first.ran);
    let second = diff::run_with(&campaign, &Control { skip: first.ran.clone(), ..Default::default() });
    assert!(!second.interrupted);
    assert!(!first.ran.overlaps(&second.ran), "no case ran twice: {} / {}", first.ran, second.ran);
    let mut union = first.ran.clone();
    union.extend(&second.ran);
    assert_eq!(union, Ranges::from_slice(&[[0, 20_000]]), "no case skipped");
    assert!(first.passed() && second.passed());
}

#[test]
fn the_cli_resumes_a_campaign_interrupted_by_ctrl_c() {
    resumes_after(libc::SIGINT);
}

/// A CI timeout or a job scheduler stops with SIGTERM: the same checkpoint, the same resume.
#[test]
fn the_cli_resumes_a_campaign_stopped_by_sigterm() {
    resumes_after(libc::SIGTERM);
}

fn resumes_after(signal: libc::c_int) {
    let dir = tempfile::tempdir().unwrap();
    let state = dir.path().join("state.json");
    let fuzz = |extra: &[&str]| {
        let mut cmd = Command::new(env!("CARGO_BIN_EXE_pqhelium"));
        cmd.args(["fuzz", "--kernel", "keccak.interleave", "--backend", "model", "--backend", "unicorn"]);
        cmd.args(["--cases", "400000", "--seed", "77", "--jobs", "2"]).args(extra);
        cmd.stdout(std::process::Stdio::piped());
        cmd
    };
    let mut child = KillOnDrop(fuzz(&["--state", state.to_str().unwrap()]).spawn().unwrap());
    // The signal lands once the checkpoint records finished cases: part of the work is done, not all of it.
    let deadline = Instant::now() + PATIENCE;
    while !Report::load(&state).is_ok_and(|r| r.campaigns.iter().any(|c| c.ranges.count() > 0)) {
        assert!(child.0.try_wait().unwrap().is_none(), "pqhelium ended before its checkpoint recorded a case");
        assert!(Instant::now() < deadline, "no case recorded in the checkpoint after {PATIENCE:?}");
        std::thread::sleep(Duration::from_millis(5));
    }
    unsafe { libc::kill(child.0.id() as i32, signal) };
    let status = child.0.wait().unwrap();
    let mut stdout = String::new();
    child.0.stdout.take().unwrap().read_to_string(&mut stdout).unwrap();
    assert_eq!(status.code(), Some(130), "{stdout}");
    assert!(stdout.contains("interrupted: resume with"), "{stdout}");
    let checkpoint = Report::load(&state).unwrap();
    assert!(!checkpoint.complete);
    let ran_before: u64 = checkpoint.campaigns.iter().map(|c| c.ranges.count()).sum();
    assert!((1..800_000).contains(&ran_before), "{ran_before} of 800000 cases recorded at the signal");

    let report_path = dir.path().join("report.json");
    let second =
        fuzz(&["--resume", state.to_str().unwrap(), "--report", report_path.to_str().unwrap()]).output().unwrap();
    let second_stdout = String::from_utf8_lossy(&second.stdout);
    assert!(second.status.success(), "{second_stdout}");
    let report = Report::load(&report_path).unwrap();
    assert!(report.complete && report.passed());
    assert_eq!(report.campaigns.len(), 2);
    for c in &report.campaigns {
        assert_eq!(c.ranges, Ranges::from_slice(&[[0, 400_000]]), "{} on {}", c.kernel, c.backend);
        assert_eq!(c.cases_run, 400_000);
    }
    // The resumed run did only the rest: its summary line counts the cases it ran.
    let last = second_stdout.lines().last().unwrap();
    let ran_after: u64 = last.split(" cases,").next().unwrap().parse().unwrap_or_else(|_| panic!("{last}"));
    assert_eq!(ran_before + ran_after, 800_000, "{last}");
}

/// A kernel failing every case under `--keep-going` has only its first failures shrunk: with one job, those of the
/// lowest cases (case 0, the simplest input, has nothing to shrink).
#[test]
fn only_the_first_failures_are_shrunk() {
    let broken = registry::variant("keccak.f1600", |k| {
        k.model = Some(|args| {
            let mut o = registry::find("keccak.f1600").unwrap().expected(args);
            o.buffers[0][0] ^= 1;
            o
        })
    });
    let result = diff::run(&Campaign { keep_going: true, ..Campaign::new(broken, BackendKind::Model, 3, 300, 1) });
    assert_eq!(result.failures.len(), 300);
    let shrunk: Vec<u64> = result.failures.iter().filter(|f| f.shrunk.is_some()).map(|f| f.case).collect();
    assert_eq!(shrunk, (1..diff::FAILURES_SHRUNK as u64).collect::<Vec<_>>());
}

#[test]
fn a_failure_is_shrunk_to_the_bytes_that_matter_and_reported_as_a_test() {
    // A model that is wrong only when byte 50 of the state is odd.
    let broken = registry::variant("keccak.f1600", |k| {
        k.model = Some(|args| {
            let mut o = registry::find("keccak.f1600").unwrap().expected(args);
            let Arg::InOut(input) = &args[0] else { unreachable!() };
            if input[50] & 1 == 1 {
                o.buffers[0][0] ^= 1;
            }
            o
        })
    });
    let result = diff::run(&Campaign::new(broken, BackendKind::Model, 3, 5_000, 1));
    let failure = result.failures.first().expect("the broken model is caught");
    assert!(matches!(failure.failure, Failure::Mismatch { left: "reference", .. }));
    let Some(shrunk) = &failure.shrunk else { panic!("no shrunk input") };
    let Arg::InOut(bytes) = &shrunk[0] else { unreachable!() };
    let nonzero: Vec<usize> = (0..bytes.len()).filter(|&i| bytes[i] != 0).collect();
    assert!(nonzero.contains(&50) && nonzero.iter().all(|&i| (48..52).contains(&i)), "{nonzero:?}");

    let entry = report::failure_report(result.kernel, "model", 3, failure);
    assert_eq!(entry.kind, "mismatch");
    assert!(entry.regression_test.contains("assert_case_passes(\"keccak.f1600\", BackendKind::Model"));
    assert!(entry.regression_test.contains(&hex::encode(bytes)));
    assert_eq!(
        entry.repro,
        format!("pqhelium repro --kernel keccak.f1600 --backend model --seed 3 --case {}", failure.case)
    );

    let mut report = Report::new(3);
    report.campaign_mut("keccak.f1600", "model").absorb(&result);
    let junit = report::junit(&report);
    assert!(junit.contains("<failure message=\"1 mismatches, 0 faults"), "{junit}");
    let json = serde_json::to_string(&report).unwrap();
    let back: Report = serde_json::from_str(&json).unwrap();
    assert_eq!(back.campaigns[0].failures[0].case, failure.case);
}

#[test]
fn a_regression_test_from_a_report_passes_on_a_correct_kernel() {
    // The generated helper is what pasted regression tests call.
    let args = vec![Arg::InOut(vec![7; 200])];
    for backend in BackendKind::ALL {
        diff::assert_case_passes("keccak.f1600", backend, &args);
    }
}
