"""Regression timings: a few fixed small cases per backend, timed with pytest-benchmark.

Not part of the normal test run (``pytest`` only collects ``tests/``). Run them from the repository root::

    pytest benchmarks/regression                          # time every case, print the table
    pytest benchmarks/regression --benchmark-autosave     # ... and save the run under .benchmarks/
    pytest benchmarks/regression --benchmark-compare      # compare against the latest saved run
    pytest benchmarks/regression --benchmark-compare=0001 --benchmark-compare-fail=median:25%

Saved runs go to ``.benchmarks/`` (gitignored). Each case is timed in pedantic mode (one warm-up round,
then 3 rounds of one call), with the backend's ``run`` called directly (the API's checker is not timed),
and asserts a fact about its result, so a correctness regression fails as well as shows in the timings.
A backend whose library is not installed is skipped.
"""

from __future__ import annotations

from pathlib import Path

import pytest

import edgematch
from edgematch.core.generator import GeneratorSpec, generate
from edgematch.errors import MissingDependencyError
from edgematch.solvers.base import Backend, Status, Task, get_backend

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"
BACKENDS = ["native", "cpsat", "cpsat:table", "sat", "sat:cadical195"]
PLANTED = GeneratorSpec(6, 6, framed=True, border_colours=3, inner_colours=4, seed=1)


def pedantic(benchmark, fn):
    return benchmark.pedantic(fn, rounds=3, iterations=1, warmup_rounds=1)


@pytest.fixture(params=BACKENDS, ids=lambda spec: spec.replace(":", "-"))
def backend(request: pytest.FixtureRequest) -> Backend:
    try:
        return get_backend(request.param)
    except MissingDependencyError as error:
        pytest.skip(str(error))


@pytest.mark.benchmark(group="first: framed 6x6 planted, seed 1")
def test_first_framed_6x6(benchmark, backend: Backend) -> None:
    puzzle, _ = generate(PLANTED)
    result = pedantic(benchmark, lambda: backend.run(puzzle, Task("first")))
    assert result.status is Status.SOLVED, result.message
    assert result.solution is not None
    assert edgematch.check(puzzle, result.solution).ok


@pytest.mark.benchmark(group="count: Hunde-Spiel, distinct")
def test_count_hunde(benchmark, backend: Backend) -> None:
    puzzle = edgematch.read_puzzle(EXAMPLES / "hunde.hunde")
    result = pedantic(benchmark, lambda: backend.run(puzzle, Task("count", distinct=True)))
    assert result.status is Status.SOLVED, result.message
    assert (result.count, result.distinct) == (16, 2)
