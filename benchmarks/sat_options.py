"""CNF clause options and SAT solvers compared (run: python benchmarks/sat_options.py [--seeds N] [--limit S]).

First solution of generated framed puzzles with two label sets (3 border colours, side - 2 inner unless given),
median over seeds of encode + solve time; timeouts count at the limit. Options are swept with the
default solver, solvers with the default options.
"""

from __future__ import annotations

import argparse
import statistics

import edgematch
from edgematch.core.generator import GeneratorSpec, generate
from edgematch.solvers.sat import DEFAULT_SOLVER

OPTION_VARIANTS = [
    ("one_to_one on, forbidden on", {}),
    ("one_to_one off, forbidden on", {"one_to_one": False}),
    ("one_to_one on, forbidden off", {"forbidden": False}),
    ("one_to_one off, forbidden off", {"one_to_one": False, "forbidden": False}),
]
SOLVERS = ("glucose4", "cadical195", "minisat22", "maplechrono", "lingeling")


def median_time(backend: str, options: dict, size: int, inner: int, seeds: int, limit: float) -> str:
    times, timeouts = [], 0
    for seed in range(1, seeds + 1):
        spec = GeneratorSpec(size, size, framed=True, border_colours=3, inner_colours=inner, seed=seed)
        puzzle, _ = generate(spec)
        result = edgematch.solve(puzzle, backend=backend, time_limit=limit, **options)
        timeouts += result.status.value == "timeout"
        times.append(result.timings.build + result.timings.solve)
    return f"{statistics.median(times):7.2f} s" + (f" ({timeouts} timeouts)" if timeouts else "")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seeds", type=int, default=3)
    parser.add_argument("--limit", type=float, default=30.0)
    parser.add_argument("--sizes", type=int, nargs="+", default=[7, 8])
    parser.add_argument("--inner-colours", type=int, default=None, help="default: side - 2")
    args = parser.parse_args()
    for size in args.sizes:
        inner = args.inner_colours or size - 2
        for label, options in OPTION_VARIANTS:
            print(f"framed {size}x{size} 3+{inner} sat:{DEFAULT_SOLVER} {label:30}: "
                  f"{median_time(f'sat:{DEFAULT_SOLVER}', options, size, inner, args.seeds, args.limit)}", flush=True)
        for solver in SOLVERS:
            print(f"framed {size}x{size} 3+{inner} sat:{solver:12} default options       : "
                  f"{median_time(f'sat:{solver}', {}, size, inner, args.seeds, args.limit)}", flush=True)


if __name__ == "__main__":
    main()
