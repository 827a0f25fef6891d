"""DRAT proofs of "no solution" from the SAT backend, checked by an independent proof checker (dratify)."""

import subprocess
import sys

import pytest

import edgematch
from edgematch.solvers.sat import PROOF_SOLVERS
from tests.oracle import all_solutions

pytest.importorskip("pysat")
dratify = pytest.importorskip("dratify")

NO_SOLUTION = "tests/data/no-solution-3x3.em"


def checked(cnf, drat):
    return dratify.check_proof(dratify.parse_dimacs(cnf.read_text()), drat.read_text())


def test_the_puzzle_has_no_solution_by_brute_force():
    assert next(all_solutions(edgematch.read_puzzle(NO_SOLUTION)), None) is None


@pytest.mark.parametrize("solver", PROOF_SOLVERS)
def test_every_proof_solver_writes_a_proof_the_checker_accepts(solver, tmp_path):
    drat = tmp_path / "p.drat"
    result = edgematch.solve(NO_SOLUTION, backend=f"sat:{solver}", proof=str(drat))
    assert result.status.value == "unsat" and result.options["proof"] == str(drat)
    verdict = checked(tmp_path / "p.cnf", drat)
    assert verdict.ok and verdict.reached_empty


def test_a_cut_proof_is_rejected(tmp_path):
    """The checker is not a rubber stamp: half of a real proof does not refute the CNF."""
    drat = tmp_path / "p.drat"
    edgematch.solve(NO_SOLUTION, backend="sat", proof=str(drat))
    lines = drat.read_text().splitlines()
    assert len(lines) > 20
    drat.write_text("\n".join(lines[len(lines) // 2:]) + "\n")
    assert not checked(tmp_path / "p.cnf", drat).ok


def test_a_solvable_puzzle_writes_no_proof(tmp_path):
    drat = tmp_path / "p.drat"
    result = edgematch.solve("examples/insects.em", backend="sat", proof=str(drat))
    assert result.status.value == "solved" and not drat.exists() and not (tmp_path / "p.cnf").exists()
    assert "no proof written" in result.message


@pytest.mark.parametrize(("backend", "kwargs", "message"), [
    ("sat:minisat22", {}, "cannot log a proof; these can: glucose4"),
    ("sat", {"question": "count"}, "a proof goes with finding a solution"),
])
def test_refusals(backend, kwargs, message, tmp_path):
    drat = str(tmp_path / "p.drat")
    with pytest.raises(edgematch.UsageError, match=message):
        if kwargs.get("question") == "count":
            edgematch.count(NO_SOLUTION, backend=backend, proof=drat)
        else:
            edgematch.solve(NO_SOLUTION, backend=backend, proof=drat)
    with pytest.raises(edgematch.UsageError, match="give it another suffix"):
        edgematch.solve(NO_SOLUTION, backend="sat", proof=str(tmp_path / "p.cnf"))


def test_the_command_writes_the_proof_beside_the_cnf_and_refuses_other_backends(tmp_path):
    drat = tmp_path / "p.drat"
    run = subprocess.run([sys.executable, "-m", "edgematch", "solve", NO_SOLUTION, "--proof", str(drat)],
                         capture_output=True, text=True)
    assert run.returncode == 1, run.stderr  # no solution
    assert "sat:glucose4" in run.stdout and checked(tmp_path / "p.cnf", drat).ok
    refused = subprocess.run([sys.executable, "-m", "edgematch", "solve", NO_SOLUTION, "-b", "native",
                              "--proof", str(drat)], capture_output=True, text=True)
    assert refused.returncode == 2 and "--proof needs a SAT backend" in refused.stderr
    assert "Traceback" not in refused.stderr
