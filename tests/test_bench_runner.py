"""Isolated runs: real backends are filed correct; rigged ones are stopped, caught or marked wrong."""

import subprocess
import sys
import time
from dataclasses import replace
from pathlib import Path

import pytest

from edgematch.bench import runner
from edgematch.bench.runner import run_one
from edgematch.bench.session import check_backends
from edgematch.bench.store import Store
from edgematch.bench.suite import load_suite
from edgematch.solvers.base import get_backend


@pytest.fixture(scope="module")
def instance():
    return load_suite("smoke").instances[0]


@pytest.mark.parametrize("backend", ["native", "cpsat", "cpsat:table", "sat"])
def test_real_backends_are_correct(backend):
    # unframed 3x3 seed 2: 1,952 solutions (61 distinct) to count; seed 1's 26,048 took CP-SAT 2 s a count
    instance = load_suite("smoke").instances[1]
    assert instance.key == "unframed/3x3/seed2"
    for task in ("first", "count"):
        get_backend(backend).warm_up(task)  # loaded before forking, as the bench does (check_backends)
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


def test_loading_a_backend_is_not_charged_to_the_run(rigged, instance, monkeypatch):
    """A backend whose first load takes 3 s (a compile at first use) still answers in a 1 s run: the limit and the
    harness's kill count from when the run's call starts (before, the run was killed at 1.5 s while loading)."""
    from tests.rigged import SlowLoadingBackend

    monkeypatch.setattr(SlowLoadingBackend, "loaded", False)
    monkeypatch.setenv("RIGGED_LOAD_SECONDS", "3")
    record = run_one(instance, "slowload", "first", timeout=1.0, grace=0.5)
    assert (record.termination, record.category, record.status) == ("done", "correct", "solved"), record
    assert record.wall >= 3.0 > record.time


def test_a_run_stuck_loading_is_a_set_up_error_not_a_timeout(rigged, instance, monkeypatch):
    from tests.rigged import SlowLoadingBackend

    monkeypatch.setattr(SlowLoadingBackend, "loaded", False)
    monkeypatch.setenv("RIGGED_LOAD_SECONDS", "30")
    monkeypatch.setattr(runner, "SETUP_SECONDS", 1.0)
    record = run_one(instance, "slowload", "first", timeout=5.0, grace=0.5)
    assert (record.termination, record.category) == ("failed", "error"), record
    assert "set-up" in record.message and "loading" in record.message


def test_the_harness_loads_each_backend_for_the_questions_its_runs_ask(rigged, monkeypatch):
    """What the bench's parent loads before forking: native's best-score loops for a best family (their first
    load compiles for seconds, which a forked run paid inside its limit and lost its board to)."""
    from tests.rigged import SlowLoadingBackend

    monkeypatch.setenv("RIGGED_LOAD_SECONDS", "0")  # which questions were loaded is the fact, not how long
    suite = load_suite("smoke")
    families = [replace(i, task="best", backends=("slowload",)) if n == 0 else i
                for n, i in enumerate(suite.instances)]
    SlowLoadingBackend.questions_loaded.clear()
    setup: dict[str, float] = {}
    skipped = check_backends(replace(suite, instances=tuple(families), backends=(*suite.backends, "slowload")), setup)
    assert not skipped and "best" in SlowLoadingBackend.questions_loaded and "slowload" in setup


def test_native_warm_up_loads_every_loop_for_any_question():
    """The seven loops are one C library: warming native up for a first solution leaves nothing to load for
    best (its depth-first, beam and repair loops are typed and ready)."""
    code = ("from edgematch.solvers.base import get_backend\n"
            "from edgematch.solvers.native import compiled, kernels\n"
            "get_backend('native').warm_up('first')\n"
            "assert compiled.ensure_compiled() == 0.0\n"
            "lib = kernels.c_library()\n"
            "assert all(callable(f) for f in (lib.em_best_search, lib.em_beam_expand, lib.em_repair_lns))\n")
    subprocess.run([sys.executable, "-c", code], check=True, timeout=600)


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


def test_the_bench_says_what_loading_cost_and_the_report_keeps_it(rigged, tmp_path, monkeypatch):
    """The loading paid before the runs (a first compile) is named on stderr and in the report's environment,
    apart from every run's time; each run still answers within its 2 s cutoff."""
    from typer.testing import CliRunner

    from edgematch.cli.main import load_commands
    from tests.rigged import SlowLoadingBackend

    monkeypatch.setattr(SlowLoadingBackend, "loaded", False)  # not loaded by an earlier test of this process
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("RIGGED_LOAD_SECONDS", "1.5")
    (tmp_path / "s.toml").write_text('name = "s"\nbackends = ["slowload"]\ntimeout = 2.0\nseeds = [1]\n'
                                     '[[family]]\nname = "f"\nsizes = [3]\nframed = true\nborder_colours = 2\n')
    done = CliRunner().invoke(load_commands(), ["bench", "s.toml", "--db", "b.sqlite"], catch_exceptions=False)
    assert done.exit_code == 0, done.output
    assert "loaded before the runs (not counted in any run's time): slowload 1." in done.stderr
    report = Path("reports/b/session-1/report.md").read_text()
    assert "- loaded before the runs: slowload 1." in report
    with Store(tmp_path / "b.sqlite") as store:
        assert all(r.category == "correct" and r.time < 1.5 for r in store.runs(1))
