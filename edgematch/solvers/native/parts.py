"""Splitting one search into independent parts, and running them on several cores.

The split is plain data: a :class:`Part` is a prefix of candidate indices for the first positions of
the fill order, valid for the tables built from the same puzzle and order (building is deterministic).
:func:`run_part` solves one part anywhere (another process here, another machine later); the parts
partition the tree, so their counts add up exactly. :func:`run_parallel` is one way to execute them:
a process pool on this machine, stopping the others once enough solutions are in.
"""

from __future__ import annotations

import multiprocessing as mp
import time
from concurrent.futures import FIRST_COMPLETED, ProcessPoolExecutor, wait
from dataclasses import dataclass

import numpy as np

from edgematch.core.model import Puzzle
from edgematch.solvers.base import Task
from edgematch.solvers.native.search import Outcome, Search, drive, prefixes
from edgematch.solvers.native.tables import Tables, build_tables

PARTS_PER_WORKER = 8


@dataclass(frozen=True)
class Part:
    """One piece of the search tree: everything below ``prefix``."""

    index: int
    prefix: tuple[int, ...]


def plan(tables: Tables, parts: int) -> tuple[list[Part], int]:
    """At least ``parts`` parts (when the tree allows), and the nodes spent splitting."""
    found, nodes = prefixes(tables, parts)
    return [Part(i, p) for i, p in enumerate(found)], nodes


_stop_event = None


def _init_worker(event) -> None:
    global _stop_event
    _stop_event = event


def run_part(
    puzzle: Puzzle, order: str, part: Part, capacity: int, distinct: bool, deadline: float | None,
    want: int | None = None,
) -> Outcome:
    """Search one part; ``deadline`` is a ``time.time()`` instant (shared by every part of a run)."""
    from edgematch.solvers.native.compiled import ensure_compiled

    ensure_compiled()
    tables = build_tables(puzzle, order)
    limit = None if deadline is None else max(0.0, deadline - time.time())
    stop = _stop_event
    search = Search(tables, part.prefix, capacity=capacity, distinct=distinct)
    return drive(search, limit, want, progress=None, should_stop=(stop.is_set if stop is not None else None))


def run_parallel(puzzle: Puzzle, tables: Tables, task: Task, want: int | None, capacity: int) -> Outcome:
    """Run the parts of the tree on ``task.workers`` processes and merge their outcomes exactly."""
    start = time.perf_counter()
    parts, plan_nodes = plan(tables, task.workers * PARTS_PER_WORKER)
    deadline = None if task.time_limit is None else time.time() + task.time_limit
    context = mp.get_context("fork") if "fork" in mp.get_all_start_methods() else mp.get_context("spawn")
    stop = context.Event()
    total = Outcome(finished=True, nodes=plan_nodes)
    with ProcessPoolExecutor(task.workers, mp_context=context, initializer=_init_worker, initargs=(stop,)) as pool:
        pending = {
            pool.submit(run_part, puzzle, tables.order_name, part, capacity, task.distinct, deadline, want)
            for part in parts
        }
        try:
            while pending:
                done, pending = wait(pending, timeout=0.2, return_when=FIRST_COMPLETED)
                for future in done:
                    _merge(total, future.result())
                if task.progress is not None:
                    task.progress({"nodes": total.nodes, "solutions": total.solutions,
                                   "elapsed": time.perf_counter() - start})
                if want is not None and len(total.found) >= want:
                    total.stopped = "solution limit"
                    break
                if total.stopped:
                    break
        except KeyboardInterrupt:
            total.stopped = "interrupted"
        if pending:
            stop.set()
            for future in pending:
                future.cancel()
            for future in pending:
                if not future.cancelled():
                    try:
                        _merge(total, future.result())
                    except Exception:  # noqa: BLE001  (a worker stopped by the interrupt)
                        total.finished = False
            total.finished = False
    total.seconds = time.perf_counter() - start
    return total


def _merge(total: Outcome, part: Outcome) -> None:
    total.nodes += part.nodes
    total.solutions += part.solutions
    total.canonical += part.canonical
    total.found.extend(np.asarray(f) for f in part.found)
    total.finished = total.finished and part.finished
    if part.stopped in ("time limit", "interrupted") and not total.stopped:
        total.stopped = part.stopped
