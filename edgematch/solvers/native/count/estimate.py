"""Knuth's estimate of the native search tree: how many nodes a full count visits, how many solutions it
finds and how long it would take, from random probes of the same tables (``em_probe`` in ``ckernel.c``).

A probe walks from the root choosing one fitting candidate uniformly at each depth and multiplies the number
of choices along the way; that product is an unbiased estimate of the nodes at each depth (Knuth 1975).
Solutions sit at the last depth, where few probes arrive, so a probe counts the last part of the tree below
its path exactly (from a depth chosen so that such a subtree holds about :data:`SUBTREE` nodes) and adds it
times its weight: still unbiased, and it sees the rare deep solutions. The estimate stays heavy-tailed, so it
is reported with the spread of independent batches, as an order of magnitude (issue 25).
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass

import numpy as np

from edgematch.core.model import Puzzle
from edgematch.errors import BackendError
from edgematch.solvers.native import kernels
from edgematch.solvers.native.tables import Tables, build_tables

SUBTREE = 2_000  # nodes a probe's exact subtree holds on average
BATCHES = 10  # independent batches, for the spread
PILOT = 2_000  # plain probes that measure the levels first
TRIAL = 20  # probes that try the exact depth before the batches
SMALL_TREE = 100_000  # nodes (by the pilot) below which the estimate counts the whole tree instead


@dataclass(frozen=True)
class TreeEstimate:
    """Mean per probe of the tree's size (nodes) and its boards (type-level solutions), with standard errors,
    the nodes each depth holds, and the depth from which probes counted exactly (``positions``: never)."""

    probes: int
    nodes: float
    nodes_se: float
    boards: float
    boards_se: float
    depth: float  # mean depth a probe's random walk reached
    positions: int
    levels: tuple[float, ...] = ()
    exact_from: int = 0


def _mean_se(total: float, squares: float, k: int) -> tuple[float, float]:
    mean = total / k
    var = max(0.0, squares / k - mean * mean)
    return mean, math.sqrt(var / k) if k > 1 else float("inf")


def knuth(tables: Tables, probes: int = 10_000, seed: int = 1, exact_from: int | None = None) -> TreeEstimate:
    """Estimate the plain search's tree over ``tables`` (their fill order) from ``probes`` random probes, each
    counting exactly below depth ``exact_from`` (default: never)."""
    lib = kernels.c_library()
    if lib is None:
        raise BackendError(f"the tree estimate needs the C kernel: {kernels.c_problem()}")
    P = tables.positions
    exact = P if exact_from is None else max(0, min(exact_from, P))
    a = kernels.c_arrays(tables)
    type_left = np.array(tables.type_count, np.int32)
    placed = np.array(tables.placed0, np.uint32)
    picks = np.zeros(max(P, 1), np.uint32)
    scratch = np.zeros(max(len(tables.cand_type), 1), np.uint32)
    level = np.zeros(max(P, 1), np.float64)
    stats = np.zeros(5, np.float64)
    if P > 0 and probes > 0:
        lib.em_probe(
            a["order"].ctypes.data, P, a["key_a"].ctypes.data, a["key_b"].ctypes.data, a["base"].ctypes.data,
            a["extra_n"].ctypes.data, a["extra_src"].ctypes.data, a["extra_side"].ctypes.data,
            a["extra_src"].shape[1], a["tab_start"].ctypes.data, a["tab_end"].ctypes.data,
            a["cand_type"].ctypes.data, a["cand_edge"].ctypes.data, tables.free_label + 1,
            type_left.ctypes.data, placed.ctypes.data, picks.ctypes.data, scratch.ctypes.data,
            probes, seed & (2**64 - 1), exact, level.ctypes.data, stats.ctypes.data)
    k = max(probes, 1)
    nodes, nodes_se = _mean_se(stats[0], stats[1], k)
    boards, boards_se = _mean_se(stats[2], stats[3], k)
    return TreeEstimate(probes, nodes, nodes_se, boards, boards_se, stats[4] / k, P,
                        tuple(float(x) / k for x in level[:P]), exact)


def exact_depth(levels: tuple[float, ...], subtree: float = SUBTREE) -> int:
    """The shallowest depth whose nodes each hold at most ``subtree`` nodes below them on average, by the
    levels a pilot measured (depths no pilot probe reached count as empty; the last depth when none is so
    small). :func:`estimate_count` checks the choice against the clock."""
    P = len(levels)
    below = 0.0
    best = P
    for d in range(P - 1, 0, -1):
        below += levels[d]
        if levels[d - 1] <= 0:
            continue
        if below / levels[d - 1] > subtree:
            break
        best = d
    return best


@dataclass(frozen=True)
class CountEstimate:
    """What a count of a puzzle would find and cost, from :func:`estimate_count`. ``low``/``high`` are the
    smallest and largest of the batches' means: the spread to expect, not a confidence bound. ``probes`` 0:
    the tree was so small that it was counted, and every figure is exact."""

    nodes: float
    nodes_low: float
    nodes_high: float
    raw: float
    raw_low: float
    raw_high: float
    distinct: float  # about raw / (raw per board) / board turns when the turns are not folded
    nodes_per_second: float
    seconds: float  # nodes / nodes_per_second: the plain count's time on one core
    probes: int
    exact_from: int
    positions: int
    order: str
    elapsed: float

    def as_dict(self) -> dict[str, float | int | str]:
        return {k: getattr(self, k) for k in self.__dataclass_fields__}


def _rate(tables: Tables, seconds: float) -> float:
    """Nodes per second of the plain count over ``tables``, measured for about ``seconds``."""
    from edgematch.solvers.native.search import Search, drive

    search = Search(tables)
    outcome = drive(search, seconds)
    return outcome.nodes / outcome.seconds if outcome.seconds > 0 else 0.0


def estimate_count(puzzle: Puzzle, seconds: float = 1.0, seed: int = 1, order: str = "auto") -> CountEstimate:
    """Estimate ``edgematch count`` on ``puzzle`` (native, its count's tables) in about ``seconds``: a pilot
    of plain probes measures the levels, then batches of probes that count exactly below a depth, and a short
    run of the count itself measures its node rate."""
    start = time.perf_counter()
    tables = build_tables(puzzle, order, symmetry=True)
    P = tables.positions
    per_board = tables.raw_multiplier
    turns = tables.turn_src.shape[0] + 1  # board turns the canonical test tells apart (1: folded by an anchor)
    if P == 0:
        return CountEstimate(0, 0, 0, per_board, per_board, per_board, 1, 0, 0, 0, 0, 0, tables.order_name, 0.0)
    pilot = knuth(tables, PILOT, seed)
    if pilot.nodes <= SMALL_TREE:  # so small a tree is counted, exactly (probes=0 says so)
        from edgematch.solvers.native.search import Search, drive

        whole = drive(Search(tables, distinct=True), max(0.05, seconds))
        if whole.finished:
            raw = float(whole.solutions * per_board)
            distinct = float(whole.canonical if tables.turn_src.shape[0] else whole.solutions)
            rate = whole.nodes / whole.seconds if whole.seconds > 0 else 0.0
            return CountEstimate(whole.nodes, whole.nodes, whole.nodes, raw, raw, raw, distinct, rate,
                                 whole.seconds, 0, 0, P, tables.order_name, time.perf_counter() - start)
    exact_from = exact_depth(pilot.levels)
    while exact_from < P:  # a trial: the pilot may have missed deep levels, and an exact part is never cut
        t0 = time.perf_counter()
        knuth(tables, TRIAL, seed, exact_from)
        if time.perf_counter() - t0 <= seconds * 0.05:
            break
        exact_from += 1
    budget = max(0.05, seconds * 0.8 - (time.perf_counter() - start))
    rate = _rate(tables, min(0.2, budget * 0.2))
    batch, runs = 200, []
    deadline = time.perf_counter() + budget * 0.8
    for b in range(BATCHES):
        t0 = time.perf_counter()
        runs.append(knuth(tables, batch, seed * 7919 + b + 1, exact_from))
        spent = time.perf_counter() - t0
        left = deadline - time.perf_counter()
        if b + 1 < BATCHES and spent > 0:  # size the batches to the time left
            batch = max(10, min(batch * 4, int(batch * max(left, 0.0) / (BATCHES - b - 1) / spent)))
    probes = sum(r.probes for r in runs)
    nodes = sum(r.nodes * r.probes for r in runs) / probes
    boards = sum(r.boards * r.probes for r in runs) / probes
    nodes_m = [r.nodes for r in runs]
    boards_m = [r.boards for r in runs]
    return CountEstimate(
        nodes=nodes, nodes_low=min(nodes_m), nodes_high=max(nodes_m),
        raw=boards * per_board, raw_low=min(boards_m) * per_board, raw_high=max(boards_m) * per_board,
        distinct=boards / turns,
        nodes_per_second=rate, seconds=nodes / rate if rate > 0 else float("inf"),
        probes=probes, exact_from=exact_from, positions=P, order=tables.order_name,
        elapsed=time.perf_counter() - start)
