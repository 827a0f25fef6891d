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
from dataclasses import dataclass

import numpy as np

from edgematch import clock
from edgematch.core.model import Puzzle
from edgematch.errors import Interrupted
from edgematch.solvers.native import kernels
from edgematch.solvers.native.tables import Tables, build_tables

SUBTREE = 2_000  # nodes a probe's exact subtree holds on average
BATCHES = 10  # independent batches, for the spread
PILOT = 2_000  # plain probes that measure the levels first
TRIAL = 20  # probes that try the exact depth before the batches
SMALL_TREE = 100_000  # nodes (by the pilot) below which the estimate counts the whole tree instead
SLICE_SECONDS = 0.02  # about this long per call of em_probe: the clock and Ctrl-C are read between calls
EXACT_CAP = 50 * SUBTREE  # nodes after which a probe gives its exact subtree up and walks on (still unbiased),
EXACT_SHARE = 0.1  # or this share of the batches' time at the measured rate, if more
FIRST_BUDGET = 20_000  # nodes of the first call, before its rate is known


@dataclass(frozen=True)
class TreeEstimate:
    """Mean per probe of the tree's size (nodes) and its boards (type-level solutions), with standard errors,
    the nodes each depth holds, and the depth from which probes counted exactly (``positions``: never).
    ``probes`` counts the probes done; ``cut``: the deadline came before all that were asked for were done
    (a probe in progress then is left out); ``met``: probes that met a board; ``walked_on``: probes whose
    exact subtree passed the cap, so they walked on at random below it."""

    probes: int
    nodes: float
    nodes_se: float
    boards: float
    boards_se: float
    depth: float  # mean depth a probe's random walk reached
    positions: int
    levels: tuple[float, ...] = ()
    exact_from: int = 0
    cut: bool = False
    met: int = 0
    walked_on: int = 0


def _mean_se(total: float, squares: float, k: int) -> tuple[float, float]:
    mean = total / k
    var = max(0.0, squares / k - mean * mean)
    return mean, math.sqrt(var / k) if k > 1 else float("inf")


def knuth(tables: Tables, probes: int = 10_000, seed: int = 1, exact_from: int | None = None,
          deadline: float | None = None, at_least: int = 0, exact_cap: int = 0) -> TreeEstimate:
    """Estimate the plain search's tree over ``tables`` (their fill order; with the row look-ahead when they have
    it, ``tables.rows``) from ``probes`` random probes, each counting exactly below depth ``exact_from`` (default:
    never) unless that takes more than ``exact_cap`` nodes (0: no cap), when it walks on at random instead
    (unbiased either way: see ``em_probe``).

    ``em_probe`` runs in slices of about :data:`SLICE_SECONDS` (a node budget per call), so an exact subtree
    of any size never holds the process: between slices Ctrl-C raises as usual, and past ``deadline`` (a
    ``clock.now()`` value) the probes stop with those done (``cut``), once ``at_least`` are done.
    Ctrl-C raises :class:`~edgematch.errors.Interrupted` whose ``result`` is the estimate of the probes done."""
    lib = kernels.require()
    P = tables.positions
    exact = P if exact_from is None else max(0, min(exact_from, P))
    a = kernels.c_arrays(tables)
    type_left = np.array(tables.type_count, np.int32)
    placed = np.array(tables.placed0, np.uint32)
    picks = np.zeros(max(P, 1), np.uint32)
    ptr = np.zeros(max(P, 1), np.uint32)
    end = np.zeros(max(P, 1), np.uint32)
    scratch = np.zeros(max(len(tables.cand_type), 1), np.uint32)
    state = np.zeros(6, np.int64)  # probes done, phase, walk depth, exact depth, its stack's top, random state
    acc = np.zeros(5, np.float64)  # the probe in progress: weight, size, boards, exact nodes and boards
    level = np.zeros(max(P, 1), np.float64)
    stats = np.zeros(7, np.float64)

    def p(name: str, x: np.ndarray | None = None) -> object:  # cffi checks each dtype against em_api.h
        return kernels.pointer(a[name] if x is None else x, (a[name] if x is None else x).dtype, name,
                               writes=x is not None)

    head = (p("order"), P, p("key_a"), p("key_b"), p("base"), p("extra_n"), p("extra_src"), p("extra_side"),
            a["extra_src"].shape[1], p("tab_start"), p("tab_end"), p("cand_type"), p("cand_edge"),
            tables.free_label + 1, p("type_left", type_left), p("placed", placed), p("picks", picks),
            p("scratch", scratch), p("ptr", ptr), p("end", end), probes, seed & (2**64 - 1), exact,
            max(0, exact_cap))
    rows, rows_kept = (kernels.ffi.NULL, None) if tables.rows is None else \
        kernels.rows_struct(tables, tables.rows.scratch())  # rows_kept: the arrays it points into, kept alive
    tail = (p("state", state), p("acc", acc), p("level", level), p("stats", stats), rows)

    def so_far(cut: bool) -> TreeEstimate:
        done = int(state[0])
        k = max(done, 1)
        started = max(done + (1 if cut and state[1] != 0 else 0), 1)  # walk levels include a probe left out
        nodes, nodes_se = _mean_se(stats[0], stats[1], k)
        boards, boards_se = _mean_se(stats[2], stats[3], k)
        return TreeEstimate(done, nodes, nodes_se, boards, boards_se, stats[4] / k, P,
                            tuple(float(x) / started for x in level[:P]), exact, cut, int(stats[5]), int(stats[6]))

    if P > 0 and probes > 0:
        budget = FIRST_BUDGET
        try:
            while True:
                t0 = clock.now()
                code = lib.em_probe(*head, budget, *tail)
                if code == kernels.FINISHED:
                    break
                now = clock.now()
                if deadline is not None and now >= deadline and state[0] >= at_least:
                    return so_far(True)
                if now > t0:  # about SLICE_SECONDS a call at the rate of the last one
                    budget = int(min(max(budget * SLICE_SECONDS / (now - t0), 1_000), 50_000_000))
        except KeyboardInterrupt:  # the probes done so far go with it
            raise Interrupted(so_far(True)) from None
    return so_far(False)


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
    the tree was so small that it was counted, and every figure is exact. ``met``: the probes that met a
    board; with none (``raw`` 0 of a tree not counted) the probes say only that boards are rarer than they
    can see (:meth:`unmet_chance`), not that there are none."""

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
    met: int = 0
    lookahead: bool = False  # the tree and rate of the loop with the row look-ahead (as the count runs it)

    def as_dict(self) -> dict[str, float | int | str]:
        return {k: getattr(self, k) for k in self.__dataclass_fields__}

    @property
    def none_met(self) -> bool:
        """Probes ran (the tree was not counted) and none met a board: ``raw`` 0 is then no count."""
        return self.probes > 0 and self.met == 0

    def unmet_chance(self) -> float:
        """The chance of one probe meeting a board that ``probes`` probes meeting none bounds at 95%
        (1 - 0.05^(1/probes), about 3 / probes): the bound such probes give."""
        return 1.0 - 0.05 ** (1.0 / self.probes) if self.probes > 0 else 1.0


def _rate(tables: Tables, seconds: float) -> float:
    """Nodes per second of the plain count over ``tables``, measured for about ``seconds``."""
    from edgematch.solvers.native.search import Search, drive

    search = Search(tables)
    outcome = drive(search, clock.deadline(seconds))
    if outcome.stopped == "interrupted":  # drive keeps what it had on Ctrl-C; the estimate stops
        raise KeyboardInterrupt
    return outcome.nodes / outcome.seconds if outcome.seconds > 0 else 0.0


def estimate_count(puzzle: Puzzle, seconds: float = 1.0, seed: int = 1, order: str = "auto") -> CountEstimate:
    """Estimate ``edgematch count`` on ``puzzle`` (native, its count's tables) in about ``seconds``: a pilot
    of plain probes measures the levels, trials pick the depth from which probes count exactly, then batches
    of such probes, and a short run of the count itself measures its node rate.

    Every phase has its share of ``seconds`` and the probes run in short compiled slices, so the estimate
    keeps its time however large the tree: a batch probe whose exact subtree passes a cap (:data:`EXACT_CAP`
    or :data:`EXACT_SHARE` of the batches' time) walks on at random below it, still unbiased, and one still
    under way at the deadline is left out. On Ctrl-C it raises :class:`~edgematch.errors.Interrupted` whose
    ``result`` is the estimate from the batches done (None before the first)."""
    try:
        return _estimate_count(puzzle, seconds, seed, order)
    except KeyboardInterrupt as stop:
        if isinstance(stop, Interrupted) and isinstance(stop.result, CountEstimate):
            raise
        raise Interrupted(None) from None  # before the batches: nothing to show


def _estimate_count(puzzle: Puzzle, seconds: float, seed: int, order: str) -> CountEstimate:
    start = clock.now()
    tables = build_tables(puzzle, order, symmetry=True, lookahead="auto")  # the count's own tables
    P = tables.positions
    per_board = tables.raw_multiplier
    turns = tables.turn_src.shape[0] + 1  # board turns the canonical test tells apart (1: folded by an anchor)
    if P == 0:
        return CountEstimate(0, 0, 0, per_board, per_board, per_board, 1, 0, 0, 0, 0, 0, tables.order_name, 0.0,
                             lookahead=tables.rows is not None)

    def at(share: float) -> float:  # the clock when this share of the time is spent (a little on, if past)
        return max(start + seconds * share, clock.now() + 0.01)

    pilot = knuth(tables, PILOT, seed, deadline=at(0.2), at_least=1)  # plain walks: each ends within P steps
    if pilot.nodes <= SMALL_TREE:  # so small a tree is counted, exactly (probes=0 says so)
        from edgematch.solvers.native.search import Search, distinct_boards, drive

        now = clock.now()
        whole = drive(Search(tables, distinct=True), now + max(0.05, (at(0.9) - now) / 2))
        if whole.stopped == "interrupted":
            raise KeyboardInterrupt
        if whole.finished:
            raw = float(whole.solutions * per_board)
            distinct = float(distinct_boards(tables, whole.solutions, whole.canonical))
            rate = whole.nodes / whole.seconds if whole.seconds > 0 else 0.0
            return CountEstimate(whole.nodes, whole.nodes, whole.nodes, raw, raw, raw, distinct, rate,
                                 whole.seconds, 0, 0, P, tables.order_name, clock.now() - start,
                                 met=int(whole.solutions > 0), lookahead=tables.rows is not None)
    exact_from = _exact_from(tables, pilot, seed, seconds, at(0.35))
    rate = _rate(tables, max(0.01, min(0.2, (at(0.85) - clock.now()) * 0.2)))
    batch, runs = 200, []
    deadline = at(0.85)
    cap = max(EXACT_CAP, int(rate * (deadline - clock.now()) * EXACT_SHARE))
    try:
        for b in range(BATCHES):
            t0 = clock.now()
            run = knuth(tables, batch, seed * 7919 + b + 1, exact_from, deadline=deadline, exact_cap=cap)
            if run.probes:
                runs.append(run)
            spent = clock.now() - t0
            left = deadline - clock.now()
            if left <= 0 and runs:
                break
            if b + 1 < BATCHES and spent > 0:  # size the batches to the time left
                batch = max(10, min(batch * 4, int(batch * max(left, 0.0) / (BATCHES - b - 1) / spent)))
    except KeyboardInterrupt as stop:
        if isinstance(stop, Interrupted) and isinstance(stop.result, TreeEstimate) and stop.result.probes:
            runs.append(stop.result)  # the batch under way: its probes done
        partial = _combined(runs, per_board, turns, rate, exact_from, tables, start) if runs else None
        raise Interrupted(partial) from None
    if not runs:  # not one probe counting exactly was done in the time: the pilot's plain walks are the estimate
        runs, exact_from = [pilot], P
    return _combined(runs, per_board, turns, rate, exact_from, tables, start)


def _exact_from(tables: Tables, pilot: TreeEstimate, seed: int, seconds: float, by: float) -> int:
    """The depth from which the batches' probes count exactly: the pilot's choice (:func:`exact_depth`) when
    :data:`TRIAL` probes from it finish within 5% of ``seconds``, else the shallowest depth found by halving
    (until the clock passes ``by``) whose trial does; ``positions`` (plain walks, always quick) at worst.
    The pilot's walks rarely reach deep levels, so its choice can leave whole boards below a depth."""
    P = tables.positions

    def quick(depth: int) -> bool:
        trial = knuth(tables, TRIAL, seed, depth, deadline=clock.now() + seconds * 0.05)
        return not trial.cut

    first = exact_depth(pilot.levels)
    if first >= P or quick(first):
        return first
    low, high = first, P  # low's trial was cut; high (plain walks) is quick
    while high - low > 1 and clock.now() < by:
        mid = (low + high) // 2
        if quick(mid):
            high = mid
        else:
            low = mid
    return high


def _combined(runs: list[TreeEstimate], per_board: float, turns: int, rate: float, exact_from: int,
              tables: Tables, start: float) -> CountEstimate:
    """The estimate from the batches ``runs`` (each with probes done)."""
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
        probes=probes, exact_from=exact_from, positions=tables.positions, order=tables.order_name,
        elapsed=clock.now() - start, met=sum(r.met for r in runs), lookahead=tables.rows is not None)
