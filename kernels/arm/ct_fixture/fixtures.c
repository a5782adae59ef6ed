/*
 * ct.fixture.*: small, functionally correct kernels whose leaks `pqhelium ct` must report, each beside a constant-time
 * version that must pass. Every kernel maps CT_FIXTURE_N secret 32-bit words `in` to CT_FIXTURE_N words `out`.
 * The source line where each leak must be reported ends in the comment "the leak" (cli/tests/ct.rs reads it).
 * Model: families/src/ct_fixture.rs (`model_word`, the map of each fixture).
 *
 * The leaky versions must stay leaky in the object code: gcc if-converts small branches into IT blocks and turns a
 * division by a constant into a multiplication. CT_OPAQUE (an empty asm that claims to change its operand) hides a
 * value from the optimiser, so each leak below is compiled as written (checked in the disassembly of both images).
 * The constant-time versions pass their masks through CT_OPAQUE too, so that no compiler turns them back into a
 * branch or a conditional instruction.
 *
 * Contracts (bounds in, out):
 * - lookup, lookup.masked: in[i] in [0, 15]; out[i] = CT_FIXTURE_TABLE[in[i]].
 * - branch, select.it, branch.masked: any in; out[i] = in[i] * 0x9E3779B1 if bit 0 of in[i] is set, else in[i] ^ 0x5A5A5A5A.
 * - div_q, div_q.barrett: in[i] in [0, 2^24 - 1]; out[i] = in[i] / 3329 (ML-KEM's q), in [0, 5039].
 * - clz, clz.fixed: any in; out[i] = number of leading zero bits of in[i] (32 for 0), in [0, 32].
 * - abs, abs.opaque: any in; out[i] = |in[i]| as a 32-bit two's complement value (2^31 stays 2^31).
 * - reject: any in; out[i] = the first of in[i]'s 12-bit windows at bits 0, 10, 20 below q, else q; in [0, q].
 */
#include <stdint.h>

#include "fixtures.h"

#define CT_OPAQUE(x) __asm__("" : "+r"(x))

const uint32_t ct_fixture_table[16] = {
    0x243F6A88u, 0x85A308D3u, 0x13198A2Eu, 0x03707344u, 0xA4093822u, 0x299F31D0u, 0x082EFA98u, 0xEC4E6C89u,
    0x452821E6u, 0x38D01377u, 0xBE5466CFu, 0x34E90C6Cu, 0xC0AC29B7u, 0xC97C50DDu, 0x3F84D5B5u, 0xB5470917u,
};

/* Leaks the index through the load address (the class of the X-Wing design's B8). */
void ct_fixture_lookup(uint32_t out[CT_FIXTURE_N], const uint32_t in[CT_FIXTURE_N])
{
    for (int i = 0; i < CT_FIXTURE_N; i++)
        out[i] = ct_fixture_table[in[i]]; /* the leak */
}

/* Reads every entry and keeps the one whose index matches, by mask. */
void ct_fixture_lookup_masked(uint32_t out[CT_FIXTURE_N], const uint32_t in[CT_FIXTURE_N])
{
    for (int i = 0; i < CT_FIXTURE_N; i++) {
        uint32_t kept = 0;
        for (uint32_t j = 0; j < 16; j++) {
            /* (d - 1) >> 31 is 1 exactly when d = j ^ in[i] is 0 (both below 16). */
            uint32_t mask = 0u - (((j ^ in[i]) - 1u) >> 31);
            CT_OPAQUE(mask);
            kept |= ct_fixture_table[j] & mask;
        }
        out[i] = kept;
    }
}

/* Branches on a secret bit: the two sides run different instructions. */
void ct_fixture_branch(uint32_t out[CT_FIXTURE_N], const uint32_t in[CT_FIXTURE_N])
{
    for (int i = 0; i < CT_FIXTURE_N; i++) {
        uint32_t x = in[i];
        /* A distinct asm volatile in each side keeps the branch (no compiler predicates or merges them): otherwise gcc
         * computes both sides and keeps one with IT-predicated instructions. */
        if (x & 1u) { /* the leak */
            __asm__ volatile("@ odd side");
            out[i] = x * CT_FIXTURE_ODD_FACTOR;
        } else {
            __asm__ volatile("@ even side");
            out[i] = x ^ CT_FIXTURE_EVEN_PATTERN;
        }
    }
}

/* The same map as a C conditional: gcc computes both sides and keeps one with an IT block (no branch), whose
 * condition is the secret bit: the Cortex-M85 takes different time for an instruction whose condition fails. */
void ct_fixture_select_it(uint32_t out[CT_FIXTURE_N], const uint32_t in[CT_FIXTURE_N])
{
    for (int i = 0; i < CT_FIXTURE_N; i++) {
        uint32_t x = in[i];
        out[i] = (x & 1u) ? x * CT_FIXTURE_ODD_FACTOR : x ^ CT_FIXTURE_EVEN_PATTERN; /* the leak */
    }
}

/* Computes both sides and selects by a mask of the bit. */
void ct_fixture_branch_masked(uint32_t out[CT_FIXTURE_N], const uint32_t in[CT_FIXTURE_N])
{
    for (int i = 0; i < CT_FIXTURE_N; i++) {
        uint32_t x = in[i];
        uint32_t odd = 0u - (x & 1u);
        CT_OPAQUE(odd);
        out[i] = ((x * CT_FIXTURE_ODD_FACTOR) & odd) | ((x ^ CT_FIXTURE_EVEN_PATTERN) & ~odd);
    }
}

/* Divides a secret by q with UDIV, whose latency depends on its operands (KyberSlash's class). */
void ct_fixture_div_q(uint32_t out[CT_FIXTURE_N], const uint32_t in[CT_FIXTURE_N])
{
    uint32_t q = CT_FIXTURE_Q;
    CT_OPAQUE(q); /* a divisor the compiler cannot see keeps the UDIV */
    for (int i = 0; i < CT_FIXTURE_N; i++)
        out[i] = in[i] / q; /* the leak */
}

/* Barrett: t = floor(x * m / 2^26) with m = floor(2^26 / q) is the quotient or one less for x < 2^24; one masked
 * correction adds the missing one. */
void ct_fixture_div_q_barrett(uint32_t out[CT_FIXTURE_N], const uint32_t in[CT_FIXTURE_N])
{
    for (int i = 0; i < CT_FIXTURE_N; i++) {
        uint32_t x = in[i];
        uint32_t t = (uint32_t)(((uint64_t)x * CT_FIXTURE_BARRETT_M) >> CT_FIXTURE_BARRETT_SHIFT);
        uint32_t r = x - t * CT_FIXTURE_Q; /* in [0, 2q) */
        uint32_t below_q = (r - CT_FIXTURE_Q) >> 31;
        CT_OPAQUE(below_q);
        out[i] = t + (below_q ^ 1u);
    }
}

/* Counts leading zeros by a loop that stops at the first set bit: its iteration count is the secret. */
void ct_fixture_clz(uint32_t out[CT_FIXTURE_N], const uint32_t in[CT_FIXTURE_N])
{
    for (int i = 0; i < CT_FIXTURE_N; i++) {
        uint32_t x = in[i];
        uint32_t n = 0;
        while (n < 32 && !((x << n) & 0x80000000u)) { /* the leak */
            n++;
            CT_OPAQUE(n); /* keeps the loop: gcc would otherwise recognise a count-leading-zeros idiom */
        }
        out[i] = n;
    }
}

/* Looks at all 32 bits: a bit adds one to the count while no set bit has been seen. */
void ct_fixture_clz_fixed(uint32_t out[CT_FIXTURE_N], const uint32_t in[CT_FIXTURE_N])
{
    for (int i = 0; i < CT_FIXTURE_N; i++) {
        uint32_t x = in[i];
        uint32_t seen = 0, n = 0;
        for (int b = 31; b >= 0; b--) {
            seen |= (x >> b) & 1u;
            CT_OPAQUE(seen);
            n += seen ^ 1u;
        }
        out[i] = n;
    }
}

/* Rejection sampling: the loop stops at the first window below q. Its contract declares that exit public (as the
 * rejection loops of the schemes are), so pqhelium ct passes it by that declaration and lists it. */
void ct_fixture_reject(uint32_t out[CT_FIXTURE_N], const uint32_t in[CT_FIXTURE_N])
{
    for (int i = 0; i < CT_FIXTURE_N; i++) {
        uint32_t v = CT_FIXTURE_Q;
        for (unsigned shift = 0; shift <= 20; shift += 10) {
            uint32_t window = (in[i] >> shift) & 0xFFFu;
            if (window < CT_FIXTURE_Q) {
                v = window;
                break;
            }
        }
        out[i] = v;
    }
}

/* Absolute value by the sign mask, branch-free C: clang (the M85 image, -O1 to -Os) recognises the idiom and emits
 * `cmp; it mi; rsbmi`, an IT block on the secret sign; gcc keeps the masks. A compiler-introduced leak. */
void ct_fixture_abs(uint32_t out[CT_FIXTURE_N], const uint32_t in[CT_FIXTURE_N])
{
    for (int i = 0; i < CT_FIXTURE_N; i++) {
        int32_t x = (int32_t)in[i];
        int32_t m = x >> 31;
        out[i] = (uint32_t)((x ^ m) - m); /* the leak */
    }
}

/* The same with the mask hidden from the optimiser: no compiler sees the idiom. */
void ct_fixture_abs_opaque(uint32_t out[CT_FIXTURE_N], const uint32_t in[CT_FIXTURE_N])
{
    for (int i = 0; i < CT_FIXTURE_N; i++) {
        uint32_t x = in[i];
        uint32_t m = (uint32_t)((int32_t)x >> 31);
        CT_OPAQUE(m);
        out[i] = (x ^ m) - m;
    }
}
