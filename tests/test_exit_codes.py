"""`solve` and `count` exit codes as the README promises, on every backend: 0 the complete answer, 1 no
solution, 3 the time limit came first (nothing found, or a count or enumeration that did not finish),
4 the backend failed, 130 Ctrl-C after printing what was found so far."""

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from typer.testing import CliRunner

from edgematch.cli.main import load_commands
from edgematch.cli.solve import exit_code
from edgematch.core.generator import GeneratorSpec, generate
from edgematch.formats import write_puzzle
from edgematch.solvers.base import Result, Status
from tests.timing import contention

ROOT = Path(__file__).resolve().parent.parent
BACKENDS = ["native", "native:restarts", "cpsat", "cpsat:table", "sat", "portfolio", "auto"]
# a family's variants (its search or model in another form, the same stop path) run with --runslow: the Ctrl-C
# test starts two interpreters of 2-4 s each per backend
# auto runs native here (its choice is the policy's tests'): with the variants, under --runslow
VARIED = [pytest.param(b, marks=pytest.mark.slow) if b in ("native:restarts", "cpsat:table", "auto") else b
          for b in BACKENDS]
LISTING = ("native", "sat", "cpsat")  # the backends that list an enumeration's solutions their own way
runner = CliRunner()
app = load_commands()


def cli(*args):
    return runner.invoke(app, [str(a) for a in args], catch_exceptions=False)


@pytest.fixture(scope="module")
def boards(tmp_path_factory):
    """``many``: solutions come fast and never end (a count stops with a lower bound); ``hard``: no backend
    finds a first solution within seconds, and every model builds in well under one."""
    folder = tmp_path_factory.mktemp("boards")
    specs = {"many": GeneratorSpec(7, 7, colours=2, seed=1),
             "hard": GeneratorSpec(10, 10, framed=True, border_colours=4, inner_colours=8, seed=1),
             "listed": GeneratorSpec(6, 6, colours=5, seed=1, duplicates=False)}
    paths = {}
    for name, spec in specs.items():
        paths[name] = folder / f"{name}.em"
        write_puzzle(generate(spec)[0], paths[name])
    return paths


@pytest.mark.parametrize(("status", "message", "code"), [
    ("solved", "", 0), ("solved", "solution limit", 0), ("unsat", "", 1), ("timeout", "time limit", 3),
    ("error", "no member answered", 4), ("timeout", "interrupted", 130), ("solved", "interrupted", 130),
])
def test_one_rule_from_status_to_exit_code(status, message, code):
    assert exit_code(Result("native", Status(status), message=message)) == code


@pytest.mark.parametrize("backend", VARIED)
def test_the_time_limit_with_no_complete_answer_exits_3(backend, boards):
    count = cli("count", boards["many"], "-b", backend, "-t", "0.3")
    assert count.exit_code == 3, count.output
    assert "timeout" in count.stdout and "at least" in count.stdout  # the lower bound is still printed
    first = cli("solve", boards["hard"], "-b", backend, "-t", "0.3")
    assert first.exit_code == 3 and "timeout (time limit" in first.stdout, first.output


def test_an_enumeration_stopped_by_the_time_limit_exits_3_and_lists_what_it_found(boards):
    stopped = cli("solve", boards["listed"], "--all", "-b", "native", "-t", "0.05")
    assert stopped.exit_code == 3 and "raw (listed above)" in stopped.stdout, stopped.output
    asked = cli("solve", boards["listed"], "--all", "-n", "3", "-b", "native", "-t", "5")
    assert asked.exit_code == 0 and "solution limit" in asked.stdout  # the --limit asked for is an answer
    assert cli("count", ROOT / "examples/hunde.hunde", "-t", "20").exit_code == 0


def test_a_backend_that_fails_exits_4_with_its_message(rigged):
    result = cli("solve", ROOT / "examples/hunde.hunde", "-b", "portfolio:crash+crash")
    assert result.exit_code == 4 and "status" in result.stdout and "error" in result.stdout
    assert "no member answered" in result.stderr and "died (exit code 139)" in result.stderr
    wrong = cli("count", ROOT / "examples/hunde.hunde", "-b", "wrong")
    assert wrong.exit_code == 4 and "invalid solution" in wrong.stderr


INTERRUPTIBLE = """
import sys
from edgematch.cli.main import load_commands, run
from edgematch.solvers.base import get_backend
load_commands()
get_backend(sys.argv[1]).warm_up()
sys.argv = ["edgematch", *sys.argv[2:]]
run()
"""


def _start(folder, backend, *args, name=None):
    """The CLI in a session of its own (as a terminal runs it), writing to files in ``folder`` named ``name``
    (default: the command)."""
    name = name or args[0]
    out, err = folder / f"{name}.out", folder / f"{name}.err"
    with out.open("w") as stdout, err.open("w") as stderr:
        proc = subprocess.Popen([sys.executable, "-c", INTERRUPTIBLE, backend, *map(str, args), "-b", backend,
                                 "--explain"], stdout=stdout, stderr=stderr, start_new_session=True, cwd=ROOT,
                                env={**os.environ, "PYTHONUNBUFFERED": "1"})
    return proc, out, err


@pytest.mark.parametrize("backend", VARIED)
def test_ctrl_c_exits_130_and_prints_what_was_found(backend, boards, tmp_path):
    runs = {"count": _start(tmp_path, backend, "count", boards["many"]),
            "solve": _start(tmp_path, backend, "solve", boards["hard"])}
    if backend in LISTING:
        runs["all"] = _start(tmp_path, backend, "solve", boards["many"], "--all", name="all")
    deadline = time.monotonic() + 30
    while not all("chose" in out.read_text() for _, out, _ in runs.values()) and time.monotonic() < deadline:
        time.sleep(0.05)  # libraries loaded, puzzle read, --explain said which backend: the search starts
    time.sleep(0.7)  # into the search (the models build in about half a second)
    busy = contention()
    for proc, _, _ in runs.values():
        os.killpg(proc.pid, signal.SIGINT)  # what a terminal's Ctrl-C does
    stopped = time.monotonic()
    if "all" in runs:  # not every board found so far is listed before the exit: the first few hundred are, the
        # rest only counted (a 4x4 with 7.7 M solutions took 145 s to stop once listing; this 7x7 0.25 s now, 0.43 s
        # when the interpreter's teardown freed its millions of solutions one by one)
        runs["all"][0].wait(timeout=60)
        assert time.monotonic() - stopped < 0.6 * busy, (time.monotonic() - stopped, busy)
    for question, (proc, out, err) in runs.items():
        code = proc.wait(timeout=20)
        printed, said = out.read_text(), err.read_text()
        assert code == 130, f"{question} exited {code}: {printed}\n{said}"
        assert "status" in printed and "interrupted" in printed, f"{question}: {printed}\n{said}"
        assert "Traceback" not in said, said
        if question == "count":
            assert "at least" in printed  # the count so far, as a lower bound
        if question == "all" and "raw (listed above)" in printed:  # what it had found: listed, each checked
            assert "at least" in printed and printed.count("\n") > 2
