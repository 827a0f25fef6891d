"""Listing raw solutions keeps the time limit and memory bounded.

One board of identical tiles stands for astronomically many raw solutions (25 identical, symmetric tiles:
25! x 4^25 of them). ``solve --all -n 1000000000 -t 0.5`` once listed them past the limit until memory ran
out (20 GB): ``itertools.product`` listed the 25! orders of the copies first, and nothing looked at the clock.
"""

from __future__ import annotations

import multiprocessing
import resource
import time
from itertools import product

import pytest
from hypothesis import given
from hypothesis import strategies as st

from edgematch.core.tiletypes import lazy_product
from edgematch.solvers.boards import CHECK_EVERY, CUT
from tests.timing import contention


@given(st.lists(st.integers(min_value=0, max_value=4), max_size=5))
def test_lazy_product_is_product_in_the_same_order(sizes: list[int]) -> None:
    factories = [lambda n=n: iter(range(n)) for n in sizes]
    assert list(lazy_product(factories)) == list(product(*(range(n) for n in sizes)))


def _listed(backend: str, colours: int, conn) -> None:
    """In a forked child whose memory is capped 6 GiB above what it holds at the fork (a listing that runs away
    fails there, not on the machine): list the raw solutions of 25 tiles of ``colours`` for 0.5 s (stretched by
    the contention around it)."""
    import edgematch
    from edgematch.core.generator import random_tiles

    held = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024
    with open("/proc/self/statm") as statm:
        held = max(held, int(statm.read().split()[0]) * resource.getpagesize())
    resource.setrlimit(resource.RLIMIT_AS, (held + 6 * 2**30, held + 6 * 2**30))
    puzzle = random_tiles(5, 5, colours=colours, rule="same", seed=1)
    limit = 0.5 * contention()  # on a busy core the SAT child's start alone took 0.5 s: nothing was listed to cut
    began = time.monotonic()
    result = edgematch.solve_all(puzzle, backend=backend, limit=10**9, time_limit=limit)
    conn.send({"status": result.status.value, "message": result.message, "listed": len(result.solutions),
               "distinct": len({s.cells for s in result.solutions}), "took": time.monotonic() - began})


@pytest.mark.parametrize("backend", ["native", "sat", "cpsat"])
@pytest.mark.parametrize("colours", [1, 2])
def test_listing_more_raw_solutions_than_time_allows_stops_at_the_limit(backend: str, colours: int) -> None:
    """In a child forked from the test process (it used to be a new interpreter each: 0.5-1 s of start-up and
    solver imports per case)."""
    ctx = multiprocessing.get_context("fork")
    receive, send = ctx.Pipe(duplex=False)
    child = ctx.Process(target=_listed, args=(backend, colours, send))
    child.start()
    send.close()
    try:
        assert receive.poll(120), "no answer within 120 s"
        got = receive.recv()
    finally:
        child.join(5)
        if child.is_alive():
            child.kill()
            child.join()
    assert got["status"] == "timeout" and got["message"] == CUT
    assert CHECK_EVERY <= got["listed"] < 10**6 and got["distinct"] == got["listed"]
    assert got["took"] < 10  # the whole call, every listed solution checked; it never returned before


@pytest.mark.parametrize("backend", ["native", "sat", "cpsat"])
def test_a_solution_limit_stops_the_search_once_that_many_are_found(backend: str) -> None:
    """``solve --all -n 5 -b sat`` listed every board of the CNF before keeping five: on a 4x4 of 3 colours
    (about 10^12 raw solutions) it never answered, and ``--confirm`` (a SAT second opinion) hung with it."""
    import edgematch
    from edgematch import GeneratorSpec, generate

    puzzle, _ = generate(GeneratorSpec(4, 4, colours=3, seed=7))
    result = edgematch.solve_all(puzzle, backend=backend, limit=5, time_limit=60)
    assert result.status.value == "solved" and result.message == "solution limit"
    assert len(result.solutions) == 5 and len({s.cells for s in result.solutions}) == 5
    assert result.counters.get("boards", 5) <= 5  # the SAT child found no more boards than it needed
