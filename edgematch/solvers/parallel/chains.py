"""Chains: N copies of one search on this machine's cores or on a Dask cluster, sharing the best board found.

A *chain* is a backend's single-process search run as a black box (``runner.run`` with one worker and no
cluster) with the options a *plan* gives chain ``i`` (:data:`Plan`; by default, :func:`seeded`, the caller's with
seed ``seed + i``: chain 0 keeps the caller's seed, so one chain is the single-process run). Best-score chains
(``best --workers``) and the first-solution race (``solve -j``) are both chains; they differ in their plan and in
what ends them (:class:`Gathered`, which each question extends).

- On this machine (:func:`spawn`, :func:`gather`): each chain is a forked child in its own process group
  (:func:`_chain`), adopted so Ctrl-C and the parent's death reach it; it sends every better board and its result
  over a pipe and writes its live count into shared memory. The boards go into an :class:`Incumbent`, shared
  memory every chain reads without a lock (``task.incumbent``).
- On a Dask cluster (:func:`chain_task`, :func:`relay`): one task per worker thread, submitted through
  :class:`~edgematch.solvers.parallel.tasks.Tasks`; the task runs the chain in a child exactly as above and
  relays: better boards and live counts into a ``distributed.Queue`` the client drains, the client's best board
  (an :class:`~edgematch.solvers.parallel.shared.OnCluster` value) into the child's incumbent, the stop ``Event``
  on to it as a Ctrl-C, looked at every :data:`RELAY_SECONDS`; a plan's shared state (the race's handover) goes
  through the task too (:class:`~edgematch.solvers.parallel.shared.Served`).

Limits and faults, the same for every question: chains get the deadline less :data:`REPORT_AHEAD`; a chain that
dies loses nothing it had sent (noted in ``lost``: the others go on); a lost task on a cluster follows the rule of
:mod:`edgematch.solvers.parallel.tasks`. Chains die with their parent (``PR_SET_PDEATHSIG``).
"""

from __future__ import annotations

import contextlib
import signal
from collections.abc import Callable, Hashable
from dataclasses import dataclass, field, replace
from multiprocessing.connection import wait
from typing import Any

from edgematch import clock
from edgematch.core.checker import check_admissible
from edgematch.core.model import Puzzle, Solution
from edgematch.errors import EdgematchError, PuzzleError, UsageError
from edgematch.solvers.base import INTERRUPTED, TIME_LIMIT, Backend, Result, Status, Task, whole
from edgematch.solvers.parallel.processes import (
    DIED,
    ChildDied,
    adopt,
    arrivals,
    context,
    ctrl_c_held,
    interrupt_group,
    kill_group,
    own_group,
    start,
)
from edgematch.solvers.parallel.shared import OnCluster, Served
from edgematch.solvers.parallel.tasks import Tasks

REPORT_AHEAD = 0.1  # chains stop this much before the limit: their last report and exit take time too
STOP_GRACE = 0.3  # after a Ctrl-C is passed on, for chains to report; then they are killed
POLL_SECONDS = 0.1  # how often the parent (or the cluster's client) updates the live line and looks around
RELAY_SECONDS = 0.5  # on a cluster: how often a task reads the client's best board and stop event
COLLECT_SECONDS = 1.0  # on a cluster, once stopped: how long the client waits for the chains' last reports


def flat(board: Solution) -> list[int]:
    """A board as plain integers: tile, turn of each cell, row-major (what the shared memory and Dask hold)."""
    return [int(v) for cell in board.cells for v in cell]


def unflat(puzzle: Puzzle, values: list[int]) -> Solution:
    """The board :func:`flat` made."""
    return Solution.from_pairs(puzzle, zip(values[0::2], values[1::2], strict=True))


class Incumbent:
    """The best board so far in memory shared with the chains: ``[version, score, tile, turn, tile, turn, ...]``.

    One writer (the parent, or a cluster task), readers without a lock (a lock held by a killed process would
    stop every other): the writer makes ``version`` odd while it writes and even after; a reader that sees it
    odd, or changed while it read, keeps the board it had and reads again at its next call. A board read is
    re-scored by the checker before it is handed on, so not even a torn read can pass on a wrong board."""

    def __init__(self, shared: Any):
        self.shared = shared

    @classmethod
    def create(cls, ctx: Any, cells: int) -> Incumbent:
        return cls(ctx.Array("q", 2 + 2 * cells, lock=False))

    def write(self, board: Solution, score: int) -> None:
        """Publish ``board`` (the writer only)."""
        a = self.shared
        a[0] += 1
        a[1] = score
        values = flat(board)
        a[2:2 + len(values)] = values
        a[0] += 1

    def reader(self, puzzle: Puzzle) -> Callable[[], tuple[Solution, int] | None]:
        """``task.incumbent`` for a chain: the board last published and its score, or None before the first.
        A call that finds nothing new reads one integer (cheap enough to poll every few milliseconds)."""
        a = self.shared
        seen: list[Any] = [0, None]  # the version read last, and its (board, score)

        def read() -> tuple[Solution, int] | None:
            version = a[0]
            if version == seen[0] or version & 1:
                return seen[1]
            score, values = a[1], a[2:]
            if a[0] != version:
                return seen[1]
            try:
                board = unflat(puzzle, values)
            except PuzzleError:
                return seen[1]
            verdict = check_admissible(puzzle, board)
            if verdict.admissible and verdict.score == score:
                seen[:] = [version, (board, score)]
            return seen[1]

        return read


def chain_seed(task: Task) -> int:
    """The caller's seed (option ``seed``, default 0): chain ``i`` runs with ``seed + i``."""
    return whole(task.options.get("seed", 0), "seed")


Plan = Callable[[Backend, Task, int], tuple[Any, dict]]  # what chain i runs: a runner (run, checked_options), options


def seeded(backend: Backend, task: Task, index: int) -> tuple[Backend, dict]:
    """The default plan: chain ``index`` runs ``backend`` with the caller's options and seed ``seed + index``."""
    return backend, {**task.options, "seed": chain_seed(task) + index}


def _chain(send: Any, backend: Backend, puzzle: Puzzle, task: Task, index: int, shared: Any, live: Any,
           slot: int, deadline: float | None, plan: Plan = seeded) -> None:
    """One chain, in a child process leading its own group: what ``plan`` says chain ``index`` runs (by default
    the single-process search with seed ``seed + index``), sending ``("improve", index, board, score)`` for every
    better board and ``("done", index, result)`` (or ``("failed", index, error)``) at the end; its live count goes
    to ``live[slot]``. Ctrl-C (from its parent only) stops the search, which reports; it is taken even where the
    parent ignores it (a Dask worker of a local cluster does, and a fork inherits that)."""
    def improve(board: Solution, score: int) -> None:
        with ctrl_c_held():
            send.send(("improve", index, board, score))

    def progress(info: dict[str, float]) -> None:
        live[slot] = int(info.get("nodes", 0))

    message: tuple[str, int, Any]
    try:
        try:  # a stop may come as soon as Ctrl-C is taken (a chain started past the deadline): setup included
            signal.signal(signal.SIGINT, signal.default_int_handler)
            own_group()
            runner, options = plan(backend, task, index)  # the chain reports REPORT_AHEAD before the deadline
            mine = replace(task, workers=1, cluster=None, deadline=None if deadline is None else
                           deadline - REPORT_AHEAD, on_improve=improve, progress=progress,
                           incumbent=Incumbent(shared).reader(puzzle), options=options)
            message = ("done", index, runner.run(puzzle, mine))
        except KeyboardInterrupt:  # stopped before the search could report
            message = ("done", index, Result(backend.full_name, Status.TIMEOUT, message=INTERRUPTED))
        except EdgematchError as exc:
            message = ("failed", index, exc)
        except Exception as exc:  # noqa: BLE001  (the parent says which chain failed, and goes on)
            message = ("failed", index, ChildDied(f"{type(exc).__name__}: {exc}"))
        signal.signal(signal.SIGINT, signal.SIG_IGN)  # the last word goes out whole
        try:
            send.send(message)
        except Exception:  # noqa: BLE001  (an error that does not pickle: its text will do)
            send.send(("failed", index, ChildDied(str(message[2]))))
    except KeyboardInterrupt:
        pass  # stopped while reporting: the parent no longer waits for it


@dataclass
class Gathered:
    """What the parent (or the cluster's client) holds of its chains, whatever the question: each chain's last
    word, the chains lost, the first usage error and each chain's live count. A question extends it with what
    ends it (:meth:`ended`: a proven best board, a checked solution)."""

    task: Task
    began: float
    finals: dict[int, Result] = field(default_factory=dict)
    lost: list[str] = field(default_factory=list)  # why each chain that ended without a result did
    usage: UsageError | None = None  # a chain's usage error (every chain meets it): raised to the caller
    live: dict[int, int] = field(default_factory=dict)  # each chain's live count (states or nodes)

    def ended(self, index: int, result: Result) -> bool:
        """A chain's result; True when it ends every chain."""
        self.finals[index] = result
        return False

    def failed(self, index: int, error: BaseException) -> None:
        if isinstance(error, UsageError):
            self.usage = self.usage or error
        self.lost.append(f"chain {index} failed: {error}")

    def improved(self, board: Solution, score: int) -> None:
        """A chain's better board (best only: a race's chains send none)."""

    def looked(self, index: int, count: int) -> None:
        """A chain's live count, as last seen (never taken back)."""
        self.live[index] = max(self.live.get(index, 0), count)

    def progress(self) -> dict[str, float]:
        """The live line's figures."""
        return {"nodes": sum(self.live.values())}

    def show(self) -> None:
        if self.task.progress is not None:
            self.task.progress({**self.progress(), "elapsed": clock.now() - self.began})


Running = dict[Any, tuple[int, Any]]  # a chain's receiving end -> (its index, its process), until it ends


def spawn(ctx: Any, count: int, args: Callable[[int, Any], tuple], running: Running, started: list[Any]) -> None:
    """Fork ``count`` chain processes, chain i running :func:`_chain` on ``args(i, its sending end)``, each in
    its own process group and adopted (Ctrl-C and the parent's death reach it); ``running`` and ``started`` are
    filled as they start, so a caller's clean-up sees every one even when starting is interrupted."""
    for index in range(count):
        receive, send = ctx.Pipe(duplex=False)
        process = ctx.Process(target=_chain, daemon=True, args=args(index, send))
        running[receive] = (index, process)
        started.append(process)
        try:
            start(process)
            adopt(process.pid)
        finally:
            send.close()


def gather(running: Running, got: Any, on_message: Callable[[int, str, list[Any]], str],
           refresh: Callable[[], None], until: float | None) -> str:
    """Take the chains' messages until each has ended (``""``), ``on_message(chain, kind, payload)`` returns a
    reason to stop, or ``until`` (monotonic) passes (:data:`TIME_LIMIT`); ``refresh`` after each round. A chain
    ends with any message but ``improve``; one that dies is noted in ``got.lost``."""
    while running:
        now = clock.now()
        if until is not None and now >= until:
            return TIME_LIMIT
        for receive, message in arrivals(running, POLL_SECONDS if until is None else min(POLL_SECONDS, until - now)):
            index, process = running[receive]
            if message is DIED:
                running.pop(receive)
                receive.close()
                process.join(timeout=1)
                got.lost.append(f"chain {index} died (exit code {process.exitcode})")
                continue
            kind, _, *payload = message
            if kind != "improve":
                running.pop(receive)
                receive.close()
            reason = on_message(index, kind, payload)
            if reason:
                return reason
        refresh()
    return ""


def on_message(got: Gathered, verdict: str) -> Callable[[int, str, list[Any]], str]:
    """:func:`gather`'s handler for ``got``: better boards offered, failures noted, ``verdict`` when a chain's
    result ends every chain."""

    def handle(index: int, kind: str, payload: list[Any]) -> str:
        if kind == "improve":
            got.improved(*payload)
        elif kind == "failed":
            got.failed(index, payload[0])
        elif got.ended(index, payload[0]):
            return verdict
        return ""

    return handle


def stop_chains(running: Running, started: list[Any], got: Gathered, live: Any, grace: float) -> None:
    """End the chains a call started: pass a Ctrl-C on and take their reports for ``grace`` seconds (none when 0:
    a race's losers have nothing to report), then kill every group and reap them."""
    if running and grace > 0:
        for _, process in running.values():
            interrupt_group(process.pid)
        with contextlib.suppress(KeyboardInterrupt):
            gather(running, got, on_message(got, ""), lambda: looked(got, live), clock.now() + grace)
    for process in started:  # every kill first (a chain that reported may still be exiting): side by side
        kill_group(process.pid)
    for process in started:
        if process.pid is not None:
            process.join(timeout=5)
    for receive in running:
        receive.close()
    looked(got, live)


def looked(got: Gathered, live: Any) -> None:
    """Take the chains' live counts from the shared array and refresh the live line."""
    for index, count in enumerate(live):
        got.looked(index, int(count))
    got.show()


# ---------------------------------------------------------------------------------------------------------------
# On a Dask cluster


def chain_task(backend: Backend, puzzle: Puzzle, task: Task, index: int, wall_deadline: float | None,
               names: tuple[str, str], best: OnCluster, late: float, plan: Plan = seeded) -> Result:
    """Run on a Dask worker: chain ``index`` of ``backend`` (what ``plan`` gives it) in a child process, relaying
    its better boards and live count into the queue ``names[0]``, the client's best board (``best``: score, then
    the board :func:`flat`) into its incumbent and the client's stop (the Event ``names[1]``) on to it as a Ctrl-C; one
    silent ``late`` seconds past the deadline is stopped too. A plan whose ``state`` is on the cluster
    (:class:`~edgematch.solvers.parallel.shared.OnCluster`) gives the child a piped stand-in this task serves.
    Returns the chain's result."""
    from edgematch.solvers.parallel.cluster import distributed

    backend.warm_up(task.question)
    dd = distributed()
    queue, stop = dd.Queue(names[0]), dd.Event(names[1])
    deadline = clock.from_wall(wall_deadline)
    ctx = context()
    incumbent = Incumbent.create(ctx, puzzle.size)
    live = ctx.Array("q", 1, lock=False)
    receive, send = ctx.Pipe(duplex=False)
    served: Served | None = None
    if isinstance(getattr(plan, "state", None), OnCluster):  # the plan's shared state: reached through this task
        served = Served(plan.state, ctx)  # type: ignore[attr-defined]
        served.refresh()
        plan = replace(plan, state=served.piped)  # type: ignore[type-var]
    listened = [receive] if served is None else [receive, served.conn]
    process = ctx.Process(target=_chain, daemon=True, args=(
        send, backend, puzzle, task, index, incumbent.shared, live, 0, deadline, plan))
    published, relayed, told, mirrored = -1, 0.0, 0.0, 0.0
    stop_by: float | None = None  # once the chain is told to stop: when it is killed
    try:
        start(process)
        adopt(process.pid)
        send.close()
        while True:
            now = clock.now()
            if stop_by is None and deadline is not None and now >= deadline + late:
                interrupt_group(process.pid)
                stop_by = now + STOP_GRACE
            if stop_by is not None and now >= stop_by:
                return Result(backend.full_name, Status.TIMEOUT, message="the chain did not report in time")
            if stop_by is not None:  # the call is ending: its shared values may be gone (a read would wait)
                listened = [receive]
            ready = wait(listened, POLL_SECONDS)
            if served is not None and served.conn in ready and not served.serve():
                listened = [receive]  # the child is gone: its pipe tells how
            if served is not None and stop_by is None and now - mirrored >= POLL_SECONDS:
                mirrored = now  # (a leader learns within this that another chain asked it to split)
                served.refresh()
            if receive in ready:
                try:
                    kind, _, *payload = receive.recv()
                except (EOFError, OSError):
                    process.join(timeout=1)
                    raise ChildDied(f"chain {index}'s process died (exit code {process.exitcode})") from None
                if kind == "improve":
                    board, score = payload
                    queue.put(["improve", index, flat(board), int(score)])
                    continue
                if kind == "failed":
                    raise payload[0]
                return payload[0]
            if now - relayed >= RELAY_SECONDS:
                relayed = now
                with contextlib.suppress(Exception):  # a scheduler that cannot be asked: the deadline still holds
                    if stop_by is None and stop.is_set():
                        interrupt_group(process.pid)
                        stop_by = now + STOP_GRACE
                    shared = best.values() if stop_by is None else None
                    if shared is not None and shared[0] > published:
                        incumbent.write(unflat(puzzle, shared[1:]), shared[0])
                        published = shared[0]
                if now - told >= 1.0:
                    told = now
                    with contextlib.suppress(Exception):
                        queue.put(["live", index, int(live[0]), 0])
    finally:
        send.close()
        kill_group(process.pid)
        if process.pid is not None:
            process.join(timeout=5)
        receive.close()
        if served is not None:
            served.close()
        with contextlib.suppress(Exception):
            queue.close()  # this task's hold on the queue (the scheduler drops it when nobody holds it)


def worth_starting(deadline: float | None) -> bool:
    """Whether chains started now would search at all: a cluster whose start took the whole time limit gets
    none (they would only start, be stopped and report nothing, past the limit)."""
    return deadline is None or clock.now() < deadline - REPORT_AHEAD


@dataclass
class Relay:
    """A call's chains on a Dask cluster (see the module docstring): their tasks, the queue they report into, the
    board the client shares with them."""

    tasks: Tasks
    puzzle: Puzzle
    got: Gathered
    queue: Any  # a distributed.Queue
    board: OnCluster  # the client's best board: its score, then the board flat

    @classmethod
    def submit(cls, client: Any, kind: str, backend: Backend, puzzle: Puzzle, task: Task, got: Gathered,
               count: int, deadline: float | None, late: float, plan: Plan = seeded) -> Relay:
        """Start ``count`` chains (none when too late: :func:`worth_starting`) of ``backend`` on ``task`` (a plain one:
        one worker, no callbacks) as ``plan`` gives them, each to stop by ``deadline`` (``clock.now()``)
        plus ``late``."""
        tasks = Tasks(client, kind)
        relay = cls(tasks, puzzle, got, tasks.dd.Queue(tasks.name("queue"), client=client),
                    OnCluster.create(tasks.name("board"), [-1], client))
        names = (relay.queue.name, tasks.stop_name)
        wall = clock.to_wall(deadline)
        task = replace(task, deadline=None)  # an instant of this machine's clock: the deadline travels as ``wall``
        for index in range(count if worth_starting(deadline) else 0):
            tasks.submit(index, chain_task, backend, puzzle, task, index, wall, names, relay.board, late, plan)
        return relay

    def share(self, board: Solution, score: int) -> None:
        """Publish the client's best board to every chain."""
        self.board.put([int(score), *flat(board)], self.tasks.client)

    def drain(self) -> None:
        """Take every message the chains have put in the queue: better boards and live counts."""
        try:
            items = self.queue.get(batch=True)
        except Exception:  # noqa: BLE001  (a scheduler gone: what was taken before stays)
            return
        for kind, index, values, score in items:
            if kind == "improve":
                self.got.improved(unflat(self.puzzle, values), score)
            else:
                self.got.looked(index, int(values))

    def collect(self, verdict: str, until: float | None) -> str:
        """Take the chains' results until each has ended (``""``), one ended every chain (``verdict``) or
        ``until`` passes (:data:`TIME_LIMIT`); the queue is drained before each result (a chain's last messages
        went in before it returned). A chain lost on the cluster is noted in ``got.lost``; one that raised a
        project error in ``got.failed``."""

        def on_result(index: Hashable, result: Result) -> str:
            self.drain()
            return verdict if self.got.ended(int(index), result) else ""  # type: ignore[call-overload]

        def lost(index: Hashable, error: BaseException | None) -> None:
            if isinstance(error, EdgematchError):
                self.got.failed(int(index), error)  # type: ignore[call-overload]
            else:
                self.got.lost.append(f"chain {index} was lost on the cluster"
                                     + (f" ({type(error).__name__}: {error})" if error is not None else ""))

        def refresh() -> None:
            self.drain()
            self.got.show()

        return self.tasks.collect(on_result, lost, until, refresh, POLL_SECONDS)

    def close(self, wait: bool, note: bool) -> None:
        """Stop the chains: set the stop event, take the last reports for :data:`COLLECT_SECONDS` when ``wait``,
        cancel the rest (noted as lost when ``note``) and drop the queue and the board."""
        self.tasks.stop()  # running chains see it within RELAY_SECONDS and report, or are killed by their task
        if wait and self.tasks.pending:
            with contextlib.suppress(KeyboardInterrupt):
                self.collect("", clock.now() + COLLECT_SECONDS + RELAY_SECONDS)
        with contextlib.suppress(KeyboardInterrupt):
            self.drain()
        left = self.tasks.cancel()
        if note:
            self.got.lost.extend(f"chain {index} did not report" for index in left)
        with contextlib.suppress(Exception):
            self.board.delete(self.tasks.client)
        with contextlib.suppress(Exception):
            self.queue.close()
