//! The commands of `pqhelium`. Each returns the process exit code: 0 when everything it checked passed.

pub mod bench;
pub mod byo;
pub mod check;
pub mod coverage;
pub mod ct;
pub mod cycles;
pub mod equiv;
pub mod fuzz;
pub mod lint;
pub mod list;
pub mod merge;
pub mod scheme;
pub mod scheme_ct;
pub mod scheme_manifest;
pub mod scheme_signature;

use std::collections::HashMap;
use std::process::ExitCode;

use anyhow::{Context, Result, bail};
use pqhelium_engine::diff::{self, CampaignResult, Failure};
use pqhelium_families::{self as registry, ArgSpec, Kernel, Outcome, Pin, case_rng};
use pqhelium_guest::backend::{Arg, BackendKind, Call, Image, Limits};
use pqhelium_schemes::kat::{self, Extent, KatResult, Provider, SuiteRun};
use pqhelium_schemes::kat_whole;

/// `--jobs` unless told: one per CPU, at most [`MAX_JOBS`].
fn default_jobs() -> usize {
    std::thread::available_parallelism().map_or(1, |n| n.get()).min(MAX_JOBS as usize)
}

/// The most jobs (each an emulator and a thread): more than any machine has CPUs for.
const MAX_JOBS: u64 = 1024;

/// The most cases a campaign counts (`--cases`, `--pairs`) and the highest case number (`--case`, `--pair`): 2^48,
/// nine years of cases at a million a second, and far enough below 2^64 that a case number plus a few (the partner
/// of a constant-time pair, the end of a range) stays a number.
const MAX_CASES: u64 = 1 << 48;

/// The parsers of the numeric flags: every value out of range is a usage error (exit code 2) naming the flag.
pub mod numbers {
    use clap::builder::RangedU64ValueParser;

    /// `--cases`, `--pairs`: at least one case, at most [`super::MAX_CASES`].
    pub fn cases() -> RangedU64ValueParser<u64> {
        RangedU64ValueParser::new().range(1..=super::MAX_CASES)
    }

    /// `--case`, `--pair`: a case number below [`super::MAX_CASES`].
    pub fn case() -> RangedU64ValueParser<u64> {
        RangedU64ValueParser::new().range(0..super::MAX_CASES)
    }

    /// `--jobs`: 1 to [`super::MAX_JOBS`].
    pub fn jobs() -> RangedU64ValueParser<usize> {
        RangedU64ValueParser::new().range(1..=super::MAX_JOBS)
    }
}

/// A campaign's row of the results table: kernel, its contract (for a kernel of yours), target, cases, mismatches,
/// faults, cases/s, instructions/call, the estimated cycles/call (when the table has the column), result.
fn campaign_row(r: &CampaignResult, contract: Option<&str>, cycles: Option<&str>) -> String {
    let instructions = r.instructions.mean().map_or("-".to_string(), |m| format!("{m:.0}"));
    let contract = contract.map_or(String::new(), |c| format!(" {c} |"));
    let cycles = cycles.map_or(String::new(), |c| format!(" {c} |"));
    format!(
        "| {} |{contract} {} | {} | {} | {} | {:.0} | {instructions} |{cycles} {} |",
        r.kernel,
        r.target(),
        r.cases_run(),
        r.mismatches(),
        r.faults(),
        r.cases_per_second(),
        if r.passed() { "pass" } else { "FAIL" }
    )
}

/// The lines after the campaigns: their totals and the verdict.
fn print_totals(results: &[CampaignResult], passed: bool) {
    let cases = results.iter().map(|r| r.cases_run()).sum();
    let elapsed = results.iter().map(|r| r.elapsed).sum();
    let mismatches = results.iter().map(|r| r.mismatches()).sum();
    let faults = results.iter().map(|r| r.faults()).sum();
    println!("{}", diff::summary_line(cases, mismatches, faults, elapsed));
    println!("{}", if passed { "check passed" } else { "check FAILED" });
}

fn exit(passed: bool) -> ExitCode {
    if passed { ExitCode::SUCCESS } else { ExitCode::FAILURE }
}

/// Refuses, before any work starts, an output file that could not be written at the end: a campaign of a night must
/// not be lost to a typo in a path. An existing file is opened for appending (not truncated); a new one is created
/// and removed again.
pub fn ensure_writable(flag: &str, path: &std::path::Path) -> Result<()> {
    let existed = path.exists();
    std::fs::OpenOptions::new()
        .append(true)
        .create(true)
        .open(path)
        .with_context(|| format!("{flag} {}: cannot be written", path.display()))?;
    if !existed {
        let _ = std::fs::remove_file(path);
    }
    Ok(())
}

/// Refuses `--image` with a `--backend` that cannot run it (the model runs no image; unicorn runs m7 only).
pub fn check_image(backends: &[BackendKind], image: Option<Image>) -> Result<()> {
    if let Some(image) = image
        && let Some(other) = backends.iter().find(|&&b| b != image.backend())
    {
        bail!("--image {image} runs on {}, not on {other}", image.backend());
    }
    Ok(())
}

/// The backend and image of `--backend` and `--image`, each implied by the other when absent.
pub fn target(backend: Option<BackendKind>, image: Option<Image>) -> Result<(BackendKind, Option<Image>)> {
    check_image(backend.as_slice(), image)?;
    match (backend, image) {
        (_, Some(image)) => Ok((image.backend(), Some(image))),
        (Some(backend), None) => Ok((backend, backend.default_image())),
        (None, None) => bail!("--backend or --image is needed"),
    }
}

pub fn find_kernel(id: &str) -> Result<&'static Kernel> {
    registry::find(id).with_context(|| {
        format!(
            "unknown kernel `{id}`{} (see `pqhelium list`)",
            registry::did_you_mean(id, registry::all().map(|k| k.id))
        )
    })
}

/// The error of a kernel id or glob that matches none of ours, with the nearest id.
pub fn no_match(pattern: &str) -> String {
    let near = registry::did_you_mean(pattern, registry::all().map(|k| k.id));
    format!("no kernel matches `{pattern}`{near} (see `pqhelium list`)")
}

/// `--param NAME=VALUE` (repeatable): each kernel with those contract parameters pinned; a name the contract does
/// not have, or a value outside its range, is a usage error naming the valid ones.
pub fn pinned(kernels: Vec<&'static Kernel>, pins: &[Pin]) -> Result<Vec<&'static Kernel>> {
    kernels.into_iter().map(|k| k.pinned(pins).map_err(|e| anyhow::anyhow!("--param: {e}"))).collect()
}

/// The `--param` flags of a command line that reproduces a pinned run (empty without pins).
pub fn param_flags(pins: &[Pin]) -> String {
    pins.iter().map(|p| format!(" --param {p}")).collect()
}

/// Prints the first failures of a campaign (as many as are shrunk) with the command that reproduces each; `kernel`
/// (the campaign's) names and types the arguments of a shrunk input.
pub fn print_failures(result: &CampaignResult, kernel: &Kernel, pins: &[Pin]) {
    if let Some(e) = &result.setup_error {
        println!("FAILED to start: {e}");
    }
    let on = match result.image {
        Some(image) if let Some(manifest) = byo::reproduce_on(image) => manifest,
        Some(image) if !image.is_default() => format!("--image {image}"),
        _ => format!("--backend {}", result.backend),
    };
    for f in result.failures.iter().take(diff::FAILURES_SHRUNK) {
        println!("FAIL {} on {}, seed {}, {f}", result.kernel, result.target(), result.seed);
        println!(
            "     reproduce: pqhelium repro --kernel {} {on} --seed {} --case {}{}",
            result.kernel,
            result.seed,
            f.case,
            param_flags(pins)
        );
        if let Some(shrunk) = &f.shrunk {
            println!("     shrunk input: {}", describe_input(kernel, shrunk));
        }
    }
    if result.failures.len() > diff::FAILURES_SHRUNK {
        println!("... and {} more failing cases", result.failures.len() - diff::FAILURES_SHRUNK);
    }
}

/// The most elements of a buffer listed one by one against the value the others share.
const ELEMENTS_LISTED: usize = 16;

/// A kernel's input arguments by name, with its contract's element types: a buffer whose elements but a few share
/// one value (a shrunk input's are mostly its contract's simplest) as that value and the exceptions
/// (`p: 256 x i16, all 0 but p[254] = -1`), any other as its list of elements.
fn describe_input(kernel: &Kernel, args: &[Arg]) -> String {
    let parts: Vec<String> = args
        .iter()
        .zip(&kernel.args)
        .filter_map(|(arg, spec)| match arg {
            Arg::In(b) | Arg::InOut(b) => Some(describe_buffer(spec, b)),
            Arg::Out(_) => None,
            Arg::U32(v) if spec.repr == "address" => Some(format!("{} = {v:#010x}", spec.name)),
            Arg::U32(v) => Some(format!("{} = {v}", spec.name)),
            Arg::F64(x) => Some(format!("{} = {x:e}", spec.name)),
        })
        .collect();
    parts.join("; ")
}

fn describe_buffer(spec: &ArgSpec, bytes: &[u8]) -> String {
    let (name, size) = (spec.name, spec.elem.bytes());
    if !bytes.len().is_multiple_of(size) {
        return format!("{name} = {}", hex::encode(bytes));
    }
    let values: Vec<String> = (0..bytes.len() / size).map(|i| spec.show_element(bytes, i)).collect();
    let mut counts: HashMap<&str, usize> = HashMap::new();
    for v in &values {
        *counts.entry(v).or_default() += 1;
    }
    // The most common value, the first in the buffer on a tie.
    let Some(common) = values.iter().min_by_key(|v| std::cmp::Reverse(counts[v.as_str()])) else {
        return format!("{name}: empty");
    };
    let others: Vec<String> =
        values.iter().enumerate().filter(|(_, v)| *v != common).map(|(i, v)| format!("{name}[{i}] = {v}")).collect();
    let shape = format!("{name}: {} x {}", values.len(), spec.elem.name());
    match others.len() {
        0 => format!("{shape}, all {common}"),
        n if n <= ELEMENTS_LISTED && n < values.len() / 2 => format!("{shape}, all {common} but {}", others.join(", ")),
        _ => format!("{shape} = [{}]", values.join(", ")),
    }
}

/// Prints a suite run: entries passed, time, what the model or object code served, what it left to the reference.
fn print_run(run: &SuiteRun) {
    let passed = run.results.iter().filter(|r| r.passed).count();
    let (suite, secs) = (run.suite, run.elapsed.as_secs_f64());
    let provider = pqhelium_guest::backend::target_label(run.provider.name(), run.image);
    println!("{suite} with {provider}: {passed}/{} passed in {secs:.1} s", run.results.len());
    if !run.served.is_empty() {
        let calls: Vec<String> = run.served.iter().map(|(symbol, c)| format!("{symbol} {}", c.calls)).collect();
        let instructions: u64 = run.served.values().map(|c| c.instructions).sum();
        let executed = if instructions > 0 { format!(" ({instructions} guest instructions)") } else { String::new() };
        println!("    calls served: {}{executed}", calls.join(", "));
    }
    for note in &run.notes {
        println!("    {note}");
    }
}

/// The total of the runs and every failure; true if everything passed.
fn print_kat_summary(runs: &[SuiteRun]) -> bool {
    let results: Vec<&KatResult> = runs.iter().flat_map(|run| &run.results).collect();
    let failed: Vec<_> = results.iter().filter(|k| !k.passed).collect();
    let mut providers: Vec<&str> = Vec::new();
    for name in runs.iter().map(|r| r.provider.name()) {
        if !providers.contains(&name) {
            providers.push(name);
        }
    }
    println!("{} known answers ({}), {} failed", results.len(), providers.join(", "), failed.len());
    for k in &failed {
        println!("FAIL {} {} with {}: {}", k.suite, k.name, k.provider.name(), k.detail);
    }
    failed.is_empty()
}

/// Prints every run, then the total and every failure; true if everything passed.
pub fn print_kats(runs: &[SuiteRun]) -> bool {
    runs.iter().for_each(print_run);
    print_kat_summary(runs)
}

/// `pqhelium kat`: every entry of the chosen suites (all by default) with the chosen providers (all by default, or
/// the emulator of `image`), the object code from `image` when given.
pub fn kat(suites: &[String], providers: &[Provider], image: Option<Image>) -> Result<ExitCode> {
    let mut chosen: Vec<&'static str> = Vec::new();
    let whole: Vec<&str> = kat_whole::WHOLE_SUITES.iter().map(|(suite, _)| *suite).collect();
    for name in suites {
        match kat::SUITES.iter().chain(kat::LONG_SUITES).find(|s| *s == name).copied().or(kat_whole::find(name)) {
            Some(suite) => chosen.push(suite),
            None => bail!(
                "no known-answer suite `{name}`; suites: {} (long: {}; whole schemes on the guest: {})",
                kat::SUITES.join(", "),
                kat::LONG_SUITES.join(", "),
                whole.join(", ")
            ),
        }
    }
    let providers_of = |suite: &str| match kat_whole::find(suite) {
        Some(_) => &kat_whole::PROVIDERS[..],
        None => kat::providers(suite),
    };
    if chosen.is_empty() {
        chosen = kat::SUITES.to_vec();
    }
    let image_provider = image.map(|image| match image.backend() {
        BackendKind::Unicorn => Provider::Unicorn,
        _ => Provider::Qemu,
    });
    let providers = match (image, image_provider) {
        (Some(image), Some(only)) => {
            if let Some(other) = providers.iter().find(|&&p| p != only) {
                bail!("--image {image} runs with the {} provider, not {}", only.name(), other.name());
            }
            let on_images = |s: &str| kat::IMAGE_SUITES.contains(&s) || kat_whole::find(s).is_some();
            if let Some(suite) = chosen.iter().find(|s| !image.is_default() && !on_images(s)) {
                bail!(
                    "suite `{suite}` runs on the default images only; --image {image} serves {}",
                    kat::IMAGE_SUITES.join(", ")
                );
            }
            vec![only]
        }
        _ => providers.to_vec(),
    };
    let pairs: Vec<(&'static str, Provider)> = chosen
        .iter()
        .flat_map(|&suite| providers_of(suite).iter().map(move |&p| (suite, p)))
        .filter(|(_, p)| providers.is_empty() || providers.contains(p))
        .collect();
    if pairs.is_empty() {
        let have: Vec<String> = chosen
            .iter()
            .map(|s| format!("{s}: {}", providers_of(s).iter().map(|p| p.name()).collect::<Vec<_>>().join(", ")))
            .collect();
        bail!("no chosen suite has the requested providers ({})", have.join("; "));
    }
    let mut runs = Vec::new();
    for (suite, provider) in pairs {
        let run = match kat_whole::find(suite) {
            Some(_) => kat_whole::run_on(suite, provider, image, Extent::All),
            None => kat::run_on(suite, provider, image, Extent::All),
        };
        print_run(&run);
        runs.push(run);
    }
    Ok(exit(print_kat_summary(&runs)))
}

/// `manifest`: the kernel is one of its symbols, run on its image.
pub fn repro(
    kernel: &str,
    (backend, image, manifest): (Option<BackendKind>, Option<Image>, Option<&std::path::Path>),
    (seed, case, pins): (u64, u64, &[Pin]),
    allow_lint: &[String],
) -> Result<ExitCode> {
    let (backend, image, kernel) = match manifest {
        Some(manifest) => {
            let loaded = byo::load(manifest, None, allow_lint)?;
            let found = byo::matching(&loaded, kernel)?;
            (loaded.image.backend(), Some(loaded.image), found[0])
        }
        None => {
            let (backend, image) = target(backend, image)?;
            (backend, image, find_kernel(kernel)?)
        }
    };
    let kernel = pinned(vec![kernel], pins)?[0];
    if !kernel.runs_on(backend) {
        bail!("{} does not run on {backend} (see `pqhelium list`: its images and how it is checked)", kernel.id);
    }
    let args = kernel.generate(case, &mut case_rng(seed, case));
    let signature = kernel.prototype().unwrap_or_else(|| kernel.summary.clone());
    println!("kernel {} ({signature}), seed {seed}, case {case}{}", kernel.id, param_flags(pins));
    // A kernel of yours keeps its buffers in a layout of its own (order, factor), which its adapters undo before the
    // comparison; ours keep the contract's.
    let adapted = kernel.canonicalises_object_code();
    let (kernel_layout, contract_layout) = if adapted { (", kernel layout", ", contract layout") } else { ("", "") };
    for (i, arg) in args.iter().enumerate() {
        match arg {
            Arg::In(b) => println!("arg {i} in     (input{kernel_layout}) {}", hex::encode(b)),
            Arg::InOut(b) => println!("arg {i} in/out (input{kernel_layout}) {}", hex::encode(b)),
            Arg::Out(n) => println!("arg {i} out    {n} bytes"),
            Arg::U32(v) => println!("arg {i} u32    {v:#x}"),
            Arg::F64(x) => println!("arg {i} f64    {x:e} ({:#018x})", x.to_bits()),
        }
    }
    let show = |name: &str, layout: &str, o: &Outcome| {
        for (i, b) in o.buffers.iter().enumerate() {
            println!("{name:<12} buffer {i} ({layout}): {}", hex::encode(b));
        }
        if let Some(r) = o.ret {
            println!("{name:<12} returns {r:#x}");
        }
    };
    // What the object code must produce: the model's outcome, or for two-way kernels the reference's.
    let (expected, host_failure) = diff::check_model(kernel, &args);
    let evaluation = kernel.evaluate(&args).ok();
    if let Some(evaluation) = &evaluation {
        show("reference", &format!("reference{contract_layout}"), &evaluation.reference);
        for (i, b) in kernel.in_kernel_layout(&evaluation.reference).unwrap_or_default() {
            println!("{:<12} buffer {i} (reference, kernel layout): {}", "reference", hex::encode(b));
        }
        if let Some(model) = &evaluation.model {
            show("canon(model)", &format!("model, canonical{contract_layout}"), &kernel.canon(model));
            show("model", &format!("output{kernel_layout}"), model);
        }
    }
    let mut failure = host_failure;
    if backend != BackendKind::Model {
        let mut emulator = backend.open_image(image, Limits::default())?;
        let result = emulator.call(&Call::new(kernel.symbol, args.clone()));
        if let Ok(output) = &result {
            let outcome = kernel.outcome_of(&args, output.clone());
            show(backend.name(), &format!("output{kernel_layout}"), &outcome);
            if adapted {
                let name = format!("canon({backend})");
                show(&name, "output, adapters undone, contract layout", &kernel.canon(&outcome));
                println!("compared: reference and {name}, both in the contract's layout");
            }
            println!("{} executed {} instructions", backend, output.instructions);
        }
        let outcome = result.as_ref().ok().map(|output| kernel.outcome_of(&args, output.clone()));
        let (_, object_failure) = diff::check_object_code(kernel, backend, &args, &expected, result);
        if let (Some(Failure::Mismatch { .. }), Some(outcome)) = (&object_failure, outcome)
            && let Some(hint) = kernel.hint(&args, &outcome)
        {
            println!("hint: {hint}");
        }
        failure = failure.or(object_failure);
    }
    match &failure {
        None => println!("no difference"),
        Some(Failure::Mismatch { left, right, difference: d }) => {
            println!("first difference: {left} vs {right} at {}: {} vs {}", d.place, d.expected, d.actual)
        }
        Some(Failure::Fault(e)) => println!("{e}"),
        Some(Failure::Bound(v)) => println!("{v}"),
    }
    Ok(exit(failure.is_none()))
}

#[cfg(test)]
mod tests {
    use pqhelium_families::{Bound, Elem, Len, Modulus};

    use super::*;

    fn words<const N: usize>(values: [i16; N]) -> Vec<u8> {
        values.iter().flat_map(|v| v.to_le_bytes()).collect()
    }

    #[test]
    fn a_buffer_is_its_shared_value_and_the_exceptions_or_its_elements() {
        let p = ArgSpec::in_out("p", Elem::I16, Len::Fixed(8), Bound::Any, Bound::Any);
        assert_eq!(describe_buffer(&p, &words([0; 8])), "p: 8 x i16, all 0");
        assert_eq!(describe_buffer(&p, &words([0, 0, -1, 0, 0, 0, 0, 7])), "p: 8 x i16, all 0 but p[2] = -1, p[7] = 7");
        // The most common value need not be 0.
        assert_eq!(describe_buffer(&p, &words([5, 5, 5, 5, 5, 5, 5, 9])), "p: 8 x i16, all 5 but p[7] = 9");
        // Half or more of the elements apart: every element.
        assert_eq!(describe_buffer(&p, &words([1, 2, 1, 2, 3, 4, 5, 6])), "p: 8 x i16 = [1, 2, 1, 2, 3, 4, 5, 6]");
        assert_eq!(describe_buffer(&p, &[1, 2, 3]), "p = 010203", "bytes that are no whole number of elements");
    }

    #[test]
    fn elements_print_as_their_type_reads() {
        let buffer = |elem| ArgSpec::in_out("b", elem, Len::Fixed(2), Bound::Any, Bound::Any);
        let lanes = [0x0123_4567_89ab_cdefu64, 0, 0, 0];
        let bytes: Vec<u8> = lanes.iter().flat_map(|v| v.to_le_bytes()).collect();
        assert_eq!(
            describe_buffer(&buffer(Elem::U64), &bytes),
            "b: 4 x u64, all 0x0000000000000000 but b[0] = 0x0123456789abcdef"
        );
        let doubles: Vec<u8> = [1.5f64, -0.25].iter().flat_map(|v| v.to_le_bytes()).collect();
        assert_eq!(describe_buffer(&buffer(Elem::F64), &doubles), "b: 2 x f64 = [1.5e0, -2.5e-1]");
        // Residues print in decimal, whatever their type.
        let residues = buffer(Elem::U16).modulus(Modulus::plain(12289));
        assert_eq!(describe_buffer(&residues, &[0x00, 0x30, 0, 0]), "b: 2 x u16 = [12288, 0]");
    }
}
