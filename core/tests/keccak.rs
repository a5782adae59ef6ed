//! Keccak / SHA-3 reference checks: tables derived from FIPS 202, published
//! vectors, and a seeded differential against the `sha3` crate.

use pqhelium_core::keccak::{
    Keccak, RHO_OFFSETS, ROUND_CONSTANTS, Sha3_256, Sha3_512, Shake128, keccak_f1600, keccak_f1600_bytes, sha3_256,
    sha3_512, shake128, shake256,
};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use sha3::Digest;
use sha3::digest::{ExtendableOutput, Update, XofReader};

/// rc(t) from FIPS 202 Algorithm 5: one output bit of an 8-bit LFSR.
/// Bit k of `r` holds R[k] of the standard.
fn rc_bit(t: usize) -> u64 {
    if t.is_multiple_of(255) {
        return 1;
    }
    let mut r: u16 = 1; // R = 10000000
    for _ in 1..=(t % 255) {
        r <<= 1; // R = 0 || R
        let r8 = (r >> 8) & 1;
        r ^= r8 | (r8 << 4) | (r8 << 5) | (r8 << 6);
        r &= 0xFF; // Trunc_8
    }
    u64::from(r & 1)
}

#[test]
fn round_constants_match_lfsr() {
    for (ir, &rc) in ROUND_CONSTANTS.iter().enumerate() {
        // FIPS 202 Algorithm 6: RC[2^j - 1] = rc(j + 7 i_r) for j = 0..=6.
        let derived = (0..=6).fold(0u64, |acc, j| acc | (rc_bit(j + 7 * ir) << ((1 << j) - 1)));
        assert_eq!(rc, derived, "round {ir}");
    }
}

#[test]
fn rho_offsets_match_definition() {
    // FIPS 202 Algorithm 2: walk (x, y) from (1, 0), offset (t+1)(t+2)/2.
    let mut derived = [None; 25];
    derived[0] = Some(0);
    let (mut x, mut y) = (1usize, 0usize);
    for t in 0..24u32 {
        assert!(derived[x + 5 * y].is_none(), "walk revisits ({x}, {y})");
        derived[x + 5 * y] = Some(((t + 1) * (t + 2) / 2) % 64);
        (x, y) = (y, (2 * x + 3 * y) % 5);
    }
    let derived = derived.map(|o| o.expect("walk covers every lane"));
    assert_eq!(RHO_OFFSETS, derived);
}

#[test]
fn permutation_on_zero_state() {
    let mut s = [0u64; 25];
    keccak_f1600(&mut s);
    assert_eq!(s[0], 0xF125_8F79_40E1_DDE7);
    keccak_f1600(&mut s);
    assert_eq!(s[0], 0x2D5C_954D_F96E_CB3C);
}

#[test]
fn byte_state_matches_lane_state() {
    let mut rng = ChaCha8Rng::seed_from_u64(0xB17E5);
    for _ in 0..100 {
        let mut bytes = [0u8; 200];
        rng.fill(&mut bytes[..]);
        let mut lanes: [u64; 25] =
            core::array::from_fn(|i| u64::from_le_bytes(bytes[8 * i..8 * i + 8].try_into().unwrap()));
        keccak_f1600_bytes(&mut bytes);
        keccak_f1600(&mut lanes);
        for (i, lane) in lanes.iter().enumerate() {
            assert_eq!(bytes[8 * i..8 * i + 8], lane.to_le_bytes());
        }
    }
}

#[test]
fn nist_example_values() {
    assert_eq!(hex::encode(sha3_256(b"")), "a7ffc6f8bf1ed76651c14756a061d662f580ff4de43b49fa82d80a4b80f8434a");
    assert_eq!(hex::encode(sha3_256(b"abc")), "3a985da74fe225b2045c172d6bd390bd855f086e3e9d525b46bfe24511431532");
    assert_eq!(
        hex::encode(sha3_512(b"abc")),
        "b751850b1a57168a5693cd924b6b096e08f621827444f70d884f5d0240d2712e\
         10e116e9192af3c91a7ec57647e3934057340b4cf408d5a56592f8274eec53f0"
    );
    let mut out = [0u8; 32];
    shake128(b"", &mut out);
    assert_eq!(hex::encode(out), "7f9c2ba4e88f827d616045507605853ed73b8093f6efbc88eb1a6eacfa66ef26");
    shake256(b"", &mut out);
    assert_eq!(hex::encode(out), "46b9dd2b0ba88d13233b3feb743eeb243fcd52ea62b81b82b50c27646ed5762f");
}

/// Random chunk sizes summing to `len`. Empty chunks are included on
/// purpose; sizes mix tiny, block-sized and "everything left".
fn random_splits(rng: &mut ChaCha8Rng, len: usize) -> Vec<usize> {
    let mut sizes = Vec::new();
    let mut left = len;
    loop {
        let size = match rng.gen_range(0..5) {
            0 => 0,
            1 => rng.gen_range(1..=8),
            2 => rng.gen_range(1..=200),
            _ => left,
        }
        .min(left);
        sizes.push(size);
        left -= size;
        if left == 0 && rng.gen_bool(0.7) {
            return sizes;
        }
    }
}

/// Output length for XOF cases: half uniform, half hugging a block boundary.
fn random_out_len(rng: &mut ChaCha8Rng, rate: usize) -> usize {
    if rng.gen_bool(0.5) {
        rng.gen_range(0..=600)
    } else {
        (rng.gen_range(0..=4) * rate + rng.gen_range(0..=2)).saturating_sub(1)
    }
}

const CASES_PER_LENGTH: usize = 4;
const MAX_LEN: usize = 600;

/// Runs `check(case_rng, msg, len)` for every message length 0..=MAX_LEN,
/// CASES_PER_LENGTH times, so every length around each rate multiple is hit.
fn for_each_case(seed: u64, mut check: impl FnMut(&mut ChaCha8Rng, &[u8], &str)) -> usize {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let mut cases = 0;
    for len in 0..=MAX_LEN {
        for rep in 0..CASES_PER_LENGTH {
            let mut msg = vec![0u8; len];
            rng.fill(&mut msg[..]);
            let ctx = format!("seed {seed:#x}, len {len}, rep {rep}");
            check(&mut rng, &msg, &ctx);
            cases += 1;
        }
    }
    cases
}

fn absorb_split<const R: usize, const D: u8>(h: &mut Keccak<R, D>, msg: &[u8], splits: &[usize]) {
    let mut rest = msg;
    for &n in splits {
        let (chunk, tail) = rest.split_at(n);
        h.absorb(chunk);
        rest = tail;
    }
    assert!(rest.is_empty());
}

fn squeeze_split<const R: usize, const D: u8>(h: &mut Keccak<R, D>, out: &mut [u8], splits: &[usize]) {
    let mut rest = out;
    for &n in splits {
        let (chunk, tail) = rest.split_at_mut(n);
        h.squeeze(chunk);
        rest = tail;
    }
    assert!(rest.is_empty());
}

/// Differential for a fixed-output hash: one-shot, incremental `finalize`,
/// and incremental `squeeze` in pieces must all equal the oracle.
fn differential_hash<const R: usize, const N: usize>(
    seed: u64,
    ours_oneshot: fn(&[u8]) -> [u8; N],
    ours_finalize: fn(Keccak<R, 0x06>) -> [u8; N],
    oracle: fn(&[u8]) -> Vec<u8>,
) -> usize {
    for_each_case(seed, |rng, msg, ctx| {
        let expected = oracle(msg);
        assert_eq!(ours_oneshot(msg)[..], expected[..], "one-shot, {ctx}");

        let splits = random_splits(rng, msg.len());
        let mut h = Keccak::<R, 0x06>::new();
        absorb_split(&mut h, msg, &splits);
        assert_eq!(ours_finalize(h)[..], expected[..], "finalize, {ctx}, absorb {splits:?}");

        let out_splits = random_splits(rng, N);
        let mut h = Keccak::<R, 0x06>::new();
        absorb_split(&mut h, msg, &splits);
        let mut out = [0u8; N];
        squeeze_split(&mut h, &mut out, &out_splits);
        assert_eq!(out[..], expected[..], "squeeze, {ctx}, absorb {splits:?}, squeeze {out_splits:?}");
    })
}

/// Differential for an XOF: incremental absorb and squeeze in random pieces,
/// random output length, against the oracle's reader.
fn differential_xof<const R: usize>(
    seed: u64,
    ours_oneshot: fn(&[u8], &mut [u8]),
    oracle: fn(&[u8], &mut [u8]),
) -> usize {
    for_each_case(seed, |rng, msg, ctx| {
        let out_len = random_out_len(rng, R);
        let mut expected = vec![0u8; out_len];
        oracle(msg, &mut expected);

        let mut out = vec![0u8; out_len];
        ours_oneshot(msg, &mut out);
        assert_eq!(out, expected, "one-shot, {ctx}, out_len {out_len}");

        let splits = random_splits(rng, msg.len());
        let out_splits = random_splits(rng, out_len);
        let mut h = Keccak::<R, 0x1F>::new();
        absorb_split(&mut h, msg, &splits);
        let mut out = vec![0u8; out_len];
        squeeze_split(&mut h, &mut out, &out_splits);
        assert_eq!(out, expected, "incremental, {ctx}, absorb {splits:?}, squeeze {out_splits:?}");
    })
}

fn xof_oracle<X: Default + Update + ExtendableOutput>(msg: &[u8], out: &mut [u8]) {
    let mut h = X::default();
    h.update(msg);
    h.finalize_xof().read(out);
}

#[test]
fn differential_sha3_256() {
    let cases =
        differential_hash::<136, 32>(0x5A3_256, sha3_256, Sha3_256::finalize, |m| sha3::Sha3_256::digest(m).to_vec());
    assert!(cases >= 2000);
}

#[test]
fn differential_sha3_512() {
    let cases =
        differential_hash::<72, 64>(0x5A3_512, sha3_512, Sha3_512::finalize, |m| sha3::Sha3_512::digest(m).to_vec());
    assert!(cases >= 2000);
}

#[test]
fn differential_shake128() {
    let cases = differential_xof::<168>(0x5AE_128, shake128, xof_oracle::<sha3::Shake128>);
    assert!(cases >= 2000);
}

#[test]
fn differential_shake256() {
    let cases = differential_xof::<136>(0x5AE_256, shake256, xof_oracle::<sha3::Shake256>);
    assert!(cases >= 2000);
}

#[test]
#[should_panic(expected = "absorb after squeeze")]
fn absorb_after_squeeze_panics() {
    let mut h = Shake128::new();
    h.squeeze(&mut [0u8; 1]);
    h.absorb(b"late");
}
