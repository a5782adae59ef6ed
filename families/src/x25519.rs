//! Contracts of the X25519 field arithmetic kernels (`kernels/arm/x25519/fe.c`, portable C in every image):
//! multiplication, squaring, addition, subtraction, multiplication by 121666 and inversion modulo p = 2^255 - 19.
//!
//! Representation `radix-2^32`: 8 little-endian `uint32_t` limbs, any value in [0, 2^256), standing for itself mod p.
//! Every kernel takes any such value and returns one congruent to the result, only partially reduced (it may be p or
//! more). Model: `pqhelium_sim::x25519_fe`, limb for limb. Reference: `pqhelium_core::x25519::Reference` (radix
//! 2^51), the input read as its full 256 bits (bit 255 worth 2^255 = 19 mod p). Canonicalisation: the value's residue
//! in [0, p-1], in the same 8 limbs, which is also the reference's 32-byte encoding. Field elements of a scalar
//! multiplication are secret: every argument is marked so.
//!
//! The ladder's kernels on them (`kernels/arm/x25519/ladder.c`): `x25519.cswap` (the conditional swap, its bit
//! secret; `x25519.cswap.mve` with MVE, `cswap.mve.c`) and `x25519.ladder_step` (one differential addition-and-
//! doubling of RFC 7748 section 5), against core's swap and Montgomery's formulas in their expanded form in core's
//! arithmetic; `x25519.inv2` (the zero-safe paired inversion) against two inversions in core; `x25519.scalarmult`
//! (the whole ladder, RFC 7748's function on bytes) against x25519-dalek. The fixed base (`kernels/arm/x25519/base.c`):
//! `x25519.base` (the signed-window table, constant-time lookup and sign) and `x25519.base.b8` (the same with the
//! design's B8 flaw, deliberately), each against core's ladder on u = 9.
//!
//! Each kernel is one [`Row`] of [`ROWS`]: the operation it serves ([`Op`], what a provider asks for through
//! [`row`]), which code it is, its id and symbol. The field operations' contracts are data (`Field`: operands,
//! corner cases, reference, model, coverage steps); the ladder's kernels have contract types of their own.

use std::sync::LazyLock;

use pqhelium_core::x25519::{Fe51, FieldArithmetic, Reference};
use pqhelium_sim::corner_search;
use pqhelium_sim::coverage::Step;
use pqhelium_sim::x25519_fe::{self as model, A24_PLUS_ONE, Fe, LIMBS};
use pqhelium_sim::x25519_steps;
use rand::RngCore;

use super::{
    ArgSpec, Bound, Build, CaseRng, Contract, Description, Elem, Images, Kernel, Len, Outcome, RunReference, Ways,
    buffer, bytes_to_words, u32_arg, words_to_bytes,
};
use pqhelium_guest::backend::Arg;

const REPRESENTATION: &str = "radix-2^32";

/// The curve's A in v^2 = u^3 + A u^2 + u (RFC 7748 section 4.1).
const MONTGOMERY_A: u32 = 486662;

/// p = 2^255 - 19 in limbs.
const P: Fe = [0xFFFF_FFED, u32::MAX, u32::MAX, u32::MAX, u32::MAX, u32::MAX, u32::MAX, 0x7FFF_FFFF];

/// The operations of the family, as providers ask for them (`x25519::FieldArithmetic` and its larger steps).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Op {
    Mul,
    Sqr,
    Add,
    Sub,
    Mul121666,
    Inv,
    Pow22523,
    Cswap,
    LadderStep,
    Inv2,
    Scalarmult,
    Base,
}

/// Which code of its operation a kernel is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Code {
    /// Portable C, in every image.
    Portable,
    /// MVE, in the M55 and M85 images: what a provider of the MVE build runs.
    Mve,
    /// Deliberately flawed, for the constant-time checker to catch: no provider runs it.
    Flawed,
}

/// One kernel of the family: the operation it serves, which code it is, its id and symbol.
pub struct Row {
    pub op: Op,
    pub code: Code,
    pub id: &'static str,
    pub symbol: &'static str,
}

/// The kernels, in registry order.
pub static ROWS: &[Row] = &[
    Row { op: Op::Mul, code: Code::Portable, id: "x25519.fe.mul", symbol: "x25519_fe_mul" },
    Row { op: Op::Sqr, code: Code::Portable, id: "x25519.fe.sqr", symbol: "x25519_fe_sqr" },
    Row { op: Op::Add, code: Code::Portable, id: "x25519.fe.add", symbol: "x25519_fe_add" },
    Row { op: Op::Sub, code: Code::Portable, id: "x25519.fe.sub", symbol: "x25519_fe_sub" },
    Row { op: Op::Mul121666, code: Code::Portable, id: "x25519.fe.mul121666", symbol: "x25519_fe_mul121666" },
    Row { op: Op::Inv, code: Code::Portable, id: "x25519.fe.inv", symbol: "x25519_fe_inv" },
    Row { op: Op::Pow22523, code: Code::Portable, id: "x25519.fe.pow22523", symbol: "x25519_fe_pow22523" },
    Row { op: Op::Cswap, code: Code::Portable, id: "x25519.cswap", symbol: "x25519_cswap" },
    Row { op: Op::Cswap, code: Code::Mve, id: "x25519.cswap.mve", symbol: "x25519_cswap_mve" },
    Row { op: Op::LadderStep, code: Code::Portable, id: "x25519.ladder_step", symbol: "x25519_ladder_step" },
    Row { op: Op::Inv2, code: Code::Portable, id: "x25519.inv2", symbol: "x25519_inv2" },
    Row { op: Op::Scalarmult, code: Code::Portable, id: "x25519.scalarmult", symbol: "x25519_scalarmult" },
    Row { op: Op::Base, code: Code::Portable, id: "x25519.base", symbol: "x25519_base" },
    Row { op: Op::Base, code: Code::Flawed, id: "x25519.base.b8", symbol: "x25519_base_b8" },
];

/// The row a provider of `build` runs for `op`: the MVE code where the build has MVE and the operation has some,
/// else the portable C.
pub fn row(op: Op, build: Build) -> &'static Row {
    let of = |code| ROWS.iter().find(|r| r.op == op && r.code == code);
    let mve = if build == Build::Mve { of(Code::Mve) } else { None };
    mve.or_else(|| of(Code::Portable)).unwrap_or_else(|| panic!("no portable kernel serves {op:?}"))
}

pub(super) fn kernels() -> Vec<Kernel> {
    ROWS.iter().map(kernel).collect()
}

/// The contract of a row: its operation's contract type (the field operations' from their [`Field`]).
fn kernel(row: &'static Row) -> Kernel {
    let field = |spec: &'static Field| Kernel::new(FieldOp { row, spec });
    match row.op {
        Op::Mul => field(&MUL),
        Op::Sqr => field(&SQR),
        Op::Add => field(&ADD),
        Op::Sub => field(&SUB),
        Op::Mul121666 => field(&MUL121666),
        Op::Inv => field(&INV),
        Op::Pow22523 => field(&POW22523),
        Op::Cswap => Kernel::new(Cswap { row, mve: row.code == Code::Mve }),
        Op::LadderStep => Kernel::new(LadderStep(row)),
        Op::Inv2 => Kernel::new(Inv2(row)),
        Op::Scalarmult => Kernel::new(Scalarmult(row)),
        Op::Base => Kernel::new(Base { row, flawed: row.code == Code::Flawed }),
    }
}

/// A field operation: its operands, what it computes, its corner cases, reference, model and coverage steps.
struct Field {
    operands: usize,
    what: &'static str,
    computes: &'static str,
    /// Operands found by search on the model, after the edge values (the addition's and subtraction's ends are among
    /// the edge pairs).
    corners: fn() -> &'static [Vec<Fe>],
    /// In core's arithmetic, on the operands read as their full 256 bits.
    reference: fn(&[Fe51]) -> Fe51,
    model: fn(&[Fe]) -> Fe,
    steps: fn() -> Vec<Step>,
}

const MUL: Field = Field {
    operands: 2,
    what: "multiplication",
    computes: "r = a b mod p",
    corners: || &PRODUCT_CORNERS,
    reference: |x| Reference.mul(&x[0], &x[1]),
    model: |x| model::mul(&x[0], &x[1]),
    steps: x25519_steps::mul,
};

const SQR: Field = Field {
    operands: 1,
    what: "squaring",
    computes: "r = a^2 mod p",
    corners: || &SQR_CORNERS,
    reference: |x| Reference.sqr(&x[0]),
    model: |x| model::sqr(&x[0]),
    steps: x25519_steps::sqr,
};

const ADD: Field = Field {
    operands: 2,
    what: "addition",
    computes: "r = a + b mod p",
    corners: || &[],
    reference: |x| Reference.add(&x[0], &x[1]),
    model: |x| model::add(&x[0], &x[1]),
    steps: x25519_steps::add,
};

const SUB: Field = Field {
    operands: 2,
    what: "subtraction",
    computes: "r = a - b mod p",
    corners: || &[],
    reference: |x| Reference.sub(&x[0], &x[1]),
    model: |x| model::sub(&x[0], &x[1]),
    steps: x25519_steps::sub,
};

const MUL121666: Field = Field {
    operands: 1,
    what: "multiplication by (A + 2) / 4 = 121666",
    computes: "r = 121666 a mod p",
    corners: || &MUL121666_CORNERS,
    reference: |x| Reference.mul_small(&x[0], A24_PLUS_ONE),
    model: |x| model::mul121666(&x[0]),
    steps: x25519_steps::mul121666,
};

const INV: Field = Field {
    operands: 1,
    what: "inversion",
    computes: "r = a^(p-2) mod p (the inverse of a, 0 for 0)",
    corners: || &[],
    reference: |x| Reference.invert(&x[0]),
    model: |x| model::inv(&x[0]),
    steps: Vec::new,
};

const POW22523: Field = Field {
    operands: 1,
    what: "exponentiation by (p-5)/8 (the square root's exponent)",
    computes: "r = a^((p-5)/8) = a^(2^252 - 3) mod p",
    corners: || &[],
    reference: |x| pow_by_bits(&x[0], &two_252_minus_3()),
    model: |x| model::pow22523(&x[0]),
    steps: Vec::new,
};

/// A field operation's kernel.
struct FieldOp {
    row: &'static Row,
    spec: &'static Field,
}

/// The multiplication's corner cases, found by search on the model: operand pairs whose schoolbook product meets
/// t[i + j] + c = 2^32 at each step (rows and columns 1..7), then pairs whose reduction folds a second time with the
/// wrapped value at both ends of its range.
static PRODUCT_CORNERS: LazyLock<Vec<Vec<Fe>>> = LazyLock::new(|| {
    let mut v = corner_search::x25519_product_corners();
    v.extend(corner_search::x25519_fold_corners());
    v.into_iter().map(|(a, b)| vec![a, b]).collect()
});

/// The squaring's corner cases: its reduction's carry at 38, its second fold at both ends a search finds.
static SQR_CORNERS: LazyLock<Vec<Vec<Fe>>> =
    LazyLock::new(|| corner_search::x25519_sqr_corners().into_iter().map(|a| vec![a]).collect());

/// The multiplication by 121666's corner cases: its second fold at both ends (exhaustive over the carry).
static MUL121666_CORNERS: LazyLock<Vec<Vec<Fe>>> =
    LazyLock::new(|| corner_search::x25519_mul121666_corners().into_iter().map(|a| vec![a]).collect());

impl FieldOp {
    /// The edge values (pairs of them for two operands), then the corner cases.
    fn edge_cases(&self) -> u64 {
        (edge_values().len() as u64).pow(self.spec.operands as u32) + (self.spec.corners)().len() as u64
    }
}

/// Values at the representation's bounds and around the multiples of p it holds (each of the 2^256 values is an
/// input): 0, 1, 19, 38, p-1, p, p+1, 2^255-1, 2^255, 2p-1, 2p = 2^256-38, 2p+1, 2^256-1 (every limb all ones), the
/// top limb alone all ones, and limbs alternately all ones and zero.
fn edge_values() -> Vec<Fe> {
    let with_low = |mut v: Fe, low: u32| {
        v[0] = low;
        v
    };
    let zero = [0; LIMBS];
    let ones = [u32::MAX; LIMBS];
    let two_p = with_low(ones, 0xFFFF_FFDA);
    let mut top_bit = zero;
    top_bit[LIMBS - 1] = 0x8000_0000;
    let mut top_limb = zero;
    top_limb[LIMBS - 1] = u32::MAX;
    vec![
        zero,
        with_low(zero, 1),
        with_low(zero, 19),
        with_low(zero, 38),
        with_low(P, P[0] - 1),
        P,
        with_low(P, P[0] + 1),
        with_low(P, u32::MAX),
        top_bit,
        with_low(two_p, two_p[0] - 1),
        two_p,
        with_low(two_p, two_p[0] + 1),
        ones,
        top_limb,
        std::array::from_fn(|i| if i % 2 == 0 { u32::MAX } else { 0 }),
    ]
}

/// A random element: every limb uniform, or (odd cases) each limb all ones, zero or uniform, so that long carry and
/// borrow chains are frequent.
fn random_fe(case: u64, rng: &mut CaseRng) -> Fe {
    std::array::from_fn(|_| {
        let limb = rng.next_u32();
        if case.is_multiple_of(2) {
            return limb;
        }
        match rng.next_u32() % 3 {
            0 => u32::MAX,
            1 => 0,
            _ => limb,
        }
    })
}

/// The value's residue in [0, p-1]: below 2^256 = 2p + 38, so p is subtracted at most twice.
fn canonical(mut v: Fe) -> Fe {
    for _ in 0..2 {
        let mut difference = [0; LIMBS];
        let mut borrow = 0u64;
        for i in 0..LIMBS {
            let d = u64::from(v[i]).wrapping_sub(u64::from(P[i])).wrapping_sub(borrow);
            difference[i] = d as u32;
            borrow = d >> 63;
        }
        if borrow == 0 {
            v = difference;
        }
    }
    v
}

/// The reference's element for all 256 bits of `fe` (its decoding ignores bit 255, worth 19 mod p).
fn to_reference(fe: &Fe) -> Fe51 {
    let f = Reference;
    let bytes: [u8; 32] = words_to_bytes(fe).try_into().expect("8 limbs");
    let low = f.decode(&bytes);
    if fe[LIMBS - 1] >> 31 == 1 { f.add(&low, &f.small(19)) } else { low }
}

impl Contract for FieldOp {
    /// The operands.
    type Input = Vec<Fe>;

    fn describe(&self) -> Description {
        let len = Len::Fixed(LIMBS);
        let element = |name| ArgSpec::input(name, Elem::U32, len, Bound::Any).repr(REPRESENTATION).secret();
        let result = ArgSpec::output("r", Elem::U32, len, Bound::Any).repr(REPRESENTATION).secret();
        let (what, computes) = (self.spec.what, self.spec.computes);
        let mut args = vec![result, element("a")];
        if self.spec.operands == 2 {
            args.push(element("b"));
        }
        Description {
            id: self.row.id,
            symbol: self.row.symbol,
            images: Images::Both,
            summary: format!("{what} modulo 2^255 - 19, 8 x 32-bit limbs (UMAAL chains), portable C"),
            computes: format!(
                "{computes}; inputs any value in [0, 2^256), the output a value in [0, 2^256) congruent to the \
                 result, not necessarily below p"
            ),
            requires: String::new(),
            edge_cases: self.edge_cases(),
            args,
            returns: None,
            results: vec![],
        }
    }

    /// Edge cases: every edge value (every ordered pair of them for two operands), then the corner cases, then
    /// random elements.
    fn generate(&self, case: u64, rng: &mut CaseRng) -> Vec<Fe> {
        let edges = edge_values();
        let n = edges.len() as u64;
        let operands = self.spec.operands;
        let pairs = n.pow(operands as u32);
        if case < pairs {
            let first = edges[(case % n) as usize];
            return if operands == 1 { vec![first] } else { vec![first, edges[(case / n) as usize]] };
        }
        if case < self.edge_cases() {
            return (self.spec.corners)()[(case - pairs) as usize].clone();
        }
        (0..operands).map(|_| random_fe(case, rng)).collect()
    }

    fn encode(&self, operands: &Vec<Fe>) -> Vec<Arg> {
        let mut args = vec![Arg::Out(4 * LIMBS)];
        args.extend(operands.iter().map(|fe| Arg::In(words_to_bytes(fe))));
        args
    }

    fn decode(&self, args: &[Arg]) -> Vec<Fe> {
        args[1..].iter().map(|a| limbs(buffer(a))).collect()
    }

    fn reference(&self, operands: &Vec<Fe>, _: RunReference) -> Outcome {
        let operands: Vec<Fe51> = operands.iter().map(to_reference).collect();
        Outcome { buffers: vec![Reference.encode(&(self.spec.reference)(&operands)).to_vec()], ret: None }
    }

    fn ways(&self) -> Ways<Self> {
        Ways::Three {
            model: |op, operands| outcome_of(&[(op.spec.model)(operands)]),
            canon: |_, o| canonical_elements(o),
        }
    }

    fn coverage_steps(&self) -> Vec<Step> {
        (self.spec.steps)()
    }
}

fn limbs(bytes: &[u8]) -> Fe {
    bytes_to_words(bytes).try_into().expect("8 limbs")
}

fn outcome_of(elements: &[Fe]) -> Outcome {
    Outcome { buffers: elements.iter().map(|fe| words_to_bytes(fe)).collect(), ret: None }
}

/// Every buffer of an outcome, element by element (8 limbs each), to its residue mod p.
fn canonical_elements(o: &Outcome) -> Outcome {
    let buffers = o
        .buffers
        .iter()
        .map(|b| b.chunks_exact(4 * LIMBS).flat_map(|fe| words_to_bytes(&canonical(limbs(fe)))).collect())
        .collect();
    Outcome { buffers, ret: o.ret }
}

fn encoded(f: &Reference, elements: &[Fe51]) -> Vec<u8> {
    elements.iter().flat_map(|e| f.encode(e)).collect()
}

/// `x25519.cswap` (portable C) and `x25519.cswap.mve` (MVE): a and b swapped when swap is 1.
struct Cswap {
    row: &'static Row,
    mve: bool,
}

/// (a, b, swap).
type CswapInput = (Fe, Fe, u32);

impl Contract for Cswap {
    type Input = CswapInput;

    fn describe(&self) -> Description {
        let len = Len::Fixed(LIMBS);
        let element =
            |name| ArgSpec::in_out(name, Elem::U32, len, Bound::Any, Bound::Any).repr(REPRESENTATION).secret();
        let (images, code) =
            if self.mve { (Images::M55Only, "MVE, 4 limbs a vector") } else { (Images::Both, "portable C") };
        Description {
            id: self.row.id,
            symbol: self.row.symbol,
            images,
            summary: format!("the Montgomery ladder's conditional swap of two field elements, masks, {code}"),
            computes: "(a, b) = (b, a) when swap = 1, unchanged when swap = 0, limb for limb, with the same \
                       instructions and addresses either way"
                .into(),
            requires: String::new(),
            edge_cases: 2 * edge_values().len() as u64,
            args: vec![
                element("a"),
                element("b"),
                ArgSpec::scalar("swap", Elem::U32, Bound::Range { lo: 0, hi: 1 }).repr("bit").secret(),
            ],
            returns: None,
            results: vec![],
        }
    }

    /// Edge cases: each edge value against the one mirrored in the list, swap 0 then 1; then random.
    fn generate(&self, case: u64, rng: &mut CaseRng) -> CswapInput {
        let edges = edge_values();
        let n = edges.len() as u64;
        if case < 2 * n {
            let i = (case / 2) as usize;
            return (edges[i], edges[edges.len() - 1 - i], (case % 2) as u32);
        }
        (random_fe(case, rng), random_fe(case, rng), rng.next_u32() & 1)
    }

    fn encode(&self, (a, b, swap): &CswapInput) -> Vec<Arg> {
        vec![Arg::InOut(words_to_bytes(a)), Arg::InOut(words_to_bytes(b)), Arg::U32(*swap)]
    }

    fn decode(&self, args: &[Arg]) -> CswapInput {
        (limbs(buffer(&args[0])), limbs(buffer(&args[1])), u32_arg(&args[2]))
    }

    fn reference(&self, (a, b, swap): &CswapInput, _: RunReference) -> Outcome {
        let f = Reference;
        let (mut a, mut b) = (to_reference(a), to_reference(b));
        f.cswap(u64::from(*swap), &mut a, &mut b);
        Outcome { buffers: vec![encoded(&f, &[a]), encoded(&f, &[b])], ret: None }
    }

    fn ways(&self) -> Ways<Self> {
        Ways::Three {
            model: |_, &(mut a, mut b, swap)| {
                model::cswap(&mut a, &mut b, swap);
                outcome_of(&[a, b])
            },
            canon: |_, o| canonical_elements(o),
        }
    }
}

/// `x25519.ladder_step`: one step of the ladder on x2 || z2 || x3 || z3.
struct LadderStep(&'static Row);

/// (x2, z2, x3, z3) and x1.
type LadderInput = ([Fe; 4], Fe);

impl Contract for LadderStep {
    type Input = LadderInput;

    fn describe(&self) -> Description {
        let element = |n| Len::Fixed(n * LIMBS);
        Description {
            id: self.0.id,
            symbol: self.0.symbol,
            images: Images::Both,
            summary: "one Montgomery ladder step (differential addition and doubling), radix 2^32, portable C".into(),
            computes: "with A = x2 + z2, B = x2 - z2, C = x3 + z3, D = x3 - z3, E = A^2 - B^2: x2' = A^2 B^2, \
                       z2' = E (B^2 + 121666 E), x3' = (DA + CB)^2, z3' = x1 (DA - CB)^2 (RFC 7748 section 5, \
                       after the swap); outputs partially reduced as the field kernels leave them"
                .into(),
            requires: String::new(),
            edge_cases: edge_values().len() as u64,
            args: vec![
                ArgSpec::in_out("state", Elem::U32, element(4), Bound::Any, Bound::Any)
                    .repr("radix-2^32, x2 z2 x3 z3")
                    .secret(),
                ArgSpec::input("x1", Elem::U32, element(1), Bound::Any).repr(REPRESENTATION).secret(),
            ],
            returns: None,
            results: vec![],
        }
    }

    /// Edge cases: the four coordinates edge values i, i+1, i+2, i+3 and x1 edge value i+4 (cyclically); then random.
    fn generate(&self, case: u64, rng: &mut CaseRng) -> LadderInput {
        let edges = edge_values();
        let n = edges.len();
        if case < n as u64 {
            let at = |k: usize| edges[(case as usize + k) % n];
            return ([at(0), at(1), at(2), at(3)], at(4));
        }
        (std::array::from_fn(|_| random_fe(case, rng)), random_fe(case, rng))
    }

    fn encode(&self, (state, x1): &LadderInput) -> Vec<Arg> {
        vec![Arg::InOut(words_to_bytes(state.as_flattened())), Arg::In(words_to_bytes(x1))]
    }

    fn decode(&self, args: &[Arg]) -> LadderInput {
        let words = buffer(&args[0]);
        (std::array::from_fn(|k| limbs(&words[4 * LIMBS * k..4 * LIMBS * (k + 1)])), limbs(buffer(&args[1])))
    }

    /// Montgomery's doubling and differential addition in their expanded form, in core's arithmetic: the same
    /// projective values as RFC 7748's A, B, C, D, E (DA + CB = 2 (x2 x3 - z2 z3), DA - CB = 2 (x3 z2 - x2 z3),
    /// AA BB = (x2^2 - z2^2)^2, E = 4 x2 z2, AA + a24 E = x2^2 + A x2 z2 + z2^2), computed another way.
    fn reference(&self, (state, x1): &LadderInput, _: RunReference) -> Outcome {
        let f = Reference;
        let [x2, z2, x3, z3] = state.map(|fe| to_reference(&fe));
        let x1 = to_reference(x1);
        let four = |e: &Fe51| f.mul_small(e, 4);
        let (x2x2, z2z2, x2z2) = (f.sqr(&x2), f.sqr(&z2), f.mul(&x2, &z2));
        let doubled_x = f.sqr(&f.sub(&x2x2, &z2z2));
        let doubled_z = four(&f.mul(&x2z2, &f.add(&f.add(&x2x2, &z2z2), &f.mul_small(&x2z2, MONTGOMERY_A))));
        let sum_x = four(&f.sqr(&f.sub(&f.mul(&x2, &x3), &f.mul(&z2, &z3))));
        let sum_z = four(&f.mul(&x1, &f.sqr(&f.sub(&f.mul(&x2, &z3), &f.mul(&z2, &x3)))));
        Outcome { buffers: vec![encoded(&f, &[doubled_x, doubled_z, sum_x, sum_z])], ret: None }
    }

    fn ways(&self) -> Ways<Self> {
        Ways::Three {
            model: |_, (state, x1)| {
                let mut state = *state;
                model::ladder_step(&mut state, x1);
                Outcome { buffers: vec![words_to_bytes(state.as_flattened())], ret: None }
            },
            canon: |_, o| canonical_elements(o),
        }
    }
}

/// (p - 5) / 8 = 2^252 - 3, little-endian.
fn two_252_minus_3() -> [u8; 32] {
    let mut e = [0xFF; 32];
    e[0] = 0xFD;
    e[31] = 0x0F;
    e
}

/// a^e by square-and-multiply over the bits of e, in core's arithmetic (not the kernels' addition chain).
fn pow_by_bits(a: &Fe51, exponent: &[u8; 32]) -> Fe51 {
    let f = Reference;
    (0..256).rev().fold(f.small(1), |acc, bit| {
        let acc = f.sqr(&acc);
        if (exponent[bit / 8] >> (bit % 8)) & 1 == 1 { f.mul(&acc, a) } else { acc }
    })
}

/// `x25519.inv2`: the zero-safe paired inversion.
struct Inv2(&'static Row);

impl Contract for Inv2 {
    /// (a, b).
    type Input = (Fe, Fe);

    fn describe(&self) -> Description {
        let len = Len::Fixed(LIMBS);
        let element = |name| ArgSpec::input(name, Elem::U32, len, Bound::Any).repr(REPRESENTATION).secret();
        let result = |name| ArgSpec::output(name, Elem::U32, len, Bound::Any).repr(REPRESENTATION).secret();
        Description {
            id: self.0.id,
            symbol: self.0.symbol,
            images: Images::Both,
            summary: "zero-safe paired inversion: two inverses for one inversion and three multiplications, portable C"
                .into(),
            computes: "r1 = a^-1, r2 = b^-1 mod p, 0 for an input that is 0 mod p (0, p, 2p): each zero input \
                       replaced by 1, t = (a b)^-1, r1 = b t, r2 = a t, the zero inputs' outputs cleared by masks"
                .into(),
            requires: String::new(),
            edge_cases: (edge_values().len() as u64).pow(2),
            args: vec![result("r1"), result("r2"), element("a"), element("b")],
            returns: None,
            results: vec![],
        }
    }

    /// Edge cases: every ordered pair of edge values (0, p and 2p among them, against each other and the rest).
    fn generate(&self, case: u64, rng: &mut CaseRng) -> (Fe, Fe) {
        let edges = edge_values();
        let n = edges.len() as u64;
        if case < n * n {
            return (edges[(case % n) as usize], edges[(case / n) as usize]);
        }
        (random_fe(case, rng), random_fe(case, rng))
    }

    fn encode(&self, (a, b): &(Fe, Fe)) -> Vec<Arg> {
        vec![Arg::Out(4 * LIMBS), Arg::Out(4 * LIMBS), Arg::In(words_to_bytes(a)), Arg::In(words_to_bytes(b))]
    }

    fn decode(&self, args: &[Arg]) -> (Fe, Fe) {
        (limbs(buffer(&args[2])), limbs(buffer(&args[3])))
    }

    /// Two inversions a^(p-2), b^(p-2) in core's arithmetic.
    fn reference(&self, (a, b): &(Fe, Fe), _: RunReference) -> Outcome {
        let f = Reference;
        let inverse = |x: &Fe| f.encode(&f.invert(&to_reference(x))).to_vec();
        Outcome { buffers: vec![inverse(a), inverse(b)], ret: None }
    }

    fn ways(&self) -> Ways<Self> {
        Ways::Three {
            model: |_, (a, b)| {
                let (r1, r2) = model::inv2(a, b);
                outcome_of(&[r1, r2])
            },
            canon: |_, o| canonical_elements(o),
        }
    }
}

/// u-coordinates at the edges of decodeUCoordinate: 0, 1 and the other low-order points' u (RFC 7748 section 5's
/// inputs that give 0), p - 1, p and p + 1 (non-canonical), 2^255 - 1, and bit 255 set on 9 and on p - 1.
fn edge_u() -> Vec<[u8; 32]> {
    let bytes = |fe: &Fe| -> [u8; 32] { words_to_bytes(fe).try_into().expect("32 bytes") };
    let small = |v: u32| {
        let mut fe = [0; LIMBS];
        fe[0] = v;
        bytes(&fe)
    };
    let with_low = |mut v: Fe, low: u32| {
        v[0] = low;
        bytes(&v)
    };
    // A point of order 8 (u = 325606250916557431795983626356110631294008115727848805560023387167927233504).
    let order8 = hex_bytes("e0eb7a7c3b41b8ae1656e3faf19fc46ada098deb9c32b1fd866205165f49b800");
    let mut top_9 = small(9);
    top_9[31] |= 0x80;
    let mut top_minus_one = with_low(P, P[0] - 1);
    top_minus_one[31] |= 0x80;
    vec![
        small(0),
        small(1),
        small(9),
        order8,
        with_low(P, P[0] - 1),
        bytes(&P),
        with_low(P, P[0] + 1),
        with_low(P, u32::MAX),
        top_9,
        top_minus_one,
    ]
}

/// Scalars at the edges of decodeScalar25519: all zeros, all ones (both clamped to their edges), and 0x40..: bit 254
/// alone after clamping.
fn edge_k() -> Vec<[u8; 32]> {
    let mut high = [0u8; 32];
    high[31] = 0x40;
    vec![[0; 32], [0xFF; 32], high]
}

fn hex_bytes(text: &str) -> [u8; 32] {
    hex::decode(text).expect("hex").try_into().expect("32 bytes")
}

fn random_bytes(rng: &mut CaseRng) -> [u8; 32] {
    let mut b = [0u8; 32];
    rng.fill_bytes(&mut b);
    b
}

fn bytes_of(arg: &Arg) -> [u8; 32] {
    buffer(arg).try_into().expect("32 bytes")
}

/// `x25519.scalarmult`: RFC 7748's X25519(k, u) on bytes, the whole ladder.
struct Scalarmult(&'static Row);

impl Contract for Scalarmult {
    /// (k, u).
    type Input = ([u8; 32], [u8; 32]);

    fn describe(&self) -> Description {
        let bytes = Len::Fixed(32);
        Description {
            id: self.0.id,
            symbol: self.0.symbol,
            images: Images::Both,
            summary: "X25519(k, u) of RFC 7748: the whole Montgomery ladder (255 steps), radix 2^32, portable C".into(),
            computes: "out = the canonical u-coordinate of [clamp(k)] u, bit 255 of u ignored and u >= p taken mod \
                       p (RFC 7748 section 5): 255 conditional swaps and ladder steps from bit 254 down, one \
                       inversion"
                .into(),
            requires: String::new(),
            edge_cases: (edge_k().len() * edge_u().len()) as u64,
            args: vec![
                ArgSpec::output("out", Elem::U8, bytes, Bound::Any).repr("u, little-endian"),
                ArgSpec::input("k", Elem::U8, bytes, Bound::Any).repr("scalar, little-endian").secret(),
                ArgSpec::input("u", Elem::U8, bytes, Bound::Any).repr("u, little-endian"),
            ],
            returns: None,
            results: vec![],
        }
    }

    /// Edge cases: every edge scalar with every edge u; then random scalars and u.
    fn generate(&self, case: u64, rng: &mut CaseRng) -> ([u8; 32], [u8; 32]) {
        let (ks, us) = (edge_k(), edge_u());
        if case < (ks.len() * us.len()) as u64 {
            let case = case as usize;
            return (ks[case / us.len()], us[case % us.len()]);
        }
        (random_bytes(rng), random_bytes(rng))
    }

    fn encode(&self, (k, u): &([u8; 32], [u8; 32])) -> Vec<Arg> {
        vec![Arg::Out(32), Arg::In(k.to_vec()), Arg::In(u.to_vec())]
    }

    fn decode(&self, args: &[Arg]) -> ([u8; 32], [u8; 32]) {
        (bytes_of(&args[1]), bytes_of(&args[2]))
    }

    /// x25519-dalek's X25519.
    fn reference(&self, (k, u): &([u8; 32], [u8; 32]), _: RunReference) -> Outcome {
        Outcome { buffers: vec![x25519_dalek::x25519(*k, *u).to_vec()], ret: None }
    }

    fn ways(&self) -> Ways<Self> {
        Ways::Three {
            model: |_, (k, u)| Outcome { buffers: vec![model::scalarmult(k, u).to_vec()], ret: None },
            canon: |_, o| o.clone(),
        }
    }
}

/// `x25519.base` and `x25519.base.b8`: X25519(k, 9) through the signed-window table.
struct Base {
    row: &'static Row,
    /// The B8 variant: operand addresses chosen by the secret sign, on purpose.
    flawed: bool,
}

/// Scalars whose signed digits are at their edges: all 4 (octal 4 repeated: every digit -4 with a carry), all 3,
/// all 7 (every digit -1), alternating, and the clamping edges.
fn edge_base_k() -> Vec<[u8; 32]> {
    // A repeating 3-bit pattern v over 256 bits, little-endian.
    let octal = |v: u8| -> [u8; 32] {
        let mut b = [0u8; 32];
        for bit in 0..256 {
            if (v >> (bit % 3)) & 1 == 1 {
                b[bit / 8] |= 1 << (bit % 8);
            }
        }
        b
    };
    let mut all = edge_k();
    all.extend([octal(4), octal(3), octal(5), octal(2), octal(7)]);
    all
}

impl Contract for Base {
    /// k.
    type Input = [u8; 32];

    fn describe(&self) -> Description {
        let bytes = Len::Fixed(32);
        let (summary, computes) = if self.flawed {
            (
                "DELIBERATELY FLAWED (the design's B8 variant): X25519(k, 9) through the signed-window table, the \
                 entry's operand addresses chosen by the sign of the secret digit; functionally correct, it exists \
                 for the constant-time checker to catch, never for use",
                "out = X25519(k, 9) as x25519.base computes it, with y + x / y - x and 2 d x y / its negation \
                 reached through a pointer picked by the secret sign: secret-dependent addresses",
            )
        } else {
            (
                "X25519(k, 9) through a signed-window table (86 windows of 3 bits, 4 entries, 33,024 B), every entry \
                 read under masks, the sign by a masked swap, portable C",
                "out = X25519(k, 9) (RFC 7748, k clamped): k recoded into 86 signed digits in [-4, 4] of radix 8, \
                 the sum of d_i 8^i B on the twisted Edwards curve, u = (1 + y) / (1 - y) canonical",
            )
        };
        Description {
            id: self.row.id,
            symbol: self.row.symbol,
            images: Images::Both,
            summary: summary.into(),
            computes: computes.into(),
            requires: String::new(),
            edge_cases: edge_base_k().len() as u64,
            args: vec![
                ArgSpec::output("out", Elem::U8, bytes, Bound::Any).repr("u, little-endian"),
                ArgSpec::input("k", Elem::U8, bytes, Bound::Any).repr("scalar, little-endian").secret(),
            ],
            returns: None,
            results: vec![],
        }
    }

    fn generate(&self, case: u64, rng: &mut CaseRng) -> [u8; 32] {
        let edges = edge_base_k();
        edges.get(case as usize).copied().unwrap_or_else(|| random_bytes(rng))
    }

    fn encode(&self, k: &[u8; 32]) -> Vec<Arg> {
        vec![Arg::Out(32), Arg::In(k.to_vec())]
    }

    fn decode(&self, args: &[Arg]) -> [u8; 32] {
        bytes_of(&args[1])
    }

    /// The ladder on u = 9 in core's arithmetic (the table against the ladder).
    fn reference(&self, k: &[u8; 32], _: RunReference) -> Outcome {
        let ladder = pqhelium_core::x25519::x25519_by_ladder(&Reference, k, &pqhelium_core::x25519::BASE_POINT);
        Outcome { buffers: vec![ladder.to_vec()], ret: None }
    }

    fn ways(&self) -> Ways<Self> {
        Ways::Three {
            model: |_, k| Outcome { buffers: vec![model::base(k).to_vec()], ret: None },
            canon: |_, o| o.clone(),
        }
    }
}
