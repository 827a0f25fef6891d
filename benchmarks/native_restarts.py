"""Restart units compared (run: python benchmarks/native_restarts.py): time to the first solution of planted
framed boards, plain ``native`` against ``native:restarts`` at several Luby units, over puzzle seeds and
shuffle seeds. Used to choose ``RESTART_UNIT``; a timeout counts as the time limit in the median."""

from __future__ import annotations

import statistics

import edgematch
from edgematch.core.generator import GeneratorSpec, generate

CASES = [
    ("framed 7x7, 3+5 colours", dict(width=7, height=7, framed=True, border_colours=3, inner_colours=5)),
    ("framed 8x8, 3+6 colours", dict(width=8, height=8, framed=True, border_colours=3, inner_colours=6)),
    ("framed 7x7, 3+7 colours", dict(width=7, height=7, framed=True, border_colours=3, inner_colours=7)),
]
UNITS = (100_000, 300_000, 500_000, 1_000_000, 3_000_000)


def main(puzzles: int = 4, shuffles: int = 3, limit: float = 10.0) -> None:
    for label, spec in CASES:
        boards = [generate(GeneratorSpec(seed=seed, **spec))[0] for seed in range(1, puzzles + 1)]
        row = [_column("plain", [edgematch.solve(p, backend="native", time_limit=limit) for p in boards], limit)]
        for unit in UNITS:
            runs = [edgematch.solve(p, backend="native:restarts", time_limit=limit, unit=unit, seed=s)
                    for p in boards for s in range(shuffles)]
            row.append(_column(f"{unit:,}", runs, limit))
        print(f"{label:24} | " + " | ".join(row), flush=True)


def _column(name: str, runs: list, limit: float) -> str:
    times = [r.timings.solve if r.status.value == "solved" else limit for r in runs]
    timeouts = sum(r.status.value != "solved" for r in runs)
    return f"{name}: {statistics.median(times) * 1e3:7.0f} ms" + (f" ({timeouts}/{len(runs)} t/o)" if timeouts else "")


if __name__ == "__main__":
    main()
