"""The NTT kernels SLOTHY schedules (kernels/slothy/schedule): the body of each loop of the source, for each core.

Source: the kernel in assembly with one `le` loop per pass; output: the same function under the name of the
scheduled kernel (`mlkem_ntt_fwd_slothy_m55`), registered beside the C kernel (families/src/mlkem_ntt.rs).
"""

import slothy.targets.arm_v81m.arch_v81m as arch

CORES = ("m55", "m85")
# Solver seconds per attempt: SLOTHY's search for the smallest stall count makes a few attempts per loop.
TIMEOUT = 30

MLKEM = "kernels/arm/mlkem_ntt/slothy"
# The registers live across the loops that no loop reads (p, the twiddle tables): SLOTHY renames any register it is
# not told to keep, so each loop would take them as temporaries.
ACROSS_LOOPS = ["r0", "r10", "r11"]
# kernel name -> (source, its function, its loops)
KERNELS = {
    "mlkem.ntt.fwd": (f"{MLKEM}/mlkem_ntt_fwd.s", "mlkem_ntt_fwd_asm", ["layer12", "layer34", "layer5", "layer67"]),
    "mlkem.ntt.inv": (f"{MLKEM}/mlkem_ntt_inv.s", "mlkem_ntt_inv_asm", ["layer76", "layer5", "layer43", "layer21"]),
}


def loops_job(name, core, source, function, loops, kept=ACROSS_LOOPS, addr="r0:512,r10:768,r11:512"):
    """The job scheduling each loop of `source` for `core`; `kept`: the registers live across the loops that no loop
    reads; `addr`: the buffers of `equiv` (`--addr`)."""
    symbol = f"{function.removesuffix('_asm')}_slothy_{core}"

    def run(slothy):
        # The pointers, -q and the twiddles live across the passes: nothing a loop reads may be overwritten.
        slothy.config.inputs_are_outputs = True
        slothy.config.reserved_regs = sorted(arch.RegisterType.default_reserved() | set(kept))
        # Each loop body is scheduled on its own (no software pipelining: bounded solver time on long bodies),
        # with the stall count a variable of the model rather than a search.
        slothy.config.variable_size = True
        slothy.config.constraints.stalls_first_attempt = 16
        for loop in loops:
            slothy.optimize_loop(loop)
        # Every mention (label, .global, .type, .size): SLOTHY's rename_function leaves `.size`'s expression.
        slothy.set_source_as_string(slothy.get_source_as_string().replace(function, symbol))

    return {
        "name": f"{name}.slothy_{core}",
        "core": core,
        "source": source,
        "output": f"{source.rsplit('/', 1)[0]}/{symbol}.mve.S",
        "timeout": TIMEOUT,
        "run": run,
        # The array and the tables, for `schedule --pqhelium` (equiv's check of the output against the source).
        "equiv": ["--addr", addr],
    }


def jobs():
    return [loops_job(name, core, *kernel) for name, kernel in KERNELS.items() for core in CORES]
