//! The kernel registry: one contract per kernel, read by everything else (differential engine, CLI, tests, docs).
//!
//! A contract ([`contract`]) is data (every argument with its type, length, direction, bounds, representation and
//! secrecy) and behaviour (edge cases first, then random cases, all from (seed, case) alone; the reference, and for
//! kernels checked three ways the model and the canonicalisation between the two). Each family is one file; a kernel
//! is a value of its family's contract type, a few lines. The engine enforces the data on every case: generated
//! inputs within their input bounds, the model's and the object code's outputs within their output bounds.

pub mod contract;
mod ct_fixture;
pub mod fndsa_fpu;
mod fndsa_keygen;
pub(crate) mod fndsa_keygen_fft;
pub(crate) mod fndsa_ntt;
mod fndsa_scheme;
pub mod fndsa_verify;
pub mod foreign;
mod keccak;
pub(crate) mod mlkem_ntt;
pub mod mlkem_poly;
mod sample;
mod schemes;
pub mod softfloat;
mod x25519;

use std::sync::LazyLock;

use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;

pub use contract::{
    ArgSpec, Bound, BoundViolation, Checked, Contract, Description, Dir, Elem, Evaluation, Images, Len, Ways,
    check_input_bounds, check_output_bounds,
};

use crate::backend::{Arg, BackendKind, CallOutput};
use contract::Behaviour;
use pqhelium_sim::coverage::Step;

/// Random source of one case: a function of (campaign seed, case index) only.
pub type CaseRng = ChaCha8Rng;

/// Version of the case generators, raised whenever one changes which case a (seed, case index) gives: a campaign
/// is resumed only by generators of its own version. 5: exact corner cases of the ML-KEM inverse and FN-DSA forward
/// NTTs, corner cases of the FN-DSA pointwise products, the keygen forward FFT, the X25519 squaring and
/// multiplication by 121666, and the FP64 roundings (4: the FP64, fixed-point and X25519 corner cases; 3: corner
/// cases among the edge cases; 2: coefficient vectors from `sample`; 1: rand's `gen_range`).
pub const CASE_GENERATORS: u32 = 5;

pub fn case_rng(seed: u64, case: u64) -> CaseRng {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    rng.set_stream(case);
    rng
}

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
    /// How it is checked (from the contract's [`Ways`]).
    pub checked: Checked,
    /// The steps whose bound coverage is reported (`Contract::coverage_steps`), computed when first asked for
    /// (their reachable ends may take an exhaustive search).
    steps: std::sync::OnceLock<Vec<Step>>,
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

    /// Refuses a model that is the reference function itself: a function is never compared with itself.
    fn from_behaviour(description: Description, behaviour: Box<dyn Behaviour>) -> Self {
        assert!(!behaviour.model_is_reference(), "{}: the model is the reference function", description.id);
        let checked = match behaviour.checked() {
            Checked::ThreeWay if description.images == Images::HostOnly => Checked::ModelOnly,
            checked => checked,
        };
        Self { description, checked, steps: std::sync::OnceLock::new(), behaviour }
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
    pub fn declassified(&self) -> &'static [crate::ct::Declassification] {
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
    pub declassified: Option<&'static [crate::ct::Declassification]>,
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

    fn model_is_reference(&self) -> bool {
        false
    }

    fn steps(&self) -> Vec<Step> {
        self.base.coverage_steps().to_vec()
    }

    fn declassified_events(&self) -> &'static [crate::ct::Declassification] {
        self.change.declassified.unwrap_or_else(|| self.base.declassified())
    }
}

/// A changed copy of a registered kernel, for tests that need a contract to be wrong (leaked: test use only).
pub fn variant(id: &str, change: impl FnOnce(&mut Alteration)) -> &'static Kernel {
    let base = find(id).unwrap_or_else(|| panic!("unknown kernel {id}"));
    let mut alteration = Alteration::default();
    change(&mut alteration);
    let mut description = base.description.clone();
    if let Some(symbol) = alteration.symbol {
        description.symbol = symbol;
    }
    Box::leak(Box::new(Kernel::from_behaviour(description, Box::new(Altered { base, change: alteration }))))
}

/// The kernel families, each a module with its contracts. A new family is one line here.
const FAMILIES: &[fn() -> Vec<Kernel>] = &[
    keccak::kernels,
    schemes::kernels,
    fndsa_scheme::kernels,
    fndsa_ntt::kernels,
    mlkem_ntt::kernels,
    mlkem_poly::kernels,
    softfloat::kernels,
    fndsa_fpu::kernels,
    fndsa_keygen::kernels,
    fndsa_keygen_fft::kernels,
    fndsa_verify::kernels,
    x25519::kernels,
    ct_fixture::kernels,
];

static REGISTRY: LazyLock<Vec<Kernel>> = LazyLock::new(|| FAMILIES.iter().flat_map(|family| family()).collect());

/// Every kernel pqhelium knows, family by family.
pub fn all() -> impl Iterator<Item = &'static Kernel> {
    REGISTRY.iter()
}

pub fn find(id: &str) -> Option<&'static Kernel> {
    all().find(|k| k.id == id)
}

/// Kernels whose id matches a glob pattern (`*` any run of characters, `?` one character).
pub fn matching(pattern: &str) -> Vec<&'static Kernel> {
    all().filter(|k| glob_match(pattern.as_bytes(), k.id.as_bytes())).collect()
}

/// Whether `text` matches `pattern` (`*` any run of characters, `?` one character).
pub fn glob_match(pattern: &[u8], text: &[u8]) -> bool {
    match pattern.split_first() {
        None => text.is_empty(),
        Some((b'*', rest)) => (0..=text.len()).any(|i| glob_match(rest, &text[i..])),
        Some((&p, rest)) => {
            text.split_first().is_some_and(|(&t, tail)| (p == b'?' || p == t) && glob_match(rest, tail))
        }
    }
}

/// Helpers for contracts over 32-bit words.
pub(crate) fn words_to_bytes(words: &[u32]) -> Vec<u8> {
    words.iter().flat_map(|w| w.to_le_bytes()).collect()
}

pub(crate) fn bytes_to_words(bytes: &[u8]) -> Vec<u32> {
    bytes.chunks_exact(4).map(|c| u32::from_le_bytes(c.try_into().unwrap())).collect()
}

/// The bytes of an `In` or `InOut` argument (decoders run on arguments whose shape the contract has checked).
pub(crate) fn buffer(arg: &Arg) -> &[u8] {
    match arg {
        Arg::In(b) | Arg::InOut(b) => b,
        other => panic!("expected an input buffer, got {other:?}"),
    }
}

/// The value of a `U32` argument.
pub(crate) fn u32_arg(arg: &Arg) -> u32 {
    match arg {
        Arg::U32(v) => *v,
        other => panic!("expected a u32, got {other:?}"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn globs() {
        assert!(glob_match(b"keccak.*", b"keccak.f1600"));
        assert!(glob_match(b"*", b"anything"));
        assert!(glob_match(b"keccak.?1600", b"keccak.f1600"));
        assert!(!glob_match(b"keccak.*", b"mlkem.ntt.fwd"));
        assert!(!glob_match(b"keccak", b"keccak.f1600"));
    }

    #[test]
    fn ids_are_unique_and_symbols_exist_in_their_images() {
        let m55 = crate::elf::GuestElf::parse("m55", pqhelium_kernels::M55_IMAGE.elf).unwrap();
        let m7 = crate::elf::GuestElf::parse("m7", pqhelium_kernels::M7_IMAGE.elf).unwrap();
        let mut ids: Vec<_> = all().map(|k| k.id).collect();
        ids.sort();
        ids.dedup();
        assert_eq!(ids.len(), all().count());
        for k in all().filter(|k| k.images != Images::HostOnly) {
            assert!(m55.has_symbol(k.symbol), "{} missing from the M55 image", k.symbol);
            assert_eq!(m7.has_symbol(k.symbol), k.images == Images::Both, "{} in the M7 image", k.symbol);
        }
    }

    #[test]
    fn cases_depend_on_seed_and_index_only() {
        for k in all() {
            for case in [0, k.edge_cases, k.edge_cases + 7] {
                let a = k.generate(case, &mut case_rng(42, case));
                let b = k.generate(case, &mut case_rng(42, case));
                let c = k.generate(case, &mut case_rng(43, case));
                assert_eq!(a, b);
                if case >= k.edge_cases {
                    assert_ne!(a, c, "{}: random cases must depend on the seed", k.id);
                }
            }
        }
    }

    /// A function is never compared with itself: no three-way kernel's model is its reference function, and the
    /// kernels whose order of operations is the definition (the FN-DSA signing FP64 kernels and the soft-float) or
    /// whose output is a bare verdict (FN-DSA verification) are checked two ways, with no model.
    #[test]
    fn no_model_is_the_reference() {
        for k in all() {
            assert!(!k.behaviour.model_is_reference(), "{}: the model is the reference function", k.id);
        }
        let two_way: Vec<&str> = all().filter(|k| k.checked == Checked::TwoWay).map(|k| k.id).collect();
        assert_eq!(two_way.len(), 53, "{two_way:?}");
        let definitional = ["fndsa.fpu.", "fndsa.emu.f64.", "fndsa.verify"];
        assert!(two_way.iter().all(|id| definitional.iter().any(|prefix| id.starts_with(prefix))));
        for k in all().filter(|k| k.checked == Checked::TwoWay) {
            assert!(!k.runs_on(BackendKind::Model), "{}: a model row would compare the reference with itself", k.id);
            let args = k.generate(0, &mut case_rng(1, 0));
            assert!(k.evaluate(&args).unwrap().model.is_none(), "{}", k.id);
        }
    }

    /// The data is consistent: every bound fits its element type, inputs have input bounds and outputs output bounds,
    /// lengths name scalar parameters, and the generated arguments have the declared shapes.
    #[test]
    fn descriptions_are_consistent() {
        for k in all() {
            for a in k.args.iter().chain(&k.results).chain(&k.returns) {
                assert_eq!(a.input.is_some(), a.dir != Dir::Out, "{} {}: input bound", k.id, a.name);
                assert_eq!(a.output.is_some(), a.dir != Dir::In, "{} {}: output bound", k.id, a.name);
                for bound in a.input.iter().chain(&a.output) {
                    assert!(bound.fits(a.elem), "{} {}: {bound} on {}", k.id, a.name, a.elem.name());
                }
                if let Len::PowerOfTwo { param, .. } = a.len {
                    assert!(k.args.iter().any(|p| p.name == param && p.len == Len::Scalar), "{} {}", k.id, a.name);
                }
                assert!(!a.repr.is_empty(), "{} {}: no representation", k.id, a.name);
            }
            assert!(k.results.is_empty() || k.images == Images::HostOnly, "{}: results are host-only", k.id);
            let args = k.generate(0, &mut case_rng(1, 0));
            assert_eq!(check_input_bounds(k, &args), Ok(()), "{}", k.id);
        }
    }

    /// The generators stay inside the declared input bounds and relations, edge cases and random cases alike, and
    /// what the object code must produce (the model's outcome, the reference's for two-way kernels) inside the
    /// declared output bounds. The schemes' whole runs are left to the campaigns.
    #[test]
    fn generated_cases_and_models_keep_their_bounds() {
        for k in all().filter(|k| k.images != Images::HostOnly) {
            let cases = (0..k.edge_cases.min(400)).chain(k.edge_cases..k.edge_cases + 60);
            for case in cases {
                let args = k.generate(case, &mut case_rng(0xB0D, case));
                check_input_bounds(k, &args).unwrap_or_else(|e| panic!("case {case}: {e}"));
                let evaluation = k.evaluate(&args).unwrap_or_else(|e| panic!("case {case}: {e}"));
                // Two-way kernels: the reference is what the object code must produce, in the kernel's layout.
                let (produced, side) = match &evaluation.model {
                    Some(model) => (model, "model"),
                    None => (&evaluation.reference, "reference"),
                };
                check_output_bounds(k, &args, produced, side).unwrap_or_else(|e| panic!("case {case}: {e}"));
            }
        }
    }
}
