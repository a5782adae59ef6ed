//! Bound coverage of the X25519 field kernels ([`crate::x25519_fe`]): the steps, with the intervals their proofs allow.

use crate::corner_search;
use crate::coverage::Step;
use crate::x25519_fe::{A24_PLUS_ONE, ADD_FOLD, FOLD, MUL_REDUCE, MUL121666_FOLD, SQR_REDUCE, STEP_PRODUCT_CARRIED};
use crate::x25519_fe::{STEP_SUB_BORROW, STEP_SUB_SECOND_BORROW};

const F: i64 = FOLD as i64;

/// The multiplication: each product step's t[i + j] + c when it carries (minus 2^32: [0, 2^32 - 2], 0 the sum
/// whose 32-bit wrap is 0); the reduction's carry c and the wrapped value of the second fold.
///
/// c: t[0..8] + 38 t[8..16] < 39 2^256, so c <= 38. The second fold's wrapped value is below 38 c <= 38 * 38;
/// a carry of 38 needs t[8..16] within 38 of 2^256 - 2, where the product ((2^256 - 1)^2 at most) leaves
/// t[0..8] too small for a second fold: the search (`corner_search::x25519_fold_corners`) reaches 38 * 37 - 1.
pub fn mul() -> Vec<Step> {
    vec![
        Step::range(STEP_PRODUCT_CARRIED, 0, (1 << 32) - 2),
        Step::range(MUL_REDUCE.carry, 0, F),
        Step::range(MUL_REDUCE.second_fold, 0, F * F - 1).reachable(
            0,
            F * (F - 1) - 1,
            "a carry of 38 leaves r too far below 2^256 for a second fold; the largest a search near 2^256 finds",
        ),
    ]
}

/// The squaring's reduction, as the multiplication's: c <= 38 (reached by a = 2^256 - 76, whose square's
/// halves make t[0..8] + 38 t[8..16] = 38 2^256 exactly), the second fold's value below 38 * 38. The squares
/// (2^256 - m)^2 fold twice with the value m^2 - 76 m + 1406 for m <= 31 or 45 <= m <= 75, so from 11 to 1331;
/// no proof excludes the rest of [0, 38 * 38 - 1].
pub fn sqr() -> Vec<Step> {
    let (lo, hi) = corner_search::x25519_sqr_fold_ends();
    vec![
        Step::range(SQR_REDUCE.carry, 0, F),
        Step::range(SQR_REDUCE.second_fold, 0, F * F - 1).reachable(
            lo,
            hi,
            "the ends a search over the squares of 2^256 - m finds (a square's halves are not independent)",
        ),
    ]
}

/// The addition: the carry out of a + b is 0 or 1; r + 38 passes 2^256 for r = a + b - 2^256 in
/// [2^256 - 38, 2^256 - 2] (a + b < 2^257 - 1), so the second fold's value is in [0, 36].
pub fn add() -> Vec<Step> {
    vec![
        Step::range(ADD_FOLD.carry, 0, 1),
        Step::range(ADD_FOLD.second_fold, 0, F - 1).reachable(0, F - 2, "a + b is at most 2^257 - 2"),
    ]
}

/// The subtraction: the borrow out of a - b is 0 or 1; the second borrow comes when r = a - b + 2^256 is below
/// 38, and r >= 1 (a - b > -2^256).
pub fn sub() -> Vec<Step> {
    vec![
        Step::range(STEP_SUB_BORROW, 0, 1),
        Step::range(STEP_SUB_SECOND_BORROW, 0, F - 1).reachable(1, F - 1, "a - b is above -2^256"),
    ]
}

/// The multiplication by k = 121666: the carry c = floor(a k / 2^256) <= k - 1; the second fold's value is
/// below 38 c. Exhaustive over c (`corner_search::x25519_mul121666_fold_ends`): for each c the largest a with
/// that carry gives the largest value, and some c reaches 0.
pub fn mul121666() -> Vec<Step> {
    let k = i64::from(A24_PLUS_ONE);
    let (_, hi) = corner_search::x25519_mul121666_fold_ends();
    vec![
        Step::range(MUL121666_FOLD.carry, 0, k - 1),
        Step::range(MUL121666_FOLD.second_fold, 0, F * (k - 1) - 1).reachable(
            0,
            hi.0,
            "exhaustive over the carry c: the largest a with carry c leaves the largest value",
        ),
    ]
}
