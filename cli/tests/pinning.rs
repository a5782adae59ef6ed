//! `--pin`: each emulator worker with its QEMU on a CPU of its own, case generation and checking on the others.
//! Alone in its test binary, so that every QEMU child of this process is the campaign's.

use std::sync::Mutex;

use pqhelium_engine::diff::{self, Campaign, CaseFailure, Control};
use pqhelium_families as registry;
use pqhelium_guest::backend::BackendKind;

mod common;
use common::qemu_children;

/// The CPUs in a `Cpus_allowed_list` line of a /proc status file ("0-2,5").
fn cpus_allowed(status: &str) -> Vec<usize> {
    let text = std::fs::read_to_string(status).unwrap();
    let list = text.lines().find_map(|l| l.strip_prefix("Cpus_allowed_list:")).expect("Cpus_allowed_list").trim();
    let mut cpus = Vec::new();
    for part in list.split(',') {
        match part.split_once('-') {
            Some((a, b)) => cpus.extend(a.parse::<usize>().unwrap()..=b.parse().unwrap()),
            None => cpus.push(part.parse().unwrap()),
        }
    }
    cpus
}

/// Per completed chunk: the CPUs of the thread that finished it (the checker, for a chunk that passed) and of every
/// QEMU child.
fn observe(pin: bool) -> Vec<(Vec<usize>, Vec<Vec<usize>>)> {
    let kernel = registry::find("mlkem.order.to_mve").unwrap();
    let seen = Mutex::new(Vec::new());
    let hook = |_: [u64; 2], _: &[CaseFailure]| {
        let qemus = qemu_children().iter().map(|pid| cpus_allowed(&format!("/proc/{pid}/status"))).collect();
        seen.lock().unwrap().push((cpus_allowed("/proc/thread-self/status"), qemus));
    };
    let campaign = Campaign { pin, ..Campaign::new(kernel, BackendKind::Qemu, 1, 5_000, 1) };
    let result = diff::run_with(&campaign, &Control { on_chunk: Some(&hook), ..Default::default() });
    assert!(result.passed() && result.ran.count() == 5_000, "{}", result.summary_line());
    seen.into_inner().unwrap()
}

#[test]
fn a_pinned_campaign_keeps_its_qemu_and_its_host_threads_apart() {
    let allowed = cpus_allowed("/proc/thread-self/status");
    let (host, worker) = if allowed.len() > 1 {
        (allowed[..allowed.len() - 1].to_vec(), vec![*allowed.last().unwrap()])
    } else {
        (allowed.clone(), allowed.clone()) // one CPU: nothing to pin
    };
    let pinned = observe(true);
    assert!(!pinned.is_empty());
    for (checker, qemus) in &pinned {
        assert_eq!(checker, &host);
        assert_eq!(qemus, &vec![worker.clone()], "the campaign's one QEMU, on the worker's CPU");
    }
    // Without --pin every thread and the QEMU may run anywhere (nothing left over from the pinned campaign).
    for (checker, qemus) in observe(false) {
        assert_eq!(checker, allowed);
        assert_eq!(qemus, vec![allowed.clone()]);
    }
}
