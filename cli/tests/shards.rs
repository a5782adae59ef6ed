//! Campaigns across machines: `fuzz --shard K/N` and `merge` reproduce a single run, `merge` refuses what does not
//! belong together, and the deploy/ examples (GitHub Actions matrix, Kubernetes Indexed Job) run their own shard and
//! merge commands here, with a small campaign, to the same result.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use yaml_rust2::{Yaml, YamlLoader};

const PQHELIUM: &str = env!("CARGO_BIN_EXE_pqhelium");
/// A small campaign on every backend: model, unicorn and QEMU.
const KERNEL: &str = "keccak.f1600";
const CASES: &str = "2000";
const SEED: &str = "20261202";

fn pqhelium(dir: &Path, args: &[&str]) -> Output {
    Command::new(PQHELIUM).args(args).current_dir(dir).output().expect("run pqhelium")
}

fn stdout(out: &Output) -> String {
    String::from_utf8_lossy(&out.stdout).into_owned()
}

fn stderr(out: &Output) -> String {
    String::from_utf8_lossy(&out.stderr).into_owned()
}

/// A report as JSON text without what differs between runs of the same cases: the times.
fn without_times(path: &Path) -> String {
    let text = std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let mut report: serde_json::Value = serde_json::from_str(&text).unwrap();
    for campaign in report["campaigns"].as_array_mut().unwrap() {
        campaign["elapsed_seconds"] = 0.into();
        campaign["cases_per_second"] = 0.into();
    }
    serde_json::to_string_pretty(&report).unwrap()
}

/// The report of the campaign run once, whole, in `dir`.
fn single_run(dir: &Path, extra: &[&str]) -> String {
    let mut args = vec!["fuzz", "--kernel", KERNEL, "--cases", CASES, "--seed", SEED, "--report", "single.json"];
    args.extend(extra);
    let out = pqhelium(dir, &args);
    assert!(out.status.success(), "{}{}", stdout(&out), stderr(&out));
    without_times(&dir.join("single.json"))
}

fn shard(dir: &Path, k: u32, n: u32, seed: &str) -> PathBuf {
    let report = format!("shard-{k}of{n}-{seed}.json");
    let state = format!("state-{k}of{n}-{seed}.json");
    let spec = format!("{k}/{n}");
    let args = ["fuzz", "--kernel", KERNEL, "--cases", CASES, "--seed", seed, "--shard", &spec];
    let out = pqhelium(dir, &[&args[..], &["--state", &state, "--report", &report]].concat());
    assert!(out.status.success(), "{}{}", stdout(&out), stderr(&out));
    assert!(stdout(&out).starts_with(&format!("seed {seed}; shard {spec}; checkpoint")), "{}", stdout(&out));
    dir.join(report)
}

fn merge(dir: &Path, shards: &[&Path], output: &str) -> Output {
    let mut args: Vec<&str> = vec!["merge"];
    args.extend(shards.iter().map(|p| p.to_str().unwrap()));
    args.extend(["-o", output]);
    pqhelium(dir, &args)
}

#[test]
fn four_shards_merged_equal_one_run() {
    let dir = tempfile::tempdir().unwrap();
    let single = single_run(dir.path(), &[]);
    // Given in a shuffled order: merge orders them.
    let shards: Vec<PathBuf> = [2, 0, 3, 1].iter().map(|&k| shard(dir.path(), k, 4, SEED)).collect();
    for (path, k) in shards.iter().zip([2u64, 0, 3, 1]) {
        // Each shard ran its own quarter, and only that.
        let report: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
        for campaign in report["campaigns"].as_array().unwrap() {
            assert_eq!(campaign["ranges"], serde_json::json!([[500 * k, 500 * (k + 1)]]), "{}", path.display());
        }
    }
    let out = merge(dir.path(), &shards.iter().map(PathBuf::as_path).collect::<Vec<_>>(), "all.json");
    assert!(out.status.success(), "{}{}", stdout(&out), stderr(&out));
    assert_eq!(without_times(&dir.path().join("all.json")), single);
    let last = stdout(&out).lines().last().unwrap().to_string();
    assert!(last.starts_with("6000 cases, 0 mismatches, 0 faults, ") && last.ends_with(" cases/s"), "{last}");
}

#[test]
fn a_missing_shard_leaves_the_merge_incomplete_and_resume_runs_its_cases() {
    let dir = tempfile::tempdir().unwrap();
    let single = single_run(dir.path(), &[]);
    let shards: Vec<PathBuf> = [0, 1, 3].iter().map(|&k| shard(dir.path(), k, 4, SEED)).collect();
    let out = merge(dir.path(), &shards.iter().map(PathBuf::as_path).collect::<Vec<_>>(), "all.json");
    assert_eq!(out.status.code(), Some(1), "{}", stdout(&out));
    assert!(stdout(&out).contains("incomplete: shards 2/4 missing"), "{}", stdout(&out));
    assert!(stdout(&out).contains(" cases (0..1000, 1500..2000)"), "{}", stdout(&out));

    let out = pqhelium(dir.path(), &["fuzz", "--kernel", KERNEL, "--resume", "all.json", "--report", "resumed.json"]);
    assert!(out.status.success(), "{}{}", stdout(&out), stderr(&out));
    assert!(stdout(&out).lines().last().unwrap().starts_with("1500 cases, "), "{}", stdout(&out));
    assert_eq!(without_times(&dir.path().join("resumed.json")), single);
}

#[test]
fn merge_refuses_other_campaigns_overlaps_and_whole_runs() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let s0 = shard(d, 0, 2, SEED);
    let s1 = shard(d, 1, 2, SEED);
    let other_seed = shard(d, 1, 2, "7");
    let three_way = shard(d, 1, 3, SEED);
    single_run(d, &[]);
    let refused = |shards: &[&Path], expected: &str| {
        let out = merge(d, shards, "merged.json");
        assert_eq!(out.status.code(), Some(2), "{}{}", stdout(&out), stderr(&out));
        assert!(stderr(&out).contains(expected), "expected `{expected}` in: {}", stderr(&out));
        assert!(!d.join("merged.json").exists(), "a refused merge wrote its output");
    };
    refused(&[&s0, &other_seed], "are shards of different campaigns: the seed differs (20261202 vs 7)");
    refused(&[&s0, &three_way], "the number of shards differs (2 vs 3)");
    refused(&[&s1, &s0, &s1], "are both shard 1/2: their cases overlap");
    refused(&[&s0, &d.join("single.json")], "is a whole campaign, not a shard");
    refused(&[&s0, &d.join("missing.json")], "missing.json: No such file");
    // The two halves do merge.
    assert!(merge(d, &[&s0, &s1], "merged.json").status.success());
}

/// A directory with `pqhelium` in `bin/` (for PATH) and at `target/release/pqhelium` (as a CI job builds it).
fn workspace() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    for link in ["bin/pqhelium", "target/release/pqhelium"] {
        let path = dir.path().join(link);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::os::unix::fs::symlink(PQHELIUM, path).unwrap();
    }
    dir
}

fn shell(dir: &Path, shell: &str, script: &str, env: &HashMap<String, String>) -> Output {
    let path = format!("{}:{}", dir.join("bin").display(), std::env::var("PATH").unwrap_or_default());
    Command::new(shell).args(["-c", script]).envs(env).env("PATH", path).current_dir(dir).output().unwrap()
}

fn deploy_file(name: &str) -> Vec<Yaml> {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../deploy").join(name);
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    YamlLoader::load_from_str(&text).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

fn text(y: &Yaml) -> String {
    match y {
        Yaml::String(s) => s.clone(),
        Yaml::Integer(i) => i.to_string(),
        other => panic!("expected a string, found {other:?}"),
    }
}

/// The step of a GitHub Actions job with this name.
fn step<'a>(job: &'a Yaml, name: &str) -> &'a Yaml {
    job["steps"].as_vec().unwrap().iter().find(|s| s["name"].as_str() == Some(name)).unwrap()
}

#[test]
fn github_actions_matrix_runs_shards_that_merge_into_one_run() {
    let dir = workspace();
    let workflow = &deploy_file("github-actions/pqhelium-campaign.yml")[0];
    let mut env: HashMap<String, String> =
        workflow["env"].as_hash().unwrap().iter().map(|(k, v)| (text(k), text(v))).collect();
    env.insert("KERNEL".into(), KERNEL.into());
    env.insert("CASES".into(), CASES.into());
    env.insert("SEED".into(), SEED.into());
    let shards = workflow["jobs"]["shard"]["strategy"]["matrix"]["shard"].as_vec().unwrap();
    assert_eq!(shards.len().to_string(), env["SHARDS"], "SHARDS must equal the length of the matrix");
    let campaign = text(&step(&workflow["jobs"]["shard"], "campaign")["run"]);
    for k in shards {
        let script = campaign.replace("${{ matrix.shard }}", &text(k));
        let out = shell(dir.path(), "bash", &format!("set -eo pipefail\n{script}"), &env);
        assert!(out.status.success(), "shard {}: {}{}", text(k), stdout(&out), stderr(&out));
    }
    let merge = text(&step(&workflow["jobs"]["merge"], "merge")["run"]);
    let out = shell(dir.path(), "bash", &format!("set -eo pipefail\n{merge}"), &env);
    assert!(out.status.success(), "merge: {}{}", stdout(&out), stderr(&out));
    assert_eq!(without_times(&dir.path().join("campaign.json")), single_run(dir.path(), &["--keep-going"]));
    assert!(dir.path().join("campaign.xml").exists());
}

/// The shell script of a Job's first container, and its environment.
fn job_script(job: &Yaml) -> (String, HashMap<String, String>) {
    let container = &job["spec"]["template"]["spec"]["containers"][0];
    assert_eq!(container["command"].as_vec().unwrap().iter().map(text).collect::<Vec<_>>(), ["/bin/sh", "-c"]);
    let env = container["env"].as_vec().unwrap().iter().map(|e| (text(&e["name"]), text(&e["value"]))).collect();
    (text(&container["args"][0]), env)
}

#[test]
fn kubernetes_indexed_job_runs_shards_that_merge_into_one_run() {
    let dir = workspace();
    let reports = dir.path().join("reports");
    std::fs::create_dir(&reports).unwrap();
    let manifests = deploy_file("kubernetes/pqhelium-campaign.yaml");
    let (campaign, merge_job) = (&manifests[0], &manifests[1]);
    assert_eq!(campaign["spec"]["completionMode"].as_str(), Some("Indexed"));
    let completions = campaign["spec"]["completions"].as_i64().unwrap();
    let (script, mut env) = job_script(campaign);
    assert_eq!(completions.to_string(), env["SHARDS"], "SHARDS must equal the Job's completions");
    env.insert("KERNEL".into(), KERNEL.into());
    env.insert("CASES".into(), CASES.into());
    env.insert("SEED".into(), SEED.into());
    env.insert("REPORTS".into(), reports.display().to_string());
    let run_pod = |index: i64| {
        let mut env = env.clone();
        env.insert("JOB_COMPLETION_INDEX".into(), index.to_string());
        let out = shell(dir.path(), "sh", &script, &env);
        assert!(out.status.success(), "pod {index}: {}{}", stdout(&out), stderr(&out));
        stdout(&out)
    };
    for index in 0..completions {
        run_pod(index);
    }
    // A pod restarted after it finished resumes from its checkpoint and runs nothing again.
    let again = run_pod(0);
    assert!(again.contains("already complete"), "{again}");
    assert!(again.lines().last().unwrap().starts_with("0 cases, "), "{again}");

    let (merge, mut merge_env) = job_script(merge_job);
    merge_env.insert("REPORTS".into(), reports.display().to_string());
    let out = shell(dir.path(), "sh", &merge, &merge_env);
    assert!(out.status.success(), "merge: {}{}", stdout(&out), stderr(&out));
    assert_eq!(without_times(&reports.join("campaign.json")), single_run(dir.path(), &["--keep-going"]));
}
