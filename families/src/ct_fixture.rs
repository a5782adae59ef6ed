//! Contracts of the constant-time fixtures (`kernels/arm/ct_fixture/fixtures.c`): small kernels with a known leak
//! each, beside a constant-time version, that `pqhelium ct` must tell apart. Each maps `N` secret words to `N` words.
//!
//! They are checked like any kernel: the reference states what the kernel computes (a table entry, a product or an
//! exclusive or by a bit, a quotient by q, a leading-zero count) with Rust's own operations; the model follows the
//! kernel's steps (the masked scan, the Barrett estimate and its correction, the bit-by-bit count).

use rand::RngCore;

use super::{
    ArgSpec, Bound, CaseRng, Contract, Description, Elem, Images, Kernel, Len, Outcome, RunReference, Ways, buffer,
    bytes_to_words, words_to_bytes,
};
use pqhelium_guest::backend::Arg;
use pqhelium_guest::trace::{Declassification, LeakKind};

/// Words per call (`CT_FIXTURE_N` in fixtures.h).
const N: usize = 8;
/// ML-KEM's modulus, the divisor of the KyberSlash class.
const Q: u32 = 3329;
/// Dividends of the division fixtures: below 2^24, where one Barrett correction suffices.
const DIVIDEND_MAX: u32 = (1 << 24) - 1;
const ODD_FACTOR: u32 = 0x9E37_79B1;
const EVEN_PATTERN: u32 = 0x5A5A_5A5A;
const BARRETT_M: u64 = (1 << BARRETT_SHIFT) / Q as u64;
const BARRETT_SHIFT: u32 = 26;

/// `ct_fixture_table` (fixtures.c): the first 16 words of pi's fraction.
const TABLE: [u32; 16] = [
    0x243F_6A88,
    0x85A3_08D3,
    0x1319_8A2E,
    0x0370_7344,
    0xA409_3822,
    0x299F_31D0,
    0x082E_FA98,
    0xEC4E_6C89,
    0x4528_21E6,
    0x38D0_1377,
    0xBE54_66CF,
    0x34E9_0C6C,
    0xC0AC_29B7,
    0xC97C_50DD,
    0x3F84_D5B5,
    0xB547_0917,
];

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Op {
    Lookup,
    Branch,
    DivQ,
    Clz,
    /// Rejection sampling: the first 12-bit window below q.
    Reject,
    /// Absolute value of a 32-bit two's complement word.
    Abs,
}

impl Op {
    /// What every input word satisfies.
    fn input(self) -> Bound {
        match self {
            Op::Lookup => Bound::Range { lo: 0, hi: TABLE.len() as i64 - 1 },
            Op::DivQ => Bound::Range { lo: 0, hi: i64::from(DIVIDEND_MAX) },
            Op::Branch | Op::Clz | Op::Reject | Op::Abs => Bound::Any,
        }
    }

    fn output(self) -> Bound {
        match self {
            Op::Lookup | Op::Branch | Op::Abs => Bound::Any,
            Op::DivQ => Bound::Range { lo: 0, hi: i64::from(DIVIDEND_MAX / Q) },
            Op::Clz => Bound::Range { lo: 0, hi: 32 },
            Op::Reject => Bound::Range { lo: 0, hi: i64::from(Q) },
        }
    }

    fn largest_input(self) -> u32 {
        match self {
            Op::Lookup => TABLE.len() as u32 - 1,
            Op::DivQ => DIVIDEND_MAX,
            Op::Branch | Op::Clz | Op::Reject | Op::Abs => u32::MAX,
        }
    }

    fn reference(self, x: u32) -> u32 {
        match self {
            Op::Lookup => TABLE[x as usize],
            Op::Branch if x % 2 == 1 => x.wrapping_mul(ODD_FACTOR),
            Op::Branch => x ^ EVEN_PATTERN,
            Op::DivQ => x / Q,
            Op::Clz => x.leading_zeros(),
            Op::Abs => (x as i32).unsigned_abs(),
            Op::Reject => REJECT_SHIFTS.iter().map(|&s| (x >> s) & REJECT_WINDOW).find(|&w| w < Q).unwrap_or(Q),
        }
    }
}

/// The windows the rejection fixture tries, in order: bits 0..11, 10..21, 20..31.
const REJECT_SHIFTS: [u32; 3] = [0, 10, 20];
const REJECT_WINDOW: u32 = 0xFFF;

/// Why the rejection fixture's loop exit may differ between the runs of a pair.
const REJECT_REASON: &str = "the windows tried before one is accepted, declared public as FN-DSA's rejection loop \
    counts and ML-KEM's matrix sampling are by their schemes' analyses (a fixture of the declaration itself)";

/// The rejection fixture's declarations: its loop exit, a branch or (clang) an IT block, is declared public.
const REJECT_PUBLIC: &[Declassification] = &[
    Declassification { function: "ct_fixture_reject", kind: LeakKind::ControlFlow, reason: REJECT_REASON },
    Declassification { function: "ct_fixture_reject", kind: LeakKind::Predication, reason: REJECT_REASON },
];

/// Whether the kernel is the leaky version or its constant-time twin.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Timing {
    Leaky,
    Constant,
}

struct CtFixture {
    id: &'static str,
    symbol: &'static str,
    op: Op,
    timing: Timing,
    summary: &'static str,
    declared: &'static [Declassification],
    images: Images,
}

const LOOKUP: &str = "a table lookup indexed by a secret (leaks the load address on purpose)";
const LOOKUP_MASKED: &str = "the lookup reading every entry under masks";
const BRANCH: &str = "a branch on a secret bit (leaks control flow on purpose)";
const SELECT_IT: &str = "a select on a secret bit by an IT block (leaks its condition on purpose)";
const BRANCH_MASKED: &str = "both sides computed, one kept by a mask of the bit";
const DIV_Q: &str = "a secret divided by q with UDIV (leaks a variable-latency operand on purpose)";
const DIV_Q_BARRETT: &str = "the quotient by Barrett reduction with a masked correction";
const CLZ: &str = "a loop that stops at the first set bit (leaks control flow on purpose)";
const CLZ_FIXED: &str = "a count over all 32 bits";
const SELECT_VPT: &str =
    "the map as an MVE multiply predicated on the secret bit (leaks its lane predicate on purpose)";
const ABS: &str = "branch-free absolute value that clang compiles to an IT block on the sign (M85 image)";
const ABS_OPAQUE: &str = "the absolute value with its mask hidden from the compiler";
const REJECT: &str = "a rejection loop whose exit the contract declares public (passes by its declaration)";

pub(super) fn kernels() -> Vec<Kernel> {
    use Op::*;
    use Timing::*;
    let kernel = |id, symbol, op, timing, summary| {
        Kernel::new(CtFixture { id, symbol, op, timing, summary, declared: &[], images: Images::Both })
    };
    vec![
        kernel("ct.fixture.lookup", "ct_fixture_lookup", Lookup, Leaky, LOOKUP),
        kernel("ct.fixture.lookup.masked", "ct_fixture_lookup_masked", Lookup, Constant, LOOKUP_MASKED),
        kernel("ct.fixture.branch", "ct_fixture_branch", Branch, Leaky, BRANCH),
        kernel("ct.fixture.select.it", "ct_fixture_select_it", Branch, Leaky, SELECT_IT),
        kernel("ct.fixture.branch.masked", "ct_fixture_branch_masked", Branch, Constant, BRANCH_MASKED),
        kernel("ct.fixture.div_q", "ct_fixture_div_q", DivQ, Leaky, DIV_Q),
        kernel("ct.fixture.div_q.barrett", "ct_fixture_div_q_barrett", DivQ, Constant, DIV_Q_BARRETT),
        kernel("ct.fixture.clz", "ct_fixture_clz", Clz, Leaky, CLZ),
        kernel("ct.fixture.clz.fixed", "ct_fixture_clz_fixed", Clz, Constant, CLZ_FIXED),
        kernel("ct.fixture.abs", "ct_fixture_abs", Abs, Leaky, ABS),
        kernel("ct.fixture.abs.opaque", "ct_fixture_abs_opaque", Abs, Constant, ABS_OPAQUE),
        Kernel::new(CtFixture {
            id: "ct.fixture.reject",
            symbol: "ct_fixture_reject",
            op: Reject,
            timing: Leaky,
            summary: REJECT,
            declared: REJECT_PUBLIC,
            images: Images::Both,
        }),
        Kernel::new(CtFixture {
            id: "ct.fixture.select.vpt",
            symbol: "ct_fixture_select_vpt",
            op: Branch,
            timing: Leaky,
            summary: SELECT_VPT,
            declared: &[],
            images: Images::M55Only,
        }),
    ]
}

/// The kernel's steps on one word.
fn model_word(op: Op, timing: Timing, x: u32) -> u32 {
    match (op, timing) {
        (Op::Lookup, Timing::Leaky) => TABLE[x as usize],
        (Op::Lookup, Timing::Constant) => (0..TABLE.len() as u32).fold(0, |kept, j| {
            let mask = 0u32.wrapping_sub((j ^ x).wrapping_sub(1) >> 31);
            kept | (TABLE[j as usize] & mask)
        }),
        (Op::Branch, Timing::Leaky) => {
            if x & 1 != 0 {
                x.wrapping_mul(ODD_FACTOR)
            } else {
                x ^ EVEN_PATTERN
            }
        }
        (Op::Branch, Timing::Constant) => {
            let odd = 0u32.wrapping_sub(x & 1);
            (x.wrapping_mul(ODD_FACTOR) & odd) | ((x ^ EVEN_PATTERN) & !odd)
        }
        (Op::DivQ, Timing::Leaky) => x / Q,
        (Op::DivQ, Timing::Constant) => {
            let t = ((u64::from(x) * BARRETT_M) >> BARRETT_SHIFT) as u32;
            let r = x.wrapping_sub(t.wrapping_mul(Q));
            let below_q = r.wrapping_sub(Q) >> 31;
            t + (below_q ^ 1)
        }
        (Op::Clz, Timing::Leaky) => (0..32).find(|&n| (x << n) & 0x8000_0000 != 0).unwrap_or(32),
        (Op::Abs, _) => {
            let m = ((x as i32) >> 31) as u32;
            (x ^ m).wrapping_sub(m)
        }
        (Op::Reject, _) => {
            for shift in REJECT_SHIFTS {
                let window = (x >> shift) & REJECT_WINDOW;
                if window < Q {
                    return window;
                }
            }
            Q
        }
        (Op::Clz, Timing::Constant) => {
            let (mut seen, mut n) = (0, 0);
            for b in (0..32).rev() {
                seen |= (x >> b) & 1;
                n += seen ^ 1;
            }
            n
        }
    }
}

fn outcome(words: impl Iterator<Item = u32>) -> Outcome {
    Outcome { buffers: vec![words_to_bytes(&words.collect::<Vec<_>>())], ret: None }
}

/// Edge cases: all zero, all the largest input, a ramp through the domain's ends (0, 1, max-1, max, ...), one word
/// at the largest input among zeros.
const EDGE_CASES: u64 = 4;

impl Contract for CtFixture {
    type Input = [u32; N];

    fn describe(&self) -> Description {
        let what = match self.op {
            Op::Lookup => "out[i] = ct_fixture_table[in[i]] (16 words)",
            Op::Branch => "out[i] = in[i] * 0x9E3779B1 if bit 0 of in[i] is set, else in[i] ^ 0x5A5A5A5A",
            Op::DivQ => "out[i] = in[i] / 3329",
            Op::Clz => "out[i] = leading zero bits of in[i] (32 for 0)",
            Op::Abs => "out[i] = |in[i]| (in[i] as a 32-bit two's complement integer; 2^31 stays 2^31)",
            Op::Reject => "out[i] = the first of in[i]'s 12-bit windows at bits 0, 10, 20 below 3329, else 3329",
        };
        Description {
            id: self.id,
            symbol: self.symbol,
            images: self.images,
            summary: format!("constant-time fixture: {}", self.summary),
            computes: what.into(),
            requires: String::new(),
            edge_cases: EDGE_CASES,
            args: vec![
                ArgSpec::output("out", Elem::U32, Len::Fixed(N), self.op.output()).repr("words").secret(),
                ArgSpec::input("in", Elem::U32, Len::Fixed(N), self.op.input()).repr("words").secret(),
            ],
            returns: None,
            results: vec![],
        }
    }

    fn generate(&self, case: u64, rng: &mut CaseRng) -> [u32; N] {
        let max = self.op.largest_input();
        match case {
            0 => [0; N],
            1 => [max; N],
            2 => std::array::from_fn(|i| [0, 1, max - 1, max][i % 4]),
            3 => std::array::from_fn(|i| if i == 5 { max } else { 0 }),
            // Random: uniform words within the bound (a span of 2^k words here: a mask is exact).
            _ => std::array::from_fn(|_| rng.next_u32() & max),
        }
    }

    fn encode(&self, input: &[u32; N]) -> Vec<Arg> {
        vec![Arg::Out(4 * N), Arg::In(words_to_bytes(input))]
    }

    fn decode(&self, args: &[Arg]) -> [u32; N] {
        bytes_to_words(buffer(&args[1])).try_into().expect("N words")
    }

    fn reference(&self, input: &[u32; N], _: RunReference) -> Outcome {
        outcome(input.iter().map(|&x| self.op.reference(x)))
    }

    fn declassified(&self) -> &'static [Declassification] {
        self.declared
    }

    fn ways(&self) -> Ways<Self> {
        Ways::Three {
            model: |k, input| outcome(input.iter().map(|&x| model_word(k.op, k.timing, x))),
            canon: |_, outcome| outcome.clone(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The model's steps give what the reference states on every boundary of each domain.
    #[test]
    fn models_agree_with_the_reference_on_the_boundaries() {
        for op in [Op::Lookup, Op::Branch, Op::DivQ, Op::Clz, Op::Reject, Op::Abs] {
            let max = op.largest_input();
            let multiples_of_q = (1..=max.min(DIVIDEND_MAX) / Q).step_by(97).flat_map(|k| [k * Q - 1, k * Q]);
            let inputs: Vec<u32> = [0, 1, 2, max / 2, max - 1, max].into_iter().chain(multiples_of_q).collect();
            for timing in [Timing::Leaky, Timing::Constant] {
                for &x in inputs.iter().filter(|&&x| x <= max) {
                    assert_eq!(model_word(op, timing, x), op.reference(x), "{op:?} {timing:?} {x:#x}");
                }
            }
        }
    }

    /// The Barrett estimate needs its correction: without it some quotients come out one too small.
    #[test]
    fn barrett_estimate_alone_is_short_by_one_somewhere() {
        let short =
            (0..=DIVIDEND_MAX).step_by(7).find(|&x| ((u64::from(x) * BARRETT_M) >> BARRETT_SHIFT) as u32 != x / Q);
        assert!(short.is_some());
    }
}
