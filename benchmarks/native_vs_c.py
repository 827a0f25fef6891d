"""Native against the plain C yardstick (run: python benchmarks/native_vs_c.py [--seeds 1,2,4,5,7] [--runs 5]).

Issue 14's target: the native backend's full count of a framed 6x6 with a few hundred solutions takes at most
0.5x the wall time of the same count by a plain C backtracker (benchmarks/yardstick/backtrack.c, built with
gcc -O3 -march=native), whole processes: ``edgematch count FILE -b native`` against ``backtrack count FILE``,
median of --runs runs each (interleaved), CPU time from getrusage(RUSAGE_CHILDREN) deltas. Both must print the
same raw count (every tile and turn assignment). The puzzles: generated framed 6x6 boards, 3 border and
6 inner colours; seeds 1, 2, 4, 5, 7 are the first five of that family with 200-999 raw solutions (their
counts are checked). Node rates: the C program's nodes over its own search time, native's as it reports them
(its nodes are fewer: it groups identical tiles and keeps colour-indexed candidate lists).

Figures are only quotable on an idle machine: the load average is printed before and after.
``--selftest`` instead checks the yardstick's raw counts against native on small puzzles (seconds).
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
from pathlib import Path

import yardstick

import edgematch
from edgematch import GeneratorSpec, generate

# raw counts of the default puzzles (framed 6x6, 3 border + 6 inner colours), by seed
EXPECTED = {1: 384, 2: 256, 4: 256, 5: 256, 7: 256}


def measure(seed: int, border: int, inner: int, runs: int, core: int | None, folder: Path) -> dict:
    puzzle, _ = generate(GeneratorSpec(6, 6, framed=True, border_colours=border, inner_colours=inner, seed=seed))
    em_file = folder / f"6x6-{border}+{inner}-s{seed}.em"
    c_file = folder / f"6x6-{border}+{inner}-s{seed}.txt"
    edgematch.write_puzzle(puzzle, em_file)
    yardstick.write_puzzle(puzzle, c_file)
    em_cmd = [*yardstick.edgematch_command(), "count", str(em_file), "-b", "native"]
    c_runs, em_runs = [], []
    for _ in range(runs):
        c_runs.append(yardstick.run("count", c_file, core=core))
        code, wall, cpu, out = yardstick.timed(em_cmd, core=core)
        if code != 0:
            raise SystemExit(f"`{' '.join(em_cmd)}` exited {code}:\n{out}")
        count, nodes, rate = yardstick.parse_edgematch(out)
        em_runs.append((wall, cpu, count, nodes, rate))
    c_counts = {r.solutions for r in c_runs}
    em_counts = {r[2] for r in em_runs}
    return {
        "puzzle": f"6x6 framed {border}+{inner} seed {seed}",
        "agree": len(c_counts) == 1 and c_counts == em_counts,
        "expected": EXPECTED.get(seed) if (border, inner) == (3, 6) else None,
        "counts": (sorted(c_counts), sorted(em_counts, key=lambda x: (x is None, x))),
        "count": c_runs[0].solutions,
        "c_wall": statistics.median(r.wall for r in c_runs),
        "c_cpu": statistics.median(r.cpu for r in c_runs),
        "em_wall": statistics.median(r[0] for r in em_runs),
        "em_cpu": statistics.median(r[1] for r in em_runs),
        "c_nodes": c_runs[0].nodes,
        "c_rate": statistics.median(r.nodes_per_second or 0.0 for r in c_runs),
        "em_nodes": em_runs[0][3],
        "em_rate": statistics.median(r[4] or 0.0 for r in em_runs),
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seeds", default=",".join(map(str, EXPECTED)), help="comma-separated (default %(default)s)")
    parser.add_argument("--runs", type=int, default=5, help="whole processes per program and puzzle")
    parser.add_argument("--border", type=int, default=3, help="border (rim) colours")
    parser.add_argument("--inner", type=int, default=6, help="inner colours")
    parser.add_argument("--core", type=int, default=None, help="pin every process to this core (default: not pinned)")
    parser.add_argument("--selftest", action="store_true", help="only check the yardstick's counts against native")
    args = parser.parse_args()
    if args.selftest:
        return 0 if yardstick.selftest() else 1
    seeds = [int(s) for s in args.seeds.split(",") if s.strip()]

    print(f"before: {yardstick.load()}")
    exe = yardstick.binary()
    print(f"C yardstick: {exe} ({yardstick.compiler()} {' '.join(yardstick.FLAGS)})")
    print(f"edgematch: {' '.join(yardstick.edgematch_command())} count FILE -b native; {args.runs} runs each, medians; "
          f"core {args.core if args.core is not None else 'not pinned'}", flush=True)
    rows = []
    with tempfile.TemporaryDirectory(prefix="native-vs-c-") as tmp:
        folder = Path(tmp)
        warm = generate(GeneratorSpec(4, 4, framed=True, border_colours=2, inner_colours=3, seed=1))[0]
        edgematch.write_puzzle(warm, folder / "warm.em")  # the compiled code is cached before timing
        yardstick.timed([*yardstick.edgematch_command(), "count", str(folder / "warm.em"), "-b", "native"])
        print()
        print("| puzzle | raw solutions | C wall | C CPU | edgematch wall | edgematch CPU | ratio edgematch/C "
              "| ratio CPU | C nodes, M nodes/s | native nodes, M nodes/s |")
        print("|---|--:|--:|--:|--:|--:|--:|--:|--:|--:|", flush=True)
        for seed in seeds:
            r = measure(seed, args.border, args.inner, args.runs, args.core, folder)
            rows.append(r)
            ratio = r["em_wall"] / r["c_wall"]
            count = f"{r['count']:,}" if r["agree"] else f"DISAGREE C {r['counts'][0]} edgematch {r['counts'][1]}"
            if r["agree"] and r["expected"] is not None and r["count"] != r["expected"]:
                count += f" (expected {r['expected']:,}: generator changed?)"
            em_nodes = f"{r['em_nodes']:,}, {r['em_rate'] / 1e6:.1f}" if r["em_nodes"] is not None else "n/a"
            print(f"| {r['puzzle']} | {count} | {r['c_wall']:.3f} s | {r['c_cpu']:.3f} s | {r['em_wall']:.3f} s "
                  f"| {r['em_cpu']:.3f} s | {ratio:.2f} | {r['em_cpu'] / r['c_cpu']:.2f} "
                  f"| {r['c_nodes']:,}, {r['c_rate'] / 1e6:.1f} | {em_nodes} |", flush=True)
    ratios = [r["em_wall"] / r["c_wall"] for r in rows]
    met = sum(x <= 0.5 for x in ratios)
    print()
    print(f"ratio edgematch/C wall: median {statistics.median(ratios):.2f}, max {max(ratios):.2f}; "
          f"target <= 0.50 met on {met}/{len(rows)} puzzles")
    bad = [r["puzzle"] for r in rows if not r["agree"]]
    if bad:
        print(f"COUNTS DISAGREE on: {', '.join(bad)}")
    print(f"after: {yardstick.load()}")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
