//! `pqhelium merge`: the shards of a campaign run on several machines (`fuzz --shard K/N`), combined into the report
//! of one run.

use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Duration;

use anyhow::{Context, Result};
use pqhelium_engine::diff::summary_line;
use pqhelium_engine::report::{self, Report};
use pqhelium_engine::shard::Shard;

#[derive(clap::Args)]
pub struct Args {
    /// Shard reports (`fuzz --shard K/N --report FILE`), in any order.
    #[arg(required = true)]
    shards: Vec<PathBuf>,
    /// The merged report.
    #[arg(short, long)]
    output: PathBuf,
    /// Also the merged report as JUnit XML.
    #[arg(long)]
    junit: Option<PathBuf>,
}

pub fn run(args: Args) -> Result<ExitCode> {
    super::ensure_writable("--output", &args.output)?;
    if let Some(junit) = &args.junit {
        super::ensure_writable("--junit", junit)?;
    }
    let mut shards = Vec::with_capacity(args.shards.len());
    for path in &args.shards {
        let report = Report::load(path).map_err(anyhow::Error::msg)?;
        shards.push((path.display().to_string(), report));
    }
    let merged = report::merge(&shards)?;
    merged.save(&args.output).with_context(|| format!("writing {}", args.output.display()))?;
    if let Some(junit) = &args.junit {
        std::fs::write(junit, report::junit(&merged)).with_context(|| format!("writing {}", junit.display()))?;
    }
    for c in &merged.campaigns {
        println!(
            "{} on {}: {} cases ({}), {} mismatches, {} faults",
            c.kernel, c.backend, c.cases_run, c.ranges, c.mismatches, c.faults
        );
        for f in c.failures.iter().take(10) {
            println!("FAIL {} on {}, case {}: {}\n     reproduce: {}", c.kernel, c.backend, f.case, f.detail, f.repro);
        }
    }
    if !merged.complete {
        println!(
            "incomplete: {}; `pqhelium fuzz --kernel '{}' --resume {}` runs the missing cases",
            what_is_missing(&shards),
            merged.plan.as_ref().map_or("*", |p| p.kernel.as_str()),
            args.output.display()
        );
    }
    let sum = |f: fn(&report::CampaignReport) -> u64| merged.campaigns.iter().map(f).sum::<u64>();
    let elapsed = merged.campaigns.iter().map(|c| c.elapsed_seconds).sum::<f64>();
    println!(
        "{}",
        summary_line(
            sum(|c| c.cases_run),
            sum(|c| c.mismatches) as usize,
            sum(|c| c.faults) as usize,
            Duration::from_secs_f64(elapsed)
        )
    );
    Ok(super::exit(merged.complete && merged.passed()))
}

/// The shards of the split that were not given, and those given that did not finish.
fn what_is_missing(shards: &[(String, Report)]) -> String {
    let given: Vec<Shard> = shards.iter().filter_map(|(_, r)| r.plan.as_ref()?.shard).collect();
    let count = given.first().map_or(1, |s| s.count);
    let missing: Vec<String> =
        (0..count).filter(|&k| !given.iter().any(|s| s.index == k)).map(|k| format!("{k}/{count}")).collect();
    let unfinished: Vec<&str> = shards.iter().filter(|(_, r)| !r.complete).map(|(name, _)| name.as_str()).collect();
    let mut parts = Vec::new();
    if !missing.is_empty() {
        parts.push(format!("shards {} missing", missing.join(", ")));
    }
    if !unfinished.is_empty() {
        parts.push(format!("{} did not finish", unfinished.join(", ")));
    }
    parts.join("; ")
}
