//! Contracts of the ML-KEM-768 polynomial kernels around the NTT (`kernels/arm/mlkem_ntt/mlkem_poly*.c`):
//! compression with encoding (du = 10, dv = 4, the message's d = 1), 12-bit encoding, add/sub/reduce, and the k = 3
//! products with one reduction (dot, matvec).
//!
//! The MVE kernels take and give polynomials in the MVE NTT's storage order (`mve-order`), the portable baselines in
//! FIPS 203 order; the byte strings are FIPS 203's encodings in both. The model is `pqhelium_sim::mlkem_poly` (the
//! kernel's exact outputs, in its order, lazy where the kernel is); the canonicalisation un-permutes (bit by bit from
//! the definition, `mlkem_ntt::fips_of_mve`) and reduces to 0..q-1; the reference is `pqhelium_core::mlkem`'s
//! `Reference` provider (FIPS 203 sections 4.2.1, 4.2.1's ByteEncode/ByteDecode and Algorithm 11) on the inputs in
//! FIPS order. Compression's edge cases put every rounding boundary of Compress_d (and the value just below it)
//! through the kernel, as several representatives.

use pqhelium_core::mlkem::{MlkemKernels, Reference};
use pqhelium_sim::coverage::Step;
use pqhelium_sim::mlkem_poly as model;
use rand::RngCore;

use super::mlkem_ntt::{any_case, bytes, fips_of_mve, poly, poly_case};
use super::{
    ArgSpec, Bound, CaseRng, Contract, Description, Elem, Images, Kernel, Len, Modulus, Outcome, RunReference, Ways,
    buffer,
};
use pqhelium_guest::backend::Arg;

const N: usize = pqhelium_sim::mlkem_ntt::N;
const Q: i32 = pqhelium_sim::mlkem_ntt::Q as i32;
const K: usize = model::K;
type Poly = [i16; N];

/// What a kernel computes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Op {
    /// ByteEncode_d(Compress_d(p)), d = 10, 4 or 1.
    Compress(u32),
    /// Decompress_d(ByteDecode_d(bytes)).
    Decompress(u32),
    Encode12,
    Decode12,
    Add,
    Sub,
    Reduce,
    /// sum_j a_j o b_j over k = 3 pairs.
    Dot,
    /// Three dots: out_i = sum_j A_ij o s_j.
    Matvec,
}

impl Op {
    /// The id's stem and the symbol's: `compress.du10` / `compress_du10`.
    fn names(self) -> (String, String) {
        let width = |d: u32| match d {
            10 => "du10",
            4 => "dv4",
            _ => "d1",
        };
        match self {
            Op::Compress(d) => (format!("compress.{}", width(d)), format!("compress_{}", width(d))),
            Op::Decompress(d) => (format!("decompress.{}", width(d)), format!("decompress_{}", width(d))),
            Op::Encode12 => ("poly.encode12".into(), "encode12".into()),
            Op::Decode12 => ("poly.decode12".into(), "decode12".into()),
            Op::Add => ("poly.add".into(), "poly_add".into()),
            Op::Sub => ("poly.sub".into(), "poly_sub".into()),
            Op::Reduce => ("poly.reduce".into(), "poly_reduce".into()),
            Op::Dot => ("dot.k3".into(), "dot_k3".into()),
            Op::Matvec => ("matvec.k3".into(), "matvec_k3".into()),
        }
    }

    pub const ALL: [Op; 13] = [
        Op::Compress(10),
        Op::Decompress(10),
        Op::Compress(4),
        Op::Decompress(4),
        Op::Compress(1),
        Op::Decompress(1),
        Op::Encode12,
        Op::Decode12,
        Op::Add,
        Op::Sub,
        Op::Reduce,
        Op::Dot,
        Op::Matvec,
    ];
}

/// The registry id of `op` in the MVE build (`mve`) or the portable one.
pub fn kernel_id(op: Op, mve: bool) -> String {
    format!("mlkem.{}.{}", op.names().0, if mve { "mve" } else { "scalar" })
}

pub(super) fn kernels() -> Vec<Kernel> {
    let mut out = Vec::new();
    for mve in [true, false] {
        for op in Op::ALL {
            let (_, stem) = op.names();
            let id: &'static str = Box::leak(kernel_id(op, mve).into_boxed_str());
            let symbol: &'static str =
                Box::leak(format!("mlkem_{stem}_{}", if mve { "mve" } else { "scalar" }).into_boxed_str());
            out.push(Kernel::new(MlkemPoly { id, symbol, op, mve }));
        }
    }
    out
}

struct MlkemPoly {
    id: &'static str,
    symbol: &'static str,
    op: Op,
    mve: bool,
}

/// The inputs of one case: polynomials in the kernel's order, or an encoding.
#[derive(Debug, Clone)]
pub struct Input {
    polys: Vec<Poly>,
    bytes: Vec<u8>,
}

/// Edge cases: compression puts its rounding boundaries first (8 polynomials hold every boundary of d = 10, and the
/// value below it, at four representatives); the others the domain's corners.
const EDGE_CASES: u64 = 8;

const MVE_ORDER: &str = "mve-order";
const FIPS_ORDER: &str = "fips203";

/// The smallest x in 0..q whose Compress_d is `k` (mod 2^d), for k = 1..=2^d: ceil((2k - 1) q / 2^(d+1)).
fn boundary(d: u32, k: u32) -> i32 {
    let num = (2 * k as i32 - 1) * Q;
    let den = 1 << (d + 1);
    (num + den - 1) / den
}

/// Compression inputs: case c < 8 holds boundaries (c * 128 + i / 2) mod 2^d, at the boundary (even i) and one
/// below (odd i), shifted by a multiple of q that stays inside int16_t; then random: a third anywhere in int16_t,
/// a third canonical, a third boundaries with random representatives.
fn compress_case(d: u32, case: u64, rng: &mut CaseRng) -> Poly {
    let count = 1u32 << d;
    let shifts = [0, -Q, 3 * Q, -9 * Q, Q, -4 * Q, 6 * Q, -2 * Q];
    let at = |slot: u32, below: bool, shift: i32| {
        let x = boundary(d, slot % count + 1) - i32::from(below);
        (x.rem_euclid(Q) + shift) as i16
    };
    if case < EDGE_CASES {
        let shift = shifts[case as usize];
        return std::array::from_fn(|i| at(case as u32 * 128 + i as u32 / 2, i % 2 == 1, shift));
    }
    match rng.next_u32() % 3 {
        0 => any_case(case, rng),
        1 => std::array::from_fn(|_| (rng.next_u32() % Q as u32) as i16),
        _ => std::array::from_fn(|_| {
            let r = rng.next_u32();
            // x + m q with x < q and -9 <= m <= 6 stays inside int16_t.
            at(r % count, r >> 31 == 1, ((r >> 16) % 16) as i32 * Q - 9 * Q)
        }),
    }
}

/// Encodings: all zero, all one bits, alternating bit patterns, a byte ramp, then random bytes.
fn bytes_case(len: usize, case: u64, rng: &mut CaseRng) -> Vec<u8> {
    match case {
        0 => vec![0; len],
        1 => vec![0xFF; len],
        2 => vec![0x55; len],
        3 => vec![0xAA; len],
        4 => (0..len).map(|i| i as u8).collect(),
        5 => (0..len).map(|i| (255 - i % 256) as u8).collect(),
        _ => {
            let mut b = vec![0; len];
            rng.fill_bytes(&mut b);
            b
        }
    }
}

/// Canonical polynomials: all 0, all q-1, a ramp, alternating 0 / q-1, then random residues.
fn canonical_case(case: u64, rng: &mut CaseRng) -> Poly {
    let q1 = (Q - 1) as i16;
    match case {
        0 => [0; N],
        1 => [q1; N],
        2 => std::array::from_fn(|i| (i as i32 * 13 % Q) as i16),
        3 => std::array::from_fn(|i| if i % 2 == 0 { 0 } else { q1 }),
        _ => std::array::from_fn(|_| (rng.next_u32() % Q as u32) as i16),
    }
}

fn canonical(p: &Poly) -> Poly {
    p.map(|x| i32::from(x).rem_euclid(Q) as i16)
}

fn polys_of(bytes: &[u8]) -> Vec<Poly> {
    bytes.chunks_exact(2 * N).map(poly).collect()
}

fn bytes_of(polys: &[Poly]) -> Vec<u8> {
    polys.iter().flat_map(bytes).collect()
}

impl MlkemPoly {
    fn order(&self) -> &'static str {
        if self.mve { MVE_ORDER } else { FIPS_ORDER }
    }

    /// A polynomial of the kernel in FIPS order.
    fn fips(&self, p: &Poly) -> Poly {
        if self.mve { fips_of_mve(p) } else { *p }
    }

    /// Length in bytes of the encoding the kernel reads or writes.
    fn encoding_len(&self) -> usize {
        match self.op {
            Op::Compress(d) | Op::Decompress(d) => 32 * d as usize,
            _ => 384,
        }
    }
}

impl Contract for MlkemPoly {
    type Input = Input;

    fn describe(&self) -> Description {
        let order = self.order();
        let poly = |n: usize| Len::Fixed(N * n);
        let enc = Len::Fixed(self.encoding_len());
        // Every polynomial holds plain residues mod q (the encodings are bytes).
        let residues = Modulus::plain(i64::from(Q));
        let poly_in = |name, bound| ArgSpec::input(name, Elem::I16, poly(1), bound).repr(order).modulus(residues);
        let poly_out = |name, bound| ArgSpec::output(name, Elem::I16, poly(1), bound).repr(order).modulus(residues);
        let canonical = Bound::Canonical { q: i64::from(Q) };
        let sum_max = Bound::magnitude(model::ADD_A_MAX + model::ADD_B_MAX);
        let (summary, computes, args): (String, String, Vec<ArgSpec>) = match self.op {
            Op::Compress(d) => (
                format!("ML-KEM Compress_{d} with ByteEncode_{d}"),
                format!("out = ByteEncode_{d}(Compress_{d}(p mod q)) (FIPS 203 4.2.1, Algorithm 5)"),
                vec![
                    // The ciphertext's u and v are public; the message (d = 1) is secret.
                    if d == 1 {
                        ArgSpec::output("out", Elem::U8, enc, Bound::Any).secret()
                    } else {
                        ArgSpec::output("out", Elem::U8, enc, Bound::Any)
                    }
                    .repr(FIPS_ORDER),
                    poly_in("p", Bound::Any).secret(),
                ],
            ),
            Op::Decompress(d) => (
                format!("ML-KEM ByteDecode_{d} with Decompress_{d}"),
                format!("p = Decompress_{d}(ByteDecode_{d}(in)) (FIPS 203 4.2.1, Algorithm 6)"),
                {
                    let (out, input) =
                        (poly_out("p", canonical), ArgSpec::input("in", Elem::U8, enc, Bound::Any).repr(FIPS_ORDER));
                    // A ciphertext is public; the message (d = 1) is secret.
                    if d == 1 { vec![out.secret(), input.secret()] } else { vec![out, input] }
                },
            ),
            Op::Encode12 => (
                "ML-KEM ByteEncode_12 of a reduced polynomial".into(),
                "out = ByteEncode_12(p) (FIPS 203 Algorithm 5)".into(),
                vec![
                    ArgSpec::output("out", Elem::U8, enc, Bound::Any).repr(FIPS_ORDER).secret(),
                    poly_in("p", canonical).secret(),
                ],
            ),
            Op::Decode12 => (
                "ML-KEM ByteDecode_12 with its reduction mod q".into(),
                "p = ByteDecode_12(in) mod q (FIPS 203 Algorithm 6)".into(),
                vec![
                    poly_out("p", canonical).secret(),
                    ArgSpec::input("in", Elem::U8, enc, Bound::Any).repr(FIPS_ORDER).secret(),
                ],
            ),
            Op::Add | Op::Sub => {
                let sign = if self.op == Op::Add { "+" } else { "-" };
                (
                    format!("ML-KEM polynomial a {sign} b, no reduction"),
                    format!("out = a {sign} b exactly (so out = a {sign} b mod q)"),
                    vec![
                        poly_out("out", sum_max).secret(),
                        poly_in("a", Bound::magnitude(model::ADD_A_MAX)).secret(),
                        poly_in("b", Bound::magnitude(model::ADD_B_MAX)).secret(),
                    ],
                )
            }
            Op::Reduce => (
                "ML-KEM polynomial reduction to canonical residues (Barrett, round(2^26/q))".into(),
                "p' = p mod q in 0..q-1".into(),
                vec![
                    ArgSpec::in_out("p", Elem::I16, poly(1), Bound::Any, canonical)
                        .repr(order)
                        .modulus(residues)
                        .secret(),
                ],
            ),
            Op::Dot | Op::Matvec => {
                let rows = if self.op == Op::Dot { 1 } else { K };
                let out = ArgSpec::output("out", Elem::I16, poly(rows), Bound::magnitude(model::DOT_OUT_MAX));
                let a = ArgSpec::input("a", Elem::I16, poly(rows * K), Bound::magnitude(model::DOT_A_MAX));
                let b = ArgSpec::input("b", Elem::I16, poly(K), Bound::Any);
                let (summary, computes) = if rows == 1 {
                    ("ML-KEM k = 3 inner product in T_q, one reduction", "out = sum_j a_j o b_j (Algorithm 11)")
                } else {
                    ("ML-KEM k = 3 matrix-vector product in T_q, one reduction per row", "out_i = sum_j a_ij o b_j")
                };
                // The matrix A-hat is public; t-hat and s-hat (dot's a) are public or secret, so secret.
                let a = if rows == 1 { a.secret() } else { a };
                (
                    summary.into(),
                    format!("{computes}, the 32-bit products of the 3 pairs accumulated before one Barrett reduction"),
                    [out.secret(), a, b.secret()].map(|x| x.repr(order).modulus(residues)).to_vec(),
                )
            }
        };
        let build = if self.mve { ", MVE, MVE order" } else { ", portable C baseline, FIPS order" };
        Description {
            id: self.id,
            symbol: self.symbol,
            images: if self.mve { Images::M55Only } else { Images::Both },
            summary: format!("{summary}{build}"),
            computes,
            requires: String::new(),
            edge_cases: EDGE_CASES + self.corners() as u64,
            args,
            returns: None,
            results: vec![],
        }
    }

    fn generate(&self, case: u64, rng: &mut CaseRng) -> Input {
        let store = |p: Poly| if self.mve { pqhelium_sim::mlkem_poly::stored_mve(&p) } else { p };
        let none = Vec::new();
        match self.op {
            Op::Compress(d) => Input { polys: vec![store(compress_case(d, case, rng))], bytes: none },
            Op::Decompress(_) | Op::Decode12 => {
                Input { polys: vec![], bytes: bytes_case(self.encoding_len(), case, rng) }
            }
            Op::Encode12 => Input { polys: vec![store(canonical_case(case, rng))], bytes: none },
            Op::Add | Op::Sub => Input {
                polys: vec![
                    poly_case(case, rng, model::ADD_A_MAX as i16),
                    poly_case(edge_or_random(case, 3), rng, model::ADD_B_MAX as i16),
                ],
                bytes: none,
            },
            Op::Reduce => Input { polys: vec![any_case(case, rng)], bytes: none },
            Op::Dot | Op::Matvec
                if let Some(c) = case.checked_sub(EDGE_CASES).filter(|&c| c < self.corners() as u64) =>
            {
                let rows = if self.op == Op::Dot { 1 } else { K };
                let [a, b] = model::steps::DOT_CORNERS[c as usize].map(store);
                let mut polys = vec![a; rows * K];
                polys.extend([b; K]);
                Input { polys, bytes: none }
            }
            Op::Dot | Op::Matvec => {
                let rows = if self.op == Op::Dot { 1 } else { K };
                let a = (0..rows * K).map(|j| poly_case(edge_or_random(case, j), rng, model::DOT_A_MAX as i16));
                let mut polys: Vec<Poly> = a.collect();
                polys.extend((0..K).map(|j| any_case(edge_or_random(case, j + 1), rng)));
                Input { polys, bytes: none }
            }
        }
    }

    fn encode(&self, input: &Input) -> Vec<Arg> {
        let one = |p: &Poly| Arg::In(bytes(p));
        match self.op {
            Op::Compress(_) | Op::Encode12 => vec![Arg::Out(self.encoding_len()), one(&input.polys[0])],
            Op::Decompress(_) | Op::Decode12 => vec![Arg::Out(2 * N), Arg::In(input.bytes.clone())],
            Op::Add | Op::Sub => vec![Arg::Out(2 * N), one(&input.polys[0]), one(&input.polys[1])],
            Op::Reduce => vec![Arg::InOut(bytes(&input.polys[0]))],
            Op::Dot | Op::Matvec => {
                let rows = if self.op == Op::Dot { 1 } else { K };
                let (a, b) = input.polys.split_at(rows * K);
                vec![Arg::Out(2 * N * rows), Arg::In(bytes_of(a)), Arg::In(bytes_of(b))]
            }
        }
    }

    fn decode(&self, args: &[Arg]) -> Input {
        let inputs: Vec<&[u8]> = args.iter().filter(|a| !matches!(a, Arg::Out(_))).map(buffer).collect();
        match self.op {
            Op::Decompress(_) | Op::Decode12 => Input { polys: vec![], bytes: inputs[0].to_vec() },
            _ => Input { polys: inputs.iter().flat_map(|b| polys_of(b)).collect(), bytes: vec![] },
        }
    }

    fn reference(&self, input: &Input, _: RunReference) -> Outcome {
        let fips: Vec<Poly> = input.polys.iter().map(|p| self.fips(p)).collect();
        let r = Reference;
        let mut p = [0; N];
        let buffer = match self.op {
            Op::Compress(d) => {
                let mut out = vec![0; 32 * d as usize];
                r.compress(d, &mut out, &fips[0]);
                out
            }
            Op::Decompress(d) => {
                r.decompress(d, &mut p, &input.bytes);
                bytes(&p)
            }
            Op::Encode12 => {
                let mut out = vec![0; 384];
                r.encode12(&mut out, &fips[0]);
                out
            }
            Op::Decode12 => {
                r.decode12(&mut p, &input.bytes);
                bytes(&p)
            }
            Op::Add => {
                r.add(&mut p, &fips[0], &fips[1]);
                bytes(&p)
            }
            Op::Sub => {
                r.sub(&mut p, &fips[0], &fips[1]);
                bytes(&p)
            }
            Op::Reduce => {
                p = fips[0];
                r.reduce(&mut p);
                bytes(&p)
            }
            Op::Dot => {
                r.dot(&mut p, &fips[..K], &fips[K..]);
                bytes(&p)
            }
            Op::Matvec => {
                let mut out = vec![[0; N]; K];
                r.matvec(&mut out, &fips[..K * K], &fips[K * K..]);
                bytes_of(&out)
            }
        };
        Outcome { buffers: vec![buffer], ret: None }
    }

    fn ways(&self) -> Ways<Self> {
        Ways::Three { model: |c, input| c.model(input), canon: Self::canon }
    }

    fn coverage_steps(&self) -> Vec<Step> {
        match self.op {
            Op::Compress(d) => model::steps::compress(d),
            Op::Reduce => model::steps::reduce(),
            Op::Decompress(d) => model::steps::decompress(d),
            Op::Decode12 => model::steps::decode12(),
            Op::Dot | Op::Matvec => model::steps::dot(self.mve),
            // No reduction: encoding packs canonical values, the sum and difference fit an int16_t by contract.
            Op::Encode12 | Op::Add | Op::Sub => vec![],
        }
    }
}

impl MlkemPoly {
    /// Corner cases after the edge cases: the products' sums at their ends ([`model::steps::DOT_CORNERS`]).
    fn corners(&self) -> usize {
        match self.op {
            Op::Dot | Op::Matvec => model::steps::DOT_CORNER_CASES,
            _ => 0,
        }
    }
}

/// Edge cases pair corner polynomials (polynomial j of case c is corner c + j); random cases stay random.
fn edge_or_random(case: u64, j: usize) -> u64 {
    if case < EDGE_CASES { (case + j as u64) % EDGE_CASES } else { case }
}

impl MlkemPoly {
    fn model(&self, input: &Input) -> Outcome {
        let (p, mve) = (&input.polys, self.mve);
        let buffer = match self.op {
            Op::Compress(d) => model::compress_poly(d, &p[0], mve),
            Op::Decompress(d) => bytes(&model::decompress_poly(d, &input.bytes, mve)),
            Op::Encode12 => model::encode12(&p[0], mve),
            Op::Decode12 => bytes(&model::decode12(&input.bytes, mve)),
            Op::Add => bytes(&model::add(&p[0], &p[1])),
            Op::Sub => bytes(&model::sub(&p[0], &p[1])),
            Op::Reduce => bytes(&model::reduce(&p[0])),
            Op::Dot if mve => bytes(&model::dot_k3_mve(&p[..K], &p[K..])),
            Op::Dot => bytes(&model::dot_k3_scalar(&p[..K], &p[K..])),
            Op::Matvec => bytes_of(&model::matvec_k3(&p[..K * K], &p[K * K..], mve)),
        };
        Outcome { buffers: vec![buffer], ret: None }
    }

    /// The outcome in the reference's layout: encodings as they are; polynomials in FIPS order, reduced.
    fn canon(&self, o: &Outcome) -> Outcome {
        let buffer = match self.op {
            Op::Compress(_) | Op::Encode12 => o.buffers[0].clone(),
            _ => bytes_of(&polys_of(&o.buffers[0]).iter().map(|p| canonical(&self.fips(p))).collect::<Vec<_>>()),
        };
        Outcome { buffers: vec![buffer], ret: None }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn boundaries_are_where_compression_steps() {
        for d in model::WIDTHS {
            for k in 1..=1u32 << d {
                let x = boundary(d, k);
                assert_eq!(u32::from(model::compress(d, x as i16)), k % (1 << d), "d {d} k {k}");
                assert_eq!(u32::from(model::compress(d, (x - 1) as i16)), k - 1, "d {d} k {k}");
            }
        }
    }
}
