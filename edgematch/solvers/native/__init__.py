"""The native backend: a compiled backtracker over precomputed candidate tables.

A first solution is looked for by restarts (:func:`~edgematch.solvers.native.search.drive_restarts`): runs
with every bucket shuffled on a Luby schedule of ``unit`` nodes (options ``unit`` and ``seed``), and between
them the plain search in the tables' own order (each cell's candidates showing the rarest colours first:
option ``values``), kept and resumed for as many nodes. A backtracker's time to
a first solution is heavy-tailed in its value order; restarts bound what one bad early choice costs
(``benchmarks/native_tails.py``: on framed 8x8 3+6 boards, 10 seeds, 3 s, plain depth-first search timed
out on 2, this on none).
``native:dfs`` is the plain depth-first search; ``native:restarts`` is a synonym of ``native`` kept for
stored sessions and policies. Enumerating walks the whole tree in one depth-first search; counting does too,
but remembers the boards below each state it searched and meets in the middle on ring-first boards
(:mod:`edgematch.solvers.native.count.memo`, option ``memo``).

Options: ``order`` (``auto`` default: the more constrained region first, see
:func:`~edgematch.solvers.native.tables.auto_order`; ``row``, ``column``, ``spiral``, ``frame``, ``band2``) and
``symmetry`` (default on: a count fixes the board's turn with an anchor tile when the puzzle has one, and multiplies
back; see :mod:`edgematch.solvers.native.tables`). ``workers=N`` splits the tree by prefixes
(:mod:`edgematch.solvers.native.count.parts`) and runs the parts in separate processes (count, all, and a first
solution of ``native:dfs``); a first solution of ``native`` with ``workers=N`` or a cluster races N (or one per
worker thread) chains: the one-process search, the plain search in a second fill order, and restarts seeded
``seed + i`` (:mod:`edgematch.solvers.native.first.race`); after ``handover`` seconds every chain takes parts
of the second order's search (:mod:`edgematch.solvers.native.first.sweep`), here or on the cluster.

``best`` has two searches (option ``search``): ``dfs``, the depth-first search with a break schedule
(:mod:`edgematch.solvers.native.best`; options ``start``, ``breaks``, ``unit``, ``double``), and ``beam``
(:mod:`edgematch.solvers.native.best.beam`; options ``width``, ``fanout``, ``order`` comb, combK or row); both take
``seed``. Without ``search`` the one whose options are given runs, else :func:`best_search` picks.
``best`` with ``workers=N`` or on a cluster runs independent chains of that search, chain ``i`` with seed
``seed + i``, sharing the best board (:mod:`edgematch.solvers.native.best.chains`).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import replace
from typing import Any

from edgematch import clock
from edgematch.core.model import Puzzle, Solution
from edgematch.errors import UsageError
from edgematch.solvers.base import (
    INTERRUPTED,
    TIME_LIMIT,
    Backend,
    Question,
    Result,
    Status,
    Task,
    Timings,
    fraction,
    on_off,
    seconds,
    whole,
)
from edgematch.solvers.boards import CUT, listed, listing_deadline
from edgematch.solvers.native.best.stages import BEAM_SHARE, LADDER_TOP, STALL_SECONDS, seams_within
from edgematch.solvers.native.best.turned import board_turn, run_turned
from edgematch.solvers.native.count.memo import DEFAULT_MIB as MEMO_MIB
from edgematch.solvers.native.first.propagate import NAMED as PROPAGATION_NAMED
from edgematch.solvers.native.first.propagate import OPTIONS as PROPAGATION
from edgematch.solvers.native.first.propagate import Propagation, propagation
from edgematch.solvers.native.first.sweep import HANDOVER_SECONDS
from edgematch.solvers.native.rows import auto_lookahead
from edgematch.solvers.native.tables import (
    DEFAULT_ORDER,
    ORDERS,
    BuildTimedOut,
    Tables,
    build_tables,
    decode,
    expand,
)
from edgematch.solvers.parallel.processes import ChildDied

BUFFER = 4096  # solutions the loop stores before handing them over
VARIANTS = ("restarts", "dfs")
SEARCHES = ("dfs", "beam")  # best's searches: the depth-first search with breaks, or the beam
BEAM_ONLY = {"width", "fanout", "prefer", "order", "repair", "beam_share", "stall", "repair_within"}
DFS_ONLY = {"start", "breaks", "double", "unit"}


# each number and on/off option as the search that uses it reads it (the same parser and least value)
VALUES: dict[str, Callable[[object], object]] = {
    "unit": lambda v: whole(v, "unit", least=1), "seed": lambda v: whole(v, "seed"),
    "breaks": lambda v: whole(v, "breaks"), "width": lambda v: whole(v, "width", least=1),
    "fanout": lambda v: whole(v, "fanout", least=1), "start": lambda v: fraction(v, "start"),
    "beam_share": lambda v: fraction(v, "beam_share"), "handover": lambda v: seconds(v, "handover", off=True),
    "stall": lambda v: seconds(v, "stall", off=True), "repair_within": lambda v: seams_within(v),
    "turn": lambda v: board_turn(v),
    "lookahead": lambda v: lookahead({"lookahead": v}, "row"),
    **{name: (lambda v, name=name: on_off(v, name))
       for name in ("symmetry", "keep", "double", "repair", *PROPAGATION)},
}


def check_values(options: dict) -> None:
    """A UsageError naming the first option whose value its search would refuse (``seed=1e3``, ``start=２``),
    raised before anything runs: in a chain or a worker process it would end that one alone, in silence."""
    for name, parse in VALUES.items():
        if name in options:
            parse(options[name])


def _best_options_problem(options: dict) -> str | None:
    """Why ``best`` cannot take these options (a search's options with the other search, symmetry), or None."""
    given = set(options)
    if "symmetry" in given:
        return "native backend: symmetry not used by best"
    search = options.get("search")
    if search is not None and str(search) not in SEARCHES:
        return f"native backend: option search must be one of {', '.join(SEARCHES)}, got {str(search)!r}"
    if str(search) == "beam" and given & DFS_ONLY:
        return f"native backend: {', '.join(sorted(given & DFS_ONLY))} not used by best with search=beam"
    if str(search) == "dfs" and given & BEAM_ONLY:
        return f"native backend: {', '.join(sorted(given & BEAM_ONLY))} not used by best with search=dfs"
    if search is None and given & BEAM_ONLY and given & DFS_ONLY:
        return (f"native backend: {', '.join(sorted(given & BEAM_ONLY))} (search=beam) and "
                f"{', '.join(sorted(given & DFS_ONLY))} (search=dfs) do not go together")
    return None


def best_search(puzzle: Puzzle, options: dict) -> str:
    """The search ``best`` runs: ``search`` if given; else the one whose options are given; else ``dfs`` up to
    ``best.dfs.EXACT_UP_TO`` free cells (its branch and bound alone proves the answer there) and the beam above
    (issue 23: E2-like 16x16 with the centre hint, seeds 1-3, one core: beam 456.3 at 10 s against dfs's 432.7)."""
    from edgematch.solvers.native.best.dfs import EXACT_UP_TO

    if "search" in options:
        return str(options["search"])
    if options.keys() & BEAM_ONLY:
        return "beam"
    if options.keys() & DFS_ONLY:
        return "dfs"
    return "dfs" if puzzle.size - len(puzzle.hints) <= EXACT_UP_TO else "beam"


# free cells from which a framed board's first solution takes the dynamic order when the order is auto
# (benchmarks/propagation.py --backend native, seeds 1-5, 20 s, one core: 10x10 c5 median 0.2 s against 0.5 s,
# 10x10 c6 3/5 solved against 2/5, 12x12 c6 3/5 against 2/5; framed 7x7 c6 1.2 s against 0.3 s and 7x7 c7, 8x8 c8
# no better: on small boards its slower nodes (5 M/s against 25-60 M/s) cost more than its smaller tree saves)
DYNAMIC_FROM = 100
# and up to which: its tables (every cell's keys for each set of placed neighbours) take about 6x the static
# order's to build and each of its nodes scans every open cell, so on big boards the set-up alone outlasts a time
# limit (issue 39: 250x250 spent 76 s building them for -t 1; one core, loaded: 20x20 0.65 s against 0.10 s,
# 32x32 1.7 s against 0.3 s, 50x50 4.3 s against 0.7 s); gains were measured up to 12x12
DYNAMIC_UP_TO = 400


def dynamic_by_default(puzzle: Puzzle) -> bool:
    """Whether ``order=auto`` means the dynamic order for a first solution of ``puzzle``."""
    return puzzle.frame is not None and DYNAMIC_FROM <= puzzle.size - len(puzzle.hints) <= DYNAMIC_UP_TO


# nodes per Luby unit (10-25 ms here), between the two best measured: the default suite's framed 8x8 boards
# (3 seeds, 4-5 shuffle seeds each) took a median 0.22 s to a first solution at 3e5, 0.30 s at 1e6, 0.48 s at 3e6
RESTART_UNIT = 500_000


class NativeBackend(Backend):
    name = "native"
    extra = None
    modules = ()
    description = ("compiled backtracker (C built at install): row-scan candidate tables, identical tiles "
                   "grouped")
    options = ("order", "values", "symmetry", "lookahead", "fc", "bounds", "match", "memo", "keep", "unit", "seed",
               "start", "breaks", "double", "search", "width", "fanout", "prefer", "repair", "beam_share", "stall",
               "repair_within", "turn", "handover")
    defaults = {"order": f"{DEFAULT_ORDER} (row or frame; dynamic for one solution of a framed board of "
                         f"{DYNAMIC_FROM}-{DYNAMIC_UP_TO} free cells)",
                "values": "rare for one solution with native (a cell's candidates showing the rarest colours "
                          "first), else index (the file's tile order)", "symmetry": "on",
                "lookahead": "auto (on in the row and column orders)",
                "fc": "off", "bounds": "off", "match": "off",
                "memo": f"auto (a count: a table of up to {MEMO_MIB} MiB per process or worker; off where distinct "
                        "boards need the canonical test)",
                "keep": "on (restarts: the search in the tables' own order resumes between them)",
                "unit": str(RESTART_UNIT), "seed": "0",
                "start": "0.6 (best)", "breaks": "positions/6 (best)",
                "search": "beam (best; dfs up to 25 free cells; beam order comb|combK|row)",
                "width": "doubling (best beam)", "fanout": "8 (best beam)", "prefer": "rare (best beam)",
                "repair": "on (best beam)",
                "beam_share": f"{BEAM_SHARE:g} (best beam: the beams' share of the time at most, as they stop at the "
                              f"{LADDER_TOP:,}-wide beam; the rest repairs)",
                "stall": f"{STALL_SECONDS:g} (best beam: seconds of repair without a better board before a fresh "
                         "beam; off)",
                "repair_within": "off (best beam: every round's board is repaired)",
                "turn": "0 (best; chain i of --workers or --cluster: turn + i, or turn + 2i on a board not square)",
                "handover": f"{HANDOVER_SECONDS:g} (seconds: a first solution on N workers or a cluster, after which "
                            "every chain joins chain 1's search; off)"}
    meanings = {
        "order": "the fill order: auto, row, column, spiral, frame, band2 or dynamic (also --order); best beam: comb "
                 "(rows, then the last four column by column), combK (the last K rows) or row",
        "values": "which of a cell's candidates come first: rare or index",
        "symmetry": "a count fixes the board's turn with a unique tile and multiplies back",
        "lookahead": "the plain loop skips a tile whose east side leaves the rest of its row (south side: its "
                     "column) no way to be filled with the free tiles: auto, on or off",
        "fc": "forward checking: refuse a placement that leaves an open neighbour no candidate",
        "bounds": "the free tiles must show each colour as often as the open cells ask for it",
        "match": "the open cells beside placed ones must take distinct fitting free tiles",
        "memo": "a count remembers each searched state's boards: auto, on, off or a size in MiB",
        "keep": "one solution with native: on or off",
        "unit": "nodes per unit of the Luby restart schedule (best's own default: 5000000)",
        "seed": "seeds the restarts' shuffles and the beams' ties (chain i of --workers: seed + i)",
        "start": "the depth-first search's share of positions that must fit exactly",
        "breaks": "the depth-first search's broken seams allowed by the last position",
        "double": "best's depth-first search: also try placements that break two seams at once, on by "
                  "default (off: at most one per cell, faster, but the best board is never proven)",
        "search": "beam or dfs",
        "width": "the partial boards each layer keeps: a number, or doubling beams",
        "fanout": "the children kept per board",
        "prefer": "among boards with equal breaks the beam keeps: none (at random) or rare (those whose tiles show "
                  "more sides of the rarer colours)",
        "repair": "after the beams, repair the best board (tail beams, large-neighbourhood search): on or off",
        "beam_share": "a fraction from 0 to 1",
        "stall": "best beam: after this many seconds of repair without a better board, a fresh beam (a new seed) "
                 "and its repair; off",
        "repair_within": "best beam: a round's board is repaired only when it is at most this many seams below the "
                         "best board so far (of every chain), else the next fresh beam starts at once; off",
        "turn": "best: the quarter turns clockwise (0-3) the board is turned by before the search fills it (boards "
                "turned back); chain i of --workers or --cluster turns it i more (2i on a board not square)",
        "handover": "solve --workers N or --cluster: seconds before every chain joins chain 1's search, or off",
    }
    variants = VARIANTS
    questions = ("first", "all", "count", "best")
    on_cluster = True  # count and all: the split search's parts as Dask tasks (edgematch.solvers.native.count.cluster);
    # best: chains as Dask tasks (edgematch.solvers.native.best.chains); first: racing chains (native.first.race)

    def __init__(self, sub: str | None = None):
        if sub is not None and sub not in VARIANTS:
            raise UsageError(f"unknown native variant {sub!r}; choose native or native:{' or native:'.join(VARIANTS)}")
        super().__init__(sub)

    def missing(self) -> str | None:
        """None when the C library (every loop of this backend) loads, else one line saying what to install."""
        from edgematch.solvers.native.kernels import missing

        return missing()

    def warm_up(self, question: Question | None = None) -> None:
        """Load the C library every question's loops are in (about a millisecond), before any timed run."""
        from edgematch.solvers.native.compiled import ensure_compiled

        ensure_compiled()

    def refusal(self, task: Task) -> str | None:
        check_values(task.options)
        best_only = {"start", "breaks", "double", "search", "width", "fanout", "prefer", "repair", "beam_share",
                     "stall", "repair_within", "turn"}
        propagating = task.options.keys() & set(PROPAGATION) or task.options.get("order") == "dynamic"
        if propagating and task.question == "best":
            return f"native backend: {PROPAGATION_NAMED} are options of solve and count, not best"
        if "lookahead" in task.options and (task.question == "best" or (
                propagating and lookahead(task.options, "row"))):
            return (f"native backend: lookahead is an option of the plain loop (solve and count without "
                    f"{PROPAGATION_NAMED.replace(' and ', ' or ')})")
        split = task.question != "first" or self.sub == "dfs"  # several workers split the static order's tree
        if propagating and split and (task.workers > 1 or task.cluster is not None):
            return (f"native backend: {PROPAGATION_NAMED} run in one process for count, --all and native:dfs "
                    "(the split search's parts follow the static order); a first solution of native races them")
        if "memo" in task.options:
            problem = _memo_problem(task)
            if problem:
                return problem
        if "keep" in task.options and (task.question != "first" or self.sub == "dfs"):
            return "native backend: keep is an option of the restarts (one solution with native)"
        if task.question == "best":
            problem = _best_options_problem(task.options)
            if problem:
                return problem
        if task.question != "best" and task.options.keys() & best_only:
            return f"native backend: {', '.join(sorted(task.options.keys() & best_only))} are options of best"
        if "handover" in task.options and (task.question != "first" or self.sub == "dfs"
                                           or (task.workers < 2 and task.cluster is None)):
            return ("native backend: handover is an option of a first solution with native on several workers "
                    "or a cluster (solve --workers N, --cluster)")
        if task.question == "best" and self.sub == "dfs":
            return "native:dfs does not answer best (use native)"
        if task.cluster is not None and task.workers > 1:
            return "native backend: workers and a cluster do not go together (local:N starts N workers)"
        if self.sub == "dfs" and task.options.keys() & {"unit", "seed"}:
            return "native:dfs backend: unit and seed are options of the restarts (native, native:restarts)"
        restarts_only = task.options.keys() & {"unit", "seed"}
        if task.question in ("count", "all") and restarts_only:
            named = " and ".join(sorted(restarts_only))
            return (f"native backend: {named} {'are options' if len(restarts_only) > 1 else 'is an option'} of the "
                    "restarts (one solution with native) and of best; a count or a listing searches the whole tree "
                    "in one order")
        if task.question in ("count", "best") and "values" in task.options:
            return ("native backend: values orders the candidates a solution or a listing tries first; a count "
                    "tries them all, and best has its own order")
        if "values" in task.options and task.cluster is not None and (task.question == "all" or self.sub == "dfs"):
            return ("native backend: values runs in the one-process search and the race's chains; a split "
                    "search on a cluster builds its parts' tables in the file's order")
        if task.question in ("first", "all") and "symmetry" in task.options:
            return ("native backend: symmetry is an option of count (a solution or a listing shows every board, "
                    "turned or not)")
        return super().refusal(task)

    def values(self, task: Task) -> str:
        """The candidate order (option ``values``): given, else ``rare`` for one solution with the restarts and
        ``index`` otherwise. Families suite, 40 seeds of the framed, clue and e2 families and 10 of the others,
        10 s (benchmarks/README.md): with the restarts ``rare`` took 24.7 s in all on framed 8x8 against 38.0 s,
        0.14 s on cards and signed 5x5 against 0.53 s, and at most 1.3x longer on e2-like 7x7 and clue-like 12x6
        (57.8 s against 49.8 s; 3.2 s against 2.5 s); at the peak it solves what ``index`` does not. Alone, in one
        fixed order, it timed out on 11 of 40 clue-like 12x6 boards (``index``: 1), so ``native:dfs`` keeps the
        file's order unless asked."""
        if "values" in task.options:
            return str(task.options["values"])
        return "rare" if task.question == "first" and self.sub != "dfs" else "index"

    def prepare(self, puzzle: Puzzle, task: Task) -> tuple[Tables, float, float]:
        """Tables for the puzzle, the seconds to build them, and to load or compile the loop. Building counts
        against the task's deadline: past it, :class:`~edgematch.solvers.native.tables.BuildTimedOut`
        (:func:`timed_out` makes the run's result of it)."""
        from edgematch.solvers.native.compiled import ensure_compiled

        t0 = clock.now()
        deadline = task.until(t0)
        given = self.checked_options(task)
        order = str(given.get("order", DEFAULT_ORDER))
        if order not in (*ORDERS, "dynamic"):
            raise UsageError(f"native backend: unknown order {order!r}; choose one of: {', '.join(ORDERS)}, dynamic")
        # only a count folds the board turns away: solutions and listings must show every board
        symmetry = on_off(given.get("symmetry", True), "symmetry") and task.question == "count"
        one_search = task.workers == 1 and task.cluster is None  # (a race's chains are each one search)
        if order == "auto" and task.question == "first" and one_search and dynamic_by_default(puzzle):
            order = "dynamic"
        how = propagation(given, order)
        fill = DEFAULT_ORDER if how.dynamic else order
        ahead = False if how.any else lookahead_asked(given)
        tables = build_tables(puzzle, fill, symmetry, masks=how.any, values=self.values(task), deadline=deadline,
                              lookahead=ahead)
        if how.dynamic:
            tables = replace(tables, order_name="dynamic")
        build = clock.now() - t0
        return tables, build, ensure_compiled()

    def run(self, puzzle: Puzzle, task: Task) -> Result:
        if task.question == "best":
            from edgematch.solvers.native.best.dfs import run_best

            given = self.checked_options(task)
            if task.workers > 1 or task.cluster is not None:  # chains, each the search below with its own seed
                from edgematch.solvers.native.best import chains

                return chains.run_cluster_chains(self, puzzle, task) if task.cluster is not None else \
                    chains.run_chains(self, puzzle, task)
            if best_search(puzzle, given) == "beam":
                from edgematch.solvers.native.best.stages import run_beam as search
            else:
                search = run_best
            result = run_turned(lambda p, t: search(p, t, given), puzzle, task, board_turn(given.get("turn", 0)))
            result.backend = self.full_name
            return result
        if task.question == "first" and self.sub != "dfs" and (task.workers > 1 or task.cluster is not None):
            from edgematch.solvers.native.first import race  # chains race: chain 0 the one-process search

            return race.run_cluster_race(self, puzzle, task) if task.cluster is not None else \
                race.run_race(self, puzzle, task)
        from edgematch.solvers.native.count import parts
        from edgematch.solvers.native.search import distinct_boards, drive, drive_restarts

        began = clock.now()
        task = task.anchored(began)  # the build counts
        try:
            tables, build, compile_s = self.prepare(puzzle, task)
        except BuildTimedOut:
            return self.timed_out(task, clock.now() - began)
        if tables.positions == 0:
            return self._all_hinted(puzzle, tables, task, build)
        if task.progress is not None and task.question != "first" and tables.raw_multiplier != 1:
            # every driver below counts boards; the live line shows raw solutions, as the result does
            task = replace(task, progress=parts.raw_progress(
                task.progress, tables.raw_multiplier, task.limit if task.question == "all" else None))
        want = {"first": 1, "all": task.limit, "count": None}[task.question]
        capacity = {"first": 1, "all": min(want or BUFFER, BUFFER), "count": 0}[task.question]
        restarting = self.sub != "dfs" and task.question == "first" and task.workers == 1
        unit = whole(task.options.get("unit", RESTART_UNIT), "unit", least=1)
        seed = whole(task.options.get("seed", 0), "seed")
        keep = on_off(task.options.get("keep", True), "keep")
        how = propagation(self.checked_options(task), tables.order_name)
        restarts = 0
        memo, memo_off = _memo_size(puzzle, task, tables, how)
        memo_stats: dict[str, int] = {}
        t0 = clock.now()
        deadline = task.deadline
        if restarting:
            outcome, restarts, _ = drive_restarts(tables, unit, seed, deadline, task.progress, keep_first=keep,
                                                  make=_searcher(puzzle, how, 1, False))
        elif task.workers > 1 or task.cluster is not None:
            try:
                if task.cluster is not None:
                    from edgematch.solvers.native.count.cluster import run_parts as run_split
                else:
                    run_split = parts.run_parallel
                outcome = run_split(puzzle, tables, task, want, capacity, memo)
            except ChildDied as exc:
                return Result(self.full_name, Status.ERROR, timings=Timings(build=build), message=str(exc),
                              options={"order": tables.order_name, "workers": task.workers})
        else:
            if memo is not None:  # the memoised count (its own table, this run's)
                from edgematch.solvers.native.count.memo import MemoSearch, MemoTable

                search = MemoSearch(tables, MemoTable(puzzle, tables, memo))
            else:
                search = _searcher(puzzle, how, capacity, task.distinct)(tables)
            # making the search (its memo table, propagation's arrays) counts too
            outcome = drive(search, deadline, want, task.progress)
            memo_stats = search.stats() if memo is not None else {}
        solve = clock.now() - t0 - outcome.started - outcome.closed  # a local cluster's: reported apart

        raw = outcome.solutions * tables.raw_multiplier
        cut = False
        if task.question == "first":
            solutions = [decode(puzzle, tables, picks) for picks in outcome.found[:1]]
        else:
            every = (sol for picks in outcome.found for sol in expand(puzzle, tables, picks))
            solutions, cut = listed(every, want, listing_deadline(deadline, outcome.stopped))
        if outcome.found or raw:
            done = (outcome.finished or outcome.stopped == "solution limit" or task.question == "first") and not cut
            status = Status.SOLVED if done else Status.TIMEOUT
        else:
            status = Status.UNSAT if outcome.finished else Status.TIMEOUT
        message = CUT if cut and outcome.stopped != INTERRUPTED else \
            "" if task.question == "first" and outcome.stopped == "solution limit" else outcome.stopped
        if isinstance(outcome, parts.Split) and outcome.stopped != INTERRUPTED:  # workers that died, if any
            if outcome.failed:  # every worker died with parts left: what was counted stands, as a lower bound
                status, message = Status.ERROR, outcome.notes
            elif outcome.notes:
                message = "; ".join(m for m in (message, outcome.notes) if m)
        counted = task.question == "count" or (task.question == "all" and outcome.finished)
        distinct = None
        if counted and task.distinct:
            distinct = distinct_boards(tables, outcome.solutions, outcome.canonical)
        rate = outcome.nodes / outcome.seconds if outcome.seconds > 0 else 0.0
        return Result(
            backend=self.full_name, status=status, solutions=solutions,
            count=raw if counted else None, distinct=distinct,
            timings=Timings(build=build, solve=solve),
            counters={
                "nodes": outcome.nodes, "boards": outcome.solutions, "nodes_per_second": rate,
                "load_seconds": compile_s, "workers": task.workers,
                "positions": tables.positions,
                "candidates": len(tables.cand_type), "raw_per_board": tables.raw_multiplier,
                **({"anchor": tables.anchor, "turns_folded": tables.folded} if tables.anchor is not None else {}),
                **({"restarts": restarts} if restarting else {}), **memo_stats,
                **({"workers_lost": outcome.lost, "parts_again": outcome.again}
                   if isinstance(outcome, parts.Split) and outcome.lost else {}),
                **({"cluster_start_seconds": outcome.started, "cluster_close_seconds": outcome.closed}
                   if outcome.started else {}),
            },
            options={"order": tables.order_name, "workers": task.workers,
                     **({"values": self.values(task)} if "values" in task.options or restarting else {}),
                     **({"fc": "on" if how.fc else "off", "bounds": "on" if how.bounds else "off",
                         "match": "on" if how.match else "off"} if how.any else {}),
                     **({"keep": "off"} if restarting and not keep else {}),
                     **({"memo": f"{memo:g} MiB" + (" per worker" if task.workers > 1 or task.cluster else "")}
                        if memo is not None else {"memo": memo_off} if memo_off else {}),
                     **({"unit": unit, "seed": seed} if restarting else {}), **_cluster_named(task)},
            message=message,
        )

    def timed_out(self, task: Task, seconds: float) -> Result:
        """The result of a run whose time limit passed while its tables were being built: status timeout with
        the limit's message, nothing searched (a count: at least 0)."""
        counted = task.question == "count"
        return Result(self.full_name, Status.TIMEOUT, count=0 if counted else None,
                      distinct=0 if counted and task.distinct else None, timings=Timings(build=seconds),
                      counters={"nodes": 0}, options={"workers": task.workers, **_cluster_named(task)},
                      message=TIME_LIMIT)

    def _all_hinted(self, puzzle: Puzzle, tables: Tables, task: Task, build: float) -> Result:
        """Every cell fixed by a hint: the hints are the one solution (the model already checked they fit)."""
        solution = decode(puzzle, tables, tables.order)
        return Result(
            backend=self.full_name, status=Status.SOLVED, solutions=[solution],
            count=1 if task.question != "first" else None,
            distinct=1 if task.distinct and task.question != "first" else None,
            timings=Timings(build=build), counters={"nodes": 0},
            options={"order": tables.order_name},
        )

    def iter_solutions(self, puzzle: Puzzle, task: Task) -> Iterator[Solution]:
        from edgematch.solvers.native.search import iterate

        task = task.anchored(clock.now())
        try:
            tables, _, _ = self.prepare(puzzle, task)
        except BuildTimedOut:
            return  # the time limit passed while building: nothing listed
        if tables.positions == 0:
            yield from self._all_hinted(puzzle, tables, task, 0.0).solutions
            return
        how = propagation(self.checked_options(task), tables.order_name)
        for picks in iterate(_searcher(puzzle, how, 256, False)(tables), task.deadline):
            yield from expand(puzzle, tables, picks)


def lookahead_asked(options: dict) -> bool | str:
    """Option ``lookahead`` as :func:`~edgematch.solvers.native.tables.build_tables` takes it: on, off, or "auto"
    (the default: :func:`~edgematch.solvers.native.rows.auto_lookahead` judges it on the order the tables fill)."""
    value = options.get("lookahead", "auto")
    return "auto" if str(value).lower() == "auto" else on_off(value, "lookahead")


def lookahead(options: dict, order: str) -> bool:
    """Whether the plain loop runs with the row look-ahead in fill ``order`` (:func:`lookahead_asked`)."""
    asked = lookahead_asked(options)
    return auto_lookahead(order) if asked == "auto" else bool(asked)


def _memo_problem(task: Task) -> str | None:
    """Why the ``memo`` option cannot be honoured as given (None: it can, or it says off)."""
    from edgematch.solvers.native.count.memo import memo_mib

    if memo_mib(task.options["memo"]) is None or str(task.options["memo"]).lower() == "auto":
        return None
    if task.question != "count":
        return "native backend: memo is an option of count"
    if task.options.keys() & set(PROPAGATION) or task.options.get("order") == "dynamic":
        return f"native backend: memo and {PROPAGATION_NAMED.replace(' and ', ' or ')} do not go together"
    return None


def _memo_size(puzzle: Puzzle, task: Task, tables: Tables, how: Propagation) -> tuple[float | None, str]:
    """The memo table's MiB for this run (None: the plain loop) and, when it is off, why: a count in one
    process or each worker without propagation, unless distinct boards need the canonical test (the memo
    cannot merge states whose boards must each be looked at) or a state's key does not fit."""
    from edgematch.solvers.native.count.memo import applies, key_too_wide, memo_mib

    mib = memo_mib(task.options.get("memo", "auto"))
    if mib is None or task.question != "count" or how.any:
        return None, ""
    if not applies(tables, task.distinct):
        return None, "off (distinct boards need the canonical test: no anchor tile folds the board turns)"
    too_wide = key_too_wide(puzzle, tables)
    return (None, too_wide) if too_wide else (mib, "")


def _searcher(puzzle: Puzzle, how: Propagation, capacity: int, distinct: bool) -> Callable[[Tables], Any]:
    """What builds a search over given tables: the plain loop, or the one with propagation
    (:mod:`edgematch.solvers.native.first.propagate`) when ``how`` asks for any."""
    from edgematch.solvers.native.first.propagate import PropSearch
    from edgematch.solvers.native.search import Search

    if not how.any:
        return lambda t: Search(t, capacity=capacity, distinct=distinct)
    return lambda t: PropSearch(puzzle, t, how, capacity=capacity, distinct=distinct)


def _cluster_named(task: Task) -> dict[str, str]:
    """The cluster a result ran on, for its options (nothing when it ran here)."""
    if task.cluster is None:
        return {}
    from edgematch.solvers.parallel.cluster import describe

    return {"cluster": describe(task.cluster)}
