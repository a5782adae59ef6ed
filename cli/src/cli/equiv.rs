//! `pqhelium equiv`: two code regions (a scheduler's input and output) run from the same random register states on
//! QEMU and compared register by register and byte by byte (`pqhelium_byo::equiv`; docs/slothy.md).

use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Duration;

use anyhow::{Result, anyhow};
use pqhelium_byo::equiv::{self, Address, Marker, Options, Register};
use pqhelium_guest::backend::Limits;

/// The most random states a run takes: each is one call of each region.
const MAX_STATES: u64 = 1_000_000;

#[derive(clap::Args)]
pub struct Args {
    /// The core both regions are assembled for and run as (QEMU's Cortex-M55 model runs both).
    #[arg(long, value_parser = ["m55", "m85"])]
    core: String,
    /// The region before the rewrite (assembly, `.s`).
    before: PathBuf,
    /// The region after it.
    after: PathBuf,
    /// The lines strictly between two labels (`START:`) or line numbers, in both files; the whole files when absent.
    #[arg(long, value_parser = parse_region)]
    region: Option<(Marker, Marker)>,
    /// Random register states to run both regions from.
    #[arg(long, default_value_t = 1000, value_parser = clap::value_parser!(u64).range(1..=MAX_STATES))]
    states: u64,
    /// The first state's seed; state k has seed SEED + k, and `--seed SEED+k --states 1` runs it alone.
    #[arg(long, default_value_t = 0)]
    seed: u64,
    /// Address registers and their buffers: `r0:1024,r1:512@256` (BYTES, and where in the buffer the register
    /// points). Inferred when absent: every base register of a memory operand, at the start of 4096 bytes.
    #[arg(long, value_parser = parse_addresses)]
    addr: Option<Addresses>,
    /// Registers both regions must leave as they found them (`r4-r11,d8-d15`; q registers too). When absent: the
    /// AAPCS callee-saved r4-r11 and d8-d15 if a region is a function (`.type NAME, %function`), none otherwise.
    #[arg(long, value_parser = parse_registers)]
    preserve: Option<Registers>,
    /// Registers whose final values are not compared (the regions' scratch registers: a scheduler renames them).
    #[arg(long, value_parser = parse_registers)]
    ignore: Option<Registers>,
    /// Wall-clock limit of each region's batch of states (an endless loop is an error).
    #[arg(long, default_value_t = 60, value_parser = clap::value_parser!(u64).range(1..=3600))]
    timeout: u64,
}

fn parse_region(text: &str) -> Result<(Marker, Marker), String> {
    equiv::parse_region(text)
}

/// One flag's list (clap would take a `Vec` for a flag given several times).
#[derive(Clone)]
struct Addresses(Vec<Address>);

#[derive(Clone)]
struct Registers(Vec<Register>);

fn parse_addresses(text: &str) -> Result<Addresses, String> {
    equiv::parse_addresses(text).map(Addresses)
}

fn parse_registers(text: &str) -> Result<Registers, String> {
    equiv::parse_registers(text).map(Registers)
}

pub fn run(args: Args) -> Result<ExitCode> {
    let options = Options {
        core: args.core,
        before: args.before,
        after: args.after,
        region: args.region,
        states: u32::try_from(args.states).expect("clap bounds --states"),
        seed: args.seed,
        addresses: args.addr.map(|a| a.0),
        preserve: args.preserve.map(|r| r.0),
        ignore: args.ignore.map(|r| r.0).unwrap_or_default(),
        limits: Limits { timeout: Duration::from_secs(args.timeout) },
    };
    let outcome = equiv::run(&options).map_err(|e| anyhow!(e))?;
    let addresses: Vec<String> =
        outcome.addresses.iter().map(|a| format!("r{}:{}@{}", a.register, a.bytes, a.offset)).collect();
    let preserved: Vec<String> = outcome.preserved.iter().map(ToString::to_string).collect();
    println!(
        "address registers: {}; preserved: {}",
        if addresses.is_empty() { "none".into() } else { addresses.join(",") },
        if preserved.is_empty() { "none".into() } else { preserved.join(",") },
    );
    println!(
        "instructions per run (wrapper included): {} before, {} after",
        outcome.instructions[0], outcome.instructions[1]
    );
    match outcome.finding {
        None => {
            println!("equivalent: {} states, every register, flag and buffer byte equal", outcome.states);
            Ok(ExitCode::SUCCESS)
        }
        Some(finding) => {
            println!("NOT EQUIVALENT in state {} (seed {}): {}", finding.state, finding.seed, finding.message);
            println!(
                "reproduce: pqhelium equiv --core {} {} {} --seed {} --states 1 (with the same --region, --addr, \
                 --preserve)",
                options.core,
                options.before.display(),
                options.after.display(),
                finding.seed
            );
            Ok(ExitCode::FAILURE)
        }
    }
}
