//! Shrinking a failing case to a minimal one.
//!
//! A failing input is pulled towards the simplest valid input of its contract, edge case 0 (all zero for every
//! contract so far), four bytes at a time: a candidate takes each 4-byte group either from the failing input or from
//! edge case 0. For contracts whose precondition bounds each element (coefficients in [0, q), any state...), every
//! candidate is valid. Groups are tried in halving blocks, as in delta debugging, and the result keeps only the
//! groups the failure needs.

use pqhelium_guest::backend::Arg;

const GROUP: usize = 4;

/// The smallest variant of `failing` (towards `simplest`) on which `fails` still holds, within `budget` evaluations.
pub fn shrink(failing: &[Arg], simplest: &[Arg], budget: usize, mut fails: impl FnMut(&[Arg]) -> bool) -> Vec<Arg> {
    let mut current = failing.to_vec();
    let mut evaluations = 0;
    for (index, target) in simplest.iter().enumerate() {
        let Some(target) = buffer(target) else { continue };
        let Some(source) = buffer(&current[index]) else { continue };
        if source.len() != target.len() {
            continue;
        }
        let target = target.to_vec();
        let groups = source.len().div_ceil(GROUP);
        let mut block = groups.next_power_of_two();
        while block >= 1 {
            let mut start = 0;
            while start < groups {
                if evaluations >= budget {
                    return current;
                }
                let candidate = with_groups_from(&current, index, &target, start, (start + block).min(groups));
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
    current
}

fn buffer(arg: &Arg) -> Option<&[u8]> {
    match arg {
        Arg::In(b) | Arg::InOut(b) => Some(b),
        _ => None,
    }
}

/// `args` with groups `[first, last)` of buffer `index` replaced by those of `target`.
fn with_groups_from(args: &[Arg], index: usize, target: &[u8], first: usize, last: usize) -> Vec<Arg> {
    let mut out = args.to_vec();
    if let Arg::In(b) | Arg::InOut(b) = &mut out[index] {
        let (from, to) = (first * GROUP, (last * GROUP).min(b.len()));
        b[from..to].copy_from_slice(&target[from..to]);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keeps_only_the_groups_the_failure_needs() {
        let failing = vec![Arg::InOut((1..=64).collect()), Arg::U32(3)];
        let simplest = vec![Arg::InOut(vec![0; 64]), Arg::U32(3)];
        // Fails while bytes 17 and 42 keep their values.
        let shrunk = shrink(&failing, &simplest, 1000, |args| {
            let Arg::InOut(b) = &args[0] else { unreachable!() };
            b[17] == 18 && b[42] == 43
        });
        let Arg::InOut(b) = &shrunk[0] else { unreachable!() };
        let kept: Vec<usize> = (0..64).filter(|&i| b[i] != 0).collect();
        assert_eq!(kept, vec![16, 17, 18, 19, 40, 41, 42, 43]);
    }

    #[test]
    fn respects_the_budget() {
        let failing = vec![Arg::In(vec![9; 400])];
        let simplest = vec![Arg::In(vec![0; 400])];
        let mut calls = 0;
        shrink(&failing, &simplest, 10, |_| {
            calls += 1;
            false
        });
        assert_eq!(calls, 10);
    }
}
