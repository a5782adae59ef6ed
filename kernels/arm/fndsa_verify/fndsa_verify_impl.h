/*
 * fndsa.verify, fndsa.verify.batch4 (and their .scalar builds): FN-DSA v0.4 signature verification, logn 9 and 10,
 * accept or reject exactly as pqhelium_core::fndsa::VerifyingKey::decode then verify (= the fn-dsa 0.4.0 crate's
 * FN-DSA-512/1024 verifier). This file is the whole verification; each build includes it after defining its kernels:
 *   FV_NTT_KERNEL(n, op): the NTT kernel for n = 512 or 1024 and op = fwd, inv or pointwise (fndsa_ntt.h; int16_t,
 *     values mod q, any representative within the kernels' bounds);
 *   FV_H_POSITION(slot): where the NTT-domain value of reference slot `slot` (the verifying key's order) is stored
 *     in the kernels' NTT order;
 *   fv_keccak_permute(lanes): Keccak-f[1600] on one state, standard layout (25 little-endian 64-bit lanes as 50
 *     words); fv_keccak_permute_x4(states, mask): on the states whose bit is set in mask, the others untouched;
 *   FV_VERIFY, FV_VERIFY_BATCH4: the symbols.
 *
 * uint32_t FV_VERIFY(const uint8_t *request, uint32_t request_len): 1 if the request (layout in fndsa_verify.h,
 *   exactly request_len bytes) carries a valid signature under a verifying key of degree 512 or 1024, else 0.
 * void FV_VERIFY_BATCH4(uint8_t verdicts[4], const uint8_t *requests, uint32_t requests_len, uint32_t logn): the
 *   verdict (0 or 1) of each of four requests back to back, filling exactly requests_len bytes; a key of another
 *   degree than 2^logn is rejected. A framing that does not fill requests_len exactly rejects all four.
 *
 * Every input is untrusted: lengths are checked before any read, and a malformed field rejects its request (bad
 * header byte, coefficient of h not below q, wrong length, key of another degree, signature of another degree,
 * compressed s2 with '-0', magnitude above 840, truncated data or non-zero padding, context above 255 bytes, external
 * mu not 64 bytes). Then, as FN-DSA v0.4 verifies:
 *   hvk = SHAKE256(vk, 64 B); mu = SHAKE256(hvk || 0 || len(ctx) || ctx || message), or
 *   SHAKE256(hvk || 1 || len(ctx) || ctx || id || hv) for a pre-hash, or hv itself for the external-mu identifier;
 *   c = hash-to-point(SHAKE256(nonce || mu)) (16-bit little-endian words, kept below 5q, reduced mod q);
 *   s1 = c - s2 * h mod (X^n + 1, q), centred; accept iff every |s1[i]| <= 840 and |s1|^2 + |s2|^2 <= SQBETA[logn].
 * The requests of a batch go through SHAKE256 side by side (one state per request, permuted together by
 * fv_keccak_permute_x4), so a four-way permutation serves all four.
 */
#include <stdint.h>

#include "../fndsa_ntt/fndsa_ntt.h"
#include "fndsa_verify.h"

#define FV_Q FNDSA_Q
#define FV_MAX_N 1024u
#define FV_NONCE_BYTES 40u
#define FV_MU_BYTES 64u
#define FV_HVK_BYTES 64u
#define FV_B_INF 840u
#define FV_SHAKE256_RATE 136u
#define FV_MAX_CONTEXT 255u
/* Hash identifiers of one byte: the message itself (pure FN-DSA), or mu given by the caller. */
#define FV_ID_RAW 0x00u
#define FV_ID_EXTERNAL_MU 0xFEu
/* hash-to-point keeps 16-bit words below 5q, so that w mod q is uniform. */
#define FV_HASH_WORD_LIMIT (5u * FV_Q)

/* floor(beta^2) and the signature size (header, nonce, compressed s2) for logn 9 and 10. */
static uint32_t fv_sqbeta(uint32_t logn)
{
    return logn == 9u ? 34034726u : 70265242u;
}

static uint32_t fv_signature_bytes(uint32_t logn)
{
    return logn == 9u ? 666u : 1280u;
}

static uint32_t fv_verifying_key_bytes(uint32_t logn)
{
    return 1u + (14u << logn) / 8u;
}

/* The images link no C library: byte copies and clears by hand (sizes here are small), kept as loops (gcc would
 * otherwise turn them into calls to memcpy and memset). */
#if defined(__GNUC__) && !defined(__clang__)
#define FV_NO_LIBC_CALLS __attribute__((optimize("no-tree-loop-distribute-patterns")))
#else
#define FV_NO_LIBC_CALLS
#endif

FV_NO_LIBC_CALLS static void fv_copy(void *dst, const void *src, uint32_t len)
{
    uint8_t *d = dst;
    const uint8_t *s = src;
    for (uint32_t k = 0; k < len; k++) {
        d[k] = s[k];
    }
}

FV_NO_LIBC_CALLS static void fv_zero(void *dst, uint32_t len)
{
    uint8_t *d = dst;
    for (uint32_t k = 0; k < len; k++) {
        d[k] = 0;
    }
}

struct fv_bytes {
    const uint8_t *p;
    uint32_t len;
};

/* The fields of one request, in the order of the framing. */
struct fv_request {
    struct fv_bytes vk, sig, ctx, id, hv;
};

/* One request's working state. */
struct fv_work {
    uint32_t alive; /* not rejected so far */
    uint32_t logn;
    uint32_t s2_norm; /* sum of s2[i]^2 */
    uint8_t hvk[FV_HVK_BYTES];
    uint8_t nonce_mu[FV_NONCE_BYTES + FV_MU_BYTES]; /* hash-to-point input: nonce, then mu */
    int16_t h[FV_MAX_N];                            /* NTT domain, kernels' order, [0, q-1] */
    int16_t s2h[FV_MAX_N];                          /* s2 in the natural order, then s2 * h */
    uint16_t c[FV_MAX_N];                           /* hash-to-point, [0, q-1] */
};

static uint32_t fv_read_u32(const uint8_t *p)
{
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

/* Splits the request at src (avail bytes available) into its fields; returns its size, 0 if it does not fit. */
static uint32_t fv_frame(struct fv_request *r, const uint8_t *src, uint32_t avail)
{
    struct fv_bytes *fields[FNDSA_VERIFY_FIELDS] = {&r->vk, &r->sig, &r->ctx, &r->id, &r->hv};
    if (avail < FNDSA_VERIFY_HEADER_BYTES) {
        return 0;
    }
    uint32_t used = FNDSA_VERIFY_HEADER_BYTES;
    for (unsigned k = 0; k < FNDSA_VERIFY_FIELDS; k++) {
        uint32_t len = fv_read_u32(src + 4u * k);
        if (len > avail - used) {
            return 0;
        }
        fields[k]->p = src + used;
        fields[k]->len = len;
        used += len;
    }
    return used;
}

/* ---- Decoding ---- */

/* The verifying key: 0x00 + logn, then n values of 14 bits (LSB first), each below q, in the reference NTT order.
 * want_logn: the required degree, or 0 for either standard degree (9 or 10). */
static uint32_t fv_decode_vk(struct fv_work *w, const struct fv_bytes *vk, uint32_t want_logn)
{
    if (vk->len == 0) {
        return 0;
    }
    const uint32_t logn = vk->p[0];
    const int degree_ok = want_logn ? logn == want_logn : (logn == 9u || logn == 10u);
    if (!degree_ok || vk->len != fv_verifying_key_bytes(logn)) {
        return 0; /* a header with high bits set is never a degree of 9 or 10 */
    }
    uint32_t acc = 0, bits = 0, slot = 0;
    for (uint32_t i = 1; i < vk->len; i++) {
        acc |= (uint32_t)vk->p[i] << bits;
        bits += 8u;
        if (bits >= 14u) {
            uint32_t value = acc & 0x3FFFu;
            if (value >= FV_Q) {
                return 0;
            }
            w->h[FV_H_POSITION(slot)] = (int16_t)value;
            slot++;
            acc >>= 14;
            bits -= 14u;
        }
    }
    w->logn = logn;
    return 1;
}

/* The signature: exact length, 0x30 + logn, the nonce, then s2 compressed (sign bit, 7 low bits of |x|, |x| >> 7 in
 * unary terminated by a one), accepting only the canonical encoding: no '-0', |x| <= 840, zero padding. */
static uint32_t fv_decode_signature(struct fv_work *w, const struct fv_bytes *sig)
{
    const uint32_t logn = w->logn, n = 1u << logn;
    if (sig->len != fv_signature_bytes(logn) || sig->p[0] != 0x30u + logn) {
        return 0;
    }
    fv_copy(w->nonce_mu, sig->p + 1, FV_NONCE_BYTES);
    const uint8_t *d = sig->p + 1 + FV_NONCE_BYTES;
    const uint32_t len = sig->len - 1u - FV_NONCE_BYTES;
    /* acc holds acc_bits unread bits, the next one at bit 0; nothing above them. */
    uint32_t acc = 0, acc_bits = 0, next = 0, norm = 0;
    for (uint32_t i = 0; i < n; i++) {
        if (acc_bits < 8u) {
            if (next == len) {
                return 0;
            }
            acc |= (uint32_t)d[next++] << acc_bits;
            acc_bits += 8u;
        }
        const uint32_t head = acc & 0xFFu;
        acc >>= 8;
        acc_bits -= 8u;
        uint32_t magnitude = head >> 1;
        for (;;) {
            if (acc_bits == 0) {
                if (next == len) {
                    return 0;
                }
                acc = d[next++];
                acc_bits = 8u;
            }
            const uint32_t bit = acc & 1u;
            acc >>= 1;
            acc_bits--;
            if (bit) {
                break;
            }
            magnitude += 128u;
            if (magnitude > FV_B_INF) {
                return 0;
            }
        }
        const uint32_t negative = head & 1u;
        if (negative && magnitude == 0) {
            return 0;
        }
        w->s2h[i] = (int16_t)(negative ? -(int32_t)magnitude : (int32_t)magnitude);
        norm += magnitude * magnitude;
    }
    if (acc != 0) {
        return 0;
    }
    while (next < len) {
        if (d[next++] != 0) {
            return 0;
        }
    }
    w->s2_norm = norm;
    return 1;
}

static int fv_is_one_byte_id(const struct fv_bytes *id, uint8_t value)
{
    return id->len == 1u && id->p[0] == value;
}

/* ---- SHAKE256 over 1 or 4 states side by side ---- */

/* An input made of segments, consumed front to back. */
#define FV_MAX_SEGMENTS 5u
struct fv_chain {
    struct fv_bytes seg[FV_MAX_SEGMENTS];
    uint32_t count, at;
};

static void fv_chain_set(struct fv_chain *c, const struct fv_bytes *segments, uint32_t count)
{
    for (uint32_t k = 0; k < count; k++) {
        c->seg[k] = segments[k];
    }
    c->count = count;
    c->at = 0;
}

/* XORs up to max bytes from the front of the chain into dst; returns how many. */
static uint32_t fv_chain_xor(struct fv_chain *c, uint8_t *dst, uint32_t max)
{
    uint32_t done = 0;
    while (done < max && c->at < c->count) {
        struct fv_bytes *s = &c->seg[c->at];
        uint32_t take = s->len < max - done ? s->len : max - done;
        for (uint32_t k = 0; k < take; k++) {
            dst[done + k] ^= s->p[k];
        }
        s->p += take;
        s->len -= take;
        done += take;
        if (s->len == 0) {
            c->at++;
        }
    }
    return done;
}

/* Permutes the states in mask: the one permutation for a single state, the four-way one for a batch. */
static void fv_permute(uint32_t (*states)[50], unsigned count, unsigned mask)
{
    if (count == 1u) {
        fv_keccak_permute(states[0]);
    } else {
        fv_keccak_permute_x4(states, mask);
    }
}

/* SHAKE256 absorb of input[i] into states[i] for every i in mask, inputs of independent lengths: each round XORs the
 * next block of every state still absorbing (the last one padded), then permutes those states together. */
static void fv_shake256_absorb(uint32_t (*states)[50], struct fv_chain *inputs, unsigned count, unsigned mask)
{
    for (unsigned i = 0; i < count; i++) {
        if (mask >> i & 1u) {
            fv_zero(states[i], sizeof states[i]);
        }
    }
    while (mask) {
        unsigned finished = 0;
        for (unsigned i = 0; i < count; i++) {
            if (mask >> i & 1u) {
                uint8_t *rate = (uint8_t *)states[i];
                uint32_t taken = fv_chain_xor(&inputs[i], rate, FV_SHAKE256_RATE);
                if (taken < FV_SHAKE256_RATE) {
                    rate[taken] ^= 0x1Fu;
                    rate[FV_SHAKE256_RATE - 1u] ^= 0x80u;
                    finished |= 1u << i;
                }
            }
        }
        fv_permute(states, count, mask);
        mask &= ~finished;
    }
}

/* The first 64 bytes of output of each absorbed state in mask (64 <= the rate: no further permutation). */
static void fv_shake256_squeeze64(uint8_t (*out)[64], uint32_t (*states)[50], unsigned count, unsigned mask)
{
    for (unsigned i = 0; i < count; i++) {
        if (mask >> i & 1u) {
            fv_copy(out[i], states[i], 64);
        }
    }
}

/* ---- The verification steps, over count requests side by side ---- */

/* hvk = SHAKE256(vk), then mu, for the live requests (external mu: mu = hv, no hashing). */
static void fv_compute_mu(struct fv_work *w, const struct fv_request *r, unsigned count, uint32_t (*states)[50])
{
    struct fv_chain inputs[FNDSA_VERIFY_BATCH];
    uint8_t hashed[FNDSA_VERIFY_BATCH][64];
    uint8_t prefix[FNDSA_VERIFY_BATCH][2];
    unsigned hashing = 0;
    for (unsigned i = 0; i < count; i++) {
        if (!w[i].alive) {
            continue;
        }
        if (fv_is_one_byte_id(&r[i].id, FV_ID_EXTERNAL_MU)) {
            fv_copy(w[i].nonce_mu + FV_NONCE_BYTES, r[i].hv.p, FV_MU_BYTES); /* length checked by the caller */
        } else {
            hashing |= 1u << i;
            fv_chain_set(&inputs[i], &r[i].vk, 1);
        }
    }
    if (!hashing) {
        return;
    }
    fv_shake256_absorb(states, inputs, count, hashing);
    fv_shake256_squeeze64(hashed, states, count, hashing);
    for (unsigned i = 0; i < count; i++) {
        if (hashing >> i & 1u) {
            const int raw = fv_is_one_byte_id(&r[i].id, FV_ID_RAW);
            prefix[i][0] = raw ? 0u : 1u;
            prefix[i][1] = (uint8_t)r[i].ctx.len;
            const struct fv_bytes segments[FV_MAX_SEGMENTS] = {
                {hashed[i], FV_HVK_BYTES}, {prefix[i], 2}, r[i].ctx, {r[i].id.p, raw ? 0 : r[i].id.len}, r[i].hv,
            };
            fv_chain_set(&inputs[i], segments, FV_MAX_SEGMENTS);
        }
    }
    fv_shake256_absorb(states, inputs, count, hashing);
    uint8_t mu[FNDSA_VERIFY_BATCH][64];
    fv_shake256_squeeze64(mu, states, count, hashing);
    for (unsigned i = 0; i < count; i++) {
        if (hashing >> i & 1u) {
            fv_copy(w[i].nonce_mu + FV_NONCE_BYTES, mu[i], FV_MU_BYTES);
        }
    }
}

/* c = hash-to-point(nonce || mu) for the live requests. Every state absorbs one block (104 bytes) and then yields
 * words at the same positions, so the states stay in step: after each block, the ones still short of n values are
 * permuted together. */
static void fv_hash_to_point(struct fv_work *w, unsigned count, uint32_t (*states)[50])
{
    struct fv_chain inputs[FNDSA_VERIFY_BATCH];
    uint32_t filled[FNDSA_VERIFY_BATCH] = {0};
    unsigned pending = 0;
    for (unsigned i = 0; i < count; i++) {
        if (w[i].alive) {
            pending |= 1u << i;
            const struct fv_bytes nonce_mu = {w[i].nonce_mu, sizeof w[i].nonce_mu};
            fv_chain_set(&inputs[i], &nonce_mu, 1);
        }
    }
    fv_shake256_absorb(states, inputs, count, pending);
    while (pending) {
        for (unsigned i = 0; i < count; i++) {
            if (!(pending >> i & 1u)) {
                continue;
            }
            const uint8_t *rate = (const uint8_t *)states[i];
            const uint32_t n = 1u << w[i].logn;
            for (uint32_t at = 0; at < FV_SHAKE256_RATE && filled[i] < n; at += 2u) {
                uint32_t word = (uint32_t)rate[at] | (uint32_t)rate[at + 1u] << 8;
                if (word < FV_HASH_WORD_LIMIT) {
                    w[i].c[filled[i]++] = (uint16_t)(word % FV_Q);
                }
            }
            if (filled[i] == n) {
                pending &= ~(1u << i);
            }
        }
        if (pending) {
            fv_permute(states, count, pending);
        }
    }
}

static void fv_ntt_fwd(uint32_t logn, int16_t *a)
{
    if (logn == 9u) {
        FV_NTT_KERNEL(512, fwd)(a);
    } else {
        FV_NTT_KERNEL(1024, fwd)(a);
    }
}

static void fv_ntt_pointwise(uint32_t logn, int16_t *r, const int16_t *a, const int16_t *b)
{
    if (logn == 9u) {
        FV_NTT_KERNEL(512, pointwise)(r, a, b);
    } else {
        FV_NTT_KERNEL(1024, pointwise)(r, a, b);
    }
}

static void fv_ntt_inv(uint32_t logn, int16_t *a)
{
    if (logn == 9u) {
        FV_NTT_KERNEL(512, inv)(a);
    } else {
        FV_NTT_KERNEL(1024, inv)(a);
    }
}

/* s1 = c - s2*h, and the norm check. */
static uint32_t fv_check_norm(struct fv_work *w)
{
    const uint32_t logn = w->logn, n = 1u << logn;
    fv_ntt_fwd(logn, w->s2h);
    /* In place: the pointwise kernels read each element before writing it. */
    fv_ntt_pointwise(logn, w->s2h, w->s2h, w->h);
    fv_ntt_inv(logn, w->s2h);
    uint32_t norm = w->s2_norm;
    for (uint32_t i = 0; i < n; i++) {
        int32_t d = (int32_t)w->c[i] - w->s2h[i];
        d %= FV_Q;
        if (d < 0) {
            d += FV_Q;
        }
        if (d > (FV_Q - 1) / 2) {
            d -= FV_Q;
        }
        const uint32_t magnitude = (uint32_t)(d < 0 ? -d : d);
        if (magnitude > FV_B_INF) {
            return 0;
        }
        norm += magnitude * magnitude; /* at most 2n * 840^2 < 2^31 */
    }
    return norm <= fv_sqbeta(logn);
}

/* The verdicts of count framed requests; want_logn as in fv_decode_vk. */
static void fv_verify_requests(uint8_t *verdicts, const struct fv_request *r, unsigned count, uint32_t want_logn)
{
    struct fv_work w[FNDSA_VERIFY_BATCH];
    uint32_t states[FNDSA_VERIFY_BATCH][50];
    for (unsigned i = 0; i < count; i++) {
        w[i].alive = 0;
        if (!fv_decode_vk(&w[i], &r[i].vk, want_logn) || !fv_decode_signature(&w[i], &r[i].sig)) {
            continue;
        }
        if (fv_is_one_byte_id(&r[i].id, FV_ID_EXTERNAL_MU) ? r[i].hv.len != FV_MU_BYTES
                                                            : r[i].ctx.len > FV_MAX_CONTEXT) {
            continue;
        }
        w[i].alive = 1;
    }
    fv_compute_mu(w, r, count, states);
    fv_hash_to_point(w, count, states);
    for (unsigned i = 0; i < count; i++) {
        verdicts[i] = (uint8_t)(w[i].alive && fv_check_norm(&w[i]));
    }
}

uint32_t FV_VERIFY(const uint8_t *request, uint32_t request_len)
{
    struct fv_request r;
    const uint32_t size = fv_frame(&r, request, request_len);
    if (size == 0 || size != request_len) {
        return 0;
    }
    uint8_t verdict;
    fv_verify_requests(&verdict, &r, 1, 0);
    return verdict;
}

void FV_VERIFY_BATCH4(uint8_t verdicts[4], const uint8_t *requests, uint32_t requests_len, uint32_t logn)
{
    struct fv_request r[FNDSA_VERIFY_BATCH];
    uint32_t used = 0;
    fv_zero(verdicts, FNDSA_VERIFY_BATCH);
    for (unsigned i = 0; i < FNDSA_VERIFY_BATCH; i++) {
        uint32_t size = fv_frame(&r[i], requests + used, requests_len - used);
        if (size == 0) {
            return;
        }
        used += size;
    }
    if (used != requests_len || (logn != 9u && logn != 10u)) {
        return;
    }
    fv_verify_requests(verdicts, r, FNDSA_VERIFY_BATCH, logn);
}
