"""One depth-first search against the first cells' subtrees searched in turn (issue 41).

Run: python benchmarks/subtrees.py [--cases 7x7c6,8x8c8] [--seeds 1-10] [--nodes 2e9]

On a framed square board the first cell of the row order is a corner, and each of its candidates (a corner tile)
heads a subtree holding one turned copy of every solution. One depth-first search finds the copy in the first
subtree it enters; searching the subtrees in turn (slices of 2 M nodes each, resumed) finds whichever copy
comes first, at the cost of one search per subtree. Which is sooner depends on how spread the copies' positions
are (a board whose corner tiles are not all different has fewer subtrees: a type heads one).

Both searches are native's plain loop over the same tables (``auto`` order, ``values=rare``, board turns not
folded), as ``native:dfs -O values=rare`` runs them; boards are the frontier's (benchmarks/frontier.py). Printed:
nodes to the first solution (or the node budget), per seed and in all; every solution found is checked by the
checker. Node counts, not seconds, so a loaded machine does not change them.
"""

from __future__ import annotations

import argparse
import math

from frontier import board, case_name, parse_cases, parse_seeds

from edgematch import Puzzle, check
from edgematch.solvers.native.compiled import ensure_compiled
from edgematch.solvers.native.search import Search, prefixes
from edgematch.solvers.native.tables import build_tables, decode

SLICE = 2_000_000  # nodes per turn of a subtree


def first_solution(puzzle: Puzzle, searches: list[Search], budget: float) -> tuple[bool, int]:
    """Run the searches in turn, a slice each, until one stores a solution (checked by the checker) or ``budget``
    nodes are spent."""
    live = list(searches)
    while live and sum(s.nodes for s in searches) < budget:
        for search in list(live):
            search.step(SLICE)
            found = search.drain()
            if len(found):
                if not check(puzzle, decode(puzzle, search.tables, found[0])).ok:
                    raise SystemExit(f"a search returned an invalid board of {puzzle.name}")
                return True, sum(s.nodes for s in searches)
            if search.finished:
                live.remove(search)
    return False, sum(s.nodes for s in searches)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--cases", default="7x7c6,8x8c8")
    parser.add_argument("--seeds", default="1-10")
    parser.add_argument("--nodes", type=float, default=2e9, help="node budget per search (default %(default)g)")
    args = parser.parse_args()
    ensure_compiled()
    print(f"{'case':9} {'seed':>4} {'subtrees':>8} {'one search':>14} {'in turn':>14}")
    for n, inner in parse_cases(args.cases):
        logs: dict[str, list[float]] = {"one": [], "turn": []}
        for seed in parse_seeds(args.seeds):
            puzzle = board(n, inner, seed)
            tables = build_tables(puzzle, "auto", False, values="rare")
            parts, _ = prefixes(tables, 2)  # the first cell's candidates (the corner tiles)
            cells = []
            for name, searches in (("one", [Search(tables, capacity=1)]),
                                   ("turn", [Search(tables, p, capacity=1) for p in parts])):
                found, nodes = first_solution(puzzle, searches, args.nodes)
                logs[name].append(math.log(nodes))
                cells.append(f"{nodes / 1e6:10.1f} M{'' if found else '+'}")
            print(f"{case_name(n, inner):9} {seed:>4} {len(parts):>8} {cells[0]:>14} {cells[1]:>14}", flush=True)
        ratio = math.exp(sum(logs["turn"]) / len(logs["turn"]) - sum(logs["one"]) / len(logs["one"]))
        print(f"{case_name(n, inner)}: geometric mean of nodes, in turn / one search: {ratio:.2f} "
              f"('+': not found within the budget, counted at it)")


if __name__ == "__main__":
    main()
