#ifndef PQH_X25519_BASE_TABLE_H
#define PQH_X25519_BASE_TABLE_H
#include <stdint.h>

#include "fe.h"

/* The signed-window table of x25519.base (base_table.c, generated): (j + 1) 8^i B for 86 windows i and j = 0..3,
 * each entry (y + x, y - x, 2 d x y) as three canonical elements of 8 limbs. */
#define X25519_BASE_WINDOWS 86
#define X25519_BASE_ENTRIES 4
#define X25519_BASE_WINDOW_BITS 3
#define X25519_NIELS_WORDS (3 * X25519_FE_LIMBS)

extern const uint32_t x25519_base_table[X25519_BASE_WINDOWS][X25519_BASE_ENTRIES][X25519_NIELS_WORDS];

#endif
