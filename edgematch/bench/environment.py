"""What a bench ran on: machine (CPU model, cores, frequency governor, load average), Python, package and
solver versions, git commit (stored per session). The load average is taken again after each stretch of
benching (:func:`edgematch.bench.session.run_session`); a report warns when it was above the core count."""

from __future__ import annotations

import os
import platform
import subprocess
from importlib import metadata
from pathlib import Path
from typing import Any

from edgematch.solvers.parallel.processes import usable_cores

# distributions whose versions decide the figures: the project, the solver libraries (the native loops' C
# compiler is recorded apart, as ``c_kernel``)
PACKAGES = ("edgematch", "numpy", "ortools", "python-sat", "psutil")


def cpu_model() -> str:
    """The CPU's model name (from /proc/cpuinfo on Linux, else what platform says)."""
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or platform.machine()


def git_commit(where: Path | None = None) -> str | None:
    """The commit of the checkout edgematch runs from (``+dirty`` with uncommitted changes), if any."""
    where = where or Path(__file__).resolve().parent
    try:
        head = subprocess.run(["git", "rev-parse", "HEAD"], cwd=where, capture_output=True, text=True, timeout=5)
        if head.returncode != 0:
            return None
        dirty = subprocess.run(["git", "status", "--porcelain", "--untracked-files=no"], cwd=where,
                               capture_output=True, text=True, timeout=5)
    except (OSError, subprocess.SubprocessError):
        return None
    return head.stdout.strip() + ("+dirty" if dirty.stdout.strip() else "")


def environment() -> dict[str, Any]:
    """A plain dict (stored as JSON) describing this machine and software."""
    versions = {}
    for name in PACKAGES:
        try:
            versions[name] = metadata.version(name)
        except metadata.PackageNotFoundError:
            versions[name] = None
    return {
        "cpu": cpu_model(),
        "cores": os.cpu_count(),
        "usable_cores": usable_cores(),
        "memory_gb": _memory_gb(),
        "governor": governor(),
        "load_before": load_average(),
        "os": platform.platform(),
        "python": platform.python_version(),
        "implementation": platform.python_implementation(),
        "packages": versions,
        "c_kernel": c_kernel(),
        "commit": git_commit(),
    }


def c_kernel() -> str:
    """The compiler that built the native backend's C library, or why it is not available."""
    from edgematch.solvers.native.kernels import compiler

    return compiler()


def governor() -> str | None:
    """The CPU frequency governor (Linux cpufreq: ``performance``, ``powersave``, ...; the distinct ones
    across cores), or None where it cannot be read (most VMs and containers)."""
    found = set()
    for path in Path("/sys/devices/system/cpu").glob("cpu[0-9]*/cpufreq/scaling_governor"):
        try:
            found.add(path.read_text().strip())
        except OSError:
            continue
    return ", ".join(sorted(found)) or None


def load_average() -> list[float] | None:
    """The 1, 5 and 15 minute load averages (None where the OS does not tell)."""
    try:
        return [round(x, 2) for x in os.getloadavg()]
    except (AttributeError, OSError):
        return None


def _memory_gb() -> float | None:
    try:
        return round(os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES") / 2**30, 1)
    except (ValueError, OSError, AttributeError):
        return None
