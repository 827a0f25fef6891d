"""`edgematch solve` and `edgematch count` end to end, including time limits and Ctrl-C."""

import os
import signal
import subprocess
import sys
import time

import pytest
from typer.testing import CliRunner

from edgematch.cli.main import load_commands
from edgematch.core.checker import check
from edgematch.formats import read_puzzle, read_solution

runner = CliRunner()
app = load_commands()


def cli(*args):
    return runner.invoke(app, [str(a) for a in args], catch_exceptions=False)


def test_count_prints_the_seed_facts():
    text = cli("count", "examples/hunde.hunde", "--distinct").stdout
    assert "16 raw" in text and "2 (up to turning the board)" in text


def test_solve_saves_a_checked_solution_and_draws_it(tmp_path):
    sol, svg = tmp_path / "s.emsol", tmp_path / "s.svg"
    result = cli("solve", "examples/insects.arc", "--save", sol, "--render", "svg", "-o", svg)
    assert result.exit_code == 0, result.output
    assert check(read_puzzle("examples/insects.arc"), read_solution(sol)).ok
    assert "<svg" in svg.read_text()[:300]


def test_solve_all_lists_every_raw_solution():
    result = cli("solve", "examples/insects.em", "--all", "--order", "spiral")
    lines = [line for line in result.stdout.splitlines() if line.strip()[:1].isdigit() and ":" in line]
    assert len(lines) == 4 and "4 raw" in result.stdout


def test_solve_all_says_its_lines_are_tile_turns_per_cell_on_a_line_scripts_pass_by():
    """Issue 39 item 11: the listing's numbers were unexplained. A header line starting with # names them;
    the numbered lines are as before, each a solution that passes the checker read as cell order."""
    from edgematch.core.model import Solution

    result = cli("solve", "examples/hunde.hunde", "--all")
    lines = result.stdout.splitlines()
    header = next(i for i, line in enumerate(lines) if line.lstrip().startswith("#"))
    assert "cells 0-8, row by row: tile:turns" in lines[header] and "clockwise" in lines[header]
    listed = lines[header + 1:header + 17]
    assert [int(line.split()[0]) for line in listed] == list(range(1, 17))
    puzzle = read_puzzle("examples/hunde.hunde")
    for line in listed:
        pairs = [tuple(int(n) for n in cell.split(":")) for cell in line.split()[1:]]
        assert check(puzzle, Solution.from_pairs(puzzle, pairs)).ok


def test_no_solution_exits_1(tmp_path):
    path = tmp_path / "none.em"
    path.write_text("edgematch puzzle\nsize 2 1\ntile 1 1 1 1\ntile 2 2 2 2\n")
    result = cli("solve", path)
    assert result.exit_code == 1 and "unsat" in result.stdout


def test_time_limit_without_answer_exits_3(tmp_path):
    path = tmp_path / "hard.em"
    assert cli("generate", "7x7", "--colours", "2", "--seed", "1", "-o", path).exit_code == 0
    result = cli("count", path, "--time-limit", "0.3")
    assert result.exit_code == 3 and "at least" in result.stdout  # a count so far is a lower bound, not the answer
    result = cli("solve", path, "--backend", "nope")
    assert result.exit_code == 2 and "valid backends: auto, native" in result.stderr


def test_ctrl_c_prints_what_was_found_and_exits_130(tmp_path):
    path = tmp_path / "long.em"
    assert cli("generate", "7x7", "--colours", "2", "--seed", "1", "-o", path).exit_code == 0
    proc = subprocess.Popen([sys.executable, "-m", "edgematch", "count", str(path), "--explain"],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            env={**os.environ, "PYTHONUNBUFFERED": "1"})
    assert "auto chose" in proc.stdout.readline()  # the search starts now
    time.sleep(1.0)
    proc.send_signal(signal.SIGINT)
    out, err = proc.communicate(timeout=20)
    assert proc.returncode == 130, err
    assert "timeout (interrupted)" in out and "at least" in out and "Traceback" not in err


def test_backend_options_from_the_command_line():
    result = cli("count", "examples/hunde.hunde", "--distinct", "-b", "cpsat:table", "-O", "symmetry=off")
    assert result.exit_code == 0 and "16 raw" in result.stdout and "symmetry=False" in result.stdout
    result = cli("solve", "examples/insects.arc", "-b", "cpsat", "-O", "bogus=1")
    assert result.exit_code == 2 and "unknown option(s) bogus; known: symmetry, seed" in result.stderr


def test_encode_then_an_external_solver_then_decode(tmp_path):
    pytest.importorskip("pysat")
    from pysat.formula import CNF
    from pysat.solvers import Solver

    cnf, model, sol = tmp_path / "p.cnf", tmp_path / "p.model", tmp_path / "p.emsol"
    assert cli("encode", "examples/racket3x3.rkt", "--cnf", cnf, "-O", "amo=ladder").exit_code == 0
    assert "c options one_to_one=1 forbidden=1 support=1 amo=ladder symmetry=1" in cnf.read_text()
    with Solver(name="minisat22", bootstrap_with=CNF(from_file=str(cnf)).clauses) as sat:
        assert sat.solve()
        model.write_text("s SATISFIABLE\nv " + " ".join(map(str, sat.get_model())) + " 0\n")
    result = cli("decode", "examples/racket3x3.rkt", cnf, model, "--save", sol)
    assert result.exit_code == 0 and "valid solution" in result.stdout
    assert check(read_puzzle("examples/racket3x3.rkt"), read_solution(sol)).ok
    # a model of another puzzle's CNF, and an UNSAT answer, are refused with the file named
    assert "was not made from" in cli("decode", "examples/insects.arc", cnf, model).stderr
    model.write_text("s UNSATISFIABLE\n")
    result = cli("decode", "examples/racket3x3.rkt", cnf, model)
    assert result.exit_code == 2 and f"{model}:1: the solver says UNSATISFIABLE" in result.stderr


@pytest.mark.parametrize("command", ["solve", "best"])
def test_output_alone_draws_the_board_as_its_suffix_says(tmp_path, command):
    """``-o FILE`` without ``--render`` was ignored: the board went to the screen and FILE was never written."""
    svg, text = tmp_path / "board.svg", tmp_path / "board.txt"
    extra = ["-t", "2"] if command == "best" else []
    assert cli(command, "examples/insects.em", "-o", svg, *extra).exit_code == 0
    assert svg.read_text().startswith("<?xml") and "<svg" in svg.read_text()
    shown = cli(command, "examples/insects.em", "-o", text, *extra)
    assert shown.exit_code == 0 and "board drawn to" in shown.stdout
    drawn = text.read_text()
    assert "mantis" in drawn and "<svg" not in drawn
    refused = cli(command, "examples/insects.em", "--json", "--render", "ascii", *extra)
    assert refused.exit_code == 2 and "give --render an output file with -o" in refused.output
