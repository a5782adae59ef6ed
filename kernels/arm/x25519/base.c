/*
 * x25519.base, x25519.base.b8: X25519(k, 9) through a signed-window table of multiples of the base point on the
 * birationally equivalent twisted Edwards curve (-x^2 + y^2 = 1 + d x^2 y^2), portable C for every image. Model:
 * pqhelium_sim::x25519_fe (same order of operations).
 *
 * The clamped scalar is recoded into 86 signed digits d_i in [-4, 4] of radix 8 (k = sum d_i 8^i); the table
 * (base_table.c, 86 x 4 entries of 96 B = 33,024 B) holds (j + 1) 8^i B for j = 0..3 as (y + x, y - x, 2 d x y).
 * The sum of the 86 selected points needs no doubling; u = (1 + y) / (1 - y) = (Z + Y) / (Z - Y) at the end.
 *
 * x25519_base: every entry of a window is read and the one wanted kept by masks (the neutral point when the digit
 * is 0); a negative digit is applied by a masked swap of y + x and y - x and of 2 d x y and its negation: the same
 * instructions and addresses for every scalar.
 *
 * x25519_base_b8: the same arithmetic with the flaw of the design's B8 variant: the entry's operands are reached
 * through a pointer chosen by the sign of the secret digit, so the addresses the additions read depend on the
 * secret. Functionally correct; it exists for the constant-time checker to catch.
 */
#include <stdint.h>

#include "base_table.h"
#include "fe.h"

#define N X25519_FE_LIMBS

/* The signed digits of the clamped scalar e: chunk + carry in [0, 8] becomes a digit in [-4, 3] and a carry. */
static void recode(int32_t d[X25519_BASE_WINDOWS], const uint8_t e[32])
{
    int32_t carry = 0;
    for (int i = 0; i < X25519_BASE_WINDOWS; i++) {
        const int bit = X25519_BASE_WINDOW_BITS * i;
        uint32_t w = e[bit >> 3];
        if ((bit >> 3) + 1 < 32) { /* public: the position only */
            w |= (uint32_t)e[(bit >> 3) + 1] << 8;
        }
        const int32_t v = (int32_t)((w >> (bit & 7)) & 7u) + carry;
        carry = (v + 4) >> 3;
        d[i] = v - (carry << 3);
    }
}

/* entry = |digit| (8^window B) as (y + x, y - x, 2 d x y), the neutral point (1, 1, 0) for 0: every entry read. */
static void lookup(uint32_t entry[X25519_NIELS_WORDS], int window, uint32_t magnitude)
{
    for (int w = 0; w < X25519_NIELS_WORDS; w++) {
        entry[w] = 0;
    }
    entry[0] = 1;
    entry[N] = 1;
    for (int j = 0; j < X25519_BASE_ENTRIES; j++) {
        const uint32_t x = (uint32_t)(j + 1) ^ magnitude; /* below 8: x - 1 borrows only from 0 */
        uint32_t mask = 0u - ((x - 1u) >> 31);
        __asm__("" : "+r"(mask)); /* clang would otherwise select with an IT block on the secret magnitude */
        for (int w = 0; w < X25519_NIELS_WORDS; w++) {
            entry[w] = (entry[w] & ~mask) | (x25519_base_table[window][j][w] & mask);
        }
    }
}

/* p += (y + x, y - x, 2 d x y) for p = (X : Y : Z : T) extended, a = -1 (complete: d is not a square). */
static void add_niels(uint32_t p[4 * N], const uint32_t yp[N], const uint32_t ym[N], const uint32_t t2d[N])
{
    uint32_t *x = p, *y = p + N, *z = p + 2 * N, *t = p + 3 * N;
    uint32_t a[N], b[N], c[N], d[N], e[N], f[N], g[N], h[N];
    x25519_fe_sub(a, y, x);
    x25519_fe_mul(a, a, ym);
    x25519_fe_add(b, y, x);
    x25519_fe_mul(b, b, yp);
    x25519_fe_mul(c, t, t2d);
    x25519_fe_add(d, z, z);
    x25519_fe_sub(e, b, a);
    x25519_fe_sub(f, d, c);
    x25519_fe_add(g, d, c);
    x25519_fe_add(h, b, a);
    x25519_fe_mul(x, e, f);
    x25519_fe_mul(y, g, h);
    x25519_fe_mul(z, f, g);
    x25519_fe_mul(t, e, h);
}

/* The digit's sign bit and magnitude, without a branch. */
static void split_digit(int32_t digit, uint32_t *negative, uint32_t *magnitude)
{
    const uint32_t sign = (uint32_t)digit >> 31;
    *negative = sign;
    *magnitude = ((uint32_t)digit ^ (0u - sign)) + sign;
}

static const uint32_t zero[N];

/* The neutral point (0 : 1 : 1 : 0) and the clamped scalar's digits. */
static void start(uint32_t p[4 * N], int32_t d[X25519_BASE_WINDOWS], const uint8_t k[32])
{
    uint8_t e[32];
    for (int i = 0; i < 32; i++) {
        e[i] = k[i];
    }
    e[0] &= 248;
    e[31] = (uint8_t)((e[31] & 127) | 64);
    recode(d, e);
    for (int i = 0; i < 4 * N; i++) {
        p[i] = 0;
    }
    p[N] = 1;
    p[2 * N] = 1;
}

/* u = (Z + Y) / (Z - Y) as the pair num || den. */
static void ratio(uint32_t nd[2 * N], const uint32_t p[4 * N])
{
    x25519_fe_add(nd, p + 2 * N, p + N);
    x25519_fe_sub(nd + N, p + 2 * N, p + N);
}

/* u = (Z + Y) / (Z - Y), canonical. */
static void finish(uint8_t out[32], const uint32_t p[4 * N])
{
    uint32_t nd[2 * N];
    ratio(nd, p);
    x25519_fe_encode_ratio(out, nd, nd + N);
}

/* The sum of the selected table points for k, (X : Y : Z : T); inlined: x25519.base stays one function. */
static inline __attribute__((always_inline)) void sum_of_entries(uint32_t p[4 * N], const uint8_t k[32])
{
    uint32_t entry[X25519_NIELS_WORDS], negated[N];
    int32_t d[X25519_BASE_WINDOWS];
    start(p, d, k);
    for (int i = 0; i < X25519_BASE_WINDOWS; i++) {
        uint32_t negative, magnitude;
        split_digit(d[i], &negative, &magnitude);
        lookup(entry, i, magnitude);
        /* -(x, y) = (-x, y): y + x and y - x trade places, 2 d x y changes sign; both by masked swaps. */
        x25519_fe_sub(negated, zero, entry + 2 * N);
        x25519_cswap(entry, entry + N, negative);
        x25519_cswap(entry + 2 * N, negated, negative);
        add_niels(p, entry, entry + N, entry + 2 * N);
    }
}

void x25519_base(uint8_t out[32], const uint8_t k[32])
{
    uint32_t p[4 * N];
    sum_of_entries(p, k);
    finish(out, p);
}

void x25519_base_and_shared(uint8_t base[32], uint8_t shared[32], const uint8_t k[32], const uint8_t u[32])
{
    uint32_t p[4 * N], nd[2 * N], xz[2 * N], inv_den[N], inv_z[N];
    sum_of_entries(p, k);
    ratio(nd, p);
    x25519_ladder(xz, k, u);
    x25519_inv2(inv_den, inv_z, nd + N, xz + N);
    x25519_fe_encode_product(base, nd, inv_den);
    x25519_fe_encode_product(shared, xz, inv_z);
}

void x25519_base_b8(uint8_t out[32], const uint8_t k[32])
{
    uint32_t p[4 * N], entry[X25519_NIELS_WORDS], negated[N];
    int32_t d[X25519_BASE_WINDOWS];
    start(p, d, k);
    for (int i = 0; i < X25519_BASE_WINDOWS; i++) {
        uint32_t negative, magnitude;
        split_digit(d[i], &negative, &magnitude);
        lookup(entry, i, magnitude);
        x25519_fe_sub(negated, zero, entry + 2 * N);
        /* The flaw: the operands' addresses are selected by the secret sign. */
        const uint32_t *const operands[2][3] = {{entry, entry + N, entry + 2 * N}, {entry + N, entry, negated}};
        const uint32_t *const *chosen = operands[negative];
        add_niels(p, chosen[0], chosen[1], chosen[2]);
    }
    finish(out, p);
}
