"""The same cubes settled by the native loop and by a CDCL solver, one by one (issue 41).

Run: python benchmarks/cubes_native_sat.py FILE [--cubes 100000] [--sample 20] [--cap 30] [--seed 1]
     [--solver cadical195]

Would conflict learning pay on the parts of the tree the native search finds hard? The board is split as the
count splits it (:func:`~edgematch.solvers.native.search.prefixes` on the row order's tables with the rank, the
look-ahead and the board's turn folded), a random sample of the cubes is drawn, and each is settled twice: by the
native loop, exhausting the cube's subtree (every solution in it counted), and by one incremental PySAT solver
holding the CNF of the SAT backend's default options, the cube's placements as assumptions (it keeps what it
learnt from one cube to the next, and stops at a cube's first solution). Each gets ``--cap`` seconds per cube; the
SAT solver runs in a child process killed at the cap (CaDiCaL cannot be interrupted) and started again. The
cubes are those of the SAT backend's ``-O cubes=N`` (:mod:`edgematch.solvers.cubes`), placement for placement.
"""

from __future__ import annotations

import argparse
import multiprocessing
import random
import time
from typing import Any

from edgematch.encodings.cnf import CnfOptions, encode
from edgematch.formats import read_puzzle
from edgematch.solvers.cubes import literals
from edgematch.solvers.native.compiled import ensure_compiled
from edgematch.solvers.native.search import Search, prefixes
from edgematch.solvers.native.tables import Tables, build_tables

SLICE = 2_000_000  # native nodes between looks at the clock


def native(tables: Tables, prefix: tuple[int, ...], cap: float) -> tuple[float | None, int, int]:
    """Seconds to exhaust the cube's subtree (None past ``cap``), its nodes and solutions."""
    search = Search(tables, prefix)
    start = time.perf_counter()
    while not search.finished:
        search.step(SLICE)
        if time.perf_counter() - start > cap:
            return None, search.nodes, search.solutions
    return time.perf_counter() - start, search.nodes, search.solutions


def sat_child(conn: Any, puzzle: Any, tables: Tables, solver: str) -> None:
    """Load the CNF once, then settle each cube sent: (seconds, satisfiable, conflicts so far)."""
    from pysat.solvers import Solver

    enc = encode(puzzle, CnfOptions())
    cells = [int(c) for c in tables.order]
    with Solver(name=solver, bootstrap_with=enc.clauses) as sat:
        conn.send("ready")
        while True:
            cube = conn.recv()
            lits = literals(enc, tuple((cells[p], int(tables.cand_type[i]), int(tables.cand_rot[i]))
                                       for p, i in enumerate(cube)))
            start = time.perf_counter()
            answer = False if lits is None else sat.solve(assumptions=lits)  # no variable: no model places it
            conn.send((time.perf_counter() - start, answer, (sat.accum_stats() or {}).get("conflicts", 0)))


def shown(seconds: float | None) -> str:
    return "-" if seconds is None else f"{seconds:.3f}"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("file")
    parser.add_argument("--cubes", type=int, default=100_000, help="split at the shallowest depth giving this many")
    parser.add_argument("--sample", type=int, default=20)
    parser.add_argument("--cap", type=float, default=30.0, help="seconds per cube and side")
    parser.add_argument("--seed", type=int, default=1, help="of the sample")
    parser.add_argument("--solver", default="cadical195")
    args = parser.parse_args()
    ensure_compiled()
    puzzle = read_puzzle(args.file)
    tables = build_tables(puzzle, "row", symmetry=True, values="rare", lookahead="auto")
    cubes, _ = prefixes(tables, args.cubes)
    picked = random.Random(args.seed).sample(cubes, min(args.sample, len(cubes)))
    print(f"{args.file}: {len(cubes):,} cubes of {len(cubes[0])} cells; {len(picked)} drawn; cap {args.cap:g} s")
    context = multiprocessing.get_context("fork")

    def started() -> tuple[Any, Any]:
        ours, theirs = context.Pipe()
        child = context.Process(target=sat_child, args=(theirs, puzzle, tables, args.solver), daemon=True)
        child.start()
        if ours.recv() != "ready":
            raise SystemExit("the SAT child did not start")
        return child, ours

    child, conn = started()
    rows = []
    for k, prefix in enumerate(picked):
        n_time, nodes, solutions = native(tables, prefix, args.cap)
        conn.send(prefix)
        if conn.poll(args.cap):
            s_time, answer, conflicts = conn.recv()
        else:
            child.kill()
            child.join()
            s_time, answer, conflicts = None, None, None
            child, conn = started()
        rows.append((n_time, s_time))
        print(f"{k:3d}  native {shown(n_time):>8} s {nodes:>14,} nodes {solutions:>4} solutions  |  "
              f"{args.solver} {shown(s_time):>8} s {'' if answer is None else 'sat' if answer else 'unsat':>5} "
              f"{'' if conflicts is None else f'{conflicts:,} conflicts so far'}", flush=True)
    child.kill()
    tally = {(n, s): sum(1 for a, b in rows if (a is not None, b is not None) == (n, s))
             for n in (True, False) for s in (True, False)}
    print(f"settled by both {tally[True, True]}, native only {tally[True, False]}, "
          f"{args.solver} only {tally[False, True]}, neither {tally[False, False]}")


if __name__ == "__main__":
    main()
