"""The native engine's C loops: their resumable contract (a search sliced into many calls, its buffer drained
as it fills, ends exactly as one long call does: the same solutions, counters and proofs), the binding's
checks of the arrays it passes, and what a user sees when the library was not built (one line saying what to
install; the other backends still answer). Counts against the brute force are in test_native.py, best scores
in test_best_solvers.py."""

import os
import random
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from edgematch.core.generator import GeneratorSpec, generate
from edgematch.errors import BackendError
from edgematch.solvers.native import kernels
from edgematch.solvers.native.best.beam import BeamTables, beam
from edgematch.solvers.native.best.candidates import build_best_tables, shuffled
from edgematch.solvers.native.best.dfs import FINISHED, IMPROVED, NODES, PRUNED, SHOWN, _Run, schedule
from edgematch.solvers.native.search import Search, prefixes
from edgematch.solvers.native.tables import build_tables
from edgematch.solvers.native.tables import shuffled as shuffled_first
from tests.samples import random_small_puzzles

ROOT = Path(__file__).resolve().parents[1]
CAP = 2_000_000  # nodes one whole run may take (a board whose tree is bigger is left out)


def _medium():
    families = [
        dict(width=4, height=4, framed=True, border_colours=2, inner_colours=3),
        dict(width=4, height=4, framed=False, colours=7),
        dict(width=5, height=5, framed=True, border_colours=2, inner_colours=4),
        dict(width=5, height=4, framed=True, border_colours=2, inner_colours=3, rule="signed"),
        dict(width=4, height=4, framed=False, colours=6, rule="signed", rotations=False),
    ]
    return [generate(GeneratorSpec(seed=seed, **kw))[0] for kw in families for seed in range(6)]


PUZZLES = random_small_puzzles(110, seed=77) + _medium()


def _whole(search: Search, budgets: list[int]) -> tuple[list[list[int]], list[int]]:
    """Step ``search`` with ``budgets`` (the last repeated) until its tree is searched, draining its buffer
    after every call: the solutions in the order found, and the final counters."""
    found: list[list[int]] = []
    i = 0
    while not search.finished:
        search.step(budgets[min(i, len(budgets) - 1)])
        found += [g.tolist() for g in search.drain()]
        i += 1
    return found, search.counters.tolist()


def test_the_sample_is_as_meant():
    assert len(PUZZLES) >= 130
    assert {(p.width, p.height) for p in PUZZLES} >= {(2, 2), (3, 3), (4, 4), (5, 5), (5, 4)}
    assert any(p.frame is not None for p in PUZZLES) and any(p.frame is None for p in PUZZLES)
    assert any(p.hints for p in PUZZLES) and any(not p.rotations for p in PUZZLES)


@pytest.mark.parametrize("chunk", range(3))
def test_a_sliced_plain_search_ends_as_one_call(chunk):
    """Budgets of 1 to 40 nodes and a buffer of 1 to 3 solutions, resumed thousands of times, give the same
    solutions in the same order and the same nodes, solutions and canonical counts as one call."""
    rng = random.Random(chunk)
    compared = 0
    for puzzle in PUZZLES[chunk::3]:
        for symmetry in (False, True):
            tables = build_tables(puzzle, symmetry=symmetry)
            if tables.positions == 0:
                continue
            one = Search(tables, capacity=10**5, distinct=True)
            if one.step(CAP) != kernels.FINISHED:
                continue  # a tree bigger than the cap (or more solutions than the buffer): not compared
            whole = ([g.tolist() for g in one.drain()], one.counters.tolist())
            sliced = Search(tables, capacity=rng.choice([1, 2, 3]), distinct=True)
            budgets = [rng.choice([1, 1, 2, 3, 7, 40]) for _ in range(300)] + [5_000]
            assert _whole(sliced, budgets) == whole
            compared += 1
    assert compared >= 60


def test_split_parts_and_shuffled_tables_end_as_one_call():
    """The parts of a split tree together find what the whole tree does; a shuffled order finds the same
    solution count."""
    rng = np.random.default_rng(5)
    for puzzle in PUZZLES[-30::2]:
        tables = build_tables(puzzle)
        one = Search(tables, capacity=10**5)
        if tables.positions < 3 or one.step(CAP) != kernels.FINISHED:
            continue
        total = one.solutions
        parts, _ = prefixes(tables, 6)
        by_parts = 0
        for prefix in parts:
            part = Search(tables, prefix=prefix, capacity=3)
            by_parts += len(_whole(part, [500])[0])
        assert by_parts == total
        mixed, _ = shuffled_first(tables, rng)
        assert len(_whole(Search(mixed, capacity=7), [100])[0]) == total


def _best_trace(tables, sched, phases: int, budgets: list[int]) -> tuple[list, list]:
    """Run the depth-first best search to its end (with the caller's raising of the bar after each better
    board): every better board in order (fitting seams, picks), and the final node count and pruned flag."""
    run = _Run(tables, sched, -1, phases)
    better = []
    for i in range(10**6):
        code = run.step(budgets[min(i, len(budgets) - 1)])
        if code == IMPROVED:
            shown = int(run.state[SHOWN])
            better.append((int(run.state[3]), run.best[:shown].tolist()))
            run.raise_bar(int(run.state[3]))
        elif code == FINISHED:
            return better, [int(run.flags[NODES]), int(run.flags[PRUNED])]
        if int(run.flags[NODES]) > CAP:
            return better, [-1, -1]
    raise AssertionError("the best search never ended")


@pytest.mark.parametrize("seed", range(6))
def test_a_sliced_best_search_ends_as_one_call(seed):
    """The depth-first best search's state between calls is its contract: tiny budgets give the same better
    boards, the same nodes and the same proof as one call, with a schedule and without, in shuffled orders."""
    size = 3 + seed % 3
    spec = GeneratorSpec(size, size, like="e2", hint=seed % 2 == 0, seed=seed) if seed < 4 else \
        GeneratorSpec(size, size, colours=3, framed=False, seed=seed)
    puzzle = generate(spec)[0]
    tables = build_best_tables(puzzle)
    rng = random.Random(seed)
    for ordering in (tables, shuffled(tables, np.random.default_rng(seed))):
        P = ordering.positions
        for sched, phases in ((schedule(P, 0.3, max(1, P // 4)), 6), (schedule(P, 0.0, 2 * P), 6),
                              (schedule(P, 0.5, 2), 4)):
            whole = _best_trace(ordering, sched, phases, [10**9])
            assert whole[0], "no board at all"
            budgets = [rng.choice([1, 2, 5, 30]) for _ in range(2_000)] + [1_000]
            assert _best_trace(ordering, sched, phases, budgets) == whole


def test_a_beam_is_its_seed():
    """The beam draws its ties from em.h's generator, seeded per beam: the same seed gives the same board
    and counters, and the seeds do not all give one board."""
    puzzle = generate(GeneratorSpec(6, 6, like="e2", seed=3))[0]
    bt = BeamTables(puzzle, "comb")

    def run(seed: int):
        counters = {"children": 0, "states": 0}
        found = beam(bt, 60, 3, seed, None, counters)
        assert found is not None
        return found[0].tolist(), found[1], counters

    first = run(11)
    assert run(11) == first
    assert len({str(run(s)[0]) for s in range(11, 16)}) > 1
    assert kernels.seeded(11)[0] != kernels.seeded(12)[0] != 0


def test_the_binding_refuses_arrays_the_loop_would_misread():
    ok = np.zeros((3, 4), np.int64)
    assert int(kernels.ffi.cast("uintptr_t", kernels.pointer(ok, np.int64, "ok", (3, 4)))) == ok.ctypes.data
    assert kernels.ffi.typeof(kernels.pointer(ok, np.int64, "ok", (None, 4))) is kernels.ffi.typeof("int64_t[]")
    with pytest.raises(BackendError, match="internal error: narrow is int32"):
        kernels.pointer(ok.astype(np.int32), np.int64, "narrow")
    with pytest.raises(BackendError, match="contiguous=False"):
        kernels.pointer(ok[:, ::2], np.int64, "strided")
    with pytest.raises(BackendError, match=r"has shape \(3, 4\), the loop needs \(3, 2\)"):
        kernels.pointer(ok, np.int64, "short", (3, 2))
    frozen = ok.copy()
    frozen.flags.writeable = False
    with pytest.raises(BackendError, match="writable"):
        kernels.pointer(frozen, np.int64, "frozen")
    assert kernels.pointer(frozen, np.int64, "a table the loop only reads", writes=False) is not None


def test_a_call_that_does_not_match_the_header_is_a_type_error_not_a_crash():
    """The binding is generated from em_api.h: a pointer of another element type, a number where a pointer
    goes or a missing argument is refused before the C loop runs."""
    lib = kernels.require()
    lab, nb = np.zeros((2, 4), np.int64), np.full((2, 4), -1, np.int64)
    p = kernels.pointer
    assert lib.em_repair_score(p(lab, np.int64, "lab"), p(nb, np.int64, "nb"), 2) == 0
    with pytest.raises(TypeError):
        lib.em_repair_score(p(lab.astype(np.int32), np.int32, "lab"), p(nb, np.int64, "nb"), 2)
    with pytest.raises(TypeError):
        lib.em_repair_score(lab.ctypes.data, p(nb, np.int64, "nb"), 2)
    with pytest.raises(TypeError):
        lib.em_repair_score(p(lab, np.int64, "lab"), p(nb, np.int64, "nb"))


def test_every_loop_is_in_the_one_library():
    lib = kernels.require()
    for name in ("em_search", "em_propagate", "em_probe", "em_memo", "em_best_search", "em_beam_expand",
                 "em_beam_truncate", "em_beam_materialise", "em_repair_lns", "em_repair_score", "em_hungarian"):
        assert kernels.ffi.typeof(getattr(lib, name)).kind == "function", name
    assert kernels.compiler().split()[0] in ("gcc", "clang")


def test_a_loop_releases_the_gil_while_it_runs():
    """Threads (the race's watcher, a Dask worker's heartbeat) run while a C loop searches: a Python thread
    makes progress during one long em_search call."""
    import threading
    import time

    puzzle, _ = generate(GeneratorSpec(8, 8, framed=True, border_colours=3, inner_colours=5, seed=1))
    search = Search(build_tables(puzzle), capacity=0, distinct=False)
    span: list[float] = []
    ticks: list[float] = []

    def long_call() -> None:
        span.append(time.perf_counter())
        search.step(30_000_000)  # a few tenths of a second to a few seconds in one call
        span.append(time.perf_counter())

    worker = threading.Thread(target=long_call)
    worker.start()
    while worker.is_alive():
        ticks.append(time.perf_counter())
        time.sleep(0.001)
    worker.join()
    start, end = span
    inside = [t for t in ticks if start + 0.05 < t < end - 0.05]
    assert end - start > 0.2 and len(inside) > 10, (end - start, len(inside))


# the compiler's check of a definition against em_api.h, on a copy of the C sources with one prototype
# changed (a build of one small loop file, unoptimised: about a second; -O3 took 4 s more for no other check)
def test_a_prototype_that_does_not_match_its_definition_is_a_build_error(tmp_path, monkeypatch):
    cffi = pytest.importorskip("cffi")
    import shutil

    from edgematch.solvers.native import build_kernel

    class Unoptimised(cffi.FFI):
        def set_source(self, module_name, source, **kwargs):
            super().set_source(module_name, source, **{**kwargs, "extra_compile_args": ["-O0"]})

    monkeypatch.setattr(build_kernel, "FFI", Unoptimised)
    here = Path(build_kernel.HERE)
    (tmp_path / "best").mkdir()
    for name in build_kernel.HEADERS:
        shutil.copy(here / name, tmp_path / name)
    shutil.copy(here / "best" / "repair.c", tmp_path / "best" / "repair.c")
    header = tmp_path / "em_api.h"
    text = header.read_text()
    right = "int64_t em_repair_score(const int64_t *lab, const int64_t *nb, int64_t n);"
    assert right in text
    build_kernel.make_ffi(str(tmp_path)).compile(tmpdir=str(tmp_path / "ok"))  # the copy as it is builds
    header.write_text(text.replace(right, right.replace("int64_t n)", "int32_t n)")))
    with pytest.raises(cffi.VerificationError):
        build_kernel.make_ffi(str(tmp_path)).compile(tmpdir=str(tmp_path / "changed"))


# the console script's entry with the C library pretended missing, as on an install without a C compiler
NOT_BUILT = """
import sys
from edgematch.solvers.native import kernels
kernels._c_problem = "it was not built when edgematch was installed (pretend)"
sys.argv = ["edgematch", *sys.argv[1:]]
from edgematch.cli.main import run
run()
"""


def _without_c(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-c", NOT_BUILT, *args], cwd=ROOT, capture_output=True, text=True,
                          timeout=120, env={**os.environ, "COLUMNS": "80"})


def test_without_the_c_library_native_says_what_to_install_in_one_line():
    done = _without_c("solve", "examples/insects.arc", "-b", "native")
    assert done.returncode == 2
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and "Traceback" not in done.stderr, done.stderr
    assert "the C kernel is not available: it was not built" in lines[0]
    assert "install a C compiler" in lines[0] and "build-essential" in lines[0]
    listed = _without_c("backends")
    assert listed.returncode == 0
    assert "native - not here: native backend: the C kernel is not available" in listed.stdout


def test_without_the_c_library_the_other_backends_answer():
    pytest.importorskip("ortools")
    done = _without_c("solve", "examples/insects.arc")
    assert done.returncode == 0, done.stderr
    assert "solved" in done.stdout and "auto(cpsat)" in done.stdout
    best = _without_c("best", "examples/insects.arc", "-t", "2")
    assert best.returncode == 0 and "12/12" in best.stdout, best.stderr
