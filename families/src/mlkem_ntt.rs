//! Contracts of the ML-KEM NTT kernels (`kernels/arm/mlkem_ntt/`), q = 3329, n = 256.
//!
//! The MVE kernels keep polynomials in the "MVE order" (a fixed permutation of the 256 coefficients, the same in
//! both domains) as signed 16-bit non-canonical representatives without any Montgomery factor; the scalar baselines
//! use the FIPS 203 order with the same representation. The canonicalisation un-permutes (written here bit by bit
//! from the definition, sharing nothing with the model's gather offsets) and reduces to 0..q-1; the reference is
//! `pqhelium_core::mlkem::Reference` (FIPS 203 Algorithms 9, 10, 11) on the canonical inputs in FIPS order. The
//! input and output bounds are the model's constants (`pqhelium_sim::mlkem_ntt`, proved by
//! `sim/tests/mlkem_ntt_bounds.rs`).

use pqhelium_core::mlkem::{MlkemKernels, Reference};
use pqhelium_sim::coverage::Step;
use pqhelium_sim::mlkem_ntt as model;
use rand::RngCore;

use super::sample::{Span16, sprinkle};
use super::{
    ArgSpec, Bound, CaseRng, Contract, Description, Elem, Images, Kernel, Len, Modulus, Outcome, RunReference, Ways,
    buffer,
};
use pqhelium_guest::backend::Arg;

const N: usize = model::N;
const BYTES: usize = 2 * N;
const Q: i32 = model::Q as i32;
type Poly = [i16; N];

/// Storage bit i of the MVE order holds coefficient bit `STORAGE_TO_COEFF_BIT[i]`.
const STORAGE_TO_COEFF_BIT: [usize; 8] = [1, 2, 0, 4, 5, 3, 6, 7];

/// The FIPS 203 index of the coefficient stored at index `s` of the MVE order, by definition.
fn coeff_at(s: usize) -> usize {
    (0..8).map(|i| ((s >> i) & 1) << STORAGE_TO_COEFF_BIT[i]).sum()
}

/// `coeff_at` of every storage index, computed once (campaigns un-permute twice per case).
static COEFF_AT: std::sync::LazyLock<[u8; N]> = std::sync::LazyLock::new(|| std::array::from_fn(|s| coeff_at(s) as u8));

/// MVE order -> FIPS order, values unchanged.
pub fn fips_of_mve(p: &Poly) -> Poly {
    let mut out = [0; N];
    for (&c, &x) in COEFF_AT.iter().zip(p) {
        out[usize::from(c)] = x;
    }
    out
}

/// FIPS order -> MVE order, values unchanged.
fn mve_of_fips(p: &Poly) -> Poly {
    std::array::from_fn(|s| p[coeff_at(s)])
}

pub fn poly(bytes: &[u8]) -> Poly {
    assert_eq!(bytes.len(), BYTES, "a polynomial is {BYTES} bytes");
    let mut p = [0; N];
    for (x, le) in p.iter_mut().zip(bytes.chunks_exact(2)) {
        *x = i16::from_le_bytes([le[0], le[1]]);
    }
    p
}

pub fn bytes(p: &Poly) -> Vec<u8> {
    // Through an array on the stack: the loop compiles to a straight copy, then one allocation of the right size.
    let mut le = [0u8; BYTES];
    for (pair, x) in le.chunks_exact_mut(2).zip(p) {
        pair.copy_from_slice(&x.to_le_bytes());
    }
    le.to_vec()
}

fn canonical(p: &Poly) -> Poly {
    p.map(|x| i32::from(x).rem_euclid(Q) as i16)
}

fn one(p: &Poly) -> Outcome {
    Outcome { buffers: vec![bytes(p)], ret: None }
}

/// Edge cases of a domain |x| <= max (max >= q): all zero, all q-1, all max, all -max, alternating max/-max,
/// alternating 0/q-1, a ramp through the domain, one coefficient at -max; then random cases: half uniform in
/// -max..=max, a quarter canonical 0..q-1, a quarter with edge values sprinkled.
const EDGE_CASES: u64 = 8;

/// Inputs of both base multiplications: edge cases pair edge polynomials (a with the one three further on), then two
/// independent random polynomials.
fn basemul_case(case: u64, rng: &mut CaseRng) -> Vec<Poly> {
    let a = poly_case(case, rng, BASEMUL_MAX);
    let b = if case < EDGE_CASES {
        poly_case((case + 3) % EDGE_CASES, rng, BASEMUL_MAX)
    } else {
        poly_case(case, rng, BASEMUL_MAX)
    };
    vec![a, b]
}

pub(super) fn poly_case(case: u64, rng: &mut CaseRng, max: i16) -> Poly {
    let q1 = (Q - 1) as i16;
    match case {
        0 => [0; N],
        1 => [q1; N],
        2 => [max; N],
        3 => [-max; N],
        4 => std::array::from_fn(|i| if i % 2 == 0 { max } else { -max }),
        5 => std::array::from_fn(|i| if i % 2 == 0 { 0 } else { q1 }),
        6 => std::array::from_fn(|i| (-i32::from(max) + (i as i32 * 2 * i32::from(max)) / 255) as i16),
        7 => std::array::from_fn(|i| if i == 17 { -max } else { 1 }),
        _ => {
            let mut p = [0; N];
            let domain = Span16::new(-i32::from(max), i32::from(max));
            match rng.next_u32() % 4 {
                0 => Span16::new(0, Q - 1).fill(rng, &mut p),
                1 => {
                    domain.fill(rng, &mut p);
                    sprinkle(rng, &mut p, &[0, 1, -1, q1, -q1, max, -max]);
                }
                _ => domain.fill(rng, &mut p),
            }
            p
        }
    }
}

const FWD_MAX: i16 = model::FWD_IN_MAX as i16;
const INV_MAX: i16 = i16::MAX;
const BASEMUL_MAX: i16 = model::BASEMUL_IN_MAX as i16;

/// Inverse-NTT and from_mve inputs: any int16_t, so -32768 too.
pub(super) fn any_case(case: u64, rng: &mut CaseRng) -> Poly {
    match case {
        3 => [i16::MIN; N],
        4 => std::array::from_fn(|i| if i % 2 == 0 { i16::MAX } else { i16::MIN }),
        _ => poly_case(case, rng, INV_MAX),
    }
}

fn reference_ntt(p: &Poly) -> Poly {
    let mut x = canonical(p);
    Reference.ntt(&mut x);
    x
}

fn reference_inv(p: &Poly) -> Poly {
    let mut x = canonical(p);
    Reference.inv_ntt(&mut x);
    x
}

fn reference_basemul(a: &Poly, b: &Poly) -> Poly {
    let mut out = [0; N];
    Reference.basemul(&mut out, &canonical(a), &canonical(b));
    out
}

const MVE_ORDER: &str = "mve-order";
const FIPS_ORDER: &str = "fips203";

pub(super) fn kernels() -> Vec<Kernel> {
    use Op::*;
    use Order::*;
    let kernel = |id, symbol, op, order| Kernel::new(MlkemNtt { id, symbol, op, order, scheduled_for: None });
    // The assembly kernels SLOTHY scheduled for each core (kernels/arm/mlkem_ntt/slothy/, docs/slothy.md).
    let scheduled =
        |id, symbol, op, core| Kernel::new(MlkemNtt { id, symbol, op, order: Mve, scheduled_for: Some(core) });
    vec![
        kernel("mlkem.ntt.fwd", "mlkem_ntt_fwd_mve", Forward, Mve),
        scheduled("mlkem.ntt.fwd.slothy_m55", "mlkem_ntt_fwd_slothy_m55", Forward, "Cortex-M55"),
        scheduled("mlkem.ntt.fwd.slothy_m85", "mlkem_ntt_fwd_slothy_m85", Forward, "Cortex-M85"),
        kernel("mlkem.ntt.inv", "mlkem_ntt_inv_mve", Inverse, Mve),
        scheduled("mlkem.ntt.inv.slothy_m55", "mlkem_ntt_inv_slothy_m55", Inverse, "Cortex-M55"),
        scheduled("mlkem.ntt.inv.slothy_m85", "mlkem_ntt_inv_slothy_m85", Inverse, "Cortex-M85"),
        kernel("mlkem.basemul", "mlkem_basemul_mve", Basemul, Mve),
        kernel("mlkem.order.to_mve", "mlkem_to_mve", ToMve, Mve),
        kernel("mlkem.order.from_mve", "mlkem_from_mve", FromMve, Mve),
        kernel("mlkem.ntt.fwd.scalar", "mlkem_ntt_fwd_scalar", Forward, Fips),
        kernel("mlkem.ntt.inv.scalar", "mlkem_ntt_inv_scalar", Inverse, Fips),
        kernel("mlkem.basemul.scalar", "mlkem_basemul_scalar", Basemul, Fips),
    ]
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Op {
    /// FIPS 203 Algorithm 9, in place.
    Forward,
    /// FIPS 203 Algorithm 10 (times 128^-1), in place.
    Inverse,
    /// FIPS 203 Algorithm 11: 128 products mod X^2 - gamma.
    Basemul,
    /// FIPS order -> MVE order (gathers), values unchanged.
    ToMve,
    /// MVE order -> FIPS order (scatters), reduced to 0..q-1.
    FromMve,
}

/// Where the kernel keeps the coefficients: the MVE kernels in the MVE order, the portable C baselines in FIPS order.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Order {
    Mve,
    Fips,
}

struct MlkemNtt {
    id: &'static str,
    symbol: &'static str,
    op: Op,
    order: Order,
    /// The core whose model SLOTHY scheduled this assembly kernel for; `None` for the C kernels.
    scheduled_for: Option<&'static str>,
}

impl Contract for MlkemNtt {
    /// One polynomial (two for the base multiplication), in the kernel's order.
    type Input = Vec<Poly>;

    fn describe(&self) -> Description {
        let order = match self.order {
            Order::Mve => MVE_ORDER,
            Order::Fips => FIPS_ORDER,
        };
        let poly = Len::Fixed(N);
        let (summary, computes, args) = match self.op {
            Op::Forward => (
                "ML-KEM forward NTT (7 layers), in place, Barrett with twisted twiddles",
                "p' = NTT(p) mod q (FIPS 203 Algorithm 9), no Montgomery factor",
                vec![ArgSpec::in_out("p", Elem::I16, poly, bound(FWD_MAX), Bound::magnitude(model::FWD_OUT_MAX))],
            ),
            Op::Inverse => (
                "ML-KEM inverse NTT (7 layers, times 128^-1), in place",
                "p' = NTT^-1(p) mod q (FIPS 203 Algorithm 10), no Montgomery factor",
                vec![ArgSpec::in_out("p", Elem::I16, poly, Bound::Any, Bound::magnitude(model::INV_OUT_MAX))],
            ),
            Op::Basemul => (
                "ML-KEM NTT-domain product (128 products mod X^2 - gamma)",
                "out = a * b in T_q (FIPS 203 Algorithm 11)",
                vec![
                    ArgSpec::output("out", Elem::I16, poly, Bound::magnitude(model::BASEMUL_OUT_MAX)),
                    ArgSpec::input("a", Elem::I16, poly, bound(BASEMUL_MAX)),
                    ArgSpec::input("b", Elem::I16, poly, bound(BASEMUL_MAX)),
                ],
            ),
            Op::ToMve => (
                "FIPS 203 order -> MVE order (gathers), values unchanged",
                "out[s] = in[c(s)], c(s) the FIPS index of MVE storage index s",
                vec![
                    ArgSpec::output("out", Elem::I16, poly, Bound::Any).repr(MVE_ORDER),
                    ArgSpec::input("in", Elem::I16, poly, Bound::Any).repr(FIPS_ORDER),
                ],
            ),
            Op::FromMve => (
                "MVE order -> FIPS 203 order (scatters), reduced to 0..q-1",
                "out[c(s)] = in[s] mod q, c(s) the FIPS index of MVE storage index s",
                vec![
                    ArgSpec::output("out", Elem::I16, poly, Bound::Canonical { q: Q as i64 }).repr(FIPS_ORDER),
                    ArgSpec::input("in", Elem::I16, poly, Bound::Any).repr(MVE_ORDER),
                ],
            ),
        };
        let build = match (self.order, self.op) {
            (_, Op::ToMve | Op::FromMve) => String::new(),
            (Order::Mve, _) => match self.scheduled_for {
                Some(core) => format!(", MVE assembly scheduled by SLOTHY for the {core}, MVE order"),
                None => ", MVE, MVE order".into(),
            },
            (Order::Fips, _) => ", portable C baseline, FIPS order".into(),
        };
        Description {
            id: self.id,
            symbol: self.symbol,
            images: if self.order == Order::Mve { Images::M55Only } else { Images::Both },
            summary: format!("{summary}{build}"),
            computes: computes.into(),
            requires: String::new(),
            edge_cases: EDGE_CASES + self.corners() as u64,
            // Every polynomial is secret (keys and noise go through the NTT), signed 16-bit, no Montgomery factor:
            // plain residues mod q, except to_mve's, which it moves unchanged.
            args: args
                .into_iter()
                .map(|a| if a.repr.is_empty() { a.repr(order) } else { a }.secret())
                .map(|a| if self.op == Op::ToMve { a } else { a.modulus(Modulus::plain(Q as i64)) })
                .collect(),
            returns: None,
            results: vec![],
        }
    }

    fn generate(&self, case: u64, rng: &mut CaseRng) -> Vec<Poly> {
        if let Some(corner) = case.checked_sub(EDGE_CASES).filter(|&c| c < self.corners() as u64) {
            return self.corner(corner as usize);
        }
        match self.op {
            Op::Forward => vec![poly_case(case, rng, FWD_MAX)],
            Op::Inverse => vec![any_case(case, rng)],
            Op::Basemul => basemul_case(case, rng),
            Op::ToMve | Op::FromMve => vec![ramp_or_any(case, rng)],
        }
    }

    fn encode(&self, polys: &Vec<Poly>) -> Vec<Arg> {
        match self.op {
            Op::Forward | Op::Inverse => vec![Arg::InOut(bytes(&polys[0]))],
            Op::Basemul => vec![Arg::Out(BYTES), Arg::In(bytes(&polys[0])), Arg::In(bytes(&polys[1]))],
            Op::ToMve | Op::FromMve => vec![Arg::Out(BYTES), Arg::In(bytes(&polys[0]))],
        }
    }

    fn decode(&self, args: &[Arg]) -> Vec<Poly> {
        args.iter().filter(|a| !matches!(a, Arg::Out(_))).map(|a| poly(buffer(a))).collect()
    }

    fn reference(&self, polys: &Vec<Poly>, _: RunReference) -> Outcome {
        let fips = |p: &Poly| if self.order == Order::Mve { fips_of_mve(p) } else { *p };
        one(&match self.op {
            Op::Forward => reference_ntt(&fips(&polys[0])),
            Op::Inverse => reference_inv(&fips(&polys[0])),
            Op::Basemul => reference_basemul(&fips(&polys[0]), &fips(&polys[1])),
            Op::ToMve => polys[0],
            Op::FromMve => canonical(&fips_of_mve(&polys[0])),
        })
    }

    fn ways(&self) -> Ways<Self> {
        Ways::Three { model: |ntt, polys| ntt.model(polys), canon: Self::canon }
    }

    fn coverage_steps(&self) -> Vec<Step> {
        let s = match self.order {
            Order::Mve => &model::MVE_STEPS,
            Order::Fips => &model::SCALAR_STEPS,
        };
        match self.op {
            Op::Forward => model::steps::fwd(s),
            Op::Inverse => model::steps::inv(s),
            Op::Basemul => model::steps::basemul(s),
            Op::FromMve => model::steps::from_mve(),
            Op::ToMve => vec![],
        }
    }
}

impl MlkemNtt {
    /// Corner cases, after the edge cases: inputs that drive every step to each end ([`model::corners`]).
    fn corners(&self) -> usize {
        match self.op {
            Op::Forward => model::corners::FWD_CASES,
            Op::Inverse => model::corners::INV_CASES,
            Op::Basemul => model::corners::BASEMUL_CASES,
            Op::ToMve | Op::FromMve => 0,
        }
    }

    /// Corner case `k`, in the kernel's order (the searches run in FIPS order).
    fn corner(&self, k: usize) -> Vec<Poly> {
        let order = |p: &Poly| if self.order == Order::Mve { mve_of_fips(p) } else { *p };
        match self.op {
            Op::Forward => vec![order(&model::corners::FWD[k])],
            Op::Inverse => vec![order(&model::corners::INV[k])],
            Op::Basemul => model::corners::BASEMUL[k].iter().map(order).collect(),
            Op::ToMve | Op::FromMve => unreachable!("no corner cases"),
        }
    }

    fn model(&self, polys: &[Poly]) -> Outcome {
        let in_place = |kernel: fn(&mut Poly)| {
            let mut p = polys[0];
            kernel(&mut p);
            p
        };
        one(&match (self.op, self.order) {
            (Op::Forward, Order::Mve) => in_place(model::ntt_fwd_mve),
            (Op::Forward, Order::Fips) => in_place(model::ntt_fwd_scalar),
            (Op::Inverse, Order::Mve) => in_place(model::ntt_inv_mve),
            (Op::Inverse, Order::Fips) => in_place(model::ntt_inv_scalar),
            (Op::Basemul, Order::Mve) => model::basemul_mve(&polys[0], &polys[1]),
            (Op::Basemul, Order::Fips) => model::basemul_scalar(&polys[0], &polys[1]),
            (Op::ToMve, _) => model::to_mve(&polys[0]),
            (Op::FromMve, _) => model::from_mve(&polys[0]),
        })
    }

    /// The kernel's outcome in FIPS order (un-permuted bit by bit from the definition), reduced to 0..q-1 where the
    /// reference reduces.
    fn canon(&self, o: &Outcome) -> Outcome {
        let p = poly(&o.buffers[0]);
        match (self.op, self.order) {
            (Op::ToMve, _) => one(&fips_of_mve(&p)),
            (Op::FromMve, _) => o.clone(),
            (_, Order::Mve) => one(&canonical(&fips_of_mve(&p))),
            (_, Order::Fips) => one(&canonical(&p)),
        }
    }
}

/// The input bound `|x| <= max`.
const fn bound(max: i16) -> Bound {
    Bound::magnitude(max as i64)
}

/// Permutation inputs: the ramp 0..255 (each value names its index) first, then the domain edges of any int16_t.
fn ramp_or_any(case: u64, rng: &mut CaseRng) -> Poly {
    if case == 6 { std::array::from_fn(|i| i as i16) } else { any_case(case, rng) }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn order_is_a_permutation_and_matches_the_model() {
        let ramp: Poly = std::array::from_fn(|i| i as i16);
        let mut seen = [false; N];
        for s in 0..N {
            seen[coeff_at(s)] = true;
            assert_eq!(coeff_at(s), model::mve_coeff(s));
        }
        assert!(seen.iter().all(|&b| b));
        assert_eq!(fips_of_mve(&mve_of_fips(&ramp)), ramp);
    }
}
