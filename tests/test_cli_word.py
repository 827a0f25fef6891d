"""The command line keeps its word: missing extras are one line, ``--json`` parses, ``backends`` lists every
backend with its options, and ``auto`` passes over backends that cannot take the ``-O`` options asked for."""

import sys
from pathlib import Path

import pytest
from typer.testing import CliRunner

from edgematch.cli.main import load_commands

EXAMPLES = Path(__file__).resolve().parent.parent / "examples"
runner = CliRunner()
app = load_commands()


@pytest.mark.parametrize("command", ["encode", "decode"])
def test_encode_and_decode_without_python_sat_are_one_line_and_exit_2(command, monkeypatch, tmp_path):
    cnf = tmp_path / "p.cnf"
    assert runner.invoke(app, ["encode", str(EXAMPLES / "insects.em"), "--cnf", str(cnf)]).exit_code == 0
    (tmp_path / "model.txt").write_text("v 1 0\n")
    for name in [m for m in sys.modules if m == "pysat" or m.startswith("pysat.")]:
        monkeypatch.delitem(sys.modules, name)
    monkeypatch.setitem(sys.modules, "pysat", None)  # import pysat now fails as if it were not installed
    args = ["encode", str(EXAMPLES / "insects.em")] if command == "encode" else \
        ["decode", str(EXAMPLES / "insects.em"), str(cnf), str(tmp_path / "model.txt")]
    result = runner.invoke(app, args)
    assert result.exit_code == 2, result.output
    lines = result.output.strip().splitlines()
    assert len(lines) == 1 and "pip install 'edgematch[sat]'" in lines[0] and command in lines[0]
    assert result.exception is None or isinstance(result.exception, SystemExit)
