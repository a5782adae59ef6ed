//! Models of the MVE Keccak kernels (`kernels/arm/keccak/keccak_x4.mve.c`), written with [`crate::mve`], one call per
//! intrinsic in the C source's order: the lane conversions [`interleave`] and [`deinterleave`] (the maps of
//! [`crate::keccak`], four lanes per step) and [`keccak_f1600x4_interleaved`], four states at once.
//!
//! Memory is modelled as the kernel's 32-bit words (`i32`, which is what VLD2/VLDRW read). The unsigned loads and
//! stores of the C source (`vld2q_u32`, `vld1q_u32`, ...) are the instructions of the signed ones, under which the
//! model calls them.
//!
//! x4 layout ([`X4_WORDS`] words): vector `w` (words `4w..4w+4`) holds word `w` of the four interleaved states of
//! [`crate::keccak`]'s layout, state `j` in lane `j` ([`x4_word`]).

use crate::keccak::{RHO_OFFSETS, ROUND_CONSTANTS_INTERLEAVED};
use crate::mve::*;

/// Words of one interleaved state.
pub const STATE_WORDS: usize = 50;
/// States per call of the x4 permutation, one per 32-bit lane.
pub const STATES: usize = 4;
/// Words of an x4 state.
pub const X4_WORDS: usize = STATES * STATE_WORDS;
const ROUNDS: usize = 24;

/// Index of word `w` of state `j` in the x4 layout.
pub const fn x4_word(w: usize, j: usize) -> usize {
    STATES * w + j
}

/// Four interleaved states into the x4 layout.
pub fn to_x4(states: &[[u32; STATE_WORDS]; STATES]) -> [u32; X4_WORDS] {
    core::array::from_fn(|i| states[i % STATES][i / STATES])
}

/// The x4 layout back to four interleaved states.
pub fn from_x4(x4: &[u32; X4_WORDS]) -> [[u32; STATE_WORDS]; STATES] {
    core::array::from_fn(|j| core::array::from_fn(|w| x4[x4_word(w, j)]))
}

/// `delta_swap`: the bits of every lane selected by `mask` swapped with those `shift` places above.
fn delta_swap(x: Q, mask: u32, shift: u32) -> Q {
    let t = vandq_u32(veorq_u32(vshrq_n_u32(x, shift), x), vdupq_n_u32(mask));
    veorq_u32(veorq_u32(x, t), vshlq_n_u32(t, shift))
}

fn unzip(x: Q) -> Q {
    let x = delta_swap(x, 0x2222_2222, 1);
    let x = delta_swap(x, 0x0C0C_0C0C, 2);
    let x = delta_swap(x, 0x00F0_00F0, 4);
    delta_swap(x, 0x0000_FF00, 8)
}

fn zip(x: Q) -> Q {
    let x = delta_swap(x, 0x0000_FF00, 8);
    let x = delta_swap(x, 0x00F0_00F0, 4);
    let x = delta_swap(x, 0x0C0C_0C0C, 2);
    delta_swap(x, 0x2222_2222, 1)
}

/// Lanes per conversion step (one vector of low or high words).
const LANES_PER_GROUP: usize = 4;
/// The 25th lane's first word: it goes through a zero-padded group.
const LAST_LANE_WORD: usize = 48;

fn interleave_group(out: &mut [i32], input: &[i32]) {
    let [low, high] = vld2q_s32(input);
    let (lo, hi) = (unzip(low), unzip(high));
    vst2q_s32(out, [vsliq_n_u32(lo, hi, 16), vsriq_n_u32(hi, lo, 16)]);
}

fn deinterleave_group(out: &mut [i32], input: &[i32]) {
    let [even, odd] = vld2q_s32(input);
    vst2q_s32(out, [zip(vsliq_n_u32(even, odd, 16)), zip(vsriq_n_u32(odd, even, 16))]);
}

/// Both conversions: six groups of four lanes, then the last lane through a zero-padded group.
fn convert(words: &[u32; STATE_WORDS], group: fn(&mut [i32], &[i32])) -> [u32; STATE_WORDS] {
    let input = words.map(|w| w as i32);
    let mut out = [0i32; STATE_WORDS];
    for w in (0..LAST_LANE_WORD).step_by(2 * LANES_PER_GROUP) {
        group(&mut out[w..], &input[w..]);
    }
    let mut tail = [0i32; 2 * LANES_PER_GROUP];
    tail[..2].copy_from_slice(&input[LAST_LANE_WORD..]);
    let padded = tail;
    group(&mut tail, &padded);
    out[LAST_LANE_WORD..].copy_from_slice(&tail[..2]);
    out.map(|w| w as u32)
}

/// `keccak_interleave_mve`: 25 standard lanes (50 words, low word first) to the interleaved state.
pub fn interleave(lanes: &[u32; STATE_WORDS]) -> [u32; STATE_WORDS] {
    convert(lanes, interleave_group)
}

/// `keccak_deinterleave_mve`: the interleaved state to 25 standard lanes.
pub fn deinterleave(words: &[u32; STATE_WORDS]) -> [u32; STATE_WORDS] {
    convert(words, deinterleave_group)
}

/// Every lane rotated left by `k` (VSHL #k, VSRI #(32 - k); no instruction for 0).
fn rotl(x: Q, k: u32) -> Q {
    if k == 0 { x } else { vsriq_n_u32(vshlq_n_u32(x, k), x, 32 - k) }
}

/// Half `h` of lane `from` after theta and rho: an odd rotation takes the other half, turned one place further for
/// the even half (as `rotl_lane` of [`crate::keccak`]).
fn theta_rho_half(input: &[i32], d: &[Q; 10], from: usize, h: usize) -> Q {
    let r = RHO_OFFSETS[from];
    let (source, k) = match (r % 2, h) {
        (0, _) => (h, r / 2),
        (_, 0) => (1, r / 2 + 1),
        _ => (0, r / 2),
    };
    let word = 2 * from + source;
    rotl(veorq_u32(vld1q_s32(&input[x4_word(word, 0)..]), d[2 * (from % 5) + source]), k)
}

/// `round_x4`: one round from `input` to `output`.
fn round_x4(output: &mut [i32], input: &[i32], round: usize) {
    let mut c = [Q::ZERO; 10];
    for x in 0..5 {
        for h in 0..2 {
            let mut parity = vld1q_s32(&input[x4_word(2 * x + h, 0)..]);
            for y in 1..5 {
                parity = veorq_u32(parity, vld1q_s32(&input[x4_word(2 * (x + 5 * y) + h, 0)..]));
            }
            c[2 * x + h] = parity;
        }
    }
    let mut d = [Q::ZERO; 10];
    for x in 0..5 {
        let (prev, next) = ((x + 4) % 5, (x + 1) % 5);
        d[2 * x] = veorq_u32(c[2 * prev], rotl(c[2 * next + 1], 1));
        d[2 * x + 1] = veorq_u32(c[2 * prev + 1], c[2 * next]);
    }
    for y in 0..5 {
        for h in 0..2 {
            // pi: B[x, y] = A[x + 3y mod 5, x] after theta and rho.
            let b: [Q; 5] = core::array::from_fn(|x| theta_rho_half(input, &d, (x + 3 * y) % 5 + 5 * x, h));
            for x in 0..5 {
                let mut lane = veorq_u32(b[x], vbicq_u32(b[(x + 2) % 5], b[(x + 1) % 5]));
                if y == 0 && x == 0 {
                    lane = veorq_u32(lane, vdupq_n_u32(ROUND_CONSTANTS_INTERLEAVED[round][h]));
                }
                vst1q_s32(&mut output[x4_word(2 * (5 * y + x) + h, 0)..], lane);
            }
        }
    }
}

/// `keccak_f1600x4_interleaved`: Keccak-f\[1600\] on each of four interleaved states in the x4 layout, in place, the
/// rounds alternating between the state and a local buffer.
pub fn keccak_f1600x4_interleaved(s: &mut [u32; X4_WORDS]) {
    let mut state = s.map(|w| w as i32);
    let mut other = [0i32; X4_WORDS];
    for round in (0..ROUNDS).step_by(2) {
        round_x4(&mut other, &state, round);
        round_x4(&mut state, &other, round + 1);
    }
    *s = state.map(|w| w as u32);
}
