"""Speed of the native backend against the targets of issue 3 (run: python benchmarks/native_speed.py).

1. nodes per second on one core, generated framed 8x8 puzzles (5 inner + 3 border colours), counting
   under a time limit so every run does the same kind of work;
2. the Hunde-Spiel: all solutions and the distinct count, in-process after compilation (median of 200);
3. the Arc experiment: 100 random 3x3 signed puzzles with 4 colours, all solutions of each;
4. a second `edgematch solve` process: wall time to the first answer, with the compiled code cached;
5. an enumeration: `solve --all` under a time limit on a planted 7x7 of 2 colours (solutions without end), the
   boards stored per second and the process's peak memory.
"""

from __future__ import annotations

import argparse
import resource
import statistics
import subprocess
import sys
import time

import edgematch
from edgematch.core.generator import GeneratorSpec, generate, random_tiles
from edgematch.solvers.native.compiled import ensure_compiled


def nodes_per_second(seeds: int, seconds: float) -> None:
    rates = []
    for seed in range(1, seeds + 1):
        puzzle, _ = generate(GeneratorSpec(8, 8, framed=True, border_colours=3, inner_colours=5, seed=seed))
        result = edgematch.count(puzzle, backend="native", time_limit=seconds, memo="off")  # the plain loop
        c = result.counters
        rates.append(c["nodes_per_second"])
        print(f"  8x8 framed 5+3 seed {seed}: {int(c['nodes']):>13,} nodes in {result.timings.solve:5.2f} s "
              f"= {c['nodes_per_second'] / 1e6:5.1f} M nodes/s ({result.status.value}, {result.count} raw so far)")
    print(f"nodes/s: median {statistics.median(rates) / 1e6:.1f} M, min {min(rates) / 1e6:.1f} M, "
          f"max {max(rates) / 1e6:.1f} M")


def hunde(repeats: int) -> None:
    puzzle = edgematch.read_puzzle("examples/hunde.em")
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        all_ = edgematch.solve_all(puzzle, backend="native", distinct=True)
        times.append(time.perf_counter() - start)
    assert (all_.count, all_.distinct, len(all_.solutions)) == (16, 2, 16)
    print(f"Hunde-Spiel all 16 solutions + 2 distinct: median {statistics.median(times) * 1e3:.2f} ms, "
          f"min {min(times) * 1e3:.2f} ms over {repeats} runs")


def arc_experiment(puzzles: int) -> None:
    start = time.perf_counter()
    total = solvable = 0
    for seed in range(puzzles):
        result = edgematch.solve_all(random_tiles(3, 3, 4, "signed", seed=seed), backend="native")
        total += len(result.solutions)
        solvable += bool(result.solutions)
    elapsed = time.perf_counter() - start
    print(f"Arc experiment: {puzzles} random 3x3 puzzles, {total} solutions, {solvable} solvable, "
          f"{elapsed:.3f} s in all")


def second_process() -> None:
    cmd = [sys.executable, "-m", "edgematch", "solve", "examples/insects.em"]
    subprocess.run(cmd, capture_output=True, check=True)  # make sure the cache is written
    walls = []
    for _ in range(3):
        start = time.perf_counter()
        subprocess.run(cmd, capture_output=True, check=True)
        walls.append(time.perf_counter() - start)
    print(f"second `edgematch solve` process: {min(walls):.2f} s wall to the first answer (best of 3)")


def enumeration(seconds: float) -> None:
    from edgematch.solvers.base import Task
    from edgematch.solvers.native import NativeBackend

    puzzle, _ = generate(GeneratorSpec(7, 7, colours=2, seed=1))
    result = NativeBackend().run(puzzle, Task("all", time_limit=seconds))
    c = result.counters
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(f"enumeration, 7x7 of 2 colours, {seconds:g} s: {int(c['boards']):,} boards stored, "
          f"{c['nodes_per_second'] / 1e6:.1f} M nodes/s, peak {peak:.0f} MiB")


PARTS = ("nodes", "hunde", "arc", "start", "enumeration")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seeds", type=int, default=5)
    parser.add_argument("--seconds", type=float, default=5.0)
    parser.add_argument("--only", choices=PARTS, action="append", help="run only these parts (repeatable)")
    args = parser.parse_args()
    parts = args.only or PARTS
    print(f"compiled code loaded in {ensure_compiled():.2f} s")
    if "nodes" in parts:
        nodes_per_second(args.seeds, args.seconds)
    if "hunde" in parts:
        hunde(200)
    if "arc" in parts:
        arc_experiment(100)
    if "start" in parts:
        second_process()
    if "enumeration" in parts:  # last: its stored boards stay in this process's peak memory
        enumeration(min(args.seconds, 2.0))


if __name__ == "__main__":
    main()
