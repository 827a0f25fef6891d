"""Heavy tails of the native first-solution search: fill orders, shuffled values and restarts, per family.

For each family (the real-puzzle families of the generator and the planted ones of the suites) and each
seed, time to a first solution in-process (the compiled loop loaded first) for every search strategy:

    row, spiral, frame     plain depth-first search in that fill order (candidates in table order)
    R:row, R:frame, ...    Luby restarts alone (unit nodes per Luby unit) with shuffled buckets, in that order
    R:mix                  Luby restarts alone, taking the puzzle's orders in turn (frame, row, spiral when
                           framed; row, spiral when not): one bad order costs a bounded share of the time
    native                 what the native backend does: restarts in the auto order with the plain search
                           in that order kept and resumed beside them (``keep_first``)

A run that reaches the cap counts as the cap (and is shown as a timeout). The table gives per family and
strategy the median, the worst case over seeds (what a user meets) and the timeouts; nodes are given too,
since they do not move with the machine's load. Judge by the worst case, not the median.

    python benchmarks/native_tails.py --seeds 10 --cap 3
"""

from __future__ import annotations

import argparse
import statistics

from edgematch import clock
from edgematch.core.generator import GeneratorSpec, generate
from edgematch.solvers.native import RESTART_UNIT
from edgematch.solvers.native.compiled import ensure_compiled
from edgematch.solvers.native.search import Search, drive, drive_restarts
from edgematch.solvers.native.tables import build_tables

FAMILIES = {
    "clue 6x6": dict(width=6, height=6, like="clue"),
    "clue 12x6": dict(width=12, height=6, like="clue"),
    "e2 6x6": dict(width=6, height=6, like="e2"),
    "e2 7x7": dict(width=7, height=7, like="e2"),
    "tetravex 5x5": dict(width=5, height=5, like="tetravex"),
    "tetravex 6x6": dict(width=6, height=6, like="tetravex"),
    "cards 4x4": dict(width=4, height=4, like="cards"),
    "cards 5x5": dict(width=5, height=5, like="cards"),
    "framed 7x7 3+5": dict(width=7, height=7, framed=True, border_colours=3, inner_colours=5),
    "framed 8x8 3+6": dict(width=8, height=8, framed=True, border_colours=3, inner_colours=6),
    "unframed 6x6 c6": dict(width=6, height=6, colours=6),
    "unframed 7x7 c7": dict(width=7, height=7, colours=7),
}
STRATEGIES = ("row", "spiral", "frame", "R:row", "R:frame", "R:mix", "native")


def orders_for(puzzle) -> list[str]:
    return ["frame", "row", "spiral"] if puzzle.frame is not None else ["row", "spiral"]


def first(puzzle, strategy: str, cap: float, unit: int, seed: int) -> tuple[float, int, bool]:
    """(seconds, nodes, solved) to a first solution with ``strategy``, stopped at ``cap`` seconds."""
    t0 = clock.now()
    until = t0 + cap
    if strategy == "native":
        outcome, _, _ = drive_restarts(build_tables(puzzle, "auto"), unit, seed, until)
    elif strategy.startswith("R:"):
        names = orders_for(puzzle) if strategy == "R:mix" else [strategy[2:]]
        tables = [lambda name=name: build_tables(puzzle, name) for name in names]
        outcome, _, _ = drive_restarts(tables, unit, seed, until, keep_first=False)
    else:
        tables = build_tables(puzzle, strategy)
        outcome = drive(Search(tables, capacity=1), until, want=1)
    return clock.now() - t0, outcome.nodes, bool(outcome.found)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seeds", type=int, default=10, help="seeds 1..N per family")
    parser.add_argument("--cap", type=float, default=3.0, help="seconds per run (then a timeout)")
    parser.add_argument("--unit", type=int, default=RESTART_UNIT, help="nodes per Luby unit")
    parser.add_argument("--families", default="", help="comma-separated family names (default: all)")
    parser.add_argument("--strategies", default=",".join(STRATEGIES))
    args = parser.parse_args()
    ensure_compiled()
    families = [f.strip() for f in args.families.split(",") if f.strip()] or list(FAMILIES)
    strategies = [s.strip() for s in args.strategies.split(",") if s.strip()]
    print(f"cap {args.cap} s, unit {args.unit:,} nodes, seeds 1-{args.seeds}")
    print(f"{'family':<18}{'strategy':<10}{'median s':>10}{'worst s':>10}{'timeouts':>10}{'median nodes':>14}"
          f"{'worst nodes':>14}")
    for family in families:
        puzzles = [generate(GeneratorSpec(**FAMILIES[family], seed=s))[0] for s in range(1, args.seeds + 1)]
        for strategy in strategies:
            runs = [first(p, strategy, args.cap, args.unit, seed) for seed, p in enumerate(puzzles, 1)]
            secs = [r[0] if r[2] else args.cap for r in runs]
            nodes = [r[1] for r in runs]
            print(f"{family:<18}{strategy:<10}{statistics.median(secs):>10.3f}{max(secs):>10.3f}"
                  f"{sum(not r[2] for r in runs):>10}{statistics.median(nodes):>14,.0f}{max(nodes):>14,}",
                  flush=True)


if __name__ == "__main__":
    main()
