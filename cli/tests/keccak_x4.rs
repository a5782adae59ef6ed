//! The MVE Keccak kernels (`kernels/arm/keccak/keccak_x4.mve.c`): the conversions and the x4 permutation on QEMU and
//! as models; a lane mix-up caught by the x4 contract's per-lane edge cases; SHAKE256 x4 and the fips202 known
//! answers with the x4 permutation doing every permutation; instructions per permutation, scalar against x4.

use pqhelium_core::keccak::{Permutation, ReferencePermutation, keccak_f1600, shake256};
use pqhelium_engine::diff::{self, Campaign, Failure};
use pqhelium_families::{self as registry, Kernel, Outcome};
use pqhelium_guest::backend::{Arg, BackendKind};
use pqhelium_schemes::kat::{self, Extent, Provider};
use pqhelium_schemes::providers::Guest;
use pqhelium_schemes::providers::keccak::{
    EmulatedPermutation, EmulatedPermutationX4, FourSingle, LaneJob, ModelPermutationX4, PermutationX4, X4_STATES,
    run_batch, shake256_x4,
};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

const SEED: u64 = 0x4B34;
const X4: &str = "keccak.f1600x4.mve";
const X4_SYMBOL: &str = "keccak_f1600x4_interleaved";
const SCALAR_SYMBOL: &str = "keccak_f1600_interleaved";

fn kernel(id: &str) -> &'static Kernel {
    registry::find(id).unwrap_or_else(|| panic!("{id} is not registered"))
}

/// Every edge case of each MVE kernel and 300 random cases, as model and as object code on QEMU.
#[test]
fn mve_keccak_kernels_pass_as_model_and_on_qemu() {
    for id in ["keccak.interleave.mve", "keccak.deinterleave.mve", X4] {
        let k = kernel(id);
        assert!(!k.runs_on(BackendKind::Unicorn), "{id}: MVE code has no unicorn build");
        for backend in [BackendKind::Model, BackendKind::Qemu] {
            diff::assert_campaign_passes(id, backend, SEED, k.edge_cases + 300);
        }
    }
}

/// The x4 model with states 1 and 2 exchanged on the way out: the lane mix-up an x4 kernel can make.
fn lanes_1_and_2_swapped(args: &[Arg]) -> Outcome {
    let mut outcome = kernel(X4).expected(args);
    for vector in outcome.buffers[0].chunks_exact_mut(16) {
        let (lanes_0_1, lanes_2_3) = vector.split_at_mut(8);
        lanes_0_1[4..].swap_with_slice(&mut lanes_2_3[..4]);
    }
    outcome
}

/// A lane swap is caught at the first edge case, as a model (against the reference) and as object code (against the
/// model, on QEMU: `kernels/arm/selftest/keccak_x4_lane_swap.c`), because every edge case puts four different
/// states in the lanes; on four equal states it would not show.
#[test]
fn a_lane_swap_is_caught_by_the_per_lane_edge_cases() {
    let swapped_model = registry::variant(X4, |k| k.model = Some(lanes_1_and_2_swapped));
    let swapped_code = registry::variant(X4, |k| k.symbol = Some("pqh_selftest_keccak_f1600x4_lanes_swapped"));
    for (wrong, backend, sides) in [
        (swapped_model, BackendKind::Model, ("reference", "canon(model)")),
        (swapped_code, BackendKind::Qemu, ("model", "qemu")),
    ] {
        let result = diff::run(&Campaign::new(wrong, backend, SEED, 50, 1));
        let first = result.failures.first().unwrap_or_else(|| panic!("{backend}: the lane swap went unnoticed"));
        assert_eq!(first.case, 0, "{backend}");
        let Failure::Mismatch { left, right, .. } = &first.failure else { panic!("{backend}: {:?}", first.failure) };
        assert_eq!((*left, *right), sides, "{backend}");
    }
    // Four equal states: the swap changes nothing, which is why every edge case has four different ones.
    let equal = vec![Arg::InOut(vec![0x3C; 800])];
    assert_eq!(lanes_1_and_2_swapped(&equal), kernel(X4).expected(&equal));
}

/// Four random states and the zero state, all ones, one bit.
fn four_states(rng: &mut ChaCha8Rng) -> [[u64; 25]; X4_STATES] {
    let mut one_bit = [0u64; 25];
    one_bit[rng.gen_range(0..25)] = 1 << rng.gen_range(0..64);
    [[0; 25], [u64::MAX; 25], one_bit, std::array::from_fn(|_| rng.r#gen())]
}

/// The provider API on QEMU (four states in, four states out) against four single reference permutations.
#[test]
fn the_emulated_x4_permutation_equals_four_reference_permutations() {
    let mut x4 = EmulatedPermutationX4::open().expect("QEMU must start");
    let mut rng = ChaCha8Rng::seed_from_u64(SEED);
    for _ in 0..20 {
        let states = four_states(&mut rng);
        let mut got = states;
        x4.permute4(&mut got);
        x4.tally().check().unwrap();
        for (j, (got, mut want)) in got.iter().zip(states).enumerate() {
            keccak_f1600(&mut want);
            assert_eq!(*got, want, "state {j}");
        }
    }
    assert_eq!(x4.tally().calls_of(X4_SYMBOL), 20);
}

/// Message and output lengths around the SHAKE256 rate (136 bytes), different in every lane.
const LENGTHS: [[usize; X4_STATES]; 4] = [[0, 1, 135, 136], [137, 272, 0, 500], [1000, 3, 271, 136], [64, 64, 64, 64]];
const OUTPUT_LENGTHS: [[usize; X4_STATES]; 4] = [[32, 0, 1, 136], [137, 300, 64, 32], [1, 2, 3, 545], [32, 33, 34, 35]];

/// SHAKE256 x4 on four messages of independent lengths equals four single SHAKE256 runs, with the model and with
/// the object code on QEMU.
#[test]
fn shake256_x4_equals_four_single_runs() {
    let mut rng = ChaCha8Rng::seed_from_u64(SEED + 1);
    let mut emulated = EmulatedPermutationX4::open().expect("QEMU must start");
    for (lengths, output_lens) in LENGTHS.iter().zip(OUTPUT_LENGTHS) {
        let messages: [Vec<u8>; X4_STATES] = lengths.map(|n| (0..n).map(|_| rng.r#gen()).collect());
        let refs: [&[u8]; X4_STATES] = std::array::from_fn(|j| &messages[j][..]);
        let want: [Vec<u8>; X4_STATES] = std::array::from_fn(|j| {
            let mut out = vec![0; output_lens[j]];
            shake256(&messages[j], &mut out);
            out
        });
        assert_eq!(shake256_x4(&mut ModelPermutationX4, refs, output_lens), want, "model, {lengths:?}");
        assert_eq!(shake256_x4(&mut emulated, refs, output_lens), want, "qemu, {lengths:?}");
    }
    emulated.tally().check().unwrap();
}

/// The batch is as sensitive as its permutation: an x4 permutation that swaps two states gives wrong SHAKE256
/// outputs for exactly those lanes.
#[test]
fn a_lane_swapping_permutation_spoils_the_batch() {
    struct SwapsLanes1And2;
    impl PermutationX4 for SwapsLanes1And2 {
        fn permute4(&mut self, states: &mut [[u64; 25]; X4_STATES]) {
            FourSingle(ReferencePermutation).permute4(states);
            states.swap(1, 2);
        }
    }
    let messages: [&[u8]; X4_STATES] = [b"a", b"bb", b"ccc", b"dddd"];
    let right = shake256_x4(&mut FourSingle(ReferencePermutation), messages, [32; X4_STATES]);
    let wrong = shake256_x4(&mut SwapsLanes1And2, messages, [32; X4_STATES]);
    assert_eq!((wrong[0] == right[0], wrong[1] == right[1], wrong[2] == right[2]), (true, false, false));
    assert_eq!(wrong[3], right[3]);
}

/// Jobs are taken in order into free lanes: five SHAKE256 jobs of one block each take two x4 calls, and the
/// permutation jobs take exactly their count.
#[test]
fn run_batch_fills_free_lanes() {
    let mut jobs: Vec<LaneJob> = (0..5).map(|i| LaneJob::shake256(&[i], 32)).collect();
    assert_eq!(run_batch(&mut FourSingle(ReferencePermutation), &mut jobs), 2);
    let mut bare = vec![LaneJob::permutations(3, 8), LaneJob::permutations(0, 8)];
    assert_eq!(run_batch(&mut FourSingle(ReferencePermutation), &mut bare), 3);
    assert_eq!(bare[1].output(), &[0; 8]);
    let mut state = [0u64; 25];
    (0..3).for_each(|_| keccak_f1600(&mut state));
    assert_eq!(bare[0].output(), &state[0].to_le_bytes());
}

/// fips202 on QEMU: every entry passes with the x4 kernel doing every permutation, four entries at a time, and the
/// scalar kernel is not called.
#[test]
fn fips202_passes_on_qemu_with_the_x4_permutation() {
    let run = kat::run("fips202", Provider::Qemu, Extent::All);
    for r in &run.results {
        assert!(r.passed, "{}: {}", r.name, r.detail);
    }
    assert_eq!(run.results.len(), 8);
    assert!(run.served.get(X4_SYMBOL).is_some_and(|c| c.calls > 0), "{:?}", run.served);
    assert!(!run.served.contains_key(SCALAR_SYMBOL), "{:?}", run.served);
}

/// Executed guest instructions per permutation: scalar `keccak.f1600` against `keccak.f1600x4.mve` / 4, on QEMU.
/// Instructions, not cycles. Both counts are data-independent: the same on every state.
#[test]
fn instructions_per_permutation_scalar_and_x4() {
    let mut scalar = EmulatedPermutation::new(Guest::open(BackendKind::Qemu).expect("QEMU must start"));
    let mut x4 = EmulatedPermutationX4::open().expect("QEMU must start");
    let mut rng = ChaCha8Rng::seed_from_u64(SEED + 2);
    let mut scalar_counts = Vec::new();
    let mut x4_counts = Vec::new();
    for _ in 0..3 {
        let mut states = four_states(&mut rng);
        let before = scalar.tally().instructions();
        scalar.permute(&mut states[3]);
        scalar_counts.push(scalar.tally().instructions() - before);
        let before = x4.tally().instructions();
        x4.permute4(&mut states);
        x4_counts.push(x4.tally().instructions() - before);
    }
    scalar.tally().check().unwrap();
    x4.tally().check().unwrap();
    assert!(scalar_counts.windows(2).all(|w| w[0] == w[1]), "{scalar_counts:?}");
    assert!(x4_counts.windows(2).all(|w| w[0] == w[1]), "{x4_counts:?}");
    let per_permutation = x4_counts[0] as f64 / X4_STATES as f64;
    eprintln!(
        "instructions per Keccak-f[1600]: scalar {}, x4 {} per call = {per_permutation:.0} per permutation ({:.2}x)",
        scalar_counts[0],
        x4_counts[0],
        scalar_counts[0] as f64 / per_permutation
    );
    assert!(per_permutation < scalar_counts[0] as f64, "the x4 kernel does more work per permutation");
}
