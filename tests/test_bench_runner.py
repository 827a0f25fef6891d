"""Isolated runs: real backends are filed correct; rigged ones are stopped, caught or marked wrong."""

import time
from pathlib import Path

import pytest

from edgematch.bench.runner import run_one
from edgematch.bench.suite import load_suite


@pytest.fixture(scope="module")
def instance():
    return load_suite("smoke").instances[0]


@pytest.mark.parametrize("backend", ["native", "cpsat", "cpsat:table", "sat"])
def test_real_backends_are_correct(instance, backend):
    for task in ("first", "count"):
        record = run_one(instance, backend, task, timeout=20)
        assert (record.termination, record.category, record.status) == ("done", "correct", "solved"), record
        assert record.wall >= record.solve > 0 or backend == "native"
    assert record.count and record.distinct


def test_a_hanging_backend_is_stopped_at_the_limit(rigged, instance):
    start = time.perf_counter()
    record = run_one(instance, "hang", "first", timeout=1.0, grace=0.5)
    assert time.perf_counter() - start < 3.0
    assert (record.termination, record.category) == ("timeout", "timeout")


def test_a_wrong_solution_is_marked_wrong(rigged, instance):
    record = run_one(instance, "wrong", "first", timeout=5)
    assert record.category == "wrong" and "invalid solution" in record.message


def test_a_planted_puzzle_called_unsat_is_wrong(rigged, instance):
    record = run_one(instance, "unsat", "first", timeout=5)
    assert record.category == "wrong" and "reported unsat" in record.message


def test_a_crash_is_an_error_not_a_hang(rigged, instance):
    record = run_one(instance, "crash", "first", timeout=5)
    assert (record.termination, record.category) == ("crashed", "error") and "exit code 139" in record.message


def test_an_unknown_backend_is_an_error_run(instance):
    record = run_one(instance, "nope", "first", timeout=5)
    assert record.category == "error" and "unknown backend" in record.message


def test_stopping_a_run_stops_the_processes_it_started(rigged, instance, tmp_path, monkeypatch):
    pid_file = tmp_path / "pid"
    monkeypatch.setenv("RIGGED_PID_FILE", str(pid_file))
    record = run_one(instance, "spawn", "first", timeout=1.0, grace=0.5)
    assert record.termination == "timeout"
    helper = int(pid_file.read_text())
    time.sleep(0.2)
    state = Path(f"/proc/{helper}/stat")
    assert not state.exists() or state.read_text().split()[2] == "Z"  # gone, or a zombie awaiting its parent
