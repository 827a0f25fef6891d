"""The C kernel (ckernel.c) against the numba kernel: bit-identical counters, picks and resumable state;
which one runs, and a small solve that never loads numba."""

import os
import random
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

import edgematch
from edgematch.core.generator import GeneratorSpec, generate
from edgematch.errors import BackendError, UsageError
from edgematch.solvers.native import kernels
from edgematch.solvers.native.compiled import ensure_compiled
from edgematch.solvers.native.search import Search, prefixes
from edgematch.solvers.native.tables import build_tables, shuffled
from tests.samples import random_small_puzzles

ROOT = Path(__file__).resolve().parents[1]
needs_c = pytest.mark.skipif(kernels.c_library() is None,
                             reason=f"the C kernel is not built: {kernels.c_problem()}")
CAP = 2_000_000  # nodes a comparison run may take (the unframed 5x5 boards stop there, mid-tree)


def _medium():
    families = [
        dict(width=4, height=4, framed=True, border_colours=2, inner_colours=3),
        dict(width=4, height=4, framed=False, colours=7),
        dict(width=5, height=5, framed=True, border_colours=2, inner_colours=4),
        dict(width=5, height=5, framed=False, colours=9),
        dict(width=5, height=4, framed=True, border_colours=2, inner_colours=3, rule="signed"),
        dict(width=4, height=4, framed=False, colours=6, rule="signed", rotations=False),
    ]
    return [generate(GeneratorSpec(seed=seed, **kw))[0] for kw in families for seed in range(8)]


PUZZLES = random_small_puzzles(110, seed=77) + _medium()


def _snapshot(search):
    return (search.counters.tolist(), search.state.tolist(), search.picks.tolist(), search.ptr.tolist(),
            search.end.tolist(), search.type_left.tolist(), search.placed.tolist(), search.vis.tolist())


def _pair(tables, **kw):
    return Search(tables, kernel="c", **kw), Search(tables, kernel="numba", **kw)


def _run_alike(c, nb, budgets):
    """Step both searches with the same budgets; every code, stored solution and state array must match."""
    found = []
    for budget in budgets:
        code_c, code_nb = c.step(budget), nb.step(budget)
        assert code_c == code_nb
        assert _snapshot(c) == _snapshot(nb)
        got_c, got_nb = c.drain(), nb.drain()
        assert [g.tolist() for g in got_c] == [g.tolist() for g in got_nb]
        found += [g.tolist() for g in got_c]
        if code_c == kernels.FINISHED:
            break
    return found


def test_the_sample_is_as_meant():
    assert len(PUZZLES) >= 150
    assert {(p.width, p.height) for p in PUZZLES} >= {(2, 2), (3, 3), (4, 4), (5, 5), (5, 4)}
    assert any(p.frame is not None for p in PUZZLES) and any(p.frame is None for p in PUZZLES)
    assert any(p.hints for p in PUZZLES) and any(not p.rotations for p in PUZZLES)


@needs_c
@pytest.mark.parametrize("chunk", range(4))
def test_counts_are_identical(chunk):
    for puzzle in PUZZLES[chunk::4]:
        for symmetry in (False, True):  # without the anchor the distinct (canonical) test runs in the loop
            tables = build_tables(puzzle, symmetry=symmetry)
            if tables.positions == 0:
                continue
            c, nb = _pair(tables, distinct=True)
            _run_alike(c, nb, [CAP])
            assert c.kernel == "c" and nb.kernel == "numba"


@needs_c
@pytest.mark.parametrize("chunk", range(4))
def test_first_solutions_and_listings_are_identical(chunk):
    for puzzle in PUZZLES[chunk::4]:
        tables = build_tables(puzzle, order=("row", "spiral", "frame")[chunk % 3])
        if tables.positions == 0:
            continue
        c, nb = _pair(tables, capacity=1)
        _run_alike(c, nb, [CAP])  # stops at the first solution (a full buffer)
        c, nb = _pair(tables, capacity=5, distinct=True)
        _run_alike(c, nb, [CAP // 4] * 8)  # every solution, five at a time


@needs_c
@pytest.mark.parametrize("chunk", range(4))
def test_sliced_runs_keep_identical_state(chunk):
    """Tiny budgets resumed many times, a small buffer drained as it fills: the state between slices is
    the kernels' contract with the driver, so it must match exactly, then the rest of the tree too."""
    rng = random.Random(chunk)
    for puzzle in PUZZLES[chunk::4]:
        tables = build_tables(puzzle, symmetry=rng.random() < 0.5)
        if tables.positions == 0:
            continue
        c, nb = _pair(tables, capacity=rng.choice([1, 2, 3]), distinct=True)
        budgets = [rng.choice([1, 1, 2, 3, 7, 40]) for _ in range(300)]
        _run_alike(c, nb, budgets + [CAP // 10] * 10)


@needs_c
def test_parts_and_shuffled_tables_are_identical():
    rng = np.random.default_rng(5)
    for puzzle in PUZZLES[-48::3]:
        tables = build_tables(puzzle)
        for prefix in prefixes(tables, 6)[0][:4]:  # one part of a split tree
            c, nb = _pair(tables, prefix=prefix, capacity=3, distinct=True)
            _run_alike(c, nb, [500] * 20 + [CAP])
        mixed, _ = shuffled(tables, rng)  # what a restart searches
        c, nb = _pair(mixed, capacity=1)
        _run_alike(c, nb, [100] * 50)


@needs_c
def test_the_backend_agrees_whichever_kernel_runs(monkeypatch):
    puzzle = edgematch.read_puzzle(str(ROOT / "examples/hunde.em"))
    results = {}
    for name in kernels.KERNELS:
        monkeypatch.setenv(kernels.ENV, name)
        ensure_compiled()
        result = edgematch.solve_all(puzzle, backend="native", distinct=True)
        assert result.counters["kernel"] == name
        results[name] = (result.count, result.distinct, result.counters["nodes"], result.solutions)
    assert results["c"] == results["numba"]
    assert results["c"][:2] == (16, 2)


def test_the_kernel_choice(monkeypatch):
    monkeypatch.delenv(kernels.ENV, raising=False)
    assert kernels.selected() == ("c" if kernels.c_library() is not None else "numba")
    monkeypatch.setenv(kernels.ENV, "numba")
    assert kernels.selected() == "numba"
    monkeypatch.setenv(kernels.ENV, " NUMBA ")
    assert kernels.selected() == "numba"
    monkeypatch.setenv(kernels.ENV, "fortran")
    with pytest.raises(UsageError, match="EDGEMATCH_KERNEL='fortran' is not a kernel; choose c or numba"):
        kernels.selected()
    with pytest.raises(UsageError, match="unknown native kernel"):
        Search(build_tables(PUZZLES[0]), kernel="fortran")


def test_a_missing_c_kernel_falls_back_unless_forced(monkeypatch):
    monkeypatch.setattr(kernels, "_c_library", None)
    monkeypatch.setattr(kernels, "_c_problem", "not built (pretend)")
    monkeypatch.delenv(kernels.ENV, raising=False)
    assert kernels.selected() == "numba"
    monkeypatch.setenv(kernels.ENV, "c")
    with pytest.raises(BackendError, match=r"C kernel is not available: not built \(pretend\).*EDGEMATCH_KERNEL=numba"):
        kernels.selected()


def _cli(env_kernel, code):
    env = {k: v for k, v in os.environ.items() if k != kernels.ENV}
    if env_kernel is not None:
        env[kernels.ENV] = env_kernel
    return subprocess.run([sys.executable, "-c", code], cwd=ROOT, env=env, capture_output=True, text=True,
                          timeout=120)


# the console script's entry, then which modules it loaded
SOLVE = """
import sys
sys.argv = ["edgematch", "solve", "examples/insects.arc"]
from edgematch.cli.main import run
try:
    run()
except SystemExit as exc:
    assert not exc.code, exc.code
print("LOADED", sorted({m.split(".")[0] for m in sys.modules} & {"numba", "llvmlite"}))
"""


@needs_c
def test_a_small_solve_never_imports_numba():
    done = _cli(None, SOLVE)
    assert done.returncode == 0, done.stderr
    assert "solved" in done.stdout
    assert "LOADED []" in done.stdout


def test_forcing_numba_runs_numba():
    code = SOLVE.replace('print("LOADED"', 'print("KERNEL", edgematch_kernel(), "LOADED"').replace(
        "from edgematch.cli.main import run",
        "from edgematch.cli.main import run\nfrom edgematch.solvers.native.kernels import selected as edgematch_kernel")
    done = _cli("numba", code)
    assert done.returncode == 0, done.stderr
    assert "KERNEL numba LOADED ['llvmlite', 'numba']" in done.stdout
    counted = _cli("numba", "import edgematch\n"
                            "r = edgematch.count(edgematch.read_puzzle('examples/insects.arc'), backend='native')\n"
                            "print(r.count, r.counters['kernel'])")
    assert counted.stdout.split() == ["4", "numba"], counted.stderr


def test_an_unknown_kernel_is_one_clear_line_and_exit_2():
    done = subprocess.run([sys.executable, "-m", "edgematch", "solve", "examples/insects.arc"], cwd=ROOT,
                          env={**os.environ, kernels.ENV: "fortran"}, capture_output=True, text=True, timeout=120)
    assert done.returncode == 2
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and "EDGEMATCH_KERNEL='fortran' is not a kernel" in lines[0], done.stderr
    assert "Traceback" not in done.stderr
