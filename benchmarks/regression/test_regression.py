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


TAIL_FAMILIES = {
    "clue 12x6": dict(width=12, height=6, like="clue"),
    "framed 8x8 3+6": dict(width=8, height=8, framed=True, border_colours=3, inner_colours=6),
}
TAIL_SEEDS = range(1, 11)
TAIL_LIMIT = 10.0


@pytest.mark.parametrize("variant", ["native", "native:dfs"])
@pytest.mark.parametrize("family", list(TAIL_FAMILIES))
@pytest.mark.benchmark(group="first: heavy tails, 10 seeds in a row (slowest seed in extra_info)")
def test_first_heavy_tail(benchmark, family: str, variant: str) -> None:
    """A first solution on 10 seeds of a family where depth-first search has heavy tails. A round solves
    every seed in turn, so one bad seed shows in the timing instead of hiding behind a lucky median; the
    per-seed times and the slowest are in extra_info, and native (restarts) must solve every seed."""
    puzzles = [generate(GeneratorSpec(**TAIL_FAMILIES[family], seed=s))[0] for s in TAIL_SEEDS]
    native = get_backend(variant)

    def worst() -> float:
        slowest = 0.0
        for seed, puzzle in zip(TAIL_SEEDS, puzzles, strict=True):
            result = native.run(puzzle, Task("first", time_limit=TAIL_LIMIT))
            seconds = result.timings.build + result.timings.solve
            benchmark.extra_info[f"seed {seed}"] = round(seconds, 4) if result.status is Status.SOLVED else "timeout"
            slowest = max(slowest, seconds if result.status is Status.SOLVED else 2 * TAIL_LIMIT)
        return slowest

    slowest = benchmark.pedantic(worst, rounds=1, iterations=1, warmup_rounds=0)
    benchmark.extra_info["slowest seed (s)"] = slowest
    assert slowest < 2 * TAIL_LIMIT or variant == "native:dfs", "native timed out on a seed: a heavy tail is back"


CLUE3 = Path(__file__).resolve().parents[2] / "tests" / "data" / "e2-clue3.json"


@pytest.mark.parametrize("memo", ["auto", "off"])
@pytest.mark.benchmark(group="count: Eternity II clue puzzle 3 (2,195,647,488 raw), memo on and off")
def test_count_clue_puzzle_3(benchmark, memo: str) -> None:
    """The published exhaustive count (eternity2.dev, 2010: about a day), native with the memoised count
    (issue 25) and with the plain loop; the nodes of each are in extra_info."""
    puzzle = edgematch.read_puzzle(CLUE3)
    native = get_backend("native")
    result = benchmark.pedantic(lambda: native.run(puzzle, Task("count", distinct=True, options={"memo": memo})),
                                rounds=3, iterations=1, warmup_rounds=0)
    assert result.status is Status.SOLVED, result.message
    assert result.count == 2_195_647_488
    benchmark.extra_info["nodes"] = result.counters["nodes"]
    benchmark.extra_info["memo hits"] = result.counters.get("memo_hits", 0)
