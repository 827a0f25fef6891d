"""How far into the depth-first search is the planted board? Nodes before it, per value order (issue 24).

Run: python benchmarks/distance.py [--cases 8x8c8] [--seeds 1-5] [--values index,rare] [--orders row]
[--probes 2000]

The boards are the frontier's (benchmarks/frontier.py). On a board with about one solution (8x8 c8: 0.16 expected
besides the planted one), the first-solution search ``native:dfs`` visits every subtree that its candidate order
puts before the planted board's path (or one of its three turns: a framed board's solutions come in fours), so its
time is set by where that path lies. This script follows the path position by position in the search's own tables
(fill order ``--orders``: row or band2, both from a corner; candidates in ``--values`` order): at each position,
every fitting candidate tried before the planted one roots a subtree searched in full first; Knuth's probes
(``em_probe``, as ``edgematch count --estimate``) estimate each, from tables whose placed cells are the path's
prefix. Their sum is the nodes before the planted board, an order of magnitude (a subtree may also hold another
solution, which would end the search sooner). Printed per board and order: the nodes before each turn of the
planted board within its corner's subtree, the corners in the order searched (each turn puts another corner tile
first, and each corner's subtree holds a turn of every solution, so these are four orders of the same search); the
nodes before the turn in the corner searched first, which the search finds, and the seconds that is at ``--rate``
nodes per second (the C loop's rate on these boards; a search that ends much sooner found another solution, which
the estimate does not look for). Two cores can split one order (``split``: the distance over two, were the parts
shared perfectly) or search two corners (``corners``: the nearer of the first two); their seconds. It shows what a
candidate order is worth on a board without running the search for hours.

``--validate K`` checks the estimate against the search itself first: on the first K framed 6x6 boards (3 rim, 6
inner colours) whose count is one board and its turns, the nodes ``native:dfs`` takes to its first solution
beside the estimate (2026-11-26, 3000 probes: 308 k / 498 k, 158 k / 156 k, 1.22 M / 1.34 M, 188 k / 182 k,
70 k / 43 k, 84 k / 72 k).
"""

from __future__ import annotations

import argparse
from dataclasses import replace

import numpy as np
from frontier import case_name, parse_cases, parse_seeds, planted

import edgematch
from edgematch import GeneratorSpec, generate
from edgematch.core.model import Puzzle, Solution
from edgematch.core.symmetry import turn_solution
from edgematch.solvers.native.count.estimate import knuth
from edgematch.solvers.native.tables import Tables, build_tables

RATE = 50e6  # nodes per second of native:dfs on the frontier's 8x8 and 9x9 boards (one core, this machine)


def fitting(tables: Tables, depth: int, placed: np.ndarray, left: np.ndarray) -> list[int]:
    """The candidates the search tries at ``depth`` in this state, in its order (C loop's test, in Python)."""
    width = tables.free_label + 1
    bucket = int(tables.base[depth]) + int(placed[tables.key_a[depth]]) * width + int(placed[tables.key_b[depth]])
    out = []
    for i in range(int(tables.tab_start[bucket]), int(tables.tab_end[bucket])):
        if left[tables.cand_type[i]] <= 0:
            continue
        if all(tables.cand_edge[i, tables.extra_side[depth, j]] == placed[tables.extra_src[depth, j]]
               for j in range(int(tables.extra_n[depth]))):
            out.append(i)
    return out


def below(tables: Tables, depth: int, placed: np.ndarray, left: np.ndarray) -> Tables:
    """The tables of the subtree whose first ``depth`` positions are placed as ``placed`` and ``left`` say."""
    return replace(tables, order=tables.order[depth:], key_a=tables.key_a[depth:], key_b=tables.key_b[depth:],
                   base=tables.base[depth:], extra_n=tables.extra_n[depth:], extra_src=tables.extra_src[depth:],
                   extra_side=tables.extra_side[depth:], placed0=placed.copy(),
                   type_count=left.astype(tables.type_count.dtype))


def nodes_before(puzzle: Puzzle, tables: Tables, solution: Solution, probes: int, seed: int) -> list[float]:
    """Estimated nodes the search visits before it places ``solution``'s last tile (see the module doc), per
    position of the fill order: the subtrees of the candidates tried there before the solution's, and its own
    node. Their sum is the distance; without the first position's, the distance within the subtree of the tile
    the solution puts first (a framed square board's corner: each holds a turn of every solution)."""
    type_of = {tile: t for t, members in enumerate(tables.types.members) for tile, _ in members}
    placed = tables.placed0.copy()
    left = tables.type_count.astype(np.int64).copy()
    at = []
    for depth in range(tables.positions):
        cell = int(tables.order[depth])
        tile, turn = solution.cells[cell]
        edges = puzzle.tiles[tile].rotated(turn)
        candidates = fitting(tables, depth, placed, left)
        here = next(i for i in candidates if tables.cand_type[i] == type_of[tile]
                    and tables.types.shown(type_of[tile], int(tables.cand_rot[i])) == edges)
        at.append(1 + sum(1 + subtree(tables, depth, placed, left, i, cell, probes, seed)
                          for i in candidates[:candidates.index(here)]))
        left[tables.cand_type[here]] -= 1
        placed[cell * 4: cell * 4 + 4] = tables.cand_edge[here]
    return at


def by_corner(puzzle: Puzzle, tables: Tables, solution: Solution, probes: int, seed: int) -> list[list[float]]:
    """:func:`nodes_before` for each turn of ``solution``, in the order the search takes their corners (the first
    position's part grows with every corner searched before)."""
    return sorted((nodes_before(puzzle, tables, turn_solution(puzzle, solution, k), probes, seed) for k in range(4)),
                  key=lambda at: at[0])


def subtree(tables: Tables, depth: int, placed: np.ndarray, left: np.ndarray, candidate: int, cell: int,
            probes: int, seed: int) -> float:
    """Knuth's estimate of the nodes below ``candidate`` placed at ``depth`` (none below the last position)."""
    if depth + 1 == tables.positions:
        return 0.0
    placed = placed.copy()
    left = left.copy()
    left[tables.cand_type[candidate]] -= 1
    placed[cell * 4: cell * 4 + 4] = tables.cand_edge[candidate]
    return knuth(below(tables, depth + 1, placed, left), probes, seed).nodes


def validate(boards: int, probes: int) -> None:
    """The estimate beside ``native:dfs``'s own nodes to its first solution, on framed 6x6 boards (3 rim, 6 inner
    colours) whose only solutions are the planted board's turns (so the search's first is one of them)."""
    seed = 0
    while boards > 0:
        seed += 1
        puzzle, solution = generate(GeneratorSpec(6, 6, framed=True, border_colours=3, inner_colours=6, seed=seed))
        tables = build_tables(puzzle, order="row", values="rare")
        if edgematch.count(puzzle, backend="native").count != 4 * tables.types.multiplier:
            continue
        ran = edgematch.solve(puzzle, backend="native:dfs", order="row", values="rare")
        guess = sum(by_corner(puzzle, tables, solution, probes, seed)[0])
        print(f"6x6 c6 seed {seed}: native:dfs took {ran.counters['nodes']:.3g} nodes, the estimate {guess:.3g}",
              flush=True)
        boards -= 1


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cases", default="8x8c8")
    parser.add_argument("--seeds", default="1-5")
    parser.add_argument("--values", default="index,rare")
    parser.add_argument("--orders", default="row", help="fill orders that start at a corner: row, band2")
    parser.add_argument("--probes", type=int, default=2000, help="Knuth probes per subtree")
    parser.add_argument("--rate", type=float, default=RATE, help="nodes per second, for the seconds column")
    parser.add_argument("--validate", type=int, default=0, metavar="K",
                        help="first compare with the search's own nodes on K small boards of one solution")
    args = parser.parse_args()
    if args.validate:
        validate(args.validate, args.probes)
    print(f"{'board':<16} {'order':<6} {'values':<7} {'within each corner, in the order searched':<48} {'distance':>9} "
          f"{'1 core':>8} {'split':>8} {'corners':>8}")
    for n, inner in parse_cases(args.cases):
        for seed in parse_seeds(args.seeds):
            puzzle, solution = planted(n, inner, seed)
            for order, values in ((o, v) for o in args.orders.split(",") for v in args.values.split(",")):
                tables = build_tables(puzzle, order=order, values=values)
                each = by_corner(puzzle, tables, solution, args.probes, seed)
                within = [sum(at[1:]) for at in each]
                least = sum(each[0])
                print(f"{case_name(n, inner) + f' seed {seed}':<16} {order:<6} {values:<7} "
                      f"{' '.join(f'{x:11.2e}' for x in within):<48} {least:9.2e} {least / args.rate:8.0f} "
                      f"{least / 2 / args.rate:8.0f} {min(within[:2]) / args.rate:8.0f}", flush=True)


if __name__ == "__main__":
    main()
