"""Boards are never cut to the terminal (issue 22 item 1), and the commands say what they wrote (item 15).

To a file or a pipe a board is written whole however wide (rich crops at 80 columns when it cannot ask a
terminal); on a terminal narrower than the board it comes in bands of whole tile columns (``columns 1-10
of 16``, then the rest), with one note on stderr saying so and how to see it whole.
"""

from __future__ import annotations

import io
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
from rich.console import Console
from typer.testing import CliRunner

import edgematch
from edgematch.cli import commands as commands_module
from edgematch.cli import solve as solve_module
from edgematch.cli.main import load_commands
from edgematch.core.generator import GeneratorSpec, generate
from edgematch.formats import read_puzzle, read_solution, write_puzzle, write_solution
from edgematch.render import render_ascii
from edgematch.render.ascii import board_width
from edgematch.render.terminal import print_board

runner = CliRunner()
app = load_commands()
EXAMPLES = Path(__file__).parent.parent / "examples"
HUNDE = EXAMPLES / "hunde.hunde"
BAND = re.compile(r"^columns (\d+)-(\d+) of (\d+)$")


def cli(*args):
    return runner.invoke(app, [str(a) for a in args], catch_exceptions=False)


def run(*args: str, columns: int = 80) -> subprocess.CompletedProcess[str]:
    """The command in a fresh process, stdout a pipe (not a terminal), the terminal width said to be 80."""
    env = {**os.environ, "COLUMNS": str(columns)}
    env.pop("FORCE_COLOR", None)
    env.pop("TTY_COMPATIBLE", None)
    return subprocess.run([sys.executable, "-m", "edgematch", *args], capture_output=True, text=True, env=env,
                          timeout=120)


def unband(text: str) -> list[str]:
    """The lines of a board printed in bands, put side by side again (the whole board's lines)."""
    bands: list[list[str]] = []
    for line in text.splitlines():
        if BAND.match(line):
            bands.append([])
        elif bands:
            bands[-1].append(line)
    rows = len(bands[0])
    assert all(len(band) >= rows for band in bands)
    return ["".join(band[i] for band in bands) for i in range(rows)]


@pytest.fixture
def big(tmp_path):
    """A 16x16 Eternity II-like puzzle and a board of it (its planted solution), saved as files."""
    puzzle, solution = generate(GeneratorSpec(16, 16, like="e2", seed=5))
    path = tmp_path / "e16.em"
    write_puzzle(puzzle, path)
    board = tmp_path / "e16.emsol"
    write_solution(solution, board, puzzle=puzzle)
    return puzzle, solution, path, board


def terminal(width: int) -> tuple[Console, io.StringIO]:
    buffer = io.StringIO()
    return Console(file=buffer, force_terminal=True, color_system=None, width=width), buffer


# ----- to a file or a pipe: whole ------------------------------------------------------------------------

def test_solve_to_a_file_writes_every_line_of_the_board_whole(tmp_path):
    saved = tmp_path / "hunde.emsol"
    done = run("solve", str(HUNDE), "--save", str(saved))
    assert done.returncode == 0, done.stderr
    puzzle = read_puzzle(HUNDE)
    whole = render_ascii(puzzle, read_solution(saved, puzzle=puzzle))
    assert board_width(puzzle) == 96 > 80  # wider than the 80 columns rich assumes off a terminal
    assert done.stdout.startswith(whole)  # every line whole, the last tile column present
    assert max(len(line) for line in done.stdout.splitlines()[:15]) == 96
    assert "columns" not in done.stdout and done.stderr == ""


def test_best_to_a_pipe_writes_a_16x16_board_whole(big, tmp_path):
    puzzle, _, path, _ = big
    saved = tmp_path / "best.emsol"
    done = run("best", str(path), "-b", "native", "-t", "3", "--save", str(saved))
    assert done.returncode == 0, done.stderr
    whole = render_ascii(puzzle, read_solution(saved, puzzle=puzzle))
    assert done.stdout.startswith(whole)  # 16 rows of 16 boxes, 192 characters a line
    assert {len(line) for line in whole.splitlines()} == {board_width(puzzle)} == {192}
    assert "columns" not in done.stdout and "note" not in done.stderr


def test_print_board_off_a_terminal_is_render_ascii_at_any_width():
    puzzle = read_puzzle(HUNDE)
    solution = edgematch.solve(puzzle, "native").solution
    for width in (20, 80, 200):
        buffer = io.StringIO()
        assert print_board(Console(file=buffer, width=width), puzzle, solution) is None
        assert buffer.getvalue() == render_ascii(puzzle, solution)


# ----- on a terminal: bands of whole tiles and a note -----------------------------------------------------

def test_print_board_on_a_narrow_terminal_bands_whole_tiles_and_says_so():
    puzzle = read_puzzle(HUNDE)
    solution = edgematch.solve(puzzle, "native").solution
    console, buffer = terminal(96)
    assert print_board(console, puzzle, solution) is None  # it fits: printed as it is
    assert buffer.getvalue() == render_ascii(puzzle, solution)
    console, buffer = terminal(70)
    note = print_board(console, puzzle, solution)
    assert note == ("the board is 96 characters wide and this terminal 70: it is shown in bands of 2 columns "
                    "of tiles")
    text = buffer.getvalue()
    assert [line for line in text.splitlines() if BAND.match(line)] == ["columns 1-2 of 3", "columns 3-3 of 3"]
    assert all(len(line) <= 70 for line in text.splitlines())
    assert unband(text) == render_ascii(puzzle, solution).splitlines()


def test_best_16x16_on_a_120_column_terminal_gives_bands_and_one_note(big, monkeypatch, tmp_path):
    puzzle, _, path, _ = big
    console, shown = terminal(120)
    notes, note_buffer = terminal(120)
    monkeypatch.setattr(solve_module, "out", console)
    monkeypatch.setattr(solve_module, "err", notes)
    saved = tmp_path / "best.emsol"
    result = cli("best", path, "-b", "native", "-t", "3", "--save", saved)
    assert result.exit_code == 0, result.output
    text = shown.getvalue()
    assert [line for line in text.splitlines() if BAND.match(line)] == ["columns 1-10 of 16", "columns 11-16 of 16"]
    assert all(len(line) <= 120 for line in text.splitlines())
    board = read_solution(saved, puzzle=puzzle)
    assert unband(text) == render_ascii(puzzle, board).splitlines()  # every tile there, none cut
    note = note_buffer.getvalue().strip()
    assert note.count("\n") == 0 and note.startswith("edgematch: note: the board is 192 characters wide and "
                                                     "this terminal 120: it is shown in bands of 10 columns")
    assert "--render ascii -o FILE" in note


def test_render_of_a_board_on_a_narrow_terminal_notes_how_to_see_it_whole(big, monkeypatch):
    _, _, path, board = big
    console, shown = terminal(100)
    notes, note_buffer = terminal(100)
    monkeypatch.setattr(commands_module, "out", console)
    monkeypatch.setattr(commands_module, "err", notes)
    result = cli("render", path, "-s", board)
    assert result.exit_code == 0, result.output
    assert "columns 1-8 of 16" in shown.getvalue()
    assert "--as ascii -o FILE" in note_buffer.getvalue()


# ----- what the commands wrote (item 15) ------------------------------------------------------------------

def test_solve_and_best_say_which_files_they_wrote(tmp_path):
    saved, drawn = tmp_path / "s.emsol", tmp_path / "s.svg"
    result = cli("solve", HUNDE, "--save", saved, "--render", "svg", "-o", drawn)
    assert result.exit_code == 0, result.output
    assert f"solution saved to {saved}" in result.stdout and f"board drawn to {drawn}" in result.stdout
    assert saved.exists() and "<svg" in drawn.read_text()
    picture = tmp_path / "b.txt"
    result = cli("best", HUNDE, "-b", "native", "-t", "5", "--render", "ascii", "-o", picture)
    assert result.exit_code == 0, result.output
    assert f"board drawn to {picture}" in result.stdout and picture.read_text().startswith(" ---")


def test_solve_render_svg_without_output_is_refused_before_the_search(monkeypatch):
    def search(*args, **kwargs):
        raise AssertionError("the search started")

    monkeypatch.setattr(solve_module, "solve_puzzle", search)
    result = cli("solve", HUNDE, "--render", "svg")
    assert result.exit_code == 2 and "needs -o FILE" in result.stderr
    assert "status" not in result.stdout


def test_a_timed_out_solve_of_a_large_board_points_to_best(big, tmp_path, monkeypatch):
    _, _, path, _ = big
    result = cli("solve", path, "-b", "native", "-t", "0.5")
    assert result.exit_code == 3, result.output
    assert f"try edgematch best {path} -t 0.5" in " ".join(result.stderr.split())
    notes, note_buffer = terminal(200)
    monkeypatch.setattr(solve_module, "err", notes)
    unframed, _ = generate(GeneratorSpec(9, 9, colours=4, seed=3, framed=False))
    solve_module.suggest_best(unframed, tmp_path / "small.em", 0.5)
    assert note_buffer.getvalue() == ""  # an unframed board under 10x10: no such advice
    framed, _ = generate(GeneratorSpec(6, 6, seed=3, framed=True))
    solve_module.suggest_best(framed, tmp_path / "my board.em", None)
    assert "try edgematch best " + repr(str(tmp_path / "my board.em")) in " ".join(note_buffer.getvalue().split())


def test_the_order_help_names_the_real_default():
    """Issue 22 item 12: --order's help said ``row (default)``; the native default is auto."""
    from edgematch.solvers.native.tables import DEFAULT_ORDER

    help_text = solve_module.OrderOpt.__metadata__[0].help
    assert help_text.startswith(f"Native fill order: {DEFAULT_ORDER} (default") and "row (default)" not in help_text


def test_decode_to_a_pipe_writes_a_wide_board_whole(tmp_path):
    pytest.importorskip("pysat")
    from pysat.formula import CNF
    from pysat.solvers import Solver

    cnf, model, saved = tmp_path / "h.cnf", tmp_path / "h.model", tmp_path / "h.emsol"
    assert run("encode", str(HUNDE), "--cnf", str(cnf)).returncode == 0
    with Solver(name="minisat22", bootstrap_with=CNF(from_file=str(cnf)).clauses) as sat:
        assert sat.solve()
        model.write_text("s SATISFIABLE\nv " + " ".join(map(str, sat.get_model())) + " 0\n")
    done = run("decode", str(HUNDE), str(cnf), str(model), "--save", str(saved))
    assert done.returncode == 0, done.stderr
    puzzle = read_puzzle(HUNDE)
    assert done.stdout.startswith(render_ascii(puzzle, read_solution(saved, puzzle=puzzle)))  # 96 wide, not 80


def test_to_a_pipe_a_board_is_the_plain_ascii_and_a_huge_one_is_not_drawn():
    """Without colour the board goes out as render_ascii's text (rich's styled text took 25 s on a 250x250, all
    of it after a Ctrl-C); past DRAWN_AT_MOST tiles it is not drawn and the note says so."""
    from edgematch.render.terminal import DRAWN_AT_MOST

    small, solution = generate(GeneratorSpec(6, 6, like="e2", seed=1))
    buffer = io.StringIO()
    assert print_board(Console(file=buffer, width=80), small, solution) is None
    assert buffer.getvalue() == render_ascii(small, solution)
    huge, board = generate(GeneratorSpec(65, 65, seed=1))
    assert huge.size > DRAWN_AT_MOST
    buffer = io.StringIO()
    note = print_board(Console(file=buffer, width=80), huge, board)
    assert buffer.getvalue() == "" and "65x65, 4,225 tiles" in note and "too big" in note
