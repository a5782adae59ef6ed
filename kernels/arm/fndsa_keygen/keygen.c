/*
 * FN-DSA v0.4 key generation on the guest, whole: f and g sampled from SHAKE256(seed), the invertibility, norm and
 * orthogonalized-norm checks, the NTRU solver (field norms down a tower of degrees over residue number systems, a
 * Bezout relation at degree 1, each level lifted and reduced with a fixed-point estimate of round(F/f), a precise
 * last reduction at the top), h = g/f in NTT form, the encoded signing and verifying keys. The same steps, sizes and
 * iteration counts as pqhelium_core::fndsa::keygen (ntru.rs, zint.rs, mp31.rs, gauss.rs), because another schedule
 * gives other keys; where core computes a mathematically defined value (a residue, an exact integer), this code may
 * compute it another way (Montgomery dot products instead of 128-bit sums).
 *
 * Builds: fndsa_keygen_pair_scalar (here: the portable FFT and the bit-by-bit divisions) and fndsa_keygen_pair
 * (keygen_mve.mve.c: the MVE FFT and the VDIV.F64 divisions). The mod-q NTT is the scalar kernel
 * (fndsa_ntt_scalar.c), SHAKE256 the scalar sponge (kernels/arm/scheme/fips202.c).
 *
 * Constant time: no branch, predicated instruction or address depends on a secret but the rejection checks (a
 * coefficient or a candidate they fail is drawn again). Comparisons are borrows through every word, selections masks
 * kept opaque to the compiler (kg_opaque), the solver's loop counts and sizes functions of logn (docs/constant-time.md,
 * "Whole FN-DSA operations").
 *
 * Memory: one static arena of 32-bit words, taken and given back in stack order; every size depends on logn only,
 * so logn 9 and 10 either always fit or never do (tests run both). The tower of (f, g) is kept for the way up; the
 * F of each level is moved down onto its level's place.
 */
#include <stddef.h>
#include <stdint.h>

#include "../fndsa_ntt/fndsa_ntt_small.h"
#include "../scheme/fips202.h"
#include "fft_q32.h"
#include "fndsa_keygen.h"
#include "fxr_arith.h"
#include "fxr_div.h"
#include "keygen.h"

#define KG_Q 12289u
#define KG_MASK31 0x7FFFFFFFu
#define KG_MAX_LOGN 10u
#define KG_MAX_N 1024u
#define KG_HVK_BYTES 64u
#define KG_CANDIDATES 2000u
/* ||(g, -f)||^2 below (1.17)^2 q, and the orthogonalized norm below (0.999 * 1.17 * sqrt(q))^2 in 32.32. */
#define KG_SQNORM_BOUND 16823
#define KG_ORTHO_BOUND 72107278641426ll
/* Below this degree k*f is subtracted on big integers directly instead of through the NTT. */
#define KG_MIN_LOGN_NTT_SUB 4u
/* Words of the arena: the peak at logn 10 is below it. */
#define KG_ARENA_WORDS 20480u

/* Words per coefficient of (f, g) at depth d, of the unreduced F at depth d, top words of f in the fixed-point
 * estimate, and bits gained per reduction round by top-level logn (core's ntru.rs). */
static const uint16_t kg_small_len[11] = {1, 1, 2, 3, 4, 8, 14, 27, 53, 104, 207};
static const uint16_t kg_large_len[10] = {1, 2, 3, 6, 11, 21, 40, 78, 155, 308};
static const uint8_t kg_word_win[10] = {1, 1, 2, 2, 2, 3, 3, 4, 5, 7};
static const uint8_t kg_reduce_bits[11] = {10, 10, 10, 10, 10, 10, 10, 10, 10, 9, 8};

/* Half-Gaussian cumulative tables (counts of "r < t", 15-bit r) for degree 512 and below, and for 1024. */
static const uint16_t kg_cdt_512[17] = {29543, 23286, 17574, 12669, 8706, 5692, 3535, 2083, 1164,
                                        615,   308,   146,   65,    28,   11,   4,    1};
static const uint16_t kg_cdt_1024[12] = {28207, 19623, 12472, 7198, 3753, 1761, 742, 280, 94, 28, 8, 2};

/* ---- The arena ---- */

static uint32_t kg_arena[KG_ARENA_WORDS] __attribute__((aligned(8)));
static uint32_t kg_top;
/* Set when a request did not fit: the key generation then returns 0. */
static uint32_t kg_overflow;

static uint32_t *kg_take(uint32_t words)
{
    words = (words + 1u) & ~1u; /* keep uint64_t vectors aligned */
    if (words > KG_ARENA_WORDS - kg_top) {
        kg_overflow = 1;
        kg_top = 0;
    }
    uint32_t *p = &kg_arena[kg_top];
    kg_top += words;
    return p;
}

static uint64_t *kg_take64(uint32_t count)
{
    return (uint64_t *)(void *)kg_take(2u * count);
}

static void kg_release(const void *p)
{
    kg_top = (uint32_t)((const uint32_t *)p - kg_arena);
}

static void kg_copy32(uint32_t *d, const uint32_t *s, uint32_t words)
{
    for (uint32_t i = 0; i < words; i++)
        d[i] = s[i];
}

/* ---- Arithmetic modulo one small prime (values in [0, p)) ---- */

typedef struct fndsa_small_prime kg_prime;

/* v hidden from the optimiser: a bit or mask made from a secret is then used as a value, never turned back into a
 * branch, a predicated (IT) instruction or a lane-predicated (VPT) vector instruction. */
static inline uint32_t kg_opaque(uint32_t v)
{
    __asm__("" : "+r"(v));
    return v;
}

/* All ones when x, as a signed word, is negative, else 0. */
static inline uint32_t kg_sign_mask(uint32_t x)
{
    return kg_opaque((uint32_t)((int32_t)x >> 31));
}

/* All ones when x is 0, else 0. */
static inline uint32_t kg_zero_mask(uint32_t x)
{
    return 0u - kg_opaque(((x | (0u - x)) >> 31) ^ 1u);
}

/* a where mask is all ones, b where it is 0. */
static inline uint32_t kg_select(uint32_t mask, uint32_t a, uint32_t b)
{
    return b ^ (mask & (a ^ b));
}

static inline uint32_t mp_set_signed(int32_t v, uint32_t p)
{
    uint32_t w = (uint32_t)v;
    return w + (p & kg_sign_mask(w));
}

static inline uint32_t mp_set_unsigned(uint32_t v, uint32_t p)
{
    uint32_t w = v - p;
    return w + (p & kg_sign_mask(w));
}

/* [0, p) to (-p/2, p/2]. */
static inline int32_t mp_norm(uint32_t x, uint32_t p)
{
    return (int32_t)(x - (p & kg_sign_mask((p >> 1) - x)));
}

static inline uint32_t mp_add(uint32_t a, uint32_t b, uint32_t p)
{
    uint32_t d = a + b - p;
    return d + (p & kg_sign_mask(d));
}

static inline uint32_t mp_sub(uint32_t a, uint32_t b, uint32_t p)
{
    uint32_t d = a - b;
    return d + (p & kg_sign_mask(d));
}

static inline uint32_t mp_half(uint32_t a, uint32_t p)
{
    return (a + (p & kg_opaque(0u - (a & 1u)))) >> 1;
}

/* a b / 2^32 mod p (a below 2^32, b below p). */
static inline uint32_t mp_mmul(uint32_t a, uint32_t b, uint32_t p, uint32_t p0i)
{
    uint64_t z = (uint64_t)a * b;
    uint32_t w = (uint32_t)z * p0i;
    return mp_set_unsigned((uint32_t)((z + (uint64_t)w * p) >> 32), p);
}

static inline uint32_t mp_mont_one(uint32_t p)
{
    return (0u - p) << 1;
}

/* x / y mod p, 0 when y = 0 (y^(p-2)). */
static uint32_t mp_div(uint32_t x, uint32_t y, const kg_prime *sp)
{
    uint32_t p = sp->p, p0i = sp->p0i;
    uint32_t b = mp_mmul(y, sp->r2, p, p0i), acc = mp_mont_one(p);
    for (uint32_t e = p - 2u; e != 0; e >>= 1) {
        if (e & 1u)
            acc = mp_mmul(acc, b, p, p0i);
        b = mp_mmul(b, b, p, p0i);
    }
    return mp_mmul(acc, x, p, p0i);
}

/* The NTT tables of one prime for degree 2^logn: gm[rev(i)] = w^i, igm[rev(i)] = w^-i / 2 (Montgomery), w a
 * primitive 2^(logn+1)th root; entry j is entry j of the degree-1024 tables (core's), so degree 2^logn tables serve
 * every smaller degree too. */
struct kg_tables {
    uint32_t *gm, *igm;
};

static struct kg_tables kg_make_tables(const kg_prime *sp, uint32_t logn)
{
    uint32_t n = 1u << logn, p = sp->p, p0i = sp->p0i;
    struct kg_tables t = {kg_take(n), kg_take(n)};
    uint32_t w = sp->g, iw = sp->ig;
    for (uint32_t k = logn; k < KG_MAX_LOGN; k++) {
        w = mp_mmul(w, w, p, p0i);
        iw = mp_mmul(iw, iw, p, p0i);
    }
    uint32_t x = mp_mont_one(p), ix = 0x80000000u - p; /* R and R/2 mod p */
    for (uint32_t i = 0, r = 0; i < n; i++) {
        t.gm[r] = x;
        t.igm[r] = ix;
        x = mp_mmul(x, w, p, p0i);
        ix = mp_mmul(ix, iw, p, p0i);
        /* r <- rev(i + 1): add one from the top bit down. */
        uint32_t bit = n >> 1;
        while (bit != 0 && (r & bit) != 0) {
            r ^= bit;
            bit >>= 1;
        }
        r |= bit;
    }
    return t;
}

static void mp_ntt(uint32_t logn, uint32_t *a, const uint32_t *gm, const kg_prime *sp)
{
    uint32_t p = sp->p, p0i = sp->p0i, t = 1u << logn;
    for (uint32_t lm = 0; lm < logn; lm++) {
        uint32_t m = 1u << lm, ht = t >> 1;
        for (uint32_t i = 0; i < m; i++) {
            uint32_t s = gm[m + i];
            for (uint32_t j = i * t; j < i * t + ht; j++) {
                uint32_t x1 = a[j], x2 = mp_mmul(a[j + ht], s, p, p0i);
                a[j] = mp_add(x1, x2, p);
                a[j + ht] = mp_sub(x1, x2, p);
            }
        }
        t = ht;
    }
}

static void mp_intt(uint32_t logn, uint32_t *a, const uint32_t *igm, const kg_prime *sp)
{
    uint32_t p = sp->p, p0i = sp->p0i, t = 1;
    for (uint32_t lm = 0; lm < logn; lm++) {
        uint32_t hm = 1u << (logn - 1u - lm);
        for (uint32_t i = 0; i < hm; i++) {
            uint32_t s = igm[hm + i];
            for (uint32_t j = 2u * i * t; j < 2u * i * t + t; j++) {
                uint32_t x1 = a[j], x2 = a[j + t];
                a[j] = mp_half(mp_add(x1, x2, p), p);
                a[j + t] = mp_mmul(mp_sub(x1, x2, p), s, p, p0i);
            }
        }
        t <<= 1;
    }
}

/* ---- Big integers: 31-bit words, word j of coefficient i at j*stride + i ---- */

/* m <- m x (unsigned, stride 1); returns the carry word. */
static uint32_t zint_mul_small(uint32_t *m, uint32_t len, uint32_t x)
{
    uint32_t cc = 0;
    for (uint32_t i = 0; i < len; i++) {
        uint64_t z = (uint64_t)m[i] * x + cc;
        m[i] = (uint32_t)z & KG_MASK31;
        cc = (uint32_t)(z >> 31);
    }
    return cc;
}

/* Residues modulo one prime of integers of len words: the Montgomery forms of 2^(31j), so that a residue is a sum
 * of Montgomery products; rx = 2^(31 len) mod p (plain) for the signed case. */
struct kg_reducer {
    const kg_prime *sp;
    uint32_t len, rx;
    uint32_t *pw;
};

static struct kg_reducer kg_reducer_new(uint32_t index, uint32_t len)
{
    const kg_prime *sp = &fndsa_keygen_primes[index];
    struct kg_reducer r = {sp, len, 0, kg_take(len + 1u)};
    uint32_t shift = mp_half(sp->r2, sp->p); /* the Montgomery form of 2^31 */
    r.pw[0] = mp_mont_one(sp->p);
    for (uint32_t j = 0; j < len; j++)
        r.pw[j + 1] = mp_mmul(r.pw[j], shift, sp->p, sp->p0i);
    r.rx = mp_mmul(r.pw[len], 1, sp->p, sp->p0i);
    return r;
}

/* One Montgomery reduction per two words: d0 pw0 + d1 pw1 < 2 * 2^31 p = 2^32 p, the bound of the reduction. */
static uint32_t kg_reduce_unsigned(const struct kg_reducer *r, const uint32_t *d, uint32_t stride)
{
    uint32_t p = r->sp->p, p0i = r->sp->p0i, acc = 0, j = 0;
    for (; j + 1u < r->len; j += 2u) {
        uint64_t z = (uint64_t)d[j * stride] * r->pw[j] + (uint64_t)d[(j + 1u) * stride] * r->pw[j + 1u];
        uint32_t w = (uint32_t)z * p0i;
        acc = mp_add(acc, mp_set_unsigned((uint32_t)((z + (uint64_t)w * p) >> 32), p), p);
    }
    if (j < r->len)
        acc = mp_add(acc, mp_mmul(d[j * stride], r->pw[j], p, p0i), p);
    return acc;
}

static uint32_t kg_reduce_signed(const struct kg_reducer *r, const uint32_t *d, uint32_t stride)
{
    if (r->len == 0)
        return 0;
    uint32_t x = kg_reduce_unsigned(r, d, stride);
    uint32_t neg = kg_opaque(0u - (d[(r->len - 1u) * stride] >> 30));
    return mp_sub(x, r->rx & neg, r->sp->p);
}

/* 1 when a < b (unsigned, len words): the borrow of a - b through every word. */
static uint32_t zint_less31(const uint32_t *a, const uint32_t *b, uint32_t len)
{
    uint32_t borrow = 0;
    for (uint32_t i = 0; i < len; i++)
        borrow = (a[i] - b[i] - borrow) >> 31;
    return kg_opaque(borrow);
}

/* x <- x - m if x > (m-1)/2 (x in [0, m), m odd): the comparison is the borrow of (m-1)/2 - x through every word,
 * the subtraction masked. */
static void zint_centre(uint32_t *x, uint32_t stride, const uint32_t *m, uint32_t len)
{
    uint32_t borrow = 0;
    for (uint32_t i = 0; i < len; i++) {
        uint32_t hm = (m[i] >> 1) | ((i + 1u < len ? m[i + 1] & 1u : 0u) << 30);
        borrow = (hm - x[i * stride] - borrow) >> 31;
    }
    uint32_t greater = 0u - kg_opaque(borrow);
    borrow = 0;
    for (uint32_t i = 0; i < len; i++) {
        uint32_t z = x[i * stride] - (m[i] & greater) - borrow;
        x[i * stride] = z & KG_MASK31;
        borrow = z >> 31;
    }
}

/* Garner: sets blocks of n integers of len words (stride n), word i the residue modulo prime i on input, the
 * integer in [0, m) or, signed, in (-m/2, m/2) on output (m the product of the len primes). */
static void zint_rebuild_crt(uint32_t *xx, uint32_t len, uint32_t n, uint32_t sets, int is_signed)
{
    uint32_t *modulus = kg_take(len);
    modulus[0] = fndsa_keygen_primes[0].p;
    for (uint32_t i = 1; i < len; i++) {
        const kg_prime *sp = &fndsa_keygen_primes[i];
        struct kg_reducer red = kg_reducer_new(i, i);
        for (uint32_t set = 0; set < sets; set++) {
            for (uint32_t k = 0; k < n; k++) {
                uint32_t *x = xx + set * n * len + k;
                uint32_t cur = kg_reduce_unsigned(&red, x, n);
                uint32_t t = mp_mmul(sp->s, mp_sub(x[i * n], cur, sp->p), sp->p, sp->p0i);
                uint32_t cc = 0;
                for (uint32_t j = 0; j < i; j++) {
                    uint64_t z = (uint64_t)t * modulus[j] + x[j * n] + cc;
                    x[j * n] = (uint32_t)z & KG_MASK31;
                    cc = (uint32_t)(z >> 31);
                }
                x[i * n] = cc;
            }
        }
        kg_release(red.pw);
        modulus[i] = zint_mul_small(modulus, i, sp->p);
    }
    if (is_signed)
        for (uint32_t set = 0; set < sets; set++)
            for (uint32_t k = 0; k < n; k++)
                zint_centre(xx + set * n * len + k, n, modulus, len);
    kg_release(modulus);
}

/* x <- x - 2^(31 sch + scl) y (signed, truncated to xlen words, shared stride; words of y past ylen are its
 * sign), scl in 0..30. */
static void zint_sub_scaled(uint32_t *x, uint32_t xlen, const uint32_t *y, uint32_t ylen, uint32_t stride,
                            uint32_t sch, uint32_t scl)
{
    if (ylen == 0 || sch >= xlen)
        return;
    uint32_t ysign = (0u - (y[(ylen - 1u) * stride] >> 30)) >> 1;
    uint32_t spill = 0, borrow = 0;
    for (uint32_t u = sch; u < xlen; u++) {
        uint32_t j = u - sch;
        uint32_t wy = j < ylen ? y[j * stride] : ysign;
        uint32_t shifted = ((wy << scl) & KG_MASK31) | spill;
        spill = scl == 0 ? 0 : wy >> (31u - scl);
        uint32_t z = x[u * stride] - shifted - borrow;
        x[u * stride] = z & KG_MASK31;
        borrow = z >> 31;
    }
}

/* -1/m mod 2^31 for odd m. */
static uint32_t zint_neg_inv31(uint32_t m)
{
    uint32_t y = m;
    for (int i = 0; i < 5; i++)
        y *= 2u - m * y;
    return (0u - y) & KG_MASK31;
}

/* out = (a fa + b fb) / 2^31 for unsigned a, b of len words (exact when the low 31 bits cancel), as |out| and
 * whether it was negative (1 or 0, the negation masked); |fa| + |fb| <= 2^31, so every partial sum fits in an
 * int64_t. */
static uint32_t zint_combine_div31(const uint32_t *a, const uint32_t *b, int64_t fa, int64_t fb, uint32_t *out,
                                   uint32_t len)
{
    int64_t cc = 0;
    for (uint32_t i = 0; i < len; i++) {
        int64_t z = (int64_t)a[i] * fa + (int64_t)b[i] * fb + cc;
        if (i > 0)
            out[i - 1] = (uint32_t)z & KG_MASK31;
        cc = z >> 31;
    }
    out[len - 1] = (uint32_t)cc & KG_MASK31;
    uint32_t neg = kg_opaque((uint32_t)((uint64_t)cc >> 63)), flip = 0u - neg, carry = neg;
    for (uint32_t i = 0; i < len; i++) {
        uint32_t z = ((out[i] ^ flip) & KG_MASK31) + carry;
        out[i] = z & KG_MASK31;
        carry = z >> 31;
    }
    return neg;
}

/* (f, g) <- (-f, -g) when neg is 1. */
static inline void kg_negate_pair(int64_t *f, int64_t *g, uint32_t neg)
{
    int64_t m = -(int64_t)neg;
    *f = (*f ^ m) - m;
    *g = (*g ^ m) - m;
}

/* out = (u fu + v fv) / 2^31 mod m for u, v in [0, m) (m odd, m0i = -1/m mod 2^31). The term m k (below 2^62)
 * is added in two halves so that no int64_t sum can overflow. */
static void zint_combine_mod(const uint32_t *u, const uint32_t *v, int64_t fu, int64_t fv, const uint32_t *m,
                             uint32_t m0i, uint32_t *out, uint32_t len)
{
    uint32_t low = (uint32_t)((int64_t)u[0] * fu + (int64_t)v[0] * fv);
    uint32_t k = (low * m0i) & KG_MASK31;
    int64_t cc = 0;
    for (uint32_t i = 0; i < len; i++) {
        int64_t z1 = (int64_t)u[i] * fu + (int64_t)v[i] * fv + cc;
        uint64_t mk = (uint64_t)m[i] * k;
        uint64_t low_sum = (uint64_t)(z1 & KG_MASK31) + (mk & KG_MASK31);
        if (i > 0)
            out[i - 1] = (uint32_t)low_sum & KG_MASK31;
        cc = (z1 >> 31) + (int64_t)(mk >> 31) + (int64_t)(low_sum >> 31);
    }
    out[len - 1] = (uint32_t)cc & KG_MASK31;
    /* The sum lies in (-m, 2m): add m when it is negative, subtract m when it is at least m; top, the part above
     * the len words, is -1, 0 or 1. */
    uint32_t top = (uint32_t)(cc >> 31);
    uint32_t negative = kg_opaque(top >> 31), positive = kg_opaque((0u - top) >> 31);
    uint32_t add = 0u - negative;
    uint32_t sub = 0u - (positive | (((negative | positive) ^ 1u) & (zint_less31(out, m, len) ^ 1u)));
    int64_t carry = 0;
    for (uint32_t i = 0; i < len; i++) {
        int64_t z = (int64_t)out[i] + (int64_t)(m[i] & add) - (int64_t)(m[i] & sub) + carry;
        out[i] = (uint32_t)z & KG_MASK31;
        carry = z >> 31;
    }
}

/* 32 bits of an unsigned 31-bit-word integer from bit pos (0 past the top): every word is read and the three
 * from word pos/31 on are kept by masks, so that a secret pos picks no address. */
static uint32_t zint_bits32_at(const uint32_t *a, uint32_t len, uint32_t pos)
{
    uint32_t w = pos / 31u, s = pos % 31u;
    uint64_t v = 0;
    for (uint32_t i = 0; i < len; i++) {
        uint32_t k = i - w;
        uint64_t word = a[i];
        v |= (word & kg_zero_mask(k)) | ((word << 31) & ((uint64_t)kg_zero_mask(k - 1u) << 31)) |
             ((word << 62) & ((uint64_t)kg_zero_mask(k - 2u) << 62));
    }
    return (uint32_t)(v >> s);
}

/* 63 bits of z for the binary GCD: z itself below 2^63, else its top 32 bits of bitlen above its low 31. */
static uint64_t zint_approx(const uint32_t *z, uint32_t len, uint32_t bitlen)
{
    uint64_t whole = (uint64_t)zint_bits32_at(z, len, 0) | ((uint64_t)zint_bits32_at(z, len, 32) << 32);
    uint64_t split = ((uint64_t)zint_bits32_at(z, len, bitlen - 32u) << 31) | z[0];
    uint64_t small = kg_sign_mask(bitlen - 64u);
    small |= small << 32;
    return split ^ (small & (whole ^ split));
}

/* Bezout coefficients for odd coprime x, y (unsigned, len words): u in [0, y), v in [0, x) with x u - y v = 1;
 * 0 (u, v untouched) otherwise. Binary GCD 31 steps at a time on 63-bit approximations (core's zint::bezout; the
 * pair is unique, so the words are too). Constant time: 2 len + 1 rounds always (once a is 0 and b is 1, a round
 * leaves u and v as they are), every swap and subtraction masked. */
static int zint_bezout(uint32_t *u, uint32_t *v, const uint32_t *x, const uint32_t *y, uint32_t len)
{
    if (len == 0 || (x[0] & y[0] & 1u) == 0)
        return 0;
    uint32_t *a = kg_take(len), *b = kg_take(len), *ua = kg_take(len), *ub = kg_take(len);
    uint32_t *va = kg_take(len), *vb = kg_take(len), *t1 = kg_take(len), *t2 = kg_take(len);
    for (uint32_t i = 0; i < len; i++) {
        a[i] = x[i];
        b[i] = y[i];
        ua[i] = 0;
        ub[i] = 0;
        va[i] = 0;
        vb[i] = x[i];
    }
    ua[0] = 1;
    vb[0] -= 1u;
    uint32_t x0i = zint_neg_inv31(x[0]), y0i = zint_neg_inv31(y[0]);
    for (uint32_t iter = 0; iter < 2u * len + 1u; iter++) {
        /* The top non-zero word of a | b and its index (a and b are never both 0: their gcd is x's and y's). */
        uint32_t top = 0, top_word = 0;
        for (uint32_t i = 0; i < len; i++) {
            uint32_t nonzero = ~kg_zero_mask(a[i] | b[i]);
            top = kg_select(nonzero, i, top);
            top_word = kg_select(nonzero, a[i] | b[i], top_word);
        }
        uint32_t bitlen = 31u * top + 32u - (uint32_t)__builtin_clz(top_word | 1u);
        uint64_t xa = zint_approx(a, len, bitlen), xb = zint_approx(b, len, bitlen);
        int64_t f0 = 1, g0 = 0, f1 = 0, g1 = 1;
        for (int step = 0; step < 31; step++) {
            /* When xa is odd: swap so that xa >= xb, then xa -= xb. */
            uint64_t odd = 0u - (uint64_t)kg_opaque((uint32_t)xa & 1u);
            uint64_t swap = odd & (0u - fxr_borrow(xa, xb));
            uint64_t tx = (xa ^ xb) & swap;
            xa ^= tx;
            xb ^= tx;
            int64_t tf = (f0 ^ f1) & (int64_t)swap, tg = (g0 ^ g1) & (int64_t)swap;
            f0 ^= tf;
            f1 ^= tf;
            g0 ^= tg;
            g1 ^= tg;
            xa -= xb & odd;
            f0 -= f1 & (int64_t)odd;
            g0 -= g1 & (int64_t)odd;
            xa >>= 1;
            f1 *= 2;
            g1 *= 2;
        }
        kg_negate_pair(&f0, &g0, zint_combine_div31(a, b, f0, g0, t1, len));
        kg_negate_pair(&f1, &g1, zint_combine_div31(a, b, f1, g1, t2, len));
        kg_copy32(a, t1, len);
        kg_copy32(b, t2, len);
        zint_combine_mod(ua, ub, f0, g0, y, y0i, t1, len);
        zint_combine_mod(ua, ub, f1, g1, y, y0i, t2, len);
        kg_copy32(ua, t1, len);
        kg_copy32(ub, t2, len);
        zint_combine_mod(va, vb, f0, g0, x, x0i, t1, len);
        zint_combine_mod(va, vb, f1, g1, x, x0i, t2, len);
        kg_copy32(va, t1, len);
        kg_copy32(vb, t2, len);
    }
    uint32_t rest = 0;
    for (uint32_t i = 0; i < len; i++)
        rest |= a[i] | (i > 0 ? b[i] : b[i] ^ 1u);
    if (rest == 0) {
        kg_copy32(u, ub, len);
        kg_copy32(v, vb, len);
    }
    kg_release(a);
    return rest == 0;
}

/* ---- 32.32 fixed point (core's fxp.rs) ---- */

static inline uint64_t fxr_of_int(int32_t x)
{
    return (uint64_t)(uint32_t)x << 32;
}

/* Nearest integer, ties up. */
static inline int32_t fxr_round(uint64_t x)
{
    return (int32_t)((int64_t)(x + (1ull << 31)) >> 32);
}

static void fxr_mul_fft(uint32_t logn, uint64_t *a, const uint64_t *b)
{
    uint32_t hn = 1u << (logn - 1u);
    for (uint32_t i = 0; i < hn; i++)
        fxr_cmul(&a[i], &a[i + hn], a[i], a[i + hn], b[i], b[i + hn]);
}

/* ---- Sampling f and g ---- */

/* SHAKE256(seed) read two bytes at a time, squeezed a rate's worth (136 bytes, an even number) at a time: the same
 * stream. */
static struct {
    struct pqh_keccak sponge;
    uint8_t buf[PQH_SHAKE256_RATE];
    uint32_t pos;
} kg_rng;

static void kg_rng_init(const uint8_t *seed, uint32_t seed_len)
{
    pqh_keccak_init(&kg_rng.sponge, PQH_SHAKE256_RATE);
    pqh_keccak_absorb(&kg_rng.sponge, seed, seed_len);
    pqh_keccak_finalize(&kg_rng.sponge, PQH_SHAKE_DOMAIN);
    kg_rng.pos = PQH_SHAKE256_RATE;
}

static uint32_t kg_next_u16(void)
{
    if (kg_rng.pos == PQH_SHAKE256_RATE) {
        pqh_keccak_squeeze(&kg_rng.sponge, kg_rng.buf, PQH_SHAKE256_RATE);
        kg_rng.pos = 0;
    }
    uint32_t v = (uint32_t)kg_rng.buf[kg_rng.pos] | ((uint32_t)kg_rng.buf[kg_rng.pos + 1u] << 8);
    kg_rng.pos += 2u;
    return v;
}

/* Coefficients in [-127, 127] with an odd sum; below degree 512 sums of 2^(9-logn) samples. */
static void kg_sample_poly(uint32_t logn, int8_t *out)
{
    uint32_t n = 1u << logn;
    const uint16_t *table = logn == 10u ? kg_cdt_1024 : kg_cdt_512;
    uint32_t table_len = logn == 10u ? 12u : 17u, reps = logn == 10u ? 1u : 1u << (9u - logn);
    uint32_t count = 0, parity = 0;
    while (count < n) {
        int32_t v = 0;
        for (uint32_t r = 0; r < reps; r++) {
            uint32_t u = kg_next_u16(), x = u >> 1;
            int32_t mag = 0;
            for (uint32_t k = 0; k < table_len; k++)
                mag += (int32_t)((x - table[k]) >> 31);
            uint32_t negate = 0u - (u & 1u);
            __asm__("" : "+r"(negate)); /* opaque, or the compiler predicates the sign on the secret bit */
            v += (int32_t)(((uint32_t)mag ^ negate) - negate);
        }
        if (v < -127 || v > 127)
            continue;
        if (count == n - 1u) {
            if (((parity ^ (uint32_t)v) & 1u) == 0)
                continue;
        } else {
            parity ^= (uint32_t)v;
        }
        out[count++] = (int8_t)v;
    }
}

/* ---- The orthogonalized-norm check ---- */

static int kg_ortho_norm_ok(const struct fndsa_fxp_kernels *k, uint32_t logn, const int8_t *f, const int8_t *g)
{
    uint32_t n = 1u << logn, hn = n >> 1;
    uint64_t *fx = kg_take64(n), *gx = kg_take64(n), *inv = kg_take64(hn);
    for (uint32_t i = 0; i < n; i++) {
        fx[i] = fxr_of_int(f[i]);
        gx[i] = fxr_of_int(g[i]);
    }
    k->fft(fx, logn);
    k->fft(gx, logn);
    k->invnorm(inv, fx, gx, logn, 0);
    uint64_t *vs[2] = {fx, gx};
    for (uint32_t w = 0; w < 2; w++) {
        uint64_t *v = vs[w];
        for (uint32_t i = hn; i < n; i++)
            v[i] = 0u - v[i];
        for (uint32_t i = 0; i < n; i++)
            v[i] = fxr_mul(v[i], fxr_of_int((int32_t)KG_Q));
        for (uint32_t i = 0; i < hn; i++) {
            v[i] = fxr_mul(v[i], inv[i]);
            v[i + hn] = fxr_mul(v[i + hn], inv[i]);
        }
        k->ifft(v, logn);
    }
    uint64_t sn = 0;
    for (uint32_t i = 0; i < n; i++)
        sn += fxr_sqr(fx[i]) + fxr_sqr(gx[i]);
    kg_release(fx);
    return (int64_t)sn < KG_ORTHO_BOUND;
}

/* ---- The NTRU solver ---- */

/* Residues of small coefficients modulo p. */
static void kg_set_small(uint32_t *d, const int8_t *v, uint32_t n, uint32_t p)
{
    for (uint32_t i = 0; i < n; i++)
        d[i] = mp_set_signed(v[i], p);
}

/* dst[j] = line[2j] line[2j+1] (plain) for j < hn: N(f)(X^2) = f(X) f(-X) slot by slot. */
static void kg_pair_products(const uint32_t *line, uint32_t *dst, uint32_t hn, const kg_prime *sp)
{
    for (uint32_t j = 0; j < hn; j++)
        dst[j] = mp_mmul(mp_mmul(line[2 * j], line[2 * j + 1], sp->p, sp->p0i), sp->r2, sp->p, sp->p0i);
}

/* One level down: (f, g) at depth+1 (2 small_len[depth+1] 2^(logn-1) words, RNS+NTT) into out, from the level at
 * depth (left as it is). */
static void kg_field_norm_step(uint32_t logn_top, uint32_t depth, const uint32_t *level, uint32_t *out)
{
    uint32_t logn = logn_top - depth, n = 1u << logn, hn = n >> 1;
    uint32_t slen = kg_small_len[depth], tlen = kg_small_len[depth + 1];
    uint32_t *fd = out, *gd = out + tlen * hn;
    uint32_t *src = kg_take(2u * slen * n);
    kg_copy32(src, level, 2u * slen * n);
    uint32_t *fs = src, *gs = src + slen * n;
    for (uint32_t i = 0; i < slen; i++) {
        const kg_prime *sp = &fndsa_keygen_primes[i];
        kg_pair_products(fs + i * n, fd + i * hn, hn, sp);
        kg_pair_products(gs + i * n, gd + i * hn, hn, sp);
        struct kg_tables t = kg_make_tables(sp, logn);
        mp_intt(logn, fs + i * n, t.igm, sp);
        mp_intt(logn, gs + i * n, t.igm, sp);
        kg_release(t.gm);
    }
    if (tlen > slen) {
        zint_rebuild_crt(src, slen, n, 2, 1);
        uint32_t *t = kg_take(n);
        for (uint32_t i = slen; i < tlen; i++) {
            const kg_prime *sp = &fndsa_keygen_primes[i];
            struct kg_reducer red = kg_reducer_new(i, slen);
            struct kg_tables tab = kg_make_tables(sp, logn);
            const uint32_t *srcs[2] = {fs, gs};
            uint32_t *dsts[2] = {fd, gd};
            for (uint32_t w = 0; w < 2; w++) {
                for (uint32_t j = 0; j < n; j++)
                    t[j] = kg_reduce_signed(&red, srcs[w] + j, n);
                mp_ntt(logn, t, tab.gm, sp);
                kg_pair_products(t, dsts[w] + i * hn, hn, sp);
            }
            kg_release(red.pw);
        }
    }
    kg_release(src);
}

/* Degree 1: Res(f) G - Res(g) F = 1 by Bezout, then F *= q; F (small_len[logn] words) into big_f. */
static int kg_solve_deepest(uint32_t logn, const uint32_t *fg, uint32_t *big_f)
{
    uint32_t slen = kg_small_len[logn];
    uint32_t *res = kg_take(2u * slen), *big_g = kg_take(slen);
    kg_copy32(res, fg, 2u * slen);
    zint_rebuild_crt(res, slen, 1, 2, 0); /* resultants are non-negative */
    int ok = zint_bezout(big_g, big_f, res, res + slen, slen) && zint_mul_small(big_f, slen, KG_Q) == 0;
    kg_release(res);
    return ok;
}

/* Largest bit length over the coefficients of |x| (one's complement for negatives), xlen words at stride n; every
 * word is read and the maximum taken by masks. */
static uint32_t kg_max_bitlength(uint32_t n, const uint32_t *x, uint32_t xlen)
{
    uint32_t best = 0;
    for (uint32_t i = 0; i < n; i++) {
        uint32_t m = (0u - (x[i + (xlen - 1u) * n] >> 30)) & KG_MASK31, bits = 0;
        for (uint32_t j = 0; j < xlen; j++) {
            uint32_t w = x[i + j * n] ^ m;
            bits = kg_select(~kg_zero_mask(w), 31u * j + 32u - (uint32_t)__builtin_clz(w | 1u), bits);
        }
        best = kg_select(kg_sign_mask(best - bits), bits, best);
    }
    return best;
}

/* 64 bits of x / 2^sc per coefficient in 32.32 (floor), from bit sc - 32 upward: words above the top are the sign,
 * words below 0 are zero (core's big_to_fixed). */
static void kg_big_to_fixed(uint64_t *out, uint32_t n, const uint32_t *x, uint32_t flen, uint32_t sc)
{
    if (flen == 0) {
        for (uint32_t i = 0; i < n; i++)
            out[i] = 0;
        return;
    }
    /* sc may be secret (a bit length): the words are picked by masks, shifts are by register. */
    uint32_t sch = sc / 31u, scl = sc % 31u, at_word = kg_zero_mask(scl);
    sch -= at_word & 1u;
    scl = kg_select(at_word, 31u, scl);
    for (uint32_t i = 0; i < n; i++) {
        uint32_t ws = (0u - (x[i + (flen - 1u) * n] >> 30)) >> 1;
        uint32_t w[3];
        for (uint32_t k = 0; k < 3; k++) {
            /* Word sch - 1 + k: 0 below word 0, the sign above the top. */
            int32_t idx = (int32_t)(sch + k) - 1;
            w[k] = ws & kg_sign_mask((uint32_t)((int32_t)flen - 1 - idx));
            for (uint32_t j = 0; j < flen; j++)
                w[k] |= x[i + j * n] & kg_zero_mask((uint32_t)idx - j);
        }
        w[2] |= (w[2] & 0x40000000u) << 1;
        uint32_t lo = (w[0] >> (scl - 1u)) | (w[1] << (32u - scl));
        uint32_t hi = (w[1] >> scl) | (w[2] << (31u - scl));
        out[i] = (uint64_t)lo | ((uint64_t)hi << 32);
    }
}

static uint32_t kg_sext31(uint32_t x)
{
    return x | ((x & 0x40000000u) << 1);
}

/* col <- col +/- kv d modulo 2^(31 out_len): col out_len normalised words at stride n, d flen signed digits. */
static inline void kg_mac_column(uint32_t *col, uint32_t n, uint32_t out_len, const int32_t *d, uint32_t flen,
                                 int32_t kv, int subtract)
{
    int64_t cc = 0;
    uint32_t *x = col;
    for (uint32_t w = 0; w < flen; w++, x += n) {
        int64_t product = (int64_t)kv * d[w];
        int64_t z = (int64_t)*x + cc + (subtract ? -product : product);
        *x = (uint32_t)z & KG_MASK31;
        cc = z >> 31;
    }
    for (uint32_t w = flen; w < out_len; w++, x += n) {
        int64_t z = (int64_t)*x + cc;
        *x = (uint32_t)z & KG_MASK31;
        cc = z >> 31;
    }
}

/* F <- F - 2^sc k f mod X^n+1 for small degrees, modulo 2^(31 big_len) per coefficient: each column of k f is
 * accumulated exactly as normalised 31-bit words (one multiply-accumulate and carry per word of f, the carry then
 * run through the higher words), then subtracted shifted. Only the low big_len - sc/31 words of k f matter. */
static void kg_sub_kf_plain(uint32_t logn, uint32_t *big_f, uint32_t big_len, const uint32_t *f, uint32_t flen,
                            const uint32_t *k, uint32_t sc)
{
    uint32_t sch = sc / 31u, scl = sc % 31u;
    if (flen == 0 || sch >= big_len)
        return;
    uint32_t n = 1u << logn, out_len = big_len - sch;
    if (flen > out_len)
        flen = out_len;
    uint32_t *kf = kg_take(out_len * n);
    /* The words of f coefficient-major, the top kept word sign-extended: f[c] = sum digits[c][w] 2^(31 w). */
    int32_t *digits = (int32_t *)kg_take(n * flen);
    for (uint32_t c = 0; c < n; c++)
        for (uint32_t w = 0; w < flen; w++) {
            uint32_t word = f[w * n + c];
            digits[c * flen + w] = (int32_t)(w == flen - 1u ? kg_sext31(word) : word);
        }
    for (uint32_t j = 0; j < n; j++) {
        uint32_t *col = kf + j;
        for (uint32_t w = 0; w < out_len; w++)
            col[w * n] = 0;
        /* X^i f contributes f[j-i] at j, or -f[j-i+n] after wrapping around. */
        for (uint32_t i = 0; i <= j; i++)
            kg_mac_column(col, n, out_len, digits + (j - i) * flen, flen, (int32_t)k[i], 0);
        for (uint32_t i = j + 1u; i < n; i++)
            kg_mac_column(col, n, out_len, digits + (j + n - i) * flen, flen, (int32_t)k[i], 1);
    }
    for (uint32_t j = 0; j < n; j++)
        zint_sub_scaled(big_f + j, big_len, kf + j, out_len, n, sch, scl);
    kg_release(kf);
}

/* F <- F - 2^sc k f, k f exact through the NTT over flen + 1 primes (f given in RNS+NTT). */
static void kg_sub_kf_ntt(uint32_t logn, uint32_t *big_f, uint32_t big_len, const uint32_t *f_ntt, uint32_t flen,
                          const uint32_t *k, uint32_t sc)
{
    uint32_t n = 1u << logn, tlen = flen + 1u;
    uint32_t *kf = kg_take(tlen * n), *t = kg_take(n);
    for (uint32_t i = 0; i < tlen; i++) {
        const kg_prime *sp = &fndsa_keygen_primes[i];
        struct kg_tables tab = kg_make_tables(sp, logn);
        for (uint32_t j = 0; j < n; j++)
            t[j] = mp_set_signed((int32_t)k[j], sp->p);
        mp_ntt(logn, t, tab.gm, sp);
        uint32_t *line = kf + i * n;
        for (uint32_t j = 0; j < n; j++)
            line[j] = mp_mmul(mp_mmul(t[j], f_ntt[i * n + j], sp->p, sp->p0i), sp->r2, sp->p, sp->p0i);
        mp_intt(logn, line, tab.igm, sp);
        kg_release(tab.gm);
    }
    zint_rebuild_crt(kf, tlen, n, 1, 1);
    for (uint32_t i = 0; i < n; i++)
        zint_sub_scaled(big_f + i, big_len, kf + i, tlen, n, sc / 31u, sc % 31u);
    kg_release(kf);
}

/* Depth 1: F (1 or 2 words) <- F - 2^sc k N(f) modulo one or two primes, N(f) = f_e^2 - X f_o^2 from the
 * top-level f; k is restored between primes as core does it. */
static void kg_sub_kf_depth1(uint32_t logn_top, uint32_t *big_f, uint32_t big_len, uint32_t *k, uint32_t sc,
                             const int8_t *f)
{
    uint32_t logn = logn_top - 1u, n = 1u << logn, hn = n >> 1;
    uint32_t *res = kg_take(big_len * n);
    for (uint32_t i = 0; i < big_len; i++) {
        struct kg_reducer red = kg_reducer_new(i, big_len);
        for (uint32_t j = 0; j < n; j++)
            res[i * n + j] = kg_reduce_signed(&red, big_f + j, n);
        kg_release(red.pw);
    }
    kg_copy32(big_f, res, big_len * n);
    uint32_t *fe = kg_take(n), *fo = kg_take(n);
    for (uint32_t i = 0; i < big_len; i++) {
        const kg_prime *sp = &fndsa_keygen_primes[i];
        uint32_t p = sp->p, p0i = sp->p0i;
        uint32_t r3 = mp_mmul(sp->r2, sp->r2, p, p0i);
        struct kg_tables tab = kg_make_tables(sp, logn);
        uint32_t scv = mp_mmul(1u << (sc & 31u), sp->r2, p, p0i);
        for (uint32_t r = 0; r < sc >> 5; r++)
            scv = mp_mmul(scv, sp->r2, p, p0i);
        for (uint32_t j = 0; j < n; j++)
            k[j] = mp_mmul(scv, mp_set_signed((int32_t)k[j], p), p, p0i);
        mp_ntt(logn, k, tab.gm, sp);
        uint32_t *line = big_f + i * n;
        mp_ntt(logn, line, tab.gm, sp);
        for (uint32_t j = 0; j < n; j++) {
            fe[j] = mp_set_signed(f[2 * j], p);
            fo[j] = mp_set_signed(f[2 * j + 1], p);
        }
        mp_ntt(logn, fe, tab.gm, sp);
        mp_ntt(logn, fo, tab.gm, sp);
        for (uint32_t j = 0; j < hn; j++) {
            /* NTT(X) is gm[hn + j] at slot 2j and its opposite at slot 2j+1. */
            uint32_t xv[2] = {tab.gm[j + hn], p - tab.gm[j + hn]};
            for (uint32_t s = 0; s < 2; s++) {
                uint32_t idx = 2 * j + s;
                uint32_t e2 = mp_mmul(fe[idx], fe[idx], p, p0i), o2 = mp_mmul(fo[idx], fo[idx], p, p0i);
                uint32_t nf = mp_sub(e2, mp_mmul(o2, xv[s], p, p0i), p);
                uint32_t kfv = mp_mmul(mp_mmul(nf, k[idx], p, p0i), r3, p, p0i);
                line[idx] = mp_sub(line[idx], kfv, p);
            }
        }
        mp_intt(logn, line, tab.igm, sp);
        if (i + 1u < big_len) {
            mp_intt(logn, k, tab.igm, sp);
            uint32_t back = 1u << ((0u - sc) & 31u);
            for (uint32_t r = 0; r < sc >> 5; r++)
                back = mp_mmul(back, 1, p, p0i);
            for (uint32_t j = 0; j < n; j++)
                k[j] = (uint32_t)mp_norm(mp_mmul(back, k[j], p, p0i), p);
        }
        kg_release(tab.gm);
    }
    kg_release(res);
    zint_rebuild_crt(big_f, big_len, n, 1, 1);
}

/* From F at depth+1 (small_len[depth+1] words, degree n/2) to the reduced F at depth (small_len[depth] words,
 * written to out); fg_level is (f, g) at depth, RNS+NTT. 0 when the reduction fails. */
static int kg_lift_and_reduce(const struct fndsa_fxp_kernels *kern, uint32_t logn_top, const int8_t *f_top,
                              uint32_t depth, const uint32_t *f_deeper, const uint32_t *fg_level, uint32_t *out)
{
    uint32_t logn = logn_top - depth, n = 1u << logn, hn = n >> 1;
    uint32_t slen = kg_small_len[depth], llen = kg_large_len[depth], tlen = kg_small_len[depth + 1];
    uint32_t *big_f = kg_take(llen * n), *fg = kg_take(2u * slen * n), *gx = kg_take(n);
    kg_copy32(fg, fg_level, 2u * slen * n);
    uint32_t *ft = fg, *gt = fg + slen * n;

    /* Unreduced F = F'(X^2) g(-X) modulo llen primes, line i modulo prime i. */
    for (uint32_t i = 0; i < llen; i++) {
        const kg_prime *sp = &fndsa_keygen_primes[i];
        uint32_t p = sp->p, p0i = sp->p0i, *line = big_f + i * n;
        struct kg_tables tab = kg_make_tables(sp, logn);
        struct kg_reducer red = kg_reducer_new(i, tlen);
        for (uint32_t j = 0; j < hn; j++)
            line[hn + j] = kg_reduce_signed(&red, f_deeper + j, hn);
        kg_release(red.pw);
        if (i < slen) {
            kg_copy32(gx, gt + i * n, n);
            mp_intt(logn, ft + i * n, tab.igm, sp);
            mp_intt(logn, gt + i * n, tab.igm, sp);
        } else {
            struct kg_reducer red_g = kg_reducer_new(i, slen);
            for (uint32_t j = 0; j < n; j++)
                gx[j] = kg_reduce_signed(&red_g, gt + j, n);
            kg_release(red_g.pw);
            mp_ntt(logn, gx, tab.gm, sp);
        }
        mp_ntt(logn - 1u, line + hn, tab.gm, sp);
        for (uint32_t j = 0; j < hn; j++) {
            uint32_t fm = mp_mmul(line[hn + j], sp->r2, p, p0i);
            uint32_t ga = gx[2 * j], gb = gx[2 * j + 1];
            line[2 * j] = mp_mmul(gb, fm, p, p0i);
            line[2 * j + 1] = mp_mmul(ga, fm, p, p0i);
        }
        mp_intt(logn, line, tab.igm, sp);
        kg_release(tab.gm);
        if (i + 1u == slen)
            zint_rebuild_crt(fg, slen, n, 2, 1);
    }
    zint_rebuild_crt(big_f, llen, n, 1, 1);

    /* F <- F - k f with k = round(F/f) estimated in fixed point from the top words of both. */
    int use_ntt_sub = depth > 1u && logn >= KG_MIN_LOGN_NTT_SUB;
    uint32_t rlen = kg_word_win[depth], blen = slen - rlen;
    uint32_t scale_fg = 31u * blen, scale_big = 31u * llen;
    uint32_t scale_x = kg_max_bitlength(n, ft + n * blen, rlen);
    /* Keep f adj(f) below 2^31 in the FFT: f scaled down scale_t more bits, restored by the 2^scale_t numerator. */
    uint32_t scale_t = kg_select(kg_sign_mask(15u - logn - scale_x), 15u - logn, scale_x);
    uint64_t *rt3 = kg_take64(n), *rt1 = kg_take64(n);
    uint32_t *k = kg_take(n);
    kg_big_to_fixed(rt3, n, ft + n * blen, rlen, scale_x - scale_t);
    kern->fft(rt3, logn);
    kern->inv_mul2e(rt3, logn, scale_t);

    uint32_t *ft_ntt = NULL;
    if (use_ntt_sub) {
        ft_ntt = kg_take((slen + 1u) * n);
        for (uint32_t i = 0; i <= slen; i++) {
            const kg_prime *sp = &fndsa_keygen_primes[i];
            struct kg_tables tab = kg_make_tables(sp, logn);
            struct kg_reducer red = kg_reducer_new(i, slen);
            uint32_t *line = ft_ntt + i * n;
            for (uint32_t j = 0; j < n; j++)
                line[j] = kg_reduce_signed(&red, ft + j, n);
            mp_ntt(logn, line, tab.gm, sp);
            kg_release(tab.gm);
        }
    }

    int ok = 1;
    uint32_t big_len = llen, reduce_bits = kg_reduce_bits[logn_top];
    for (;;) {
        uint32_t clen = scale_big / 31u, coff = scale_big % 31u;
        kg_big_to_fixed(rt1, n, big_f + clen * n, big_len > clen ? big_len - clen : 0, scale_x + coff);
        kern->fft(rt1, logn);
        fxr_mul_fft(logn, rt1, rt3);
        kern->ifft(rt1, logn);
        for (uint32_t i = 0; i < n; i++)
            k[i] = (uint32_t)fxr_round(rt1[i]);
        uint32_t scale_k = scale_big - scale_fg;
        if (depth == 1u)
            kg_sub_kf_depth1(logn_top, big_f, big_len, k, scale_k, f_top);
        else if (use_ntt_sub)
            kg_sub_kf_ntt(logn, big_f, big_len, ft_ntt, slen, k, scale_k);
        else
            kg_sub_kf_plain(logn, big_f, big_len, ft, slen, k, scale_k);
        if (scale_big <= scale_fg)
            break;
        scale_big = scale_big <= scale_fg + reduce_bits ? scale_fg : scale_big - reduce_bits;
        /* Drop top words once they must be pure sign; a word that is not means the reduction failed. */
        while (ok && big_len > slen && 31u * (big_len - slen) > scale_big - scale_fg + 30u) {
            big_len--;
            uint32_t top = (big_len - 1u) * n;
            for (uint32_t i = 0; i < n; i++) {
                uint32_t sign = (0u - (big_f[top + i] >> 30)) >> 1;
                if (big_f[top + i + n] != sign)
                    ok = 0;
            }
        }
        if (!ok)
            break;
    }
    if (ok)
        kg_copy32(out, big_f, slen * n);
    kg_release(big_f);
    return ok;
}

/* Depth 0, modulo one prime: lift F, then one precise reduction with k = round((F adj f + G adj g) / (f adj f +
 * g adj g)), G = (q + g F) / f. F and G (centred) into big_f_out and big_g_out, both in [-127, 127], else 0. */
static int kg_solve_top(const struct fndsa_fxp_kernels *kern, uint32_t logn, const int8_t *f, const int8_t *g,
                        const uint32_t *f_deeper, int8_t *big_f_out, int8_t *big_g_out)
{
    uint32_t n = 1u << logn, hn = n >> 1;
    const kg_prime *sp = &fndsa_keygen_primes[0];
    uint32_t p = sp->p, p0i = sp->p0i, r2 = sp->r2;
    struct kg_tables tab = kg_make_tables(sp, logn);
    uint32_t *fd = kg_take(hn), *gt = kg_take(n), *ft = kg_take(n), *big_f = kg_take(n), *big_g = kg_take(n);
    uint32_t *num = kg_take(n), *den = kg_take(n);
    uint64_t *rden = kg_take64(n), *rnum = kg_take64(n);
    int ok = 1;

    for (uint32_t i = 0; i < hn; i++)
        fd[i] = mp_set_signed((int32_t)kg_sext31(f_deeper[i]), p);
    mp_ntt(logn - 1u, fd, tab.gm, sp);
    kg_set_small(gt, g, n, p);
    mp_ntt(logn, gt, tab.gm, sp);
    for (uint32_t i = 0; i < hn; i++) {
        uint32_t m = mp_mmul(fd[i], r2, p, p0i);
        big_f[2 * i] = mp_mmul(gt[2 * i + 1], m, p, p0i);
        big_f[2 * i + 1] = mp_mmul(gt[2 * i], m, p, p0i);
    }
    kg_set_small(ft, f, n, p);
    mp_ntt(logn, ft, tab.gm, sp);
    for (uint32_t i = 0; i < n; i++)
        if (ft[i] == 0)
            ok = 0;

    if (ok) {
        /* adj maps NTT slot i to slot n-1-i. */
        for (uint32_t i = 0; i < hn; i++) {
            uint32_t j = n - 1u - i;
            uint32_t mf0 = mp_mmul(ft[i], r2, p, p0i), mf1 = mp_mmul(ft[j], r2, p, p0i);
            uint32_t mg0 = mp_mmul(gt[i], r2, p, p0i), mg1 = mp_mmul(gt[j], r2, p, p0i);
            uint32_t bg0 = mp_div(mp_add(KG_Q, mp_mmul(mg0, big_f[i], p, p0i), p), ft[i], sp);
            uint32_t bg1 = mp_div(mp_add(KG_Q, mp_mmul(mg1, big_f[j], p, p0i), p), ft[j], sp);
            num[i] = mp_add(mp_mmul(mf1, big_f[i], p, p0i), mp_mmul(mg1, bg0, p, p0i), p);
            num[j] = mp_add(mp_mmul(mf0, big_f[j], p, p0i), mp_mmul(mg0, bg1, p, p0i), p);
            uint32_t d = mp_add(mp_mmul(mf0, ft[j], p, p0i), mp_mmul(mg0, gt[j], p, p0i), p);
            den[i] = d;
            den[j] = d;
        }
        mp_intt(logn, num, tab.igm, sp);
        mp_intt(logn, den, tab.igm, sp);
        /* The quotient in fixed point, both scaled by 2^-10 to stay in range. */
        for (uint32_t i = 0; i < n; i++) {
            rden[i] = (uint64_t)((int64_t)mp_norm(den[i], p) << 22);
            rnum[i] = (uint64_t)((int64_t)mp_norm(num[i], p) << 22);
        }
        kern->fft(rden, logn);
        kern->fft(rnum, logn);
        kern->div_selfadj(rnum, rden, logn);
        kern->ifft(rnum, logn);
        uint32_t *k = num;
        for (uint32_t i = 0; i < n; i++)
            k[i] = mp_set_signed(fxr_round(rnum[i]), p);
        kg_set_small(ft, f, n, p);
        kg_set_small(gt, g, n, p);
        mp_ntt(logn, k, tab.gm, sp);
        mp_ntt(logn, ft, tab.gm, sp);
        mp_ntt(logn, gt, tab.gm, sp);
        for (uint32_t i = 0; i < n; i++) {
            uint32_t mf = mp_mmul(ft[i], r2, p, p0i), mg = mp_mmul(gt[i], r2, p, p0i);
            uint32_t bf = mp_sub(big_f[i], mp_mmul(mf, k[i], p, p0i), p);
            big_f[i] = bf;
            big_g[i] = mp_div(mp_add(KG_Q, mp_mmul(mg, bf, p, p0i), p), ft[i], sp);
        }
        mp_intt(logn, big_f, tab.igm, sp);
        mp_intt(logn, big_g, tab.igm, sp);
        for (uint32_t i = 0; i < n; i++) {
            int32_t vf = mp_norm(big_f[i], p), vg = mp_norm(big_g[i], p);
            if (vf < -127 || vf > 127 || vg < -127 || vg > 127)
                ok = 0;
            big_f_out[i] = (int8_t)vf;
            big_g_out[i] = (int8_t)vg;
        }
    }
    kg_release(tab.gm);
    return ok;
}

/* F and G for (f, g), or 0 when this pair must be rejected. */
static int kg_solve(const struct fndsa_fxp_kernels *kern, uint32_t logn, const int8_t *f, const int8_t *g,
                    int8_t *big_f, int8_t *big_g)
{
    uint32_t n = 1u << logn, base = kg_top;
    /* The tower: levels[d] for d = 0..logn, each 2 small_len[d] 2^(logn-d) words. */
    uint32_t *levels[KG_MAX_LOGN + 1];
    levels[0] = kg_take(2u * n);
    const kg_prime *sp0 = &fndsa_keygen_primes[0];
    kg_set_small(levels[0], f, n, sp0->p);
    kg_set_small(levels[0] + n, g, n, sp0->p);
    struct kg_tables tab = kg_make_tables(sp0, logn);
    mp_ntt(logn, levels[0], tab.gm, sp0);
    mp_ntt(logn, levels[0] + n, tab.gm, sp0);
    kg_release(tab.gm);
    for (uint32_t d = 0; d < logn; d++) {
        levels[d + 1] = kg_take(2u * kg_small_len[d + 1] * (n >> (d + 1u)));
        kg_field_norm_step(logn, d, levels[d], levels[d + 1]);
    }
    /* Each level's F replaces that level's (f, g), which the levels above no longer need. */
    uint32_t *cur = levels[logn];
    int ok = kg_solve_deepest(logn, levels[logn], cur);
    for (uint32_t d = logn - 1u; ok && d >= 1u; d--) {
        uint32_t *fd = kg_take(kg_small_len[d + 1] * (n >> (d + 1u)));
        kg_copy32(fd, cur, kg_small_len[d + 1] * (n >> (d + 1u)));
        ok = kg_lift_and_reduce(kern, logn, f, d, fd, levels[d], levels[d]);
        kg_release(levels[d] + kg_small_len[d] * (n >> d));
        cur = levels[d];
    }
    ok = ok && kg_solve_top(kern, logn, f, g, cur, big_f, big_g);
    kg_top = base;
    return ok;
}

/* ---- Encodings ---- */

static uint32_t kg_small_bits(uint32_t logn)
{
    return logn <= 5u ? 8u : logn <= 7u ? 7u : logn <= 9u ? 6u : 5u;
}

/* Coefficients in [-(2^(bits-1) - 1), 2^(bits-1) - 1] on bits each, LSB first; 0 for a coefficient outside. */
static int kg_trim_i8_encode(uint8_t *out, const int8_t *v, uint32_t n, uint32_t bits)
{
    int32_t limit = (1 << (bits - 1u)) - 1;
    uint32_t mask = (1u << bits) - 1u, acc = 0, acc_bits = 0, pos = 0;
    for (uint32_t i = 0; i < n; i++) {
        if (v[i] > limit || v[i] < -limit)
            return 0;
        acc |= ((uint32_t)(uint8_t)v[i] & mask) << acc_bits;
        acc_bits += bits;
        while (acc_bits >= 8u) {
            out[pos++] = (uint8_t)acc;
            acc >>= 8;
            acc_bits -= 8u;
        }
    }
    return 1;
}

static struct {
    int8_t f[KG_MAX_N], g[KG_MAX_N], big_f[KG_MAX_N], big_g[KG_MAX_N];
    int16_t ntt_a[KG_MAX_N], ntt_b[KG_MAX_N], ntt_c[KG_MAX_N];
    uint8_t sk[FNDSA_KEYGEN_MAX_SIGNING_KEY], vk[FNDSA_KEYGEN_MAX_VERIFYING_KEY];
} kg;

/* h = g / f in NTT form (1/f as f^(q-2) over the pointwise kernel), into kg.ntt_a. */
static void kg_public_key(uint32_t logn)
{
    fndsa_ntt_small(logn, kg.ntt_a, kg.f);
    int16_t *inv = fndsa_ntt_inverse(logn, kg.ntt_a, kg.ntt_b, kg.ntt_c);
    int16_t *g_ntt = inv == kg.ntt_b ? kg.ntt_c : kg.ntt_b;
    fndsa_ntt_small(logn, g_ntt, kg.g);
    fndsa_ntt_mul_at(logn, kg.ntt_a, g_ntt, inv);
}

/* ---- Key generation ---- */

uint32_t fndsa_keygen_pair_with(const struct fndsa_fxp_kernels *kern, uint8_t *sk, uint8_t *vk,
                                const uint8_t *seed, uint32_t seed_len, uint32_t logn)
{
    if (logn != 9u && logn != 10u)
        return 0;
    uint32_t n = 1u << logn;
    kg_top = 0;
    kg_overflow = 0;
    kg_rng_init(seed, seed_len);
    uint32_t found = 0;
    for (uint32_t candidate = 0; candidate < KG_CANDIDATES && !found; candidate++) {
        kg_sample_poly(logn, kg.f);
        /* f must be invertible modulo X^n+1 and q: no zero NTT slot. */
        fndsa_ntt_small(logn, kg.ntt_a, kg.f);
        uint32_t zero_slot = 0;
        for (uint32_t i = 0; i < n; i++)
            zero_slot |= kg.ntt_a[i] == 0;
        if (zero_slot)
            continue;
        kg_sample_poly(logn, kg.g);
        int32_t sn = 0;
        for (uint32_t i = 0; i < n; i++)
            sn += kg.f[i] * kg.f[i] + kg.g[i] * kg.g[i];
        if (sn >= KG_SQNORM_BOUND)
            continue;
        if (!kg_ortho_norm_ok(kern, logn, kg.f, kg.g))
            continue;
        found = kg_solve(kern, logn, kg.f, kg.g, kg.big_f, kg.big_g);
    }
    if (!found || kg_overflow)
        return 0;

    /* vk = logn || h on 14 bits each; sk = 0x50 + logn || f || g || F || SHAKE256(vk). */
    kg_public_key(logn);
    uint32_t vk_len = 1u + 14u * n / 8u, acc = 0, acc_bits = 0, pos = 1;
    kg.vk[0] = (uint8_t)logn;
    for (uint32_t i = 0; i < n; i++) {
        acc |= (uint32_t)kg.ntt_a[i] << acc_bits;
        acc_bits += 14u;
        while (acc_bits >= 8u) {
            kg.vk[pos++] = (uint8_t)acc;
            acc >>= 8;
            acc_bits -= 8u;
        }
    }
    uint32_t bits = kg_small_bits(logn), fg_len = n * bits / 8u;
    uint32_t sk_len = 1u + 2u * fg_len + n + KG_HVK_BYTES;
    kg.sk[0] = (uint8_t)(0x50u + logn);
    if (!kg_trim_i8_encode(kg.sk + 1, kg.f, n, bits) || !kg_trim_i8_encode(kg.sk + 1 + fg_len, kg.g, n, bits) ||
        !kg_trim_i8_encode(kg.sk + 1 + 2u * fg_len, kg.big_f, n, 8u))
        return 0;
    pqh_shake256(kg.sk + 1 + 2u * fg_len + n, KG_HVK_BYTES, kg.vk, vk_len);
    for (uint32_t i = 0; i < vk_len; i++)
        vk[i] = kg.vk[i];
    for (uint32_t i = 0; i < sk_len; i++)
        sk[i] = kg.sk[i];
    return 1;
}

/* fndsa.keygen.pair.scalar: the portable FFT and the bit-by-bit divisions. */
uint32_t fndsa_keygen_pair_scalar(uint8_t sk[FNDSA_KEYGEN_MAX_SIGNING_KEY],
                                  uint8_t vk[FNDSA_KEYGEN_MAX_VERIFYING_KEY], const uint8_t *seed, uint32_t seed_len,
                                  uint32_t logn)
{
    static const struct fndsa_fxp_kernels portable = {
        fndsa_keygen_fft_scalar,        fndsa_keygen_ifft_scalar,    fndsa_keygen_div_selfadj_scalar,
        fndsa_keygen_invnorm_scalar,    fndsa_keygen_inv_mul2e_scalar,
    };
    return fndsa_keygen_pair_with(&portable, sk, vk, seed, seed_len, logn);
}
