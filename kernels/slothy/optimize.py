"""Schedules one region with SLOTHY for a Cortex-M55 or M85 model, then checks the result with `pqhelium equiv`.

SLOTHY's own self-check cannot run on Armv8.1-M (its unicorn has no MVE); `pqhelium equiv` runs both regions on
QEMU from the same random states instead. Run with the interpreter of .venv-slothy (`ci/setup --slothy`):

    .venv-slothy/bin/python kernels/slothy/optimize.py --core m55 --outputs q0-q7 --timeout 10 \\
        --pqhelium target/debug/pqhelium examples/equiv/butterfly.s /tmp/butterfly_m55.s

Exit code 0 only when SLOTHY found a schedule and `equiv` found it equivalent (docs/slothy.md).
"""

import argparse
import logging
import re
import subprocess
import sys

from slothy import Slothy
import slothy.targets.arm_v81m.arch_v81m as arch
import slothy.targets.arm_v81m.cortex_m55r1 as cortex_m55r1
import slothy.targets.arm_v81m.cortex_m85r1 as cortex_m85r1

MODELS = {"m55": cortex_m55r1, "m85": cortex_m85r1}
CORE_REGISTERS = [f"r{n}" for n in range(13)]
VECTOR_REGISTERS = [f"q{n}" for n in range(8)]


def registers(text):
    """`r4-r11,q0-q3` as a list of register names."""
    names = []
    for item in filter(None, (s.strip() for s in text.split(","))):
        match = re.fullmatch(r"([rq])(\d+)(?:-[rq](\d+))?", item)
        if not match:
            sys.exit(f"`{item}` is not a register or a range of registers")
        kind, first, last = match.group(1), int(match.group(2)), int(match.group(3) or match.group(2))
        names += [f"{kind}{n}" for n in range(first, last + 1)]
    return names


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--core", choices=MODELS, required=True)
    parser.add_argument("--start", default="start", help="label before the region")
    parser.add_argument("--end", default="end", help="label after the region")
    parser.add_argument("--outputs", required=True, help="registers live after the region, e.g. q0-q7,r0")
    parser.add_argument("--reserve", default="", help="registers SLOTHY must leave alone, e.g. r4-r11")
    parser.add_argument("--timeout", type=int, default=60, help="solver time limit per attempt, seconds")
    parser.add_argument("--pqhelium", help="the pqhelium binary: check the schedule with `pqhelium equiv`")
    parser.add_argument("--addr", help="`pqhelium equiv --addr` (inferred when absent)")
    parser.add_argument("--states", type=int, default=200, help="random states `equiv` runs")
    parser.add_argument("source")
    parser.add_argument("output")
    args = parser.parse_args()
    logging.basicConfig(level=logging.WARNING)

    outputs = registers(args.outputs)
    reserved = registers(args.reserve)
    slothy = Slothy(arch, MODELS[args.core])
    slothy.load_source_from_file(args.source)
    slothy.config.outputs = outputs
    slothy.config.reserved_regs = reserved
    slothy.config.timeout = args.timeout
    # Its unicorn-based self-test does not run on Armv8.1-M (no MVE): `equiv` below is the self-test.
    slothy.config.selftest = False
    slothy.optimize(start=args.start, end=args.end)
    slothy.write_source_to_file(args.output)

    if args.pqhelium is None:
        return 0
    # SLOTHY keeps the outputs and may rename everything else: only the outputs, the reserved registers and memory
    # must come out as the source leaves them.
    ignored = [r for r in CORE_REGISTERS + VECTOR_REGISTERS if r not in outputs and r not in reserved]
    command = [args.pqhelium, "equiv", "--core", args.core, args.source, args.output,
               "--region", f"{args.start}:{args.end}", "--states", str(args.states)]
    command += ["--ignore", ",".join(ignored)] if ignored else []
    command += ["--preserve", ",".join(reserved)] if reserved else []
    command += ["--addr", args.addr] if args.addr is not None else []
    return subprocess.run(command, check=False).returncode


if __name__ == "__main__":
    sys.exit(main())
