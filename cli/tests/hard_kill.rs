//! A SIGKILLed `pqhelium fuzz` leaves nothing behind: its QEMU workers die with it, and no file it made remains in
//! /dev/shm or in its temporary directory.

use std::collections::BTreeSet;
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

mod common;
use common::{HANG, KillOnDrop, qemu_children_of, serving};

const JOBS: usize = 2;

fn entries(dir: &Path) -> BTreeSet<String> {
    std::fs::read_dir(dir).unwrap().map(|e| e.unwrap().file_name().to_string_lossy().into_owned()).collect()
}

/// Alive and not a zombie: a killed QEMU re-parented to a reaper that never waits stays a zombie, which holds no
/// memory and no files.
fn alive(pid: i32) -> bool {
    let stat = procfs::process::Process::new(pid).and_then(|p| p.stat());
    stat.is_ok_and(|s| s.state != 'Z' && s.state != 'X')
}

#[test]
fn sigkill_mid_campaign_leaves_no_qemu_and_no_file() {
    let work = tempfile::tempdir().unwrap();
    let private_tmp = tempfile::tempdir().unwrap();
    let shm = Path::new("/dev/shm");
    let shm_before = entries(shm);

    let cli = Command::new(env!("CARGO_BIN_EXE_pqhelium"))
        .args(["fuzz", "--kernel", "keccak.f1600", "--backend", "qemu", "--cases", "100000000"])
        .args(["--jobs", &JOBS.to_string()])
        .arg("--state")
        .arg(work.path().join("state.json"))
        .current_dir(work.path())
        .env("TMPDIR", private_tmp.path())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let mut cli = KillOnDrop(cli);
    let cli_pid = cli.0.id();

    // Mid-campaign: every worker's QEMU has served a batch (a second or two after the start on an idle machine).
    let deadline = Instant::now() + HANG;
    let qemus = loop {
        let qemus = qemu_children_of(cli_pid);
        if qemus.len() == JOBS && qemus.iter().all(|&pid| serving(pid)) {
            break qemus;
        }
        assert!(cli.0.try_wait().unwrap().is_none(), "pqhelium ended before the campaign was under way");
        assert!(Instant::now() < deadline, "no {JOBS} serving QEMU workers after {HANG:?}: {qemus:?}");
        std::thread::sleep(Duration::from_millis(50));
    };
    let shm_while_running = entries(shm);

    cli.0.kill().unwrap(); // SIGKILL: no destructor, no signal handler runs
    let status = cli.0.wait().unwrap();
    assert_eq!(std::os::unix::process::ExitStatusExt::signal(&status), Some(libc::SIGKILL));

    // The kernel delivers PDEATHSIG at once; QEMU's exit takes a moment.
    let deadline = Instant::now() + HANG;
    while qemus.iter().any(|&pid| alive(pid)) && Instant::now() < deadline {
        std::thread::sleep(Duration::from_millis(20));
    }
    let survivors: Vec<i32> = qemus.iter().copied().filter(|&pid| alive(pid)).collect();
    assert!(survivors.is_empty(), "QEMU workers outlived the killed pqhelium: {survivors:?}");

    let ours = format!("pqhelium-{cli_pid}-");
    let named_ours: Vec<&String> = shm_while_running.iter().filter(|name| name.starts_with(&ours)).collect();
    assert!(named_ours.is_empty(), "pqhelium kept DDR files in /dev/shm: {named_ours:?}");
    let new_in_shm: Vec<String> = entries(shm).difference(&shm_before).cloned().collect();
    assert!(new_in_shm.is_empty(), "new entries in /dev/shm after the kill: {new_in_shm:?}");
    let left_in_tmp = entries(private_tmp.path());
    assert!(left_in_tmp.is_empty(), "files left in pqhelium's TMPDIR: {left_in_tmp:?}");
}
