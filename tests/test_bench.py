"""The bench end to end: sessions stored run by run, kill and resume, agreement, reports, compare, export."""

import json
import os
import signal
import sqlite3
import subprocess
import sys
import time
from collections import Counter
from pathlib import Path

import pytest
from typer.testing import CliRunner

from edgematch.bench.agreement import settle
from edgematch.bench.compare import compare
from edgematch.bench.report import markdown
from edgematch.bench.runner import RunRecord
from edgematch.bench.store import Store
from edgematch.bench.suite import Overrides, load_suite
from edgematch.bench.summary import VIRTUAL_BEST, summarise
from edgematch.cli.main import load_commands
from edgematch.errors import FormatError

EXAMPLES = Path(__file__).resolve().parent.parent / "examples"
runner = CliRunner()
app = load_commands()


def cli(*args):
    return runner.invoke(app, [str(a) for a in args], catch_exceptions=False)


def stored_keys(db):
    with sqlite3.connect(db) as con:
        return Counter(con.execute("SELECT instance, backend, task FROM runs").fetchall())


def planned_keys(suite):
    return Counter((i.key, b, suite.task) for i, b in suite.runs())


def run(key, backend, task="count", status="solved", category="correct", count=None, distinct=None, time=0.1):
    return RunRecord(key, backend, task, status, "done", category, time + 0.01, time, count=count,
                     distinct=distinct, family=key.split("/")[0], size=key.split("/")[1], tiles=9)


# -- kill part-way and resume -------------------------------------------------------------------------

def test_a_killed_bench_resumes_without_running_anything_twice(tmp_path):
    db = tmp_path / "bench.sqlite"
    # the smoke suite's fast backends (16 runs): CP-SAT's would add seconds of runs and imports, not a case
    command = [sys.executable, "-m", "edgematch", "bench", "smoke", "-b", "native,sat", "--db", str(db),
               "--no-report"]
    bench = subprocess.Popen(command, cwd=tmp_path, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    deadline = time.monotonic() + 60
    done = 0
    while time.monotonic() < deadline and bench.poll() is None:
        try:
            done = sum(stored_keys(db).values())
        except sqlite3.OperationalError:  # not created yet, or busy for a moment
            done = 0
        if done >= 6:
            break
        time.sleep(0.01)
    bench.send_signal(signal.SIGKILL)
    bench.wait()
    suite = load_suite("smoke", Overrides(backends=("native", "sat")))
    before = stored_keys(db)
    assert 6 <= sum(before.values()) < len(suite.runs()), "the kill came too late to test resuming"
    with Store(db) as store:
        assert store.session().state == "running"  # killed: never closed

    resumed = subprocess.run([sys.executable, "-m", "edgematch", "bench", "--resume", "--db", str(db),
                              "--no-report"], cwd=tmp_path, capture_output=True, text=True, timeout=120)
    assert resumed.returncode == 0, resumed.stderr
    assert f"{sum(before.values())} of {len(suite.runs())} runs already stored" in resumed.stdout
    after = stored_keys(db)
    assert after == planned_keys(suite)  # every planned run exactly once: none twice, none missing
    with Store(db) as store:
        session = store.session()
        assert session.state == "finished" and session.done == session.planned
        assert all(r.category == "correct" for r in store.runs(session.id))  # (its report: a report's tests)


def test_ctrl_c_stores_what_finished_and_says_how_to_resume(tmp_path):
    db = tmp_path / "bench.sqlite"
    bench = subprocess.Popen([sys.executable, "-m", "edgematch", "bench", "smoke", "--db", str(db)],
                             cwd=tmp_path, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        try:
            if sum(stored_keys(db).values()) >= 2:
                break
        except sqlite3.OperationalError:
            pass
        time.sleep(0.01)
    bench.send_signal(signal.SIGINT)
    _, err = bench.communicate(timeout=30)
    assert bench.returncode == 130, err
    assert "edgematchbench--resume" in "".join(err.split()) and "Traceback" not in err  # rich may wrap the line
    with Store(db) as store:
        session = store.session()
        assert session.state == "interrupted" and 2 <= session.done < session.planned


# -- rigged backends through the command ---------------------------------------------------------------

def suite_file(tmp_path, backends, timeout=5):
    path = tmp_path / "mine.toml"
    path.write_text(f'name = "mine"\ntimeout = {timeout}\nseeds = [1]\nbackends = {json.dumps(backends)}\n'
                    '[[family]]\nname = "framed"\nsizes = [4]\nframed = true\nborder_colours = 2\n'
                    'inner_colours = 3\n')
    return path


def test_a_wrong_answer_is_reported_first_and_fails_the_command(rigged, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    result = cli("bench", suite_file(tmp_path, ["native", "wrong", "unsat"]), "-o", tmp_path / "r")
    assert result.exit_code == 1, result.output
    assert "WRONG framed/4x4/seed1 wrong: invalid solution" in result.output
    assert "WRONG framed/4x4/seed1 unsat: a planted (solvable) puzzle was reported unsat" in result.output
    text = (tmp_path / "r" / "report.md").read_text()
    assert text.index("2 WRONG answer(s)") < text.index("## Headline")
    assert "WRONG answers" in (tmp_path / "r" / "report.html").read_text()


def test_a_hanging_backend_is_stopped_and_the_bench_goes_on(rigged, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    start = time.perf_counter()
    result = cli("bench", suite_file(tmp_path, ["hang", "native"], timeout=1), "--no-report")
    assert time.perf_counter() - start < 15
    assert result.exit_code == 0, result.output
    with Store(tmp_path / "bench.sqlite") as store:
        runs = {r.backend: r for r in store.runs(store.session().id)}
    assert (runs["hang"].termination, runs["hang"].category) == ("timeout", "timeout")
    assert runs["native"].category == "correct"


# -- agreement ----------------------------------------------------------------------------------------

def test_counts_that_disagree_with_the_majority_are_wrong():
    runs = [run("f/3x3/a", "native", count=16, distinct=2), run("f/3x3/a", "cpsat", count=16, distinct=2),
            run("f/3x3/a", "sat", count=12, distinct=2), run("f/3x3/b", "sat", count=4, distinct=1)]
    settled = settle(runs)
    assert [r.category for r in settled] == ["correct", "correct", "wrong", "correct"]
    assert "disagrees with native 16 (2 distinct), cpsat 16 (2 distinct)" in settled[2].message
    assert runs[2].category == "correct"  # the stored records are not changed


def test_with_no_majority_every_complete_count_is_wrong():
    settled = settle([run("f/3x3/a", "native", count=16), run("f/3x3/a", "sat", count=12)])
    assert [r.category for r in settled] == ["wrong", "wrong"]


def test_a_backend_with_options_does_not_outvote_another_backend():
    """native and native@match=on share their tables: two names, one vote against cpsat's, so no majority."""
    settled = settle([run("f/3x3/a", "native", count=12), run("f/3x3/a", "native@match=on", count=12),
                      run("f/3x3/a", "cpsat", count=16)])
    assert [r.category for r in settled] == ["wrong", "wrong", "wrong"]


def test_unsat_beside_a_checked_solution_is_wrong():
    settled = settle([run("f/3x3/a", "native", task="first"), run("f/3x3/a", "sat", task="first", status="unsat")])
    assert [r.category for r in settled] == ["correct", "wrong"] and "native found a checked solution" in \
        settled[1].message
    agreed = settle([run("f/3x3/a", "native", task="first", status="unsat"),
                     run("f/3x3/a", "sat", task="first", status="unsat")])
    assert [r.category for r in agreed] == ["correct", "correct"]


def test_a_complete_count_below_a_partial_one_is_wrong():
    settled = settle([run("f/3x3/a", "native", count=10), run("f/3x3/a", "sat", status="timeout",
                                                               category="timeout", count=11)])
    assert settled[0].category == "wrong" and "partial count 11" in settled[0].message


# -- folders of puzzle files ----------------------------------------------------------------------------

def test_a_folder_of_puzzle_files_is_a_suite(tmp_path, monkeypatch):
    folder = tmp_path / "seeds"
    folder.mkdir()
    for name in ("insects.em", "hunde.hunde"):
        (folder / name).write_text((EXAMPLES / name).read_text())
    monkeypatch.chdir(tmp_path)
    result = cli("bench", folder, "-b", "native,cpsat,sat", "--task", "count", "--no-report")
    assert result.exit_code == 0, result.output
    with Store(tmp_path / "bench.sqlite") as store:
        runs = store.runs(store.session().id)
    counts = {(Path(r.instance).name, r.backend): (r.count, r.distinct) for r in runs}
    assert {v for (name, _), v in counts.items() if name == "insects.em"} == {(4, 1)}
    assert {v for (name, _), v in counts.items() if name == "hunde.hunde"} == {(16, 2)}
    assert all(r.category == "correct" for r in runs) and len(runs) == 6


def test_a_malformed_file_in_a_folder_is_named(tmp_path):
    folder = tmp_path / "puzzles"
    folder.mkdir()
    (folder / "bad.em").write_text("size 3x3\nrule same\ntile 1 2 3\n")
    result = cli("bench", folder, "--db", tmp_path / "b.sqlite")
    assert result.exit_code == 2
    assert str(folder / "bad.em") + ":" in result.output and "Traceback" not in result.output


# -- reports, compare, export, list ---------------------------------------------------------------------

def test_the_report_renders_from_the_database(smoke_db, smoke_report):
    written = smoke_report
    with Store(smoke_db) as store:
        summary = summarise(store.session(), store.runs(store.session().id))
    page = written.html.read_text()
    assert page.count("<svg") == 3 and "No wrong answers" in page
    assert "<script" not in page and "<link" not in page and "src=" not in page  # self-contained, offline
    for backend in load_suite("smoke").backends:
        assert f"<td class=\"l\">{backend}</td>" in page
    text = written.markdown.read_text()
    assert "cutoff 5 s" in text and f"| {VIRTUAL_BEST} |" in text
    # the virtual best is the per-instance minimum: never slower than any backend in total
    best = summary.headline[VIRTUAL_BEST]
    assert best.solved == summary.headline["native"].total
    assert all(best.total_time <= summary.headline[b].total_time + 1e-12 for b in summary.backends)


def test_report_list_export_and_compare_through_the_command(smoke_db, tmp_path):
    listed = cli("bench", "list", "--db", smoke_db)
    assert listed.exit_code == 0 and "smoke" in listed.output and "finished" in listed.output
    csv_file, json_file = tmp_path / "runs.csv", tmp_path / "runs.json"
    assert cli("export", "--db", smoke_db, "-o", csv_file).exit_code == 0
    assert cli("export", "1", "--db", smoke_db, "-o", json_file).exit_code == 0
    rows = csv_file.read_text().strip().split("\n")
    data = json.loads(json_file.read_text())
    assert len(rows) - 1 == len(data["runs"]) == len(load_suite("smoke").runs())
    assert data["session"]["environment"]["cores"] == os.cpu_count()
    report = cli("report", "--db", smoke_db, "-o", tmp_path / "rep", "--scatter", "native,sat")
    assert report.exit_code == 0 and (tmp_path / "rep" / "report.html").exists()
    assert "native vs sat" in (tmp_path / "rep" / "report.html").read_text()
    same = cli("compare", "1", "1", "--db", smoke_db)
    assert same.exit_code == 0 and "0 of 32 matched runs moved" in same.output


def test_compare_lists_what_moved_by_more_than_the_factor():
    before = [run("f/3x3/a", "native", time=1.0), run("f/3x3/a", "sat", time=1.0),
              run("f/3x3/b", "native", time=1.0), run("f/3x3/b", "sat", time=1.0)]
    after = [run("f/3x3/a", "native", time=1.05), run("f/3x3/a", "sat", time=1.5),
             run("f/3x3/b", "native", time=0.5), run("f/3x3/b", "sat", status="timeout", category="timeout")]
    moved = {(c.instance, c.backend): c.kind for c in compare(before, after, factor=1.1).changes}
    assert moved == {("f/3x3/a", "sat"): "slower", ("f/3x3/b", "native"): "faster",
                     ("f/3x3/b", "sat"): "unsolved now"}


@pytest.mark.parametrize(("args", "fragment"), [
    (["bench", "smoke", "-b", "native,nope"], "unknown backend 'nope'"),
    (["bench", "smoke", "--task", "all"], "--task must be one of first, count"),
    (["bench", "smoke", "--timeout", "0"], "--timeout must be a positive number"),
    (["bench", "smoke", "--seeds", "1,x"], "--seeds wants integers"),
    (["bench", "smoke", "--resume"], "--resume continues a session as it was planned"),
    (["bench", "no-such-suite"], "no such suite file or folder"),
    (["report"], "no results database"),
    (["compare", "1", "2"], "no results database"),
])
def test_bad_bench_usage_is_one_line_and_exit_2(tmp_path, monkeypatch, args, fragment):
    monkeypatch.chdir(tmp_path)
    result = cli(*args)
    assert result.exit_code == 2, result.output
    assert fragment in result.output and "Traceback" not in result.output


def test_a_file_that_is_not_a_results_database_is_refused(tmp_path):
    bad = tmp_path / "bench.sqlite"
    bad.write_text("not a database at all\n" * 100)
    with pytest.raises(FormatError, match="not a results database"):
        Store(bad)
    result = cli("bench", "list", "--db", bad)
    assert result.exit_code == 2 and str(bad) in result.output


def test_markdown_opens_with_correctness(smoke_db):
    with Store(smoke_db) as store:
        text = markdown(summarise(store.session(), store.runs(1)))
    assert text.index("## Correctness") < text.index("## Headline") < text.index("## By size")


def test_the_virtual_best_is_over_single_backends_only():
    from edgematch.bench.summary import virtual_best

    runs = [run("f/3x3/a", "native", time=0.5), run("f/3x3/a", "auto", time=0.1),
            run("f/3x3/a", "portfolio:native+sat", time=0.2), run("f/3x3/a", "sat", time=0.3)]
    (best,) = virtual_best(runs)
    assert best.time == 0.3 and best.message == "from sat"


def test_an_unwritable_output_is_one_line_not_a_traceback(smoke_db, tmp_path):
    result = cli("export", "--db", smoke_db, "-o", tmp_path / "no-such-folder" / "runs.csv")
    assert result.exit_code == 2 and "no-such-folder" in result.output and "Traceback" not in result.output


def test_a_session_stopped_early_reports_only_backends_that_ran(tmp_path):
    suite = load_suite("smoke")
    with Store(tmp_path / "b.sqlite") as store:
        number = store.new_session(suite, "smoke", 1, {})
        instance = suite.instances[0]
        store.add_run(number, run(instance.key, "native", task="first").about(instance))
        summary = summarise(store.session(number), store.runs(number))
    assert summary.backends == ["native"] and summary.missing == len(suite.runs()) - 1
    assert "Incomplete session: 1 of 32 runs" in markdown(summary)


def test_choosers_are_measured_against_the_virtual_best_and_the_best_single_backend_per_class():
    from edgematch.bench.store import Session
    from edgematch.bench.suite import parse_suite

    suite = parse_suite('backends = ["a", "b", "auto"]\ntimeout = 10\nseeds = [1, 2]\n'
                        '[[family]]\nname = "f"\nsizes = [3, 4]\n')
    times = {"f/3x3/seed1": (0.1, 0.3, 0.12), "f/3x3/seed2": (0.2, 0.1, 0.25),
             "f/4x4/seed1": (None, 1.0, 1.1), "f/4x4/seed2": (0.5, 2.0, 0.6)}
    runs = [run(key, backend, task="first", time=t) if t is not None else
            run(key, backend, task="first", status="timeout", category="timeout", time=10.0)
            for key, row in times.items() for backend, t in zip(("a", "b", "auto"), row, strict=True)]
    session = Session(1, "2026-01-01", None, "finished", 1.0, suite, "test", 1, {}, len(runs))
    (auto,) = summarise(session, runs).against()
    assert auto.backend == "auto"
    assert auto.total == pytest.approx(0.12 + 0.25 + 1.1 + 0.6)
    assert auto.best_total == pytest.approx(0.1 + 0.1 + 1.0 + 0.5)
    # 3x3: a totals 0.3, auto 0.37 (1.23x); 4x4: b totals 3.0 (a timed out), auto 1.7 (0.57x)
    assert auto.worst_class == ("f", "3x3") and auto.single == "a"
    assert auto.worst_ratio == pytest.approx(0.37 / 0.3)
    assert "| auto | 2.070 | 1.700 | 1.22x | f 3x3 |" in markdown(summarise(session, runs))


@pytest.mark.parametrize("times, single", [((None, None, None), "none solved"), ((0.5, 0.5, 0.7), "a = b")])
def test_the_best_single_backend_of_a_class_is_never_a_tie_broken_by_name(times, single):
    """A class nobody solved has no best single backend; backends tied at the best all are it."""
    from edgematch.bench.store import Session
    from edgematch.bench.suite import parse_suite

    suite = parse_suite('backends = ["a", "b", "auto"]\ntimeout = 10\nseeds = [1]\n'
                        '[[family]]\nname = "f"\nsizes = [3]\n')
    runs = [run("f/3x3/seed1", backend, task="first", time=t) if t is not None else
            run("f/3x3/seed1", backend, task="first", status="timeout", category="timeout", time=10.0)
            for backend, t in zip(("a", "b", "auto"), times, strict=True)]
    session = Session(1, "2026-01-01", None, "finished", 1.0, suite, "test", 1, {}, len(runs))
    (auto,) = summarise(session, runs).against()
    assert auto.worst_class == ("f", "3x3") and auto.single == single
    assert f"| {single} (" in markdown(summarise(session, runs))


def test_choosers_per_family_show_the_worst_family_and_instance():
    from edgematch.bench.store import Session
    from edgematch.bench.suite import parse_suite

    suite = parse_suite('backends = ["a", "b", "auto"]\ntimeout = 10\nseeds = [1, 2]\n'
                        '[[family]]\nname = "f"\nsizes = [3]\n[[family]]\nname = "g"\nsizes = [3]\n')
    times = {"f/3x3/seed1": (0.1, 0.3, 0.1), "f/3x3/seed2": (0.2, 0.1, 0.1),
             "g/3x3/seed1": (0.5, 0.2, 0.2), "g/3x3/seed2": (0.05, 0.4, None)}  # auto missed g seed2
    runs = [run(key, backend, task="first", time=t) if t is not None else
            run(key, backend, task="first", status="timeout", category="timeout", time=10.0)
            for key, row in times.items() for backend, t in zip(("a", "b", "auto"), row, strict=True)]
    session = Session(1, "2026-01-01", None, "finished", 1.0, suite, "test", 1, {}, len(runs))
    summary = summarise(session, runs)
    f, g = sorted(summary.per_family(), key=lambda r: r.family)
    assert (f.backend, f.family, f.instances) == ("auto", "f", 2)
    assert f.ratio == pytest.approx(0.2 / 0.2) and f.worst == pytest.approx(1.0) and f.missed == 0
    assert g.total == pytest.approx(0.2 + 20.0) and g.best_total == pytest.approx(0.2 + 0.05)
    assert g.worst_instance == "g/3x3/seed2" and g.worst == pytest.approx(20.0 / 0.05) and g.missed == 1
    assert "| auto | g | 2 | 20.200 | 0.250 |" in markdown(summary)


def test_bench_confirm_needs_two_families_and_fails_on_an_answer_one_family_gave(rigged, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    refused = cli("bench", suite_file(tmp_path, ["native", "native:restarts"]), "--task", "count", "--confirm")
    assert refused.exit_code == 2 and "--confirm needs backends of two families" in refused.output
    agreed = cli("bench", suite_file(tmp_path, ["native", "cpsat"]), "--task", "count", "--confirm", "--no-report")
    assert agreed.exit_code == 0, agreed.output
    assert "all 1 counts" in agreed.output and "UNCONFIRMED" not in agreed.output
    alone = cli("bench", suite_file(tmp_path, ["native", "hang"], timeout=1), "--task", "count", "--confirm",
                "--no-report")
    assert alone.exit_code == 1 and "UNCONFIRMED framed/4x4/seed1 (count)" in alone.output
    assert "0 of 1 counts and \"no solution\" answers (✓ in the runs table); 1 rest on" in alone.output


def test_a_backend_named_with_options_is_a_backend_of_its_own(tmp_path):
    """``native@match=on`` beside ``native``: runs with the options, stored and reported under that name, of
    native's family (no second opinion for native), and left out of the policy (auto runs names as they are)."""
    from edgematch.bench.policy import load_sessions
    from edgematch.solvers.confirm import family

    db = tmp_path / "b.sqlite"
    result = cli("bench", "smoke", "--backends", "native,native@match=on@order=dynamic", "--sizes", "3",
                 "--seeds", "1", "--db", db, "--no-report")
    assert result.exit_code == 0, result.output
    with Store(db) as store:
        runs = store.runs(1)
        (session, kept), = load_sessions(store, [1])
    mine = [r for r in runs if r.backend == "native@match=on@order=dynamic"]
    assert mine and all(r.category == "correct" for r in mine)
    assert all(r.options["match"] == "on" and r.options["order"] == "dynamic" for r in mine)
    assert all("match" not in r.options and r.options["order"] == "row" for r in runs if r.backend == "native")
    assert family("native@match=on@order=dynamic") == "native"
    assert {r.backend for r in kept} == {"native"}


@pytest.mark.parametrize("backend, says", [
    ("native@bogus=1", "native backend: unknown option(s) bogus; known: order"),
    ("native@fc", "write its options as NAME@KEY=VALUE"),
    ("native@fc=maybe", "backend native@fc=maybe: option fc: expected on/off, got 'maybe'"),
    ("native@fc=on@fc=off", "option fc given twice"),
    ("portfolio:native+sat@fc=on", "a portfolio passes no options to its members"),
])
def test_a_backend_option_it_does_not_take_is_one_line_before_any_run(tmp_path, backend, says):
    db = tmp_path / "b.sqlite"
    result = cli("bench", "smoke", "--backends", backend, "--db", db, "--no-report")
    assert result.exit_code == 2 and says in result.output and "Traceback" not in result.output
    assert not db.exists()


def test_options_spelled_for_a_suite_are_no_backend_name_elsewhere():
    """A policy file's rule runs as auto runs it, by name: ``native@fc=on`` is refused there (it would pass
    over it silently); ``-b`` says how options are given on the command line."""
    from edgematch.errors import UsageError
    from edgematch.solvers.base import backend_problem, get_backend

    assert backend_problem("native@fc=on", options=True) is None
    assert "unknown backend 'native@fc=on'" in backend_problem("native@fc=on")
    with pytest.raises(UsageError, match="-b native -O fc=on -O order=dynamic"):
        get_backend("native@fc=on@order=dynamic")


def test_a_built_in_suite_name_is_the_suite_even_beside_a_folder_of_that_name(tmp_path, monkeypatch):
    """`bench smoke` in a folder holding ./smoke runs the built-in smoke suite; `bench ./smoke` the folder."""
    import shutil

    monkeypatch.chdir(tmp_path)
    (tmp_path / "smoke").mkdir()
    shutil.copy(Path(__file__).resolve().parents[1] / "examples" / "insects.em", tmp_path / "smoke")
    built_in = load_suite("smoke")
    assert {i.family for i in built_in.instances} != {"smoke"} and len(built_in.instances) > 1
    (folder,) = load_suite("./smoke").instances
    assert "insects" in folder.key
