//! `--manifest`: your own kernels, linked with our harness (`pqhelium link`) and checked by `fuzz`, `check`, `repro`
//! and `bench` as ours are.

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use anyhow::{Result, anyhow, bail};
use pqhelium::author::{Kernels, Options};
use pqhelium_byo::{self as byo, Loaded};
use pqhelium_families::Kernel;
use pqhelium_guest::backend::Image;

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
pub fn load(manifest: &Path, output: Option<&Path>) -> Result<Loaded> {
    byo::load(manifest, output).map_err(|e| anyhow!(e))
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
        bail!("no symbol of the manifest matches `{pattern}` (its symbols: {})", names.join(", "));
    }
    Ok(kernels)
}

/// `pqhelium link`.
pub fn link(args: LinkArgs) -> Result<ExitCode> {
    let loaded = load(&args.manifest, Some(&args.output))?;
    let symbols: Vec<String> =
        loaded.kernels.iter().zip(&loaded.contracts).map(|(k, c)| format!("{} ({c})", k.id)).collect();
    let core = loaded.image.guest().cpu;
    println!("{}: linked with the {core} harness; kernels: {}", args.output.display(), symbols.join(", "));
    Ok(ExitCode::SUCCESS)
}

/// `pqhelium check --manifest`: their objects linted (when loaded), then a differential campaign of each of their
/// symbols on their image.
pub fn check(manifest: &Path, cases: u64, seed: u64, jobs: usize) -> Result<ExitCode> {
    let kernels = Kernels::load(manifest).map_err(|e| anyhow!(e))?;
    println!("## Your kernels ({}: linted, linked and checked against their contracts)\n", manifest.display());
    println!("| symbol | contract | target | cases | mismatches | faults | cases/s | instructions/call | result |");
    println!("|---|---|---|---:|---:|---:|---:|---:|---|");
    let report = kernels.check(&Options { cases, seed, jobs });
    for kernel in &report.kernels {
        println!("{}", super::campaign_row(&kernel.campaign, Some(&kernel.contract), None));
    }
    println!();
    for kernel in &kernels.loaded().kernels {
        println!("{}: {}", kernel.id, kernel.computes);
    }
    let results: Vec<_> = report.kernels.into_iter().map(|k| k.campaign).collect();
    for r in &results {
        super::print_failures(r);
    }
    let passed = results.iter().all(|r| r.passed());
    super::print_totals(&results, passed);
    Ok(super::exit(passed))
}
