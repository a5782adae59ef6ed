//! Campaign reports: JSON (schema `pqhelium-report/1`, documented in docs/report.md), which is also the checkpoint
//! a killed campaign resumes from, and JUnit XML (one test case per kernel x backend) for CI.

use std::path::Path;

use serde::{Deserialize, Serialize};

use crate::backend::Arg;
use crate::diff::{CampaignResult, CaseFailure, Failure};
use crate::ranges::Ranges;
use crate::registry::CASE_GENERATORS;

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
    pub campaigns: Vec<CampaignReport>,
}

#[derive(Debug, Clone, Default, Serialize, Deserialize)]
pub struct CampaignReport {
    pub kernel: String,
    pub backend: String,
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
            campaigns: vec![],
        }
    }

    pub fn load(path: &Path) -> Result<Self, String> {
        let text = std::fs::read_to_string(path).map_err(|e| format!("{}: {e}", path.display()))?;
        Self::parse(&text).map_err(|e| format!("{}: {e}", path.display()))
    }

    /// A report from its JSON text; another schema is refused.
    pub fn parse(text: &str) -> Result<Self, String> {
        let report: Report = serde_json::from_str(text).map_err(|e| e.to_string())?;
        if report.schema != SCHEMA {
            return Err(format!("schema {} (expected {SCHEMA})", report.schema));
        }
        Ok(report)
    }

    /// Writes atomically (temporary file, then rename): a crash never leaves half a checkpoint.
    pub fn save(&self, path: &Path) -> std::io::Result<()> {
        let tmp = path.with_extension("tmp");
        std::fs::write(&tmp, serde_json::to_string_pretty(self).expect("report serialises"))?;
        std::fs::rename(tmp, path)
    }

    /// The entry of a kernel on a backend, created if absent.
    pub fn campaign_mut(&mut self, kernel: &str, backend: &str) -> &mut CampaignReport {
        if let Some(i) = self.campaigns.iter().position(|c| c.kernel == kernel && c.backend == backend) {
            return &mut self.campaigns[i];
        }
        self.campaigns.push(CampaignReport { kernel: kernel.into(), backend: backend.into(), ..Default::default() });
        self.campaigns.last_mut().unwrap()
    }

    pub fn passed(&self) -> bool {
        self.campaigns.iter().all(|c| c.failures.is_empty() && c.setup_error.is_none())
    }
}

impl CampaignReport {
    /// Adds one run of this campaign (the first, or a resumed one).
    pub fn absorb(&mut self, result: &CampaignResult) {
        self.ranges.extend(&result.ran);
        self.cases_run = self.ranges.count();
        self.mismatches += result.mismatches() as u64;
        self.faults += result.faults() as u64;
        self.retries += result.retries;
        self.elapsed_seconds += result.elapsed.as_secs_f64();
        self.cases_per_second = self.cases_run as f64 / self.elapsed_seconds.max(1e-9);
        let i = &result.instructions;
        if i.calls > 0 {
            let mut merged = self.instructions.clone().unwrap_or_default();
            merged.min = if merged.calls == 0 { i.min } else { merged.min.min(i.min) };
            merged.max = merged.max.max(i.max);
            merged.total += i.total;
            merged.calls += i.calls;
            merged.mean = merged.total as f64 / merged.calls as f64;
            self.instructions = Some(merged);
        }
        if result.setup_error.is_some() {
            self.setup_error.clone_from(&result.setup_error);
        }
        let (kernel, backend, seed) = (result.kernel, result.backend.name(), result.seed);
        self.failures.extend(result.failures.iter().map(|f| failure_report(kernel, backend, seed, f)));
    }
}

pub fn failure_report(kernel: &str, backend: &str, seed: u64, f: &CaseFailure) -> FailureReport {
    let (kind, detail) = match &f.failure {
        Failure::Mismatch { .. } => ("mismatch", f.to_string()),
        Failure::Fault(e) => ("fault", e.to_string()),
        Failure::Bound(v) => ("bound", v.to_string()),
    };
    let repro = format!("pqhelium repro --kernel {kernel} --backend {backend} --seed {seed} --case {}", f.case);
    let regression_test = regression_test(kernel, backend, seed, f.case, f.shrunk.as_ref().unwrap_or(&f.args));
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

/// Rust source of a regression test for one input, ready to paste into `testbench/tests/`.
pub fn regression_test(kernel: &str, backend: &str, seed: u64, case: u64, args: &[Arg]) -> String {
    let name = format!("regression_{}_{backend}_seed{seed}_case{case}", kernel.replace(['.', '-'], "_"));
    let variant = match backend {
        "model" => "Model",
        "unicorn" => "Unicorn",
        _ => "Qemu",
    };
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
    format!(
        "#[test]\nfn {name}() {{\n    use pqhelium_testbench::backend::{{Arg, BackendKind}};\n    let args = vec![{}];\n    \
         pqhelium_testbench::diff::assert_case_passes(\"{kernel}\", BackendKind::{variant}, &args);\n}}\n",
        args.join(", ")
    )
}

/// JUnit XML: one test suite, one test case per kernel x backend.
pub fn junit(report: &Report) -> String {
    let failing = report.campaigns.iter().filter(|c| !c.failures.is_empty() || c.setup_error.is_some()).count();
    let total: f64 = report.campaigns.iter().map(|c| c.elapsed_seconds).sum();
    let mut xml = format!(
        "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<testsuites>\n  <testsuite name=\"pqhelium\" tests=\"{}\" \
         failures=\"{failing}\" errors=\"0\" time=\"{total:.3}\">\n",
        report.campaigns.len()
    );
    for c in &report.campaigns {
        xml.push_str(&format!(
            "    <testcase classname=\"{}\" name=\"{}\" time=\"{:.3}\">\n",
            escape(&c.kernel),
            escape(&c.backend),
            c.elapsed_seconds
        ));
        if let Some(e) = &c.setup_error {
            xml.push_str(&format!("      <failure message=\"backend did not start\">{}</failure>\n", escape(e)));
        } else if !c.failures.is_empty() {
            let body: Vec<String> = c.failures.iter().map(|f| format!("{}\n{}", f.detail, f.repro)).collect();
            xml.push_str(&format!(
                "      <failure message=\"{} mismatches, {} faults in {} cases\">{}</failure>\n",
                c.mismatches,
                c.faults,
                c.cases_run,
                escape(&body.join("\n"))
            ));
        }
        xml.push_str(&format!(
            "      <system-out>{} cases ({}), {:.0} cases/s</system-out>\n    </testcase>\n",
            c.cases_run, c.ranges, c.cases_per_second
        ));
    }
    xml.push_str("  </testsuite>\n</testsuites>\n");
    xml
}

fn escape(s: &str) -> String {
    s.replace('&', "&amp;").replace('<', "&lt;").replace('>', "&gt;").replace('"', "&quot;")
}
