//! The engine enforces every contract's declared bounds on every case: a generated input outside its input bound is
//! an error (a generator bug, not a pass), and a model or object code whose output leaves its output bound fails,
//! naming the kernel, the side, the argument, the element, its value and the bound.

use pqhelium_engine::diff::{self, Campaign, Failure};
use pqhelium_families::{self as registry, BoundViolation, case_rng};
use pqhelium_guest::backend::{Arg, BackendKind};

fn lanes(values: impl IntoIterator<Item = i16>) -> Vec<u8> {
    values.into_iter().flat_map(|x| x.to_le_bytes()).collect()
}

#[test]
fn an_input_outside_its_bound_is_an_error() {
    let kernel = registry::find("mlkem.ntt.fwd").unwrap();
    // The forward NTT takes |x| <= 8192.
    let args = vec![Arg::InOut(lanes((0..256).map(|i| if i == 5 { 8193 } else { 0 })))];
    let (_, failure) = diff::check_model(kernel, &args);
    let Some(Failure::Bound(violation)) = failure else { panic!("{failure:?}") };
    assert_eq!(violation.to_string(), "mlkem.ntt.fwd: generated input p[5] = 8193, outside its bound |x| <= 8192");
    // A relation between inputs (the soft-float's domain: no division by zero) is enforced the same way.
    let div = registry::find("fndsa.emu.f64.div").unwrap();
    let mut args = div.generate(100, &mut case_rng(1, 100));
    let Arg::In(b) = &mut args[2] else { unreachable!() };
    b[..8].copy_from_slice(&0u64.to_le_bytes());
    let (_, failure) = diff::check_model(div, &args);
    let Some(Failure::Bound(BoundViolation::Shape { side, problem, .. })) = failure else { panic!("{failure:?}") };
    assert_eq!(side, "generated input");
    assert!(problem.starts_with("operands 0 "), "{problem}");
}

/// A model that agrees with the reference modulo q but leaves the kernel's proved output bound fails as a bound
/// violation of the model's output.
#[test]
fn a_model_output_outside_its_bound_fails() {
    let wide = registry::variant("mlkem.ntt.fwd", |k| {
        k.model = Some(|args| {
            let mut o = registry::find("mlkem.ntt.fwd").unwrap().expected(args);
            // Coefficient 3 moved to its representative in [23589, 23589 + q): congruent, above the bound.
            let x = i32::from(i16::from_le_bytes([o.buffers[0][6], o.buffers[0][7]]));
            let y = 23589 + (x - 23589).rem_euclid(3329);
            o.buffers[0][6..8].copy_from_slice(&(y as i16).to_le_bytes());
            o
        })
    });
    let result = diff::run(&Campaign { shrink_budget: 0, ..Campaign::new(wide, BackendKind::Model, 1, 20, 1) });
    let first = result.failures.first().expect("the model outside its bound went unnoticed");
    let Failure::Bound(BoundViolation::Element { kernel, side, arg, index, bound, .. }) = &first.failure else {
        panic!("{:?}", first.failure)
    };
    assert_eq!((*kernel, side.as_str(), *arg, *index), ("mlkem.ntt.fwd", "model output", "p", 3));
    assert_eq!(bound, "|x| <= 23588");
}

/// Object code that leaves its output bound fails on every emulator, before its outputs are compared: the contract
/// of `mlkem.order.from_mve` (canonical outputs) pointed at the gather `mlkem_to_mve`, which copies signed values.
#[test]
fn object_code_outside_its_bound_fails() {
    let wrong = registry::variant("mlkem.order.from_mve", |k| k.symbol = Some("mlkem_to_mve"));
    let result = diff::run(&Campaign { shrink_budget: 0, ..Campaign::new(wrong, BackendKind::Qemu, 1, 20, 1) });
    assert_eq!(result.setup_error, None);
    let first = result.failures.first().expect("outputs outside the bound went unnoticed");
    let Failure::Bound(violation @ BoundViolation::Element { side, arg, bound, .. }) = &first.failure else {
        panic!("{:?}", first.failure)
    };
    assert_eq!((side.as_str(), *arg, bound.as_str()), ("qemu output", "out", "canonical mod 3329: [0, 3328]"));
    assert!(violation.to_string().starts_with("mlkem.order.from_mve: qemu output out["), "{violation}");
    let report = pqhelium_engine::report::failure_report(result.kernel, "qemu", 1, first);
    assert_eq!(report.kind, "bound");
}
