"""Commands run as a terminal runs them, and a readiness signal for "it is searching now" (instead of a sleep).

A command started in a session of its own with SIGINT at its default gets Ctrl-C as a terminal gives it:
``os.killpg(proc.pid, signal.SIGINT)`` reaches the command and every process it started. Whether it has reached
its search is read from the CPU time its child processes have spent: a readiness signal that holds on an idle
core and on a loaded one alike, where a fixed sleep is either too long or too short.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import psutil

ROOT = Path(__file__).resolve().parent.parent
COMMAND = "import sys; from edgematch.cli.main import run; sys.argv = ['edgematch', *sys.argv[1:]]; run()"


def _default_sigint() -> None:
    signal.signal(signal.SIGINT, signal.SIG_DFL)


def start(*args: object, **popen) -> subprocess.Popen:
    """``edgematch ARGS`` in a session of its own with SIGINT at its default (a test runner started in the
    background may ignore it, and children inherit that); text pipes unless ``popen`` says otherwise."""
    options = {"stdout": subprocess.PIPE, "stderr": subprocess.PIPE, "text": True, "cwd": ROOT, **popen}
    return subprocess.Popen([sys.executable, "-c", COMMAND, *map(str, args)], start_new_session=True,
                            preexec_fn=_default_sigint, **options)


def children_cpu(pid: int) -> float:
    """CPU seconds spent by the processes below ``pid`` (alive ones, and the children they have reaped)."""
    spent = 0.0
    try:
        below = psutil.Process(pid).children(recursive=True)
    except psutil.NoSuchProcess:
        return spent
    for child in below:
        try:
            spent += sum(child.cpu_times()[:4])
        except psutil.NoSuchProcess:
            continue
    return spent


def alive(pids: list[int]) -> list[int]:
    """Those of ``pids`` that are live processes (not zombies): one that ends while it is being asked has ended."""
    live = []
    for pid in pids:
        try:
            if psutil.Process(pid).status() != psutil.STATUS_ZOMBIE:
                live.append(pid)
        except psutil.NoSuchProcess:
            continue
    return live


def searching(proc: subprocess.Popen, cpu: float, timeout: float = 90.0) -> None:
    """Wait until the processes ``proc`` started have spent ``cpu`` CPU seconds (into their work), failing if
    ``proc`` ends first or ``timeout`` wall seconds pass."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        assert proc.poll() is None, "the command ended before its workers got going"
        if children_cpu(proc.pid) >= cpu:
            return
        time.sleep(0.05)
    raise AssertionError(f"its workers did not spend {cpu} s of CPU within {timeout} s")


def ctrl_c(proc: subprocess.Popen) -> None:
    """What a terminal's Ctrl-C does: SIGINT to the command's whole process group."""
    os.killpg(proc.pid, signal.SIGINT)
