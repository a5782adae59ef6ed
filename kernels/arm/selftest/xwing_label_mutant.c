/*
 * A planted mutant of the portable X-Wing build (xwing/xwing.c): one wrong byte of the combiner's label. The draft's
 * test vectors and the host reference must both fail on it (schemes/tests/on_guest.rs).
 */
#define XWING_API(name) xwing_label_mutant_##name
#define PQH_LABEL_MUTANT
#include "../xwing/xwing.c"
