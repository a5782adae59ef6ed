/*
 * ML-KEM-768 (FIPS 203), portable build: scalar C throughout, the scalar Keccak-f[1600] kernel under FIPS 202
 * (fips202.c, through pqm4's fips202.h API), and the scalar ML-KEM kernels (mlkem_ntt_scalar.c,
 * mlkem_poly_scalar.c) for the NTT, the products, compression and encoding, within the input bounds their contracts
 * state (noted at each use). Built again as the MVE build by mlkem768_mve/kem_mve.mve.c: the same code on the MVE
 * kernels (KERNEL below). Randomness from
 * randombytes (the NIST DRBG on the bench), drawn as the NIST KAT procedure expects: 64 bytes d || z for a key pair,
 * 32 bytes m for an encapsulation. Like pqm4's and PQClean's, crypto_kem_enc does not run the encapsulation-key
 * check of FIPS 203 section 7.2.
 */
#include "api.h"
#include "fips202.h"
#include "mlkem_poly.h"
#include "randombytes.h"

#define N 256
#define K MLKEM_K
#define SYM 32                 /* seeds, hashes, messages, shared secrets */
#define POLY_BYTES 384         /* ByteEncode_12 */
#define POLYVEC_BYTES (K * POLY_BYTES)
#define DU_POLY_BYTES 320      /* ByteEncode_10 */
#define DV_POLY_BYTES 128      /* ByteEncode_4 */
#define ETA_PRF_BYTES 128      /* 64 eta with eta1 = eta2 = 2 */
#define PK_BYTES (POLYVEC_BYTES + SYM)
#define SK_PKE_BYTES POLYVEC_BYTES
#define CT_U_BYTES (K * DU_POLY_BYTES)

_Static_assert(CRYPTO_PUBLICKEYBYTES == PK_BYTES, "api.h");
_Static_assert(CRYPTO_SECRETKEYBYTES == SK_PKE_BYTES + PK_BYTES + 2 * SYM, "api.h");
_Static_assert(CRYPTO_CIPHERTEXTBYTES == CT_U_BYTES + DV_POLY_BYTES, "api.h");

typedef int16_t poly[N];

/* The build's kernels: the scalar baselines (FIPS order), or the MVE kernels (mlkem768_mve/), which keep every
 * polynomial in the MVE storage order from sampling to encoding. Both have the same bounds (mlkem_ntt.h). */
#ifdef PQH_MLKEM768_MVE
#define KERNEL(name) mlkem_##name##_mve
#else
#define KERNEL(name) mlkem_##name##_scalar
#endif

static void copy(uint8_t *dst, const uint8_t *src, unsigned len)
{
    for (unsigned i = 0; i < len; i++)
        dst[i] = src[i];
}

/* A sampled polynomial (FIPS order) into the kernels' order: the MVE build's one conversion, on the way in. */
static void to_kernel_order(int16_t p[N])
{
#ifdef PQH_MLKEM768_MVE
    poly fips;
    for (unsigned i = 0; i < N; i++)
        fips[i] = p[i];
    mlkem_to_mve(p, fips);
#else
    (void)p;
#endif
}

/* Algorithm 7's rejection sampling of one XOF block: its 12-bit candidates below q appended to a from a[n], up to
 * N; returns the new n. Its branches depend on rho, public: `pqhelium scheme --ct-pairs` explains differences in
 * the sample_ntt* functions (schemes/src/scheme_ct.rs). */
static unsigned sample_ntt_block(int16_t *a, unsigned n, const uint8_t block[SHAKE128_RATE])
{
    for (unsigned b = 0; b + 3 <= SHAKE128_RATE && n < N; b += 3) {
        uint16_t d1 = (uint16_t)(block[b] | ((block[b + 1] & 0x0Fu) << 8));
        uint16_t d2 = (uint16_t)((block[b + 1] >> 4) | (block[b + 2] << 4));
        if (d1 < MLKEM_Q)
            a[n++] = (int16_t)d1;
        if (d2 < MLKEM_Q && n < N)
            a[n++] = (int16_t)d2;
    }
    return n;
}

/* SampleNTT (Algorithm 7) of XOF(rho || i || j): canonical coefficients in FIPS order. */
static void sample_ntt(int16_t *a, const uint8_t rho[SYM], uint8_t i, uint8_t j)
{
    shake128ctx xof;
    uint8_t in[SYM + 2], block[SHAKE128_RATE];
    copy(in, rho, SYM);
    in[SYM] = i;
    in[SYM + 1] = j;
    shake128_absorb(&xof, in, sizeof in);
    unsigned n = 0;
    while (n < N) {
        shake128_squeezeblocks(block, 1, &xof);
        n = sample_ntt_block(a, n, block);
    }
    shake128_ctx_release(&xof);
}

#ifndef PQH_MLKEM768_MVE
/* The matrix A-hat (Algorithm 13: A[i][j] = SampleNTT(rho || j || i)), or its transpose, as matvec_k3's rows. */
static void gen_matrix(int16_t a[K * K * N], const uint8_t rho[SYM], int transposed)
{
    for (uint8_t i = 0; i < K; i++)
        for (uint8_t j = 0; j < K; j++)
            sample_ntt(&a[(K * i + j) * N], rho, transposed ? i : j, transposed ? j : i);
}
#else
#include "keccak.h"

#define X4 4u
#define STATE_WORDS 50u

/* Four sponges whose inputs fit one block (len < rate): state e (< count) starts from in[e] padded with the SHAKE
 * domain byte and the final bit, interleaved into the four-way layout; the other states run idle from zero. */
static void x4_absorb_one_block(uint32_t x4[X4 * STATE_WORDS], const uint8_t in[X4][SYM + 2], unsigned len,
                                unsigned rate, unsigned count)
{
    uint32_t lanes[STATE_WORDS], words[STATE_WORDS];
    uint8_t *bytes = (uint8_t *)lanes; /* little-endian target: byte i of the state */
    for (unsigned e = 0; e < X4; e++) {
        for (unsigned w = 0; w < STATE_WORDS; w++)
            lanes[w] = 0;
        if (e < count) {
            copy(bytes, in[e], len);
            bytes[len] = PQH_SHAKE_DOMAIN;
            bytes[rate - 1] |= 0x80u;
        }
        keccak_interleave_mve(words, lanes);
        for (unsigned w = 0; w < STATE_WORDS; w++)
            x4[KECCAK_X4_WORD(w, e)] = words[w];
    }
}

/* State e of the four-way layout, as standard lanes (its bytes in order). */
static void x4_state_lanes(uint32_t lanes[STATE_WORDS], const uint32_t x4[X4 * STATE_WORDS], unsigned e)
{
    uint32_t words[STATE_WORDS];
    for (unsigned w = 0; w < STATE_WORDS; w++)
        words[w] = x4[KECCAK_X4_WORD(w, e)];
    keccak_deinterleave_mve(lanes, words);
}

/* SampleNTT of up to four matrix entries at once on the four-way MVE Keccak (keccak.f1600x4.mve): entry e (< count)
 * is XOF(rho || ij[e]) into a[e]. Every squeeze is one four-way permutation and one deinterleaving per entry still
 * short of N coefficients. */
static void sample_ntt_x4(int16_t *a[X4], const uint8_t rho[SYM], const uint8_t ij[X4][2], unsigned count)
{
    uint32_t x4[X4 * STATE_WORDS], lanes[STATE_WORDS];
    uint8_t in[X4][SYM + 2];
    for (unsigned e = 0; e < count; e++) {
        copy(in[e], rho, SYM);
        in[e][SYM] = ij[e][0];
        in[e][SYM + 1] = ij[e][1];
    }
    x4_absorb_one_block(x4, in, SYM + 2, PQH_SHAKE128_RATE, count);
    unsigned n[X4] = {0, 0, 0, 0}, short_of_n = count;
    while (short_of_n > 0) {
        keccak_f1600x4_interleaved(x4);
        short_of_n = 0;
        for (unsigned e = 0; e < count; e++) {
            if (n[e] == N)
                continue;
            x4_state_lanes(lanes, x4, e);
            n[e] = sample_ntt_block(a[e], n[e], (const uint8_t *)lanes);
            short_of_n += n[e] < N;
        }
    }
}

/* The matrix A-hat (Algorithm 13: A[i][j] = SampleNTT(rho || j || i)), or its transpose, as matvec_k3's rows: nine
 * entries in groups of four and the last one alone, each in the kernels' order. */
static void gen_matrix(int16_t a[K * K * N], const uint8_t rho[SYM], int transposed)
{
    for (unsigned first = 0; first < K * K; first += X4) {
        int16_t *entries[X4];
        uint8_t ij[X4][2];
        unsigned count = K * K - first < X4 ? K * K - first : X4;
        for (unsigned e = 0; e < count; e++) {
            unsigned i = (first + e) / K, j = (first + e) % K;
            entries[e] = &a[(first + e) * N];
            ij[e][0] = (uint8_t)(transposed ? i : j);
            ij[e][1] = (uint8_t)(transposed ? j : i);
        }
        if (count == 1) /* one entry: the scalar permutation costs less than a whole four-way call */
            sample_ntt(entries[0], rho, ij[0][0], ij[0][1]);
        else
            sample_ntt_x4(entries, rho, ij, count);
        for (unsigned e = 0; e < count; e++)
            to_kernel_order(entries[e]);
    }
}
#endif

/* SamplePolyCBD_2 (Algorithm 8) of PRF_2's 128 bytes: coefficients in [-2, 2], in the kernels' order. */
static void cbd2(int16_t p[N], const uint8_t buf[ETA_PRF_BYTES])
{
    for (unsigned i = 0; i < ETA_PRF_BYTES; i++) {
        uint8_t b = buf[i];
        unsigned bits = (b & 0x55u) + ((b >> 1) & 0x55u); /* four 2-bit sums */
        p[2 * i] = (int16_t)((int)(bits & 3u) - (int)((bits >> 2) & 3u));
        p[2 * i + 1] = (int16_t)((int)((bits >> 4) & 3u) - (int)((bits >> 6) & 3u));
    }
    to_kernel_order(p);
}

/* The noise polynomials p[k] = SamplePolyCBD_2(PRF_2(sigma, k)) for k < count (Algorithms 13 and 14 number theirs
 * from 0 without gaps). The portable build runs one SHAKE256 per polynomial; the MVE build four at a time on the
 * four-way MVE Keccak, where PRF_2's 33 input and 128 output bytes both fit one SHAKE256 block: one four-way
 * permutation per four polynomials. */
static void sample_noise(int16_t *const p[], const uint8_t sigma[SYM], unsigned count)
{
#ifdef PQH_MLKEM768_MVE
    for (unsigned first = 0; first < count; first += X4) {
        uint32_t x4[X4 * STATE_WORDS], lanes[STATE_WORDS];
        uint8_t in[X4][SYM + 2];
        unsigned group = count - first < X4 ? count - first : X4;
        for (unsigned e = 0; e < group; e++) {
            copy(in[e], sigma, SYM);
            in[e][SYM] = (uint8_t)(first + e);
        }
        x4_absorb_one_block(x4, in, SYM + 1, PQH_SHAKE256_RATE, group);
        keccak_f1600x4_interleaved(x4);
        for (unsigned e = 0; e < group; e++) {
            x4_state_lanes(lanes, x4, e);
            cbd2(p[first + e], (const uint8_t *)lanes);
        }
    }
#else
    for (unsigned k = 0; k < count; k++) {
        uint8_t in[SYM + 1], buf[ETA_PRF_BYTES];
        copy(in, sigma, SYM);
        in[SYM] = (uint8_t)k;
        shake256(buf, sizeof buf, in, sizeof in);
        cbd2(p[k], buf);
    }
#endif
}

/* K-PKE.KeyGen (Algorithm 13) from d. */
static void pke_keypair(uint8_t pk[PK_BYTES], uint8_t sk[SK_PKE_BYTES], const uint8_t d[SYM])
{
    int16_t a[K * K * N], s[K * N], e[K * N], t[K * N];
    uint8_t seed_in[SYM + 1], rho_sigma[2 * SYM];
    copy(seed_in, d, SYM);
    seed_in[SYM] = K;
    sha3_512(rho_sigma, seed_in, sizeof seed_in);
    const uint8_t *rho = rho_sigma, *sigma = rho_sigma + SYM;
    gen_matrix(a, rho, 0);
    int16_t *noise[2 * K]; /* s_i, then e_i */
    for (unsigned i = 0; i < K; i++) {
        noise[i] = &s[i * N];
        noise[K + i] = &e[i * N];
    }
    sample_noise(noise, sigma, 2 * K);
    for (unsigned i = 0; i < K; i++) {
        KERNEL(ntt_fwd)(&s[i * N]); /* in |x| <= 2 */
        KERNEL(ntt_fwd)(&e[i * N]);
    }
    KERNEL(matvec_k3)(t, a, s); /* a canonical (< MLKEM_DOT_A_MAX), s any */
    for (unsigned i = 0; i < K; i++) {
        /* |t| <= MLKEM_DOT_OUT_MAX, |e| <= MLKEM_FWD_OUT_MAX: within add's bounds */
        KERNEL(poly_add)(&t[i * N], &t[i * N], &e[i * N]);
        KERNEL(poly_reduce)(&t[i * N]);
        KERNEL(encode12)(&pk[i * POLY_BYTES], &t[i * N]);
        KERNEL(poly_reduce)(&s[i * N]);
        KERNEL(encode12)(&sk[i * POLY_BYTES], &s[i * N]);
    }
    copy(&pk[POLYVEC_BYTES], rho, SYM);
}

/* K-PKE.Encrypt (Algorithm 14). */
static void pke_encrypt(uint8_t ct[CRYPTO_CIPHERTEXTBYTES], const uint8_t pk[PK_BYTES], const uint8_t m[SYM],
                        const uint8_t coins[SYM])
{
    int16_t at[K * K * N], t[K * N], r[K * N], e1[K * N], u[K * N];
    poly e2, v, mu;
    for (unsigned i = 0; i < K; i++)
        KERNEL(decode12)(&t[i * N], &pk[i * POLY_BYTES]); /* canonical */
    gen_matrix(at, &pk[POLYVEC_BYTES], 1);
    int16_t *noise[2 * K + 1]; /* r_i, then e1_i, then e2 */
    for (unsigned i = 0; i < K; i++) {
        noise[i] = &r[i * N];
        noise[K + i] = &e1[i * N];
    }
    noise[2 * K] = e2;
    sample_noise(noise, coins, 2 * K + 1);
    for (unsigned i = 0; i < K; i++)
        KERNEL(ntt_fwd)(&r[i * N]);
    KERNEL(matvec_k3)(u, at, r);
    KERNEL(dot_k3)(v, t, r);
    for (unsigned i = 0; i < K; i++) {
        KERNEL(ntt_inv)(&u[i * N]); /* out |x| <= MLKEM_INV_OUT_MAX */
        KERNEL(poly_add)(&u[i * N], &u[i * N], &e1[i * N]);
        KERNEL(compress_du10)(&ct[i * DU_POLY_BYTES], &u[i * N]);
    }
    KERNEL(ntt_inv)(v);
    KERNEL(poly_add)(v, v, e2);
    KERNEL(decompress_d1)(mu, m); /* 0 or (q + 1) / 2 */
    KERNEL(poly_add)(v, v, mu);
    KERNEL(compress_dv4)(&ct[CT_U_BYTES], v);
}

/* K-PKE.Decrypt (Algorithm 15). */
static void pke_decrypt(uint8_t m[SYM], const uint8_t sk[SK_PKE_BYTES], const uint8_t ct[CRYPTO_CIPHERTEXTBYTES])
{
    int16_t u[K * N], s[K * N];
    poly v, w;
    for (unsigned i = 0; i < K; i++) {
        KERNEL(decompress_du10)(&u[i * N], &ct[i * DU_POLY_BYTES]); /* canonical */
        KERNEL(ntt_fwd)(&u[i * N]);
        KERNEL(decode12)(&s[i * N], &sk[i * POLY_BYTES]);
    }
    KERNEL(decompress_dv4)(v, &ct[CT_U_BYTES]);
    KERNEL(dot_k3)(w, s, u);
    KERNEL(ntt_inv)(w);
    KERNEL(poly_sub)(w, v, w); /* |v| < q, |w| <= MLKEM_INV_OUT_MAX */
    KERNEL(compress_d1)(m, w);
}

/* ML-KEM.KeyGen_internal(d, z) (Algorithm 16), coins = d || z. */
int crypto_kem_keypair_derand(uint8_t *pk, uint8_t *sk, const uint8_t *coins)
{
    pke_keypair(pk, sk, coins);
    copy(&sk[SK_PKE_BYTES], pk, PK_BYTES);
    sha3_256(&sk[SK_PKE_BYTES + PK_BYTES], pk, PK_BYTES);
    copy(&sk[SK_PKE_BYTES + PK_BYTES + SYM], &coins[SYM], SYM);
    return 0;
}

int crypto_kem_keypair(uint8_t *pk, uint8_t *sk)
{
    uint8_t coins[2 * SYM]; /* d || z */
    randombytes(coins, sizeof coins);
    return crypto_kem_keypair_derand(pk, sk, coins);
}

/* ML-KEM.Encaps_internal(ek, m) (Algorithm 17). */
int crypto_kem_enc_derand(uint8_t *ct, uint8_t *ss, const uint8_t *pk, const uint8_t *m)
{
    uint8_t m_h[2 * SYM], k_r[2 * SYM]; /* m || H(ek), then K || r */
    copy(m_h, m, SYM);
    sha3_256(&m_h[SYM], pk, PK_BYTES);
    sha3_512(k_r, m_h, sizeof m_h);
    pke_encrypt(ct, pk, m_h, &k_r[SYM]);
    copy(ss, k_r, SYM);
#ifdef PQH_SS_MUTANT
    ss[SYM - 1] ^= 0x01u; /* the self-test mutant's wrong byte */
#endif
    return 0;
}

int crypto_kem_enc(uint8_t *ct, uint8_t *ss, const uint8_t *pk)
{
    uint8_t m[SYM];
    randombytes(m, SYM);
    return crypto_kem_enc_derand(ct, ss, pk, m);
}

/* Decapsulation with implicit rejection (Algorithm 18): the comparison and the choice of key in constant time. */
int crypto_kem_dec(uint8_t *ss, const uint8_t *ct, const uint8_t *sk)
{
    const uint8_t *pk = &sk[SK_PKE_BYTES], *h = &sk[SK_PKE_BYTES + PK_BYTES], *z = &h[SYM];
    uint8_t m_h[2 * SYM], k_r[2 * SYM], reject[SYM], ct2[CRYPTO_CIPHERTEXTBYTES];
    shake256incctx j;
    pke_decrypt(m_h, sk, ct);
    copy(&m_h[SYM], h, SYM);
    sha3_512(k_r, m_h, sizeof m_h);
    shake256_inc_init(&j);
    shake256_inc_absorb(&j, z, SYM);
    shake256_inc_absorb(&j, ct, CRYPTO_CIPHERTEXTBYTES);
    shake256_inc_finalize(&j);
    shake256_inc_squeeze(reject, SYM, &j);
    shake256_inc_ctx_release(&j);
    pke_encrypt(ct2, pk, m_h, &k_r[SYM]);
    uint32_t diff = 0;
    for (unsigned i = 0; i < CRYPTO_CIPHERTEXTBYTES; i++)
        diff |= (uint32_t)(ct[i] ^ ct2[i]);
    __asm__("" : "+r"(diff)); /* keep the compiler from branching on the secret comparison */
    uint8_t keep = (uint8_t)(0u - ((diff - 1u) >> 31)); /* 0xFF if equal */
    for (unsigned i = 0; i < SYM; i++)
        ss[i] = (uint8_t)((k_r[i] & keep) | (reject[i] & (uint8_t)~keep));
    return 0;
}
