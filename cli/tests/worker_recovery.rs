//! A QEMU worker killed in the middle of a campaign: the campaign completes with every case accounted for.
//! Alone in its test binary, so that the QEMU it kills is the campaign's.

use std::sync::atomic::{AtomicBool, Ordering};

use pqhelium_engine::diff::{self, Campaign, CaseFailure, Control};
use pqhelium_engine::ranges::Ranges;
use pqhelium_families as registry;
use pqhelium_guest::backend::BackendKind;

mod common;
use common::{qemu_children, serving};

#[test]
fn a_campaign_survives_a_killed_qemu_worker_with_every_case_accounted_for() {
    let kernel = registry::find("keccak.f1600").unwrap();
    let campaign = Campaign::new(kernel, BackendKind::Qemu, 11, 30_000, 2);
    // Killed when a chunk is done, so mid-campaign whatever the machine's speed (a timer could fire after the last
    // case), and a QEMU that serves its worker (the first chunk can be done before the other worker's QEMU booted).
    let killed = AtomicBool::new(false);
    let kill_once = |_: [u64; 2], _: &[CaseFailure]| {
        if killed.load(Ordering::SeqCst) {
            return;
        }
        if let Some(pid) = qemu_children().into_iter().find(|&pid| serving(pid))
            && !killed.swap(true, Ordering::SeqCst)
        {
            unsafe { libc::kill(pid, libc::SIGKILL) };
        }
    };
    let result = diff::run_with(&campaign, &Control { on_chunk: Some(&kill_once), ..Control::default() });
    assert!(killed.load(Ordering::SeqCst), "a QEMU worker was killed");
    assert!(result.retries >= 1, "the killed worker's case was retried");
    assert!(result.passed(), "{:?}", result.failures.iter().map(ToString::to_string).collect::<Vec<_>>());
    assert_eq!(result.ran, Ranges::from_slice(&[[0, 30_000]]), "every case accounted for");
    assert_eq!(result.instructions.calls, 30_000);
}
