//! `pqhelium check`: the main job.

use std::collections::HashMap;
use std::path::PathBuf;
use std::process::ExitCode;
use std::time::{Duration, Instant};

use anyhow::{Context, Result};
use pqhelium_analyses::ct;
use pqhelium_analyses::cycles::Estimators;
use pqhelium_engine::diff::{self, Campaign};
use pqhelium_engine::report::{self, Report};
use pqhelium_families::{self as registry, case_rng};
use pqhelium_guest::backend::{Backend, BackendKind, Call, Image, Limits};
use pqhelium_schemes::on_guest;
use pqhelium_schemes::{fndsa_on_guest, kat, scheme_ct, signature_ct};

#[derive(clap::Args)]
pub struct Args {
    /// With --manifest: run an object the lint refuses for this rule (repeatable: `undecodable`,
    /// `potentially-undefined`, `unpredictable-operands`), for investigation: every result is marked, and the exit
    /// code is 1 at best.
    #[arg(long, requires = "manifest", value_name = "RULE")]
    allow_lint: Vec<String>,
    /// Cases per kernel and backend.
    #[arg(long, default_value_t = 2000, value_parser = super::numbers::cases())]
    cases: u64,
    #[arg(long, default_value_t = 1)]
    seed: u64,
    #[arg(long, default_value_t = super::default_jobs(), value_parser = super::numbers::jobs())]
    jobs: usize,
    /// Write the campaigns as a JSON report.
    #[arg(long)]
    report: Option<PathBuf>,
    /// Write the campaigns as JUnit XML.
    #[arg(long)]
    junit: Option<PathBuf>,
    /// Your kernels instead (README "Check your own kernel"): their objects linted and linked, each symbol checked
    /// against its contract.
    #[arg(long, conflicts_with_all = ["report", "junit"])]
    manifest: Option<PathBuf>,
}

/// The bound coverage line of every kernel that reports it, from its first campaign (every backend runs the model).
fn print_coverage(report: &Report) {
    let mut seen = std::collections::HashSet::new();
    let lines: Vec<String> = report
        .campaigns
        .iter()
        .filter_map(|c| c.coverage.as_ref().filter(|_| seen.insert(c.kernel.clone())).map(|cov| (c, cov)))
        .map(|(c, cov)| format!("- {}: {}", c.kernel, cov.line()))
        .collect();
    if !lines.is_empty() {
        println!("Bound coverage (`pqhelium coverage --kernel K` for the table):\n\n{}\n", lines.join("\n"));
    }
}

/// The constant-time section: `pqhelium ct` over every kernel on every image, [`ct::check_pairs`] pairs per kernel
/// (one per edge case up to [`ct::CHECK_EDGE_PAIRS`], then [`ct::MIN_PAIRS`] of random cases), judged against the known leaks: every difference of
/// every pair explained, every fixture's planted leak found, at least [`ct::MIN_PAIRS`] pairs compared, no fault.
/// Prints a row per kernel, the failures and the kernels without a secret argument; returns whether it passed.
fn constant_time(seed: u64) -> bool {
    println!(
        "\n## Constant time (pqhelium ct, seed {seed}; per kernel one pair per edge case, up to {}, and {} of random \
         cases; at least {} compared)\n",
        ct::CHECK_EDGE_PAIRS,
        ct::MIN_PAIRS,
        ct::MIN_PAIRS
    );
    // One thread per image, each opening its own tracer (which keeps the image's source lines on its thread) and
    // running every kernel: the images' traces are independent. The table follows, in the registry's order.
    let kernels: Vec<&'static registry::Kernel> = registry::all().collect();
    type Runs = Vec<(ct::KernelReport, ct::Judgement)>;
    let per_image: Vec<(Image, Result<Runs, String>)> = std::thread::scope(|scope| {
        let threads: Vec<_> = TABLE_IMAGES
            .into_iter()
            .map(|image| {
                let kernels = &kernels;
                let thread = scope.spawn(move || {
                    let mut tracer = ct::Tracer::open(image, Limits::default()).map_err(|e| e.to_string())?;
                    Ok(kernels.iter().map(|&kernel| ct::run_as_check(&mut tracer, kernel, seed)).collect())
                });
                (image, thread)
            })
            .collect();
        threads.into_iter().map(|(image, t)| (image, t.join().expect("a tracer's thread panicked"))).collect()
    });
    let mut passed = true;
    let mut columns = Vec::new();
    for (image, runs) in per_image {
        match runs {
            Ok(runs) => columns.push((image, runs)),
            Err(e) => {
                println!("{image}: FAIL, no tracer ({e})");
                passed = false;
            }
        }
    }
    let heading: Vec<String> = columns.iter().map(|(image, _)| image.to_string()).collect();
    println!("| kernel | pairs (edge + random) | {} |", heading.join(" | "));
    println!("|---|---:|{}", "---|".repeat(columns.len()));
    let mut notes = Vec::new();
    let (mut without_secret, mut not_traced, mut without_code) = (Vec::new(), Vec::new(), Vec::new());
    for (k, kernel) in kernels.into_iter().enumerate() {
        let judged: Vec<&(ct::KernelReport, ct::Judgement)> = columns.iter().map(|(_, runs)| &runs[k]).collect();
        for &(report, judgement) in &judged {
            passed &= judgement.passed();
            notes.extend(judgement.failure(report));
        }
        match judged.first().map(|(_, judgement)| judgement) {
            Some(ct::Judgement::NoSecret(why)) => without_secret.push(format!("- `{}`: {why}", kernel.id)),
            Some(ct::Judgement::NotTraced(why)) => not_traced.push(format!("- `{}`: {why}", kernel.id)),
            _ if judged.iter().all(|(_, j)| *j == ct::Judgement::NotInImage) => without_code.push(kernel.id),
            _ => {
                let cells: Vec<String> = judged.iter().map(|(report, judgement)| judgement.cell(report)).collect();
                let edge = kernel.edge_cases.min(ct::CHECK_EDGE_PAIRS);
                println!("| {} | {edge} + {} | {} |", kernel.id, ct::MIN_PAIRS, cells.join(" | "));
            }
        }
    }
    println!();
    for note in notes {
        println!("{note}");
    }
    println!("Kernels without a secret argument (nothing to compare):\n{}", without_secret.join("\n"));
    println!(
        "Whole operations not traced here (their rejection loops part the traces by design):\n{}",
        not_traced.join("\n")
    );
    println!("No object code in any image (whole schemes, checked on the host): {}", without_code.join(", "));
    passed &= whole_signature_ct(seed);
    println!("\nconstant time: {}\n", if passed { "pass" } else { "FAIL" });
    passed
}

/// FN-DSA-512's whole key generation and signing (the MVE build on the M55 and M85, the portable one on the M7) as
/// `pqhelium scheme --ct-pairs 1` compares them: traces brought back in step after each difference public by design;
/// a leak or a fault fails.
fn whole_signature_ct(seed: u64) -> bool {
    println!(
        "\nWhole FN-DSA-512 operations (`pqhelium scheme --scheme fndsa512 --build mve|portable --core C --ct-pairs 1`):"
    );
    let mut passed = true;
    for (build, image) in [("mve", Image::M55), ("mve", Image::M85), ("portable", Image::M7)] {
        let build = fndsa_on_guest::SignatureBuild::find(build).expect("the build");
        let verdicts = match signature_ct::check_operations(image, &build, 9, 1, seed) {
            Ok(verdicts) => verdicts,
            Err(e) => {
                println!("- {image}: FAIL, no tracer ({e})");
                passed = false;
                continue;
            }
        };
        for (op, verdict) in verdicts {
            let line = match &verdict {
                scheme_ct::OpVerdict::Resynchronised(whole) => whole.summary(),
                scheme_ct::OpVerdict::NoSecret { .. } => "no secret input".to_string(),
                scheme_ct::OpVerdict::Leak { pair, leak } => format!("FAIL, a leak in pair {pair}: {leak}"),
                scheme_ct::OpVerdict::Fault { pair, why } => format!("FAIL, pair {pair} not judged: {why}"),
            };
            println!("- {} on {image}: {line}", build.kernels[op as usize]);
            passed &= verdict.passed();
        }
    }
    passed
}

/// The images of the constant-time table, in its column order.
const TABLE_IMAGES: [Image; 3] = [Image::M55, Image::M85, Image::M7];

/// The least time of the in-guest loops that time a call for the host/guest column (over [`GUEST_CASES`] cases).
const GUEST_LOOP_TIME: Duration = Duration::from_millis(20);
/// The random cases the guest is timed on: a kernel whose work depends on its case (a degree drawn at random, a
/// signature rejected early) is timed on a campaign's mix, not on one case.
const GUEST_CASES: u64 = 4;
/// The least cases and time over which the host's time per case is measured for the same column.
const HOST_MIN_CASES: u64 = 8;
const HOST_TIME: Duration = Duration::from_millis(50);

/// The guest's calls/s over the first [`GUEST_CASES`] random cases of `seed` (the mean time per call), each in its
/// loop (`Call::repeat`) lengthened until it lasts its share of [`GUEST_LOOP_TIME`]; `None` when a call fails.
fn guest_calls_per_second(emulator: &mut dyn Backend, kernel: &registry::Kernel, seed: u64) -> Option<f64> {
    let share = GUEST_LOOP_TIME / GUEST_CASES as u32;
    let mut seconds_per_call = 0.0;
    for case in kernel.edge_cases..kernel.edge_cases + GUEST_CASES {
        let call = Call::new(kernel.symbol, kernel.generate(case, &mut case_rng(seed, case)));
        let mut repeat = 4u32;
        loop {
            let started = Instant::now();
            emulator.call(&Call { repeat, ..call.clone() }).ok()?;
            let took = started.elapsed();
            if took >= share || repeat >= 1 << 20 {
                seconds_per_call += took.as_secs_f64() / f64::from(repeat);
                break;
            }
            repeat *= 2;
        }
    }
    Some(GUEST_CASES as f64 / seconds_per_call)
}

/// The host/guest cell of a campaign row: the host's time per case over the guest's time per call, both measured
/// ([`diff::host_guest_ratio`]); `-` where no guest ran.
fn host_guest_cell(host_per_case: Duration, guest_calls_per_second: Option<f64>) -> String {
    guest_calls_per_second.map_or("-".to_string(), |g| format!("{:.3}", diff::host_guest_ratio(host_per_case, g)))
}

/// A whole scheme (key generation, signing, ...) costs thousands of kernel calls per case, on the host or on the
/// guest (the whole operations of `ct::NOT_TRACED`): the main job runs this share of the cases for them, so it stays
/// a few minutes; `pqhelium fuzz` runs them at any scale.
const WHOLE_SCHEME_SHARE: u64 = 20;

fn cases_for(kernel: &registry::Kernel, cases: u64) -> u64 {
    let whole = kernel.images == registry::Images::HostOnly || ct::not_traced_reason(kernel.id).is_some();
    if whole { cases.div_ceil(WHOLE_SCHEME_SHARE) } else { cases }
}

/// Each KEM build of ours on every image that holds it: the NIST KAT procedure's entry 0 on the guest against the
/// host reference, and the build's published answers (`pqhelium scheme` runs more entries, figures and traces).
fn schemes_on_guest() -> bool {
    println!("| scheme | build | image | host reference | published answers | result |");
    println!("|---|---|---|---|---|---|");
    let seed = on_guest::kat_seeds(1)[0];
    let mut passed = true;
    for build in on_guest::KEM_BUILDS {
        for &image in build.images {
            let run = || -> Result<(bool, usize, usize), String> {
                let mut guest = image.open(Limits::default()).map_err(|e| e.to_string())?;
                let run = on_guest::run_entry(guest.as_mut(), &build, &seed).map_err(|e| e.to_string())?;
                let matches = run.first_difference(&(build.reference)(&seed)).is_none();
                let answers = on_guest::published_answers(guest.as_mut(), &build, &run.values);
                Ok((matches, answers.iter().filter(|(_, v)| v.is_ok()).count(), answers.len()))
            };
            let (reference, published, ok) = match run() {
                Ok((matches, good, all)) => {
                    let reference = if matches { "equal" } else { "DIFFERS" };
                    (reference.to_string(), format!("{good}/{all}"), matches && good == all)
                }
                Err(e) => (format!("error: {e}"), "-".to_string(), false),
            };
            let result = if ok { "pass" } else { "FAIL" };
            println!("| {} | {} | {image} | {reference} | {published} | {result} |", build.name, build.build);
            passed &= ok;
        }
    }
    passed & signatures_on_guest()
}

/// Each FN-DSA build on every image that holds it: signature known answer j = 0 at logn 9 and 10 end to end on the
/// guest (key generation, signing, verification alone and in a batch of four) against the host reference and the
/// published value.
fn signatures_on_guest() -> bool {
    let mut passed = true;
    for build in fndsa_on_guest::SIGNATURE_BUILDS {
        for &image in build.images {
            for logn in [9, 10] {
                let run = || -> Result<(bool, bool), String> {
                    let limits = Limits { timeout: fndsa_on_guest::CALL_TIMEOUT };
                    let mut guest = image.open(limits).map_err(|e| e.to_string())?;
                    let run = fndsa_on_guest::run_kat_entry(guest.as_mut(), &build, logn, 0)?;
                    let reference = fndsa_on_guest::reference(logn, 0).ok_or("the reference refuses")?;
                    let matches = run.matches(&reference);
                    let published = kat::fndsa_published_value(logn, 0)? == run.value();
                    Ok((matches, published))
                };
                let (reference, published, ok) = match run() {
                    Ok((matches, published)) => {
                        let reference = if matches { "equal" } else { "DIFFERS" };
                        (reference.to_string(), format!("{}/1", u8::from(published)), matches && published)
                    }
                    Err(e) => (format!("error: {e}"), "-".to_string(), false),
                };
                let result = if ok { "pass" } else { "FAIL" };
                let scheme = fndsa_on_guest::scheme_name(logn);
                println!("| {scheme} | {} | {image} | {reference} | {published} | {result} |", build.build);
                passed &= ok;
            }
        }
    }
    passed
}

pub fn run(args: Args) -> Result<ExitCode> {
    if let Some(manifest) = &args.manifest {
        return super::byo::check(manifest, args.cases, args.seed, args.jobs, &args.allow_lint);
    }
    for (flag, path) in [("--report", &args.report), ("--junit", &args.junit)] {
        if let Some(path) = path {
            super::ensure_writable(flag, path)?;
        }
    }
    // QEMU runs UNPREDICTABLE encodings without complaint: the images are linted before anything runs on them.
    println!("## Object lint\n");
    let mut passed = super::lint::lint_images(&Image::ALL)?;

    println!("\n## Known-answer tests\n");
    passed &= super::print_kats(&kat::run_all());

    println!(
        "\n## Whole schemes on the guest (KEMs: pqm4 API, NIST KAT entry 0; FN-DSA: signature KAT entry 0, every \
         operation on the guest)\n"
    );
    passed &= schemes_on_guest();

    println!(
        "\n## Differential campaigns (seed {}, {} cases per kernel, 1/{WHOLE_SCHEME_SHARE} of that per whole scheme or \
         operation, {} jobs)\n",
        args.seed, args.cases, args.jobs
    );
    // A two-way kernel (its order of operations is the definition) has no model: its object code is checked against
    // the reference, which runs once per case, and it has no model row.
    let count = |checked| registry::all().filter(|k| k.checked == checked).count();
    println!(
        "{} kernels checked three ways (reference == canon(model), model == object code), {} two ways (reference == \
         object code; no model row), {} whole schemes on the host (oracle crate == pqhelium-core)\n",
        count(registry::Checked::ThreeWay),
        count(registry::Checked::TwoWay),
        count(registry::Checked::ModelOnly)
    );
    println!(
        "| kernel | backend | cases | mismatches | faults | cases/s | instructions/call | est. cycles/call | \
         host / guest | result |"
    );
    println!("|---|---|---:|---:|---:|---:|---:|---:|---:|---|");
    // The host/guest column: the host's time per case in a campaign (`diff::host_time_per_case`) over the guest's
    // time per call in its loop, on one emulator per image kept for the whole table. Above 1 the guest waits for the
    // host; the goal for a kernel with a model is at most 0.1 (`pqhelium bench` measures it in rounds).
    let mut emulators: HashMap<Image, Box<dyn Backend>> = HashMap::new();
    // Cycles on the M55 and M85 images: one profiled call of the campaign's first random case (`pqhelium cycles`).
    let mut estimators = Estimators::default();
    let mut results = Vec::new();
    let mut report = Report::new(args.seed);
    for kernel in registry::all() {
        let host_per_case = diff::host_time_per_case(kernel, args.seed, HOST_MIN_CASES, HOST_TIME);
        // Object code on every image its emulator runs: QEMU runs gcc's M55 build and clang's M85 build.
        let images = |b: BackendKind| if b == BackendKind::Model { vec![None] } else { b.images().map(Some).collect() };
        let targets = BackendKind::ALL
            .into_iter()
            .filter(|&b| kernel.runs_on(b))
            .flat_map(|backend| images(backend).into_iter().map(move |image| (backend, image)));
        for (backend, image) in targets {
            let cases = cases_for(kernel, args.cases);
            let campaign =
                Campaign { image, coverage: true, ..Campaign::new(kernel, backend, args.seed, cases, args.jobs) };
            let r = diff::run(&campaign);
            let case = kernel.edge_cases;
            let cycles = image
                .and_then(|image| {
                    estimators.cycles(image, kernel.symbol, &kernel.generate(case, &mut case_rng(args.seed, case)))
                })
                .map_or("-".to_string(), |c| format!("{c:.0}"));
            let guest = image.and_then(|image| {
                let emulator = match emulators.entry(image) {
                    std::collections::hash_map::Entry::Occupied(e) => e.into_mut(),
                    std::collections::hash_map::Entry::Vacant(v) => v.insert(image.open(Limits::default()).ok()?),
                };
                guest_calls_per_second(emulator.as_mut(), kernel, args.seed)
            });
            let cells = format!("{cycles} | {}", host_guest_cell(host_per_case, guest));
            println!("{}", super::campaign_row(&r, None, Some(&cells)));
            passed &= r.passed();
            let entry = report.campaign_on_image_mut(r.kernel, r.backend.name(), r.image.map(Image::name));
            entry.cases_requested = Some(cases);
            entry.absorb(&r);
            results.push(r);
        }
    }
    println!();
    print_coverage(&report);
    for r in &results {
        super::print_failures(r, registry::find(r.kernel).expect("a registered kernel"), &[]);
    }
    passed &= constant_time(args.seed);
    report.complete = true;
    if let Some(path) = &args.report {
        report.save(path).with_context(|| format!("writing {}", path.display()))?;
    }
    if let Some(path) = &args.junit {
        std::fs::write(path, report::junit(&report)).with_context(|| format!("writing {}", path.display()))?;
    }
    super::print_totals(&results, passed);
    Ok(super::exit(passed))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_host_guest_cell_is_the_host_time_over_the_guest_time() {
        // 5 µs per case on the host against 20,000 calls/s (50 µs per call) in the guest: 0.1.
        assert_eq!(host_guest_cell(Duration::from_micros(5), Some(20_000.0)), "0.100");
        assert_eq!(host_guest_cell(Duration::from_micros(150), Some(10_000.0)), "1.500");
        assert_eq!(host_guest_cell(Duration::from_micros(5), None), "-");
    }
}
