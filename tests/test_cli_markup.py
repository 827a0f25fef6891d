"""What the user typed is printed as typed, never read as rich markup (issue 22 review).

File names such as ``a[x].cnf``, ``[bold]x.emsol`` or ``[/x]p.drat`` (a file ``x]p.drat`` in a folder ``[``)
and backend names such as ``[/x]`` go into the commands' lines verbatim: rich would drop ``[x]`` and
``[bold]`` as tags (naming another file than the one written) and raise MarkupError on ``[/x]``.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from rich.console import Console
from typer.testing import CliRunner

import edgematch
from edgematch.cli import best as best_module
from edgematch.cli import solve as solve_module
from edgematch.cli.main import load_commands
from edgematch.solvers import Result, Status
from edgematch.solvers.base import Confirmation

runner = CliRunner()
app = load_commands()
ROOT = Path(__file__).parent.parent
INSECTS = ROOT / "examples" / "insects.arc"
NO_SOLUTION = ROOT / "tests" / "data" / "no-solution-3x3.em"
NAMES = ["a[x]", "[bold]x", "[/x]y"]  # "[/x]y.em" is the file "x]y.em" in the folder "[" (see ``here``)


def cli(*args):
    return runner.invoke(app, [str(a) for a in args], catch_exceptions=False)


def flat(text: str) -> str:
    """Text with every run of whitespace one space (a table wraps a long cell at spaces)."""
    return " ".join(text.split())


@pytest.fixture
def here(tmp_path, monkeypatch):
    """Work in an empty folder holding a folder ``[`` (so ``[/x]y.em`` is a file name there)."""
    monkeypatch.chdir(tmp_path)
    (tmp_path / "[").mkdir()
    return tmp_path


# ----- item 1: a backend name is checked before it is printed ---------------------------------------------


@pytest.mark.parametrize("command", ["solve", "count"])
def test_an_unknown_backend_with_explain_is_one_line_exit_2(command):
    result = cli(command, INSECTS, "-b", "[/x]", "--explain")
    assert result.exit_code == 2
    assert result.stderr.startswith("edgematch: unknown backend '[/x]'; valid backends: auto")
    assert len(result.stderr.strip().splitlines()) == 1 and result.stdout == ""


def test_an_unknown_backend_with_proof_is_named_unknown():
    result = cli("solve", NO_SOLUTION, "-b", "[bold]sat", "--proof", "p.drat")
    assert result.exit_code == 2 and result.stderr.startswith("edgematch: unknown backend '[bold]sat'")


def test_explain_prints_a_named_backend_verbatim(monkeypatch):
    console = Console(width=200, record=True, color_system=None)
    monkeypatch.setattr(solve_module, "out", console)
    puzzle = edgematch.read_puzzle(INSECTS)
    solve_module._explain(puzzle, "[/x]", "first", 1, {})
    assert console.export_text() == "backend [/x] was named, so auto chose nothing\n"


# ----- item 2: file names, messages and details verbatim -----------------------------------------------------


@pytest.mark.parametrize("name", NAMES)
def test_encode_names_the_file_it_wrote(here, name):
    result = cli("encode", INSECTS, "--cnf", f"{name}.cnf")
    assert result.exit_code == 0, result.output
    assert result.stdout.startswith(f"{name}.cnf: 969 variables, ")
    assert Path(f"{name}.cnf").read_text().startswith("c ")


@pytest.mark.parametrize("name", NAMES)
def test_decode_reads_and_saves_files_with_brackets(here, name):
    pysat = pytest.importorskip("pysat.solvers")
    assert cli("encode", INSECTS, "--cnf", f"{name}.cnf").exit_code == 0
    clauses = [[int(w) for w in line.split()[:-1]] for line in Path(f"{name}.cnf").read_text().splitlines()
               if line and line[0] not in "cp"]
    with pysat.Solver(name="glucose4", bootstrap_with=clauses) as sat:
        assert sat.solve()
        model = sat.get_model()
    Path(f"{name}.out").write_text("s SATISFIABLE\nv " + " ".join(map(str, model)) + " 0\n")
    result = cli("decode", INSECTS, f"{name}.cnf", f"{name}.out", "--save", f"{name}.emsol")
    assert result.exit_code == 0, result.output
    assert Path(f"{name}.emsol").exists()
    assert edgematch.check(edgematch.read_puzzle(INSECTS), edgematch.read_solution(f"{name}.emsol")).ok


@pytest.mark.parametrize("name", NAMES)
def test_solve_save_names_the_file(here, name):
    result = cli("solve", INSECTS, "-b", "native", "--save", f"{name}.emsol")
    assert result.exit_code == 0, result.output
    assert f"solution saved to {name}.emsol" in result.stdout and Path(f"{name}.emsol").exists()


@pytest.mark.parametrize("name", NAMES)
def test_solve_proof_message_names_the_proof_and_cnf(here, name):
    pytest.importorskip("pysat")
    result = cli("solve", NO_SOLUTION, "--proof", f"{name}.drat")
    assert result.exit_code == 1, result.output
    assert (f"unsat (DRAT proof of no solution in {name}.drat for the CNF in {name}.cnf "
            "(check it with drat-trim or dratify))") in flat(result.stdout)
    assert Path(f"{name}.drat").exists() and Path(f"{name}.cnf").exists()


@pytest.mark.parametrize("name", NAMES)
def test_best_save_names_the_file(here, name):
    result = cli("best", INSECTS, "-b", "native", "-t", "5", "--save", f"{name}.emsol")
    assert result.exit_code == 0, result.output
    assert f"saved to {name}.emsol" in result.stdout and Path(f"{name}.emsol").exists()


@pytest.mark.parametrize("name", NAMES)
def test_render_generate_convert_write_the_named_files(here, name):
    result = cli("generate", "3x3", "--seed", "1", "-o", f"{name}.em")
    assert result.exit_code == 0, result.output
    assert cli("render", f"{name}.em", "-o", f"{name}.svg").exit_code == 0
    assert "<svg" in Path(f"{name}.svg").read_text()
    assert cli("convert", f"{name}.em", f"{name}.json").exit_code == 0
    assert edgematch.read_puzzle(f"{name}.json") == edgematch.read_puzzle(f"{name}.em")


def test_a_missing_file_with_brackets_is_named_in_the_error(here):
    result = cli("convert", "[/x]missing.em", "out.json")
    assert result.exit_code == 2 and result.stderr.startswith("edgematch: ")
    assert "[/x]missing.em" in result.stderr


def rendered(table) -> str:
    console = Console(width=300, record=True, color_system=None)
    console.print(table)
    return console.export_text()


@pytest.mark.parametrize("text", ["[/x]", "in [bold]p.drat", "a[x].drat"])
def test_solve_summary_prints_message_and_confirmation_verbatim(text):
    result = Result("native", Status.UNSAT, message=text)
    result.confirmation = Confirmation("sat", None, f"not confirmed: sat failed: {text}")
    shown = rendered(solve_module._summary(result))
    assert f"unsat ({text})" in shown and f"no: not confirmed: sat failed: {text}" in shown


@pytest.mark.parametrize("text", ["[/x]", "in [bold]p.drat", "a[x].drat"])
def test_best_summary_prints_message_verbatim(text):
    shown = rendered(best_module._summary(Result("native", Status.TIMEOUT, message=text)))
    assert f"no board ({text})" in shown and f"timeout ({text})" in shown
