//! The FN-DSA keygen division kernels (`kernels/arm/fndsa_keygen/div.c`, `div_scalar.c`): every kernel on every
//! backend, edge classes then random cases; a division with one correction step fewer is caught as a model and as
//! object code; the FPU division's machine code has no operand-dependent branch or IT block; a wrong or missing
//! kernel in the loop fails the key generation KAT (which passes with every provider: `kat`'s own test).

use std::sync::atomic::{AtomicU64, Ordering};

use pqhelium_engine::diff::{self, Campaign, Failure};
use pqhelium_families::{self as registry, Kernel, Outcome};
use pqhelium_guest::backend::{Arg, BackendKind};
use pqhelium_schemes::kat::{self, Extent, Provider};
use pqhelium_schemes::providers::fndsa_keygen::{FxpProvider, Op};
use pqhelium_schemes::providers::{Build, Engine};
use pqhelium_sim::fxp_div::{self, Corrections};

mod common;
use common::disassemble;

const SEED: u64 = 0x6B67;
/// Random cases after the edge cases, per kernel and backend.
const RANDOM_CASES: u64 = 300;

const DIVISION_KERNELS: [&str; 8] = [
    "fndsa.keygen.div",
    "fndsa.keygen.div_selfadj",
    "fndsa.keygen.invnorm",
    "fndsa.keygen.inv_mul2e",
    "fndsa.keygen.div.scalar",
    "fndsa.keygen.div_selfadj.scalar",
    "fndsa.keygen.invnorm.scalar",
    "fndsa.keygen.inv_mul2e.scalar",
];

fn kernel(id: &str) -> &'static Kernel {
    registry::find(id).unwrap_or_else(|| panic!("{id} is not registered"))
}

#[test]
fn every_division_kernel_passes_on_every_backend() {
    for id in DIVISION_KERNELS {
        let k = kernel(id);
        for backend in BackendKind::ALL {
            assert!(k.runs_on(backend), "{id} has no {backend} build");
            diff::assert_campaign_passes(id, backend, SEED, k.edge_cases + RANDOM_CASES);
        }
    }
}

/// The first failure of a campaign that must fail: a mismatch between `left` and `right`, among the edge cases.
fn assert_caught(k: &'static Kernel, backend: BackendKind, sides: (&str, &str)) {
    let result = diff::run(&Campaign::new(k, backend, SEED, k.edge_cases + RANDOM_CASES, 2));
    let first = result.failures.first().unwrap_or_else(|| panic!("{backend}: the wrong division went unnoticed"));
    let Failure::Mismatch { left, right, .. } = &first.failure else { panic!("{backend}: {:?}", first.failure) };
    assert_eq!((*left, *right), sides, "{backend}");
    assert!(first.case < k.edge_cases, "{backend}: first caught at random case {}", first.case);
}

fn words(arg: &Arg) -> Vec<u64> {
    let (Arg::In(b) | Arg::InOut(b)) = arg else { panic!("{arg:?}") };
    b.chunks_exact(8).map(|c| u64::from_le_bytes(c.try_into().unwrap())).collect()
}

fn div_with(args: &[Arg], corrections: Corrections) -> Outcome {
    let (x, y) = (words(&args[1]), words(&args[2]));
    let q: Vec<u8> = x.iter().zip(&y).flat_map(|(&x, &y)| fxp_div::div_with(x, y, corrections).to_le_bytes()).collect();
    Outcome { buffers: vec![q], ret: None }
}

/// The model with either correction step left out disagrees with the reference on the edge cases.
#[test]
fn a_model_with_one_correction_fewer_is_caught() {
    let without_high = registry::variant("fndsa.keygen.div", |k| {
        k.model = Some(|args| div_with(args, Corrections { high: false, low: true }))
    });
    let without_low = registry::variant("fndsa.keygen.div", |k| {
        k.model = Some(|args| div_with(args, Corrections { high: true, low: false }))
    });
    for wrong in [without_high, without_low] {
        assert_caught(wrong, BackendKind::Model, ("reference", "canon(model)"));
    }
}

/// Object code with the low digit's correction left out (`kernels/arm/selftest/keygen_div_mutant.c`) disagrees with
/// the model on the edge cases, on both emulators.
#[test]
fn object_code_with_one_correction_fewer_is_caught() {
    let wrong =
        registry::variant("fndsa.keygen.div", |k| k.symbol = Some("pqh_selftest_keygen_div_one_correction_fewer"));
    for backend in [BackendKind::Qemu, BackendKind::Unicorn] {
        assert_caught(wrong, backend, ("model", backend.name()));
    }
}

const CONDITIONS: [&str; 14] = ["eq", "ne", "cs", "hs", "cc", "lo", "mi", "pl", "vs", "vc", "hi", "ls", "ge", "lt"];
const MORE_CONDITIONS: [&str; 2] = ["gt", "le"];

/// Whether the instruction may branch depending on a condition: b<cond>, cbz/cbnz, the low-overhead loop branches
/// (wls, le and their tail-predicated forms).
fn is_conditional_branch(mnemonic: &str) -> bool {
    let base = mnemonic.split('.').next().unwrap();
    let cond = base.strip_prefix('b').filter(|c| CONDITIONS.contains(c) || MORE_CONDITIONS.contains(c));
    cond.is_some() || matches!(base, "cbz" | "cbnz" | "wls" | "wlstp" | "le" | "letp")
}

/// The branch target: the first hexadecimal operand word (`bne.n 1c <f+0x1c>`, `le lr, 52 <f+0x52>`).
fn target(operands: &str) -> u64 {
    let word = operands.split([',', ' ']).map(str::trim).find(|w| u64::from_str_radix(w, 16).is_ok() && !w.is_empty());
    u64::from_str_radix(word.unwrap_or_else(|| panic!("no target in {operands}")), 16).unwrap()
}

/// The FPU division is straight-line code in every image (gcc for the M55 and the M7, clang for the M85): no IT block, no branch or loop, no call, and memory accesses only to the
/// stack and the literal pool. The kernels around it branch only backwards (their loops over logn-many slots or the
/// fixed batch), have no IT block, and call nothing but the division.
#[test]
fn the_division_has_no_operand_dependent_branch_or_address() {
    for image in [pqhelium_kernels::M55_IMAGE, pqhelium_kernels::M85_IMAGE, pqhelium_kernels::M7_IMAGE] {
        let functions = disassemble(image.elf, None);
        let division = &functions["fndsa_fxr_div"];
        assert!(division.len() > 50, "{}: {} instructions", image.name, division.len());
        for i in division {
            let what = format!("{}: fndsa_fxr_div+{:#x}: {} {}", image.name, i.address, i.mnemonic, i.operands);
            assert!(!i.mnemonic.starts_with("it"), "{what}");
            assert!(!is_conditional_branch(&i.mnemonic), "{what}");
            assert!(!i.mnemonic.starts_with("bl"), "{what}");
            let memory =
                i.mnemonic.starts_with("ldr") || i.mnemonic.starts_with("vldr") || i.mnemonic.starts_with("str");
            assert!(!memory || i.operands.contains("[pc") || i.operands.contains("[sp"), "{what}");
        }
        let division_address = division[0].address;
        for name in ["fndsa_keygen_div", "fndsa_keygen_div_selfadj", "fndsa_keygen_invnorm", "fndsa_keygen_inv_mul2e"] {
            let code = functions.get(name).unwrap_or_else(|| panic!("{}: no {name}", image.name));
            let calls = code.iter().filter(|i| i.mnemonic == "bl").count();
            assert!(calls > 0, "{}: {name} calls no division", image.name);
            for i in code {
                let what = format!("{}: {name}+{:#x}: {} {}", image.name, i.address, i.mnemonic, i.operands);
                assert!(!i.mnemonic.starts_with("it"), "{what}");
                if is_conditional_branch(&i.mnemonic) {
                    assert!(target(&i.operands) < i.address, "forward: {what}");
                }
                if i.mnemonic == "bl" {
                    assert_eq!(target(&i.operands), division_address, "{what}");
                }
            }
        }
    }
}

#[test]
fn the_scan_recognises_conditional_branches() {
    for m in ["bne.n", "beq", "bge.w", "ble", "cbz", "cbnz", "wls", "le", "letp"] {
        assert!(is_conditional_branch(m), "{m}");
    }
    for m in ["b.n", "bl", "bx", "bic.w", "bics", "blx", "lsls", "ldrd", "dls"] {
        assert!(!is_conditional_branch(m), "{m}");
    }
    assert_eq!(target("1c <fndsa_keygen_div_selfadj+0x1c>"), 0x1c);
    assert_eq!(target("lr, 52 <fndsa_fxr_div_scalar+0x52>"), 0x52);
}

/// Key generation notices what its kernels compute: a division kernel that leaves its numerators as they are, on its
/// first call (a wrong division on every call can make key generation retry forever), fails the KAT entry.
#[test]
fn a_wrong_division_in_the_loop_fails_the_keygen_kat() {
    static CALLS: AtomicU64 = AtomicU64::new(0);
    let mut fxp = FxpProvider::new(Build::Mve, Engine::model());
    let first_wrong = registry::variant("fndsa.keygen.div_selfadj", |k| {
        k.model = Some(|args| {
            if CALLS.fetch_add(1, Ordering::Relaxed) > 0 {
                return registry::find("fndsa.keygen.div_selfadj").unwrap().expected(args);
            }
            let (Arg::InOut(a) | Arg::In(a)) = &args[0] else { panic!("{:?}", args[0]) };
            Outcome { buffers: vec![a.clone()], ret: None }
        })
    });
    fxp.rewire(Op::DivSelfadj, first_wrong);
    let run = kat::run_fndsa_keygen_with(Provider::Model, fxp, Extent::Only(&["logn8-test0"]));
    let [r] = run.results.as_slice() else { panic!("{:?}", run.results) };
    assert!(!r.passed && r.detail.contains("fgFG_sha256: expected"), "{}: {}", r.name, r.detail);
    assert!(CALLS.load(Ordering::Relaxed) > 1, "key generation went on after the wrong call");
}

/// A symbol missing from the image fails the entry with the emulator's error naming it, not a panic or a hang.
#[test]
fn a_missing_kernel_fails_the_keygen_kat_with_the_symbol() {
    for (provider, kind) in [(Provider::Qemu, BackendKind::Qemu), (Provider::Unicorn, BackendKind::Unicorn)] {
        let mut fxp = FxpProvider::open(kind).expect("the emulator starts");
        let id = fxp.kernel(Op::Invnorm).id;
        fxp.rewire(Op::Invnorm, registry::variant(id, |k| k.symbol = Some("pqh_no_such_kernel")));
        let fft = fxp.kernel(Op::Fft).symbol;
        let run = kat::run_fndsa_keygen_with(provider, fxp, Extent::Only(&["logn8-test0"]));
        let entry = run.results.iter().find(|r| r.name == "logn8-test0").expect("the entry ran");
        assert!(!entry.passed && entry.detail.contains("kernel call failed: pqh_no_such_kernel"), "{}", entry.detail);
        // The forward FFT served before the failed call; the failed call served nothing, and no kernel ran after it
        // (the divisions and the inverse FFT are first needed later).
        let unserved: Vec<&str> = run
            .results
            .iter()
            .filter(|r| r.detail.contains("was never called"))
            .map(|r| r.detail.split(' ').next().unwrap())
            .collect();
        assert!(unserved.len() == 4 && !unserved.contains(&fft), "{kind}: {:?}", run.results);
    }
}

/// Guest instructions a closure's calls executed on `fxp`.
fn instructions(fxp: &mut FxpProvider, calls: impl FnOnce(&mut FxpProvider)) -> u64 {
    let before = fxp.tally().instructions();
    calls(fxp);
    assert_eq!(fxp.tally().check(), Ok(()));
    fxp.tally().instructions() - before
}

/// Executed instructions on QEMU (docs/benchmarks.md), the Cortex-M55 kernels (MVE FFTs, FPU division) against the
/// portable baselines, both equal to the reference: per division (a 64-pair call), per call of each vector kernel at
/// logn 9 and 10 (on key generation vectors: FFTs of small polynomials), and of all the fixed-point kernels in whole
/// key generations (KAT entries). The counts do not depend on the data (no build has an operand-dependent branch).
#[test]
fn the_optimised_kernels_execute_fewer_instructions_than_the_baselines() {
    use pqhelium_core::fndsa::keygen::fxp::{self, FxpKernels, Reference};

    let open = |build| FxpProvider::new(build, Engine::open(BackendKind::Qemu).expect("QEMU starts"));
    let (mut fpu, mut bit) = (open(Build::Mve), open(Build::Scalar));
    for id in ["fndsa.keygen.div", "fndsa.keygen.div.scalar"] {
        let k = kernel(id);
        let mut engine = Engine::open(BackendKind::Qemu).expect("QEMU starts");
        let args = k.generate(k.edge_cases, &mut registry::case_rng(SEED, k.edge_cases));
        assert_eq!(engine.run(k, 0, args.clone()), Some(k.expected(&args)), "{id}");
        let registry::Len::Fixed(pairs) = k.args[0].len else { panic!("{id}: a fixed batch") };
        let per_division = engine.tally().instructions() as f64 / pairs as f64;
        eprintln!("{id}: {per_division:.1} instructions per division ({pairs} per call, loop included)");
    }
    for logn in [9u32, 10] {
        let n = 1usize << logn;
        let small = |seed: i32| -> Vec<u64> {
            let mut v: Vec<u64> = (0..n as i32).map(|i| fxp::from_i32((i * 7 + seed) % 11 - 5)).collect();
            Reference.fft(logn, &mut v);
            v
        };
        let (f, g) = (small(1), small(4));
        let mut norm = vec![0u64; n / 2];
        Reference.invnorm(logn, &mut norm, &f, &g, 0);
        let mut rows = Vec::new();
        for op in Op::ALL {
            let mut counts = [0u64; 2];
            let mut outputs: [Vec<u64>; 2] = Default::default();
            for (i, provider) in [&mut fpu, &mut bit].into_iter().enumerate() {
                let mut a = f.clone();
                counts[i] = instructions(provider, |p| match op {
                    Op::DivSelfadj => p.div_selfadj(logn, &mut a, &norm),
                    Op::Invnorm => p.invnorm(logn, &mut a[..n / 2], &f, &g, 0),
                    Op::InvMul2e => p.inv_mul2e(logn, &mut a, 3),
                    Op::Fft => p.fft(logn, &mut a),
                    Op::Ifft => p.ifft(logn, &mut a),
                });
                outputs[i] = a;
            }
            let mut want = f.clone();
            match op {
                Op::DivSelfadj => Reference.div_selfadj(logn, &mut want, &norm),
                Op::Invnorm => Reference.invnorm(logn, &mut want[..n / 2], &f, &g, 0),
                Op::InvMul2e => Reference.inv_mul2e(logn, &mut want, 3),
                Op::Fft => Reference.fft(logn, &mut want),
                Op::Ifft => Reference.ifft(logn, &mut want),
            }
            assert_eq!(outputs, [want.clone(), want], "{op:?} logn {logn}");
            assert!(counts[0] < counts[1], "{op:?} logn {logn}: {counts:?}");
            rows.push(format!("{op:?} {} / {}", counts[0], counts[1]));
        }
        eprintln!("logn {logn}, instructions per call, optimised / baseline: {}", rows.join(", "));
    }
    const ENTRIES: [(u32, &[&str]); 2] = [
        (9, &["logn9-test0", "logn9-test1", "logn9-test2", "logn9-test3", "logn9-test4"]),
        (10, &["logn10-test0", "logn10-test1", "logn10-test2", "logn10-test3", "logn10-test4"]),
    ];
    for (logn, entries) in ENTRIES {
        let mut per_keygen = [0u64; 2];
        for (i, build) in [Build::Mve, Build::Scalar].into_iter().enumerate() {
            let run = kat::run_fndsa_keygen_with(Provider::Qemu, open(build), Extent::Only(entries));
            assert!(run.passed(), "{:?}", run.results);
            per_keygen[i] = run.served.values().map(|c| c.instructions).sum::<u64>() / entries.len() as u64;
        }
        eprintln!(
            "logn {logn}: fixed-point kernels per key generation (mean of {}), optimised / baseline: {per_keygen:?}",
            entries.len()
        );
        assert!(per_keygen[0] < per_keygen[1]);
    }
}
