//! Contracts of our binary64 soft-float (`kernels/arm/fndsa_fpu/softfloat.c`, ids `fndsa.emu.f64.*`): IEEE 754
//! binary64 in integer arithmetic, the `.emu` baseline of the FN-DSA signing floating point.
//!
//! Each call applies one operation to `BATCH` operands (or operand pairs): `r[i] = op(a[i], b[i])`, every value a
//! little-endian 64-bit word (the bit pattern of a double, or an `int64_t` for the conversions). The reference is the
//! host's native IEEE f64 operation (roundTiesToEven) and IEEE 754 is the definition, so the kernels are checked two
//! ways: object code == host IEEE f64, bit for bit, with no separate model. Inputs stay in the documented domain (`softfloat.h`): operands zero or normal, exact results zero, at least
//! 2^-1022 in magnitude or overflowing; conversions to i64 from [-2^63, 2^63).
//!
//! Each operation is one [`Op`] row of [`OPS`], everything about it in one place: id and symbol, operands, the host
//! operation, the domain, its edge, corner and random operands, and the roundings whose bound coverage it reports
//! (step names `<id>/<step>`, [`crate::step_name`]).
//!
//! Cases `0..EDGE_CASES` hold the edge operands (signed zeros, 1, powers of two, the extremes of the exponent range,
//! ties at rounding boundaries, carries into the exponent, cancellation, values around integers, i64 extremes), the
//! rest of those cases and every later case random operands biased to the domain.
//!
//! Also here: the FN-DSA signing FFT and inverse FFT (`kernels/arm/fndsa_fpu/fft.c`, native FP64, ids `fndsa.fpu.fft`,
//! `fndsa.fpu.ifft`; `fft_emu.c`, the same on the soft-float, ids `*.emu`), checked two ways against
//! `pqhelium_core::fndsa::fpu::Reference` (its order of operations is the definition), logn in 1..=10 as an argument.

use std::collections::BTreeMap;
use std::sync::LazyLock;

use pqhelium_core::fndsa::fpu::{FpuKernels, Reference};
use pqhelium_sim::coverage::{self, Boundary, Step};
use pqhelium_sim::rounding::{
    self, Exact, QUOTIENT_CARRY_NOTE, QUOTIENT_TIE_NOTE, ROOT_CARRY_NOTE, ROOT_TIE_NOTE, corners,
};
use rand::Rng;

use super::fndsa_fpu::{self, Kind, LOGN, Roundings};
use super::{
    ArgSpec, Bound, CaseRng, Contract, Description, Elem, Images, Kernel, Len, Outcome, RunReference, Ways, buffer,
    interned, le_bytes, step_name, u32_arg,
};
use pqhelium_guest::backend::Arg;

/// Operands per call.
pub const BATCH: usize = 256;
const BYTES: usize = 8 * BATCH;
/// Cases reserved for the edge operands (room for `EDGE_CASES * BATCH` of them; the rest is random).
pub const EDGE_CASES: u64 = 64;

/// One operation of the soft-float: everything its kernel's contract needs, in one row.
pub struct Op {
    pub id: &'static str,
    pub symbol: &'static str,
    computes: &'static str,
    /// The operands' element type and bound (each operand; relations between them are `domain`'s).
    operand: (Elem, Bound),
    requires: &'static str,
    result: Elem,
    /// Two operands, `a` and `b`; else `a` alone.
    pub binary: bool,
    /// The host's IEEE binary64 result on (a, b), as a 64-bit word: the reference.
    eval: fn(u64, u64) -> u64,
    /// Whether operands (x, y) with the result r, as doubles, are inside the documented domain of the soft-float.
    domain: fn(f64, f64, f64) -> bool,
    /// The edge operands (`b` 0 for one operand), the domain keeping its own.
    edges: fn() -> Vec<(u64, u64)>,
    /// Operands on the corners of the IEEE rounding ([`corner_pairs`]), the domain keeping its own.
    corners: fn() -> Vec<(f64, f64)>,
    /// One random draw of operands, the domain keeping its own.
    random: fn(&mut CaseRng) -> (u64, u64),
    /// The bound-coverage step of a rounding to an integral value: each operand's distance to the boundary where
    /// the result changes (an integer for floor and trunc, a tie for round-to-nearest).
    to_integral: Option<(&'static str, Boundary)>,
    /// The IEEE rounding of the exact result, for the operations that round one.
    rounded: Option<Rounded>,
}

/// The IEEE rounding of an operation's exact result, reported as the steps `round.tie` and `round.carry` (carries
/// into the next binade), and where results reach them `round.underflow` (the least normal magnitude) and
/// `round.overflow`.
#[derive(Clone, Copy)]
struct Rounded {
    /// The exact operation whose rounding gives the result on (a, b).
    exact: fn(u64, u64) -> Exact,
    /// Whether the results reach the ends of the normal range (observed as steps of their own).
    range_ends: bool,
    /// Why no operands put the rounding exactly on a tie and on a carry (`None`: some do).
    unreachable: Option<(&'static str, &'static str)>,
    /// Why no result in the domain is 2^-1022 itself (`None`: some are).
    underflow_note: Option<&'static str>,
}

/// The requirement of the binary operations.
const ROUNDED_REQUIRES: &str = "exact result a[i] op b[i] zero, >= 2^-1022 in magnitude, or overflowing (no result \
                                rounded from below 2^-1022); no division by zero";
const ZERO_OR_NORMAL: (Elem, Bound) = (Elem::U64, Bound::ZERO_OR_NORMAL);
/// To int64_t: the bound's magnitudes below 2^64 cut to [-2^63, 2^63) by the domain.
const TO_I64: (Elem, Bound) = (Elem::U64, Bound::float(-1022, 64));
const TO_I64_REQUIRES: &str = "a[i] in [-2^63, 2^63)";
const PRODUCT_UNDERFLOW_NOTE: &str =
    "the domain excludes products and quotients equal to 2^-1022: 1 ulp above is the closest";

/// The operations, in registry order.
pub static OPS: &[Op] = &[
    Op {
        id: "fndsa.emu.f64.add",
        symbol: "fndsa_emu_f64_add",
        computes: "r[i] = a[i] + b[i], roundTiesToEven",
        operand: ZERO_OR_NORMAL,
        requires: ROUNDED_REQUIRES,
        result: Elem::U64,
        binary: true,
        eval: |a, b| bits(float(a) + float(b)),
        domain: rounded_domain,
        edges: || binary_edges(sum_ties(false)),
        corners: sum_corners,
        random: random_operands,
        to_integral: None,
        rounded: Some(Rounded {
            exact: |a, b| Exact::Sum(float(a), float(b)),
            range_ends: true,
            unreachable: None,
            underflow_note: None,
        }),
    },
    Op {
        id: "fndsa.emu.f64.sub",
        symbol: "fndsa_emu_f64_sub",
        computes: "r[i] = a[i] - b[i], roundTiesToEven",
        operand: ZERO_OR_NORMAL,
        requires: ROUNDED_REQUIRES,
        result: Elem::U64,
        binary: true,
        eval: |a, b| bits(float(a) - float(b)),
        domain: rounded_domain,
        edges: || binary_edges(sum_ties(true)),
        corners: || sum_corners().into_iter().map(|(a, b)| (a, -b)).collect(),
        random: random_operands,
        to_integral: None,
        rounded: Some(Rounded {
            exact: |a, b| Exact::Sum(float(a), -float(b)),
            range_ends: true,
            unreachable: None,
            underflow_note: None,
        }),
    },
    Op {
        id: "fndsa.emu.f64.mul",
        symbol: "fndsa_emu_f64_mul",
        computes: "r[i] = a[i] * b[i], roundTiesToEven",
        operand: ZERO_OR_NORMAL,
        requires: ROUNDED_REQUIRES,
        result: Elem::U64,
        binary: true,
        eval: |a, b| bits(float(a) * float(b)),
        domain: |x, y, r| rounded_domain(x, y, r) && !underflows(x, r),
        edges: || binary_edges(product_ties()),
        corners: product_corners,
        random: random_operands,
        to_integral: None,
        rounded: Some(Rounded {
            exact: |a, b| Exact::Product(float(a), float(b)),
            range_ends: true,
            unreachable: None,
            underflow_note: Some(PRODUCT_UNDERFLOW_NOTE),
        }),
    },
    Op {
        id: "fndsa.emu.f64.div",
        symbol: "fndsa_emu_f64_div",
        computes: "r[i] = a[i] / b[i], roundTiesToEven",
        operand: ZERO_OR_NORMAL,
        requires: ROUNDED_REQUIRES,
        result: Elem::U64,
        binary: true,
        eval: |a, b| bits(float(a) / float(b)),
        domain: |x, y, r| y != 0.0 && rounded_domain(x, y, r) && !underflows(x, r),
        edges: || binary_edges(quotient_ties()),
        corners: quotient_corners,
        random: random_operands,
        to_integral: None,
        rounded: Some(Rounded {
            exact: |a, b| Exact::Quotient(float(a), float(b)),
            range_ends: true,
            unreachable: Some((QUOTIENT_TIE_NOTE, QUOTIENT_CARRY_NOTE)),
            underflow_note: Some(PRODUCT_UNDERFLOW_NOTE),
        }),
    },
    Op {
        id: "fndsa.emu.f64.sqrt",
        symbol: "fndsa_emu_f64_sqrt",
        computes: "r[i] = sqrt(a[i]), roundTiesToEven",
        operand: (Elem::U64, Bound::Float { zero: true, min_exp: -1022, max_exp: 1024, nonnegative: true }),
        requires: "",
        result: Elem::U64,
        binary: false,
        eval: |a, _| bits(float(a).sqrt()),
        domain: |x, _, _| zero_or_normal(x) && x >= 0.0,
        edges: || unary(sqrt_edges()),
        corners: root_corners,
        random: |rng| {
            let a = random_double(rng) & !SIGN;
            if rng.r#gen() { (a, 0) } else { (bits(float(a).sqrt().powi(2)), 0) }
        },
        to_integral: None,
        rounded: Some(Rounded {
            exact: |a, _| Exact::Root(float(a)),
            range_ends: false,
            unreachable: Some((ROOT_TIE_NOTE, ROOT_CARRY_NOTE)),
            underflow_note: None,
        }),
    },
    Op {
        id: "fndsa.emu.f64.neg",
        symbol: "fndsa_emu_f64_neg",
        computes: "r[i] = -a[i] (sign flip)",
        operand: (Elem::U64, Bound::Any),
        requires: "",
        result: Elem::U64,
        binary: false,
        eval: |a, _| bits(-float(a)),
        domain: |_, _, _| true,
        edges: || {
            let mut v = binary_magnitudes();
            v.extend([0x7FF0_0000_0000_0000, 0x7FF8_0000_0000_0000, 0x7FF0_0000_0000_0001, 1, 0x000F_FFFF_FFFF_FFFF]);
            v.iter().flat_map(|&m| [(m, 0), (m ^ SIGN, 0)]).collect()
        },
        corners: Vec::new,
        random: |rng| (rng.r#gen(), 0),
        to_integral: None,
        rounded: None,
    },
    Op {
        id: "fndsa.emu.f64.floor",
        symbol: "fndsa_emu_f64_floor",
        computes: "r[i] = floor(a[i])",
        operand: ZERO_OR_NORMAL,
        requires: "",
        result: Elem::U64,
        binary: false,
        eval: |a, _| bits(float(a).floor()),
        domain: |x, _, _| zero_or_normal(x),
        edges: || unary(integral_edges()),
        corners: Vec::new,
        random: random_integral,
        to_integral: Some(("operand.floor", Boundary::Integer)),
        rounded: None,
    },
    Op {
        id: "fndsa.emu.f64.trunc",
        symbol: "fndsa_emu_f64_trunc",
        computes: "r[i] = trunc(a[i])",
        operand: ZERO_OR_NORMAL,
        requires: "",
        result: Elem::U64,
        binary: false,
        eval: |a, _| bits(float(a).trunc()),
        domain: |x, _, _| zero_or_normal(x),
        edges: || unary(integral_edges()),
        corners: Vec::new,
        random: random_integral,
        to_integral: Some(("operand.trunc", Boundary::Integer)),
        rounded: None,
    },
    Op {
        id: "fndsa.emu.f64.rint",
        symbol: "fndsa_emu_f64_rint",
        computes: "r[i] = a[i] rounded to the nearest integer, ties to even",
        operand: ZERO_OR_NORMAL,
        requires: "",
        result: Elem::U64,
        binary: false,
        eval: |a, _| bits(float(a).round_ties_even()),
        domain: |x, _, _| zero_or_normal(x),
        edges: || unary(integral_edges()),
        corners: Vec::new,
        random: random_integral,
        to_integral: Some(("operand.round", Boundary::Tie)),
        rounded: None,
    },
    Op {
        id: "fndsa.emu.f64.from_i64",
        symbol: "fndsa_emu_f64_from_i64",
        computes: "r[i] = a[i] as binary64, roundTiesToEven",
        operand: (Elem::I64, Bound::Any),
        requires: "",
        result: Elem::U64,
        binary: false,
        eval: |a, _| bits(a as i64 as f64),
        domain: |_, _, _| true,
        edges: || unary(integer_edges()),
        corners: Vec::new,
        random: |rng| (random_integer(rng), 0),
        to_integral: None,
        rounded: Some(Rounded {
            exact: |a, _| Exact::Integer(a as i64),
            range_ends: false,
            unreachable: None,
            underflow_note: None,
        }),
    },
    Op {
        id: "fndsa.emu.f64.to_i64_trunc",
        symbol: "fndsa_emu_f64_to_i64_trunc",
        computes: "r[i] = a[i] rounded toward zero",
        operand: TO_I64,
        requires: TO_I64_REQUIRES,
        result: Elem::I64,
        binary: false,
        eval: |a, _| float(a) as i64 as u64,
        domain: to_i64_domain,
        edges: || unary(integral_edges()),
        corners: Vec::new,
        random: random_integral,
        to_integral: Some(("operand.trunc", Boundary::Integer)),
        rounded: None,
    },
    Op {
        id: "fndsa.emu.f64.to_i64_round",
        symbol: "fndsa_emu_f64_to_i64_round",
        computes: "r[i] = a[i] rounded to nearest, ties to even",
        operand: TO_I64,
        requires: TO_I64_REQUIRES,
        result: Elem::I64,
        binary: false,
        eval: |a, _| float(a).round_ties_even() as i64 as u64,
        domain: to_i64_domain,
        edges: || unary(integral_edges()),
        corners: Vec::new,
        random: random_integral,
        to_integral: Some(("operand.round", Boundary::Tie)),
        rounded: None,
    },
    Op {
        id: "fndsa.emu.f64.to_i64_floor",
        symbol: "fndsa_emu_f64_to_i64_floor",
        computes: "r[i] = a[i] rounded toward minus infinity",
        operand: TO_I64,
        requires: TO_I64_REQUIRES,
        result: Elem::I64,
        binary: false,
        eval: |a, _| float(a).floor() as i64 as u64,
        domain: to_i64_domain,
        edges: || unary(integral_edges()),
        corners: Vec::new,
        random: random_integral,
        to_integral: Some(("operand.floor", Boundary::Integer)),
        rounded: None,
    },
];

/// The operation registered as `id`.
pub fn op(id: &str) -> &'static Op {
    OPS.iter().find(|op| op.id == id).unwrap_or_else(|| panic!("no soft-float operation {id}"))
}

const TWO63: f64 = 9223372036854775808.0;

fn zero_or_normal(v: f64) -> bool {
    v == 0.0 || v.is_normal()
}

/// The domain of the operations that round an exact result: operands zero or normal, the result zero, normal or
/// infinite (add and sub results below 2^-1022 are exact subnormals, outside it too).
fn rounded_domain(x: f64, y: f64, r: f64) -> bool {
    zero_or_normal(x) && zero_or_normal(y) && (r.is_infinite() || zero_or_normal(r))
}

/// A product or quotient that underflows to zero, or rounds up to 2^-1022 from below (there the IEEE rounding
/// happens on the subnormal grid): outside the domain.
fn underflows(x: f64, r: f64) -> bool {
    x != 0.0 && (r == 0.0 || r.abs() == f64::MIN_POSITIVE)
}

fn to_i64_domain(x: f64, _: f64, _: f64) -> bool {
    zero_or_normal(x) && (-TWO63..TWO63).contains(&x)
}

impl Op {
    /// The host's IEEE binary64 result, as a 64-bit word.
    fn eval(&self, a: u64, b: u64) -> u64 {
        (self.eval)(a, b)
    }

    /// Whether `(a, b)` is inside the documented domain of the soft-float.
    fn in_domain(&self, a: u64, b: u64) -> bool {
        (self.domain)(float(a), float(b), float(self.eval(a, b)))
    }
}

/// The representation of a value: a binary64 as its bit pattern, or a two's complement int64_t.
fn repr(elem: Elem) -> &'static str {
    if elem == Elem::I64 { "int64" } else { "ieee754" }
}

/// The FN-DSA signing FFT and inverse FFT, native: (id, symbol, inverse). Each is also registered on the soft-float,
/// as `<id>.emu` and `<symbol>_emu`.
const TRANSFORMS: [(&str, &str, bool); 2] =
    [("fndsa.fpu.fft", "fndsa_fpu_fft", false), ("fndsa.fpu.ifft", "fndsa_fpu_ifft", true)];

pub(super) fn kernels() -> Vec<Kernel> {
    let mut kernels: Vec<Kernel> = OPS.iter().map(|op| Kernel::new(SoftFloat::new(op))).collect();
    for (id, symbol, inverse) in TRANSFORMS {
        kernels.extend([false, true].map(|emu| Kernel::new(Fft::new(id, symbol, inverse, emu))));
    }
    kernels
}

/// One soft-float operation on `BATCH` operands (pairs), with its coverage steps' names made once.
struct SoftFloat {
    op: &'static Op,
    to_integral: Option<(&'static str, Boundary)>,
    rounding: Option<(rounding::Steps, Rounded)>,
}

impl SoftFloat {
    fn new(op: &'static Op) -> Self {
        let name = |step| step_name(op.id, step);
        let rounding = op.rounded.map(|r| {
            let ends = |step| r.range_ends.then(|| name(step));
            let steps = rounding::Steps {
                tie: name("round.tie"),
                carry: name("round.carry"),
                underflow: ends("round.underflow"),
                overflow: ends("round.overflow"),
            };
            (steps, r)
        });
        Self { op, to_integral: op.to_integral.map(|(step, boundary)| (name(step), boundary)), rounding }
    }
}

/// The operands of one call: `a`, and `b` for binary operations (empty otherwise), as 64-bit words.
pub struct Operands {
    pub a: Vec<u64>,
    pub b: Vec<u64>,
}

impl Operands {
    /// Operand pair `i` (`b` is 0 for unary operations).
    fn pair(&self, i: usize) -> (u64, u64) {
        (self.a[i], self.b.get(i).copied().unwrap_or(0))
    }
}

impl Contract for SoftFloat {
    type Input = Operands;

    fn describe(&self) -> Description {
        let op = self.op;
        let (elem, bound) = op.operand;
        let operand = |name| ArgSpec::input(name, elem, Len::Fixed(BATCH), bound).repr(repr(elem)).secret();
        let mut args =
            vec![ArgSpec::output("r", op.result, Len::Fixed(BATCH), Bound::Any).repr(repr(op.result)).secret()];
        args.push(operand("a"));
        if op.binary {
            args.push(operand("b"));
        }
        Description {
            id: op.id,
            symbol: op.symbol,
            images: Images::Both,
            summary: format!("binary64 soft-float (integer arithmetic): {}, 256 per call", op.computes),
            computes: format!("{}, IEEE 754 binary64 bit for bit", op.computes),
            requires: op.requires.into(),
            edge_cases: EDGE_CASES,
            args,
            returns: None,
            results: vec![],
        }
    }

    fn generate(&self, case: u64, rng: &mut CaseRng) -> Operands {
        generate(self.op, case, rng)
    }

    fn encode(&self, operands: &Operands) -> Vec<Arg> {
        let mut args = vec![Arg::Out(BYTES), Arg::In(bytes(&operands.a))];
        if self.op.binary {
            args.push(Arg::In(bytes(&operands.b)));
        }
        args
    }

    fn decode(&self, args: &[Arg]) -> Operands {
        Operands { a: words(&args[1]), b: args.get(2).map(words).unwrap_or_default() }
    }

    /// The host's IEEE f64 on every operand (pair).
    fn reference(&self, operands: &Operands, _: RunReference) -> Outcome {
        if let Some((step, boundary)) = self.to_integral {
            operands.a.iter().for_each(|&a| coverage::observe_fp(step, boundary, float(a)));
        }
        let r: Vec<u64> = (0..operands.a.len()).map(|i| operands.pair(i)).map(|(x, y)| self.op.eval(x, y)).collect();
        if let Some((steps, rounded)) = self.rounding.filter(|_| coverage::enabled()) {
            for (i, &r) in r.iter().enumerate() {
                let (a, b) = operands.pair(i);
                rounding::observe(&steps, (rounded.exact)(a, b), float(r));
            }
        }
        Outcome { buffers: vec![bytes(&r)], ret: None }
    }

    fn ways(&self) -> Ways<Self> {
        Ways::Two
    }

    /// The rounding to an integral value, then the IEEE rounding's steps with what valid operands cannot reach.
    fn coverage_steps(&self) -> Vec<Step> {
        let mut steps: Vec<Step> =
            self.to_integral.map(|(name, boundary)| Step::fp(name, boundary)).into_iter().collect();
        let Some((names, rounded)) = self.rounding else { return steps };
        let (tie, carry) = (Step::fp(names.tie, Boundary::Tie), Step::fp(names.carry, Boundary::Binade));
        steps.extend(match rounded.unreachable {
            Some((tie_note, carry_note)) => [tie.note(tie_note), carry.note(carry_note)],
            None => [tie, carry],
        });
        if let Some(name) = names.underflow {
            let step = Step::fp(name, Boundary::Binade);
            steps.push(match rounded.underflow_note {
                Some(note) => step.note(note),
                None => step,
            });
        }
        steps.extend(names.overflow.map(|name| Step::fp(name, Boundary::Binade)));
        steps
    }

    fn precondition(&self, operands: &Operands) -> Result<(), String> {
        match (0..operands.a.len()).map(|i| (i, operands.pair(i))).find(|&(_, (x, y))| !self.op.in_domain(x, y)) {
            None => Ok(()),
            Some((i, (x, y))) => Err(format!("operands {i} ({x:#018x}, {y:#018x}) outside the domain")),
        }
    }
}

/// The (i)FFT's IEEE operations: sums and products.
const FFT_ROUNDINGS: &[Kind] = &[Kind::Add, Kind::Mul];

/// The FN-DSA signing (inverse) FFT, native FP64 or on the soft-float.
struct Fft {
    id: &'static str,
    symbol: &'static str,
    inverse: bool,
    emu: bool,
    /// Its roundings, named after the native id (both variants run the same reference).
    roundings: Roundings,
    steps: Vec<Step>,
}

impl Fft {
    fn new(id: &'static str, symbol: &'static str, inverse: bool, emu: bool) -> Self {
        let roundings = Roundings::new(id, FFT_ROUNDINGS);
        let steps = fndsa_fpu::ieee_steps(id, FFT_ROUNDINGS, &[]);
        let (id, symbol) =
            if emu { (interned(format!("{id}.emu")), interned(format!("{symbol}_emu"))) } else { (id, symbol) };
        Self { id, symbol, inverse, emu, roundings, steps }
    }
}

impl Contract for Fft {
    /// logn and the n values' bit patterns.
    type Input = (u32, Vec<u64>);

    fn describe(&self) -> Description {
        let (elem, how) = if self.emu { (Elem::U64, "binary64 on the soft-float") } else { (Elem::F64, "native FP64") };
        let n = Len::PowerOfTwo { param: "logn", halvings: 0 };
        let name = if self.inverse { "inverse FFT (with the 1/(n/2) scaling)" } else { "FFT" };
        Description {
            id: self.id,
            symbol: self.symbol,
            images: Images::Both,
            summary: format!("FN-DSA signing {name}, in place, n = 2^logn doubles, {how}"),
            computes: format!("f = fpu::Reference::{}(logn, f), every bit", if self.inverse { "ifft" } else { "fft" }),
            requires: String::new(),
            edge_cases: if self.inverse { FFT_EDGE_CASES } else { FFT_EDGE_CASES + 1 },
            args: vec![
                ArgSpec::in_out("f", elem, n, FFT_IN, Bound::Any).repr("ieee754").secret(),
                ArgSpec::scalar("logn", Elem::U32, LOGN).repr("log2 n"),
            ],
            returns: None,
            results: vec![],
        }
    }

    fn generate(&self, case: u64, rng: &mut CaseRng) -> (u32, Vec<u64>) {
        fft_generate(self.inverse, case, rng)
    }

    fn encode(&self, (logn, f): &(u32, Vec<u64>)) -> Vec<Arg> {
        vec![Arg::InOut(bytes(f)), Arg::U32(*logn)]
    }

    fn decode(&self, args: &[Arg]) -> (u32, Vec<u64>) {
        (u32_arg(&args[1]), words(&args[0]))
    }

    fn reference(&self, (logn, f): &(u32, Vec<u64>), _: RunReference) -> Outcome {
        let mut f: Vec<f64> = f.iter().map(|&x| f64::from_bits(x)).collect();
        fndsa_fpu::observed(Some(self.roundings), || {
            if self.inverse {
                Reference.ifft(*logn, &mut f);
            } else {
                Reference.fft(*logn, &mut f);
            }
        });
        Outcome { buffers: vec![bytes(&f.iter().map(|x| x.to_bits()).collect::<Vec<_>>())], ret: None }
    }

    fn ways(&self) -> Ways<Self> {
        Ways::Two
    }

    fn coverage_steps(&self) -> Vec<Step> {
        self.steps.clone()
    }
}

/// (i)FFT inputs: zero or normal, of moderate magnitude.
const FFT_IN: Bound = Bound::float(-100, 64);

/// The 64-bit words of a buffer argument.
pub fn words(arg: &Arg) -> Vec<u64> {
    buffer(arg).chunks_exact(8).map(|c| u64::from_le_bytes(c.try_into().unwrap())).collect()
}

fn bytes(words: &[u64]) -> Vec<u8> {
    le_bytes(words, u64::to_le_bytes)
}

/// The operands of one case: edge operands first, the IEEE rounding's corners in the last edge cases
/// ([`corner_range`]), then random ones.
fn generate(op: &Op, case: u64, rng: &mut CaseRng) -> Operands {
    let mut pairs = Vec::with_capacity(BATCH);
    let slice = |pairs: &mut Vec<(u64, u64)>, from: &[(u64, u64)], case: u64| {
        let start = (case as usize * BATCH).min(from.len());
        let end = (start + BATCH).min(from.len());
        pairs.extend_from_slice(&from[start..end]);
    };
    let corners = corner_range(op);
    if corners.contains(&case) {
        slice(&mut pairs, corners_of(op), case - corners.start);
    } else if case < EDGE_CASES {
        slice(&mut pairs, &edge_pairs(op), case);
    }
    while pairs.len() < BATCH {
        pairs.push(random_pair(op, rng));
    }
    let a = pairs.iter().map(|p| p.0).collect();
    let b = if op.binary { pairs.iter().map(|p| p.1).collect() } else { vec![] };
    Operands { a, b }
}

/// (i)FFT edge cases: for each logn 1..=10, zeros of both signs, an impulse, all ones.
const FFT_EDGE_CASES: u64 = 30;

/// The forward FFT's last edge case (degree 4): its first layer multiplies f[1] and f[3] by the twiddle sqrt(1/2),
/// products that round up onto a power of two (`fndsa_fpu::twiddle_carry`).
fn fft_corners() -> (u32, Vec<u64>) {
    let t = fndsa_fpu::twiddle_carry();
    let f = [1.0, t, 0.5, -t];
    (2, f.iter().map(|x| x.to_bits()).collect())
}

/// Inputs as signing produces them: small integers (set_small), doubles of moderate magnitude, and for the inverse
/// the FFT of small integers; logn 9 and 10 half of the time.
fn fft_generate(inverse: bool, case: u64, rng: &mut CaseRng) -> (u32, Vec<u64>) {
    if case == FFT_EDGE_CASES && !inverse {
        return fft_corners();
    }
    let logn = if case < FFT_EDGE_CASES {
        1 + (case % 10) as u32
    } else if rng.r#gen() {
        rng.gen_range(9..=10)
    } else {
        rng.gen_range(1..=8)
    };
    let n = 1usize << logn;
    let f: Vec<f64> = if case < FFT_EDGE_CASES {
        match case / 10 {
            0 => (0..n).map(|i| if i % 3 == 0 { -0.0 } else { 0.0 }).collect(),
            1 => (0..n).map(|i| if i == 0 || i == n / 2 { 1.0 } else { 0.0 }).collect(),
            _ => (0..n).map(|i| if i % 2 == 0 { 1.0 } else { -1.0 }).collect(),
        }
    } else {
        match rng.gen_range(0..3u32) {
            0 => (0..n).map(|_| f64::from(rng.gen_range(-2048..=2048i32))).collect(),
            1 => (0..n)
                .map(|_| {
                    let m = rng.r#gen::<u64>() & 0x000F_FFFF_FFFF_FFFF;
                    let s = if rng.r#gen() { SIGN } else { 0 };
                    f64::from_bits(s | pow2(rng.gen_range(-40..=40)) | m)
                })
                .collect(),
            _ => {
                let mut f: Vec<f64> = (0..n).map(|_| f64::from(rng.gen_range(-127..=127i32))).collect();
                if inverse {
                    Reference.fft(logn, &mut f);
                }
                f
            }
        }
    };
    (logn, f.iter().map(|x| x.to_bits()).collect())
}

fn bits(x: f64) -> u64 {
    x.to_bits()
}

fn float(w: u64) -> f64 {
    f64::from_bits(w)
}

/// 2^k as a double (normal range).
fn p2(k: i32) -> f64 {
    f64::from_bits(pow2(k))
}

/// 2^k as a bit pattern (normal range).
fn pow2(k: i32) -> u64 {
    ((k + 1023) as u64) << 52
}

const SIGN: u64 = 1 << 63;
const ULP1: u64 = 0x3FF0_0000_0000_0001; // 1 + 2^-52
const MAX: u64 = 0x7FEF_FFFF_FFFF_FFFF;
const MIN_NORMAL: u64 = 0x0010_0000_0000_0000;

/// Magnitudes every binary operation sees in all combinations (with both signs).
fn binary_magnitudes() -> Vec<u64> {
    let mut m = vec![
        0,
        bits(1.0),
        bits(2.0),
        bits(0.5),
        bits(1.5),
        bits(3.0),
        bits(1.0 / 3.0),
        bits(std::f64::consts::PI),
        ULP1,
        0x3FF0_0000_0000_0002,
        0x3FF8_0000_0000_0001,
        0x3FFF_FFFF_FFFF_FFFF, // 2 - 2^-52
        0x3FEF_FFFF_FFFF_FFFF, // 1 - 2^-53
        0x3FFF_FFFF_FFFF_FFFE,
        pow2(-53),
        pow2(-54),
        bits(3.0 * 2f64.powi(-54)),
        bits(3.0 * 2f64.powi(-53)),
        pow2(53),
        bits(9007199254740991.0), // 2^53 - 1
        bits(9007199254740994.0), // 2^53 + 2
        pow2(-476),
        pow2(79),
        0x44EF_FFFF_FFFF_FFFF, // just below 2^80
        MIN_NORMAL,
        MIN_NORMAL + 1,
        0x001F_FFFF_FFFF_FFFF,
        pow2(-1021),
        pow2(-511),
        pow2(511),
        pow2(512),
        pow2(1023),
        pow2(1023) + 1,
        MAX,
        pow2(970),
        pow2(969),
    ];
    m.sort_unstable();
    m.dedup();
    m
}

/// Pairs whose sum (a - b for `sub`) lands on a rounding boundary (a tie, or just beside one) or carries into the
/// exponent.
fn sum_ties(sub: bool) -> Vec<(u64, u64)> {
    let one = bits(1.0);
    let neg = |x: u64| if sub { x } else { x ^ SIGN };
    let pos = |x: u64| if sub { x ^ SIGN } else { x };
    vec![
        (one, pos(pow2(-53))),                    // tie, even: 1
        (ULP1, pos(pow2(-53))),                   // tie, odd: up
        (one, pos(bits(3.0 * 2f64.powi(-53)))),   // 1 + 1.5 ulp: up to even
        (one, pos(pow2(-53) + 1)),                // just above the tie
        (one, pos(pow2(-53) - 1)),                // just below the tie
        (0x3FFF_FFFF_FFFF_FFFF, pos(pow2(-53))),  // tie into 2: carry into the exponent
        (0x3FFF_FFFF_FFFF_FFFF, pos(pow2(-52))),  // exactly 2
        (pow2(53), pos(one)),                     // 2^53 + 1: tie to 2^53
        (bits(9007199254740994.0), pos(one)),     // 2^53 + 3: tie to 2^53 + 4
        (MAX, pos(pow2(970))),                    // tie above MAX: infinity
        (MAX, pos(pow2(969))),                    // below the tie: MAX
        (MAX, pos(MAX)),                          // overflow
        (one, neg(pow2(-54))),                    // 1 - 2^-54: tie back to 1
        (one, neg(bits(3.0 * 2f64.powi(-54)))),   // 1 - 1.5 * 2^-53: tie to even below 1
        (one, neg(ULP1)),                         // cancellation to 2^-52
        (ULP1, neg(0x3FF0_0000_0000_0002)),       // cancellation
        (pow2(-1021), neg(pow2(-1022))),          // down to the least normal
        (0x001F_FFFF_FFFF_FFFF, neg(MIN_NORMAL)), // exact subnormal: filtered out
        (pow2(79), neg(pow2(79) - 1)),            // massive cancellation
    ]
}

/// Pairs whose product lands on a rounding boundary or carries into the exponent.
fn product_ties() -> Vec<(u64, u64)> {
    vec![
        (bits(1.0 + 2f64.powi(-26)), bits(1.0 + 2f64.powi(-27))), // 2^-53 term: tie, even
        (bits(1.0 + 2f64.powi(-26) + 2f64.powi(-52)), bits(1.0 + 2f64.powi(-27))),
        (bits(1.0 + 2f64.powi(-26)), bits(1.0 + 2f64.powi(-26))), // 2^-52 term exact
        (ULP1, ULP1),
        (ULP1, 0x3FEF_FFFF_FFFF_FFFF),
        (0x3FFF_FFFF_FFFF_FFFF, 0x3FFF_FFFF_FFFF_FFFF), // carry into the exponent
        (bits(3.0), bits(1.0 / 3.0)),
        (pow2(511), pow2(512)),              // 2^1023
        (pow2(512), pow2(512)),              // overflow
        (MAX, bits(1.0 + 2f64.powi(-53))),   // not representable: stays MAX
        (MAX, ULP1),                         // overflow after rounding
        (pow2(-511), pow2(-511)),            // 2^-1022
        (pow2(-511), 0x3FF0_0000_0000_0001), // above the least normal
        (pow2(-476), pow2(-476)),
        (pow2(79), pow2(79)),
    ]
}

/// Pairs whose quotient lands near a rounding boundary or a carry.
fn quotient_ties() -> Vec<(u64, u64)> {
    let one = bits(1.0);
    vec![
        (one, bits(3.0)),
        (bits(2.0), bits(3.0)),
        (one, 0x3FEF_FFFF_FFFF_FFFF),
        (one, ULP1),
        (0x3FFF_FFFF_FFFF_FFFF, 0x3FEF_FFFF_FFFF_FFFF),
        (MAX, bits(0.5)),
        (MAX, 0x3FEF_FFFF_FFFF_FFFF),
        (MIN_NORMAL, bits(0.5)),
        (bits(2.0), MAX),
        (pow2(-476), pow2(79)),
        (pow2(79), pow2(-476)),
    ]
}

static CORNERS: LazyLock<BTreeMap<&'static str, Vec<(u64, u64)>>> =
    LazyLock::new(|| OPS.iter().map(|op| (op.id, corner_pairs(op))).collect());

fn corners_of(op: &Op) -> &'static [(u64, u64)] {
    &CORNERS[op.id]
}

/// The cases holding `op`'s rounding corners: the last edge cases, as many as they fill (empty for the operations
/// that round no exact result).
pub fn corner_range(op: &Op) -> std::ops::Range<u64> {
    let cases = corners_of(op).len().div_ceil(BATCH) as u64;
    EDGE_CASES - cases..EDGE_CASES
}

/// Operands whose exact result lies on a corner of the rounding to binary64, in closed form
/// (`pqhelium_sim::rounding::corners`): ties with the kept bits even and odd (so ties to even goes both ways), one
/// unit either side of a tie, ties and roundings carrying into the next binade (and past the largest double), results
/// at or next to 2^-1022. Across the exponent range and with both signs; only pairs inside the domain.
fn corner_pairs(op: &Op) -> Vec<(u64, u64)> {
    let pairs = (op.corners)().into_iter().map(|(a, b)| (bits(a), bits(b)));
    pairs.filter(|&(a, b)| op.in_domain(a, b)).collect()
}

/// Sums on the corners (a - b for sub: b negated).
fn sum_corners() -> Vec<(f64, f64)> {
    const FRAC: u64 = (1 << 52) - 1;
    let mut v: Vec<(f64, f64)> = vec![];
    for e in [-968, -500, -60, -1, 0, 1, 52, 300, 1023] {
        // both parities of the last kept bit, and all ones (the tie rounds up into 2^(e+1))
        for frac in [0, 1, 2, 3, 0x8_0000_0000_0001, FRAC - 1, FRAC] {
            for off in [-1, 0, 1] {
                let (a, b) = corners::sum_tie(frac, e, off);
                v.extend([(a, b), (-a, -b)]);
            }
        }
        // 2^e - 2^(e-54): a tie below the edge, rounded back up onto it (and one unit either side)
        for off in [-1i64, 0, 1] {
            let b = f64::from_bits((pow2(e - 54) as i64 + off) as u64);
            v.extend([(p2(e), -b), (-p2(e), b)]);
        }
    }
    // the least normal result, and the next one
    v.extend([(p2(-1021), -p2(-1022)), (f64::from_bits(pow2(-1021) + 1), -p2(-1022))]);
    v.extend([(-p2(-1021), p2(-1022)), (-f64::from_bits(pow2(-1021) + 2), p2(-1022))]);
    v
}

/// Products on the corners.
fn product_corners() -> Vec<(f64, f64)> {
    let mut v: Vec<(f64, f64)> = vec![];
    let constants =
        [std::f64::consts::PI, std::f64::consts::FRAC_1_SQRT_2, 1.0 / 3.0, 0.1, 1.25, 1.5, 1.0 + p2(-27), 12289.0];
    let scales = [(0, 0), (-300, 100), (500, 400), (-511, -400), (600, 423)];
    for (i, &b) in constants.iter().enumerate() {
        for lsb in [0, 1] {
            for off in [-1, 0, 1] {
                for seed in 0..2 {
                    let Some(a) = corners::product_tie(b, seed, lsb, off) else { continue };
                    let (ea, eb) = scales[(i + seed as usize + (off + 1) as usize) % scales.len()];
                    let sign = if (i + lsb as usize).is_multiple_of(2) { 1.0 } else { -1.0 };
                    v.push((sign * a * p2(ea), b * p2(eb)));
                }
            }
        }
    }
    // 2 - 2^-53 = (2 - 2^-26)(1 + 2^-27) and 1 - 2^-54 = 3 fl(1/3): ties rounded up into the next binade;
    // (2 - 2^-52)(1 + 2^-52) = 2 - 2^-104 rounded up onto 2
    let carries = [(2.0 - p2(-26), 1.0 + p2(-27)), (3.0, 1.0 / 3.0), (2.0 - p2(-52), 1.0 + p2(-52))];
    for (a, b) in carries {
        for (ea, eb) in scales {
            v.extend([(a * p2(ea), b * p2(eb)), (-a * p2(eb), b * p2(ea))]);
        }
        // past the largest double: overflow by the rounding
        v.push((a * p2(1000), b * p2(23)));
    }
    // 2^-1022 (1 + 2^-52): the least result the domain allows
    v.extend([(p2(-511), p2(-511) * (1.0 + p2(-52))), (-p2(-600), p2(-422) * (1.0 + p2(-51)))]);
    v
}

/// Quotients on the corners, or as close as quotients come.
fn quotient_corners() -> Vec<(f64, f64)> {
    let mut v: Vec<(f64, f64)> = vec![];
    for seed in 0..64 {
        for s in [1, -1] {
            let Some((a, b)) = corners::quotient_near_tie(seed, s) else { continue };
            let (ea, eb) = [(0, 0), (400, -300), (-500, 300), (-200, -300)][seed as usize % 4];
            v.push((a * p2(ea), if s > 0 { b } else { -b } * p2(eb)));
        }
    }
    // 1 - 2^-53 and the top of other binades: the closest a quotient comes to a carry
    let below_one = 1.0 - p2(-53);
    v.extend([(below_one, 1.0), (-below_one * p2(300), p2(301)), (2.0 - p2(-52), 1.0)]);
    // 2^-1022 (1 + 2^-52): the least result the domain allows
    v.push((p2(-1021) * (1.0 + p2(-52)), 2.0));
    v
}

/// Square roots as close to the corners as roots come.
fn root_corners() -> Vec<(f64, f64)> {
    let mut v: Vec<(f64, f64)> = vec![];
    // s (s +- ulp s) for s = 2^k: the closest a root comes to a tie, and to a carry; their neighbours
    for k in [-511, -200, -3, 0, 1, 200, 511] {
        for a in [p2(2 * k) * (1.0 + p2(-52)), p2(2 * k) * (1.0 - p2(-53))] {
            v.extend([-1i64, 0, 1].map(|d| (f64::from_bits((bits(a) as i64 + d) as u64), 0.0)));
        }
    }
    v
}

/// Values around the integers and the ends of the int64 range, for the rounding functions and conversions.
fn integral_edges() -> Vec<u64> {
    let mut v = vec![
        0,
        bits(0.5),
        bits(0.5) - 1,
        bits(0.5) + 1,
        bits(0.25),
        bits(0.75),
        bits(1.5),
        bits(2.5),
        bits(3.5),
        bits(-0.0),
        pow2(-476),
        MIN_NORMAL,
        pow2(-1),
        0x3FEF_FFFF_FFFF_FFFF,
        bits(4503599627370495.5), // 2^52 - 0.5
        bits(4503599627370494.5), // 2^52 - 1.5
        bits(2251799813685247.5), // 2^51 - 0.5
        bits(2251799813685248.5), // 2^51 + 0.5
        0x43DF_FFFF_FFFF_FFFF,    // largest double below 2^63
        pow2(62),
        pow2(79),
        MAX,
        pow2(63),
    ];
    let integers = [
        1.0,
        2.0,
        3.0,
        4.0,
        5.0,
        7.0,
        8.0,
        100.0,
        12289.0,
        1048576.0,
        4503599627370495.0,
        4503599627370496.0,
        9007199254740992.0,
        2f64.powi(62),
    ];
    for n in integers {
        let b = bits(n);
        v.extend([b, b - 1, b + 1, bits(n + 0.5), bits(n - 0.5), bits(n + 0.25), bits(n - 0.75)]);
    }
    v.sort_unstable();
    v.dedup();
    let with_signs: Vec<u64> = v.iter().flat_map(|&x| [x, x ^ SIGN]).collect();
    with_signs
}

fn integer_edges() -> Vec<u64> {
    let mut v: Vec<i64> = vec![i64::MIN, i64::MIN + 1, i64::MAX, i64::MAX - 1, 0, 1, -1];
    for k in 0..63 {
        let p = 1i64 << k;
        v.extend([p, p - 1, p + 1, p + (p >> 1), p + (p >> 1) + 1]);
    }
    for k in 53..63 {
        // the bits below the 53-bit precision: exactly a half (tie), just under, just over; even and odd above
        let ulp = 1i64 << (k - 52);
        let base = 1i64 << k;
        for above in [base, base + ulp] {
            v.extend([above + ulp / 2, above + ulp / 2 - 1, above + ulp / 2 + 1, above + ulp - 1]);
        }
    }
    v.extend([i64::MAX - 511, i64::MAX - 512, i64::MAX - 513]);
    let mut all: Vec<u64> = v.iter().flat_map(|&x| [x as u64, x.wrapping_neg() as u64]).collect();
    all.sort_unstable();
    all.dedup();
    all
}

fn sqrt_edges() -> Vec<u64> {
    let mut v = vec![
        0,
        SIGN,
        bits(1.0),
        bits(2.0),
        bits(4.0),
        bits(0.5),
        bits(0.25),
        ULP1,
        0x3FEF_FFFF_FFFF_FFFF,
        0x3FFF_FFFF_FFFF_FFFF,
        MIN_NORMAL,
        MIN_NORMAL + 1,
        pow2(-1021),
        MAX,
        pow2(1023),
        pow2(-476),
        pow2(79),
        pow2(80),
    ];
    for n in [3.0f64, 5.0, 7.0, 12289.0, 94906265.0, 94906267.0, 134217727.0] {
        let sq = bits(n * n);
        v.extend([sq, sq - 1, sq + 1]);
    }
    v.extend(binary_magnitudes());
    v
}

/// The edge operands of an operation, every one inside the domain.
fn edge_pairs(op: &Op) -> Vec<(u64, u64)> {
    (op.edges)().into_iter().filter(|&(a, b)| op.in_domain(a, b)).collect()
}

/// The edge operands of a binary operation: its tie pairs with all four sign combinations, then every pair of the
/// signed magnitudes.
fn binary_edges(ties: Vec<(u64, u64)>) -> Vec<(u64, u64)> {
    let values: Vec<u64> = binary_magnitudes().iter().flat_map(|&m| [m, m ^ SIGN]).collect();
    let mut p: Vec<(u64, u64)> =
        ties.iter().flat_map(|&(a, b)| [(a, b), (a ^ SIGN, b ^ SIGN), (a ^ SIGN, b), (a, b ^ SIGN)]).collect();
    p.extend(values.iter().flat_map(|&a| values.iter().map(move |&b| (a, b))));
    p
}

/// The edge operands of a unary operation.
fn unary(values: Vec<u64>) -> Vec<(u64, u64)> {
    values.into_iter().map(|a| (a, 0)).collect()
}

/// A random double: random sign, 52 random mantissa bits (a quarter of the time with a random run of trailing
/// zeros, so that sums and products land on ties and exact results), an exponent from one of several ranges.
fn random_double(rng: &mut CaseRng) -> u64 {
    let class = rng.gen_range(0..64u32);
    if class == 0 {
        return if rng.r#gen() { SIGN } else { 0 };
    }
    let e: i32 = match class {
        1..=24 => rng.gen_range(-500..=500),
        25..=44 => rng.gen_range(-476..=80),
        45..=50 => rng.gen_range(-8..=8),
        51..=56 => rng.gen_range(-1022..=-990),
        _ => rng.gen_range(990..=1023),
    };
    let mut m: u64 = rng.r#gen::<u64>() & 0x000F_FFFF_FFFF_FFFF;
    if rng.gen_range(0..4u32) == 0 {
        let tz = rng.gen_range(0..=52u32);
        m = (m >> tz) << tz;
    }
    let s = if rng.r#gen() { SIGN } else { 0 };
    s | pow2(e) | m
}

/// The second operand near the first: close exponents (cancellation), a shared mantissa prefix, or an exponent gap
/// around the precision (rounding of the smaller operand).
fn related(a: u64, rng: &mut CaseRng) -> u64 {
    let e = ((a >> 52) & 0x7FF) as i32 - 1023;
    let s = if rng.r#gen() { SIGN } else { 0 };
    let m = a & 0x000F_FFFF_FFFF_FFFF;
    let (de, m2) = match rng.gen_range(0..4u32) {
        0 => (rng.gen_range(-2..=2), rng.r#gen::<u64>() & 0x000F_FFFF_FFFF_FFFF),
        1 => (rng.gen_range(-1..=1), m ^ (rng.r#gen::<u64>() >> rng.gen_range(12..64u32))),
        2 => (-rng.gen_range(50..=56), rng.r#gen::<u64>() & 0x000F_FFFF_FFFF_FFFF),
        _ => (-rng.gen_range(50..=56), (rng.r#gen::<u64>() & 0x000F_FFFF_FFFF_FFFF) >> rng.gen_range(0..53u32)),
    };
    let e2 = (e + de).clamp(-1022, 1023);
    s | pow2(e2) | m2
}

/// A double near an integer: k, k + 1/2, k +- 1 ulp, or k plus a random fraction, for a random k of random length.
fn near_integer(rng: &mut CaseRng) -> u64 {
    let k = (rng.r#gen::<u64>() >> rng.gen_range(1..64u32)) as f64;
    let x = match rng.gen_range(0..5u32) {
        0 => k,
        1 => k + 0.5,
        2 => f64::from_bits(bits(k) + 1),
        3 => f64::from_bits(bits(k).saturating_sub(1)),
        _ => k + rng.r#gen::<f64>(),
    };
    if rng.r#gen() { bits(-x) } else { bits(x) }
}

fn random_integer(rng: &mut CaseRng) -> u64 {
    let len = rng.gen_range(1..=64u32);
    let mut v = rng.r#gen::<u64>() >> (64 - len);
    if len > 54 && rng.r#gen() {
        // the bits below the precision: a tie, or one off it
        let cut = len - 53;
        let half = 1u64 << (cut - 1);
        let low = [half, half - 1, half + 1, 0][rng.gen_range(0..4usize)];
        v = ((v >> cut) << cut) | low;
    }
    if rng.r#gen() { v.wrapping_neg() } else { v }
}

/// A binary operation's operands: random doubles, a third of the time the second one near the first.
fn random_operands(rng: &mut CaseRng) -> (u64, u64) {
    let a = random_double(rng);
    let b = if rng.gen_range(0..3u32) == 0 { related(a, rng) } else { random_double(rng) };
    (a, b)
}

/// The operand of a rounding to an integral value or a conversion: mostly near an integer.
fn random_integral(rng: &mut CaseRng) -> (u64, u64) {
    (if rng.gen_range(0..4u32) == 0 { random_double(rng) } else { near_integer(rng) }, 0)
}

/// One random operand (pair) inside the domain.
fn random_pair(op: &Op, rng: &mut CaseRng) -> (u64, u64) {
    for _ in 0..1000 {
        let pair = (op.random)(rng);
        if op.in_domain(pair.0, pair.1) {
            return pair;
        }
    }
    unreachable!("no operand in the domain of {} after 1000 draws", op.id)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::case_rng;

    /// At most this many of the last edge cases hold the corners of the IEEE rounding ([`corner_pairs`]).
    const CORNER_CASES: u64 = 2;

    /// The forward FFT's edge cases put a sum on a tie and on a carry, and a product on a carry (its corner case);
    /// its products reach a tie only in random cases (none with the first layer's twiddle is one).
    #[test]
    fn the_fft_edge_cases_reach_its_roundings_corners() {
        let fft = Fft::new("fndsa.fpu.fft", "fndsa_fpu_fft", false, false);
        let ((), seen) = coverage::record(|| {
            for case in 0..fft.describe().edge_cases {
                let input = fft.generate(case, &mut case_rng(1, case));
                crate::Behaviour::evaluate(&fft, &fft.encode(&input)).unwrap();
            }
        });
        let steps = fft.coverage_steps();
        assert_eq!(steps.len(), 4);
        for step in steps.iter().filter(|s| s.name != "fndsa.fpu.fft/mul.tie") {
            assert_eq!(seen.get(step.name).map(|s| s.closest), Some(0), "{}", step.name);
        }
    }

    #[test]
    fn edge_operands_fit_their_cases_and_are_in_the_domain() {
        for op in OPS {
            let edges = edge_pairs(op);
            assert!(edges.len() > 40, "{}: {} edge operands", op.id, edges.len());
            assert!(edges.len() <= EDGE_CASES as usize * BATCH, "{}: {} edge operands", op.id, edges.len());
            assert_eq!(generate(op, 0, &mut case_rng(1, 0)).a[0], edges[0].0);
            let corners = corner_pairs(op);
            assert!(corners.len() <= CORNER_CASES as usize * BATCH, "{}: {} corners", op.id, corners.len());
            if !corners.is_empty() {
                assert!(edges.len() <= (EDGE_CASES - CORNER_CASES) as usize * BATCH, "{}: {}", op.id, edges.len());
                let first = corner_range(op).start;
                assert_eq!(generate(op, first, &mut case_rng(1, first)).a[0], corners[0].0);
            }
        }
    }

    /// The edge cases reach every IEEE rounding step: ties and carries exactly (0) where they exist, 1 where the
    /// operation never reaches one; and ties to even goes both ways at the constructed ties.
    #[test]
    fn the_edge_cases_reach_every_rounding_corner() {
        for op in OPS.iter().filter(|op| op.rounded.is_some()) {
            let kernel = SoftFloat::new(op);
            let ((), seen) = coverage::record(|| {
                for case in 0..EDGE_CASES {
                    let input = generate(op, case, &mut case_rng(1, case));
                    crate::Behaviour::evaluate(&kernel, &kernel.encode(&input)).unwrap();
                }
            });
            for step in kernel.coverage_steps() {
                let closest = seen.get(step.name).map_or(u64::MAX, |s| s.closest);
                let exact = step.note.is_none();
                assert!(closest <= u64::from(!exact), "{}: closest {closest}", step.name);
            }
        }
        for op in [op("fndsa.emu.f64.add"), op("fndsa.emu.f64.mul")] {
            let exact = op.rounded.expect("an IEEE rounding").exact;
            let ties: Vec<(u64, u64)> = corner_pairs(op)
                .into_iter()
                .filter(|&(a, b)| {
                    let r = f64::from_bits(op.eval(a, b));
                    rounding::distance(exact(a, b), r).is_some_and(|d| d.tie == 0)
                })
                .collect();
            // rounded up: the result's magnitude above the exact one (TwoSum / fma residual against the result)
            let up = |&(a, b): &(u64, u64)| {
                let (x, y) = (f64::from_bits(a), f64::from_bits(b));
                let r = f64::from_bits(op.eval(a, b));
                let residual = if op.id.ends_with(".add") { (x - r) + y } else { x.mul_add(y, -r) };
                (residual > 0.0) != (r > 0.0)
            };
            let rounded_up = ties.iter().filter(|p| up(p)).count();
            assert!(rounded_up > 5 && ties.len() - rounded_up > 5, "{}: {rounded_up} of {} up", op.id, ties.len());
        }
    }

    /// The C twiddle table (kernels/arm/fndsa_fpu/fndsa_fpu_gm.c, generated independently in decimal arithmetic)
    /// equals the Rust reference's table, entry by entry.
    #[test]
    fn c_twiddles_equal_the_reference_table() {
        let source = include_str!("../../kernels/arm/fndsa_fpu/fndsa_fpu_gm.c");
        let table: Vec<u64> = source.split("0x").skip(1).map(|t| u64::from_str_radix(&t[..16], 16).unwrap()).collect();
        let reference: Vec<u64> = pqhelium_core::fndsa::fpu::gm().iter().map(|x| x.to_bits()).collect();
        assert_eq!(table, reference);
    }

    #[test]
    fn random_operands_hit_ties_and_cancellation() {
        let (mut ties, mut cancel) = (0, 0);
        for case in EDGE_CASES..EDGE_CASES + 40 {
            let operands = generate(op("fndsa.emu.f64.add"), case, &mut case_rng(3, case));
            for (a, b) in operands.a.into_iter().zip(operands.b) {
                let (x, y) = (f64::from_bits(a), f64::from_bits(b));
                let (r, hi) = (x + y, x.abs().max(y.abs()));
                // a tie: the exact error of the rounded sum (TwoSum) is half an ulp of the result
                let bp = r - x;
                let err = ((x - (r - bp)) + (y - bp)).abs();
                if r != 0.0 && err != 0.0 && err == (f64::from_bits(r.abs().to_bits() + 1) - r.abs()) / 2.0 {
                    ties += 1;
                }
                if r != 0.0 && r.abs() < hi / 1024.0 {
                    cancel += 1;
                }
            }
        }
        assert!(ties > 50 && cancel > 50, "ties {ties}, cancellations {cancel}");
    }
}
