"""Running a suite into the results store: every planned run not yet stored, ``jobs`` at a time.

Each run is its own child process (:mod:`edgematch.bench.runner`); the scheduler is one loop in this
process that starts runs, waits for the first answer or deadline, and stores each run the moment it
finishes. Ctrl-C stops the runs under way (their process groups are killed) and leaves every finished run
stored, so ``--resume`` carries on where it stopped.
"""

from __future__ import annotations

import signal
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from multiprocessing.connection import wait

from edgematch.bench.runner import GRACE_SECONDS, MEMORY_LIMIT_MB, Running, RunRecord, start_run
from edgematch.bench.store import Store
from edgematch.bench.suite import Instance, Suite
from edgematch.solvers.base import get_backend


@dataclass
class Watcher:
    """What a display is told: the plan, each run as it starts, each run as it is stored."""

    planned: Callable[[int, int], None] = lambda total, done: None
    started: Callable[[Instance, str], None] = lambda instance, backend: None
    finished: Callable[[RunRecord], None] = lambda record: None


class _Interrupts:
    """Ctrl-C raises KeyboardInterrupt as usual, except while a run is being forked: Python runs fork
    handlers there and would swallow it, so it is held and raised right after."""

    def __init__(self) -> None:
        self.shielded = False
        self.pending = False

    def handler(self, signum: int, frame: object) -> None:
        if self.shielded:
            self.pending = True
        else:
            raise KeyboardInterrupt

    @contextmanager
    def installed(self) -> Iterator[None]:
        if threading.current_thread() is not threading.main_thread():
            yield
            return
        previous = signal.signal(signal.SIGINT, self.handler)
        try:
            yield
        finally:
            signal.signal(signal.SIGINT, previous)

    @contextmanager
    def shield(self) -> Iterator[None]:
        self.shielded = True
        try:
            yield
        finally:
            self.shielded = False
        if self.pending:
            raise KeyboardInterrupt


def check_backends(suite: Suite) -> None:
    """Refuse unknown backends and missing libraries before anything runs (the error names the extra), and
    load them: children are forked from here, so they start with the libraries loaded."""
    for name in suite.backends:
        get_backend(name).warm_up()


def pending(store: Store, session: int, suite: Suite) -> list[tuple[Instance, str]]:
    """The session's planned runs that are not stored yet, in plan order."""
    done = store.done(session)
    return [(instance, backend) for instance, backend in suite.runs()
            if (instance.key, backend, suite.task) not in done]


def run_session(store: Store, session: int, suite: Suite, jobs: int = 1, watcher: Watcher | None = None,
                grace: float = GRACE_SECONDS, memory_mb: int = MEMORY_LIMIT_MB) -> bool:
    """Run what is left of ``session``; True when every planned run is now stored."""
    watcher = watcher or Watcher()
    todo = pending(store, session, suite)
    total = len(suite.runs())
    watcher.planned(total, total - len(todo))
    check_backends(suite)
    running: list[Running] = []
    interrupts = _Interrupts()
    began = time.perf_counter()
    with interrupts.installed():
        try:
            while todo or running:
                while todo and len(running) < jobs:
                    instance, backend = todo.pop(0)
                    watcher.started(instance, backend)
                    with interrupts.shield():
                        handle = start_run(instance, backend, suite.task, suite.timeout, grace, memory_mb)
                        if isinstance(handle, Running):
                            running.append(handle)
                    if isinstance(handle, RunRecord):
                        _store(store, session, handle, watcher)
                if not running:
                    continue
                soonest = min(r.deadline for r in running)
                ready = wait([r.receive for r in running], timeout=max(0.0, soonest - time.perf_counter()))
                now = time.perf_counter()
                for handle in [r for r in running if r.receive in ready or r.deadline <= now]:
                    record = handle.finish()
                    running.remove(handle)
                    _store(store, session, record, watcher)
        finally:
            for handle in running:  # interrupted: the runs under way are stopped, not stored
                handle.stop()
            complete = not todo and not running
            store.close_session(session, time.perf_counter() - began, complete)
    return complete


def _store(store: Store, session: int, record: RunRecord, watcher: Watcher) -> None:
    store.add_run(session, record)
    watcher.finished(record)
