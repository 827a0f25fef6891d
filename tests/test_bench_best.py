"""The harness's best-score task: suites plan it, runs are re-scored by the checker, stores keep the scores,
reports show them (and skip PAR2 for them), proven optima that disagree are caught, the policy learns it."""

import sqlite3

import pytest

from edgematch.bench.agreement import settle
from edgematch.bench.policy import derive
from edgematch.bench.report import markdown, write_report
from edgematch.bench.runner import RunRecord, run_one
from edgematch.bench.session import run_session
from edgematch.bench.store import SCHEMA_VERSION, Store
from edgematch.bench.suite import Overrides, load_suite, parse_suite
from edgematch.bench.summary import summarise
from edgematch.core.checker import check
from edgematch.core.model import Solution
from edgematch.errors import FormatError

BEST_SUITE = """
name = "tiny-best"
task = "best"
timeout = 1.0
seeds = [1, 2]
backends = ["native", "cpsat"]

[[family]]
name = "e2"
like = "e2"
sizes = [4, 5]
hint = true
"""

MIXED_SUITE = """
name = "mixed"
task = "first"
timeout = 5.0
seeds = [1]
backends = ["native", "cpsat", "sat"]

[[family]]
name = "framed"
sizes = [4]
framed = true
border_colours = 2
inner_colours = 2

[[family]]
name = "e2-best"
like = "e2"
sizes = [4]
hint = true
task = "best"
timeout = 1.0
backends = ["native", "cpsat"]
"""


@pytest.fixture(scope="module")
def best_db(tmp_path_factory):
    """One stored best session (3 tiny E2-like boards x native, cpsat) and one mixed session."""
    path = tmp_path_factory.mktemp("best") / "bench.sqlite"
    with Store(path) as store:
        suite = parse_suite(BEST_SUITE, check_backends=True)
        suite = suite.__class__(**{**vars(suite), "instances": suite.instances[:3]})
        number = store.new_session(suite, "tiny-best", 1, {})
        assert run_session(store, number, suite)
        mixed = parse_suite(MIXED_SUITE, check_backends=True)
        assert run_session(store, store.new_session(mixed, "mixed", 1, {}), mixed)
    return path


def test_best_runs_are_stored_with_the_checkers_scores(best_db):
    with Store(best_db) as store:
        session = store.session(1)
        runs = store.runs(1)
    assert len(runs) == 6 and {r.backend for r in runs} == {"native", "cpsat"}
    for run in runs:
        assert run.task == "best" and run.category == "correct", run
        assert run.status in ("solved", "timeout")
        instance = next(i for i in session.suite.instances if i.key == run.instance)
        puzzle = instance.puzzle()
        verdict = check(puzzle, Solution(puzzle.width, puzzle.height, tuple(run.board)))
        assert verdict.admissible and run.score == verdict.score and run.max_score == verdict.max_score
        assert run.history and run.history[-1][1] == run.score and run.reached is not None


def test_the_report_has_the_best_section_and_the_plot(best_db, tmp_path):
    with Store(best_db) as store:
        written = write_report(store, 1, tmp_path / "report")
        summary = summarise(store.session(1), store.runs(1))
    text = written.markdown.read_text()
    assert "## Best scores" in text and "## Headline" not in text and "PAR2 (s)" not in text
    assert (tmp_path / "report" / "scores.svg").read_text().lstrip().startswith("<svg")
    assert "scores.svg" in text and "Best board per instance" in text
    if written.html:
        page = written.html.read_text()
        assert 'id="best"' in page and "<svg" in page
    assert summary.runs == [] and summary.scores and len(summary.scores.winners) == 3
    assert sum(summary.scores.wins.values()) >= 3 and summary.checked == 6


def test_a_mixed_session_keeps_par2_for_first_runs_only(best_db, tmp_path):
    with Store(best_db) as store:
        summary = summarise(store.session(2), store.runs(2))
        write_report(store, 2, tmp_path / "mixed")
    assert {r.task for r in summary.every} == {"first", "best"}
    assert {r.task for r in summary.runs} == {"first"} and len(summary.runs) == 3
    assert summary.scores and {r.backend for r in summary.scores.runs} == {"native", "cpsat"}
    text = markdown(summary)
    assert "## Headline" in text and "## Best scores" in text and "family e2-best: task `best`, 1 s" in text


def test_an_overclaimed_score_and_a_broken_board_are_wrong(rigged):
    instance = parse_suite(BEST_SUITE).instances[0]
    over = run_one(instance, "overclaim", "best", timeout=1.0)
    assert over.category == "wrong" and "claimed score" in over.message and over.score is not None
    broken = run_one(instance, "wrong", "best", timeout=1.0)
    assert broken.category == "wrong" and "breaks a rule" in broken.message


def _best(backend: str, score: int, status: str) -> RunRecord:
    return RunRecord("e2/5x5/seed1", backend, "best", status, "done", "correct", 1.0, 1.0, score=score,
                     max_score=40, history=[(0.5, score)])


def test_proven_optima_that_differ_disagree():
    runs = settle([_best("cpsat", 30, "solved"), _best("sat", 32, "solved"), _best("native", 31, "timeout")])
    assert [r.category for r in runs] == ["wrong", "correct", "correct"]
    assert "sat's score 32" in runs[0].message
    assert [r.category for r in settle([_best("cpsat", 32, "solved"), _best("native", 31, "timeout")])] == \
        ["correct", "correct"]


def test_the_policy_learns_the_best_question(best_db):
    with Store(best_db) as store:
        sessions = [(store.session(1), store.runs(1))]
    rules = [r for r in derive(sessions) if r["question"] == "best"]
    assert rules and all(r["backend"] in ("native", "cpsat") and "mean score" in r["evidence"] for r in rules)


def test_an_old_store_without_best_columns_opens(tmp_path):
    path = tmp_path / "old.sqlite"
    with Store(path) as store:
        number = store.new_session(parse_suite(BEST_SUITE), "x", 1, {})
        store.add_run(number, RunRecord("e2/4x4/seed1", "native", "first", "solved", "done", "correct", 0.1))
    with sqlite3.connect(path) as db:  # as schema 2 left it
        for column in ("score", "max_score", "history", "board"):
            db.execute(f"ALTER TABLE runs DROP COLUMN {column}")
        db.execute("PRAGMA user_version = 2")
    db.close()
    with Store(path) as store:
        run = store.runs(1)[0]
        assert run.score is None and run.history == [] and run.board == []
    with sqlite3.connect(path) as db:
        assert db.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION
    db.close()


def test_suites_plan_family_tasks_and_refuse_bad_ones():
    default = load_suite("default")
    best = [i for i in default.instances if default.task_of(i) == "best"]
    assert best and default.tasks == ["first", "best"]
    assert all(default.timeout_of(i) < default.timeout for i in best)
    planned = {(i.key, b) for i, b, _ in default.planned()}
    assert all((i.key, "auto") in planned and (i.key, "native:dfs") not in planned for i in best)
    scaling = load_suite("scaling")
    assert any(scaling.task_of(i) == "best" and i.size == "16x16" for i in scaling.instances)
    again = type(default).from_dict(default.as_dict())
    assert again == default
    overridden = load_suite("default", Overrides(task="first"))
    assert overridden.tasks == ["first"]
    with pytest.raises(FormatError, match="family e2-best: one of first, count, best"):
        parse_suite(MIXED_SUITE.replace('task = "best"', 'task = "most"'))
    with pytest.raises(FormatError, match="not one of the suite's backends"):
        parse_suite(MIXED_SUITE.replace('backends = ["native", "cpsat"]', 'backends = ["native", "portfolio"]'))
