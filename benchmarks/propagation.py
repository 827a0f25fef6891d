"""Nodes and seconds to a first solution with each propagation option (issue 24 part 1).

Run: python benchmarks/propagation.py [--cases 7x7c7,10x10c5,8x8c8] [--seeds 1-5] [--limit 60] [--core 1]
[--backend native:dfs] [--configs plain,fc,bounds,dynamic,dynamic+bounds,match,dynamic+match,auto,rare]

The frontier's boards (benchmarks/frontier.py: planted framed n x n, isqrt(n) + 1 rim colours, c inner colours)
solved by whole processes ``edgematch solve FILE -b BACKEND -t LIMIT --json`` plus the configuration's options,
pinned to one core. ``native:dfs`` (the default here) walks one tree in a fixed value order, so its node count
to the first solution compares the trees the options leave; ``native`` adds the restarts. Prints per case and
configuration (``auto`` and ``rare``: the shipped order without and with ``-O values=rare``) the nodes and
solve seconds per seed (``-`` for a timeout, with the nodes searched until then),
then the medians (timeouts counted at the limit) and the nodes' ratio to ``plain`` on the seeds both solved.
Every solution printed is checked by edgematch's checker (the script exits 1 on a wrong one).
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

from frontier import board, case_name, parse_cases, parse_seeds

import edgematch

STATIC = ["--order", "row"]  # the frontier boards' static order (auto takes dynamic from 100 free cells)
CONFIGS = {
    "plain": STATIC,
    "fc": [*STATIC, "-O", "fc=on"],
    "bounds": [*STATIC, "-O", "bounds=on"],
    "fc+bounds": [*STATIC, "-O", "fc=on", "-O", "bounds=on"],
    "dynamic": ["--order", "dynamic"],
    "dynamic+bounds": ["--order", "dynamic", "-O", "bounds=on"],
    "match": [*STATIC, "-O", "match=on"],
    "dynamic+match": ["--order", "dynamic", "-O", "match=on"],
    "auto": [],  # the order as shipped: row, or dynamic from 100 free cells of a framed board
    "rare": ["-O", "values=rare"],  # the same, each cell's candidates rarest colours first
}


def run(path: Path, backend: str, extra: list[str], limit: float, core: int) -> dict:
    cmd = [sys.executable, "-m", "edgematch", "solve", str(path), "-b", backend, "-t", f"{limit:g}", "--json", *extra]
    done = subprocess.run(cmd, capture_output=True, text=True, timeout=limit + 60,
                          preexec_fn=lambda: os.sched_setaffinity(0, {core}))
    if done.returncode not in (0, 3):
        raise SystemExit(f"{' '.join(cmd)}: exit {done.returncode}: {done.stderr.strip()}")
    return json.loads(done.stdout)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cases", default="7x7c7,10x10c5,8x8c8")
    parser.add_argument("--seeds", default="1-5")
    parser.add_argument("--limit", type=float, default=60.0)
    parser.add_argument("--core", type=int, default=1)
    parser.add_argument("--backend", default="native:dfs")
    parser.add_argument("--configs", default=",".join(CONFIGS))
    args = parser.parse_args()
    configs = args.configs.split(",")
    if unknown := [c for c in configs if c not in CONFIGS]:
        parser.error(f"unknown configs {unknown}; choose from {','.join(CONFIGS)}")
    print(f"load average before: {os.getloadavg()}")
    wrong = False
    with tempfile.TemporaryDirectory() as tmp:
        for n, inner in parse_cases(args.cases):
            print(f"\n{case_name(n, inner)} ({args.backend}, {args.limit:g} s)")
            plain_nodes: dict[int, int] = {}
            for config in configs:
                cells, times, ratios = [], [], []
                for seed in parse_seeds(args.seeds):
                    puzzle = board(n, inner, seed)
                    path = Path(tmp) / f"{n}-{inner}-{seed}.em"
                    edgematch.write_puzzle(puzzle, path)
                    data = run(path, args.backend, CONFIGS[config], args.limit, args.core)
                    nodes, seconds = data["counters"].get("nodes", 0), data["timings"]["solve"]
                    if data["status"] == "solved":
                        solution = edgematch.Solution.from_pairs(puzzle, [tuple(c) for c in data["solutions"][0]])
                        if not edgematch.check(puzzle, solution).ok:
                            wrong = True
                            print(f"  WRONG solution: seed {seed} {config}")
                        cells.append(f"{nodes / 1e6:.1f}M {seconds:.1f}s")
                        times.append(seconds)
                        if config == "plain":
                            plain_nodes[seed] = nodes
                        elif seed in plain_nodes:
                            ratios.append(nodes / plain_nodes[seed])
                    else:
                        cells.append(f"- ({nodes / 1e6:.0f}M)")
                        times.append(args.limit)
                median = statistics.median(times)
                ratio = f", nodes x{statistics.median(ratios):.2f} of plain" if ratios else ""
                print(f"  {config:15} median {median:.1f} s{ratio} | " + " | ".join(cells))
    print(f"\nload average after: {os.getloadavg()}")
    return 1 if wrong else 0


if __name__ == "__main__":
    sys.exit(main())
