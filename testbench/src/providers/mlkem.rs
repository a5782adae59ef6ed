//! `MlkemKernels` (ML-KEM, and X-Wing through it) from the sim models or the object code of the ML-KEM NTT kernels
//! (`kernels/arm/mlkem_ntt/`): the MVE kernels on the Cortex-M55 image (QEMU), the portable C baselines on either
//! image (unicorn has no MVE).
//!
//! The trait speaks FIPS 203: canonical inputs in FIPS order. The kernels work in their own layout: the MVE kernels
//! in the MVE storage order, both builds with lazy (non-canonical) outputs. The provider puts the inputs in the
//! kernel's order and runs the kernel's registered contract (`registry::mlkem_ntt`): bounds checked on every call,
//! the outputs brought back to canonical FIPS order by the contract's canonicalisation.

use std::cell::{Ref, RefCell};
use std::sync::LazyLock;

use pqhelium_core::mlkem::{MlkemKernels, N, Poly};

use super::{Build, Engine, Tally, registered};
use crate::backend::{Arg, BackendError, BackendKind};
use crate::registry::Kernel;
use crate::registry::mlkem_ntt::{bytes, fips_of_mve, poly};

/// n = 2^8, for the failure reports.
const LOGN: u32 = 8;

/// The three operations behind the trait.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Op {
    Ntt,
    InvNtt,
    Basemul,
}

impl Op {
    pub const ALL: [Op; 3] = [Op::Ntt, Op::InvNtt, Op::Basemul];
}

/// The registry id of the kernel of `op` in `build`.
fn kernel_id(build: Build, op: Op) -> &'static str {
    match (build, op) {
        (Build::Mve, Op::Ntt) => "mlkem.ntt.fwd",
        (Build::Mve, Op::InvNtt) => "mlkem.ntt.inv",
        (Build::Mve, Op::Basemul) => "mlkem.basemul",
        (Build::Scalar, Op::Ntt) => "mlkem.ntt.fwd.scalar",
        (Build::Scalar, Op::InvNtt) => "mlkem.ntt.inv.scalar",
        (Build::Scalar, Op::Basemul) => "mlkem.basemul.scalar",
    }
}

/// A FIPS-order polynomial in `build`'s order: the MVE storage order, or FIPS order for the portable C.
fn from_fips(build: Build, p: &Poly) -> Poly {
    match build {
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

/// The MVE storage index of each FIPS coefficient: the registry's MVE -> FIPS map applied to the storage indices.
static STORAGE_OF: LazyLock<[u8; N]> = LazyLock::new(|| {
    let storage_indices: Poly = std::array::from_fn(|s| s as i16);
    fips_of_mve(&storage_indices).map(|s| s as u8)
});

/// The ML-KEM kernels of one build, from the model or from object code. The trait takes `&self`, so the provider
/// is used by reference (`MlKem::new(params, &provider)`) and keeps its bookkeeping in a cell.
pub struct MlkemProvider {
    build: Build,
    kernels: [&'static Kernel; 3],
    engine: RefCell<Engine>,
}

impl MlkemProvider {
    /// The kernels of `build` on `engine`: the sim model, or the object code (the build must be in its image).
    pub fn new(build: Build, engine: Engine) -> Self {
        Self { build, kernels: Op::ALL.map(|op| registered(kernel_id(build, op))), engine: RefCell::new(engine) }
    }

    /// The object code on an emulator of `kind`: the MVE kernels on QEMU, the portable C on unicorn.
    pub fn open(kind: BackendKind) -> Result<Self, BackendError> {
        Ok(Self::new(Build::for_backend(kind), Engine::open(kind)?))
    }

    /// The kernel (contract and symbol) that serves `op`.
    pub fn kernel(&self, op: Op) -> &'static Kernel {
        self.kernels[op as usize]
    }

    /// Serves `op` with another contract in the same layout, e.g. a registry variant with a wrong symbol (for tests
    /// that need a wrong kernel in the loop).
    pub fn rewire(&mut self, op: Op, kernel: &'static Kernel) {
        self.kernels[op as usize] = kernel;
    }

    /// What the kernels served, and the first failure.
    pub fn tally(&self) -> Ref<'_, Tally> {
        Ref::map(self.engine.borrow(), Engine::tally)
    }

    /// Runs `op` on FIPS-order inputs; its output canonical in FIPS order, or `None` after a failure.
    fn run(&self, op: Op, inputs: &[&Poly]) -> Option<Poly> {
        let kernel_order: Vec<Poly> = inputs.iter().map(|p| from_fips(self.build, p)).collect();
        let args = match op {
            Op::Ntt | Op::InvNtt => vec![Arg::InOut(bytes(&kernel_order[0]))],
            Op::Basemul => vec![Arg::Out(2 * N), Arg::In(bytes(&kernel_order[0])), Arg::In(bytes(&kernel_order[1]))],
        };
        let out = self.engine.borrow_mut().run(self.kernel(op), LOGN, args)?;
        Some(poly(&out.buffers[0]))
    }
}

/// After a failure every output is zero: the scheme finishes quickly, and the failure is in the tally.
const POISONED: Poly = [0; N];

impl MlkemKernels for &MlkemProvider {
    fn ntt(&self, poly: &mut Poly) {
        *poly = self.run(Op::Ntt, &[poly]).unwrap_or(POISONED);
    }

    fn inv_ntt(&self, poly: &mut Poly) {
        *poly = self.run(Op::InvNtt, &[poly]).unwrap_or(POISONED);
    }

    fn basemul(&self, out: &mut Poly, a: &Poly, b: &Poly) {
        *out = self.run(Op::Basemul, &[a, b]).unwrap_or(POISONED);
    }
}
