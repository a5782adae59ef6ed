/* sampler_fp_emu.c: sampler_fp.c compiled again on our soft-float (softfloat.c), binary64 bit patterns in integer arithmetic;
 * see fp64.h. */
#define PQH_FP64_EMU
#include "sampler_fp.c"
