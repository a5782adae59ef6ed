//! The case generators are pinned: a few cases of every kernel (the first two edge cases, the last one, the first
//! random ones) hash to the values below, recorded from the generators of version `CASE_GENERATORS` = 7. A change that
//! gives other cases for the same (seed, case) fails here: then raise `CASE_GENERATORS` (campaigns of another version
//! are not resumed) and record the new values.

use pqhelium_families::{self as registry, CASE_GENERATORS, case_rng};
use pqhelium_guest::backend::Arg;
use sha2::{Digest, Sha256};

const SEED: u64 = 0x5EED_CA5E;

/// SHA-256 of the pinned cases' arguments (kind, length, bytes), first 8 bytes in hex, per kernel.
const PINS: &[(&str, &str)] = &[
    ("keccak.f1600", "2dce99d0648331b6"),
    ("keccak.interleave", "839320deca7fad53"),
    ("keccak.deinterleave", "839320deca7fad53"),
    ("keccak.interleave.mve", "839320deca7fad53"),
    ("keccak.deinterleave.mve", "839320deca7fad53"),
    ("keccak.f1600x4.mve", "4e225d5440f96c4d"),
    ("keccak.f1600.slothy_m55", "2dce99d0648331b6"),
    ("keccak.f1600.slothy_m85", "2dce99d0648331b6"),
    ("keccak.f1600x4.mve.slothy_m55", "4e225d5440f96c4d"),
    ("keccak.f1600x4.mve.slothy_m85", "4e225d5440f96c4d"),
    ("mlkem768.scheme", "b9b95478e4be6c22"),
    ("xwing.scheme", "4e36fb9c0a6c8886"),
    ("fndsa.scheme", "432dcc8f102c8987"),
    ("fndsa.ntt512.fwd", "9a80d0eca938fc48"),
    ("fndsa.ntt512.fwd.slothy_m55", "9a80d0eca938fc48"),
    ("fndsa.ntt512.fwd.slothy_m85", "9a80d0eca938fc48"),
    ("fndsa.ntt1024.fwd", "7c6dcd54932d0eaf"),
    ("fndsa.ntt1024.fwd.slothy_m55", "7c6dcd54932d0eaf"),
    ("fndsa.ntt1024.fwd.slothy_m85", "7c6dcd54932d0eaf"),
    ("fndsa.ntt512.inv", "5616053d512e3bb6"),
    ("fndsa.ntt1024.inv", "7aa4c35153a453a8"),
    ("fndsa.ntt512.pointwise", "3c93e913ce3e0742"),
    ("fndsa.ntt1024.pointwise", "4604fbcb4f19e8bc"),
    ("fndsa.ntt512.fwd.scalar", "2e6ac2429225892f"),
    ("fndsa.ntt1024.fwd.scalar", "852f135b204ba196"),
    ("fndsa.ntt512.inv.scalar", "2e6ac2429225892f"),
    ("fndsa.ntt1024.inv.scalar", "852f135b204ba196"),
    ("fndsa.ntt512.pointwise.scalar", "e42227bbf357324f"),
    ("fndsa.ntt1024.pointwise.scalar", "d7edd8b14d4b324a"),
    ("mlkem.ntt.fwd", "9eabd86f5cf4e558"),
    ("mlkem.ntt.fwd.slothy_m55", "9eabd86f5cf4e558"),
    ("mlkem.ntt.fwd.slothy_m85", "9eabd86f5cf4e558"),
    ("mlkem.ntt.inv", "1bfc4901ecbcbb24"),
    ("mlkem.ntt.inv.slothy_m55", "1bfc4901ecbcbb24"),
    ("mlkem.ntt.inv.slothy_m85", "1bfc4901ecbcbb24"),
    ("mlkem.basemul", "c2225e75bd63d097"),
    ("mlkem.order.to_mve", "81c019c57de0f57d"),
    ("mlkem.order.from_mve", "81c019c57de0f57d"),
    ("mlkem.ntt.fwd.scalar", "57130d6285fb2df0"),
    ("mlkem.ntt.inv.scalar", "32bd1cb311b1d363"),
    ("mlkem.basemul.scalar", "c2225e75bd63d097"),
    ("mlkem.compress.du10.mve", "d03479dbe71dbf92"),
    ("mlkem.decompress.du10.mve", "494f578dea405f06"),
    ("mlkem.compress.dv4.mve", "11042b36b3849fb8"),
    ("mlkem.decompress.dv4.mve", "498bcaaf5c90c0be"),
    ("mlkem.compress.d1.mve", "b0a19d1479599cda"),
    ("mlkem.decompress.d1.mve", "5ca7ec4c7a1a8708"),
    ("mlkem.poly.encode12.mve", "ed27a79a946a630c"),
    ("mlkem.poly.decode12.mve", "28ae818f1abf6175"),
    ("mlkem.poly.add.mve", "1c4ca9fc093adaab"),
    ("mlkem.poly.sub.mve", "1c4ca9fc093adaab"),
    ("mlkem.poly.reduce.mve", "019a82dc6317f47f"),
    ("mlkem.dot.k3.mve", "ad062aab532edf5d"),
    ("mlkem.matvec.k3.mve", "ccd5df9f24d8b387"),
    ("mlkem.compress.du10.scalar", "1538dbf040e33c47"),
    ("mlkem.decompress.du10.scalar", "494f578dea405f06"),
    ("mlkem.compress.dv4.scalar", "b74c42e99b41e597"),
    ("mlkem.decompress.dv4.scalar", "498bcaaf5c90c0be"),
    ("mlkem.compress.d1.scalar", "ceab06e47ff9c92f"),
    ("mlkem.decompress.d1.scalar", "5ca7ec4c7a1a8708"),
    ("mlkem.poly.encode12.scalar", "b0c8c18f0e2c4390"),
    ("mlkem.poly.decode12.scalar", "28ae818f1abf6175"),
    ("mlkem.poly.add.scalar", "1c4ca9fc093adaab"),
    ("mlkem.poly.sub.scalar", "1c4ca9fc093adaab"),
    ("mlkem.poly.reduce.scalar", "019a82dc6317f47f"),
    ("mlkem.dot.k3.scalar", "ad062aab532edf5d"),
    ("mlkem.matvec.k3.scalar", "ccd5df9f24d8b387"),
    ("fndsa.emu.f64.add", "4a6bc11e274eca48"),
    ("fndsa.emu.f64.sub", "7a7ed81fc160422f"),
    ("fndsa.emu.f64.mul", "1de81ea16a93a9c6"),
    ("fndsa.emu.f64.div", "bff4707196fe4934"),
    ("fndsa.emu.f64.sqrt", "6534ed9d9d1a5d2b"),
    ("fndsa.emu.f64.neg", "18fd8bfdcd89937b"),
    ("fndsa.emu.f64.floor", "8e5a386e94c9e5e3"),
    ("fndsa.emu.f64.trunc", "8e5a386e94c9e5e3"),
    ("fndsa.emu.f64.rint", "8e5a386e94c9e5e3"),
    ("fndsa.emu.f64.from_i64", "e681d21dc4694ffe"),
    ("fndsa.emu.f64.to_i64_trunc", "c047b81037724918"),
    ("fndsa.emu.f64.to_i64_round", "c047b81037724918"),
    ("fndsa.emu.f64.to_i64_floor", "c047b81037724918"),
    ("fndsa.fpu.fft", "172d399c30feb973"),
    ("fndsa.fpu.fft.emu", "172d399c30feb973"),
    ("fndsa.fpu.ifft", "a91e0f8d58505987"),
    ("fndsa.fpu.ifft.emu", "a91e0f8d58505987"),
    ("fndsa.fpu.set_small", "3dd135e16b1afbb5"),
    ("fndsa.fpu.set_small.emu", "3dd135e16b1afbb5"),
    ("fndsa.fpu.round", "dfbeac9c4bca9c44"),
    ("fndsa.fpu.round.emu", "dfbeac9c4bca9c44"),
    ("fndsa.fpu.add", "68c638f7655608e2"),
    ("fndsa.fpu.add.emu", "68c638f7655608e2"),
    ("fndsa.fpu.sub", "aec4e68ff59dd8d9"),
    ("fndsa.fpu.sub.emu", "aec4e68ff59dd8d9"),
    ("fndsa.fpu.neg", "90b9ae059e7c4a81"),
    ("fndsa.fpu.neg.emu", "90b9ae059e7c4a81"),
    ("fndsa.fpu.mulconst", "448f71e070ce1eb1"),
    ("fndsa.fpu.mulconst.emu", "83bfcf7b8de2585f"),
    ("fndsa.fpu.mul", "a0dbfe7c8703df4a"),
    ("fndsa.fpu.mul.emu", "a0dbfe7c8703df4a"),
    ("fndsa.fpu.muladj", "a0dbfe7c8703df4a"),
    ("fndsa.fpu.muladj.emu", "a0dbfe7c8703df4a"),
    ("fndsa.fpu.mulownadj", "a4bfc8d692022aa6"),
    ("fndsa.fpu.mulownadj.emu", "a4bfc8d692022aa6"),
    ("fndsa.fpu.ldl", "971d5a352aaaa722"),
    ("fndsa.fpu.ldl.emu", "971d5a352aaaa722"),
    ("fndsa.fpu.split", "119289ad19e4a3ad"),
    ("fndsa.fpu.split.emu", "119289ad19e4a3ad"),
    ("fndsa.fpu.split_selfadj", "f54818b660d61846"),
    ("fndsa.fpu.split_selfadj.emu", "f54818b660d61846"),
    ("fndsa.fpu.merge", "53d5387c153868fe"),
    ("fndsa.fpu.merge.emu", "53d5387c153868fe"),
    ("fndsa.fpu.leaf_sigma", "7fa780f09f8492c3"),
    ("fndsa.fpu.leaf_sigma.emu", "fec66ddf62c26b9c"),
    ("fndsa.fpu.sampler_centre", "7fa598496b507e18"),
    ("fndsa.fpu.sampler_centre.emu", "37fbc54222ceae44"),
    ("fndsa.fpu.sampler_exponent", "1c016fdd6bb5f661"),
    ("fndsa.fpu.sampler_exponent.emu", "1c016fdd6bb5f661"),
    ("fndsa.keygen.div", "ac77da6bcfc70a67"),
    ("fndsa.keygen.div_selfadj", "c961c2a1663e305e"),
    ("fndsa.keygen.invnorm", "4a4c207156829557"),
    ("fndsa.keygen.inv_mul2e", "01fbd6163eb0da24"),
    ("fndsa.keygen.div.scalar", "ac77da6bcfc70a67"),
    ("fndsa.keygen.div_selfadj.scalar", "c961c2a1663e305e"),
    ("fndsa.keygen.invnorm.scalar", "4a4c207156829557"),
    ("fndsa.keygen.inv_mul2e.scalar", "01fbd6163eb0da24"),
    ("fndsa.keygen.fft", "6fb811310a71bf4a"),
    ("fndsa.keygen.ifft", "e7ee8acb26742933"),
    ("fndsa.keygen.fft.scalar", "6fb811310a71bf4a"),
    ("fndsa.keygen.ifft.scalar", "e7ee8acb26742933"),
    ("fndsa.keygen.pair", "bc2259d7d13f78d9"),
    ("fndsa.keygen.pair.scalar", "bc2259d7d13f78d9"),
    ("fndsa.verify", "b421bb663e7f3896"),
    ("fndsa.verify.scalar", "b421bb663e7f3896"),
    ("fndsa.verify.batch4", "0aa572701787f217"),
    ("fndsa.verify.batch4.scalar", "0aa572701787f217"),
    ("fndsa.sign", "448191b7f7f3f1b7"),
    ("fndsa.sign.emu", "448191b7f7f3f1b7"),
    ("x25519.fe.mul", "4eb43cff62c274da"),
    ("x25519.fe.sqr", "f35fa85f6b4c7786"),
    ("x25519.fe.add", "651af05f36e543f7"),
    ("x25519.fe.sub", "651af05f36e543f7"),
    ("x25519.fe.mul121666", "44a8dff5836402d2"),
    ("x25519.fe.inv", "baad02dcbbaf1d6b"),
    ("x25519.fe.pow22523", "baad02dcbbaf1d6b"),
    ("x25519.cswap", "a97cfc1f0581f3d7"),
    ("x25519.cswap.mve", "a97cfc1f0581f3d7"),
    ("x25519.ladder_step", "be0fd4ee96276563"),
    ("x25519.inv2", "680645362441bde3"),
    ("x25519.scalarmult", "5248745b4d847206"),
    ("x25519.base", "3551c6874ec8d15f"),
    ("x25519.base.b8", "3551c6874ec8d15f"),
    ("ct.fixture.lookup", "cb3040c37899a3e8"),
    ("ct.fixture.lookup.masked", "cb3040c37899a3e8"),
    ("ct.fixture.branch", "03def1e155495584"),
    ("ct.fixture.select.it", "03def1e155495584"),
    ("ct.fixture.branch.masked", "03def1e155495584"),
    ("ct.fixture.div_q", "4277ba67fe8bcd7f"),
    ("ct.fixture.div_q.barrett", "4277ba67fe8bcd7f"),
    ("ct.fixture.clz", "03def1e155495584"),
    ("ct.fixture.clz.fixed", "03def1e155495584"),
    ("ct.fixture.abs", "03def1e155495584"),
    ("ct.fixture.abs.opaque", "03def1e155495584"),
    ("ct.fixture.reject", "03def1e155495584"),
    ("ct.fixture.select.vpt", "03def1e155495584"),
];

fn digest(id: &str) -> String {
    let kernel = registry::find(id).unwrap_or_else(|| panic!("{id} is not registered"));
    let edge = kernel.edge_cases;
    let mut cases = vec![0, 1, edge.saturating_sub(1), edge, edge + 1, edge + 17];
    cases.dedup();
    let mut hash = Sha256::new();
    for case in cases {
        hash.update(case.to_le_bytes());
        for arg in kernel.generate(case, &mut case_rng(SEED, case)) {
            let (kind, bytes): (u8, Vec<u8>) = match arg {
                Arg::In(b) => (0, b),
                Arg::InOut(b) => (1, b),
                Arg::Out(n) => (2, (n as u64).to_le_bytes().to_vec()),
                Arg::U32(v) => (3, v.to_le_bytes().to_vec()),
                Arg::F64(x) => (4, x.to_bits().to_le_bytes().to_vec()),
            };
            hash.update([kind]);
            hash.update((bytes.len() as u64).to_le_bytes());
            hash.update(&bytes);
        }
    }
    hex::encode(&hash.finalize()[..8])
}

#[test]
fn every_kernels_cases_are_the_pinned_ones() {
    assert_eq!(CASE_GENERATORS, 7, "new generators: record the new pins below");
    let ids: Vec<&str> = registry::all().map(|k| k.id).collect();
    let pinned: Vec<&str> = PINS.iter().map(|(id, _)| *id).collect();
    let missing: Vec<String> =
        ids.iter().filter(|id| !pinned.contains(id)).map(|id| format!("    (\"{id}\", \"{}\"),", digest(id))).collect();
    assert_eq!(ids, pinned, "every kernel is pinned, in registry order; new kernels' pins:\n{}", missing.join("\n"));
    let differing: Vec<String> = PINS
        .iter()
        .filter_map(|&(id, pin)| {
            let now = digest(id);
            (now != pin).then(|| format!("{id}: {now} (pinned {pin})"))
        })
        .collect();
    assert!(differing.is_empty(), "cases changed:\n{}", differing.join("\n"));
}
