"""Which fill order gives the smallest tree at the peak? Knuth's probes of the native count's tree (issue 24).

Run: python benchmarks/orders.py [--cases 7x7c7,8x8c8] [--seeds 1-3] [--probes 20000]
[--orders row,spiral,frame,diag,shell,band2,band3]

The boards are the frontier's (benchmarks/frontier.py: planted framed n x n, isqrt(n) + 1 rim colours, c inner
colours). Each order's tree is the plain search's over the count's tables (the board's turn fixed by an anchor,
identical tiles grouped), estimated by the C loop's probes (``em_probe``, as ``edgematch count --estimate``)
in 10 batches: the mean and the batches' range. The orders: ``row``, ``spiral``, ``frame`` and ``band2`` are
native's own (``--order``); the others are tried here only: ``diag`` fills anti-diagonals from the top-left corner,
``shell`` grows a square from it (row s then column s), ``bandK`` fills bands of K rows column by column. An order that
keeps the placed region compact closes more seams early; the question is whether any closes enough to matter.
"""

from __future__ import annotations

import argparse

from frontier import board, case_name, parse_cases, parse_seeds

from edgematch.solvers.native.count.estimate import knuth
from edgematch.solvers.native.tables import ORDERS, bands, build_tables, fill_order

BATCHES = 10


def cells_of(name: str, w: int, h: int) -> list[int]:
    """The cells of a ``w`` x ``h`` board in the fill order ``name``."""
    if name == "diag":
        return sorted(range(w * h), key=lambda c: (c // w + c % w, c // w))
    if name == "shell":
        out: list[int] = []
        for s in range(max(w, h)):
            out += [s * w + c for c in range(min(s, w))] if s < h else []
            out += [r * w + s for r in range(min(s + 1, h))] if s < w else []
        return out
    if name.startswith("band"):
        return bands(w, h, int(name[4:]))
    raise ValueError(name)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--cases", default="7x7c7,8x8c8")
    parser.add_argument("--seeds", default="1-3")
    parser.add_argument("--probes", type=int, default=20_000)
    parser.add_argument("--orders", default="row,spiral,frame,diag,shell,band2,band3")
    args = parser.parse_args()
    orders = args.orders.split(",")
    print(f"{'case':10} {'seed':>4}  " + "  ".join(f"{o:>22}" for o in orders))
    for n, inner in parse_cases(args.cases):
        for seed in parse_seeds(args.seeds):
            puzzle = board(n, inner, seed)
            shown = []
            for name in orders:
                cells = fill_order(puzzle, name) if name in ORDERS else cells_of(name, n, n)
                assert sorted(cells) == list(range(n * n)), name
                tables = build_tables(puzzle, "row", symmetry=True, cells=cells)
                trees = [knuth(tables, max(args.probes // BATCHES, 1), seed * 7919 + b).nodes for b in range(BATCHES)]
                shown.append(f"{sum(trees) / BATCHES:.1e} ({min(trees):.0e}-{max(trees):.0e})")
            print(f"{case_name(n, inner):10} {seed:>4}  " + "  ".join(f"{s:>22}" for s in shown), flush=True)


if __name__ == "__main__":
    main()
