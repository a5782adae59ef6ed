"""SLOTHY jobs of the Keccak kernels (`kernels/slothy/schedule` runs them): the scalar Keccak-f[1600] and the
four-way MVE one (their input form from `keccak_source.py`), each scheduled for the Cortex-M55 and the Cortex-M85
models into `kernels/arm/keccak/slothy/`.

Every region of a round is scheduled alone and whole (SLOTHY does not model memory, so the regions are cut where a
store is read back, and per output row where a round's last step would be too large for one bounded solve). The
pointers a region reads are live across regions: they are kept (`inputs_are_outputs`), the rest is renamed freely.
"""

CORES = ("m55", "m85")
SCALAR_SOURCE = "kernels/slothy/keccak/keccak_f1600.s"
X4_SOURCE = "kernels/slothy/keccak/keccak_f1600x4.mve.s"
OUT_DIR = "kernels/arm/keccak/slothy"
# Solver seconds per region: the largest scalar region (70 instructions) is proven optimal in about 25 s on a loaded
# machine; at the limit SLOTHY keeps the best schedule found.
SCALAR_TIMEOUT = 60
X4_TIMEOUT = 90
# Stall budget of the one solve per region (`variable_size`: the solver minimises the stalls within it); an x4 row,
# short of vector registers, needs about a dozen.
FIRST_STALLS = 32

# The buffers each region addresses (for `pqhelium equiv`): the state (25 lanes of 8 bytes), the round's scratch
# frame (keccak_source.py: the other state, C, D, B), the round constants (24 rounds of 8 bytes).
STATE, FRAME, CONSTANTS = 200, 496, 192
# Regions: (name, the buffers of its address registers, the registers it reads and so keeps). rho_pi's rows read
# the zero register r3 (set before them); only chi_iota's first row reads the round constants (r3), the others may
# take r3 as a temporary.
SCALAR_REGIONS = (
    [("theta_c", f"r0:{STATE},r2:{FRAME}", "r0,r2"), ("theta_d", f"r2:{FRAME}", "r2")]
    + [(f"rho_pi_{y}", f"r0:{STATE},r2:{FRAME}", "r0,r2,r3") for y in range(5)]
    + [("chi_iota_0", f"r1:{STATE},r2:{FRAME},r3:{CONSTANTS}", "r1,r2,r3")]
    + [(f"chi_iota_{y}", f"r1:{STATE},r2:{FRAME}", "r1,r2") for y in range(1, 5)]
)
# x4: each state buffer has two bases (low and high 400 bytes), C and D are 160 bytes each.
X4_HALF, X4_CD = 400, 160
X4_IN, X4_OUT = f"r0:{X4_HALF},r2:{X4_HALF}", f"r1:{X4_HALF},r3:{X4_HALF}"
# No x4 region writes a core register: the pointers, the round constants' halves (r6, r7), the constants pointer and
# the round count are all kept.
X4_REGIONS = (
    [("theta_c", f"{X4_IN},r4:{X4_CD}", "r0-r12"), ("theta_d", f"r4:{X4_CD},r5:{X4_CD}", "r0-r12")]
    + [(f"rows_{y}{h}", f"{X4_IN},{X4_OUT},r5:{X4_CD}", "r0-r12") for y in range(5) for h in (0, 1)]
)


def schedule(source_symbol, symbol, regions):
    def run(slothy):
        # Regions only store to memory; the registers they read are kept for the next region and round.
        slothy.config.outputs = []
        slothy.config.inputs_are_outputs = True
        slothy.config.variable_size = True
        slothy.config.constraints.stalls_first_attempt = FIRST_STALLS
        # The source's order and registers are the solver's starting point.
        slothy.config.hints.order_hint_orig_order = True
        slothy.config.hints.rename_hint_orig_rename = True
        for name, _, _ in regions:
            slothy.optimize(start=f"{name}_start", end=f"{name}_end")
        # Every mention (label, .global, .type, .size): SLOTHY's rename_function leaves `.size`'s expression.
        slothy.set_source_as_string(slothy.get_source_as_string().replace(source_symbol, symbol))
    return run


def job(name, core, source, output, timeout, source_symbol, regions):
    return {
        "name": name, "core": core, "source": source, "output": output, "timeout": timeout,
        "run": schedule(source_symbol, f"{source_symbol}_{core}", regions),
        "regions": [(f"{r}_start", f"{r}_end", ["--addr", addr, "--preserve", kept]) for r, addr, kept in regions],
    }


def jobs():
    out = []
    for core in CORES:
        out.append(job(f"keccak.f1600.slothy_{core}", core, SCALAR_SOURCE, f"{OUT_DIR}/keccak_f1600_{core}.S",
                       SCALAR_TIMEOUT, "keccak_f1600_interleaved_slothy", SCALAR_REGIONS))
        out.append(job(f"keccak.f1600x4.mve.slothy_{core}", core, X4_SOURCE, f"{OUT_DIR}/keccak_f1600x4_{core}.mve.S",
                       X4_TIMEOUT, "keccak_f1600x4_interleaved_slothy", X4_REGIONS))
    return out
