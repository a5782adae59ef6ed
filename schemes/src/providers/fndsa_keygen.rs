//! `FxpKernels` (FN-DSA key generation's 32.32 fixed point) from the sim models or the object code of the keygen
//! kernels (`kernels/arm/fndsa_keygen/`): the FFT and inverse FFT, `div_selfadj`, `invnorm` and `inv_mul2e` run the
//! registered contracts (`registry::fndsa_keygen`, `registry::fndsa_keygen_fft`), inputs and outputs checked against
//! their bounds on every call. On QEMU the Cortex-M55 kernels serve (the MVE split-word FFTs, one VDIV.F64 per
//! division), on unicorn the portable baselines (64-bit C FFTs, the bit-by-bit division); the model provider runs
//! `pqhelium_sim::fxp_fft` and `pqhelium_sim::fxp_div`.
//!
//! After a failed call no more kernels run and the reference serves the rest, so that key generation ends as it
//! would; the run must still ask [`FxpProvider::tally`]`().check()`: a result computed after a failure is never a
//! pass.

use pqhelium_core::fndsa::keygen::fxp::{FxpKernels, Reference};

use super::{Build, Engine, Tally, registered};
use pqhelium_families::Kernel;
use pqhelium_guest::backend::{Arg, BackendError, BackendKind};

/// The operations the kernels serve.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Op {
    DivSelfadj,
    Invnorm,
    InvMul2e,
    Fft,
    Ifft,
}

impl Op {
    pub const ALL: [Op; 5] = [Op::DivSelfadj, Op::Invnorm, Op::InvMul2e, Op::Fft, Op::Ifft];
    /// The operations that divide.
    pub const DIVISIONS: [Op; 3] = [Op::DivSelfadj, Op::Invnorm, Op::InvMul2e];

    fn name(self) -> &'static str {
        match self {
            Op::Fft => "fft",
            Op::Ifft => "ifft",
            Op::DivSelfadj => "div_selfadj",
            Op::Invnorm => "invnorm",
            Op::InvMul2e => "inv_mul2e",
        }
    }
}

/// The registry id of `op` in `build`: the Cortex-M55 kernels (`Build::Mve`: MVE FFTs, the FPU division) or the
/// baselines.
fn kernel_id(build: Build, op: Op) -> String {
    let suffix = if build == Build::Scalar { ".scalar" } else { "" };
    format!("fndsa.keygen.{}{suffix}", op.name())
}

/// The keygen fixed-point kernels of one build, from the model or from object code.
pub struct FxpProvider {
    kernels: [&'static Kernel; 5],
    engine: Engine,
}

impl FxpProvider {
    /// The kernels of `build` on `engine`.
    pub fn new(build: Build, engine: Engine) -> Self {
        Self { kernels: Op::ALL.map(|op| registered(&kernel_id(build, op))), engine }
    }

    /// The object code on an emulator of `kind`: the Cortex-M55 kernels on QEMU, the baselines on unicorn.
    pub fn open(kind: BackendKind) -> Result<Self, BackendError> {
        Ok(Self::new(Build::for_backend(kind), Engine::open(kind)?))
    }

    /// The kernel (contract and symbol) that serves `op`.
    pub fn kernel(&self, op: Op) -> &'static Kernel {
        self.kernels[op as usize]
    }

    /// Every kernel the provider calls.
    pub fn kernels(&self) -> impl Iterator<Item = &'static Kernel> + '_ {
        self.kernels.iter().copied()
    }

    /// Serves `op` with another contract of the same layout, e.g. a registry variant with a wrong symbol (for tests
    /// that need a wrong kernel in the loop).
    pub fn rewire(&mut self, op: Op, kernel: &'static Kernel) {
        self.kernels[op as usize] = kernel;
    }

    /// What the kernels served, and the first failure.
    pub fn tally(&self) -> &Tally {
        self.engine.tally()
    }

    /// Runs `op`'s kernel; its only output buffer as values, `None` after a failure.
    fn run(&mut self, op: Op, logn: u32, args: Vec<Arg>) -> Option<Vec<u64>> {
        let outcome = self.engine.run(self.kernels[op as usize], logn, args)?;
        Some(outcome.buffers[0].chunks_exact(8).map(|c| u64::from_le_bytes(c.try_into().unwrap())).collect())
    }
}

fn bytes(values: &[u64]) -> Vec<u8> {
    values.iter().flat_map(|v| v.to_le_bytes()).collect()
}

impl FxpKernels for FxpProvider {
    fn fft(&mut self, logn: u32, f: &mut [u64]) {
        let n = 1usize << logn;
        match self.run(Op::Fft, logn, vec![Arg::InOut(bytes(&f[..n])), Arg::U32(logn)]) {
            Some(out) => f[..n].copy_from_slice(&out),
            None => Reference.fft(logn, f),
        }
    }

    fn ifft(&mut self, logn: u32, f: &mut [u64]) {
        let n = 1usize << logn;
        match self.run(Op::Ifft, logn, vec![Arg::InOut(bytes(&f[..n])), Arg::U32(logn)]) {
            Some(out) => f[..n].copy_from_slice(&out),
            None => Reference.ifft(logn, f),
        }
    }

    fn div_selfadj(&mut self, logn: u32, a: &mut [u64], b: &[u64]) {
        let (n, hn) = (1usize << logn, 1usize << (logn - 1));
        let args = vec![Arg::InOut(bytes(&a[..n])), Arg::In(bytes(&b[..hn])), Arg::U32(logn)];
        match self.run(Op::DivSelfadj, logn, args) {
            Some(out) => a[..n].copy_from_slice(&out),
            None => Reference.div_selfadj(logn, a, b),
        }
    }

    fn invnorm(&mut self, logn: u32, d: &mut [u64], a: &[u64], b: &[u64], e: u32) {
        let n = 1usize << logn;
        let args = vec![Arg::Out(4 * n), Arg::In(bytes(&a[..n])), Arg::In(bytes(&b[..n])), Arg::U32(logn), Arg::U32(e)];
        match self.run(Op::Invnorm, logn, args) {
            Some(out) => d[..n / 2].copy_from_slice(&out),
            None => Reference.invnorm(logn, d, a, b, e),
        }
    }

    fn inv_mul2e(&mut self, logn: u32, a: &mut [u64], e: u32) {
        let n = 1usize << logn;
        let args = vec![Arg::InOut(bytes(&a[..n])), Arg::U32(logn), Arg::U32(e)];
        match self.run(Op::InvMul2e, logn, args) {
            Some(out) => a[..n].copy_from_slice(&out),
            None => Reference.inv_mul2e(logn, a, e),
        }
    }
}
