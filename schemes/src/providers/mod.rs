//! Kernel providers ("kernels in the loop"): implementations of the core provider traits over the sim models and
//! over object code under an emulator, one file per kernel family. A known-answer suite runs with any of them.
//!
//! - [`keccak`]: `keccak::Permutation`, the bit-interleaved Keccak-f\[1600\];
//! - [`mlkem`]: `mlkem::MlkemKernels`, the ML-KEM NTT, inverse NTT and base multiplication (ML-KEM-768, X-Wing);
//! - [`fndsa_ntt`]: `fndsa::NttKernels`, the FN-DSA NTTs modulo 12289;
//! - [`fndsa_fpu`]: `fndsa::FpuKernels`, the FN-DSA signing FP64 kernels (object code only: their order of operations
//!   is their definition, so the reference is their model);
//! - [`fndsa_keygen`]: `fndsa::keygen::FxpKernels`, the FN-DSA key generation's fixed-point divisions;
//! - [`x25519`]: `x25519::FieldArithmetic`, the X25519 field arithmetic, ladder, paired inversion and scalar
//!   multiplications (X25519, X-Wing).
//!
//! Every provider counts the calls each kernel served ([`Tally`]). The NTT providers run a registered kernel's
//! contract ([`Engine::run`]): the contract's model or the object code (through a [`Guest`]), on inputs and outputs
//! checked against the contract's declared bounds, with the contract's canonicalisation back to the reference's
//! layout. A call that faults, times out or writes out of bounds, or that breaks a bound, is recorded as the
//! provider's [`Failure`], after which none of its kernels runs; the provider then returns poisoned values so that
//! the scheme ends quickly, and whoever ran it must ask [`Tally::check`]: a result computed after a failure is never
//! a pass.

pub mod fndsa_fpu;
pub mod fndsa_keygen;
pub mod fndsa_ntt;
pub mod keccak;
pub mod mlkem;
pub mod x25519;

use std::collections::BTreeMap;
use std::fmt;
use std::sync::{Arc, Mutex};

pub use pqhelium_families::Build;
use pqhelium_families::{self as registry, BoundViolation, Kernel, Outcome, check_input_bounds, check_output_bounds};
use pqhelium_guest::backend::qemu::QemuBackend;
use pqhelium_guest::backend::{Arg, Backend, BackendError, BackendKind, Call, CallError, CallOutput, Image, Limits};
use pqhelium_guest::profile::{self, ProfileSum};

/// Calls and executed guest instructions of one kernel symbol.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct KernelCount {
    pub calls: u64,
    /// Always 0 for a model.
    pub instructions: u64,
}

/// The first call that did not complete.
#[derive(Debug, Clone)]
pub struct FailedCall {
    pub symbol: &'static str,
    /// 0-based index of the call among all calls of this provider.
    pub call: u64,
    pub logn: u32,
    pub error: CallError,
}

impl fmt::Display for FailedCall {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} (call #{}, logn {}) failed: {}", self.symbol, self.call, self.logn, self.error)
    }
}

/// Why a provider stopped serving.
#[derive(Debug, Clone)]
pub enum Failure {
    /// A call that did not complete.
    Call(FailedCall),
    /// A call whose inputs or outputs break the kernel's contract (its declared bounds).
    Contract { symbol: &'static str, call: u64, violation: BoundViolation },
}

impl fmt::Display for Failure {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Failure::Call(c) => c.fmt(f),
            Failure::Contract { symbol, call, violation } => write!(f, "{symbol} (call #{call}): {violation}"),
        }
    }
}

/// What a provider's kernels served, and its first failure.
#[derive(Debug, Default)]
pub struct Tally {
    calls: u64,
    counts: BTreeMap<&'static str, KernelCount>,
    failure: Option<Failure>,
}

impl Tally {
    /// Calls and instructions per kernel symbol so far.
    pub fn counts(&self) -> &BTreeMap<&'static str, KernelCount> {
        &self.counts
    }

    /// Calls `symbol` served so far.
    pub fn calls_of(&self, symbol: &str) -> u64 {
        self.counts.get(symbol).map_or(0, |c| c.calls)
    }

    /// Guest instructions of every call so far.
    pub fn instructions(&self) -> u64 {
        self.counts.values().map(|c| c.instructions).sum()
    }

    /// Forgets the counts (not a failure).
    pub fn reset_counts(&mut self) {
        self.counts.clear();
    }

    pub fn failure(&self) -> Option<&Failure> {
        self.failure.as_ref()
    }

    /// Ok if every call so far completed within its kernel's contract, else the first failure with its details.
    pub fn check(&self) -> Result<(), String> {
        self.failure.as_ref().map_or(Ok(()), |f| Err(f.to_string()))
    }

    fn served(&mut self, symbol: &'static str, instructions: u64) {
        self.calls += 1;
        let count = self.counts.entry(symbol).or_default();
        count.calls += 1;
        count.instructions += instructions;
    }

    /// Records a contract violation of call number `call` (of `symbol`); `None`, for the caller to return.
    fn broken<T>(&mut self, symbol: &'static str, call: u64, violation: BoundViolation) -> Option<T> {
        self.failure.get_or_insert(Failure::Contract { symbol, call, violation });
        None
    }
}

/// The block profile of one kernel symbol's calls, added up (`crate::operations`).
#[derive(Debug, Clone, Default)]
pub struct SymbolProfile {
    pub calls: u64,
    /// The instructions the harness counted (the profile's must be the same).
    pub instructions: u64,
    pub blocks: ProfileSum,
}

/// The block profiles of a profiled guest's calls per kernel symbol: a handle its opener keeps while a provider
/// owns the guest.
#[derive(Debug, Clone, Default)]
pub struct Profiles(Arc<Mutex<BTreeMap<&'static str, SymbolProfile>>>);

impl Profiles {
    /// The profiles so far, which are forgotten here.
    pub fn take(&self) -> BTreeMap<&'static str, SymbolProfile> {
        std::mem::take(&mut *self.0.lock().expect("no panic while held"))
    }

    fn add(&self, symbol: &'static str, instructions: u64, profile: &profile::Profile) {
        let mut profiles = self.0.lock().expect("no panic while held");
        let entry = profiles.entry(symbol).or_default();
        entry.calls += 1;
        entry.instructions += instructions;
        entry.blocks.add(profile);
    }
}

/// Object code under an emulator, called by symbol on behalf of a provider.
pub struct Guest {
    backend: Box<dyn Backend>,
    tally: Tally,
    /// Where each call's block profile goes, on a profiled QEMU guest.
    profiles: Option<Profiles>,
}

impl Guest {
    pub fn new(backend: Box<dyn Backend>) -> Self {
        Self { backend, tally: Tally::default(), profiles: None }
    }

    /// The object code of `image` (a QEMU image) with every call's block profile kept per symbol, for cycle
    /// estimates; the handle to the profiles comes with it.
    pub fn open_profiled(image: Image) -> Result<(Self, Profiles), BackendError> {
        if image.backend() != BackendKind::Qemu {
            return Err(BackendError::Unavailable(format!("block profiles come from QEMU, not {}", image.backend())));
        }
        let mut backend = QemuBackend::open_profiled(&image.guest(), Limits::default())?;
        if let Some(bytes) = backend.profile_mut() {
            profile::reset(bytes);
        }
        let profiles = Profiles::default();
        let guest = Self { backend: Box::new(backend), tally: Tally::default(), profiles: Some(profiles.clone()) };
        Ok((guest, profiles))
    }

    /// The call's block profile into `profiles` (the counts then start again from zero).
    fn record_profile(&mut self, symbol: &'static str, instructions: u64) -> Result<(), CallError> {
        let Some(profiles) = &self.profiles else { return Ok(()) };
        let bytes = self.backend.block_profile().ok_or_else(|| CallError::BadCall("no block profile".into()))?;
        let read = profile::read(bytes);
        profile::reset(bytes);
        let read = read.map_err(|e| CallError::BadCall(e.to_string()))?;
        if read.instructions() != instructions {
            let counts = format!("{} instructions in the block profile, {instructions} counted", read.instructions());
            return Err(CallError::BadCall(counts));
        }
        profiles.add(symbol, instructions, &read);
        Ok(())
    }

    /// Opens an emulator of `kind` (unicorn or QEMU).
    pub fn open(kind: BackendKind) -> Result<Self, BackendError> {
        Ok(Self::new(kind.open(Limits::default())?))
    }

    /// Opens the emulator of `image`, loaded with it.
    pub fn open_image(image: Image) -> Result<Self, BackendError> {
        Ok(Self::new(image.open(Limits::default())?))
    }

    pub fn backend_name(&self) -> &'static str {
        self.backend.name()
    }

    pub fn tally(&self) -> &Tally {
        &self.tally
    }

    pub fn tally_mut(&mut self) -> &mut Tally {
        &mut self.tally
    }

    /// One guest call, counted; `None` if it failed (now recorded) or any earlier call of this provider failed. The
    /// buffers that come back have the lengths of the arguments.
    pub fn call(&mut self, symbol: &'static str, logn: u32, args: Vec<Arg>) -> Option<CallOutput> {
        if self.tally.failure.is_some() {
            return None;
        }
        let expected: Vec<usize> = args
            .iter()
            .filter_map(|a| match a {
                Arg::In(b) | Arg::InOut(b) => Some(b.len()),
                Arg::Out(len) => Some(*len),
                Arg::U32(_) | Arg::F64(_) => None,
            })
            .collect();
        let result = self.backend.call(&Call::new(symbol, args)).and_then(|out| {
            let lengths: Vec<usize> = out.buffers.iter().map(Vec::len).collect();
            if lengths == expected {
                Ok(out)
            } else {
                Err(CallError::BadCall(format!("buffers of {lengths:?} bytes back, {expected:?} expected")))
            }
        });
        let result = result.and_then(|out| self.record_profile(symbol, out.instructions).map(|()| out));
        match result {
            Ok(out) => {
                self.tally.served(symbol, out.instructions);
                Some(out)
            }
            Err(error) => {
                let call = self.tally.calls;
                self.tally.calls += 1;
                self.tally.failure = Some(Failure::Call(FailedCall { symbol, call, logn, error }));
                None
            }
        }
    }

    /// Calls the registered `kernel` on `args`: the buffers it wrote (its `Outcome`), checked against the contract's
    /// output bounds; `None` after a failure.
    pub fn run(&mut self, kernel: &'static Kernel, logn: u32, args: &[Arg]) -> Option<Outcome> {
        let call = self.tally.calls;
        let output = self.call(kernel.symbol, logn, args.to_vec())?;
        let outcome = kernel.outcome_of(args, output);
        if let Err(violation) = check_output_bounds(kernel, args, &outcome, self.backend.name()) {
            return self.tally.broken(kernel.symbol, call, violation);
        }
        Some(outcome)
    }
}

/// Who computes a provider's kernels: the sim model or object code.
pub enum Engine {
    Model(Tally),
    Object(Guest),
}

impl Engine {
    pub fn model() -> Self {
        Engine::Model(Tally::default())
    }

    /// The object code on an emulator of `kind`.
    pub fn open(kind: BackendKind) -> Result<Self, BackendError> {
        Ok(Engine::Object(Guest::open(kind)?))
    }

    /// The object code of `image` on its emulator.
    pub fn open_image(image: Image) -> Result<Self, BackendError> {
        Ok(Engine::Object(Guest::open_image(image)?))
    }

    /// The object code of `image` on a profiled QEMU guest ([`Guest::open_profiled`]).
    pub fn open_profiled(image: Image) -> Result<(Self, Profiles), BackendError> {
        let (guest, profiles) = Guest::open_profiled(image)?;
        Ok((Engine::Object(guest), profiles))
    }

    pub fn tally(&self) -> &Tally {
        match self {
            Engine::Model(tally) => tally,
            Engine::Object(guest) => guest.tally(),
        }
    }

    pub fn tally_mut(&mut self) -> &mut Tally {
        match self {
            Engine::Model(tally) => tally,
            Engine::Object(guest) => guest.tally_mut(),
        }
    }

    /// Runs the registered `kernel` on `args`, in the kernel's own layout: the contract's model, or the object code.
    /// The inputs and the outputs are checked against the contract's bounds; the outputs come back in the
    /// reference's layout (the contract's canonicalisation). `None` after a failure (see [`Tally::check`]).
    pub fn run(&mut self, kernel: &'static Kernel, logn: u32, args: Vec<Arg>) -> Option<Outcome> {
        self.run_raw(kernel, logn, args).map(|outcome| kernel.canon(&outcome))
    }

    /// [`Engine::run`] with the outputs as the kernel left them (its order, its lazy representatives): for a
    /// provider that chains kernels in their own layout.
    pub fn run_raw(&mut self, kernel: &'static Kernel, logn: u32, args: Vec<Arg>) -> Option<Outcome> {
        let tally = self.tally_mut();
        if tally.failure.is_some() {
            return None;
        }
        let call = tally.calls;
        if let Err(violation) = check_input_bounds(kernel, &args) {
            return tally.broken(kernel.symbol, call, violation);
        }
        let outcome = match self {
            Engine::Model(tally) => {
                let model = match kernel.evaluate(&args) {
                    Ok(evaluation) => evaluation.model,
                    Err(violation) => return tally.broken(kernel.symbol, call, violation),
                };
                let Some(model) = model else {
                    let problem = "no model: the kernel is checked against the reference alone".into();
                    let violation = BoundViolation::Shape { kernel: kernel.id, side: "model".into(), problem };
                    return tally.broken(kernel.symbol, call, violation);
                };
                tally.served(kernel.symbol, 0);
                if let Err(violation) = check_output_bounds(kernel, &args, &model, "model") {
                    return tally.broken(kernel.symbol, call, violation);
                }
                model
            }
            Engine::Object(guest) => guest.run(kernel, logn, &args)?,
        };
        Some(outcome)
    }
}

/// A registered kernel. The ids the providers name are covered by their tests, so a missing one is a bug of this
/// crate, not an input error.
fn registered(id: &str) -> &'static Kernel {
    registry::find(id).unwrap_or_else(|| panic!("kernel `{id}` is not registered"))
}
