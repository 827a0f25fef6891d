"""Measuring one run in isolation: a child process per run, a hard wall-clock and memory limit, and a
verdict the parent reaches on its own.

The child generates the instance, loads the backend's libraries, asks the backend (its own time limit set
to the run's timeout), and sends back what it found with the seconds the call took (``time``: the figure
reports compare, free of process start-up and imports). The parent kills a child that overruns the limit by
``grace`` (a backend that ignores its time limit cannot hang the harness), rebuilds the puzzle, checks every
solution with the independent checker, and files the run:

- termination: ``done``, ``timeout`` (killed at the limit), ``memory`` (over the memory limit),
  ``crashed`` (died without an answer), ``failed`` (could not start);
- category: ``correct``, ``wrong`` (an invalid solution, or a planted puzzle called unsat),
  ``timeout``, ``error``.

:func:`start_run` returns a :class:`Running` handle so a scheduler can keep several runs going at once;
:func:`run_one` is start and wait.
"""

from __future__ import annotations

import resource
import time
import traceback
from dataclasses import asdict, dataclass, field
from typing import Any

from edgematch.bench.suite import Instance
from edgematch.core.checker import check
from edgematch.core.model import Solution
from edgematch.solvers.processes import adopt, context, kill_group, own_group

GRACE_SECONDS = 2.0
MEMORY_LIMIT_MB = 4096


@dataclass
class RunRecord:
    """One finished run: what the backend said and what the harness concluded."""

    instance: str
    backend: str
    task: str
    status: str
    termination: str
    category: str
    wall: float
    time: float = 0.0
    build: float = 0.0
    solve: float = 0.0
    check: float = 0.0
    count: int | None = None
    distinct: int | None = None
    counters: dict[str, Any] = field(default_factory=dict)
    options: dict[str, Any] = field(default_factory=dict)
    message: str = ""
    family: str = ""
    size: str = ""
    tiles: int = 0

    def about(self, instance: Instance) -> RunRecord:
        """This record with the instance's family and size filled in (reports group by them)."""
        self.family, self.size, self.tiles = instance.family, instance.size, instance.tiles
        return self

    def as_dict(self) -> dict[str, Any]:
        return asdict(self)

    @property
    def solved(self) -> bool:
        """Answered and accepted: the figure that counts in reports (unsat answers count too)."""
        return self.category == "correct" and self.status in ("solved", "unsat")


def _child(conn: Any, instance: Instance, backend: str, task: str, timeout: float, memory_mb: int) -> None:
    own_group()  # stopping the run also stops any solver process it starts; a killed harness takes it along
    try:
        limit = memory_mb * 1024 * 1024
        hard = resource.getrlimit(resource.RLIMIT_AS)[1]
        limit = limit if hard == resource.RLIM_INFINITY else min(limit, hard)
        resource.setrlimit(resource.RLIMIT_AS, (limit, limit))
        from edgematch.solvers.base import Task, get_backend

        puzzle = instance.puzzle()
        chosen = get_backend(backend)
        chosen.warm_up()
        question = "first" if task == "first" else "count"
        started = time.perf_counter()
        result = chosen.run(puzzle, Task(question=question, time_limit=timeout, distinct=task == "count"))
        took = time.perf_counter() - started
        conn.send({
            "status": result.status.value, "cells": [list(map(tuple, s.cells)) for s in result.solutions[:1]],
            "count": result.count, "distinct": result.distinct, "time": took, "build": result.timings.build,
            "solve": result.timings.solve, "counters": _plain(result.counters), "options": _plain(result.options),
            "message": result.message,
        })
    except MemoryError:
        conn.send({"termination": "memory", "message": "over the memory limit"})
    except Exception as exc:  # noqa: BLE001  (reported as the run's error)
        conn.send({"termination": "error", "message": f"{type(exc).__name__}: {exc}",
                   "trace": traceback.format_exc(limit=5)})


def _plain(values: dict[str, Any]) -> dict[str, Any]:
    return {k: v if isinstance(v, (int, float, str, bool, type(None))) else str(v) for k, v in values.items()}


@dataclass
class Running:
    """A run under way: its child process, the pipe its answer comes through, and its deadline."""

    instance: Instance
    backend: str
    task: str
    timeout: float
    grace: float
    process: Any
    receive: Any
    started: float

    @property
    def deadline(self) -> float:
        return self.started + self.timeout + self.grace

    def finish(self) -> RunRecord:
        """Collect the answer (waiting at most until the deadline), stop the child's process group, file the run."""
        return self._file().about(self.instance)

    def _file(self) -> RunRecord:
        answer = None
        if self.receive.poll(max(0.0, self.deadline - time.perf_counter())):
            try:
                answer = self.receive.recv()
            except EOFError:
                answer = None
        wall = time.perf_counter() - self.started
        self.stop()
        key, backend, task = self.instance.key, self.backend, self.task
        if answer is None:
            if wall >= self.timeout + self.grace - 0.05:
                return RunRecord(key, backend, task, "timeout", "timeout", "timeout", wall,
                                 message=f"killed after {self.timeout + self.grace:.1f} s")
            return RunRecord(key, backend, task, "error", "crashed", "error", wall,
                             message=f"the run died without an answer (exit code {self.process.exitcode})")
        if "termination" in answer:
            return RunRecord(key, backend, task, "error", answer["termination"], "error", wall,
                             message=answer["message"])
        record = _verdict(self.instance, backend, task, wall, answer)
        if record.category == "correct" and record.time > self.timeout:
            record.category, record.message = "timeout", f"answered after the cutoff ({record.time:.2f} s)"
        return record

    def stop(self) -> None:
        """Kill the run's process group (the run and anything it started); gone already is fine."""
        kill_group(self.process.pid)
        self.process.join(timeout=5)
        self.receive.close()


def start_run(instance: Instance, backend: str, task: str, timeout: float, grace: float = GRACE_SECONDS,
              memory_mb: int = MEMORY_LIMIT_MB) -> Running | RunRecord:
    """Start ``backend`` on ``instance`` in a child process; a run that cannot start is filed at once."""
    forking = context()
    receive, send = forking.Pipe(duplex=False)
    started = time.perf_counter()
    try:
        process = forking.Process(target=_child, args=(send, instance, backend, task, timeout, memory_mb))
        process.start()
        adopt(process.pid)
    except OSError as exc:
        receive.close()
        return RunRecord(instance.key, backend, task, "error", "failed", "error", 0.0, message=str(exc)).about(instance)
    finally:
        send.close()
    return Running(instance, backend, task, timeout, grace, process, receive, started)


def run_one(instance: Instance, backend: str, task: str, timeout: float, grace: float = GRACE_SECONDS,
            memory_mb: int = MEMORY_LIMIT_MB) -> RunRecord:
    """Run ``backend`` on ``instance`` in a child process and file the outcome."""
    running = start_run(instance, backend, task, timeout, grace, memory_mb)
    return running if isinstance(running, RunRecord) else running.finish()


def _verdict(instance: Instance, backend: str, task: str, wall: float, answer: dict[str, Any]) -> RunRecord:
    record = RunRecord(
        instance.key, backend, task, answer["status"], "done", "correct", wall, answer["time"], answer["build"],
        answer["solve"], count=answer["count"], distinct=answer["distinct"], counters=answer["counters"],
        options=answer["options"], message=answer["message"],
    )
    puzzle = instance.puzzle()
    started = time.perf_counter()
    for cells in answer["cells"]:
        verdict = check(puzzle, Solution(puzzle.width, puzzle.height, tuple(cells)))
        if not verdict.ok:
            record.category = "wrong"
            record.message = f"invalid solution: {verdict.violations[0]}"
    record.check = time.perf_counter() - started
    if record.category == "wrong":
        return record
    if record.status == "unsat" and instance.planted:
        record.category, record.message = "wrong", "a planted (solvable) puzzle was reported unsat"
    elif record.status == "solved" and task == "first" and not answer["cells"]:
        record.category, record.message = "wrong", "solved without a solution"
    elif record.status == "solved" and task == "count" and not record.count:
        record.category, record.message = "wrong", "counted as solved with no solution"
    elif record.status == "timeout":
        record.category = "timeout"
    elif record.status == "error":
        record.category = "error"
    return record
