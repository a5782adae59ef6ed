//! `--ct-pairs` of `pqhelium scheme`, for our builds and for a manifest's: each operation's verdict, one line.

use anyhow::Result;
use pqhelium_guest::backend::Image;
use pqhelium_schemes::on_guest::KemBuild;
use pqhelium_schemes::scheme_ct::{self, OpVerdict, Randomness};

/// The constant-time verdict of each operation (`pqhelium_schemes::scheme_ct`) over `pairs` pairs; whether none
/// leaked or faulted.
pub(super) fn print_ct(image: Image, build: &KemBuild, pairs: u64, randomness: Randomness) -> Result<bool> {
    println!();
    let verdicts = scheme_ct::check_operations(image, build, pairs, CT_SEED, randomness)?;
    for (op, verdict) in &verdicts {
        let symbol = build.symbol(*op);
        match verdict {
            OpVerdict::ConstantTime { pairs } => println!("ct {symbol}: {pairs} pairs, equal traces"),
            OpVerdict::Explained { pairs, first, why } => println!(
                "ct {symbol}: {pairs} pairs, equal traces up to {} at {} ({}), explained: {why}",
                first.kind,
                first.location,
                first.source.as_deref().unwrap_or("no source line"),
            ),
            OpVerdict::Leak { pair, leak } => println!(
                "ct {symbol}: LEAK in pair {pair}: {} at {} ({}): {} vs {}",
                leak.kind,
                leak.location,
                leak.source.as_deref().unwrap_or("no source line"),
                leak.a,
                leak.b
            ),
            OpVerdict::Fault { pair, why } => println!("ct {symbol}: pair {pair} not judged: {why}"),
        }
    }
    Ok(verdicts.iter().all(|(_, v)| v.passed()))
}

/// The pairs' inputs: fixed, so that a verdict can be reproduced.
const CT_SEED: u64 = 1;
