"""What the harness measures per run: CPU time and peak resident memory of the run's process tree, a memory
limit on resident memory (not address space), what a run printed, and what auto actually ran."""

import os
import sys
import time

import pytest

from edgematch.bench.runner import MIB, run_one
from edgematch.bench.suite import load_suite
from edgematch.solvers import base
from edgematch.solvers.base import Backend, get_backend

ALLOCATE_MIB = 200


class AllocatingBackend(Backend):
    """Holds ~200 MiB of touched memory (and so spends CPU filling it), then answers as native does."""

    name = "alloc"

    def run(self, puzzle, task):
        block = bytearray(b"\x01") * (ALLOCATE_MIB * MIB)  # written byte by byte: every page resident
        result = get_backend("native").run(puzzle, task)
        result.counters = {**result.counters, "held": len(block)}
        return result


class HoggingBackend(Backend):
    """Allocates 32 MiB at a time up to 3 GiB (far past any limit a test sets), then waits forever."""

    name = "hog"

    def run(self, puzzle, task):
        blocks = []
        for _ in range(96):
            blocks.append(bytearray(b"\x01") * (32 * MIB))
            time.sleep(0.01)
        while True:
            time.sleep(1)


class ChattyBackend(Backend):
    """Writes to stderr from C level and from Python (as solver libraries do), then answers as native does."""

    name = "chatty"

    def run(self, puzzle, task):
        os.write(2, b"c-level solver log line\n")
        print("python warning line", file=sys.stderr)
        return get_backend("native").run(puzzle, task)


@pytest.fixture
def measured(monkeypatch):
    here = __name__
    monkeypatch.setattr(base, "_BUILTIN", {**base._BUILTIN, "alloc": f"{here}:AllocatingBackend",
                                           "hog": f"{here}:HoggingBackend", "chatty": f"{here}:ChattyBackend"})


@pytest.fixture(scope="module")
def instance():
    return load_suite("smoke").instances[0]  # a 3x3 board


def test_cpu_time_and_peak_rss_are_stored_and_plausible(measured, instance):
    record = run_one(instance, "alloc", "first", timeout=20)
    assert (record.termination, record.category) == ("done", "correct"), record
    assert record.peak_rss_mb >= ALLOCATE_MIB, record.peak_rss_mb
    assert record.peak_rss_mb < ALLOCATE_MIB + 1024  # the block plus the forked harness, not a wild figure
    cores = len(os.sched_getaffinity(0))
    assert 0 < record.cpu <= record.wall * cores + 0.5, (record.cpu, record.wall)
    assert record.time <= record.wall


def test_a_memory_limit_of_300_mib_lets_cpsat_solve_a_3x3(instance):
    """RLIMIT_AS at 300 MiB killed CP-SAT here (its threads reserve address space); resident memory is far less.
    A run is forked from the harness, whose resident pages count in the run's figure and limit (the module
    docstring): here the harness is this test process, which the suite has grown to about 300 MiB itself, so
    the limit is 300 MiB above what it holds."""
    import psutil

    harness = int(psutil.Process().memory_info().rss / 2**20)
    record = run_one(instance, "cpsat", "first", timeout=20, memory_mb=300 + harness)
    assert (record.termination, record.category, record.status) == ("done", "correct", "solved"), record
    assert record.peak_rss_mb < 300 + harness


def test_a_run_far_over_its_memory_limit_is_stopped_as_a_memory_out(measured, instance):
    started = time.perf_counter()
    record = run_one(instance, "hog", "first", timeout=30, memory_mb=200)
    assert (record.termination, record.category) == ("memory", "error"), record
    assert time.perf_counter() - started < 20  # stopped at the limit, not at the 30 s cutoff
    assert 200 < record.peak_rss_mb < 3 * 1024  # seen over the limit, stopped long before the 3 GiB it wanted
    assert "memory limit" in record.message


def test_what_a_run_prints_is_stored_with_it(measured, instance, capfd):
    record = run_one(instance, "chatty", "first", timeout=20)
    assert record.category == "correct"
    assert "c-level solver log line" in record.output and "python warning line" in record.output
    printed = capfd.readouterr()
    assert "solver log" not in printed.err + printed.out  # never over the live display


def test_auto_stores_what_it_ran(instance):
    record = run_one(instance, "auto", "first", timeout=20)
    assert record.category == "correct"
    assert record.ran and record.ran == record.counters["chosen"]
    assert record.fingerprint == instance.fingerprint() and len(record.fingerprint) == 16
