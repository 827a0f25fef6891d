"""Splitting one search into independent parts, and running them on several cores.

The split is plain data: a :class:`Part` is a prefix of candidate indices for the first positions of
the fill order, valid for the tables built from the same puzzle and order (building is deterministic).
:func:`run_part` solves one part anywhere (another process here, another machine later); the parts
partition the tree, so their counts add up exactly. :func:`run_parallel` is one way to execute them:
worker processes on this machine taking parts from a shared counter, stopped once enough solutions are
in, at the time limit, or on Ctrl-C, keeping the counts of what they had searched.

While a part runs, its worker writes its live node and solution counts into its own slot of a shared array,
so the parent's progress line shows the merged counts of every worker every few tenths of a second (not
only when a part ends). Workers are forked by the calling thread, ignore Ctrl-C (the parent stops them and
collects their partial counts) and die with the parent (``PR_SET_PDEATHSIG``); the parent kills any still
running before it returns.
"""

from __future__ import annotations

import contextlib
import os
import signal
import time
from collections.abc import Callable
from dataclasses import dataclass
from multiprocessing.connection import wait
from typing import Any

import numpy as np

from edgematch.core.model import Puzzle
from edgematch.solvers.base import Task
from edgematch.solvers.native.count.memo import MemoSearch, MemoTable
from edgematch.solvers.native.search import Outcome, Search, drive, prefixes
from edgematch.solvers.native.tables import Tables, build_tables
from edgematch.solvers.processes import INTERRUPTED, TIME_LIMIT, ChildDied, context, worker_child
from edgematch.solvers.processes import start as start_child

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
    """At least ``parts`` parts (when the tree allows, and ``deadline``, a ``time.monotonic()`` instant, has
    not passed first), and the nodes spent splitting."""
    found, nodes = prefixes(tables, parts, deadline)
    return [Part(i, p) for i, p in enumerate(found)], nodes


def run_part(
    puzzle: Puzzle, order: str, part: Part, capacity: int, distinct: bool, deadline: float | None,
    want: int | None = None, tables: Tables | None = None, should_stop: Callable[[], bool] | None = None,
    progress: Callable[[dict[str, float]], None] | None = None, memo: MemoTable | None = None,
) -> Outcome:
    """Search one part; ``deadline`` is a ``time.time()`` instant (shared by every part of a run). ``tables``
    (built from ``puzzle`` and ``order``) saves building them again; ``progress`` gets the part's live counts;
    ``memo`` (a count over ``tables``) is the worker's table of counted states, shared by all its parts."""
    from edgematch.solvers.native.compiled import ensure_compiled

    ensure_compiled()
    tables = tables if tables is not None else build_tables(puzzle, order)
    limit = None if deadline is None else max(0.0, deadline - time.time())
    search = MemoSearch(tables, memo, part.prefix) if memo is not None else \
        Search(tables, part.prefix, capacity=capacity, distinct=distinct)
    return drive(search, limit, want, progress=progress, should_stop=should_stop)


def _worker(send: Any, puzzle: Puzzle, tables: Tables, parts: list[Part], taken: Any, go: Any, stop: Any,
            capacity: int, distinct: bool, deadline: float | None, want: int | None, live: Any, slot: int,
            memo_mib: float | None = None) -> None:
    """Take parts from the shared counter and send each one's outcome, until none is left or told to stop;
    the part in progress's nodes and solutions go to ``live[2 * slot]`` and ``live[2 * slot + 1]``. With
    ``memo_mib`` the worker counts with a memo table of its own, shared by its parts."""
    worker_child()
    go.wait()  # every worker is started first: forking beside busy workers took 60 ms each on 2 cores
    memo = MemoTable(puzzle, tables, memo_mib) if memo_mib is not None else None

    def report(info: dict[str, float]) -> None:
        live[2 * slot], live[2 * slot + 1] = int(info["nodes"]), int(info["solutions"])

    while not stop.is_set() and (deadline is None or time.time() < deadline):
        with taken.get_lock():
            index = taken.value
            taken.value += 1
        if index >= len(parts):
            break
        outcome = run_part(puzzle, tables.order_name, parts[index], capacity, distinct, deadline, want, tables,
                           stop.is_set, report, memo)
        live[2 * slot], live[2 * slot + 1] = 0, 0  # counted in the outcome from now on (cleared before: never twice)
        send.send(outcome)
    send.close()


def run_parallel(puzzle: Puzzle, tables: Tables, task: Task, want: int | None, capacity: int,
                 memo: float | None = None) -> Outcome:
    """Run the parts of the tree on ``task.workers`` processes and merge their outcomes exactly. Planning the
    parts and starting the workers count against the time limit. ``memo``: each worker counts with a memo
    table of that many MiB (a count without the canonical test only)."""
    start = time.monotonic()
    deadline = None if task.time_limit is None else start + task.time_limit
    parts, plan_nodes = plan(tables, task.workers * PARTS_PER_WORKER, deadline)
    # the workers stop a little early: reporting, exiting and being collected take time too
    wall_deadline = None if deadline is None else time.time() + (deadline - time.monotonic()) - REPORT_AHEAD
    ctx = context()
    go, stop, taken = ctx.Event(), ctx.Event(), ctx.Value("q", 0)
    live = ctx.Array("q", 2 * task.workers, lock=False)  # per worker: nodes, solutions of its current part
    total = Outcome(finished=True, nodes=plan_nodes)
    running: dict[Any, Any] = {}  # receiving end -> worker process
    reason = ""
    try:
        for slot in range(min(task.workers, len(parts))):
            if deadline is not None and time.monotonic() >= deadline:
                break
            receive, send = ctx.Pipe(duplex=False)
            process = ctx.Process(target=_worker, daemon=True, args=(
                send, puzzle, tables, parts, taken, go, stop, capacity, task.distinct, wall_deadline, want, live,
                slot, memo))
            running[receive] = process
            try:
                start_child(process)
            finally:
                send.close()
        go.set()
        if running:
            reason = _collect(running, total, task, want, start, deadline, live)
        elif parts:  # the deadline passed before a worker started
            reason = TIME_LIMIT
    except KeyboardInterrupt:
        reason = INTERRUPTED
    finally:
        stop.set()
        go.set()
        if running and reason != "solution limit":  # keep what the workers searched until now
            until = time.monotonic() + COLLECT_SECONDS
            if reason == TIME_LIMIT and deadline is not None:
                until = min(until, deadline + LATE_SECONDS)
            with contextlib.suppress(KeyboardInterrupt):
                _collect(running, total, task, None, start, until, live)
        for process in running.values():  # every kill first: they exit side by side, not one by one
            if process.pid is not None:
                with contextlib.suppress(ProcessLookupError):
                    os.kill(process.pid, signal.SIGKILL)
        for receive, process in running.items():
            if process.pid is not None:
                process.join(timeout=5)
            receive.close()
    if reason or taken.value < len(parts):
        total.finished = False
    if not reason and not total.finished:
        reason = TIME_LIMIT  # the workers stopped at the limit on their own
    total.stopped = reason
    total.seconds = time.monotonic() - start
    return total


def _collect(running: dict[Any, Any], total: Outcome, task: Task, want: int | None, start: float,
             deadline: float | None, live: Any = None) -> str:
    """Merge outcomes as workers send them until every worker is done (``""``), ``want`` solutions are in
    (``"solution limit"``) or ``deadline`` passes (:data:`TIME_LIMIT`); a worker that dies raises. Progress
    shows the merged outcomes plus every worker's ``live`` counts, never decreasing."""
    shown = [0, 0]
    while running:
        left = None if deadline is None else deadline - time.monotonic()
        if left is not None and left <= 0:
            return TIME_LIMIT
        for receive in wait(list(running), timeout=POLL_SECONDS if left is None else min(POLL_SECONDS, left)):
            try:
                merge(total, receive.recv())
            except EOFError:
                process = running.pop(receive)
                receive.close()
                process.join(timeout=1)
                if process.exitcode != 0:
                    raise ChildDied(f"a native worker died (exit code {process.exitcode})") from None
        if task.progress is not None:
            counts = list(live or ())
            shown = [max(shown[0], total.nodes + sum(counts[0::2])), max(shown[1], total.solutions + sum(counts[1::2]))]
            task.progress({"nodes": shown[0], "solutions": shown[1], "elapsed": time.monotonic() - start})
        if want is not None and len(total.found) >= want:
            return "solution limit"
    return ""


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
    total.found.extend(np.asarray(f) for f in part.found)
    total.finished = total.finished and part.finished
