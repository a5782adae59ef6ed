//! The models of the fixed-point keygen FFT kernels (`pqhelium_sim::fxp_fft`) against the reference
//! (`pqhelium_core::fndsa::keygen::fxp`): the split-word primitives on extreme operands, the whole transforms at every
//! degree on random and extreme vectors, deliberately wrong roundings caught, and the guest's twiddle table.

use pqhelium_core::fndsa::keygen::fxp::{self, FxpKernels, Reference};
use pqhelium_sim::fxp_fft::{self, Rounding, V64};
use pqhelium_sim::mve::vdupq_n_u32;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

/// Words whose partial products and sums carry, borrow or overflow: zero, one, the signed and unsigned extremes.
const EDGE_WORDS: [u32; 7] = [0, 1, 2, 0x7FFF_FFFF, 0x8000_0000, 0xFFFF_FFFE, 0xFFFF_FFFF];

/// Every 64-bit value made of two edge words, plus values near the rounding and carry boundaries.
fn edge_values() -> Vec<u64> {
    let mut v: Vec<u64> = EDGE_WORDS
        .iter()
        .flat_map(|&hi| EDGE_WORDS.iter().map(move |&lo| u64::from(hi) << 32 | u64::from(lo)))
        .collect();
    v.extend([fxp::ONE, fxp::ONE - 1, fxp::ONE + 1, 3, 0x1_0000_0001, 0xFFFF_FFFF_0000_0001]);
    v
}

/// The primitives, lane by lane, against the reference's scalar operations.
fn check_primitives(a: [u64; 4], b: [u64; 4]) {
    let (va, vb) = (V64::from_u64(a), V64::from_u64(b));
    let zero = vdupq_n_u32(0);
    let mul = fxp_fft::mul64(va, vb).to_u64();
    let add = fxp_fft::add64(va, vb).to_u64();
    let sub = fxp_fft::sub64(va, vb).to_u64();
    let half_add = fxp_fft::half_add64(va, vb).to_u64();
    let half_sub = fxp_fft::half_sub64(va, vb, zero).to_u64();
    for i in 0..4 {
        let (x, y) = (a[i], b[i]);
        assert_eq!(mul[i], fxp::mul(x, y), "mul({x:#x}, {y:#x})");
        assert_eq!(add[i], x.wrapping_add(y), "add({x:#x}, {y:#x})");
        assert_eq!(sub[i], x.wrapping_sub(y), "sub({x:#x}, {y:#x})");
        assert_eq!(half_add[i], fxp::half(x.wrapping_add(y)), "half(add({x:#x}, {y:#x}))");
        assert_eq!(half_sub[i], fxp::half(x.wrapping_sub(y)), "half(sub({x:#x}, {y:#x}))");
    }
}

#[test]
fn split_word_primitives_equal_the_reference_on_every_pair_of_edge_values() {
    let edges = edge_values();
    for chunk in edges.chunks(4) {
        let mut a = [0; 4];
        a[..chunk.len()].copy_from_slice(chunk);
        for &y in &edges {
            check_primitives(a, [y; 4]);
        }
    }
}

#[test]
fn split_word_primitives_equal_the_reference_on_random_values() {
    let mut rng = ChaCha8Rng::seed_from_u64(0xF1F7);
    for _ in 0..20_000 {
        check_primitives(rng.r#gen(), rng.r#gen());
    }
}

/// The vectors every degree is checked on: zero, an impulse, all ones, the extremes, alternations of them, words
/// that make every partial-product sum carry, then random vectors and FFTs of small polynomials.
fn vectors(logn: u32, rng: &mut ChaCha8Rng) -> Vec<Vec<u64>> {
    let n = 1usize << logn;
    let alternate = |a: u64, b: u64| (0..n).map(|i| if i % 2 == 0 { a } else { b }).collect::<Vec<_>>();
    let mut v = vec![
        vec![0; n],
        (0..n).map(|i| if i == 0 { fxp::ONE } else { 0 }).collect(),
        vec![u64::MAX; n],
        vec![i64::MIN as u64; n],
        vec![i64::MAX as u64; n],
        alternate(i64::MIN as u64, i64::MAX as u64),
        alternate(0xFFFF_FFFF, 0x7FFF_FFFF_FFFF_FFFF),
        alternate(0x8000_0000_FFFF_FFFF, 0xFFFF_FFFF_8000_0000),
    ];
    for _ in 0..6 {
        v.push((0..n).map(|_| rng.r#gen()).collect());
        v.push((0..n).map(|_| EDGE_WORDS[rng.gen_range(0..7)] as u64 | u64::from(rng.r#gen::<u32>()) << 32).collect());
        let mut small: Vec<u64> = (0..n).map(|_| fxp::from_i32(rng.gen_range(-127..=127))).collect();
        Reference.fft(logn, &mut small);
        v.push(small);
    }
    v
}

type Transform = fn(u32, &mut [u64]);

/// `fft` and `ifft` equal the reference on [`vectors`] at every degree.
fn check_against_the_reference(name: &str, fft: Transform, ifft: Transform, seed: u64) {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    for logn in 1..=10 {
        for f in vectors(logn, &mut rng) {
            for (inverse, model) in [(false, fft), (true, ifft)] {
                let (mut want, mut got) = (f.clone(), f.clone());
                if inverse {
                    Reference.ifft(logn, &mut want);
                } else {
                    Reference.fft(logn, &mut want);
                }
                model(logn, &mut got);
                assert_eq!(got, want, "{name}, inverse {inverse}, logn {logn}, input starting {:#x?}", &f[..2]);
            }
        }
    }
}

#[test]
fn mve_models_equal_the_reference_at_every_degree() {
    check_against_the_reference("MVE model", fxp_fft::fft, fxp_fft::ifft, 0xFF7);
}

#[test]
fn scalar_models_equal_the_reference_at_every_degree() {
    check_against_the_reference("scalar model", fxp_fft::scalar::fft, fxp_fft::scalar::ifft, 0x5CA1);
}

/// A model that halves without the +1, or rounds the low partial product instead of flooring it, disagrees with the
/// reference on the vectors above (at every vectorised degree), while the kernel's rounding agrees.
#[test]
fn a_wrong_rounding_is_caught() {
    let mut rng = ChaCha8Rng::seed_from_u64(0xBAD);
    for logn in fxp_fft::VECTOR_LOGN_MIN..=10 {
        let random: Vec<u64> = (0..1usize << logn).map(|_| rng.r#gen()).collect();
        let transform = |inverse: bool, rounding: Rounding| {
            let mut f = random.clone();
            if inverse {
                fxp_fft::ifft_rounding(logn, &mut f, rounding);
            } else {
                fxp_fft::fft_rounding(logn, &mut f, rounding);
            }
            f
        };
        let (mut fwd, mut inv) = (random.clone(), random.clone());
        Reference.fft(logn, &mut fwd);
        Reference.ifft(logn, &mut inv);
        assert_eq!(transform(false, Rounding::Kernel), fwd, "logn {logn}");
        assert_eq!(transform(true, Rounding::Kernel), inv, "logn {logn}");
        assert_ne!(transform(true, Rounding::HalfTruncates), inv, "logn {logn}: truncated halving not caught");
        assert_ne!(transform(false, Rounding::ProductRounds), fwd, "logn {logn}: rounded product not caught");
        assert_ne!(transform(true, Rounding::ProductRounds), inv, "logn {logn}: rounded product not caught");
    }
}

/// The entries of `kernels/arm/fndsa_keygen/fft_q32_gm.c` (generated, `sim/tests/generated_tables.rs`), read back
/// from the C text, are the reference's roots.
#[test]
fn the_guest_twiddle_table_holds_the_reference_roots() {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../kernels/arm/fndsa_keygen/fft_q32_gm.c");
    let committed = std::fs::read_to_string(path).expect("read the table");
    let entries: Vec<u64> = committed
        .lines()
        .filter(|l| l.trim_start().starts_with("0x"))
        .flat_map(|l| {
            l.split(',').filter_map(|w| u64::from_str_radix(w.trim().strip_prefix("0x")?.strip_suffix('u')?, 16).ok())
        })
        .collect();
    let roots: Vec<u64> = fxp::roots().iter().flat_map(|&(re, im)| [re, im]).collect();
    assert_eq!(entries, roots);
}
