"""The FN-DSA forward NTTs SLOTHY schedules (kernels/slothy/schedule): the body of each loop of the source, for each
core. The same configuration as the ML-KEM NTTs (jobs_ntt.py), with the FN-DSA sources' loops and kept registers.

Source: the kernel in assembly, one `le` loop per layer or pair of layers; output: the same function under the name of
the scheduled kernel (`fndsa_ntt512_fwd_slothy_m55`), registered beside the C kernel (families/src/fndsa_ntt.rs).
"""

from jobs_ntt import CORES, TIMEOUT, loops_job

FNDSA = "kernels/arm/fndsa_ntt/slothy"
# The registers live across the loops that no loop reads (the array, the scratch, the two tables).
ACROSS_LOOPS = ["r0", "r9", "r10", "r11"]
LAST = ["last_dist4", "last_dist21"]
# kernel name -> (source, its function, its loops, the buffers of `equiv`: the array, the scratch, rows, zeta pairs)
KERNELS = {
    "fndsa.ntt512.fwd": (
        f"{FNDSA}/fndsa_ntt512_fwd.s",
        "fndsa_ntt512_fwd_asm",
        ["layer0", "layer12_low", "layer12_high", "layer3", "layer45", *LAST],
        "r0:1024,r9:1024,r10:1792,r11:512",
    ),
    "fndsa.ntt1024.fwd": (
        f"{FNDSA}/fndsa_ntt1024_fwd.s",
        "fndsa_ntt1024_fwd_asm",
        ["layer0", "layer12_low", "layer12_high", "layer34", "layer56", *LAST],
        "r0:2048,r9:2048,r10:3584,r11:512",
    ),
}


def jobs():
    return [
        loops_job(name, core, source, function, loops, kept=ACROSS_LOOPS, addr=addr)
        for name, (source, function, loops, addr) in KERNELS.items()
        for core in CORES
    ]
