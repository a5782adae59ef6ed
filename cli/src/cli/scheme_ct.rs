//! `--ct-pairs` of `pqhelium scheme`, for our builds and for a manifest's: each operation's verdict, one line.

use anyhow::Result;
use pqhelium_guest::backend::Image;
use pqhelium_schemes::fndsa_on_guest::SignatureBuild;
use pqhelium_schemes::on_guest::KemBuild;
use pqhelium_schemes::scheme_ct::{self, OpVerdict, Randomness};
use pqhelium_schemes::signature_ct;

/// The constant-time verdict of each KEM operation (`pqhelium_schemes::scheme_ct`) over `pairs` pairs; whether none
/// leaked or faulted.
pub(super) fn print_ct(image: Image, build: &KemBuild, pairs: u64, randomness: Randomness) -> Result<bool> {
    let verdicts = scheme_ct::check_operations(image, build, pairs, CT_SEED, randomness)?;
    Ok(print_verdicts(verdicts.into_iter().map(|(op, verdict)| (build.symbol(op), verdict))))
}

/// The constant-time verdict of each FN-DSA operation at degree `logn` (`pqhelium_schemes::signature_ct`).
pub(super) fn print_signature_ct(image: Image, build: &SignatureBuild, logn: u32, pairs: u64) -> Result<bool> {
    let verdicts = signature_ct::check_operations(image, build, logn, pairs, CT_SEED)?;
    Ok(print_verdicts(verdicts.into_iter().map(|(op, verdict)| (build.symbol(op).to_string(), verdict))))
}

/// A line per operation; whether every verdict passed.
fn print_verdicts(verdicts: impl Iterator<Item = (String, OpVerdict)>) -> bool {
    println!();
    let mut passed = true;
    for (symbol, verdict) in verdicts {
        match &verdict {
            OpVerdict::Leak { pair, leak } => println!(
                "ct {symbol}: LEAK in pair {pair}: {} at {} ({}): {} vs {}",
                leak.kind,
                leak.location,
                leak.source.as_deref().unwrap_or("no source line"),
                leak.a,
                leak.b
            ),
            OpVerdict::Fault { pair, why } => println!("ct {symbol}: pair {pair} not judged: {why}"),
            OpVerdict::NoSecret { why } => println!("ct {symbol}: no secret input ({why})"),
            OpVerdict::Resynchronised(whole) => {
                println!("ct {symbol}: {}", whole.summary());
                if let Some(lost) = &whole.lost {
                    println!("    not compared to the end: {lost}");
                }
                for (leak, why) in &whole.places {
                    let source = leak.source.as_deref().unwrap_or("no source line");
                    println!("    {} at {} ({source}): {why}", leak.kind, leak.location);
                }
            }
        }
        passed &= verdict.passed();
    }
    passed
}

/// The pairs' inputs: fixed, so that a verdict can be reproduced.
const CT_SEED: u64 = 1;
