//! Campaign reports: JSON (schema `pqhelium-report/1`, documented in docs/report.md), which is also the checkpoint
//! a killed campaign resumes from, and JUnit XML (one test case per kernel x backend) for CI.

use std::path::Path;

use serde::{Deserialize, Serialize};

use crate::coverage::Coverage;
use crate::diff::{CampaignResult, CaseFailure, Failure};
use crate::ranges::Ranges;
use crate::shard::Shard;
use pqhelium_families::CASE_GENERATORS;
use pqhelium_guest::backend::{Arg, BackendKind, Image, target_label};

pub const SCHEMA: &str = "pqhelium-report/1";

#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Report {
    pub schema: String,
    pub tool_version: String,
    /// `registry::CASE_GENERATORS` of the run: with another version the same seed gives other cases.
    #[serde(default = "first_case_generators")]
    pub case_generators: u32,
    pub seed: u64,
    /// False while a campaign is running or after it was interrupted: `--resume` continues it.
    pub complete: bool,
    /// What `pqhelium fuzz` was asked to run (absent in `check` reports).
    #[serde(default)]
    pub plan: Option<Plan>,
    pub campaigns: Vec<CampaignReport>,
}

/// The command line that defines a fuzz campaign: a resumed run and the shards of a merge must share it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Plan {
    /// `--kernel` as given (an id or a glob).
    pub kernel: String,
    /// `--backend` as given; empty for every backend each kernel has.
    pub backends: Vec<String>,
    /// `--cases`; absent for a campaign bounded by `--duration`.
    pub cases: Option<u64>,
    /// `--image`; absent for each backend's default image.
    #[serde(default)]
    pub image: Option<String>,
    /// `--shard`; absent for a whole campaign (and in a merged report).
    pub shard: Option<Shard>,
    /// `--manifest`: your kernels' manifest as given and the SHA-256 of its text; `--resume` refuses a changed one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub manifest: Option<ManifestRecord>,
}

/// The manifest a campaign ran from.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ManifestRecord {
    pub path: std::path::PathBuf,
    pub sha256: String,
}

impl ManifestRecord {
    /// The record of the manifest at `path` as it is now.
    pub fn of(path: &Path) -> Result<Self, String> {
        use sha2::Digest;
        let text = std::fs::read(path).map_err(|e| format!("{}: {e}", path.display()))?;
        Ok(Self { path: path.to_path_buf(), sha256: hex::encode(sha2::Sha256::digest(&text)) })
    }
}

#[derive(Debug, Clone, Default, Serialize, Deserialize)]
pub struct CampaignReport {
    pub kernel: String,
    pub backend: String,
    /// The guest image that ran (`m55`, `m85`, `m7`; none for the model). Reports written before the field existed
    /// ran each backend's default image, and read so.
    #[serde(default)]
    pub image: Option<String>,
    /// Cases `0..cases_requested`; absent for a campaign bounded by time.
    pub cases_requested: Option<u64>,
    /// Exactly the case indices run so far, over every resumed run.
    pub ranges: Ranges,
    pub cases_run: u64,
    pub mismatches: u64,
    pub faults: u64,
    /// Cases run a second time because their emulator died or hung.
    pub retries: u64,
    pub elapsed_seconds: f64,
    pub cases_per_second: f64,
    pub instructions: Option<Instructions>,
    pub setup_error: Option<String>,
    pub failures: Vec<FailureReport>,
    /// Bound coverage: what the model's steps reached against their proven intervals (kernels that declare steps).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub coverage: Option<Coverage>,
}

#[derive(Debug, Clone, Default, Serialize, Deserialize)]
pub struct Instructions {
    pub calls: u64,
    pub min: u64,
    pub max: u64,
    pub total: u64,
    pub mean: f64,
}

#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct FailureReport {
    pub case: u64,
    /// `mismatch`, `fault` or `bound` (an input or output outside the contract's declared bounds).
    pub kind: String,
    pub detail: String,
    pub input: Vec<ArgReport>,
    /// The minimal failing input found by shrinking, when smaller than `input`.
    pub shrunk_input: Option<Vec<ArgReport>>,
    /// The command that re-runs the original case alone.
    pub repro: String,
    /// A Rust test that fails until the kernel is fixed, on the shrunk input when there is one.
    pub regression_test: String,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ArgReport {
    /// `in`, `inout`, `out`, `u32` or `f64`.
    pub kind: String,
    /// Buffer contents (`in`, `inout`) as hex, output length (`out`), or the scalar (`u32` hex, `f64` bits hex).
    pub value: String,
}

/// Reports written before the field existed.
fn first_case_generators() -> u32 {
    1
}

impl Report {
    pub fn new(seed: u64) -> Self {
        Self {
            schema: SCHEMA.into(),
            tool_version: env!("CARGO_PKG_VERSION").into(),
            case_generators: CASE_GENERATORS,
            seed,
            complete: false,
            plan: None,
            campaigns: vec![],
        }
    }

    pub fn load(path: &Path) -> Result<Self, String> {
        let text = std::fs::read_to_string(path).map_err(|e| format!("{}: {e}", path.display()))?;
        Self::parse(&text).map_err(|e| format!("{}: {e}", path.display()))
    }

    /// A report from its JSON text; another schema is refused.
    pub fn parse(text: &str) -> Result<Self, String> {
        let mut report: Report = serde_json::from_str(text).map_err(|e| e.to_string())?;
        if report.schema != SCHEMA {
            return Err(format!("schema {} (expected {SCHEMA})", report.schema));
        }
        for c in report.campaigns.iter_mut().filter(|c| c.image.is_none()) {
            c.image = default_image(&c.backend);
        }
        Ok(report)
    }

    /// Writes atomically (temporary file, synced, then renamed): a crash never leaves half a checkpoint.
    pub fn save(&self, path: &Path) -> std::io::Result<()> {
        self.save_pausing(path, std::time::Duration::ZERO)
    }

    /// [`Report::save`] with a pause between writing the temporary file and renaming it (fault injection: a test
    /// kills the writer in that window).
    pub fn save_pausing(&self, path: &Path, pause: std::time::Duration) -> std::io::Result<()> {
        let tmp = path.with_extension("tmp");
        let mut file = std::fs::File::create(&tmp)?;
        std::io::Write::write_all(
            &mut file,
            serde_json::to_string_pretty(self).expect("report serialises").as_bytes(),
        )?;
        // On disk before the rename: after a power loss the file in place is the old checkpoint or the new one.
        file.sync_all()?;
        std::thread::sleep(pause);
        std::fs::rename(tmp, path)
    }

    /// The entry of a kernel on a backend and its default image, created if absent.
    pub fn campaign_mut(&mut self, kernel: &str, backend: &str) -> &mut CampaignReport {
        self.campaign_on_image_mut(kernel, backend, default_image(backend).as_deref())
    }

    /// The entry of a kernel on a backend and image, created if absent.
    pub fn campaign_on_image_mut(&mut self, kernel: &str, backend: &str, image: Option<&str>) -> &mut CampaignReport {
        let same = |c: &CampaignReport| c.kernel == kernel && c.backend == backend && c.image.as_deref() == image;
        if let Some(i) = self.campaigns.iter().position(same) {
            return &mut self.campaigns[i];
        }
        self.campaigns.push(CampaignReport {
            kernel: kernel.into(),
            backend: backend.into(),
            image: image.map(Into::into),
            ..Default::default()
        });
        self.campaigns.last_mut().unwrap()
    }

    pub fn passed(&self) -> bool {
        self.campaigns.iter().all(|c| c.failures.is_empty() && c.setup_error.is_none())
    }
}

impl CampaignReport {
    /// The backend, and the image when it is not the backend's default: `qemu (m85)`.
    pub fn target(&self) -> String {
        target_label(&self.backend, self.image.as_deref().and_then(Image::from_name))
    }

    /// Adds one run of this campaign (the first, or a resumed one).
    pub fn absorb(&mut self, result: &CampaignResult) {
        let (kernel, backend, seed) = (result.kernel, result.backend.name(), result.seed);
        let image = result.image.map(Image::name);
        self.record(
            &result.ran,
            result.failures.iter().map(|f| failure_report_on_image(kernel, backend, image, seed, f)),
        );
        self.retries += result.retries;
        self.add_time(result.elapsed.as_secs_f64());
        if result.instructions.calls > 0 {
            let i = &result.instructions;
            let run = Instructions {
                calls: i.calls,
                min: i.min,
                max: i.max,
                total: i.total,
                mean: i.mean().unwrap_or_default(),
            };
            self.add_instructions(&run);
        }
        if result.setup_error.is_some() {
            self.setup_error.clone_from(&result.setup_error);
        }
        let steps = pqhelium_families::find(result.kernel).map_or(&[][..], |k| k.coverage_steps());
        if let Some(run) = result.coverage.as_ref().and_then(|seen| Coverage::of(steps, seen)) {
            self.merge_coverage(&run);
        }
    }

    /// Adds another run's bound coverage (a resumed run, another shard).
    fn merge_coverage(&mut self, run: &Coverage) {
        let steps = pqhelium_families::find(&self.kernel).map_or(&[][..], |k| k.coverage_steps());
        match &mut self.coverage {
            Some(c) => c.merge(steps, run),
            None => self.coverage = Some(run.clone()),
        }
    }

    /// Records cases as run, with their failures (the checkpoint does this chunk by chunk).
    pub fn record(&mut self, ran: &Ranges, failures: impl IntoIterator<Item = FailureReport>) {
        self.ranges.extend(ran);
        self.cases_run = self.ranges.count();
        for f in failures {
            if f.kind == MISMATCH {
                self.mismatches += 1;
            } else {
                self.faults += 1;
            }
            self.failures.push(f);
        }
    }

    fn add_time(&mut self, seconds: f64) {
        self.elapsed_seconds += seconds;
        self.cases_per_second = self.cases_run as f64 / self.elapsed_seconds.max(1e-9);
    }

    fn add_instructions(&mut self, run: &Instructions) {
        let mut merged = self.instructions.clone().unwrap_or_default();
        merged.min = if merged.calls == 0 { run.min } else { merged.min.min(run.min) };
        merged.max = merged.max.max(run.max);
        merged.total += run.total;
        merged.calls += run.calls;
        merged.mean = merged.total as f64 / merged.calls as f64;
        self.instructions = Some(merged);
    }
}

/// The image a backend runs unless told otherwise, by names as the report has them.
fn default_image(backend: &str) -> Option<String> {
    let kind = BackendKind::ALL.into_iter().find(|b| b.name() == backend)?;
    kind.default_image().map(|i| i.name().to_string())
}

/// The `kind` of a failure where two sides differ; every other kind counts as a fault.
const MISMATCH: &str = "mismatch";

/// Why shard reports cannot be merged.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum MergeError {
    #[error("nothing to merge")]
    Nothing,
    #[error(
        "{0} is not a shard report of `pqhelium fuzz --shard` (it has no plan: written by `check` or `fuzz --report` of an older pqhelium)"
    )]
    NoPlan(String),
    #[error("{0} is a whole campaign, not a shard (no --shard): there is nothing to merge it with")]
    NotAShard(String),
    #[error("{first} and {second} are shards of different campaigns: {what} differs ({first_value} vs {second_value})")]
    DifferentCampaigns { first: String, second: String, what: &'static str, first_value: String, second_value: String },
    #[error("{first} and {second} are both shard {shard}: their cases overlap")]
    SameShard { first: String, second: String, shard: Shard },
    /// `cases`: both sides' case ranges.
    #[error("{first} and {second} overlap: both ran cases of {kernel} on {backend} ({cases})")]
    Overlap { first: String, second: String, kernel: String, backend: String, cases: String },
}

/// Combines the reports of the shards of one campaign (`(name, report)` pairs, names for messages) into the report a
/// single run would have written: the union of the case ranges, every counter summed, the failures in case order.
/// Refused: shards of different campaigns (kernel pattern, backends, case count, seed, case generators, tool
/// version, number of shards) and shards that ran a case twice (the same shard given twice included). The merged
/// report is complete when every shard is, and every shard of the split is there; otherwise its holes are the
/// missing cases, and `--resume` on it runs them.
pub fn merge(shards: &[(String, Report)]) -> Result<Report, MergeError> {
    let mut parts = Vec::with_capacity(shards.len());
    for (name, report) in shards {
        let plan = report.plan.as_ref().ok_or_else(|| MergeError::NoPlan(name.clone()))?;
        let shard = plan.shard.ok_or_else(|| MergeError::NotAShard(name.clone()))?;
        parts.push((shard, name, plan, report));
    }
    let &(first_shard, first_name, first_plan, first) = parts.first().ok_or(MergeError::Nothing)?;
    for &(shard, name, plan, report) in &parts[1..] {
        let differ = |what: &'static str, a: String, b: String| {
            (a != b).then(|| MergeError::DifferentCampaigns {
                first: first_name.clone(),
                second: name.clone(),
                what,
                first_value: a,
                second_value: b,
            })
        };
        let checks = [
            differ("--kernel", first_plan.kernel.clone(), plan.kernel.clone()),
            differ("--backend", first_plan.backends.join(","), plan.backends.join(",")),
            differ("--cases", format!("{:?}", first_plan.cases), format!("{:?}", plan.cases)),
            differ("--image", format!("{:?}", first_plan.image), format!("{:?}", plan.image)),
            differ("the seed", first.seed.to_string(), report.seed.to_string()),
            differ(
                "the case generators' version",
                first.case_generators.to_string(),
                report.case_generators.to_string(),
            ),
            differ("the pqhelium version", first.tool_version.clone(), report.tool_version.clone()),
            differ("the number of shards", first_shard.count.to_string(), shard.count.to_string()),
        ];
        if let Some(e) = checks.into_iter().flatten().next() {
            return Err(e);
        }
    }
    parts.sort_by_key(|&(shard, ..)| shard.index);
    if let Some(pair) = parts.windows(2).find(|pair| pair[0].0 == pair[1].0) {
        return Err(MergeError::SameShard { first: pair[0].1.clone(), second: pair[1].1.clone(), shard: pair[0].0 });
    }

    let mut merged = Report::new(first.seed);
    merged.tool_version.clone_from(&first.tool_version);
    merged.case_generators = first.case_generators;
    merged.plan = Some(Plan { shard: None, ..first_plan.clone() });
    // Which shard first ran each kernel x backend x image, to name both sides of an overlap.
    let mut ran_by: Vec<(&CampaignReport, &String)> = Vec::new();
    for &(_, name, _, report) in &parts {
        for c in &report.campaigns {
            let entry = merged.campaign_on_image_mut(&c.kernel, &c.backend, c.image.as_deref());
            if entry.ranges.overlaps(&c.ranges) {
                let same = |(r, _): &&(&CampaignReport, &String)| {
                    (&r.kernel, &r.backend, &r.image) == (&c.kernel, &c.backend, &c.image)
                };
                let earlier = ran_by.iter().find(same).map(|r| r.1);
                return Err(MergeError::Overlap {
                    first: earlier.cloned().unwrap_or_default(),
                    second: name.clone(),
                    kernel: c.kernel.clone(),
                    backend: c.target(),
                    cases: format!("{} and {}", entry.ranges, c.ranges),
                });
            }
            if entry.cases_requested.is_none() {
                entry.cases_requested = c.cases_requested;
            }
            entry.record(&c.ranges, c.failures.iter().cloned());
            entry.retries += c.retries;
            entry.add_time(c.elapsed_seconds);
            if let Some(i) = &c.instructions {
                entry.add_instructions(i);
            }
            if entry.setup_error.is_none() {
                entry.setup_error.clone_from(&c.setup_error);
            }
            if let Some(theirs) = &c.coverage {
                entry.merge_coverage(theirs);
            }
            ran_by.push((c, name));
        }
    }
    for c in &mut merged.campaigns {
        c.failures.sort_by_key(|f| f.case);
    }
    merged.complete = parts.len() == first_shard.count as usize && parts.iter().all(|&(.., r)| r.complete);
    Ok(merged)
}

/// The failure of a case on a backend's default image.
pub fn failure_report(kernel: &str, backend: &str, seed: u64, f: &CaseFailure) -> FailureReport {
    failure_report_on_image(kernel, backend, default_image(backend).as_deref(), seed, f)
}

/// The failure of a case on a backend and image: `repro` and `regression_test` name the image unless it is the
/// backend's default.
pub fn failure_report_on_image(
    kernel: &str,
    backend: &str,
    image: Option<&str>,
    seed: u64,
    f: &CaseFailure,
) -> FailureReport {
    let other_image = image.and_then(Image::from_name).filter(|i| !i.is_default());
    let (kind, detail) = match &f.failure {
        Failure::Mismatch { .. } => (MISMATCH, f.to_string()),
        Failure::Fault(e) => ("fault", e.to_string()),
        Failure::Bound(v) => ("bound", v.to_string()),
    };
    let on = match image.and_then(pqhelium_guest::backend::manifest_of) {
        Some(manifest) => format!("--manifest {}", manifest.display()),
        None => other_image.map_or(format!("--backend {backend}"), |i| format!("--image {i}")),
    };
    let repro = format!("pqhelium repro --kernel {kernel} {on} --seed {seed} --case {}", f.case);
    let args = f.shrunk.as_ref().unwrap_or(&f.args);
    let regression_test = match other_image {
        Some(image) => regression_test_on_image(kernel, image, seed, f.case, args),
        None => regression_test(kernel, backend, seed, f.case, args),
    };
    FailureReport {
        case: f.case,
        kind: kind.into(),
        detail,
        input: f.args.iter().map(arg_report).collect(),
        shrunk_input: f.shrunk.as_ref().map(|a| a.iter().map(arg_report).collect()),
        repro,
        regression_test,
    }
}

fn arg_report(arg: &Arg) -> ArgReport {
    let (kind, value) = match arg {
        Arg::In(b) => ("in", hex::encode(b)),
        Arg::InOut(b) => ("inout", hex::encode(b)),
        Arg::Out(n) => ("out", n.to_string()),
        Arg::U32(v) => ("u32", format!("{v:#x}")),
        Arg::F64(x) => ("f64", format!("{:#018x}", x.to_bits())),
    };
    ArgReport { kind: kind.into(), value }
}

/// Rust source of a regression test for one input, ready to paste into `cli/tests/`.
pub fn regression_test(kernel: &str, backend: &str, seed: u64, case: u64, args: &[Arg]) -> String {
    let name = format!("regression_{}_{backend}_seed{seed}_case{case}", kernel.replace(['.', '-'], "_"));
    let variant = match backend {
        "model" => "Model",
        "unicorn" => "Unicorn",
        _ => "Qemu",
    };
    format!(
        "#[test]\nfn {name}() {{\n    use pqhelium_guest::backend::{{Arg, BackendKind}};\n    let args = vec![{}];\n    \
         crate::diff::assert_case_passes(\"{kernel}\", BackendKind::{variant}, &args);\n}}\n",
        rust_args(args)
    )
}

/// [`regression_test`] on the emulator of a guest image other than its backend's default.
fn regression_test_on_image(kernel: &str, image: Image, seed: u64, case: u64, args: &[Arg]) -> String {
    let name = format!("regression_{}_{image}_seed{seed}_case{case}", kernel.replace(['.', '-'], "_"));
    let variant = format!("{image:?}");
    format!(
        "#[test]\nfn {name}() {{\n    use pqhelium_guest::backend::{{Arg, Image}};\n    let args = vec![{}];\n    \
         crate::diff::assert_case_passes_on_image(\"{kernel}\", Image::{variant}, &args);\n}}\n",
        rust_args(args)
    )
}

/// Arguments as Rust expressions of `Arg`, comma-separated.
fn rust_args(args: &[Arg]) -> String {
    let args: Vec<String> = args
        .iter()
        .map(|a| match a {
            Arg::In(b) => format!("Arg::In(hex::decode(\"{}\").unwrap())", hex::encode(b)),
            Arg::InOut(b) => format!("Arg::InOut(hex::decode(\"{}\").unwrap())", hex::encode(b)),
            Arg::Out(n) => format!("Arg::Out({n})"),
            Arg::U32(v) => format!("Arg::U32({v:#x})"),
            Arg::F64(x) => format!("Arg::F64(f64::from_bits({:#018x}))", x.to_bits()),
        })
        .collect();
    args.join(", ")
}

/// JUnit XML: one test suite, one test case per kernel x backend.
pub fn junit(report: &Report) -> String {
    use quick_junit::{NonSuccessKind, TestCase, TestCaseStatus, TestSuite};
    let mut suite = TestSuite::new("pqhelium");
    for c in &report.campaigns {
        let status = if let Some(e) = &c.setup_error {
            let mut status = TestCaseStatus::non_success(NonSuccessKind::Failure);
            status.set_message("backend did not start").set_description(e);
            status
        } else if !c.failures.is_empty() {
            let body: Vec<String> = c.failures.iter().map(|f| format!("{}\n{}", f.detail, f.repro)).collect();
            let mut status = TestCaseStatus::non_success(NonSuccessKind::Failure);
            status
                .set_message(format!("{} mismatches, {} faults in {} cases", c.mismatches, c.faults, c.cases_run))
                .set_description(body.join("\n"));
            status
        } else {
            TestCaseStatus::success()
        };
        let mut case = TestCase::new(c.target(), status);
        case.set_classname(&c.kernel)
            .set_system_out(format!("{} cases ({}), {:.0} cases/s", c.cases_run, c.ranges, c.cases_per_second));
        if let Some(time) = seconds(c.elapsed_seconds) {
            case.set_time(time);
        }
        suite.add_test_case(case);
    }
    if let Some(time) = seconds(report.campaigns.iter().map(|c| c.elapsed_seconds).sum()) {
        suite.set_time(time);
    }
    let mut xml = quick_junit::Report::new("pqhelium");
    xml.add_test_suite(suite);
    xml.to_string().expect("XML written to memory")
}

/// A time for JUnit; none for what a checkpoint from elsewhere may hold and a `Duration` cannot (negative, huge).
fn seconds(s: f64) -> Option<std::time::Duration> {
    std::time::Duration::try_from_secs_f64(s).ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn failure(case: u64, kind: &str) -> FailureReport {
        FailureReport {
            case,
            kind: kind.into(),
            detail: format!("case {case}"),
            input: vec![],
            shrunk_input: None,
            repro: String::new(),
            regression_test: String::new(),
        }
    }

    /// Shard `index` of 2 of a 10-case campaign of kernel `k` on `model`, with the given cases run.
    fn shard(index: u32, ran: [u64; 2], failures: Vec<FailureReport>, instructions: [u64; 4]) -> Report {
        let mut report = Report::new(5);
        report.complete = true;
        report.plan = Some(Plan {
            kernel: "k".into(),
            backends: vec![],
            cases: Some(10),
            image: None,
            shard: Some(Shard { index, count: 2 }),
            manifest: None,
        });
        let c = report.campaign_mut("k", "model");
        c.cases_requested = Some(10);
        c.record(&Ranges::from_slice(&[ran]), failures);
        c.add_time(1.0);
        let [calls, min, max, total] = instructions;
        c.add_instructions(&Instructions { calls, min, max, total, mean: 0.0 });
        report
    }

    #[test]
    fn an_entry_names_its_image_and_reports_before_the_field_read_as_the_default_images() {
        let old = r#"{"schema": "pqhelium-report/1", "tool_version": "0.1.0", "seed": 1, "complete": true,
            "campaigns": [CAMPAIGN_QEMU, CAMPAIGN_MODEL]}"#;
        let entry = |backend: &str| {
            format!(
                r#"{{"kernel": "k", "backend": "{backend}", "cases_requested": 1, "ranges": [[0, 1]], "cases_run": 1,
                "mismatches": 0, "faults": 0, "retries": 0, "elapsed_seconds": 1.0, "cases_per_second": 1.0,
                "instructions": null, "setup_error": null, "failures": []}}"#
            )
        };
        let old = old.replace("CAMPAIGN_QEMU", &entry("qemu")).replace("CAMPAIGN_MODEL", &entry("model"));
        let mut report = Report::parse(&old).unwrap();
        let images: Vec<Option<&str>> = report.campaigns.iter().map(|c| c.image.as_deref()).collect();
        assert_eq!(images, [Some("m55"), None]);
        // The M85 image's entry of the same kernel is another entry, and its failures name the image.
        report.campaign_on_image_mut("k", "qemu", Some("m85"));
        assert_eq!(report.campaigns.len(), 3);
        assert_eq!(report.campaigns[2].target(), "qemu (m85)");
        assert_eq!(report.campaigns[0].target(), "qemu");
        let failure = CaseFailure {
            case: 4,
            failure: Failure::Fault(pqhelium_guest::backend::CallError::MissingSymbol("f".into())),
            args: vec![Arg::U32(1)],
            shrunk: None,
        };
        let m85 = failure_report_on_image("k", "qemu", Some("m85"), 9, &failure);
        assert_eq!(m85.repro, "pqhelium repro --kernel k --image m85 --seed 9 --case 4");
        assert!(m85.regression_test.contains("assert_case_passes_on_image(\"k\", Image::M85, &args)"));
        let m55 = failure_report_on_image("k", "qemu", Some("m55"), 9, &failure);
        assert_eq!(m55.repro, "pqhelium repro --kernel k --backend qemu --seed 9 --case 4");
        assert_eq!(m55.regression_test, failure_report("k", "qemu", 9, &failure).regression_test);
    }

    #[test]
    fn merge_sums_counts_and_orders_failures() {
        let first = shard(0, [0, 5], vec![failure(3, MISMATCH), failure(1, "fault")], [5, 10, 20, 70]);
        let second = shard(1, [5, 10], vec![failure(7, MISMATCH)], [5, 5, 15, 50]);
        let merged = merge(&[("b".into(), second), ("a".into(), first)]).unwrap();
        assert!(merged.complete);
        assert_eq!(merged.plan.as_ref().unwrap().shard, None);
        let c = &merged.campaigns[0];
        assert_eq!(c.ranges, Ranges::from_slice(&[[0, 10]]));
        assert_eq!((c.cases_run, c.mismatches, c.faults), (10, 2, 1));
        assert_eq!(c.failures.iter().map(|f| f.case).collect::<Vec<_>>(), [1, 3, 7]);
        let i = c.instructions.as_ref().unwrap();
        assert_eq!((i.calls, i.min, i.max, i.total, i.mean), (10, 5, 20, 120, 12.0));
        assert_eq!(c.elapsed_seconds, 2.0);
    }

    #[test]
    fn merge_refuses_overlapping_ranges_and_reports_missing_shards_as_incomplete() {
        let first = shard(0, [0, 5], vec![], [1, 1, 1, 1]);
        let overlapping = shard(1, [4, 10], vec![], [1, 1, 1, 1]);
        let e = merge(&[("a".into(), first.clone()), ("b".into(), overlapping)]).unwrap_err();
        assert_eq!(e.to_string(), "a and b overlap: both ran cases of k on model (0..5 and 4..10)");
        let alone = merge(&[("a".into(), first)]).unwrap();
        assert!(!alone.complete, "one shard of two is not the whole campaign");
        assert_eq!(merge(&[]).unwrap_err(), MergeError::Nothing);
    }

    #[test]
    fn junit_has_a_test_case_per_campaign_and_a_failure_per_failing_one() {
        use quick_junit::{NonSuccessKind, TestCaseStatus};
        let mut report = shard(0, [0, 5], vec![], [1, 1, 1, 1]);
        let failing = report.campaign_mut("a<b", "qemu");
        let mut bad = failure(3, MISMATCH);
        bad.detail = "left & right differ at <0x10> \"here\"".into();
        bad.repro = "pqhelium repro --case 3".into();
        failing.record(&Ranges::from_slice(&[[0, 4]]), vec![bad]);
        failing.add_time(0.5);
        report.campaign_mut("c", "unicorn").setup_error = Some("no image".into());
        let parse = |report: &Report| {
            let xml = quick_junit::Report::deserialize_from_str(&junit(report)).expect("well-formed JUnit XML");
            let [suite] = &xml.test_suites[..] else { panic!("one suite: {xml:?}") };
            suite.clone()
        };

        let suite = parse(&report);
        assert_eq!(suite.name.as_str(), "pqhelium");
        assert_eq!((suite.tests, suite.failures, suite.errors), (3, 2, 0));
        let secs = std::time::Duration::from_secs_f64;
        assert_eq!(suite.time, Some(secs(1.5)));
        let cases: Vec<_> =
            suite.test_cases.iter().map(|t| (t.classname.as_deref(), t.name.as_str(), t.time)).collect();
        assert_eq!(
            cases,
            [
                (Some("k"), "model", Some(secs(1.0))),
                (Some("a<b"), "qemu", Some(secs(0.5))),
                (Some("c"), "unicorn", Some(secs(0.0))),
            ]
        );
        assert!(matches!(suite.test_cases[0].status, TestCaseStatus::Success { .. }));
        assert_eq!(suite.test_cases[0].system_out.as_deref(), Some("5 cases (0..5), 5 cases/s"));
        let failure = |i: usize| match &suite.test_cases[i].status {
            TestCaseStatus::NonSuccess { kind: NonSuccessKind::Failure, message, description, .. } => {
                (message.as_deref().unwrap().to_string(), description.as_deref().unwrap().to_string())
            }
            other => panic!("case {i}: expected a failure, got {other:?}"),
        };
        let message = "1 mismatches, 0 faults in 4 cases".to_string();
        assert_eq!(failure(1), (message, "left & right differ at <0x10> \"here\"\npqhelium repro --case 3".into()));
        assert_eq!(failure(2), ("backend did not start".into(), "no image".into()));

        // A checkpoint from elsewhere may hold a time no `Duration` can: it is left out, not a panic.
        report.campaign_mut("d", "model").elapsed_seconds = -1.0;
        let suite = parse(&report);
        assert_eq!((suite.tests, suite.test_cases[3].time, suite.time), (4, None, Some(secs(0.5))));
        report.campaigns[3].elapsed_seconds = 1e300;
        assert_eq!((parse(&report).test_cases[3].time, parse(&report).time), (None, None));
    }
}
