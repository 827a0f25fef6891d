"""The command line keeps its word: missing extras are one line, ``--json`` parses, ``backends`` lists every
backend with its options, and ``auto`` passes over backends that cannot take the ``-O`` options asked for."""

import json
import multiprocessing
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


def as_json(*args):
    result = runner.invoke(app, [str(a) for a in args])
    return result.exit_code, json.loads(result.stdout)


def test_solve_and_count_json_parse_and_hold_the_answer(tmp_path):
    code, solved = as_json("solve", EXAMPLES / "hunde.hunde", "-b", "native", "--json")
    assert code == 0 and solved["status"] == "solved" and solved["exit_code"] == 0
    assert len(solved["solutions"]) == 1 and len(solved["solutions"][0]) == 9  # [tile, turns] per cell
    code, listed = as_json("solve", EXAMPLES / "hunde.hunde", "--all", "--json", "--explain")
    assert code == 0 and len(listed["solutions"]) == 16 and listed["explain"]["policy"] == "shipped"
    assert listed["explain"]["backend"] in listed["backend"]
    code, counted = as_json("count", EXAMPLES / "hunde.hunde", "--distinct", "--json")
    assert code == 0 and (counted["count"], counted["distinct"]) == (16, 2) and counted["complete"]
    assert counted["options"]["policy"] == "shipped"


def test_solve_json_of_an_unsolvable_puzzle_exits_1_with_status_unsat(tmp_path):
    puzzle = tmp_path / "none.em"
    puzzle.write_text("edgematch puzzle\nsize 2 1\nrule same\nrotations no\nframe none\n"
                      "tile 1 2 3 4\ntile 5 6 7 8\n")
    code, data = as_json("solve", puzzle, "-b", "native", "--json")
    assert code == 1 and data["status"] == "unsat" and data["solutions"] == [] and data["exit_code"] == 1


def test_info_and_check_json_parse(tmp_path):
    code, info = as_json("info", EXAMPLES / "insects.em", "--json")
    assert code == 0 and (info["width"], info["height"], info["rule"]) == (3, 3, "signed")
    solution = tmp_path / "s.emsol"
    assert runner.invoke(app, ["solve", str(EXAMPLES / "insects.em"), "--save", str(solution)]).exit_code == 0
    code, checked = as_json("check", EXAMPLES / "insects.em", solution, "--json")
    assert code == 0 and checked["ok"] and checked["violations"] == [] and checked["score"] == 12
    lines = solution.read_text().splitlines()  # "edgematch solution", "size 3 3", then rows of tile:turns
    first, *rest = lines[2].split()
    tile, turns = first.split(":")
    lines[2] = " ".join([f"{tile}:{(int(turns) + 1) % 4}", *rest])  # cell 0 turned once more
    broken = tmp_path / "bad.emsol"
    broken.write_text("\n".join(lines) + "\n")
    code, bad = as_json("check", EXAMPLES / "insects.em", broken, "--json")
    assert code == 1 and not bad["ok"] and bad["violations"] and bad["violations"][0]["kind"]


def test_backends_lists_every_backend_its_availability_and_option_defaults():
    from edgematch.encodings.cnf import CnfOptions
    from edgematch.encodings.cpsat import FORMULATIONS
    from edgematch.solvers.native.tables import DEFAULT_ORDER

    code, rows = as_json("backends", "--json")
    by = {row["name"]: row for row in rows}
    assert code == 0 and list(by) == ["auto", "native", "cpsat", "sat", "portfolio"]
    assert all(row["available"] for row in rows)  # the test install has every extra
    assert "native:restarts" in by["native"]["variants"] and "sat:cadical195" in by["sat"]["variants"]
    assert by["cpsat"]["variants"] == [f"cpsat:{f}" for f in FORMULATIONS]
    # the defaults shown are the ones the code uses
    assert by["native"]["options"]["order"].split()[0] == DEFAULT_ORDER
    assert by["sat"]["options"]["amo"] == CnfOptions().amo
    assert set(by["sat"]["options"]) >= {"one_to_one", "amo", "symmetry"}
    shown = runner.invoke(app, ["backends"])
    assert shown.exit_code == 0 and "amo=seqcounter" in shown.output
    assert "native:restarts" in runner.invoke(app, ["solve", "--help"], env={"COLUMNS": "200"}).output


def test_backends_at_80_columns_shows_every_option_whole_and_says_what_it_does():
    """Issue 39 item 11: at 80 columns the table was 100 wrapped lines with a cut ``breaks=positions...`` and
    an unexplained ``double``. Now one block per backend, no line over 80 characters, each -O option on a line
    of its own with its default whole and what it does."""
    import os
    import subprocess

    from edgematch.solvers.base import backend_class, backend_names

    shown = subprocess.run([sys.executable, "-m", "edgematch", "backends"], capture_output=True, text=True,
                           env={**os.environ, "COLUMNS": "80"}, timeout=60)
    assert shown.returncode == 0, shown.stderr
    lines = shown.stdout.splitlines()
    assert max(len(line) for line in lines) <= 80 and "…" not in shown.stdout  # rich cut cells with an ellipsis
    text = " ".join(shown.stdout.split())  # wrapped lines closed up
    assert "breaks=positions/6 (best) — " in text and "double — best's depth-first search: also try placements " \
        "that break two seams at once" in text
    for name in backend_names():
        cls = backend_class(name)
        for key in cls.options:
            assert cls.meanings.get(key), f"{name} option {key} has no meaning to show"
            default = cls.defaults.get(key, "")
            assert any(line.startswith(f"    {key}{'=' + default.split()[0] if default else ' '}") for line in lines)
            assert f"{key}={default} — {cls.meanings[key]}" in text if default else f"{key} — " in text


def test_backends_says_what_to_install_when_an_extra_is_missing(monkeypatch):
    import importlib.util

    real = importlib.util.find_spec
    monkeypatch.setattr(importlib.util, "find_spec", lambda name, *a: None if name == "ortools" else real(name, *a))
    code, rows = as_json("backends", "--json")
    cpsat = next(row for row in rows if row["name"] == "cpsat")
    assert code == 0 and not cpsat["available"] and "pip install 'edgematch[cpsat]'" in cpsat["missing"]


def test_auto_takes_an_option_only_some_backends_take_and_refuses_one_none_takes():
    code, data = as_json("solve", EXAMPLES / "insects.em", "-O", "amo=ladder", "--json", "--explain")
    assert code == 0 and data["status"] == "solved" and data["options"]["amo"] == "ladder"
    assert data["backend"].startswith("auto(sat") and "cannot take the options" in data["explain"]["reason"]
    code, data = as_json("count", EXAMPLES / "hunde.hunde", "-O", "order=spiral", "--json")
    assert code == 0 and data["count"] == 16 and data["options"]["order"] == "spiral"
    wrong = runner.invoke(app, ["solve", str(EXAMPLES / "insects.em"), "-O", "nosuch=1"])
    lines = wrong.output.strip().splitlines()
    assert wrong.exit_code == 2 and len(lines) == 1 and "unknown option(s) nosuch: no backend takes them" in lines[0]
    assert "amo" in lines[0]  # it lists what each backend does take


def test_count_with_workers_reports_live_merged_counts_while_parts_run():
    import edgematch
    from edgematch import GeneratorSpec, generate

    # a board whose parts each take far longer than the run: before, progress stayed at the planning nodes
    puzzle, _ = generate(GeneratorSpec(8, 8, framed=True, border_colours=2, inner_colours=2, seed=1))
    from tests.timing import contention

    seen: list[int] = []
    # two seconds of the workers' search: longer where they share the core with others (one busy core: 3x)
    result = edgematch.count(puzzle, backend="native", workers=2, time_limit=2.0 * contention(),
                             progress=lambda info: seen.append(int(info["nodes"])))
    assert result.status.value == "timeout" and not any(p.is_alive() for p in multiprocessing.active_children())
    # merged outcomes alone rise only when a part ends: here once per worker, at the limit
    rises = sum(b > a for a, b in zip(seen, seen[1:], strict=False))
    assert rises >= 4 and seen == sorted(seen)  # it moves while the parts run, and never backwards
    assert seen[-1] <= result.counters["nodes"]  # live counts are never counted twice


def test_small_promises_formats_convert_and_figures(tmp_path):
    from rich.console import Console

    from edgematch.cli.solve import _summary
    from edgematch.solvers.base import Result, Status

    formats = runner.invoke(app, ["formats"], env={"COLUMNS": "300"})
    assert formats.exit_code == 0 and "cols [rows]" in formats.output  # not eaten as markup
    hinted = tmp_path / "h.em"
    hinted.write_text("edgematch puzzle\nsize 2 1\nrule same\nrotations yes\nframe none\nhint 0 0 0\n"
                      "tile 1 2 3 4\ntile 5 6 7 2\n")
    refused = runner.invoke(app, ["convert", str(hinted), str(tmp_path / "h.owen")])
    assert refused.exit_code == 2 and f"{tmp_path / 'h.owen'}: cannot write" in refused.output
    assert "<output>" not in refused.output
    console = Console(width=200, record=True)
    console.print(_summary(Result("cpsat", Status.SOLVED, options={"max_time_in_seconds": 59.918719167000745})))
    assert "max_time_in_seconds=59.9" in console.export_text() and "59.918" not in console.export_text()


def test_bench_completes_suite_names():
    from edgematch.bench.suite import builtin_suites
    from edgematch.cli.bench import complete_target

    assert complete_target("") == [*builtin_suites(), "list"]
    assert {"smoke", "scaling"} <= set(complete_target("s")) and "default" not in complete_target("s")
