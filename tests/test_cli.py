"""The edgematch command: each command end to end, and bad input as one line with exit code 2."""

import json
import subprocess
import sys

import pytest
from typer.testing import CliRunner

from edgematch.cli.main import load_commands
from edgematch.core.checker import check
from edgematch.formats import read_puzzle, read_solution
from tests.test_malformed import DATA, MALFORMED, MALFORMED_SOLUTIONS

runner = CliRunner()
app = load_commands()


def cli(*args):
    return runner.invoke(app, [str(a) for a in args], catch_exceptions=False)


def test_generate_writes_a_puzzle_and_its_planted_solution(tmp_path):
    p, s = tmp_path / "p.em", tmp_path / "p.emsol"
    result = cli("generate", "5x4", "--framed", "--border-colours", "2", "--inner-colours", "3",
                 "--rule", "signed", "--seed", "9", "-o", p, "--solution", s)
    assert result.exit_code == 0, result.output
    puzzle, solution = read_puzzle(p), read_solution(s)
    assert (puzzle.width, puzzle.height, puzzle.rule, puzzle.frame) == (5, 4, "signed", 0)
    assert check(puzzle, solution).ok
    assert cli("check", p, s).exit_code == 0


def test_generate_to_stdout_in_json():
    result = cli("generate", "3", "--to", "json", "--seed", "1")
    assert json.loads(result.stdout)["width"] == 3


def test_check_reports_violations_and_exits_1(tmp_path):
    p, s = tmp_path / "p.em", tmp_path / "s.emsol"
    cli("generate", "3x3", "--seed", "4", "-o", p)
    s.write_text("edgematch solution\nsize 3 3\n0:0 1:0 2:0\n3:0 4:0 5:0\n6:0 7:0 0:0\n")
    result = cli("check", p, s)
    assert result.exit_code == 1
    assert "tile 0 is already used" in result.stdout and "tiles not placed: 8" in result.stdout


@pytest.mark.parametrize(("path", "facts"), [
    ("examples/insects.arc", ["insects", "signed", "identical tiles  none", "1.38"]),
    ("examples/hunde.hunde", ["Hunde-Spiel", "signed", "identical tiles  2 = 3", "1.38"]),
    ("examples/racket3x3.rkt", ["signed", "colours  4", "95,126,814,720"]),
    ("examples/framed4x4.puz", ["frame  0", "4 corner, 8 border, 4 inner"]),
])
def test_info_prints_each_seed_puzzles_facts(path, facts):
    result = cli("info", path)
    assert result.exit_code == 0
    text = " ".join(result.stdout.replace("│", " ").split())
    for fact in facts:
        assert " ".join(fact.split()) in text, fact


def test_info_shows_names_verbatim_not_as_markup(tmp_path):
    path = tmp_path / "m.em"
    path.write_text("edgematch puzzle\nname [bold]x[/]\nsize 1 1\ntile 1 2 3 4\n")
    result = cli("info", path)
    assert result.exit_code == 0 and "[bold]x[/]" in result.stdout


def test_generate_refuses_options_it_cannot_honour(tmp_path):
    assert "cannot honour --framed" in cli("generate", "3", "--random", "--framed").stderr
    assert "are for --framed puzzles" in cli("generate", "3", "--border-colours", "2").stderr
    sol = tmp_path / "o.emsol"
    result = cli("generate", "3", "--to", "puz", "--rule", "signed", "--solution", sol)
    assert result.exit_code == 2 and "signed" in result.stderr
    assert not sol.exists()  # nothing written when the puzzle could not be


def test_info_prints_the_facts_of_the_insects():
    result = cli("info", "examples/insects.em")
    assert result.exit_code == 0
    text = " ".join(result.stdout.split())
    for fact in ("3 x 3, 9 tiles, 12 inner seams", "signed", "95,126,814,720", "1.38"):
        assert fact in text
    data = json.loads(cli("info", "examples/insects.em", "--json").stdout)
    assert data["expected_solutions"] == pytest.approx(1.384, abs=1e-3)


def test_convert_between_formats_keeps_the_puzzle(tmp_path):
    out = tmp_path / "insects.json"
    assert cli("convert", "examples/insects.em", out).exit_code == 0
    assert read_puzzle(out) == read_puzzle("examples/insects.em")


def test_render_ascii_to_stdout():
    result = cli("render", "examples/insects.em", "--as", "ascii")
    assert result.exit_code == 0
    assert "mantis" in result.stdout and "-dragonfly" in result.stdout


def test_formats_lists_native_and_json():
    text = cli("formats").stdout
    assert "native" in text and "json" in text


@pytest.mark.parametrize(
    ("args", "fragment"),
    [
        (["info", "no/such/file.em"], "no/such/file.em: no such file"),
        (["generate", "3y3"], "size must look like 4x4"),
        (["generate", "3", "--colours", "0"], "colours must be from 1 to"),
        (["generate", "3", "--colours", "-1"], "colours must be from 1 to"),
        (["convert", "examples/insects.em", "--to", "nope"], "unknown format 'nope'"),
    ],
)
def test_bad_usage_is_one_line_and_exit_2(args, fragment):
    result = cli(*args)
    assert result.exit_code == 2
    assert fragment in result.stderr


def test_malformed_file_through_the_real_command(tmp_path):
    bad = tmp_path / "bad.em"
    bad.write_text("edgematch puzzle\nsize 2 2\ntile 1 1 1 1\ntile 1 1 x 1\n")
    proc = subprocess.run(
        [sys.executable, "-m", "edgematch", "info", str(bad)], capture_output=True, text=True
    )
    assert proc.returncode == 2
    assert proc.stderr.strip() == f"edgematch: {bad}:4: unknown label 'x' (declare it with a 'label' line)"
    assert proc.stdout == ""


@pytest.mark.parametrize(("name", "line", "fragment"), MALFORMED, ids=[m[0] for m in MALFORMED])
def test_every_malformed_file_exits_2_with_file_and_line(name, line, fragment):
    path = DATA / name
    result = cli("info", path)
    assert result.exit_code == 2
    assert result.stderr.startswith(f"edgematch: {path}:{line}: ")
    assert fragment in result.stderr
    assert len(result.stderr.strip().splitlines()) == 1


@pytest.mark.parametrize(("name", "line", "fragment"), MALFORMED_SOLUTIONS, ids=[m[0] for m in MALFORMED_SOLUTIONS])
def test_every_malformed_solution_exits_2(name, line, fragment):
    path = DATA / name
    result = cli("convert", "--solution", path)
    assert result.exit_code == 2
    assert result.stderr.startswith(f"edgematch: {path}:{line}: ") and fragment in result.stderr


def test_binary_garbage_exits_2(tmp_path):
    path = tmp_path / "garbage.em"
    path.write_bytes(bytes(range(256)) * 4)
    result = cli("render", path)
    assert result.exit_code == 2
    assert result.stderr.startswith(f"edgematch: {path}:1: binary data")
