//! Contracts of the FN-DSA NTT kernels, q = 12289 (`kernels/arm/fndsa_ntt/`): forward NTT, inverse NTT (with the
//! scaling by 1/n) and pointwise product for n = 512 and 1024, in MVE (`fndsa_ntt.mve.c`, Cortex-M55 image) and as
//! portable C baselines (`fndsa_ntt_scalar.c`, ids `*.scalar`, both images).
//!
//! Reference: `pqhelium_core::fndsa::ntt::Reference` (FN-DSA v0.4), converted from and to plain residues in
//! `[0, q-1]`, in the reference order. Canonicalisation: each output lane to its residue in `[0, q-1]` and, for the MVE
//! forward kernels, from the transposed NTT storage order to the reference order. A lane outside the kernel's
//! postcondition becomes 0xFFFF, which no reference value equals, so the postcondition is checked on every case.
//! Every buffer is little-endian `int16_t` (outputs of the reference: `uint16_t` residues).

use pqhelium_core::fndsa::ntt::{NttKernels, Reference, ext_to_int, int_to_ext};
use pqhelium_sim::fndsa_ntt::{self as model, FWD_IN, INV_IN, PW_IN, ntt_slot, scalar};

use super::sample::Span16;
use super::{CaseRng, Images, KernelSpec, Outcome, Returns};
use crate::backend::Arg;

const Q: i32 = 12289;
/// Postconditions of the MVE kernels (proved by `sim/tests/fndsa_ntt_bounds.rs`).
pub const FWD_OUT: i32 = 32065;
pub const INV_OUT: i32 = 8067;
pub const PW_OUT: i32 = 9909;

/// Edge cases of each generator (see `coefficients`).
const EDGE_CASES: u64 = 10;

macro_rules! fwd {
    ($id:literal, $sym:literal, $logn:literal, $n:literal, mve) => {
        KernelSpec {
            id: $id,
            summary: concat!("forward NTT mod 12289, n = ", $n, ", MVE, 16-bit lanes, 3 layers per pass"),
            symbol: $sym,
            images: Images::M55Only,
            signature: concat!("void ", $sym, "(int16_t a[", $n, "])"),
            precondition: "any int16_t coefficients, natural order",
            postcondition: "a' = NTT(a) mod q, |a'[i]| <= FWD_OUT (32065), NTT order transposed in blocks of 64",
            returns: Returns::Nothing,
            edge_cases: EDGE_CASES,
            generate: |case, rng| vec![Arg::InOut(bytes(&coefficients(case, rng, $n, FWD_IN)))],
            model: |args| {
                let mut a = lanes(buffer(&args[0]));
                model::ntt_fwd($logn, &mut a);
                outcome(&a)
            },
            reference: |args| reference_fwd($logn, &lanes(buffer(&args[0]))),
            canon: |o| canon(o, FWD_OUT, true),
        }
    };
    ($id:literal, $sym:literal, $logn:literal, $n:literal, scalar) => {
        KernelSpec {
            id: $id,
            summary: concat!("forward NTT mod 12289, n = ", $n, ", portable C baseline"),
            symbol: $sym,
            images: Images::Both,
            signature: concat!("void ", $sym, "(int16_t a[", $n, "])"),
            precondition: "any int16_t coefficients, natural order",
            postcondition: "a' = NTT(a) in [0, q-1], reference NTT order",
            returns: Returns::Nothing,
            edge_cases: EDGE_CASES,
            generate: |case, rng| vec![Arg::InOut(bytes(&coefficients(case, rng, $n, FWD_IN)))],
            model: |args| {
                let mut a = lanes(buffer(&args[0]));
                scalar::ntt_fwd($logn, &mut a);
                outcome(&a)
            },
            reference: |args| reference_fwd($logn, &lanes(buffer(&args[0]))),
            canon: |o| canon(o, Q - 1, false),
        }
    };
}

macro_rules! inv {
    ($id:literal, $sym:literal, $logn:literal, $n:literal, mve) => {
        KernelSpec {
            id: $id,
            summary: concat!("inverse NTT mod 12289 with 1/n, n = ", $n, ", MVE, 16-bit lanes, 3 layers per pass"),
            symbol: $sym,
            images: Images::M55Only,
            signature: concat!("void ", $sym, "(int16_t a[", $n, "])"),
            precondition: "|a[i]| <= 16383, NTT order transposed in blocks of 64 (the forward kernel's output order)",
            postcondition: "a' = NTT^-1(a) mod q (1/n included), |a'[i]| <= INV_OUT (8067), natural order",
            returns: Returns::Nothing,
            edge_cases: EDGE_CASES,
            generate: |case, rng| vec![Arg::InOut(bytes(&coefficients(case, rng, $n, INV_IN)))],
            model: |args| {
                let mut a = lanes(buffer(&args[0]));
                model::ntt_inv($logn, &mut a);
                outcome(&a)
            },
            reference: |args| reference_inv($logn, &untranspose(&lanes(buffer(&args[0])))),
            canon: |o| canon(o, INV_OUT, false),
        }
    };
    ($id:literal, $sym:literal, $logn:literal, $n:literal, scalar) => {
        KernelSpec {
            id: $id,
            summary: concat!("inverse NTT mod 12289 with 1/n, n = ", $n, ", portable C baseline"),
            symbol: $sym,
            images: Images::Both,
            signature: concat!("void ", $sym, "(int16_t a[", $n, "])"),
            precondition: "any int16_t values, reference NTT order",
            postcondition: "a' = NTT^-1(a) in [0, q-1] (1/n included), natural order",
            returns: Returns::Nothing,
            edge_cases: EDGE_CASES,
            generate: |case, rng| vec![Arg::InOut(bytes(&coefficients(case, rng, $n, FWD_IN)))],
            model: |args| {
                let mut a = lanes(buffer(&args[0]));
                scalar::ntt_inv($logn, &mut a);
                outcome(&a)
            },
            reference: |args| reference_inv($logn, &lanes(buffer(&args[0]))),
            canon: |o| canon(o, Q - 1, false),
        }
    };
}

macro_rules! pointwise {
    ($id:literal, $sym:literal, $logn:literal, $n:literal, $images:expr, $bound:expr, $out:expr, $model:path) => {
        KernelSpec {
            id: $id,
            summary: concat!("pointwise product mod 12289 of two NTT-domain vectors, n = ", $n),
            symbol: $sym,
            images: $images,
            signature: concat!(
                "void ",
                $sym,
                "(int16_t r[",
                $n,
                "], const int16_t a[",
                $n,
                "], const int16_t b[",
                $n,
                "])"
            ),
            precondition: if $bound == FWD_IN {
                "any int16_t a, b (any order, the same for both)"
            } else {
                "a[i], b[i] in [-32767, 32767] (any order, the same for both)"
            },
            postcondition: if $bound == FWD_IN {
                "r[i] = a[i] b[i] mod q in [0, q-1] (no Montgomery factor)"
            } else {
                "r[i] = a[i] b[i] mod q (no Montgomery factor), |r[i]| <= PW_OUT (9909)"
            },
            returns: Returns::Nothing,
            edge_cases: EDGE_CASES,
            generate: |case, rng| {
                let a = coefficients(case, rng, $n, $bound);
                let b = if case < EDGE_CASES {
                    a.iter().rev().copied().collect()
                } else {
                    coefficients(case, rng, $n, $bound)
                };
                vec![Arg::Out(2 * $n), Arg::In(bytes(&a)), Arg::In(bytes(&b))]
            },
            model: |args| outcome(&$model(&lanes(buffer(&args[1])), &lanes(buffer(&args[2])))),
            reference: |args| reference_pointwise($logn, &lanes(buffer(&args[1])), &lanes(buffer(&args[2]))),
            canon: |o| canon(o, $out, false),
        }
    };
}

pub(super) const KERNELS: &[KernelSpec] = &[
    fwd!("fndsa.ntt512.fwd", "fndsa_ntt512_fwd", 9, 512, mve),
    fwd!("fndsa.ntt1024.fwd", "fndsa_ntt1024_fwd", 10, 1024, mve),
    inv!("fndsa.ntt512.inv", "fndsa_ntt512_inv", 9, 512, mve),
    inv!("fndsa.ntt1024.inv", "fndsa_ntt1024_inv", 10, 1024, mve),
    pointwise!(
        "fndsa.ntt512.pointwise",
        "fndsa_ntt512_pointwise",
        9,
        512,
        Images::M55Only,
        PW_IN,
        PW_OUT,
        model::pointwise
    ),
    pointwise!(
        "fndsa.ntt1024.pointwise",
        "fndsa_ntt1024_pointwise",
        10,
        1024,
        Images::M55Only,
        PW_IN,
        PW_OUT,
        model::pointwise
    ),
    fwd!("fndsa.ntt512.fwd.scalar", "fndsa_ntt512_fwd_scalar", 9, 512, scalar),
    fwd!("fndsa.ntt1024.fwd.scalar", "fndsa_ntt1024_fwd_scalar", 10, 1024, scalar),
    inv!("fndsa.ntt512.inv.scalar", "fndsa_ntt512_inv_scalar", 9, 512, scalar),
    inv!("fndsa.ntt1024.inv.scalar", "fndsa_ntt1024_inv_scalar", 10, 1024, scalar),
    pointwise!(
        "fndsa.ntt512.pointwise.scalar",
        "fndsa_ntt512_pointwise_scalar",
        9,
        512,
        Images::Both,
        FWD_IN,
        Q - 1,
        scalar::pointwise
    ),
    pointwise!(
        "fndsa.ntt1024.pointwise.scalar",
        "fndsa_ntt1024_pointwise_scalar",
        10,
        1024,
        Images::Both,
        FWD_IN,
        Q - 1,
        scalar::pointwise
    ),
];

fn buffer(arg: &Arg) -> &[u8] {
    match arg {
        Arg::In(b) | Arg::InOut(b) => b,
        other => panic!("expected an input buffer, got {other:?}"),
    }
}

fn lanes(bytes: &[u8]) -> Vec<i16> {
    let mut out = vec![0; bytes.len() / 2];
    for (x, le) in out.iter_mut().zip(bytes.chunks_exact(2)) {
        *x = i16::from_le_bytes([le[0], le[1]]);
    }
    out
}

fn bytes(lanes: &[i16]) -> Vec<u8> {
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
    Outcome { buffers: vec![values.iter().flat_map(|x| x.to_le_bytes()).collect()], ret: None }
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
fn untranspose(a: &[i16]) -> Vec<i16> {
    (0..a.len()).map(|slot| a[ntt_slot(slot)]).collect()
}

/// Residues in [0, q-1] (0xFFFF for a lane outside [-bound, bound], or below 0 when `bound` is q-1), in the
/// reference order.
fn canon(o: &Outcome, bound: i32, transposed: bool) -> Outcome {
    let mut v = lanes(&o.buffers[0]);
    if transposed {
        v = untranspose(&v);
    }
    let min = if bound == Q - 1 { 0 } else { -bound };
    let r: Vec<u16> = v
        .iter()
        .map(|&x| if (min..=bound).contains(&i32::from(x)) { i32::from(x).rem_euclid(Q) as u16 } else { u16::MAX })
        .collect();
    Outcome { buffers: vec![r.iter().flat_map(|x| x.to_le_bytes()).collect()], ret: o.ret }
}
