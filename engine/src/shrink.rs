//! Shrinking a failing case to a minimal one.
//!
//! A failing input is pulled towards the simplest valid input of its contract, edge case 0 (all zero for every
//! contract so far): a candidate takes each group of bytes either from the failing input or from edge case 0. Groups
//! are first the contract's elements, so that what is left are the coefficients, lanes or words the failure needs,
//! then single bytes within them. Each pass tries groups in halving blocks, as in delta debugging. A candidate
//! outside the contract's domain fails another way (its inputs are checked first) and is not taken.

use pqhelium_guest::backend::Arg;

/// The smallest variant of `failing` (towards `simplest`) on which `fails` still holds, within `budget` evaluations.
/// `element_bytes[i]` is the size of argument i's elements (1 where it is missing).
pub fn shrink(
    failing: &[Arg],
    simplest: &[Arg],
    element_bytes: &[usize],
    budget: usize,
    mut fails: impl FnMut(&[Arg]) -> bool,
) -> Vec<Arg> {
    let mut current = failing.to_vec();
    let mut evaluations = 0;
    for (index, target) in simplest.iter().enumerate() {
        let Some(target) = buffer(target) else { continue };
        let Some(source) = buffer(&current[index]) else { continue };
        if source.len() != target.len() {
            continue;
        }
        let target = target.to_vec();
        let element = element_bytes.get(index).copied().unwrap_or(1).max(1);
        let sizes = if element > 1 { vec![element, 1] } else { vec![1] };
        for group in sizes {
            let groups = target.len().div_ceil(group);
            let mut block = groups.next_power_of_two();
            while block >= 1 {
                let mut start = 0;
                while start < groups {
                    if evaluations >= budget {
                        return current;
                    }
                    let bytes = (start * group, ((start + block) * group).min(target.len()));
                    let candidate = with_bytes_from(&current, index, &target, bytes);
                    if candidate != current {
                        evaluations += 1;
                        if fails(&candidate) {
                            current = candidate;
                        }
                    }
                    start += block;
                }
                block /= 2;
            }
        }
    }
    current
}

fn buffer(arg: &Arg) -> Option<&[u8]> {
    match arg {
        Arg::In(b) | Arg::InOut(b) => Some(b),
        _ => None,
    }
}

/// `args` with bytes `[from, to)` of buffer `index` replaced by those of `target`.
fn with_bytes_from(args: &[Arg], index: usize, target: &[u8], (from, to): (usize, usize)) -> Vec<Arg> {
    let mut out = args.to_vec();
    if let Arg::In(b) | Arg::InOut(b) = &mut out[index] {
        b[from..to].copy_from_slice(&target[from..to]);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn nonzero(args: &[Arg]) -> Vec<usize> {
        let Arg::InOut(b) = &args[0] else { unreachable!() };
        (0..b.len()).filter(|&i| b[i] != 0).collect()
    }

    #[test]
    fn keeps_only_the_bytes_the_failure_needs() {
        let failing = vec![Arg::InOut((1..=64).collect()), Arg::U32(3)];
        let simplest = vec![Arg::InOut(vec![0; 64]), Arg::U32(3)];
        // Fails while bytes 17 and 42 keep their values.
        let fails = |args: &[Arg]| {
            let Arg::InOut(b) = &args[0] else { unreachable!() };
            b[17] == 18 && b[42] == 43
        };
        for element in [1, 2, 4, 8] {
            let shrunk = shrink(&failing, &simplest, &[element, 0], 1000, fails);
            assert_eq!(nonzero(&shrunk), vec![17, 42], "{element}-byte elements");
            assert_eq!(shrunk[1], Arg::U32(3));
        }
    }

    /// A failure that needs an element's whole value keeps that element, and only it, whole.
    #[test]
    fn keeps_whole_elements_the_failure_needs_whole() {
        let failing = vec![Arg::InOut((1..=64).collect())];
        let simplest = vec![Arg::InOut(vec![0; 64])];
        // Fails while the 16-bit element 5 (bytes 10 and 11) is as it was.
        let shrunk = shrink(&failing, &simplest, &[2], 1000, |args| {
            let Arg::InOut(b) = &args[0] else { unreachable!() };
            b[10..12] == [11, 12]
        });
        assert_eq!(nonzero(&shrunk), vec![10, 11]);
    }

    #[test]
    fn respects_the_budget() {
        let failing = vec![Arg::In(vec![9; 400])];
        let simplest = vec![Arg::In(vec![0; 400])];
        let mut calls = 0;
        shrink(&failing, &simplest, &[2], 10, |_| {
            calls += 1;
            false
        });
        assert_eq!(calls, 10);
    }
}
