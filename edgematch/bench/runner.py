"""Measuring one run in isolation: a child process per run, a hard wall-clock limit, a limit on resident
memory, and a verdict the parent reaches on its own.

The child generates the instance, loads the backend's libraries, asks the backend (its own time limit set
to the run's timeout), and sends back what it found with the seconds the call took (``time``: the figure
reports compare, free of process start-up and imports) and the CPU seconds its processes spent in that call.
The parent kills a child that overruns the limit by ``grace`` (a backend that ignores its time limit cannot
hang the harness), rebuilds the puzzle, checks every solution with the independent checker, and files the run:

- termination: ``done``, ``timeout`` (killed at the limit), ``memory`` (over the memory limit),
  ``crashed`` (died without an answer), ``failed`` (could not start);
- category: ``correct``, ``wrong`` (an invalid solution, or a planted puzzle called unsat),
  ``timeout``, ``error``.

Task ``best`` (the best-scoring board within the timeout): the child sends the board, its claimed score, the
maximum and the improvement history; the parent re-scores the board with the checker (a board that breaks a
rule, or a claimed score the checker does not count, is ``wrong``). A run with a board is ``correct``, with
status ``solved`` when its score is proven the maximum (a full solution, or the backend's proof) and
``timeout`` when the time ran out first: reaching the limit is how a best run ends, not a failure. A run
without a board is category ``timeout``.

Measurement (:class:`Tree`). While a run is under way the parent polls its process tree (the child and every
descendant, found by parent pid, so a portfolio member in its own process group counts too) every
``POLL_SECONDS`` with psutil: the sum of their resident sets is the run's memory, and a run whose sum passes
the limit is killed and filed ``memory``. This limits *resident* memory, not address space: ``RLIMIT_AS``
(used before) killed CP-SAT on a 3x3 board at 300 MiB because its threads reserve address space they never
touch. Polling was chosen over the alternatives after measuring them here: cgroups (what BenchExec uses)
need a writable cgroup hierarchy, which an ordinary user rarely has (this machine: cgroup v1, read-only);
``resource.getrusage(RUSAGE_CHILDREN)`` in the parent mixes every finished run together under ``--jobs``
and, read through ``wait4``, sees only the child and the descendants it reaped (not a member killed with its
group), and it can only measure, never stop a run in time. The price of polling: a run can overshoot its
limit for up to one poll (0.1 s) before it is stopped. The figures stored per run:

- ``cpu``: user + system seconds of the run's process tree spent in the backend call (the child's own
  ``getrusage`` before and after the call, itself and its reaped children: CP-SAT's threads, the SAT
  solver's and a portfolio's member processes), so ``cpu / time`` shows how many cores a backend kept busy;
  for a run killed at its limit, the tree's total at the last poll;
- ``peak_rss_mb``: the largest resident set seen, MiB: the larger of the polled tree sum and the
  per-process peaks the kernel kept (``ru_maxrss``). A run's child is forked from the harness with the solver
  libraries loaded, so these pages (tens of MiB) are part of every run's figure and of its limit.

What the run's processes print (solver logs, warnings) goes to a file, never to the terminal where the live
display is; its last ``OUTPUT_CHARS`` characters are stored with the run (``output``).

:func:`start_run` returns a :class:`Running` handle so a scheduler can keep several runs going at once;
:func:`run_one` is start and wait.
"""

from __future__ import annotations

import contextlib
import os
import resource
import sys
import tempfile
import traceback
from dataclasses import asdict, dataclass, field
from typing import Any

from edgematch import clock
from edgematch.bench.suite import Instance
from edgematch.core.checker import check
from edgematch.core.model import Solution
from edgematch.solvers.base import Question
from edgematch.solvers.parallel.processes import adopt, context, kill_group, own_group

GRACE_SECONDS = 2.0
SETUP_SECONDS = 60.0  # how long a run's child may take to load its backend before it is filed as a set-up error
MEMORY_LIMIT_MB = 4096
POLL_SECONDS = 0.1  # how often the parent measures a running child's tree (and enforces the memory limit)
OUTPUT_CHARS = 4000  # how much of what a run printed is kept with it (the end: where the error is)
MIB = 1024 * 1024


@dataclass
class RunRecord:
    """One finished run: what the backend said, what the harness measured and concluded.

    ``fingerprint`` identifies the puzzle by content (:meth:`Instance.fingerprint`; ``""`` for a run
    stored before fingerprints, whose puzzle is unknown); ``repeat`` numbers the runs of one cell under
    ``--repeat``; ``ran`` is what a meta backend (auto, portfolio) actually ran; ``output`` what the run printed.
    """

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
    cpu: float | None = None
    peak_rss_mb: float | None = None
    fingerprint: str = ""
    repeat: int = 0
    ran: str = ""
    output: str = ""
    score: int | None = None  # best: the checked score of the board returned
    max_score: int | None = None  # best: the puzzle's inner seams
    history: list[tuple[float, int]] = field(default_factory=list)  # best: (seconds, score) per improvement
    board: list[tuple[int, int]] = field(default_factory=list)  # best: the board returned, (tile, turn) by cell

    def about(self, instance: Instance) -> RunRecord:
        """This record with the instance's family, size and fingerprint filled in (reports group by them)."""
        self.family, self.size, self.tiles = instance.family, instance.size, instance.tiles
        self.fingerprint = instance.fingerprint()
        return self

    def as_dict(self) -> dict[str, Any]:
        return asdict(self)

    @property
    def solved(self) -> bool:
        """Answered and accepted: the figure that counts in reports (unsat answers count too). A best run is
        solved when its score is proven the maximum."""
        return self.category == "correct" and self.status in ("solved", "unsat")

    @property
    def reached(self) -> float | None:
        """best: the seconds at which the run's final score was first reached (its last improvement)."""
        if self.score is None:
            return None
        return next((t for t, s in self.history if s >= self.score), self.time)


def ran(counters: dict[str, Any]) -> str:
    """What a meta backend ran, from the counters it reports: auto's choice (``chosen``) and a portfolio's
    winner (``winner``), e.g. ``cpsat``, ``portfolio:native+sat (sat won)``, ``sat won``; "" for a single backend."""
    chosen, winner = counters.get("chosen"), counters.get("winner")
    if chosen and winner:
        return f"{chosen} ({winner} won)"
    return str(chosen) if chosen else f"{winner} won" if winner else ""


def _cpu_now() -> float:
    """User + system seconds of this process and of its children it has waited for."""
    me, children = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    return me.ru_utime + me.ru_stime + children.ru_utime + children.ru_stime


def _max_rss_mb() -> float:
    """The kernel's per-process resident-set peak of this process and its waited-for children, MiB."""
    unit = 1 if sys.platform == "darwin" else 1024  # bytes on macOS, KiB on Linux
    peak = max(resource.getrusage(who).ru_maxrss for who in (resource.RUSAGE_SELF, resource.RUSAGE_CHILDREN))
    return peak * unit / MIB


def question_of(task: str) -> Question:
    """The question a bench task asks a backend (``first`` for the tasks that time one solution)."""
    return task if task in ("first", "count", "best") else "first"  # type: ignore[return-value]


def _child(conn: Any, instance: Instance, backend: str, task: str, timeout: float, capture: int, ready: Any) -> None:
    own_group()  # stopping the run also stops any solver process it starts; a killed harness takes it along
    os.dup2(capture, 1)  # what the run prints goes to its record, never over the live display
    os.dup2(capture, 2)
    sys.stdout = sys.stderr = open(capture, "w", buffering=1, closefd=False)  # noqa: SIM115  (the child's life)
    try:
        from edgematch.solvers.base import Task, with_spec

        puzzle = instance.puzzle()
        question = question_of(task)
        chosen, asked = with_spec(backend, Task(question=question, time_limit=timeout, distinct=task == "count"))
        chosen.warm_up(question)  # loaded in the harness before the fork: a no-op unless a run loads more
        ready.value = clock.now()  # the run's time limit (and the parent's kill) counts from here
        cpu = _cpu_now()
        started = clock.now()
        result = chosen.run(puzzle, asked.anchored(ready.value))
        took = clock.now() - started
        cpu = _cpu_now() - cpu
        best = {"score": result.score, "max_score": puzzle.seam_count,
                "history": [(float(t), int(s)) for t, s in result.history]} if task == "best" else {}
        conn.send(best | {
            "status": result.status.value, "cells": [list(map(tuple, s.cells)) for s in result.solutions[:1]],
            "count": result.count, "distinct": result.distinct, "time": took, "build": result.timings.build,
            "solve": result.timings.solve, "counters": _plain(result.counters), "options": _plain(result.options),
            "message": result.message, "cpu": cpu, "peak_rss_mb": _max_rss_mb(),
        })
    except MemoryError:
        conn.send({"termination": "memory", "message": "over the memory limit", "peak_rss_mb": _max_rss_mb()})
    except Exception as exc:  # noqa: BLE001  (reported as the run's error)
        conn.send({"termination": "error", "message": f"{type(exc).__name__}: {exc}",
                   "trace": traceback.format_exc(limit=5)})
    finally:
        for stream in (sys.stdout, sys.stderr):
            with contextlib.suppress(Exception):
                stream.flush()


def _plain(values: dict[str, Any]) -> dict[str, Any]:
    return {k: v if isinstance(v, (int, float, str, bool, type(None))) else str(v) for k, v in values.items()}


@dataclass
class Tree:
    """What polling a run's process tree has seen: the peak of the summed resident sets (bytes) and the
    tree's CPU seconds at the last poll (each live process with its reaped children, so none twice)."""

    pid: int
    peak_rss: int = 0
    cpu: float = 0.0

    def sample(self) -> int:
        """Poll the tree once; the resident bytes it holds now (0 when it is gone)."""
        import psutil

        try:
            root = psutil.Process(self.pid)
            processes = [root, *root.children(recursive=True)]
        except psutil.Error:
            return 0
        rss, cpu = 0, 0.0
        for process in processes:
            try:
                with process.oneshot():
                    rss += process.memory_info().rss
                    t = process.cpu_times()
                    cpu += t.user + t.system + t.children_user + t.children_system
            except psutil.Error:  # ended between the listing and the reading
                continue
        self.peak_rss = max(self.peak_rss, rss)
        self.cpu = max(self.cpu, cpu)
        return rss


@dataclass
class Running:
    """A run under way: its child process, the pipe its answer comes through, its deadline, its memory
    limit (bytes), the file its output goes to, and what polling its tree has seen."""

    instance: Instance
    backend: str
    task: str
    timeout: float
    grace: float
    process: Any
    receive: Any
    started: float
    memory: int = MEMORY_LIMIT_MB * MIB
    capture: Any = None
    tree: Tree | None = None
    over: bool = False  # killed for passing the memory limit
    repeat: int = 0  # which of the cell's runs this is (``--repeat``)
    ready: Any = None  # shared double (start_run makes it): the child's clock.now() once its backend loaded
    forked: float = 0.0  # clock.now() when the child was started (``started`` on the other clock)

    @property
    def ready_at(self) -> float | None:
        """When the child had loaded its backend and started the timed call (perf_counter), or None."""
        stamp = 0.0 if self.ready is None else self.ready.value
        return None if not stamp else self.started + (stamp - self.forked)

    @property
    def deadline(self) -> float:
        """The time limit plus grace, counted from when the run's call started; before then the set-up limit."""
        ready = self.ready_at
        return self.started + SETUP_SECONDS if ready is None else ready + self.timeout + self.grace

    def poll(self) -> bool:
        """Measure the run's tree once; past the memory limit, kill it. True when it was killed for that."""
        if self.tree is None or self.over:
            return self.over
        if self.tree.sample() > self.memory:
            self.over = True
            kill_group(self.process.pid)
            self._kill_tree()
        return self.over

    def finish(self) -> RunRecord:
        """Collect the answer (waiting at most until the deadline, polling the tree meanwhile), stop the
        child's process group, file the run."""
        return self._file().about(self.instance)

    def _file(self) -> RunRecord:
        answer = None
        while not self.over:
            left = self.deadline - clock.now()
            if self.receive.poll(max(0.0, min(left, POLL_SECONDS))):
                try:
                    answer = self.receive.recv()
                except EOFError:
                    answer = None
                break
            if left <= 0 or self.poll():
                break
        wall = clock.now() - self.started
        self.stop()
        output = self._output()
        key, backend, task = self.instance.key, self.backend, self.task
        measured = {"cpu": self.tree.cpu if self.tree else None,
                    "peak_rss_mb": self.tree.peak_rss / MIB if self.tree else None, "output": output}
        if self.over:
            return RunRecord(key, backend, task, "error", "memory", "error", wall, **measured,
                             message=f"killed over the memory limit ({self.memory / MIB:.0f} MiB resident; "
                                     f"{measured['peak_rss_mb']:.0f} MiB seen)")
        if answer is None:
            if self.ready_at is None:  # never started the timed call
                return RunRecord(key, backend, task, "error", "failed", "error", wall, **measured,
                                 message=f"set-up: the run was still loading its backend after {wall:.1f} s "
                                         f"(exit code {self.process.exitcode}); nothing was timed")
            if clock.now() >= self.deadline - 0.05:
                return RunRecord(key, backend, task, "timeout", "timeout", "timeout", wall, **measured,
                                 message=f"killed after {self.timeout + self.grace:.1f} s")
            return RunRecord(key, backend, task, "error", "crashed", "error", wall, **measured,
                             message=f"the run died without an answer (exit code {self.process.exitcode})")
        peak = max(answer.get("peak_rss_mb") or 0.0, measured["peak_rss_mb"] or 0.0)
        if "termination" in answer:
            return RunRecord(key, backend, task, "error", answer["termination"], "error", wall, cpu=measured["cpu"],
                             peak_rss_mb=peak, output=output, message=answer["message"])
        record = _verdict(self.instance, backend, task, wall, answer)
        record.peak_rss_mb, record.output = peak, output
        if record.category == "correct" and record.time > self.timeout and task != "best":  # best ends at the limit
            record.category, record.message = "timeout", f"answered after the cutoff ({record.time:.2f} s)"
        return record

    def _kill_tree(self) -> None:
        """Kill descendants that left the run's process group (a portfolio's members lead their own)."""
        import psutil

        with contextlib.suppress(psutil.Error):
            for process in psutil.Process(self.process.pid).children(recursive=True):
                with contextlib.suppress(psutil.Error):
                    process.kill()

    def _output(self) -> str:
        if self.capture is None:
            return ""
        try:
            self.capture.seek(0, os.SEEK_END)
            size = self.capture.tell()
            self.capture.seek(max(0, size - 4 * OUTPUT_CHARS))
            text = self.capture.read().decode("utf-8", errors="replace")
        except (OSError, ValueError):
            return ""
        finally:
            self.capture.close()
        return text[-OUTPUT_CHARS:].strip()

    def stop(self) -> None:
        """Kill the run's process tree (the run and anything it started); gone already is fine."""
        if not self.over:
            self._kill_tree()
        kill_group(self.process.pid)
        self.process.join(timeout=5)
        self.receive.close()


def start_run(instance: Instance, backend: str, task: str, timeout: float, grace: float = GRACE_SECONDS,
              memory_mb: int = MEMORY_LIMIT_MB) -> Running | RunRecord:
    """Start ``backend`` on ``instance`` in a child process; a run that cannot start is filed at once."""
    forking = context()
    receive, send = forking.Pipe(duplex=False)
    capture = tempfile.TemporaryFile()  # noqa: SIM115  (closed when the run is filed)
    ready = forking.Value("d", 0.0, lock=False)
    started, forked = clock.now(), clock.now()
    try:
        process = forking.Process(target=_child, args=(send, instance, backend, task, timeout, capture.fileno(),
                                                       ready))
        process.start()
        adopt(process.pid)
    except OSError as exc:
        receive.close()
        capture.close()
        return RunRecord(instance.key, backend, task, "error", "failed", "error", 0.0, message=str(exc)).about(instance)
    finally:
        send.close()
    running = Running(instance, backend, task, timeout, grace, process, receive, started, memory_mb * MIB, capture,
                      Tree(process.pid), ready=ready, forked=forked)
    running.poll()
    return running


def run_one(instance: Instance, backend: str, task: str, timeout: float, grace: float = GRACE_SECONDS,
            memory_mb: int = MEMORY_LIMIT_MB) -> RunRecord:
    """Run ``backend`` on ``instance`` in a child process and file the outcome."""
    running = start_run(instance, backend, task, timeout, grace, memory_mb)
    return running if isinstance(running, RunRecord) else running.finish()


def _verdict(instance: Instance, backend: str, task: str, wall: float, answer: dict[str, Any]) -> RunRecord:
    record = RunRecord(
        instance.key, backend, task, answer["status"], "done", "correct", wall, answer["time"], answer["build"],
        answer["solve"], count=answer["count"], distinct=answer["distinct"], counters=answer["counters"],
        options=answer["options"], message=answer["message"], cpu=answer["cpu"], ran=ran(answer["counters"]),
    )
    puzzle = instance.puzzle()
    if task == "best":
        return _best_verdict(instance, puzzle, record, answer)
    started = clock.now()
    for cells in answer["cells"]:
        verdict = check(puzzle, Solution(puzzle.width, puzzle.height, tuple(cells)))
        if not verdict.ok:
            record.category = "wrong"
            record.message = f"invalid solution: {verdict.violations[0]}"
    record.check = clock.now() - started
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


def _best_verdict(instance: Instance, puzzle: Any, record: RunRecord, answer: dict[str, Any]) -> RunRecord:
    """File a best run: the board re-scored by the checker (what is stored is the checker's score), its claim
    compared; a board is a correct answer whether or not it was proven optimal."""
    record.max_score, record.history = answer.get("max_score"), [tuple(step) for step in answer.get("history", [])]
    claimed = answer.get("score")
    started = clock.now()
    if answer["cells"]:
        board = [(int(tile), int(turn)) for tile, turn in answer["cells"][0]]
        verdict = check(puzzle, Solution(puzzle.width, puzzle.height, tuple(board)))
        record.check, record.board = clock.now() - started, board
        record.score, record.max_score = verdict.score, verdict.max_score
        if not verdict.admissible:
            broken = next(v for v in verdict.violations if v.kind != "seam")
            record.category, record.message = "wrong", f"the board breaks a rule: {broken}"
        elif claimed is not None and claimed != verdict.score:
            record.category = "wrong"
            record.message = f"claimed score {claimed}, the checker counts {verdict.score}"
        elif record.status == "error":
            record.category = "error"
        elif record.status == "unsat":
            record.category, record.message = "wrong", "returned a board but said no admissible board exists"
        elif verdict.score == verdict.max_score:
            record.status = "solved"  # a full solution: the maximum, proven by the board itself
        return record
    if record.status == "unsat" and instance.planted:
        record.category, record.message = "wrong", "a planted (solvable) puzzle was reported to have no board"
    elif record.status == "solved":
        record.category, record.message = "wrong", "claimed an optimum without a board"
    elif record.status in ("timeout", "error"):
        record.category = record.status
        record.message = record.message or "no board within the time"
    return record
