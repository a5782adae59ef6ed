//! One test drives the whole registry: every kernel, on every backend it has, runs a short campaign through the
//! engine (its first edge cases and its first random cases), with every check the engine makes on every case (inputs
//! within their bounds, the model and the object code within their output bounds and equal byte for byte, read-only
//! inputs unchanged). A kernel added to the registry is in this test without a line of its own.

use std::time::{Duration, Instant};

use pqhelium_engine::diff::{self, Campaign, Control};
use pqhelium_engine::ranges::Ranges;
use pqhelium_families::{self as registry, Images};
use pqhelium_guest::backend::{BackendKind, Limits};

const SEED: u64 = 0x4E6E;
/// Edge cases and random cases run per kernel and backend.
const EDGE: u64 = 3;
const RANDOM: u64 = 3;

#[test]
fn every_kernel_on_every_backend_it_has() {
    let started = Instant::now();
    let mut campaigns = 0;
    for kernel in registry::all() {
        let backends: Vec<BackendKind> = BackendKind::ALL.into_iter().filter(|&b| kernel.runs_on(b)).collect();
        // Object code runs on QEMU at least; a whole scheme on the model backend.
        let home = if kernel.images == Images::HostOnly { BackendKind::Model } else { BackendKind::Qemu };
        assert!(backends.contains(&home), "{}: not on {home}", kernel.id);
        // Cases 0..EDGE and the first RANDOM after the edge cases; those between count as done.
        let edge = EDGE.min(kernel.edge_cases);
        let done =
            if kernel.edge_cases > edge { Ranges::from_slice(&[[edge, kernel.edge_cases]]) } else { Ranges::new() };
        let cases = kernel.edge_cases + RANDOM;
        for backend in backends {
            let campaign = Campaign {
                limits: Limits { timeout: Duration::from_secs(60) },
                ..Campaign::new(kernel, backend, SEED, cases, 1)
            };
            let result = diff::run_with(&campaign, &Control { skip: done.clone(), ..Control::default() });
            let failures: Vec<String> = result.failures.iter().map(ToString::to_string).collect();
            assert!(result.passed(), "{} on {backend}: {:?} {failures:?}", kernel.id, result.setup_error);
            assert_eq!(result.cases_run(), edge + RANDOM, "{} on {backend}", kernel.id);
            if backend != BackendKind::Model {
                assert_eq!(result.instructions.calls, edge + RANDOM, "{} on {backend}: every call counted", kernel.id);
                assert!(result.instructions.min > 0, "{} on {backend}", kernel.id);
            }
            campaigns += 1;
        }
    }
    eprintln!("{campaigns} campaigns in {:.1} s", started.elapsed().as_secs_f64());
    assert!(campaigns >= 3 * registry::all().count() / 2, "{campaigns} campaigns");
}
