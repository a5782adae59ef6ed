//! `pqhelium ct`: constant-time evidence. For each kernel, pairs of inputs that differ only in the arguments its
//! contract marks secret run through the object code under trace; every difference between the two leakage traces
//! is a leak (see `pqhelium_analyses::ct`).

use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::{Context, Result, bail};
use pqhelium_analyses::ct::{self, KernelReport, Tracer, Verdict};
use pqhelium_families as registry;
use pqhelium_guest::backend::{Image, Limits};
use serde::Serialize;

#[derive(clap::Args)]
pub struct Args {
    /// With --manifest: run an object the lint refuses for this rule (repeatable: `undecodable`,
    /// `potentially-undefined`, `unpredictable-operands`), for investigation: every result is marked, and the exit
    /// code is 1 at best.
    #[arg(long, requires = "manifest", value_name = "RULE")]
    allow_lint: Vec<String>,
    /// Kernel id or glob; with --manifest, its symbols (all when absent).
    #[arg(long, required_unless_present_any = ["manifest", "table"])]
    kernel: Option<String>,
    /// Your kernels' manifest instead (README "Check your own kernel"): its symbols traced on the image linked from it.
    #[arg(long, conflicts_with = "image")]
    manifest: Option<PathBuf>,
    /// Pairs per kernel; pair i compares case i with the secret arguments of a later case.
    #[arg(long, default_value_t = 100, value_parser = super::numbers::cases())]
    pairs: u64,
    /// Compare this pair alone (to reproduce a leak from its report line).
    #[arg(long, conflicts_with = "pairs", value_parser = super::numbers::case())]
    pair: Option<u64>,
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// Guest image to trace (repeatable): m7 on unicorn, m55 and m85 on QEMU through the trace plugin.
    #[arg(long, value_enum, default_values_t = [Image::M7])]
    image: Vec<Image>,
    /// Also write the verdicts as JSON.
    #[arg(long)]
    report: Option<PathBuf>,
    /// Instead: the verdict table of docs/constant-time.md (Markdown, a row per kernel, a column per image) from
    /// `--report` files; for a kernel and image in several, the last file given wins (a re-run after a change).
    #[arg(long, num_args = 1.., conflicts_with_all = ["kernel", "manifest", "pairs", "pair", "report"])]
    table: Vec<PathBuf>,
}

#[derive(Serialize)]
struct Report<'a> {
    schema: &'static str,
    kernels: &'a [KernelReport],
}

pub fn run(args: Args) -> Result<ExitCode> {
    if !args.table.is_empty() {
        print!("{}", table(&args.table)?);
        return Ok(ExitCode::SUCCESS);
    }
    let pattern = args.kernel.as_deref().unwrap_or("*");
    let loaded = args.manifest.as_deref().map(|m| super::byo::load(m, None, &args.allow_lint)).transpose()?;
    let (kernels, mut images) = match &loaded {
        Some(loaded) => (super::byo::matching(loaded, pattern)?, vec![loaded.image]),
        None => (registry::matching(pattern), args.image.clone()),
    };
    if kernels.is_empty() {
        bail!("{}", super::no_match(pattern));
    }
    if let Some(path) = &args.report {
        super::ensure_writable("--report", path)?;
    }
    let range = match args.pair {
        Some(pair) => pair..pair + 1,
        None => 0..args.pairs,
    };
    images.dedup();
    let mut reports = Vec::new();
    for image in images {
        let mut tracer = Tracer::open(image, Limits::default())?;
        println!("leakage traces on {} ({image} image), seed {}", tracer.backend_name(), args.seed);
        for &kernel in &kernels {
            let report = ct::check_kernel(&mut tracer, kernel, args.seed, range.clone());
            print_verdict(&report);
            reports.push(report);
        }
    }
    if let Some(path) = &args.report {
        let json = serde_json::to_string_pretty(&Report { schema: "pqhelium-ct/1", kernels: &reports })?;
        std::fs::write(path, json + "\n").with_context(|| format!("--report {}", path.display()))?;
    }
    let pairs: u64 = reports.iter().map(|r| r.pairs).sum();
    let leaks = reports.iter().filter(|r| matches!(r.verdict, Verdict::Leak { .. })).count();
    let faults: u64 = reports.iter().map(|r| r.faults).sum();
    let unpaired = reports.iter().filter(|r| no_pair_compared(r)).count();
    let unpaired_note =
        if unpaired > 0 { format!(", {unpaired} kernels with no pair compared") } else { String::new() };
    println!("{pairs} pairs, {leaks} leaks, {faults} faults{unpaired_note}");
    Ok(super::exit(leaks == 0 && faults == 0 && unpaired == 0))
}

/// A kernel that was to be compared and had no pair with a fitting partner: no evidence, no pass.
fn no_pair_compared(report: &KernelReport) -> bool {
    matches!(report.verdict, Verdict::ConstantTime) && report.pairs == 0
}

fn print_verdict(report: &KernelReport) {
    let KernelReport { kernel, pairs, faults, unpaired, .. } = report;
    let unpaired = if *unpaired > 0 { format!(" ({unpaired} without a fitting partner)") } else { String::new() };
    match &report.verdict {
        Verdict::Skipped { reason } => println!("SKIP {kernel}: {reason}"),
        Verdict::NoSecret { reason } => println!("SKIP {kernel}: no secret argument: {reason}"),
        Verdict::NotTraced { reason } => println!("SKIP {kernel}: not traced as a whole: {reason}"),
        Verdict::ConstantTime if no_pair_compared(report) => println!("NO PAIRS {kernel}: 0 pairs compared{unpaired}"),
        Verdict::ConstantTime if *faults == 0 && report.declassified_pairs > 0 => println!(
            "pass {kernel}: {pairs} pairs{unpaired}, equal traces up to declared public events ({} pairs)",
            report.declassified_pairs
        ),
        Verdict::ConstantTime if *faults == 0 => println!("pass {kernel}: {pairs} pairs{unpaired}, equal traces"),
        Verdict::ConstantTime => println!("FAULT {kernel}: {pairs} pairs, {faults} faulted"),
        Verdict::Leak { pair, case_a, case_b, leak } => {
            println!("LEAK {kernel}: {leak}");
            println!("     pair {pair}: case {case_a} with the secret arguments of case {case_b}");
            let on = match pqhelium_guest::backend::manifest_of(&report.image) {
                Some(manifest) => format!("--manifest {}", manifest.display()),
                None => format!("--image {}", report.image),
            };
            println!("     reproduce: pqhelium ct --kernel {kernel} {on} --seed {} --pair {pair}", report.seed);
            for found in &report.leaks[1..] {
                println!("     also: {} (pair {}, {} of {pairs} pairs)", found.leak, found.pair, found.pairs);
            }
        }
    }
    if let Some(fault) = &report.first_fault {
        println!("     first fault: {fault}");
    }
    for declaration in &report.declarations {
        println!("     declared public: {declaration}");
    }
    if let Some(leak) = &report.first_declassified {
        println!("     {} pairs first differ at a declared public event, the first: {leak}", report.declassified_pairs);
    }
}

/// The columns of the verdict table.
const TABLE_IMAGES: [(Image, &str); 3] =
    [(Image::M55, "m55 (gcc, QEMU)"), (Image::M85, "m85 (clang, QEMU)"), (Image::M7, "m7 (gcc, unicorn)")];

/// One cell of the verdict table, from one kernel's entry of a `--report` file.
fn cell(entry: &serde_json::Value) -> Result<Option<String>> {
    let field = |name: &str| entry.get(name).with_context(|| format!("a kernel entry without `{name}`"));
    let count = |name: &str| field(name).map(|v| v.as_u64().unwrap_or(0));
    let (pairs, faults) = (count("pairs")?, count("faults")?);
    let text = match field("status")?.as_str() {
        Some("skipped" | "no-secret" | "not-traced") => return Ok(None),
        _ if faults > 0 => format!("**fault** ({faults} of {pairs} pairs)"),
        Some("constant-time") if count("declassified_pairs")? > 0 => format!("pass ({pairs}; declared public events)"),
        Some("constant-time") => format!("pass ({pairs})"),
        Some("leak") => {
            let leak = field("leak")?;
            let kind: ct::LeakKind = serde_json::from_value(leak["kind"].clone()).context("a leak's kind")?;
            let location = leak["location"].as_str().unwrap_or("?");
            let more = match field("leaks")?.as_array().map_or(0, Vec::len) {
                0 | 1 => String::new(),
                n => format!(" and {} more", n - 1),
            };
            match leak["source"].as_str() {
                Some(source) => format!("**{kind}** `{location}` ({source}){more}"),
                None => format!("**{kind}** `{location}`{more}"),
            }
        }
        other => bail!("unknown status {other:?}"),
    };
    Ok(Some(text))
}

/// The verdict table of `pqhelium ct --report` files: a row per kernel in registry order, `-` where an image has no
/// object code for it; kernels with no verdict anywhere are listed after the table.
fn table(paths: &[PathBuf]) -> Result<String> {
    use std::collections::HashMap;
    let mut cells: HashMap<(String, String), Option<String>> = HashMap::new();
    for path in paths {
        let text = std::fs::read_to_string(path).with_context(|| format!("--table {}", path.display()))?;
        let report: serde_json::Value =
            serde_json::from_str(&text).with_context(|| format!("--table {}: not JSON", path.display()))?;
        if report["schema"] != "pqhelium-ct/1" {
            bail!("--table {}: not a `pqhelium ct --report` file (schema pqhelium-ct/1)", path.display());
        }
        for entry in report["kernels"].as_array().into_iter().flatten() {
            let name = |key: &str| entry[key].as_str().map(str::to_owned);
            let (Some(kernel), Some(image)) = (name("kernel"), name("image")) else {
                bail!("--table {}: a kernel entry without kernel or image", path.display());
            };
            let cell = cell(entry).with_context(|| format!("--table {}: {kernel} on {image}", path.display()))?;
            cells.insert((kernel, image), cell);
        }
    }
    let mut out = String::from("| kernel |");
    for (_, heading) in TABLE_IMAGES {
        out += &format!(" {heading} |");
    }
    out += "\n|---|---|---|---|\n";
    let mut absent = Vec::new();
    for kernel in registry::all() {
        let row: Vec<Option<&String>> = TABLE_IMAGES
            .iter()
            .map(|(image, _)| cells.get(&(kernel.id.to_owned(), image.name().to_owned())).and_then(Option::as_ref))
            .collect();
        if row.iter().all(Option::is_none) {
            absent.push(format!("`{}`", kernel.id));
            continue;
        }
        out += &format!("| `{}` |", kernel.id);
        for cell in row {
            out += &format!(" {} |", cell.map_or("-", String::as_str));
        }
        out += "\n";
    }
    if !absent.is_empty() {
        out += &format!(
            "\nNot in the table: {} (no object code, no secret argument, not traced as a whole, or not run).\n",
            absent.join(", ")
        );
    }
    Ok(out)
}
