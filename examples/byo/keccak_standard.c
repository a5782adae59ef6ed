/* Keccak-f[1600] as a textbook writes it (FIPS 202, section 3): 25 standard 64-bit lanes, lane (x, y) at a[x + 5y],
 * in place, its rotation offsets and round constants computed from the standard's own algorithms (Algorithm 2's
 * walk for rho, Algorithm 5's LFSR for iota). pqhelium's contract keccak.f1600 keeps the state bit-interleaved; the
 * manifest (keccak_standard.toml) declares this kernel's representation, `standard-lanes`.
 *
 *   void byo_keccak_f1600_standard(uint64_t a[25]);
 */
#include <stdint.h>

static uint64_t rol(uint64_t x, unsigned n)
{
    n %= 64;
    return n ? (x << n) | (x >> (64 - n)) : x;
}

/* rc(t) of FIPS 202 Algorithm 5: R = 10000000; per step R = 0 || R, R[0,4,5,6] ^= R[8], R = Trunc8(R). Bit i of r is
 * R[i]. */
static uint64_t rc(unsigned t)
{
    unsigned r = 1;
    for (unsigned i = 0; i < t % 255; i++) {
        r <<= 1;
        unsigned r8 = (r >> 8) & 1;
        r = (r ^ (r8 | r8 << 4 | r8 << 5 | r8 << 6)) & 0xff;
    }
    return r & 1;
}

void byo_keccak_f1600_standard(uint64_t a[25])
{
    for (unsigned round = 0; round < 24; round++) {
        /* theta */
        uint64_t c[5], d[5];
        for (unsigned x = 0; x < 5; x++)
            c[x] = a[x] ^ a[x + 5] ^ a[x + 10] ^ a[x + 15] ^ a[x + 20];
        for (unsigned x = 0; x < 5; x++)
            d[x] = c[(x + 4) % 5] ^ rol(c[(x + 1) % 5], 1);
        for (unsigned i = 0; i < 25; i++)
            a[i] ^= d[i % 5];
        /* rho: (x, y) = (1, 0), offset (t + 1)(t + 2) / 2, then (x, y) = (y, 2x + 3y) */
        unsigned x = 1, y = 0;
        for (unsigned t = 0; t < 24; t++) {
            a[x + 5 * y] = rol(a[x + 5 * y], (t + 1) * (t + 2) / 2);
            unsigned next = (2 * x + 3 * y) % 5;
            x = y;
            y = next;
        }
        /* pi: A'[x, y] = A[(x + 3y) mod 5, x] */
        uint64_t b[25];
        for (unsigned i = 0; i < 25; i++)
            b[i] = a[i];
        for (x = 0; x < 5; x++)
            for (y = 0; y < 5; y++)
                a[x + 5 * y] = b[(x + 3 * y) % 5 + 5 * x];
        /* chi */
        for (y = 0; y < 5; y++) {
            uint64_t row[5];
            for (x = 0; x < 5; x++)
                row[x] = a[x + 5 * y];
            for (x = 0; x < 5; x++)
                a[x + 5 * y] = row[x] ^ (~row[(x + 1) % 5] & row[(x + 2) % 5]);
        }
        /* iota: RC[2^j - 1] = rc(j + 7 round) */
        uint64_t constant = 0;
        for (unsigned j = 0; j < 7; j++)
            constant |= rc(j + 7 * round) << ((1u << j) - 1);
        a[0] ^= constant;
    }
}
