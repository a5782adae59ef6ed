/*
 * mlkem.compress.{du10,dv4,d1}.scalar, mlkem.decompress.{du10,dv4,d1}.scalar, mlkem.poly.{encode12,decode12}.scalar,
 * mlkem.poly.{add,sub,reduce}.scalar, mlkem.dot.k3.scalar, mlkem.matvec.k3.scalar: portable C baselines of the
 * ML-KEM-768 polynomial kernels, FIPS 203 order, with the arithmetic of the MVE kernels (mlkem_poly.mve.c)
 * coefficient by coefficient. Model: pqhelium_sim::mlkem_poly.
 *
 * - reduce: any int16_t -> canonical 0..q-1: Barrett with round(2^26/q) to (-q/2, q/2), then + q if negative.
 * - compress_d (d = 10, 4, 1) with ByteEncode_d: any int16_t in (reduced first); out the 32 d bytes of FIPS 203.
 *   Compress_d(x) = floor(((x << d) + (q-1)/2) / q) (no ties, q odd), the division by a multiply-high (header).
 * - decompress_d with ByteDecode_d: Decompress_d(y) = (q y + 2^(d-1)) >> d; out canonical 0..q-1.
 * - encode12: ByteEncode_12 of canonical input; decode12: ByteDecode_12 with its reduction mod q (values
 *   q..4095 lose q), out canonical.
 * - add/sub: a +- b, no reduction: |a| <= MLKEM_ADD_A_MAX, |b| <= MLKEM_ADD_B_MAX.
 * - dot_k3: out = sum_j a_j o b_j in T_q (k = 3 base multiplications) with one reduction: the six 32-bit products of
 *   each output are accumulated over j, then one 32-bit Barrett reduction; |a| <= MLKEM_DOT_A_MAX, b any int16_t;
 *   out |x| <= MLKEM_DOT_OUT_MAX (pqhelium_sim::mlkem_poly::bounds). matvec_k3: out_i = dot_k3(row i of a, s).
 */
#include <stdint.h>

#include "mlkem_poly.h"

static inline int16_t canonical(int16_t x)
{
    int32_t t = ((int32_t)x * MLKEM_BARRETT26) >> 16;
    t = (t + 512) >> 10;
    int16_t r = (int16_t)(x - t * MLKEM_Q);
    int32_t negative = r >> 15;
    __asm__("" : "+r"(negative)); /* a secret sign clang would otherwise predicate an add on (an IT block) */
    return (int16_t)(r + (negative & MLKEM_Q));
}

static inline uint32_t compress16(int16_t x, unsigned d)
{
    uint32_t t = ((uint32_t)canonical(x) << d) + MLKEM_COMPRESS_HALF;
    return ((t * MLKEM_COMPRESS_M16) >> 20) & ((1u << d) - 1);
}

static inline uint32_t compress10(int16_t x)
{
    uint32_t t = ((uint32_t)canonical(x) << 10) + MLKEM_COMPRESS_HALF;
    return (uint32_t)(((uint64_t)t * MLKEM_COMPRESS_M32) >> 32) & 0x3FF;
}

static inline int16_t decompress(uint32_t y, unsigned d)
{
    __asm__("" : "+r"(y)); /* for d = 1 clang would select 0 or 1665 with an IT block on the secret bit */
    return (int16_t)((y * MLKEM_Q + (1u << (d - 1))) >> d);
}

void mlkem_compress_du10_scalar(uint8_t out[320], const int16_t p[256])
{
    for (unsigned i = 0; i < 64; i++) {
        uint32_t c0 = compress10(p[4 * i]), c1 = compress10(p[4 * i + 1]);
        uint32_t c2 = compress10(p[4 * i + 2]), c3 = compress10(p[4 * i + 3]);
        uint8_t *o = out + 5 * i;
        o[0] = (uint8_t)c0;
        o[1] = (uint8_t)((c0 >> 8) | (c1 << 2));
        o[2] = (uint8_t)((c1 >> 6) | (c2 << 4));
        o[3] = (uint8_t)((c2 >> 4) | (c3 << 6));
        o[4] = (uint8_t)(c3 >> 2);
    }
}

void mlkem_decompress_du10_scalar(int16_t p[256], const uint8_t in[320])
{
    for (unsigned i = 0; i < 64; i++) {
        const uint8_t *b = in + 5 * i;
        p[4 * i] = decompress((b[0] | ((uint32_t)b[1] << 8)) & 0x3FF, 10);
        p[4 * i + 1] = decompress(((b[1] >> 2) | ((uint32_t)b[2] << 6)) & 0x3FF, 10);
        p[4 * i + 2] = decompress(((b[2] >> 4) | ((uint32_t)b[3] << 4)) & 0x3FF, 10);
        p[4 * i + 3] = decompress(((b[3] >> 6) | ((uint32_t)b[4] << 2)) & 0x3FF, 10);
    }
}

void mlkem_compress_dv4_scalar(uint8_t out[128], const int16_t p[256])
{
    for (unsigned i = 0; i < 128; i++)
        out[i] = (uint8_t)(compress16(p[2 * i], 4) | (compress16(p[2 * i + 1], 4) << 4));
}

void mlkem_decompress_dv4_scalar(int16_t p[256], const uint8_t in[128])
{
    for (unsigned i = 0; i < 128; i++) {
        p[2 * i] = decompress(in[i] & 15u, 4);
        p[2 * i + 1] = decompress(in[i] >> 4, 4);
    }
}

void mlkem_compress_d1_scalar(uint8_t out[32], const int16_t p[256])
{
    for (unsigned i = 0; i < 32; i++) {
        uint32_t byte = 0;
        for (unsigned j = 0; j < 8; j++)
            byte |= compress16(p[8 * i + j], 1) << j;
        out[i] = (uint8_t)byte;
    }
}

void mlkem_decompress_d1_scalar(int16_t p[256], const uint8_t in[32])
{
    for (unsigned i = 0; i < 256; i++)
        p[i] = decompress((in[i >> 3] >> (i & 7)) & 1u, 1);
}

void mlkem_encode12_scalar(uint8_t out[384], const int16_t p[256])
{
    for (unsigned i = 0; i < 128; i++) {
        uint32_t c0 = (uint16_t)p[2 * i], c1 = (uint16_t)p[2 * i + 1];
        out[3 * i] = (uint8_t)c0;
        out[3 * i + 1] = (uint8_t)((c0 >> 8) | (c1 << 4));
        out[3 * i + 2] = (uint8_t)(c1 >> 4);
    }
}

/* x - q if x >= q, for 12-bit x, without a comparison (a secret key is decoded too): the borrow is a mask. */
static inline int16_t minus_q_if_above(uint32_t x)
{
    uint32_t r = x - MLKEM_Q;
    uint32_t borrow = (uint32_t)((int32_t)r >> 31);
    __asm__("" : "+r"(borrow)); /* clang would predicate the add on the secret sign (a VPT or an IT block) */
    return (int16_t)(r + (borrow & MLKEM_Q));
}

void mlkem_decode12_scalar(int16_t p[256], const uint8_t in[384])
{
    for (unsigned i = 0; i < 128; i++) {
        const uint8_t *b = in + 3 * i;
        p[2 * i] = minus_q_if_above((b[0] | ((uint32_t)b[1] << 8)) & 0xFFF);
        p[2 * i + 1] = minus_q_if_above((b[1] >> 4) | ((uint32_t)b[2] << 4));
    }
}

void mlkem_poly_add_scalar(int16_t out[256], const int16_t a[256], const int16_t b[256])
{
    for (unsigned i = 0; i < 256; i++)
        out[i] = (int16_t)(a[i] + b[i]);
}

void mlkem_poly_sub_scalar(int16_t out[256], const int16_t a[256], const int16_t b[256])
{
    for (unsigned i = 0; i < 256; i++)
        out[i] = (int16_t)(a[i] - b[i]);
}

void mlkem_poly_reduce_scalar(int16_t p[256])
{
    for (unsigned i = 0; i < 256; i++)
        p[i] = canonical(p[i]);
}

static inline int16_t mulmod(int16_t a, int16_t z, int16_t zt)
{
    int32_t t = ((int32_t)a * zt + (1 << 14)) >> 15;
    return (int16_t)((int32_t)a * z - t * MLKEM_Q);
}

static inline int16_t barrett32(int32_t x)
{
    int32_t t = (int32_t)(((int64_t)x * MLKEM_BARRETT32 + (1 << 30)) >> 31);
    return (int16_t)(x - t * MLKEM_Q);
}

void mlkem_dot_k3_scalar(int16_t out[256], const int16_t a[768], const int16_t b[768])
{
    for (unsigned i = 0; i < 128; i++) {
        int32_t even = 0, odd = 0;
        for (unsigned j = 0; j < MLKEM_K; j++) {
            const int16_t *x = a + 256 * j + 2 * i, *y = b + 256 * j + 2 * i;
            int32_t bg = mulmod(y[1], pqh_mlkem_gamma[i], pqh_mlkem_gamma_tw[i]);
            even += x[0] * y[0] + x[1] * bg;
            odd += x[0] * y[1] + x[1] * y[0];
        }
        out[2 * i] = barrett32(even);
        out[2 * i + 1] = barrett32(odd);
    }
}

void mlkem_matvec_k3_scalar(int16_t out[768], const int16_t a[2304], const int16_t s[768])
{
    for (unsigned i = 0; i < MLKEM_K; i++)
        mlkem_dot_k3_scalar(out + 256 * i, a + 768 * i, s);
}
