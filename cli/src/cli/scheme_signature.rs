//! `pqhelium scheme --scheme fndsa512|fndsa1024`: FN-DSA whole on the guest (`pqhelium_schemes::fndsa_on_guest`),
//! the signature known answers run end to end by the object code, then the NIST signature KAT procedure through
//! the pqm4 API: per operation pass or fail against the host reference (and the published values), instructions,
//! estimated cycles (M55, M85), stack high-water mark; the build's code and data size; `--plot` (docs/schemes.md).

use std::process::ExitCode;

use anyhow::{Context, Result, bail};
use pqhelium_analyses::cycles::{self, Estimators, plot};
use pqhelium_families::fndsa_sign::KAT_ENTRIES;
use pqhelium_guest::backend::{Arg, Image, Limits};
use pqhelium_schemes::fndsa_on_guest::{self, Op, SignatureBuild};
use pqhelium_schemes::kat;
use pqhelium_schemes::on_guest::{SECURITY_STRENGTH, STACK_WINDOW};
use std::path::{Path, PathBuf};

/// A run: the scheme's degree, the build, the image, how many known answers, whether to estimate cycles, and where
/// to draw the chart of entry 0's operations for every build in the image (`--plot`).
pub struct Run {
    pub logn: u32,
    pub build: SignatureBuild,
    pub image: Image,
    pub entries: u64,
    pub no_cycles: bool,
    pub plot: Option<PathBuf>,
    /// `--ct-pairs`: constant-time pairs of each operation.
    pub ct_pairs: Option<u64>,
}

/// Per operation: entries passed, instructions and cycles of entry 0, the largest stack over the entries.
#[derive(Default)]
struct Row {
    passed: u64,
    instructions: u64,
    /// The cycle estimate by instruction class (`--plot` draws it).
    by_class: Option<cycles::model::ByClass>,
    stack: u32,
    saturated: bool,
}

impl Row {
    /// The estimate's total, the sum its chart bar draws.
    fn cycles(&self) -> String {
        self.by_class.map_or("-".to_string(), |c| format!("{:.0}", c.iter().sum::<f64>()))
    }
}

/// One entry's runs into the rows: passed or not, and the largest stack so far.
fn record(rows: &mut [Row], passed: bool, ops: &[fndsa_on_guest::OpRun]) {
    for (row, op) in rows.iter_mut().zip(ops) {
        row.passed += u64::from(passed);
        row.stack = row.stack.max(op.stack);
        row.saturated |= op.saturated;
    }
}

pub fn run(run: Run) -> Result<ExitCode> {
    let Run { logn, build, image, entries, no_cycles, plot, ct_pairs } = run;
    if entries > u64::from(KAT_ENTRIES) {
        bail!("--entries {entries}: FN-DSA has {KAT_ENTRIES} signature known answers per degree");
    }
    let name = fndsa_on_guest::scheme_name(logn);
    println!(
        "{name} ({} build) on the {image} image ({}), signature known answers j = 0..{entries} (vectors/fndsa.kat)",
        build.build,
        image.backend()
    );
    let mut guest = image.open(Limits { timeout: fndsa_on_guest::CALL_TIMEOUT })?;
    let mut rows: Vec<Row> = Op::ALL.iter().map(|_| Row::default()).collect();
    let mut first = None;
    for j in 0..entries as u32 {
        let run = match fndsa_on_guest::run_kat_entry(guest.as_mut(), &build, logn, j) {
            Ok(run) => run,
            Err(e) => {
                println!("entry {j}: {e}");
                println!("scheme FAILED");
                return Ok(ExitCode::FAILURE);
            }
        };
        let reference = fndsa_on_guest::reference(logn, j).ok_or_else(|| anyhow::anyhow!("core refuses entry {j}"))?;
        let published = kat::fndsa_published_value(logn, j).map_err(anyhow::Error::msg)?;
        let passed = run.matches(&reference) && published == run.value();
        if !passed {
            println!("entry {j}: differs from the host reference or the published value");
        }
        record(&mut rows, passed, &run.ops);
        if j == 0 {
            for (row, op) in rows.iter_mut().zip(&run.ops) {
                row.instructions = op.output.instructions;
            }
            first = Some(run);
        }
    }
    if !no_cycles
        && cycles::CORES.contains(&image.core())
        && let Some(first) = &first
    {
        let mut estimators = Estimators::default();
        for (row, op) in rows.iter_mut().zip(&first.ops) {
            row.by_class = estimators.estimate(image, &op.call.symbol, &op.call.args).map(|e| e.by_class);
        }
    }
    println!();
    println!("| operation | kernel | KAT entries passed | instructions | est. cycles | stack (bytes) |");
    println!("|---|---|---|---|---|---|");
    for ((row, op), kernel) in rows.iter().zip(Op::ALL).zip(build.kernels) {
        let cycles = row.cycles();
        let stack = if row.saturated { format!(">= {STACK_WINDOW}") } else { row.stack.to_string() };
        println!("| {} | {kernel} | {}/{entries} | {} | {cycles} | {stack} |", op.name(), row.passed, row.instructions);
    }
    println!();
    println!(
        "instructions and cycles: entry 0 (the harness's count{}); stack: the largest over the entries (painted \
         {STACK_WINDOW} bytes below sp before each operation)",
        if cycles::CORES.contains(&image.core()) { "; cycles from the model, docs/cycles.md" } else { "" }
    );
    let plotted = match &plot {
        Some(path) => plot_builds(path, image, logn, &build, &rows)?,
        None => true,
    };
    let pqm4_passed =
        pqm4_api(&mut estimators_or_none(no_cycles, image), guest.as_mut(), image, &build, logn, entries)?;
    let size = build.size(image)?;
    println!(
        "size: {} bytes of code and constants, {} of data, {} of bss (shared: {}; {}: {})",
        size.code,
        size.data,
        size.bss,
        fndsa_on_guest::SHARED_OBJECTS.join(", "),
        build.build,
        build.objects.join(", ")
    );
    let ct_passed = match ct_pairs {
        Some(pairs) => super::scheme_ct::print_signature_ct(image, &build, logn, pairs)?,
        None => true,
    };
    let passed = plotted && pqm4_passed && ct_passed && rows.iter().all(|r| r.passed == entries);
    println!("{}", if passed { "scheme passed" } else { "scheme FAILED" });
    Ok(if passed { ExitCode::SUCCESS } else { ExitCode::FAILURE })
}

/// An estimator when cycles are wanted and the core has a model.
fn estimators_or_none(no_cycles: bool, image: Image) -> Option<Estimators> {
    (!no_cycles && cycles::CORES.contains(&image.core())).then(Estimators::default)
}

/// The NIST signature KAT procedure's first `entries` counts through the pqm4 API (`fndsa_on_guest::run_pqm4_entry`):
/// a row per function (entries passed against the host reference, instructions and cycles of count 0, the largest
/// stack). Whether every entry passed.
fn pqm4_api(
    estimators: &mut Option<Estimators>,
    guest: &mut dyn pqhelium_guest::backend::Backend,
    image: Image,
    build: &SignatureBuild,
    logn: u32,
    entries: u64,
) -> Result<bool> {
    println!();
    println!(
        "The pqm4 API ({}crypto_sign_*), the NIST signature KAT procedure's counts 0..{entries} against the host \
         reference:",
        fndsa_on_guest::pqm4_prefix(build, logn)
    );
    let mut rows: Vec<Row> = fndsa_on_guest::PQM4_OPS.iter().map(|_| Row::default()).collect();
    for (count, (seed, message)) in fndsa_on_guest::nist_sign_inputs(entries as usize).iter().enumerate() {
        let run = match fndsa_on_guest::run_pqm4_entry(guest, build, logn, seed, message) {
            Ok(run) => run,
            Err(e) => {
                println!("count {count}: {e}");
                return Ok(false);
            }
        };
        let reference = fndsa_on_guest::pqm4_reference(logn, seed, message)
            .ok_or_else(|| anyhow::anyhow!("core refuses count {count}"))?;
        let passed = run.passes(&reference, message);
        if !passed {
            println!("count {count}: differs from the host reference (pk, sk, sm, the opened message or the refusal)");
        }
        record(&mut rows, passed, &run.ops);
        if count == 0 {
            // The profiled worker keeps the DRBG's state from call to call: seeded first, the key pair and the
            // signature draw what the run drew.
            let init = [Arg::In(seed.to_vec()), Arg::U32(0), Arg::U32(SECURITY_STRENGTH)];
            let seeded = estimators.as_mut().is_some_and(|e| e.cycles(image, "randombytes_init", &init).is_some());
            for (row, op) in rows.iter_mut().zip(&run.ops) {
                row.instructions = op.output.instructions;
                if let Some(estimators) = estimators.as_mut().filter(|_| seeded) {
                    row.by_class = estimators.estimate(image, &op.call.symbol, &op.call.args).map(|e| e.by_class);
                }
            }
        }
    }
    println!("| function | KAT entries passed | instructions | est. cycles | stack (bytes) |");
    println!("|---|---|---|---|---|");
    for (row, name) in rows.iter().zip(fndsa_on_guest::PQM4_OPS) {
        let cycles = row.cycles();
        let stack = if row.saturated { format!(">= {STACK_WINDOW}") } else { row.stack.to_string() };
        println!("| {name} | {}/{entries} | {} | {cycles} | {stack} |", row.passed, row.instructions);
    }
    Ok(rows.iter().all(|r| r.passed == entries))
}

/// `--plot`: signature known answer j = 0 of every build in `image`, each operation's estimate by instruction class;
/// whether they all ran. The run's own build is drawn from the table's estimates, so that its bars total the table's
/// figures; every other build runs the entry here and must match the host reference.
fn plot_builds(path: &Path, image: Image, logn: u32, own: &SignatureBuild, rows: &[Row]) -> Result<bool> {
    let mut estimators = Estimators::default();
    let mut bars = Vec::new();
    let reference = fndsa_on_guest::reference(logn, 0).ok_or_else(|| anyhow::anyhow!("core refuses entry 0"))?;
    for build in fndsa_on_guest::SIGNATURE_BUILDS.iter().filter(|b| b.images.contains(&image)) {
        let estimates: Vec<Option<cycles::model::ByClass>> = if build.build == own.build {
            rows.iter().map(|row| row.by_class).collect()
        } else {
            let mut guest = image.open(Limits { timeout: fndsa_on_guest::CALL_TIMEOUT })?;
            let run = fndsa_on_guest::run_kat_entry(guest.as_mut(), build, logn, 0).map_err(anyhow::Error::msg)?;
            if !run.matches(&reference) {
                println!("--plot: the {} build's entry 0 differs from the host reference", build.build);
                return Ok(false);
            }
            let ops = run.ops.iter();
            ops.map(|op| estimators.estimate(image, &op.call.symbol, &op.call.args).map(|e| e.by_class)).collect()
        };
        for (op, by_class) in Op::ALL.iter().zip(estimates) {
            let Some(by_class) = by_class else {
                bail!("--plot: no estimate of the {} build's {}", build.build, op.name())
            };
            bars.push(plot::Bar { label: format!("{} {}", build.build, op.name()), by_class });
        }
    }
    let title = format!(
        "{} on the {}: estimated cycles per operation (signature KAT j = 0)",
        fndsa_on_guest::scheme_name(logn),
        image.core()
    );
    std::fs::write(path, plot::svg_per(&title, "operation", &bars))
        .with_context(|| format!("--plot {}", path.display()))?;
    println!("chart: {}", path.display());
    Ok(true)
}
