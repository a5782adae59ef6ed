//! Contracts of the FN-DSA NTT kernels, q = 12289 (`kernels/arm/fndsa_ntt/`): forward NTT, inverse NTT (with the
//! scaling by 1/n) and pointwise product for n = 512 and 1024, in MVE (`fndsa_ntt.mve.c`, Cortex-M55 image) and as
//! portable C baselines (`fndsa_ntt_scalar.c`, ids `*.scalar`, both images).
//!
//! Reference: `pqhelium_core::fndsa::ntt::Reference` (FN-DSA v0.4), converted from and to plain residues in
//! `[0, q-1]`, in the reference order. Canonicalisation: each output lane to its residue in `[0, q-1]` and, for the MVE
//! forward kernels, from the transposed NTT storage order to the reference order. The input and output bounds are the
//! model's constants (`pqhelium_sim::fndsa_ntt`, proved by `sim/tests/fndsa_ntt_bounds.rs`), checked by the engine on
//! every case. Every buffer is little-endian `int16_t` (outputs of
//! the reference: `uint16_t` residues).

use pqhelium_core::fndsa::ntt::{NttKernels, Reference, ext_to_int, int_to_ext};
use pqhelium_sim::coverage::Step;
use pqhelium_sim::fndsa_ntt::{
    self as model, FWD_IN, FWD_OUT_512, FWD_OUT_1024, INV_IN, INV_OUT, PW_IN, PW_OUT, ntt_slot, scalar,
};

use super::sample::Span16;
use super::{
    ArgSpec, Bound, CaseRng, Contract, Description, Elem, Images, Kernel, Len, Modulus, Outcome, RunReference, Ways,
    buffer, le_bytes,
};
use pqhelium_guest::backend::Arg;

const Q: i32 = model::Q as i32;

/// Edge cases of each generator (see `coefficients`).
const EDGE_CASES: u64 = 10;

/// The orders of the coefficient vectors.
const NATURAL: &str = "natural";
const MVE_NTT_ORDER: &str = "ntt-transposed-64";
const NTT_ORDER: &str = "fndsa-ntt";

pub(super) fn kernels() -> Vec<Kernel> {
    use Build::*;
    use Op::*;
    let kernel =
        |id, symbol, logn, op, build| Kernel::new(FndsaNtt { id, symbol, logn, op, build, scheduled_for: None });
    // The forward NTTs in assembly SLOTHY scheduled for each core (kernels/arm/fndsa_ntt/slothy/, docs/slothy.md).
    let scheduled = |id, symbol, logn, core| {
        Kernel::new(FndsaNtt { id, symbol, logn, op: Forward, build: Mve, scheduled_for: Some(core) })
    };
    vec![
        kernel("fndsa.ntt512.fwd", "fndsa_ntt512_fwd", 9, Forward, Mve),
        scheduled("fndsa.ntt512.fwd.slothy_m55", "fndsa_ntt512_fwd_slothy_m55", 9, "Cortex-M55"),
        scheduled("fndsa.ntt512.fwd.slothy_m85", "fndsa_ntt512_fwd_slothy_m85", 9, "Cortex-M85"),
        kernel("fndsa.ntt1024.fwd", "fndsa_ntt1024_fwd", 10, Forward, Mve),
        scheduled("fndsa.ntt1024.fwd.slothy_m55", "fndsa_ntt1024_fwd_slothy_m55", 10, "Cortex-M55"),
        scheduled("fndsa.ntt1024.fwd.slothy_m85", "fndsa_ntt1024_fwd_slothy_m85", 10, "Cortex-M85"),
        kernel("fndsa.ntt512.inv", "fndsa_ntt512_inv", 9, Inverse, Mve),
        kernel("fndsa.ntt1024.inv", "fndsa_ntt1024_inv", 10, Inverse, Mve),
        kernel("fndsa.ntt512.pointwise", "fndsa_ntt512_pointwise", 9, Pointwise, Mve),
        kernel("fndsa.ntt1024.pointwise", "fndsa_ntt1024_pointwise", 10, Pointwise, Mve),
        kernel("fndsa.ntt512.fwd.scalar", "fndsa_ntt512_fwd_scalar", 9, Forward, Scalar),
        kernel("fndsa.ntt1024.fwd.scalar", "fndsa_ntt1024_fwd_scalar", 10, Forward, Scalar),
        kernel("fndsa.ntt512.inv.scalar", "fndsa_ntt512_inv_scalar", 9, Inverse, Scalar),
        kernel("fndsa.ntt1024.inv.scalar", "fndsa_ntt1024_inv_scalar", 10, Inverse, Scalar),
        kernel("fndsa.ntt512.pointwise.scalar", "fndsa_ntt512_pointwise_scalar", 9, Pointwise, Scalar),
        kernel("fndsa.ntt1024.pointwise.scalar", "fndsa_ntt1024_pointwise_scalar", 10, Pointwise, Scalar),
    ]
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Op {
    Forward,
    /// With the scaling by 1/n.
    Inverse,
    Pointwise,
}

/// The MVE kernels (16-bit lanes, 3 layers per pass, lazy reductions) or the portable C baselines (canonical
/// outputs, the reference's NTT order).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Build {
    Mve,
    Scalar,
}

struct FndsaNtt {
    id: &'static str,
    symbol: &'static str,
    logn: u32,
    op: Op,
    build: Build,
    /// The core whose model SLOTHY scheduled this assembly kernel for; `None` for the C kernels.
    scheduled_for: Option<&'static str>,
}

impl FndsaNtt {
    fn n(&self) -> usize {
        1 << self.logn
    }

    /// The MVE forward kernel's proved output bound (`sim/tests/fndsa_ntt_bounds.rs`).
    fn forward_bound(&self) -> i32 {
        if self.logn == 9 { FWD_OUT_512 } else { FWD_OUT_1024 }
    }

    /// The input bound of the generated coefficients: `|x| <= bound` (32768: any int16_t).
    fn input_bound(&self) -> i32 {
        match (self.op, self.build) {
            (Op::Inverse, Build::Mve) => INV_IN,
            (Op::Pointwise, Build::Mve) => PW_IN,
            _ => FWD_IN,
        }
    }
}

impl Contract for FndsaNtt {
    /// One coefficient vector (two for the pointwise product).
    type Input = Vec<Vec<i16>>;

    fn describe(&self) -> Description {
        let n = self.n();
        let len = Len::Fixed(n);
        let input = match self.input_bound() {
            FWD_IN => Bound::Any,
            max => Bound::magnitude(i64::from(max)),
        };
        let output = |max: i32| match self.build {
            Build::Mve => Bound::magnitude(i64::from(max)),
            Build::Scalar => Bound::Canonical { q: i64::from(Q) },
        };
        let (ntt_order, build) = match (self.build, self.scheduled_for) {
            (Build::Mve, None) => (MVE_NTT_ORDER, "MVE, 16-bit lanes, 3 layers per pass".into()),
            (Build::Mve, Some(core)) => {
                (MVE_NTT_ORDER, format!("MVE assembly scheduled by SLOTHY for the {core}, 16-bit lanes"))
            }
            (Build::Scalar, _) => (NTT_ORDER, "portable C baseline".into()),
        };
        let (what, computes, args) = match self.op {
            Op::Forward => (
                "forward NTT",
                "a' = NTT(a) mod q",
                vec![ArgSpec::in_out("a", Elem::I16, len, input, output(self.forward_bound())).repr(NATURAL)],
            ),
            Op::Inverse => (
                "inverse NTT with 1/n",
                "a' = NTT^-1(a) mod q (1/n included)",
                vec![ArgSpec::in_out("a", Elem::I16, len, input, output(INV_OUT)).repr(ntt_order)],
            ),
            Op::Pointwise => (
                "pointwise product of two NTT-domain vectors",
                "r[i] = a[i] b[i] mod q (no Montgomery factor); any order, the same for a, b and r",
                vec![
                    ArgSpec::output("r", Elem::I16, len, output(PW_OUT)).repr(ntt_order),
                    ArgSpec::input("a", Elem::I16, len, input).repr(ntt_order),
                    ArgSpec::input("b", Elem::I16, len, input).repr(ntt_order),
                ],
            ),
        };
        let orders = match self.op {
            Op::Forward => format!(", {NATURAL} order in, {ntt_order} order out"),
            Op::Inverse => format!(", {ntt_order} order in, {NATURAL} order out"),
            Op::Pointwise => String::new(),
        };
        Description {
            id: self.id,
            symbol: self.symbol,
            images: if self.build == Build::Mve { Images::M55Only } else { Images::Both },
            summary: format!("{what} mod 12289, n = {n}, {build}"),
            computes: format!("{computes}{orders}"),
            requires: String::new(),
            edge_cases: EDGE_CASES + self.corners() as u64,
            // Coefficients of keys in key generation: secret. Every vector holds plain residues mod q.
            args: args.into_iter().map(|a| a.modulus(Modulus::plain(i64::from(Q))).secret()).collect(),
            returns: None,
            results: vec![],
        }
    }

    fn generate(&self, case: u64, rng: &mut CaseRng) -> Vec<Vec<i16>> {
        if let Some(c) = case.checked_sub(EDGE_CASES).filter(|&c| c < self.corners() as u64) {
            if self.op == Op::Pointwise {
                return model::pointwise_steps::corner(c as usize, self.n()).into();
            }
            return vec![model::steps::corners(self.logn, self.op == Op::Forward)[c as usize].clone()];
        }
        let (n, bound) = (self.n(), self.input_bound());
        let a = coefficients(case, rng, n, bound);
        if self.op != Op::Pointwise {
            return vec![a];
        }
        let b = if case < EDGE_CASES { a.iter().rev().copied().collect() } else { coefficients(case, rng, n, bound) };
        vec![a, b]
    }

    fn encode(&self, vectors: &Vec<Vec<i16>>) -> Vec<Arg> {
        match self.op {
            Op::Forward | Op::Inverse => vec![Arg::InOut(bytes(&vectors[0]))],
            Op::Pointwise => vec![Arg::Out(2 * self.n()), Arg::In(bytes(&vectors[0])), Arg::In(bytes(&vectors[1]))],
        }
    }

    fn decode(&self, args: &[Arg]) -> Vec<Vec<i16>> {
        args.iter().filter(|a| !matches!(a, Arg::Out(_))).map(|a| lanes(buffer(a))).collect()
    }

    fn reference(&self, vectors: &Vec<Vec<i16>>, _: RunReference) -> Outcome {
        let a = &vectors[0];
        match self.op {
            Op::Forward => reference_fwd(self.logn, a),
            // The MVE inverse reads the forward kernel's transposed order.
            Op::Inverse if self.build == Build::Mve => reference_inv(self.logn, &untranspose(a)),
            Op::Inverse => reference_inv(self.logn, a),
            Op::Pointwise => reference_pointwise(self.logn, a, &vectors[1]),
        }
    }

    fn ways(&self) -> Ways<Self> {
        Ways::Three { model: |ntt, vectors| ntt.model(vectors), canon: Self::canon }
    }

    fn coverage_steps(&self) -> Vec<Step> {
        match (self.op, self.build) {
            (Op::Forward, Build::Mve) => model::steps::fwd(self.logn),
            (Op::Inverse, Build::Mve) => model::steps::inv(self.logn),
            (Op::Pointwise, build) => model::pointwise_steps::steps(self.logn, build == Build::Mve),
            _ => vec![],
        }
    }
}

impl FndsaNtt {
    /// Corner cases after the edge cases (the MVE kernels; the baselines' steps reach their ends in the edge cases):
    /// inputs that drive each step to each end.
    fn corners(&self) -> usize {
        match (self.op, self.build) {
            (Op::Forward | Op::Inverse, Build::Mve) => model::steps::corner_cases(self.logn, self.op == Op::Forward),
            (Op::Pointwise, Build::Mve) => model::pointwise_steps::CORNER_CASES,
            _ => 0,
        }
    }

    fn model(&self, vectors: &[Vec<i16>]) -> Outcome {
        let mut a = vectors[0].clone();
        match (self.op, self.build) {
            (Op::Forward, Build::Mve) => model::ntt_fwd(self.logn, &mut a),
            (Op::Forward, Build::Scalar) => scalar::ntt_fwd(self.logn, &mut a),
            (Op::Inverse, Build::Mve) => model::ntt_inv(self.logn, &mut a),
            (Op::Inverse, Build::Scalar) => scalar::ntt_inv(self.logn, &mut a),
            (Op::Pointwise, Build::Mve) => a = model::pointwise(&a, &vectors[1]),
            (Op::Pointwise, Build::Scalar) => a = scalar::pointwise(&a, &vectors[1]),
        }
        outcome(&a)
    }

    /// Residues in [0, q-1], in the reference order (the MVE forward kernels' output untransposed). The output
    /// bounds are the contract's, checked on every case by the engine.
    fn canon(&self, o: &Outcome) -> Outcome {
        let mut v = lanes(&o.buffers[0]);
        if (self.op, self.build) == (Op::Forward, Build::Mve) {
            v = untranspose(&v);
        }
        let r: Vec<u16> = v.iter().map(|&x| i32::from(x).rem_euclid(Q) as u16).collect();
        residues(&r)
    }
}

fn lanes(bytes: &[u8]) -> Vec<i16> {
    let mut out = vec![0; bytes.len() / 2];
    for (x, le) in out.iter_mut().zip(bytes.chunks_exact(2)) {
        *x = i16::from_le_bytes([le[0], le[1]]);
    }
    out
}

pub fn bytes(lanes: &[i16]) -> Vec<u8> {
    let mut out = vec![0; 2 * lanes.len()];
    for (le, x) in out.chunks_exact_mut(2).zip(lanes) {
        le.copy_from_slice(&x.to_le_bytes());
    }
    out
}

fn outcome(lanes: &[i16]) -> Outcome {
    Outcome { buffers: vec![bytes(lanes)], ret: None }
}

fn residues(values: &[u16]) -> Outcome {
    Outcome { buffers: vec![le_bytes(values, u16::to_le_bytes)], ret: None }
}

/// Coefficients with |x| <= bound (bound 32768: any int16_t). Edge cases: zero, q-1, the bound, minus the bound,
/// alternating signs at the bound, q, -q (clamped to the bound), alternating q-1 and -(q-1), a single 1, a ramp.
fn coefficients(case: u64, rng: &mut CaseRng, n: usize, bound: i32) -> Vec<i16> {
    let hi = bound.min(32767);
    let lo = -bound;
    let clamp = |x: i32| x.clamp(lo, hi) as i16;
    match case {
        0 => vec![0; n],
        1 => vec![clamp(Q - 1); n],
        2 => vec![clamp(hi); n],
        3 => vec![clamp(lo); n],
        4 => (0..n).map(|i| if i & 1 == 0 { clamp(hi) } else { clamp(lo) }).collect(),
        5 => vec![clamp(Q); n],
        6 => vec![clamp(-Q); n],
        7 => (0..n).map(|i| if i & 1 == 0 { clamp(Q - 1) } else { clamp(1 - Q) }).collect(),
        8 => (0..n).map(|i| i16::from(i == 0)).collect(),
        9 => (0..n).map(|i| clamp(lo + (i as i32 * 131) % (hi - lo + 1))).collect(),
        _ => {
            let span = if case & 1 == 0 { Span16::new(lo, hi) } else { Span16::new(-Q.min(hi), Q.min(hi)) };
            let mut a = vec![0; n];
            span.fill(rng, &mut a);
            a
        }
    }
}

fn to_internal(a: &[i16]) -> Vec<u16> {
    let mut v: Vec<u16> = a.iter().map(|&x| i32::from(x).rem_euclid(Q) as u16).collect();
    ext_to_int(&mut v);
    v
}

fn reference_fwd(logn: u32, a: &[i16]) -> Outcome {
    let mut v = to_internal(a);
    Reference.ntt(logn, &mut v);
    int_to_ext(&mut v);
    residues(&v)
}

fn reference_inv(logn: u32, a: &[i16]) -> Outcome {
    let mut v = to_internal(a);
    Reference.intt(logn, &mut v);
    int_to_ext(&mut v);
    residues(&v)
}

fn reference_pointwise(logn: u32, a: &[i16], b: &[i16]) -> Outcome {
    let mut x = to_internal(a);
    Reference.mul(logn, &mut x, &to_internal(b));
    int_to_ext(&mut x);
    residues(&x)
}

/// From the MVE kernels' NTT storage order to the reference order.
pub fn untranspose(a: &[i16]) -> Vec<i16> {
    (0..a.len()).map(|slot| a[ntt_slot(slot)]).collect()
}
