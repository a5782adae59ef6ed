//! `MlkemKernels` (ML-KEM, and X-Wing through it) from the sim models or the object code of the ML-KEM kernels
//! (`kernels/arm/mlkem_ntt/`): the MVE kernels on the Cortex-M55 or Cortex-M85 image (QEMU), the portable C
//! baselines on any image (unicorn has no MVE).
//!
//! Every polynomial operation of ML-KEM-768 is a kernel call: NTT, inverse NTT, the k = 3 products (dot, matvec),
//! add/sub/reduce, 12-bit encoding and decoding, compression with encoding for du = 10, dv = 4 and the message. The
//! polynomials stay in the kernels' own representation between calls (the MVE storage order and the lazy
//! representatives for the MVE build, FIPS order for the portable one): no order conversion runs between kernels.
//! One conversion remains, on the way in: the samplers (SampleNTT, SamplePolyCBD, in Rust here) write FIPS order, so
//! each sampled polynomial goes through `mlkem.order.to_mve` (on a device it would be folded into the sampler's
//! stores). The encodings are FIPS 203's byte strings by definition; the encoding and compression kernels fold the
//! permutation into their shifts and byte offsets.
//!
//! With [`MlkemProvider::with_keccak`], every Keccak-f\[1600\] of the scheme's SHA-3 and SHAKE calls (and X-Wing's)
//! is a call of `keccak.f1600` too, on bit-interleaved lanes converted on the host.
//!
//! Each call runs the kernel's registered contract (`registry::mlkem_ntt`, `registry::mlkem_poly`): bounds checked on
//! every input and output, so a chain that would leave a kernel's precondition is a failure, not a wrong answer.
//! ML-KEM-512 and -1024 (k = 2, 4; du = 11, dv = 5) have no kernels for their products and widths: those operations
//! are computed on the host by the reference, through an explicit conversion of the representation.

use std::cell::{Ref, RefCell};
use std::collections::HashMap;
use std::sync::LazyLock;

use pqhelium_core::mlkem::{MlkemKernels, N, Poly, Reference};

use super::{Build, Engine, Tally, registered};
use pqhelium_families::mlkem_ntt::{bytes, fips_of_mve, poly};
use pqhelium_families::mlkem_poly::{self, kernel_id as poly_kernel_id};
use pqhelium_families::{Kernel, bytes_to_words, words_to_bytes};
use pqhelium_guest::backend::{Arg, BackendError, BackendKind, Image};
use pqhelium_sim::keccak as keccak_model;

/// The permutation kernel [`MlkemProvider::with_keccak`] puts in the loop (the scalar one: the MVE one is four-way).
const KECCAK_KERNEL: &str = "keccak.f1600";

/// n = 2^8, for the failure reports.
const LOGN: u32 = 8;
/// The module rank the product kernels serve (ML-KEM-768).
const K: usize = 3;

/// The operations behind the trait.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Op {
    Ntt,
    InvNtt,
    Basemul,
    /// FIPS order -> the kernels' order (MVE build only).
    Import,
    Poly(mlkem_poly::Op),
    /// Keccak-f\[1600\] (with [`MlkemProvider::with_keccak`] only).
    Keccak,
}

impl Op {
    /// Every operation.
    pub fn all() -> impl Iterator<Item = Op> {
        let polynomial =
            [Op::Ntt, Op::InvNtt, Op::Basemul, Op::Import].into_iter().chain(mlkem_poly::Op::ALL.map(Op::Poly));
        polynomial.chain([Op::Keccak])
    }
}

/// The registry id of the kernel of `op` in `build`; `None` for the import of the portable build (FIPS order) and
/// for Keccak, which is in the loop only on request.
fn kernel_id(build: Build, op: Op) -> Option<String> {
    let mve = build == Build::Mve;
    let suffix = if mve { "" } else { ".scalar" };
    Some(match op {
        Op::Ntt => format!("mlkem.ntt.fwd{suffix}"),
        Op::InvNtt => format!("mlkem.ntt.inv{suffix}"),
        Op::Basemul => format!("mlkem.basemul{suffix}"),
        Op::Import if mve => "mlkem.order.to_mve".into(),
        Op::Import | Op::Keccak => return None,
        Op::Poly(p) => poly_kernel_id(p, mve),
    })
}

/// The MVE storage index of each FIPS coefficient: the registry's MVE -> FIPS map applied to the storage indices.
static STORAGE_OF: LazyLock<[u8; N]> = LazyLock::new(|| {
    let storage_indices: Poly = std::array::from_fn(|s| s as i16);
    fips_of_mve(&storage_indices).map(|s| s as u8)
});

/// The ML-KEM kernels of one build, from the model or from object code. The trait takes `&self`, so the provider
/// is used by reference (`MlKem::new(params, &provider)`) and keeps its bookkeeping in a cell.
pub struct MlkemProvider {
    build: Build,
    kernels: HashMap<Op, &'static Kernel>,
    engine: RefCell<Engine>,
}

impl MlkemProvider {
    /// The kernels of `build` on `engine`: the sim model, or the object code (the build must be in its image).
    pub fn new(build: Build, engine: Engine) -> Self {
        let kernels = Op::all().filter_map(|op| Some((op, registered(&kernel_id(build, op)?)))).collect();
        Self { build, kernels, engine: RefCell::new(engine) }
    }

    /// Keccak in the loop: every permutation through `keccak.f1600` on the same engine.
    pub fn with_keccak(mut self) -> Self {
        self.kernels.insert(Op::Keccak, registered(KECCAK_KERNEL));
        self
    }

    /// The object code on an emulator of `kind` (its default image): the MVE kernels on QEMU, the portable C on
    /// unicorn.
    pub fn open(kind: BackendKind) -> Result<Self, BackendError> {
        Ok(Self::new(Build::for_backend(kind), Engine::open(kind)?))
    }

    /// The object code of `image`: the MVE kernels on the M55 and M85 images, the portable C on the M7 one.
    pub fn open_image(image: Image) -> Result<Self, BackendError> {
        Ok(Self::new(Build::for_image(image), Engine::open_image(image)?))
    }

    /// The kernel (contract and symbol) that serves `op`, if one does in this build.
    pub fn kernel(&self, op: Op) -> Option<&'static Kernel> {
        self.kernels.get(&op).copied()
    }

    /// The symbols an ML-KEM-768 operation runs: every kernel but the single base multiplication (the products
    /// accumulate three at a time).
    pub fn required(&self) -> Vec<&'static str> {
        Op::all().filter(|&op| op != Op::Basemul).filter_map(|op| self.kernel(op)).map(|k| k.symbol).collect()
    }

    /// Serves `op` with another contract in the same layout, e.g. a registry variant with a wrong symbol (for tests
    /// that need a wrong kernel in the loop).
    pub fn rewire(&mut self, op: Op, kernel: &'static Kernel) {
        self.kernels.insert(op, kernel);
    }

    /// What the kernels served, and the first failure.
    pub fn tally(&self) -> Ref<'_, Tally> {
        Ref::map(self.engine.borrow(), Engine::tally)
    }

    /// Runs `op`'s kernel on `args`: its first output as the kernel left it, or `None` after a failure.
    fn run(&self, op: Op, args: Vec<Arg>) -> Option<Vec<u8>> {
        let kernel = self.kernel(op)?;
        let mut out = self.engine.borrow_mut().run_raw(kernel, LOGN, args)?;
        Some(out.buffers.swap_remove(0))
    }

    /// A polynomial-valued call; zero after a failure (the scheme finishes quickly, and the failure is in the tally).
    fn run_poly(&self, op: Op, args: Vec<Arg>) -> Poly {
        self.run(op, args).map_or([0; N], |b| poly(&b))
    }

    /// A polynomial of this build's representation in FIPS order, canonical (for the host fallbacks).
    fn in_fips_order(&self, p: &Poly) -> Poly {
        let fips = if self.build == Build::Mve { fips_of_mve(p) } else { *p };
        fips.map(|x| x.rem_euclid(pqhelium_core::mlkem::Q))
    }

    /// A FIPS-order polynomial in this build's order (host side).
    fn in_build_order(&self, p: &Poly) -> Poly {
        match self.build {
            Build::Mve => {
                let mut out = [0; N];
                for (&s, &x) in STORAGE_OF.iter().zip(p) {
                    out[usize::from(s)] = x;
                }
                out
            }
            Build::Scalar => *p,
        }
    }

    fn concat(polys: &[Poly]) -> Vec<u8> {
        polys.iter().flat_map(bytes).collect()
    }
}

/// The compression widths with kernels.
fn has_width(d: u32) -> bool {
    pqhelium_sim::mlkem_poly::WIDTHS.contains(&d)
}

impl MlkemKernels for &MlkemProvider {
    fn ntt(&self, p: &mut Poly) {
        *p = self.run_poly(Op::Ntt, vec![Arg::InOut(bytes(p))]);
    }

    fn inv_ntt(&self, p: &mut Poly) {
        *p = self.run_poly(Op::InvNtt, vec![Arg::InOut(bytes(p))]);
    }

    fn basemul(&self, out: &mut Poly, a: &Poly, b: &Poly) {
        *out = self.run_poly(Op::Basemul, vec![Arg::Out(2 * N), Arg::In(bytes(a)), Arg::In(bytes(b))]);
    }

    fn import(&self, p: &mut Poly) {
        if self.kernel(Op::Import).is_some() {
            *p = self.run_poly(Op::Import, vec![Arg::Out(2 * N), Arg::In(bytes(p))]);
        }
    }

    fn add(&self, out: &mut Poly, a: &Poly, b: &Poly) {
        let args = vec![Arg::Out(2 * N), Arg::In(bytes(a)), Arg::In(bytes(b))];
        *out = self.run_poly(Op::Poly(mlkem_poly::Op::Add), args);
    }

    fn sub(&self, out: &mut Poly, a: &Poly, b: &Poly) {
        let args = vec![Arg::Out(2 * N), Arg::In(bytes(a)), Arg::In(bytes(b))];
        *out = self.run_poly(Op::Poly(mlkem_poly::Op::Sub), args);
    }

    fn reduce(&self, p: &mut Poly) {
        *p = self.run_poly(Op::Poly(mlkem_poly::Op::Reduce), vec![Arg::InOut(bytes(p))]);
    }

    fn encode12(&self, out: &mut [u8], p: &Poly) {
        let encoded = self.run(Op::Poly(mlkem_poly::Op::Encode12), vec![Arg::Out(out.len()), Arg::In(bytes(p))]);
        out.copy_from_slice(&encoded.unwrap_or_else(|| vec![0; out.len()]));
    }

    fn decode12(&self, p: &mut Poly, encoded: &[u8]) {
        *p = self.run_poly(Op::Poly(mlkem_poly::Op::Decode12), vec![Arg::Out(2 * N), Arg::In(encoded.to_vec())]);
    }

    fn compress(&self, d: u32, out: &mut [u8], p: &Poly) {
        if !has_width(d) {
            return Reference.compress(d, out, &self.in_fips_order(p));
        }
        let args = vec![Arg::Out(out.len()), Arg::In(bytes(p))];
        let encoded = self.run(Op::Poly(mlkem_poly::Op::Compress(d)), args);
        out.copy_from_slice(&encoded.unwrap_or_else(|| vec![0; out.len()]));
    }

    fn decompress(&self, d: u32, p: &mut Poly, encoded: &[u8]) {
        if !has_width(d) {
            let mut fips = [0; N];
            Reference.decompress(d, &mut fips, encoded);
            *p = self.in_build_order(&fips);
            return;
        }
        let args = vec![Arg::Out(2 * N), Arg::In(encoded.to_vec())];
        *p = self.run_poly(Op::Poly(mlkem_poly::Op::Decompress(d)), args);
    }

    fn dot(&self, out: &mut Poly, a: &[Poly], b: &[Poly]) {
        if a.len() != K || b.len() != K {
            let (a, b): (Vec<Poly>, Vec<Poly>) =
                (a.iter().map(|p| self.in_fips_order(p)).collect(), b.iter().map(|p| self.in_fips_order(p)).collect());
            let mut fips = [0; N];
            Reference.dot(&mut fips, &a, &b);
            *out = self.in_build_order(&fips);
            return;
        }
        let args = vec![Arg::Out(2 * N), Arg::In(MlkemProvider::concat(a)), Arg::In(MlkemProvider::concat(b))];
        *out = self.run_poly(Op::Poly(mlkem_poly::Op::Dot), args);
    }

    fn permute(&self, state: &mut [u64; 25]) {
        if self.kernel(Op::Keccak).is_none() {
            return Reference.permute(state);
        }
        let words = words_to_bytes(&keccak_model::interleave(state));
        // A failed call zeroes the state; the failure is in the tally.
        *state = self.run(Op::Keccak, vec![Arg::InOut(words)]).map_or([0; 25], |out| {
            keccak_model::deinterleave(&bytes_to_words(&out).try_into().expect("the contract's state size"))
        });
    }

    fn matvec(&self, out: &mut [Poly], a: &[Poly], v: &[Poly]) {
        if v.len() != K || a.len() != K * K || out.len() != K {
            for (o, row) in out.iter_mut().zip(a.chunks_exact(v.len())) {
                self.dot(o, row, v);
            }
            return;
        }
        let args = vec![Arg::Out(2 * N * K), Arg::In(MlkemProvider::concat(a)), Arg::In(MlkemProvider::concat(v))];
        let result = self.run(Op::Poly(mlkem_poly::Op::Matvec), args);
        for (i, o) in out.iter_mut().enumerate() {
            *o = result.as_ref().map_or([0; N], |b| poly(&b[2 * N * i..2 * N * (i + 1)]));
        }
    }
}
