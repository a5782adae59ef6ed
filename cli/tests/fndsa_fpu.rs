//! The FN-DSA signing FP64 kernels as object code (`kernels/arm/fndsa_fpu/`), native FP64 and on the soft-float:
//!
//! - every kernel of `registry::fndsa_fpu`, both variants, == `fpu::Reference` bit for bit on unicorn (M7 image) and
//!   QEMU (M55 image), edge cases first (checked two ways: the reference's order of operations is the definition);
//! - kernel-level mathematics on the object code's outputs (split/merge, LDL, floor, the Bernoulli exponent);
//! - a reference with one operation reordered, or one bit flipped, is caught; a guest fault inside signing fails the
//!   signature with the fault's details;
//! - the fn-dsa 0.4.0 signature KAT (logn 9 and 10, all 10 entries each) with every signing FP kernel provided by
//!   object code: native under unicorn, native under QEMU, soft-float under unicorn, soft-float under QEMU.

use pqhelium_core::fndsa::fpu::{FpuKernels, LOG2, Reference};
use pqhelium_engine::diff::{self, Campaign, Failure};
use pqhelium_families::fndsa_fpu::{self as contracts, Method, ROWS, row};
use pqhelium_families::{self as registry, Outcome, case_rng};
use pqhelium_guest::backend::{Arg, Backend, BackendKind, Call, CallError, CallOutput, Limits};
use pqhelium_schemes::kat::fndsa_signature_kat;
use pqhelium_schemes::providers::fndsa_fpu::EmulatedFpu;

const SEED: u64 = 0xF964;
/// Cases per kernel, variant and emulated backend.
const CASES: u64 = 1000;

fn campaigns(id: &str) {
    for id in [id.to_string(), format!("{id}.emu")] {
        for backend in [BackendKind::Unicorn, BackendKind::Qemu] {
            diff::assert_campaign_passes(&id, backend, SEED, CASES);
        }
    }
}

#[test]
fn set_small_round_neg() {
    campaigns("fndsa.fpu.set_small");
    campaigns("fndsa.fpu.round");
    campaigns("fndsa.fpu.neg");
}

#[test]
fn add_sub_mulconst() {
    campaigns("fndsa.fpu.add");
    campaigns("fndsa.fpu.sub");
    campaigns("fndsa.fpu.mulconst");
}

#[test]
fn mul_muladj_mulownadj() {
    campaigns("fndsa.fpu.mul");
    campaigns("fndsa.fpu.muladj");
    campaigns("fndsa.fpu.mulownadj");
}

#[test]
fn ldl() {
    campaigns("fndsa.fpu.ldl");
}

#[test]
fn split_split_selfadj_merge() {
    campaigns("fndsa.fpu.split");
    campaigns("fndsa.fpu.split_selfadj");
    campaigns("fndsa.fpu.merge");
}

#[test]
fn leaf_sigma_sampler_centre_sampler_exponent() {
    campaigns("fndsa.fpu.leaf_sigma");
    campaigns("fndsa.fpu.sampler_centre");
    campaigns("fndsa.fpu.sampler_exponent");
}

#[test]
fn every_trait_method_has_a_registered_kernel_pair() {
    let ids: Vec<&str> = registry::matching("fndsa.fpu.*").iter().map(|k| k.id).collect();
    // The family's rows and the (i)FFT of the soft-float family, each native and `.emu`.
    assert_eq!(ids.len(), 2 * (ROWS.len() + 2), "{ids:?}");
    for row in ROWS {
        for emu in [false, true] {
            let spec = registry::all().find(|k| k.symbol == row.variant_symbol(emu)).expect("registered");
            let (found, variant) = contracts::row_of(spec.id).expect("a row");
            assert!(std::ptr::eq(found, row) && variant == emu, "{}", spec.id);
        }
    }
}

/// The edge cases hold what the contract promises: signed zeros, the extremes of the signing range, half-integers.
#[test]
fn edge_cases_cover_zeros_extremes_and_ties() {
    let values: Vec<f64> =
        (0..40).flat_map(|case| row(Method::Add).generate(case, &mut case_rng(SEED, case)).polys.concat()).collect();
    let has = |x: f64| values.iter().any(|v| v.to_bits() == x.to_bits());
    for x in [0.0, -0.0, 1.0, -1.0, 2f64.powi(-476), -2f64.powi(79), -0.5, 6.5, -7.5] {
        assert!(has(x), "add edge {x}");
    }
    let rounds: Vec<f64> =
        (0..40).flat_map(|case| row(Method::Round).generate(case, &mut case_rng(SEED, case)).polys.concat()).collect();
    for x in [0.5, -0.5, 2.5, -2.5, 4503599627370495.5, 2f64.powi(63), -2f64.powi(79)] {
        assert!(rounds.iter().any(|v| v.to_bits() == x.to_bits()), "round edge {x}");
    }
    for logn in 1..=10 {
        assert!((0..40).any(|case| row(Method::Ldl).generate(case, &mut case_rng(SEED, case)).logn == logn));
    }
}

fn unicorn_fpu(emu: bool) -> EmulatedFpu {
    EmulatedFpu::open(BackendKind::Unicorn, emu).expect("unicorn starts")
}

fn random_poly(rng: &mut impl rand::Rng, n: usize, scale: f64) -> Vec<f64> {
    (0..n).map(|_| rng.gen_range(-1.0..1.0) * scale).collect()
}

/// Mathematics on the object code's outputs: merge(split(f)) = f and the LDL factors rebuild the Gram matrix, up to
/// rounding (relative 2^-40); floor: s + r = mu with 0 <= r < 1; the exponent: k ln2 + rem = x with 0 <= rem < ln2.
#[test]
fn object_code_satisfies_the_mathematics() {
    use rand::Rng;
    let mut rng = case_rng(SEED, 1);
    for emu in [false, true] {
        let mut fpu = unicorn_fpu(emu);
        for logn in 1..=10u32 {
            let (n, hn) = (1usize << logn, 1usize << (logn - 1));
            let f = random_poly(&mut rng, n, 1000.0);
            let (mut f0, mut f1, mut back) = (vec![0.0; hn], vec![0.0; hn], vec![0.0; n]);
            fpu.split_fft(logn, &mut f0, &mut f1, &f);
            fpu.merge_fft(logn, &mut back, &f0, &f1);
            for (x, y) in f.iter().zip(&back) {
                assert!((x - y).abs() <= 1000.0 * 2f64.powi(-40), "logn {logn}: merge(split(f)) {y} != {x}");
            }
            // Gram matrix [[g00, g01], [adj g01, g11]] positive definite: g00, g11 > |g01|.
            let g01: Vec<f64> = random_poly(&mut rng, n, 10.0);
            let g00: Vec<f64> = (0..n).map(|i| if i < hn { 200.0 + rng.gen_range(0.0..100.0) } else { 0.0 }).collect();
            let g11 = g00.clone();
            let (mut l10, mut d11) = (g01.clone(), g11.clone());
            fpu.ldl_fft(logn, &g00, &mut l10, &mut d11);
            for i in 0..hn {
                // L10 = adj(g01 / g00): g00 * adj(L10) = g01, and D11 + |L10|^2 g00 = g11.
                let (re, im) = (l10[i] * g00[i], -l10[i + hn] * g00[i]);
                assert!((re - g01[i]).abs() < 1e-9 && (im - g01[i + hn]).abs() < 1e-9, "logn {logn} L10[{i}]");
                let rebuilt = d11[i] + (l10[i] * l10[i] + l10[i + hn] * l10[i + hn]) * g00[i];
                assert!((rebuilt - g11[i]).abs() < 1e-9, "logn {logn} D11[{i}]");
            }
        }
        for _ in 0..200 {
            let mu = rng.gen_range(-5000.0..5000.0);
            let isigma = rng.gen_range(0.55..0.8);
            let c = fpu.sampler_centre(mu, isigma, pqhelium_core::fndsa::sampler::SIGMA_MIN[10]);
            assert!(c.r >= 0.0 && c.r < 1.0 && f64::from(c.s) + c.r == mu, "centre of {mu}: {c:?}");
            assert_eq!(c.dss, isigma * isigma / 2.0);
            let z0 = rng.gen_range(0..=18);
            let b = rng.gen_range(0..=1);
            let z = b + (2 * b - 1) * z0;
            let e = fpu.sampler_exponent(&c, z, z0);
            let x = (f64::from(z) - c.r).powi(2) * c.dss - f64::from(z0 * z0) / (2.0 * 1.8205 * 1.8205);
            let rem = e.rem_fx as f64 / 2f64.powi(64);
            assert!((0.0..LOG2).contains(&rem), "rem {rem}");
            assert!((e.k as f64 * LOG2 + rem - x).abs() < 1e-9 * x.abs().max(1.0), "k {} rem {rem} x {x}", e.k);
        }
        fpu.check().expect("no failed call");
    }
}

/// One multiplication of the reference moved (|g01|^2 as two subtractions from g11 instead of one sum), or one bit of
/// a result flipped: the campaign reports mismatches, on the native and the soft-float code alike.
#[test]
fn a_wrong_reference_is_caught() {
    fn reordered_ldl(args: &[Arg]) -> Outcome {
        struct Reordered;
        impl Reordered {
            fn ldl(logn: u32, g00: &[f64], g01: &mut [f64], g11: &mut [f64]) {
                let hn = 1usize << (logn - 1);
                for i in 0..hn {
                    let (re, im) = (g01[i], g01[i + hn]);
                    let inv = 1.0 / g00[i];
                    let (mu_re, mu_im) = (re * inv, im * inv);
                    g11[i] = g11[i] - mu_re * re - mu_im * im;
                    g01[i] = mu_re;
                    g01[i + hn] = -mu_im;
                }
            }
        }
        // Both variants of ldl take the same arguments (no scalars).
        let input = row(Method::Ldl).input_of(false, args);
        let (mut g01, mut g11) = (input.polys[1].clone(), input.polys[2].clone());
        Reordered::ldl(input.logn, &input.polys[0], &mut g01, &mut g11);
        let bytes = |v: &[f64]| v.iter().flat_map(|x| x.to_bits().to_le_bytes()).collect::<Vec<u8>>();
        Outcome { buffers: vec![bytes(&g01), bytes(&g11)], ret: None }
    }
    fn flipped_mul(args: &[Arg]) -> Outcome {
        let mut o = row(Method::Mul).reference(false, args);
        o.buffers[0][0] ^= 1;
        o
    }
    type ReferenceFn = fn(&[Arg]) -> Outcome;
    let cases: [(&str, ReferenceFn); 3] =
        [("fndsa.fpu.ldl", reordered_ldl), ("fndsa.fpu.ldl.emu", reordered_ldl), ("fndsa.fpu.mul", flipped_mul)];
    for (id, wrong) in cases {
        let spec = registry::variant(id, |k| k.reference = Some(wrong));
        let campaign =
            Campaign { keep_going: true, shrink_budget: 0, ..Campaign::new(spec, BackendKind::Unicorn, SEED, 100, 1) };
        let result = diff::run(&campaign);
        assert_eq!(result.setup_error, None);
        assert!(
            result.failures.iter().any(|f| matches!(f.failure, Failure::Mismatch { .. })),
            "{id}: the object code agreed with a wrong reference"
        );
    }
    // And the same kernel against its true reference: no mismatch on those cases.
    assert!(
        diff::run(&Campaign::new(registry::find("fndsa.fpu.ldl").unwrap(), BackendKind::Unicorn, SEED, 100, 1))
            .passed()
    );
}

/// Forwards to a real backend but gives call number `at` a degree of 2^24 coefficients: the kernel runs off the
/// guest memory and faults.
struct FaultOnCall {
    inner: Box<dyn Backend>,
    calls: u64,
    at: u64,
}

impl Backend for FaultOnCall {
    fn name(&self) -> &'static str {
        "fault-injector"
    }
    fn run_batch(&mut self, calls: &[Call]) -> Vec<Result<CallOutput, CallError>> {
        let calls: Vec<Call> = calls
            .iter()
            .map(|c| {
                let mut c = c.clone();
                if self.calls == self.at {
                    for a in &mut c.args {
                        if let Arg::U32(logn) = a {
                            *logn = 24;
                        }
                    }
                }
                self.calls += 1;
                c
            })
            .collect();
        self.inner.run_batch(&calls)
    }
}

/// A guest fault in the middle of a signature is not swallowed: the signature fails, and the provider names the
/// kernel, the call and the fault.
#[test]
fn a_guest_fault_fails_the_signature_with_its_details() {
    let inner = BackendKind::Unicorn.open(Limits::default()).expect("unicorn starts");
    // Call 0 is the set_small of decoding the signing key (logn 9).
    let fpu = EmulatedFpu::new(Box::new(FaultOnCall { inner, calls: 0, at: 0 }), false);
    let (_, fpu) = fndsa_signature_kat(9, 0, fpu);
    let failure = fpu.failure().expect("the fault was recorded");
    assert_eq!(failure.symbol, "fndsa_fpu_set_small");
    assert_eq!(failure.call, 0);
    let text = fpu.check().unwrap_err();
    assert!(matches!(failure.error, CallError::Fault(_) | CallError::BufferOverrun { .. }), "not a fault: {text}");
    assert!(text.contains("fndsa_fpu_set_small"), "{text}");
}

/// The published values of the signature KAT (vectors/fndsa.kat, from fn-dsa 0.4.0's own test).
fn published(logn: u8, j: u8) -> String {
    let name = format!("logn{logn}-j{j} ");
    let line = include_str!("../../vectors/fndsa.kat")
        .lines()
        .find(|l| l.starts_with("fndsa ") && l[6..].starts_with(&name))
        .unwrap_or_else(|| panic!("no KAT entry {name}"));
    line.split_whitespace().find_map(|w| w.strip_prefix("value=")).expect("a value").to_string()
}

/// Signs the 20 entries of logn 9 and 10 with the kernels of `kind` (native or soft-float) and checks each against
/// the published value; returns the guest instructions per signature (the kernels' share: the provider's sum).
fn signature_kat(kind: BackendKind, emu: bool) -> Vec<(u8, u8, u64)> {
    let mut fpu = EmulatedFpu::open(kind, emu).expect("backend starts");
    let mut counts = Vec::new();
    for logn in [9u8, 10] {
        for j in 0..10u8 {
            fpu.reset_counts();
            let t = std::time::Instant::now();
            let (value, back) = fndsa_signature_kat(logn, j, fpu);
            fpu = back;
            eprintln!("{kind} emu={emu} logn {logn} j {j}: {:?}", t.elapsed());
            if let Err(e) = fpu.check() {
                panic!("logn {logn} j {j} on {kind} (emu {emu}): kernel call failed: {e}");
            }
            let value = value.unwrap_or_else(|e| panic!("logn {logn} j {j}: {e}"));
            assert_eq!(hex::encode(value), published(logn, j), "logn {logn} j {j} on {kind} (emu {emu})");
            counts.push((logn, j, fpu.instructions()));
        }
    }
    let calls: u64 = fpu.counts().values().map(|c| c.calls).sum();
    assert!(calls > 1000, "the kernels ran ({calls} calls in the last signature)");
    eprintln!("{kind} emu={emu}: instructions per signature (decode + sign) {counts:?}");
    for (symbol, c) in fpu.counts() {
        eprintln!("{kind} emu={emu} logn 10 j 9: {symbol} {} calls, {} instructions", c.calls, c.instructions);
    }
    counts
}

#[test]
fn signature_kat_native_unicorn() {
    signature_kat(BackendKind::Unicorn, false);
}

#[test]
fn signature_kat_native_qemu() {
    signature_kat(BackendKind::Qemu, false);
}

#[test]
fn signature_kat_emu_unicorn() {
    signature_kat(BackendKind::Unicorn, true);
}

#[test]
fn signature_kat_emu_qemu() {
    signature_kat(BackendKind::Qemu, true);
}

/// The reference itself through the same entry point (a sanity check of the harness, and of the published values).
#[test]
fn signature_kat_reference() {
    for logn in [9u8, 10] {
        for j in 0..10u8 {
            let (value, _) = fndsa_signature_kat(logn, j, Reference);
            assert_eq!(hex::encode(value.unwrap()), published(logn, j));
        }
    }
}

/// Instructions per kernel call at logn 9 and 10 (the scalar kernels: one call), native FP64 against the soft-float,
/// on both backends: the two variants give the same bits, and native FP64 executes fewer instructions.
#[test]
fn instructions_per_kernel_call_native_against_soft_float() {
    use rand::Rng;
    let mut rng = case_rng(SEED, 2);
    let mut fpus: Vec<(BackendKind, EmulatedFpu, EmulatedFpu)> = [BackendKind::Unicorn, BackendKind::Qemu]
        .into_iter()
        .map(|kind| (kind, EmulatedFpu::open(kind, false).unwrap(), EmulatedFpu::open(kind, true).unwrap()))
        .collect();
    let centre = Reference.sampler_centre(12.375, 0.6, pqhelium_core::fndsa::sampler::SIGMA_MIN[10]);
    for row in ROWS {
        let method = row.method;
        let scalar = matches!(method, Method::LeafSigma | Method::SamplerCentre | Method::SamplerExponent);
        for logn in if scalar { vec![0] } else { vec![9, 10] } {
            let n = 1usize << logn;
            let value =
                |rng: &mut pqhelium_families::CaseRng| rng.gen_range(-1.0..1.0) * 2f64.powi(rng.gen_range(-20..20));
            let mut input = contracts::Input { logn, ..Default::default() };
            match method {
                Method::SetSmall => input.ints = (0..n).map(|_| rng.gen_range(-127..=127)).collect(),
                Method::LeafSigma => input.scalars = vec![rng.gen_range(1.0..100.0), 0.0059],
                Method::SamplerCentre => input.scalars = vec![value(&mut rng), 0.6, 1.27],
                Method::SamplerExponent => (input.ints, input.centre) = (vec![-3, 3], Some(centre)),
                _ => {
                    let polys = match method {
                        Method::Round | Method::Neg | Method::MulOwnAdj | Method::Split | Method::SplitSelfadj => 1,
                        Method::Ldl => 3,
                        _ => 2,
                    };
                    let len = if method == Method::Merge { n / 2 } else { n };
                    input.polys = (0..polys).map(|_| (0..len).map(|_| value(&mut rng)).collect()).collect();
                    if method == Method::Ldl {
                        input.polys[0].iter_mut().for_each(|x| *x = x.abs() + 1.0);
                    }
                    if method == Method::MulConst {
                        input.scalars = vec![1.0 / 12289.0];
                    }
                }
            }
            for (kind, native, soft) in &mut fpus {
                native.reset_counts();
                soft.reset_counts();
                let a = row.run(native, &input);
                let b = row.run(soft, &input);
                native.check().unwrap();
                soft.check().unwrap();
                assert_eq!(a, b, "{method:?} logn {logn} on {kind}: native and soft-float differ");
                assert_eq!(a, row.run(&mut Reference, &input), "{method:?} logn {logn} on {kind}");
                let (i_native, i_soft) = (native.instructions(), soft.instructions());
                eprintln!(
                    "| {} | {logn} | {kind} | {i_native} | {i_soft} | {:.1} |",
                    row.symbol,
                    i_soft as f64 / i_native as f64
                );
                assert!(i_native > 0 && i_native < i_soft, "{method:?} logn {logn} on {kind}: {i_native} >= {i_soft}");
            }
        }
    }
}
