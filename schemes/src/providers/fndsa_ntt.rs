//! `NttKernels` (FN-DSA key generation, signing-key decoding, verification) from the sim models or the object code
//! of the FN-DSA NTT kernels (`kernels/arm/fndsa_ntt/`): the MVE kernels on the Cortex-M55 image (QEMU), the portable
//! C baselines on either image (unicorn has no MVE).
//!
//! The trait speaks the reference's internal representation (values in [1, q], the reference NTT order). The
//! provider hands the kernels those values as `int16_t` (inside every kernel's input bound), transposes the MVE
//! inverse's input into the forward kernel's storage order, and runs the kernel's registered contract
//! (`registry::fndsa_ntt`): bounds checked on every call, the outputs brought back to residues in the reference
//! order by the contract's canonicalisation.
//!
//! The kernels exist for n = 512 and 1024 only. A call at another degree is served by the reference and counted
//! apart ([`FndsaNttProvider::reference_calls`]), so that a report says how much of a run the kernels served.

use std::collections::BTreeMap;

use pqhelium_core::fndsa::ntt::{self, NttKernels, ext_to_int};

use super::{Build, Engine, Tally, registered};
use pqhelium_families::Kernel;
use pqhelium_families::fndsa_ntt::{bytes, untranspose};
use pqhelium_guest::backend::{Arg, BackendError, BackendKind, Image};

/// The degrees (as logn) the kernels exist for.
pub const KERNEL_LOGNS: [u32; 2] = [9, 10];

/// The three operations behind the trait.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Op {
    Ntt,
    Intt,
    Mul,
}

impl Op {
    pub const ALL: [Op; 3] = [Op::Ntt, Op::Intt, Op::Mul];

    fn name(self) -> &'static str {
        match self {
            Op::Ntt => "fwd",
            Op::Intt => "inv",
            Op::Mul => "pointwise",
        }
    }
}

/// The registry id of the kernel of `op` at degree 2^logn (logn in [`KERNEL_LOGNS`]) in `build`.
fn kernel_id(build: Build, op: Op, logn: u32) -> String {
    let suffix = if build == Build::Scalar { ".scalar" } else { "" };
    format!("fndsa.ntt{}.{}{suffix}", 1u32 << logn, op.name())
}

/// The FN-DSA NTT kernels of one build, from the model or from object code.
pub struct FndsaNttProvider {
    build: Build,
    /// Indexed by the position of logn in [`KERNEL_LOGNS`], then by `Op`.
    kernels: [[&'static Kernel; 3]; 2],
    engine: Engine,
    reference_calls: BTreeMap<u32, u64>,
}

impl FndsaNttProvider {
    /// The kernels of `build` on `engine`: the sim model, or the object code (the build must be in its image).
    pub fn new(build: Build, engine: Engine) -> Self {
        let kernels = KERNEL_LOGNS.map(|logn| Op::ALL.map(|op| registered(&kernel_id(build, op, logn))));
        Self { build, kernels, engine, reference_calls: BTreeMap::new() }
    }

    /// The object code on an emulator of `kind`: the MVE kernels on QEMU, the portable C on unicorn.
    pub fn open(kind: BackendKind) -> Result<Self, BackendError> {
        Ok(Self::new(Build::for_backend(kind), Engine::open(kind)?))
    }

    /// The object code of `image`: the MVE kernels on the M55 and M85 images, the portable C on the M7 one.
    pub fn open_image(image: Image) -> Result<Self, BackendError> {
        Ok(Self::new(Build::for_image(image), Engine::open_image(image)?))
    }

    /// The kernel (contract and symbol) that serves `op` at degree 2^logn, if there is one.
    pub fn kernel(&self, op: Op, logn: u32) -> Option<&'static Kernel> {
        let at = KERNEL_LOGNS.iter().position(|&l| l == logn)?;
        Some(self.kernels[at][op as usize])
    }

    /// Serves `op` at degree 2^logn (in [`KERNEL_LOGNS`]) with another contract in the same layout, e.g. a registry
    /// variant with a wrong symbol (for tests that need a wrong kernel in the loop).
    pub fn rewire(&mut self, op: Op, logn: u32, kernel: &'static Kernel) {
        let at = KERNEL_LOGNS.iter().position(|&l| l == logn).expect("a degree the kernels serve");
        self.kernels[at][op as usize] = kernel;
    }

    /// What the kernels served, and the first failure.
    pub fn tally(&self) -> &Tally {
        self.engine.tally()
    }

    /// Calls served by the reference, by logn: the degrees no kernel exists for.
    pub fn reference_calls(&self) -> &BTreeMap<u32, u64> {
        &self.reference_calls
    }

    /// Runs `op` on internal-representation inputs in the reference order, the result in place of `a` (zeros after
    /// a failure: no internal value, and never q, so key generation's invertibility retry cannot loop on them).
    /// False, with `a` untouched, if no kernel serves this degree.
    fn run(&mut self, op: Op, logn: u32, a: &mut [u16], b: Option<&[u16]>) -> bool {
        let Some(kernel) = self.kernel(op, logn) else { return false };
        // Internal values lie in [1, q], q = 12289: inside every kernel's int16_t input bound.
        let lanes = |v: &[u16]| -> Vec<i16> { v.iter().map(|&x| x as i16).collect() };
        let mut first = lanes(a);
        if (op, self.build) == (Op::Intt, Build::Mve) {
            // The reference order into the forward kernel's storage order (the transposition is an involution).
            first = untranspose(&first);
        }
        let args = match b {
            None => vec![Arg::InOut(bytes(&first))],
            Some(b) => vec![Arg::Out(2 * a.len()), Arg::In(bytes(&first)), Arg::In(bytes(&lanes(b)))],
        };
        match self.engine.run(kernel, logn, args) {
            Some(out) => {
                for (x, le) in a.iter_mut().zip(out.buffers[0].chunks_exact(2)) {
                    *x = u16::from_le_bytes([le[0], le[1]]);
                }
                ext_to_int(a);
            }
            None => a.fill(0),
        }
        true
    }

    /// The reference, for a degree no kernel serves (counted).
    fn reference(&mut self, logn: u32) -> ntt::Reference {
        *self.reference_calls.entry(logn).or_default() += 1;
        ntt::Reference
    }
}

impl NttKernels for FndsaNttProvider {
    fn ntt(&mut self, logn: u32, a: &mut [u16]) {
        if !self.run(Op::Ntt, logn, a, None) {
            self.reference(logn).ntt(logn, a);
        }
    }

    fn intt(&mut self, logn: u32, a: &mut [u16]) {
        if !self.run(Op::Intt, logn, a, None) {
            self.reference(logn).intt(logn, a);
        }
    }

    fn mul(&mut self, logn: u32, a: &mut [u16], b: &[u16]) {
        if !self.run(Op::Mul, logn, a, Some(b)) {
            self.reference(logn).mul(logn, a, b);
        }
    }
}
