"""One deadline from the caller to every layer: the library sets it once the backend is loaded (loading is not
charged to the limit), a task without one counts its limit from where the backend starts, and a layer that
pushes it back (a cluster's start) or hands on a nearer one moves the instant, never the seconds."""

from dataclasses import replace

import pytest

import edgematch
from edgematch import clock
from edgematch.core.generator import GeneratorSpec, generate
from edgematch.solvers.base import Task
from tests.rigged import DeadlineBackend

LOAD = 0.5  # the rigged backend's loading, as $RIGGED_LOAD_SECONDS sets it below


@pytest.fixture
def recorded(rigged, monkeypatch):
    monkeypatch.setenv("RIGGED_LOAD_SECONDS", str(LOAD))
    DeadlineBackend.asked = []
    return DeadlineBackend.asked


@pytest.mark.parametrize("call", ["solve", "count", "best"])
def test_the_library_sets_the_deadline_after_loading_the_backend(recorded, call):
    puzzle = generate(GeneratorSpec(3, 3, colours=3, seed=2))[0]
    called = clock.now()
    getattr(edgematch, call)(puzzle, backend="deadline", time_limit=30)
    (began, task), = recorded
    assert task.time_limit == 30  # the caller's seconds, as results report them
    assert began - called >= LOAD  # the run began after the load ...
    assert began - LOAD - 0.05 <= task.deadline - 30 <= began  # ... and the limit counts from then


def test_the_second_opinion_keeps_the_first_answer_s_deadline(recorded):
    """--confirm's second backend runs within the caller's limit (from the call), not a fresh one."""
    puzzle = generate(GeneratorSpec(2, 2, colours=2, seed=1))[0]  # small: the second backend counts it at once
    called = clock.now()
    result = edgematch.count(puzzle, backend="deadline", time_limit=30, confirm=True)
    assert result.confirmation is not None and result.confirmation.agreed
    (began, task), = recorded
    assert called + 30 <= task.deadline <= began + 30


def test_a_task_without_a_deadline_counts_its_limit_from_where_it_starts():
    assert Task(time_limit=2.0).until(100.0) == 102.0
    assert Task().until(100.0) is None
    anchored = Task(time_limit=2.0).anchored(100.0)
    assert anchored.deadline == 102.0 and anchored.time_limit == 2.0
    assert anchored.anchored(500.0) is anchored  # set once: a layer below never moves it later
    assert Task().anchored(100.0).deadline is None


def test_a_cluster_s_start_pushes_the_deadline_back_by_its_seconds():
    task = replace(Task(time_limit=2.0), deadline=102.0)
    assert task.until(110.0, setup=3.0) == 105.0  # the given instant, pushed back; not counted from 110
    assert Task(time_limit=2.0).until(110.0, setup=3.0) == 112.0  # counted from the cluster being ready
