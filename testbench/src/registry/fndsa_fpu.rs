//! Contracts of the FN-DSA signing FP64 kernels other than the (i)FFT (`kernels/arm/fndsa_fpu/{poly,ldl,sampler_fp}.c`,
//! native FP64, ids `fndsa.fpu.<kernel>`; `*_emu.c`, the same on our soft-float, ids `fndsa.fpu.<kernel>.emu`), one per
//! method of `pqhelium_core::fndsa::fpu::FpuKernels`. Contract in `kernels/arm/fndsa_fpu/fndsa_sign_kernels.h`.
//!
//! Model and reference: `fpu::Reference`, the fn-dsa 0.4.0 order of operations in Rust f64 (the kernels must match it
//! bit for bit; a different order of the same mathematics would not). Kernel-level mathematical checks (split then
//! merge is the identity up to rounding, the LDL factors rebuild the Gram matrix, floor and the Bernoulli exponent
//! satisfy their definitions) are in `testbench/tests/fndsa_fpu.rs`.
//!
//! Every case is one call: the degree as an argument (logn 1..=10 for the polynomial kernels), edge cases first
//! (signed zeros, ones, the extremes 2^-476 and 2^79 of the signing range, half-integers), then random values with
//! random exponents. Kernels with a product of three factors (LDL, the sampler exponent) draw from a narrower
//! exponent range so that every intermediate stays normal: the soft-float's domain (no subnormals), which is also
//! signing's.
//!
//! [`args`] and [`run`] are shared with the kernels-in-the-loop provider (`crate::fpu_provider`): the registry and the
//! provider encode a call the same way.

use pqhelium_core::fndsa::fpu::{BerExponent, FpuKernels, Reference, SamplerCentre};
use pqhelium_core::fndsa::sampler::{INV_SIGMA, SIGMA_MIN};
use rand::Rng;

use super::{CaseRng, Images, KernelSpec, Outcome, Returns};
use crate::backend::Arg;

/// The kernels, one per `FpuKernels` method except `fft` and `ifft` (registered with the soft-float).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kernel {
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

impl Kernel {
    pub const ALL: [Kernel; 16] = [
        Kernel::SetSmall,
        Kernel::Round,
        Kernel::Add,
        Kernel::Sub,
        Kernel::Neg,
        Kernel::MulConst,
        Kernel::Mul,
        Kernel::MulAdj,
        Kernel::MulOwnAdj,
        Kernel::Ldl,
        Kernel::Split,
        Kernel::SplitSelfadj,
        Kernel::Merge,
        Kernel::LeafSigma,
        Kernel::SamplerCentre,
        Kernel::SamplerExponent,
    ];

    /// The guest symbol of the native (`emu == false`) or soft-float variant.
    pub const fn symbol(self, emu: bool) -> &'static str {
        let (native, soft) = match self {
            Kernel::SetSmall => ("fndsa_fpu_set_small", "fndsa_fpu_set_small_emu"),
            Kernel::Round => ("fndsa_fpu_round", "fndsa_fpu_round_emu"),
            Kernel::Add => ("fndsa_fpu_add", "fndsa_fpu_add_emu"),
            Kernel::Sub => ("fndsa_fpu_sub", "fndsa_fpu_sub_emu"),
            Kernel::Neg => ("fndsa_fpu_neg", "fndsa_fpu_neg_emu"),
            Kernel::MulConst => ("fndsa_fpu_mulconst", "fndsa_fpu_mulconst_emu"),
            Kernel::Mul => ("fndsa_fpu_mul_fft", "fndsa_fpu_mul_fft_emu"),
            Kernel::MulAdj => ("fndsa_fpu_muladj_fft", "fndsa_fpu_muladj_fft_emu"),
            Kernel::MulOwnAdj => ("fndsa_fpu_mulownadj_fft", "fndsa_fpu_mulownadj_fft_emu"),
            Kernel::Ldl => ("fndsa_fpu_ldl_fft", "fndsa_fpu_ldl_fft_emu"),
            Kernel::Split => ("fndsa_fpu_split_fft", "fndsa_fpu_split_fft_emu"),
            Kernel::SplitSelfadj => ("fndsa_fpu_split_selfadj_fft", "fndsa_fpu_split_selfadj_fft_emu"),
            Kernel::Merge => ("fndsa_fpu_merge_fft", "fndsa_fpu_merge_fft_emu"),
            Kernel::LeafSigma => ("fndsa_fpu_leaf_sigma", "fndsa_fpu_leaf_sigma_emu"),
            Kernel::SamplerCentre => ("fndsa_fpu_sampler_centre", "fndsa_fpu_sampler_centre_emu"),
            Kernel::SamplerExponent => ("fndsa_fpu_sampler_exponent", "fndsa_fpu_sampler_exponent_emu"),
        };
        if emu { soft } else { native }
    }

    /// Cases `0..edge_cases()` are the edge cases.
    pub const fn edge_cases(self) -> u64 {
        match self {
            Kernel::LeafSigma => 33,
            Kernel::SamplerCentre => 100,
            Kernel::SamplerExponent => 380,
            _ => POLY_EDGE_CASES,
        }
    }
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

/// The AAPCS arguments of a call of `kernel` (native or `.emu`) on `input`.
pub fn args(kernel: Kernel, emu: bool, input: &Input) -> Vec<Arg> {
    let logn = Arg::U32(input.logn);
    let n = 1usize << input.logn;
    let p = |i: usize| f64_bytes(&input.polys[i]);
    let scalars = || -> Vec<Arg> {
        if emu {
            vec![Arg::In(f64_bytes(&input.scalars))]
        } else {
            input.scalars.iter().map(|&x| Arg::F64(x)).collect()
        }
    };
    match kernel {
        Kernel::SetSmall => {
            vec![Arg::Out(8 * n), Arg::In(input.ints.iter().flat_map(|x| x.to_le_bytes()).collect()), logn]
        }
        Kernel::Round => vec![Arg::Out(8 * n), Arg::In(p(0)), logn],
        Kernel::Add | Kernel::Sub | Kernel::Mul | Kernel::MulAdj => vec![Arg::InOut(p(0)), Arg::In(p(1)), logn],
        Kernel::Neg | Kernel::MulOwnAdj => vec![Arg::InOut(p(0)), logn],
        Kernel::MulConst => {
            let c = input.scalars[0];
            if emu {
                let bits = c.to_bits();
                vec![Arg::InOut(p(0)), logn, Arg::U32(bits as u32), Arg::U32((bits >> 32) as u32)]
            } else {
                vec![Arg::InOut(p(0)), logn, Arg::F64(c)]
            }
        }
        Kernel::Ldl => vec![Arg::In(p(0)), Arg::InOut(p(1)), Arg::InOut(p(2)), logn],
        Kernel::Split | Kernel::SplitSelfadj => vec![Arg::Out(4 * n), Arg::Out(4 * n), Arg::In(p(0)), logn],
        Kernel::Merge => vec![Arg::Out(8 * n), Arg::In(p(0)), Arg::In(p(1)), logn],
        Kernel::LeafSigma => [vec![Arg::Out(8)], scalars()].concat(),
        Kernel::SamplerCentre => [vec![Arg::Out(32)], scalars()].concat(),
        Kernel::SamplerExponent => vec![
            Arg::Out(16),
            Arg::In(centre_bytes(input.centre.as_ref().expect("a centre"))),
            Arg::U32(input.ints[0] as u32),
            Arg::U32(input.ints[1] as u32),
        ],
    }
}

fn buffer(arg: &Arg) -> &[u8] {
    match arg {
        Arg::In(b) | Arg::InOut(b) => b,
        other => panic!("expected an input buffer, got {other:?}"),
    }
}

fn u32_arg(arg: &Arg) -> u32 {
    match arg {
        Arg::U32(v) => *v,
        other => panic!("expected a u32, got {other:?}"),
    }
}

/// The inverse of [`args`].
pub fn input_of(kernel: Kernel, emu: bool, args: &[Arg]) -> Input {
    let logn_at = |i: usize| u32_arg(&args[i]);
    let poly = |i: usize| bytes_f64(buffer(&args[i]));
    let scalars = |from: usize| -> Vec<f64> {
        if emu {
            bytes_f64(buffer(&args[from]))
        } else {
            args[from..]
                .iter()
                .map(|a| match a {
                    Arg::F64(x) => *x,
                    other => panic!("expected a double, got {other:?}"),
                })
                .collect()
        }
    };
    let mut input = Input::default();
    match kernel {
        Kernel::SetSmall => {
            input.logn = logn_at(2);
            input.ints = buffer(&args[1]).chunks_exact(4).map(|c| i32::from_le_bytes(c.try_into().unwrap())).collect();
        }
        Kernel::Round => (input.logn, input.polys) = (logn_at(2), vec![poly(1)]),
        Kernel::Add | Kernel::Sub | Kernel::Mul | Kernel::MulAdj => {
            (input.logn, input.polys) = (logn_at(2), vec![poly(0), poly(1)]);
        }
        Kernel::Neg | Kernel::MulOwnAdj => (input.logn, input.polys) = (logn_at(1), vec![poly(0)]),
        Kernel::MulConst => {
            (input.logn, input.polys) = (logn_at(1), vec![poly(0)]);
            input.scalars = if emu {
                vec![f64::from_bits(u64::from(u32_arg(&args[2])) | (u64::from(u32_arg(&args[3])) << 32))]
            } else {
                scalars(2)
            };
        }
        Kernel::Ldl => (input.logn, input.polys) = (logn_at(3), vec![poly(0), poly(1), poly(2)]),
        Kernel::Split | Kernel::SplitSelfadj => (input.logn, input.polys) = (logn_at(3), vec![poly(2)]),
        Kernel::Merge => (input.logn, input.polys) = (logn_at(3), vec![poly(1), poly(2)]),
        Kernel::LeafSigma | Kernel::SamplerCentre => input.scalars = scalars(1),
        Kernel::SamplerExponent => {
            input.centre = Some(centre_of(buffer(&args[1])));
            input.ints = vec![u32_arg(&args[2]) as i32, u32_arg(&args[3]) as i32];
        }
    }
    input
}

/// What `kernel` computes on `input` with the kernels `fpu`, as the object code's output buffers.
pub fn run<F: FpuKernels>(fpu: &mut F, kernel: Kernel, input: &Input) -> Outcome {
    let logn = input.logn;
    let n = 1usize << logn;
    let hn = n / 2;
    let mut polys = input.polys.clone();
    let buffers = match kernel {
        Kernel::SetSmall => {
            let mut d = vec![0.0; n];
            fpu.set_small(logn, &mut d, &input.ints);
            vec![f64_bytes(&d)]
        }
        Kernel::Round => {
            let mut d = vec![0i64; n];
            fpu.round(logn, &polys[0], &mut d);
            vec![d.iter().flat_map(|x| x.to_le_bytes()).collect()]
        }
        Kernel::Add | Kernel::Sub | Kernel::Mul | Kernel::MulAdj => {
            let (a, b) = polys.split_at_mut(1);
            match kernel {
                Kernel::Add => fpu.add(logn, &mut a[0], &b[0]),
                Kernel::Sub => fpu.sub(logn, &mut a[0], &b[0]),
                Kernel::Mul => fpu.mul_fft(logn, &mut a[0], &b[0]),
                _ => fpu.muladj_fft(logn, &mut a[0], &b[0]),
            }
            vec![f64_bytes(&a[0])]
        }
        Kernel::Neg => {
            fpu.neg(logn, &mut polys[0]);
            vec![f64_bytes(&polys[0])]
        }
        Kernel::MulOwnAdj => {
            fpu.mulownadj_fft(logn, &mut polys[0]);
            vec![f64_bytes(&polys[0])]
        }
        Kernel::MulConst => {
            fpu.mulconst(logn, &mut polys[0], input.scalars[0]);
            vec![f64_bytes(&polys[0])]
        }
        Kernel::Ldl => {
            let (g00, rest) = polys.split_at_mut(1);
            let (g01, g11) = rest.split_at_mut(1);
            fpu.ldl_fft(logn, &g00[0], &mut g01[0], &mut g11[0]);
            vec![f64_bytes(&g01[0]), f64_bytes(&g11[0])]
        }
        Kernel::Split | Kernel::SplitSelfadj => {
            let (mut f0, mut f1) = (vec![0.0; hn], vec![0.0; hn]);
            if kernel == Kernel::Split {
                fpu.split_fft(logn, &mut f0, &mut f1, &polys[0]);
            } else {
                fpu.split_selfadj_fft(logn, &mut f0, &mut f1, &polys[0]);
            }
            vec![f64_bytes(&f0), f64_bytes(&f1)]
        }
        Kernel::Merge => {
            let mut f = vec![0.0; n];
            fpu.merge_fft(logn, &mut f, &polys[0], &polys[1]);
            vec![f64_bytes(&f)]
        }
        Kernel::LeafSigma => vec![f64_bytes(&[fpu.leaf_sigma(input.scalars[0], input.scalars[1])])],
        Kernel::SamplerCentre => {
            let [mu, isigma, sigma_min] = input.scalars[..] else { panic!("three scalars") };
            vec![centre_bytes(&fpu.sampler_centre(mu, isigma, sigma_min))]
        }
        Kernel::SamplerExponent => {
            let centre = input.centre.as_ref().expect("a centre");
            vec![ber_bytes(&fpu.sampler_exponent(centre, input.ints[0], input.ints[1]))]
        }
    };
    Outcome { buffers, ret: None }
}

/// The model (and reference) of a registered kernel: `fpu::Reference` on the decoded arguments.
pub fn model(kernel: Kernel, emu: bool, args: &[Arg]) -> Outcome {
    run(&mut Reference, kernel, &input_of(kernel, emu, args))
}

macro_rules! spec {
    ($id:expr, $kernel:expr, $emu:literal, $how:literal, $sig:literal, $pre:literal, $post:literal) => {
        KernelSpec {
            id: $id,
            summary: concat!("FN-DSA signing ", $post, $how),
            symbol: $kernel.symbol($emu),
            images: Images::Both,
            signature: $sig,
            precondition: $pre,
            postcondition: concat!($post, ": fpu::Reference, every bit"),
            returns: Returns::Nothing,
            edge_cases: $kernel.edge_cases(),
            generate: |case, rng| args($kernel, $emu, &generate($kernel, case, rng)),
            model: |a| model($kernel, $emu, a),
            reference: |a| model($kernel, $emu, a),
            canon: |o| o.clone(),
        }
    };
}

/// Both variants of a kernel.
macro_rules! pair {
    ($id:literal, $kernel:expr, $sig:literal, $sig_emu:literal, $pre:literal, $post:literal) => {
        [
            spec!($id, $kernel, false, " (native FP64)", $sig, $pre, $post),
            spec!(concat!($id, ".emu"), $kernel, true, " (soft-float)", $sig_emu, $pre, $post),
        ]
    };
}

const KERNEL_PAIRS: [[KernelSpec; 2]; 16] = [
    pair!(
        "fndsa.fpu.set_small",
        Kernel::SetSmall,
        "void fndsa_fpu_set_small(double *d, const int32_t *s, uint32_t logn)",
        "void fndsa_fpu_set_small_emu(uint64_t *d, const int32_t *s, uint32_t logn)",
        "1 <= logn <= 10; any int32_t",
        "d[i] = (double)s[i]"
    ),
    pair!(
        "fndsa.fpu.round",
        Kernel::Round,
        "void fndsa_fpu_round(int64_t *d, const double *f, uint32_t logn)",
        "void fndsa_fpu_round_emu(int64_t *d, const uint64_t *f, uint32_t logn)",
        "1 <= logn <= 10; f[i] zero or normal",
        "d[i] = round_ties_even(f[i]) as i64 (saturating)"
    ),
    pair!(
        "fndsa.fpu.add",
        Kernel::Add,
        "void fndsa_fpu_add(double *a, const double *b, uint32_t logn)",
        "void fndsa_fpu_add_emu(uint64_t *a, const uint64_t *b, uint32_t logn)",
        "1 <= logn <= 10; values zero or normal in [2^-476, 2^80) (signing's range)",
        "a += b"
    ),
    pair!(
        "fndsa.fpu.sub",
        Kernel::Sub,
        "void fndsa_fpu_sub(double *a, const double *b, uint32_t logn)",
        "void fndsa_fpu_sub_emu(uint64_t *a, const uint64_t *b, uint32_t logn)",
        "1 <= logn <= 10; values zero or normal in [2^-476, 2^80) (signing's range)",
        "a -= b"
    ),
    pair!(
        "fndsa.fpu.neg",
        Kernel::Neg,
        "void fndsa_fpu_neg(double *a, uint32_t logn)",
        "void fndsa_fpu_neg_emu(uint64_t *a, uint32_t logn)",
        "1 <= logn <= 10; any finite values",
        "a = -a"
    ),
    pair!(
        "fndsa.fpu.mulconst",
        Kernel::MulConst,
        "void fndsa_fpu_mulconst(double *a, uint32_t logn, double c)",
        "void fndsa_fpu_mulconst_emu(uint64_t *a, uint32_t logn, uint64_t c)",
        "1 <= logn <= 10; values zero or normal in [2^-476, 2^80) (signing's range)",
        "a *= c"
    ),
    pair!(
        "fndsa.fpu.mul",
        Kernel::Mul,
        "void fndsa_fpu_mul_fft(double *a, const double *b, uint32_t logn)",
        "void fndsa_fpu_mul_fft_emu(uint64_t *a, const uint64_t *b, uint32_t logn)",
        "1 <= logn <= 10; values zero or normal in [2^-476, 2^80) (signing's range)",
        "a *= b in FFT form"
    ),
    pair!(
        "fndsa.fpu.muladj",
        Kernel::MulAdj,
        "void fndsa_fpu_muladj_fft(double *a, const double *b, uint32_t logn)",
        "void fndsa_fpu_muladj_fft_emu(uint64_t *a, const uint64_t *b, uint32_t logn)",
        "1 <= logn <= 10; values zero or normal in [2^-476, 2^80) (signing's range)",
        "a *= adj(b) in FFT form"
    ),
    pair!(
        "fndsa.fpu.mulownadj",
        Kernel::MulOwnAdj,
        "void fndsa_fpu_mulownadj_fft(double *a, uint32_t logn)",
        "void fndsa_fpu_mulownadj_fft_emu(uint64_t *a, uint32_t logn)",
        "1 <= logn <= 10; values zero or normal in [2^-476, 2^80) (signing's range)",
        "a = a adj(a) in FFT form"
    ),
    pair!(
        "fndsa.fpu.ldl",
        Kernel::Ldl,
        "void fndsa_fpu_ldl_fft(const double *g00, double *g01, double *g11, uint32_t logn)",
        "void fndsa_fpu_ldl_fft_emu(const uint64_t *g00, uint64_t *g01, uint64_t *g11, uint32_t logn)",
        "1 <= logn <= 10; g00[i] > 0; values in [2^-300, 2^80) (products of three stay normal)",
        "LDL of the 2x2 Gram matrix: g01 = adj(g01/g00), g11 -= |g01|^2/g00"
    ),
    pair!(
        "fndsa.fpu.split",
        Kernel::Split,
        "void fndsa_fpu_split_fft(double *f0, double *f1, const double *f, uint32_t logn)",
        "void fndsa_fpu_split_fft_emu(uint64_t *f0, uint64_t *f1, const uint64_t *f, uint32_t logn)",
        "1 <= logn <= 10; values zero or normal in [2^-476, 2^80) (signing's range)",
        "split in FFT form: f(x) = f0(x^2) + x f1(x^2)"
    ),
    pair!(
        "fndsa.fpu.split_selfadj",
        Kernel::SplitSelfadj,
        "void fndsa_fpu_split_selfadj_fft(double *f0, double *f1, const double *f, uint32_t logn)",
        "void fndsa_fpu_split_selfadj_fft_emu(uint64_t *f0, uint64_t *f1, const uint64_t *f, uint32_t logn)",
        "1 <= logn <= 10; values zero or normal in [2^-476, 2^80) (signing's range)",
        "split of a self-adjoint polynomial in FFT form"
    ),
    pair!(
        "fndsa.fpu.merge",
        Kernel::Merge,
        "void fndsa_fpu_merge_fft(double *f, const double *f0, const double *f1, uint32_t logn)",
        "void fndsa_fpu_merge_fft_emu(uint64_t *f, const uint64_t *f0, const uint64_t *f1, uint32_t logn)",
        "1 <= logn <= 10; values zero or normal in [2^-476, 2^80) (signing's range)",
        "merge in FFT form (inverse of split)"
    ),
    pair!(
        "fndsa.fpu.leaf_sigma",
        Kernel::LeafSigma,
        "void fndsa_fpu_leaf_sigma(double *out, double d, double inv_sigma)",
        "void fndsa_fpu_leaf_sigma_emu(uint64_t *out, const uint64_t in[2] /* d, inv_sigma */)",
        "d zero or normal, d >= -0, in [2^-476, 2^80); inv_sigma one of signing's 1/sigma",
        "out = sqrt(d) * inv_sigma"
    ),
    pair!(
        "fndsa.fpu.sampler_centre",
        Kernel::SamplerCentre,
        "void fndsa_fpu_sampler_centre(struct fndsa_fpu_centre *c, double mu, double isigma, double sigma_min)",
        "void fndsa_fpu_sampler_centre_emu(struct fndsa_fpu_centre *c, const uint64_t in[3])",
        "|mu| < 2^63, zero or normal; isigma in [0.5, 1.1); sigma_min one of signing's",
        "sampler centre: s = floor(mu), r = mu - s, dss = isigma^2/2, ccs_fx = fixed63(isigma sigma_min)"
    ),
    pair!(
        "fndsa.fpu.sampler_exponent",
        Kernel::SamplerExponent,
        "void fndsa_fpu_sampler_exponent(struct fndsa_fpu_ber *e, const struct fndsa_fpu_centre *c, int32_t z, \
         int32_t z0)",
        "void fndsa_fpu_sampler_exponent_emu(struct fndsa_fpu_ber *e, const struct fndsa_fpu_centre *c, int32_t z, \
         int32_t z0)",
        "a centre from sampler_centre; |z|, z0 < 2^15",
        "Bernoulli exponent: x = (z - r)^2 dss - z0^2/(2 sigma0^2) = k ln2 + rem"
    ),
];

const fn flatten() -> [KernelSpec; 32] {
    let mut out = [KERNEL_PAIRS[0][0]; 32];
    let mut i = 0;
    while i < 16 {
        out[2 * i] = KERNEL_PAIRS[i][0];
        out[2 * i + 1] = KERNEL_PAIRS[i][1];
        i += 1;
    }
    out
}

const FLAT: [KernelSpec; 32] = flatten();

pub(super) const KERNELS: &[KernelSpec] = &FLAT;

/// Which kernel and variant a registered id names.
pub fn kernel_of(id: &str) -> Option<(Kernel, bool)> {
    let index = FLAT.iter().position(|k| k.id == id)?;
    Some((Kernel::ALL[index / 2], index % 2 == 1))
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

/// The inputs of case `case` of `kernel`.
pub fn generate(kernel: Kernel, case: u64, rng: &mut CaseRng) -> Input {
    match kernel {
        Kernel::LeafSigma => {
            let scalars = match leaf_edges().get(case as usize) {
                Some(&(d, inv)) => vec![d, inv],
                None => vec![random_in(rng, LO, HI).abs(), INV_SIGMA[rng.gen_range(1..=10)]],
            };
            return Input { scalars, ..Input::default() };
        }
        Kernel::SamplerCentre => {
            let scalars = match centre_edges().get(case as usize) {
                Some(&(mu, isigma, sigma_min)) => vec![mu, isigma, sigma_min],
                None => vec![random_mu(rng), rng.gen_range(0.5..1.0), SIGMA_MIN[rng.gen_range(1..=10)]],
            };
            return Input { scalars, ..Input::default() };
        }
        Kernel::SamplerExponent => {
            let (mu, isigma, z, z0) = match exponent_edges().get(case as usize) {
                Some(&e) => e,
                None => {
                    let z0 =
                        if rng.gen_range(0..8u32) == 0 { rng.gen_range(0..1 << 14) } else { rng.gen_range(0..=18) };
                    let b: i32 = rng.gen_range(0..=1);
                    (random_mu(rng), rng.gen_range(0.5..1.0), b + (2 * b - 1) * z0, z0)
                }
            };
            let centre = Reference.sampler_centre(mu, isigma, SIGMA_MIN[9]);
            return Input { ints: vec![z, z0], centre: Some(centre), ..Input::default() };
        }
        _ => {}
    }
    let logn = logn_of(case, rng);
    let n = 1usize << logn;
    let lo = if kernel == Kernel::Ldl { LO3 } else { LO };
    let poly = |rng: &mut CaseRng, which: usize| -> Vec<f64> {
        if case < POLY_EDGE_CASES {
            let pattern = case / 10;
            (0..n).map(|i| edge_value(pattern, i + 3 * which, lo)).collect()
        } else {
            (0..n).map(|_| random_in(rng, lo, HI)).collect()
        }
    };
    let mut input = Input { logn, ..Input::default() };
    match kernel {
        Kernel::SetSmall => {
            input.ints = if case < POLY_EDGE_CASES {
                let edges = [0, 1, -1, i32::MAX, i32::MIN, i32::MIN + 1, 12289, -12289, 127, -128, 1 << 24, -(1 << 30)];
                (0..n).map(|i| edges[(i + case as usize) % edges.len()]).collect()
            } else {
                (0..n).map(|_| (rng.r#gen::<u32>() >> rng.gen_range(0..32u32)) as i32).collect()
            };
        }
        Kernel::Round => {
            input.polys = vec![if case < POLY_EDGE_CASES {
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
            }];
        }
        Kernel::Add | Kernel::Sub | Kernel::Mul | Kernel::MulAdj | Kernel::Merge => {
            let (a, b) = (poly(rng, 0), poly(rng, 1));
            input.polys =
                if kernel == Kernel::Merge { vec![a[..n / 2].to_vec(), b[..n / 2].to_vec()] } else { vec![a, b] };
        }
        Kernel::Neg | Kernel::MulOwnAdj | Kernel::Split => input.polys = vec![poly(rng, 0)],
        Kernel::SplitSelfadj => {
            let mut f = poly(rng, 0);
            f[n / 2..].fill(0.0);
            input.polys = vec![f];
        }
        Kernel::MulConst => {
            input.polys = vec![poly(rng, 0)];
            let edges = [1.0, -1.0, 0.0, -0.0, 1.0 / 12289.0, -1.0 / 12289.0, pow2(LO), pow2(HI)];
            input.scalars =
                vec![if case < POLY_EDGE_CASES { edges[case as usize % edges.len()] } else { random_in(rng, LO, HI) }];
        }
        Kernel::Ldl => {
            let mut g00 = poly(rng, 0);
            for x in &mut g00[..n / 2] {
                *x = if *x == 0.0 { 1.0 } else { x.abs() };
            }
            g00[n / 2..].fill(0.0);
            let g01 = poly(rng, 1);
            let mut g11 = poly(rng, 2);
            g11[n / 2..].fill(0.0);
            input.polys = vec![g00, g01, g11];
        }
        Kernel::LeafSigma | Kernel::SamplerCentre | Kernel::SamplerExponent => unreachable!(),
    }
    input
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
    ds.iter().flat_map(|&d| [1, 9, 10].map(|l| (d, INV_SIGMA[l]))).collect()
}

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

/// (mu, isigma, z, z0): every candidate of the base sampler (z0 in 0..=18, both signs) around a few centres.
fn exponent_edges() -> Vec<(f64, f64, i32, i32)> {
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
    use crate::registry::case_rng;

    #[test]
    fn args_and_input_of_are_inverse() {
        for kernel in Kernel::ALL {
            for emu in [false, true] {
                for case in [0, 13, kernel.edge_cases(), kernel.edge_cases() + 5] {
                    let input = generate(kernel, case, &mut case_rng(9, case));
                    assert_eq!(input_of(kernel, emu, &args(kernel, emu, &input)), input, "{kernel:?}");
                }
            }
        }
    }

    #[test]
    fn edge_counts_match_the_edge_lists() {
        assert_eq!(Kernel::LeafSigma.edge_cases(), leaf_edges().len() as u64);
        assert_eq!(Kernel::SamplerCentre.edge_cases(), centre_edges().len() as u64);
        assert_eq!(Kernel::SamplerExponent.edge_cases(), exponent_edges().len() as u64);
    }

    #[test]
    fn every_kernel_has_both_variants_in_order() {
        for (i, kernel) in Kernel::ALL.into_iter().enumerate() {
            assert_eq!(KERNELS[2 * i].symbol, kernel.symbol(false));
            assert_eq!(KERNELS[2 * i + 1].symbol, kernel.symbol(true));
            assert_eq!(KERNELS[2 * i + 1].id, format!("{}.emu", KERNELS[2 * i].id));
            assert_eq!(kernel_of(KERNELS[2 * i + 1].id), Some((kernel, true)));
        }
    }
}
