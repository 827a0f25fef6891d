"""Child processes that cannot outlive their purpose: forked with the libraries already loaded, and killed by
the kernel if the process that started them dies (Linux ``PR_SET_PDEATHSIG``).

Two kinds of child:
- a *worker* (:func:`worker_child`) stays in its parent's process group and ignores Ctrl-C: the parent
  catches the interrupt, stops the worker and keeps what it had already sent (:func:`stream`);
- a *group leader* (:func:`own_group`) leads a new process group, so stopping it stops whatever it started
  (:func:`kill_group`); a terminal's Ctrl-C does not reach it, its parent passes one on (:func:`interrupt_group`).

Children are forked with Ctrl-C held (:func:`forking`), so an interrupt in the instant of a fork reaches the
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
import time
from collections.abc import Callable, Iterator
from typing import Any

from edgematch.errors import BackendError, EdgematchError

# how a streamed child ended, besides finishing: the words a Result's message carries
TIME_LIMIT = "time limit"
INTERRUPTED = "interrupted"
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


@contextlib.contextmanager
def forking() -> Iterator[None]:
    """Hold Ctrl-C while starting children: a child starts with it blocked and decides how to take it
    (:func:`worker_child`, :func:`own_group`); the parent gets a held one as soon as the block ends."""
    if not hasattr(signal, "pthread_sigmask"):
        yield
        return
    old = signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT})
    try:
        yield
    finally:
        signal.pthread_sigmask(signal.SIG_SETMASK, old)


def start(process: Any) -> None:
    """Start a child under :func:`forking`. In a daemonic process (a ``multiprocessing.Pool`` worker), which
    multiprocessing forbids children because it may be stopped without cleaning up, this is allowed on
    Linux: every child here dies with its parent (``PR_SET_PDEATHSIG``), so nothing is left behind."""
    config = mp.current_process()._config  # noqa: SLF001  (where multiprocessing keeps the daemon flag)
    lift = sys.platform.startswith("linux") and config.get("daemon", False)
    if lift:
        config["daemon"] = False
    try:
        with forking():
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
    """Call first thing in a worker child: ignore Ctrl-C (the parent handles it) and die with the parent."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    _release_sigint()
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
    returns True to stop early), until the child returns, ``deadline`` (a ``time.monotonic()`` instant) passes,
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
            left = None if deadline is None else deadline - time.monotonic()
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
