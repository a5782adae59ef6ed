//! A registered kernel: its contract as data ([`Description`]) and its behaviour ([`Behaviour`]), with the case
//! generation every campaign shares.

use std::sync::OnceLock;

use pqhelium_guest::backend::{Arg, BackendKind, CallOutput};
use pqhelium_guest::trace::Declassification;
use pqhelium_sim::coverage::Step;

use crate::case_rng::CaseRng;
use crate::description::{Behaviour, BoundViolation, Checked, Contract, Description, Elem, Evaluation, Images};

/// Version of the case generators, raised whenever one changes which case a (seed, case index) gives: a campaign
/// is resumed only by generators of its own version. 7: the sprinkled ML-KEM coefficient vectors, one draw per
/// coefficient (6: FN-DSA verifications at the acceptance bounds and batches whose requests share a nonce; 5: exact
/// corner cases of the ML-KEM inverse and FN-DSA forward NTTs, corner cases of the FN-DSA pointwise products, the
/// keygen forward FFT, the X25519 squaring and multiplication by 121666, and the FP64 roundings; 4: the FP64,
/// fixed-point and X25519 corner cases; 3: corner cases among the edge cases; 2: coefficient vectors from `sample`;
/// 1: rand's `gen_range`).
pub const CASE_GENERATORS: u32 = 7;

/// What a kernel produced: its output buffers (`Out` and `InOut` arguments in order, then a host-only contract's
/// results) and its return value.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Outcome {
    pub buffers: Vec<Vec<u8>>,
    pub ret: Option<u64>,
}

/// A registered kernel: its contract as data (through `Deref`) and its behaviour.
pub struct Kernel {
    description: Description,
    /// How it is checked (from the contract's `Ways`).
    pub checked: Checked,
    /// The steps whose bound coverage is reported (`Contract::coverage_steps`), computed when first asked for
    /// (their reachable ends may take an exhaustive search).
    steps: OnceLock<Vec<Step>>,
    behaviour: Box<dyn Behaviour>,
}

impl std::ops::Deref for Kernel {
    type Target = Description;
    fn deref(&self) -> &Description {
        &self.description
    }
}

impl std::fmt::Debug for Kernel {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Kernel").field("id", &self.id).field("symbol", &self.symbol).finish_non_exhaustive()
    }
}

impl serde::Serialize for Kernel {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        #[derive(serde::Serialize)]
        struct Listed<'a> {
            #[serde(flatten)]
            description: &'a Description,
            checked: Checked,
            prototype: Option<String>,
        }
        let listed =
            Listed { description: &self.description, checked: self.checked, prototype: self.description.prototype() };
        listed.serialize(serializer)
    }
}

impl Kernel {
    pub fn new<C: Contract>(contract: C) -> Self {
        Self::from_behaviour(contract.describe(), Box::new(contract))
    }

    pub fn from_behaviour(description: Description, behaviour: Box<dyn Behaviour>) -> Self {
        let checked = match behaviour.checked() {
            Checked::ThreeWay if description.images == Images::HostOnly => Checked::ModelOnly,
            checked => checked,
        };
        Self { description, checked, steps: OnceLock::new(), behaviour }
    }

    /// The behaviour behind the description (a kernel of someone else's wraps ours, `byo`).
    pub fn behaviour(&self) -> &dyn Behaviour {
        self.behaviour.as_ref()
    }

    /// The reduction, rounding and truncation steps the model observes, with what the bounds proof allows (empty
    /// for a family that does not report bound coverage yet).
    pub fn coverage_steps(&self) -> &[Step] {
        self.steps.get_or_init(|| self.behaviour.steps())
    }

    /// The arguments of case `case` (the rng is `case_rng(seed, case)`).
    pub fn generate(&self, case: u64, rng: &mut CaseRng) -> Vec<Arg> {
        self.behaviour.generate_args(case, rng)
    }

    /// The differences in its leakage trace that the contract declares public by design (`pqhelium ct`).
    pub fn declassified(&self) -> &'static [Declassification] {
        self.behaviour.declassified_events()
    }

    /// The reference and (three-way kernels) the model on one case, its inputs decoded once; `Err` names the
    /// relation between the inputs that the case breaks.
    pub fn evaluate(&self, args: &[Arg]) -> Result<Evaluation, BoundViolation> {
        self.behaviour.evaluate(args).map_err(|problem| BoundViolation::Shape {
            kernel: self.id,
            side: "generated input".into(),
            problem,
        })
    }

    /// Maps the kernel's outcome (model or object code) to the reference's layout.
    pub fn canon(&self, outcome: &Outcome) -> Outcome {
        self.behaviour.canonical(outcome)
    }

    /// What a failing outcome of the object code on `args` suggests about the adapters ([`Behaviour::hint`]).
    pub fn hint(&self, args: &[Arg], outcome: &Outcome) -> Option<String> {
        self.behaviour.hint(args, outcome)
    }

    /// The reference's outcome in the object code's own layout ([`Behaviour::in_kernel_layout`]).
    pub fn in_kernel_layout(&self, reference: &Outcome) -> Option<Vec<(usize, Vec<u8>)>> {
        self.behaviour.in_kernel_layout(reference)
    }

    /// Whether the object code's outcome is canonicalised (through [`Kernel::canon`]) before it is compared with
    /// the reference: a kernel of someone else's, in their order and representation.
    pub fn canonicalises_object_code(&self) -> bool {
        self.behaviour.canonicalises_object_code()
    }

    /// What the object code must produce on `args`: the model's outcome, or for two-way kernels the reference's
    /// (nothing else is computed, and the inputs are not checked: see [`Kernel::evaluate`]).
    pub fn expected(&self, args: &[Arg]) -> Outcome {
        self.behaviour.expected(args)
    }

    /// The name of the side the object code is compared with: `model`, or `reference` for two-way kernels.
    pub fn expected_side(&self) -> &'static str {
        match self.checked {
            Checked::ThreeWay | Checked::ModelOnly => "model",
            Checked::TwoWay => "reference",
        }
    }

    /// Whether this kernel runs on the backend: its object code exists for the backend's image, or (model backend)
    /// it has a model to check against the reference.
    pub fn runs_on(&self, backend: BackendKind) -> bool {
        match backend {
            BackendKind::Model => self.checked != Checked::TwoWay,
            BackendKind::Qemu => self.images != Images::HostOnly,
            BackendKind::Unicorn => self.images == Images::Both,
        }
    }

    /// The outcome of an emulated call, in the same shape as the model's (the output buffers move over).
    pub fn outcome_of(&self, args: &[Arg], output: CallOutput) -> Outcome {
        let buffer_args = args.iter().filter(|a| matches!(a, Arg::In(_) | Arg::InOut(_) | Arg::Out(_)));
        let buffers = buffer_args
            .zip(output.buffers)
            .filter(|(arg, _)| matches!(arg, Arg::InOut(_) | Arg::Out(_)))
            .map(|(_, data)| data)
            .collect();
        let ret = self.returns.map(|r| match r.elem {
            Elem::I64 | Elem::U64 => u64::from(output.r0) | u64::from(output.r1) << 32,
            Elem::F64 => output.d0.to_bits(),
            _ => u64::from(output.r0),
        });
        Outcome { buffers, ret }
    }
}

/// A registered kernel with parts replaced, for tests that need a contract to be wrong.
#[derive(Default)]
pub struct Alteration {
    pub symbol: Option<&'static str>,
    /// A model in place of the kernel's (a two-way kernel becomes three-way, with its identity canonicalisation).
    pub model: Option<fn(&[Arg]) -> Outcome>,
    pub reference: Option<fn(&[Arg]) -> Outcome>,
    /// Declarations of public-by-design trace differences in place of the kernel's.
    pub declassified: Option<&'static [Declassification]>,
}

struct Altered {
    base: &'static Kernel,
    change: Alteration,
}

impl Behaviour for Altered {
    fn generate_args(&self, case: u64, rng: &mut CaseRng) -> Vec<Arg> {
        self.base.generate(case, rng)
    }

    fn evaluate(&self, args: &[Arg]) -> Result<Evaluation, String> {
        let mut evaluation = self.base.behaviour.evaluate(args)?;
        if let Some(model) = self.change.model {
            evaluation.model = Some(model(args));
        }
        if let Some(reference) = self.change.reference {
            evaluation.reference = reference(args);
        }
        Ok(evaluation)
    }

    fn expected(&self, args: &[Arg]) -> Outcome {
        match (self.change.model, self.change.reference) {
            (Some(model), _) => model(args),
            (None, Some(reference)) if self.base.checked == Checked::TwoWay => reference(args),
            (None, _) => self.base.expected(args),
        }
    }

    fn canonical(&self, outcome: &Outcome) -> Outcome {
        self.base.canon(outcome)
    }

    fn checked(&self) -> Checked {
        if self.change.model.is_some() { Checked::ThreeWay } else { self.base.checked }
    }

    fn steps(&self) -> Vec<Step> {
        self.base.coverage_steps().to_vec()
    }

    fn declassified_events(&self) -> &'static [Declassification] {
        self.change.declassified.unwrap_or_else(|| self.base.declassified())
    }
}

impl Kernel {
    /// A changed copy of a registered kernel, for tests that need a contract to be wrong (leaked: test use only).
    pub fn altered(base: &'static Kernel, change: impl FnOnce(&mut Alteration)) -> &'static Kernel {
        let mut alteration = Alteration::default();
        change(&mut alteration);
        let mut description = base.description.clone();
        if let Some(symbol) = alteration.symbol {
            description.symbol = symbol;
        }
        Box::leak(Box::new(Kernel::from_behaviour(description, Box::new(Altered { base, change: alteration }))))
    }
}

/// Values one after another in little-endian bytes, e.g. `le_bytes(lanes, u64::to_le_bytes)`: one buffer of byte
/// arrays, flattened in place (a `flat_map` would collect the bytes one at a time).
pub fn le_bytes<T: Copy, const N: usize>(values: &[T], to_le_bytes: fn(T) -> [u8; N]) -> Vec<u8> {
    values.iter().map(|&v| to_le_bytes(v)).collect::<Vec<_>>().into_flattened()
}

/// Helpers for contracts over 32-bit words.
pub fn words_to_bytes(words: &[u32]) -> Vec<u8> {
    le_bytes(words, u32::to_le_bytes)
}

pub fn bytes_to_words(bytes: &[u8]) -> Vec<u32> {
    bytes.chunks_exact(4).map(|c| u32::from_le_bytes(c.try_into().unwrap())).collect()
}

/// The bytes of an `In` or `InOut` argument (decoders run on arguments whose shape the contract has checked).
pub fn buffer(arg: &Arg) -> &[u8] {
    match arg {
        Arg::In(b) | Arg::InOut(b) => b,
        other => panic!("expected an input buffer, got {other:?}"),
    }
}

/// The value of a `U32` argument.
pub fn u32_arg(arg: &Arg) -> u32 {
    match arg {
        Arg::U32(v) => *v,
        other => panic!("expected a u32, got {other:?}"),
    }
}
