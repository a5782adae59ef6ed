//! The MVE model against plain Rust integer arithmetic and hand-computed values. (The model against the real
//! instructions is `cli/tests/mve_validation.rs`.)

use pqhelium_sim::mve::*;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

fn rq(rng: &mut ChaCha8Rng) -> Q {
    let mut b = [0u8; 16];
    rng.fill(&mut b);
    Q(b)
}

#[test]
fn lane_views_are_little_endian_and_round_trip() {
    let q = Q::from_u32([0x0302_0100, 0x0706_0504, 0x0b0a_0908, 0x0f0e_0d0c]);
    assert_eq!(q.u8(), core::array::from_fn(|i| i as u8));
    assert_eq!(q.u16()[1], 0x0302);
    assert_eq!(Q::from_i16(q.i16()), q);
    assert_eq!(Q::from_i64(q.i64()), q);
    assert_eq!(format!("{q:?}"), "Q(0x0f0e0d0c_0b0a0908_07060504_03020100)");
}

#[test]
fn lanewise_arithmetic_matches_rust_integers() {
    let mut rng = ChaCha8Rng::seed_from_u64(0x4D56_4501);
    for _ in 0..10_000 {
        let (a, b) = (rq(&mut rng), rq(&mut rng));
        let lanes = |f: fn(i16, i16) -> i16| Q::from_i16(core::array::from_fn(|i| f(a.i16()[i], b.i16()[i])));
        assert_eq!(vaddq_s16(a, b), lanes(i16::wrapping_add));
        assert_eq!(vsubq_s16(a, b), lanes(i16::wrapping_sub));
        assert_eq!(vqaddq_s16(a, b), lanes(i16::saturating_add));
        assert_eq!(vqsubq_s16(a, b), lanes(i16::saturating_sub));
        assert_eq!(vmulq_s16(a, b), lanes(i16::wrapping_mul));
        assert_eq!(vmulhq_s16(a, b), lanes(|x, y| ((x as i32 * y as i32) >> 16) as i16));
        assert_eq!(vqaddq_u32(a, b), Q::from_u32(core::array::from_fn(|i| a.u32()[i].saturating_add(b.u32()[i]))));
        assert_eq!(
            vmulhq_u32(a, b),
            Q::from_u32(core::array::from_fn(|i| ((a.u32()[i] as u64 * b.u32()[i] as u64) >> 32) as u32))
        );
        assert_eq!(
            vqdmulhq_s32(a, b),
            Q::from_i32(core::array::from_fn(|i| {
                ((2 * a.i32()[i] as i64 * b.i32()[i] as i64) >> 32).clamp(i32::MIN as i64, i32::MAX as i64) as i32
            }))
        );
        assert_eq!(veorq_u8(a, b), Q::from_u8(core::array::from_fn(|i| a.u8()[i] ^ b.u8()[i])));
        assert_eq!(vbicq_s32(a, b), vandq_s32(a, vmvnq_s32(b)));
        assert_eq!(vshlq_n_u16(a, 3), Q::from_u16(a.u16().map(|x| x << 3)));
        assert_eq!(vshrq_n_s32(a, 32), Q::from_i32(a.i32().map(|x| x >> 31)));
        assert_eq!(vshrq_n_u8(a, 8), Q::ZERO);
    }
}

#[test]
fn doubling_multiplies_saturate_and_round() {
    let min = vdupq_n_s16(i16::MIN);
    assert_eq!(vqdmulhq_s16(min, min), vdupq_n_s16(i16::MAX));
    assert_eq!(vqdmulhq_n_s16(vdupq_n_s16(16384), 16384), vdupq_n_s16(8192));
    assert_eq!(vqrdmulhq_n_s16(vdupq_n_s16(1), 16384), vdupq_n_s16(1));
    assert_eq!(vqrdmulhq_n_s16(vdupq_n_s16(1), 16383), vdupq_n_s16(0));
    assert_eq!(vqrdmulhq_s32(vdupq_n_s32(i32::MIN), vdupq_n_s32(i32::MIN)), vdupq_n_s32(i32::MAX));
    // add + (2 * m1 * m2) >> 16, saturated.
    assert_eq!(vqdmlahq_n_s16(vdupq_n_s16(i16::MAX), vdupq_n_s16(16384), 16384), vdupq_n_s16(i16::MAX));
    assert_eq!(vqdmlahq_n_s16(vdupq_n_s16(5), vdupq_n_s16(-16384), 16384), vdupq_n_s16(5 - 8192));
    assert_eq!(vmlasq_n_u16(vdupq_n_u16(3), vdupq_n_u16(4), 5), vdupq_n_u16(17));
    assert_eq!(vmlaq_n_u16(vdupq_n_u16(3), vdupq_n_u16(4), 5), vdupq_n_u16(23));
}

#[test]
fn shifts_and_inserts() {
    let a = Q::from_i16([1, -1, i16::MIN, i16::MAX, 4, -4, 0x1234, -0x1234]);
    let counts = Q::from_i16([1, -1, -16, 1, -2, -3, 0x0104, 100]);
    // The count is the signed bottom byte: 0x0104 shifts by 4; 100 shifts everything out.
    assert_eq!(vshlq_s16(a, counts).i16(), [2, -1, -1, -2, 1, -1, 0x2340, 0]);
    assert_eq!(vrshrq_n_s16(vdupq_n_s16(3), 1), vdupq_n_s16(2));
    assert_eq!(vrshrq_n_s16(vdupq_n_s16(-3), 1), vdupq_n_s16(-1));
    assert_eq!(vqshlq_n_s16(vdupq_n_s16(0x4000), 1), vdupq_n_s16(i16::MAX));
    assert_eq!(vqshlq_n_u8(vdupq_n_u8(0x81), 1), vdupq_n_u8(0xFF));
    assert_eq!(vsliq_n_u16(vdupq_n_u16(0xFFFF), vdupq_n_u16(0), 4), vdupq_n_u16(0x000F));
    assert_eq!(vsriq_n_u16(vdupq_n_u16(0xFFFF), vdupq_n_u16(0), 4), vdupq_n_u16(0xF000));
    assert_eq!(vsriq_n_u16(vdupq_n_u16(0x1234), vdupq_n_u16(0xFFFF), 16), vdupq_n_u16(0x1234));
}

#[test]
fn widening_narrowing_and_reversing() {
    let a = Q::from_i8(core::array::from_fn(|i| i as i8 - 8));
    assert_eq!(vmovlbq_s8(a).i16(), core::array::from_fn(|i| 2 * i as i16 - 8));
    assert_eq!(vmovltq_s8(a).i16(), core::array::from_fn(|i| 2 * i as i16 - 7));
    assert_eq!(vmovltq_u8(a).u16(), core::array::from_fn(|i| (2 * i as i16 - 7) as u8 as u16));
    // Narrowing the widened halves back rebuilds the vector.
    assert_eq!(vmovntq_s16(vmovnbq_s16(Q::ZERO, vmovlbq_s8(a)), vmovltq_s8(a)), a);
    let (x, y) = (Q::from_i32([-1, 7, i32::MIN, 3]), Q::from_i32([-1, 9, i32::MIN, -3]));
    assert_eq!(vmullbq_int_s32(x, y).i64(), [1, i32::MIN as i64 * i32::MIN as i64]);
    assert_eq!(vmulltq_int_s32(x, y).i64(), [63, -9]);
    assert_eq!(vmullbq_int_u32(x, y).u64(), [0xFFFF_FFFFu64 * 0xFFFF_FFFF, 1 << 62]);
    let b = Q::from_u8(core::array::from_fn(|i| i as u8));
    assert_eq!(vrev32q_u8(b).u8()[..4], [3, 2, 1, 0]);
    assert_eq!(vrev64q_u16(b).u16()[..4], [0x0706, 0x0504, 0x0302, 0x0100]);
    assert_eq!(vrev64q_u32(b).u32()[..2], [0x0706_0504, 0x0302_0100]);
}

#[test]
fn carry_chains_are_128_bit_arithmetic() {
    let mut rng = ChaCha8Rng::seed_from_u64(0x4D56_4502);
    let as128 = |q: Q| u128::from_le_bytes(q.0);
    for _ in 0..10_000 {
        let (a, b, c) = (rq(&mut rng), rq(&mut rng), rng.gen_range(0..2u32));
        let (sum, carry) = vadcq_u32(a, b, c);
        let (wide, over1) = as128(a).overflowing_add(as128(b));
        let (wide, over2) = wide.overflowing_add(c as u128);
        assert_eq!((as128(sum), carry), (wide, (over1 || over2) as u32));
        let (diff, no_borrow) = vsbciq_s32(a, b);
        assert_eq!((as128(diff), no_borrow), (as128(a).wrapping_sub(as128(b)), (as128(a) >= as128(b)) as u32));
    }
    let ones = vdupq_n_u32(u32::MAX);
    assert_eq!(vadciq_u32(ones, Q::ZERO), (ones, 0));
    assert_eq!(vadcq_u32(ones, Q::ZERO, 1), (Q::ZERO, 1));
}

#[test]
fn predicates_select_bytes() {
    let a = Q::from_i16([1, 2, 3, 4, 5, 6, 7, 8]);
    let b = vdupq_n_s16(4);
    let p = vcmpgtq_s16(a, b);
    assert_eq!(p, 0xFF00);
    assert_eq!(vcmpleq_s16(a, b), !p);
    assert_eq!(vcmpcsq_u32(vdupq_n_u32(u32::MAX), Q::ZERO), 0xFFFF);
    assert_eq!(vcmpgtq_s32(vdupq_n_s32(-1), Q::ZERO), 0);
    assert_eq!(vpselq_s16(a, b, p).i16(), [4, 4, 4, 4, 5, 6, 7, 8]);
    // Byte granularity: a predicate that covers half a lane mixes the bytes.
    assert_eq!(vaddq_m_s16(Q::ZERO, vdupq_n_s16(0x0101), vdupq_n_s16(0x0101), 0x0001).i16()[0], 0x0002);
    assert_eq!(vsubq_m_u8(b, b, b, 0).u8(), b.u8());
}

#[test]
fn interleaving_loads_and_stores_are_inverse() {
    let mem: [i16; 32] = core::array::from_fn(|i| i as i16);
    let [v0, v1] = vld2q_s16(&mem);
    assert_eq!(v0.i16(), [0, 2, 4, 6, 8, 10, 12, 14]);
    assert_eq!(v1.i16(), [1, 3, 5, 7, 9, 11, 13, 15]);
    let v = vld4q_s16(&mem);
    assert_eq!(v[3].i16(), [3, 7, 11, 15, 19, 23, 27, 31]);
    let mut back = [0i16; 32];
    vst4q_s16(&mut back, v);
    assert_eq!(back, mem);
    let bytes: [i8; 64] = core::array::from_fn(|i| i as i8);
    let mut back8 = [0i8; 32];
    vst2q_s8(&mut back8, vld2q_s8(&bytes));
    assert_eq!(back8[..], bytes[..32]);
}

#[test]
fn gathers_and_scatters_index_elements() {
    let table: [i32; 12] = core::array::from_fn(|i| 100 + i as i32);
    assert_eq!(vldrwq_gather_shifted_offset_s32(&table, Q::from_u32([11, 0, 5, 5])).i32(), [111, 100, 105, 105]);
    let mut mem = [0i16; 32];
    vstrhq_scatter_shifted_offset_s16(
        &mut mem,
        Q::from_u16([3, 3, 0, 31, 1, 2, 4, 5]),
        Q::from_i16([1, 2, 3, 4, 5, 6, 7, 8]),
    );
    assert_eq!(&mem[..6], &[3, 5, 6, 2, 7, 8]);
    assert_eq!(mem[31], 4);
}

#[test]
fn scalar_accumulates_halving_and_saturating_forms() {
    // m1 * m2 * 2 + (add << 16), high half: 16384 * 16384 * 2 >> 16 = 8192, plus 5.
    assert_eq!(vqdmlashq_n_s16(vdupq_n_s16(16384), vdupq_n_s16(16384), 5), vdupq_n_s16(8197));
    assert_eq!(vqrdmlashq_n_s16(vdupq_n_s16(i16::MIN), vdupq_n_s16(i16::MIN), i16::MAX), vdupq_n_s16(i16::MAX));
    assert_eq!(vmulq_n_u16(vdupq_n_u16(300), 300), vdupq_n_u16((300u32 * 300) as u16));
    assert_eq!(vsubq_n_s8(vdupq_n_s8(i8::MIN), 1), vdupq_n_s8(i8::MAX));
    assert_eq!(vhaddq_u8(vdupq_n_u8(255), vdupq_n_u8(255)), vdupq_n_u8(255));
    assert_eq!(vrhaddq_s16(vdupq_n_s16(-3), vdupq_n_s16(0)), vdupq_n_s16(-1));
    assert_eq!(vhsubq_s32(vdupq_n_s32(i32::MIN), vdupq_n_s32(i32::MAX)), vdupq_n_s32(i32::MIN));
    assert_eq!(vminq_u32(vdupq_n_u32(u32::MAX), vdupq_n_u32(1)), vdupq_n_u32(1));
    assert_eq!(vmaxq_s8(vdupq_n_s8(-1), vdupq_n_s8(i8::MIN)), vdupq_n_s8(-1));
    assert_eq!(vabsq_s16(vdupq_n_s16(i16::MIN)), vdupq_n_s16(i16::MIN));
    assert_eq!(vqabsq_s16(vdupq_n_s16(i16::MIN)), vdupq_n_s16(i16::MAX));
    assert_eq!(vnegq_s32(vdupq_n_s32(i32::MIN)), vdupq_n_s32(i32::MIN));
    assert_eq!(vqnegq_s8(vdupq_n_s8(i8::MIN)), vdupq_n_s8(i8::MAX));
    let min = vdupq_n_s32(i32::MIN);
    assert_eq!(vqdmullbq_s32(min, min), Q::from_i64([i64::MAX; 2]));
    assert_eq!(vqdmulltq_s16(vdupq_n_s16(-2), vdupq_n_s16(3)), vdupq_n_s32(-12));
    assert_eq!(vqmovnbq_s16(vdupq_n_s8(7), vdupq_n_s16(-300)).i8()[..2], [i8::MIN, 7]);
    assert_eq!(vqmovntq_u32(Q::ZERO, vdupq_n_u32(70_000)).u16()[..2], [0, u16::MAX]);
}

#[test]
fn reductions_and_tail_predicates() {
    assert_eq!(vaddvq_s8(vdupq_n_s8(-1)), -16);
    assert_eq!(vaddvq_u32(vdupq_n_u32(u32::MAX)), u32::MAX - 3);
    // 8 * 2^30 wraps to 0 in the 32-bit accumulator.
    assert_eq!(vmladavq_s16(vdupq_n_s16(i16::MIN), vdupq_n_s16(i16::MIN)), 0);
    assert_eq!(vmladavq_s32(Q::from_i32([-1, 0, 0, 0]), vdupq_n_s32(i32::MIN)), i32::MIN);
    assert_eq!(vmladavq_u8(vdupq_n_u8(2), vdupq_n_u8(3)), 96);
    assert_eq!(vctp8q(3), 0x0007);
    assert_eq!(vctp16q(3), 0x003F);
    assert_eq!(vctp32q(0), 0);
    assert_eq!(vctp32q(u32::MAX), 0xFFFF);
    assert_eq!(
        vqdmulhq_m_s16(Q::ZERO, vdupq_n_s16(i16::MIN), vdupq_n_s16(i16::MIN), vctp16q(1)).i16()[..2],
        [i16::MAX, 0]
    );
}

/// The forms with host-SIMD implementations (`mve.rs`, "the forms the NTT and base-multiplication kernels run hot"),
/// lane by lane against plain Rust integer definitions, on random vectors with the extreme lanes mixed in.
#[test]
fn fast_forms_match_their_lane_definitions() {
    let mut rng = ChaCha8Rng::seed_from_u64(0x4D56_4503);
    let extremes = [i16::MIN, i16::MIN + 1, -1, 0, 1, i16::MAX - 1, i16::MAX];
    let vector = |rng: &mut ChaCha8Rng| {
        Q::from_i16(core::array::from_fn(|_| {
            if rng.gen_bool(0.25) { extremes[rng.gen_range(0..extremes.len())] } else { rng.r#gen() }
        }))
    };
    for _ in 0..20_000 {
        let (a, b) = (vector(&mut rng), vector(&mut rng));
        let (x, y) = (a.i16().map(i32::from), b.i16().map(i32::from));
        let lanes16 = |f: &dyn Fn(i32, i32) -> i32| Q::from_i16(core::array::from_fn(|i| f(x[i], y[i]) as i16));
        let sat = |v: i32| v.clamp(-32768, 32767);
        assert_eq!(vmlaq_n_s16(a, b, y[3] as i16), lanes16(&|p, q| p + q * y[3]));
        // 2 x y reaches 2^31: in i64.
        let doubled = |p: i32, q: i32, round: i64| sat(((2 * i64::from(p) * i64::from(q) + round) >> 16) as i32);
        assert_eq!(vqdmulhq_s16(a, b), lanes16(&|p, q| doubled(p, q, 0)));
        assert_eq!(vqrdmulhq_s16(a, b), lanes16(&|p, q| doubled(p, q, 1 << 15)));
        for s in [b.i16()[0], i16::MIN] {
            let s32 = i32::from(s);
            assert_eq!(vqdmulhq_n_s16(a, s), lanes16(&|p, _| doubled(p, s32, 0)), "scalar {s}");
            assert_eq!(vqrdmulhq_n_s16(a, s), lanes16(&|p, _| doubled(p, s32, 1 << 15)), "scalar {s}");
        }
        assert_eq!(vhsubq_s16(a, b), lanes16(&|p, q| (p - q) >> 1));
        assert_eq!(vandq_s16(a, b), lanes16(&|p, q| p & q));
        for imm in [1, 7, 15, 16] {
            assert_eq!(vshrq_n_s16(a, imm), lanes16(&|p, _| p >> imm), "imm {imm}");
        }
        for imm in [1, 2, 13, 15, 16] {
            assert_eq!(vrshrq_n_s16(a, imm), lanes16(&|p, _| (p + (1 << (imm - 1))) >> imm), "imm {imm}");
        }
        let products = |k: usize| Q::from_i32(core::array::from_fn(|i| x[2 * i + k] * y[2 * i + k]));
        assert_eq!(vmullbq_int_s16(a, b), products(0));
        assert_eq!(vmulltq_int_s16(a, b), products(1));
        let narrowed = |k: usize| {
            let mut lanes = a.i16();
            for (i, w) in b.i32().into_iter().enumerate() {
                lanes[2 * i + k] = w as i16;
            }
            Q::from_i16(lanes)
        };
        assert_eq!(vmovnbq_s32(a, b), narrowed(0));
        assert_eq!(vmovntq_s32(a, b), narrowed(1));
        assert_eq!(vrev32q_s16(a), Q::from_i16(core::array::from_fn(|i| a.i16()[i ^ 1])));
        let (u, w) = (a.i32().map(i64::from), b.i32().map(i64::from));
        let lanes32 = |f: &dyn Fn(i64, i64) -> i64| Q::from_i32(core::array::from_fn(|i| f(u[i], w[i]) as i32));
        assert_eq!(vaddq_s32(a, b), lanes32(&|p, q| p + q));
        assert_eq!(vmlaq_n_s32(a, b, w[1] as i32), lanes32(&|p, q| p + q * w[1]));
        // 2 x y reaches 2^63: in i128.
        let qrdmulh32 = |p: i64, q: i64| {
            ((2 * i128::from(p) * i128::from(q) + (1 << 31)) >> 32).clamp(i32::MIN.into(), i32::MAX.into()) as i64
        };
        assert_eq!(vqrdmulhq_n_s32(a, w[2] as i32), lanes32(&|p, _| qrdmulh32(p, w[2])));
    }
    let min32 = vdupq_n_s32(i32::MIN);
    assert_eq!(vqrdmulhq_n_s32(min32, i32::MIN), vdupq_n_s32(i32::MAX));
}

/// The fused Barrett quotient against the pair of instructions it stands for, defined lane by lane: every int16
/// lane, every immediate, the kernels' constants, the scalars at the edges and random ones.
#[test]
fn fused_doubling_multiply_and_rounding_shift_equals_the_pair() {
    let mut rng = ChaCha8Rng::seed_from_u64(0x4D56_4504);
    let mut scalars = vec![21844, -21844, 0, 1, -1, 2, i16::MAX, i16::MIN, i16::MIN + 1];
    scalars.extend((0..8).map(|_| rng.r#gen::<i16>()));
    let all: Vec<i16> = (i16::MIN..=i16::MAX).collect();
    for &b in &scalars {
        for imm in 1..=16u32 {
            for lanes in all.chunks_exact(8) {
                let a = Q::from_i16(lanes.try_into().unwrap());
                let pair = Q::from_i16(core::array::from_fn(|i| {
                    let t = ((2 * i64::from(lanes[i]) * i64::from(b)) >> 16).clamp(-32768, 32767);
                    ((t + (1 << (imm - 1))) >> imm) as i16
                }));
                assert_eq!(vqdmulhq_n_vrshrq_n_s16(a, b, imm), pair, "scalar {b}, imm {imm}, lanes {lanes:?}");
            }
        }
    }
}

#[test]
fn interleaving_and_transposing_loads_match_their_element_definitions() {
    let mut rng = ChaCha8Rng::seed_from_u64(0x4D56_4504);
    let mem: [i16; 80] = core::array::from_fn(|_| rng.r#gen());
    for start in [0, 3, 16] {
        let m = &mem[start..];
        let v2 = vld2q_s16(m);
        let v4 = vld4q_s16(m);
        for k in 0..4 {
            assert_eq!(v4[k].i16(), core::array::from_fn(|j| m[4 * j + k]));
        }
        for k in 0..2 {
            assert_eq!(v2[k].i16(), core::array::from_fn(|j| m[2 * j + k]));
        }
        let mut back = [0i16; 32];
        vst2q_s16(&mut back, v2);
        assert_eq!(back[..16], m[..16]);
        // The eight gathers with offsets 0, 8, .., 56 that the transposing form stands for.
        let offsets = Q::from_u16(core::array::from_fn(|i| 8 * i as u16));
        let rows = vldrhq_gather_transpose8_s16(m);
        for (k, row) in rows.iter().enumerate() {
            assert_eq!(*row, vldrhq_gather_shifted_offset_s16(&m[k..], offsets));
        }
        let (mut by_scatters, mut by_transpose) = ([0i16; 64], [0i16; 64]);
        for (k, &row) in rows.iter().enumerate() {
            vstrhq_scatter_shifted_offset_s16(&mut by_scatters[k..], offsets, row);
        }
        vstrhq_scatter_transpose8_s16(&mut by_transpose, rows);
        assert_eq!(by_transpose, by_scatters);
        assert_eq!(by_transpose[..], m[..64]);
    }
}
