//! `pqhelium ct` on unicorn: every leaky constant-time fixture is reported with the kind of its leak inside its own
//! function, every constant-time twin passes, a kernel constant-time by construction (Keccak) passes, and so does the
//! X25519 fixed base while its deliberately flawed B8 variant is caught.

use std::process::Command;

use pqhelium_testbench::backend::{Image, Limits};
use pqhelium_testbench::ct::{self, LeakKind, Tracer, Verdict};
use pqhelium_testbench::registry;

const SEED: u64 = 0xC7;

fn tracer() -> Tracer {
    Tracer::open(Image::M7, Limits::default()).expect("unicorn runs the m7 image")
}

fn verdict(tracer: &mut Tracer, id: &str, pairs: u64) -> ct::KernelReport {
    let kernel = registry::find(id).unwrap_or_else(|| panic!("{id} is not registered"));
    ct::check_kernel(tracer, kernel, SEED, 0..pairs)
}

#[test]
fn every_leaky_fixture_is_caught_where_it_leaks() {
    let mut tracer = tracer();
    let leaky = [
        ("ct.fixture.lookup", "ct_fixture_lookup", LeakKind::MemoryAddress),
        ("ct.fixture.branch", "ct_fixture_branch", LeakKind::ControlFlow),
        ("ct.fixture.select.it", "ct_fixture_select_it", LeakKind::Predication),
        ("ct.fixture.div_q", "ct_fixture_div_q", LeakKind::VariableLatency),
        ("ct.fixture.clz", "ct_fixture_clz", LeakKind::ControlFlow),
    ];
    for (id, symbol, kind) in leaky {
        let report = verdict(&mut tracer, id, 50);
        assert_eq!(report.faults, 0, "{id}: {:?}", report.first_fault);
        let Verdict::Leak { leak, case_a, case_b, .. } = &report.verdict else {
            panic!("{id}: no leak found in {} pairs", report.pairs)
        };
        assert_eq!(leak.kind, kind, "{id}: {leak}");
        assert!(leak.location.starts_with(&format!("{symbol}+")), "{id}: {leak}");
        assert_ne!(leak.a, leak.b, "{id}: {leak}");
        assert!(case_a < case_b);
    }
}

#[test]
fn every_constant_time_twin_passes() {
    let mut tracer = tracer();
    for id in
        ["ct.fixture.lookup.masked", "ct.fixture.branch.masked", "ct.fixture.div_q.barrett", "ct.fixture.clz.fixed"]
    {
        let report = verdict(&mut tracer, id, 200);
        assert!(matches!(report.verdict, Verdict::ConstantTime), "{id}: {:?}", report.verdict);
        assert_eq!((report.pairs, report.faults), (200, 0), "{id}");
    }
}

#[test]
fn keccak_is_constant_time() {
    let mut tracer = tracer();
    let report = verdict(&mut tracer, "keccak.f1600", 8);
    assert!(matches!(report.verdict, Verdict::ConstantTime), "{:?}", report.verdict);
    assert_eq!((report.pairs, report.faults), (8, 0));
}

/// The traces see what the secrets change: the pairs of a leaky fixture differ in their recorded events, those of its
/// twin do not, and the hashes agree with the recorded events.
#[test]
fn traces_differ_exactly_when_the_events_do() {
    let mut tracer = tracer();
    for (id, leaks) in [("ct.fixture.div_q", true), ("ct.fixture.div_q.barrett", false)] {
        let kernel = registry::find(id).unwrap();
        let pair = ct::pair(kernel, SEED, 5).expect("a partner case");
        let hashed_a = tracer.trace(kernel.symbol, &pair.args_a, false).unwrap();
        let hashed_b = tracer.trace(kernel.symbol, &pair.args_b, false).unwrap();
        let recorded_a = tracer.trace(kernel.symbol, &pair.args_a, true).unwrap();
        let recorded_b = tracer.trace(kernel.symbol, &pair.args_b, true).unwrap();
        assert_eq!((hashed_a.hash, hashed_a.events), (recorded_a.hash, recorded_a.events));
        let events_a = recorded_a.recorded.unwrap();
        assert_eq!(events_a.len() as u64, recorded_a.events);
        assert!(events_a.len() > 8 * 3, "{id}: {} events", events_a.len());
        assert_eq!(!hashed_a.same_as(&hashed_b), leaks, "{id}");
        assert_eq!(events_a != recorded_b.recorded.unwrap(), leaks, "{id}");
    }
}

fn pqhelium_ct(args: &[&str]) -> (i32, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_pqhelium")).arg("ct").args(args).output().expect("run pqhelium");
    (out.status.code().expect("exit code"), String::from_utf8_lossy(&out.stdout).into_owned())
}

#[test]
fn command_exit_codes_and_summary() {
    let (code, out) = pqhelium_ct(&["--kernel", "ct.fixture.div_q*", "--pairs", "5"]);
    assert_eq!(code, 1, "{out}");
    assert!(out.contains("LEAK ct.fixture.div_q: variable-latency operand leak at ct_fixture_div_q+"), "{out}");
    assert!(out.contains("pass ct.fixture.div_q.barrett: 5 pairs"), "{out}");
    assert_eq!(out.lines().last(), Some("6 pairs, 1 leaks, 0 faults"), "{out}");
    // The reproduce line alone finds the same leak.
    let line = out.lines().find(|l| l.contains("reproduce:")).expect("a reproduce line");
    let words: Vec<&str> = line.split_whitespace().skip_while(|w| *w != "--kernel").collect();
    let (code, again) = pqhelium_ct(&words);
    assert_eq!(code, 1, "{again}");
    let leak_line = |text: &str| text.lines().find(|l| l.starts_with("LEAK")).map(str::to_owned);
    assert_eq!(leak_line(&again), leak_line(&out));

    let (code, out) = pqhelium_ct(&["--kernel", "ct.fixture.*.masked", "--pairs", "5"]);
    assert_eq!(code, 0, "{out}");
    assert_eq!(out.lines().last(), Some("10 pairs, 0 leaks, 0 faults"), "{out}");

    let (code, _) = pqhelium_ct(&["--kernel", "no.such.kernel"]);
    assert_eq!(code, 2);
}

/// The fixed-base kernel and its deliberately flawed B8 twin (`kernels/arm/x25519/base.c`): `x25519.base` (masked
/// lookup, sign by masked swaps) gives equal traces; `x25519.base.b8` (operands reached through a pointer picked by
/// the secret sign) is reported as a memory-address leak inside its own function, and `pqhelium ct --kernel
/// 'x25519.base*'` exits 1 with one leak.
#[test]
fn the_fixed_base_passes_and_its_b8_variant_is_caught() {
    let mut tracer = tracer();
    let report = verdict(&mut tracer, "x25519.base", 10);
    assert!(matches!(report.verdict, Verdict::ConstantTime), "{:?}", report.verdict);
    assert_eq!((report.pairs, report.faults), (10, 0));
    let report = verdict(&mut tracer, "x25519.base.b8", 10);
    let Verdict::Leak { leak, .. } = &report.verdict else { panic!("B8 not caught in {} pairs", report.pairs) };
    assert_eq!(leak.kind, LeakKind::MemoryAddress, "{leak}");
    assert!(leak.location.starts_with("x25519_base_b8+"), "{leak}");

    let (code, out) = pqhelium_ct(&["--kernel", "x25519.base*", "--pairs", "3"]);
    assert_eq!(code, 1, "{out}");
    assert!(out.contains("pass x25519.base: 3 pairs, equal traces"), "{out}");
    assert!(out.contains("LEAK x25519.base.b8: memory address leak at x25519_base_b8+"), "{out}");
}
