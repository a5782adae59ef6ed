//! `pqhelium scheme`: a whole KEM on the guest through the pqm4 API, run by the NIST KAT procedure
//! (`pqhelium_schemes::on_guest`): per operation pass or fail against the host reference, instructions, estimated
//! cycles (M55, M85), stack high-water mark, and the build's code and data size (docs/schemes.md). FN-DSA:
//! `scheme_signature`.

use std::process::ExitCode;

use anyhow::{Context, Result, bail};
use std::path::{Path, PathBuf};

use pqhelium_analyses::cycles::{self, Estimate, Estimators, plot};
use pqhelium_guest::backend::{Arg, Core, Image, Limits};
use pqhelium_schemes::fndsa_on_guest::{self, SignatureBuild};
use pqhelium_schemes::on_guest::{self, EntryRun, KemBuild, STACK_WINDOW};
use pqhelium_schemes::scheme_ct::Randomness;

/// The most KAT entries a run takes: the NIST files have 100.
const MAX_ENTRIES: u64 = 100;

/// The most seeds a differential campaign takes.
const MAX_CAMPAIGN: u64 = 10_000;

#[derive(clap::Args)]
pub struct Args {
    /// The scheme (our builds of it are in the images): the KEMs through the pqm4 API, FN-DSA as its kernels.
    #[arg(long, value_parser = scheme_name, required_unless_present = "manifest")]
    scheme: Option<String>,
    /// Which build: `portable` (scalar C) or `mve` (the MVE kernels; m55 and m85 images).
    #[arg(long, default_value = "portable", value_parser = ["portable", "mve"])]
    build: String,
    /// A scheme implementation of yours, as pqm4 lays one out, with its KAT file and cores (docs/schemes.md).
    #[arg(long, conflicts_with_all = ["scheme", "core", "build"])]
    manifest: Option<PathBuf>,
    /// The core whose image runs it (m55, m85 on QEMU; m7 on unicorn).
    #[arg(long, value_enum, default_value = "m55")]
    core: Core,
    /// With --manifest: random DRBG seeds of the differential campaign against the host reference.
    #[arg(long, default_value_t = 10, requires = "manifest", value_parser = clap::value_parser!(u64).range(0..=MAX_CAMPAIGN))]
    campaign: u64,
    /// With --manifest: the seed of the campaign's seeds.
    #[arg(long, default_value_t = 1, requires = "manifest")]
    seed: u64,
    /// NIST KAT entries to run (from count = 0; the seeds the NIST generator draws); FN-DSA: signature known
    /// answers j = 0.. (at most 10).
    #[arg(long, default_value_t = 1, value_parser = clap::value_parser!(u64).range(1..=MAX_ENTRIES))]
    entries: u64,
    /// No cycle estimates (they profile each operation once more on QEMU and run llvm-mca on its blocks).
    #[arg(long)]
    no_cycles: bool,
    /// Writes an SVG chart of entry 0's estimated cycles per operation by instruction class, for every build of the
    /// scheme in the image (portable against MVE).
    #[arg(long, conflicts_with_all = ["manifest", "no_cycles"])]
    plot: Option<PathBuf>,
    /// Constant-time traces of each operation over this many pairs of inputs differing only in secrets.
    #[arg(long, value_parser = clap::value_parser!(u64).range(1..=MAX_CT_PAIRS))]
    ct_pairs: Option<u64>,
}

/// The most pairs `--ct-pairs` takes: each runs a whole operation twice under the trace plugin.
const MAX_CT_PAIRS: u64 = 1000;

/// `--scheme`: a scheme we have a build of.
fn scheme_name(name: &str) -> Result<String, String> {
    let mut known: Vec<&str> = on_guest::KEM_BUILDS.iter().map(|b| b.name).collect();
    known.dedup();
    known.extend(fndsa_on_guest::SCHEMES.iter().map(|s| s.0));
    if known.contains(&name) {
        Ok(name.to_string())
    } else {
        Err(format!("no scheme `{name}` on the guest (known: {})", known.join(", ")))
    }
}

/// `--scheme fndsa512|fndsa1024`.
fn signature(args: Args, image: Image, logn: u32) -> Result<ExitCode> {
    let Some(build) = SignatureBuild::find(&args.build) else { bail!("no {} build of FN-DSA", args.build) };
    if !build.images.contains(&image) {
        let holding: Vec<String> = build.images.iter().map(Image::to_string).collect();
        bail!("the {} build of FN-DSA is in the {} images, not the {image} image", build.build, holding.join(", "));
    }
    if let Some(path) = &args.plot {
        if !cycles::CORES.contains(&args.core) {
            bail!("--plot: no cycle model for the {}", args.core);
        }
        super::ensure_writable("--plot", path)?;
    }
    let run = super::scheme_signature::Run {
        logn,
        build,
        image,
        entries: args.entries,
        no_cycles: args.no_cycles,
        plot: args.plot,
        ct_pairs: args.ct_pairs,
    };
    super::scheme_signature::run(run)
}

/// One operation's row: entries passed, instructions and cycles of entry 0, the largest stack over the entries.
struct Row {
    passed: usize,
    instructions: u64,
    stack: u32,
    saturated: bool,
    cycles: Option<f64>,
}

pub fn run(args: Args) -> Result<ExitCode> {
    if let Some(manifest) = args.manifest {
        return super::scheme_manifest::run(super::scheme_manifest::Run {
            manifest,
            entries: args.entries,
            campaign: args.campaign,
            seed: args.seed,
            no_cycles: args.no_cycles,
            ct_pairs: args.ct_pairs,
        });
    }
    let Some(scheme) = args.scheme.clone() else { bail!("--scheme or --manifest") };
    let image = Image::of(args.core);
    if let Some(&(_, _, logn)) = fndsa_on_guest::SCHEMES.iter().find(|s| s.0 == scheme) {
        return signature(args, image, logn);
    }
    let Some(build) = KemBuild::find(&scheme, &args.build) else { bail!("no {} build of {scheme}", args.build) };
    if !build.images.contains(&image) {
        let holding: Vec<String> = build.images.iter().map(Image::to_string).collect();
        bail!(
            "the {} build of {} is in the {} images, not the {image} image",
            build.build,
            build.name,
            holding.join(", ")
        );
    }
    if let Some(path) = &args.plot {
        if !cycles::CORES.contains(&args.core) {
            bail!("--plot: no cycle model for the {}", args.core);
        }
        super::ensure_writable("--plot", path)?;
    }
    let mut guest = image.open(Limits::default())?;
    println!(
        "{} ({} build, pqm4 API) on the {image} image ({}), NIST KAT entries 0..{}",
        build.algorithm,
        build.build,
        image.backend(),
        args.entries
    );
    let mut rows: Vec<Row> = on_guest::Op::ALL
        .iter()
        .map(|_| Row { passed: 0, instructions: 0, stack: 0, saturated: false, cycles: None })
        .collect();
    let mut kat_passed = true;
    let mut first: Option<EntryRun> = None;
    for (count, seed) in on_guest::kat_seeds(args.entries as usize).iter().enumerate() {
        let run = match on_guest::run_entry(guest.as_mut(), &build, seed) {
            Ok(run) => run,
            Err(e) => {
                println!("entry {count}: {e}");
                println!("scheme FAILED");
                return Ok(ExitCode::FAILURE);
            }
        };
        let expected = (build.reference)(seed);
        let verdicts = run.verdicts(&expected);
        for ((row, op), ok) in rows.iter_mut().zip(&run.ops).zip(verdicts) {
            row.passed += usize::from(ok);
            row.stack = row.stack.max(op.stack);
            row.saturated |= op.stack_saturated;
            if count == 0 {
                row.instructions = op.instructions;
            }
            if !ok {
                println!("entry {count}: {} differs from the host reference", op.op.api_name());
            }
        }
        if count == 0 {
            for (what, verdict) in on_guest::published_answers(guest.as_mut(), &build, &run.values) {
                kat_passed &= verdict.is_ok();
                match verdict {
                    Ok(()) => println!("pass {what}"),
                    Err(why) => println!("FAIL {what}: {why}"),
                }
            }
            first = Some(run);
        }
    }
    let mut estimators = Estimators::default();
    let mut estimates = [None, None, None];
    if !args.no_cycles
        && let Some(first) = &first
    {
        estimates = estimate_operations(&mut estimators, image, &build, first);
        for (row, estimate) in rows.iter_mut().zip(&estimates) {
            row.cycles = estimate.as_ref().map(|e| e.cycles);
        }
    }
    print_table(&build, &rows, args.entries as usize, image);
    print_size(&build, image)?;
    let ct_passed = match args.ct_pairs {
        Some(pairs) => super::scheme_ct::print_ct(image, &build, pairs, Randomness::Derandomised)?,
        None => true,
    };
    let plotted = match &args.plot {
        Some(path) => plot_builds(path, &mut estimators, image, &build, estimates)?,
        None => true,
    };
    let passed = kat_passed && ct_passed && plotted && rows.iter().all(|r| r.passed == args.entries as usize);
    println!("{}", if passed { "scheme passed" } else { "scheme FAILED" });
    Ok(if passed { ExitCode::SUCCESS } else { ExitCode::FAILURE })
}

/// Estimates of each operation of entry 0 on the M55 or M85 model: the operations run again, one profiled call
/// each, on the same inputs (the DRBG seeded first for the key pair). None for the M7.
fn estimate_operations(
    estimators: &mut Estimators,
    image: Image,
    build: &KemBuild,
    run: &EntryRun,
) -> [Option<Estimate>; 3] {
    if !cycles::CORES.contains(&image.core()) {
        return [None, None, None];
    }
    let v = &run.values;
    let init = [Arg::In(v.seed.to_vec()), Arg::U32(0), Arg::U32(256)];
    if estimators.cycles(image, "randombytes_init", &init).is_none() {
        return [None, None, None];
    }
    let args = [
        vec![Arg::Out(build.public_key), Arg::Out(build.secret_key)],
        vec![Arg::Out(build.ciphertext), Arg::Out(build.shared_secret), Arg::In(v.pk.clone())],
        vec![Arg::Out(build.shared_secret), Arg::In(v.ct.clone()), Arg::In(v.sk.clone())],
    ];
    // Between the key pair and the encapsulation the DRBG has moved on as in the KAT run: m is drawn alike.
    let mut estimates =
        on_guest::Op::ALL.iter().zip(args).map(|(&op, args)| estimators.estimate(image, &build.symbol(op), &args));
    [(); 3].map(|()| estimates.next().flatten())
}

/// `--plot`: entry 0 of every build of `build`'s scheme in `image`, each operation's estimate by instruction class.
/// The other builds run the entry here first and must match the host reference; whether they all did.
fn plot_builds(
    path: &Path,
    estimators: &mut Estimators,
    image: Image,
    build: &KemBuild,
    estimates: [Option<Estimate>; 3],
) -> Result<bool> {
    let seed = on_guest::kat_seeds(1)[0];
    let mut bars = Vec::new();
    for other in on_guest::KEM_BUILDS.iter().filter(|b| b.name == build.name && b.images.contains(&image)) {
        let estimates = if other.build == build.build {
            estimates.clone()
        } else {
            let mut guest = image.open(Limits::default())?;
            let run = on_guest::run_entry(guest.as_mut(), other, &seed)?;
            if let Some(name) = run.first_difference(&(other.reference)(&seed)) {
                println!("--plot: the {} build's entry 0: {name} differs from the host reference", other.build);
                return Ok(false);
            }
            estimate_operations(estimators, image, other, &run)
        };
        for (op, estimate) in on_guest::Op::ALL.iter().zip(estimates) {
            let Some(estimate) = estimate else {
                bail!("--plot: no estimate of the {} build's {}", other.build, op.api_name())
            };
            bars.push(plot::Bar { label: format!("{} {}", other.build, op.api_name()), by_class: estimate.by_class });
        }
    }
    let title = format!("{} on the {}: estimated cycles per operation (KAT entry 0)", build.algorithm, image.core());
    std::fs::write(path, plot::svg_per(&title, "operation", &bars))
        .with_context(|| format!("--plot {}", path.display()))?;
    println!("chart: {}", path.display());
    Ok(true)
}

fn print_table(build: &KemBuild, rows: &[Row], entries: usize, image: Image) {
    println!();
    println!("| operation | KAT entries passed | instructions | est. cycles | stack (bytes) |");
    println!("|---|---|---|---|---|");
    for (row, op) in rows.iter().zip(on_guest::Op::ALL) {
        let cycles = row.cycles.map_or("-".to_string(), |c| format!("{c:.0}"));
        let stack = if row.saturated { format!(">= {STACK_WINDOW}") } else { row.stack.to_string() };
        println!("| {} | {}/{entries} | {} | {cycles} | {stack} |", build.symbol(op), row.passed, row.instructions);
    }
    println!();
    println!(
        "instructions and cycles: entry 0 (the harness's count; {}); stack: the largest over the entries (painted \
         {STACK_WINDOW} bytes below sp before each operation)",
        if cycles::CORES.contains(&image.core()) {
            format!("cycles from the {} model, docs/cycles.md", image.core())
        } else {
            format!("no cycle model for the {}", image.core())
        }
    );
}

fn print_size(build: &KemBuild, image: Image) -> Result<()> {
    let size = on_guest::build_size(build, image)?;
    println!(
        "size: {} bytes of code and constants, {} of data, {} of bss ({})",
        size.code,
        size.data,
        size.bss,
        build.objects.join(", ")
    );
    Ok(())
}
