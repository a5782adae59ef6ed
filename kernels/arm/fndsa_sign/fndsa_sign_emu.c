/* fndsa_sign_emu.c: fndsa_sign.c compiled again on our soft-float (softfloat.c): the portable build of FN-DSA
 * signing, binary64 bit patterns in integer arithmetic; see fp64.h. */
#define PQH_FP64_EMU
#include "fndsa_sign.c"
