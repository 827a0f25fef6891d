"""Cube-and-conquer for the SAT backend: ``sat -O cubes=N`` (a first solution).

**Cubes.** The native search splits its tree by prefixes of its fill order
(:func:`edgematch.solvers.native.search.prefixes` on :func:`~edgematch.solvers.native.tables.build_tables`): every
fitting assignment of candidates to the first ``d`` positions, ``d`` the shallowest depth giving at least ``N`` of
them. A candidate at a position is one (cell, tile type, turn), and the CNF has exactly one variable for that,
``("x", cell, type, turn)`` (:mod:`edgematch.encodings.cnf` places tile *types*, identical tiles merged, as the
native tables do, from the same :func:`~edgematch.core.tiletypes.tile_types`). So a prefix becomes a cube of
``d`` placement literals, used as assumptions. Placement literals are the strongest cube there is (seam colours
would be weaker, and would need deduplication); no two cubes are equal, because at one position distinct
candidates are distinct (type, turn) pairs.

Why the cubes cover every solution (so "every cube unsatisfiable" proves "no solution"), and are disjoint:
- Every model of the CNF is a solution board. Its placements on the first ``d`` cells of the fill order fit
  the frame, the hints and each other (and use each type at most as often as it has copies), so the native
  split, which keeps *every* such prefix, lists it; the model satisfies that prefix's cube.
- A cube naming a placement the CNF has no variable for (removed by the domains' seam filtering, or an anchor
  turn the symmetry option forbids) is satisfied by no model: it is dropped, and no solution is lost.
- The board's turn is fixed the same way on both sides: the tables are built with the CNF's ``symmetry``
  option, so the same anchor tile (:func:`edgematch.encodings.domains.anchor`) keeps the same turns.
- Two cubes differ at some cell in (type, turn), and a model places one (type, turn) per cell: disjoint.
  (Tested: solutions counted cube by cube add up to the native count; every brute-force solution satisfies
  exactly one cube.)

**Conquer.** One incremental PySAT solver per worker holds the CNF, loaded once, and solves its cubes one after
another with ``solve(assumptions=cube)``, keeping what it learnt. The cubes are first propagated
(``propagate(assumptions=cube)``): a conflict refutes a cube at once, and the rest are solved most constrained
first (most literals implied: the smallest sub-problems, settled fastest). A satisfiable cube gives the board
(decoded as the SAT backend decodes a model); every cube unsatisfiable means no solution.

- ``workers=1``: the loop runs in the SAT backend's solver child (:func:`conquer_child`).
- ``workers=N``: that child builds the CNF, the cubes and their order once, loads the solver, and forks N
  workers that inherit the loaded solver; it deals them the cubes one at a time. The first board stops them. A
  worker that dies (``kill -9``) is noted and its cube is solved again by another (the rule of
  :class:`~edgematch.solvers.parallel.processes.Dealer`), so "every cube unsatisfiable" stays a proof; when every
  worker died with cubes left, the answer is an error that names the cubes never settled, not "no solution".
- On a Dask cluster (:func:`run_cluster`): the client plans the cubes (the native tables only, no CNF), deals
  them round-robin into batches, a few per worker thread, and submits each batch as a task; a task forks a
  child that builds the CNF and conquers its batch. The first board sets a Dask ``Event`` the running tasks
  poll, and queued batches are cancelled.

**Measured** (2026-11-25, ``edgematch solve FILE -b sat:cadical195 -t 60`` as whole processes pinned to core 0
of the 2-core machine, load 1.9-2.7 from other work; framed 7x7, 3 rim and 7 inner colours, seeds 1-3, the
frontier table's boards): the whole CNF 0/3 within 60 s; ``cubes=256`` (983 / 562 / 431 cubes of 4 cells) 1/3,
seed 2 in 3.4 s (246 of its 562 cubes refuted by propagation, 9 more unsatisfiable before the satisfiable
one), seeds 1 and 3 settled 16 and 71 cubes in 60 s; ``cubes=4096`` (5,586-14,536 cubes of 5-6 cells) 0/3,
settling 189-279 cubes each. ``--workers 2 -O cubes=256`` on both cores (load 3.2-3.7): the same seed, in
4.1 s. Framed 8x8 c8 seed 1: neither the whole CNF nor ``-j 2 -O cubes=128`` (141 cubes of 3 cells, none
settled) within 60 s. A cube of a few cells is hours of CDCL work on these boards (thousands of them at 0.1-4 s
each), so ``cubes`` stays off by default: it pays only when a satisfiable cube comes early in the order.

**Time limits.** Every solver runs in a process that is killed at the limit, Ctrl-C or the first board: the
SAT backend's child, its forked workers (which die with it, ``PR_SET_PDEATHSIG``), or the child a Dask task
forks. A timer calling ``interrupt()`` would not do: PySAT's CaDiCaL and Lingeling refuse ``interrupt()``
(``NotImplementedError``), and CaDiCaL 1.9.5 keeps the GIL while it solves, so no timer thread even runs
(measured: a 10 ms ticker ticked twice in a 2.6 s solve).
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Hashable, Iterable
from dataclasses import dataclass, field
from typing import Any

from edgematch import clock
from edgematch.core.model import Puzzle
from edgematch.errors import UsageError, shown
from edgematch.solvers.base import INTERRUPTED, TIME_LIMIT
from edgematch.solvers.parallel.processes import LOST, Dealer, context, dealt, stream, worker_child

Placement = tuple[int, int, int]  # (cell, tile type, turn): one CNF placement variable
Cube = tuple[Placement, ...]

MAX_CUBES = 1_000_000  # the most cubes -O cubes= may ask for (the split's level can hold several times more)
BATCHES_PER_THREAD = 4  # cluster: batches per worker thread, so a thread that drew easy cubes takes another
STOP_POLL_SECONDS = 0.5  # cluster: how often a running batch asks whether another found the board
REPORT_AHEAD = 0.1  # cluster: seconds before the limit the batches stop, to report in time


def cube_count(value: object) -> int | None:
    """The ``cubes`` option: ``off`` (None) or a whole number of cubes from 2 to :data:`MAX_CUBES` (ASCII digits,
    as every number edgematch reads); anything else is one UsageError line."""
    if value is False or str(value).strip().lower() == "off":
        return None
    text = str(value).strip() if isinstance(value, str | int) and not isinstance(value, bool) else ""
    if not (text.isascii() and text.isdigit() and len(text) <= 18):
        raise UsageError(f"option cubes: a number of cubes (2 or more) or off, got {shown(value)}")
    number = int(text)
    if not 2 <= number <= MAX_CUBES:
        raise UsageError(f"option cubes: from 2 to {MAX_CUBES:,} cubes (or off), got {number}")
    return number


@dataclass(frozen=True)
class CubePlan:
    """The cubes of a split (placements, not yet literals), and how they were made."""

    cubes: list[Cube]
    depth: int  # cells each cube fixes
    nodes: int  # nodes the native split spent


def plan_cubes(puzzle: Puzzle, target: int, symmetry: bool, deadline: float | None = None) -> CubePlan:
    """At least ``target`` cubes when the tree allows (fewer when it is small, or ``deadline``, a
    ``clock.now()`` instant, passes while splitting): the native search's prefixes, as placements.
    ``symmetry`` must be the CNF's, so both fix the board's turn with the same anchor."""
    from edgematch.solvers.native.search import prefixes
    from edgematch.solvers.native.tables import build_tables

    tables = build_tables(puzzle, "auto", symmetry=symmetry)
    found, nodes = prefixes(tables, target, deadline)
    cells = [int(c) for c in tables.order]
    types, turns = tables.cand_type, tables.cand_rot
    cubes = [tuple((cells[p], int(types[i]), int(turns[i])) for p, i in enumerate(prefix)) for prefix in found]
    return CubePlan(cubes, len(cubes[0]) if cubes else 0, nodes)


def literals(enc: Any, cube: Cube) -> list[int] | None:
    """The cube's assumption literals in the CNF ``enc``; None when it names a placement the CNF has no variable
    for (no model places it, so no solution is in the cube)."""
    known = enc.pool.obj2id
    out = []
    for cell, t, r in cube:
        var = known.get(("x", cell, t, r))
        if var is None:
            return None
        out.append(var)
    return out


@dataclass
class Ordered:
    """Cubes as literals, in the order they will be solved, and what was settled before solving."""

    cubes: list[list[int]]
    dropped: int = 0  # named a placement the CNF does not have
    refuted: int = 0  # unit propagation alone found a conflict


def ordered(sat: Any, enc: Any, cubes: Iterable[Cube], deadline: float | None = None) -> Ordered:
    """Translate ``cubes`` into literals and order them: propagated under each cube, those in conflict are
    refuted, the rest go most implied literals first. A solver without ``propagate`` (or a deadline passing
    while propagating) keeps the rest in the split's order."""
    out = Ordered([])
    scored: list[tuple[int, int, list[int]]] = []
    able = True
    for index, cube in enumerate(cubes):
        lits = literals(enc, cube)
        if lits is None:
            out.dropped += 1
            continue
        if able and (deadline is None or clock.now() < deadline):
            try:
                fine, implied = sat.propagate(assumptions=lits)
            except NotImplementedError:
                able = False
            else:
                if not fine:
                    out.refuted += 1
                    continue
                scored.append((-len(implied), index, lits))
                continue
        scored.append((0, index, lits))
    if able:
        scored.sort(key=lambda item: (item[0], item[1]))
    out.cubes = [lits for _, _, lits in scored]
    return out


def statistics(sat: Any) -> dict[str, float]:
    """The solver's accumulated counters (conflicts, decisions, ...), or none."""
    with contextlib.suppress(Exception):
        return dict(sat.accum_stats() or {})
    return {}


def added(total: dict[str, float], more: dict[str, float]) -> dict[str, float]:
    """Counters summed key by key."""
    for key, value in more.items():
        total[key] = total.get(key, 0) + value
    return total


def conquer_child(send: Callable[[Any], None], puzzle: Puzzle, options: Any, solver: str, target: int,
                  workers: int, deadline: float | None) -> None:
    """The SAT backend's solver child for cube-and-conquer: build the CNF, plan and order the cubes, solve them
    (here, or in ``workers`` forked workers), send the first board; then the counters. Messages: ``built``,
    ``cubes`` (the plan's counters), ``cube`` (one more cube unsatisfiable), ``board``, ``lost`` (cube workers
    died: whether every one did with cubes left, and the words for the message), ``done`` (counters, finished:
    every cube settled unsatisfiable)."""
    from pysat.solvers import Solver

    from edgematch.encodings.cnf import encode

    start = clock.now()
    enc = encode(puzzle, options)
    send(("built", (clock.now() - start, enc.types, enc.turns, enc.stats)))
    plan = plan_cubes(puzzle, target, options.symmetry, deadline)
    with Solver(name=solver, bootstrap_with=enc.clauses) as sat:
        order = ordered(sat, enc, plan.cubes, deadline)
        send(("cubes", {"cubes": len(plan.cubes), "cube_depth": plan.depth, "cubes_dropped": order.dropped,
                        "cubes_refuted": order.refuted, "split_nodes": plan.nodes,
                        "cube_seconds": clock.now() - start}))
        if workers <= 1 or len(order.cubes) <= 1:
            board, stats = conquer(sat, enc, order.cubes, lambda: send(("cube", 1)))
            finished = board is None
        else:
            board, stats, finished = _in_workers(sat, enc, order.cubes, workers, send)
    if board is not None:
        send(("board", tuple(board)))
    send(("done", (stats, finished)))


def conquer(sat: Any, enc: Any, cubes: Iterable[list[int]], settled: Callable[[], None] | None = None,
            should_stop: Callable[[], bool] | None = None) -> tuple[list | None, dict[str, float]]:
    """Solve ``cubes`` one after another in the incremental solver ``sat``: the board of the first satisfiable
    one (None when all are unsatisfiable, or ``should_stop()`` said so between cubes) and the solver's counters."""
    for lits in cubes:
        if should_stop is not None and should_stop():
            break
        if sat.solve(assumptions=lits):
            return list(enc.decode(sat.get_model())), statistics(sat)
        if settled is not None:
            settled()
    return None, statistics(sat)


def _in_workers(sat: Any, enc: Any, cubes: list[list[int]], workers: int, send: Callable[[Any], None]
                ) -> tuple[list | None, dict[str, float], bool]:
    """Fork ``workers`` processes, each with a copy of the loaded solver ``sat``, and deal them the cubes one at a time
    (:class:`~edgematch.solvers.parallel.processes.Dealer`); forward each settled cube. Returns the first board (the
    workers are then killed) or None, the counters, and whether every cube was settled unsatisfiable. A worker that
    dies is noted (a ``lost`` message) and the others go on, solving its cube again: the proof stays whole; when every
    worker died with cubes left, it is not proven. The workers die with this process."""
    ctx = context()
    dealer = Dealer(len(cubes), "cube", "solving", "cube worker")
    counters: dict[int, dict[str, float]] = {}  # each worker's accumulated counters, as last sent
    board = None
    stopped = ""
    try:
        for slot in range(min(workers, len(cubes))):
            mine, theirs = ctx.Pipe()
            dealer.start(ctx.Process(target=_worker, args=(theirs, slot, sat, enc, cubes), daemon=True),
                         mine, theirs, slot)
        dealer.begin()
        while board is None and not dealer.finished:
            if not dealer.workers:
                stopped = LOST
                break
            dead = len(dealer.lost)
            for _, (slot, found, stats) in dealer.receive(None):
                counters[slot] = stats
                if found is None:
                    send(("cube", 1))
                elif board is None:
                    board = found
            if len(dealer.lost) > dead:  # said at once: the parent may be stopped (time limit) before the end
                send(("lost", dealer.words("", "settled", "")))
    finally:
        dealer.close()
    if stopped == LOST:
        send(("lost", dealer.words(stopped, "settled", "neither a solution nor its absence is proven")))
    total: dict[str, float] = {}
    for stats in counters.values():
        added(total, stats)
    return board, total, board is None and dealer.finished


def _worker(conn: Any, slot: int, sat: Any, enc: Any, cubes: list[list[int]]) -> None:
    """One cube worker: solve the cubes its parent deals (:func:`~edgematch.solvers.parallel.processes.dealt`),
    answering each with (cube, (slot, board or None, the solver's counters so far))."""
    worker_child()
    for index in dealt(conn):
        board, stats = conquer(sat, enc, [cubes[index]])
        conn.send((index, (slot, board, stats)))
    conn.close()


# ---------------------------------------------------------------- on a Dask cluster


@dataclass
class Conquest:
    """How cube-and-conquer on a cluster ended."""

    board: list | None = None
    finished: bool = False  # every cube settled (and none satisfiable, unless ``board``)
    stopped: str = ""  # "", TIME_LIMIT or INTERRUPTED
    counters: dict[str, float] = field(default_factory=dict)
    types: Any = None
    turns: int = 1
    lost: list[str] = field(default_factory=list)  # batches lost on the cluster for good: never settled


def run_cluster(puzzle: Puzzle, options: Any, solver: str, target: int | None, cluster: Any,
                until: float | None, per_thread: int = 64) -> Conquest:
    """Cube-and-conquer with the batches of cubes as tasks on ``cluster`` (see the module doc): at least
    ``target`` cubes, or ``per_thread`` per worker thread of the cluster, until the deadline ``until`` (a
    ``clock.now()`` instant). Planning counts against the time limit;
    a local cluster's start and close do not, and are reported apart (counters ``cluster_start_seconds``,
    ``cluster_close_seconds``), as for the native backend's races and counts."""
    from edgematch.core.symmetry import board_turns
    from edgematch.core.tiletypes import tile_types
    from edgematch.encodings.domains import anchor
    from edgematch.solvers.parallel.cluster import connected, threads
    from edgematch.solvers.parallel.tasks import Tasks

    connecting = start = clock.now()
    deadline = None
    types = tile_types(puzzle)
    turns = board_turns(puzzle)
    out = Conquest(types=types, turns=len(turns) if options.symmetry and anchor(puzzle, types, turns) is not None
                   else 1)
    left: list[Hashable] = []
    try:
        with connected(cluster) as client:
            start = clock.now()
            deadline = None if until is None else until + (start - connecting)  # counted from the cluster ready
            out.counters["cluster_start_seconds"] = start - connecting
            width = threads(client)
            target = target or per_thread * width
            plan = plan_cubes(puzzle, target, options.symmetry, deadline)
            batches = max(1, min(len(plan.cubes), width * BATCHES_PER_THREAD))
            out.counters.update({"cubes_asked": target, "cubes": len(plan.cubes), "cube_depth": plan.depth,
                                 "split_nodes": plan.nodes, "batches": batches, "cubes_unsat": 0})
            tasks = Tasks(client, "cubes")
            wall = clock.to_wall(deadline, REPORT_AHEAD)
            for b in range(batches):
                tasks.submit(b, conquer_batch, puzzle, options, solver, plan.cubes[b::batches], wall, tasks.stop_name)

            def on_result(_: Hashable, result: tuple[list | None, dict[str, float], bool]) -> str:
                board, counters, settled = result
                added(out.counters, counters)
                if board is not None:
                    out.board = board
                    return "board"
                return "" if settled else TIME_LIMIT  # stopped (its deadline) before every cube was settled

            def lost(b: Hashable, error: BaseException | None) -> None:
                why = f"{type(error).__name__}: {error}" if error is not None else "lost"
                out.lost.append(f"batch {b} of cubes failed on the cluster ({why})")

            try:
                out.stopped = tasks.collect(on_result, lost, deadline)  # "board": cleared below
            except KeyboardInterrupt:
                out.stopped = INTERRUPTED
            finally:
                tasks.stop()  # running batches see it and kill their solvers
                left = tasks.cancel()
            ended = clock.now()
        out.counters["cluster_close_seconds"] = clock.now() - ended
    except KeyboardInterrupt:
        out.stopped = INTERRUPTED
    out.finished = out.board is None and not out.stopped and not left and not out.lost
    if out.board is not None:
        out.stopped = ""
    out.counters["seconds"] = clock.now() - start - out.counters.get("cluster_close_seconds", 0.0)
    return out


def conquer_batch(puzzle: Puzzle, options: Any, solver: str, cubes: list[Cube], wall_deadline: float | None,
                  stop_name: str, stop_poll: float = STOP_POLL_SECONDS) -> tuple[list | None, dict[str, float], bool]:
    """Run on a Dask worker: conquer ``cubes`` in a forked child (killed at ``wall_deadline``, a ``time.time()``
    instant, or when the client sets the stop event). Returns the board found (or None), the counters, and
    whether every cube was settled."""
    from edgematch.solvers.parallel.cluster import distributed

    event = distributed().Event(stop_name)
    last = [0.0]

    def should_stop() -> bool:
        now = clock.now()
        if now - last[0] < stop_poll:
            return False
        last[0] = now
        with contextlib.suppress(Exception):  # a scheduler that cannot be asked: the deadline still holds
            return bool(event.is_set())
        return False

    deadline = clock.from_wall(wall_deadline)
    counters: dict[str, float] = {"cubes_unsat": 0}
    board: list | None = None
    finished = False

    def handle(message: tuple[str, Any]) -> None:
        nonlocal board, finished
        kind, payload = message
        if kind == "cube":
            counters["cubes_unsat"] += 1
        elif kind == "cubes":
            added(counters, {k: v for k, v in payload.items()
                             if k in ("cubes_dropped", "cubes_refuted")})
        elif kind == "board":
            board = list(payload)
        elif kind == "done":
            added(counters, payload[0])
            finished = payload[1]

    stream(_batch_child, (puzzle, options, solver, cubes, deadline), deadline, handle, should_stop)
    return board, counters, finished or board is not None


def _batch_child(send: Callable[[Any], None], puzzle: Puzzle, options: Any, solver: str, cubes: list[Cube],
                 deadline: float | None) -> None:
    """A cluster batch's solver process: the CNF, the batch's cubes in order, then conquer them."""
    from pysat.solvers import Solver

    from edgematch.encodings.cnf import encode

    enc = encode(puzzle, options)
    with Solver(name=solver, bootstrap_with=enc.clauses) as sat:
        order = ordered(sat, enc, cubes, deadline)
        send(("cubes", {"cubes_dropped": order.dropped, "cubes_refuted": order.refuted}))
        board, stats = conquer(sat, enc, order.cubes, lambda: send(("cube", 1)))
    if board is not None:
        send(("board", tuple(board)))
    send(("done", (stats, True)))


__all__ = ["Cube", "CubePlan", "Conquest", "conquer", "conquer_child", "cube_count", "literals", "ordered",
           "plan_cubes", "run_cluster"]
