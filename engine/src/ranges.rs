//! Sets of case indices as sorted, disjoint, half-open ranges: what a campaign ran, what a resumed one still owes.

use serde::{Deserialize, Serialize};

#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(try_from = "Vec<[u64; 2]>", into = "Vec<[u64; 2]>")]
pub struct Ranges(Vec<[u64; 2]>);

/// Why ranges read from a report are refused: they must be as [`Ranges::insert`] keeps them.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum RangesError {
    #[error("case range [{start}, {end}] is empty or reversed")]
    Empty { start: u64, end: u64 },
    #[error("case ranges {first:?} and {second:?} are out of order, overlap or touch")]
    NotApart { first: [u64; 2], second: [u64; 2] },
}

impl TryFrom<Vec<[u64; 2]>> for Ranges {
    type Error = RangesError;

    fn try_from(ranges: Vec<[u64; 2]>) -> Result<Self, RangesError> {
        if let Some(&[start, end]) = ranges.iter().find(|[start, end]| start >= end) {
            return Err(RangesError::Empty { start, end });
        }
        if let Some(pair) = ranges.windows(2).find(|pair| pair[0][1] >= pair[1][0]) {
            return Err(RangesError::NotApart { first: pair[0], second: pair[1] });
        }
        Ok(Self(ranges))
    }
}

impl From<Ranges> for Vec<[u64; 2]> {
    fn from(ranges: Ranges) -> Self {
        ranges.0
    }
}

impl Ranges {
    pub fn new() -> Self {
        Self::default()
    }

    pub fn from_slice(ranges: &[[u64; 2]]) -> Self {
        let mut r = Self::new();
        for &[a, b] in ranges {
            r.insert(a, b);
        }
        r
    }

    /// Adds `[start, end)`, merging with neighbours.
    pub fn insert(&mut self, start: u64, end: u64) {
        if start >= end {
            return;
        }
        let (mut start, mut end) = (start, end);
        let mut kept = Vec::with_capacity(self.0.len() + 1);
        for &[a, b] in &self.0 {
            if b < start || a > end {
                kept.push([a, b]);
            } else {
                start = start.min(a);
                end = end.max(b);
            }
        }
        let at = kept.partition_point(|r| r[0] < start);
        kept.insert(at, [start, end]);
        self.0 = kept;
    }

    pub fn extend(&mut self, other: &Ranges) {
        for &[a, b] in &other.0 {
            self.insert(a, b);
        }
    }

    pub fn contains(&self, i: u64) -> bool {
        let at = self.0.partition_point(|r| r[1] <= i);
        self.0.get(at).is_some_and(|r| r[0] <= i)
    }

    /// Number of indices covered.
    pub fn count(&self) -> u64 {
        self.0.iter().map(|[a, b]| b - a).sum()
    }

    /// Whether any index is covered twice by `self` and `other`.
    pub fn overlaps(&self, other: &Ranges) -> bool {
        other.0.iter().any(|&[a, b]| self.0.iter().any(|&[c, d]| a < d && c < b))
    }

    /// The parts of `[0, limit)` not covered, in order.
    pub fn holes(&self, limit: u64) -> Vec<[u64; 2]> {
        let mut holes = Vec::new();
        let mut at = 0;
        for &[a, b] in &self.0 {
            if a >= limit {
                break;
            }
            if a > at {
                holes.push([at, a]);
            }
            at = at.max(b);
        }
        if at < limit {
            holes.push([at, limit]);
        }
        holes
    }

    pub fn as_slice(&self) -> &[[u64; 2]] {
        &self.0
    }
}

impl std::fmt::Display for Ranges {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let parts: Vec<String> = self.0.iter().map(|[a, b]| format!("{a}..{b}")).collect();
        if parts.is_empty() { f.write_str("none") } else { f.write_str(&parts.join(", ")) }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn insert_merges_and_orders() {
        let mut r = Ranges::new();
        r.insert(10, 20);
        r.insert(0, 5);
        r.insert(5, 10);
        r.insert(30, 40);
        assert_eq!(r.as_slice(), &[[0, 20], [30, 40]]);
        assert_eq!(r.count(), 30);
        assert!(r.contains(0) && r.contains(19) && !r.contains(20) && r.contains(35) && !r.contains(40));
        assert_eq!(r.holes(50), vec![[20, 30], [40, 50]]);
        assert_eq!(r.holes(15), Vec::<[u64; 2]>::new());
        assert!(r.overlaps(&Ranges::from_slice(&[[19, 21]])));
        assert!(!r.overlaps(&Ranges::from_slice(&[[20, 30]])));
        assert_eq!(r.to_string(), "0..20, 30..40");
    }

    #[test]
    fn only_ranges_as_insert_keeps_them_are_read() {
        let read = |json: &str| serde_json::from_str::<Ranges>(json).map_err(|e| e.to_string());
        assert_eq!(read("[[0,5],[6,9]]"), Ok(Ranges::from_slice(&[[0, 5], [6, 9]])));
        assert_eq!(serde_json::to_string(&Ranges::from_slice(&[[0, 5], [6, 9]])).unwrap(), "[[0,5],[6,9]]");
        assert_eq!(read("[[5,3]]"), Err("case range [5, 3] is empty or reversed".into()));
        assert_eq!(read("[[4,4]]"), Err("case range [4, 4] is empty or reversed".into()));
        let not_apart = |a: &str, b: &str| Err(format!("case ranges {a} and {b} are out of order, overlap or touch"));
        assert_eq!(read("[[6,9],[0,5]]"), not_apart("[6, 9]", "[0, 5]"));
        assert_eq!(read("[[0,5],[4,9]]"), not_apart("[0, 5]", "[4, 9]"));
        assert_eq!(read("[[0,5],[5,9]]"), not_apart("[0, 5]", "[5, 9]"));
    }
}
