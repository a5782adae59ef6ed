//! FN-DSA v0.4 signing against the crate fn-dsa 0.4.0: the crate's published signature KAT, byte-for-byte
//! differential signing over random seeds, malformed signing keys, the FP64 kernel seam, and FP kernels against
//! mathematics.

mod common;

use common::{Replay, crate_keygen};
use fn_dsa::{
    DomainContext, HashIdentifier, SigningKey as _, SigningKeyStandard, SigningKeyWeak, VerifyingKey as _,
    VerifyingKeyStandard, VerifyingKeyWeak, signature_size,
};
use pqhelium_core::fndsa::codec::{self, KeyPoly};
use pqhelium_core::fndsa::fpu::{self, BerExponent, FpuKernels, SamplerCentre};
use pqhelium_core::fndsa::{self, Error, HashId, Kernels, ReferenceKernels, SigningKey, VerifyingKey};
use pqhelium_core::keccak::{self, ReferencePermutation};
use rand::{Rng, RngCore, SeedableRng};
use rand_chacha::ChaCha20Rng;
use std::collections::BTreeMap;

/// The crate's signature with the given 40 bytes of randomness.
fn crate_sign(sk: &[u8], rng40: &[u8; 40], ctx: &[u8], id: &[u8], hv: &[u8]) -> Vec<u8> {
    let logn = u32::from(sk[0] & 0x0F);
    let mut sig = vec![0; signature_size(logn)];
    let mut rng = Replay::new(rng40);
    let (ctx, id) = (DomainContext(ctx), HashIdentifier(id));
    let done = if logn >= 9 {
        SigningKeyStandard::decode(sk).expect("crate key").sign(&mut rng, &ctx, &id, hv, &mut sig)
    } else {
        SigningKeyWeak::decode(sk).expect("crate key").sign(&mut rng, &ctx, &id, hv, &mut sig)
    };
    done.expect("crate signs");
    sig
}

fn crate_verify(vk: &[u8], sig: &[u8], ctx: &[u8], id: &[u8], hv: &[u8]) -> bool {
    let (ctx, id) = (DomainContext(ctx), HashIdentifier(id));
    if vk[0] >= 9 {
        VerifyingKeyStandard::decode(vk).expect("crate vk").verify(sig, &ctx, &id, hv)
    } else {
        VerifyingKeyWeak::decode(vk).expect("crate vk").verify(sig, &ctx, &id, hv)
    }
}

fn reference() -> ReferenceKernels {
    ReferenceKernels::default()
}

// ---------------------------------------------------------------------------------------------------------------
// Known answers

/// The published signature KAT values (`vectors/fndsa.kat`, suite `fndsa`), by (logn, j).
fn kat_value(logn: u32, j: u32) -> String {
    let want = format!("fndsa logn{logn}-j{j} ");
    let line = include_str!("../../vectors/fndsa.kat").lines().find(|l| l.starts_with(&want)).expect("KAT entry");
    line.rsplit_once("value=").expect("value field").1.to_owned()
}

/// Keys from the crate's keygen, signatures from ours: signing checked on its own, apart from our key generation
/// (`fndsa_kat.rs` runs the same KAT with ours end to end).
#[test]
fn signature_kat() {
    for logn in 2..=10u32 {
        for j in 0..10u32 {
            // seed = logn || j (LE); SHAKE256(seed) -> seed_kgen (32) || seed_sign (40).
            let mut seed = vec![logn as u8];
            seed.extend_from_slice(&j.to_le_bytes());
            let mut stream = [0u8; 72];
            keccak::shake256(&seed, &mut stream);
            let seed_kgen: [u8; 32] = stream[..32].try_into().unwrap();
            let seed_sign: [u8; 40] = stream[32..].try_into().unwrap();
            let (sk, vk) = crate_keygen(logn, &seed_kgen);

            let key = SigningKey::decode(&sk).expect("our decoding of the crate's key");
            assert_eq!(key.verifying_key(), &vk[..], "recomputed vk, logn {logn} j {j}");
            let (id, hv) = if j % 2 == 0 {
                (HashId::RAW, b"message".to_vec())
            } else {
                (HashId::SHA3_256, keccak::sha3_256(b"message").to_vec())
            };
            let sig = key.sign(&mut reference(), &seed_sign, b"domain", id, &hv).expect("our signature");
            let mut all = sk.clone();
            all.extend_from_slice(&vk);
            all.extend_from_slice(&sig);
            assert_eq!(hex::encode(keccak::sha3_256(&all)), kat_value(logn, j), "logn {logn} j {j}");
        }
    }
}

// ---------------------------------------------------------------------------------------------------------------
// Differential signing

/// `keys` random key pairs at logn, `per_key` random signatures each (fresh randomness, message, context, and hash
/// id raw, SHA3-256 or external mu); ours must equal the crate's byte for byte and verify with the crate's verifier.
fn differential(logn: u32, keys: usize, per_key: usize, seed: u64) {
    let mut rng = ChaCha20Rng::seed_from_u64(seed);
    for _ in 0..keys {
        let mut seed_kgen = [0u8; 32];
        rng.fill_bytes(&mut seed_kgen);
        let (sk, vk) = crate_keygen(logn, &seed_kgen);
        let key = SigningKey::decode(&sk).expect("our decoding of the crate's key");
        assert_eq!(key.verifying_key(), &vk[..]);
        let our_vk = VerifyingKey::decode(&vk).unwrap();
        for case in 0..per_key {
            let mut rng40 = [0u8; 40];
            rng.fill_bytes(&mut rng40);
            let mut ctx = vec![0; rng.gen_range(0..=40)];
            rng.fill_bytes(&mut ctx);
            let mut msg = vec![0; rng.gen_range(0..=200)];
            rng.fill_bytes(&mut msg);
            let (id, hv) = match case % 3 {
                0 => (HashId::RAW, msg),
                1 => (HashId::SHA3_256, keccak::sha3_256(&msg).to_vec()),
                _ => {
                    let mu = fndsa::compute_mu(our_vk.hashed(), &ctx, HashId::RAW, &msg).unwrap();
                    (HashId::EXTERNAL_MU, mu.to_vec())
                }
            };
            let theirs = crate_sign(&sk, &rng40, &ctx, id.0, &hv);
            let ours = key.sign(&mut reference(), &rng40, &ctx, id, &hv).expect("our signature");
            assert!(ours == theirs, "logn {logn}: signature differs (kgen seed {seed_kgen:02x?}, rng {rng40:02x?})");
            assert!(crate_verify(&vk, &ours, &ctx, id.0, &hv), "crate rejects our signature");
        }
    }
}

#[test]
fn differential_logn9() {
    differential(9, 50, 4, 9);
}

#[test]
fn differential_logn10() {
    differential(10, 40, 5, 10);
}

#[test]
fn differential_small_degrees() {
    for logn in 2..=8 {
        differential(logn, 15, 2, u64::from(logn));
    }
}

// ---------------------------------------------------------------------------------------------------------------
// Signing-key encoding

fn sample_key(logn: u32) -> Vec<u8> {
    let mut seed = [0u8; 32];
    seed[0] = logn as u8;
    crate_keygen(logn, &seed).0
}

#[test]
fn signing_key_codec_roundtrip() {
    for logn in 2..=10 {
        let sk = sample_key(logn);
        assert_eq!(sk.len(), fndsa::signing_key_size(logn));
        let parts = codec::decode_signing_key(&sk).unwrap();
        assert_eq!(parts.logn, logn);
        let again = fndsa::encode_signing_key(logn, &parts.f, &parts.g, &parts.big_f, &parts.hashed_vk).unwrap();
        assert_eq!(again, sk);
        assert_eq!(SigningKey::decode(&sk).unwrap().encode(), sk);
    }
}

/// Ours rejects with the given error, and the crate rejects too.
fn rejects(sk: &[u8], want: Error) {
    assert_eq!(SigningKey::decode(sk).err(), Some(want));
    let accepted = if sk.first().is_some_and(|&h| h & 0x0F >= 9) {
        SigningKeyStandard::decode(sk).is_some()
    } else {
        SigningKeyWeak::decode(sk).is_some()
    };
    assert!(!accepted, "the crate accepts a key we reject");
}

#[test]
fn malformed_signing_keys() {
    let sk = sample_key(9);
    rejects(&[], Error::Empty);
    for head in [0x09, 0x39, 0x69, 0xD9] {
        let mut bad = sk.clone();
        bad[0] = head;
        rejects(&bad, Error::SigningKeyHeader(head));
    }
    for logn in [0u32, 1, 11, 15] {
        let mut bad = sk.clone();
        bad[0] = 0x50 + logn as u8;
        rejects(&bad, Error::UnsupportedDegree(logn));
    }
    let expected = sk.len();
    rejects(&sk[..expected - 1], Error::Length { got: expected - 1, expected });
    let mut longer = sk.clone();
    longer.push(0);
    rejects(&longer, Error::Length { got: expected + 1, expected });

    // f at logn 9 is on 6 bits: f[0] is the low 6 bits of byte 1; 0b100000 is -32, the reserved value.
    let mut bad = sk.clone();
    bad[1] = (bad[1] & 0xC0) | 0x20;
    rejects(&bad, Error::ForbiddenValue { poly: KeyPoly::F, index: 0, bits: 6 });
    // g[1]: bits 6..12 of the g area (g starts after 384 bytes of f).
    let mut bad = sk.clone();
    let g0 = 1 + 384;
    bad[g0] &= 0x3F;
    bad[g0 + 1] = (bad[g0 + 1] & 0xF0) | 0x08;
    rejects(&bad, Error::ForbiddenValue { poly: KeyPoly::G, index: 1, bits: 6 });
    // F on 8 bits: byte 0x80 is -128.
    let mut bad = sk.clone();
    bad[1 + 2 * 384 + 5] = 0x80;
    rejects(&bad, Error::ForbiddenValue { poly: KeyPoly::BigF, index: 5, bits: 8 });

    // f = 0 is not invertible.
    let parts = codec::decode_signing_key(&sk).unwrap();
    let zero = vec![0i8; 512];
    let bad = fndsa::encode_signing_key(9, &zero, &parts.g, &parts.big_f, &parts.hashed_vk).unwrap();
    rejects(&bad, Error::NotInvertible);
    // A valid f with an unrelated F: G = gF/f mod q is then spread over all of Z_q.
    let mut big_f = parts.big_f.clone();
    big_f[0] = big_f[0].wrapping_add(1).max(-127);
    let bad = fndsa::encode_signing_key(9, &parts.f, &parts.g, &big_f, &parts.hashed_vk).unwrap();
    // (Not compared with the crate: its AVX2 decoder, the one used on this host, never rejects G; its range test
    // looks at bit 15 of values below 2^14. Its portable decoder, used on every other target, rejects as we do.)
    match SigningKey::decode(&bad) {
        Err(Error::BigGOutOfRange { value, .. }) => assert!(!(-127..=127).contains(&value)),
        other => panic!("expected BigGOutOfRange, got {other:?}"),
    }

    // The encoder refuses what the decoder would refuse.
    let mut f = parts.f.clone();
    f[7] = -32;
    assert_eq!(
        fndsa::encode_signing_key(9, &f, &parts.g, &parts.big_f, &parts.hashed_vk),
        Err(Error::SmallCoefficientRange { poly: KeyPoly::F, index: 7, value: -32, bits: 6 })
    );
    let mut big_f = parts.big_f.clone();
    big_f[3] = -128;
    assert_eq!(
        fndsa::encode_signing_key(9, &parts.f, &parts.g, &big_f, &parts.hashed_vk),
        Err(Error::SmallCoefficientRange { poly: KeyPoly::BigF, index: 3, value: -128, bits: 8 })
    );
}

#[test]
fn sign_rejects_bad_inputs() {
    let key = SigningKey::decode(&sample_key(9)).unwrap();
    let rng40 = [7u8; 40];
    assert_eq!(key.sign(&mut reference(), &rng40, &[0; 256], HashId::RAW, b"m"), Err(Error::ContextTooLong(256)));
    assert_eq!(
        key.sign(&mut reference(), &rng40, b"", HashId::EXTERNAL_MU, &[0; 63]),
        Err(Error::ExternalMuLength(63))
    );
}

// ---------------------------------------------------------------------------------------------------------------
// The FP64 kernel seam

/// Wraps the reference kernels: counts calls per kernel, and optionally flips the lowest bit of output element 0 of
/// one call of one kernel.
#[derive(Default)]
struct Probe {
    inner: fpu::Reference,
    calls: BTreeMap<&'static str, usize>,
    flip: Option<(&'static str, usize)>,
    /// Every Bernoulli exponent huge: the sampler rejects every candidate.
    reject_all: bool,
}

impl Probe {
    /// Counts the call; true if this is the one whose output must be corrupted.
    fn hit(&mut self, name: &'static str) -> bool {
        let count = self.calls.entry(name).or_default();
        *count += 1;
        self.flip == Some((name, *count - 1))
    }
}

fn flip_f64(x: &mut f64) {
    *x = f64::from_bits(x.to_bits() ^ 1);
}

macro_rules! probe_slice_kernel {
    ($name:ident, $out:ident, ($($arg:ident: $ty:ty),*)) => {
        fn $name(&mut self, logn: u32, $($arg: $ty),*) {
            let flip = self.hit(stringify!($name));
            self.inner.$name(logn, $($arg),*);
            if flip {
                flip_f64(&mut $out[0]);
            }
        }
    };
}

impl FpuKernels for Probe {
    probe_slice_kernel!(fft, f, (f: &mut [f64]));
    probe_slice_kernel!(ifft, f, (f: &mut [f64]));
    probe_slice_kernel!(set_small, d, (d: &mut [f64], s: &[i32]));
    probe_slice_kernel!(add, a, (a: &mut [f64], b: &[f64]));
    probe_slice_kernel!(sub, a, (a: &mut [f64], b: &[f64]));
    probe_slice_kernel!(neg, a, (a: &mut [f64]));
    probe_slice_kernel!(mulconst, a, (a: &mut [f64], c: f64));
    probe_slice_kernel!(mul_fft, a, (a: &mut [f64], b: &[f64]));
    probe_slice_kernel!(muladj_fft, a, (a: &mut [f64], b: &[f64]));
    probe_slice_kernel!(mulownadj_fft, a, (a: &mut [f64]));
    probe_slice_kernel!(ldl_fft, g11, (g00: &[f64], g01: &mut [f64], g11: &mut [f64]));
    probe_slice_kernel!(split_fft, f0, (f0: &mut [f64], f1: &mut [f64], f: &[f64]));
    probe_slice_kernel!(split_selfadj_fft, f0, (f0: &mut [f64], f1: &mut [f64], f: &[f64]));
    probe_slice_kernel!(merge_fft, f, (f: &mut [f64], f0: &[f64], f1: &[f64]));

    fn round(&mut self, logn: u32, f: &[f64], d: &mut [i64]) {
        let flip = self.hit("round");
        self.inner.round(logn, f, d);
        if flip {
            d[0] ^= 1;
        }
    }

    fn leaf_sigma(&mut self, d: f64, inv_sigma: f64) -> f64 {
        let flip = self.hit("leaf_sigma");
        let mut r = self.inner.leaf_sigma(d, inv_sigma);
        if flip {
            flip_f64(&mut r);
        }
        r
    }

    fn sampler_centre(&mut self, mu: f64, isigma: f64, sigma_min: f64) -> SamplerCentre {
        let flip = self.hit("sampler_centre");
        let mut c = self.inner.sampler_centre(mu, isigma, sigma_min);
        if flip {
            c.s ^= 1;
        }
        c
    }

    fn sampler_exponent(&mut self, centre: &SamplerCentre, z: i32, z0: i32) -> BerExponent {
        let flip = self.hit("sampler_exponent");
        let mut e = self.inner.sampler_exponent(centre, z, z0);
        if flip {
            e.k ^= 1;
        }
        if self.reject_all {
            e.k = 1 << 20;
        }
        e
    }
}

fn probe_kernels(flip: Option<(&'static str, usize)>) -> Kernels<fndsa::Reference, Probe, (), ReferencePermutation> {
    Kernels { fpu: Probe { flip, ..Probe::default() }, ..Default::default() }
}

#[test]
fn signing_goes_through_every_fp_kernel() {
    let (sk, vk) = crate_keygen(9, &[3; 32]);
    let rng40 = [9u8; 40];
    let expected = crate_sign(&sk, &rng40, b"ctx", HashId::RAW.0, b"seam");

    // Decoding (basis) and signing both run on the probe; the result is the crate's signature.
    let mut k = probe_kernels(None);
    let key = SigningKey::decode_with(&mut k, &sk).unwrap();
    let sig = key.sign(&mut k, &rng40, b"ctx", HashId::RAW, b"seam").unwrap();
    assert_eq!(sig, expected);
    let names = [
        "fft",
        "ifft",
        "set_small",
        "round",
        "add",
        "sub",
        "neg",
        "mulconst",
        "mul_fft",
        "muladj_fft",
        "mulownadj_fft",
        "ldl_fft",
        "split_fft",
        "split_selfadj_fft",
        "merge_fft",
        "leaf_sigma",
        "sampler_centre",
        "sampler_exponent",
    ];
    for name in names {
        assert!(k.fpu.calls.get(name).copied().unwrap_or(0) > 0, "kernel {name} never called");
    }
    // One Gaussian sample per coefficient of (t0, t1) at least, and one LDL per node of the tree.
    assert!(k.fpu.calls["sampler_centre"] >= 1024);
    assert_eq!(k.fpu.calls["ldl_fft"], 511 * (k.fpu.calls["ifft"] / 2));

    // A corrupted output of one kernel call changes the signature (and, for s2, breaks it).
    let key = SigningKey::decode(&sk).unwrap();
    let cases: [(&str, usize, bool); 2] = [
        // The second rounding is s2: off by one, the signature no longer verifies.
        ("round", 1, false),
        // floor(mu) of the first Gaussian sample: a different lattice point.
        ("sampler_centre", 0, true),
    ];
    for (name, call, may_verify) in cases {
        let mut k = probe_kernels(Some((name, call)));
        let sig = key.sign(&mut k, &rng40, b"ctx", HashId::RAW, b"seam").unwrap();
        assert_ne!(sig, expected, "flipping {name} call {call} changed nothing");
        let verifies = crate_verify(&vk, &sig, b"ctx", HashId::RAW.0, b"seam");
        assert!(may_verify || !verifies, "flipping {name} call {call}: the signature still verifies");
    }
}

#[test]
fn a_sampler_that_rejects_every_candidate_ends_in_an_error_not_a_loop() {
    let (sk, _) = crate_keygen(9, &[3; 32]);
    let key = SigningKey::decode(&sk).unwrap();
    let mut k = probe_kernels(None);
    k.fpu.reject_all = true;
    let signed = key.sign(&mut k, &[9; 40], b"ctx", HashId::RAW, b"m");
    assert_eq!(signed, Err(Error::SamplerFailed(fndsa::sampler::MAX_REJECTIONS)));
    assert_eq!(k.fpu.calls["sampler_exponent"], fndsa::sampler::MAX_REJECTIONS as usize);
}

// ---------------------------------------------------------------------------------------------------------------
// FP kernels against mathematics

/// The crate's check_GM test value: SHAKE256 (32 bytes) of the 2048 table entries, each as little-endian binary64.
#[test]
fn twiddle_table_is_the_crates() {
    let bytes: Vec<u8> = fpu::gm().iter().flat_map(|x| x.to_le_bytes()).collect();
    let mut h = [0u8; 32];
    keccak::shake256(&bytes, &mut h);
    assert_eq!(hex::encode(h), "f45a496cf56ccc6e3e3395a20209206d81d71a7905a661447bd5bc0e24e0af1e");
    // And each entry is the root it claims to be: cos^2 + sin^2 = 1 and the angle is pi rev10(k)/1024.
    let t = fpu::gm();
    for k in 2..1024usize {
        let (c, s) = (t[2 * k], t[2 * k + 1]);
        assert!((c * c + s * s - 1.0).abs() < 1e-15);
        let angle = std::f64::consts::PI * ((k as u32).reverse_bits() >> 22) as f64 / 1024.0;
        assert!((s.atan2(c) - angle).abs() < 1e-14, "entry {k}");
    }
}

/// Naive negacyclic product of two real polynomials.
fn negacyclic(a: &[f64], b: &[f64]) -> Vec<f64> {
    let n = a.len();
    let mut c = vec![0.0; n];
    for i in 0..n {
        for j in 0..n {
            let p = a[i] * b[j];
            if i + j < n { c[i + j] += p } else { c[i + j - n] -= p }
        }
    }
    c
}

#[test]
fn fft_kernels_against_mathematics() {
    let mut rng = ChaCha20Rng::seed_from_u64(5);
    let mut k = fpu::Reference;
    for logn in 1..=10u32 {
        let n = 1usize << logn;
        let small = |rng: &mut ChaCha20Rng| (0..n).map(|_| rng.gen_range(-200..=200)).collect::<Vec<i32>>();
        let (a, b) = (small(&mut rng), small(&mut rng));
        let (mut fa, mut fb) = (vec![0.0; n], vec![0.0; n]);
        k.set_small(logn, &mut fa, &a);
        k.set_small(logn, &mut fb, &b);
        let (ra, rb) = (fa.clone(), fb.clone());

        // iFFT(FFT(a)) == a.
        k.fft(logn, &mut fa);
        k.fft(logn, &mut fb);
        let mut back = fa.clone();
        k.ifft(logn, &mut back);
        for (x, y) in back.iter().zip(&ra) {
            assert!((x - y).abs() < 1e-9, "logn {logn}: iFFT(FFT(a)) != a");
        }

        // FFT turns the negacyclic product into the pointwise one.
        let mut prod = fa.clone();
        k.mul_fft(logn, &mut prod, &fb);
        k.ifft(logn, &mut prod);
        for (x, y) in prod.iter().zip(negacyclic(&ra, &rb)) {
            assert!((x - y).abs() < 1e-6, "logn {logn}: FFT product");
        }
        // a adj(a) is self-adjoint with FFT value |a(w)|^2.
        let mut own = fa.clone();
        k.mulownadj_fft(logn, &mut own);
        let mut adj = fa.clone();
        k.muladj_fft(logn, &mut adj, &fa);
        for i in 0..n / 2 {
            assert!((own[i] - adj[i]).abs() <= 1e-9 * own[i].abs().max(1.0));
            assert_eq!(own[i + n / 2], 0.0);
        }

        if logn >= 2 {
            // split: f(x) = f0(x^2) + x f1(x^2): FFT of the even and odd coefficients; merge(split(f)) == f.
            let hn = n / 2;
            let (mut f0, mut f1) = (vec![0.0; hn], vec![0.0; hn]);
            k.split_fft(logn, &mut f0, &mut f1, &fa);
            for (part, offset) in [(&f0, 0), (&f1, 1)] {
                let mut coeffs = part.clone();
                k.ifft(logn - 1, &mut coeffs);
                for (i, x) in coeffs.iter().enumerate() {
                    assert!((x - f64::from(a[2 * i + offset])).abs() < 1e-9, "logn {logn}: split");
                }
            }
            let mut merged = vec![0.0; n];
            k.merge_fft(logn, &mut merged, &f0, &f1);
            for (x, y) in merged.iter().zip(&fa) {
                assert!((x - y).abs() < 1e-9 * y.abs().max(1.0), "logn {logn}: merge(split(f)) != f");
            }
            // The self-adjoint split agrees with the general one on a self-adjoint input.
            let (mut s0, mut s1) = (vec![0.0; hn], vec![0.0; hn]);
            k.split_selfadj_fft(logn, &mut s0, &mut s1, &own);
            k.split_fft(logn, &mut f0, &mut f1, &own);
            for i in 0..hn {
                assert!((s0[i] - f0[i]).abs() <= 1e-9 * f0[i].abs().max(1.0));
                assert!((s1[i] - f1[i]).abs() <= 1e-9 * f1[i].abs().max(1.0));
            }
        }

        // LDL: with g00 = a adj(a), g01 = a adj(b), g11 = b adj(b): D11 = g11 - |g01|^2/g00 and L10 g00 = adj(g01).
        let g00 = own.clone();
        let mut g01 = fa.clone();
        k.muladj_fft(logn, &mut g01, &fb);
        let mut g11 = fb.clone();
        k.mulownadj_fft(logn, &mut g11);
        let (g01_in, g11_in) = (g01.clone(), g11.clone());
        k.ldl_fft(logn, &g00, &mut g01, &mut g11);
        let hn = n / 2;
        for i in 0..hn {
            let norm = g01_in[i] * g01_in[i] + g01_in[i + hn] * g01_in[i + hn];
            let scale = g11_in[i].abs().max(1.0);
            assert!((g11[i] - (g11_in[i] - norm / g00[i])).abs() < 1e-9 * scale);
            assert!((g01[i] * g00[i] - g01_in[i]).abs() < 1e-9 * g01_in[i].abs().max(1.0));
            assert!((g01[i + hn] * g00[i] + g01_in[i + hn]).abs() < 1e-9 * g01_in[i + hn].abs().max(1.0));
        }
    }
}
