"""Fill orders compared (run: python benchmarks/native_orders.py): time to the first solution of planted
puzzles, median over seeds, per order. Used to choose the native backend's default order."""

from __future__ import annotations

import statistics

import edgematch
from edgematch.core.generator import GeneratorSpec, generate
from edgematch.solvers.native.tables import ORDERS

CASES = [
    ("unframed 6x6, 6 colours", dict(width=6, height=6, colours=6)),
    ("unframed 7x7, 7 colours", dict(width=7, height=7, colours=7)),
    ("signed 6x6, 4 colours", dict(width=6, height=6, colours=4, rule="signed")),
    ("framed 7x7, 3+5 colours", dict(width=7, height=7, framed=True, border_colours=3, inner_colours=5)),
    ("framed 8x8, 3+6 colours", dict(width=8, height=8, framed=True, border_colours=3, inner_colours=6)),
]


def main(seeds: int = 5, limit: float = 10.0) -> None:
    for label, spec in CASES:
        row = []
        for order in ORDERS:
            times, nodes, timeouts = [], [], 0
            for seed in range(seeds):
                puzzle, _ = generate(GeneratorSpec(seed=seed, **spec))
                result = edgematch.solve(puzzle, backend="native", time_limit=limit, order=order)
                timeouts += result.status.value == "timeout"
                times.append(result.timings.solve)
                nodes.append(result.counters["nodes"])
            row.append(f"{order}: {statistics.median(times) * 1e3:8.1f} ms {statistics.median(nodes):>12,.0f} nodes"
                       + (f" ({timeouts} timeouts)" if timeouts else ""))
        print(f"{label:26} | " + " | ".join(row))


if __name__ == "__main__":
    main()
