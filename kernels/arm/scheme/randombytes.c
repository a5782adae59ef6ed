/*
 * randombytes: the NIST PQC AES-256-CTR DRBG (no derivation function, no prediction resistance), as the NIST KAT
 * procedure seeds it before each entry. AES-256 is byte-oriented with an S-box computed at seeding time: this is the
 * bench's source of randomness, not a kernel, and it is not constant time (its table lookups depend on the key).
 * Host oracle: pqhelium_core::drbg::NistDrbg.
 */
#include "randombytes.h"

#define AES_ROUNDS 14
#define AES_BLOCK 16
#define DRBG_KEY_BYTES 32

static uint8_t sbox[256];
static uint8_t drbg_key[DRBG_KEY_BYTES];
static uint8_t drbg_v[AES_BLOCK];

static uint8_t rotl8(uint8_t x, unsigned n)
{
    return (uint8_t)((x << n) | (x >> (8u - n)));
}

/* The S-box from its definition: p walks the multiplicative group by powers of 3, q by powers of 3^-1 (so q = p^-1),
 * then the affine map. */
static void compute_sbox(void)
{
    uint8_t p = 1, q = 1;
    do {
        p = (uint8_t)(p ^ (p << 1) ^ ((p & 0x80u) ? 0x1Bu : 0u));
        q ^= (uint8_t)(q << 1);
        q ^= (uint8_t)(q << 2);
        q ^= (uint8_t)(q << 4);
        if (q & 0x80u)
            q ^= 0x09u;
        sbox[p] = (uint8_t)(q ^ rotl8(q, 1) ^ rotl8(q, 2) ^ rotl8(q, 3) ^ rotl8(q, 4) ^ 0x63u);
    } while (p != 1);
    sbox[0] = 0x63u;
}

static uint8_t xtime(uint8_t x)
{
    return (uint8_t)((x << 1) ^ ((x & 0x80u) ? 0x1Bu : 0u));
}

/* FIPS 197 key expansion for AES-256: 15 round keys of 16 bytes. */
static void expand_key(uint8_t rk[(AES_ROUNDS + 1) * AES_BLOCK], const uint8_t key[DRBG_KEY_BYTES])
{
    uint8_t rcon = 1;
    for (unsigned i = 0; i < DRBG_KEY_BYTES; i++)
        rk[i] = key[i];
    for (unsigned i = DRBG_KEY_BYTES / 4; i < 4u * (AES_ROUNDS + 1); i++) {
        uint8_t t[4] = {rk[4 * i - 4], rk[4 * i - 3], rk[4 * i - 2], rk[4 * i - 1]};
        if (i % 8u == 0) {
            uint8_t first = t[0];
            t[0] = (uint8_t)(sbox[t[1]] ^ rcon);
            t[1] = sbox[t[2]];
            t[2] = sbox[t[3]];
            t[3] = sbox[first];
            rcon = xtime(rcon);
        } else if (i % 8u == 4) {
            for (unsigned j = 0; j < 4; j++)
                t[j] = sbox[t[j]];
        }
        for (unsigned j = 0; j < 4; j++)
            rk[4 * i + j] = (uint8_t)(rk[4 * i + j - DRBG_KEY_BYTES] ^ t[j]);
    }
}

static void aes256_encrypt(uint8_t out[AES_BLOCK], const uint8_t rk[(AES_ROUNDS + 1) * AES_BLOCK],
                           const uint8_t in[AES_BLOCK])
{
    uint8_t s[AES_BLOCK];
    for (unsigned i = 0; i < AES_BLOCK; i++)
        s[i] = (uint8_t)(in[i] ^ rk[i]);
    for (unsigned round = 1; round <= AES_ROUNDS; round++) {
        uint8_t t[AES_BLOCK];
        /* SubBytes and ShiftRows: byte r + 4c (row r, column c) comes from column c + r. */
        for (unsigned c = 0; c < 4; c++)
            for (unsigned r = 0; r < 4; r++)
                t[r + 4 * c] = sbox[s[r + 4 * ((c + r) % 4)]];
        if (round != AES_ROUNDS) {
            for (unsigned c = 0; c < 4; c++) {
                uint8_t *a = &t[4 * c];
                uint8_t all = (uint8_t)(a[0] ^ a[1] ^ a[2] ^ a[3]), first = a[0];
                a[0] ^= (uint8_t)(all ^ xtime((uint8_t)(a[0] ^ a[1])));
                a[1] ^= (uint8_t)(all ^ xtime((uint8_t)(a[1] ^ a[2])));
                a[2] ^= (uint8_t)(all ^ xtime((uint8_t)(a[2] ^ a[3])));
                a[3] ^= (uint8_t)(all ^ xtime((uint8_t)(a[3] ^ first)));
            }
        }
        for (unsigned i = 0; i < AES_BLOCK; i++)
            s[i] = (uint8_t)(t[i] ^ rk[AES_BLOCK * round + i]);
    }
    for (unsigned i = 0; i < AES_BLOCK; i++)
        out[i] = s[i];
}

/* V + 1 as a big-endian 128-bit integer. */
static void increment_v(void)
{
    for (int i = AES_BLOCK - 1; i >= 0; i--)
        if (++drbg_v[i] != 0)
            break;
}

/* AES256_CTR_DRBG_Update: three blocks of keystream, xored with the provided data (if any), become key || V. */
static void drbg_update(const uint8_t *provided)
{
    uint8_t rk[(AES_ROUNDS + 1) * AES_BLOCK], temp[PQH_DRBG_SEED_BYTES];
    expand_key(rk, drbg_key);
    for (unsigned b = 0; b < PQH_DRBG_SEED_BYTES / AES_BLOCK; b++) {
        increment_v();
        aes256_encrypt(&temp[AES_BLOCK * b], rk, drbg_v);
    }
    if (provided)
        for (unsigned i = 0; i < PQH_DRBG_SEED_BYTES; i++)
            temp[i] ^= provided[i];
    for (unsigned i = 0; i < DRBG_KEY_BYTES; i++)
        drbg_key[i] = temp[i];
    for (unsigned i = 0; i < AES_BLOCK; i++)
        drbg_v[i] = temp[DRBG_KEY_BYTES + i];
}

void randombytes_init(const uint8_t *entropy_input, const uint8_t *personalization_string, int security_strength)
{
    (void)security_strength; /* always 256 */
    uint8_t seed_material[PQH_DRBG_SEED_BYTES];
    compute_sbox();
    for (unsigned i = 0; i < PQH_DRBG_SEED_BYTES; i++)
        seed_material[i] = (uint8_t)(entropy_input[i] ^ (personalization_string ? personalization_string[i] : 0u));
    for (unsigned i = 0; i < DRBG_KEY_BYTES; i++)
        drbg_key[i] = 0;
    for (unsigned i = 0; i < AES_BLOCK; i++)
        drbg_v[i] = 0;
    drbg_update(seed_material);
}

/* The bytes pqh_with_randomness* hands out, while it runs. */
static const uint8_t *replay;
static size_t replay_left;

/* A copy whose time does not depend on the bytes: the two runs of a constant-time pair differ only in them. */
static void replay_bytes(uint8_t *out, size_t n)
{
    for (size_t i = 0; i < n; i++)
        out[i] = i < replay_left ? replay[i] : 0u;
    size_t used = n < replay_left ? n : replay_left;
    replay += used;
    replay_left -= used;
}

int randombytes(uint8_t *out, size_t n)
{
    if (replay) {
        replay_bytes(out, n);
        return 0;
    }
    uint8_t rk[(AES_ROUNDS + 1) * AES_BLOCK], block[AES_BLOCK];
    expand_key(rk, drbg_key);
    while (n > 0) {
        size_t take = n < AES_BLOCK ? n : AES_BLOCK;
        increment_v();
        aes256_encrypt(block, rk, drbg_v);
        for (size_t i = 0; i < take; i++)
            out[i] = block[i];
        out += take;
        n -= take;
    }
    drbg_update(0);
    return 0;
}

_Static_assert(PQH_DRBG_STATE_BYTES == DRBG_KEY_BYTES + AES_BLOCK, "randombytes.h");

void pqh_randombytes_save(uint8_t state[PQH_DRBG_STATE_BYTES])
{
    for (unsigned i = 0; i < DRBG_KEY_BYTES; i++)
        state[i] = drbg_key[i];
    for (unsigned i = 0; i < AES_BLOCK; i++)
        state[DRBG_KEY_BYTES + i] = drbg_v[i];
}

void pqh_randombytes_restore(const uint8_t state[PQH_DRBG_STATE_BYTES])
{
    compute_sbox();
    for (unsigned i = 0; i < DRBG_KEY_BYTES; i++)
        drbg_key[i] = state[i];
    for (unsigned i = 0; i < AES_BLOCK; i++)
        drbg_v[i] = state[DRBG_KEY_BYTES + i];
}

int pqh_with_randomness2(const uint8_t *bytes, size_t n, int (*op)(uint8_t *, uint8_t *), uint8_t *a, uint8_t *b)
{
    replay = bytes;
    replay_left = n;
    int result = op(a, b);
    replay = 0;
    return result;
}

int pqh_with_randomness3(const uint8_t *bytes, size_t n, int (*op)(uint8_t *, uint8_t *, const uint8_t *), uint8_t *a,
                         uint8_t *b, const uint8_t *c)
{
    replay = bytes;
    replay_left = n;
    int result = op(a, b, c);
    replay = 0;
    return result;
}
