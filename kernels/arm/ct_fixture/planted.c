/*
 * Leaks planted behind known ones, for cli/tests/ct.rs: each function runs a registered kernel whose leak
 * `check` knows (ct::KNOWN_LEAKS), then leaks again where no known leak is declared. A test runs each under the
 * contract of the kernel it wraps (the same arguments) and `check`'s judgement must fail on the second leak alone.
 * They are in no kernel's contract: the registry never runs them. The line of each second leak ends in the comment
 * "the second leak" (the test reads it).
 */
#include <stdint.h>

#include "../fndsa_fpu/fndsa_sign_kernels.h"
#include "fixtures.h"

#define CT_OPAQUE(x) __asm__("" : "+r"(x))

/* Where the second divisions' quotients go (their values do not matter, their operands do). */
volatile uint32_t ct_planted_sink;

/* ct.fixture.div_q's division of every word by q (known: planted at its own line), then one more of the same class
 * at another line. */
void ct_planted_div_q_twice(uint32_t out[CT_FIXTURE_N], const uint32_t in[CT_FIXTURE_N])
{
    ct_fixture_div_q(out, in);
    uint32_t q = CT_FIXTURE_Q;
    CT_OPAQUE(q);
    ct_planted_sink = in[CT_FIXTURE_N - 1] / q; /* the second leak */
}

/* fndsa.fpu.ldl (its FP64 divisions are known on the Cortex-M7 and M85 images), then a UDIV of a secret word of
 * its output: the KyberSlash class, which no FP64 entry may excuse. */
void ct_planted_ldl_udiv(const double *g00, double *g01, double *g11, uint32_t logn)
{
    fndsa_fpu_ldl_fft(g00, g01, g11, logn);
    uint32_t low;
    __builtin_memcpy(&low, g11, sizeof low);
    uint32_t q = CT_FIXTURE_Q;
    CT_OPAQUE(q);
    ct_planted_sink = low / q; /* the second leak */
}
