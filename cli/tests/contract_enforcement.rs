//! The rules every call must keep, each broken on purpose by a guest function (kernels/arm/selftest/abi_violations.c)
//! and caught on both emulators with a message naming what broke: read-only inputs unchanged, outputs within their
//! declared bounds, and the AAPCS calling convention (r4-r11, d8-d15 and sp preserved). The same functions called
//! within the rules pass, so the checks are not vacuous, and the backend is usable again after every violation.

use std::time::Duration;

use pqhelium_engine::diff::{self, CaseFailure, Difference, Failure};
use pqhelium_families::{self as registry, ArgSpec, Bound, BoundViolation, Description, Elem, Images, Len, Outcome};
use pqhelium_guest::backend::qemu::QemuBackend;
use pqhelium_guest::backend::unicorn::UnicornBackend;
use pqhelium_guest::backend::{
    Arg, Backend, BackendKind, Call, CallError, CallOutput, ConventionViolation, Limits, SavedRegister,
};
use pqhelium_kernels::{M7_IMAGE, M55_IMAGE};

const SHORT: Limits = Limits { timeout: Duration::from_secs(2) };

fn backends() -> Vec<(BackendKind, Box<dyn Backend>)> {
    vec![
        (BackendKind::Unicorn, Box::new(UnicornBackend::open(&M7_IMAGE, SHORT).unwrap())),
        (BackendKind::Qemu, Box::new(QemuBackend::open(&M55_IMAGE, SHORT).unwrap())),
    ]
}

/// A call that writes every callee-saved register and restores them: it passes the convention check.
fn conforming_call(value: u32) -> Call {
    Call::new("pqh_selftest_uses_saved_registers", vec![Arg::U32(value)])
}

fn assert_conforming_call_passes(backend: &mut dyn Backend) {
    let out = backend.call(&conforming_call(1000)).unwrap_or_else(|e| panic!("{}: {e}", backend.name()));
    assert_eq!(out.r0, 1007, "{}", backend.name());
}

fn violation_of(result: Result<CallOutput, CallError>, backend: &str) -> ConventionViolation {
    match result {
        Err(CallError::CallingConvention(v)) => v,
        other => panic!("{backend}: expected a calling-convention violation, got {other:?}"),
    }
}

#[test]
fn a_call_that_restores_every_callee_saved_register_passes() {
    for (_, mut b) in backends() {
        assert_conforming_call_passes(b.as_mut());
        // Repeated in a guest loop: each repetition is checked, and each passes.
        let out = b.call(&Call { repeat: 5, ..conforming_call(20) }).unwrap();
        assert_eq!(out.r0, 27, "{}", b.name());
    }
}

/// The harness's canaries (kernels/arm/harness/pqh_invoke.h) name their register: 0xC7C7C7C7 in r7, 0xD9D9D9D9 in both
/// words of d9.
#[test]
fn clobbered_r7_is_named() {
    for (_, mut b) in backends() {
        let v = violation_of(b.call(&Call::new("pqh_selftest_clobbers_r7", vec![Arg::U32(0x1234_5678)])), b.name());
        let expected =
            ConventionViolation { register: SavedRegister::Core(7), before: 0xC7C7_C7C7, after: 0x1234_5678 };
        assert_eq!(v, expected, "{}", b.name());
        assert_eq!(
            CallError::CallingConvention(v).to_string(),
            "calling convention violated: r7 not preserved (0xc7c7c7c7 before, 0x12345678 after)"
        );
        assert_conforming_call_passes(b.as_mut());
    }
}

#[test]
fn clobbered_d9_is_named() {
    for (_, mut b) in backends() {
        let call = Call::new("pqh_selftest_clobbers_d9", vec![Arg::U32(0x89ab_cdef), Arg::U32(0x0123_4567)]);
        let v = violation_of(b.call(&call), b.name());
        let expected = ConventionViolation {
            register: SavedRegister::Double(9),
            before: 0xD9D9_D9D9_D9D9_D9D9,
            after: 0x0123_4567_89ab_cdef,
        };
        assert_eq!(v, expected, "{}", b.name());
        assert_eq!(
            CallError::CallingConvention(v).to_string(),
            "calling convention violated: d9 not preserved (0xd9d9d9d9d9d9d9d9 before, 0x0123456789abcdef after)"
        );
        assert_conforming_call_passes(b.as_mut());
    }
}

#[test]
fn moved_sp_is_reported_with_the_distance() {
    for (_, mut b) in backends() {
        let v = violation_of(b.call(&Call::new("pqh_selftest_moves_sp", vec![])), b.name());
        assert_eq!(v.register, SavedRegister::Sp, "{}", b.name());
        assert_eq!(v.after, v.before - 8, "{}", b.name());
        let message = CallError::CallingConvention(v.clone()).to_string();
        let expected = format!(
            "calling convention violated: sp moved by -8 bytes ({:#010x} before, {:#010x} after)",
            v.before, v.after
        );
        assert_eq!(message, expected, "{}", b.name());
        assert_conforming_call_passes(b.as_mut());
    }
}

#[test]
fn a_violation_fails_only_its_own_call_in_a_batch() {
    for (_, mut b) in backends() {
        let bad = Call::new("pqh_selftest_clobbers_r7", vec![Arg::U32(7)]);
        let results = b.run_batch(&[conforming_call(1), bad, conforming_call(2), conforming_call(3)]);
        assert!(matches!(results[1], Err(CallError::CallingConvention(_))), "{}: {:?}", b.name(), results[1]);
        for (i, expected) in [(0, 8), (2, 9), (3, 10)] {
            assert_eq!(results[i].as_ref().map(|o| o.r0), Ok(expected), "{}: call {i}", b.name());
        }
    }
}

#[test]
fn writing_a_read_only_input_is_caught() {
    let input: Vec<u8> = (0..64).collect();
    // pqh_selftest_writes_input(out, in, len, at) copies in to out and flips in[at] when at < len.
    let args = |at: u32| vec![Arg::Out(64), Arg::In(input.clone()), Arg::U32(64), Arg::U32(at)];
    for (kind, mut b) in backends() {
        let writes = args(17);
        let out = b.call(&Call::new("pqh_selftest_writes_input", writes.clone())).unwrap();
        assert_eq!(out.buffers[0], input, "{kind}: the output itself is right");
        let failure = diff::check_inputs_unchanged(kind, &writes, &out).expect("a written input is caught");
        let expected = Failure::Mismatch {
            left: "input",
            right: kind.name(),
            difference: Difference {
                place: "argument 1 (read-only input), byte 17".into(),
                expected: "0x11".into(),
                actual: "0xee".into(),
            },
        };
        assert_eq!(failure, expected, "{kind}");
        let report = CaseFailure { case: 3, failure, args: writes, shrunk: None }.to_string();
        assert_eq!(
            report,
            format!(
                "case 3: input and {kind} differ at argument 1 (read-only input), byte 17: input 0x11, {kind} 0xee"
            )
        );

        let leaves = args(64);
        let out = b.call(&Call::new("pqh_selftest_writes_input", leaves.clone())).unwrap();
        assert_eq!(diff::check_inputs_unchanged(kind, &leaves, &out), None, "{kind}: an untouched input passes");
        assert_conforming_call_passes(b.as_mut());
    }
}

/// The contract of `pqh_selftest_breaks_bound(uint16_t coeffs[256], uint32_t n, uint32_t at)`: coefficients in [0, q).
fn breaks_bound_contract() -> Description {
    Description {
        id: "selftest.breaks_bound",
        symbol: "pqh_selftest_breaks_bound",
        images: Images::Both,
        summary: "n coefficients mod q, coefficient `at` set to q itself".into(),
        computes: "coeffs[i] = 17 i mod q".into(),
        requires: String::new(),
        edge_cases: 0,
        args: vec![
            ArgSpec::output("coeffs", Elem::U16, Len::Fixed(256), Bound::Canonical { q: 3329 }),
            ArgSpec::scalar("n", Elem::U32, Bound::Range { lo: 256, hi: 256 }),
            ArgSpec::scalar("at", Elem::U32, Bound::Any),
        ],
        returns: None,
        results: Vec::new(),
    }
}

#[test]
fn an_output_outside_its_declared_bound_is_caught() {
    let contract = breaks_bound_contract();
    let args = |at: u32| vec![Arg::Out(512), Arg::U32(256), Arg::U32(at)];
    for (kind, mut b) in backends() {
        let check = |b: &mut dyn Backend, args: &[Arg]| {
            let out = b.call(&Call::new(contract.symbol, args.to_vec())).unwrap();
            let outcome = Outcome { buffers: out.buffers, ret: None };
            registry::check_output_bounds(&contract, args, &outcome, kind.name())
        };
        let violation = check(b.as_mut(), &args(100)).expect_err("coefficient 100 is q");
        let expected = BoundViolation::Element {
            kernel: "selftest.breaks_bound",
            side: format!("{kind} output"),
            arg: "coeffs",
            index: 100,
            value: "3329".into(),
            bound: "canonical mod 3329: [0, 3328]".into(),
        };
        assert_eq!(violation, expected, "{kind}");
        assert_eq!(
            violation.to_string(),
            format!(
                "selftest.breaks_bound: {kind} output coeffs[100] = 3329, outside its bound canonical mod 3329: [0, 3328]"
            )
        );
        assert_eq!(check(b.as_mut(), &args(256)), Ok(()), "{kind}: every coefficient below q passes");
        assert_conforming_call_passes(b.as_mut());
    }
}
