"""Splitting one search into independent parts, and running them on several cores.

The split is plain data: a :class:`Part` is a prefix of candidate indices for the first positions of
the fill order, valid for the tables built from the same puzzle and order (building is deterministic).
:func:`run_part` solves one part anywhere (another process here, another machine later); the parts
partition the tree, so their counts add up exactly. :func:`run_parallel` is one way to execute them:
worker processes on this machine, each dealt one part at a time by the parent, stopped once enough solutions
are in, at the time limit, or on Ctrl-C, keeping the counts of what they had searched.

A worker that dies (``kill -9``, the out-of-memory killer) is noted and the others go on: the parent knows the
part it held and deals it again to a live worker, so the count stays exact (the result says which worker died
and which part was searched again). Only when every worker has died with parts left does the run fail: the
count is then a lower bound, and the message names the parts never searched
(:class:`~edgematch.solvers.parallel.processes.Dealer`, the rule every set of workers follows).

While a part runs, its worker writes its live node and solution counts into its own slot of a shared array,
so the parent's progress line shows the merged counts of every worker every few tenths of a second (not
only when a part ends). Workers are forked by the calling thread, ignore Ctrl-C (the parent stops them and
collects their partial counts) and die with the parent (``PR_SET_PDEATHSIG``); the parent kills any still
running before it returns. Nothing they share has a lock (the live counts, the stop
:class:`~edgematch.solvers.parallel.processes.Flag`): a worker killed holding one would stop the parent and every
other worker.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from edgematch import clock
from edgematch.core.model import Puzzle
from edgematch.solvers.base import INTERRUPTED, TIME_LIMIT, Task
from edgematch.solvers.native.count.memo import MemoSearch, MemoTable
from edgematch.solvers.native.search import Outcome, Search, drive, prefixes
from edgematch.solvers.native.tables import Tables, build_tables
from edgematch.solvers.parallel.processes import LOST, Dealer, Flag, context, dealt, worker_child

PARTS_PER_WORKER = 8
REPORT_AHEAD = 0.05  # seconds before the limit the workers stop searching
COLLECT_SECONDS = 0.3  # once stopped (Ctrl-C), how long workers get to report the part they were searching
LATE_SECONDS = 0.1  # past the time limit, how long workers get to report theirs
POLL_SECONDS = 0.2


@dataclass(frozen=True)
class Part:
    """One piece of the search tree: everything below ``prefix``."""

    index: int
    prefix: tuple[int, ...]


def plan(tables: Tables, parts: int, deadline: float | None = None) -> tuple[list[Part], int]:
    """At least ``parts`` parts (when the tree allows, and ``deadline``, a ``clock.now()`` instant, has
    not passed first), and the nodes spent splitting."""
    found, nodes = prefixes(tables, parts, deadline)
    return [Part(i, p) for i, p in enumerate(found)], nodes


def run_part(
    puzzle: Puzzle, order: str, part: Part, capacity: int, distinct: bool, deadline: float | None,
    want: int | None = None, tables: Tables | None = None, should_stop: Callable[[], bool] | None = None,
    progress: Callable[[dict[str, float]], None] | None = None, memo: MemoTable | None = None,
) -> Outcome:
    """Search one part; ``deadline`` is an instant on :func:`edgematch.clock.now` (shared by every part of a run).
    ``tables`` (built from ``puzzle`` and ``order``) saves building them again; ``progress`` gets the part's live
    counts; ``memo`` (a count over ``tables``) is the worker's table of counted states, shared by all its parts."""
    from edgematch.solvers.native.compiled import ensure_compiled

    ensure_compiled()
    tables = tables if tables is not None else build_tables(puzzle, order)
    search = MemoSearch(tables, memo, part.prefix) if memo is not None else \
        Search(tables, part.prefix, capacity=capacity, distinct=distinct)
    return drive(search, deadline, want, progress=progress, should_stop=should_stop)


@dataclass
class Split(Outcome):
    """A parallel run's outcome, and what dead workers cost it (see :func:`run_parallel`)."""

    lost: int = 0  # workers that died
    again: int = 0  # parts a dead worker held, searched again by a live one
    failed: bool = False  # every worker died with parts left: what was counted is a lower bound
    notes: str = ""  # the dead workers and what became of their parts (:meth:`Dealer.words`), for the message


def _worker(conn: Any, puzzle: Puzzle, tables: Tables, parts: list[Part], stop: Flag, capacity: int,
            distinct: bool, deadline: float | None, want: int | None, live: Any, slot: int,
            memo_mib: float | None = None) -> None:
    """Search the parts the parent deals over ``conn`` (:func:`~edgematch.solvers.parallel.processes.dealt`) and send
    each one's index and outcome back. A part dealt once told to stop (or past ``deadline``) comes back
    unsearched, not finished. The part in progress's nodes and solutions go to ``live[2 * slot]`` and
    ``live[2 * slot + 1]``. With ``memo_mib`` the worker counts with a memo table of its own, shared by its
    parts."""
    worker_child()
    memo = MemoTable(puzzle, tables, memo_mib) if memo_mib is not None else None

    def report(info: dict[str, float]) -> None:
        live[2 * slot], live[2 * slot + 1] = int(info["nodes"]), int(info["solutions"])

    for index in dealt(conn):
        if stop.is_set() or clock.passed(deadline):
            outcome = Outcome(finished=False)
        else:
            outcome = run_part(puzzle, tables.order_name, parts[index], capacity, distinct, deadline, want, tables,
                               stop.is_set, report, memo)
        live[2 * slot], live[2 * slot + 1] = 0, 0  # counted in the outcome from now on (cleared before: never twice)
        conn.send((index, outcome))
    conn.close()


def run_parallel(puzzle: Puzzle, tables: Tables, task: Task, want: int | None, capacity: int,
                 memo: float | None = None) -> Split:
    """Run the parts of the tree on ``task.workers`` processes and merge their outcomes exactly. Planning the
    parts and starting the workers count against the time limit. ``memo``: each worker counts with a memo
    table of that many MiB (a count without the canonical test only). The parts are dealt one at a time
    (:class:`~edgematch.solvers.parallel.processes.Dealer`): a worker that dies is noted and the others go on, searching
    its part again; when every worker died with parts left the result says which (``failed``, ``notes``)."""
    start = clock.now()
    deadline = task.until(start)
    parts, plan_nodes = plan(tables, task.workers * PARTS_PER_WORKER, deadline)
    # the workers stop a little early: reporting, exiting and being collected take time too (the clock is the
    # machine's: the same instant in every forked worker)
    parts_deadline = None if deadline is None else deadline - REPORT_AHEAD
    ctx = context()
    stop = Flag(ctx)
    live = ctx.Array("q", 2 * task.workers, lock=False)  # per worker: nodes, solutions of its current part

    def forget(slot: int) -> None:  # a dead worker's part is searched again from the start, or not at all
        live[2 * slot], live[2 * slot + 1] = 0, 0

    dealer = Dealer(len(parts), "part", "searching", "worker", on_death=forget)
    total = Split(finished=True, nodes=plan_nodes)
    shown = [0, 0]
    reason = ""
    try:
        for slot in range(min(task.workers, len(parts))):
            if deadline is not None and clock.now() >= deadline:
                break
            mine, theirs = ctx.Pipe()
            dealer.start(ctx.Process(target=_worker, daemon=True, args=(
                theirs, puzzle, tables, parts, stop, capacity, task.distinct, parts_deadline, want, live, slot,
                memo)), mine, theirs, slot)
        dealer.begin()
        if dealer.workers:
            reason = _collect(dealer, total, task, want, start, deadline, live, shown)
        elif parts:  # the deadline passed before a worker started
            reason = TIME_LIMIT
    except KeyboardInterrupt:
        reason = INTERRUPTED
    finally:
        stop.set()
        dealer.dealing = False
        if reason in (TIME_LIMIT, INTERRUPTED):  # keep what the workers searched until now
            until = clock.now() + COLLECT_SECONDS
            if reason == TIME_LIMIT and deadline is not None:
                until = min(until, deadline + LATE_SECONDS)
            with contextlib.suppress(KeyboardInterrupt):
                _collect(dealer, total, task, None, start, until, live, shown)
        dealer.close()
    if reason or not dealer.finished:
        total.finished = False
    if not reason and not total.finished:
        reason = TIME_LIMIT  # the workers stopped at the limit on their own
    total.stopped = reason
    total.lost, total.again = len(dealer.lost), len(dealer.redealt)
    total.failed, total.notes = dealer.words(reason, "searched", "what was counted is a lower bound")
    total.seconds = clock.now() - start
    return total


def _collect(dealer: Dealer, total: Outcome, task: Task, want: int | None, start: float, deadline: float | None,
             live: Any, shown: list[int]) -> str:
    """Merge outcomes as workers send them (the dealer deals the next parts), until every part is in (``""``),
    ``want`` solutions are (``"solution limit"``), ``deadline`` passes (:data:`TIME_LIMIT`) or every worker has
    died with parts left (:data:`LOST`); once the dealer stopped dealing, until no worker holds a part. Progress
    shows the merged outcomes plus every worker's ``live`` counts, never decreasing."""
    while True:
        if dealer.dealing and dealer.finished:
            return ""
        if not dealer.busy:
            if not dealer.dealing:
                return ""
            if not dealer.workers:
                return LOST
        left = None if deadline is None else deadline - clock.now()
        if left is not None and left <= 0:
            return TIME_LIMIT
        for _, outcome in dealer.receive(POLL_SECONDS if left is None else min(POLL_SECONDS, left)):
            merge(total, outcome)
        if task.progress is not None:
            counts = list(live)
            shown[:] = [max(shown[0], total.nodes + sum(counts[0::2])),
                        max(shown[1], total.solutions + sum(counts[1::2]))]
            task.progress({"nodes": shown[0], "solutions": shown[1], "elapsed": clock.now() - start})
        if want is not None and len(total.found) >= want:
            return "solution limit"


def raw_progress(progress: Callable[[dict[str, float]], None], multiplier: int, cap: int | None = None
                 ) -> Callable[[dict[str, float]], None]:
    """``progress`` told raw solutions, as the final count is: a search counts *boards*, each standing for
    ``multiplier`` raw solutions (identical tiles swapped, symmetric tiles and the board's turns folded), so
    a live line fed the boards showed a number smaller than, and unlike, the count it ends with. ``cap``
    (``solve --all --limit``) is the most that will be listed."""

    def report(info: dict[str, float]) -> None:
        raw = info["solutions"] * multiplier
        progress({**info, "solutions": raw if cap is None else min(raw, cap)})

    return report


def merge(total: Outcome, part: Outcome) -> None:
    """Add a part's outcome to the total (counts, found boards; finished only if every part finished)."""
    total.nodes += part.nodes
    total.solutions += part.solutions
    total.canonical += part.canonical
    total.found.extend(part.found)
    total.finished = total.finished and part.finished
