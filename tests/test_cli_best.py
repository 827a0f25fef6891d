"""``edgematch best``: the board, its score and its file survive the time limit and Ctrl-C (issue 16)."""

from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import sys
import time
from pathlib import Path

from typer.testing import CliRunner

import edgematch
from edgematch import GeneratorSpec, generate
from edgematch.cli.main import load_commands

ROOT = Path(__file__).resolve().parents[1]
runner = CliRunner()


def cli(*args):
    return runner.invoke(load_commands(), [str(a) for a in args])


def e2_board(tmp_path: Path, side: int = 10, seed: int = 1) -> Path:
    path = tmp_path / f"e2-{side}.em"
    edgematch.write_puzzle(generate(GeneratorSpec(side, side, like="e2", hint=True, seed=seed))[0], path)
    return path


def test_time_limit_prints_saves_and_exits_0_with_a_board(tmp_path):
    puzzle_file = e2_board(tmp_path)
    saved = tmp_path / "best.emsol"
    result = cli("best", puzzle_file, "-b", "native", "-t", "1", "--save", saved, "--json")
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)
    puzzle = edgematch.read_puzzle(puzzle_file)
    board = edgematch.read_solution(saved, puzzle=puzzle)
    verdict = edgematch.check(puzzle, board)
    assert verdict.admissible and verdict.score == data["score"] < data["max_score"] == puzzle.seam_count
    assert data["status"] == "timeout" and data["optimal"] is False
    assert [s for _, s in data["history"]] == sorted(s for _, s in data["history"])


def test_a_full_solution_says_so(tmp_path):
    path = tmp_path / "planted.em"
    edgematch.write_puzzle(generate(GeneratorSpec(4, 4, framed=True, border_colours=2, inner_colours=3,
                                                  seed=2))[0], path)
    result = cli("best", path, "-b", "native", "-t", "20")
    assert result.exit_code == 0 and "a full solution" in result.stdout, result.output


def test_eternity2_dev_board_document_and_link(tmp_path):
    puzzle_file = e2_board(tmp_path, side=6)
    saved = tmp_path / "board.json"
    result = cli("best", puzzle_file, "-b", "native", "-t", "1", "--save", saved, "--save-format", "e2dev", "--url")
    assert result.exit_code == 0, result.output
    document = json.loads(saved.read_text())
    puzzle = edgematch.read_puzzle(puzzle_file)
    assert document["score"] + document["breaks"] == puzzle.seam_count
    assert "https://eternity2.dev/viewer?" in result.stdout


def test_malformed_eternity2_dev_json_is_one_line_and_exit_2(tmp_path):
    bad = tmp_path / "bad.json"
    bad.write_text('{"width": 2, "height": 2,\n "pieces": [[0, 1, 2], [0,0,1,1], [1,1,0,0], [1,0,0,1]]}\n')
    result = cli("best", bad, "-t", "1", "--format", "e2dev")
    assert result.exit_code == 2
    assert "bad.json:2:" in result.stderr and "Traceback" not in result.output


SCRIPT = """
import sys
from edgematch.cli.main import run
sys.argv = ["edgematch", *sys.argv[1:]]
run()
"""


def test_ctrl_c_prints_and_keeps_the_best_board(tmp_path):
    puzzle_file = e2_board(tmp_path, side=12)
    saved = tmp_path / "best.emsol"
    out, err = tmp_path / "out", tmp_path / "err"
    with out.open("w") as stdout, err.open("w") as stderr:
        proc = subprocess.Popen([sys.executable, "-c", SCRIPT, "best", str(puzzle_file), "-b", "native", "-t", "60",
                                 "--save", str(saved)], stdout=stdout, stderr=stderr, start_new_session=True,
                                cwd=ROOT, env={**os.environ, "PYTHONUNBUFFERED": "1"})
    deadline = time.monotonic() + 60
    while not saved.exists() and time.monotonic() < deadline:
        time.sleep(0.05)
    time.sleep(1.0)  # into the search
    os.killpg(proc.pid, signal.SIGINT)
    code = proc.wait(timeout=30)
    printed, said = out.read_text(), err.read_text()
    assert code == 130, printed + said
    assert "interrupted" in printed and "score" in printed and "Traceback" not in said
    puzzle = edgematch.read_puzzle(puzzle_file)
    board = edgematch.read_solution(saved, puzzle=puzzle)
    shown = re.search(r"score\s+(\d+)/(\d+) seams fit", printed)
    assert shown and edgematch.check(puzzle, board).score == int(shown.group(1))


def test_check_prints_a_best_boards_score(tmp_path):
    puzzle_file = e2_board(tmp_path, side=6)
    saved = tmp_path / "best.emsol"
    cli("best", puzzle_file, "-b", "native", "-t", "0.3", "--save", saved)
    verdict = edgematch.check(edgematch.read_puzzle(puzzle_file), edgematch.read_solution(saved))
    result = cli("check", puzzle_file, saved, "--json")
    data = json.loads(result.stdout)
    assert (data["score"], data["breaks"], data["admissible"]) == (verdict.score, verdict.breaks, True)
    assert result.exit_code == (0 if verdict.ok else 1)
