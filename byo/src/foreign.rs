//! A kernel of someone else's: their symbol, checked against one of our contracts through adapters between their
//! data and the contract's (argument order and extra arguments, storage order, a factor mod q, centred or unsigned
//! inputs, narrowed input bounds, their own output bound).
//!
//! It is checked two ways: the contract's reference == canonicalisation of the object code's outcome (their outputs
//! put back in the contract's order, divided by their factor, reduced mod q, then through the contract's own
//! canonicalisation). Cases are the contract's, adapted: inputs put in their order and representation, and reduced
//! mod q into a narrowed input bound. A factor, a form, a bound and the reduction apply to the arguments whose
//! description gives a modulus ([`pqhelium_families::Modulus`]): on those the contract computes mod q, so any
//! representative of an input will do, and the reference gives canonical residues.

use std::borrow::Cow;
use std::collections::BTreeSet;
use std::sync::Arc;

use crate::formula::{Formula, permutation};
use pqhelium_families::{
    ArgSpec, Behaviour, Bound, CaseRng, Checked, Description, Dir, Elem, Evaluation, Images, Kernel, Len, Modulus,
    Outcome,
};
use pqhelium_guest::backend::Arg;
use rand::Rng;

/// Where their buffer keeps element `i` of the contract's.
#[derive(Debug, Clone, PartialEq)]
pub enum Order {
    Identity,
    /// Their index `s` holds the contract's element `bitrev(s)` (the index's bits reversed; a power-of-two length).
    BitReversal,
    /// Their index `s` holds the contract's element `formula(s)` (checked to be a permutation of the length).
    Formula(Arc<Formula>),
    /// Their index `s` holds the contract's element `map[s]` (a permutation; `source` says where it came from).
    Listed {
        source: String,
        map: Arc<Vec<usize>>,
    },
}

impl Order {
    /// The contract index of their index `s` in a buffer of `n` elements.
    fn contract_index(&self, s: usize, n: usize) -> usize {
        match self {
            Order::Identity => s,
            Order::BitReversal if n <= 1 => s,
            Order::BitReversal => s.reverse_bits() >> (usize::BITS - n.trailing_zeros()),
            // A formula is resolved into a checked table before any case runs ([`foreign`]).
            Order::Formula(f) => f.eval(s as i64, n as i64).map_or(s, |c| c as usize),
            Order::Listed { map, .. } => map[s],
        }
    }

    /// The contract index of each of their indices `0..n`, for a whole buffer at once.
    fn indices(&self, n: usize) -> Cow<'_, [usize]> {
        match self {
            Order::Listed { map, .. } if map.len() == n => Cow::Borrowed(map),
            Order::BitReversal if n.is_power_of_two() && n > 1 => {
                // bitrev(s) is bitrev(s / 2) shifted down, with s's low bit on top.
                let mut table = vec![0; n];
                for s in 1..n {
                    table[s] = (table[s / 2] / 2) | ((s & 1) * (n / 2));
                }
                Cow::Owned(table)
            }
            _ => Cow::Owned((0..n).map(|s| self.contract_index(s, n)).collect()),
        }
    }

    /// Its table for a buffer of `n` elements, or why it is not a permutation of `0..n`.
    fn resolve(&self, n: usize) -> Result<Order, String> {
        match self {
            Order::Formula(f) => Ok(Order::Listed {
                source: format!("order-formula `{}`", f.text()),
                map: Arc::new(f.table(n).map_err(|e| format!("order-formula `{}`: {e}", f.text()))?),
            }),
            Order::Listed { source, map } => {
                permutation(map.to_vec(), n).map_err(|e| format!("{source}: {e}"))?;
                Ok(self.clone())
            }
            other => Ok(other.clone()),
        }
    }
}

/// The representative their inputs get.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Form {
    /// `-(q-1)/2..=(q-1)/2`.
    Centred,
    /// `0..=q-1`.
    Unsigned,
}

/// The adapter of one contract argument.
#[derive(Debug, Clone, PartialEq)]
pub struct Adapter {
    pub order: Order,
    /// Their value is the contract's stored value times `factor` mod q (1: the same residue).
    pub factor: i64,
    /// The representative their inputs get (needed with a factor; `None`: the contract's values unchanged).
    pub form: Option<Form>,
    /// Their narrower input bound: a value outside is replaced by its representative mod q inside it.
    pub input_bound: Option<(i64, i64)>,
    /// Their output bound (a lazy bound instead of canonical residues).
    pub output_bound: Option<(i64, i64)>,
    /// Named representations (`representation = [...]` in a manifest).
    pub representation: Representation,
}

/// A representation named in a manifest, with its conversion to and from the contract's.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Representation {
    /// `montgomery`: residues times R = 2^(element bits) mod q, resolved into the adapter's factor.
    pub montgomery: bool,
    /// `signed` or `unsigned`: their elements read and written as integers of that signedness (the width is the
    /// contract's), inputs as centred or unsigned representatives.
    pub signedness: Option<Form>,
    /// `standard-lanes`: a Keccak-f\[1600\] state as 25 standard 64-bit lanes (low word first), where the contract has
    /// 50 bit-interleaved words.
    pub standard_lanes: bool,
}

/// The names a manifest's `representation` takes.
pub const REPRESENTATIONS: [&str; 6] =
    ["plain", "montgomery", "signed", "unsigned", "standard-lanes", "bit-interleaved"];

impl Representation {
    /// The representation of these names, or the first unknown one.
    pub fn named(names: &[String]) -> Result<Representation, String> {
        let mut r = Representation::default();
        for name in names {
            match name.as_str() {
                "plain" | "bit-interleaved" => {}
                "montgomery" => r.montgomery = true,
                "signed" => r.signedness = Some(Form::Centred),
                "unsigned" => r.signedness = Some(Form::Unsigned),
                "standard-lanes" => r.standard_lanes = true,
                other => {
                    let near = pqhelium_families::did_you_mean(other, REPRESENTATIONS);
                    return Err(format!("unknown representation `{other}`{near} ({})", REPRESENTATIONS.join(", ")));
                }
            }
        }
        Ok(r)
    }
}

/// Their element type: the contract's with their signedness.
fn their_elem(elem: Elem, signedness: Option<Form>) -> Result<Elem, String> {
    Ok(match (elem, signedness) {
        (e, None) => e,
        (Elem::I16 | Elem::U16, Some(Form::Centred)) => Elem::I16,
        (Elem::I16 | Elem::U16, Some(Form::Unsigned)) => Elem::U16,
        (Elem::I32 | Elem::U32, Some(Form::Centred)) => Elem::I32,
        (Elem::I32 | Elem::U32, Some(Form::Unsigned)) => Elem::U32,
        (Elem::I64 | Elem::U64, Some(Form::Centred)) => Elem::I64,
        (Elem::I64 | Elem::U64, Some(Form::Unsigned)) => Elem::U64,
        (e, Some(_)) => return Err(format!("{} elements take no signed or unsigned representation", e.name())),
    })
}

impl Default for Adapter {
    fn default() -> Self {
        Self {
            order: Order::Identity,
            factor: 1,
            form: None,
            input_bound: None,
            output_bound: None,
            representation: Representation::default(),
        }
    }
}

/// One argument of their function.
#[derive(Debug, Clone, PartialEq)]
pub enum ForeignArg {
    /// A contract argument, by name, with the adapter of what is written to it (its input) and of what is read back
    /// (its output); an input-only argument uses the first, an output-only one the second.
    Contract { name: String, input_adapter: Adapter, output_adapter: Adapter },
    /// The address of a symbol of their objects (a table), resolved in the linked image.
    Symbol { name: String, address: u32 },
    /// A scratch buffer of this many bytes (written by the kernel, never compared).
    Scratch { bytes: usize },
    /// A constant passed in a register.
    Constant(u32),
    /// The input of the contract's in-out argument `name` in a buffer of its own: their function writes `name` out of
    /// place (`name` itself is then their output buffer).
    InputOf { name: String, adapter: Adapter },
    /// One buffer for the contract's input `input` and its output `output`: their function works in place.
    InPlace { input: String, output: String, input_adapter: Adapter, output_adapter: Adapter },
}

impl ForeignArg {
    /// The contract argument `name` with one adapter for both directions.
    pub fn both(name: &str, adapter: Adapter) -> Self {
        ForeignArg::Contract { name: name.into(), input_adapter: adapter.clone(), output_adapter: adapter }
    }
}

/// What the manifest says about one of their symbols.
#[derive(Debug, Clone)]
pub struct ForeignSpec {
    pub symbol: String,
    pub contract: String,
    pub args: Vec<ForeignArg>,
    /// The core their image is built for (`m7` runs on unicorn, the others on QEMU).
    pub core: String,
    /// Independent instances of the contract per call (a four-way Keccak: 4), laid out in each buffer by `layout`.
    pub states: usize,
    pub layout: Layout,
}

/// Where element `e` of state `j` of `k` states of `n` elements sits in their buffer.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Layout {
    /// `k * e + j`: element `e` of every state together (one state per vector lane).
    Interleaved,
    /// `n * j + e`: one state after the other.
    Consecutive,
}

impl Layout {
    fn position(self, j: usize, e: usize, k: usize, n: usize) -> usize {
        match self {
            Layout::Interleaved => k * e + j,
            Layout::Consecutive => n * j + e,
        }
    }
}

/// Most states per call.
pub const MAX_STATES: usize = 16;

/// What part of a contract argument one of their arguments carries.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Role {
    /// The argument as the contract has it.
    Whole,
    /// The input of a contract in-out buffer, in a buffer of its own (their function is out of place).
    InputOf,
    /// The output of a contract in-out buffer, in a buffer of its own.
    OutputOf,
}

/// An argument resolved against the contract.
#[derive(Clone)]
enum Slot {
    Contract {
        index: usize,
        input_adapter: Adapter,
        output_adapter: Adapter,
        role: Role,
    },
    /// One buffer their function works on in place: the contract's input `input` in, its output `output` out.
    InPlace {
        input: usize,
        output: usize,
        input_adapter: Adapter,
        output_adapter: Adapter,
    },
    Fixed(Arg),
}

impl Slot {
    /// The adapter of the contract's output `index`, if this argument carries it back.
    fn carries_output(&self, index: usize) -> Option<&Adapter> {
        match self {
            Slot::Contract { index: i, output_adapter, role, .. } if *i == index && *role != Role::InputOf => {
                Some(output_adapter)
            }
            Slot::InPlace { output, output_adapter, .. } if *output == index => Some(output_adapter),
            _ => None,
        }
    }
}

#[derive(Clone)]
struct Foreign {
    base: &'static Kernel,
    slots: Vec<Slot>,
    /// For each of the contract's output buffers: the index of the buffer in their outcome that holds it.
    outputs: Vec<usize>,
}

fn leak(s: String) -> &'static str {
    Box::leak(s.into_boxed_str())
}

/// The modulus of an argument's residues, if it holds residues.
fn q_of(spec: &ArgSpec) -> Option<i64> {
    spec.modulus.map(|m| m.q)
}

/// Reduction mod `q` into `lo..lo+q` (which the caller keeps inside i64), with what does not depend on the value
/// computed once. Every element of every buffer of a kernel of someone else's is reduced on every case, where a
/// hardware division per reduction would be most of a case's host work: Barrett's reduction, a multiplication with
/// 2^64 / q, instead.
#[derive(Debug, Clone, Copy)]
struct Reduction {
    q: i64,
    /// floor((2^64 - 1) / q).
    barrett: u64,
    lo: i64,
    lo_residue: i64,
}

impl Reduction {
    fn new(q: i64, lo: i64) -> Self {
        Self { q, barrett: u64::MAX / q as u64, lo, lo_residue: lo.rem_euclid(q) }
    }

    /// `a mod q` for any unsigned `a`: the quotient a * floor((2^64 - 1) / q) / 2^64 falls short of a / q by less than
    /// a (1 + 1/q) / 2^64 < 2, so at most two subtractions of q remain.
    fn unsigned_residue(self, a: u64) -> u64 {
        let q = self.q as u64;
        let quotient = ((u128::from(a) * u128::from(self.barrett)) >> 64) as u64;
        let mut r = a - quotient * q;
        while r >= q {
            r -= q;
        }
        r
    }

    /// `x mod q` in `0..q`, for any `x`.
    fn residue(self, x: i64) -> i64 {
        let r = self.unsigned_residue(x.unsigned_abs()) as i64;
        if x < 0 && r != 0 { self.q - r } else { r }
    }

    /// `x mod q` in `lo..lo+q`, for any `x`.
    fn of(self, x: i64) -> i64 {
        self.lift(self.residue(x))
    }

    /// `x * f mod q` in `lo..lo+q`, for any `x`, given `f_residue` = f mod q.
    fn scaled(self, x: i64, f_residue: i64) -> i64 {
        let residue = self.residue(x);
        self.lift(match f_residue {
            1 => residue,
            // Two residues below 2^32 have a product below 2^64.
            _ if self.q <= 1 << 32 => self.unsigned_residue(residue as u64 * f_residue as u64) as i64,
            _ => (i128::from(residue) * i128::from(f_residue) % i128::from(self.q)) as i64,
        })
    }

    /// A residue in `0..q`, moved into `lo..lo+q`.
    fn lift(self, residue: i64) -> i64 {
        let above_lo = residue - self.lo_residue;
        self.lo + if above_lo < 0 { above_lo + self.q } else { above_lo }
    }
}

/// The inverse of `f` mod `q` (extended Euclid), if `f` has one.
fn inverse_mod(f: i64, q: i64) -> Option<i64> {
    let (mut r, mut next_r) = (i128::from(q), i128::from(f.rem_euclid(q)));
    let (mut t, mut next_t) = (0i128, 1i128);
    while next_r != 0 {
        let k = r / next_r;
        (r, next_r) = (next_r, r - k * next_r);
        (t, next_t) = (next_t, t - k * next_t);
    }
    (r == 1 && q > 1).then(|| t.rem_euclid(i128::from(q)) as i64)
}

/// One value in this many of a wider domain is one of its ends (the rest are random representatives).
const EDGE_ODDS: u32 = 16;

/// Their input bound reaches outside the contract's input domain (on an argument with a modulus).
fn widens(spec: &ArgSpec, adapter: &Adapter) -> bool {
    let Some((lo, hi)) = adapter.input_bound else { return false };
    let (clo, chi) = range_of(spec.input.unwrap_or(Bound::Any), spec.elem);
    spec.modulus.is_some() && (lo < clo || hi > chi)
}

fn is_integer(elem: Elem) -> bool {
    elem != Elem::F64
}

/// The distinct nonzero reference values a constant ratio must hold on before it is offered as an output factor.
const FACTOR_HINT_VALUES: usize = 8;

/// The contract's buffer `data` in their storage order, lanes and element type, each value mapped by `value`.
fn their_layout(spec: &ArgSpec, adapter: &Adapter, data: &[u8], mut value: impl FnMut(i64) -> i64) -> Vec<u8> {
    let data: Cow<[u8]> = if adapter.representation.standard_lanes {
        Cow::Owned(pqhelium_families::keccak_deinterleave(data))
    } else {
        Cow::Borrowed(data)
    };
    let elem = their_elem(spec.elem, adapter.representation.signedness).unwrap_or(spec.elem);
    let contract = elements(spec.elem, &data);
    let n = contract.len();
    let theirs: Vec<i64> = adapter.order.indices(n).iter().map(|&c| value(contract[c])).collect();
    to_bytes(elem, &theirs)
}

/// A buffer's elements as integers: the element type matched once per buffer, not once per element (a kernel of
/// someone else's has every element of every buffer converted both ways on every case).
fn elements(elem: Elem, bytes: &[u8]) -> Vec<i64> {
    fn each<const N: usize>(bytes: &[u8], value: impl Fn([u8; N]) -> i64) -> Vec<i64> {
        bytes.chunks_exact(N).map(|c| value(c.try_into().expect("N bytes"))).collect()
    }
    match elem {
        Elem::U8 => each(bytes, |b: [u8; 1]| i64::from(b[0])),
        Elem::I16 => each(bytes, |b| i64::from(i16::from_le_bytes(b))),
        Elem::U16 => each(bytes, |b| i64::from(u16::from_le_bytes(b))),
        Elem::I32 => each(bytes, |b| i64::from(i32::from_le_bytes(b))),
        Elem::U32 => each(bytes, |b| i64::from(u32::from_le_bytes(b))),
        Elem::I64 | Elem::U64 | Elem::F64 => each(bytes, i64::from_le_bytes),
    }
}

/// Integers as a buffer of `elem`s, each cut to the element's width (the inverse of [`elements`] on its values).
fn to_bytes(elem: Elem, values: &[i64]) -> Vec<u8> {
    match elem.bytes() {
        1 => values.iter().map(|&x| x as u8).collect(),
        2 => values.iter().flat_map(|&x| (x as u16).to_le_bytes()).collect(),
        4 => values.iter().flat_map(|&x| (x as u32).to_le_bytes()).collect(),
        _ => values.iter().flat_map(|&x| x.to_le_bytes()).collect(),
    }
}

/// Element `i` of a buffer of `elem`s as an integer (a double's bits).
pub(crate) fn get(elem: Elem, bytes: &[u8], i: usize) -> i64 {
    let at = i * elem.bytes();
    let b = &bytes[at..at + elem.bytes()];
    match elem {
        Elem::U8 => i64::from(b[0]),
        Elem::I16 => i64::from(i16::from_le_bytes([b[0], b[1]])),
        Elem::U16 => i64::from(u16::from_le_bytes([b[0], b[1]])),
        Elem::I32 => i64::from(i32::from_le_bytes(b.try_into().unwrap())),
        Elem::U32 => i64::from(u32::from_le_bytes(b.try_into().unwrap())),
        Elem::I64 | Elem::U64 | Elem::F64 => i64::from_le_bytes(b.try_into().unwrap()),
    }
}

/// Sets element `i` of a buffer of `elem`s to `x`, cut to the element's width.
pub(crate) fn put(elem: Elem, bytes: &mut [u8], i: usize, x: i64) {
    let n = elem.bytes();
    bytes[i * n..(i + 1) * n].copy_from_slice(&x.to_le_bytes()[..n]);
}

/// The inclusive range of a bound on integers, where it has one.
fn range_of(bound: Bound, elem: Elem) -> (i64, i64) {
    let (lo, hi) = match elem {
        Elem::U8 => (0, 255),
        Elem::I16 => (i64::from(i16::MIN), i64::from(i16::MAX)),
        Elem::U16 => (0, i64::from(u16::MAX)),
        Elem::I32 => (i64::from(i32::MIN), i64::from(i32::MAX)),
        Elem::U32 => (0, i64::from(u32::MAX)),
        Elem::I64 | Elem::U64 | Elem::F64 => (i64::MIN, i64::MAX),
    };
    match bound {
        Bound::Range { lo, hi } => (lo, hi),
        Bound::Canonical { q } => (0, q - 1),
        Bound::Any | Bound::Float { .. } => (lo, hi),
    }
}

impl Foreign {
    fn transforms(&self, adapter: &Adapter) -> bool {
        adapter.factor != 1 || adapter.form.is_some() || adapter.representation.signedness.is_some()
    }

    /// Their inputs are reduced mod q before the contract's reference sees them: they are in another representation,
    /// or in a domain wider than the contract's.
    fn reduces_inputs(&self, spec: &ArgSpec, adapter: &Adapter) -> bool {
        self.transforms(adapter) || widens(spec, adapter)
    }

    /// The contract's buffer in their order and representation. On a domain wider than the contract's, each value is
    /// a random representative of its residue in their bound, or one of the bound's ends.
    fn adapt(&self, spec: &ArgSpec, adapter: &Adapter, data: &[u8], rng: &mut CaseRng) -> Vec<u8> {
        let Some(q) = q_of(spec) else { return their_layout(spec, adapter, data, |x| x) };
        let wide = widens(spec, adapter);
        let scaling = self.transforms(adapter).then(|| {
            let lo = match adapter.form.or(adapter.representation.signedness).unwrap_or(Form::Centred) {
                Form::Centred => -(q - 1) / 2,
                Form::Unsigned => 0,
            };
            (Reduction::new(q, lo), adapter.factor.rem_euclid(q))
        });
        let bound = adapter.input_bound.map(|(lo, hi)| (lo, hi, Reduction::new(q, lo)));
        their_layout(spec, adapter, data, |mut x| {
            if let Some((into, factor)) = scaling {
                x = into.scaled(x, factor);
            }
            if let Some((lo, hi, into)) = bound
                && (wide || !(lo..=hi).contains(&x))
            {
                x = into.of(x);
                if wide {
                    x = match rng.gen_range(0..EDGE_ODDS) {
                        0 => lo,
                        1 => hi,
                        _ => x + q * rng.gen_range(0..=(hi - x) / q),
                    };
                }
            }
            x
        })
    }

    /// Their buffer in the contract's order; `reduce`: divided by the factor and reduced mod q into `0..q`, or into
    /// the contract's input range when that range holds no complete residue system from 0.
    fn unadapt(&self, spec: &ArgSpec, adapter: &Adapter, data: &[u8], reduce: bool) -> Vec<u8> {
        let elem = their_elem(spec.elem, adapter.representation.signedness).unwrap_or(spec.elem);
        let theirs = elements(elem, data);
        let n = theirs.len();
        let mut out = vec![0; n];
        let unscaling = q_of(spec).filter(|_| reduce).map(|q| {
            let (lo, hi) = range_of(spec.input.unwrap_or(Bound::Any), spec.elem);
            let from = if lo <= 0 && hi >= q - 1 { 0 } else { -(q - 1) / 2 };
            (Reduction::new(q, from), inverse_mod(adapter.factor, q).unwrap_or(1))
        });
        for (&x, &c) in theirs.iter().zip(adapter.order.indices(n).iter()) {
            out[c] = match unscaling {
                Some((into, inverse)) => into.scaled(x, inverse),
                None => x,
            };
        }
        let out = to_bytes(spec.elem, &out);
        if adapter.representation.standard_lanes {
            return pqhelium_families::keccak_interleave(&out);
        }
        out
    }

    /// The contract's buffer `data` (canonical residues) in their order and representation: the inverse of
    /// [`Foreign::unadapt`], residues times their factor in `0..q`.
    fn relayout(&self, spec: &ArgSpec, adapter: &Adapter, data: &[u8]) -> Vec<u8> {
        let Some(q) = q_of(spec) else { return their_layout(spec, adapter, data, |x| x) };
        let (into, factor) = (Reduction::new(q, 0), adapter.factor.rem_euclid(q));
        their_layout(spec, adapter, data, |x| into.scaled(x, factor))
    }

    /// This kernel with the in-out argument `index`'s adapters replaced (a flat adapter tried one way only).
    fn with_adapters(&self, index: usize, input: &Adapter, output: &Adapter) -> Foreign {
        let mut other = self.clone();
        for slot in &mut other.slots {
            if let Slot::Contract { index: i, input_adapter, output_adapter, .. } = slot
                && *i == index
            {
                (*input_adapter, *output_adapter) = (input.clone(), output.clone());
            }
        }
        other
    }

    /// Whether their outcome on `args` matches the reference once their adapters are undone.
    fn matches(&self, args: &[Arg], outcome: &Outcome) -> bool {
        self.evaluate(args).is_ok_and(|e| e.reference == self.canonical(outcome))
    }

    /// A flat adapter (both directions) on an in-out argument whose outcome matches with it on one direction only.
    fn direction_hint(&self, args: &[Arg], outcome: &Outcome) -> Option<String> {
        self.slots.iter().find_map(|slot| {
            let Slot::Contract { index, input_adapter, output_adapter, role: Role::Whole } = slot else { return None };
            let name = self.base.args[*index].name;
            let flat = input_adapter == output_adapter && *input_adapter != Adapter::default();
            if !flat || self.base.args[*index].dir != Dir::InOut {
                return None;
            }
            let none = Adapter::default();
            let meant = if self.with_adapters(*index, &none, output_adapter).matches(args, outcome) {
                "output"
            } else if self.with_adapters(*index, input_adapter, &none).matches(args, outcome) {
                "input"
            } else {
                return None;
            };
            Some(format!(
                "the flat [kernel.adapt.{name}] applies to both directions of `{name}`; with it on the {meant} alone \
                 this case passes: did you mean [kernel.adapt.{name}.{meant}]?"
            ))
        })
    }

    /// Their outputs, adapters undone, against the reference: every residue times one constant, or the same values
    /// in another order.
    fn value_hint(&self, args: &[Arg], outcome: &Outcome) -> Option<String> {
        let reference = self.evaluate(args).ok()?.reference;
        let canon = self.canonical(outcome);
        let contract_outputs = self.base.args.iter().enumerate().filter(|(_, a)| a.dir != Dir::In);
        for (b, (index, spec)) in contract_outputs.enumerate() {
            let (Some(ours), Some(theirs)) = (reference.buffers.get(b), canon.buffers.get(b)) else { continue };
            let Some(q) = q_of(spec) else { continue };
            if ours == theirs || ours.len() != theirs.len() {
                continue;
            }
            let n = ours.len() / spec.elem.bytes();
            let value = |buffer: &[u8], i| get(spec.elem, buffer, i).rem_euclid(q);
            let adapter = self.slots.iter().find_map(|s| s.carries_output(index))?;
            let first = (0..n).find(|&i| value(ours, i) != 0);
            let ratio = first.and_then(|i| inverse_mod(value(ours, i), q).map(|inv| value(theirs, i) * inv % q));
            // A factor is invertible, and a case with few distinct values (an edge case, a shrunk case) fits some
            // ratio whatever the bug.
            let distinct: BTreeSet<i64> = (0..n).map(|i| value(ours, i)).filter(|&x| x != 0).collect();
            if let Some(c) = ratio
                && c != 0
                && distinct.len() >= FACTOR_HINT_VALUES
                && (0..n).all(|i| value(theirs, i) == value(ours, i) * c % q)
            {
                let factor = (i128::from(adapter.factor) * i128::from(c)).rem_euclid(i128::from(q));
                return Some(format!(
                    "`{}`'s outputs, adapters undone, are the reference's times {c} mod {q} at every place: an output \
                     factor of {factor} (the manifest says {}) would match",
                    spec.name, adapter.factor
                ));
            }
            let sorted = |buffer: &[u8]| {
                let mut v: Vec<i64> = (0..n).map(|i| value(buffer, i)).collect();
                v.sort_unstable();
                v
            };
            if sorted(ours) == sorted(theirs) {
                return Some(format!(
                    "`{}`'s outputs, adapters undone, are the reference's values in another order: check its output \
                     `order`",
                    spec.name
                ));
            }
        }
        None
    }

    /// Their arguments back as the contract's (their inputs put back in the contract's order and representation).
    fn contract_args(&self, args: &[Arg]) -> Result<Vec<Arg>, String> {
        let mut contract: Vec<Option<Arg>> = vec![None; self.base.args.len()];
        if args.len() != self.slots.len() {
            return Err(format!("{} arguments, the manifest declares {}", args.len(), self.slots.len()));
        }
        for (slot, arg) in self.slots.iter().zip(args) {
            match (slot, arg) {
                (Slot::Fixed(_) | Slot::Contract { role: Role::OutputOf, .. }, _) => {}
                (Slot::Contract { index, input_adapter: adapter, role, .. }, arg) => {
                    let spec = &self.base.args[*index];
                    let reduce = self.reduces_inputs(spec, adapter);
                    contract[*index] = Some(match (arg, role) {
                        (Arg::In(b), Role::InputOf) => Arg::InOut(self.unadapt(spec, adapter, b, reduce)),
                        (Arg::In(b), _) => Arg::In(self.unadapt(spec, adapter, b, reduce)),
                        (Arg::InOut(b), _) => Arg::InOut(self.unadapt(spec, adapter, b, reduce)),
                        (other, _) => other.clone(),
                    });
                }
                (Slot::InPlace { input, output, input_adapter, .. }, Arg::InOut(b)) => {
                    let spec = &self.base.args[*input];
                    let reduce = self.reduces_inputs(spec, input_adapter);
                    contract[*input] = Some(Arg::In(self.unadapt(spec, input_adapter, b, reduce)));
                    contract[*output] = Some(Arg::Out(b.len()));
                }
                (Slot::InPlace { .. }, other) => return Err(format!("an in-place buffer, given {other:?}")),
            }
        }
        Ok(contract.into_iter().map(|a| a.expect("every contract argument has a slot")).collect())
    }
}

impl Behaviour for Foreign {
    fn generate_args(&self, case: u64, rng: &mut CaseRng) -> Vec<Arg> {
        let contract = self.base.generate(case, rng);
        self.slots
            .iter()
            .map(|slot| match slot {
                Slot::Fixed(arg) => arg.clone(),
                Slot::Contract { index, input_adapter: adapter, role, .. } => {
                    let spec = &self.base.args[*index];
                    match (&contract[*index], role) {
                        (Arg::InOut(b), Role::InputOf) => Arg::In(self.adapt(spec, adapter, b, rng)),
                        (Arg::InOut(b), Role::OutputOf) => Arg::Out(b.len()),
                        (Arg::In(b), _) => Arg::In(self.adapt(spec, adapter, b, rng)),
                        (Arg::InOut(b), _) => Arg::InOut(self.adapt(spec, adapter, b, rng)),
                        (other, _) => other.clone(),
                    }
                }
                Slot::InPlace { input, input_adapter, .. } => match &contract[*input] {
                    Arg::In(b) => Arg::InOut(self.adapt(&self.base.args[*input], input_adapter, b, rng)),
                    other => other.clone(),
                },
            })
            .collect()
    }

    fn evaluate(&self, args: &[Arg]) -> Result<Evaluation, String> {
        let reference = self.base.behaviour().evaluate_reference(&self.contract_args(args)?)?;
        Ok(Evaluation { reference, model: None })
    }

    fn expected(&self, args: &[Arg]) -> Outcome {
        self.evaluate(args).map_or(Outcome { buffers: vec![], ret: None }, |e| e.reference)
    }

    /// Their outcome in the contract's layout (their order undone, their factor divided out, reduced mod q), then
    /// through the contract's canonicalisation: what the reference gives.
    fn canonical(&self, outcome: &Outcome) -> Outcome {
        let contract_outputs: Vec<(usize, &ArgSpec)> =
            self.base.args.iter().enumerate().filter(|(_, a)| a.dir != Dir::In).collect();
        let mut buffers = Vec::new();
        for (&theirs, &(index, spec)) in self.outputs.iter().zip(&contract_outputs) {
            let Some(data) = outcome.buffers.get(theirs) else { return outcome.clone() };
            let adapter = self.slots.iter().find_map(|s| s.carries_output(index));
            let adapter = adapter.expect("every contract output has a slot");
            buffers.push(self.unadapt(spec, adapter, data, spec.modulus.is_some()));
        }
        self.base.canon(&Outcome { buffers, ret: outcome.ret })
    }

    fn canonicalises_object_code(&self) -> bool {
        true
    }

    fn hint(&self, args: &[Arg], outcome: &Outcome) -> Option<String> {
        self.direction_hint(args, outcome).or_else(|| self.value_hint(args, outcome))
    }

    fn in_kernel_layout(&self, reference: &Outcome) -> Option<Vec<(usize, Vec<u8>)>> {
        let contract_outputs = self.base.args.iter().enumerate().filter(|(_, a)| a.dir != Dir::In);
        let mut buffers = Vec::new();
        for ((&theirs, (index, spec)), data) in self.outputs.iter().zip(contract_outputs).zip(&reference.buffers) {
            let adapter = self.slots.iter().find_map(|s| s.carries_output(index))?;
            buffers.push((theirs, self.relayout(spec, adapter, data)));
        }
        Some(buffers)
    }

    fn checked(&self) -> Checked {
        Checked::TwoWay
    }

    /// The base contract's declarations name functions of our object code, not of theirs.
    fn declassified_events(&self) -> &'static [pqhelium_analyses::ct::Declassification] {
        &[]
    }
}

/// Their kernel as a registered kernel (leaked: it lives as long as the process); `Err` says why the manifest's
/// arguments and adapters do not fit the contract.
pub fn foreign(spec: &ForeignSpec) -> Result<&'static Kernel, String> {
    let base =
        pqhelium_families::find(&spec.contract).ok_or_else(|| crate::no_contract(&spec.symbol, &spec.contract))?;
    foreign_on(spec, base)
}

/// Their kernel against the contract `base` (one of ours, or one declared in their manifest).
pub fn foreign_on(spec: &ForeignSpec, base: &'static Kernel) -> Result<&'static Kernel, String> {
    if base.images == Images::HostOnly {
        return Err(format!(
            "`{}`: contract `{}` is a whole scheme on the host, with no object code",
            spec.symbol, base.id
        ));
    }
    let fit = |problem: String| format!("`{}` (contract {}): {problem}", spec.symbol, base.id);
    let names: Vec<&str> = base.args.iter().map(|a| a.name).collect();
    let mut slots = Vec::new();
    let mut specs = Vec::new();
    let mut seen = vec![false; base.args.len()];
    let index_of = |name: &str| {
        names.iter().position(|n| *n == name).ok_or_else(|| {
            let near = pqhelium_families::did_you_mean(name, names.iter().copied());
            fit(format!("`{name}` is not an argument of the contract{near} (its arguments: {})", names.join(", ")))
        })
    };
    let mut mark = |index: usize| {
        if std::mem::replace(&mut seen[index], true) {
            return Err(fit(format!("`{}` is given twice", names[index])));
        }
        Ok(())
    };
    // Their adapter with its order resolved into a checked table, and their argument's spec.
    let resolve = |index: usize, adapter: &Adapter| -> Result<(Adapter, ArgSpec), String> {
        let (name, base_spec) = (names[index], base.args[index]);
        let mut adapter = adapter.clone();
        if matches!(adapter.order, Order::Formula(_) | Order::Listed { .. }) {
            let Len::Fixed(n) = base_spec.len else {
                let len = base_spec.len;
                return Err(fit(format!("`{name}`: a permutation needs a fixed length, the contract's is {len}")));
            };
            adapter.order = adapter.order.resolve(n).map_err(|e| fit(format!("`{name}`: {e}")))?;
        }
        resolve_representation(&base_spec, &mut adapter).map_err(|e| fit(format!("`{name}`: {e}")))?;
        let spec = adapted_spec(&base_spec, &adapter).map_err(|e| fit(format!("`{name}`: {e}")))?;
        Ok((adapter, spec))
    };
    let split: Vec<&str> = spec
        .args
        .iter()
        .filter_map(|a| match a {
            ForeignArg::InputOf { name, .. } => Some(name.as_str()),
            _ => None,
        })
        .collect();
    for arg in &spec.args {
        match arg {
            ForeignArg::Contract { name, input_adapter, output_adapter } => {
                let index = index_of(name)?;
                mark(index)?;
                let role = if split.contains(&name.as_str()) { Role::OutputOf } else { Role::Whole };
                let (dir, differ) = (base.args[index].dir, input_adapter != output_adapter);
                // Each direction's adapter; the flat form (the same adapter both ways) is accepted on any argument.
                let (input_adapter, output_adapter, mut their) = match (dir, role) {
                    (Dir::In, _) if differ && *output_adapter != Adapter::default() => {
                        return Err(fit(format!("`{name}` is input only: it takes no output adapter")));
                    }
                    (Dir::Out, _) if differ && *input_adapter != Adapter::default() => {
                        return Err(fit(format!("`{name}` is output only: it takes no input adapter")));
                    }
                    (Dir::In, _) => {
                        let (a, their) = resolve(index, input_adapter)?;
                        (a, Adapter::default(), their)
                    }
                    (_, Role::OutputOf) | (Dir::Out, _) => {
                        let (a, their) = resolve(index, output_adapter)?;
                        (Adapter::default(), a, their)
                    }
                    (Dir::InOut, _) => {
                        let (i, their_in) = resolve(index, input_adapter)?;
                        let (o, their_out) = resolve(index, output_adapter)?;
                        let repr = if differ {
                            leak(format!("in: {}; out: {}", their_in.repr, their_out.repr))
                        } else {
                            their_in.repr
                        };
                        (i, o, ArgSpec { output: their_out.output, repr, ..their_in })
                    }
                };
                if role == Role::OutputOf {
                    (their.dir, their.input) = (Dir::Out, None);
                }
                specs.push(their);
                slots.push(Slot::Contract { index, input_adapter, output_adapter, role });
            }
            ForeignArg::InputOf { name, adapter } => {
                let index = index_of(name)?;
                if base.args[index].dir != Dir::InOut || split.iter().filter(|n| *n == name).count() > 1 {
                    return Err(fit(format!(
                        "{{ input = \"{name}\" }} takes the input of an in-out argument of the contract, once"
                    )));
                }
                let (adapter, mut their) = resolve(index, adapter)?;
                (their.name, their.dir, their.output) = (leak(format!("{name} (input)")), Dir::In, None);
                specs.push(their);
                slots.push(Slot::Contract {
                    index,
                    input_adapter: adapter,
                    output_adapter: Adapter::default(),
                    role: Role::InputOf,
                });
            }
            ForeignArg::InPlace { input, output, input_adapter, output_adapter } => {
                let (i, o) = (index_of(input)?, index_of(output)?);
                let (a, b) = (base.args[i], base.args[o]);
                if a.dir != Dir::In || b.dir != Dir::Out || a.elem != b.elem || a.len != b.len {
                    return Err(fit(format!(
                        "{{ in-place = [\"{input}\", \"{output}\"] }} takes an input and an output of the contract \
                         of one type and length"
                    )));
                }
                mark(i)?;
                mark(o)?;
                let (input_adapter, their_in) = resolve(i, input_adapter)?;
                let (output_adapter, their_out) = resolve(o, output_adapter)?;
                specs.push(ArgSpec {
                    name: leak(format!("{input}/{output}")),
                    dir: Dir::InOut,
                    output: their_out.output,
                    secret: their_in.secret || their_out.secret,
                    ..their_in
                });
                slots.push(Slot::InPlace { input: i, output: o, input_adapter, output_adapter });
            }
            ForeignArg::Symbol { name, address } => {
                let value = i64::from(*address);
                specs.push(
                    ArgSpec::scalar(leak(name.clone()), Elem::U32, Bound::Range { lo: value, hi: value })
                        .repr("address"),
                );
                slots.push(Slot::Fixed(Arg::U32(*address)));
            }
            ForeignArg::Scratch { bytes } => {
                if *bytes == 0 {
                    return Err(fit("a scratch buffer of 0 bytes".into()));
                }
                specs.push(ArgSpec::output("scratch", Elem::U8, Len::Fixed(*bytes), Bound::Any).repr("scratch"));
                slots.push(Slot::Fixed(Arg::Out(*bytes)));
            }
            ForeignArg::Constant(value) => {
                let v = i64::from(*value);
                specs.push(ArgSpec::scalar("constant", Elem::U32, Bound::Range { lo: v, hi: v }).repr("constant"));
                slots.push(Slot::Fixed(Arg::U32(*value)));
            }
        }
    }
    if let Some(missing) = seen.iter().position(|s| !s) {
        return Err(fit(format!(
            "contract argument `{}` is missing from `args` (its arguments: {})",
            names[missing],
            names.join(", ")
        )));
    }
    // Their outcome's buffers are their Out and InOut arguments in their order.
    let their_buffers: Vec<usize> =
        slots.iter().enumerate().filter(|(i, _)| specs[*i].dir != Dir::In).map(|(i, _)| i).collect();
    let outputs = base
        .args
        .iter()
        .enumerate()
        .filter(|(_, a)| a.dir != Dir::In)
        .map(|(index, _)| {
            let slot = slots.iter().position(|s| s.carries_output(index).is_some());
            their_buffers.iter().position(|&b| Some(b) == slot).expect("a contract output is one of theirs")
        })
        .collect();
    let adapters: Vec<String> = spec
        .args
        .iter()
        .filter_map(|a| match a {
            ForeignArg::Contract { name, input_adapter, output_adapter }
                if *input_adapter != Adapter::default() || *output_adapter != Adapter::default() =>
            {
                let modulus = base.args.iter().find(|a| a.name == name).and_then(|a| a.modulus);
                Some(if input_adapter == output_adapter {
                    format!("{name}: {}", describe(input_adapter, modulus))
                } else {
                    let (i, o) = (describe(input_adapter, modulus), describe(output_adapter, modulus));
                    format!("{name}: in: {i}; out: {o}")
                })
            }
            ForeignArg::InputOf { name, .. } => Some(format!("{name}: out of place, its input in a buffer of its own")),
            ForeignArg::InPlace { input, output, .. } => Some(format!("{input} and {output}: one buffer, in place")),
            _ => None,
        })
        .collect();
    let description = Description {
        id: leak(spec.symbol.clone()),
        symbol: leak(spec.symbol.clone()),
        images: if spec.core == "m7" { Images::Both } else { Images::M55Only },
        summary: format!("your kernel, checked against contract {} ({})", base.id, base.summary),
        computes: format!(
            "{}; checked two ways: reference == canon(object code){}",
            base.computes,
            if adapters.is_empty() {
                String::new()
            } else {
                format!(", canon undoing the adapters ({})", adapters.join("; "))
            }
        ),
        requires: base.requires.clone(),
        edge_cases: base.edge_cases,
        args: specs,
        returns: base.returns,
        results: vec![],
    };
    let behaviour = Foreign { base, slots, outputs };
    if spec.states == 1 {
        return Ok(Box::leak(Box::new(Kernel::from_behaviour(description, Box::new(behaviour)))));
    }
    if !(2..=MAX_STATES).contains(&spec.states) {
        return Err(fit(format!("states = {}: between 1 and {MAX_STATES}", spec.states)));
    }
    let unsplittable = base.args.iter().find(|a| !matches!(a.len, Len::Fixed(_)));
    if let Some(arg) = unsplittable.map(|a| a.name).or(base.returns.map(|_| "the return value")) {
        return Err(fit(format!("several states per call need buffers of fixed length only; `{arg}` is not one")));
    }
    if behaviour.slots.iter().any(|s| !matches!(s, Slot::Contract { role: Role::Whole, .. } | Slot::Fixed(_))) {
        return Err(fit("several states per call take no { input } or { in-place } argument".into()));
    }
    let k = spec.states;
    let mut description = description;
    for (their, slot) in description.args.iter_mut().zip(&behaviour.slots) {
        if let (Slot::Contract { .. }, Len::Fixed(n)) = (slot, their.len) {
            their.len = Len::Fixed(n * k);
        }
    }
    let layout = match spec.layout {
        Layout::Interleaved => "element e of state j at k e + j",
        Layout::Consecutive => "element e of state j at n j + e",
    };
    description.computes = format!("{k} states per call ({layout}), each: {}", description.computes);
    description.edge_cases = base.edge_cases.div_ceil(k as u64);
    let behaviour = States { one: behaviour, k, layout: spec.layout };
    Ok(Box::leak(Box::new(Kernel::from_behaviour(description, Box::new(behaviour)))))
}

/// Their kernel on `k` states per call: each state is one case of the contract, checked as one call of it.
struct States {
    one: Foreign,
    k: usize,
    layout: Layout,
}

impl States {
    /// The element size of their buffer `i` when it carries a contract argument.
    fn unit(&self, slot: &Slot) -> Option<usize> {
        match slot {
            Slot::Contract { index, .. } => Some(self.one.base.args[*index].elem.bytes()),
            _ => None,
        }
    }

    /// Their arguments that come back as buffers of their outcome, in order.
    fn buffered(&self) -> Vec<&Slot> {
        self.one
            .slots
            .iter()
            .filter(|s| match s {
                Slot::Contract { index, .. } => self.one.base.args[*index].dir != Dir::In,
                Slot::Fixed(arg) => matches!(arg, Arg::Out(_)),
                Slot::InPlace { .. } => true,
            })
            .collect()
    }

    /// `k` buffers of one state each, laid out in one.
    fn merge(&self, parts: &[&[u8]], unit: usize) -> Vec<u8> {
        let n = parts[0].len() / unit;
        let mut out = vec![0; n * self.k * unit];
        for (j, part) in parts.iter().enumerate() {
            for e in 0..n {
                let at = self.layout.position(j, e, self.k, n) * unit;
                out[at..at + unit].copy_from_slice(&part[e * unit..(e + 1) * unit]);
            }
        }
        out
    }

    /// State `j` of a laid-out buffer.
    fn part(&self, data: &[u8], unit: usize, j: usize) -> Vec<u8> {
        let n = data.len() / unit / self.k;
        (0..n)
            .flat_map(|e| {
                let at = self.layout.position(j, e, self.k, n) * unit;
                data[at..at + unit].to_vec()
            })
            .collect()
    }

    /// Their arguments for state `j` alone.
    fn state_args(&self, args: &[Arg], j: usize) -> Vec<Arg> {
        self.one
            .slots
            .iter()
            .zip(args)
            .map(|(slot, arg)| match (self.unit(slot), arg) {
                (Some(unit), Arg::In(b)) => Arg::In(self.part(b, unit, j)),
                (Some(unit), Arg::InOut(b)) => Arg::InOut(self.part(b, unit, j)),
                (Some(_), Arg::Out(bytes)) => Arg::Out(bytes / self.k),
                (_, other) => other.clone(),
            })
            .collect()
    }

    /// Outcomes of one state each, their buffers one after the other (the contract's layout, state by state).
    fn concatenate(outcomes: Vec<Outcome>) -> Outcome {
        let buffers = (0..outcomes.first().map_or(0, |o| o.buffers.len()))
            .map(|b| outcomes.iter().flat_map(|o| o.buffers[b].clone()).collect())
            .collect();
        Outcome { buffers, ret: None }
    }
}

impl Behaviour for States {
    /// State `j` of case `c` is case `k c + j` of the contract (its edge cases spread over the states), from a seed
    /// that the case's own generator gives.
    fn generate_args(&self, case: u64, rng: &mut CaseRng) -> Vec<Arg> {
        use rand::Rng;
        let seed: u64 = rng.r#gen();
        let states: Vec<Vec<Arg>> = (0..self.k as u64)
            .map(|j| {
                let c = case * self.k as u64 + j;
                self.one.generate_args(c, &mut pqhelium_families::case_rng(seed, c))
            })
            .collect();
        (0..self.one.slots.len())
            .map(|i| match (self.unit(&self.one.slots[i]), &states[0][i]) {
                (Some(unit), Arg::In(_) | Arg::InOut(_)) => {
                    let parts: Vec<&[u8]> = states.iter().map(|s| pqhelium_families::buffer(&s[i])).collect();
                    let merged = self.merge(&parts, unit);
                    if matches!(states[0][i], Arg::In(_)) { Arg::In(merged) } else { Arg::InOut(merged) }
                }
                (Some(_), Arg::Out(bytes)) => Arg::Out(bytes * self.k),
                (_, other) => other.clone(),
            })
            .collect()
    }

    fn evaluate(&self, args: &[Arg]) -> Result<Evaluation, String> {
        let mut references = Vec::new();
        for j in 0..self.k {
            let one = self.one.evaluate(&self.state_args(args, j)).map_err(|e| format!("state {j}: {e}"))?;
            references.push(one.reference);
        }
        Ok(Evaluation { reference: Self::concatenate(references), model: None })
    }

    fn expected(&self, args: &[Arg]) -> Outcome {
        self.evaluate(args).map_or(Outcome { buffers: vec![], ret: None }, |e| e.reference)
    }

    /// Each state of their outcome canonicalised as one call's.
    fn canonical(&self, outcome: &Outcome) -> Outcome {
        let buffered = self.buffered();
        if buffered.len() != outcome.buffers.len() {
            return outcome.clone();
        }
        let states = (0..self.k)
            .map(|j| {
                let buffers = buffered
                    .iter()
                    .zip(&outcome.buffers)
                    .map(|(slot, data)| match self.unit(slot) {
                        Some(unit) => self.part(data, unit, j),
                        None => data.clone(),
                    })
                    .collect();
                self.one.canonical(&Outcome { buffers, ret: outcome.ret })
            })
            .collect();
        Self::concatenate(states)
    }

    fn canonicalises_object_code(&self) -> bool {
        true
    }

    /// Each state's reference in their layout, the states laid out in each buffer as their kernel lays them out.
    fn in_kernel_layout(&self, reference: &Outcome) -> Option<Vec<(usize, Vec<u8>)>> {
        let states: Vec<Vec<(usize, Vec<u8>)>> = (0..self.k)
            .map(|j| {
                let buffers = reference
                    .buffers
                    .iter()
                    .map(|b| b.chunks((b.len() / self.k).max(1)).nth(j).unwrap_or(&[]).to_vec());
                self.one.in_kernel_layout(&Outcome { buffers: buffers.collect(), ret: None })
            })
            .collect::<Option<_>>()?;
        let units: Vec<usize> = self.buffered().iter().map(|s| self.unit(s).unwrap_or(1)).collect();
        let merged = (0..states[0].len()).map(|b| {
            let theirs = states[0][b].0;
            let parts: Vec<&[u8]> = states.iter().map(|s| s[b].1.as_slice()).collect();
            (theirs, self.merge(&parts, units.get(theirs).copied().unwrap_or(1)))
        });
        Some(merged.collect())
    }

    fn checked(&self) -> Checked {
        Checked::TwoWay
    }

    fn declassified_events(&self) -> &'static [pqhelium_analyses::ct::Declassification] {
        &[]
    }
}

fn describe(adapter: &Adapter, modulus: Option<Modulus>) -> String {
    let mut parts = Vec::new();
    match &adapter.order {
        Order::Identity => {}
        Order::BitReversal => parts.push("bit-reversed order".to_string()),
        Order::Formula(f) => parts.push(format!("order-formula `{}`", f.text())),
        Order::Listed { source, .. } => parts.push(format!("order from {source}")),
    }
    if let Some(modulus) = modulus
        && (adapter.factor != 1 || adapter.form.is_some() || adapter.representation.signedness.is_some())
    {
        parts.push(format!("times {} {modulus}", adapter.factor));
    }
    match adapter.form {
        Some(Form::Centred) => parts.push("centred".into()),
        Some(Form::Unsigned) => parts.push("unsigned".into()),
        None => {}
    }
    let r = &adapter.representation;
    if r.montgomery {
        parts.push("Montgomery domain".into());
    }
    match r.signedness {
        Some(Form::Centred) => parts.push("signed elements".into()),
        Some(Form::Unsigned) => parts.push("unsigned elements".into()),
        None => {}
    }
    if r.standard_lanes {
        parts.push("standard 64-bit lanes".into());
    }
    if let Some((lo, hi)) = adapter.input_bound {
        parts.push(format!("inputs in [{lo}, {hi}]"));
    }
    if let Some((lo, hi)) = adapter.output_bound {
        parts.push(format!("outputs in [{lo}, {hi}], reduced mod q before the comparison"));
    }
    if parts.is_empty() {
        return "as the contract's".into();
    }
    parts.join(", ")
}

/// Their named representation resolved against the contract's argument: `montgomery` into its factor; or why it does
/// not fit.
fn resolve_representation(base: &ArgSpec, adapter: &mut Adapter) -> Result<(), String> {
    let r = &adapter.representation;
    if r.standard_lanes && (base.repr != pqhelium_families::KECCAK_INTERLEAVED || base.len != Len::Fixed(50)) {
        return Err(format!(
            "standard-lanes converts a {} Keccak-f[1600] state; this argument is `{}`",
            pqhelium_families::KECCAK_INTERLEAVED,
            base.repr
        ));
    }
    if r.signedness.is_some() && q_of(base).is_none() {
        return Err("holds no residues mod q (the contract gives it no modulus): signed or unsigned does not \
                    apply"
            .into());
    }
    if r.montgomery {
        let Some(q) = q_of(base) else {
            return Err("holds no residues mod q (the contract gives it no modulus): montgomery does not apply".into());
        };
        if adapter.factor != 1 {
            return Err("montgomery is a factor (2^bits mod q): not with `factor`".into());
        }
        let bits = 8 * base.elem.bytes() as u32;
        adapter.factor = (1..=bits).fold(1i64, |r, _| r * 2 % q);
    }
    Ok(())
}

/// Their argument: the contract's with their bounds and representation, or why the adapter does not fit.
fn adapted_spec(base: &ArgSpec, adapter: &Adapter) -> Result<ArgSpec, String> {
    let q = q_of(base);
    let signedness = adapter.representation.signedness;
    let transforms = adapter.factor != 1 || adapter.form.is_some() || signedness.is_some();
    let scalar = base.len == Len::Scalar;
    if scalar && *adapter != Adapter::default() {
        return Err("a scalar takes no adapter".into());
    }
    if !is_integer(base.elem) && (transforms || adapter.input_bound.is_some() || adapter.output_bound.is_some()) {
        return Err(format!("{} elements take no factor, form or bound", base.elem.name()));
    }
    if matches!(adapter.order, Order::BitReversal) {
        match base.len {
            Len::Fixed(n) if n.is_power_of_two() => {}
            Len::PowerOfTwo { .. } => {}
            len => return Err(format!("bit-reversal needs a power-of-two length, the contract's is {len}")),
        }
    }
    let needs_q = transforms || adapter.input_bound.is_some() || adapter.output_bound.is_some();
    if needs_q && q.is_none() {
        return Err("holds no residues mod q (the contract gives it no modulus): a factor, form or bound does not \
                    apply"
            .into());
    }
    let mut spec = *base;
    spec.elem = their_elem(base.elem, signedness)?;
    if let Some(q) = q {
        if transforms && inverse_mod(adapter.factor, q).is_none() {
            return Err(format!("factor {} has no inverse mod {q}", adapter.factor));
        }
        if transforms && base.dir != Dir::Out {
            spec.input = Some(match adapter.form.or(signedness).unwrap_or(Form::Centred) {
                Form::Centred => Bound::magnitude((q - 1) / 2),
                Form::Unsigned => Bound::Canonical { q },
            });
        }
        if let Some((lo, hi)) = adapter.input_bound {
            if base.dir == Dir::Out {
                return Err("an output-only buffer takes no input bound".into());
            }
            if i128::from(hi) - i128::from(lo) + 1 < i128::from(q) {
                return Err(format!("input bound [{lo}, {hi}] holds fewer than q = {q} residues"));
            }
            // The contract computes mod q on this argument, so a domain wider than its own is reduced into it.
            let (elo, ehi) = range_of(Bound::Any, spec.elem);
            if lo < elo || hi > ehi {
                return Err(format!("input bound [{lo}, {hi}] does not fit {} elements", spec.elem.name()));
            }
            spec.input = Some(Bound::Range { lo, hi });
        }
        if let Some((lo, hi)) = adapter.output_bound {
            if base.dir == Dir::In {
                return Err("an input-only buffer takes no output bound".into());
            }
            spec.output = Some(Bound::Range { lo, hi });
        } else if transforms && base.dir != Dir::In {
            spec.output = Some(Bound::Any);
        }
    }
    if *adapter != Adapter::default() {
        spec.repr = leak(describe(adapter, base.modulus));
    }
    Ok(spec)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bit_reversal_is_an_involution_on_indices() {
        assert_eq!(Order::BitReversal.contract_index(1, 256), 128);
        assert_eq!(Order::BitReversal.contract_index(2, 8), 2);
        assert_eq!(Order::BitReversal.contract_index(6, 8), 3);
        for s in 0..256 {
            let c = Order::BitReversal.contract_index(s, 256);
            assert_eq!(Order::BitReversal.contract_index(c, 256), s);
        }
        // A whole buffer's table is the indices one by one.
        for n in [1, 2, 8, 256, 1024] {
            let each: Vec<usize> = (0..n).map(|s| Order::BitReversal.contract_index(s, n)).collect();
            assert_eq!(*Order::BitReversal.indices(n), each, "{n}");
        }
    }

    #[test]
    fn inverses_and_reductions() {
        // 2^16 mod 3329 = 2285, and 2285 * 169 = 386165 = 116 * 3329 + 1.
        assert_eq!(inverse_mod(2285, 3329), Some(169));
        assert_eq!(inverse_mod(0, 3329), None);
        assert_eq!(Reduction::new(3329, -1664).of(3330), 1);
        assert_eq!(Reduction::new(3329, -1664).of(-1665), 1664);
        // Any 64-bit value and factor: (2^63 - 1) mod 3329 = 1493, (2^64 - 1) mod 3329 = 2987,
        // (2^63 - 1)^2 mod 3329 = 1948, 2^63 mod 3329 = 1494 (-2^63 times the factor -1 = 3328).
        assert_eq!(Reduction::new(3329, 0).of(i64::MAX), 1493);
        assert_eq!(Reduction::new(3329, i64::MIN).of(i64::MAX), i64::MIN + 2987);
        assert_eq!(Reduction::new(3329, 0).scaled(i64::MAX, i64::MAX.rem_euclid(3329)), 1948);
        assert_eq!(Reduction::new(3329, -1664).scaled(i64::MIN, 3328), 1494);
        // A modulus whose residues' products leave 64 bits: (q - 1)^2 = (-1)^2 = 1 mod q.
        let big = (1i64 << 62) + 135;
        assert_eq!(Reduction::new(big, 0).scaled(big - 1, big - 1), 1);
    }

    /// Reductions against Rust's `rem_euclid`: around 0, 2^32, 2^62 and the ends of i64 and around their multiples
    /// of q, and random values of every magnitude, for the moduli of the schemes and small and large others.
    #[test]
    fn reductions_are_the_remainders_rust_divides_out() {
        for q in [2i64, 3, 3329, 12289, 8380417, (1 << 31) - 1, 1 << 32, (1 << 32) + 15, (1 << 62) + 135, i64::MAX] {
            let into = Reduction::new(q, 0);
            let product = |x: i64, f: i64| (i128::from(x) * i128::from(f)).rem_euclid(i128::from(q)) as i64;
            for centre in [0i64, 1 << 32, 1 << 62, i64::MAX, i64::MIN] {
                for base in [centre, centre.saturating_sub(centre.rem_euclid(q))] {
                    for d in -300..=300i64 {
                        for x in [base.saturating_add(d), base.saturating_add(d).saturating_neg()] {
                            assert_eq!(into.residue(x), x.rem_euclid(q), "{x} mod {q}");
                            assert_eq!(into.scaled(x, q - 1), product(x, q - 1), "{x} * -1 mod {q}");
                        }
                    }
                }
            }
            let mut rng = pqhelium_families::case_rng(q as u64, 0);
            for _ in 0..20_000 {
                let x: i64 = rng.r#gen::<i64>() >> rng.gen_range(0..63);
                let f = rng.gen_range(0..q);
                assert_eq!(into.residue(x), x.rem_euclid(q), "{x} mod {q}");
                assert_eq!(into.scaled(x, f), product(x, f), "{x} * {f} mod {q}");
            }
        }
    }

    /// The inverse by its definition, f g = 1 mod q, against every f of small moduli, prime and composite.
    #[test]
    fn inverses_are_those_the_definition_finds() {
        for q in 2..200i64 {
            for f in -2 * q..2 * q {
                let by_definition = (0..q).find(|&g| (f.rem_euclid(q) * g) % q == 1);
                assert_eq!(inverse_mod(f, q), by_definition, "{f} mod {q}");
            }
        }
        assert_eq!(inverse_mod(2, 8380417), Some(4190209));
    }

    /// The canonicalisation reduces their outputs with a modulus into 0..q: sound only where the reference gives
    /// canonical residues there.
    #[test]
    fn outputs_with_a_modulus_have_canonical_references() {
        let with_q: Vec<_> = pqhelium_families::all()
            .filter(|k| k.images != Images::HostOnly && k.outputs().any(|a| a.modulus.is_some()))
            .collect();
        // The NTTs and products of both schemes (19), and the ML-KEM polynomial kernels but compression and
        // encoding (18).
        assert!(with_q.len() >= 37, "{}", with_q.len());
        for k in with_q {
            for case in [0, 1, 2, k.edge_cases, k.edge_cases + 1] {
                let args = k.generate(case, &mut pqhelium_families::case_rng(7, case));
                let reference = k.evaluate(&args).unwrap().reference;
                for (spec, buffer) in k.outputs().zip(&reference.buffers) {
                    let Some(q) = q_of(spec) else { continue };
                    for i in 0..buffer.len() / spec.elem.bytes() {
                        assert!(
                            (0..q).contains(&get(spec.elem, buffer, i)),
                            "{} {}[{i}], case {case}",
                            k.id,
                            spec.name
                        );
                    }
                }
            }
        }
    }

    /// `mlkem.compress.dv4.scalar` with their polynomial in the Montgomery domain (times 2^16 mod q, centred).
    fn compress_from_montgomery() -> &'static Kernel {
        let adapter = Adapter { factor: 2285, form: Some(Form::Centred), ..Adapter::default() };
        let spec = ForeignSpec {
            symbol: "their_compress_dv4_mont".into(),
            contract: "mlkem.compress.dv4.scalar".into(),
            args: vec![ForeignArg::both("out", Adapter::default()), ForeignArg::both("p", adapter)],
            core: "m7".into(),
            states: 1,
            layout: Layout::Consecutive,
        };
        foreign(&spec).unwrap()
    }

    /// Their compression: out of the Montgomery domain (times `r_inverse` mod q), then ByteEncode_4(Compress_4(x)),
    /// written from FIPS 203's formulas: round(16 x / q) = floor((32 x + q) / 2q).
    fn their_compress(p: &[u8], r_inverse: i64) -> Vec<u8> {
        let mut out = vec![0u8; 128];
        for i in 0..256 {
            let x = (get(Elem::I16, p, i) * r_inverse).rem_euclid(3329);
            let c = ((32 * x + 3329) / 6658) & 15;
            out[i / 2] |= (c as u8) << (4 * (i % 2));
        }
        out
    }

    /// A polynomial contract takes a factor: their Montgomery-domain input, divided out, compresses as ours does; a
    /// wrong R^-1 is caught.
    #[test]
    fn a_polynomial_contract_takes_a_factor() {
        let kernel = compress_from_montgomery();
        assert_eq!(kernel.args[1].repr, "times 2285 mod 3329, centred");
        let mut caught = false;
        for case in 0..kernel.edge_cases + 40 {
            let args = kernel.generate(case, &mut pqhelium_families::case_rng(5, case));
            pqhelium_families::check_input_bounds(kernel, &args).unwrap();
            let reference = kernel.evaluate(&args).unwrap().reference;
            let p = pqhelium_families::buffer(&args[1]);
            let theirs = |r_inverse| Outcome { buffers: vec![their_compress(p, r_inverse)], ret: None };
            assert_eq!(kernel.canon(&theirs(169)), reference, "case {case}");
            caught |= kernel.canon(&theirs(170)) != reference;
        }
        assert!(caught, "a wrong R^-1 must be caught");
    }

    /// A factor on an argument with no modulus (an encoding's bytes) is refused, naming the argument.
    #[test]
    fn a_factor_on_an_argument_with_no_modulus_is_refused() {
        let spec = ForeignSpec {
            symbol: "theirs".into(),
            contract: "mlkem.compress.dv4.scalar".into(),
            args: vec![
                ForeignArg::both("out", Adapter { factor: 2, ..Adapter::default() }),
                ForeignArg::both("p", Adapter::default()),
            ],
            core: "m7".into(),
            states: 1,
            layout: Layout::Consecutive,
        };
        assert_eq!(
            foreign(&spec).unwrap_err(),
            "`theirs` (contract mlkem.compress.dv4.scalar): `out`: holds no residues mod q (the contract gives it no \
             modulus): a factor, form or bound does not apply"
        );
    }

    /// Their inputs, put back in the contract's order and representation, are the contract's inputs mod q.
    #[test]
    fn adapted_inputs_come_back_mod_q() {
        let spec = ForeignSpec {
            symbol: "theirs".into(),
            contract: "mlkem.basemul.scalar".into(),
            args: ["b", "out", "a"]
                .iter()
                .map(|n| {
                    let adapter = Adapter {
                        order: Order::BitReversal,
                        factor: 2285,
                        form: Some(Form::Centred),
                        ..Adapter::default()
                    };
                    ForeignArg::both(n, adapter)
                })
                .collect(),
            core: "m55".into(),
            states: 1,
            layout: Layout::Consecutive,
        };
        let kernel = foreign(&spec).unwrap();
        let base = pqhelium_families::find("mlkem.basemul.scalar").unwrap();
        let case = base.edge_cases + 3;
        let theirs = kernel.generate(case, &mut pqhelium_families::case_rng(9, case));
        let ours = base.generate(case, &mut pqhelium_families::case_rng(9, case));
        pqhelium_families::check_input_bounds(kernel, &theirs).unwrap();
        let (Arg::In(b), Arg::In(b_ours)) = (&theirs[0], &ours[2]) else { panic!("b is an input") };
        for s in 0..256 {
            let c = Order::BitReversal.contract_index(s, 256);
            let (x, y) = (get(Elem::I16, b, s), get(Elem::I16, b_ours, c));
            assert_eq!((x - 2285 * y).rem_euclid(3329), 0, "index {s}");
            assert!(x.abs() <= 1664);
        }
        assert_eq!(kernel.evaluate(&theirs).unwrap().reference, base.evaluate(&ours).unwrap().reference);
    }

    /// FIPS 203 Algorithm 9 (NTT), mod q = 3329 with zeta = 17, on any representatives.
    fn fips_ntt(p: &[i64]) -> Vec<i64> {
        let (q, mut f, mut k) = (3329i64, p.iter().map(|x| x.rem_euclid(3329)).collect::<Vec<_>>(), 1usize);
        let zeta = |k: usize| (0..(k as u8).reverse_bits() >> 1).fold(1i64, |z, _| z * 17 % q);
        let mut len = 128;
        while len >= 2 {
            for start in (0..256).step_by(2 * len) {
                let z = zeta(k);
                k += 1;
                for j in start..start + len {
                    let t = z * f[j + len] % q;
                    (f[j + len], f[j]) = ((f[j] - t).rem_euclid(q), (f[j] + t) % q);
                }
            }
            len /= 2;
        }
        f
    }

    /// Their forward NTT: natural-order input in [-16384, 16384] (wider than the contract's), output in bit-reversed
    /// order and the Montgomery domain (times 2^16 mod q). Sub-tables per direction describe it; the flat form (one
    /// adapter both ways) does not.
    #[test]
    fn directions_take_adapters_of_their_own_and_a_wider_domain() {
        let output = Adapter { order: Order::BitReversal, factor: 2285, ..Adapter::default() };
        let input = Adapter { input_bound: Some((-16384, 16384)), ..Adapter::default() };
        let kernel = |input_adapter: Adapter, output_adapter: Adapter| {
            let args = vec![ForeignArg::Contract { name: "p".into(), input_adapter, output_adapter }];
            let spec = ForeignSpec {
                symbol: "their_ntt".into(),
                contract: "mlkem.ntt.fwd.scalar".into(),
                args,
                core: "m55".into(),
                states: 1,
                layout: Layout::Consecutive,
            };
            foreign(&spec).unwrap()
        };
        let theirs = |p: &[u8]| {
            let x: Vec<i64> = (0..256).map(|i| get(Elem::I16, p, i)).collect();
            let y = fips_ntt(&x);
            let mut out = vec![0u8; 512];
            for s in 0..256 {
                put(Elem::I16, &mut out, s, y[Order::BitReversal.contract_index(s, 256)] * 2285 % 3329);
            }
            Outcome { buffers: vec![out], ret: None }
        };
        let directed = kernel(input.clone(), output.clone());
        let flat = kernel(output.clone(), output);
        let (mut beyond, mut ends, mut flat_failures) = (0, 0, 0);
        let cases = 40;
        for case in 0..cases {
            let args = directed.generate(case, &mut pqhelium_families::case_rng(3, case));
            pqhelium_families::check_input_bounds(directed, &args).unwrap();
            let p = pqhelium_families::buffer(&args[0]);
            let values: Vec<i64> = (0..256).map(|i| get(Elem::I16, p, i)).collect();
            beyond += values.iter().filter(|x| x.abs() > 8192).count();
            ends += values.iter().filter(|x| x.abs() == 16384).count();
            let reference = directed.evaluate(&args).unwrap().reference;
            assert_eq!(directed.canon(&theirs(p)), reference, "case {case}");
            let args = flat.generate(case, &mut pqhelium_families::case_rng(3, case));
            let p = pqhelium_families::buffer(&args[0]);
            flat_failures += usize::from(flat.canon(&theirs(p)) != flat.evaluate(&args).unwrap().reference);
        }
        assert!(beyond > 1000 && ends > 100, "{beyond} values beyond 8192, {ends} at the ends");
        assert!(
            flat_failures as u64 > cases / 2,
            "the flat form passed {} of {cases} cases",
            cases - flat_failures as u64
        );
    }

    /// An output adapter on an input-only argument is refused.
    #[test]
    fn an_input_takes_no_output_adapter() {
        let spec = ForeignSpec {
            symbol: "theirs".into(),
            contract: "mlkem.basemul.scalar".into(),
            args: vec![
                ForeignArg::both("out", Adapter::default()),
                ForeignArg::Contract {
                    name: "a".into(),
                    input_adapter: Adapter::default(),
                    output_adapter: Adapter { factor: 2285, ..Adapter::default() },
                },
                ForeignArg::both("b", Adapter::default()),
            ],
            core: "m55".into(),
            states: 1,
            layout: Layout::Consecutive,
        };
        let e = foreign(&spec).unwrap_err();
        assert!(e.contains("`a` is input only: it takes no output adapter"), "{e}");
    }
}
