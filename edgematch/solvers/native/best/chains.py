"""``best`` on several cores and on a Dask cluster: independent chains that share the best board (issue 23,
part 3).

A *chain* is the native ``best`` search exactly as one process runs it (the beam above 25 free cells, else the
depth-first search), with seed ``seed + i`` for chain ``i``: chain 0 keeps the caller's seed, so one chain is
the single-process run. Chains share one thing, the *incumbent* (the best board any of them has found), which
each reads through ``task.incumbent`` (a search may continue from it when it beats its own).

- ``workers=N`` (:func:`run_chains`): N forked children, each in its own process group. A chain sends every
  better board to the parent over its pipe; the parent keeps the best, hands each board better than all before
  to ``task.on_improve`` at once (so ``--save`` writes it at once) and publishes it in an :class:`Incumbent`,
  memory shared with every chain and read without a lock.
- ``cluster`` (:func:`run_cluster_chains`): one chain per worker thread of the cluster, each a Dask task
  (:func:`chain_task`) that runs its chain in a child process as above and relays: better boards into a
  ``distributed.Queue`` the client drains every :data:`POLL_SECONDS`; the client's best board (a
  ``distributed.Variable`` it sets on every improvement) into the child's incumbent, and the client's stop
  ``Event`` (Ctrl-C) on to the child as a Ctrl-C, both looked at every :data:`RELAY_SECONDS`.

The result is the best board of all chains, the history of the global improvements, the counters of every
chain summed (states, beams, nodes, ...) with each chain's own score and rate (``chain0_score``,
``chain0_states_per_s``, ...), and status solved when a chain proved its board the maximum (a full solution).

Limits and faults: every chain gets the call's deadline, less :data:`REPORT_AHEAD` to report; the parent waits
:data:`LATE_SECONDS` past it for the chains' last words, then passes a Ctrl-C on, waits :data:`STOP_GRACE` and
kills what is left (it returns within about a second of the limit). Ctrl-C does the same at once and the call
ends ``interrupted`` with the best board. A chain that dies (``kill -9``) loses nothing it had sent; the others
go on and the message says so. Chains die with their parent (``PR_SET_PDEATHSIG``); no process outlives the call.
On a cluster a killed worker's task runs again elsewhere (Dask's ``allowed-failures``) and starts its chain over;
the boards it had sent are the client's already, and the local cluster is closed with the call.
"""

from __future__ import annotations

import contextlib
import signal
import time
import uuid
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field, replace
from multiprocessing.connection import wait
from typing import Any

from edgematch.core.checker import check_admissible
from edgematch.core.model import Puzzle, Solution
from edgematch.errors import EdgematchError, PuzzleError, UsageError
from edgematch.solvers.base import Backend, Result, Status, Task, Timings, whole
from edgematch.solvers.native.compiled import ensure_compiled
from edgematch.solvers.processes import (
    INTERRUPTED,
    TIME_LIMIT,
    ChildDied,
    adopt,
    context,
    interrupt_group,
    kill_group,
    own_group,
    start,
)

REPORT_AHEAD = 0.1  # chains stop this much before the limit: their last report and exit take time too
LATE_SECONDS = 0.4  # past the limit, how long the parent waits for the chains' last reports
STOP_GRACE = 0.3  # after a Ctrl-C is passed on, for chains to report; then they are killed
POLL_SECONDS = 0.1  # how often the parent (or the cluster's client) updates the live line and looks around
RELAY_SECONDS = 0.5  # on a cluster: how often a task reads the client's best board and stop event
SUMMED = ("states", "children", "beams", "nodes", "restarts")  # counters of the chains that add up
STAGES = ("beam_score", "repair_gain", "improved_by_beam", "improved_by_repair", "adopted", "tail_beams",
          "repair_moves")  # the beam-and-repair search's figures, kept per chain
RATES = ("states_per_s", "nodes_per_s")  # rates that add up over chains running side by side


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


@contextlib.contextmanager
def _ctrl_c_held() -> Iterator[None]:
    """Ctrl-C held while a message goes out, so it goes out whole (a Ctrl-C arriving meanwhile is taken after)."""
    old = signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT})
    try:
        yield
    finally:
        signal.pthread_sigmask(signal.SIG_SETMASK, old)


def chain_seed(task: Task) -> int:
    """The caller's seed (option ``seed``, default 0): chain ``i`` runs with ``seed + i``."""
    return whole(task.options.get("seed", 0), "seed")


# chain 1 of a first-solution race, when the caller names no order: the plain depth-first search in this fill order
SECOND_ORDER = "band2"
RESTARTS_ONLY = ("seed", "unit", "keep")  # the restarts' options, which the plain depth-first search has not
RACE_ONLY = ("handover",)  # the race's own options, which no chain's search takes


def chain_plan(task: Task, index: int) -> tuple[str | None, dict]:
    """What chain ``index`` runs: the native variant (None: the caller's) and its options, the caller's with seed
    ``seed + index``. For a first solution the chains differ in more than their seed. Chain 1, when the caller
    names no order (nor ``keep``), is the plain depth-first search (``native:dfs``) in another fill order,
    :data:`SECOND_ORDER`, the rarest colours first: where a solution lies in one order says little about where
    it lies in another, so it is a second draw at full speed (benchmarks/README.md, "Racing a second fill
    order"). Later chains (and chain 1 when the order is given) restart only (``keep=off``): the search in the
    tables' own order is chain 0's, and repeating it beside every other chain's restarts only halves their speed
    (framed 7x7 c7 seeds 1-5: 2 chains' winners took 286 M nodes in all with it, 214 M without)."""
    given = {k: v for k, v in task.options.items() if k not in RACE_ONLY}
    options = {**given, "seed": chain_seed(task) + index}
    if task.question != "first" or index == 0:
        return None, options
    if index == 1 and str(task.options.get("order", "auto")) == "auto" and "keep" not in task.options:
        plain = {k: v for k, v in given.items() if k not in RESTARTS_ONLY}
        return "dfs", {**plain, "order": SECOND_ORDER, "values": given.get("values", "rare")}
    return None, options if "keep" in task.options else {**options, "keep": "off"}


def chain_runner(backend: Backend, task: Task, index: int) -> tuple[Backend, dict]:
    """The backend chain ``index`` runs (``backend``, or its sibling variant :func:`chain_plan` names) and its
    options."""
    sub, options = chain_plan(task, index)
    return (backend if sub is None else type(backend)(sub)), options


Plan = Callable[[Backend, Task, int], tuple[Any, dict]]  # what chain i runs: a runner (run, checked_options), options


def _chain(send: Any, backend: Backend, puzzle: Puzzle, task: Task, index: int, shared: Any, live: Any,
           slot: int, deadline: float | None, plan: Plan = chain_runner) -> None:
    """One chain, in a child process leading its own group: what ``plan`` says chain ``index`` runs (by default
    the single-process search with seed ``seed + index``), sending ``("improve", index, board, score)`` for every
    better board and ``("done", index, result)`` (or ``("failed", index, error)``) at the end; its live count goes
    to ``live[slot]``. Ctrl-C (from its parent only) stops the search, which reports; it is taken even where the
    parent ignores it (a Dask worker of a local cluster does, and a fork inherits that)."""
    def improve(board: Solution, score: int) -> None:
        with _ctrl_c_held():
            send.send(("improve", index, board, score))

    def progress(info: dict[str, float]) -> None:
        live[slot] = int(info.get("nodes", 0))

    message: tuple[str, int, Any]
    try:
        try:  # a stop may come as soon as Ctrl-C is taken (a chain started past the deadline): setup included
            signal.signal(signal.SIGINT, signal.default_int_handler)
            own_group()
            if task.cluster is None and task.workers > 1:  # the chains of one machine share its memory bound
                from edgematch.solvers.native.best import beam

                beam.MEMORY_CAP //= task.workers
            left = None if deadline is None else max(0.01, deadline - time.monotonic() - REPORT_AHEAD)
            runner, options = plan(backend, task, index)
            mine = replace(task, workers=1, cluster=None, time_limit=left, on_improve=improve, progress=progress,
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
class _Gathered:
    """What the parent (or the cluster's client) holds: the best board, its history, each chain's last word."""

    task: Task
    began: float
    publish: Callable[[Solution, int], None] | None = None
    board: Solution | None = None
    score: int = -1
    history: list[tuple[float, int]] = field(default_factory=list)
    finals: dict[int, Result] = field(default_factory=dict)
    lost: list[str] = field(default_factory=list)  # why each chain that ended without a result did
    usage: UsageError | None = None  # a chain's usage error (every chain meets it): raised to the caller
    live: dict[int, int] = field(default_factory=dict)  # each chain's live count (states or nodes)

    def offer(self, board: Solution, score: int) -> None:
        """A chain's better board: kept, published and passed on when it beats every board before."""
        if score <= self.score:
            return
        self.board, self.score = board, score
        self.history.append((time.monotonic() - self.began, score))
        if self.task.on_improve is not None:  # first: the caller saves it (sharing it on a cluster takes a round trip)
            self.task.on_improve(board, score)
        if self.publish is not None:
            self.publish(board, score)

    def ended(self, index: int, result: Result) -> bool:
        """A chain's result; True when it proved its board the maximum (the other chains may stop)."""
        self.finals[index] = result
        if result.solution is not None and result.score is not None:
            self.offer(result.solution, result.score)
        return result.status is Status.SOLVED

    def failed(self, index: int, error: BaseException) -> None:
        if isinstance(error, UsageError):
            self.usage = self.usage or error
        self.lost.append(f"chain {index} failed: {error}")

    def show(self) -> None:
        if self.task.progress is not None:
            self.task.progress({"score": self.score, "nodes": sum(self.live.values()),
                                "elapsed": time.monotonic() - self.began})


def run_chains(backend: Backend, puzzle: Puzzle, task: Task) -> Result:
    """``best`` with ``task.workers`` chains in as many processes on this machine (see the module docstring)."""
    load = time.monotonic()
    ensure_compiled()  # before the clock starts and the fork: loading is never charged to the time limit
    began = time.monotonic()
    load = began - load
    deadline = None if task.time_limit is None else began + task.time_limit
    ctx = context()
    incumbent = Incumbent.create(ctx, puzzle.size)
    live = ctx.Array("q", task.workers, lock=False)
    got = _Gathered(task, began, incumbent.write)
    running: Running = {}
    started: list[Any] = []
    reason = ""
    try:
        spawn(ctx, task.workers, lambda index, send: (
            send, backend, puzzle, task, index, incumbent.shared, live, index, deadline), running, started)
        reason = _gather(running, got, live, None if deadline is None else deadline + LATE_SECONDS)
    except KeyboardInterrupt:
        reason = INTERRUPTED
    finally:
        if running:  # pass a Ctrl-C on: each chain reports what it has, then whatever is left is killed
            for _, process in running.values():
                interrupt_group(process.pid)
            with contextlib.suppress(KeyboardInterrupt):
                _gather(running, got, live, time.monotonic() + STOP_GRACE)
        for process in started:  # every kill first (a chain that reported may still be exiting): side by side
            kill_group(process.pid)
        for process in started:
            if process.pid is not None:
                process.join(timeout=5)
        for receive in running:
            receive.close()
    if got.usage is not None:  # every chain has the same options: one process would have raised it too
        raise got.usage
    stopped = reason or (TIME_LIMIT if deadline is not None and time.monotonic() >= deadline - REPORT_AHEAD else "")
    result = merged(backend, puzzle, task, got, stopped, time.monotonic() - began, task.workers)
    result.counters["load_seconds"] = load  # the parent's, before the fork (the chains' own are 0)
    return result


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
        now = time.monotonic()
        if until is not None and now >= until:
            return TIME_LIMIT
        ready = wait(list(running), timeout=POLL_SECONDS if until is None else min(POLL_SECONDS, until - now))
        for receive in ready:
            index, process = running[receive]
            try:
                kind, _, *payload = receive.recv()
            except (EOFError, OSError):
                running.pop(receive)
                receive.close()
                process.join(timeout=1)
                got.lost.append(f"chain {index} died (exit code {process.exitcode})")
                continue
            if kind != "improve":
                running.pop(receive)
                receive.close()
            reason = on_message(index, kind, payload)
            if reason:
                return reason
        refresh()
    return ""


def _gather(running: Running, got: _Gathered, live: Any, until: float | None) -> str:
    """:func:`gather` for best: better boards offered as they come; ``"proven"`` when a chain proved its board
    the maximum."""

    def on_message(index: int, kind: str, payload: list[Any]) -> str:
        if kind == "improve":
            got.offer(*payload)
        elif kind == "failed":
            got.failed(index, payload[0])
        elif got.ended(index, payload[0]):
            return "proven"
        return ""

    def refresh() -> None:
        got.live = dict(enumerate(live))
        got.show()

    return gather(running, got, on_message, refresh, until)


def merged(backend: Backend, puzzle: Puzzle, task: Task, got: _Gathered, stopped: str, seconds: float,
           chains: int) -> Result:
    """One result for the ``chains`` chains: the best board, the global history, counters summed and per chain."""
    finals = [got.finals[i] for i in sorted(got.finals)]
    proven = any(r.status is Status.SOLVED for r in finals) or (got.board is not None
                                                                 and got.score == puzzle.seam_count)
    unsat = [r for r in finals if r.status is Status.UNSAT]
    if got.board is not None:
        status = Status.SOLVED if proven else Status.TIMEOUT
    elif unsat:
        status = Status.UNSAT
    else:  # no board at all: an error when every chain was lost, else stopped before the first board
        status = Status.ERROR if got.lost and not finals else Status.TIMEOUT
    counters: dict[str, Any] = {}
    for key in (*SUMMED, *RATES):
        values = [r.counters[key] for r in finals if isinstance(r.counters.get(key), int | float)]
        if values:
            counters[key] = sum(values)
    for i in range(chains):
        c = got.finals[i].counters if i in got.finals else {}
        score = got.finals[i].score if i in got.finals else None
        if score is not None:
            counters[f"chain{i}_score"] = score
        for key in ("states", "nodes", *RATES, *STAGES):
            if isinstance(c.get(key), int | float):
                counters[f"chain{i}_{key}"] = c[key]
    beams = [r.counters["beam_score"] for r in finals if isinstance(r.counters.get("beam_score"), int | float)]
    if beams and got.board is not None:  # what the beams of all chains reached, and what repair added to it
        counters["beam_score"] = max(beams)
        counters["repair_gain"] = max(0, got.score - max(beams))
    counters["chains"] = chains
    if got.lost:
        counters["chains_lost"] = len(got.lost)
    first = finals[0].options if finals else {}
    seed = chain_seed(task)
    last = seed + chains - 1
    options = {**first, "seed": seed, "seeds": f"{seed}-{last}" if last > seed else str(seed)}
    if task.cluster is None:
        options["workers"] = task.workers
    else:
        from edgematch.solvers.cluster import describe

        options["cluster"] = describe(task.cluster)
    if stopped == INTERRUPTED:
        message = INTERRUPTED  # exactly: the caller raises Interrupted on it
    else:
        word = "" if stopped in ("", "proven") else stopped
        notes = [f"{lost}; the boards it had sent are kept" for lost in got.lost]
        message = "; ".join(m for m in (word, *(r.message for r in unsat[:1]), *notes) if m)
    return Result(
        backend.full_name, status, [got.board] if got.board is not None else [],
        score=got.score if got.board is not None else None, max_score=puzzle.seam_count, history=got.history,
        timings=Timings(solve=seconds), counters=counters, options=options, message=message)


# ---------------------------------------------------------------------------------------------------------------
# On a Dask cluster


def chain_task(sub: str | None, puzzle: Puzzle, task: Task, index: int, wall_deadline: float | None,
               names: tuple[str, str, str]) -> Result:
    """Run on a Dask worker: chain ``index`` in a child process, relaying its better boards into the queue
    ``names[0]``, the client's best board (the Variable ``names[1]``) into its incumbent and the client's stop
    (the Event ``names[2]``) on to it as a Ctrl-C. Returns the chain's result."""
    from edgematch.solvers.cluster import distributed
    from edgematch.solvers.native import NativeBackend

    ensure_compiled()
    dd = distributed()
    queue, shared, stop = dd.Queue(names[0]), dd.Variable(names[1]), dd.Event(names[2])
    deadline = None if wall_deadline is None else time.monotonic() + (wall_deadline - time.time())
    ctx = context()
    incumbent = Incumbent.create(ctx, puzzle.size)
    live = ctx.Array("q", 1, lock=False)
    receive, send = ctx.Pipe(duplex=False)
    backend = NativeBackend(sub)
    process = ctx.Process(target=_chain, daemon=True, args=(
        send, backend, puzzle, task, index, incumbent.shared, live, 0, deadline))
    published, looked, told = -1, 0.0, 0.0
    stop_by: float | None = None  # once the chain is told to stop: when it is killed
    try:
        start(process)
        adopt(process.pid)
        send.close()
        while True:
            now = time.monotonic()
            if stop_by is None and deadline is not None and now >= deadline + LATE_SECONDS:
                interrupt_group(process.pid)
                stop_by = now + STOP_GRACE
            if stop_by is not None and now >= stop_by:
                return Result(backend.full_name, Status.TIMEOUT, message="the chain did not report in time")
            if receive.poll(POLL_SECONDS):
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
            if now - looked >= RELAY_SECONDS:
                looked = now
                with contextlib.suppress(Exception):  # a scheduler that cannot be asked: the deadline still holds
                    if stop_by is None and stop.is_set():
                        interrupt_group(process.pid)
                        stop_by = now + STOP_GRACE
                    score, values = shared.get(timeout=RELAY_SECONDS)
                    if score > published:
                        incumbent.write(unflat(puzzle, values), score)
                        published = score
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
        with contextlib.suppress(Exception):
            queue.close()  # this task's hold on the queue (the scheduler drops it when nobody holds it)


def in_time(deadline: float | None) -> bool:
    """Whether chains started now would search at all: a cluster whose start took the whole time limit gets
    none (they would only start, be stopped and report nothing, past the limit)."""
    return deadline is None or time.monotonic() < deadline - REPORT_AHEAD


COLLECT_SECONDS = 1.0  # on a cluster, once stopped: how long the client waits for the chains' last reports
RETRIES = 1  # a task that raises runs once more (a killed worker's task is rescheduled by the scheduler)


def run_cluster_chains(backend: Backend, puzzle: Puzzle, task: Task) -> Result:
    """``best`` with one chain per worker thread of ``task.cluster`` (see the module docstring). The time limit
    counts from when the cluster is ready: a local cluster's start and close are reported apart (counters
    ``cluster_start_seconds``, ``cluster_close_seconds``), as with a race and a count's parts."""
    from edgematch.solvers.cluster import connected, distributed, threads

    reason = ""
    connecting = time.monotonic()
    with connected(task.cluster) as client:
        began = time.monotonic()
        deadline = None if task.time_limit is None else began + task.time_limit
        got = _Gathered(task, began)
        dd = distributed()
        run = uuid.uuid4().hex[:12]
        names = (f"edgematch-best-{run}", f"edgematch-best-board-{run}", f"edgematch-best-stop-{run}")
        queue = dd.Queue(names[0], client=client)
        shared = dd.Variable(names[1], client=client)
        shared.set([-1, []])
        stop = dd.Event(names[2], client=client)
        got.publish = lambda board, score: shared.set([int(score), flat(board)])
        plain = replace(task, progress=None, on_improve=None, incumbent=None, cluster=None, workers=1)
        wall = None if deadline is None else time.time() + (deadline - time.monotonic())
        chains = threads(client)
        pending = {client.submit(chain_task, getattr(backend, "sub", None), puzzle, plain, i, wall, names,
                                 key=f"edgematch-chain-{run}-{i}", pure=False, retries=RETRIES): i
                   for i in range(chains if in_time(deadline) else 0)}
        try:
            reason = _relayed(pending, queue, got, puzzle, None if deadline is None else deadline + LATE_SECONDS)
        except KeyboardInterrupt:
            reason = INTERRUPTED
        finally:
            with contextlib.suppress(Exception):
                stop.set()  # the running chains see it within RELAY_SECONDS and report
            if pending:
                with contextlib.suppress(KeyboardInterrupt):
                    _relayed(pending, queue, got, puzzle, time.monotonic() + COLLECT_SECONDS + RELAY_SECONDS)
            with contextlib.suppress(KeyboardInterrupt):
                _drain(queue, got, puzzle)
            if pending:
                with contextlib.suppress(Exception):
                    client.cancel(list(pending))
                got.lost.extend(f"chain {i} did not report" for i in pending.values() if reason != INTERRUPTED)
            with contextlib.suppress(Exception):
                shared.delete()
            with contextlib.suppress(Exception):
                queue.close()
        ended = time.monotonic()
    if got.usage is not None:  # every chain has the same options: one process would have raised it too
        raise got.usage
    stopped = reason or (TIME_LIMIT if deadline is not None and ended >= deadline - REPORT_AHEAD else "")
    result = merged(backend, puzzle, task, got, stopped, ended - began, chains)
    result.counters.update(cluster_start_seconds=began - connecting, cluster_close_seconds=time.monotonic() - ended)
    return result


def _drain(queue: Any, got: _Gathered, puzzle: Puzzle) -> None:
    """Take every message the chains have put in the queue: better boards and live counts."""
    try:
        items = queue.get(batch=True)
    except Exception:  # noqa: BLE001  (a scheduler gone: what was taken before stays)
        return
    for kind, index, values, score in items:
        if kind == "improve":
            got.offer(unflat(puzzle, values), score)
        else:
            got.live[index] = values


def relay(pending: dict[Any, int], got: Any, drain: Callable[[], None], verdict: str, until: float | None) -> str:
    """Take the chains' Dask results (``pending``: future -> chain) until each has ended (``""``), one ended
    the whole search (``got.ended`` true: ``verdict``) or ``until`` passes (:data:`TIME_LIMIT`); ``drain`` takes
    what the chains put in their queue, before each round and before each result (its last messages went in
    before it returned). A chain lost on the cluster is noted in ``got.lost``; one that raised a project error
    in ``got.failed``."""
    while pending:
        drain()
        for future in [f for f in pending if f.done()]:
            index = pending.pop(future)
            if future.status != "finished":
                error = future.exception() if future.status == "error" else None
                if isinstance(error, EdgematchError):
                    got.failed(index, error)
                else:
                    got.lost.append(f"chain {index} was lost on the cluster"
                                    + (f" ({type(error).__name__}: {error})" if error is not None else ""))
                continue
            drain()
            if got.ended(index, future.result()):
                return verdict
        got.show()
        now = time.monotonic()
        if until is not None and now >= until:
            return TIME_LIMIT
        if pending:
            time.sleep(POLL_SECONDS if until is None else max(0.0, min(POLL_SECONDS, until - now)))
    return ""


def _relayed(pending: dict[Any, int], queue: Any, got: _Gathered, puzzle: Puzzle, until: float | None) -> str:
    """:func:`relay` for best: better boards taken from the queue; ``"proven"`` when a chain proved its board
    the maximum."""
    return relay(pending, got, lambda: _drain(queue, got, puzzle), "proven", until)
