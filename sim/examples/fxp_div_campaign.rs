//! The FPU division model against the reference's bit-by-bit division on random operand pairs (magnitudes spread
//! over every scale, both signs), on every CPU: `cargo run --release -p pqhelium-sim --example fxp_div_campaign
//! [pairs] [seed]` (default 10^8 pairs, seed 1). Prints the first mismatch and exits 1 if there is one.

use std::process::ExitCode;
use std::time::Instant;

use pqhelium_core::fndsa::keygen::fxp;
use pqhelium_sim::fxp_div::{self as model, spread_operand};
use rand::{RngCore, SeedableRng};
use rand_chacha::ChaCha8Rng;

fn main() -> ExitCode {
    let mut args = std::env::args().skip(1).map(|a| a.parse::<u64>().expect("pairs and seed are integers"));
    let pairs = args.next().unwrap_or(100_000_000);
    let seed = args.next().unwrap_or(1);
    let threads = std::thread::available_parallelism().map_or(1, |n| n.get() as u64);
    let start = Instant::now();
    let results: Vec<(u64, Option<(u64, u64)>)> = std::thread::scope(|scope| {
        let workers: Vec<_> = (0..threads)
            .map(|t| {
                scope.spawn(move || {
                    // Each thread draws its own stream: the run is a function of (seed, threads).
                    let mut rng = ChaCha8Rng::seed_from_u64(seed);
                    rng.set_stream(t);
                    let share = pairs / threads + u64::from(t < pairs % threads);
                    let mut overflowing = 0;
                    for _ in 0..share {
                        let x = spread_operand(rng.next_u64(), rng.next_u64());
                        let y = spread_operand(rng.next_u64(), rng.next_u64());
                        if model::div(x, y) != fxp::div(x, y) {
                            return (overflowing, Some((x, y)));
                        }
                        overflowing += u64::from((x as i64).unsigned_abs() >> 32 >= (y as i64).unsigned_abs());
                    }
                    (overflowing, None)
                })
            })
            .collect();
        workers.into_iter().map(|w| w.join().expect("worker")).collect()
    });
    let seconds = start.elapsed().as_secs_f64();
    if let Some((x, y)) = results.iter().find_map(|r| r.1) {
        println!(
            "MISMATCH {x:#018x} / {y:#018x}: model {:#018x}, reference {:#018x}",
            model::div(x, y),
            fxp::div(x, y)
        );
        return ExitCode::FAILURE;
    }
    let overflowing: u64 = results.iter().map(|r| r.0).sum();
    println!(
        "{pairs} pairs (seed {seed}, {threads} threads, {overflowing} in the overflow class): model == reference, \
         0 mismatches, {seconds:.1} s"
    );
    ExitCode::SUCCESS
}
