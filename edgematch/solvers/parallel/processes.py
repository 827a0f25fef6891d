"""Child processes that cannot outlive their purpose: forked with the libraries already loaded, and killed by
the kernel if the process that started them dies (Linux ``PR_SET_PDEATHSIG``).

Two kinds of child:
- a *worker* (:func:`worker_child`) stays in its parent's process group and ignores Ctrl-C: the parent
  catches the interrupt, stops the worker and keeps what it had already sent (:func:`stream`);
- a *group leader* (:func:`own_group`) leads a new process group, so stopping it stops whatever it started
  (:func:`kill_group`); a terminal's Ctrl-C does not reach it, its parent passes one on (:func:`interrupt_group`).

Children are forked with Ctrl-C held (:func:`ctrl_c_held`), so an interrupt in the instant of a fork reaches the
parent right after it, never a child that has not yet decided how to take it. ``PR_SET_PDEATHSIG`` fires when
the *thread* that forked the child ends, so every child here is started, and stopped, by the call that needs it.
"""

from __future__ import annotations

import contextlib
import multiprocessing as mp
import os
import signal
import sys
import threading
from collections import deque
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from multiprocessing.connection import wait
from typing import Any

from edgematch import clock
from edgematch.errors import BackendError, EdgematchError
from edgematch.solvers.base import INTERRUPTED, TIME_LIMIT

STOP_POLL_SECONDS = 0.1  # stream with a stop question: how often it is asked


class ChildDied(BackendError):
    """A child process died, or raised, before it finished (names the exit code or the exception)."""


def usable_cores() -> int:
    """Cores this process may run on (its CPU affinity where the OS tells it)."""
    return len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count() or 1


def context() -> Any:
    """Fork where available: children start with the parent's imports and compiled code."""
    return mp.get_context("fork") if "fork" in mp.get_all_start_methods() else mp.get_context("spawn")


@contextlib.contextmanager
def sigint(handler: Any) -> Iterator[None]:
    """Ctrl-C taken by ``handler`` (a function, or ``signal.SIG_IGN``) while the block runs, the previous
    handler after; in the main thread only (Python sets signal handlers nowhere else: elsewhere a no-op)."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    previous = signal.signal(signal.SIGINT, handler)
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, previous)


@dataclass
class Witness:
    """Whether a Ctrl-C came while :func:`deaf` held it off (set when the block ends)."""

    pressed: bool = False


@contextlib.contextmanager
def deaf() -> Iterator[Witness]:
    """Ignore Ctrl-C while the block runs, so processes it starts (through fork and exec: an ignored signal stays
    ignored) are deaf to the terminal's, yet see whether one came: a *witness* forked first, in this process
    group, with Ctrl-C's default action, dies of it. ``witness.pressed`` says so once the block has ended;
    the caller then stops as if interrupted. In the main thread only (elsewhere nothing is ignored)."""
    witness = Witness()
    if threading.current_thread() is not threading.main_thread() or not hasattr(os, "fork"):
        yield witness
        return
    with ctrl_c_held():
        pid = os.fork()
        if pid == 0:  # pragma: no cover - the witness itself: waits for a Ctrl-C or its parent's kill
            try:
                signal.signal(signal.SIGINT, signal.SIG_DFL)
                _release_sigint()
                die_with_parent()
                while True:
                    signal.pause()
            finally:
                os._exit(0)
    try:
        with sigint(signal.SIG_IGN):
            yield witness
    finally:
        with contextlib.suppress(OSError):
            done, status = os.waitpid(pid, os.WNOHANG)
            witness.pressed = done == pid and os.WIFSIGNALED(status) and os.WTERMSIG(status) == signal.SIGINT
            if done != pid:
                os.kill(pid, signal.SIGKILL)
                os.waitpid(pid, 0)


@contextlib.contextmanager
def ctrl_c_held() -> Iterator[None]:
    """Hold Ctrl-C while the block runs; one that arrives meanwhile is taken as soon as it ends. Around starting
    children: a child starts with it blocked and decides how to take it (:func:`worker_child`, :func:`own_group`);
    around sending a message: it goes out whole."""
    if not hasattr(signal, "pthread_sigmask"):
        yield
        return
    old = signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT})
    try:
        yield
    finally:
        signal.pthread_sigmask(signal.SIG_SETMASK, old)


def start(process: Any) -> None:
    """Start a child under :func:`ctrl_c_held`. In a daemonic process (a ``multiprocessing.Pool`` worker), which
    multiprocessing forbids children because it may be stopped without cleaning up, this is allowed on
    Linux: every child here dies with its parent (``PR_SET_PDEATHSIG``), so nothing is left behind."""
    config = mp.current_process()._config  # noqa: SLF001  (where multiprocessing keeps the daemon flag)
    lift = sys.platform.startswith("linux") and config.get("daemon", False)
    if lift:
        config["daemon"] = False
    try:
        with ctrl_c_held():
            process.start()
    finally:
        if lift:
            config["daemon"] = True


def _release_sigint() -> None:
    if hasattr(signal, "pthread_sigmask"):
        signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGINT})


def die_with_parent() -> None:
    """Have the kernel kill this process when its parent dies (Linux; elsewhere a no-op). A parent that died
    before the request took hold is caught too: then this process exits at once."""
    with contextlib.suppress(OSError, AttributeError):
        import ctypes

        ctypes.CDLL(None, use_errno=True).prctl(1, signal.SIGKILL)  # 1 = PR_SET_PDEATHSIG
    parent = mp.parent_process()
    if parent is not None and parent.pid is not None and os.getppid() != parent.pid:
        os._exit(1)


def worker_child() -> None:
    """Call first thing in a worker child: ignore Ctrl-C (the parent handles it) and die with the parent.

    Ctrl-C stays *blocked* here (the child starts with it blocked, :func:`ctrl_c_held`), not only ignored: PySAT's
    ``solve`` installs a handler of its own for the length of the call, whatever was set before, and raised
    ``pysolvers.error: Caught keyboard interrupt`` in the cube workers, each printing a traceback before the
    parent's kill reached it. A blocked Ctrl-C is never delivered, and an ignored one still pending when the
    handler goes back to ignoring it is dropped. (A child this one starts with :func:`own_group` unblocks it.)"""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    if hasattr(signal, "pthread_sigmask"):
        signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT})
    die_with_parent()


def own_group() -> None:
    """Call first thing in a child: lead a new process group, and die with the parent. Ctrl-C (which only its
    parent sends it, :func:`interrupt_group`) raises ``KeyboardInterrupt`` as usual."""
    with contextlib.suppress(OSError):  # the parent may have made the group already (adopt)
        os.setpgid(0, 0)
    die_with_parent()
    _release_sigint()


def adopt(pid: int | None) -> None:
    """Call in the parent right after starting a child that calls :func:`own_group`: the group then exists
    before the child runs a line, so an early :func:`kill_group` cannot miss it."""
    if pid is not None:
        with contextlib.suppress(OSError):
            os.setpgid(pid, pid)


def interrupt_group(pid: int | None) -> None:
    """Pass Ctrl-C on to the process group led by ``pid`` (its leader stops and reports what it found)."""
    if pid is not None:
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(pid, signal.SIGINT)


def kill_group(pid: int | None) -> None:
    """Kill the process group led by ``pid`` (the child and everything it started); gone already is fine."""
    if pid is None:
        return
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(pid, signal.SIGKILL)
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.kill(pid, signal.SIGKILL)  # in case it had not made its group yet


_END = "end"
_FAILED = "failed"


def _streaming(target: Callable[..., None], send: Any, args: tuple) -> None:
    worker_child()
    try:
        target(send.send, *args)
        send.send((_END, None))
    except BaseException as exc:  # noqa: BLE001  (reported to the parent, which decides)
        name, text = type(exc).__name__, str(exc)
        ours = exc if isinstance(exc, EdgematchError | MemoryError) else None
        try:
            send.send((_FAILED, (name, text, ours)))
        except Exception:  # noqa: BLE001  (an error that does not pickle: its name and text will do)
            send.send((_FAILED, (name, text, None)))


def stream(target: Callable[..., None], args: tuple, deadline: float | None,
           handle: Callable[[Any], bool | None], should_stop: Callable[[], bool] | None = None) -> str:
    """Run ``target(send, *args)`` in a forked worker child and give each message it sends to ``handle`` (which
    returns True to stop early), until the child returns, ``deadline`` (a ``clock.now()`` instant) passes,
    ``should_stop()`` (asked every :data:`STOP_POLL_SECONDS` when given: a Dask task stops when another found
    the answer) says so, or Ctrl-C. The child is killed before this returns, so nothing it runs (a SAT solver
    deaf to interrupts, a model build) outlives the limit; what it sent is kept. Returns ``""`` (finished),
    ``"stopped"`` (``handle`` or ``should_stop`` said so), :data:`TIME_LIMIT` or :data:`INTERRUPTED`. A child
    that dies or raises before it finishes raises :class:`ChildDied`; an edgematch error or ``MemoryError`` the
    child raised is raised here."""
    ctx = context()
    receive, send = ctx.Pipe(duplex=False)
    process = ctx.Process(target=_streaming, args=(target, send, args), daemon=True)
    try:
        start(process)
        send.close()
        while True:
            left = None if deadline is None else deadline - clock.now()
            if left is not None and left <= 0:
                return TIME_LIMIT
            if should_stop is not None:
                if should_stop():
                    return "stopped"
                left = STOP_POLL_SECONDS if left is None else min(STOP_POLL_SECONDS, left)
            if not receive.poll(left):
                continue  # the deadline is checked at the top
            try:
                kind, payload = receive.recv()
            except EOFError:
                process.join(timeout=1)
                raise ChildDied(f"the solver process died (exit code {process.exitcode})") from None
            if kind == _END:
                return ""
            if kind == _FAILED:
                name, text, ours = payload
                if ours is not None:
                    raise ours
                if name == "KeyboardInterrupt":
                    return INTERRUPTED
                raise ChildDied(f"{name}: {text}")
            if handle((kind, payload)):
                return "stopped"
    except KeyboardInterrupt:
        return INTERRUPTED
    finally:
        send.close()
        if process.pid is not None:
            with contextlib.suppress(ProcessLookupError):
                os.kill(process.pid, signal.SIGKILL)
            process.join(timeout=5)
        receive.close()


# ------------------------------------------------------------------ dealing numbered jobs to workers


LOST = "workers lost"  # every worker died with jobs left: the run could not go on


def dealt(conn: Any) -> Iterator[int]:
    """In a dealt worker: the job numbers its parent deals over ``conn``, until it says ``None`` or closes the
    pipe. The worker answers each with ``conn.send((number, payload))`` before it takes the next."""
    while True:
        try:
            number = conn.recv()
        except EOFError:
            return
        if number is None:
            return
        yield number


def numbered(noun: str, numbers: Iterable[int]) -> str:
    """``noun`` and the 0-based ``numbers`` counted from 1, runs as ranges: ``parts 3, 7-16``."""
    runs: list[list[int]] = []
    for i in sorted(numbers):
        if runs and i == runs[-1][1] + 1:
            runs[-1][1] = i
        else:
            runs.append([i, i])
    text = ", ".join(f"{a + 1}" if a == b else f"{a + 1}-{b + 1}" for a, b in runs)
    return f"{noun}{'s' if len(runs) > 1 or (runs and runs[0][0] != runs[0][1]) else ''} {text}"


DIED: Any = object()  # what :func:`arrivals` gives for a child whose end of the pipe closed: it died, or exited unheard


def arrivals(conns: Iterable[Any], timeout: float | None) -> Iterator[tuple[Any, Any]]:
    """The one way a parent hears its children: wait up to ``timeout`` seconds for any of ``conns`` (the parent's
    ends of their pipes), then each ready one with its message, or :data:`DIED`. Read lazily: a caller that stops
    early leaves the rest in their pipes for its next call."""
    for conn in wait(list(conns), timeout=timeout):
        try:
            message = conn.recv()
        except (EOFError, OSError):  # a duplex pipe is a socket pair: a peer that died with a message unread in
            message = DIED  # its end resets the connection rather than closing it
        yield conn, message


class Flag:
    """A yes/no the parent sets and forked workers read, without a lock. A ``multiprocessing.Event`` has one: a
    worker killed (``kill -9``) inside ``is_set()`` held it for good, and the parent's ``set()`` then waited
    forever."""

    def __init__(self, ctx: Any):
        self._value = ctx.RawValue("b", 0)

    def set(self) -> None:
        self._value.value = 1

    def is_set(self) -> bool:
        return bool(self._value.value)


@dataclass
class Holder:
    """A dealt worker as its parent sees it: its number in messages, its process, the job it holds."""

    slot: int
    process: Any
    holds: int | None = None


@dataclass
class Dealer:
    """Numbered jobs (the parts of a split count, SAT cubes) dealt one at a time to worker processes, each over a
    pipe of its own, so the parent always knows which job each worker holds; the one rule for a dead worker.

    A worker that dies (``kill -9``, the out-of-memory killer, a crash) is noted and the others go on: the job it
    held is dealt again to a live worker, so nothing it held is lost and an exact answer stays exact (a count, a
    proof that every cube is unsatisfiable). Only when every worker has died with jobs left does the run fail
    (:data:`LOST`), and :meth:`words` names the jobs never done. Workers take no shared counter: one killed
    while holding the counter's lock would have stopped every other worker. ``noun`` and ``verb`` word the
    jobs (``part``, ``searching``), ``who`` the workers (``worker``)."""

    jobs: int
    noun: str
    verb: str
    who: str
    workers: dict[Any, Holder] = field(default_factory=dict)  # the parent's end of each live worker's pipe
    fresh: int = 0  # the next job never dealt
    again: deque[int] = field(default_factory=deque)  # jobs a dead worker held, dealt first
    done: set[int] = field(default_factory=set)  # jobs answered
    lost: list[tuple[str, int | None]] = field(default_factory=list)  # each dead worker, and the job it held
    redealt: list[int] = field(default_factory=list)
    dealing: bool = True  # False once the run stops: nothing more is dealt
    on_death: Callable[[int], None] | None = None  # told a dead worker's slot

    def start(self, process: Any, mine: Any, theirs: Any, slot: int) -> None:
        """Start ``process`` (a worker reading ``theirs``, the other end of ``mine``); it waits for its first job
        until :meth:`begin`."""
        self.workers[mine] = Holder(slot, process)
        try:
            start(process)
        finally:
            theirs.close()

    def begin(self) -> None:
        """Deal every started worker its first job: once all are forked, since forking beside busy workers took
        60 ms each on 2 cores."""
        for conn in list(self.workers):
            self.deal(conn)

    def deal(self, conn: Any) -> None:
        """Give the worker at ``conn`` the next job (one a dead worker held first), if any is left and the run
        goes on."""
        worker = self.workers[conn]
        if not self.dealing or worker.holds is not None:
            return
        if self.again:
            number = self.again.popleft()
        elif self.fresh < self.jobs:
            number, self.fresh = self.fresh, self.fresh + 1
        else:
            return
        worker.holds = number
        with contextlib.suppress(OSError):  # it has just died: its end of file comes next, and the job goes again
            conn.send(number)

    def _died(self, conn: Any) -> None:
        worker = self.workers.pop(conn)
        conn.close()
        worker.process.join(timeout=1)
        if self.on_death is not None:
            self.on_death(worker.slot)
        held = worker.holds
        where = "" if held is None else f" {self.verb} {self.noun} {held + 1} of {self.jobs}"
        self.lost.append((f"{self.who} {worker.slot} died (exit code {worker.process.exitcode}){where}", held))
        if held is not None and self.dealing:
            self.again.append(held)
            self.redealt.append(held)
            for other in list(self.workers):
                self.deal(other)

    @property
    def finished(self) -> bool:
        """Every job answered."""
        return len(self.done) == self.jobs

    @property
    def busy(self) -> bool:
        """Some live worker holds a job."""
        return any(w.holds is not None for w in self.workers.values())

    def receive(self, timeout: float | None) -> list[tuple[int, Any]]:
        """Wait up to ``timeout`` seconds for answers; each worker that answered gets its next job (while dealing)
        and each that died is noted, its job dealt again. Returns the new answers as (job, payload)."""
        got: list[tuple[int, Any]] = []
        for conn, message in arrivals(self.workers, timeout):
            if message is DIED:
                self._died(conn)
                continue
            number, payload = message
            self.workers[conn].holds = None
            if number not in self.done:
                self.done.add(number)
                got.append((number, payload))
            self.deal(conn)
        return got

    def close(self) -> None:
        """Stop dealing and kill every worker still running (every kill first: they exit side by side)."""
        self.dealing = False
        for worker in self.workers.values():
            if worker.process.pid is not None:
                with contextlib.suppress(ProcessLookupError):
                    os.kill(worker.process.pid, signal.SIGKILL)
        for conn, worker in self.workers.items():
            if worker.process.pid is not None:
                worker.process.join(timeout=5)
            conn.close()
        self.workers.clear()

    def words(self, stopped: str, undone: str, meaning: str) -> tuple[bool, str]:
        """What the dead workers did to a run that ended with ``stopped``: whether they failed it (every worker
        died with jobs left, :data:`LOST`), and the words for its message, worded as the native race words a dead
        chain: each dead worker and the job it held, and that the others went on (doing that job again), or,
        when none was left, which jobs were never done (``undone``: "searched") and ``meaning``, what that
        means for the answer. ``False, ""`` when no worker died."""
        if not self.lost:
            return False, ""
        if stopped == LOST:
            left = sorted(set(range(self.jobs)) - self.done)
            return True, (f"every {self.who} was lost: {'; '.join(note for note, _ in self.lost)}; "
                          f"{numbered(self.noun, left)} of {self.jobs} not {undone}, so {meaning}")
        return False, "; ".join(f"{note}; the others went on" + (
            f", {self.verb} that {self.noun} again" if held in self.redealt else "") for note, held in self.lost)
