"""The CNF encoding and the SAT backend: seed facts, agreement with native, clause options, time limits."""

from math import comb

import pytest

import edgematch
from edgematch.core.checker import check
from edgematch.core.generator import GeneratorSpec, generate
from edgematch.encodings.cnf import AMO_ENCODINGS, CnfOptions, encode, to_dimacs
from tests.samples import holds_every_kind, random_small_puzzles
from tests.timing import timed

pytest.importorskip("pysat")
from pysat.card import CardEnc, EncType  # noqa: E402
from pysat.solvers import Solver  # noqa: E402

from edgematch.solvers.sat import SOLVERS  # noqa: E402

SMALL = random_small_puzzles(200, seed=505)
VARIANTS = [  # backend, options: every clause family switched off somewhere, several solvers
    ("sat", {}),
    ("sat:cadical195", {"one_to_one": False}),
    ("sat:minisat22", {"forbidden": False}),
    ("sat:glucose3", {"support": False, "amo": "pairwise"}),
    ("sat:maplechrono", {"amo": "ladder", "symmetry": False}),
    ("sat", {"amo": "totalizer", "one_to_one": False, "symmetry": False}),
    ("sat:lingeling", {"amo": "bitwise"}),
]


@pytest.mark.parametrize(("backend", "options"), VARIANTS[:3])
@pytest.mark.parametrize(("path", "raw", "distinct"), [("examples/insects.arc", 4, 1), ("examples/hunde.hunde", 16, 2)])
def test_seed_facts(backend, options, path, raw, distinct):
    puzzle = edgematch.read_puzzle(path)
    result = edgematch.count(puzzle, distinct=True, backend=backend, **options)
    assert (result.status.value, result.count, result.distinct) == ("solved", raw, distinct)
    assert len(set(edgematch.solve_all(puzzle, backend=backend, **options).solutions)) == raw


def test_the_shares_run_by_default_hold_every_kind():
    """The default run's shares of the sample (two quarters of it for the counts, the first 16 for solutions)
    hold every size, both rules, and boards with and without a frame, turns, hints and duplicate tiles."""
    for share in ([p for i, p in enumerate(SMALL) if i % 4 < 2], SMALL[:16]):
        assert holds_every_kind(share)


@pytest.mark.parametrize("chunk", [0, 1, *(pytest.param(c, marks=pytest.mark.slow) for c in (2, 3))])
def test_counts_equal_the_native_backend(chunk):
    """200 seeded puzzles, every variant on a share of each quarter (two quarters by default, all four under
    --runslow)."""
    for i, puzzle in enumerate(SMALL[chunk::4]):
        native = edgematch.count(puzzle, distinct=True, backend="native")
        backend, options = VARIANTS[i % len(VARIANTS)]
        result = edgematch.count(puzzle, distinct=True, backend=backend, **options)
        assert (result.count, result.distinct, result.status) == (native.count, native.distinct, native.status), (
            backend, options, puzzle)


@pytest.mark.parametrize("part", [slice(0, 16), pytest.param(slice(16, 40), marks=pytest.mark.slow)],
                         ids=["first16", "next24"])
def test_first_solutions_and_all_solutions(part):
    for puzzle in SMALL[part]:
        native = edgematch.solve_all(puzzle, backend="native")
        result = edgematch.solve(puzzle, backend="sat")
        assert result.status == (edgematch.Status.SOLVED if native.solutions else edgematch.Status.UNSAT)
        assert set(edgematch.solve_all(puzzle, backend="sat").solutions) == set(native.solutions)


def _models(clauses, variables):
    """Models projected onto ``variables`` (blocking each projection)."""
    count = 0
    with Solver(name="glucose4", bootstrap_with=clauses) as sat:
        while sat.solve():
            model = set(sat.get_model())
            sat.add_clause([-v if v in model else v for v in variables])
            count += 1
    return count


@pytest.mark.parametrize("encoding", AMO_ENCODINGS)
@pytest.mark.parametrize(("n", "k"), [(1, 1), (5, 1), (9, 1), (7, 2), (6, 3)])
def test_at_most_encodings_count_the_closed_form(encoding, n, k):
    if encoding in ("bitwise", "ladder", "pairwise") and k > 1:
        pytest.skip(f"{encoding} encodes at-most-one only")
    variables = list(range(1, n + 1))
    clauses = CardEnc.atmost(variables, bound=k, top_id=n, encoding=getattr(EncType, encoding)).clauses
    assert _models(clauses, variables) == sum(comb(n, i) for i in range(k + 1))


def test_exactly_one_per_cell_counts_one_model_per_placement():
    puzzle, _ = generate(GeneratorSpec(1, 1, colours=3, seed=2))
    enc = encode(puzzle, CnfOptions(symmetry=False))
    turns = len(puzzle.tiles[0].distinct_rotations())
    assert _models(enc.clauses, list(enc.placements)) == len(enc.placements) == turns


def test_variables_decode_and_dimacs_names_them():
    puzzle = edgematch.read_puzzle("examples/insects.em")
    enc = encode(puzzle)
    text = to_dimacs(enc, "insects")
    header = [line for line in text.splitlines() if line.startswith("c var ")]
    assert len(header) == enc.variables  # the auxiliaries too (tests/test_cnf_names.py)
    assert f"p cnf {enc.variables} {len(enc.clauses)}" in text
    assert "holds tile" in header[0] and any("has label" in line for line in header)


def test_a_time_limit_returns_within_its_overshoot_for_every_solver():
    """A limit of 0.3 s ends within it plus 1 s of overshoot (stretched by the contention), as a 1 s one did."""
    puzzle, _ = generate(GeneratorSpec(10, 10, framed=True, border_colours=4, inner_colours=8, seed=1))
    for solver in SOLVERS:
        with timed() as took:
            result = edgematch.solve(puzzle, backend=f"sat:{solver}", time_limit=0.3)
        assert took.within(0.3, 1.0), (solver, str(took))
        assert result.status.value == "timeout", solver


def test_options_are_checked_and_recorded():
    puzzle = edgematch.read_puzzle("examples/racket3x3.rkt")
    result = edgematch.solve(puzzle, backend="sat:cadical195", amo="ladder", one_to_one="off")
    assert check(puzzle, result.solution).ok
    assert result.options["solver"] == "cadical195" and result.options["amo"] == "ladder"
    assert result.options["one_to_one"] is False
    assert {"conflicts", "decisions", "propagations", "restarts", "variables", "clauses"} <= set(result.counters)
    with pytest.raises(edgematch.UsageError, match="unknown SAT solver 'zchaff'"):
        edgematch.solve(puzzle, backend="sat:zchaff")
    with pytest.raises(edgematch.UsageError, match="needs support or forbidden"):
        edgematch.solve(puzzle, backend="sat", support=False, forbidden=False)
    with pytest.raises(edgematch.UsageError, match="unknown at-most-one encoding"):
        edgematch.solve(puzzle, backend="sat", amo="magic")
