"""Runs are identified by their puzzle's content: compare, --resume and the policy refuse to mix two puzzles
that share a name; stores made before fingerprints still open."""

import json
import sqlite3
from pathlib import Path

import pytest
from typer.testing import CliRunner

from edgematch.bench.compare import compare
from edgematch.bench.policy import load_sessions
from edgematch.bench.runner import RunRecord
from edgematch.bench.session import pending
from edgematch.bench.store import SCHEMA_VERSION, Store
from edgematch.bench.suite import fingerprint, load_suite
from edgematch.cli.main import load_commands
from edgematch.core.generator import GeneratorSpec, generate
from edgematch.errors import UsageError
from edgematch.formats import write_puzzle

runner = CliRunner()
app = load_commands()


def cli(*args):
    return runner.invoke(app, [str(a) for a in args], catch_exceptions=False)


def puzzle_file(folder: Path, seed: int) -> None:
    folder.mkdir(exist_ok=True)
    write_puzzle(generate(GeneratorSpec(3, 3, colours=3, seed=seed))[0], folder / "p.em")


def test_the_fingerprint_is_the_content_not_the_name():
    one = generate(GeneratorSpec(3, 3, colours=3, seed=1))[0]
    assert fingerprint(one) == fingerprint(one.replace(name="another name"))
    assert fingerprint(one) != fingerprint(generate(GeneratorSpec(3, 3, colours=3, seed=2))[0])


def test_compare_refuses_two_different_puzzles_under_one_name(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    folder = tmp_path / "puzzles"
    puzzle_file(folder, seed=1)
    assert cli("bench", folder, "-b", "native", "--no-report").exit_code == 0
    puzzle_file(folder, seed=2)  # the same file name, another puzzle
    assert cli("bench", folder, "-b", "native", "--no-report").exit_code == 0
    with Store(tmp_path / "bench.sqlite") as store:
        a, b = store.runs(1), store.runs(2)
    assert a[0].instance == b[0].instance and a[0].fingerprint != b[0].fingerprint

    refused = cli("compare", "1", "2")
    assert refused.exit_code == 2
    assert "different puzzles under the same name: puzzles/3x3/p.em" in refused.output
    assert "Traceback" not in refused.output and "ratio" not in refused.output

    apart = cli("compare", "1", "2", "--apart")
    assert apart.exit_code == 0
    assert ("sessions 1 and 2 have no puzzle and backend in common (0 runs only in session 1, 0 only in session 2): "
            "no times to compare") in apart.output  # one line, not an empty table (issue 22, item 15)
    assert f"puzzles/3x3/p.em: {a[0].fingerprint} in session 1, {b[0].fingerprint} in session 2" in apart.output
    assert compare(a, b).different[0].instance == "puzzles/3x3/p.em"

    with Store(tmp_path / "bench.sqlite") as store, pytest.raises(UsageError, match="different puzzles"):
        load_sessions(store, [1, 2])


def test_resume_refuses_when_an_instance_is_no_longer_the_puzzle_its_runs_solved(tmp_path):
    suite = load_suite("smoke")
    instance = suite.instances[0]
    with Store(tmp_path / "b.sqlite") as store:
        number = store.new_session(suite, "smoke", 1, {})
        stale = RunRecord(instance.key, suite.backends[0], suite.task, "solved", "done", "correct", 0.1, 0.1)
        stale.about(instance)
        stale.fingerprint = "0" * 16  # as if the generator had made another puzzle then
        store.add_run(number, stale)
        with pytest.raises(UsageError, match=f"{instance.key} is no longer the puzzle"):
            pending(store, number, suite)


SCHEMA_1_RUNS = """CREATE TABLE runs (id INTEGER PRIMARY KEY, session INTEGER NOT NULL, instance TEXT NOT NULL,
family TEXT NOT NULL, size TEXT NOT NULL, tiles INTEGER NOT NULL, backend TEXT NOT NULL, task TEXT NOT NULL,
status TEXT NOT NULL, termination TEXT NOT NULL, category TEXT NOT NULL, wall REAL NOT NULL, time REAL NOT NULL,
build REAL NOT NULL, solve REAL NOT NULL, check_time REAL NOT NULL, count INTEGER, distinct_count INTEGER,
counters TEXT NOT NULL, options TEXT NOT NULL, message TEXT NOT NULL, finished TEXT NOT NULL)"""


def old_store(path: Path) -> None:
    """A results database as schema 1 wrote it: no fingerprint, CPU, memory or repetition columns."""
    suite = load_suite("smoke")
    with sqlite3.connect(path) as db:
        db.execute("CREATE TABLE sessions (id INTEGER PRIMARY KEY, started TEXT NOT NULL, finished TEXT, state TEXT "
                   "NOT NULL, elapsed REAL NOT NULL DEFAULT 0, suite TEXT NOT NULL, source TEXT NOT NULL, plan TEXT "
                   "NOT NULL, jobs INTEGER NOT NULL, environment TEXT NOT NULL)")
        db.execute(SCHEMA_1_RUNS)
        plan = suite.as_dict()
        del plan["repeat"]
        db.execute("INSERT INTO sessions VALUES (1, '2026-01-01T00:00:00+00:00', NULL, 'finished', 1.0, 'smoke', "
                   "'smoke', ?, 1, '{}')", (json.dumps(plan),))
        instance = suite.instances[0]
        db.execute("INSERT INTO runs VALUES (1, 1, ?, ?, ?, 9, 'native', 'first', 'solved', 'done', 'correct', 0.2, "
                   "0.1, 0, 0.1, 0, NULL, NULL, '{}', '{}', '', '2026-01-01T00:00:01+00:00')",
                   (instance.key, instance.family, instance.size))
        db.execute("PRAGMA user_version = 1")


def test_a_store_from_before_fingerprints_opens_and_says_its_puzzles_are_unknown(tmp_path):
    path = tmp_path / "old.sqlite"
    old_store(path)
    with Store(path) as store:
        (run,) = store.runs(1)
        assert run.fingerprint == "" and run.cpu is None and run.repeat == 0
        assert store.unknown_fingerprints(1) == 1
    with sqlite3.connect(path) as db:
        assert db.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION  # migrated in place
    listed = json.loads(cli("bench", "list", "--json", "--db", path).output)
    assert listed["sessions"][0]["unknown_fingerprints"] == 1
    report = cli("report", "--db", path, "-o", tmp_path / "r")
    assert report.exit_code == 0, report.output
    assert "known by name only" in (tmp_path / "r" / "report.md").read_text()


def test_a_store_from_before_fingerprints_that_cannot_be_migrated_is_read_as_it_is(tmp_path, monkeypatch):
    """As a read-only file would (the tests may run as root, whom file modes do not stop): the ALTER fails."""
    from edgematch.bench import store as stored

    path = tmp_path / "old.sqlite"
    old_store(path)
    monkeypatch.setattr(stored, "_ADDED", {"cpu": "NOT A TYPE ("})
    with Store(path) as store:
        assert store.legacy and store.runs(1)[0].fingerprint == ""
        assert set(store.done(1).values()) == {""} and store.unknown_fingerprints(1) == 1
    with sqlite3.connect(path) as db:
        assert db.execute("PRAGMA user_version").fetchone()[0] == 1  # left as it was
