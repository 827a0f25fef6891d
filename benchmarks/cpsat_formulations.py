"""CP-SAT formulations compared (run: python benchmarks/cpsat_formulations.py [--seeds N] [--limit S]).

First solution of generated framed puzzles (3 border colours, inner colours = side - 1 unless given), one worker,
seed 0, symmetry breaking on; median build + solve time over seeds, timeouts counted at the limit, and the
median number of CP-SAT conflicts (a count that does not depend on the machine's load).
"""

from __future__ import annotations

import argparse
import statistics

import edgematch
from edgematch.core.generator import GeneratorSpec, generate

FORMULATIONS = ("cpsat", "cpsat:table")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seeds", type=int, default=5)
    parser.add_argument("--limit", type=float, default=60.0)
    parser.add_argument("--sizes", type=int, nargs="+", default=[6, 7, 8])
    parser.add_argument("--inner-colours", type=int, default=None, help="default: side - 1")
    args = parser.parse_args()
    for n in args.sizes:
        inner = args.inner_colours or n - 1
        line = [f"framed {n}x{n} 3+{inner}"]
        medians = {}
        for backend in FORMULATIONS:
            times, builds, conflicts, timeouts = [], [], [], 0
            for seed in range(1, args.seeds + 1):
                spec = GeneratorSpec(n, n, framed=True, border_colours=3, inner_colours=inner, seed=seed)
                puzzle, _ = generate(spec)
                result = edgematch.solve(puzzle, backend=backend, time_limit=args.limit)
                timeouts += result.status.value == "timeout"
                times.append(result.timings.build + result.timings.solve)
                builds.append(result.timings.build)
                conflicts.append(result.counters.get("conflicts", 0))
            medians[backend] = statistics.median(times)
            line.append(f"{backend}: median {medians[backend]:7.2f} s (build {statistics.median(builds):.2f} s, "
                        f"{statistics.median(conflicts):,.0f} conflicts)"
                        + (f", {timeouts} timeouts" if timeouts else ""))
        ratio = medians["cpsat:table"] / medians["cpsat"]
        print(" | ".join(line) + f" | table/bool = {ratio:.2f}", flush=True)


if __name__ == "__main__":
    main()
