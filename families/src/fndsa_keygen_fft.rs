//! Contracts of the fixed-point FFT kernels of FN-DSA key generation (`kernels/arm/fndsa_keygen/`): the forward and
//! inverse FFT on 32.32 values, logn 1..=10, with MVE (`fft_q32.mve.c`, Cortex-M55 image, split 32-bit words on
//! 32-bit lanes) and as portable C baselines (`fft_q32_scalar.c`, ids `*.scalar`, both images).
//!
//! Checked three ways: the reference is `pqhelium_core::fndsa::keygen::fxp::Reference` (FN-DSA v0.4's fixed-point
//! FFT: 128-bit products floored, three-multiplication complex product, rounded halving in the inverse); the models
//! are `pqhelium_sim::fxp_fft` (the MVE kernel written with the MVE instruction model, and the baseline's 32x32-bit
//! partial products); the object code must equal the model byte for byte, and the model the reference (the layout
//! is the same, so the canonicalisation is the identity).
//!
//! Input bound: any `u64`. Additions wrap modulo 2^64 in the reference as in the kernels, and every product and
//! halving is exact before its floor (the carry argument is at the top of `fft_q32.mve.c`), so bit-exactness needs
//! no bound; the generators still include the values key generation feeds these kernels.

use std::sync::LazyLock;

use pqhelium_core::fndsa::keygen::fxp::{self, FxpKernels, Reference};
use pqhelium_sim::corner_search;
use pqhelium_sim::coverage::Step;
use pqhelium_sim::fxp_fft as model;
use rand::Rng;

use super::fndsa_fpu::LOGN;
use super::softfloat::words;
use super::{
    ArgSpec, Bound, CaseRng, Contract, Description, Elem, Images, Kernel, Len, Outcome, RunReference, Ways, u32_arg,
};
use pqhelium_guest::backend::Arg;

pub(super) fn kernels() -> Vec<Kernel> {
    use Build::*;
    let kernel = |id, symbol, inverse, build| Kernel::new(KeygenFft { id, symbol, inverse, build });
    vec![
        kernel("fndsa.keygen.fft", "fndsa_keygen_fft", false, Mve),
        kernel("fndsa.keygen.ifft", "fndsa_keygen_ifft", true, Mve),
        kernel("fndsa.keygen.fft.scalar", "fndsa_keygen_fft_scalar", false, Scalar),
        kernel("fndsa.keygen.ifft.scalar", "fndsa_keygen_ifft_scalar", true, Scalar),
    ]
}

/// The MVE kernels or the portable C baselines.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Build {
    Mve,
    Scalar,
}

struct KeygenFft {
    id: &'static str,
    symbol: &'static str,
    inverse: bool,
    build: Build,
}

/// The representation of the vectors: 32.32 fixed point, FFT form (real parts, then imaginary parts).
const REPR: &str = "fxr 32.32 (i64 / 2^32), re in [0, n/2), im in [n/2, n)";

/// Edge cases: each pattern of [`edge_vector`] at every logn 1..=10.
const EDGE_PATTERNS: u64 = 8;
const EDGE_CASES: u64 = EDGE_PATTERNS * 10;

impl Contract for KeygenFft {
    /// logn and the n values.
    type Input = (u32, Vec<u64>);

    fn describe(&self) -> Description {
        let n = Len::PowerOfTwo { param: "logn", halvings: 0 };
        let (name, computes) = if self.inverse {
            ("inverse FFT (with the 1/(n/2) scaling)", "f = fxp::Reference::ifft(logn, f), every bit")
        } else {
            ("FFT", "f = fxp::Reference::fft(logn, f), every bit")
        };
        let (images, build) = match self.build {
            Build::Mve => (Images::M55Only, "MVE, split 32-bit words on 32-bit lanes"),
            Build::Scalar => (Images::Both, "portable C baseline"),
        };
        Description {
            id: self.id,
            symbol: self.symbol,
            images,
            summary: format!("FN-DSA key generation fixed-point {name}, in place, n = 2^logn 32.32 values, {build}"),
            computes: computes.into(),
            requires: String::new(),
            edge_cases: self.edge_cases(),
            args: vec![
                // Bit-exact for every input: wrapping additions, exact products before each floor.
                ArgSpec::in_out("f", Elem::U64, n, Bound::Any, Bound::Any).repr(REPR).secret(),
                ArgSpec::scalar("logn", Elem::U32, LOGN).repr("log2 n"),
            ],
            returns: None,
            results: vec![],
        }
    }

    fn generate(&self, case: u64, rng: &mut CaseRng) -> (u32, Vec<u64>) {
        if case < EDGE_CASES {
            let logn = 1 + (case % 10) as u32;
            return (logn, edge_vector(case / 10, 1 << logn));
        }
        if case < self.edge_cases() {
            return self.corners()[(case - EDGE_CASES) as usize].clone();
        }
        let logn = if rng.r#gen() { rng.gen_range(9..=10) } else { rng.gen_range(1..=8) };
        (logn, random_vector(self.inverse, logn, rng))
    }

    fn encode(&self, (logn, f): &(u32, Vec<u64>)) -> Vec<Arg> {
        vec![Arg::InOut(f.iter().flat_map(|x| x.to_le_bytes()).collect()), Arg::U32(*logn)]
    }

    fn decode(&self, args: &[Arg]) -> (u32, Vec<u64>) {
        (u32_arg(&args[1]), words(&args[0]))
    }

    fn reference(&self, (logn, f): &(u32, Vec<u64>), _: RunReference) -> Outcome {
        let mut f = f.clone();
        if self.inverse {
            Reference.ifft(*logn, &mut f);
        } else {
            Reference.fft(*logn, &mut f);
        }
        outcome(&f)
    }

    fn ways(&self) -> Ways<Self> {
        Ways::Three { model: Self::model, canon: |_, o| o.clone() }
    }

    /// One set of steps for both builds (same arithmetic; the MVE kernels run the baseline below degree 16).
    fn coverage_steps(&self) -> Vec<Step> {
        if self.inverse { model::ifft_steps() } else { model::fft_steps() }
    }
}

/// Inverse-FFT inputs whose halvings reach both ends of their operands' reachable range in every layer of every
/// degree (`corner_search::keygen_ifft_halving_corners`): the inverse's corner cases.
static HALVING_CORNERS: LazyLock<Vec<(u32, Vec<u64>)>> = LazyLock::new(corner_search::keygen_ifft_halving_corners);

/// Forward-FFT inputs whose products drop the largest fraction each layer allows
/// (`corner_search::keygen_fft_fraction_corners`): the forward FFT's corner cases.
static FRACTION_CORNERS: LazyLock<Vec<(u32, Vec<u64>)>> = LazyLock::new(corner_search::keygen_fft_fraction_corners);

impl KeygenFft {
    /// The corner cases: halvings (inverse) or product floors (forward).
    fn corners(&self) -> &'static [(u32, Vec<u64>)] {
        if self.inverse { &HALVING_CORNERS } else { &FRACTION_CORNERS }
    }

    /// The edge patterns at every degree, then the corner cases.
    fn edge_cases(&self) -> u64 {
        EDGE_CASES + self.corners().len() as u64
    }

    fn model(&self, (logn, f): &(u32, Vec<u64>)) -> Outcome {
        let mut f = f.clone();
        match (self.build, self.inverse) {
            (Build::Mve, false) => model::fft(*logn, &mut f),
            (Build::Mve, true) => model::ifft(*logn, &mut f),
            (Build::Scalar, false) => model::scalar::fft(*logn, &mut f),
            (Build::Scalar, true) => model::scalar::ifft(*logn, &mut f),
        }
        outcome(&f)
    }
}

fn outcome(f: &[u64]) -> Outcome {
    Outcome { buffers: vec![f.iter().flat_map(|x| x.to_le_bytes()).collect()], ret: None }
}

/// Edge pattern `pattern` of length n: zeros; an impulse (1.0 at 0); all ones (-2^-32); i64::MIN; i64::MAX; those two
/// alternating; and two alternations of words that make the partial-product sums and the halving carry (low words
/// 0xFFFFFFFF, high words at their extremes).
fn edge_vector(pattern: u64, n: usize) -> Vec<u64> {
    let alternate = |a: u64, b: u64| (0..n).map(|i| if i % 2 == 0 { a } else { b }).collect();
    match pattern {
        0 => vec![0; n],
        1 => (0..n).map(|i| if i == 0 { fxp::ONE } else { 0 }).collect(),
        2 => vec![u64::MAX; n],
        3 => vec![i64::MIN as u64; n],
        4 => vec![i64::MAX as u64; n],
        5 => alternate(i64::MIN as u64, i64::MAX as u64),
        6 => alternate(0xFFFF_FFFF, i64::MAX as u64),
        _ => alternate(0x8000_0000_FFFF_FFFF, 0xFFFF_FFFF_8000_0000),
    }
}

/// Random vectors: any 64-bit values (a third of the cases), values with extreme words sprinkled in (a third), and
/// the values key generation feeds the kernel (a third): for the FFT, polynomials with small integer coefficients
/// (|x| <= 2^10, as f, g, F, G); for the inverse, the FFT of such a polynomial times another (products in FFT form,
/// as the NTRU solver and the Babai reduction invert).
fn random_vector(inverse: bool, logn: u32, rng: &mut CaseRng) -> Vec<u64> {
    let n = 1usize << logn;
    match rng.gen_range(0..3u32) {
        0 => (0..n).map(|_| rng.r#gen()).collect(),
        1 => {
            const WORDS: [u32; 5] = [0, 1, 0x7FFF_FFFF, 0x8000_0000, 0xFFFF_FFFF];
            let word = |rng: &mut CaseRng| if rng.gen_ratio(1, 2) { WORDS[rng.gen_range(0..5)] } else { rng.r#gen() };
            (0..n).map(|_| u64::from(word(rng)) | u64::from(word(rng)) << 32).collect()
        }
        _ => {
            let small = |rng: &mut CaseRng| -> Vec<u64> {
                (0..n).map(|_| fxp::from_i32(rng.gen_range(-1024..=1024))).collect()
            };
            let mut f = small(rng);
            if inverse {
                let mut g = small(rng);
                Reference.fft(logn, &mut f);
                Reference.fft(logn, &mut g);
                fxp::mul_fft(logn, &mut f, &g);
            }
            f
        }
    }
}
