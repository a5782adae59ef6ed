//! Bound coverage: which extremes the models' reduction, rounding and truncation steps actually reach.
//!
//! A model calls [`observe`] (integers) or [`observe_fp`] (binary64 values before a floor, trunc or round) at each
//! step, under a stable name (`mlkem.ntt.fwd.mve/layer3.mulmod`). Nothing is recorded unless the calling thread is
//! inside [`record`]: outside it an observation is one thread-local load and a branch, and the lanes of a vector are
//! not even extracted ([`observe_s16`], [`observe_s32`]). A contract declares its steps ([`Step`]) with the interval
//! its bounds proof allows; the test bench compares what a campaign reached with it.

use std::cell::{Cell, RefCell};

/// The names of a step at the given layers, `<prefix>/layer<L>.<step>`, as static strings (the models' per-layer
/// step tables).
macro_rules! step_names {
    ($prefix:literal, $step:literal, [$($layer:literal),*]) => {
        [$(concat!($prefix, "/layer", $layer, ".", $step)),*]
    };
}
pub(crate) use step_names;

use crate::mve::Q;

/// What the bounds proof says of a step.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Proven {
    /// An integer step: its input lies in `lo..=hi`. The corners are `lo` and `hi`.
    Range { lo: i64, hi: i64 },
    /// A binary64 value before a rounding step: the corner is the boundary itself (distance 0 ulps).
    Boundary(Boundary),
}

/// The boundaries a binary64 value is measured against, in ulps of the value ([`ulps_to_boundary`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Boundary {
    /// An integer: the boundary of floor, trunc and the conversion to an integer.
    Integer,
    /// A half-integer: the tie of round-to-nearest.
    Tie,
    /// A power of two (in magnitude): a binade edge, where the exponent changes.
    Binade,
}

impl Boundary {
    pub const fn name(self) -> &'static str {
        match self {
            Boundary::Integer => "an integer",
            Boundary::Tie => "a tie",
            Boundary::Binade => "a binade edge",
        }
    }
}

/// The part of a proven interval that valid inputs can reach, when it is smaller than the proof's.
#[derive(Debug, Clone, PartialEq)]
pub struct Reach {
    /// The reachable extremes (integer steps): the proof's bound is loose beyond them.
    pub lo: i64,
    pub hi: i64,
    /// Why the proof's ends cannot be reached, and how `lo..=hi` is known to be exact (proved or exhaustive).
    pub reason: String,
}

/// One step of a model: its name (as passed to [`observe`]) and what the proof allows.
#[derive(Debug, Clone, PartialEq)]
pub struct Step {
    pub name: &'static str,
    pub proven: Proven,
    /// `Some` when an end of the proven interval is out of reach from inputs inside the contract.
    pub reach: Option<Reach>,
    /// Why an end may stay short of the proven one though no proof says it is out of reach (the table shows it).
    pub note: Option<String>,
}

impl Step {
    /// An integer step proven to lie in `lo..=hi`, both ends reachable.
    pub const fn range(name: &'static str, lo: i64, hi: i64) -> Step {
        Step { name, proven: Proven::Range { lo, hi }, reach: None, note: None }
    }

    /// An integer step proven to lie in `-max..=max`.
    pub const fn magnitude(name: &'static str, max: i64) -> Step {
        Step::range(name, -max, max)
    }

    /// A binary64 value before a rounding step, measured against `boundary`.
    pub const fn fp(name: &'static str, boundary: Boundary) -> Step {
        Step { name, proven: Proven::Boundary(boundary), reach: None, note: None }
    }

    /// The same step, whose inputs inside the contract only reach `lo..=hi`, for `reason`.
    pub fn reachable(self, lo: i64, hi: i64, reason: impl Into<String>) -> Step {
        Step { reach: Some(Reach { lo, hi, reason: reason.into() }), ..self }
    }

    /// The same step with a note on why its ends may stay short (the target stays the proven interval).
    pub fn note(self, note: impl Into<String>) -> Step {
        Step { note: Some(note.into()), ..self }
    }

    /// The ends a campaign should reach: the reachable ones when declared, else the proven ones (integer steps).
    pub fn target(&self) -> Option<(i64, i64)> {
        match (&self.reach, self.proven) {
            (Some(r), _) => Some((r.lo, r.hi)),
            (None, Proven::Range { lo, hi }) => Some((lo, hi)),
            (None, Proven::Boundary(_)) => None,
        }
    }
}

/// What one step reached.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Seen {
    /// Observations (lanes count one each).
    pub count: u64,
    /// Integer steps: the extremes.
    pub min: i64,
    pub max: i64,
    /// Binary64 steps: the closest approach to the boundary, in ulps, and the value that made it.
    pub closest: u64,
    pub closest_at: f64,
}

impl Seen {
    const NONE: Seen = Seen { count: 0, min: i64::MAX, max: i64::MIN, closest: u64::MAX, closest_at: f64::NAN };

    /// `count` values whose extremes are `min` and `max` (one value: `min == max`, `count == 1`).
    #[inline(always)]
    fn int(&mut self, min: i64, max: i64, count: u64) {
        self.count += count;
        self.min = self.min.min(min);
        self.max = self.max.max(max);
    }

    fn fp(&mut self, ulps: u64, at: f64) {
        self.count += 1;
        if ulps < self.closest {
            self.closest = ulps;
            self.closest_at = at;
        }
    }

    fn merge(&mut self, other: &Seen) {
        self.count += other.count;
        self.min = self.min.min(other.min);
        self.max = self.max.max(other.max);
        if other.closest < self.closest {
            self.closest = other.closest;
            self.closest_at = other.closest_at;
        }
    }
}

/// Slots of [`Observations`]'s index: a power of two well above the steps of any one kernel (a few dozen).
const SLOTS: usize = 256;

/// Every step observed on a thread while recording, in first-seen order.
///
/// A step is found by the address of its name, not by comparing names: `slots` maps the address (hashed) to the
/// step's position in `steps`, one probe per observation. A name seen at an address not yet in the index (the first
/// observation of a step, the same name at another address, or a slot taken over by another step) is looked up by
/// its text once and the index updated; the index never changes what is recorded, only how fast.
#[derive(Debug, Clone, Default)]
pub struct Observations {
    steps: Vec<(&'static str, Seen)>,
    /// `(address of the name, its length, position in steps)`; empty until the first observation.
    slots: Vec<(usize, usize, usize)>,
}

impl Observations {
    pub fn get(&self, step: &str) -> Option<&Seen> {
        self.steps.iter().find(|(name, _)| *name == step).map(|(_, seen)| seen)
    }

    pub fn iter(&self) -> impl Iterator<Item = (&'static str, &Seen)> {
        self.steps.iter().map(|(name, seen)| (*name, seen))
    }

    pub fn is_empty(&self) -> bool {
        self.steps.is_empty()
    }

    pub fn merge(&mut self, other: &Observations) {
        for (name, seen) in other.iter() {
            self.entry(name).merge(seen);
        }
    }

    #[inline(always)]
    fn slot(step: &'static str) -> usize {
        let address = step.as_ptr() as usize;
        (address ^ (address >> 8)) % SLOTS
    }

    #[inline(always)]
    fn entry(&mut self, step: &'static str) -> &mut Seen {
        let slot = Self::slot(step);
        match self.slots.get(slot) {
            Some(&(address, len, at)) if address == step.as_ptr() as usize && len == step.len() => {
                &mut self.steps[at].1
            }
            _ => self.entry_by_name(step, slot),
        }
    }

    #[cold]
    #[inline(never)]
    fn entry_by_name(&mut self, step: &'static str, slot: usize) -> &mut Seen {
        let at = match self.steps.iter().position(|(name, _)| *name == step) {
            Some(at) => at,
            None => {
                self.steps.push((step, Seen::NONE));
                self.steps.len() - 1
            }
        };
        if self.slots.is_empty() {
            self.slots = vec![(0, 0, 0); SLOTS];
        }
        self.slots[slot] = (step.as_ptr() as usize, step.len(), at);
        &mut self.steps[at].1
    }
}

thread_local! {
    static ON: Cell<bool> = const { Cell::new(false) };
    static RECORDER: RefCell<Observations> = const { RefCell::new(Observations { steps: Vec::new(), slots: Vec::new() }) };
}

/// Whether this thread is recording.
#[inline(always)]
pub fn enabled() -> bool {
    ON.with(Cell::get)
}

/// Runs `f`, recording every observation it makes on this thread; returns its result and the observations. Nested
/// calls record apart, and the enclosing recording also receives what the inner one saw.
pub fn record<T>(f: impl FnOnce() -> T) -> (T, Observations) {
    let was_on = ON.with(|on| on.replace(true));
    let outer = RECORDER.with(|r| std::mem::take(&mut *r.borrow_mut()));
    let result = f();
    let inner = RECORDER.with(|r| std::mem::replace(&mut *r.borrow_mut(), outer));
    ON.with(|on| on.set(was_on));
    if was_on {
        RECORDER.with(|r| r.borrow_mut().merge(&inner));
    }
    (result, inner)
}

#[inline(never)]
fn record_int(step: &'static str, min: i64, max: i64, count: u64) {
    RECORDER.with(|r| r.borrow_mut().entry(step).int(min, max, count));
}

/// An integer step's input (or any value whose extremes the proof bounds).
#[inline(always)]
pub fn observe(step: &'static str, value: i64) {
    if enabled() {
        record_int(step, value, value, 1);
    }
}

/// `count` values of an integer step at once, given their extremes: what [`observe`] on each would record. For a
/// model that takes the extremes of a vector or a layer itself (empty when `count` is 0: nothing is recorded).
#[inline(always)]
pub fn observe_extremes(step: &'static str, min: i64, max: i64, count: u64) {
    if enabled() && count > 0 {
        record_int(step, min, max, count);
    }
}

/// Every 16-bit lane of a vector (their extremes taken at once).
#[inline(always)]
pub fn observe_s16(step: &'static str, v: Q) {
    if enabled() {
        let mut e = LaneExtremes::NONE;
        e.s16(v);
        e.record(step);
    }
}

/// Every 32-bit lane of a vector (their extremes taken at once).
#[inline(always)]
pub fn observe_s32(step: &'static str, v: Q) {
    if enabled() {
        let mut e = LaneExtremes::NONE;
        e.s32(v);
        e.record(step);
    }
}

/// What a model gathers of one integer step: the extremes and the number of values, exactly what [`observe`] on
/// each value would have recorded ([`Extremes::record`] records them at once).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Extremes {
    pub min: i64,
    pub max: i64,
    pub count: u64,
}

impl Extremes {
    pub const NONE: Extremes = Extremes { min: i64::MAX, max: i64::MIN, count: 0 };

    /// Records what was gathered under `step` (nothing when nothing was, or when this thread is not recording).
    #[inline(always)]
    pub fn record(&self, step: &'static str) {
        observe_extremes(step, self.min, self.max, self.count);
    }
}

/// What a model gathers of one integer step over a call, kept lane by lane: the running least and greatest of each
/// of eight 32-bit lanes. Observing a vector (its 16-bit lanes, their sums or products, or its 32-bit lanes) is then
/// a widening and two lane-wise comparisons, a few host vector instructions, with no reduction across the lanes
/// and no look-up until the end ([`LaneExtremes::record`]). A model that observes thousands of values per call keeps
/// one per step and layer in a local. What it records is exactly what [`observe`] on each value would have.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct LaneExtremes {
    min: [i32; 8],
    max: [i32; 8],
    count: u64,
}

impl LaneExtremes {
    pub const NONE: LaneExtremes = LaneExtremes { min: [i32::MAX; 8], max: [i32::MIN; 8], count: 0 };

    #[inline(always)]
    fn lanes<const L: usize>(&mut self, values: [i32; L]) {
        for ((lo, hi), v) in self.min.iter_mut().zip(&mut self.max).zip(values) {
            *lo = (*lo).min(v);
            *hi = (*hi).max(v);
        }
        self.count += L as u64;
    }

    /// One value (a scalar model's).
    #[inline(always)]
    pub fn one(&mut self, value: i32) {
        self.lanes([value]);
    }

    /// Every 16-bit lane of a vector.
    #[inline(always)]
    pub fn s16(&mut self, v: Q) {
        let lanes = v.i16();
        self.lanes::<8>(core::array::from_fn(|i| lanes[i].into()));
    }

    /// Every 32-bit lane of a vector.
    #[inline(always)]
    pub fn s32(&mut self, v: Q) {
        self.lanes(v.i32());
    }

    /// The lane-wise sums `a + b` (`sub`: differences `a - b`) of two vectors of 16-bit lanes, as integers: exact
    /// in 32 bits, so a lane that a 16-bit addition would wrap shows past the bound, not wrapped back inside it.
    #[inline(always)]
    pub fn s16_sum(&mut self, a: Q, b: Q, sub: bool) {
        let (a, b) = (a.i16(), b.i16());
        self.lanes::<8>(core::array::from_fn(|i| {
            if sub { i32::from(a[i]) - i32::from(b[i]) } else { i32::from(a[i]) + i32::from(b[i]) }
        }));
    }

    /// The lane-wise products of two vectors of 16-bit lanes (exact in 32 bits).
    #[inline(always)]
    pub fn s16_product(&mut self, a: Q, b: Q) {
        let (a, b) = (a.i16(), b.i16());
        self.lanes::<8>(core::array::from_fn(|i| i32::from(a[i]) * i32::from(b[i])));
    }

    /// The extremes across the lanes.
    pub fn extremes(&self) -> Extremes {
        match (self.min.iter().min(), self.max.iter().max()) {
            (Some(&min), Some(&max)) if self.count > 0 => {
                Extremes { min: min.into(), max: max.into(), count: self.count }
            }
            _ => Extremes::NONE,
        }
    }

    /// Records what was gathered under `step` (nothing when nothing was, or when this thread is not recording).
    pub fn record(&self, step: &'static str) {
        self.extremes().record(step);
    }
}

/// A binary64 value before a rounding step, measured against `boundary`.
#[inline(always)]
pub fn observe_fp(step: &'static str, boundary: Boundary, x: f64) {
    if enabled() {
        observe_ulps(step, ulps_to_boundary(boundary, x), x);
    }
}

/// A distance to a rounding boundary computed by the model itself (in ulps), with the value that made it.
#[inline(always)]
pub fn observe_ulps(step: &'static str, ulps: u64, at: f64) {
    if enabled() {
        record_ulps(step, ulps, at);
    }
}

#[inline(never)]
fn record_ulps(step: &'static str, ulps: u64, at: f64) {
    RECORDER.with(|r| r.borrow_mut().entry(step).fp(ulps, at));
}

/// The number of binary64 values strictly between a and b plus one (0 when equal); both finite.
pub fn ulps_between(a: f64, b: f64) -> u64 {
    // The bit patterns, mapped to a line on which adjacent doubles are adjacent integers (-0 and +0 meet).
    let line = |x: f64| {
        let bits = x.to_bits() as i64;
        if bits < 0 { i64::MIN - bits } else { bits }
    };
    line(a).abs_diff(line(b))
}

/// How many ulps `x` lies from the nearest `boundary`; `u64::MAX` for a non-finite `x`, or for a tie when `x` is
/// too large to have a fractional part.
pub fn ulps_to_boundary(boundary: Boundary, x: f64) -> u64 {
    if !x.is_finite() {
        return u64::MAX;
    }
    // Every double of magnitude 2^52 or more is an integer: there are no ties there, and no fractions.
    const INTEGRAL: f64 = 4503599627370496.0;
    match boundary {
        Boundary::Integer => {
            let (down, up) = (x.floor(), x.ceil());
            ulps_between(x, down).min(ulps_between(x, up))
        }
        Boundary::Tie if x.abs() >= INTEGRAL => u64::MAX,
        Boundary::Tie => {
            let below = (x - 0.5).floor() + 0.5;
            ulps_between(x, below).min(ulps_between(x, below + 1.0))
        }
        Boundary::Binade if x == 0.0 => u64::MAX,
        Boundary::Binade => {
            let m = x.abs();
            let edge = f64::from_bits(m.to_bits() & 0x7FF0_0000_0000_0000);
            let next = edge * 2.0;
            let to_next = if next.is_finite() { ulps_between(m, next) } else { u64::MAX };
            ulps_between(m, edge).min(to_next)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn nothing_is_recorded_outside_record() {
        observe("outside", 5);
        let ((), seen) = record(|| {
            observe("a", 3);
            observe("a", -7);
            observe_s16("b", Q::from_i16([1, 2, 3, 4, 5, 6, 7, -8]));
        });
        assert!(seen.get("outside").is_none());
        let a = seen.get("a").unwrap();
        assert_eq!((a.count, a.min, a.max), (2, -7, 3));
        let b = seen.get("b").unwrap();
        assert_eq!((b.count, b.min, b.max), (8, -8, 7));
        let ((), again) = record(|| ());
        assert!(again.is_empty());
    }

    #[test]
    fn lane_extremes_record_what_observing_each_value_records() {
        // Lanes at the ends of 16 bits, so that sums, differences and products leave the 16-bit range.
        let a = Q::from_i16([i16::MAX, i16::MIN, -1, 0, 1, 12289, -3329, i16::MAX]);
        let b = Q::from_i16([i16::MAX, i16::MAX, i16::MIN, 7, -9, 2, i16::MIN, 1]);
        let (a16, b16, a32) = (a.i16(), b.i16(), a.i32());
        let ((), each) = record(|| {
            for i in 0..8 {
                let (x, y) = (i64::from(a16[i]), i64::from(b16[i]));
                observe("s16", x);
                observe("sum", x + y);
                observe("sum", x - y);
                observe("product", x * y);
            }
            a32.iter().for_each(|&x| observe("s32", x.into()));
            observe("one", -5);
        });
        let ((), gathered) = record(|| {
            let mut e = [LaneExtremes::NONE; 5];
            e[0].s16(a);
            e[1].s16_sum(a, b, false);
            e[1].s16_sum(a, b, true);
            e[2].s16_product(a, b);
            e[3].s32(a);
            e[4].one(-5);
            LaneExtremes::NONE.record("never");
            for (e, step) in e.iter().zip(["s16", "sum", "product", "s32", "one"]) {
                e.record(step);
            }
        });
        let int = |seen: &Observations, step| seen.get(step).map(|s| (s.count, s.min, s.max));
        for step in ["s16", "sum", "product", "s32", "one"] {
            assert_eq!(int(&gathered, step), int(&each, step), "{step}");
        }
        assert_eq!(gathered.get("sum").map(|s| (s.min, s.max)), Some((-65535, 65534)));
        assert!(gathered.get("never").is_none(), "nothing gathered, nothing recorded");
    }

    #[test]
    fn nested_recordings_reach_the_outer_one() {
        let ((_, inner), outer) = record(|| {
            observe("x", 1);
            record(|| observe("x", 9))
        });
        assert_eq!(inner.get("x").unwrap().max, 9);
        let x = outer.get("x").unwrap();
        assert_eq!((x.count, x.min, x.max), (2, 1, 9));
    }

    #[test]
    fn distances_to_boundaries_in_ulps() {
        let below_one = f64::from_bits(1f64.to_bits() - 1);
        assert_eq!(ulps_to_boundary(Boundary::Integer, 3.0), 0);
        assert_eq!(ulps_to_boundary(Boundary::Integer, below_one), 1);
        assert_eq!(ulps_to_boundary(Boundary::Integer, -below_one), 1);
        assert_eq!(ulps_to_boundary(Boundary::Tie, 2.5), 0);
        assert_eq!(ulps_to_boundary(Boundary::Tie, -2.5), 0);
        assert_eq!(ulps_to_boundary(Boundary::Tie, f64::from_bits(2.5f64.to_bits() + 3)), 3);
        assert_eq!(ulps_to_boundary(Boundary::Binade, 4.0), 0);
        assert_eq!(ulps_to_boundary(Boundary::Binade, f64::from_bits(4f64.to_bits() - 2)), 2);
        // 2^53 - 1 ulp of 2^52's binade: 1 ulp below the next edge.
        assert_eq!(ulps_to_boundary(Boundary::Binade, 9007199254740991.0), 1);
        assert_eq!(ulps_between(-0.0, 0.0), 0);
        assert_eq!(ulps_between(-f64::from_bits(1), f64::from_bits(1)), 2);
    }
}
