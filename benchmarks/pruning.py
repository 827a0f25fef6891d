"""How much of the search tree would a check remove? Knuth's probes, before building the check in C (issue 24).

Run: python benchmarks/pruning.py [--cases 6x6c6,7x7c7,8x8c8] [--seeds 1-2] [--probes 3000]
[--checks fc,match,rowdp,rows2dp,row,ac]

The tree is the plain row-scan search's over the frontier's boards (benchmarks/frontier.py: planted framed n x n,
isqrt(n) + 1 rim colours, c inner colours), every board turn searched. A probe walks from the root choosing one
fitting placement at random per cell, its weight the product of the choices' counts (D. E. Knuth, 1975: the
weight at each depth estimates the nodes there). A node of the tree a check leaves is one whose ancestors all
pass the check, so the same probes estimate every check's tree: the printed share is that tree over the plain
one (mean over 10 batches, and the batches' range; the spread is large, it is a guide, not a figure to the
percent). The checks, each in plain Python here, independent of the C loop:

- ``fc``: every open cell beside a placed one still has a fitting free tile (what ``order=dynamic`` sees);
- ``match``: those cells can take distinct free fitting tiles (a matching exists; native's ``-O match=on``);
- ``rowdp``: the rest of the current row can be filled, tiles fitting their left and top neighbours, free
  tiles reusable across its cells (a chain relaxation: one pass over the row's cells per node);
- ``rows2dp``: the same over the rest of the row and the whole next row (a pass over the two rows' columns);
- ``row``: the rest of the current row can be filled with distinct free tiles (an exact look-ahead: a search);
- ``ac``: arc consistency over every open cell (issue 41): each open cell keeps the free placements that fit its
  placed neighbours and have, on every side, a placement of the open neighbour there that fits them; a cell
  left with none kills the branch. Kept along each probe and only narrowed, as a search maintaining it would.
"""

from __future__ import annotations

import argparse
import random
import statistics
from collections.abc import Callable

from frontier import board, case_name, parse_cases, parse_seeds

from edgematch import Puzzle

Placed = dict[int, tuple[int, ...]]  # cell -> the edges its tile shows (N E S W)


class Tree:
    """The row-scan tree of ``puzzle``: which placements fit a cell given what is placed around it."""

    def __init__(self, puzzle: Puzzle):
        self.puzzle = puzzle
        self.n = puzzle.size
        self.near = [[puzzle.neighbour(c, s) for s in range(4)] for c in range(self.n)]
        self.fits = [[(t, tuple(puzzle.tiles[t].rotated(r))) for t in range(self.n)
                      for r in puzzle.allowed_rotations(t) if puzzle.fits_frame(t, c, r)] for c in range(self.n)]

    def candidates(self, cell: int, placed: Placed, used: set[int]) -> list[tuple[int, tuple[int, ...]]]:
        asks = [(s, placed[y][(s + 2) % 4]) for s, y in enumerate(self.near[cell]) if y is not None and y in placed]
        match = self.puzzle.matches
        return [(t, e) for t, e in self.fits[cell] if t not in used and all(match(e[s], x) for s, x in asks)]

    def frontier(self, placed: Placed) -> list[int]:
        return sorted({y for c in placed for y in self.near[c] if y is not None and y not in placed})


def fc(tree: Tree, placed: Placed, used: set[int]) -> bool:
    return all(tree.candidates(c, placed, used) for c in tree.frontier(placed))


def match(tree: Tree, placed: Placed, used: set[int]) -> bool:
    domains = [sorted({t for t, _ in tree.candidates(c, placed, used)}) for c in tree.frontier(placed)]
    owner: dict[int, int] = {}

    def augment(k: int, seen: set[int]) -> bool:
        for t in domains[k]:
            if t not in seen:
                seen.add(t)
                if t not in owner or augment(owner[t], seen):
                    owner[t] = k
                    return True
        return False

    return all(augment(k, set()) for k in sorted(range(len(domains)), key=lambda k: len(domains[k])))


def _rest_of_row(tree: Tree, placed: Placed) -> list[int]:
    first = next((c for c in range(tree.n) if c not in placed), None)
    if first is None:
        return []
    width = tree.puzzle.width
    return list(range(first, (first // width + 1) * width))


def rowdp(tree: Tree, placed: Placed, used: set[int]) -> bool:
    cells = _rest_of_row(tree, placed)
    ends: set | None = None  # the east labels the row's filled part can end with (None: no west neighbour)
    for cell in cells:
        top = tree.near[cell][0]
        asked = placed[top][2] if top is not None else None
        ok = set()
        for t, e in tree.fits[cell]:
            if t in used or (asked is not None and not tree.puzzle.matches(e[0], asked)):
                continue
            west = tree.near[cell][3]
            if ends is None and west is not None and west in placed and not tree.puzzle.matches(e[3], placed[west][1]):
                continue
            if ends is not None and not any(tree.puzzle.matches(e[3], x) for x in ends):
                continue
            ok.add(e[1])
        if not ok:
            return False
        ends = ok
    return True


def rows2dp(tree: Tree, placed: Placed, used: set[int]) -> bool:
    """The rest of the current row and the whole next row can be filled, free tiles reusable: a pass over
    the two rows' columns whose state is the labels the two cells of a column show east."""
    cells = _rest_of_row(tree, placed)
    if not cells:
        return True
    width, match_ = tree.puzzle.width, tree.puzzle.matches
    row_start = cells[0] - cells[0] % width
    below = row_start + width
    if below >= tree.n:
        return rowdp(tree, placed, used)

    def options(cell: int, top: int | None, west: int | None) -> list[tuple[int, ...]]:
        return [e for t, e in tree.fits[cell] if t not in used and (top is None or match_(e[0], top))
                and (west is None or match_(e[3], west))]

    states: set[tuple[int | None, int | None]] = {(None, None)}  # east labels of the column's two cells
    for x in range(width):
        upper, lower = row_start + x, below + x
        above = placed[upper - width][2] if upper - width >= 0 else None
        new: set[tuple[int | None, int | None]] = set()
        for east_up, east_low in states:
            ups = [placed[upper]] if upper in placed else options(upper, above, east_up)
            for up in ups:
                for low in options(lower, up[2], east_low):
                    new.add((up[1], low[1]))
        if not new:
            return False
        states = new
    return True


def row(tree: Tree, placed: Placed, used: set[int]) -> bool:
    cells = _rest_of_row(tree, placed)
    placed, used = dict(placed), set(used)

    def fill(k: int) -> bool:
        if k == len(cells):
            return True
        for t, e in tree.candidates(cells[k], placed, used):
            placed[cells[k]] = e
            used.add(t)
            found = fill(k + 1)
            del placed[cells[k]]
            used.discard(t)
            if found:
                return True
        return False

    return fill(0)


class ArcConsistency:
    """The ``ac`` check: every open cell's domain (free placements fitting its placed neighbours) made arc
    consistent with its open neighbours' domains. The domains of the root are computed once per board; a probe
    starts from a copy (:meth:`start`) and narrows them as it places tiles, so a call costs what maintaining
    arc consistency in a search would."""

    def __init__(self) -> None:
        self.root: dict[int, tuple[Tree, dict[int, list]]] = {}
        self.domains: dict[int, list] = {}
        self.known: set[int] = set()

    def start(self, tree: Tree) -> None:
        if id(tree) not in self.root:  # the tree is kept with its domains, so its id stays its own
            domains = {c: list(tree.fits[c]) for c in range(tree.n)}
            if not self._revise(tree, domains, set(range(tree.n))):
                domains = {c: [] for c in range(tree.n)}  # no board at all: every node fails
            self.root[id(tree)] = (tree, domains)
        self.domains = {c: list(d) for c, d in self.root[id(tree)][1].items()}
        self.known = set()

    def __call__(self, tree: Tree, placed: Placed, used: set[int]) -> bool:
        domains, changed = self.domains, set()
        for cell in placed.keys() - self.known:  # the cells placed since the last call
            self.known.add(cell)
            domains.pop(cell, None)
            changed.update(y for y in tree.near[cell] if y is not None and y not in placed)
        for y in changed:
            asked = [(s, placed[z][(s + 2) % 4]) for s, z in enumerate(tree.near[y]) if z in placed]
            domains[y] = [(t, e) for t, e in domains[y] if all(tree.puzzle.matches(e[s], x) for s, x in asked)]
        for c, dom in domains.items():
            kept = [(t, e) for t, e in dom if t not in used]
            if len(kept) != len(dom):
                domains[c] = kept
                changed.add(c)
        return self._revise(tree, domains, changed)

    @staticmethod
    def _revise(tree: Tree, domains: dict[int, list], queue: set[int]) -> bool:
        """Narrow the domains to arc consistency, starting from the cells in ``queue``; False on a wipe-out."""
        partner = tree.puzzle.partner
        pending = set(queue)
        while pending:
            cell = pending.pop()
            if not domains.get(cell, True):
                return False
            for s, y in enumerate(tree.near[cell]):
                if y is None or y not in domains:
                    continue
                shown = {partner(e[s]) for _, e in domains[cell]}  # what y must show on its side facing cell
                back = (s + 2) % 4
                kept = [(t, e) for t, e in domains[y] if e[back] in shown]
                if len(kept) != len(domains[y]):
                    if not kept:
                        return False
                    domains[y] = kept
                    pending.add(y)
        return all(domains.values())


CHECKS: dict[str, Callable[[Tree, Placed, set[int]], bool]] = {"fc": fc, "match": match, "rowdp": rowdp,
                                                               "rows2dp": rows2dp, "row": row,
                                                               "ac": ArcConsistency()}


def probe(tree: Tree, rng: random.Random, checks: list[str], sums: dict[str, float]) -> None:
    """One probe: adds each depth's weight to the plain tree and to every check whose path is still alive."""
    placed: Placed = {}
    used: set[int] = set()
    alive = dict.fromkeys(checks, True)
    for name in checks:
        start = getattr(CHECKS[name], "start", None)
        if start is not None:
            start(tree)
    weight = 1.0
    for cell in range(tree.n):
        children = tree.candidates(cell, placed, used)
        if not children:
            return
        weight *= len(children)
        tile, edges = rng.choice(children)
        placed[cell] = edges
        used.add(tile)
        sums["plain"] += weight
        for name in checks:
            if alive[name]:
                sums[name] += weight
                alive[name] = CHECKS[name](tree, placed, used)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--cases", default="6x6c6,7x7c7,8x8c8")
    parser.add_argument("--seeds", default="1-2")
    parser.add_argument("--probes", type=int, default=3000)
    parser.add_argument("--checks", default=",".join(CHECKS))
    args = parser.parse_args()
    checks = args.checks.split(",")
    unknown = [c for c in checks if c not in CHECKS]
    if unknown:
        parser.error(f"unknown checks {unknown}; choose from {','.join(CHECKS)}")
    batches = 10
    print(f"{'case':10} {'seed':>4} {'plain tree':>11}  " + "  ".join(f"{c + ' share':>18}" for c in checks))
    for n, inner in parse_cases(args.cases):
        for seed in parse_seeds(args.seeds):
            puzzle = board(n, inner, seed)
            tree, rng = Tree(puzzle), random.Random(seed)
            per = max(args.probes // batches, 1)
            shares: dict[str, list[float]] = {c: [] for c in checks}
            plain = []
            for _ in range(batches):
                sums = dict.fromkeys(["plain", *checks], 0.0)
                for _ in range(per):
                    probe(tree, rng, checks, sums)
                plain.append(sums["plain"] / per)
                for c in checks:
                    shares[c].append(sums[c] / sums["plain"])
            cells = "  ".join(f"{statistics.mean(s):6.3f} ({min(s):.2f}-{max(s):.2f})" for s in shares.values())
            print(f"{case_name(n, inner):10} {seed:>4} {statistics.mean(plain):11.2e}  {cells}", flush=True)


if __name__ == "__main__":
    main()
