//! `pqhelium bench`: calls/s per kernel and backend with one call per guest round trip, with 64, in a whole
//! one-job differential campaign (generation, model, reference and comparison included), and with the kernel looping
//! inside the guest (no host work at all); the ratios to the last are the harness efficiency. The campaign's rate
//! counts from the moment its emulator is up (the loop in the guest runs on an emulator already up too); the start-up
//! time is a column of its own, and the rate with it included is in the JSON. The campaign runs twice, as `fuzz`
//! runs it and with `--pin`; the loop runs on an emulator left to the scheduler and on one pinned as a `--pin` worker
//! is, and the faster of the two is the loop's rate. The model's calls/s over the loop's is the model's speed-up.
//! On the M55 and M85 images the column before the last is the estimated cycles per call (`pqhelium cycles`).
//!
//! The last three columns state the host's work per case: the host's time per case in a campaign (generation,
//! reference, model with bound coverage, canonicalisation, comparisons, contract checks: [`diff::host_time_per_case`])
//! next to the guest's time per call in its loop, and their ratio ([`diff::host_guest_ratio`], the median of the
//! rounds'). Above 1 the emulator waits for the host; the goal for a kernel with a model is at most 0.1.

use std::path::Path;
use std::process::ExitCode;
use std::time::{Duration, Instant};

use anyhow::{Context, Result, bail};
use pqhelium_analyses::cycles::Estimators;
use pqhelium_engine::diff::{self, Campaign};
use pqhelium_families::{self as registry, Pin, case_rng};
use pqhelium_guest::affinity::Placement;
use pqhelium_guest::backend::{Backend, BackendKind, Call, Image, Limits, target_label};
use serde::Serialize;

#[derive(Serialize)]
struct Row {
    kernel: String,
    backend: String,
    /// The guest image the emulator ran (none for the model row).
    image: Option<String>,
    calls_per_second_single: f64,
    calls_per_second_batched: Option<f64>,
    calls_per_second_in_guest: Option<f64>,
    cases_per_second_campaign: Option<f64>,
    cases_per_second_campaign_pinned: Option<f64>,
    cases_per_second_campaign_with_startup: Option<f64>,
    campaign_startup_ms: Option<f64>,
    efficiency_single: Option<f64>,
    efficiency_batched: Option<f64>,
    efficiency_campaign: Option<f64>,
    efficiency_campaign_pinned: Option<f64>,
    instructions_per_call: Option<u64>,
    /// Estimated cycles per call on the image's core (`pqhelium cycles`; M55 and M85 images only).
    estimated_cycles_per_call: Option<f64>,
    model_speedup: Option<f64>,
    /// The host's time per case in a campaign, in microseconds ([`diff::host_time_per_case`]).
    host_us_per_case: f64,
    /// The guest's time per call in its loop, in microseconds.
    guest_us_per_call: Option<f64>,
    /// The host's time per case over the guest's per call (median of the rounds' ratios).
    host_guest_ratio: Option<f64>,
}

/// `image`: measure that image on its emulator only; each emulator's default image when absent.
/// `pins`: `--param`, the contract parameters the measured case has.
pub fn run(pattern: &str, (calls, pins): (u64, &[Pin]), image: Option<Image>, json: Option<&Path>) -> Result<ExitCode> {
    let kernels = registry::matching(pattern);
    if kernels.is_empty() {
        bail!("{}", super::no_match(pattern));
    }
    measure(super::pinned(kernels, pins)?, calls, image, json)
}

/// `--manifest`: the manifest's symbols matching `pattern`, on the image linked from it.
pub fn run_manifest(
    manifest: &Path,
    pattern: &str,
    (calls, pins): (u64, &[Pin]),
    json: Option<&Path>,
) -> Result<ExitCode> {
    let loaded = super::byo::load(manifest, None, &[])?;
    let kernels = super::pinned(super::byo::matching(&loaded, pattern)?, pins)?;
    measure(kernels, calls, Some(loaded.image), json)
}

fn measure(
    kernels: Vec<&'static registry::Kernel>,
    calls: u64,
    image: Option<Image>,
    json: Option<&Path>,
) -> Result<ExitCode> {
    println!(
        "{calls} calls per measurement, {ROUNDS} rounds (rates: the best round; ratios: the median of the rounds' \
         ratios), one worker per backend; campaigns with {} cases per round trip\n",
        diff::DEFAULT_BATCH
    );
    println!(
        "| kernel | backend | calls/s, 1 per round trip | calls/s, 64 per round trip | campaign cases/s (1 job) | \
         campaign --pin | campaign start-up (ms) | calls/s, loop in guest | efficiency 1 | efficiency 64 | \
         efficiency campaign | efficiency --pin | instructions/call | est. cycles/call | model / loop in guest | \
         host µs/case | guest µs/call | host / guest |"
    );
    println!("|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|");
    let mut estimators = Estimators::default();
    let mut rows = Vec::new();
    for kernel in kernels {
        let args = kernel.generate(kernel.edge_cases, &mut case_rng(1, kernel.edge_cases));
        // The model (the reference for two-way kernels) runs the kernel through its contract (arguments as bytes in,
        // outcome as bytes out).
        let model = || {
            let started = Instant::now();
            let mut done = 0;
            while done == 0 || started.elapsed() < MODEL_TIME {
                for _ in 0..calls {
                    std::hint::black_box(kernel.expected(std::hint::black_box(&args)));
                }
                done += calls;
            }
            done as f64 / started.elapsed().as_secs_f64()
        };
        let model_rate = (0..ROUNDS).map(|_| model()).fold(0f64, f64::max);
        // The host's share of a campaign's case, as `fuzz` runs it (coverage recorded).
        let host = || diff::host_time_per_case(kernel, 1, HOST_MIN_CASES, HOST_TIME);
        let host_best = (0..ROUNDS).map(|_| host()).min().expect("rounds");
        let campaign = |backend: BackendKind, image: Option<Image>, pin| {
            let result = diff::run(&Campaign { pin, image, ..Campaign::new(kernel, backend, 1, calls, 1) });
            if !result.passed() {
                bail!("{} on {}: the campaign failed; run `pqhelium fuzz` on it", kernel.id, result.target());
            }
            Ok(result)
        };
        let model_campaign = match kernel.runs_on(BackendKind::Model) {
            true => Some(campaign(BackendKind::Model, None, false)?.cases_per_second()),
            false => None,
        };
        let shown = model_campaign.map_or(String::new(), |rate| format!("{rate:.0}"));
        let host_us = host_best.as_secs_f64() * 1e6;
        println!(
            "| {} | {} | {model_rate:.0} | | {shown} | | | | | | | | | | | {host_us:.2} | | |",
            kernel.id,
            kernel.expected_side()
        );
        rows.push(Row {
            kernel: kernel.id.into(),
            backend: kernel.expected_side().into(),
            image: None,
            calls_per_second_single: model_rate,
            calls_per_second_batched: None,
            calls_per_second_in_guest: None,
            cases_per_second_campaign: model_campaign,
            cases_per_second_campaign_pinned: None,
            cases_per_second_campaign_with_startup: None,
            campaign_startup_ms: None,
            efficiency_single: None,
            efficiency_batched: None,
            efficiency_campaign: None,
            efficiency_campaign_pinned: None,
            instructions_per_call: None,
            estimated_cycles_per_call: None,
            model_speedup: None,
            host_us_per_case: host_us,
            guest_us_per_call: None,
            host_guest_ratio: None,
        });
        for image in images(image).into_iter().filter(|i| kernel.runs_on(i.backend())) {
            let (backend, on) = (image.backend(), target_label(image.backend(), Some(image)));
            let mut emulator = image.open(Limits { timeout: Duration::from_secs(600) })?;
            let one = Call::new(kernel.symbol, args.clone());
            emulator.call(&one).with_context(|| format!("{} on {on}", kernel.id))?; // warm the caches
            // A second emulator on the CPU a `--pin` worker gets (none on a single CPU).
            let mut pinned = match Placement::plan(1) {
                Some(p) => Some(p.as_worker(0, || image.open(Limits { timeout: Duration::from_secs(600) }))?),
                None => None,
            };
            if let Some(e) = pinned.as_mut() {
                e.call(&one)?;
            }
            let in_guest = |emulator: &mut dyn Backend| -> Result<(f64, u64)> {
                let started = Instant::now();
                let out = emulator.call(&Call {
                    repeat: u32::try_from(calls).expect("--calls is at most MAX_CALLS"),
                    ..one.clone()
                })?;
                Ok((calls as f64 / started.elapsed().as_secs_f64(), out.instructions / calls))
            };
            // Rounds of every measurement back to back: a rate is the best of its rounds, a ratio the median of its
            // rounds' ratios, each between measurements seconds apart (this machine's speed drifts by tens of
            // percent over minutes, which a ratio of rates taken at different times would carry).
            let mut rounds = Vec::new();
            for _ in 0..ROUNDS {
                let single = round_trips(emulator.as_mut(), &one, calls, 1)?;
                let batched = round_trips(emulator.as_mut(), &one, calls, 64)?;
                let result = campaign(backend, Some(image), false)?;
                let pinned_campaign = campaign(backend, Some(image), true)?.cases_per_second_after_startup();
                let (guest, instructions) = in_guest(emulator.as_mut())?;
                let guest = match pinned.as_mut() {
                    Some(e) => guest.max(in_guest(e.as_mut())?.0),
                    None => guest,
                };
                rounds.push(Round {
                    single,
                    batched,
                    campaign: result.cases_per_second_after_startup(),
                    pinned_campaign,
                    with_startup: result.cases_per_second(),
                    startup_ms: result.startup.as_secs_f64() * 1e3,
                    guest,
                    model: model(),
                    host: host(),
                    instructions,
                });
            }
            let best = |f: fn(&Round) -> f64| rounds.iter().map(f).fold(0f64, f64::max);
            let ratio = |f: fn(&Round) -> f64| median(rounds.iter().map(|r| f(r) / r.guest).collect());
            let (single, batched, campaign_rate, pinned_rate, guest) = (
                best(|r| r.single),
                best(|r| r.batched),
                best(|r| r.campaign),
                best(|r| r.pinned_campaign),
                best(|r| r.guest),
            );
            let startup = rounds.iter().map(|r| r.startup_ms).fold(f64::INFINITY, f64::min);
            let (efficiency_single, efficiency_batched, efficiency_campaign, efficiency_pinned, model_speedup) = (
                ratio(|r| r.single),
                ratio(|r| r.batched),
                ratio(|r| r.campaign),
                ratio(|r| r.pinned_campaign),
                ratio(|r| r.model),
            );
            let host_per_case = rounds.iter().map(|r| r.host).min().expect("rounds");
            let host_guest = median(rounds.iter().map(|r| diff::host_guest_ratio(r.host, r.guest)).collect());
            let (host_us, guest_us) = (host_per_case.as_secs_f64() * 1e6, 1e6 / guest);
            let per_call = rounds[ROUNDS - 1].instructions;
            let cycles = estimators.cycles(image, kernel.symbol, &args);
            let cycles_shown = cycles.map_or(String::new(), |c| format!("{c:.0}"));
            println!(
                "| {} | {on} | {single:.0} | {batched:.0} | {campaign_rate:.0} | {pinned_rate:.0} | {startup:.0} | \
                 {guest:.0} | {efficiency_single:.2} | {efficiency_batched:.2} | {efficiency_campaign:.2} | \
                 {efficiency_pinned:.2} | {per_call} | {cycles_shown} | {model_speedup:.1} | {host_us:.2} | \
                 {guest_us:.2} | {host_guest:.3} |",
                kernel.id,
            );
            rows.push(Row {
                kernel: kernel.id.into(),
                backend: backend.name().into(),
                image: Some(image.name().into()),
                calls_per_second_single: single,
                calls_per_second_batched: Some(batched),
                calls_per_second_in_guest: Some(guest),
                cases_per_second_campaign: Some(campaign_rate),
                cases_per_second_campaign_pinned: Some(pinned_rate),
                cases_per_second_campaign_with_startup: Some(best(|r| r.with_startup)),
                campaign_startup_ms: Some(startup),
                efficiency_single: Some(efficiency_single),
                efficiency_batched: Some(efficiency_batched),
                efficiency_campaign: Some(efficiency_campaign),
                efficiency_campaign_pinned: Some(efficiency_pinned),
                instructions_per_call: Some(per_call),
                estimated_cycles_per_call: cycles,
                model_speedup: Some(model_speedup),
                host_us_per_case: host_us,
                guest_us_per_call: Some(guest_us),
                host_guest_ratio: Some(host_guest),
            });
        }
    }
    if let Some(path) = json {
        std::fs::write(path, serde_json::to_string_pretty(&rows)?).with_context(|| format!("{}", path.display()))?;
    }
    Ok(ExitCode::SUCCESS)
}

/// `--host-guest`: per kernel and emulator, only the host's time per case in a campaign and the guest's time per call,
/// [`ROUNDS`] rounds back to back (the host: the best round; the ratio: the median of the rounds'), so that the whole
/// registry is measured in minutes. The guest loops on each of the first [`GUEST_CASES`] random cases in turn, the
/// cases the host is timed on, so that a kernel whose work depends on its case (a degree drawn at random, a
/// signature rejected early) is timed on a campaign's mix, not on one case. Kernels without object code on the
/// emulator get no row.
pub fn host_guest(pattern: &str, calls: u64, image: Option<Image>, json: Option<&Path>) -> Result<ExitCode> {
    let kernels = registry::matching(pattern);
    if kernels.is_empty() {
        bail!("no kernel matches `{pattern}` (see `pqhelium list`)");
    }
    println!(
        "{calls} guest calls per round over {GUEST_CASES} cases, {ROUNDS} rounds (host: the best round; ratio: the \
         median of the rounds')\n"
    );
    println!("| kernel | on | host µs/case | guest µs/call | host / guest |");
    println!("|---|---|---:|---:|---:|");
    let repeat = u32::try_from(calls.div_ceil(GUEST_CASES)).expect("--calls is at most MAX_CALLS");
    let mut rows = Vec::new();
    for kernel in kernels {
        let cases: Vec<Call> = (kernel.edge_cases..kernel.edge_cases + GUEST_CASES)
            .map(|case| Call { repeat, ..Call::new(kernel.symbol, kernel.generate(case, &mut case_rng(1, case))) })
            .collect();
        for image in images(image).into_iter().filter(|i| kernel.runs_on(i.backend())) {
            let on = target_label(image.backend(), Some(image));
            let mut emulator = image.open(Limits { timeout: Duration::from_secs(600) })?;
            emulator.call(&Call { repeat: 1, ..cases[0].clone() }).with_context(|| format!("{} on {on}", kernel.id))?;
            let mut rounds = Vec::new();
            for _ in 0..ROUNDS {
                let host = diff::host_time_per_case(kernel, 1, HOST_MIN_CASES, HOST_TIME);
                let started = Instant::now();
                for call in &cases {
                    emulator.call(call).with_context(|| format!("{} on {on}", kernel.id))?;
                }
                let guest = f64::from(repeat) * GUEST_CASES as f64 / started.elapsed().as_secs_f64();
                rounds.push((host, guest));
            }
            let host = rounds.iter().map(|r| r.0).min().expect("rounds");
            let guest = rounds.iter().map(|r| r.1).fold(0f64, f64::max);
            let ratio = median(rounds.iter().map(|&(h, g)| diff::host_guest_ratio(h, g)).collect());
            let (host_us, guest_us) = (host.as_secs_f64() * 1e6, 1e6 / guest);
            println!("| {} | {on} | {host_us:.2} | {guest_us:.2} | {ratio:.3} |", kernel.id);
            rows.push(HostGuestRow {
                kernel: kernel.id.into(),
                image: image.name().into(),
                host_us_per_case: host_us,
                guest_us_per_call: guest_us,
                host_guest_ratio: ratio,
            });
        }
    }
    if let Some(path) = json {
        std::fs::write(path, serde_json::to_string_pretty(&rows)?).with_context(|| format!("{}", path.display()))?;
    }
    Ok(ExitCode::SUCCESS)
}

/// The random cases `--host-guest` times the guest on (the first of those the host is timed on).
const GUEST_CASES: u64 = 8;

#[derive(Serialize)]
struct HostGuestRow {
    kernel: String,
    image: String,
    host_us_per_case: f64,
    guest_us_per_call: f64,
    host_guest_ratio: f64,
}

/// The images measured: the one asked for, else each emulator's default.
fn images(image: Option<Image>) -> Vec<Image> {
    match image {
        Some(image) => vec![image],
        None => [BackendKind::Unicorn, BackendKind::Qemu].into_iter().filter_map(BackendKind::default_image).collect(),
    }
}

/// Measurement rounds per kernel and backend.
const ROUNDS: usize = 5;

/// The most `--calls` per measurement: the guest's loop counts its calls in 32 bits.
pub const MAX_CALLS: u64 = 1_000_000_000;

/// The least time one measurement of the model runs (`calls` calls, repeated): a hundred times faster than QEMU, the
/// model would otherwise be timed over a few milliseconds, which this virtual machine's scheduling can double.
const MODEL_TIME: Duration = Duration::from_millis(200);

/// The least cases and time of one measurement of the host's time per case ([`diff::host_time_per_case`]).
const HOST_MIN_CASES: u64 = 16;
const HOST_TIME: Duration = Duration::from_millis(200);

/// One round of measurements of a kernel on an emulator, taken back to back.
struct Round {
    single: f64,
    batched: f64,
    campaign: f64,
    pinned_campaign: f64,
    with_startup: f64,
    startup_ms: f64,
    guest: f64,
    model: f64,
    /// The host's time per case in a campaign.
    host: Duration,
    instructions: u64,
}

fn median(mut values: Vec<f64>) -> f64 {
    values.sort_by(f64::total_cmp);
    values[values.len() / 2]
}

/// Calls/s when `calls` calls go `per_trip` to a guest round trip.
fn round_trips(emulator: &mut dyn Backend, one: &Call, calls: u64, per_trip: u64) -> Result<f64> {
    let batch = vec![one.clone(); per_trip as usize];
    let started = Instant::now();
    let mut done = 0;
    while done < calls {
        let n = per_trip.min(calls - done) as usize;
        for r in emulator.run_batch(&batch[..n]) {
            r?;
        }
        done += n as u64;
    }
    Ok(calls as f64 / started.elapsed().as_secs_f64())
}

/// Our schemes against the oracle crates, each operation timed on both sides in one run.
pub fn schemes(iterations: u64) -> Result<ExitCode> {
    let iterations = u32::try_from(iterations.min(100_000)).expect("bounded");
    println!("{iterations} operations each, ours and the oracle crate's, in one run\n");
    println!("| operation | ours (ops/s) | oracle (ops/s) | ours / oracle |");
    println!("|---|---:|---:|---:|");
    for (name, ours, oracle) in pqhelium_schemes::scheme_bench::run(iterations) {
        println!("| {name} | {ours:.0} | {oracle:.0} | {:.2} |", ours / oracle);
    }
    Ok(ExitCode::SUCCESS)
}
