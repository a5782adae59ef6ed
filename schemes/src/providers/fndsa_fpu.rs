//! `FpuKernels` for FN-DSA signing from object code: [`EmulatedFpu`] calls the FP64 kernels (native `fndsa_fpu_*` or
//! soft-float `fndsa_fpu_*_emu`) under an emulator, one guest call per trait call. Every method goes to object code:
//! the (i)FFT (`fft.c`, `fft_emu.c`) and the kernels of `registry::fndsa_fpu`, each found by its row's [`Method`] and
//! encoded the way the registry encodes it. There is no model provider: the kernels' order of operations is their
//! definition, so `fpu::Reference` is their model.
//!
//! Every output is checked against the registered contract's output bounds. A failed call (guest fault, timeout,
//! overrun, dead worker, an output out of its bound) is recorded with its kernel and call number, and from then on no
//! more object code runs: the provider returns NaN-poisoned results so that signing ends quickly, and
//! [`EmulatedFpu::check`] reports the first failure. Callers must call it after signing: a result computed after a
//! failure is never a pass.

use std::collections::BTreeMap;

use pqhelium_core::fndsa::fpu::{BerExponent, FpuKernels, SamplerCentre};

use super::{FailedCall, Failure, Guest, KernelCount, Tally, registered};
use pqhelium_families::fndsa_fpu::{self as contracts, Input, Method, ROWS, Row};
use pqhelium_families::{self as registry, Outcome};
use pqhelium_guest::backend::{Arg, Backend, BackendError, BackendKind};

/// The signing FP64 kernels as object code under an emulator.
pub struct EmulatedFpu {
    guest: Guest,
    emu: bool,
    /// The family's rows with their registered kernels of the variant.
    kernels: Vec<(&'static Row, &'static registry::Kernel)>,
    /// The registered FFT and inverse FFT of the variant.
    transforms: [&'static registry::Kernel; 2],
}

impl EmulatedFpu {
    /// Native FP64 kernels (`emu == false`) or the soft-float ones, on `backend`.
    pub fn new(backend: Box<dyn Backend>, emu: bool) -> Self {
        Self::on(Guest::new(backend), emu)
    }

    /// Opens an emulator of `kind` (unicorn or QEMU) for the kernels.
    pub fn open(kind: BackendKind, emu: bool) -> Result<Self, BackendError> {
        Ok(Self::on(Guest::open(kind)?, emu))
    }

    /// The kernels on `guest`.
    pub fn on(guest: Guest, emu: bool) -> Self {
        let suffix = if emu { ".emu" } else { "" };
        let transforms = ["fft", "ifft"].map(|t| registered(&format!("fndsa.fpu.{t}{suffix}")));
        let kernels = ROWS.iter().map(|row| (row, registered(row.variant_id(emu)))).collect();
        Self { guest, emu, kernels, transforms }
    }

    pub fn backend_name(&self) -> &'static str {
        self.guest.backend_name()
    }

    pub fn is_emu(&self) -> bool {
        self.emu
    }

    /// Calls and instructions per kernel symbol so far.
    pub fn counts(&self) -> &BTreeMap<&'static str, KernelCount> {
        self.guest.tally().counts()
    }

    /// Guest instructions of every call so far.
    pub fn instructions(&self) -> u64 {
        self.guest.tally().instructions()
    }

    /// Forgets the counts (not a failure).
    pub fn reset_counts(&mut self) {
        self.guest.tally_mut().reset_counts();
    }

    /// The first call that did not complete, if that is how the provider failed ([`EmulatedFpu::check`] reports
    /// any failure).
    pub fn failure(&self) -> Option<&FailedCall> {
        match self.guest.tally().failure() {
            Some(Failure::Call(call)) => Some(call),
            Some(Failure::Contract { .. }) | None => None,
        }
    }

    /// Ok if every call so far ran to completion within its output bounds, else the first failure with its details.
    pub fn check(&self) -> Result<(), String> {
        self.guest.tally().check()
    }

    /// What the kernels served, and the first failure.
    pub fn tally(&self) -> &Tally {
        self.guest.tally()
    }

    /// Every kernel the provider calls.
    pub fn kernels(&self) -> impl Iterator<Item = &'static registry::Kernel> + '_ {
        self.kernels.iter().map(|&(_, kernel)| kernel).chain(self.transforms)
    }

    /// Runs the kernel of the row serving `method` on `input`; the buffers it wrote (`InOut` and `Out`, in order).
    fn kernel(&mut self, method: Method, input: &Input) -> Option<Vec<Vec<u8>>> {
        let &(row, kernel) = self.kernels.iter().find(|(row, _)| row.method == method).expect("a row per method");
        let args = row.args(self.emu, input);
        let Outcome { buffers, .. } = self.guest.run(kernel, input.logn, &args)?;
        Some(buffers)
    }

    /// Runs a registry kernel and copies the buffers it wrote, in order, into `outputs` (NaN everywhere if the call
    /// failed).
    fn kernel_into(&mut self, method: Method, input: &Input, outputs: &mut [&mut [f64]]) {
        let out = self.kernel(method, input);
        for (i, dst) in outputs.iter_mut().enumerate() {
            store(dst, out.as_ref().map(|o| o[i].as_slice()));
        }
    }

    /// The (i)FFT, in place.
    fn transform(&mut self, inverse: bool, logn: u32, f: &mut [f64]) {
        let n = 1usize << logn;
        let args = [Arg::InOut(doubles_to_bytes(&f[..n])), Arg::U32(logn)];
        let out = self.guest.run(self.transforms[usize::from(inverse)], logn, &args);
        store(&mut f[..n], out.as_ref().map(|o| o.buffers[0].as_slice()));
    }

    fn polys(logn: u32, polys: &[&[f64]]) -> Input {
        let n = 1usize << logn;
        Input { logn, polys: polys.iter().map(|p| p[..n].to_vec()).collect(), ..Input::default() }
    }
}

fn doubles_to_bytes(v: &[f64]) -> Vec<u8> {
    v.iter().flat_map(|x| x.to_bits().to_le_bytes()).collect()
}

/// Copies doubles out of a returned buffer, or NaN everywhere if the call failed.
fn store(dst: &mut [f64], src: Option<&[u8]>) {
    match src {
        Some(bytes) => {
            for (d, c) in dst.iter_mut().zip(bytes.chunks_exact(8)) {
                *d = f64::from_bits(u64::from_le_bytes(c.try_into().unwrap()));
            }
        }
        None => dst.fill(f64::NAN),
    }
}

impl FpuKernels for EmulatedFpu {
    fn fft(&mut self, logn: u32, f: &mut [f64]) {
        self.transform(false, logn, f);
    }

    fn ifft(&mut self, logn: u32, f: &mut [f64]) {
        self.transform(true, logn, f);
    }

    fn set_small(&mut self, logn: u32, d: &mut [f64], s: &[i32]) {
        let n = 1usize << logn;
        let input = Input { logn, ints: s[..n].to_vec(), ..Input::default() };
        let out = self.kernel(Method::SetSmall, &input);
        store(&mut d[..n], out.as_ref().map(|b| b[0].as_slice()));
    }

    fn round(&mut self, logn: u32, f: &[f64], d: &mut [i64]) {
        let n = 1usize << logn;
        match self.kernel(Method::Round, &Self::polys(logn, &[f])) {
            Some(b) => {
                for (d, c) in d[..n].iter_mut().zip(b[0].chunks_exact(8)) {
                    *d = i64::from_le_bytes(c.try_into().unwrap());
                }
            }
            None => d[..n].fill(0),
        }
    }

    fn add(&mut self, logn: u32, a: &mut [f64], b: &[f64]) {
        self.kernel_into(Method::Add, &Self::polys(logn, &[a, b]), &mut [&mut a[..1 << logn]]);
    }

    fn sub(&mut self, logn: u32, a: &mut [f64], b: &[f64]) {
        self.kernel_into(Method::Sub, &Self::polys(logn, &[a, b]), &mut [&mut a[..1 << logn]]);
    }

    fn neg(&mut self, logn: u32, a: &mut [f64]) {
        self.kernel_into(Method::Neg, &Self::polys(logn, &[a]), &mut [&mut a[..1 << logn]]);
    }

    fn mulconst(&mut self, logn: u32, a: &mut [f64], c: f64) {
        let input = Input { scalars: vec![c], ..Self::polys(logn, &[a]) };
        self.kernel_into(Method::MulConst, &input, &mut [&mut a[..1 << logn]]);
    }

    fn mul_fft(&mut self, logn: u32, a: &mut [f64], b: &[f64]) {
        self.kernel_into(Method::Mul, &Self::polys(logn, &[a, b]), &mut [&mut a[..1 << logn]]);
    }

    fn muladj_fft(&mut self, logn: u32, a: &mut [f64], b: &[f64]) {
        self.kernel_into(Method::MulAdj, &Self::polys(logn, &[a, b]), &mut [&mut a[..1 << logn]]);
    }

    fn mulownadj_fft(&mut self, logn: u32, a: &mut [f64]) {
        self.kernel_into(Method::MulOwnAdj, &Self::polys(logn, &[a]), &mut [&mut a[..1 << logn]]);
    }

    fn ldl_fft(&mut self, logn: u32, g00: &[f64], g01: &mut [f64], g11: &mut [f64]) {
        let n = 1usize << logn;
        self.kernel_into(Method::Ldl, &Self::polys(logn, &[g00, g01, g11]), &mut [&mut g01[..n], &mut g11[..n]]);
    }

    fn split_fft(&mut self, logn: u32, f0: &mut [f64], f1: &mut [f64], f: &[f64]) {
        let hn = 1usize << (logn - 1);
        self.kernel_into(Method::Split, &Self::polys(logn, &[f]), &mut [&mut f0[..hn], &mut f1[..hn]]);
    }

    fn split_selfadj_fft(&mut self, logn: u32, f0: &mut [f64], f1: &mut [f64], f: &[f64]) {
        let hn = 1usize << (logn - 1);
        self.kernel_into(Method::SplitSelfadj, &Self::polys(logn, &[f]), &mut [&mut f0[..hn], &mut f1[..hn]]);
    }

    fn merge_fft(&mut self, logn: u32, f: &mut [f64], f0: &[f64], f1: &[f64]) {
        let (n, hn) = (1usize << logn, 1usize << (logn - 1));
        let input = Input { logn, polys: vec![f0[..hn].to_vec(), f1[..hn].to_vec()], ..Input::default() };
        self.kernel_into(Method::Merge, &input, &mut [&mut f[..n]]);
    }

    fn leaf_sigma(&mut self, d: f64, inv_sigma: f64) -> f64 {
        let mut r = [0.0];
        self.kernel_into(Method::LeafSigma, &Input { scalars: vec![d, inv_sigma], ..Input::default() }, &mut [&mut r]);
        r[0]
    }

    fn sampler_centre(&mut self, mu: f64, isigma: f64, sigma_min: f64) -> SamplerCentre {
        let input = Input { scalars: vec![mu, isigma, sigma_min], ..Input::default() };
        match self.kernel(Method::SamplerCentre, &input) {
            Some(o) => contracts::centre_of(&o[0]),
            None => SamplerCentre { s: 0, r: f64::NAN, dss: f64::NAN, ccs_fx: u64::MAX },
        }
    }

    fn sampler_exponent(&mut self, centre: &SamplerCentre, z: i32, z0: i32) -> BerExponent {
        let input = Input { ints: vec![z, z0], centre: Some(*centre), ..Input::default() };
        match self.kernel(Method::SamplerExponent, &input) {
            Some(o) => contracts::ber_of(&o[0]),
            None => BerExponent { k: 0, rem_fx: 0 },
        }
    }
}
