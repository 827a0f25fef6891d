"""The best-score question on CP-SAT and (Max)SAT, measured (issue 16). Not part of the test suite.

Run on one core, e.g. ``taskset -c 1 python benchmarks/best_cpsat_sat.py ladder`` and ``... scores``:

- ``ladder``: for each backend, framed boards n x n from ``--start`` upwards (E2-like, ``GeneratorSpec(n, n,
  like="e2")``, or ``--family framed``: 2 rim + 4 inner colours), ``--seeds`` seeds each, until a size is
  not proven optimal within ``--limit`` seconds on every seed; prints every run and the largest size proven.
- ``scores``: 16x16 E2-like boards (``--size``), seeds 1-3 (``--seeds``), ``--limit`` seconds each: the best
  score per backend and run, the mean, and when the first board came.

Every backend runs with ``workers=1``; every board is re-scored by the checker (``edgematch.best`` does it).
"""

from __future__ import annotations

import argparse
import statistics
import time

import edgematch
from edgematch.core.generator import GeneratorSpec, generate

BACKENDS = {  # label -> (backend, options)
    "cpsat": ("cpsat", {}),
    "sat:linear": ("sat", {"maxsat": "linear"}),
    "sat:rc2": ("sat", {"maxsat": "rc2"}),
}


def board(size: int, seed: int, family: str) -> edgematch.Puzzle:
    if family == "e2":
        spec = GeneratorSpec(size, size, like="e2", seed=seed)
    else:
        spec = GeneratorSpec(size, size, framed=True, border_colours=2, inner_colours=4, seed=seed)
    return generate(spec)[0]


def run(label: str, puzzle: edgematch.Puzzle, limit: float) -> edgematch.Result:
    backend, options = BACKENDS[label]
    started = time.perf_counter()
    result = edgematch.best(puzzle, backend=backend, time_limit=limit, workers=1, **options)
    result.options["wall"] = time.perf_counter() - started
    return result


def line(label: str, size: int, seed: int, result: edgematch.Result) -> str:
    first = f"{result.history[0][0]:.1f}" if result.history else "-"
    return (f"{label:11} {size:2}x{size:<2} seed {seed}: {result.status.value:8} score {result.score}/"
            f"{result.max_score}  {result.options['wall']:6.1f} s  first board {first} s  "
            f"improvements {len(result.history)}")


def ladder(args: argparse.Namespace) -> None:
    for label in args.backends:
        largest = None
        for size in range(args.start, args.stop + 1):
            proven = True
            for seed in range(1, args.seeds + 1):
                result = run(label, board(size, seed, args.family), args.limit)
                print(line(label, size, seed, result), flush=True)
                proven = proven and result.optimal
                if not proven:
                    break
            if not proven:
                break
            largest = size
        print(f"== {label}: largest {args.family} board proven optimal within {args.limit:g} s on all "
              f"{args.seeds} seed(s): {f'{largest}x{largest}' if largest else 'none'}", flush=True)


def scores(args: argparse.Namespace) -> None:
    for label in args.backends:
        got = []
        for seed in range(1, args.seeds + 1):
            result = run(label, board(args.size, seed, "e2"), args.limit)
            print(line(label, args.size, seed, result), flush=True)
            got.append(result.score)
        found = [s for s in got if s is not None]
        mean = f"{statistics.mean(found):.1f}" if found else "-"
        print(f"== {label}: {args.size}x{args.size} E2-like, {args.limit:g} s: mean score {mean} "
              f"(boards found on {len(found)} of {len(got)} seeds)", flush=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("what", choices=("ladder", "scores"))
    parser.add_argument("--backends", nargs="+", default=list(BACKENDS), choices=list(BACKENDS))
    parser.add_argument("--limit", type=float, default=60.0)
    parser.add_argument("--seeds", type=int, default=None)
    parser.add_argument("--family", choices=("e2", "framed"), default="e2")
    parser.add_argument("--start", type=int, default=4)
    parser.add_argument("--stop", type=int, default=16)
    parser.add_argument("--size", type=int, default=16)
    args = parser.parse_args()
    if args.seeds is None:
        args.seeds = 1 if args.what == "ladder" else 3
    (ladder if args.what == "ladder" else scores)(args)


if __name__ == "__main__":
    main()
