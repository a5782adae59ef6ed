//! The FN-DSA Bernoulli exponent's corner cases, searched on the reference (the sampler's FP64 kernels are checked
//! two ways, so their order of operations is the reference's): x(r) = (z - r)^2 dss - z0^2 c is solved for
//! x = k ln 2 in closed form, then the centre r is stepped ulp by ulp around the root, keeping the values where
//! x / ln 2 (as the kernel computes it, x * (1/ln 2) rounded) is an integer or one ulp from one.

use pqhelium_core::fndsa::fpu::{FpuKernels, INV_2SQRSIGMA0, INV_LOG2, LOG2, Reference};

/// How close x * (1/ln 2), the Bernoulli exponent's quotient as the kernel rounds it, comes to an integer: 0 at
/// an integer, -1 one ulp below, +1 one ulp above, None beyond one ulp.
pub fn ulps_from_integer(q: f64) -> Option<i32> {
    let k = q.round();
    if q == k {
        return Some(0);
    }
    let next = |v: f64, up: bool| {
        let bits = v.to_bits() as i64;
        let away = (v > 0.0) == up;
        f64::from_bits((if away { bits + 1 } else { bits - 1 }) as u64)
    };
    if next(q, true) == k {
        Some(-1)
    } else if next(q, false) == k {
        Some(1)
    } else {
        None
    }
}

/// The Bernoulli exponent's quotient x / ln 2 (as x * INV_LOG2) for the centre mu (in [0, 1): r = mu) and candidate.
pub fn exponent_quotient(mu: f64, isigma: f64, sigma_min: f64, z: i32, z0: i32) -> f64 {
    let c = Reference.sampler_centre(mu, isigma, sigma_min);
    let d = f64::from(z) - c.r;
    let x = d * d * c.dss - f64::from(z0 * z0) * INV_2SQRSIGMA0;
    x * INV_LOG2
}

/// Candidates (mu, isigma, z, z0) of the Bernoulli exponent, each with x / ln 2 at an integer or one ulp beside one
/// (both signs of x), for z0 in 0..=18 (the base sampler's likely values), both bits b (z = b + (2b - 1) z0) and
/// three widths; with `sigma_min` the contract's. For each, the root r of x(r) = k ln 2 nearest the middle of
/// [0, 1) is refined ulp by ulp; every distance 0, -1, +1 found is kept once.
pub fn sampler_exponent_corners(sigma_min: f64) -> Vec<(f64, f64, i32, i32)> {
    let mut out = Vec::new();
    for isigma in [0.55, std::f64::consts::FRAC_1_SQRT_2, 0.79] {
        let dss = isigma * isigma * 0.5;
        for z0 in 0..=18i32 {
            for b in 0..=1i32 {
                let z = b + (2 * b - 1) * z0;
                let x_at = |r: f64| (f64::from(z) - r).powi(2) * dss - f64::from(z0 * z0) * INV_2SQRSIGMA0;
                let (x0, x1) = (x_at(0.0), x_at(1.0));
                let (lo, hi) = (x0.min(x1), x0.max(x1));
                let k = ((lo + hi) / 2.0 / LOG2).round();
                // k = 0 has no ulp-sized neighbourhood worth the name (x = 0 exactly).
                let Some(k) = [k, k + 1.0, k - 1.0].into_iter().find(|&k| k != 0.0 && (lo..=hi).contains(&(k * LOG2)))
                else {
                    continue;
                };
                // (z - r)^2 = (k ln 2 + z0^2 c) / dss; r = z -/+ sqrt(.), whichever lies in [0, 1).
                let root = ((k * LOG2 + f64::from(z0 * z0) * INV_2SQRSIGMA0) / dss).sqrt();
                let Some(r0) = [f64::from(z) - root, f64::from(z) + root].into_iter().find(|r| (0.0..1.0).contains(r))
                else {
                    continue;
                };
                let mut found = [false; 3];
                for step in -(1i64 << 16)..(1i64 << 16) {
                    let mu = f64::from_bits((r0.to_bits() as i64 + step) as u64);
                    if !(0.0..1.0).contains(&mu) {
                        continue;
                    }
                    if let Some(d) = ulps_from_integer(exponent_quotient(mu, isigma, sigma_min, z, z0)) {
                        let slot = (d + 1) as usize;
                        if !found[slot] {
                            found[slot] = true;
                            out.push((mu, isigma, z, z0));
                        }
                    }
                    if found == [true; 3] {
                        break;
                    }
                }
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn exponent_corners_sit_at_or_beside_integers() {
        let sigma_min = pqhelium_core::fndsa::sampler::SIGMA_MIN[9];
        let corners = sampler_exponent_corners(sigma_min);
        assert!(corners.len() >= 50, "{} corners", corners.len());
        let mut kinds = [0usize; 3];
        for &(mu, isigma, z, z0) in &corners {
            let d = ulps_from_integer(exponent_quotient(mu, isigma, sigma_min, z, z0)).expect("within an ulp");
            kinds[(d + 1) as usize] += 1;
        }
        assert!(kinds.iter().all(|&k| k > 10), "{kinds:?}");
    }
}
