//! Contracts of the ML-KEM NTT kernels (`kernels/arm/mlkem_ntt/`), q = 3329, n = 256.
//!
//! The MVE kernels keep polynomials in the "MVE order" (a fixed permutation of the 256 coefficients, the same in
//! both domains) as signed 16-bit non-canonical representatives without any Montgomery factor; the scalar baselines
//! use the FIPS 203 order with the same representation. The canonicalisation un-permutes (written here bit by bit
//! from the definition, sharing nothing with the model's gather offsets) and reduces to 0..q-1; the reference is
//! `pqhelium_core::mlkem::Reference` (FIPS 203 Algorithms 9, 10, 11) on the canonical inputs in FIPS order.

use pqhelium_core::mlkem::{MlkemKernels, Reference};
use pqhelium_sim::mlkem_ntt as model;
use rand::RngCore;

use super::sample::{Bits16, Span16};
use super::{CaseRng, Images, KernelSpec, Outcome, Returns};
use crate::backend::Arg;

const N: usize = 256;
const BYTES: usize = 2 * N;
const Q: i32 = 3329;
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
#[cfg(test)]
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

fn buffer(arg: &Arg) -> &[u8] {
    match arg {
        Arg::In(b) | Arg::InOut(b) => b,
        other => panic!("expected an input buffer, got {other:?}"),
    }
}

fn arg_poly(args: &[Arg], i: usize) -> Poly {
    poly(buffer(&args[i]))
}

fn one(p: &Poly) -> Outcome {
    Outcome { buffers: vec![bytes(p)], ret: None }
}

/// The outcome of an in-place kernel on the polynomial in argument 0.
fn in_place(args: &[Arg], kernel: fn(&mut Poly)) -> Outcome {
    let mut p = arg_poly(args, 0);
    kernel(&mut p);
    one(&p)
}

/// Edge cases of a domain |x| <= max (max >= q): all zero, all q-1, all max, all -max, alternating max/-max,
/// alternating 0/q-1, a ramp through the domain, one coefficient at -max; then random cases: half uniform in
/// -max..=max, a quarter canonical 0..q-1, a quarter with edge values sprinkled.
const EDGE_CASES: u64 = 8;

/// Inputs of both base multiplications: edge cases pair edge polynomials (a with the one three further on), then two
/// independent random polynomials.
fn basemul_case(case: u64, rng: &mut CaseRng) -> Vec<Arg> {
    let a = poly_case(case, rng, BASEMUL_MAX);
    let b = if case < EDGE_CASES {
        poly_case((case + 3) % EDGE_CASES, rng, BASEMUL_MAX)
    } else {
        poly_case(case, rng, BASEMUL_MAX)
    };
    vec![Arg::Out(BYTES), Arg::In(bytes(&a)), Arg::In(bytes(&b))]
}

fn poly_case(case: u64, rng: &mut CaseRng, max: i16) -> Poly {
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
                    let edges = [0, 1, -1, q1, -q1, max, -max];
                    let which = Span16::new(0, edges.len() as i32 - 1);
                    let mut bits = Bits16::new(rng);
                    for x in &mut p {
                        *x = if bits.next() < SPRINKLE {
                            edges[which.sample(&mut bits) as usize]
                        } else {
                            domain.sample(&mut bits) as i16
                        };
                    }
                }
                _ => domain.fill(rng, &mut p),
            }
            p
        }
    }
}

/// A sprinkled case puts an edge value at a coefficient with probability 19661 / 2^16, about 0.3.
const SPRINKLE: u16 = 19661;

const FWD_MAX: i16 = model::FWD_IN_MAX as i16;
const INV_MAX: i16 = i16::MAX;
const BASEMUL_MAX: i16 = model::BASEMUL_IN_MAX as i16;

/// Inverse-NTT and from_mve inputs: any int16_t, so -32768 too.
fn any_case(case: u64, rng: &mut CaseRng) -> Poly {
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

fn canon_mve(o: &Outcome) -> Outcome {
    one(&canonical(&fips_of_mve(&poly(&o.buffers[0]))))
}

fn canon_fips(o: &Outcome) -> Outcome {
    one(&canonical(&poly(&o.buffers[0])))
}

pub(super) const KERNELS: &[KernelSpec] = &[
    KernelSpec {
        id: "mlkem.ntt.fwd",
        summary: "ML-KEM forward NTT (7 layers), MVE, in place, MVE order, Barrett with twisted twiddles",
        symbol: "mlkem_ntt_fwd_mve",
        images: Images::M55Only,
        signature: "void mlkem_ntt_fwd_mve(int16_t p[256])",
        precondition: "MVE order, |x| <= 8192",
        postcondition: "MVE order, |x| <= 23588, x = NTT(p) mod q (FIPS 203 Algorithm 9), no Montgomery factor",
        returns: Returns::Nothing,
        edge_cases: EDGE_CASES,
        generate: |case, rng| vec![Arg::InOut(bytes(&poly_case(case, rng, FWD_MAX)))],
        model: |args| in_place(args, model::ntt_fwd_mve),
        reference: |args| one(&reference_ntt(&fips_of_mve(&arg_poly(args, 0)))),
        canon: canon_mve,
    },
    KernelSpec {
        id: "mlkem.ntt.inv",
        summary: "ML-KEM inverse NTT (7 layers, times 128^-1), MVE, in place, MVE order",
        symbol: "mlkem_ntt_inv_mve",
        images: Images::M55Only,
        signature: "void mlkem_ntt_inv_mve(int16_t p[256])",
        precondition: "MVE order, any int16_t",
        postcondition: "MVE order, |x| <= 1907 (< q), x = NTT^-1(p) mod q (FIPS 203 Algorithm 10), no Montgomery factor",
        returns: Returns::Nothing,
        edge_cases: EDGE_CASES,
        generate: |case, rng| vec![Arg::InOut(bytes(&any_case(case, rng)))],
        model: |args| in_place(args, model::ntt_inv_mve),
        reference: |args| one(&reference_inv(&fips_of_mve(&arg_poly(args, 0)))),
        canon: canon_mve,
    },
    KernelSpec {
        id: "mlkem.basemul",
        summary: "ML-KEM NTT-domain product (128 products mod X^2 - gamma), MVE, MVE order",
        symbol: "mlkem_basemul_mve",
        images: Images::M55Only,
        signature: "void mlkem_basemul_mve(int16_t out[256], const int16_t a[256], const int16_t b[256])",
        precondition: "MVE order, |a|, |b| <= 32767",
        postcondition: "MVE order, |out| <= 2652 (< q), out = a * b in T_q (FIPS 203 Algorithm 11)",
        returns: Returns::Nothing,
        edge_cases: EDGE_CASES,
        generate: basemul_case,
        model: |args| one(&model::basemul_mve(&arg_poly(args, 1), &arg_poly(args, 2))),
        reference: |args| one(&reference_basemul(&fips_of_mve(&arg_poly(args, 1)), &fips_of_mve(&arg_poly(args, 2)))),
        canon: canon_mve,
    },
    KernelSpec {
        id: "mlkem.order.to_mve",
        summary: "FIPS 203 order -> MVE order (gathers), values unchanged",
        symbol: "mlkem_to_mve",
        images: Images::M55Only,
        signature: "void mlkem_to_mve(int16_t out[256], const int16_t in[256])",
        precondition: "FIPS order, any int16_t",
        postcondition: "out[s] = in[c(s)], c(s) the FIPS index of MVE storage index s",
        returns: Returns::Nothing,
        edge_cases: EDGE_CASES,
        generate: |case, rng| vec![Arg::Out(BYTES), Arg::In(bytes(&ramp_or_any(case, rng)))],
        model: |args| one(&model::to_mve(&arg_poly(args, 1))),
        reference: |args| one(&arg_poly(args, 1)),
        canon: |o| one(&fips_of_mve(&poly(&o.buffers[0]))),
    },
    KernelSpec {
        id: "mlkem.order.from_mve",
        summary: "MVE order -> FIPS 203 order (scatters), reduced to 0..q-1",
        symbol: "mlkem_from_mve",
        images: Images::M55Only,
        signature: "void mlkem_from_mve(int16_t out[256], const int16_t in[256])",
        precondition: "MVE order, any int16_t",
        postcondition: "FIPS order, out[c(s)] = in[s] mod q in 0..q-1",
        returns: Returns::Nothing,
        edge_cases: EDGE_CASES,
        generate: |case, rng| vec![Arg::Out(BYTES), Arg::In(bytes(&ramp_or_any(case, rng)))],
        model: |args| one(&model::from_mve(&arg_poly(args, 1))),
        reference: |args| one(&canonical(&fips_of_mve(&arg_poly(args, 1)))),
        canon: |o| o.clone(),
    },
    KernelSpec {
        id: "mlkem.ntt.fwd.scalar",
        summary: "ML-KEM forward NTT, portable C baseline, FIPS order, same arithmetic as mlkem.ntt.fwd",
        symbol: "mlkem_ntt_fwd_scalar",
        images: Images::Both,
        signature: "void mlkem_ntt_fwd_scalar(int16_t p[256])",
        precondition: "FIPS order, |x| <= 8192",
        postcondition: "FIPS order, |x| <= 23588, x = NTT(p) mod q",
        returns: Returns::Nothing,
        edge_cases: EDGE_CASES,
        generate: |case, rng| vec![Arg::InOut(bytes(&poly_case(case, rng, FWD_MAX)))],
        model: |args| in_place(args, model::ntt_fwd_scalar),
        reference: |args| one(&reference_ntt(&arg_poly(args, 0))),
        canon: canon_fips,
    },
    KernelSpec {
        id: "mlkem.ntt.inv.scalar",
        summary: "ML-KEM inverse NTT, portable C baseline, FIPS order, same arithmetic as mlkem.ntt.inv",
        symbol: "mlkem_ntt_inv_scalar",
        images: Images::Both,
        signature: "void mlkem_ntt_inv_scalar(int16_t p[256])",
        precondition: "FIPS order, any int16_t",
        postcondition: "FIPS order, |x| <= 1907, x = NTT^-1(p) mod q",
        returns: Returns::Nothing,
        edge_cases: EDGE_CASES,
        generate: |case, rng| vec![Arg::InOut(bytes(&any_case(case, rng)))],
        model: |args| in_place(args, model::ntt_inv_scalar),
        reference: |args| one(&reference_inv(&arg_poly(args, 0))),
        canon: canon_fips,
    },
    KernelSpec {
        id: "mlkem.basemul.scalar",
        summary: "ML-KEM NTT-domain product, portable C baseline, FIPS order",
        symbol: "mlkem_basemul_scalar",
        images: Images::Both,
        signature: "void mlkem_basemul_scalar(int16_t out[256], const int16_t a[256], const int16_t b[256])",
        precondition: "FIPS order, |a|, |b| <= 32767",
        postcondition: "FIPS order, |out| <= 2652, out = a * b in T_q",
        returns: Returns::Nothing,
        edge_cases: EDGE_CASES,
        generate: basemul_case,
        model: |args| one(&model::basemul_scalar(&arg_poly(args, 1), &arg_poly(args, 2))),
        reference: |args| one(&reference_basemul(&arg_poly(args, 1), &arg_poly(args, 2))),
        canon: canon_fips,
    },
];

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
