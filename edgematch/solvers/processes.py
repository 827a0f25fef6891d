"""Child processes that cannot outlive their purpose: forked with the libraries already loaded, leading
their own process group (so stopping one stops whatever it started), and killed by the kernel if the
process that started them dies (Linux ``PR_SET_PDEATHSIG``)."""

from __future__ import annotations

import contextlib
import multiprocessing as mp
import os
import signal
from typing import Any


def usable_cores() -> int:
    """Cores this process may run on (its CPU affinity where the OS tells it)."""
    return len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count() or 1


def context() -> Any:
    """Fork where available: children start with the parent's imports and compiled code."""
    return mp.get_context("fork") if "fork" in mp.get_all_start_methods() else mp.get_context("spawn")


def die_with_parent() -> None:
    """Have the kernel kill this process when its parent dies (Linux; elsewhere a no-op)."""
    with contextlib.suppress(OSError, AttributeError):
        import ctypes

        ctypes.CDLL(None, use_errno=True).prctl(1, signal.SIGKILL)  # 1 = PR_SET_PDEATHSIG


def own_group() -> None:
    """Call first thing in a child: lead a new process group, and die with the parent."""
    with contextlib.suppress(OSError):  # the parent may have made the group already (adopt)
        os.setpgid(0, 0)
    die_with_parent()


def adopt(pid: int | None) -> None:
    """Call in the parent right after starting a child that calls :func:`own_group`: the group then exists
    before the child runs a line, so an early :func:`kill_group` cannot miss it."""
    if pid is not None:
        with contextlib.suppress(OSError):
            os.setpgid(pid, pid)


def kill_group(pid: int | None) -> None:
    """Kill the process group led by ``pid`` (the child and everything it started); gone already is fine."""
    if pid is None:
        return
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(pid, signal.SIGKILL)
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.kill(pid, signal.SIGKILL)  # in case it had not made its group yet
