"""The bench tells the truth about its own work: it plans only runs that can happen (a backend that cannot
answer a family's task is skipped by name), counts run errors in its summary and exit code, says when --sizes
changes a family, counts its runs per family, estimates the time left honestly, prints user-named things
as plain text (never rich markup), and says so when two sessions have nothing to compare."""

import io
import json
import shutil
import time
from pathlib import Path

import pytest
from rich.console import Console
from typer.testing import CliRunner

from edgematch.bench.runner import RunRecord
from edgematch.bench.session import Estimate, Watcher, run_session
from edgematch.bench.store import Store
from edgematch.bench.suite import Instance, Overrides, Suite, load_suite, parse_suite
from edgematch.cli.main import load_commands
from edgematch.solvers.base import Result, Status
from edgematch.solvers.cpsat import CpsatBackend
from edgematch.solvers.native import NativeBackend

EXAMPLES = Path(__file__).resolve().parent.parent / "examples"
runner = CliRunner()
app = load_commands()


def cli(*args):
    return runner.invoke(app, [str(a) for a in args], catch_exceptions=False)


SUITE = """
name = "honest"
task = "first"
timeout = 5.0
seeds = [1]
backends = ["native", "cpsat:table"]

[[family]]
name = "small"
sizes = [3]
colours = 3

[[family]]
name = "e2-best"
like = "e2"
sizes = [5]
hint = true
task = "best"
timeout = 1.0
"""


@pytest.fixture
def suite_file(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    path = tmp_path / "honest.toml"
    path.write_text(SUITE)
    return path


# -- item 3: only runs that can happen, errors counted, --sizes said, runs counted per family -------------

def test_a_backend_that_cannot_answer_a_family_is_skipped_before_running(suite_file, tmp_path):
    result = cli("bench", suite_file, "--sizes", "4", "--no-report")
    assert result.exit_code == 0, result.output
    assert ("skipped cpsat:table on family e2-best (task best): cpsat:table has no best-score model"
            in result.output)
    # the first line counts the runs that will happen, per family
    assert "2 puzzles, 3 runs (per family: 2 backends on small; 1 on e2-best)" in result.output
    # --sizes changed both families: one line each, the best family's saying what that does to scores
    assert "note: --sizes: family small now 4x4 (the suite has 3x3)\n" in result.output
    assert "note: --sizes: family e2-best now 4x4 (the suite has 5x5; a best family:" in result.output
    with Store(tmp_path / "bench.sqlite") as store:
        session = store.session()
        runs = store.runs(session.id)
        assert session.state == "finished" and session.planned == len(runs) == 3
        assert {(r.family, r.backend) for r in runs} == {("small", "native"), ("small", "cpsat:table"),
                                                         ("e2-best", "native")}
        assert all(r.category == "correct" for r in runs)
        assert session.environment["unanswered"] == [{
            "family": "e2-best", "backend": "cpsat:table", "task": "best",
            "why": "cpsat:table has no best-score model; use cpsat (cpsat:bool)"}]
    (row,) = json.loads(cli("bench", "list", "--json").output)["sessions"]
    assert row["planned"] == row["stored"] == 3 and row["unanswered"] == session.environment["unanswered"]


def test_colours_from_the_command_line_say_which_families_they_change(suite_file):
    """--colours is for every family: a family with colours of its own, or a preset's, hears it changed."""
    result = cli("bench", suite_file, "--sizes", "3", "--colours", "4", "--families", "small", "--no-report")
    assert result.exit_code == 0, result.output
    assert "note: --colours: family small now 4 colours (the suite has 3)\n" in result.output
    same = cli("bench", suite_file, "--sizes", "3", "--colours", "3", "--families", "small", "--no-report")
    assert same.exit_code == 0 and "--colours:" not in same.output
    from edgematch.bench.suite import Overrides
    (line,) = Overrides(colours="6").changes({"family": [{"name": "e2-best", "like": "e2", "sizes": [5]}]})
    assert line == "--colours: family e2-best now 6 inner colours (the suite has the e2 preset's)"


def test_the_report_says_what_the_command_line_changed(suite_file, tmp_path):
    """A report read later (or by someone else) shows the sizes and the cutoff the command line set, beside
    the suite's own description; a --timeout equal to the suite's is no change."""
    result = cli("bench", suite_file, "--sizes", "4", "--families", "small", "-t", "3", "-o", tmp_path / "r")
    assert result.exit_code == 0, result.output
    report = (tmp_path / "r" / "report.md").read_text()
    assert "> Set on the command line: --timeout: 3 s a run (the suite has 5 s)." in report
    assert "> Set on the command line: --sizes: family small now 4x4 (the suite has 3x3)." in report
    assert "Set on the command line" in (tmp_path / "r" / "report.html").read_text()
    same = cli("bench", suite_file, "--families", "small", "-t", "5", "--no-report", "--db", tmp_path / "s.sqlite")
    assert same.exit_code == 0 and "--timeout:" not in same.output
    with Store(tmp_path / "s.sqlite") as store:
        assert store.session().suite.notes == ()


def test_a_timeout_note_counts_the_default_of_a_suite_that_names_none():
    """A suite without ``timeout`` runs 20 s a run (DEFAULT_TIMEOUT): -t 5 changes that, and says so."""
    (line,) = Overrides(timeout=5.0).changes({"family": [{"name": "a", "sizes": [4]}]})
    assert line == "--timeout: 5 s a run (the suite has 20 s)"
    (line,) = Overrides(timeout=5.0).changes({"family": [{"name": "a"}, {"name": "b", "timeout": 600}]})
    assert line == "--timeout: 5 s a run (the suite has 20 s, 600 s)"


def test_a_suite_whose_backends_answer_none_of_its_tasks_is_refused(tmp_path):
    result = cli("bench", "smoke", "-b", "cpsat:table", "--task", "best", "--db", tmp_path / "b.sqlite")
    assert result.exit_code == 2
    assert result.output.startswith("edgematch: no backend of the suite can answer its task: cpsat:table has no")
    assert not (tmp_path / "b.sqlite").exists()


def test_sizes_the_suite_already_has_are_not_a_change():
    overrides = Overrides(sizes=("3",))
    suite = parse_suite(SUITE, "honest.toml", overrides)
    assert suite.notes == ("--sizes: family e2-best now 3x3 (the suite has 5x5; a best family: on smaller boards "
                           "more runs reach the maximum score, and scores then tell backends apart less "
                           "(--families leaves it out))",)
    assert parse_suite(SUITE, "honest.toml", Overrides(sizes=("3",), families=("small",))).notes == ()


def boom(self, puzzle, task):
    raise RuntimeError("boom")


def test_run_errors_are_printed_counted_and_exit_4(suite_file, tmp_path, monkeypatch):
    monkeypatch.setattr(NativeBackend, "run", boom)  # the runs are forked: the children fail alike
    result = cli("bench", suite_file, "--no-report")
    assert result.exit_code == 4, result.output
    assert "2 runs ended in error (native 2)" in result.output
    assert "ERROR small/3x3/seed1 native: RuntimeError: boom" in result.output
    assert "ERROR e2-best/5x5/seed1 native: RuntimeError: boom" in result.output
    # the best runs' table counts them too (its last column)
    row = next(line for line in result.output.splitlines() if line.split()[:3] == ["e2-best", "5x5", "native"])
    assert row.split()[3] == "0/1" and row.split()[-1] == "1"
    headline = next(line for line in result.output.splitlines() if line.split()[:1] == ["native"])
    assert headline.split()[-2:] == ["1", "0"]  # errors 1, wrong 0


def test_a_wrong_answer_exits_1_before_errors(suite_file, monkeypatch):
    monkeypatch.setattr(NativeBackend, "run", boom)
    monkeypatch.setattr(CpsatBackend, "run", lambda self, puzzle, task: Result(self.full_name, Status.UNSAT))
    result = cli("bench", suite_file, "--no-report", "--families", "small")
    assert result.exit_code == 1, result.output
    assert "WRONG small/3x3/seed1 cpsat:table" in result.output and "1 run ended in error" in result.output


# -- item 13: the ETA ----------------------------------------------------------------------------------------

def record(family, backend, wall, tiles=9, category="correct", termination="done"):
    size = {9: "3x3", 16: "4x4", 25: "5x5"}[tiles]
    return RunRecord(f"{family}/{size}/seed1", backend, "first", "solved", termination, category, wall, wall,
                     family=family, size=size, tiles=tiles)


def plain(timeout: float) -> Suite:
    """A suite of task ``first`` and ``timeout`` seconds per run (its instances are the test's own)."""
    return Suite("plain", "", "first", timeout, (1,), ("native",), ())


def test_best_runs_are_costed_at_their_own_cutoff():
    suite = parse_suite(SUITE.replace('"cpsat:table"', '"cpsat"'), "honest.toml")
    estimate = Estimate(suite, 2.0, [record("small", b, 0.05) for b in ("native", "cpsat")] * 6)
    best = [i for i in suite.instances if i.family == "e2-best"]
    todo = [(instance, backend, n) for n in range(6) for instance in best for backend in ("native", "cpsat")]
    assert len(todo) == 12
    # 12 done in 0.6 s, 12 best runs of 1 s each left: about 12 s, not the 0.6 s the finished runs suggest
    assert estimate.remaining(todo, [], jobs=1) == pytest.approx(12.0)
    assert estimate.remaining(todo, [], jobs=2) == pytest.approx(6.0)


def test_an_unsolved_family_costs_its_own_cutoff_not_the_suites():
    own = Instance("f", "5x5", 1, timeout=2.0)
    estimate = Estimate(plain(30.0), 2.0, [
        record("f", "native", 2.1, tiles=16, category="timeout", termination="timeout"),
        record("g", "native", 30.1, category="timeout", termination="timeout")])
    assert estimate.cost(own, "native") == pytest.approx(2.1)  # the family's timeouts, not g's 30 s ones


def test_a_run_that_outlives_its_estimate_is_never_counted_as_done():
    estimate = Estimate(plain(10.0), 2.0, [record("f", "native", 1.0)])
    instance = Instance("f", "3x3", 2)
    assert estimate.remaining([], [(instance, "native", 0.4)], jobs=1) == pytest.approx(0.6)
    # at 3 s of a run expected to take 1 s: expected to go on about as long again, never past its kill time
    assert estimate.remaining([], [(instance, "native", 3.0)], jobs=1) == pytest.approx(3.0)
    assert estimate.remaining([], [(instance, "native", 11.5)], jobs=1) == pytest.approx(0.5)
    assert estimate.remaining([], [(instance, "native", 12.5)], jobs=1) == pytest.approx(Estimate.LEAST)


def test_the_eta_shown_is_never_zero_while_runs_remain():
    from edgematch.cli.bench import eta_text

    assert eta_text(None, 0.0, done=False) == "eta ?"
    assert eta_text(65.2, 0.0, done=False) == "eta 1:06"
    assert eta_text(40.0, 39.5, done=False) == "eta 0:01"
    assert eta_text(10.0, 36.0, done=False) == "eta 0:01"  # counted down past its estimate: still not 0:00
    assert eta_text(3725.0, 0.0, done=False) == "eta 1:02:05"
    assert eta_text(10.0, 0.0, done=True) == "eta 0:00"


def test_the_estimate_is_renewed_while_a_long_run_is_under_way(tmp_path, monkeypatch):
    real = NativeBackend.run

    def slow(self, puzzle, task):
        if puzzle.width == 4:
            time.sleep(2.5)
        return real(self, puzzle, task)

    monkeypatch.setattr(NativeBackend, "run", slow)
    suite = load_suite("smoke", Overrides(backends=("native",), families=("unframed",), seeds=(1,)))
    told: list[tuple[float, float | None]] = []
    with Store(tmp_path / "b.sqlite") as store:
        number = store.new_session(suite, "smoke", 1, {})
        assert run_session(store, number, suite, watcher=Watcher(eta=lambda s: told.append((time.monotonic(), s))))
    # the 3x3 run is over in a moment; during the 2.5 s 4x4 run the estimate is renewed about every second,
    # and it never says 0 while the run goes on
    during = [s for _, s in told[2:-1]]
    assert len(during) >= 2, told
    assert all(s is not None and s > 0 for s in during), told


# -- item 20: user text is never rich markup -------------------------------------------------------------

MARKUP = ["[/x]", "[bold]", "[link=x]"]


def test_markup_in_suite_family_and_path_names_is_printed_as_given(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    families = "".join(f'\n[[family]]\nname = "{name}"\nsizes = [3]\ncolours = 3\n' for name in MARKUP)
    (tmp_path / "[bold].toml").write_text(f'name = "[/x]"\ntimeout = 5.0\nbackends = ["native"]\n{families}')
    db = "[link=x].sqlite"
    result = cli("bench", "[bold].toml", "--db", db, "-o", "[/x]")
    assert result.exit_code == 0, result.output
    assert "session 1 in [link=x].sqlite: suite [/x], 3 puzzles x 1 backend = 3 runs" in result.output
    assert "session 1: [/x] (PAR2 cutoff 5 s)" in result.output
    assert "report: [/x]/report.html" in result.output or "report: [/x]/report.md" in result.output

    folder = tmp_path / "[/x]" / "[bold]"
    folder.mkdir()
    shutil.copy(EXAMPLES / "insects.em", folder / "[link=x].em")
    result = cli("bench", folder, "-b", "native", "--db", db, "--no-report")
    assert result.exit_code == 0, result.output
    assert "suite [bold]," in result.output

    listed = cli("bench", "list", "--db", db)
    assert listed.exit_code == 0, listed.output
    assert "[/x]" in listed.output and "[bold]" in listed.output and "[link=x].sqlite" in listed.output
    said = {}
    for command in (["report", "1", "-o", "[bold]"], ["export", "2", "-o", "[/x].csv"], ["compare", "1", "1"]):
        done = cli(*command, "--db", db)
        assert done.exit_code == 0, (command, done.output)
        said[command[0]] = done.output
    assert "report: [bold]/report.md" in said["report"]
    assert "wrote [/x].csv" in said["export"]


def test_bench_list_reads_a_database_left_running_by_a_markup_named_suite(tmp_path):
    suite = load_suite("smoke", Overrides(backends=("native",), families=("unframed",)))
    suite = suite.__class__(**{**vars(suite), "name": "[/x] a\\"})  # a closing tag, a trailing backslash
    with Store(tmp_path / "b.sqlite") as store:
        store.new_session(suite, "[/x].toml", 1, {"commit": "[/x]"})  # left running, as a crash would leave it
    result = cli("bench", "list", "--db", tmp_path / "b.sqlite")
    assert result.exit_code == 0, result.output
    assert "[/x] a\\ " in result.output and "running" in result.output  # one backslash, as named


def test_a_markup_named_backend_is_one_line(tmp_path):
    result = cli("bench", "smoke", "-b", "[/x]", "--db", tmp_path / "b.sqlite")
    assert result.exit_code == 2 and result.output.count("\n") == 1
    assert "unknown backend '[/x]'" in result.output


def test_the_live_display_prints_markup_named_runs_as_given(tmp_path, monkeypatch):
    import edgematch.cli.bench as bench_cli

    screen = io.StringIO()
    monkeypatch.setattr(bench_cli, "err", Console(file=screen, force_terminal=True, width=200))
    monkeypatch.setattr(NativeBackend, "run", boom)
    monkeypatch.chdir(tmp_path)
    (tmp_path / "s.toml").write_text('name = "s"\nbackends = ["native"]\n[[family]]\nname = "[/x]"\nsizes = [3]\n')
    result = cli("bench", "s.toml", "--no-report")
    assert result.exit_code == 4, result.output
    shown = screen.getvalue()
    assert "\x1b[35m!\x1b[0m [/x]/3x3/seed1 native: RuntimeError: boom" in shown  # its mark, in magenta
    assert "\x1b[35m!\x1b[0m 1" in shown  # the bar's tally of errors


# -- item 15: compare with nothing in common -------------------------------------------------------------

def test_compare_of_sessions_with_no_puzzle_in_common_is_one_line(suite_file, tmp_path):
    for size in ("3", "4"):
        assert cli("bench", suite_file, "-b", "native", "--families", "small", "--sizes", size,
                   "--no-report").exit_code == 0
    result = cli("compare", "1", "2")
    assert result.exit_code == 2
    assert result.output == ("edgematch: sessions 1 and 2 have no puzzle and backend in common (1 runs only in "
                             "session 1, 1 only in session 2): nothing to compare\n")


# -- item 5 (command line): each database's reports in their own folder ----------------------------------

def test_benches_of_two_databases_write_two_report_folders(suite_file, tmp_path):
    for db in ("bench.sqlite", "cluster.sqlite"):
        result = cli("bench", suite_file, "-b", "native", "--families", "small", "--db", db)
        assert result.exit_code == 0, result.output
        assert f"report: reports/{db.removesuffix('.sqlite')}/session-1/report." in result.output
    assert (tmp_path / "reports" / "bench" / "session-1" / "report.md").is_file()
    assert (tmp_path / "reports" / "cluster" / "session-1" / "report.md").is_file()
