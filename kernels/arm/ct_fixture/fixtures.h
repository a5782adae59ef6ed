#ifndef PQH_CT_FIXTURE_H
#define PQH_CT_FIXTURE_H
#include <stdint.h>

/* Words per call of every ct.fixture kernel (fixtures.c). */
#define CT_FIXTURE_N 8
#define CT_FIXTURE_Q 3329u
#define CT_FIXTURE_ODD_FACTOR 0x9E3779B1u
#define CT_FIXTURE_EVEN_PATTERN 0x5A5A5A5Au
/* floor(2^26 / 3329) */
#define CT_FIXTURE_BARRETT_M 20158u
#define CT_FIXTURE_BARRETT_SHIFT 26

extern const uint32_t ct_fixture_table[16];

void ct_fixture_lookup(uint32_t out[CT_FIXTURE_N], const uint32_t in[CT_FIXTURE_N]);
void ct_fixture_lookup_masked(uint32_t out[CT_FIXTURE_N], const uint32_t in[CT_FIXTURE_N]);
void ct_fixture_branch(uint32_t out[CT_FIXTURE_N], const uint32_t in[CT_FIXTURE_N]);
void ct_fixture_select_it(uint32_t out[CT_FIXTURE_N], const uint32_t in[CT_FIXTURE_N]);
void ct_fixture_branch_masked(uint32_t out[CT_FIXTURE_N], const uint32_t in[CT_FIXTURE_N]);
void ct_fixture_div_q(uint32_t out[CT_FIXTURE_N], const uint32_t in[CT_FIXTURE_N]);
void ct_fixture_div_q_barrett(uint32_t out[CT_FIXTURE_N], const uint32_t in[CT_FIXTURE_N]);
void ct_fixture_clz(uint32_t out[CT_FIXTURE_N], const uint32_t in[CT_FIXTURE_N]);
void ct_fixture_clz_fixed(uint32_t out[CT_FIXTURE_N], const uint32_t in[CT_FIXTURE_N]);
void ct_fixture_select_vpt(uint32_t out[CT_FIXTURE_N], const uint32_t in[CT_FIXTURE_N]);
void ct_fixture_abs(uint32_t out[CT_FIXTURE_N], const uint32_t in[CT_FIXTURE_N]);
void ct_fixture_abs_opaque(uint32_t out[CT_FIXTURE_N], const uint32_t in[CT_FIXTURE_N]);
void ct_fixture_reject(uint32_t out[CT_FIXTURE_N], const uint32_t in[CT_FIXTURE_N]);
#endif
