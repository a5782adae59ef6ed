//! `pqhelium ct` on every image (unicorn for m7, QEMU's trace plugin for m55 and m85): every leaky constant-time
//! fixture is reported with the kind of its leak inside its own function and source file, every constant-time twin
//! passes, a kernel constant-time by construction (Keccak) passes, a declared public event is passed and listed, the
//! operands QEMU's plugin reads are the ones the inputs give, and the X25519 fixed base passes while its deliberately
//! flawed B8 variant is caught.

use std::process::Command;

use pqhelium_analyses::ct::{self, LeakKind, Tracer, Verdict};
use pqhelium_families as registry;
use pqhelium_guest::backend::{Image, Limits};

const SEED: u64 = 0xC7;

fn tracer_on(image: Image) -> Tracer {
    Tracer::open(image, Limits::default()).unwrap_or_else(|e| panic!("no tracer on {image}: {e}"))
}

fn verdict(tracer: &mut Tracer, id: &str, pairs: u64) -> ct::KernelReport {
    let kernel = registry::find(id).unwrap_or_else(|| panic!("{id} is not registered"));
    ct::check_kernel(tracer, kernel, SEED, 0..pairs)
}

/// Every planted leak, with the kind it must be reported as, on every image that has the fixture.
const LEAKY: [(&str, &str, LeakKind); 6] = [
    ("ct.fixture.lookup", "ct_fixture_lookup", LeakKind::MemoryAddress),
    ("ct.fixture.branch", "ct_fixture_branch", LeakKind::ControlFlow),
    ("ct.fixture.select.it", "ct_fixture_select_it", LeakKind::Predication),
    ("ct.fixture.div_q", "ct_fixture_div_q", LeakKind::VariableLatency),
    ("ct.fixture.clz", "ct_fixture_clz", LeakKind::ControlFlow),
    ("ct.fixture.select.vpt", "ct_fixture_select_vpt", LeakKind::LanePredication),
];

/// The fixture sources, whose leaking lines end in the comment "the leak" ("the second leak" in planted.c).
const FIXTURE_SOURCES: [(&str, &str); 3] = [
    ("kernels/arm/ct_fixture/planted.c", include_str!("../../kernels/arm/ct_fixture/planted.c")),
    ("kernels/arm/ct_fixture/fixtures.c", include_str!("../../kernels/arm/ct_fixture/fixtures.c")),
    ("kernels/arm/ct_fixture/fixtures_vpt.mve.c", include_str!("../../kernels/arm/ct_fixture/fixtures_vpt.mve.c")),
];

/// `file:line` of the line marked as the leak in the function `symbol`, read from the C source.
fn marked_leak_line(symbol: &str) -> String {
    marked_line(symbol, "/* the leak */")
}

/// `file:line` of the line of the function `symbol` that ends in `mark`, read from the C source.
fn marked_line(symbol: &str, mark: &str) -> String {
    let definition = format!("void {symbol}(");
    for (file, text) in FIXTURE_SOURCES {
        let lines: Vec<&str> = text.lines().collect();
        if let Some(start) = lines.iter().position(|l| l.starts_with(&definition)) {
            let body = lines[start..].iter().take_while(|l| **l != "}");
            let at = body.clone().position(|l| l.ends_with(mark));
            let at = at.unwrap_or_else(|| panic!("{symbol}: no line marked as the leak"));
            return format!("{file}:{}", start + at + 1);
        }
    }
    panic!("{symbol} is in no fixture source")
}

#[test]
fn every_leaky_fixture_is_caught_where_it_leaks() {
    for image in Image::ALL {
        let mut tracer = tracer_on(image);
        for (id, symbol, kind) in LEAKY {
            let report = verdict(&mut tracer, id, 50);
            if matches!(report.verdict, Verdict::Skipped { .. }) {
                // Only the MVE fixture is missing, and only from the M7 image.
                assert_eq!((id, image), ("ct.fixture.select.vpt", Image::M7));
                continue;
            }
            assert_eq!(report.faults, 0, "{id} on {image}: {:?}", report.first_fault);
            let Verdict::Leak { leak, case_a, case_b, .. } = &report.verdict else {
                panic!("{id} on {image}: no leak found in {} pairs", report.pairs)
            };
            assert_eq!(leak.kind, kind, "{id} on {image}: {leak}");
            assert!(leak.location.starts_with(&format!("{symbol}+")), "{id} on {image}: {leak}");
            assert_eq!(leak.source, Some(marked_leak_line(symbol)), "{id} on {image}: {leak}");
            assert_ne!(leak.a, leak.b, "{id} on {image}: {leak}");
            assert!(case_a < case_b);
            let judged = ct::judge(&report, image);
            assert!(matches!(&judged, ct::Judgement::Pass(k) if k.iter().any(|k| k.planted)), "{id} on {image}");
        }
    }
}

#[test]
fn every_constant_time_twin_passes() {
    for image in Image::ALL {
        let mut tracer = tracer_on(image);
        for id in
            ["ct.fixture.lookup.masked", "ct.fixture.branch.masked", "ct.fixture.div_q.barrett", "ct.fixture.clz.fixed"]
        {
            let report = verdict(&mut tracer, id, 200);
            assert!(matches!(report.verdict, Verdict::ConstantTime), "{id} on {image}: {:?}", report.verdict);
            assert_eq!((report.pairs, report.faults), (200, 0), "{id} on {image}");
            assert_eq!(ct::judge(&report, image), ct::Judgement::Pass(vec![]));
        }
    }
}

/// The operands the QEMU plugin reads from the CPU state are the inputs': case 0 divides 0 by q = 0xd01, case 1 the
/// largest dividend 2^24 - 1; and its FP64 division and addition operands are those unicorn reads.
#[test]
fn operands_read_on_qemu_are_the_inputs() {
    for image in Image::ALL {
        let report = verdict(&mut tracer_on(image), "ct.fixture.div_q", 1);
        let Verdict::Leak { leak, .. } = &report.verdict else { panic!("{image}: {:?}", report.verdict) };
        assert_eq!((leak.a.as_str(), leak.b.as_str()), ("operands 0x0, 0xd01", "operands 0xffffff, 0xd01"), "{image}");
    }
    // The division operands: unicorn on the M7 image, tracing the Cortex-M85's classes (division and square root,
    // not the M7's FP64 additions, which come first), reads what QEMU reads on the M85 image.
    let fp_leak = |mut tracer: Tracer| match verdict(&mut tracer, "fndsa.fpu.ldl", 20).verdict {
        Verdict::Leak { leak, pair, .. } => (pair, leak.kind, leak.a, leak.b),
        other => panic!("{}: {other:?}", tracer.image),
    };
    let m7 = fp_leak(Tracer::open_as(Image::M7, ct::Core::M85, Limits::default()).expect("a tracer"));
    let m85 = fp_leak(tracer_on(Image::M85));
    assert_eq!(m7.1, LeakKind::VariableLatency);
    assert_eq!(m7, m85);
    // The FP64 additions are variable on the Cortex-M7 alone: unicorn reads their operands on the M7 image, and the
    // QEMU plugin, told to trace a Cortex-M7's classes on the M55 image, reads the same ones (both compile a[0] + b[0]
    // first).
    let add_leak = |mut tracer: Tracer| match verdict(&mut tracer, "fndsa.fpu.add", 5).verdict {
        Verdict::Leak { leak, pair, .. } => (pair, leak.kind, leak.a, leak.b),
        other => panic!("{}: {other:?}", tracer.image),
    };
    let m7 = add_leak(tracer_on(Image::M7));
    let qemu = Tracer::open_as(Image::M55, ct::Core::M7, Limits::default()).expect("a tracer");
    assert_eq!(m7.1, LeakKind::VariableLatency);
    assert_eq!(add_leak(qemu), m7);
    // The M55's FP64 division is not in its variable-latency table: no operand is traced there.
    let m55 = verdict(&mut tracer_on(Image::M55), "fndsa.fpu.ldl", 20);
    assert!(matches!(m55.verdict, Verdict::ConstantTime), "{:?}", m55.verdict);
}

/// The rejection fixture's loop exit differs between the runs of a pair: declared public, it passes with the
/// declaration listed; without the declaration it is a control-flow leak.
#[test]
fn declared_public_events_pass_and_are_listed() {
    let declared = registry::find("ct.fixture.reject").unwrap();
    let undeclared = registry::variant("ct.fixture.reject", |change| change.declassified = Some(&[]));
    for image in Image::ALL {
        let mut tracer = tracer_on(image);
        let report = ct::check_kernel(&mut tracer, declared, SEED, 0..30);
        assert!(matches!(report.verdict, Verdict::ConstantTime), "{image}: {:?}", report.verdict);
        assert_eq!(report.declarations, declared.declassified(), "{image}");
        assert_eq!(report.declarations.len(), 2);
        assert!(report.declassified_pairs > 0, "{image}");
        let first = report.first_declassified.as_ref().expect("a declared difference");
        assert!(first.location.starts_with("ct_fixture_reject+"), "{image}: {first}");
        let report = ct::check_kernel(&mut tracer, undeclared, SEED, 0..30);
        let Verdict::Leak { leak, .. } = &report.verdict else { panic!("{image}: {:?}", report.verdict) };
        assert!(matches!(leak.kind, LeakKind::ControlFlow | LeakKind::Predication), "{image}: {leak}");
        assert!(leak.location.starts_with("ct_fixture_reject+"), "{image}: {leak}");
    }
}

#[test]
fn keccak_is_constant_time() {
    let kernels = [
        (Image::M7, "keccak.f1600"),
        (Image::M55, "keccak.f1600x4.mve"),
        (Image::M85, "keccak.f1600"),
        (Image::M55, "keccak.f1600.slothy_m55"),
        (Image::M85, "keccak.f1600.slothy_m85"),
        (Image::M7, "keccak.f1600.slothy_m85"),
        (Image::M55, "keccak.f1600x4.mve.slothy_m55"),
        (Image::M85, "keccak.f1600x4.mve.slothy_m85"),
    ];
    for (image, id) in kernels {
        let report = verdict(&mut tracer_on(image), id, 8);
        assert!(matches!(report.verdict, Verdict::ConstantTime), "{id} on {image}: {:?}", report.verdict);
        assert_eq!((report.pairs, report.faults), (8, 0));
    }
}

/// The traces see what the secrets change: the pairs of a leaky fixture differ in their recorded events, those of its
/// twin do not, and the hashes agree with the recorded events.
#[test]
fn traces_differ_exactly_when_the_events_do() {
    for image in Image::ALL {
        traces_differ_on(image);
    }
}

fn traces_differ_on(image: Image) {
    let mut tracer = tracer_on(image);
    for (id, leaks) in [("ct.fixture.div_q", true), ("ct.fixture.div_q.barrett", false)] {
        let kernel = registry::find(id).unwrap();
        let pair = ct::pair(kernel, SEED, 5).expect("a partner case");
        let hashed_a = tracer.trace(kernel.symbol, &pair.args_a, None).unwrap();
        let hashed_b = tracer.trace(kernel.symbol, &pair.args_b, None).unwrap();
        let recorded_a = tracer.trace(kernel.symbol, &pair.args_a, Some(0)).unwrap();
        let recorded_b = tracer.trace(kernel.symbol, &pair.args_b, Some(0)).unwrap();
        assert_eq!((hashed_a.hash, hashed_a.events), (recorded_a.hash, recorded_a.events));
        assert!(recorded_a.recorded_to_end());
        let events_a = recorded_a.recorded.unwrap();
        assert_eq!(events_a.len() as u64, recorded_a.events);
        assert!(events_a.len() > 8 * 3, "{id}: {} events", events_a.len());
        assert_eq!(!hashed_a.same_as(&hashed_b), leaks, "{id}");
        assert_eq!(events_a != recorded_b.recorded.unwrap(), leaks, "{id}");
        // A recording from a later event holds the same events from there on (a window of a long trace).
        let from = events_a.len() as u64 / 3;
        let window = tracer.trace(kernel.symbol, &pair.args_a, Some(from)).unwrap();
        assert_eq!((window.hash, window.events, window.first), (recorded_a.hash, recorded_a.events, from));
        assert!(window.recorded_to_end());
        assert_eq!(window.recorded.unwrap(), events_a[from as usize..], "{id}");
    }
}

fn pqhelium_ct(args: &[&str]) -> (i32, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_pqhelium")).arg("ct").args(args).output().expect("run pqhelium");
    (out.status.code().expect("exit code"), String::from_utf8_lossy(&out.stdout).into_owned())
}

/// The report line alone reproduces a leak on every image: the printed `reproduce:` command, run as it stands, finds
/// the same leak (kind, location, event, both runs' values) in the same pair, also when that pair is not the first.
#[test]
fn a_leak_is_reproduced_from_its_report_line_on_every_image() {
    for image in Image::ALL {
        let name = image.name();
        let (code, out) =
            pqhelium_ct(&["--kernel", REPRO_KERNEL, "--image", name, "--seed", REPRO_SEED, "--pairs", "40"]);
        assert_eq!(code, 1, "{out}");
        let line =
            |text: &str, start: &str| text.lines().find(|l| l.trim_start().starts_with(start)).map(str::to_owned);
        let pair = line(&out, "pair ").unwrap_or_else(|| panic!("{image}: no pair line in {out}"));
        assert!(!pair.starts_with("pair 0:"), "{image}: the first leaking pair should not be pair 0 here: {pair}");
        let reproduce = line(&out, "reproduce:").expect("a reproduce line");
        let words: Vec<&str> = reproduce.split_whitespace().skip_while(|w| *w != "--kernel").collect();
        assert!(words.windows(2).any(|w| w == ["--image", name]), "{reproduce}");
        let (code, again) = pqhelium_ct(&words);
        assert_eq!(code, 1, "{again}");
        assert_eq!(line(&again, "LEAK"), line(&out, "LEAK"), "{image}");
        assert_eq!(line(&again, "pair "), Some(pair), "{image}");
        assert_eq!(again.lines().last(), Some("1 pairs, 1 leaks, 0 faults"), "{image}: {again}");
    }
}

/// `--table` makes the verdict table of docs/constant-time.md from `--report` files: a row per kernel, the image's
/// column filled, `-` in the others, and a later report replacing an earlier one's verdict.
#[test]
fn the_verdict_table_comes_from_reports() {
    let dir = tempfile::tempdir().unwrap();
    let path = |name: &str| dir.path().join(name).display().to_string();
    let (first, second) = (path("first.json"), path("second.json"));
    let (code, _) = pqhelium_ct(&["--kernel", "ct.fixture.div_q*", "--pairs", "3", "--report", &first]);
    assert_eq!(code, 1);
    let (code, _) = pqhelium_ct(&["--kernel", "ct.fixture.div_q.barrett", "--pairs", "5", "--report", &second]);
    assert_eq!(code, 0);
    // A whole operation that `ct` does not trace (`scheme --ct-pairs` does) is listed after the table.
    let whole = path("whole.json");
    let (code, out) = pqhelium_ct(&["--kernel", "fndsa.keygen.pair", "--pairs", "1", "--report", &whole]);
    assert_eq!(code, 0, "{out}");
    let (code, table) = pqhelium_ct(&["--table", &first, &second, &whole]);
    assert_eq!(code, 0, "{table}");
    let not_in = table.lines().find(|l| l.starts_with("Not in the table: ")).unwrap_or_default();
    assert!(not_in.contains("`fndsa.keygen.pair`") && not_in.contains("not traced as a whole"), "{table}");
    let rows: Vec<&str> = table.lines().filter(|l| l.starts_with("| `ct.fixture.div_q")).collect();
    assert_eq!(rows.len(), 2, "{table}");
    let leak = "| `ct.fixture.div_q` | - | - | **variable-latency operand** `ct_fixture_div_q+0x";
    assert!(rows[0].starts_with(leak), "{table}");
    assert!(rows[0].ends_with(&format!("` ({}) |", marked_leak_line("ct_fixture_div_q"))), "{table}");
    assert_eq!(rows[1], "| `ct.fixture.div_q.barrett` | - | - | pass (5) |", "{table}");
    assert!(table.starts_with("| kernel | m55 (gcc, QEMU) | m85 (clang, QEMU) | m7 (gcc, unicorn) |\n|---|"));
    let (code, _) = pqhelium_ct(&["--table", &path("missing.json")]);
    assert_eq!(code, 2);
}

/// A fixture and seed whose first leaking pair is not pair 0 on any image (the edge cases share the low bit).
const REPRO_KERNEL: &str = "ct.fixture.branch";
const REPRO_SEED: &str = "7";

#[test]
fn command_exit_codes_and_summary() {
    let (code, out) = pqhelium_ct(&["--kernel", "ct.fixture.div_q*", "--pairs", "5"]);
    assert_eq!(code, 1, "{out}");
    assert!(out.contains("LEAK ct.fixture.div_q: variable-latency operand leak at ct_fixture_div_q+"), "{out}");
    assert!(out.contains("pass ct.fixture.div_q.barrett: 5 pairs"), "{out}");
    // A leak does not end a campaign: both kernels run their 5 pairs.
    assert_eq!(out.lines().last(), Some("10 pairs, 1 leaks, 0 faults"), "{out}");
    // The reproduce line alone finds the same leak.
    let line = out.lines().find(|l| l.contains("reproduce:")).expect("a reproduce line");
    let words: Vec<&str> = line.split_whitespace().skip_while(|w| *w != "--kernel").collect();
    let (code, again) = pqhelium_ct(&words);
    assert_eq!(code, 1, "{again}");
    let leak_line = |text: &str| text.lines().find(|l| l.starts_with("LEAK")).map(str::to_owned);
    assert_eq!(leak_line(&again), leak_line(&out));

    // On QEMU too, and the reproduce line names the image.
    let (code, out) = pqhelium_ct(&["--kernel", "ct.fixture.select.*", "--image", "m85", "--pairs", "3"]);
    assert_eq!(code, 1, "{out}");
    assert!(out.contains("LEAK ct.fixture.select.vpt: VPT lane predication leak at ct_fixture_select_vpt+"), "{out}");
    let line = out.lines().find(|l| l.contains("reproduce: pqhelium ct --kernel ct.fixture.select.vpt")).unwrap();
    let words: Vec<&str> = line.split_whitespace().skip_while(|w| *w != "--kernel").collect();
    assert!(words.windows(2).any(|w| w == ["--image", "m85"]), "{line}");
    let (code, again) = pqhelium_ct(&words);
    assert_eq!(code, 1, "{again}");
    let vpt_line = |text: &str| text.lines().find(|l| l.starts_with("LEAK ct.fixture.select.vpt")).map(str::to_owned);
    assert_eq!(vpt_line(&again), vpt_line(&out));

    let (code, out) = pqhelium_ct(&["--kernel", "ct.fixture.*.masked", "--pairs", "5"]);
    assert_eq!(code, 0, "{out}");
    assert_eq!(out.lines().last(), Some("10 pairs, 0 leaks, 0 faults"), "{out}");

    let (code, _) = pqhelium_ct(&["--kernel", "no.such.kernel"]);
    assert_eq!(code, 2);
}

/// Branch-free C that a compiler turns into a conditional: clang compiles the sign-mask absolute value to an IT block
/// on the sign (the M85 image), gcc keeps the masks (the M55 and M7 images); with the mask hidden, every image passes.
#[test]
fn a_compiler_introduced_predication_is_caught() {
    for image in Image::ALL {
        let mut tracer = tracer_on(image);
        let report = verdict(&mut tracer, "ct.fixture.abs", 50);
        match (image, &report.verdict) {
            (Image::M85, Verdict::Leak { leak, .. }) => {
                assert_eq!(leak.kind, LeakKind::Predication, "{leak}");
                assert!(leak.location.starts_with("ct_fixture_abs+"), "{leak}");
                assert_eq!(leak.source, Some(marked_leak_line("ct_fixture_abs")), "{leak}");
            }
            (Image::M55 | Image::M7, Verdict::ConstantTime) => {}
            (_, other) => panic!("ct.fixture.abs on {image}: {other:?}"),
        }
        let twin = verdict(&mut tracer, "ct.fixture.abs.opaque", 50);
        assert!(matches!(twin.verdict, Verdict::ConstantTime), "{image}: {:?}", twin.verdict);
    }
}

/// The fixed-base kernel and its deliberately flawed B8 twin (`kernels/arm/x25519/base.c`): `x25519.base` (masked
/// lookup, sign by masked swaps) gives equal traces; `x25519.base.b8` (operands reached through a pointer picked by
/// the secret sign) is reported as a memory-address leak inside its own function, and `pqhelium ct --kernel
/// 'x25519.base*'` exits 1 with one leak.
#[test]
fn the_fixed_base_passes_and_its_b8_variant_is_caught() {
    for image in Image::ALL {
        let mut tracer = tracer_on(image);
        let report = verdict(&mut tracer, "x25519.base", 10);
        assert!(matches!(report.verdict, Verdict::ConstantTime), "{image}: {:?}", report.verdict);
        assert_eq!((report.pairs, report.faults), (10, 0), "{image}");
        let report = verdict(&mut tracer, "x25519.base.b8", 10);
        let Verdict::Leak { leak, .. } = &report.verdict else {
            panic!("B8 not caught in {} pairs on {image}", report.pairs)
        };
        assert_eq!(leak.kind, LeakKind::MemoryAddress, "{image}: {leak}");
        assert!(leak.location.starts_with("x25519_base_b8+"), "{image}: {leak}");
    }

    let (code, out) = pqhelium_ct(&["--kernel", "x25519.base*", "--pairs", "3"]);
    assert_eq!(code, 1, "{out}");
    assert!(out.contains("pass x25519.base: 3 pairs, equal traces"), "{out}");
    assert!(out.contains("LEAK x25519.base.b8: memory address leak at x25519_base_b8+"), "{out}");
}

/// Every planted entry of `ct::KNOWN_LEAKS` names the line its fixture's source marks as the leak, and only it.
#[test]
fn planted_known_leaks_name_the_marked_lines() {
    let planted: Vec<_> = ct::KNOWN_LEAKS.iter().filter(|k| k.planted).collect();
    assert_eq!(planted.len(), LEAKY.len() + 2, "the fixtures, ct.fixture.abs and x25519.base.b8");
    for k in planted.into_iter().filter(|k| k.kernel.starts_with("ct.fixture.")) {
        let symbol = registry::find(k.kernel).unwrap().symbol;
        assert_eq!(k.lines, [marked_leak_line(symbol).as_str()], "{k:?}");
    }
}

/// `check`'s judgement of `kernel` on `image`, its failure lines printed as `check` prints them.
fn judged_as_check(tracer: &mut Tracer, kernel: &'static registry::Kernel) -> (ct::KernelReport, ct::Judgement) {
    let (report, judgement) = ct::run_as_check(tracer, kernel, SEED);
    if let Some(failure) = judgement.failure(&report) {
        println!("{failure}");
    }
    (report, judgement)
}

/// A second leak behind a known one fails `check`: `ct.fixture.div_q` run as `ct_planted_div_q_twice` divides every
/// word by q at the fixture's line (its planted, known leak), then one more word at another line. The judgement
/// goes past the known difference to the end of each trace and fails on the second alone; the fixture itself passes.
#[test]
fn a_second_leak_behind_a_known_one_fails_check() {
    let twice = registry::variant("ct.fixture.div_q", |change| change.symbol = Some("ct_planted_div_q_twice"));
    let second = marked_line("ct_planted_div_q_twice", "/* the second leak */");
    for image in Image::ALL {
        let mut tracer = tracer_on(image);
        let (_, judgement) = judged_as_check(&mut tracer, registry::find("ct.fixture.div_q").unwrap());
        assert!(judgement.passed(), "{image}: {judgement:?}");
        let (report, judgement) = judged_as_check(&mut tracer, twice);
        assert!(!judgement.passed(), "{image}");
        let ct::Judgement::Unexplained(leaks) = judgement else { panic!("{image}: {judgement:?}") };
        let places: Vec<_> = leaks.iter().map(|f| (f.leak.kind, f.leak.class, f.leak.source.clone())).collect();
        let udiv = (LeakKind::VariableLatency, Some(ct::LatencyClass::IntegerDivide));
        assert_eq!(places, [(udiv.0, udiv.1, Some(second.clone()))], "{image}");
        // Both leaks were found: the known one first, in every pair, and the second behind it.
        let known = Some(marked_leak_line("ct_fixture_div_q"));
        assert_eq!(report.leaks.len(), 2, "{image}: {:?}", report.leaks);
        assert_eq!(report.leaks[0].leak.source, known, "{image}");
        assert_eq!(report.leaks[0].pairs, report.pairs, "{image}: {:?}", report.leaks);
        assert!(report.leaks[1].leak.event > report.leaks[0].leak.event, "{image}: {:?}", report.leaks);
    }
}

/// A secret UDIV in an FN-DSA kernel fails `check` where its FP64 divisions are known leaks (the Cortex-M7 and M85
/// images) and where they are not traced (the M55): `fndsa.fpu.ldl` run as `ct_planted_ldl_udiv`, the LDL then a
/// division of a secret output word by q. `fndsa.fpu.ldl` itself passes.
#[test]
fn a_secret_udiv_in_an_fndsa_kernel_fails_check() {
    let ldl = registry::find("fndsa.fpu.ldl").unwrap();
    let with_udiv = registry::variant("fndsa.fpu.ldl", |change| change.symbol = Some("ct_planted_ldl_udiv"));
    let second = marked_line("ct_planted_ldl_udiv", "/* the second leak */");
    for image in Image::ALL {
        let mut tracer = tracer_on(image);
        let (report, judgement) = judged_as_check(&mut tracer, ldl);
        assert!(judgement.passed(), "{image}: {judgement:?}");
        let fp64_known = !report.leaks.is_empty();
        assert_eq!(fp64_known, image != Image::M55, "{image}: {:?}", report.leaks);
        let (report, judgement) = judged_as_check(&mut tracer, with_udiv);
        let ct::Judgement::Unexplained(leaks) = judgement else { panic!("{image}: {judgement:?}") };
        let places: Vec<_> = leaks.iter().map(|f| (f.leak.kind, f.leak.class, f.leak.source.clone())).collect();
        let udiv = (LeakKind::VariableLatency, Some(ct::LatencyClass::IntegerDivide));
        assert_eq!(places, [(udiv.0, udiv.1, Some(second.clone()))], "{image}");
        assert_eq!(report.leaks.len() > 1, fp64_known, "{image}: the FP64 leaks found before it");
    }
}
