//! The checks of one case that need no emulator: outcomes compared byte for byte, and a model against its
//! reference within the contract's bounds.

use pqhelium_guest::backend::{Arg, CallError};

use crate::description::{BoundViolation, check_input_bounds, check_output_bounds};
use crate::kernel::{Kernel, Outcome};

/// The first place where two outcomes differ.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Difference {
    /// `buffer 0, byte 17` or `return value`.
    pub place: String,
    pub expected: String,
    pub actual: String,
}

#[derive(Debug, Clone, PartialEq)]
pub enum Failure {
    /// `left` and `right` name the two sides, e.g. `reference` and `canon(model)`, or `model` and `qemu`.
    Mismatch {
        left: &'static str,
        right: &'static str,
        difference: Difference,
    },
    Fault(CallError),
    /// A case, a model or a call that breaks the kernel's contract: an input or output outside its declared bound.
    Bound(BoundViolation),
}

impl Failure {
    /// Failures of the same class: what shrinking must preserve.
    pub fn same_class(&self, other: &Failure) -> bool {
        match (self, other) {
            (Failure::Mismatch { left: a, right: b, .. }, Failure::Mismatch { left: c, right: d, .. }) => {
                (a, b) == (c, d)
            }
            (Failure::Fault(a), Failure::Fault(b)) => std::mem::discriminant(a) == std::mem::discriminant(b),
            (Failure::Bound(a), Failure::Bound(b)) => a.side() == b.side(),
            _ => false,
        }
    }
}

/// The first difference between two outcomes, if any.
pub fn compare(expected: &Outcome, actual: &Outcome) -> Option<Difference> {
    // Nearly every case: equal, found with one memcmp per buffer; the byte-wise searches below only locate a difference.
    if expected == actual {
        return None;
    }
    if expected.ret != actual.ret {
        let show = |r: Option<u64>| r.map_or("none".to_string(), |v| format!("{v:#x}"));
        return Some(Difference {
            place: "return value".into(),
            expected: show(expected.ret),
            actual: show(actual.ret),
        });
    }
    if expected.buffers.len() != actual.buffers.len() {
        return Some(Difference {
            place: "number of output buffers".into(),
            expected: expected.buffers.len().to_string(),
            actual: actual.buffers.len().to_string(),
        });
    }
    for (i, (e, a)) in expected.buffers.iter().zip(&actual.buffers).enumerate() {
        if e.len() != a.len() {
            return Some(Difference {
                place: format!("length of buffer {i}"),
                expected: e.len().to_string(),
                actual: a.len().to_string(),
            });
        }
        if let Some(at) = e.iter().zip(a).position(|(x, y)| x != y) {
            return Some(Difference {
                place: format!("buffer {i}, byte {at}"),
                expected: format!("{:#04x}", e[at]),
                actual: format!("{:#04x}", a[at]),
            });
        }
    }
    None
}

/// The host side of one case: its inputs within the contract's input bounds and relations (a case outside them is a
/// generator bug, a failure), then for three-way kernels reference == canon(model) and the model's outputs within
/// their output bounds. Returns what the object code must produce: the model's outcome, or for two-way kernels the
/// reference's (the reference runs once; there is no model to compare it with).
pub fn check_model(kernel: &Kernel, args: &[Arg]) -> (Outcome, Option<Failure>) {
    let evaluation = match check_input_bounds(kernel, args).and_then(|()| kernel.evaluate(args)) {
        Ok(evaluation) => evaluation,
        Err(violation) => return (Outcome { buffers: vec![], ret: None }, Some(Failure::Bound(violation))),
    };
    let Some(model) = evaluation.model else { return (evaluation.reference, None) };
    let failure = compare(&evaluation.reference, &kernel.canon(&model))
        .map(|difference| Failure::Mismatch { left: "reference", right: "canon(model)", difference })
        .or_else(|| check_output_bounds(kernel, args, &model, "model").err().map(Failure::Bound));
    (model, failure)
}
