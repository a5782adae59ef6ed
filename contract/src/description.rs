//! The contract of a kernel, as data and as behaviour.
//!
//! Data ([`Description`], [`ArgSpec`], [`Bound`]): every argument in AAPCS order with its name, element type, length,
//! direction, input and output bounds, representation (with the modulus of residues mod q) and secrecy, and the
//! return value likewise. `pqhelium list`
//! prints it, `pqhelium list --json` exports it, docs/kernels.md is generated from it, and the engine enforces its
//! bounds on every case ([`check_input_bounds`], [`check_output_bounds`]).
//!
//! Behaviour ([`Contract`]): a family implements the trait once, on a value that carries a kernel's parameters
//! (degree, operation, native or soft-float); a kernel is one such value. Inputs are decoded once per case, and the
//! contract says whether the kernel is checked three ways (reference == canon(model), model == object code) or two
//! (reference == object code, where the kernel's order of operations is the definition and no model exists).

use pqhelium_sim::coverage::Step;
use serde::Serialize;

use super::{CaseRng, Outcome};
use pqhelium_guest::backend::Arg;

/// Element type of an argument, as the C prototype declares it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Elem {
    U8,
    I16,
    U16,
    I32,
    U32,
    I64,
    U64,
    F64,
}

impl Elem {
    pub const fn bytes(self) -> usize {
        match self {
            Elem::U8 => 1,
            Elem::I16 | Elem::U16 => 2,
            Elem::I32 | Elem::U32 => 4,
            Elem::I64 | Elem::U64 | Elem::F64 => 8,
        }
    }

    pub const fn name(self) -> &'static str {
        match self {
            Elem::U8 => "u8",
            Elem::I16 => "i16",
            Elem::U16 => "u16",
            Elem::I32 => "i32",
            Elem::U32 => "u32",
            Elem::I64 => "i64",
            Elem::U64 => "u64",
            Elem::F64 => "f64",
        }
    }

    const fn c_type(self) -> &'static str {
        match self {
            Elem::U8 => "uint8_t",
            Elem::I16 => "int16_t",
            Elem::U16 => "uint16_t",
            Elem::I32 => "int32_t",
            Elem::U32 => "uint32_t",
            Elem::I64 => "int64_t",
            Elem::U64 => "uint64_t",
            Elem::F64 => "double",
        }
    }

    /// Element `i` of `bytes` (little-endian) as an integer; `None` for doubles.
    fn integer(self, bytes: &[u8], i: usize) -> Option<i128> {
        let at = i * self.bytes();
        let b = &bytes[at..at + self.bytes()];
        Some(match self {
            Elem::U8 => i128::from(b[0]),
            Elem::I16 => i128::from(i16::from_le_bytes([b[0], b[1]])),
            Elem::U16 => i128::from(u16::from_le_bytes([b[0], b[1]])),
            Elem::I32 => i128::from(i32::from_le_bytes(b.try_into().unwrap())),
            Elem::U32 => i128::from(u32::from_le_bytes(b.try_into().unwrap())),
            Elem::I64 => i128::from(i64::from_le_bytes(b.try_into().unwrap())),
            Elem::U64 => i128::from(u64::from_le_bytes(b.try_into().unwrap())),
            Elem::F64 => return None,
        })
    }

    /// Element `i` of `bytes` as a binary64 (doubles, and doubles stored as their 64-bit pattern).
    fn float(self, bytes: &[u8], i: usize) -> Option<f64> {
        matches!(self, Elem::F64 | Elem::U64)
            .then(|| f64::from_bits(u64::from_le_bytes(bytes[8 * i..8 * i + 8].try_into().unwrap())))
    }
}

/// Direction of an argument. Scalars are `In`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Dir {
    In,
    Out,
    InOut,
}

impl Dir {
    pub const fn name(self) -> &'static str {
        match self {
            Dir::In => "in",
            Dir::Out => "out",
            Dir::InOut => "inout",
        }
    }
}

/// How many elements an argument has.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Len {
    /// Passed by value (core register, FP register or stack): one element.
    Scalar,
    /// A buffer of this many elements.
    Fixed(usize),
    /// A buffer of 2^`param` / 2^`halvings` elements, `param` naming a scalar argument (n = 2^logn; n/2).
    PowerOfTwo { param: &'static str, halvings: u32 },
    /// A buffer of at most this many elements (host-only contracts: messages, contexts, encodings).
    UpTo(usize),
}

impl std::fmt::Display for Len {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Len::Scalar => write!(f, "scalar"),
            Len::Fixed(n) => write!(f, "{n}"),
            Len::PowerOfTwo { param, halvings: 0 } => write!(f, "2^{param}"),
            Len::PowerOfTwo { param, halvings } => write!(f, "2^{param} / {}", 1u64 << halvings),
            Len::UpTo(n) => write!(f, "<= {n}"),
        }
    }
}

/// What every element of an argument satisfies, before the call (input bound) or after it (output bound).
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Bound {
    /// Any value of the element type.
    Any,
    /// Integers in `lo..=hi`.
    Range { lo: i64, hi: i64 },
    /// Canonical residues mod q: `0..=q-1`.
    Canonical { q: i64 },
    /// Binary64 values (`f64`, or `u64` holding the bit pattern): a zero of either sign when `zero`, else finite with
    /// magnitude in [2^min_exp, 2^max_exp) (normal when min_exp >= -1022); never below -0 when `nonnegative`.
    Float { zero: bool, min_exp: i32, max_exp: i32, nonnegative: bool },
}

impl Bound {
    /// `|x| <= max`.
    pub const fn magnitude(max: i64) -> Bound {
        Bound::Range { lo: -max, hi: max }
    }

    /// Zero or normal with magnitude in [2^min_exp, 2^max_exp), either sign.
    pub const fn float(min_exp: i32, max_exp: i32) -> Bound {
        Bound::Float { zero: true, min_exp, max_exp, nonnegative: false }
    }

    /// Zero or normal, any finite magnitude.
    pub const ZERO_OR_NORMAL: Bound = Bound::float(-1022, 1024);

    fn admits_integer(&self, x: i128) -> bool {
        match *self {
            Bound::Any => true,
            Bound::Range { lo, hi } => (i128::from(lo)..=i128::from(hi)).contains(&x),
            Bound::Canonical { q } => (0..i128::from(q)).contains(&x),
            Bound::Float { .. } => false,
        }
    }

    fn admits_float(&self, x: f64) -> bool {
        match *self {
            Bound::Any => true,
            Bound::Float { zero, min_exp, max_exp, nonnegative } => {
                if x == 0.0 {
                    return zero;
                }
                let magnitude = x.abs();
                !(nonnegative && x < 0.0) && magnitude >= pow2(min_exp) && magnitude < pow2(max_exp)
            }
            Bound::Range { .. } | Bound::Canonical { .. } => false,
        }
    }

    /// Whether the bound applies to elements of this type.
    pub fn fits(&self, elem: Elem) -> bool {
        match self {
            Bound::Any => true,
            Bound::Range { .. } | Bound::Canonical { .. } => elem != Elem::F64,
            Bound::Float { .. } => matches!(elem, Elem::F64 | Elem::U64),
        }
    }
}

/// 2^k as a double for any k in [-1074, 1024] (2^1024 is infinity: "every finite magnitude"), built from its bits:
/// `powi` computes 2^-k first and overflows for k < -1023.
fn pow2(k: i32) -> f64 {
    match k {
        1024.. => f64::INFINITY,
        -1022..=1023 => f64::from_bits(((k + 1023) as u64) << 52),
        -1074..=-1023 => f64::from_bits(1 << (k + 1074)),
        _ => 0.0,
    }
}

impl std::fmt::Display for Bound {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match *self {
            Bound::Any => write!(f, "any"),
            Bound::Range { lo, hi } if lo == -hi => write!(f, "|x| <= {hi}"),
            Bound::Range { lo, hi } => write!(f, "[{lo}, {hi}]"),
            Bound::Canonical { q } => write!(f, "canonical mod {q}: [0, {}]", q - 1),
            Bound::Float { zero, min_exp, max_exp, nonnegative } => {
                if zero {
                    write!(f, "zero or ")?;
                }
                if (min_exp, max_exp) == (-1022, 1024) {
                    write!(f, "normal")?;
                } else {
                    write!(f, "|x| in [2^{min_exp}, 2^{max_exp})")?;
                }
                if nonnegative {
                    write!(f, ", not below -0")?;
                }
                Ok(())
            }
        }
    }
}

/// What the integers of an argument are when they are residues mod q: the modulus, and the residue each stored value
/// stands for. byo's factor and form adapters act on the stored values (theirs = ours times the factor, mod q), so
/// this says what "ours" is; the contract computes mod q on such an argument (its inputs matter only mod q, its
/// reference gives canonical residues).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct Modulus {
    pub q: i64,
    #[serde(flatten)]
    pub form: ResidueForm,
}

impl Modulus {
    /// Residues mod q stored as themselves.
    pub const fn plain(q: i64) -> Self {
        Self { q, form: ResidueForm::Plain }
    }

    /// Residues mod q stored in Montgomery form, R = 2^log2_r.
    pub const fn montgomery(q: i64, log2_r: u32) -> Self {
        Self { q, form: ResidueForm::Montgomery { log2_r } }
    }
}

/// The residue a stored value `x` stands for.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(tag = "form", rename_all = "lowercase")]
pub enum ResidueForm {
    /// `x mod q`.
    Plain,
    /// `x R^-1 mod q`, R = 2^log2_r (Montgomery form).
    Montgomery { log2_r: u32 },
}

impl std::fmt::Display for Modulus {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self.form {
            ResidueForm::Plain => write!(f, "mod {}", self.q),
            ResidueForm::Montgomery { log2_r } => write!(f, "mod {}, Montgomery form (R = 2^{log2_r})", self.q),
        }
    }
}

/// One argument (or the return value, or a host-only result) of a kernel.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct ArgSpec {
    pub name: &'static str,
    #[serde(rename = "type")]
    pub elem: Elem,
    #[serde(rename = "length")]
    pub len: Len,
    #[serde(rename = "direction")]
    pub dir: Dir,
    /// What every element satisfies before the call (`None` for `Out`).
    pub input: Option<Bound>,
    /// What every element satisfies after the call (`None` for `In`: the buffer comes back unchanged).
    pub output: Option<Bound>,
    /// Storage order or value representation by name: `fips203`, `mve-order`, `bit-interleaved`, `ieee754`...
    #[serde(rename = "representation")]
    pub repr: &'static str,
    /// The modulus when the elements are residues mod q (`None`: any other data).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub modulus: Option<Modulus>,
    /// Whether the value is secret (the constant-time checker reads this).
    pub secret: bool,
    /// The C struct the bytes are, for a `u8` buffer that holds one (`struct fndsa_fpu_centre`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub c_struct: Option<&'static str>,
}

impl ArgSpec {
    const fn new(name: &'static str, elem: Elem, len: Len, dir: Dir) -> Self {
        Self { name, elem, len, dir, input: None, output: None, repr: "", modulus: None, secret: false, c_struct: None }
    }

    /// A buffer the kernel reads.
    pub const fn input(name: &'static str, elem: Elem, len: Len, bound: Bound) -> Self {
        Self { input: Some(bound), ..Self::new(name, elem, len, Dir::In) }
    }

    /// A buffer the kernel writes.
    pub const fn output(name: &'static str, elem: Elem, len: Len, bound: Bound) -> Self {
        Self { output: Some(bound), ..Self::new(name, elem, len, Dir::Out) }
    }

    /// A buffer read and written in place.
    pub const fn in_out(name: &'static str, elem: Elem, len: Len, input: Bound, output: Bound) -> Self {
        Self { input: Some(input), output: Some(output), ..Self::new(name, elem, len, Dir::InOut) }
    }

    /// A value passed in a register.
    pub const fn scalar(name: &'static str, elem: Elem, bound: Bound) -> Self {
        Self { input: Some(bound), ..Self::new(name, elem, Len::Scalar, Dir::In) }
    }

    /// A returned value (r0, r0:r1 or d0).
    pub const fn returned(name: &'static str, elem: Elem, bound: Bound) -> Self {
        Self { output: Some(bound), ..Self::new(name, elem, Len::Scalar, Dir::Out) }
    }

    pub const fn repr(self, repr: &'static str) -> Self {
        Self { repr, ..self }
    }

    /// The elements are residues mod `modulus.q`.
    pub const fn modulus(self, modulus: Modulus) -> Self {
        Self { modulus: Some(modulus), ..self }
    }

    pub const fn secret(self) -> Self {
        Self { secret: true, ..self }
    }

    /// The bytes are one `struct name` of the C side.
    pub const fn c_struct(self, name: &'static str) -> Self {
        Self { c_struct: Some(name), ..self }
    }

    fn is_buffer(&self) -> bool {
        self.len != Len::Scalar
    }

    /// Element `i` of a buffer of this argument as a reader wants it: residues and signed integers in decimal, other
    /// unsigned words (lanes, bit patterns) in hex, doubles in scientific notation.
    pub fn show_element(&self, bytes: &[u8], i: usize) -> String {
        match (self.elem, self.elem.integer(bytes, i)) {
            (Elem::F64, _) | (_, None) => format!("{:e}", self.elem.float(bytes, i).unwrap_or(f64::NAN)),
            (Elem::I16 | Elem::I32 | Elem::I64, Some(x)) => x.to_string(),
            (_, Some(x)) if self.modulus.is_some() => x.to_string(),
            (elem, Some(x)) => format!("{x:#0width$x}", width = 2 + 2 * elem.bytes()),
        }
    }

    /// The argument in a C prototype.
    fn c_declaration(&self) -> String {
        let constant = if self.dir == Dir::In && self.is_buffer() { "const " } else { "" };
        match (self.c_struct, self.len) {
            (Some(s), _) => format!("{constant}struct {s} *{}", self.name),
            (None, Len::Scalar) => format!("{} {}", self.elem.c_type(), self.name),
            (None, Len::Fixed(n)) => format!("{constant}{} {}[{n}]", self.elem.c_type(), self.name),
            (None, _) => format!("{constant}{} *{}", self.elem.c_type(), self.name),
        }
    }
}

/// Which guest images contain the kernel.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub enum Images {
    /// Portable code: built for the Cortex-M55 and Cortex-M85 (QEMU) and the Cortex-M7 (unicorn) images.
    #[serde(rename = "m55+m85+m7")]
    Both,
    /// MVE code: the Cortex-M55 and Cortex-M85 images only.
    #[serde(rename = "m55+m85")]
    M55Only,
    /// No object code: a whole scheme in Rust checked against an oracle crate (model backend only).
    #[serde(rename = "host")]
    HostOnly,
}

/// How a kernel is checked.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub enum Checked {
    /// reference == object code: the kernel's order of operations is the definition, so no separate model exists.
    #[serde(rename = "two-way")]
    TwoWay,
    /// reference == canon(model) and model == object code, byte for byte.
    #[serde(rename = "three-way")]
    ThreeWay,
    /// A whole scheme on the host, with no object code: reference (an oracle crate) == model (pqhelium-core).
    #[serde(rename = "model-only")]
    ModelOnly,
}

impl Checked {
    pub const fn explain(self) -> &'static str {
        match self {
            Checked::TwoWay => "two ways: reference == object code",
            Checked::ThreeWay => "three ways: reference == canon(model), model == object code",
            Checked::ModelOnly => "on the host: reference (an oracle crate) == model (pqhelium-core), no object code",
        }
    }
}

/// The contract of one kernel as data.
#[derive(Debug, Clone, Serialize)]
pub struct Description {
    pub id: &'static str,
    /// The guest symbol (empty for host-only contracts).
    pub symbol: &'static str,
    pub images: Images,
    pub summary: String,
    /// What the outputs are, in terms of the inputs (beyond the bounds).
    pub computes: String,
    /// Relations between inputs that per-element bounds cannot state (enforced by [`Contract::precondition`]);
    /// empty when the bounds say it all.
    pub requires: String,
    /// Cases `0..edge_cases` are the edge cases, in order; later cases are random.
    pub edge_cases: u64,
    /// The arguments in AAPCS order.
    pub args: Vec<ArgSpec>,
    /// The return value (`None`: void).
    pub returns: Option<ArgSpec>,
    /// Outputs that are not arguments: what a host-only contract computes (keys, ciphertexts, verdicts).
    pub results: Vec<ArgSpec>,
}

impl Description {
    /// The C prototype, generated from the arguments (`None` for host-only contracts).
    pub fn prototype(&self) -> Option<String> {
        if self.images == Images::HostOnly {
            return None;
        }
        let ret = self.returns.map_or("void", |r| r.elem.c_type());
        let args: Vec<String> = self.args.iter().map(ArgSpec::c_declaration).collect();
        Some(format!("{ret} {}({})", self.symbol, args.join(", ")))
    }

    /// The outcome's buffers, in order: the `Out` and `InOut` arguments, then the results.
    pub fn outputs(&self) -> impl Iterator<Item = &ArgSpec> {
        self.args.iter().filter(|a| a.dir != Dir::In).chain(&self.results)
    }
}

/// The permission to run a contract's reference, held only by this crate's checks ([`Behaviour`]). The reference
/// function takes one and a model cannot make one, so a model is not the reference by construction: a model that
/// is the reference function has the wrong type, and one that calls it does not compile.
///
/// The two refusals below differ from this, which compiles, only in the line that makes or names the reference:
///
/// ```
/// use pqhelium_contract::{Contract, Outcome, RunReference, Ways};
/// fn checks<C: Contract>(contract: &C, input: &C::Input, run: RunReference) -> Outcome {
///     contract.reference(input, run)
/// }
/// fn three_ways<C: Contract>(canon: fn(&C, &Outcome) -> Outcome) -> Ways<C> {
///     Ways::Three { model: |_, _| Outcome { buffers: vec![], ret: None }, canon }
/// }
/// ```
///
/// ```compile_fail,E0423
/// use pqhelium_contract::{Contract, Outcome, RunReference};
/// fn model<C: Contract>(contract: &C, input: &C::Input) -> Outcome {
///     contract.reference(input, RunReference(()))
/// }
/// ```
///
/// ```compile_fail,E0308
/// use pqhelium_contract::{Contract, Outcome, Ways};
/// fn three_ways<C: Contract>(canon: fn(&C, &Outcome) -> Outcome) -> Ways<C> {
///     Ways::Three { model: C::reference, canon }
/// }
/// ```
#[derive(Debug)]
pub struct RunReference(());

/// How a kernel is checked, with the model when there is one.
pub enum Ways<C: Contract + ?Sized> {
    /// The object code against the reference alone.
    Two,
    /// The model (the kernel's exact outputs, in its own layout) against the reference through `canon`, and the
    /// object code against the model.
    Three { model: fn(&C, &C::Input) -> Outcome, canon: fn(&C, &Outcome) -> Outcome },
}

/// The behaviour of a contract: a family implements it once; a kernel is a value carrying its parameters.
pub trait Contract: Send + Sync + 'static {
    /// The inputs of one case, decoded.
    type Input;

    fn describe(&self) -> Description;
    /// The inputs of case `case`, from `rng = case_rng(seed, case)` alone; edge cases first.
    fn generate(&self, case: u64, rng: &mut CaseRng) -> Self::Input;
    /// The AAPCS arguments of a call on `input`.
    fn encode(&self, input: &Self::Input) -> Vec<Arg>;
    /// The inverse of `encode`, on arguments that passed [`check_input_bounds`]' shape checks.
    fn decode(&self, args: &[Arg]) -> Self::Input;
    /// What the standard computes, in the reference layout (run by the checks alone: [`RunReference`]).
    fn reference(&self, input: &Self::Input, run: RunReference) -> Outcome;
    fn ways(&self) -> Ways<Self>;
    /// Relations between the inputs beyond the per-element bounds ([`Description::requires`]).
    fn precondition(&self, _input: &Self::Input) -> Result<(), String> {
        Ok(())
    }
    /// Differences in the leakage trace that are public by design (`pqhelium ct`), each with its reason.
    fn declassified(&self) -> &'static [pqhelium_guest::trace::Declassification] {
        &[]
    }
    /// The reduction, rounding and truncation steps the model observes (`pqhelium_sim::coverage`), each with what
    /// its bounds proof allows: the bound coverage that `fuzz`, `check` and `coverage` report. Empty for a family
    /// that does not report it yet.
    fn coverage_steps(&self) -> Vec<Step> {
        Vec::new()
    }
}

/// What the host computes for one case, from inputs decoded once.
#[derive(Debug, Clone)]
pub struct Evaluation {
    pub reference: Outcome,
    /// The model's outcome (three-way kernels).
    pub model: Option<Outcome>,
}

/// A contract with its input type erased: what the registry stores.
pub trait Behaviour: Send + Sync {
    fn generate_args(&self, case: u64, rng: &mut CaseRng) -> Vec<Arg>;
    /// The reference and the model on one case; `Err` when the inputs break the contract's precondition.
    fn evaluate(&self, args: &[Arg]) -> Result<Evaluation, String>;
    /// The reference alone on one case (a kernel of someone else's is compared with it and has no use for a model
    /// of ours); `Err` when the inputs break the contract's precondition.
    fn evaluate_reference(&self, args: &[Arg]) -> Result<Outcome, String> {
        self.evaluate(args).map(|evaluation| evaluation.reference)
    }
    /// What the object code must produce on one case (the model's outcome, or the reference's for two-way kernels),
    /// computing nothing else.
    fn expected(&self, args: &[Arg]) -> Outcome;
    fn canonical(&self, outcome: &Outcome) -> Outcome;
    /// Whether the object code's outcome goes through `canonical` before it is compared (a kernel of someone else's,
    /// in their order and representation); otherwise it is compared as it is.
    fn canonicalises_object_code(&self) -> bool {
        false
    }
    fn checked(&self) -> Checked;
    fn declassified_events(&self) -> &'static [pqhelium_guest::trace::Declassification];
    /// The steps whose bound coverage is reported ([`Contract::coverage_steps`]); none for kernels of others.
    fn steps(&self) -> Vec<Step> {
        Vec::new()
    }
    /// What the object code's failing outcome on `args` suggests about a kernel of someone else's adapters (a wrong
    /// factor, order or direction), when a simple pattern explains it.
    fn hint(&self, _args: &[Arg], _outcome: &Outcome) -> Option<String> {
        None
    }
    /// The reference's outcome put in a kernel of someone else's layout: for each of its output buffers that carries
    /// a contract output, the buffer's index and its bytes. `None` for a kernel in the contract's layout.
    fn in_kernel_layout(&self, _reference: &Outcome) -> Option<Vec<(usize, Vec<u8>)>> {
        None
    }
}

impl<C: Contract> Behaviour for C {
    fn generate_args(&self, case: u64, rng: &mut CaseRng) -> Vec<Arg> {
        self.encode(&self.generate(case, rng))
    }

    fn evaluate(&self, args: &[Arg]) -> Result<Evaluation, String> {
        let input = self.decode(args);
        self.precondition(&input)?;
        let model = match self.ways() {
            Ways::Two => None,
            Ways::Three { model, .. } => Some(model(self, &input)),
        };
        Ok(Evaluation { reference: self.reference(&input, RunReference(())), model })
    }

    fn evaluate_reference(&self, args: &[Arg]) -> Result<Outcome, String> {
        let input = self.decode(args);
        self.precondition(&input)?;
        Ok(self.reference(&input, RunReference(())))
    }

    fn expected(&self, args: &[Arg]) -> Outcome {
        let input = self.decode(args);
        match self.ways() {
            Ways::Two => self.reference(&input, RunReference(())),
            Ways::Three { model, .. } => model(self, &input),
        }
    }

    fn canonical(&self, outcome: &Outcome) -> Outcome {
        match self.ways() {
            Ways::Two => outcome.clone(),
            Ways::Three { canon, .. } => canon(self, outcome),
        }
    }

    fn declassified_events(&self) -> &'static [pqhelium_guest::trace::Declassification] {
        self.declassified()
    }

    fn steps(&self) -> Vec<Step> {
        self.coverage_steps()
    }

    fn checked(&self) -> Checked {
        match self.ways() {
            Ways::Two => Checked::TwoWay,
            Ways::Three { .. } => Checked::ThreeWay,
        }
    }
}

/// A case, a model or a call that breaks its contract.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum BoundViolation {
    /// An element outside its declared bound.
    #[error("{kernel}: {side} {arg}[{index}] = {value}, outside its bound {bound}")]
    Element { kernel: &'static str, side: String, arg: &'static str, index: usize, value: String, bound: String },
    /// An argument or output of the wrong kind, length or number, or inputs that break a declared relation.
    #[error("{kernel}: {side}: {problem}")]
    Shape { kernel: &'static str, side: String, problem: String },
}

impl BoundViolation {
    /// The side that broke the contract: `generated input`, `model output`, `qemu output`...
    pub fn side(&self) -> &str {
        match self {
            BoundViolation::Element { side, .. } | BoundViolation::Shape { side, .. } => side,
        }
    }
}

/// Checks a case against the contract's inputs: every argument of the declared kind and length, every input
/// element (buffers and scalars) within its input bound. Relations between inputs are the precondition's, checked
/// when the case is evaluated.
pub fn check_input_bounds(description: &Description, args: &[Arg]) -> Result<(), BoundViolation> {
    let side = "generated input";
    let shape = |problem: String| BoundViolation::Shape { kernel: description.id, side: side.into(), problem };
    if args.len() != description.args.len() {
        return Err(shape(format!("{} arguments, the contract declares {}", args.len(), description.args.len())));
    }
    // Scalars first: buffer lengths may depend on them.
    let pairs = description.args.iter().zip(args);
    for (spec, arg) in pairs.clone().filter(|(s, _)| !s.is_buffer()).chain(pairs.filter(|(s, _)| s.is_buffer())) {
        let scalar: [u8; 8];
        let data: &[u8] = match (spec.len, spec.dir, arg) {
            (Len::Scalar, Dir::In, Arg::U32(v)) if spec.elem.bytes() == 4 => {
                scalar = u64::from(*v).to_le_bytes();
                &scalar[..4]
            }
            (Len::Scalar, Dir::In, Arg::F64(x)) if spec.elem == Elem::F64 => {
                scalar = x.to_bits().to_le_bytes();
                &scalar
            }
            (Len::Scalar, ..) => {
                return Err(shape(format!("{}: {arg:?} for a {} scalar", spec.name, spec.elem.name())));
            }
            (_, Dir::In, Arg::In(bytes)) | (_, Dir::InOut, Arg::InOut(bytes)) => {
                expect_length(description, args, spec, bytes.len()).map_err(shape)?;
                bytes
            }
            (_, Dir::Out, Arg::Out(n)) => {
                expect_length(description, args, spec, *n).map_err(shape)?;
                continue;
            }
            _ => {
                let problem = format!("{}: {} for an argument of direction {}", spec.name, kind(arg), spec.dir.name());
                return Err(shape(problem));
            }
        };
        check_elements(description, &|| side.to_owned(), spec, data, spec.input.unwrap_or(Bound::Any))?;
    }
    Ok(())
}

/// Checks what a call returned (object code or model, named by `side`: `model`, `qemu`...) against the declared
/// output bounds: one buffer per `Out` and `InOut` argument (then per result), each of its declared length with
/// every element within its output bound, and the return value within its bound. A violation names the kernel, the
/// argument, the element index, the value and the bound.
pub fn check_output_bounds(
    description: &Description,
    args: &[Arg],
    outcome: &Outcome,
    side: &str,
) -> Result<(), BoundViolation> {
    // Named only in an error: this runs for every case of a campaign, twice.
    let side = || format!("{side} output");
    let shape = |problem: String| BoundViolation::Shape { kernel: description.id, side: side(), problem };
    let outputs = description.outputs().count();
    if outcome.buffers.len() != outputs {
        return Err(shape(format!("{} output buffers, the contract declares {outputs}", outcome.buffers.len())));
    }
    for (spec, data) in description.outputs().zip(&outcome.buffers) {
        expect_length(description, args, spec, data.len()).map_err(shape)?;
        check_elements(description, &side, spec, data, spec.output.unwrap_or(Bound::Any))?;
    }
    match (&description.returns, outcome.ret) {
        (None, None) => Ok(()),
        (Some(spec), Some(value)) => {
            let bytes = value.to_le_bytes();
            check_elements(description, &side, spec, &bytes[..spec.elem.bytes()], spec.output.unwrap_or(Bound::Any))
        }
        (None, Some(_)) => Err(shape("a return value from a void function".into())),
        (Some(spec), None) => Err(shape(format!("no return value {}", spec.name))),
    }
}

fn kind(arg: &Arg) -> &'static str {
    match arg {
        Arg::In(_) => "an input buffer",
        Arg::InOut(_) => "an in/out buffer",
        Arg::Out(_) => "an output buffer",
        Arg::U32(_) => "a u32",
        Arg::F64(_) => "a double",
    }
}

fn element(
    description: &Description,
    side: String,
    spec: &ArgSpec,
    index: usize,
    value: String,
    bound: Bound,
) -> BoundViolation {
    BoundViolation::Element { kernel: description.id, side, arg: spec.name, index, value, bound: bound.to_string() }
}

fn show_float(x: f64) -> String {
    format!("{x:e} ({:#018x})", x.to_bits())
}

/// Whether every element of a buffer of 16- or 32-bit integers lies within an integer bound, in one pass over the
/// buffer the host vectorises (outputs are checked on every case of a campaign); `false` where it cannot tell, and
/// the element-by-element search below then finds the first element outside, or none.
fn all_within_fast(elem: Elem, data: &[u8], bound: Bound) -> bool {
    let (lo, hi) = match bound {
        Bound::Range { lo, hi } => (lo, hi),
        Bound::Canonical { q } => (0, q - 1),
        Bound::Any | Bound::Float { .. } => return false,
    };
    // Compared in the element's own width (eight or sixteen host lanes a vector, not four 64-bit ones): a bound
    // beyond the type's range is clamped to it, and a bound admitting no value of the type takes the slow path.
    match elem {
        Elem::I16 => narrowed(lo, hi, i16::MIN.into(), i16::MAX.into()).is_some_and(|(lo, hi)| {
            let (lo, hi) = (lo as i16, hi as i16);
            data.chunks_exact(2).fold(true, |ok, c| {
                let x = i16::from_le_bytes([c[0], c[1]]);
                ok & (lo <= x) & (x <= hi)
            })
        }),
        Elem::I32 => narrowed(lo, hi, i32::MIN.into(), i32::MAX.into()).is_some_and(|(lo, hi)| {
            let (lo, hi) = (lo as i32, hi as i32);
            data.chunks_exact(4).fold(true, |ok, c| {
                let x = i32::from_le_bytes([c[0], c[1], c[2], c[3]]);
                ok & (lo <= x) & (x <= hi)
            })
        }),
        _ => false,
    }
}

/// `lo..=hi` within `min..=max`, if any value of that range lies in it.
fn narrowed(lo: i64, hi: i64, min: i64, max: i64) -> Option<(i64, i64)> {
    let (lo, hi) = (lo.max(min), hi.min(max));
    (lo <= hi).then_some((lo, hi))
}

/// The first element of `data` outside `bound`, as a violation.
fn check_elements(
    description: &Description,
    side: &dyn Fn() -> String,
    spec: &ArgSpec,
    data: &[u8],
    bound: Bound,
) -> Result<(), BoundViolation> {
    if all_within_fast(spec.elem, data, bound) {
        return Ok(());
    }
    let count = data.len() / spec.elem.bytes();
    let outside = match bound {
        Bound::Any => None,
        Bound::Float { .. } => (0..count)
            .map(|i| (i, spec.elem.float(data, i).expect("a float bound on a binary64 buffer")))
            .find(|&(_, x)| !bound.admits_float(x))
            .map(|(i, x)| (i, show_float(x))),
        Bound::Range { .. } | Bound::Canonical { .. } => (0..count)
            .map(|i| (i, spec.elem.integer(data, i).expect("an integer bound on an integer buffer")))
            .find(|&(_, x)| !bound.admits_integer(x))
            .map(|(i, x)| (i, x.to_string())),
    };
    match outside {
        None => Ok(()),
        Some((index, value)) => Err(element(description, side(), spec, index, value, bound)),
    }
}

/// Checks a buffer's byte length against the declared length (a power of two of a scalar argument resolved from
/// `args`).
fn expect_length(description: &Description, args: &[Arg], spec: &ArgSpec, bytes: usize) -> Result<(), String> {
    let size = spec.elem.bytes();
    let declared = match spec.len {
        Len::Scalar => 1,
        Len::Fixed(n) => n,
        Len::PowerOfTwo { param, halvings } => {
            let at = description.args.iter().position(|a| a.name == param && a.len == Len::Scalar);
            let Some(Arg::U32(exponent)) = at.and_then(|i| args.get(i)) else {
                return Err(format!("{}: no scalar argument {param} gives its length", spec.name));
            };
            match 1usize.checked_shl(*exponent) {
                Some(n) if *exponent < usize::BITS && n >> halvings > 0 => n >> halvings,
                _ => return Err(format!("{}: {param} = {exponent} gives no length", spec.name)),
            }
        }
        Len::UpTo(max) => {
            return if bytes.is_multiple_of(size) && bytes / size <= max {
                Ok(())
            } else {
                Err(format!("{}: {bytes} bytes, the contract allows at most {max} elements of {size}", spec.name))
            };
        }
    };
    if bytes == declared * size {
        Ok(())
    } else {
        Err(format!("{}: {bytes} bytes, the contract declares {declared} elements of {size} bytes", spec.name))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Exact at both ends of the range, subnormals included: 2^-1074 is the least positive double, 2^-1022 the least
    /// normal one, and 2^k 2^-k = 1 across the normal range.
    #[test]
    fn powers_of_two_are_exact_over_the_whole_range() {
        assert_eq!(pow2(-1074), f64::from_bits(1));
        assert_eq!(pow2(-1073), f64::from_bits(2));
        assert_eq!(pow2(-1023), f64::MIN_POSITIVE / 2.0);
        assert_eq!(pow2(-1022), f64::MIN_POSITIVE);
        assert_eq!(pow2(1023), 2f64.powi(1023));
        assert_eq!(pow2(1023).to_bits(), 0x7FE0_0000_0000_0000);
        assert_eq!(pow2(1023) * 2.0, f64::INFINITY);
        assert_eq!(pow2(1024), f64::INFINITY);
        // Outside the range: 2^-1075 rounds to 0 (a tie, to even), and there is nothing above infinity.
        assert_eq!(pow2(-1075), 0.0);
        assert_eq!(pow2(i32::MIN), 0.0);
        assert_eq!(pow2(i32::MAX), f64::INFINITY);
        assert_eq!(pow2(0), 1.0);
        for k in -1022..=1022 {
            assert_eq!(pow2(k) * pow2(-k), 1.0, "k = {k}");
        }
        for k in -1074..-1022 {
            assert_eq!(pow2(k) * 2.0, pow2(k + 1), "k = {k}");
        }
    }

    /// The one-pass check agrees with the element-by-element one, bounds beyond the element type included.
    #[test]
    fn the_one_pass_check_agrees_with_each_element() {
        let values: Vec<i64> = vec![i16::MIN.into(), -3329, -1, 0, 1, 3328, 3329, i16::MAX.into()];
        let bounds = [
            Bound::Range { lo: -3329, hi: 3329 },
            Bound::Range { lo: -40_000, hi: 40_000 },
            Bound::Range { lo: 40_000, hi: 50_000 },
            Bound::Range { lo: -50_000, hi: -40_000 },
            Bound::Range { lo: i64::from(i32::MIN) - 1, hi: i64::from(i32::MAX) + 1 },
            Bound::Canonical { q: 3329 },
        ];
        for bound in bounds {
            for (k, &x) in values.iter().enumerate() {
                // Every value alone, and all values up to it.
                for chunk in [&values[k..=k], &values[..=k]] {
                    let expected = chunk.iter().all(|&v| bound.admits_integer(v.into()));
                    let i16s: Vec<u8> = chunk.iter().flat_map(|&v| (v as i16).to_le_bytes()).collect();
                    let i32s: Vec<u8> = chunk.iter().flat_map(|&v| (v as i32).to_le_bytes()).collect();
                    assert_eq!(all_within_fast(Elem::I16, &i16s, bound), expected, "{bound:?} {x} i16");
                    assert_eq!(all_within_fast(Elem::I32, &i32s, bound), expected, "{bound:?} {x} i32");
                }
            }
        }
    }

    #[test]
    fn bounds_admit_what_they_say() {
        let b = Bound::magnitude(23588);
        assert!(b.admits_integer(-23588) && b.admits_integer(23588) && !b.admits_integer(23589));
        let c = Bound::Canonical { q: 3329 };
        assert!(c.admits_integer(0) && c.admits_integer(3328) && !c.admits_integer(3329) && !c.admits_integer(-1));
        let f = Bound::float(-476, 80);
        for x in [0.0, -0.0, 1.0, -2f64.powi(79), 2f64.powi(-476), f64::from_bits(0x44EF_FFFF_FFFF_FFFF)] {
            assert!(f.admits_float(x), "{x:e}");
        }
        for x in [2f64.powi(80), 2f64.powi(-477), f64::NAN, f64::INFINITY, f64::MIN_POSITIVE / 2.0] {
            assert!(!f.admits_float(x), "{x:e}");
        }
        let nonnegative = Bound::Float { zero: true, min_exp: -10, max_exp: 10, nonnegative: true };
        assert!(nonnegative.admits_float(-0.0) && !nonnegative.admits_float(-1.0));
        assert!(Bound::ZERO_OR_NORMAL.admits_float(f64::MAX) && !Bound::ZERO_OR_NORMAL.admits_float(f64::INFINITY));
        assert!(!Bound::ZERO_OR_NORMAL.admits_float(f64::MIN_POSITIVE / 2.0));
    }

    /// The modulus as `pqhelium list` prints it (cli/tests/listing.rs checks the JSON).
    #[test]
    fn moduli_print_their_form() {
        assert_eq!(Modulus::plain(3329).to_string(), "mod 3329");
        assert_eq!(Modulus::montgomery(3329, 16).to_string(), "mod 3329, Montgomery form (R = 2^16)");
        let spec = ArgSpec::input("a", Elem::I16, Len::Fixed(4), Bound::Any).repr("words");
        assert_eq!(spec.modulus, None);
        assert_eq!(spec.modulus(Modulus::plain(3329)).modulus, Some(Modulus::plain(3329)));
    }

    fn poly_contract() -> Description {
        Description {
            id: "test.poly",
            symbol: "test_poly",
            images: Images::Both,
            summary: String::new(),
            computes: String::new(),
            requires: String::new(),
            edge_cases: 0,
            args: vec![
                ArgSpec::output("r", Elem::I16, Len::PowerOfTwo { param: "logn", halvings: 1 }, Bound::magnitude(9)),
                ArgSpec::input("a", Elem::I16, Len::PowerOfTwo { param: "logn", halvings: 0 }, Bound::magnitude(5)),
                ArgSpec::scalar("logn", Elem::U32, Bound::Range { lo: 1, hi: 3 }),
            ],
            returns: None,
            results: vec![],
        }
    }

    fn lanes(values: &[i16]) -> Vec<u8> {
        values.iter().flat_map(|x| x.to_le_bytes()).collect()
    }

    #[test]
    fn input_checks_name_the_argument_index_value_and_bound() {
        let d = poly_contract();
        assert_eq!(d.prototype().unwrap(), "void test_poly(int16_t *r, const int16_t *a, uint32_t logn)");
        let good = vec![Arg::Out(4), Arg::In(lanes(&[5, -5, 0, 1])), Arg::U32(2)];
        assert_eq!(check_input_bounds(&d, &good), Ok(()));
        let bad = vec![Arg::Out(4), Arg::In(lanes(&[5, -5, 6, 1])), Arg::U32(2)];
        let e = check_input_bounds(&d, &bad).unwrap_err();
        assert_eq!(e.to_string(), "test.poly: generated input a[2] = 6, outside its bound |x| <= 5");
        let short = vec![Arg::Out(4), Arg::In(lanes(&[5, -5, 0])), Arg::U32(2)];
        assert!(matches!(check_input_bounds(&d, &short), Err(BoundViolation::Shape { .. })));
        let logn = vec![Arg::Out(4), Arg::In(lanes(&[0; 16])), Arg::U32(4)];
        assert!(check_input_bounds(&d, &logn).unwrap_err().to_string().contains("logn[0] = 4"));
        let kind = vec![Arg::In(vec![0; 4]), Arg::In(lanes(&[0; 4])), Arg::U32(2)];
        assert!(matches!(check_input_bounds(&d, &kind), Err(BoundViolation::Shape { .. })));
    }

    #[test]
    fn output_checks_name_the_side_argument_index_value_and_bound() {
        let d = poly_contract();
        let args = vec![Arg::Out(4), Arg::In(lanes(&[0; 4])), Arg::U32(2)];
        let ok = Outcome { buffers: vec![lanes(&[9, -9])], ret: None };
        assert_eq!(check_output_bounds(&d, &args, &ok, "qemu"), Ok(()));
        let bad = Outcome { buffers: vec![lanes(&[9, -10])], ret: None };
        assert_eq!(
            check_output_bounds(&d, &args, &bad, "qemu").unwrap_err().to_string(),
            "test.poly: qemu output r[1] = -10, outside its bound |x| <= 9"
        );
        let long = Outcome { buffers: vec![lanes(&[0, 0, 0])], ret: None };
        assert!(matches!(check_output_bounds(&d, &args, &long, "model"), Err(BoundViolation::Shape { .. })));
        let returned = Outcome { buffers: vec![lanes(&[0, 0])], ret: Some(1) };
        assert!(matches!(check_output_bounds(&d, &args, &returned, "model"), Err(BoundViolation::Shape { .. })));
    }
}
