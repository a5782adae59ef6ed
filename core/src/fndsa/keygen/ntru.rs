//! The NTRU solver of FN-DSA v0.4: given small f and g, find F and G with f*G - g*F = q mod X^n+1.
//!
//! Tower of fields: (f, g) are mapped down by the field norm N(f)(X^2) = f(X)*f(-X) to degree 1, where a Bezout
//! relation on the two resultants gives (F, G); each level up lifts F(X) <- F'(X^2)*g(-X) and reduces it against f
//! with a fixed-point estimate of round(F/f) (Babai-style). Only F is carried: G follows from the equation. At the
//! top level, a precise reduction uses G = (q + g*F)/f modulo one prime. All sizes, word windows and iteration
//! counts are those of the v0.4 reference, since a different schedule gives different keys.

use super::fxp::{self, FxpKernels};
use super::mp31::{self, SmallPrime};
use super::zint;

const Q: u32 = 12289;

/// Words per coefficient of (f, g) at depth d (also of the output F at that depth).
const SMALL_LEN: [usize; 11] = [1, 1, 2, 3, 4, 8, 14, 27, 53, 104, 207];
/// Words per coefficient of the unreduced F at depth d.
const LARGE_LEN: [usize; 10] = [1, 2, 3, 6, 11, 21, 40, 78, 155, 308];
/// Top words of f used for the fixed-point estimate, by depth.
const WORD_WIN: [usize; 10] = [1, 1, 2, 2, 2, 3, 3, 4, 5, 7];
/// Bits the reduction is assumed to gain per round, by top-level logn.
const REDUCE_BITS: [u32; 11] = [10, 10, 10, 10, 10, 10, 10, 10, 10, 9, 8];
/// Below this degree the subtraction of k*f is done on big integers directly instead of through the NTT.
const MIN_LOGN_NTT_SUB: u32 = 4;

/// (f, g) orthogonalized-norm check: || q * adj(f,g) / (f*adj(f) + g*adj(g)) ||^2 below (0.999*1.17*sqrt(q))^2.
pub fn check_ortho_norm<X: FxpKernels>(fxp: &mut X, logn: u32, f: &[i8], g: &[i8]) -> bool {
    let n = 1usize << logn;
    let mut fx: Vec<u64> = f.iter().map(|&v| fxp::from_i32(v.into())).collect();
    let mut gx: Vec<u64> = g.iter().map(|&v| fxp::from_i32(v.into())).collect();
    fxp.fft(logn, &mut fx);
    fxp.fft(logn, &mut gx);
    let mut inv = vec![0u64; n / 2];
    fxp.invnorm(logn, &mut inv, &fx, &gx, 0);
    for v in [&mut fx, &mut gx] {
        fxp::adj_fft(logn, v);
        fxp::mul_realconst(logn, v, fxp::from_i32(Q as i32));
        fxp::mul_selfadj_fft(logn, v, &inv);
        fxp.ifft(logn, v);
    }
    let sn = fx.iter().zip(&gx).fold(0u64, |acc, (&a, &b)| acc.wrapping_add(fxp::sqr(a)).wrapping_add(fxp::sqr(b)));
    (sn as i64) < 72107278641426
}

/// Solve the NTRU equation; None when this (f, g) must be rejected.
pub fn solve<X: FxpKernels>(fxp: &mut X, logn: u32, f: &[i8], g: &[i8]) -> Option<(Vec<i8>, Vec<i8>)> {
    let n = 1usize << logn;
    let levels = field_norm_tower(logn, f, g);
    let mut big_f = solve_deepest(logn, &levels[logn as usize])?;
    for depth in (1..logn).rev() {
        big_f = lift_and_reduce(fxp, logn, f, depth, &big_f, &levels[depth as usize])?;
    }
    let (ff, gg) = solve_top(fxp, logn, f, g, &big_f)?;
    let small = |v: &[i32]| -> Option<Vec<i8>> {
        v.iter().map(|&x| if (-127..=127).contains(&x) { Some(x as i8) } else { None }).collect()
    };
    let out = (small(&ff)?, small(&gg)?);
    debug_assert_eq!(out.0.len(), n);
    Some(out)
}

fn prime(i: usize) -> &'static SmallPrime {
    &mp31::primes()[i]
}

/// Residues of small coefficients.
fn set_small(v: &[i8], p: u32) -> Vec<u32> {
    v.iter().map(|&x| mp31::set_signed(x.into(), p)).collect()
}

/// 31-bit two's complement word to i32.
fn sext31(x: u32) -> i32 {
    (x | ((x & 0x4000_0000) << 1)) as i32
}

/// (f, g) at every depth d = 0..=logn, in RNS+NTT form: 2*SMALL_LEN[d]*2^(logn-d) words (f lines, then g lines;
/// line i holds the NTT modulo prime i).
fn field_norm_tower(logn: u32, f: &[i8], g: &[i8]) -> Vec<Vec<u32>> {
    let sp = prime(0);
    let (gm, _) = mp31::twiddles(0);
    let mut top = set_small(f, sp.p);
    top.extend(set_small(g, sp.p));
    let n = 1usize << logn;
    let (ft, gt) = top.split_at_mut(n);
    mp31::ntt(logn, ft, gm, sp);
    mp31::ntt(logn, gt, gm, sp);
    let mut levels = vec![top];
    for depth in 0..logn {
        let next = field_norm_step(logn, depth, levels[depth as usize].clone());
        levels.push(next);
    }
    levels
}

/// One level down: N(f)(X^2) = f(X) f(-X), i.e. products of the NTT slots 2j and 2j+1 (roots w and -w).
fn field_norm_step(logn_top: u32, depth: u32, mut src: Vec<u32>) -> Vec<u32> {
    let logn = logn_top - depth;
    let (n, hn) = (1usize << logn, 1usize << (logn - 1));
    let slen = SMALL_LEN[depth as usize];
    let tlen = SMALL_LEN[depth as usize + 1];
    let mut out = vec![0u32; 2 * tlen * hn];
    let (fd, gd) = out.split_at_mut(tlen * hn);
    let pair_products = |line: &[u32], dst: &mut [u32], sp: &SmallPrime| {
        for j in 0..hn {
            let z = mp31::mmul(line[2 * j], line[2 * j + 1], sp.p, sp.p0i);
            dst[j] = mp31::mmul(z, sp.r2, sp.p, sp.p0i);
        }
    };
    {
        let (fs, gs) = src.split_at_mut(slen * n);
        for i in 0..slen {
            let sp = prime(i);
            pair_products(&fs[i * n..(i + 1) * n], &mut fd[i * hn..(i + 1) * hn], sp);
            pair_products(&gs[i * n..(i + 1) * n], &mut gd[i * hn..(i + 1) * hn], sp);
            // Keep the source modulo p_i in coefficient form for the CRT below.
            let (_, igm) = mp31::twiddles(i);
            mp31::intt(logn, &mut fs[i * n..(i + 1) * n], igm, sp);
            mp31::intt(logn, &mut gs[i * n..(i + 1) * n], igm, sp);
        }
    }
    if tlen > slen {
        // More primes are needed below: rebuild the sources as integers and reduce them modulo the extra primes.
        zint::rebuild_crt(&mut src, slen, n, 2, true);
        let (fs, gs) = src.split_at(slen * n);
        let mut t = vec![0u32; n];
        for i in slen..tlen {
            let sp = prime(i);
            let red = zint::Reducer::new(i, slen);
            let (gm, _) = mp31::twiddles(i);
            for (srcs, dst) in [(fs, &mut *fd), (gs, &mut *gd)] {
                for (j, tj) in t.iter_mut().enumerate() {
                    *tj = red.signed(&srcs[j..], n);
                }
                mp31::ntt(logn, &mut t, gm, sp);
                pair_products(&t, &mut dst[i * hn..(i + 1) * hn], sp);
            }
        }
    }
    out
}

/// Degree 1: Res(f)*G - Res(g)*F = 1 by Bezout, then F *= q. Returns F (SMALL_LEN[logn] words).
fn solve_deepest(logn: u32, fg: &[u32]) -> Option<Vec<u32>> {
    let slen = SMALL_LEN[logn as usize];
    let mut res = fg.to_vec();
    // Resultants are non-negative: no signed normalization.
    zint::rebuild_crt(&mut res, slen, 1, 2, false);
    let (fp, gp) = res.split_at(slen);
    let mut big_f = vec![0u32; slen];
    let mut big_g = vec![0u32; slen];
    if !zint::bezout(&mut big_g, &mut big_f, fp, gp) {
        return None;
    }
    if zint::mul_small(&mut big_f, Q) != 0 {
        return None;
    }
    Some(big_f)
}

/// (x / 31, x % 31) for x below 63488.
fn divrem31(x: u32) -> (u32, u32) {
    (x / 31, x % 31)
}

/// Largest bit length over the coefficients of |x| (one's complement for negatives), xlen words at stride n.
fn max_bitlength(n: usize, x: &[u32], xlen: usize) -> u32 {
    let mut best = 0u32;
    for i in 0..n {
        let m = (x[i + (xlen - 1) * n] >> 30).wrapping_neg() & 0x7FFF_FFFF;
        for j in (0..xlen).rev() {
            let w = x[i + j * n] ^ m;
            if w != 0 {
                best = best.max(31 * j as u32 + (32 - w.leading_zeros()));
                break;
            }
        }
    }
    best
}

/// Fixed-point approximation of x / 2^sc for each coefficient (flen words at stride n): 64 bits of x taken from
/// bit sc-32 upward (floor), words above the top being the sign and words below 0 being zero. For sc = 0 only word 0
/// (sign-extended from bit 30) is taken, as the reference does.
fn big_to_fixed(n: usize, x: &[u32], flen: usize, sc: u32) -> Vec<u64> {
    if flen == 0 {
        return vec![0; n];
    }
    // sc = 31*sch + scl with scl in 1..=31 (sch may become -1).
    let (mut sch, mut scl) = divrem31(sc);
    let (sch, scl) = if scl == 0 {
        sch = sch.wrapping_sub(1);
        scl = 31;
        (sch as i32 as i64, scl)
    } else {
        (sch as i64, scl)
    };
    let mut out = vec![0u64; n];
    for (i, o) in out.iter_mut().enumerate() {
        let ws = (x[i + (flen - 1) * n] >> 30).wrapping_neg() >> 1;
        let word = |idx: i64| -> u32 {
            if idx < 0 {
                0
            } else if idx as usize >= flen {
                ws
            } else {
                x[i + idx as usize * n]
            }
        };
        let (w0, w1, mut w2) = (word(sch - 1), word(sch), word(sch + 1));
        w2 |= (w2 & 0x4000_0000) << 1;
        let lo = (w0 >> (scl - 1)) | (w1 << (32 - scl));
        let hi = (w1 >> scl) | (w2 << (31 - scl));
        *o = u64::from(lo) | (u64::from(hi) << 32);
    }
    out
}

/// From F at depth+1 (SMALL_LEN[depth+1] words, degree n/2, plain) to the reduced F at `depth`.
fn lift_and_reduce<X: FxpKernels>(
    fxp: &mut X,
    logn_top: u32,
    f_top: &[i8],
    depth: u32,
    f_deeper: &[u32],
    fg_level: &[u32],
) -> Option<Vec<u32>> {
    let logn = logn_top - depth;
    let (n, hn) = (1usize << logn, 1usize << (logn - 1));
    let slen = SMALL_LEN[depth as usize];
    let llen = LARGE_LEN[depth as usize];
    let tlen = SMALL_LEN[depth as usize + 1];

    // Unreduced F = F'(X^2) * g(-X), computed modulo llen primes, in line i of big_f.
    let mut big_f = vec![0u32; llen * n];
    let mut fg = fg_level.to_vec();
    for i in 0..llen {
        let sp = prime(i);
        let (p, p0i) = (sp.p, sp.p0i);
        let line = &mut big_f[i * n..(i + 1) * n];
        let red = zint::Reducer::new(i, tlen);
        for j in 0..hn {
            line[hn + j] = red.signed(&f_deeper[j..], hn);
        }
        let (gm, igm) = mp31::twiddles(i);
        let (ft, gt) = fg.split_at_mut(slen * n);
        let gx: Vec<u32> = if i < slen {
            let gx = gt[i * n..(i + 1) * n].to_vec();
            mp31::intt(logn, &mut ft[i * n..(i + 1) * n], igm, sp);
            mp31::intt(logn, &mut gt[i * n..(i + 1) * n], igm, sp);
            gx
        } else {
            let red = zint::Reducer::new(i, slen);
            let mut gx: Vec<u32> = (0..n).map(|j| red.signed(&gt[j..], n)).collect();
            mp31::ntt(logn, &mut gx, gm, sp);
            gx
        };
        // The first half of the degree-n table is the degree-n/2 table.
        mp31::ntt(logn - 1, &mut line[hn..], gm, sp);
        for j in 0..hn {
            let fm = mp31::mmul(line[hn + j], sp.r2, p, p0i);
            let (ga, gb) = (gx[2 * j], gx[2 * j + 1]);
            line[2 * j] = mp31::mmul(gb, fm, p, p0i);
            line[2 * j + 1] = mp31::mmul(ga, fm, p, p0i);
        }
        mp31::intt(logn, line, igm, sp);
        if i + 1 == slen {
            zint::rebuild_crt(&mut fg, slen, n, 2, true);
        }
    }
    zint::rebuild_crt(&mut big_f, llen, n, 1, true);
    let ft = &fg[..slen * n];

    // Reduction F <- F - k*f with k = round(F/f) estimated in fixed point from the top words of both.
    let use_ntt_sub = depth > 1 && logn >= MIN_LOGN_NTT_SUB;
    let rlen = WORD_WIN[depth as usize];
    let blen = slen - rlen;
    let scale_fg = 31 * blen as u32;
    let mut scale_big = 31 * llen as u32;
    let scale_x = max_bitlength(n, &ft[n * blen..], rlen);
    // Keep f*adj(f) below 2^31 in the FFT: scale f down by scale_t more bits, restored by the 2^scale_t numerator.
    let scale_t = (15 - logn).min(scale_x);
    let mut rt3 = big_to_fixed(n, &ft[n * blen..], rlen, scale_x - scale_t);
    fxp.fft(logn, &mut rt3);
    fxp.inv_mul2e(logn, &mut rt3, scale_t);

    let ft_ntt = if use_ntt_sub {
        let mut t = vec![0u32; (slen + 1) * n];
        for i in 0..=slen {
            let sp = prime(i);
            let red = zint::Reducer::new(i, slen);
            let (gm, _) = mp31::twiddles(i);
            let line = &mut t[i * n..(i + 1) * n];
            for (j, v) in line.iter_mut().enumerate() {
                *v = red.signed(&ft[j..], n);
            }
            mp31::ntt(logn, line, gm, sp);
        }
        t
    } else {
        Vec::new()
    };

    let mut big_len = llen;
    let reduce_bits = REDUCE_BITS[logn_top as usize];
    loop {
        let (sch, coff) = divrem31(scale_big);
        let clen = sch as usize;
        let mut rt1 = big_to_fixed(n, &big_f[clen * n..], big_len - clen, scale_x + coff);
        fxp.fft(logn, &mut rt1);
        fxp::mul_fft(logn, &mut rt1, &rt3);
        fxp.ifft(logn, &mut rt1);
        let mut k: Vec<u32> = rt1.iter().map(|&v| fxp::round(v) as u32).collect();
        let scale_k = scale_big - scale_fg;
        if depth == 1 {
            sub_kf_depth1(logn_top, &mut big_f, big_len, &mut k, scale_k, f_top);
        } else if use_ntt_sub {
            sub_kf_ntt(logn, &mut big_f, big_len, &ft_ntt, slen, &k, scale_k);
        } else {
            sub_kf_plain(logn, &mut big_f, big_len, ft, slen, &k, scale_k);
        }
        if scale_big <= scale_fg {
            break;
        }
        scale_big = if scale_big <= scale_fg + reduce_bits { scale_fg } else { scale_big - reduce_bits };
        // Drop top words once they must be pure sign; a word that is not means the reduction failed.
        while big_len > slen && 31 * (big_len - slen) as u32 > scale_big - scale_fg + 30 {
            big_len -= 1;
            let top = (big_len - 1) * n;
            for i in 0..n {
                let sign = (big_f[top + i] >> 30).wrapping_neg() >> 1;
                if big_f[top + i + n] != sign {
                    return None;
                }
            }
        }
    }
    big_f.truncate(slen * n);
    Some(big_f)
}

/// F <- F - 2^sc * k*f mod X^n+1, modulo 2^(31*big_len) per coefficient (two's complement), for small degrees:
/// k*f is accumulated exactly per word (schoolbook, 128-bit accumulators), carried once, then subtracted shifted.
/// Only the low big_len - sc/31 words of k*f matter, so f may be cut to that many words first.
fn sub_kf_plain(logn: u32, big_f: &mut [u32], big_len: usize, f: &[u32], flen: usize, k: &[u32], sc: u32) {
    if flen == 0 {
        return;
    }
    let (sch, scl) = divrem31(sc);
    if sch as usize >= big_len {
        return;
    }
    let n = 1usize << logn;
    let out_len = big_len - sch as usize;
    let flen = flen.min(out_len);
    // Words of f as signed digits, coefficient-major (the top kept word carries the sign).
    let mut digits = vec![0i64; n * flen];
    for c in 0..n {
        for w in 0..flen {
            let x = f[w * n + c];
            digits[c * flen + w] = if w == flen - 1 { i64::from(sext31(x)) } else { i64::from(x) };
        }
    }
    let mut kf = vec![0u32; out_len * n];
    let mut acc = vec![0i128; flen];
    for j in 0..n {
        acc.iter_mut().for_each(|a| *a = 0);
        for (i, &ki) in k.iter().enumerate().take(n) {
            // X^i * f contributes f[j-i] at j, or -f[j-i+n] after wrapping around.
            let (c, kv) = if i <= j { (j - i, i64::from(ki as i32)) } else { (j + n - i, -i64::from(ki as i32)) };
            // |k| < 2^31 and |digit| < 2^31: each product fits in 64 bits; sums of up to 8 need 128.
            for (a, &d) in acc.iter_mut().zip(&digits[c * flen..(c + 1) * flen]) {
                *a += i128::from(kv * d);
            }
        }
        let mut carry: i128 = 0;
        for w in 0..out_len {
            let z = acc.get(w).copied().unwrap_or(0) + carry;
            kf[w * n + j] = z as u32 & 0x7FFF_FFFF;
            carry = z >> 31;
        }
    }
    for j in 0..n {
        zint::sub_scaled(&mut big_f[j..], big_len, &kf[j..], out_len, n, sch, scl);
    }
}

/// F <- F - 2^sc * k*f with k*f computed exactly through the NTT over flen+1 primes (f given in RNS+NTT).
fn sub_kf_ntt(logn: u32, big_f: &mut [u32], big_len: usize, f_ntt: &[u32], flen: usize, k: &[u32], sc: u32) {
    let n = 1usize << logn;
    let tlen = flen + 1;
    let mut kf = vec![0u32; tlen * n];
    for i in 0..tlen {
        let sp = prime(i);
        let (gm, igm) = mp31::twiddles(i);
        let mut t: Vec<u32> = k.iter().map(|&v| mp31::set_signed(v as i32, sp.p)).collect();
        mp31::ntt(logn, &mut t, gm, sp);
        let line = &mut kf[i * n..(i + 1) * n];
        for j in 0..n {
            let z = mp31::mmul(t[j], f_ntt[i * n + j], sp.p, sp.p0i);
            line[j] = mp31::mmul(z, sp.r2, sp.p, sp.p0i);
        }
        mp31::intt(logn, line, igm, sp);
    }
    zint::rebuild_crt(&mut kf, tlen, n, 1, true);
    let (sch, scl) = divrem31(sc);
    for i in 0..n {
        zint::sub_scaled(&mut big_f[i..], big_len, &kf[i..], tlen, n, sch, scl);
    }
}

/// Depth 1: F (1 or 2 words) <- F - 2^sc * k * N(f) modulo one or two primes, N(f) recomputed from the top-level f
/// (N(f) = f_e^2 - X f_o^2 for f = f_e(X^2) + X f_o(X^2)). k is restored between primes exactly as the reference
/// does it (multiplier 2^((-sc) mod 32) * 2^(-32*(sc/32)) with one more Montgomery division).
fn sub_kf_depth1(logn_top: u32, big_f: &mut [u32], big_len: usize, k: &mut [u32], sc: u32, f: &[i8]) {
    let logn = logn_top - 1;
    let (n, hn) = (1usize << logn, 1usize << (logn - 1));
    assert!(big_len == 1 || big_len == 2, "depth-1 F has 1 or 2 words");
    // F to RNS, line i modulo prime i.
    let mut res = vec![0u32; big_len * n];
    for i in 0..big_len {
        let red = zint::Reducer::new(i, big_len);
        for j in 0..n {
            res[i * n + j] = red.signed(&big_f[j..], n);
        }
    }
    big_f[..big_len * n].copy_from_slice(&res);
    for i in 0..big_len {
        let sp = prime(i);
        let (p, p0i) = (sp.p, sp.p0i);
        let r3 = mp31::mmul(sp.r2, sp.r2, p, p0i);
        let (gm, igm) = mp31::twiddles(i);
        // k <- 2^sc * k in NTT form (in place, undone below when another prime follows).
        let mut scv = mp31::mmul(1u32 << (sc & 31), sp.r2, p, p0i);
        for _ in 0..sc >> 5 {
            scv = mp31::mmul(scv, sp.r2, p, p0i);
        }
        for kj in k.iter_mut() {
            *kj = mp31::mmul(scv, mp31::set_signed(*kj as i32, p), p, p0i);
        }
        mp31::ntt(logn, k, gm, sp);
        let line = &mut big_f[i * n..(i + 1) * n];
        mp31::ntt(logn, line, gm, sp);
        let mut fe: Vec<u32> = (0..n).map(|j| mp31::set_signed(f[2 * j].into(), p)).collect();
        let mut fo: Vec<u32> = (0..n).map(|j| mp31::set_signed(f[2 * j + 1].into(), p)).collect();
        mp31::ntt(logn, &mut fe, gm, sp);
        mp31::ntt(logn, &mut fo, gm, sp);
        for j in 0..hn {
            // NTT(X) is gm[hn + j] at slot 2j and its opposite at slot 2j+1.
            let xv = [gm[j + hn], p - gm[j + hn]];
            for (s, &x) in xv.iter().enumerate() {
                let idx = 2 * j + s;
                let e2 = mp31::mmul(fe[idx], fe[idx], p, p0i);
                let o2 = mp31::mmul(fo[idx], fo[idx], p, p0i);
                let nf = mp31::sub(e2, mp31::mmul(o2, x, p, p0i), p);
                let kfv = mp31::mmul(mp31::mmul(nf, k[idx], p, p0i), r3, p, p0i);
                line[idx] = mp31::sub(line[idx], kfv, p);
            }
        }
        mp31::intt(logn, line, igm, sp);
        if i + 1 < big_len {
            mp31::intt(logn, k, igm, sp);
            let mut scv = 1u32 << (sc.wrapping_neg() & 31);
            for _ in 0..sc >> 5 {
                scv = mp31::mmul(scv, 1, p, p0i);
            }
            for kj in k.iter_mut() {
                *kj = mp31::norm(mp31::mmul(scv, *kj, p, p0i), p) as u32;
            }
        }
    }
    zint::rebuild_crt(&mut big_f[..big_len * n], big_len, n, 1, true);
}

/// Depth 0, modulo one prime: lift F, then one precise reduction with
/// k = round((F adj f + G adj g) / (f adj f + g adj g)), G = (q + g F)/f. Returns (F, G) as signed integers.
fn solve_top<X: FxpKernels>(
    fxp: &mut X,
    logn: u32,
    f: &[i8],
    g: &[i8],
    f_deeper: &[u32],
) -> Option<(Vec<i32>, Vec<i32>)> {
    let (n, hn) = (1usize << logn, 1usize << (logn - 1));
    let sp = prime(0);
    let (p, p0i, r2) = (sp.p, sp.p0i, sp.r2);
    let (gm, igm) = mp31::twiddles(0);
    let mm = |a: u32, b: u32| mp31::mmul(a, b, p, p0i);

    let mut fd: Vec<u32> = f_deeper[..hn].iter().map(|&x| mp31::set_signed(sext31(x), p)).collect();
    mp31::ntt(logn - 1, &mut fd, gm, sp);
    let mut gt = set_small(g, p);
    mp31::ntt(logn, &mut gt, gm, sp);
    let mut big_f = vec![0u32; n];
    for i in 0..hn {
        let m = mm(fd[i], r2);
        big_f[2 * i] = mm(gt[2 * i + 1], m);
        big_f[2 * i + 1] = mm(gt[2 * i], m);
    }
    let mut ft = set_small(f, p);
    mp31::ntt(logn, &mut ft, gm, sp);
    if ft.contains(&0) {
        return None;
    }

    // Numerator F adj(f) + G adj(g) and denominator f adj(f) + g adj(g); adj maps NTT slot i to slot n-1-i.
    let mut num = vec![0u32; n];
    let mut den = vec![0u32; n];
    for i in 0..hn {
        let j = n - 1 - i;
        let (f0, f1, g0, g1, bf0, bf1) = (ft[i], ft[j], gt[i], gt[j], big_f[i], big_f[j]);
        let (mf0, mf1, mg0, mg1) = (mm(f0, r2), mm(f1, r2), mm(g0, r2), mm(g1, r2));
        let bg0 = mp31::div(mp31::add(Q, mm(mg0, bf0), p), f0, sp);
        let bg1 = mp31::div(mp31::add(Q, mm(mg1, bf1), p), f1, sp);
        num[i] = mp31::add(mm(mf1, bf0), mm(mg1, bg0), p);
        num[j] = mp31::add(mm(mf0, bf1), mm(mg0, bg1), p);
        let d = mp31::add(mm(mf0, f1), mm(mg0, g1), p);
        den[i] = d;
        den[j] = d;
    }
    mp31::intt(logn, &mut num, igm, sp);
    mp31::intt(logn, &mut den, igm, sp);

    // Quotient in fixed point, both scaled by 2^-10 to stay in range.
    let to_fxr = |v: &[u32]| -> Vec<u64> { v.iter().map(|&x| ((mp31::norm(x, p) as i64) << 22) as u64).collect() };
    let mut rden = to_fxr(&den);
    fxp.fft(logn, &mut rden);
    let mut rnum = to_fxr(&num);
    fxp.fft(logn, &mut rnum);
    fxp.div_selfadj(logn, &mut rnum, &rden[..hn]);
    fxp.ifft(logn, &mut rnum);
    let mut k: Vec<u32> = rnum.iter().map(|&v| mp31::set_signed(fxp::round(v), p)).collect();

    let mut ft = set_small(f, p);
    let mut gt = set_small(g, p);
    mp31::ntt(logn, &mut k, gm, sp);
    mp31::ntt(logn, &mut ft, gm, sp);
    mp31::ntt(logn, &mut gt, gm, sp);
    let mut big_g = vec![0u32; n];
    for i in 0..n {
        let (mf, mg) = (mm(ft[i], r2), mm(gt[i], r2));
        let bf = mp31::sub(big_f[i], mm(mf, k[i]), p);
        big_f[i] = bf;
        big_g[i] = mp31::div(mp31::add(Q, mm(mg, bf), p), ft[i], sp);
    }
    mp31::intt(logn, &mut big_f, igm, sp);
    mp31::intt(logn, &mut big_g, igm, sp);
    let signed = |v: &[u32]| -> Vec<i32> { v.iter().map(|&x| mp31::norm(x, p)).collect() };
    Some((signed(&big_f), signed(&big_g)))
}
