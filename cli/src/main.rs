//! `pqhelium`: the command line of the test bench. Each command lives in `cli/`.

mod cli;

/// Campaigns allocate and free each case's buffers by the chunk, a pattern glibc's allocator serves slowly.
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

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
        #[arg(long, value_parser = cli::numbers::case())]
        case: u64,
        /// The contract parameters the run pinned (`fuzz --param`; repeatable).
        #[arg(long = "param", value_name = "NAME=VALUE")]
        params: Vec<pqhelium_families::Pin>,
        /// With --manifest: run an object the lint refuses for this rule (repeatable: `undecodable`,
        /// `potentially-undefined`, `unpredictable-operands`), for investigation: every result is marked, and the exit
        /// code is 1 at best.
        #[arg(long, requires = "manifest", value_name = "RULE")]
        allow_lint: Vec<String>,
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
    /// Region equivalence: two code regions (before and after a rewrite, such as SLOTHY's) run from the same random
    /// register states on QEMU; the first differing register, flag or buffer byte is named (docs/slothy.md).
    Equiv(cli::equiv::Args),
    /// A whole scheme on the guest through the pqm4 API: the NIST KAT procedure, per operation the result against the
    /// host reference, instructions, estimated cycles, stack high-water mark, and code size (docs/schemes.md).
    Scheme(cli::scheme::Args),
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
        /// Calls per measurement.
        #[arg(long, default_value_t = 10_000, value_parser = clap::value_parser!(u64).range(1..=cli::bench::MAX_CALLS))]
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
        /// Pin a contract parameter of the measured case (repeatable), e.g. `--param logn=9`.
        #[arg(long = "param", value_name = "NAME=VALUE", conflicts_with = "schemes")]
        params: Vec<pqhelium_families::Pin>,
        /// Only the host's time per case, the guest's per call and their ratio (quick enough for every kernel).
        #[arg(long, conflicts_with_all = ["schemes", "manifest", "params"])]
        host_guest: bool,
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
        Ok(code) => cli::byo::verdict(code),
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
        Command::Repro { kernel, backend, image, manifest, seed, case, params, allow_lint } => {
            cli::repro(&kernel, (backend, image, manifest.as_deref()), (seed, case, &params), &allow_lint)
        }
        Command::Kat { suite, provider, image } => cli::kat(&suite, &provider, image),
        Command::Ct(args) => cli::ct::run(args),
        Command::Lint(args) => cli::lint::run(args),
        Command::Cycles(args) => cli::cycles::run(args),
        Command::Scheme(args) => cli::scheme::run(args),
        Command::Link(args) => cli::byo::link(args),
        Command::Equiv(args) => cli::equiv::run(args),
        Command::Bench { schemes: true, calls, .. } => cli::bench::schemes(calls),
        Command::Bench { kernel, calls, manifest: Some(manifest), json, params, .. } => {
            cli::bench::run_manifest(&manifest, &kernel, (calls, &params), json.as_deref())
        }
        Command::Bench { kernel, calls, image, json, host_guest: true, .. } => {
            cli::bench::host_guest(&kernel, calls, image, json.as_deref())
        }
        Command::Bench { kernel, calls, image, json, params, .. } => {
            cli::bench::run(&kernel, (calls, &params), image, json.as_deref())
        }
    }
}

#[cfg(test)]
mod tests {
    use std::any::TypeId;
    use std::time::Duration;

    use clap::error::ErrorKind;
    use clap::{CommandFactory, Parser};
    use pqhelium_engine::shard::Shard;

    use super::Cli;

    /// Values no numeric flag takes: negative, 2^64, floating, empty, not a number, hexadecimal, infinite, an
    /// absurd duration.
    const NEVER: [&str; 9] =
        ["-1", "18446744073709551616", "1e30", "", "abc", "NaN", "inf", "0x10", "99999999999999999999h"];
    /// 2^64 - 1: taken only where every 64-bit value means something.
    const U64_MAX: &str = "18446744073709551615";
    /// A seed names a campaign, and every 64-bit value is one.
    const EVERY_U64: [&str; 1] = ["seed"];
    /// Where 0 means something: the first seed, the first case or pair, no shrinking, no differential campaign, all
    /// the blocks.
    const ZERO_MEANS: [&str; 6] = ["seed", "case", "pair", "shrink-budget", "campaign", "blocks"];

    /// A flag whose value is a number (a count, an index, seconds, a duration, a shard K/N), from its parser's type:
    /// a new numeric flag is covered without being listed.
    fn numeric(arg: &clap::Arg) -> bool {
        let numbers = [
            TypeId::of::<u64>(),
            TypeId::of::<u32>(),
            TypeId::of::<usize>(),
            TypeId::of::<f64>(),
            TypeId::of::<Duration>(),
            TypeId::of::<Shard>(),
        ];
        let parser = arg.get_value_parser().type_id();
        numbers.iter().any(|number| parser == *number)
    }

    #[test]
    fn the_command_line_is_well_formed() {
        Cli::command().debug_assert();
    }

    /// Every numeric flag of every command, from clap's own command tree: extreme values are refused with a usage
    /// error (exit code 2) naming the flag, or taken where the flag's meaning covers them; none panics.
    #[test]
    fn every_numeric_flag_refuses_what_it_cannot_take() {
        let mut checked = Vec::new();
        for command in Cli::command().get_subcommands() {
            let name = command.get_name();
            for arg in command.get_arguments().filter(|a| a.get_action().takes_values() && numeric(a)) {
                let flag = arg.get_long().expect("numeric arguments are flags");
                for value in NEVER.iter().chain(&["0", U64_MAX]) {
                    let line = ["pqhelium".to_string(), name.to_string(), format!("--{flag}={value}")];
                    let parsed = std::panic::catch_unwind(|| Cli::try_parse_from(&line))
                        .unwrap_or_else(|_| panic!("{line:?}: the parser panicked"));
                    // Accepted: parsed, or refused for something else (another flag the command requires).
                    let accepted = match parsed {
                        Ok(_) => true,
                        Err(e) if matches!(e.kind(), ErrorKind::ValueValidation | ErrorKind::InvalidValue) => {
                            assert_eq!(e.exit_code(), 2, "{line:?}");
                            assert!(e.to_string().contains(&format!("--{flag}")), "{line:?}: {e}");
                            false
                        }
                        Err(e) => {
                            assert_eq!(e.exit_code(), 2, "{line:?}: {e}");
                            true
                        }
                    };
                    let meant = (*value == "0" && ZERO_MEANS.contains(&flag))
                        || (*value == U64_MAX && EVERY_U64.contains(&flag));
                    assert_eq!(accepted, meant, "{line:?}");
                }
                checked.push(format!("{name} --{flag}"));
            }
        }
        // The tree was walked: fuzz alone has nine numeric flags.
        assert!(checked.len() >= 20, "{checked:?}");
        assert!(checked.iter().any(|c| c == "fuzz --timeout") && checked.iter().any(|c| c == "repro --case"));
    }
}
