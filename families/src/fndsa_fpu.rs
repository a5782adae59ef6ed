//! Contracts of the FN-DSA signing FP64 kernels other than the (i)FFT (`kernels/arm/fndsa_fpu/{poly,ldl,sampler_fp}.c`,
//! native FP64, ids `fndsa.fpu.<kernel>`; `*_emu.c`, the same on our soft-float, ids `fndsa.fpu.<kernel>.emu`), one per
//! method of `pqhelium_core::fndsa::fpu::FpuKernels`. Contract in `kernels/arm/fndsa_fpu/fndsa_sign_kernels.h`.
//!
//! Checked two ways: the object code against `fpu::Reference`, the fn-dsa 0.4.0 order of operations in Rust f64 (the
//! kernels must match it bit for bit; a different order of the same mathematics would not), so the reference is the
//! definition and no separate model exists. Kernel-level mathematical checks (split then merge is the identity up to
//! rounding, the LDL factors rebuild the Gram matrix, floor and the Bernoulli exponent satisfy their definitions) are
//! in `cli/tests/fndsa_fpu.rs`.
//!
//! Each kernel is one [`Row`] of [`ROWS`], and the row is everything about it: the `FpuKernels` method it serves, its
//! id and symbol, its C arguments as `Param`s (where each comes from in an [`Input`]; the soft-float variant passes
//! scalar doubles differently), its precondition, its generator, the `FpuKernels` call it makes, and the roundings
//! whose bound coverage it reports (`Rounds`, step names `<id>/<step>` from [`step_name`]). A row registers two
//! kernels, native and soft-float. Every case is one call: the degree as an argument (logn 1..=10 for the polynomial
//! kernels), edge cases first (signed zeros, ones, the extremes 2^-476 and 2^79 of the signing range,
//! half-integers), then random values with random exponents. Kernels with a product of three factors (LDL, the
//! sampler exponent) draw from a narrower exponent range so that every intermediate stays normal: the soft-float's
//! domain (no subnormals), which is also signing's.
//!
//! [`Row::args`] and [`Row::run`] are shared with the kernels-in-the-loop provider
//! (`pqhelium_schemes::providers::fndsa_fpu`), which finds its rows by [`Method`]: the registry and the provider encode
//! a call the same way.

use std::cell::Cell;
use std::sync::LazyLock;

use pqhelium_core::fndsa::fpu::{
    self, BerExponent, FpuKernels, INV_2SQRSIGMA0, INV_LOG2, LOG2, Reference, SamplerCentre, scaled,
};
use pqhelium_core::fndsa::sampler::{INV_SIGMA, SIGMA_MIN};
use pqhelium_sim::coverage::{self, Boundary, Step};
use pqhelium_sim::rounding::{self, QUOTIENT_CARRY_NOTE, QUOTIENT_TIE_NOTE, ROOT_CARRY_NOTE, ROOT_TIE_NOTE, corners};
use rand::Rng;

use super::{
    ArgSpec, Bound, CaseRng, Contract, Description, Dir, Elem, Images, Kernel, Len, Outcome, RunReference, Ways,
    buffer, interned, step_name, u32_arg,
};
use pqhelium_guest::backend::Arg;

/// The degrees of the signing kernels.
pub const LOGN: Bound = Bound::Range { lo: 1, hi: 10 };

/// The `FpuKernels` method a row serves (`fft` and `ifft` are registered with the soft-float): what a provider asks
/// for ([`row`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Method {
    SetSmall,
    Round,
    Add,
    Sub,
    Neg,
    MulConst,
    Mul,
    MulAdj,
    MulOwnAdj,
    Ldl,
    Split,
    SplitSelfadj,
    Merge,
    LeafSigma,
    SamplerCentre,
    SamplerExponent,
}

/// The inputs of one call, whatever the kernel (the fields a kernel does not use are empty).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Input {
    pub logn: u32,
    /// Polynomial inputs in the order of the C prototype: `[f]` (round, split, split_selfadj), `[a]` (neg, mulconst,
    /// mulownadj), `[a, b]` (add, sub, mul, muladj), `[g00, g01, g11]` (ldl), `[f0, f1]` (merge).
    pub polys: Vec<Vec<f64>>,
    /// set_small: the integers; sampler_exponent: `[z, z0]`.
    pub ints: Vec<i32>,
    /// mulconst: `[c]`; leaf_sigma: `[d, inv_sigma]`; sampler_centre: `[mu, isigma, sigma_min]`.
    pub scalars: Vec<f64>,
    /// sampler_exponent: the centre.
    pub centre: Option<SamplerCentre>,
}

/// One C argument of a kernel, and where it comes from in an [`Input`].
enum Param {
    /// Doubles the kernel reads (`In`) or updates (`InOut`): the next of [`Input::polys`].
    Poly { name: &'static str, dir: Dir, len: Len, bound: Bound, repr: &'static str },
    /// Values the kernel writes: doubles (bit patterns on the soft-float) or `int64_t`.
    Out { name: &'static str, elem: Elem, len: Len, bound: Bound, repr: &'static str },
    /// `const int32_t s[n]`: [`Input::ints`].
    Ints { name: &'static str },
    /// `uint32_t logn`: [`Input::logn`].
    Logn,
    /// Doubles by value, [`Input::scalars`]: natively in d0, d1...; on the soft-float as `emu` says.
    Scalars { names: &'static [&'static str], bounds: &'static [Bound], emu: EmuScalars },
    /// `int32_t` values by value: [`Input::ints`].
    IntScalars { names: &'static [&'static str], bounds: &'static [Bound] },
    /// `const struct fndsa_fpu_centre *c`: [`Input::centre`].
    Centre,
    /// A struct the kernel writes.
    OutStruct { name: &'static str, c_struct: &'static str, bytes: usize },
}

/// How the soft-float variant takes the scalar doubles.
enum EmuScalars {
    /// In one input array of bit patterns, every element within this bound.
    Array(Bound),
    /// One double as two `uint32_t` words, low first (the register pair of a `uint64_t`).
    Words,
}

/// A kind of IEEE operation, reported as one pair of coverage steps `<kind>.tie` and `<kind>.carry` (sums and
/// differences are both `add`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Kind {
    Add,
    Mul,
    Div,
    Sqrt,
}

impl Kind {
    /// Its steps' names, and why operands never put it exactly on those corners (`None`: they can).
    fn steps(self) -> (&'static str, &'static str, Option<(&'static str, &'static str)>) {
        match self {
            Kind::Add => ("add.tie", "add.carry", None),
            Kind::Mul => ("mul.tie", "mul.carry", None),
            Kind::Div => ("div.tie", "div.carry", Some((QUOTIENT_TIE_NOTE, QUOTIENT_CARRY_NOTE))),
            Kind::Sqrt => ("sqrt.tie", "sqrt.carry", Some((ROOT_TIE_NOTE, ROOT_CARRY_NOTE))),
        }
    }
}

/// The IEEE operations of an element-wise kernel, as (operation, a, b, result) for each element.
type Elements = fn(&Input, &mut dyn FnMut(fpu::Op, f64, f64, f64));

/// The roundings a kernel reports bound coverage for, each step named `<id>/<step>` ([`step_name`]) after the
/// native id (both variants run the same reference). Their values stay far from 2^-1022 and from overflow: the
/// inputs' exponents are signing's.
enum Rounds {
    /// None: the results are exact (small integers to doubles, negation).
    Exact,
    /// IEEE roundings: ties and carries into the next binade, one pair of steps per kind of operation, with `notes`
    /// `(step, note)` on the corners no operands reach. `elements`: the operations of an element-wise kernel, whose
    /// model does not tell them; `None` for a composite kernel, whose model `fpu::Reference` tells an observer every
    /// operation.
    Ieee { kinds: &'static [Kind], notes: &'static [(&'static str, &'static str)], elements: Option<Elements> },
    /// Values rounded to integers: each step with the boundary where the result changes, and `values` giving each
    /// step's values as `fpu::Reference` computes them (same operations, same order).
    ToInteger { steps: &'static [(&'static str, Boundary)], values: fn(&Input, &mut dyn FnMut(&'static str, f64)) },
}

/// One kernel of the family, native and on the soft-float: everything about it, in one place.
pub struct Row {
    /// The `FpuKernels` method it serves.
    pub method: Method,
    /// The native variant's id and symbol; the soft-float's add `.emu` and `_emu` ([`Row::variant_id`]).
    pub id: &'static str,
    pub symbol: &'static str,
    computes: &'static str,
    params: &'static [Param],
    requires: &'static str,
    /// The relations of `requires`, checked on every case.
    precondition: fn(&Input) -> Result<(), String>,
    /// Cases `0..edge_cases` are the edge cases.
    pub edge_cases: u64,
    generate: fn(u64, &mut CaseRng) -> Input,
    /// The `FpuKernels` call: the buffers the kernel writes, in order.
    run: fn(&mut dyn FpuKernels, &Input) -> Vec<Vec<u8>>,
    rounds: Rounds,
}

const N: Len = Len::PowerOfTwo { param: "logn", halvings: 0 };
const HALF_N: Len = Len::PowerOfTwo { param: "logn", halvings: 1 };
/// Signing's values: zero or normal in [2^-476, 2^80); products of three factors from [2^-300, 2^80).
const SIGNING: Bound = Bound::float(LO, HI + 1);
const SIGNING3: Bound = Bound::float(LO3, HI + 1);
/// 1/sigma of the leaves, and the sampler's 1/sigma' (1/sigma_min at most) and sigma_min.
const INV_SIGMA_BOUND: Bound = Bound::Float { zero: false, min_exp: -8, max_exp: -7, nonnegative: true };
const ISIGMA_BOUND: Bound = Bound::Float { zero: false, min_exp: -8, max_exp: 0, nonnegative: true };
const SIGMA_MIN_BOUND: Bound = Bound::Float { zero: false, min_exp: 0, max_exp: 1, nonnegative: true };
/// mu of the sampler: |mu| < 2^63.
const MU_BOUND: Bound = Bound::float(LO, 63);
/// The base sampler's candidates: z0 in [0, 2^14), z = b + (2b - 1) z0.
const Z0_MAX: i64 = (1 << 14) - 1;

const fn poly(name: &'static str, dir: Dir, bound: Bound, repr: &'static str) -> Param {
    Param::Poly { name, dir, len: N, bound, repr }
}

const fn out(name: &'static str, len: Len, repr: &'static str) -> Param {
    Param::Out { name, elem: Elem::F64, len, bound: Bound::Any, repr }
}

const PLAIN: &str = "ieee754";
const FFT: &str = "ieee754, FFT form";

/// `a` updated by `b`, element-wise, and `n` of each: add's, sub's and mul's arguments.
const A_PLUS_B: &[Param] = &[poly("a", Dir::InOut, SIGNING, PLAIN), poly("b", Dir::In, SIGNING, PLAIN), Param::Logn];
/// The carries the composite kernels' operations cannot reach: mulownadj's products are squares, LDL's quotients
/// reciprocals.
const SQUARE_NOTE: &str = "a square never rounds up onto a power of two: 2 ulps below is the closest ((2 - 2^-52)^2 \
                           below 4; no double's square lies within 1.5 ulps below 2)";
const RECIPROCAL_NOTE: &str =
    "a reciprocal 1/g00 never rounds up onto a power of two: 2 ulps below is the closest (g00 = 1 + 2^-52)";

/// The kernels, in registry order.
pub static ROWS: &[Row] = &[
    Row {
        method: Method::SetSmall,
        id: "fndsa.fpu.set_small",
        symbol: "fndsa_fpu_set_small",
        computes: "d[i] = (double)s[i]",
        params: &[
            Param::Out { name: "d", elem: Elem::F64, len: N, bound: Bound::float(0, 32), repr: PLAIN },
            Param::Ints { name: "s" },
            Param::Logn,
        ],
        requires: "",
        precondition: no_relation,
        edge_cases: POLY_EDGE_CASES,
        generate: generate_set_small,
        run: |fpu, input| {
            let mut d = vec![0.0; 1 << input.logn];
            fpu.set_small(input.logn, &mut d, &input.ints);
            vec![f64_bytes(&d)]
        },
        rounds: Rounds::Exact,
    },
    Row {
        method: Method::Round,
        id: "fndsa.fpu.round",
        symbol: "fndsa_fpu_round",
        computes: "d[i] = round_ties_even(f[i]) as i64 (saturating)",
        params: &[
            Param::Out { name: "d", elem: Elem::I64, len: N, bound: Bound::Any, repr: "int64" },
            poly("f", Dir::In, SIGNING, PLAIN),
            Param::Logn,
        ],
        requires: "",
        precondition: no_relation,
        edge_cases: POLY_EDGE_CASES,
        generate: generate_round,
        run: |fpu, input| {
            let mut d = vec![0i64; 1 << input.logn];
            fpu.round(input.logn, &input.polys[0], &mut d);
            vec![d.iter().flat_map(|x| x.to_le_bytes()).collect()]
        },
        rounds: Rounds::ToInteger {
            steps: &[("f.round", Boundary::Tie)],
            values: |input, seen| input.polys[0].iter().for_each(|&x| seen("f.round", x)),
        },
    },
    Row {
        method: Method::Add,
        id: "fndsa.fpu.add",
        symbol: "fndsa_fpu_add",
        computes: "a += b",
        params: A_PLUS_B,
        requires: "",
        precondition: no_relation,
        edge_cases: POLY_EDGE_CASES + 1,
        generate: generate_add,
        run: |fpu, input| updated(input, |a, b| fpu.add(input.logn, a, b)),
        rounds: Rounds::Ieee {
            kinds: &[Kind::Add],
            notes: &[],
            elements: Some(|input, op| pairs(input).for_each(|(a, b)| op(fpu::Op::Add, a, b, a + b))),
        },
    },
    Row {
        method: Method::Sub,
        id: "fndsa.fpu.sub",
        symbol: "fndsa_fpu_sub",
        computes: "a -= b",
        params: A_PLUS_B,
        requires: "",
        precondition: no_relation,
        edge_cases: POLY_EDGE_CASES + 1,
        generate: generate_sub,
        run: |fpu, input| updated(input, |a, b| fpu.sub(input.logn, a, b)),
        rounds: Rounds::Ieee {
            kinds: &[Kind::Add],
            notes: &[],
            elements: Some(|input, op| pairs(input).for_each(|(a, b)| op(fpu::Op::Sub, a, b, a - b))),
        },
    },
    Row {
        method: Method::Neg,
        id: "fndsa.fpu.neg",
        symbol: "fndsa_fpu_neg",
        computes: "a = -a",
        params: &[poly("a", Dir::InOut, SIGNING, PLAIN), Param::Logn],
        requires: "",
        precondition: no_relation,
        edge_cases: POLY_EDGE_CASES,
        generate: generate_one,
        run: |fpu, input| updated(input, |a, _| fpu.neg(input.logn, a)),
        rounds: Rounds::Exact,
    },
    Row {
        method: Method::MulConst,
        id: "fndsa.fpu.mulconst",
        symbol: "fndsa_fpu_mulconst",
        computes: "a *= c",
        params: &[
            poly("a", Dir::InOut, SIGNING, PLAIN),
            Param::Logn,
            Param::Scalars { names: &["c"], bounds: &[SIGNING], emu: EmuScalars::Words },
        ],
        requires: "",
        precondition: no_relation,
        edge_cases: POLY_EDGE_CASES + 1,
        generate: generate_mulconst,
        run: |fpu, input| updated(input, |a, _| fpu.mulconst(input.logn, a, input.scalars[0])),
        rounds: Rounds::Ieee {
            kinds: &[Kind::Mul],
            notes: &[],
            elements: Some(|input, op| {
                let c = input.scalars[0];
                input.polys[0][..1 << input.logn].iter().for_each(|&a| op(fpu::Op::Mul, a, c, a * c));
            }),
        },
    },
    Row {
        method: Method::Mul,
        id: "fndsa.fpu.mul",
        symbol: "fndsa_fpu_mul_fft",
        computes: "a *= b in FFT form",
        params: &[poly("a", Dir::InOut, SIGNING, FFT), poly("b", Dir::In, SIGNING, FFT), Param::Logn],
        requires: "",
        precondition: no_relation,
        edge_cases: POLY_EDGE_CASES + 1,
        generate: generate_product,
        run: |fpu, input| updated(input, |a, b| fpu.mul_fft(input.logn, a, b)),
        rounds: Rounds::Ieee { kinds: &[Kind::Add, Kind::Mul], notes: &[], elements: None },
    },
    Row {
        method: Method::MulAdj,
        id: "fndsa.fpu.muladj",
        symbol: "fndsa_fpu_muladj_fft",
        computes: "a *= adj(b) in FFT form",
        params: &[poly("a", Dir::InOut, SIGNING, FFT), poly("b", Dir::In, SIGNING, FFT), Param::Logn],
        requires: "",
        precondition: no_relation,
        edge_cases: POLY_EDGE_CASES + 1,
        generate: generate_product,
        run: |fpu, input| updated(input, |a, b| fpu.muladj_fft(input.logn, a, b)),
        rounds: Rounds::Ieee { kinds: &[Kind::Add, Kind::Mul], notes: &[], elements: None },
    },
    Row {
        method: Method::MulOwnAdj,
        id: "fndsa.fpu.mulownadj",
        symbol: "fndsa_fpu_mulownadj_fft",
        computes: "a = a adj(a) in FFT form",
        params: &[poly("a", Dir::InOut, SIGNING, FFT), Param::Logn],
        requires: "",
        precondition: no_relation,
        edge_cases: POLY_EDGE_CASES + 1,
        generate: generate_mulownadj,
        run: |fpu, input| updated(input, |a, _| fpu.mulownadj_fft(input.logn, a)),
        rounds: Rounds::Ieee { kinds: &[Kind::Add, Kind::Mul], notes: &[("mul.carry", SQUARE_NOTE)], elements: None },
    },
    Row {
        method: Method::Ldl,
        id: "fndsa.fpu.ldl",
        symbol: "fndsa_fpu_ldl_fft",
        computes: "LDL of the 2x2 Gram matrix: g01 = adj(g01/g00), g11 -= |g01|^2/g00",
        params: &[
            poly("g00", Dir::In, SIGNING3, FFT),
            poly("g01", Dir::InOut, SIGNING3, FFT),
            poly("g11", Dir::InOut, SIGNING3, FFT),
            Param::Logn,
        ],
        requires: "g00 and g11 self-adjoint (imaginary halves zero), g00's real half positive",
        precondition: |input| {
            self_adjoint("g00", input.logn, &input.polys[0])?;
            self_adjoint("g11", input.logn, &input.polys[2])?;
            let hn = (1usize << input.logn) / 2;
            match input.polys[0][..hn].iter().position(|&x| x <= 0.0) {
                None => Ok(()),
                Some(i) => Err(format!("g00[{i}] = {:e}: not positive", input.polys[0][i])),
            }
        },
        edge_cases: POLY_EDGE_CASES + 1,
        generate: generate_ldl,
        run: |fpu, input| {
            let [g00, g01, g11] = &input.polys[..] else { unreachable!("three polynomials") };
            let (mut g01, mut g11) = (g01.clone(), g11.clone());
            fpu.ldl_fft(input.logn, g00, &mut g01, &mut g11);
            vec![f64_bytes(&g01), f64_bytes(&g11)]
        },
        rounds: Rounds::Ieee {
            kinds: &[Kind::Add, Kind::Mul, Kind::Div],
            notes: &[("div.carry", RECIPROCAL_NOTE)],
            elements: None,
        },
    },
    Row {
        method: Method::Split,
        id: "fndsa.fpu.split",
        symbol: "fndsa_fpu_split_fft",
        computes: "split in FFT form: f(x) = f0(x^2) + x f1(x^2)",
        params: &[out("f0", HALF_N, FFT), out("f1", HALF_N, FFT), poly("f", Dir::In, SIGNING, FFT), Param::Logn],
        requires: "",
        precondition: no_relation,
        edge_cases: POLY_EDGE_CASES,
        generate: generate_one,
        run: |fpu, input| split(input, |f0, f1, f| fpu.split_fft(input.logn, f0, f1, f)),
        rounds: Rounds::Ieee { kinds: &[Kind::Add, Kind::Mul], notes: &[], elements: None },
    },
    Row {
        method: Method::SplitSelfadj,
        id: "fndsa.fpu.split_selfadj",
        symbol: "fndsa_fpu_split_selfadj_fft",
        computes: "split of a self-adjoint polynomial in FFT form",
        params: &[out("f0", HALF_N, FFT), out("f1", HALF_N, FFT), poly("f", Dir::In, SIGNING, FFT), Param::Logn],
        requires: "f self-adjoint (imaginary half zero)",
        precondition: |input| self_adjoint("f", input.logn, &input.polys[0]),
        edge_cases: POLY_EDGE_CASES,
        generate: generate_split_selfadj,
        run: |fpu, input| split(input, |f0, f1, f| fpu.split_selfadj_fft(input.logn, f0, f1, f)),
        rounds: Rounds::Ieee { kinds: &[Kind::Add, Kind::Mul], notes: &[], elements: None },
    },
    Row {
        method: Method::Merge,
        id: "fndsa.fpu.merge",
        symbol: "fndsa_fpu_merge_fft",
        computes: "merge in FFT form (inverse of split)",
        params: &[
            out("f", N, FFT),
            Param::Poly { name: "f0", dir: Dir::In, len: HALF_N, bound: SIGNING, repr: FFT },
            Param::Poly { name: "f1", dir: Dir::In, len: HALF_N, bound: SIGNING, repr: FFT },
            Param::Logn,
        ],
        requires: "",
        precondition: no_relation,
        edge_cases: POLY_EDGE_CASES + 1,
        generate: generate_merge,
        run: |fpu, input| {
            let mut f = vec![0.0; 1 << input.logn];
            fpu.merge_fft(input.logn, &mut f, &input.polys[0], &input.polys[1]);
            vec![f64_bytes(&f)]
        },
        rounds: Rounds::Ieee { kinds: &[Kind::Add, Kind::Mul], notes: &[], elements: None },
    },
    Row {
        method: Method::LeafSigma,
        id: "fndsa.fpu.leaf_sigma",
        symbol: "fndsa_fpu_leaf_sigma",
        computes: "out = sqrt(d) * inv_sigma",
        params: &[
            Param::Out {
                name: "out",
                elem: Elem::F64,
                len: Len::Fixed(1),
                bound: Bound::Float { zero: true, min_exp: -1022, max_exp: 1024, nonnegative: true },
                repr: PLAIN,
            },
            Param::Scalars {
                names: &["d", "inv_sigma"],
                bounds: &[
                    Bound::Float { zero: true, min_exp: LO, max_exp: HI + 1, nonnegative: true },
                    INV_SIGMA_BOUND,
                ],
                emu: EmuScalars::Array(Bound::Float { zero: true, min_exp: LO, max_exp: HI + 1, nonnegative: true }),
            },
        ],
        requires: "inv_sigma one of signing's 1/sigma",
        precondition: no_relation,
        edge_cases: LEAF_EDGE_CASES,
        generate: generate_leaf_sigma,
        run: |fpu, input| vec![f64_bytes(&[fpu.leaf_sigma(input.scalars[0], input.scalars[1])])],
        rounds: Rounds::Ieee { kinds: &[Kind::Mul, Kind::Sqrt], notes: &[], elements: None },
    },
    Row {
        method: Method::SamplerCentre,
        id: "fndsa.fpu.sampler_centre",
        symbol: "fndsa_fpu_sampler_centre",
        computes: "sampler centre: s = floor(mu), r = mu - s, dss = isigma^2/2, ccs_fx = fixed63(isigma sigma_min)",
        params: &[
            Param::OutStruct { name: "c", c_struct: "fndsa_fpu_centre", bytes: 32 },
            Param::Scalars {
                names: &["mu", "isigma", "sigma_min"],
                bounds: &[MU_BOUND, ISIGMA_BOUND, SIGMA_MIN_BOUND],
                emu: EmuScalars::Array(MU_BOUND),
            },
        ],
        requires: "sigma_min one of signing's",
        precondition: no_relation,
        edge_cases: 100,
        generate: generate_sampler_centre,
        run: |fpu, input| {
            let [mu, isigma, sigma_min] = input.scalars[..] else { unreachable!("three scalars") };
            vec![centre_bytes(&fpu.sampler_centre(mu, isigma, sigma_min))]
        },
        rounds: Rounds::ToInteger {
            steps: &[("mu.floor", Boundary::Integer), ("ccs.trunc", Boundary::Integer)],
            values: |input, seen| {
                let [mu, isigma, sigma_min] = input.scalars[..] else { unreachable!("three scalars") };
                seen("mu.floor", mu);
                seen("ccs.trunc", isigma * sigma_min * scaled(1, 63));
            },
        },
    },
    Row {
        method: Method::SamplerExponent,
        id: "fndsa.fpu.sampler_exponent",
        symbol: "fndsa_fpu_sampler_exponent",
        computes: "Bernoulli exponent: x = (z - r)^2 dss - z0^2/(2 sigma0^2) = k ln2 + rem",
        params: &[
            Param::OutStruct { name: "e", c_struct: "fndsa_fpu_ber", bytes: 16 },
            Param::Centre,
            Param::IntScalars {
                names: &["z", "z0"],
                bounds: &[Bound::Range { lo: -Z0_MAX, hi: Z0_MAX + 1 }, Bound::Range { lo: 0, hi: Z0_MAX }],
            },
        ],
        requires: "c from sampler_centre; z = b + (2b - 1) z0 for a bit b",
        precondition: no_relation,
        edge_cases: EXPONENT_EDGE_CASES,
        generate: generate_sampler_exponent,
        run: |fpu, input| {
            let centre = input.centre.as_ref().expect("a centre");
            vec![ber_bytes(&fpu.sampler_exponent(centre, input.ints[0], input.ints[1]))]
        },
        rounds: Rounds::ToInteger {
            steps: &[("k.trunc", Boundary::Integer), ("rem.trunc", Boundary::Integer)],
            values: |input, seen| {
                let c = input.centre.as_ref().expect("a centre");
                let (z, z0) = (input.ints[0], input.ints[1]);
                let d = f64::from(z) - c.r;
                let x = d * d * c.dss - f64::from(z0 * z0) * INV_2SQRSIGMA0;
                let q = x * INV_LOG2;
                seen("k.trunc", q);
                let rem = x - (q as i64) as f64 * LOG2;
                seen("rem.trunc", rem * scaled(1, 63));
            },
        },
    },
];

/// The first row serving `method`: the one a provider runs when schemes call `method`. A later row of the same
/// method is another implementation of it (another build or schedule), registered and checked like any kernel.
pub fn row(method: Method) -> &'static Row {
    ROWS.iter().find(|r| r.method == method).unwrap_or_else(|| panic!("no row serves {method:?}"))
}

/// Which row and variant (soft-float: `true`) a registered id names.
pub fn row_of(id: &str) -> Option<(&'static Row, bool)> {
    ROWS.iter().flat_map(|r| [(r, false), (r, true)]).find(|&(r, emu)| r.variant_id(emu) == id)
}

pub(super) fn kernels() -> Vec<Kernel> {
    ROWS.iter().flat_map(|row| [false, true].map(|emu| row.kernel(emu))).collect()
}

impl Row {
    /// The registry id of the native (`emu == false`) or soft-float variant.
    pub fn variant_id(&self, emu: bool) -> &'static str {
        if emu { interned(format!("{}.emu", self.id)) } else { self.id }
    }

    /// The guest symbol of the native or soft-float variant.
    pub fn variant_symbol(&self, emu: bool) -> &'static str {
        if emu { interned(format!("{}_emu", self.symbol)) } else { self.symbol }
    }

    /// The registered kernel of the native or soft-float variant.
    pub fn kernel(&'static self, emu: bool) -> Kernel {
        Kernel::new(Fpu::new(self, emu))
    }

    /// The inputs of case `case`.
    pub fn generate(&self, case: u64, rng: &mut CaseRng) -> Input {
        (self.generate)(case, rng)
    }

    /// What the kernel computes on `input` with the kernels `fpu`, as the object code's output buffers.
    pub fn run<F: FpuKernels>(&self, fpu: &mut F, input: &Input) -> Outcome {
        Outcome { buffers: (self.run)(fpu, input), ret: None }
    }

    /// The reference of the kernel: `fpu::Reference` on the decoded arguments.
    pub fn reference(&self, emu: bool, args: &[Arg]) -> Outcome {
        self.run(&mut Reference, &self.input_of(emu, args))
    }

    /// The AAPCS arguments of a call of the native or soft-float variant on `input`.
    pub fn args(&self, emu: bool, input: &Input) -> Vec<Arg> {
        let mut polys = input.polys.iter();
        let mut args = Vec::new();
        for param in self.params {
            match param {
                Param::Poly { dir, .. } => {
                    let bytes = f64_bytes(polys.next().expect("one polynomial per Poly argument"));
                    args.push(if *dir == Dir::In { Arg::In(bytes) } else { Arg::InOut(bytes) });
                }
                Param::Out { elem, len, .. } => args.push(Arg::Out(elem.bytes() * count(*len, input.logn))),
                Param::Ints { .. } => args.push(Arg::In(input.ints.iter().flat_map(|x| x.to_le_bytes()).collect())),
                Param::Logn => args.push(Arg::U32(input.logn)),
                Param::Scalars { emu: how, .. } => match (emu, how) {
                    (false, _) => args.extend(input.scalars.iter().map(|&x| Arg::F64(x))),
                    (true, EmuScalars::Array(_)) => args.push(Arg::In(f64_bytes(&input.scalars))),
                    (true, EmuScalars::Words) => {
                        let bits = input.scalars[0].to_bits();
                        args.extend([Arg::U32(bits as u32), Arg::U32((bits >> 32) as u32)]);
                    }
                },
                Param::IntScalars { .. } => args.extend(input.ints.iter().map(|&x| Arg::U32(x as u32))),
                Param::Centre => args.push(Arg::In(centre_bytes(input.centre.as_ref().expect("a centre")))),
                Param::OutStruct { bytes, .. } => args.push(Arg::Out(*bytes)),
            }
        }
        args
    }

    /// The inverse of [`Row::args`].
    pub fn input_of(&self, emu: bool, args: &[Arg]) -> Input {
        let mut input = Input::default();
        let mut next = args.iter();
        let mut take = || next.next().expect("an argument per parameter");
        for param in self.params {
            match param {
                Param::Poly { .. } => input.polys.push(bytes_f64(buffer(take()))),
                Param::Out { .. } | Param::OutStruct { .. } => {
                    take();
                }
                Param::Ints { .. } => {
                    input.ints =
                        buffer(take()).chunks_exact(4).map(|c| i32::from_le_bytes(c.try_into().unwrap())).collect()
                }
                Param::Logn => input.logn = u32_arg(take()),
                Param::Scalars { names, emu: how, .. } => {
                    input.scalars = match (emu, how) {
                        (false, _) => (0..names.len())
                            .map(|_| match take() {
                                Arg::F64(x) => *x,
                                other => panic!("expected a double, got {other:?}"),
                            })
                            .collect(),
                        (true, EmuScalars::Array(_)) => bytes_f64(buffer(take())),
                        (true, EmuScalars::Words) => {
                            let (lo, hi) = (u32_arg(take()), u32_arg(take()));
                            vec![f64::from_bits(u64::from(lo) | u64::from(hi) << 32)]
                        }
                    }
                }
                Param::IntScalars { names, .. } => {
                    input.ints = (0..names.len()).map(|_| u32_arg(take()) as i32).collect()
                }
                Param::Centre => input.centre = Some(centre_of(buffer(take()))),
            }
        }
        input
    }
}

fn no_relation(_: &Input) -> Result<(), String> {
    Ok(())
}

/// `p` (of degree 2^logn, FFT form) is self-adjoint: its imaginary half is zero.
fn self_adjoint(name: &str, logn: u32, p: &[f64]) -> Result<(), String> {
    let hn = (1usize << logn) / 2;
    match p[hn..].iter().position(|&x| x != 0.0) {
        None => Ok(()),
        Some(i) => Err(format!("{name}[{}] = {:e}: not self-adjoint", hn + i, p[hn + i])),
    }
}

/// The element pairs (a[i], b[i]) of a call's first two polynomials, n of them.
fn pairs(input: &Input) -> impl Iterator<Item = (f64, f64)> + '_ {
    let n = 1 << input.logn;
    input.polys[0][..n].iter().copied().zip(input.polys[1][..n].iter().copied())
}

/// The step names of IEEE roundings of some kinds of operation (`<id>/add.tie`...), as an observer uses them.
#[derive(Debug, Clone, Copy)]
pub(super) struct Roundings {
    add: Option<rounding::Steps>,
    mul: Option<rounding::Steps>,
    div: Option<rounding::Steps>,
    sqrt: Option<rounding::Steps>,
}

impl Roundings {
    /// The roundings of `kinds` of operation, named after the kernel `id`.
    pub(super) fn new(id: &str, kinds: &[Kind]) -> Self {
        let mut r = Roundings { add: None, mul: None, div: None, sqrt: None };
        for &kind in kinds {
            let (tie, carry, _) = kind.steps();
            let steps = Some(rounding::Steps::normal(step_name(id, tie), step_name(id, carry)));
            match kind {
                Kind::Add => r.add = steps,
                Kind::Mul => r.mul = steps,
                Kind::Div => r.div = steps,
                Kind::Sqrt => r.sqrt = steps,
            }
        }
        r
    }

    /// Observes one operation under the steps of its kind, if declared.
    fn observe(&self, op: fpu::Op, a: f64, b: f64, r: f64) {
        let (steps, exact) = match op {
            fpu::Op::Add => (self.add, rounding::Exact::Sum(a, b)),
            fpu::Op::Sub => (self.add, rounding::Exact::Sum(a, -b)),
            fpu::Op::Mul => (self.mul, rounding::Exact::Product(a, b)),
            fpu::Op::Div => (self.div, rounding::Exact::Quotient(a, b)),
            fpu::Op::Sqrt => (self.sqrt, rounding::Exact::Root(a)),
        };
        if let Some(steps) = steps {
            rounding::observe(&steps, exact, r);
        }
    }
}

/// The declared steps of the IEEE roundings of `kinds` of operation of kernel `id`, a tie and a carry each, with
/// what no operands reach: the kind's own notes, then the kernel's `(step, note)`.
pub(super) fn ieee_steps(id: &str, kinds: &[Kind], notes: &[(&str, &'static str)]) -> Vec<Step> {
    let mut steps = Vec::new();
    for &kind in kinds {
        let (tie, carry, unreachable) = kind.steps();
        let (tie_note, carry_note) = unreachable.unzip();
        for (step, boundary, kind_note) in [(tie, Boundary::Tie, tie_note), (carry, Boundary::Binade, carry_note)] {
            let note = notes.iter().find(|(name, _)| *name == step).map(|&(_, note)| note).or(kind_note);
            let s = Step::fp(step_name(id, step), boundary);
            steps.push(match note {
                Some(note) => s.note(note),
                None => s,
            });
        }
    }
    steps
}

thread_local! {
    /// The roundings of the composite kernel whose model runs on this thread, while a recording is on.
    static OBSERVED: Cell<Option<Roundings>> = const { Cell::new(None) };
}

/// Forwards one operation of `fpu::Reference` to the steps of the kernel being observed.
fn observe_op(op: fpu::Op, a: f64, b: f64, r: f64) {
    if let Some(k) = OBSERVED.with(Cell::get) {
        k.observe(op, a, b, r);
    }
}

/// Runs a model with its operations observed under `roundings` when a coverage recording is on.
pub(super) fn observed<T>(roundings: Option<Roundings>, run: impl FnOnce() -> T) -> T {
    let Some(roundings) = roundings.filter(|_| coverage::enabled()) else { return run() };
    /// Restores the previous observer, also when the model panics.
    struct Restore(Option<fpu::Observer>, Option<Roundings>);
    impl Drop for Restore {
        fn drop(&mut self) {
            fpu::set_observer(self.0);
            OBSERVED.with(|o| o.set(self.1));
        }
    }
    let _restore = Restore(fpu::set_observer(Some(observe_op)), OBSERVED.with(|o| o.replace(Some(roundings))));
    run()
}

/// The buffer an in-place kernel updates (`a`, with `b` when there is one).
fn updated(input: &Input, call: impl FnOnce(&mut [f64], &[f64])) -> Vec<Vec<u8>> {
    let mut a = input.polys[0].clone();
    call(&mut a, input.polys.get(1).map_or(&[], Vec::as_slice));
    vec![f64_bytes(&a)]
}

/// The two halves a split writes.
fn split(input: &Input, call: impl FnOnce(&mut [f64], &mut [f64], &[f64])) -> Vec<Vec<u8>> {
    let hn = 1usize << (input.logn - 1);
    let (mut f0, mut f1) = (vec![0.0; hn], vec![0.0; hn]);
    call(&mut f0, &mut f1, &input.polys[0]);
    vec![f64_bytes(&f0), f64_bytes(&f1)]
}

fn f64_bytes(v: &[f64]) -> Vec<u8> {
    v.iter().flat_map(|x| x.to_bits().to_le_bytes()).collect()
}

fn bytes_f64(b: &[u8]) -> Vec<f64> {
    b.chunks_exact(8).map(|c| f64::from_bits(u64::from_le_bytes(c.try_into().unwrap()))).collect()
}

/// `struct fndsa_fpu_centre` (32 bytes).
pub fn centre_bytes(c: &SamplerCentre) -> Vec<u8> {
    let mut b = Vec::with_capacity(32);
    b.extend_from_slice(&c.s.to_le_bytes());
    b.extend_from_slice(&0u32.to_le_bytes());
    b.extend_from_slice(&c.r.to_bits().to_le_bytes());
    b.extend_from_slice(&c.dss.to_bits().to_le_bytes());
    b.extend_from_slice(&c.ccs_fx.to_le_bytes());
    b
}

pub fn centre_of(b: &[u8]) -> SamplerCentre {
    let word = |at: usize| u64::from_le_bytes(b[at..at + 8].try_into().unwrap());
    SamplerCentre {
        s: i32::from_le_bytes(b[0..4].try_into().unwrap()),
        r: f64::from_bits(word(8)),
        dss: f64::from_bits(word(16)),
        ccs_fx: word(24),
    }
}

/// `struct fndsa_fpu_ber` (16 bytes).
pub fn ber_of(b: &[u8]) -> BerExponent {
    BerExponent {
        k: i64::from_le_bytes(b[0..8].try_into().unwrap()),
        rem_fx: u64::from_le_bytes(b[8..16].try_into().unwrap()),
    }
}

fn ber_bytes(e: &BerExponent) -> Vec<u8> {
    [e.k.to_le_bytes(), e.rem_fx.to_le_bytes()].concat()
}

/// Elements of a buffer of length `len` at degree `logn`.
fn count(len: Len, logn: u32) -> usize {
    match len {
        Len::PowerOfTwo { halvings, .. } => (1usize << logn) >> halvings,
        Len::Fixed(n) => n,
        Len::Scalar | Len::UpTo(_) => unreachable!("the family's buffers are n, n/2 or fixed"),
    }
}

/// A kernel of the family: a row, native or on the soft-float, with its names made once.
struct Fpu {
    row: &'static Row,
    emu: bool,
    id: &'static str,
    symbol: &'static str,
    /// The row's IEEE roundings under their step names ([`Rounds::Ieee`]).
    roundings: Option<Roundings>,
    /// The row's roundings to integers: each step, its name and boundary ([`Rounds::ToInteger`]).
    integers: Vec<(&'static str, &'static str, Boundary)>,
}

impl Fpu {
    fn new(row: &'static Row, emu: bool) -> Self {
        let (roundings, integers) = match row.rounds {
            Rounds::Exact => (None, vec![]),
            Rounds::Ieee { kinds, .. } => (Some(Roundings::new(row.id, kinds)), vec![]),
            Rounds::ToInteger { steps, .. } => {
                (None, steps.iter().map(|&(step, boundary)| (step, step_name(row.id, step), boundary)).collect())
            }
        };
        Self { row, emu, id: row.variant_id(emu), symbol: row.variant_symbol(emu), roundings, integers }
    }

    /// Observes the roundings the model does not tell an observer itself, when a coverage recording is on.
    fn observe_elements(&self, input: &Input) {
        if !coverage::enabled() {
            return;
        }
        match self.row.rounds {
            Rounds::Ieee { elements: Some(elements), .. } => {
                let roundings = self.roundings.expect("the roundings of an Ieee row");
                elements(input, &mut |op, a, b, r| roundings.observe(op, a, b, r));
            }
            Rounds::ToInteger { values, .. } => values(input, &mut |step, x| {
                let &(_, name, boundary) = self.integers.iter().find(|s| s.0 == step).expect("a declared step");
                coverage::observe_fp(name, boundary, x);
            }),
            Rounds::Exact | Rounds::Ieee { elements: None, .. } => {}
        }
    }

    /// The C arguments of this variant, from the row's parameters.
    fn arg_specs(&self) -> Vec<ArgSpec> {
        let double = if self.emu { Elem::U64 } else { Elem::F64 };
        let mut specs = Vec::new();
        for param in self.row.params {
            match *param {
                Param::Poly { name, dir, len, bound, repr } => specs.push(
                    match dir {
                        Dir::In => ArgSpec::input(name, double, len, bound),
                        _ => ArgSpec::in_out(name, double, len, bound, Bound::Any),
                    }
                    .repr(repr),
                ),
                Param::Out { name, elem, len, bound, repr } => {
                    let elem = if elem == Elem::F64 { double } else { elem };
                    specs.push(ArgSpec::output(name, elem, len, bound).repr(repr));
                }
                Param::Ints { name } => specs.push(ArgSpec::input(name, Elem::I32, N, Bound::Any).repr("int32")),
                Param::Logn => specs.push(ArgSpec::scalar("logn", Elem::U32, LOGN).repr("log2 n")),
                Param::Scalars { names, bounds, ref emu } => match (self.emu, emu) {
                    (false, _) => specs
                        .extend(names.iter().zip(bounds).map(|(&n, &b)| ArgSpec::scalar(n, Elem::F64, b).repr(PLAIN))),
                    (true, &EmuScalars::Array(bound)) => specs.push(
                        ArgSpec::input("in", Elem::U64, Len::Fixed(names.len()), bound).repr("ieee754: the scalars"),
                    ),
                    (true, EmuScalars::Words) => specs.extend([
                        ArgSpec::scalar("c_lo", Elem::U32, Bound::Any).repr("ieee754, low word"),
                        ArgSpec::scalar("c_hi", Elem::U32, Bound::Any).repr("ieee754, high word"),
                    ]),
                },
                Param::IntScalars { names, bounds } => specs
                    .extend(names.iter().zip(bounds).map(|(&n, &b)| ArgSpec::scalar(n, Elem::I32, b).repr("int32"))),
                Param::Centre => specs.push(
                    ArgSpec::input("c", Elem::U8, Len::Fixed(32), Bound::Any)
                        .repr("struct")
                        .c_struct("fndsa_fpu_centre"),
                ),
                Param::OutStruct { name, c_struct, bytes } => specs.push(
                    ArgSpec::output(name, Elem::U8, Len::Fixed(bytes), Bound::Any).repr("struct").c_struct(c_struct),
                ),
            }
        }
        // Signing's values are secret; the degree is public.
        specs.into_iter().map(|a| if a.name == "logn" { a } else { a.secret() }).collect()
    }
}

impl Contract for Fpu {
    type Input = Input;

    fn describe(&self) -> Description {
        let row = self.row;
        let how = if self.emu { "soft-float" } else { "native FP64" };
        Description {
            id: self.id,
            symbol: self.symbol,
            images: Images::Both,
            summary: format!("FN-DSA signing {} ({how})", row.computes),
            computes: format!("{}: fpu::Reference, every bit", row.computes),
            requires: row.requires.into(),
            edge_cases: row.edge_cases,
            args: self.arg_specs(),
            returns: None,
            results: vec![],
        }
    }

    fn generate(&self, case: u64, rng: &mut CaseRng) -> Input {
        self.row.generate(case, rng)
    }

    fn encode(&self, input: &Input) -> Vec<Arg> {
        self.row.args(self.emu, input)
    }

    fn decode(&self, args: &[Arg]) -> Input {
        self.row.input_of(self.emu, args)
    }

    fn reference(&self, input: &Input, _: RunReference) -> Outcome {
        self.observe_elements(input);
        let composite = match self.row.rounds {
            Rounds::Ieee { elements: None, .. } => self.roundings,
            _ => None,
        };
        observed(composite, || self.row.run(&mut Reference, input))
    }

    fn ways(&self) -> Ways<Self> {
        Ways::Two
    }

    fn coverage_steps(&self) -> Vec<Step> {
        match self.row.rounds {
            Rounds::Ieee { kinds, notes, .. } => ieee_steps(self.row.id, kinds, notes),
            Rounds::Exact | Rounds::ToInteger { .. } => {
                self.integers.iter().map(|&(_, name, boundary)| Step::fp(name, boundary)).collect()
            }
        }
    }

    fn precondition(&self, input: &Input) -> Result<(), String> {
        (self.row.precondition)(input)
    }
}

/// Edge cases of the polynomial kernels: for each logn 1..=10, four patterns (signed zeros, +-1 and small integers,
/// the extremes 2^-476 and 2^79, half-integers).
const POLY_EDGE_CASES: u64 = 40;

const SIGN: u64 = 1 << 63;

fn pow2(k: i32) -> f64 {
    f64::from_bits(((k + 1023) as u64) << 52)
}

/// A random double: sign, mantissa, exponent uniform in `lo..=hi`; one in 32 is a zero of either sign.
fn random_in(rng: &mut CaseRng, lo: i32, hi: i32) -> f64 {
    let s = if rng.r#gen() { SIGN } else { 0 };
    if rng.gen_range(0..32u32) == 0 {
        return f64::from_bits(s);
    }
    let mut m = rng.r#gen::<u64>() & 0x000F_FFFF_FFFF_FFFF;
    if rng.gen_range(0..4u32) == 0 {
        let tz = rng.gen_range(0..=52u32);
        m = (m >> tz) << tz;
    }
    f64::from_bits(s | (((rng.gen_range(lo..=hi) + 1023) as u64) << 52) | m)
}

/// Signing's range of exponents, and the narrower one of products of three.
const LO: i32 = -476;
const HI: i32 = 79;
const LO3: i32 = -300;

/// A value of an edge pattern at index i of n.
fn edge_value(pattern: u64, i: usize, lo: i32) -> f64 {
    match pattern {
        0 => {
            if i.is_multiple_of(3) {
                -0.0
            } else {
                0.0
            }
        }
        1 => [1.0, -1.0, 2.0, -0.5, 3.0, -12289.0, 0.0, 1.5][i % 8],
        2 => [pow2(lo), -pow2(HI), pow2(HI), -pow2(lo), f64::from_bits(0x44EF_FFFF_FFFF_FFFF), 1.0][i % 6],
        _ => (i as f64 - 7.5) * if i.is_multiple_of(2) { 1.0 } else { -1.0 },
    }
}

fn logn_of(case: u64, rng: &mut CaseRng) -> u32 {
    if case < POLY_EDGE_CASES {
        1 + (case % 10) as u32
    } else if rng.gen_range(0..4u32) == 0 {
        rng.gen_range(7..=10)
    } else {
        rng.gen_range(1..=6)
    }
}

/// The polynomial `which` (0, 1, 2) of a case: an edge pattern, or random values with exponents in `lo..=HI`.
fn poly_case(case: u64, rng: &mut CaseRng, n: usize, which: usize, lo: i32) -> Vec<f64> {
    if case < POLY_EDGE_CASES {
        let pattern = case / 10;
        (0..n).map(|i| edge_value(pattern, i + 3 * which, lo)).collect()
    } else {
        (0..n).map(|_| random_in(rng, lo, HI)).collect()
    }
}

/// A degree and `count` polynomials of it.
fn polys_case(case: u64, rng: &mut CaseRng, count: usize, lo: i32) -> Input {
    let logn = logn_of(case, rng);
    let n = 1usize << logn;
    let polys = (0..count).map(|which| poly_case(case, rng, n, which, lo)).collect();
    Input { logn, polys, ..Input::default() }
}

fn generate_one(case: u64, rng: &mut CaseRng) -> Input {
    polys_case(case, rng, 1, LO)
}

fn generate_two(case: u64, rng: &mut CaseRng) -> Input {
    polys_case(case, rng, 2, LO)
}

fn generate_set_small(case: u64, rng: &mut CaseRng) -> Input {
    let logn = logn_of(case, rng);
    let n = 1usize << logn;
    let ints = if case < POLY_EDGE_CASES {
        let edges = [0, 1, -1, i32::MAX, i32::MIN, i32::MIN + 1, 12289, -12289, 127, -128, 1 << 24, -(1 << 30)];
        (0..n).map(|i| edges[(i + case as usize) % edges.len()]).collect()
    } else {
        (0..n).map(|_| (rng.r#gen::<u32>() >> rng.gen_range(0..32u32)) as i32).collect()
    };
    Input { logn, ints, ..Input::default() }
}

fn generate_round(case: u64, rng: &mut CaseRng) -> Input {
    let logn = logn_of(case, rng);
    let n = 1usize << logn;
    let f = if case < POLY_EDGE_CASES {
        let edges = round_edges();
        (0..n).map(|i| edges[(i + 7 * case as usize) % edges.len()]).collect()
    } else {
        (0..n)
            .map(|_| match rng.gen_range(0..4u32) {
                0 => random_in(rng, LO, HI),
                1 => f64::from(rng.gen_range(-(1 << 20)..1 << 20)) + 0.5,
                _ => random_in(rng, -2, 40),
            })
            .collect()
    };
    Input { logn, polys: vec![f], ..Input::default() }
}

/// An operand whose product with the twiddle sqrt(1/2) (the first layer's of an FFT of degree 4, and the merge's at
/// logn 2) rounds up onto a power of two. (No product with it is a tie: its odd significand fixes the operand's,
/// and `corners::product_tie` finds that product in the wrong binade.)
pub(super) fn twiddle_carry() -> f64 {
    corners::product_carry(std::f64::consts::FRAC_1_SQRT_2)
        .expect("2 / sqrt(2) rounded has a product with sqrt(1/2) rounding onto 1")
}

/// The last edge case of merge: f1 = (a, -a), products with the twiddle rounding up onto 1 (f0 = (1, 1/2)).
fn merge_corners() -> Input {
    let t = twiddle_carry();
    let f1 = vec![t, -t];
    Input { logn: 2, polys: vec![vec![1.0, 0.5], f1], ..Input::default() }
}

/// The last edge case of mul and muladj (degree 8, four complex products): (1 - 2^-53) +- 2^-54 times 1 + i and
/// 1 - i, whose parts' sums are ties, one rounding up onto 1; (1 + 2^-26)(1 + 2^-27), a tie; and a product with
/// sqrt(1/2) rounding up onto 1.
fn product_corners() -> Input {
    let below_one = f64::from_bits(1f64.to_bits() - 1);
    let c = std::f64::consts::FRAC_1_SQRT_2;
    let a = vec![below_one, below_one, 1.0 + pow2(-26), twiddle_carry(), pow2(-54), pow2(-54), 0.0, 0.0];
    let b = vec![1.0, 1.0, 1.0 + pow2(-27), c, 1.0, -1.0, 0.0, 0.0];
    Input { logn: 3, polys: vec![a, b], ..Input::default() }
}

fn generate_product(case: u64, rng: &mut CaseRng) -> Input {
    if case == POLY_EDGE_CASES { product_corners() } else { generate_two(case, rng) }
}

/// The last edge case of mulownadj: a^2 + b^2 for a = 1 - 2^-53, b = 2^-26 (1 - 2^-53) is 1 - 2^-104 before its
/// rounding, which carries onto 1 (a square itself rounds at best 2 ulps below a power of two); 1.5^2 + 2^-52 is a
/// tie (half an ulp of 2.25); and the square of m 2^-26, m = 94906267 the least odd m with m^2 >= 2^53, is a tie.
fn mulownadj_corners() -> Input {
    let below = |x: f64| f64::from_bits(x.to_bits() - 1);
    let square_tie = 94_906_267.0 * pow2(-26);
    let a = vec![below(1.0), 1.5, square_tie, 0.0, below(pow2(-26)), pow2(-26), 0.0, 0.0];
    Input { logn: 3, polys: vec![a], ..Input::default() }
}

fn generate_mulownadj(case: u64, rng: &mut CaseRng) -> Input {
    if case == POLY_EDGE_CASES { mulownadj_corners() } else { generate_one(case, rng) }
}

fn generate_merge(case: u64, rng: &mut CaseRng) -> Input {
    if case == POLY_EDGE_CASES {
        return merge_corners();
    }
    let mut input = polys_case(case, rng, 2, LO);
    let hn = (1usize << input.logn) / 2;
    input.polys.iter_mut().for_each(|p| p.truncate(hn));
    input
}

fn generate_split_selfadj(case: u64, rng: &mut CaseRng) -> Input {
    let mut input = polys_case(case, rng, 1, LO);
    let hn = (1usize << input.logn) / 2;
    input.polys[0][hn..].fill(0.0);
    input
}

/// The last edge case of add and sub (degree 1024): pairs whose sum (a + b, or a - b for `negate`) is a tie with
/// the kept bits even and odd, one unit of b either side of one, and ties rounded up into the next binade, over the
/// signing exponents (`pqhelium_sim::rounding::corners`).
fn sum_corners(negate: bool) -> Input {
    const FRAC: u64 = (1 << 52) - 1;
    let mut pairs = vec![];
    for e in [LO + 54, -200, -60, -1, 0, 1, 30, HI] {
        for frac in [0, 1, 2, 3, 0x8_0000_0000_0001, FRAC - 1, FRAC] {
            for off in [-1, 0, 1] {
                let (a, b) = corners::sum_tie(frac, e, off);
                pairs.extend([(a, b), (-a, -b)]);
            }
        }
    }
    let n = 1024;
    let pairs = pairs.iter().cycle().take(n);
    let (a, b): (Vec<f64>, Vec<f64>) = pairs.map(|&(a, b)| (a, if negate { -b } else { b })).unzip();
    Input { logn: 10, polys: vec![a, b], ..Input::default() }
}

fn generate_add(case: u64, rng: &mut CaseRng) -> Input {
    if case == POLY_EDGE_CASES { sum_corners(false) } else { generate_two(case, rng) }
}

fn generate_sub(case: u64, rng: &mut CaseRng) -> Input {
    if case == POLY_EDGE_CASES { sum_corners(true) } else { generate_two(case, rng) }
}

/// The constant of mulconst's last edge case, and products with it on the rounding's corners: ties with the kept
/// bits even and odd (a's significand solved modulo 2^53), one unit either side, and (2 - 2^-26) c = 2 - 2^-53, a tie
/// rounded up into the next binade; over the signing exponents.
const CORNER_CONSTANT: f64 = 1.0 + 1.0 / 134217728.0; // 1 + 2^-27

fn mulconst_corners() -> Input {
    let mut a = vec![];
    for seed in 0..16 {
        for lsb in [0, 1] {
            for off in [-1, 0, 1] {
                if let Some(x) = corners::product_tie(CORNER_CONSTANT, seed, lsb, off) {
                    let e = [LO + 1, -100, 0, 40, HI - 1][(seed as usize + lsb as usize) % 5];
                    a.push(if seed.is_multiple_of(2) { x * pow2(e) } else { -x * pow2(e) });
                }
            }
        }
    }
    for e in [LO, -1, 0, HI - 1] {
        a.extend([(2.0 - pow2(-26)) * pow2(e), -(2.0 - pow2(-26)) * pow2(e)]);
    }
    let n = 1024;
    let a = a.iter().copied().cycle().take(n).collect();
    Input { logn: 10, polys: vec![a], scalars: vec![CORNER_CONSTANT], ..Input::default() }
}

fn generate_mulconst(case: u64, rng: &mut CaseRng) -> Input {
    if case == POLY_EDGE_CASES {
        return mulconst_corners();
    }
    let mut input = polys_case(case, rng, 1, LO);
    let edges = [1.0, -1.0, 0.0, -0.0, 1.0 / 12289.0, -1.0 / 12289.0, pow2(LO), pow2(HI)];
    input.scalars =
        vec![if case < POLY_EDGE_CASES { edges[case as usize % edges.len()] } else { random_in(rng, LO, HI) }];
    input
}

/// The last edge case of LDL: 1/g00 for g00 = 1 + 2^-52 rounds to 1 - 2^-52, the closest a reciprocal comes to a
/// carry.
fn ldl_corners() -> Input {
    let g00 = f64::from_bits(1f64.to_bits() + 1);
    Input { logn: 1, polys: vec![vec![g00, 0.0], vec![1.0, -1.0], vec![2.0, 0.0]], ..Input::default() }
}

/// A Gram matrix: g00 with a positive real half, g00 and g11 self-adjoint.
fn generate_ldl(case: u64, rng: &mut CaseRng) -> Input {
    if case == POLY_EDGE_CASES {
        return ldl_corners();
    }
    let mut input = polys_case(case, rng, 3, LO3);
    let hn = (1usize << input.logn) / 2;
    let g00 = &mut input.polys[0];
    for x in &mut g00[..hn] {
        *x = if *x == 0.0 { 1.0 } else { x.abs() };
    }
    g00[hn..].fill(0.0);
    input.polys[2][hn..].fill(0.0);
    input
}

fn generate_leaf_sigma(case: u64, rng: &mut CaseRng) -> Input {
    let scalars = match leaf_edges().get(case as usize) {
        Some(&(d, inv)) => vec![d, inv],
        None => vec![random_in(rng, LO, HI).abs(), INV_SIGMA[rng.gen_range(1..=10)]],
    };
    Input { scalars, ..Input::default() }
}

fn generate_sampler_centre(case: u64, rng: &mut CaseRng) -> Input {
    let scalars = match centre_edges().get(case as usize) {
        Some(&(mu, isigma, sigma_min)) => vec![mu, isigma, sigma_min],
        None => vec![random_mu(rng), rng.gen_range(0.5..1.0), SIGMA_MIN[rng.gen_range(1..=10)]],
    };
    Input { scalars, ..Input::default() }
}

fn generate_sampler_exponent(case: u64, rng: &mut CaseRng) -> Input {
    let (mu, isigma, z, z0) = match exponent_edges().get(case as usize) {
        Some(&e) => e,
        None => {
            let z0 = if rng.gen_range(0..8u32) == 0 { rng.gen_range(0..1 << 14) } else { rng.gen_range(0..=18) };
            let b: i32 = rng.gen_range(0..=1);
            (random_mu(rng), rng.gen_range(0.5..1.0), b + (2 * b - 1) * z0, z0)
        }
    };
    let centre = Reference.sampler_centre(mu, isigma, SIGMA_MIN[9]);
    Input { ints: vec![z, z0], centre: Some(centre), ..Input::default() }
}

/// mu of the sampler: mostly the magnitudes signing sees (below 2^20), sometimes anything up to 2^62.
fn random_mu(rng: &mut CaseRng) -> f64 {
    match rng.gen_range(0..4u32) {
        0 => random_in(rng, LO, 62),
        1 => f64::from(rng.gen_range(-4096..4096)) + [0.0, 0.5, 0.25, 0.75][rng.gen_range(0..4usize)],
        _ => random_in(rng, -8, 20),
    }
}

fn round_edges() -> Vec<f64> {
    let mut v = vec![
        0.0,
        -0.0,
        0.5,
        -0.5,
        1.5,
        -1.5,
        2.5,
        -2.5,
        0.49999999999999994,
        -0.49999999999999994,
        4503599627370495.5,
        -4503599627370495.5,
        4503599627370496.0,
        pow2(LO),
        -pow2(LO),
        pow2(62),
        -pow2(63),
        pow2(63),
        pow2(HI),
        -pow2(HI),
        f64::from_bits(0x43DF_FFFF_FFFF_FFFF),
        12288.5,
        -12288.5,
        12289.5,
    ];
    v.extend((0..16).map(|k| f64::from(k) - 7.5));
    v
}

/// (d, inv_sigma): zeros, ones, exact squares, the extremes of the range, with 1/sigma of logn 1, 9, 10.
fn leaf_edges() -> Vec<(f64, f64)> {
    let ds = [0.0, -0.0, 1.0, 2.0, 4.0, 0.5, 3.0, 12289.0 * 12289.0, pow2(LO), pow2(HI), 1.0 + f64::EPSILON];
    let mut edges: Vec<(f64, f64)> = ds.iter().flat_map(|&d| [1, 9, 10].map(|l| (d, INV_SIGMA[l]))).collect();
    // The corners: d = s^2 rounded (its square root is s again) for an s whose product with 1/sigma is a tie or
    // rounds up onto a power of two, and d = 4 - 2^-51, whose root rounds to 1 ulp below 2 (the closest a root
    // comes to a carry).
    for l in [1, 9, 10] {
        let inv = INV_SIGMA[l];
        let ties = [0, 1].map(|lsb| (0..8).find_map(|seed| corners::product_tie(inv, seed, lsb, 0)));
        let s = ties.into_iter().chain([corners::product_carry(inv)]).flatten();
        edges.extend(s.map(|s| (s * s, inv)));
    }
    edges.push((f64::from_bits(4f64.to_bits() - 1), INV_SIGMA[10]));
    edges
}

/// The hand-picked leaf cases and their corners ([`leaf_edges`]).
const LEAF_EDGE_CASES: u64 = 33 + LEAF_CORNERS;
const LEAF_CORNERS: u64 = 5;

/// (mu, isigma, sigma_min): integers, half-integers, one ulp beside them, signed zeros, tiny and huge mu, and an
/// isigma for which isigma * sigma_min rounds to 1 or above (the saturating fixed-point conversion).
fn centre_edges() -> Vec<(f64, f64, f64)> {
    let below_one = f64::from_bits(0x3FEF_FFFF_FFFF_FFFF);
    let mus = [
        0.0,
        -0.0,
        0.5,
        -0.5,
        1.0,
        -1.0,
        1.5,
        -1.5,
        below_one,
        -below_one,
        1.0 + f64::EPSILON,
        -1.0 - f64::EPSILON,
        pow2(LO),
        -pow2(LO),
        12289.5,
        -12289.5,
        2147483647.5,
        -2147483648.5,
        4503599627370495.5,
        -4503599627370495.5,
        4503599627370497.0,
        pow2(62),
        -pow2(62),
        f64::from_bits(0x43DF_FFFF_FFFF_FFFF),
        -f64::from_bits(0x43DF_FFFF_FFFF_FFFF),
    ];
    let sigmas = [
        (INV_SIGMA[9], SIGMA_MIN[9]),
        (INV_SIGMA[10] * 0.9, SIGMA_MIN[10]),
        (1.0 / SIGMA_MIN[10], SIGMA_MIN[10]),
        (f64::from_bits((1.0 / SIGMA_MIN[9]).to_bits() + 1), SIGMA_MIN[9]),
    ];
    mus.iter().flat_map(|&mu| sigmas.map(|(i, s)| (mu, i, s))).collect()
}

/// The Bernoulli exponent's edge cases: every candidate around five centres (380), then the corners where x / ln2
/// is an integer or one ulp from one (`crate::sampler_corners::sampler_exponent_corners`, checked against the list's length).
const EXPONENT_EDGE_CASES: u64 = 380 + 58;

static EXPONENT_EDGES: LazyLock<Vec<(f64, f64, i32, i32)>> = LazyLock::new(|| {
    let mut v = exponent_candidates();
    v.extend(crate::sampler_corners::sampler_exponent_corners(SIGMA_MIN[9]));
    v
});

fn exponent_edges() -> &'static [(f64, f64, i32, i32)] {
    &EXPONENT_EDGES
}

/// (mu, isigma, z, z0): every candidate of the base sampler (z0 in 0..=18, both signs) around a few centres.
fn exponent_candidates() -> Vec<(f64, f64, i32, i32)> {
    let mus = [0.0, 0.5, f64::from_bits(0x3FEF_FFFF_FFFF_FFFF), -0.25, pow2(LO)];
    let mut v = Vec::new();
    for mu in mus {
        for isigma in [0.55, 0.79] {
            for z0 in 0..=18 {
                for b in 0..=1 {
                    v.push((mu, isigma, b + (2 * b - 1) * z0, z0));
                }
            }
        }
    }
    v
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{Checked, case_rng, check_input_bounds, check_model};
    use pqhelium_guest::backend::{BackendKind, Call, Limits};

    /// The last edge case of add, sub and mulconst puts a rounding on a tie and on a carry into the next binade
    /// (distance 0), inside the contract's bounds.
    #[test]
    fn the_element_wise_kernels_edge_cases_reach_ties_and_carries() {
        for method in [Method::Add, Method::Sub, Method::MulConst] {
            for emu in [false, true] {
                let fpu = Fpu::new(row(method), emu);
                let ((), seen) = coverage::record(|| {
                    for case in 0..fpu.row.edge_cases {
                        let input = fpu.generate(case, &mut case_rng(1, case));
                        crate::Behaviour::evaluate(&fpu, &fpu.encode(&input)).unwrap();
                    }
                });
                let steps = fpu.coverage_steps();
                assert_eq!(steps.len(), 2);
                for step in steps {
                    assert_eq!(seen.get(step.name).map(|s| s.closest), Some(0), "{}", step.name);
                }
            }
        }
    }

    /// The composite kernels' edge cases put every rounding they declare on a tie and on a carry, or as close as
    /// the operation comes (a root: 0 against its nearest to a tie, 1 ulp below a power of two; a square and a
    /// reciprocal: 2 ulps below one; a quotient: 1 ulp from a tie).
    #[test]
    fn the_composite_kernels_edge_cases_reach_their_roundings_corners() {
        let closest = |name: &str| match name {
            "fndsa.fpu.mulownadj/mul.carry" | "fndsa.fpu.ldl/div.carry" => 2,
            "fndsa.fpu.ldl/div.tie" | "fndsa.fpu.leaf_sigma/sqrt.carry" => 1,
            _ => 0,
        };
        let composite = [Method::Mul, Method::MulAdj, Method::MulOwnAdj, Method::Ldl, Method::Merge, Method::LeafSigma];
        for method in composite {
            let fpu = Fpu::new(row(method), false);
            let ((), seen) = coverage::record(|| {
                for case in 0..fpu.row.edge_cases {
                    let input = fpu.generate(case, &mut case_rng(1, case));
                    crate::Behaviour::evaluate(&fpu, &fpu.encode(&input)).unwrap();
                }
            });
            let steps = fpu.coverage_steps();
            assert!(steps.len() >= 4, "{method:?}");
            for step in steps {
                assert_eq!(seen.get(step.name).map(|s| s.closest), Some(closest(step.name)), "{}", step.name);
            }
        }
    }

    /// Observing the model changes none of its results.
    #[test]
    fn observing_the_model_changes_nothing() {
        for method in [Method::Mul, Method::Ldl, Method::Split, Method::Merge, Method::LeafSigma] {
            let row = row(method);
            let mut observed = 0;
            for case in [15, 25, POLY_EDGE_CASES, 77] {
                let input = row.generate(case, &mut case_rng(3, case));
                let plain = row.run(&mut Reference, &input);
                let fpu = Fpu::new(row, false);
                let evaluate = || crate::Behaviour::evaluate(&fpu, &fpu.encode(&input)).unwrap().reference;
                let (seen, recorded) = coverage::record(evaluate);
                assert_eq!(seen, plain, "{method:?} {case}");
                observed += recorded.iter().count();
            }
            assert!(observed > 0, "{method:?}");
        }
    }

    #[test]
    fn args_and_input_of_are_inverse() {
        for row in ROWS {
            for emu in [false, true] {
                for case in [0, 13, row.edge_cases, row.edge_cases + 5] {
                    let input = row.generate(case, &mut case_rng(9, case));
                    assert_eq!(row.input_of(emu, &row.args(emu, &input)), input, "{}", row.id);
                }
            }
        }
    }

    #[test]
    fn edge_counts_match_the_edge_lists() {
        assert_eq!(row(Method::LeafSigma).edge_cases, leaf_edges().len() as u64);
        assert_eq!(row(Method::SamplerCentre).edge_cases, centre_edges().len() as u64);
        assert_eq!(row(Method::SamplerExponent).edge_cases, exponent_edges().len() as u64);
    }

    /// Every row registers its native and soft-float kernels, in row order, and serves a method no other row does.
    #[test]
    fn every_row_has_both_variants_in_order() {
        let registered = kernels();
        assert_eq!(registered.len(), 2 * ROWS.len());
        for (i, row) in ROWS.iter().enumerate() {
            assert_eq!(registered[2 * i].symbol, row.variant_symbol(false));
            assert_eq!(registered[2 * i + 1].symbol, row.variant_symbol(true));
            assert_eq!(registered[2 * i + 1].id, format!("{}.emu", registered[2 * i].id));
            for (kernel, emu) in [(&registered[2 * i], false), (&registered[2 * i + 1], true)] {
                let (found, variant) = row_of(kernel.id).expect("a row");
                assert!(std::ptr::eq(found, row) && variant == emu, "{}", kernel.id);
            }
        }
    }

    /// A kernel from one row and nothing else: a row serving `add` under a new id, on the family's add object code,
    /// is a kernel like the registered ones. Its cases keep their bounds, its coverage steps are named from its id and
    /// reached, what the object code must produce is a + b in plain f64, and the object code produces it (unicorn).
    #[test]
    fn one_row_is_a_kernel() {
        static SUM: Row = Row {
            method: Method::Add,
            id: "fndsa.fpu.test_sum",
            symbol: "fndsa_fpu_add",
            computes: "a += b",
            params: A_PLUS_B,
            requires: "",
            precondition: no_relation,
            edge_cases: POLY_EDGE_CASES + 1,
            generate: generate_add,
            run: |fpu, input| updated(input, |a, b| fpu.add(input.logn, a, b)),
            rounds: Rounds::Ieee {
                kinds: &[Kind::Add],
                notes: &[],
                elements: Some(|input, op| pairs(input).for_each(|(a, b)| op(fpu::Op::Add, a, b, a + b))),
            },
        };
        assert!(crate::find(SUM.id).is_none(), "the row is not in the registry");
        let double = |x: &[u8]| f64::from_bits(u64::from_le_bytes(x.try_into().unwrap()));
        let mut unicorn = BackendKind::Unicorn.open(Limits::default()).expect("unicorn starts");
        for emu in [false, true] {
            let kernel = SUM.kernel(emu);
            let names = if emu { ("fndsa.fpu.test_sum.emu", "fndsa_fpu_add_emu") } else { (SUM.id, SUM.symbol) };
            assert_eq!((kernel.id, kernel.symbol), names);
            assert_eq!(kernel.checked, Checked::TwoWay);
            let names: Vec<&str> = kernel.coverage_steps().iter().map(|s| s.name).collect();
            assert_eq!(names, ["fndsa.fpu.test_sum/add.tie", "fndsa.fpu.test_sum/add.carry"]);
            let ((), seen) = coverage::record(|| {
                for case in 0..SUM.edge_cases + 20 {
                    let args = kernel.generate(case, &mut case_rng(5, case));
                    assert_eq!(check_input_bounds(&kernel, &args), Ok(()), "case {case}");
                    let (expected, failure) = check_model(&kernel, &args);
                    assert!(failure.is_none(), "case {case}: {failure:?}");
                    assert_eq!(kernel.expected(&args), expected, "case {case}");
                    let [Arg::InOut(a), Arg::In(b), Arg::U32(logn)] = &args[..] else { panic!("a, b, logn") };
                    assert_eq!(a.len(), 8 << logn);
                    let sums = a
                        .chunks_exact(8)
                        .zip(b.chunks_exact(8))
                        .flat_map(|(x, y)| (double(x) + double(y)).to_bits().to_le_bytes());
                    assert_eq!(expected, Outcome { buffers: vec![sums.collect()], ret: None }, "case {case}");
                    let output = unicorn.call(&Call::new(kernel.symbol, args.clone())).expect("the call completes");
                    assert_eq!(kernel.outcome_of(&args, output), expected, "case {case} on unicorn");
                }
            });
            for name in names {
                assert_eq!(seen.get(name).map(|s| s.closest), Some(0), "{name}");
            }
        }
    }
}
