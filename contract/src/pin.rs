//! Kernels with a contract parameter pinned (`--param logn=9`): the same contract, whose cases are only those that
//! pass the named scalar argument the given value.
//!
//! A pinned case `k` is drawn from the same `(seed, k)` random source as before: the kernel's own case `k` when it
//! has the value, else the kernel's random cases drawn one after the other from that source until one has it. The
//! cases therefore stay a function of (seed, case index) alone, and `repro --param` reproduces what `fuzz --param`
//! ran.

use pqhelium_guest::backend::Arg;
use pqhelium_guest::trace::Declassification;
use pqhelium_sim::coverage::Step;

use crate::case_rng::{CaseRng, case_rng};
use crate::description::{ArgSpec, Behaviour, Bound, Checked, Dir, Elem, Evaluation, Len};
use crate::kernel::{Kernel, Outcome};

/// One `NAME=VALUE`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Pin {
    pub name: String,
    pub value: i64,
}

impl std::str::FromStr for Pin {
    type Err = String;

    fn from_str(text: &str) -> Result<Self, String> {
        let (name, value) = text.split_once('=').ok_or_else(|| format!("`{text}`: NAME=VALUE, e.g. logn=9"))?;
        let value = value.trim().parse().map_err(|_| format!("`{text}`: the value `{value}` is not an integer"))?;
        let name = name.trim();
        if name.is_empty() {
            return Err(format!("`{text}`: NAME=VALUE, e.g. logn=9"));
        }
        Ok(Pin { name: name.into(), value })
    }
}

impl std::fmt::Display for Pin {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}={}", self.name, self.value)
    }
}

/// Cases searched for one with the pinned values before the pin is refused as never drawn.
pub const PIN_SEARCH: u64 = 4096;
/// Random cases drawn for one pinned case before the first case found by the search stands in (at the search's odds
/// of at least 1 in [`PIN_SEARCH`], all of them missing is below 1 in 10^10).
const REDRAWS: u64 = 100_000;

/// The integer value range of a scalar argument a case can be pinned by; `None` for other arguments.
fn pinnable(spec: &ArgSpec) -> Option<(i64, i64)> {
    if spec.len != Len::Scalar || spec.dir != Dir::In || matches!(spec.elem, Elem::F64 | Elem::I64 | Elem::U64) {
        return None;
    }
    match spec.input? {
        Bound::Range { lo, hi } => Some((lo, hi)),
        Bound::Canonical { q } => Some((0, q - 1)),
        Bound::Any if spec.elem == Elem::I32 => Some((i32::MIN.into(), i32::MAX.into())),
        Bound::Any => Some((0, u32::MAX.into())),
        Bound::Float { .. } => None,
    }
}

/// The value a scalar argument carries, read as its element type.
fn value(elem: Elem, arg: &Arg) -> Option<i64> {
    match (elem, arg) {
        (Elem::I32, Arg::U32(v)) => Some(i64::from(*v as i32)),
        (Elem::I16, Arg::U32(v)) => Some(i64::from(*v as i16)),
        (_, Arg::U32(v)) => Some(i64::from(*v)),
        _ => None,
    }
}

/// The parameters a kernel can be pinned by, as `name (lo..=hi)`.
pub fn pinnable_parameters(kernel: &Kernel) -> Vec<String> {
    kernel.args.iter().filter_map(|a| pinnable(a).map(|(lo, hi)| format!("{} ({lo}..={hi})", a.name))).collect()
}

struct Pinned {
    base: &'static Kernel,
    /// (argument index, element type, value).
    pins: Vec<(usize, Elem, i64)>,
    /// The first case with the pinned values the search found (seed 0).
    found: Vec<Arg>,
}

impl Pinned {
    fn admits(&self, args: &[Arg]) -> bool {
        self.pins.iter().all(|&(i, elem, v)| args.get(i).and_then(|a| value(elem, a)) == Some(v))
    }
}

impl Behaviour for Pinned {
    fn generate_args(&self, case: u64, rng: &mut CaseRng) -> Vec<Arg> {
        let args = self.base.generate(case, rng);
        if self.admits(&args) {
            return args;
        }
        // Random cases (past the edge cases) from the same source.
        let random = self.base.edge_cases.max(case);
        (0..REDRAWS)
            .map(|_| self.base.generate(random, rng))
            .find(|args| self.admits(args))
            .unwrap_or_else(|| self.found.clone())
    }

    fn evaluate(&self, args: &[Arg]) -> Result<Evaluation, String> {
        self.base.behaviour().evaluate(args)
    }

    fn expected(&self, args: &[Arg]) -> Outcome {
        self.base.expected(args)
    }

    fn canonical(&self, outcome: &Outcome) -> Outcome {
        self.base.canon(outcome)
    }

    fn canonicalises_object_code(&self) -> bool {
        self.base.canonicalises_object_code()
    }

    fn checked(&self) -> Checked {
        self.base.checked
    }

    fn declassified_events(&self) -> &'static [Declassification] {
        self.base.declassified()
    }

    fn steps(&self) -> Vec<Step> {
        self.base.coverage_steps().to_vec()
    }
}

impl Kernel {
    /// The kernel with the scalar arguments `pins` name fixed to their values (no pins: the kernel itself). Refused,
    /// with the names and ranges that are valid: a name that is not an integer scalar argument of the contract, a
    /// value outside the argument's input bound, and values none of the first [`PIN_SEARCH`] cases draws.
    pub fn pinned(&'static self, pins: &[Pin]) -> Result<&'static Kernel, String> {
        if pins.is_empty() {
            return Ok(self);
        }
        let valid = || match pinnable_parameters(self).as_slice() {
            [] => format!("`{}` has no integer parameter to pin", self.id),
            names => format!("its parameters: {}", names.join(", ")),
        };
        let mut resolved = Vec::new();
        for pin in pins {
            let found = self.args.iter().enumerate().find(|(_, a)| a.name == pin.name);
            let Some((index, spec, (lo, hi))) = found.and_then(|(i, a)| pinnable(a).map(|r| (i, a, r))) else {
                return Err(format!("`{}` has no parameter `{}`; {}", self.id, pin.name, valid()));
            };
            if !(lo..=hi).contains(&pin.value) {
                return Err(format!("{pin} is outside {lo}..={hi} for `{}`; {}", self.id, valid()));
            }
            if resolved.iter().any(|&(i, _, _)| i == index) {
                return Err(format!("{} is pinned twice", pin.name));
            }
            resolved.push((index, spec.elem, pin.value));
        }
        let mut pinned = Pinned { base: self, pins: resolved, found: Vec::new() };
        let Some(found) =
            (0..PIN_SEARCH).map(|case| self.generate(case, &mut case_rng(0, case))).find(|a| pinned.admits(a))
        else {
            let list: Vec<String> = pins.iter().map(Pin::to_string).collect();
            return Err(format!(
                "no case of `{}` among the first {PIN_SEARCH} has {}; {}",
                self.id,
                list.join(", "),
                valid()
            ));
        };
        pinned.found = found;
        Ok(Box::leak(Box::new(Kernel::from_behaviour((**self).clone(), Box::new(pinned)))))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pins_parse() {
        assert_eq!("logn=9".parse::<Pin>(), Ok(Pin { name: "logn".into(), value: 9 }));
        assert_eq!(" logn = -3".parse::<Pin>(), Ok(Pin { name: "logn".into(), value: -3 }));
        for bad in ["logn", "=9", "logn=nine", "logn=9.5", "logn="] {
            assert!(bad.parse::<Pin>().is_err(), "{bad}");
        }
    }
}
