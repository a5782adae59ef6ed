//! Bound coverage of a kernel: for each step its contract declares ([`pqhelium_families::Contract::coverage_steps`]),
//! what the model reached over a campaign next to what the bounds proof allows. `fuzz` and `check` print
//! [`Coverage::line`] and write [`Coverage::steps`] into the report; `pqhelium coverage` prints [`Coverage::table`].

use pqhelium_sim::coverage::{Observations, Proven, Seen, Step};
use serde::{Deserialize, Serialize};

use pqhelium_families::{Kernel, case_rng};

/// An integer step is at its bound when each end of its target is reached within this many units; a binary64 step
/// when its closest approach to the boundary is within this many ulps.
pub const SLACK: i64 = 1;

/// What one step reached, against its proven interval.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct StepCoverage {
    pub step: String,
    /// `[lo, hi]` for an integer step, `nearest an integer`, `a tie` or `a binade edge` for a binary64 one.
    pub proven: String,
    /// Observations (lanes one each); 0 when the step never ran.
    pub count: u64,
    /// Integer steps: the extremes reached.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub min: Option<i64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max: Option<i64>,
    /// Binary64 steps: the closest approach to the boundary, in ulps, and the value that made it (bits, hex).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub closest_ulps: Option<u64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub closest_at: Option<String>,
    /// Integer steps: the larger distance between an end of the target and the extreme reached, as a fraction of
    /// the target's width (0: both ends reached).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub gap: Option<f64>,
    pub at_bound: bool,
    /// Why the proven interval's ends are out of reach, with the reachable ones (`reachable [lo, hi]: reason`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub unreachable: Option<String>,
    /// Why the step may stay short of its proven ends, where no proof says they are out of reach.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub note: Option<String>,
}

/// The bound coverage of one kernel over one campaign (or several, merged).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Coverage {
    pub steps: Vec<StepCoverage>,
}

fn step_coverage(step: &Step, seen: Option<&Seen>) -> StepCoverage {
    let seen = seen.filter(|s| s.count > 0);
    let mut row = StepCoverage {
        step: step.name.to_string(),
        proven: String::new(),
        count: seen.map_or(0, |s| s.count),
        min: None,
        max: None,
        closest_ulps: None,
        closest_at: None,
        gap: None,
        at_bound: false,
        unreachable: step.reach.as_ref().map(|r| format!("reachable [{}, {}]: {}", r.lo, r.hi, r.reason)),
        note: step.note.clone(),
    };
    match step.proven {
        Proven::Range { lo, hi } => {
            row.proven = format!("[{lo}, {hi}]");
            let (tlo, thi) = step.target().expect("an integer step has a target");
            if let Some(s) = seen {
                row.min = Some(s.min);
                row.max = Some(s.max);
                // In i128: a step may span every i64 (a wrapping 64-bit operand).
                let (min, max, tlo, thi) = (i128::from(s.min), i128::from(s.max), i128::from(tlo), i128::from(thi));
                let short = (min - tlo).max(thi - max).max(0);
                row.gap = Some(short as f64 / (thi - tlo).max(1) as f64);
                row.at_bound = short <= i128::from(SLACK);
            } else {
                row.gap = Some(1.0);
            }
        }
        Proven::Boundary(boundary) => {
            row.proven = boundary.name().to_string();
            if let Some(s) = seen.filter(|s| s.closest != u64::MAX) {
                row.closest_ulps = Some(s.closest);
                row.closest_at = Some(format!("{:#018x}", s.closest_at.to_bits()));
                row.at_bound = s.closest <= SLACK as u64;
            }
        }
    }
    row
}

impl Coverage {
    /// The coverage of `steps` from what was observed; `None` when the kernel declares no steps.
    pub fn of(steps: &[Step], seen: &Observations) -> Option<Coverage> {
        (!steps.is_empty())
            .then(|| Coverage { steps: steps.iter().map(|s| step_coverage(s, seen.get(s.name))).collect() })
    }

    /// Adds another run's rows (a resumed campaign): extremes and closest approaches combine, the verdicts follow.
    pub fn merge(&mut self, steps: &[Step], other: &Coverage) {
        for (row, step) in self.steps.iter_mut().zip(steps) {
            let Some(o) = other.steps.iter().find(|o| o.step == row.step) else { continue };
            let mut seen = to_seen(row);
            let theirs = to_seen(o);
            seen.count += theirs.count;
            seen.min = seen.min.min(theirs.min);
            seen.max = seen.max.max(theirs.max);
            if theirs.closest < seen.closest {
                (seen.closest, seen.closest_at) = (theirs.closest, theirs.closest_at);
            }
            *row = step_coverage(step, Some(&seen));
        }
    }

    pub fn at_bound(&self) -> usize {
        self.steps.iter().filter(|s| s.at_bound).count()
    }

    /// The step farthest from its bound: integer steps by their gap; binary64 steps not at the boundary count as a
    /// whole range short.
    pub fn worst(&self) -> Option<&StepCoverage> {
        let gap = |s: &StepCoverage| if s.at_bound { 0.0 } else { s.gap.unwrap_or(1.0) };
        self.steps.iter().filter(|s| !s.at_bound).max_by(|a, b| gap(a).total_cmp(&gap(b)))
    }

    /// "steps at their bound: 37 of 40; worst gap 12 % of the range at mlkem.ntt.fwd.mve/layer7.sum".
    pub fn line(&self) -> String {
        let mut line = format!("steps at their bound: {} of {}", self.at_bound(), self.steps.len());
        let unreachable = self.steps.iter().filter(|s| s.unreachable.is_some()).count();
        if unreachable > 0 {
            line += &format!(" ({unreachable} only to a reachable extreme short of the proof's)");
        }
        if let Some(w) = self.worst() {
            line += &match (w.gap, w.closest_ulps) {
                (Some(g), _) => format!("; worst gap {:.0} % of the range at {}", 100.0 * g, w.step),
                (None, Some(u)) => format!("; worst {u} ulps from the boundary at {}", w.step),
                (None, None) => format!("; {} never ran", w.step),
            };
        }
        line
    }

    /// The table of `pqhelium coverage` and docs/coverage.md (Markdown).
    pub fn table(&self) -> String {
        let mut out =
            String::from("| step | proven | reached | gap | at bound | reachable |\n|---|---|---|---:|---|---|\n");
        for s in &self.steps {
            let reached = match (s.min, s.max, s.closest_ulps) {
                (Some(lo), Some(hi), _) => format!("[{lo}, {hi}]"),
                (_, _, Some(u)) => format!("{u} ulps"),
                _ => "never ran".to_string(),
            };
            let gap = s.gap.map_or("-".to_string(), |g| format!("{:.1} %", 100.0 * g));
            let reach = match (&s.unreachable, &s.note) {
                (Some(r), _) => r.clone(),
                (None, Some(n)) => format!("not proved: {n}"),
                (None, None) => "both ends".to_string(),
            };
            out += &format!(
                "| `{}` | {} | {reached} | {gap} | {} | {reach} |\n",
                s.step,
                s.proven,
                if s.at_bound { "yes" } else { "no" }
            );
        }
        out
    }
}

/// The first of cases `cases` (seed `seed`) whose model check fails (reference against canon(model), bounds), on
/// the host: what `check` would find on the model backend.
pub fn first_failure(kernel: &'static Kernel, seed: u64, cases: std::ops::Range<u64>) -> Option<u64> {
    cases.into_iter().find(|&case| {
        let args = kernel.generate(case, &mut case_rng(seed, case));
        crate::diff::check_model(kernel, &args).1.is_some()
    })
}

/// What the model's steps reach over cases `cases` (seed `seed`), and the kernel's coverage from it (`None` when
/// the kernel declares no steps).
pub fn measure(kernel: &'static Kernel, seed: u64, cases: std::ops::Range<u64>) -> Option<Coverage> {
    let ((), seen) = pqhelium_sim::coverage::record(|| {
        for case in cases {
            let args = kernel.generate(case, &mut case_rng(seed, case));
            let _ = kernel.evaluate(&args);
        }
    });
    Coverage::of(kernel.coverage_steps(), &seen)
}

fn to_seen(row: &StepCoverage) -> Seen {
    Seen {
        count: row.count,
        min: row.min.unwrap_or(i64::MAX),
        max: row.max.unwrap_or(i64::MIN),
        closest: row.closest_ulps.unwrap_or(u64::MAX),
        closest_at: row
            .closest_at
            .as_deref()
            .and_then(|h| u64::from_str_radix(h.trim_start_matches("0x"), 16).ok())
            .map_or(f64::NAN, f64::from_bits),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use pqhelium_sim::coverage::{self, Boundary, observe, observe_fp};

    #[test]
    fn rows_say_what_was_reached() {
        let steps = [
            Step::magnitude("t/a", 100),
            Step::magnitude("t/b", 100),
            Step::magnitude("t/c", 100).reachable(-50, 50, "by construction"),
            Step::fp("t/f", Boundary::Integer),
            Step::magnitude("t/never", 7),
        ];
        let ((), seen) = coverage::record(|| {
            observe("t/a", -100);
            observe("t/a", 99);
            observe("t/b", 75);
            observe("t/b", -100);
            observe("t/c", 50);
            observe("t/c", -49);
            observe_fp("t/f", Boundary::Integer, 2.5);
        });
        let c = Coverage::of(&steps, &seen).unwrap();
        let verdicts: Vec<bool> = c.steps.iter().map(|s| s.at_bound).collect();
        assert_eq!(verdicts, [true, false, true, false, false]);
        assert_eq!(c.steps[1].gap, Some(25.0 / 200.0));
        assert_eq!(c.worst().unwrap().step, "t/never");
        assert!(c.line().starts_with("steps at their bound: 2 of 5 (1 only to a reachable extreme"), "{}", c.line());
        let mut resumed = c.clone();
        let ((), more) = coverage::record(|| observe("t/b", 100));
        resumed.merge(&steps, &Coverage::of(&steps, &more).unwrap());
        assert!(resumed.steps[1].at_bound);
        assert_eq!(resumed.steps[1].count, 3);
        assert_eq!(resumed.steps[3].closest_ulps, c.steps[3].closest_ulps);
    }
}
