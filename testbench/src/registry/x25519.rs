//! Contracts of the X25519 field arithmetic kernels (`kernels/arm/x25519/fe.c`, portable C in every image):
//! multiplication, squaring, addition, subtraction, multiplication by 121666 and inversion modulo p = 2^255 - 19.
//!
//! Representation `radix-2^32`: 8 little-endian `uint32_t` limbs, any value in [0, 2^256), standing for itself mod p.
//! Every kernel takes any such value and returns one congruent to the result, only partially reduced (it may be p or
//! more). Model: `pqhelium_sim::x25519_fe`, limb for limb. Reference: `pqhelium_core::x25519::Reference` (radix
//! 2^51), the input read as its full 256 bits (bit 255 worth 2^255 = 19 mod p). Canonicalisation: the value's residue
//! in [0, p-1], in the same 8 limbs, which is also the reference's 32-byte encoding. Field elements of a scalar
//! multiplication are secret: every argument is marked so.

use pqhelium_core::x25519::{Fe51, FieldArithmetic, Reference};
use pqhelium_sim::x25519_fe::{self as model, A24_PLUS_ONE, Fe, LIMBS};
use rand::RngCore;

use super::{
    ArgSpec, Bound, CaseRng, Contract, Description, Elem, Images, Kernel, Len, Outcome, Ways, buffer, bytes_to_words,
    words_to_bytes,
};
use crate::backend::Arg;

const REPRESENTATION: &str = "radix-2^32";

/// p = 2^255 - 19 in limbs.
const P: Fe = [0xFFFF_FFED, u32::MAX, u32::MAX, u32::MAX, u32::MAX, u32::MAX, u32::MAX, 0x7FFF_FFFF];

pub(super) fn kernels() -> Vec<Kernel> {
    use Op::*;
    let kernel = |id, symbol, op| Kernel::new(FieldOp { id, symbol, op });
    vec![
        kernel("x25519.fe.mul", "x25519_fe_mul", Mul),
        kernel("x25519.fe.sqr", "x25519_fe_sqr", Sqr),
        kernel("x25519.fe.add", "x25519_fe_add", Add),
        kernel("x25519.fe.sub", "x25519_fe_sub", Sub),
        kernel("x25519.fe.mul121666", "x25519_fe_mul121666", Mul121666),
        kernel("x25519.fe.inv", "x25519_fe_inv", Inv),
    ]
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Op {
    Mul,
    Sqr,
    Add,
    Sub,
    Mul121666,
    Inv,
}

impl Op {
    fn operands(self) -> usize {
        match self {
            Op::Mul | Op::Add | Op::Sub => 2,
            Op::Sqr | Op::Mul121666 | Op::Inv => 1,
        }
    }
}

struct FieldOp {
    id: &'static str,
    symbol: &'static str,
    op: Op,
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
        if case % 2 == 0 {
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

fn outcome(fe: &Fe) -> Outcome {
    Outcome { buffers: vec![words_to_bytes(fe)], ret: None }
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
        let (what, computes) = match self.op {
            Op::Mul => ("multiplication", "r = a b mod p"),
            Op::Sqr => ("squaring", "r = a^2 mod p"),
            Op::Add => ("addition", "r = a + b mod p"),
            Op::Sub => ("subtraction", "r = a - b mod p"),
            Op::Mul121666 => ("multiplication by (A + 2) / 4 = 121666", "r = 121666 a mod p"),
            Op::Inv => ("inversion", "r = a^(p-2) mod p (the inverse of a, 0 for 0)"),
        };
        let mut args = vec![result, element("a")];
        if self.op.operands() == 2 {
            args.push(element("b"));
        }
        let edge = edge_values().len() as u64;
        Description {
            id: self.id,
            symbol: self.symbol,
            images: Images::Both,
            summary: format!("{what} modulo 2^255 - 19, 8 x 32-bit limbs (UMAAL chains), portable C"),
            computes: format!(
                "{computes}; inputs any value in [0, 2^256), the output a value in [0, 2^256) congruent to the \
                 result, not necessarily below p"
            ),
            requires: String::new(),
            edge_cases: edge.pow(self.op.operands() as u32),
            args,
            returns: None,
            results: vec![],
        }
    }

    /// Edge cases: every edge value (every ordered pair of them for two operands), then random elements.
    fn generate(&self, case: u64, rng: &mut CaseRng) -> Vec<Fe> {
        let edges = edge_values();
        let n = edges.len() as u64;
        let operands = self.op.operands();
        if case < n.pow(operands as u32) {
            let first = edges[(case % n) as usize];
            return if operands == 1 { vec![first] } else { vec![first, edges[(case / n) as usize]] };
        }
        (0..operands).map(|_| random_fe(case, rng)).collect()
    }

    fn encode(&self, operands: &Vec<Fe>) -> Vec<Arg> {
        let mut args = vec![Arg::Out(4 * LIMBS)];
        args.extend(operands.iter().map(|fe| Arg::In(words_to_bytes(fe))));
        args
    }

    fn decode(&self, args: &[Arg]) -> Vec<Fe> {
        args[1..].iter().map(|a| bytes_to_words(buffer(a)).try_into().expect("8 limbs")).collect()
    }

    fn reference(&self, operands: &Vec<Fe>) -> Outcome {
        let f = Reference;
        let a = to_reference(&operands[0]);
        let b = || to_reference(&operands[1]);
        let r = match self.op {
            Op::Mul => f.mul(&a, &b()),
            Op::Sqr => f.sqr(&a),
            Op::Add => f.add(&a, &b()),
            Op::Sub => f.sub(&a, &b()),
            Op::Mul121666 => f.mul_small(&a, A24_PLUS_ONE),
            Op::Inv => f.invert(&a),
        };
        Outcome { buffers: vec![f.encode(&r).to_vec()], ret: None }
    }

    fn ways(&self) -> Ways<Self> {
        Ways::Three { model: Self::model, canon: |_, o| outcome(&canonical(limbs(&o.buffers[0]))) }
    }
}

fn limbs(bytes: &[u8]) -> Fe {
    bytes_to_words(bytes).try_into().expect("8 limbs")
}

impl FieldOp {
    fn model(&self, operands: &Vec<Fe>) -> Outcome {
        let a = &operands[0];
        outcome(&match self.op {
            Op::Mul => model::mul(a, &operands[1]),
            Op::Sqr => model::sqr(a),
            Op::Add => model::add(a, &operands[1]),
            Op::Sub => model::sub(a, &operands[1]),
            Op::Mul121666 => model::mul121666(a),
            Op::Inv => model::inv(a),
        })
    }
}
