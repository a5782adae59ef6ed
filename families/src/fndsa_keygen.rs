//! Contracts of the FN-DSA key generation's 32.32 fixed-point kernels (`kernels/arm/fndsa_keygen/`), the
//! `FxpKernels` family of `pqhelium_core::fndsa::keygen::fxp`.
//!
//! The divisions: `fndsa.keygen.div` (64 operand pairs per call), `.div_selfadj`, `.invnorm` and `.inv_mul2e`, with
//! one VDIV.F64 and integer corrections per division (`div.c`), and their `.scalar` baselines with the reference's
//! bit-by-bit loop in C (`div_scalar.c`); portable C, in both images. Every kernel is checked three ways: the
//! reference is `fxp::div` and `fxp::Reference`; the model, for the FPU kernels and their baselines alike (they
//! must give the same bits), is `pqhelium_sim::fxp_div`, the FPU algorithm written independently of the bit loop;
//! outputs are compared as they are (no canonicalisation). Every 64-bit pattern is an operand.
//!
//! Cases: the division's edge classes (`fxp_div::edge_pairs`: zero denominators, |y| = 1 ulp, powers of two, the
//! largest operands, the overflow boundary, rounding boundaries, exact quotients and high-digit changes, each under
//! the four sign combinations) come first, then random operands: magnitudes spread over every scale, rounding
//! boundaries, and values as key generation produces them (FFT slots of small polynomials and their norms).

use std::sync::LazyLock;

use pqhelium_core::fndsa::keygen::fxp::{self, FxpKernels, Reference};
use pqhelium_sim::coverage::Step;
use pqhelium_sim::fxp_div::{self as model, edge_pairs, inverse_of_two32, spread_operand};
use rand::{Rng, RngCore};

use super::softfloat::words;
use super::{
    ArgSpec, Bound, CaseRng, Contract, Description, Elem, Images, Kernel, Len, Outcome, RunReference, Ways, le_bytes,
    u32_arg,
};
use pqhelium_guest::backend::Arg;

/// Operand pairs per call of `fndsa.keygen.div` (`FNDSA_KEYGEN_DIV_BATCH` in `fndsa_keygen.h`).
pub const DIV_BATCH: usize = 64;
/// The degrees the vector kernels take: n = 2^logn.
const LOGN: Bound = Bound::Range { lo: 1, hi: 10 };
/// Representation of every value: signed 32.32 fixed point in a u64.
const FXR: &str = "fxr-32.32";
/// FFT vectors: real parts in [0, n/2), imaginary parts in [n/2, n).
const FFT_ORDER: &str = "fxr-32.32, fft (re | im)";

/// Structured vector contents of the vector kernels' edge cases, each at logn 1..10 (see `edge_vector`).
const VECTOR_EDGE_KINDS: u64 = 6;

pub(super) fn kernels() -> Vec<Kernel> {
    use Build::*;
    use Op::*;
    let division = |id, symbol, op, build| Kernel::new(Division { id, symbol, op, build });
    vec![
        division("fndsa.keygen.div", "fndsa_keygen_div", Div, Fpu),
        division("fndsa.keygen.div_selfadj", "fndsa_keygen_div_selfadj", DivSelfadj, Fpu),
        division("fndsa.keygen.invnorm", "fndsa_keygen_invnorm", Invnorm, Fpu),
        division("fndsa.keygen.inv_mul2e", "fndsa_keygen_inv_mul2e", InvMul2e, Fpu),
        division("fndsa.keygen.div.scalar", "fndsa_keygen_div_scalar", Div, Scalar),
        division("fndsa.keygen.div_selfadj.scalar", "fndsa_keygen_div_selfadj_scalar", DivSelfadj, Scalar),
        division("fndsa.keygen.invnorm.scalar", "fndsa_keygen_invnorm_scalar", Invnorm, Scalar),
        division("fndsa.keygen.inv_mul2e.scalar", "fndsa_keygen_inv_mul2e_scalar", InvMul2e, Scalar),
    ]
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Op {
    /// q[i] = x[i] / y[i], 64 pairs.
    Div,
    DivSelfadj,
    Invnorm,
    InvMul2e,
}

/// One VDIV.F64 and integer corrections per division, or the bit-by-bit loop.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Build {
    Fpu,
    Scalar,
}

struct Division {
    id: &'static str,
    symbol: &'static str,
    op: Op,
    build: Build,
}

/// The inputs of one case. `Div`: a = x, b = y (logn and e unused). `DivSelfadj`: a (n), b (n/2). `Invnorm`: a, b
/// (n each), e. `InvMul2e`: a (n), e.
#[derive(Debug, Clone)]
pub struct Operands {
    logn: u32,
    e: u32,
    a: Vec<u64>,
    b: Vec<u64>,
}

impl Op {
    /// The exponent's range (`Invnorm`: 2^e is a 32.32 value; `InvMul2e`: a 64-bit shift).
    fn e_max(self) -> u32 {
        match self {
            Op::Invnorm => 31,
            Op::InvMul2e => 63,
            Op::Div | Op::DivSelfadj => 0,
        }
    }
}

impl Contract for Division {
    type Input = Operands;

    fn describe(&self) -> Description {
        let n = Len::PowerOfTwo { param: "logn", halvings: 0 };
        let half = Len::PowerOfTwo { param: "logn", halvings: 1 };
        let value = |name, len| ArgSpec::input(name, Elem::U64, len, Bound::Any).repr(FFT_ORDER).secret();
        let logn = ArgSpec::scalar("logn", Elem::U32, LOGN).repr("log2 n");
        let e =
            ArgSpec::scalar("e", Elem::U32, Bound::Range { lo: 0, hi: i64::from(self.op.e_max()) }).repr("exponent");
        let (what, computes, args) = match self.op {
            Op::Div => (
                "x / y in 32.32, 64 pairs per call".to_string(),
                "q[i] = fxp::div(x[i], y[i]): the bit-by-bit division's bits for every pair, overflow and y = 0 included",
                vec![
                    ArgSpec::output("q", Elem::U64, Len::Fixed(DIV_BATCH), Bound::Any).repr(FXR).secret(),
                    ArgSpec::input("x", Elem::U64, Len::Fixed(DIV_BATCH), Bound::Any).repr(FXR).secret(),
                    ArgSpec::input("y", Elem::U64, Len::Fixed(DIV_BATCH), Bound::Any).repr(FXR).secret(),
                ],
            ),
            Op::DivSelfadj => (
                "a / b in FFT form, b self-adjoint (n/2 real parts)".to_string(),
                "a[i] = div(a[i], b[i]), a[i + n/2] = div(a[i + n/2], b[i]) for i < n/2 (fxp::Reference::div_selfadj)",
                vec![
                    ArgSpec::in_out("a", Elem::U64, n, Bound::Any, Bound::Any).repr(FFT_ORDER).secret(),
                    value("b", half).repr(FXR),
                    logn,
                ],
            ),
            Op::Invnorm => (
                "2^e / (|a|^2 + |b|^2) slot by slot".to_string(),
                "d[i] = div(2^e, sqr(a[i]) + sqr(a[i + n/2]) + sqr(b[i]) + sqr(b[i + n/2])), sums mod 2^64 \
                 (fxp::Reference::invnorm)",
                vec![
                    ArgSpec::output("d", Elem::U64, half, Bound::Any).repr(FXR).secret(),
                    value("a", n),
                    value("b", n),
                    logn,
                    e,
                ],
            ),
            Op::InvMul2e => (
                "2^e / a slot by slot in FFT form".to_string(),
                "a_i = div(re << e, |a_i|^2), div(-im << e, |a_i|^2) with |a_i|^2 = sqr(re) + sqr(im) \
                 (fxp::Reference::inv_mul2e)",
                vec![ArgSpec::in_out("a", Elem::U64, n, Bound::Any, Bound::Any).repr(FFT_ORDER).secret(), logn, e],
            ),
        };
        let build = match self.build {
            Build::Fpu => "one VDIV.F64 and two integer corrections per division",
            Build::Scalar => "portable C baseline, the bit-by-bit division",
        };
        Description {
            id: self.id,
            symbol: self.symbol,
            images: Images::Both,
            summary: format!("FN-DSA keygen fixed point: {what}, {build}"),
            computes: computes.into(),
            requires: String::new(),
            edge_cases: self.edge_cases(),
            args,
            returns: None,
            results: vec![],
        }
    }

    fn generate(&self, case: u64, rng: &mut CaseRng) -> Operands {
        if self.op == Op::Div {
            return div_operands(case, rng);
        }
        if case < self.edge_cases() {
            return self.edge_vectors(case);
        }
        let logn = rng.gen_range(1..=10);
        let e = rng.gen_range(0..=self.op.e_max());
        let n = 1usize << logn;
        let (a, b) =
            if rng.gen_ratio(1, 3) { realistic_vectors(logn, rng) } else { (0..n).map(|_| random_pair(rng)).unzip() };
        self.shaped(logn, e, a, b)
    }

    fn encode(&self, o: &Operands) -> Vec<Arg> {
        let (logn, e) = (Arg::U32(o.logn), Arg::U32(o.e));
        match self.op {
            Op::Div => vec![Arg::Out(8 * DIV_BATCH), Arg::In(bytes(&o.a)), Arg::In(bytes(&o.b))],
            Op::DivSelfadj => vec![Arg::InOut(bytes(&o.a)), Arg::In(bytes(&o.b)), logn],
            Op::Invnorm => vec![Arg::Out(4 * o.a.len()), Arg::In(bytes(&o.a)), Arg::In(bytes(&o.b)), logn, e],
            Op::InvMul2e => vec![Arg::InOut(bytes(&o.a)), logn, e],
        }
    }

    fn decode(&self, args: &[Arg]) -> Operands {
        match self.op {
            Op::Div => Operands { logn: 0, e: 0, a: words(&args[1]), b: words(&args[2]) },
            Op::DivSelfadj => Operands { logn: u32_arg(&args[2]), e: 0, a: words(&args[0]), b: words(&args[1]) },
            Op::Invnorm => {
                Operands { logn: u32_arg(&args[3]), e: u32_arg(&args[4]), a: words(&args[1]), b: words(&args[2]) }
            }
            Op::InvMul2e => Operands { logn: u32_arg(&args[1]), e: u32_arg(&args[2]), a: words(&args[0]), b: vec![] },
        }
    }

    fn reference(&self, o: &Operands, _: RunReference) -> Outcome {
        let mut a = o.a.clone();
        match self.op {
            Op::Div => return outcome(&o.a.iter().zip(&o.b).map(|(&x, &y)| fxp::div(x, y)).collect::<Vec<_>>()),
            Op::DivSelfadj => Reference.div_selfadj(o.logn, &mut a, &o.b),
            Op::Invnorm => {
                let mut d = vec![0; o.a.len() / 2];
                Reference.invnorm(o.logn, &mut d, &o.a, &o.b, o.e);
                return outcome(&d);
            }
            Op::InvMul2e => Reference.inv_mul2e(o.logn, &mut a, o.e),
        }
        outcome(&a)
    }

    fn ways(&self) -> Ways<Self> {
        Ways::Three { model: Self::model, canon: |_, o| o.clone() }
    }

    fn coverage_steps(&self) -> Vec<Step> {
        model::steps()
    }
}

impl Division {
    /// The division's edge pairs, DIV_BATCH per case; for the vector kernels, the structured vectors at every logn
    /// and the edge pairs again at logn 10 (`edge_vectors`).
    fn edge_cases(&self) -> u64 {
        let pair_cases = |per_case: usize| EDGE_PAIRS.len().div_ceil(per_case) as u64;
        match self.op {
            Op::Div => pair_cases(DIV_BATCH),
            // div_selfadj and inv_mul2e take a pair per slot of a logn-10 vector, invnorm its denominators' roots.
            Op::DivSelfadj | Op::InvMul2e | Op::Invnorm => 10 * VECTOR_EDGE_KINDS + pair_cases(512),
        }
    }

    fn model(&self, o: &Operands) -> Outcome {
        let mut a = o.a.clone();
        match self.op {
            Op::Div => return outcome(&o.a.iter().zip(&o.b).map(|(&x, &y)| model::div(x, y)).collect::<Vec<_>>()),
            Op::DivSelfadj => model::div_selfadj(o.logn, &mut a, &o.b),
            Op::Invnorm => {
                let mut d = vec![0; o.a.len() / 2];
                model::invnorm(o.logn, &mut d, &o.a, &o.b, o.e);
                return outcome(&d);
            }
            Op::InvMul2e => model::inv_mul2e(o.logn, &mut a, o.e),
        }
        outcome(&a)
    }

    /// The kernel's arguments from n values a and n values b: div_selfadj's b is b's first half.
    fn shaped(&self, logn: u32, e: u32, a: Vec<u64>, mut b: Vec<u64>) -> Operands {
        match self.op {
            Op::DivSelfadj => b.truncate(b.len() / 2),
            Op::InvMul2e => b.clear(),
            Op::Div | Op::Invnorm => {}
        }
        Operands { logn, e, a, b }
    }

    /// Edge cases of the vector kernels: each structured kind at logn 1..10, with the extreme exponents; then the
    /// division's edge pairs 512 at a time at logn 10, slot i taking pair i as (numerator, denominator).
    fn edge_vectors(&self, case: u64) -> Operands {
        let structured = 10 * VECTOR_EDGE_KINDS;
        let e_max = self.op.e_max();
        if case >= structured {
            let start = (case - structured) as usize * 512;
            let (a, b): (Vec<u64>, Vec<u64>) = (0..1024).map(|i| edge_pair(start + i % 512)).unzip();
            return self.shaped(10, [0, e_max][case as usize % 2], a, b);
        }
        let logn = 1 + (case % 10) as u32;
        let kind = case / 10;
        let e = [0, e_max, e_max / 2, 1, 0, e_max][kind as usize];
        let (a, b) = edge_vector(kind, logn);
        self.shaped(logn, e, a, b)
    }
}

/// The division's edge pairs (computed once).
static EDGE_PAIRS: LazyLock<Vec<(u64, u64)>> = LazyLock::new(edge_pairs);

/// Edge pair i, wrapping around (the last case of a batch is filled from the start).
fn edge_pair(i: usize) -> (u64, u64) {
    EDGE_PAIRS[i % EDGE_PAIRS.len()]
}

/// `fndsa.keygen.div`'s pairs: the edge pairs DIV_BATCH at a time, then random pairs.
fn div_operands(case: u64, rng: &mut CaseRng) -> Operands {
    let edge_cases = EDGE_PAIRS.len().div_ceil(DIV_BATCH) as u64;
    let pairs: Vec<(u64, u64)> = if case < edge_cases {
        (0..DIV_BATCH).map(|i| edge_pair(case as usize * DIV_BATCH + i)).collect()
    } else if rng.gen_ratio(1, 4) {
        // Realistic: FFT slots of two small polynomials over their norms.
        let (a, b) = realistic_vectors(rng.gen_range(7..=10), rng);
        let hn = a.len() / 2;
        (0..DIV_BATCH).map(|i| (a[(i * 7) % a.len()], b[i % hn])).collect()
    } else {
        (0..DIV_BATCH).map(|_| random_pair(rng)).collect()
    };
    let (a, b) = pairs.into_iter().unzip();
    Operands { logn: 0, e: 0, a, b }
}

/// A random pair: magnitudes spread over every scale (overflow and tiny quotients included), or a quotient next to
/// a rounding boundary.
fn random_pair(rng: &mut CaseRng) -> (u64, u64) {
    if rng.gen_ratio(1, 4) {
        rounding_boundary(rng)
    } else {
        (spread_operand(rng.next_u64(), rng.next_u64()), spread_operand(rng.next_u64(), rng.next_u64()))
    }
}

/// x / y with 2r - |y| = -1 or +1 (odd |y|, remainder r of |x| 2^32 by |y|) or an exact tie 2r = |y|
/// (|y| = 2^33 m), random signs.
fn rounding_boundary(rng: &mut CaseRng) -> (u64, u64) {
    let sign = |v: u64, rng: &mut CaseRng| if rng.r#gen() { v.wrapping_neg() } else { v };
    let (x, y) = if rng.r#gen() {
        let d = (rng.next_u64() >> rng.gen_range(1..63)) | 1;
        let d = d.max(3);
        let r = if rng.r#gen() { d / 2 } else { d / 2 + 1 };
        // x = r 2^-32 mod d, plus a random multiple of d that keeps x <= 2^63.
        let x0 = (u128::from(r) * u128::from(inverse_of_two32(d)) % u128::from(d)) as u64;
        let k = rng.gen_range(0..=((1u64 << 63) - x0) / d);
        (x0 + k * d, d)
    } else {
        let m = (rng.next_u64() >> rng.gen_range(34..64)) | 1;
        let q = rng.next_u64() >> rng.gen_range(32..64);
        let x = m.saturating_mul(2 * q + 1).min(1 << 62);
        (x + rng.gen_range(0..=2) - 1, m << 33)
    };
    (sign(x, rng), sign(y, rng))
}

/// Vectors as key generation produces them (`ntru::check_ortho_norm`): a = FFT(f) and b = |FFT(f)|^2 + |FFT(g)|^2
/// (self-adjoint: its real half) of small random f and g, scaled by a random power of two.
fn realistic_vectors(logn: u32, rng: &mut CaseRng) -> (Vec<u64>, Vec<u64>) {
    let n = 1usize << logn;
    let hn = n / 2;
    let width = rng.gen_range(1..=127);
    let shift = rng.gen_range(0..=20);
    let small = |rng: &mut CaseRng| -> Vec<u64> {
        let mut v: Vec<u64> = (0..n).map(|_| fxp::from_i32(rng.gen_range(-width..=width)) << shift).collect();
        Reference.fft(logn, &mut v);
        v
    };
    let (f, g) = (small(rng), small(rng));
    let mut norms: Vec<u64> = (0..hn)
        .map(|i| {
            fxp::sqr(f[i])
                .wrapping_add(fxp::sqr(f[i + hn]))
                .wrapping_add(fxp::sqr(g[i]))
                .wrapping_add(fxp::sqr(g[i + hn]))
        })
        .collect();
    norms.resize(n, 0);
    (f, norms)
}

/// Structured vectors (a, b) of n values each: all zero (every denominator 0), edge-class numerators over 1-ulp
/// denominators, signed powers of two, the largest values, FFT slots of a constant polynomial, alternating +/-1 ulp.
fn edge_vector(kind: u64, logn: u32) -> (Vec<u64>, Vec<u64>) {
    let n = 1usize << logn;
    let largest = [1u64 << 63, i64::MAX as u64, (1 << 63) + 1, 1 << 62, 0xFFFF_FFFF_0000_0000, 1];
    let each = |f: &dyn Fn(usize) -> (u64, u64)| -> (Vec<u64>, Vec<u64>) { (0..n).map(f).unzip() };
    match kind {
        0 => (vec![0; n], vec![0; n]),
        1 => each(&|i| (edge_pair(i * 37).0, if i % 2 == 0 { 1 } else { u64::MAX })),
        2 => each(&|i| {
            let p = 1u64 << (i % 64);
            (if i % 3 == 0 { p.wrapping_neg() } else { p }, 1u64 << ((i * 5 + 3) % 64))
        }),
        3 => each(&|i| (largest[i % largest.len()], largest[(i + 1) % largest.len()])),
        4 => {
            let mut a = vec![fxp::ONE; n];
            Reference.fft(logn, &mut a);
            let b = a.iter().map(|&x| fxp::sqr(x)).collect();
            (a, b)
        }
        _ => each(&|i| if i % 2 == 0 { (1, 1) } else { (u64::MAX, u64::MAX) }),
    }
}

fn bytes(values: &[u64]) -> Vec<u8> {
    le_bytes(values, u64::to_le_bytes)
}

fn outcome(values: &[u64]) -> Outcome {
    Outcome { buffers: vec![bytes(values)], ret: None }
}
