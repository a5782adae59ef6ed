/*
 * FN-DSA v0.4 signing on the guest, whole: decoding the signing key (G recomputed through the NTT), the hedged seed,
 * the attempts (hash-to-point, Gram matrix, ffSampling with the Gaussian sampler, the lattice point, the norm check,
 * the compressed encoding). The same steps in the same order as pqhelium_core::fndsa::SigningKey::{decode, sign},
 * every floating-point step one of the signing kernels (fndsa_fpu.h, fndsa_sign_kernels.h).
 *
 * Written once over fp64.h: compiled as is, the kernels on the FPU (fndsa.sign), and again by fndsa_sign_emu.c on our
 * soft-float (fndsa.sign.emu, the portable build). Both builds use the scalar NTT (fndsa_ntt_scalar.c) and the scalar
 * Keccak sponge (kernels/arm/scheme/fips202.c).
 *
 * Request (fndsa_sign.h): five little-endian uint32_t lengths (signing key, context, hash identifier, hashed value,
 * randomness), then those byte strings back to back. The randomness is the 40 bytes the signer would draw.
 * Returns the signature's length (666 for logn 9, 1280 for logn 10) after writing it to sig, or 0, sig untouched,
 * when core's signer returns an error: a malformed request or key, f not invertible, G out of range, a context over 255 bytes,
 * an external mu that is not 64 bytes, a sampler that gives up, 27 attempts without a short vector.
 */
#include <stddef.h>
#include <stdint.h>

#include "../fndsa_fpu/fp64.h"
#include "../fndsa_ntt/fndsa_ntt_small.h"
#include "../scheme/fips202.h"
#include "fndsa_sign.h"

#define FS_Q 12289u
#define FS_MAX_N 1024u
#define FS_NONCE_BYTES 40u
#define FS_SEED_BYTES 40u
#define FS_MU_BYTES 64u
#define FS_HVK_BYTES 64u
#define FS_B_INF 840
/* floor(beta^2) and the signature size (header, nonce, compressed s2) at logn 9 and 10. */
#define FS_SQBETA_9 34034726u
#define FS_SQBETA_10 70265242u
#define FS_SIGNATURE_BYTES_9 666u
#define FS_SIGNATURE_BYTES_10 1280u
#define FS_MAX_ATTEMPTS 27u
#define FS_MAX_REJECTIONS 1000u
#define FS_ID_RAW 0x00u
#define FS_ID_EXTERNAL_MU 0xFEu

/* 1/q (the double nearest to it) and core::fndsa::sampler::{INV_SIGMA, SIGMA_MIN} as binary64 bit patterns, logn 9
 * and 10 (tests/fndsa_sign.rs checks every value against core). */
#define FS_INV_Q 0x3F1554E39097A782ull
#define FS_NEG_INV_Q 0xBF1554E39097A782ull
#define FS_INV_SIGMA_9 0x3F78B6C2DE64C7C9ull
#define FS_INV_SIGMA_10 0x3F78531EF6311AE2ull
#define FS_SIGMA_MIN_9 0x3FF47201BF1F7A75ull
#define FS_SIGMA_MIN_10 0x3FF4C5C19990C764ull

#define FS_KERNEL(name) FP64_KERNEL(name)

/* The base sampler's reverse cumulative distribution, 79-bit thresholds as (high 31, middle 24, low 24 bits). */
static const uint32_t fs_base_cdt[18][3] = {
    {1375468055u, 6936092u, 9176346u}, {711562636u, 1023934u, 15582455u}, {289335016u, 4826132u, 14746371u},
    {90749601u, 12313548u, 10843417u}, {21676598u, 5732767u, 9419414u},   {3908963u, 11171514u, 6206010u},
    {529006u, 11146683u, 11891888u},   {53503u, 15610582u, 11661180u},    {4032u, 7095613u, 11671091u},
    {225u, 16701698u, 407118u},        {9u, 6787688u, 1638204u},          {0u, 4870085u, 8687822u},
    {0u, 111406u, 13946073u},          {0u, 1887u, 12017202u},            {0u, 23u, 11452285u},
    {0u, 0u, 3689579u},                {0u, 0u, 25354u},                  {0u, 0u, 129u},
};

/* exp(-x) on [0, ln 2) in 64-bit fixed point, highest degree first (Horner). */
static const uint64_t fs_expm_coeffs[13] = {
    0x00000004741183A3ull, 0x00000036548CFC06ull, 0x0000024FDCBF140Aull, 0x0000171D939DE045ull,
    0x0000D00CF58F6F84ull, 0x000680681CF796E3ull, 0x002D82D8305B0FEAull, 0x011111110E066FD0ull,
    0x0555555555070F00ull, 0x155555555581FF00ull, 0x400000000002B400ull, 0x7FFFFFFFFFFF4800ull,
    0x8000000000000000ull,
};

/* The images link no C library: byte copies by hand, kept as loops (gcc would turn them into memcpy calls). */
#if defined(__GNUC__) && !defined(__clang__)
#define FS_NO_LIBC_CALLS __attribute__((optimize("no-tree-loop-distribute-patterns")))
#else
#define FS_NO_LIBC_CALLS
#endif

FS_NO_LIBC_CALLS static void fs_copy(fp64 *dst, const fp64 *src, uint32_t n)
{
    for (uint32_t i = 0; i < n; i++)
        dst[i] = src[i];
}

FS_NO_LIBC_CALLS static void fs_copy_bytes(uint8_t *dst, const uint8_t *src, uint32_t n)
{
    for (uint32_t i = 0; i < n; i++)
        dst[i] = src[i];
}

/* ---- The kernels' scalar entry points, by value on either build ---- */

#ifdef PQH_FP64_EMU
static fp64 fs_leaf_sigma(fp64 d, fp64 inv_sigma)
{
    uint64_t in[2] = {d, inv_sigma}, out;
    fndsa_fpu_leaf_sigma_emu(&out, in);
    return out;
}

static void fs_sampler_centre(struct fndsa_fpu_centre *c, fp64 mu, fp64 isigma, fp64 sigma_min)
{
    uint64_t in[3] = {mu, isigma, sigma_min};
    fndsa_fpu_sampler_centre_emu(c, in);
}
#else
static fp64 fs_leaf_sigma(fp64 d, fp64 inv_sigma)
{
    fp64 out;
    fndsa_fpu_leaf_sigma(&out, d, inv_sigma);
    return out;
}

static void fs_sampler_centre(struct fndsa_fpu_centre *c, fp64 mu, fp64 isigma, fp64 sigma_min)
{
    fndsa_fpu_sampler_centre(c, mu, isigma, sigma_min);
}
#endif

/* ---- The sampler: SHAKE256(seed) read as a byte stream ---- */

struct fs_sampler {
    struct pqh_keccak prng;
    uint32_t logn; /* of the whole scheme: the constants depend on it, not on the recursion depth */
    uint32_t gave_up;
};

static uint8_t fs_next_u8(struct fs_sampler *s)
{
    uint8_t b;
    pqh_keccak_squeeze(&s->prng, &b, 1);
    return b;
}

static uint64_t fs_next_u64(struct fs_sampler *s)
{
    uint8_t b[8];
    pqh_keccak_squeeze(&s->prng, b, 8);
    uint64_t x = 0;
    for (uint32_t i = 8; i-- > 0;)
        x = (x << 8) | b[i];
    return x;
}

static uint32_t fs_next_u16(struct fs_sampler *s)
{
    uint8_t b[2];
    pqh_keccak_squeeze(&s->prng, b, 2);
    return (uint32_t)b[0] | (uint32_t)b[1] << 8;
}

/* The high 64 bits of a 64 x 64-bit product, from 32-bit halves (no 128-bit type on the Cortex-M). */
static uint64_t fs_mul_hi(uint64_t a, uint64_t b)
{
    uint64_t a0 = (uint32_t)a, a1 = a >> 32, b0 = (uint32_t)b, b1 = b >> 32;
    uint64_t lo = a0 * b0, mid1 = a1 * b0, mid2 = a0 * b1, hi = a1 * b1;
    uint64_t cross = (lo >> 32) + (uint32_t)mid1 + (uint32_t)mid2;
    return hi + (mid1 >> 32) + (mid2 >> 32) + (cross >> 32);
}

static uint64_t fs_expm_p63(uint64_t rem_fx, uint64_t ccs_fx)
{
    uint64_t y = fs_expm_coeffs[0];
    for (uint32_t i = 1; i < 13u; i++)
        y = fs_expm_coeffs[i] - fs_mul_hi(rem_fx, y);
    return fs_mul_hi(ccs_fx, y);
}

/* z0 from the half-Gaussian and a uniform bit b, from 80 random bits. */
static int32_t fs_base(struct fs_sampler *s, int32_t *b)
{
    uint64_t lo = fs_next_u64(s);
    uint32_t hi = fs_next_u16(s);
    *b = (int32_t)(lo & 1u);
    uint32_t v0 = (uint32_t)(lo >> 1) & 0xFFFFFFu;
    uint32_t v1 = (uint32_t)(lo >> 25) & 0xFFFFFFu;
    uint32_t v2 = (uint32_t)(lo >> 49) | (hi << 15);
    int32_t z0 = 0;
    for (uint32_t i = 0; i < 18u; i++) {
        uint32_t c = (v0 - fs_base_cdt[i][2]) >> 31;
        c = (v1 - fs_base_cdt[i][1] - c) >> 31;
        c = (v2 - fs_base_cdt[i][0] - c) >> 31;
        z0 += (int32_t)c;
    }
    return z0;
}

/* True with probability ccs exp(-x), x = k ln2 + rem, reading bytes until they decide. */
static int fs_ber_exp(struct fs_sampler *s, int64_t k, uint64_t rem_fx, uint64_t ccs_fx)
{
    uint32_t kw = (uint32_t)k;
    uint32_t shift = (kw | ((63u - kw) >> 16)) & 63u;
    uint64_t z = ((fs_expm_p63(rem_fx, ccs_fx) << 1) - 1u) >> shift;
    for (uint32_t i = 0; i < 8u; i++) {
        uint8_t w = fs_next_u8(s);
        uint8_t bz = (uint8_t)(z >> (56u - 8u * i));
        if (w != bz)
            return w < bz;
    }
    return 0;
}

static int32_t fs_sample(struct fs_sampler *s, fp64 mu, fp64 isigma)
{
    if (s->gave_up)
        return 0;
    struct fndsa_fpu_centre centre;
    fp64 sigma_min = fp64_of_bits(s->logn == 9u ? FS_SIGMA_MIN_9 : FS_SIGMA_MIN_10);
    fs_sampler_centre(&centre, mu, isigma, sigma_min);
    for (uint32_t r = 0; r < FS_MAX_REJECTIONS; r++) {
        int32_t b;
        int32_t z0 = fs_base(s, &b);
        int32_t z = b + (2 * b - 1) * z0;
        struct fndsa_fpu_ber e;
        FS_KERNEL(fndsa_fpu_sampler_exponent)(&e, &centre, z, z0);
        if (fs_ber_exp(s, e.k, e.rem_fx, centre.ccs_fx))
            return centre.s + z;
    }
    s->gave_up = 1;
    return centre.s;
}

/* The n = 2 level of ffSampling. */
static void fs_ffsamp_leaf(struct fs_sampler *s, fp64 *t0, fp64 *t1, fp64 *g00, fp64 *g01, fp64 *g11)
{
    fp64 inv_sigma = fp64_of_bits(s->logn == 9u ? FS_INV_SIGMA_9 : FS_INV_SIGMA_10);
    FS_KERNEL(fndsa_fpu_ldl_fft)(g00, g01, g11, 1);
    fp64 isigma = fs_leaf_sigma(g11[0], inv_sigma);
    int32_t z[2];
    z[0] = fs_sample(s, t1[0], isigma);
    z[1] = fs_sample(s, t1[1], isigma);
    fp64 z1[2], w[2];
    FS_KERNEL(fndsa_fpu_set_small)(z1, z, 1);
    w[0] = t1[0];
    w[1] = t1[1];
    FS_KERNEL(fndsa_fpu_sub)(w, z1, 1);
    t1[0] = z1[0];
    t1[1] = z1[1];
    FS_KERNEL(fndsa_fpu_mul_fft)(g01, w, 1);
    FS_KERNEL(fndsa_fpu_add)(t0, g01, 1);
    isigma = fs_leaf_sigma(g00[0], inv_sigma);
    z[0] = fs_sample(s, t0[0], isigma);
    z[1] = fs_sample(s, t0[1], isigma);
    FS_KERNEL(fndsa_fpu_set_small)(t0, z, 1);
}

/* Fast Fourier sampling over the Gram matrix [[g00, g01], [adj(g01), g11]], destroyed; tmp holds 4n values. */
static void fs_ffsamp(struct fs_sampler *s, uint32_t logn, fp64 *t0, fp64 *t1, fp64 *g00, fp64 *g01, fp64 *g11,
                      fp64 *tmp)
{
    if (logn == 1u) {
        fs_ffsamp_leaf(s, t0, t1, g00, g01, g11);
        return;
    }
    uint32_t n = 1u << logn, hn = n >> 1;
    FS_KERNEL(fndsa_fpu_ldl_fft)(g00, g01, g11, logn);

    /* D00 and D11 split into the half-size Gram matrices of the two sub-trees; L10 moves to tmp[..n]. */
    fp64 *w0 = tmp, *w1 = tmp + hn;
    FS_KERNEL(fndsa_fpu_split_selfadj_fft)(w0, w1, g00, logn);
    fs_copy(g00, w0, hn);
    fs_copy(g00 + hn, w1, hn);
    FS_KERNEL(fndsa_fpu_split_selfadj_fft)(w0, w1, g11, logn);
    fs_copy(g11, w0, hn);
    fs_copy(g11 + hn, w1, hn);
    fs_copy(tmp, g01, n);
    fs_copy(g01, g00, hn);
    fs_copy(g01 + hn, g11, hn);
    fp64 *left_00 = g00, *left_01 = g00 + hn, *right_00 = g11, *right_01 = g11 + hn;
    fp64 *left_11 = g01, *right_11 = g01 + hn;

    /* Right sub-tree on t1, with tmp[2n..] as its scratch; z1 lands in tmp[2n..3n]. */
    fp64 *l10 = tmp, *w = tmp + n, *rest = tmp + 2u * n;
    FS_KERNEL(fndsa_fpu_split_fft)(w, w + hn, t1, logn);
    fs_ffsamp(s, logn - 1u, w, w + hn, right_00, right_01, right_11, rest);
    FS_KERNEL(fndsa_fpu_merge_fft)(rest, w, w + hn, logn);
    const fp64 *z1 = rest;

    /* tb0 = t0 + (t1 - z1) L10 into t0; z1 becomes the output t1. */
    fs_copy(w, t1, n);
    FS_KERNEL(fndsa_fpu_sub)(w, z1, logn);
    fs_copy(t1, z1, n);
    FS_KERNEL(fndsa_fpu_mul_fft)(l10, w, logn);
    FS_KERNEL(fndsa_fpu_add)(t0, l10, logn);

    /* Left sub-tree on tb0 (tmp is free again). */
    w0 = tmp;
    w1 = tmp + hn;
    FS_KERNEL(fndsa_fpu_split_fft)(w0, w1, t0, logn);
    fs_ffsamp(s, logn - 1u, w0, w1, left_00, left_01, left_11, tmp + n);
    FS_KERNEL(fndsa_fpu_merge_fft)(t0, w0, w1, logn);
}

/* ---- The signing key ---- */

/* Everything signing keeps between steps, static (the stack stays small): n = 1024 at most. */
static struct {
    int8_t f[FS_MAX_N], g[FS_MAX_N], big_f[FS_MAX_N], big_g[FS_MAX_N];
    int16_t ntt_a[FS_MAX_N], ntt_b[FS_MAX_N], ntt_c[FS_MAX_N];
    uint8_t hashed_vk[FS_HVK_BYTES], hashed_sk[FS_SEED_BYTES];
    uint16_t hm[FS_MAX_N];
    int64_t r0[FS_MAX_N], r1[FS_MAX_N];
    int16_t s2[FS_MAX_N];
    int32_t small[FS_MAX_N]; /* a polynomial on its way to set_small */
    uint8_t sig[FNDSA_SIGN_MAX_SIGNATURE]; /* an attempt's signature: the caller's buffer is written on success only */
    fp64 basis[4u * FS_MAX_N]; /* b00 = g, b01 = -f, b10 = G, b11 = -F, FFT form */
    fp64 g00[FS_MAX_N], g01[FS_MAX_N], g11[FS_MAX_N], t0[FS_MAX_N], t1[FS_MAX_N], tmp[4u * FS_MAX_N];
} fs;

static uint32_t fs_small_bits(uint32_t logn)
{
    return logn <= 5u ? 8u : logn <= 7u ? 7u : logn <= 9u ? 6u : 5u;
}

/* n coefficients of `bits` bits each (two's complement, LSB first); 0 if one is the forbidden -2^(bits-1). */
static uint32_t fs_trim_i8_decode(int8_t *v, const uint8_t *d, uint32_t n, uint32_t bits)
{
    uint32_t mask = (1u << bits) - 1u, sign = 1u << (bits - 1u);
    uint32_t acc = 0, acc_bits = 0, k = 0;
    for (uint32_t i = 0; k < n; i++) {
        acc |= (uint32_t)d[i] << acc_bits;
        acc_bits += 8u;
        while (acc_bits >= bits && k < n) {
            uint32_t w = acc & mask;
            acc >>= bits;
            acc_bits -= bits;
            if (w == sign)
                return 0;
            v[k++] = (int8_t)((int32_t)(w ^ sign) - (int32_t)sign);
        }
    }
    return 1;
}

/* A canonical residue (the scalar NTT's outputs are in [0, q-1]) centred in [-(q-1)/2, (q-1)/2], with a mask: no
 * division and no branch on the key's values. */
static int16_t fs_centred(int32_t x)
{
    uint32_t above_half = (uint32_t)((int32_t)(FS_Q / 2u) - x) >> 31;
    uint32_t mask = 0u - above_half;
    __asm__("" : "+r"(mask)); /* opaque, or clang predicates the subtraction on the key's coefficient (IT block) */
    return (int16_t)(x - (int32_t)(FS_Q & mask));
}

/* G = g F / f mod q, centred; 0 if f is not invertible or a coefficient of G lies outside [-127, 127]. G is
 * determined by f, g and F, so any exact route gives core's value: here the scalar NTT, 1/f as f^(q-2). */
static uint32_t fs_compute_big_g(uint32_t logn)
{
    uint32_t n = 1u << logn;
    int16_t *f_ntt = fs.ntt_a;
    fndsa_ntt_small(logn, f_ntt, fs.f);
    for (uint32_t i = 0; i < n; i++)
        if (f_ntt[i] == 0)
            return 0;
    int16_t *inv = fndsa_ntt_inverse(logn, f_ntt, fs.ntt_b, fs.ntt_c);
    int16_t *t = inv == fs.ntt_b ? fs.ntt_c : fs.ntt_b;
    fndsa_ntt_small(logn, t, fs.g);
    fndsa_ntt_mul_at(logn, f_ntt, inv, t); /* h = g / f, over f's NTT */
    fndsa_ntt_small(logn, t, fs.big_f);
    fndsa_ntt_mul_at(logn, inv, f_ntt, t); /* G = h F */
    fndsa_ntt_inv_at(logn, inv);
    for (uint32_t i = 0; i < n; i++) {
        int16_t x = fs_centred(inv[i]);
        if (x < -127 || x > 127)
            return 0;
        fs.big_g[i] = (int8_t)x;
    }
    return 1;
}

static void fs_set_small_i8(fp64 *d, const int8_t *v, uint32_t logn)
{
    for (uint32_t i = 0; i < (1u << logn); i++)
        fs.small[i] = v[i];
    FS_KERNEL(fndsa_fpu_set_small)(d, fs.small, logn);
}

/* Decodes 0x50 + logn || f || g || F || SHAKE256(vk) (logn 9 or 10) and precomputes what signing needs. */
static uint32_t fs_decode_key(const uint8_t *sk, uint32_t sk_len, uint32_t *logn_out)
{
    if (sk_len < 1u || (sk[0] & 0xF0u) != 0x50u)
        return 0;
    uint32_t logn = sk[0] & 0x0Fu;
    if (logn != 9u && logn != 10u)
        return 0;
    uint32_t n = 1u << logn, bits = fs_small_bits(logn);
    uint32_t fg_len = n * bits / 8u;
    if (sk_len != 1u + 2u * fg_len + n + FS_HVK_BYTES)
        return 0;
    if (!fs_trim_i8_decode(fs.f, sk + 1, n, bits) || !fs_trim_i8_decode(fs.g, sk + 1 + fg_len, n, bits) ||
        !fs_trim_i8_decode(fs.big_f, sk + 1 + 2u * fg_len, n, 8u))
        return 0;
    fs_copy_bytes(fs.hashed_vk, sk + 1 + 2u * fg_len + n, FS_HVK_BYTES);
    pqh_shake256(fs.hashed_sk, FS_SEED_BYTES, sk + 1, 2u * fg_len);
    if (!fs_compute_big_g(logn))
        return 0;
    fp64 *b00 = fs.basis, *b01 = b00 + n, *b10 = b01 + n, *b11 = b10 + n;
    const int8_t *polys[4] = {fs.g, fs.f, fs.big_g, fs.big_f};
    fp64 *dst[4] = {b00, b01, b10, b11};
    for (uint32_t i = 0; i < 4u; i++) {
        fs_set_small_i8(dst[i], polys[i], logn);
        FS_KERNEL(fndsa_fpu_fft)(dst[i], logn);
    }
    FS_KERNEL(fndsa_fpu_neg)(b01, logn);
    FS_KERNEL(fndsa_fpu_neg)(b11, logn);
    *logn_out = logn;
    return 1;
}

/* ---- Signing ---- */

struct fs_bytes {
    const uint8_t *p;
    uint32_t len;
};

/* c = hash-to-point(nonce || mu): 16-bit little-endian words below 5q, reduced mod q. */
static void fs_hash_to_point(uint32_t logn, const uint8_t *nonce, const uint8_t *mu)
{
    struct pqh_keccak k;
    pqh_keccak_init(&k, PQH_SHAKE256_RATE);
    pqh_keccak_absorb(&k, nonce, FS_NONCE_BYTES);
    pqh_keccak_absorb(&k, mu, FS_MU_BYTES);
    pqh_keccak_finalize(&k, PQH_SHAKE_DOMAIN);
    for (uint32_t filled = 0; filled < (1u << logn);) {
        uint8_t word[2];
        pqh_keccak_squeeze(&k, word, 2);
        uint32_t w = (uint32_t)word[0] | (uint32_t)word[1] << 8;
        if (w < 5u * FS_Q)
            fs.hm[filled++] = (uint16_t)(w % FS_Q);
    }
}

/* s2 compressed into exactly capacity bytes (sign, 7 low bits of |x|, |x| >> 7 in unary); 0 if it does not fit or a
 * magnitude exceeds B_inf. */
static uint32_t fs_comp_encode(uint8_t *out, const int16_t *s, uint32_t n, uint32_t capacity)
{
    for (uint32_t i = 0; i < capacity; i++)
        out[i] = 0;
    uint32_t bit = 0, total = 8u * capacity;
    for (uint32_t i = 0; i < n; i++) {
        int32_t x = s[i];
        uint32_t magnitude = (uint32_t)(x < 0 ? -x : x);
        if (magnitude > (uint32_t)FS_B_INF)
            return 0;
        uint32_t high = magnitude >> 7;
        if (bit + 8u + high + 1u > total)
            return 0;
        uint32_t head = (uint32_t)(x < 0) | (magnitude & 0x7Fu) << 1;
        for (uint32_t k = 0; k < 8u; k++, bit++)
            out[bit / 8u] |= (uint8_t)(((head >> k) & 1u) << (bit % 8u));
        bit += high;
        out[bit / 8u] |= (uint8_t)(1u << (bit % 8u));
        bit++;
    }
    return 1;
}

/* One attempt: the signature in sig if (s1, s2) is short and s2 fits, else 0. */
static uint32_t fs_attempt(uint8_t *sig, struct fs_sampler *s, uint32_t logn, const uint8_t *nonce, const uint8_t *mu)
{
    uint32_t n = 1u << logn;
    fs_hash_to_point(logn, nonce, mu);
    const fp64 *b00 = fs.basis, *b01 = b00 + n, *b10 = b01 + n, *b11 = b10 + n;
    fp64 *g00 = fs.g00, *g01 = fs.g01, *g11 = fs.g11, *t0 = fs.t0, *t1 = fs.t1, *tmp = fs.tmp;

    /* Gram matrix G = B adj(B). */
    fs_copy(g00, b00, n);
    FS_KERNEL(fndsa_fpu_mulownadj_fft)(g00, logn);
    fs_copy(tmp, b01, n);
    FS_KERNEL(fndsa_fpu_mulownadj_fft)(tmp, logn);
    FS_KERNEL(fndsa_fpu_add)(g00, tmp, logn);
    fs_copy(g01, b00, n);
    FS_KERNEL(fndsa_fpu_muladj_fft)(g01, b10, logn);
    fs_copy(tmp, b01, n);
    FS_KERNEL(fndsa_fpu_muladj_fft)(tmp, b11, logn);
    FS_KERNEL(fndsa_fpu_add)(g01, tmp, logn);
    fs_copy(g11, b10, n);
    FS_KERNEL(fndsa_fpu_mulownadj_fft)(g11, logn);
    fs_copy(tmp, b11, n);
    FS_KERNEL(fndsa_fpu_mulownadj_fft)(tmp, logn);
    FS_KERNEL(fndsa_fpu_add)(g11, tmp, logn);

    /* Target (c, 0) B^-1: t0 = c b11 / q, t1 = -c b01 / q. */
    for (uint32_t i = 0; i < n; i++)
        fs.small[i] = fs.hm[i];
    FS_KERNEL(fndsa_fpu_set_small)(t0, fs.small, logn);
    FS_KERNEL(fndsa_fpu_fft)(t0, logn);
    fs_copy(t1, t0, n);
    FS_KERNEL(fndsa_fpu_mul_fft)(t1, b01, logn);
    FS_KERNEL(fndsa_fpu_mulconst)(t1, logn, fp64_of_bits(FS_NEG_INV_Q));
    FS_KERNEL(fndsa_fpu_mul_fft)(t0, b11, logn);
    FS_KERNEL(fndsa_fpu_mulconst)(t0, logn, fp64_of_bits(FS_INV_Q));

    fs_ffsamp(s, logn, t0, t1, g00, g01, g11, tmp);

    /* Lattice point (t0, t1) B, back to coefficients. */
    fp64 *tx = tmp, *ty = tmp + n;
    fs_copy(tx, t0, n);
    fs_copy(ty, t1, n);
    FS_KERNEL(fndsa_fpu_mul_fft)(tx, b00, logn);
    FS_KERNEL(fndsa_fpu_mul_fft)(ty, b10, logn);
    FS_KERNEL(fndsa_fpu_add)(tx, ty, logn);
    fs_copy(ty, t0, n);
    FS_KERNEL(fndsa_fpu_mul_fft)(ty, b01, logn);
    fs_copy(t0, tx, n);
    FS_KERNEL(fndsa_fpu_mul_fft)(t1, b11, logn);
    FS_KERNEL(fndsa_fpu_add)(t1, ty, logn);
    FS_KERNEL(fndsa_fpu_ifft)(t0, logn);
    FS_KERNEL(fndsa_fpu_ifft)(t1, logn);
    FS_KERNEL(fndsa_fpu_round)(fs.r0, t0, logn);
    FS_KERNEL(fndsa_fpu_round)(fs.r1, t1, logn);

    /* s1 = c - round(t0), s2 = -round(t1) on 16 bits; the squared norm wraps on 32 bits, the sticky flag catches a
     * wrap and |s1| > B_inf. */
    uint32_t sqn = 0, flag = 0;
    for (uint32_t i = 0; i < n; i++) {
        int32_t z = (int16_t)(uint16_t)((uint32_t)fs.hm[i] - (uint32_t)fs.r0[i]);
        sqn += (uint32_t)(z * z);
        flag |= sqn | (uint32_t)(FS_B_INF - z) | (uint32_t)(FS_B_INF + z);
    }
    for (uint32_t i = 0; i < n; i++) {
        int32_t z = (int16_t)(uint16_t)(0u - (uint32_t)fs.r1[i]);
        fs.s2[i] = (int16_t)z;
        sqn += (uint32_t)(z * z);
        flag |= sqn;
    }
    uint32_t sqbeta = logn == 9u ? FS_SQBETA_9 : FS_SQBETA_10;
    if ((flag >> 31) != 0 || sqn > sqbeta)
        return 0;
    uint32_t size = logn == 9u ? FS_SIGNATURE_BYTES_9 : FS_SIGNATURE_BYTES_10;
    sig[0] = (uint8_t)(0x30u + logn);
    fs_copy_bytes(sig + 1, nonce, FS_NONCE_BYTES);
    return fs_comp_encode(sig + 1 + FS_NONCE_BYTES, fs.s2, n, size - 1u - FS_NONCE_BYTES) ? size : 0;
}

static uint32_t fs_read_u32(const uint8_t *p)
{
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

#ifdef PQH_FP64_EMU
#define FS_SIGN fndsa_sign_emu
#else
#define FS_SIGN fndsa_sign
#endif

uint32_t FS_SIGN(uint8_t sig[FNDSA_SIGN_MAX_SIGNATURE], const uint8_t *request, uint32_t request_len)
{
    /* The framing: five lengths, then the fields, exactly request_len bytes. */
    if (request_len < FNDSA_SIGN_HEADER_BYTES)
        return 0;
    struct fs_bytes field[FNDSA_SIGN_FIELDS];
    uint32_t at = FNDSA_SIGN_HEADER_BYTES;
    for (uint32_t i = 0; i < FNDSA_SIGN_FIELDS; i++) {
        uint32_t len = fs_read_u32(request + 4u * i);
        if (len > request_len - at)
            return 0;
        field[i] = (struct fs_bytes){request + at, len};
        at += len;
    }
    if (at != request_len)
        return 0;
    const struct fs_bytes sk = field[0], ctx = field[1], id = field[2], hv = field[3], rng = field[4];
    if (rng.len != FS_SEED_BYTES)
        return 0;

    uint32_t logn;
    if (!fs_decode_key(sk.p, sk.len, &logn))
        return 0;

    /* mu: given (external mu, 64 bytes), or SHAKE256(hvk || pre-hashed? || len(ctx) || ctx [|| id] || hv). */
    uint8_t mu[FS_MU_BYTES];
    if (id.len == 1u && id.p[0] == FS_ID_EXTERNAL_MU) {
        if (hv.len != FS_MU_BYTES)
            return 0;
        fs_copy_bytes(mu, hv.p, FS_MU_BYTES);
    } else {
        if (ctx.len > 255u)
            return 0;
        uint32_t raw = id.len == 1u && id.p[0] == FS_ID_RAW;
        uint8_t head[2] = {(uint8_t)!raw, (uint8_t)ctx.len};
        struct pqh_keccak k;
        pqh_keccak_init(&k, PQH_SHAKE256_RATE);
        pqh_keccak_absorb(&k, fs.hashed_vk, FS_HVK_BYTES);
        pqh_keccak_absorb(&k, head, 2);
        pqh_keccak_absorb(&k, ctx.p, ctx.len);
        if (!raw)
            pqh_keccak_absorb(&k, id.p, id.len);
        pqh_keccak_absorb(&k, hv.p, hv.len);
        pqh_keccak_finalize(&k, PQH_SHAKE_DOMAIN);
        pqh_keccak_squeeze(&k, mu, FS_MU_BYTES);
    }

    /* Hedged seed: the caller's randomness bound to the key and the message, then a counter per attempt. */
    uint8_t seed[FS_SEED_BYTES + 1u];
    {
        struct pqh_keccak k;
        pqh_keccak_init(&k, PQH_SHAKE256_RATE);
        pqh_keccak_absorb(&k, fs.hashed_sk, FS_SEED_BYTES);
        pqh_keccak_absorb(&k, mu, FS_MU_BYTES);
        pqh_keccak_absorb(&k, rng.p, FS_SEED_BYTES);
        pqh_keccak_finalize(&k, PQH_SHAKE_DOMAIN);
        pqh_keccak_squeeze(&k, seed, FS_SEED_BYTES);
    }
    for (uint32_t counter = 0; counter < FS_MAX_ATTEMPTS; counter++) {
        seed[FS_SEED_BYTES] = (uint8_t)counter;
        struct fs_sampler s; /* no initialiser: clang would clear it with a C library call */
        s.logn = logn;
        s.gave_up = 0;
        pqh_keccak_init(&s.prng, PQH_SHAKE256_RATE);
        pqh_keccak_absorb(&s.prng, seed, sizeof seed);
        pqh_keccak_finalize(&s.prng, PQH_SHAKE_DOMAIN);
        uint8_t nonce[FS_NONCE_BYTES];
        pqh_keccak_squeeze(&s.prng, nonce, FS_NONCE_BYTES);
        uint32_t size = fs_attempt(fs.sig, &s, logn, nonce, mu);
        if (s.gave_up)
            return 0;
        if (size != 0) {
            fs_copy_bytes(sig, fs.sig, size);
            return size;
        }
    }
    return 0;
}
