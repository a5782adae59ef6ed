//! `pqhelium`: the command line of the test bench. Each command lives in `cli/`.

mod cli;

use std::path::PathBuf;
use std::process::ExitCode;

use clap::{Parser, Subcommand};
use pqhelium_guest::backend::{BackendKind, Image};
use pqhelium_schemes::kat::Provider;

#[derive(Parser)]
#[command(name = "pqhelium", version, about = "Emulator-backed test bench for Cortex-M55/M85 post-quantum kernels")]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// The main job: every known-answer test with every provider, and a short differential campaign of every
    /// kernel on every backend. Exit code 0 only if all pass.
    Check(cli::check::Args),
    /// Kernels (each contract, from the registry's data) and backends (available or why not).
    List {
        /// The contracts as JSON (schema `pqhelium-contracts/1`): every argument with its type, length, direction,
        /// bounds, representation, modulus (residues mod q) and secrecy.
        #[arg(long, conflicts_with = "markdown")]
        json: bool,
        /// The contracts as Markdown (docs/kernels.md).
        #[arg(long)]
        markdown: bool,
    },
    /// Differential campaigns: reference vs model vs object code, byte for byte.
    Fuzz(cli::fuzz::Args),
    /// Bound coverage on the model: each reduction and rounding step's proven interval and the extremes the cases
    /// reach (edge and corner cases first).
    Coverage(cli::coverage::Args),
    /// Combines the reports of a campaign's shards (`fuzz --shard K/N`) into the report of one run; refuses shards
    /// of different campaigns and overlapping ones.
    Merge(cli::merge::Args),
    /// Re-runs one case alone and prints its inputs, every output and the first difference or the fault.
    Repro {
        /// Kernel id (with --manifest: one of its symbols).
        #[arg(long)]
        kernel: String,
        /// Implied by --image when absent.
        #[arg(long, value_enum, required_unless_present_any = ["image", "manifest"])]
        backend: Option<BackendKind>,
        /// The guest image (m55, m85 on QEMU; m7 on unicorn); the backend's default when absent.
        #[arg(long, value_enum)]
        image: Option<Image>,
        /// Your kernels' manifest instead: the symbol on the image linked from it.
        #[arg(long, conflicts_with_all = ["backend", "image"])]
        manifest: Option<PathBuf>,
        #[arg(long)]
        seed: u64,
        #[arg(long)]
        case: u64,
    },
    /// The known-answer tests alone.
    Kat {
        /// Suites to run (all when absent).
        #[arg(long)]
        suite: Vec<String>,
        /// Kernel providers (all when absent).
        #[arg(long, value_enum)]
        provider: Vec<Provider>,
        /// The guest image of the object-code provider (m55, m85 with qemu; m7 with unicorn); alone, it picks its
        /// provider. Each emulator's default image when absent.
        #[arg(long, value_enum)]
        image: Option<Image>,
    },
    /// Constant-time evidence: pairs of inputs differing only in secret arguments, the object code's leakage traces
    /// (instruction addresses, data addresses, variable-latency operands) compared; the first difference is a leak.
    Ct(cli::ct::Args),
    /// Links your objects or sources (a manifest: README "Check your own kernel") with the bench's harness, after
    /// checking their architecture and float ABI and linting them; names each symbol and the contract it is checked
    /// against.
    Link(cli::byo::LinkArgs),
    /// Every instruction of the guest images (or of your objects) checked for encodings the architecture calls
    /// UNDEFINED or UNPREDICTABLE, which QEMU runs without complaint; a finding names `symbol+offset` and the rule.
    Lint(cli::lint::Args),
    /// Estimated Cortex-M55/M85 cycles per call: the blocks QEMU ran, timed by LLVM's scheduling models of the cores.
    Cycles(cli::cycles::Args),
    /// Throughput per kernel and backend, instructions per call, harness efficiency.
    Bench {
        /// Kernel id or glob (with --manifest: its symbols).
        #[arg(long, default_value = "*")]
        kernel: String,
        /// Your kernels' manifest instead: its symbols on the image linked from it.
        #[arg(long, conflicts_with_all = ["image", "schemes"])]
        manifest: Option<PathBuf>,
        #[arg(long, default_value_t = 10_000)]
        calls: u64,
        /// Measure this guest image only (m55, m85 on QEMU; m7 on unicorn); every emulator's default when absent.
        #[arg(long, value_enum, conflicts_with = "schemes")]
        image: Option<Image>,
        /// Also write the table as JSON.
        #[arg(long)]
        json: Option<PathBuf>,
        /// Instead: native speed of our ML-KEM-768, X-Wing and FN-DSA against the oracle crates, side by side.
        #[arg(long)]
        schemes: bool,
    },
}

fn main() -> ExitCode {
    tracing_subscriber::fmt()
        .with_env_filter(tracing_subscriber::EnvFilter::try_from_default_env().unwrap_or_else(|_| "warn".into()))
        .with_writer(std::io::stderr)
        .init();
    let cli = Cli::parse();
    quiet_on_closed_stdout();
    let outcome = match std::panic::catch_unwind(|| run(cli)) {
        Ok(outcome) => outcome,
        // The reader of our output went away (`pqhelium list | head`): stop as other tools do, after unwinding
        // (temporary files removed), with no message.
        Err(payload) if is_closed_stdout(payload.as_ref()) => return ExitCode::from(CLOSED_PIPE_EXIT),
        Err(payload) => std::panic::resume_unwind(payload),
    };
    match outcome {
        Ok(code) => code,
        Err(e) => {
            eprintln!("error: {e:#}");
            ExitCode::from(2)
        }
    }
}

/// A shell's exit code for a process stopped by SIGPIPE (128 + 13).
const CLOSED_PIPE_EXIT: u8 = 141;

/// Silences the panic message of a print to a closed pipe; every other panic is reported as before.
fn quiet_on_closed_stdout() {
    let report = std::panic::take_hook();
    std::panic::set_hook(Box::new(move |info| {
        if !is_closed_stdout(info.payload()) {
            report(info);
        }
    }));
}

/// Whether a panic is std's "failed printing to stdout" on a closed pipe (Rust ignores SIGPIPE, so the print
/// fails with EPIPE instead of ending the process).
fn is_closed_stdout(payload: &(dyn std::any::Any + Send)) -> bool {
    let message =
        payload.downcast_ref::<String>().map(String::as_str).or_else(|| payload.downcast_ref::<&str>().copied());
    message.is_some_and(|m| m.starts_with("failed printing to stdout") && m.contains("Broken pipe"))
}

fn run(cli: Cli) -> anyhow::Result<ExitCode> {
    match cli.command {
        Command::Check(args) => cli::check::run(args),
        Command::List { json, markdown } => cli::list::run(match (json, markdown) {
            (true, _) => cli::list::Format::Json,
            (_, true) => cli::list::Format::Markdown,
            _ => cli::list::Format::Text,
        }),
        Command::Fuzz(args) => cli::fuzz::run(args),
        Command::Coverage(args) => cli::coverage::run(args),
        Command::Merge(args) => cli::merge::run(args),
        Command::Repro { kernel, backend, image, manifest, seed, case } => {
            cli::repro(&kernel, (backend, image, manifest.as_deref()), seed, case)
        }
        Command::Kat { suite, provider, image } => cli::kat(&suite, &provider, image),
        Command::Ct(args) => cli::ct::run(args),
        Command::Lint(args) => cli::lint::run(args),
        Command::Cycles(args) => cli::cycles::run(args),
        Command::Link(args) => cli::byo::link(args),
        Command::Bench { schemes: true, calls, .. } => cli::bench::schemes(calls),
        Command::Bench { kernel, calls, manifest: Some(manifest), json, .. } => {
            cli::bench::run_manifest(&manifest, &kernel, calls, json.as_deref())
        }
        Command::Bench { kernel, calls, image, json, .. } => cli::bench::run(&kernel, calls, image, json.as_deref()),
    }
}
