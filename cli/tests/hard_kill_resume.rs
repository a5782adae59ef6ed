//! A SIGKILLed `pqhelium fuzz` resumes exactly: `--resume` runs every case its checkpoint does not record, once, and
//! no case it records. Killed while starting up, in the middle of a chunk, and while writing the checkpoint.
//!
//! The resumed run's own summary line counts the cases it ran (M); the final report's ranges cover every case of
//! every campaign. With R the cases the checkpoint recorded at the kill, M = total - |R| and R together with the
//! resumed cases covering everything leave one possibility: the resumed run ran exactly the cases outside R, each
//! once.

use std::io::{BufRead, BufReader};
use std::path::Path;
use std::process::{ChildStdout, Command, Stdio};
use std::time::{Duration, Instant};

use pqhelium_engine::report::Report;

mod common;
use common::KillOnDrop;

/// Two kernels on QEMU (`fwd` and `inv`), a few seconds in all: the kill can land in either campaign.
const KERNEL: &str = "fndsa.ntt1024.???";
const CASES: u64 = 6000;
const CAMPAIGNS: u64 = 2;
const PATIENCE: Duration = Duration::from_secs(60);

fn start(dir: &Path, pause_in_checkpoint_ms: Option<u64>) -> (KillOnDrop, BufReader<ChildStdout>) {
    let mut command = Command::new(env!("CARGO_BIN_EXE_pqhelium"));
    command
        .args(["fuzz", "--kernel", KERNEL, "--backend", "qemu", "--cases", &CASES.to_string(), "--seed", "11"])
        .args(["--jobs", "2", "--state", "state.json"])
        .current_dir(dir)
        .stdout(Stdio::piped())
        .stderr(Stdio::null());
    if let Some(ms) = pause_in_checkpoint_ms {
        command.env("PQHELIUM_TEST_PAUSE_IN_CHECKPOINT_WRITE_MS", ms.to_string());
    }
    let mut child = command.spawn().unwrap();
    let stdout = BufReader::new(child.stdout.take().unwrap());
    (KillOnDrop(child), stdout)
}

fn wait_until(what: &str, cli: &mut KillOnDrop, mut done: impl FnMut() -> bool) {
    let deadline = Instant::now() + PATIENCE;
    while !done() {
        assert!(cli.0.try_wait().unwrap().is_none(), "pqhelium ended before {what}");
        assert!(Instant::now() < deadline, "no {what} after {PATIENCE:?}");
        std::thread::sleep(Duration::from_millis(5));
    }
}

fn sigkill(mut cli: KillOnDrop) {
    cli.0.kill().unwrap();
    let status = cli.0.wait().unwrap();
    assert_eq!(std::os::unix::process::ExitStatusExt::signal(&status), Some(libc::SIGKILL));
}

fn recorded(report: &Report) -> u64 {
    report.campaigns.iter().map(|c| c.ranges.count()).sum()
}

/// Resumes the killed campaign in `dir` and checks union and overlap as the module comment says.
fn resume_and_check(dir: &Path, when: &str) {
    let at_kill =
        Report::load(&dir.join("state.json")).unwrap_or_else(|e| panic!("{when}: checkpoint unreadable: {e}"));
    assert!(!at_kill.complete, "{when}: the campaign had finished before the kill");
    let out = Command::new(env!("CARGO_BIN_EXE_pqhelium"))
        .args(["fuzz", "--kernel", KERNEL, "--resume", "state.json", "--report", "final.json"])
        .current_dir(dir)
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "{when}: resume failed:\n{stdout}");
    let last = stdout.lines().last().unwrap();
    let ran_now: u64 = last.split(" cases,").next().unwrap().parse().unwrap_or_else(|_| panic!("{when}: {last}"));

    let total = CASES * CAMPAIGNS;
    assert_eq!(ran_now, total - recorded(&at_kill), "{when}: the resumed run ran other cases than the unrecorded ones");
    let last_state = Report::load(&dir.join("final.json")).unwrap();
    assert!(last_state.complete, "{when}");
    assert_eq!(last_state.campaigns.len() as u64, CAMPAIGNS, "{when}");
    for c in &last_state.campaigns {
        assert_eq!(c.ranges.as_slice(), &[[0, CASES]], "{when}: {} on {}", c.kernel, c.backend);
        assert_eq!((c.cases_run, c.mismatches, c.faults, c.failures.len()), (CASES, 0, 0, 0), "{when}");
        let before = at_kill.campaigns.iter().find(|b| b.kernel == c.kernel && b.backend == c.backend);
        if let Some(before) = before {
            let mut union = before.ranges.clone();
            union.extend(&c.ranges);
            assert_eq!(union, c.ranges, "{when}: a recorded case is missing from the final report");
        }
    }
    println!("{when}: {} of {total} cases recorded at the kill, {ran_now} run on resume", recorded(&at_kill));
}

#[test]
fn killed_during_start_up() {
    let dir = tempfile::tempdir().unwrap();
    let (mut cli, mut stdout) = start(dir.path(), None);
    // The first line comes once the checkpoint exists, before any emulator has started.
    let mut line = String::new();
    stdout.read_line(&mut line).unwrap();
    assert!(line.starts_with("seed 11; checkpoint state.json"), "{line}");
    assert!(cli.0.try_wait().unwrap().is_none());
    sigkill(cli);
    let at_kill = Report::load(&dir.path().join("state.json")).unwrap();
    assert_eq!(recorded(&at_kill), 0, "killed before any case completed");
    resume_and_check(dir.path(), "killed during start-up");
}

#[test]
fn killed_mid_chunk() {
    let dir = tempfile::tempdir().unwrap();
    let (mut cli, _stdout) = start(dir.path(), None);
    let state = dir.path().join("state.json");
    // A campaign part-way through (chunks of it recorded, others in flight on both workers).
    wait_until("a checkpoint with a campaign part-way through", &mut cli, || {
        Report::load(&state).is_ok_and(|r| r.campaigns.iter().any(|c| (1..CASES).contains(&c.ranges.count())))
    });
    sigkill(cli);
    resume_and_check(dir.path(), "killed mid-chunk");
}

#[test]
fn killed_while_writing_the_checkpoint() {
    let dir = tempfile::tempdir().unwrap();
    // Each checkpoint write pauses between its temporary file and the rename; the kill lands in that window.
    let (mut cli, _stdout) = start(dir.path(), Some(2_000));
    let (state, tmp) = (dir.path().join("state.json"), dir.path().join("state.tmp"));
    // A checkpoint with cases recorded in place, and the next one being written.
    wait_until("a checkpoint being written after one with cases", &mut cli, || {
        tmp.exists() && Report::load(&state).is_ok_and(|r| recorded(&r) > 0)
    });
    sigkill(cli);
    // The last complete checkpoint is in place; the half-done one is not.
    Report::load(&dir.path().join("state.json")).expect("the checkpoint in place is whole");
    resume_and_check(dir.path(), "killed while writing the checkpoint");
}
