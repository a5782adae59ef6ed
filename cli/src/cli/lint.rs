//! `pqhelium lint`: every instruction of our guest images, or of a user's objects, checked before it runs.

use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::{Result, bail};
use pqhelium_analyses::lint::{self, Isa, LintError, LintReport};
use pqhelium_guest::backend::Image;

#[derive(clap::Args)]
pub struct Args {
    /// Guest images to lint (repeatable; all three when neither --image nor --object is given).
    #[arg(long, value_enum)]
    image: Vec<Image>,
    /// An object file or linked image of your own (`.o`, `.elf`; repeatable), decoded for --core.
    #[arg(long)]
    object: Vec<PathBuf>,
    /// The core the --object files are built for: m55, m85 (Armv8.1-M + MVE + FP64) or m7 (Armv7E-M + FP64).
    #[arg(long, default_value = "m55", value_parser = ["m55", "m85", "m7"])]
    core: String,
}

/// The instruction set an image's code is decoded as.
pub fn image_isa(image: Image) -> Isa {
    Isa::of_core(image.name()).expect("every image names a core")
}

/// Lints our images; prints a line per image and every finding. Returns whether all were clean.
pub fn lint_images(images: &[Image]) -> Result<bool> {
    let mut clean = true;
    for &image in images {
        let guest = image.guest();
        let report = lint::lint_bytes(guest.name, guest.elf, image_isa(image))?;
        clean &= print_report(&format!("{}.elf", guest.name), &report);
    }
    Ok(clean)
}

fn print_report(name: &str, report: &LintReport) -> bool {
    println!("{name}: {} instructions, {} findings", report.instructions, report.findings.len());
    for finding in &report.findings {
        println!("  {name}: {finding}");
    }
    report.findings.is_empty()
}

pub fn run(args: Args) -> Result<ExitCode> {
    let isa = Isa::of_core(&args.core).expect("clap limits --core");
    if args.object.is_empty() && args.image.is_empty() {
        return finish(lint_images(&Image::ALL)?, Image::ALL.len());
    }
    let mut clean = lint_images(&args.image)?;
    for path in &args.object {
        if !path.exists() {
            bail!("--object {}: no such file", path.display());
        }
        let report = match lint::lint_file(path, isa) {
            Err(e @ LintError::OtherArchitecture { .. }) => bail!("{e}: lint it with --core m55 or m85"),
            report => report?,
        };
        clean &= print_report(&path.display().to_string(), &report);
    }
    finish(clean, args.image.len() + args.object.len())
}

fn finish(clean: bool, objects: usize) -> Result<ExitCode> {
    println!(
        "{objects} objects linted, {}",
        if clean { "no findings" } else { "findings: these objects must not run" }
    );
    Ok(super::exit(clean))
}
