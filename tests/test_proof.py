"""DRAT proofs of "no solution" from the SAT backend, checked by an independent proof checker (dratify)."""

import os
import subprocess
import sys
import time

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


def leftovers(folder):
    return sorted(p.name for p in folder.iterdir() if p.name.endswith(".tmp"))


@pytest.mark.parametrize("name", ["p", "a[x]*?"])  # glob characters in the name are matched as themselves
def test_a_proof_write_killed_at_the_time_limit_leaves_no_temporary_file(name, tmp_path, monkeypatch):
    """The proof is written in the solver's child, which the time limit kills, perhaps midway through a
    write: the temporary file beside the target is then removed by the parent, not left in the folder."""
    from edgematch.solvers import sat

    real = sat._write

    def slow(path, lines):  # half a file, then a pause the time limit cuts (the child is forked: this runs there)
        if path.suffix == ".drat":
            real(path, lines)
            return
        with sat.writing(path, encoding="ascii") as out:
            out.write("c half a CNF\n")
            out.flush()
            time.sleep(60)

    monkeypatch.setattr(sat, "_write", slow)
    drat = tmp_path / f"{name}.drat"
    result = edgematch.solve(NO_SOLUTION, backend="sat", proof=str(drat), time_limit=1.5)
    assert result.status.value == "timeout" and result.message == "time limit"
    assert leftovers(tmp_path) == [] and sorted(p.name for p in tmp_path.iterdir()) == []


def test_the_cleanup_removes_only_fresh_regular_temporary_files_of_the_targets(tmp_path):
    from edgematch.formats.source import remove_leftovers

    began = time.time()
    drat, cnf = tmp_path / "a[x].drat", tmp_path / "a[x].cnf"
    fresh = [tmp_path / ".a[x].drat.k3_9abcd.tmp", tmp_path / ".a[x].cnf.zz00yy11.tmp"]
    for path in fresh:
        path.write_text("half")
    old = tmp_path / ".a[x].drat.old00000.tmp"
    old.write_text("an older run's")
    os.utime(old, (began - 3600, began - 3600))
    kept = [old, tmp_path / ".a[x].drat.tmp", tmp_path / ".a[x].drat.toolongname.tmp",
            tmp_path / ".ab.drat.k3_9abcd.tmp", tmp_path / ".a[x].drat.K3_9ABCD.tmp", tmp_path / "a[x].drat"]
    for path in kept[1:]:
        path.write_text("not ours")
    outside = tmp_path / "elsewhere"
    outside.write_text("a link's target")
    link = tmp_path / ".a[x].cnf.linkto00.tmp"
    link.symlink_to(outside)
    folder = tmp_path / ".a[x].cnf.folder00.tmp"
    folder.mkdir()
    assert sorted(remove_leftovers([drat, cnf], began)) == sorted(fresh)
    assert not any(path.exists() for path in fresh)
    assert all(path.exists() for path in kept) and link.is_symlink() and outside.exists() and folder.is_dir()
