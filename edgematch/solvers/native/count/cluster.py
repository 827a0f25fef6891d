"""The native search's parts on a Dask cluster: ``count`` and ``solve --all`` beyond one machine.

``task.cluster`` names where the parts run (:func:`edgematch.solvers.parallel.cluster.connected`: ``local:N``, a
scheduler address, or a ``dask.distributed.Client``).

:func:`run_parts` plans :data:`PARTS_PER_WORKER` parts per worker thread of the cluster, at most
:data:`MAX_PARTS` since the scheduler spends about 1 ms per task (:mod:`edgematch.solvers.native.count.parts`:
prefixes of the fill order, plain data), and submits each as one task.
A task sends the puzzle, never the tables: each worker process builds them once (building is deterministic)
and checks their digest against the client's, so a worker running another edgematch, whose parts would not
partition the same tree, fails loudly instead of counting wrongly.

Parts that run long are split again, by the worker that holds them: a task searches its part's children (one
position deeper) one after another, and once it has spent :data:`SPLIT_SECONDS` (more on a cluster of over
500 worker threads, so that at most :data:`SPLITS_PER_SECOND` come back) with children left it returns
what it counted with those children's prefixes, which the client submits as new parts. The tree's imbalance
therefore costs at most one child's subtree per part, and idle workers pick up the returned children. (A
part is not cut mid-search: the kernel's stack is not plain data, so only whole children move.)

Counts merge exactly: results are keyed by part index, and a part's result is merged once even if Dask
delivered it twice. Faults follow the rule of :mod:`edgematch.solvers.parallel.tasks`: a killed worker's part
runs again elsewhere, a part that raises runs once more; a part lost for good is named in the result, the others
go on, and the count is a lower bound (status error, as when every local worker dies with parts left).
The time limit and Ctrl-C set a Dask ``Event`` the
running parts poll (every 0.5 s; less often on over 250 worker threads, to keep the scheduler's load down;
they stop and report what they searched; at the time limit they stop :data:`REPORT_AHEAD` early by
themselves); the client cancels the parts the scheduler has not yet handed to a worker, waits briefly for
the running ones' reports, and cancels every outstanding future; the count is then a lower bound (status
``timeout``, message ``interrupted`` on Ctrl-C), as with ``--workers``. The deadline reaches workers as a
wall-clock instant: machines' clocks are assumed synchronised (NTP) to well under a second.
"""

from __future__ import annotations

import contextlib
import hashlib
import itertools
import pickle
import threading
from collections.abc import Callable, Hashable
from typing import Any

import numpy as np

from edgematch import clock
from edgematch.core.model import Puzzle
from edgematch.solvers.base import INTERRUPTED, TIME_LIMIT, Task
from edgematch.solvers.native.count.memo import MemoSearch, MemoTable
from edgematch.solvers.native.count.parts import Split, merge, plan
from edgematch.solvers.native.rows import RowTables
from edgematch.solvers.native.search import Outcome, Search, drive, fitting, place
from edgematch.solvers.native.tables import BuildTimedOut, Tables, build_tables
from edgematch.solvers.parallel.cluster import connected, distributed, threads
from edgematch.solvers.parallel.processes import ChildDied
from edgematch.solvers.parallel.tasks import Tasks

PARTS_PER_WORKER = 32  # parts planned per worker thread: many more than workers, so none waits on a long one
SPLIT_SECONDS = 5.0  # a part searching longer than this hands its unsearched children back as new parts
REPORT_AHEAD = 0.1  # seconds before the limit the parts stop searching, to report in time
COLLECT_SECONDS = 0.5  # once stopped (Ctrl-C), how long running parts get past their poll to report what they searched
LATE_SECONDS = 0.1  # past the time limit, how long they get (they stop REPORT_AHEAD before it by themselves; the
# call ends within 0.25 s of its limit, cancelling and closing included)
FINAL_POLL_SECONDS = 0.01  # and once stopped, waiting for the last running parts' reports
STOP_POLL_SECONDS = 0.5  # how often a running part asks the scheduler whether it should stop
# The scheduler spends about 1 ms per task (distributed.dask.org) and answers every part's stop question: on a
# big cluster the plan is capped, and parts split and ask less often, so neither exceeds ~100-500 per second.
MAX_PARTS = 20_000  # parts planned at most (about 20 s of the scheduler's time)
SPLITS_PER_SECOND = 100  # long parts return at most this often, over the whole cluster
QUESTIONS_PER_SECOND = 500  # stop questions per second, at most, over the whole cluster


def digest(tables: Tables | RowTables) -> str:
    """A hash of the tables' content: the parts of one are the parts of another only when they match."""
    h = hashlib.sha256()
    for name, value in sorted(vars(tables).items()):
        if isinstance(value, np.ndarray):
            h.update(name.encode())
            h.update(str(value.dtype).encode() + str(value.shape).encode())
            h.update(np.ascontiguousarray(value).tobytes())
        elif isinstance(value, (int, str)) or value is None:
            h.update(f"{name}={value!r}".encode())
        elif isinstance(value, RowTables):  # the look-ahead's tables: the same on both sides, or none on both
            h.update(digest(value).encode())
    return h.hexdigest()[:32]


_built: dict[str, tuple[Puzzle, Tables]] = {}  # per worker process: the puzzle it is working on, its tables
_memos = threading.local()  # per worker thread: its memo table (a table is never shared between threads)


def _tables(puzzle: Puzzle | bytes, order: str, symmetry: bool, lookahead: bool, expected: str,
            deadline: float | None = None) -> tuple[Puzzle, Tables]:
    """The puzzle (sent pickled: see :func:`run_parts`) and its tables, built once per worker process;
    building stops at ``deadline`` (monotonic: :class:`~edgematch.solvers.native.tables.BuildTimedOut`)."""
    got = _built.get(expected)
    if got is None:
        if isinstance(puzzle, bytes):
            puzzle = pickle.loads(puzzle)  # noqa: S301  (the client's own pickle, as Dask's tasks are)
        tables = build_tables(puzzle, order, symmetry, deadline=deadline, lookahead=lookahead)
        if digest(tables) != expected:
            raise ChildDied("a Dask worker built other search tables than the client (is it running another "
                            "edgematch version?)")
        _built.clear()
        got = _built[expected] = (puzzle, tables)
    return got


def children(tables: Tables, prefix: tuple[int, ...]) -> list[tuple[int, ...]]:
    """The prefixes one position deeper than ``prefix`` (they partition its subtree)."""
    type_left, placed, vis = tables.type_count.copy(), tables.placed0.copy(), tables.vis0.copy()
    for p, i in enumerate(prefix):
        place(tables, p, i, type_left, placed, vis)
    return [prefix + (i,) for i in fitting(tables, len(prefix), type_left, placed)]


def _memo_table(puzzle: Puzzle, tables: Tables, mib: float) -> MemoTable:
    """This worker thread's memo table for ``tables`` (made at its first part of them)."""
    table = getattr(_memos, "table", None)
    if table is None or table.tables is not tables:
        table = _memos.table = MemoTable(puzzle, tables, mib)
    return table


def search_part(puzzle: Puzzle | bytes, order: str, symmetry: bool, lookahead: bool, expected: str,
                prefix: tuple[int, ...],
                capacity: int, distinct: bool, deadline: float | None, want: int | None, stop_name: str,
                split_seconds: float | None = SPLIT_SECONDS, stop_poll: float = STOP_POLL_SECONDS,
                memo: float | None = None) -> tuple[Outcome, list[tuple[int, ...]]]:
    """Run on a worker: search below ``prefix`` until done, the wall-clock ``deadline``, ``want`` solutions or
    the stop event; past ``split_seconds`` return the children not yet searched with the outcome so far.
    ``memo``: count with this worker thread's memo table of that many MiB. ``puzzle`` may come pickled. Building
    the tables counts against the deadline: past it, the part reports nothing searched."""
    from edgematch.solvers.native.compiled import ensure_compiled

    ensure_compiled()
    until = clock.from_wall(deadline)  # on this worker's clock, once
    try:
        puzzle, tables = _tables(puzzle, order, symmetry, lookahead, expected, until)
    except BuildTimedOut:
        return Outcome(finished=False, stopped=TIME_LIMIT), []
    table = _memo_table(puzzle, tables, memo) if memo is not None else None
    started = clock.now()
    should_stop = _stop_check(stop_name, stop_poll)
    total = Outcome(finished=True)
    if split_seconds is None or len(prefix) >= tables.positions - 1:
        todo = [prefix]
    else:
        todo = children(tables, prefix)
        total.nodes += len(todo)
    while todo:
        if split_seconds is not None and len(todo) > 1 and clock.now() - started > split_seconds:
            break  # hand the rest back: other workers may be idle
        here = todo.pop(0)
        search = MemoSearch(tables, table, here) if table is not None else \
            Search(tables, here, capacity=capacity, distinct=distinct)
        outcome = drive(search, until,
                        None if want is None else max(1, want - len(total.found)), should_stop=should_stop)
        merge(total, outcome)
        total.stopped = outcome.stopped
        if not outcome.finished:
            return total, []  # stopped: the unsearched rest is not handed on (the count is a lower bound now)
        if want is not None and len(total.found) >= want:
            break
    return total, todo


def part_task(prefix: tuple[int, ...], **given: Any) -> tuple[Outcome, list[tuple[int, ...]]]:
    """:func:`search_part` with the prefix first: the task ``Client.map`` sends for each part."""
    return search_part(prefix=prefix, **given)


def _stop_check(stop_name: str, every: float) -> Callable[[], bool]:
    """Whether the client set the stop event, asked of the scheduler at most every ``every`` seconds."""
    event = distributed().Event(stop_name)
    last, stopped = 0.0, False

    def check() -> bool:
        nonlocal last, stopped
        now = clock.now()
        if not stopped and now - last >= every:
            last = now
            with contextlib.suppress(Exception):  # a scheduler that cannot be asked: the deadline still holds
                stopped = bool(event.is_set())
        return stopped

    return check


def run_parts(puzzle: Puzzle, tables: Tables, task: Task, want: int | None, capacity: int,
              memo: float | None = None) -> Split:
    """Count (or list, up to ``want``) by running the parts of the tree on ``task.cluster`` and merging their
    outcomes exactly. The time limit counts from when the cluster is ready: starting a local cluster (1-10 s of
    spawning and importing, however short the limit) and closing it are reported apart (``Outcome.started``,
    ``Outcome.closed``); planning, submitting, the workers building their tables and collecting count. ``memo``:
    each worker thread counts with a memo table of that many MiB. A part lost for good (its workers kept dying,
    or it raised twice: :mod:`edgematch.solvers.parallel.tasks`) is noted and the others go on; the count is
    then a lower bound and the result says which parts were never searched (``failed``, ``notes``)."""
    began = clock.now()
    total = Split(finished=True)
    reason = ""
    lost: list[str] = []
    with connected(task.cluster) as client:
        start = clock.now()
        total.started = start - began
        deadline = task.until(start, setup=total.started)  # the limit counts from the cluster being ready
        width = threads(client)
        split = max(SPLIT_SECONDS, width / SPLITS_PER_SECOND)
        poll = max(STOP_POLL_SECONDS, width / QUESTIONS_PER_SECOND)
        parts, total.nodes = plan(tables, min(width * PARTS_PER_WORKER, MAX_PARTS), deadline)
        tasks = Tasks(client, "part")
        numbers = itertools.count(len(parts))
        merged: set[int] = set()
        # the puzzle goes pickled once: Dask pickles a Puzzle argument again for every task (1-8 ms of the client's
        # time each: 343 parts of a 16x16 took 2.4 s of CPU to submit, against 0.3 s for its bytes)
        given = {"puzzle": pickle.dumps(puzzle), "order": tables.order_name, "symmetry": tables.anchor is not None,
                 "lookahead": tables.rows is not None,
                 "expected": digest(tables), "capacity": capacity, "distinct": task.distinct,
                 "deadline": clock.to_wall(deadline, REPORT_AHEAD), "want": want, "stop_name": tasks.stop_name,
                 "split_seconds": split, "stop_poll": poll, "memo": memo}

        def on_result(index: Hashable, result: tuple[Outcome, list[tuple[int, ...]]], more: bool = True) -> str:
            if index in merged:  # delivered twice: merged once
                return ""
            merged.add(int(index))  # type: ignore[call-overload]
            outcome, rest = result
            merge(total, outcome)
            if rest and not more:
                total.finished = False  # stopped before its children were searched
            for prefix in rest if more else ():  # a long part's unsearched children become new parts
                tasks.submit(next(numbers), part_task, prefix, **given)
            return "solution limit" if want is not None and len(total.found) >= want else ""

        def on_lost(index: Hashable, error: BaseException | None) -> None:
            total.finished = False
            why = f"{type(error).__name__}: {error}" if error is not None else "lost"
            lost.append(f"part {index} failed on the cluster ({why})")

        def refresh() -> None:
            if task.progress is not None:
                task.progress({"nodes": total.nodes, "solutions": total.solutions,
                               "elapsed": clock.now() - start})

        tasks.map([part.index for part in parts], part_task, [part.prefix for part in parts], **given)
        try:
            # until the parts' own stop (REPORT_AHEAD before the limit): a part started later searches nothing
            reason = tasks.collect(on_result, on_lost, None if deadline is None else deadline - REPORT_AHEAD,
                                   refresh)
        except KeyboardInterrupt:
            reason = INTERRUPTED
        finally:
            stopped = False  # the stop event set (one round trip to the scheduler, not two)
            if tasks.pending and reason != "solution limit":
                stopped = tasks.stop()
                if tasks.set_aside_queued():
                    total.finished = False
                until = clock.now() + COLLECT_SECONDS + poll
                if reason == TIME_LIMIT and deadline is not None:
                    until = min(until, deadline + LATE_SECONDS)
                with contextlib.suppress(KeyboardInterrupt):
                    tasks.collect(lambda i, r: on_result(i, r, more=False), on_lost, until, refresh,
                                  FINAL_POLL_SECONDS)
            if tasks.cancel():  # one cancel for every part left (a round trip: 0.1-0.4 s on a loaded machine)
                total.finished = False
            if not stopped:
                tasks.stop()  # parts already running see it and end (a running task cannot be cancelled)
        ended = clock.now()
    total.closed = clock.now() - ended
    if lost:  # stopped by nothing else: the call failed, with what was counted as a lower bound
        total.failed = not reason
        total.notes = "; ".join(lost) + "; the others went on, so what was counted is a lower bound"
    elif not reason and not total.finished:
        reason = TIME_LIMIT  # the parts stopped at the limit on their own
    total.stopped = reason
    total.seconds = ended - start
    return total
