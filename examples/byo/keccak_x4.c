/* Four Keccak-f[1600] permutations (FIPS 202) in one call, in portable C, to show how pqhelium checks a kernel that
 * works on several states at once: its manifest says `states = 4` and the layout, and each state is checked as one
 * call of the contract `keccak.f1600`.
 *
 *   void byo_keccak_f1600_x4(uint32_t s[200]);
 *
 * Each state is in the contract's bit-interleaved representation: word 2i holds the even bits and word 2i + 1 the
 * odd bits of lane i = x + 5y, so that a 64-bit rotation is two 32-bit rotations. Word w of state j is s[4w + j]
 * (interleaved, as a vector unit would keep them; `layout = "interleaved"`), or s[50j + w] with -DCONSECUTIVE
 * (`layout = "consecutive"`). One loop over the 24 rounds, and in each round a loop over the four states.
 *
 * byo_keccak_f1600_oop(const uint32_t in[50], uint32_t out[50]) is one permutation out of place, for a manifest that
 * gives the contract's in-place state as two buffers (`{ input = "s" }`).
 *
 * Built with -DMUTANT, one bit of one round constant is wrong: the check must catch it.
 */
#include <stdint.h>

#define STATES 4
#define WORDS 50
#define ROUNDS 24

#ifdef CONSECUTIVE
#define AT(w, j) ((j) * WORDS + (w))
#else
#define AT(w, j) (STATES * (w) + (j))
#endif

/* The round constants of FIPS 202 (from its LFSR), bit-interleaved: {even bits, odd bits}. */
static const uint32_t RC[ROUNDS][2] = {
    {0x00000001, 0x00000000}, {0x00000000, 0x00000089}, {0x00000000, 0x8000008b}, {0x00000000, 0x80008080},
    {0x00000001, 0x0000008b}, {0x00000001, 0x00008000}, {0x00000001, 0x80008088}, {0x00000001, 0x80000082},
    {0x00000000, 0x0000000b}, {0x00000000, 0x0000000a}, {0x00000001, 0x00008082}, {0x00000000, 0x00008003},
#ifdef MUTANT
    {0x00000001, 0x0000808a}, /* round 12: bit 1 of its odd half cleared */
#else
    {0x00000001, 0x0000808b},
#endif
    {0x00000001, 0x8000000b}, {0x00000001, 0x8000008a}, {0x00000001, 0x80000081},
    {0x00000000, 0x80000081}, {0x00000000, 0x80000008}, {0x00000000, 0x00000083}, {0x00000000, 0x80008003},
    {0x00000001, 0x80008088}, {0x00000000, 0x80000088}, {0x00000001, 0x00008000}, {0x00000000, 0x80008082},
};

/* rho: the rotation of lane x + 5y (FIPS 202, Table 2). */
static const uint8_t RHO[25] = {
    0, 1, 62, 28, 27, 36, 44, 6, 55, 20, 3, 10, 43, 25, 39, 41, 45, 15, 21, 8, 18, 2, 61, 56, 14,
};

static uint32_t rol32(uint32_t v, unsigned r) {
    r &= 31;
    return r ? (v << r) | (v >> (32 - r)) : v;
}

/* Lane (e, o) rotated left by r: by r/2 on each half when r is even; when r is odd the halves swap roles. */
static void rotate(uint32_t *e, uint32_t *o, unsigned r) {
    uint32_t even = *e, odd = *o;
    if (r % 2 == 0) {
        *e = rol32(even, r / 2);
        *o = rol32(odd, r / 2);
    } else {
        *e = rol32(odd, (r + 1) / 2);
        *o = rol32(even, (r - 1) / 2);
    }
}

/* One round on one state (a[2i], a[2i + 1]: lane i). */
static void round_of(uint32_t a[WORDS], int round) {
    uint32_t c[10], b[WORDS];
    /* theta */
    for (int x = 0; x < 5; x++) {
        for (int h = 0; h < 2; h++) {
            c[2 * x + h] = a[2 * x + h] ^ a[2 * (x + 5) + h] ^ a[2 * (x + 10) + h] ^ a[2 * (x + 15) + h] ^
                           a[2 * (x + 20) + h];
        }
    }
    for (int x = 0; x < 5; x++) {
        uint32_t de = c[2 * ((x + 1) % 5)], dO = c[2 * ((x + 1) % 5) + 1];
        rotate(&de, &dO, 1);
        de ^= c[2 * ((x + 4) % 5)];
        dO ^= c[2 * ((x + 4) % 5) + 1];
        for (int y = 0; y < 5; y++) {
            a[2 * (x + 5 * y)] ^= de;
            a[2 * (x + 5 * y) + 1] ^= dO;
        }
    }
    /* rho and pi: lane (x, y) rotated goes to (y, 2x + 3y) */
    for (int x = 0; x < 5; x++) {
        for (int y = 0; y < 5; y++) {
            uint32_t e = a[2 * (x + 5 * y)], o = a[2 * (x + 5 * y) + 1];
            rotate(&e, &o, RHO[x + 5 * y]);
            int to = y + 5 * ((2 * x + 3 * y) % 5);
            b[2 * to] = e;
            b[2 * to + 1] = o;
        }
    }
    /* chi */
    for (int y = 0; y < 5; y++) {
        for (int x = 0; x < 5; x++) {
            for (int h = 0; h < 2; h++) {
                a[2 * (x + 5 * y) + h] = b[2 * (x + 5 * y) + h] ^
                                         (~b[2 * ((x + 1) % 5 + 5 * y) + h] & b[2 * ((x + 2) % 5 + 5 * y) + h]);
            }
        }
    }
    /* iota */
    a[0] ^= RC[round][0];
    a[1] ^= RC[round][1];
}

void byo_keccak_f1600_x4(uint32_t s[STATES * WORDS]) {
    uint32_t a[WORDS];
    for (int round = 0; round < ROUNDS; round++) {
        for (int j = 0; j < STATES; j++) {
            for (int w = 0; w < WORDS; w++) {
                a[w] = s[AT(w, j)];
            }
            round_of(a, round);
            for (int w = 0; w < WORDS; w++) {
                s[AT(w, j)] = a[w];
            }
        }
    }
}

void byo_keccak_f1600_oop(const uint32_t in[WORDS], uint32_t out[WORDS]) {
    for (int w = 0; w < WORDS; w++) {
        out[w] = in[w];
    }
    for (int round = 0; round < ROUNDS; round++) {
        round_of(out, round);
    }
}
