//! Campaigns across machines: shard K of N runs the K-th of N disjoint, contiguous slices of the case indices, so N
//! machines given the same kernel, seed and case count together run exactly the cases of one campaign.

use std::fmt;
use std::str::FromStr;

use serde::{Deserialize, Serialize};

use crate::ranges::Ranges;

/// Shard `index` of `count` (`index` counts from 0, as a Kubernetes completion index does).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct Shard {
    pub index: u32,
    pub count: u32,
}

impl Shard {
    /// The whole case space, as one shard of one.
    pub const WHOLE: Shard = Shard { index: 0, count: 1 };

    /// This shard's slice of the cases `0..cases`: `[cases * K / N, cases * (K + 1) / N)`. Slices of one split are
    /// disjoint, in order and cover `0..cases`; a campaign bounded by time (`cases` = `u64::MAX`) is sliced the same
    /// way, so each shard starts at its own slice.
    pub fn slice(self, cases: u64) -> [u64; 2] {
        let at = |k: u32| (u128::from(cases) * u128::from(k) / u128::from(self.count)) as u64;
        [at(self.index), at(self.index + 1)]
    }

    /// The cases outside this shard's slice: what its campaign skips.
    pub fn outside(self, cases: u64) -> Ranges {
        let [first, last] = self.slice(cases);
        Ranges::from_slice(&[[0, first], [last, cases]])
    }
}

impl fmt::Display for Shard {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}/{}", self.index, self.count)
    }
}

impl FromStr for Shard {
    type Err = String;

    fn from_str(text: &str) -> Result<Self, String> {
        let usage = || format!("`{text}`: expected K/N with 0 <= K < N (shard K of N, counting from 0)");
        let (k, n) = text.split_once('/').ok_or_else(usage)?;
        let (index, count): (u32, u32) =
            (k.trim().parse().map_err(|_| usage())?, n.trim().parse().map_err(|_| usage())?);
        if index >= count {
            return Err(usage());
        }
        Ok(Shard { index, count })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn slices_are_disjoint_ordered_and_cover_the_cases() {
        for cases in [0, 1, 7, 1000, 1 << 40, u64::MAX] {
            for count in [1u32, 2, 3, 4, 7, 64] {
                let mut covered = Ranges::new();
                let mut end = 0;
                for index in 0..count {
                    let [first, last] = Shard { index, count }.slice(cases);
                    assert_eq!(first, end, "slice {index}/{count} of {cases} starts where the previous ended");
                    assert!(first <= last);
                    covered.insert(first, last);
                    end = last;
                }
                assert_eq!(end, cases);
                assert_eq!(covered.count(), cases);
            }
        }
        assert_eq!(Shard { index: 1, count: 4 }.slice(10), [2, 5]);
        assert_eq!(Shard { index: 3, count: 4 }.slice(10), [7, 10]);
        assert_eq!(Shard { index: 1, count: 4 }.outside(10), Ranges::from_slice(&[[0, 2], [5, 10]]));
        assert_eq!(Shard::WHOLE.outside(10), Ranges::new());
    }

    #[test]
    fn parses_k_of_n_and_refuses_the_rest() {
        assert_eq!("2/4".parse(), Ok(Shard { index: 2, count: 4 }));
        assert_eq!("0/1".parse(), Ok(Shard::WHOLE));
        assert_eq!(Shard { index: 2, count: 4 }.to_string(), "2/4");
        for bad in ["4/4", "1/0", "-1/4", "1", "a/4", "1/4/5", ""] {
            let e = bad.parse::<Shard>().unwrap_err();
            assert!(e.contains("expected K/N"), "{bad}: {e}");
        }
    }
}
