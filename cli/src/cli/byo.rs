//! `--manifest`: your own kernels, linked with our harness (`pqhelium link`) and checked by `fuzz`, `check`, `repro`
//! and `bench` as ours are.

use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::sync::atomic::{AtomicBool, Ordering};

use anyhow::{Result, anyhow, bail};
use pqhelium::author::{Kernels, Options};
use pqhelium_byo::{self as byo, Loaded};
use pqhelium_engine::diff::{CampaignResult, Failure};
use pqhelium_families::Kernel;
use pqhelium_guest::backend::{Call, Image, Limits};

#[derive(clap::Args)]
pub struct LinkArgs {
    /// The manifest of your kernels (TOML; README "Check your own kernel").
    #[arg(long)]
    manifest: PathBuf,
    /// The linked image.
    #[arg(short, long)]
    output: PathBuf,
}

/// Builds, lints and links the manifest's code; an `-o` of `link` is used as it is (no rebuild) when it is given.
/// The build's notes go to stderr; lint findings `allow_lint` let through are a banner on stdout, before any result,
/// and make the run one that does not pass ([`verdict`]).
pub fn load(manifest: &Path, output: Option<&Path>, allow_lint: &[String]) -> Result<Loaded> {
    let options = byo::Options { allow_lint: allow_lint.to_vec() };
    let loaded = byo::load_with(manifest, output, &options).map_err(|e| anyhow!(e))?;
    for note in &loaded.notes {
        eprintln!("note: {note}");
    }
    if !loaded.allowed.is_empty() {
        INVESTIGATED.store(true, Ordering::Relaxed);
        println!("{INVESTIGATION}: the lint refuses {}: {}", manifest.display(), loaded.allowed.join("; "));
        println!("{INVESTIGATION}: run with --allow-lint; no result below is a pass, the exit code is 1 at best\n");
    }
    Ok(loaded)
}

/// What marks every result of an object the lint refuses, run with `--allow-lint`.
pub const INVESTIGATION: &str = "INVESTIGATION ONLY";

/// Whether this process ran an object the lint refuses.
static INVESTIGATED: AtomicBool = AtomicBool::new(false);

/// The exit code of a command: a success becomes a failure (1), with a last line saying why, when the command ran an
/// object the lint refuses.
pub fn verdict(code: ExitCode) -> ExitCode {
    if INVESTIGATED.load(Ordering::Relaxed) && code == ExitCode::SUCCESS {
        println!("{INVESTIGATION}: the results above are of an object the lint refuses (--allow-lint): not a pass");
        return ExitCode::FAILURE;
    }
    code
}

/// How a reproduction command names where a failure ran: `--manifest m.toml` for your image.
pub fn reproduce_on(image: Image) -> Option<String> {
    match image {
        Image::User(guest) => {
            pqhelium_guest::backend::manifest_of(guest.name).map(|m| format!("--manifest {}", m.display()))
        }
        _ => None,
    }
}

/// Their kernels matching `pattern`, or an error naming those there are.
pub fn matching(loaded: &Loaded, pattern: &str) -> Result<Vec<&'static Kernel>> {
    let kernels = loaded.matching(pattern);
    if kernels.is_empty() {
        let names: Vec<&str> = loaded.kernels.iter().map(|k| k.id).collect();
        let near = pqhelium_families::did_you_mean(pattern, names.iter().copied());
        bail!("no symbol of the manifest matches `{pattern}`{near} (its symbols: {})", names.join(", "));
    }
    Ok(kernels)
}

/// `pqhelium link`.
pub fn link(args: LinkArgs) -> Result<ExitCode> {
    let loaded = load(&args.manifest, Some(&args.output), &[])?;
    let symbols: Vec<String> =
        loaded.kernels.iter().zip(&loaded.contracts).map(|(k, c)| format!("{} ({c})", k.id)).collect();
    let core = loaded.image.guest().cpu;
    println!("{}: linked with the {core} harness; kernels: {}", args.output.display(), symbols.join(", "));
    Ok(ExitCode::SUCCESS)
}

/// `pqhelium check --manifest`: their objects linted (when loaded), then a differential campaign of each of their
/// symbols on their image.
pub fn check(manifest: &Path, cases: u64, seed: u64, jobs: usize, allow_lint: &[String]) -> Result<ExitCode> {
    let kernels = Kernels::from_loaded(load(manifest, None, allow_lint)?);
    let investigated = !kernels.loaded().allowed.is_empty();
    let linted = if investigated { "REFUSED by the lint, run with --allow-lint" } else { "linted" };
    println!("## Your kernels ({}: {linted}, linked and checked against their contracts)\n", manifest.display());
    println!("| symbol | contract | target | cases | mismatches | faults | cases/s | instructions/call | result |");
    println!("|---|---|---|---:|---:|---:|---:|---:|---|");
    let report = kernels.check(&Options { cases, seed, jobs });
    for kernel in &report.kernels {
        let row = super::campaign_row(&kernel.campaign, Some(&kernel.contract), None);
        // The result column of a refused object's campaign says what it is.
        match investigated {
            false => println!("{row}"),
            true => println!("{} {INVESTIGATION} |", row.trim_end_matches(" |").trim_end_matches(|c| c != '|')),
        }
    }
    println!();
    for kernel in &kernels.loaded().kernels {
        println!("{}: {}", kernel.id, kernel.computes);
    }
    let results: Vec<_> = report.kernels.into_iter().map(|k| k.campaign).collect();
    for r in &results {
        let kernel = kernels.loaded().kernels.iter().find(|k| k.id == r.kernel).expect("a kernel of the manifest");
        super::print_failures(r, kernel, &[]);
        if let Some(hint) = hint(kernels.loaded(), r) {
            println!("     hint: {hint}");
        }
    }
    let passed = results.iter().all(|r| r.passed());
    super::print_totals(&results, passed);
    Ok(super::exit(passed))
}

/// What a campaign's mismatches suggest about the kernel's adapters: the first of its first few mismatching cases,
/// run again on their image, that holds enough evidence for a hint (an edge case may have a single nonzero output).
fn hint(loaded: &Loaded, result: &CampaignResult) -> Option<String> {
    let kernel = loaded.kernels.iter().find(|k| k.id == result.kernel)?;
    let mut emulator = loaded.image.backend().open_image(Some(loaded.image), Limits::default()).ok()?;
    let mismatches = result.failures.iter().filter(|f| matches!(f.failure, Failure::Mismatch { .. }));
    mismatches.take(HINT_CASES).find_map(|failure| {
        let output = emulator.call(&Call::new(kernel.symbol, failure.args.clone())).ok()?;
        kernel.hint(&failure.args, &kernel.outcome_of(&failure.args, output))
    })
}

/// The mismatching cases a hint is looked for in.
const HINT_CASES: usize = 8;
