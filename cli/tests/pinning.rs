//! `--pin`: each emulator worker with its QEMU on a CPU of its own, case generation and checking on the others.
//! Alone in its test binary, so that every QEMU child of this process is the campaign's.

use std::sync::Mutex;

use pqhelium_engine::diff::{self, Campaign, CaseFailure, Control};
use pqhelium_families as registry;
use pqhelium_guest::backend::BackendKind;
use procfs::process::{Process, Status};

mod common;
use common::qemu_children;

/// The CPUs a process or thread may run on, from its /proc status (`Cpus_allowed_list`, "0-2,5").
fn cpus_allowed(status: procfs::ProcResult<Status>) -> Vec<usize> {
    let list = status.unwrap().cpus_allowed_list.expect("Cpus_allowed_list");
    list.into_iter().flat_map(|(first, last)| first as usize..=last as usize).collect()
}

/// The CPUs the calling thread may run on.
fn this_thread_cpus() -> Vec<usize> {
    // /proc/thread-self names no pid, which procfs needs: the thread is found by its id instead.
    let tid = unsafe { libc::gettid() };
    cpus_allowed(Process::myself().and_then(|p| p.task_from_tid(tid)).and_then(|t| t.status()))
}

/// Per completed chunk: the CPUs of the thread that finished it (the checker, for a chunk that passed) and of every
/// QEMU child.
fn observe(pin: bool) -> Vec<(Vec<usize>, Vec<Vec<usize>>)> {
    let kernel = registry::find("mlkem.order.to_mve").unwrap();
    let seen = Mutex::new(Vec::new());
    let hook = |_: [u64; 2], _: &[CaseFailure]| {
        let qemus = qemu_children().into_iter().map(|pid| cpus_allowed(Process::new(pid).and_then(|p| p.status())));
        seen.lock().unwrap().push((this_thread_cpus(), qemus.collect()));
    };
    let campaign = Campaign { pin, ..Campaign::new(kernel, BackendKind::Qemu, 1, 5_000, 1) };
    let result = diff::run_with(&campaign, &Control { on_chunk: Some(&hook), ..Default::default() });
    assert!(result.passed() && result.ran.count() == 5_000, "{}", result.summary_line());
    seen.into_inner().unwrap()
}

#[test]
fn a_pinned_campaign_keeps_its_qemu_and_its_host_threads_apart() {
    let allowed = this_thread_cpus();
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
